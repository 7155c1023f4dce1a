"""The published EIDIG/MAFT models, wherever a notebook runs.

``obtain_published(name, data)`` returns ``(model, origin)``, trying in this order:

1. ``models_dir=`` (else ``$FAIRNB_MODELS``): the ``.h5`` file there, if its SHA-256 is the pinned one;
2. a download into the cache (``$FAIRNB_CACHE/models``), kept only if its SHA-256 is the pinned one
   (``download=False`` or ``$FAIRNB_DOWNLOAD=0`` skips it);
3. the same architecture (:data:`PUBLISHED`: dense ReLU layers, one sigmoid output) trained on ``data``'s
   training split with scikit-learn, as a white-box :class:`~fairnb.models.NumpyMLP` (no TensorFlow).

A published model only fits the data it was trained on: when ``data`` is not that data set (e.g. the
synthetic stand-in of :func:`fairnb.datasets.obtain`), step 3 is taken at once. ``origin`` is one sentence
for a notebook to print.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=500)
>>> model, origin = obtain_published("census", data, epochs=5)
>>> model.layer_sizes, origin.startswith("trained here")
([30, 20, 15, 15, 10, 1], True)
"""
from __future__ import annotations

import urllib.request
from dataclasses import dataclass
from pathlib import Path

from ..store import Remote, cache_dir, downloads_allowed, models_folder, verify_sha256
from .keras import load_keras_model
from .training import train_demo_model

_EIDIG = "https://raw.githubusercontent.com/LingfengZhang98/EIDIG/"


@dataclass(frozen=True)
class Published:
    """One published model: its file, the data set it was trained on, its layers and training epochs."""

    remote: Remote
    dataset: str
    hidden: tuple[int, ...]
    epochs: int

    @property
    def file(self) -> str:
        return Path(self.remote.path).name


def _eidig(commit: str, file: str, sha256: str) -> Remote:
    return Remote(f"{_EIDIG}{commit}/models/original_models/{file}", sha256, f"models/{file}")


#: name -> the published EIDIG model (also used by MAFT); architectures read from the files, epochs from
#: EIDIG's training scripts (optimiser nadam there, scikit-learn's adam here when trained offline)
PUBLISHED = {
    "census": Published(_eidig("0134c129325169be3beeb3fc835db967f8838ea6", "adult_model.h5",
                               "3ed1bed7e55698d17bb38e59ae82ac152654d9d5be818d0ee7cb10c56c84ea79"),
                        "census", (30, 20, 15, 15, 10), 30),
    "german": Published(_eidig("d85dc5d47c84b8b305a91e4b59b90a6f1d188333", "german_model.h5",
                               "835953d1c7083c4d73a908fb94ad17ed8f887a020d78f7fd2a258ed5df5b4534"),
                        "german", (50, 30, 15, 10, 5), 20),
    "bank": Published(_eidig("d85dc5d47c84b8b305a91e4b59b90a6f1d188333", "bank_model.h5",
                             "a01e7c7ae15ed02d374062f16cb3a11de995d26e2a5a1ea9a47577972cbe4c9c"),
                      "bank", (30, 20, 15, 15, 10), 30),
}


def pinned_sha256(path, folder=None) -> str | None:
    """The pinned SHA-256 of the published model file ``path``, when it lies in the model folder ``folder``
    (default ``$FAIRNB_MODELS``) under a published name; else ``None`` (a file of that name elsewhere may be
    the user's own, e.g. retrained with EIDIG's scripts, which save ``adult_model.h5``).

    >>> pinned_sha256("my/own/adult_model.h5", folder="course/models") is None
    True
    >>> pinned_sha256("course/models/adult_model.h5", folder="course/models")[:12]
    '3ed1bed7e556'
    """
    folder = models_folder() if folder is None else Path(folder).expanduser()
    path = Path(path).expanduser()
    if folder is None or path.parent.resolve() != Path(folder).resolve():
        return None
    spec = _published_file(path.name)
    return None if spec is None else spec.remote.sha256


def _published_file(name: str) -> Published | None:
    return next((spec for spec in PUBLISHED.values() if spec.file == name), None)


def obtain_published(name: str, data, *, models_dir=None, download: bool | None = None, epochs: int | None = None,
                     opener=urllib.request.urlopen):
    """``(model, origin)``: the published model ``name`` for ``data`` (see the module docstring).

    ``epochs`` caps the training of step 3 (default: the paper's); ``models_dir=False`` skips step 1.
    """
    if name not in PUBLISHED:
        raise ValueError(f"unknown published model {name!r}; choose from {sorted(PUBLISHED)}")
    spec = PUBLISHED[name]
    failures = []
    if data.name != spec.dataset:
        failures.append(f"the data is {data.name!r}, not {spec.dataset!r}, which the published model was trained on")
    else:
        folder = models_folder() if models_dir is None else models_dir or None
        if folder:
            path = Path(folder).expanduser() / spec.file
            try:
                return load_published(path), f"the published {spec.file}, read from the model folder {folder}"
            except (OSError, ValueError) as e:
                failures.append(f"model folder: {e}")
        if downloads_allowed(download):
            try:
                path = spec.remote.fetch(cache_dir(), opener=opener)
                return load_keras_model(path), (f"the published {spec.file}, downloaded from {spec.remote.url} "
                                                f"(SHA-256 verified) and cached in {path.parent}")
            except (OSError, ValueError) as e:
                failures.append(f"download: {e}")
        else:
            failures.append("download: switched off ($FAIRNB_DOWNLOAD=0 or download=False)")
    return _train(spec, data, epochs, failures)


def load_published(path):
    """The published model file ``path`` (named ``adult_model.h5``, ...) as a ``NumpyMLP``, refused with a
    ``ValueError`` naming it unless its SHA-256 is the pinned one."""
    path = Path(path).expanduser()
    spec = _published_file(path.name)
    if spec is None:
        raise ValueError(f"{path.name} is not a published model's file name; they are "
                         f"{sorted(p.file for p in PUBLISHED.values())}")
    if not path.is_file():
        raise FileNotFoundError(f"model file {str(path)!r} not found")
    return load_keras_model(verify_sha256(path, spec.remote.sha256, f"the published {spec.file}"))


def _train(spec: Published, data, epochs: int | None, failures: list[str]):
    n = spec.epochs if epochs is None else int(epochs)
    model = train_demo_model(data, hidden=spec.hidden, max_iter=n, random_state=0)
    layers = "-".join(map(str, spec.hidden))
    return model, (f"trained here: the architecture of the published {spec.file} (dense {layers}, sigmoid output), "
                   f"{n} epochs on the training split of {data.name}, because the published file was not used "
                   f"({'; '.join(failures)})")
