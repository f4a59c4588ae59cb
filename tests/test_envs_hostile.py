"""Hostile use of the envs (issue 13): constructor arguments and actions a careless or hostile
user passes, each refused with a ValueError naming the bad value, and the env usable after every
refusal; PettingZoo order errors and wrappers; the animated render and its videos."""

from __future__ import annotations

import re
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
GAME_IDS = ("cuegym/Keglebillard-v0", "cuegym/Golfbillard-v0")
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
    with pytest.raises(ValueError, match="seed must be None or an integer >= 0, got -1"):
        env.reset(seed=-1)  # was: gymnasium.error.Error
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
        check_actions(action, None, 7, clip=True)  # clip never turns them into numbers


@HYP
@given(action=st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=7,
                       max_size=7))
def test_non_finite_or_out_of_range_actions_raise_and_valid_ones_pass(action):
    a = np.array(action, np.float32)
    if not np.isfinite(a).all():
        with pytest.raises(ValueError, match="must be finite"):
            check_actions(a, None, 7, clip=True)
    elif np.abs(a).max() > 1:
        with pytest.raises(ValueError, match=r"outside \[-1, 1\]"):
            check_actions(a, None, 7, clip=False)
        assert np.abs(check_actions(a, None, 7, clip=True)).max() <= 1
    else:
        np.testing.assert_array_equal(check_actions(a, None, 7, clip=False)[0], a)


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
    with pytest.raises(ValueError, match="seed must be None or an integer >= 0, got -1"):
        raw.reset(seed=-1)  # was: gymnasium.error.Error
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


@pytest.mark.parametrize("module, reward", [
    ("keglebillard_v0", {"skaeve_received": 1 / 16, "opponent_points": -1 / 16}),
    ("golfbillard_v0", {"progress": 1.0}),
])
def test_pettingzoo_refused_action_keeps_the_agents_pending_reward(module, reward):
    import importlib

    env = importlib.import_module(f"cuegym.envs.{module}").env(reward=reward)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        _, r, te, tr, _ = env.last()
        if r != 0 and not (te or tr):
            break
        env.step(None if te or tr else rng.uniform(-1, 1, 7).astype(np.float32))
    agent, pending = env.agent_selection, env.last()[1]
    assert pending != 0
    bad = np.zeros(7, np.float32)
    bad[0] = np.nan
    with pytest.raises(ValueError, match="nan"):
        env.step(bad)
    assert env.agent_selection == agent and env.last()[1] == pending


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


# -- hostile-input sweep: arguments read silently, rejected calls that changed state ---------

K_SHOT, G_SHOT = SHOT_IDS
K_GAME, G_GAME = "cuegym/Keglebillard-v0", "cuegym/Golfbillard-v0"


def _vec(env_id, n=3, **kwargs):
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


def _rng_states(venv):
    return [r.bit_generator.state["state"] for r in venv.unwrapped.core.rngs]


@pytest.mark.parametrize("kwargs, match", [
    ({"clip": "no"}, "clip must be True or False, got 'no'"),  # was: clipping on
    ({"clip": 1}, "clip must be True or False, got 1"),
    ({"threads": 0}, r"threads must be None or an integer >= 1, got 0"),  # was: at step
    ({"threads": 2.5}, r"threads must be None or an integer >= 1, got 2.5"),  # was: 2
    ({"threads": "4"}, r"threads must be None or an integer >= 1, got '4'"),
    ({"positions": "keglebillard"}, "positions must be None or a KeglebillardPositions"),
    ({"rules": 5}, "rules must be None, a mapping"),  # was: TypeError about paths
    ({"settings": {"positions": "golfbillard"}}, "'golfbillard' is not a keglebillard bank"),
    ({"table": "keglebillard-helmatch", "settings": {"positions": "keglebillard-play"}},
     "'keglebillard-play' is a bank of another table"),  # was: silently the helmatch bank
])
def test_keglebillard_constructor_values_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        gym.make(K_SHOT, **kwargs)


