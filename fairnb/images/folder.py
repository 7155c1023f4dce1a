"""Your own images: a folder of image files and a CSV of labels and attributes (CelebA, UTKFace, FairFace, ...).

The CSV has one row per image: a column with the file name (relative to the folder), the label column
(0/1, or two values named in ``label_names``) and one integer-coded column per attribute. Images are read
with Pillow, converted to RGB (or grey) and resized to ``size`` x ``size``. Nothing is downloaded.

Example
-------
>>> data = load_image_folder("celeba/img", "celeba/labels.csv", image_column="image_id",
...                          label_column="Smiling", attributes=["Male"], size=32)   # doctest: +SKIP
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .dataset import ImageDataset
from .resize import resize_images


def load_image_folder(folder, labels, *, image_column: str = "file", label_column: str = "label",
                      attributes=None, protected: str | None = None, size: int = 32, grayscale: bool = False,
                      label_names: tuple[str, str] = ("non-face", "face"), name: str | None = None) -> ImageDataset:
    """Read the images listed in ``labels`` (a CSV path or a DataFrame) from ``folder`` as an :class:`ImageDataset`.

    ``attributes`` (column names; default: every column but the image and label columns) must hold
    integers; ``protected`` (default: the first attribute) names the one a fairness test is about.
    ``label_column`` holds 0/1 or the two strings of ``label_names``.
    """
    from PIL import Image

    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(f"image folder {str(folder)!r} not found")
    table = labels if isinstance(labels, pd.DataFrame) else pd.read_csv(Path(labels).expanduser())
    for column in (image_column, label_column):
        if column not in table.columns:
            raise ValueError(f"the labels table has no column {column!r}; its columns are {list(table.columns)} "
                             "(set image_column= and label_column=)")
    if attributes is None:
        attributes = [c for c in table.columns if c not in (image_column, label_column)]
    attributes = [attributes] if isinstance(attributes, str) else list(attributes)
    missing = [c for c in attributes if c not in table.columns]
    if missing or not attributes:
        raise ValueError(f"attributes {missing or attributes} not usable: name columns of the labels table "
                         f"{list(table.columns)}")
    protected = attributes[0] if protected is None else protected
    if protected not in attributes:
        raise ValueError(f"protected {protected!r} must be one of the attributes {attributes}")
    y = _labels(table[label_column], label_names, label_column)
    attrs = table[attributes]
    if not all(pd.api.types.is_integer_dtype(attrs[c]) for c in attributes):
        raise ValueError(f"attribute columns {attributes} must hold integer codes (e.g. 0/1; -1 where unknown)")
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
    return ImageDataset(name or folder.name, np.stack(images), y, attrs.reset_index(drop=True), protected,
                        label_names=tuple(label_names), info={"folder": str(folder), "size": int(size)})


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
