"""Human labels and one number format for a Result's summary (what a teacher reads).

``Result.summary()`` keeps its machine keys (``unique_idis_eidig``, ...) for JSON and the CLI; the
displays (``repr``, ``_repr_html_``, ``fairnb.compare``, the demo report) show them through this
module: labelled, counts with thousands separators, shares as percentages, seconds with units, and
the reason the search ended in words ("time budget of 10 s reached").

>>> fmt_count(20400), fmt_share(0.12345), fmt_seconds(3.14159), fmt_seconds(0.0123)
('20,400', '12.3 %', '3.14 s', '0.0123 s')
>>> ending("budget", ("max_found", 100000))
'100,000-pair cap reached'
>>> ending("stopped")
'stopped by user'
"""
from __future__ import annotations

import html
import math

from .domains.base import protected_columns
from .html_frames import scroll_frame
from .pair_table import decision_text, first_columns

# labels of Result.summary() keys, in the order they are shown
LABELS = {
    "method": "method",
    "status": "ended",
    "protected": "protected attributes",
    "natural_rate": "data seeds discriminatory as they are (compare with a control model's)",
    "natural_low": "  95 % interval, low",
    "natural_high": "  95 % interval, high",
    "natural_n": "  data seeds checked as they are",
    "control_label": "the control model",
    "control_natural_rate": "the same seeds on the control model, discriminatory",
    "control_natural_low": "  95 % interval, low",
    "control_natural_high": "  95 % interval, high",
    "control_natural_n": "  seeds checked on the control model",
    "random_rate": "seeds drawn at random from the domain, discriminatory as they are (not the data's share)",
    "random_low": "  95 % interval, low",
    "random_high": "  95 % interval, high",
    "random_n": "  random seeds checked as they are",
    "material_pairs": "discriminatory pairs whose decision moves by 0.1 or more (material)",
    "unique_idis_eidig": "discriminatory inputs (unique full inputs)",
    "unique_idis_adf": "discriminatory inputs (unique without protected attributes)",
    "unique_idi_pairs": "discriminatory pairs (unordered: a pair and its reverse are one)",
    "tried": "candidates checked",
    "hits": "discriminatory candidates (with repeats)",
    "success_rate": "success rate",
    "precision": "precision (discriminatory pairs per candidate checked)",
    "coverage_2": "coverage: grid cells the inputs occupy, 2 bins per feature",
    "coverage_4": "coverage: grid cells the inputs occupy, 4 bins per feature",
    "diversity_distance": "diversity: mean distance between two inputs (0 to 1)",
    "elapsed_s": "time",
    "idis_per_s": "discriminatory inputs per second",
    "time_to_first_s": "time to the first discriminatory input",
    "time_to_1000_s": "time to 1,000 discriminatory inputs",
    "near_threshold": "pairs within a millionth of the decision threshold (float rounding may decide them)",
    "immaterial_pairs": "discriminatory pairs whose two probabilities differ by less than 0.1 (boundary noise)",
    "rejected_idis": "discriminatory inputs refused by the constraints (not counted above)",
    "constraints": "constraints the pairs keep",
    "rejected_realistic": "refused as not realistic (unlike every row of the training data)",
    # the methods' own numbers (extras), in the words of the glossary
    "natural_idis": "seeds discriminatory as they are",
    "control_natural_idis": "seeds discriminatory as they are on the control model",
    "random_idis": "random seeds discriminatory as they are",
    "seeds_used": "seeds the search started from",
    "skipped_seeds": "seeds skipped (no protected term, or unusable)",
    "generated": "distinct inputs generated",
    "generated_adf": "distinct inputs generated (without protected attributes)",
    "global_generated": "distinct inputs generated in the global phase",
    "local_generated": "distinct inputs generated in the local phase",
    "raw_idis": "seeds discriminatory as they are (raw IDIs)",
    "global_idis": "IDIs found in the global phase",
    "local_idis": "IDIs found in the local phase",
    "local_seeds": "IDIs the local phase started from",
    "local_success_rate": "local phase: IDIs per distinct input generated",
    "local_steps": "local steps taken",
    "gsr": "generation success rate (IDIs per distinct input generated)",
    "strict_idis": "pairs the attribute classifier f_sa sees as two attributes (strict)",
    "flip_success_rate": "share of seeds whose attribute flip succeeded",
    "flip_failed": "seeds whose attribute flip failed",
    "f_sa_accuracy": "accuracy of the attribute classifier f_sa",
    "gradient_rows": "rows whose gradient was computed",
    "gradient_calls": "gradient calls",
    "model_rows": "rows sent to the model",
    "discriminatory_share": "share of random inputs discriminatory",
    "share_ci_low": "  95 % interval, low",
    "share_ci_high": "  95 % interval, high",
    "test_cases_generated": "test cases generated (SG)",
    "explained": "candidates explained by LIME (ExpGA)",
    "seeds_explained": "candidates whose explanation made them seeds (ExpGA)",
    "loops": "approximating trees trained (AFT)",
    "fresh_starts": "starts from fresh random inputs (AFT)",
    "path_pairs": "path pairs sampled (AFT)",
    # what the network's hidden layers say (NeuronFair's and DICE's findings, side by side)
    "biased_layer": "most biased hidden layer (NeuronFair)",
    "biased_neurons": "  its biased neurons (NeuronFair)",
    "biased_threshold": "  threshold T_d of a biased neuron (NeuronFair)",
    "layer_auc": "attribute AUC per hidden layer (NeuronFair)",
    "natural_severity_bits": "severity of the seeds as they are: bits of protected information in the decision, mean "
                             "(DICE; compare with a control's)",
    "control_natural_severity_bits": "  the same on the control model (DICE)",
    "severity_bits_mean": "severity of the IDIs found: bits of protected information in the decision, mean (DICE)",
    "severity_bits_max": "severity of the IDIs found: bits of protected information in the decision, largest (DICE)",
    "severity_inputs": "  IDIs it was measured on (DICE; at most 10,000, drawn at random)",
    "causal_layer": "causal hidden layer (DICE)",
    "causal_neurons": "  its causal neurons (DICE)",
    "causal_effects": "  share of the discrimination each removes (DICE)",
}
NETWORK_KEYS = ("biased_layer", "biased_neurons", "natural_severity_bits", "control_natural_severity_bits",
                "severity_bits_mean", "severity_bits_max", "causal_layer", "causal_neurons")   # the findings the pair inspector shows in words
