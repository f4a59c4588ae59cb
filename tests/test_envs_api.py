"""API conformance of the cuegym envs: gymnasium check_env on every registered id, SB3's
check_env and VecEnv protocol, PettingZoo's api_test, the env cards."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

import cuegym.envs
from cuegym.envs import ENV_IDS, make_sb3_vec_env

IDS = list(ENV_IDS)


def test_ids_registered_on_import_with_vector_entry_points():
    for env_id in IDS:
        spec = gym.spec(env_id)
        assert spec.vector_entry_point is not None
        assert spec.entry_point.startswith("cuegym.envs.")
    cuegym.envs.register_envs()  # idempotent


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_check_env_without_warnings(env_id):
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gym.make(env_id)
        check_env(env.unwrapped)
        check_env(gym.make(env_id, render_mode="rgb_array").unwrapped, skip_render_check=False)
        # the default wrappers (passive checker, order enforcing) on a real step
        obs, info = env.reset(seed=1)
        assert env.observation_space.contains(obs)
        obs, r, te, tr, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
        assert isinstance(r, float) and "reward_terms" in info


@pytest.mark.parametrize("env_id", IDS)
def test_sb3_check_env(env_id):
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gym.make(env_id).unwrapped)


@pytest.mark.parametrize("env_id", IDS)
def test_vector_env_spaces_and_step(env_id):
    envs = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point")
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    obs, r, te, tr, info = envs.step(envs.action_space.sample())
    assert envs.observation_space.contains(obs)
    assert r.shape == te.shape == tr.shape == (3,) and r.dtype == np.float64
    done = te | tr
    if done.any():
        assert info["_final_obs"].tolist() == done.tolist()
        for t in np.flatnonzero(done):
            assert envs.single_observation_space.contains(info["final_obs"][t])


def test_sb3_vec_env_protocol():
    venv = make_sb3_vec_env("cuegym/KeglebillardShot-v0", n_envs=4, seed=3)
    obs = venv.reset()
    assert obs.shape == (4, 29)
    obs, rewards, dones, infos = venv.step(np.zeros((4, 7), np.float32))
    assert dones.all() and len(infos) == 4 and rewards.dtype == np.float32
    for info in infos:
        assert info["terminal_observation"].shape == (29,)
        assert info["TimeLimit.truncated"] is False
        assert set(info["reward_terms"]) >= {"points", "skaeve"}
    assert venv.get_attr("render_mode") == [None] * 4
    assert venv.env_is_wrapped(gym.Wrapper) == [False] * 4
    assert venv.get_attr("n") == [4] * 4
    venv.close()


def test_sb3_evaluate_policy_reads_the_adapters_monitor_statistics():
    """The adapter carries Monitor's episode statistics, and says so: evaluate_policy uses them
    without its 'not wrapped with a Monitor' warning, and they are the summed rewards."""
    import warnings

    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    venv = make_sb3_vec_env("cuegym/KeglebillardShot-v0", n_envs=2, seed=1)
    assert venv.env_is_wrapped(Monitor) == [True, True]

    class Fixed:  # a deterministic policy: the same strike every time
        def predict(self, obs, state=None, episode_start=None, deterministic=True):
            return np.full((len(obs), 7), 0.3, np.float32), None

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rewards, lengths = evaluate_policy(Fixed(), venv, n_eval_episodes=4,
                                           return_episode_rewards=True)
    venv.close()
    plain = make_sb3_vec_env("cuegym/KeglebillardShot-v0", n_envs=2, seed=1)
    plain.reset()
    _, r, _, _ = plain.step(np.full((2, 7), 0.3, np.float32))  # one shot an episode
    assert lengths == [1, 1, 1, 1] and rewards[:2] == pytest.approx(r.tolist(), abs=1e-5)


def test_sb3_vec_env_matches_native_vector_env():
    """Same seed: SB3 adapter observations and terminal observations equal the native env's."""
    venv = make_sb3_vec_env("cuegym/Keglebillard-v0", n_envs=3, seed=5, info_keys=None)
    envs = gym.make_vec("cuegym/Keglebillard-v0", num_envs=3,
                        vectorization_mode="vector_entry_point")
    o1 = venv.reset()
    o2, _ = envs.reset(seed=5)
    assert np.array_equal(o1, o2)
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = rng.uniform(-1, 1, (3, 7))
        o1, r1, d1, infos = venv.step(a)
        o2, r2, te, tr, info = envs.step(a)
        assert np.array_equal(o1, o2) and np.allclose(r1, r2) and np.array_equal(d1, te | tr)
        for t in np.flatnonzero(d1):
            assert np.array_equal(infos[t]["terminal_observation"], info["final_obs"][t])


