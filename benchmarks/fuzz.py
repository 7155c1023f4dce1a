"""Replay the bad-input cases of issue #25 ("still silent or unhelpful") and record how fairnb answers each.

Every case is one small function that feeds fairnb one bad input. Each runs in a fresh subprocess with a
timeout and gets one verdict:

* ``clear``: an exception raised by fairnb itself (a ``raise`` statement in ``fairnb/``) whose message names the
  problem (the case's ``names`` pattern), or, for cases whose answer is a warning or a status, that answer;
* ``unhelpful``: an exception from deep inside numpy, pandas, pathlib, json, a model, ... or one that does not
  name the problem;
* ``silent``: the bad input was accepted;
* ``hang``: the case ran past the timeout;
* ``lost``: a Ctrl-C took away a search's Result (``KeyboardInterrupt`` out of ``run()`` after the search began,
  or the process crashed).

Usage::

    python benchmarks/fuzz.py                     # every case -> benchmarks/results/fuzz.md
    python benchmarks/fuzz.py --only rp_seed_number,nan_text --no-write
    python benchmarks/fuzz.py --jobs 4            # four cases at once

Needs ``FAIRNB_MODELS`` (the published census model, for the ``.h5`` case); the Keras cases import TensorFlow.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FAIRNB = str(ROOT / "fairnb")


@dataclass
class Case:
    name: str
    listed: str        # where issue #25 lists it: "silent" or "unhelpful"
    what: str          # the bad input, in words
    run: callable
    names: str         # a pattern the answer's message must match to count as naming the problem
    answer: str = "error"   # "error", or "warning" (a warning from fairnb is the intended answer)


CASES: list[Case] = []


def case(listed: str, what: str, names: str, answer: str = "error"):
    def register(run):
        CASES.append(Case(run.__name__, listed, what, run, names, answer))
        return run
    return register


class Answered(Exception):
    """Raised by a case whose right answer is not an exception (e.g. a search that ends ``interrupted``)."""


class Lost(Exception):
    """Raised by a case in which a Ctrl-C took a search's Result away (verdict ``lost``)."""


# ---------------------------------------------------------------------------------------------- small parts
WORDS = ["the", "muslim", "christian", "cook", "chef", "is", "kind", "nice"]
TEXT = "the muslim cook is kind"


def text_domain(max_len: int = 5):
    from fairnb.domains import TextDomain
    from fairnb.text import Vocabulary

    vocab = Vocabulary.build([WORDS])
    E = np.random.default_rng(0).normal(size=(len(vocab), 4))
    return TextDomain.with_embedding_neighbours(vocab, E, {"religion": ["muslim", "christian"]}, max_len, k=3)


def biased_text_model(texts):
    return [0.9 if "muslim" in t else 0.1 for t in texts]


def rp(**kw):
    from fairnb.search import get_method

    return get_method("rp")(n_local=5, random_state=0, progress=False, **kw)


def synthetic():
    import fairnb

    return fairnb.datasets.make_synthetic(n=300, random_state=0)


def tabular_search(method: str, **params):
    from fairnb.search import get_method
    from fairnb.search.registry import seeds_for

    data = synthetic()
    return get_method(method)(random_state=0, progress=False, **params).run(
        data.info["true_model"], data.domain, seeds=seeds_for(method, data.X[:50]))


def image_parts(size: int = 4):
    """A numpy detector that reads red, an f_sa that reads red, and their domain (as tests/image_checks.py)."""
    from fairnb.domains import ImageDomain
    from fairnb.images import FGSMFlip
    from fairnb.models import NumpyMLP

    d = size * size * 3
    red = np.zeros(d)
    red[0::3] = 1.0
    f_sa = NumpyMLP([red[:, None]], [np.array([-0.4 * d / 3])])
    detector = NumpyMLP([np.stack([red, 1 - red], axis=1), np.array([[1.0], [0.1]])], [np.zeros(2), np.array([-0.4 * d / 3])])
    dom = ImageDomain((size, size, 3), FGSMFlip(step=0.05, attribute_model=f_sa), attribute="tint")
    return detector, dom