# where the docs site's glossary lives (docs/glossary.md; its headings are anchors on GitHub and on the site)
GLOSSARY_URL = "https://github.com/fairnb/fairnb/blob/main/docs/glossary.md"
_SPEED, _UNIQUE, _PHASES = "Candidates, hits and speed", "Unique-IDI counting conventions", "Global phase / local phase"
_NATURAL, _TEXT, _FLIP = "Natural rate", "raw_idis, global_idis, local_idis", "Attribute flip, f_sa"
_CONTROL = "Control model"
_FIELD = "The field's metrics: pairs, precision, coverage, diversity"
_NEURONS, _SEVERITY = "Biased layer and biased neurons (NeuronFair)", "Severity in bits (DICE)"
_CAUSAL = "Causal layer and causal neurons (DICE)"
_CERTIFICATE = "Certificate: certified, falsified, undecided"
# every labelled key (and the widgets' own words): its glossary entry (a heading there) and a one-line definition
TERMS = {
    "method": ("Black box / white box", "The search strategy: black-box methods read only the model's outputs, "
                                        "white-box ones also its gradients or neurons."),
    "status": (_SPEED, "Why the search ended: it completed, reached a budget, or was stopped."),
    "protected": ("Protected attribute", "The features the decision should not depend on; a pair changes only them."),
    "natural_rate": (_NATURAL, "The share of the data's seeds discriminatory before any change; compare it with a "
                               "control model's."),
    "natural_low": (_NATURAL, "The low end of the natural rate's 95 % interval."),
    "natural_high": (_NATURAL, "The high end of the natural rate's 95 % interval."),
    "natural_n": (_NATURAL, "How many of the data's seeds were checked as they are (the same for every method)."),
    "control_label": (_CONTROL, "What the control model is, in the words given with control=(model, label)."),
    "control_natural_rate": (_CONTROL, "The natural rate of the same seeds on the control model given as control=; "
                                       "which question it answers depends on that model."),
    "control_natural_low": (_CONTROL, "The low end of the control model's natural rate's 95 % interval."),
    "control_natural_high": (_CONTROL, "The high end of the control model's natural rate's 95 % interval."),
    "control_natural_n": (_CONTROL, "How many seeds were checked as they are on the control model."),
    "random_rate": (_NATURAL, "The share of seeds drawn at random from the domain discriminatory as they are: the "
                              "input space's, not the data's."),
    "random_low": (_NATURAL, "The low end of the random seeds' rate's 95 % interval."),
    "random_high": (_NATURAL, "The high end of the random seeds' rate's 95 % interval."),
    "random_n": (_NATURAL, "How many seeds drawn at random from the domain were checked as they are."),
    "random_idis": (_NATURAL, "Seeds drawn at random from the domain that are discriminatory as they are."),
    "material_pairs": ("Immaterial pair", "Discriminatory pairs (unordered, as unique_idi_pairs) whose probability "
                                          "moves by 0.1 or more between the two sides."),
    "unique_idis_eidig": (_UNIQUE, "Discriminatory inputs counted once per distinct full input (EIDIG's count)."),
    "unique_idis_adf": (_UNIQUE, "Discriminatory inputs counted once per input without its protected attributes "
                                "(ADF's count)."),
    "tried": (_SPEED, "Candidates the model was asked about, each with its counterpart."),
    "hits": (_SPEED, "Discriminatory candidates, repeats included."),
    "success_rate": ("Success rate", "Hits divided by candidates checked."),
    "elapsed_s": (_SPEED, "The search's own clock; it starts after the model's first call."),
    "idis_per_s": (_SPEED, "Unique discriminatory inputs found per second of search."),
    "time_to_first_s": (_SPEED, "Seconds until the first discriminatory input."),
    "time_to_1000_s": (_SPEED, "Seconds until 1,000 unique discriminatory inputs."),
    "near_threshold": ("near_threshold", "Pairs whose output is within a millionth of the decision threshold: "
                                         "rounding could decide them."),
    "immaterial_pairs": ("Immaterial pair", "Discriminatory pairs whose two probabilities differ by less than 0.1: "
                                            "boundary noise; with material_pairs, unique_idi_pairs."),
    "rejected_realistic": ("Constraint", "Generated rows refused because no training row has their combination of "
                                         "categories (or none is that close): the optional Realistic constraint."),
    "rejected_idis": ("Constraint", "Discriminatory inputs a constraint refused; never reported as pairs."),
    "constraints": ("Constraint", "The rules every reported pair keeps (same identity terms, few changed words, "
                                  "a small pixel change)."),
    "natural_idis": (_NATURAL, "Seeds that are discriminatory as they are, before any change."),
    "control_natural_idis": (_CONTROL, "Seeds that are discriminatory as they are on the control model."),
    "seeds_used": ("Seed", "The starting inputs the search began from."),
    "skipped_seeds": ("Seed", "Seeds not searched: no protected term, an attribute flip that failed, or no time left."),
    "generated": ("GSR (generation success rate)", "Distinct inputs the search generated."),
    "generated_adf": ("GSR (generation success rate)", "Distinct inputs generated, counted without their protected "
                                                       "attributes."),
    "global_generated": (_PHASES, "Distinct inputs generated while moving seeds towards discrimination."),
    "local_generated": (_PHASES, "Distinct inputs generated around the discriminatory inputs found."),
    "raw_idis": (_TEXT, "Seed texts already discriminatory before any change."),
    "global_idis": (_TEXT, "Discriminatory inputs the global phase reached from seeds that were not."),
    "local_idis": (_TEXT, "Discriminatory inputs the local phase found around the raw and global ones."),
    "local_seeds": (_PHASES, "Discriminatory inputs the local phase started from."),
    "local_success_rate": (_TEXT, "The local phase's discriminatory inputs per distinct input it generated."),
    "local_steps": (_PHASES, "Steps the local phase took."),
    "gsr": ("GSR (generation success rate)", "Discriminatory inputs per distinct input generated."),
    "strict_idis": ("strict_idis", "Image pairs whose two sides f_sa still sees as two attribute values."),
    "flip_success_rate": (_FLIP, "The share of seeds whose attribute flip reached the other value."),
    "flip_failed": (_FLIP, "Seeds whose attribute flip did not reach the other value."),
    "f_sa_accuracy": (_FLIP, "How often the attribute classifier f_sa names the attribute right."),
    "gradient_rows": (_SPEED, "Rows whose gradient the search computed."),
    "gradient_calls": (_SPEED, "Calls to the model's gradient."),
    "model_rows": (_SPEED, "Rows sent to the model."),
    "discriminatory_share": ("Discriminatory share", "The estimated share of all possible inputs that are "
                                                     "discriminatory, from random sampling."),
    "share_ci_low": ("Discriminatory share", "The low end of the discriminatory share's 95 % interval."),
    "share_ci_high": ("Discriminatory share", "The high end of the discriminatory share's 95 % interval."),
    "test_cases_generated": (_SPEED, "Test cases SG generated by solving path constraints."),
    "unique_idi_pairs": (_FIELD, "Discriminatory pairs counted as the field counts them: a pair and its reverse are one."),
    "precision": (_FIELD, "Discriminatory pairs per candidate checked."),
    "coverage_2": (_FIELD, "Grid cells the found inputs occupy when each non-protected feature is cut into 2 bins."),
    "coverage_4": (_FIELD, "Grid cells the found inputs occupy when each non-protected feature is cut into 4 bins."),
    "diversity_distance": (_FIELD, "The mean range-normalised L1 distance between two distinct found inputs."),
    "explained": ("Seed", "Candidate inputs ExpGA explained with LIME to choose its seeds."),
    "seeds_explained": ("Seed", "Candidates ExpGA kept as seeds: their explanation ranks a protected term among the "
                                "words the decision depends on most."),
    "loops": (_PHASES, "AFT's loops: each trains a decision tree that imitates the model and samples its path pairs."),
    "fresh_starts": (_PHASES, "Times AFT started again from fresh random inputs (no pair, no discrimination, or no "
                              "misprediction for five loops)."),
    "path_pairs": (_PHASES, "Pairs of tree leaves across a protected split that AFT sampled."),
    "biased_layer": (_NEURONS, "The hidden layer whose neurons react most when only the protected attribute changes."),
    "biased_neurons": (_NEURONS, "The neurons of that layer that react more than the threshold T_d (0-based)."),
    "biased_threshold": (_NEURONS, "NeuronFair's threshold: where the layer's activation-difference curve meets y = x."),
    "layer_auc": ("Attribute AUC", "Per hidden layer, how strongly its neurons react to the protected attribute."),
    "natural_severity_bits": (_SEVERITY, "Mean bits about the protected attribute the decision reveals on the seeds "
                              "as they are: compare with a control's (0 only if it ignores the attribute)."),
    "control_natural_severity_bits": (_CONTROL, "The same mean bits on the same seeds, on the control model."),
    "severity_bits_mean": (_SEVERITY, "Mean bits about the protected attribute the decision reveals on the IDIs found: "
                           "how severe they are, not how common (at least 1 on any model)."),
    "severity_bits_max": (_SEVERITY, "The most bits about the protected attribute the decision reveals for one of the "
                          "discriminatory inputs found."),
    "severity_inputs": (_SEVERITY, "How many of the IDIs found the severity was measured on: all of them, or 10,000 "
                        "drawn at random from a longer run's."),
    "causal_layer": (_CAUSAL, "The hidden layer where the gap between the protected values grows most (0-based)."),
    "causal_neurons": (_CAUSAL, "Neurons whose fixing removes the most discrimination, strongest first (0-based)."),
    "causal_effects": (_CAUSAL, "For each causal neuron, the share of the discrimination that fixing it removes."),
    # fairnb.certify's numbers (a certificate, beside the searches in fairnb.compare)
    "certified_share": (_CERTIFICATE, "The share of the domain's integer inputs proven fair: every protected value "
                                      "gets the same decision there (a lower bound on the fair share)."),
    "falsified_share": (_CERTIFICATE, "The share of the domain's integer inputs proven unfair: at every one of them "
                                      "two protected values get different decisions (a lower bound)."),
    "undecided_share": (_CERTIFICATE, "The share of the domain's integer inputs neither proven fair nor unfair when "
                                      "the certificate's budget ran out."),
    "witnesses": (_CERTIFICATE, "Discriminatory pairs the certificate checked on the model inside its falsified "
                                "or undecided boxes: examples, not a search's count."),
    "result_kind": (_CERTIFICATE, "A search counts the discriminatory inputs it found; a certificate proves shares "
                                  "of the whole domain fair or unfair (fairnb.certify)."),
    # the widgets' own words
    "found": (_UNIQUE, "Unique discriminatory inputs found so far, in the method's counting convention."),
    "phase": (_PHASES, "Which phase the search is in: global (moving seeds) or local (around the IDIs found)."),
    "preparing": (_SPEED, "The model's first call (TensorFlow tracing) runs before the budget's clock starts."),
    "discrimination_rate": ("Discrimination rate", "Per term: the share of seeds holding it from which the search "
                                                   "reached a pair, with its 95 % interval."),
    "validity": ("Validity: L0, L2, Jaccard, BLEU, similarity", "How far a generated text is from its seed: words "
                                                                "changed, vector distance, shared words."),
    "saliency": ("Saliency", "How much each word matters to the decision: the gradient's size at the word."),
    "position": ("Token position", "The word's place in the text, counted from 0."),
    "candidate_score": ("Substitution, candidate and candidate score", "Each candidate is one of the word's "
                                                                       "nearest neighbours; its score is how much "
                                                                       "the method expects it to help."),
    "senatt": ("Δ_senatt and Δ_bias", "Δ_senatt: the attribute flip made to the face (the counterpart)."),
    "bias": ("Δ_senatt and Δ_bias", "Δ_bias: the small change the search made to the seed face (the input)."),
    "exact": (_FLIP, "The face re-rendered with the other attribute value (ExactFlip), for comparison."),
    "flip_steps": ("FGSM", "The signed-gradient steps FGSMFlip took until f_sa saw the other value; ε is their "
                           "total size per pixel."),
    "flip_ok": (_FLIP, "Whether the attribute flip made f_sa see the other value."),
    "iteration": (_PHASES, "The global-phase step at which the search reached this discriminatory input."),
}
SHARES = ("success_rate", "precision", "natural_rate", "natural_low", "natural_high", "control_natural_rate",
          "control_natural_low", "control_natural_high", "random_rate", "random_low", "random_high",
          "local_success_rate", "gsr",
          "flip_success_rate", "f_sa_accuracy", "discriminatory_share", "share_ci_low", "share_ci_high")   # as %
