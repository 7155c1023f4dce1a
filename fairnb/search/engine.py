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
>>> from fairnb.search.engine import Batch, Search
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
import warnings
from dataclasses import dataclass, field, replace
from numbers import Real
from typing import Callable, Generator

import numpy as np

from .. import config, heap, summaries
from ..interrupts import deferred_interrupts, noted_interrupts
from ..domains.base import check_convention, require_capabilities
from ..oracle import Oracle, Verdict, make_oracle
from ..constraints import apply as apply_constraint, resolve as resolve_constraints, seed_rows
from ..params import COUNT, RANDOM_STATE, Estimator, Interval, Options, Satisfies
from ..counting import UniqueCounter
from ..results import Count, Distinct, Measured, Result, Same, inputs_name, seed_outcomes
from .background import BackgroundSearch
from .kernel_messages import CommPump, busy_while_blocking
from .executors import executor_for, one_executor
from .natural import NaturalInputs, control_label, control_parts
from .seed_rounds import draws_rounds, seed_rounds

@dataclass
class Batch:
    """Candidates for the oracle. ``seed_ids`` tells which seed each row descends from; ``info``, if
    given, holds one JSON-able dict of details per row, kept with the pairs the Result stores
    (``result.details(i)``: e.g. a text search's substitution chain), or is a callable
    ``info(verdict, rows) -> list of dicts`` (or of their compact JSON text) that the engine calls for the discriminatory rows only
    (details that depend on the oracle's counterparts, built once per batch for just those rows).

    ``keep``, if given, is a callable ``keep(verdict) -> (n,) bool`` that the engine calls with the oracle's
    answer before anything is counted: only the rows it keeps are counted, recorded and sent back to the strategy
    (a strategy that samples ahead of a stopping rule, such as AFT's, drops the samples past the stop unseen).

    ``variants``, if given, are the candidates' protected variants as the strategy knows them, in the form
    and order of the domain's ``variants(X)`` (an ``(n, m, ...)`` array or ``n`` sequences): the oracle checks
    these instead of asking the domain. An image search keeps each seed's flip fixed while it moves the seed:

    >>> X = np.zeros((2, 2, 2, 3)); C = X + 0.5                  # two images and their fixed flips
    >>> Batch(X, variants=np.stack([X, C], axis=1)).variants.shape
    (2, 2, 2, 2, 3)
    """

    X: np.ndarray
    phase: str = "global"
    seed_ids: np.ndarray | int = -1
    info: list | Callable | None = None
    variants: np.ndarray | list | None = None
    keep: Callable | None = None


@dataclass
class Event:
    """What listeners receive: ``kind`` is ``"prepare"`` (the model is being made ready, before the clock
    starts), ``"start"``, ``"progress"``, ``"phase"`` or ``"done"``."""

    kind: str
    elapsed: float
    tried: int
    found: int
    found_adf: int
    phase: str
    new: int
    result: Result = field(repr=False)

    @property
    def rate(self) -> float:
        """Unique IDIs per second so far."""
        return self.found / self.elapsed if self.elapsed > 0 else 0.0


@dataclass(frozen=True)
class Budget:
    """A run's budgets (None: no limit) and the first of them that what it spent has reached: the rule of
    the engine's loop, and of a sharded run's client for the whole run.

    >>> Budget(max_tried=100, max_found=5).reached(elapsed=1.0, tried=40, found=5)
    ('max_found', 5)
    """

    max_time: float | None = None
    max_tried: int | None = None
    max_found: int | None = None

    def reached(self, elapsed: float, tried: int, found: int) -> tuple[str, float] | None:
        """``(budget, limit)`` of the first budget reached, else None."""
        for name, spent in (("max_time", elapsed), ("max_tried", tried), ("max_found", found)):
            limit = getattr(self, name)
            if limit is not None and spent >= limit:
                return name, limit
        return None


