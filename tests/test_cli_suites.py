"""The command line of issue #38: ``search --suite --control``, ``check`` (exit 0 on a model that passes the
gate, 1 on one that fails, 2 on a refused file), ``card``, and ``bench --control`` whose grid shows material
pairs and the control's natural rate."""
from __future__ import annotations

import json

import joblib
import pandas as pd
import pytest
import yaml

from fairnb.cli import main
from fairnb.datasets import from_csv
from test_own_data import make_table


@pytest.fixture(scope="module")
def hiring(tmp_path_factory):
    """The hiring CSV (men favoured), a model trained on it and a fair one that never reads sex."""
    from sklearn.linear_model import LogisticRegression

    folder = tmp_path_factory.mktemp("cli_suites")
    csv = folder / "hiring.csv"
    make_table().to_csv(csv, index=False)
    data = from_csv(csv, label="hired", protected="sex", continuous={"income": 0.5})
    X, _, y, _ = data.split()
    sex = data.domain.index("sex")
    blind = X.copy()
    blind[:, sex] = 0                     # a constant column: its coefficient stays exactly 0
    joblib.dump(LogisticRegression(max_iter=1000).fit(X, y), folder / "biased.joblib")
    joblib.dump(LogisticRegression(max_iter=1000).fit(blind, y), folder / "fair.joblib")
    return folder, ["--csv", str(csv), "--label", "hired", "--step", "income=0.5"]


def _last_json(capsys):
    captured = capsys.readouterr()
    return json.loads(captured.out.strip().splitlines()[-1]), captured.err


def test_search_saves_a_suite_and_check_passes_the_fair_model_and_fails_the_biased_one(hiring, capsys):
    folder, data = hiring
    suite, biased, fair = folder / "suite.parquet", str(folder / "biased.joblib"), str(folder / "fair.joblib")
    assert main(["search", *data, "--model", biased, "--protected", "sex", "--method",
                 "aequitas[n_seeds=200;n_local=20]", "--control", fair, "--suite", str(suite)]) == 0
    found, _ = _last_json(capsys)
    assert found["suite"] == str(suite) and found["control_natural_rate"] == 0.0 < found["natural_rate"]
    assert main(["check", "--suite", str(suite), "--model", fair]) == 0
    passed, err = _last_json(capsys)
    assert passed["passed"] and passed["fair"] == passed["pairs"] > 0 and passed["natural_rate"] == 0.0 and not err
    assert main(["check", "--suite", str(suite), "--model", biased, "--max-still", "0"]) == 1
    failed, err = _last_json(capsys)
    assert not failed["passed"] and failed["same"] == failed["pairs"] and len(failed["failures"]) == 2
    assert failed["natural_rate"] == found["natural_rate"] and "still discriminate most" in err
    assert main(["check", "--suite", str(suite), "--model", biased, "--natural-limit", "-1"]) == 0   # rules off
    capsys.readouterr()
    assert main(["check", "--suite", str(folder / "none.parquet"), "--model", fair]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["search", *data, "--model", biased, "--protected", "sex", "--control", str(folder / "x.joblib")]) == 2
    assert "--control" in capsys.readouterr().err


def test_card_writes_the_model_card_section_of_saved_results(hiring, capsys, tmp_path):
    folder, data = hiring
    saved = tmp_path / "found.parquet"
    assert main(["search", *data, "--model", str(folder / "biased.joblib"), "--protected", "sex", "--method",
                 "aequitas[n_seeds=100;n_local=10]", "--control", str(folder / "fair.joblib"), "--out", str(saved)]) == 0
    found, _ = _last_json(capsys)
    assert main(["card", str(saved), "--out", str(tmp_path / "card"), "--title", "hiring"]) == 0
    out, _ = _last_json(capsys)
    front = yaml.safe_load(open(out["markdown"]).read().split("---\n")[1])
    entry = front["fairness_testing"]["results"][0]
    assert {k: entry[k] for k in ("natural_rate", "control_natural_rate", "material_pairs")} == \
        {k: found[k] for k in ("natural_rate", "control_natural_rate", "material_pairs")}
    assert json.loads(open(out["json"]).read())["results"][0] == entry


def test_bench_grid_reports_material_pairs_and_the_controls_natural_rate(hiring, capsys, tmp_path):
    folder, data = hiring
    assert main(["bench", *data, "--model", f"biased={folder / 'biased.joblib'}", "--protected", "sex",
                 "--methods", "aequitas[n_seeds=100;n_local=10]", "--control", str(folder / "fair.joblib"),
                 "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    rows = pd.read_csv(tmp_path / "grid.csv")
    assert rows.control_natural_rate.tolist() == [0.0] and rows.material_pairs.iloc[0] > 0
    head = (tmp_path / "grid.md").read_text().split("| model |")[1].splitlines()[0]
    assert "control_natural_rate" in head and "material_pairs" in head
