"""AEQUITAS (Udeshi, Arora, Chattopadhyay, ASE 2018): random global sampling, then local perturbation.

**Global phase.** ``n_seeds`` of the given seeds drawn at random (``random_state``; all of them when there
are fewer), or without seeds ``n_seeds`` inputs drawn uniformly from the domain (the paper); every
discriminatory one starts a local walk. (Given seeds were once taken in file order: on one benchmark the
first rows held none of its 14 discriminatory rows, and the search found nothing.)

**Local phase.** Each walk takes ``n_local`` steps. A step picks one non-protected attribute with
the *attribute probabilities*, moves it by ``step_size`` down with the attribute's *direction
probability* (up otherwise; at a bound the direction is a fair coin), clips into the domain and
checks the result. As in the reference code (scipy basin-hopping with temperature 1), the walker
moves to the new input when it is discriminatory, and otherwise with probability
``exp(-1 / temperature)`` (Metropolis acceptance on the energy "0 if discriminatory, else 1").

**Variants** (how the probabilities learn from each step's outcome; all probabilities are shared
by every walk, as in the paper):

``"random"``  uniform attribute choice, fair-coin directions, nothing learned.
``"semi"``    directions learned, attribute choice uniform (the reference code's semi-directed
              generator; the paper's text is terse about which of the two semi-directed updates).
``"fully"``   both learned (the variant ADF and MAFT compare against):

              * direction: ``p_down[a] += 0.001`` when (discriminatory and moved down) or
                (not discriminatory and moved up), else ``-= 0.001``, kept in [0, 1];
              * attribute: ``p[a] += 0.001`` when discriminatory, else ``p[a] = max(p[a] - 0.001, 0)``,
                then renormalised to sum to 1.

Works for protected attributes with any number of values and for several at once (the oracle
checks every protected combination; the reference code only compares 0 with 1).

**Batching.** All walks advance together: one oracle call per step for every walker and every
protected variant. The reference runs walks one after the other, so its probabilities have
learned from all earlier walks; here every step's outcomes update the shared probabilities at once
(deltas summed per attribute, then kept in range and renormalised).

The Result's extras hold the ADF-style counts (``generated``: unique non-protected tuples checked,
per phase) and the final probabilities.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> r = Aequitas(n_seeds=300, n_local=50, random_state=0).run(fairnb.train_demo_model(data), data.domain)
>>> r.count() > 0 and abs(sum(r.extras["attribute_probability"]) - 1) < 1e-5     # extras: rounded to 6 places
True
"""
from __future__ import annotations

from numbers import Real

import numpy as np

from ...counting import UniqueCounter
from ...params import COUNT, SHARE, STEPS, Interval, Options
from ...results import Count, Derived, Distinct, PerShard, Same
from ..engine.estimator import Search
from ..engine.types import Batch
from ..engine.seeds import warn_if_few_seeds

VARIANTS = {"random": (False, False), "semi": (False, True), "fully": (True, True)}  # (attribute, direction)


