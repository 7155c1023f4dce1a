"""``certify``: prove a ReLU network individually fair, or unfair, box by box over an integer domain.

The loop keeps a queue of undecided boxes (at first the whole domain) and, in batches of the largest
boxes (by size class, within a factor 2: ``boxes.SizeQueue``), decides each one (see ``docs/methods/certify.md``):

* a box of at most ``enumerate_at`` integer inputs is decided *exactly*: the oracle checks every input in
  it, and each input becomes a one-input box, certified (fair) or falsified (discriminatory);
* any other box is bounded: every protected value gives one copy of the network on the box (the same
  non-protected inputs), whose decision score ``s`` gets sound bounds (``bounds.backsubstituted_bounds``, or
  ``bounds.score_bounds`` with ``bounds="symbolic"``), and every
  copy's difference to the first copy gets bounds too (``bounds.difference_bounds``). The box is
  **certified** when every copy provably decides as the first (both scores above ``margin``, both below
  ``-margin``, or a difference of exactly 0), **falsified** when one copy's score is provably above
  ``margin`` and another's provably below ``-margin`` (every input in it is discriminatory; its centre,
  re-checked by the oracle, is kept as a witness), else it is split in two between two integers on the
  feature where its bounds are widest (``split="slope"``: the output bounds' slope times the box's
  width) or simply on its widest feature (``split="width"``) and both halves go back to the queue.

The loop ends when the queue is empty (``"completed"``), at a budget (``max_time`` seconds, ``max_boxes``
boxes bounded: ``"budget"``), when ``stop`` says so (``"stopped"``) or at Ctrl-C (``"interrupted"``); every
box decided before is kept. In a notebook a live panel (the one registered in ``fairnb.views``) shows the
shares decided so far and has a Stop button; ``progress=False`` turns it off, and a script imports no widget.
Listeners (``listeners=``, and the panel) get a :class:`Progress` after every step and at the end. The
boxes left are undecided; the oracle checks each one's centre, and those that are discriminatory are
*witness boxes* (the box is unfair somewhere, not proven unfair everywhere).

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> from fairnb.models import NumpyMLP
>>> dom = TabularDomain([Feature("x", -3, 3), Feature("sex", 0, 1)], protected=["sex"])
>>> net = NumpyMLP([np.array([[1.0], [1.5]])], [np.array([-0.75])])       # s = x + 1.5 sex - 0.75
>>> cert = certify(net, dom, enumerate_at=1)
>>> cert.status, cert.summary()["falsified_share"] * 7              # unfair exactly at x = 0
('completed', 1.0)
"""
from __future__ import annotations

import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from .. import summaries, views
from ..domains import TabularDomain
from ..interrupts import deferred_interrupts, interruptible, noted_interrupts
from ..oracle import Oracle
from ..results import Result
from .bounds import backsubstituted_bounds, difference_bounds, relu_layers, score_bounds
from .boxes import SizeQueue, enumerate_points, points, split
from .result import VERDICTS, Certificate
from .trees import StackedTrees, check_bounds, tree_model

SPLITS = ("slope", "width")
BOUNDS = {"backsubstitution": backsubstituted_bounds, "symbolic": score_bounds}


