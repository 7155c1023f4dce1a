"""The image data set: float images in [0, 1], face / non-face labels, per-image attributes, and (for
data fairnb renders itself) the parameter records that re-render any image with another attribute value.

``X`` has shape ``(n, H, W, C)``. ``attributes`` is a DataFrame with one column per attribute (``-1``
where an attribute does not apply, e.g. the hair of a non-face). ``protected`` names the attribute a
fairness test is about; ``attribute_names`` maps an attribute to the names of its values 0, 1, ...
(e.g. ``{"skin_tone": ("light", "dark")}``). ``params`` and ``render`` are set for generated data (``make_faces``,
``load_tinted_lfw``): ``render(params)`` returns the images of the rows of ``params``, so
``data.rerender(index, skin_tone=1)`` is the exact counterfactual of images ``index``.

Planted bias, in the *training* split only (the test split stays complete and correctly labelled):
``kept_in_training`` < 1 keeps only that share of the faces whose protected attribute is ``biased_value``
(under-representation), and ``mislabelled_in_training`` > 0 labels that share of them "non-face" (label
bias, as when annotators miss darker faces). Under-representation alone leaves little to measure when the
faces' structure tells them apart anyway (tinted LFW: every crop is also seen with the other tone, and the
detector finds dark faces as well as light ones); label bias makes the detector use the attribute, so a
biased detector shows a tone gap in its detection rate (``benchmarks/images.py`` reports it per seed).

Example
-------
>>> import numpy as np
>>> from fairnb.images import make_faces
>>> data = make_faces(n=40, size=16, random_state=0)
>>> data
ImageDataset('faces', 40 images 16x16x3, protected='skin_tone')
>>> train, test = data.split_indices()
>>> len(train), len(test)
(32, 8)
>>> face = int(np.flatnonzero(data.y == 1)[0])
>>> other = data.rerender([face], skin_tone=1 - data.attribute[face])      # the same face, other skin tone
>>> bool((other != data.X[[face]]).any()), bool((other == data.X[[face]]).any())
(True, True)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd


@dataclass
class ImageDataset:
    """Images ``X`` (n, H, W, C) in [0, 1], labels ``y`` (1 = ``label_names[1]``), attributes per image."""

    name: str
    X: np.ndarray
    y: np.ndarray
    attributes: pd.DataFrame
    protected: str
    label_names: tuple[str, str] = ("non-face", "face")
    params: pd.DataFrame | None = None
    render: Callable[[pd.DataFrame], np.ndarray] | None = None
    kept_in_training: float = 1.0
    biased_value: int = 1
    mislabelled_in_training: float = 0.0
    test_size: float = 0.2
    random_state: int = 0
    attribute_names: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        self.X = np.asarray(self.X, dtype=np.float32)
        self.y = np.asarray(self.y).astype(np.int64).reshape(-1)
        self.attributes = pd.DataFrame(self.attributes).reset_index(drop=True)
        if self.X.ndim != 4:
            raise ValueError(f"{self.name}: X must have shape (n, height, width, channels), got {self.X.shape}")
        if len(self.y) != len(self.X) or len(self.attributes) != len(self.X):
            raise ValueError(f"{self.name}: {len(self.X)} images but {len(self.y)} labels and "
                             f"{len(self.attributes)} attribute rows")
        if len(self.X) and (self.X.min() < 0 or self.X.max() > 1):
            raise ValueError(f"{self.name}: pixel values must lie in [0, 1]; got [{self.X.min()}, {self.X.max()}] "
                             "(divide 8-bit images by 255)")
        if self.protected not in self.attributes.columns:
            raise ValueError(f"{self.name}: protected attribute {self.protected!r} is not one of "
                             f"{list(self.attributes.columns)}")
        if not 0 < self.kept_in_training <= 1:
            raise ValueError(f"kept_in_training must be in (0, 1], got {self.kept_in_training}")
        if not 0 <= self.mislabelled_in_training <= 1:
            raise ValueError(f"mislabelled_in_training must be in [0, 1] (a share of the biased faces), got "
                             f"{self.mislabelled_in_training}")
        if (self.params is None) != (self.render is None):
            raise ValueError("give both params and render (generated data) or neither")

    def __len__(self):
        return len(self.X)

    def __repr__(self):
        h, w, c = self.X.shape[1:]
        return f"ImageDataset({self.name!r}, {len(self)} images {h}x{w}x{c}, protected={self.protected!r})"

    @property
    def attribute(self) -> np.ndarray:
        """The protected attribute of every image (``-1`` where it does not apply)."""
        return self.attributes[self.protected].to_numpy(dtype=np.int64)

    def with_protected(self, name: str) -> "ImageDataset":
        """The same images with another attribute as the protected one."""
        return _replace(self, protected=name)

    def split_indices(self) -> tuple[np.ndarray, np.ndarray]:
        """Indices of the training and test images (stratified by label; the planted bias applied to training)."""
        from sklearn.model_selection import train_test_split

        train, test = train_test_split(np.arange(len(self)), test_size=self.test_size,
                                       random_state=self.random_state, stratify=self.y)
        if self.kept_in_training < 1:
            rng = np.random.default_rng(self.random_state)
            target = (self.y[train] == 1) & (self.attribute[train] == self.biased_value)
            drop = rng.random(len(train)) >= self.kept_in_training
            train = train[~(target & drop)]
        return np.sort(train), np.sort(test)

    def training_labels(self, train=None) -> np.ndarray:
        """The labels the detector is trained with on the training images ``train`` (default: the training
        split): the true labels, but ``mislabelled_in_training`` of the faces with the biased value are "non-face"
        (the same faces for every call: drawn per image from ``random_state``)."""
        train = self.split_indices()[0] if train is None else np.asarray(train, dtype=np.int64)
        y = self.y[train].copy()
        if self.mislabelled_in_training > 0:
            draw = np.random.default_rng([self.random_state, 1]).random(len(self))[train]
            y[(y == 1) & (self.attribute[train] == self.biased_value) & (draw < self.mislabelled_in_training)] = 0
        return y

    def split(self):
        """``X_train, X_test, y_train, y_test`` (see ``split_indices``; ``y_train`` carries the planted label bias,
        ``y_test`` the true labels)."""
        train, test = self.split_indices()
        return self.X[train], self.X[test], self.training_labels(train), self.y[test]

    def subset(self, index) -> "ImageDataset":
        """The images ``index`` (their parameter records too), as a new data set."""
        index = np.asarray(index, dtype=np.int64)
        params = None if self.params is None else self.params.iloc[index].reset_index(drop=True)
        return _replace(self, X=self.X[index], y=self.y[index],
                        attributes=self.attributes.iloc[index].reset_index(drop=True), params=params)

    def rerender(self, index, **values) -> np.ndarray:
        """Images ``index`` rendered again with attribute values replaced (a value or one per image).

        Only for generated data (``params`` is set); everything else about each image stays the same.
        """
        if self.params is None:
            raise ValueError(f"{self.name}: these images cannot be re-rendered (not generated by fairnb); "
                             "use an FGSMFlip instead of an ExactFlip")
        unknown = set(values) - set(self.attributes.columns)
        if unknown:
            raise ValueError(f"unknown attribute(s) {sorted(unknown)}; this data set has {list(self.attributes.columns)}")
        index = np.asarray(index, dtype=np.int64).reshape(-1)
        rows = self.params.iloc[index].reset_index(drop=True)
        for name, value in values.items():
            rows[name] = np.broadcast_to(np.asarray(value, dtype=np.int64), (len(rows),))
        return self.render(rows)

    def counterfactual(self, X, index, attribute: str | None = None) -> np.ndarray:
        """``X`` plus the change that re-rendering images ``index`` with the other value of ``attribute``
        (default: the protected one) makes, clipped to [0, 1]: for ``X = data.X[index]`` the re-rendered
        images themselves. The exact flip of :class:`~fairnb.images.ExactFlip` and of an image domain
        holding this data set.

        >>> from fairnb.images import make_faces
        >>> data = make_faces(n=20, size=8, random_state=0)
        >>> face = np.flatnonzero(data.y == 1)[:1]
        >>> bool(np.allclose(data.counterfactual(data.X[face], face),
        ...                  data.rerender(face, skin_tone=1 - data.attribute[face]), atol=1e-6))
        True
        """
        name = attribute or self.protected
        index = np.asarray(index, dtype=np.int64).reshape(-1)
        if len(index) != len(X):
            raise ValueError(f"index has {len(index)} rows for {len(X)} images")
        own = self.attributes[name].to_numpy(dtype=np.int64)[index]
        values = np.unique(self.attributes[name].to_numpy(dtype=np.int64))
        values = values[values >= 0]
        if len(values) != 2 or not np.isin(own, values).all():
            raise ValueError(f"ExactFlip swaps the two values of {name!r} ({values.tolist()}); images "
                             f"{index[~np.isin(own, values)][:5].tolist()} have none (non-faces?)")
        other = np.where(own == values[0], values[1], values[0])
        change = self.rerender(index, **{name: other}) - self.X[index]
        return np.clip(X + change, 0, 1)


def _replace(data: ImageDataset, **changes) -> ImageDataset:
    fields = {name: getattr(data, name) for name in data.__dataclass_fields__}
    fields["info"] = dict(data.info)
    fields.update(changes)
    return ImageDataset(**fields)
