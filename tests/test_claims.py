import json

import numpy as np
import pytest

from fairnb import claims
from fairnb.claims import ask, claim


def test_a_claim_the_run_bears_out_says_so_and_one_it_does_not_says_so_plainly(capsys):
    assert claim("A is larger", 3 > 2, evidence="3 against 2").holds
    assert not claim("A is smaller", np.float64(3) < 2, evidence="3 against 2").holds
    out = capsys.readouterr().out.splitlines()
    assert out == ["✓ This run shows it: A is larger (3 against 2).",
                   "✗ This run does not show it: A is smaller (3 against 2)."]
    assert [c.text for c in claims.recorded()[-2:]] == ["A is larger", "A is smaller"]


def test_each_check_is_appended_to_the_file_that_FAIRNB_CLAIMS_names(tmp_path, monkeypatch):
    log = tmp_path / "claims.jsonl"
    monkeypatch.setenv("FAIRNB_CLAIMS", str(log))
    monkeypatch.setenv("FAIRNB_SMOKE", "1")
    claim("first", True)
    claim("second", False, evidence="0 pairs")
    ask("third", False)
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert rows == [{"text": "first", "holds": True, "evidence": "", "asked": False, "smoke": True},
                    {"text": "second", "holds": False, "evidence": "0 pairs", "asked": False, "smoke": True},
                    {"text": "third", "holds": False, "evidence": "", "asked": True, "smoke": True}]


@pytest.mark.parametrize("holds", [1, 0.5, "yes", None, np.array([True, False])])
def test_holds_must_be_the_checks_bool(holds):
    with pytest.raises(TypeError, match="holds must be"):
        claim("something", holds)


def test_an_empty_claim_is_refused():
    with pytest.raises(ValueError, match="text must say"):
        claim("  ", True)


def test_a_question_asked_of_the_run_prints_its_answer_and_is_marked_asked(capsys):
    assert ask("the tone matters beyond exposure", np.bool_(True), evidence="apart").asked
    assert not ask("ADF beats random here", False).holds
    assert capsys.readouterr().out.splitlines() == [
        "? Asked of this run: the tone matters beyond exposure? Yes (apart).",
        "? Asked of this run: ADF beats random here? No, not shown."]
    with pytest.raises(TypeError, match="ask: holds must be"):
        ask("something", 1)