@dataclass
class SearchContext:
    """What a strategy sees: the parts, the random generator, the seeds and the live budget.

    ``selected_seeds``: the start inputs already chosen for this run (``Search.run(selected_seeds=...)``:
    e.g. a shard's slice of the inputs that ``select_seeds`` chose once for a sharded run), else None."""

    model: object
    domain: object
    oracle: Oracle
    rng: np.random.Generator
    seeds: np.ndarray | None
    engine: "Engine"
    selected_seeds: np.ndarray | None = None
    natural: NaturalInputs | None = None       # what the run checks as it is (``fairnb.search.natural``)

    @property
    def result(self) -> Result:
        return self.engine.result

    def project(self, X, seeds) -> np.ndarray:
        """``X`` (candidates descending from the rows ``seeds``) moved into every active constraint that can
        project onto what it allows (``PixelBudget``: back within its L∞ budget), so a strategy's steps stay
        valid instead of being refused; unchanged under ``constraints="paper"``."""
        for constraint in self.engine.constraints:
            if hasattr(constraint, "project"):
                X = constraint.project(X, seeds)
        return X

    def use_seeds(self, X) -> np.ndarray:
        """Declare the inputs that this strategy's ``Batch.seed_ids`` index; returns ``X``.

        They are kept as ``result.extras["seeds"]`` (float32 seeds, e.g. images, stay float32), so the pair
        inspector can show which features the search changed from each pair's seed, and checked as they are
        for the Result's headline: those that are no rows of the data are checked as random draws, and on a text or
        image domain all of them give the natural rate (``fairnb.search.natural``).
        Each ends with an outcome in ``result.seed_outcomes`` (see ``seed_outcome``).
        """
        given = np.asarray(X)
        X = given.astype(float)
        kept = given.copy() if given.dtype == np.float32 else X    # float32 images: exact, and half the memory
        r, first = self.engine.result, self.engine.seed_offset
        r.extras["seeds"] = np.concatenate([r.extras["seeds"][:first], kept]) if first else kept
        seed_outcomes.declare(r, len(X), first=first)
        r.tally(seeds_used=Count(len(X)))
        if self.natural is not None:
            self.natural.declared(self.engine, X)
        return X

    def seed_outcome(self, ids, outcome: str, reason: str = "") -> None:
        """Mark the declared seeds ``ids`` ``"skipped"`` (or ``"exhausted"``) with a short ``reason``. The
        other outcomes are derived (``fairnb.results.seed_outcomes``): a seed with a pair is ``found``, a seed
        that a checked batch descended from is ``exhausted``, one that no batch reached is skipped.

        >>> # in a strategy: ctx.seed_outcome(np.flatnonzero(~flip.success), "skipped", reason="flip failed")
        """
        seed_outcomes.mark(self.engine.result, self.engine.run_seed_ids(ids), outcome, reason)


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
        self.seed_offset = 0    # the run's id of the strategy's seed 0 (a later round's: fairnb.search.seed_rounds)
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
            new = r.record(verdict.X[d], verdict.counterpart[d], verdict.proba[d], verdict.counterpart_proba[d],
                           phase=batch.phase, seed_ids=seed_ids, elapsed=self.elapsed, limit=room,
                           limit_convention=self.convention, info=info)
        r.mark(self.elapsed)
        if batch.phase != self.phase:
            self.phase = batch.phase
            self._emit("phase", new)
        self._emit("progress", new)
        return verdict

    def measure_natural(self, X, chunk: int = 4096) -> None:
        """Check the inputs ``X`` (the data's seeds, ``fairnb.search.natural``) as they are, outside the budget
        and the counts: how many could be discriminatory (``natural_n``: those with a protected variant) and how
        many are, by the oracle and the pair constraints (``natural_idis``). ``Result.summary`` leads with their
        share: it tells a biased model from its unbiased twin where the count of generated IDIs often does not.
        With a control model, the same inputs are checked on it too (``measure_control``)."""
        self._tally_natural("natural", self.oracle, X, chunk)
        self.measure_control(X, chunk)

    def measure_random(self, X, chunk: int = 4096) -> None:
        """Check seeds drawn at random (no rows of the data) as they are, as ``measure_natural`` does, and count
        them apart: ``random_n``, ``random_idis`` (a share of the input space, not of the data's)."""
        self._tally_natural("random", self.oracle, X, chunk)

    def measure_control(self, X, chunk: int = 4096) -> None:
        """Check the inputs ``X`` as they are on the control model (``Search(control=...)``), by the same oracle
        and pair constraints as ``measure_natural``: ``control_natural_n`` and ``control_natural_idis``, the
        number to read the natural rate against. Nothing without a control."""
        if self.control is None:
            return
        try:
            self._tally_natural("control_natural", self.control, X, chunk)
        except Exception as e:     # noqa: BLE001 - whatever the control raises, the message says it was the control
            raise ValueError(f"control: the control model could not decide the inputs the searched model decided "
                             f"({type(e).__name__}: {e}); give a model that takes the same inputs") from e
        mine, its = self.oracle.n_classes, self.control.n_classes
        if mine is not None and its is not None and mine != its:
            raise ValueError(f"control: the control model returns {its} class probabilities per input, the searched "
                             f"model {mine}; a control must decide between the same classes")

    def _tally_natural(self, prefix: str, oracle: Oracle, X, chunk: int) -> None:
        """Tally ``{prefix}_n`` (the inputs of ``X`` with a protected variant) and ``{prefix}_idis`` (those that
        ``oracle`` and the pair constraints find discriminatory as they are), ``Measured`` on ``X``: the same
        inputs measured twice (by two shards, or two runs merged) count once."""
        n = found = 0
        pair_constraints = [c for c in self.constraints if c.stage == "pair"]
        for start in range(0, len(X), chunk):
            verdict = oracle.check(X[start:start + chunk])
            rows = np.flatnonzero(verdict.discriminatory)
            keep = np.ones(len(rows), bool)
            for constraint in pair_constraints:
                keep &= apply_constraint(constraint, oracle.domain, verdict.X[rows], verdict.X[rows],
                                         verdict.counterpart[rows])
            n += int(verdict.comparable.sum())
            found += int(keep.sum())
        r, name = self.result, inputs_name(X)
        r.tally(**{f"{prefix}_{what}": r.tallies.get(f"{prefix}_{what}", Measured({})).plus(name, count)
                   for what, count in (("n", n), ("idis", found))})

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