@pytest.mark.parametrize("env_id, kwargs, match", [
    (G_SHOT, {"clip": "yes"}, "clip must be True or False"),
    (G_SHOT, {"rules": "x.yaml"}, "rules must be None, a mapping of rule options or a "
                                  "GolfRules, got 'x.yaml'"),
    (G_SHOT, {"settings": {"positions": "keglebillard"}}, "is not a golfbillard bank"),
    (G_GAME, {"seat": True}, "seat must be 'random', 0 or 1, got True"),  # was: side 1
    (G_GAME, {"seat": 1.0}, "seat must be 'random', 0 or 1, got 1.0"),
    (G_GAME, {"threads": -1}, "threads must be None or an integer >= 1, got -1"),
    (K_GAME, {"num_players": 3, "seat": 3}, r"seat must be 'random', 0\.\.2, got 3"),
    (K_GAME, {"seat": False}, "seat must be 'random', 0 or 1, got False"),
    (K_GAME, {"opponent_batching": "batch"}, "opponent_batching must be 'per_table' or "
                                             "'batched', got 'batch' .did you mean 'batched'"),
    (G_GAME, {"opponent_batching": None}, "opponent_batching must be 'per_table' or "
                                          "'batched', got None"),
    (K_GAME, {"rules": {"first_player": "random"}}, "rules first_player='random'"),  # ignored
    # numbers written as strings are refused, as in every config (were: converted silently)
    (K_GAME, {"reward": {"foul": "1"}}, "reward.foul must be a number, got '1'"),
    (G_GAME, {"noise": {"phi": "0.5"}}, "noise.phi must be a number, got '0.5'"),
    (K_SHOT, {"settings": {"t_max": "30"}}, "t_max must be a number, got '30'"),
    (G_SHOT, {"rules": {"hard_speed": "2"}}, "rules.hard_speed must be a number, got '2'"),
    # an empty path is the folder "." (was: IsADirectoryError)
    (K_GAME, {"settings": ""}, "'.' is a folder, not a config file"),
    (K_GAME, {"rules": ""}, "'.' is a folder, not a rules file"),
])
def test_constructor_values_are_checked(env_id, kwargs, match):
    with pytest.raises(ValueError, match=match):
        gym.make(env_id, **kwargs)


def test_a_bank_of_the_other_game_is_refused_at_construction():
    from cuegym.envs.positions import load_positions

    with pytest.raises(ValueError, match="a GolfbillardPositions .* got KeglebillardPositions"):
        gym.make(G_SHOT, positions=load_positions("keglebillard"))
    with pytest.raises(ValueError, match="a KeglebillardPositions .* got GolfbillardPositions"):
        gym.make(K_SHOT, positions=load_positions("golfbillard"))


@pytest.mark.parametrize("seed, match", [
    (2.5, r"seed must be None, an integer >= 0 or a sequence of 3 of them \(one per table\), "
          "got 2.5"),  # was: TypeError
    ("abc", "got 'abc'"),  # was: int('a')
    (True, "or a sequence of 3 of them .one per table., got True"),  # was: seed 1
    ([1.5, 2, 3], r"got 1.5 in \[1.5, 2, 3\]"),  # was: 1, 2, 3
    ([1, -1, 2], r"got -1 in \[1, -1, 2\]"),  # was: table 0 reseeded first
])
def test_vector_reset_refuses_bad_seeds_and_keeps_its_generators(seed, match):
    venv = _vec(K_SHOT)
    obs0, _ = venv.reset(seed=0)
    before = _rng_states(venv)
    with pytest.raises(ValueError, match=match):
        venv.reset(seed=seed)
    assert _rng_states(venv) == before
    obs, _ = venv.reset(seed=0)
    np.testing.assert_array_equal(obs, obs0)


@pytest.mark.parametrize("mask, match", [
    ([1, 0, 1], "must be a bool array of shape \\(3,\\), got dtype int64"),  # was: cast
    (["a", "", "b"], "got dtype <U1"),  # was: all True
    ([0.5, 0.0, np.nan], "got dtype float64"),
    ([True], r"must have shape \(3,\), got \(1,\)"),  # was: checked after reseeding
])
def test_vector_reset_mask_must_be_bools_and_is_checked_before_reseeding(mask, match):
    venv = _vec(K_SHOT)
    venv.reset(seed=0)
    before = _rng_states(venv)
    with pytest.raises(ValueError, match=match):
        venv.reset(seed=7, options={"reset_mask": mask})
    assert _rng_states(venv) == before
    venv.reset(options={"reset_mask": np.array([True, False, True])})


