"""A small image domain and search for the image inspector's tests (unit and browser), written outside
fairnb and following the image domain's contract (items ``(n, h, w, c)`` in [0, 1], ``attribute``,
``class_names``, ``exact_flip``, the stored form through ``to_columns``/``from_columns``): its
"detector" decides by the mean of the red channel, and the attribute flip (the counterpart) moves the
red channel by 0.6 across the middle. ``Nudge`` records every pair with the image searches' ``info``
dict through the engine. Importing this module registers the image inspector for both kinds.
"""
from __future__ import annotations

import base64

import numpy as np
import pandas as pd

from fairnb.domains import register_domain
from fairnb.search import Batch, Search
from fairnb.widgets import register_inspector
from fairnb.widgets.image_inspector import ImageInspector


@register_domain
class RedSquares:
    """Small RGB images whose protected attribute is the red channel's side of 0.5."""

    kind = "test-red-squares"
    protected = ("red",)
    protected_names = ("red",)

    def __init__(self, size: int = 6, attribute: str = "red", class_names=("non-face", "face")):
        self.item_shape = (size, size, 3)
        self.attribute = attribute
        self.attribute_names = ("low", "high")
        self.class_names = tuple(class_names)

    def validate(self, items, *, what="input"):
        X = np.asarray(items, dtype=float).reshape(-1, *self.item_shape)
        if ((X < 0) | (X > 1)).any():
            raise ValueError(f"{what}: pixels must lie in [0, 1]")
        return X

    def flip(self, X):
        """The counterpart: the red channel moved by 0.6 towards the other side of 0.5."""
        X = self.validate(X).copy()
        red = X[..., 0].mean(axis=(1, 2))
        X[..., 0] = np.clip(X[..., 0] + np.where(red < 0.5, 0.6, -0.6)[:, None, None], 0, 1)
        return X

    def exact_flip(self, images, seeds=None):
        """Each image plus the change that re-rendering its seed (the data image it descends from;
        default: itself) with the other attribute makes: the seed's red channel inverted."""
        X = self.validate(images).copy()
        S = X if seeds is None else self.validate(seeds)
        X[..., 0] = np.clip(X[..., 0] + (1 - 2 * S[..., 0]), 0, 1)
        return X

    def variants(self, items):
        X = self.validate(items)
        return np.stack([X, self.flip(X)], axis=1)

    def own_variant(self, items):
        return np.zeros(len(items), int)

    def encode(self, items):
        return self.validate(items).reshape(len(items), -1)

    def key(self, items, convention):
        return [x.tobytes() for x in self.validate(items)]

    def describe_pair(self, x, counterpart):
        return {"changed": {"red": (f"{x[..., 0].mean():.2f}", f"{counterpart[..., 0].mean():.2f}")}}

    def to_columns(self, items):
        X = self.validate(items).astype(np.float32)
        return pd.DataFrame({"image": [base64.b64encode(x.tobytes()).decode("ascii") for x in X]})

    def from_columns(self, frame):
        return np.stack([np.frombuffer(base64.b64decode(s), np.float32).reshape(self.item_shape)
                         for s in frame["image"]]).astype(float)

    def decode(self, items):
        X = self.validate(items)
        return pd.DataFrame({"mean red": X[..., 0].mean(axis=(1, 2))})

    def pair_columns(self, X, C):
        return {"red'": self.validate(C)[..., 0].mean(axis=(1, 2))}

    def to_config(self):
        return {"kind": self.kind, "size": self.item_shape[0], "attribute": self.attribute,
                "class_names": list(self.class_names)}

    @classmethod
    def from_config(cls, config):
        return cls(config["size"], config["attribute"], config["class_names"])


@register_domain
class PhotoSquares(RedSquares):
    """The same, for data that cannot be re-rendered: no exact flip."""

    kind = "test-photo-squares"

    def exact_flip(self, images, seeds=None):
        return None


register_inspector(RedSquares.kind, ImageInspector)
register_inspector(PhotoSquares.kind, ImageInspector)


def detector(X):
    """P(face) rises with the red channel's mean (the encoded image is flat, RGB interleaved)."""
    return 1 / (1 + np.exp(-30 * (X[:, 0::3].mean(axis=1) - 0.5)))


class Nudge(Search):
    """Seeds as they are, then each seed moved by a small signed step (Δ_bias); every row carries
    the image searches' ``info`` dict."""

    name = "nudge"

    def __init__(self, *, n_seeds: int = 30, max_time=None, max_tried=None, max_found=None, random_state=None,
                 progress=None):
        super().__init__(max_time=max_time, max_tried=max_tried, max_found=max_found, random_state=random_state,
                         progress=progress)
        self.n_seeds = n_seeds

    def _generate(self, ctx):
        dom = ctx.domain
        seeds = ctx.use_seeds(ctx.rng.uniform(0.25, 0.75, (self.n_seeds, *dom.item_shape)))
        ids = np.arange(len(seeds))
        yield Batch(seeds[:2], phase="global", seed_ids=ids[:2], info=self.info(dom, seeds[:2]))
        X = np.clip(seeds + 0.03 * np.sign(ctx.rng.normal(size=seeds.shape)), 0, 1)
        yield Batch(X, phase="global", seed_ids=ids, info=self.info(dom, X))

    @staticmethod
    def info(dom, X):
        d = (dom.flip(X) - X).reshape(len(X), -1)
        red = X[..., 0].mean(axis=(1, 2))
        return [{"steps": int(1 + i % 3), "eps": 0.6, "iteration": i, "bias_l2": 0.0, "l2": float(np.linalg.norm(r)), "linf": float(np.abs(r).max()),
                 "flip_ok": True, "sa_p": float(p), "sa_p_counterpart": float(1 - p), "sa_disagrees": bool(i % 2)}
                for i, (r, p) in enumerate(zip(d, red))]
