"""Control flips: the exposure part and the hue part of an attribute flip, to tell tone from exposure.

A skin-tone flip (``ExactFlip`` of tinted LFW) darkens the face *and* changes its hue. A detector that misses the
dark twin may react to the hue (the tone) or only to the exposure and contrast (a darker, flatter face, as a badly
lit light-toned face would be). :class:`FlipPart` splits any flip per pixel by its luminance
``Y = 0.299 R + 0.587 G + 0.114 B`` (Rec. 601):

* ``part="exposure"`` (the **exposure-matched control**): the image rescaled per pixel to the luminance of the
  flip's twin, ``x * Y(twin) / Y(x)``: the same brightness and contrast change as the flip, pixel for pixel, and
  the image's own hue (chromaticity ``rgb / Y``);
* ``part="hue"``: the twin rescaled per pixel to the image's luminance, ``twin * Y(x) / Y(twin)``: the flip's
  hue change at the image's own exposure.

Both are clipped to [0, 1] (where a brightening control clips, its luminance falls short of the twin's;
``luminance_gap`` measures it). Run a search with the flip and with its control alike: pairs found with the
control are not evidence of a reaction to the tone. The control changes no attribute by design, so it has no
attribute classifier (``AttributeConfirmed`` passes every pair).

Example
-------
>>> import numpy as np
>>> x = np.full((1, 1, 1, 3), 0.5)
>>> twin = x * [[[[0.62, 0.45, 0.33]]]]                               # a darker, browner twin
>>> control = flip_part(x, twin, "exposure")
>>> bool(np.allclose(luminance(control), luminance(twin))), control[0, 0, 0].round(3).tolist()
(True, [0.244, 0.244, 0.244])
>>> bool(np.allclose(luminance(flip_part(x, twin, "hue")), luminance(x)))
True
"""
from __future__ import annotations

import numpy as np

from .flips import FlipResult

LUMA = np.array([0.299, 0.587, 0.114])   # Rec. 601 luma weights of R, G, B
PARTS = ("exposure", "hue")


def luminance(X) -> np.ndarray:
    """Per pixel luma ``(n, H, W)`` of RGB images ``(n, H, W, 3)`` (a grey image ``(n, H, W, 1)``: its value)."""
    X = np.asarray(X, dtype=np.float64)
    if X.shape[-1] == 1:
        return X[..., 0]
    if X.shape[-1] != 3:
        raise ValueError(f"images must have 1 or 3 channels (RGB), got shape {X.shape}")
    return X @ LUMA


def _rescaled(X, luma_from, luma_to) -> np.ndarray:
    ratio = np.where(luma_from > 1e-6, luma_to / np.maximum(luma_from, 1e-6), 1.0)
    return np.clip(np.asarray(X, dtype=np.float64) * ratio[..., None], 0.0, 1.0)


def flip_part(X, X_flipped, part: str = "exposure") -> np.ndarray:
    """The ``part`` (``"exposure"`` or ``"hue"``) of the flip ``X -> X_flipped`` (see the module docstring)."""
    if part not in PARTS:
        raise ValueError(f"part must be one of {PARTS}, got {part!r}")
    X, X_flipped = np.asarray(X, dtype=np.float64), np.asarray(X_flipped, dtype=np.float64)
    if X.shape != X_flipped.shape:
        raise ValueError(f"X and X_flipped must have the same shape, got {X.shape} and {X_flipped.shape}")
    Y, Yf = luminance(X), luminance(X_flipped)
    return _rescaled(X, Y, Yf) if part == "exposure" else _rescaled(X_flipped, Yf, Y)


def luminance_gap(X, target) -> np.ndarray:
    """Per image, the mean absolute luminance difference between ``X`` and ``target`` (0: matched exactly)."""
    return np.abs(luminance(X) - luminance(target)).reshape(len(X), -1).mean(axis=1)


class FlipPart:
    """One part of ``flipper``'s flip (``part="exposure"``: the exposure-matched control; ``"hue"``: the hue
    change alone), itself a flipper (see the module docstring). Images whose flip failed keep failing."""

    def __init__(self, flipper, part: str = "exposure"):
        if not callable(getattr(flipper, "flip", None)):
            raise TypeError(f"flipper must have flip(X, index=None), got {type(flipper).__name__}")
        if part not in PARTS:
            raise ValueError(f"part must be one of {PARTS}, got {part!r}")
        self.flipper = flipper
        self.part = part

    @property
    def data(self):
        """The inner flipper's data set (an ``ImageDomain`` then finds the seeds' rows for it); absent if none."""
        try:
            return self.flipper.data
        except AttributeError:
            raise AttributeError("data") from None

    def __repr__(self):
        return f"FlipPart({type(self.flipper).__name__}, part={self.part!r})"

    def flip(self, X, index=None) -> FlipResult:
        whole = self.flipper.flip(X, index=index)
        X = whole.X
        twin = flip_part(X, whole.X_flipped, self.part).astype(X.dtype)
        twin = np.where(whole.success.reshape(-1, *([1] * (X.ndim - 1))), twin, X)
        linf = np.abs(twin - X).reshape(len(X), -1).max(axis=1, initial=0.0).astype(np.float64)
        return FlipResult(X, twin, whole.success.copy(), whole.steps.copy(), linf)
