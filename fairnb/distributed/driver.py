"""One shard driver for every executor: plan the shards, submit them, merge their Results as they return.

``search.run(model, domain, seeds, executor=ex)`` with any ``concurrent.futures.Executor`` (a
``ThreadPoolExecutor``, a ``ProcessPoolExecutor``, ``ShardedExecutor(ex, n_shards=4)``, ...) comes here
(``fairnb.search.engine.executors``); a Dask client is one more executor on top of the same driver
(``fairnb.distributed.runner``: its model plugin and progress topic). The driver

* plans the shards (``plan.py``) and submits one task per shard (``shard.run_shard``) to its backend;
* tells the search's listeners the totals while the shards run: candidates tried by all shards (a
  returned shard's own counters, else its last progress message's) and the distinct pairs reported,
  so an input that two shards found counts once (none of them decreases, and the last event has the
  merged Result's counts); ``extras["shards"]`` of the live Result shows each shard's state;
* merges the Results of the shards that returned while the others run (``fairnb.results.merging``);
* on Stop (``search.stop()``, the panel's button, Ctrl-C, the time budget or ``max_found`` reached) tells
  every running shard to end after its current batch and cancels those not started (their seeds are listed
  in ``extras["not_run_seeds"]``), keeping what each returned;
* keeps the other shards' pairs when a shard fails: the merged Result's status is ``"failed"`` with the
  shard's error (``run`` raises it with the Result attached), and a shard lost with its worker (a killed
  process) is listed in ``extras["lost_shards"]`` / ``extras["lost_seeds"]`` with a warning.

A backend says how the driver uses an executor: its default number of shards, how the model travels, how
shards report and read Stop, how to submit and cancel (``pools.ExecutorBackend`` for every
``concurrent.futures.Executor``, ``runner.DaskBackend`` for a Dask client).

Example
-------
>>> from concurrent.futures import ThreadPoolExecutor
>>> import fairnb
>>> from fairnb.distributed.pools import ExecutorBackend
>>> from fairnb.search import RandomSearch
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> with ThreadPoolExecutor(2) as pool:
...     result = drive(ExecutorBackend(pool), RandomSearch(n_samples=900, random_state=0, progress=False),
...                    fairnb.models.wrap(data.info["true_model"]), data.domain, n_shards=3)
>>> result.tried, list(result.extras["shards"]["status"])
(900, ['completed', 'completed', 'completed'])
"""
from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd

from ..domains.base import CONVENTIONS
from ..results import Same, merge_results
from ..search.engine.types import Budget, Event
from ..user_frame import warn
from .plan import plan_shards
from .shard import key_hashes

STOP_TIMEOUT = 30.0     # seconds the driver waits for running shards to return after a stop
SHARD_GRACE = 1.0       # seconds past the time budget before the driver stops shards that have not ended


