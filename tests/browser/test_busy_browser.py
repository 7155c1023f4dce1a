"""A search that blocks its cell, in a real JupyterLab and Notebook 7 at a 1,280 x 800 window: the panel says
"preparing the model" while the model warms up, the kernel reads busy for the whole search (JupyterLab 4.6
sends widget messages over a kernel subshell, whose own "idle" used to replace the cell's "busy"), and
the panel's Stop button still ends the search, keeping its pairs."""
from __future__ import annotations

import re

import pytest

from .conftest import APPS

WINDOW = {"width": 1280, "height": 800}
# the kernel's status in the front end's model, which JupyterLab's status bar ("Python 3 (ipykernel) | Busy") and
# Notebook 7's kernel indicator show (the toolbar's execution indicator counts cells and read "busy" before the fix too)
KERNEL_STATUS = "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
SETUP = """
import os, time, ipywidgets, fairnb
from fairnb.models import wrap
from fairnb.search import RandomSearch
data = fairnb.datasets.make_synthetic(n=2000, random_state=0)

class SlowToPrepare:
    \"\"\"The synthetic data's model, with a warm-up that lasts until the file `go` appears.\"\"\"
    def __init__(self, model, go):
        self.model, self.go = wrap(model), go
    def predict_proba(self, X):
        return self.model.predict_proba(X)
    def warm_up(self):
        while not os.path.exists(self.go):
            time.sleep(0.05)
"""


def _busy(page, app):
    page.wait_for_function(f"({KERNEL_STATUS})() === 'busy'", timeout=10_000)
    if app == "lab":
        page.locator(".jp-StatusBar-TextItem", has_text="| Busy").wait_for(timeout=10_000)


@pytest.mark.parametrize("app", APPS)
def test_a_search_cell_keeps_the_kernel_busy_and_stop_ends_it(page, run_notebook, lab, app):
    page.set_viewport_size(WINDOW)
    go = lab[1] / f"go-{app}"
    run_notebook(f"busy-{app}.ipynb", [
        SETUP,
        f"result = RandomSearch(n_samples=None, max_time=240, batch_size=100, random_state=0).run(\n"
        f"    SlowToPrepare(data.info['true_model'], {go.name!r}), data.domain)",
        "ipywidgets.HTML(f'after run: {result.status}; pairs kept: {result.count()}')",
    ], app)
    panel = page.locator(".fairnb-progress")
    page.wait_for_function("el => el.dataset.status === 'preparing'", arg=panel.element_handle(), timeout=120_000)
    assert "preparing the model" in panel.locator(".fairnb-progress-status").text_content()
    page.wait_for_timeout(1_500)       # the front end has opened its widget subshell meanwhile
    _busy(page, app)
    go.touch()                         # the warm-up ends; the search starts
    tried = panel.locator('[data-stat="tried"]')
    page.wait_for_function("el => Number(el.textContent.replace(/,/g, '')) > 0", arg=tried.element_handle())
    assert panel.get_attribute("data-status") == "running"
    _busy(page, app)
    stop = panel.locator("button.fairnb-stop")
    assert stop.is_enabled()           # offered: the cell hears it
    stop.click()
    probe = page.locator(".widget-html-content", has_text="after run:")
    probe.wait_for(timeout=120_000)    # well before the 240 s budget
    assert probe.text_content().startswith("after run: stopped; pairs kept: ")
    assert int(re.sub(r"[^0-9]", "", probe.text_content().split("pairs kept:")[1])) > 0
    page.wait_for_function(f"({KERNEL_STATUS})() === 'idle'")
    assert page.dialogs == []
