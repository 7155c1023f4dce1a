"""Constraints on hand-made cases: a race search may not bring in "muslim", "african" before "american"
becomes another token, more than n words changed is refused, a pixel step past the budget is refused, a pair
f_sa does not confirm is refused, a table row unlike the training rows is refused (``Realistic``); and how a
search's constraints parameter resolves."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.constraints import (AttributeConfirmed, Constraint, MaxWordsChanged, PixelBudget, Realistic,
                                SameIdentityTerms, SameTokens, resolve, seed_rows)
from fairnb.domains import TabularDomain, TextDomain, Feature
from fairnb.search import get_method
from fairnb.text import Vocabulary

from image_checks import domain as image_domain, seed_images

WORDS = ["my", "the", "neighbour", "cook", "is", "was", "kind", "very", "african", "american", "muslim", "christians",
         "black", "white", "jew", "man", "woman"]


@pytest.fixture(scope="module")
def race():
    vocab = Vocabulary.build([WORDS])
    return TextDomain(vocab, {"race": ["black", "white"]}, 5, neighbours=np.full((len(vocab), 1), -1))


def _texts(dom, *texts):
    return dom.validate(list(texts))


def test_a_race_search_may_not_bring_in_or_take_out_another_identity_term(race):
    seed = _texts(race, "my black neighbour is kind", "my black christians is kind", "the black muslim was kind",
                  "the black muslim was kind")
    X = _texts(race, "my black neighbour was kind", "my black muslim is kind", "the black muslim is kind",
               "the black cook was kind")          # "muslim" comes in, stays, goes
    assert SameIdentityTerms().allowed(race, X, seed).tolist() == [True, False, True, False]
    jew = race.validate(["my black neighbour is kind"]).copy()
    jew[0, 2] = race.vocab.id("jew")                           # in no paper's list, but an identity noun
    assert not SameIdentityTerms().allowed(race, jew, seed[:1]).any()
    man = _texts(race, "my black man is kind")                  # a person's sex: no group list names the nouns
    assert SameIdentityTerms().allowed(race, _texts(race, "my black woman is kind", "my black man was kind"),
                                       np.repeat(man, 2, axis=0)).tolist() == [False, True]
    own = SameIdentityTerms(extra=("kind",))                  # the user's own terms count too
    assert own.allowed(race, _texts(race, "my black neighbour is very"), seed[:1]).tolist() == [False]


def test_words_that_the_tokenizer_joins_into_one_term_are_refused(race):
    seed = _texts(race, "my american neighbour is kind", "my american neighbour is kind")
    X = seed.copy()
    X[0, 0] = race.vocab.id("african")              # "african american neighbour ...": reads back as 5 tokens
    X[1, 4] = race.vocab.id("very")
    assert SameTokens().allowed(race, X, seed).tolist() == [False, True]
    assert race.encode_texts([race.text(X[0])]).tolist() != [X[0].tolist()]


def test_at_most_n_words_change_from_the_seed(race):
    seed = _texts(race, "my black neighbour is kind", "my black neighbour is kind")
    X = _texts(race, "the black cook was very", "the black neighbour is kind")
    assert MaxWordsChanged(3).allowed(race, X, seed).tolist() == [False, True]
    assert MaxWordsChanged(4).allowed(race, X, seed).tolist() == [True, True]
    with pytest.raises(ValueError, match="n must be an integer >= 0"):
        MaxWordsChanged(-1)


def test_an_image_step_past_the_pixel_budget_is_refused_and_projection_keeps_it_in():
    seeds = seed_images(4)
    X = seeds.copy()
    X[1] += 0.05
    X[2, 0, 0, 0] += 0.3
    budget = PixelBudget(linf=0.1)
    assert budget.allowed(None, X, seeds).tolist() == [True, True, False, True]
    assert budget.allowed(None, budget.project(X, seeds), seeds).all()
    with pytest.raises(ValueError, match=r"linf must be a number in \(0, 1\]"):
        PixelBudget(linf=0)


def test_the_default_pixel_budget_is_8_of_255_levels():
    seeds = seed_images(3)
    X = seeds.copy()
    X[0] += 8 / 255                          # every pixel at the budget's edge: still the seed face
    X[1, 0, 0, 0] += 9 / 255                 # one pixel a level past it
    X[2, 1, 1, 2] -= 0.05
    budget = [c for c in resolve("default", image_domain()) if c.name == "pixel_budget"][0]
    assert budget.allowed(None, X, seeds).tolist() == [True, False, False]
    assert "8 of 255 levels" in budget.describe()


def test_a_pair_that_f_sa_does_not_see_as_two_attributes_is_refused():
    dom = image_domain()
    X = seed_images(6)
    flipped = dom.flipper.flip(X).X_flipped
    assert AttributeConfirmed().stage == "pair"
    assert AttributeConfirmed().allowed(dom, X, X, counterparts=flipped).all()
    assert not AttributeConfirmed().allowed(dom, X, X, counterparts=X).any()          # the same face twice


def test_the_constraints_parameter_resolves_per_domain(race):
    tabular = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected=["sex"])
    assert resolve("default", tabular) == [] and resolve("paper", race) == []
    assert [c.name for c in resolve("default", race)] == ["same_identity_terms", "same_tokens", "max_words_changed"]
    assert [c.name for c in resolve("default", image_domain())] == ["pixel_budget", "attribute_confirmed"]
    assert [c.name for c in resolve(["default", PixelBudget()], race)][-1] == "pixel_budget"
    with pytest.raises(ValueError, match="given twice"):
        resolve(["default", MaxWordsChanged(2)], race)
    with pytest.raises(TypeError, match="is not a fairnb.constraints.Constraint"):
        resolve([lambda X: X], race)
    with pytest.raises(ValueError, match="'default', 'paper' or a list"):
        resolve("strict", race)
    assert isinstance(resolve([MaxWordsChanged(2)], race)[0], Constraint)


def test_seed_rows_of_candidates_without_a_seed_are_their_own():
    X = np.arange(6.0).reshape(3, 2)
    rows = seed_rows(np.zeros((2, 2)), np.array([0, -1, 1]), X)
    assert rows.tolist() == [[0, 0], [2, 3], [0, 0]] and seed_rows(None, np.array([0]), X[:1]) is None


def test_paper_searches_unconstrained_and_the_default_refuses_what_breaks_a_constraint():
    """``constraints="paper"`` is the papers' search: it reports texts whose walk changed many words; under the
    defaults none of them is reported, each refusal is counted, and the pairs re-check independently."""
    from fairnb.search import get_method
    from text_checks import bench, biased_linear

    dom, texts, E = bench(bias=1.0)
    model = biased_linear(dom, E)
    kw = dict(n_seeds=60, n_local=300, random_state=0)
    paper = get_method("rp")(constraints="paper", **kw).run(model, dom, seeds=texts)
    default = get_method("rp")(**kw).run(model, dom, seeds=texts)
    words = lambda r: (dom.ids(r.inputs) != dom.ids(r.extras["seeds"][r.seed_ids])).sum(axis=1)   # noqa: E731
    assert words(paper).max() > 4 >= words(default).max()
    assert paper.extras["constraints"] == "none" and "max_words_changed" in default.extras["constraints"]
    assert default.extras["rejected_max_words_changed"] > 0 and default.extras["rejected_idis"] > 0
    assert "rejected_max_words_changed" not in paper.extras
    same = get_method("rp")(constraints=[], **kw).run(model, dom, seeds=texts)
    assert np.array_equal(same.inputs, paper.inputs)                  # "paper" is the empty list of constraints


def test_image_steps_are_projected_into_the_pixel_budget_and_paper_steps_are_not():
    from fairnb.search import get_method
    from image_checks import detector

    seeds = seed_images(60)
    kw = dict(random_state=0, global_step=0.3)
    budget = get_method("neuronfair_image")(constraints=[PixelBudget(0.05)], **kw).run(detector(1.0), image_domain(),
                                                                                      seeds=seeds)
    paper = get_method("neuronfair_image")(constraints="paper", **kw).run(detector(1.0), image_domain(), seeds=seeds)
    moved = lambda r: np.abs(r.inputs - r.extras["seeds"][r.seed_ids]).reshape(len(r), -1).max(axis=1)  # noqa: E731
    assert budget.count() > 0 and moved(budget).max() <= 0.05 + 1e-9 < moved(paper).max()
    assert budget.extras.get("rejected_pixel_budget", 0) == 0          # projected, so never refused


# ------------------------------------------------------------------------------------------- tabular: realistic
@pytest.fixture(scope="module")
def people():
    return TabularDomain([Feature("sex", 0, 1), Feature("job", 0, 2, kind="categorical"),
                          Feature("married", 0, 1, kind="categorical"), Feature("age", 18, 90)], protected=["sex"])


TRAIN = np.array([[0, 0, 1, 30], [1, 1, 0, 45], [1, 2, 1, 60], [0, 2, 1, 61]])


def test_a_combination_of_categories_no_training_row_has_is_refused_and_one_that_occurs_is_allowed(people):
    X = np.array([[0, 0, 1, 89],      # job 0 married occurs (another age, the other sex: both left out)
                  [1, 0, 0, 30],      # job 0 unmarried: no training row
                  [0, 1, 0, 18],      # job 1 unmarried occurs
                  [1, 1, 1, 45]])     # job 1 married: no training row
    realistic = Realistic(TRAIN)
    assert realistic.name == "realistic" and realistic.stage == "candidate"
    assert realistic.allowed(people, X, None).tolist() == [True, False, True, False]
    assert Realistic(TRAIN, columns=["job"]).allowed(people, X, None).all()         # every job occurs
    assert Realistic(TRAIN, columns=["job", "age"]).allowed(people, X, None).tolist() == [False, True, False, True]


def test_a_row_farther_from_the_training_rows_than_they_are_from_each_other_is_refused(people):
    # ages 30, 45, 60, 61 over a range of 72: the nearest-neighbour gaps are 15, 15, 1, 1 years
    by_age = Realistic(TRAIN, by="distance", columns=["age"], quantile=1.0)          # within 15 years of a row
    X = np.array([[0, 0, 1, 37], [1, 2, 0, 90], [0, 1, 1, 76], [0, 1, 1, 77]])
    assert by_age.allowed(people, X, None).tolist() == [True, False, True, False]
    tight = Realistic(TRAIN, by="distance", columns=["age"], quantile=0.5)           # the median gap: 8 years
    assert tight.allowed(people, np.array([[0, 0, 1, 22], [0, 0, 1, 21]]), None).tolist() == [True, False]
    everything = Realistic(TRAIN, by="distance")             # job, married and age, each over its range
    assert everything.allowed(people, TRAIN, None).all()     # a training row is at distance 0


def test_realistic_refuses_bad_settings_by_name(people, race):
    with pytest.raises(ValueError, match="by must be one of"):
        Realistic(TRAIN, by="nearest")
    with pytest.raises(ValueError, match=r"quantile must be a number in \(0, 1\]"):
        Realistic(TRAIN, by="distance", quantile=0)
    with pytest.raises(ValueError, match="non-empty 2-d table"):
        Realistic(np.zeros((0, 4)))
    with pytest.raises(ValueError, match=r"columns \['sex'\] are protected"):
        Realistic(TRAIN, columns=["sex", "job"]).allowed(people, TRAIN, None)
    with pytest.raises(ValueError, match="rows have 3 columns, the domain 4"):
        Realistic(TRAIN[:, :3]).allowed(people, TRAIN, None)
    plain = TabularDomain([Feature("sex", 0, 1), Feature("age", 18, 90)], protected=["sex"])
    with pytest.raises(ValueError, match="no categorical features apart from the protected ones"):
        Realistic(TRAIN[:, [0, 3]]).allowed(plain, TRAIN[:, [0, 3]], None)
    with pytest.raises(TypeError, match="compares rows of a table; the domain is 'text'"):
        Realistic(TRAIN).allowed(race, TRAIN, None)


@pytest.mark.parametrize("by", ["combination", "distance"])
def test_every_pair_of_a_realistic_search_is_realistic_when_rechecked(by, tmp_path):
    """A real search with ``Realistic`` added to the defaults: it refuses some discriminatory rows, counts them,
    names the constraint "realistic" in the summary, and every reported input (and its counterpart) passes an
    independent re-check against the training rows; the Result saves and loads with the constraint in it."""
    import fairnb
    from fairnb.search import get_method
    from fairnb.summaries import rows

    data = fairnb.datasets.make_synthetic(n=1000, random_state=0)
    train = data.seed_inputs()
    columns = ["race", "education", "occupation", "hours_per_week"]
    realistic = Realistic(train, by=by, columns=columns, quantile=0.5)
    result = get_method("aequitas")(n_seeds=100, n_local=100, random_state=0, progress=False,
                                    constraints=["default", realistic]).run(data.info["true_model"], data.domain,
                                                                           seeds=train)
    assert result.count() > 0 and result.extras["rejected_realistic"] > 0 and result.extras["rejected_idis"] > 0
    assert result.extras["constraints"] == "realistic"
    labels = dict(rows(result.summary()))
    assert labels["constraints the pairs keep"] == "realistic"
    assert "refused as not realistic (unlike every row of the training data)" in labels
    cols = [data.domain.index(c) for c in columns]
    for side in (result.inputs, result.counterparts):
        if by == "combination":
            seen = {tuple(r) for r in train[:, cols].astype(int).tolist()}
            assert all(tuple(r) in seen for r in side[:, cols].astype(int).tolist())
        else:
            scale = data.domain.upper[cols] - data.domain.lower[cols]
            T = train[:, cols] / scale
            gaps = np.sqrt(((T[:, None, :] - T[None, :, :]) ** 2).sum(axis=2))
            np.fill_diagonal(gaps, np.inf)
            radius = np.quantile(gaps.min(axis=1), 0.5)
            nearest = np.sqrt(((side[:, cols][:, None, :] / scale - T[None, :, :]) ** 2).sum(axis=2)).min(axis=1)
            assert (nearest <= radius + 1e-9).all()
    plain = get_method("aequitas")(n_seeds=100, n_local=100, random_state=0, progress=False).run(
        data.info["true_model"], data.domain, seeds=train)
    assert plain.count() > result.count()              # the constraint did refuse rows the plain search reports
    loaded = type(result).load(result.save(tmp_path / "realistic.csv"))
    assert loaded.params["constraints"] == ["default", {"constraint": "Realistic", "by": by, "columns": columns,
                                                        "quantile": 0.5, "rows": len(train)}]


class _Returns(Constraint):
    """A user's constraint that returns ``value`` (or ``value(X)``) whatever it is given."""

    name = "mine"

    def __init__(self, value):
        self.value = value

    def allowed(self, domain, X, seeds, counterparts=None):
        return self.value(X) if callable(self.value) else self.value


