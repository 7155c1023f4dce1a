"""Datasets: the embedded synthetic default and the benchmark data sets.

``from_frame(df, label=..., protected=...)`` and ``from_csv(path, ...)`` turn your own table into a
Dataset; ``load(name, data_dir)`` reads a benchmark data set (``available()`` lists them) from a folder you
name or ``$FAIRNB_DATA``; ``uci`` downloads and preprocesses the raw UCI Adult and German files; ``obtain(name)`` takes a data set from
wherever it can be had (your folder, a verified download, else the synthetic stand-in) and says which.

>>> from fairnb.datasets import make_synthetic
>>> make_synthetic(n=100)
Dataset('synthetic', 100 rows, 7 features, protected=['sex'])
>>> available()[:3]
['census', 'german', 'bank']
"""
from . import uci
from .base import Dataset
from .sources import obtain
from .benchmarks import adf_sens_param_to_index, available, load
from .synthetic import make_synthetic
from .tables import from_csv, from_frame
from ..images.faces import make_faces      # images live in fairnb.images; the rendered faces are listed here too

__all__ = ["Dataset", "from_frame", "from_csv", "make_synthetic", "make_faces", "load", "available",
           "adf_sens_param_to_index", "uci", "obtain"]
