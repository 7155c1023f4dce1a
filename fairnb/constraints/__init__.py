"""Constraints: which candidates a search may report (see ``fairnb.constraints.base``).

Text: ``SameIdentityTerms``, ``SameTokens``, ``MaxWordsChanged``; images: ``PixelBudget``,
``AttributeConfirmed``; tables: ``Realistic`` (optional, never a default). A domain's
``default_constraints()`` lists the ones a search uses unless it is given ``constraints="paper"`` (the
paper's unconstrained search) or its own list.
"""
from .base import STAGES, Constraint, apply, resolve, seed_rows
from .images import AttributeConfirmed, PixelBudget, default_image_constraints
from .tabular import Realistic
from .text import MaxWordsChanged, SameIdentityTerms, SameTokens, default_text_constraints

__all__ = ["STAGES", "Constraint", "apply", "resolve", "seed_rows", "SameIdentityTerms", "SameTokens", "MaxWordsChanged",
           "PixelBudget", "AttributeConfirmed", "Realistic", "default_text_constraints", "default_image_constraints"]
