"""Real-browser fixtures: a JupyterLab server started for the session, Debian's chromium driven by
Python playwright (never `playwright install`: the browser comes from `apt-get install chromium`).

Every test here is marked ``browser``; when chromium is missing they fail (they never skip), so CI
cannot pass without running them.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update"]


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.browser)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("chromium is not installed: `apt-get install -y chromium` (Debian); the browser tests need it")
    return path


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """A token-less JupyterLab server on a free port, serving a temporary folder; yields (url, folder)."""
    root = tmp_path_factory.mktemp("lab")
    home = tmp_path_factory.mktemp("jupyter")
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "IPYTHONDIR": str(home / "ipython"), "MPLBACKEND": "agg", "TF_CPP_MIN_LOG_LEVEL": "2"}
    log = open(home / "server.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
         "--ServerApp.token=", "--ServerApp.password=", "--ServerApp.allow_root=True",
         "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
         "--LabApp.news_url=None", f"--LabApp.user_settings_dir={home / 'settings'}",
         f"--LabApp.workspaces_dir={home / 'workspaces'}",
         # the same server serves Notebook 7 (the `notebook` package's server extension) at /notebooks/
         "--JupyterNotebookApp.expose_app_in_browser=True", f"--JupyterNotebookApp.user_settings_dir={home / 'settings'}",
         f"--JupyterNotebookApp.workspaces_dir={home / 'workspaces'}"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    news = home / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True)
    news.write_text('{"fetchNews": "false", "checkForUpdates": false}')
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"JupyterLab did not start:\n{(home / 'server.log').read_text()[-3000:]}")
            time.sleep(0.25)
    yield url, root
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
    log.close()


@pytest.fixture(scope="session")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(autouse=True)
def _shutdown_kernels(lab):
    """Each test's kernels end with it (a stopped search's kernel would otherwise keep its memory)."""
    yield
    url, _ = lab
    for kernel in json.loads(urllib.request.urlopen(f"{url}/api/kernels", timeout=10).read()):
        urllib.request.urlopen(urllib.request.Request(f"{url}/api/kernels/{kernel['id']}", method="DELETE"), timeout=30)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    dialogs = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    pg.dialogs = dialogs
    yield pg
    context.close()


@pytest.fixture
def run_notebook(page, lab):
    """``run_notebook(name, cells, app="lab")`` writes a notebook of code ``cells``, opens it in ``page``
    in JupyterLab (``app="lab"``) or Notebook 7 (``app="notebook"``, served by the same server) and runs
    all its cells."""
    return lambda name, cells, app="lab": _run_notebook(page, lab, name, cells, app)


APP_NAMES = {"lab": "JupyterLab", "notebook": "Jupyter Notebook"}
APPS = tuple(APP_NAMES)


def _run_notebook(page, lab, name: str, cells: list[str], app: str = "lab"):
    url, root = lab
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / name)
    if app == "lab":
        page.goto(f"{url}/lab/workspaces/{Path(name).stem}/tree/{name}?reset")  # a fresh workspace: only this notebook
    elif app == "notebook":
        page.goto(f"{url}/notebooks/{name}")
    else:
        raise ValueError(f"app must be one of {APPS}, got {app!r}")
    page.wait_for_function(f"window.jupyterapp && window.jupyterapp.name === {APP_NAMES[app]!r}")
    page.wait_for_function("window.jupyterapp.started")
    page.wait_for_function("""() => {
        const w = window.jupyterapp.shell.currentWidget;
        const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
        return Boolean(w && w.context && w.context.isReady && k && k.status === 'idle');
    }""")
    # not awaited: "Run All" resolves only when every cell has run, and a test may need to click meanwhile
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
