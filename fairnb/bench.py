"""Benchmarks of the EIDIG/MAFT papers on the published models, for any registered search method.

A benchmark is a data set, one protected attribute and the published Keras model trained on it
(``adult_model.h5``, ``german_model.h5``, ``bank_model.h5``, read from ``models_dir`` or
``$FAIRNB_MODELS`` and refused when their SHA-256 is not the published file's):

====  ========  ==========================  ===============
name  data      protected (0-based column)  model
====  ========  ==========================  ===============
C-a   census    age (0)                     adult_model.h5
C-r   census    race (6)                    adult_model.h5
C-g   census    gender (7)                  adult_model.h5
G-g   german    PersonStatusSex (6)         german_model.h5
G-a   german    age (9)                     german_model.h5
B-a   bank      age (0)                     bank_model.h5
====  ========  ==========================  ===============

Protocol (MAFT's, ICSE 2024): seeds are drawn from the published training split (census and bank:
the 64 % left after the test and validation rows; german: 60 %) by K-Means(4) with a random member
per cluster, round robin (the whole training split when it has fewer rows), and the
*same* seed array goes to every method of a round. Seed selection is not timed. Methods' size
parameters come from ``seeds`` and ``local`` where they have them (``n_seeds``,
``n_local``; random sampling gets ``seeds * local`` samples, the same maximum number of candidates);
a method class can instead define ``bench_params(seeds, local, max_time) -> dict``. ``max_time`` is a
per-method wall-clock budget ("IDIs found in N seconds"); the size parameters still apply. A method
may carry its own parameters: ``neuronfair[local=reference]``, ``eidig[update_interval=inf]``.

Per method and round: unique IDIs under both conventions, distinct generated inputs (``generated``:
from the method's extras, else the candidates tried), success rate (discriminatory / tried), GSR
(unique IDIs / generated), IDIs per second, time to the 1,000th IDI. ``write_reports`` writes them
as CSV and as a markdown table next to the papers' numbers (``REFERENCE``).

Example
-------
>>> sorted(BENCHMARKS)
['B-a', 'C-a', 'C-g', 'C-r', 'G-a', 'G-g']
>>> method_params(get_method("eidig"), seeds=100, local=50, max_time=None)["n_local"]
50
"""
from __future__ import annotations

import inspect
import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .search import get_method
from .search.registry import seeds_for
from .search.engine.seeds import cluster_seeds
from .store import models_folder


@dataclass(frozen=True)
class Benchmark:
    name: str
    dataset: str
    protected: int
    model: str
    validation: float = 0.0     # share of the training split the published scripts keep for validation


#: Census and bank: 80/20 train/test, then 20 % of the training rows for validation, both with
#: random_state 42; the seeds come from the remaining 64 % (digest maft.md 3.3: X_train = 28,934 for bank).
_VALIDATION = 0.2


BENCHMARKS = {b.name: b for b in (
    Benchmark("C-a", "census", 0, "adult_model.h5", _VALIDATION),
    Benchmark("C-r", "census", 6, "adult_model.h5", _VALIDATION),
    Benchmark("C-g", "census", 7, "adult_model.h5", _VALIDATION),
    Benchmark("G-g", "german", 6, "german_model.h5"),
    Benchmark("G-a", "german", 9, "german_model.h5"),
    Benchmark("B-a", "bank", 0, "bank_model.h5", _VALIDATION),
)}

