"""Every summary key a display labels, and the widgets' jargon, carry a one-line definition (a tooltip) and a
link to their glossary entry (docs/glossary.md), escaped."""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import fairnb
from fairnb import summaries
from fairnb.summaries import GLOSSARY_URL, LABELS, TERMS, glossary_slug

GLOSSARY = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"
HEADINGS = {glossary_slug(h): h for h in re.findall(r"^### (.+)$", GLOSSARY.read_text(), flags=re.M)}


class _Terms(HTMLParser):
    """The summary table's header cells: (label text, tooltip, glossary link) per row."""

    def __init__(self):
        super().__init__()
        self.rows, self._in_th = [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "th":
            self._in_th = True
            self.rows.append({"text": "", "title": None, "href": None})
        elif self._in_th and tag == "span" and "title" in a:
            self.rows[-1]["title"] = a["title"]
        elif self._in_th and tag == "a":
            self.rows[-1]["href"] = a.get("href")

    def handle_endtag(self, tag):
        if tag == "th":
            self._in_th = False

    def handle_data(self, data):
        if self._in_th:
            self.rows[-1]["text"] += data


def test_every_labelled_key_has_a_definition_and_an_entry_in_the_glossary():
    assert set(LABELS) <= set(TERMS), sorted(set(LABELS) - set(TERMS))
    for key, (heading, tip) in TERMS.items():
        assert glossary_slug(heading) in HEADINGS, f"{key}: no glossary heading {heading!r}"
        assert tip.endswith(".") and "\n" not in tip and len(tip) < 160, key     # one line


def test_a_results_summary_table_links_each_labelled_key(synthetic, biased_model):
    result = fairnb.run_search(biased_model, synthetic.domain, max_tried=3000, random_state=0, progress=False)
    parser = _Terms()
    parser.feed(result._repr_html_())
    keyed = summaries.keyed_rows(result.summary(), result.ended_by)
    shown = parser.rows[:len(keyed)]                    # the summary table comes first, in the summary's order
    labelled = [(key, row) for (key, label, _), row in zip(keyed, shown) if key in LABELS]
    assert len(labelled) > 10
    for key, row in labelled:
        heading, tip = TERMS[key]
        assert row["text"].strip() == f"{LABELS[key].strip()} ?", key
        assert row["title"] == tip, key
        assert row["href"] == f"{GLOSSARY_URL}#{glossary_slug(heading)}", key


@pytest.mark.parametrize("widget", ["ProgressPanel", "TextInspector", "ImageInspector"])
def test_widgets_send_their_words_definitions_and_links(widget):
    from fairnb import widgets

    cls = getattr(widgets, widget)
    assert cls._glossary_keys and set(cls._glossary_keys) <= set(TERMS)
    if widget == "ProgressPanel":
        panel = cls()
        assert set(panel.glossary) == set(cls._glossary_keys)
        for key, entry in panel.glossary.items():
            assert entry == {"tip": TERMS[key][1], "href": f"{GLOSSARY_URL}#{glossary_slug(TERMS[key][0])}"}
        assert "glossary.md#success-rate" in panel.static_html()


def test_labels_and_definitions_are_escaped(monkeypatch):
    monkeypatch.setitem(TERMS, "evil", ("Seed", "<script>alert(1)</script>"))
    out = summaries.term_html("evil", "<img src=x onerror=alert(1)>")
    assert "<script>" not in out and "<img" not in out
    assert "&lt;img src=x onerror=alert(1)&gt;" in out and "&lt;script&gt;" in out


def test_compares_column_headings_link_their_glossary_entries(synthetic, biased_model):
    runs = {"a": fairnb.run_search(biased_model, synthetic.domain, max_tried=500, random_state=0, progress=False),
            "ended": fairnb.run_search(biased_model, synthetic.domain, max_tried=500, random_state=1, progress=False)}
    cmp = fairnb.compare(runs)
    parser = _Terms()
    parser.feed(cmp._repr_html_())
    heads = {row["text"].strip(): row for row in parser.rows}
    assert len(cmp.table.columns) > 8
    entries = {(f"{GLOSSARY_URL}#{glossary_slug(heading)}", tip) for heading, tip in TERMS.values()}
    for column in cmp.table.columns:                  # every heading: a definition and its glossary entry
        row = heads[f"{column} ?"]
        assert (row["href"], row["title"]) in entries, column
    for column, key in [("ended", "status"), ("candidates checked", "tried"), ("unique IDIs", "unique_idis_eidig"),
                        ("success rate", "success_rate"), ("seeds discriminatory as they are", "natural_rate")]:
        assert heads[f"{column} ?"]["title"] == TERMS[key][1], column
    assert heads["ended"]["href"] is None        # a search labelled like a column stays a plain label


def test_the_image_inspectors_norms_table_links_its_words_escaped(monkeypatch):
    from fairnb.widgets.image_inspector import ImageInspector
    from image_pairs import Nudge, RedSquares, detector

    result = Nudge(random_state=0, progress=False).run(detector, RedSquares())
    ins = ImageInspector(result)
    ins.set_state({"selected_ids": [5]})
    norms = ins.detail["norms"]
    assert {n["name"] for n in norms} >= {"‖Δ_bias‖₂", "‖Δ_senatt‖∞", "FGSM flip steps",
                                          "f_sa still disagrees at the end"}
    assert all(n["term"] in ins.glossary for n in norms), [n for n in norms if n["term"] not in ins.glossary]
    monkeypatch.setitem(TERMS, "flip_steps", ("FGSM", "<script>alert(1)</script>"))
    parser = _Terms()
    parser.feed(ins.static_html())
    rows = {row["text"].strip(): row for row in parser.rows}
    assert rows["‖Δ_senatt‖₂ ?"]["href"] == f"{GLOSSARY_URL}#{glossary_slug(TERMS['senatt'][0])}"
    assert rows["FGSM flip steps ?"]["title"] == "<script>alert(1)</script>"        # parsed back from escaped text
    assert "<script>" not in ins.static_html()