def certify(model, domain, *, max_time: float | None = 60.0, max_boxes: int | None = 1_000_000,
            batch_size: int = 1024, enumerate_at: int = 8, split_by: str = "slope", bounds: str = "backsubstitution",
            margin: float = 1e-6, stop=None, progress=None, listeners=()) -> Certificate:
    """Certify ``model`` individually fair over ``domain`` where it is, falsify it where it is not; returns a
    :class:`~fairnb.certification.Certificate`.

    Parameters
    ----------
    model : a dense ReLU network: a fairnb ``NumpyMLP``, a scikit-learn ``MLPClassifier(activation="relu")``
        (alone or behind affine scalers), a binary ``LogisticRegression`` (a network of one layer), or a Keras
        stack of Dense ReLU layers; sigmoid or two-class output. Or a
        scikit-learn tree model (a decision tree, random forest, extra-trees or gradient boosting classifier),
        certified by its own boxes: cut only where a tree cuts, decided by the bounds of its trees' summed scores
        or, once no tree parts a box, by one input (``fairnb.certification.trees``; ``split_by`` and ``bounds``
        are the networks' only).
    domain : a ``TabularDomain`` with protected attributes (every integer input of it is covered).
    max_time, max_boxes : budgets (seconds; boxes bounded), checked between steps of up to ``batch_size`` boxes;
        None for none. The boxes left are undecided.
    batch_size : boxes bounded together in one numpy step.
    enumerate_at : boxes of at most this many integer inputs are decided exactly by the oracle.
    split_by : ``"slope"`` (where the bounds grow most) or ``"width"`` (the widest feature).
    bounds : ``"backsubstitution"`` (every neuron bounded through all earlier layers, as DeepPoly: tighter on deep
        networks) or ``"symbolic"`` (forward symbolic intervals, as ReluVal).
    margin : a score counts as provably positive (negative) only above ``margin`` (below ``-margin``), so
        rounding (float32 in Keras) cannot flip a certified decision; inputs closer to the threshold are
        decided exactly when their boxes get small.
    stop : a ``threading.Event`` or a callable returning True to end the run (a Stop button); polled
        between batches.
    progress : False for no live panel in a notebook (None or True: the panel, with its Stop button).
    listeners : callables given a :class:`Progress` after every step and at the end.
    """
    trees = tree_model(model)
    layers = relu_layers(model) if trees is None else None
    n_inputs = layers[0][0].shape[0] if trees is None else trees.n_features_in_
    _check(domain, n_inputs, max_time, max_boxes, batch_size, enumerate_at, split_by, bounds, margin)
    if trees is not None:
        check_bounds(domain)
    params = {"max_time": max_time, "max_boxes": max_boxes, "batch_size": batch_size, "enumerate_at": enumerate_at,
              "split_by": split_by, "bounds": bounds, "margin": margin}
    oracle = Oracle(model, domain)
    run = _Run(layers, oracle, params) if trees is None else _TreeRun(StackedTrees(trees), oracle, params)
    stopper = _Stop(stop)
    display = views.progress_panel() if progress is not False and views.in_notebook() else None
    with display.live(stopper) if display is not None else nullcontext() as panel:
        listeners = (*listeners, *((panel,) if panel is not None else ()))
        cert = _certify(run, params, stopper, listeners)
        for listener in listeners:
            listener(Progress.of(cert))
    return cert


def _certify(run, params, should_stop, listeners) -> Certificate:
    started = time.perf_counter()
    status, ended_by = "completed", None
    with noted_interrupts() as pressed:
        try:
            while len(run.queue):
                if pressed.arrived:
                    status = "interrupted"
                    break
                if should_stop():
                    status = "stopped"
                    break
                spent = {"max_time": time.perf_counter() - started, "max_boxes": run.bounded}
                over = [name for name in ("max_time", "max_boxes") if params[name] is not None
                        and spent[name] >= params[name]]
                if over:
                    status, ended_by = "budget", (over[0], params[over[0]])
                    break
                run.step(time.perf_counter() - started)
                progress = run.progress(time.perf_counter() - started) if listeners else None
                for listener in listeners:
                    listener(progress)
        except KeyboardInterrupt:
            status = "interrupted"
    witnessed = np.zeros(len(run.queue), dtype=bool)
    if status != "interrupted":
        with interruptible():
            witnessed = run.witness_undecided(time.perf_counter() - started)
    elapsed = time.perf_counter() - started
    run.witnesses.status, run.witnesses.ended_by, run.witnesses.elapsed = status, ended_by, elapsed
    return Certificate(run.domain, params, status=status, ended_by=ended_by, elapsed=elapsed,
                       bounded=run.bounded, certified=run.joined("certified"), falsified=run.joined("falsified"),
                       undecided=run.queue.boxes(), witnessed=witnessed, witnesses=run.witnesses)


