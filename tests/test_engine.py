
import numpy as np
import pandas as pd
import pytest

import fairnb
from fairnb.oracle import Oracle
from fairnb.results import Result
from fairnb.search import Batch, RandomSearch, Search


def test_random_search_finds_planted_discrimination(synthetic, biased_model):
    r = fairnb.run_search(biased_model, synthetic.domain, method="random", n_samples=20_000, random_state=0)
    assert r.status == "completed" and r.tried == 20_000
    assert r.count("eidig") > 1_000
    assert r.count("adf") <= r.count("eidig")
    # every reported pair re-checked by a fresh oracle
    v = Oracle(biased_model, synthetic.domain).check(r.inputs)
    assert v.discriminatory.all()
    assert (Oracle(biased_model, synthetic.domain).check(r.counterparts).discriminatory).all()
    # counterparts differ only in the protected attribute, and get another decision
    other = np.delete(np.arange(synthetic.domain.n_features), synthetic.domain.protected)
    assert (r.inputs[:, other] == r.counterparts[:, other]).all()
    assert (r.pairs["label"] != r.pairs["label'"]).all()


def test_share_interval_of_a_model_that_ignores_the_attribute(synthetic, fair_model):
    r = fairnb.run_search(fair_model, synthetic.domain, method="random", n_samples=20_000, random_state=0)
    assert r.count() == 0 and r.hits == 0
    assert r.extras["share_ci_low"] == 0.0 and r.extras["share_ci_high"] < 0.001


def test_share_estimate_covers_the_true_share(synthetic):
    """The 95% interval contains the exact share of the planted model's discriminatory inputs about 95 times in
    100: in at least 16 of 20 runs (a sampler or an interval that is off misses far more often; a fair one misses
    5 or more with probability 0.3 %)."""
    truth = synthetic.info["true_model"]
    # exact share by enumerating the (small) domain
    grids = np.meshgrid(*[f.values for f in synthetic.domain.features], indexing="ij")
    everything = np.stack([g.ravel() for g in grids], axis=1).astype(float)
    exact = Oracle(truth, synthetic.domain).check(everything).discriminatory.mean()
    covered = 0
    for seed in range(20):
        r = RandomSearch(n_samples=20_000, random_state=seed, progress=False).run(truth, synthetic.domain)
        covered += r.extras["share_ci_low"] <= exact <= r.extras["share_ci_high"]
    assert covered >= 16



def test_budgets(synthetic, biased_model):
    r = RandomSearch(n_samples=None, max_tried=4500, batch_size=1000, random_state=0).run(biased_model, synthetic.domain)
    assert r.tried == 4500 and r.status == "budget"
    r = RandomSearch(n_samples=None, max_found=50, batch_size=100, random_state=0).run(biased_model, synthetic.domain)
    assert 50 <= r.count() < 150 and r.status == "budget"
    r = RandomSearch(n_samples=None, max_time=0.2, random_state=0).run(biased_model, synthetic.domain)
    assert r.status == "budget" and r.elapsed < 5
    assert RandomSearch().run(biased_model, synthetic.domain).tried == RandomSearch.DEFAULT_SAMPLES



def test_keyboard_interrupt_returns_partial_result(synthetic, biased_model):
    def listener(event):
        if event.kind == "progress" and event.tried >= 3000:
            raise KeyboardInterrupt

    r = RandomSearch(n_samples=None, max_time=60, batch_size=1000, random_state=0).run(
        biased_model, synthetic.domain, listeners=[listener])
    assert r.status == "interrupted" and r.tried == 3000 and r.count() > 0


def test_events_are_published(synthetic, biased_model):
    events = []
    RandomSearch(n_samples=3000, batch_size=1000, random_state=0).run(biased_model, synthetic.domain,
                                                                       listeners=[events.append])
    kinds = [e.kind for e in events]
    assert kinds[0] == "start" and kinds[-1] == "done" and "phase" in kinds
    assert [e.tried for e in events if e.kind == "progress"] == [1000, 2000, 3000]
    assert events[-1].found == events[-1].result.count()


