"""Sphinx configuration of fairnb's documentation site (built by `make docs`, which stages README.md and the
tutorials next to these files first; see the Makefile)."""
from __future__ import annotations

import os

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
exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md"]   # README.md: included by index.md

# the tutorials run in smoke mode (FAIRNB_SMOKE=1, set by `make docs`); a failing cell fails the build
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
