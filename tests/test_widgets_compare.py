"""fairnb.compare: IDIs over time per search and a summary table; a certificate beside them."""
from __future__ import annotations

import html

import pandas as pd
import pytest

import fairnb
from fairnb.certification.result import VERDICTS
from fairnb.summaries import TERMS
from fairnb.search import get_method
from fairnb.widgets.compare import Comparison


@pytest.fixture(scope="module")
def runs(synthetic, biased_model, fair_model):
    return {
        "biased": fairnb.run_search(biased_model, synthetic.domain, max_tried=4000, random_state=0, progress=False),
        "fair": fairnb.run_search(fair_model, synthetic.domain, max_tried=4000, random_state=0, progress=False),
    }


def test_table_holds_each_search_headline_numbers(runs):
    cmp = fairnb.compare(runs)
    assert isinstance(cmp, Comparison)
    assert list(cmp.table.index) == ["biased", "fair"]
    assert cmp.table.loc["biased", "unique IDIs"] == runs["biased"].count() > 0
    assert cmp.table.loc["fair", "unique IDIs"] == 0
    assert cmp.table.loc["biased", "candidates checked"] == 4000
    assert cmp.table.loc["biased", "ended"] == "4,000-candidate cap reached"
    assert cmp.table.loc["biased", "success rate"] == pytest.approx(runs["biased"].success_rate, abs=1e-6)


def test_figure_draws_one_curve_per_search(runs, tmp_path):
    cmp = fairnb.compare(list(runs.values()), x="tried")
    curve, bars = cmp.figure.axes
    assert [line.get_label() for line in curve.get_lines()] == ["random", "random (2)"]
    assert curve.get_lines()[0].get_ydata()[-1] == runs["biased"].count()
    assert curve.get_xlabel() == "candidates checked"
    assert [p.get_width() for p in bars.patches] == [runs["biased"].count(), 0]
    assert cmp.savefig(tmp_path / "c.png").stat().st_size > 1000
    assert "data:image/png;base64," in cmp._repr_html_() and "biased" not in repr(cmp)


def test_like_with_like_notes_and_axes(synthetic, biased_model, runs):
    biased = runs["biased"]
    assert fairnb.compare(runs).figure.axes[0].get_xlabel() == "candidates checked"  # both ended at a candidate cap
    assert fairnb.compare(runs).notes == []
    timed = fairnb.run_search(biased_model, synthetic.domain, max_time=0.3, random_state=0, progress=False)
    search = get_method("random")(n_samples=None, max_time=60, progress=False)
    stopped = search.start(biased_model, synthetic.domain).stop()
    cmp = fairnb.compare({"capped": biased, "timed": timed, "stopped": stopped})
    assert cmp.figure.axes[0].get_xlabel() == "time (seconds)"
    assert cmp.notes[0].startswith("not like with like: the searches ended at different kinds of budget")
    assert "timed: time budget of 0.3 s reached" in cmp.notes[0]
    assert cmp.notes[1] == "stopped stopped early: stopped by user"
    text = cmp._repr_html_()
    assert "not like with like" in text and "4,000" in text and "stopped by user" in text
    assert "note: stopped stopped early" in repr(cmp)


def test_bars_show_success_rates_on_a_log_scale_when_counts_differ_by_orders(synthetic, biased_model):
    few = fairnb.run_search(biased_model, synthetic.domain, max_tried=100, batch_size=100, random_state=0,
                            progress=False)
    many = fairnb.run_search(biased_model, synthetic.domain, max_tried=40_000, random_state=0, progress=False)
    assert 0 < 100 * few.count() < many.count()
    curve, bars = fairnb.compare([few, many]).figure.axes
    assert bars.get_xscale() == curve.get_yscale() == "symlog"
    labels = [t.get_text() for t in bars.texts]
    assert labels[1] == f" {many.count():,} ({100 * many.success_rate:.1f} %)"
    assert bars.get_title() == "Total found (success rate)"
    same = fairnb.compare([many, many]).figure
    assert same.axes[1].get_xscale() == "linear" and same.get_facecolor()[:3] == (1, 1, 1)