_BUDGETS = {
    "max_time": lambda v: f"time budget of {fmt_seconds(v)} reached",
    "max_tried": lambda v: f"{fmt_count(v)}-candidate cap reached",
    "max_found": lambda v: f"{fmt_count(v)}-pair cap reached",
    "max_boxes": lambda v: f"{fmt_count(v)}-box cap reached",      # fairnb.certify
    "result_memory": lambda v: f"memory cap of {fmt_bytes(v)} reached (fairnb.config.result_memory)",
}
_STATUS = {
    "completed": "completed (the method ran to its end)",
    "budget": "budget reached",
    "stopped": "stopped by user",
    "interrupted": "interrupted (Ctrl-C or kernel interrupt)",
    "running": "still running",
    "failed": "failed (the pairs found before the error are kept)",
}


def fmt_count(n) -> str:
    """An integer count with thousands separators."""
    return f"{int(n):,}"


def fmt_bytes(n) -> str:
    """A number of bytes in kB, MB or GB.

    >>> fmt_bytes(2.5e9), fmt_bytes(3e8), fmt_bytes(20_000)
    ('2.5 GB', '300 MB', '20 kB')
    """
    if n >= 1e9:
        return f"{n / 1e9:.1f} GB"
    return f"{n / 1e6:.0f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def fmt_share(x, decimals: int | None = None) -> str:
    """A share in [0, 1] as a percentage with three significant digits (or ``decimals`` decimals)."""
    return f"{100 * float(x):.{_decimals(x) if decimals is None else decimals}f} %"


