"""The fairness-testing section of a model card (issue #38): ``write_report(..., format="model-card")`` writes YAML
front matter that ``yaml.safe_load`` reads and Markdown, and ``fairness.json`` with the same numbers, equal to each
Result's ``summary()``, for tabular, text, image and TestSGD results."""
from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

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


@pytest.fixture(scope="module")
def certificate(synthetic, biased_model):
    return fairnb.certify(biased_model, synthetic.domain, max_boxes=300, batch_size=64)


def test_a_certificate_goes_in_the_card_with_its_shares(results, certificate, tmp_path):
    md = write_report([results[0], certificate], tmp_path, format="model-card")
    entries = _front_matter(md)["fairness_testing"]["results"]
    assert [e["kind"] for e in entries] == ["tabular", "certificate"] and entries[1]["method"] == "certify"
    s = certificate.summary()
    assert {k: entries[1][k] for k in ("certified_share", "falsified_share", "undecided_share", "inputs")} == {
        k: s[k] for k in ("certified_share", "falsified_share", "undecided_share", "inputs")}
    assert entries[1]["protected"] == ["sex"] and entries[1]["budget"]["max_boxes"] == 300
    body = md.read_text().split("---\n", 2)[2]
    certified = body.split("### Certified")[1].split("###")[0]
    assert fairnb.summaries.fmt_share(s["certified_share"]) in certified
    if s["undecided_share"] > 0:
        assert "the certificate's undecided inputs" in body.split("What was not tested")[1]
    assert _lint(md) == []
    page = write_report([results[0], certificate], tmp_path / "html").read_text()     # and the HTML report
    assert "<h2>Certified (fairnb.certify)</h2>" in page and fairnb.summaries.fmt_share(s["certified_share"]) in page


def test_yaml_scalars_read_back_equal():
    value = {"a": [1, -2.5, 1e-05, 3e20, "x: y", "yes", None, True], "b key": {"c": float("inf"), "d": []},
             "e": "null", "f": [{"g": 1, "h": [0.1]}]}
    back = yaml.safe_load(to_yaml(value))
    assert back == value and isinstance(back["a"][2], float) and math.isinf(back["b key"]["c"])


def test_an_unknown_format_is_refused(results, tmp_path):
    with pytest.raises(ValueError, match="format must be 'html' or 'model-card'"):
        write_report(results[:1], tmp_path, format="card")


# ---------------------------------------------------------------- the card as the Hub and the docs site read it (#38)

DOCS = Path(__file__).resolve().parents[1] / "docs"
EXAMPLE = DOCS / "examples" / "MODEL_CARD.md"
#: the model-card metadata keys of the Hugging Face Hub (huggingface.co/docs/hub/model-cards) and fairnb's own block
HUB_KEYS = {"language", "license", "library_name", "tags", "datasets", "metrics", "base_model", "pipeline_tag",
            "model-index"}
#: linter rules off: line length (the card's table rows and paragraphs are generated, unwrapped) and "the first line
#: is a level-1 heading" (a card is a section, pasted under the title of the model's card)
LINT_OFF = ("md013", "md041")


def _lint(path: Path) -> list[str]:
    api = pytest.importorskip("pymarkdown.api").PyMarkdownApi().enable_extension_by_identifier("front-matter").enable_extension_by_identifier(
        "markdown-tables")
    for rule in LINT_OFF:
        api.disable_rule_by_identifier(rule)
    scan = api.scan_path(str(path))
    return [f"{f.line_number}:{f.column_number} {f.rule_id} {f.rule_description}{f.extra_error_information}"
            for f in scan.scan_failures] + [str(e) for e in scan.pragma_errors]


def _tables(markdown: str) -> int:
    return sum(bool(re.fullmatch(r"\|( -+ \|)+", line)) for line in markdown.splitlines())    # delimiter rows


