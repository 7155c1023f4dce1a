"""TestSGD estimator, result display and CLI."""
from __future__ import annotations

import html
import json
from argparse import Namespace

import numpy as np
import pandas as pd
import pytest

from fairnb.domains import Feature, TabularDomain
from fairnb.group import TestSGD
from fairnb.group.cli import run_from_cli
from fairnb.group.planted import in_planted_group, make_planted_group


@pytest.fixture(scope="module")
def planted():
    return make_planted_group(n=3000, random_state=0)


def _planted_model(X):
    return in_planted_group(X).astype(float)


def test_records_plus_domain_give_the_same_result_as_the_dataset(planted):
    X_train = planted.split()[0]
    a = TestSGD(random_state=0).run(_planted_model, planted, sensitive=["sex", "race"])
    b = TestSGD(random_state=0).run(_planted_model, pd.DataFrame(X_train, columns=planted.domain.names),
                                    planted.domain, sensitive="sex,race")
    assert a.frame.equals(b.frame)
    assert a.info["n_candidates"] == 3 * 31 - 1 and a.info["training_records"] == len(X_train)


def test_sklearn_style_parameters():
    t = TestSGD(theta=0.1, random_state=3)
    assert t.get_params()["theta"] == 0.1 and t.get_params()["n_bins"] == 10
    assert repr(t) == "TestSGD(random_state=3, theta=0.1)"
    assert TestSGD(confidence=0.99).z == 2.58


def test_result_summary_table_chart_and_json(planted, tmp_path):
    res = TestSGD(random_state=0, continuous=["age"]).run(_planted_model, planted, sensitive=["sex", "race", "age"])
    s = res.summary()
    assert s["top_rule_set"] == planted.info["planted_group"] and s["score"] == 1.0
    assert s["rule_sets_scored"] == len(res) and s["confidence"] == 0.9025
    assert list(res.top().index) == [1, 2, 3]
    html = res._repr_html_()
    assert "sex = female and race in {Asian-Pac-Islander, Amer-Indian-Eskimo}" in html
    assert "<table>" in html and "100.0%" in html
    ax = res.plot(top=5)
    assert len(ax.patches) == 5 and ax.get_yticklabels()[0].get_text()
    saved = json.loads(res.save(tmp_path / "groups.json").read_text())
    assert len(saved["rule_sets"]) == len(res) and saved["summary"]["top_rule_set"] == s["top_rule_set"]
    assert saved["rule_sets"][0]["rank"] == 1
    assert "GroupResult(" in repr(res)


def test_html_escapes_labels():
    dom = TabularDomain([Feature("grp", 0, 2, labels=("<b>x</b>", "a&b", "c")), Feature("v", 0, 9)],
                        protected=["grp"])
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 3, 300), rng.integers(0, 10, 300)])
    res = TestSGD(random_state=0).run(lambda Z: (Z[:, 0] == 0).astype(float), X, dom)
    html = res._repr_html_()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html and "a&amp;b" in html


def test_rule_sets_given_explicitly_and_stop(planted):
    tester = TestSGD(random_state=0)
    sets = tester.rule_sets(planted, sensitive=["sex", "race"])
    res = tester.run(_planted_model, planted, sensitive=["sex", "race"], rule_sets=sets[:3])
    assert len(res) == 3
    calls = []

    def listener(done, total, elapsed):
        calls.append((done, total))
        tester.stop()

    res = tester.run(_planted_model, planted, sensitive=["sex", "race"], listeners=[listener])
    repeated = sum(len(v) for v in res.info["aliases"].values())
    assert res.info["status"] == "stopped" and calls[0][1] == len(sets) - len(res.info["skipped"]) - repeated


def _rare_value_data(n=2000):
    """a: balanced; r: 3 in 0.5% of the records (so "r in {0, 1, 2}" is everyone but a handful)."""
    rng = np.random.default_rng(0)
    dom = TabularDomain([Feature("a", 0, 1), Feature("r", 0, 3), Feature("v", 0, 9)], protected=["a", "r"])
    r = np.where(np.arange(n) % 200 == 0, 3, rng.integers(0, 3, n))
    return dom, np.column_stack([rng.integers(0, 2, n), r, rng.integers(0, 10, n)]).astype(float)


def test_groups_whose_complement_is_below_the_support_threshold_are_not_scored():
    dom, X = _rare_value_data()
    res = TestSGD(random_state=0).run(lambda Z: (Z[:, 1] == 3).astype(float), X, dom, sensitive=["r"])
    assert "r in {0, 1, 2}" in res.info["skipped"]                 # 99.5% inside, 0.5% outside
    assert "r in {0, 1, 2}" not in set(res.frame.rule_set)
    assert res.frame.score.max() < 0.5        # the 1.0 gap between the few r = 3 records and the rest is not ranked
    page = res._repr_html_()
    assert "records outside it are below the support threshold" in page


