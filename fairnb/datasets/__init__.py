"""Datasets: the embedded synthetic default and the benchmark data sets.

>>> from fairnb.datasets import make_synthetic
>>> make_synthetic(n=100)
Dataset('synthetic', 100 rows, 7 features, protected=['sex'])
"""
from .base import Dataset
from .synthetic import make_synthetic

__all__ = ["Dataset", "make_synthetic"]
