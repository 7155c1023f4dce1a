"""The field's metrics on every Result (issue 26, item 7): precision, unordered pairs, coverage, diversity."""
import numpy as np
import pytest

import fairnb
from fairnb.domains import Feature, TabularDomain
from fairnb.results import Result
from fairnb.results.metrics import coverage, coverage_cells, diversity_distance, grid_cells, unique_pairs

# race has three values; x has 10 values, y has 3 (fewer than 4 bins: one bin per value)
DOM = TabularDomain([Feature("race", 0, 2), Feature("x", 0, 9), Feature("y", 0, 2)], protected=["race"])


def hand_made() -> Result:
    """Five pairs: an input and its reverse, a third race against the same other features, two far apart."""
    X = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 9, 2], [1, 4, 1]], float)
    C = np.array([[1, 0, 0], [0, 0, 0], [0, 0, 0], [1, 9, 2], [0, 4, 1]], float)
    r = Result(DOM, "hand")
    r.record(X, C, [[0.9, 0.1]] * 5, [[0.1, 0.9]] * 5, phase="global", seed_ids=-1, elapsed=0.1)
    r.tried = 50
    return r


def test_hand_made_pairs_have_known_counts_coverage_and_diversity():
    r = hand_made()
    s = r.summary()
    # full inputs: 5; without race: 3 ({0,0}, {9,2}, {4,1}); unordered pairs: {r0,r1}x(0,0) once, {r2,r0}x(0,0), 2 more
    assert (s["unique_idis_eidig"], s["unique_idis_adf"], s["unique_idi_pairs"]) == (5, 3, 4)
    assert s["precision"] == 4 / 50
    # 2 bins: x 0-4 | 5-9, y 0-1 | 2 -> (0,0), (1,1), (0,0): 2 cells; 4 bins (y: its 3 values): x bins of 2.5 values
    assert grid_cells(DOM, r.inputs, 4).tolist() == [[0, 0], [0, 0], [0, 0], [3, 2], [1, 1]]
    assert (s["coverage_2"], s["coverage_4"]) == (2, 3)
    assert coverage_cells(DOM, 2) == 4 and coverage_cells(DOM, 4) == 12
    # distinct non-protected parts (0,0), (9,2), (4,1): x differences 9, 4, 5 over range 9; y 2, 1, 1 over range 2
    expected = ((9 + 4 + 5) / 9 + (2 + 1 + 1) / 2) / 2 / 3
    assert s["diversity_distance"] == pytest.approx(expected, abs=1e-6)


def test_unordered_pairs_count_a_pair_and_its_reverse_once():
    X = np.array([[0, 3, 1], [1, 3, 1], [0, 3, 1]], float)
    C = np.array([[1, 3, 1], [0, 3, 1], [2, 3, 1]], float)
    assert unique_pairs(DOM, X, C) == 2 and unique_pairs(DOM, X[:0], C[:0]) == 0


def test_spread_metrics_of_few_inputs():
    one = np.array([[0, 5, 1]], float)
    assert coverage(DOM, one, 2) == 1 and coverage(DOM, one[:0], 2) == 0
    assert diversity_distance(DOM, one) == 0.0
    assert diversity_distance(DOM, np.array([[0, 0, 0], [1, 0, 0]], float)) == 0.0   # the same non-protected part
    assert diversity_distance(DOM, np.array([[0, 0, 0], [0, 9, 2]], float)) == 1.0   # opposite corners


def test_a_real_search_summary_holds_them_and_a_saved_result_keeps_them(tmp_path, synthetic, biased_model):
    r = fairnb.run_search(biased_model, synthetic.domain, method="eidig", seeds=synthetic.X, n_seeds=40,
                          n_local=40, random_state=0, progress=False)
    s = r.summary()
    assert 0 < s["unique_idi_pairs"] <= s["unique_idis_eidig"]
    assert s["precision"] == round(s["unique_idi_pairs"] / s["tried"], 6)
    assert 1 < s["coverage_2"] <= s["coverage_4"] <= min(coverage_cells(synthetic.domain, 4), len(r))
    assert 0 < s["diversity_distance"] < 1
    keys = ("unique_idi_pairs", "precision", "coverage_2", "coverage_4", "diversity_distance")
    back = Result.load(r.save(tmp_path / "r.parquet"))
    assert {k: back.summary()[k] for k in keys} == {k: s[k] for k in keys}
    table = fairnb.compare({"eidig": r}).table
    assert table.loc["eidig", "precision"] == s["precision"]
    assert table.loc["eidig", "coverage (4 bins)"] == s["coverage_4"]
    assert "precision (discriminatory pairs per candidate checked)" in r._repr_html_()
    from fairnb.widgets import PairInspector

    assert f"coverage {s['coverage_2']:,} cells (2 bins)" in PairInspector(r).title


def test_text_results_have_precision_but_no_grid():
    from text_pairs import text_result

    r, _ = text_result()
    r.tried = 1000
    s = r.summary()
    assert s["unique_idi_pairs"] > 0 and s["precision"] == round(s["unique_idi_pairs"] / s["tried"], 6)
    assert not any(k.startswith(("coverage_", "diversity_")) for k in s)
    assert "coverage (2 bins)" not in fairnb.compare([r]).table.columns
