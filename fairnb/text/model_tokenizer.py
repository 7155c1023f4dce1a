"""A model's own tokenisation: strings -> padded token ids exactly as the model's pipeline makes them.

A text model users build reads strings through its own tokeniser: a ``keras.layers.TextVectorization`` first
layer (lower-cases, strips punctuation, splits on whitespace, pads at the end to ``output_sequence_length``),
or a callable of their own. A :class:`~fairnb.domains.TextDomain` built with one (``TextDomain.for_model``)
encodes seed strings with it, so the ids a search substitutes in are the ids the model sees, and a text the
search writes (its tokens joined by spaces) tokenises back to the same ids.

Example
-------
>>> vocab = {"the": 2, "muslim": 3, "cook": 4}
>>> encode = ModelTokenizer(lambda texts: [[vocab.get(w, 1) for w in t.lower().split()] for t in texts], 4)
>>> encode(["The muslim cook", "the chef"]).tolist()
[[2, 3, 4, 0], [2, 1, 0, 0]]
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .vocabulary import PAD_ID


def text_vectorization_of(model):
    """The model's first layer if it is a ``keras.layers.TextVectorization``, else None."""
    layers = [layer for layer in getattr(model, "layers", ()) if type(layer).__name__ != "InputLayer"]
    return layers[0] if layers and type(layers[0]).__name__ == "TextVectorization" else None


class ModelTokenizer:
    """``tokenize(list of strings)`` -> id rows (lists or an array; id 0 padding, 1 unknown), padded or cut at
    the end (``padding="post"``, as TextVectorization) or the start (``"pre"``) to ``max_len`` ids."""

    def __init__(self, tokenize: Callable[[list[str]], Sequence], max_len: int, *, padding: str = "post",
                 name: str | None = None):
        if not callable(tokenize):
            raise TypeError(f"tokenize must be a callable on a list of strings, got {type(tokenize).__name__}")
        if padding not in ("pre", "post"):
            raise ValueError(f"padding must be 'pre' or 'post', got {padding!r}")
        self.tokenize, self.max_len, self.padding = tokenize, int(max_len), padding
        self.name = name or getattr(tokenize, "__name__", type(tokenize).__name__)

    @classmethod
    def of_text_vectorization(cls, layer, max_len: int | None = None) -> "ModelTokenizer":
        """The tokeniser a ``TextVectorization`` layer is; it must pad to a fixed ``output_sequence_length``
        (a search compares texts position by position, as the model reads them)."""
        length = layer.get_config().get("output_sequence_length")
        if length is None:
            raise ValueError("the model's TextVectorization has no output_sequence_length, so the model reads texts "
                             "of the batch's longest length; give the layer output_sequence_length=... (e.g. 32) and "
                             "train it so, as fairnb compares fixed-length texts")
        if max_len is not None and int(max_len) != int(length):
            raise ValueError(f"max_len={max_len} but the model's TextVectorization outputs {length} tokens "
                             f"(output_sequence_length); leave max_len out or set it to {length}")

        def vectorize(texts):
            import tensorflow as tf

            return layer(tf.constant(texts, dtype=tf.string)).numpy()

        return cls(vectorize, int(length), padding="post", name=layer.name)

    @classmethod
    def not_loaded(cls, name: str, max_len: int, padding: str = "post") -> "ModelTokenizer":
        """The stand-in for a model's tokeniser in a domain read back from a saved result: its ids and texts
        are as saved, but encoding new strings needs the model (a ``ValueError`` says so)."""

        def refuse(texts):
            raise ValueError(f"this text domain was saved with the model's own tokeniser {name!r}, which is not "
                             "saved: rebuild the domain with TextDomain.for_model(model, ...) to encode new strings")

        return cls(refuse, max_len, padding=padding, name=name)

    def __repr__(self):
        return f"ModelTokenizer({self.name}, max_len={self.max_len}, padding={self.padding!r})"

    def __call__(self, texts) -> np.ndarray:
        """``(n, max_len)`` int32 ids of the strings ``texts``."""
        texts = list(texts)
        rows = self.tokenize(texts) if texts else []
        if len(rows) != len(texts):
            raise ValueError(f"the tokeniser {self.name!r} returned {len(rows)} id rows for {len(texts)} texts")
        out = np.full((len(texts), self.max_len), PAD_ID, dtype=np.int32)
        for i, row in enumerate(rows):
            ids = np.asarray(row, dtype=np.int64).reshape(-1)
            ids = ids[ids != PAD_ID]
            ids = ids[: self.max_len] if self.padding == "post" else ids[-self.max_len:]
            if self.padding == "post":
                out[i, :len(ids)] = ids
            else:
                out[i, self.max_len - len(ids):] = ids
        return out
