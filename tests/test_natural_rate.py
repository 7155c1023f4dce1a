"""The share of given inputs that are discriminatory as they are (``discrimination_rate(..., inputs=X)``), on
every input kind: it separates a biased model from its unbiased twin, and counts only inputs that have a
protected variant (a text without a sensitive term cannot be discriminatory)."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.mitigation import discrimination_rate
from fairnb.oracle import Oracle

from image_checks import detector, domain as image_domain, seed_images
from text_checks import bench, biased_linear, ignoring_linear


def test_given_texts_separate_a_biased_model_from_its_twin():
    dom, texts, E = bench()
    texts = list(texts) + ["the cook is kind .", "my neighbour is lazy !"]       # two texts without a term
    biased = discrimination_rate(biased_linear(dom, E), dom, inputs=texts)
    fair = discrimination_rate(ignoring_linear(dom, E), dom, inputs=texts)
    assert fair.hits == 0 and biased.low > fair.high and biased.given and "given inputs" in str(biased)
    with_term = dom.sensitive_mask(dom.validate(texts)).any(axis=1)
    assert biased.n == fair.n == with_term.sum() < len(texts)              # texts without a term are not counted
    assert biased.hits == Oracle(biased_linear(dom, E), dom).check(dom.validate(texts)).discriminatory.sum()


def test_given_images_separate_a_biased_detector_from_its_twin():
    dom, faces = image_domain(), seed_images(60)
    biased = discrimination_rate(detector(red=1.0), dom, inputs=faces)
    fair = discrimination_rate(detector(red=0.0), dom, inputs=faces)
    assert biased.n == fair.n == 60 and fair.hits == 0 and biased.low > fair.high


def test_given_rows_are_checked_by_the_domain(synthetic, biased_model, fair_model):
    X = synthetic.seed_inputs()[:2000]
    biased = discrimination_rate(biased_model, synthetic.domain, inputs=X)
    fair = discrimination_rate(fair_model, synthetic.domain, inputs=X)
    assert biased.n == 2000 and biased.low > fair.high
    with pytest.raises(ValueError, match="inputs"):
        discrimination_rate(biased_model, synthetic.domain, inputs=np.full((3, X.shape[1]), np.nan))


def test_every_method_given_the_same_data_measures_the_natural_rate_on_it(synthetic, biased_model):
    """The natural rate is the data's (issue #34 item 5): every registered method that takes seeds on a table,
    given the same data, checks the same inputs (each distinct data row once), whichever seeds it then searches
    from, and the number is the one ``discrimination_rate`` gives on those rows."""
    from fairnb.search.registry import RECORDS

    data = synthetic.X[:300]
    rows = np.unique(np.asarray(data, dtype=float), axis=0)
    expected = discrimination_rate(biased_model, synthetic.domain, inputs=rows)
    tabular = [r for r in RECORDS.values() if r.inputs == "tabular" and r.takes_seeds]
    assert len(tabular) >= 12 and all(r.load()().measures_data for r in tabular)
    measured = {}
    for record in tabular:
        r = record.load()(**record.fast, max_tried=300, random_state=0, progress=False).run(
            biased_model, synthetic.domain, seeds=data)
        measured[record.name] = (r.extras["natural_n"], r.extras["natural_idis"])
    assert set(measured.values()) == {(expected.n, expected.hits)}, measured
    assert expected.n == len(rows)


class Slow:
    """``model`` taking ``seconds`` per input row: a transformer's pace on a table."""

    def __init__(self, model, seconds: float):
        self.model, self.seconds = model, seconds

    def predict_proba(self, X):
        import time

        time.sleep(self.seconds * len(X))
        return self.model.predict_proba(X)


def test_the_natural_rate_stops_at_max_time_and_merges_by_block(synthetic, biased_model):
    """On a slow model the data's seeds are measured within ``max_time`` (a 1,000-row measure at 0.5 ms a row, with
    both protected variants, would take 1.5 s against a 0.3 s budget), the measured rows are the ones kept, and
    two runs that measured different numbers of them merge to the larger, counted once."""
    from fairnb.results import merge_results
    from fairnb.search.methods.aequitas import Aequitas

    data = synthetic.X[:1000]
    rows = np.unique(np.asarray(data, dtype=float), axis=0)
    with pytest.warns(RuntimeWarning, match="checked no input in"):   # the measure took the budget
        short = Aequitas(n_seeds=10, n_local=5, max_time=0.3, random_state=0, progress=False).run(
            Slow(biased_model, 5e-4), synthetic.domain, seeds=data)
    n = len(short.extras["natural_inputs"])
    assert 0 < n < len(rows) and short.extras["natural_n"] <= n
    full = Aequitas(n_seeds=10, n_local=5, random_state=0, progress=False).run(biased_model, synthetic.domain,
                                                                           seeds=data)
    assert len(full.extras["natural_inputs"]) == len(rows)
    merged = merge_results([short, full], synthetic.domain)
    assert (merged.extras["natural_n"], merged.extras["natural_idis"]) == (
        full.extras["natural_n"], full.extras["natural_idis"])
