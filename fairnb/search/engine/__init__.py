"""The machinery every search method runs on: what a strategy yields and receives (``types``), what it sees
(``context``), the loop that checks its candidates under a budget (``loop``), the estimator a method subclasses
(``estimator``), and around them seed choice and fresh-seed rounds, the natural rate, memory-bounded sizes, shard
executors, progress displays and the notebook's kernel.

A method imports what it needs from here and its parts from ``fairnb.search.parts``; nothing here imports a
method or a part (``tests/test_layering.py``).
"""
