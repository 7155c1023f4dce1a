"""DICE's causal debugging: which hidden layer, and which of its neurons, carry the discrimination.

DICE (ICSE 2023; ``docs/methods/dice.md``) debugs a network on discriminatory inputs in two steps.

**Layer.** For an input, every protected variant runs through the network; in each hidden layer the
*spread* is the largest distance between two variants' activations (the mean absolute difference over
the layer's neurons). A layer's *rate* is how much its spread grows over the largest spread of the layers
before it, ``(D_l - max_{l' < l} D_l') / (max_{l' < l} D_l' + 1e-7)``; the input's layer is the one with
the largest rate (the first hidden layer has nothing before it and is chosen only when it is the only
one), and the **causal layer** is the most frequent choice over the inputs.

**Neurons.** Each neuron of that layer is intervened on, for all variants of every input: held at its
smallest activation over the data (*inactive*) and at its mean activation (*active*). An intervention
that costs more than ``tolerance`` accuracy on the data is not used. With ``k`` the number of output
partitions over the protected values (``fairnb.search.parts.severity``), the relative changes
``r = (mean k after - mean k before) / mean k before`` measure the neuron's causal effect on the
discrimination. DICE's artifact reports ``acd = r_active - r_inactive``; fairnb ranks neurons by
``effect = -min(r_inactive, r_active)``, the share of the discrimination that holding the neuron removes
(the artifact's difference is 0 for a neuron that alone carries the attribute, since both interventions
then remove it; the digest explains the choice). The **causal neurons** are those with ``effect > 0``.
Without labels, the accuracy is the agreement with the model's own decisions on the rows of the data that
no protected value changes (an intervention that removes only the protected attribute's influence keeps
them; one that removes discrimination trivially, by moving every decision, does not).

Interventions need the network's weights: a ``NumpyMLP``, or a Keras dense stack (converted).

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> from fairnb.models import NumpyMLP
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
>>> W1 = np.array([[3.0, 0.0], [0.0, 1.0]])                  # neuron 0 reads sex, neuron 1 reads x
>>> model = NumpyMLP([W1, np.ones((2, 1))], [np.zeros(2), np.array([-5.0])])
>>> data = dom.sample(200, 0)
>>> y = (data[:, 1] >= 4).astype(int)                         # the truth ignores sex
>>> found = localize(model, dom, np.array([[0.0, 3.0], [1.0, 2.0]]), data, y, epsilon=None)
>>> found.layer, found.causal_neurons(), found.neurons["effect"].round(3).tolist()
(0, [0], [0.333, 0.0])
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from .severity import EPSILON, severity_from_outputs

RATE_FLOOR = 1e-7       # DICE's epsilon in the layer rate's denominator
TOLERANCE = 0.05        # DICE's acc_epsilon: the accuracy an intervention may cost
INPUTS = 1000           # DICE's num_samples
TOP_SHARE = 0.2         # of them, the share with the most partitions (the rest drawn at random)


def as_numpy_mlp(model):
    """The network as a ``NumpyMLP`` (which can run from a hidden layer on), or a clear error."""
    from ...models import NumpyMLP

    if isinstance(model, NumpyMLP):
        return model
    if hasattr(model, "to_numpy"):
        return model.to_numpy()
    raise TypeError("DICE's causal debugging intervenes on hidden neurons: it needs a NumpyMLP or a Keras stack of "
                    f"Dense layers; got {type(model).__name__}")


def partitions(mlp, domain, X, epsilon: float | None = EPSILON) -> np.ndarray:
    """Per input of ``X``, the number ``k`` of output partitions over its protected variants."""
    V = domain.variants(np.asarray(X, dtype=float))
    n, m = V.shape[:2]
    return severity_from_outputs(mlp.predict_proba(V.reshape(n * m, -1)).reshape(n, m, -1), epsilon).k


def layer_spreads(mlp, domain, X) -> np.ndarray:
    """``(n, layers)``: per input and hidden layer, the largest mean absolute activation difference between
    two of the input's protected variants."""
    V = domain.variants(np.asarray(X, dtype=float))
    n, m = V.shape[:2]
    if m < 2:
        raise ValueError("the protected attribute has a single value: there is nothing to compare")
    out = []
    for A in mlp.layer_outputs(V.reshape(n * m, -1)):
        A = np.asarray(A, dtype=float).reshape(n, m, -1)
        out.append(np.max([np.abs(A[:, i] - A[:, j]).mean(axis=1) for i, j in combinations(range(m), 2)], axis=0))
    return np.stack(out, axis=1)


