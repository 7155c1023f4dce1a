"""Sound bounds on a ReLU network's decision score over boxes: symbolic intervals and the pair difference.

``relu_layers(model)`` turns a model into weight lists whose one output is the *decision score* ``s``:
the model decides class 1 exactly when ``s > 0`` (a sigmoid unit's logit, or ``z1 - z0`` of a two-class
softmax). ``score_bounds`` bounds ``s`` over many boxes at once by symbolic interval propagation (as in
ReluVal and Neurify): every neuron carries a lower and an upper *linear function of the inputs*, exact
through affine layers; a ReLU keeps them where the neuron is provably active, drops them to 0 where it is
provably inactive, and otherwise relaxes them by lines that stay below / above the ReLU on the neuron's
range. Concretising a linear function over a box (its minimum or maximum) is exact, so the final interval
holds every output of the network on the box. ``difference_bounds`` bounds ``s(x, p) - s(x, p0)``, the
same network at two protected values with the *same* other inputs: the first layer's difference is a
constant (the shared inputs cancel), and it goes through ReLUs and layers in interval arithmetic (as in
ReluDiff); a model that ignores the protected attribute gets exactly ``[0, 0]``.

Example
-------
>>> from fairnb.models import NumpyMLP
>>> layers = relu_layers(NumpyMLP([np.array([[1.0, -1.0]]), np.array([[1.0], [1.0]])], [np.zeros(2), [-0.5]]))
>>> lower, upper, _, _ = score_bounds(layers, np.array([[-1.0]]), np.array([[2.0]]))
>>> float(lower[0]) <= -0.5 and float(upper[0]) >= 1.5        # s(x) = |x| - 0.5 on [-1, 2]
True
"""
from __future__ import annotations

import numpy as np

from ..models import NumpyMLP, wrap


def relu_layers(model) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[(W, b), ...]`` (``W`` of shape ``(in, out)``) of a dense ReLU network whose last layer has one unit,
    the decision score: ``model`` is a fairnb ``NumpyMLP``, a scikit-learn ``MLPClassifier`` with
    ``activation="relu"`` (alone or behind affine scalers), a binary scikit-learn ``LogisticRegression`` (one
    layer, no hidden unit) or a Keras stack of Dense ReLU layers, with a sigmoid output or a two-class softmax.
    Anything else raises ``TypeError`` or ``ValueError``.

    >>> relu_layers(lambda X: X[:, 0])
    Traceback (most recent call last):
    ...
    TypeError: certify needs a dense ReLU network (a fairnb NumpyMLP, a scikit-learn MLPClassifier or LogisticRegression, or a Keras stack of Dense layers) or a scikit-learn tree model (a decision tree, random forest, extra-trees or gradient boosting classifier); got a FunctionModel, whose weights it cannot read
    """
    net = wrap(model)
    linear = _logistic_layer(getattr(net, "estimator", None))
    if linear is not None:
        return linear
    if not isinstance(net, NumpyMLP) and callable(getattr(net, "to_numpy", None)):
        net = net.to_numpy()                     # a Keras dense stack
    if not isinstance(net, NumpyMLP):
        raise TypeError("certify needs a dense ReLU network (a fairnb NumpyMLP, a scikit-learn MLPClassifier or "
                        "LogisticRegression, or a Keras stack of Dense layers) or a scikit-learn tree model (a "
                        "decision tree, random forest, extra-trees or gradient boosting classifier); got a "
                        f"{type(net).__name__}, whose weights it cannot read")
    if len(net.weights) > 1 and net.activation != "relu":
        raise ValueError(f"certify handles ReLU hidden layers; this network's hidden activation is {net.activation!r}")
    weights = [np.asarray(W, dtype=np.float64) for W in net.weights]
    biases = [np.asarray(b, dtype=np.float64) for b in net.biases]
    if net.output == "softmax":
        if weights[-1].shape[1] != 2:
            raise ValueError(f"certify handles two-class decisions; this network has {weights[-1].shape[1]} outputs")
        weights[-1] = weights[-1][:, [1]] - weights[-1][:, [0]]       # class 1 wins iff z1 - z0 > 0
        biases[-1] = biases[-1][[1]] - biases[-1][[0]]
    return list(zip(weights, biases))


def _logistic_layer(estimator) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """A scikit-learn ``LogisticRegression`` as a network of one layer (its score ``X @ coef_.T + intercept_``:
    class 1 exactly when it is above 0), or None for any other estimator."""
    if type(estimator).__name__ != "LogisticRegression" or not type(estimator).__module__.startswith("sklearn."):
        return None
    coef = np.asarray(estimator.coef_, dtype=np.float64)
    if coef.shape[0] != 1:
        raise ValueError(f"certify handles two-class decisions; this logistic regression has "
                         f"{len(estimator.classes_)} classes")
    return [(coef.T.copy(), np.asarray(estimator.intercept_, dtype=np.float64).reshape(1))]


def _concretise(eq: np.ndarray, lows: np.ndarray, highs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Minimum and maximum over each box of the linear functions ``eq`` ``(B, units, d + 1)`` (the last entry the
    constant), for boxes ``lows``/``highs`` ``(B, d)``."""
    A, c = eq[..., :-1], eq[..., -1]
    centre, radius = (lows + highs) / 2, (highs - lows) / 2      # exact for integer boxes
    mid, spread = c + _times(A, centre), _times(np.abs(A), radius)
    return mid - spread, mid + spread


