"""``Search``, the estimator every method subclasses (scikit-learn style: hyperparameters in ``__init__``, work in
``run``): it checks the parameters, the model, the domain and the seeds, builds the run's oracle, constraints and
``Engine``, and runs the method's strategy (``_generate``) in the foreground, in the background (``start``) or in
shards on an executor; its docstring says what every search's budgets and options mean.

Example
-------
>>> from fairnb.search import RandomSearch
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> RandomSearch(n_samples=200, random_state=0, progress=False).run(data.info["true_model"], data.domain).tried
200
"""
from __future__ import annotations

import threading
import warnings
from numbers import Real
from typing import Generator

import numpy as np

from ... import heap, summaries
from ...interrupts import deferred_interrupts
from ...domains.base import require_capabilities
from ...oracle import Verdict, make_oracle
from ...constraints import resolve as resolve_constraints
from ...params import COUNT, RANDOM_STATE, Estimator, Interval, Options, Satisfies
from ...results import Result, Same
from .background import BackgroundSearch
from .context import SearchContext
from .kernel_messages import CommPump, busy_while_blocking
from .executors import executor_for, one_executor
from .loop import Engine
from .natural import NaturalInputs, control_label, control_parts
from .seed_rounds import draws_rounds, seed_rounds
from .types import Batch


def _is_model(value) -> bool:
    """Whether ``value`` is something a search takes as its model (``fairnb.models.wrap`` accepts it), alone or
    with its label: ``(model, "what it is")``."""
    from ...models import wrap

    return wrap(control_parts(value)[0]) is not None


class Search(Estimator):
    """Base class of every generator: hyperparameters in ``__init__``, work in ``run``.

    Budgets shared by all searches (any combination; the search ends at the first one reached):
    ``max_time`` seconds, ``max_tried`` candidates checked, ``max_found`` unique IDIs in the method's
    own counting convention ``dedup`` (at most that many are kept). Given ``max_time``, a seeded tabular
    search that has searched its seeds draws fresh ones (from the seed inputs, then from the domain) and
    goes on until a budget is reached (``fairnb.search.engine.seed_rounds``). ``max_time=float("inf")`` is allowed
    and means no time limit: a search with no other budget and no natural end (e.g.
    ``RandomSearch(n_samples=None)``, a seeded search with fresh seeds) then runs until ``stop()`` or Ctrl-C.
    **What ``max_time`` counts**: the search from its start, after a one-time set-up that is bounded and small (the
    parameters checked, the model wrapped, a Keras model traced: ``Event("prepare")``); the import of a method's
    module on first use (about 1 s in a fresh process, mostly scikit-learn) also comes before. Everything else is
    counted: seed selection (K-Means, given up when the budget is spent), the natural rate (measured in calls of
    64 inputs, then of a quarter second at the model's pace, until the budget ends it: ``natural_n`` says on how
    many), surrogate trees and boundaries. A search ends within one step of its budget: one batch (at most one
    model call's ``fairnb.oracle.MEMORY_BUDGET`` of input), one z3 check (VBT-X's get what is left of the budget), and DICE's
    severity of at most ``severity_inputs`` IDIs. A search that spent its whole budget and checked nothing, or found
    nothing where some of its start inputs are discriminatory as they are, warns and says what to try. Count
    parameters whose arrays must exist at once are refused (``ValueError`` naming the parameter and the memory)
    when they cannot fit (``fairnb.search.engine.sizes``); the others are worked through in pieces.
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
    (``fairnb.search.engine.natural``) are also checked on it, by the same oracle, and ``summary()`` gives its share
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
    natural_from_data = True     # given data, measure the natural rate on it (``fairnb.search.engine.natural``)

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
        from ...models import wrap

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
        shard per worker): the executor registered for its class runs it (``fairnb.search.engine.executors``).

        ``selected_seeds``: the start inputs, already chosen from ``seeds`` (e.g. by ``select_seeds`` for a
        whole sharded run, of which this run is one shard); ``seeds`` still serve the strategy's other uses
        (NeuronFair's interpretation rows, SG's sampling distribution).
        """
        client = one_executor(client, executor)
        self._claim()
        held = True                            # until _run_claimed takes over the release of ``_busy``
        try:
            with busy_while_blocking():        # in a notebook, the kernel reads "busy" while the cell searches
                held = False
                return self._run_claimed(model, domain, seeds, listeners=listeners, progress=progress, oracle=oracle,
                                         limit_threads=True, client=client, n_shards=n_shards,
                                         selected_seeds=selected_seeds)
        except KeyboardInterrupt:      # a Ctrl-C between the search's end and the return: its Result returns
            with deferred_interrupts(reraise=False):
                if held:               # a Ctrl-C before the search began: the object stays usable
                    self._busy.release()
                result = self._kept_result()
            if result is None:
                raise
            if result.status == "failed":
                result.error.result = result
                raise result.error from None
            return result

    def _kept_result(self) -> Result | None:
        """The Result of the search this object ran, ``"interrupted"`` if it was still running; None when nothing
        was searched yet (a Ctrl-C before the search began)."""
        engine = getattr(self, "engine_", None)
        if engine is None:
            return None
        result = engine.result
        if result.status == "running":
            result.status, result.elapsed = "interrupted", engine.elapsed
        return result

    def _claim(self):
        if not self._busy.acquire(blocking=False):
            raise RuntimeError(f"this {type(self).__name__} is already running a search; stop it or wait for it "
                               f"first, or run a copy: sklearn.base.clone(search)")
        self.engine_ = None        # a Ctrl-C before this run's engine starts must not return the last run's Result

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
            result = self._kept_result()
            if result is None:         # nothing was searched yet
                raise
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

    def _served(self, model, domain):
        """``model`` as this search serves it on ``domain`` (the text searches: ``wrap_text_model``), the control
        model's too."""
        return model

    def _checked(self, model, domain, seeds):
        """``(model, seeds)`` ready to search: the model wrapped, the seeds validated; raises for a parameter,
        a model or a domain this search cannot use."""
        from ...models import supports_activations, supports_gradients, wrap
        from ..registry import refuse_seeds

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
        label = control_label(self.control, model)
        model, seeds = self._checked(model, domain, seeds)
        control = None if self.control is None else make_oracle(
            oracle, self._served(control_parts(self.control)[0], domain), domain)
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
        """Hand the run to the executor registered for ``client`` (``fairnb.search.engine.executors``), with the
        model and seeds checked here and a stop flag that ``stop()`` sets."""
        execute = executor_for(client)
        model, seeds = self._checked(model, domain, seeds)
        make_oracle(oracle, model, domain)             # a bad oracle argument fails here, not on every worker
        self._stop_event = threading.Event()
        return execute(self, model, domain, seeds, client=client, n_shards=n_shards,
                       listeners=self._listeners(listeners, progress), oracle=oracle,
                       should_stop=self._stop_event.is_set)

    def start(self, model, domain, seeds=None, *, listeners=(), limit_threads: bool = False, client=None,
              n_shards: int | None = None, executor=None):
        """Like ``run``, but on a background thread: returns at once a ``fairnb.search.engine.background.BackgroundSearch``
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
        """Work done once as the run ends, after every round of fresh seeds (``fairnb.search.engine.seed_rounds``),
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
