"""Claims a tutorial makes, checked on the run they sit beside.

A tutorial's text must not hold a number or a comparison that its own run can contradict. Where the text wants to
say what the run shows ("the biased model's natural rate sits above its control's"), a cell states the claim with
``claim``, decides it from this run's numbers, and prints plainly whether this run shows it, with the evidence.
Each check is recorded: ``recorded()`` lists this process's, and when the environment variable ``FAIRNB_CLAIMS``
names a file, each check is also appended to it as one JSON line (``benchmarks/tutorial_claims.py`` runs the
tutorials in full mode and tabulates them).

A claim is what the text relies on: a run that does not show it contradicts the text, and the benchmark counts it.
Where the tutorial instead **asks** its run a question that either answer settles (does the detector react to the
tone itself, beyond exposure? does the paper's method beat random on this model?), ``ask`` states it: it prints the
run's answer, yes or no, and neither answer contradicts the text around it, which must read right either way.

Example
-------
>>> c = claim("the biased model has the higher natural rate", 0.034 > 0.015, evidence="3.4 % against 1.5 %")
✓ This run shows it: the biased model has the higher natural rate (3.4 % against 1.5 %).
>>> c.holds
True
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass

import numpy as np

_RECORDED: list["Claim"] = []


@dataclass(frozen=True)
class Claim:
    """One checked claim: its ``text``, whether this run's numbers bear it out (``holds``) and the ``evidence``."""

    text: str
    holds: bool
    evidence: str = ""
    asked: bool = False       # a question the tutorial asks of its run (``ask``), not a claim its text makes

    def __str__(self) -> str:
        evidence = f" ({self.evidence})" if self.evidence else ""
        if self.asked:
            return f"? Asked of this run: {self.text}? {'Yes' if self.holds else 'No, not shown'}{evidence}."
        verdict = "✓ This run shows it" if self.holds else "✗ This run does not show it"
        return f"{verdict}: {self.text}{evidence}."


def claim(text: str, holds, evidence: str = "") -> Claim:
    """Check the claim ``text`` on this run: ``holds`` is the comparison made on the run's numbers (a bool),
    ``evidence`` the numbers in words. Prints the verdict, records it, and returns the ``Claim``.

    >>> claim("the search found pairs", 0 > 0, evidence="0 pairs").holds
    ✗ This run does not show it: the search found pairs (0 pairs).
    False
    """
    return _checked("claim", text, holds, evidence, asked=False)


def ask(question: str, answer, evidence: str = "") -> Claim:
    """Ask this run ``question`` (said as the statement a yes would confirm), with ``answer`` the comparison made on
    the run's numbers (a bool): prints the run's answer, records it (``asked=True``: no answer contradicts the
    text) and returns it.

    >>> ask("the tone flip tips more faces than its exposure control", False, evidence="0.03 against 0.05").holds
    ? Asked of this run: the tone flip tips more faces than its exposure control? No, not shown (0.03 against 0.05).
    False
    """
    return _checked("ask", question, answer, evidence, asked=True)


def _checked(name: str, text, holds, evidence, asked: bool) -> Claim:
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{name}: text must say what is claimed or asked, as a non-empty string")
    if not isinstance(holds, (bool, np.bool_)):
        raise TypeError(f"{name}: holds must be the check on this run's numbers, a bool; got {type(holds).__name__}")
    checked = Claim(text.strip(), bool(holds), str(evidence), asked)
    _RECORDED.append(checked)
    print(checked)
    log = os.environ.get("FAIRNB_CLAIMS")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({**asdict(checked), "smoke": os.environ.get("FAIRNB_SMOKE") == "1"}) + "\n")
    return checked


def recorded() -> list[Claim]:
    """The claims checked and the questions asked in this process so far, in order."""
    return list(_RECORDED)
