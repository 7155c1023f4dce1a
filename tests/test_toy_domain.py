"""A non-tabular domain written here, outside fairnb: strings over the alphabet "abXY" whose
protected characters are X and Y (think "he"/"she"). A string has one variant per protected
character it holds (that character swapped) plus itself, so variants are ragged: 1 to 5 per string.
It runs through random search, the oracle, Result save/load and the inspector with no change to
fairnb's code."""
import numpy as np
import pandas as pd
import pytest

import fairnb
from fairnb.domains import register_domain
from fairnb.models import FunctionModel
from fairnb.oracle import Oracle, ProbabilityGap
from fairnb.search import Batch
from fairnb.search.methods.random import RandomSearch
from fairnb.search.registry import get_method

ALPHABET = "abXY"
SWAP = {2: 3, 3: 2}


@register_domain
class ToyStrings:
    kind = "toy-strings"
    protected = ("X", "Y")
    protected_names = ("X/Y",)

    def __init__(self, length=4):
        self.length = length
        self.names = tuple(f"c{j}" for j in range(length))
        self.n_features = length
        self.item_shape = (length,)

    def validate(self, items, *, what="input"):
        X = np.asarray(items, dtype=float).reshape(-1, self.length)
        if ((X < 0) | (X > 3) | (X != np.rint(X))).any():
            raise ValueError(f"{what} holds codes outside 0..3")
        return X

    def sample(self, n, rng):
        return np.random.default_rng(rng).integers(0, 4, (n, self.length)).astype(float)

    def variants(self, items):
        out = []
        for x in np.asarray(items):
            group = [x]
            for j in np.flatnonzero(np.isin(x, (2, 3))):
                v = x.copy()
                v[j] = SWAP[int(x[j])]
                group.append(v)
            out.append(group)
        return out

    def own_variant(self, items):
        return np.zeros(len(items), int)

    def encode(self, items):   # the model sees counts of X and Y
        items = np.asarray(items)
        return np.stack([(items == 2).sum(axis=1), (items == 3).sum(axis=1)], axis=1).astype(float)

    def text(self, x):
        return "".join(ALPHABET[int(c)] for c in x)

    def key(self, items, convention):
        texts = [self.text(x) for x in items]
        return texts if convention == "eidig" else [t.replace("X", "_").replace("Y", "_") for t in texts]

    def decode(self, items):
        return pd.DataFrame([[ALPHABET[int(c)] for c in x] for x in np.asarray(items).reshape(-1, self.length)],
                            columns=list(self.names))

    def to_columns(self, items):      # stored as the string itself
        return pd.DataFrame({"text": [self.text(x) for x in np.asarray(items).reshape(-1, self.length)]})

    def from_columns(self, frame):
        return np.array([[ALPHABET.index(ch) for ch in t] for t in frame["text"]], dtype=float).reshape(-1, self.length)

    def pair_columns(self, X, C):
        return {"text'": [self.text(c) for c in np.asarray(C)]}

    def describe_pair(self, x, counterpart):
        return {"changed": {"text": (self.text(x), self.text(counterpart))}, "input": {"length": str(self.length)}}

    def to_config(self):
        return {"kind": self.kind, "length": self.length}

    @classmethod
    def from_config(cls, config):
        return cls(config["length"])


def more_x_than_y(counts):
    """Class 1 when the string holds more X than Y."""
    p = (counts[:, 0] > counts[:, 1]).astype(float)
    return np.stack([1 - p, p], axis=1)


def test_the_oracle_regroups_ragged_variants_per_input():
    calls = []
    dom, model = ToyStrings(), FunctionModel(lambda counts: calls.append(len(counts)) or more_x_than_y(counts))
    oracle = Oracle(model, dom)
    v = oracle.check([[0, 1, 0, 1], [2, 0, 0, 0], [2, 3, 0, 0], [2, 2, 3, 0]])   # "abab" "Xaaa" "XYaa" "XXYa"
    assert calls == [1 + 2 + 3 + 4] and oracle.rows_queried == 1 + 2 + 3 + 4
    assert v.variant_proba.shape == (4, 4, 2)
    assert v.discriminatory.tolist() == [False, True, True, True]
    assert [dom.text(c) for c in v.counterpart] == ["abab", "Yaaa", "XXaa", "YXYa"]
    assert v.proba[:, 1].tolist() == [0, 1, 0, 1] and v.counterpart_proba[:, 1].tolist() == [0, 0, 1, 0]


def test_an_injected_decision_replaces_the_label_flip():
    dom = ToyStrings()
    soft = FunctionModel(lambda c: 0.5 + 0.1 * (c[:, 0] - c[:, 1]))   # never far from 0.5
    X = [[2, 0, 0, 0], [0, 0, 0, 0]]
    assert Oracle(soft, dom).check(X).discriminatory.tolist() == [True, False]          # 0.6 vs 0.4 flips
    assert Oracle(soft, dom, decide=ProbabilityGap(0.3)).check(X).discriminatory.tolist() == [False, False]
    assert Oracle(soft, dom, decide=ProbabilityGap(0.1)).check(X).discriminatory.tolist() == [True, False]

    class Never(Oracle):
        def differs(self, P, P_all):
            return np.zeros(P_all.shape[:2], bool)

    r = RandomSearch(n_samples=300, random_state=0).run(FunctionModel(more_x_than_y), dom, oracle=Never)
    assert r.tried == 300 and r.count() == 0
    with pytest.raises(TypeError, match="oracle must be"):
        RandomSearch(n_samples=10).run(soft, dom, oracle=0.3)


