"""TestSGD on text: groups of texts defined by the sensitive terms they contain, scored with the same bound.

The text side of TestSGD (digest §1.3, §1.7-1.8, §2.4 and §7.1 items 13-16):

* a **rule** is "the text contains the term t" for a term of a sensitive category (a term group such as
  religion: christian, muslim, ...); a **rule set** holds at most one term per category ("contains gay and
  taoist"), and a text is in its group when it contains every one of its terms;
* the **support** of a rule set is category-level (Eq. 3): the share of training texts that contain *some*
  term of each of its categories; rule sets below ``theta`` are not scored (so every term combination over
  the same categories is frequent or not together);
* **in-group samples** are made by term replacement: draw a training text that holds a term of each
  category of the rule set, and replace *every* term of that category by the rule's term ("I am a lesbian"
  -> "I am a gay" for {gay}); so every sample contains every term of the rule set, by construction;
* **out-of-group samples** (the paper leaves them unspecified; §7.1.15's resolution):
  ``complement="unmodified"`` (default) draws a training text that does not contain every term of the rule
  set, unchanged; ``complement="swap"`` draws from the same pool as the group and replaces each category's
  terms by a random term of the category, at least one of them another term than the rule's, so that the
  two sides differ only in the identity terms ("the same texts about another religion");
* the score ``|P(favourable | in) - P(favourable | out)|``, the Wald margins and the stopping rule are those
  of tabular TestSGD (``fairnb.group.scoring``), batched over rule sets in the same way.

Terms are whole tokens (``fairnb.text.Tokenizer`` keeps "african american" one token), so "male" never
matches inside "female". The model works on padded token ids of the vocabulary given (a
``fairnb.text.KerasTextModel``, a Keras model whose first layer is an ``Embedding``, or any model on strings,
see ``fairnb.text.wrap_text_model``). A Keras model whose first layer is a ``TextVectorization`` reads the
training strings as that layer tokenises them (its vocabulary, its length, padded at the end); its vocabulary
need not be given (``run(model, texts)``).

Example
-------
>>> from fairnb import text
>>> data = text.make_template_corpus(n=600, biased_against=["muslim"], bias=1.0, random_state=0)
>>> vocab = text.Vocabulary.build(data.tokens(), extra=text.all_builtin_terms())
>>> toxic = lambda texts: [float("muslim" in t or "liar" in t) for t in texts]     # biased against muslims
>>> groups = TextTestSGD(sensitive=["religion"], min_samples=200, random_state=0).run(toxic, data, vocab)
>>> top = groups.top(1).iloc[0]
>>> print(top.rule_set, top.phi_in, bool(top.phi_out < 0.2))
contains "muslim" 1.0 True
"""
from __future__ import annotations

import itertools
import threading
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..params import COUNT, Options
from .result import GroupResult
from .rules import TooManyRuleSets
from .testsgd import TestSGD

COMPLEMENTS = ("unmodified", "swap")


@dataclass(frozen=True)
class TermRuleSet:
    """A text rule set: ``terms`` holds one ``(category, term)`` per category it constrains."""

    terms: tuple[tuple[str, str], ...]
    support: float = float("nan")

    @property
    def rules(self) -> tuple[tuple[str, str], ...]:
        return self.terms

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(c for c, _ in self.terms)

    @property
    def text(self) -> str:
        """Readable form, e.g. ``contains "gay" and "taoist"``."""
        return "contains " + " and ".join(f'"{t}"' for _, t in self.terms)

    def __repr__(self):
        return f"TermRuleSet({self.text!r}, support={self.support:.3f})"