def fmt_shares(*shares) -> list[str]:
    """Shares shown side by side, with one number of decimals: the most that one of them needs.

    >>> fmt_shares(0.0, 0.00421, 0.02)
    ['0.000 %', '0.421 %', '2.000 %']
    """
    decimals = max(_decimals(x) for x in shares)
    return [fmt_share(x, decimals) for x in shares]


def _decimals(x) -> int:
    """The decimals ``fmt_share`` gives the share ``x``: three significant digits, at least one."""
    pct = 100 * float(x)
    return 1 if pct == 0 or pct >= 10 else max(1, 2 - math.floor(math.log10(abs(pct))))


def fmt_seconds(s) -> str:
    """Seconds with three significant digits (no exponent)."""
    s = float(s)
    if s >= 100:
        return f"{s:,.0f} s"
    return f"{s:.3g} s" if s >= 0.001 else f"{s:.4f} s"


def fmt_rate(x) -> str:
    """A per-second rate: one decimal below 100, whole numbers above."""
    x = float(x)
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def ending(status: str, ended_by=None) -> str:
    """Why a search ended, in words; ``ended_by`` is ``(budget name, limit)`` when a budget ended it."""
    if status == "budget" and ended_by and ended_by[0] in _BUDGETS:
        return _BUDGETS[ended_by[0]](ended_by[1])
    return _STATUS.get(status, str(status))


