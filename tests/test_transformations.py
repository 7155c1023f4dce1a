"""The transformation parts (what one step is, per input kind) and the one two-phase skeleton that asks them."""
from __future__ import annotations

import numpy as np
import pytest

from fairnb.domains import Feature, TabularDomain
from fairnb.search.methods.adf import ADF
from fairnb.search.methods.eidig import EIDIG
from fairnb.search.methods.image_flip import ADFImage, EIDIGImage, NeuronFairImage
from fairnb.search.methods.maft import MAFT
from fairnb.search.methods.neuronfair import NeuronFair
from fairnb.search.methods.adf_text import ADFTextASC, ADFTextHotFlip, TextASC, TextHotFlip, TextRandom
from fairnb.search.parts.text_steps import SwapTrace, WordSwap
from fairnb.search.parts.transformations import FlipTrace, PixelStep, UnitStep
from fairnb.search.methods.two_phase import TwoPhase

from text_checks import bench


@pytest.mark.parametrize("method", [ADF, EIDIG, MAFT, NeuronFair, ADFTextASC, ADFTextHotFlip, TextASC, TextHotFlip,
                                    TextRandom, ADFImage, EIDIGImage, NeuronFairImage])
def test_every_two_phase_search_runs_the_one_skeleton(method):
    for loop in ("_generate", "_global_phase_in_chunks", "_global_phase", "_walk"):
        assert getattr(method, loop) is getattr(TwoPhase, loop), f"{method.__name__} has its own {loop}"


def test_a_unit_step_moves_one_drawn_feature_up_or_down_and_never_the_protected_one():
    dom = TabularDomain([Feature("sex", 0, 1), Feature("a", 0, 9), Feature("b", 0, 9)], protected=["sex"])
    step = UnitStep(dom)
    X = np.tile([[1.0, 5.0, 5.0]], (400, 1))
    prob = np.tile([[0.0, 0.0, 1.0]], (400, 1))                 # always feature b
    moved = step.random_step(X, prob, np.random.default_rng(0), size=2.0)
    assert (moved[:, :2] == X[:, :2]).all() and set(moved[:, 2]) == {3.0, 7.0}
    assert 150 < (moved[:, 2] == 7.0).sum() < 250                # up or down, one half each
    edge = step.random_step(np.array([[1.0, 9.0, 9.0]]), np.array([[0.0, 1.0, 0.0]]), np.random.default_rng(1), 5.0)
    assert edge[0, 1] in (4.0, 9.0)                            # clipped into the bounds
    assert step.movable().tolist() == [False, True, True]
    assert step.pair(np.array([[0.0, 2.0, 3.0]]), np.array([[1.0, 7.0, 7.0]])).tolist() == [[1.0, 2.0, 3.0]]


@pytest.fixture(scope="module")
def texts():
    dom, corpus, E = bench(n=60)
    return dom, dom.encode_texts(corpus[:20]), E


def test_a_word_swap_changes_one_drawn_position_for_a_neighbour_and_records_the_chain(texts):
    dom, X, E = texts
    swap = WordSwap(dom, E)
    movable = swap.movable(X)
    assert not (movable & dom.sensitive_mask(X)).any()
    row = int(np.flatnonzero(movable.sum(axis=1) >= 2)[0])
    x = X[row:row + 1]
    position = int(np.flatnonzero(movable[row])[0])
    prob = np.zeros((1, X.shape[1]))
    prob[0, position] = 1.0
    trace = swap.start(x)
    out, moved, after = swap.random_step(x, prob, np.random.default_rng(0), trace, t=3)
    changed = np.flatnonzero(out[0] != x[0])
    assert moved.tolist() == [True] and changed.tolist() == [position]
    assert out[0, position] in swap.candidates(x)[0, position]
    assert after.chains[0][0][:5] == ("local", 3, position, x[0, position], out[0, position])
    assert trace.chains == [()]                                 # the trace it started from is unchanged
    cand = swap.candidates(out)
    cand[0, position, 0] = x[0, position]                       # the seed's word among the substitutes
    back, again = swap.swap(out, np.array([position]), np.array([0]), np.full((1, cand.shape[2]), np.nan), cand,
                            after, "local", 4)
    assert (back == x).all() and again.chains == [()]           # swapped back to the seed's word: no change left


def test_a_text_without_a_position_to_swap_does_not_move(texts):
    dom, X, E = texts
    swap = WordSwap(dom, E)
    pad = np.zeros((1, X.shape[1]), X.dtype)                     # padding only: nothing to swap
    out, moved, _ = swap.random_step(pad, np.zeros(pad.shape), np.random.default_rng(0), swap.start(pad), t=0)
    assert moved.tolist() == [False] and (out == pad).all()


def test_traces_take_replace_and_concatenate_by_row():
    a = SwapTrace(np.zeros((2, 3), int), [("a",), ("b",)], np.zeros((2, 3)))
    b = SwapTrace(np.ones((2, 3), int), [("c",), ("d",)], np.ones((2, 3)))
    mixed = a.replace(np.array([False, True]), b)
    assert mixed.chains == [("a",), ("d",)] and mixed.origin[:, 0].tolist() == [0, 1]
    both = SwapTrace.concat([a, b.take([1])])
    assert both.chains == [("a",), ("b",), ("d",)] and both.saliency.shape == (3, 3)
    f = FlipTrace(np.zeros((2, 2, 2, 3)), np.ones((2, 2, 2, 3)))
    g = f.replace(np.array([True, False]), FlipTrace(np.full((2, 2, 2, 3), 5.0), np.zeros((2, 2, 2, 3))))
    assert g.seed[:, 0, 0, 0].tolist() == [5.0, 0.0] and g.delta[:, 0, 0, 0].tolist() == [0.0, 1.0]


def test_a_pixel_step_keeps_the_seed_flip_stays_in_the_unit_cube_and_is_projected_around_the_seed():
    seeds = np.random.default_rng(0).uniform(0.3, 0.7, (3, 2, 2, 3))
    flipped = seeds.copy()
    flipped[..., 0] += 0.2                                      # the flip adds red
    near = lambda X, S: np.clip(X, S - 0.1, S + 0.1)            # a constraint's projection (an L-inf budget)
    step = PixelStep(seeds, flipped, project=near)
    trace = step.start(seeds[[2, 0]], np.array([2, 0]))
    X = step.apply(seeds[[2, 0]], np.ones((2, 2, 2, 3)), 0.5, trace)
    assert np.abs(X - seeds[[2, 0]]).max() <= 0.1 + 1e-6 and X.min() >= 0 and X.max() <= 1
    C = step.counterpart(X, trace)
    assert np.allclose(C[..., 0], np.clip(X[..., 0] + 0.2, 0, 1), atol=1e-6)
    assert np.allclose(C[..., 1:], X[..., 1:])
