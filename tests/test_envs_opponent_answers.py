"""What the full-game envs do with an opponent's answer and with more tables than memory
holds: the same checks for both games (one place, ``cuegym.envs.opponents``), each a
ValueError naming the opponent, the table and the value, raised before the shot is played.

Found by an RL user's walk through the envs: keglebillard played an opponent's V0 = 1000 as
V0 = 20 without a word (golfbillard refused it), and its malformed answers surfaced as an
AttributeError or as the physics' error without naming the opponent.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401 (registers the envs)
from cuegym.games.strikes import Strikes


def _strikes(v0: float):
    def opponent(states, rng):
        T = len(states)
        return Strikes(np.tile([v0, 10.0, 0.0, 0.0, 0.0], (T, 1)), np.zeros(T, np.int64),
                       np.full((T, 2), np.nan))
    return opponent


def test_keglebillard_refuses_an_opponents_strike_outside_the_physics_limits_without_noise():
    env = gym.make("cuegym/Keglebillard-v0", opponent=_strikes(1000.0), seat=1)
    with pytest.raises(ValueError, match=r"the opponent's strike on table 0: V0 = 1000\.0 is "
                                         r"outside \[0, 20\.0\] \(the physics' limits"):
        env.reset(seed=0)  # seat 1: the opponent breaks


def test_keglebillard_with_noise_clamps_an_opponents_strike_as_every_executed_strike():
    env = gym.make("cuegym/Keglebillard-v0", opponent=_strikes(1000.0), seat=1,
                   noise="tournament")
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("game", ["Keglebillard", "Golfbillard"])
@pytest.mark.parametrize("answer, message", [
    (lambda T: 42, r"the opponent's act\(\) must return strikes .*got int: 42"),
    (lambda T: Strikes(np.full((T, 5), np.nan), np.zeros(T, np.int64), np.full((T, 2), np.nan)),
     r"the opponent's strike on table 0 has V0 = nan: strikes must be finite"),
])
def test_a_malformed_opponent_answer_is_refused_naming_the_opponent(game, answer, message):
    env = gym.make(f"cuegym/{game}-v0", opponent=lambda states, rng: answer(len(states)),
                   seat=1)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0)
        for _ in range(30):  # golfbillard: until the turn passes to the opponent
            env.step(np.zeros(env.action_space.shape, np.float32))


def test_keglebillard_opponent_answer_without_placement_is_refused():
    class NoPlace:
        def __init__(self, T):
            self.cue, self.cue_ball = np.tile([2.0, 0.0, 0.0, 0.0, 0.0], (T, 1)), np.zeros(T, int)

    env = gym.make("cuegym/Keglebillard-v0", opponent=lambda s, rng: NoPlace(len(s)), seat=1)
    with pytest.raises(ValueError, match=r"cue \(T, 5\), cue_ball \(T,\), place \(T, 2\)\), "
                                         r"got NoPlace"):
        env.reset(seed=0)


@pytest.mark.parametrize("cue", [np.zeros((1, 3)), np.zeros(10), np.zeros((2, 5, 1))])
def test_strikes_refuse_a_cue_array_not_of_shape_T_by_5(cue):
    with pytest.raises(ValueError, match=r"cue must have shape \(T, 5\) .*got shape"):
        Strikes(cue, np.zeros(len(cue), np.int64), np.full((len(cue), 2), np.nan))


def test_strikes_take_one_strike_or_T():
    assert Strikes.of(np.zeros(5)).cue.shape == (1, 5)
    assert Strikes.of(np.zeros((3, 5))).cue.shape == (3, 5)


@pytest.mark.parametrize("env_id", ["cuegym/KeglebillardShot-v0", "cuegym/Golfbillard-v0"])
def test_more_tables_than_memory_holds_are_refused_when_the_env_is_made(env_id):
    """10**9 tables need some 40,000 GiB for one step's physics: refused at once by make_vec
    (not a MemoryError minutes later, or the physics' refusal at the first step)."""
    with pytest.raises(ValueError, match=r"num_envs = 1000000000 is more tables than this "
                                         r"machine's memory holds: one step's physics needs "
                                         r"about \d+\.\d\d GiB"):
        gym.make_vec(env_id, 10**9)


def test_an_agent_made_for_other_keglebillard_rules_is_refused_naming_the_difference():
    """An agent made for ddbu rules aims and scores by ddbu while the env plays house rules:
    refused, as play_games refuses it; made for the env's rules it is taken."""
    from cuegym.agents import make_agent, make_arena

    ddbu = make_agent("geometric", "keglebillard",
                      arena=make_arena("keglebillard", {"variant": "ddbu"}))
    with pytest.raises(ValueError, match=r"another setting.*variant: 'ddbu' vs 'house'"):
        gym.make("cuegym/Keglebillard-v0", opponent=ddbu)
    env = gym.make("cuegym/Keglebillard-v0", opponent=ddbu, rules={"variant": "ddbu"})
    env.reset(seed=0)
    env.close()


def test_an_agent_of_the_other_game_is_refused_as_opponent():
    from cuegym.agents import make_agent

    with pytest.raises(ValueError, match=r"plays 'golfbillard', the env 'keglebillard'"):
        gym.make("cuegym/Keglebillard-v0", opponent=make_agent("geometric", "golfbillard"))
    with pytest.raises(ValueError, match=r"plays 'keglebillard', the env 'golfbillard'"):
        gym.make("cuegym/Golfbillard-v0", opponent=make_agent("geometric", "keglebillard"))


def test_setting_an_agent_made_for_other_golfbillard_rules_is_refused_and_keeps_the_opponent():
    from cuegym.agents import make_agent, make_arena

    env = gym.make("cuegym/Golfbillard-v0")
    before = env.get_wrapper_attr("opponent")
    alt = make_agent("geometric", "golfbillard",
                     arena=make_arena("golfbillard", {"opening": "alternate"}))
    with pytest.raises(ValueError, match=r"opening: 'alternate' vs 'simultaneous'"):
        env.set_wrapper_attr("opponent", alt)
    assert env.get_wrapper_attr("opponent") is before
    env.close()
