"""``Search.run(client=...)`` (or ``executor=...``) hands the run to the executor registered for the client's class; a run
given its start inputs already chosen (``selected_seeds``) starts from exactly those."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.search import RandomSearch
from fairnb.search.methods.eidig import EIDIG
from fairnb.search.engine.executors import _EXECUTORS, register_executor


class FakeClient:
    pass


class FakeSubclient(FakeClient):
    pass


@pytest.fixture
def fake_executor(monkeypatch):
    calls = []

    def execute(search, model, domain, seeds, **kw):
        calls.append((search, seeds, kw))
        return type(search)(**search.get_params()).run(model, domain, seeds, listeners=kw["listeners"])  # a shard

    monkeypatch.setitem(_EXECUTORS, f"{__name__}:FakeClient", execute)
    return calls


def test_run_with_a_client_goes_to_its_registered_executor(fake_executor, synthetic, biased_model):
    search = EIDIG(n_seeds=20, n_local=5, random_state=0, progress=False)   # random takes no seeds
    seen = []
    result = search.run(biased_model, synthetic.domain, synthetic.X[:50], client=FakeSubclient(), n_shards=3,
                        listeners=[seen.append])
    (got, seeds, kw), = fake_executor
    assert got is search and isinstance(seeds, np.ndarray) and seeds.shape == (50, synthetic.X.shape[1])
    assert kw["n_shards"] == 3 and kw["should_stop"]() is False and seen[-1].kind == "done"
    assert result.tried == EIDIG(**search.get_params()).run(biased_model, synthetic.domain, synthetic.X[:50]).tried
    search.stop()
    assert kw["should_stop"]() is True


def test_a_client_without_an_executor_is_refused(synthetic, biased_model):
    with pytest.raises(TypeError, match="no executor runs searches on a FakeClient"):
        RandomSearch(n_samples=10, progress=False).run(biased_model, synthetic.domain, client=FakeClient())


def test_dask_clients_and_every_executor_are_registered_without_importing_dask():
    assert _EXECUTORS["distributed.client:Client"] == "fairnb.distributed.runner:run_sharded"
    assert _EXECUTORS["concurrent.futures._base:Executor"] == "fairnb.distributed.pools:run_on_executor"
    register_executor(f"{__name__}:FakeSubclient", "fairnb.distributed.runner:run_sharded")
    _EXECUTORS.pop(f"{__name__}:FakeSubclient")


def test_selected_seeds_are_the_start_inputs(synthetic, biased_model):
    X = synthetic.X.to_numpy(float)
    chosen = X[[5, 3, 8]]
    result = EIDIG(n_seeds=40, max_iter=2, n_local=0, random_state=0, progress=False).run(
        biased_model, synthetic.domain, X[:200], selected_seeds=chosen)
    np.testing.assert_array_equal(result.extras["seeds"], chosen)
    assert result.extras["seeds_used"] == 3 and set(result.seed_ids) <= {0, 1, 2}