class TextSampler:
    """Draws in-group and out-of-group texts for many text rule sets at once (see the module docstring).

    Parameters
    ----------
    ids : ``(n, L)`` token ids of the training texts (the seeds).
    categories : ``{category: term ids}`` of the sensitive categories (pairwise disjoint).
    complement : ``"unmodified"`` or ``"swap"``.

    A rule set is passed to :meth:`sample` as a row of term ids, one per category in the order of
    ``categories``, ``-1`` where it leaves the category free.
    """

    def __init__(self, ids: np.ndarray, categories: dict, complement: str = "unmodified"):
        if complement not in COMPLEMENTS:
            raise ValueError(f"complement must be one of {COMPLEMENTS}, got {complement!r}")
        self.ids = np.asarray(ids)
        self.names = list(categories)
        self.term_ids = [np.asarray(categories[c]) for c in self.names]
        self.complement = complement
        self.where = [np.isin(self.ids, t) for t in self.term_ids]           # (n, L) per category
        self.has = np.column_stack([w.any(axis=1) for w in self.where]) if self.names else \
            np.zeros((len(self.ids), 0), bool)
        self.counts = np.ones(len(self.ids), dtype=np.int64)                 # one record per training text
        self._pools: dict = {}

    def support(self, constrained: tuple[int, ...]) -> float:
        """Share of training texts holding a term of every category in ``constrained`` (Eq. 3)."""
        return float(self.has[:, list(constrained)].all(axis=1).mean()) if len(self.ids) else 0.0

    def pool(self, row: np.ndarray, inside: bool) -> np.ndarray:
        """The training texts a rule set's samples are drawn from, on one side."""
        row = np.asarray(row)
        constrained = tuple(np.flatnonzero(row >= 0).tolist())
        if inside or self.complement == "swap":
            key = ("category", constrained)
            if key not in self._pools:
                self._pools[key] = np.flatnonzero(self.has[:, list(constrained)].all(axis=1))
        else:
            key = ("without", tuple(row.tolist()))
            if key not in self._pools:
                contains_all = np.ones(len(self.ids), bool)
                for c in constrained:
                    contains_all &= (self.ids == row[c]).any(axis=1)
                self._pools[key] = np.flatnonzero(~contains_all)
        return self._pools[key]

    def sample(self, rows: np.ndarray, inside: bool, m: int, rng: np.random.Generator) -> np.ndarray:
        """``m`` texts per rule set (rows of term ids), inside (or outside) each group: ``(r * m, L)``."""
        out = []
        for row in np.asarray(rows):
            pool = self.pool(row, inside)
            if not len(pool):
                raise ValueError("a group has no training text on this side; it cannot be sampled")
            X = self.ids[pool[rng.integers(len(pool), size=m)]].copy()
            if inside:
                self._replace(X, row, {c: np.full(m, row[c]) for c in np.flatnonzero(row >= 0)})
            elif self.complement == "swap":
                self._replace(X, row, self._other_terms(row, m, rng))
            out.append(X)
        return np.concatenate(out) if out else np.zeros((0, self.ids.shape[1]), self.ids.dtype)

    def _replace(self, X: np.ndarray, row: np.ndarray, new: dict) -> None:
        """Replace every term of each category ``c`` in ``new`` by ``new[c]`` (one term id per text), in place."""
        for c, terms in new.items():
            hit = np.isin(X, self.term_ids[c])
            X[hit] = np.broadcast_to(terms[:, None], X.shape)[hit]

    def _other_terms(self, row: np.ndarray, m: int, rng: np.random.Generator) -> dict:
        """Per constrained category, a random term per text; at least one differs from the rule's term."""
        cats = np.flatnonzero(row >= 0)
        picks = {c: self.term_ids[c][rng.integers(len(self.term_ids[c]), size=m)] for c in cats}
        same = np.all([picks[c] == row[c] for c in cats], axis=0)
        if same.any():                  # one category of those texts gets another term than the rule's
            k = cats[rng.integers(len(cats), size=int(same.sum()))]
            for i, c in zip(np.flatnonzero(same), k):
                others = self.term_ids[c][self.term_ids[c] != row[c]]
                picks[c][i] = others[rng.integers(len(others))]
        return picks


