"""The text-substitution inspector: discriminatory sentence pairs, paged, sorted, filtered and explained.

``result.inspect()`` on a text search's Result (or ``TextInspector(result)``) lists every pair as ONE aligned
sentence: the **sensitive term** swapped between the input and its counterpart ("muslim → christian",
yellow) and the **search's substitutions**, the tokens where the input differs from the seed it was reached
from ("~~nice~~ kind", blue), with a legend; beside it both model probabilities and the decision flip. A
summary band gives, per sensitive term, the **discrimination rate**: the share of the seeds holding the term
from which the search reached a discriminatory pair (with the number of pairs), and the same for the rows the
filters leave. Filters: term group, term, free text anywhere in the sentence, and numeric conditions on the
probabilities (``>0.8``). Selecting a pair shows the seed, the input and the counterpart, the per-token
gradient saliency, the substitution chain (every global iteration and local step: position, the candidates
with their scores, the one chosen) and the validity metrics (L0, L2, Jaccard, BLEU, similarity), all from the
search's per-pair details (``result.details(i)``). ``inspector.selected`` gives the selected pairs as a
DataFrame.

As with the pair inspector, the kernel keeps the pairs and sends one page at a time; the decoded texts are
built once (one vectorised lookup), filters are vectorised, and a page costs only its own rows, so 100,000
pairs stay responsive. Every string reaches the browser as text (``textContent``): a sentence holding
``<script>`` shows those characters.

Example (``result`` from a text search such as ``fairnb.run_search(model, TextDomain(...), method="adf_asc")``)
-------
>>> inspector = result.inspect(page_size=10)                    # doctest: +SKIP
>>> inspector.filters = {"group": "=religion", "term": "=muslim", "text": "kind"}    # doctest: +SKIP
>>> inspector.selected_ids = [inspector.visible_ids[0]]; inspector.selected          # doctest: +SKIP

The colours' meaning, as the legend shows it:

>>> [item["kind"] for item in LEGEND]
['sensitive', 'subst']
"""
from __future__ import annotations

import html

import numpy as np
import pandas as pd
import traitlets

from ..pair_table import PairTable, format_cell
from ..stats import wilson_interval
from ._assets import STATIC
from .inspector import PairInspector

VALIDITY_NAMES = {"l0": "L0 (tokens changed from the seed)", "l2": "L2 (embedding distance to the seed)",
                  "jaccard": "Jaccard (shared tokens)", "bleu": "BLEU-4 (vs the seed)",
                  "similarity": "sentence similarity"}
LEGEND = [{"kind": "sensitive", "text": "sensitive term: input → counterpart (the only difference in a pair)"},
          {"kind": "subst", "text": "the search's substitution: seed word → generated word"}]
class WholeTexts(pd.DataFrame):
    """A DataFrame that a notebook shows with its texts whole (pandas cuts a cell at 50 characters,
    ``display.max_colwidth``); what is computed from it is a plain DataFrame.

    >>> WholeTexts({"text": ["word " * 20]})._repr_html_().count("word")
    20
    """

    @property
    def _constructor(self):
        return pd.DataFrame

    def _repr_html_(self):
        with pd.option_context("display.max_colwidth", None):
            return super()._repr_html_()


_COLUMNS = (("text", "text"), ("group", "protected"), ("term", "protected"), ("term'", "counterpart"),
            ("p", "output"), ("p'", "output"), ("label", "output"), ("label'", "output"), ("difference", "output"),
            ("substitutions", "meta"), ("phase", "meta"), ("seed", "meta"))


