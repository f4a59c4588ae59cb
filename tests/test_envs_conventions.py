"""What RL users expect of the cuegym envs with the standard tooling, beyond the API checks of
test_envs_api.py: Gymnasium's single and vector wrappers, the three vectorisations playing the
same games, spec round trips and copies, seeding across processes, observations, rewards and
info types over many steps, SB3's VecEnv wrappers and DummyVecEnv, PettingZoo's seed test."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from cuegym.envs import ENV_IDS, make_sb3_vec_env

IDS = list(ENV_IDS)
ROOT = Path(__file__).resolve().parents[1]


def _limit(env_id: str, n: int = 3) -> dict:
    """Short full games (``max_episode_steps``), so that episodes end within a few steps."""
    return {} if "Shot" in env_id else {"max_episode_steps": n}


def _sig(info: dict, prefix: str = "") -> dict:
    """key -> (type, dtype, shape) of a (nested) info dict."""
    out = {}
    for k, v in info.items():
        if isinstance(v, dict):
            out.update(_sig(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = (type(v).__name__, str(getattr(v, "dtype", "")), np.shape(v))
    return out


@pytest.mark.parametrize("env_id", IDS)
def test_cleanrl_style_wrapper_stack(env_id):
    """CleanRL's continuous-action PPO stack over a SyncVectorEnv (Gymnasium 1.x names), fed
    unclipped Gaussian actions; episode statistics come back through RecordEpisodeStatistics."""

    def make():
        env = gym.make(env_id, **_limit(env_id))
        env = gym.wrappers.FlattenObservation(env)
        env = gym.wrappers.RecordEpisodeStatistics(env)
        env = gym.wrappers.ClipAction(env)
        env = gym.wrappers.NormalizeObservation(env)
        env = gym.wrappers.TransformObservation(env, lambda o: np.clip(o, -10, 10),
                                                env.observation_space)
        env = gym.wrappers.NormalizeReward(env, gamma=0.99)
        return gym.wrappers.TransformReward(env, lambda r: np.clip(r, -10, 10))

    envs = gym.vector.SyncVectorEnv([make, make])
    envs.reset(seed=1)
    rng = np.random.default_rng(0)
    lengths = []
    for _ in range(7):
        *_, infos = envs.step(rng.normal(0.0, 1.5, (2, 7)))
        if "episode" in infos:
            lengths += infos["episode"]["l"][infos["_episode"]].tolist()
    assert lengths and set(lengths) == ({1} if "Shot" in env_id else {3})


@pytest.mark.parametrize("env_id", IDS)
def test_single_env_wrappers(env_id):
    """Frame stacking, sticky actions, float32 RescaleAction bounds and the passive checker run
    without a warning; TimeAwareObservation needs the spec's limit, which only the full games
    have (a Shot episode is one step)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gym.make(env_id, disable_env_checker=False, **_limit(env_id))
        env = gym.wrappers.FrameStackObservation(env, 3)
        env = gym.wrappers.StickyAction(env, 0.25)
        # float32 bounds: Python floats would make gymnasium warn about float64 precision
        env = gym.wrappers.RescaleAction(env, np.zeros(7, np.float32), np.ones(7, np.float32))
        env.action_space.seed(0)
        obs, _ = env.reset(seed=0)
        for _ in range(6):
            obs, r, te, tr, _ = env.step(env.action_space.sample())
            assert env.observation_space.contains(obs) and np.isfinite(r)
            if te or tr:
                obs, _ = env.reset()
        if "Shot" in env_id:
            with pytest.raises(ValueError, match="max_episode_steps"):
                gym.wrappers.TimeAwareObservation(gym.make(env_id))
        else:
            env = gym.wrappers.TimeAwareObservation(gym.make(env_id))
            assert env.observation_space.contains(env.reset(seed=0)[0])


@pytest.mark.parametrize("env_id", IDS)
def test_vector_episode_statistics_equal_the_summed_rewards(env_id):
    """Gymnasium's vector RecordEpisodeStatistics over the same-step native env: each
    episode's return and length are the rewards and steps of that table since its last end."""
    envs = gym.wrappers.vector.RecordEpisodeStatistics(
        gym.make_vec(env_id, 3, vectorization_mode="vector_entry_point", **_limit(env_id)))
    envs.reset(seed=0)
    rng = np.random.default_rng(1)
    ret, length, episodes = np.zeros(3), np.zeros(3, np.int64), 0
    for _ in range(10):
        _, r, te, tr, info = envs.step(rng.uniform(-1, 1, (3, 7)))
        ret += r
        length += 1
        done = te | tr
        for t in np.flatnonzero(done):
            assert info["episode"]["r"][t] == pytest.approx(ret[t], abs=1e-12)
            assert info["episode"]["l"][t] == length[t]
            episodes += 1
        ret[done], length[done] = 0.0, 0
    assert episodes >= 9


