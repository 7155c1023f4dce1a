"""Image inputs: float images in [0, 1] whose protected attribute is changed by an *attribute flipper*.

An image has no protected column to overwrite: "the same image with the other protected value" is made
by a flipper (``fairnb.images.flips``): ``FGSMFlip`` (NeuronFair's adversarial flip against an
attribute classifier f_sa, the default of the image searches) or ``ExactFlip`` (the image re-rendered
with the other attribute value, for data fairnb generates). ``ImageDomain`` implements the
``fairnb.domains.base.Domain`` protocol on batches ``(n, h, w, c)``:

``variants(X)``  ``(n, 2, h, w, c)``: each image (variant 0, its own) and its flip (variant 1).
    NeuronFair keeps a seed's flip ``delta_senatt`` fixed while it searches ``delta_bias``, so a
    search gives the variants of every candidate it checks with the candidates (``Batch.variants``);
    the oracle asks the domain only for images that come without them, and the flipper flips those afresh.
``key(X, convention)``  de-duplication keys (a 2-D integer array): ``"eidig"`` hashes the float32 pixels,
    ``"adf"`` the 8-bit quantised pixels (``round(255 x)``). An image has no separable protected part,
    so the "adf" convention counts images that would be the same 8-bit picture once.
``to_columns / from_columns``  the stored form: one column ``image`` of base64 pixel bytes (lossless).
``decode(X)``  per image its size, mean pixel value and short key; ``pair_columns(X, C)`` the
    attribute f_sa sees in the input and its counterpart (empty without an f_sa) and the norms of the flip.

Storage (``to_config``): the shape, attribute, class names, the flipper's *hyperparameters* and the data
set's name are JSON. A fitted f_sa (Keras weights) and the images of an ``ExactFlip``'s data set are not:
a reloaded Result shows, decodes, counts and inspects its stored pairs (inputs, counterparts, seeds),
but cannot flip new images until you give the flipper again: ``result.domain.with_flipper(flipper, data)``.

Example (an ``ExactFlip`` on rendered faces: numpy only)
-------
>>> import numpy as np
>>> from fairnb.images import make_faces, ExactFlip
>>> data = make_faces(n=20, size=16, random_state=0)
>>> dom = ImageDomain.from_data(data, ExactFlip(data))
>>> faces = data.X[data.y == 1][:3]
>>> dom.variants(faces).shape, dom.own_variant(faces).tolist()
((3, 2, 16, 16, 3), [0, 0, 0])
>>> back = dom.from_columns(dom.to_columns(faces))
>>> bool(np.array_equal(back, faces)), dom.key(faces, "adf").shape
(True, (3, 2))
"""
from __future__ import annotations

import base64
import hashlib
import numbers

import numpy as np
import pandas as pd

from .base import check_convention, register_domain

IMAGE_COLUMN = "image"


def _digest(rows: np.ndarray) -> np.ndarray:
    """(n, 2) int64: a 128-bit hash of each row's bytes."""
    out = np.empty((len(rows), 2), dtype=np.int64)
    for i, row in enumerate(rows):
        out[i] = np.frombuffer(hashlib.blake2b(row.tobytes(), digest_size=16).digest(), dtype=np.int64)
    return out


def _pixel_key(X: np.ndarray) -> list[bytes]:
    return [row.tobytes() for row in _digest(np.ascontiguousarray(X, dtype=np.float32))]