def saved_image_result(folder: Path) -> Path:
    from fairnb.search import get_method

    detector, dom = image_parts()
    seeds = np.random.default_rng(0).uniform(0.2, 0.6, (30, 4, 4, 3)).astype(np.float32).astype(float)
    r = get_method("adf_image")(random_state=0, progress=False).run(detector, dom, seeds=seeds)
    assert r.count() > 0, "the image case found no pairs to save"
    return r.save(folder / "image.csv")


def saved_text_result(folder: Path) -> Path:
    r = rp().run(biased_text_model, text_domain(), seeds=[TEXT, "the christian chef is nice"])
    assert r.count() > 1, "the text case found too few pairs to save"
    return r.save(folder / "text.csv")


def edit_json(path: Path, change) -> None:
    meta_path = Path(str(path) + ".json")
    meta = json.loads(meta_path.read_text())
    change(meta)
    meta_path.write_text(json.dumps(meta))


# ---------------------------------------------------------------------------------------------- silent
@case("silent", "a model that returns 2 columns, then 3", r"column|class")
def model_changes_columns():
    data = synthetic()
    calls = {"n": 0}

    def model(X):
        calls["n"] += 1
        P = np.tile([0.4, 0.6], (len(X), 1)) if calls["n"] < 3 else np.tile([0.2, 0.3, 0.5], (len(X), 1))
        P[:, 0] = np.where(np.asarray(X)[:, 0] % 2, 0.9, 0.1)
        return P / P.sum(axis=1, keepdims=True)

    from fairnb.search import get_method

    r = get_method("random")(n_samples=5000, batch_size=100, random_state=0, progress=False).run(model, data.domain)
    r.pairs


@case("silent", "aequitas(temperature=nan)", r"temperature")
def aequitas_temperature_nan():
    tabular_search("aequitas", temperature=float("nan"), n_seeds=5, n_local=10)


@case("silent", "aequitas(attribute_change=nan)", r"attribute_change")
def aequitas_attribute_change_nan():
    tabular_search("aequitas", attribute_change=float("nan"), n_seeds=5, n_local=10)


@case("silent", "sg(threshold=nan)", r"threshold")
def sg_threshold_nan():
    tabular_search("sg", threshold=float("nan"), limit=20, n_samples=100)


@case("silent", "an .h5 model with 64 bytes flipped (5 trials): any that loads with other outputs", r"\.h5|damaged|corrupt|checksum")
def h5_bit_flips():
    import shutil

    from fairnb.models import load_model

    source = Path(os.environ.get("FAIRNB_MODELS", "/work/shared/models")) / "adult_model.h5"
    model = load_model(source)
    X = np.random.default_rng(0).integers(0, 5, (100, model.n_features))
    want = model.predict_proba(X)
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for trial in range(5):
            path = Path(tmp) / f"m{trial}.h5"
            shutil.copy(source, path)
            data = bytearray(path.read_bytes())
            rng = np.random.default_rng(trial)
            for at in rng.choice(len(data), 64, replace=False):
                data[at] ^= 1 << int(rng.integers(8))
            path.write_bytes(bytes(data))
            try:
                got = load_model(path).predict_proba(X)
            except Exception as e:  # noqa: BLE001 - the answer being judged
                errors.append(e)
                continue
            if not np.allclose(got, want, atol=1e-6):
                return f"trial {trial} loaded; outputs off by up to {np.abs(got - want).max():.2f}"
    if errors:
        raise errors[0]


@case("silent", "fairnb search --protected ''", r"--protected")
def cli_empty_protected():
    from fairnb.cli import main

    code = main(["search", "--dataset", "census", "--model", "m.h5", "--protected", ""])
    if code != 0:
        raise Answered(f"exit status {code}")


@case("silent", "Ctrl-C landing in z3's AstRef.__del__ during SG (a finaliser swallows the KeyboardInterrupt)",
      r"interrupted")
