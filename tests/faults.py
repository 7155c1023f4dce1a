"""Fault injection for searches: Ctrl-C at a chosen event or moment (once or twice), a model that fails
on its k-th call, and a reader thread that looks at the live Result.

Used by ``tests/test_reliability.py`` against every registered method and TestSGD; a new search is covered
by registering it (``fairnb.search.registry.register``) with its ``fast`` parameters.
"""
from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np

from fairnb.oracle import Oracle

def fast_search(method: str, **extra):
    """``method`` (a registered name) with its registry record's ``fast`` parameters, ``extra`` on top."""
    from fairnb.search.registry import method_record

    record = method_record(method)
    return record.load()(random_state=0, progress=False, **{**record.fast, **extra})


def sigint_soon(delay: float) -> threading.Timer:
    """Send SIGINT to this process after ``delay`` seconds (from a timer thread: it lands anywhere)."""
    timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
    timer.daemon = True
    timer.start()
    return timer


class InterruptAt:
    """A listener that presses Ctrl-C at the ``at``-th progress event and, with ``second`` (seconds),
    again that long after; on the "done" event it waits until the second one has landed, so both
    arrive before ``run`` returns (the second one somewhere in the wind-down)."""

    def __init__(self, at: int = 2, second: float | None = None):
        self.at, self.second = at, second
        self.seen = 0
        self.timer: threading.Timer | None = None

    def __call__(self, event):
        if event.kind == "progress":
            self.seen += 1
            if self.seen == self.at:
                if self.second is not None:
                    self.timer = sigint_soon(self.second)
                signal.raise_signal(signal.SIGINT)
        elif event.kind == "done" and self.timer is not None:
            self.timer.join()
            time.sleep(0.01)      # the handler runs at the next bytecode of the main thread


class FailingModel:
    """Wraps a fairnb model; its ``fail_on``-th output call (predict_proba, input_gradient or
    embedding_gradient) raises ``error``. With ``midway=True`` only the calls after the search's first progress
    event count (give ``model.listener`` to ``run(listeners=...)``): the natural rate's measure comes first, in calls
    sized by the machine's pace."""

    def __init__(self, model, fail_on: int, error: BaseException | None = None, midway: bool = False):
        self._model, self.fail_on, self.calls, self.counting = model, fail_on, 0, not midway
        self.error = error if error is not None else RuntimeError("the model failed (injected)")

    def listener(self, event):
        if event.kind == "progress":
            self.counting = True

    def _count(self):
        if not self.counting:
            return
        self.calls += 1
        if self.calls == self.fail_on:
            raise self.error

    def predict_proba(self, X):
        self._count()
        return self._model.predict_proba(X)

    def input_gradient(self, X, classes, of="proba"):
        self._count()
        return self._model.input_gradient(X, classes, of=of)

    def embedding_gradient(self, ids, classes, of="loss"):
        self._count()
        return self._model.embedding_gradient(ids, classes, of=of)

    def __getattr__(self, name):      # layer_outputs, activation_gradient, n_features, ...
        return getattr(self._model, name)


class LiveReader:
    """A thread that reads the live Result of ``search`` (snapshots, pairs, summary) until stopped,
    checking each snapshot is consistent; ``errors`` collects what went wrong."""

    def __init__(self, search):
        self.search = search
        self.errors: list[BaseException] = []
        self.reads = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self):
        while not self._stop.is_set():
            engine = getattr(self.search, "engine_", None)   # set when the run starts
            if engine is None:
                time.sleep(0.001)
                continue
            try:
                snap = engine.result.snapshot()
                pairs, raw = snap.pairs, snap.to_frame(decoded=False)
                snap.summary()
                if not len(pairs) == len(raw) == snap.count() == len(snap.inputs):
                    raise AssertionError(f"inconsistent snapshot: {len(pairs)} pairs, {len(raw)} raw, "
                                         f"{snap.count()} counted, {len(snap.inputs)} inputs")
                self.reads += 1
            except Exception as e:  # noqa: BLE001 - reported by the test
                self.errors.append(e)
                return

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self


def assert_sound(result, model, domain):
    """A Result is whole: its count equals its stored pairs, and every stored pair re-checks as
    discriminatory with a fresh oracle (pairs within float rounding of the threshold excepted)."""
    pairs = result.pairs
    assert result.count() == len(result.inputs) == len(result.counterparts) == len(pairs)
    assert result.count("adf") <= result.count()
    assert result.status in ("completed", "budget", "stopped", "interrupted", "failed")
    if not len(pairs):
        return
    inner = getattr(model, "_model", model)
    verdict = Oracle(inner, domain).check(result.inputs)
    firm = ~pairs["near_threshold"].to_numpy()
    assert verdict.discriminatory[firm].all()
    if hasattr(domain, "sensitive_mask"):       # text: only at the positions of protected terms
        assert not ((result.inputs != result.counterparts) & ~domain.sensitive_mask(result.inputs)).any()
        return
    same = np.delete(result.inputs - result.counterparts, list(domain.protected), axis=1)
    assert not same.any(), "a counterpart differs outside the protected attributes"
    flipped = Oracle(inner, domain).check(result.counterparts).labels != verdict.labels
    assert flipped[firm].all()
