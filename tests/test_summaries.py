"""What a teacher reads: human labels, one number format, and the budget that ended a search named."""
from __future__ import annotations

import html
import re

import fairnb
from fairnb.search import get_method


def test_the_budget_that_ended_a_search_is_named(synthetic, biased_model):
    dom = synthetic.domain
    capped = fairnb.run_search(biased_model, dom, max_found=100, random_state=0, progress=False)
    assert capped.ended_by == ("max_found", 100) and capped.ending == "100-pair cap reached"
    timed = fairnb.run_search(biased_model, dom, max_time=0.2, random_state=0, progress=False)
    assert timed.ending == "time budget of 0.2 s reached"
    checked = fairnb.run_search(biased_model, dom, max_tried=3000, random_state=0, progress=False)
    assert checked.ending == "3,000-candidate cap reached"
    stopped = get_method("random")(n_samples=None, max_time=60, progress=False).start(biased_model, dom).stop()
    assert stopped.ended_by is None and stopped.ending == "stopped by user"
    assert repr(timed).startswith("<Result random, time budget of 0.2 s reached: ")
    assert "stopped by user" in stopped._repr_html_()


def test_summaries_have_human_labels_and_one_number_format(synthetic, biased_model):
    r = fairnb.run_search(biased_model, synthetic.domain, max_tried=30_000, random_state=0, progress=False)
    s = r.summary()
    assert {"unique_idis_eidig", "unique_idis_adf", "tried", "success_rate", "idis_per_s"} <= set(s)  # JSON keys kept
    page = r._repr_html_()
    summary_table = page.split("<p>")[0]
    assert "unique_idis" not in summary_table and "success_rate" not in summary_table
    assert not re.search(r"\de[+-]\d", summary_table)               # no 2.04e+04 beside 4358
    assert f"<td style='text-align:right'>{s['tried']:,}</td>" in summary_table
    assert f"{100 * r.success_rate:.1f} %" in summary_table
    assert "discriminatory inputs per second" in summary_table
    assert f"{r.count():,} discriminatory inputs" in repr(r)


def test_result_table_puts_protected_values_and_named_decisions_first(synthetic, biased_model):
    r = fairnb.run_search(biased_model, synthetic.domain, max_tried=3000, random_state=0, progress=False)
    table = r._repr_html_().split("<p>")[-1]          # the pairs table comes last
    headers = [html.unescape(h) for h in re.findall(r'<th [^>]*class="col_heading[^"]*"[^>]*>([^<]*)</th>', table)]
    assert headers[:7] == ["sex", "sex'", "p", "p'", "label", "label'", "difference"]
    for j in (4, 5):
        cells = re.findall(rf'<td [^>]*class="data row\d+ col{j}"[^>]*>([^<]*)</td>', table)
        assert {html.unescape(c) for c in cells} == {"<=50K", ">50K"}