def sg_ctrl_c_in_z3_finaliser():
    import signal

    import z3

    from fairnb.search import get_method

    original, calls = z3.AstRef.__del__, {"n": 0}

    def finaliser(self):
        calls["n"] += 1
        if calls["n"] == 50:               # Ctrl-C pressed while z3 frees an expression
            os.kill(os.getpid(), signal.SIGINT)
        original(self)

    z3.AstRef.__del__ = finaliser
    data = synthetic()
    r = get_method("sg")(limit=None, n_samples=200, random_state=0, progress=False, max_tried=1000).run(
        data.info["true_model"], data.domain, seeds=data.X)
    if calls["n"] < 50:
        raise RuntimeError(f"the case did not reach its Ctrl-C: z3 freed {calls['n']} expressions")
    if r.status == "interrupted":
        raise Answered(f"status interrupted after {r.tried} candidates")
    return f"status {r.status} after {r.tried} candidates (the Ctrl-C was lost)"


@case("silent", "a NaN row in the embedding matrix of with_embedding_neighbours", r"NaN")
def nan_embedding():
    from fairnb.domains import TextDomain
    from fairnb.text import Vocabulary

    vocab = Vocabulary.build([WORDS])
    E = np.random.default_rng(0).normal(size=(len(vocab), 4))
    E[3] = np.nan
    TextDomain.with_embedding_neighbours(vocab, E, {"religion": ["muslim", "christian"]}, 5, k=3)


@case("silent", 'Vocabulary.build([["the", None]])', r"None")
def vocabulary_none_token():
    from fairnb.text import Vocabulary

    Vocabulary.build([["the", None]])


@case("silent", "rp seeds [text, 5]", r"item 1")
def rp_seed_number():
    rp().run(biased_text_model, text_domain(), seeds=[TEXT, 5])


@case("silent", "rp seeds [text, nan]", r"item 1")
def rp_seed_nan():
    rp().run(biased_text_model, text_domain(), seeds=[TEXT, float("nan")])


@case("silent", "float('nan') in a list of texts (discrimination_rate inputs)", r"item 1")
def nan_text():
    from fairnb.mitigation import discrimination_rate

    discrimination_rate(biased_text_model, text_domain(), inputs=[TEXT, float("nan")])


@case("silent", "a 500-token seed text whose identity term truncation cuts off", r"max_len|truncat|longer",
      answer="warning")
def long_text_loses_its_term():
    long = "the muslim cook " + "the cook is kind " * 125         # cut to its last 5 tokens
    rp().run(biased_text_model, text_domain(), seeds=[long, TEXT])


@case("silent", "a saved text Result whose vocabulary (JSON sidecar) is reordered", r"vocabulary|checksum|json")
def reordered_vocabulary_sidecar():
    from fairnb.results import Result

    with tempfile.TemporaryDirectory() as tmp:
        path = saved_text_result(Path(tmp))

        def reorder(meta):
            v = meta["domain"]["vocabulary"]
            v[2:] = v[:1:-1]
        edit_json(path, reorder)
        Result.load(path)


@case("silent", "a saved image Result with one base64 character changed in its CSV", r"image\.csv|checksum")
def image_csv_base64_changed():
    from fairnb.results import Result

    with tempfile.TemporaryDirectory() as tmp:
        path = saved_image_result(Path(tmp))
        text = path.read_text().splitlines()
        head = text[0].split(",")
        row = text[1].split(",")
        col = next(i for i, v in enumerate(row) if len(v) > 40)
        cell = row[col]
        row[col] = cell[:10] + ("A" if cell[10] != "A" else "B") + cell[11:]
        text[1] = ",".join(row)
        path.write_text("\n".join(text) + "\n")
        assert head
        Result.load(path)


@case("silent", "a saved image Result whose JSON sidecar states another shape", r"shape|checksum|json")
def image_sidecar_shape():
    from fairnb.results import Result

    with tempfile.TemporaryDirectory() as tmp:
        path = saved_image_result(Path(tmp))
        edit_json(path, lambda meta: meta["domain"].update(shape=[2, 8, 3]))
        Result.load(path)


@case("silent", "ImageDomain((16.5, 16, 3))", r"shape")
def image_shape_fraction():
    from fairnb.domains import ImageDomain

    ImageDomain((16.5, 16, 3))


@case("silent", "an FGSMFlip fitted on another detector, used to search this one", r"another detector",
      answer="warning")
