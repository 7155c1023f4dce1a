"""The widgets in a real JupyterLab and Notebook 7, in chromium: live progress, Stop, the pair
inspector's selection (both front ends, one server)."""
from __future__ import annotations

import re

import pytest

from .conftest import APPS, ROOT

TESTS = ROOT / "tests"

SETUP = """
import fairnb, ipywidgets, traitlets
from fairnb.search import RandomSearch
data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
model = fairnb.train_demo_model(data, max_iter=100)
"""
EVIL = "<img src=x onerror=alert(1)>"
# a cell that shows what the kernel sees as the inspector `ins`'s selection
SELECTION_PROBE = """
import ipywidgets, traitlets
probe = ipywidgets.HTML('kernel: nothing selected')
traitlets.dlink((ins, 'selected_ids'), (probe, 'value'), lambda ids: f'kernel selected: {list(ins.selected.index)}')
probe
"""


def _answered(page, widget):
    """Wait until the kernel has answered the inspector's last request (new rows arrived)."""
    page.wait_for_function("el => el.getAttribute('aria-busy') === 'false'",
                           arg=widget.locator("table.fairnb-table").element_handle())


def _number(text: str) -> int:
    return int(re.sub(r"[^0-9]", "", text) or 0)


@pytest.mark.parametrize("app", APPS)
def test_progress_panel_updates_live_and_stop_reaches_the_kernel(page, run_notebook, app):
    run_notebook(f"progress-{app}.ipynb", [
        SETUP,
        "run = RandomSearch(n_samples=None, max_time=120, batch_size=100, random_state=0).start(model, data.domain)",
        "probe = ipywidgets.HTML('kernel: waiting')\n"
        "traitlets.dlink((run.panel, 'status'), (probe, 'value'),\n"
        "                lambda s: f'kernel status: {s}; pairs kept: {run.result.count() if run.result else 0}')\n"
        "probe",
    ], app)
    panel = page.locator(".fairnb-progress")
    tried = panel.locator('[data-stat="tried"]')
    page.wait_for_function("el => Number(el.textContent.replace(/,/g, '')) > 0", arg=tried.element_handle())
    before = _number(tried.text_content())
    page.wait_for_function("([el, n]) => Number(el.textContent.replace(/,/g, '')) > n",
                           arg=[tried.element_handle(), before])        # the panel updates while the search runs
    assert panel.locator(".fairnb-chart-line").get_attribute("points") != ""
    stop = panel.locator("button.fairnb-stop")
    assert stop.is_enabled()
    stop.click()
    probe = page.locator(".widget-html-content", has_text="kernel status: stopped")
    probe.wait_for()
    kept = _number(probe.text_content().split("pairs kept:")[1])
    assert kept > 0
    page.wait_for_function("el => el.getAttribute('data-status') === 'stopped'", arg=panel.element_handle())
    assert _number(panel.locator('[data-stat="found"]').text_content()) == kept
    assert stop.is_disabled()


@pytest.mark.parametrize("app", APPS)
def test_inspector_pages_sorts_and_sends_the_selection_to_the_kernel(page, run_notebook, app):
    run_notebook(f"inspector-{app}.ipynb", [
        SETUP,
        "result = fairnb.run_search(model, data.domain, max_tried=5000, random_state=0, progress=False)\n"
        "ins = result.inspect(page_size=10)\n"
        "ins",
        SELECTION_PROBE,
    ], app)
    widget = page.locator(".fairnb-inspector")
    rows = widget.locator("tbody tr.fairnb-row")
    rows.first.wait_for()
    assert rows.count() == 10
    assert widget.locator(".fairnb-page-label").text_content().startswith("page 1 of")
    widget.locator("th[data-column='difference'] button").click()
    widget.locator("th[data-column='difference'] button").click()          # descending
    page.wait_for_function("el => el.getAttribute('aria-sort') === 'descending'",
                           arg=widget.locator("th[data-column='difference']").element_handle())
    _answered(page, widget)
    column = [c.text_content() for c in widget.locator("thead th[data-column]").all()].index("difference")
    page.wait_for_function(
        """([body, j]) => { const v = [...body.querySelectorAll('tr')].map(r => Number(r.children[j].textContent));
                           return v.length === 10 && v.every((x, i) => i === 0 || v[i - 1] >= x); }""",
        arg=[widget.locator("tbody").element_handle(), column])
    widget.locator("button[data-page='next']").click()
    page.wait_for_function("el => el.textContent.startsWith('page 2 of')",
                           arg=widget.locator(".fairnb-page-label").element_handle())
    _answered(page, widget)
    third = rows.nth(2)
    pair_id = third.get_attribute("data-id")
    third.click()
    page.locator(".widget-html-content", has_text=f"kernel selected: [{pair_id}]").wait_for()
    summary = widget.locator(".fairnb-detail-summary")
    summary.wait_for()
    assert summary.text_content().startswith(f"Pair {pair_id}: changing only sex")
    assert widget.locator(".fairnb-detail-row.fairnb-changed-protected th").text_content() == "sex"


