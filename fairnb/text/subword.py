"""Subword text models: words for the reader and the search, WordPiece/BPE pieces for the model.

A pretrained transformer reads a text as subword pieces of its own tokeniser (``tokenizers.Tokenizer``, e.g. the
``tokenizer.json`` beside a BERT checkpoint): ``"atheists"`` is ``atheist ##s``. fairnb keeps **words** as the unit
of everything a reader sees and a search changes (identity terms, substitutions, constraints, the inspector): a
:class:`~fairnb.domains.TextDomain` built by ``TextDomain.for_model(model, groups, tokenizer=T)`` holds texts as
rows of word ids of a word list (the words of your texts, or else the tokeniser's whole-word entries, and every
built-in and selected identity term), and :class:`SubwordTextModel` turns each row into the model's input: the words joined by
spaces, encoded by ``T`` into piece ids and an attention mask (special tokens added, padded or cut to the
model's length). A substitution may change the number of pieces: the row is encoded again.

Gradients (``adf_asc``, ``asc``, ``adf_hf``, ``hf``). The searches score a substitution ``old -> new`` at a word
from the gradient ``g`` at that word and the word vectors, first order: ``g . (e[new] - e[old])``. With pieces,
``g_j`` is the sum of the loss gradients at the word's pieces and ``e[w]`` the mean of the embeddings of the
pieces of ``w`` (``SubwordTextModel.embedding_matrix``). Then ``g_j . (e[new] - e[old])`` is the exact first-order
change of moving every piece of the old word by the same vector ``e[new] - e[old]``; for two one-piece words it
is HotFlip's first-order change itself (a byte-level BPE word's vector is that of its pieces at the start of a
text, without the space before it). A word of 3 pieces replaced by one of 1 piece changes the positions of
the pieces after it, which no first-order term sees: the oracle re-checks every candidate through the
tokeniser and the model, so a score only orders the candidates.

Constraints. ``SameTokens`` holds at the level of words (a text written out reads back as the same words), and a
substitution writes in only words the model reads as written (:meth:`SubwordTokenizer.reads_back`: no unknown
piece, unchanged by the tokeniser's normaliser), so the pieces the model reads are those of the words shown;
``SameIdentityTerms`` and ``MaxWordsChanged`` count words.

Example
-------
>>> from tokenizers import Tokenizer, models, pre_tokenizers                         # doctest: +SKIP
>>> T = Tokenizer(models.WordPiece({"[PAD]": 0, "[UNK]": 1, "the": 2, "atheist": 3, "##s": 4},
...                                unk_token="[UNK]"))                              # doctest: +SKIP
>>> T.pre_tokenizer = pre_tokenizers.BertPreTokenizer()                              # doctest: +SKIP
>>> sub = SubwordTokenizer(T, max_pieces=6)                                         # doctest: +SKIP
>>> sub.word_pieces(["atheists"])                                                   # doctest: +SKIP
[[3, 4]]
"""
from __future__ import annotations

import os
import warnings

import numpy as np

from .vocabulary import OOV_ID, PAD_ID, Vocabulary


def is_subword_tokenizer(tokenizer) -> bool:
    """A ``tokenizers.Tokenizer`` or the path of a ``tokenizer.json``."""
    if isinstance(tokenizer, (str, os.PathLike)):
        return str(tokenizer).endswith(".json")
    return type(tokenizer).__module__.split(".")[0] == "tokenizers" and type(tokenizer).__name__ == "Tokenizer"


