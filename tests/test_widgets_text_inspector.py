"""The text-substitution inspector: aligned sentences, filters, rates per term, detail view, escaping, 100k pairs."""
from __future__ import annotations

import html

import numpy as np
import pandas as pd
import pytest

from fairnb.results import Result
from fairnb.widgets.text_inspector import TextInspector

from text_pairs import MAX_LEN, StandInTextDomain, text_result


@pytest.fixture(scope="module")
def made():
    return text_result(n_seeds=40, n_pairs=300, random_state=0)


@pytest.fixture
def inspector(made):
    return TextInspector(made[0], page_size=50)



def test_each_row_is_one_aligned_sentence_with_the_term_and_the_substitutions_marked(made, inspector):
    result, dom = made
    X, C = np.rint(result.inputs).astype(int), np.rint(result.counterparts).astype(int)
    seeds = np.rint(result.extras["seeds"]).astype(int)
    seed_of = inspector.seed_of
    kinds_seen = set()
    for row in inspector.rows:
        i = row["id"]
        real = np.flatnonzero(X[i] != 0)
        toks = row["tokens"]
        assert [t["t"] for t in toks] == [dom.vocab.tokens[v] for v in X[i, real]]
        for t, j in zip(toks, real):
            kinds_seen.add(t["kind"])
            if X[i, j] != C[i, j]:
                assert t["kind"] == "sensitive" and t["alt"] == dom.vocab.tokens[C[i, j]]
            elif X[i, j] != seeds[seed_of[i], j]:
                assert t["kind"] == "subst" and t["old"] == dom.vocab.tokens[seeds[seed_of[i], j]]
            else:
                assert t["kind"] == ""
        cells = dict(zip([c["name"] for c in inspector.columns], row["cells"]))
        assert int(cells["substitutions"]) == sum(t["kind"] == "subst" for t in toks)
        assert sum(t["kind"] == "sensitive" for t in toks) == 1
        assert cells["term"] == next(t["t"] for t in toks if t["kind"] == "sensitive")
        assert cells["label"] != cells["label'"] and {cells["label"], cells["label'"]} == {"toxic", "non-toxic"}
    assert kinds_seen == {"", "sensitive", "subst"}
    assert [c["name"] for c in inspector.columns][:4] == ["text", "group", "term", "term'"]
    assert [item["kind"] for item in inspector.legend] == ["sensitive", "subst"]


def test_filters_by_group_term_and_words_with_the_slice_rate(made, inspector):
    result, dom = made
    X = np.rint(result.inputs).astype(int)
    terms = {dom.vocab.id(t): t for t in dom.term_groups.all_terms}
    term_of = [terms[int(v)] for v in X[np.arange(len(X)), np.isin(X, list(terms)).argmax(axis=1)]]
    inspector.filters = {"group": "=religion"}
    religion = [i for i, t in enumerate(term_of) if t in dom.term_groups["religion"]]
    assert inspector.total == len(religion) and sorted(inspector.visible_ids) == religion
    assert inspector.slice_rate == {"pairs": len(religion), "share": len(religion) / len(X), "filtered": True,
                                    "seeds_found": len(set(inspector.seed_of[religion].tolist()))}
    inspector.filters = {"group": "=religion", "term": "=muslim"}
    assert sorted(inspector.visible_ids) == [i for i, t in enumerate(term_of) if t == "muslim"]
    inspector.filters = {"text": "honest"}
    honest = dom.vocab.id("honest")
    assert sorted(inspector.visible_ids) == np.flatnonzero((X == honest).any(axis=1)).tolist()
    inspector.filters = {"p": ">0.9"}
    inspector.sort_by, inspector.sort_descending = "p", True
    ps = [float(r["cells"][4]) for r in inspector.rows]
    assert ps == sorted(ps, reverse=True) and min(ps) > 0.9
    inspector.filters = {}
    assert inspector.total == len(X) and inspector.slice_rate["filtered"] is False


