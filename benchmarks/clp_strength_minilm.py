"""The CLP control's pairing strength for the MiniLM twin (issue #35), chosen from held-out accuracy and the share
of held-out phrases called a stereotype alone, never from search counts.

At the project's text strength (``CLP_STRENGTH`` = 1.0, chosen on the RedditBias LSTM in
``clp_strength_text.md``) the CLP control head of ``transformer_twin.py`` is near-constant on the frozen MiniLM
encoder (``transformer_twin_clp.md``). This script fits that head (``fairnb.text.heads.clp_softmax_head``, what
``domain_head(control="clp")`` trains) on the twin's planted labels at several strengths, on the same sentence
vectors (every phrase and every protected variant encoded once, ``transformer_twin.setup``), and applies
``RULE``, fixed before any run. Per split and strength: training accuracy (planted labels), held-out accuracy
(annotations) and share called a stereotype over all held-out phrases, the same share over the twin's natural-rate
phrases (the first ``--n-natural`` held-out phrases with a term) and the mean swap shift ``|logit(x) - logit(x')|``
over every protected variant of those phrases (the twin's *swap shift*). Each split is measured on its own
held-out phrases; the rule reads the mean over the splits run.

Reproduce (needs what ``transformer_twin.py`` needs)::

    FAIRNB_DATA=../shared/data nice -n 10 .venv/bin/python benchmarks/clp_strength_minilm.py --splits 0,1

Results: ``benchmarks/results/clp_strength_minilm.md`` (and ``.json``, rewritten after every fit).
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

from transformer_audit import OUT, phrases  # noqa: E402
from transformer_twin import planted_labels, setup  # noqa: E402

STRENGTHS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.5)
RULE = ("on split 0 (and split 1 if time allows; then use the mean), fit the CLP control head on the twin's "
        "planted labels at strengths 0, 0.02, 0.05, 0.1, 0.2, 0.5 (0 = the same Keras head without pairing). For "
        "each, measure on split 0's held-out phrases with a term (the twin's natural-rate phrases, first 200, and "
        "all held-out phrases for accuracy): held-out accuracy on the annotations, the share of held-out phrases it "
        "calls a stereotype, and the mean swap shift |logit(x) - logit(x')| over every variant. Choose the LARGEST "
        "strength whose held-out accuracy is within 0.01 of the strength-0 head's AND whose share called a "
        "stereotype is within 0.05 of the strength-0 head's. Record every row.")
ACCURACY_WITHIN, SHARE_WITHIN = 0.01, 0.05


def logit(head, vectors) -> np.ndarray:
    """The log-odds of a stereotype, as ``transformer_twin.swap_shift`` reads them."""
    p = np.clip(head.predict(vectors, batch_size=1024, verbose=0), 1e-12, 1)
    return np.log(p[:, 1] / p[:, 0])


def choose(means: dict) -> float:
    """``RULE`` on the per-strength means ``{strength: {"test_accuracy": a, "stereotype_share": s}}``."""
    base = means[0.0]
    ok = [s for s, m in means.items() if abs(m["test_accuracy"] - base["test_accuracy"]) <= ACCURACY_WITHIN
          and abs(m["stereotype_share"] - base["stereotype_share"]) <= SHARE_WITHIN]
    return max(ok)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", default="0,1", help="train/test split seeds (the twin's)")
    parser.add_argument("--strengths", default=",".join(f"{s:g}" for s in STRENGTHS))
    parser.add_argument("--n-natural", type=int, default=200)
    args = parser.parse_args(argv)
    strengths = [float(s) for s in args.strengths.split(",")]
    if 0.0 not in strengths:
        parser.error("--strengths must hold 0 (the rule compares every strength with the unpaired head)")

    from fairnb.bench import machine
    from fairnb.text.bert import sentence_vectors
    from fairnb.text.heads import clp_softmax_head

    t0 = time.perf_counter()
    record = {"machine": machine(), "nice": os.nice(0), "uptime_start": [round(x, 2) for x in os.getloadavg()],
              "command": "FAIRNB_DATA=../shared/data nice -n 10 .venv/bin/python benchmarks/clp_strength_minilm.py "
                         + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()),
              "rule": RULE, "rows": []}
    texts, encoder, domain, rows, ids, mask, vectors = setup()
    vectors = vectors.astype(np.float32)
    n = len(texts)
    flat, owner = domain.variants(rows)                 # each phrase first, then its variants
    v_ids, v_mask, _ = domain.subword.encode_rows(domain.vocab, flat[n:])
    variant_vectors, owner = sentence_vectors(encoder, v_ids, v_mask).astype(np.float32), owner[n:]
    record.update(phrases=n, variants=len(owner), setup_s=round(time.perf_counter() - t0, 1))
    print("set-up", record["setup_s"], "s,", n, "phrases,", len(owner), "variants", flush=True)
    where = {t: i for i, t in enumerate(texts)}
    for seed in (int(s) for s in args.splits.split(",")):
        X_train, y_train, X_test, y_test = phrases(seed)
        at, test = np.array([where[t] for t in X_train]), np.array([where[t] for t in X_test])
        y_planted = planted_labels(domain, rows[at], y_train, seed)
        position = np.full(n, -1)
        position[at] = np.arange(len(at))
        mine = position[owner] >= 0                     # the training phrases' variants, in domain.variants' order
        natural = test[domain.sensitive_mask(rows[test]).any(axis=1)][:args.n_natural]
        theirs = np.isin(owner, natural)
        for strength in strengths:
            start = time.perf_counter()
            head, history = clp_softmax_head(vectors[at], y_planted, variant_vectors[mine], position[owner[mine]],
                                             strength=strength, random_state=seed)
            called = logit(head, vectors[test]) > 0
            shift = np.abs(logit(head, variant_vectors[theirs]) - logit(head, vectors[owner[theirs]]))
            row = {"split": seed, "strength": strength,
                   "train_accuracy": float(((logit(head, vectors[at]) > 0) == y_planted).mean()),
                   "test_accuracy": float((called.astype(int) == y_test).mean()),
                   "stereotype_share": float(called.mean()),
                   "natural_stereotype_share": float((logit(head, vectors[natural]) > 0).mean()),
                   "swap_shift": float(shift.mean()), "natural_phrases": len(natural), "variants": int(theirs.sum()),
                   "majority_share": float(max(y_test.mean(), 1 - y_test.mean())),
                   "final_loss": round(history["loss"][-1], 4), "fit_s": round(time.perf_counter() - start, 1)}
            print(row, flush=True)
            record["rows"].append(row)
            write(record)
    record["uptime_end"] = [round(x, 2) for x in os.getloadavg()]
    record["means"] = means(record)
    record["chosen"] = choose(record["means"])
    write(record)
    print(markdown(record))


def means(record) -> dict:
    """Per strength, the mean over the splits of every measure."""
    keys = ("train_accuracy", "test_accuracy", "stereotype_share", "natural_stereotype_share", "swap_shift")
    by = {}
    for row in record["rows"]:
        by.setdefault(row["strength"], []).append(row)
    return {s: {k: float(np.mean([r[k] for r in rs])) for k in keys} | {"splits": [r["split"] for r in rs]}
            for s, rs in by.items()}


def write(record) -> None:
    OUT.mkdir(exist_ok=True)
    (OUT / "clp_strength_minilm.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    (OUT / "clp_strength_minilm.md").write_text(markdown(record))


def markdown(r: dict) -> str:
    lines = [f"""# The CLP control's strength on the MiniLM twin (benchmarks/clp_strength_minilm.py)

