"""Every kind of Result displays, fresh from its search and loaded from a saved file: ``_repr_html_`` (what a
notebook shows), ``write_report`` (the static HTML report) and the inspector's static fallback (exported
notebooks), each with the protected part of its pairs highlighted and nothing unescaped."""
from __future__ import annotations

import numpy as np
import pytest

import fairnb
from fairnb.report import write_report
from fairnb.results import Result
from fairnb.search import get_method

from image_checks import detector, domain as image_domain, seed_images
from text_checks import bench, biased_linear

HIGHLIGHT = "background-color: #ffe8a3"


def tabular():
    data = fairnb.datasets.make_synthetic(n=400, random_state=0)
    r = get_method("random")(max_tried=3000, random_state=0).run(data.info["true_model"], data.domain)
    return r, data.domain.protected_names[0]


def text():
    dom, texts, E = bench()
    r = get_method("rp")(n_seeds=30, max_iter=3, n_local=10, random_state=0).run(biased_linear(dom, E), dom,
                                                                                 seeds=texts)
    return r, "term"


def image():
    r = get_method("eidig_image")(random_state=0).run(detector(red=1.0), image_domain(), seeds=seed_images(15))
    return r, "tint"


@pytest.fixture(params=[tabular, text, image], ids=lambda f: f.__name__, scope="module")
def found(request):
    result, column = request.param()
    assert len(result) > 0, "the display is checked on a Result with pairs"
    return result, column


@pytest.fixture(params=["fresh", "loaded"])
def shown(request, found, tmp_path):
    result, column = found
    if request.param == "loaded":
        result = Result.load(result.save(tmp_path / "found.csv"))
    return result, column


def test_a_result_displays_in_a_notebook_with_its_protected_column_highlighted(shown):
    result, column = shown
    page = result._repr_html_()
    assert page.count("<tr") >= 1 + min(10, len(result)) and ">" + column + "<" in page.replace(" ", "")
    assert HIGHLIGHT in page


def test_a_result_writes_its_static_report(shown, tmp_path):
    result, column = shown
    page = write_report([result], tmp_path / "report").read_text()
    assert "Examples found by" in page and HIGHLIGHT in page and f">{column}<" in page.replace(" ", "")


def test_a_result_inspector_has_a_static_fallback(shown):
    result, _ = shown
    fallback = result.inspect().static_html()
    assert "<table" in fallback and "<script" not in fallback


def test_decoding_a_text_results_inputs_gives_its_tokens():
    result, _ = text()
    tokens = result.domain.vocab.decode(result.inputs)       # float ids, as a Result stores them
    assert len(tokens) == len(result) and all(isinstance(t, str) for row in tokens for t in row)
    assert result.domain.vocab.decode(result.inputs[0]) == tokens[:1]
    with pytest.raises(ValueError, match="integer"):
        result.domain.vocab.decode(result.inputs + 0.5)


def test_the_directions_say_which_way_decisions_move_per_value(synthetic, biased_model):
    """The planted bias of the synthetic census favours the highest sex code: swapping *to* it turns decisions
    into class 1, swapping away turns them into class 0; a Result's display shows the table in words."""
    r = get_method("random")(max_tried=5000, random_state=0).run(biased_model, synthetic.domain)
    table = r.directions().set_index("to")
    assert table["pairs"].sum() == len(r) and set(table["attribute"]) == {"sex"}
    up = table["to_class_1"]
    assert up.max() > 0.9 and up.min() < 0.1 and (table["to_class_1"] + table["to_class_0"]).round(6).eq(1).all()
    assert "decision becomes" in r._repr_html_() and len(table) == 2


def test_the_directions_count_the_material_pairs_per_value_as_the_headline_does(synthetic, biased_model):
    """The per-value table counts, beside all pairs, those that move the output by at least 0.1 (the pairs the
    headline's ``material_pairs`` counts), so a value whose pairs are boundary noise is told from a finding; the
    display shows the count."""
    r = get_method("random")(max_tried=5000, random_state=0).run(biased_model, synthetic.domain)
    pairs = r.pairs
    table = r.directions().set_index("to")
    per_value = pairs[pairs["material"]].groupby("sex'").size()
    assert table["material"].to_dict() == {v: int(per_value.get(v, 0)) for v in table.index}
    assert table["material"].sum() == pairs["material"].sum() and (table["material"] <= table["pairs"]).all()
    assert r.summary()["material_pairs"] <= table["material"].sum()    # the headline counts a pair and its reverse once
    assert "of them moving it by at least 0.1" in r._repr_html_()


def test_every_inspectors_summary_band_leads_with_the_natural_rate_and_its_interval(shown):
    """What the widget gets (``headline``, synced to the browser, which writes it first in the summary band) and
    its static fallback lead with the share of inputs discriminatory as they are and its 95 % interval."""
    from fairnb.summaries import fmt_shares

    result, _ = shown
    s = result.summary()
    inspector = result.inspect()
    assert s["natural_n"] > 0 and "headline" in inspector.trait_names(sync=True)
    rate, low, high = fmt_shares(s["natural_rate"], s["natural_low"], s["natural_high"])
    assert inspector.headline.startswith(f"{rate} of the {s['natural_n']:,} inputs checked as they are (before the "
                                         f"search changed them) are discriminatory (95 % interval: {low} to {high})")
    assert f"The search found {s['unique_idi_pairs']:,} discriminatory pair" in inspector.headline
    page = inspector.static_html()
    assert "<p class='fairnb-headline'>" in page and page.index("fairnb-headline") < page.index("<table")
