"""Tinted LFW: the 100 faces and 100 non-faces that scikit-image bundles, with a synthetic skin-tone tint.

``skimage.data.lfw_subset()`` holds 200 grey 25 x 25 crops from Labeled Faces in the Wild: the first 100
are faces, the last 100 non-face patches cut from the same photos. They carry no demographic labels and
no stated licence (use them for teaching and testing, not for claims about people). fairnb resizes them,
augments them (mirror images and 1-pixel shifts) and adds one **synthetic** attribute:

* ``skin_tone``: 0 light, 1 dark, a colour tint multiplied into a soft central ellipse (the face
  region); pixels outside the ellipse stay grey and are the same for both values. Non-faces get a random
  tone too, so the tint alone does not tell a face from a non-face.

Each image is rendered from a parameter record (source crop, mirror, shift, tone), so ``rerender`` gives
the same crop re-tinted: the exact flip. ``kept_in_training`` plants bias (see ``ImageDataset``).
Needs scikit-image (``pip install fairnb[images]``); nothing is downloaded.

Example
-------
>>> data = load_tinted_lfw(size=16, augment=2, kept_in_training=0.2)       # doctest: +SKIP
>>> data                                                                   # doctest: +SKIP
ImageDataset('tinted-lfw', 400 images 16x16x3, protected='skin_tone')
>>> tint_images(np.full((1, 8, 8), 0.5), [1])[0, 4, 4].astype(float).round(3).tolist()
[0.316, 0.234, 0.175]
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .dataset import ImageDataset
from .resize import resize_images

TONES = np.array([[1.0, 0.9, 0.8], [0.62, 0.45, 0.33]])     # multiplied into the face region: light, dark
SHIFTS = [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]


def tint_mask(size: int) -> np.ndarray:
    """The soft face region ``(size, size)`` in [0, 1]: 1 at the centre, 0 outside a central ellipse."""
    v, u = np.meshgrid(np.linspace(-1, 1, size), np.linspace(-1, 1, size), indexing="ij")
    return np.sqrt(np.clip(1 - (u / 0.75) ** 2 - (v / 0.9) ** 2, 0, 1))


def tint_images(gray, tone) -> np.ndarray:
    """Grey images ``(n, H, W)`` as RGB ``(n, H, W, 3)`` with tone ``tone[i]`` (0 or 1) in the face region."""
    gray = np.asarray(gray, dtype=np.float32)
    tone = np.asarray(tone, dtype=np.int64)
    if gray.ndim != 3 or gray.shape[1] != gray.shape[2]:
        raise ValueError(f"gray must have shape (n, size, size), got {gray.shape}")
    if tone.shape != (len(gray),) or not np.isin(tone, (0, 1)).all():
        raise ValueError("tone must hold one value 0 (light) or 1 (dark) per image")
    m = tint_mask(gray.shape[1])[None, :, :, None]
    factor = 1 - m + m * TONES[tone][:, None, None, :]
    return np.clip(gray[..., None] * factor, 0, 1).astype(np.float32)


def augment_params(n_sources: int, augment: int, random_state=0) -> pd.DataFrame:
    """Parameter records: each source crop ``augment`` times (mirror x shift variants), a random tone each."""
    combos = [(mirror, dx, dy) for (dx, dy) in SHIFTS for mirror in (0, 1)]
    if not 1 <= int(augment) <= len(combos):
        raise ValueError(f"augment must be between 1 and {len(combos)} copies per crop, got {augment}")
    rng = np.random.default_rng(random_state)
    rows = [(s, *combos[k]) for s in range(n_sources) for k in range(int(augment))]
    p = pd.DataFrame(rows, columns=["source", "mirror", "dx", "dy"])
    p["skin_tone"] = rng.integers(0, 2, len(p))
    return p


def render_lfw(params: pd.DataFrame, base: np.ndarray) -> np.ndarray:
    """The images of ``params`` from the resized grey crops ``base`` (n_sources, size, size)."""
    gray = base[params["source"].to_numpy()]
    gray = np.where(params["mirror"].to_numpy()[:, None, None] == 1, gray[:, :, ::-1], gray)
    padded = np.pad(gray, ((0, 0), (1, 1), (1, 1)), mode="edge")
    size = base.shape[1]
    dx, dy = params["dx"].to_numpy(), params["dy"].to_numpy()
    shifted = np.empty_like(gray)
    for sx, sy in set(zip(dx.tolist(), dy.tolist())):
        rows = (dx == sx) & (dy == sy)
        shifted[rows] = padded[rows, 1 - sy:1 - sy + size, 1 - sx:1 - sx + size]
    return tint_images(shifted, params["skin_tone"].to_numpy())


def load_tinted_lfw(size: int = 32, augment: int = 8, *, kept_in_training: float = 1.0, biased_value: int = 1,
                    mislabelled_in_training: float = 0.0, random_state=0) -> ImageDataset:
    """The tinted LFW data set (label 1 = face), ``200 * augment`` images of ``size`` x ``size`` x 3.

    ``kept_in_training`` < 1 keeps only that share of the faces with ``skin_tone == biased_value`` in the
    training split; ``mislabelled_in_training`` > 0 labels that share of them "non-face" there (label bias: the
    planted bias a detector shows as a tone gap; see :class:`ImageDataset`).
    """
    try:
        from skimage.data import lfw_subset
    except ImportError:
        raise ImportError("the tinted LFW set needs scikit-image: pip install 'fairnb[images]'") from None
    crops = lfw_subset()
    base = resize_images(crops, size)[..., 0]
    params = augment_params(len(crops), augment, random_state)
    params["face"] = (params["source"] < len(crops) // 2).astype(np.int64)

    def render(rows):
        return render_lfw(rows, base)

    return ImageDataset("tinted-lfw", render(params), params["face"].to_numpy(), params[["skin_tone"]], "skin_tone",
                        params=params, render=render, kept_in_training=kept_in_training, biased_value=biased_value,
                        mislabelled_in_training=mislabelled_in_training,
                        random_state=0 if random_state is None else int(random_state),
                        attribute_names={"skin_tone": ("light", "dark")}, info={"size": int(size), "augment": int(augment),
                              "source": "skimage.data.lfw_subset(): 100 LFW faces + 100 non-faces, 25x25 grey",
                              "note": "the tint is synthetic; the crops carry no stated licence"})
