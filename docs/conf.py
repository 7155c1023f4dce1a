"""Sphinx configuration of fairnb's documentation site (built by `make docs`, which stages README.md and the
tutorials next to these files first; see the Makefile)."""
from __future__ import annotations

import os
import re

project = "fairnb"
author = "fairnb contributors"
copyright = "fairnb contributors"

extensions = [
    "myst_nb",                 # Markdown pages and the tutorials, executed at build time
    "sphinx.ext.autodoc",      # the API reference from the docstrings
    "sphinx.ext.napoleon",     # their numpy-style sections (Parameters, Example)
]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md",   # README.md: included by index.md
                    "examples/MODEL_CARD.md"]   # included by examples/model_card.md (a card starts at its H2)

# `make docs` stages the tutorials as `make test-notebooks` executed them (smoke mode) and sets FAIRNB_DOCS_EXECUTE=off
# to show those outputs; run directly, Sphinx executes them itself and a failing cell fails the build
nb_execution_mode = os.environ.get("FAIRNB_DOCS_EXECUTE", "force")
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options: dict = {}
napoleon_numpy_docstring = True
napoleon_google_docstring = False

html_theme = "furo"
html_title = "fairnb"
# no network at build time: no intersphinx, and the Binder badge (a remote image) is linked, not fetched
suppress_warnings = ["image.nonlocal_uri"]


# Links are written for GitHub, where the README sits at the root, the pages in docs/ and the tutorials in notebooks/;
# `make docs` stages all three side by side (README.md and the pages at the root, the tutorials in tutorials/), so the
# same links are rewritten here for the site: README "docs/x.md" -> "x.md" and "notebooks/0x.ipynb" ->
# "tutorials/0x.ipynb"; a page's "../notebooks/0x.ipynb" -> "tutorials/0x.ipynb"; a tutorial's "../docs/x.md" -> "../x.md".
_LINK = r"(\]\()"


def site_links(text: str, docname: str) -> str:
    """``text`` of ``docname`` (``README``, ``tutorials/01_...``, or a page) with its GitHub links made site links.

    >>> site_links("[g](docs/glossary.md) [t](notebooks/01_a.ipynb)", "README")
    '[g](glossary.md) [t](tutorials/01_a.ipynb)'
    >>> site_links("[g](../docs/glossary.md#idi)", "tutorials/01_a")
    '[g](../glossary.md#idi)'
    >>> site_links("[t](../notebooks/04_b.ipynb)", "text")
    '[t](tutorials/04_b.ipynb)'
    """
    if docname == "README":
        text = re.sub(_LINK + r"docs/", r"\1", text)
        return re.sub(_LINK + r"notebooks/(0)", r"\1tutorials/\2", text)
    if docname.startswith("tutorials/"):
        return re.sub(_LINK + r"\.\./docs/", r"\1../", text)
    return re.sub(_LINK + r"\.\./notebooks/(0)", r"\1tutorials/\2", text)


def _source_read(app, docname, source):
    source[0] = site_links(source[0], docname)


def _include_read(app, relative_path, parent_docname, content):
    if str(relative_path) == "README.md":
        content[0] = site_links(content[0], "README")


def setup(app):
    app.connect("source-read", _source_read)
    app.connect("include-read", _include_read)
