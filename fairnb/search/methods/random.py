"""Purely random (THEMIS-style) search, and the share of discriminatory inputs in the domain.

Samples the input domain uniformly, in batches, and keeps every discriminatory input. Because the
samples are uniform, the share of discriminatory samples estimates the share of discriminatory
inputs in the whole domain; the Result's extras give it with a 95% Wilson confidence interval.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> r = RandomSearch(n_samples=5000, random_state=0).run(fairnb.train_demo_model(data), data.domain)
>>> r.extras["discriminatory_share"] > 0
True
"""
from __future__ import annotations

import time

from ...domains import TabularDomain
from ...oracle import rows_per_call, variant_bytes
from ...params import COUNT, Options
from ...results import Derived, Ratio
from ...stats import wilson_interval
from ..engine.estimator import Search
from ..engine.types import Batch


class RandomSearch(Search):
    """Uniform random sampling of the domain (THEMIS).

    Parameters
    ----------
    n_samples : inputs to draw; ``None`` runs until another budget (``max_time``, ``max_tried``,
        ``max_found``) ends the search, or draws ``DEFAULT_SAMPLES`` when none is set.
    batch_size : inputs per oracle call (fewer when their protected variants would exceed
        ``fairnb.oracle.MEMORY_BUDGET``), or ``"auto"``: on a ``TabularDomain``, the size that checks the most
        inputs a second, found as the search runs (``BatchSizer``; on a fast model the work of each batch, not the
        model, is the cost); on other domains, ``FIRST_BATCH``. A ``TabularDomain`` draws its inputs from one
        stream of the random generator, so a run finds the same pairs in the same order at any batch size for the
        same ``random_state`` (a domain of your own may not: it gets a fixed size, so its pairs never depend on
        the machine's speed).
    """

    name = "random"
    natural_from_data = False    # its natural rate is that of its random inputs, checked as it searches them
    domain_needs = ("sample",)
    DEFAULT_SAMPLES = 10_000
    FIRST_BATCH = 2_000
    _parameter_constraints = {**Search._parameter_constraints,
                              "n_samples": [None, COUNT], "batch_size": [COUNT, Options(("auto",))]}

    def __init__(self, n_samples: int | None = None, batch_size: int | str = "auto", *, max_time: float | None = None,
                 max_tried: int | None = None, max_found: int | None = None, random_state: int | None = None,
                 progress: bool | None = None, constraints="default", control=None):
        self.n_samples = n_samples
        self.batch_size = batch_size
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints, control=control)

    def _generate(self, ctx):
        n_samples = self.n_samples
        if n_samples is None and self.max_time is None and self.max_tried is None and self.max_found is None:
            n_samples = self.DEFAULT_SAMPLES
        drawn = 0
        dom = ctx.domain    # a batch's variants stay within the oracle's memory budget
        most = rows_per_call(variant_bytes(dom))
        auto = self.batch_size == "auto"
        sizer = BatchSizer(self.FIRST_BATCH) if auto and isinstance(dom, TabularDomain) else None
        fixed = self.FIRST_BATCH if auto else self.batch_size
        try:
            while n_samples is None or drawn < n_samples:
                size = min(sizer.size if sizer else fixed, most, ctx.engine.remaining_tried,
                           float("inf") if n_samples is None else n_samples - drawn)
                if size <= 0:
                    break
                X = ctx.domain.sample(int(size), ctx.rng)
                start = time.perf_counter()
                yield Batch(X, phase="random", seed_ids=-1)
                if sizer:
                    sizer.checked(len(X), time.perf_counter() - start)
                ctx.engine.measure_control(X)      # random inputs are checked as they are: on the control too
                drawn += len(X)
        finally:   # the discriminatory share of the domain with its 95% Wilson interval
            ctx.result.tally(discriminatory_share=Ratio("hits", "tried"), share_ci_low=Derived(share_ci_low),
                             share_ci_high=Derived(share_ci_high), natural_n=Derived(tried),
                             natural_idis=Derived(hits))   # random inputs are checked as they are


class BatchSizer:
    """Batch sizes that check the most inputs a second: ``first``, then each doubling up to ``largest`` while a
    batch takes under ``quick`` seconds, each size timed by the fastest of ``repeats`` batches (one batch slowed
    by something else on the machine decides nothing); then the size that was fastest per input, for good.

    >>> s = BatchSizer(first=1000, largest=4000, repeats=1)
    >>> for seconds in (0.004, 0.006, 0.016):        # per input: 4, 3, then 4 microseconds
    ...     s.checked(s.size, seconds)
    >>> s.size, s.settled
    (2000, True)
    """

    def __init__(self, first: int = 2_000, largest: int = 65_536, quick: float = 0.25, repeats: int = 3):
        self.size, self.largest, self.quick, self.repeats = first, largest, quick, repeats
        self.settled = False
        self._times: list[float] = []       # seconds per input of this size's batches so far
        self._per_input: dict[int, float] = {}     # each size tried: its fastest seconds per input

    def checked(self, n: int, seconds: float) -> None:
        """Take the time one batch of ``n`` inputs (this size, or fewer at the end) took to check."""
        if self.settled or n < self.size:
            return
        self._times.append(seconds / n)
        if len(self._times) < self.repeats:
            return
        self._per_input[self.size], self._times = min(self._times), []
        if self._per_input[self.size] * n < self.quick and 2 * self.size <= self.largest:
            self.size *= 2
        else:
            self.size, self.settled = min(self._per_input, key=self._per_input.get), True


def share_ci_low(result) -> float:
    """The low end of the 95% Wilson interval of the discriminatory share ``hits / tried``."""
    return round(wilson_interval(result.hits, result.tried)[0], 6)


def share_ci_high(result) -> float:
    """The high end of the 95% Wilson interval of the discriminatory share ``hits / tried``."""
    return round(wilson_interval(result.hits, result.tried)[1], 6)


def tried(result) -> int:
    """The candidates ``result`` checked (a random search's natural inputs)."""
    return result.tried


def hits(result) -> int:
    """The discriminatory candidates of ``result``, repeats included."""
    return result.hits
