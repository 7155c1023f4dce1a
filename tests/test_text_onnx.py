"""An ONNX transformer text classifier with its tokenizer.json (issue #35 item 4): a tiny one built here with
onnx.helper (piece embedding, one masked self-attention block with a residual, masked mean pooling, a linear head
that reads a planted "muslim" direction) runs every black-box text search through
``TextDomain.for_model("model.onnx", groups, tokenizer="tokenizer.json")``; every pair is re-checked from its two
strings through a fresh tokeniser and a numpy forward pass of the same weights."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import fairnb
from fairnb.domains import TextDomain
from test_text_subword import RELIGION, wordpiece

D = 8


def weights(n_pieces: int, planted: int) -> dict:
    """Random weights; feature 0 of the piece embedding is 0 except for the ``planted`` piece, and the head reads
    feature 0 (class 1 when the text holds it)."""
    rng = np.random.default_rng(0)
    E = (0.3 * rng.normal(size=(n_pieces, D))).astype(np.float32)
    E[:, 0] = 0.0
    E[planted, 0] = 8.0
    Wq, Wk = ((0.3 * rng.normal(size=(D, D))).astype(np.float32) for _ in range(2))
    W = np.zeros((D, 2), np.float32)
    W[0] = [-3.0, 3.0]
    return {"E": E, "Wq": Wq, "Wk": Wk, "W": W, "b": np.array([1.0, -1.0], np.float32)}


def reference(w: dict, ids, mask) -> np.ndarray:
    """The tiny transformer's logits in float64 numpy."""
    X = w["E"][ids].astype(np.float64)
    m = np.asarray(mask, dtype=np.float64)
    scores = (X @ w["Wq"]) @ (X @ w["Wk"]).transpose(0, 2, 1) / np.sqrt(D) + (1.0 - m[:, None, :]) * -1e4
    A = np.exp(scores - scores.max(axis=-1, keepdims=True))
    H = X + (A / A.sum(axis=-1, keepdims=True)) @ X
    pooled = (H * m[:, :, None]).sum(axis=1) / m.sum(axis=1, keepdims=True)
    return pooled @ w["W"] + w["b"]


