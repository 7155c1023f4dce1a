"""WordNet 3.0 through nltk, offline, from the Debian/Ubuntu packages; synonyms of a vocabulary, cached.

Setup (once per machine): ``apt-get install wordnet-base wordnet-sense-index`` (Binder: ``binder/apt.txt``),
then :func:`install_wordnet` copies ``/usr/share/wordnet`` into an nltk data folder and writes the
``lexnames`` file Debian lacks. nltk >= 3.10 only reads corpora under its data folders and refuses
symlinks that lead elsewhere, hence the copy. On a machine with internet, ``nltk.download("wordnet")``
works as well.

Loading WordNet takes 3-15 s, so :func:`wordnet_synonyms` computes the synonyms of a whole vocabulary
once and caches them as JSON (:func:`~fairnb.text.resources.text_cache_dir`).

Example
-------
>>> install_wordnet("/no/such/folder", "/tmp/nltk")
Traceback (most recent call last):
...
fairnb.text.resources.ResourceMissingError: WordNet is not at '/no/such/folder': install it with `apt-get install wordnet-base wordnet-sense-index` (Debian/Ubuntu), or pass the folder holding data.noun, index.sense, ... as source
"""
from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

from ..store import cache_key, write_whole
from .resources import ResourceMissingError, require, text_cache_dir
from .vocabulary import OOV, PAD

_REQUIRED = ("data.noun", "data.verb", "data.adj", "data.adv", "index.noun", "index.verb", "index.adj",
             "index.adv", "index.sense")
_LEXNAMES = ("adj.all 3, adj.pert 3, adv.all 4, noun.Tops 1, noun.act 1, noun.animal 1, noun.artifact 1, "
             "noun.attribute 1, noun.body 1, noun.cognition 1, noun.communication 1, noun.event 1, noun.feeling 1, "
             "noun.food 1, noun.group 1, noun.location 1, noun.motive 1, noun.object 1, noun.person 1, "
             "noun.phenomenon 1, noun.plant 1, noun.possession 1, noun.process 1, noun.quantity 1, "
             "noun.relation 1, noun.shape 1, noun.state 1, noun.substance 1, noun.time 1, verb.body 2, "
             "verb.change 2, verb.cognition 2, verb.communication 2, verb.competition 2, verb.consumption 2, "
             "verb.contact 2, verb.creation 2, verb.emotion 2, verb.motion 2, verb.perception 2, "
             "verb.possession 2, verb.social 2, verb.stative 2, verb.weather 2, adj.ppl 3").split(", ")
_FIX = ("run fairnb.text.setup_text_resources() (after `apt-get install wordnet-base wordnet-sense-index`), "
        "or nltk.download('wordnet') with internet")


def _default_target() -> Path:
    return Path(os.environ.get("NLTK_DATA", "").split(os.pathsep)[0] or Path(sys.prefix) / "share" / "nltk_data")


def _search_path(nltk_data) -> list[Path]:
    nltk = require("nltk")
    if nltk_data is not None and str(nltk_data) not in nltk.data.path:
        nltk.data.path.insert(0, str(nltk_data))     # nltk only reads corpora under its data folders
    return [Path(p) for p in nltk.data.path]


def wordnet_root(nltk_data=None) -> Path | None:
    """The ``corpora/wordnet`` folder nltk will read (``nltk_data`` is searched first), or ``None``."""
    for base in _search_path(nltk_data):
        root = base / "corpora" / "wordnet"
        if all((root / f).is_file() for f in (*_REQUIRED, "lexnames")):
            return root
    return None


def install_wordnet(source="/usr/share/wordnet", nltk_data=None) -> Path:
    """Copy WordNet from ``source`` into ``<nltk_data>/corpora/wordnet`` and write ``lexnames``.

    ``nltk_data`` defaults to ``$NLTK_DATA`` or ``<sys.prefix>/share/nltk_data`` (both searched by nltk).
    Returns the corpus folder.
    """
    source = Path(source).expanduser()
    if not all((source / f).is_file() for f in _REQUIRED):
        raise ResourceMissingError(
            f"WordNet is not at {str(source)!r}: install it with `apt-get install wordnet-base wordnet-sense-index` "
            "(Debian/Ubuntu), or pass the folder holding data.noun, index.sense, ... as source")
    target = Path(nltk_data).expanduser() if nltk_data is not None else _default_target()
    root = target / "corpora" / "wordnet"
    root.mkdir(parents=True, exist_ok=True)
    for f in source.iterdir():
        if f.is_file():      # a copy (nltk refuses symlinks out of its folders), renamed into place whole
            write_whole(root / f.name, lambda tmp, f=f: shutil.copyfile(f, tmp))
    lexnames = "".join(f"{i:02d}\t{name.replace(' ', chr(9))}\n" for i, name in enumerate(_LEXNAMES))
    write_whole(root / "lexnames", lambda tmp: tmp.write_text(lexnames))
    return root


def load_wordnet(nltk_data=None):
    """nltk's WordNet corpus reader (takes seconds); :class:`ResourceMissingError` says how to install it."""
    root = wordnet_root(nltk_data)
    if root is None:
        raise ResourceMissingError(f"WordNet for nltk is not installed: {_FIX}")
    import warnings

    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    with warnings.catch_warnings():     # "multilingual functions are not available": no OMW here, none needed
        warnings.simplefilter("ignore", UserWarning)
        return WordNetCorpusReader(str(root), None)


def wordnet_synonyms(tokens: Iterable[str], *, cache_dir=None, nltk_data=None,
                     use_cache: bool = True) -> dict[str, list[str]]:
    """``{token: its WordNet synonyms}`` for every token with at least one.

    Synonyms are the lemma names of all synsets of the token (every part of speech), lowercase, one word
    only (multi-word lemmas cannot be a 1-token swap), without the token itself, in WordNet's order.
    Cached per token list under ``cache_dir``.
    """
    tokens = [t for t in dict.fromkeys(tokens) if t not in (PAD, OOV)]
    path = text_cache_dir(cache_dir) / f"wordnet-synonyms-{cache_key('wordnet-3.0', tokens)}.json"
    if use_cache and path.is_file():
        return json.loads(path.read_text())
    wn = load_wordnet(nltk_data)
    out = {}
    for tok in tokens:
        names = (lemma.lower() for syn in wn.synsets(tok) for lemma in syn.lemma_names())
        syns = [n for n in dict.fromkeys(names) if n != tok and "_" not in n]
        if syns:
            out[tok] = syns
    if use_cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, lambda tmp: tmp.write_text(json.dumps(out)))
    return out
