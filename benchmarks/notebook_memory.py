"""Run tutorial notebooks one by one and report each kernel's peak memory and wall time.

Each notebook runs in a fresh kernel (the interpreter running this script), in a scratch copy of its folder,
so the files it writes stay out of the checkout. The peak resident set size is the kernel process's
``VmHWM`` (Linux), read after the last cell: what Binder's 2 GB limit applies to. With ``--runs 2`` every cell
runs a second time in the same kernel (a student's second Run All: searches re-run while the first run's results
are still referenced), and the peak covers both runs. Smoke or full mode is whatever ``FAIRNB_SMOKE`` says.
``--jobs 2`` runs two notebooks at a time, each in its own kernel: a kernel's peak is its own process's, whatever
runs beside it (the seconds then include the wait for a shared core).

    python benchmarks/notebook_memory.py notebooks --limit-mb 1536 --runs 2 --json benchmarks/results/notebook_memory.json

Exit status 1 when a notebook fails or goes over ``--limit-mb``.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def memory_mb(pid: int, field: str = "VmHWM") -> float:
    """Memory of process ``pid`` in MiB: ``VmHWM`` (peak resident) or ``VmRSS`` (resident now) of /proc/PID/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for process {pid}")


def run_notebook(path: Path, timeout: int, runs: int = 1, executed: Path | None = None) -> dict:
    """Execute ``path`` (all its cells, ``runs`` times in one kernel) in a scratch copy of its folder; its wall time,
    kernel peak RSS, error if any, and ``cells``: after each code cell of each run, the kernel's RSS and peak RSS.
    ``executed``: a folder to write the notebook to with the outputs of its last run."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="nbmem-") as scratch:
        work = Path(scratch) / path.parent.name
        shutil.copytree(path.parent, work, ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints"))
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(work)}})
        start, error, peak, cells = time.perf_counter(), None, float("nan"), []
        with client.setup_kernel():
            pid = client.km.provisioner.process.pid
            try:
                for run in range(1, runs + 1):
                    for index, cell in enumerate(nb.cells):
                        client.execute_cell(cell, index)
                        if cell.cell_type == "code":
                            cells.append({"run": run, "cell": index, "rss_mb": round(memory_mb(pid, "VmRSS")),
                                          "peak_rss_mb": round(memory_mb(pid))})
            except CellExecutionError as e:
                error = str(e).strip().splitlines()[-1][:300]
            peak = memory_mb(pid)
    if executed is not None:
        executed.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, executed / path.name)
    return {"notebook": str(path), "seconds": round(time.perf_counter() - start, 1), "peak_rss_mb": round(peak),
            "runs": runs, "error": error, "cells": cells}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="notebooks or folders (searched recursively)")
    parser.add_argument("--limit-mb", type=float, default=2048, help="fail above this peak RSS (Binder: 2048)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    parser.add_argument("--runs", type=int, default=1, help="Run All this many times in the same kernel")
    parser.add_argument("--json", help="also write the rows (with RSS and peak RSS after every cell) to this file")
    parser.add_argument("--executed", type=Path, help="write each notebook, with its last run's outputs, to this folder")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks run at a time, each in its own kernel")
    args = parser.parse_args(argv)
    notebooks = sorted(p for arg in args.paths
                       for p in ([Path(arg)] if arg.endswith(".ipynb") else Path(arg).rglob("*.ipynb"))
                       if ".ipynb_checkpoints" not in p.parts)
    if not notebooks:
        parser.error(f"no notebooks found in {args.paths}")
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    mode = "smoke" if os.environ.get("FAIRNB_SMOKE") == "1" else "full"
    print(f"# kernel peak memory, {mode} mode, {args.runs} run(s) per kernel, {args.jobs} kernel(s) at a time, "
          f"{platform.node()} ({os.cpu_count()} cores), python {sys.executable}")
    print("| notebook | seconds | peak RSS (MiB) | result |\n|---|---:|---:|---|", flush=True)
    rows, failed = [], False
    run = functools.partial(run_notebook, timeout=args.timeout, runs=args.runs, executed=args.executed)
    with ProcessPoolExecutor(args.jobs) as pool:
        for path, row in zip(notebooks, pool.map(run, notebooks)):    # in order, each as soon as it and those before end
            over = row["peak_rss_mb"] > args.limit_mb
            failed |= bool(row["error"]) or over
            verdict = row["error"] or (f"OVER {args.limit_mb:.0f} MiB" if over else "ok")
            print(f"| {path} | {row['seconds']} | {row['peak_rss_mb']} | {verdict} |", flush=True)
            rows.append({**row, "mode": mode})
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    print(f"{sum(not r['error'] for r in rows)} passed, {sum(bool(r['error']) for r in rows)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
