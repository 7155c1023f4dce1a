"""Every claim a tutorial checks on its own run (``fairnb.claims.claim``), over several runs: the claims it
contradicts.

Each tutorial runs ``--runs`` times (default 2), each time in a fresh kernel (``notebook_memory.run_notebook``), with
``FAIRNB_CLAIMS`` naming a file that collects the run's claim checks. Smoke or full mode is whatever ``FAIRNB_SMOKE``
says (the benchmark's target: full mode, ``FAIRNB_SMOKE`` unset). The rows go to ``--out`` + ``.md`` and ``.json``,
merged with the rows already there for the same mode (a tutorial's run replaces the earlier row of that run), so
tutorials can be run one at a time; ``--fresh`` starts over.

    nice -n 10 python benchmarks/tutorial_claims.py                    # every tutorial, two runs each
    nice -n 10 python benchmarks/tutorial_claims.py 02 04 --runs 1     # some tutorials, one run
    nice -n 10 python benchmarks/tutorial_claims.py 02 --first 2 --runs 1   # 02's second run, beside its first

``--executed FOLDER`` instead checks notebooks already executed with their outputs kept (``make test-notebooks``'s
smoke runs, ``nbmake --overwrite``): every tutorial must print at least one claim check. No run, no kernel.

Exit status 1 when a claim is contradicted, a notebook fails, or a tutorial checks no claim.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = sorted(p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))   # each checks a claim
VERDICTS = ("✓ This run shows it: ", "✗ This run does not show it: ", "? Asked of this run: ")   # Claim's verdicts


def run_notebook(path: Path, timeout: int) -> dict:
    """``benchmarks/notebook_memory.run_notebook``: the kernel runner shared with the memory benchmark, loaded from
    its file. Not through ``sys.path``: a test imports this module, and ``benchmarks/`` on a process's path makes
    ``import distributed`` find ``benchmarks/distributed.py`` instead of Dask in every process it spawns."""
    spec = importlib.util.spec_from_file_location("notebook_memory", Path(__file__).with_name("notebook_memory.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run_notebook(path, timeout=timeout)


def tutorial_path(name: str, folder: Path = ROOT / "notebooks") -> Path:
    """The tutorial notebook ``name`` ("02", or a path)."""
    if name.endswith(".ipynb"):
        return Path(name)
    found = sorted(folder.glob(f"{name}_*.ipynb"))
    if len(found) != 1:
        raise SystemExit(f"tutorial_claims: no single tutorial {name!r} in {folder} (found {[p.name for p in found]})")
    return found[0]


def printed_claims(notebook: Path) -> list[str]:
    """The claim verdict lines an executed notebook's outputs hold, in order."""
    import nbformat

    lines = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        for output in cell.get("outputs", []):
            text = output.get("text", "") if output.get("output_type") == "stream" else ""
            lines += [line for line in text.splitlines() if line.startswith(VERDICTS)]
    return lines


def check_executed(folder: Path, tutorials=TUTORIALS) -> list[str]:
    """The problems of the executed tutorials in ``folder``: one missing, or one that printed no claim check."""
    problems = []
    for name in tutorials:
        found = sorted(folder.glob(f"{name}_*.ipynb"))
        if not found:
            problems.append(f"tutorial {name}: no executed notebook {name}_*.ipynb in {folder}")
        elif not printed_claims(found[0]):
            problems.append(f"{found[0].name}: no claim checked (no line starting with {VERDICTS[0].strip()!r} or "
                            f"{VERDICTS[1].strip()!r} in its outputs): give its text's claims a fairnb.claims.claim cell")
    return problems


