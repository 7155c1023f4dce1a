"""Methods x models x protected attributes x repeats, under one budget: the field's harness on fairnb's engine.

``run_grid`` runs every method on every model and protected attribute, ``repeats`` times (another
``random_state`` each), from the data's training rows as seeds, and returns one row per run with every
number the Result's ``summary()`` gives (the headline natural rate, both counting conventions, the field's
metrics where the Result has them) and two checks made afresh, outside the search: the share of the reported
pairs whose two inputs lie inside the domain's bounds and differ only in protected attributes
(``valid_share``), and the share a fresh oracle call on the model confirms (``rechecked_share``, on up to
``recheck`` pairs). A method that cannot run on a model (a gradient method on a black box) gets one row whose
``status`` says why, and the grid goes on. ``summarise_grid`` gives the mean and spread over repeats; ``markdown_grid`` the table.

Models are any that ``fairnb.models.wrap`` takes (Keras, scikit-learn, ONNX sessions, callables) or paths
that ``fairnb.models.load_model`` reads.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=1000, random_state=0)
>>> rows = run_grid("random[n_samples=2000],kosei[n_seeds=100;n_local=50]", {"demo": fairnb.train_demo_model(data)},
...                 data, ["sex"], repeats=2)
>>> summarise_grid(rows)[["method", "repeats"]].values.tolist()
[['random[n_samples=2000]', 2], ['kosei[n_seeds=100;n_local=50]', 2]]
>>> bool((rows.valid_share == 1).all() and (rows.rechecked_share == 1).all())
True
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

ID_COLUMNS = ["model", "protected", "method"]
# summary() keys every row keeps (when the Result has them), then any key with a metric prefix
KEYS = ["natural_rate", "natural_low", "natural_high", "control_natural_rate", "control_natural_low",
        "control_natural_high", "material_pairs", "unique_idis_eidig", "unique_idis_adf", "tried", "success_rate",
        "elapsed_s", "idis_per_s", "time_to_1000_s"]
METRIC_PREFIXES = ("unique_idi_pairs", "precision", "coverage_", "diversity_")


def _models(models) -> dict:
    """``{label: model}``: a dict as given, paths loaded (labelled by file name), other objects by class name."""
    from .models import load_model

    if isinstance(models, dict):
        items = models.items()
    else:
        items = [(Path(m).name if isinstance(m, (str, Path)) else type(m).__name__, m) for m in models]
    return {label: load_model(m) if isinstance(m, (str, Path)) else m for label, m in items}


def run_grid(methods, models, data, protected, *, max_time: float | None = None, repeats: int = 1,
             random_state: int = 0, recheck: int = 1000, control=None, log=None) -> pd.DataFrame:
    """One row per method, model, protected attribute and repeat (see the module docstring). ``methods`` is a
    ``fairnb.bench.parse_methods`` string or a list of registered names; ``protected`` lists attribute names
    (a tuple searches several at once); ``max_time`` is each run's budget in seconds; ``control`` a model without
    the bias, whose natural rate on the same seeds every row gets beside the model's (``control_natural_rate``)."""
    from .bench import parse_methods
    from .search import get_method
    from .search.registry import seeds_for

    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    specs = parse_methods(methods) if isinstance(methods, str) else [(m, m, {}) for m in methods]
    classes = [(label, get_method(name), params) for label, name, params in specs]
    for _, cls, params in classes:            # a bad parameter fails before any search runs
        cls(**params)
    rows = []
    for model_label, model in _models(models).items():
        for attribute in protected:
            attributes = list(attribute) if isinstance(attribute, (tuple, list)) else [attribute]
            domain = data.with_protected(attributes).domain
            seeds = domain.clip(data.seed_inputs())
            for label, cls, params in classes:
                budget = {} if max_time is None else {"max_time": max_time}
                if control is not None:
                    budget["control"] = control
                for repeat in range(repeats):
                    search = cls(**{**budget, **params, "random_state": random_state + repeat, "progress": False})
                    row = {"model": model_label, "protected": "+".join(attributes), "method": label, "repeat": repeat}
                    try:
                        result = search.run(model, domain, seeds=seeds_for(search, seeds))
                    except (ValueError, TypeError) as refusal:     # e.g. a gradient method on a black box
                        rows.append({**row, "status": f"refused: {refusal}"})
                        if log:
                            log(f"{model_label} {row['protected']} {label}: refused ({refusal})")
                        break
                    rows.append({**row, "status": result.status, **_numbers(result.summary()),
                                 **_checks(result, model, domain, recheck, np.random.default_rng(repeat))})
                    if log:
                        log(f"{model_label} {row['protected']} {label} repeat {repeat}: "
                            f"{rows[-1]['unique_idis_eidig']:,} IDIs in {rows[-1]['elapsed_s']} s")
    return pd.DataFrame(rows)


def _numbers(summary: dict) -> dict:
    return {k: v for k, v in summary.items()
            if (k in KEYS or k.startswith(METRIC_PREFIXES)) and isinstance(v, (int, float, type(None)))}