# The papers' numbers for the same benchmark, model and budget: (benchmark, method, seeds, local) ->
# (unique IDIs, IDIs per second, seconds, source). MAFT's artifact (pre-revision run, Apple M1 Pro, one
# round, digest maft.md 4.7) and the reference code measured on a machine like ours (issue 3).
_MAFT_ARTIFACT = "MAFT artifact 1000x1000, M1 Pro, 1 round (maft.md 4.7)"
_REFERENCE_RUN = "reference code, 100x100, measured on a 2-core machine (issue 3)"
ADF_ARTIFACT = "adf[acceptance=reset]"   # the artifact's ADF resets a failed walker to its seed (maft.md 2.8)
REFERENCE = {
    ("C-a", ADF_ARTIFACT, 1000, 1000): (200189, 18.76, 10669, _MAFT_ARTIFACT),
    ("C-a", "eidig", 1000, 1000): (241873, 45.29, 5340, _MAFT_ARTIFACT),
    ("C-a", "maft", 1000, 1000): (239508, 45.17, 5302, _MAFT_ARTIFACT),
    ("C-r", ADF_ARTIFACT, 1000, 1000): (49724, 8.42, 5905, _MAFT_ARTIFACT),
    ("C-r", "eidig", 1000, 1000): (64453, 22.86, 2820, _MAFT_ARTIFACT),
    ("C-r", "maft", 1000, 1000): (65753, 22.64, 2904, _MAFT_ARTIFACT),
    ("C-g", ADF_ARTIFACT, 1000, 1000): (26866, 8.31, 3234, _MAFT_ARTIFACT),
    ("C-g", "eidig", 1000, 1000): (40512, 26.57, 1525, _MAFT_ARTIFACT),
    ("C-g", "maft", 1000, 1000): (39769, 26.42, 1505, _MAFT_ARTIFACT),
    ("G-g", ADF_ARTIFACT, 1000, 1000): (29944, 7.15, 4186, _MAFT_ARTIFACT),
    ("G-g", "eidig", 1000, 1000): (27733, 17.30, 1603, _MAFT_ARTIFACT),
    ("G-g", "maft", 1000, 1000): (27035, 16.53, 1636, _MAFT_ARTIFACT),
    ("G-a", ADF_ARTIFACT, 1000, 1000): (198877, 18.87, 10542, _MAFT_ARTIFACT),
    ("G-a", "eidig", 1000, 1000): (199492, 40.40, 4938, _MAFT_ARTIFACT),
    ("G-a", "maft", 1000, 1000): (198625, 40.24, 4936, _MAFT_ARTIFACT),
    ("B-a", ADF_ARTIFACT, 1000, 1000): (246859, 15.47, 15962, _MAFT_ARTIFACT),
    ("B-a", "eidig", 1000, 1000): (266592, 33.00, 8079, _MAFT_ARTIFACT),
    ("B-a", "maft", 1000, 1000): (266759, 32.62, 8179, _MAFT_ARTIFACT),
    ("C-g", "eidig", 100, 100): (1043, 11.3, 92, _REFERENCE_RUN),
    ("C-g", "maft", 100, 100): (1298, 12.0, 108, _REFERENCE_RUN),
}
# The settings the artifact's 1000x1000 run actually had: its driver passed the perturbation size 1
# positionally into ``decay`` and left MAFT's ``h`` at the function default 1e-4 (benchmarks/gradient_methods.md).
EIDIG_ARTIFACT = "eidig[decay=1.0]"
MAFT_ARTIFACT = "maft[decay=1.0;h=0.0001]"
REFERENCE.update({(b, {"eidig": EIDIG_ARTIFACT, "maft": MAFT_ARTIFACT}[m], s, l): v
                  for (b, m, s, l), v in list(REFERENCE.items()) if m in ("eidig", "maft") and s == 1000})

COLUMNS = ["benchmark", "method", "seeds", "local", "round", "status", "unique_idis", "unique_idis_adf",
           "generated", "tried", "success_rate", "gsr", "global_idis", "elapsed_s", "idis_per_s", "time_to_1000_s",
           "natural_rate", "control_natural_rate", "material_pairs"]


def _params_of(cls) -> list[str]:
    return cls._get_param_names() if hasattr(cls, "_get_param_names") else list(inspect.signature(cls).parameters)


def method_params(cls, *, seeds: int, local: int, max_time: float | None) -> dict:
    """The constructor arguments that give ``cls`` the benchmark's budget."""
    if hasattr(cls, "bench_params"):
        return dict(cls.bench_params(seeds=seeds, local=local, max_time=max_time))
    names = _params_of(cls)
    params = {"max_time": max_time} if max_time is not None else {}
    if "n_seeds" in names:
        params["n_seeds"] = seeds
    if "n_local" in names:
        params["n_local"] = local
    if "seed_selection" in names:
        params["seed_selection"] = "as_given"      # the round's seeds, already chosen
    if "n_samples" in names and "n_seeds" not in names:
        params["n_samples"] = None if max_time is not None else seeds * local
    return params