@pytest.mark.parametrize("env_id", IDS)
def test_native_sync_and_async_vectorisations_play_the_same_games(env_id):
    """Same seeds and actions: the native vector env, SyncVectorEnv and AsyncVectorEnv (pickled
    to its workers) give the same observations, rewards and ends; DictInfoToList (RLlib's
    info form) gives infos of the same structure for the native and the sync env."""
    kw = dict(noise="tournament", **_limit(env_id))
    same_step = {"autoreset_mode": AutoresetMode.SAME_STEP}
    native = gym.make_vec(env_id, 2, vectorization_mode="vector_entry_point", **kw)
    sync = gym.make_vec(env_id, 2, vectorization_mode="sync", vector_kwargs=same_step, **kw)
    asyn = gym.make_vec(env_id, 2, vectorization_mode="async", vector_kwargs=same_step, **kw)
    try:
        envs = (native, sync, asyn)
        first = [e.reset(seed=7)[0] for e in envs]
        assert all(np.array_equal(first[0], o) for o in first[1:])
        rng = np.random.default_rng(0)
        for _ in range(6):
            a = rng.uniform(-1, 1, (2, 7))
            got = [e.step(a) for e in envs]
            for other in got[1:]:
                for k in range(4):
                    np.testing.assert_array_equal(got[0][k], other[k])
    finally:
        asyn.close()

    def shape(x):
        if isinstance(x, dict):
            return {k: shape(v) for k, v in x.items()}
        if isinstance(x, list):
            return [shape(v) for v in x]
        return type(x).__name__, str(getattr(x, "dtype", ""))

    lists = [gym.wrappers.vector.DictInfoToList(gym.make_vec(
        env_id, 2, vectorization_mode=mode, vector_kwargs=vk, **kw))
        for mode, vk in (("vector_entry_point", None), ("sync", same_step))]
    assert shape(lists[0].reset(seed=0)[1]) == shape(lists[1].reset(seed=0)[1])
    for _ in range(4):
        a = np.zeros((2, 7))
        assert shape(lists[0].step(a)[4]) == shape(lists[1].step(a)[4])


@pytest.mark.parametrize("env_id", IDS)
def test_spec_round_trips_and_copies_continue_identically(env_id):
    """``gym.make(env.spec)``, ``gym.make(id, **spec.kwargs)`` and a deepcopy taken mid-episode
    play the same games as the original; the spec serialises to JSON."""
    env = gym.make(env_id, noise="tournament")
    assert gym.spec(env_id).id == env.spec.id and env.spec.to_json()
    again = [gym.make(env.spec), gym.make(env_id, **env.spec.kwargs)]
    actions = np.random.default_rng(0).uniform(-1, 1, (8, 7))

    def play(e, a):
        out = []
        for x in a:
            obs, r, te, tr, _ = e.step(x)
            out.append((obs, r, te, tr))
            if te or tr:
                out.append((e.reset()[0],))
        return out

    def same(p, q):
        return len(p) == len(q) and all(
            all(np.array_equal(x, y) for x, y in zip(s, t, strict=True))
            for s, t in zip(p, q, strict=True))

    for e in (env, *again):
        e.reset(seed=3)
    want = play(env, actions)
    for e in again:
        assert same(play(e, actions), want)
    env.reset(seed=5)
    if "Shot" not in env_id:
        env.step(actions[0])
    clone = copy.deepcopy(env)
    assert same(play(env, actions[1:]), play(clone, actions[1:]))


_FINGERPRINT = """
import hashlib, numpy as np, gymnasium as gym, cuegym
out = []
for env_id in cuegym.envs.ENV_IDS:
    env = gym.make(env_id, noise="tournament")
    env.action_space.seed(0)
    h = hashlib.sha256()
    obs, _ = env.reset(seed=11)
    h.update(obs.tobytes())
    for _ in range(12):
        obs, r, te, tr, _ = env.step(env.action_space.sample())
        h.update(obs.tobytes() + np.float64(r).tobytes() + bytes([te, tr]))
        if te or tr:
            h.update(env.reset()[0].tobytes())
    out.append(h.hexdigest())
print(" ".join(out))
"""


