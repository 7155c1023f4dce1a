"""The ``fairnb`` command line: ``demo | evaluate | search | bench | groups``.

Every command that produces numbers prints a one-line JSON summary as its last line.

Example
-------
>>> build_parser().parse_args(["search", "--dataset", "census", "--model", "m.h5", "--protected", "gender"]).method
'random'
"""
from __future__ import annotations

import argparse
import json
import sys


def _data_dir_arg(p):
    p.add_argument("--data-dir", default=None,
                   help="folder holding the benchmark data (default: $FAIRNB_DATA, else download)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fairnb", description="Fairness testing of neural networks.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("demo", help="search the embedded synthetic data and write an HTML report")
    p.add_argument("--out", default="fairnb-report", help="report folder (default: ./fairnb-report)")
    p.add_argument("--seconds", type=float, default=10.0, help="time budget per search")

    p = sub.add_parser("evaluate", help="accuracy of a model on a data set's published test split")
    p.add_argument("--dataset", required=True)
    p.add_argument("--model", required=True, help="model file (.h5 or .keras)")
    _data_dir_arg(p)

    p = sub.add_parser("search", help="search a model for individual discrimination")
    p.add_argument("--dataset", required=True)
    p.add_argument("--model", required=True, help="model file (.h5 or .keras)")
    p.add_argument("--protected", required=True, help="protected attribute(s), comma-separated")
    p.add_argument("--method", default="random")
    p.add_argument("--max-time", type=float, default=None, help="time budget in seconds")
    p.add_argument("--max-tried", type=int, default=None, help="budget of checked candidates")
    p.add_argument("--max-found", type=int, default=None, help="stop after this many unique IDIs")
    p.add_argument("--seeds", type=int, default=None, help="number of seeds from the training split")
    p.add_argument("--random-state", type=int, default=0)
    p.add_argument("--out", default=None, help="save the pairs (.csv or .parquet)")
    _data_dir_arg(p)

    p = sub.add_parser("bench", help="run a published benchmark (e.g. C-g) for several methods")
    p.add_argument("--benchmark", required=True, help="C-a, C-r, C-g, G-g, G-a, B-a, several comma-separated, or all")
    p.add_argument("--methods", default="adf,eidig,neuronfair,maft",
                   help="registered methods, comma-separated; parameters as name[key=value;key=value]")
    p.add_argument("--seeds", type=int, default=1000, help="global seeds")
    p.add_argument("--local", type=int, default=1000, help="local iterations per global IDI")
    p.add_argument("--max-time", type=float, default=None, help="time budget per method (seconds)")
    p.add_argument("--models-dir", default=None, help="folder with the published models (default: $FAIRNB_MODELS)")
    p.add_argument("--rounds", type=int, default=1, help="repetitions with other seeds (reports the mean)")
    p.add_argument("--random-state", type=int, default=0, help="seed of the first round")
    p.add_argument("--out", default=None, help="folder for the CSV and markdown reports")
    p.add_argument("--json", default=None, help="write the full results as JSON here")
    _data_dir_arg(p)

    p = sub.add_parser("groups", help="TestSGD: rank group-discrimination rules")
    p.add_argument("--dataset", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--sensitive", required=True, help="sensitive features, comma-separated")
    p.add_argument("--continuous", default="auto",
                   help="sensitive features given interval rules, comma-separated (default auto: > 10 values)")
    p.add_argument("--theta", type=float, default=0.05, help="support threshold of a rule set (default 0.05)")
    p.add_argument("--random-state", type=int, default=0)
    p.add_argument("--json", default=None, help="write all scored rule sets as JSON here")
    _data_dir_arg(p)
    return parser


def _cmd_demo(args) -> dict:
    from .demo import run_demo

    return run_demo(args.out, seconds=args.seconds)


def _cmd_evaluate(args) -> dict:
    from . import accuracy, datasets, models

    data = datasets.load(args.dataset, data_dir=args.data_dir)
    model = models.load_model(args.model)
    _, X_test, _, y_test = data.split()
    return {"dataset": data.name, "model": args.model, "test_rows": len(y_test),
            "accuracy": round(accuracy(model, X_test, y_test), 6)}


def _cmd_search(args) -> dict:
    from . import datasets, models
    from .search import get_method

    data = datasets.load(args.dataset, data_dir=args.data_dir).with_protected(args.protected)
    model = models.load_model(args.model)
    X_train = data.split()[0]
    search = get_method(args.method)(max_time=args.max_time, max_tried=args.max_tried, max_found=args.max_found,
                                     random_state=args.random_state, progress=sys.stderr.isatty())
    seeds = X_train if args.seeds is None else X_train[: args.seeds]
    result = search.run(model, data.domain, seeds=data.domain.clip(seeds))
    summary = {"dataset": data.name, **result.summary()}
    if args.out:
        summary["saved"] = str(result.save(args.out))
    return summary


def _cmd_bench(args) -> dict:
    from .bench import run_from_cli

    return run_from_cli(args)


def _cmd_groups(args) -> dict:
    from .group.cli import run_from_cli

    return run_from_cli(args)


COMMANDS = {"demo": _cmd_demo, "evaluate": _cmd_evaluate, "search": _cmd_search, "bench": _cmd_bench,
            "groups": _cmd_groups}


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        summary = COMMANDS[args.command](args)
    except (ValueError, FileNotFoundError, TypeError) as e:
        print(f"fairnb {args.command}: error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
