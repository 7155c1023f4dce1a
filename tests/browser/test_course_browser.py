"""What issue #22 found wrong in the tutorials, checked where a student sees it: JupyterLab 4 and Notebook 7 in
chromium at a 1,280 x 800 window.

* live distributed counters never go down and end at the merged Result's counts (item 2);
* term chips show the seeds behind a rate, the detail view drops a pair the filters removed, ``inspector.selected``
  puts term -> term' first, both heat maps of an image pair use one scale, the static image grid wraps (item 7).

(Item 4, "preparing the model" and a busy kernel during a search: ``test_busy_browser.py``.)
"""
from __future__ import annotations

import json
import re

import pytest

from .conftest import APPS, ROOT

TESTS = ROOT / "tests"
WINDOW = {"width": 1280, "height": 800}
# every value a counter of the panel shows, recorded in the page as it changes
RECORD = """el => { window.__seen = {tried: [], found: []};
    for (const key of ['tried', 'found']) {
        const node = el.querySelector(`[data-stat="${key}"]`);
        const note = () => window.__seen[key].push(Number(node.textContent.replace(/,/g, '')));
        note();
        new MutationObserver(note).observe(node, {childList: true, characterData: true, subtree: true});
    } }"""


def _probe(page, prefix: str, timeout=120_000) -> str:
    """The text of the probe widget whose text starts with ``prefix`` (once it does)."""
    probe = page.locator(".widget-html-content", has_text=prefix)
    probe.wait_for(timeout=timeout)
    return probe.text_content()


@pytest.mark.parametrize("app", APPS)
def test_live_distributed_counters_never_decrease_and_end_at_the_merged_result(page, run_notebook, app):
    page.set_viewport_size(WINDOW)
    run_notebook(f"distributed-{app}.ipynb", [
        "import ipywidgets, fairnb\n"
        "from fairnb.distributed import local_cluster\n"
        "from fairnb.search import RandomSearch\n"
        "data = fairnb.datasets.make_synthetic(n=2000, random_state=0)\n"
        "model = fairnb.train_demo_model(data, max_iter=100)\n"
        "client = local_cluster(n_workers=2, processes=False)",
        # a small domain: the shards find many of the same inputs, so a sum of their counts would overshoot
        "run = RandomSearch(n_samples=1_500_000, batch_size=500, random_state=0).start(model, data.domain,\n"
        "                                                                             client=client, n_shards=2)",
        "result = run.wait()\n"
        "ipywidgets.HTML(f'merged: {result.tried} {result.count(run.search.dedup)}')",
    ], app)
    panel = page.locator(".fairnb-progress")
    panel.wait_for(timeout=120_000)
    panel.evaluate(RECORD)
    merged = _probe(page, "merged:", timeout=300_000).split()[1:]
    page.wait_for_function("el => el.dataset.status === 'completed'", arg=panel.element_handle())
    seen = page.evaluate("window.__seen")
    for key, want in zip(("tried", "found"), map(int, merged)):
        values = seen[key]
        assert len(values) > 3, (key, values)                    # several live updates were seen
        assert values == sorted(values), f"{key} went down: {values}"
        assert values[-1] == want, f"{key} ends at {values[-1]}, the merged Result has {want}"
    assert page.dialogs == []


TEXT_AND_IMAGES = [
    "import sys, json, ipywidgets, traitlets, fairnb\n"
    "from IPython.display import HTML\n"
    f"sys.path.insert(0, {str(TESTS)!r})\n"
    "from text_pairs import text_result\n"
    "from image_pairs import Nudge, RedSquares, detector\n"
    "texts, _ = text_result(n_seeds=40, n_pairs=300, random_state=0)\n"
    "images = Nudge(n_seeds=60, random_state=0, progress=False).run(detector, RedSquares())\n"
    "tins = texts.inspect(page_size=10)\n"
    "tins",
    "probe = ipywidgets.HTML('text selected: none')\n"
    "def show(ids):\n"
    "    sel = tins.selected\n"
    "    first = sel.iloc[0][['term', \"term'\"]].tolist() if len(sel) else []\n"
    "    return f'text selected: {list(ids)}; columns: {list(sel.columns[:2])}; first: {first}'\n"
    "traitlets.dlink((tins, 'selected_ids'), (probe, 'value'), show)\n"
    "probe",
    "ipywidgets.HTML('rates: ' + json.dumps({r['term']: [r['seeds_found'], r['seeds']] for r in tins.term_rates\n"
    "                                        if r['rate'] is not None}))",
    "iins = images.inspect(page_size=40, model=detector)\n"
    "iins",
    "HTML(iins.static_html())",
]


