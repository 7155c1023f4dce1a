"""Progress panel and background searches: widget state, throttling, Stop from a thread and from the browser."""
from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

import fairnb
from fairnb.search import RandomSearch
from fairnb.search.engine import progress as progress_module
from fairnb.widgets import _assets
from fairnb.widgets.progress import ProgressPanel

EVIL = "<img src=x onerror=alert(1)>"
WIDGETS = {"ProgressPanel": "progress_panel.js", "PairInspector": "pair_inspector.js", "ImageInspector": "image_inspector.js"}


@pytest.fixture
def notebook(monkeypatch):
    """Pretend to run inside a Jupyter kernel (panels are created but displayed nowhere)."""
    import IPython.display

    shown = _Shown()
    monkeypatch.setattr(progress_module, "in_notebook", lambda: True)
    monkeypatch.setattr(IPython.display, "display", shown.display)
    return shown


class _Shown(list):
    """What was displayed, and the static HTML each ``update`` of a display sent."""

    def __init__(self):
        super().__init__()
        self.updates = []

    def display(self, obj, display_id=None):
        self.append(obj)
        return self if display_id else None

    def update(self, obj):
        self.updates.append(obj._repr_mimebundle_()[0]["text/html"])


def _long_search(**kw):
    return RandomSearch(n_samples=None, max_time=120, batch_size=200, random_state=0, **kw)


def _wait_for(predicate, timeout=60.0):
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("condition not reached")
        time.sleep(0.01)


def _recheck(result, model):
    """Every stored pair really is discriminatory: the model decides input and counterpart differently."""
    m = fairnb.models.wrap(model)
    return np.array_equal(m.predict_proba(result.inputs).argmax(1) != m.predict_proba(result.counterparts).argmax(1),
                          np.ones(len(result), bool))


@pytest.mark.parametrize("file", sorted(set(WIDGETS.values()) | {"fairnb.css"}))
def test_front_end_is_built_and_writes_no_html(file):
    text = (_assets.STATIC / file).read_text(encoding="utf-8")
    if file.endswith(".js"):
        assert "export" in text
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
            assert sink not in text, f"{file} uses {sink}: strings must go through textContent"


def test_missing_front_end_says_how_to_build(tmp_path):
    class Unbuilt(_assets.FairnbWidget):     # defining the class works; creating a widget says what to do
        _esm = tmp_path / "unbuilt.js"

    with pytest.raises(FileNotFoundError, match="unbuilt.js is not built.*npm run build"):
        Unbuilt()


def test_missing_front_end_falls_back_to_tqdm(monkeypatch, tmp_path, notebook):
    monkeypatch.setattr(ProgressPanel, "_missing", (tmp_path / "progress_panel.js",))
    with pytest.warns(RuntimeWarning, match="not built"):
        listener = progress_module.make_listener(None, RandomSearch())
    assert isinstance(listener, progress_module.TqdmListener)


def test_panel_state_round_trips_as_json(synthetic, biased_model):
    search = RandomSearch(n_samples=3000, batch_size=500, random_state=0, progress=False)
    panel = ProgressPanel(search, min_interval=0)
    result = search.run(biased_model, synthetic.domain, listeners=[panel])
    state = json.loads(json.dumps(panel.get_state()))
    assert state["status"] == "completed" and state["method"] == "random"
    assert state["tried"] == result.tried == 3000
    assert state["found"] == result.count("eidig") > 0
    assert state["found_adf"] == result.count("adf")
    assert state["success_rate"] == pytest.approx(result.success_rate)
    last = result.timeline.iloc[-1]
    assert state["series"][-1] == [round(float(last["elapsed"]), 3), result.count()]
    assert 0 <= last["elapsed"] <= result.elapsed
    assert state["stop_requested"] is False and state["stoppable"] is False


def test_panel_throttles_updates(synthetic, biased_model, monkeypatch):
    clock = iter(np.arange(0, 1000, 0.01))   # every event 10 ms after the previous one
    monkeypatch.setattr("fairnb.widgets.progress.monotonic", lambda: next(clock))
    search = RandomSearch(n_samples=20_000, batch_size=100, progress=False)
    panel = ProgressPanel(search, min_interval=0.1, max_points=16)
    search.run(biased_model, synthetic.domain, listeners=[panel])
    # 200 batches, one event each, 10 ms apart: start + done + about one update per 100 ms
    assert 20 <= panel.updates <= 24
    assert len(panel.series) <= 16