def test_first_vector_reset_must_reset_every_table():
    venv = _vec(K_SHOT)  # was: tables 1, 2 left at the core's blank state, then played
    with pytest.raises(ValueError, match="must select every table on the first reset"):
        venv.reset(options={"reset_mask": [True, False, False]})
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        venv.step(np.zeros((3, 7)))
    venv.reset(seed=0, options={"reset_mask": [True, True, True]})
    venv.step(np.zeros((3, 7)))


@pytest.mark.parametrize("env_id", SHOT_IDS + GAME_IDS)
def test_single_env_refuses_bool_float_str_and_negative_seeds_and_takes_numpy_ints(env_id):
    env = gym.make(env_id)
    with pytest.raises(ValueError, match="seed must be None or an integer >= 0, got True"):
        env.reset(seed=True)  # was: seed 1
    for bad in (1.5, "3", -1, [3]):  # was: gymnasium.error.Error naming the type, not the value
        with pytest.raises(ValueError, match=f"seed must be None or an integer >= 0, got "
                                             f"{re.escape(repr(bad))}"):
            env.reset(seed=bad)
    a, _ = env.reset(seed=np.int64(3))  # was: gymnasium's "must be a python integer"
    b, _ = env.reset(seed=3)
    np.testing.assert_array_equal(a, b)


def test_masked_actions_are_refused_not_unmasked():
    env = _shared_env()
    env.reset(seed=0)
    masked = np.ma.masked_array(np.zeros(7), mask=[True] + [False] * 6)
    with pytest.raises(ValueError, match="masked entries"):  # was: the hidden value played
        env.step(masked)
    _, _, terminated, _, _ = env.step(np.zeros(7, np.float32))
    assert terminated


def test_vector_set_attr_refuses_unknown_names_and_bad_values():
    venv = _vec(K_SHOT, 2)
    venv.reset(seed=0)
    env = venv.unwrapped
    with pytest.raises(ValueError, match=r"unknown env setting 'clipp' \(did you mean "
                                         r"'clip'\?\)"):
        env.set_attr("clipp", True)  # was: a new attribute, nothing changed
    assert not hasattr(env.core, "clipp")
    with pytest.raises(ValueError, match="clip must be True or False, got 'no'"):
        env.set_attr("clip", "no")
    with pytest.raises(ValueError, match="unknown shot-noise preset 'bogus'"):
        env.set_attr("noise", "bogus")  # was: stored, failed at the next step
    assert env.core.clip is False and env.core.noise.name == "none"
    env.set_attr("noise", "tournament")
    env.set_attr("reward", {"points": 0.5})
    assert env.core.noise.name == "tournament" and env.core.reward.points == 0.5
    venv.step(np.zeros((2, 7)))
    # gymnasium's per-table list: equal values (not only the same object) are one setting
    env.set_attr("noise", ["none", "".join(["no", "ne"])])
    env.set_attr("reward", [{"points": 0.25}, {"points": 0.25}])
    assert env.core.noise.name == "none" and env.core.reward.points == 0.25
    for differ in (["none", "tournament"], [], [{"points": 1.0}, {"points": 2.0}]):
        with pytest.raises(ValueError, match="shares one setting across its tables"):
            env.set_attr("reward" if differ and isinstance(differ[0], dict) else "noise",
                         differ)


def test_vector_set_attr_refuses_the_envs_state_and_checks_the_full_game_settings():
    venv = _vec(K_GAME, 2, seat=0)
    venv.reset(seed=0)
    env = venv.unwrapped
    states = env.core.states
    for name in ("states", "rngs", "steps", "seat", "action_space"):
        # was: stored unchecked; set_attr("states", None) broke the next step, and
        # set_attr("steps", ...) changed the episode counters silently
        with pytest.raises(ValueError, match=rf"env attribute '{name}' is the env's state or "
                                             r"structure, not a setting; set_attr takes 'clip'"):
            env.set_attr(name, None)
    assert env.core.states is states
    with pytest.raises(ValueError, match="opponent_batching must be 'per_table' or 'batched', "
                                         "got 'bached'"):
        env.set_attr("opponent_batching", "bached")
    with pytest.raises(ValueError, match="seat must be 'random', 0 or 1, got 5"):
        env.set_attr("seat_choice", 5)
    with pytest.raises(ValueError, match="unknown opponent 'bogus'"):
        env.set_attr("opponent", "bogus")  # was: stored as a string, failed at the next step
    env.set_attr("opponent", "geometric")
    env.set_attr("opponent_batching", "batched")
    env.set_attr("seat_choice", 1)
    assert type(env.core.opponent).__name__ != "str" and hasattr(env.core.opponent, "act")
    env.set_attr("opponent", "random")
    assert type(env.core.opponent).__name__ == "KegleRandomOpponent"
    venv.reset(seed=1)
    assert (env.core.seat == 1).all()
    venv.step(np.zeros((2, 7)))
    shot = _vec(G_SHOT, 2).unwrapped
    with pytest.raises(ValueError, match=r"unknown env setting 'opponent'"):
        shot.set_attr("opponent", "geometric")  # the Shot envs have no opponent