def _is_model(value) -> bool:
    """Whether ``value`` is something a search takes as its model (``fairnb.models.wrap`` accepts it), alone or
    with its label: ``(model, "what it is")``."""
    from ..models import wrap

    return wrap(control_parts(value)[0]) is not None


class Search(Estimator):
    """Base class of every generator: hyperparameters in ``__init__``, work in ``run``.

    Budgets shared by all searches (any combination; the search ends at the first one reached):
    ``max_time`` seconds, ``max_tried`` candidates checked, ``max_found`` unique IDIs in the method's
    own counting convention ``dedup`` (at most that many are kept). Given ``max_time``, a seeded tabular
    search that has searched its seeds draws fresh ones (from the seed inputs, then from the domain) and
    goes on until a budget is reached (``fairnb.search.seed_rounds``). ``max_time=float("inf")`` is allowed
    and means no time limit: a search with no other budget and no natural end (e.g.
    ``RandomSearch(n_samples=None)``, a seeded search with fresh seeds) then runs until ``stop()`` or Ctrl-C.
    **What ``max_time`` counts**: the search from its start, after a one-time set-up that is bounded and small (the
    parameters checked, the model wrapped, a Keras model traced: ``Event("prepare")``); the import of a method's
    module on first use (about 1 s in a fresh process, mostly scikit-learn) also comes before. Everything else is
    counted: seed selection (K-Means, given up when the budget is spent), the natural rate, surrogate trees and
    boundaries. A search ends within one step of its budget: one batch (at most one model call's
    ``fairnb.oracle.MEMORY_BUDGET`` of input), one z3 check (VBT-X's get what is left of the budget), and DICE's
    severity of at most ``severity_inputs`` IDIs. A search that spent its whole budget and checked nothing, or found
    nothing where some of its start inputs are discriminatory as they are, warns and says what to try. Count
    parameters whose arrays must exist at once are refused (``ValueError`` naming the parameter and the memory)
    when they cannot fit (``fairnb.search.sizes``); the others are worked through in pieces.
    Every parameter is checked when the search runs, against the class's ``_parameter_constraints``
    (``fairnb.params``): a value it does not allow (NaN, 0.5 of a batch, an unknown option) raises
    ``ValueError`` naming the parameter and what it allows.
    ``random_state`` makes the search deterministic; ``progress`` is ``None`` (a live panel in a
    notebook, nothing elsewhere), ``True`` (a panel in a notebook, a tqdm bar elsewhere) or ``False``.
    ``constraints`` (``fairnb.constraints``): ``"default"`` (the domain's: e.g. a text keeps its identity
    terms and changes at most 4 words, an image stays within a pixel budget of its seed; none on tables),
    ``"paper"`` (the paper's unconstrained search) or a list (``["default", mine]`` adds to the defaults).
    A candidate a constraint refuses is never reported; ``result.extras`` counts them per constraint.
    ``control``: a control model to read the natural rate against, alone or with a label that says what it is
    (``control=(model, "trained on a shuffled sex column")``; docs/glossary.md, *Control model*, says which
    control answers which question): the data's seeds checked as they are for the natural rate
    (``fairnb.search.natural``) are also checked on it, by the same oracle, and ``summary()`` gives its share
    beside the model's (``control_natural_rate``, ..., and ``control_label``). Its checks take time like the
    natural rate's: under ``max_time``, a little less of it is left to search.

    Subclasses implement ``_generate(ctx)``, a generator of ``Batch``es (see the module docstring),
    and may set ``domain_needs`` (the domain capabilities they use: ``"sample"``, ``"bounded"``; see
    ``fairnb.domains.base.require_capabilities``), ``needs_gradients`` / ``needs_activations`` and ``feature_kinds``, the kinds of
    features (``Feature.kind``) they handle; ``run`` refuses a domain with another kind. The tabular
    methods handle all three: they change integer codes, and step categorical codes like numbers as
    their papers do. A subclass's ``__init__`` lists all its parameters (scikit-learn reads them from
    its signature), stores its own and passes the inherited ones on with ``super().__init__(...)``; its
    ``_parameter_constraints`` extend its parent's: ``{**Parent._parameter_constraints, "size": [COUNT]}``.
    """

    name = "search"
    domain_needs: tuple = ()
    dedup = "eidig"      # the method's counting convention: what max_found and the progress panel count
    _parameter_constraints = {"max_time": [None, Interval(Real, 0, None, closed="right")],
                              "max_tried": [None, COUNT], "max_found": [None, COUNT],
                              "random_state": RANDOM_STATE, "progress": [None, bool],
                              "constraints": [Options({"default", "paper"}), list, tuple],
                              "control": [None, Satisfies(_is_model, "a control model (anything a search takes as "
                                                                     "its model, alone or as (model, 'its label'))")]}
    needs_gradients = False
    needs_activations = False
    natural_from_data = True     # given data, measure the natural rate on it (``fairnb.search.natural``)

    @property
    def measures_data(self) -> bool:
        """Whether a run given data measures the natural rate on it as it starts: a method of bounded tables
        (``"bounded"`` in ``domain_needs``) that has not opted out (``natural_from_data``); a text or image
        method measures the seeds it declares instead."""
        return self.natural_from_data and "bounded" in self.domain_needs
    feature_kinds = ("categorical", "ordinal", "continuous")

    def __init__(self, *, max_time: float | None = None, max_tried: int | None = None,
                 max_found: int | None = None, random_state: int | None = None, progress: bool | None = None,
                 constraints="default", control=None):
        self.max_time = max_time
        self.max_tried = max_tried
        self.max_found = max_found
        self.random_state = random_state
        self.progress = progress
        self.constraints = constraints
        self.control = control
        self._stop_event = threading.Event()
        self._busy = threading.Lock()       # held while a run is in progress (one run per object at a time)

    def result_params(self) -> dict:
        """The parameters a Result records (``result.params``): ``get_params()``, with the control model
        described in words instead of kept (a Result is saved as JSON).

        >>> from fairnb.search import RandomSearch
        >>> RandomSearch(control=lambda X: X[:, :1]).result_params()["control"]
        'FunctionModel(<lambda>)'
        """
        from ..models import wrap

        params = self.get_params(deep=False)
        if params.get("control") is not None:      # a subclass may leave control out of its signature
            params["control"] = repr(wrap(control_parts(params["control"])[0]))
        return params

    def __sklearn_clone__(self):
        """``sklearn.base.clone``: a copy with the same parameters, sharing the control model (scikit-learn's
        clone of a trained classifier is untrained)."""
        from sklearn.base import clone

        return type(self)(**{name: value if name == "control" else clone(value, safe=False)
                             for name, value in self.get_params(deep=False).items()})

    # ------------------------------------------------------------------ running
    def stop(self):
        """End a running search (safe to call from another thread); the Result keeps what was found."""
        self._stop_event.set()

    def select_seeds(self, seeds, should_stop=None, domain=None):
        """The inputs this strategy starts from, chosen from the given ``seeds`` (validated for ``domain``:
        e.g. K-Means seeds, the texts that hold a protected term), or None when it draws its own.
        ``fairnb.distributed`` chooses them once and gives each shard a slice; ``should_stop`` is polled
        while a long choice runs (returns None when it says True)."""
        return None

    def _selected_seeds(self, ctx):
        """The run's start inputs: those it was given already chosen (``ctx.selected_seeds``), else
        ``select_seeds`` of its seeds, given up (None) when the run is stopped or its budget spent meanwhile."""
        if ctx.selected_seeds is not None:
            return ctx.selected_seeds
        return self.select_seeds(ctx.seeds, lambda: ctx.engine.out_of_budget() is not None, ctx.domain)

    def run(self, model, domain, seeds=None, *, listeners=(), progress: bool | None = None, oracle=None,
            client=None, n_shards: int | None = None, selected_seeds=None, executor=None) -> Result:
        """Search ``model`` for discrimination over ``domain``; returns the Result.

        ``seeds`` are inputs the search starts from (e.g. the training data): an array in the domain's
        column order, or a DataFrame with the domain's column names (reordered by name); strategies that
        need seeds and get none raise ``ValueError``. ``progress`` overrides ``self.progress`` for this run.

        In a notebook the cell stays busy (the kernel's status reads "busy") and the progress panel's Stop
        button ends the search after its current batch; ``start`` runs it in the background instead.

        Ctrl-C ends the search and returns its Result (status ``"interrupted"``). If the model or the
        strategy raises, ``run`` re-raises that exception with the partial Result attached as its
        ``.result`` attribute (status ``"failed"``; ``result.raise_for_status()`` raises it again).
        A search object runs one search at a time: a second ``run``/``start`` while one is in progress
        raises ``RuntimeError`` (run a copy, ``sklearn.base.clone(search)``, to search in parallel).

        ``oracle`` sets what counts as discriminatory: a ``decide(P, P_all)`` callable (e.g.
        ``fairnb.oracle.ProbabilityGap(0.2)``) or an ``Oracle`` subclass; default a label flip.

        ``executor`` (any ``concurrent.futures.Executor``: a thread or process pool,
        ``fairnb.distributed.ShardedExecutor(pool, n_shards=4)``, ...) or ``client`` (a ``dask.distributed.Client``)
        runs the search in ``n_shards`` shards and merges their Results (``fairnb.distributed``; default one
        shard per worker): the executor registered for its class runs it (``fairnb.search.executors``).

        ``selected_seeds``: the start inputs, already chosen from ``seeds`` (e.g. by ``select_seeds`` for a
        whole sharded run, of which this run is one shard); ``seeds`` still serve the strategy's other uses
        (NeuronFair's interpretation rows, SG's sampling distribution).
        """
        client = one_executor(client, executor)
        self._claim()
        with busy_while_blocking():        # in a notebook, the kernel reads "busy" while the cell searches
            return self._run_claimed(model, domain, seeds, listeners=listeners, progress=progress, oracle=oracle,
                                     limit_threads=True, client=client, n_shards=n_shards,
                                     selected_seeds=selected_seeds)

    def _claim(self):
        if not self._busy.acquire(blocking=False):
            raise RuntimeError(f"this {type(self).__name__} is already running a search; stop it or wait for it "
                               f"first, or run a copy: sklearn.base.clone(search)")

    def _run_claimed(self, model, domain, seeds=None, *, listeners=(), progress=None, oracle=None,
                     limit_threads: bool, client=None, n_shards: int | None = None, selected_seeds=None) -> Result:
        """``run`` for a caller that holds ``_busy``; releases it when the search ends."""
        try:
            if client is not None:
                result = self._run_elsewhere(client, model, domain, seeds, listeners=listeners, progress=progress,
                                             oracle=oracle, n_shards=n_shards)
            else:
                result = self._run(model, domain, seeds, listeners=listeners, progress=progress, oracle=oracle,
                                   limit_threads=limit_threads, selected_seeds=selected_seeds)
        except KeyboardInterrupt:      # a Ctrl-C just before or after the engine's loop
            if getattr(self, "engine_", None) is None:   # nothing was searched yet
                raise
            result = self.engine_.result
            if result.status == "running":
                result.status, result.elapsed = "interrupted", self.engine_.elapsed
        finally:
            with deferred_interrupts(reraise=False):
                self._busy.release()
        with deferred_interrupts(reraise=False):      # a Ctrl-C as the search ends finds it over: its Result returns
            self._ended(result)
        if result.status == "failed":
            error = result.error
            error.result = result
            if result.tried:
                error.add_note(f"fairnb: the search failed after {result.tried:,} candidates; the {result.count():,} "
                               "pairs found before are kept in this exception's .result")
            raise error
        return result

    def _ended(self, result: Result):
        """Give the heap's freed pages back after a search of a second or more; warn of a memory-capped Result, and
        of a whole budget spent without a pair where inputs discriminate (``_nothing_found``)."""
        if result.elapsed >= heap.RELEASE_AFTER_S:    # its temporary arrays are freed: give their pages back
            heap.release()
        if result.status == "budget" and result.ended_by[0] == "result_memory":
            warnings.warn(f"{result.method} stopped at fairnb.config.result_memory "
                          f"({summaries.fmt_bytes(result.ended_by[1])}): its Result keeps {result.count():,} unique "
                          f"IDIs in {summaries.fmt_bytes(result.nbytes)}, all it found; pass max_found to stop at a "
                          "number of pairs, or raise fairnb.config.result_memory ($FAIRNB_RESULT_MEMORY) where the "
                          "machine has the memory", RuntimeWarning, stacklevel=4)
        as_they_are = [result.extras.get(k) for k in ("natural_idis", "random_idis", "natural_n", "random_n")]
        if result.status == "budget" and not result.count() and result.ended_by[0] in ("max_time", "max_tried") and (
                any(as_they_are[:2]) or not (result.tried or any(as_they_are[2:]))):
            warnings.warn(self._nothing_found(result), RuntimeWarning, stacklevel=4)   # not for a fair model

    def _nothing_found(self, result) -> str:
        """What a run that spent its whole budget and found nothing says, when some of its start inputs are
        discriminatory as they are (``Engine.measure_natural``) or it checked no input at all (a model found fair
        on its start inputs gets no warning): what it checked, that share, and what to try."""
        budget = (f"in {result.elapsed:.1f} s" if result.ended_by[0] == "max_time"
                  else f"in {result.tried:,} candidates")
        n, idis = result.extras.get("natural_n", 0), result.extras.get("natural_idis", 0)
        if not idis:        # the data's rows are fair as they are, or none were given: the random draws
            n, idis = result.extras.get("random_n", 0), result.extras.get("random_idis", 0)
        said = (f"{self.name} checked no input {budget}" if not result.tried else
                f"{self.name} found no discriminatory pair {budget}")
        if idis:
            said += (f" although {idis / n:.1%} of the inputs it checked as they are ({idis:,} of {n:,}) are "
                     "discriminatory")
        return f"{said}; {self._budget_hint(result)}"

    def _budget_hint(self, result) -> str:
        """What to try when a run found nothing in its whole budget (``_nothing_found``); a method may say more."""
        return "try a larger budget, smaller sizes per step (see its parameters) or another method"

    def _checked(self, model, domain, seeds):
        """``(model, seeds)`` ready to search: the model wrapped, the seeds validated; raises for a parameter,
        a model or a domain this search cannot use."""
        from ..models import supports_activations, supports_gradients, wrap
        from .registry import refuse_seeds

        self._validate_params()
        model = wrap(model)
        require_capabilities(self.name, domain, self.domain_needs)
        if self.needs_gradients and not supports_gradients(model):
            raise TypeError(f"{self.name} needs input gradients, which {model!r} does not provide; "
                            "use a Keras model, an MLPClassifier (alone or after a scaler) or a NumpyMLP, or a "
                            "black-box method such as 'maft'")
        if self.needs_activations and not supports_activations(model):
            raise TypeError(f"{self.name} needs hidden-layer activations, which {model!r} does not provide")
        other = [f"{f.name} ({f.kind})" for f in getattr(domain, "features", ()) if f.kind not in self.feature_kinds]
        if other:
            raise TypeError(f"{self.name} handles {', '.join(self.feature_kinds)} features, not {', '.join(other)}; "
                            "recode them (fairnb.datasets.from_frame: bins=...) or choose another method")
        refuse_seeds(self, seeds)            # a method that draws its own inputs says so, rather than ignore them
        if seeds is not None:
            seeds = domain_seeds(seeds, domain)
        return model, seeds

    def _listeners(self, listeners, progress) -> tuple:
        """``listeners``, the run's progress display (``progress`` overrides ``self.progress``) and, on a
        notebook kernel's main thread, a ``CommPump`` that lets the display's Stop button through."""
        from .progress import make_listener

        pump = CommPump.in_this_kernel()
        bar = make_listener(self.progress if progress is None else progress, self, stoppable=pump is not None)
        return tuple(listeners) + tuple(x for x in (bar, pump) if x is not None)

    def _run(self, model, domain, seeds, *, listeners, progress, limit_threads, oracle=None,
             selected_seeds=None) -> Result:
        self.engine_ = None
        label = control_label(self.control, model)
        model, seeds = self._checked(model, domain, seeds)
        control = None if self.control is None else make_oracle(oracle, control_parts(self.control)[0], domain)
        oracle = make_oracle(oracle, model, domain)
        self._stop_event = threading.Event()
        constraints = resolve_constraints(self.constraints, domain)
        result = Result(domain, self.name, self.result_params())
        result.extras["constraints"] = ", ".join(c.name for c in constraints) or "none"    # the ones active
        if label is not None:
            result.tally(control_label=Same(label))        # what the headline calls the control model
        self.engine_ = Engine(oracle, result, max_time=self.max_time, max_tried=self.max_tried,
                              max_found=self.max_found, listeners=self._listeners(listeners, progress),
                              stop_event=self._stop_event, convention=self.dedup, constraints=constraints,
                              control=control)
        ctx = SearchContext(model, domain, oracle, np.random.default_rng(self.random_state), seeds, self.engine_,
                            selected_seeds, NaturalInputs(domain, seeds, self.measures_data))
        strategy = seed_rounds(self, ctx) if draws_rounds(self, domain, selected_seeds) else self._generate(ctx)
        return self.engine_.run(self._concluding(ctx, strategy), limit_threads=limit_threads,
                                prepare=getattr(model, "warm_up", None))

    def _run_elsewhere(self, client, model, domain, seeds, *, listeners, progress, oracle, n_shards) -> Result:
        """Hand the run to the executor registered for ``client`` (``fairnb.search.executors``), with the
        model and seeds checked here and a stop flag that ``stop()`` sets."""
        execute = executor_for(client)
        self.engine_ = None
        model, seeds = self._checked(model, domain, seeds)
        make_oracle(oracle, model, domain)             # a bad oracle argument fails here, not on every worker
        self._stop_event = threading.Event()
        return execute(self, model, domain, seeds, client=client, n_shards=n_shards,
                       listeners=self._listeners(listeners, progress), oracle=oracle,
                       should_stop=self._stop_event.is_set)

    def start(self, model, domain, seeds=None, *, listeners=(), limit_threads: bool = False, client=None,
              n_shards: int | None = None, executor=None):
        """Like ``run``, but on a background thread: returns at once a ``fairnb.search.background.BackgroundSearch``
        (``.stop()``, ``.wait()``, ``.result``, ``.done``). In a notebook its live panel's Stop button
        works, because no cell is blocked while the search runs.

        ``limit_threads=True`` runs BLAS and OpenMP single-threaded while the search runs, as ``run``
        does (often faster for small networks); it is off by default because the limit is process-wide:
        the rest of the kernel (your other cells) would also run on one BLAS thread meanwhile. (Set from
        the worker thread, the limit may not take with OpenBLAS once the main thread has set one.)
        ``executor`` (or ``client``) and ``n_shards`` shard the search, as in ``run``."""
        client = one_executor(client, executor)
        self._claim()
        try:
            return BackgroundSearch(self, model, domain, seeds, listeners=listeners, limit_threads=limit_threads,
                                    client=client, n_shards=n_shards)
        except BaseException:
            self._busy.release()
            raise

    def _generate(self, ctx: SearchContext) -> Generator[Batch, Verdict, None]:
        raise NotImplementedError

    def _concluding(self, ctx: SearchContext, strategy):
        """``strategy``, then ``_conclude(ctx)`` once, however it ends (completed, a budget, Stop, Ctrl-C)."""
        try:
            if ctx.natural is not None:
                ctx.natural.start(ctx.engine)      # the natural rate on the data's seeds, before any search
            yield from strategy
        finally:
            self._conclude(ctx)

    def _conclude(self, ctx: SearchContext) -> None:
        """Work done once as the run ends, after every round of fresh seeds (``fairnb.search.seed_rounds``),
        e.g. DICE's debugging; nothing by default. ``ctx.engine.should_stop()`` says whether the user asked
        the run to end."""


def domain_seeds(seeds, domain) -> np.ndarray:
    """``seeds`` as an array in the domain's column order: a DataFrame is aligned by column name (and
    refused when its names are not the domain's), values must be integer codes inside the bounds."""
    if hasattr(seeds, "columns"):
        names = [str(n) for n in domain.names]
        given = [str(c) for c in seeds.columns]
        if sorted(given) != sorted(names):
            missing, extra = sorted(set(names) - set(given)), sorted(set(given) - set(names))
            raise ValueError(f"seeds: a DataFrame of seeds needs exactly the domain's columns {names}; missing "
                             f"{missing}, unexpected {extra} (pass .to_numpy() if the order is already right)")
        seeds = seeds.set_axis(given, axis=1)[names]
    X = domain.validate(getattr(seeds, "values", seeds), what="seeds")   # a list as it is: ["a text", 5] is no texts
    if hasattr(domain, "lower") and not np.array_equal(X, np.rint(X)):     # a bounded integer domain
        raise ValueError("seeds: the domain's features are integer codes, but some seeds have fractional values; "
                         "round or encode them first")
    return X

