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
   ``zero_order_image`` on the interpreter's black box and on the graph's outputs; each for ``--minutes``.

The machine is shared (``uptime`` is recorded before and after): the numbers are indicative. Usage::

    python benchmarks/blazeface.py --agree 500 --minutes 1 --out benchmarks/results/blazeface
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fairnb.bench import machine, save_report  # noqa: E402
from fairnb.domains import ImageDomain  # noqa: E402
from fairnb.images import ExactFlip  # noqa: E402
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


def searches(black, white, minutes: float) -> tuple[list[dict], dict]:
    data = load_tinted_lfw(size=128, augment=1)
    dom = ImageDomain.from_data(data, ExactFlip(data))
    seeds = data.X[data.y == 1]
    p = black.predict_proba(seeds)[:, 1]
    tone = data.attribute[data.y == 1]
    detected = {"light": float((p[tone == 0] > 0.5).mean()), "dark": float((p[tone == 1] > 0.5).mean()),
                "faces": len(seeds)}
    print(detected, flush=True)
    runs = [("adf_image", white, "graph (exact gradients)"), ("eidig_image", white, "graph (exact gradients)"),
            ("zero_order_image", black, "interpreter (outputs only)"),
            ("zero_order_image", FunctionModel(white.predict_proba), "graph's outputs only")]
    rows = []
    for method, model, backend in runs:
        r = get_method(method)(random_state=0, progress=False, max_time=60 * minutes).run(model, dom, seeds=seeds)
        s = r.summary()
        rows.append({"method": method, "model": backend, "seeds": len(seeds), "idis": r.count(), "tried": r.tried,
                     "model_rows": s.get("model_rows"), "seconds": round(r.elapsed, 1),
                     "idis_per_minute": round(60 * r.count() / max(r.elapsed, 1e-9), 1), "status": r.status})
        print(rows[-1], flush=True)
    return rows, detected


def markdown(report: dict) -> str:
    s, a = report["speed"], report["agreement"]
    lines = ["# BlazeFace (MediaPipe face_detection_short_range.tflite) in fairnb", "",
             f"Model: `{BLAZEFACE.requirement}` wheel, SHA-256 `{BLAZEFACE.sha256}` (Apache-2.0). Machine: "
             f"{report['machine']['cpus']} CPUs (shared); `uptime` before: `{report['uptime_before']}`, after: "
             f"`{report['uptime_after']}`. Indicative numbers. Command: `{report['command']}`.", "",
             "## Speed (images/s, CPU)", "", "| interpreter forward | graph forward | graph pixel gradients |",
             "|---|---|---|", f"| {s['interpreter_forward']} | {s['graph_forward']} | {s['graph_gradient']} |", "",
             f"## Converted graph vs interpreter ({a['images']} LFW crops on 128 x 128 canvases)", "",
             "| max abs P(face) | max abs best logit | max abs logit (any anchor) | decisions that differ | "
             "faces detected | non-faces detected |", "|---|---|---|---|---|---|",
             f"| {a['max_abs_p_face']:.2e} | {a['max_abs_best_logit']:.2e} | {a['max_abs_logit']:.2e} | "
             f"{a['decisions_differ']} | {a['detected_faces']:.2f} | {a['detected_non_faces']:.2f} |", ""]
    if report.get("searches"):
        d = report["seed_detection"]
        lines += ["## IDIs per minute (tinted LFW faces at 128 x 128, exact re-tinting flip, default constraints)", "",
                  f"The {d['faces']} seed faces (each LFW face crop filling the frame, tinted light or dark): detected "
                  f"{d['light']:.2f} of the light, {d['dark']:.2f} of the dark ones (interpreter, p > 0.5).", "",
                  "| method | model | seeds | IDIs | checked | model rows | seconds | ended | IDIs/minute |",
                  "|---|---|---|---|---|---|---|---|---|"]
        lines += [f"| `{r['method']}` | {r['model']} | {r['seeds']} | {r['idis']} | {r['tried']} | {r['model_rows']} | "
                  f"{r['seconds']} | {r['status']} | {r['idis_per_minute']} |" for r in report["searches"]]
        lines += ["", "A run that `completed` searched every seed within its time budget (at most one IDI per seed); one "
                  "that ended on its `budget` was stopped by it. `zero_order_image` spends `2 * n_directions` model rows "
                  "(default 40) per image and gradient estimate, which the model rows column shows; the exact-gradient "
                  "searches need the converted graph."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agree", type=int, default=500, help="images compared (graph vs interpreter)")
    parser.add_argument("--speed", type=int, default=128, help="images timed")
    parser.add_argument("--minutes", type=float, default=1.0, help="time budget per search (0: no searches)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "blazeface"))
    args = parser.parse_args(argv)
    report = {"machine": machine(), "uptime_before": uptime(), "command": "python benchmarks/blazeface.py "
              + " ".join(argv if argv is not None else sys.argv[1:])}
    black, white = blazeface(white_box=False), blazeface(white_box=True)
    X, face = canvases(max(args.agree, args.speed))
    report["speed"] = speed(black, white, X[: args.speed])
    print(report["speed"], flush=True)
    report["agreement"] = agreement(black, white, X[: args.agree], face[: args.agree])
    print(report["agreement"], flush=True)
    report["searches"], report["seed_detection"] = searches(black, white, args.minutes) if args.minutes > 0 else ([], {})
    report["uptime_after"] = uptime()
    save_report(args.out, report, markdown(report))


if __name__ == "__main__":
    main()
