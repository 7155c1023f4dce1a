"""Your own data, first class: a CSV with string, integer and float columns, end to end through the API;
the inputs that used to trip ``from_data``/``Dataset``; bad input answered with a clear error."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import fairnb
from fairnb import Feature, TabularDomain
from fairnb.datasets import Dataset, from_csv, from_frame


def make_table(n: int = 1500, seed: int = 0) -> pd.DataFrame:
    """Hiring data: strings (sex, job), integers (age), fractional floats (income); men are favoured."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["female", "male"], n)
    job = rng.choice(["clerk", "engineer", "nurse", "teacher"], n)
    age = rng.integers(18, 66, n)
    income = np.round(rng.uniform(1.0, 9.0, n), 2)
    logit = 2.5 * (sex == "male") + 0.4 * (income - 5) + 0.02 * (age - 40) - 1.2
    hired = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    return pd.DataFrame({"sex": sex, "job": job, "age": age, "income": income, "hired": hired})


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("own") / "hiring.csv"
    make_table().to_csv(path, index=False)
    return path


def test_csv_with_string_integer_and_float_columns_end_to_end(csv_path):
    from sklearn.linear_model import LogisticRegression

    data = from_csv(csv_path, label="hired", protected="sex", continuous={"income": 0.5}, validation_size=0.25)
    kinds = data.domain.describe().set_index("feature")["kind"].to_dict()
    assert kinds == {"sex": "categorical", "job": "categorical", "age": "ordinal", "income": "continuous"}
    assert data.name == "hiring" and data.label_names == ("no", "yes") and data.domain.protected_names == ("sex",)
    raw = pd.read_csv(csv_path)
    shown = data.domain.decode(data.X)
    assert (shown["sex"] == raw["sex"]).all() and (shown["job"] == raw["job"]).all()
    assert (shown["age"] == raw["age"]).all()
    assert np.abs(shown["income"] - raw["income"]).max() <= 0.25 + 1e-9      # rounded to the 0.5 grid, not floored
    assert ((data.y == 1) == (raw["hired"] == "yes")).all()

    X_fit, X_val, y_fit, _ = data.split_validation()
    X_train = data.split()[0]
    assert len(X_fit) + len(X_val) == len(X_train) and len(X_val) == round(0.25 * len(X_train))
    np.testing.assert_array_equal(data.seed_inputs(), X_fit)

    clf = LogisticRegression(max_iter=1000).fit(X_fit, y_fit)       # a raw scikit-learn model, unwrapped
    _, X_test, _, y_test = data.split()
    assert fairnb.accuracy(clf, X_test, y_test) > 0.65
    result = fairnb.run_search(clf, data.domain, method="aequitas", seeds=data.seed_inputs(), n_seeds=200, n_local=20,
                           random_state=0)
    assert result.count() > 0 and result.extras["seeds_used"] == 200
    pairs = result.pairs
    assert set(pairs["sex"]) <= {"female", "male"} and (pairs["sex"] != pairs["sex'"]).all()


def test_fractional_floats_are_never_floored_silently():
    df = make_table(50)
    with pytest.raises(ValueError, match=r"'income' has fractional values.*continuous=\{'income': step\}"):
        from_frame(df, label="hired", protected="sex")
    binned = from_frame(df, label="hired", protected="sex", bins={"income": [1, 3, 5, 9]})
    income = binned.domain.features[binned.domain.index("income")]
    assert income.labels == ("[1, 3)", "[3, 5)", "[5, 9]") and income.kind == "ordinal"
    codes = binned.X["income"].to_numpy()
    assert (codes == np.searchsorted([3, 5], df["income"], side="right")).all()


