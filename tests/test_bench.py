"""fairnb bench: method-generic budgets, method specs, the published benchmarks, reports and the CLI."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from fairnb import bench
from fairnb.cli import main
from fairnb.search import get_method


def test_budget_mapping_is_method_generic():
    for name in ("adf", "eidig", "maft", "neuronfair"):
        params = bench.method_params(get_method(name), seeds=30, local=7, max_time=None)
        assert params == {"n_seeds": 30, "n_local": 7, "seed_selection": "as_given"}
    assert bench.method_params(get_method("aequitas"), seeds=30, local=7, max_time=5.0) == {
        "max_time": 5.0, "n_seeds": 30, "n_local": 7}
    assert bench.method_params(get_method("random"), seeds=30, local=7, max_time=None) == {"n_samples": 210}
    assert bench.method_params(get_method("random"), seeds=30, local=7, max_time=2.0) == {
        "max_time": 2.0, "n_samples": None}

    class OwnBudget:
        @classmethod
        def bench_params(cls, *, seeds, local, max_time):
            return {"limit": seeds + local}

    assert bench.method_params(OwnBudget, seeds=3, local=4, max_time=None) == {"limit": 7}


def test_method_specs():
    assert bench.parse_methods("eidig[update_interval=inf;decay=0.3],maft") == [
        ("eidig[update_interval=inf;decay=0.3]", "eidig", {"update_interval": float("inf"), "decay": 0.3}),
        ("maft", "maft", {})]
    for bad in ("adf[acceptance]", "adf[acceptance=all", "adf]"):
        with pytest.raises(ValueError):
            bench.parse_methods(bad)


@pytest.mark.shared
def test_unknown_benchmark_and_missing_models(monkeypatch, data_dir):
    with pytest.raises(ValueError, match="unknown benchmark"):
        bench.load_benchmark("X-y", data_dir=data_dir, models_dir=".")
    monkeypatch.delenv("FAIRNB_MODELS", raising=False)
    with pytest.raises(ValueError, match="models"):
        bench.load_benchmark("C-g", data_dir=data_dir)


@pytest.mark.shared
def test_seeds_come_from_the_published_training_split(data_dir, models_dir):
    """MAFT/EIDIG draw seeds from X_train after the test AND validation rows are set aside (census, bank:
    64/16/20; german: 60/40; digest maft.md 3.3 gives bank's X_train = 28,934)."""
    sizes = {}
    for name in ("C-g", "G-g", "B-a"):
        _, data, _, X_train = bench.load_benchmark(name, data_dir=data_dir, models_dir=models_dir)
        sizes[name] = len(X_train)
        assert X_train.shape[1] == data.domain.n_features
    assert sizes == {"C-g": 31258, "G-g": 600, "B-a": 28934}


@pytest.mark.shared
@pytest.mark.slow
def test_published_benchmark_rows_and_reports(tmp_path, data_dir, models_dir):
    rows = bench.run_benchmark("C-g", "adf,eidig,maft,neuronfair[local=reference]", seeds=30, local=20,
                               data_dir=data_dir, models_dir=models_dir)
    assert list(rows.columns) == bench.COLUMNS
    assert rows["method"].tolist() == ["adf", "eidig", "maft", "neuronfair[local=reference]"]
    assert (rows["unique_idis"] > 0).all() and (rows["status"] == "completed").all()
    assert (rows["unique_idis"] <= rows["generated"]).all()
    assert (rows["global_idis"] <= 30).all()
    files = bench.write_reports(rows, tmp_path, "cg", command="fairnb bench ...")
    assert pd.read_csv(files["csv"]).shape == rows.shape
    text = open(files["markdown"]).read()
    assert "| C-g | eidig | 30 x 20 | 1 |" in text and "load average" in text


@pytest.mark.shared
@pytest.mark.slow
def test_cli_prints_one_line_json_last(tmp_path, capsys, data_dir, models_dir):
    out_json = tmp_path / "cg.json"
    code = main(["bench", "--benchmark", "C-g", "--methods", "adf,eidig,neuronfair,maft", "--seeds", "20",
                 "--local", "10", "--json", str(out_json), "--data-dir", str(data_dir), "--models-dir",
                 str(models_dir), "--out", str(tmp_path)])
    assert code == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    summary = json.loads(last)
    assert set(summary["results"]["C-g"]) == {"adf", "eidig", "neuronfair", "maft"}
    assert summary["results"]["C-g"]["eidig"]["unique_idis"] > 0
    full = json.loads(out_json.read_text())
    assert len(full["rows"]) == 4 and "machine" in full
    assert (tmp_path / "bench_C-g_20x10.md").exists()


@pytest.mark.shared
@pytest.mark.slow
def test_time_budget_for_any_registered_method(data_dir, models_dir):
    rows = bench.run_benchmark("G-g", ["random", "eidig"], seeds=50, local=5000, max_time=0.5,
                               data_dir=data_dir, models_dir=models_dir)
    random_row = rows[rows.method == "random"].iloc[0]
    assert random_row["status"] == "budget" and 0.5 <= random_row["elapsed_s"] < 3
    assert (rows["elapsed_s"] < 3).all()


@pytest.mark.shared
@pytest.mark.slow
def test_maft_artifact_is_reproduced_with_the_settings_it_ran(data_dir, models_dir):
    """MAFT's published 1000 x 1000 run (digest maft.md 4.7) had decay 1 and MAFT h = 1e-4 (its driver passed
    the perturbation size positionally into ``decay``); German uses all 600 training rows as seeds, so
    only the local walks are random, and fairnb lands within 5 % of the artifact's counts."""
    labels = [bench.EIDIG_ARTIFACT, bench.MAFT_ARTIFACT]
    rows = bench.run_benchmark("G-g", ",".join(labels), seeds=1000, local=1000,
                               data_dir=data_dir, models_dir=models_dir)
    for label, found in zip(rows["method"], rows["unique_idis"]):
        published = bench.REFERENCE[("G-g", label, 1000, 1000)][0]
        assert abs(found / published - 1) < 0.05, (label, found, published)


@pytest.mark.shared
@pytest.mark.slow
def test_a_control_model_gives_its_natural_rate_beside_the_published_models(tmp_path, data_dir, models_dir, capsys):
    # issue #38: the command line had no --control
    import joblib
    from sklearn.linear_model import LogisticRegression

    _, data, _, X_train = bench.load_benchmark("G-g", data_dir=data_dir, models_dir=models_dir)
    X, _, y, _ = data.split()
    blind = X.copy()
    blind[:, data.domain.protected[0]] = 0           # never reads PersonStatusSex
    joblib.dump(LogisticRegression(max_iter=2000).fit(blind, y), tmp_path / "control.joblib")
    code = main(["bench", "--benchmark", "G-g", "--methods", "aequitas", "--seeds", "50", "--local", "5",
                 "--control", str(tmp_path / "control.joblib"), "--data-dir", str(data_dir), "--models-dir",
                 str(models_dir), "--out", str(tmp_path)])
    assert code == 0
    rows = pd.read_csv(tmp_path / "bench_G-g_50x5.csv")
    assert rows.control_natural_rate.tolist() == [0.0] and rows.natural_rate.iloc[0] > 0
    assert rows.material_pairs.iloc[0] <= rows.unique_idis.iloc[0]
