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


# `make test-cpus` runs the suite again under two more OpenBLAS kernels, to show that no result depends on float
# rounding. It skips the modules below (marked ``not_numeric``). The rule: a module is listed only when none of its
# assertions depends on a number computed through a BLAS kernel (the project's files and import graph, what the
# widgets and displays show, the errors bad input gets, checksums); agreement within one run (a display matching its
# result) does not count as depending. The command line's tests stay: they assert a demo's and a CSV search's numbers.
# Selection is by exclusion: a new module runs under every kernel until it is listed here.
NOT_NUMERIC = frozenset({
    "test_layering.py", "test_docs.py", "test_glossary_links.py", "test_notebooks_committed.py",   # files, imports
    "test_blas_selection.py", "test_notebook_memory.py", "test_tutorial_claims.py",                # CI's own tools
    "test_widgets.py", "test_widgets_compare.py", "test_widgets_image_inspector.py", "test_widgets_inspector.py",
    "test_widgets_text_inspector.py", "test_result_display.py", "test_kernel_messages.py",          # what is shown
    "test_params.py", "test_bad_arguments.py", "test_bad_input_named.py", "test_bad_domain_input.py",  # bad input
    "test_saved_integrity.py", "test_model_integrity.py",                                          # checksums
    "test_local_start.py",                                                                         # make lab
})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in NOT_NUMERIC and item.path.parent == ROOT / "tests":
            item.add_marker(pytest.mark.not_numeric)


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
