"""TensorFlow imported without its start-up lines: the absl and oneDNN notices it writes to the process's file
descriptor 2 (not to ``sys.stderr``) when it loads, which a notebook shows in a red box that a student takes for an
error. Nothing here is imported until called.

Example
-------
>>> tf, keras = import_tensorflow()        # doctest: +SKIP
"""
from __future__ import annotations

import contextlib
import os
import sys


@contextlib.contextmanager
def stderr_elsewhere():
    """Point file descriptor 2 at ``os.devnull`` meanwhile (what C++ libraries write there goes nowhere), then back.

    >>> with stderr_elsewhere():
    ...     _ = os.write(2, b"not shown")
    """
    sys.stderr.flush()
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def import_tensorflow():
    """``(tensorflow, keras)``, imported with their start-up lines silenced (``stderr_elsewhere``); an import
    error is still raised. Call it before the first cell that trains or loads a Keras model: later imports of
    TensorFlow are already done, and silent."""
    with stderr_elsewhere():
        import keras
        import tensorflow
    return tensorflow, keras
