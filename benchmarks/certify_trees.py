"""Decision trees certified exactly (issue #39, item 4): every region where a tree discriminates, beside the peers.

A region-partitioning generator partitions the input space by the model's behaviour and generates inside the
regions that discriminate. For a single decision tree fairnb's ``certify`` does that exactly
(``fairnb/certification/trees.py``): it cuts the domain only where the tree cuts it, decides each box with one
oracle call, and leaves nothing undecided, so its falsified boxes hold every discriminatory input the tree has.

Models: the peer harness's decision tree (``benchmarks/grft_reference_sklearn.py``'s ``DecTree``: GRFT's census
encoding, 12 columns, gender; ``DecisionTreeClassifier(random_state=0)`` on GRFT's training split) and
``benchmarks/model_limits.py``'s ``DecTreeRebuilt`` (Adult in the ADF encoding, 13 columns, sex). For each:

* the certificate's time (wall and CPU s), shares, boxes, and the number of discriminatory inputs it proves:
  with one binary protected attribute, each falsified input is one unordered pair, so this is the number of
  unordered IDI pairs in the whole domain, the most any generator can find on the model; the material ones among
  them (the two sides' P(class 1) 0.1 or more apart: each falsified box is one leaf per protected value, so one
  input decides it);
* a check against the oracle: ``--check`` uniform random inputs of the domain, each verdict against the oracle's
  (agreement must be 1), and ``--check`` inputs drawn from the falsified boxes (``Certificate.sample``: all must be
  discriminatory), with the CPU seconds of drawing and checking them (IDIs a generator inside the regions yields
  a CPU second);
* beside it, the counts of the measured runs of GRFT's reference code and fairnb's searches on the same
  ``DecTree`` at 60 and 300 CPU s (``benchmarks/results/grft_reference_sklearn_60s.json`` and
  ``..._300s_alone.json``), read from those files, not rerun.

    FAIRNB_DATA=../shared/data .venv/bin/python benchmarks/certify_trees.py [--check 300000]

Writes ``benchmarks/results/certify_trees.{md,json}``.
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
PEER_RUNS = {"60 s": "grft_reference_sklearn_60s.json", "300 s": "grft_reference_sklearn_300s_alone.json"}


def grft_tree(data: Path, work: Path):
    """The peer harness's decision tree and its domain (GRFT's census bounds, gender protected)."""
    import joblib
    from expga_grft_reference import GRFT_GENDER, grft_data
    from grft_reference_sklearn import train

    from fairnb.domains import Feature, TabularDomain

    work.mkdir(parents=True, exist_ok=True)
    tree = joblib.load(train("DecTree", data, work))
    constraint = grft_data(data)[3]
    names = [f"x{i}" for i in range(len(constraint))]
    domain = TabularDomain([Feature(n, int(lo), int(hi)) for n, (lo, hi) in zip(names, constraint)],
                           protected=[names[GRFT_GENDER]])
    return tree, domain


def adf_tree():
    """``model_limits.py``'s decision tree on Adult in the ADF encoding, sex protected, and its domain."""
    from model_limits import train

    from fairnb.datasets import load

    data = load("census_adf").with_protected(["sex"])
    return train("DecTreeRebuilt", data.X.to_numpy(float), np.asarray(data.y), 30), data.domain


