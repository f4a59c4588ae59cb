"""Batched == single, same-seed determinism, same-step autoreset with a counting check."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import cuegym.envs  # noqa: F401

CASES = [
    ("cuegym/KeglebillardShot-v0", {}, 5, 6),
    ("cuegym/KeglebillardShot-v0", {"noise": "tournament"}, 4, 4),
    ("cuegym/Keglebillard-v0", {}, 3, 25),
    ("cuegym/Keglebillard-v0", {"noise": "tournament", "num_players": 3}, 3, 15),
    ("cuegym/GolfbillardShot-v0", {"noise": "tournament"}, 3, 3),
    ("cuegym/Golfbillard-v0", {"noise": "tournament"}, 2, 25),
]


def _vector_run(env_id, kwargs, n, steps, seed, actions):
    envs = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)
    obs, _ = envs.reset(seed=seed)
    out = {"obs": [obs], "rew": [], "done": [], "final": [], "terms": []}
    for k in range(steps):
        obs, r, te, tr, info = envs.step(actions[k])
        out["obs"].append(obs)
        out["rew"].append(r)
        out["done"].append(te | tr)
        out["final"].append(info.get("final_obs"))
        terms = info.get("final_info", {}).get("reward_terms", info.get("reward_terms"))
        out["terms"].append(terms)
    return out


@pytest.mark.parametrize("env_id,kwargs,n,steps", CASES)
def test_batched_equals_single_with_equal_seeds(env_id, kwargs, n, steps):
    """Table i of a vector env reset with seed s plays exactly a single env reset with s + i:
    same observations, rewards, episode ends and terminal observations, bit for bit."""
    rng = np.random.default_rng(1)
    actions = rng.uniform(-1, 1, (steps, n, 7)).astype(np.float32)
    seed = 11
    vec = _vector_run(env_id, kwargs, n, steps, seed, actions)
    for i in range(n):
        env = gym.make(env_id, **kwargs)
        obs, _ = env.reset(seed=seed + i)
        assert np.array_equal(obs, vec["obs"][0][i])
        for k in range(steps):
            obs, r, te, tr, _ = env.step(actions[k, i])
            assert r == vec["rew"][k][i], (i, k)
            assert (te or tr) == vec["done"][k][i]
            if te or tr:
                assert np.array_equal(obs, vec["final"][k][i])
                obs, _ = env.reset()
            assert np.array_equal(obs, vec["obs"][k + 1][i]), (i, k)


@pytest.mark.parametrize("env_id", list(cuegym.envs.ENV_IDS))
def test_same_seed_same_trajectory_and_other_seed_differs(env_id):
    rng = np.random.default_rng(2)
    actions = rng.uniform(-1, 1, (4, 3, 7)).astype(np.float32)
    a = _vector_run(env_id, {}, 3, 4, 5, actions)
    b = _vector_run(env_id, {}, 3, 4, 5, actions)
    c = _vector_run(env_id, {}, 3, 4, 6, actions)
    for k in range(5):
        assert np.array_equal(a["obs"][k], b["obs"][k])
    for k in range(4):
        assert np.array_equal(a["rew"][k], b["rew"][k])
    assert any(not np.array_equal(a["obs"][k], c["obs"][k]) for k in range(5))


def test_reset_without_seed_continues_and_int_seed_restarts():
    env = gym.make("cuegym/KeglebillardShot-v0")
    o1, _ = env.reset(seed=3)
    o2, _ = env.reset()
    o3, _ = env.reset(seed=3)
    assert np.array_equal(o1, o3) and not np.array_equal(o1, o2)


def test_autoreset_counting_shot_env():
    """Every step of a Shot env ends every table's episode: the vector env resets each table
    exactly once per step, in the same call, and reports the ending episode in final_*."""
    n, steps = 6, 5
    envs = gym.make_vec("cuegym/KeglebillardShot-v0", num_envs=n,
                        vectorization_mode="vector_entry_point")
    core = envs.unwrapped.core
    resets = np.zeros(n, np.int64)
    orig = core.reset

    def counting_reset(idx):
        resets[idx] += 1
        return orig(idx)

    core.reset = counting_reset
    obs, _ = envs.reset(seed=0)
    assert resets.tolist() == [1] * n
    ends = 0
    rng = np.random.default_rng(0)
    for _ in range(steps):
        before = core.index.copy()
        obs, r, te, tr, info = envs.step(rng.uniform(-1, 1, (n, 7)))
        assert te.all() and not tr.any()
        assert info["_final_obs"].all() and info["_final_info"].all()
        # the final info describes the episode that ended (its bank position), the new
        # observation the next one
        assert np.array_equal(info["final_info"]["position_index"], before)
        assert not info["_played"].any()  # step info of the ended episodes is only in final_*
        # the new episodes' reset info is at the top level (gymnasium's same-step form)
        assert info["_position_index"].all()
        assert np.array_equal(info["position_index"], core.index)
        ends += int((te | tr).sum())
    assert ends == n * steps
    assert resets.tolist() == [1 + steps] * n


def test_autoreset_counting_full_game_env():
    """Full games end at different steps: the number of autoresets equals the number of ended
    episodes, each ended table's final info carries its result, the others continue."""
    n = 4
    envs = gym.make_vec("cuegym/Keglebillard-v0", num_envs=n,
                        vectorization_mode="vector_entry_point")
    core = envs.unwrapped.core
    resets = np.zeros(n, np.int64)
    orig = core.reset

    def counting_reset(idx):
        resets[idx] += 1
        return orig(idx)

    core.reset = counting_reset
    envs.reset(seed=1)
    rng = np.random.default_rng(1)
    ended = np.zeros(n, np.int64)
    for _ in range(60):
        steps_before = core.steps.copy()
        _, r, te, tr, info = envs.step(rng.uniform(-1, 1, (n, 7)))
        done = te | tr
        ended += done
        if done.any():
            assert info["_final_obs"].tolist() == done.tolist()
            res = info["final_info"]["reward_terms"]["result"][done]
            assert np.all(np.isin(res, [-1.0, 1.0]) | tr[done])
            assert (core.steps[done] == 0).all()  # a fresh game: no learner step yet
        assert (core.steps[~done] == steps_before[~done] + 1).all()
    assert ended.sum() > 0
    assert resets.tolist() == (1 + ended).tolist()