def test_sb3_vec_env_reset_infos_and_options():
    v = make_sb3_vec_env("cuegym/KeglebillardShot-v0", n_envs=2, seed=0)
    v.reset()
    v.step(np.zeros((2, 7), np.float32))
    core = v.venv.core
    # after the same-step reset, reset_infos are the new episodes' (as SB3's DummyVecEnv)
    assert [r["position_index"] for r in v.reset_infos] == core.index.tolist()
    v = make_sb3_vec_env("cuegym/KeglebillardShot-v0", n_envs=3, seed=0)
    v.reset()
    v.set_options({"reset_mask": np.array([True, False, False])})
    v.reset()  # the tables not reset keep their reset info
    assert [r["position_index"] for r in v.reset_infos] == v.venv.core.index.tolist()
    assert min(v.venv.core.index[1:]) > 0
    v = make_sb3_vec_env("cuegym/Keglebillard-v0", n_envs=2, seed=0)
    v.reset()
    for _ in range(3):
        before = v.step(np.full((2, 7), 0.3, np.float32))[0]
    v.set_options({"reset_mask": np.array([True, False])})  # passed on to the native env
    after = v.reset()
    assert np.array_equal(before[1], after[1]) and not np.array_equal(before[0], after[0])
    v.set_options({"reset_masq": True})
    with pytest.raises(ValueError, match="reset_masq"):
        v.reset()
    v.set_options([{"reset_mask": np.array([True, False])}, {}])
    with pytest.raises(ValueError, match="one options dict"):
        v.reset()


def test_sb3_vec_env_records_monitor_episode_statistics():
    """Each episode's last info has Monitor's {"r", "l", "t"}, so SB3 logs ep_rew_mean."""
    from stable_baselines3 import PPO

    v = make_sb3_vec_env("cuegym/Keglebillard-v0", n_envs=2, seed=0)
    v.reset()
    totals, lengths, episodes = np.zeros(2), np.zeros(2, int), []
    rng = np.random.default_rng(0)
    while len(episodes) < 3:
        _, r, done, infos = v.step(rng.uniform(-1, 1, (2, 7)))
        totals += r
        lengths += 1
        for t in range(2):
            assert ("episode" in infos[t]) == bool(done[t])
            if done[t]:
                ep = infos[t]["episode"]
                assert ep["l"] == lengths[t] and ep["r"] == pytest.approx(totals[t], abs=1e-4)
                assert ep["t"] >= 0
                episodes.append(ep)
                totals[t], lengths[t] = 0.0, 0
    v.set_options({"reset_mask": np.array([False, True])})  # table 0's episode goes on
    v.step(np.zeros((2, 7)))
    v.reset()
    assert v._ep_length.tolist() == [lengths[0] + 1, 0]
    shots = make_sb3_vec_env("cuegym/KeglebillardShot-v0", n_envs=8, seed=0)
    model = PPO("MlpPolicy", shots, n_steps=8, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=64)
    assert len(model.ep_info_buffer) == 64  # one-shot episodes (was: 0 without a VecMonitor)


def test_sb3_ppo_learns_a_few_steps_on_the_native_adapter(tmp_path):
    from stable_baselines3 import PPO

    venv = make_sb3_vec_env("cuegym/KeglebillardShot-v0", n_envs=8, seed=0)
    model = PPO("MlpPolicy", venv, n_steps=8, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=64)
    action, _ = model.predict(venv.reset(), deterministic=True)
    assert action.shape == (8, 7)


@pytest.mark.parametrize("kwargs", [{"num_players": 2}, {"num_players": 3},
                                    {"num_players": 2, "rules": {"variant": "ddbu"}}])
def test_pettingzoo_api_keglebillard(kwargs):
    from pettingzoo.test import api_test

    from cuegym.envs import keglebillard_v0

    # api_test also resets with options={"options": 1}: the AEC env says it ignores them
    with pytest.warns(UserWarning, match=r"keglebillard_v0 takes no reset options; ignored"):
        api_test(keglebillard_v0.env(**kwargs), num_cycles=60, verbose_progress=False)


@pytest.mark.parametrize("duo", [False, True])
def test_pettingzoo_api_golfbillard(duo):
    from pettingzoo.test import api_test

    from cuegym.envs import golfbillard_v0

    with pytest.warns(UserWarning, match=r"golfbillard_v0 takes no reset options; ignored"):
        api_test(golfbillard_v0.env(duo=duo), num_cycles=40, verbose_progress=False)