class ShardRun:
    """The driver's view of a sharded run while it goes on: ``result`` is the merged Result of the shards
    finished so far (what the listeners' events carry), ``elapsed`` the seconds since the run started."""

    def __init__(self, search, domain, shards, all_seeds, listeners):
        self.search, self.domain, self.shards, self.all_seeds = search, domain, shards, all_seeds
        self.listeners = tuple(listeners)
        self.parts: list = [None] * len(shards)
        self.state: list[str] = ["waiting"] * len(shards)   # waiting, running, done, failed, lost, not run
        self.latest: dict[int, dict] = {}
        self.offsets = [0.0] * len(shards)
        self.errors: dict[int, BaseException] = {}
        self.lock = threading.Lock()
        self.t0_wall, self._t0 = time.time(), time.perf_counter()
        self.result = self._merge()
        self.phase = ""
        self.stopping = False      # set when the driver stops the shards (cancelled ones were not run)
        self.merged: set[int] = set()   # the shards whose Results are in ``result``
        self.found_keys = {c: set() for c in CONVENTIONS}   # key hashes of every pair the shards reported

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self._t0

    def on_message(self, msg: dict) -> None:
        """A shard's progress message (``ShardReporter``), from any thread."""
        with self.lock:
            i = msg["shard"]
            self.latest[i] = msg
            self.offsets[i] = max(msg["started"] - self.t0_wall, 0.0)
            if self.state[i] == "waiting":
                self.state[i] = "running"
            self.phase = msg["phase"] or self.phase
            for c in CONVENTIONS:
                self.found_keys[c].update(np.frombuffer(msg[f"keys_{c}"], np.uint64).tolist())

    def _merge(self, limit=None, into=None) -> "Result":  # noqa: F821 - fairnb.results.Result
        s = self.search
        first_ids = [sh.first_id for sh in self.shards] if self.all_seeds is not None else None
        return merge_results(self.parts, self.domain, s.name, s.result_params(), offsets=self.offsets,
                             first_ids=first_ids, seeds=self.all_seeds, limit=limit, convention=s.dedup, into=into)

    def merge_returned(self) -> None:
        """Make ``result`` the merge of every shard returned so far (called while others still run, so that
        the merge overlaps their work, and once more at the end)."""
        with self.lock:
            returned = {i for i, p in enumerate(self.parts) if p is not None}
        if returned == self.merged:
            return
        merged = self._merge()
        with self.lock:
            merged.continue_timeline(self.result)
            self.result, self.merged = merged, returned

    def final(self, limit=None) -> "Result":  # noqa: F821
        """The merged Result of every shard that returned (``max_found``: at most ``limit`` unique IDIs)."""
        if limit is not None:
            return self._merge(limit=limit).continue_timeline(self.result)
        self.merge_returned()
        return self._merge(into=self.result)

    def finish_shard(self, i: int, future, lost) -> None:
        """Take in shard ``i``'s ended ``future``: its Result, or that it was cancelled, failed or lost
        (``lost(error)``: its worker went away)."""
        if future.cancelled():
            if not self.stopping:
                self.errors[i] = RuntimeError("the shard was cancelled")
            self.state[i] = "not run" if self.stopping else "lost"
            return
        error = future.exception()
        if error is not None:
            self.errors[i] = error
            self.state[i] = "lost" if lost(error) else "failed"
            return
        part = future.result().with_domain(self.domain)
        with self.lock:      # its pairs count at once, also those its last progress messages have not brought yet
            self.parts[i], self.state[i] = part, "done"
            for c in CONVENTIONS:
                self.found_keys[c].update(key_hashes(self.domain, part.inputs, c).tolist())

    def totals(self) -> dict:
        """``tried``, ``hits`` and unique IDIs (``eidig``, ``adf``) over all shards so far: the counters of the
        shards returned plus the last reported by those running, and the distinct keys of every pair reported
        (at most ``max_found`` in the search's convention). None of them decreases, and once every shard
        returned they are the merged Result's (``max_found`` in the search's convention only)."""
        out = {"tried": 0, "hits": 0}
        with self.lock:
            for i, part in enumerate(self.parts):     # a returned shard's own counters, else its last message's
                last = {k: getattr(part, k) for k in out} if part is not None else self.latest.get(i, {})
                for k in out:
                    out[k] += last.get(k, 0)
            out.update({c: len(self.found_keys[c]) for c in CONVENTIONS})
        cap = self.search.max_found
        if cap is not None:
            out[self.search.dedup] = min(out[self.search.dedup], cap)
        return out

    def emit(self, kind: str) -> None:
        """Tell the listeners the totals (the final Result's counts when ``kind`` is "done")."""
        r = self.result
        if kind == "done":
            now = {"tried": r.tried, "eidig": r.count("eidig"), "adf": r.count("adf")}
        else:
            now = self.totals()
            r.tried, r.hits = now["tried"], now["hits"]
            r.mark(self.elapsed, found=now["eidig"])
            r.extras["shards"] = self.shard_table()
        event = Event(kind, r.elapsed, now["tried"], now[self.search.dedup], now["adf"], self.phase, 0, r)
        for listen in self.listeners:
            listen(event)

    def shard_table(self) -> pd.DataFrame:
        """Each shard's state (waiting, running, done, failed, lost, not run), candidates tried and worker so far."""
        with self.lock:
            return pd.DataFrame([{"shard": i, "status": st, "tried": self.latest.get(i, {}).get("tried", 0),
                                  "worker": self.latest.get(i, {}).get("worker")} for i, st in enumerate(self.state)])

    def seeds_of(self, states) -> list[list[int]]:
        """``[first, last + 1)`` seed-index ranges of the shards in ``states`` (seeded shards only)."""
        return [[sh.first_id, sh.first_id + sh.n_seeds] for sh, st in zip(self.shards, self.state)
                if st in states and sh.seeds is not None]


