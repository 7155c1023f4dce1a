"""NeuronFair audit: which step of the paper's algorithm gains or loses IDIs against ADF, measured.

Reproduce (about two minutes on a busy 2-core machine; the LFCN model trains in ~20 s)::

    .venv/bin/python benchmarks/neuronfair_audit.py --data-dir ../shared/data --models-dir ../shared/models

Writes ``benchmarks/results/neuronfair_audit.{json,md}``. Seeds follow ``fairnb bench`` (K-Means(4)
round robin over the training split, ``random_state`` = round), the same seeds for every variant.

1. **Interpretation** of the published census model (C-g): AUC per hidden layer from post-ReLU
   activations (the paper, digest 7.1.1) and, for comparison only, from pre-activations; from the
   training split and from 100 seeds (what ``fairnb bench`` gives NeuronFair).
2. **Global trace** (C-g, 1,000 seeds, 40 iterations): per step the live seeds, how many have an exactly
   zero dynamic-loss gradient ``g + g'``, the biased neurons' mean activations ``a(x)``, ``a(x')`` and
   ``|a(x) - a(x')|``, and the output gap ``|p(x) - p(x')|``; ascent on Eq. 4 (the paper) and descent.
3. **Ablations**, one part changed at a time, at 1,000 x 1,000 (one round) and 100 x 100 (10 rounds):
   ``released-loss`` (the released code's softmax cross-entropy instead of Eq. 4), ``descent``,
   ``normalised-local`` (Algorithm 3 with ``p_dire`` = normalised ``1 / |g + g'|`` instead of the
   softmax; direction, momentum and acceptance unchanged), ``layer=1``, ``local=reference`` (the
   released code's ADF-style walk). Per variant: unique IDIs, global IDIs, GSR, new unique IDIs per
   walker (unique IDIs less global IDIs, over global IDIs) and the local walk's statistics (median
   largest attribute probability, share of steps in which a walker moves, share of gradient rows with
   ``g + g' = 0`` exactly, distinct points per walker).
4. The same comparison on the **ADF-family census model** of the NeuronFair paper's kind (LFCN
   64-32-16-8-4, trained as in ``black_box.py``), census (ADF encoding), gender, 1,000 x 100.

The variants exist here only, to locate the loss; none is a fairnb option except ``layer`` and ``local``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import fairnb  # noqa: E402
from fairnb.bench import load_benchmark, machine  # noqa: E402
from fairnb.search.methods.adf import ADF  # noqa: E402
from fairnb.search.parts.biased_neurons import interpret, layer_auc  # noqa: E402
from fairnb.search.methods.neuronfair import DynamicLoss, NeuronFair  # noqa: E402
from fairnb.search.engine.seeds import cluster_seeds  # noqa: E402
from fairnb.search.methods.two_phase import reciprocal_probabilities  # noqa: E402


class Traced(NeuronFair):
    """NeuronFair that records the global trace and the local walk's statistics in ``self.trace``."""

    def _begin(self, ctx, seeds):
        super()._begin(ctx, seeds)
        self.trace = {"global": {}, "pmax": [], "moved": [], "zero": defaultdict(list), "points": defaultdict(set)}

    def _pair_gradients(self, ctx, X, XC, PX, PC, *, rows, t, phase):
        g, gc = super()._pair_gradients(ctx, X, XC, PX, PC, rows=rows, t=t, phase=phase)
        self.trace["zero"][phase].append((np.abs(g + gc).sum(axis=1) == 0).mean())
        if phase == "global":
            A = ctx.model.layer_outputs(np.vstack([X, XC]))[self.interpretation_.biased_layer][:, self._gradient.biased]
            a, ac = A[: len(X)], A[len(X):]
            self.trace["global"][t] = {
                "live": len(X), "zero_gradient": int((np.abs(g + gc).sum(axis=1) == 0).sum()),
                "a_x": float(a.mean()), "a_x_prime": float(ac.mean()), "act_diff": float(np.abs(a - ac).mean()),
                "output_gap": float(np.abs(PX[:, -1] - PC[:, -1]).mean())}
        return g, gc

    def _walk(self, ctx, start):
        self._walker_ids = start.seed_ids
        return (yield from super()._walk(ctx, start))

    def _local_candidates(self, ctx, step, X, plan, trace, t):
        new, moved, trace = super()._local_candidates(ctx, step, X, plan, trace, t)
        self.trace["pmax"].append(float(np.median(plan[0].max(axis=1))))
        self.trace["moved"].append(float((new != X).any(axis=1).mean()))
        for i, row in zip(self._walker_ids, new):
            self.trace["points"][int(i)].add(row.tobytes())
        return new, moved, trace


