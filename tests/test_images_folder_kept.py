"""Image folders as users keep them: value names and blanks as attributes, one sub-folder per class, a labels
CSV named relative to the folder, ``attribute_names=``."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairnb.domains import ImageDomain
from fairnb.images import load_image_folder


def _png(path, colour):
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (12, 10), colour).save(path)


def _folder(tmp_path, skin=("light", "dark", "", "dark", "light", "")):
    rows = []
    for i, tone in enumerate(skin):
        _png(tmp_path / f"img{i}.png", (200, 150, 120) if tone == "light" else (90, 60, 40))
        rows.append({"file": f"img{i}.png", "label": i % 2, "skin": tone})
    pd.DataFrame(rows).to_csv(tmp_path / "labels.csv", index=False)


def test_value_names_and_blanks_are_coded_and_blank_is_unknown(tmp_path):
    _folder(tmp_path)
    data = load_image_folder(tmp_path, tmp_path / "labels.csv", size=8)
    assert data.attributes["skin"].tolist() == [1, 0, -1, 0, 1, -1]          # sorted: dark=0, light=1
    assert data.attribute_names == {"skin": ("dark", "light")}
    named = load_image_folder(tmp_path, tmp_path / "labels.csv", attribute_names={"skin": ("light", "dark")}, size=8)
    assert named.attribute.tolist() == [0, 1, -1, 1, 0, -1]
    assert ImageDomain.from_data(named).attribute_names == ("light", "dark")
    known = named.attribute >= 0                                                  # the seeds of a search
    assert known.sum() == 4


def test_names_outside_attribute_names_are_refused_by_name(tmp_path):
    _folder(tmp_path)
    with pytest.raises(ValueError, match=r"'medium'.*attribute_names\['skin'\]"):
        load_image_folder(tmp_path, pd.read_csv(tmp_path / "labels.csv").replace("dark", "medium"),
                          attribute_names={"skin": ("light", "dark")}, size=8)
    with pytest.raises(ValueError, match="attribute_names names \\['tone'\\]"):
        load_image_folder(tmp_path, "labels.csv", attribute_names={"tone": ("a", "b")}, size=8)


def test_a_labels_csv_relative_to_the_folder_is_found(tmp_path, monkeypatch):
    _folder(tmp_path / "faces")
    monkeypatch.chdir(tmp_path)
    assert len(load_image_folder(tmp_path / "faces", "labels.csv", size=8)) == 6
    with pytest.raises(FileNotFoundError, match="missing.csv"):
        load_image_folder(tmp_path / "faces", "missing.csv", size=8)


def test_no_labels_means_one_sub_folder_per_class(tmp_path):
    for i in range(3):
        _png(tmp_path / "face" / f"f{i}.png", (200, 150, 120))
        _png(tmp_path / "non-face" / f"n{i}.jpg", (0, 0, 255))
    (tmp_path / "face" / "notes.txt").write_text("not an image")
    data = load_image_folder(tmp_path, None, size=8)
    assert len(data) == 6 and sorted(data.y.tolist()) == [0, 0, 0, 1, 1, 1]
    assert (data.X[data.y == 0][..., 2] > 0.95).all()                            # blue (JPEG)
    assert data.protected == "attribute" and (data.attribute == -1).all()       # unknown: no attribute given
    with pytest.raises(FileNotFoundError, match=r"label_names.*\['smile'\]"):
        load_image_folder(tmp_path, label_names=("face", "smile"), size=8)