def test_discrimination_rate_per_term_counts_the_seeds_that_led_to_a_pair():
    dom = StandInTextDomain()
    seeds = np.stack([dom.ids(s) for s in ["the muslim cook is kind .", "a muslim teacher is kind .",
                                            "my muslim neighbour was kind .", "the christian cook is kind ."]])
    X = np.stack([seeds[0], seeds[1]])
    X[1, -2] = dom.vocab.id("honest")
    C = X.copy()
    C[:, np.isin(X[0], [dom.vocab.id("muslim")]).argmax()] = dom.vocab.id("jewish")
    result = Result(dom, "adf_hf")
    result.record(X.astype(float), C.astype(float), np.array([[0.2, 0.8]] * 2), np.array([[0.8, 0.2]] * 2),
                  phase="global", seed_ids=np.array([0, 1]), elapsed=0.5)
    result.extras["seeds"] = seeds.astype(float)
    rates = {r["term"]: r for r in TextInspector(result).term_rates}
    low, high = rates["muslim"].pop("low"), rates["muslim"].pop("high")
    assert rates["muslim"] == {"term": "muslim", "group": "religion", "pairs": 2, "seeds": 3, "seeds_found": 2,
                               "rate": 2 / 3}
    assert 0.2 < low < 2 / 3 < high < 0.95                                # 2 of 3 seeds: a wide interval
    assert rates["christian"]["rate"] == 0 and rates["christian"]["pairs"] == 0
    assert set(rates) == {"muslim", "christian"}


def test_detail_shows_texts_saliency_chain_and_validity(made, inspector):
    result, dom = made
    i = next(r["id"] for r in inspector.rows if int(r["cells"][9]) == 2)
    info = result.details(i)
    inspector.selected_ids = [i]
    d = inspector.detail
    assert [t["role"] for t in d["texts"]] == ["seed", "input", "counterpart"]
    assert d["summary"].startswith(f"Pair {i}: replacing only ") and "2 substitutions" in d["summary"]
    assert d["saliency_known"] and max(t["saliency"] for t in d["tokens"]) == 1.0
    x = np.rint(result.inputs[i]).astype(int)
    real = np.flatnonzero(x != 0)
    raw = np.asarray(info["saliency"])[real]
    assert [round(t["saliency"], 9) for t in d["tokens"]] == [round(v, 9) for v in raw / raw.max()]
    assert len(d["chain"]) == 2
    for step, given in zip(d["chain"], info["chain"]):
        assert (step["position"], step["old"], step["new"]) == (given["position"], given["old"], given["new"])
        assert [c["word"] for c in step["candidates"]] == given["candidates"]
        assert [c["word"] for c in step["candidates"] if c["chosen"]] == [given["new"]]
    assert [v["name"].split(" ")[0] for v in d["validity"]] == ["L0", "L2", "Jaccard", "BLEU-4", "sentence"]
    inspector.selected_ids = []
    assert inspector.detail == {}


def test_validity_falls_back_to_l0_and_jaccard_without_details():
    result, _ = text_result(n_seeds=10, n_pairs=40, random_state=1, with_details=False)
    ins = TextInspector(result)
    i = next(r["id"] for r in ins.rows if r["cells"][9] == "1")
    ins.selected_ids = [i]
    assert ins.detail["chain"] == [] and not ins.detail["saliency_known"]
    assert [v["name"].split(" ")[0] for v in ins.detail["validity"]] == ["L0", "Jaccard"]
    assert ins.detail["validity"][0]["value"] == "1"


def test_selection_is_readable_from_python(made, inspector):
    result, dom = made
    inspector.selected_ids = [5, 2]
    sel = inspector.selected
    assert sel.index.tolist() == [5, 2]
    for i, row in sel.iterrows():
        a, b = row["text"].split(), row["counterpart"].split()
        assert [(x, y) for x, y in zip(a, b) if x != y] == [(row["term"], row["term'"])]
        assert row["label"] in ("toxic", "non-toxic") and row["seed text"]
    assert sel.columns[:2].tolist() == ["term", "term'"]          # visible however a notebook cuts the texts


