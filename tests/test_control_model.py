"""A control model beside the headline (``control=``): every search checks the seeds it measures the natural rate on
also on a model without the bias, by the same oracle, and its share stands beside the model's in the summary, the
headline, the inspectors' summary bands, ``compare`` and the report; its counts merge like the natural ones, a saved
Result keeps them, and without a control nothing changes and the model is called no more."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

import fairnb
from fairnb.params import InvalidParameterError
from fairnb.report import write_report
from fairnb.results import Result, merge_results
from fairnb.search import get_method
from fairnb.search.methods.eidig import EIDIG
from fairnb.summaries import fmt_shares, headline

from image_checks import detector, domain as image_domain, seed_images
from text_checks import bench, biased_linear, ignoring_linear

CONTROL_KEYS = ("control_natural_rate", "control_natural_low", "control_natural_high", "control_natural_n")


class Counting:
    """A model that counts the rows it is asked about."""

    def __init__(self, model):
        self.model, self.rows = model, 0

    def predict_proba(self, X):
        self.rows += len(X)
        return self.model.predict_proba(X)


def eidig(**params):
    return EIDIG(n_seeds=200, max_iter=3, n_local=20, random_state=0, progress=False, **params)


@pytest.fixture(scope="module")
def controlled(synthetic, biased_model, fair_model):
    return eidig(control=fair_model).run(biased_model, synthetic.domain, synthetic.X)


SHARES = ("natural_rate", "natural_low", "natural_high", "control_natural_rate", "control_natural_low",
          "control_natural_high")


def control_share(s) -> str:
    """The control's natural rate as the headline shows it (with the decimals of the shares beside it)."""
    return fmt_shares(*(s[k] for k in SHARES))[3]


def data_rows(data) -> int:
    """The data's seeds a search given ``data`` measures the natural rate on (each distinct row once)."""
    return len(np.unique(np.asarray(data, dtype=float), axis=0))


def test_a_control_that_ignores_the_attribute_reads_near_zero_beside_the_planted_bias(controlled, fair_model,
                                                                                      synthetic):
    s = controlled.summary()
    assert s["control_natural_n"] == s["natural_n"] == data_rows(synthetic.X)   # the same data, checked on both
    assert s["control_natural_rate"] == 0 and s["control_natural_low"] == 0 < s["control_natural_high"]
    assert s["control_natural_high"] < s["natural_low"]                 # the two intervals stand apart
    keys = list(s)
    assert keys.index("natural_n") < keys.index("control_natural_rate") < keys.index("material_pairs")
    assert controlled.params["control"] == repr(fairnb.models.wrap(fair_model)) == "NumpyMLP(7-32-16-1, sigmoid)"


def test_without_a_control_nothing_is_added_and_the_model_is_called_no_more(synthetic, biased_model, fair_model):
    aequitas = get_method("aequitas")                                    # a black box: any model it can call
    alone, model, control = Counting(biased_model), Counting(biased_model), Counting(fair_model)
    plain = aequitas(n_seeds=200, n_local=20, random_state=0, progress=False).run(alone, synthetic.domain, synthetic.X)
    beside = aequitas(n_seeds=200, n_local=20, random_state=0, progress=False, control=control).run(
        model, synthetic.domain, synthetic.X)
    assert not any(k.startswith("control_") for k in plain.summary()) and plain.params["control"] is None
    assert model.rows == alone.rows and len(beside) == len(plain)         # the searched model: the same calls
    variants = len(synthetic.domain.variants(synthetic.X.to_numpy(float)[:1])[0])
    assert control.rows == beside.summary()["natural_n"] * variants       # the control: the seeds' variants only
    assert "give one to the search as control=" in headline(plain.summary())


def test_the_data_is_checked_on_the_control_and_random_draws_apart(synthetic, biased_model, fair_model):
    search = EIDIG(n_seeds=50, max_iter=2, n_local=5, random_state=0, progress=False, max_tried=3000,
                   max_time=60.0, control=fair_model)
    r = search.run(biased_model, synthetic.domain, synthetic.X[:100])
    assert r.extras["seeds_from_domain"] > 0                               # fresh seeds were drawn
    assert r.extras["control_natural_n"] == r.extras["natural_n"] == data_rows(synthetic.X[:100])
    assert r.extras["random_n"] == r.extras["seeds_from_domain"] and "control_random_n" not in r.extras


def test_random_search_checks_every_sample_on_the_control(synthetic, biased_model, fair_model):
    r = fairnb.run_search(biased_model, synthetic.domain, "random", n_samples=3000, random_state=0, progress=False,
                          control=fair_model)
    s = r.summary()
    assert s["control_natural_n"] == s["natural_n"] == r.tried == 3000
    assert s["control_natural_rate"] == 0 and s["control_natural_high"] < s["natural_low"]


def test_the_control_counts_merge_over_shards_and_merges(synthetic, biased_model, fair_model):
    X = synthetic.X.to_numpy(float)
    search = eidig(control=fair_model)
    whole = search.run(biased_model, synthetic.domain, X)
    chosen = whole.extras["seeds"]
    shards = [eidig(control=fair_model).run(biased_model, synthetic.domain, X, selected_seeds=part)
              for part in (chosen[:120], chosen[120:])]
    merged = merge_results(shards, synthetic.domain, "eidig", search.result_params())
    for key in ("natural_n", "natural_idis", "control_natural_n", "control_natural_idis"):
        # every shard measures the whole data: the shards agree, and the merge keeps their number
        assert merged.extras[key] == shards[0].extras[key] == shards[1].extras[key] == whole.extras[key], key
    again = merge_results([merged, shards[0]], synthetic.domain, "eidig")
    assert again.summary()["control_natural_n"] == data_rows(X)
    assert {k: merged.summary()[k] for k in CONTROL_KEYS} == {k: whole.summary()[k] for k in CONTROL_KEYS}