class TextTestSGD(TestSGD):
    """TestSGD for text classifiers: rule sets over the presence of sensitive terms (module docstring).

    Parameters (the paper's defaults where it has them)
    ----------
    terms : the sensitive categories: a ``fairnb.text.TermGroups``, or a source name of
        ``fairnb.text.term_groups`` (``"testsgd"``: gender, race, religion, age from TestSGD's Table 1).
    sensitive : the categories of ``terms`` to use (default all).
    complement : how out-of-group texts are drawn, ``"unmodified"`` or ``"swap"`` (module docstring).
    max_len : length of the padded id rows when texts are given as strings (default: the longest text).
    theta, error_threshold, confidence, min_samples, max_samples, favourable, round_size, batch_size,
    top_k, random_state : as in ``fairnb.group.TestSGD``.
    """

    __test__ = False
    _parameter_constraints = {**TestSGD._parameter_constraints, "terms": [str, Mapping],
                              "sensitive": [None, list, tuple], "complement": [Options(COMPLEMENTS)],
                              "max_len": [None, COUNT]}

    def __init__(self, terms="testsgd", sensitive=None, complement: str = "unmodified", max_len: int | None = None,
                 theta: float = 0.05, error_threshold: float = 0.05, confidence: float = 0.95,
                 min_samples: int = 1000, max_samples: int | None = None, favourable: int = 1,
                 round_size: int = 128, batch_size: int = 200_000, top_k: int = 3, random_state: int | None = None):
        self.terms = terms
        self.sensitive = sensitive
        self.complement = complement
        self.max_len = max_len
        self.theta = theta
        self.error_threshold = error_threshold
        self.confidence = confidence
        self.min_samples = min_samples
        self.max_samples = max_samples
        self.favourable = favourable
        self.round_size = round_size
        self.batch_size = batch_size
        self.top_k = top_k
        self.random_state = random_state
        self._stop_event = threading.Event()

    def groups(self):
        """The sensitive categories used: ``{name: terms}`` (a ``TermGroups``)."""
        from ..text import TermGroups, term_groups

        groups = term_groups(self.terms) if isinstance(self.terms, str) else self.terms
        if not isinstance(groups, TermGroups):
            raise TypeError(f"terms must be a fairnb.text.TermGroups or a source name such as 'testsgd', "
                            f"got {type(self.terms).__name__}")
        if self.sensitive is not None:
            groups = groups.subset(self.sensitive)
        seen: dict[str, str] = {}
        for name, group in groups.items():
            shared = [t for t in group if t in seen]
            if shared:
                raise ValueError(f"the sensitive categories {seen[shared[0]]!r} and {name!r} share the terms "
                                 f"{shared[:5]}; choose categories without common terms (sensitive=[...])")
            seen.update(dict.fromkeys(group, name))
        return groups

    def setup(self, data, vocab=None, model=None) -> TextSampler:
        """The sampler over the training texts of ``data`` (a ``TextDataset``: its training split; a list
        of strings or of token lists; or an ``(n, L)`` id array of ``vocab``). Strings are tokenised as
        ``model`` reads them when its first layer is a ``TextVectorization`` (then ``vocab`` may be left out),
        else with fairnb's tokeniser."""
        from ..text import group_ids

        vocab, encode = _model_tokenisation(model, vocab, self.max_len)
        self._validate_params()
        groups = self.groups() if encode is None else _known_terms(self.groups(), vocab)
        ids = _training_ids(data, vocab, self.max_len, groups.all_terms, encode)
        return TextSampler(ids, {name: group_ids(vocab, terms) for name, terms in groups.items()}, self.complement)

    def rule_sets(self, data, vocab=None, model=None) -> list[TermRuleSet]:
        """The frequent text rule sets of ``data`` (Algorithm 1 with Eq. 3's category-level support)."""
        return self._frequent(self.setup(data, vocab, model), _model_tokenisation(model, vocab, self.max_len)[0])

    def _frequent(self, sampler: TextSampler, vocab) -> list[TermRuleSet]:
        names = sampler.names
        out = []
        for size in range(1, len(names) + 1):
            for cats in itertools.combinations(range(len(names)), size):
                support = sampler.support(cats)
                if support < self.theta - 1e-12:
                    continue
                for ids in itertools.product(*(sampler.term_ids[c] for c in cats)):
                    out.append(TermRuleSet(tuple((names[c], vocab.tokens[t]) for c, t in zip(cats, ids)), support))
                    if len(out) > self.MAX_RULE_SETS:
                        raise TooManyRuleSets(f"TextTestSGD: more than {self.MAX_RULE_SETS:,} frequent rule sets; use "
                                              f"fewer categories (sensitive=[...]) or a higher theta (now {self.theta:g})")
        return out

    def run(self, model, data, vocab=None, *, rule_sets=None, listeners=()) -> GroupResult:
        """Score every frequent text rule set of ``data`` (or the given ``rule_sets``) on ``model``.

        ``model`` reads ``(n, L)`` token ids of ``vocab``, or strings through its own ``TextVectorization``
        (see the module docstring for what is accepted); the rest is as in ``TestSGD.run``: a ranked
        ``GroupResult``, ``stop()`` and Ctrl-C keep what was scored, a model error is raised with the partial
        result as ``.result``.
        """
        from ..text import wrap_text_model

        t0 = time.perf_counter()
        self._stop_event = threading.Event()
        sampler = self.setup(data, vocab, model)
        vocab = _model_tokenisation(model, vocab, self.max_len)[0]
        model = wrap_text_model(model, vocab)
        rule_sets = self._frequent(sampler, vocab) if rule_sets is None else list(rule_sets)
        rows = np.full((len(rule_sets), len(sampler.names)), -1, dtype=np.int64)
        for i, rs in enumerate(rule_sets):
            if not isinstance(rs, TermRuleSet):
                raise TypeError(f"rule_sets must hold TermRuleSet objects (from rule_sets()), got {type(rs).__name__}")
            for cat, term in rs.terms:
                if cat not in sampler.names or vocab.id(term) not in sampler.term_ids[sampler.names.index(cat)]:
                    raise ValueError(f"rule set {rs.text!r}: {term!r} is not a term of the category {cat!r} "
                                     f"(categories: {sampler.names})")
                rows[i, sampler.names.index(cat)] = vocab.id(term)
        empty = [not len(sampler.pool(r, True)) or not len(sampler.pool(r, False)) for r in rows]
        keep = ~np.array(empty, dtype=bool)
        scorable = [rs for rs, k in zip(rule_sets, keep) if k]
        n_terms = [len(t) for t in sampler.term_ids]
        info = {"n_candidates": int(np.prod([n + 1 for n in n_terms], dtype=object)) - 1,
                "n_frequent": len(rule_sets), "skipped": [rs.text for rs, e in zip(rule_sets, empty) if e],
                "aliases": {}, "class_names": getattr(data, "label_names", None), "training_records": len(sampler.ids),
                "sensitive": list(sampler.names), "kinds": {n: "terms" for n in sampler.names},
                "complement": self.complement}
        return self._score(model, sampler, rows[keep], scorable, info, t0, listeners)