def _checks(result, model, domain, recheck: int, rng) -> dict:
    """The shares of the reported pairs that are valid (inside the bounds, differing only in protected
    attributes) and that a fresh oracle confirms, on at most ``recheck`` of them."""
    from .oracle import Oracle

    X, C = np.asarray(result.inputs, dtype=float), np.asarray(result.counterparts, dtype=float)
    if not len(X):
        return {"valid_share": None, "rechecked_share": None}
    inside = ((X >= domain.lower) & (X <= domain.upper) & (C >= domain.lower) & (C <= domain.upper)).all(axis=1)
    same = (np.delete(X, domain.protected, axis=1) == np.delete(C, domain.protected, axis=1)).all(axis=1)
    pick = rng.choice(len(X), min(recheck, len(X)), replace=False)
    oracle = Oracle(model, domain, validate=False)
    P, Q = oracle.predict_proba(X[pick]), oracle.predict_proba(C[pick])
    confirmed = oracle.differs(P, Q[:, None, :])[:, 0]
    return {"valid_share": round(float((inside & same).mean()), 6), "rechecked_share": round(float(confirmed.mean()), 6)}


def summarise_grid(rows: pd.DataFrame) -> pd.DataFrame:
    """Per model, protected attribute and method: the number of repeats, and the mean and standard deviation
    (``<column>_sd``) of every numeric column."""
    numeric = [c for c in rows.columns if c not in (*ID_COLUMNS, "repeat", "status")
               and pd.api.types.is_numeric_dtype(rows[c])]
    grouped = rows.groupby(ID_COLUMNS, sort=False)
    out = grouped[numeric].mean()
    spread = grouped[numeric].std().add_suffix("_sd")
    out.insert(0, "repeats", grouped.size())
    out.insert(1, "status", grouped["status"].agg(lambda s: ", ".join(dict.fromkeys(s))))
    return pd.concat([out, spread], axis=1).reset_index()


def markdown_grid(summary: pd.DataFrame, columns=("natural_rate", "control_natural_rate", "material_pairs",
                                                 "unique_idis_eidig", "unique_idis_adf", "unique_idi_pairs",
                                                 "precision", "tried", "elapsed_s", "valid_share",
                                                 "rechecked_share")) -> str:
    """The summary as a markdown table: each column present as ``mean (sd)``, plus any coverage/diversity."""
    shown = [c for c in (*columns, *(c for c in summary.columns if c.startswith(("coverage_", "diversity_"))
                                     and not c.endswith("_sd"))) if c in summary.columns]
    head = ["model", "protected", "method", "repeats", "status", *shown]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, r in summary.iterrows():
        cells = [str(r.model), str(r.protected), str(r.method), str(r.repeats), str(r.status).replace("|", "/")]
        for c in shown:
            mean, sd = r[c], r.get(f"{c}_sd")
            text = "" if pd.isna(mean) else (f"{mean:,.0f}" if abs(mean) >= 100 else f"{mean:.3g}")
            if text and sd is not None and not pd.isna(sd) and r.repeats > 1:
                text += f" ({sd:,.0f})" if abs(mean) >= 100 else f" ({sd:.2g})"
            cells.append(text)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _model_paths(options) -> dict:
    """``--model`` values (``PATH`` or ``NAME=PATH``) -> ``{label: path}``."""
    out = {}
    for option in options:
        label, eq, path = option.partition("=")
        label, path = (label, path) if eq else (Path(option).name, option)
        if label in out:
            raise ValueError(f"--model: two models are labelled {label!r}; label them as NAME=PATH")
        out[label] = path
    return out


def run_from_cli(args, data) -> dict:
    """``fairnb bench --model ... --protected ...``: run the grid, write ``grid.csv`` and ``grid.md`` under
    ``--out``, return the summary."""
    import json
    import sys

    from .bench import machine

    rows = run_grid(args.methods, _model_paths(args.model), data,
                    [p.strip() for p in args.protected.split(",") if p.strip()], max_time=args.max_time,
                    repeats=args.rounds, random_state=args.random_state, control=getattr(args, "control", None),
                    log=lambda msg: print(msg, file=sys.stderr, flush=True))
    summary = summarise_grid(rows)
    out = {"dataset": data.name, "models": list(_model_paths(args.model)), "methods": args.methods,
           "max_time": args.max_time, "repeats": args.rounds,
           "results": summary[[c for c in (*ID_COLUMNS, "unique_idis_eidig", "elapsed_s") if c in summary]]
           .to_dict(orient="records")}
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), "rows": rows.to_dict(orient="records"),
                                               "summary": summary.to_dict(orient="records")}, indent=1, default=str))
        out["json"] = args.json
    if args.out:
        folder = Path(args.out)
        folder.mkdir(parents=True, exist_ok=True)
        rows.to_csv(folder / "grid.csv", index=False)
        m = machine()
        (folder / "grid.md").write_text(
            f"# {data.name}: {args.methods}\n\nMachine: {m['platform']}, {m['cpus']} CPUs, load average "
            f"{m.get('load_average')}; measured {m['date']}. Budget per run: "
            f"{'none' if args.max_time is None else f'{args.max_time:g} s'}; mean (sd) over {args.rounds} "
            "repeats.\n\n" + markdown_grid(summary))
        out["markdown"] = str(folder / "grid.md")
    return out