def test_strategy_protocol_and_params(synthetic, biased_model):
    class TwoSteps(Search):
        name = "two-steps"

        def __init__(self, size: int = 7, *, max_time=None, max_tried=None, max_found=None, random_state=None,
                     progress=None):
            super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                             progress=progress)
            self.size = size

        def _generate(self, ctx):
            v = yield Batch(ctx.domain.sample(self.size, ctx.rng), phase="global", seed_ids=np.arange(self.size))
            assert len(v) == self.size
            yield Batch(ctx.domain.clip(v.X + 1), phase="local", seed_ids=np.arange(self.size))

    s = TwoSteps(size=9, random_state=3)
    assert s.get_params()["size"] == 9 and s.get_params()["random_state"] == 3
    assert repr(s) == "TwoSteps(random_state=3, size=9)"      # scikit-learn's repr: parameters by name
    with pytest.raises(ValueError, match="no parameter"):
        s.set_params(bogus=1)
    r = s.run(biased_model, synthetic.domain)
    assert r.tried == 18 and r.method == "two-steps"
    assert set(r.to_frame()["phase"]) <= {"global", "local"}


def test_seeds_are_validated(synthetic, biased_model):
    with pytest.raises(ValueError, match="seeds has shape"):
        fairnb.search.get_method("aequitas")().run(biased_model, synthetic.domain, seeds=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="random draws its own inputs and does not use seeds; leave seeds out"):
        RandomSearch().run(biased_model, synthetic.domain, seeds=synthetic.X)


def test_unknown_method():
    with pytest.raises(ValueError, match="unknown method 'nope'"):
        fairnb.run_search(None, None, method="nope")


def test_result_save_load_roundtrip(tmp_path, synthetic, biased_model):
    r = RandomSearch(n_samples=3000, random_state=0).run(biased_model, synthetic.domain)
    for suffix in (".csv", ".parquet"):
        path = r.save(tmp_path / f"r{suffix}")
        back = Result.load(path)
        assert np.array_equal(back.inputs, r.inputs) and np.array_equal(back.counterparts, r.counterparts)
        assert back.summary() == r.summary()
        assert back.pairs.equals(r.pairs)
        pd.testing.assert_frame_equal(back.timeline, r.timeline)
        assert len(r.timeline) > 1 and back.params == r.params
    with pytest.raises(ValueError, match="format"):
        r.save(tmp_path / "r.txt")
    with pytest.raises(FileNotFoundError):
        Result.load(tmp_path / "missing.csv")


def test_saved_result_keeps_why_it_ended_and_what_decisions_mean(tmp_path, biased_model):
    data = fairnb.datasets.make_synthetic(n=300, random_state=0)
    named = fairnb.domains.TabularDomain(data.domain.features, data.domain.protected, class_names=("reject", "accept"))
    assert named.with_protected([0]).class_names == ("reject", "accept")
    r = RandomSearch(n_samples=None, max_tried=2000, random_state=0).run(biased_model, named)
    assert r.ended_by == ("max_tried", 2000)
    back = Result.load(r.save(tmp_path / "r.csv"))
    assert back.ended_by == r.ended_by and back.ending == r.ending == "2,000-candidate cap reached"
    assert back.class_names == ("reject", "accept")


def test_result_display_escapes_user_strings(biased_model):
    from fairnb.domains import Feature, TabularDomain

    evil = "<img src=x onerror=alert(1)>"
    dom = TabularDomain([Feature("sex", 0, 1, labels=(evil, "m")), Feature(evil + "x", 0, 9)], protected=["sex"])
    r = RandomSearch(n_samples=500, random_state=0).run(lambda X: (X[:, 0] * X[:, 1] > 4).astype(float), dom)
    page = r._repr_html_()
    assert r.count() > 0 and evil not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_time_to_and_timeline(synthetic, biased_model):
    r = RandomSearch(n_samples=5000, batch_size=1000, random_state=0).run(biased_model, synthetic.domain)
    assert r.time_to(1) <= r.time_to(r.count()) and r.time_to(r.count() + 1) is None
    assert r.time_to(1, "adf") is not None
    assert r.timeline["tried"].tolist() == [0, 1000, 2000, 3000, 4000, 5000]


def test_a_model_is_prepared_before_the_budget_clock_starts(synthetic, biased_model):
    """TensorFlow's first call of a text model took ~20 s of a 60 s budget in tutorial 04 (random search then
    looked best); a model's ``warm_up`` now runs before the clock starts, and listeners hear "prepare" first."""
    import time

    from fairnb.models import wrap
    from fairnb.search import get_method

    class Slow:
        def __init__(self, inner):
            self.inner, self.ready_at = wrap(inner), None

        def predict_proba(self, X):
            return self.inner.predict_proba(X)

        def warm_up(self):
            self.ready_at = time.perf_counter()

    kinds, model = [], Slow(biased_model)
    search = get_method("random")(max_time=0.3, random_state=0)
    r = search.run(model, synthetic.domain, listeners=[lambda e: kinds.append((e.kind, e.elapsed))])
    assert model.ready_at is not None and search.engine_._t0 >= model.ready_at      # the clock starts after it
    assert kinds[0] == ("prepare", 0.0) and kinds[1][0] == "start"
    assert r.tried > 0 and r.ended_by == ("max_time", 0.3)


