"""Bytes a kept pair costs (issue #26): GRFT on peer_harness's decision tree of Adult, the process's resident memory
sampled while it runs.

GRFT finds millions of pairs a minute on that tree and its Result keeps each one, so what a pair costs decides how
long a search can run before it fills the machine. Reported: the unique IDIs kept, ``Result.nbytes`` per pair (its
pairs, unique counters and distinct-input tallies), and the growth of the resident memory over the process's
before the search, at its peak and at the end, per pair; pairs per GB is pairs over the peak growth.

Usage (DIR: a clone of toda-lab/AFT, for its Adult.csv; the tree is trained here by peer_harness's seeded recipe):

    python benchmarks/result_memory.py --artifact DIR --budget 30
"""
from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peer_harness import LoadSampler, load_here  # noqa: E402


def resident_bytes() -> int:
    """This process's resident memory (Linux)."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4096


class PeakSampler:
    """The highest ``resident_bytes()`` seen every ``every`` seconds while the block runs."""

    def __init__(self, every: float = 0.1):
        self.every, self.peak, self._stop = every, 0, threading.Event()

    def __enter__(self):
        self.peak = resident_bytes()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(self.every):
            self.peak = max(self.peak, resident_bytes())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, resident_bytes())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--artifact", required=True, type=Path)
    p.add_argument("--budget", type=float, default=30)
    args = p.parse_args(argv)

    from fairnb.domains import Feature, TabularDomain
    from fairnb.search.methods.grft import GRFT

    frame = pd.read_csv(args.artifact / "Datasets" / "Adult.csv")
    data = frame.values[:, :-1].astype(float)
    lower, upper = data.min(axis=0), data.max(axis=0)
    model = load_here(args.artifact / "FairnessTestCases" / "DecTreeRebuiltAdult.joblib", "DecTreeRebuilt")
    domain = TabularDomain([Feature(n, int(lo), int(hi)) for n, lo, hi in zip(frame.columns[:-1], lower, upper)],
                           protected=["sex"])
    before = resident_bytes()
    cpu = time.process_time()
    with LoadSampler() as load, PeakSampler() as memory:
        result = GRFT(max_time=args.budget, random_state=0, progress=False).run(model, domain, seeds=data)
    n = result.count()
    print(f"GRFT, {args.budget:g} s budget: {n:,} unique IDIs in {result.elapsed:.1f} s "
          f"({time.process_time() - cpu:.1f} CPU s, load {load.summary()['load_mean']:.1f}), status {result.status}")
    nbytes = getattr(result, "nbytes", float("nan"))     # NaN: a fairnb from before Result.nbytes
    print(f"Result.nbytes {nbytes / n:.0f} B a pair; resident growth {(memory.peak - before) / n:.0f} B a pair "
          f"at the peak ({(memory.peak - before) / 1e9:.2f} GB), {(resident_bytes() - before) / n:.0f} at the end; "
          f"{n / ((memory.peak - before) / 1e9):,.0f} pairs per GB")


if __name__ == "__main__":
    main()
