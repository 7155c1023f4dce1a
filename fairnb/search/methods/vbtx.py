"""VBT-X (Zhao, Toda, Kitamura, IST 2024): verification-based testing with hashing-based sampling for diversity.

Each loop trains a decision tree (entropy, grown fully unless ``max_leaf_nodes``) on labelled inputs: ``n_train``
uniform random inputs labelled by the model, plus every input the tree has mispredicted since. The tree becomes a z3
formula over two copies of an input that share the non-protected attributes, differ in the protected ones and get
different labels from the tree (:class:`PairFormula`): its solutions are the pairs that are discriminatory *in the
tree*. Instead of asking z3 for one solution, VBT-X draws up to ``max_solutions`` of them by hashing: each draw adds
random XOR (parity) constraints over the tree's threshold atoms on the non-protected attributes (``x[f] <= t``, one
atom of an attribute per XOR, each attribute with probability 1/2, the parity random), which cut the solutions into
random cells, and takes z3's solution in one cell. The number of XORs starts at ``n_xor`` and is calibrated while
sampling: raised by 20 after every five satisfiable draws until a draw is unsatisfiable, then halved. The pairs of a
loop are checked by the model in one call; each input the tree mispredicted joins the training inputs. The loop
starts again from fresh random inputs when the tree has no discriminatory pair, or (five loops running) nothing was
mispredicted. Only the model's outputs are used. ``docs/methods/vbtx.md`` is the digest.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> r = VBTX(n_loops=3, n_train=1000, max_solutions=20, random_state=0).run(fairnb.train_demo_model(data), data.domain)
>>> r.count() > 0 and r.extras["loops"] == 3
True
"""
from __future__ import annotations

from numbers import Integral

import numpy as np

from ...params import COUNT, STEPS, Interval, Options
from .aft import TreeApproximation, leaf_boxes
from ..engine.estimator import Search
from ..engine.types import Batch
from ..parts.symbolic.solver import decide

XOR_STEP, SATS_PER_STEP = 20, 5      # calibration: XORs added after every five satisfiable draws
CELL_VALUES = ("solver", "uniform")