def test_a_batch_keeps_only_the_rows_its_keep_accepts(synthetic, biased_model):
    """``Batch.keep`` sees the oracle's answer for every row; only the rows it keeps are counted, recorded and sent
    back to the strategy, in order, with their per-row seed ids and details."""
    seen = {}

    class KeepFlipped(Search):
        name = "keep-flipped"

        def _generate(self, ctx):
            X = ctx.domain.sample(400, ctx.rng)

            def keep(verdict):
                seen["all"] = verdict
                return verdict.discriminatory | (np.arange(len(verdict)) % 2 == 0)

            seen["back"] = yield Batch(X, seed_ids=np.arange(400), info=[{"row": i} for i in range(400)], keep=keep)

    r = KeepFlipped(random_state=0).run(biased_model, synthetic.domain)
    everything, back = seen["all"], seen["back"]
    kept = everything.discriminatory | (np.arange(400) % 2 == 0)
    assert len(everything) == 400 and 0 < everything.discriminatory.sum() < kept.sum() < 400
    assert r.tried == kept.sum() and np.array_equal(back.X, everything.X[kept])
    assert np.array_equal(back.discriminatory, everything.discriminatory[kept])
    assert r.count() == len(np.unique(everything.X[everything.discriminatory], axis=0))
    rows = [r.details(i)["row"] for i in range(len(r.inputs))]
    assert all(everything.discriminatory[rows]) and np.array_equal(r.inputs, everything.X[rows])


def test_a_keep_that_answers_the_wrong_shape_is_named(synthetic, biased_model):
    class Bad(Search):
        name = "bad-keep"

        def _generate(self, ctx):
            yield Batch(ctx.domain.sample(5, ctx.rng), keep=lambda verdict: np.ones(3, bool))

    with pytest.raises(ValueError, match="Batch.keep returned shape"):
        Bad().run(biased_model, synthetic.domain)


def test_random_search_finds_the_same_pairs_at_any_batch_size(synthetic, biased_model):
    """``batch_size="auto"`` sizes the batches by how fast they are checked; the inputs come from one stream, so the
    pairs and counts equal those of fixed batches for the same ``random_state``."""
    runs = {size: RandomSearch(n_samples=30_000, batch_size=size, random_state=4, progress=False)
            .run(biased_model, synthetic.domain) for size in (2_000, 777, "auto")}
    for r in runs.values():
        assert r.tried == 30_000 and r.hits == runs[2_000].hits
        assert (r.inputs == runs[2_000].inputs).all() and len(r.inputs) > 100


def test_the_batch_sizer_tries_each_size_up_to_the_largest_and_keeps_the_fastest():
    from fairnb.search.methods.random import BatchSizer

    s = BatchSizer(first=1_000, largest=8_000, repeats=1)
    for per_input in (5e-6, 3e-6, 2.9e-6, 2.8e-6):          # small gains add up: the largest is fastest
        s.checked(s.size, per_input * s.size)
    assert (s.size, s.settled) == (8_000, True)
    s = BatchSizer(first=1_000, largest=8_000, repeats=1)
    for per_input in (5e-6, 3e-6, 4e-6, 4.5e-6, 1e-7):      # 2,000 was fastest: back to it, for good
        s.checked(s.size, per_input * s.size)
    assert (s.size, s.settled) == (2_000, True)
    s = BatchSizer(first=1_000, quick=0.01, repeats=1)
    s.checked(500, 0.0)                                    # a short batch (the last of a budget) says nothing
    assert (s.size, s.settled) == (1_000, False)
    s.checked(1_000, 0.02)                                 # slow batches do not grow
    assert (s.size, s.settled) == (1_000, True)
    s = BatchSizer(first=1_000, largest=4_000)
    for per_input in (5e-6, 9e-6, 5e-6, 3e-6, 3e-6, 3e-6):  # one slow batch of three does not decide
        s.checked(s.size, per_input * s.size)
    assert (s.size, s.settled) == (4_000, False)
