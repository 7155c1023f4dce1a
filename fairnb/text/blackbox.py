"""Black-box text models: a callable on strings, or a scikit-learn pipeline, as a model on token ids.

The search works on padded token-id batches; a black-box model reads strings. :class:`TextFunctionModel`
decodes each id row with the vocabulary, joins the tokens into a string and calls the model on the whole
batch of strings at once. It has ``predict_proba`` only (no gradients), so it works with the strategies
that need none (random perturbation, the TestSGD sampling).

Example
-------
>>> from fairnb.text import Vocabulary
>>> vocab = Vocabulary.build([["the", "muslim", "cook"], ["the", "christian", "cook"]])
>>> model = TextFunctionModel(lambda texts: [float("muslim" in t) for t in texts], vocab)
>>> model.predict_proba(vocab.encode([["the", "muslim", "cook"], ["the", "christian", "cook"]], 4)).tolist()
[[0.0, 1.0], [1.0, 0.0]]
"""
from __future__ import annotations

import re

import numpy as np

from ..models import is_keras
from ..models.base import as_probability_matrix
from .tokenize import Tokenizer
from .vocabulary import Vocabulary, as_id_array


#: what a text domain needs of a model, said when it is given one that reads numbers
_TEXT_MODELS = ("search it on a TabularDomain, or give a model that reads texts (a callable on a list of strings, "
                "e.g. make_pipeline(TfidfVectorizer(), LogisticRegression()), or a Keras model whose first layer is "
                "an Embedding or a TextVectorization)")
#: what numpy, pandas and scikit-learn say when a string reaches a model of numbers
_NUMBERS_EXPECTED = re.compile(r"could not convert string|dtype\('<U|dtype\('O'\)|not supported between instances "
                               r"of 'str'|can't multiply sequence|unsupported operand type\(s\).*'str'")


class TextFunctionModel:
    """``model`` on strings (a callable ``list[str] -> probabilities``, or an object with ``predict_proba``
    such as ``make_pipeline(TfidfVectorizer(), LogisticRegression())``) as a model on token ids.

    Given the search's ``TextDomain`` (as a search does), the model reads the user's own strings: each text
    is its seed string with only the substituted words changed (``TextDomain.strings``: original case,
    spacing, punctuation and unknown words kept). Given a ``Vocabulary``, it reads the tokens joined, lower-case,
    ``<oov>`` for unknown words.
    """

    def __init__(self, model, vocab, name: str | None = None):
        self.domain = vocab if callable(getattr(vocab, "strings", None)) else None
        vocab = getattr(self.domain, "vocab", vocab)
        if not isinstance(vocab, Vocabulary):
            raise TypeError(f"vocab must be a fairnb.text.Vocabulary or a TextDomain, got {type(vocab).__name__}")
        columns = getattr(model, "n_features_in_", None)
        if columns is not None:
            raise TypeError(f"{type(model).__name__} was fitted on a table of {columns} columns (n_features_in_), but a "
                            f"text search gives its model a list of strings: {_TEXT_MODELS}")
        if type(model).__module__.startswith("fairnb.models."):      # NumpyMLP, OnnxModel, FunctionModel, ...
            raise TypeError(f"{model!r} is a fairnb model of tables (rows of numbers), but a text search gives its "
                            f"model a list of strings: {_TEXT_MODELS}")
        if hasattr(model, "predict_proba"):
            self._fn = model.predict_proba
        elif callable(model):
            self._fn = model
        else:
            raise TypeError(f"expected a callable on a list of strings or an object with predict_proba, "
                            f"got {type(model).__name__}")
        self.model = model
        self.vocab = vocab
        self.name = name or getattr(model, "__name__", type(model).__name__)

    def __repr__(self):
        return f"TextFunctionModel({self.name})"

    def texts(self, ids: np.ndarray) -> list[str]:
        """The strings the model sees for a batch of token ids."""
        if self.domain is not None:
            return self.domain.strings(ids)
        return [Tokenizer.detokenize(tokens) for tokens in self.vocab.decode(ids)]

    def predict_proba(self, ids: np.ndarray) -> np.ndarray:
        ids = as_id_array(ids)
        try:
            P = self._fn(self.texts(ids))
        except (TypeError, ValueError) as e:
            if not _NUMBERS_EXPECTED.search(str(e)):
                raise
            raise TypeError(f"text model {self.name!r} ({type(self.model).__name__}) cannot read texts ({e}): it "
                            f"expects numbers, but a text search gives its model a list of strings: {_TEXT_MODELS}"
                            ) from e
        return as_probability_matrix(P, len(ids), source=f"text model {self.name!r}")


def wrap_text_model(model, vocab):
    """The fairnb text model for ``model`` on the texts of ``vocab`` (a ``Vocabulary``, or the search's
    ``TextDomain``): a Keras model with an Embedding first, or a TextVectorization then an Embedding, gets
    :class:`~fairnb.text.keras_model.KerasTextModel` (white box); anything else on strings
    :class:`TextFunctionModel`; a model on subword pieces of a subword domain (``TextDomain.for_model(model,
    tokenizer=...)``) :class:`~fairnb.text.subword.SubwordTextModel` (its ONNX export
    :class:`~fairnb.text.onnx_text.OnnxTextModel`); fairnb text models and white-box text models of your own (with
    ``predict_proba(ids)`` and ``embedding_gradient(ids, classes, of)``) pass through."""
    if type(model).__module__.startswith("fairnb.text.") or callable(getattr(model, "embedding_gradient", None)):
        return model
    if getattr(vocab, "subword", None) is not None:      # a domain of words read by a model on subword pieces
        from .onnx_text import OnnxTextModel, is_onnx_model
        from .subword import SubwordTextModel

        if is_onnx_model(model):                          # its ONNX export: a black box
            return OnnxTextModel(model, vocab.subword, vocab.vocab)
        return SubwordTextModel(model, vocab.subword, vocab.vocab)
    if is_keras(model):
        from .keras_model import KerasTextModel

        adapter = KerasTextModel(model)
        _check_vocabulary(adapter, vocab)
        return adapter
    return TextFunctionModel(model, vocab)


def _check_vocabulary(adapter, vocab) -> None:
    """The ids of ``vocab`` must be the model's: its TextVectorization's, or one per embedding row."""
    domain, vocab = (vocab, vocab.vocab) if hasattr(vocab, "vocab") else (None, vocab)
    if adapter.text_vectorization is None:
        if adapter.vocab_size != len(vocab):
            raise ValueError(f"the model's embedding has {adapter.vocab_size} rows but the vocabulary {len(vocab)} "
                             "tokens: give the vocabulary the model was trained with")
        return
    if vocab != Vocabulary.from_text_vectorization(adapter.text_vectorization) or adapter.vocab_size < len(vocab) \
            or (domain is not None and getattr(domain, "model_tokenizer", None) is None):
        raise ValueError("the model reads strings through its TextVectorization layer, but the domain's vocabulary "
                         "or tokenisation is not that layer's: build the domain with TextDomain.for_model(model, "
                         "groups=...)")