`{r['command']}`

Machine: {r['machine']}; run under `nice {r['nice']}`, `uptime` load at the start {r['uptime_start']}, at the end
{r.get('uptime_end', '(still running)')}. No search is run: every number below is a fit and a prediction.

**Rule, fixed before any run**: {r['rule']}

(Each split is measured on its own held-out phrases; *called a stereotype* is over all held-out phrases, the rule's
share; *natural* is the same share over the natural-rate phrases; *swap shift* over every protected variant of the
natural-rate phrases. *Majority* is the held-out annotations' majority share: a head at it has learnt nothing.)

| split | strength | training accuracy (planted labels) | held-out accuracy | majority | called a stereotype | natural: called a stereotype | swap shift | final loss | fit s |
|---|---|---|---|---|---|---|---|---|---|"""]
    for x in r["rows"]:
        lines.append(f"| {x['split']} | {x['strength']:g} | {x['train_accuracy']:.3f} | {x['test_accuracy']:.3f} | "
                     f"{x['majority_share']:.3f} | {100 * x['stereotype_share']:.1f} % | "
                     f"{100 * x['natural_stereotype_share']:.1f} % | {x['swap_shift']:.4f} | {x['final_loss']} | "
                     f"{x['fit_s']} |")
    if "means" in r:
        m = r["means"]
        base = m[0.0] if 0.0 in m else m["0.0"]
        lines += ["", "Means over the splits, and the rule:", "",
                  "| strength | splits | held-out accuracy | - strength 0's | called a stereotype | - strength 0's | "
                  "swap shift | meets the rule |", "|---|---|---|---|---|---|---|---|"]
        for s, x in m.items():
            da, ds = x["test_accuracy"] - base["test_accuracy"], x["stereotype_share"] - base["stereotype_share"]
            meets = abs(da) <= ACCURACY_WITHIN and abs(ds) <= SHARE_WITHIN
            lines.append(f"| {float(s):g} | {x['splits']} | {x['test_accuracy']:.4f} | {da:+.4f} | "
                         f"{100 * x['stereotype_share']:.1f} % | {100 * ds:+.1f} points | {x['swap_shift']:.4f} | "
                         f"{'yes' if meets else 'no'} |")
        lines += ["", f"**Chosen strength: {r['chosen']:g}** (the largest that meets the rule)."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
