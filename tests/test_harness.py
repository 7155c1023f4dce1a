"""The harness (issue #26 item 8): methods x models x protected attributes x repeats in one table, every pair
re-checked outside the search, a method that cannot run on a model reported instead of ending the grid, and the
same numbers from ``fairnb bench --model`` as from Python."""
from __future__ import annotations

import json

import joblib
import numpy as np
from sklearn.linear_model import LogisticRegression

from fairnb.cli import main
from fairnb.datasets import from_csv
from fairnb.harness import markdown_grid, run_grid, summarise_grid
from test_own_data import make_table


def test_grid_of_methods_models_and_attributes_with_checks_and_refusals(synthetic, biased_model, fair_model):
    X, _, y, _ = synthetic.split()
    models = {"biased": biased_model, "fair": fair_model, "logistic": LogisticRegression(max_iter=500).fit(X, y)}
    rows = run_grid("kosei[n_seeds=200;n_local=100],adf[n_seeds=20;n_local=10]", models, synthetic,
                    ["sex", ("sex", "race")], repeats=2)
    done = rows[rows.status == "completed"]
    assert len(done) == 3 * 2 * 2 * 2 - 4     # models x attributes x methods x repeats, less adf on the black box
    refused = rows[rows.status.str.startswith("refused")]
    assert set(refused.model) == {"logistic"} and set(refused.method) == {"adf[n_seeds=20;n_local=10]"}
    assert len(refused) == 2 and refused.status.str.contains("gradient").all()
    assert (done.valid_share.dropna() == 1).all() and (done.rechecked_share.dropna() == 1).all()
    assert {"unique_idi_pairs", "precision", "coverage_2", "coverage_4", "diversity_distance"} <= set(done.columns)
    found = done[done.protected == "sex"].groupby("model").unique_idis_eidig.sum()   # the fair model ignores sex
    assert found["fair"] == 0 and found["biased"] > 0
    assert set(rows[rows.protected == "sex+race"].model) == set(models)
    summary = summarise_grid(rows)
    kosei = summary[(summary.model == "biased") & (summary.protected == "sex") & summary.method.str.startswith("kosei")]
    assert kosei.repeats.item() == 2 and kosei.unique_idis_eidig_sd.item() >= 0
    assert kosei.unique_idis_eidig.item() == done[(done.model == "biased") & (done.protected == "sex")
                                                  & done.method.str.startswith("kosei")].unique_idis_eidig.mean()
    table = markdown_grid(summary)
    assert table.count("\n") == len(summary) + 2 and "refused" in table and "coverage_4" in table


def test_bench_with_your_own_models_on_the_command_line(tmp_path, capsys):
    csv = tmp_path / "hiring.csv"
    make_table().to_csv(csv, index=False)
    data = from_csv(csv, label="hired", protected="sex", continuous={"income": 0.5})
    X_train, _, y_train, _ = data.split()
    model = tmp_path / "model.joblib"
    joblib.dump(LogisticRegression(max_iter=1000).fit(X_train, y_train), model)
    args = ["bench", "--csv", str(csv), "--label", "hired", "--step", "income=0.5", "--model", f"lr={model}",
            "--protected", "sex", "--methods", "kosei[n_seeds=100;n_local=20]", "--out", str(tmp_path / "out")]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    python = summarise_grid(run_grid("kosei[n_seeds=100;n_local=20]", {"lr": joblib.load(model)}, data, ["sex"]))
    assert summary["results"][0]["unique_idis_eidig"] == python.unique_idis_eidig.item()
    assert (tmp_path / "out" / "grid.md").read_text().count("| lr | sex |") == 1
    assert main(["bench", "--model", str(model), "--protected", "sex"]) == 2
    assert "--dataset NAME or --csv FILE" in capsys.readouterr().err
    assert main(["bench", "--benchmark", "C-g", "--model", str(model)]) == 2
    assert "either --benchmark" in capsys.readouterr().err
    assert np.isfinite(python.elapsed_s.item())
