"""The text inspector in a real JupyterLab and Notebook 7, in chromium: a text pair selected shows its highlighted view."""
from __future__ import annotations

import pytest

from .conftest import APPS, ROOT
from .test_widgets_browser import CONTRAST

SETUP = f"""
import sys, ipywidgets, traitlets
sys.path.insert(0, {str(ROOT / 'tests')!r})
from text_pairs import text_result
result, dom = text_result(n_seeds=40, n_pairs=300, random_state=0)
ins = result.inspect(page_size=10)
ins
"""


@pytest.mark.parametrize("app", APPS)
def test_selecting_a_text_pair_shows_the_highlighted_view(page, run_notebook, app):
    run_notebook(f"text_inspector-{app}.ipynb", [
        SETUP,
        "probe = ipywidgets.HTML('kernel: nothing selected')\n"
        "traitlets.dlink((ins, 'selected_ids'), (probe, 'value'), lambda ids: f'kernel selected: {ids}')\n"
        "probe",
    ], app)
    widget = page.locator(".fairnb-text-inspector")
    rows = widget.locator("tbody tr.fairnb-row")
    rows.first.wait_for()
    assert rows.count() == 10
    sensitive = rows.first.locator(".fairnb-tok-sensitive")
    assert sensitive.count() == 1 and "→" in sensitive.text_content()
    chip = widget.locator(".fairnb-text-rate").first
    term = chip.get_attribute("data-term")
    chip.click()                                                   # filter by the term with the highest rate
    page.wait_for_function("([el, t]) => [...el.querySelectorAll('tbody tr')].every(r => "
                           "r.querySelector('.fairnb-tok-sensitive .fairnb-tok-word').textContent === t)",
                           arg=[widget.locator("tbody").element_handle(), term])
    page.wait_for_function("el => el.textContent.startsWith('Filtered:')",
                           arg=widget.locator(".fairnb-text-slice").element_handle())
    with_subst = rows.filter(has=page.locator(".fairnb-tok-subst")).first
    pair_id = with_subst.get_attribute("data-id")
    with_subst.click()
    page.locator(".widget-html-content", has_text=f"kernel selected: [{pair_id}]").wait_for()
    summary = widget.locator(".fairnb-detail-summary")
    summary.wait_for()
    assert summary.text_content().startswith(f'Pair {pair_id}: replacing only "{term}" by ')
    aligned = widget.locator(".fairnb-text-aligned")
    assert aligned.locator(".fairnb-tok-sensitive .fairnb-tok-word").text_content() == term
    assert aligned.locator(".fairnb-tok-subst").count() >= 1 and aligned.locator(".fairnb-tok-salient").count() > 3
    colours = [aligned.locator(sel).first.evaluate("el => getComputedStyle(el).backgroundColor")
               for sel in (".fairnb-tok-sensitive", ".fairnb-tok-subst")]
    assert colours[0] != colours[1] and "rgba(0, 0, 0, 0)" not in colours      # two visible, different colours
    assert widget.locator(".fairnb-text-chain .fairnb-text-chosen").count() >= 1
    assert widget.locator(".fairnb-text-validity tbody tr").count() == 5
    assert page.dialogs == []
    page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Dark'})")
    page.wait_for_function("document.body.dataset.jpThemeLight === 'false'")
    page.wait_for_timeout(500)
    for selector in (".fairnb-tok-sensitive .fairnb-tok-word", ".fairnb-tok-subst .fairnb-tok-word",
                     ".fairnb-text-rate-term", ".fairnb-text-chosen"):
        ratio = widget.locator(selector).first.evaluate(CONTRAST)
        assert ratio >= 4.5, f"{selector}: contrast {ratio:.2f} < 4.5 on the dark theme"
    page.evaluate("window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Light'})")
    page.wait_for_function("document.body.dataset.jpThemeLight === 'true'")     # the theme is a saved setting
