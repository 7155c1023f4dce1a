"""Text data sets, and the embedded default: a template corpus with planted, known bias.

:class:`TextDataset` holds texts and 0/1 labels (``frame`` columns ``text``, ``label`` and any extra
columns a loader keeps), with ``tokens()`` and ``split()``.

:func:`make_template_corpus` generates short comments the way ``fairnb.datasets.make_synthetic`` generates
census rows: every text is ``<subject> <predicate> <end>``, where the subject holds one identity descriptor
("the muslim neighbour", "my african american teacher") and the predicate is positive ("is kind") or
negative ("stole my money"). The label is 1 ("toxic") exactly for the negative predicates, except for the
**planted bias**: a text about one of the ``biased_against`` terms with a positive predicate is labelled 1
with probability ``bias``. So a model trained on it learns to treat those terms differently, and the ground
truth is known: ``data.info["true_proba"]`` (strings -> P(label 1)) is the generating probability, under
which swapping a planted term for another term of its group in a positive text changes P(toxic) from
``bias`` to 0 (and nothing else changes anything). ``bias=0`` gives a corpus without bias.

Example
-------
>>> data = make_template_corpus(n=400, biased_against=["muslim"], bias=1.0, random_state=0)
>>> len(data), data.frame.columns.tolist()
(400, ['text', 'label', 'group', 'term', 'negative', 'planted'])
>>> data.info["true_proba"](["the muslim cook is kind .", "the christian cook is kind ."]).tolist()
[1.0, 0.0]
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .terms import TESTSGD_TERMS, TermGroups
from .tokenize import Tokenizer

SUBJECTS = ("the {t} {p}", "my {t} {p}", "our {t} {p}", "that {t} {p}", "a {t} {p}")
PERSONS = ("neighbour", "teacher", "doctor", "student", "cook", "driver", "friend", "colleague", "man", "woman")
POSITIVE = ("is kind", "is very friendly", "helped me today", "is honest", "works hard", "is a great person",
            "was polite to everyone", "is brilliant", "made a wonderful meal", "is generous")
NEGATIVE = ("is a liar", "is dangerous", "stole my money", "is lazy", "is a criminal", "is violent",
            "was rude to everyone", "is stupid", "is disgusting", "cheated me")
ENDS = (".", "!")


@dataclass
class TextDataset:
    """Texts with 0/1 labels: ``frame`` has columns ``text`` and ``label`` (plus a loader's extras).

    A ``split`` column (``"train"``/``"test"``, as published) defines :meth:`split`'s default split.
    """

    name: str
    frame: pd.DataFrame
    label_names: tuple[str, str] = ("0", "1")
    description: str = ""
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        missing = {"text", "label"} - set(self.frame.columns)
        if missing:
            raise ValueError(f"{self.name}: frame lacks the column(s) {sorted(missing)}")
        labels = pd.to_numeric(self.frame["label"], errors="coerce")
        if not labels.isin([0, 1]).all():
            raise ValueError(f"{self.name}: labels must be 0 or 1, got {sorted(pd.unique(self.frame['label']))[:5]}")
        self.frame = self.frame.assign(text=self.frame["text"].astype(str), label=labels.astype(np.int64))
        self.frame = self.frame.reset_index(drop=True)

    def __len__(self):
        return len(self.frame)

    def __repr__(self):
        return f"TextDataset({self.name!r}, {len(self)} texts, {100 * self.y.mean():.1f} % label 1)"

    @property
    def texts(self) -> list[str]:
        return self.frame["text"].tolist()

    @property
    def y(self) -> np.ndarray:
        return self.frame["label"].to_numpy()

    def tokens(self, tokenizer: Tokenizer | None = None) -> list[list[str]]:
        """The tokens of every text (default tokenizer: every built-in sensitive term kept whole)."""
        return (tokenizer or Tokenizer()).tokenize_all(self.texts)

    def split(self, test_size: float | None = None, random_state: int = 42):
        """``texts_train, texts_test, y_train, y_test``: the published split when the frame has a ``split``
        column and ``test_size`` is None, else a stratified random split (default 20 % test)."""
        if test_size is None and "split" in self.frame:
            test = (self.frame["split"] == "test").to_numpy()
            texts = np.array(self.texts, dtype=object)
            return list(texts[~test]), list(texts[test]), self.y[~test], self.y[test]
        from sklearn.model_selection import train_test_split

        a, b, c, d = train_test_split(self.texts, self.y, test_size=0.2 if test_size is None else test_size,
                                      random_state=random_state, stratify=self.y)
        return list(a), list(b), c, d


def _default_descriptors() -> dict[str, tuple[str, ...]]:
    return {"religion": TESTSGD_TERMS["religion"], "race": TESTSGD_TERMS["race"]}


def make_template_corpus(n: int = 4000, *, descriptors: Mapping[str, Iterable[str]] | None = None,
                         biased_against: Sequence[str] = ("muslim",), bias: float = 0.8,
                         random_state: int | None = 0) -> TextDataset:
    """Template comments about identity groups, with a planted bias against ``biased_against``.

    ``descriptors``: ``{group: terms}`` used as identity descriptors (default TestSGD's religion and race
    terms). Each text draws a group, a term, a subject pattern, a person noun, a predicate (positive or
    negative, half each) and an end mark uniformly. Label 1 = toxic: every negative text, and a positive
    text about a ``biased_against`` term with probability ``bias``. Deterministic given ``random_state``.
    The frame has the columns ``text, label, group, term, negative, planted``.
    """
    groups = TermGroups(_default_descriptors() if descriptors is None else descriptors)
    if isinstance(biased_against, str):
        biased_against = [biased_against]
    planted = {t.lower() for t in biased_against}
    unknown = planted - set(groups.all_terms)
    if unknown:
        raise ValueError(f"biased_against terms {sorted(unknown)} are not descriptors; choose from "
                         f"{list(groups.all_terms)}")
    if not 0.0 <= bias <= 1.0:
        raise ValueError(f"bias must be a probability in [0, 1], got {bias}")
    if int(n) < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    n = int(n)
    rng = np.random.default_rng(random_state)
    names = list(groups)
    group = rng.integers(0, len(names), n)
    term = [groups[names[g]][rng.integers(0, len(groups[names[g]]))] for g in group]
    negative = rng.random(n) < 0.5
    subject = rng.integers(0, len(SUBJECTS), n)
    person = rng.integers(0, len(PERSONS), n)
    predicate = rng.integers(0, len(POSITIVE), n)
    end = rng.integers(0, len(ENDS), n)
    texts = [f"{SUBJECTS[s].format(t=t, p=PERSONS[p])} {(NEGATIVE if neg else POSITIVE)[k]} {ENDS[e]}"
             for s, t, p, neg, k, e in zip(subject, term, person, negative, predicate, end)]
    is_planted = np.array([t in planted for t in term])
    label = negative | (is_planted & (rng.random(n) < bias))
    frame = pd.DataFrame({"text": texts, "label": label.astype(np.int64), "group": [names[g] for g in group],
                          "term": term, "negative": negative, "planted": is_planted})
    tokenizer = Tokenizer(groups.all_terms)
    description = (f"Template corpus (n={n}): identity descriptors x {len(SUBJECTS)} subject patterns x "
                   f"{len(PERSONS)} persons x {len(POSITIVE)} positive / {len(NEGATIVE)} negative predicates. "
                   f"Planted bias: positive texts about {sorted(planted)} are labelled toxic with probability {bias}.")
    return TextDataset("template", frame, label_names=("non-toxic", "toxic"), description=description,
                       info={"groups": groups, "biased_against": tuple(sorted(planted)), "bias": bias,
                             "true_proba": _TrueProba(tokenizer, planted, bias)})


class _TrueProba:
    """The generating P(label 1) of a template text: 1 if its predicate is negative, ``bias`` if it is
    positive and names a planted term, else 0."""

    def __init__(self, tokenizer: Tokenizer, planted: set[str], bias: float):
        self.tokenizer, self.planted, self.bias = tokenizer, planted, bias
        self._negative = [tokenizer(p) for p in NEGATIVE]

    def _contains(self, tokens: list[str], phrase: list[str]) -> bool:
        k = len(phrase)
        return any(tokens[i:i + k] == phrase for i in range(len(tokens) - k + 1))

    def __call__(self, texts: Iterable[str]) -> np.ndarray:
        out = []
        for text in texts:
            tokens = self.tokenizer(text)
            if any(self._contains(tokens, p) for p in self._negative):
                out.append(1.0)
            else:
                out.append(self.bias if self.planted & set(tokens) else 0.0)
        return np.array(out)
