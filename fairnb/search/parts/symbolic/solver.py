"""Solving SG's path constraints with z3, many at once.

Every constraint is a conjunction of ``x[f] <= t`` / ``x[f] > t`` over integer attributes within
the domain bounds; over integers ``x <= t`` is ``x <= floor(t)`` and ``x > t`` is
``x >= floor(t) + 1``, which is what z3 is given (pure linear integer arithmetic).

The answer for a constraint is a full input: attributes it does not mention keep the *anchor*'s
values (the input whose path it came from). With ``nearest`` the constrained attributes take the
satisfying values closest to the anchor in L1 distance (SG's "sticky" local solutions); otherwise
whatever z3's model gives (the ADF re-implementation's global solutions).

"Closest" is stated to z3 without an optimiser, because the feasible values of one attribute form
an interval: ``v`` is the closest value to ``a`` iff ``P(v)`` holds and the next value towards
``a`` does not (``v > a => not P(v - 1)``, ``v < a => not P(v + 1)``), where ``P`` is the
conjunction of the constraint's predicates on that attribute and its bounds. (``z3.Optimize``
answers the same but is far slower, and slower than linear when a round's problems are combined.)

**Batching.** z3's fixed cost per call (about a millisecond) dominates these tiny problems, and
guarding each constraint with an assumption literal makes a combined problem slow. So with
``prescreen=True`` (the default) the constraints whose integer box is empty (a conflict between two
predicates on one attribute, or a threshold beyond a bound: see :func:`.constraints.box`, which SG
already computes as the constraint's identity) are answered "unsatisfiable" without z3, and all the
others are solved by z3 in one call (they share no variables, so one model answers them all). With
``prescreen=False`` z3 decides every constraint by itself, one call each; the tests check that both
give the same answers.

Example
-------
>>> import numpy as np
>>> from fairnb.search.parts.symbolic import Predicate
>>> solver = Z3Solver(lower=[0, 0], upper=[9, 9])
>>> ok = (Predicate(0, ">", 3.5), Predicate(0, "<=", 6.5))
>>> never = (Predicate(1, ">", 3.5), Predicate(1, "<=", 2.5))
>>> [None if s is None else s.tolist() for s in solver.solve([ok, never], np.array([[1.0, 5.0]] * 2), [True, True])]
[[4.0, 5.0], None]
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from .constraints import box


class Z3Solver:
    """Batched z3 solving of box constraints over integer attributes in ``[lower, upper]``.

    Counters: ``solved`` constraints handed in, ``sat`` / ``unsat`` answers, ``prescreened``
    unsatisfiable ones answered from their empty box, ``checks`` z3 calls.
    """

    def __init__(self, lower, upper, *, prescreen: bool = True):
        self.lower = np.asarray(lower, dtype=float)
        self.upper = np.asarray(upper, dtype=float)
        self.prescreen = prescreen
        self.solved = self.sat = self.unsat = self.prescreened = self.checks = 0

    def _allowed(self, f: int, value: str, predicates) -> str:
        """SMT-LIB: the Int term ``value`` lies within the bounds of ``f`` and satisfies ``predicates``."""
        terms = [f"(>= {value} {int(self.lower[f])})", f"(<= {value} {int(self.upper[f])})"]
        for p in predicates:
            lo, hi = p.integer_bounds()
            terms.append(f"(<= {value} {int(hi)})" if p.op == "<=" else f"(>= {value} {int(lo)})")
        return f"(and {' '.join(terms)})"

    def _program(self, j: int, constraint, anchor, nearest: bool) -> tuple[str, list[int]]:
        features = sorted({p.feature for p in constraint})
        text = "".join(f"(declare-const v{j}_{f} Int)" for f in features)
        for f in features:
            on_f = [p for p in constraint if p.feature == f]
            v, a = f"v{j}_{f}", int(anchor[f])
            text += f"(assert {self._allowed(f, v, on_f)})"
            if nearest:
                text += (f"(assert (=> (> {v} {a}) (not {self._allowed(f, f'(- {v} 1)', on_f)})))"
                         f"(assert (=> (< {v} {a}) (not {self._allowed(f, f'(+ {v} 1)', on_f)})))")
        return text, features

    def _solve_together(self, js, programs, anchors) -> dict | None:
        """z3 answers for the constraints ``js`` in one call; None when they are not all satisfiable."""
        with _interrupts_kept():
            return self._solve_together_z3(js, programs, anchors)

    def _solve_together_z3(self, js, programs, anchors) -> dict | None:
        import z3

        self.checks += 1
        solver = z3.SimpleSolver()
        solver.from_string("".join(programs[j][0] for j in js))
        if not decide(solver, f"{len(js)} constraints"):
            return None
        model = solver.model()
        out = {}
        for j in js:
            x = anchors[j].copy()
            for f in programs[j][1]:
                x[f] = model.eval(z3.Int(f"v{j}_{f}"), model_completion=True).as_long()
            out[j] = x
        return out

    def solve(self, constraints, anchors, nearest) -> list[np.ndarray | None]:
        """One answer per constraint: a satisfying input (see the module docstring) or None if unsatisfiable."""
        constraints = list(constraints)
        if not constraints:
            return []
        anchors = np.asarray(anchors, dtype=float).reshape(len(constraints), -1)
        nearest = np.broadcast_to(np.asarray(nearest, dtype=bool), (len(constraints),))
        programs = [self._program(j, c, anchors[j], nearest[j]) for j, c in enumerate(constraints)]
        answers: list[np.ndarray | None] = [None] * len(constraints)
        if self.prescreen:
            feasible = [j for j, c in enumerate(constraints) if np.all(np.less_equal(*box(c, self.lower, self.upper)))]
            self.prescreened += len(constraints) - len(feasible)
            found = self._solve_together(feasible, programs, anchors) if feasible else {}
            if found is None:
                raise RuntimeError("z3 found constraints with non-empty integer boxes unsatisfiable; please report")
        else:
            found = {}
            for j in range(len(constraints)):
                found.update(self._solve_together([j], programs, anchors) or {})
        for j, x in found.items():
            answers[j] = x
        self.solved += len(constraints)
        self.sat += len(found)
        self.unsat += len(constraints) - len(found)
        return answers


def decide(solver, what: str, time_limit: float | None = None) -> bool | None:
    """``solver.check()`` as satisfiable or not; a Ctrl-C that z3 noticed is raised as ``KeyboardInterrupt``
    and any other unknown answer as a ``RuntimeError`` naming ``what`` was being decided. With ``time_limit``
    (seconds, e.g. what is left of a search's ``max_time``), z3 gives up after it and the answer is None."""
    import time

    import z3

    if time_limit is not None:
        solver.set("timeout", max(1, int(time_limit * 1000)))
    start = time.perf_counter()
    with _interrupts_kept():
        answer = solver.check()
    if answer == z3.unknown:     # not an answer: z3 was interrupted (Ctrl-C), ran out of time or gave up
        reason = solver.reason_unknown()
        # z3 says "canceled" for both, and its timer may end a little early: most of the limit spent is its timeout
        if time_limit is not None and time.perf_counter() - start >= 0.9 * time_limit:
            return None
        if "cancel" in reason or "interrupt" in reason:
            raise KeyboardInterrupt
        raise RuntimeError(f"z3 could not decide {what}: {reason}")
    return answer == z3.sat


@contextmanager
def _interrupts_kept():
    """z3 runs through ctypes, and a Ctrl-C that lands while ctypes converts an argument surfaces as
    ``ctypes.ArgumentError("argument 2: KeyboardInterrupt: ")``; raise it as the interruption it is.

    >>> import ctypes
    >>> try:
    ...     with _interrupts_kept():
    ...         raise ctypes.ArgumentError("argument 2: KeyboardInterrupt: ")
    ... except KeyboardInterrupt:
    ...     print("interrupted")
    interrupted
    """
    import ctypes

    try:
        yield
    except ctypes.ArgumentError as e:
        if "KeyboardInterrupt" in str(e):
            raise KeyboardInterrupt from e
        raise
