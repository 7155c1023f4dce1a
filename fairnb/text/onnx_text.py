"""An ONNX transformer text classifier (piece ids and an attention mask in, class scores out) as a black-box fairnb
text model on the words of a subword domain.

A fine-tuned BERT exported to ONNX (``torch.onnx.export``, Hugging Face Optimum, ``tf2onnx``) comes with the
``tokenizer.json`` of its tokeniser. ``TextDomain.for_model("model.onnx", groups, tokenizer="tokenizer.json",
vocabulary=[the words of your texts])`` builds its domain as for a Keras transformer (:mod:`fairnb.text.subword`:
words for the reader and the search, pieces for the model), and the black-box text searches (``rp``,
``expga_text``, the text TestSGD) run it through :class:`OnnxTextModel`: each word row is written out, tokenised
by the model's tokeniser into piece ids and a mask, and given to ONNX Runtime. ONNX Runtime gives no gradients,
so ``adf_asc``/``adf_hf`` refuse it (export the Keras model instead, or use the black-box methods).

Inputs are found by name: the one holding ``mask`` is the attention mask, one holding ``type`` or ``segment`` gets
zeros (BERT's token type ids), the remaining integer input takes the piece ids. A model whose piece length is
fixed (``[batch, 32]``) reads that many pieces; a dynamic one (``[batch, sequence]``) up to :data:`DYNAMIC_PIECES`,
each batch cut to its longest text. The substitution candidates are each word's nearest words in the model's own
piece embedding (the initializer that a ``Gather`` of the piece ids reads, with ``onnx`` installed), else GloVe's.

Example
-------
>>> domain = TextDomain.for_model("bert.onnx", "religion", tokenizer="tokenizer.json",
...                               vocabulary=my_words)                              # doctest: +SKIP
>>> fairnb.run_search("bert.onnx", domain, method="rp", seeds=my_texts)             # doctest: +SKIP
"""
from __future__ import annotations

import os

import numpy as np

#: the pieces a model with a dynamic sequence length reads (BERT's exports take up to 512; a text is cut here)
DYNAMIC_PIECES = 128


def is_onnx_model(model) -> bool:
    """An ONNX Runtime session, an :class:`OnnxTextModel`, the path of a ``.onnx`` file or its bytes."""
    if isinstance(model, (str, os.PathLike)):
        return str(model).endswith(".onnx")
    if isinstance(model, (bytes, bytearray)):
        return True
    return isinstance(model, OnnxTextModel) or type(model).__module__.split(".")[0] == "onnxruntime"


class OnnxPieces:
    """What a subword domain needs of an ONNX model before it has a tokeniser: its session, which input is which,
    the pieces it reads (``length``: fixed, or None when dynamic) and its piece embedding (``embedding``, or None)."""

    def __init__(self, model):
        from ..models.onnx import onnx_session

        source = model.session if isinstance(model, OnnxTextModel) else model
        self.session = onnx_session(source)
        inputs = self.session.get_inputs()
        role = {i.name: ("mask" if "mask" in i.name.lower() else
                         "type" if "type" in i.name.lower() or "segment" in i.name.lower() else "ids") for i in inputs}
        ids = [n for n, r in role.items() if r == "ids"]
        if len(ids) != 1 or len(inputs) > 3:
            raise ValueError(f"the ONNX model's inputs {[i.name for i in inputs]}: a text model takes piece ids, and "
                             "optionally an attention mask (a name holding 'mask') and token type ids (a name holding "
                             "'type'); name them so when you export it")
        self.ids = ids[0]
        self.mask = next((n for n, r in role.items() if r == "mask"), None)
        self.types = next((n for n, r in role.items() if r == "type"), None)
        self.inputs = {i.name: i for i in inputs}
        shape = self.inputs[self.ids].shape or []
        if len(shape) != 2:
            raise ValueError(f"the ONNX model's input {self.ids!r} has shape {shape}; piece ids are [batch, pieces]")
        self.length = shape[1] if isinstance(shape[1], int) else None
        self.embedding = _gathered_initializer(source, self.ids)


def _gathered_initializer(model, ids_name: str):
    """The ``(pieces, d)`` table a ``Gather`` node reads with the piece ids (directly or through a ``Cast``), from a
    ``.onnx`` path or its bytes with ``onnx`` installed; None otherwise."""
    if not isinstance(model, (str, os.PathLike, bytes, bytearray)):
        return None
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        return None
    proto = onnx.load_model_from_string(bytes(model)) if isinstance(model, (bytes, bytearray)) else onnx.load(str(model))
    tables = {t.name: t for t in proto.graph.initializer}
    names = {ids_name} | {n.output[0] for n in proto.graph.node if n.op_type == "Cast" and n.input[0] == ids_name}
    for node in proto.graph.node:
        if node.op_type == "Gather" and node.input[1] in names and node.input[0] in tables:
            table = numpy_helper.to_array(tables[node.input[0]])
            if table.ndim == 2:
                return table.astype(np.float32)
    return None


