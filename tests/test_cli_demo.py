import json
import subprocess
import sys

from fairnb.cli import main
from fairnb.demo import run_demo


def test_demo_writes_report_and_finds_planted_discrimination(tmp_path):
    summary = run_demo(tmp_path / "rep", seconds=1.0, quiet=True)
    page = (tmp_path / "rep" / "index.html").read_text()
    assert (tmp_path / "rep" / "timeline.png").stat().st_size > 5_000
    assert "Summary" in page and "<img" in page
    random = summary["methods"]["random"]
    assert random["unique_idis_eidig"] > 100
    # most findings are real under the planted ground truth (the model only approximates it)
    assert random["share_confirmed_by_ground_truth"] > 0.5


def test_cli_demo_prints_json_last(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "r"), "--seconds", "0.5"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert json.loads(last)["methods"]["random"]["unique_idis_eidig"] > 0


def test_cli_errors_are_clear(capsys):
    assert main(["evaluate", "--dataset", "nope", "--model", "x.h5", "--data-dir", "/nonexistent"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fairnb evaluate: error:")


def test_console_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "fairnb.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "demo" in out.stdout and "groups" in out.stdout
