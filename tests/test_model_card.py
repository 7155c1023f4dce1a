"""The fairness-testing section of a model card (issue #38): ``write_report(..., format="model-card")`` writes YAML
front matter that ``yaml.safe_load`` reads and Markdown, and ``fairness.json`` with the same numbers, equal to each
Result's ``summary()``, for tabular, text, image and TestSGD results."""
from __future__ import annotations

import json
import math

import pytest
import yaml

import fairnb
from fairnb.group import TestSGD
from fairnb.group.planted import in_planted_group, make_planted_group
from fairnb.model_card import to_yaml
from fairnb.report import write_report
from fairnb.search import get_method

from image_checks import detector, domain as image_domain, seed_images
from text_checks import bench, biased_linear


@pytest.fixture(scope="module")
def results(synthetic, biased_model, fair_model):
    tabular = get_method("aequitas")(n_seeds=200, n_local=10, random_state=0, control=fair_model, progress=False).run(
        biased_model, synthetic.domain, seeds=synthetic.seed_inputs())
    dom, texts, E = bench()
    text = get_method("rp")(n_seeds=30, max_iter=3, n_local=10, random_state=0).run(biased_linear(dom, E), dom,
                                                                                    seeds=texts)
    image = get_method("eidig_image")(random_state=0).run(detector(red=1.0), image_domain(), seeds=seed_images(15))
    planted = make_planted_group(n=3000, random_state=0)
    group = TestSGD(random_state=0).run(lambda X: in_planted_group(X).astype(float), planted,
                                        sensitive=["sex", "race"])
    return [tabular, text, image, group]


def _front_matter(path):
    text = path.read_text()
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_the_card_parses_and_its_numbers_are_the_summaries(results, tmp_path):
    md = write_report(results, tmp_path, title="demo model", format="model-card")
    front = _front_matter(md)
    assert front["tags"] == ["fairness-testing", "fairnb"] and front["fairness_testing"]["model"] == "demo model"
    entries = front["fairness_testing"]["results"]
    assert [e["kind"] for e in entries] == ["tabular", "text", "image", "group"]
    for r, e in zip(results, entries):
        s = r.summary()
        shared = {k for k in e if k in s and k not in ("method", "protected")}
        assert shared and {k: e[k] for k in shared} == {k: s[k] for k in shared}, e["method"]
    assert {"natural_rate", "natural_low", "control_natural_rate", "material_pairs"} <= set(entries[0])
    assert entries[0]["budget"]["n_seeds"] == 200 and "control" not in entries[0]["budget"]
    assert {"top_rule_set", "score", "eps"} <= set(entries[3])
    assert json.loads((tmp_path / "fairness.json").read_text()) == front["fairness_testing"]
    body = md.read_text().split("---\n", 2)[2]
    for heading in ("What was tested", "Methods and budgets", "Natural rate", "Discriminatory inputs found",
                    "Directions", "Group discrimination (TestSGD)", "What was not tested", "Versions"):
        assert f"### {heading}" in body
    assert "control's natural rate" in body and "a control model" not in body.split("What was not tested")[1]


def test_yaml_scalars_read_back_equal():
    value = {"a": [1, -2.5, 1e-05, 3e20, "x: y", "yes", None, True], "b key": {"c": float("inf"), "d": []},
             "e": "null", "f": [{"g": 1, "h": [0.1]}]}
    back = yaml.safe_load(to_yaml(value))
    assert back == value and isinstance(back["a"][2], float) and math.isinf(back["b key"]["c"])


def test_an_unknown_format_is_refused(results, tmp_path):
    with pytest.raises(ValueError, match="format must be 'html' or 'model-card'"):
        write_report(results[:1], tmp_path, format="card")
