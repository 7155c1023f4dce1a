"""How responsive the text inspector stays with many pairs (issue #13 item 8: 100,000 pairs).

A synthetic Result of ``--pairs`` distinct sentence pairs (the test suite's stand-in text domain, built with
array operations) is opened in a ``TextInspector``; the script times building it and each kind of
interaction the browser sends (a page, a filter by term, a free-text filter, a numeric filter, a sort, a
selection with its detail view), each repeated ``--repeats`` times (median reported). Results go to
``benchmarks/results/text_inspector.md``::

    .venv/bin/python benchmarks/text_inspector.py --pairs 100000
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_widgets_text_inspector import _big_result  # noqa: E402

from fairnb.widgets.text_inspector import TextInspector  # noqa: E402


def timed(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    result = _big_result(args.pairs)
    t = time.perf_counter()
    ins = TextInspector(result, page_size=25)
    build = time.perf_counter() - t
    state = iter(range(10**9))
    steps = {
        "next page": lambda: setattr(ins, "page", next(state) % 100),
        "filter by term (=muslim, =jewish)": lambda: setattr(ins, "filters",
                                                             {"term": ["=muslim", "=jewish"][next(state) % 2]}),
        "free-text filter (a word)": lambda: setattr(ins, "filters", {"text": ["lazy", "honest", "rude"][next(state) % 3]}),
        "numeric filter (p > x)": lambda: setattr(ins, "filters", {"p": f">{0.6 + 0.01 * (next(state) % 30):.2f}"}),
        "sort by p (toggle)": lambda: setattr(ins, "sort_descending", not ins.sort_descending) or
        setattr(ins, "sort_by", "p"),
        "select a pair (detail view)": lambda: setattr(ins, "selected_ids", [ins.visible_ids[next(state) % 25]]),
    }
    ins.filters = {}
    lines = ["# Text inspector: time per interaction", "",
             f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load average "
             f"{os.getloadavg()[0]:.2f}; Python {platform.python_version()}.", "",
             f"`python benchmarks/text_inspector.py --pairs {args.pairs} --repeats {args.repeats}`: a synthetic Result "
             f"of {len(result):,} distinct pairs (max_len 8), page size 25; median of {args.repeats} repeats.", "",
             "| step | seconds |", "|---|---|", f"| build the inspector (decode every text once) | {build:.3f} |"]
    for name, fn in steps.items():
        lines.append(f"| {name} | {timed(fn, args.repeats):.3f} |")
    lines += ["", "Filters are vectorised over all pairs (pandas string and numeric masks); the sorted order is cached "
              "until the query changes; a page decodes and highlights only its own 25 rows."]
    out = ROOT / "benchmarks" / "results" / "text_inspector.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
