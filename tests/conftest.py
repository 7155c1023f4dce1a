"""Shared fixtures. Benchmark data and models are read from ../shared (or $FAIRNB_DATA / $FAIRNB_MODELS)
through the same data-folder option a user has."""
from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

# A shell starts a background job (`pytest ... &`) with SIGINT ignored, and Python keeps it so: the tests that press
# Ctrl-C would then press nothing. They test fairnb's handling of Ctrl-C, so Python's own handler is put back.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _required_dir(env: str, default: Path, what: str) -> Path:
    p = (Path(os.environ[env]) if os.environ.get(env) else default).resolve()
    if not p.is_dir():
        pytest.fail(f"{what} not found at {p}: set {env} or put shared/ beside the checkout")
    return p


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return _required_dir("FAIRNB_DATA", SHARED / "data", "benchmark data")


@pytest.fixture(scope="session")
def models_dir() -> Path:
    return _required_dir("FAIRNB_MODELS", SHARED / "models", "published models")


@pytest.fixture(scope="session")
def synthetic():
    import fairnb

    return fairnb.datasets.make_synthetic(n=4000, strength=2.0, random_state=0)


@pytest.fixture(scope="session")
def biased_model(synthetic):
    import fairnb

    return fairnb.train_demo_model(synthetic, random_state=0)


@pytest.fixture(scope="session")
def fair_model(synthetic):
    """A trained model that provably ignores the protected attribute."""
    import fairnb

    return fairnb.train_demo_model(synthetic, ignore_protected=True, random_state=0)


@pytest.fixture
def rng():
    return np.random.default_rng(0)
