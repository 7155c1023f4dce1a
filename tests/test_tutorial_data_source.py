"""The tutorial says truthfully where its data came from: a data folder, the UCI download, or (offline)
fairnb's synthetic data, said loudly, not a silent fallback under a text about census and gender."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "01_tabular_quickstart.ipynb"


def _run_data_cells(monkeypatch, data_dir) -> str:
    cells = [c for c in json.loads(NOTEBOOK.read_text())["cells"] if c["cell_type"] == "code"]
    settings, data = ("".join(c["source"]) for c in cells[:2])
    assert "SMOKE" in settings and "obtain" in data
    if data_dir is None:
        monkeypatch.delenv("FAIRNB_DATA", raising=False)
    else:
        monkeypatch.setenv("FAIRNB_DATA", str(data_dir))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(settings + "\n" + data, str(NOTEBOOK), "exec"), {})
    return out.getvalue()


def test_offline_the_tutorial_says_it_uses_synthetic_data(monkeypatch, tmp_path):
    from fairnb import store

    def offline(url, *args, **kwargs):
        raise store.DownloadError(f"could not download {url} (no network)")

    monkeypatch.setenv("FAIRNB_CACHE", str(tmp_path))
    monkeypatch.delenv("FAIRNB_DOWNLOAD", raising=False)
    monkeypatch.setattr(store, "fetch_verified", offline)
    printed = _run_data_cells(monkeypatch, None)
    assert "Data: SYNTHETIC census-like data" in printed and "no network" in printed
    assert "Protected attribute: sex" in printed


@pytest.mark.shared
def test_with_a_data_folder_the_tutorial_says_census(monkeypatch, data_dir):
    printed = _run_data_cells(monkeypatch, data_dir)
    assert f"Data: census, read from the data folder {data_dir}" in printed and "Protected attribute: gender" in printed
