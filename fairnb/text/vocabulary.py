"""The vocabulary: token <-> id, with padding and out-of-vocabulary ids, and padded id sequences.

Id 0 is padding (``"<pad>"``), id 1 the out-of-vocabulary token (``"<oov>"``); real tokens start at 2,
most frequent first. ``encode`` pads or truncates to a fixed length (``padding="pre"``, as Keras's
``pad_sequences``: the last real token sits at the last position, where a recurrent model reads its final
state), so a batch of texts is one ``(n, max_len)`` int32 array.

The vocabulary of a model that is searched must hold every sensitive term of every group and their
GloVe neighbours, or swaps to them are impossible: :meth:`Vocabulary.build` takes ``extra`` tokens for
that (see :func:`fairnb.text.glove.vocabulary_with_neighbours`).

Example
-------
>>> vocab = Vocabulary.build([["a", "muslim", "cook", "."], ["a", "cook"]], extra=["christian"])
>>> vocab.tokens
('<pad>', '<oov>', 'a', 'cook', 'muslim', '.', 'christian')
>>> ids = vocab.encode([["a", "christian", "chef"]], max_len=5)
>>> ids.tolist()
[[0, 0, 2, 6, 1]]
>>> vocab.decode(ids)
[['a', 'christian', '<oov>']]
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

PAD, OOV = "<pad>", "<oov>"
PAD_ID, OOV_ID = 0, 1


class Vocabulary:
    """An immutable token list; ``tokens[i]`` has id ``i``. Build it with :meth:`build`."""

    def __init__(self, tokens: Sequence[str]):
        tokens = tuple(tokens)
        if tokens[:2] != (PAD, OOV):
            raise ValueError(f"a vocabulary starts with {PAD!r}, {OOV!r}; got {tokens[:2]}")
        if len(set(tokens)) != len(tokens):
            dup = [t for t, c in Counter(tokens).items() if c > 1][:5]
            raise ValueError(f"duplicate tokens in the vocabulary: {dup}")
        self.tokens = tokens
        self._ids = {t: i for i, t in enumerate(tokens)}

    @classmethod
    def build(cls, token_lists: Iterable[Sequence[str]], *, extra: Iterable[str] = (), min_count: int = 1,
              max_size: int | None = None) -> "Vocabulary":
        """Tokens of ``token_lists`` seen at least ``min_count`` times (most frequent first, ties in order of
        first appearance), at most ``max_size`` of them, then every token of ``extra`` (always kept)."""
        if min_count < 1:
            raise ValueError(f"min_count must be >= 1, got {min_count}")
        if max_size is not None and max_size < 0:
            raise ValueError(f"max_size must be >= 0 or None, got {max_size}")
        counts = Counter()
        for row, tokens in enumerate(token_lists):
            if isinstance(tokens, str):
                raise TypeError("token_lists must hold lists of tokens, not strings; tokenize the texts first")
            tokens = list(tokens)
            _require_strings(tokens, f"token list {row}")
            counts.update(tokens)
        extra = list(extra)
        _require_strings(extra, "extra")
        kept = [t for t, c in sorted(counts.items(), key=lambda kv: -kv[1]) if c >= min_count and t not in (PAD, OOV)]
        kept = kept[:max_size] if max_size is not None else kept
        return cls((PAD, OOV, *dict.fromkeys([*kept, *(t for t in extra if t not in (PAD, OOV))])))

    @classmethod
    def from_model_tokens(cls, tokens: Sequence[str]) -> "Vocabulary":
        """The vocabulary of a model's own tokeniser: ``tokens[i]`` is the token of id ``i``, id 0 padding and id
        1 the unknown word, whatever they are called there (``''``/``'[UNK]'``, ``'<PAD>'``/``'<OOV>'``).

        >>> Vocabulary.from_model_tokens(["", "[UNK]", "the", "muslim"]).tokens
        ('<pad>', '<oov>', 'the', 'muslim')
        """
        tokens = [str(t) for t in tokens]
        if len(tokens) < 3:
            raise ValueError(f"a model's vocabulary lists padding (id 0), the unknown word (id 1) and its words; "
                             f"got {tokens}")
        return cls((PAD, OOV, *tokens[2:]))

    @classmethod
    def from_text_vectorization(cls, layer) -> "Vocabulary":
        """The vocabulary of a ``keras.layers.TextVectorization`` layer (``''`` is padding, ``'[UNK]'`` the unknown
        word; ids unchanged). It must be adapted (or given a vocabulary) and output token ids.

        >>> import keras                                                              # doctest: +SKIP
        >>> layer = keras.layers.TextVectorization(vocabulary=["the", "muslim"])      # doctest: +SKIP
        >>> Vocabulary.from_text_vectorization(layer).tokens                          # doctest: +SKIP
        ('<pad>', '<oov>', 'the', 'muslim')
        """
        config = layer.get_config()
        if config.get("output_mode", "int") != "int":
            raise ValueError(f"the TextVectorization layer outputs {config['output_mode']!r}; fairnb searches token "
                             "ids: use output_mode='int' followed by an Embedding")
        tokens = list(layer.get_vocabulary(include_special_tokens=True))
        if tokens[:2] != ["", "[UNK]"]:
            raise ValueError(f"the TextVectorization layer's vocabulary starts with {tokens[:2]}, not padding '' and "
                             "'[UNK]': was it adapted (layer.adapt(texts)) with mask_token='' and oov_token='[UNK]'?")
        return cls.from_model_tokens(tokens)

    def extended(self, tokens: Iterable[str]) -> "Vocabulary":
        """A copy with ``tokens`` appended (those already present keep their ids)."""
        return Vocabulary(tuple(dict.fromkeys([*self.tokens, *tokens])))

    def __len__(self):
        return len(self.tokens)

    def __contains__(self, token) -> bool:
        return token in self._ids

    def __repr__(self):
        return f"Vocabulary({len(self)} tokens)"

    def __eq__(self, other):
        return isinstance(other, Vocabulary) and self.tokens == other.tokens

    def __hash__(self):
        return hash(self.tokens)

    def id(self, token: str) -> int:
        """The id of ``token`` (``OOV_ID`` when absent)."""
        return self._ids.get(token, OOV_ID)

    def ids(self, tokens: Iterable[str]) -> np.ndarray:
        """The ids of ``tokens``, unpadded."""
        return np.array([self._ids.get(t, OOV_ID) for t in tokens], dtype=np.int32)

    def encode(self, token_lists: Iterable[Sequence[str]], max_len: int, *, padding: str = "pre",
               truncating: str = "pre") -> np.ndarray:
        """``(n, max_len)`` int32 ids; ``padding``/``truncating`` ``"pre"`` or ``"post"`` as in Keras."""
        if padding not in ("pre", "post") or truncating not in ("pre", "post"):
            raise ValueError(f"padding and truncating must be 'pre' or 'post', got {padding!r}, {truncating!r}")
        if int(max_len) < 1:
            raise ValueError(f"max_len must be >= 1, got {max_len}")
        token_lists = list(token_lists)
        out = np.full((len(token_lists), int(max_len)), PAD_ID, dtype=np.int32)
        for row, tokens in enumerate(token_lists):
            if isinstance(tokens, str):
                raise TypeError("encode takes lists of tokens, not strings; tokenize the texts first")
            ids = self.ids(tokens)
            ids = (ids[-max_len:] if truncating == "pre" else ids[:max_len]) if len(ids) > max_len else ids
            if len(ids):
                if padding == "pre":
                    out[row, max_len - len(ids):] = ids
                else:
                    out[row, :len(ids)] = ids
        return out

    def decode(self, ids: np.ndarray, *, keep_padding: bool = False) -> list[list[str]]:
        """The tokens of each row of ``ids`` (padding dropped unless ``keep_padding``)."""
        ids = np.asarray(ids)
        if ids.ndim == 1:
            ids = ids[None, :]
        if ids.ndim != 2:
            raise ValueError(f"ids must be a 1-d or 2-d array, got shape {ids.shape}")
        ids = as_id_array(ids)     # whole-number floats too (``result.inputs``)
        if ids.size and (ids.min() < 0 or ids.max() >= len(self)):
            raise ValueError(f"ids must lie in 0..{len(self) - 1}, got {ids.min()}..{ids.max()}")
        return [[self.tokens[i] for i in row if keep_padding or i != PAD_ID] for row in ids.tolist()]


def _require_strings(tokens: list, where: str) -> None:
    """A TypeError naming the first token of ``tokens`` that is not a string (None, a number)."""
    for t in tokens:
        if not isinstance(t, str):
            raise TypeError(f"tokens must be strings; {where} holds {t!r} ({type(t).__name__})")


def as_id_array(ids) -> np.ndarray:
    """``ids`` as a 2-d int32 array (texts x positions), or ``ValueError`` saying how to make one.

    Float arrays holding whole numbers (a batch that went through a float pipeline) are accepted.
    """
    ids = np.asarray(ids)
    if ids.ndim == 2 and np.issubdtype(ids.dtype, np.floating) and np.isfinite(ids).all() \
            and (ids == np.round(ids)).all():
        ids = ids.astype(np.int64)
    if ids.ndim != 2 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"expected a 2-d integer array of token ids (texts x positions), got {ids.dtype} "
                         f"{ids.shape}; encode texts with Vocabulary.encode")
    return ids.astype(np.int32, copy=False)
