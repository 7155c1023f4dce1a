"""A search that blocks its notebook cell, in a real ipykernel (no browser): the kernel keeps saying "busy"
while it runs, and a Stop sent as a widget message on the main shell (no subshell) ends it, keeping its pairs;
the same for ``fairnb.certify``, keeping its decided boxes."""
from __future__ import annotations

import os
import queue
import time
from pathlib import Path

import pytest

jupyter_client = pytest.importorskip("jupyter_client")

ROOT = Path(__file__).resolve().parents[1]
SETUP = """
import fairnb
from fairnb.search import RandomSearch
data = fairnb.datasets.make_synthetic(n=500, random_state=0)
model = data.info["true_model"]
"""


@pytest.fixture
def kernel(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "IPYTHONDIR": str(tmp_path / "ipython"), "MPLBACKEND": "agg"}
    manager = jupyter_client.KernelManager(kernel_name="python3")    # ipykernel's own: this Python
    manager.start_kernel(env=env, cwd=str(tmp_path))
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    reply = client.execute_interactive(SETUP, timeout=120)
    assert reply["content"]["status"] == "ok", reply["content"]
    client.manager = manager
    yield client
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def _messages(client, parent_id, until: float):
    """The iopub messages answering ``parent_id``, until the cell's "idle" (or the deadline)."""
    while time.monotonic() < until:
        try:
            msg = client.get_iopub_msg(timeout=1)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != parent_id:
            continue
        yield msg
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return


@pytest.mark.parametrize("start, end", [("run", "stop"), ("start_wait", "stop"), ("run", "interrupt")])
def test_a_blocking_search_says_busy_and_hears_stop(kernel, start, end):
    call = {"run": "result = search.run(model, data.domain)",
            "start_wait": "result = search.start(model, data.domain).wait()"}[start]
    code = ("search = RandomSearch(n_samples=None, max_time=120, batch_size=100, random_state=0)\n"
            f"{call}\nprint('ended', result.status, result.count())")
    words = _ended_while_busy(kernel, code, end).split()
    # it ended well before its 120 s budget, as asked
    assert words[:2] == ["ended", {"stop": "stopped", "interrupt": "interrupted"}[end]], words
    assert int(words[2]) > 0                                 # the pairs found are kept


CERTIFY = """
import numpy as np
from fairnb.domains import Feature, TabularDomain
from fairnb.models import NumpyMLP
rng = np.random.default_rng(0)
dom = TabularDomain([*(Feature(f"x{i}", 0, 1000) for i in range(6)), Feature("sex", 0, 1)], protected=["sex"])
net = NumpyMLP([rng.normal(size=(7, 64)), rng.normal(size=(64, 64)), rng.normal(size=(64, 1))],
               [rng.normal(size=64), rng.normal(size=64), rng.normal(size=1)])
cert = fairnb.certify(net, dom, max_time=120, max_boxes=None, batch_size=64)
decided = sum(len(cert.boxes[v][0]) for v in ("certified", "falsified"))
print("ended", cert.status, decided, cert.summary()["undecided_share"] < 1)
"""


def test_certify_blocking_its_cell_says_busy_and_hears_stop(kernel):
    words = _ended_while_busy(kernel, CERTIFY, "stop").split()
    assert words[:2] == ["ended", "stopped"] and int(words[2]) > 0 and words[3] == "True", words


def _ended_while_busy(kernel, code: str, end: str) -> str:
    """Run ``code`` in a cell; once its panel is shown (Stop offered) and the cell has said "busy" again, end it
    by a Stop click on the main shell (``end="stop"``) or by interrupting the kernel; the cell's printed output."""
    cell = kernel.execute(code)
    busy, panel, ended, out = 0, None, False, ""
    for msg in _messages(kernel, cell, time.monotonic() + 100):
        kind, content = msg["msg_type"], msg["content"]
        if kind == "comm_open" and "stop_requested" in content["data"].get("state", {}):
            panel = content["comm_id"]
            assert content["data"]["state"]["stoppable"] is True      # the button is offered
        elif kind == "status" and content["execution_state"] == "busy":
            busy += 1
        elif kind == "stream":
            out += content["text"]
        if panel is not None and busy >= 4 and not ended:          # the cell has said "busy" again, twice a second
            if end == "stop":                                      # a Stop click, on the main shell
                kernel.shell_channel.send(kernel.session.msg("comm_msg", {"comm_id": panel, "data": {
                    "method": "update", "state": {"stop_requested": True}, "buffer_paths": []}}))
            else:                                                  # the notebook's "interrupt the kernel"
                kernel.manager.interrupt_kernel()
            ended = True
    assert ended, f"the kernel said 'busy' {busy} time(s) while the cell ran (panel: {panel})"
    return out


def test_a_search_in_a_script_does_not_import_ipython():
    """Outside a kernel there is nothing to announce: ``run()`` imported IPython to find out (0.1 s idle, more under
    load, inside the first search's wall time), and a Ctrl-C during that import escaped ``run()``."""
    import subprocess
    import sys

    code = SETUP + ("import sys; RandomSearch(n_samples=500, random_state=0, progress=False).run(model, data.domain); "
                    "print('IPython' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "False", out.stdout + out.stderr[-2000:]
