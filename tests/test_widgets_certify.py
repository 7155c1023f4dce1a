"""certify's live panel: the search panel shows the certificate's progress, and its Stop keeps every decided box."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from fairnb import views
from fairnb.certification import certify
from fairnb.certification.certifying import Progress
from fairnb.domains import Feature, TabularDomain
from fairnb.models import NumpyMLP
from fairnb.search.engine import kernel_messages
from fairnb.widgets.progress import ProgressPanel

EVIL = "<img src=x onerror=alert(1)>"


@pytest.fixture
def shown(monkeypatch):
    """Pretend to run inside a Jupyter kernel: what certify displays is collected here."""
    import IPython.display

    displayed = []
    monkeypatch.setattr(views, "in_notebook", lambda: True)
    monkeypatch.setattr(IPython.display, "display", lambda obj, display_id=None: displayed.append(obj))
    return displayed


def _problem():
    """s = x + 1.5 sex - 0.75 on x in [-20, 20]: unfair exactly at x = 0, fair elsewhere."""
    dom = TabularDomain([Feature("x", -20, 20), Feature("sex", 0, 1)], protected=["sex"])
    return NumpyMLP([np.array([[1.0], [1.5]])], [np.array([-0.75])]), dom


def _shares(cert):
    summary = cert.summary()
    return {verdict: summary[f"{verdict}_share"] for verdict in ("certified", "falsified", "undecided")}


def test_the_panel_shows_the_certificates_shares_and_boxes(shown):
    cert = certify(*_problem(), enumerate_at=1, batch_size=2)
    [panel] = shown
    assert isinstance(panel, ProgressPanel) and panel.method == "certify"
    assert panel.status == "completed" and panel.search is None       # let go of the run at its end
    assert panel.stats == [[label, text] for label, text in Progress.of(cert).stats]
    stats = dict(panel.stats)
    assert stats["falsified"] == "2.44 %" and stats["certified"] == "97.6 %" and stats["undecided"] == "0.0 %"
    assert int(stats["boxes decided"]) == len(cert.boxes["certified"][0]) + len(cert.boxes["falsified"][0])
    assert panel.updates >= 2      # the steps (throttled) and the end


def test_stop_clicked_while_certify_blocks_the_cell_ends_it_keeping_every_decided_box(shown, monkeypatch):
    """The click arrives as a widget message that the kernel pump hands over between two steps."""
    seen = []

    def kernel_pump(timeout):      # a Stop click waiting for the kernel, once something is decided
        if seen[-1].decided and not shown[0].stop_requested:
            shown[0].set_state({"stop_requested": True})          # what a click on Stop sends

    monkeypatch.setattr(kernel_messages.CommPump, "in_this_kernel", classmethod(lambda cls: cls(kernel_pump, every=0)))
    cert = certify(*_problem(), enumerate_at=1, batch_size=1, listeners=[seen.append])
    clicked = next(p for p in seen if p.decided)
    assert shown[0].stoppable and cert.status == "stopped" and seen[-1].kind == "done"
    assert len(cert.boxes["certified"][0]) + len(cert.boxes["falsified"][0]) == clicked.decided
    shares = _shares(cert)
    assert shares["certified"] + shares["falsified"] == pytest.approx(1 - clicked.shares["undecided"])
    assert 0 < shares["undecided"] < 1
    assert shown[0].status == "stopped" and "every decided box is kept" in shown[0].ending


def test_the_panels_stop_speaks_of_a_certification_and_its_boxes(shown):
    """Its tooltip and hint said "End the search; every pair found so far is kept" (a search's words)."""
    certify(*_problem(), enumerate_at=1)
    words = shown[0].stop_words
    assert set(words) == {"tip", "blocked", "hint"}
    for text in words.values():
        assert "certification" in text and "every box decided so far is kept" in text
        assert "search" not in text and "pair" not in text
    assert ProgressPanel(None).stop_words == {}          # a search's panel keeps the front end's own words


def test_progress_false_shows_nothing(shown):
    assert certify(*_problem(), enumerate_at=1, progress=False).status == "completed"
    assert shown == []


def test_the_panels_strings_are_escaped():
    panel = ProgressPanel()
    panel(Progress("step", 1.0, 3, {"certified": 0.5, "falsified": 0.25, "undecided": 0.25}))
    panel.stats = [[EVIL, EVIL]]
    page = panel.static_html()
    assert EVIL not in page and page.count("&lt;img src=x onerror=alert(1)&gt;") == 2


def test_a_script_imports_no_widget():
    code = ("import sys, numpy as np; from fairnb.certification import certify;"
            "from fairnb.domains import Feature, TabularDomain; from fairnb.models import NumpyMLP;"
            "dom = TabularDomain([Feature('x', 0, 9), Feature('sex', 0, 1)], protected=['sex']);"
            "before = set(sys.modules);"
            "certify(NumpyMLP([np.array([[1.0], [0.0]])], [np.array([-4.5])]), dom);"
            "print(sorted(m for m in set(sys.modules) - before if any(w in m for w in ('widget', 'traitlets', 'IPython'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_an_error_in_certify_shows_on_the_panel(shown):
    def broken(progress):
        raise RuntimeError("listener broke")

    with pytest.raises(RuntimeError, match="listener broke"):
        certify(*_problem(), enumerate_at=1, listeners=[broken])
    assert shown[0].status == "failed" and "listener broke" in shown[0].message
