"""The MiniLM twin (issue #35, benchmarks): a head with a **planted** dependence on identity terms beside its
control head, every text method of the audit on both, over several train/test splits.

Data, encoder and domain as ``benchmarks/transformer_audit.py`` (RedditBias race + religion annotated phrases,
all-MiniLM-L6-v2 frozen, 32 pieces, the four term groups). Per split seed:

* **planted head**: a logistic head (``fairnb.text.bert.fit_head``) on the training phrases whose labels are the
  annotations, except that a phrase holding a planted term (``PLANTED``: "black", "blacks", "muslim",
  "muslims") is labelled a stereotype (1) with probability ``SHARE`` = 0.8 (drawn with the split seed), as
  ``benchmarks/twins.py`` plants "black" in its RedditBias LSTM;
* **control head**, by the recipe ``--control`` names (``fairnb.text.heads`` says which question each answers):
  ``shuffled`` (the default, ``transformer_twin.md``): the same phrases and the same planted labels with every
  identity term replaced by a term of its group drawn at random (``domain_head(control="shuffled")``): the
  planted labels stay, but which term a phrase holds no longer tells them; ``counterfactual``
  (``transformer_twin_counterfactual.md``): the same phrases and planted labels together with every protected
  variant of each, labelled as its phrase (counterfactual augmentation, ``domain_head(control="counterfactual")``),
  the recipe the issue names for the twins' control ("term-swap augmentation") and ``benchmarks/twins.py``'s
  ``redditbias_counterfactual``; ``clp`` (``transformer_twin_clp.md``): a softmax head trained on the same phrases
  and planted labels with counterfactual logit pairing (``domain_head(control="clp")``, one protected variant of
  each phrase drawn per batch) at the project's text strength ``CLP_STRENGTH`` = 1.0, the other recipe the issue
  names and ``benchmarks/twins.py``'s ``redditbias_clp``.

The natural rate (held-out phrases with a term, checked as they are under the default constraints, 95 % Wilson
interval) is measured on the first ``--n-natural`` of them; each method (``adf_asc`` and its baselines ``asc``,
``adf_hf``, ``hf``, ``rp``) then searches the first ``--n-seeds`` with a count budget (``max_iter``,
``n_local``), the same on both heads, so that the counts do not depend on the machine's load. Every pair is
re-checked from its two strings through the tokeniser and the Keras head (flipped, material) and against the
default constraints. Each head is served by one ``SubwordTextModel(remember=...)`` for all its searches, so a
text checked once is not read again by the next method.

Reproduce::

    FAIRNB_DATA=../shared/data nice -n 10 .venv/bin/python benchmarks/transformer_twin.py

Results: ``benchmarks/results/transformer_twin.md`` (and ``.json``, rewritten after every search);
``transformer_twin_counterfactual.md`` / ``.json`` with ``--control counterfactual``; ``transformer_twin_clp.md`` /
``.json`` with ``--control clp``, ``transformer_twin_clp_<strength>.md`` with ``--control clp --clp-strength S``
(S chosen by ``benchmarks/clp_strength_minilm.py``). Each head's *swap shift* is its mean ``|logit(x) - logit(x')|`` over the protected
variants of the natural rate's phrases (the log-odds of a stereotype; read from the adapter's memory).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from transformer_audit import GROUPS, OUT, PIECES, cpu_seconds, phrases, recheck  # noqa: E402

from fairnb.text.heads import CLP_STRENGTH  # noqa: E402

PLANTED = ("black", "blacks", "muslim", "muslims")
SHARE = 0.8
METHODS = ("adf_asc", "asc", "adf_hf", "hf", "rp")
HEADS = ("planted", "control")
#: ``--control`` -> (the results' file stem, how the markdown says what the control learnt)
CONTROLS = {
    "shuffled": ("transformer_twin", "learns the same labels on the same phrases with the identity terms shuffled "
                 "within their groups\n(`domain_head(control=\"shuffled\")`)"),
    "counterfactual": ("transformer_twin_counterfactual", "learns the same labels on the same phrases together "
                       "with every protected variant of each,\nlabelled as its phrase (counterfactual augmentation, "
                       "`domain_head(control=\"counterfactual\")`; its training accuracy is on these augmented "
                       "phrases)"),
    "clp": ("transformer_twin_clp", "learns the same labels on the same phrases with counterfactual logit pairing "
            "at strength {strength}\n(`domain_head(control=\"clp\")`: a softmax head on the frozen sentence "
            "vectors, the cross-entropy plus\nthe strength times the mean |logit(x) - logit(x')| over one protected "
            "variant of each phrase drawn per batch;\n{why})")}
#: why the CLP strength is what it is: the default, or one chosen for this head (``--clp-strength``)
CLP_WHY = {CLP_STRENGTH: "the strength is `benchmarks/twins.py`'s RedditBias one, fixed beforehand"}
CLP_CHOSEN = ("the strength was chosen for this head from held-out accuracy and stereotype share alone,\n"
              "`benchmarks/results/clp_strength_minilm.md`, never from search counts")


def planted_labels(domain, rows, y, seed: int) -> np.ndarray:
    """The annotations ``y`` with a phrase holding a ``PLANTED`` term labelled 1 with probability ``SHARE``."""
    holds = np.isin(rows, [domain.vocab.id(t) for t in PLANTED]).any(axis=1)
    return np.where(holds & (np.random.default_rng(seed).random(len(rows)) < SHARE), 1, y)


def natural(adapter, domain, seeds) -> dict:
    """The natural rate of ``seeds`` on a head (a search that only checks its seeds as they are)."""
    import fairnb

    s = fairnb.run_search(adapter, domain, method="rp", seeds=seeds, n_seeds=len(seeds), max_iter=0, n_local=0,
                          random_state=0, progress=False).summary()
    return {k: s[k] for k in ("natural_rate", "natural_low", "natural_high", "natural_n", "natural_idis")}


def swap_shift(adapter, domain, seeds) -> float:
    """A head's mean ``|logit(x) - logit(x')|`` over every protected variant ``x'`` of the phrases ``seeds``."""
    flat, owner = domain.variants(domain.ids(domain.validate(seeds)))
    p = np.clip(adapter.predict_proba(flat), 1e-12, 1)
    logit = np.log(p[:, 1] / p[:, 0])
    n = len(seeds)
    return round(float(np.abs(logit[n:] - logit[owner[n:]]).mean()), 4)


