"""The command line on your own CSV (search, evaluate, groups), method specs in ``fairnb search``, and the
up-front checks of outputs and names: exit 2 with one line before any work."""
from __future__ import annotations

import json
import os

import joblib
import pytest

from fairnb.cli import main
from fairnb.datasets import from_csv
from test_own_data import make_table


@pytest.fixture(scope="module")
def own(tmp_path_factory):
    """A CSV with string, integer and float columns and a scikit-learn model trained on its encoding."""
    from sklearn.linear_model import LogisticRegression

    folder = tmp_path_factory.mktemp("cli")
    csv = folder / "hiring.csv"
    make_table().to_csv(csv, index=False)
    data = from_csv(csv, label="hired", protected="sex", continuous={"income": 0.5})
    X_train, _, y_train, _ = data.split()
    model = folder / "model.joblib"
    joblib.dump(LogisticRegression(max_iter=1000).fit(X_train, y_train), model)
    return folder, ["--csv", str(csv), "--label", "hired", "--step", "income=0.5", "--model", str(model)]


def _last_json(capsys):
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_seeds_on_the_command_line_means_what_n_seeds_means_in_python(own, capsys):
    """``--seeds N`` is the method's ``n_seeds`` over the whole training split, as in Python (it used to
    also cut the training split to its first N rows: H-a maft found 1,493 on the command line, 721 in Python)."""
    from fairnb.models import load_model
    from fairnb.search import get_method

    folder, args = own
    assert main(["search", *args, "--protected", "sex", "--method", "maft[n_local=5]", "--seeds", "30",
                 "--random-state", "0"]) == 0
    cli = _last_json(capsys)
    data = from_csv(folder / "hiring.csv", label="hired", protected="sex", continuous={"income": 0.5})
    python = get_method("maft")(n_seeds=30, n_local=5, random_state=0).run(load_model(args[-1]), data.domain,
                                                              seeds=data.domain.clip(data.seed_inputs()))
    assert cli["unique_idis_eidig"] == python.count() and cli["tried"] == python.tried
    for method in ("random", "aft"):          # their registry records say they take no seeds
        assert main(["search", *args, "--protected", "sex", "--method", method, "--seeds", "30"]) == 2
        assert f"{method!r} draws its own inputs (it takes no seeds); leave --seeds out" in capsys.readouterr().err
    assert main(["search", *args, "--protected", "sex", "--method", "limi", "--seeds", "30"]) == 2
    assert "has none" in capsys.readouterr().err


def test_a_method_that_takes_no_seeds_searches_from_the_command_line(own, capsys):
    """The command line gives the training split as seeds only to a method that takes them (AFT refuses them)."""
    _, args = own
    assert main(["search", *args, "--protected", "sex", "--method", "aft[n_loops=2;n_train=500]",
                 "--random-state", "0"]) == 0
    summary = _last_json(capsys)
    assert summary["method"] == "aft" and summary["loops"] == 2 and summary["tried"] > 0


