"""`make test-cpus` runs the suite again under two more OpenBLAS kernels, every module but those tests/conftest.py
lists in ``NOT_NUMERIC`` (marked ``not_numeric``): a listed name that no longer exists, or a marker that stopped
applying, would leave the selection silently wrong."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import NOT_NUMERIC

ROOT = Path(__file__).resolve().parents[1]


def test_every_module_left_out_of_the_blas_runs_exists():
    assert sorted(n for n in NOT_NUMERIC if not (ROOT / "tests" / n).is_file()) == []


def test_the_blas_runs_leave_out_exactly_the_listed_modules():
    recipe = re.search(r"^test-cpus:.*?(?=^\S)", (ROOT / "Makefile").read_text(), re.M | re.S).group(0)
    assert '-m "not browser and not slow and not not_numeric"' in recipe
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q",
                          "-m", "not not_numeric", "tests/test_layering.py", "tests/test_heap.py"],
                         cwd=ROOT, capture_output=True, text=True).stdout
    modules = {line.split("::")[0] for line in out.splitlines() if "::" in line}
    assert modules == {"tests/test_heap.py"}, out[-2000:]
