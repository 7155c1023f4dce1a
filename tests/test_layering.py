"""The core (searches, oracle, domains, results, counting) imports no widget: widgets reach it only
through the registry in ``fairnb.views``."""
import ast
from pathlib import Path

import pytest

import fairnb
from fairnb import views

ROOT = Path(fairnb.__file__).parent
CORE = [*sorted((ROOT / "search").rglob("*.py")), *sorted((ROOT / "domains").rglob("*.py")),
        *sorted((ROOT / "results").rglob("*.py")),
        *sorted((ROOT / "certification").rglob("*.py")), ROOT / "oracle.py", ROOT / "counting.py", ROOT / "summaries.py",
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


# ------------------------------------------------------------------------------------------------ the floors
# Every module of fairnb lives in a *room*: its top-level module, or its top-level package with everything
# below it (``fairnb.search`` holds fairnb/search/**). Rooms stand on floors, ground floor first; a module may
# import its own floor and the floors below, never a floor above, and the rooms never import each other in
# a circle (nor do the modules of one package). Imports inside functions count: they are imports all the same.
FLOORS = [
    ("fairnb.store", "fairnb.config", "fairnb.heap", "fairnb.interrupts", "fairnb.views", "fairnb.pair_table", "fairnb.plot_text", "fairnb.params",
     "fairnb.stats", "fairnb.user_frame", "fairnb.footprint", "fairnb.claims", "fairnb.html_frames"),
    ("fairnb.models",),
    ("fairnb.oracle", "fairnb.text"),
    ("fairnb.constraints",),
    ("fairnb.domains",),
    ("fairnb.counting", "fairnb.summaries", "fairnb.report", "fairnb.model_card"),
    ("fairnb.results",),
    ("fairnb.certification",),
    ("fairnb.suites", "fairnb.testing"),
    ("fairnb.search",),
    ("fairnb.images",),
    ("fairnb.datasets",),
    ("fairnb.group",),
    ("fairnb.mitigation",),
    ("fairnb.distributed",),
    ("fairnb.widgets",),
    ("fairnb",),                         # the package itself (fairnb/__init__.py): what ``import fairnb`` offers
    ("fairnb.bench", "fairnb.demo", "fairnb.harness"),
    ("fairnb.cli",),
]
FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}



def _module_name(path: Path) -> str:
    parts = ("fairnb", *path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _package(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def _imports(module: str):
    """``(imported module, imported name or None)`` for every import of fairnb code in ``module``,
    relative ones resolved, those inside functions included; ``from pkg import sub`` names the submodule."""
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Import):
            yield from ((a.name, None) for a in node.names if a.name.split(".")[0] == "fairnb")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = _package(module).split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            if base.split(".")[0] != "fairnb":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield (sub, None) if sub in MODULES else (base, alias.name)


def room(module: str) -> str:
    return ".".join(module.split(".")[:2])


EDGES = sorted({(m, target) for m in MODULES for target, _ in _imports(m)})


def _cycles(edges) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    succ = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(succ.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(succ):
        if v not in index:
            visit(v)
    return found


def test_every_room_stands_on_a_floor():
    assert sorted({room(m) for m in MODULES} - set(FLOOR)) == []
    assert sorted(set(FLOOR) - {room(m) for m in MODULES}) == []


def test_no_module_imports_a_higher_floor():
    placed = [(m, t) for m, t in EDGES if room(m) in FLOOR and room(t) in FLOOR]     # the others: the test above
    upward = [f"{m} -> {t}" for m, t in placed if FLOOR[room(t)] > FLOOR[room(m)]]
    assert upward == []


def test_no_cycles_between_rooms():
    edges = {(room(m), room(t)) for m, t in EDGES if room(m) != room(t)}
    assert _cycles(edges) == []


def test_no_cycles_between_the_modules_of_a_package():
    assert _cycles((m, t) for m, t in EDGES if m != t and _package(m) == _package(t)) == []


# Inside ``fairnb.search`` the same rule one level down: the registry (it names the methods as strings only), then
# the engine (the machinery every method runs on), the parts (what a method is composed of), the methods, and the
# package's front (``fairnb/search/__init__.py``) on top. The engine imports no part and no method, a part no method.
SEARCH_FLOORS = ["fairnb.search.registry", "fairnb.search.engine", "fairnb.search.parts", "fairnb.search.methods",
                 "fairnb.search"]


def search_room(module: str) -> str:
    return ".".join(module.split(".")[:3]) if module.startswith("fairnb.search.") else module


SEARCH_EDGES = [(search_room(m), search_room(t)) for m, t in EDGES
                if room(m) == room(t) == "fairnb.search" and search_room(m) != search_room(t)]


def test_every_search_module_stands_on_a_search_floor():
    assert sorted({search_room(m) for m in MODULES if room(m) == "fairnb.search"} - set(SEARCH_FLOORS)) == []


def test_no_search_module_imports_a_higher_search_floor():
    upward = sorted({f"{m} -> {t}" for m, t in SEARCH_EDGES
                     if SEARCH_FLOORS.index(t) > SEARCH_FLOORS.index(m)})
    assert upward == []


def test_the_search_floors_are_walked():
    assert ("fairnb.search.methods", "fairnb.search.engine") in SEARCH_EDGES      # every method runs on the engine
    assert ("fairnb.search.methods", "fairnb.search.parts") in SEARCH_EDGES       # and is composed of parts
    assert ("fairnb.search.engine", "fairnb.search.registry") in SEARCH_EDGES     # a run refuses seeds by its record


def test_no_private_name_is_imported_across_packages():
    private = [f"{m} imports {name} from {t}" for m in MODULES for t, name in _imports(m)
               if name and name.startswith("_") and not name.startswith("__") and _package(m) != _package(t)
]
    assert private == []


def test_the_walk_resolves_relative_imports_and_sees_those_inside_functions():
    assert ("fairnb.models.loading", "fairnb.models.keras") in EDGES        # `from .keras import ...` in load_model
    assert ("fairnb.domains.image", "fairnb.models") in EDGES               # `from ..models import wrap` in a method
    assert ("fairnb.text.glove", "fairnb.store") in EDGES                   # `from ..store import cache_key, ...`