def test_near_identical_rule_sets_are_ranked_once():
    dom, X = _rare_value_data()
    res = TestSGD(random_state=0).run(lambda Z: Z[:, 0], X, dom)
    texts = list(res.frame.rule_set)
    assert "a = 0" in texts and "a = 0 and r in {0, 1, 2}" not in texts
    assert "a = 0 and r in {0, 1, 2}" in res.info["aliases"]["a = 0"]
    assert len(texts) == len(set(texts))
    page = res._repr_html_()
    assert "selects almost the same records as" in page or "near-identical" in page


def test_display_names_the_compared_decision_by_its_class_name(planted):
    """RedditBias's class 1 is "negative stereotype": the display names the decision it compares instead of
    calling it favourable."""
    res = TestSGD(random_state=0).run(_planted_model, planted, sensitive=["sex"])
    page = res._repr_html_()
    name = planted.label_names[1]
    assert planted.label_names != ("0", "1")
    assert f"P(the model decides {html.escape(name)} | in group)" in page and "favourable" not in page
    assert f"{html.escape(name)}: in group" in page
    header = page.split("<thead>")[1].split("</thead>")[0]
    first_row = page.split("<tbody>")[1].split("</tr>")[0]
    assert header.count("<th") == first_row.count("<td")
    assert header.count("text-align:right") == first_row.count("text-align:right")


def test_degenerate_rule_sets_are_skipped():
    dom = TabularDomain([Feature("a", 0, 1), Feature("b", 0, 1), Feature("v", 0, 9)], protected=["a", "b"])
    X = np.array([[0, 0, 1], [1, 0, 2], [0, 0, 3], [1, 0, 4]] * 10, dtype=float)   # b is always 0
    res = TestSGD(random_state=0).run(lambda Z: Z[:, 0], X, dom)
    assert "b = 0" in res.info["skipped"] and "b = 0" not in set(res.frame.rule_set)
    assert res.frame.iloc[0].rule_set in ("a = 0", "a = 1") and res.frame.iloc[0].score == 1.0


def test_bad_input_messages(planted):
    with pytest.raises(TypeError, match="Dataset, or training records together with domain"):
        TestSGD().run(_planted_model, np.zeros((3, 7)))
    with pytest.raises(ValueError, match="expected \\(n, 7\\)"):
        TestSGD().run(_planted_model, np.zeros((3, 5)), planted.domain)
    with pytest.raises(ValueError, match="error_threshold"):
        TestSGD(error_threshold=0).run(_planted_model, planted)
    other = TestSGD(n_bins=4, continuous=["age"])
    sets = other.rule_sets(planted, sensitive=["age"])
    with pytest.raises(ValueError, match="now has 9 continuous bins"):
        TestSGD(continuous=["age"]).run(_planted_model, planted, sensitive=["age"], rule_sets=sets)


def test_cli_on_a_saved_model(tmp_path, monkeypatch, planted):
    """``fairnb groups`` end to end, on the planted data and with the model loader swapped for the planted model."""
    import fairnb

    monkeypatch.setattr(fairnb.models, "load_model", lambda path: fairnb.models.FunctionModel(_planted_model))
    args = Namespace(dataset="planted", model="m.h5", sensitive="sex,race,age", continuous="age", theta=0.05,
                     random_state=0, data_dir=None, json=str(tmp_path / "all.json"))
    out = run_from_cli(args, planted)
    assert out["top_rule_set"] == planted.info["planted_group"] and out["score"] == 1.0 and out["eps"] == 0.0
    assert out["rule_sets_scored"] > 100 and out["seconds"] > 0
    assert len(json.loads((tmp_path / "all.json").read_text())["rule_sets"]) == out["rule_sets_scored"]


@pytest.mark.shared
@pytest.mark.slow
def test_census_with_the_published_model(data_dir, models_dir):
    """The EIDIG census model: every frequent rule set over race, gender and age is scored, or named as
    near-identical to one that is, or skipped for a rare complement."""
    import fairnb

    data = fairnb.datasets.load("census", data_dir)
    model = fairnb.models.load_model(models_dir / "adult_model.h5")
    res = TestSGD(random_state=0, continuous=["age"]).run(model, data, sensitive=["race", "gender", "age"])
    assert res.info["n_candidates"] == 31 * 3 * 10 - 1
    repeated = sum(len(v) for v in res.info["aliases"].values())
    assert len(res) + len(res.info["skipped"]) + repeated == res.info["n_frequent"] > 300 and len(res) > 100
    assert "race in {White, Other}" in res.info["aliases"]["race = White"]      # Other: < 1% of the records
    assert res.frame["n"].between(1000, 1537).all() and (res.frame["eps"] <= 0.05 + 1e-9).all()
    assert res.frame.iloc[0].score > 0.15
    male = res.frame.head(3)[res.frame.head(3).rule_set.str.contains("gender = Male")]
    assert len(male) and (male.phi_in > male.phi_out).all()