def layer_rates(spreads: np.ndarray) -> np.ndarray:
    """DICE's rate of each layer: the growth of its spread over the largest spread before it (NaN for the first).

    >>> layer_rates(np.array([[0.5, 0.5, 2.0]])).round(3).tolist()
    [[nan, 0.0, 3.0]]
    """
    spreads = np.asarray(spreads, dtype=float)
    before = np.maximum.accumulate(spreads, axis=1)[:, :-1]
    rates = (spreads[:, 1:] - before) / (before + RATE_FLOOR)
    return np.hstack([np.full((len(spreads), 1), np.nan), rates])


def locate_layer(spreads: np.ndarray) -> tuple[int, np.ndarray]:
    """The causal layer (the most frequent per-input argmax of the rate; ties: the shallower) and each layer's
    mean rate."""
    rates = layer_rates(spreads)
    if rates.shape[1] == 1:
        return 0, rates.mean(axis=0)
    choice = 1 + np.argmax(rates[:, 1:], axis=1)
    return int(np.bincount(choice, minlength=rates.shape[1]).argmax()), rates.mean(axis=0)


def choose_inputs(k: np.ndarray, limit: int, rng) -> np.ndarray:
    """Indices of at most ``limit`` inputs: DICE's 20 % with the most partitions, the rest drawn at random."""
    if len(k) <= limit:
        return np.arange(len(k))
    top = np.argsort(-k, kind="stable")[: int(limit * TOP_SHARE)]
    rest = np.setdiff1d(np.arange(len(k)), top)
    return np.sort(np.concatenate([top, rng.choice(rest, limit - len(top), replace=False)]))


@dataclass
class Localization:
    """DICE's findings: the causal layer (0-based hidden layer), every layer's mean rate, the layer's
    neurons with their causal effects (``neurons``, sorted by ``effect``), and the inputs' mean partitions."""

    layer: int
    rates: np.ndarray
    neurons: pd.DataFrame
    k_before: float
    n_inputs: int

    def causal_neurons(self) -> list[int]:
        """Neurons of the causal layer whose intervention removes some discrimination, strongest first."""
        return [int(j) for j in self.neurons.loc[self.neurons["effect"] > 0, "neuron"]]

    def layers(self) -> pd.DataFrame:
        """One row per hidden layer: its mean rate and whether it is the causal layer."""
        return pd.DataFrame({"layer": np.arange(len(self.rates)), "rate": np.round(self.rates, 4),
                             "causal": np.arange(len(self.rates)) == self.layer})

    def to_extras(self, top: int = 3) -> dict:
        """Plain values for ``Result.extras``: the layer, the ``top`` causal neurons and their effects."""
        best = self.neurons[self.neurons["effect"] > 0].head(top)
        return {"causal_layer": int(self.layer), "causal_neurons": [int(j) for j in best["neuron"]],
                "causal_effects": [round(float(e), 4) for e in best["effect"]]}


def reference_labels(mlp, domain, data, y=None) -> tuple[np.ndarray, np.ndarray]:
    """The rows and labels an intervention's accuracy is measured on: ``data`` and ``y``; without labels, the
    rows of ``data`` whose decision no protected value changes, with the model's own decisions (an
    intervention that only removes the protected attribute's influence keeps those decisions)."""
    if y is not None:
        y = np.asarray(y).ravel()
        if len(y) != len(data):
            raise ValueError(f"y has {len(y)} labels for {len(data)} rows of data")
        return data, y
    V = domain.variants(data)
    labels = mlp.predict_proba(V.reshape(-1, data.shape[1])).argmax(axis=1).reshape(len(data), -1)
    fair = (labels == labels[:, :1]).all(axis=1)
    if not fair.any():
        raise ValueError("every row of data is discriminatory: pass its labels y to measure the interventions' "
                         "accuracy")
    return data[fair], labels[fair, 0]


