"""Tree models certified by their own boxes (issue #39, item 4): every region where a tree model discriminates.

A region-partitioning generator partitions the input space by the model's behaviour and generates inside the
regions that discriminate. For scikit-learn tree models fairnb's ``certify`` does that
(``fairnb/certification/trees.py``): it cuts the domain only where a tree cuts it, decides boxes by the bounds of
the trees' summed scores or, once pure, by one oracle call, and a run that ends on its own leaves nothing
undecided, so its falsified boxes hold every discriminatory input the model has.

Models: the peer harness's decision tree and gradient boosting (``benchmarks/grft_reference_sklearn.py``'s
``DecTree`` and ``GBDT``: GRFT's census encoding, 12 columns, gender, fitted on GRFT's training split), and
``benchmarks/model_limits.py``'s decision tree, gradient boosting and random forest on Adult in the ADF encoding
(13 columns, sex). For each, at a budget of ``--max-time`` seconds:

* the certificate's time (wall and CPU s), status, shares and boxes, and the number of discriminatory inputs in its
  falsified boxes: with one binary protected attribute each is one unordered pair, so a completed run gives the
  number of unordered IDI pairs in the whole domain, the most any generator can find on the model (a run ended by
  the budget: a lower bound); the material share among them (the two sides' P(class 1) 0.1 or more apart) is
  estimated from ``--check`` draws from the falsified boxes;
* checks with the oracle: ``--check`` draws from the certified boxes (``Certificate.sample``: all must be fair) and
  from the falsified ones (all must be discriminatory, with the CPU seconds of drawing and checking them), and the
  IDI rate of ``--check`` uniform random inputs, which a completed run's falsified share must match up to sampling;
* beside it, the measured runs of GRFT's reference code and fairnb's searches on ``DecTree`` and ``GBDT`` at 60
  and 300 CPU s (``benchmarks/results/grft_reference_sklearn_60s.json``, ``..._300s_alone.json``), read from those
  files, not rerun.

    FAIRNB_DATA=../shared/data .venv/bin/python benchmarks/certify_trees.py [--check 300000] [--max-time 120]

Writes ``benchmarks/results/certify_trees.{md,json}`` (keeping the ``.md``'s hand-written "Reading it" section).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

RESULTS = ROOT / "benchmarks" / "results"
READING = "\n## Reading it"        # a section written by hand, kept when the tables are written anew
PEER_RUNS = {"60 s": "grft_reference_sklearn_60s.json", "300 s": "grft_reference_sklearn_300s_alone.json"}


def grft_model(name: str, data: Path, work: Path):
    """The peer harness's ``name`` (``DecTree``, ``GBDT``) and its domain (GRFT's census bounds, gender protected)."""
    import joblib
    from expga_grft_reference import GRFT_GENDER, grft_data
    from grft_reference_sklearn import train

    from fairnb.domains import Feature, TabularDomain

    work.mkdir(parents=True, exist_ok=True)
    model = joblib.load(train(name, data, work))
    constraint = grft_data(data)[3]
    names = [f"x{i}" for i in range(len(constraint))]
    domain = TabularDomain([Feature(n, int(lo), int(hi)) for n, (lo, hi) in zip(names, constraint)],
                           protected=[names[GRFT_GENDER]])
    return model, domain


def adf_model(name: str):
    """``model_limits.py``'s ``name`` on Adult in the ADF encoding, sex protected, and its domain."""
    from model_limits import train

    from fairnb.datasets import load

    data = load("census_adf").with_protected(["sex"])
    return train(name, data.X.to_numpy(float), np.asarray(data.y), 30), data.domain


def describe(model) -> str:
    trees = getattr(model, "estimators_", None)
    if trees is None:
        return f"{model.get_n_leaves():,} leaves, depth {model.get_depth()}"
    trees = np.asarray(trees).ravel()
    return f"{len(trees)} trees, {sum(t.get_n_leaves() for t in trees):,} leaves"


def measure(name: str, model, domain, check: int, max_time: float) -> dict:
    from fairnb.certification import certify
    from fairnb.oracle import Oracle

    wall, cpu = time.perf_counter(), time.process_time()
    cert = certify(model, domain, max_time=max_time, max_boxes=None, batch_size=1024, progress=False)
    out = {"model": name, "trees": describe(model), "wall_s": time.perf_counter() - wall,
           "cpu_s": time.process_time() - cpu}
    s = cert.summary()
    out.update({k: s[k] for k in ("status", "inputs", "certified_share", "falsified_share", "undecided_share",
                                   "witness_boxes_share", "certified_boxes", "falsified_boxes", "undecided_boxes",
                                   "boxes_bounded", "witnesses")})
    out["idi_inputs"] = s["inputs"] * s["falsified_share"]
    oracle, rng = Oracle(model, domain), np.random.default_rng(0)
    X = rng.integers(domain.lower, domain.upper + 1, (check, domain.n_features)).astype(float)
    out["uniform_checked"], out["uniform_idi_rate"] = check, float(oracle.check(X).discriminatory.mean())
    fair = cert.sample(check, "certified", random_state=2)
    out["certified_drawn"], out["certified_drawn_fair"] = len(fair), float((~oracle.check(fair).discriminatory).mean())
    cpu = time.process_time()
    drawn = cert.sample(check, "falsified", random_state=1)
    verdict = oracle.check(drawn)
    spent = time.process_time() - cpu
    moved = np.abs(verdict.proba[:, 1] - verdict.counterpart_proba[:, 1])
    out.update({"drawn": check, "drawn_idi_share": float(verdict.discriminatory.mean()),
                "drawn_material_share": float((moved >= 0.1).mean()), "draw_and_check_cpu_s": spent,
                "drawn_idis_per_cpu_s": check / spent})
    out["material_idi_inputs_estimate"] = out["idi_inputs"] * out["drawn_material_share"]
    return out