def test_counts_an_order_of_magnitude_apart_are_drawn_on_a_log_scale(synthetic, biased_model):
    """Tutorial 08 compared counts 20-50x apart on a linear axis, where the smaller curve lies on zero."""
    few = fairnb.run_search(biased_model, synthetic.domain, max_tried=2_000, random_state=0, progress=False)
    many = fairnb.run_search(biased_model, synthetic.domain, max_tried=40_000, random_state=0, progress=False)
    assert 10 * few.count() < many.count() < 100 * few.count()
    assert fairnb.compare([few, many]).figure.axes[1].get_xscale() == "symlog"


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least one"):
        fairnb.compare([])
    with pytest.raises(ValueError, match="'elapsed' or 'tried'"):
        fairnb.compare([fairnb.Result(None)], x="time")


# ---------------------------------------------------------------- a certificate beside the searches
@pytest.fixture(scope="module")
def certificate(synthetic, biased_model):
    return fairnb.certify(biased_model, synthetic.domain, max_boxes=2000, batch_size=256, progress=False)


def _share_columns():
    return {verdict: f"{verdict}{' fair' if verdict == 'certified' else ''}: share of inputs (certificate)"
            for verdict in VERDICTS}


def test_a_certificate_beside_searches_gets_its_own_rows_columns_and_panel(runs, certificate):
    cmp = fairnb.compare({**runs, "proved": certificate})
    table, summary = cmp.table, certificate.summary()
    assert list(table.index) == ["biased", "fair", "proved"] and table.index.name == "result"
    assert table["kind"].tolist() == ["search", "search", "certificate"]
    for verdict, column in _share_columns().items():      # the certificate's own shares, blank for the searches
        assert table.loc["proved", column] == pytest.approx(summary[f"{verdict}_share"])
        assert table.loc[["biased", "fair"], column].isna().all()
    assert 0 < summary["certified_share"] < 1 and summary["undecided_share"] > 0
    witnesses = certificate.witnesses.summary()["unique_idi_pairs"]
    assert table.loc["proved", "witness pairs (certificate)"] == witnesses > 0
    assert table.loc["proved", "seconds"] == pytest.approx(certificate.elapsed)
    assert table.loc["proved", "ended"] == "2,000-box cap reached"
    assert table.loc["biased", "unique IDIs"] == runs["biased"].count() and pd.isna(table.loc["proved", "unique IDIs"])
    curve, bars, shares = cmp.figure.axes            # no curve over time and no search bar for the certificate
    assert [line.get_label() for line in curve.get_lines()] == ["biased", "fair"] and len(bars.patches) == 2
    assert [p.get_width() for p in shares.patches] == pytest.approx([summary[f"{v}_share"] for v in VERDICTS])
    assert shares.get_xlabel() == "share of the domain's integer inputs"
    assert [t.get_text() for t in shares.get_yticklabels()] == [f"proved\n({witnesses:,} witness pairs)"]
    assert cmp.notes == ["proved is a certificate (fairnb.certify), not a search: its shares are of the domain's "
                         "integer inputs (proven fair, proven unfair, undecided), not rates of candidates, and it has "
                         "no curve over time; its witness pairs are examples it checked, not a count of finds"]
    assert repr(cmp).startswith("<Comparison of 2 searches and 1 certificate>")
    assert fairnb.compare([runs["biased"], certificate]).table.index.tolist() == ["random", "certify"]


def test_certificates_alone(synthetic, biased_model, certificate):
    stopped = fairnb.certify(biased_model, synthetic.domain, stop=lambda: True, progress=False)
    cmp = fairnb.compare([certificate, stopped])
    assert list(cmp.table.index) == ["certify", "certify (2)"]
    assert list(cmp.table.columns) == ["kind", "ended", *_share_columns().values(), "witness pairs (certificate)",
                                       "seconds"]
    assert cmp.table.loc["certify (2)", _share_columns()["undecided"]] == 1.0
    assert len(cmp.figure.axes) == 1 and len(cmp.figure.axes[0].patches) == 6
    assert cmp.notes == ["certify (2) stopped early: stopped by user; every decided box is kept, the rest is "
                         "undecided"]
    assert repr(cmp).startswith("<Comparison of 2 certificates>")
    assert "the shares each certificate certified" in cmp._repr_html_()


def test_a_certificates_row_and_headings_in_html_are_escaped_and_explained(runs, certificate):
    text = fairnb.compare({"<script>x</script>": certificate, "a": runs["biased"]})._repr_html_()
    assert "<script>x" not in text and "&lt;script&gt;x&lt;/script&gt;" in text
    assert "&lt;NA&gt;" not in text and "<td>nan</td>" not in text     # another kind's numbers are blank
    for key in ("certified_share", "falsified_share", "undecided_share", "witnesses", "result_kind"):
        assert f'title="{html.escape(TERMS[key][1])}"' in text, key
