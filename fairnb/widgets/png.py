"""Images for the widgets: float images in [0, 1] as compact 8-bit PNG bytes, and amplified
difference heat maps.

Widgets send pictures to the browser as PNG (a few hundred bytes for a 25 x 25 face), never as lists
of numbers. Pixel values are rounded to 8 bits: ``decode_png(png_bytes(x)) == to_uint8(x)``.

Example
-------
>>> import numpy as np
>>> image = np.linspace(0, 1, 4 * 5 * 3).reshape(4, 5, 3)
>>> data = png_bytes(image)
>>> data[:4], bool((decode_png(data) == to_uint8(image)).all())
(b'\\x89PNG', True)
>>> heat, gain, peak = heat_map(np.full((2, 2, 3), 0.1))
>>> heat.shape, round(gain, 3), round(peak, 3)
((2, 2, 3), 10.0, 0.1)
"""
from __future__ import annotations

import base64
import io

import numpy as np


def to_uint8(image) -> np.ndarray:
    """An image of shape (h, w) or (h, w, c) with c in 1, 3, 4 and values in [0, 1] as 8-bit pixels
    ((h, w) for one channel). Values outside [0, 1] are clipped; NaN is refused."""
    a = np.asarray(image, dtype=np.float64)
    if a.ndim == 3 and a.shape[-1] == 1:
        a = a[..., 0]
    if not (a.ndim == 2 or (a.ndim == 3 and a.shape[-1] in (3, 4))) or 0 in a.shape:
        raise ValueError(f"image must have shape (h, w) or (h, w, c) with c = 1, 3 or 4 channels; got {a.shape}")
    if np.isnan(a).any():
        raise ValueError("image holds NaN values; pixels must be numbers in [0, 1]")
    return np.rint(np.clip(a, 0.0, 1.0) * 255).astype(np.uint8)


def png_bytes(image) -> bytes:
    """The image (see ``to_uint8``) as PNG bytes: grey, RGB or RGBA by its channels."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(to_uint8(image)).save(buf, format="PNG")
    return buf.getvalue()


def png_base64(image) -> str:
    """The PNG bytes of the image in base64 (what the widgets put in their state and in data URIs)."""
    return base64.b64encode(png_bytes(image)).decode("ascii")


def decode_png(data) -> np.ndarray:
    """The 8-bit pixels of PNG ``data`` (bytes or base64 text): (h, w) grey or (h, w, c)."""
    from PIL import Image

    raw = base64.b64decode(data, validate=True) if isinstance(data, str) else bytes(data)
    with Image.open(io.BytesIO(raw)) as im:
        return np.asarray(im)


def heat_map(delta, scale: float | None = None) -> tuple[np.ndarray, float, float]:
    """An amplified heat map of an image difference ``delta`` (h, w) or (h, w, c).

    Each pixel's strength is its largest absolute change over the channels, scaled by ``gain`` so that
    a change of ``scale`` (default: this map's own largest change) is full strength, and coloured black
    (no change) -> red -> yellow -> white. Give several maps the same ``scale`` to compare them: each
    amplified to its own peak, faint noise looks as strong as a real change. Returns the (h, w, 3) RGB map
    in [0, 1], ``gain`` (1 when nothing changed) and ``peak``, this map's largest absolute change.

    >>> _, gain, peak = heat_map(np.full((2, 2), 0.05), scale=0.5)
    >>> round(gain, 3), round(peak, 3)
    (2.0, 0.05)
    """
    d = np.abs(np.asarray(delta, dtype=np.float64))
    strength = d.max(axis=-1) if d.ndim == 3 else d
    peak = float(strength.max(initial=0.0))
    top = peak if scale is None else float(scale)
    gain = 1.0 / top if top > 0 else 1.0
    t = np.clip(strength * gain, 0.0, 1.0)
    rgb = np.stack([np.clip(3 * t, 0, 1), np.clip(3 * t - 1, 0, 1), np.clip(3 * t - 2, 0, 1)], axis=-1)
    return rgb, gain, peak


def thumbnail(image, size: int = 48) -> np.ndarray:
    """The image shrunk by an integer factor (block means) to at most ``size`` pixels a side; small
    images come back unchanged.

    >>> thumbnail(np.zeros((100, 60, 3)), size=48).shape
    (33, 20, 3)
    """
    a = np.asarray(image, dtype=np.float64)
    f = -(-max(a.shape[:2]) // size)
    if f <= 1:
        return a
    h, w = a.shape[0] // f, a.shape[1] // f
    blocks = a[:h * f, :w * f].reshape(h, f, w, f, *a.shape[2:])
    return blocks.mean(axis=(1, 3))