def _first_step_back(W, b, lines, previous):
    """Lines of ``z = a @ W + b`` in terms of the previous layer's input, through the ReLU lines ``(alpha, s, t)``
    of ``a``: ``(lower_eq, upper_eq, lower_c, upper_c)``. ``W``'s signs are the same for every box, so the lines
    are products of its positive and negative parts with the previous layer scaled per box, never a
    ``boxes x units x units`` array."""
    alpha, s, t = lines
    Wp, bp = previous
    P = np.maximum(W.T, 0.0)
    N = W.T - P
    lower_eq = np.matmul(P, alpha[:, :, None] * Wp.T) + np.matmul(N, s[:, :, None] * Wp.T)
    upper_eq = np.matmul(P, s[:, :, None] * Wp.T) + np.matmul(N, alpha[:, :, None] * Wp.T)
    lower_c = b + (alpha * bp) @ P.T + (t + s * bp) @ N.T
    upper_c = b + (t + s * bp) @ P.T + (alpha * bp) @ N.T
    return lower_eq, upper_eq, lower_c, upper_c


def _flat(A: np.ndarray, M: np.ndarray) -> np.ndarray:
    """``A @ M`` for ``A`` ``(B, units, k)`` and one matrix ``M`` ``(k, m)``, as one matrix product."""
    return (A.reshape(-1, A.shape[-1]) @ M).reshape(*A.shape[:-1], M.shape[1])