def flipper_of_another_detector():
    from fairnb.domains import ImageDomain
    from fairnb.images import FGSMFlip, make_faces
    from fairnb.images.detector import train_face_detector
    from fairnb.search import get_method

    data = make_faces(n=120, size=16, random_state=0)
    one = train_face_detector(data, epochs=1, random_state=0)
    other = train_face_detector(data, epochs=1, random_state=1)
    faces = data.y == 1
    flip = FGSMFlip(epochs=1, head=(8,)).fit(one, data.X[faces], data.attribute[faces])
    get_method("adf_image")(n_seeds=5, max_iter=2, random_state=0, progress=False).run(
        other, ImageDomain.from_data(data, flip), seeds=data.X[faces][:5])


@case("silent", "non-face seeds (images of the data set without the attribute) given to an image search",
      r"non-face|no value")
def non_face_seeds():
    from fairnb.domains import ImageDomain
    from fairnb.images import make_faces
    from fairnb.search import get_method

    data = make_faces(n=40, size=8, random_state=0)
    detector, dom = image_parts(8)
    get_method("adf_image")(max_iter=2, random_state=0, progress=False).run(
        detector, ImageDomain.from_data(data, dom.flipper), seeds=data.X)


# ---------------------------------------------------------------------------------------------- unhelpful
@case("unhelpful", "make_synthetic(n=-5)", r"\bn\b")
def synthetic_negative_n():
    import fairnb

    fairnb.datasets.make_synthetic(n=-5)


@case("unhelpful", "a tabular model that returns strings", r"str|'yes'")
def tabular_model_returns_strings():
    from fairnb.search import get_method

    data = synthetic()
    get_method("random")(n_samples=200, random_state=0, progress=False).run(
        lambda X: np.array(["yes"] * len(X)), data.domain)


@case("unhelpful", "a text model that returns strings", r"str|'yes'")
def text_model_returns_strings():
    rp().run(lambda texts: ["yes"] * len(texts), text_domain(), seeds=[TEXT])


@case("unhelpful", "a tabular scikit-learn model searched on a text domain", r"text|string")
def tabular_model_on_text_domain():
    from sklearn.linear_model import LogisticRegression

    data = synthetic()
    model = LogisticRegression(max_iter=200).fit(data.X, data.y)
    rp().run(model, text_domain(), seeds=[TEXT])


@case("unhelpful", "random_state='abc'", r"random_state")
def random_state_text():
    from fairnb.search import get_method

    data = synthetic()
    get_method("random")(n_samples=100, random_state="abc").run(data.info["true_model"], data.domain)


@case("unhelpful", "random_state=-1", r"random_state")
def random_state_negative():
    from fairnb.search import get_method

    data = synthetic()
    get_method("random")(n_samples=100, random_state=-1).run(data.info["true_model"], data.domain)


@case("unhelpful", "run_search(method=None)", r"method")
def method_none():
    import fairnb

    data = synthetic()
    fairnb.run_search(data.info["true_model"], data.domain, method=None)


@case("unhelpful", "eidig(global_step='1')", r"global_step")
def eidig_global_step_text():
    tabular_search("eidig", global_step="1", n_seeds=5, n_local=10)


@case("unhelpful", "load_model('m.pkl') on a file that is no pickle", r"m\.pkl")
def load_model_bad_pickle():
    from fairnb.models import load_model

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.pkl"
        path.write_bytes(b".")
        load_model(path)


@case("unhelpful", "a benchmark CSV holding only its header", r"census_eidig\.csv|no rows|empty")
def header_only_benchmark_csv():
    from fairnb.datasets.benchmarks import load

    source = Path(os.environ.get("FAIRNB_DATA", "/work/shared/data")) / "census_eidig" / "census_eidig.csv"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "census_eidig"
        folder.mkdir()
        (folder / "census_eidig.csv").write_text(source.read_text().splitlines()[0] + "\n")
        load("census", data_dir=tmp)


@case("unhelpful", "uci.preprocess_adult on the German file", r"german|adult|columns")
def preprocess_adult_on_german():
    from fairnb.datasets import uci

    source = Path(os.environ.get("FAIRNB_DATA", "/work/shared/data")) / "raw_uci" / "german.data"
    uci.preprocess_adult(source)


