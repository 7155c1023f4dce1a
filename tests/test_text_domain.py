"""fairnb.domains.TextDomain: token-id texts protected by sensitive-term groups (the core Domain protocol)."""
from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from fairnb.domains import Feature, TabularDomain, TextDomain, domain_from_config
from fairnb.oracle import Oracle
from fairnb.text import Vocabulary

GROUP = {"religion": ["muslim", "christian", "atheist"]}
WORDS = ["the", "muslim", "christian", "atheist", "cook", "chef", "is", "kind", "nice", "and", "guinea-bissau"]


@pytest.fixture(scope="module")
def dom():
    vocab = Vocabulary.build([WORDS])
    E = np.random.default_rng(0).normal(size=(len(vocab), 4))
    return TextDomain.with_embedding_neighbours(vocab, E, GROUP, 8, k=4, class_names=("ok", "toxic"))


def test_validate_takes_texts_and_id_rows_and_names_what_is_wrong(dom):
    x = dom.validate(["The Muslim cook is kind."])
    assert x.shape == (1, 8) and dom.text(x[0]) == "the muslim cook is kind <oov>"   # "." is not in the vocab
    assert np.array_equal(dom.validate(x[0]), x)                                   # one row
    assert dom.tokens(x) == ["the", "muslim", "cook", "is", "kind", "<oov>"]
    assert np.array_equal(dom.validate(pd.DataFrame({"text": ["The Muslim cook is kind."]})), x)
    with pytest.raises(ValueError, match=r"expected \(n, 8\)"):
        dom.validate(np.zeros((2, 5)))
    with pytest.raises(ValueError, match="outside 0..12"):
        dom.validate(np.full((1, 8), 99))
    with pytest.raises(ValueError, match="whole token ids"):
        dom.validate(np.full((1, 8), 2.5))


def test_bad_construction():
    vocab = Vocabulary.build([WORDS])
    with pytest.raises(ValueError, match="missing from the vocabulary"):
        TextDomain(vocab, {"religion": ["muslim", "sikh"]}, 8)
    with pytest.raises(ValueError, match="unknown sensitive-term group"):
        TextDomain(vocab, "religon", 8)
    with pytest.raises(TypeError, match="Vocabulary"):
        TextDomain(WORDS, GROUP, 8)
    with pytest.raises(ValueError, match="neighbours must be an integer table"):
        TextDomain(vocab, GROUP, 8, neighbours=np.zeros((3, 2), int))


def test_variants_are_ragged_one_occurrence_at_a_time_or_jointly(dom):
    X = dom.validate(["the muslim cook and the muslim chef", "the cook is kind", "the atheist is nice"])
    flat, owner = dom.variants(X)
    counts = np.bincount(owner, minlength=3)
    assert counts.tolist() == [1 + 2 * 2, 1, 1 + 2]        # 2 occurrences x 2 other terms; none; one x 2
    assert dom.own_variant(X).tolist() == [0, 0, 0]
    first = flat[owner == 0]
    assert np.array_equal(first[0], X[0])                 # the text itself comes first
    assert all((v != X[0]).sum() == 1 for v in first[1:])  # one occurrence at a time
    joint = TextDomain(dom.vocab, GROUP, 8, jointly=True, neighbours=dom.neighbours)
    flat, owner = joint.variants(X[:1])
    assert len(flat) == 3 and [joint.text(v) for v in flat[1:]] == [
        "the christian cook and the christian chef", "the atheist cook and the atheist chef"]


def test_keys_drop_the_sensitive_term_under_the_adf_convention(dom):
    X = dom.validate(["the muslim cook is kind", "the christian cook is kind", "the muslim chef is kind"])
    eidig, adf = dom.key(X, "eidig"), dom.key(X, "adf")
    assert len(np.unique(eidig, axis=0)) == 3 and len(np.unique(adf, axis=0)) == 2
    assert (adf[0] == -1).sum() == 1


def test_candidates_never_padding_oov_or_a_term_of_the_group(dom):
    X = dom.validate(["the muslim cook is kind", "guinea-bissau and the atheist chef"])
    cand = dom.candidates(X)
    assert cand.shape == (2, 8, 4)
    terms = [dom.vocab.id(t) for t in GROUP["religion"]]
    assert not np.isin(cand, [0, 1, *terms]).any()
    assert (cand[dom.sensitive_mask(X)] == -1).all() and (cand[dom.ids(X) == 0] == -1).all()
    assert dom.perturbable(X).sum(axis=1).tolist() == [4, 4]


def test_oracle_on_a_text_domain(dom):
    X = dom.validate(["the muslim cook is kind", "the cook is kind"])
    model = lambda ids: (np.asarray(ids) == dom.vocab.id("muslim")).any(axis=1).astype(float)   # noqa: E731
    v = Oracle(model, dom).check(X)
    assert v.discriminatory.tolist() == [True, False]
    assert dom.text(v.counterpart[0]) in ("the christian cook is kind", "the atheist cook is kind")


def test_storage_and_display(dom):
    X = dom.validate(["the muslim cook is kind", "the atheist chef is nice"])
    C = X.copy()
    C[0, dom.sensitive_positions(X[0])[0]] = dom.vocab.id("christian")
    C[1, dom.sensitive_positions(X[1])[0]] = dom.vocab.id("muslim")
    stored = dom.to_columns(X)
    assert list(stored.columns) == ["ids"] and np.array_equal(dom.from_columns(pd.read_csv(io.StringIO(stored.to_csv(index=False)))), X)
    assert dom.decode(X)["text"].tolist() == ["the muslim cook is kind", "the atheist chef is nice"]
    assert dom.pair_columns(X, C) == {"term": ["muslim", "atheist"], "term'": ["christian", "muslim"],
                                      "group": ["religion", "religion"]}
    described = dom.describe_pair(X[0], C[0])
    assert described["changed"] == {"position 4": ("muslim", "christian")}
    assert described["counterpart"] == "the christian cook is kind"
    assert dom.item_shape == (8,) and dom.term_group("atheist") == "religion" and dom.term_group("cook") is None
    assert dom.groups == ("religion",) and dom.class_names == ("ok", "toxic")


def test_config_is_json_and_rebuilds_the_domain(dom):
    config = json.loads(json.dumps(dom.to_config()))
    back = domain_from_config(config)
    assert isinstance(back, TextDomain) and back.vocab == dom.vocab and back.max_len == 8
    assert back.term_groups == dom.term_groups and np.array_equal(back.neighbours, dom.neighbours)
    X = dom.validate(["the muslim cook is kind"])
    assert np.array_equal(back.key(X, "adf"), dom.key(X, "adf")) and back.class_names == dom.class_names


def test_methods_refuse_a_domain_of_the_wrong_kind(dom):
    from fairnb import run_search

    tab = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 3)], protected=["sex"])
    with pytest.raises(TypeError, match="adf_asc needs a text domain with word substitutions"):
        run_search(lambda X: X[:, 0], tab, method="adf_asc", seeds=[[0, 1]])
    with pytest.raises(TypeError, match="adf needs a bounded integer domain"):
        run_search(lambda X: X[:, 0], dom, method="adf", seeds=["the muslim cook"])
