"""The ``Domain`` protocol: what the engine, the oracle, the counters, ``Result`` and the inspector
may ask of an input kind (tabular rows today; sentences and images implement the same members).

A domain owns its input type. Required members:

``kind`` (class attribute)
    a short name (``"tabular"``) under which the domain is registered, so that ``from_config``
    rebuilds it (``register_domain``) and the inspector picks its view.
``protected``
    a non-empty description of the protected attributes (the oracle refuses a domain without one).
``validate(items, *, what) -> items``
    check a batch and return it in the domain's own form, or raise ``ValueError`` naming the problem.
``variants(items)``
    every protected variant of every input, the input itself included. Either an array
    ``(n, m, ...)`` (the same ``m`` for every input) or a *ragged* structure: a list of ``n``
    sequences (any number of variants per input, also one), or a pair ``(flat, owner)`` of the
    flattened variants and the index of the input each belongs to. The oracle flattens them into one
    model call and regroups the outputs per input (``fairnb.oracle.flatten_variants`` and
    ``group_outputs``).
``own_variant(items) -> (n,) int``
    the position of each input's own variant among its variants.
``encode(items)``
    what the model receives (the identity for tabular rows; token ids or tensors for other kinds).
``key(items, convention)``
    de-duplication keys: a 2-D integer array (one row per input) or a list of hashable values;
    ``convention`` is ``"eidig"`` (the full input) or ``"adf"`` (the input without its protected
    part). ``fairnb.counting.UniqueCounter`` counts on them.
``describe_pair(x, counterpart) -> dict``
    a short, human-readable account of one pair (for display).
``to_config() -> dict`` / ``from_config(config)`` (classmethod)
    a JSON-able description that rebuilds the domain (``Result.save`` / ``Result.load``).

Storage and display (``Result`` keeps inputs and counterparts as float arrays ``(n, *item_shape)``):

``item_shape``
    the shape of one input (tabular ``(n_features,)``, text ``(max_len,)``, images ``(h, w, c)``).
``to_columns(items) -> DataFrame`` / ``from_columns(frame) -> items``
    the stored form: one row per input, plain columns CSV and parquet hold, losslessly read back.
``decode(items) -> DataFrame``
    the inputs human-readable (``result.pairs``).
``protected_names``
    the protected attributes' names (tabular columns, a text domain's term groups, an image attribute).
``protected_columns`` (optional: ``protected_names`` when absent, see ``protected_columns()``)
    the columns of ``decode`` and ``pair_columns`` that show the protected part, highlighted in tables
    with their primed counterparts (tabular: the protected features; text: the swapped ``term``;
    images: the attribute f_sa sees).

Optional: ``default_constraints() -> list`` of the ``fairnb.constraints`` a search on the domain uses unless
given ``constraints="paper"`` or its own (none when absent: a tabular domain's bounds already keep its inputs
valid); ``pair_columns(X, C) -> dict`` of columns that show what each counterpart changes (put beside
the input in ``result.pairs``, e.g. ``sex'``).

Optional capabilities (a strategy declares which it needs in ``Search.domain_needs``; the engine checks
them at ``run`` with ``require_capabilities``): ``sample(n, rng)`` (random inputs), ``clip`` with
``lower``/``upper`` (a bounded integer domain: steps, gradients), ``candidates``/``sensitive_mask``/``vocab``
(``"substitutions"``: a text domain whose steps are word substitutions).

Examples
--------
Tabular (``fairnb.domains.TabularDomain``):

>>> from fairnb.domains import Feature, TabularDomain, domain_from_config
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected=["sex"])
>>> dom.key([[1, 2]], "adf").tolist(), domain_from_config(dom.to_config()).names
([[2]], ('sex', 'x'))

Text (a sketch: words with a protected identity term, any number of variants per sentence):

>>> class Words:
...     kind, protected = "words-example", ("he", "she")
...     def variants(self, items):   # ragged: a sentence without the term has one variant
...         return [[s] if not set(s.split()) & set(self.protected) else
...                 [" ".join(t if t not in self.protected else p for t in s.split()) for p in self.protected]
...                 for s in items]
>>> Words().variants(["he runs", "it runs"])
[['he runs', 'she runs'], ['it runs']]

Images (a sketch: the variants of a picture as one array ``(n, m, h, w)``, here a flipped mask region):

>>> import numpy as np
>>> class Pictures:
...     kind, protected = "pictures-example", ("region",)
...     def variants(self, items):
...         items = np.asarray(items, dtype=float)
...         other = items.copy()
...         other[:, :1] = 1 - other[:, :1]       # the protected region (first row of pixels) changed
...         return np.stack([items, other], axis=1)
>>> Pictures().variants(np.zeros((3, 2, 2))).shape
(3, 2, 2, 2)
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

CONVENTIONS = ("adf", "eidig")

_KINDS: dict[str, type] = {}


def check_convention(convention: str) -> str:
    """``convention`` if it is one of ``CONVENTIONS``, else a ValueError naming the choices.

    >>> check_convention("adf")
    'adf'
    """
    if convention not in CONVENTIONS:
        raise ValueError(f"unknown counting convention {convention!r}; choose from {CONVENTIONS}")
    return convention


#: the columns ``result.pairs`` adds after the input's: no feature may take one of these names
PAIR_OUTPUTS = ("p", "p'", "label", "label'", "difference", "near_threshold", "material", "phase", "seed", "time")


def check_feature_names(names) -> None:
    """A ValueError naming a feature whose name ``result.pairs`` (or ``result.to_frame``) gives one of its own
    columns: one of ``PAIR_OUTPUTS``, or another feature's name primed (``age'``, the counterpart's age).

    >>> check_feature_names(["age", "p"])
    Traceback (most recent call last):
    ValueError: feature 'p': result.pairs names its own columns p, p', label, label', difference, near_threshold, material, phase, seed, time, and the counterpart's <feature>'; rename the feature, e.g. 'p_'
    """
    for name in names:
        if name in PAIR_OUTPUTS or (name.endswith("'") and name[:-1] in names):
            raise ValueError(f"feature {name!r}: result.pairs names its own columns {', '.join(PAIR_OUTPUTS)}, and "
                             f"the counterpart's <feature>'; rename the feature, e.g. {name.rstrip(chr(39)) + '_'!r}")


def protected_columns(domain) -> tuple[str, ...]:
    """The columns of ``domain``'s pair tables that show the protected part (its ``protected_columns``, or its
    ``protected_names`` for a domain that names no others).

    >>> class Rows:
    ...     protected_names = ("sex",)
    >>> protected_columns(Rows())
    ('sex',)
    """
    return tuple(getattr(domain, "protected_columns", None) or domain.protected_names)


@runtime_checkable
class Domain(Protocol):
    """The members every domain has (see the module docstring for what each means)."""

    kind: str
    protected: object

    def validate(self, items, *, what: str = "input"): ...

    def variants(self, items): ...

    def own_variant(self, items): ...

    def encode(self, items): ...

    def key(self, items, convention: str): ...

    def describe_pair(self, x, counterpart) -> dict: ...

    def to_config(self) -> dict: ...


def register_domain(cls: type) -> type:
    """Register a domain class under its ``kind`` so that ``domain_from_config`` rebuilds it (a decorator).

    >>> @register_domain
    ... class Toy:
    ...     kind = "toy-doctest"
    ...     def to_config(self): return {"kind": self.kind}
    ...     @classmethod
    ...     def from_config(cls, config): return cls()
    >>> type(domain_from_config({"kind": "toy-doctest"})).__name__
    'Toy'
    """
    kind = getattr(cls, "kind", None)
    if not isinstance(kind, str) or not kind:
        raise TypeError(f"{cls.__name__} needs a class attribute kind = '<name>' to be registered")
    _KINDS[kind] = cls
    return cls


def domain_from_config(config: dict):
    """The domain that ``config`` (from ``domain.to_config()``) describes."""
    kind = config.get("kind") if isinstance(config, dict) else None
    if kind not in _KINDS:
        raise ValueError(f"unknown domain kind {kind!r}; registered kinds: {sorted(_KINDS)} "
                         "(register a new kind with fairnb.domains.register_domain)")
    return _KINDS[kind].from_config(config)


def require_capabilities(method: str, domain, needs) -> None:
    """Raise a clear TypeError when ``domain`` lacks a capability the strategy ``method`` needs.

    ``needs`` holds ``"sample"`` (random inputs), ``"bounded"`` (a bounded integer domain with
    ``clip``, ``lower`` and ``upper``) and/or ``"substitutions"`` (a text domain: ``candidates``,
    ``sensitive_mask``, ``vocab``).

    >>> require_capabilities("eidig", object(), ("bounded",))
    Traceback (most recent call last):
    ...
    TypeError: eidig needs a bounded integer domain (clip, lower, upper); object is not
    """
    members = {"sample": ("sample",), "bounded": ("clip", "lower", "upper"),
               "substitutions": ("candidates", "sensitive_mask", "vocab")}
    words = {"sample": "a domain it can sample from (sample)", "bounded": "a bounded integer domain (clip, lower, upper)",
             "substitutions": "a text domain with word substitutions (fairnb.domains.TextDomain)"}
    for need in needs:
        if not all(hasattr(domain, m) for m in members[need]):
            raise TypeError(f"{method} needs {words[need]}; {type(domain).__name__} is not")
