"""The batched search engine shared by every generator.

A search is composed of small parts: a **domain** (valid inputs and protected variants), the
**oracle** (is this input discriminatory?), a **strategy** (which candidates to try next) and this
**engine** (batching, budgets, events, interruption). Data flows one way::

    seeds -> strategy -> candidate batch -> oracle -> Result
                 ^                            |
                 +-------- Verdict -----------+

A strategy is a Python generator: it ``yield``s a ``Batch`` of candidates and receives the oracle's
``Verdict`` for exactly those rows back from the ``yield``. The engine records every discriminatory
candidate, publishes ``Event``s to listeners (a tqdm bar, a widget, a log), and ends the search when
the strategy is done, a budget is spent, ``stop()`` is called (from any thread) or the user presses
Ctrl-C; in every case the Result keeps everything found so far. Its ``status`` says why it ended
(``"interrupted"`` for Ctrl-C, however many arrive while the search winds down; ``"failed"`` when the
model or the strategy raised, with the exception in ``result.error``).

Example
-------
>>> import numpy as np
>>> from fairnb.search import Batch, Search
>>> class TryOnce(Search):
...     name = "once"
...     def _generate(self, ctx):
...         verdict = yield Batch(ctx.domain.sample(10, ctx.rng))
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> TryOnce().run(lambda X: X[:, 0] / 9, data.domain).tried
10
"""
from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Callable, Generator

import numpy as np

from ... import config, heap
from ...interrupts import deferred_interrupts, noted_interrupts
from ...domains.base import check_convention
from ...oracle import Oracle, Verdict
from ...constraints import apply as apply_constraint, seed_rows
from ...counting import UniqueCounter
from ...results import Count, Distinct, Measured, Result, inputs_name, seed_outcomes
from .types import Batch, Budget, Event

NATURAL_BLOCK = 64               # inputs per name of the natural rate's tallies (``Engine._tally_natural``)
NATURAL_BLOCKS_PER_CALL = 64     # blocks per model call at most (4,096 inputs)
NATURAL_CALL_S = 0.25            # seconds a call of the natural rate's measure aims at (a slow model's)