def test_from_frame_options_are_checked():
    df = make_table(50)
    with pytest.raises(ValueError, match="label='outcome' is not a column"):
        from_frame(df, label="outcome", protected="sex")
    with pytest.raises(ValueError, match="continuous names \\['salary'\\]"):
        from_frame(df, label="hired", protected="sex", continuous={"salary": 1})
    with pytest.raises(ValueError, match="'age' has missing values"):
        from_frame(df.assign(age=df["age"].where(df.index != 3)), label="hired", protected="sex",
                   continuous={"income": 1})
    with pytest.raises(ValueError, match="3 distinct value"):
        from_frame(df.assign(hired=["a", "b", "c"] * 16 + ["a", "b"]), label="hired", protected="sex",
                   continuous={"income": 1})
    with pytest.raises(ValueError, match="the step must be a positive number"):
        from_frame(df, label="hired", protected="sex", continuous={"income": 0})
    with pytest.raises(ValueError, match="no rows"):
        from_frame(df.iloc[:0], label="hired", protected="sex")
    flipped = from_frame(df, label="hired", protected="sex", continuous={"income": 1}, positive="no")
    assert flipped.label_names == ("yes", "no") and ((flipped.y == 1) == (df["hired"] == "no")).all()
    numeric = df.assign(hired=(df["hired"] == "yes").astype(int))
    as_text = from_frame(numeric, label="hired", protected="sex", continuous={"income": 1}, positive="0")  # CLI text
    assert as_text.label_names == ("1", "0") and ((as_text.y == 1) == (numeric["hired"] == 0)).all()


def test_from_data_protected_as_one_name_integer_columns_and_numpy_X():
    X = np.array([[0, 25, 3], [1, 40, 5], [1, 33, 4]])
    # one name was iterated as characters ('s', 'e', 'x')
    assert TabularDomain.from_data(pd.DataFrame(X, columns=["sex", "age", "edu"]), protected="sex").protected == (0,)
    # integer column labels (pd.DataFrame(ndarray)) made Dataset reject its own domain
    frame = pd.DataFrame(X)
    dom = TabularDomain.from_data(frame, protected=[0])
    data = Dataset("ints", frame, [0, 1, 1], dom)
    assert list(data.X.columns) == ["0", "1", "2"]
    # a numpy X raised AttributeError
    data = Dataset("np", X, [0, 1, 1], dom)
    assert data.X.shape == (3, 3) and list(data.X.columns) == list(dom.names)


@pytest.mark.parametrize("bad, error, match", [
    ({"low": float("nan")}, ValueError, "low must be a finite integer"),
    ({"high": float("inf")}, ValueError, "high must be a finite integer"),
    ({"high": 2.5}, ValueError, "high must be a finite integer"),
    ({"low": "0"}, TypeError, "low must be an integer"),
    ({"labels": "fm"}, TypeError, r"labels is the string 'fm'; pass one label per value, e\.g\. labels=\('f', 'm'\)"),
    ({"kind": "nominal"}, ValueError, "kind must be one of"),
    ({"step": 0.5}, ValueError, "needs kind='continuous'"),
])
def test_feature_rejects_bad_bounds_and_labels(bad, error, match):
    with pytest.raises(error, match=match):
        Feature("sex", **{"low": 0, "high": 1, **bad})
    assert Feature("sex", 0.0, 1.0).high == 1 and isinstance(Feature("sex", 0.0, 1.0).high, int)


def test_protected_and_seed_mistakes_get_clear_errors(synthetic, biased_model):
    features = synthetic.domain.features
    with pytest.raises(TypeError, match="protected must name attributes"):
        TabularDomain(features, protected=True)
    with pytest.raises(ValueError, match="names no attribute"):
        synthetic.with_protected("")
    with pytest.raises(ValueError, match="every feature is protected"):
        TabularDomain(features[:2], protected=["age", "sex"])
    with pytest.raises(ValueError, match="complex values"):
        fairnb.run_search(biased_model, synthetic.domain, method="eidig", seeds=synthetic.X.to_numpy() + 0j)
    with pytest.raises(ValueError, match="'b' has NaN"):
        TabularDomain.from_data(pd.DataFrame({"a": [1, 2], "b": [1, np.nan]}))
    with pytest.raises(ValueError, match="at least one row"):
        TabularDomain.from_data(pd.DataFrame({"a": []}))
    with pytest.raises(ValueError, match="'b' has fractional values"):
        TabularDomain.from_data(pd.DataFrame({"a": [1, 2], "b": [1.5, 2]}))


def test_accuracy_takes_any_model_fairnb_search_takes(synthetic):
    from sklearn.tree import DecisionTreeClassifier

    X, y = synthetic.X.to_numpy(float), synthetic.y
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    assert fairnb.accuracy(tree, X, y) == pytest.approx((tree.predict(X) == y).mean())
    assert fairnb.accuracy(lambda Z: (Z[:, 1] == 1).astype(float), X, y) == pytest.approx(((X[:, 1] == 1) == y).mean())
    with pytest.raises(ValueError, match="as many labels as rows"):
        fairnb.accuracy(tree, X, y[:-1])