def formatted(key: str, value, ended_by=None) -> str:
    """One summary value as text (None: "not reached")."""
    if value is None:
        return "not reached" if key.startswith("time_to") else "n/a"
    if key == "status":
        return ending(value, ended_by)
    if key == "protected":
        return ", ".join(map(str, value)) or "none"
    if key in SHARES:
        return fmt_share(value)
    if key == "idis_per_s":
        return fmt_rate(value)
    if key.endswith("_s"):
        return fmt_seconds(value)
    if isinstance(value, bool) or isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return fmt_count(value)
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() and abs(value) >= 1000 else f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(formatted("", v) for v in value)
    return str(value)


def field_metrics_line(summary: dict) -> str:
    """The field's metrics of a summary in one line (the pair inspector's title shows it); "" without them.

    >>> field_metrics_line({"precision": 0.0254, "coverage_2": 41, "coverage_4": 374, "diversity_distance": 0.2866})
    'precision 2.54 %, coverage 41 cells (2 bins) / 374 (4 bins), diversity 0.287'
    >>> field_metrics_line({"precision": 0.5})
    'precision 50.0 %'
    """
    parts = [f"precision {fmt_share(summary['precision'])}"] if "precision" in summary else []
    if "coverage_2" in summary:
        parts.append(f"coverage {fmt_count(summary['coverage_2'])} cells (2 bins) / "
                     f"{fmt_count(summary['coverage_4'])} (4 bins)")
    if "diversity_distance" in summary:
        parts.append(f"diversity {summary['diversity_distance']:.3f}")
    return ", ".join(parts)


