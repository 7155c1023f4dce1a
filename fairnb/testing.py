"""A fairness gate for CI: pytest helpers and the rule ``fairnb check`` exits by.

The rule (:class:`Gate`), on a model re-checked on a saved suite (``fairnb.check``):

* **natural rate**: fail when the lower end of the 95 % Wilson interval of the natural rate (the share of the
  inputs the search checked as they are, the data's rows, discriminatory on the model) is above ``natural_limit`` (default 0.05). This is a
  one-sided test of "the model's natural rate is at most the limit" at level 2.5 %: a model whose true rate is
  at the limit fails 2.4 % to 2.9 % of the time (exact binomial, 100 to 10,000 seeds), one below it less often, and a model well above it
  (the rate of a biased model on seeds that found discrimination) fails nearly always once a few hundred seeds
  are checked. Read the limit beside a control's rate (a model without the bias: its natural rate is boundary
  noise);
* **pairs**: fail when more than ``max_still`` of the suite's pairs still discriminate (either way); off by
  default (``None``), since a retrained model legitimately moves some decisions near its threshold.

:func:`assert_fair` raises an ``AssertionError`` that says which rule failed and shows the worst pairs;
:func:`suite_fixture` makes a pytest fixture of a saved suite (verified once per test session).

Example
-------
>>> import fairnb, tempfile, os
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> biased = fairnb.train_demo_model(data, random_state=0)
>>> r = fairnb.run_search(biased, data.domain, method="aequitas", n_seeds=200, n_local=20, random_state=0,
...                       seeds=data.seed_inputs())
>>> path = r.save_suite(os.path.join(tempfile.mkdtemp(), "suite.parquet"))
>>> assert_fair(fairnb.train_demo_model(data, ignore_protected=True, random_state=0), path).counts()["still"]
0
>>> Gate().failures(fairnb.check(biased, path))[0][:64]
'natural rate: the 95 % interval of the share of the 1,558 inputs'
"""
from __future__ import annotations

from dataclasses import dataclass

from .summaries import fmt_share


@dataclass(frozen=True)
class Gate:
    """The pass/fail rule of a suite check (see the module docstring); ``None`` switches a rule off."""

    natural_limit: float | None = 0.05
    max_still: int | None = None

    def __post_init__(self):
        if self.natural_limit is not None and not 0 <= self.natural_limit < 1:
            raise ValueError(f"natural_limit must be a share in [0, 1), got {self.natural_limit!r}")
        if self.max_still is not None and (isinstance(self.max_still, bool) or int(self.max_still) != self.max_still
                                           or self.max_still < 0):
            raise ValueError(f"max_still must be a number of pairs >= 0, got {self.max_still!r}")

    def failures(self, checked) -> list[str]:
        """Why ``checked`` (a ``fairnb.suites.SuiteCheck``) fails the gate, one sentence per rule; ``[]`` if it
        passes."""
        out = []
        n, c = checked.natural(), checked.counts()
        if self.natural_limit is not None and n.get("natural_low", 0) > self.natural_limit:
            out.append(f"natural rate: the 95 % interval of the share of the {n['natural_n']:,} inputs discriminatory "
                       f"as they are, {fmt_share(n['natural_low'])} to {fmt_share(n['natural_high'])} (rate "
                       f"{fmt_share(n['natural_rate'])}), lies above the limit {fmt_share(self.natural_limit)}")
        if self.max_still is not None and c["still"] > self.max_still:
            out.append(f"pairs: {c['still']:,} of the suite's {c['pairs']:,} pairs still discriminate ({c['same']:,} "
                       f"the same way, {c['reversed']:,} reversed), more than the {self.max_still:,} allowed")
        return out

    def message(self, checked, show: int = 5) -> str:
        """The failures and the ``show`` worst pairs that still discriminate, as a test failure shows them."""
        text = "\n".join([f"the model fails the fairness gate on suite {checked.path or '(in memory)'} (found by {checked.method}):",
                          *(f"  - {f}" for f in self.failures(checked))])
        worst = checked.worst(show)
        if len(worst):
            text += f"\nthe {len(worst)} pairs that still discriminate most (p: probability of class 1):\n"
            text += worst.drop(columns=["label", "label'", "difference", "near_threshold", "material", "phase", "seed",
                                        "time"], errors="ignore").to_string(max_colwidth=40)
        return text


def assert_fair(model, suite, *, natural_limit: float | None = 0.05, max_still: int | None = None,
                show: int = 5):
    """Re-check ``model`` on ``suite`` (``fairnb.check``) and raise ``AssertionError`` when it fails the
    :class:`Gate` (the message names the rules that failed and shows the ``show`` worst pairs); returns the
    ``SuiteCheck`` otherwise."""
    from .suites import check

    gate = Gate(natural_limit, max_still)
    checked = check(model, suite)
    if gate.failures(checked):
        raise AssertionError(gate.message(checked, show))
    return checked


def suite_fixture(path, *, name: str | None = None, scope: str = "session"):
    """A pytest fixture giving the suite saved at ``path`` (loaded and verified once per ``scope``); put it in a
    ``conftest.py``: ``heart_suite = suite_fixture("suites/heart.parquet")``, then
    ``def test_fair(heart_suite): assert_fair(load_model("heart.h5"), heart_suite)``."""
    import pytest

    from .suites import load_suite

    def fixture():
        return load_suite(path)

    return pytest.fixture(scope=scope, name=name)(fixture)
