"""Write docs/examples/MODEL_CARD.md and fairness.json, the example model card the documentation shows.

A census-like synthetic table with discrimination against sex planted in it (offline, no files needed), a model
trained on it, a control model that never reads sex, an AEQUITAS search with the control, and TestSGD over sex and
race: the card then has every section. Run from the repository root:

    python docs/examples/make_model_card.py
"""
from __future__ import annotations

from pathlib import Path

import fairnb
from fairnb.group import TestSGD
from fairnb.model_card import write_model_card
from fairnb.search import get_method


def example_results(n: int = 4000) -> list:
    """The search (with a control) and the TestSGD run whose numbers the example card reports."""
    data = fairnb.datasets.make_synthetic(n=n, random_state=0)
    biased = fairnb.train_demo_model(data, random_state=0)
    control = fairnb.train_demo_model(data, ignore_protected=True, random_state=0)
    search = get_method("aequitas")(n_seeds=300, n_local=20, random_state=0, control=control, progress=False).run(
        biased, data.domain, seeds=data.seed_inputs())
    groups = TestSGD(random_state=0).run(biased, data, sensitive=["sex", "race"])
    return [search, groups]


if __name__ == "__main__":
    out = Path(__file__).resolve().parent
    md, js = write_model_card(example_results(), out, title="demo census model (synthetic data, bias planted)")
    print(md, js)
