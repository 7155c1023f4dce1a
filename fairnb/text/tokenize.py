"""Tokenisation as ADF's text search needs it (digest §7.2.1).

* lowercase (GloVe 6B is lowercase);
* punctuation marks are tokens of their own ("token (i.e., word or punctuation)");
* hyphenated and apostrophe words stay whole ("guinea-bissau", "baha'i"), English clitics split off as
  GloVe's tokenizer did ("don't" -> "do", "n't"; "muslim's" -> "muslim", "'s");
* multi-word sensitive terms ("african american", "middle aged") become ONE token, so a swap is always
  one token -> one token and a text and its variants stay aligned position by position.

Example
-------
>>> tok = Tokenizer()
>>> tok("My African American neighbour isn't from Guinea-Bissau!")
['my', 'african american', 'neighbour', 'is', "n't", 'from', 'guinea-bissau', '!']
>>> tok.detokenize(['i', 'do', "n't", 'know', ',', 'really', '.'])
"i don't know, really."
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from .terms import all_builtin_terms, normalise_term

_TOKEN = re.compile(r"[^\W_]+(?:['-][^\W_]+)*|[^\w\s]|_")
_CLITICS = ("n't", "'s", "'re", "'ve", "'ll", "'d", "'m")
_NO_SPACE_BEFORE = set(".,!?;:%)]}") | set(_CLITICS)
_NO_SPACE_AFTER = set("([{$#")


class Tokenizer:
    """Text -> list of lowercase tokens, keeping the given terms whole.

    ``terms``: the terms that must come out as one token each (multi-word terms are joined with one
    space; words with an apostrophe are not split into clitics). Default: every built-in sensitive term
    (:mod:`fairnb.text.terms`). Pass ``TermGroups.all_terms`` of your own groups to add yours.
    """

    def __init__(self, terms: Iterable[str] | None = None):
        terms = all_builtin_terms() if terms is None else tuple(normalise_term(t) for t in terms)
        self.terms = tuple(dict.fromkeys(terms))
        self._whole = {t for t in self.terms if " " not in t}
        # each multi-word term as the word tokens it is made of; longest first so the longest wins
        parts = {tuple(self._words(t)): t for t in self.terms if " " in t}
        self._multi = dict(sorted(parts.items(), key=lambda kv: -len(kv[0])))
        self._max_len = max((len(k) for k in self._multi), default=1)

    def __repr__(self):
        return f"Tokenizer({len(self.terms)} terms kept whole)"

    def _words(self, text: str) -> list[str]:
        out = []
        for tok in _TOKEN.findall(text.lower().replace("\u2019", "'")):
            out.extend(self._split_clitic(tok))
        return out

    def _split_clitic(self, tok: str) -> list[str]:
        if "'" not in tok or tok in self._whole:
            return [tok]
        for clitic in _CLITICS:
            if tok.endswith(clitic) and len(tok) > len(clitic):
                return [tok[: -len(clitic)], clitic]
        return [tok]

    def __call__(self, text: str) -> list[str]:
        return self.tokenize(text)

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text``."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        words = self._words(text)
        if not self._multi:
            return words
        out, i = [], 0
        while i < len(words):
            for n in range(min(self._max_len, len(words) - i), 1, -1):
                term = self._multi.get(tuple(words[i:i + n]))
                if term is not None:
                    out.append(term)
                    i += n
                    break
            else:
                out.append(words[i])
                i += 1
        return out

    def tokenize_all(self, texts: Iterable[str]) -> list[list[str]]:
        """The tokens of each text."""
        return [self.tokenize(t) for t in texts]

    @staticmethod
    def detokenize(tokens: Iterable[str]) -> str:
        """A readable string: tokens joined by spaces, no space before punctuation and clitics."""
        out = ""
        for tok in tokens:
            if out and tok not in _NO_SPACE_BEFORE and out[-1] not in _NO_SPACE_AFTER:
                out += " "
            out += tok
        return out