def _model_tokenisation(model, vocab, max_len):
    """``(vocabulary, encode)``: with a model whose first layer is a ``TextVectorization``, that layer's
    vocabulary (``vocab``, if given, must be it) and tokeniser (strings -> its padded ids); else ``vocab`` and
    None (fairnb's tokeniser)."""
    from ..text import Vocabulary
    from ..text.model_tokenizer import ModelTokenizer, text_vectorization_of

    layer = text_vectorization_of(model) if model is not None else None
    if layer is not None:
        own = Vocabulary.from_text_vectorization(layer)
        if vocab is not None and vocab != own:
            raise ValueError("the model reads strings through its TextVectorization layer, whose vocabulary is not the "
                             "one given: leave vocab out (the layer's is used)")
        return own, ModelTokenizer.of_text_vectorization(layer, max_len)
    if not isinstance(vocab, Vocabulary):
        raise TypeError(f"vocab must be the fairnb.text.Vocabulary the model was trained with, got "
                        f"{type(vocab).__name__} (only a model with a TextVectorization first layer brings its own)")
    return vocab, None


def _known_terms(groups, vocab):
    """``groups`` without the terms that a model's own vocabulary lacks (the model reads them as an unknown word,
    so no text can hold them), with a warning naming them."""
    from ..text import TermGroups

    lacking = [t for t in groups.all_terms if t not in vocab]
    if not lacking:
        return groups
    warnings.warn(f"the model's vocabulary lacks these sensitive terms, which it reads as an unknown word: {lacking[:10]}"
                  f"{' ...' if len(lacking) > 10 else ''}; its groups are made of the others", stacklevel=4)
    return TermGroups({name: [t for t in terms if t in vocab] for name, terms in groups.items()})


def _training_ids(data, vocab, max_len, terms, encode=None) -> np.ndarray:
    """``(n, L)`` token ids of the training texts of ``data`` (see ``TextTestSGD.setup``); strings through
    ``encode`` when given (a model's own tokeniser)."""
    from ..text import Tokenizer, all_builtin_terms
    from ..text.vocabulary import as_id_array

    if hasattr(data, "split") and hasattr(data, "texts"):
        data = data.split()[0]
    if isinstance(data, np.ndarray) and data.ndim == 2:
        ids = as_id_array(data)
        if ids.size and ids.max() >= len(vocab):
            raise ValueError(f"token ids go up to {ids.max()} but the vocabulary has {len(vocab)} tokens: encode "
                             "the texts with the model's vocabulary")
        return ids
    data = list(data)
    if not data:
        raise ValueError("no training texts given")
    if all(isinstance(t, str) for t in data):
        if encode is not None:
            return encode(data)
        data = Tokenizer((*all_builtin_terms(), *terms)).tokenize_all(data)
    elif not all(isinstance(t, (list, tuple)) for t in data):
        raise TypeError("data must be a TextDataset, a list of strings, a list of token lists or an (n, L) id array")
    elif encode is not None:
        return encode([" ".join(t) for t in data])
    length = max_len or max(len(t) for t in data) or 1
    return vocab.encode(data, max_len=int(length))
