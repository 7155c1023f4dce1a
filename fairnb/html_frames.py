"""Wide HTML tables that fit their box: a notebook's output area (about 846 px in JupyterLab at a 1,280 px window)
or the report page. The table scrolls sideways inside a frame of its own, never the output area or the page, and
its first column (the row's name: a search, a rule set, a pair's protected value) stays pinned in view.

Example
-------
>>> framed = scroll_frame("<table><tr><th>search</th><td>1</td></tr></table>")
>>> framed.startswith("<div class='fairnb-scroll'") and framed.endswith("</table></div>")
True
"""
from __future__ import annotations

FRAME = "fairnb-scroll"
# the frame's scrolling is inline (it survives a sanitizer that drops <style>); the pinned column needs the rule
_PIN = (f"<style>.{FRAME} tr>:first-child{{position:sticky;left:0;z-index:1;"
        "background:var(--jp-layout-color0,#fff);box-shadow:inset -1px 0 0 var(--jp-border-color2,#ccc)}</style>")


def scroll_frame(table_html: str) -> str:
    """``table_html`` in a frame that scrolls sideways when the table is wider than its box, first column pinned."""
    return f"<div class='{FRAME}' style='overflow-x:auto;max-width:100%'>{_PIN}{table_html}</div>"