def test_the_detail_view_never_shows_a_pair_the_filters_removed(made, inspector):
    result, dom = made
    inspector.filters = {"group": "=religion"}
    religious = inspector.visible_ids[0]
    inspector.selected_ids = [religious]
    assert inspector.detail["pair"] == religious
    inspector.filters = {"group": "=race"}
    assert inspector.selected_ids == [] and inspector.detail == {}
    inspector.selected_ids = [inspector.visible_ids[0]]
    inspector.page = 1 if inspector.total > inspector.page_size else 0      # another page keeps the selection
    assert inspector.selected_ids and inspector.detail


def test_script_in_a_sentence_is_escaped():
    dom = StandInTextDomain()
    evil = "<script>alert(1)</script>"
    seeds = np.stack([dom.ids("the muslim cook is kind ."), dom.ids("the muslim cook is kind .")])
    seeds[1, -1] = dom.vocab.id(evil)
    C = seeds.copy()
    C[:, 3] = dom.vocab.id("christian")
    result = Result(dom, "rp")
    result.record(seeds.astype(float), C.astype(float), np.array([[0.1, 0.9]] * 2), np.array([[0.9, 0.1]] * 2),
                  phase="global", seed_ids=np.array([0, 1]), elapsed=0.1)
    result.extras["seeds"] = seeds.astype(float)
    ins = TextInspector(result, selected_ids=[1])
    page = ins.static_html()
    assert "<script" not in page and html.escape(evil) in page
    assert evil in [t["t"] for t in ins.rows[1]["tokens"]]          # plain text for the browser's textContent
    assert evil in ins.detail["texts"][1]["text"]
    assert "<script" not in ins._repr_mimebundle_()[0]["text/html"]