class _Stop:
    """The run's Stop: the caller's ``stop`` (an Event or a callable), or ``stop()`` (the panel's button); ``name``
    and ``stop_words`` (what the Stop button and its hint say) are what the progress panel shows of it."""

    name = "certify"
    stop_words = {"tip": "End the certification; every box decided so far is kept, the rest is left undecided",
                  "blocked": "The certification runs in this cell; interrupt the kernel to stop it (every box "
                             "decided so far is kept)",
                  "hint": "This cell is busy, so the Stop button cannot reach the kernel: interrupt the kernel (■) "
                          "to end the certification (every box decided so far is kept, the rest is left undecided)."}

    def __init__(self, stop):
        self._pressed = threading.Event()
        self._caller = stop.is_set if isinstance(stop, threading.Event) else (stop or (lambda: False))

    def stop(self) -> None:
        self._pressed.set()

    def __call__(self) -> bool:
        return self._pressed.is_set() or bool(self._caller())


@dataclass(frozen=True)
class Progress:
    """What ``certify`` has decided so far (``kind``: ``"step"``, or ``"done"`` with the Certificate's numbers).

    ``shares`` are shares of the integer inputs (``certified``, ``falsified``, ``undecided``); ``decided`` counts
    the boxes certified or falsified; ``stats`` gives them as ``(label, text)`` for a display.

    >>> Progress("step", 2.0, 10, {"certified": 0.5, "falsified": 0.25, "undecided": 0.25}).stats[-2]
    ('boxes per second', '5.0')
    """

    kind: str
    elapsed: float
    decided: int
    shares: dict
    status: str = "running"
    ended_by: tuple | None = None

    @classmethod
    def of(cls, cert: Certificate) -> "Progress":
        """The final progress of a Certificate."""
        summary = cert.summary()
        decided = sum(len(cert.boxes[verdict][0]) for verdict in VERDICTS[:2])
        return cls("done", cert.elapsed, decided, {v: summary[f"{v}_share"] for v in VERDICTS}, cert.status,
                   cert.ended_by)

    @property
    def rate(self) -> float:
        """Boxes decided per second."""
        return self.decided / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def ending(self) -> str:
        """Why the run ended, in words ("" while it runs)."""
        if self.kind != "done":
            return ""
        kept = "; every decided box is kept" if self.status in ("stopped", "interrupted") else ""
        return summaries.ending(self.status, self.ended_by) + kept

    @property
    def stats(self) -> list:
        rate = self.rate
        return [*((verdict, summaries.fmt_share(self.shares[verdict])) for verdict in VERDICTS),
                ("boxes decided", summaries.fmt_count(self.decided)),
                ("boxes per second", summaries.fmt_count(rate) if rate >= 100 else f"{rate:.1f}"),
                ("elapsed", summaries.fmt_seconds(self.elapsed))]


def _is_number(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating)) and np.isfinite(value)


