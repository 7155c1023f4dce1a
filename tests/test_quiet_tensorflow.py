"""TensorFlow's start-up lines stay out of the tutorials' cells (issue 37): they are written to file descriptor 2,
which only pointing the descriptor elsewhere during the import removes."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest


def test_writes_to_descriptor_2_are_hidden_meanwhile_and_shown_after(capfd):
    from fairnb.models.quiet import stderr_elsewhere

    with stderr_elsewhere():
        os.write(2, b"hidden\n")
    os.write(2, b"shown\n")
    assert capfd.readouterr().err == "shown\n"


@pytest.mark.slow
def test_tensorflow_imports_without_its_start_up_lines():
    code = "import fairnb.models; fairnb.models.import_tensorflow(); import tensorflow; print('imported')"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "0"})
    assert run.returncode == 0 and "imported" in run.stdout, run.stderr
    assert "oneDNN" not in run.stderr and "cpu_feature_guard" not in run.stderr, run.stderr