def _times(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``A[b] @ x[b]`` for every box ``b``: ``(B, units, d)`` times ``(B, d)``."""
    return np.matmul(A, x[..., None])[..., 0]


def _relu(L, U, lows, highs):
    """The ReLU of neurons bounded by the linear functions ``L <= z <= U``: new lower and upper functions,
    and the pre-activation range ``[z_min, z_max]``."""
    lmin, lmax = _concretise(L, lows, highs)
    umin, umax = _concretise(U, lows, highs)
    with np.errstate(divide="ignore", invalid="ignore"):
        up_slope = np.where(umin < 0, umax / (umax - umin), 1.0)     # the chord of relu over [umin, umax]
        low_slope = np.where(lmin < 0, lmax / (lmax - lmin), 1.0)    # relu(t) >= t * slope for slope in [0, 1]
    up_slope = np.where(umax <= 0, 0.0, up_slope)
    low_slope = np.where(lmax <= 0, 0.0, low_slope)
    U2 = U * up_slope[..., None]
    U2[..., -1] -= np.where((umin < 0) & (umax > 0), up_slope * umin, 0.0)
    return L * low_slope[..., None], U2, lmin, umax


def _affine(L, U, W, b):
    """Linear lower and upper functions of ``a @ W + b`` from those of ``a``."""
    pos, neg = np.maximum(W, 0.0), np.minimum(W, 0.0)
    L2 = np.einsum("bpd,pn->bnd", L, pos) + np.einsum("bpd,pn->bnd", U, neg)
    U2 = np.einsum("bpd,pn->bnd", U, pos) + np.einsum("bpd,pn->bnd", L, neg)
    L2[..., -1] += b
    U2[..., -1] += b
    return L2, U2


def score_bounds(layers, lows, highs) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """``(lower, upper, slope, ranges)`` of the decision score over each box ``[lows[i], highs[i]]`` (``(B, d)``
    arrays): ``lower[i] <= s(x) <= upper[i]`` for every real ``x`` in box ``i``. ``slope`` ``(B, d)``: the size
    of the output bounds' coefficients per input (times a box's widths: where splitting helps most);
    ``ranges``: per hidden layer ``(z_min, z_max)``, every neuron's pre-activation range, ``(B, units)`` each."""
    lows, highs = np.asarray(lows, dtype=np.float64), np.asarray(highs, dtype=np.float64)
    W, b = layers[0]
    first = np.concatenate([W.T, b[:, None]], axis=1)
    L = U = np.broadcast_to(first, (len(lows), *first.shape))
    ranges = []
    for W, b in layers[1:]:
        L, U, zmin, zmax = _relu(L, U, lows, highs)
        ranges.append((zmin, zmax))
        L, U = _affine(L, U, W, b)
    lower, _ = _concretise(L, lows, highs)
    _, upper = _concretise(U, lows, highs)
    slope = np.abs(L[:, 0, :-1]) + np.abs(U[:, 0, :-1])
    return lower[:, 0], upper[:, 0], slope, ranges


def difference_bounds(layers, shift, ranges_a, ranges_b) -> tuple[np.ndarray, np.ndarray]:
    """Bounds ``(low, high)`` ``(B,)`` on ``s(x + shift) - s(x)`` for every ``x`` of each box, where ``shift`` ``(B, d)``
    changes only the protected inputs and ``ranges_a`` / ``ranges_b`` are ``score_bounds``'s pre-activation
    ranges on the boxes of ``x + shift`` and of ``x``. Layer one's difference is the constant ``shift @ W``; a
    ReLU passes it on where both neurons are provably active, gives 0 where both are provably inactive, and
    else a range holding 0, the difference and the difference of the two ReLU ranges.

    >>> layers = [(np.array([[1.0], [0.0]]), np.zeros(1)), (np.ones((1, 1)), np.zeros(1))]   # ignores input 1
    >>> box = np.array([[-1.0, 0.0]]); moved = box + [[0.0, 1.0]]
    >>> ra, rb = score_bounds(layers, moved, moved)[3], score_bounds(layers, box, box)[3]
    >>> difference_bounds(layers, moved - box, ra, rb)
    (array([0.]), array([0.]))
    """
    W, b = layers[0]
    dl = du = np.asarray(shift, dtype=np.float64) @ W
    for (W, _), (amin, amax), (bmin, bmax) in zip(layers[1:], ranges_a, ranges_b):
        active, inactive = (amin >= 0) & (bmin >= 0), (amax <= 0) & (bmax <= 0)
        lo = np.maximum(np.minimum(dl, 0.0), np.maximum(amin, 0.0) - np.maximum(bmax, 0.0))
        hi = np.minimum(np.maximum(du, 0.0), np.maximum(amax, 0.0) - np.maximum(bmin, 0.0))
        lo, hi = np.where(active, dl, np.where(inactive, 0.0, lo)), np.where(active, du, np.where(inactive, 0.0, hi))
        pos, neg = np.maximum(W, 0.0), np.minimum(W, 0.0)
        dl, du = lo @ pos + hi @ neg, hi @ pos + lo @ neg
    return dl[:, 0], du[:, 0]


