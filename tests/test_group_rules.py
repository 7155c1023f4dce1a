"""TestSGD rules and frequent rule sets (digest oracles R1, R2, R6, R8-R10)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from fairnb.domains import Feature, TabularDomain
from fairnb.group import count_candidates, frequent_rule_sets, sensitive_features

RACES = ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black")


def _domain():
    return TabularDomain([Feature("sex", 0, 1, labels=("female", "male")),
                          Feature("race", 0, 4, labels=RACES),
                          Feature("age", 0, 99),
                          Feature("age_code", 1, 4, labels=("16-25", "26-45", "46-65", "66+")),
                          Feature("hours", 0, 99)])


def test_rule_counts_for_hand_made_domains():
    feats = sensitive_features(_domain(), ["sex", "race", "age", "age_code"], continuous=["age", "age_code"])
    assert [len(f.rules()) for f in feats] == [2, 30, 54, 9]     # 2^2-2, 2^5-2, K(K+1)/2-1, 4*5/2-1
    assert count_candidates(feats) == 3 * 31 * 55 * 10 - 1
    # a 4-valued feature kept categorical gets every proper subset
    assert len(sensitive_features(_domain(), ["age_code"], continuous=[])[0].rules()) == 14


def test_auto_gives_interval_rules_to_coded_ages():
    """``auto`` reads interval labels ("16-25", ..., "66+") as an ordered feature: runs of adjacent codes, not
    arbitrary sets such as "age_code in {16-25, 66+}"."""
    (code,) = sensitive_features(_domain(), ["age_code"])
    assert code.kind == "continuous" and len(code.rules()) == 9
    assert sensitive_features(_domain(), ["race"])[0].kind == "categorical"


def test_auto_kind_and_bins():
    sex, race, age = sensitive_features(_domain(), ["sex", "race", "age"])
    assert (sex.kind, race.kind, age.kind) == ("categorical", "categorical", "continuous")
    assert age.n_bins == 10 and age.edges[:3] == (0.0, 10.0, 20.0)
    assert age.bins([0, 9, 10, 55, 99]).tolist() == [0, 0, 1, 5, 9]
    # every value lands in exactly one bin and the runs of bins cover the values they name
    assert sorted(set(age.bins(np.arange(100)).tolist())) == list(range(10))


def test_rule_texts_are_readable():
    feats = sensitive_features(_domain(), ["race", "age", "age_code"], continuous=["age", "age_code"])
    texts = {r.text for f in feats for r in f.rules()}
    assert "race in {Other, Black}" in texts
    assert "race = White" in texts
    assert "age in [20, 40)" in texts and "age >= 60" in texts and "age < 30" in texts
    assert "age_code in 26-45 .. 46-65" in texts and "age_code = 66+" in texts


def _brute_force(bin_rows, feats, theta):
    per_feature = [[None] + f.rules() for f in feats]
    out = {}
    for combo in itertools.product(*per_feature):
        if all(r is None for r in combo):
            continue
        ok = np.ones(len(bin_rows), dtype=bool)
        for p, r in enumerate(combo):
            if r is not None:
                ok &= r.mask[bin_rows[:, p]]
        if ok.mean() >= theta - 1e-12:
            out[tuple(sorted((r.feature.name, tuple(sorted(r.bins))) for r in combo if r is not None))] = ok.mean()
    return out


def _key(rs):
    return tuple(sorted((r.feature.name, tuple(sorted(r.bins))) for r in rs.rules))


@pytest.mark.parametrize("theta", [0.0, 0.02, 0.05, 0.2, 0.5])
def test_apriori_equals_brute_force(theta):
    """Support pruning never drops a rule set whose support is at least theta, and keeps no other."""
    rng = np.random.default_rng(int(theta * 100))
    dom = TabularDomain([Feature("a", 0, 2), Feature("b", 0, 1), Feature("c", 0, 19), Feature("x", 0, 5)])
    feats = sensitive_features(dom, ["a", "b", "c"], n_bins=4)
    X = np.column_stack([rng.choice(3, 400, p=[0.6, 0.3, 0.1]), rng.integers(0, 2, 400), rng.integers(0, 20, 400)])
    bins = np.column_stack([f.bins(X[:, p]) for p, f in enumerate(feats)])
    found = frequent_rule_sets(bins, feats, theta)
    expected = _brute_force(bins, feats, theta)
    assert {_key(rs): pytest.approx(rs.support) for rs in found} == expected
    assert len(found) == len(expected)
    for rs in found:   # R10: one rule per feature at most, support >= theta
        assert len(set(rs.features)) == len(rs.rules) and rs.support >= theta - 1e-12
    if theta == 0.0:   # R8: theta = 0 keeps every candidate
        assert len(found) == count_candidates(feats)


def test_support_is_anti_monotone_and_weights_match_rows():
    rng = np.random.default_rng(3)
    dom = TabularDomain([Feature("a", 0, 3), Feature("b", 0, 2)])
    feats = sensitive_features(dom, ["a", "b"])
    rows = rng.integers(0, 3, size=(500, 2))
    sets = {_key(rs): rs.support for rs in frequent_rule_sets(rows, feats, 0.0)}
    for key, sup in sets.items():
        for sub in itertools.combinations(key, len(key) - 1):
            if sub:
                assert sets[sub] >= sup - 1e-12        # R6
    cells, counts = np.unique(rows, axis=0, return_counts=True)
    weighted = {_key(rs): rs.support for rs in frequent_rule_sets(cells, feats, 0.0, weights=counts)}
    assert weighted == pytest.approx(sets)


def test_number_of_frequent_sets_shrinks_with_theta():
    rng = np.random.default_rng(0)
    dom = TabularDomain([Feature("a", 0, 3), Feature("b", 0, 1), Feature("c", 0, 4)])
    feats = sensitive_features(dom, ["a", "b", "c"])
    rows = rng.integers(0, 2, size=(300, 3)) + rng.integers(0, 2, size=(300, 3))
    rows[:, 1] = np.minimum(rows[:, 1], 1)
    counts = [len(frequent_rule_sets(rows, feats, t)) for t in (0.01, 0.05, 0.1, 0.2, 0.5)]
    assert counts == sorted(counts, reverse=True)     # R7


def test_bad_arguments():
    dom = _domain()
    with pytest.raises(ValueError, match="unknown feature"):
        sensitive_features(dom, ["colour"])
    with pytest.raises(ValueError, match="categorical feature 'hours' has 100 values"):
        sensitive_features(dom, ["hours"], continuous=[])
    with pytest.raises(ValueError, match="no sensitive features"):
        sensitive_features(dom)
    with pytest.raises(ValueError, match="n_bins"):
        sensitive_features(dom, ["age"], n_bins=1)
    with pytest.raises(ValueError, match="theta"):
        frequent_rule_sets(np.zeros((3, 1), int), sensitive_features(dom, ["sex"]), theta=1.5)
    with pytest.raises(ValueError, match="bin numbers"):
        frequent_rule_sets(np.full((3, 1), 2), sensitive_features(dom, ["sex"]))


def test_more_frequent_rule_sets_than_allowed_are_refused_while_enumerating():
    """The cap counts exactly (issue 11, item 12): the enumeration that would pass it stops with an error."""
    from fairnb.group import TooManyRuleSets

    dom = TabularDomain([Feature(f"s{i}", 0, 3) for i in range(3)])
    feats = sensitive_features(dom, ["s0", "s1", "s2"])
    rows = np.random.default_rng(0).integers(0, 4, (500, 3))
    every = frequent_rule_sets(rows, feats, theta=0.05)
    assert len(frequent_rule_sets(rows, feats, theta=0.05, max_rule_sets=len(every))) == len(every)
    with pytest.raises(TooManyRuleSets, match=f"more than {len(every) - 1:,} frequent rule sets"):
        frequent_rule_sets(rows, feats, theta=0.05, max_rule_sets=len(every) - 1)
    with pytest.raises(ValueError, match="up to 1 of the 3 sensitive features"):
        frequent_rule_sets(rows, feats, theta=0.05, max_rule_sets=10)