def _check(domain, n_inputs, max_time, max_boxes, batch_size, enumerate_at, split_by, bounds, margin):
    if not isinstance(domain, TabularDomain) or not domain.protected:
        raise ValueError(f"certify needs a TabularDomain with protected attributes; got {domain!r}")
    if type(domain).encode is not TabularDomain.encode:
        raise ValueError(f"certify bounds the model on the domain's rows themselves; {type(domain).__name__} encodes "
                         "them into other model inputs")
    if n_inputs != domain.n_features:
        raise ValueError(f"the model takes {n_inputs} inputs but the domain has {domain.n_features} features")
    for name, value in (("batch_size", batch_size), ("enumerate_at", enumerate_at)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    for name, value in (("max_time", max_time), ("max_boxes", max_boxes)):
        if value is not None and not (_is_number(value) and value >= 0):
            raise ValueError(f"{name} must be a non-negative number or None, got {value!r}")
    if split_by not in SPLITS:
        raise ValueError(f"split_by must be one of {SPLITS}, got {split_by!r}")
    if bounds not in BOUNDS:
        raise ValueError(f"bounds must be one of {sorted(BOUNDS)}, got {bounds!r}")
    if not (_is_number(margin) and margin >= 0):
        raise ValueError(f"margin must be a non-negative number, got {margin!r}")


class _Run:
    """The state of one certification: the queue of undecided boxes, the decided ones, the witnesses."""

    def __init__(self, layers, oracle: Oracle, params: dict):
        domain = oracle.domain
        self.layers, self.oracle, self.params = layers, oracle, params
        self.domain = domain
        self.free = domain.non_protected
        self.prot = list(domain.protected)
        self.values = domain.protected_values
        self.queue = SizeQueue(domain.lower[None, :].copy(), domain.upper[None, :].copy(), self.free)
        self.decided = {"certified": [], "falsified": []}
        self.inputs = {"certified": 0.0, "falsified": 0.0}       # integer inputs decided so far
        self.n_decided = 0                                        # boxes decided so far
        self.total = float(points(domain.lower[None], domain.upper[None], self.free)[0])
        self.bounded = 0
        self.witnesses = Result(domain, "certify", dict(params))

    def joined(self, verdict: str) -> tuple[np.ndarray, np.ndarray]:
        boxes = self.decided[verdict]
        d = self.domain.n_features
        if not boxes:
            return np.zeros((0, d)), np.zeros((0, d))
        return np.concatenate([lo for lo, _ in boxes]), np.concatenate([hi for _, hi in boxes])

    # ------------------------------------------------------------------ one batch
    def step(self, elapsed: float) -> None:
        """Decide or split the ``batch_size`` largest boxes of the queue; the queue and the decided boxes change
        in one step that Ctrl-C cannot cut in half."""
        lows, highs = self.queue.peek(self.params["batch_size"])
        small = points(lows, highs, self.free) <= self.params["enumerate_at"]
        exact = self._exact(lows[small], highs[small], elapsed)
        bounded = self._bound(lows[~small], highs[~small], elapsed)
        with deferred_interrupts():
            for verdict in ("certified", "falsified"):
                for part in (exact, bounded):
                    if len(part[verdict][0]):
                        self.decided[verdict].append(part[verdict])
                        self.inputs[verdict] += float(points(*part[verdict], self.free).sum())
                        self.n_decided += len(part[verdict][0])
            for part in (exact, bounded):
                part["record"]()
            self.queue.drop(len(lows))
            self.queue.push(*bounded["split"])
            self.bounded += int((~small).sum())

    def progress(self, elapsed: float) -> Progress:
        """The shares decided so far."""
        shares = {verdict: n / self.total for verdict, n in self.inputs.items()}
        shares["undecided"] = max(0.0, 1.0 - sum(shares.values()))
        return Progress("step", elapsed, self.n_decided, shares)

    def _whole_protected(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Boxes from rows: the protected columns opened to their whole range."""
        lows, highs = X.copy(), X.copy()
        lows[:, self.prot] = self.domain.lower[self.prot]
        highs[:, self.prot] = self.domain.upper[self.prot]
        return lows, highs

    def _checked(self, X: np.ndarray, phase: str, elapsed: float):
        """The oracle's verdict on ``X`` and a function recording its discriminatory inputs as witnesses."""
        verdict = self.oracle.check(X)
        found = verdict.take(verdict.discriminatory)

        def record():
            self.witnesses.tried += len(X)
            if len(found):
                self.witnesses.record(found.X, found.counterpart, found.proba, found.counterpart_proba, phase=phase,
                                      seed_ids=-1, elapsed=elapsed)
        return verdict.discriminatory, record

    def _exact(self, lows, highs, elapsed) -> dict:
        X, _ = enumerate_points(lows, highs, self.free)
        X[:, self.prot] = self.domain.lower[self.prot]
        unfair, record = self._checked(X, "exact", elapsed)
        return {"certified": self._whole_protected(X[~unfair]), "falsified": self._whole_protected(X[unfair]),
                "record": record}

    def _bound(self, lows, highs, elapsed) -> dict:
        n, m, d = len(lows), len(self.values), lows.shape[1]
        if n == 0:
            return {"certified": (lows, highs), "falsified": (lows, highs), "record": lambda: None, "split": (lows, highs)}
        copies_lo, copies_hi = np.repeat(lows[None], m, axis=0), np.repeat(highs[None], m, axis=0)
        copies_lo[:, :, self.prot] = copies_hi[:, :, self.prot] = self.values[:, None, :]
        bound = BOUNDS[self.params["bounds"]]
        lower, upper, slope, ranges = bound(self.layers, copies_lo.reshape(-1, d), copies_hi.reshape(-1, d))
        lower, upper, slope = lower.reshape(m, n), upper.reshape(m, n), slope.reshape(m, n, d)
        ranges = [(zmin.reshape(m, n, -1), zmax.reshape(m, n, -1)) for zmin, zmax in ranges]
        zero = np.ones((m, n), dtype=bool)         # copies whose difference to the first is exactly 0
        for j in range(1, m):
            low, high = difference_bounds(self.layers, copies_lo[j] - copies_lo[0], [(a[j], b[j]) for a, b in ranges],
                                          [(a[0], b[0]) for a, b in ranges])
            zero[j] = (low == 0) & (high == 0)
            lower[j], upper[j] = np.maximum(lower[j], lower[0] + low), np.minimum(upper[j], upper[0] + high)
        margin = self.params["margin"]
        positive, negative = lower > margin, upper < -margin
        fair = ((positive & positive[0]) | (negative & negative[0]) | zero).all(axis=0)
        unfair = ~fair & positive.any(axis=0) & negative.any(axis=0)
        centres = np.floor((lows[unfair] + highs[unfair]) / 2)
        centres[:, self.prot] = self.domain.lower[self.prot]
        confirmed, record = self._checked(centres, "falsified", elapsed)
        disputed = np.flatnonzero(unfair)[~confirmed]   # rounding beyond the margin: refine instead of claiming
        unfair[disputed] = False
        rest = ~fair & ~unfair
        return {"certified": (lows[fair], highs[fair]), "falsified": (lows[unfair], highs[unfair]), "record": record,
                "split": split(lows[rest], highs[rest], self._feature(lows[rest], highs[rest], slope[:, rest]))}

    def _feature(self, lows, highs, slope) -> np.ndarray:
        """The feature to split each box on: among the non-protected features where it holds two values or
        more, the one with the largest slope times width (``"slope"``) or width (``"width"``)."""
        width = (highs - lows)[:, self.free]
        score = width.astype(float)
        if self.params["split_by"] == "slope":
            score = width * (slope.sum(axis=0)[:, self.free] + 1e-9 * (1 + width))
        score = np.where(width > 0, score, -1.0)
        return self.free[np.argmax(score, axis=1)] if len(score) else np.zeros(0, dtype=int)

    def witness_undecided(self, elapsed: float) -> np.ndarray:
        """Check the centre of every undecided box with the oracle; True where it is discriminatory (its pair kept)."""
        if not len(self.queue):
            return np.zeros(0, dtype=bool)
        lows, highs = self.queue.boxes()
        centres = np.floor((lows + highs) / 2)
        centres[:, self.prot] = self.domain.lower[self.prot]
        found, record = self._checked(centres, "undecided", elapsed)
        record()
        return found


class _TreeRun(_Run):
    """A certification of a tree model (``trees``): a box is decided by the bounds of its trees' scores, or once it
    is pure by one input of it checked with every protected value (exact for the whole box); any other box is cut
    where a tree parts it."""

    def __init__(self, trees: StackedTrees, oracle: Oracle, params: dict):
        super().__init__(None, oracle, params)
        self.trees = trees

    def _bound(self, lows, highs, elapsed) -> dict:
        if not len(lows):
            return super()._bound(lows, highs, elapsed)
        low, high, feature, cut = self.trees.cuts(lows, highs, self.values, self.prot)
        margin = self.params["margin"]
        positive, negative = low > margin, high < -margin                  # (boxes, protected values)
        fair = positive.all(axis=1) | negative.all(axis=1)
        pure = feature < 0
        checked = ~fair & (pure | (positive.any(axis=1) & negative.any(axis=1)))
        corners = lows[checked].copy()
        corners[:, self.prot] = self.domain.lower[self.prot]
        found, record = self._checked(corners, "falsified", elapsed)
        unfair = np.zeros(len(lows), dtype=bool)
        unfair[np.flatnonzero(checked)[found]] = True
        fair |= pure & ~unfair           # a pure box gets the oracle's answer; an unconfirmed bound is cut further
        rest = ~fair & ~unfair
        return {"certified": (lows[fair], highs[fair]), "falsified": (lows[unfair], highs[unfair]), "record": record,
                "split": split(lows[rest], highs[rest], feature[rest], cut[rest])}