def test_sb3_vec_env_checks_seed_info_keys_and_set_attr():
    from cuegym.envs import make_sb3_vec_env

    for seed in (-1, "a", 2.5, True):  # was: failing at every later reset, or truncated
        with pytest.raises(ValueError, match="seed must be None or an integer >= 0"):
            make_sb3_vec_env(K_SHOT, n_envs=2, seed=seed)
    with pytest.raises(ValueError, match=r"unknown info key 'plyed' \(did you mean "
                                         r"'played'\?\)"):
        make_sb3_vec_env(K_SHOT, n_envs=2, info_keys=["plyed"])  # was: silently absent
    with pytest.raises(ValueError, match="info_keys must be None or a list"):
        make_sb3_vec_env(K_SHOT, n_envs=2, info_keys="played")  # was: its letters
    venv = make_sb3_vec_env(K_SHOT, n_envs=2, seed=0, info_keys=["points"])
    with pytest.raises(ValueError, match="seed must be None or an integer >= 0, got -1"):
        venv.seed(-1)
    obs = venv.reset()  # still usable: the rejected seed was not kept
    assert obs.shape == (2, 29)
    with pytest.raises(ValueError, match="unknown env setting 'bogus'"):
        venv.set_attr("bogus", 1)
    _, _, _, infos = venv.step(np.zeros((2, 7)))
    assert set(infos[0]) == {"points", "terminal_observation", "TimeLimit.truncated", "episode"}


@pytest.mark.parametrize("env_id", list(cuegym.envs.ENV_IDS))
def test_declared_info_keys_are_the_step_info_keys(env_id):
    kwargs = {} if "Shot" in env_id else {"seat": 0}
    venv = _vec(env_id, 2, **kwargs)
    venv.reset(seed=0)
    _, _, _, _, info = venv.step(np.zeros((2, 7)))
    info = info.get("final_info", info)
    keys = {k for k in info if not k.startswith("_") and k not in ("final_obs", "final_info")}
    assert keys == set(venv.unwrapped.core.INFO_KEYS)


@pytest.mark.parametrize("module, kwargs, match", [
    ("keglebillard_v0", {"max_shots": 0}, "max_shots must be >= 1, got 0"),
    ("golfbillard_v0", {"max_shots": 2.5}, "got 2.5"),  # was: 0 -> the default, 2.5 kept
    ("keglebillard_v0", {"clip": "no"}, "clip must be True or False"),
    ("keglebillard_v0", {"rules": {"first_player": "lag"}}, "first_player='lag'"),
    ("golfbillard_v0", {"rules": {"duo": True}}, "rules duo=True contradicts duo=False"),
    ("golfbillard_v0", {"rules": 5}, "rules must be None or a mapping"),
])
def test_pettingzoo_constructor_values_are_checked(module, kwargs, match):
    import importlib

    m = importlib.import_module(f"cuegym.envs.{module}")
    with pytest.raises(ValueError, match=match):
        m.raw_env(**kwargs)


def test_pettingzoo_unknown_agent_bool_seed_and_random_breaker():
    from cuegym.envs import golfbillard_v0, keglebillard_v0

    g = golfbillard_v0.raw_env()
    g.reset(seed=0)
    with pytest.raises(ValueError, match=r"unknown agent 'side_9'"):  # was: IndexError
        g.observe("side_9")
    with pytest.raises(ValueError, match="seed must be None or an integer >= 0, got True"):
        g.reset(seed=True)
    k = keglebillard_v0.raw_env(num_players=np.int64(3),  # was: refused
                                rules={"first_player": "random"})  # was: player_0 always
    breakers = set()
    for seed in range(12):
        k.reset(seed=seed)
        breakers.add(k.agent_selection)
    assert breakers == {"player_0", "player_1", "player_2"}


