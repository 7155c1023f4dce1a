"""Certification side by side with FairQuant (issue #40, item 4): the same networks, attributes, domains and time.

FairQuant (Kim, Wang and Wang, ICSE 2025; artifact ``briankim113/FairQuant-Artifact``, C + OpenBLAS) is built
and run with its own scripts (``adult.sh sex``, ``bank.sh age``, ``german.sh age``, ``compas.sh race``), which
write ``FairQuant/res/<network>-<attribute index>.txt``; this script reads those files and certifies the same
networks with ``fairnb.certify`` for the same seconds each. The networks are read from the artifact's ``.nnet``
files (the files FairQuant verifies; ``read_nnet`` below, written from the format's description: comment lines,
a header, layer sizes, a flag, the inputs' minima, maxima, means and ranges, then each layer's weight rows and
bias rows), and the domain is the box of integers between the ``.nnet`` minima and maxima, as FairQuant's.

FairQuant compares the protected attribute's *minimum with its maximum* only (for Bank's binned age, 0 with
10); fairnb compares every value of a protected feature, so the protected input is rescaled to ``{0, 1}``
(``0`` the minimum, ``1`` the maximum, folded into the first layer) and the property is the same.

Writes ``benchmarks/results/certify_fairquant.json`` and the section "Side by side with FairQuant" of
``benchmarks/results/certify.md``:

    # build the artifact (see benchmarks/results/certify.md) and run its four scripts first, then
    FAIRNB_FAIRQUANT=/tmp/fq .venv/bin/python benchmarks/certify_fairquant.py [--networks AC-1 BM-2 ...]
    FAIRNB_FAIRQUANT=/tmp/fq .venv/bin/python benchmarks/certify_fairquant.py --same-boxes   # then, the same work
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import fairnb  # noqa: E402
from fairnb.bench import machine, save_report  # noqa: E402
from fairnb.domains import Feature, TabularDomain  # noqa: E402
from fairnb.models import NumpyMLP  # noqa: E402

#: the artifact's scripts: data folder, network prefix, count, attribute and its input index
SUITES = (("adult", "AC", 12, "sex", 8), ("bank", "BM", 8, "age", 0), ("german", "GC", 5, "age", 11),
          ("compas", "compas", 7, "race", 3))
MARKER = "\n## Side by side with FairQuant"
COMMANDS = """Commands. The artifact (github.com/briankim113/FairQuant-Artifact at eab99345504c; its compas-5, -6 and -7
were not in the copy here), built with Debian's OpenBLAS (`apt-get install libopenblas-dev`)
and its time limit set from 1800 to 60 s, nothing else changed:

    cd FairQuant && sed -i 's/long int TIMEOUT = 1800;/long int TIMEOUT = 60;/' network_test.c
    make all INSTALL_PREFIX=/usr
    for s in "adult.sh sex" "bank.sh age" "german.sh age" "compas.sh race"; do nice -n 10 ./$s; done

then fairnb, one network at a time, each given FairQuant's seconds (at least 0.1 s):

    FAIRNB_FAIRQUANT=<artifact folder> nice -n 10 .venv/bin/python benchmarks/certify_fairquant.py
    FAIRNB_FAIRQUANT=<artifact folder> nice -n 10 .venv/bin/python benchmarks/certify_fairquant.py --same-boxes

**Why the numbers differ** (see `docs/methods/certify.md`, section 5):

