"""`make screenshots`: the widgets as the tutorials show them, in JupyterLab at a 1,280 x 800 window, cropped to
each widget and written to docs/images/*.png (README.md shows them all).

Not a test (pytest collects it only when named: ``pytest tests/browser/screenshots.py``). Each tutorial runs
up to its inspector cell in smoke mode (``FAIRNB_SMOKE=1``, set by the make target: small budgets, so its numbers
are illustrations, not results); the first pair is then selected so that the detail view shows.
"""
from __future__ import annotations

import nbformat
import pytest
from PIL import Image

from .conftest import ROOT

OUT = ROOT / "docs" / "images"
MAX_BYTES = 200_000
WINDOW = {"width": 1280, "height": 800}
LONG = 300_000      # ms: a tutorial's training and searches, on two shared cores


def _cells_until(tutorial: str, marker: str) -> list[str]:
    """The tutorial's code cells up to the first that contains ``marker``."""
    code = [c.source for c in nbformat.read(ROOT / "notebooks" / tutorial, as_version=4).cells if c.cell_type == "code"]
    return code[: next(i for i, c in enumerate(code) if marker in c) + 1]


def _shoot(page, locator, name: str):
    """Write the PNG of ``locator`` (the widget's own box) to docs/images/``name``.png. The window grows taller
    first (its width, which sets the layout, stays): a widget taller than the notebook's panel would be cut."""
    page.set_viewport_size({**WINDOW, "height": 2400})
    locator.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    path = OUT / f"{name}.png"
    assert locator.bounding_box()["height"] < 2300, f"{name}: the widget is taller than the window"
    OUT.mkdir(parents=True, exist_ok=True)
    locator.screenshot(path=path, animations="disabled", caret="hide")
    Image.open(path).convert("RGB").quantize(256, dither=Image.Dither.NONE).save(path, optimize=True)   # small files
    size = path.stat().st_size
    print(f"{path.relative_to(ROOT)}: {size:,} bytes")
    assert size < MAX_BYTES, f"{path} is {size:,} bytes"
    page.set_viewport_size(WINDOW)


def _loaded(page, widget):
    page.wait_for_function("el => [...el.querySelectorAll('img')].every(i => i.complete && i.naturalWidth > 0)",
                           arg=widget.element_handle(), timeout=LONG)


# tutorial, its inspector cell, and what runs instead of it (None: that cell); tutorial 05's NeuronFair finds no pair
# in smoke mode, so its screenshot shows the method that found the most
SHOTS = [("01_tabular_quickstart.ipynb", "inspector = result.inspect()", None),
         # the pairs the search reached by the most substitutions first, the first selected: its chain shows
         ("04_text_substitutions.ipynb", ".inspect(page_size=10)",
          "inspector = results['adf_asc'].inspect(page_size=10)\n"
          "inspector.sort_by, inspector.sort_descending = 'substitutions', True\n"
          "inspector.selected_ids = inspector.visible_ids[:1]\ninspector"),
         ("05_images_face_detector.ipynb", "nf.inspect(model=detector)",
          "inspector = max(results.values(), key=len).inspect(model=detector)\ninspector")]


@pytest.mark.parametrize("tutorial, marker, instead", SHOTS)
def test_screenshot(page, run_notebook, tutorial, marker, instead):
    page.set_viewport_size(WINDOW)
    cells = _cells_until(tutorial, marker)
    run_notebook(f"shots-{tutorial}", cells[:-1] + [instead or cells[-1]])
    page.locator(".fairnb-inspector").first.wait_for(timeout=LONG)
    if tutorial.startswith("01"):
        panel = page.locator(".fairnb-progress")
        page.wait_for_function("el => ['completed', 'budget'].includes(el.dataset.status)",
                               arg=panel.element_handle(), timeout=LONG)
        _shoot(page, panel, "progress_panel")
        widget = page.locator(".fairnb-inspector")
        widget.locator("tbody tr.fairnb-row").first.click()
        widget.locator(".fairnb-detail-summary").wait_for(timeout=LONG)
        _shoot(page, widget, "pair_inspector")
    elif tutorial.startswith("04"):
        comparison = page.locator(".fairnb-comparison").first      # fairnb.compare(results), above the inspector
        comparison.wait_for(timeout=LONG)
        _loaded(page, comparison)
        _shoot(page, comparison, "compare")
        widget = page.locator(".fairnb-text-inspector")
        rows = widget.locator("tbody tr.fairnb-row")
        rows.first.wait_for(timeout=LONG)
        widget.locator(".fairnb-text-aligned").wait_for(timeout=LONG)
        _shoot(page, widget, "text_inspector")
    else:
        widget = page.locator(".fairnb-image-inspector")
        widget.locator(".fairnb-image-cell").first.click()
        widget.locator(".fairnb-image-panels figure").first.wait_for(timeout=LONG)
        _loaded(page, widget)
        _shoot(page, widget, "image_inspector")
    assert page.dialogs == []