@case("unhelpful", "ImageDomain(('a', 16, 3))", r"shape")
def image_shape_text():
    from fairnb.domains import ImageDomain

    ImageDomain(("a", 16, 3))


@case("unhelpful", "a text Result CSV with a garbage details column: load, then details(0)", r"text\.csv|details")
def garbage_details_column():
    import pandas as pd

    from fairnb.results import Result

    with tempfile.TemporaryDirectory() as tmp:
        path = saved_text_result(Path(tmp))
        frame = pd.read_csv(path)
        column = json.loads(Path(str(path) + ".json").read_text())["columns"]["info"]
        frame[column] = "{not json"
        frame.to_csv(path, index=False)
        Result.load(path).details(0)


@case("unhelpful", "MAFT(h=inf)", r"\bh\b")
def maft_h_inf():
    tabular_search("maft", h=float("inf"), n_seeds=5, n_local=10)


@case("unhelpful", "None among seed texts", r"item 1")
def none_among_texts():
    rp().run(biased_text_model, text_domain(), seeds=[TEXT, None])


# ---------------------------------------------------------------------------------------------- issue 34
# The cases issue #34 names ("Fuzzed as before"), and a sweep of every tabular method's count parameters at 10**12.
def keep_all_but(value):
    """A user constraint whose ``allowed`` returns ``value`` (not one bool per candidate)."""
    from fairnb.constraints import Constraint

    class Mine(Constraint):
        name = "mine"

        def allowed(self, domain, X, seeds, counterparts=None):
            return value(len(X)) if callable(value) else value
    return Mine()


def constraint_case(label: str, value):
    @case("issue34", f"a user constraint whose mask is {label}", r"constraint 'mine'")
    def run():
        tabular_search("aequitas", constraints=["default", keep_all_but(value)], n_seeds=5, n_local=10)
    run.__name__ = CASES[-1].name = "constraint_mask_" + "".join(c if c.isalnum() else "_" for c in label).strip("_")


for _label, _value in [("True", True), ("[False]", [False]), ("None", None), ("NaN", lambda n: np.full(n, np.nan)),
                       ("strings", lambda n: np.array(["yes"] * n)), ("one too short", lambda n: np.ones(n - 1, bool))]:
    constraint_case(_label, _value)


def dense_model(domain):
    """A small dense network (gradients for the white-box methods, a hidden layer for DICE) that reads sex."""
    from fairnb.models import NumpyMLP

    W1 = np.zeros((domain.n_features, 2))
    W1[domain.index("sex"), 0], W1[domain.index("education"), 1] = 3.0, 0.5
    return NumpyMLP([W1, np.ones((2, 1))], [np.zeros(2), np.array([-4.0])])