def test_user_strings_render_as_text(page, run_notebook):
    run_notebook("escaping.ipynb", [
        "import fairnb\n"
        f"EVIL = {EVIL!r}\n"
        "dom = fairnb.TabularDomain([fairnb.Feature(EVIL, 0, 1, labels=(EVIL, 'b')),\n"
        "                            fairnb.Feature('sex', 0, 1, labels=('f', 'm'))], protected=['sex'])\n"
        "result = fairnb.run_search(lambda X: X[:, 1], dom, max_tried=40, random_state=0, progress=False)\n"
        "ins = result.inspect(selected_ids=[0])\n"
        "ins",
    ])
    widget = page.locator(".fairnb-inspector")
    widget.locator("tbody tr").first.wait_for()
    widget.locator(".fairnb-detail-table").wait_for()
    assert widget.locator("img").count() == 0
    assert EVIL in [b.text_content() for b in widget.locator("thead th[data-column] button").all()]
    assert EVIL in [c.text_content() for c in widget.locator("tbody td").all()]
    assert EVIL in [c.text_content() for c in widget.locator(".fairnb-detail-table tbody th").all()]
    assert page.dialogs == []


def test_stop_works_while_run_all_waits_in_run_wait(page, run_notebook):
    # "Run All": the cell `result = run.wait()` blocks the kernel while the search runs; the Stop click
    # must still reach it, the search end "stopped" with its pairs, and the cells after it then run
    run_notebook("run_all_stop.ipynb", [
        SETUP,
        "run = RandomSearch(n_samples=None, max_time=240, batch_size=100, random_state=0).start(model, data.domain)",
        "result = run.wait()",
        "ipywidgets.HTML(f'after wait: {result.status}; pairs kept: {result.count()}')",
    ])
    panel = page.locator(".fairnb-progress")
    tried = panel.locator('[data-stat="tried"]')
    page.wait_for_function("el => Number(el.textContent.replace(/,/g, '')) > 0", arg=tried.element_handle())
    panel.locator("button.fairnb-stop").click()
    probe = page.locator(".widget-html-content", has_text="after wait:")
    probe.wait_for(timeout=120_000)            # well before the 240 s budget
    assert probe.text_content().startswith("after wait: stopped; pairs kept: ")
    kept = _number(probe.text_content().split("pairs kept:")[1])
    assert kept > 0
    page.wait_for_function("el => el.getAttribute('data-status') === 'stopped'", arg=panel.element_handle())
    assert _number(panel.locator('[data-stat="found"]').text_content()) == kept


CONTRAST = """el => {
    const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                                 return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const style = getComputedStyle(el);
    const fg = rgb(el instanceof SVGElement ? style.fill : style.color);
    let node = el, bg = null;
    while (node && node.nodeType === 1) {
        const c = rgb(getComputedStyle(node).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) { bg = c; break; }
        node = node.parentNode;
    }
    const [a, b] = [lum(fg), lum(bg || [255, 255, 255])].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
}"""


def test_widgets_are_readable_in_the_dark_theme(page, run_notebook, tmp_path_factory):
    run_notebook("dark.ipynb", [
        SETUP,
        "run = RandomSearch(n_samples=20000, batch_size=500, random_state=0).start(model, data.domain)",
        "result = run.wait()\nins = result.inspect(page_size=5, selected_ids=[0])\nins",
    ])
    page.locator(".fairnb-inspector .fairnb-detail-table").wait_for()
    page.wait_for_function("el => el.getAttribute('data-status') === 'completed'",
                           arg=page.locator(".fairnb-progress").element_handle())
    page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Dark'})")
    page.wait_for_function("document.body.dataset.jpThemeLight === 'false'")
    page.wait_for_timeout(500)
    page.screenshot(path=str(tmp_path_factory.mktemp("shots") / "dark.png"), full_page=True)
    checks = {".fairnb-stat-value": 4.5, ".fairnb-chart-tick": 3, ".fairnb-chart-title": 4.5,
              ".fairnb-table td.fairnb-col-protected": 4.5, ".fairnb-table td.fairnb-col-feature": 4.5,
              ".fairnb-detail-summary": 4.5, ".fairnb-progress-status": 3}
    for selector, needed in checks.items():
        ratio = page.locator(selector).first.evaluate(CONTRAST)
        assert ratio >= needed, f"{selector}: contrast {ratio:.2f} < {needed} on the dark theme"
    # the inspector's first columns: protected values, outputs, named decisions
    heads = [b.text_content() for b in page.locator(".fairnb-inspector thead th[data-column] button").all()][:7]
    assert heads == ["sex", "sex'", "p", "p'", "label", "label'", "difference"]
    assert {"<=50K", ">50K"} & {c.text_content() for c in page.locator(".fairnb-inspector tbody td.fairnb-col-output").all()}


