"""The README and the documentation pages as a newcomer meets them: the ten lines run on a fresh machine, every
relative link points at a file that exists, every page is on the site, and the methods table names every method."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _section(text: str, heading: str) -> str:
    """The Markdown of the ``## heading`` section (up to the next ``## ``)."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"README has no '## {heading}' section"
    return match.group(1)


def _relative_links(text: str) -> list[str]:
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:|#", t)]


def test_readme_ten_lines_run_without_a_data_folder(tmp_path):
    code = re.search(r"```python\n(.*?)```", _section(README.read_text(), "Ten lines of Python"), re.S)
    assert code, "the ten-lines section has no python code block"
    lines = [line for line in code.group(1).splitlines() if line.strip()]
    assert len(lines) <= 10, f"the 'ten lines' are {len(lines)} lines"
    env = {k: v for k, v in os.environ.items() if k not in ("FAIRNB_DATA", "FAIRNB_MODELS", "FAIRNB_CACHE")}
    env.update(FAIRNB_DOWNLOAD="0", FAIRNB_CACHE=str(tmp_path / "cache"), MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    run = subprocess.run([sys.executable, "-c", code.group(1)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "unique_idis_eidig" in run.stdout


@pytest.mark.parametrize("page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_point_at_existing_files(page):
    missing = [t for t in _relative_links(page.read_text()) if not (page.parent / t.split("#")[0]).exists()]
    assert not missing, f"{page.name} links to files that do not exist: {missing}"


def test_readme_links_the_documentation_pages_and_every_page_is_on_the_site():
    linked = {t.split("#")[0] for t in _relative_links(README.read_text()) if t.startswith("docs/")}
    pages = {f"docs/{p.name}" for p in DOCS.glob("*.md") if p.name not in ("index.md", "tutorials.md")}
    assert pages - {"docs/api.md", "docs/about_these_docs.md"} <= linked, sorted(pages - linked)
    index = (DOCS / "index.md").read_text()
    toctree = re.search(r"```\{toctree\}\n(.*?)```", index, re.S).group(1)
    on_site = {line.strip() for line in toctree.splitlines() if line.strip() and not line.startswith(":")}
    assert {Path(p).stem for p in pages} | {"tutorials"} <= on_site, sorted({Path(p).stem for p in pages} - on_site)


def test_readme_methods_table_names_every_registered_method():
    from fairnb.search import METHODS

    table = _section(README.read_text(), "Methods")
    named = set(re.findall(r"`([\w-]+)`", table))
    assert set(METHODS) <= named, sorted(set(METHODS) - named)


def test_readme_tutorial_links_name_every_tutorial():
    tutorials = {f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("0*.ipynb")}
    assert tutorials <= set(_relative_links(README.read_text())), sorted(tutorials)


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("0*.ipynb")), ids=lambda p: p.name)
def test_every_tutorial_links_the_glossary_first(path):
    first = "".join(json.loads(path.read_text())["cells"][0]["source"])
    assert "](../docs/glossary.md)" in first, "the first cell should link the glossary as ../docs/glossary.md"


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("0*.ipynb")), ids=lambda p: p.name)
def test_every_tutorial_links_its_solutions_and_the_site_executes_them(path):
    # issue #22: the solutions had no outputs anywhere a student could read them
    solutions = f"solutions/{path.stem}_solutions.ipynb"
    markdown = "".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown")
    assert f"]({solutions})" in markdown and (path.parent / solutions).is_file()
    staged = re.search(r"^docs:.*?(?=^\S)", (ROOT / "Makefile").read_text(), re.M | re.S).group(0)
    assert "test-notebooks" in staged.splitlines()[0].split(":", 1)[1]    # which executes them into $(EXECUTED)
    assert "cp $(EXECUTED)/solutions/0*.ipynb build/docs-src/tutorials/solutions/" in staged
    toctrees = re.findall(r"```\{toctree\}\n(.*?)```", (DOCS / "tutorials.md").read_text(), re.S)
    assert any("tutorials/solutions/0*" in t and ":glob:" in t for t in toctrees)
