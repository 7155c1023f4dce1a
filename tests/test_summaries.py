"""What a teacher reads: human labels, one number format, and the budget that ended a search named."""
from __future__ import annotations

import html
import re

import fairnb
from fairnb.search import get_method
from fairnb.summaries import headline


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


# ---- the headline's wording (issue #34 item 7): each case with the words it must and must not use

def base(**extra) -> dict:
    return {"natural_rate": 0.313, "natural_low": 0.263, "natural_high": 0.367, "natural_n": 300,
            "unique_idi_pairs": 10, "material_pairs": 10, **extra}


def test_pairs_none_of_which_is_material_are_counted_not_called_zero():
    words = headline(base(unique_idi_pairs=168_420, material_pairs=0))
    assert "The search found 168,420 discriminatory pairs; none moves the decision by 0.1 or more." in words
    assert "found 0" not in words
    words = headline(base(unique_idi_pairs=168_420, material_pairs=1_234))
    assert "found 168,420 discriminatory pairs; 1,234 of them move the decision by 0.1 or more" in words


def test_the_control_is_named_by_its_label_or_as_the_model_itself_never_as_a_fair_model(
        synthetic, biased_model, fair_model):
    aequitas = get_method("aequitas")
    runs = {label: aequitas(n_seeds=50, n_local=5, random_state=0, progress=False, control=control).run(
        biased_model, synthetic.domain, synthetic.X[:200])
        for label, control in (("labelled", (fair_model, "trained without sex")), ("itself", biased_model),
                               ("plain", fair_model))}
    words = {label: headline(r.summary()) for label, r in runs.items()}
    assert "on the control model (trained without sex), " in words["labelled"]
    assert "on the control model (the searched model itself), " in words["itself"]
    assert "on the control model, " in words["plain"]
    assert runs["labelled"].summary()["control_label"] == "trained without sex"
    assert runs["labelled"].params["control"] == repr(fairnb.models.wrap(fair_model))
    assert not any("without the bias" in w for w in words.values())


def control(rate, low, high) -> dict:
    return {"control_natural_rate": rate, "control_natural_low": low, "control_natural_high": high}


def test_the_two_intervals_are_said_to_be_apart_or_to_overlap():
    assert headline(base(**control(0.0, 0.0, 0.012))).split(". ")[0].endswith("the two intervals are apart")
    assert "the two intervals overlap" in headline(base(**control(0.30, 0.25, 0.35)))


def test_the_control_clause_says_discriminatory():
    assert "of the same inputs are discriminatory (" in headline(base(**control(0.04, 0.02, 0.07)))


def test_shares_side_by_side_have_one_number_of_decimals():
    words = headline({"natural_rate": 0.00421, "natural_low": 0.002, "natural_high": 0.0085, "natural_n": 5000,
                      **control(0.0, 0.0, 0.0077), "unique_idi_pairs": 0})
    shown = re.findall(r"(\d+\.(\d+)) %", words)
    assert "0.0 %" not in words and "0.000 %" in words and "0.421 %" in words
    assert len({len(decimals) for _, decimals in shown}) == 1, shown


def test_random_draws_are_read_apart_from_the_data():
    words = headline(base(random_rate=0.368, random_low=0.355, random_high=0.381, random_n=5000))
    assert words.startswith("31.3 % of the 300 inputs checked as they are")
    assert "Apart from the data, 36.8 % of the 5,000 inputs drawn at random from the domain are discriminatory" in words
    alone = headline({"random_rate": 0.368, "random_low": 0.355, "random_high": 0.381, "random_n": 5000,
                      "unique_idi_pairs": 0})
    assert alone.startswith("The search was given no data to check as it is; 36.8 % of the 5,000 inputs drawn")


def test_material_and_immaterial_pairs_add_up_to_the_pairs_reported(synthetic, biased_model):
    """Both count unordered pairs, as ``unique_idi_pairs`` does: a random search stores a pair and its reverse
    (two inputs), which the pair count counts once."""
    r = get_method("random")(max_tried=20_000, random_state=0, progress=False).run(biased_model, synthetic.domain)
    s = r.summary()
    assert s["unique_idi_pairs"] < len(r)                      # some pairs were stored both ways round
    assert s["material_pairs"] + s["immaterial_pairs"] == s["unique_idi_pairs"]
    assert s["near_threshold"] <= s["unique_idi_pairs"] and "material_idis" not in s
