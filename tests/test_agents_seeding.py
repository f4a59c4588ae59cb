"""Seeding as a researcher relies on it: loading an agent leaves the process's global
generators alone, every random choice of an agent or an env opponent comes from the generator
it is given (agents/base.py: "so a seeded tournament is reproducible"), and the golfbillard
rules' random policies (G-25, G-30) follow each table's generator."""

from __future__ import annotations

import random
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401 (registers the env ids)

ROOT = Path(__file__).resolve().parents[1]

torch = pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")


def _draws() -> tuple[float, float, float]:
    return random.random(), float(np.random.rand()), float(torch.rand(1))


def _seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


@pytest.mark.parametrize("spec, game", [("pretrained", "keglebillard"),
                                        ("pretrained", "golfbillard"),
                                        ("expert", "golfbillard")])
def test_loading_an_agent_leaves_the_global_generators_alone(spec, game):
    """SB3's load reseeded random, numpy and torch with the zip's saved seed (0): a script that
    seeded them and then made the agent drew the same numbers for every seed."""
    from cuegym.agents import make_agent

    _seed_all(12345)
    expected = _draws()
    _seed_all(12345)
    make_agent(spec, game)
    assert _draws() == expected


def _golf_states(n_moves: int = 4):
    from cuegym.agents import make_agent, make_arena, play_games

    arena = make_arena("golfbillard")
    got = []
    play_games(arena, [make_agent("random", "golfbillard")] * 2, 2, seed=1, max_shots=n_moves,
               observer=lambda g, s, m: got.append(s))
    return got[-1]


def test_a_sampling_sb3_policy_draws_from_the_generator_it_is_given():
    """``deterministic=false`` sampled from torch's global generator, so the same rng gave
    other strikes and a seeded tournament or env opponent did not repeat."""
    from cuegym.agents import make_agent

    states = _golf_states()
    agent = make_agent("pretrained:deterministic=false", "golfbillard")
    _seed_all(7)
    outside = _draws()
    _seed_all(7)
    a = agent.act(states, np.random.default_rng(42)).cue
    assert _draws() == outside  # the caller's streams did not move
    b = agent.act(states, np.random.default_rng(42)).cue
    c = agent.act(states, np.random.default_rng(43)).cue
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)  # still a sampling policy


def _episode(env, seed: int, n: int = 6) -> np.ndarray:
    acts = np.random.default_rng(0)
    obs, _ = env.reset(seed=seed)
    rec = [obs]
    for _ in range(n):
        obs, _, term, trunc, _ = env.step(acts.uniform(-1, 1, env.action_space.shape)
                                          .astype(np.float32))
        rec.append(obs)
        if term or trunc:
            break
    return np.concatenate(rec)


def test_a_self_play_pool_opponent_repeats_under_reset_seed():
    """The pool member was drawn from the opponent's own generator, so ``reset(seed)`` did not
    repeat a table's games (and a table's opponents hung on the other tables)."""
    from cuegym.agents import make_agent
    from cuegym.experiments.selfplay import PoolOpponent

    pool = PoolOpponent([make_agent("geometric", "keglebillard"),
                         make_agent("random", "keglebillard")])
    env = gym.make("cuegym/Keglebillard-v0", opponent=pool, seat=1)
    first = _episode(env, 5)
    for _ in range(2):
        assert np.array_equal(_episode(env, 5), first)
    with pytest.raises(ValueError, match="at least one member"):
        PoolOpponent([])


def test_G25_G30_random_policies_follow_each_tables_generator():
    """The random spot and pick policies drew from the rules state's seed, which the envs left
    at 0: every table and every reset seed drew the same."""
    from cuegym.envs.golfbillard_v0 import raw_env

    rules = {"spot_policy": "random", "pick_policy": "random"}
    venv = gym.make_vec("cuegym/Golfbillard-v0", num_envs=3,
                        vectorization_mode="vector_entry_point", rules=rules)
    venv.reset(seed=10)
    seeds = venv.unwrapped.core.states.seed.copy()
    assert len(set(seeds.tolist())) == 3
    venv.reset(seed=10)
    assert np.array_equal(venv.unwrapped.core.states.seed, seeds)
    venv.reset(seed=11)  # table 0 now plays what table 1 played
    assert venv.unwrapped.core.states.seed[0] == seeds[1]

    shot = gym.make("cuegym/GolfbillardShot-v0", rules=rules)
    shot.reset(seed=3)
    s3 = int(shot.unwrapped.core.states.seed[0])
    shot.reset(seed=4)
    assert int(shot.unwrapped.core.states.seed[0]) != s3
    shot.reset(seed=3)
    assert int(shot.unwrapped.core.states.seed[0]) == s3

    aec = raw_env(rules=rules)
    aec.reset(seed=1)
    s1 = aec.game_state.seed
    aec.reset(seed=2)
    assert aec.game_state.seed != s1
    aec.reset(seed=1)
    assert aec.game_state.seed == s1

    # the default rules draw nothing for it: the tables' streams are as before
    plain = gym.make("cuegym/Golfbillard-v0")
    plain.reset(seed=10)
    assert int(plain.unwrapped.core.states.seed[0]) == 0
