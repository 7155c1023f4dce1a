"""The user's own strings behind token ids: a text the search writes, rebuilt from its seed's original string.

A search works on token ids, lower-cased and with unknown words as ``<oov>``; a model on strings (a
scikit-learn pipeline, a function) should read what the user wrote. :class:`SeedStrings` remembers each seed
string a :class:`~fairnb.domains.TextDomain` encodes, with where each of its tokens stands in it. A searched
text (a seed with some words substituted) is rebuilt from the seed string it comes from, the nearest one
with the same padding, by writing only its changed tokens into that string, each in the case of the word it
replaces (``"Muslim"`` -> ``"Christian"``). Case, spacing, punctuation and the words the vocabulary lacks stay as
the user wrote them. A row that comes from no remembered string is its tokens joined (``<oov>`` included).

Example
-------
>>> from fairnb.text import Tokenizer, Vocabulary
>>> tok = Tokenizer()
>>> vocab = Vocabulary.build([["the", "muslim", "cook"]], extra=["christian"])
>>> seeds = SeedStrings(tok, vocab, max_len=6)
>>> ids = seeds.encode(["The  Muslim cook, Zorblax!"])
>>> ids[0, 1] = vocab.id("christian")                  # "muslim" -> "christian"
>>> seeds.strings(ids)
['The  Christian cook, Zorblax!']
"""
from __future__ import annotations

import numpy as np

from .vocabulary import PAD_ID


class SeedStrings:
    """The seed strings encoded so far and the rebuilding of searched texts from them."""

    def __init__(self, tokenizer, vocab, max_len: int):
        self.tokenizer, self.vocab, self.max_len = tokenizer, vocab, int(max_len)
        self._rows = np.zeros((0, self.max_len), dtype=np.int32)
        self._texts: list[str] = []
        self._spans: list[list[tuple[int, int]]] = []
        self._known: dict[bytes, int] = {}

    def __len__(self):
        return len(self._texts)

    def encode(self, texts) -> np.ndarray:
        """``(n, max_len)`` ids of ``texts`` (fairnb's tokenisation, pre-padded), each string remembered."""
        texts = list(texts)
        spans = [self.tokenizer.token_spans(t) for t in texts]
        ids = self.vocab.encode([[tok for tok, _, _ in s] for s in spans], self.max_len)
        fresh = []
        for row, text, span in zip(ids, texts, spans):
            key = row.tobytes()
            if key not in self._known and len(text.lower()) == len(text):    # offsets hold in the original
                self._known[key] = len(self._texts)
                self._texts.append(text)
                self._spans.append([(a, b) for _, a, b in span][-self.max_len:])
                fresh.append(row)
        if fresh:
            self._rows = np.vstack([self._rows, np.stack(fresh)])
        return ids

    def strings(self, ids) -> list[str]:
        """The string of each id row: its seed's string with the changed tokens written in."""
        ids = np.asarray(ids, dtype=np.int32).reshape(-1, self.max_len)
        seed = self._nearest_seed(ids)
        return [self._rebuilt(row, s) if s >= 0 else " ".join(self.vocab.decode(row[None])[0])
                for row, s in zip(ids, seed)]

    def _nearest_seed(self, ids: np.ndarray, chunk: int = 256) -> np.ndarray:
        """Per row, the remembered seed with the same padding and the fewest differing tokens (-1: none)."""
        out = np.full(len(ids), -1, dtype=np.int64)
        if not len(self._rows):
            return out
        pads = self._rows == PAD_ID
        for start in range(0, len(ids), chunk):
            part = ids[start:start + chunk]
            differ = (part[:, None, :] != self._rows[None]).sum(axis=2)
            same_padding = ((part == PAD_ID)[:, None, :] == pads[None]).all(axis=2)
            differ = np.where(same_padding, differ, self.max_len + 1)
            best = differ.argmin(axis=1)
            out[start:start + chunk] = np.where(differ[np.arange(len(part)), best] <= self.max_len, best, -1)
        return out

    def _rebuilt(self, row: np.ndarray, seed: int) -> str:
        text, spans, original = self._texts[seed], self._spans[seed], self._rows[seed]
        offset = self.max_len - len(spans)                   # token j sits at position offset + j
        for position in np.flatnonzero(row != original)[::-1]:
            start, end = spans[position - offset]
            text = text[:start] + _in_case_of(text[start:end], self.vocab.tokens[row[position]]) + text[end:]
        return text


def _in_case_of(word: str, token: str) -> str:
    """``token`` written as ``word`` is: upper case, capitalised, or as it is (a space before a word that
    replaces a punctuation mark)."""
    if not word[:1].isalnum() and token[:1].isalnum():
        return " " + token
    if word.isupper() and len(word) > 1:
        return token.upper()
    if word[:1].isupper():
        return token[:1].upper() + token[1:]
    return token