* *Counting.* FairQuant's `fal_rate` adds one individual per box in which it found a counterexample and puts the
  rest of that box in `und_rate`; fairnb counts a box as falsified only when every input in it is proven unfair
  and reports the undecided share in boxes with a witness apart. On the artifact's shares both are shares of the
  integer inputs (FairQuant's "volume" is a count of integer points too).
* *Search order.* FairQuant goes depth first, gives up on a box at depth 20 (undecided), samples it for a
  counterexample from depth 15 (and drops it when one is found; its sample points `n (lo + hi) / 10` may lie
  outside the box) and stops when less than 0.001 % is left. fairnb takes the largest boxes first, never drops
  a box, and decides boxes of at most 8 inputs exactly.
* *Bounds.* FairQuant propagates forward symbolic intervals (ReluVal); fairnb's default carries every neuron's
  bounds back to the inputs (DeepPoly), tighter on deep networks and dearer per box.
* *Time.* Both measure wall-clock seconds on a shared machine (load averages above); FairQuant is single-threaded
  C, fairnb numpy in one thread. fairnb's time includes checking every undecided box's centre after the budget.
"""


def read_nnet(path) -> tuple[NumpyMLP, np.ndarray, np.ndarray]:
    """The network of a ``.nnet`` file (ReLU hidden layers, one output: the logit) and its inputs' minima and maxima."""
    rows = [[float(v) for v in line.strip().rstrip(",").split(",")]
            for line in Path(path).read_text().splitlines() if line.strip() and not line.startswith("//")]
    n_layers, n_inputs = int(rows[0][0]), int(rows[0][1])
    sizes = [int(v) for v in rows[1][:n_layers + 1]]
    mins, maxes = np.array(rows[3][:n_inputs]), np.array(rows[4][:n_inputs])
    weights, biases, at = [], [], 7
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        weights.append(np.array([r[:fan_in] for r in rows[at:at + fan_out]]).T)
        biases.append(np.array([r[0] for r in rows[at + fan_out:at + 2 * fan_out]]))
        at += 2 * fan_out
    if at != len(rows):
        raise ValueError(f"{path}: {len(rows) - at} rows left after {n_layers} layers of sizes {sizes}")
    return NumpyMLP(weights, biases), mins, maxes


def fairquant_problem(path, protected: int, name: str):
    """fairnb's model and domain for FairQuant's problem: the ``.nnet`` network with input ``protected``
    rescaled to {0 (its minimum), 1 (its maximum)}, over the integers between the file's bounds."""
    net, mins, maxes = read_nnet(path)
    W, b = net.weights[0].copy(), net.biases[0].copy()
    b += mins[protected] * W[protected]
    W[protected] *= maxes[protected] - mins[protected]
    model = NumpyMLP([W, *net.weights[1:]], [b, *net.biases[1:]])
    features = [Feature(name if i == protected else f"x{i}", 0 if i == protected else int(lo),
                        1 if i == protected else int(hi)) for i, (lo, hi) in enumerate(zip(mins, maxes))]
    return model, TabularDomain(features, protected=[name])


def read_fairquant(path) -> dict:
    """FairQuant's result file: seconds, subproblems solved, witnesses and its three rates (as shares)."""
    text = Path(path).read_text()
    head = re.search(r"([\d.]+) sec \| (\d+) solved subps \| (\d+) advs", text)
    rates = re.search(r"cer_rate: ([\d.]+)%, fal_rate: ([\d.]+)%, und_rate: ([\d.]+)%", text)
    if not head or not rates:
        raise ValueError(f"{path}: not a FairQuant result file")
    return {"seconds": float(head[1]), "subproblems": int(head[2]), "witnesses": int(head[3]),
            **{k: float(v) / 100 for k, v in zip(("certified", "falsified", "undecided"), rates.groups())}}


def compare(artifact: Path, networks=None, min_time: float = 0.1) -> list[dict]:
    rows = []
    for folder, prefix, count, attribute, index in SUITES:
        for i in range(1, count + 1):
            net = f"{prefix}-{i}"
            result = artifact / "FairQuant" / "res" / f"{net}-{index}.txt"
            nnet = artifact / "models" / folder / f"{net}.nnet"
            if (networks and net not in networks) or not result.is_file() or not nnet.is_file():
                continue
            theirs = read_fairquant(result)
            model, domain = fairquant_problem(nnet, index, attribute)
            seconds = max(theirs["seconds"], min_time)
            cert = fairnb.certify(model, domain, max_time=seconds)
            s = cert.summary()
            rows.append({"network": net, "attribute": attribute, "inputs": s["inputs"],
                         "layers": [domain.n_features, *model.layer_sizes],
                         "fairquant": theirs, "time_given": seconds,
                         "fairnb": {k: s[k] for k in ("certified_share", "falsified_share", "undecided_share",
                                                      "witness_boxes_share", "witness_boxes", "witnesses",
                                                      "boxes_bounded", "elapsed", "status")}})
            print(net, theirs, rows[-1]["fairnb"], flush=True)
    return rows


def same_work(artifact: Path, rows: list[dict]) -> None:
    """Certify each network again for as many boxes as FairQuant solved subproblems, with no time limit, and add
    the decided shares and the CPU seconds to its row (``"fairnb_same_boxes"``): a comparison the machine's load
    does not move."""
    folders = {prefix: (folder, index) for folder, prefix, _, _, index in SUITES}
    for r in rows:
        folder, index = folders[r["network"].rsplit("-", 1)[0]]
        model, domain = fairquant_problem(artifact / "models" / folder / f"{r['network']}.nnet", index, r["attribute"])
        started = time.process_time()
        s = fairnb.certify(model, domain, max_time=None, max_boxes=r["fairquant"]["subproblems"]).summary()
        r["fairnb_same_boxes"] = {**{k: s[k] for k in ("certified_share", "falsified_share", "boxes_bounded",
                                                        "elapsed", "status")}, "cpu": time.process_time() - started}
        print(r["network"], r["fairnb_same_boxes"], flush=True)


def _ours(shares: dict) -> float:
    return shares["certified_share"] + shares["falsified_share"]


def _theirs(rates: dict) -> float:
    return rates["certified"] + rates["falsified"]


def markdown(rows: list[dict], info: dict) -> str:
    pct = fairnb.summaries.fmt_share
    lines = [MARKER.strip(), "",
             "FairQuant's rates as it prints them (`fal_rate` counts one individual per witness box, the rest of that "
             "box is in `und_rate`); fairnb's shares of the integer inputs, falsified only where every input is "
             "proven unfair, and the undecided share in boxes whose centre is a witness in brackets. *decided* = "
             "certified + falsified.", "",
             "| network | attribute | layers | FairQuant cert. | fals. | undec. | decided | time (s) | witnesses | "
             "fairnb cert. | fals. | undec. (witness boxes) | decided | time (s) | status |", "|" + "---|" * 15]
    for r in rows:
        q, f = r["fairquant"], r["fairnb"]
        lines.append(
            f"| {r['network']} | {r['attribute']} | {'-'.join(map(str, r['layers']))} | {pct(q['certified'])} | "
            f"{pct(q['falsified'])} | {pct(q['undecided'])} | {pct(_theirs(q))} | "
            f"{q['seconds']:.1f} | {q['witnesses']:,} | {pct(f['certified_share'])} | {pct(f['falsified_share'])} | "
            f"{pct(f['undecided_share'])} ({pct(f['witness_boxes_share'])}) | "
            f"{pct(_ours(f))} | {f['elapsed']:.1f} | {f['status']} |")
    decided = [r for r in rows if _ours(r["fairnb"]) >= _theirs(r["fairquant"])]
    lines += ["", f"In the same time fairnb decides at least FairQuant's share on {len(decided)} of {len(rows)} "
              f"networks ({', '.join(r['network'] for r in rows if r not in decided) or 'none'} below)."]
    same = [r for r in rows if "fairnb_same_boxes" in r]
    if same:
        lines += ["", "**At FairQuant's number of boxes** (fairnb stopped after as many boxes bounded as FairQuant "
                  "solved subproblems, no time limit; CPU seconds of the fairnb process, which the load does not "
                  "inflate as it does wall-clock seconds):", "",
                  "| network | boxes | FairQuant decided | fairnb decided | fairnb CPU (s) | FairQuant wall (s) |",
                  "|---|---|---|---|---|---|"]
        for r in same:
            q, f = r["fairquant"], r["fairnb_same_boxes"]
            lines.append(f"| {r['network']} | {f['boxes_bounded']:,} | {pct(_theirs(q))} | {pct(_ours(f))} | "
                         f"{f['cpu']:.1f} | {q['seconds']:.1f} |")
        ahead = [r for r in same if _ours(r["fairnb_same_boxes"]) >= _theirs(r["fairquant"])]
        lines += ["", f"At the same number of boxes fairnb decides at least FairQuant's share on {len(ahead)} of "
                  f"{len(same)} networks ({', '.join(r['network'] for r in same if r not in ahead) or 'none'} below)."]
    lines += ["", f"fairnb measured on: {info}", "", COMMANDS]
    return "\n".join(lines) + "\n"


def splice(path: Path, section: str) -> None:
    """Replace the FairQuant section of ``path`` (from ``MARKER`` on) with ``section``."""
    text = path.read_text() if path.is_file() else ""
    head = text.split(MARKER)[0].rstrip("\n")
    path.write_text(f"{head}\n\n{section}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifact", default=os.environ.get("FAIRNB_FAIRQUANT"),
                        help="the FairQuant-Artifact folder, after its scripts ran (default $FAIRNB_FAIRQUANT)")
    parser.add_argument("--networks", nargs="*", help="only these networks (e.g. AC-1 BM-2)")
    parser.add_argument("--same-boxes", action="store_true",
                        help="add the runs at FairQuant's number of boxes to the rows of the last run's JSON")
    parser.add_argument("--out", help="write <OUT>.json and <OUT>.md instead of certify_fairquant.json and the section "
                                      "of certify.md (a control run)")
    args = parser.parse_args()
    if not args.artifact:
        parser.error("name the artifact's folder with --artifact or $FAIRNB_FAIRQUANT")
    out = Path(args.out) if args.out else ROOT / "benchmarks" / "results" / "certify_fairquant"
    if args.same_boxes:
        report = json.loads(out.with_suffix(".json").read_text())
        rows, timed_on = report["rows"], report["machine"]
        same_work(Path(args.artifact), rows)
        info = {**machine(), "time_runs": timed_on}
    else:
        rows = compare(Path(args.artifact), args.networks)
        info = machine()
    section = markdown(rows, info)
    save_report(out, {"rows": rows, "machine": info}, section)
    if not args.out:
        out.with_suffix(".md").unlink()
        splice(ROOT / "benchmarks" / "results" / "certify.md", section)


if __name__ == "__main__":
    main()