@pytest.mark.parametrize("app", APPS)
def test_text_and_image_inspectors_tell_the_truth_at_1280_px(page, run_notebook, app):
    page.set_viewport_size(WINDOW)
    run_notebook(f"truth-{app}.ipynb", TEXT_AND_IMAGES, app)
    text = page.locator(".fairnb-text-inspector")
    text.locator("tbody tr.fairnb-row").first.wait_for(timeout=120_000)
    rates = json.loads(_probe(page, "rates:").removeprefix("rates: "))

    # term chips: the rate with the seeds behind it ("100.0% · 1/1"), the kernel's own counts
    chips = text.locator(".fairnb-text-rate")
    assert chips.count() > 1
    for chip in chips.all():
        term = chip.get_attribute("data-term")
        value = chip.locator(".fairnb-text-rate-value").text_content()
        found, seeds = rates[term]
        assert re.fullmatch(rf"\d+\.\d% · {found}/{seeds}", value), (term, value)
        share = float(value.split("%")[0])
        assert abs(share - 100 * found / seeds) < 0.051, (term, value)

    # inspector.selected: term -> term' first, the selected pair's own
    row = text.locator("tbody tr.fairnb-row").first
    pair_id = row.get_attribute("data-id")
    term = row.locator(".fairnb-tok-sensitive .fairnb-tok-word").text_content()
    row.click()
    said = _probe(page, f"text selected: [{pair_id}]")
    assert "columns: ['term', \"term'\"]" in said and f"first: ['{term}', '" in said, said
    text.locator(".fairnb-detail-summary").wait_for()

    # the detail view drops a pair that a filter removes
    other = next(c for c in chips.all() if c.get_attribute("data-term") != term)
    other.click()
    _probe(page, "text selected: [];")
    text.locator(".fairnb-detail-empty").wait_for()
    assert text.locator(".fairnb-detail-summary").count() == 0

    # image pair: both heat maps on one scale
    image = page.locator(".fairnb-image-inspector")
    cells = image.locator(".fairnb-image-cell")
    cells.first.wait_for(timeout=120_000)
    cells.nth(5).click()                                   # a moved seed: its input differs from the seed
    heat = image.locator(".fairnb-image-panels figure.fairnb-heatmap figcaption")
    page.wait_for_function("el => el.querySelectorAll('figure.fairnb-heatmap').length === 3",
                           arg=image.locator(".fairnb-image-panels").element_handle())
    captions = [c.text_content() for c in heat.all()]
    scales = [m.group(1) for m in (re.search(r"same scale ×(\S+),", c) for c in captions) if m]
    assert len(scales) == 3 and len(set(scales)) == 1, captions

    # the static grid (exported HTML) wraps into rows that fit the output area
    static = page.locator(".jp-OutputArea-output table").filter(has=page.locator("img")).last
    static.wait_for()
    area = static.evaluate("el => el.closest('.jp-OutputArea-output').getBoundingClientRect().width")
    width = static.evaluate("el => el.getBoundingClientRect().width")
    rows = static.locator("tr").filter(has=page.locator("img"))
    assert rows.count() >= 4 and max(r.locator("td").count() for r in rows.all()) <= 6
    assert width <= area, f"the static grid is {width} px wide in a {area} px output area"
    assert page.dialogs == []
