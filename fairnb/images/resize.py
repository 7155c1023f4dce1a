"""Resizing float images (Pillow's antialiased bilinear filter, channel by channel, in float32).

Example
-------
>>> import numpy as np
>>> resize_images(np.ones((2, 25, 25)), 32).shape
(2, 32, 32, 1)
>>> float(resize_images(np.full((1, 10, 10, 3), 0.25), 4).max())
0.25
"""
from __future__ import annotations

import numpy as np


def resize_images(X, size: int) -> np.ndarray:
    """``X`` of shape ``(n, H, W)`` or ``(n, H, W, C)`` resized to ``(n, size, size, C)``, float32 in [0, 1]."""
    from PIL import Image

    X = np.asarray(X, dtype=np.float32)
    if X.ndim == 3:
        X = X[..., None]
    if X.ndim != 4:
        raise ValueError(f"images must have shape (n, height, width) or (n, height, width, channels), got {X.shape}")
    size = int(size)
    if size < 1:
        raise ValueError(f"size must be a positive number of pixels, got {size}")
    out = np.empty((len(X), size, size, X.shape[3]), dtype=np.float32)
    for i, image in enumerate(X):
        for c in range(X.shape[3]):
            channel = Image.fromarray(np.ascontiguousarray(image[..., c]), mode="F")
            out[i, ..., c] = np.asarray(channel.resize((size, size), Image.Resampling.BILINEAR))
    return np.clip(out, 0, 1)