def run_claims(path: Path, run: int, timeout: int) -> dict:
    """Run ``path`` once in a fresh kernel with ``FAIRNB_CLAIMS`` set; its row, with every claim it checked."""
    with tempfile.TemporaryDirectory(prefix="claims-") as scratch:
        log = Path(scratch) / "claims.jsonl"
        before = os.environ.get("FAIRNB_CLAIMS")
        os.environ["FAIRNB_CLAIMS"] = str(log)              # the kernel inherits this process's environment
        commit = _commit()                                  # the notebook is read now: the commit it ran at
        try:
            row = run_notebook(path, timeout=timeout)
        finally:
            if before is None:
                del os.environ["FAIRNB_CLAIMS"]
            else:
                os.environ["FAIRNB_CLAIMS"] = before
        claims = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return {"tutorial": path.name, "run": run, "seconds": row["seconds"], "peak_rss_mb": row["peak_rss_mb"],
            "error": row["error"], "claims": [{k: c.get(k, False) for k in ("text", "holds", "evidence", "asked")}
                                              for c in claims],
            "contradicted": sum(not c["holds"] and not c.get("asked") for c in claims), "load": [round(x, 2) for x in os.getloadavg()],
            "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit}


def _commit() -> str:
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "notebooks", "fairnb"],
                               capture_output=True, text=True).stdout.strip()
        return head + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def markdown(rows: list[dict], mode: str) -> str:
    """The results as a Markdown page: a table of the runs, the missing runs (of every tutorial, at least two runs
    each: the target), then every claim of every run."""
    runs = max([2] + [r["run"] for r in rows])
    done = {(r["tutorial"][:2], r["run"]) for r in rows}
    missing = [f"{t} run {k}" for t in TUTORIALS for k in range(1, runs + 1) if (t, k) not in done]
    contradicted = sum(r["contradicted"] for r in rows)
    out = [f"# Tutorial claims, {mode} mode",
           "",
           "Every claim a tutorial's text makes about its own run is checked there by a `fairnb.claims.claim` cell, "
           "and every question it asks its run (either answer a finding, the text reading right either way) is "
           "answered by a `fairnb.claims.ask` cell; this page lists every check and answer of every run (`benchmarks/tutorial_claims.py`, each run in a fresh kernel). "
           f"Machine: {platform.node()}, {os.cpu_count()} cores, shared; `load` is the 1/5/15-minute load average "
           "when the run ended (numbers of seconds measured under load are indicative only).",
           "",
           f"**{contradicted} claim(s) contradicted** in {len(rows)} run(s); "
           f"{sum(not c.get('asked') for r in rows for c in r['claims'])} claim checks and "
           f"{sum(bool(c.get('asked')) for r in rows for c in r['claims'])} questions answered. Missing runs: {', '.join(missing) or 'none'}.",
           "",
           "| tutorial | run | claims | contradicted | seconds | peak RSS (MiB) | load | error | commit | finished |",
           "|---|---:|---:|---:|---:|---:|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['tutorial']} | {r['run']} | {len(r['claims'])} | {r['contradicted']} | {r['seconds']} | "
                   f"{r['peak_rss_mb']} | {' / '.join(map(str, r['load']))} | {r['error'] or ''} | {r['commit']} | "
                   f"{r['finished']} |")
    for r in rows:
        out += ["", f"## {r['tutorial']}, run {r['run']}", "", "| claim, or question asked | holds | evidence |",
                "|---|---|---|"]
        out += [f"| {'(asked) ' if c.get('asked') else ''}{c['text']} | {_verdict(c)} | {c['evidence']} |"
                .replace("\n", " ") for c in r["claims"]] or ["| (no claim checked) | | |"]
    return "\n".join(out) + "\n"


def _verdict(c: dict) -> str:
    """A claim's verdict ("yes" or "**NO**", a contradiction) or a question's answer ("yes" or "no": none)."""
    if c.get("asked"):
        return "yes" if c["holds"] else "no"
    return "yes" if c["holds"] else "**NO**"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tutorials", nargs="*", default=TUTORIALS, help="tutorial numbers (02) or notebook paths")
    parser.add_argument("--runs", type=int, default=2, help="runs of each tutorial, each in a fresh kernel")
    parser.add_argument("--first", type=int, default=1, help="number of the first run (--first 2 --runs 1: a second "
                        "run, kept beside an earlier first one)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per cell")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "tutorial_claims",
                        help="results, without the suffix (.md and .json are written)")
    parser.add_argument("--fresh", action="store_true", help="drop the rows already in --out's JSON")
    parser.add_argument("--executed", type=Path, help="only check the executed notebooks in this folder (CI)")
    args = parser.parse_args(argv)
    if args.executed is not None:
        problems = check_executed(args.executed)
        print("\n".join(problems) or f"every tutorial {TUTORIALS[0]}-{TUTORIALS[-1]} checked at least one claim")
        return 1 if problems else 0
    if args.runs < 1 or args.first < 1:
        parser.error(f"--runs and --first must be at least 1, got {args.runs} and {args.first}")
    paths = [tutorial_path(t) for t in args.tutorials]
    mode = "smoke" if os.environ.get("FAIRNB_SMOKE") == "1" else "full"
    saved = args.out.with_suffix(".json")
    old = json.loads(saved.read_text()) if saved.exists() and not args.fresh else {}
    rows = old.get("rows", []) if old.get("mode") == mode else []
    failed = False
    for path in paths:
        for run in range(args.first, args.first + args.runs):
            row = run_claims(path, run, args.timeout)
            failed |= bool(row["error"]) or row["contradicted"] > 0 or not row["claims"]
            print(f"{path.name} run {run}: {len(row['claims'])} claims, {row['contradicted']} contradicted, "
                  f"{row['seconds']} s{', ERROR ' + row['error'] if row['error'] else ''}", flush=True)
            for c in row["claims"]:
                print(f"    {_verdict(c):<9} {c['text']} ({c['evidence']})", flush=True)
            rows = sorted([r for r in rows if (r["tutorial"], r["run"]) != (row["tutorial"], run)] + [row],
                          key=lambda r: (r["tutorial"], r["run"]))
            saved.parent.mkdir(parents=True, exist_ok=True)    # after every run: a long benchmark keeps what it has
            saved.write_text(json.dumps({"mode": mode, "rows": rows}, indent=1, ensure_ascii=False) + "\n")
            args.out.with_suffix(".md").write_text(markdown(rows, mode))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
