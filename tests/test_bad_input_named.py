"""Bad input gets a clear error naming the item or argument: never a silent repair (a number or NaN among seed
texts used to become the text "5" or "nan", a None token entered the vocabulary, a NaN embedding row gave
neighbours, an image 16.5 pixels high became 16, ``--protected ""`` searched every attribute)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from fairnb.domains import TextDomain
from fairnb.mitigation import discrimination_rate
from fairnb.search import get_method
from fairnb.text import Vocabulary

WORDS = ["the", "muslim", "christian", "cook", "chef", "is", "kind", "nice"]
GROUPS = {"religion": ["muslim", "christian"]}


def biased(texts):
    return [0.9 if "muslim" in t else 0.1 for t in texts]


@pytest.fixture(scope="module")
def dom():
    vocab = Vocabulary.build([WORDS])
    return TextDomain.with_embedding_neighbours(vocab, np.random.default_rng(0).normal(size=(len(vocab), 4)), GROUPS, 5, k=3)


@pytest.mark.parametrize("item", [5, float("nan"), None, b"the cook"])
def test_a_non_text_among_seed_texts_is_refused_by_its_position(dom, item):
    seeds = ["the muslim cook is kind", item]
    with pytest.raises(ValueError, match=r"seeds: item 1 is .*not a text"):
        get_method("rp")(n_local=5, random_state=0).run(biased, dom, seeds=seeds)
    with pytest.raises(ValueError, match=r"inputs: item 1 is .*not a text"):
        discrimination_rate(biased, dom, inputs=seeds)


def test_a_vocabulary_holds_strings_only():
    with pytest.raises(TypeError, match=r"token list 1 holds None"):
        Vocabulary.build([["the", "cook"], ["the", None]])
    with pytest.raises(TypeError, match=r"extra holds 3"):
        Vocabulary.build([["the"]], extra=["muslim", 3])


def test_an_embedding_with_nan_rows_is_refused_naming_the_tokens():
    vocab = Vocabulary.build([WORDS])
    E = np.random.default_rng(0).normal(size=(len(vocab), 4))
    E[vocab.id("chef")] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinite values in 1 rows.*'chef'"):
        TextDomain.with_embedding_neighbours(vocab, E, GROUPS, 5, k=3)


@pytest.mark.parametrize("shape", [(16.5, 16, 3), ("a", 16, 3), (0, 16, 3), (True, 16, 3), (16, 16)])
def test_an_image_shape_is_three_positive_integers(shape):
    from fairnb.domains import ImageDomain

    with pytest.raises(ValueError, match=r"three positive integers, got"):
        ImageDomain(shape)


@pytest.mark.parametrize("n", [-5, 0, 2.5, "100"])
def test_synthetic_data_needs_a_positive_number_of_rows(n):
    from fairnb.datasets import make_synthetic

    with pytest.raises(ValueError, match=r"n must be a positive number of rows"):
        make_synthetic(n=n)


def test_the_command_line_refuses_an_empty_protected_attribute(capsys):
    from fairnb.cli import main

    assert main(["search", "--dataset", "census", "--model", "m.h5", "--protected", " , "]) == 2
    assert "--protected names no attribute" in capsys.readouterr().err


def test_a_model_that_returns_labels_as_strings_is_named(dom):
    import fairnb

    with pytest.raises(ValueError, match=r"text model .* returned 'yes' \(str\), not a number.*predict_proba"):
        get_method("rp")(n_local=5, random_state=0).run(lambda texts: ["yes"] * len(texts), dom,
                                                         seeds=["the muslim cook is kind"])
    data = fairnb.datasets.make_synthetic(n=100, random_state=0)
    with pytest.raises(ValueError, match=r"model .* returned 'yes' \(str\), not a number"):
        get_method("random")(n_samples=100, random_state=0).run(lambda X: np.array(["yes"] * len(X)), data.domain)


def test_a_tabular_model_on_a_text_domain_is_refused_as_one(dom):
    import fairnb
    from sklearn.linear_model import LogisticRegression

    data = fairnb.datasets.make_synthetic(n=100, random_state=0)
    model = LogisticRegression().fit(data.X, data.y)
    with pytest.raises(TypeError, match=r"LogisticRegression was fitted on a table of 7 columns.*list of strings"):
        get_method("rp")(n_local=5, random_state=0).run(model, dom, seeds=["the muslim cook is kind"])


@pytest.mark.parametrize("kind", ["NumpyMLP", "FunctionModel", "callable"])
def test_a_model_of_numbers_on_a_text_domain_is_named_with_what_texts_need(dom, kind):
    # issue #34: rp said only "could not convert string to float: 'the muslim cook is kind'"
    import fairnb

    model = {"NumpyMLP": fairnb.models.NumpyMLP([np.ones((7, 1))], [np.zeros(1)]),
             "FunctionModel": fairnb.models.FunctionModel(lambda X: X[:, 0] / 10),
             "callable": lambda X: np.asarray(X, dtype=float)[:, 0] / 10}[kind]
    said = {"NumpyMLP": r"NumpyMLP\(7-1, sigmoid\) is a fairnb model of tables",
            "FunctionModel": r"FunctionModel\(<lambda>\) is a fairnb model of tables",
            "callable": r"text model '<lambda>' \(function\) cannot read texts \(could not convert string to float"}[kind]
    with pytest.raises(TypeError, match=rf"{said}.*a text search gives its model a list of strings.*TabularDomain.*"
                                        r"a model that reads texts"):
        get_method("rp")(n_local=5, random_state=0, progress=False).run(model, dom, seeds=["the muslim cook is kind"])


def test_a_seed_text_cut_before_its_identity_term_is_skipped_with_a_warning(dom):
    long = "the muslim cook " + "the cook is kind " * 125            # 503 tokens, cut to its last 5
    with pytest.warns(UserWarning, match=r"seeds: 1 of 2 texts \(items \[0\]\) mention a protected term only beyond "
                                         r"the 5 tokens .* a search skips them; raise max_len"):
        r = get_method("rp")(n_local=5, random_state=0).run(biased, dom, seeds=[long, "the muslim cook is kind"])
    assert r.extras["skipped_seeds"] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                 # a long text that keeps its term: no warning
        dom.validate(["the cook is kind " * 125 + "the muslim cook"])