class ReleasedCrossEntropy(DynamicLoss):
    """The released code's loss: softmax cross-entropy with logits ``m * a`` and labels ``m * target``."""

    @staticmethod
    def weights(a, target, mask):
        y, u = mask * target, mask * a
        s = np.exp(u - u.max(axis=1, keepdims=True))
        s /= s.sum(axis=1, keepdims=True)
        return mask * (y.sum(axis=1, keepdims=True) * s - y)


class DescendedLoss(DynamicLoss):
    """Eq. 4 descended instead of ascended."""

    @staticmethod
    def weights(a, target, mask):
        return -DynamicLoss.weights(a, target, mask)


class ReleasedLoss(Traced):
    """NeuronFair with the released code's loss as its gradient source."""

    def gradient_source(self):
        return ReleasedCrossEntropy(self.random_share, self.r_step_global, self.r_step_local)


class Descent(Traced):
    """NeuronFair descending Eq. 4."""

    def gradient_source(self):
        return DescendedLoss(self.random_share, self.r_step_global, self.r_step_local)


class NormalisedLocal(Traced):
    """Algorithm 3 with ``p_dire`` = normalised ``1 / |g + g'|`` (no softmax); everything else the paper's."""

    def _local_plan(self, G1, G2, free):
        total = G1 + G2
        return reciprocal_probabilities(total, np.zeros_like(total), free), np.sign(total)


VARIANTS = {
    "adf": (ADF, {}),
    "neuronfair": (Traced, {}),
    "released-loss": (ReleasedLoss, {}),
    "descent": (Descent, {}),
    "normalised-local": (NormalisedLocal, {}),
    "layer=1": (Traced, {"layer": 1}),
    "layer=1;normalised-local": (NormalisedLocal, {"layer": 1}),
    "local=reference": (Traced, {"local": "reference"}),
    "layer=1;local=reference": (Traced, {"layer": 1, "local": "reference"}),
}


def run(label, model, domain, seeds, n_local, random_state) -> tuple[dict, NeuronFair | ADF]:
    cls, params = VARIANTS[label]
    if issubclass(cls, NeuronFair):
        params = {"local": "paper", **params}      # the audit's variants start from the paper's walk
    search = cls(n_seeds=len(seeds), n_local=n_local, seed_selection="as_given", random_state=random_state,
                 progress=False, **params)
    t0 = time.perf_counter()
    r = search.run(model, domain, seeds=seeds)
    row = {"unique_idis": r.count(), "global_idis": r.extras["global_idis"], "gsr": r.extras["gsr"],
           "seconds": round(time.perf_counter() - t0, 2)}
    trace = getattr(search, "trace", None)
    if trace is not None and trace["moved"]:
        row.update(local_median_pmax=round(float(np.median(trace["pmax"])), 6),
                   local_moved_share=round(float(np.mean(trace["moved"])), 3),
                   local_zero_gradient_share=round(float(np.mean(trace["zero"]["local"])), 3),
                   local_points_per_walker=round(float(np.mean([len(p) for p in trace["points"].values()])), 1))
    row["new_idis_per_walker"] = round((r.count() - row["global_idis"]) / max(row["global_idis"], 1), 1)
    return row, search