def test_browser_stop_message_stops_the_search(synthetic, biased_model, notebook):
    search = _long_search()
    run = search.start(biased_model, synthetic.domain)
    assert notebook == [run.panel] and run.panel.stoppable
    _wait_for(lambda: run.result is not None and run.result.count() > 0)
    run.panel.set_state({"stop_requested": True})          # what a click on Stop sends
    result = run.wait(timeout=60)
    assert result.status == "stopped" and run.panel.status == "stopped"
    assert run.panel.found == result.count() > 0
    assert _recheck(result, biased_model)


def test_stop_from_another_thread_keeps_every_pair(synthetic, biased_model):
    search = _long_search(progress=False)
    run = search.start(biased_model, synthetic.domain)
    assert run.panel is None
    _wait_for(lambda: run.result is not None and run.result.count() > 0)
    seen = run.result.count()
    result = run.stop()
    assert run.done and result.status == "stopped"
    assert result.count() >= seen and len(result.inputs) == result.count()
    assert _recheck(result, biased_model)
    assert "stopped" in repr(run)


def test_stop_before_the_search_starts(synthetic, biased_model):
    """The race forced: stop() lands before the worker thread's run has made its stop flag."""
    gate = threading.Event()

    class Gated(RandomSearch):
        def _run(self, *args, **kwargs):
            assert gate.wait(10)
            return super()._run(*args, **kwargs)

    run = Gated(n_samples=None, max_time=60, batch_size=200, progress=False).start(biased_model, synthetic.domain)
    run.stop(wait=False)
    gate.set()
    result = run.wait(timeout=20)
    assert result.status == "stopped" and result.tried <= 200


def test_background_errors_reach_wait_and_the_panel(synthetic, notebook):
    from fairnb.search import Search

    class NeedsGradients(Search):
        name = "needs-gradients"
        needs_gradients = True

    run = NeedsGradients().start(lambda X: X[:, 0] / 9, synthetic.domain)
    with pytest.raises(TypeError, match="gradients"):
        run.wait(timeout=30)
    assert run.panel.status == "failed" and "TypeError" in run.panel.message


def test_one_search_object_runs_one_search_at_a_time(synthetic, biased_model):
    search = _long_search(progress=False)
    run = search.start(biased_model, synthetic.domain)
    for again in (search.run, search.start):
        with pytest.raises(RuntimeError, match="already running"):
            again(biased_model, synthetic.domain)
    first = run.stop()
    assert first.status == "stopped"
    search.set_params(max_tried=500)               # free again once the first search has ended
    assert search.run(biased_model, synthetic.domain).tried >= 500
    with pytest.raises(ValueError):                 # a run that fails also frees the object
        search.run(biased_model, synthetic.domain, seeds=np.full((3, synthetic.domain.n_features), np.nan))
    assert search.run(biased_model, synthetic.domain).status != "failed"


def test_wait_with_timeout_on_a_running_search(synthetic, biased_model):
    run = _long_search(progress=False).start(biased_model, synthetic.domain)
    with pytest.raises(TimeoutError, match="stop"):
        run.wait(timeout=0.01)
    run.stop()


def test_blocking_run_in_a_notebook_shows_a_panel_without_stop(synthetic, biased_model, notebook):
    result = RandomSearch(n_samples=1000).run(biased_model, synthetic.domain)
    (panel,) = notebook
    assert isinstance(panel, ProgressPanel) and not panel.stoppable
    assert panel.status == result.status == "completed"


