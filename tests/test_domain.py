import numpy as np
import pytest

from fairnb.domains import Feature, TabularDomain


@pytest.fixture
def dom():
    return TabularDomain([Feature("age", 1, 9), Feature("sex", 0, 1, labels=("female", "male")),
                          Feature("race", 0, 2, labels=("a", "b", "c")), Feature("hours", 0, 99)],
                         protected=["sex", "race"])


def test_variants_are_cartesian_product_and_include_self(dom):
    X = np.array([[3, 1, 2, 40], [9, 0, 0, 1]], float)
    V = dom.variants(X)
    assert V.shape == (2, 6, 4)
    # non-protected columns never change
    assert (V[:, :, [0, 3]] == X[:, None, [0, 3]]).all()
    # every combination of (sex, race) appears exactly once per input
    for i in range(2):
        assert {tuple(r) for r in V[i, :, 1:3]} == {(s, r) for s in (0, 1) for r in (0, 1, 2)}
    own = dom.own_variant(X)
    assert (V[np.arange(2), own] == X).all()


def test_validate_errors_name_the_problem(dom):
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*expected \(n, 4\)"):
        dom.validate(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        dom.validate([[1, 0, 0, np.nan]])
    with pytest.raises(ValueError, match=r"hours=100 is outside its bounds \[0, 99\]"):
        dom.validate([[1, 0, 0, 100]])
    with pytest.raises(ValueError, match="not numeric"):
        dom.validate([["a", 0, 0, 1]])
    assert dom.validate([1, 0, 0, 5]).shape == (1, 4)


def test_unknown_protected_attribute_is_a_clear_error(dom):
    with pytest.raises(ValueError, match=r"unknown feature 'gender'.*\['age', 'sex', 'race', 'hours'\]"):
        dom.with_protected(["gender"])
    with pytest.raises(ValueError, match="no protected attribute"):
        TabularDomain(dom.features).variants(np.zeros((1, 4)))


def test_clip_sample_and_decode(dom, rng):
    S = dom.sample(500, rng)
    assert dom.validate(S).shape == (500, 4)
    assert (dom.clip([[0.4, 3, -1, 120.6]]) == [[1, 1, 0, 99]]).all()
    frame = dom.decode([[3, 1, 2, 40]])
    assert frame.iloc[0].tolist() == [3, "male", "c", 40]
    assert dom.describe()["protected"].tolist() == [False, True, True, False]
    assert dom.size == 9 * 2 * 3 * 100


def test_feature_checks():
    with pytest.raises(ValueError, match="labels"):
        Feature("sex", 0, 1, labels=("f",))
    with pytest.raises(ValueError, match="below low"):
        Feature("x", 3, 1)
    with pytest.raises(ValueError, match="unique"):
        TabularDomain([Feature("x", 0, 1), Feature("x", 0, 1)])


def test_from_data_uses_min_max():
    dom = TabularDomain.from_data(np.array([[1, 5], [3, 2]]), protected=[0], names=["a", "b"])
    assert dom.lower.tolist() == [1, 2] and dom.upper.tolist() == [3, 5]
    assert dom.protected_names == ("a",)


def test_result_round_trip_through_the_domain_config(tmp_path):
    import fairnb
    from fairnb.domains import domain_from_config

    dom = TabularDomain([Feature("sex", 0, 1, labels=("f", "m")), Feature("x", 0, 9, kind="continuous", step=0.5)],
                        protected="sex")
    config = dom.to_config()
    assert config["kind"] == "tabular"
    assert domain_from_config(config).describe().equals(dom.describe())
    r = fairnb.Result(dom, "random")
    r.record([[0, 3], [1, 3], [0, 4]], [[1, 3], [0, 3], [1, 4]], [[0.9, 0.1]] * 3, [[0.1, 0.9]] * 3,
             phase="random", seed_ids=-1, elapsed=1.0)
    loaded = fairnb.Result.load(r.save(tmp_path / "r.csv"))
    assert loaded.domain.to_config() == config
    assert (loaded.count("eidig"), loaded.count("adf")) == (3, 2)
    with pytest.raises(ValueError, match="unknown domain kind"):
        domain_from_config({"kind": "nope"})


@pytest.mark.parametrize("wide", [False, True])
def test_sample_is_uniform_in_every_column_and_one_stream(wide):
    """Every value of a column about equally often, every pair of values of two columns too (narrow and very wide
    ranges), and ``n`` rows the first ``n`` of a larger draw from the same generator: a random search's batches
    may have any size (``RandomSearch(batch_size="auto")``)."""
    features = [Feature("a", 1, 3), Feature("b", -2, 2), Feature("sex", 0, 1)]
    if wide:
        features += [Feature(f"w{i}", 0, 2 ** 20 - 1) for i in range(3)]
    dom = TabularDomain(features, protected=["sex"])
    S = dom.sample(60_000, np.random.default_rng(3))
    assert dom.validate(S).shape == (60_000, len(features))
    for j, f in enumerate(features[:3]):
        counts = np.unique(S[:, j], return_counts=True)[1]
        assert len(counts) == f.high - f.low + 1
        expected = len(S) / len(counts)
        assert np.abs(counts - expected).max() < 5 * np.sqrt(expected)
    pairs = np.unique(S[:, 0] * 10 + S[:, 1], return_counts=True)[1]
    assert len(pairs) == 15 and np.abs(pairs - 4_000).max() < 5 * np.sqrt(4_000)
    rng = np.random.default_rng(3)
    parts = [dom.sample(n, rng) for n in (1, 999, 7_000, 52_000)]
    assert (np.concatenate(parts) == S).all()