def test_pettingzoo_keeps_the_turn_when_the_rules_say_so():
    """K-25 (ddbu): a player keeps shooting while scoring; the AEC agent stays selected."""
    from cuegym.envs import keglebillard_v0

    env = keglebillard_v0.env(num_players=2, rules={"variant": "ddbu"})
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    kept = 0
    for agent in env.agent_iter(max_iter=400):
        _, _, te, tr, _ = env.last()
        if te or tr:
            env.step(None)
            continue
        env.step(rng.uniform(-1, 1, 7).astype(np.float32))
        if agent in env.infos and "shot" in env.infos[agent]:
            shot = env.infos[agent]["shot"]
            if not shot["foul"] and shot["points"] > 0 and not env.game_state.game_over:
                assert env.agent_selection == agent
                kept += 1
            elif not env.game_state.game_over:
                assert env.agent_selection != agent
    assert kept > 0


@pytest.mark.parametrize("cls_name", ["KeglebillardShotEnv", "KeglebillardEnv",
                                      "GolfbillardShotEnv", "GolfbillardEnv"])
def test_env_cards_have_every_section(cls_name):
    doc = getattr(cuegym.envs, cls_name).__doc__
    for section in ("## Description", "## Action Space", "## Observation Space", "## Rewards",
                    "## Starting State", "## Episode End", "## Arguments",
                    "## Version History"):
        assert section in doc, (cls_name, section)
    assert "| index | name |" in doc


def test_observation_tables_cover_the_layouts():
    from cuegym.envs import golf, kegle

    kdoc = cuegym.envs.KeglebillardShotEnv.__doc__
    for name in ("red_x", "white_on_table", "king_up", "red_in_hand", "in_hand_behind_salvo_line",
                 "break", "to_move", "own_score", "seat1_score", "seat1_in_game"):
        assert name in kdoc and name in kegle.OBS_INDEX
    assert kegle.OBS_DIM == 29 and "(29,)" in kdoc
    gdoc = cuegym.envs.GolfbillardShotEnv.__doc__
    for name in ("own1_x", "opp1_x", "own_balls_left", "kader", "opening", "turn_continues",
                 "own1_duty", "to_move", "own_games_won"):
        assert name in gdoc and name in golf.OBS_INDEX
    assert golf.OBS_DIM == 43 and "(43,)" in gdoc


@pytest.mark.parametrize("module", ["keglebillard_v0", "golfbillard_v0"])
def test_pettingzoo_rgb_array_render_and_close(module):
    import importlib

    m = importlib.import_module(f"cuegym.envs.{module}")
    env = m.env(render_mode="rgb_array")
    env.reset(seed=0)
    for agent in env.agent_iter(max_iter=3):
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else env.action_space(agent).sample())
    frame = env.render()
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8
    assert frame.std() > 0  # a drawn table, not a blank image
    env.close()
    assert m.raw_env().render() is None  # no render mode: nothing drawn


def _flat(info, prefix=""):
    out = {}
    for k, v in info.items():
        out.update(_flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {prefix + k: v})
    return out


@pytest.mark.parametrize("env_id", list(ENV_IDS))
def test_native_vector_infos_match_sync_vectorisation(env_id):
    """The native vector env's infos are what gymnasium's SyncVectorEnv (same-step reset)
    builds from the single env: the same values where set, and the same dtypes (an int8
    ``overflow`` or a ``<U5`` ``foul_rule`` broke concatenating the two)."""
    native = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point",
                          noise="tournament")
    sync = gym.make_vec(env_id, num_envs=3, vectorization_mode="sync", noise="tournament",
                        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP})
    native.reset(seed=4)
    sync.reset(seed=4)
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(12):
        a = rng.uniform(-1, 1, (3, 7))
        *_, got = native.step(a)
        *_, want = sync.step(a)
        got, want = _flat(got), _flat(want)
        for key in set(got) & set(want):
            name = key.rsplit(".", 1)[-1]
            if name.startswith("_") or name == "final_obs":
                continue
            mask = got[key.rsplit(".", 1)[0] + "._" + name if "." in key else "_" + name]
            assert got[key].dtype == want[key].dtype, key
            np.testing.assert_array_equal(got[key][mask], want[key][mask], err_msg=key)
            compared += 1
    assert compared > 12
