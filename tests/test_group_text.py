"""TestSGD on text: term rules, category-level support, sampling by term replacement, planted bias found."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from fairnb import text
from fairnb.group import TermRuleSet, TextSampler, TextTestSGD


@pytest.fixture(scope="module")
def vocab():
    return text.Vocabulary.build([["i", "am", "a", "the", "cook", "."]], extra=text.all_builtin_terms())


def _encode(vocab, sentences, max_len=8):
    return vocab.encode(text.Tokenizer().tokenize_all(sentences), max_len)


def _sampler(vocab, ids, complement="unmodified", groups=("gender", "religion")):
    terms = text.term_groups("testsgd")
    return TextSampler(ids, {g: text.group_ids(vocab, terms[g]) for g in groups}, complement)


def _row(vocab, sampler, **terms):
    return np.array([vocab.id(terms[c]) if c in terms else -1 for c in sampler.names])


def test_the_papers_example_lesbian_becomes_gay(vocab):
    ids = _encode(vocab, ["I am a lesbian", "I am a cook"])
    sampler = _sampler(vocab, ids)
    X = sampler.sample(_row(vocab, sampler, gender="gay")[None], True, 5, np.random.default_rng(0))
    assert {" ".join(t) for t in vocab.decode(X)} == {"i am a gay"}


@pytest.mark.parametrize("complement", ["unmodified", "swap"])
def test_sampling_keeps_group_membership(vocab, complement):
    sentences = ["the gay muslim cook", "a lesbian , a bisexual and a christian", "the jewish cook",
                 "the queer cook", "i am a cook", "the gay cook and the sikh", "the atheist and the gay ."]
    ids = _encode(vocab, sentences)
    sampler = _sampler(vocab, ids, complement)
    rng = np.random.default_rng(1)
    rows = np.array([_row(vocab, sampler, gender="gay", religion="sikh"), _row(vocab, sampler, religion="muslim"),
                     _row(vocab, sampler, gender="queer")])
    m = 300
    inside = sampler.sample(rows, True, m, rng).reshape(len(rows), m, -1)
    outside = sampler.sample(rows, False, m, rng).reshape(len(rows), m, -1)
    gender, religion = sampler.term_ids
    for row, ins, out in zip(rows, inside, outside):
        terms = row[row >= 0]
        contains_all = lambda X: np.all([(X == t).any(axis=1) for t in terms], axis=0)   # noqa: E731
        assert contains_all(ins).all()                               # every in-group text satisfies R
        assert not contains_all(out).any()                           # no out-of-group text does
        for c, cat in enumerate((gender, religion)):
            if row[c] >= 0:                                          # every other term of the category replaced
                assert not np.isin(ins, cat[cat != row[c]]).any()
                if complement == "swap":                             # the complement keeps the category
                    assert np.isin(out, cat).any(axis=1).all()
        if complement == "swap":                                     # and only identity terms differ from a seed
            identity = np.isin(out, np.concatenate([gender, religion]))
            seeds = {tuple(np.where(np.isin(s, np.concatenate([gender, religion])), -2, s)) for s in ids}
            assert {tuple(np.where(identity[i], -2, out[i])) for i in range(m)} <= seeds
    assert len({tuple(x) for x in outside[1]}) > 1                   # draws vary


def test_support_is_category_level_and_rules_are_one_per_term(vocab):
    ids = _encode(vocab, ["the gay muslim cook", "the lesbian cook", "the sikh cook", "i am a cook"])
    tester = TextTestSGD(sensitive=["gender", "religion"], theta=0.2)
    found = tester.rule_sets(ids, vocab)
    by_text = {rs.text: rs for rs in found}
    assert by_text['contains "gay" and "taoist"'].support == by_text['contains "lesbian" and "sikh"'].support == 0.25
    assert by_text['contains "queer"'].support == 0.5
    assert len(found) == 14 + 9 + 14 * 9
    assert len(TextTestSGD(sensitive=["gender", "religion"], theta=0.3).rule_sets(ids, vocab)) == 14 + 9
    everything = TextTestSGD(theta=0.0).rule_sets(ids, vocab)
    assert len(everything) == 15 * 18 * 10 * 9 - 1 and sum(len(rs.terms) == 1 for rs in everything) == 48


def _trained(data):
    texts, _, y, _ = data.split()
    return make_pipeline(CountVectorizer(), LogisticRegression(max_iter=1000)).fit(texts, y)


@pytest.fixture(scope="module")
def corpora():
    biased = text.make_template_corpus(n=3000, biased_against=["muslim"], bias=0.9, random_state=0)
    fair = text.make_template_corpus(n=3000, bias=0.0, random_state=0)
    tokens = biased.tokens() + fair.tokens()
    return biased, fair, text.Vocabulary.build(tokens, extra=text.all_builtin_terms())


@pytest.mark.parametrize("complement", ["unmodified", "swap"])
def test_finds_the_planted_group_and_nothing_on_an_unbiased_model(corpora, complement):
    biased, fair, vocab = corpora
    tester = TextTestSGD(sensitive=["religion", "race"], complement=complement, random_state=0)
    found = tester.run(_trained(biased), biased, vocab)
    top = found.frame.iloc[0]
    assert top.rule_set == 'contains "muslim"' and top.phi_in > top.phi_out + 0.3 and top.score > 3 * top.eps
    assert found.frame.score.iloc[1:].max() < 0.1                     # only the planted term stands out
    assert len(found) == 9 + 17 and found.info["complement"] == complement
    clean = tester.run(_trained(fair), fair, vocab)
    # 26 rule sets each within its bound at 90.25 %: a few exceed it by chance, none by much
    assert len(clean) == 9 + 17 and clean.frame.score.max() < 0.1 and (clean.frame.score <= clean.frame.eps).mean() > 0.8
    page = found._repr_html_()
    assert found.info["class_names"] == ("non-toxic", "toxic") and "P(the model decides toxic | in group)" in page
    assert "every term of one category shows the same support" in page          # Eq. 3 is category-level


def test_given_rule_sets_are_scored_and_results_are_deterministic(corpora):
    biased, _, vocab = corpora
    model = _trained(biased)
    chosen = [TermRuleSet((("religion", "muslim"),)), TermRuleSet((("religion", "jewish"),))]
    a = TextTestSGD(sensitive=["religion"], random_state=3).run(model, biased, vocab, rule_sets=chosen)
    b = TextTestSGD(sensitive=["religion"], random_state=3).run(model, biased, vocab, rule_sets=chosen)
    assert a.frame.equals(b.frame) and list(a.frame.rule_set) == ['contains "muslim"', 'contains "jewish"']
    assert ((a.frame.n >= 1000) & (a.frame.n <= 1537)).all()


def test_bad_input_messages(corpora, vocab):
    biased, _, full = corpora
    with pytest.raises(ValueError, match="share the terms"):
        TextTestSGD(terms=text.term_groups("testsgd").with_groups({"colour": ["black", "white"]})).groups()
    with pytest.raises(ValueError, match="complement must be one of"):
        TextTestSGD(complement="other").rule_sets(biased, full)
    with pytest.raises(ValueError, match="missing from the vocabulary"):
        TextTestSGD().rule_sets(biased, text.Vocabulary.build(biased.tokens()))
    with pytest.raises(TypeError, match="vocab must be"):
        TextTestSGD().rule_sets(biased, None)
    with pytest.raises(ValueError, match="not a term of the category"):
        TextTestSGD(sensitive=["religion"]).run(lambda t: [0.0] * len(t), biased, full,
                                                rule_sets=[TermRuleSet((("religion", "gay"),))])
