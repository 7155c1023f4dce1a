"""benchmarks/notebook_memory.py, which `make binder-check` runs: each notebook in its own kernel, whose peak memory
is its own whatever runs beside it (``--jobs 2``), the rows in the order given, a failing notebook named."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("nbclient")
SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "notebook_memory.py"


def notebook(path: Path, *sources: str) -> str:
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources]), path)
    return str(path)


def test_two_kernels_at_a_time_keep_their_own_peaks_and_order(tmp_path):
    paths = [notebook(tmp_path / "a_big.ipynb", "held = b'x' * (300 * 2**20)"),
             notebook(tmp_path / "b_small.ipynb", "x = 1"),
             notebook(tmp_path / "c_fails.ipynb", "raise ValueError('planted')")]
    out = subprocess.run([sys.executable, str(SCRIPT), *paths, "--jobs", "2", "--limit-mb", "1000"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stderr[-2000:]
    rows = [line.split(" | ") for line in out.stdout.splitlines() if line.startswith(f"| {tmp_path}")]
    assert [Path(r[0][2:]).name for r in rows] == ["a_big.ipynb", "b_small.ipynb", "c_fails.ipynb"]
    big, small = float(rows[0][2]), float(rows[1][2])
    assert big >= 300 and small < big - 250 and rows[0][3].startswith("ok") and rows[1][3].startswith("ok")
    assert "planted" in rows[2][3]
    assert "2 kernel(s) at a time" in out.stdout and "2 passed, 1 failed" in out.stdout


def test_jobs_below_one_is_refused_by_name(tmp_path):
    out = subprocess.run([sys.executable, str(SCRIPT), notebook(tmp_path / "a.ipynb", "x = 1"), "--jobs", "0"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "--jobs must be at least 1, got 0" in out.stderr
