"""The README's local start: ``make lab`` installs what the tutorials need and opens notebooks/ in JupyterLab.

Run as a user would, through make, in this checkout's environment (``VENV`` names the one running the tests, so a
clean clone's CI installs the ``lab`` extra into it once); the server is asked for its folder listing and stopped.
"""
from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_make_lab_starts_jupyterlab_on_the_tutorials(tmp_path):
    venv = Path(sys.prefix)
    port, token = _free_port(), secrets.token_hex(8)
    args = f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={token} --ServerApp.port_retries=0"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "JUPYTER_CONFIG_DIR": str(tmp_path)}
    log = open(tmp_path / "make-lab.log", "w+")
    proc = subprocess.Popen(["make", "-C", str(ROOT), "lab", f"VENV={venv}", f"LAB_ARGS={args}"], env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        listing, deadline = None, time.monotonic() + 600
        while listing is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents?token={token}", timeout=5) as r:
                    listing = json.load(r)
            except OSError:
                time.sleep(1)
        log.seek(0)
        assert listing is not None, f"JupyterLab did not answer; make lab printed:\n{log.read()[-3000:]}"
        names = {item["name"] for item in listing["content"]}
        tutorials = {p.name for p in (ROOT / "notebooks").glob("0*.ipynb")}
        assert len(tutorials) >= 8 and tutorials <= names
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token={token}", timeout=10) as r:
            assert r.status == 200 and b"JupyterLab" in r.read()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        log.close()
