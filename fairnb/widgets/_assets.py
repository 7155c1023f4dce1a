"""The bundled front ends (``fairnb/static``, built from ``js/``) and the widget base class.

A widget names its front end as a path, ``_esm = STATIC / "pair_inspector.js"``; its text is read when the
class is defined (with ``ANYWIDGET_HMR=1``, while you edit ``js/``, anywidget reloads it on change instead).
When the bundle is not built, the class is still defined and creating a widget says how to build it.

>>> STATIC.name
'static'
"""
from __future__ import annotations

import html
import os
from pathlib import Path

import anywidget
import traitlets

from .. import summaries

STATIC = Path(__file__).resolve().parent.parent / "static"
CSS = STATIC / "fairnb.css"


def not_built(path: Path) -> FileNotFoundError:
    """The error for a front-end file that is not built, saying how to build it."""
    return FileNotFoundError(
        f"fairnb's widget front end {path.name} is not built (looked in {path.parent}); "
        "run `cd js && npm ci && npm run build`, or install fairnb with `pip install .`")


class FairnbWidget(anywidget.AnyWidget):
    """An anywidget whose ES module (``_esm``, a ``Path`` in ``fairnb/static``) and the shared CSS are
    read when the subclass is defined.

    Keyword arguments set the widget's public traits; any other name is refused (``TypeError``), where
    traitlets would only warn and ignore it.
    """

    _missing: tuple[Path, ...] = ()      # front-end files that were not built when the class was defined
    _glossary_keys: tuple[str, ...] = ()  # the words the widget explains (``fairnb.summaries.TERMS`` keys)
    # each word's one-line definition and glossary link: the front end's tooltips and "?" links
    glossary = traitlets.Dict().tag(sync=True)

    def __init_subclass__(cls, **kwargs):
        esm = cls.__dict__.get("_esm")
        if isinstance(esm, Path):
            css = cls.__dict__.get("_css", CSS)      # a widget may bring a stylesheet that includes fairnb.css
            cls._missing = tuple(p for p in (esm, css) if not p.is_file())
            if cls._missing:
                del cls._esm             # anywidget would refuse to define the class
                if "_css" in cls.__dict__:
                    del cls._css
            else:
                cls._css = css
        super().__init_subclass__(**kwargs)      # anywidget: a path becomes a FileContents
        if os.environ.get("ANYWIDGET_HMR") != "1":
            # anywidget connects every widget of a FileContents class to the file's change signal, strongly and
            # for ever: a closed inspector kept its Result, images and models for the kernel's life. As text,
            # nothing is connected.
            # (ipywidgets' add_traits defines a subclass whose _esm and _css are traits: those stay)
            for key in ("_esm", "_css"):
                value = cls.__dict__.get(key)
                if value is not None and not isinstance(value, (str, traitlets.TraitType)):
                    setattr(cls, key, str(value))

    def __init__(self, **traits):
        if self._missing:
            raise not_built(self._missing[0])
        valid = sorted(n for n in self.class_trait_names(sync=True) if not n.startswith("_"))
        unknown = sorted(set(traits) - set(valid))
        if unknown:
            raise TypeError(f"{type(self).__name__} got unexpected keyword argument(s) "
                            f"{', '.join(map(repr, unknown))}; valid: {', '.join(valid)}")
        super().__init__(**{"glossary": summaries.glossary(self._glossary_keys), **traits})

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
