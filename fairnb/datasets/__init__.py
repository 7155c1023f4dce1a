"""Datasets: the embedded synthetic default and the benchmark data sets.

>>> from fairnb.datasets import make_synthetic
>>> make_synthetic(n=100)
Dataset('synthetic', 100 rows, 7 features, protected=['sex'])
"""
from . import uci
from .base import Dataset
from .benchmarks import adf_sens_param_to_index, available, load
from .synthetic import make_synthetic

__all__ = ["Dataset", "make_synthetic", "load", "available", "adf_sens_param_to_index", "uci"]