# -- agents ----------------------------------------------------------------------------------


@pytest.mark.parametrize("spec, match", [
    ("planner:n_noise=2.5", "n_noise must be an integer >= 1, got 2.5"),  # was: 2
    ("planner:n_noise=true", "n_noise must be an integer >= 1, got True"),  # was: 1
    ("planner:n_base=-1", "n_base must be >= 1, got -1"),  # was: accepted
    ("planner:jitter={phii: 1}", r"unknown jitter key 'phii' \(did you mean 'phi'\?\)"),
    ("planner:jitter={phi: .nan}", r"jitter\['phi'\] must be a finite number >= 0.0"),
    ("planner:terms={bihh: 1}", "unknown terms key 'bihh'"),  # was: silently no term
    ("planner:spins=[.inf]", r"spins\[0\] must be a finite number in \[-0.6, 0.6\]"),
    ("planner:spins=5", "spins must be a list"),  # was: TypeError
    ("planner:=3", "has no name"),
    ("guided:n_top=1.5", "n_top must be an integer >= 0, got 1.5"),
])
def test_agent_spec_values_are_checked(spec, match):
    from cuegym.agents import make_agent

    with pytest.raises(ValueError, match=match):
        make_agent(spec, "keglebillard")


def test_agent_spec_type_arena_game_and_deterministic():
    from cuegym.agents import make_agent, make_arena, pretrained_path

    with pytest.raises(ValueError, match="agent spec must be a name or a model path"):
        make_agent(None, "keglebillard")  # was: AttributeError
    with pytest.raises(ValueError, match="arena is a golfbillard arena, not keglebillard"):
        make_agent("geometric", "keglebillard", arena=make_arena("golfbillard"))
    if pretrained_path("keglebillard") is not None:
        with pytest.raises(ValueError, match="deterministic must be true or false"):
            make_agent("pretrained:deterministic=maybe,aim=none", "keglebillard")


@pytest.mark.parametrize("game, obs_dim", [("keglebillard", 29), ("golfbillard", 43)])
def test_agents_refuse_observations_and_the_other_games_states(game, obs_dim):
    from cuegym.agents import make_agent, make_arena

    other = make_arena("golfbillard" if game == "keglebillard" else "keglebillard")
    arena = make_arena(game)
    states = arena.new_states(2)
    rng = np.random.default_rng(0)
    for spec in ("random", "geometric"):
        agent = make_agent(spec, game, arena=arena)
        for obs in (np.zeros((2, obs_dim), np.float32), np.zeros(obs_dim, np.float32)):
            with pytest.raises(ValueError, match=r"act\(\) takes a batch of .* got an array of "
                                                 r"shape"):  # was: AttributeError
                agent.act(obs, rng)
        with pytest.raises(ValueError, match=r"act\(\) takes a batch of "):
            agent.act(other.new_states(2), rng)
        with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
            agent.act(states, 0)
        if game == "golfbillard":
            opening = arena.new_states(2)  # (states are play positions from the 2nd agent on)
            with pytest.raises(ValueError, match="side must be 0 or 1, got 2"):  # IndexError
                agent.act_opening(opening, 2, rng)
            assert len(agent.act_opening(opening, 1, rng)) == 2
            states.phase[:] = 1  # play (after an alternate opening)
        assert len(agent.act(states, rng)) == 2


