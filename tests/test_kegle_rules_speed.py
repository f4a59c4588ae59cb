"""Throughput of the keglebillard referee (slow: run with ``-m slow``).

The vectorised scoring and the compiled game flow (cuegym.games.kegle) must stay well ahead of
the physics; measured so that docs/rules_keglebillard.md can quote them.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from cuegym.configs import load_params, load_table
from cuegym.games.kegle import Kegle
from cuegym.physics import simulate
from cuegym.rules.keglebillard import score_shots
from cuegym.rules.keglebillard_game import GameState


@pytest.mark.slow
def test_scoring_throughput_K5_to_K20():
    table, params = load_table("keglebillard"), load_params("keglebillard")
    rng = np.random.default_rng(0)
    T = 1024
    xy = np.zeros((T, 3, 2))
    xy[:, 1] = [-0.525, 0.0]
    xy[:, 2] = [0.525, 0.0]
    xy[:, 0, 0] = rng.uniform(-0.99, -0.60, T)
    xy[:, 0, 1] = rng.uniform(-0.45, 0.45, T)
    cue = np.stack([rng.uniform(0.5, 5, T), rng.uniform(0, 360, T), np.zeros(T),
                    rng.uniform(-0.4, 0.4, T), rng.uniform(-0.4, 0.4, T)], 1)
    res = simulate(table, params, xy, cue_ball=np.zeros(T, int), cue=cue)
    score_shots(res)
    t0 = time.perf_counter()
    for _ in range(10):
        score_shots(res)
    per_shot = (time.perf_counter() - t0) / (10 * T)
    game = Kegle()
    states = game.batch([GameState(order=(0, 1), scores=(0, 0), to_play=0,
                                   balls=tuple(map(tuple, xy[t])), ball_in_hand=None)
                         for t in range(T)])
    game.apply_log(states, res)
    t0 = time.perf_counter()
    for _ in range(10):
        game.apply_log(states, res)
    flow = (time.perf_counter() - t0) / (10 * T)
    print(f"score_shots {1 / per_shot:.0f} shots/s; apply_log (scoring + compiled flow) "
          f"{1 / flow:.0f} shots/s")
    assert 1 / per_shot > 50_000
    assert 1 / flow > 30_000
