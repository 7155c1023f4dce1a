"""User text in matplotlib figures, shown as written.

Matplotlib reads text between two ``$`` as mathtext, so a label such as ``under_$50k or over_$50k``
is garbled or raises ``ValueError``. ``plot_text`` escapes the ``$`` signs of any text that comes
from the user (labels, rule sets, method names) before it reaches a figure.

>>> plot_text("income = under_$50k")
'income = under_\\\\$50k'
"""
from __future__ import annotations


def plot_text(text) -> str:
    """``text`` as a string that matplotlib draws literally (``$`` escaped)."""
    return str(text).replace("$", r"\$")
