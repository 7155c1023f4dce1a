"""Procedurally rendered RGB faces and non-faces (numpy only), with documented attributes and nuisances.

Each image is drawn from one parameter record (a row of ``face_params``), so it can be rendered again
with any attribute value: the exact counterfactual that an ``ExactFlip`` uses.

Attributes (faces; ``-1`` on non-faces):

* ``skin_tone``: 0 light, 1 dark; the colour of the skin pixels only (the face ellipse without eyes,
  mouth and fringe). The "race" proxy.
* ``hair``: 0 short, 1 long; long hair adds hair beside and below the face, outside the face ellipse.
  The gender proxy.

Nuisances (both classes): face position and size, background colour, lighting gradient, hair shade,
eye spacing, mouth width, a small skin-colour jitter and Gaussian pixel noise (fixed per image by its
``noise_seed``, so a re-render changes no other pixel). Non-faces are three coloured ellipses drawn from
the same palette as skin and hair, so colour alone does not tell a face.

The attributes are synthetic and carry no demographic claim.

Example
-------
>>> p = face_params(4, random_state=0)
>>> X = render_faces(p, size=16)
>>> X.shape, float(X.min()) >= 0, float(X.max()) <= 1
((4, 16, 16, 3), True, True)
>>> bool(np.array_equal(render_faces(p, size=16), X))
True
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .dataset import ImageDataset

ATTRIBUTES = {"skin_tone": ("light", "dark"), "hair": ("short", "long")}
SKIN = np.array([[0.93, 0.78, 0.66], [0.42, 0.28, 0.19]])
HAIR = np.array([[0.12, 0.08, 0.05], [0.55, 0.38, 0.18]])       # dark to light shades, mixed per image
FEATURE = np.array([0.08, 0.05, 0.05])                          # eyes
MOUTH = np.array([0.55, 0.15, 0.15])
_N_BLOBS = 3


def face_params(n: int, face_fraction: float = 0.5, random_state=0) -> pd.DataFrame:
    """``n`` random parameter records: ``face`` (0/1), the attributes, nuisances and a ``noise_seed``."""
    if int(n) < 1:
        raise ValueError(f"n must be a positive number of images, got {n}")
    if not 0 <= face_fraction <= 1:
        raise ValueError(f"face_fraction must be in [0, 1], got {face_fraction}")
    rng = np.random.default_rng(random_state)
    n = int(n)
    face = (rng.random(n) < face_fraction).astype(np.int64)
    p = {"face": face,
         "skin_tone": np.where(face == 1, rng.integers(0, 2, n), -1),
         "hair": np.where(face == 1, rng.integers(0, 2, n), -1),
         "cx": rng.uniform(-0.12, 0.12, n), "cy": rng.uniform(-0.1, 0.1, n), "scale": rng.uniform(0.8, 1.05, n),
         "hair_shade": rng.random(n), "skin_jitter": rng.uniform(-0.04, 0.04, n),
         "eye_gap": rng.uniform(0.17, 0.25, n), "mouth_width": rng.uniform(0.14, 0.26, n),
         "light": rng.uniform(0.0, 0.2, n), "light_angle": rng.uniform(0, 2 * np.pi, n),
         "noise_seed": rng.integers(0, 2**31 - 1, n)}
    for c, name in enumerate("rgb"):
        p[f"bg_{name}"] = rng.uniform(0.1, 0.95, n)
    palette = np.concatenate([SKIN, HAIR, rng.uniform(0.1, 0.95, (4, 3))])
    for k in range(_N_BLOBS):
        p[f"blob{k}_x"], p[f"blob{k}_y"] = rng.uniform(-0.6, 0.6, n), rng.uniform(-0.6, 0.6, n)
        p[f"blob{k}_rx"], p[f"blob{k}_ry"] = rng.uniform(0.15, 0.6, n), rng.uniform(0.15, 0.6, n)
        colour = palette[rng.integers(0, len(palette), n)] + rng.uniform(-0.05, 0.05, (n, 3))
        for c, name in enumerate("rgb"):
            p[f"blob{k}_{name}"] = np.clip(colour[:, c], 0, 1)
    return pd.DataFrame(p)


def _grid(n: int, size: int):
    v, u = np.meshgrid(np.linspace(-1, 1, size), np.linspace(-1, 1, size), indexing="ij")
    return np.broadcast_to(u, (n, size, size)), np.broadcast_to(v, (n, size, size))


def _col(params: pd.DataFrame, name: str) -> np.ndarray:
    return params[name].to_numpy(dtype=float)[:, None, None]


def _ellipse(u, v, x, y, rx, ry):
    return ((u - x) / rx) ** 2 + ((v - y) / ry) ** 2 <= 1


def face_regions(params: pd.DataFrame, size: int = 32) -> dict[str, np.ndarray]:
    """Boolean masks ``(n, size, size)`` of the pixels each attribute paints: ``skin`` (skin tone) and
    ``long_hair`` (the hair that only long hair adds). Both are empty for non-faces."""
    params = _checked(params)
    u, v = _grid(len(params), size)
    x, y, s = _col(params, "cx"), _col(params, "cy"), _col(params, "scale")
    is_face = _col(params, "face") == 1
    face = _ellipse(u, v, x, y, 0.5 * s, 0.66 * s)
    fringe = _ellipse(u, v, x, y - 0.06 * s, 0.56 * s, 0.74 * s) & (v < y - 0.42 * s)
    gap = _col(params, "eye_gap") * s
    eyes = (_ellipse(u, v, x - gap, y - 0.12 * s, 0.09 * s, 0.07 * s)
            | _ellipse(u, v, x + gap, y - 0.12 * s, 0.09 * s, 0.07 * s))
    mouth = _ellipse(u, v, x, y + 0.36 * s, _col(params, "mouth_width") * s, 0.06 * s)
    back = (np.abs(u - x) <= 0.68 * s) & (v >= y - 0.3 * s) & (v <= y + 0.95 * s)
    return {"skin": is_face & face & ~eyes & ~mouth & ~fringe,
            "long_hair": is_face & back & ~face & ~fringe,
            "face": is_face & face, "fringe": is_face & fringe, "eyes": is_face & eyes, "mouth": is_face & mouth}


def render_faces(params: pd.DataFrame, size: int = 32, noise: float = 0.03) -> np.ndarray:
    """The images ``(n, size, size, 3)`` (float32 in [0, 1]) of the parameter records ``params``."""
    params = _checked(params)
    if int(size) < 8:
        raise ValueError(f"size must be at least 8 pixels, got {size}")
    n, size = len(params), int(size)
    u, v = _grid(n, size)
    img = np.empty((n, size, size, 3))
    img[:] = params[["bg_r", "bg_g", "bg_b"]].to_numpy(float)[:, None, None, :]
    for k in range(_N_BLOBS):
        blob = _ellipse(u, v, _col(params, f"blob{k}_x"), _col(params, f"blob{k}_y"),
                        _col(params, f"blob{k}_rx"), _col(params, f"blob{k}_ry")) & (_col(params, "face") == 0)
        colour = params[[f"blob{k}_r", f"blob{k}_g", f"blob{k}_b"]].to_numpy(float)
        img = np.where(blob[..., None], colour[:, None, None, :], img)
    r = face_regions(params, size)
    shade = params["hair_shade"].to_numpy(float)[:, None]
    hair = (1 - shade) * HAIR[0] + shade * HAIR[1]
    tone = np.clip(params["skin_tone"].to_numpy(), 0, 1)
    skin = np.clip(SKIN[tone] + params["skin_jitter"].to_numpy(float)[:, None], 0, 1)
    long_hair = r["long_hair"] & (_col(params, "hair") == 1)
    for mask, colour in ((long_hair, hair), (r["skin"], skin), (r["fringe"], hair),
                         (r["eyes"], np.broadcast_to(FEATURE, (n, 3))), (r["mouth"], np.broadcast_to(MOUTH, (n, 3)))):
        img = np.where(mask[..., None], colour[:, None, None, :], img)
    angle = _col(params, "light_angle")
    img = img * (1 + _col(params, "light") * (u * np.cos(angle) + v * np.sin(angle)))[..., None]
    if noise:
        img = img + np.stack([np.random.default_rng(int(s)).normal(0, noise, (size, size, 3))
                              for s in params["noise_seed"]])
    return np.clip(img, 0, 1).astype(np.float32)


def _checked(params) -> pd.DataFrame:
    if not isinstance(params, pd.DataFrame):
        raise TypeError(f"params must be a DataFrame of parameter records (see face_params), got {type(params).__name__}")
    missing = [c for c in ("face", "skin_tone", "hair", "cx", "cy", "scale", "noise_seed") if c not in params]
    if missing:
        raise ValueError(f"params lacks columns {missing}; make them with face_params(...)")
    return params.reset_index(drop=True)


def make_faces(n: int = 1000, size: int = 32, *, face_fraction: float = 0.5, protected: str = "skin_tone",
               noise: float = 0.03, kept_in_training: float = 1.0, biased_value: int = 1,
               mislabelled_in_training: float = 0.0, random_state=0) -> ImageDataset:
    """``n`` rendered faces and non-faces (label 1 = face), deterministic from ``random_state``.

    ``protected`` is ``"skin_tone"`` or ``"hair"``; ``kept_in_training`` < 1 plants bias against faces with
    ``protected == biased_value`` in the training split and ``mislabelled_in_training`` > 0 labels that share of
    them "non-face" there (see :class:`ImageDataset`).

    >>> data = make_faces(n=20, size=16, random_state=1)
    >>> data.attributes.columns.tolist(), data.label_names
    (['skin_tone', 'hair'], ('non-face', 'face'))
    """
    if protected not in ATTRIBUTES:
        raise ValueError(f"protected must be one of {list(ATTRIBUTES)}, got {protected!r}")
    params = face_params(n, face_fraction, random_state)

    def render(rows):
        return render_faces(rows, size, noise)

    return ImageDataset("faces", render(params), params["face"].to_numpy(), params[list(ATTRIBUTES)], protected,
                        params=params, render=render, kept_in_training=kept_in_training,
                        mislabelled_in_training=mislabelled_in_training, biased_value=biased_value,
                        random_state=0 if random_state is None else int(random_state),
                        attribute_names=dict(ATTRIBUTES), info={"size": int(size), "noise": noise,
                              "note": "synthetic images; the attributes carry no demographic claim"})