class TextInspector(PairInspector):
    """Interactive list of a text search's pairs (see the module docstring).

    Parameters
    ----------
    result : a ``Result`` of a text domain (inputs and counterparts: ``(n, max_len)`` token ids).
    seeds : the id rows that the pairs' seed ids index (default ``result.extras["seeds"]``).
    page_size : rows per page (1 to 1000).
    class_names : what the decisions mean (default ``domain.class_names``, e.g. ``("non-toxic", "toxic")``).
    """

    _esm = STATIC / "text_inspector.js"
    _glossary_keys = ("discrimination_rate", "validity", "saliency", "phase", "position", "candidate_score")
    _css = STATIC / "text_inspector.css"           # fairnb.css and the text inspector's rules (js/src/text_inspector.css)

    legend = traitlets.List().tag(sync=True)
    term_rates = traitlets.List().tag(sync=True)     # summary band: one entry per sensitive term
    slice_rate = traitlets.Dict().tag(sync=True)     # the same for the rows the filters leave
    choices = traitlets.Dict().tag(sync=True)        # filter menus: groups and their terms

    def __repr__(self):
        return f"<fairnb text inspector: {self.title}, {self.n_pairs:,} pairs, page {self.page + 1}>"

    # ------------------------------------------------------------------ building
    def _build_table(self, result, seeds) -> tuple[PairTable, list[dict]]:
        dom = self.domain
        if getattr(dom, "vocab", None) is None or not hasattr(dom, "term_group"):
            raise TypeError(f"TextInspector needs a Result of a text domain (with vocab and term_group); this one's "
                            f"domain is {type(dom).__name__} (use result.inspect(), which picks the inspector)")
        self.inputs = _ids(result.inputs, "the Result's inputs")
        self.counterparts = _ids(result.counterparts, "the Result's counterparts")
        n, length = self.inputs.shape
        self.seeds = _seed_ids(result, seeds, length)
        self._tokens = np.array(dom.vocab.tokens, dtype=object)
        self._shown_tokens = self._tokens.copy()
        self._shown_tokens[0] = ""                                        # padding
        self.seed_of = np.asarray(result.seed_ids, dtype=np.int64)
        swapped = self.inputs != self.counterparts
        self.position = np.where(swapped.any(axis=1), swapped.argmax(axis=1), -1)
        rows = np.arange(n)
        term_ids = self.inputs[rows, np.maximum(self.position, 0)]
        other_ids = self.counterparts[rows, np.maximum(self.position, 0)]
        group_of = np.full(len(self._tokens), "", dtype=object)
        for t in np.unique(term_ids):
            group_of[t] = dom.term_group(str(self._tokens[t])) or ""
        known = (self.seed_of >= 0) & (self.seed_of < (0 if self.seeds is None else len(self.seeds)))
        substitutions = np.full(n, -1, dtype=np.int64)
        if known.any():
            changed = self.inputs[known] != self.seeds[self.seed_of[known]]
            substitutions[known] = (changed & ~swapped[known]).sum(axis=1)
        P, PC = np.asarray(result.proba, float), np.asarray(result.counterpart_proba, float)
        col = 1 if P.shape[1] == 2 else slice(None)
        label, label2 = P.argmax(axis=1), PC.argmax(axis=1)
        raw = pd.DataFrame({
            "text": self._texts(self.inputs),
            "group": group_of[term_ids].astype(str), "term": self._tokens[term_ids].astype(str),
            "term'": self._tokens[other_ids].astype(str),
            "p": P[:, col] if P.shape[1] == 2 else P.max(axis=1),
            "p'": PC[:, col] if PC.shape[1] == 2 else PC.max(axis=1),
            "label": label, "label'": label2, "difference": np.abs(P - PC).sum(axis=1) / 2,
            "substitutions": substitutions, "phase": np.asarray(result.phases).astype(str), "seed": self.seed_of})
        shown = raw.copy()
        names = np.array([self.decision(k) for k in range(P.shape[1])], dtype=object)
        shown["label"], shown["label'"] = names[label], names[label2]
        shown["substitutions"] = np.where(substitutions >= 0, substitutions.astype(str), "")
        self.frame = shown
        self._term_column, self._group_column = raw["term"].to_numpy(), raw["group"].to_numpy()
        self.term_rates = self._term_rates()
        terms = pd.DataFrame({"group": raw["group"], "term": raw["term"]}).drop_duplicates()
        self.choices = {"groups": sorted(g for g in terms["group"].unique() if g),
                        "terms": [{"term": t, "group": g} for g, t in sorted(zip(terms["group"], terms["term"]))]}
        self.legend = LEGEND
        return PairTable(shown, raw), [{"name": name, "kind": kind} for name, kind in _COLUMNS]

    def _texts(self, ids: np.ndarray) -> list[str]:
        """Each id row as its tokens joined by spaces (padding dropped): one vectorised lookup, one join per row."""
        return [" ".join(row).strip() for row in self._shown_tokens[ids].tolist()]   # padding only at the ends

    def _term_rates(self) -> list[dict]:
        """Per sensitive term: seeds holding it, those from which a pair was found, the rate with its 95 %
        Wilson interval (``low``, ``high``), the pairs."""
        pairs = pd.Series(self._term_column).value_counts()
        out = []
        seed_terms = {}
        if self.seeds is not None and len(self.seeds):
            present = np.unique(self.seeds)
            for t in present[present > 0]:
                group = self.domain.term_group(str(self._tokens[t]))
                if group:
                    seed_terms[str(self._tokens[t])] = (group, np.flatnonzero((self.seeds == t).any(axis=1)))
        for term in sorted(set(seed_terms) | set(pairs.index), key=lambda t: (-int(pairs.get(t, 0)), t)):
            group, holding = seed_terms.get(term, (self.domain.term_group(term) or "", None))
            found = np.unique(self.seed_of[(self._term_column == term) & (self.seed_of >= 0)])
            entry = {"term": term, "group": group, "pairs": int(pairs.get(term, 0)),
                     "seeds": None if holding is None else int(len(holding)),
                     "seeds_found": None if holding is None else int(np.isin(found, holding).sum())}
            entry["rate"] = entry["seeds_found"] / entry["seeds"] if entry["seeds"] else None
            entry["low"], entry["high"] = (wilson_interval(entry["seeds_found"], entry["seeds"]) if entry["seeds"]
                                           else (None, None))    # one seed's 100 % is [21 %, 100 %]
            out.append(entry)
        return out

    # ------------------------------------------------------------------ paging
    def _refresh(self):
        before = self._ids
        super()._refresh()
        if self._ids is before and self.slice_rate:    # same query (a page change): the same slice
            return
        ids = np.asarray(self._ids, dtype=np.int64)
        seeds = np.unique(self.seed_of[ids][self.seed_of[ids] >= 0]) if len(ids) else np.zeros(0, np.int64)
        self.slice_rate = {"pairs": int(len(ids)), "share": len(ids) / self.n_pairs if self.n_pairs else 0.0,
                           "seeds_found": int(len(seeds)), "filtered": bool(self.filters)}

    def _page_rows(self, ids: list[int]) -> list[dict]:
        rows = self._table.page(ids, 0, max(len(ids), 1))
        for row in rows:
            row["tokens"] = self.aligned(row["id"])
        return rows

    def aligned(self, pair_id: int, saliency=None) -> list[dict]:
        """The pair as one aligned sentence: per token ``t`` (the input's token), ``kind`` ``"sensitive"``
        (with ``alt``, the counterpart's token), ``"subst"`` (with ``old``, the seed's token) or ``""``, and
        ``saliency`` (0-1) when given per position."""
        x, c = self.inputs[pair_id], self.counterparts[pair_id]
        s = self._seed_row(pair_id)
        out = []
        for j in np.flatnonzero(x != 0):
            token = {"t": str(self._tokens[x[j]]), "kind": ""}
            if x[j] != c[j]:
                token.update(kind="sensitive", alt=str(self._tokens[c[j]]))
            elif s is not None and x[j] != s[j]:
                token.update(kind="subst", old=str(self._shown_tokens[s[j]]))
            if saliency is not None:
                token["saliency"] = float(saliency[j])
            out.append(token)
        return out

    def _seed_row(self, pair_id: int):
        k = int(self.seed_of[pair_id])
        return self.seeds[k] if self.seeds is not None and 0 <= k < len(self.seeds) else None

    # ------------------------------------------------------------------ Python side of the selection
    @property
    def selected(self) -> pd.DataFrame:
        """The selected pairs (indexed by pair id): what differs first (``term`` -> ``term'``, the outputs and
        decisions), then the input's, the counterpart's and the seed's texts, shown whole in a notebook
        (``WholeTexts``)."""
        ids = list(self.selected_ids)
        frame = self._table.raw.iloc[ids].copy()
        frame["counterpart"] = self._texts(self.counterparts[ids])
        seeds = [self._seed_row(i) for i in ids]
        frame["seed text"] = [None if s is None else self._texts(s[None])[0] for s in seeds]
        frame["label"], frame["label'"] = self.frame["label"].iloc[ids], self.frame["label'"].iloc[ids]
        first = ["term", "term'", "group", "p", "p'", "label", "label'", "text", "counterpart", "seed text"]
        frame = frame[first + [c for c in frame.columns if c not in first]]
        frame.index = pd.Index(ids, name="pair")
        return WholeTexts(frame)

    # ------------------------------------------------------------------ detail
    def describe(self, pair_id: int) -> dict:
        """Everything the detail view shows for one pair (see the module docstring)."""
        row = self._table.raw.iloc[pair_id]
        info = self.result.details(pair_id)
        x = self.inputs[pair_id]
        saliency = _saliency(info.get("saliency"), x)
        seed = self._seed_row(pair_id)
        p, p2 = format_cell(float(row["p"])), format_cell(float(row["p'"]))
        label, label2 = self.decision(row["label"]), self.decision(row["label'"])
        target = self.decision(1) if len(self.class_names or ()) == 2 else "class 1"
        term, other = row["term"], row["term'"]
        summary = (f"Pair {pair_id}: replacing only \"{term}\" by \"{other}\" "
                   f"moves P({target}) from {p} to {p2}; decision {label} → {label2}.")
        if seed is not None:
            n = int(row["substitutions"])
            summary += (f" The search reached the input from seed {int(row['seed'])} with {n} substitution"
                        f"{'' if n == 1 else 's'} ({row['phase']} phase)." if n else
                        f" The input is seed {int(row['seed'])} itself.")
        texts = [{"role": "seed", "text": self._texts(seed[None])[0]}] if seed is not None else []
        texts += [{"role": "input", "text": str(row["text"])},
                  {"role": "counterpart", "text": self._texts(self.counterparts[pair_id][None])[0]}]
        return {
            "pair": int(pair_id), "summary": summary, "texts": texts,
            "tokens": self.aligned(pair_id, saliency), "saliency_known": saliency is not None,
            "outputs": [{"name": f"P({target})", "input": p, "counterpart": p2},
                        {"name": "decision", "input": label, "counterpart": label2}],
            "chain": _chain(info.get("chain") or []),
            "validity": self._validity(pair_id, info.get("validity") or {}),
        }

    def _validity(self, pair_id: int, given: dict) -> list[dict]:
        """The validity metrics from the pair's details, or L0 and Jaccard computed here when none were given."""
        if not given:
            seed = self._seed_row(pair_id)
            if seed is None:
                return []
            from ..text.metrics import jaccard, l0

            x = self.inputs[pair_id][None]
            given = {"l0": int(l0(seed[None], x)[0]), "jaccard": float(jaccard(seed[None], x)[0])}
        return [{"name": VALIDITY_NAMES.get(k, str(k)), "value": format_cell(v)} for k, v in given.items()]

    # ------------------------------------------------------------------ static fallback
    def static_html(self) -> str:
        """The current page as escaped HTML with the highlights as inline styles (exported notebooks, previews)."""
        colours = {"sensitive": "background:#ffe08a", "subst": "background:#cfe3ff"}

        def token(t):
            text = html.escape(t["t"])
            if t["kind"] == "sensitive":
                text = f"{text} → {html.escape(t['alt'])}"
            elif t["kind"] == "subst":
                text = f"<s>{html.escape(t['old'])}</s> {text}"
            return f"<span style='{colours[t['kind']]}'>{text}</span>" if t["kind"] else text

        legend = " ".join(f"<span style='{colours[item['kind']]}'>{html.escape(item['text'])}</span>"
                          for item in self.legend)
        rates = "; ".join(f"{html.escape(r['term'])}: {r['pairs']:,} pairs" +
                          (f", {r['seeds_found']:,} of {r['seeds']:,} seeds ({r['rate']:.0%}, 95 % interval "
                           f"{r['low']:.0%}-{r['high']:.0%})" if r["rate"] is not None else "")
                          for r in self.term_rates[:12])
        body = "".join(
            f"<tr><td>{' '.join(token(t) for t in row['tokens'])}</td><td>{html.escape(row['cells'][4])} → "
            f"{html.escape(row['cells'][5])}</td><td>{html.escape(row['cells'][6])} → {html.escape(row['cells'][7])}"
            f"</td></tr>" for row in self.rows)
        return (f"<div class='fairnb-inspector-static'><b>{html.escape(self.title)}</b> ({len(self.rows):,} of "
                f"{self.total:,} shown){self.static_headline()}<p>{legend}</p><p>{rates}</p><table><thead><tr><th>sentence</th><th>p → p'"
                f"</th><th>decision</th></tr></thead><tbody>{body}</tbody></table></div>")


