"""How a search is cut into shards, each with its own random stream.

Two ways, chosen by what the strategy starts from:

* **Seeds** (ADF, EIDIG, MAFT, NeuronFair, SG, AEQUITAS given seeds, the text and image searches): the
  strategy's ``select_seeds`` picks the start inputs once, on the client (K-Means as in a local run, the
  texts that hold a protected term), and each
  shard gets a contiguous slice of them; its seed ids are offset by the slice's start, so pairs keep
  pointing at the right seed. The strategy's other inputs (``seeds`` itself: NeuronFair's
  interpretation rows, SG's sampling distribution) go to every shard whole.
* **Budget** (random sampling, AEQUITAS without seeds): each shard gets its part of the strategy's
  count budgets (its registry record's ``divided``: ``n_samples``, ``n_seeds``, SG's ``limit``, AFT's
  ``n_loops``, ...) and draws its own inputs.

Either way ``max_tried`` is divided too, time budgets apply to every shard (they run side by side),
and each shard draws from its own stream: ``numpy.random.SeedSequence(random_state).spawn(n)``. One
shard gets the root sequence itself, whose generator is ``default_rng(random_state)``: a one-shard run
is the local run.

Example
-------
>>> from fairnb.search import RandomSearch
>>> [s.params for s in plan_shards(RandomSearch(n_samples=10, random_state=0), None, 3)]
[{'n_samples': 4}, {'n_samples': 3}, {'n_samples': 3}]
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def divided_budgets(search) -> tuple:
    """The count parameters of ``search`` that the shards divide: its registry record's ``divided``
    (``fairnb.search.registry``); none for a search that is not registered.

    >>> from fairnb.search import get_method
    >>> divided_budgets(get_method("eidig")()), divided_budgets(get_method("rp")()), divided_budgets(get_method("aft")())
    (('n_seeds',), (), ('n_loops',))
    """
    from ..search.registry import method_record

    try:
        return method_record(search).divided
    except ValueError:      # not registered: every parameter stays whole in each shard
        return ()


@dataclass
class Shard:
    """One part of a sharded search.

    ``params`` override the search's hyperparameters; ``seeds`` are the shard's start inputs (None when it
    draws its own), ``first_id`` the index of the first of them among all shards' seeds; ``stream`` seeds
    the shard's random generator.
    """

    index: int
    params: dict
    seeds: np.ndarray | None
    first_id: int
    stream: np.random.SeedSequence

    @property
    def n_seeds(self) -> int:
        return 0 if self.seeds is None else len(self.seeds)


def split_count(total: int, parts: int) -> list[int]:
    """``total`` divided into ``parts`` near-equal whole numbers, the larger first.

    >>> split_count(10, 4)
    [3, 3, 2, 2]
    """
    return [len(p) for p in np.array_split(np.arange(total), parts)]


def plan_shards(search, seeds, n_shards: int, should_stop=None, domain=None) -> list[Shard] | None:
    """The shards of ``search`` over ``seeds`` (validated inputs or None): at most ``n_shards`` of them,
    fewer when there are fewer seeds or a smaller budget than that (``domain``: the run's, for
    ``select_seeds``). None when ``should_stop()`` said True while the seeds were chosen."""
    if isinstance(n_shards, bool) or not isinstance(n_shards, (int, np.integer)) or n_shards < 1:
        raise ValueError(f"n_shards must be a positive integer, got {n_shards!r}")
    selected = search.select_seeds(seeds, should_stop, domain)
    if selected is None and should_stop is not None and should_stop():
        return None
    divided = divided_budgets(search)
    budgets = {name: getattr(search, name) for name in (*divided, "max_tried")
               if getattr(search, name, None) is not None}
    if selected is not None:
        selected = np.asarray(selected)
        n = max(1, min([n_shards, len(selected), *budgets.values()]))
        parts = np.array_split(np.arange(len(selected)), n)
    else:
        n = max(1, min([n_shards, *budgets.values()]))
        parts = [None] * n
    split = {name: split_count(value, n) for name, value in budgets.items()}
    root = np.random.SeedSequence(search.random_state)
    streams = [root] if n == 1 else root.spawn(n)
    shards = []
    for i, part in enumerate(parts):
        params = {name: sizes[i] for name, sizes in split.items()}
        if part is not None and "n_seeds" in search.get_params():   # at most the shard's seeds: a cap that binds
            cap = params.get("n_seeds", search.get_params()["n_seeds"])   # less (ExpGA's population) stays
            params["n_seeds"] = len(part) if cap is None else min(cap, len(part))
        shards.append(Shard(i, params, None if part is None else selected[part],
                            0 if part is None else int(part[0]) if len(part) else 0, streams[i]))
    return shards
