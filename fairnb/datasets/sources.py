"""Data wherever a notebook runs: your folder, a checksum-verified download, or the embedded synthetic data.

``obtain(name)`` tries, in this order, and writes which one worked into ``data.info["origin"]``:

1. the folder you name (``data_dir=``, else ``$FAIRNB_DATA``), read by :func:`fairnb.datasets.load`;
2. a download of the public source files into the cache (``$FAIRNB_CACHE``, default ``~/.cache/fairnb``),
   each checked against its pinned SHA-256 (:data:`SOURCES`, fetched by :class:`fairnb.store.Remote`) before
   it is kept; a file already in the cache is checked and reused. ``download=False`` or
   ``$FAIRNB_DOWNLOAD=0`` skips this step;
3. the embedded synthetic census-like data (:func:`fairnb.datasets.make_synthetic`), whose
   discrimination against ``sex`` was planted on purpose.

``info["origin_kind"]`` is ``"folder"``, ``"download"`` or ``"synthetic"``; ``info["origin"]`` is one sentence
for a notebook to print.

Example
-------
>>> data = obtain("census", data_dir=False, download=False, synthetic_rows=500)
>>> data.info["origin_kind"], data.domain.protected_names
('synthetic', ('sex',))
"""
from __future__ import annotations

import urllib.request

from ..store import Remote, cache_dir, data_folder, downloads_allowed
from . import uci
from .benchmarks import _spec, load
from .synthetic import make_synthetic

_GITHUB = "https://raw.githubusercontent.com/"
_ADF = _GITHUB + "pxzhang94/ADF/master/datasets/"


def _uci(name: str) -> tuple[Remote, ...]:
    return tuple(Remote(uci.FILES[f][0], uci.FILES[f][1], f) for f in uci.DATASETS[name])


#: data set name -> the public files ``obtain`` downloads for it (the UCI originals for ``census`` and
#: ``german``, preprocessed by :mod:`fairnb.datasets.uci`; the ADF repository's files, byte-identical in
#: seven papers' repositories, for the ADF family)
SOURCES = {
    "census": _uci("adult"),
    "german": _uci("german"),
    "census_adf": (Remote(_ADF + "census", "1b0af967735d9b33e4ab9aea1c174eb5f8911df4334d3f9bd89418640f5b73b9",
                          "census_adf/census.csv"),),
    "credit_adf": (Remote(_ADF + "credit_sample", "93c2dd4d65375235b8cf7fae592d84eef2bf29a730b15b50c5581b420b301ab2",
                          "credit_adf/credit_sample.csv"),),
    "bank_adf": (Remote(_ADF + "bank", "31964c13cd7de50fe74af1ec7fb82920ad40c0748d18ae8fdb22f59cee0753b5",
                        "bank_adf/bank.csv"),),
}


def obtain(name: str, *, protected=None, data_dir=None, download: bool | None = None, synthetic_rows: int = 20_000,
           opener=urllib.request.urlopen):
    """The benchmark data set ``name`` from wherever it can be had (see the module docstring).

    ``protected``: the attributes to audit (names), applied to the real data; the synthetic stand-in
    protects those of them it has (``sex``, which census calls ``gender``, ``race``, ``age``; else ``sex``)
    and plants its discrimination on ``sex`` when protected, else on the first. ``data_dir=False`` skips the folder step even when
    ``$FAIRNB_DATA`` is set. ``opener`` replaces ``urllib.request.urlopen`` (tests).
    """
    spec = _spec(name)
    protected = [protected] if isinstance(protected, str) else protected
    failures = []
    folder = data_dir or data_folder() if data_dir is not False else None
    if folder:
        try:
            data = load(spec.name, data_dir=folder)
            return _found(data, protected, "folder", f"{spec.name}, read from the data folder {folder}")
        except (OSError, ValueError) as e:
            failures.append(f"data folder: {e}")
    if spec.name in SOURCES and downloads_allowed(download):
        cache = cache_dir()
        try:
            for remote in SOURCES[spec.name]:
                remote.fetch(cache, opener=opener)
            data = load(spec.name, data_dir=cache)
            urls = ", ".join(r.url for r in SOURCES[spec.name])
            return _found(data, protected, "download", f"{spec.name}, downloaded from {urls} (SHA-256 verified) "
                                                        f"and cached in {cache}")
        except (OSError, ValueError) as e:
            failures.append(f"download: {e}")
    elif spec.name in SOURCES:
        failures.append("download: switched off ($FAIRNB_DOWNLOAD=0 or download=False)")
    else:
        failures.append(f"download: no public source pinned for {spec.name}")
    return _synthetic(spec.name, protected, synthetic_rows, failures)


def _found(data, protected, kind: str, origin: str):
    if protected:
        data = data.with_protected(protected)
    data.info.update(origin_kind=kind, origin=origin)
    return data


_SYNTHETIC_NAMES = {"gender": "sex", "sex": "sex", "race": "race", "age": "age"}   # census name -> synthetic feature


def _synthetic(name: str, protected, rows: int, failures: list[str]):
    names = list(dict.fromkeys(_SYNTHETIC_NAMES[p] for p in protected or () if p in _SYNTHETIC_NAMES)) or ["sex"]
    planted = "sex" if "sex" in names else names[0]
    data = make_synthetic(n=rows, protected=planted, random_state=0).with_protected(names)
    reasons = "; ".join(failures) if failures else "no data folder"
    data.info.update(origin_kind="synthetic",
                     origin=f"SYNTHETIC census-like data standing in for {name} (protected {', '.join(names)}; "
                            f"discrimination against {planted} planted on purpose): {name} was not available ({reasons})")
    return data