def interpretation_table(model, domain, X_train, seeds100) -> dict:
    out = {}
    for name, rows in (("training split", X_train), ("100 seeds", seeds100)):
        found = interpret(model, domain, rows)
        out[f"post-ReLU, {name}"] = {"auc": [round(a, 4) for a in found.auc], "layer": found.biased_layer,
                                      "biased_neurons": found.biased_neurons.tolist(),
                                      "threshold": round(found.threshold, 3)}
    V = domain.variants(X_train)
    n, m, d = V.shape
    pre = model._forward(V.reshape(n * m, d))[:-1]
    auc = [layer_auc(np.tanh(np.abs(z.reshape(n, m, -1)[:, 0] - z.reshape(n, m, -1)[:, 1]).mean(axis=0))) for z in pre]
    out["pre-activation, training split (not the paper)"] = {"auc": [round(a, 4) for a in auc],
                                                             "layer": int(np.argmax(auc))}
    return out


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=None)
    p.add_argument("--models-dir", default=None)
    p.add_argument("--rounds", type=int, default=10, help="rounds of the 100 x 100 ablation")
    p.add_argument("--skip-lfcn", action="store_true", help="skip the ADF-family model (saves ~30 s)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    args = p.parse_args(argv)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    report = {"command": "benchmarks/neuronfair_audit.py " + " ".join(argv if argv is not None else sys.argv[1:]),
              "machine": machine()}
    _, data, model, X_train = load_benchmark("C-g", data_dir=args.data_dir, models_dir=args.models_dir)
    dom = data.domain
    report["interpretation"] = interpretation_table(model, dom, X_train,
                                                    cluster_seeds(X_train, 100, order="random", random_state=0))
    seeds = cluster_seeds(X_train, 1000, order="random", random_state=0)
    full = {}
    for label in VARIANTS:
        full[label], search = run(label, model, dom, seeds, 1000, 0)
        if label in ("neuronfair", "descent", "layer=1"):
            report.setdefault("global_trace", {})[label] = search.trace["global"]
        log(f"C-g 1000 x 1000 {label}: {full[label]}")
    report["c_g_1000x1000"] = full
    small = defaultdict(list)
    for r in range(args.rounds):
        seeds = cluster_seeds(X_train, 100, order="random", random_state=r)
        for label in VARIANTS:
            small[label].append(run(label, model, dom, seeds, 100, r)[0]["unique_idis"])
    report["c_g_100x100"] = {k: {"mean": round(float(np.mean(v)), 1), "sd": round(float(np.std(v, ddof=1)), 1)
                                 if len(v) > 1 else 0.0, "rounds": v} for k, v in small.items()}
    log(f"C-g 100 x 100: { {k: v['mean'] for k, v in report['c_g_100x100'].items()} }")
    if not args.skip_lfcn:
        from black_box import adf_census_model

        census = fairnb.datasets.load("census_adf", data_dir=args.data_dir)
        lfcn, info = adf_census_model(census)
        gender = census.domain.with_protected(["sex"])
        seeds = cluster_seeds(census.X.to_numpy(float), 1000, order="random", random_state=0)
        rows = {label: run(label, lfcn, gender, seeds, 100, 0) for label in ("adf", "neuronfair", "local=reference")}
        report["lfcn_census_gender_1000x100"] = {"model": info, "interpretation": rows["neuronfair"][1].interpretation_
                                                 .to_extras() | {"layer_act_diff": None},
                                                 "runs": {k: v[0] for k, v in rows.items()}}
        log(f"LFCN: { {k: v[0] for k, v in rows.items()} }")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "neuronfair_audit.json").write_text(json.dumps(report, indent=1, default=str))
    (out / "neuronfair_audit.md").write_text(markdown(report))
    return report


def _table(rows: dict, columns: list[str]) -> list[str]:
    lines = ["| variant | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for label, row in rows.items():
        lines.append(f"| {label} | " + " | ".join("" if row.get(c) is None else f"{row[c]:,}" if isinstance(row[c], int)
                                                  else str(row[c]) for c in columns) + " |")
    return lines


def markdown(report: dict) -> str:
    m = report["machine"]
    lines = ["# NeuronFair audit (C-g, published census model)", "",
             f"Command: `{report['command']}`. Machine: {m.get('cpus')} CPUs, load average "
             f"{m.get('load_average')} (contended; timings are indicative only).", "",
             "## Interpretation: AUC per hidden layer", "",
             "| activations, pairs from | AUC per layer | most biased | biased neurons |", "|---|---|---|---|"]
    for k, v in report["interpretation"].items():
        lines.append(f"| {k} | {v['auc']} | {v['layer']} | {v.get('biased_neurons', '')} |")
    lines += ["", "## Global trace (1,000 seeds; biased neurons of the chosen layer)", ""]
    for label, trace in report.get("global_trace", {}).items():
        lines += [f"**{label}**", "",
                  "| t | live seeds | zero gradient | a(x) | a(x') | abs(a(x)-a(x')) | abs(p(x)-p(x')) |",
                  "|---|---|---|---|---|---|---|"]
        for t in sorted(trace, key=int):
            if int(t) in (0, 1, 2, 4, 8, 16, 39):
                r = trace[t]
                lines.append(f"| {t} | {r['live']} | {r['zero_gradient']} | {r['a_x']:.3f} | {r['a_x_prime']:.3f} | "
                             f"{r['act_diff']:.3f} | {r['output_gap']:.3f} |")
        lines.append("")
    cols = ["unique_idis", "global_idis", "gsr", "new_idis_per_walker", "local_median_pmax", "local_moved_share",
            "local_zero_gradient_share", "local_points_per_walker", "seconds"]
    lines += ["## Ablations at 1,000 seeds x 1,000 local steps (one round)", ""] + _table(report["c_g_1000x1000"], cols)
    lines += ["", "## Ablations at 100 x 100 (unique IDIs, mean and sd over rounds)", "", "| variant | mean | sd |",
              "|---|---|---|"] + [f"| {k} | {v['mean']} | {v['sd']} |" for k, v in report["c_g_100x100"].items()]
    if "lfcn_census_gender_1000x100" in report:
        lf = report["lfcn_census_gender_1000x100"]
        it = lf["interpretation"]
        lines += ["", "## ADF-family LFCN census model, gender, 1,000 x 100", "",
                  f"Model: {lf['model']['architecture']}, accuracy {lf['model']['accuracy_published_test_split']} "
                  f"(published test split). AUC per layer {it['layer_auc']}, most biased layer {it['biased_layer']}, "
                  f"biased neurons {it['biased_neurons']}.", ""] + _table(lf["runs"], cols)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
