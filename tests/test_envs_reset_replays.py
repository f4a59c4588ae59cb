"""Full-game resets that replace games the opponents end before the learner's first shot
(audit s49): bounded in keglebillard as in golfbillard, the learner's seat kept across the
replacements (a seat drawn again favoured the early seats), and ddbu's K-25 fouls named in
``info["foul_flags"]``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import cuegym.envs  # noqa: F401 - registers the ids
from cuegym.envs.kegle import FOUL_FLAGS
from cuegym.games.strikes import Strikes


def _always_miss(states, rng):
    """A 0.05 m/s stroke of the red away from every ball: K-11, penalty 6, every time."""
    T = len(states)
    return Strikes(np.tile([0.05, 180.0, 0.0, 0.0, 0.0], (T, 1)), np.zeros(T, np.int64),
                   np.tile([-0.8, 0.0], (T, 1)))


def test_a_keglebillard_reset_gives_up_when_every_break_finishes_the_learner():
    """The opponent's break hands the learner 6 skæve, the whole distance (K-22), before its
    first shot, game after game: the reset looped forever."""
    env = gym.make("cuegym/Keglebillard-v0", opponent=_always_miss, seat=1,
                   rules={"distance": 6})
    with pytest.raises(RuntimeError, match=r"the opponents ended 100 new games in a row before "
                                           r"the learner's first shot \(tables \[0\]\)"):
        env.reset(seed=0)
    ok = gym.make("cuegym/Keglebillard-v0", opponent=_always_miss, seat=1,
                  rules={"distance": 7})
    assert ok.reset(seed=0)[1]["seat"] == 1


def test_a_random_seat_stays_uniform_when_games_are_replaced():
    """With 5 players and a short distance many breaks end the game for the learner; a seat
    drawn again for the new game left late seats rare ([511, 459, 212, 82, 16] of 1280)."""
    env = gym.make_vec("cuegym/Keglebillard-v0", num_envs=64,
                       vectorization_mode="vector_entry_point", num_players=5,
                       rules={"distance": 12})
    seats = np.concatenate([env.reset(seed=64 * k)[1]["seat"] for k in range(10)])
    counts = np.bincount(seats, minlength=5)
    assert counts.min() >= 0.6 * len(seats) / 5, counts.tolist()
    first = env.reset(seed=5)[1]["seat"]
    assert np.array_equal(env.reset(seed=5)[1]["seat"], first)  # seeded as before


def test_ddbu_fouls_are_named_in_the_foul_flags():
    assert FOUL_FLAGS[-2:] == ("K-25:no_cushion", "K-25:third_rodt")
    a = np.random.default_rng(0).uniform(-1, 1, (2048, 7))[71]
    env = gym.make("cuegym/Keglebillard-v0", rules={"variant": "ddbu"}, seat=0)
    env.reset(seed=71)
    env.unwrapped.core.states.rodt_streak[0] = 2  # two rødt in a row in this visit
    *_, info = env.step(a)
    assert info["foul"] and info["foul_flags"].shape == (len(FOUL_FLAGS),)
    named = [FOUL_FLAGS[k] for k in np.flatnonzero(info["foul_flags"])]
    assert named and all(n.startswith("K-25") for n in named), named  # was: none named
