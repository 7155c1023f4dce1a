"""SG's priority queue: the largest key first, first-in-first-out among equal keys.

Python's ``heapq`` with ``(key, item)`` pairs would break ties by comparing the items (the input
vectors), which scrambles the round-robin order of the seeds; a counter keeps ties in insertion
order.

>>> q = PriorityQueue()
>>> for key, item in [(5, "seed a"), (1.4, "global"), (9.2, "local"), (5, "seed b")]:
...     q.push(key, item)
>>> q.peek()
'local'
>>> [q.pop() for _ in range(len(q))]
['local', 'seed a', 'seed b', 'global']
"""
from __future__ import annotations

import heapq
import itertools


class PriorityQueue:
    """Max-priority queue with FIFO ties."""

    def __init__(self):
        self._heap: list = []
        self._counter = itertools.count()

    def push(self, key: float, item):
        heapq.heappush(self._heap, (-float(key), next(self._counter), item))

    def peek(self):
        """The item ``pop`` would return, left in the queue; ``IndexError`` when empty."""
        return self._heap[0][2]

    def pop(self):
        """The item with the largest key (the earliest pushed among equals); ``IndexError`` when empty."""
        return heapq.heappop(self._heap)[2]

    def __len__(self):
        return len(self._heap)
