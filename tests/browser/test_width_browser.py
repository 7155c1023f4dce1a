"""Everything fairnb shows fits a 1,280 x 800 window (issue #37 item 6): in JupyterLab's output area (about 846 px
with the file browser open) the progress panel, a Result, ``fairnb.compare``, TestSGD's groups, a certificate and
a mitigation report, and the demo report page on its own (the inspectors:
test_layout_browser.py). A table wider than its box scrolls inside a frame of its own (never the output area or the
page) with its first column pinned: the row's name stays in view."""
from __future__ import annotations

import pytest

WINDOW = {"width": 1280, "height": 800}
SETUP = """
import fairnb
from fairnb.search import RandomSearch, get_method
from fairnb.group import TestSGD
data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
model = fairnb.train_demo_model(data, max_iter=100)
seeds = data.seed_inputs()
found = fairnb.run_search(model, data.domain, max_tried=3000, random_state=0, progress=False)
eidig = get_method("eidig")(max_tried=3000, random_state=0, progress=False).run(model, data.domain, seeds=seeds)
# a mitigation report from hand-made measurements (retraining is slow): the control and two generators, 3 repeats
rows = [{"method": m, "stage": "before", "repeat": 0, "added": 0, "discrimination": 0.005} for m in ("control", "adf", "eidig")]
rows += [{"method": m, "stage": "after", "repeat": i, "added": 0 if m == "control" else 50, "discrimination": 0.004 + i / 1e4}
         for m in ("control", "adf", "eidig") for i in range(3)]
"""
# one output per cell, in this order (the names of the outputs the test measures)
SHOWN = {
    "progress panel": "run = RandomSearch(max_tried=3000, random_state=0).start(model, data.domain)",
    "result": "found",
    "compare": "fairnb.compare({'random': found, 'eidig': eidig})",
    "groups": "TestSGD(random_state=0).run(model, data, sensitive=['sex', 'race', 'age'])",
    "certificate": "fairnb.certify(model, data.domain, max_time=3)",
    "mitigation": "import pandas as pd\nfrom fairnb.mitigation import MitigationReport\nMitigationReport(pd.DataFrame(rows))",
}
# per output area: its own overflow, and each scrolling frame inside it with the position of its first cells
MEASURE = """area => {
    const frames = [...area.querySelectorAll('*')].filter(el => getComputedStyle(el).overflowX === 'auto');
    return {
        scroll: area.scrollWidth, client: area.clientWidth,
        frames: frames.map(el => ({
            scroll: el.scrollWidth, client: el.clientWidth, right: el.getBoundingClientRect().right,
            pinned: [...el.querySelectorAll('tr > :first-child')].every(c => getComputedStyle(c).position === 'sticky'),
        })),
        right: area.getBoundingClientRect().right,
    };
}"""


def _check(name, m):
    assert m["scroll"] <= m["client"], f"{name}: the box scrolls sideways ({m['scroll']} > {m['client']} px)"
    for f in m["frames"]:
        assert f["right"] <= m["right"] + 0.5, f"{name}: a scrolling frame ends outside its box ({f})"
        if f["scroll"] > f["client"]:
            assert f["pinned"], f"{name}: a table scrolls sideways without its first column pinned ({f})"


def test_every_output_fits_the_output_area_at_1280_px(page, run_notebook):
    page.set_viewport_size(WINDOW)
    run_notebook("width.ipynb", [SETUP, *SHOWN.values()])
    cells = page.locator(".jp-Notebook .jp-CodeCell")
    page.locator(".fairnb-progress[data-status='completed'], .fairnb-progress[data-status='budget']").wait_for()
    cells.nth(len(SHOWN)).locator(".jp-OutputArea-output").first.wait_for(timeout=240_000)   # every cell has run
    page.wait_for_timeout(500)                                   # layout settled
    sizes = {}
    for i, name in enumerate(SHOWN, start=1):
        area = cells.nth(i).locator(".jp-OutputArea-output").last
        sizes[name] = area.evaluate(MEASURE)
        assert 800 < area.bounding_box()["width"] < 900, (name, area.bounding_box())   # JupyterLab's box at 1,280 px
    print(sizes)
    for name, m in sizes.items():
        _check(name, m)


def test_the_demo_report_fits_a_1280_px_window(page, tmp_path):
    from fairnb.demo import run_demo

    run_demo(tmp_path / "report", seconds=0.5, quiet=True)
    page.set_viewport_size(WINDOW)
    page.goto((tmp_path / "report" / "index.html").as_uri())
    m = page.locator("body").evaluate(MEASURE.replace("area.scrollWidth", "document.documentElement.scrollWidth")
                                      .replace("area.clientWidth", "document.documentElement.clientWidth"))
    print(m)
    assert m["frames"], "the report's wide tables scroll in frames of their own"
    _check("report", m)
