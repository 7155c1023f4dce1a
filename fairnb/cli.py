"""The ``fairnb`` command line: ``demo | evaluate | search | bench | groups | check | card``.

Every command that produces numbers prints a one-line JSON summary as its last line. ``check`` re-checks a
model on a saved suite (``search --suite``) and exits with status 1 when it fails the fairness gate
(``fairnb.testing.Gate``). ``evaluate``,
``search`` and ``groups`` read a benchmark data set (``--dataset``) or your own table (``--csv FILE
--label COLUMN``, encoded by ``fairnb.datasets.from_csv``). Output paths, benchmark names and method
parameters are checked before any work: a mistake exits with status 2 and one line.

Example
-------
>>> build_parser().parse_args(["search", "--dataset", "census", "--model", "m.h5", "--protected", "gender"]).method
'random'
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path


def _data_dir_arg(p):
    p.add_argument("--data-dir", default=None,
                   help="folder holding the benchmark data (default: $FAIRNB_DATA, else download)")


def _data_args(p, required: bool = True):
    """``--dataset NAME`` or ``--csv FILE`` with the options that encode your own table."""
    source = p.add_mutually_exclusive_group(required=required)
    source.add_argument("--dataset", help="a benchmark data set (census, german, bank, ...)")
    source.add_argument("--csv", help="your own table: a CSV file with a header row (needs --label)")
    own = p.add_argument_group("your own table (--csv); see fairnb.datasets.from_frame")
    own.add_argument("--names", default=None,
                     help="new names for the CSV's columns in order, comma-separated (e.g. for a header 0,1,2,...)")
    own.add_argument("--label", help="the decision column (two values)")
    own.add_argument("--positive", help="the favourable label value (default: the larger one)")
    own.add_argument("--categorical", default="", help="numeric columns to treat as categories, comma-separated")
    own.add_argument("--step", default="", help="columns with fractional values on a grid, e.g. income=0.5,rate=0.01")
    own.add_argument("--bins", default="", help="columns with fractional values cut into n equal bins, e.g. income=5")
    split = p.add_argument_group("the split (--csv; also --dataset, whose published split is the default)")
    split.add_argument("--test-size", type=float, default=None, help="share of rows in the test split (0.2)")
    split.add_argument("--validation-size", type=float, default=None,
                       help="share of the training rows held out for validation; seeds come from the rest (0)")
    _data_dir_arg(p)


def _model_arg(p):
    p.add_argument("--model", required=True,
                   help="model file: Keras (.h5, .keras) or a pickled scikit-learn classifier (.joblib, .pkl)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fairnb", description="Fairness testing of neural networks.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("demo", help="search the embedded synthetic data and write an HTML report")
    p.add_argument("--out", default="fairnb-report", help="report folder (default: ./fairnb-report)")
    p.add_argument("--seconds", type=float, default=10.0, help="time budget per search")

    p = sub.add_parser("evaluate", help="accuracy of a model on a data set's test split")
    _data_args(p)
    _model_arg(p)

    p = sub.add_parser("search", help="search a model for individual discrimination")
    _data_args(p)
    _model_arg(p)
    p.add_argument("--protected", required=True, help="protected attribute(s), comma-separated")
    p.add_argument("--method", default="random", help="a registered method, parameters as name[key=value;key=value]")
    p.add_argument("--max-time", type=float, default=None, help="time budget in seconds")
    p.add_argument("--max-tried", type=int, default=None, help="budget of checked candidates")
    p.add_argument("--max-found", type=int, default=None, help="stop after this many unique IDIs")
    p.add_argument("--seeds", type=int, default=None,
                   help="the method's n_seeds (unless --method sets it): how many seeds it picks from the whole "
                        "training split, as search.run(model, domain, seeds=X_train) does in Python")
    p.add_argument("--random-state", type=int, default=0)
    p.add_argument("--out", default=None, help="save the pairs (.csv or .parquet)")
    p.add_argument("--suite", default=None,
                   help="save the pairs as a regression suite (.parquet or .csv) for `fairnb check`")
    _control_arg(p)

    p = sub.add_parser("bench", help="run a published benchmark (e.g. C-g), or methods x your models x protected "
                                     "attributes, for several methods")
    p.add_argument("--benchmark", help="C-a, C-r, C-g, G-g, G-a, B-a, several comma-separated, or all")
    grid = p.add_argument_group("your models instead of a published benchmark (fairnb.harness): --model, the data "
                                "(--dataset or --csv), --protected; --rounds repeats each run")
    grid.add_argument("--model", action="append", default=None,
                      help="a model file (Keras, scikit-learn pickle, ONNX); repeat the option for several, "
                           "optionally labelled as NAME=PATH")
    grid.add_argument("--protected", default=None, help="protected attributes, comma-separated: each searched on its own")
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
    _control_arg(p)
    _data_args(p, required=False)

    p = sub.add_parser("groups", help="TestSGD: rank group-discrimination rules")
    _data_args(p)
    _model_arg(p)
    p.add_argument("--sensitive", required=True, help="sensitive features, comma-separated")
    p.add_argument("--continuous", default="auto",
                   help="sensitive features given interval rules, comma-separated (default auto: > 10 values)")
    p.add_argument("--theta", type=float, default=0.05, help="support threshold of a rule set (default 0.05)")
    p.add_argument("--random-state", type=int, default=0)
    p.add_argument("--json", default=None, help="write all scored rule sets as JSON here")

    p = sub.add_parser("check", help="re-check a model on a saved suite; exit status 1 when it fails the gate")
    p.add_argument("--suite", required=True, help="a suite saved by `fairnb search --suite` or result.save_suite")
    _model_arg(p)
    p.add_argument("--natural-limit", type=float, default=0.05,
                   help="fail when the natural rate's 95 %% interval lies above this share (default 0.05; "
                        "-1 switches the rule off)")
    p.add_argument("--max-still", type=int, default=None,
                   help="fail when more than this many of the suite's pairs still discriminate (default: no limit)")
    p.add_argument("--show", type=int, default=5, help="the worst pairs to print when the gate fails (default 5)")

    p = sub.add_parser("card", help="the fairness-testing section of a model card (Markdown + JSON) from saved results")
    p.add_argument("results", nargs="+", help="saved results (.parquet or .csv, from `fairnb search --out`)")
    p.add_argument("--out", default="model-card", help="folder for MODEL_CARD.md and fairness.json (./model-card)")
    p.add_argument("--title", default=None, help="the model's name in the card")
    return parser


def _control_arg(p):
    p.add_argument("--control", default=None,
                   help="a control model file (a model without the bias, e.g. trained without the protected column):"
                        " its natural rate on the same seeds is reported beside the model's")


# ---------------------------------------------------------------------------------------------- checks


def check_output_file(path, option: str, suffixes: tuple[str, ...]) -> None:
    """Refuse, before any work, an output file that could not be written: wrong extension, a folder in its
    place, a missing or unwritable folder (``ValueError`` naming the option)."""
    if path is None:
        return
    path = Path(path)
    if path.suffix.lower() not in suffixes:
        raise ValueError(f"{option} {str(path)!r}: unknown extension {path.suffix!r}; use {' or '.join(suffixes)}")
    if path.is_dir():
        raise ValueError(f"{option} {str(path)!r} is a folder; name a file inside it, e.g. {str(path / ('out' + suffixes[0]))!r}")
    folder = path.parent
    if not folder.is_dir():
        raise ValueError(f"{option} {str(path)!r}: folder {str(folder)!r} does not exist; create it first")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ValueError(f"{option} {str(path)!r} is not writable; choose another place")


def check_output_folder(path, option: str) -> None:
    """Refuse, before any work, an output folder that is a file or lies under a file or an unwritable folder."""
    if path is None:
        return
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{option} {str(path)!r} is a file, not a folder; name a folder")
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise ValueError(f"{option} {str(path)!r}: {str(existing)!r} is a file, not a folder")
    if not os.access(existing, os.W_OK):
        raise ValueError(f"{option} {str(path)!r}: folder {str(existing)!r} is not writable; choose another place")


def _pairs(text: str, option: str, convert) -> dict:
    """``"a=1,b=2"`` -> ``{"a": convert("1"), ...}``."""
    out = {}
    for item in filter(None, (t.strip() for t in (text or "").split(","))):
        key, eq, value = (t.strip() for t in item.partition("="))
        try:
            number = convert(value)
        except ValueError:
            number = None
        if not eq or not key or number is None:
            raise ValueError(f"{option}: expected column=number, got {item!r}")
        out[key] = number
    return out


def _load_data(args, protected=()):
    """The data set the arguments name (``--dataset`` or ``--csv``) with ``protected`` attributes."""
    from . import datasets

    if args.csv is None:
        own = [f"--{k}" for k in ("names", "label", "positive", "categorical", "step", "bins") if getattr(args, k)]
        if own:
            raise ValueError(f"{', '.join(own)} describe your own table: use them with --csv, not --dataset")
        data = datasets.load(args.dataset, data_dir=args.data_dir).with_split(
            test_size=args.test_size, validation_size=args.validation_size)
        return data.with_protected(protected) if protected else data
    if not args.label:
        raise ValueError("--csv needs --label (the decision column)")
    return datasets.from_csv(args.csv, args.label, protected, names=args.names, positive=args.positive,
                             categorical=args.categorical, continuous=_pairs(args.step, "--step", float),
                             bins=_pairs(args.bins, "--bins", int),
                             test_size=0.2 if args.test_size is None else args.test_size,
                             validation_size=args.validation_size or 0.0)


def _make_search(spec: str, *, n_seeds: int | None = None, **params):
    """The search a ``--method`` spec (``name[key=value;...]``) names, with ``params`` added (and ``n_seeds``
    for a method that has it, unless the spec sets it)."""
    from .bench import parse_methods
    from .search.registry import method_record

    specs = parse_methods(spec)
    if len(specs) != 1:
        raise ValueError(f"--method names {len(specs)} methods ({spec!r}); give one, e.g. eidig[decay=0.3]")
    _, name, extra = specs[0]
    record = method_record(name)
    cls = record.load()
    if n_seeds is not None:
        if not record.takes_seeds:
            raise ValueError(f"--seeds sets how many seeds a method starts from, and {name!r} draws its own inputs "
                             "(it takes no seeds); leave --seeds out")
        if "n_seeds" not in cls._get_param_names():
            raise ValueError(f"--seeds sets a method's n_seeds, and {name!r} has none; leave --seeds out")
        params["n_seeds"] = n_seeds
    return cls(**{**params, **extra})


# ---------------------------------------------------------------------------------------------- commands


def _cmd_demo(args) -> dict:
    from .demo import brief, run_demo

    check_output_folder(args.out, "--out")
    return brief(run_demo(args.out, seconds=args.seconds))


def _cmd_evaluate(args) -> dict:
    from . import accuracy, models

    data = _load_data(args)
    model = models.load_model(args.model)
    _, X_test, _, y_test = data.split()
    return {"dataset": data.name, "model": args.model, "test_rows": len(y_test),
            "accuracy": round(accuracy(model, X_test, y_test), 6)}


def _cmd_search(args) -> dict:
    from . import models
    from .search.registry import seeds_for

    check_output_file(args.out, "--out", (".csv", ".parquet"))
    check_output_file(args.suite, "--suite", (".parquet", ".csv"))
    if not args.protected.replace(",", "").strip():
        raise ValueError("--protected names no attribute; give one or more, comma-separated (e.g. --protected sex)")
    control = _control(args)
    search = _make_search(args.method, n_seeds=args.seeds, max_time=args.max_time, max_tried=args.max_tried,
                          max_found=args.max_found, random_state=args.random_state, progress=sys.stderr.isatty(),
                          **({} if control is None else {"control": control}))
    data = _load_data(args, args.protected)
    model = models.load_model(args.model)
    result = search.run(model, data.domain, seeds=seeds_for(search, data.domain.clip(data.seed_inputs())))
    summary = {"dataset": data.name, **result.summary()}
    if args.out:
        summary["saved"] = str(result.save(args.out))
    if args.suite:
        summary["suite"] = str(result.save_suite(args.suite))
    return summary


def _control(args):
    """The model ``--control`` names, loaded (``None`` without it)."""
    from . import models

    if args.control is None:
        return None
    if not Path(args.control).exists():
        raise ValueError(f"--control {args.control!r}: no such model file")
    return models.load_model(args.control)


def _cmd_bench(args) -> dict:
    from .bench import run_from_cli

    check_output_folder(args.out, "--out")
    check_output_file(args.json, "--json", (".json",))
    if (args.benchmark is None) == (args.model is None):
        raise ValueError("give either --benchmark (a published benchmark) or --model with the data and --protected")
    args.control = _control(args)
    if args.benchmark is not None:
        return run_from_cli(args)
    from .harness import run_from_cli as run_grid_from_cli

    if not (args.protected or "").replace(",", "").strip():
        raise ValueError("--model needs --protected: the attributes to search, comma-separated")
    if args.dataset is None and args.csv is None:
        raise ValueError("--model needs the data its models were trained on: --dataset NAME or --csv FILE")
    return run_grid_from_cli(args, _load_data(args))


def _cmd_groups(args) -> dict:
    from .group.cli import run_from_cli

    check_output_file(args.json, "--json", (".json",))
    return run_from_cli(args, _load_data(args))


def _cmd_check(args) -> dict:
    from .suites import check
    from .testing import Gate

    if not Path(args.suite).exists():
        raise ValueError(f"--suite {args.suite!r}: no such file")
    gate = Gate(None if args.natural_limit < 0 else args.natural_limit, args.max_still)
    checked = check(args.model, args.suite)
    failures = gate.failures(checked)
    if failures:
        print(gate.message(checked, args.show), file=sys.stderr)
    return {**checked.summary(), "gate": {"natural_limit": gate.natural_limit, "max_still": gate.max_still},
            "passed": not failures, "failures": failures}


def _cmd_card(args) -> dict:
    from .model_card import write_model_card
    from .results import Result

    check_output_folder(args.out, "--out")
    results = [Result.load(path) for path in args.results]
    paths = write_model_card(results, args.out, title=args.title)
    return {"markdown": str(paths[0]), "json": str(paths[1]), "results": len(results)}


COMMANDS = {"demo": _cmd_demo, "evaluate": _cmd_evaluate, "search": _cmd_search, "bench": _cmd_bench,
            "groups": _cmd_groups, "check": _cmd_check, "card": _cmd_card}


def main(argv=None) -> int:
    """Run the command ``argv`` names; the exit status: 0 done (``check``: passed), 1 ``check`` failed the gate,
    2 a refused argument or file."""
    args = build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _warning_printer(args.command)
        try:
            summary = COMMANDS[args.command](args)
        except (ValueError, OSError, TypeError) as e:
            print(f"fairnb {args.command}: error: {e}", file=sys.stderr)
            return 2
    print(json.dumps(summary))
    return 1 if summary.get("passed") is False else 0


def _warning_printer(command: str):
    """A ``warnings.showwarning`` that prints a warning as the CLI's errors are printed: its message alone
    (no source line: at the command line the line is fairnb's, not the user's).

    >>> _warning_printer("search")("n_seeds=1000 but only 178 seed inputs were given", UserWarning, "x.py", 3,
    ...                            file=sys.stdout)
    fairnb search: warning: n_seeds=1000 but only 178 seed inputs were given
    """
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"fairnb {command}: warning: {message}", file=sys.stderr if file is None else file)
    return show


if __name__ == "__main__":
    sys.exit(main())
