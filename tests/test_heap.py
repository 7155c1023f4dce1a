"""``fairnb.heap.release``: the C heap's free pages go back to the system (glibc), and searches that ran a second
or more call it when they end (tutorial 05's kernel kept ~200 MB of freed heap per image search)."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb import heap
from fairnb.search import get_method


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def test_release_gives_freed_heap_pages_back():
    if not heap.release():
        pytest.skip("not glibc: nothing to ask")
    blocks = [np.ones(12_000) for _ in range(4_000)]     # 96 KB each, under glibc's mmap threshold: on the heap
    pin = np.ones(12_000)                                # allocated last: the freed blocks are not the heap's top
    held = _rss_mb()
    del blocks
    before = _rss_mb()                                   # freed, but glibc keeps the pages
    heap.release()
    after = _rss_mb()
    assert pin.sum() == 12_000 and held - before < 150       # free() gave back little of the 384 MB ...
    assert before - after > 200, (held, before, after)       # ... release() most of it


@pytest.mark.parametrize("seconds, released", [(0.0, 0), (1.5, 1)])
def test_a_search_of_a_second_or_more_releases_the_heap_when_it_ends(synthetic, biased_model, monkeypatch,
                                                                     seconds, released):
    calls = []
    monkeypatch.setattr(heap, "release", lambda: calls.append(1) or True)
    search = get_method("random")(max_time=seconds or None, max_tried=None if seconds else 200, random_state=0,
                                  progress=False)
    r = search.run(biased_model, synthetic.domain)
    assert r.status == "budget" and len(calls) == released


@pytest.mark.parametrize("after_s, released", [(float("inf"), 0), (0.0, 1)])
def test_testsgd_releases_the_heap_when_it_ends_as_searches_do(monkeypatch, after_s, released):
    # tutorial 04's solutions: each TestSGD run left 50-70 MB freed but held by the C heap (issue #22)
    from fairnb.group import TestSGD
    from fairnb.group.planted import in_planted_group, make_planted_group

    planted = make_planted_group(n=2_000, random_state=0)
    calls = []
    monkeypatch.setattr(heap, "release", lambda: calls.append(1) or True)
    monkeypatch.setattr(heap, "RELEASE_AFTER_S", after_s)
    result = TestSGD(random_state=0).run(
        lambda X: in_planted_group(X).astype(float), planted, sensitive=["sex", "race"])
    assert len(result) > 0 and len(calls) == released
