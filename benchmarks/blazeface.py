"""MediaPipe's BlazeFace short-range detector in fairnb (issue #36): speed of the interpreter and of the converted
graph, how closely the graph follows the interpreter, and IDIs per minute of the exact-gradient image searches
against the zero-order search.

1. **Speed**: images/s of the LiteRT interpreter (one call per image), the converted TensorFlow graph's forward
   pass (batches of 64) and its pixel gradients (``input_gradient``), on the same images.
2. **Agreement**: the maximum difference between the graph's and the interpreter's P(face) and best logit over
   ``--agree`` images: the 200 crops of ``skimage.data.lfw_subset()`` (100 faces, 100 non-faces, 25 x 25 grey)
   resized to 64, 80, 96 or 128 pixels, tinted light or dark, and placed on a grey 128 x 128 canvas; with the
   detection rate on faces and non-faces.
3. **Searches**: the tinted LFW faces at 128 x 128 (``fairnb.images.load_tinted_lfw``, the exact re-tinting
   flip), every seed face; ``adf_image`` and ``eidig_image`` on the white box (exact gradients),
   ``zero_order_image`` on the interpreter's black box (defaults, and the cheaper estimate :data:`CHEAP`) and on
   the graph's outputs; each for ``--minutes``; every pair re-checked by the interpreter and against the pixel
   budget; for the zero-order runs, the pairs found by the time the best exact search (most pairs) had ended.
4. **Audit** (tone or exposure?): on the frame-filling faces and on LFW faces placed small on photographs with
   sensor noise (``fairnb.images.scenes``), the tone flip beside its exposure-matched control and its hue part
   (``fairnb.images.FlipPart``): natural rates and the exact search (``eidig_image``) with each, 95 % intervals,
   apart or overlapping (``fairnb.images.compare_flips``); where the pairs sit (the faces' scores, the pairs' two
   scores, the search's change); the frame-filling faces also at smaller pixel budgets (``--budgets``).

The machine is shared (``uptime`` is recorded before and after): the numbers are indicative. Usage::

    python benchmarks/blazeface.py --agree 500 --minutes 1 --out benchmarks/results/blazeface
    python benchmarks/blazeface.py --parts audit --budgets 2      # one part again: the others' entries are kept
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fairnb.bench import machine, save_report  # noqa: E402
from fairnb.domains import ImageDomain  # noqa: E402
from fairnb.constraints import AttributeConfirmed, PixelBudget  # noqa: E402
from fairnb.images import ExactFlip, FlipPart, compare_flips  # noqa: E402
from fairnb.images.scenes import load_lfw_scenes  # noqa: E402
from fairnb.images.lfw import TONES, load_tinted_lfw  # noqa: E402
from fairnb.images.resize import resize_images  # noqa: E402
from fairnb.models import FunctionModel, blazeface  # noqa: E402
from fairnb.models.mediapipe import BLAZEFACE  # noqa: E402
from fairnb.search import get_method  # noqa: E402

SIZES = (64, 80, 96, 128)


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def canvases(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` LFW crops on grey 128 x 128 canvases (sizes and tones cycling) and whether each is a face."""
    from skimage.data import lfw_subset

    crops = lfw_subset()
    X, face = np.full((n, 128, 128, 3), 0.5), np.zeros(n, int)
    for i in range(n):
        src, size, tone = i % len(crops), SIZES[(i // len(crops)) % len(SIZES)], TONES[(i // 7) % 2]
        top = (128 - size) // 2
        X[i, top:top + size, top:top + size] = resize_images(crops[src:src + 1], size)[0, ..., :1] * tone
        face[i] = src < len(crops) // 2
    return X, face


def rate(fn, X, repeat: int = 1) -> float:
    fn(X[:2])                                               # traces the graph once
    t = time.perf_counter()
    for _ in range(repeat):
        fn(X)
    return round(repeat * len(X) / (time.perf_counter() - t), 1)


def speed(black, white, X) -> dict:
    return {"interpreter_forward": rate(black.predict_proba, X), "graph_forward": rate(white.predict_proba, X),
            "graph_gradient": rate(lambda Z: white.input_gradient(Z, np.ones(len(Z), int)), X)}


def agreement(black, white, X, face) -> dict:
    zb, zw = black.raw_output(X), white.raw_output(X)
    pb, pw = black.predict_proba(X)[:, 1], white.predict_proba(X)[:, 1]
    return {"images": len(X), "max_abs_p_face": float(np.abs(pb - pw).max()),
            "max_abs_best_logit": float(np.abs(zb.max(axis=(1, 2)) - zw.max(axis=(1, 2))).max()),
            "max_abs_logit": float(np.abs(zb - zw).max()), "decisions_differ": int(((pb > 0.5) != (pw > 0.5)).sum()),
            "detected_faces": float((pb[face == 1] > 0.5).mean()), "detected_non_faces": float((pb[face == 0] > 0.5).mean())}


#: zero_order_image's cheaper estimate (``benchmarks/results/blazeface.md``): 10 directions on an 8 x 8 lattice per
#: channel, forward differences from the check's output, one estimate per pair, signed steps of 2/255
CHEAP = {"grid": 8, "n_directions": 10, "antithetic": False, "shared": True, "signed": True, "global_step": 2 / 255}


def searches(black, white, minutes: float) -> tuple[list[dict], dict]:
    """Each search on the 100 tinted faces for ``minutes``; every pair re-checked by the interpreter and against
    the pixel budget; for the zero-order runs, the pairs they had when the faster exact search ended."""
    data = load_tinted_lfw(size=128, augment=1)
    dom = ImageDomain.from_data(data, ExactFlip(data))
    seeds = data.X[data.y == 1]
    p = black.predict_proba(seeds)[:, 1]
    tone = data.attribute[data.y == 1]
    detected = {"light": float((p[tone == 0] > 0.5).mean()), "dark": float((p[tone == 1] > 0.5).mean()),
                "faces": len(seeds)}
    print(detected, flush=True)
    runs = [("adf_image", white, "graph (exact gradients)", {}),
            ("eidig_image", white, "graph (exact gradients)", {}),
            ("zero_order_image", black, "interpreter (outputs only)", {}),
            ("zero_order_image", FunctionModel(white.predict_proba), "graph's outputs only", {}),
            ("zero_order_image", black, "interpreter (outputs only), cheap estimate", CHEAP)]
    rows = []
    for method, model, backend, options in runs:
        r = get_method(method)(random_state=0, progress=False, max_time=60 * minutes, **options).run(model, dom,
                                                                                                     seeds=seeds)
        s = r.summary()
        rows.append({"method": method, "model": backend, "options": options_text(options), "seeds": len(seeds),
                     "idis": r.count(), "tried": r.tried, "model_rows": s.get("model_rows"),
                     "seconds": round(r.elapsed, 1), "idis_per_minute": round(60 * r.count() / max(r.elapsed, 1e-9), 1),
                     "status": r.status, **valid(black, r)})
        if method == "zero_order_image":
            best = max((row for row in rows if row["model"].startswith("graph (exact")), key=lambda row: row["idis"])
            rows[-1]["idis_at_exact_time"] = found_by(r, best["seconds"])
        print(rows[-1], flush=True)
    return rows, detected


def target(rows: list[dict]) -> list[str]:
    """The issue's target: the zero-order search finds at least half the exact search's pairs in the same time."""
    best = max((r for r in rows if r["model"].startswith("graph (exact")), key=lambda r: r["idis"])
    lines = ["", f"Target (at least half of the best exact search's {best['idis']} pairs, `{best['method']}` in "
             f"{best['seconds']} s, in the same time):"]
    for r in rows:
        if r["method"] == "zero_order_image" and "idis_at_exact_time" in r:
            share = r["idis_at_exact_time"] / max(best["idis"], 1)
            lines.append(f"* {r['model']} ({r['options']}): {r['idis_at_exact_time']} pairs, {share:.2f} of the exact "
                         f"search's: {'met' if share >= 0.5 else 'not met'}")
    return lines


def options_text(options: dict) -> str:
    return ", ".join(f"{k}={round(v, 4) if isinstance(v, float) else v}" for k, v in options.items()) or "defaults"


def valid(black, result) -> dict:
    """The pairs the interpreter confirms (decisions differ) and those within the default pixel budget."""
    if not len(result):
        return {"confirmed": 0, "within_budget": 0}
    n = len(result)
    decided = black.predict_proba(np.concatenate([result.inputs, result.counterparts])).argmax(axis=1)
    seeds = np.asarray(result.extras["seeds"])[result.seed_ids]
    linf = np.abs(result.inputs - seeds).reshape(n, -1).max(axis=1)
    return {"confirmed": int((decided[:n] != decided[n:]).sum()),
            "within_budget": int((linf <= PixelBudget().linf + 1e-9).sum())}


def found_by(result, seconds: float) -> int:
    """The pairs ``result`` had found ``seconds`` into its run (its timeline)."""
    t = result.timeline
    before = t[t["elapsed"] <= seconds]
    return int(before["found"].iloc[-1]) if len(before) else 0


#: the audit's settings: name -> the data set (its 100 faces are the seeds)
SETTINGS = {"LFW faces filling the frame (128 px)": lambda: load_tinted_lfw(size=128, augment=1),
            "38-px faces on photos, noise 0.03": lambda: load_lfw_scenes(38, noise=0.03),
            "25-px faces on photos, noise 0.03": lambda: load_lfw_scenes(25, noise=0.03)}


def flips(data) -> dict:
    exact = ExactFlip(data)
    return {"tone": exact, "exposure control": FlipPart(exact, "exposure"), "hue only": FlipPart(exact, "hue")}


def why(black, result) -> dict:
    """How the exact search's pairs sit: the seeds' P(face), the pairs' two P(face) (interpreter), how many
    pairs the interpreter confirms, the search's change (L-inf, L2) and the step that found them."""
    if not len(result):
        return {"pairs": 0}
    seeds = np.asarray(result.extras["seeds"])[result.seed_ids]
    n = len(result)
    p = black.predict_proba(np.concatenate([seeds, result.inputs, result.counterparts]))[:, 1]
    ps, px, pc = p[:n], p[n:2 * n], p[2 * n:]
    delta = (result.inputs - seeds).reshape(n, -1)
    q = lambda v: [round(float(x), 3) for x in np.quantile(v, [0.1, 0.5, 0.9])]  # noqa: E731
    return {"pairs": n, "seed_p": q(ps), "input_p": q(px), "twin_p": q(pc), "gap": q(np.abs(px - pc)),
            "near_threshold": float(np.mean(np.maximum(np.abs(px - 0.5), np.abs(pc - 0.5)) < 0.1)),
            "confirmed_by_interpreter": float(np.mean((px > 0.5) != (pc > 0.5))),
            "bias_linf_255": q(np.abs(delta).max(axis=1) * 255), "bias_l2": q(np.sqrt((delta ** 2).sum(axis=1))),
            "iteration": q([result.details(i)["iteration"] for i in range(n)])}


def shifts(black) -> list[dict]:
    """Per setting and flip direction (light -> dark, dark -> light): the mean change of P(face) (interpreter) that
    each flip makes on the faces as they are, and the tone flip's minus the exposure control's (paired, the same
    faces), each with a 95 % normal interval: a finer measure than decisions that flip."""
    out = []
    for name, load in SETTINGS.items():
        data = load()
        faces = np.flatnonzero(data.y == 1)
        tone = data.attribute[faces]
        p = black.predict_proba(data.X[faces])[:, 1]
        moved = {f: black.predict_proba(flip.flip(data.X[faces], index=faces).X_flipped)[:, 1] - p
                 for f, flip in flips(data).items()}
        moved["tone minus exposure control"] = moved["tone"] - moved["exposure control"]
        for value, direction in ((0, "light -> dark"), (1, "dark -> light")):
            for f, d in moved.items():
                d = d[tone == value]
                half = 1.959964 * d.std(ddof=1) / np.sqrt(len(d))
                out.append({"setting": name, "direction": direction, "flip": f, "faces": len(d),
                            "mean": round(float(d.mean()), 4), "low": round(float(d.mean() - half), 4),
                            "high": round(float(d.mean() + half), 4)})
    return out


def table_rows(comparison, kind: str) -> list[dict]:
    t = comparison.table.reset_index(names="flip")
    return [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()} | {"kind": kind}
            for row in t.to_dict("records")]


def audit(black, white, budgets) -> dict:
    """Per setting: natural rates of the tone flip and its controls (interpreter), the exact search
    (``eidig_image`` on the converted graph) with each, the pairs' placement (``why``); on the first setting,
    the tone flip and the exposure control at smaller pixel budgets too."""
    out = []
    for k, (name, load) in enumerate(SETTINGS.items()):
        data = load()
        faces = np.flatnonzero(data.y == 1)
        seeds, tone = data.X[faces], data.attribute[faces]
        p = black.predict_proba(seeds)[:, 1]
        dom = ImageDomain.from_data(data, ExactFlip(data))
        natural = compare_flips(black, dom, seeds, flips(data), max_iter=0)
        searched = compare_flips(white, dom, seeds, flips(data), method="eidig_image")
        entry = {"setting": name, "faces": len(faces), "detected_light": float((p[tone == 0] > 0.5).mean()),
                 "detected_dark": float((p[tone == 1] > 0.5).mean()), "seed_p": [round(float(x), 3) for x in
                                                                                   np.quantile(p, [0.1, 0.5, 0.9])],
                 "natural": table_rows(natural, "natural"), "searched": table_rows(searched, "search, L-inf 8/255"),
                 "natural_tone_vs_control": natural.apart("tone", "exposure control", "natural"),
                 "search_tone_vs_control": searched.apart("tone", "exposure control"),
                 "why": {f: why(black, r) for f, r in searched.results.items()}}
        print(json.dumps({k: v for k, v in entry.items() if k != "why"})[:2000], flush=True)
        for b in budgets if k == 0 else ():
            two = {f: flip for f, flip in flips(data).items() if f != "hue only"}
            small = compare_flips(white, dom, seeds, two, method="eidig_image",
                                  constraints=[PixelBudget(linf=b / 255), AttributeConfirmed()])
            entry["searched"] += table_rows(small, f"search, L-inf {b:g}/255")
            entry[f"search_tone_vs_control_{b:g}"] = small.apart("tone", "exposure control")
        out.append(entry)
    return {"settings": out}


def markdown(report: dict) -> str:
    lines = ["# BlazeFace (MediaPipe face_detection_short_range.tflite) in fairnb", ""]
    header = (f"Model: `{BLAZEFACE.requirement}` wheel, SHA-256 `{BLAZEFACE.sha256}` (Apache-2.0). Machine: "
              f"{(report.get('machine') or machine())['cpus']} CPUs (shared)")
    if not report.get("speed"):                 # a report may hold only the parts that were run
        return "\n".join(lines + [header + ". Indicative numbers.", ""] + searches_markdown(report)) + "\n"
    s, a = report["speed"], report["agreement"]
    lines += [f"{header}; `uptime` before: `{report['uptime_before']}`, after: `{report['uptime_after']}`. "
              f"Indicative numbers. Command: `{report['command']}`.", "",
              "## Speed (images/s, CPU)", "", "| interpreter forward | graph forward | graph pixel gradients |",
              "|---|---|---|", f"| {s['interpreter_forward']} | {s['graph_forward']} | {s['graph_gradient']} |", "",
              f"## Converted graph vs interpreter ({a['images']} LFW crops on 128 x 128 canvases)", "",
              "| max abs P(face) | max abs best logit | max abs logit (any anchor) | decisions that differ | "
              "faces detected | non-faces detected |", "|---|---|---|---|---|---|",
              f"| {a['max_abs_p_face']:.2e} | {a['max_abs_best_logit']:.2e} | {a['max_abs_logit']:.2e} | "
              f"{a['decisions_differ']} | {a['detected_faces']:.2f} | {a['detected_non_faces']:.2f} |", ""]
    return "\n".join(lines + searches_markdown(report)) + "\n"


def searches_markdown(report: dict) -> list[str]:
    """The searches' and the audit's sections of the report (each only when its part was run)."""
    lines = []
    if report.get("searches"):
        d = report["seed_detection"]
        run = report.get("searches_run") or {"command": report["command"], "uptime_before": report["uptime_before"],
                                             "uptime_after": report["uptime_after"]}
        lines += ["## IDIs per minute (tinted LFW faces at 128 x 128, exact re-tinting flip, default constraints)", "",
                  f"Command: `{run['command']}`; `uptime` before: `{run['uptime_before']}`, after: "
                  f"`{run['uptime_after']}`.", "",
                  f"The {d['faces']} seed faces (each LFW face crop filling the frame, tinted light or dark): detected "
                  f"{d['light']:.2f} of the light, {d['dark']:.2f} of the dark ones (interpreter, p > 0.5).", "",
                  "| method | model | options | seeds | IDIs | confirmed by the interpreter | within 8/255 | IDIs when "
                  "the best exact search ended | checked | model rows | seconds | ended | IDIs/minute |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        lines += [f"| `{r['method']}` | {r['model']} | {r.get('options', 'defaults')} | {r['seeds']} | {r['idis']} | "
                  f"{r.get('confirmed', '')} | {r.get('within_budget', '')} | {r.get('idis_at_exact_time', '')} | "
                  f"{r['tried']} | {r['model_rows']} | {r['seconds']} | {r['status']} | {r['idis_per_minute']} |"
                  for r in report["searches"]]
        lines += ["", "A run that `completed` searched every seed within its time budget (at most one IDI per seed); one "
                  "that ended on its `budget` was stopped by it. `zero_order_image` spends `2 * n_directions` model rows "
                  "(default 40) per image and gradient estimate, which the model rows column shows; the cheap estimate "
                  "`n_directions` per pair (one estimate per pair, forward differences from the check's output); the "
                  "exact-gradient searches need the converted graph."] + target(report["searches"])
    if report.get("audit"):
        lines += [""] + audit_markdown(report["audit"]) + reading(report["audit"])
    return lines


def _interval(row, rate):
    return f"{row[rate + '_rate']:.2f} [{row[rate + '_low']:.2f}, {row[rate + '_high']:.2f}]"


def audit_markdown(a: dict) -> list[str]:
    """The tone-vs-exposure section (see ``audit``)."""
    lines = ["## Tone or exposure? The tone flip beside its exposure-matched control", "",
             f"Command: `{a['command']}`; `uptime` before: `{a['uptime_before']}`, after: `{a['uptime_after']}`.", "",
             "Flips (`fairnb.images.FlipPart`, per pixel, luminance Y = 0.299 R + 0.587 G + 0.114 B): **tone** is the "
             "exact re-tint (light <-> dark: darker and browner, or the reverse); the **exposure control** rescales "
             "the seed to the tone twin's luminance, pixel by pixel (the same brightness and contrast change, the "
             "seed's own hue); **hue only** is the tone twin rescaled to the seed's luminance. Natural rate: the share "
             "of the 100 seed faces whose flipped twin gets another decision (interpreter). Search: `eidig_image` "
             "on the converted graph (exact gradients), every face a seed, the default constraints (L-inf 8/255 "
             "unless the row says otherwise), the share of the searched faces that end in a pair. 95 % Wilson "
             "intervals; a pair is immaterial when its two P(face) differ by less than 0.1.", ""]
    if a.get("shifts"):
        lines += ["### How far each flip moves P(face) on the faces as they are", "",
                  f"Command: `{a['shifts_command']}`. Mean change of P(face) (interpreter) by each flip, with a 95 % "
                  "normal interval; *tone minus exposure control* is paired (the same faces): an interval that holds 0 "
                  "says the tone moves the score no more than its exposure change does.", "",
                  "| setting | direction | flip | faces | mean change of P(face) [95 %] |", "|---|---|---|---|---|"]
        lines += [f"| {r['setting']} | {r['direction']} | {r['flip']} | {r['faces']} | {r['mean']:+.4f} "
                  f"[{r['low']:+.4f}, {r['high']:+.4f}] |" for r in a["shifts"]]
        lines.append("")
    for e in a["settings"]:
        lines += [f"### {e['setting']}", "",
                  f"Detected (interpreter, P(face) > 0.5): {e['detected_light']:.2f} of the light, "
                  f"{e['detected_dark']:.2f} of the dark faces; the faces' P(face), 10/50/90 %: {e['seed_p']}.", "",
                  "| flip | run | natural rate [95 %] | pairs / searched | pair rate [95 %] | immaterial pairs | "
                  "median abs p - p' | median L-inf of the search's change | seconds |", "|---|---|---|---|---|---|---|---|---|"]
        for r in e["natural"]:
            lines.append(f"| {r['flip']} | natural | {_interval(r, 'natural')} | | | | | | {r['seconds']} |")
        for r in e["searched"]:
            lines.append(f"| {r['flip']} | {r['kind']} | | {r['pairs']} / {r['searched']} | {_interval(r, 'pair')} | "
                         f"{r['immaterial_pairs']} | {r['median_gap']:.3f} | {r['median_bias_linf'] * 255:.1f}/255 | "
                         f"{r['seconds']} |")
        budgets = [k for k in e if k.startswith("search_tone_vs_control_")]
        lines += ["", f"Tone vs exposure control: natural rates **{e['natural_tone_vs_control']}**, searched (8/255) "
                  f"**{e['search_tone_vs_control']}**" + "".join(f", searched ({k.rsplit('_', 1)[1]}/255) **{e[k]}**"
                                                                   for k in budgets) + ".", "",
                  "Where the exact search's pairs sit (interpreter; 10/50/90 % quantiles):", "",
                  "| flip | pairs | seeds' P(face) | inputs' P(face) | twins' P(face) | abs p - p' | both within 0.1 of 0.5 | "
                  "confirmed by the interpreter | L-inf x 255 | L2 | step found |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for f, w in e["why"].items():
            if w["pairs"]:
                lines.append(f"| {f} | {w['pairs']} | {w['seed_p']} | {w['input_p']} | {w['twin_p']} | {w['gap']} | "
                             f"{w['near_threshold']:.2f} | {w['confirmed_by_interpreter']:.2f} | {w['bias_linf_255']} | "
                             f"{w['bias_l2']} | {w['iteration']} |")
        lines.append("")
    return lines


def _direction(r: dict) -> str:
    if r["low"] <= 0 <= r["high"]:
        return f"no change distinguishable from 0 ({r['mean']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}])"
    side = "higher" if r["mean"] > 0 else "lower"
    return f"the dark twin scored {side} ({r['mean']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}])"


def reading(a: dict) -> list[str]:
    """The audit's findings in words, every number read from the report."""
    first = a["settings"][0]
    w, runs = first["why"]["tone"], {(r["flip"], r["kind"]): r for r in first["searched"]}
    small = [r for r in first["searched"] if r["kind"] != "search, L-inf 8/255"]
    lines = ["## Reading (generated from the tables above)", "",
             f"**Why the exact search finds a pair on almost every face.** On the frame-filling faces the detection "
             f"rate is {first['detected_light']:.2f} / {first['detected_dark']:.2f} (light / dark), but the faces' "
             f"P(face) is only {first['seed_p'][1]:.2f} at the median ({first['seed_p'][0]:.2f} at the 10th "
             f"percentile): detected, close to the threshold. EIDIG's step lowers both faces' P(face) together until "
             f"they straddle 0.5: the tone pairs' P(face) are {w['input_p'][1]:.2f} and {w['twin_p'][1]:.2f} at the "
             f"median, {w['near_threshold']:.0%} of the pairs have both within 0.1 of 0.5, "
             f"{runs[('tone', 'search, L-inf 8/255')]['immaterial_pairs']} of {w['pairs']} are immaterial (|p - p'| < 0.1), "
             f"and the median |p - p'| is {w['gap'][1]:.3f}. The search's change reaches the L-inf budget "
             f"(median {w['bias_linf_255'][1]:.1f}/255) with a small L2 norm (median {w['bias_l2'][1]:.2f}, of "
             f"{np.sqrt(128 * 128 * 3) * 8 / 255:.2f} for the whole budget), in {w['iteration'][1]:.0f} steps at the "
             "median; the interpreter confirms every pair. The budget is not what stops it: "
             + "; ".join(f"{r['flip']} at {r['kind'].split()[-1]}: {r['pairs']} / {r['searched']} faces"
                         for r in small)
             + ". A pair at the threshold says the detector is fragile there, not that it treats the tones "
             f"differently: the exposure-matched control finds {first['why']['exposure control']['pairs']} pairs "
             f"on the same faces ({first['search_tone_vs_control']} with the tone flip's interval).", ""]
    verdicts = [f"{e['setting']}: natural rates {e['natural_tone_vs_control']}, searched {e['search_tone_vs_control']}"
                for e in a["settings"]]
    lines += ["**Tone or exposure.** Tone flip vs exposure-matched control: " + "; ".join(verdicts) + "."]
    if a.get("shifts"):
        sh = {(r["setting"], r["direction"], r["flip"]): r for r in a["shifts"]}
        parts = []
        for e in a["settings"]:
            k = (e["setting"], "light -> dark")
            parts.append(f"{e['setting']}: tone {sh[k + ('tone',)]['mean']:+.3f}, exposure control "
                         f"{sh[k + ('exposure control',)]['mean']:+.3f}, hue only {sh[k + ('hue only',)]['mean']:+.3f}")
        lines += ["", "On the faces as they are, light -> dark, the mean change of P(face) is (" + "; ".join(parts)
                  + "): the darkening and the hue change move the score in opposite directions and the tone flip "
                  "gets what is left of the two (the paired *tone minus exposure control* rows give the intervals). "
                  "The tone flip's own change, light -> dark, per setting: "
                  + "; ".join(f"{e['setting']}: {_direction(sh[(e['setting'], 'light -> dark', 'tone')])}"
                              for e in a["settings"]) + "."]
    return lines + [""]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agree", type=int, default=500, help="images compared (graph vs interpreter)")
    parser.add_argument("--speed", type=int, default=128, help="images timed")
    parser.add_argument("--minutes", type=float, default=1.0, help="time budget per search (0: no searches)")
    parser.add_argument("--budgets", default="2,4", help="smaller pixel budgets (of 255) of the audit's first setting")
    parser.add_argument("--parts", default="speed,searches,audit,shifts", help="speed (speed and agreement), searches, audit, shifts; "
                        "a part not run keeps its entry of the earlier report in --out")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "blazeface"))
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    command = "python benchmarks/blazeface.py " + " ".join(argv if argv is not None else sys.argv[1:])
    earlier = Path(args.out).with_suffix(".json")
    report = json.loads(earlier.read_text()) if not {"speed", "searches", "audit"} <= parts and earlier.exists() else {}
    black, white = blazeface(white_box=False), blazeface(white_box=True)
    if "speed" in parts:
        report.update(machine=machine(), uptime_before=uptime(), command=command)
        X, face = canvases(max(args.agree, args.speed))
        report["speed"] = speed(black, white, X[: args.speed])
        print(report["speed"], flush=True)
        report["agreement"] = agreement(black, white, X[: args.agree], face[: args.agree])
        print(report["agreement"], flush=True)
        report["uptime_after"] = uptime()
    if "searches" in parts and args.minutes > 0:
        before = uptime()
        report["searches"], report["seed_detection"] = searches(black, white, args.minutes)
        report["searches_run"] = {"command": command, "uptime_before": before, "uptime_after": uptime()}
    if "audit" in parts:
        report["audit"] = run_audit(black, white, args, command)
    if "shifts" in parts:
        if "audit" not in report:
            parser.error(f"--parts shifts adds to an audit: run the audit part too, or give an --out whose "
                         f"report holds one ({earlier} holds none)")
        report["audit"].update(shifts=shifts(black), shifts_command=command)
    save_report(args.out, report, markdown(report))


def run_audit(black, white, args, command) -> dict:
    before = uptime()
    out = audit(black, white, [float(b) for b in args.budgets.split(",") if b])
    return {"command": command, "uptime_before": before, "uptime_after": uptime(), **out}


if __name__ == "__main__":
    main()