def test_search_evaluate_and_groups_on_your_own_csv(own, capsys):
    folder, args = own
    out = folder / "pairs.csv"
    assert main(["search", *args, "--protected", "sex", "--method", "aequitas[n_local=20;n_seeds=100]",
                 "--random-state", "0", "--out", str(out)]) == 0
    summary = _last_json(capsys)
    assert summary["dataset"] == "hiring" and summary["method"] == "aequitas" and summary["seeds_used"] == 100
    assert summary["unique_idis_eidig"] > 0 and out.is_file()

    assert main(["search", *args, "--protected", "sex", "--method", "maft[n_local=5]", "--seeds", "30"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert summary["seeds_used"] == 30 and "n_seeds" not in captured.err      # --seeds is the method's n_seeds

    assert main(["evaluate", *args]) == 0
    summary = _last_json(capsys)
    assert summary["test_rows"] == 300 and summary["accuracy"] > 0.65

    assert main(["groups", *args, "--sensitive", "sex,job"]) == 0
    assert "sex" in _last_json(capsys)["top_rule_set"]


def _refused(argv, capsys, *needles):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    for needle in needles:
        assert needle in err
    return err


def test_outputs_and_names_are_checked_before_the_search_runs(own, capsys, tmp_path, monkeypatch):
    import fairnb

    folder, args = own
    monkeypatch.setattr(fairnb.models, "load_model", lambda *a, **k: pytest.fail("the model was loaded"))
    search = ["search", *args, "--protected", "sex"]
    _refused(search + ["--out", str(tmp_path / "pairs.txt")], capsys, "--out", "unknown extension '.txt'")
    _refused(search + ["--out", str(tmp_path / "missing" / "pairs.csv")], capsys, "does not exist")
    (tmp_path / "taken.csv").mkdir()
    _refused(search + ["--out", str(tmp_path / "taken.csv")], capsys, "is a folder")
    _refused(search + ["--method", "eidig[n_seed=5]"], capsys, "has no parameter 'n_seed'", "n_seeds")
    _refused(search + ["--method", "eidig,maft"], capsys, "give one")
    _refused(["groups", *args, "--sensitive", "sex", "--json", str(tmp_path / "x" / "all.json")], capsys, "--json")
    (tmp_path / "report").write_text("a file")
    _refused(["demo", "--out", str(tmp_path / "report")], capsys, "is a file, not a folder")
    _refused(["bench", "--benchmark", "C-g,X-y", "--seeds", "5", "--local", "5"], capsys, "unknown benchmark 'X-y'")
    _refused(["bench", "--benchmark", "C-g", "--out", str(tmp_path / "report")], capsys, "--out")
    _refused(["bench", "--benchmark", "C-g", "--methods", "adf,eidig[decay=2;n_local=x,", "--seeds", "5"], capsys,
             "unbalanced")
    _refused(["search", "--csv", args[1], "--model", "m.h5", "--protected", "sex"], capsys, "--csv needs --label")
    _refused(search + ["--step", "income"], capsys, "--step: expected column=number")
    _refused(["search", "--dataset", "census", "--label", "y", "--model", "m.h5", "--protected", "gender"], capsys,
             "--label describe your own table")


def test_an_unwritable_output_folder_is_refused(own, capsys, tmp_path, monkeypatch):
    folder, args = own
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if os.geteuid() == 0:       # root may write anywhere: let the permission check see what a user would
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(locked) else real_access(p, mode))
    _refused(["search", *args, "--protected", "sex", "--out", str(locked / "pairs.csv")], capsys, "not writable")
    _refused(["bench", "--benchmark", "C-g", "--out", str(locked / "reports")], capsys, "not writable")


@pytest.mark.tf
def test_search_your_own_csv_with_a_keras_h5_model(own, capsys):
    """The issue's command: ``fairnb search --csv data.csv --label y --protected sex --model m.h5``, with a
    gradient method (a Keras model saved by Keras 3 as .h5, read without TensorFlow)."""
    import keras

    folder, args = own
    data = from_csv(args[1], label="hired", protected="sex", continuous={"income": 0.5})
    keras.utils.set_random_seed(0)
    net = keras.Sequential([keras.Input((data.domain.n_features,)), keras.layers.Dense(8, activation="relu"),
                            keras.layers.Dense(1, activation="sigmoid")])
    net.compile(optimizer="adam", loss="binary_crossentropy")
    net.fit(data.X.to_numpy(float), data.y, epochs=3, verbose=0)
    net.save(folder / "m.h5")
    argv = ["search", "--csv", args[1], "--label", "hired", "--step", "income=0.5", "--protected", "sex",
            "--model", str(folder / "m.h5"), "--method", "eidig[n_local=20]", "--seeds", "50"]
    assert main(argv) == 0
    summary = _last_json(capsys)
    assert summary["method"] == "eidig" and summary["seeds_used"] == 50 and summary["tried"] > 0


@pytest.mark.shared
def test_search_a_benchmark_with_a_method_spec(data_dir, models_dir, capsys):
    argv = ["search", "--dataset", "census", "--data-dir", str(data_dir), "--model", str(models_dir / "adult_model.h5"),
            "--protected", "gender", "--method", "eidig[n_local=10;decay=1.0]", "--seeds", "20",
            "--validation-size", "0.2", "--random-state", "0"]
    assert main(argv) == 0
    summary = _last_json(capsys)
    assert summary["dataset"] == "census" and summary["method"] == "eidig" and summary["seeds_used"] == 20
    assert summary["unique_idis_eidig"] > 0


def test_a_csv_with_a_numeric_header_gets_its_names_on_the_command_line(own, tmp_path, capsys):
    """A table written from an array has the header ``0,1,2,...``: ``--names`` names its columns."""
    folder, args = own
    table = make_table()
    numeric = tmp_path / "numeric.csv"
    table.set_axis([str(i) for i in range(table.shape[1])], axis=1).to_csv(numeric, index=False)
    names = ",".join(table.columns)
    assert main(["search", "--csv", str(numeric), "--names", names, "--label", "hired", "--step", "income=0.5",
                 "--model", args[-1], "--protected", "sex", "--max-tried", "2000"]) == 0
    assert _last_json(capsys)["protected"] == ["sex"]
    _refused(["search", "--csv", str(numeric), "--names", "a,b", "--label", "hired", "--model", args[-1],
              "--protected", "sex"], capsys, "needs", "distinct names")
