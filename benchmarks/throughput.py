"""No regression, ever (issue 39, item 1): candidates checked per CPU second, this tree against an earlier revision,
measured in one run on the same machine.

Each revision runs in its own fresh Python process (``git archive`` of the revision's ``fairnb/`` into a temporary
folder, put first on ``PYTHONPATH``), turn about, ``--repeat`` times: the synthetic census
(``make_synthetic(n=2000)``), its demo model (``train_demo_model``), then each search of ``--methods`` with a count
budget (``max_tried``) and ``random_state=0``. Reported per revision and method: the median process CPU seconds of
``run()`` (the set-up and the model's training are not counted), candidates per CPU second and the pairs found
(equal between revisions when the search is unchanged). A second table times ``Result.record`` alone, replaying
the random search's batches, so the recording's share is seen apart from the model's.

Usage::

    .venv/bin/python benchmarks/throughput.py                          # against eafc7c7, random search
    .venv/bin/python benchmarks/throughput.py --baseline HEAD~5 --methods random aequitas --repeat 5

Writes ``benchmarks/results/throughput.md`` and ``throughput.json`` with the CPU model and the load average: a
number from a shared machine is indicative only.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# run in the revision's process: prints one JSON line per method
CHILD = r"""
import json, sys, time
from fairnb import Result, train_demo_model     # the public names: the same in every revision
from fairnb.datasets import make_synthetic
from fairnb.search import get_method

methods, max_tried = sys.argv[1].split(","), int(sys.argv[2])
data = make_synthetic(n=2000)
model = train_demo_model(data)
get_method("random")(max_tried=20_000, random_state=0, progress=False).run(model, data.domain)   # warm-up
for name in methods:
    batches, record = [], Result.record
    if name == "random":
        def spy(self, *a, **k):
            batches.append((a, k))
            return record(self, *a, **k)
        Result.record = spy
    search = get_method(name)(max_tried=max_tried, random_state=0, progress=False)
    t = time.process_time()
    result = search.run(model, data.domain)
    cpu = time.process_time() - t
    Result.record = record
    row = {"method": name, "cpu_s": cpu, "tried": int(result.tried), "pairs": int(result.count())}
    if batches:
        replay = Result(data.domain, name)
        t = time.process_time()
        for a, k in batches:
            replay.record(*a, **k)
        row["record_cpu_s"] = time.process_time() - t
        row["record_calls"] = len(batches)
    print(json.dumps(row), flush=True)
"""


def export(revision: str, into: Path) -> Path:
    """``fairnb/`` at ``revision`` in a folder of its own; returns the folder."""
    out = into / revision.replace("/", "_")
    out.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "fairnb"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def measure(path: Path, methods: list[str], max_tried: int) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(path)}
    out = subprocess.run([sys.executable, "-c", CHILD, ",".join(methods), str(max_tried)], env=env, check=True,
                         capture_output=True, text=True, cwd=tempfile.gettempdir()).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default="eafc7c7", help="the earlier revision (default: %(default)s)")
    ap.add_argument("--methods", nargs="+", default=["random"])
    ap.add_argument("--max-tried", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)

    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "fairnb"], capture_output=True,
                                text=True).stdout.strip())
    label = f"{head}{' + changes' if dirty else ''} (this tree)"
    rows: dict[str, list[dict]] = {args.baseline: [], label: []}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {args.baseline: export(args.baseline, Path(tmp)), label: ROOT}
        for _ in range(args.repeat):
            for name, path in trees.items():        # turn about: a load that changes hits both alike
                rows[name] += measure(path, args.methods, args.max_tried)

    table = []
    for name, runs in rows.items():
        for method in args.methods:
            mine = [r for r in runs if r["method"] == method]
            cpu = statistics.median(r["cpu_s"] for r in mine)
            rec = [r["record_cpu_s"] for r in mine if "record_cpu_s" in r]
            table.append({"revision": name, "method": method, "cpu_s": cpu, "tried": mine[0]["tried"],
                          "candidates_per_cpu_s": mine[0]["tried"] / cpu, "pairs": mine[0]["pairs"],
                          "record_cpu_s": statistics.median(rec) if rec else None, "runs": len(mine)})
    machine = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
               "load_before_after": list(os.getloadavg())}
    lines = ["# Candidates per CPU second against an earlier revision (issue 39, item 1)", "",
             f"`python benchmarks/throughput.py --baseline {args.baseline} --methods {' '.join(args.methods)} "
             f"--max-tried {args.max_tried} --repeat {args.repeat}`; synthetic census (n=2000), demo model, "
             f"random_state=0; median of {args.repeat} fresh processes per revision, turn about; "
             f"{machine['cores']} cores, load average at the end {machine['load_before_after'][0]:.2f}.", "",
             "| revision | method | CPU s of run() | candidates per CPU s | pairs | Result.record alone, CPU s |",
             "|---|---|---:|---:|---:|---:|"]
    for r in table:
        rec = "-" if r["record_cpu_s"] is None else f"{r['record_cpu_s']:.2f}"
        lines.append(f"| {r['revision']} | {r['method']} | {r['cpu_s']:.2f} | {r['candidates_per_cpu_s']:,.0f} | "
                     f"{r['pairs']:,} | {rec} |")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "throughput.md").write_text("\n".join(lines) + "\n")
    (args.out / "throughput.json").write_text(json.dumps({"machine": machine, "rows": table}, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
