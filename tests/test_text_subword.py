"""Subword text models (issue #35): words for the reader and the search, WordPiece pieces for the model.

A tiny BERT (2 blocks, hidden 16) in Keras on a tiny WordPiece tokeniser built here with ``tokenizers``: some words
are one piece, some two ("atheists" = atheist ##s, "neighbour" = neigh ##bour). Every text method searches it,
and every pair is re-checked from its two strings through the tokeniser and the model."""
from __future__ import annotations

import numpy as np
import pytest

import fairnb
from fairnb.domains import TextDomain

pytest.importorskip("tokenizers", reason="the subword tests need the 'tokenizers' package (pip install tokenizers)")
pytestmark = [pytest.mark.tf, pytest.mark.slow]     # the fixture trains a tiny BERT's head (TensorFlow start included)

RELIGION = ("christian", "muslim", "jewish", "atheists")
PIECES = 16


def wordpiece(words):
    """A BERT-style WordPiece tokeniser (lower-case, punctuation split, [CLS] ... [SEP]) of ``words``."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *words])}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    tok.decoder = decoders.WordPiece()
    tok.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
    return tok


@pytest.fixture(scope="module")
def bench():
    """``(tokenizer, corpus, weights, config, model, domain)``: a template corpus with a planted bias against
    "muslim", a tiny BERT whose head is fitted on it."""
    from fairnb.text import make_template_corpus
    from fairnb.text.bert import bert_encoder, fit_head, random_bert_weights
    from fairnb.text.subword import SubwordTokenizer

    data = make_template_corpus(n=300, descriptors={"religion": RELIGION}, biased_against=["muslim"], bias=1.0,
                                random_state=0)
    corpus_words = sorted({w for t in data.tokens() for w in t})
    whole = [w for w in corpus_words if w not in ("atheists", "neighbour")]
    tok = wordpiece([*whole, "atheist", "neigh", "##s", "##bour"])
    weights, config = random_bert_weights(tok.get_vocab_size(), hidden=16, layers=2, heads=2, intermediate=32)
    encoder = bert_encoder(weights, config, PIECES)
    ids, mask, _ = SubwordTokenizer(tok, PIECES).encode_words(data.tokens())
    model = fit_head(encoder, ids, mask, data.y, C=10.0)
    domain = TextDomain.for_model(model, {"religion": RELIGION}, tokenizer=tok, vocabulary=corpus_words)
    return tok, data, weights, config, model, domain


def test_words_map_to_their_pieces_one_or_several(bench):
    from fairnb.text.subword import SubwordTokenizer

    tok = bench[0]
    sub = SubwordTokenizer(tok, 12)
    piece = tok.token_to_id
    assert sub.word_pieces(["muslim", "atheists", "neighbour"]) == [
        [piece("muslim")], [piece("atheist"), piece("##s")], [piece("neigh"), piece("##bour")]]
    ids, mask, word = sub.encode_words([["the", "atheists", "neighbour", "."], ["a", "cook"]])
    assert ids[0, :7].tolist() == [2, piece("the"), piece("atheist"), piece("##s"), piece("neigh"), piece("##bour"),
                                   piece("."), ] and ids[0, 7] == 3
    assert word[0, :9].tolist() == [-1, 0, 1, 1, 2, 2, 3, -1, -1]
    assert mask.sum(axis=1).tolist() == [8, 4] and (ids[~mask] == 0).all()
    # the round trip string -> pieces -> string, for one- and two-piece words
    assert tok.decode(ids[0][mask[0]].tolist()) == "the atheists neighbour."


def test_the_domain_keeps_words_and_a_term_swap_may_change_the_number_of_pieces(bench):
    tok, _, _, _, model, domain = bench
    assert domain.subword is not None and domain.max_len == PIECES - 2
    x = domain.validate(["The muslim neighbour is kind."])
    assert domain.text(x) == "the muslim neighbour is kind ."
    flat, owner = domain.variants(x)
    texts = [domain.text(v) for v in flat]
    assert texts[0] == "the muslim neighbour is kind ." and owner.tolist() == [0, 0, 0, 0]
    assert sorted(texts[1:]) == sorted(f"the {t} neighbour is kind ." for t in RELIGION if t != "muslim")
    adapter = fairnb.text.wrap_text_model(model, domain)
    ids, mask, _ = adapter.pieces(flat)
    assert mask.sum(axis=1).tolist() == [10 if "atheists" in t else 9 for t in texts]   # "atheists" is two pieces
    # the adapter's probabilities are the model's on the tokeniser's own encoding of the strings
    enc = tok.encode_batch(texts)
    P = np.zeros((len(texts), PIECES), np.int32)
    for i, e in enumerate(enc):
        P[i, :len(e.ids)] = e.ids
    np.testing.assert_allclose(adapter.predict_proba(flat), np.asarray(model([P, P != 0])), atol=1e-5)


def test_piece_gradients_equal_finite_differences_and_word_gradients_sum_them(bench):
    _, _, _, _, model, domain = bench
    adapter = fairnb.text.wrap_text_model(model, domain)
    x = domain.ids(domain.validate(["our atheists neighbour was rude !"]))
    ids, mask, word = adapter.pieces(x)
    G, p = adapter.piece_gradient(ids, mask, [0], of="loss")
    E = adapter.piece_matrix[ids].astype(np.float64)
    rng = np.random.default_rng(0)
    for pos in (2, 3, 5):                           # "atheist", "##s", "neigh"
        v = rng.normal(size=E.shape[2])
        h = 1e-2
        plus, minus = E.copy(), E.copy()
        plus[0, pos] += h * v
        minus[0, pos] -= h * v
        f = [-np.log(np.asarray(adapter._from_embedded([e.astype("float32"), mask]))[0, 0]) for e in (plus, minus)]
        assert (f[0] - f[1]) / (2 * h) == pytest.approx(G[0, pos] @ v, rel=2e-2, abs=1e-4)
    Gw, pw = adapter.embedding_gradient(x, [0], of="loss")
    np.testing.assert_allclose(pw, p)
    np.testing.assert_allclose(Gw[0, 1], G[0, 2] + G[0, 3], atol=1e-6)      # "atheists": the sum of its pieces
    np.testing.assert_allclose(Gw[0, 0], G[0, 1], atol=1e-6)
    assert not Gw[0, 6:].any()                                               # padding
    atheists = domain.vocab.id("atheists")
    np.testing.assert_allclose(adapter.embedding_matrix[atheists],
                               adapter.piece_matrix[ids[0, 2:4]].mean(axis=0), atol=1e-6)


def text_methods():
    from fairnb.search.registry import RECORDS

    return sorted(name for name, record in RECORDS.items() if record.inputs == "text")


@pytest.mark.parametrize("method", text_methods())
def test_every_text_method_searches_the_subword_model_and_its_pairs_hold_on_their_strings(bench, method):
    from fairnb.constraints.text import SameTokens
    from fairnb.search.registry import RECORDS

    tok, data, _, _, model, domain = bench
    seeds = [t for t in data.texts if any(r in t.split() for r in RELIGION)][:30]
    fast = dict(RECORDS[method].fast)
    result = fairnb.run_search(model, domain, method=method, seeds=seeds, random_state=0,
                               **({"n_seeds": 20} if "n_seeds" not in fast and method != "expga_text" else {}), **fast)
    assert result.count() > 0, method
    texts = list(domain.decode(result.inputs)["text"])
    counterparts = list(domain.decode(result.counterparts)["text"])

    def decide(strings):
        P = np.zeros((len(strings), PIECES), np.int32)
        for i, e in enumerate(tok.encode_batch(strings)):
            P[i, :len(e.ids)] = e.ids[:PIECES]
        return np.asarray(model([P, P != 0])).argmax(axis=1)

    assert (decide(texts) != decide(counterparts)).all()
    X, C = domain.ids(result.inputs), domain.ids(result.counterparts)
    assert ((X != C).sum(axis=1) == 1).all() and domain.sensitive_mask(C)[X != C].all()
    assert SameTokens().allowed(domain, X, None).all()
    assert (domain.validate(texts) == X).all()                     # the words read back as the same ids


def test_without_vocabulary_the_words_are_the_tokenisers_whole_words_and_unknown_ones_are_named(bench):
    tok, _, _, _, model, _ = bench
    domain = TextDomain.for_model(model, {"religion": RELIGION}, tokenizer=tok)
    assert {"neigh", "atheist", "atheists", "cook"} <= set(domain.vocab.tokens)     # terms are words, whole or not
    assert "##s" not in domain.vocab and "neighbour" not in domain.vocab and "[CLS]" not in domain.vocab
    with pytest.warns(UserWarning, match=r"1 words of the texts are not in the domain's word list.*\['neighbour'\]"):
        x = domain.validate(["the muslim neighbour"])
    adapter = fairnb.text.wrap_text_model(model, domain)
    assert adapter.pieces(x)[0][0, :5].tolist() == [2, tok.token_to_id("the"), tok.token_to_id("muslim"), 1, 3]


def test_what_a_subword_domain_cannot_use_is_named(bench, tmp_path):
    from fairnb.text.bert import bert_encoder, bert_classifier, random_bert_weights

    tok, *_ = bench
    weights, config = random_bert_weights(tok.get_vocab_size(), hidden=8, layers=1, heads=2, intermediate=8)
    model = bert_classifier(bert_encoder(weights, config, 8))
    with pytest.raises(ValueError, match="must be a Keras model whose first input is piece ids"):
        TextDomain.for_model(lambda ids: ids, {"religion": RELIGION}, tokenizer=tok)
    with pytest.raises(FileNotFoundError, match="no file .*missing.json"):
        TextDomain.for_model(model, {"religion": RELIGION}, tokenizer=str(tmp_path / "missing.json"))
    domain = TextDomain.for_model(model, {"religion": RELIGION}, tokenizer=tok, vocabulary=["the", "cook"])
    other = bert_classifier(bert_encoder(weights, config, 12))
    with pytest.raises(ValueError, match="the model reads 12 pieces but the tokeniser pads to 8"):
        fairnb.text.wrap_text_model(other, domain)


def test_a_substitution_never_writes_in_a_word_the_model_would_read_otherwise(bench):
    from fairnb.text.subword import SubwordTokenizer

    tok, _, _, _, model, _ = bench
    sub = SubwordTokenizer(tok, 8)
    assert sub.reads_back(["cook", "atheists", "zebra", "Cook"]).tolist() == [True, True, False, False]  # no "z" piece
    domain = TextDomain.for_model(model, {"religion": RELIGION}, tokenizer=tok, k=50,
                                  vocabulary=["the", "cook", "doctor", "zebra", "is", "kind"])
    x = domain.validate(["the muslim cook is kind"])
    cand = domain.candidates(x)
    assert (cand[0, 2] >= 0).any() and domain.vocab.id("zebra") not in cand
    assert domain.vocab.id("doctor") in cand[0, 2]
    unread = [i for i, t in enumerate(domain.vocab.tokens) if i > 1 and not sub.reads_back([t])[0]]
    assert len(unread) > 100 and not np.isin(cand, unread).any()     # the built-in terms the tiny tokeniser lacks


def test_a_model_on_piece_ids_alone_with_a_sigmoid_output_is_served_too(bench):
    import keras

    tok, *_ = bench
    keras.utils.set_random_seed(0)
    ids = keras.Input((8,), dtype="int32")
    h = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(tok.get_vocab_size(), 4)(ids))
    model = keras.Model(ids, keras.layers.Dense(1, activation="sigmoid")(h))
    domain = TextDomain.for_model(model, {"religion": RELIGION}, tokenizer=tok, vocabulary=["the", "cook", "is"])
    adapter = fairnb.text.wrap_text_model(model, domain)
    x = domain.ids(domain.validate(["the muslim cook", "the atheists cook"]))
    pieces = adapter.pieces(x)[0]
    p = np.asarray(model(pieces))[:, 0]
    np.testing.assert_allclose(adapter.predict_proba(x), np.column_stack([1 - p, p]), atol=1e-6)
    G, q = adapter.embedding_gradient(x, [1, 1], of="proba")
    assert G.shape == (2, domain.max_len, 4) and np.abs(G[:, :3]).sum() > 0 and not G[:, 3:].any()


def test_a_byte_level_bpe_tokeniser_maps_each_piece_to_its_word(bench):
    import keras
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    _, data, *_ = bench
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(data.texts, trainers.BpeTrainer(vocab_size=330, special_tokens=["<pad>", "<unk>", "<s>", "</s>"],
                                                            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 2), ("</s>", 3)])
    keras.utils.set_random_seed(0)
    ids = keras.Input((24,), dtype="int32")
    mask = keras.Input((24,), dtype="bool")
    h = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(tok.get_vocab_size(), 4)(ids), mask=mask)
    model = keras.Model([ids, mask], keras.layers.Dense(2, activation="softmax")(h))
    with pytest.raises(ValueError, match="a BPE, whose pieces are not words: give"):
        TextDomain.for_model(model, {"religion": RELIGION}, tokenizer=tok)
    words = sorted({w for t in data.tokens() for w in t})
    domain = TextDomain.for_model(model, {"religion": RELIGION}, tokenizer=tok, vocabulary=words)
    adapter = fairnb.text.wrap_text_model(model, domain)
    text = "the atheists neighbour is kind ."
    x = domain.ids(domain.validate([text]))
    pieces, m, word = adapter.pieces(x)
    enc = tok.encode(text)
    assert pieces[0, :len(enc.ids)].tolist() == enc.ids and any(t.startswith("Ġ") and len(t) > 1 for t in enc.tokens)
    for p, (t, (start, end)) in enumerate(zip(enc.tokens, enc.offsets)):     # each piece's word holds its letters
        if word[0, p] >= 0 and t != "Ġ":
            assert text[start:end].strip() in text.split()[word[0, p]]
    assert sorted(set(word[0][word[0] >= 0])) == list(range(6))


def test_the_control_head_is_fitted_on_shuffled_terms_and_the_search_finds_more_on_the_planted_head(bench):
    """``fairnb.text.heads.domain_head``: the planted head (every "muslim" text labelled toxic) and its control,
    fitted on the same texts with the identity terms shuffled, on a tiny BERT wide enough (one block, hidden 64) for
    a linear head to read the planted term. Beside the control (given as ``control=``, served through the subword
    domain as the searched model is), the planted head's natural rate is apart and ADF's text search finds several
    times its material pairs."""
    from fairnb.text.bert import bert_encoder, random_bert_weights
    from fairnb.text.heads import CONTROL_LABEL, domain_head

    tok, data, _, _, _, domain = bench
    encoder = bert_encoder(*random_bert_weights(tok.get_vocab_size(), hidden=64, layers=1, heads=2, intermediate=64),
                           PIECES)
    planted = domain_head(encoder, domain, data.texts, data.y, C=10.0)
    control = domain_head(encoder, domain, data.texts, data.y, control=True, C=10.0, random_state=0)
    assert control.name == "control_head" and control.head_accuracy < planted.head_accuracy
    seeds = [t for t in data.texts if any(r in t.split() for r in RELIGION)][:40]
    runs = [fairnb.run_search(model, domain, method="adf_asc", seeds=seeds, n_seeds=40, max_iter=3, n_local=10,
                              random_state=0, progress=False, control=(control, CONTROL_LABEL))
            for model in (planted, control)]
    s, c = (r.summary() for r in runs)
    assert s["control_label"] == CONTROL_LABEL and s["control_natural_rate"] == c["natural_rate"]
    assert s["natural_low"] > s["control_natural_high"]
    assert s["material_pairs"] >= 3 * max(c["material_pairs"], 1)
    with pytest.raises(ValueError, match="subword text domain"):
        domain_head(encoder, TextDomain(domain.vocab, {"religion": RELIGION}, 5), data.texts, data.y)


def test_the_counterfactual_control_head_is_fitted_on_every_text_and_its_variants(bench, monkeypatch):
    """``domain_head(control="counterfactual")``: the head is fitted on the texts followed by every protected variant
    of each, read through the tokeniser, with the labels kept (``counterfactual_augmentation``). Taught to give every
    term of a group the same output on the same sentence, it changes its decision on a term swap of its own training
    texts far less often than the head fitted on the planted labels as they are."""
    import fairnb.text.bert as bert
    from fairnb.text.bert import bert_encoder, random_bert_weights
    from fairnb.text.heads import COUNTERFACTUAL_CONTROL_LABEL, CONTROL_LABEL, domain_head
    from fairnb.text.variants import counterfactual_augmentation

    tok, data, _, _, _, domain = bench
    encoder = bert_encoder(*random_bert_weights(tok.get_vocab_size(), hidden=64, layers=1, heads=2, intermediate=64),
                           PIECES)
    fitted, fit_head = [], bert.fit_head
    monkeypatch.setattr(bert, "fit_head", lambda enc, ids, mask, y, **kw: fitted.append((ids, y)) or
                        fit_head(enc, ids, mask, y, **kw))
    planted = domain_head(encoder, domain, data.texts, data.y, C=10.0)
    control = domain_head(encoder, domain, data.texts, data.y, control="counterfactual", C=10.0)
    rows, y = counterfactual_augmentation(domain, domain.ids(domain.validate(data.texts)), data.y)
    assert len(rows) > 2 * len(data.texts)
    assert np.array_equal(fitted[1][0], domain.subword.encode_rows(domain.vocab, rows)[0])
    assert np.array_equal(fitted[1][1], y)
    assert control.name == "counterfactual_control_head" and COUNTERFACTUAL_CONTROL_LABEL != CONTROL_LABEL
    seeds = [t for t in data.texts if any(r in t.split() for r in RELIGION)]
    rates = [fairnb.run_search(head, domain, method="rp", seeds=seeds, n_seeds=len(seeds), max_iter=0, n_local=0,
                               random_state=0, progress=False).summary()["natural_rate"] for head in (planted, control)]
    assert rates[1] < rates[0] / 2


def swap_shift(head, domain, texts) -> float:
    """The mean ``|logit(x) - logit(x')|`` of ``head`` over every protected variant ``x'`` of the ``texts``."""
    flat, owner = domain.variants(domain.ids(domain.validate(texts)))
    ids, mask, _ = domain.subword.encode_rows(domain.vocab, flat)
    p = np.clip(head.predict([ids, mask], verbose=0), 1e-7, 1)
    logit = np.log(p[:, 1] / p[:, 0])
    n = len(texts)
    return float(np.abs(logit[n:] - logit[owner[n:]]).mean())


def test_the_clp_control_head_moves_its_logit_on_a_term_swap_less_than_the_plain_head(bench):
    """``domain_head(control="clp")``: a softmax head trained on the frozen sentence vectors with counterfactual logit
    pairing (one variant of each text drawn per batch). On its training texts' term swaps its logit moves far less
    than the plain (logistic) head's on the planted labels, and than the same training without pairing
    (``pairing_strength=0``, accepted)."""
    from fairnb.text.bert import bert_encoder, random_bert_weights
    from fairnb.text.heads import CLP_CONTROL_LABEL, COUNTERFACTUAL_CONTROL_LABEL, domain_head

    tok, data, _, _, _, domain = bench
    encoder = bert_encoder(*random_bert_weights(tok.get_vocab_size(), hidden=64, layers=1, heads=2, intermediate=64),
                           PIECES)
    planted = domain_head(encoder, domain, data.texts, data.y, C=10.0)
    clp = domain_head(encoder, domain, data.texts, data.y, control="clp", random_state=0)
    unpaired = domain_head(encoder, domain, data.texts, data.y, control="clp", pairing_strength=0, random_state=0)
    assert clp.name == "clp_control_head" and CLP_CONTROL_LABEL != COUNTERFACTUAL_CONTROL_LABEL
    assert clp.pairing_history["pairs"][0] == sum(any(r in t.split() for r in RELIGION) for t in data.texts)
    shifts = [swap_shift(h, domain, data.texts) for h in (planted, unpaired, clp)]
    assert shifts[2] < shifts[0] / 3 and shifts[2] < shifts[1] / 3
    assert unpaired.head_accuracy > 0.7          # the head does learn (the labels' majority share is 0.58)


def test_a_control_recipe_not_known_is_named():
    from fairnb.text.heads import domain_head

    for control in ("counterfactuals", "Shuffled", "CLP", 1, None):
        with pytest.raises(ValueError, match="control must be False, 'shuffled' .*, 'counterfactual' or 'clp'; got"):
            domain_head(None, None, ["a text"], [0], control=control)
    for strength in (-1.0, float("nan"), "1", True):
        with pytest.raises(ValueError, match="pairing_strength must be a finite number >= 0"):
            domain_head(None, None, ["a text"], [0], control="clp", pairing_strength=strength)
    with pytest.raises(ValueError, match="pairing_strength is the strength of control='clp'; got it with"):
        domain_head(None, None, ["a text"], [0], control="shuffled", pairing_strength=1.0)


def test_a_bert_batch_is_cut_to_its_longest_text_with_the_same_outputs(bench):
    """A BERT of ``fairnb.text.bert`` reads only the pieces under its attention mask, so the adapter sorts a batch's
    rows by length and cuts each chunk to its longest text (most texts are half the model's length): the same
    probabilities and gradients (zero past each text) as at full length, in the rows' order. A model not marked so
    (``reads_masked_pieces_only``) is read at full length."""
    import keras

    from fairnb.text.subword import SubwordTextModel

    tok, _, _, _, model, domain = bench
    assert model.reads_masked_pieces_only
    texts = ["the muslim neighbour is kind .", "a christian", "our atheists neighbour was rude . the cook is kind !",
             "the jewish cook"]
    x = domain.ids(domain.validate(texts))
    cut = SubwordTextModel(model, domain.subword, domain.vocab, batch_size=2)
    widths = []
    fn = cut._proba_fn
    cut._proba_fn = lambda ids, mask: widths.append(ids.shape[1]) or fn(ids, mask)
    p = cut.predict_proba(x)
    lengths = sorted(cut.pieces(x)[1].sum(axis=1))
    assert widths == [lengths[1], lengths[3]] and max(widths) < PIECES      # two chunks, each its longest text
    ids, mask, _ = cut.pieces(x)
    np.testing.assert_allclose(p, np.asarray(model([ids, mask])), atol=1e-5)
    G, q = cut.embedding_gradient(x, [0, 1, 0, 1])
    whole = keras.Model(model.inputs, model.output)               # the same model, not marked: read at full length
    full = SubwordTextModel(whole, domain.subword, domain.vocab, batch_size=2)
    widths.clear()
    fn = full._proba_fn
    full._proba_fn = lambda ids, mask: widths.append(ids.shape[1]) or fn(ids, mask)
    np.testing.assert_allclose(full.predict_proba(x), p, atol=1e-5)
    assert widths == [PIECES, PIECES]
    G_full, q_full = full.embedding_gradient(x, [0, 1, 0, 1])
    np.testing.assert_allclose(q, q_full, atol=1e-5)
    np.testing.assert_allclose(G, G_full, atol=1e-5)
    assert G.shape == G_full.shape and not G[1, 2:].any()


def test_an_adapter_that_remembers_asks_the_model_only_for_rows_it_has_not_seen(bench):
    """``SubwordTextModel(remember=n)``: the outputs of the last ``n`` distinct rows are kept, a row repeated within
    a call is read once, and the answers are the model's; the search remembers on the adapter it makes itself
    only (one it is given is left as it is)."""
    from fairnb.search.methods.adf_text import REMEMBERED_ROWS, ADFTextASC
    from fairnb.text.subword import SubwordTextModel

    _, _, _, _, model, domain = bench
    x = domain.ids(domain.validate(["the muslim neighbour is kind .", "a christian", "the jewish cook"]))
    plain = SubwordTextModel(model, domain.subword, domain.vocab)
    adapter = SubwordTextModel(model, domain.subword, domain.vocab, remember=3)
    read = []
    fn = adapter._proba_fn
    adapter._proba_fn = lambda ids, mask: read.append(len(ids)) or fn(ids, mask)
    twice = np.vstack([x, x[:1]])
    np.testing.assert_allclose(adapter.predict_proba(twice), plain.predict_proba(twice), atol=1e-6)
    assert sum(read) == 3 and adapter.remembered_rows == 1
    np.testing.assert_allclose(adapter.predict_proba(x[::-1]), plain.predict_proba(x[::-1]), atol=1e-6)
    assert sum(read) == 3 and adapter.remembered_rows == 4
    y = domain.ids(domain.validate(["our atheists neighbour was rude !"]))
    adapter.predict_proba(y)                                   # a fourth row: the oldest is forgotten
    adapter.predict_proba(x[:1])
    assert sum(read) == 5 and len(adapter._memory) == 3
    assert adapter.predict_proba(x[:0]).shape[0] == 0
    assert ADFTextASC()._served(model, domain).remember == REMEMBERED_ROWS
    assert ADFTextASC()._served(plain, domain) is plain and plain.remember == 0


def test_a_head_fitted_on_given_sentence_vectors_is_the_head_fitted_on_the_texts(bench):
    """``fit_head(..., vectors=)``: several heads on the same texts encode them once (``sentence_vectors``, read cut
    to length) and fit the same head as from the pieces."""
    from fairnb.text.bert import bert_encoder, fit_head, sentence_vectors
    from fairnb.text.subword import SubwordTokenizer

    tok, data, weights, config, model, _ = bench
    encoder = bert_encoder(weights, config, PIECES)
    ids, mask, _ = SubwordTokenizer(tok, PIECES).encode_words(data.tokens())
    V = sentence_vectors(encoder, ids, mask)
    np.testing.assert_allclose(V[:5], np.asarray(encoder([ids[:5], mask[:5]])), atol=1e-5)
    given = fit_head(encoder, ids, mask, data.y, C=10.0, vectors=V)
    assert given.head_accuracy == pytest.approx(model.head_accuracy)
    np.testing.assert_allclose(given.get_layer("head").get_weights()[0], model.get_layer("head").get_weights()[0],
                               atol=1e-4)
    with pytest.raises(ValueError, match="vectors has 5 rows"):
        fit_head(encoder, ids, mask, data.y, vectors=V[:5])