def within_budget(method: str, max_time: float, **params) -> None:
    """Run ``method`` with ``params`` and ``max_time``: ``Answered`` when it ended within 2 s of it, else the
    overrun as a silent answer (an error raised is judged as any)."""
    from fairnb.search import get_method
    from fairnb.search.registry import seeds_for

    data = synthetic()
    search = get_method(method)(random_state=0, progress=False, max_time=max_time, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()                   # run() alone: not the data set's creation nor the import
        r = search.run(dense_model(data.domain), data.domain, seeds=seeds_for(method, data.X[:50]))
    wall = time.perf_counter() - start - max_time
    said = [str(w.message) for w in caught if "site-packages" not in str(w.filename)]
    if wall <= 2.0:
        raise Answered(f"status {r.status} after {r.tried} candidates, {wall:+.1f} s past max_time")
    return f"ran {wall:.1f} s past max_time={max_time} (status {r.status}); warnings: {said or 'none'}"


@case("issue34", "limi(n_boundary=10**7, max_time=4): boundary codes built before the budget is checked",
      r"n_boundary")
def limi_huge_boundary():
    return within_budget("limi", 4, n_boundary=10**7)


@case("issue34", "vbtx(n_xor=10**12, max_time=3)", r"n_xor")
def vbtx_huge_xor():
    return within_budget("vbtx", 3, n_xor=10**12)


def huge_count_case(method: str, parameter: str):
    @case("issue34", f"{method}({parameter}=10**12, max_time=3)", rf"\b{parameter}\b")
    def run():
        return within_budget(method, 3, **{parameter: 10**12})
    run.__name__ = CASES[-1].name = f"huge_{method}_{parameter}"


def count_parameters() -> list[tuple[str, str]]:
    """``(method, parameter)`` for every whole-number parameter of every tabular method (one name per class)."""
    from numbers import Integral

    sys.path.insert(0, str(ROOT))
    from fairnb.search.registry import RECORDS

    seen, out = set(), []
    for record in RECORDS.values():
        if record.inputs != "tabular" or record.target in seen:
            continue
        seen.add(record.target)
        defaults = record.load()().get_params()
        out += [(record.name, k) for k, v in sorted(defaults.items())
                if isinstance(v, Integral) and not isinstance(v, bool) and k != "random_state"]
    return out


def huge_count_cases(only: list[str] | None) -> None:
    """Register the sweep's cases: every count parameter (``only``: those named ``huge_<method>_<parameter>``)."""
    pairs = ([tuple(n[len("huge_"):].split("_", 1)) for n in only if n.startswith("huge_")] if only is not None
             else count_parameters())
    for method, parameter in pairs:
        huge_count_case(method, parameter)


@case("issue34", "seeds= given to a method that draws its own inputs (aft, vbtx, random)", r"seeds")
def seeds_to_seedless_methods():
    from fairnb.search import get_method

    data = synthetic()
    for method in ("aft", "vbtx", "random"):
        try:
            get_method(method)(random_state=0, progress=False, max_tried=200).run(
                data.info["true_model"], data.domain, seeds=data.X[:50])
        except ValueError as e:
            if "seeds" not in str(e):
                raise
            continue
        return f"{method} accepted seeds= and ignored them"
    raise Answered("all three refuse seeds=, naming them")


@case("issue34", "a feature named 'p' (the pairs' probability columns are p and p')", r"\bp\b")
def feature_named_p():
    from fairnb.domains import Feature, TabularDomain
    from fairnb.search import get_method

    dom = TabularDomain([Feature("p", 0, 9), Feature("sex", 0, 1)], protected=["sex"])
    r = get_method("random")(n_samples=2000, random_state=0, progress=False).run(
        lambda X: np.where(np.asarray(X)[:, 1] == 1, 0.9, 0.1), dom)
    frame = r.pairs
    if frame.columns.duplicated().any():
        return f"duplicated columns in result.pairs: {list(frame.columns)}"
    rows = len(r.directions()) if hasattr(r, "directions") else 0
    if rows > 2:
        return f"directions() has {rows} rows for one binary protected attribute"
    raise Answered(f"columns {list(frame.columns)[:8]}; directions() {rows} rows")


def onnx_bytes() -> bytes:
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["logits"])], "linear",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [None, 2])],
        [helper.make_tensor("w", TensorProto.FLOAT, [2, 2], [1.0, 0.0, 0.0, 1.0])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def onnx_batch_case(value):
    @case("issue34", f"OnnxModel(batch_size={value!r})", r"batch_size")
    def run():
        from fairnb.models.onnx import OnnxModel

        OnnxModel(onnx_bytes(), batch_size=value).predict_proba(np.zeros((3, 2)))
    run.__name__ = CASES[-1].name = f"onnx_batch_size_{str(value).replace('-', 'minus').replace('.', '_')}"


for _value in (0, -5, 2.5):
    onnx_batch_case(_value)


@case("issue34", "an ONNX model asked about zero rows", r"rows")
def onnx_zero_rows():
    from fairnb.models.onnx import OnnxModel

    P = OnnxModel(onnx_bytes()).predict_proba(np.zeros((0, 2)))
    if P.shape != (0, 2):
        return f"shape {P.shape}"
    raise Answered("(0, 2) probabilities")


@case("issue34", "a two-input ONNX model", r"2 inputs|two inputs")
def onnx_two_inputs():
    from onnx import TensorProto, helper

    from fairnb.models.onnx import OnnxModel

    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["y"])], "two",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [None, 2]) for n in "ab"],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 2])])
    OnnxModel(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


@case("issue34", "load_model('m.onnx') on bytes that are no ONNX model", r"m\.onnx")
def onnx_not_onnx():
    from fairnb.models import load_model

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.onnx"
        path.write_bytes(b"not an onnx model at all")
        load_model(path)


@case("issue34", "fairnb.config.result_memory = True", r"result_memory")
def result_memory_true():
    import fairnb.config

    fairnb.config.result_memory = True
    tabular_search("random", n_samples=500)


@case("issue34", "dice (debug on by default) on a model without hidden layers", r"debug=False")
def dice_no_hidden_layers():
    from fairnb.models import NumpyMLP

    data = synthetic()
    d = data.domain.n_features
    w = np.zeros((d, 1))
    w[data.domain.index("sex")] = 2.0
    model = NumpyMLP([w], [np.array([-1.0])])
    from fairnb.search import get_method

    get_method("dice")(random_state=0, progress=False, n_seeds=20, n_local=10).run(model, data.domain, seeds=data.X[:50])


@case("issue34", "a Ctrl-C while a search releases the C heap as it ends (heap.release)", r"interrupted")
def ctrl_c_in_heap_release():
    from fairnb import heap
    from fairnb.search import get_method

    def release():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.1)
        return True

    heap.release = release
    data = synthetic()
    r = get_method("random")(n_samples=None, max_time=1.2, random_state=0, progress=False).run(
        data.info["true_model"], data.domain)
    raise Answered(f"status {r.status}, {r.count()} IDIs kept")