def tiny_transformer(w: dict, pieces=None, *, names=("input_ids", "attention_mask", "token_type_ids")) -> bytes:
    """The same network as ONNX: int64 ``input_ids``, ``attention_mask`` and (unused) ``token_type_ids`` of shape
    ``[batch, pieces]`` (``pieces`` None: dynamic), float ``logits`` out."""
    ids, mask, types = names
    f = TensorProto.FLOAT
    nodes = [helper.make_node("Gather", ["E", ids], ["X"]),
             helper.make_node("Cast", [mask], ["m"], to=f),
             helper.make_node("MatMul", ["X", "Wq"], ["Q"]),
             helper.make_node("MatMul", ["X", "Wk"], ["K"]),
             helper.make_node("Transpose", ["K"], ["Kt"], perm=[0, 2, 1]),
             helper.make_node("MatMul", ["Q", "Kt"], ["QK"]),
             helper.make_node("Div", ["QK", "sqrt_d"], ["S0"]),
             helper.make_node("Sub", ["one", "m"], ["off"]),
             helper.make_node("Unsqueeze", ["off", "axis1"], ["off3"]),
             helper.make_node("Mul", ["off3", "big"], ["neg"]),
             helper.make_node("Add", ["S0", "neg"], ["S"]),
             helper.make_node("Softmax", ["S"], ["A"], axis=-1),
             helper.make_node("MatMul", ["A", "X"], ["AX"]),
             helper.make_node("Add", ["X", "AX"], ["H"]),
             helper.make_node("Unsqueeze", ["m", "axis2"], ["m3"]),
             helper.make_node("Mul", ["H", "m3"], ["Hm"]),
             helper.make_node("ReduceSum", ["Hm", "axis1"], ["total"], keepdims=0),
             helper.make_node("ReduceSum", ["m", "axis1"], ["count"], keepdims=1),
             helper.make_node("Div", ["total", "count"], ["pooled"]),
             helper.make_node("MatMul", ["pooled", "W"], ["z"]),
             helper.make_node("Add", ["z", "b"], ["logits"])]
    inits = [numpy_helper.from_array(w[k], k) for k in ("E", "Wq", "Wk", "W", "b")]
    inits += [numpy_helper.from_array(np.array(v, np.float32), k)
              for k, v in (("sqrt_d", np.sqrt(D)), ("one", 1.0), ("big", -1e4))]
    inits += [numpy_helper.from_array(np.array([a], np.int64), f"axis{a}") for a in (1, 2)]
    shape = ["batch", pieces if pieces else "sequence"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, shape) for n in (ids, mask, types)]
    graph = helper.make_graph(nodes, "tiny_transformer", inputs,
                              [helper.make_tensor_value_info("logits", f, ["batch", 2])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """``(folder, tokenizer, corpus, weights)``: tokenizer.json and model.onnx (dynamic length) in ``folder``."""
    from fairnb.text import make_template_corpus

    data = make_template_corpus(n=300, descriptors={"religion": RELIGION}, biased_against=["muslim"], bias=1.0,
                                random_state=0)
    words = sorted({w for t in data.tokens() for w in t})
    tok = wordpiece([*(w for w in words if w not in ("atheists", "neighbour")), "atheist", "neigh", "##s", "##bour"])
    folder = tmp_path_factory.mktemp("onnx_text")
    tok.save(str(folder / "tokenizer.json"))
    w = weights(tok.get_vocab_size(), tok.token_to_id("muslim"))
    (folder / "model.onnx").write_bytes(tiny_transformer(w))
    return folder, tok, data, w


def decide(tok, w, strings) -> np.ndarray:
    """The decisions on ``strings``, tokenised afresh by ``tok`` (unpadded, one text at a time)."""
    return np.array([reference(w, np.array([e.ids]), np.ones((1, len(e.ids))))[0].argmax()
                     for e in tok.encode_batch(list(strings))])


@pytest.mark.parametrize("method", ["rp", "expga_text"])
def test_an_onnx_transformer_with_its_tokenizer_json_runs_the_black_box_text_searches(bench, method):
    from fairnb.search.registry import RECORDS
    from fairnb.text.onnx_text import DYNAMIC_PIECES, OnnxTextModel

    folder, tok, data, w = bench
    model = str(folder / "model.onnx")
    words = sorted({t for row in data.tokens() for t in row})
    domain = TextDomain.for_model(model, {"religion": RELIGION}, tokenizer=folder / "tokenizer.json",
                                  vocabulary=words, max_len=14)
    assert domain.subword.max_pieces == DYNAMIC_PIECES
    served = OnnxTextModel(model, domain.subword, domain.vocab)
    assert served.output == "logits"
    ids = domain.validate(data.texts[:50])
    pieces, mask, _ = domain.subword.encode_rows(domain.vocab, ids)
    z = reference(w, pieces, mask)
    P = np.exp(z - z.max(axis=1, keepdims=True))
    np.testing.assert_allclose(served.predict_proba(ids), P / P.sum(axis=1, keepdims=True), atol=1e-5)
    # the candidates are the words nearest in the model's own piece embedding: "muslim" is far from every word
    neighbours = domain.neighbours[domain.vocab.ids(["muslim"])[0]]
    assert len(neighbours) and domain.vocab.ids(["muslim"])[0] not in neighbours

    seeds = [t for t in data.texts if any(r in t.split() for r in RELIGION)][:30]
    fast = {**RECORDS[method].fast, **({"n_seeds": 20} if method == "rp" else {})}
    result = fairnb.run_search(model, domain, method=method, seeds=seeds, random_state=0, progress=False, **fast)
    assert result.count() > 0
    texts, counterparts = (list(domain.decode(x)["text"]) for x in (result.inputs, result.counterparts))
    assert (decide(tok, w, texts) != decide(tok, w, counterparts)).all()
    assert all(("muslim" in a.split()) != ("muslim" in b.split()) for a, b in zip(texts, counterparts))  # planted
    X, C = domain.ids(result.inputs), domain.ids(result.counterparts)
    assert ((X != C).sum(axis=1) == 1).all() and domain.sensitive_mask(C)[X != C].all()


def test_a_fixed_length_onnx_session_and_what_it_cannot_do(bench, tmp_path):
    import onnxruntime

    from fairnb.text.onnx_text import OnnxTextModel

    folder, tok, data, w = bench
    words = sorted({t for row in data.tokens() for t in row})
    fixed = tmp_path / "fixed.onnx"
    fixed.write_bytes(tiny_transformer(w, 16))
    domain = TextDomain.for_model(str(fixed), {"religion": RELIGION}, tokenizer=tok, vocabulary=words)
    assert domain.subword.max_pieces == 16 and domain.max_len == 14
    session = onnxruntime.InferenceSession(str(fixed), providers=["CPUExecutionProvider"])
    seeds = [t for t in data.texts if "muslim" in t.split()][:10]
    X = domain.validate(seeds)
    np.testing.assert_allclose(OnnxTextModel(session, domain.subword, domain.vocab).predict_proba(X),
                               OnnxTextModel(str(fixed), domain.subword, domain.vocab).predict_proba(X))
    with pytest.raises(TypeError, match="white-box text model"):
        fairnb.run_search(session, domain, method="adf_asc", seeds=seeds, n_seeds=5, progress=False)
    other = TextDomain.for_model(str(folder / "model.onnx"), {"religion": RELIGION}, tokenizer=tok,
                                 vocabulary=words, max_len=14)
    with pytest.raises(ValueError, match="reads 16 pieces but the tokeniser pads to 128"):
        OnnxTextModel(session, other.subword, other.vocab)
    odd = tmp_path / "odd.onnx"
    odd.write_bytes(tiny_transformer(w, 16, names=("x1", "x2", "x3")))
    with pytest.raises(ValueError, match=r"inputs \['x1', 'x2', 'x3'\].*'mask'"):
        TextDomain.for_model(str(odd), {"religion": RELIGION}, tokenizer=tok, vocabulary=words)
