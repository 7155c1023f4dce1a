"""Group discrimination (TestSGD): interpretable rules over sensitive features, scored with error bounds.

>>> from fairnb.group import TestSGD
>>> TestSGD(theta=0.1)
TestSGD(theta=0.1)
"""
from __future__ import annotations

from .result import GroupResult
from .rules import (Rule, RuleSet, SensitiveFeature, TooManyRuleSets, count_candidates, frequent_rule_sets,
                    sensitive_features)
from .scoring import GroupSampler, combined_margin, max_samples_needed, score_groups, wald_margin
from .testsgd import TestSGD
from .text import TermRuleSet, TextSampler, TextTestSGD

__all__ = ["TestSGD", "TextTestSGD", "TermRuleSet", "TextSampler", "GroupResult", "Rule", "RuleSet", "SensitiveFeature", "sensitive_features",
           "frequent_rule_sets", "count_candidates", "TooManyRuleSets", "GroupSampler", "score_groups", "wald_margin",
           "combined_margin", "max_samples_needed"]
