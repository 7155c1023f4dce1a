"""A search run in shards on a Dask cluster: the client side (``run_sharded``) and a shard (``run_shard``).

The client plans the shards (``plan.py``), ships the model once per worker (``shipping.py``), submits
one task per shard and merges what they return (``merge.py``). While they run, each shard publishes
its counters and a hash of the key of each pair found since its last message (``key_hashes``,
``get_worker().log_event``) at most ten times a second; the client receives them
(``Client.subscribe_topic``) and tells the search's listeners (the progress panel, tqdm) the cluster's
totals: candidates tried by all shards (a returned shard's own counters, else its last message's) and
the distinct pairs reported, so an input that two shards found counts once. None of them decreases,
and the last event has the merged Result's counts. The live Result's ``extras["shards"]`` shows each
shard's state.

Stop (``search.stop()``, the panel's button for a background run, Ctrl-C, the time budget reached or
``max_found`` reached) sets a cluster-wide ``distributed.Event``: every running shard ends after its
current batch and returns its Result; shards that had not started are cancelled (their seeds are
listed in ``extras["not_run_seeds"]``). A worker that dies takes its current shard with it: Dask runs
the shard again on another worker (up to ``distributed.scheduler.allowed-failures`` times; a shard's
stream is fixed, so it finds the same pairs), and a shard it gives up on is reported in
``extras["lost_shards"]`` and ``extras["lost_seeds"]`` (with a warning); the other shards' pairs are kept.
"""
from __future__ import annotations

import threading
import time
import uuid
import warnings

import numpy as np
import pandas as pd

from ..counting import hashable_keys
from ..domains.base import CONVENTIONS
from ..search.engine import Budget, Event
from ..results import Same, merge_results
from .plan import plan_shards
from .shipping import ModelPlugin, worker_model

REPORT_INTERVAL = 0.1   # seconds between two progress messages of a shard
STOP_POLL = 1.0         # seconds a shard's stop watcher waits on the stop event before it looks whether the shard ended
STOP_TIMEOUT = 30.0     # seconds the client waits for running shards to return after a stop
SHARD_GRACE = 1.0       # seconds past the time budget before the client stops shards that have not ended


class ShardReporter:
    """A shard's engine listener: publishes its counters to the client's topic (at most every ``interval``
    seconds, and at start and end); a thread of its own waits on the run's stop event and ends the shard
    when it is set, so that the search's thread never waits for the scheduler (an ``Event.is_set`` round
    trip took ~3 ms on a loaded machine: 3 % of a shard checking ten times a second)."""

    def __init__(self, shard: int, topic: str, stop_name: str, search, interval: float = REPORT_INTERVAL):
        from distributed import Event as StopEvent, get_client, get_worker

        self.shard, self.topic, self.search, self.interval = shard, topic, search, interval
        self.worker = get_worker()
        self.stop_event = StopEvent(stop_name, client=get_client())   # explicit: it is used from another thread
        self.started = time.time()
        self._last = float("-inf")
        self._sent = 0             # the shard's pairs whose keys were reported
        self._over = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name=f"fairnb-stop-{shard}", daemon=True)
        self._watcher.start()

    def _watch(self) -> None:
        while not self._over.is_set():
            try:
                stop = self.stop_event.wait(timeout=STOP_POLL)   # a long poll on the scheduler, not a busy loop
            except Exception:  # noqa: BLE001 - the cluster went away (closed with the shard still returning)
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
        if event.kind not in ("start", "done") and now - self._last < self.interval:
            return
        self._last = now
        r = event.result
        new = r.inputs_since(self._sent)
        self._sent += len(new)
        self.worker.log_event(self.topic, {
            "shard": self.shard, "kind": event.kind, "tried": int(event.tried), "hits": int(r.hits),
            "elapsed": float(event.elapsed), "phase": event.phase or "", "worker": self.worker.address,
            "started": self.started, **{f"keys_{c}": key_hashes(r.domain, new, c).tobytes() for c in CONVENTIONS}})


def run_shard(plugin_name: str, cls, params: dict, data, shard, topic: str, stop_name: str, oracle,
              deadline: float | None):
    """On a worker: run one shard of a search; returns its Result (also a failed one, with its error)."""
    params = {**params, **shard.params, "random_state": shard.stream, "progress": False}
    if deadline is not None:       # time budgets are wall-clock for the whole run
        params["max_time"] = max(deadline - time.time(), 1e-3)
    search = cls(**params)
    model, domain = worker_model(plugin_name)
    reporter = ShardReporter(shard.index, topic, stop_name, search)
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
    return result.with_domain(None)       # the client has the domain (``ClusterRun.finish_shard``)