def peers() -> list[dict]:
    """The measured DecTree rows of the peer runs (GRFT's reference and fairnb's searches), read from their files."""
    rows = []
    for budget, name in PEER_RUNS.items():
        path = RESULTS / name
        if not path.exists():
            continue
        for r in json.loads(path.read_text()):
            if r.get("model") in ("DecTree", "GBDT"):
                rows.append({"model": r["model"], "budget": budget, "side": r["harness"], "method": r["method"], "cpu_s": r["cpu_s"],
                             "idis": r["unique_unordered"], "material": r["material_unordered"]})
    return rows


def markdown(rows: list[dict], peer_rows: list[dict], info: dict) -> str:
    lines = ["# Tree models certified by their own boxes: every discriminating region (benchmarks/certify_trees.py)",
             "", f"`{info['command']}`", "",
             f"Machine: {info['machine']}; `uptime` before: {info['uptime_before']}; after: {info['uptime_after']}.",
             "", "| model | trees | certify: CPU s (wall) | status | inputs | certified / falsified / undecided | boxes "
             "(certified / falsified / undecided) | IDI pairs proven (unordered) | material (estimated) | draws from "
             "certified boxes: fair | draws from falsified boxes: IDIs | uniform inputs: IDI rate | drawn + checked a "
             "CPU s |",
             "|" + "---|" * 12]
    for r in rows:
        shares = " / ".join(f"{100 * r[k]:.2f} %" for k in ("certified_share", "falsified_share", "undecided_share"))
        lines.append(
            f"| {r['model']} | {r['trees']} | {r['cpu_s']:.2f} ({r['wall_s']:.2f}) | {r['status']} | {r['inputs']:,.0f} | "
            f"{shares} | {r['certified_boxes']:,} / {r['falsified_boxes']:,} / {r['undecided_boxes']:,} | "
            f"{r['idi_inputs']:,.0f} | {r['material_idi_inputs_estimate']:,.0f} ({100 * r['drawn_material_share']:.1f} %) | "
            f"{100 * r['certified_drawn_fair']:.2f} % of {r['certified_drawn']:,} | {100 * r['drawn_idi_share']:.2f} % "
            f"of {r['drawn']:,} | {100 * r['uniform_idi_rate']:.2f} % of {r['uniform_checked']:,} | "
            f"{r['drawn_idis_per_cpu_s']:,.0f} |")
    if peer_rows:
        lines += ["", "The same `DecTree` and `GBDT`, measured runs of the peer comparison (read from their JSON, not "
                  "rerun): unique unordered IDI pairs, every one re-checked.", "",
                  "| model | budget | side | method | CPU s | IDIs | material |", "|---|---|---|---|---|---|---|"]
        for r in peer_rows:
            fmt = (lambda v: "-" if v is None else f"{v:,.0f}")
            lines.append(f"| {r['model']} | {r['budget']} | {r['side']} | {r['method']} | "
                         f"{'-' if r['cpu_s'] is None else format(r['cpu_s'], '.1f')} | {fmt(r['idis'])} | "
                         f"{fmt(r['material'])} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    import os
    import subprocess

    from fairnb.bench import machine

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", type=int, default=300_000, help="inputs checked against the oracle, each way")
    parser.add_argument("--max-time", type=float, default=120.0, help="each certificate's budget (seconds)")
    parser.add_argument("--models", default="DecTree,GBDT,DecTreeRebuilt,GBDTRebuilt,RanForestRebuilt")
    parser.add_argument("--work", type=Path, default=Path("/tmp/certify_trees"), help="where the trees are kept")
    parser.add_argument("--out", type=Path, default=RESULTS / "certify_trees")
    args = parser.parse_args(argv)
    data = Path(os.environ.get("FAIRNB_DATA", ROOT.parent / "shared" / "data"))
    uptime = lambda: subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()    # noqa: E731
    info = {"command": "python benchmarks/certify_trees.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "machine": machine(), "uptime_before": uptime()}
    rows = []
    for name in args.models.split(","):
        model = grft_model(name, data, args.work) if name in ("DecTree", "GBDT") else adf_model(name.replace(
            "GBDTRebuilt", "GBDT"))
        label = f"{name} ({'GRFT census, gender' if name in ('DecTree', 'GBDT') else 'ADF census, sex'})"
        rows.append(measure(label, *model, args.check, args.max_time))
        print(rows[-1], file=sys.stderr, flush=True)
    info["uptime_after"] = uptime()
    peer_rows = peers()
    args.out.with_suffix(".json").write_text(json.dumps({"info": info, "rows": rows, "peers": peer_rows}, indent=1,
                                                        default=str))
    md = args.out.with_suffix(".md")
    kept = md.read_text().split(READING, 1) if md.exists() else []
    md.write_text(markdown(rows, peer_rows, info) + (READING + kept[1] if len(kept) == 2 else ""))
    print(markdown(rows, peer_rows, info))


if __name__ == "__main__":
    main()
