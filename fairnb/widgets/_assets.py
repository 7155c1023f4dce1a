"""The bundled front ends (``fairnb/static``, built from ``js/``) and the widget base class.

>>> STATIC.name
'static'
"""
from __future__ import annotations

import html
from pathlib import Path

import anywidget
import traitlets

STATIC = Path(__file__).resolve().parent.parent / "static"


def asset(name: str) -> str:
    """The text of a built front-end file, or a FileNotFoundError saying how to build it."""
    path = STATIC / name
    if not path.is_file():
        raise FileNotFoundError(
            f"fairnb's widget front end {name} is not built (looked in {STATIC}); "
            "run `cd js && npm ci && npm run build`, or install fairnb with `pip install .`")
    return path.read_text(encoding="utf-8")


class FairnbWidget(anywidget.AnyWidget):
    """An anywidget whose ES module and CSS are read from ``fairnb/static`` when it is created.

    Keyword arguments set the widget's public traits; any other name is refused (``TypeError``), where
    traitlets would only warn and ignore it.
    """

    _esm_file = ""
    _esm = traitlets.Unicode().tag(sync=True)
    _css = traitlets.Unicode().tag(sync=True)

    def __init__(self, **traits):
        valid = sorted(n for n in self.class_trait_names(sync=True) if not n.startswith("_"))
        unknown = sorted(set(traits) - set(valid))
        if unknown:
            raise TypeError(f"{type(self).__name__} got unexpected keyword argument(s) "
                            f"{', '.join(map(repr, unknown))}; valid: {', '.join(valid)}")
        super().__init__(**traits)

    @traitlets.default("_esm")
    def _default_esm(self):
        return asset(self._esm_file)

    @traitlets.default("_css")
    def _default_css(self):
        return asset("fairnb.css")

    def _repr_mimebundle_(self, **kwargs):
        """The widget view, with a static ``text/html`` and ``text/plain`` beside it for places that
        show no widgets (exported HTML, GitHub previews, nbviewer)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle
        return {**data, "text/plain": repr(self), "text/html": self.static_html()}, metadata

    def static_html(self) -> str:
        """What the widget shows, as escaped HTML without scripts (subclasses say more)."""
        return f"<pre>{html.escape(repr(self))}</pre>"
