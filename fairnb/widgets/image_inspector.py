"""The image-flip inspector: a paged grid of discriminatory image pairs and, for the selected pair,
the seed, the input and its attribute flip side by side.

An image search (NeuronFair's image variant, ADF, EIDIG) moves a seed image ``x`` by ``Δ_bias`` to
the input ``x + Δ_bias`` and flips the protected attribute of the input by ``Δ_senatt`` (FGSM on the
attribute classifier f_sa, or an exact re-rendering): the counterpart ``x + Δ_bias + Δ_senatt``. A pair
is discriminatory when the detector decides the input and its counterpart differently.

``result.inspect()`` (or ``ImageInspector(result)``) shows a grid of the pairs, input above its flip,
one page at a time. Selecting a pair (click, or the arrow keys and Enter) shows the seed, the input,
the flipped counterpart and, where the domain can re-render its images (``domain.exact_flip``), the
exact flip beside the FGSM one; amplified heat maps of ``Δ_bias`` and ``Δ_senatt``; the detector's and
f_sa's probabilities for input and counterpart; and the norms of the changes.
``inspector.selected`` gives the selected pairs as rows of ``result.pairs``.

The kernel keeps the images and sends one page of thumbnails at a time, each a compact 8-bit PNG
(base64 text in the widget state, never lists of numbers); the browser writes every string with
``textContent``.

Example (a hand-made image domain; see ``tests/test_widgets_image_inspector.py``)
-------
>>> inspector = ImageInspector(result, page_size=4)               # doctest: +SKIP
>>> inspector.selected_ids = [0]; inspector.detail["images"][1]["role"]   # doctest: +SKIP
'input'
"""
from __future__ import annotations

import html

import numpy as np
import pandas as pd
import traitlets

from .. import summaries
from ..pair_table import PairTable, decision_text, format_cell
from ._assets import STATIC
from .paged import PagedInspector
from .png import heat_map, png_base64, thumbnail

# info keys (the image searches' per-pair details) shown under their meaning, in this order
INFO_NAMES = {"steps": "FGSM flip steps", "eps": "flip budget ε (L∞)", "flip_ok": "f_sa's decision flipped",
              "sa_disagrees": "f_sa still disagrees at the end", "iteration": "search iterations before found"}
# each row of the norms table: its glossary word (``fairnb.summaries.TERMS``), by the change or the info key
NORM_TERMS = {"Δ_bias": "bias", "Δ_senatt": "senatt", "Δ_exact": "exact", "counterpart − exact flip": "exact",
              "steps": "flip_steps", "eps": "flip_steps", "flip_ok": "flip_ok",
              "sa_disagrees": "strict_idis", "iteration": "iteration"}
# info keys the detail shows in its own rows (norms computed from the images, f_sa in the table)
SHOWN_ELSEWHERE = ("l2", "linf", "bias_l2", "sa_p", "sa_p_counterpart")
# the counterpart's caption by the domain's attribute flipper (fairnb.images.flips, fairnb.images.controls): an FGSM
# flip is what it is, an adversarial change guided by f_sa, not the face in another tone that a reader sees
FLIP_NAMES = {"FGSMFlip": "adversarial flip (FGSM, f_sa-guided)", "ExactFlip": "exact flip"}
PART_NAMES = {"exposure": "exposure-matched control", "hue": "hue part of the flip"}
STATIC_COLUMNS = 6    # pairs per row of the static grid (exported HTML): two 64 px images each fit 846 px
SORT_KEYS = {"difference": "detector difference", "p": "detector P, input", "p'": "detector P, counterpart",
             "l2": "‖Δ_senatt‖₂", "linf": "‖Δ_senatt‖∞", "sa_p": "f_sa P, input", "steps": "flip steps"}