def parse_methods(spec: str) -> list[tuple[str, str, dict]]:
    """``"adf,neuronfair[local=reference],eidig[update_interval=inf;decay=0.3]"`` ->
    ``[(label, registered name, parameters), ...]``; values are read as JSON where they parse, else strings.

    >>> parse_methods("adf, neuronfair[local=reference]")
    [('adf', 'adf', {}), ('neuronfair[local=reference]', 'neuronfair', {'local': 'reference'})]
    """
    out, depth, start = [], 0, 0
    for i, ch in enumerate(spec + ","):
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            item = spec[start:i].strip()
            start = i + 1
            if not item:
                continue
            name, _, rest = item.partition("[")
            if rest and not rest.endswith("]"):
                raise ValueError(f"bad method spec {item!r}: expected name[key=value;...]")
            params = {}
            for pair in filter(None, (p.strip() for p in rest[:-1].split(";"))):
                key, eq, value = pair.partition("=")
                if not eq:
                    raise ValueError(f"bad parameter {pair!r} in {item!r}: expected key=value")
                params[key.strip()] = _value(value.strip())
            out.append((item, name.strip(), params))
    if depth:
        raise ValueError(f"unbalanced brackets in {spec!r}")
    return out


def _value(text: str):
    if text in ("inf", "-inf"):
        return float(text)
    try:
        return json.loads(text)
    except ValueError:
        return text


def load_benchmark(name: str, *, data_dir=None, models_dir=None):
    """``(benchmark, data, model, X_train)`` with the data's protected attribute set and the model loaded;
    ``X_train`` is the published training split the seeds are drawn from (without the validation rows)."""
    from . import datasets
    from .models.published import load_published

    try:
        bench = BENCHMARKS[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}; choose from {sorted(BENCHMARKS)}") from None
    models_dir = models_dir or models_folder()
    if not models_dir:
        raise ValueError("the published models are needed: pass --models-dir (models_dir=...) or set FAIRNB_MODELS")
    path = Path(models_dir) / bench.model
    if not path.exists():
        raise FileNotFoundError(f"no model {bench.model} in {models_dir}")
    data = datasets.load(bench.dataset, data_dir=data_dir).with_protected([bench.protected])
    X_train = data.with_split(validation_size=bench.validation).seed_inputs()
    return bench, data, load_published(path), X_train


def _row(bench, method, seeds, local, round_, result) -> dict:
    s = result.summary()
    generated = result.extras.get("generated", result.tried)
    return {"benchmark": bench, "method": method, "seeds": seeds, "local": local, "round": round_,
            "status": result.status, "unique_idis": s["unique_idis_eidig"], "unique_idis_adf": s["unique_idis_adf"],
            "generated": int(generated), "tried": result.tried, "success_rate": s["success_rate"],
            "gsr": round(result.count() / generated, 6) if generated else 0.0,
            "global_idis": result.extras.get("global_idis"), "elapsed_s": s["elapsed_s"],
            "idis_per_s": s["idis_per_s"], "time_to_1000_s": s["time_to_1000_s"], "natural_rate": s.get("natural_rate"),
            "control_natural_rate": s.get("control_natural_rate"), "material_pairs": s["material_pairs"]}