class ClusterRun:
    """The client's view of a sharded run while it goes on: ``result`` is the merged Result of the shards
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
        self.stopping = False      # set when the client stops the shards (cancelled ones were not run)
        self.merged: set[int] = set()   # the shards whose Results are in ``result``
        self.found_keys = {c: set() for c in CONVENTIONS}   # key hashes of every pair the shards reported

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self._t0

    def on_message(self, event):
        """A shard's progress message (called on the client's event loop)."""
        _, msg = event
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
        return merge_results(self.parts, self.domain, s.name, s.result_params(), offsets=self.offsets,
                             first_ids=self._first_ids(), seeds=self.all_seeds, limit=limit, convention=s.dedup,
                             into=into)

    def _first_ids(self):
        return [sh.first_id for sh in self.shards] if self.all_seeds is not None else None

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

    def finish_shard(self, i: int, future) -> None:
        if future.status == "finished":
            part = future.result().with_domain(self.domain)
            with self.lock:      # its pairs count at once, also those its last progress messages have not brought yet
                self.parts[i], self.state[i] = part, "done"
                for c in CONVENTIONS:
                    self.found_keys[c].update(key_hashes(self.domain, part.inputs, c).tolist())
        elif future.status == "cancelled" and self.stopping:
            self.state[i] = "not run"
        else:                      # its worker died (KilledWorker), or the cluster cancelled it
            self.errors[i] = future.exception() if future.status == "error" else RuntimeError(future.status)
            self.state[i] = "lost"

    def totals(self) -> dict:
        """``tried``, ``hits`` and unique IDIs (``eidig``, ``adf``) over the cluster so far: the counters of the
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
        """Tell the listeners the cluster's totals (the final Result's counts when ``kind`` is "done")."""
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
        """Each shard's state (waiting, running, done, lost, not run), candidates tried and worker so far."""
        with self.lock:
            return pd.DataFrame([{"shard": i, "status": st, "tried": self.latest.get(i, {}).get("tried", 0),
                                  "worker": self.latest.get(i, {}).get("worker")} for i, st in enumerate(self.state)])

    def seeds_of(self, states) -> list[list[int]]:
        """``[first, last + 1)`` seed-index ranges of the shards in ``states`` (seeded shards only)."""
        return [[sh.first_id, sh.first_id + sh.n_seeds] for sh, st in zip(self.shards, self.state)
                if st in states and sh.seeds is not None]


def run_sharded(search, model, domain, seeds=None, *, client, n_shards=None, listeners=(), oracle=None,
                should_stop=lambda: False):
    """Run ``search`` in shards on ``client``'s cluster (see the module docstring); returns the merged Result.

    The executor of ``search.run(..., client=client)`` for a Dask client (``fairnb.search.executors``):
    ``model`` wrapped and ``seeds`` validated by the search, ``listeners`` told the cluster's totals,
    ``should_stop()`` polled to end every shard."""
    from distributed import Event as StopEvent

    threads = sum(client.nthreads().values())
    if threads < 1:
        raise ValueError("client: the Dask cluster has no workers; start some (fairnb.distributed.local_cluster)")
    shards = plan_shards(search, seeds, threads if n_shards is None else n_shards, should_stop, domain)
    all_seeds = None if shards is None or shards[0].seeds is None else np.concatenate([s.seeds for s in shards])
    run = ClusterRun(search, domain, shards or [], all_seeds, listeners)
    run.emit("start")
    if shards is None:                              # stopped while the seeds were chosen
        return _finish(run, search, "stopped")
    run_id = uuid.uuid4().hex
    topic, stop_name = f"fairnb-progress-{run_id}", f"fairnb-stop-{run_id}"
    stop = StopEvent(stop_name, client=client)
    plugin = ModelPlugin(model, domain)
    client.register_plugin(plugin)
    client.subscribe_topic(topic, run.on_message)
    futures = {}
    try:
        data = client.scatter(seeds, broadcast=True, hash=False) if seeds is not None else None
        deadline = None if search.max_time in (None, float("inf")) else run.t0_wall + search.max_time
        params = search.get_params()
        wake = threading.Event()
        for sh in shards:
            f = client.submit(run_shard, plugin.name, type(search), params, data, sh, topic, stop_name,
                              oracle, deadline, key=f"fairnb-shard-{sh.index}-{run_id}", pure=False)
            f.add_done_callback(lambda _: wake.set())
            futures[f] = sh.index
        status = _drive(run, search, client, futures, stop, wake, should_stop)
    finally:
        client.unsubscribe_topic(topic)
        client.unregister_worker_plugin(plugin.name)
        client.cancel(list(futures))
    return _finish(run, search, status)


