"""Claims a tutorial makes, checked on the run they sit beside.

A tutorial's text must not hold a number or a comparison that its own run can contradict. Where the text wants to
say what the run shows ("the biased model's natural rate sits above its control's"), a cell states the claim with
``claim``, decides it from this run's numbers, and prints plainly whether this run shows it, with the evidence.
Each check is recorded: ``recorded()`` lists this process's, and when the environment variable ``FAIRNB_CLAIMS``
names a file, each check is also appended to it as one JSON line (``benchmarks/tutorial_claims.py`` runs the
tutorials in full mode and tabulates them).

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

    def __str__(self) -> str:
        verdict = "✓ This run shows it" if self.holds else "✗ This run does not show it"
        evidence = f" ({self.evidence})" if self.evidence else ""
        return f"{verdict}: {self.text}{evidence}."


def claim(text: str, holds, evidence: str = "") -> Claim:
    """Check the claim ``text`` on this run: ``holds`` is the comparison made on the run's numbers (a bool),
    ``evidence`` the numbers in words. Prints the verdict, records it, and returns the ``Claim``.

    >>> claim("the search found pairs", 0 > 0, evidence="0 pairs").holds
    ✗ This run does not show it: the search found pairs (0 pairs).
    False
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("claim: text must say what is claimed, as a non-empty string")
    if not isinstance(holds, (bool, np.bool_)):
        raise TypeError(f"claim: holds must be the claim's check on this run's numbers, a bool; got "
                        f"{type(holds).__name__}")
    checked = Claim(text.strip(), bool(holds), str(evidence))
    _RECORDED.append(checked)
    print(checked)
    log = os.environ.get("FAIRNB_CLAIMS")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({**asdict(checked), "smoke": os.environ.get("FAIRNB_SMOKE") == "1"}) + "\n")
    return checked


def recorded() -> list[Claim]:
    """The claims checked in this process so far, in order."""
    return list(_RECORDED)
