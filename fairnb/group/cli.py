"""``fairnb groups``: TestSGD on a benchmark data set (or your own CSV) and a saved model, from the command line.

``fairnb groups --dataset census --model adult_model.h5 --sensitive race,gender,age --continuous age``
prints the summary (top rule set, its score and error bound, rule sets scored, seconds) as the last
JSON line; ``--json FILE`` also writes every scored rule set.

>>> from argparse import Namespace
>>> _tester(Namespace(continuous="age", theta=0.1, random_state=1))
TestSGD(continuous=['age'], random_state=1, theta=0.1)
"""
from __future__ import annotations

from .testsgd import TestSGD


def _tester(args) -> TestSGD:
    cont = getattr(args, "continuous", "auto") or "auto"
    cont = cont if cont == "auto" else [c.strip() for c in cont.split(",") if c.strip()]
    return TestSGD(theta=getattr(args, "theta", 0.05), continuous=cont,
                   random_state=getattr(args, "random_state", 0))


def run_from_cli(args, data) -> dict:
    """Run TestSGD on ``data`` for parsed ``fairnb groups`` arguments; returns the JSON-ready summary."""
    from .. import models

    model = models.load_model(args.model)
    result = _tester(args).run(model, data, sensitive=args.sensitive)
    summary = {"dataset": data.name, "model": str(args.model), **result.summary()}
    if args.json:
        summary["saved"] = str(result.save(args.json))
    return summary