def test_a_parameter_typo_names_the_method_and_its_parameters():
    with pytest.raises(TypeError, match=r"EIDIG \('eidig'\) has no parameter 'n_seed' \(did you mean 'n_seeds'\?\); "
                                        r"valid parameters: n_seeds, n_local"):
        fairnb.run_search(None, None, method="eidig", n_seed=10)


def test_one_name_for_the_number_of_seeds_and_aequitas_uses_the_seeds_given(synthetic, biased_model):
    from fairnb.search import get_method

    for name in ("aequitas", "adf", "eidig", "maft", "neuronfair", "sg"):
        names = get_method(name)._get_param_names()
        assert "n_seeds" in names and "n_global" not in names
    seeds = synthetic.X.to_numpy(float)[:40]
    r = get_method("aequitas")(n_seeds=40, n_local=5, random_state=0).run(biased_model, synthetic.domain, seeds=seeds)
    np.testing.assert_array_equal(r.extras["seeds"], seeds)
    with pytest.warns(UserWarning, match="n_seeds=100 but only 40 seed inputs were given"):
        r = get_method("eidig")(n_seeds=100, n_local=5, random_state=0).run(biased_model, synthetic.domain, seeds=seeds)
    assert r.summary()["seeds_used"] == 40
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        get_method("eidig")(n_seeds=40, n_local=5, random_state=0).run(biased_model, synthetic.domain, seeds=seeds)


def test_neuronfair_walks_like_the_released_code_by_default():
    from fairnb.search.methods.neuronfair import NeuronFair

    assert NeuronFair().local == "reference" and "local='paper'" in repr(NeuronFair(local="paper"))


def test_testsgd_gives_unordered_categories_set_rules_only():
    from fairnb.group.rules import sensitive_features

    jobs = [f"job{i:02d}" for i in range(12)]
    df = pd.DataFrame({"job": jobs * 5, "age": list(range(20, 80)), "y": [0, 1] * 30})
    data = from_frame(df, label="y", protected="job")
    kinds = {f.name: f.kind for f in sensitive_features(data.domain, ["job", "age"])}
    assert kinds == {"job": "categorical", "age": "continuous"}     # 12 jobs: no intervals over an unordered column
    with pytest.raises(ValueError, match=r"continuous=\['job'\]: categorical features have no order"):
        sensitive_features(data.domain, ["job"], continuous=["job"])


def test_a_model_fitted_on_the_dataframe_is_searched_without_feature_name_warnings(csv_path):
    from sklearn.linear_model import LogisticRegression

    data = from_csv(csv_path, label="hired", protected="sex", continuous={"income": 0.5})
    model = LogisticRegression(max_iter=1000).fit(data.X, data.y)      # the README's three lines
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = fairnb.run_search(model, data.domain, method="aequitas", seeds=data.seed_inputs(), n_seeds=100,
                               n_local=10, random_state=0)
    assert result.count() > 0


def test_a_saved_result_keeps_categorical_and_continuous_features(csv_path, tmp_path):
    from sklearn.linear_model import LogisticRegression

    data = from_csv(csv_path, label="hired", protected="sex", continuous={"income": 0.5})
    model = LogisticRegression(max_iter=1000).fit(data.X, data.y)
    result = fairnb.run_search(model, data.domain, method="random", n_samples=2000, random_state=0)
    loaded = fairnb.Result.load(result.save(tmp_path / "pairs.csv"))
    assert [(f.kind, f.step) for f in loaded.domain.features] == [(f.kind, f.step) for f in data.domain.features]
    pd.testing.assert_frame_equal(loaded.pairs[["sex", "job", "income"]], result.pairs[["sex", "job", "income"]])


def test_a_method_names_the_feature_kinds_it_cannot_handle(csv_path):
    from fairnb.search import RandomSearch

    class OrdinalOnly(RandomSearch):
        name = "ordinal-only"
        feature_kinds = ("ordinal",)

    data = from_csv(csv_path, label="hired", protected="sex", continuous={"income": 0.5})
    with pytest.raises(TypeError, match=r"ordinal-only handles ordinal features, not sex \(categorical\), "
                                        r"job \(categorical\), income \(continuous\)"):
        OrdinalOnly(n_samples=10).run(lambda X: X[:, 2] / 100, data.domain)
    assert RandomSearch(n_samples=10).run(lambda X: X[:, 2] / 100, data.domain).tried == 10