def _drive(run: ClusterRun, search, client, futures: dict, stop, wake: threading.Event, should_stop) -> str:
    """Wait for the shards, relaying progress, until all returned; returns the run's status so far."""
    pending, status, stopped_at = set(futures), "running", None
    # the shards end by themselves at the time budget, and each spends its part of max_tried: the client
    # waits a little longer for the time, and counts the unique IDIs found over the cluster
    late = None if search.max_time is None else search.max_time + SHARD_GRACE
    budget = Budget(max_time=late, max_found=search.max_found)
    while pending:
        try:
            wake.wait(0.1)
            wake.clear()
            for f in [f for f in pending if f.done()]:
                pending.discard(f)
                run.finish_shard(futures[f], f)
            if pending and not run.stopping:       # merge what returned while the other shards run
                run.merge_returned()
            if stopped_at is None:
                reason = "stopped" if should_stop() else \
                    "budget" if budget.reached(run.elapsed, 0, run.totals()[search.dedup]) else None
                if reason:
                    status, stopped_at = reason, time.monotonic()
                    _stop_all(run, client, futures, pending, stop)
            elif time.monotonic() - stopped_at > STOP_TIMEOUT:   # a shard that does not return: give it up
                client.cancel(list(pending))
            run.emit("progress")
        except KeyboardInterrupt:
            if stopped_at is not None:                # a second Ctrl-C: stop waiting for the shards
                client.cancel(list(pending))
            else:
                status, stopped_at = "interrupted", time.monotonic()
                _stop_all(run, client, futures, pending, stop)
    return status


def _stop_all(run: ClusterRun, client, futures: dict, pending: set, stop) -> None:
    """Tell running shards to end (they return their Results) and cancel those not started."""
    run.stopping = True
    stop.set()
    with run.lock:
        waiting = [f for f in pending if run.state[futures[f]] == "waiting"]
    client.cancel(waiting)


def _finish(run: ClusterRun, search, status: str):
    """The final merged Result: status, why it ended, what was lost."""
    r = run.final(limit=search.max_found)
    parts = [p for p in run.parts if p is not None]
    failed = [p for p in parts if p.status == "failed"]
    if status == "running":
        status = "failed" if failed else "budget" if any(p.status == "budget" for p in parts) else "completed"
    elif failed and status == "budget":
        status = "failed"
    r.status, r.elapsed = status, run.elapsed
    r.error = failed[0].error if failed else None
    if status == "budget":         # the whole run's budget reached, by the engine's rule, else a shard's
        budget = Budget(search.max_time, search.max_tried, search.max_found)
        r.ended_by = budget.reached(r.elapsed, r.tried, r.count(search.dedup)) or \
            next((p.ended_by for p in parts if p.ended_by), None)
    r.mark(r.elapsed)
    lost = [i for i, st in enumerate(run.state) if st == "lost"]
    r.tally(workers=Same(len(set(m["worker"] for m in run.latest.values()))), n_shards=Same(len(run.shards)))
    r.extras.update(lost_shards=lost, lost_seeds=run.seeds_of(("lost",)),
                    not_run_seeds=run.seeds_of(("not run", "waiting")))
    if lost:
        warnings.warn(f"{search.name}: {len(lost)} shard(s) were lost with their workers ({run.errors[lost[0]]!r}); "
                      f"their seeds {r.extras['lost_seeds']} were not searched: run them again with seeds=...",
                      RuntimeWarning, stacklevel=4)
    run.result = r
    run.emit("done")
    return r


def key_hashes(domain, X, convention: str) -> np.ndarray:
    """``(n,)`` uint64: a hash of each input's key under ``convention``, the same in every process, so that
    the client counts the distinct pairs that the shards report: integer key rows by a linear hash with
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
