"""The Certificate: what ``fairnb.certify`` proved, box by box, and the witnesses it checked.

Shares are given two ways. By *inputs*: the share of the domain's integer inputs (over the non-protected
features; an input's verdict covers all its protected values) in certified, falsified and undecided boxes
(``certified_share + falsified_share + undecided_share == 1``). ``witness_boxes_share`` is the part of the
undecided share in boxes whose centre the oracle found discriminatory (unfair somewhere in the box, not
proven unfair everywhere). By *volume*: the same with every integer input standing for the reals that
round to it (``boxes.volumes``), comparable with shares of a real-valued input space.

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> from fairnb.models import NumpyMLP
>>> from fairnb.certification import certify
>>> dom = TabularDomain([Feature("x", 0, 9), Feature("sex", 0, 1)], protected=["sex"])
>>> cert = certify(NumpyMLP([np.array([[1.0], [0.0]])], [np.array([-4.5])]), dom)    # ignores sex
>>> print(cert)
<Certificate completed: 100.0 % of 10 inputs certified fair, 0.0 % falsified, 0.0 % undecided (1 box bounded)>
"""
from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np

from .. import summaries
from ..domains import domain_from_config
from ..results import Result
from .boxes import points, volumes

VERDICTS = ("certified", "falsified", "undecided")
_BOXES_AT_ONCE, _INPUTS_AT_ONCE = 4096, 256      # membership tests in blocks of about a million comparisons


