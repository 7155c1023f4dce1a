"""Input domains. Tabular today; text and image domains implement the same interface
(see ``fairnb.domains.tabular`` for it).

>>> Feature("sex", 0, 1, labels=("female", "male")).label(1)
'male'
"""
from .tabular import Feature, TabularDomain

__all__ = ["Feature", "TabularDomain"]
