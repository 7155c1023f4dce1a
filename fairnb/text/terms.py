"""Sensitive-term groups: the identity terms whose swap makes "the same text, another group".

Two published sources, kept verbatim (lowercase, in the papers' order):

* ``ADF_TERMS``: ADF's text lists (Zhang et al., TSE; its ``sensitive_feature.csv``): country (160),
  ethnic (17), race (7), religion (14). ADF has no gender list.
* ``TESTSGD_TERMS``: TestSGD's Table 1 (from Dixon et al. 2018): gender (14), race (17), religion (9),
  age (8), with multi-word terms such as ``"african american"`` and ``"middle aged"``.

``term_groups()`` gives the default groups (ADF's four, plus TestSGD's gender and age, which ADF lacks);
``term_groups("testsgd")`` TestSGD's four; ``extra=`` adds or extends groups. A term is matched as one
whole token (see :mod:`fairnb.text.tokenize`, which keeps multi-word and hyphenated terms whole), so
``"guinea"`` never matches inside ``"guinea-bissau"``.

Example
-------
>>> groups = term_groups(extra={"religion": ["pagan"]})
>>> len(groups["race"]), "pagan" in groups["religion"], groups.group_of("muslim")
(7, True, ('religion',))
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

_COUNTRY = """afghanistan albania algeria andorra angola argentina armenia australia austria bahrain bangladesh
barbados luxembourg belarus belgium belize benin bhutan mozambique bolivia botswana brazil brunei bulgaria cambodia
cameroon canada chad chile china colombia croatia cuba cyprus hungary denmark djibouti uganda dominica ecuador eritrea
libya estonia swaziland ethiopia fiji tonga france venezuela gabon georgia germany ghana greece grenada guatemala
guinea guyana haiti honduras micronesia spain thailand iceland indonesia iran yemen ireland israel italy jamaica japan
england jordan uzbekistan kazakhstan kenya kiribati kuwait laos latvia lebanon lesotho turkey liberia lithuania peru
madagascar malawi liechtenstein oman malaysia maldives mali morocco malta mauritius mexico qatar mauritania moldova
niger poland monaco mongolia vanuatu myanmar namibia kyrgyzstan nauru samoa nepal egypt india panama tanzania nigeria
norway pakistan palau paraguay rwanda portugal vietnam singapore zimbabwe slovenia russia philippines comoros suriname
montenegro romania somalia america nicaragua uruguay togo sudan finland netherlands slovakia sweden switzerland syria
tajikistan bahamas tuvalu ukraine gambia burundi azerbaijan iraq zambia senegal serbia guinea-bissau seychelles tunisia
turkmenistan"""

ADF_TERMS: dict[str, tuple[str, ...]] = {
    "country": tuple(_COUNTRY.split()),
    "ethnic": ("german", "hispanic", "latino", "mexican", "filipino", "english", "polish", "scottish", "norwegian",
               "chinese", "dutch", "italian", "swedish", "french", "african", "irish", "russian"),
    "race": ("white", "asian", "amerindian", "black", "bushmen", "hottentots", "australoid"),
    "religion": ("christian", "buddhism", "islam", "muslim", "judaism", "atheist", "hinduism", "jainism", "sikhism",
                 "confucianism", "zoroastrianism", "shinto", "taoism", "baha'i"),
}

TESTSGD_TERMS: dict[str, tuple[str, ...]] = {
    "gender": ("lesbian", "gay", "bisexual", "transgender", "trans", "queer", "lgbt", "lgbtq", "homosexual",
               "straight", "heterosexual", "male", "female", "nonbinary"),
    "race": ("african", "african american", "black", "white", "european", "hispanic", "latino", "latina", "latinx",
             "mexican", "canadian", "american", "asian", "indian", "middle eastern", "chinese", "japanese"),
    "religion": ("christian", "muslim", "jewish", "buddhist", "catholic", "protestant", "sikh", "taoist", "atheist"),
    "age": ("old", "older", "young", "younger", "teenage", "millennial", "middle aged", "elderly"),
}

_SOURCES = {
    "default": {**ADF_TERMS, "gender": TESTSGD_TERMS["gender"], "age": TESTSGD_TERMS["age"]},
    "adf": ADF_TERMS,
    "testsgd": TESTSGD_TERMS,
}


class TermGroups(Mapping):
    """An immutable mapping ``group name -> tuple of terms`` (lowercase, whitespace-normalised, unique).

    Example
    -------
    >>> g = TermGroups({"pets": ["Cat", "dog", "cat"]})
    >>> g["pets"], g.all_terms
    (('cat', 'dog'), ('cat', 'dog'))
    >>> g.with_groups({"pets": ["guinea pig"]})["pets"]
    ('cat', 'dog', 'guinea pig')
    """

    def __init__(self, groups: Mapping[str, Iterable[str]]):
        if not isinstance(groups, Mapping):
            raise TypeError(f"groups must be a mapping of group name -> terms, got {type(groups).__name__}")
        self._groups: dict[str, tuple[str, ...]] = {}
        for name, terms in groups.items():
            if isinstance(terms, str):
                raise TypeError(f"group {name!r}: give a list of terms, not one string {terms!r}")
            clean = tuple(dict.fromkeys(normalise_term(t) for t in terms))
            if len(clean) < 2:
                raise ValueError(f"group {name!r} needs at least 2 distinct terms to swap between, got {clean}")
            self._groups[str(name)] = clean

    def __getitem__(self, name: str) -> tuple[str, ...]:
        try:
            return self._groups[name]
        except KeyError:
            raise KeyError(f"no sensitive-term group {name!r}; groups: {sorted(self._groups)}") from None

    def __iter__(self):
        return iter(self._groups)

    def __len__(self):
        return len(self._groups)

    def __repr__(self):
        return "TermGroups(" + ", ".join(f"{k}: {len(v)}" for k, v in self._groups.items()) + ")"

    @property
    def all_terms(self) -> tuple[str, ...]:
        """Every term of every group, once, in group order."""
        return tuple(dict.fromkeys(t for terms in self._groups.values() for t in terms))

    @property
    def multiword_terms(self) -> tuple[str, ...]:
        """The terms of more than one word (the tokenizer joins them into one token)."""
        return tuple(t for t in self.all_terms if " " in t)

    def group_of(self, term: str) -> tuple[str, ...]:
        """The names of the groups holding ``term`` (a term may be in several, e.g. "black")."""
        term = normalise_term(term)
        return tuple(name for name, terms in self._groups.items() if term in terms)

    def with_groups(self, extra: Mapping[str, Iterable[str]]) -> "TermGroups":
        """A copy where each group of ``extra`` is added, or appended to the group of that name."""
        merged = {name: list(terms) for name, terms in self._groups.items()}
        if not isinstance(extra, Mapping):
            raise TypeError(f"extra must be a mapping of group name -> terms, got {type(extra).__name__}")
        for name, terms in extra.items():
            if isinstance(terms, str):
                raise TypeError(f"group {name!r}: give a list of terms, not one string {terms!r}")
            merged.setdefault(str(name), []).extend(terms)
        return TermGroups(merged)

    def subset(self, names: Iterable[str]) -> "TermGroups":
        """Only the named groups."""
        if isinstance(names, str):
            names = [names]
        return TermGroups({name: self[name] for name in names})


def normalise_term(term: str) -> str:
    """Lowercase, stripped, inner whitespace collapsed to one space."""
    if not isinstance(term, str):
        raise TypeError(f"a sensitive term must be a string, got {type(term).__name__}")
    clean = " ".join(term.lower().split())
    if not clean:
        raise ValueError("a sensitive term must not be empty")
    return clean


def all_builtin_terms() -> tuple[str, ...]:
    """Every term of every built-in list (ADF's and TestSGD's), once: what a model vocabulary must hold."""
    return tuple(dict.fromkeys(t for src in (ADF_TERMS, TESTSGD_TERMS) for terms in src.values() for t in terms))


def term_groups(source: str = "default", extra: Mapping[str, Iterable[str]] | None = None) -> TermGroups:
    """The built-in sensitive-term groups, optionally extended.

    ``source``: ``"default"`` (ADF's country, ethnic, race, religion + TestSGD's gender, age), ``"adf"`` or
    ``"testsgd"``. ``extra``: groups to add, or terms to append to an existing group.
    """
    if source not in _SOURCES:
        raise ValueError(f"source must be one of {sorted(_SOURCES)}, got {source!r}")
    groups = TermGroups(_SOURCES[source])
    return groups.with_groups(extra) if extra else groups