def _big_result(n: int, n_seeds: int = 1000, random_state: int = 0):
    """``n`` distinct pairs built with array operations only."""
    dom = StandInTextDomain()
    rng = np.random.default_rng(random_state)
    terms = dom.vocab.ids(dom.term_groups.all_terms)
    words = dom.vocab.ids(["kind", "nice", "rude", "lazy", "friendly", "honest", "teacher", "neighbour", "cook"])
    seeds = np.zeros((n_seeds, MAX_LEN), dtype=np.int64)
    seeds[:, 1:] = dom.vocab.ids("the X cook is very kind .".split())
    seeds[:, 2] = terms[np.arange(n_seeds) % len(terms)]
    i = np.arange(n_seeds)
    seeds[:, 3] = words[i % len(words)]
    seeds[:, 0] = words[(i // (len(words) * len(terms))) % len(words)]         # every seed distinct
    seeds[:, 1] = words[(i // (len(words) ** 2 * len(terms))) % len(words)]
    seed_of = np.arange(n) % n_seeds
    X = seeds[seed_of].copy()
    k = np.arange(n) // n_seeds                                   # a different rewrite per copy of a seed
    for j, pos in enumerate((4, 5, 6)):
        X[:, pos] = words[(k // len(words) ** j) % len(words)]
    C = X.copy()
    C[:, 2] = np.where(C[:, 2] == terms[0], terms[1], terms[0])
    p = rng.uniform(0.55, 1, n)
    result = Result(dom, "adf_asc")
    result.record(X.astype(float), C.astype(float), np.column_stack([1 - p, p]), np.column_stack([p, 1 - p]),
                  phase="local", seed_ids=seed_of, elapsed=1.0)
    result.extras["seeds"] = seeds.astype(float)
    return result


def test_a_hundred_thousand_pairs_build_pages_from_their_own_rows_only(monkeypatch):
    result = _big_result(100_000)
    assert len(result) == 100_000
    ins = TextInspector(result, page_size=25)
    built, decoded = [], []
    monkeypatch.setattr(ins, "aligned", lambda i, s=None, f=ins.aligned: built.append(i) or f(i, s))
    monkeypatch.setattr(ins, "_texts", lambda ids, f=ins._texts: decoded.append(len(ids)) or f(ids))
    ins.page = 3000
    assert built == [r["id"] for r in ins.rows] and len(built) == 25
    built.clear()
    ins.filters = {"term": "=muslim", "text": "lazy"}
    ins.sort_by, ins.sort_descending = "p", True
    ins.page = 2
    assert 0 < ins.total < 100_000 and len(built) <= 4 * 25     # one page per change, never the whole list
    assert all("lazy" in r["cells"][0] and r["cells"][2] == "muslim" for r in ins.rows)
    ins.selected_ids = [ins.rows[0]["id"]]
    assert decoded == [1, 1]                                    # the detail decodes the seed and the counterpart
    assert ins.static_html().count("<tr>") == 26


def test_result_inspect_picks_the_text_inspector(made):
    ins = made[0].inspect(page_size=10, filters={"group": "=race"})
    assert isinstance(ins, TextInspector) and len(ins.rows) == 10 and {r["cells"][1] for r in ins.rows} == {"race"}


def test_on_a_real_text_search():
    import fairnb
    from fairnb import domains, text

    if not hasattr(domains, "TextDomain"):
        pytest.skip("fairnb.domains.TextDomain comes with the text search (issue #13 items 1-4)")
    data = text.make_template_corpus(n=300, biased_against=["muslim"], bias=1.0, random_state=0)
    vocab = text.Vocabulary.build(data.tokens(), extra=text.all_builtin_terms())
    E = np.random.default_rng(0).normal(size=(len(vocab), 8))
    dom = domains.TextDomain.with_embedding_neighbours(vocab, E, "religion", 10, k=5,
                                                       groups_source=text.term_groups("testsgd"),
                                                       class_names=data.label_names)
    biased = lambda texts: [float("muslim" in t or "liar" in t) for t in texts]      # noqa: E731
    seeds = [t for t in data.texts if "christian" in t][:10]
    result = fairnb.run_search(biased, dom, method="rp", seeds=seeds, n_local=20, random_state=0, progress=False)
    ins = result.inspect(page_size=100)
    assert isinstance(ins, TextInspector) and ins.total == len(result) > 0
    pairs = result.pairs
    for row in ins.rows:
        sensitive = [t for t in row["tokens"] if t["kind"] == "sensitive"]
        assert [(t["t"], t["alt"]) for t in sensitive] == [tuple(pairs[["term", "term'"]].iloc[row["id"]])]
        assert {row["cells"][6], row["cells"][7]} == set(data.label_names)
    local = next(r["id"] for r in ins.rows if int(r["cells"][9]) > 0)
    ins.selected_ids = [local]
    assert ins.detail["chain"] and ins.detail["texts"][0]["role"] == "seed"
    assert {t["old"] for t in ins.detail["tokens"] if t["kind"] == "subst"} <= set(vocab.tokens)


def test_selection_shows_its_texts_whole_in_a_notebook(made):
    """pandas cuts a cell at 50 characters (display.max_colwidth): ``inspector.selected`` showed a comment's first
    50 characters only (tutorial 04, issue #37). Its display keeps them whole; what it returns is a plain DataFrame."""
    ins = TextInspector(made[0])
    long = "the muslim cook said that the neighbour was very kind and very honest ."
    assert len(long) > 50
    ins._texts = lambda rows: [long] * len(rows)              # a counterpart and seed as long as a Reddit comment
    ins.selected_ids = [3]
    sel = ins.selected
    assert long in sel._repr_html_()
    assert pd.get_option("display.max_colwidth") == 50        # the notebook's own setting is left alone
    assert type(sel.head(1)) is pd.DataFrame and sel.loc[3, "counterpart"] == long