@pytest.mark.parametrize("value, said", [
    (True, "True"), ([False], r"a bool array of shape \(1,\)"), (None, "None"), (float("nan"), "nan"),
    ("yes", "'yes'"), (lambda X: np.ones(len(X) + 1, bool), r"a bool array of shape \(\d+,\)"),
    (lambda X: np.ones(len(X)), r"a float64 array"), (lambda X: np.flatnonzero(np.ones(len(X))), r"a int64 array"),
    (lambda X: np.array(["yes"] * len(X)), "a <U3 array"), (np.True_, r"a bool array of shape \(\)")])
def test_a_constraint_that_returns_no_mask_is_named_with_what_it_returned(value, said, synthetic, biased_model):
    # issue #34: True, [False], None kept or refused every candidate silently; a wrong length raised numpy's error
    search = get_method("random")(n_samples=200, random_state=0, constraints=[_Returns(value)], progress=False)
    with pytest.raises(TypeError, match=r"constraint 'mine' \(_Returns.allowed\) must return one bool per candidate.*"
                                        rf"returned {said}"):
        search.run(biased_model, synthetic.domain)


def test_a_constraint_may_return_a_list_or_a_series_of_bools(synthetic, biased_model):
    import pandas as pd

    for value in (lambda X: [bool(x % 2) for x in X[:, 0]], lambda X: pd.Series(X[:, 0] % 2 == 0)):
        result = get_method("random")(n_samples=300, random_state=0, constraints=[_Returns(value)],
                                      progress=False).run(biased_model, synthetic.domain)
        assert result.extras["rejected_mine"] > 0 and len(result.pairs) > 0
