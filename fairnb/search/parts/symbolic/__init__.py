"""The parts of symbolic generation (SG): a LIME-style sampler, decision-tree paths as constraints,
a z3 solver for them and SG's priority queue.

>>> from fairnb.search.parts.symbolic import Predicate
>>> Predicate(0, "<=", 3.5, 0.8).negated().op
'>'
"""
from __future__ import annotations

from .constraints import Predicate, box, global_constraints, local_constraints, rank, tree_path
from .queue import PriorityQueue
from .sampler import LimeSampler
from .solver import Z3Solver

__all__ = ["Predicate", "box", "global_constraints", "local_constraints", "rank", "tree_path", "PriorityQueue",
           "LimeSampler", "Z3Solver"]
