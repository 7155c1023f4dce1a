"""Input domains: tabular rows, texts (token ids with sensitive-term groups) and images (``ImageDomain``); every
kind implements the ``Domain`` protocol (``fairnb.domains.base``).

>>> Feature("sex", 0, 1, labels=("female", "male")).label(1)
'male'
"""
from .base import CONVENTIONS, Domain, check_convention, domain_from_config, register_domain, require_capabilities
from .image import ImageDomain
from .tabular import Feature, TabularDomain
from .text import TextDomain

__all__ = ["CONVENTIONS", "Domain", "Feature", "ImageDomain", "TabularDomain", "TextDomain", "check_convention",
           "domain_from_config", "register_domain", "require_capabilities"]
