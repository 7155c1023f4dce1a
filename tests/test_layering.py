"""The core (searches, oracle, domains, results, counting) imports no widget: widgets reach it only
through the registry in ``fairnb.views``."""
import ast
from pathlib import Path

import pytest

import fairnb
from fairnb import views

ROOT = Path(fairnb.__file__).parent
CORE = [*sorted((ROOT / "search").rglob("*.py")), *sorted((ROOT / "domains").rglob("*.py")),
        *sorted((ROOT / "results").rglob("*.py")), ROOT / "oracle.py", ROOT / "counting.py", ROOT / "summaries.py",
        ROOT / "pair_table.py"]


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_module_imports_no_widget(path):
    widgets = sorted(m for m in imported_modules(path) if "widgets" in m.split(".") or "anywidget" in m)
    assert not widgets, f"{path.name} imports {widgets}"


def test_inspect_uses_the_inspector_registered_for_the_kind(monkeypatch):
    data = fairnb.datasets.make_synthetic(n=300, random_state=0)
    result = fairnb.run_search(data.info["true_model"], data.domain, max_tried=1000, random_state=0, progress=False)
    assert type(result.inspect()).__name__ == "PairInspector"          # the default for every kind

    class Recorder:
        def __init__(self, result, seeds, **kw):
            self.args = (result, seeds, kw)

    monkeypatch.setitem(views._INSPECTORS, "tabular", Recorder)
    shown = result.inspect(page_size=5)
    assert shown.args == (result, None, {"page_size": 5})