def rows(summary: dict, ended_by=None) -> list[tuple[str, str]]:
    """(label, text) for every entry of a summary: the known keys first, then the method's extras.

    >>> rows({"tried": 20400, "success_rate": 0.2136, "idis_per_s": 4358.2, "nodes": 3})
    [('candidates checked', '20,400'), ('success rate', '21.4 %'), ('discriminatory inputs per second', '4,358'), ('nodes', '3')]
    """
    return [(text, value) for _, text, value in keyed_rows(summary, ended_by)]


def keyed_rows(summary: dict, ended_by=None) -> list[tuple[str, str, str]]:
    """``rows`` with each entry's key first: (key, label, text)."""
    known = [k for k in LABELS if k in summary]
    extra = [k for k in summary if k not in LABELS]
    return ([(k, LABELS[k], formatted(k, summary[k], ended_by)) for k in known]
            + [(k, label(k), formatted(k, summary[k])) for k in extra])


def label(key: str) -> str:
    """The words for a summary key without a label of its own (a constraint's refusals, a method's count).

    >>> label("rejected_max_words_changed"), label("biased_layer")
    ('refused by the constraint max words changed', 'biased layer')
    """
    if key.startswith("rejected_"):
        return "refused by the constraint " + key[len("rejected_"):].replace("_", " ")
    return key.replace("_", " ")


def glossary_slug(heading: str) -> str:
    """The anchor GitHub (and the docs site) gives a Markdown heading.

    >>> glossary_slug("Black box / white box"), glossary_slug("Δ_senatt and Δ_bias")
    ('black-box--white-box', 'δ_senatt-and-δ_bias')
    """
    return "".join(c for c in heading.lower() if c.isalnum() or c in " -_").replace(" ", "-")


def explain(key: str) -> dict | None:
    """``{"tip": one-line definition, "href": its glossary entry}`` for a summary key or widget word, or None.

    >>> explain("success_rate")["href"].endswith("glossary.md#success-rate")
    True
    """
    if key not in TERMS:
        return None
    heading, tip = TERMS[key]
    return {"tip": tip, "href": f"{GLOSSARY_URL}#{glossary_slug(heading)}"}


def glossary(keys) -> dict:
    """``explain`` for each of ``keys`` that has an entry (what a widget sends its front end)."""
    return {k: explain(k) for k in keys if k in TERMS}


def term_html(key: str, text: str) -> str:
    """``text`` (a label) as escaped HTML, with the key's definition as its tooltip and a link to its glossary entry.

    >>> term_html("hits", "<hits>")[:60]
    '<span title="Discriminatory candidates, repeats included.">&'
    """
    entry = explain(key)
    if entry is None:
        return html.escape(text)
    return (f'<span title="{html.escape(entry["tip"])}">{html.escape(text)}</span> '
            f'<a class="fairnb-glossary-link" href="{html.escape(entry["href"])}" target="_blank" rel="noopener" '
            f'title="{html.escape(entry["tip"])} (glossary)">?</a>')


