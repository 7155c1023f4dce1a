"""benchmarks/tutorial_claims.py: every tutorial checks its text's claims on its own run (fairnb.claims), CI checks
that each printed at least one (`make test-notebooks`, on its smoke runs' outputs), and the full-mode benchmark lists
every check of every run."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("tutorial_claims", ROOT / "benchmarks" / "tutorial_claims.py")
tutorial_claims = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tutorial_claims)


def code(path: Path) -> str:
    return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")


@pytest.mark.parametrize("name", tutorial_claims.TUTORIALS)    # 05 included: its claims come with its own rework
def test_every_tutorial_checks_claims_on_its_run(name):
    assert "claim(" in code(tutorial_claims.tutorial_path(name)), f"tutorial {name} checks no claim (fairnb.claims)"


def executed(path: Path, *printed: str) -> None:
    cell = nbformat.v4.new_code_cell("...")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text) for text in printed]
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), path)


def test_the_ci_check_names_a_tutorial_that_printed_no_claim_and_one_that_is_missing(tmp_path):
    for name in tutorial_claims.TUTORIALS[:-1]:
        executed(tmp_path / f"{name}_x.ipynb", "a number\n✓ This run shows it: A (1 against 0).\n")
    executed(tmp_path / "03_x.ipynb", "This run shows it: only mentioned\n", "✓ This run shows it (not a verdict)\n")
    executed(tmp_path / "06_x.ipynb", "✗ This run does not show it: B (0 pairs).\n")    # a failed check counts too
    assert tutorial_claims.check_executed(tmp_path) == [
        "03_x.ipynb: no claim checked (no line starting with '✓ This run shows it:' or '✗ This run does not show it:' "
        "in its outputs): give its text's claims a fairnb.claims.claim cell",
        f"tutorial {tutorial_claims.TUTORIALS[-1]}: no executed notebook {tutorial_claims.TUTORIALS[-1]}_*.ipynb in "
        f"{tmp_path}"]
    assert tutorial_claims.printed_claims(tmp_path / "06_x.ipynb") == ["✗ This run does not show it: B (0 pairs)."]


@pytest.mark.slow    # starts a kernel
def test_the_benchmark_lists_every_claim_of_each_run_and_fails_on_a_contradicted_one(tmp_path, monkeypatch):
    notebook = tmp_path / "nb.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from fairnb.claims import ask, claim\nclaim('holds', 2 > 1, evidence='2 against 1')\nclaim('fails', 2 < 1)\n"
        "ask('asked', 2 < 1)")]),
        notebook)
    monkeypatch.delenv("FAIRNB_SMOKE", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    out = tmp_path / "claims"
    assert tutorial_claims.main([str(notebook), "--runs", "1", "--out", str(out)]) == 1
    saved = json.loads(out.with_suffix(".json").read_text())
    assert saved["mode"] == "full"
    [row] = saved["rows"]
    assert (row["tutorial"], row["run"], row["error"], row["contradicted"]) == ("nb.ipynb", 1, None, 1)
    assert row["claims"] == [{"text": "holds", "holds": True, "evidence": "2 against 1", "asked": False},
                             {"text": "fails", "holds": False, "evidence": "", "asked": False},
                             {"text": "asked", "holds": False, "evidence": "", "asked": True}]    # a no: no contradiction
    page = out.with_suffix(".md").read_text()
    assert "**1 claim(s) contradicted** in 1 run(s)" in page and "| fails | **NO** |  |" in page and "| (asked) asked | no |  |" in page
    assert "Missing runs: 01 run 1, 01 run 2" in page


def test_importing_the_benchmark_leaves_the_import_path_alone():
    """benchmarks/ on a test process's path made every Dask worker it spawned import benchmarks/distributed.py as
    `distributed` (CI: 21 distributed tests failed with "Nanny failed to start")."""
    import sys

    assert not any(Path(p).resolve() == ROOT / "benchmarks" for p in sys.path if p)
