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
        parts = {tuple(w for w, _, _ in self._words(t)): t for t in self.terms if " " in t}
        self._multi = dict(sorted(parts.items(), key=lambda kv: -len(kv[0])))
        self._max_len = max((len(k) for k in self._multi), default=1)

    def __repr__(self):
        return f"Tokenizer({len(self.terms)} terms kept whole)"

    def _words(self, text: str) -> list[tuple[str, int, int]]:
        """``(word, start, end)`` of each word of ``text`` (offsets into the lower-cased text)."""
        out = []
        for match in _TOKEN.finditer(text.lower().replace("\u2019", "'")):
            out.extend(self._split_clitic(match.group(), match.start()))
        return out

    def _split_clitic(self, tok: str, start: int) -> list[tuple[str, int, int]]:
        end = start + len(tok)
        if "'" not in tok or tok in self._whole:
            return [(tok, start, end)]
        for clitic in _CLITICS:
            if tok.endswith(clitic) and len(tok) > len(clitic):
                return [(tok[: -len(clitic)], start, end - len(clitic)), (clitic, end - len(clitic), end)]
        return [(tok, start, end)]

    def __call__(self, text: str) -> list[str]:
        return self.tokenize(text)

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text``."""
        return [token for token, _, _ in self.token_spans(text)]

    def token_spans(self, text: str) -> list[tuple[str, int, int]]:
        """``(token, start, end)`` of each token: ``text[start:end]`` is where it stands in ``text`` (as written
        there, e.g. ``"African American"`` for the token ``"african american"``).

        >>> Tokenizer().token_spans("The Muslim's cook")
        [('the', 0, 3), ('muslim', 4, 10), ("'s", 10, 12), ('cook', 13, 17)]
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        words = self._words(text)
        if not self._multi:
            return words
        out, i = [], 0
        while i < len(words):
            for n in range(min(self._max_len, len(words) - i), 1, -1):
                term = self._multi.get(tuple(w for w, _, _ in words[i:i + n]))
                if term is not None:
                    out.append((term, words[i][1], words[i + n - 1][2]))
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