class OnnxTextModel:
    """An ONNX text classifier on ``[piece ids, attention mask(, token types)]`` as a black-box model on **word**
    id rows of a subword domain's ``vocab`` (``predict_proba`` only). ``output``: ``"proba"``, ``"logits"``
    (softmaxed; one column sigmoided) or ``"auto"`` (probabilities when the output stays in [0, 1] with rows
    summing to 1 on random texts). ``batch_size``: texts per ONNX Runtime call.

    >>> model = OnnxTextModel("bert.onnx", domain.subword, domain.vocab)            # doctest: +SKIP
    >>> model.predict_proba(domain.validate(["the atheists cook"]))                 # doctest: +SKIP
    """

    def __init__(self, model, subword, vocab, *, output: str = "auto", batch_size: int = 64):
        from ..models.onnx import probability_output

        if output not in ("auto", "proba", "logits"):
            raise ValueError(f"output must be 'auto', 'proba' or 'logits', got {output!r}")
        self.parts = OnnxPieces(model)
        self.session = self.parts.session
        if self.parts.length is not None and self.parts.length != subword.max_pieces:
            raise ValueError(f"the ONNX model reads {self.parts.length} pieces but the tokeniser pads to "
                             f"{subword.max_pieces}")
        self.subword, self.vocab, self.batch_size = subword, vocab, int(batch_size)
        self.output_name = probability_output(self.session.get_outputs()).name
        self.output = self._probe() if output == "auto" else output

    def __repr__(self):
        return (f"OnnxTextModel({self.parts.ids!r}{f', {self.parts.mask!r}' if self.parts.mask else ''} -> "
                f"{self.output_name!r} ({self.output}), {len(self.vocab)} words, {self.subword})")

    def predict_proba(self, word_ids) -> np.ndarray:
        """``(n, k)`` class probabilities of ``(n, L)`` word-id rows (written out and tokenised as the model reads
        them)."""
        ids, mask, _ = self.subword.encode_rows(self.vocab, word_ids)
        return self.proba_of_pieces(ids, mask)

    def proba_of_pieces(self, ids, mask) -> np.ndarray:
        """``(n, k)`` class probabilities of piece ids and their attention mask."""
        from ..models.base import as_probability_matrix
        from ..models.numpy_mlp import logits_to_proba

        ids, mask = np.asarray(ids), np.asarray(mask, dtype=bool)
        if self.parts.length is None and ids.shape[1]:     # a dynamic length: cut to the longest text
            width = int(np.flatnonzero(mask.any(axis=0)).max(initial=0)) + 1
            ids, mask = ids[:, :width], mask[:, :width]
        parts = [self._raw(ids[i:i + self.batch_size], mask[i:i + self.batch_size])
                 for i in range(0, len(ids), self.batch_size)]
        raw = np.concatenate(parts) if parts else np.zeros((0, 2))
        if self.output == "logits":
            raw = raw.reshape(len(raw), -1)
            return logits_to_proba(raw, "sigmoid" if raw.shape[1] == 1 else "softmax")
        return as_probability_matrix(raw, len(raw), source=f"ONNX output {self.output_name!r}")

    def _feed(self, ids, mask) -> dict:
        from ..models.onnx import ONNX_DTYPES

        def cast(name, values):
            return values.astype(ONNX_DTYPES.get(self.parts.inputs[name].type, np.int64))

        feed = {self.parts.ids: cast(self.parts.ids, ids)}
        if self.parts.mask:
            feed[self.parts.mask] = cast(self.parts.mask, mask)
        if self.parts.types:
            feed[self.parts.types] = cast(self.parts.types, np.zeros_like(ids))
        return feed

    def _probe(self) -> str:
        """``"proba"`` or ``"logits"``, judged on random piece rows."""
        rng = np.random.default_rng(0)
        n, P = 32, self.subword.max_pieces
        ids = rng.integers(0, self.subword.tokenizer.get_vocab_size(), size=(n, P))
        mask = np.arange(P)[None, :] < rng.integers(1, P + 1, size=(n, 1))
        raw = self._raw(ids, mask)
        in_range = raw.min() >= -1e-6 and raw.max() <= 1 + 1e-6
        sums_to_one = raw.ndim == 1 or raw.shape[1] == 1 or np.allclose(raw.sum(axis=1), 1.0, atol=1e-4)
        return "proba" if in_range and sums_to_one else "logits"

    def _raw(self, ids, mask) -> np.ndarray:
        """The chosen output on one batch of piece rows, as floats."""
        from ..models.onnx import as_array

        return as_array(self.session.run([self.output_name], self._feed(ids, mask))[0])