def headline(summary: dict) -> str:
    """What an inspector's summary band says first, in words a student understands: the natural rate (the share of
    the data's seeds discriminatory as they are) with its 95 % interval, what tells a biased model from a fair one;
    with a control model (``control=``, named by its label), the same share on it and whether the two intervals
    are apart or overlap; the share of the seeds drawn at random, apart; then the discriminatory pairs found and
    how many of them move the decision by 0.1 or more. The shares side by side have one number of decimals.

    >>> headline({"natural_rate": 0.313, "natural_low": 0.263, "natural_high": 0.367, "natural_n": 300,
    ...           "unique_idi_pairs": 1500, "material_pairs": 1234})     # doctest: +NORMALIZE_WHITESPACE
    '31.3 % of the 300 inputs checked as they are (before the search changed them) are discriminatory
     (95 % interval: 26.3 % to 36.7 %); whether that is high shows only beside a control model (give one to the
     search as control=...). The search found 1,500 discriminatory pairs; 1,234 of them move the decision by 0.1
     or more.'
    >>> headline({"natural_rate": 0.313, "natural_low": 0.263, "natural_high": 0.367, "natural_n": 300,
    ...           "control_natural_rate": 0.04, "control_natural_low": 0.02, "control_natural_high": 0.07,
    ...           "control_label": "shuffled sex", "unique_idi_pairs": 5, "material_pairs": 0})
    ... # doctest: +NORMALIZE_WHITESPACE
    '31.30 % of the 300 inputs checked as they are (before the search changed them) are discriminatory
     (95 % interval: 26.30 % to 36.70 %); on the control model (shuffled sex), 4.00 % of the same inputs are
     discriminatory (2.00 % to 7.00 %): the two intervals are apart. The search found 5 discriminatory pairs; none
     moves the decision by 0.1 or more.'
    >>> headline({"unique_idi_pairs": 0})[:60]
    'The search checked no inputs as they are, so there is no nat'
    """
    found = _found_sentence(summary)
    if summary.get("natural_rate") is None:
        if summary.get("random_rate") is None:
            return ("The search checked no inputs as they are, so there is no natural rate to compare with a "
                    f"control model's. {found}")
        return (f"The search was given no data to check as it is; {_random_clause(summary)}, a share of the whole "
                f"input space, not of the data. {found}")
    keys = ["natural_rate", "natural_low", "natural_high"]
    if summary.get("control_natural_rate") is not None:
        keys += ["control_natural_rate", "control_natural_low", "control_natural_high"]
    shown = dict(zip(keys, fmt_shares(*(summary[k] for k in keys))))
    if "control_natural_rate" not in shown:
        beside = "whether that is high shows only beside a control model (give one to the search as control=...)"
    else:
        label = summary.get("control_label")
        named = f"the control model ({label})" if label else "the control model"
        beside = (f"on {named}, {shown['control_natural_rate']} of the same inputs are discriminatory "
                  f"({shown['control_natural_low']} to {shown['control_natural_high']}): the two intervals "
                  f"{'are apart' if _apart(summary) else 'overlap'}")
    random = f" Apart from the data, {_random_clause(summary)}." if summary.get("random_rate") is not None else ""
    return (f"{shown['natural_rate']} of the {fmt_count(summary['natural_n'])} inputs checked as they are (before "
            f"the search changed them) are discriminatory (95 % interval: {shown['natural_low']} to "
            f"{shown['natural_high']}); {beside}.{random} {found}")


def _apart(summary: dict) -> bool:
    """Whether the natural rate's 95 % interval and the control model's do not overlap."""
    return (summary["control_natural_high"] < summary["natural_low"]
            or summary["natural_high"] < summary["control_natural_low"])


def _random_clause(summary: dict) -> str:
    """The share of the seeds drawn at random from the domain that are discriminatory, in words."""
    rate, low, high = fmt_shares(summary["random_rate"], summary["random_low"], summary["random_high"])
    return (f"{rate} of the {fmt_count(summary['random_n'])} inputs drawn at random from the domain are "
            f"discriminatory as they are (95 % interval: {low} to {high})")


def _found_sentence(summary: dict) -> str:
    """The discriminatory pairs found and how many of them move the decision by 0.1 or more (material).

    >>> _found_sentence({"unique_idi_pairs": 1, "material_pairs": 1})
    'The search found 1 discriminatory pair; it moves the decision by 0.1 or more.'
    """
    pairs = summary.get("unique_idi_pairs", 0)
    material = summary.get("material_pairs", pairs)
    if not pairs:
        return "The search found no discriminatory pairs."
    found = f"The search found {fmt_count(pairs)} discriminatory pair{'' if pairs == 1 else 's'}"
    if material == 0:
        return f"{found}; none moves the decision by 0.1 or more."
    if material == pairs:
        return f"{found}; {'it moves' if pairs == 1 else 'all of them move'} the decision by 0.1 or more."
    return f"{found}; {fmt_count(material)} of them move{'s' if material == 1 else ''} the decision by 0.1 or more."


