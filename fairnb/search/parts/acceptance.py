"""Acceptance: which of its local steps a walker of a two-phase search keeps (TextAttack composes a search from a
goal, constraints, a transformation and a search method; fairnb's two-phase skeleton,
``fairnb.search.methods.two_phase.TwoPhase``, asks its acceptance part this after every local step).

A rule is asked once per walk for its state (``start(start)``, ``start`` the walkers' starting pairs: the global
IDIs), then after every local step ``decide(rng, verdict, state) -> (keep, back)``: the walkers that move to their
candidate, and those that go back to where their walk started. A discriminatory candidate is always a pair found
(the engine records it); acceptance decides only where the walk goes on from.

``KeepAll``: every step is kept (ADF's Algorithm 7 as printed, NeuronFair's paper). ``ResetOnFailure``: a step
that is not discriminatory sends the walker back to its start (EIDIG's and MAFT's re-implementations of ADF).
``Metropolis``: a step that raises the energy by ``dE`` is kept with probability ``e^-dE`` (T = 1, the basin
hopping of ADF's reference code; the energy is 0 on discriminatory inputs, 1 elsewhere; DICE's is minus the spread
of the output partitions: ``fairnb.search.methods.dice.SpreadMetropolis``). ``RULES`` names them as a method's
``acceptance`` parameter does.

Example
-------
>>> import numpy as np
>>> from types import SimpleNamespace
>>> verdict = SimpleNamespace(discriminatory=np.array([True, False, False]))
>>> keep, back = ResetOnFailure().decide(np.random.default_rng(0), verdict, None)
>>> keep.tolist(), back.tolist()
([True, False, False], [False, True, True])
>>> rule = Metropolis(); energy = rule.start(np.zeros((3, 2)))
>>> keep, back = rule.decide(np.random.default_rng(1), verdict, energy)
>>> keep.tolist(), energy.tolist()          # uphill moves kept with probability e^-1
([True, False, True], [0.0, 0.0, 1.0])
"""
from __future__ import annotations

import numpy as np


class KeepAll:
    """Every step is kept, discriminatory or not."""

    def start(self, start) -> None:
        return None

    def decide(self, rng, verdict, state) -> tuple[np.ndarray, np.ndarray]:
        n = len(verdict.discriminatory)
        return np.ones(n, bool), np.zeros(n, bool)


class ResetOnFailure:
    """A discriminatory step is kept; after any other the walker goes back to where its walk started."""

    def start(self, start) -> None:
        return None

    def decide(self, rng, verdict, state) -> tuple[np.ndarray, np.ndarray]:
        ok = np.asarray(verdict.discriminatory, dtype=bool)
        return ok, ~ok


class Metropolis:
    """Metropolis acceptance at T = 1 on an energy (lower is better): a step that lowers it or keeps it is kept,
    one that raises it by ``dE`` is kept with probability ``e^-dE``. The state is the walkers' current energies;
    a subclass changes the energy (``energy``, and ``start_energy`` for the starting pairs)."""

    def energy(self, verdict) -> np.ndarray:
        """The energy of checked candidates: 0 on discriminatory inputs, 1 elsewhere (ADF's reference code)."""
        return (~np.asarray(verdict.discriminatory, dtype=bool)).astype(float)

    def start_energy(self, start) -> np.ndarray:
        """The energy of the walkers' starting points (global IDIs: 0, as ``energy`` gives them)."""
        return np.zeros(len(start))

    def start(self, start) -> np.ndarray:
        return self.start_energy(start)

    def decide(self, rng, verdict, state) -> tuple[np.ndarray, np.ndarray]:
        proposed = self.energy(verdict)
        keep = rng.random(len(state)) < np.exp(np.minimum(state - proposed, 0.0))
        state[keep] = proposed[keep]
        return keep, np.zeros(len(keep), bool)


RULES = {"all": KeepAll, "metropolis": Metropolis, "reset": ResetOnFailure}   # a method's ``acceptance`` values