@pytest.mark.parametrize("app", APPS)
def test_image_inspector_selects_a_pair_and_shows_it_side_by_side(page, run_notebook, app):
    run_notebook(f"images-{app}.ipynb", [
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n"
        "from image_pairs import Nudge, RedSquares, detector\n"
        "result = Nudge(n_seeds=60, random_state=0, progress=False).run(detector, RedSquares())\n"
        "ins = result.inspect(page_size=20, model=detector)\n"
        "ins",
        SELECTION_PROBE,
    ], app)
    widget = page.locator(".fairnb-image-inspector")
    cells = widget.locator(".fairnb-image-cell")
    cells.first.wait_for()
    assert cells.count() == 20
    loaded = "el => el.complete && el.naturalWidth === 6"     # the PNG decodes to the 6 x 6 image
    page.wait_for_function(loaded, arg=cells.first.locator("img").first.element_handle())
    widget.locator("button[data-page='next']").click()
    page.wait_for_function("el => el.getAttribute('aria-busy') === 'false' && el.firstChild.dataset.id === '20'",
                           arg=widget.locator(".fairnb-image-grid").element_handle())
    cells.nth(2).click()
    page.locator(".widget-html-content", has_text="kernel selected: [22]").wait_for()
    figures = widget.locator(".fairnb-image-panels figure:not(.fairnb-heatmap)")
    page.wait_for_function("el => el.querySelectorAll('figure').length === 7",
                           arg=widget.locator(".fairnb-image-panels").element_handle())
    assert [f.get_attribute("data-role") for f in figures.all()] == ["seed", "input", "counterpart", "exact"]
    boxes = [f.bounding_box() for f in figures.all()]
    assert all(b["y"] == boxes[0]["y"] for b in boxes) and [b["x"] for b in boxes] == sorted(b["x"] for b in boxes)
    for img in widget.locator(".fairnb-image-detail img").all():
        page.wait_for_function(loaded, arg=img.element_handle())
    heat = widget.locator(".fairnb-image-panels figure.fairnb-heatmap")
    assert [f.get_attribute("data-role") for f in heat.all()] == ["bias", "senatt", "exact"]
    below = [h.bounding_box() for h in heat.all()]           # each below the image its change leads to
    assert [b["x"] for b in below] == [b["x"] for b in boxes[1:]] and below[0]["y"] > boxes[0]["y"] + 100
    assert widget.locator(".fairnb-detail-summary").text_content().startswith("Pair 22: flipping red")
    head = [t.text_content() for t in widget.locator(".fairnb-image-probabilities thead th").all()]
    assert head == ["", "seed", "input", "counterpart", "exact"]     # the detector's P for each image
    cells.nth(2).focus()                                      # the keyboard: one to the right, Enter
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.locator(".widget-html-content", has_text="kernel selected: [23]").wait_for()
    page.wait_for_function("el => el.textContent.startsWith('Pair 23:')",
                           arg=widget.locator(".fairnb-detail-summary").element_handle())
    if app == "lab":                                          # readable on the dark theme too
        page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Dark'})")
        page.wait_for_function("document.body.dataset.jpThemeLight === 'false'")
        page.wait_for_timeout(500)
        for selector in (".fairnb-image-caption", ".fairnb-figure figcaption", ".fairnb-image-norms td",
                         ".fairnb-image-cell.fairnb-selected .fairnb-image-caption"):
            ratio = widget.locator(selector).first.evaluate(CONTRAST)
            assert ratio >= 4.5, f"{selector}: contrast {ratio:.2f} < 4.5 on the dark theme"
        page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Light'})")
        page.wait_for_function("document.body.dataset.jpThemeLight === 'true'")   # the theme is a saved setting