def test_widgets_carry_a_static_fallback_for_exported_notebooks(synthetic, biased_model, notebook):
    run = RandomSearch(n_samples=3000, random_state=0).start(biased_model, synthetic.domain)
    result = run.wait()
    (panel,) = notebook
    data, _ = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data           # the live widget in JupyterLab
    assert result.ending in data["text/html"] and f"{result.tried:,}" in data["text/html"]
    assert f"{result.count():,}" in data["text/plain"] and "<script" not in data["text/html"]
    assert notebook.updates and result.ending in notebook.updates[-1]   # the saved output shows the end
    ins = result.inspect(page_size=5)
    data, _ = ins._repr_mimebundle_()
    assert data["text/html"].count("<tr>") == 6 and f"5 of {len(result):,} shown" in data["text/html"]
    evil = fairnb.TabularDomain([fairnb.Feature(EVIL, 0, 1, labels=(EVIL, "b")),
                                 fairnb.Feature("sex", 0, 1, labels=("f", "m"))], protected=["sex"])
    found = fairnb.run_search(lambda X: X[:, 1], evil, max_tried=40, random_state=0, progress=False)
    page = found.inspect()._repr_mimebundle_()[0]["text/html"]
    assert EVIL not in page and "&lt;img" in page


def test_panel_rejects_bad_settings():
    with pytest.raises(ValueError, match="max_points"):
        ProgressPanel(max_points=1)


@pytest.mark.parametrize("limit_threads", [False, True])
def test_blas_thread_limit_only_for_foreground_searches_unless_asked(synthetic, biased_model, limit_threads):
    """run() holds BLAS to one thread while it searches and gives the threads back; start() leaves the
    process's BLAS alone (the rest of the kernel keeps its threads) unless limit_threads=True."""
    from threadpoolctl import threadpool_info

    def blas_threads():
        return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

    seen = []

    def listener(event):
        if event.kind == "progress":
            seen.append(blas_threads())

    before = blas_threads()
    if not before or min(before.values()) < 2:
        pytest.skip("BLAS runs on one thread here already")
    RandomSearch(n_samples=400, batch_size=200).run(biased_model, synthetic.domain, listeners=[listener])
    assert seen and all(set(s.values()) == {1} for s in seen) and blas_threads() == before
    seen.clear()
    RandomSearch(n_samples=400, batch_size=200, progress=False).start(
        biased_model, synthetic.domain, listeners=[listener], limit_threads=limit_threads).wait(30)
    assert seen and blas_threads() == before
    if not limit_threads:
        assert all(s == before for s in seen)     # the rest of the kernel keeps its BLAS threads
    # (with limit_threads=True the limit is set from the worker thread; OpenBLAS 0.3.31 ignores a limit set
    # from another thread once the main thread has set one, as run() above did, so only its release is checked)


def test_widgets_reject_unknown_keyword_arguments(synthetic, biased_model):
    with pytest.raises(TypeError, match=r"ProgressPanel got unexpected keyword argument\(s\) 'stopable'; valid: "):
        ProgressPanel(stopable=True)
    assert ProgressPanel(status="running").status == "running"
    result = fairnb.run_search(biased_model, synthetic.domain, max_tried=500, random_state=0, progress=False)
    with pytest.raises(TypeError, match="PairInspector got unexpected keyword argument\\(s\\) 'pagesize'"):
        result.inspect(pagesize=10)


def test_a_finished_panel_lets_go_of_its_search_and_result(synthetic, biased_model):
    # ipywidgets keeps every panel alive until it is closed; a panel that held its Result kept every search of a
    # notebook in memory (issue #22: tutorial 04's second Run All)
    import gc
    import weakref

    search = RandomSearch(n_samples=3000, batch_size=500, random_state=0, progress=False)
    panel = ProgressPanel(search, min_interval=0)
    result = weakref.ref(search.run(biased_model, synthetic.domain, listeners=[panel]))
    search = weakref.ref(search)
    gc.collect()
    assert result() is None and search() is None
    assert panel.status == "completed" and panel.found > 0          # the numbers it shows stay


def test_a_closed_widget_is_freed(synthetic, biased_model):
    # anywidget connects every widget of a class whose front end is a file to that file's change signal, with a
    # strong reference, for hot reloading; without it a closed inspector (and its Result, images, domain) stayed
    # in memory for the kernel's life (issue #22: tutorial 05's second Run All kept the first run's searches)
    import gc
    import weakref

    result = fairnb.run_search(biased_model, synthetic.domain, max_tried=500, random_state=0, progress=False)
    inspector = result.inspect()
    inspector.close()
    inspector = weakref.ref(inspector)
    gc.collect()
    assert inspector() is None