def search(method, adapter, head, domain, seeds, budget) -> dict:
    import fairnb

    cpu, start, load = cpu_seconds(), time.perf_counter(), os.getloadavg()[0]
    r = fairnb.run_search(adapter, domain, method=method, seeds=seeds, n_seeds=len(seeds), random_state=0,
                          progress=False, **budget)
    wall, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    s = r.summary()
    return {"material_pairs": int(s["material_pairs"]), "pairs": int(r.count()), "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1), "load_before": round(load, 2), "model_rows": int(r.extras.get("model_rows", 0)),
            "rechecked": recheck(r, head, domain)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2", help="train/test split seeds (also the planted draws')")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--n-natural", type=int, default=200, help="held-out phrases the natural rate is measured on")
    parser.add_argument("--n-seeds", type=int, default=60, help="held-out phrases each search starts from")
    parser.add_argument("--max-iter", type=int, default=3)
    parser.add_argument("--n-local", type=int, default=5)
    parser.add_argument("--control", choices=tuple(CONTROLS), default="shuffled",
                        help="the control head's recipe (fairnb.text.heads.domain_head(control=...))")
    parser.add_argument("--clp-strength", type=float, default=CLP_STRENGTH,
                        help="the pairing strength of --control clp (another than the default writes "
                             "transformer_twin_clp_<strength>.md)")
    args = parser.parse_args(argv)
    if args.clp_strength != CLP_STRENGTH and args.control != "clp":
        parser.error("--clp-strength is the strength of --control clp")
    budget = {"max_iter": args.max_iter, "n_local": args.n_local}

    from fairnb.bench import machine
    from fairnb.text.bert import fit_head
    from fairnb.text.heads import domain_head
    from fairnb.text.subword import SubwordTextModel

    t0, load0 = time.perf_counter(), os.getloadavg()
    texts, encoder, domain, rows_all, ids_all, mask_all, vectors = setup()
    where = {t: i for i, t in enumerate(texts)}
    record = {"machine": machine(), "nice": os.nice(0), "load_average_start": [round(x, 2) for x in load0],
              "command": "FAIRNB_DATA=../shared/data nice -n 10 .venv/bin/python benchmarks/transformer_twin.py "
                         + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()),
              "control": args.control, **({"pairing_strength": args.clp_strength} if args.control == "clp" else {}),
              "planted": PLANTED, "share": SHARE,
              "budget": {"n_seeds": args.n_seeds, **budget},
              "n_natural": args.n_natural, "setup_s": round(time.perf_counter() - t0, 1), "splits": []}
    print("set-up", record["setup_s"], "s", flush=True)
    for seed in (int(s) for s in args.seeds.split(",")):
        X_train, y_train, X_test, y_test = phrases(seed)
        at = np.array([where[t] for t in X_train])
        y_planted = planted_labels(domain, rows_all[at], y_train, seed)
        start = time.perf_counter()
        heads = {"planted": fit_head(encoder, ids_all[at], mask_all[at], y_planted, vectors=vectors[at],
                                     name="planted_head"),
                 "control": domain_head(encoder, domain, rows_all[at], y_planted, control=args.control,
                                        random_state=seed, **({"pairing_strength": args.clp_strength}
                                                              if args.control == "clp" else {}))}
        split = {"seed": seed, "train": len(at), "planted_share": round(float((y_planted != y_train).mean()), 4),
                 "fit_s": round(time.perf_counter() - start, 1), "heads": {}, "methods": {}}
        test = domain.ids(domain.validate(X_test))
        with_term = [t for t, holds in zip(X_test, domain.sensitive_mask(test).any(axis=1)) if holds]
        adapters = {name: SubwordTextModel(h, domain.subword, domain.vocab, remember=200_000)
                    for name, h in heads.items()}
        for name, head in heads.items():
            predicted = adapters[name].predict_proba(test).argmax(1)
            split["heads"][name] = {"train_accuracy": round(head.head_accuracy, 3),
                                    "test_accuracy_annotations": round(float((predicted == y_test).mean()), 3),
                                    "test_stereotype_share": round(float(predicted.mean()), 3),
                                    **natural(adapters[name], domain, with_term[:args.n_natural]),
                                    "swap_shift": swap_shift(adapters[name], domain, with_term[:args.n_natural])}
            if hasattr(head, "pairing_history"):     # the CLP head's training curve, every 5th epoch
                split["heads"][name]["pairing_history"] = {k: [round(float(x), 4) for x in v[::5]] + [round(
                    float(v[-1]), 4)] for k, v in head.pairing_history.items()}
        print(seed, split["heads"], flush=True)
        record["splits"].append(split)
        for method in args.methods.split(","):
            split["methods"][method] = {name: search(method, adapters[name], heads[name], domain,
                                                     with_term[:args.n_seeds], budget) for name in HEADS}
            print(seed, method, split["methods"][method], flush=True)
            write(record)
    record["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    write(record)
    print(markdown(record))


def setup():
    """What every split shares: the phrases (``texts``, every split a permutation of them), the frozen MiniLM
    ``encoder``, the subword ``domain``, the phrases' word-id ``rows``, piece ``ids`` and ``mask``, and their
    sentence ``vectors`` (encoded once)."""
    from fairnb.domains import TextDomain
    from fairnb.text import Tokenizer, all_builtin_terms, minilm
    from fairnb.text.bert import bert_classifier, sentence_vectors

    X_train, _, X_test, _ = phrases(0)
    texts = X_train + X_test                                   # every split permutes the same phrases
    encoder = minilm.minilm_encoder(PIECES)
    terms = [*all_builtin_terms(), *(t for group in GROUPS.values() for t in group)]
    words = sorted({w for row in Tokenizer(terms).tokenize_all(texts) for w in row})
    domain = TextDomain.for_model(bert_classifier(encoder), GROUPS, tokenizer=minilm.minilm_files() / "tokenizer.json",
                                  vocabulary=words, max_len=PIECES - 2)
    rows = domain.ids(domain.validate(texts))
    ids, mask, _ = domain.subword.encode_rows(domain.vocab, rows)
    return texts, encoder, domain, rows, ids, mask, sentence_vectors(encoder, ids, mask)


def stem(record) -> str:
    """The results' file stem: the control's, with a CLP strength other than the default appended."""
    strength = record.get("pairing_strength", CLP_STRENGTH)
    return CONTROLS[record.get("control", "shuffled")][0] + ("" if strength == CLP_STRENGTH else f"_{strength:g}")


def write(record) -> None:
    stem_ = stem(record)
    OUT.mkdir(exist_ok=True)
    (OUT / f"{stem_}.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    (OUT / f"{stem_}.md").write_text(markdown(record))


def pct(x) -> str:
    return f"{100 * x:.1f} %"


def markdown(r: dict) -> str:
    from fairnb.stats import wilson_interval

    b = r["budget"]
    control = r.get("control", "shuffled")
    shifts = all("swap_shift" in h for s in r["splits"] for h in s["heads"].values())
    called = all("test_stereotype_share" in h for s in r["splits"] for h in s["heads"].values())
    strength = r.get("pairing_strength", CLP_STRENGTH)
    learns = CONTROLS[control][1].format(strength=strength, why=CLP_WHY.get(strength, CLP_CHOSEN))
    lines = [f"""# The MiniLM twin: a planted head vs its {control} control head (benchmarks/transformer_twin.py)

`{r['command']}`

Machine: {r['machine']}; run under `nice {r['nice']}`, load average at the start {r['load_average_start']}, at the
end {r.get('load_average_end', '(still running)')}. The searches have count budgets (the same on both heads), so
the counts do not depend on the load; the seconds do (indicative only: 2 shared cores).

**The bias is planted**: the planted head learns RedditBias's annotated race + religion phrases with every phrase
that holds {', '.join(f'"{t}"' for t in r['planted'])} labelled a stereotype with probability {r['share']}; its
{control} control {learns}. Neither is the audit's annotation head (`transformer_audit.md`). The frozen
encoder still sets the terms apart, so the control is no lower bound of 0.

Natural rate: the first {r['n_natural']} held-out phrases with a term, as they are. Searches: the first
{b['n_seeds']} of them, `max_iter={b['max_iter']}`, `n_local={b['n_local']}`, `random_state=0`; material pairs
(flipped, output moved >= 0.1, default constraints), each re-checked from its two strings.

## Heads and natural rates per split

| split | head | training accuracy (its labels) | held-out accuracy (annotations) | natural rate | 95 % interval | apart |"""
             + (" swap shift |" if shifts else "") + (" held-out called a stereotype |" if called else ""),
             "|---|---|---|---|---|---|---|" + ("---|" if shifts else "") + ("---|" if called else "")]
    totals = {h: [0, 0] for h in HEADS}
    for s in r["splits"]:
        p, c = s["heads"]["planted"], s["heads"]["control"]
        apart = p["natural_low"] > c["natural_high"] or c["natural_low"] > p["natural_high"]
        for name, h in (("planted", p), ("control", c)):
            totals[name][0] += h["natural_idis"]
            totals[name][1] += h["natural_n"]
            lines.append(f"| {s['seed']} | {name} | {h['train_accuracy']} | {h['test_accuracy_annotations']} | "
                         f"{pct(h['natural_rate'])} | [{pct(h['natural_low'])}, {pct(h['natural_high'])}] | "
                         f"{'yes' if apart else 'no'} |" + (f" {h['swap_shift']} |" if shifts else "")
                         + (f" {pct(h['test_stereotype_share'])} |" if called else ""))
    pooled = {h: (k / n, *wilson_interval(k, n)) for h, (k, n) in totals.items() if n}
    if len(pooled) == 2:
        lines.append(f"| all | planted / control | | | {pct(pooled['planted'][0])} / {pct(pooled['control'][0])} | "
                     f"[{pct(pooled['planted'][1])}, {pct(pooled['planted'][2])}] / "
                     f"[{pct(pooled['control'][1])}, {pct(pooled['control'][2])}] | "
                     f"{'yes' if pooled['planted'][1] > pooled['control'][2] else 'no'} |" + (" |" if shifts else "")
                     + (" |" if called else ""))
    lines += ["", "## Material pairs per method (planted / control), re-checked from the strings", "",
              "| method | " + " | ".join(f"split {s['seed']}" for s in r["splits"]) +
              " | total | planted / control | CPU s (planted + control) | re-checked: flipped / material / breaking |",
              "|---|" + "---|" * len(r["splits"]) + "---|---|---|---|"]
    methods = [m for m in METHODS if any(m in s["methods"] for s in r["splits"])]
    for m in methods:
        cells, tp, tc, cpu, flipped, mat, brk = [], 0, 0, 0.0, 0, 0, 0
        for s in r["splits"]:
            row = s["methods"].get(m)
            if row is None:
                cells.append("-")
                continue
            cells.append(f"{row['planted']['material_pairs']} / {row['control']['material_pairs']}")
            tp += row["planted"]["material_pairs"]
            tc += row["control"]["material_pairs"]
            for h in HEADS:
                cpu += row[h]["cpu_s"]
                k = row[h]["rechecked"]
                flipped, mat, brk = flipped + k["flipped"], mat + k["material"], brk + k["breaking"]
        ratio = f"{tp / tc:.3f}x" if tc else "inf"      # 3 decimals: 788 / 263 is 2.996, not 3.00
        lines.append(f"| {m} | {' | '.join(cells)} | {tp} / {tc} | {ratio} | {cpu:.0f} | {flipped} / {mat} / {brk} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
