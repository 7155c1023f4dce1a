"""Warnings that point at the user's own line, not at fairnb's inside.

A warning raised deep in a search (a seed selection, a budget) names by default the line ``stacklevel`` frames
up, which is fairnb's own code whenever the call goes through a few layers: the reader sees
``fairnb/search/engine/estimator.py:335`` and a line of fairnb's. ``warn`` names the first frame outside the fairnb
package instead: the user's cell or script (on a background search's thread, where no such frame exists, the
outermost one).

Example
-------
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warn("careful")
>>> caught[0].filename.endswith("user_frame.py")
False
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

_PACKAGE = str(Path(__file__).resolve().parent)


def user_stacklevel() -> int:
    """The ``stacklevel`` (counted from the caller of this function) of the first frame outside fairnb."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the user's line (see the module docstring)."""
    warnings.warn(message, category, stacklevel=user_stacklevel())
