"""Hostile use of the envs (issue 13): constructor arguments and actions a careless or hostile
user passes, each refused with a ValueError naming the bad value, and the env usable after every
refusal; PettingZoo order errors and wrappers; the animated render and its videos."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cuegym  # noqa: F401  (registers the ids)
from cuegym.envs.actions import check_actions
from cuegym.envs.checks import check_num_envs, check_render_mode, check_reset_options

SHOT_IDS = ("cuegym/KeglebillardShot-v0", "cuegym/GolfbillardShot-v0")
HYP = settings(max_examples=60, deadline=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture])

# -- constructor arguments -------------------------------------------------------------------

not_a_count = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.text(max_size=5),
    st.integers(max_value=0), st.none(), st.lists(st.integers(1, 4), max_size=2),
    st.complex_numbers())


@HYP
@given(n=not_a_count)
def test_num_envs_must_be_a_positive_integer(n):
    with pytest.raises(ValueError, match="num_envs must be an integer >= 1"):
        check_num_envs(n)


@pytest.mark.parametrize("env_id", ["cuegym/KeglebillardShot-v0", "cuegym/Golfbillard-v0"])
@pytest.mark.parametrize("n", [2.5, 2.0, True, "4", 0, -3])
def test_vector_envs_refuse_bad_num_envs(env_id, n):
    with pytest.raises(ValueError, match=r"num_envs must be an integer >= 1, got"):
        gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")
    assert check_num_envs(np.int64(3)) == 3


@HYP
@given(mode=st.text(max_size=12).filter(lambda m: m not in ("rgb_array", "rgb_array_list",
                                                             "human")))
def test_unknown_render_modes_are_refused(mode):
    with pytest.raises(ValueError, match="render_mode"):
        check_render_mode(mode, ("rgb_array", "rgb_array_list", "human"))


@pytest.mark.parametrize("env_id", ["cuegym/KeglebillardShot-v0", "cuegym/GolfbillardShot-v0",
                                    "cuegym/Keglebillard-v0", "cuegym/Golfbillard-v0"])
def test_envs_refuse_an_unknown_render_mode(env_id):
    with pytest.raises(ValueError, match=r"unknown render_mode 'rgb' \(did you mean "
                                         r"'rgb_array'\?\)"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium's own warning before the env refuses
        gym.make(env_id, render_mode="rgb")
    with pytest.raises(ValueError, match="render_mode"):
        gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point",
                     render_mode="human")  # the vector envs draw rgb_array frames only


@HYP
@given(options=st.dictionaries(st.text(min_size=1, max_size=8), st.integers(), min_size=1))
def test_reset_options_are_checked(options):
    with pytest.raises(ValueError, match="no reset options"):
        check_reset_options(options)
    known = check_reset_options({"reset_mask": [True]}, ("reset_mask",))
    assert known == {"reset_mask": [True]}


@pytest.mark.parametrize("env_id", SHOT_IDS)
def test_unknown_reset_option_and_bad_seed_leave_the_env_usable(env_id):
    env = gym.make(env_id)
    with pytest.raises(ValueError, match=r"no reset options, got \['bogus'\]"):
        env.reset(seed=0, options={"bogus": 1})
    with pytest.raises(gym.error.Error, match="Seed must be"):
        env.reset(seed=-1)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    _, _, terminated, _, _ = env.step(env.action_space.sample())
    assert terminated
    venv = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point")
    with pytest.raises(ValueError, match=r"unknown reset option 'mask' \(did you mean "
                                         r"'reset_mask'\?\)"):
        venv.reset(seed=0, options={"mask": [True, False]})
    venv.reset(seed=0, options={"reset_mask": [True, True]})
    venv.step(venv.action_space.sample())


def test_sb3_vec_env_names_an_unknown_id():
    from cuegym.envs import make_sb3_vec_env

    with pytest.raises(ValueError, match=r"unknown env id 'cuegym/KeglebillardShot-v1' \(did "
                                         r"you mean 'cuegym/KeglebillardShot-v0'\?\)"):
        make_sb3_vec_env("cuegym/KeglebillardShot-v1", n_envs=2)


# -- actions ---------------------------------------------------------------------------------

wrong_dtype = st.one_of(
    st.lists(st.text(max_size=4), min_size=7, max_size=7),
    st.lists(st.complex_numbers(allow_nan=False, allow_infinity=False, max_magnitude=1),
             min_size=7, max_size=7),
    st.lists(st.booleans(), min_size=7, max_size=7),
    st.text(max_size=10),
    st.lists(st.one_of(st.none(), st.floats(-1, 1)), min_size=7, max_size=7).filter(
        lambda xs: None in xs),
)


@HYP
@given(action=wrong_dtype)
def test_actions_of_the_wrong_dtype_are_refused(action):
    with pytest.raises(ValueError, match="action must be numeric"):
        check_actions(action, 1, 7, clip=True)  # clip never turns them into numbers


@HYP
@given(action=st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=7,
                       max_size=7))
def test_non_finite_or_out_of_range_actions_raise_and_valid_ones_pass(action):
    a = np.array(action, np.float32)
    if not np.isfinite(a).all():
        with pytest.raises(ValueError, match="must be finite"):
            check_actions(a, 1, 7, clip=True)
    elif np.abs(a).max() > 1:
        with pytest.raises(ValueError, match=r"outside \[-1, 1\]"):
            check_actions(a, 1, 7, clip=False)
        assert np.abs(check_actions(a, 1, 7, clip=True)).max() <= 1
    else:
        np.testing.assert_array_equal(check_actions(a, 1, 7, clip=False)[0], a)


@pytest.mark.parametrize("env_id", SHOT_IDS)
def test_env_refuses_string_and_complex_actions_and_stays_usable(env_id):
    env = gym.make(env_id)
    env.reset(seed=0)
    for bad in (np.array(["0.1"] * 7), np.full(7, 0.1 + 0.5j), "0.1", [None] * 7):
        with pytest.raises(ValueError, match="numeric"):
            env.step(bad)
    _, _, terminated, _, _ = env.step(np.zeros(7, np.float32))
    assert terminated


@HYP
@given(action=st.lists(st.floats(-1, 1, width=32), min_size=7, max_size=7))
def test_random_valid_actions_step_cleanly(action):
    env = _shared_env()
    obs, _ = env.reset(seed=len(action))
    obs, reward, terminated, truncated, info = env.step(np.array(action, np.float32))
    assert env.observation_space.contains(obs) and np.isfinite(reward)
    assert terminated and not truncated


_ENV: dict = {}


def _shared_env():
    if "env" not in _ENV:
        _ENV["env"] = gym.make("cuegym/KeglebillardShot-v0")
    return _ENV["env"]


# -- PettingZoo ------------------------------------------------------------------------------


@pytest.mark.parametrize("module", ["keglebillard_v0", "golfbillard_v0"])
def test_pettingzoo_env_is_wrapped_and_raw_env_is_not(module):
    import importlib

    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    m = importlib.import_module(f"cuegym.envs.{module}")
    env = m.env()
    assert isinstance(env, OrderEnforcingWrapper)
    assert isinstance(env.unwrapped, m.raw_env)
    assert not isinstance(m.raw_env(), OrderEnforcingWrapper)


@pytest.mark.parametrize("module", ["keglebillard_v0", "golfbillard_v0"])
def test_pettingzoo_step_before_reset_and_after_the_end(module):
    import importlib

    m = importlib.import_module(f"cuegym.envs.{module}")
    with pytest.raises(AssertionError, match="reset"):  # PettingZoo's wrapper
        m.env().step(np.zeros(7, np.float32))
    raw = m.raw_env(settings={"max_steps": 3})
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        raw.step(np.zeros(7, np.float32))
    with pytest.raises(gym.error.Error, match="Seed must be"):
        raw.reset(seed=-1)
    with pytest.raises(ValueError, match="mapping"):
        raw.reset(seed=0, options=["x"])
    raw.reset(seed=0)
    for agent in raw.agent_iter(max_iter=100):
        _, _, te, tr, _ = raw.last()
        raw.step(None if te or tr else raw.action_space(agent).sample())
    assert raw.agents == []
    with pytest.raises(RuntimeError, match="the game is over"):
        raw.step(np.zeros(7, np.float32))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        raw.reset(seed=1, options={"x": 1})
    assert any("takes no reset options" in str(w.message) for w in caught)
    with pytest.raises(ValueError, match="render_mode"):
        m.raw_env(render_mode="rgb")


# -- animated render and video ---------------------------------------------------------------


@pytest.mark.parametrize("env_id", ["cuegym/KeglebillardShot-v0", "cuegym/Golfbillard-v0"])
def test_rgb_array_list_animates_the_shot(env_id):
    env = gym.make(env_id, render_mode="rgb_array_list", seat=0) if "Shot" not in env_id \
        else gym.make(env_id, render_mode="rgb_array_list")
    env.reset(seed=3)
    start = env.render()
    assert len(start) == 1 and start[0].dtype == np.uint8
    env.step(np.array([0.2, 0.1, -1, 0, 0, 0.5, 0.0], np.float32))
    frames = env.render()
    assert len(frames) > 5  # the shot as it happens, then the table after it
    assert env.render() == []  # frames since the last render() call
    assert env.metadata["render_fps"] == 25
    moving = [np.abs(frames[k].astype(int) - frames[k + 1]).sum() for k in range(3)]
    assert min(moving) > 0  # consecutive frames differ: the balls move


def test_record_video_writes_an_animated_shot(tmp_path):
    pytest.importorskip("moviepy", reason="the video extra: pip install 'cuegym[video]'")
    from gymnasium.wrappers import RecordVideo

    from cuegym.envs.wrappers import RecordShotVideo

    env = RecordShotVideo(gym.make("cuegym/KeglebillardShot-v0", render_mode="rgb_array_list"),
                          str(tmp_path / "anim"))
    env.reset(seed=0)
    env.step(np.array([0.2, 0.0, -1, 0, 0, 0.5, 0.0], np.float32))
    n = len(env.recorded_frames)
    env.close()
    assert n > 10
    videos = list((tmp_path / "anim").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    env = RecordVideo(gym.make("cuegym/GolfbillardShot-v0", render_mode="rgb_array"),
                      str(tmp_path / "plain"))
    env.reset(seed=0)
    env.step(env.action_space.sample())
    env.close()
    assert len(list((tmp_path / "plain").glob("*.mp4"))) == 1