def measure(name: str, tree, domain, check: int) -> dict:
    from fairnb.certification import certify
    from fairnb.oracle import Oracle

    wall, cpu = time.perf_counter(), time.process_time()
    cert = certify(tree, domain, max_time=None, max_boxes=None, batch_size=4096, progress=False)
    out = {"model": name, "leaves": int(tree.get_n_leaves()), "depth": int(tree.get_depth()),
           "wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}
    s = cert.summary()
    out.update({k: s[k] for k in ("status", "inputs", "certified_share", "falsified_share", "undecided_share",
                                   "certified_boxes", "falsified_boxes", "boxes_bounded", "witnesses")})
    free = domain.non_protected
    lo, hi = cert.boxes["falsified"]
    size = np.prod(hi[:, free] - lo[:, free] + 1, axis=1)
    corners = lo.copy()
    protected = list(domain.protected)
    corners[:, protected] = domain.lower[protected]
    verdict = Oracle(tree, domain).check(corners)              # one input decides a box: one leaf per value
    moved = np.abs(verdict.proba[:, 1] - verdict.counterpart_proba[:, 1]) if verdict.proba.ndim == 2 else None
    out["idi_inputs"] = float(size.sum())
    out["material_idi_inputs"] = float(size[moved >= 0.1].sum()) if moved is not None else None
    oracle, rng = Oracle(tree, domain), np.random.default_rng(0)
    X = rng.integers(domain.lower, domain.upper + 1, (check, domain.n_features)).astype(float)
    unfair = oracle.check(X).discriminatory
    out["uniform_checked"], out["uniform_idi_rate"] = check, float(unfair.mean())
    out["agreement"] = float((cert.verdicts(X) == np.where(unfair, "falsified", "certified")).mean())
    cpu = time.process_time()
    drawn = cert.sample(check, "falsified", random_state=1)
    confirmed = oracle.check(drawn).discriminatory
    spent = time.process_time() - cpu
    out.update({"drawn": check, "drawn_idi_share": float(confirmed.mean()), "draw_and_check_cpu_s": spent,
                "drawn_idis_per_cpu_s": check / spent})
    return out


def peers() -> list[dict]:
    """The measured DecTree rows of the peer runs (GRFT's reference and fairnb's searches), read from their files."""
    rows = []
    for budget, name in PEER_RUNS.items():
        path = RESULTS / name
        if not path.exists():
            continue
        for r in json.loads(path.read_text()):
            if r.get("model") == "DecTree":
                rows.append({"budget": budget, "side": r["harness"], "method": r["method"], "cpu_s": r["cpu_s"],
                             "idis": r["unique_unordered"], "material": r["material_unordered"]})
    return rows


def markdown(rows: list[dict], peer_rows: list[dict], info: dict) -> str:
    lines = ["# Decision trees certified exactly: every discriminating region (benchmarks/certify_trees.py)", "",
             f"`{info['command']}`", "",
             f"Machine: {info['machine']}; `uptime` before: {info['uptime_before']}; after: {info['uptime_after']}.",
             "", "| model | leaves / depth | certify: CPU s (wall) | status | inputs | falsified share | boxes "
             "(certified / falsified) | IDI pairs proven (unordered) | material | uniform check: agreement (IDI rate) | "
             "drawn from falsified boxes: IDI share | drawn + checked a CPU s |", "|" + "---|" * 12]
    for r in rows:
        lines.append(
            f"| {r['model']} | {r['leaves']:,} / {r['depth']} | {r['cpu_s']:.2f} ({r['wall_s']:.2f}) | {r['status']} | "
            f"{r['inputs']:,.0f} | {100 * r['falsified_share']:.2f} % | {r['certified_boxes']:,} / "
            f"{r['falsified_boxes']:,} | {r['idi_inputs']:,.0f} | "
            f"{'-' if r['material_idi_inputs'] is None else format(r['material_idi_inputs'], ',.0f')} | "
            f"{r['agreement']:.6f} ({100 * r['uniform_idi_rate']:.2f} % of {r['uniform_checked']:,}) | "
            f"{100 * r['drawn_idi_share']:.2f} % of {r['drawn']:,} | {r['drawn_idis_per_cpu_s']:,.0f} |")
    if peer_rows:
        lines += ["", "The same `DecTree`, measured runs of the peer comparison (read from their JSON, not rerun): "
                  "unique unordered IDI pairs, every one re-checked.", "",
                  "| budget | side | method | CPU s | IDIs | material |", "|---|---|---|---|---|---|"]
        for r in peer_rows:
            fmt = (lambda v: "-" if v is None else f"{v:,.0f}")
            lines.append(f"| {r['budget']} | {r['side']} | {r['method']} | "
                         f"{'-' if r['cpu_s'] is None else format(r['cpu_s'], '.1f')} | {fmt(r['idis'])} | "
                         f"{fmt(r['material'])} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    import os
    import subprocess

    from fairnb.bench import machine

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", type=int, default=300_000, help="inputs checked against the oracle, each way")
    parser.add_argument("--work", type=Path, default=Path("/tmp/certify_trees"), help="where the trees are kept")
    parser.add_argument("--out", type=Path, default=RESULTS / "certify_trees")
    args = parser.parse_args(argv)
    data = Path(os.environ.get("FAIRNB_DATA", ROOT.parent / "shared" / "data"))
    uptime = lambda: subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()    # noqa: E731
    info = {"command": "python benchmarks/certify_trees.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "machine": machine(), "uptime_before": uptime()}
    rows = [measure("DecTree (GRFT census, gender)", *grft_tree(data, args.work), args.check),
            measure("DecTreeRebuilt (ADF census, sex)", *adf_tree(), args.check)]
    info["uptime_after"] = uptime()
    peer_rows = peers()
    args.out.with_suffix(".json").write_text(json.dumps({"info": info, "rows": rows, "peers": peer_rows}, indent=1,
                                                        default=str))
    args.out.with_suffix(".md").write_text(markdown(rows, peer_rows, info))
    print(markdown(rows, peer_rows, info))


if __name__ == "__main__":
    main()