def neuron_effects(mlp, domain, X, layer: int, data, y=None, epsilon: float | None = EPSILON,
                   tolerance: float = TOLERANCE) -> pd.DataFrame:
    """Every neuron of hidden ``layer`` held inactive (its minimum over ``data``) and active (its mean) for all
    protected variants of ``X``: the mean partitions after, their relative change, the accuracy on ``data``
    (``reference_labels``) and the effect (module docstring)."""
    data = np.asarray(data, dtype=float)
    if data.ndim != 2 or not len(data):
        raise ValueError("DICE's interventions need data (e.g. the training inputs) for the neurons' minimum and "
                         "mean activations")
    V = domain.variants(np.asarray(X, dtype=float))
    n, m = V.shape[:2]
    hidden = mlp.layer_outputs(V.reshape(n * m, -1))[layer]
    held = mlp.layer_outputs(data)[layer]
    rows_checked, truth = reference_labels(mlp, domain, data, y)
    checked = mlp.layer_outputs(rows_checked)[layer]
    before = partitions(mlp, domain, X, epsilon).mean()
    accuracy = float((mlp.predict_proba(rows_checked).argmax(axis=1) == truth).mean())
    rows = []
    for j in range(hidden.shape[1]):
        row = {"layer": layer, "neuron": j}
        for state, value in (("inactive", held[:, j].min()), ("active", held[:, j].mean())):
            A, D = hidden.copy(), checked.copy()
            A[:, j], D[:, j] = value, value
            k = severity_from_outputs(mlp.predict_proba_from(A, layer).reshape(n, m, -1), epsilon).k.mean()
            acc = float((mlp.predict_proba_from(D, layer).argmax(axis=1) == truth).mean())
            usable = acc >= accuracy - tolerance
            row |= {f"k_{state}": k, f"r_{state}": (k - before) / before if usable else np.nan,
                    f"accuracy_{state}": acc}
        rows.append(row)
    table = pd.DataFrame(rows)
    table["acd"] = table["r_active"] - table["r_inactive"]
    table["effect"] = (0.0 - table[["r_inactive", "r_active"]].min(axis=1)).fillna(0.0)
    return table.sort_values(["effect", "neuron"], ascending=[False, True], kind="stable").reset_index(drop=True)


def localize(model, domain, X, data, y=None, *, epsilon: float | None = EPSILON, tolerance: float = TOLERANCE,
             layer: int | None = None, max_inputs: int = INPUTS, random_state=None, k=None) -> Localization:
    """DICE's causal debugging of ``model`` on the discriminatory inputs ``X`` (at most ``max_inputs`` of them:
    20 % with the most partitions, the rest at random); ``data`` (and its labels ``y``) give the neurons'
    held values and the accuracy an intervention may cost. ``layer`` forces the layer (0-based). ``k``: the
    inputs' partitions when already known (``Severity.k`` with the same ``epsilon``), else computed here."""
    mlp = as_numpy_mlp(model)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or not len(X):
        raise ValueError(f"need a non-empty (rows, features) array of discriminatory inputs; got shape {X.shape}")
    if not 0 < tolerance <= 1:
        raise ValueError(f"tolerance is the accuracy an intervention may cost, in (0, 1]; got {tolerance!r}")
    hidden = len(mlp.layer_sizes) - 1
    if not hidden:
        raise ValueError("the model has no hidden layer to debug")
    if layer is not None and not 0 <= layer < hidden:
        raise ValueError(f"layer {layer} is not a hidden layer (0..{hidden - 1})")
    k = partitions(mlp, domain, X, epsilon) if k is None else np.asarray(k)
    if len(k) != len(X):
        raise ValueError(f"k has {len(k)} partition counts for {len(X)} inputs")
    rows = choose_inputs(k, max_inputs, np.random.default_rng(random_state))
    X = X[rows]
    found, rates = locate_layer(layer_spreads(mlp, domain, X))
    chosen = found if layer is None else int(layer)
    table = neuron_effects(mlp, domain, X, chosen, data, y, epsilon, tolerance)
    return Localization(chosen, rates, table, float(k[rows].mean()), len(X))


def result_localization(model, result, data, y=None, **kwargs) -> Localization:
    """``localize`` on a Result's discriminatory inputs (``result.inputs``)."""
    if not len(result):
        raise ValueError("the Result has no discriminatory inputs to debug")
    return localize(model, result.domain, result.inputs, data, y, **kwargs)
