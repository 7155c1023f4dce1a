"""What the inspectors share: pages of pairs chosen in the kernel, an ordering, a selection that the
browser sets and Python reads, and the detail of the last selected pair.

Every inspector's summary band leads with ``headline``: the Result's natural rate with its 95 % interval, then
the material discriminatory inputs, in words (``fairnb.summaries.headline``).

A subclass sets ``result``, ``frame`` (``result.pairs``: what ``selected`` returns) and ``_table`` (a ``PairTable``
whose columns are what ``sort_by`` may name) before calling ``__init__``, and implements
``_refresh()`` (send the current page) and ``describe(pair_id) -> dict`` (the detail). Browser input
is validated here: a page size out of range, an unknown sort column or a pair id that does not exist
is refused with a ``TraitError`` naming the valid values.
"""
from __future__ import annotations

import html

import pandas as pd
import traitlets

from ..summaries import headline as headline_of
from ._assets import FairnbWidget


class PagedInspector(FairnbWidget):
    """Base class of the pair and image inspectors (see the module docstring)."""

    max_page_size = 1000

    title = traitlets.Unicode("").tag(sync=True)
    headline = traitlets.Unicode("").tag(sync=True)    # the summary band's first sentence: the natural rate
    n_pairs = traitlets.Int(0).tag(sync=True)
    page = traitlets.Int(0).tag(sync=True)
    page_size = traitlets.Int(25).tag(sync=True)
    sort_by = traitlets.Unicode("").tag(sync=True)
    sort_descending = traitlets.Bool(False).tag(sync=True)
    selected_ids = traitlets.List(traitlets.Int()).tag(sync=True)
    detail = traitlets.Dict().tag(sync=True)
    version = traitlets.Int(0).tag(sync=True)   # +1 with every page sent: the browser's "answer arrived"

    def __init__(self, **kwargs):
        super().__init__(headline=headline_of(self.result.summary()), **kwargs)

    def static_headline(self) -> str:
        """``headline`` as an escaped HTML paragraph, for the static fallbacks."""
        return f"<p class='fairnb-headline'>{html.escape(self.headline)}</p>"

    @property
    def selected(self) -> pd.DataFrame:
        """The selected pairs (rows of ``result.pairs``, indexed by pair id)."""
        return self.frame.iloc[list(self.selected_ids)]

    @property
    def visible_ids(self) -> list[int]:
        """Ids of the pairs shown, in the current order (all pages)."""
        return list(self._ids)

    @traitlets.validate("page_size")
    def _valid_page_size(self, proposal):
        if not 1 <= proposal["value"] <= self.max_page_size:
            raise traitlets.TraitError(f"page_size must be between 1 and {self.max_page_size}, got {proposal['value']}")
        return proposal["value"]

    @traitlets.validate("sort_by")
    def _valid_sort_by(self, proposal):
        if proposal["value"] and proposal["value"] not in self._table.columns:
            raise traitlets.TraitError(f"cannot sort by {proposal['value']!r}; columns: {self._table.columns} "
                                       "(or '' for the order found)")
        return proposal["value"]

    @traitlets.validate("selected_ids")
    def _valid_selection(self, proposal):
        bad = [i for i in proposal["value"] if not 0 <= i < len(self.frame)]
        if bad:
            raise traitlets.TraitError(f"no pairs with ids {bad}; ids run from 0 to {len(self.frame) - 1}")
        return list(dict.fromkeys(proposal["value"]))

    def _clamp_page(self) -> bool:
        """Move ``page`` back into range (its observer then refreshes again); True when it moved."""
        last = max(0, (len(self._ids) - 1) // self.page_size)
        if 0 <= self.page <= last:
            return False
        self.page = min(max(self.page, 0), last)
        return True

    @traitlets.observe("selected_ids")
    def _on_selection(self, change):
        self._update_detail()

    def _update_detail(self):
        self.detail = self.describe(self.selected_ids[-1]) if self.selected_ids else {}
