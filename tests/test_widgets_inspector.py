"""Pair inspector: filtering, sorting, paging, selection from the browser, changes from seeds, escaping."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import traitlets

import fairnb
from fairnb.domains import Feature, TabularDomain
from fairnb.results import Result
from fairnb.search import Batch, Search
from fairnb.widgets.inspector import CHANGED, PairInspector
from fairnb.pair_table import PairTable

EVIL = "<img src=x onerror=alert(1)>"


class SeededWalk(Search):
    """Checks each seed, then each seed with one non-protected feature moved by one step."""

    name = "seeded-walk"

    def _generate(self, ctx):
        seeds = ctx.use_seeds(ctx.seeds)
        ids = np.arange(len(seeds))
        yield Batch(seeds, phase="global", seed_ids=ids)
        cols = ctx.domain.non_protected[ctx.rng.integers(len(ctx.domain.non_protected), size=len(seeds))]
        moved = seeds.copy()
        moved[ids, cols] += np.where(moved[ids, cols] < ctx.domain.upper[cols], 1, -1)
        yield Batch(moved, phase="local", seed_ids=ids)


@pytest.fixture(scope="module")
def random_result(synthetic, biased_model):
    return fairnb.run_search(biased_model, synthetic.domain, max_tried=6000, random_state=0, progress=False)


@pytest.fixture(scope="module")
def seeded_result(synthetic, biased_model):
    return SeededWalk(random_state=0, progress=False).run(biased_model, synthetic.domain, synthetic.X.iloc[:2000])


def test_pages_hold_page_size_rows_and_cover_everything(random_result):
    ins = PairInspector(random_result, page_size=50)
    n = len(random_result)
    assert ins.n_pairs == ins.total == n > 100
    assert sorted(c["name"] for c in ins.columns) == sorted(random_result.pairs.columns)
    seen = []
    for page in range((n + 49) // 50):
        ins.page = page
        seen += [row["id"] for row in ins.rows]
        assert len(ins.rows) == min(50, n - 50 * page)
    assert sorted(seen) == list(range(n))


def test_columns_are_classified_for_highlighting(random_result):
    kinds = {c["name"]: c["kind"] for c in PairInspector(random_result).columns}
    assert kinds["sex"] == "protected" and kinds["sex'"] == "counterpart"
    assert kinds["p"] == kinds["p'"] == kinds["difference"] == "output"
    assert kinds["age"] == "feature" and kinds["seed"] == "meta"


def test_what_makes_a_pair_discriminatory_comes_first(random_result):
    # at 1,280 px only the first ~8 columns are on screen: protected values, outputs and decisions
    names = [c["name"] for c in PairInspector(random_result).columns]
    assert names[:7] == ["sex", "sex'", "p", "p'", "label", "label'", "difference"]
    assert names.index("age") > names.index("difference") and names[-1] == "time"


def test_decisions_are_named_by_the_data_sets_class_names(synthetic, random_result):
    assert synthetic.label_names == ("<=50K", ">50K") and random_result.class_names == synthetic.label_names
    ins = PairInspector(random_result, selected_ids=[0])
    cells = dict(zip([c["name"] for c in ins.columns], ins.rows[0]["cells"]))
    row = random_result.pairs.iloc[ins.rows[0]["id"]]
    assert cells["label"] == synthetic.label_names[row["label"]]
    assert {cells["label"], cells["label'"]} == {"<=50K", ">50K"}
    assert [o["name"] for o in ins.detail["outputs"]] == ["output p", "decision", "difference"]
    assert set(ins.detail["outputs"][1].values()) >= {"<=50K", ">50K"}
    first = random_result.pairs.iloc[0]
    assert ins.detail["summary"].endswith(f"decision {ins.decision(first['label'])} → {ins.decision(first['label' + chr(39)])}.")
    assert [f["protected"] for f in ins.detail["features"]][:2] == [True, False]
    ins.sort_by = "label"                                   # sorted by the decision, not its name
    assert ins.visible_ids == random_result.pairs.sort_values("label", kind="stable").index.tolist()
    numbers = PairInspector(random_result, class_names=("0", "1")).rows[0]["cells"]
    assert set(numbers[4:6]) == {"0", "1"}
    with pytest.raises(TypeError, match="class_names"):
        PairInspector(random_result, class_names="ab")


def test_filters_and_sorting_match_pandas(random_result):
    ins = PairInspector(random_result, page_size=1000)
    pairs = random_result.pairs
    ins.filters = {"sex": "=female", "difference": ">0.3"}
    expected = pairs[(pairs["sex"] == "female") & (pairs["difference"] > 0.3)]
    assert ins.total == len(expected) > 0
    ins.sort_by, ins.sort_descending = "difference", True
    assert ins.visible_ids == expected.sort_values("difference", ascending=False, kind="stable").index.tolist()
    assert [r["cells"][[c["name"] for c in ins.columns].index("difference")] for r in ins.rows[:1]] == \
        [f"{expected['difference'].max():.3f}"]
    ins.filters = {"occupation": "sal", "age": "3..5"}   # substring of a label, range of encoded values
    raw = random_result.to_frame(decoded=False)
    want = pairs["occupation"].str.lower().str.contains("sal") & raw["age"].between(3, 5)
    assert ins.total == int(want.sum())
    ins.filters = {}
    assert ins.total == len(pairs)


def test_labelled_columns_sort_by_encoded_value(random_result):
    ins = PairInspector(random_result, page_size=5)
    ins.sort_by = "age"
    ages = random_result.to_frame(decoded=False)["age"].to_numpy()
    assert np.all(np.diff(ages[ins.visible_ids]) >= 0)


def test_page_is_clamped_when_the_filter_shrinks_the_table(random_result):
    ins = PairInspector(random_result, page_size=10)
    ins.page = 5
    ins.filters = {"difference": ">0.99999"}
    assert ins.page == max(0, (ins.total - 1) // 10)


def test_browser_selection_reaches_python(random_result):
    ins = PairInspector(random_result)
    ins.set_state({"selected_ids": [7, 2]})    # what a click (and a Ctrl-click) sends
    assert ins.selected.index.tolist() == [7, 2]
    assert ins.selected.equals(random_result.pairs.iloc[[7, 2]])
    d = ins.detail
    assert d["pair"] == 2 and not d["seed_known"]
    changed = [f["name"] for f in d["features"] if f["changed_protected"]]
    assert changed == ["sex"]
    x, c = random_result.inputs[2], random_result.counterparts[2]
    assert [f["name"] for f in d["features"] if f["input"] != f["counterpart"]] == ["sex"]
    assert np.flatnonzero(x != c).tolist() == [1]
    assert "sex from" in d["summary"]
    ins.set_state({"selected_ids": []})
    assert ins.detail == {} and ins.selected.empty


def test_invalid_browser_input_is_rejected(random_result):
    ins = PairInspector(random_result)
    for trait, value in [("sort_by", "nope"), ("filters", {"nope": "1"}), ("selected_ids", [10**9]),
                         ("page_size", 0)]:
        with pytest.raises(traitlets.TraitError):
            setattr(ins, trait, value)


def test_changes_from_seed(seeded_result, synthetic):
    r = seeded_result
    assert r.extras["seeds"].shape == (2000, synthetic.domain.n_features)
    ins = r.inspect(page_size=5)
    assert CHANGED in [c["name"] for c in ins.columns]
    ins.filters = {"phase": "=global"}
    ins.selected_ids = [ins.visible_ids[0]]
    assert ins.detail["seed_known"] and "is seed" in ins.detail["summary"]
    assert not any(f["changed_from_seed"] for f in ins.detail["features"])
    ins.filters = {"phase": "=local"}
    assert ins.total > 0
    for pid in ins.visible_ids[:20]:
        ins.selected_ids = [pid]
        moved = [f["name"] for f in ins.detail["features"] if f["changed_from_seed"]]
        seed = r.extras["seeds"][r.pairs["seed"].iloc[pid]]
        assert moved == [synthetic.domain.names[j] for j in np.flatnonzero(r.inputs[pid] != seed)]
        assert len(moved) == 1 and "sex" not in moved
        assert ins._table.shown[CHANGED].iloc[pid] == moved[0]
    ins.filters = {CHANGED: ">0"}                  # numbers compare how many features changed
    assert ins.total == (r.pairs["phase"] == "local").sum()


def test_seeds_survive_save_and_load(seeded_result, tmp_path):
    path = seeded_result.save(tmp_path / "pairs.parquet")
    loaded = Result.load(path)
    np.testing.assert_array_equal(loaded.extras["seeds"], seeded_result.extras["seeds"])   # stored as the pairs are
    meta = json.loads(Path(str(path) + ".json").read_text())
    assert meta["extras"]["seeds"]["__file__"] == "pairs.parquet.seeds.npz"     # in the data file beside, not JSON
    assert "seed_marks" not in meta["extras"] and loaded.extras["seed_marks"] == list(seeded_result.extras["seed_marks"])
    ins = loaded.inspect()
    assert ins.seeds.shape == seeded_result.extras["seeds"].shape
    with pytest.raises(ValueError, match="seeds have shape"):
        loaded.inspect(seeds=np.zeros((3, 2)))


def test_strings_reach_the_browser_unchanged_and_unescaped():
    dom = TabularDomain([Feature(EVIL, 0, 1, labels=(EVIL, "b")), Feature("sex", 0, 1, labels=("f", "m"))],
                        protected=["sex"])
    result = fairnb.run_search(lambda X: X[:, 1], dom, max_tried=40, random_state=0, progress=False)
    ins = PairInspector(result)
    state = json.loads(json.dumps(ins.get_state()))
    j = [c["name"] for c in state["columns"]].index(EVIL)
    assert EVIL in [row["cells"][j] for row in state["rows"]]   # plain text: the front end uses textContent
    ins = PairInspector(result, class_names=(EVIL, EVIL + "!"))
    ins.selected_ids = [state["rows"][0]["id"]]
    assert ins.detail["features"][1]["name"] == EVIL and EVIL in ins.detail["summary"]
    assert EVIL in PairInspector(result, class_names=(EVIL, "b")).rows[0]["cells"][4:6]
    assert EVIL not in result._repr_html_() and "&lt;img" in result._repr_html_()
    assert EVIL not in fairnb.compare([result])._repr_html_()


def test_a_hundred_thousand_pairs_send_one_page(synthetic):
    dom = synthetic.domain
    rng = np.random.default_rng(0)
    X = dom.sample(120_000, rng)
    C = X.copy()
    C[:, 1] = 1 - C[:, 1]
    p = rng.random((len(X), 1))
    r = Result(dom, "bulk")
    r.record(X, C, np.hstack([1 - p, p]), np.hstack([p, 1 - p]), phase="random", seed_ids=-1, elapsed=1.0)
    assert len(r) >= 100_000
    ins = r.inspect(page_size=100)
    assert len(ins.rows) == 100 and ins.total == len(r)
    assert len(json.dumps(ins.get_state(key=["rows"]))) < 50_000
    ins.sort_by, ins.sort_descending = "difference", True
    assert ins.rows[0]["id"] == int(np.argmax(np.abs(r._arrays()["P"] - r._arrays()["PC"]).sum(1)))


def test_pair_table_needs_matching_frames():
    import pandas as pd

    with pytest.raises(ValueError, match="same columns"):
        PairTable(pd.DataFrame({"a": [1]}), pd.DataFrame({"b": [1]}))
    t = PairTable(pd.DataFrame({"a": [1, 2]}))
    with pytest.raises(ValueError, match="unknown column"):
        t.mask("b", "1")
    with pytest.raises(ValueError, match="page"):
        t.page([0, 1], -1, 10)