class PairFormula:
    """A fitted decision tree as a z3 formula whose solutions are the pairs discriminatory in the tree.

    Two copies of an input: one integer variable per non-protected attribute (shared), two per protected attribute;
    every variable within the domain's bounds; the copies' protected values in decreasing lexicographic order (so
    they differ, and a pair and its reverse are one solution); each copy's label is its leaf's label (a leaf is a box,
    :func:`fairnb.search.methods.aft.leaf_boxes`); the two labels differ. ``atoms`` maps each non-protected attribute to the
    tree's cuts ``c`` on it (the atoms ``x[f] <= c`` the XORs are made of); ``max_xor`` the most XORs a draw uses.

    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = np.array([[a, s] for a in range(10) for s in (0, 1)], dtype=float)
    >>> tree = DecisionTreeClassifier().fit(X, ((X[:, 0] > 4) & (X[:, 1] == 1)).astype(int))
    >>> x1, x2 = PairFormula(tree, lower=[0, 0], upper=[9, 1], protected=[1]).sample(np.random.default_rng(0))
    >>> bool((x1[:, 0] > 4).all() and (x1[:, 1] == 1).all() and (x2[:, 1] == 0).all())
    True
    """

    def __init__(self, tree, lower, upper, protected):
        import z3

        self.lower, self.upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
        self.protected = list(protected)
        d = len(self.lower)
        names = [[f"x{f}" if f not in self.protected else f"x{f}_{k}" for f in range(d)] for k in (0, 1)]
        low, high, label, _ = leaf_boxes(tree, self.lower, self.upper)
        label = tree.classes_[label]
        self.atoms = {f: sorted({int(c) for c in np.concatenate([high[:, f], low[:, f] - 1])
                                 if self.lower[f] <= c < self.upper[f]})
                      for f in range(d) if f not in self.protected}
        self.atoms = {f: cuts for f, cuts in self.atoms.items() if cuts}
        # SMT-LIB text: z3 parses it far faster than the same formula is built through its Python API
        feature_of = {v: f for x in names for f, v in enumerate(x)}
        text = [f"(declare-const {v} Int)" for v in [*feature_of, "label_0", "label_1"]]
        text += [f"(assert (and (>= {v} {int(self.lower[f])}) (<= {v} {int(self.upper[f])})))"
                 for v, f in feature_of.items()]
        for k, x in enumerate(names):
            for lo, hi, y in zip(low, high, label):
                inside = [f"(<= {x[f]} {int(hi[f])})" for f in range(d) if hi[f] < self.upper[f]]
                inside += [f"(not (<= {x[f]} {int(lo[f]) - 1}))" for f in range(d) if lo[f] > self.lower[f]]
                text.append(f"(assert (=> (and true {' '.join(inside)}) (= label_{k} {int(y)})))")
        text.append("(assert (distinct label_0 label_1))")
        a, b = [[x[p] for p in self.protected] for x in names]
        ordered = [f"(and true {' '.join(f'(= {a[j]} {b[j]})' for j in range(k))} (> {a[k]} {b[k]}))"
                   for k in range(len(a))]
        text.append(f"(assert (or {' '.join(ordered)}))")
        context = z3.Context()      # its own: z3's answers depend on what a context has seen, and runs must repeat
        self.solver = z3.Solver(ctx=context)
        self.solver.from_string("\n".join(text))
        self.variables = [[z3.Int(v, ctx=context) for v in x] for x in names]
        self._atom_text = {f: [f"(<= x{f} {c})" for c in cuts] for f, cuts in self.atoms.items()}
        # the atoms' truth values split the inputs into at most 2^bits cells: XORs past bits + XOR_STEP leave no
        # solution in all but about a millionth of draws, so more (n_xor=10**12) only cost time and memory
        self.max_xor = int(np.ceil(sum(np.log2(len(cuts) + 1) for cuts in self.atoms.values()))) + XOR_STEP

    def _xors(self, n_xor: int, rng) -> str:
        """``n_xor`` random parity constraints over the atoms, as SMT-LIB text (z3 parses it far faster than the
        same constraints are built through its Python API): each attribute joins with probability 1/2 through one
        of its atoms drawn uniformly; the parity is random."""
        out = []       # the solver knows the variables from the formula's own text
        for _ in range(n_xor):
            terms = [self._atom_text[f][rng.integers(len(cuts))] for f, cuts in self.atoms.items() if rng.random() < 0.5]
            if terms:
                parity = terms[0]
                for t in terms[1:]:
                    parity = f"(xor {parity} {t})"
                out.append(f"(assert {parity})" if rng.random() < 0.5 else f"(assert (not {parity}))")
        return "\n".join(out)

    def sample(self, rng, *, n_xor: int = 5, calibrate: bool = True, max_solutions: int = 50,
               max_tries: int = 1000, should_stop=lambda: False, time_left=lambda: None, stats: dict | None = None):
        """Up to ``max_solutions`` pairs ``(X1, X2)`` drawn by hashing in up to ``max_tries`` z3 checks (both
        empty when the formula has no solution). ``n_xor=0`` without ``calibrate`` asks z3 alone; ``n_xor`` is
        at most ``max_xor``. Each z3 check gets at most ``time_left()`` seconds (None: no limit): a check that
        runs out of it ends the sampling (counted in ``stats["z3_timed_out"]``)."""
        d = len(self.lower)
        pairs, sats, n_xor, stats = [], 0, min(n_xor, self.max_xor), {} if stats is None else stats
        sat = decide(self.solver, "a tree's discrimination formula", time_left())
        for _ in range(max_tries if sat else 0):
            if len(pairs) >= max_solutions or should_stop():
                break
            self.solver.push()
            self.solver.from_string(self._xors(n_xor, rng))
            sat = decide(self.solver, "a tree's discrimination formula with XOR constraints", time_left())
            if sat and not calibrate:      # the solutions of the calibrating draws are not kept
                model = self.solver.model()
                pairs.append([[model.eval(v, model_completion=True).as_long() for v in c] for c in self.variables])
            self.solver.pop()
            stats["z3_checks"] = stats.get("z3_checks", 0) + 1
            if sat is None:
                break
            if calibrate and not sat:
                n_xor, calibrate = n_xor // 2, False
            elif calibrate:
                sats += 1
                n_xor = min(n_xor + (XOR_STEP if sats % SATS_PER_STEP == 0 else 0), self.max_xor)
        if sat is None:
            stats["z3_timed_out"] = stats.get("z3_timed_out", 0) + 1
        P = np.array(pairs, dtype=float).reshape(-1, 2, d)
        return P[:, 0], P[:, 1]

    def spread(self, X1, X2, rng):
        """The pairs with each non-protected value drawn uniformly from its cell (the values between two
        consecutive cuts): every atom keeps its truth value, so the tree labels the pairs as before."""
        X1, X2 = X1.copy(), X2.copy()
        for f, cuts in self.atoms.items():
            cuts = np.array(cuts, dtype=float)
            i = np.searchsorted(cuts, X1[:, f])           # x <= cuts[i] and x > cuts[i - 1]
            lo = np.where(i > 0, cuts[np.maximum(i - 1, 0)] + 1, self.lower[f])
            hi = np.where(i < len(cuts), cuts[np.minimum(i, len(cuts) - 1)], self.upper[f])
            X1[:, f] = X2[:, f] = rng.integers(lo.astype(np.int64), hi.astype(np.int64) + 1)
        return X1, X2