DOUBLE_SIGINT = """
import sys, time, numpy as np, fairnb
sys.path.insert(0, sys.argv[3])
from fuzz import dense_model
from fairnb.search import get_method
from fairnb.search.registry import seeds_for
data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
search = get_method(sys.argv[1])(max_time=float(sys.argv[2]), random_state=0, progress=False)
print("start", flush=True)
try:
    r = search.run(dense_model(data.domain), data.domain, seeds=seeds_for(search, data.X))
except KeyboardInterrupt:
    engine = getattr(search, "engine_", None)     # None: the Ctrl-C came before the search began (nothing to keep)
    print("lost" if engine is not None and engine.result.tried else "early", flush=True)
    raise SystemExit(3)
print("result", r.status, r.count(), flush=True)
"""


def double_sigint(method: str):
    @case("issue34", f"{method}: two Ctrl-C's (child process, SIGINT) 0.05 s apart, around the search's end",
          r"result")
    def run():
        lost = []
        for k, at in enumerate((0.3, 1.0, 1.9, 2.0, 2.05, 2.1)):    # max_time=2: before, at and after its end
            child = subprocess.Popen([sys.executable, "-c", DOUBLE_SIGINT, method, "2", str(HERE)], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
            child.stdout.readline()                                 # imported; the search starts now
            time.sleep(at)
            for _ in range(2):
                child.send_signal(signal.SIGINT)
                time.sleep(0.05)
            out, err = child.communicate(timeout=60)
            if "lost" in out:
                lost.append(f"at {at} s: the Result was lost (KeyboardInterrupt escaped run() after the search began)")
            elif "result" not in out and child.returncode != -signal.SIGINT:   # else: it landed after run() returned
                lost.append(f"at {at} s: exit status {child.returncode}, {err.strip()[-120:]}")
        if lost:
            raise Lost("; ".join(lost))
        raise Answered("the Result came back (or the Ctrl-C came before the search began or after run() "
                       "returned) in all 6 timings")
    run.__name__ = CASES[-1].name = f"double_sigint_{method}"


for _method in ("random", "eidig", "adf", "vbtx"):
    double_sigint(_method)


# ---------------------------------------------------------------------------------------------- running
def run_case(c: Case) -> dict:
    """In this process: run ``c`` and describe what happened (JSON-able)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            note = c.run()
        except Answered as e:
            return {"outcome": "answered", "message": str(e)}
        except Lost as e:
            return {"outcome": "lost", "message": str(e)}
        except BaseException as e:  # noqa: BLE001 - every answer is recorded, KeyboardInterrupt too
            frame = traceback.extract_tb(e.__traceback__)[-1]
            return {"outcome": "raised", "type": type(e).__name__, "message": str(e), "file": frame.filename,
                    "line": frame.line or ""}
    ours = [str(w.message) for w in caught if str(w.filename).startswith(FAIRNB)]
    return {"outcome": "returned", "message": note or "", "warnings": ours}


def verdict(c: Case, got: dict) -> tuple[str, str]:
    """``(verdict, message)`` for what ``run_case`` described."""
    outcome, message = got["outcome"], got.get("message", "")
    if outcome in ("hang", "lost"):
        return outcome, message
    if outcome == "answered":
        return "clear", message
    if outcome == "returned":
        named = [w for w in got["warnings"] if re.search(c.names, w)]
        if c.answer == "warning" and named:
            return "clear", "warning: " + named[0]
        return "silent", message or ("; ".join(got["warnings"]) or "accepted")
    message = f"{got['type']}: {message}"
    ours = got["file"].startswith(FAIRNB) and got["line"].startswith("raise")
    return ("clear" if ours and re.search(c.names, message) else "unhelpful"), message


def run_isolated(c: Case, timeout: float) -> dict:
    """``run_case`` in a fresh interpreter (nothing one case imports or breaks reaches the next)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "TF_CPP_MIN_LOG_LEVEL": "3"}
    try:
        done = subprocess.run([sys.executable, __file__, "--child", c.name], capture_output=True, text=True,
                              timeout=timeout, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"outcome": "hang", "message": f"no answer in {timeout:.0f} s"}
    last = done.stdout.strip().splitlines()[-1:] or [""]
    try:
        return json.loads(last[0])
    except json.JSONDecodeError:
        return {"outcome": "raised", "type": "crash", "message": done.stderr.strip()[-300:], "file": "", "line": ""}