@register_domain
class ImageDomain:
    """Images ``(h, w, c)`` in [0, 1] with one protected attribute changed by ``flipper``.

    Parameters
    ----------
    shape : ``(height, width, channels)`` of one image.
    flipper : an ``AttributeFlipper`` (``FGSMFlip`` fitted, or ``ExactFlip``); ``None`` for a domain
        that only holds stored pairs (a reloaded Result).
    attribute : the protected attribute's name (e.g. ``"skin_tone"``).
    attribute_names : names of its values 0, 1 (e.g. ``("light", "dark")``).
    class_names : what the model's decisions 0, 1 mean (``("non-face", "face")``).
    attribute_model : the attribute classifier f_sa that measures the attribute of the input and its
        counterpart (``sa_p`` in the pairs' details); default the ``FGSMFlip``'s own f_sa.
    data : the ``ImageDataset`` the images come from (an ``ExactFlip`` finds a seed's row in it).
    """

    kind = "image"

    def __init__(self, shape, flipper=None, *, attribute: str = "attribute", attribute_names=("0", "1"),
                 class_names=("non-face", "face"), attribute_model=None, data=None):
        given = tuple(shape)
        if len(given) != 3 or not all(isinstance(s, numbers.Integral) and not isinstance(s, bool) and s >= 1
                                       for s in given):
            raise ValueError(f"shape must be (height, width, channels) of one image, three positive integers, "
                             f"got {given!r}")
        shape = tuple(int(s) for s in given)
        if flipper is not None and not callable(getattr(flipper, "flip", None)):
            raise TypeError(f"flipper must have flip(X, index=None) (FGSMFlip, ExactFlip), got {type(flipper).__name__}")
        self.shape = shape
        self.flipper = flipper
        self.attribute = str(attribute)
        self.attribute_names = tuple(str(a) for a in attribute_names)
        self.class_names = None if class_names is None else tuple(str(c) for c in class_names)
        self._attribute_model = attribute_model
        self.data = data
        self._rows = None                       # key -> row of ``data``, built when first needed

    def __getstate__(self):
        """Pickled (to Dask workers) without the row cache."""
        return {**self.__dict__, "_rows": None}

    @classmethod
    def from_data(cls, data, flipper=None, **kwargs) -> "ImageDomain":
        """The domain of an ``ImageDataset``: its image shape, protected attribute, value and class names."""
        names = data.attribute_names.get(data.protected)
        values = np.unique(data.attribute[data.attribute >= 0])
        kwargs.setdefault("attribute_names", tuple(names) if names else tuple(str(v) for v in values))
        kwargs.setdefault("class_names", tuple(data.label_names))
        return cls(data.X.shape[1:], flipper, attribute=data.protected, data=data, **kwargs)

    def with_flipper(self, flipper, data=None) -> "ImageDomain":
        """The same domain with another flipper (and data set), e.g. after ``Result.load``."""
        return ImageDomain(self.shape, flipper, attribute=self.attribute, attribute_names=self.attribute_names,
                           class_names=self.class_names, data=self.data if data is None else data)

    def __repr__(self):
        h, w, c = self.shape
        flip = type(self.flipper).__name__ if self.flipper is not None else "no flipper"
        return f"ImageDomain({h}x{w}x{c}, attribute={self.attribute!r}, {flip})"

    # ------------------------------------------------------------------ description
    @property
    def protected(self) -> tuple[str, ...]:
        return (self.attribute,)

    @property
    def protected_names(self) -> tuple[str, ...]:
        return (self.attribute,)

    protected_columns = protected_names

    @staticmethod
    def default_constraints() -> list:
        """The constraints a search on images uses unless told otherwise (``fairnb.constraints.images``)."""
        from ..constraints import default_image_constraints

        return default_image_constraints()

    @property
    def item_shape(self) -> tuple[int, int, int]:
        return self.shape

    @property
    def n_features(self) -> int:
        """Pixels times channels: the width of one image as a flat row."""
        return int(np.prod(self.shape))

    @property
    def attribute_model(self):
        """f_sa (a fairnb model with ``predict_proba``), or None."""
        if self._attribute_model is not None:
            from ..models import wrap

            return wrap(self._attribute_model)
        fitted = getattr(self.flipper, "attribute_model_", None) or getattr(self.flipper, "attribute_model", None)
        if fitted is None:
            return None
        from ..models import wrap

        return wrap(fitted)

    # ------------------------------------------------------------------ inputs
    def validate(self, items, *, what: str = "input") -> np.ndarray:
        """``items`` as a float array ``(n, h, w, c)`` (one image ``(h, w, c)`` becomes a batch of one; float32
        stays float32, other types become float64), or a ``ValueError`` naming the problem (shape, NaN, pixels
        outside [0, 1])."""
        try:
            X = np.asarray(items)
            X = X if X.dtype == np.float32 else X.astype(float)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{what} is not a numeric image batch: {e}") from None
        if X.shape == self.shape:
            X = X[None]
        if X.ndim != 4 or X.shape[1:] != self.shape:
            raise ValueError(f"{what} has shape {X.shape}; expected (n, {', '.join(map(str, self.shape))}) images")
        if np.isnan(X).any():
            rows = np.flatnonzero(np.isnan(X).reshape(len(X), -1).any(axis=1))[:5].tolist()
            raise ValueError(f"{what} contains NaN (images {rows}...)")
        if len(X) and (X.min() < 0 or X.max() > 1):
            raise ValueError(f"{what} has pixel values in [{X.min():g}, {X.max():g}]; images must lie in [0, 1] "
                             "(divide 8-bit images by 255, or np.clip(X, 0, 1))")
        return X

    def clip(self, X) -> np.ndarray:
        """Pixels clipped into [0, 1]."""
        return np.clip(np.asarray(X, dtype=float), 0.0, 1.0)

    def flip(self, X):
        """The flipper's ``FlipResult`` for images ``X`` (an ``ExactFlip`` finds their rows in ``data``)."""
        if self.flipper is None:
            raise ValueError("this ImageDomain has no flipper (a reloaded Result?): use "
                             "domain.with_flipper(FGSMFlip(...).fit(...)) or with_flipper(ExactFlip(data), data)")
        X = np.asarray(X, dtype=np.float32)
        return self.flipper.flip(X, index=self.data_rows(X) if hasattr(self.flipper, "data") else None)

    def data_rows(self, X) -> np.ndarray:
        """The row of ``data`` that each image of ``X`` is (by pixels); ValueError when one is not there."""
        if self.data is None:
            raise ValueError("this domain has no data set to find the images in; build it with "
                             "ImageDomain.from_data(data, flipper)")
        index = self._row_index()
        keys = _pixel_key(X)
        missing = [i for i, k in enumerate(keys) if k not in index]
        if missing:
            raise ValueError(f"images {missing[:5]} are not images of the data set {self.data.name!r}; an ExactFlip "
                             "re-renders only the data set's own images (pass them as seeds)")
        return np.array([index[k] for k in keys], dtype=np.int64)

    def _row_index(self) -> dict:
        """Pixel key -> the first row of ``data`` with those pixels (built once)."""
        if self._rows is None:
            self._rows = {k: i for i, k in reversed(list(enumerate(_pixel_key(self.data.X))))}
        return self._rows

    def without_attribute(self, X) -> np.ndarray:
        """The positions in ``X`` of images of ``data`` that have no value of the protected attribute (the
        non-faces of a face data set); images that are not in ``data``, or a domain without data, give none.

        >>> from fairnb.images import make_faces
        >>> data = make_faces(n=6, size=8, random_state=0)
        >>> ImageDomain.from_data(data).without_attribute(data.X).tolist() == np.flatnonzero(data.attribute < 0).tolist()
        True
        """
        if self.data is None:
            return np.zeros(0, dtype=np.int64)
        index = self._row_index()
        rows = np.array([index.get(k, -1) for k in _pixel_key(np.asarray(X, dtype=float))], dtype=np.int64)
        return np.flatnonzero((rows >= 0) & (np.asarray(self.data.attribute)[rows] < 0))

    def variants(self, X) -> np.ndarray:
        """``(n, 2, h, w, c)``: each image and its flip by the flipper (a search that keeps its own flips
        gives them with its candidates instead: ``Batch.variants``)."""
        X = np.asarray(X, dtype=float)
        return np.stack([X, np.asarray(self.flip(X).X_flipped, dtype=float)], axis=1)

    def own_variant(self, X) -> np.ndarray:
        """Every image is its own variant 0."""
        return np.zeros(len(X), dtype=np.int64)

    def encode(self, X) -> np.ndarray:
        """The model's input: the images as float32."""
        return np.asarray(X, dtype=np.float32)

    def key(self, X, convention: str) -> np.ndarray:
        """``(n, 2)`` int64 hashes: of the float32 pixels (``"eidig"``) or of the 8-bit pixels (``"adf"``).

        >>> dom = ImageDomain((2, 2, 1))
        >>> a = np.full((1, 2, 2, 1), 0.5); b = a + 1e-4
        >>> bool((dom.key(a, "eidig") == dom.key(b, "eidig")).all()), bool((dom.key(a, "adf") == dom.key(b, "adf")).all())
        (False, True)
        """
        X = np.asarray(X, dtype=float)
        if check_convention(convention) == "adf":
            return _digest(np.ascontiguousarray(np.rint(X * 255).astype(np.uint8)))
        return _digest(np.ascontiguousarray(X, dtype=np.float32))

    # ------------------------------------------------------------------ storage
    def to_columns(self, items) -> pd.DataFrame:
        """One row per image, one column ``image``: its pixels as base64 text, float32 bytes when that is
        exact (fairnb's data and searches) and float64 bytes otherwise, so the round trip is lossless."""
        X = np.asarray(items, dtype=float).reshape((-1, *self.shape))
        if np.array_equal(X.astype(np.float32), X):
            X = X.astype(np.float32)
        X = np.ascontiguousarray(X)
        return pd.DataFrame({IMAGE_COLUMN: [base64.b64encode(row.tobytes()).decode("ascii") for row in X]})

    def from_columns(self, frame: pd.DataFrame) -> np.ndarray:
        """The images ``(n, h, w, c)`` (float64) of a frame written by ``to_columns``."""
        if IMAGE_COLUMN not in frame.columns:
            raise ValueError(f"stored images need a column {IMAGE_COLUMN!r}; the frame has {list(frame.columns)}")
        size = self.n_features
        rows = []
        for i, text in enumerate(frame[IMAGE_COLUMN].astype(str)):
            raw = base64.b64decode(text)
            if len(raw) not in (4 * size, 8 * size):
                raise ValueError(f"stored image {i} has {len(raw)} bytes; this domain's images have {size} values "
                                 f"({'x'.join(map(str, self.shape))}) of 4 or 8 bytes")
            rows.append(np.frombuffer(raw, dtype=np.float32 if len(raw) == 4 * size else np.float64).astype(float))
        return np.stack(rows).reshape((-1, *self.shape)).astype(float) if rows else np.zeros((0, *self.shape))

    def to_config(self) -> dict:
        """JSON: shape, attribute, names, the flipper's hyperparameters (not f_sa's weights, not the data)."""
        return {"kind": self.kind, "shape": list(self.shape), "attribute": self.attribute,
                "attribute_names": list(self.attribute_names),
                "class_names": None if self.class_names is None else list(self.class_names),
                "flipper": _flipper_config(self.flipper),
                "data": None if self.data is None else getattr(self.data, "name", None)}

    @classmethod
    def from_config(cls, config: dict) -> "ImageDomain":
        """The domain ``config`` describes, without a flipper (see the module docstring)."""
        return cls(config["shape"], None, attribute=config.get("attribute", "attribute"),
                   attribute_names=config.get("attribute_names", ("0", "1")),
                   class_names=config.get("class_names"))

    # ------------------------------------------------------------------ display
    def decode(self, X) -> pd.DataFrame:
        """Per image: ``size`` (``"32x32x3"``), ``mean`` pixel value and ``key`` (12 hex digits of its hash)."""
        X = np.asarray(X, dtype=float).reshape((-1, *self.shape))
        keys = self.key(X, "eidig")
        return pd.DataFrame({"size": ["x".join(map(str, self.shape))] * len(X),
                             "mean": X.reshape(len(X), -1).mean(axis=1).round(4) if len(X) else np.zeros(0),
                             "key": [f"{int(k) & 0xFFFFFFFFFFFF:012x}" for k in keys[:, 0]]})

    def pair_columns(self, X, C) -> dict:
        """What a pair changes: the attribute f_sa sees in the input and its counterpart (columns named
        ``attribute`` and ``attribute'``; empty strings without an f_sa) and the flip's ``l2`` and ``linf`` norms."""
        X = np.asarray(X, dtype=float).reshape((-1, *self.shape))
        C = np.asarray(C, dtype=float).reshape((-1, *self.shape))
        delta = (C - X).reshape(len(X), self.n_features)
        seen = [""] * (2 * len(X))                       # unknown without an f_sa
        model = self.attribute_model
        if model is not None and len(X):
            P = model.predict_proba(np.concatenate([X, C]).astype(np.float32)).argmax(axis=1)
            seen = [self._attribute_name(v) for v in P]
        out = {self.attribute: seen[:len(X)], f"{self.attribute}'": seen[len(X):]}
        out["l2"] = np.sqrt((delta ** 2).sum(axis=1))
        out["linf"] = np.abs(delta).max(axis=1, initial=0.0)
        return out

    def _attribute_name(self, value) -> str:
        v = int(value)
        return self.attribute_names[v] if 0 <= v < len(self.attribute_names) else str(v)

    def describe_pair(self, x, counterpart) -> dict:
        """The pair in words: the attribute, the flip's norms and how many pixels it changes.

        >>> d = ImageDomain((2, 2, 1), attribute="tint").describe_pair(np.zeros((2, 2, 1)), np.full((2, 2, 1), 0.1))
        >>> d["attribute"], d["pixels_changed"], round(d["linf"], 3)
        ('tint', 4, 0.1)
        """
        x = np.asarray(x, dtype=float).reshape(self.shape)
        delta = np.asarray(counterpart, dtype=float).reshape(self.shape) - x
        return {"attribute": self.attribute, "l2": float(np.sqrt((delta ** 2).sum())),
                "linf": float(np.abs(delta).max()), "pixels_changed": int((np.abs(delta) > 0).any(axis=-1).sum()),
                "size": "x".join(map(str, self.shape))}

    def exact_flip(self, images, seeds=None) -> np.ndarray | None:
        """The exact counterfactual of ``images``, made by the data set this domain holds
        (``data.counterfactual``: each image plus its seed's re-rendered change; ``seeds`` default: the
        images themselves), or None when the data cannot be re-rendered or a seed is not one of its images."""
        data = self.data
        if data is None or getattr(data, "params", None) is None:
            return None
        images = np.asarray(images, dtype=np.float32)
        try:
            rows = self.data_rows(images if seeds is None else seeds)
            return data.counterfactual(images, rows, self.attribute)
        except ValueError:
            return None


def _flipper_config(flipper) -> dict | None:
    if flipper is None:
        return None
    params = {}
    if callable(getattr(flipper, "get_params", None)):
        params = flipper.get_params()
    elif type(flipper).__name__ == "FGSMFlip":
        params = {k: getattr(flipper, k) for k in ("step", "max_steps", "head", "epochs", "trunk_layer")}
    params = {k: (list(v) if isinstance(v, tuple) else v) for k, v in params.items()
              if isinstance(v, (int, float, str, bool, tuple, list, type(None)))}
    note = ("a fitted FGSMFlip's attribute classifier is not saved: pass the flipper again with "
            "domain.with_flipper(...)" if type(flipper).__name__ == "FGSMFlip" else
            "the data set is not saved: pass it again with domain.with_flipper(ExactFlip(data), data)")
    return {"type": type(flipper).__name__, "params": params, "note": note}