def drive(backend, search, model, domain, seeds=None, *, n_shards=None, listeners=(), oracle=None,
          should_stop=lambda: False):
    """Run ``search`` in shards through ``backend`` (an ``ExecutorBackend``, or Dask's); returns the merged
    Result (see the module docstring)."""
    import uuid

    default = backend.default_shards()            # also: a Dask cluster without workers is refused here
    shards = plan_shards(search, seeds, default if n_shards is None else n_shards, should_stop, domain)
    all_seeds = None if shards is None or shards[0].seeds is None else np.concatenate([s.seeds for s in shards])
    run = ShardRun(search, domain, shards or [], all_seeds, listeners)
    run.emit("start")
    if shards is None:                              # stopped while the seeds were chosen
        return _finish(run, search, "stopped")
    futures, run_id = {}, uuid.uuid4().hex
    try:
        source, data, link = backend.start(run, model, domain, seeds)
        deadline = None if search.max_time in (None, float("inf")) else run.t0_wall + search.max_time
        params = search.get_params()
        for sh in shards:
            task = (type(search), params, data, sh, oracle, deadline, source, link)
            futures[backend.submit(task, sh.index, run_id)] = sh.index
        status = _drive(run, search, backend, futures, link, should_stop)
    finally:
        backend.close(list(futures))
    return _finish(run, search, status)


def _drive(run: ShardRun, search, backend, futures: dict, link, should_stop) -> str:
    """Wait for the shards, relaying progress, until all returned; returns the run's status so far."""
    pending, status, stopped_at = set(futures), "running", None
    # the shards end by themselves at the time budget, and each spends its part of max_tried: the driver
    # waits a little longer for the time, and counts the unique IDIs found over all shards
    late = None if search.max_time is None else search.max_time + SHARD_GRACE
    budget = Budget(max_time=late, max_found=search.max_found)
    while pending:
        try:
            backend.wait_any(pending, 0.1)
            link.poll()
            for f in [f for f in pending if f.done()]:
                pending.discard(f)
                run.finish_shard(futures[f], f, backend.lost)
            if pending and not run.stopping:       # merge what returned while the other shards run
                run.merge_returned()
            if stopped_at is None:
                reason = "stopped" if should_stop() else \
                    "budget" if budget.reached(run.elapsed, 0, run.totals()[search.dedup]) else None
                if reason:
                    status, stopped_at = reason, time.monotonic()
                    _stop_all(run, backend, futures, pending, link)
            elif time.monotonic() - stopped_at > STOP_TIMEOUT:   # a shard that does not return: give it up
                pending = _give_up(run, backend, futures, pending)
            run.emit("progress")
        except KeyboardInterrupt:
            if stopped_at is not None:                # a second Ctrl-C: stop waiting for the shards
                pending = _give_up(run, backend, futures, pending)
            else:
                status, stopped_at = "interrupted", time.monotonic()
                _stop_all(run, backend, futures, pending, link)
    return status


def _give_up(run: ShardRun, backend, futures: dict, pending: set) -> set:
    """Stop waiting for ``pending`` shards: cancel them; those that cannot be are not run, as far as this run knows."""
    keep = backend.give_up(pending)
    for f in pending - keep:
        run.state[futures[f]] = "not run"
    return keep


def _stop_all(run: ShardRun, backend, futures: dict, pending: set, link) -> None:
    """Tell running shards to end (they return their Results) and cancel those not started."""
    run.stopping = True
    link.stop()
    backend.cancel_waiting(run, futures, pending)


def _finish(run: ShardRun, search, status: str):
    """The final merged Result: status, why it ended, what failed or was lost."""
    r = run.final(limit=search.max_found)
    parts = [p for p in run.parts if p is not None]
    failed = [p.error for p in parts if p.status == "failed"] + \
        [run.errors[i] for i, st in enumerate(run.state) if st == "failed"]
    if status == "running":
        status = "failed" if failed else "budget" if any(p.status == "budget" for p in parts) else "completed"
    elif failed and status == "budget":
        status = "failed"
    r.status, r.elapsed = status, run.elapsed
    r.error = failed[0] if failed else None
    if status == "budget":         # the whole run's budget reached, by the engine's rule, else a shard's
        budget = Budget(search.max_time, search.max_tried, search.max_found)
        r.ended_by = budget.reached(r.elapsed, r.tried, r.count(search.dedup)) or \
            next((p.ended_by for p in parts if p.ended_by), None)
    r.mark(r.elapsed)
    lost = [i for i, st in enumerate(run.state) if st == "lost"]
    r.tally(workers=Same(len(set(m["worker"] for m in run.latest.values()))), n_shards=Same(len(run.shards)))
    r.extras.update(lost_shards=lost, lost_seeds=run.seeds_of(("lost",)),
                    failed_shards=[i for i, st in enumerate(run.state) if st == "failed"],
                    not_run_seeds=run.seeds_of(("not run", "waiting")))
    if lost:
        warn(f"{search.name}: {len(lost)} shard(s) were lost with their workers ({run.errors[lost[0]]!r}); "
             f"their seeds {r.extras['lost_seeds']} were not searched: run them again with seeds=...", RuntimeWarning)
    run.result = r
    run.emit("done")
    return r
