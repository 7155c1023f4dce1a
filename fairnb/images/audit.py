"""Tone or exposure? The same search run with an attribute flip and with its controls, side by side.

``compare_flips`` checks a detector's seed faces with each flip as they are (the **natural rate**: the share of
seeds whose flipped twin gets another decision) and runs the same search with each flip (the share of searched
seeds that end in a pair), each with its 95 % Wilson interval; ``apart`` says whether two flips' intervals are
apart or overlap. With :class:`~fairnb.images.controls.FlipPart` controls beside the tone flip, the table says
whether the detector reacts to the tone or to the exposure and contrast change that comes with it: a tone
flip's rate apart above its exposure-matched control's is a reaction to the tone (hue); overlapping rates say
the control explains the pairs as well. Decisions can hide opposite effects (the darkening lowering a face's
score, the hue change raising it): run the hue part too (``FlipPart(flip, "hue")``) and look at the scores.

It also says how material the pairs are: ``median_gap`` is the median ``|p - p'|`` of a pair's two face
probabilities (``fairnb.results.tables.material``: below 0.1 a pair is immaterial, a decision at the
threshold), and ``median_bias_linf`` the median L-inf norm of the search's own change (Δ_bias).

Example
-------
>>> import numpy as np
>>> from fairnb.domains import ImageDomain
>>> from fairnb.images import ExactFlip, FlipPart, make_faces
>>> from fairnb.models import NumpyMLP
>>> data = make_faces(n=60, size=8, random_state=0)
>>> brightness = NumpyMLP([np.full((8 * 8 * 3, 1), 40 / 192)], [np.array([-20.0])])   # reads exposure only
>>> flip = ExactFlip(data)
>>> found = compare_flips(brightness, ImageDomain.from_data(data), data.X[data.y == 1],
...                       {"tone": flip, "exposure control": FlipPart(flip), "hue only": FlipPart(flip, "hue")}, max_iter=0)
>>> found.table["natural_idis"].tolist(), found.apart("tone", "exposure control", "natural")
([7, 7, 0], 'overlap')
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..stats import wilson_interval
from ..results.tables import MATERIAL_MARGIN

COLUMNS = ("seeds", "natural_idis", "natural_rate", "natural_low", "natural_high", "searched", "pairs", "pair_rate",
           "pair_low", "pair_high", "immaterial_pairs", "median_gap", "median_bias_linf", "seconds")


@dataclass
class FlipComparison:
    """What :func:`compare_flips` found: ``table`` (one row per flip, the columns of :data:`COLUMNS`) and the
    searches' ``results`` by flip name (for ``inspect``, ``pairs``); displays as its table."""

    table: pd.DataFrame
    results: dict = field(default_factory=dict)

    def apart(self, a: str, b: str, rate: str = "pair") -> str:
        """``"apart"`` when flips ``a`` and ``b`` have disjoint 95 % intervals of ``rate`` (``"pair"`` or
        ``"natural"``), else ``"overlap"``."""
        lo, hi = f"{rate}_low", f"{rate}_high"
        t = self.table
        if rate not in ("pair", "natural") or t.loc[[a, b], lo].isna().any():
            raise ValueError(f"no {rate!r} rates for {a!r} and {b!r} (rate is 'pair' or 'natural'; max_iter=0 "
                             "gives natural rates only)")
        return "apart" if t.loc[a, hi] < t.loc[b, lo] or t.loc[b, hi] < t.loc[a, lo] else "overlap"

    def _repr_html_(self):
        return self.table._repr_html_()


def compare_flips(model, domain, seeds, flips: dict, *, method: str = "eidig_image", random_state=0,
                  **params) -> FlipComparison:
    """The natural rate of ``seeds`` and the search ``method`` (``params`` as it takes them, ``progress`` off
    unless given) run with each named flipper of ``flips`` on ``domain`` (``domain.with_flipper``); see the
    module docstring. ``max_iter=0`` gives the natural rates only."""
    from ..models import wrap
    from ..search import get_method

    if not flips:
        raise ValueError("flips must name at least one flipper, e.g. {'tone': ExactFlip(data)}")
    model, seeds = wrap(model), np.asarray(seeds)
    params.setdefault("progress", False)
    rows, results = {}, {}
    for name, flipper in flips.items():
        dom = domain.with_flipper(flipper)
        start = time.perf_counter()
        flipped, natural = _natural(model, dom, seeds)      # its flips go before the search starts
        row = {"seeds": flipped, "natural_idis": natural, "natural_rate": natural / max(flipped, 1)}
        row["natural_low"], row["natural_high"] = wilson_interval(natural, flipped)
        if params.get("max_iter", 1) > 0:
            results[name] = get_method(method)(random_state=random_state, **params).run(model, dom, seeds=seeds)
            row.update(_searched(results[name]))
        row["seconds"] = round(time.perf_counter() - start, 1)
        rows[name] = row
    return FlipComparison(pd.DataFrame.from_dict(rows, orient="index").reindex(columns=list(COLUMNS)), results)


def _natural(model, domain, seeds) -> tuple[int, int]:
    """The seeds whose flip succeeded, and how many of them get another decision than their flipped twin."""
    flip = domain.flip(seeds)
    ok = np.flatnonzero(flip.success)
    decided = np.asarray(model.predict_proba(np.concatenate([flip.X[ok], flip.X_flipped[ok]]))).argmax(axis=1)
    return len(ok), int((decided[:len(ok)] != decided[len(ok):]).sum())


def _searched(result) -> dict:
    """The searched seeds (flip succeeded), the pairs (one per seed at most), their interval and materiality."""
    outcomes = result.seed_outcomes
    searched = int((outcomes["outcome"] != "skipped").sum()) if len(outcomes) else 0
    pairs = len(np.unique(result.seed_ids)) if len(result) else 0
    low, high = wilson_interval(pairs, searched)
    gap = np.abs(result.proba - result.counterpart_proba).sum(axis=1) / 2 if len(result) else np.zeros(0)
    seeds = np.asarray(result.extras["seeds"])[result.seed_ids] if len(result) else np.zeros((0,))
    bias = np.abs(result.inputs - seeds).reshape(len(result), -1).max(axis=1) if len(result) else np.zeros(0)
    return {"searched": searched, "pairs": pairs, "pair_rate": pairs / max(searched, 1), "pair_low": low,
            "pair_high": high, "immaterial_pairs": int((gap < MATERIAL_MARGIN).sum()),
            "median_gap": float(np.median(gap)) if len(gap) else np.nan,
            "median_bias_linf": float(np.median(bias)) if len(bias) else np.nan}
