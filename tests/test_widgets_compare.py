"""fairnb.compare: IDIs over time per search and a summary table."""
from __future__ import annotations

import pytest

import fairnb
from fairnb.widgets.compare import Comparison


@pytest.fixture(scope="module")
def runs(synthetic, biased_model, fair_model):
    return {
        "biased": fairnb.search(biased_model, synthetic.domain, max_tried=4000, random_state=0, progress=False),
        "fair": fairnb.search(fair_model, synthetic.domain, max_tried=4000, random_state=0, progress=False),
    }


def test_table_holds_each_search_headline_numbers(runs):
    cmp = fairnb.compare(runs)
    assert isinstance(cmp, Comparison)
    assert list(cmp.table.index) == ["biased", "fair"]
    assert cmp.table.loc["biased", "unique IDIs"] == runs["biased"].count() > 0
    assert cmp.table.loc["fair", "unique IDIs"] == 0
    assert cmp.table.loc["biased", "tried"] == 4000
    assert cmp.table.loc["biased", "success rate"] == pytest.approx(runs["biased"].success_rate, abs=1e-6)


def test_figure_draws_one_curve_per_search(runs, tmp_path):
    cmp = fairnb.compare(list(runs.values()), x="tried")
    curve, bars = cmp.figure.axes
    assert [line.get_label() for line in curve.get_lines()] == ["random", "random (2)"]
    assert curve.get_lines()[0].get_ydata()[-1] == runs["biased"].count()
    assert curve.get_xlabel() == "candidates tried"
    assert [p.get_width() for p in bars.patches] == [runs["biased"].count(), 0]
    assert cmp.savefig(tmp_path / "c.png").stat().st_size > 1000
    assert "data:image/png;base64," in cmp._repr_html_() and "biased" not in repr(cmp)


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least one"):
        fairnb.compare([])
    with pytest.raises(ValueError, match="'elapsed' or 'tried'"):
        fairnb.compare([fairnb.Result(None)], x="time")