VERDICTS = "\n\n".join(__doc__.split("\n\n")[1:3])     # what the verdicts mean, for fuzz.md


def table(rows) -> str:
    def cell(text: str) -> str:
        text = " ".join(str(text).split())
        return (text[:197] + "...") if len(text) > 200 else text.replace("|", "\\|")

    lines = ["| case | listed | verdict | answer |", "|---|---|---|---|"]
    lines += [f"| {cell(c.what)} | {c.listed} | **{v}** | {cell(m)} |" for c, v, m in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated case names")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per case")
    parser.add_argument("--jobs", type=int, default=1, help="cases run at once (each in its own process)")
    parser.add_argument("--no-write", action="store_true", help="print the table, do not write fuzz.md")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    huge_count_cases([args.child] if args.child else args.only.split(",") if args.only else None)
    by_name = {c.name: c for c in CASES}
    if args.child:
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:   # started from a background job (`fuzz.py &`):
            signal.signal(signal.SIGINT, signal.default_int_handler)   # Ctrl-C works as in a terminal's Python
        print(json.dumps(run_case(by_name[args.child])))
        return 0
    chosen = [by_name[n] for n in args.only.split(",")] if args.only else CASES
    rows, start = [], time.perf_counter()
    with ThreadPoolExecutor(max(args.jobs, 1)) as pool:
        for c, got in zip(chosen, pool.map(lambda c: run_isolated(c, args.timeout), chosen)):
            v, message = verdict(c, got)
            rows.append((c, v, message))
            print(f"{v:10s} {c.name}: {message[:150]}", flush=True)
    counts = {v: sum(r[1] == v for r in rows) for v in ("clear", "silent", "unhelpful", "hang", "lost")}
    summary = ", ".join(f"{n} {v}" for v, n in counts.items())
    print(summary)
    if not args.no_write:
        text = (f"# Fuzz record: the bad inputs of issues #25 and #34\n\n`python benchmarks/fuzz.py` "
                f"({len(rows)} cases, {time.perf_counter() - start:.0f} s, {time.strftime('%Y-%m-%d')}): "
                f"**{summary}**.\n\n{VERDICTS}\n\n{table(rows)}\n")
        (HERE / "results" / "fuzz.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
