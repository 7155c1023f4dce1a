"""One shard of a sharded search, where the executor runs it: ``run_shard`` runs the search on its part with a
``ShardReporter`` that sends its counters and the hashes of the keys it found (``key_hashes``) to the driver and
ends the shard on Stop (``fairnb.distributed.driver``).
"""
from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd

from ..counting import hashable_keys
from ..domains.base import CONVENTIONS

REPORT_INTERVAL = 0.1   # seconds between two progress messages of a shard
STOP_POLL = 1.0         # seconds a shard's stop watcher waits on the stop flag before it looks whether the shard ended


class ShardReporter:
    """A shard's engine listener: sends its counters to the driver (``send``, at most every ``interval``
    seconds, and at start and end); a thread of its own waits on the run's ``stop`` flag (anything with
    ``wait(timeout)``) and ends the shard when it is set, so that the search's thread never waits for it
    (a Dask ``Event.is_set`` round trip took ~3 ms on a loaded machine: 3 % of a shard checking ten times
    a second). ``send`` or ``stop`` None: that way is closed."""

    def __init__(self, shard: int, search, send, stop, worker: str, interval: float = REPORT_INTERVAL):
        self.shard, self.search, self.send, self.stop, self.worker = shard, search, send, stop, worker
        self.interval, self.started = interval, time.time()
        self._last = float("-inf")
        self._sent = 0             # the shard's pairs whose keys were reported
        self._over = threading.Event()
        if stop is not None:
            threading.Thread(target=self._watch, name=f"fairnb-stop-{shard}", daemon=True).start()

    def _watch(self) -> None:
        while not self._over.is_set():
            try:
                stop = self.stop.wait(timeout=STOP_POLL)   # a long poll, not a busy loop
            except Exception:  # noqa: BLE001 - the driver's side went away (closed with the shard still returning)
                return
            if stop:
                while not self._over.wait(0.05):             # again until the shard ends: a search that had not
                    self.search.stop()                       # started yet makes a new stop flag when it starts
                return

    def close(self) -> None:
        """End the stop watcher (the shard returned)."""
        self._over.set()

    def __call__(self, event):
        now = time.monotonic()
        if self.send is None or (event.kind not in ("start", "done") and now - self._last < self.interval):
            return
        self._last = now
        r = event.result
        new = r.inputs_since(self._sent)
        self._sent += len(new)
        self.send({"shard": self.shard, "kind": event.kind, "tried": int(event.tried), "hits": int(r.hits),
                   "elapsed": float(event.elapsed), "phase": event.phase or "", "worker": self.worker,
                   "started": self.started,
                   **{f"keys_{c}": key_hashes(r.domain, new, c).tobytes() for c in CONVENTIONS}})


def run_shard(cls, params: dict, data, shard, oracle, deadline: float | None, source, link):
    """Where the executor runs it: one shard of a search; returns its Result (also a failed one, with its
    error). ``source()`` gives ``(model, domain)``, ``link.open()`` ``(send, stop, worker name)``."""
    params = {**params, **shard.params, "random_state": shard.stream, "progress": False}
    if deadline is not None:       # time budgets are wall-clock for the whole run
        params["max_time"] = max(deadline - time.time(), 1e-3)
    search = cls(**params)
    model, domain = source()
    reporter = ShardReporter(shard.index, search, *link.open())
    cpu = time.thread_time()
    try:
        result = search.run(model, domain, data, listeners=[reporter], oracle=oracle, selected_seeds=shard.seeds)
    except Exception as e:          # noqa: BLE001 - the model or the strategy failed: keep the partial Result
        if getattr(e, "result", None) is None:
            raise
        result = e.result
    finally:
        reporter.close()
    result.extras["shard_cpu_s"] = round(time.thread_time() - cpu, 3)   # CPU seconds of this shard's thread
    return result.with_domain(None)       # the driver has the domain (``ShardRun.finish_shard``)


def key_hashes(domain, X, convention: str) -> np.ndarray:
    """``(n,)`` uint64: a hash of each input's key under ``convention``, the same in every process, so that
    the driver counts the distinct pairs that the shards report: integer key rows by a linear hash with
    fixed random odd weights (one pass over the rows, whatever their width), other keys by pandas'
    fixed-key hash.

    >>> from fairnb.domains import Feature, TabularDomain
    >>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
    >>> h = key_hashes(dom, np.array([[0, 3], [1, 3]]), "adf"); bool(h[0] == h[1]), h.dtype
    (True, dtype('uint64'))
    """
    keys = domain.key(X, convention)
    if isinstance(keys, np.ndarray) and keys.ndim == 2 and keys.dtype.kind in "iub":
        weights = np.random.default_rng(keys.shape[1]).integers(1, 2**63, keys.shape[1], dtype=np.uint64)
        return (keys.astype(np.uint64) * (weights | np.uint64(1))).sum(axis=1, dtype=np.uint64)   # mod 2**64
    return pd.util.hash_pandas_object(pd.Series(hashable_keys(keys), dtype=object), index=False).to_numpy()