@pytest.fixture(scope="module")
def cards(results, tmp_path_factory):
    """One card per Result kind (tabular, text, image, group) and one of all four."""
    out = tmp_path_factory.mktemp("cards")
    named = {**{e: [r] for e, r in zip(("tabular", "text", "image", "group"), results)}, "all": results}
    return {k: write_report(rs, out / k, title=f"{k} model", format="model-card") for k, rs in named.items()}


@pytest.mark.parametrize("kind", ["tabular", "text", "image", "group", "all", "example"])
def test_cards_pass_the_markdown_linter_and_their_front_matter_is_hub_metadata(cards, kind):
    path = EXAMPLE if kind == "example" else cards[kind]
    assert _lint(path) == []
    front = _front_matter(path)
    assert set(front) - HUB_KEYS == {"fairness_testing"}, sorted(front)
    assert all(isinstance(t, str) for t in front["tags"]) and front["fairness_testing"]["results"]
    text = path.read_text()
    assert not [n for n, line in enumerate(text.splitlines(), 1) if line != line.rstrip()], "trailing spaces"
    for table in re.findall(r"(?:^\|.*\n)+", text, re.M):       # every row of a table has the header's cells
        assert len({row.count("|") for row in table.splitlines()}) == 1, table


def test_the_linter_catches_what_it_should(tmp_path):
    # the check above is not vacuous: a broken table, trailing spaces and a skipped heading level are reported
    bad = tmp_path / "bad.md"
    bad.write_text("---\ntags: [x]\n---\n\n## Card\n\n#### Skipped\n\nline with trailing spaces  \nnext   \n\n"
                   "| a | b |\n|---|---|\n| 1 |\n")
    rules = {f.split()[1] for f in _lint(bad)}
    assert {"MD001", "MD009", "MD056"} <= rules, rules


def test_the_cards_render_with_myst_parser_as_the_docs_site_does(cards, tmp_path):
    # the docs site is Sphinx + myst-nb, whose Markdown parser is myst-parser: build the example page of docs/examples
    # and a card of every kind with it and the site's myst settings, warnings as errors
    pytest.importorskip("myst_parser")
    conf: dict = {}
    exec((DOCS / "conf.py").read_text(), conf)
    settings = {k: conf[k] for k in ("myst_enable_extensions", "myst_heading_anchors", "exclude_patterns")}
    src = tmp_path / "src"
    shutil.copytree(DOCS / "examples", src / "examples")
    shutil.copy(cards["all"], src / "MODEL_CARD.md")
    settings["exclude_patterns"] = [*settings["exclude_patterns"], "MODEL_CARD.md"]
    (src / "conf.py").write_text("extensions = ['myst_parser']\n" + "".join(f"{k} = {v!r}\n" for k, v in settings.items()))
    (src / "generated.md").write_text("# A generated card\n\n```{include} MODEL_CARD.md\n```\n")
    (src / "index.md").write_text("# Cards\n\n```{toctree}\nexamples/model_card\ngenerated\n```\n")
    build = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(src),
                            str(tmp_path / "html")], capture_output=True, text=True, timeout=120)
    assert build.returncode == 0 and "WARNING" not in build.stderr, build.stderr[-3000:]
    for page, card in (("examples/model_card.html", EXAMPLE), ("generated.html", cards["all"])):
        html = (tmp_path / "html" / page).read_text()
        body = card.read_text().split("---\n", 2)[2]
        assert html.count("<table") == _tables(body) > 0, page
        headings = re.findall(r"^#+ (.*)$", body, re.M)
        assert headings and all(re.search(rf"<h[1-6][^>]*>{re.escape(h)}", html) for h in headings), page
    generated = (tmp_path / "html" / "generated.html").read_text()
    assert "fairness_testing" not in generated and "natural_low" not in generated   # the front matter: metadata
    example = (tmp_path / "html" / "examples/model_card.html").read_text()
    assert "fairness_testing" in example and "natural_low" in example        # there the front matter is shown
