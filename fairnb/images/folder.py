"""Your own images: a folder of image files plus a CSV of labels and attributes (CelebA, UTKFace, FairFace, ...),
or one sub-folder per class.

The CSV has one row per image: a column with the file name (relative to the folder), the label column
(0/1, or two values named in ``label_names``) and one column per attribute. An attribute column holds integer
codes (``-1`` = unknown) or value names such as ``"light"``/``"dark"``; a blank cell is unknown (``-1``): such an
image is never a seed of an attribute search (pick seeds with ``data.attribute >= 0``) and never trains the
attribute model *f_sa*. ``attribute_names={"skin": ("light", "dark")}`` names the values (code 0, 1, ...) and
fixes their order; without it, names are coded in sorted order. Without a CSV (``labels=None``) each sub-folder
is a class: ``label_names[0]`` and ``label_names[1]``, and the protected attribute is unknown (``-1``) for
every image. Images are read with Pillow, converted to RGB (or grey) and
resized to ``size`` x ``size``. Nothing is downloaded.

Example
-------
>>> data = load_image_folder("faces", "labels.csv", label_column="smiling", attributes=["skin"],
...                          attribute_names={"skin": ("light", "dark")}, size=32)   # doctest: +SKIP
>>> data.attribute_names["skin"]                                                      # doctest: +SKIP
('light', 'dark')
>>> by_class = load_image_folder("faces", None, label_names=("no_face", "face"))     # doctest: +SKIP
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .dataset import ImageDataset
from .resize import resize_images

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp")


def load_image_folder(folder, labels=None, *, image_column: str = "file", label_column: str = "label",
                      attributes=None, protected: str | None = None, attribute_names: dict | None = None,
                      size: int = 32, grayscale: bool = False, label_names: tuple[str, str] = ("non-face", "face"),
                      name: str | None = None) -> ImageDataset:
    """Read the images listed in ``labels`` from ``folder`` as an :class:`ImageDataset`.

    ``labels``: a CSV path (absolute, or relative to the working directory or to ``folder``), a DataFrame, or
    None: one sub-folder per class, named ``label_names``. ``attributes`` (column names; default: every column
    but the image and label columns) hold integer codes or value names, blank where unknown; ``protected``
    (default: the first attribute) names the one a fairness test is about; ``attribute_names`` maps an
    attribute to its value names in code order. ``label_column`` holds 0/1 or the two strings of ``label_names``.
    """
    from PIL import Image

    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(f"image folder {str(folder)!r} not found")
    table = _labels_table(folder, labels, image_column, label_column, label_names)
    for column in (image_column, label_column):
        if column not in table.columns:
            raise ValueError(f"the labels table has no column {column!r}; its columns are {list(table.columns)} "
                             "(set image_column= and label_column=)")
    if labels is None and attributes is None:
        table = table.assign(**{protected or "attribute": pd.NA})        # no attribute known: every value blank
    if attributes is None:
        attributes = [c for c in table.columns if c not in (image_column, label_column)]
    attributes = [attributes] if isinstance(attributes, str) else list(attributes)
    missing = [c for c in attributes if c not in table.columns]
    if missing or not attributes:
        raise ValueError(f"attributes {missing or attributes} not usable: name columns of the labels table "
                         f"{list(table.columns)} (a folder without a CSV has no attribute: give labels=)")
    protected = attributes[0] if protected is None else protected
    if protected not in attributes:
        raise ValueError(f"protected {protected!r} must be one of the attributes {attributes}")
    unknown = sorted(set(attribute_names or {}) - set(attributes))
    if unknown:
        raise ValueError(f"attribute_names names {unknown}, which are not among the attributes {attributes}")
    y = _labels(table[label_column], label_names, label_column)
    coded = {c: attribute_codes(table[c], c, (attribute_names or {}).get(c)) for c in attributes}
    attrs = pd.DataFrame({c: codes for c, (codes, _) in coded.items()})
    names = {c: values for c, (_, values) in coded.items() if values is not None}
    images = []
    for file in table[image_column].astype(str):
        path = folder / file
        if not path.is_file():
            raise FileNotFoundError(f"image {file!r} listed in the labels table is not in {str(folder)!r}")
        with Image.open(path) as img:
            pixels = np.asarray(img.convert("L" if grayscale else "RGB"), dtype=np.float32) / 255.0
        images.append(resize_images(pixels[None], size)[0])
    if not images:
        raise ValueError("the labels table lists no image")
    return ImageDataset(name or folder.name, np.stack(images), y, attrs, protected, label_names=tuple(label_names),
                        attribute_names=names, info={"folder": str(folder), "size": int(size)})


def _labels_table(folder: Path, labels, image_column: str, label_column: str, label_names) -> pd.DataFrame:
    """The labels as a DataFrame: given, read from a CSV (resolved against ``folder`` too), or one row per image
    of the sub-folders named ``label_names``."""
    if isinstance(labels, pd.DataFrame):
        return labels
    if labels is None:
        return _class_folders(folder, image_column, label_column, label_names)
    if not isinstance(labels, (str, Path)):
        raise TypeError(f"labels must be a CSV path, a DataFrame or None (one sub-folder per class), "
                        f"got {type(labels).__name__}")
    path = Path(labels).expanduser()
    if not path.is_file() and not path.is_absolute() and (folder / path).is_file():
        path = folder / path
    if not path.is_file():
        raise FileNotFoundError(f"labels CSV {str(labels)!r} not found (looked in the working directory and in "
                                f"{str(folder)!r})")
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def _class_folders(folder: Path, image_column: str, label_column: str, label_names) -> pd.DataFrame:
    names = [str(n) for n in label_names]
    found = sorted(p.name for p in folder.iterdir() if p.is_dir())
    absent = [n for n in names if n not in found]
    if absent:
        raise FileNotFoundError(f"labels=None reads one sub-folder per class, named by label_names {names}; "
                                f"{str(folder)!r} has no {absent} (its sub-folders: {found}); rename them, set "
                                "label_names=, or give a labels CSV")
    rows = [{image_column: f"{n}/{p.name}", label_column: n} for n in names
            for p in sorted((folder / n).iterdir()) if p.suffix.lower() in IMAGE_SUFFIXES]
    return pd.DataFrame(rows, columns=[image_column, label_column])


def attribute_codes(column: pd.Series, name: str, value_names=None) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """``(codes, value names)`` of one attribute column: integer codes kept (value names as given), value
    names coded by their position in ``value_names`` (default: sorted); blank cells are ``-1`` (unknown).

    >>> attribute_codes(pd.Series(["dark", "", "light"]), "skin", ("light", "dark"))
    (array([ 1, -1,  0]), ('light', 'dark'))
    """
    text = column.astype("string").str.strip()
    blank = column.isna().to_numpy() | (text == "").fillna(True).to_numpy()
    numbers = pd.to_numeric(column.where(~blank), errors="coerce")
    given = None if value_names is None else tuple(str(v) for v in value_names)
    if numbers[~blank].notna().all() and (numbers[~blank] == np.round(numbers[~blank])).all():
        codes = numbers.fillna(-1).to_numpy().astype(np.int64)
        if given is not None and codes.max(initial=-1) >= len(given):
            raise ValueError(f"attribute {name!r} has code {codes.max()} but attribute_names gives {len(given)} "
                             f"names {list(given)}")
        return codes, given
    values = text[~blank].tolist()
    names = given if given is not None else tuple(sorted(set(values)))
    strays = sorted(set(values) - set(names))
    if strays:
        raise ValueError(f"attribute {name!r} holds {strays[:5]}, which attribute_names[{name!r}] {list(names)} "
                         "does not name (leave a cell blank where the value is unknown)")
    index = {v: i for i, v in enumerate(names)}
    return np.array([-1 if b else index[v] for b, v in zip(blank, text.fillna("").tolist())], dtype=np.int64), names


def _labels(column: pd.Series, label_names, label_column: str) -> np.ndarray:
    values = column.to_numpy()
    if pd.api.types.is_numeric_dtype(column) and np.isin(values, (0, 1)).all():
        return values.astype(np.int64)
    names = [str(v) for v in label_names]
    found = column.astype(str)
    if not found.isin(names).all():
        raise ValueError(f"label column {label_column!r} must hold 0/1 or the label_names {names}; "
                         f"found {sorted(set(found) - set(names))[:5]}")
    return (found == names[1]).to_numpy().astype(np.int64)