def _ids(items, what: str) -> np.ndarray:
    X = np.asarray(items)
    if X.ndim != 2:
        raise ValueError(f"{what} have shape {X.shape}; a text Result holds (n, max_len) token ids")
    return np.rint(X).astype(np.int64)


def _seed_ids(result, seeds, length: int):
    seeds = result.extras.get("seeds") if seeds is None else seeds
    if seeds is None:
        return None
    seeds = np.asarray(seeds)
    if seeds.ndim != 2 or seeds.shape[1] != length:
        raise ValueError(f"seeds have shape {seeds.shape}; expected (n, {length}) token ids")
    return np.rint(seeds).astype(np.int64)


def _saliency(values, x: np.ndarray):
    """Per position of ``x`` (0-1, padding 0) from the details' saliency, given per position or per token."""
    if not values:
        return None
    v = np.asarray(values, dtype=float)
    real = np.flatnonzero(x != 0)
    full = np.zeros(len(x))
    if len(v) == len(x):
        full[real] = v[real]
    elif len(v) == len(real):
        full[real] = v
    else:
        return None
    top = np.abs(full).max()
    return np.abs(full) / top if top > 0 else full


def _chain(steps) -> list[dict]:
    """The substitution chain as the detail view shows it: each step with its candidates ranked by score."""
    out = []
    for step in steps:
        candidates = list(step.get("candidates") or [])
        scores = list(step.get("scores") or [])
        ranked = [{"word": str(w), "score": format_cell(float(scores[i])) if i < len(scores) else "",
                   "chosen": str(w) == str(step.get("new"))} for i, w in enumerate(candidates)]
        out.append({"phase": str(step.get("phase", "")), "iteration": int(step.get("iteration", 0)),
                    "position": int(step.get("position", -1)), "old": str(step.get("old", "")),
                    "new": str(step.get("new", "")), "candidates": ranked})
    return out