def network_findings(summary: dict) -> list[dict]:
    """What the network's hidden layers say, in words, one entry per finding the summary holds (NeuronFair's
    biased layer and neurons, DICE's severity and causal layer and neurons): ``key``, ``label``, ``text``.

    >>> [f["text"] for f in network_findings({"severity_bits_mean": 1.0, "severity_bits_max": 1.58,
    ...                                       "natural_severity_bits": 0.25, "causal_layer": 1,
    ...                                       "causal_neurons": [9, 11], "causal_effects": [0.08, 0.02]})]
    ... # doctest: +NORMALIZE_WHITESPACE
    ['on the seeds as they are (before the search changed them), the decision reveals on average 0.25 bits about the
      protected attribute: how much the model uses it on the data; compare with a model trained without the bias (it
      reveals less, 0 bits only if it ignores the attribute)', 'on the discriminatory inputs found, the decision reveals on average 1 bit about the protected
      attribute (1: it splits the protected values into two groups; more: finer splits); how severe the found cases
      are, not how common (at least 1 bit on any model, fair or not)', 'for one input at most 1.58 bits',
      'hidden layer 1, where the gap between the protected values grows most', 'neuron 9 (fixing it removes 8.00 % of
      the discrimination), neuron 11 (2.00 %)']
    """
    def bits(x):
        return f"{x:.3g} bit" + ("" if x == 1 else "s")

    measured = f" ({summary['severity_inputs']:,} of them measured)" if "severity_inputs" in summary else ""

    words = {
        "biased_layer": lambda v: f"hidden layer {v}, whose neurons react most when only the protected attribute changes",
        "biased_neurons": lambda v: "neurons " + ", ".join(map(str, v)) if v else "none above the threshold",
        "natural_severity_bits": lambda v: (f"on the seeds as they are (before the search changed them), the decision "
                                            f"reveals on average {bits(v)} about the protected attribute: how much the "
                                            "model uses it on the data; compare with a model trained without the bias "
                                            "(it reveals less, 0 bits only if it ignores the attribute)"),
        "control_natural_severity_bits": lambda v: f"on the same seeds, the control model's decision reveals on average {bits(v)}",
        "severity_bits_mean": lambda v: (f"on the discriminatory inputs found{measured}, the decision reveals on average {bits(v)} "
                                         "about the protected attribute (1: it splits the protected values into two "
                                         "groups; more: finer splits); how severe the found cases are, not how common "
                                         "(at least 1 bit on any model, fair or not)"),
        "severity_bits_max": lambda v: f"for one input at most {bits(v)}",
        "causal_layer": lambda v: f"hidden layer {v}, where the gap between the protected values grows most",
        "causal_neurons": lambda v: ", ".join(
            f"neuron {j}" + (f" (fixing it removes {fmt_share(e)} of the discrimination)" if i == 0 else f" ({fmt_share(e)})")
            for i, (j, e) in enumerate(zip(v, summary.get("causal_effects", [])))) or "no neuron whose fixing helps",
    }
    return [{"key": k, "label": LABELS[k].strip(), "text": words[k](summary[k])} for k in NETWORK_KEYS if k in summary]


def pairs_html(result, ids) -> str:
    """The pairs ``ids`` of ``result`` as an HTML table: protected values, outputs and named decisions
    first, protected columns highlighted (dark text on yellow, readable on dark themes too)."""
    rows = result.pairs.iloc[list(ids)]
    protected = list(protected_columns(result.domain))
    rows = rows[first_columns(list(rows.columns), set(protected))]
    for col in ("label", "label'"):
        rows[col] = [decision_text(v, result.class_names) for v in rows[col]]
    rows.columns = [html.escape(str(c), quote=False) for c in rows.columns]
    prot = [html.escape(n, quote=False) for n in protected]
    styled = rows.style.set_properties(subset=prot + [f"{p}'" for p in prot],
                                       **{"background-color": "#ffe8a3", "color": "#222", "font-weight": "bold"})
    return scroll_frame(styled.format(precision=3, escape="html").hide(axis="index").to_html())


def directions_html(table, class_names=None, rows: int = 12) -> str:
    """``Result.directions()`` as a small HTML table in words ("" when there are no pairs)."""
    if not len(table):
        return ""
    one = class_names[1] if class_names and len(class_names) == 2 else "class 1"
    zero = class_names[0] if class_names and len(class_names) == 2 else "class 0"
    head = "".join(f"<th>{html.escape(c)}</th>" for c in (
        "swapped to", "pairs", "of them moving it by at least 0.1", f"decision becomes {one}",
        f"decision becomes {zero}", "mean |p - p'|"))
    body = "".join(f"<tr><td>{html.escape(f'{r.attribute} = {r.to}')}</td><td>{fmt_count(r.pairs)}</td>"
                   f"<td>{fmt_count(r.material)}</td><td>{fmt_share(r.to_class_1)}</td><td>{fmt_share(r.to_class_0)}</td>"
                   f"<td>{r.mean_change:.3f}</td></tr>" for r in table.head(rows).itertuples())
    return (f"<p>Which way decisions move when the protected value is swapped to each value:</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