class SubwordTokenizer:
    """A model's subword tokeniser (``tokenizers.Tokenizer`` or the path of its ``tokenizer.json``) on word rows:
    :meth:`encode_words` gives the piece ids, attention mask and the word each piece belongs to, padded or cut
    (special tokens kept) to ``max_pieces``."""

    def __init__(self, tokenizer, max_pieces: int):
        if not is_subword_tokenizer(tokenizer):
            raise TypeError(f"tokenizer must be a tokenizers.Tokenizer or the path of a tokenizer.json, got "
                            f"{type(tokenizer).__name__}")
        from tokenizers import Tokenizer

        if isinstance(tokenizer, (str, os.PathLike)):
            if not os.path.isfile(tokenizer):
                raise FileNotFoundError(f"tokenizer: no file {str(tokenizer)!r}")
            tokenizer = Tokenizer.from_file(str(tokenizer))
        if isinstance(max_pieces, bool) or not isinstance(max_pieces, (int, np.integer)) or max_pieces < 3:
            raise ValueError(f"max_pieces must be an integer >= 3, got {max_pieces!r}")
        pad = (tokenizer.padding or {}).get("pad_id")
        self.tokenizer = Tokenizer.from_str(tokenizer.to_str())     # a copy: its own truncation, no padding
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(int(max_pieces))
        self.max_pieces = int(max_pieces)
        self.pad_id = int(pad if pad is not None else (self.tokenizer.token_to_id("[PAD]") or 0))
        self.unk_token = getattr(self.tokenizer.model, "unk_token", None) or "[UNK]"

    def __repr__(self):
        return f"SubwordTokenizer({self.tokenizer.get_vocab_size()} pieces, max_pieces={self.max_pieces})"

    def word_pieces(self, words) -> list[list[int]]:
        """The piece ids of each word alone (no special tokens)."""
        return [e.ids for e in self.tokenizer.encode_batch(list(words), add_special_tokens=False)]

    def reads_back(self, words) -> np.ndarray:
        """Per word: whether the model reads it as written (no unknown piece, and the tokeniser's normaliser
        leaves it unchanged: ``"māori"`` reads as ``maori``). A search writes in only such words."""
        words = list(words)
        unk = self.tokenizer.token_to_id(self.unk_token)
        norm = self.tokenizer.normalizer
        return np.array([unk not in pieces and (norm is None or norm.normalize_str(w) == w)
                         for w, pieces in zip(words, self.word_pieces(words))], dtype=bool)

    def whole_words(self) -> list[str]:
        """The tokeniser's pieces that are whole words (no ``##``-continuation, special or added token, no
        punctuation), by id: WordPiece only (a BPE vocabulary's pieces are not words: give the words of your
        texts)."""
        if type(self.tokenizer.model).__name__ != "WordPiece":
            raise ValueError(f"the tokeniser is a {type(self.tokenizer.model).__name__}, whose pieces are not words: give "
                             "TextDomain.for_model(..., vocabulary=[the words of your texts])")
        prefix = getattr(self.tokenizer.model, "continuing_subword_prefix", None) or "##"
        added = {t.content for t in self.tokenizer.get_added_tokens_decoder().values()}
        vocab = sorted(self.tokenizer.get_vocab().items(), key=lambda kv: kv[1])
        return [t for t, _ in vocab if t not in added and not t.startswith(prefix) and t.isalpha()]

    def encode_words(self, word_rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(piece ids (n, P) int32, mask (n, P) bool, word (n, P) int64)`` of texts given as lists of words: each
        text is its words joined by spaces, as the tokeniser reads it; ``word[i, p]`` is the index of the word
        piece ``p`` belongs to (-1 for special tokens and padding)."""
        rows = [list(r) for r in word_rows]
        n, P = len(rows), self.max_pieces
        ids = np.full((n, P), self.pad_id, dtype=np.int32)
        mask = np.zeros((n, P), dtype=bool)
        word = np.full((n, P), -1, dtype=np.int64)
        texts = [" ".join(r) for r in rows]
        for i, (r, enc) in enumerate(zip(rows, self.tokenizer.encode_batch(texts) if texts else [])):
            m = len(enc.ids)
            ids[i, :m], mask[i, :m] = enc.ids, np.asarray(enc.attention_mask, dtype=bool)
            starts = np.cumsum([0] + [len(w) + 1 for w in r[:-1]]) if r else np.zeros(0, dtype=np.int64)
            last = np.array([o[1] - 1 for o in enc.offsets], dtype=np.int64)   # a piece's last character: a
            own = np.searchsorted(starts, last, side="right") - 1              # BPE piece may hold the space before
            special = np.asarray(enc.special_tokens_mask, dtype=bool)
            word[i, :m] = np.where(special | (own < 0), -1, own)
        return ids, mask, word

    def row_words(self, vocab: Vocabulary, word_ids) -> list[list[str]]:
        """The words of each row of ids of ``vocab`` (padding dropped; the unknown word as the unknown piece)."""
        ids = np.asarray(word_ids, dtype=np.int64)
        if ids.ndim != 2 or (ids.size and (ids.min() < 0 or ids.max() >= len(vocab))):
            raise ValueError(f"word ids must be an (n, L) array of ids in 0..{len(vocab) - 1}")
        tokens = vocab.tokens
        return [[self.unk_token if t == OOV_ID else tokens[t] for t in row if t != PAD_ID] for row in ids]

    def encode_rows(self, vocab: Vocabulary, word_ids) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`encode_words` of rows of word ids of ``vocab``."""
        return self.encode_words(self.row_words(vocab, word_ids))

    def word_tokenizer(self, vocab: Vocabulary, words_of, max_len: int):
        """The :class:`~fairnb.text.model_tokenizer.ModelTokenizer` of a subword domain: strings -> the word ids
        of ``vocab`` (``words_of(text)`` splits a text into words); it warns when words are not in ``vocab``
        (the model would read them as its unknown piece)."""
        from .model_tokenizer import ModelTokenizer

        def tokenize(texts):
            rows = [words_of(t) for t in texts]
            unknown = sorted({w for r in rows for w in r if w not in vocab})
            if unknown:
                warnings.warn(f"{len(unknown)} words of the texts are not in the domain's word list, so the model "
                              f"reads them as {self.unk_token}: {unknown[:8]}; pass their words with "
                              "TextDomain.for_model(..., vocabulary=[...])", UserWarning, stacklevel=4)
            return [vocab.ids(r) for r in rows]

        out = ModelTokenizer(tokenize, max_len, padding="post", name="subword")
        out.subword = self
        return out


def word_vocabulary(subword: SubwordTokenizer, words=None, terms=()) -> Vocabulary:
    """The word list of a subword domain: ``words`` (the words of your texts) or, when None, every whole word of
    the tokeniser (about 22,000 for BERT: the candidate table then takes a minute), then the identity ``terms``."""
    base = subword.whole_words() if words is None else [str(w) for w in words]
    return Vocabulary.build([], extra=[*base, *(str(t) for t in terms)])


def word_matrix(piece_matrix: np.ndarray, subword: SubwordTokenizer, vocab: Vocabulary) -> np.ndarray:
    """``(len(vocab), d)``: each word's pieces' mean embedding of ``piece_matrix`` (padding zeros, the unknown word
    the unknown piece's)."""
    E = np.zeros((len(vocab), piece_matrix.shape[1]), dtype=np.float32)
    unk = subword.tokenizer.token_to_id(subword.unk_token)
    E[OOV_ID] = piece_matrix[unk] if unk is not None else 0.0
    for i, pieces in enumerate(subword.word_pieces(list(vocab.tokens[2:])), start=2):
        if pieces:
            E[i] = piece_matrix[pieces].mean(axis=0)
    return E


def by_length(fn, batch_size: int, ids, mask, *extra):
    """``fn(ids, mask, *extra)`` of a model that reads only the pieces under its attention ``mask``, over chunks of
    ``batch_size`` rows of about the same length: the rows sorted by their last real piece, each chunk cut to
    its longest row. Returns float64 results in the rows' order (a list when ``fn`` returns several); a
    per-piece result ``(n, width, ...)`` is padded back with zeros to the full width.

    >>> by_length(lambda i, m: i.sum(axis=1, keepdims=True), 2, np.array([[1, 1, 1], [2, 0, 0], [3, 3, 0]]),
    ...           np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0]], bool)).ravel().tolist()
    [3.0, 2.0, 6.0]
    """
    ids, mask = np.asarray(ids), np.asarray(mask, dtype=bool)
    n, width = mask.shape
    length = np.where(mask.any(axis=1), width - mask[:, ::-1].argmax(axis=1), 1)
    order = np.argsort(length, kind="stable")
    chunks = [order[at:at + batch_size] for at in range(0, n, batch_size)]
    parts = []
    for rows in chunks:
        L = int(length[rows].max())
        res = fn(ids[rows, :L], mask[rows, :L], *(np.asarray(e)[rows] for e in extra))
        parts.append([np.asarray(r, dtype=np.float64) for r in (res if isinstance(res, (list, tuple)) else [res])])
    outs = []
    for results in zip(*parts):
        per_piece = results[0].ndim == 3
        out = np.zeros((n, width, *results[0].shape[2:]) if per_piece else (n, *results[0].shape[1:]))
        for rows, r in zip(chunks, results):
            if per_piece:
                out[rows, :r.shape[1]] = r
            else:
                out[rows] = r
        outs.append(out)
    return outs if isinstance(res, (list, tuple)) else outs[0]


def token_embedding_layer(model):
    """The model's ``keras.layers.Embedding`` of the piece ids: the one named ``"token_embedding"``, else its first
    ``Embedding`` (a functional model lists its layers in the order they run); else ``ValueError``."""
    import keras

    embeddings = [layer for layer in model.layers if isinstance(layer, keras.layers.Embedding)]
    named = [layer for layer in embeddings if layer.name == "token_embedding"]
    if not embeddings:
        raise ValueError("a subword text model must be a functional Keras model whose first input (piece ids) goes "
                         "into a keras.layers.Embedding (e.g. fairnb.text.bert.bert_classifier)")
    return (named or embeddings)[0]


class SubwordTextModel:
    """A Keras classifier on ``[piece ids, attention mask]`` (or piece ids alone) as a white-box fairnb text model
    on **word** id rows of ``vocab``: :meth:`predict_proba`, :meth:`embedding_gradient` (per word: the sum of the
    gradients at its pieces) and ``embedding_matrix`` (per word: the mean of its pieces' embeddings); see the
    module docstring for why.

    A model marked ``reads_masked_pieces_only`` (the BERTs of :mod:`fairnb.text.bert`: attention and pooling see only
    the pieces under the attention mask) is read **cut to length**: the rows of a call are sorted by their number
    of pieces and each chunk of ``batch_size`` is cut to its longest text, so a batch of 15-piece texts costs
    half of what it costs at the model's 32 (the same outputs; gradients are zero past each text). Any other model
    is read at its full length.

    ``remember`` (rows, 0: none): :meth:`predict_proba` keeps the outputs of that many recent distinct rows and
    asks the model only for rows it has not seen (a row repeated within a call is read once). The search
    that makes the adapter turns it on (its texts' check as they are is the first check of its global phase,
    local walkers go back to their seed); the model's weights must not change while the adapter remembers.

    >>> adapter = SubwordTextModel(model, domain.subword, domain.vocab)             # doctest: +SKIP
    >>> adapter.predict_proba(domain.validate(["the atheists cook"]))              # doctest: +SKIP
    """

    def __init__(self, model, subword: SubwordTokenizer, vocab: Vocabulary, batch_size: int = 256,
                 remember: int = 0):
        import keras
        import tensorflow as tf

        from ..models.keras import output_kind

        if not isinstance(model, keras.Model):
            raise TypeError(f"SubwordTextModel needs a keras.Model, got {type(model).__name__}")
        if len(model.inputs) not in (1, 2):
            raise ValueError(f"a subword text model takes piece ids, or piece ids and an attention mask; this one "
                             f"takes {len(model.inputs)} inputs")
        P = model.inputs[0].shape[1]
        if P != subword.max_pieces:
            raise ValueError(f"the model reads {P} pieces but the tokeniser pads to {subword.max_pieces}")
        self.model, self.subword, self.vocab, self.batch_size = model, subword, vocab, int(batch_size)
        self.remember, self.remembered_rows = int(remember), 0   # rows answered from memory
        self._memory: dict[bytes, np.ndarray] = {}
        self.output, self.n_classes = output_kind(model)
        embedding = token_embedding_layer(model)
        self._takes_mask = len(model.inputs) == 2
        self.cuts = self._takes_mask and bool(getattr(model, "reads_masked_pieces_only", False))
        self._embedding = embedding
        self._from_embedded = keras.Model([embedding.output, *model.inputs[1:]], model.output)
        self.piece_matrix = np.asarray(keras.ops.convert_to_numpy(embedding.embeddings), dtype=np.float32)
        self.embedding_matrix = self._word_matrix()
        self.vocab_size, self.dim = self.embedding_matrix.shape
        width = None if self.cuts else P                 # a model read cut to length takes any width
        ids_spec = tf.TensorSpec([None, width], tf.int32)
        mask_spec = tf.TensorSpec([None, width], tf.bool)
        cls_spec = tf.TensorSpec([None], tf.int32)
        self._proba_fn = tf.function(lambda ids, mask: self._forward(self._embedding(ids), mask),
                                     input_signature=[ids_spec, mask_spec])
        self._grad_fns = {of: tf.function(lambda ids, mask, c, of=of: self._grad_graph(ids, mask, c, of),
                                          input_signature=[ids_spec, mask_spec, cls_spec]) for of in ("loss", "proba")}

    def __repr__(self):
        return f"SubwordTextModel({self.model.name}, {len(self.vocab)} words, {self.subword})"

    def _word_matrix(self) -> np.ndarray:
        return word_matrix(self.piece_matrix, self.subword, self.vocab)

    def _forward(self, embedded, mask):
        """Graph code: ``(n, k)`` class probabilities from the piece embeddings (and the attention mask)."""
        import tensorflow as tf

        p = self._from_embedded([embedded, mask] if self._takes_mask else embedded, training=False)
        return tf.concat([1.0 - p[:, :1], p[:, :1]], axis=1) if self.output == "sigmoid" else p

    def _grad_graph(self, ids, mask, c, of):
        import tensorflow as tf

        embedded = self._embedding(ids)
        with tf.GradientTape() as tape:
            tape.watch(embedded)
            p = self._forward(embedded, mask)
            chosen = tf.gather(p, c, axis=1, batch_dims=1)
            s = -tf.math.log(tf.maximum(chosen, 1e-12)) if of == "loss" else chosen
            total = tf.reduce_sum(s)
        return tape.gradient(total, embedded), p

    # ------------------------------------------------------------------ words -> pieces
    def words(self, word_ids) -> list[list[str]]:
        """The words of each row (:meth:`SubwordTokenizer.row_words`)."""
        return self.subword.row_words(self.vocab, word_ids)

    def pieces(self, word_ids):
        """``(piece ids, mask, word index per piece)`` of word-id rows (:meth:`SubwordTokenizer.encode_rows`)."""
        return self.subword.encode_rows(self.vocab, word_ids)

    # ------------------------------------------------------------------ the fairnb text-model protocol
    def predict_proba(self, word_ids) -> np.ndarray:
        """``(n, k)`` class probabilities of ``(n, L)`` word-id rows."""
        if not self.remember or not len(word_ids):
            ids, mask, _ = self.pieces(word_ids)
            return self._batched(self._proba_fn, ids, mask)
        rows = np.asarray(word_ids, dtype=np.int64)
        memory, keys = self._memory, [row.tobytes() for row in rows]
        new = {}
        for i, key in enumerate(keys):
            if key not in memory and key not in new:
                new[key] = i
        if new:
            ids, mask, _ = self.pieces(rows[list(new.values())])
            memory.update(zip(new, self._batched(self._proba_fn, ids, mask)))
        self.remembered_rows += len(keys) - len(new)
        out = np.array([memory[k] for k in keys])
        for key in list(memory)[:max(len(memory) - self.remember, 0)]:    # the oldest first
            del memory[key]
        return out

    def piece_gradient(self, piece_ids, mask, classes, of: str = "loss") -> tuple[np.ndarray, np.ndarray]:
        """``(gradients (n, P, d), probabilities (n, k))``: the gradient of ``-log p[class]`` (``of="loss"``) or
        ``p[class]`` (``"proba"``) w.r.t. the embedding of each piece."""
        from ..models.keras import class_indices

        if of not in self._grad_fns:
            raise ValueError(f"of must be 'loss' or 'proba', got {of!r}")
        ids = np.asarray(piece_ids, dtype=np.int32)
        c = class_indices(classes, len(ids), self.n_classes)
        return tuple(self._batched(self._grad_fns[of], ids, np.asarray(mask, dtype=bool), c))

    def _batched(self, fn, ids, mask, *extra):
        """``fn(ids, mask, *extra)`` over chunks of ``batch_size`` rows: cut to length (:func:`by_length`) when the
        model reads only its masked pieces, else at full length."""
        from ..models.keras import run_batched

        if self.cuts and len(ids):
            return by_length(fn, self.batch_size, ids, mask, *extra)
        return run_batched(fn, self.batch_size, ids, mask, *extra)

    def embedding_gradient(self, word_ids, classes, of: str = "loss") -> tuple[np.ndarray, np.ndarray]:
        """``(gradients (n, L, d), probabilities (n, k))`` per word position: the sum of the gradients at the
        word's pieces (zero at padding and at words cut off by the model's length)."""
        word_ids = np.asarray(word_ids)
        ids, mask, word = self.pieces(word_ids)
        G, p = self.piece_gradient(ids, mask, classes, of)
        out = np.zeros((*word_ids.shape, G.shape[2]), dtype=np.float64)
        # the word of a piece is its text's word number; the words sit in the row's non-padding slots, in order
        slot = [np.flatnonzero(row != PAD_ID) for row in word_ids]
        rows, cols = np.nonzero(word >= 0)
        at = np.array([slot[i][word[i, j]] for i, j in zip(rows, cols)], dtype=np.int64)
        np.add.at(out, (rows, at), G[rows, cols])
        return out, p

    def warm_up(self) -> None:
        """Trace the forward and gradient functions on one row before a search's clock starts."""
        row = np.full((1, 1), PAD_ID, dtype=np.int64)
        self.predict_proba(row)
        self.embedding_gradient(row, [0])
