"""Text input domains: padded token-id sequences whose protected attribute is a group of identity terms.

An item is one text as a row of ``max_len`` token ids of a :class:`~fairnb.text.Vocabulary` (padding id 0
in front, as :meth:`Vocabulary.encode` pads). The protected attributes are sensitive-term groups
(:class:`~fairnb.text.TermGroups`, e.g. ``"religion"``): a token that is a term of a selected group is a
*sensitive occurrence*, and the protected variants of a text replace it by every other term of its group
(:func:`fairnb.text.protected_variants`; one occurrence at a time by default, every occurrence of the same
term together with ``jointly=True``). A text without such a term has one variant, itself. A search step is
a 1-token -> 1-token substitution at a non-sensitive position, among the position's ``candidates``: its
token's nearest GloVe neighbours (``k`` of them, default 10), without padding, OOV and terms of the
selected groups, so a substitution never adds a sensitive term.

``TextDomain`` implements the ``fairnb.domains.base.Domain`` protocol (ragged variants) and the
``"substitutions"`` capability (``candidates``, ``sensitive_mask``, ``perturbable``) that the text searches
(``fairnb.search.methods.adf_text``) need.

Example
-------
>>> from fairnb.text import Vocabulary
>>> vocab = Vocabulary.build([["the", "muslim", "cook", "is", "kind"]], extra=["christian", "atheist", "chef"])
>>> dom = TextDomain(vocab, "religion", max_len=6, groups_source={"religion": ["muslim", "christian", "atheist"]})
>>> x = dom.validate(["The muslim cook is kind"])
>>> [dom.text(v) for v in dom.variants(x)[0]]
['the muslim cook is kind', 'the christian cook is kind', 'the atheist cook is kind']
>>> dom.key(x, "adf").tolist()
[[0, 2, -1, 4, 5, 6]]
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from .base import check_convention, register_domain

_SEP = " "


def _selected_groups(groups, source):
    """The selected ``TermGroups``: ``groups`` is a TermGroups, a mapping, a group name or a list of
    names; names are looked up in ``source`` (a TermGroups/mapping, default the built-in groups)."""
    from ..text.terms import TermGroups, term_groups

    if isinstance(groups, TermGroups):
        return groups
    if isinstance(groups, Mapping):
        return TermGroups(groups)
    pool = term_groups() if source is None else (source if isinstance(source, TermGroups) else TermGroups(source))
    names = [groups] if isinstance(groups, str) else list(groups)
    if not names:
        raise ValueError("groups names no sensitive-term group; pass e.g. groups='religion'")
    unknown = [n for n in names if n not in pool]
    if unknown:
        raise ValueError(f"unknown sensitive-term group(s) {unknown}; choose from {sorted(pool)} or pass "
                         "groups={'name': [terms, ...]}")
    return pool.subset(names)


def _terms_in_vocabulary(groups, vocab):
    """``groups`` without the terms ``vocab`` lacks (a warning names them); ValueError if a group keeps < 2."""
    import warnings

    from ..text.terms import TermGroups

    kept, missing = {}, {}
    for name, terms in groups.items():
        kept[name] = [t for t in terms if t in vocab]
        missing[name] = [t for t in terms if t not in vocab]
    lacking = {name: terms for name, terms in missing.items() if terms}
    if lacking:
        warnings.warn(f"the model's vocabulary lacks these sensitive terms, which no search can swap in: {lacking}",
                      UserWarning, stacklevel=3)
    poor = {name: terms for name, terms in kept.items() if len(terms) < 2}
    if poor:
        raise ValueError(f"the model's vocabulary holds fewer than 2 terms of the group(s) {poor} (it lacks "
                         f"{ {n: missing[n] for n in poor} }): give groups={{name: [terms it knows]}}")
    return TermGroups(kept)


@register_domain
class TextDomain:
    """Texts as padded token ids, protected by sensitive-term groups.

    Parameters
    ----------
    vocab : fairnb.text.Vocabulary (the model's: id ``i`` is row ``i`` of its embedding); it must hold every
        term of the selected groups.
    groups : the protected group(s): a name (``"religion"``), a list of names, or a ``TermGroups`` /
        mapping ``{name: terms}``.
    max_len : the length of every id row.
    jointly : replace every occurrence of a term together (counterfactual style) instead of one
        occurrence at a time (the ADF paper's semantics, default).
    neighbours : ``(len(vocab), k)`` candidate table (ids, -1 for none), e.g.
        :func:`fairnb.text.glove.neighbour_table`; default: computed from GloVe 6B 50d on first use
        (cached on disk), or use :meth:`with_embedding_neighbours` for a model's own embedding.
    k : neighbours per token when the table is computed.
    class_names : what the model's decisions mean, e.g. ``("non-toxic", "toxic")``.
    groups_source : where group names are looked up (default the built-in ``term_groups()``).
    model_tokenizer : a :class:`fairnb.text.model_tokenizer.ModelTokenizer`: strings are encoded the model's own
        way (default: fairnb's ``Tokenizer``, pre-padded) and a text is its tokens joined by spaces. Use
        :meth:`for_model` to build a domain from a model with a ``TextVectorization`` layer or its tokeniser.
    """

    kind = "text"

    def __init__(self, vocab, groups="religion", max_len: int = 32, *, jointly: bool = False, neighbours=None,
                 k: int = 10, class_names=None, groups_source=None, model_tokenizer=None):
        from ..text.variants import group_ids
        from ..text.vocabulary import Vocabulary

        if not isinstance(vocab, Vocabulary):
            raise TypeError(f"vocab must be a fairnb.text.Vocabulary, got {type(vocab).__name__}")
        if isinstance(max_len, bool) or not isinstance(max_len, (int, np.integer)) or max_len < 1:
            raise ValueError(f"max_len must be a positive integer, got {max_len!r}")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        self.vocab = vocab
        self.term_groups = _selected_groups(groups, groups_source)
        self.max_len = int(max_len)
        self.jointly = bool(jointly)
        self.k = int(k)
        self.class_names = None if class_names is None else tuple(str(c) for c in class_names)
        self._group_ids = {name: group_ids(vocab, terms) for name, terms in self.term_groups.items()}
        self._all_ids = np.unique(np.concatenate(list(self._group_ids.values())))
        self._neighbours = None if neighbours is None else self._check_table(neighbours)
        self._given_neighbours = neighbours is not None
        self._tokenizer = self._seed_strings = None
        self.model_tokenizer = model_tokenizer
        if model_tokenizer is not None and model_tokenizer.max_len != self.max_len:
            raise ValueError(f"max_len={self.max_len} but the model's tokeniser pads to {model_tokenizer.max_len}")

    def _check_table(self, table) -> np.ndarray:
        table = np.asarray(table)
        if table.ndim != 2 or len(table) != len(self.vocab) or not np.issubdtype(table.dtype, np.integer):
            raise ValueError(f"neighbours must be an integer table of shape ({len(self.vocab)}, k), got "
                             f"{table.dtype} {table.shape}; build it with fairnb.text.glove.neighbour_table(vocab)")
        if table.size and (table.min() < -1 or table.max() >= len(self.vocab)):
            raise ValueError("neighbours holds ids outside the vocabulary (use -1 for no candidate)")
        return table.astype(np.int32)

    @classmethod
    def with_embedding_neighbours(cls, vocab, embedding_matrix, groups="religion", max_len: int = 32, *,
                                  k: int = 10, writable=None, **kwargs) -> "TextDomain":
        """A domain whose candidates are each token's ``k`` most cosine-similar rows of ``embedding_matrix``
        (e.g. a model's own embedding; padding and OOV never count), with no GloVe needed. ``writable``: a bool
        per token, the tokens a substitution may write in (default all).

        >>> from fairnb.text import Vocabulary
        >>> vocab = Vocabulary.build([["a", "b", "muslim", "christian"]])
        >>> E = np.array([[0, 0], [0, 0], [1, 0], [1, .1], [0, 1], [.1, 1]], dtype=float)
        >>> dom = TextDomain.with_embedding_neighbours(vocab, E, {"religion": ["muslim", "christian"]}, 3, k=1)
        >>> dom.candidates(np.array([[2, 3, 4]]))[0, :, 0].tolist()     # a (2) <-> b (3); "muslim" (4) none
        [3, 2, -1]
        """
        from ..text.glove import top_k_cosine

        E = np.asarray(embedding_matrix, dtype=np.float32)
        if E.ndim != 2 or len(E) != len(vocab):
            raise ValueError(f"embedding_matrix must have one row per token ({len(vocab)}), got shape {E.shape}")
        broken = np.flatnonzero(~np.isfinite(E).all(axis=1))
        if len(broken):
            raise ValueError(f"embedding_matrix has NaN or infinite values in {len(broken)} rows, e.g. the tokens "
                             f"{[vocab.tokens[i] for i in broken[:5]]}; neighbours cannot be computed from them")
        table = np.full((len(vocab), int(k)), -1, dtype=np.int32)
        real = np.arange(2, len(vocab))
        pool = real if writable is None else real[np.asarray(writable, dtype=bool)[2:]]
        if len(pool) > 1:
            at = np.minimum(np.searchsorted(pool, real), len(pool) - 1)
            top = top_k_cosine(E[real], E[pool], k, exclude=np.where(pool[at] == real, at, -1))
            table[real, :top.shape[1]] = pool[top]
        return cls(vocab, groups, max_len, neighbours=table, k=k, **kwargs)

    @classmethod
    def for_model(cls, model, groups="religion", *, tokenizer=None, vocabulary=None, max_len: int | None = None,
                  k: int = 10, **kwargs) -> "TextDomain":
        """The domain of a text model on strings, in the model's own vocabulary and tokenisation.

        * a Keras model whose first layer is ``TextVectorization`` (with ``output_sequence_length``): its
          vocabulary, its tokenisation and length are read from the layer;
        * any model with its tokeniser: ``tokenizer(list of strings) -> id rows`` (id 0 padding, 1 unknown),
          ``vocabulary`` its tokens by id, ``max_len`` the length it pads to (at the end).
        * a subword (WordPiece/BPE) Keras model on ``[piece ids, attention mask]`` (e.g. a pretrained transformer,
          :func:`fairnb.text.minilm.minilm_classifier`) with ``tokenizer=`` its ``tokenizers.Tokenizer`` or the path
          of its ``tokenizer.json``: the domain's texts are rows of ``max_len`` words (default: the model's
          pieces less 2) of a word list (``vocabulary=`` the words of your texts, else the tokeniser's whole
          words, and every identity term); the model reads each text's words through its tokeniser
          (:mod:`fairnb.text.subword`). An ONNX export of such a model (a ``.onnx`` path or an
          ``onnxruntime.InferenceSession``) goes the same way, as a black box (:mod:`fairnb.text.onnx_text`).

        The candidates of a substitution are each word's ``k`` nearest words in the model's own embedding
        (no GloVe), when the model has one (pass ``neighbours=`` otherwise). Terms of ``groups`` that the
        model's vocabulary lacks cannot be swapped in: a warning names them and the group keeps the others
        (a ``ValueError`` when fewer than two are left).

        >>> domain = TextDomain.for_model(keras_model, "religion")                      # doctest: +SKIP
        >>> domain = TextDomain.for_model(model, "religion", tokenizer=my_tokenizer,
        ...                               vocabulary=my_tokens, max_len=20)             # doctest: +SKIP
        """
        from ..text.model_tokenizer import ModelTokenizer, text_vectorization_of
        from ..text.subword import is_subword_tokenizer
        from ..text.vocabulary import Vocabulary

        if is_subword_tokenizer(tokenizer):
            return cls._for_subword_model(model, groups, tokenizer, vocabulary, max_len, k, **kwargs)
        layer = text_vectorization_of(model)
        if tokenizer is not None:
            if vocabulary is None or max_len is None:
                raise ValueError("with tokenizer= give the model's vocabulary= (its tokens by id: 0 padding, 1 "
                                 "unknown) and max_len= (the length it pads to)")
            vocab = vocabulary if isinstance(vocabulary, Vocabulary) else Vocabulary.from_model_tokens(vocabulary)
            encode = tokenizer if isinstance(tokenizer, ModelTokenizer) else ModelTokenizer(tokenizer, max_len)
        elif layer is not None:
            vocab = Vocabulary.from_text_vectorization(layer)
            encode = ModelTokenizer.of_text_vectorization(layer, max_len)
        else:
            raise ValueError("TextDomain.for_model reads the vocabulary of a model whose first layer is a "
                             "keras.layers.TextVectorization; for another model give tokenizer=, vocabulary= and "
                             "max_len=, or build TextDomain(vocab, ...) from a fairnb Vocabulary")
        selected = _terms_in_vocabulary(_selected_groups(groups, kwargs.pop("groups_source", None)), vocab)
        if "neighbours" not in kwargs:
            from ..text.keras_model import embedding_of

            E = embedding_of(model)
            if E is not None:
                return cls.with_embedding_neighbours(vocab, E[:len(vocab)], selected, encode.max_len, k=k,
                                                     model_tokenizer=encode, **kwargs)
        return cls(vocab, selected, encode.max_len, k=k, model_tokenizer=encode, **kwargs)

    @classmethod
    def _for_subword_model(cls, model, groups, tokenizer, vocabulary, max_len, k, **kwargs) -> "TextDomain":
        """:meth:`for_model` of a model on subword pieces: words in the domain, pieces in the model."""
        from ..text.onnx_text import DYNAMIC_PIECES, OnnxPieces, is_onnx_model
        from ..text.subword import SubwordTextModel, SubwordTokenizer, word_matrix, word_vocabulary
        from ..text.terms import all_builtin_terms
        from ..text.tokenize import Tokenizer

        onnx = OnnxPieces(model) if is_onnx_model(model) else None     # a black box: no gradients
        if onnx is not None:
            pieces = onnx.length or DYNAMIC_PIECES
        else:
            pieces = getattr(model, "inputs", [None])[0]
            pieces = None if pieces is None or len(pieces.shape) != 2 else pieces.shape[1]
        if pieces is None:
            raise ValueError("a subword text model must be a Keras model whose first input is piece ids of a fixed "
                             "length, e.g. keras.Input((32,), dtype='int32'), or an ONNX model (a .onnx path or an "
                             "onnxruntime.InferenceSession) on piece ids")
        subword = SubwordTokenizer(tokenizer, pieces)
        selected = _selected_groups(groups, kwargs.pop("groups_source", None))
        words = Tokenizer([*all_builtin_terms(), *selected.all_terms])
        vocab = word_vocabulary(subword, vocabulary, [*all_builtin_terms(), *selected.all_terms])
        max_len = max(1, pieces - 2) if max_len is None else max_len
        encode = subword.word_tokenizer(vocab, words.tokenize, max_len)
        if "neighbours" in kwargs:
            return cls(vocab, selected, max_len, k=k, model_tokenizer=encode, **kwargs)
        if onnx is None:
            E = SubwordTextModel(model, subword, vocab).embedding_matrix
        elif onnx.embedding is not None:
            E = word_matrix(onnx.embedding, subword, vocab)
        else:                       # an ONNX model whose piece embedding is not found: GloVe's neighbours
            return cls(vocab, selected, max_len, k=k, model_tokenizer=encode, **kwargs)
        writable = np.r_[False, False, subword.reads_back(vocab.tokens[2:])]   # words the model reads as written
        return cls.with_embedding_neighbours(vocab, E, selected, max_len, k=k, writable=writable,
                                             model_tokenizer=encode, **kwargs)

    @property
    def subword(self):
        """The model's subword tokeniser (:class:`fairnb.text.subword.SubwordTokenizer`) of a domain built by
        ``for_model(model, tokenizer=<tokenizers.Tokenizer>)``, else None."""
        return getattr(self.model_tokenizer, "subword", None)

    # ------------------------------------------------------------------ description
    @property
    def protected(self) -> tuple[str, ...]:
        """The protected groups' names (the domain's protected attributes)."""
        return tuple(self.term_groups)

    groups = protected

    @property
    def protected_names(self) -> tuple[str, ...]:
        return self.protected

    protected_columns = ("term",)    # ``pair_columns``' swapped term (its counterpart is ``term'``)

    @staticmethod
    def default_constraints() -> list:
        """The constraints a search on texts uses unless told otherwise (``fairnb.constraints.text``)."""
        from ..constraints import default_text_constraints

        return default_text_constraints()

    @property
    def item_shape(self) -> tuple[int]:
        return (self.max_len,)

    names = ("text",)     # the column of a DataFrame of seed texts (and of ``decode``)

    @property
    def tokenizer(self):
        """The tokenizer that keeps every built-in and selected term whole."""
        if self._tokenizer is None:
            from ..text.terms import all_builtin_terms
            from ..text.tokenize import Tokenizer

            self._tokenizer = Tokenizer([*all_builtin_terms(), *self.term_groups.all_terms])
        return self._tokenizer

    @property
    def neighbours(self) -> np.ndarray:
        """``(len(vocab), k)`` ids of each token's nearest neighbours (-1: none), as given or from GloVe."""
        if self._neighbours is None:
            from ..text.glove import neighbour_table

            self._neighbours = neighbour_table(self.vocab, self.k)
        return self._neighbours

    def term_group(self, term: str) -> str | None:
        """The selected group holding ``term`` (the first one if several), else None.

        >>> from fairnb.text import Vocabulary
        >>> dom = TextDomain(Vocabulary.build([["muslim", "christian"]]), {"religion": ["muslim", "christian"]}, 2)
        >>> dom.term_group("muslim"), dom.term_group("cook")
        ('religion', None)
        """
        found = self.term_groups.group_of(term) if isinstance(term, str) and term.strip() else ()
        return found[0] if found else None

    def __repr__(self):
        return (f"TextDomain({len(self.vocab)} tokens, groups={list(self.protected)}, max_len={self.max_len}"
                f"{', jointly' if self.jointly else ''})")

    # ------------------------------------------------------------------ inputs
    def validate(self, items, *, what: str = "input") -> np.ndarray:
        """``items`` as an ``(n, max_len)`` float array of token ids: id rows (ints or whole floats), one id
        row, or strings (tokenized and encoded with the vocabulary); else ``ValueError``."""
        if isinstance(items, str):
            items = [items]
        arr = np.asarray(items, dtype=object) if not isinstance(items, np.ndarray) else items
        if arr.ndim == 1 and any(isinstance(s, str) for s in arr):
            bad = next(((i, s) for i, s in enumerate(arr) if not isinstance(s, str)), None)
            if bad is not None:     # refused, never turned into the text "5" or "nan"
                raise ValueError(f"{what}: item {bad[0]} is {bad[1]!r} ({type(bad[1]).__name__}), not a text; give "
                                 "every item as a string")
        if arr.ndim == 2 and arr.shape[1] == 1 and len(arr) and all(isinstance(s, str) for s in arr[:, 0]):
            arr = arr[:, 0]                            # one column of texts (a DataFrame's "text" column)
        if arr.ndim == 1 and len(arr) and all(isinstance(s, str) for s in arr):
            ids = self._encode_given(list(arr))
            self._warn_of_cut_terms(list(arr), ids, what)
            return ids.astype(float)
        try:
            arr = np.asarray(items, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{what} must be texts (strings) or token-id rows of length {self.max_len}") from None
        if arr.ndim == 1 and arr.shape[0] == self.max_len:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[1] != self.max_len:
            raise ValueError(f"{what} has shape {arr.shape}; expected (n, {self.max_len}) token ids "
                             "(encode texts with domain.validate(list_of_strings))")
        if not np.isfinite(arr).all() or (arr != np.rint(arr)).any():
            raise ValueError(f"{what} holds values that are not whole token ids")
        if arr.size and (arr.min() < 0 or arr.max() >= len(self.vocab)):
            raise ValueError(f"{what} holds ids outside 0..{len(self.vocab) - 1}: was it encoded with this "
                             "domain's vocabulary?")
        return arr

    def _warn_of_cut_terms(self, texts: list[str], ids: np.ndarray, what: str) -> None:
        """Warn when texts longer than ``max_len`` tokens mention a protected term only in the part that encoding
        cut off: as searched they hold no term, so a search skips them (``result.seed_outcomes``)."""
        from ..text.vocabulary import PAD_ID

        full = (ids != PAD_ID).all(axis=1) & ~self.sensitive_mask(ids).any(axis=1)   # a cut text fills every slot
        cut = [int(i) for i in np.flatnonzero(full)
               if np.isin(self.vocab.ids(self.tokenizer.tokenize(texts[i])), self._all_ids).any()]
        if cut:
            import warnings

            warnings.warn(f"{what}: {len(cut)} of {len(texts)} texts (items {cut[:5]}{', ...' if len(cut) > 5 else ''}) "
                          f"mention a protected term only beyond the {self.max_len} tokens a text is cut to: as "
                          "encoded they hold none, and a search skips them; raise max_len or shorten the texts",
                          stacklevel=3)

    def encode_texts(self, texts: Iterable[str]) -> np.ndarray:
        """``(n, max_len)`` int32 ids of raw strings (tokenized, pre-padded/truncated; or the model's own way)."""
        if self.model_tokenizer is not None:
            return self.model_tokenizer(texts)
        return self.vocab.encode(self.tokenizer.tokenize_all(texts), self.max_len)

    def _encode_given(self, texts: list[str]) -> np.ndarray:
        """:meth:`encode_texts` of the user's strings (seeds, inputs), each remembered as written for
        :meth:`strings` (texts fairnb writes itself are not: they would replace the user's case and words)."""
        if self.model_tokenizer is not None:
            return self.model_tokenizer(texts)
        if self._seed_strings is None:
            from ..text.seed_strings import SeedStrings

            self._seed_strings = SeedStrings(self.tokenizer, self.vocab, self.max_len)
        return self._seed_strings.encode(texts)

    def strings(self, items) -> list[str]:
        """The strings a model on strings reads for ``items``: each text rebuilt from the seed string it comes
        from with only its substituted words changed (:mod:`fairnb.text.seed_strings`), or its tokens joined
        (the model's own words, with a model tokeniser; ``<oov>`` for unknown words otherwise)."""
        if self._seed_strings is None or self.model_tokenizer is not None:
            return [self._joined(t) for t in self.vocab.decode(self.ids(items))]
        return self._seed_strings.strings(self.ids(items))

    def _joined(self, tokens) -> str:
        """One text from its tokens: fairnb's detokenisation, or the model's words joined by spaces."""
        return " ".join(tokens) if self.model_tokenizer is not None else self.tokenizer.detokenize(tokens)

    def ids(self, items) -> np.ndarray:
        """``items`` as an int32 id array (no checks beyond the shape)."""
        return np.rint(np.asarray(items, dtype=float)).astype(np.int32).reshape(-1, self.max_len)

    def sensitive_mask(self, items) -> np.ndarray:
        """``(n, max_len)`` bool: where a term of a selected group sits."""
        return np.isin(self.ids(items), self._all_ids)

    def sensitive_positions(self, ids_row) -> list[int]:
        """Token positions of protected terms in one text."""
        return np.flatnonzero(self.sensitive_mask(ids_row)[0]).tolist()

    def candidates(self, items) -> np.ndarray:
        """``(n, max_len, k)`` the substitutes of every token (-1: none): its neighbours, never padding, OOV
        or a term of a selected group; sensitive positions and padding get none."""
        ids = self.ids(items)
        cand = self.neighbours[ids]
        cand = np.where(np.isin(cand, self._all_ids) | (cand < 2), -1, cand)
        cand[self.sensitive_mask(ids) | (ids < 2)] = -1
        return cand

    def perturbable(self, items) -> np.ndarray:
        """``(n, max_len)`` bool: positions a search may substitute (with at least one candidate)."""
        return (self.candidates(items) >= 0).any(axis=2)

    def _variants(self, ids: np.ndarray):
        from ..text.variants import protected_variants

        parts = [protected_variants(ids, g, jointly=self.jointly) for g in self._group_ids.values()]
        flat = np.concatenate([ids, *[p.ids for p in parts]])
        owner = np.concatenate([np.arange(len(ids)), *[p.row for p in parts]])
        return flat, owner

    def variants(self, items):
        """Ragged ``(flat, owner)``: each text first (its own variant), then its protected variants (none
        for a text without a sensitive term)."""
        return self._variants(self.ids(items))

    def own_variant(self, items) -> np.ndarray:
        return np.zeros(len(self.ids(items)), dtype=np.int64)

    def encode(self, items) -> np.ndarray:
        """What the model receives: int32 token ids."""
        return self.ids(items)

    def key(self, items, convention: str) -> np.ndarray:
        """int64 keys: the ids (``"eidig"``), or the ids with sensitive terms blanked to -1 (``"adf"``)."""
        ids = self.ids(items).astype(np.int64)
        if check_convention(convention) == "adf":
            ids[self.sensitive_mask(ids)] = -1
        return np.ascontiguousarray(ids)

    # ------------------------------------------------------------------ display
    def tokens(self, ids_row) -> list[str]:
        """The tokens of one text, padding dropped."""
        return self.vocab.decode(self.ids(ids_row)[:1])[0]

    def text(self, ids_row) -> str:
        """One text as a readable string."""
        return self._joined(self.tokens(ids_row))

    def decode(self, items) -> pd.DataFrame:
        """A ``text`` column with each text as a string."""
        ids = self.ids(items)
        return pd.DataFrame({"text": [self._joined(t) for t in self.vocab.decode(ids)]})

    def swapped_terms(self, X, C):
        """``(position, terms, counterpart terms)`` per pair: the first position where the texts differ (-1
        if none) and its two tokens."""
        X, C = self.ids(X), self.ids(C)
        differs = X != C
        pos = np.where(differs.any(axis=1), differs.argmax(axis=1), -1)
        rows = np.arange(len(X))
        old = [self.vocab.tokens[t] if p >= 0 else "" for t, p in zip(X[rows, pos], pos)]
        new = [self.vocab.tokens[t] if p >= 0 else "" for t, p in zip(C[rows, pos], pos)]
        return pos, old, new

    def pair_columns(self, X, C) -> dict:
        """``term``, ``term'`` and ``group`` of each pair (the swapped sensitive term)."""
        _, old, new = self.swapped_terms(X, C)
        return {"term": old, "term'": new, "group": [self.term_group(t) or "" for t in old]}

    def describe_pair(self, x, counterpart) -> dict:
        """``{"changed": {"position p": (term, term')}, "input": text, "counterpart": text}``."""
        X, C = self.ids(x), self.ids(counterpart)
        changed = {f"position {p}": (self.vocab.tokens[X[0, p]], self.vocab.tokens[C[0, p]])
                   for p in np.flatnonzero(X[0] != C[0])}
        return {"changed": changed, "input": self.text(X), "counterpart": self.text(C)}

    # ------------------------------------------------------------------ storage
    def to_columns(self, items) -> pd.DataFrame:
        """The stored form: one column ``ids`` of space-joined token ids per text (lossless)."""
        return pd.DataFrame({"ids": [_SEP.join(map(str, row)) for row in self.ids(items).tolist()]})

    def from_columns(self, frame: pd.DataFrame) -> np.ndarray:
        """The inverse of :meth:`to_columns`: ``(n, max_len)`` float ids."""
        if "ids" not in frame:
            raise ValueError("a stored text table needs the column 'ids' (written by TextDomain.to_columns)")
        rows = [[int(t) for t in str(s).split()] for s in frame["ids"]]
        return self.validate(np.array(rows, dtype=float).reshape(len(rows), self.max_len), what="the stored texts")

    def to_config(self) -> dict:
        """A JSON-able description (vocabulary, groups, max_len, options); ``from_config`` rebuilds it."""
        return {"kind": self.kind, "vocabulary": list(self.vocab.tokens),
                "groups": {name: list(terms) for name, terms in self.term_groups.items()},
                "max_len": self.max_len, "jointly": self.jointly, "k": self.k,
                "class_names": None if self.class_names is None else list(self.class_names),
                "neighbours": self._neighbours.tolist() if self._given_neighbours else None,
                "model_tokenizer": None if self.model_tokenizer is None else
                [self.model_tokenizer.name, self.model_tokenizer.padding]}

    @classmethod
    def from_config(cls, config: dict) -> "TextDomain":
        """The domain ``config`` (from :meth:`to_config`) describes."""
        from ..text.vocabulary import Vocabulary

        from ..text.model_tokenizer import ModelTokenizer

        table, tokenizer = config.get("neighbours"), config.get("model_tokenizer")
        return cls(Vocabulary(config["vocabulary"]), config["groups"], config["max_len"],
                   jointly=config.get("jointly", False), k=config.get("k", 10), class_names=config.get("class_names"),
                   neighbours=None if table is None else np.array(table, dtype=np.int32).reshape(-1, config.get("k", 10)),
                   model_tokenizer=None if tokenizer is None else
                   ModelTokenizer.not_loaded(tokenizer[0], config["max_len"], padding=tokenizer[1]))