@pytest.mark.parametrize("method", ["eidig", "adf", "maft", "neuronfair", "aequitas", "sg"])
def test_a_strategy_refuses_a_domain_without_the_capabilities_it_declares(method):
    with pytest.raises(TypeError, match=f"{method} needs a bounded integer domain .*; ToyStrings is not"):
        get_method(method)().run(FunctionModel(more_x_than_y), ToyStrings())


def test_random_search_save_load_and_inspector_end_to_end(tmp_path):
    dom, model = ToyStrings(), FunctionModel(more_x_than_y)
    r = RandomSearch(n_samples=600, random_state=0).run(model, dom)
    def flips(x):   # one swap of a protected character changes "more X than Y"
        d = (x == 2).sum() - (x == 3).sum()
        return d in (1, 2) or (d in (0, -1) and (x == 3).any())

    expected = {dom.text(x) for x in dom.sample(600, np.random.default_rng(0)) if flips(x)}
    assert r.status == "completed" and r.tried == 600
    assert {dom.text(x) for x in r.inputs} == expected and r.count("eidig") == len(expected)
    assert r.count("adf") == len({t.replace("X", "_").replace("Y", "_") for t in expected}) < len(expected)
    assert r.pairs["text'"].tolist() == [dom.text(c) for c in r.counterparts]

    loaded = fairnb.Result.load(r.save(tmp_path / "toy.csv"))
    assert isinstance(loaded.domain, ToyStrings) and loaded.domain.length == 4
    assert (loaded.count("eidig"), loaded.count("adf")) == (r.count("eidig"), r.count("adf"))
    assert np.array_equal(loaded.counterparts, r.counterparts)

    inspector = loaded.inspect()
    inspector.selected_ids = [0]
    x, c = dom.text(loaded.inputs[0]), dom.text(loaded.counterparts[0])
    assert inspector.detail["features"][0] == {"name": "text", "input": x, "counterpart": c, "seed": None,
                                               "protected": True, "changed_protected": True,
                                               "changed_from_seed": False}
    assert f"changing only text from {x} to {c}" in inspector.detail["summary"]


class Annotated(RandomSearch):
    """Random search whose candidates carry details: the text and its number of protected characters."""

    name = "annotated-toy"

    def _generate(self, ctx):
        X = ctx.domain.sample(300, ctx.rng)
        info = [{"text": ctx.domain.text(x), "protected": int(np.isin(x, (2, 3)).sum())} for x in X]
        yield Batch(X, info=info)


def test_details_of_each_stored_pair_are_kept_and_saved(tmp_path):
    dom = ToyStrings()
    r = Annotated().run(FunctionModel(more_x_than_y), dom)
    assert len(r) > 10
    for i in range(len(r)):
        x = r.inputs[i]
        assert r.details(i) == {"text": dom.text(x), "protected": int(np.isin(x, (2, 3)).sum())}
    for name in ("toy.parquet", "toy.csv"):
        loaded = fairnb.Result.load(r.save(tmp_path / name))
        assert [loaded.details(i) for i in range(len(r))] == [r.details(i) for i in range(len(r))]
    plain = RandomSearch(n_samples=300, random_state=0).run(FunctionModel(more_x_than_y), dom)
    assert plain.details(0) == {}


def test_details_must_match_the_batch():
    class Wrong(Annotated):
        def _generate(self, ctx):
            yield Batch(ctx.domain.sample(5, ctx.rng), info=[{}])

    with pytest.raises(ValueError, match="Batch.info has 1 entries for 5 candidates"):
        Wrong().run(FunctionModel(more_x_than_y), ToyStrings()).raise_for_status()


def test_details_may_be_built_for_the_discriminatory_rows_only():
    asked = []

    class Lazy(Annotated):
        def _generate(self, ctx):
            X = ctx.domain.sample(300, ctx.rng)

            def info(verdict, rows):
                asked.append(rows)
                return [{"counterpart": ctx.domain.text(verdict.counterpart[r])} for r in rows]

            verdict = yield Batch(X, info=info)
            self.disc = np.flatnonzero(verdict.discriminatory)

    search = Lazy()
    r = search.run(FunctionModel(more_x_than_y), ToyStrings())
    assert len(asked) == 1 and asked[0].tolist() == search.disc.tolist() and len(r) > 10
    assert all(r.details(i) == {"counterpart": ToyStrings().text(r.counterparts[i])} for i in range(len(r)))


def test_per_pair_outputs_phases_and_seeds_are_public():
    model, dom = FunctionModel(more_x_than_y), ToyStrings()
    r = RandomSearch(n_samples=300, random_state=0).run(model, dom)
    assert len(r) > 10
    np.testing.assert_allclose(r.proba, model.predict_proba(dom.encode(r.inputs)))
    np.testing.assert_allclose(r.counterpart_proba, model.predict_proba(dom.encode(r.counterparts)))
    assert (r.proba.argmax(axis=1) != r.counterpart_proba.argmax(axis=1)).all()
    assert set(r.phases) == {"random"} and r.seed_ids.shape == (len(r),)


def test_random_search_checks_a_domain_of_its_own_in_fixed_batches():
    """``batch_size="auto"`` sizes batches by the clock only on a TabularDomain, whose draws are one stream: a domain
    written outside fairnb may draw differently for other batch sizes, so it gets ``FIRST_BATCH`` inputs a batch
    and its pairs do not depend on the machine's speed."""
    sizes = []
    RandomSearch(n_samples=9_000, random_state=0, progress=False).run(
        FunctionModel(more_x_than_y), ToyStrings(), listeners=(lambda e: sizes.append(e.tried),))
    steps = np.diff(sorted(set(sizes) | {0}))
    assert steps.tolist() == [RandomSearch.FIRST_BATCH] * 4 + [1_000]
