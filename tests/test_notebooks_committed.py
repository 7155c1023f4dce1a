"""The tutorials as committed: without outputs, with a smoke switch for CI, and exercises whose solutions exist."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
ALL = sorted(p for p in NOTEBOOKS.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
TUTORIALS = sorted(NOTEBOOKS.glob("0*.ipynb"))


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _text(cell: dict) -> str:
    return "".join(cell["source"])


def test_there_are_tutorials_and_solutions():
    assert len(TUTORIALS) >= 5 and any(p.parent.name == "solutions" for p in ALL)


@pytest.mark.parametrize("path", ALL, ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_committed_without_outputs_and_with_a_smoke_switch(path):
    code = [c for c in _cells(path) if c["cell_type"] == "code"]
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code), "strip the outputs"
    assert any("FAIRNB_SMOKE" in _text(c) for c in code), "the notebook needs SMOKE = os.environ.get('FAIRNB_SMOKE') == '1'"


@pytest.mark.parametrize("path", ALL, ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_valid_nbformat_with_cell_ids(path):
    """The docs build and nbmake read them with nbformat: a cell id in a 4.4 notebook, or a 4.5 cell without one,
    is invalid there."""
    import nbformat

    nbformat.validate(nbformat.reads(path.read_text(), as_version=4))
    notebook = json.loads(path.read_text())
    assert notebook["nbformat_minor"] >= 5 and all("id" in c for c in notebook["cells"])


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.name)
def test_exercises_name_an_existing_solutions_notebook(path):
    markdown = "\n".join(_text(c) for c in _cells(path) if c["cell_type"] == "markdown")
    if "## Exercises" not in markdown:
        pytest.skip(f"{path.name} has no exercises yet")
    named = re.findall(r"solutions/([\w.-]+\.ipynb)", markdown.split("## Exercises", 1)[1])
    assert named and all((NOTEBOOKS / "solutions" / n).is_file() for n in named), named


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.name)
def test_first_cell_states_learning_goals_and_how_to_start_again(path):
    """A teacher reads at the top what the tutorial teaches and how to reset it (issue #37 item 7)."""
    first = _cells(path)[0]
    text = " ".join(_text(first).split())
    assert first["cell_type"] == "markdown"
    assert "You will learn" in text, "list the learning goals ('You will learn') in the first cell"
    assert "Restart Kernel and Run All Cells" in text, "say how to start again from a clean state"


@pytest.mark.parametrize("path", ALL, ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_tensorflow_imported_quietly(path):
    """TensorFlow's start-up lines land in a red stderr box that a student takes for an error: a notebook imports it
    through fairnb.models.import_tensorflow(), never with a bare `import keras` / `import tensorflow`."""
    bare = [line for c in _cells(path) if c["cell_type"] == "code" for line in _text(c).splitlines()
            if re.match(r"\s*(import|from)\s+(keras|tensorflow)\b", line)]
    assert not bare, f"use fairnb.models.import_tensorflow() instead of {bare}"