def test_actions_are_not_reshaped_between_single_and_vector_form():
    """A single env takes (7,) only, a vector env (n, 7) only, even for n = 1 (a (1, 7) action
    to a single env was played as if it were (7,), outside its action space)."""
    with pytest.raises(ValueError, match=r"action must have shape \(7,\), got \(1, 7\)"):
        check_actions(np.zeros((1, 7)), None, 7, clip=False)
    with pytest.raises(ValueError, match=r"action must have shape \(1, 7\), got \(7,\)"):
        check_actions(np.zeros(7), 1, 7, clip=False)
    with pytest.raises(ValueError, match=r"action\[0, 3\] = 2.0 is outside"):
        check_actions(np.array([[0, 0, 0, 2.0, 0, 0, 0]]), 1, 7, clip=False)
    env = gym.make("cuegym/Keglebillard-v0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action must have shape \(7,\), got \(1, 7\)"):
        env.step(np.zeros((1, 7)))
    env.step(np.zeros(7))
    venv = _vec(K_SHOT, 1)
    venv.reset(seed=0)
    with pytest.raises(ValueError, match=r"action must have shape \(1, 7\), got \(7,\)"):
        venv.step(np.zeros(7))
    venv.step(np.zeros((1, 7)))


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_full_game_spec_names_the_episode_limit(env_id):
    """Wrappers that read ``spec.max_episode_steps`` see the env's own truncation limit (it was
    None while the env truncated at 500); a TimeLimit from gym.make still shortens it."""
    from gymnasium.wrappers import TimeAwareObservation

    assert gym.make(env_id).spec.max_episode_steps == 500
    env = gym.make(env_id, settings={"max_steps": 2})
    assert env.spec.max_episode_steps == 2
    wrapped = TimeAwareObservation(env)  # was: "must be wrapped by a TimeLimit wrapper"
    obs, _ = wrapped.reset(seed=0)
    assert obs[-1] == 0
    truncated = terminated = False
    steps = 0
    while not (terminated or truncated):
        _, _, terminated, truncated, _ = wrapped.step(np.zeros(7))
        steps += 1
    assert steps <= 2 and (terminated or truncated)
    assert gym.make(env_id, max_episode_steps=7).spec.max_episode_steps == 7
    assert gym.make(SHOT_IDS[0]).spec.max_episode_steps is None


def test_vector_call_render_and_sb3_env_method_render_give_each_tables_frame():
    from cuegym.envs import make_sb3_vec_env

    venv = _vec(K_SHOT, 2, render_mode="rgb_array")
    venv.reset(seed=0)
    venv.step(np.zeros((2, 7)))
    frames = venv.call("render")  # was: AttributeError on the core
    assert len(frames) == 2 and frames[0].shape[2] == 3 and frames[0].dtype == np.uint8
    np.testing.assert_array_equal(frames[1], venv.render()[1])
    sb3 = make_sb3_vec_env(K_SHOT, n_envs=2, seed=0, render_mode="rgb_array")
    sb3.reset()
    got = sb3.env_method("render", indices=[1])
    assert len(got) == 1 and got[0].ndim == 3


class _InterruptedOpponent:
    """The random agent, except that its first move after ``armed`` is set raises (as Ctrl-C
    inside a slow opponent would)."""

    def __init__(self, game):
        from cuegym.agents import make_agent

        self.inner = make_agent("random", game)
        self.armed = False

    def act(self, states, rng):
        if self.armed:
            self.armed = False
            raise KeyboardInterrupt
        return self.inner.act(states, rng)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_a_step_its_opponent_broke_off_is_refused_until_reset(env_id):
    """The learner's shot was played, the opponents' were not: stepping again would play the
    next action in an opponent's seat, so it is refused, naming the table; a reset recovers."""
    game = "keglebillard" if "Kegle" in env_id else "golfbillard"
    opp = _InterruptedOpponent(game)
    env = gym.make(env_id, opponent=opp, seat=0)
    env.reset(seed=0)
    a = np.zeros(env.action_space.shape, np.float32)
    opp.armed = True
    with pytest.raises(KeyboardInterrupt):
        for _ in range(50):  # golfbillard: until the turn passes to the opponent
            env.step(a)
    with pytest.raises(RuntimeError, match=r"opponents are to play \(tables \[0\]\).*reset"):
        env.step(a)
    env.reset(seed=1)
    env.step(a)


@pytest.mark.parametrize("env_id", SHOT_IDS + GAME_IDS)
def test_render_before_reset_is_refused(env_id):
    """Was: a frame of the core's blank state ("position 0", no red drawn), in the vector env
    and the unwrapped env (gymnasium.make's order check hid it for the wrapped one)."""
    venv = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point",
                        render_mode="rgb_array")
    with pytest.raises(RuntimeError, match=r"call reset\(\) before render\(\)"):
        venv.render()
    venv.reset(seed=0)
    assert len(venv.render()) == 2
    env = gym.make(env_id, render_mode="rgb_array").unwrapped
    with pytest.raises(RuntimeError, match=r"call reset\(\) before render\(\)"):
        env.render()
    env.reset(seed=0)
    assert env.render().ndim == 3
