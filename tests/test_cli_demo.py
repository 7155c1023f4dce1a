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
    # the ground-truth check first, then the summary with human labels and formatted numbers
    assert page.index("Checked against the planted ground truth") < page.index("<h2>Summary</h2>")
    assert "unique_idis_eidig" not in page and "success_rate" not in page
    assert f"{random['tried']:,}" in page and "background-color: #ffe8a3" in page


def test_report_examples_tell_methods_apart(synthetic, biased_model, tmp_path):
    """Methods that share seeds (ADF and NeuronFair, EIDIG and MAFT) or first random draws (random and
    AEQUITAS) find the same first pairs, the seeds that are discriminatory as they are: the report's
    examples are the ones each method found and the others did not."""
    import re

    import numpy as np

    from fairnb.report import example_ids, write_report
    from fairnb.search import get_method

    X_train = synthetic.split()[0]
    runs = [get_method(m)(max_tried=4000, random_state=0, progress=False).run(biased_model, synthetic.domain, X_train)
            for m in ("adf", "neuronfair", "eidig", "maft")]
    assert np.array_equal(runs[0].inputs[:8], runs[1].inputs[:8])      # the misleading first rows
    assert np.array_equal(runs[2].inputs[:8], runs[3].inputs[:8])
    ids = example_ids(runs)
    shown = [{x.tobytes() for x in r.inputs[i]} for r, i in zip(runs, ids)]
    assert all(len(i) == 8 for i in ids)
    assert not shown[0] & shown[1] and not shown[2] & shown[3]
    page = write_report(runs, tmp_path, title="t").read_text()
    tables = re.findall(r"<h2>Examples found by .*?</table>", page, re.S)
    assert len(tables) == 4 and len(set(re.sub(r"T_\w+", "", t.split("</h2>")[1]) for t in tables)) == 4


def test_cli_demo_prints_json_last(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "r"), "--seconds", "0.5"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    line = json.loads(last)
    assert line["methods"]["random"]["unique_idis_eidig"] > 0
    assert len(last) < 2000    # a line a person reads; every number is in the file it names
    whole = json.loads(open(line["summary"]).read())
    assert whole["methods"]["random"]["unique_idis_eidig"] == line["methods"]["random"]["unique_idis_eidig"]
    assert {"natural_high", "tried", "status"} <= set(whole["methods"]["random"])


def test_cli_errors_are_clear(capsys):
    assert main(["evaluate", "--dataset", "nope", "--model", "x.h5", "--data-dir", "/nonexistent"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fairnb evaluate: error:")


def test_console_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "fairnb.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "demo" in out.stdout and "groups" in out.stdout