def test_seeded_games_are_the_same_in_a_fresh_process():
    """``reset(seed=s)``, ``reset()`` continuing the stream and ``action_space.seed`` make the
    same games bit for bit here and in fresh processes with other hash seeds."""
    def run(hash_seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", _FINGERPRINT], capture_output=True,
                              text=True, cwd=ROOT.parent, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.split()

    ns: dict = {}
    captured = []
    ns["print"] = lambda s: captured.append(s)
    exec(_FINGERPRINT, ns)  # noqa: S102 - the same script in this process
    here = captured[0].split()
    assert len(here) == len(IDS)
    assert run("1") == here and run("2") == here


@pytest.mark.parametrize("env_id", IDS)
def test_observations_rewards_and_infos_stay_in_form(env_id):
    """Many steps with shot noise and extreme actions: every observation (also the terminal
    ones of same-step resets) is float32 inside the observation space, every reward finite;
    the single env's step infos keep their keys, types and dtypes from step to step."""
    n = 32
    envs = gym.make_vec(env_id, n, vectorization_mode="vector_entry_point", noise="tournament",
                        **_limit(env_id, 5))
    space = envs.single_observation_space
    envs.reset(seed=100)
    rng = np.random.default_rng(1)
    ends = 0
    for i in range(16):
        a = rng.choice([-1.0, 1.0, 0.0, 0.9], (n, 7)) if i % 2 else rng.uniform(-1, 1, (n, 7))
        obs, r, te, tr, info = envs.step(a)
        assert obs.dtype == np.float32 and envs.observation_space.contains(obs)
        assert r.dtype == np.float64 and np.isfinite(r).all()
        for t in np.flatnonzero(te | tr):
            assert space.contains(info["final_obs"][t])
            ends += 1
    assert ends >= n

    env = gym.make(env_id, noise="tournament", **_limit(env_id, 5))
    env.action_space.seed(0)
    env.reset(seed=2)
    sigs = set()
    for _ in range(25):
        obs, r, te, tr, info = env.step(env.action_space.sample())
        assert type(r) is float and type(te) is bool and type(tr) is bool
        sigs.add(tuple(sorted(_sig(info).items())))
        if te or tr:
            env.reset()
    assert len(sigs) == 1, sigs


@pytest.mark.parametrize("env_id", IDS)
def test_sb3_vec_env_wrappers_learn_and_evaluate(env_id):
    """SB3's VecEnv wrappers stacked on the adapter (NaN check, Monitor, normalisation, frame
    stacking): PPO learns a few steps and evaluate_policy reads finite episode returns."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.vec_env import VecCheckNan, VecFrameStack, VecNormalize

    from cuegym.envs.sb3 import vec_monitor

    venv = make_sb3_vec_env(env_id, n_envs=2, seed=0, **_limit(env_id))
    venv = VecFrameStack(VecNormalize(vec_monitor(VecCheckNan(venv, raise_exception=True))), 2)
    assert venv.observation_space.shape == (2 * venv.unwrapped.observation_space.shape[0],)
    model = PPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    mean, std = evaluate_policy(model, venv, n_eval_episodes=2)
    assert np.isfinite(mean) and np.isfinite(std)
    venv.close()


def test_sb3_adapter_matches_dummy_vec_env_with_monitor():
    """The adapter plays what SB3's own DummyVecEnv of Monitor-wrapped single envs plays:
    observations, rewards, dones, terminal observations, ``TimeLimit.truncated`` and the
    Monitor statistics (full games cut at 3 steps: a TimeLimit there, max_steps here)."""
    from stable_baselines3.common.env_util import make_vec_env

    dummy = make_vec_env("cuegym/Keglebillard-v0", n_envs=3, seed=4,
                         env_kwargs={"max_episode_steps": 3})
    ours = make_sb3_vec_env("cuegym/Keglebillard-v0", n_envs=3, seed=4, max_episode_steps=3)
    assert np.array_equal(dummy.reset(), ours.reset())
    assert dummy.reset_infos == ours.reset_infos
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(9):
        a = rng.uniform(-1, 1, (3, 7)).astype(np.float32)
        o1, r1, d1, i1 = dummy.step(a)
        o2, r2, d2, i2 = ours.step(a)
        assert np.array_equal(o1, o2) and np.array_equal(d1, d2)
        assert r1.dtype == r2.dtype and np.allclose(r1, r2)
        for t in np.flatnonzero(d1):
            assert np.array_equal(i1[t]["terminal_observation"], i2[t]["terminal_observation"])
            assert i1[t]["TimeLimit.truncated"] == i2[t]["TimeLimit.truncated"]
            assert i1[t]["episode"]["l"] == i2[t]["episode"]["l"]
            assert i1[t]["episode"]["r"] == pytest.approx(i2[t]["episode"]["r"], abs=1e-5)
            ended += 1
    assert ended >= 9


@pytest.mark.parametrize("module", ["keglebillard_v0", "golfbillard_v0"])
def test_pettingzoo_seed_test_and_no_parallel_conversion(module):
    """PettingZoo's seed_test passes; the turn-based AEC envs say they are not parallelizable,
    so PettingZoo's aec_to_parallel refuses them."""
    import importlib

    from pettingzoo.test import seed_test
    from pettingzoo.utils.conversions import aec_to_parallel

    m = importlib.import_module(f"cuegym.envs.{module}")
    seed_test(m.env, num_cycles=20)
    assert m.env().metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(m.env())


def test_sb3_adapter_answers_spec_and_metadata_and_takes_the_module_id_form():
    """Were: ``get_attr("spec")`` / ``("metadata")`` raised AttributeError (SB3's DummyVecEnv
    answers both, and ``has_attr`` read False); ``make_sb3_vec_env("cuegym:cuegym/...")``, the
    form gym.make takes, was refused as an unknown id."""
    import gymnasium as gym

    from cuegym.envs import make_sb3_vec_env

    venv = make_sb3_vec_env("cuegym:cuegym/KeglebillardShot-v0", n_envs=2, seed=0)
    try:
        assert venv.get_attr("spec") == [gym.spec("cuegym/KeglebillardShot-v0")] * 2
        assert venv.has_attr("metadata") and "render_modes" in venv.get_attr("metadata")[0]
        assert not venv.has_attr("no_such_attribute")
    finally:
        venv.close()
