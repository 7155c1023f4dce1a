"""Input domains. Tabular today; text and image domains implement the same ``Domain`` protocol
(``fairnb.domains.base``).

>>> Feature("sex", 0, 1, labels=("female", "male")).label(1)
'male'
"""
from .base import CONVENTIONS, Domain, check_convention, domain_from_config, register_domain, require_capabilities
from .tabular import Feature, TabularDomain

__all__ = ["CONVENTIONS", "Domain", "Feature", "TabularDomain", "check_convention", "domain_from_config",
           "register_domain", "require_capabilities"]
