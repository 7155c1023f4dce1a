"""The Result of a search: discriminatory pairs, counts, a timeline, save/load, rich display.

One module per job: ``recording`` (the Result and its de-duplicating ``record``), ``tallies`` (typed
method-specific numbers and their merge rules), ``merging`` (one Result from a sharded run's shards),
``packing`` (compact pairs for travel), ``seed_outcomes`` (how each seed ended), ``tables`` (``pairs``, ``to_frame``), ``storage`` (``save``,
``load``), ``display`` (``repr``, HTML, ``plot``) and ``details`` (JSON forms).

Pairs are stored once per unique full instance (the EIDIG convention); ``count("adf")`` also
counts them without the protected attributes. Inputs and counterparts are float arrays of shape
``(n, *domain.item_shape)`` (feature rows, token ids, images); the domain turns them into table
columns (``to_columns`` / ``from_columns`` to save and load, ``decode`` and ``pair_columns`` for
``result.pairs``, a pandas DataFrame). A strategy may attach a JSON-able dict of details to each
candidate (``Batch(info=...)``: a text search's substitution chain, an image flip's norms); the
Result keeps it for every pair it stores (``result.details(i)``).

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=2000, random_state=0)
>>> model = fairnb.train_demo_model(data)
>>> result = fairnb.run_search(model, data.domain, method="random", max_tried=2000, random_state=0)
>>> result.count("eidig") > 0
True
"""
from __future__ import annotations

from .details import jsonable
from .merging import merge_results, merged_pairs
from .packing import compact, pack_pairs, unpack_pairs
from .recording import Result
from .storage import UncheckedResultWarning
from .tables import NEAR_THRESHOLD, near_threshold
from .tallies import Count, Derived, Distinct, Mean, Measured, PerShard, Ratio, Same, Tally, inputs_name
from . import seed_outcomes

__all__ = ["Result", "Tally", "Count", "Distinct", "Mean", "Measured", "inputs_name", "Same", "PerShard", "Ratio", "Derived", "merge_results",
           "merged_pairs", "seed_outcomes", "compact", "pack_pairs", "unpack_pairs", "near_threshold", "NEAR_THRESHOLD", "jsonable",
           "UncheckedResultWarning"]
