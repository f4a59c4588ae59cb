"""Conventions an RL user expects of the cuegym envs with the standard tooling, second round
(test_envs_conventions.py is the first): settings reached through gymnasium's attribute
protocol (``set_wrapper_attr``, the vector envs' ``set_attr`` / ``get_attr``), per-table
``get_attr`` answers of the native vector env and the SB3 adapter, writable frames, the reward
wrappers' refusals, and PettingZoo's per-agent spaces, float rewards, pickling after a human
render and the raw envs' refusals before ``reset()``. Each test failed before its fix."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest

from cuegym.envs import ENV_IDS, make_sb3_vec_env

IDS = list(ENV_IDS)
AEC_MODULES = ["keglebillard_v0", "golfbillard_v0"]


def _aec(module: str):
    import importlib

    return importlib.import_module(f"cuegym.envs.{module}")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_vector_set_attr_reaches_the_envs_settings(mode):
    """Was: ``SyncVectorEnv`` / ``AsyncVectorEnv.set_attr("clip", True)`` left a shadow
    attribute on each env's outermost wrapper: ``get_attr("clip")`` read back True while the
    envs still refused out-of-range actions (the native vector env's ``set_attr`` clips)."""
    envs = gym.make_vec("cuegym/KeglebillardShot-v0", 2, vectorization_mode=mode)
    try:
        envs.reset(seed=0)
        envs.set_attr("clip", True)
        assert envs.get_attr("clip") == (True, True)
        envs.step(np.full((2, 7), 1.5))  # clipped, not refused
        envs.set_attr("noise", "tournament")
        assert [n.name for n in envs.get_attr("noise")] == ["tournament"] * 2
        if mode == "sync":  # (an error in an async worker shuts the workers down)
            with pytest.raises(ValueError, match="clip must be True or False, got 'yes'"):
                envs.set_attr("clip", "yes")
    finally:
        envs.close()


@pytest.mark.parametrize("env_id", IDS)
def test_set_wrapper_attr_changes_the_setting_the_env_plays_with(env_id):
    """Was: ``env.set_wrapper_attr("noise", "tournament")`` on ``gym.make(id)`` set a string on
    the OrderEnforcing wrapper (``get_wrapper_attr`` read it back) and the env kept playing
    without noise; the value is now checked as the constructor checks it and used."""
    env = gym.make(env_id)
    env.set_wrapper_attr("noise", "tournament")
    assert env.unwrapped.core.noise.name == "tournament"
    assert env.get_wrapper_attr("noise") is env.unwrapped.core.noise
    noisy = gym.make(env_id, noise="tournament")
    a = np.full(7, 0.3, np.float32)
    for e in (env, noisy):
        e.reset(seed=3)
    assert env.step(a)[4]["strike"].tolist() == noisy.step(a)[4]["strike"].tolist()
    with pytest.raises(ValueError, match="clip must be True or False, got 1"):
        env.set_wrapper_attr("clip", 1)
    assert env.unwrapped.core.clip is False
    if "Shot" not in env_id:
        env.set_wrapper_attr("seat_choice", 1)
        assert env.unwrapped.core.seat_choice == 1
        with pytest.raises(ValueError, match="seat must be"):
            env.set_wrapper_attr("seat_choice", 7)
    # a copy keeps its settings and an unknown attribute is still an AttributeError
    assert copy.deepcopy(env.unwrapped).core.noise.name == "tournament"
    assert pickle.loads(pickle.dumps(env.unwrapped)).core.noise.name == "tournament"
    with pytest.raises(AttributeError, match="no_such_setting"):
        env.unwrapped.no_such_setting  # noqa: B018


@pytest.mark.parametrize("env_id", ["cuegym/KeglebillardShot-v0", "cuegym/Golfbillard-v0"])
def test_native_get_attr_answers_np_random_spec_and_metadata_per_table(env_id):
    """Was: the native vector env's ``get_attr("np_random")``, ``("spec")``, ``("metadata")``
    (and the SB3 adapter's ``get_attr("np_random")``) raised AttributeError about the core,
    where ``SyncVectorEnv`` answers each env's. Each table's spec remakes a single env that
    plays as that table."""
    kw = dict(noise="tournament")
    envs = gym.make_vec(env_id, 3, vectorization_mode="vector_entry_point", **kw)
    envs.reset(seed=10)
    rngs = envs.get_attr("np_random")
    assert len(rngs) == 3 and all(r is c for r, c in zip(rngs, envs.unwrapped.core.rngs,
                                                         strict=True))
    assert envs.call("np_random")[1] is envs.unwrapped.core.rngs[1]
    assert envs.get_attr("metadata")[0]["render_modes"] == ["rgb_array"]
    spec = envs.get_attr("spec")[0]
    assert spec.id == env_id and spec.kwargs == kw
    assert spec.max_episode_steps == (None if "Shot" in env_id else 500)
    single = gym.make(spec)
    obs, _ = single.reset(seed=11)
    assert np.array_equal(obs, envs.reset(seed=10)[0][1])
    acts = np.random.default_rng(0).uniform(-1, 1, (3, 3, 7)).astype(np.float32)
    for a in acts:
        o, r, *_ = envs.step(a)
        o1, r1, te, tr, _ = single.step(a[1])
        assert r1 == r[1]
        if te or tr:
            break
        assert np.array_equal(o1, o[1])
    # made directly (no make_vec): no spec, as single envs made directly have none
    direct = type(envs.unwrapped)(2)
    assert direct.get_attr("spec") == (None, None)

    venv = make_sb3_vec_env(env_id, 2, seed=0)
    venv.reset()
    assert venv.get_attr("np_random", indices=[1])[0] is venv.venv.unwrapped.core.rngs[1]
    assert venv.get_attr("clip") == [False, False]
    venv.close()


def test_rendered_frames_are_writable_arrays():
    """Was: every frame was a read-only view of a Pillow image (``np.asarray``): drawing on it
    raised ``assignment destination is read-only`` and ``torch.from_numpy`` warned."""
    from cuegym.envs import keglebillard_v0

    frames = []
    for mode in ("rgb_array", "rgb_array_list"):
        env = gym.make("cuegym/KeglebillardShot-v0", render_mode=mode)
        env.reset(seed=0)
        f = env.render()
        frames += f if isinstance(f, list) else [f]
    envs = gym.make_vec("cuegym/GolfbillardShot-v0", 2, render_mode="rgb_array")
    envs.reset(seed=0)
    frames += list(envs.render())
    aec = keglebillard_v0.env(render_mode="rgb_array")
    aec.reset(seed=0)
    frames.append(aec.render())
    for f in frames:
        assert f.dtype == np.uint8 and f.flags.writeable
        f[:2, :2] = 0


def test_reward_weight_wrappers_name_the_env_they_need():
    """Was: ``VectorRewardWeights`` over a sync vector env and ``RewardWeights`` over a
    non-cuegym env raised ``AttributeError: ... has no attribute 'core'``."""
    from cuegym.envs.wrappers import RewardWeights, VectorRewardWeights

    sync = gym.make_vec("cuegym/GolfbillardShot-v0", 2, vectorization_mode="sync")
    with pytest.raises(ValueError, match="native cuegym vector env.*SyncVectorEnv"):
        VectorRewardWeights(sync, {"foul": -1.0})
    with pytest.raises(ValueError, match="RewardWeights needs a cuegym env.*CartPoleEnv"):
        RewardWeights(gym.make("CartPole-v1"), {"foul": -1.0})
    # the way the message gives for sync envs works
    wrapped = gym.make_vec("cuegym/GolfbillardShot-v0", 2, vectorization_mode="sync",
                           wrappers=[lambda e: RewardWeights(e, {"foul": -1.0})])
    wrapped.reset(seed=0)
    _, r, *_ , info = wrapped.step(np.zeros((2, 7)))
    assert np.isfinite(r).all()


@pytest.mark.parametrize("module", AEC_MODULES)
def test_pettingzoo_env_pickles_and_copies_after_a_human_render(module):
    """Was: after ``render()`` in human mode, ``pickle.dumps`` / ``copy.deepcopy`` of the AEC
    env failed with ``cannot pickle 'module' object`` (its matplotlib window); the copy now
    leaves the window behind and continues the game identically."""
    import matplotlib

    matplotlib.use("Agg")
    env = _aec(module).env(render_mode="human")
    env.reset(seed=0)
    env.render()
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    assert all(c.unwrapped._viewer is None for c in copies)
    runs = []
    for e in (env, *copies):
        e.unwrapped.render_mode = None  # no windows while the games go on
        out = []
        for agent in e.agent_iter(max_iter=4):
            obs, r, te, tr, _ = e.last()
            out.append((agent, r, obs.tobytes()))
            e.step(None if te or tr else np.full(7, 0.2, np.float32))
        runs.append(out)
    assert runs[0] == runs[1] == runs[2]
    env.close()


@pytest.mark.parametrize("module", AEC_MODULES)
def test_pettingzoo_spaces_are_each_agents_own_and_check_the_agent(module):
    """Was: ``observation_space(agent)`` / ``action_space(agent)`` returned one shared space
    for any name (``"nobody"`` too), so seeding one agent's action space reseeded every
    agent's."""
    env = _aec(module).env()
    env.reset(seed=0)
    a0, a1 = env.possible_agents[:2]
    assert env.action_space(a0) is env.action_space(a0)
    assert env.observation_space(a0) is env.observation_space(a0)
    assert env.action_space(a0) is not env.action_space(a1)
    assert env.action_space(a0) == env.action_space(a1)
    env.action_space(a0).seed(1)
    env.action_space(a1).seed(2)
    first = env.action_space(a0).sample()
    env.action_space(a0).seed(1)
    env.action_space(a1).sample()  # another agent's draw does not move a0's stream
    assert np.array_equal(env.action_space(a0).sample(), first)
    for space in (env.observation_space, env.action_space):
        with pytest.raises(ValueError, match="unknown agent 'nobody'"):
            space("nobody")


def test_pettingzoo_golf_rewards_stay_floats_on_the_opening_choice():
    """Was: side 0's opening choice (nothing played yet) left ``env.rewards`` as the ints
    PettingZoo's ``_clear_rewards`` writes, among float rewards on every other step."""
    from cuegym.envs import golfbillard_v0

    env = golfbillard_v0.raw_env()
    env.reset(seed=0)
    env.step(np.zeros(7, np.float32))  # side 0 chooses its opening stroke
    assert env.agent_selection == "side_1"
    assert all(type(r) is float for r in env.rewards.values())


@pytest.mark.parametrize("module", AEC_MODULES)
def test_pettingzoo_raw_env_refuses_observe_and_render_before_reset(module):
    """Was: ``raw_env().observe(agent)`` before ``reset()`` raised AttributeError about
    ``states`` / ``agent_selection``, and ``render()`` raised one (keglebillard) or drew a
    table no episode had started on (golfbillard)."""
    env = _aec(module).raw_env(render_mode="rgb_array")
    with pytest.raises(RuntimeError, match="call reset\\(\\) before observe\\(\\)"):
        env.observe(env.possible_agents[0])
    with pytest.raises(RuntimeError, match="call reset\\(\\) before render\\(\\)"):
        env.render()
    assert _aec(module).raw_env().render() is None  # no render mode: nothing drawn, as before
    env.reset(seed=0)
    assert env.render().ndim == 3 and env.observe(env.possible_agents[0]).dtype == np.float32


@pytest.mark.parametrize("module", AEC_MODULES)
def test_pettingzoo_turn_based_parallel_conversion_passes_the_parallel_api_test(module):
    """The documented way to a parallel env (``aec_to_parallel`` refuses the turn-based
    envs): PettingZoo's ``turn_based_aec_to_parallel`` passes ``parallel_api_test`` and
    ``parallel_seed_test``."""
    import warnings

    from pettingzoo.test import parallel_api_test, parallel_seed_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    m = _aec(module)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*takes no reset options")
        parallel_api_test(turn_based_aec_to_parallel(m.env()), num_cycles=20)
        parallel_seed_test(lambda: turn_based_aec_to_parallel(m.env()), num_cycles=10)


def test_call_and_env_method_refuse_the_vector_envs_own_steps():
    """``call("reset")`` reached the core's ``reset(idx)`` (TypeError: missing 'idx'), and
    ``call("step", a)`` stepped the core without the action checks, autoreset or statistics."""
    venv = gym.make_vec("cuegym/KeglebillardShot-v0", 2, vectorization_mode="vector_entry_point")
    venv.reset(seed=0)
    for name in ("reset", "step"):
        with pytest.raises(ValueError, match=rf"call\('{name}'\) would {name} the shared core"):
            venv.call(name)
    sb3 = make_sb3_vec_env("cuegym/KeglebillardShot-v0", 2, seed=0)
    sb3.reset()
    with pytest.raises(ValueError, match=r"use the vector env's own reset\(\)"):
        sb3.env_method("reset")
    assert len(sb3.env_method("observe")) == 2  # the core's other methods still answer
    sb3.close()
    venv.close()


def test_max_episode_steps_against_settings_given_as_an_object_or_a_file(tmp_path):
    """A limit contradicting the ``max_steps`` of an EnvSettings or a YAML settings file won
    without a word (only a mapping's ``max_steps`` was compared)."""
    import dataclasses

    import yaml

    from cuegym.envs.config import load_settings

    own = dataclasses.replace(load_settings("keglebillard"), max_steps=7)
    with pytest.raises(ValueError, match="max_episode_steps=5 contradicts settings max_steps=7"):
        gym.make_vec("cuegym/Keglebillard-v0", num_envs=2,
                     vectorization_mode="vector_entry_point", max_episode_steps=5, settings=own)
    path = tmp_path / "settings.yaml"
    path.write_text(yaml.safe_dump({**dataclasses.asdict(own), "max_steps": 9}))
    with pytest.raises(ValueError, match="max_episode_steps=5 contradicts settings max_steps=9"):
        gym.make_vec("cuegym/Keglebillard-v0", num_envs=2,
                     vectorization_mode="vector_entry_point", max_episode_steps=5,
                     settings=str(path))
    same = gym.make_vec("cuegym/Keglebillard-v0", num_envs=2,  # agreeing: fine
                        vectorization_mode="vector_entry_point", max_episode_steps=7,
                        settings=own)
    assert same.unwrapped.core.max_episode_steps == 7
    same.close()


@pytest.mark.parametrize("env_id,limit", [("cuegym/Keglebillard-v0", 3),
                                          ("cuegym/KeglebillardShot-v0", 1)])
def test_sb3_table_spec_of_an_env_made_with_max_episode_steps_remakes_it(env_id, limit):
    # the spec kept max_episode_steps among its kwargs: gym.make(spec) raised TypeError
    venv = make_sb3_vec_env(env_id, n_envs=2, seed=0, max_episode_steps=limit)
    spec = venv.get_attr("spec")[0]
    assert "max_episode_steps" not in spec.kwargs
    env = gym.make(spec)
    if "Shot" not in env_id:
        assert env.spec.max_episode_steps == limit == env.unwrapped.core.max_episode_steps
    env.close()
    venv.close()


@pytest.mark.parametrize("settings", [None, {"max_opponent_shots": 300}])
def test_native_table_spec_keeps_a_limit_longer_than_the_default(settings):
    # a limit above the shipped max_steps (500) went only into a TimeLimit, so the remade
    # env truncated at 500 where the table plays on
    envs = gym.make_vec("cuegym/Keglebillard-v0", num_envs=1, settings=settings,
                        vectorization_mode="vector_entry_point", max_episode_steps=600)
    single = gym.make(envs.get_attr("spec")[0])
    assert single.unwrapped.core.max_episode_steps == envs.unwrapped.core.max_episode_steps == 600
    if settings:
        assert single.unwrapped.core.settings.max_opponent_shots == 300
    envs.reset(seed=3)
    single.reset(seed=3)
    envs.unwrapped.core.steps[:] = 499
    single.unwrapped.core.steps[:] = 499
    a = np.full(single.action_space.shape, 0.1, np.float32)
    _, _, te_v, tr_v, _ = envs.step(a[None])
    _, _, te_s, tr_s, _ = single.step(a)
    assert (bool(te_v[0]), bool(tr_v[0])) == (te_s, tr_s)
    envs.close()
    single.close()