class Certificate:
    """The boxes ``certify`` decided, with shares, witnesses and timing.

    Attributes
    ----------
    boxes : ``{"certified" | "falsified" | "undecided": (lows, highs)}``, integer boxes ``(n, d)`` over every
        feature (protected columns span their range); ``witnessed`` marks the undecided boxes with a witness.
    witnesses : a :class:`~fairnb.results.Result` of the discriminatory pairs the oracle confirmed (phase
        ``"exact"``: a one-input box; ``"falsified"``: the centre of a falsified box; ``"undecided"``: the
        centre of a witness box); ``pairs`` is its pair table.
    status : ``"completed"``, ``"budget"`` (``ended_by`` names it), ``"stopped"`` or ``"interrupted"``.
    elapsed, bounded : seconds and boxes bounded.
    """

    def __init__(self, domain, params: dict, *, status: str, ended_by, elapsed: float, bounded: int,
                 certified, falsified, undecided, witnessed, witnesses: Result):
        self.domain, self.params = domain, dict(params)
        self.status, self.ended_by = status, None if ended_by is None else tuple(ended_by)
        self.elapsed, self.bounded = float(elapsed), int(bounded)
        self.boxes = {name: (np.asarray(lo, dtype=float), np.asarray(hi, dtype=float))
                      for name, (lo, hi) in zip(VERDICTS, (certified, falsified, undecided))}
        self.witnessed = np.asarray(witnessed, dtype=bool)
        self.witnesses = witnesses

    # ------------------------------------------------------------------ numbers
    def _shares(self, weigh) -> dict:
        free = self.domain.non_protected
        total = float(points(self.domain.lower[None], self.domain.upper[None], free)[0]) if weigh is points else 1.0
        shares = {name: float(weigh(lo, hi, free).sum()) / total for name, (lo, hi) in self.boxes.items()}
        lo, hi = self.boxes["undecided"]
        shares["witness"] = float(weigh(lo[self.witnessed], hi[self.witnessed], free).sum()) / total
        return shares

    def _volumes(self, lows, highs, free):
        return volumes(lows, highs, self.domain.lower, self.domain.upper, free)

    @property
    def inputs(self) -> float:
        """The number of integer inputs of the domain over its non-protected features."""
        return float(points(self.domain.lower[None], self.domain.upper[None], self.domain.non_protected)[0])

    def summary(self) -> dict:
        """The shares by inputs (``certified_share``, ``falsified_share``, ``undecided_share``, summing to 1, and
        ``witness_boxes_share``, a part of the undecided), by volume (``*_volume``), box counts and timing."""
        by_inputs, by_volume = self._shares(points), self._shares(self._volumes)
        out = {f"{name}_share": by_inputs[name] for name in VERDICTS}
        out["witness_boxes_share"] = by_inputs["witness"]
        out.update({f"{name}_volume": by_volume[name] for name in VERDICTS})
        out["witness_boxes_volume"] = by_volume["witness"]
        out.update({"inputs": self.inputs, **{f"{name}_boxes": len(self.boxes[name][0]) for name in VERDICTS},
                    "witness_boxes": int(self.witnessed.sum()), "witnesses": len(self.witnesses),
                    "boxes_bounded": self.bounded, "elapsed": self.elapsed,
                    "boxes_per_second": self.bounded / self.elapsed if self.elapsed > 0 else 0.0,
                    "status": self.status})
        return out

    def verdicts(self, X) -> np.ndarray:
        """The verdict of the box holding each input of ``X`` ``(n, d)`` (its protected values play no part):
        ``"certified"``, ``"falsified"``, ``"undecided"``, or ``""`` for an input outside the domain.

        >>> from fairnb.domains import Feature, TabularDomain
        >>> from fairnb.models import NumpyMLP
        >>> from fairnb.certification import certify
        >>> dom = TabularDomain([Feature("x", -3, 3), Feature("sex", 0, 1)], protected=["sex"])
        >>> cert = certify(NumpyMLP([np.array([[1.0], [1.5]])], [np.array([-0.75])]), dom, enumerate_at=1)
        >>> cert.verdicts([[0, 1], [2, 0], [9, 0]]).tolist()
        ['falsified', 'certified', '']
        """
        X = np.asarray(X, dtype=float)
        free = self.domain.non_protected
        out = np.full(len(X), "", dtype=object)
        for name in VERDICTS:
            lo, hi = (b[:, free] for b in self.boxes[name])
            for start in range(0, len(lo), _BOXES_AT_ONCE):
                blo, bhi = lo[start:start + _BOXES_AT_ONCE], hi[start:start + _BOXES_AT_ONCE]
                for first in range(0, len(X), _INPUTS_AT_ONCE):
                    x = X[first:first + _INPUTS_AT_ONCE, free][:, None, :]
                    inside = ((x >= blo[None]) & (x <= bhi[None])).all(axis=2).any(axis=1)
                    out[first:first + _INPUTS_AT_ONCE][inside] = name
        return out

    def sample(self, n: int, verdict: str = "undecided", random_state=None) -> np.ndarray:
        """``n`` integer inputs ``(n, d)`` drawn from the ``verdict`` boxes (a box chosen in proportion to its
        integer inputs, then each feature uniformly within it; protected features uniformly over their range),
        e.g. seeds for a search where the certificate could not decide: ``run_search(model, domain,
        method="eidig", seeds=cert.sample(1000))``. An empty array when there is no such box.

        >>> from fairnb.domains import Feature, TabularDomain
        >>> from fairnb.models import NumpyMLP
        >>> from fairnb.certification import certify
        >>> dom = TabularDomain([Feature("x", -3, 3), Feature("sex", 0, 1)], protected=["sex"])
        >>> cert = certify(NumpyMLP([np.array([[1.0], [1.5]])], [np.array([-0.75])]), dom, enumerate_at=1)
        >>> set(cert.verdicts(cert.sample(20, "falsified", random_state=0)))
        {'falsified'}
        """
        if verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {list(VERDICTS)}, got {verdict!r}")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"n must be a non-negative integer, got {n!r}")
        lo, hi = self.boxes[verdict]
        if not len(lo) or not n:
            return np.empty((0, len(self.domain.lower)))
        rng = np.random.default_rng(random_state)
        weights = points(lo, hi, self.domain.non_protected).astype(float)
        chosen = rng.choice(len(lo), size=n, p=weights / weights.sum())
        low, high = lo[chosen], hi[chosen]
        return np.floor(low + rng.random(low.shape) * (high - low + 1)).clip(low, high)

    @property
    def pairs(self):
        """The witnesses' pair table (as a search Result's ``pairs``)."""
        return self.witnesses.pairs

    def inspect(self, **kwargs):
        """The pair inspector on the witnesses."""
        return self.witnesses.inspect(**kwargs)

    # ------------------------------------------------------------------ display
    def _lines(self) -> list[tuple[str, str]]:
        s = summaries
        out = self.summary()
        shares = s.fmt_shares(*(out[f"{v}_share"] for v in VERDICTS), out["witness_boxes_share"])
        volumes_ = s.fmt_shares(*(out[f"{v}_volume"] for v in VERDICTS), out["witness_boxes_volume"])
        ending = self.status if self.ended_by is None else f"{self.status} ({self.ended_by[0]}={self.ended_by[1]})"
        return [("status", ending), ("inputs", s.fmt_count(out["inputs"])),
                *((f"{v} (inputs / volume)", f"{a} / {b}  in {s.fmt_count(out[f'{v}_boxes'])} boxes")
                  for v, a, b in zip(VERDICTS, shares, volumes_)),
                ("undecided with a witness", f"{shares[3]} / {volumes_[3]}  in {s.fmt_count(out['witness_boxes'])} boxes"),
                ("witness pairs", s.fmt_count(out["witnesses"])),
                ("time", f"{s.fmt_seconds(out['elapsed'])}, {s.fmt_count(self.bounded)} boxes bounded "
                         f"({s.fmt_rate(out['boxes_per_second'])} per second)")]

    def __repr__(self):
        out = self.summary()
        shares = summaries.fmt_shares(*(out[f"{v}_share"] for v in VERDICTS))
        plural = "" if self.bounded == 1 else "es"
        return (f"<Certificate {self.status}: {shares[0]} of {summaries.fmt_count(out['inputs'])} inputs certified "
                f"fair, {shares[1]} falsified, {shares[2]} undecided ({summaries.fmt_count(self.bounded)} box{plural} "
                "bounded)>")

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:right'>"
                       f"{html.escape(v)}</td></tr>" for k, v in self._lines())
        shown = min(10, len(self.witnesses))
        pairs = (f"<p>First {shown} of {summaries.fmt_count(len(self.witnesses))} witness pairs:</p>"
                 f"{summaries.pairs_html(self.witnesses, range(shown))}") if shown else ""
        return f"<div class='fairnb-certificate'><b>fairnb certificate</b><table>{rows}</table>{pairs}</div>"

    # ------------------------------------------------------------------ storage
    def save(self, path) -> Path:
        """Write the boxes to ``path`` (``.npz``, with the domain and numbers as JSON inside) and the witnesses
        beside it (``<path>.witnesses.csv``, a Result); ``Certificate.load(path)`` reads both."""
        path = Path(path)
        if path.suffix != ".npz":
            raise ValueError(f"a certificate is saved as .npz; got {path.name!r}")
        meta = {"domain": self.domain.to_config(), "params": self.params, "status": self.status,
                "ended_by": self.ended_by, "elapsed": self.elapsed, "bounded": self.bounded}
        arrays = {f"{v}_{end}": box for v in VERDICTS for end, box in zip(("lows", "highs"), self.boxes[v])}
        np.savez_compressed(path, meta=np.array(json.dumps(meta)), witnessed=self.witnessed, **arrays)
        self.witnesses.save(_witness_path(path))
        return path

    @classmethod
    def load(cls, path) -> "Certificate":
        path = Path(path)
        with np.load(path, allow_pickle=False) as f:
            meta = json.loads(str(f["meta"]))
            boxes = [(f[f"{v}_lows"], f[f"{v}_highs"]) for v in VERDICTS]
            witnessed = f["witnessed"]
        return cls(domain_from_config(meta["domain"]), meta["params"], status=meta["status"],
                   ended_by=meta["ended_by"], elapsed=meta["elapsed"], bounded=meta["bounded"], certified=boxes[0],
                   falsified=boxes[1], undecided=boxes[2], witnessed=witnessed,
                   witnesses=Result.load(_witness_path(path)))


def _witness_path(path: Path) -> Path:
    return path.with_name(path.name[:-len(".npz")] + ".witnesses.csv")
