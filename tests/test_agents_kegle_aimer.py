"""Differential test: the compiled keglebillard aimer (cuegym.agents.geometric_kegle, one kernel
over a table axis) against the per-state numpy aimer it replaced (tests/reference/kegle_aimer.py,
the oracle).

On random states (red on the table or in hand, behind the salvo line or anywhere, whites on or
off, pins standing or not) and on states from real games, every state must give the same
candidates: the same number and kinds in the same order, the same strikes and placements (bit
for bit: the aim goes through numpy's arctan2 after the kernel), and costs and features up to
1e-9. Costs and features are not always bit-identical: the oracle's ``np.arccos`` (the cut
angle) is numpy's SIMD (AVX-512) version, the kernel's libm's, which differ in the last bit now
and then (about 1e-15 relative); a cut that lands exactly on the 78 degree limit could in
principle fall on the other side (never seen).
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.kegle_aimer import kegle_candidates as kegle_candidates_numpy

from cuegym.agents import make_agent, make_arena, play_games
from cuegym.agents.base import Agent
from cuegym.agents.geometric_kegle import kegle_best, kegle_candidates, kegle_candidates_batch
from cuegym.games.kegle_state import from_game_states
from cuegym.rules.keglebillard_game import GameState

ARENA = make_arena("keglebillard")


def _random_states(rng: np.random.Generator, n: int) -> list[GameState]:
    hx, hy = ARENA.hx, ARENA.hy
    out = []
    while len(out) < n:
        hand = [None, "salvo", "cloth"][int(rng.integers(0, 3))]
        balls = [None if (k == 0 and hand) or (k and rng.random() < 0.15) else
                 (float(rng.uniform(-hx, hx)), float(rng.uniform(-hy, hy))) for k in range(3)]
        pins = tuple(bool(p) for p in rng.random(5) < 0.7)
        st = GameState(order=(0, 1), scores=(0, 0), to_play=0, balls=tuple(balls), pins=pins,
                       ball_in_hand=hand)
        try:  # legal layouts only (balls apart, off standing pins): the game layer refuses others
            from_game_states([st])
        except ValueError:
            continue
        out.append(st)
    return out


def _game_states(n_games: int) -> list[GameState]:
    """The states of a few real games (geometric agents, tournament noise)."""
    seen: list[GameState] = []

    class Spy(Agent):
        game = "keglebillard"
        name = "spy"

        def __init__(self) -> None:
            self.inner = make_agent("geometric", "keglebillard", arena=ARENA)

        def act(self, states, rng):
            seen.extend(states)
            return self.inner.act(states, rng)

    play_games(ARENA, [Spy(), Spy()], n_games, seed=3, max_shots=60)
    return seen


def _check(states: list[GameState], spins=(-0.2, 0.1), max_places: int = 12) -> set[str]:
    batch = kegle_candidates_batch(ARENA, states, spins=spins, max_places=max_places)
    kinds: set[str] = set()
    for t, st in enumerate(states):
        new = batch.table(t)
        old = kegle_candidates_numpy(ARENA, st, spins=spins, max_places=max_places)
        assert new.kind == old.kind, t
        assert np.array_equal(new.strikes.cue, old.strikes.cue), t
        assert np.array_equal(new.strikes.place, old.strikes.place, equal_nan=True), t
        for a, b in ((new.cost, old.cost), (new.feats, old.feats)):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9, err_msg=str(t))
        kinds.update(k.split(":")[1] if ":" in k else k for k in new.kind)
    return kinds


def test_random_states_match_the_numpy_aimer() -> None:
    kinds = _check(_random_states(np.random.default_rng(0), 150))
    assert {"king", "pin1", "bank", "safe", "fallback"} <= kinds  # the branches were exercised


def test_game_states_match_the_numpy_aimer() -> None:
    states = _game_states(3)
    assert len(states) > 30
    _check(states, spins=(-0.2,), max_places=5)


@pytest.mark.slow
def test_many_states_match_the_numpy_aimer() -> None:
    for seed in range(1, 6):
        _check(_random_states(np.random.default_rng(seed), 600))
    _check(_game_states(20), spins=(-0.2,))


def test_single_state_wrapper_and_best() -> None:
    states = _random_states(np.random.default_rng(5), 30)
    batch = kegle_candidates_batch(ARENA, states, spins=(0.1,))
    best = kegle_best(ARENA, states, 0.1)
    for t, st in enumerate(states):
        one = kegle_candidates(ARENA, st, spins=(0.1,))
        assert one.kind == batch.table(t).kind
        k = one.best()
        assert np.array_equal(best.cue[t], one.strikes.cue[k])
        assert np.array_equal(best.place[t], one.strikes.place[k], equal_nan=True)
    packed = kegle_candidates_batch(ARENA, ARENA.batch(states), spins=(0.1,))
    assert np.array_equal(packed.cue, batch.cue) and np.array_equal(packed.count, batch.count)
    assert len(kegle_best(ARENA, [], -0.2)) == 0
    with pytest.raises(ValueError, match="max_places must be a whole number >= 0, got -1"):
        kegle_candidates(ARENA, states[0], max_places=-1)