class PerturbationPolicy:
    """The shared attribute and direction probabilities of AEQUITAS's local perturbation.

    ``attributes`` are the columns a step may change; ``attribute_probability`` sums to 1 over them,
    ``down_probability[j]`` is the chance that attribute ``attributes[j]`` moves down.

    >>> import numpy as np
    >>> policy = PerturbationPolicy([0, 2], learn_attribute=True, learn_direction=True)
    >>> policy.update(np.array([0, 0]), np.array([-1, 1]), np.array([True, True]))
    >>> policy.attribute_probability.round(4).tolist(), policy.down_probability.tolist()
    ([0.501, 0.499], [0.5, 0.5])
    """

    def __init__(self, attributes, *, learn_attribute: bool, learn_direction: bool,
                 attribute_change: float = 0.001, direction_change: float = 0.001):
        self.attributes = np.asarray(attributes, dtype=int)
        if len(self.attributes) == 0:
            raise ValueError("AEQUITAS needs at least one non-protected attribute to perturb")
        k = len(self.attributes)
        self.attribute_probability = np.full(k, 1.0 / k)
        self.down_probability = np.full(k, 0.5)
        self.learn_attribute = learn_attribute
        self.learn_direction = learn_direction
        self.attribute_change = attribute_change
        self.direction_change = direction_change

    def choose(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``n`` (attribute slot, direction) draws; slots index ``attributes``, directions are -1 or +1."""
        cdf = np.cumsum(self.attribute_probability)
        slots = np.minimum(np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right"), len(cdf) - 1)
        down = rng.random(n) < self.down_probability[slots]
        return slots, np.where(down, -1, 1)

    def neighbours(self, X, step: int, lower, upper) -> tuple[np.ndarray, np.ndarray]:
        """Every move the policy can draw from each row of ``X``: each attribute ``step`` down and up, the
        moves that leave ``[lower, upper]`` dropped. Returns ``(rows, moved)``: the row of ``X`` each moved
        input comes from, and the inputs.

        >>> import numpy as np
        >>> rows, moved = PerturbationPolicy([1], learn_attribute=False, learn_direction=False).neighbours(
        ...     np.array([[0, 0], [0, 5]]), 1, np.array([0, 0]), np.array([1, 5]))
        >>> rows.tolist(), moved.tolist()
        ([0, 1], [[0.0, 1.0], [0.0, 4.0]])
        """
        X = np.asarray(X, dtype=float)
        cols = np.tile(self.attributes, 2)
        shifts = np.repeat([-step, step], len(self.attributes))
        moved = np.repeat(X, len(cols), axis=0)
        rows = np.repeat(np.arange(len(X)), len(cols))
        at = np.arange(len(moved))
        moved[at, np.tile(cols, len(X))] += np.tile(shifts, len(X))
        inside = ((moved >= lower) & (moved <= upper)).all(axis=1)
        return rows[inside], moved[inside]

    def update(self, slots: np.ndarray, directions: np.ndarray, discriminatory: np.ndarray):
        """Learn from one step of every walker (no-op for what the variant does not learn)."""
        if self.learn_direction:
            toward_down = discriminatory == (directions < 0)
            delta = np.where(toward_down, self.direction_change, -self.direction_change)
            np.add.at(self.down_probability, slots, delta)
            np.clip(self.down_probability, 0.0, 1.0, out=self.down_probability)
        if self.learn_attribute:
            delta = np.where(discriminatory, self.attribute_change, -self.attribute_change)
            p = self.attribute_probability
            np.add.at(p, slots, delta)
            np.maximum(p, 0.0, out=p)
            total = p.sum()
            if total > 0:
                p /= total
            else:
                p[:] = 1.0 / len(p)


class Aequitas(Search):
    """AEQUITAS black-box search (random / semi-directed / fully-directed local perturbation).

    Parameters
    ----------
    variant : ``"fully"`` (default), ``"semi"`` or ``"random"``; see the module docstring.
    n_seeds : inputs of the global phase: the first ``n_seeds`` seeds given to ``run``, else uniform random
        inputs (a warning says when fewer seeds are given; ``summary()["seeds_used"]`` counts them).
    n_local : local steps per discriminatory global input.
    step_size : how far one step moves an attribute (``perturbation_unit``, 1).
    attribute_change, direction_change : learning steps of the probabilities (0.001 each).
    temperature : Metropolis temperature of the walk (1, as basin-hopping's default); 0 makes a
        walker move only onto discriminatory inputs.
    global_from : ``None`` (the seeds when given, else random inputs), ``"random"`` (random inputs even
        when seeds are given, the paper) or ``"seeds"`` (require seeds).
    batch_size : inputs per oracle call in the global phase.
    """

    name = "aequitas"
    _parameter_constraints = {**Search._parameter_constraints, "variant": [None, Options(VARIANTS)],
                              "n_seeds": [COUNT], "n_local": [STEPS], "step_size": [COUNT],
                              "attribute_change": [SHARE], "direction_change": [SHARE],
                              "temperature": [Interval(Real, 0, None, closed="left")],
                              "global_from": [None, Options(("random", "seeds"))], "batch_size": [COUNT]}
    domain_needs = ("sample", "bounded")
    default_variant = "fully"
    skips_evaluated = False    # True: a global input already evaluated is not sent again (KOSEI)

    def __init__(self, variant: str | None = None, n_seeds: int = 1000, n_local: int = 1000, step_size: int = 1,
                 attribute_change: float = 0.001, direction_change: float = 0.001, temperature: float = 1.0,
                 global_from: str | None = None, batch_size: int = 2000, *, max_time: float | None = None,
                 max_tried: int | None = None,
                 max_found: int | None = None, random_state: int | None = None, progress: bool | None = None,
                 constraints="default", control=None):
        self.variant = variant
        self.n_seeds = n_seeds
        self.n_local = n_local
        self.step_size = step_size
        self.attribute_change = attribute_change
        self.direction_change = direction_change
        self.temperature = temperature
        self.global_from = global_from
        self.batch_size = batch_size
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints, control=control)

    def _policy(self, domain) -> PerturbationPolicy:
        learn_attribute, learn_direction = VARIANTS[self.variant or self.default_variant]
        return PerturbationPolicy(domain.non_protected, learn_attribute=learn_attribute,
                                  learn_direction=learn_direction, attribute_change=self.attribute_change,
                                  direction_change=self.direction_change)

    def select_seeds(self, seeds, should_stop=None, domain=None) -> np.ndarray | None:
        """The global phase's inputs drawn from ``seeds`` (``n_seeds`` at random), or None when the
        search draws random inputs (``global_from``)."""
        if self.global_from == "random" or (self.global_from is None and seeds is None):
            return None
        if seeds is None:
            raise ValueError("Aequitas(global_from='seeds') needs seeds: pass seeds=X_train to run()")
        warn_if_few_seeds(self, self.n_seeds, len(seeds))
        if len(seeds) <= self.n_seeds:
            return seeds
        picked = np.random.default_rng(self.random_state).choice(len(seeds), self.n_seeds, replace=False)
        return seeds[np.sort(picked)]

    def _global_inputs(self, ctx) -> np.ndarray:
        chosen = self._selected_seeds(ctx)
        return ctx.domain.sample(self.n_seeds, ctx.rng) if chosen is None else chosen

    def _generate(self, ctx):
        domain = ctx.domain
        policy = self._policy(domain)
        starts = ctx.use_seeds(self._global_inputs(ctx))
        seen = UniqueCounter(domain, "adf")
        found = UniqueCounter(domain, "adf")
        stats = {"global": [0, 0], "local": [0, 0]}  # unique tuples generated, unique IDIs (ADF convention)
        global_keys = None
        try:
            walker_ids = yield from self._global_phase(ctx, starts, seen, found, stats)
            global_keys = seen.key_rows()
            yield from self._local_walks(ctx, policy, starts[walker_ids].copy(), walker_ids, seen, found, stats)
        finally:
            ctx.result.tally(generated=Distinct(seen),
                             global_generated=Distinct(seen if global_keys is None else global_keys),
                             global_idis=Count(stats["global"][1]), local_generated=Derived(local_generated),
                             local_idis=Count(stats["local"][1]), **self._learned(policy))

    def _global_phase(self, ctx, starts, seen, found, stats):
        """Check the global inputs ``starts`` in batches (without those already evaluated when
        ``skips_evaluated``: marked skipped); returns the ids of the discriminatory ones, each unique one once."""
        walkers = []
        for lo in range(0, len(starts), self.batch_size):
            ids = np.arange(lo, min(lo + self.batch_size, len(starts)))
            if self.skips_evaluated:
                fresh = ids[seen.fresh(starts[ids]).index]
                ctx.seed_outcome(np.setdiff1d(ids, fresh), "skipped", reason="a repeat of an input already evaluated")
                ids = fresh
            X = starts[ids]
            verdict = yield Batch(X, phase="global", seed_ids=ids)
            stats["global"][0] += int(seen.add(X).sum())
            new = found.add(X[verdict.discriminatory])
            stats["global"][1] += int(new.sum())
            walkers.append(ids[verdict.discriminatory][new])
        return np.concatenate(walkers) if walkers else np.zeros(0, int)

    def _learned(self, policy) -> dict:
        """The tallies of what the variant learned: its name and the final probabilities."""
        return dict(variant=Same(self.variant or self.default_variant),
                    attribute_probability=PerShard(policy.attribute_probability.round(6).tolist()),
                    down_probability=PerShard(policy.down_probability.round(6).tolist()))

    def _local_walks(self, ctx, policy, X, walker_ids, seen, found, stats):
        domain, rng = ctx.domain, ctx.rng
        lower, upper = domain.lower, domain.upper
        rows = np.arange(len(X))
        accept_uphill = np.exp(-1.0 / self.temperature) if self.temperature > 0 else 0.0
        energy = np.zeros(len(X))  # walkers start on discriminatory inputs
        for _ in range(self.n_local if len(X) else 0):
            slots, directions = policy.choose(len(X), rng)
            cols = policy.attributes[slots]
            value = X[rows, cols]
            at_bound = (value == lower[cols]) | (value == upper[cols])
            directions = np.where(at_bound, rng.choice((-1, 1), len(X)), directions)
            proposal = X.copy()
            proposal[rows, cols] = np.clip(value + directions * self.step_size, lower[cols], upper[cols])
            verdict = yield Batch(proposal, phase="local", seed_ids=walker_ids)
            disc = verdict.discriminatory
            stats["local"][0] += int(seen.add(proposal).sum())
            stats["local"][1] += int(found.add(proposal[disc]).sum())
            policy.update(slots, directions, disc)
            # Metropolis acceptance on the energy "0 if discriminatory, else 1"
            new_energy = (~disc).astype(float)
            accept = (new_energy <= energy) | (rng.random(len(X)) < accept_uphill)
            X[accept] = proposal[accept]
            energy[accept] = new_energy[accept]


class AequitasRandom(Aequitas):
    """AEQUITAS with random local perturbation (nothing learned)."""

    name = "aequitas-random"
    default_variant = "random"


class AequitasSemiDirected(Aequitas):
    """AEQUITAS with semi-directed local perturbation (directions learned)."""

    name = "aequitas-semi"
    default_variant = "semi"


def local_generated(result) -> int:
    """The distinct tuples AEQUITAS generated that its global phase had not generated."""
    return result.extras["generated"] - result.extras["global_generated"]
