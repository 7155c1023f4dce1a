"""Found pairs as a regression suite (issue #38): ``result.save_suite`` and ``fairnb.check`` re-check a model on
saved pairs (the same way, reversed, became fair) with the natural rate of the suite's seeds now beside when
found; the CI gate of ``fairnb.testing``; the ``fairnb check`` command's exit status; tampered suites refused."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairnb
from fairnb.models import wrap
from fairnb.search import get_method
from fairnb.testing import Gate, assert_fair

from image_checks import detector, domain as image_domain, seed_images
from text_checks import bench, biased_linear

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def found(synthetic, biased_model):
    return get_method("aequitas")(n_seeds=300, n_local=20, random_state=0, progress=False).run(
        biased_model, synthetic.domain, seeds=synthetic.seed_inputs())


@pytest.fixture(scope="module")
def suite(found, tmp_path_factory):
    return found.save_suite(tmp_path_factory.mktemp("suite") / "suite.parquet")


class Swapped:
    """The biased model with the protected value flipped before it decides: it favours the other sex."""

    def __init__(self, model, column):
        self.model, self.column = wrap(model), column

    def predict_proba(self, X):
        X = np.array(X, dtype=float)
        X[:, self.column] = 1 - X[:, self.column]
        return self.model.predict_proba(X)


def test_a_suite_rechecked_sorts_its_pairs_and_measures_the_natural_rate_on_the_same_rows(found, suite, synthetic,
                                                                               biased_model, fair_model):
    again = fairnb.check(biased_model, suite)
    assert again.counts() == {"pairs": len(found), "still": len(found), "same": len(found), "reversed": 0, "fair": 0}
    natural = again.natural()      # the same data rows on the same model: the search's own rate
    assert natural["natural_rate"] == natural["found_natural_rate"] == found.summary()["natural_rate"] > 0.2
    assert natural["natural_n"] == found.summary()["natural_n"] == len(found.extras["natural_inputs"])
    fair = fairnb.check(fair_model, suite)
    assert fair.counts()["fair"] == len(found) and fair.natural()["natural_rate"] == 0.0
    assert fair.natural()["found_natural_rate"] == natural["natural_rate"]
    swapped = fairnb.check(Swapped(biased_model, synthetic.domain.index("sex")), suite)
    assert swapped.counts()["reversed"] == len(found)        # every pair now favours the other input
    worst = again.worst(3)
    assert len(worst) == 3 and worst["gap_now"].is_monotonic_decreasing and (worst["status"] == "same").all()
    summary = fair.summary()
    assert summary["suite"] == str(suite) and len(summary["sha256"]) == 64 and summary["method"] == "aequitas"


def test_a_tampered_suite_is_refused_naming_the_file(found, tmp_path, biased_model):
    path = found.save_suite(tmp_path / "suite.parquet")
    frame = pd.read_parquet(path)
    frame.iloc[0, 0] = frame.iloc[1, 0] if frame.iloc[0, 0] != frame.iloc[1, 0] else frame.iloc[2, 0]
    frame.to_parquet(path, index=False)
    with pytest.raises(ValueError, match=r"suite\.parquet: SHA-256 .* differs"):
        fairnb.check(biased_model, path)


def test_a_suite_without_seeds_measures_the_natural_rate_on_the_same_drawn_inputs(synthetic, biased_model,
                                                                                 fair_model, tmp_path):
    r = fairnb.run_search(biased_model, synthetic.domain, method="random", n_samples=3000, random_state=0)
    path = r.save_suite(tmp_path / "random.csv")
    first, second = fairnb.check(biased_model, path).natural(), fairnb.check(biased_model, path).natural()
    assert first == second and first["natural_n"] == 3000
    assert abs(first["natural_rate"] - first["found_natural_rate"]) < 0.05       # other draws, same distribution
    assert fairnb.check(fair_model, path).natural()["natural_rate"] == 0.0


def test_text_and_image_suites_recheck(tmp_path):
    dom, texts, E = bench()
    model = biased_linear(dom, E)
    text = get_method("rp")(n_seeds=30, max_iter=3, n_local=10, random_state=0).run(model, dom, seeds=texts)
    checked = fairnb.check(model, text.save_suite(tmp_path / "text.parquet"))
    assert checked.counts()["same"] == len(text) > 0 and checked.natural()["natural_rate"] == \
        text.summary()["natural_rate"]
    images = get_method("eidig_image")(random_state=0).run(detector(red=1.0), image_domain(), seeds=seed_images(15))
    path = images.save_suite(tmp_path / "images.parquet")
    assert fairnb.check(detector(red=1.0), path).counts()["same"] == len(images) > 0
    assert fairnb.check(detector(red=0.0), path).counts()["still"] < len(images)
    saved = fairnb.suites.load_suite(path).domain
    with_flipper = fairnb.check(detector(red=1.0), path, domain=saved.with_flipper(image_domain().flipper))
    assert with_flipper.natural()["natural_n"] == 15


def test_the_gate_fails_a_biased_model_naming_its_worst_pairs_and_passes_a_fair_one(suite, biased_model,
                                                                                   fair_model):
    assert assert_fair(fair_model, suite, max_still=0).counts()["still"] == 0
    with pytest.raises(AssertionError) as failed:
        assert_fair(biased_model, suite, max_still=10, show=3)
    text = str(failed.value)
    assert "natural rate: the 95 % interval" in text and "more than the 10 allowed" in text
    assert "the 3 pairs that still discriminate most" in text and "p_now" in text and str(suite) in text
    assert Gate(natural_limit=None, max_still=None).failures(fairnb.check(biased_model, suite)) == []
    with pytest.raises(ValueError, match="natural_limit"):
        Gate(natural_limit=5)


@pytest.mark.slow       # a pytest run in a subprocess
def test_suite_fixture_in_a_conftest_gives_the_saved_suite_to_tests(suite, tmp_path):
    (tmp_path / "conftest.py").write_text(f"from fairnb.testing import suite_fixture\n"
                                          f"saved = suite_fixture({str(suite)!r})\n")
    (tmp_path / "test_it.py").write_text(textwrap.dedent("""
        def test_loaded(saved):
            assert saved.method == "aequitas" and len(saved) > 0
    """))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout[-2000:]


def test_a_suite_is_rechecked_in_calls_within_the_memory_budget(found, suite, biased_model, monkeypatch):
    import fairnb.oracle

    monkeypatch.setattr(fairnb.oracle, "MEMORY_BUDGET", 8 * 7 * 100)      # 100 rows of 7 features a call
    sizes = []
    model = wrap(biased_model)

    class Counting:
        def predict_proba(self, X):
            sizes.append(len(X))
            return model.predict_proba(X)

    checked = fairnb.check(Counting(), suite)
    assert checked.counts()["same"] == len(found) and max(sizes) <= 100
