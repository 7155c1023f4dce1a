"""LFW faces as a detector sees them: tinted LFW crops placed at a chosen size and a random position on real
photographs, with optional sensor noise.

A face filling a 128 x 128 frame is the easy case for a detector. :func:`load_lfw_scenes` pastes each of the
200 crops of ``skimage.data.lfw_subset()`` (100 faces, 100 non-faces; tinted light or dark in the face region as
in :func:`~fairnb.images.lfw.load_tinted_lfw`) at ``face_size`` pixels onto a ``canvas`` x ``canvas`` window of
one of scikit-image's bundled photographs (coffee cup, rocket, brick wall, grass: no faces), then adds Gaussian
sensor noise of standard deviation ``noise`` (a fixed draw per image: both tones of an image get the same
noise). Every image is rendered from its parameter record, so ``ExactFlip`` re-renders the same scene with
the other tone. Needs scikit-image; nothing is downloaded. The tint is synthetic (see ``fairnb.images.lfw``).

Example
-------
>>> scenes = load_lfw_scenes(face_size=20, canvas=32)                      # doctest: +SKIP
>>> scenes.X.shape, scenes.info["noise"]                                   # doctest: +SKIP
((200, 32, 32, 3), 0.03)
"""
from __future__ import annotations

import numpy as np

from .dataset import ImageDataset
from .lfw import augment_params, tint_images
from .resize import resize_images

BACKGROUNDS = ("coffee", "rocket", "brick", "grass")


def _backgrounds(names, side: int) -> np.ndarray:
    """The photographs ``names`` of ``skimage.data`` as RGB in [0, 1], each resized to ``side`` x ``side``."""
    import skimage.data

    photos = []
    for name in names:
        photo = np.asarray(getattr(skimage.data, name)(), dtype=np.float32) / 255.0
        photo = np.repeat(photo[..., None], 3, axis=-1) if photo.ndim == 2 else photo[..., :3]
        short = min(photo.shape[:2])
        photos.append(resize_images(photo[None, :short, :short], side)[0])
    return np.stack(photos)


def load_lfw_scenes(face_size: int = 38, canvas: int = 128, noise: float = 0.03, *,
                    backgrounds=BACKGROUNDS, random_state=0) -> ImageDataset:
    """The 200 LFW crops (label 1 = face), each tinted, ``face_size`` pixels wide, at a random place on a
    ``canvas``-pixel window of a photograph, plus noise (see the module docstring)."""
    try:
        from skimage.data import lfw_subset
    except ImportError:
        raise ImportError("the LFW scenes need scikit-image: pip install 'fairnb[images]'") from None
    if not 1 <= int(face_size) <= int(canvas):
        raise ValueError(f"face_size must be between 1 and canvas ({canvas}) pixels, got {face_size}")
    if not 0 <= noise < 1:
        raise ValueError(f"noise must be a standard deviation in [0, 1), got {noise}")
    crops = lfw_subset()
    faces = resize_images(crops, int(face_size))[..., 0]
    photos = _backgrounds(tuple(backgrounds), int(canvas) * 3 // 2)
    rng = np.random.default_rng(random_state)
    params = augment_params(len(crops), 1, random_state)[["source", "skin_tone"]]
    n, free = len(params), int(canvas) - int(face_size)
    params["background"] = rng.integers(0, len(photos), n)
    params["bx"], params["by"] = rng.integers(0, photos.shape[1] - int(canvas) + 1, (2, n))
    params["x"], params["y"] = rng.integers(0, free + 1, (2, n))
    params["noise_seed"] = rng.integers(0, 2**31, n)
    params["face"] = (params["source"] < len(crops) // 2).astype(np.int64)

    def render(rows):
        out = np.empty((len(rows), int(canvas), int(canvas), 3), dtype=np.float32)
        tinted = tint_images(faces[rows["source"].to_numpy()], rows["skin_tone"].to_numpy())
        for k, r in enumerate(rows.itertuples(index=False)):
            out[k] = photos[r.background, r.by:r.by + int(canvas), r.bx:r.bx + int(canvas)]
            out[k, r.y:r.y + int(face_size), r.x:r.x + int(face_size)] = tinted[k]
            if noise:
                out[k] += np.random.default_rng(int(r.noise_seed)).normal(0, noise, out[k].shape).astype(np.float32)
        return np.clip(out, 0, 1)

    return ImageDataset("lfw-scenes", render(params), params["face"].to_numpy(), params[["skin_tone"]], "skin_tone",
                        params=params, render=render, attribute_names={"skin_tone": ("light", "dark")},
                        info={"face_size": int(face_size), "canvas": int(canvas), "noise": float(noise),
                              "backgrounds": list(backgrounds),
                              "source": "skimage.data.lfw_subset() on skimage.data photographs",
                              "note": "the tint is synthetic; the crops carry no stated licence"})