class Engine:
    """Runs one strategy generator against the oracle under a budget, publishing events."""

    def __init__(self, oracle: Oracle, result: Result, *, max_time: float | None = None,
                 max_tried: int | None = None, max_found: int | None = None,
                 listeners: tuple[Callable[[Event], None], ...] = (), stop_event: threading.Event | None = None,
                 convention: str = "eidig", constraints: tuple = (), control: Oracle | None = None):
        self.oracle = oracle
        self.control = control                  # the control model's oracle (Search(control=...)), or None
        self.constraints = tuple(constraints)   # fairnb.constraints consulted on every discriminatory candidate
        self._refused = None                    # the distinct discriminatory inputs they refused
        self.convention = check_convention(convention)   # what max_found and Event.found count
        self.result = result
        self.max_time = max_time
        self.max_tried = max_tried
        self.max_found = max_found
        self.listeners = tuple(listeners)
        self.stop_event = stop_event or threading.Event()
        self.phase = ""
        self._t0 = None
        self._pressed = None            # the flag of the Ctrl-C block the run is in (its loop's, then its wind-down's)
        self.interrupted = False        # Ctrl-C (or a KeyboardInterrupt) ended the run
        self.seed_offset = 0    # the run's id of the strategy's seed 0 (a later round's: fairnb.search.engine.seed_rounds)
        self.memory_cap = config.result_memory_cap()    # the bytes the Result may hold

    @property
    def elapsed(self) -> float:
        return 0.0 if self._t0 is None else time.perf_counter() - self._t0

    def time_left(self) -> float | None:
        """Seconds left of ``max_time`` (None without one): the most that a step which cannot stop midway (a z3
        check) may take."""
        return None if self.max_time is None else max(self.max_time - self.elapsed, 0.0)

    @property
    def remaining_tried(self) -> float:
        """Candidates the budget still allows (``inf`` without a sample budget)."""
        return float("inf") if self.max_tried is None else max(self.max_tried - self.result.tried, 0)

    def should_stop(self) -> bool:
        """Whether the user asked the run to end: ``stop()`` (the Stop button) or Ctrl-C, also one pressed
        while the run winds down. Work a strategy does as it closes and that the user can do without (DICE's
        debugging) is skipped when this says True.

        >>> engine = Engine(None, None); engine.should_stop()
        False
        >>> engine.stop_event.set(); engine.should_stop()
        True
        """
        return self.stop_event.is_set() or self.interrupted or bool(self._pressed and self._pressed.arrived)

    def out_of_budget(self) -> str | None:
        """The reason to end now, or None."""
        if self.stop_event.is_set():
            return "stopped"
        reached = Budget(self.max_time, self.max_tried, self.max_found).reached(
            self.elapsed, self.result.tried, self.result.count(self.convention))
        if reached is None and self.result.nbytes >= self.memory_cap:
            reached = ("result_memory", self.memory_cap)
        if reached is not None:
            self.result.ended_by = reached    # which budget ended it, for the summaries
            return "budget"
        return None

    def _emit(self, kind: str, new: int = 0):
        r = self.result
        event = Event(kind, self.elapsed, r.tried, r.count(self.convention), r.count("adf"), self.phase, new, r)
        for listen in self.listeners:
            listen(event)

    def run_seed_ids(self, seed_ids):
        """The strategy's seed ids as the run numbers its seeds (shifted by ``seed_offset``; -1 stays -1).

        >>> engine = Engine(None, None); engine.seed_offset = 10
        >>> engine.run_seed_ids(np.array([0, -1, 2])).tolist()
        [10, -1, 12]
        """
        if not self.seed_offset:
            return seed_ids
        ids = np.asarray(seed_ids)
        return np.where(ids >= 0, ids + self.seed_offset, ids)

    def check(self, batch: Batch) -> Verdict:
        """Send one batch to the oracle, hold its discriminatory candidates to the constraints (a refused
        one reads as not discriminatory) and record what is left."""
        if self.seed_offset:
            batch = replace(batch, seed_ids=self.run_seed_ids(batch.seed_ids))
        verdict = self.oracle.check(batch.X, variants=batch.variants)
        if batch.info is not None and not callable(batch.info) and len(batch.info) != len(verdict):
            raise ValueError(f"Batch.info has {len(batch.info)} entries for {len(verdict)} candidates; "
                             "give one dict per row of Batch.X")
        if batch.keep is not None:
            kept = np.asarray(batch.keep(verdict), dtype=bool)
            if kept.shape != (len(verdict),):
                raise ValueError(f"Batch.keep returned shape {kept.shape} for {len(verdict)} candidates; "
                                 "it must return one bool per row of Batch.X")
            verdict = verdict.take(kept)
            if batch.info is not None and not callable(batch.info):
                batch = replace(batch, info=[i for i, k in zip(batch.info, kept) if k])
            if np.ndim(batch.seed_ids):
                batch = replace(batch, seed_ids=np.asarray(batch.seed_ids)[kept])
        if self.constraints and verdict.discriminatory.any():
            verdict = self._constrained(verdict, batch.seed_ids)
        r = self.result
        r.tried += len(verdict)
        if np.ndim(batch.seed_ids) or batch.seed_ids >= 0:
            seed_outcomes.note_searched(r, batch.seed_ids)
        new = 0
        if verdict.discriminatory.any():
            d = verdict.discriminatory
            seed_ids = np.broadcast_to(np.asarray(batch.seed_ids), (len(verdict),))[d]
            room = None if self.max_found is None else max(self.max_found - r.count(self.convention), 0)
            rows = np.flatnonzero(d)
            info = (None if batch.info is None else batch.info(verdict, rows) if callable(batch.info)
                    else [batch.info[i] for i in rows])
            found = verdict.take(rows)          # their counterparts worked out for them alone
            new = r.record(found.X, found.counterpart, found.proba, found.counterpart_proba, phase=batch.phase,
                           seed_ids=seed_ids, elapsed=self.elapsed, limit=room, limit_convention=self.convention,
                           info=info)
        r.mark(self.elapsed)
        if batch.phase != self.phase:
            self.phase = batch.phase
            self._emit("phase", new)
        self._emit("progress", new)
        return verdict

    def measure_natural(self, X) -> np.ndarray:
        """Check the inputs ``X`` (the data's seeds, ``fairnb.search.engine.natural``) as they are, outside the
        counts but inside the budget: how many could be discriminatory (``natural_n``: those with a protected
        variant) and how many are, by the oracle and the pair constraints (``natural_idis``). ``Result.summary``
        leads with their share: it tells a biased model from its unbiased twin where the count of generated IDIs
        often does not. With a control model, the same inputs are checked on it too (``measure_control``).
        Returns the inputs measured: all of ``X``, or the first of them when ``max_time`` or a Stop came first
        (a slow model: a transformer checks a few dozen texts a second, each with all its variants)."""
        X = X[:self._tally_natural("natural", self.oracle, X)]
        self.measure_control(X)
        return X

    def measure_random(self, X) -> None:
        """Check seeds drawn at random (no rows of the data) as they are, as ``measure_natural`` does, and count
        them apart: ``random_n``, ``random_idis`` (a share of the input space, not of the data's)."""
        self._tally_natural("random", self.oracle, X)

    def measure_control(self, X) -> None:
        """Check the inputs ``X`` as they are on the control model (``Search(control=...)``), by the same oracle
        and pair constraints as ``measure_natural``: ``control_natural_n`` and ``control_natural_idis``, the
        number to read the natural rate against. Nothing without a control."""
        if self.control is None:
            return
        try:
            self._tally_natural("control_natural", self.control, X, to_the_end=True)
        except Exception as e:     # noqa: BLE001 - whatever the control raises, the message says it was the control
            raise ValueError(f"control: the control model could not decide the inputs the searched model decided "
                             f"({type(e).__name__}: {e}); give a model that takes the same inputs") from e
        mine, its = self.oracle.n_classes, self.control.n_classes
        if mine is not None and its is not None and mine != its:
            raise ValueError(f"control: the control model returns {its} class probabilities per input, the searched "
                             f"model {mine}; a control must decide between the same classes")

    def _tally_natural(self, prefix: str, oracle: Oracle, X, to_the_end: bool = False) -> int:
        """Tally ``{prefix}_n`` (the inputs of ``X`` with a protected variant) and ``{prefix}_idis`` (those that
        ``oracle`` and the pair constraints find discriminatory as they are), ``Measured`` per block of
        ``NATURAL_BLOCK`` inputs: the same inputs measured twice (by two shards, or two runs merged) count once,
        also where one measured more blocks than the other. The first model call takes one block, each next one
        as many blocks as the model checks in ``NATURAL_CALL_S`` at the pace of the last (at most
        ``NATURAL_BLOCKS_PER_CALL``: a fast model measures 4,000 rows in two calls; the calls' sizes follow the
        model's pace, the inputs and their order do not); unless ``to_the_end`` (the control
        measures what the model measured), the measure ends after the call in which ``max_time`` ran out or a
        Stop came. Returns the number of inputs measured."""
        pair_constraints = [c for c in self.constraints if c.stage == "pair"]
        r, start, blocks = self.result, 0, 1
        while start < len(X) and (to_the_end or not start or not self._natural_ends()):
            began = time.monotonic()
            part = X[start:start + blocks * NATURAL_BLOCK]
            verdict = oracle.check(part)
            keep = verdict.discriminatory.copy()
            rows = np.flatnonzero(keep)
            for constraint in pair_constraints:
                keep[rows] &= apply_constraint(constraint, oracle.domain, verdict.X[rows], verdict.X[rows],
                                               verdict.counterpart[rows])
            for at in range(0, len(part), NATURAL_BLOCK):
                block = slice(at, at + NATURAL_BLOCK)
                name = inputs_name(part[block])
                r.tally(**{f"{prefix}_{what}": r.tallies.get(f"{prefix}_{what}", Measured({})).plus(name, int(v[block].sum()))
                           for what, v in (("n", verdict.comparable), ("idis", keep))})
            start += len(part)
            per_input = (time.monotonic() - began) / len(part)
            blocks = int(min(NATURAL_BLOCKS_PER_CALL, max(1.0, NATURAL_CALL_S / max(per_input, 1e-9) / NATURAL_BLOCK)))
        return start

    def _natural_ends(self) -> bool:
        return self.should_stop() or (self.max_time is not None and self.elapsed >= self.max_time)

    def _constrained(self, verdict: Verdict, seed_ids) -> Verdict:
        """``verdict`` with the discriminatory candidates that a constraint refuses marked not discriminatory;
        each constraint's refusals counted in ``extras["rejected_<name>"]``, the distinct refused inputs in
        ``extras["rejected_idis"]``."""
        rows = np.flatnonzero(verdict.discriminatory)
        X = verdict.X[rows]
        seeds = seed_rows(self.result.extras.get("seeds"), np.broadcast_to(np.asarray(seed_ids), (len(verdict),))[rows], X)
        counterparts = verdict.counterpart[rows] if any(c.stage == "pair" for c in self.constraints) else None
        keep = np.ones(len(rows), bool)
        r = self.result
        for constraint in self.constraints:
            ok = apply_constraint(constraint, self.oracle.domain, X, seeds, counterparts)
            name = f"rejected_{constraint.name}"
            r.tally(**{name: Count(r.extras.get(name, 0) + int((~ok).sum()))})
            keep &= ok
        if keep.all():
            return verdict
        if self._refused is None:
            self._refused = UniqueCounter(self.oracle.domain, "eidig")
        self._refused.add(X[~keep])
        r.tally(rejected_idis=Distinct(self._refused))
        discriminatory = verdict.discriminatory.copy()
        discriminatory[rows[~keep]] = False
        return replace(verdict, discriminatory=discriminatory,
                       counterpart_index=np.where(discriminatory, verdict.counterpart_index, -1))

    def run(self, strategy: Generator[Batch, Verdict, None], *, limit_threads: bool = True,
            prepare: Callable[[], None] | None = None) -> Result:
        """Drive ``strategy`` until it finishes or the search must end; always returns the Result.

        With ``limit_threads`` (a foreground search), BLAS and OpenMP (numpy, scikit-learn) run
        single-threaded for the duration of the search, and get their thread counts back after it:
        batches of a few thousand rows through small dense networks are fastest that way, and their
        threads on a busy machine are several times slower. The limit is process-wide, so a background
        search (``Search.start``) sets it only when asked to (``start(..., limit_threads=True)``):
        otherwise the rest of the kernel would drop to one BLAS thread while it runs.
        """
        heap.steady()                      # glibc keeps the model's temporaries instead of trimming them each batch
        if prepare is not None:            # e.g. TensorFlow tracing the model: before the clock starts
            self._emit("prepare")
            prepare()
        if not limit_threads:
            return self._drive(strategy)
        from threadpoolctl import threadpool_limits

        limits = None
        try:   # a Ctrl-C while the limit is set or given back must not leave the process on one thread
            with deferred_interrupts():
                limits = threadpool_limits(limits=1)   # scans the loaded libraries (~10 ms): new ones count
            return self._drive(strategy)
        finally:
            if limits is not None:
                with deferred_interrupts():
                    limits.restore_original_limits()

    def _drive(self, strategy: Generator[Batch, Verdict, None]) -> Result:
        self._t0 = time.perf_counter()
        self.result.mark(0.0)
        status, error = "running", None
        try:
            # a Ctrl-C that lands in a finaliser (z3's AstRef.__del__) raises where Python drops it: noted, it
            # still ends the search at the next batch
            with noted_interrupts() as pressed:
                self._pressed = pressed
                try:
                    self._emit("start")
                    batch = next(strategy)
                    while True:
                        status = "interrupted" if pressed.arrived else self.out_of_budget() or "running"
                        if status != "running":
                            break
                        batch = strategy.send(self.check(batch))
                except StopIteration:      # a Ctrl-C noted in the last batch still counts
                    status = "interrupted" if pressed.arrived else self.out_of_budget() or "completed"
        except KeyboardInterrupt:      # also a second one, arriving in the handler above
            status = "interrupted"
        except Exception as e:         # noqa: BLE001 - kept in the Result, re-raised by Search.run
            status, error = "failed", e
        while True:                    # the wind-down finishes, however many Ctrl-C arrive meanwhile
            self.interrupted = status == "interrupted"
            try:
                with deferred_interrupts(reraise=False) as held:   # a Ctrl-C now finds the search already over
                    self._pressed = held
                    self._wind_down(strategy, status, error)
                return self.result
            except KeyboardInterrupt:
                status = "interrupted" if status != "failed" else status

    def _wind_down(self, strategy, status: str, error: BaseException | None):
        """Close the strategy (its ``finally`` blocks fill in extras), settle the status, tell listeners."""
        try:
            strategy.close()
        except Exception as e:         # noqa: BLE001 - a strategy failing in its clean-up
            if error is None:
                status, error = "failed", e
        r = self.result
        r.status, r.error, r.elapsed = status, error, self.elapsed
        seed_outcomes.settle(r, status)
        try:
            self._emit("done")
        except Exception as e:         # noqa: BLE001 - a listener failing must not lose the Result
            if r.error is None:
                r.status, r.error = "failed", e