class ImageInspector(PagedInspector):
    """Interactive grid of a Result's image pairs (see the module docstring).

    Parameters
    ----------
    result : a ``Result`` of an image domain (inputs and counterparts of shape ``(n, h, w, c)``).
    seeds : the images that the pairs' seed ids index (default ``result.extras["seeds"]``).
    model : the detector (any model ``fairnb.models.wrap`` takes), optional: with it the detail also
        gives the detector's probability for the seed and the exact flip (and f_sa's, when the domain
        has an ``attribute_model``); the input's and counterpart's come from the Result either way.
    page_size : pairs per page (1 to 500).
    """

    _esm = STATIC / "image_inspector.js"
    _glossary_keys = ("bias", "senatt", "exact", *dict.fromkeys(NORM_TERMS.values()))

    max_page_size = 500

    attribute = traitlets.Unicode("").tag(sync=True)
    page_size = traitlets.Int(40).tag(sync=True)
    sort_descending = traitlets.Bool(True).tag(sync=True)
    sort_options = traitlets.List().tag(sync=True)
    cells = traitlets.List().tag(sync=True)

    def __init__(self, result, seeds=None, *, model=None, page_size: int = 40, **kwargs):
        from ..models import wrap

        result = result.snapshot()
        self.model = None if model is None else wrap(model)
        self.result = result
        self.domain = result.domain
        self.frame = result.pairs
        self._outputs = self.frame[["p", "p'"]].to_numpy(float)
        self.inputs, self.counterparts = _floats(result.inputs), _floats(result.counterparts)
        if self.inputs.ndim != 4:
            raise ValueError(f"ImageInspector needs a Result of images (n, h, w, c); its inputs have shape "
                             f"{self.inputs.shape} (use result.inspect(), which picks the inspector of the domain)")
        self.seeds = _seed_images(result, seeds, self.inputs.shape[1:])
        self.info = [result.details(i) for i in range(len(self.frame))]
        self.class_names = getattr(self.domain, "class_names", None)
        sortable = _sortable(self.frame, self.info)
        self._table = PairTable(sortable)
        self._ids: list[int] = []
        attribute = str(getattr(self.domain, "attribute", "") or "the protected attribute")
        flip = flip_name(getattr(self.domain, "flipper", None))
        pairs = (f"image pairs whose counterpart is an {flip} of {attribute}: f_sa sees the other {attribute}, a "
                 "reader may not" if flip == FLIP_NAMES["FGSMFlip"] else f"image pairs that differ only in {attribute}")
        super().__init__(title=f"{result.method or 'search'}: {pairs}",
                         attribute=attribute, n_pairs=len(self.frame), page_size=page_size,
                         sort_options=[{"name": k, "label": SORT_KEYS[k]} for k in sortable.columns], **kwargs)
        self._refresh()
        self._update_detail()

    def __repr__(self):
        return f"<fairnb image inspector: {self.title}, {self.n_pairs:,} pairs, page {self.page + 1}>"

    # ------------------------------------------------------------------ paging
    @traitlets.observe("page", "page_size", "sort_by", "sort_descending")
    def _on_query(self, change):
        self._refresh()

    def _refresh(self):
        self._ids = self._table.query(None, self.sort_by, self.sort_descending)
        if self._clamp_page():
            return
        with self.hold_sync():
            chosen = self._ids[self.page * self.page_size:(self.page + 1) * self.page_size]
            self.cells = [self._cell(i) for i in chosen]
            self.version += 1

    def _cell(self, i: int) -> dict:
        p, p2 = (format_cell(float(v)) for v in self._outputs[i])
        return {"id": int(i), "input": png_base64(thumbnail(self.inputs[i])),
                "counterpart": png_base64(thumbnail(self.counterparts[i])), "caption": f"{p} → {p2}"}

    # ------------------------------------------------------------------ detail of the selected pair
    def describe(self, pair_id: int) -> dict:
        """What the view below the grid shows for one pair: ``images`` (seed, input, counterpart, exact
        flip), ``heatmaps`` (Δ_bias, Δ_senatt, Δ_exact), ``table`` (probabilities and decisions per
        image), ``norms`` and a ``summary`` sentence; every image a base64 PNG."""
        row, info = self.frame.iloc[pair_id], self.info[pair_id]
        x, c = self.inputs[pair_id], self.counterparts[pair_id]
        seed_id = int(row["seed"])
        seed = self.seeds[seed_id] if self.seeds is not None and 0 <= seed_id < len(self.seeds) else None
        exact = _exact_flip(self.domain, x, seed)
        flip = flip_name(getattr(self.domain, "flipper", None))
        images = ([_image("seed", f"seed {seed_id}", seed)] if seed is not None else []) + [
            _image("input", "input x + Δ_bias", x), _image("counterpart", f"{flip} (the counterpart)", c)]
        deltas = ([("bias", "Δ_bias = input − seed", x - seed)] if seed is not None else []) + \
            [("senatt", "Δ_senatt = counterpart − input", c - x)]
        if exact is not None:
            images.append(_image("exact", "exact flip (re-rendered)", exact))
            deltas.append(("exact", "Δ_exact = exact flip − input", exact - x))
        heat = _heats(deltas)
        positive = self.class_names[1] if self.class_names and len(self.class_names) > 1 else "class 1"
        p, p2 = format_cell(float(row["p"])), format_cell(float(row["p'"]))
        label, label2 = self.decision(row["label"]), self.decision(row["label'"])
        # one column per image shown; the seed's and the exact flip's numbers need the models
        extra = {"seed": seed, "exact": exact}
        columns = [i["role"] for i in images]
        known = {"input": (p, label, _number(info.get("sa_p"))),
                 "counterpart": (p2, label2, _number(info.get("sa_p_counterpart")))}
        known.update(self._measure({k: v for k, v in extra.items() if v is not None}))
        columns = [col for col in columns if col in known]
        table = [{"name": name, "values": [known[col][j] for col in columns]}
                 for j, name in enumerate((f"detector P({positive})", "detector decision",
                                           f"f_sa P({self._attribute_value()})"))]
        norms = _norms(x, c, seed, exact) + [{"name": INFO_NAMES.get(k, str(k)), "value": _number(v),
                                              "term": NORM_TERMS.get(k)}
                                             for k, v in info.items() if k not in SHOWN_ELSEWHERE]
        summary = (f"Pair {pair_id}: flipping {self.attribute} moves the detector's P({positive}) from {p} to "
                   f"{p2} (decision {label} → {label2}).")
        if seed is not None:
            summary += f" The search reached the input from seed {seed_id}."
        return {"pair": int(pair_id), "summary": summary, "images": images, "heatmaps": heat,
                "columns": columns, "table": table, "norms": norms}

    def _measure(self, images: dict) -> dict:
        """Per named image: the detector's P(class 1) and decision and f_sa's probability, as text
        (empty without a ``model``); one call per model for all of them."""
        if self.model is None or not images:
            return {}
        batch = self.domain.encode(np.stack(list(images.values())))
        P = np.asarray(self.model.predict_proba(batch), dtype=float)
        f_sa = getattr(self.domain, "attribute_model", None)
        sa = np.asarray(f_sa.predict_proba(batch), dtype=float)[:, -1] if f_sa is not None else [None] * len(P)
        return {name: (format_cell(float(P[k, -1])), self.decision(P[k].argmax()), _number(sa[k]))
                for k, name in enumerate(images)}

    def _attribute_value(self) -> str:
        """What f_sa's probability is of: ``tint = dark`` when the domain names the attribute's values."""
        names = getattr(self.domain, "attribute_names", None)
        return f"{self.attribute} = {names[1]}" if names and len(names) > 1 else self.attribute

    def decision(self, label) -> str:
        """The meaning of a decision (``"face"``), or the number when no class names are known."""
        return decision_text(label, self.class_names)

    # ------------------------------------------------------------------ static view
    def static_html(self) -> str:
        """The current page and the selected pair as escaped HTML with data-URI PNGs (no scripts)."""
        esc = html.escape
        img = lambda b64, alt: (f"<img src='data:image/png;base64,{esc(b64)}' alt='{esc(alt)}' width='64' "
                                "style='image-rendering:pixelated'/>")
        cells = [f"<td>{img(c['input'], 'input')}{img(c['counterpart'], 'flip')}<br/>#{c['id']}: {esc(c['caption'])}</td>"
                 for c in self.cells]
        grid = "".join("<tr>" + "".join(cells[k:k + STATIC_COLUMNS]) + "</tr>"
                       for k in range(0, len(cells), STATIC_COLUMNS))
        out = (f"<div class='fairnb-image-inspector-static'><b>{esc(self.title)}</b> "
               f"({len(self.cells):,} of {self.n_pairs:,} shown){self.static_headline()}<table>{grid}</table>")
        d = self.detail
        if d:
            figures = "".join(f"<td>{img(i['png'], i['caption'])}<br/>{esc(i['caption'])}</td>"
                              for i in d["images"] + d["heatmaps"])
            head = "".join(f"<th>{esc(c)}</th>" for c in d["columns"])
            rows = "".join(f"<tr><th>{esc(r['name'])}</th>" + "".join(f"<td>{esc(v)}</td>" for v in r["values"]) + "</tr>"
                           for r in d["table"])
            norms = "".join(f"<tr><th>{summaries.term_html(n.get('term'), n['name'])}</th>"
                            f"<td>{esc(n['value'])}</td></tr>" for n in d["norms"])
            out += (f"<p>{esc(d['summary'])}</p><table><tr>{figures}</tr></table>"
                    f"<table><tr><th></th>{head}</tr>{rows}</table><table>{norms}</table>")
        return out + "</div>"


