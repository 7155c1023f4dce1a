"""Input domains: tabular rows and texts (token ids with sensitive-term groups); every kind implements the
``Domain`` protocol (``fairnb.domains.base``).

>>> Feature("sex", 0, 1, labels=("female", "male")).label(1)
'male'
"""
from .base import CONVENTIONS, Domain, check_convention, domain_from_config, register_domain, require_capabilities
from .tabular import Feature, TabularDomain
from .text import TextDomain

__all__ = ["CONVENTIONS", "Domain", "Feature", "TabularDomain", "TextDomain", "check_convention", "domain_from_config",
           "register_domain", "require_capabilities"]