def _relu_lines(zmin, zmax) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(alpha, s, t)`` with ``alpha z <= relu(z) <= s z + t`` for ``zmin <= z <= zmax``: the identity where the
    neuron is provably active, 0 where provably inactive, else the chord above and, below, ``z`` or 0 (whichever
    leaves the smaller area, as in DeepPoly)."""
    crossing = (zmin < 0) & (zmax > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        chord = np.where(crossing, zmax / (zmax - zmin), 0.0)
    active = zmin >= 0
    s = np.where(active, 1.0, chord)
    t = np.where(crossing, -chord * zmin, 0.0)
    alpha = np.where(active | (crossing & (zmax > -zmin)), 1.0, 0.0)
    return alpha, s, t


def backsubstituted_bounds(layers, lows, highs) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """The same as ``score_bounds`` (``(lower, upper, slope, ranges)``), tighter on deep networks: every neuron's
    range comes from linear bounds carried back through every earlier layer to the inputs (back-substitution,
    as in DeepPoly), each ReLU replaced by the lines of ``_relu_lines`` on its own range.

    >>> layers = [(np.array([[1.0, -1.0]]), np.zeros(2)), (np.array([[1.0], [1.0]]), np.array([-0.5]))]
    >>> lower, upper, _, _ = backsubstituted_bounds(layers, np.array([[-1.0]]), np.array([[2.0]]))
    >>> float(lower[0]) <= -0.5 and float(upper[0]) >= 1.5
    True
    """
    lows, highs = np.asarray(lows, dtype=np.float64), np.asarray(highs, dtype=np.float64)
    n = len(lows)
    centre, radius = (lows + highs) / 2, (highs - lows) / 2         # exact for integer boxes
    lines, ranges = [], []
    for k, (W, b) in enumerate(layers):
        if k == 0:
            lower_eq = upper_eq = np.broadcast_to(W.T, (n, *W.T.shape))
            lower_c = upper_c = np.broadcast_to(b, (n, len(b)))
        else:
            lower_eq, upper_eq, lower_c, upper_c = _first_step_back(W, b, lines[k - 1], layers[k - 1])
        for j in range(k - 2, -1, -1):             # from a_j back to z_j, then to a_{j-1} (or to x)
            alpha, s, t = lines[j]
            alpha, s = alpha[:, None, :], s[:, None, :]
            lp, up = np.maximum(lower_eq, 0), np.maximum(upper_eq, 0)
            lower_c = lower_c + _times(lower_eq - lp, t)        # a negative coefficient takes the upper line
            upper_c = upper_c + _times(up, t)
            lower_eq = lower_eq * s + lp * (alpha - s)          # = lp alpha + (lower_eq - lp) s
            upper_eq = upper_eq * alpha + up * (s - alpha)      # = up s + (upper_eq - up) alpha
            Wj, bj = layers[j]
            lower_c = lower_c + _flat(lower_eq, bj[:, None])[..., 0]
            upper_c = upper_c + _flat(upper_eq, bj[:, None])[..., 0]
            lower_eq, upper_eq = _flat(lower_eq, Wj.T), _flat(upper_eq, Wj.T)
        zmin = lower_c + _times(lower_eq, centre) - _times(np.abs(lower_eq), radius)
        zmax = upper_c + _times(upper_eq, centre) + _times(np.abs(upper_eq), radius)
        if k == len(layers) - 1:
            slope = np.abs(lower_eq[:, 0]) + np.abs(upper_eq[:, 0])
            return zmin[:, 0], zmax[:, 0], slope, ranges
        ranges.append((zmin, zmax))
        lines.append(_relu_lines(zmin, zmax))