def run_benchmark(name: str, methods, *, seeds: int = 1000, local: int = 1000, max_time: float | None = None,
                  rounds: int = 1, random_state: int = 0, data_dir=None, models_dir=None, control=None,
                  log=None) -> pd.DataFrame:
    """Run ``methods`` (registered names, or a ``parse_methods`` string) on benchmark ``name``; one row per
    method and round. ``control``: a model without the bias, whose natural rate on each round's seeds the rows
    give beside the model's (``control_natural_rate``)."""
    if seeds < 1 or local < 0 or rounds < 1:
        raise ValueError(f"need seeds >= 1, local >= 0 and rounds >= 1 (got {seeds}, {local}, {rounds})")
    specs = parse_methods(methods) if isinstance(methods, str) else [(m, m, {}) for m in methods]
    classes = {label: (get_method(name), params) for label, name, params in specs}
    bench, data, model, X_train = load_benchmark(name, data_dir=data_dir, models_dir=models_dir)
    rows = []
    for r in range(rounds):
        seed_array = cluster_seeds(X_train, seeds, order="random", random_state=random_state + r)
        for method, (cls, extra) in classes.items():
            params = method_params(cls, seeds=seeds, local=local, max_time=max_time)
            if "n_seeds" in params:     # german's training split has 600 rows: all of them are the seeds
                params["n_seeds"] = min(params["n_seeds"], len(seed_array))
            if control is not None:
                params["control"] = control
            search = cls(random_state=random_state + r, progress=False, **{**params, **extra})
            result = search.run(model, data.domain, seeds=seeds_for(search, seed_array))
            rows.append(_row(bench.name, method, seeds, local, r, result))
            if log:
                row = rows[-1]
                log(f"{bench.name} {method} round {r}: {row['unique_idis']} IDIs in {row['elapsed_s']} s "
                    f"({row['idis_per_s']}/s)")
    return pd.DataFrame(rows, columns=COLUMNS)


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean over rounds per benchmark and method (and the spread of unique IDIs), with the papers' numbers.
    ``time_to_1000_s`` is the mean over the ``reached_1000`` rounds that found 1,000 IDIs."""
    grouped = rows.groupby(["benchmark", "method", "seeds", "local"], sort=False)
    out = grouped.agg(rounds=("round", "count"), unique_idis=("unique_idis", "mean"),
                      unique_idis_sd=("unique_idis", "std"), unique_idis_adf=("unique_idis_adf", "mean"),
                      generated=("generated", "mean"), success_rate=("success_rate", "mean"), gsr=("gsr", "mean"),
                      idis_per_s=("idis_per_s", "mean"), elapsed_s=("elapsed_s", "mean"),
                      time_to_1000_s=("time_to_1000_s", "mean"),
                      reached_1000=("time_to_1000_s", "count")).reset_index()
    ref = [REFERENCE.get((b, m, s, l)) for b, m, s, l in zip(out.benchmark, out.method, out.seeds, out.local)]
    out["paper_idis"] = [r[0] if r else None for r in ref]
    out["paper_idis_per_s"] = [r[1] if r else None for r in ref]
    out["paper_source"] = [r[3] if r else "" for r in ref]
    return out


def machine() -> dict:
    """Where the numbers were measured (load average: other work sharing the CPU)."""
    info = {"python": platform.python_version(), "numpy": np.__version__, "platform": platform.platform(),
            "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    if hasattr(os, "getloadavg"):
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return info


def markdown_table(summary: pd.DataFrame) -> str:
    """The summary as a markdown table (counts: unique full instances, EIDIG/MAFT convention)."""
    head = ("| benchmark | method | seeds x local | rounds | unique IDIs (sd) | w/o protected | generated | "
            "success rate | GSR | IDIs/s | time to 1,000 IDIs (s) | elapsed (s) | paper IDIs | paper IDIs/s |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in summary.itertuples():
        sd = "" if pd.isna(r.unique_idis_sd) else f" ({r.unique_idis_sd:,.0f})"
        t1000 = "" if pd.isna(r.time_to_1000_s) else f"{r.time_to_1000_s:.2f}"
        if t1000 and r.reached_1000 < r.rounds:
            t1000 += f" ({r.reached_1000}/{r.rounds} rounds)"
        paper = "" if pd.isna(r.paper_idis) else f"{r.paper_idis:,.0f}"
        paper_rate = "" if pd.isna(r.paper_idis_per_s) else f"{r.paper_idis_per_s:g}"
        lines.append(f"| {r.benchmark} | {r.method} | {r.seeds} x {r.local} | {r.rounds} | {r.unique_idis:,.0f}{sd} | "
                     f"{r.unique_idis_adf:,.0f} | {r.generated:,.0f} | {r.success_rate:.3f} | {r.gsr:.3f} | "
                     f"{r.idis_per_s:,.0f} | {t1000} | {r.elapsed_s:.2f} | {paper} | {paper_rate} |")
    return "\n".join(lines) + "\n"


def write_reports(rows: pd.DataFrame, folder, stem: str, *, command: str = "") -> dict:
    """Write ``<stem>.csv`` (every round) and ``<stem>.md`` (summary next to the papers' numbers)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    csv, md = folder / f"{stem}.csv", folder / f"{stem}.md"
    rows.to_csv(csv, index=False)
    summary = summarise(rows)
    m = machine()
    sources = sorted({s for s in summary.paper_source if s})
    text = [f"# {stem}", "", f"Command: `{command}`" if command else "",
            f"Machine: {m['platform']}, {m['cpus']} CPUs, Python {m['python']}, numpy {m['numpy']}; "
            f"load average at the end {m.get('load_average')} (other work shared the CPUs: timings are contended).",
            f"Measured {m['date']}. Counts are unique full instances (EIDIG/MAFT); 'w/o protected' is the ADF "
            "convention. Seeds: K-Means(4) random members round robin from the published training split, the "
            "same for every method of a round; seed selection is not timed.", "", markdown_table(summary)]
    if sources:
        text += ["Paper numbers: " + "; ".join(sources) + ". Same model and benchmark, other machines.", ""]
    md.write_text("\n".join(t for t in text if t is not None) + "\n")
    return {"csv": str(csv), "markdown": str(md)}


def save_report(out, report: dict, markdown: str, *, default=None) -> None:
    """Write a benchmark script's ``report`` to ``<out>.json`` (``default``: ``json.dumps``'s, for values JSON
    lacks) and its ``markdown`` to ``<out>.md``, and print the markdown.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> save_report(Path(folder) / "demo", {"idis": 3}, "# demo")
    # demo
    >>> json.loads((Path(folder) / "demo.json").read_text())
    {'idis': 3}
    """
    out = Path(out)
    out.with_suffix(".json").write_text(json.dumps(report, indent=1, default=default))
    out.with_suffix(".md").write_text(markdown)
    print(markdown)


def _command(args, rounds: int) -> str:
    """The ``fairnb bench`` command line that reproduces a run (data and model folders left out)."""
    cmd = f"fairnb bench --benchmark {args.benchmark} --methods {args.methods} --seeds {args.seeds} --local {args.local}"
    if rounds != 1:
        cmd += f" --rounds {rounds}"
    if args.max_time is not None:
        cmd += f" --max-time {args.max_time:g}"
    return cmd + f" --random-state {getattr(args, 'random_state', 0)}"


def run_from_cli(args) -> dict:
    """``fairnb bench``: run, optionally write JSON / CSV / markdown, return the one-line summary."""
    methods = args.methods
    names = sorted(BENCHMARKS) if args.benchmark == "all" else [b.strip() for b in args.benchmark.split(",")]
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise ValueError(f"unknown benchmark {', '.join(map(repr, unknown))}; choose from {sorted(BENCHMARKS)} or all")
    for _, name, params in parse_methods(methods):      # a bad name or parameter fails before any search runs
        get_method(name)(**params)
    rounds = getattr(args, "rounds", 1)
    log = (lambda msg: print(msg, file=sys.stderr, flush=True))
    frames = [run_benchmark(name, methods, seeds=args.seeds, local=args.local, max_time=args.max_time,
                            rounds=rounds, random_state=getattr(args, "random_state", 0), data_dir=args.data_dir,
                            models_dir=args.models_dir, control=getattr(args, "control", None), log=log)
              for name in names]
    rows = pd.concat(frames, ignore_index=True)
    summary = summarise(rows)
    out = {"benchmark": args.benchmark, "seeds": args.seeds, "local": args.local, "rounds": rounds,
           "max_time": args.max_time, "results": {}}
    for r in summary.itertuples():
        out["results"].setdefault(r.benchmark, {})[r.method] = {
            "unique_idis": round(r.unique_idis, 1), "unique_idis_adf": round(r.unique_idis_adf, 1),
            "idis_per_s": round(r.idis_per_s, 1), "elapsed_s": round(r.elapsed_s, 3),
            "time_to_1000_s": None if pd.isna(r.time_to_1000_s) else round(r.time_to_1000_s, 3)}
    if args.json:
        Path(args.json).write_text(json.dumps({"config": {k: v for k, v in out.items() if k != "results"},
                                               "machine": machine(), "rows": rows.to_dict(orient="records"),
                                               "summary": summary.to_dict(orient="records")}, indent=1, default=str))
        out["json"] = args.json
    if getattr(args, "out", None):
        stem = f"bench_{args.benchmark.replace(',', '_')}_{args.seeds}x{args.local}"
        if args.max_time is not None:
            stem += f"_{args.max_time:g}s"
        out.update(write_reports(rows, args.out, stem, command=_command(args, rounds)))
    return out