def flip_name(flipper) -> str:
    """What a counterpart made by ``flipper`` is, in words: ``"adversarial flip (FGSM, f_sa-guided)"`` for an
    ``FGSMFlip``, ``"exact flip"``, a ``FlipPart``'s part (``"exposure-matched control"``), else ``"attribute flip"``.

    >>> from fairnb.images import FGSMFlip
    >>> flip_name(FGSMFlip())
    'adversarial flip (FGSM, f_sa-guided)'
    """
    kind = type(flipper).__name__
    if kind == "FlipPart":
        return PART_NAMES.get(flipper.part, "attribute flip")
    return FLIP_NAMES.get(kind, "attribute flip")


def _image(role: str, caption: str, image) -> dict:
    return {"role": role, "caption": caption, "png": png_base64(image)}


def _heats(deltas) -> list[dict]:
    """Heat maps of ``(role, caption, delta)`` on ONE scale (the largest change among them), so a faint
    Δ_senatt is not drawn as strong as a real tone change."""
    scale = max((float(np.abs(d).max(initial=0.0)) for _, _, d in deltas), default=0.0)
    out = []
    for role, caption, delta in deltas:
        rgb, gain, peak = heat_map(delta, scale=scale)
        note = f"same scale ×{gain:.3g}, largest change {peak:.3g}" if peak > 0 else "no change"
        out.append({"role": role, "caption": f"{caption} ({note})", "png": png_base64(rgb)})
    return out