class VBTX(TreeApproximation):
    """VBT-X black-box search: a decision tree approximates the model, z3 and XOR hashing sample its discrimination.

    Parameters
    ----------
    n_loops : loops (tree, formula, sampling); ``None`` runs until another budget (``max_time``, ``max_tried``,
        ``max_found``) ends the search, or ``DEFAULT_LOOPS`` when none is set (the artifact runs until its time budget).
    n_train : random inputs labelled by the model when VBT-X (re)starts (5000).
    max_leaf_nodes : leaves of the approximating tree (``None``: grown fully, the artifact's tree).
    n_xor : XOR constraints per draw when sampling starts (5).
    calibrate : adjust ``n_xor`` while sampling (the artifact's "improved" VBT-X); ``False`` keeps it fixed.
    max_solutions, max_tries : pairs drawn per loop (50) within z3 checks per loop (1000).
    cell_values : ``"solver"`` (the artifact: the values z3 chose) or ``"uniform"`` (each non-protected value drawn
        uniformly from the same cell of the tree's cuts, which the tree labels the same).
    """

    name = "vbtx"
    loop_counts = ("z3_checks", "z3_timed_out")
    _parameter_constraints = {**Search._parameter_constraints, "n_loops": [None, COUNT], "n_train": [COUNT],
                              "max_leaf_nodes": [None, Interval(Integral, 2, None, closed="left")],
                              "n_xor": [STEPS], "calibrate": [bool], "max_solutions": [COUNT], "max_tries": [COUNT],
                              "cell_values": [Options(CELL_VALUES)]}

    def __init__(self, n_loops: int | None = None, n_train: int = 5000, max_leaf_nodes: int | None = None,
                 n_xor: int = 5, calibrate: bool = True, max_solutions: int = 50, max_tries: int = 1000,
                 cell_values: str = "solver", *, max_time: float | None = None, max_tried: int | None = None,
                 max_found: int | None = None, random_state: int | None = None, progress: bool | None = None,
                 constraints="default", control=None):
        self.n_loops, self.n_train, self.max_leaf_nodes = n_loops, n_train, max_leaf_nodes
        self.n_xor, self.calibrate, self.max_solutions, self.max_tries = n_xor, calibrate, max_solutions, max_tries
        self.cell_values = cell_values
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress, constraints=constraints, control=control)

    def _budget_hint(self, result) -> str:
        if not result.extras.get("z3_timed_out"):
            return super()._budget_hint(result)
        return ("its z3 draws did not finish within the budget: many XOR constraints over a wide tree are slow to "
                "solve; try calibrate=False (n_xor stays fixed, 5 by default), a smaller max_leaf_nodes or another "
                "method")

    def _explore(self, ctx, tree, seen, counts):
        dom = ctx.domain
        formula = PairFormula(tree, dom.lower, dom.upper, dom.protected)
        X1, X2 = formula.sample(ctx.rng, n_xor=self.n_xor, calibrate=self.calibrate,
                                max_solutions=self.max_solutions, max_tries=self.max_tries,
                                should_stop=lambda: ctx.engine.out_of_budget() is not None,
                                time_left=lambda: ctx.engine.time_left(), stats=counts)
        if not len(X1):
            return None
        if self.cell_values == "uniform":
            X1, X2 = formula.spread(X1, X2, ctx.rng)
        verdict = yield Batch(X1, phase="local", seed_ids=-1)
        seen.add(X1)
        own = verdict.variant_proba[np.arange(len(X2)), dom.own_variant(X2)].argmax(axis=1)
        wrong1, wrong2 = verdict.labels != tree.predict(X1), own != tree.predict(X2)
        return np.vstack([X1[wrong1], X2[wrong2]]), np.concatenate([verdict.labels[wrong1], own[wrong2]])