def test_partial_reset_mask():
    envs = gym.make_vec("cuegym/KeglebillardShot-v0", num_envs=4,
                        vectorization_mode="vector_entry_point")
    obs, _ = envs.reset(seed=0)
    obs2, info = envs.reset(options={"reset_mask": np.array([True, False, False, True])})
    assert np.array_equal(obs[1:3], obs2[1:3])
    assert info["_position_index"].tolist() == [True, False, False, True]
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": np.ones(3, bool)})


def test_a_seeded_partial_reset_reseeds_only_the_masked_tables():
    # tables the mask leaves out keep their generators: their games go on as if untouched
    def run(reseed):
        envs = gym.make_vec("cuegym/Keglebillard-v0", num_envs=2,
                            vectorization_mode="vector_entry_point", noise="tournament")
        envs.reset(seed=0)
        acts = np.random.default_rng(1).uniform(-1, 1, (6, 2, 7)).astype(np.float32)
        envs.step(acts[0])
        if reseed:
            envs.reset(seed=99, options={"reset_mask": np.array([True, False])})
        return [envs.step(a)[0][1] for a in acts[1:]]

    assert np.array_equal(run(False), run(True))


def test_step_before_reset_and_after_the_end_raise():
    envs = gym.make_vec("cuegym/KeglebillardShot-v0", num_envs=2,
                        vectorization_mode="vector_entry_point")
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros((2, 7)))
    env = cuegym.envs.KeglebillardShotEnv()
    env.reset(seed=0)
    env.step(np.zeros(7))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(7))


def test_make_vec_max_episode_steps():
    # gymnasium.make_vec passes max_episode_steps to vector entry points: the full-game envs
    # truncate after that many learner steps; the Shot envs' episodes are one step anyway
    envs = gym.make_vec("cuegym/Keglebillard-v0", num_envs=2,
                        vectorization_mode="vector_entry_point", max_episode_steps=2)
    envs.reset(seed=0)
    envs.step(np.zeros((2, 7), np.float32))
    _, _, te, tr, _ = envs.step(np.zeros((2, 7), np.float32))
    assert (tr | te).all()
    shot = gym.make_vec("cuegym/GolfbillardShot-v0", num_envs=2,
                        vectorization_mode="vector_entry_point", max_episode_steps=5)
    shot.reset(seed=0)
    assert shot.step(np.zeros((2, 7), np.float32))[2].all()
    with pytest.raises(ValueError, match="max_episode_steps must be an integer >= 1, got 0"):
        gym.make_vec("cuegym/KeglebillardShot-v0", num_envs=2,
                     vectorization_mode="vector_entry_point", max_episode_steps=0)
    with pytest.raises(ValueError, match="contradicts settings max_steps=7"):
        gym.make_vec("cuegym/Golfbillard-v0", num_envs=2, vectorization_mode="vector_entry_point",
                     max_episode_steps=5, settings={"max_steps": 7})