def _norms(x, c, seed, exact) -> list[dict]:
    deltas = ([("Δ_bias", x - seed)] if seed is not None else []) + [("Δ_senatt", c - x)]
    if exact is not None:
        deltas += [("Δ_exact", exact - x), ("counterpart − exact flip", c - exact)]
    out = []
    for name, d in deltas:
        flat = d.ravel()
        term = NORM_TERMS[name]
        out += [{"name": f"‖{name}‖₂", "value": format_cell(float(np.sqrt(flat @ flat))), "term": term},
                {"name": f"‖{name}‖∞", "value": format_cell(float(np.abs(flat).max(initial=0.0))), "term": term}]
    return out


def _exact_flip(domain, x, seed):
    """The domain's exact flip of input ``x`` (re-rendered from its ``seed`` when known), or None."""
    flip = getattr(domain, "exact_flip", None)
    if flip is None:
        return None
    out = flip(x[None]) if seed is None else flip(x[None], seeds=seed[None])
    return None if out is None else np.asarray(out, dtype=float)[0]


def _floats(images) -> np.ndarray:
    """``images`` as a float array, float32 images kept float32 (no float64 copy of a production detector's pairs)."""
    images = np.asarray(images)
    return images.astype(np.result_type(images.dtype, np.float32), copy=False)


def _number(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    return format_cell(float(value)) if isinstance(value, (float, np.floating)) else str(value)


def _sortable(frame: pd.DataFrame, info: list[dict]) -> pd.DataFrame:
    """The numeric keys the grid can be sorted by (from ``result.pairs`` and the pairs' details)."""
    out = frame[["difference", "p", "p'"]].astype(float).reset_index(drop=True)
    for key in ("l2", "linf", "sa_p", "steps"):
        values = [d.get(key) for d in info]
        if any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            out[key] = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce")
    return out


def _seed_images(result, seeds, shape):
    seeds = result.extras.get("seeds") if seeds is None else seeds
    if seeds is None:
        return None
    seeds = _floats(seeds)
    if seeds.shape[1:] != tuple(shape):
        raise ValueError(f"seeds have shape {seeds.shape}; expected (n, {', '.join(map(str, shape))}) like the inputs")
    return seeds