def test_a_saved_result_keeps_the_control_numbers(controlled, tmp_path):
    loaded = Result.load(controlled.save(tmp_path / "found.parquet"))
    assert {k: loaded.summary()[k] for k in CONTROL_KEYS} == {k: controlled.summary()[k] for k in CONTROL_KEYS}
    assert loaded.params["control"] == controlled.params["control"]


def test_the_params_describe_the_control_and_a_clone_keeps_it_trained(synthetic, biased_model):
    control = LogisticRegression().fit(synthetic.X.to_numpy(float), synthetic.y)
    search = eidig(control=control)
    assert search.result_params()["control"] == "SklearnModel(LogisticRegression)"
    copy = clone(search)
    assert copy.control is control and copy.get_params(deep=False).keys() == search.get_params(deep=False).keys()
    assert copy.run(biased_model, synthetic.domain, synthetic.X).summary()["control_natural_n"] == data_rows(synthetic.X)


def test_headline_compare_and_report_show_the_control(controlled, tmp_path):
    s = controlled.summary()
    words = headline(s)
    rate, low, high = fmt_shares(*(s[k] for k in SHARES))[3:]
    assert (f"on the control model, {rate} of the same inputs are discriminatory ({low} to {high}): the two "
            "intervals are apart") in words
    table = fairnb.compare({"with": controlled}).table
    assert table.loc["with", "the same on the control model"] == s["control_natural_rate"]
    assert "the same seeds on the control model" in write_report([controlled], tmp_path / "r").read_text()


def test_compare_and_report_leave_the_control_out_when_no_search_had_one(synthetic, biased_model, tmp_path):
    r = eidig().run(biased_model, synthetic.domain, synthetic.X)
    assert "the same on the control model" not in fairnb.compare([r]).table.columns
    assert "the same seeds on the control model" not in write_report([r], tmp_path / "r").read_text()


def test_the_tabular_inspectors_summary_band_shows_the_control(controlled):
    s = controlled.summary()
    inspector = controlled.inspect()
    shown = f"{control_share(s)} of the same inputs are"
    assert shown in inspector.headline and shown in inspector.static_html()


def test_a_bad_control_gets_a_clear_error(synthetic, biased_model):
    X = synthetic.X.to_numpy(float)
    wider = LogisticRegression().fit(np.c_[X, X[:, :1]], synthetic.y)
    with pytest.raises(ValueError, match=r"^control: the control model could not decide .* features") as e:
        eidig(control=wider).run(biased_model, synthetic.domain, X)
    assert e.value.result.status == "failed"
    three = fairnb.models.FunctionModel(lambda X: np.full((len(X), 3), 1 / 3))
    with pytest.raises(ValueError, match="control: the control model returns 3 class probabilities per input, "
                                         "the searched model 2"):
        eidig(control=three).run(biased_model, synthetic.domain, X)
    with pytest.raises(InvalidParameterError, match=r"control must be a control model \(anything a search takes as "
                                                    r"its model, alone or as \(model, 'its label'\)\) or None"):
        eidig(control="fair.pkl").run(biased_model, synthetic.domain, X)


def test_dice_measures_the_controls_severity(synthetic, biased_model, fair_model):
    r = get_method("dice")(n_seeds=100, n_local=5, random_state=0, progress=False, control=fair_model).run(
        biased_model, synthetic.domain, synthetic.X)
    s = r.summary()
    assert s["control_natural_severity_bits"] == 0.0 < s["natural_severity_bits"]
    assert s["control_natural_n"] == s["natural_n"] == data_rows(synthetic.X)
    texts = [f["text"] for f in r.inspect().network]
    assert any("the control model's decision reveals on average 0 bits" in t for t in texts)


def test_a_text_search_shows_its_control():
    dom, texts, E = bench()
    r = get_method("rp")(n_seeds=30, max_iter=3, n_local=10, random_state=0, progress=False,
                         control=ignoring_linear(dom, E)).run(biased_linear(dom, E), dom, seeds=texts)
    s = r.summary()
    assert s["control_natural_n"] == s["natural_n"] > 0 and s["control_natural_rate"] == 0
    assert s["control_natural_high"] < s["natural_low"]
    inspector = r.inspect()
    assert f"{control_share(s)} of the same inputs are" in inspector.headline
    assert "control model" in inspector.static_html()


def test_an_image_search_shows_its_control():
    r = get_method("eidig_image")(random_state=0, progress=False, control=detector(red=0.0)).run(
        detector(red=1.0), image_domain(), seeds=seed_images(15))
    s = r.summary()
    assert s["control_natural_n"] == s["natural_n"] == 15 and s["control_natural_rate"] == 0
    assert s["natural_rate"] > s["control_natural_rate"]
    inspector = r.inspect()
    assert f"{control_share(s)} of the same inputs are" in inspector.headline
    assert "control model" in inspector.static_html()


def test_a_fresh_run_from_a_controlled_results_params_finds_the_same(controlled, synthetic, biased_model):
    """``idi_count`` re-runs a Result's search from its params: the control's description is no model, and the
    control never changes what the search finds."""
    from fairnb.mitigation import idi_count

    assert idi_count(biased_model, controlled, synthetic.X) == controlled.count() > 0
