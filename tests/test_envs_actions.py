"""Actions (validation, clip, the documented maps, placements, ball selection), observations
(frames), rewards (weights x terms) and the config loaders."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import cuegym.envs  # noqa: F401
from cuegym.configs import ConfigError
from cuegym.envs.actions import actions_from_strikes, check_actions, strikes_from_actions
from cuegym.envs.config import (
    ActionSpec,
    load_noise,
    load_reward,
    load_settings,
    noise_presets,
)


@pytest.mark.parametrize("env_id", list(cuegym.envs.ENV_IDS))
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1.5, -1.0001])
def test_bad_actions_raise_single(env_id, bad):
    env = gym.make(env_id)
    env.reset(seed=0)
    a = np.zeros(7, np.float32)
    a[2] = bad
    with pytest.raises(ValueError, match=r"action\[2\]"):
        env.step(a)


def test_bad_actions_raise_vector_and_wrong_shapes():
    envs = gym.make_vec("cuegym/KeglebillardShot-v0", num_envs=3,
                        vectorization_mode="vector_entry_point")
    envs.reset(seed=0)
    a = np.zeros((3, 7))
    a[1, 4] = np.nan
    with pytest.raises(ValueError, match=r"action\[1, 4\] is nan"):
        envs.step(a)
    with pytest.raises(ValueError, match="shape"):
        envs.step(np.zeros((2, 7)))
    with pytest.raises(ValueError, match="numeric"):
        check_actions([["a"] * 7], 1, 7, clip=False)
    env = gym.make("cuegym/KeglebillardShot-v0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(6))


def test_clip_option_clips_instead_of_raising():
    a = np.array([2.0, -3.0, 0.5, 1.0, -1.0, 0.0, 7.0])
    env = gym.make("cuegym/KeglebillardShot-v0", clip=True)
    ref = gym.make("cuegym/KeglebillardShot-v0")
    env.reset(seed=4)
    ref.reset(seed=4)
    o1, r1, *_ = env.step(a)
    o2, r2, *_ = ref.step(np.clip(a, -1, 1))
    assert np.array_equal(o1, o2) and r1 == r2
    env.reset(seed=4)
    with pytest.raises(ValueError, match="nan"):
        env.step(np.full(7, np.nan))


def test_float32_rounding_at_the_bounds_is_taken():
    """gymnasium's RescaleAction with float32 bounds maps its own upper bound to 1.0000001;
    such rounding is clipped, a real overshoot still refused."""
    up = np.nextafter(np.float32(1), np.float32(2))
    a = check_actions(np.array([up, -up, 0.5], np.float32), None, 3, clip=False)
    assert a.tolist() == [[1.0, -1.0, 0.5]]
    with pytest.raises(ValueError, match=r"action\[1\] = 1.00001 is outside"):
        check_actions([0.0, 1.00001, 0.0], None, 3, clip=False)
    lo, hi = np.full(7, 0.1, np.float32), np.full(7, 0.7, np.float32)
    env = gym.wrappers.RescaleAction(gym.make("cuegym/KeglebillardShot-v0"), lo, hi)
    env.reset(seed=0)
    env.step(hi)  # rescales to just above 1 in float32


def test_strike_map_ends_and_inverse():
    spec = ActionSpec(V0=(0.5, 6.0), theta=(0.0, 60.0), spin=0.5)
    a = np.array([[-1, -1, -1, -1, -1], [1, 1, 1, 1, 1], [0, 0.5, 0, 0.2, -0.4]], float)
    cue = strikes_from_actions(a, spec)
    assert cue[0].tolist() == [0.5, -180.0, 0.0, -0.5, -0.5]
    assert cue[1, 0] == 6.0 and cue[1, 2] == 60.0 and cue[1, 3] == 0.5
    assert abs(cue[1, 1]) == 180.0
    assert cue[2].tolist() == pytest.approx([3.25, 90.0, 30.0, 0.1, -0.2])
    back = actions_from_strikes(cue[2:], spec)
    assert back[0] == pytest.approx(a[2])
    side1 = strikes_from_actions(a[2:], spec, phi_offset=180.0)
    assert side1[0, 1] == pytest.approx(-90.0)


def test_executed_strike_is_the_mapped_action_without_noise():
    env = gym.make("cuegym/KeglebillardShot-v0")
    env.reset(seed=0)
    _, _, _, _, info = env.step(np.array([0.0, 0.5, -1.0, 0.2, -0.4, 0.0, 0.0], np.float32))
    assert info["strike"] == pytest.approx([3.25, 90.0, 0.0, 0.1, -0.2])


def test_tournament_noise_has_the_documented_deviations():
    from cuegym.configs import load_params

    noise = load_noise("tournament")
    R = load_params("keglebillard").R
    # a and b in units of R: the Olympiad's 0.5 mm cue-tip deviation
    assert noise.sigma == pytest.approx([0.075, 0.125, 0.1, 0.0005 / R, 0.0005 / R])
    rngs = [np.random.default_rng(k) for k in range(2000)]
    cue = np.tile([3.0, 10.0, 20.0, 0.0, 0.0], (2000, 1))
    out = noise.execute(cue, rngs)
    sd = (out - cue).std(0)
    assert sd == pytest.approx(noise.sigma, rel=0.08)
    assert load_noise("none").is_zero and set(noise_presets()) >= {"none", "tournament"}


def test_placement_check_matches_the_previous_rules_check():
    """The compiled K-19 check (Kegle.legal_placement) equals the previous per-table Python
    check (tests/reference) on points near balls, pins, jaws, pockets and the cushions."""
    from reference.kegle_flow import KeglebillardGame

    from cuegym.games.kegle import Kegle

    game = KeglebillardGame()
    G = Kegle()
    rng = np.random.default_rng(0)
    hx, hy = game.table.length / 2, game.table.width / 2
    pts = np.concatenate([
        rng.uniform([-hx, -hy], [hx, hy], (3000, 2)),
        np.array([[p.x, p.y] for p in game.table.pockets]) + rng.normal(0, 0.03, (6, 2)),
        rng.normal(0, 0.05, (500, 2)),  # the pins
        np.array([[-0.525, 0.0]]) + rng.normal(0, 0.06, (500, 2)),  # the white
    ])
    state = game.new_state(2)
    ok = G.legal_placement(G.new(len(pts), 2), pts)
    ref = np.array([game.placement_error(state, p) is None for p in pts])
    assert ok.tolist() == ref.tolist()
    assert 0.2 < ok.mean() < 0.95
    assert not G.legal_placement(G.new(1, 2), np.full((1, 2), np.nan))[0]
    for p in pts[::97]:  # the reasons too
        assert G.placement_error(G.new_state(2), p) == game.placement_error(state, p)


def test_unplayable_placement_is_reported_not_moved():
    """K-19: a placement on the white is a foul (skæve 6), no shot, the red is not moved."""
    from cuegym.envs.kegle import FOUL_FLAGS

    env = cuegym.envs.KeglebillardShotEnv()
    core = env.core
    for seed in range(200):
        env.reset(seed=seed)
        if core.hand[0] == 1 and not np.isnan(core.whites[0, 0, 0]):
            break
    white = core.whites[0, 0]
    m = core.actions
    a = np.zeros(7, np.float32)
    a[5] = 2 * (white[0] + m.hx) / (m.salvo_x + m.hx) - 1
    a[6] = white[1] / m.hy
    if not -1 <= a[5] <= 1:  # the white is in front of the salvo line: use a pin spot instead
        a[5], a[6] = 1.0, 0.0  # (x = salvo line, y = 0) is free; pick the pocket instead
        a[5], a[6] = -1.0, -1.0  # the bottom-left corner pocket's capture circle
    _, r, te, _, info = env.step(a)
    assert te and not info["played"] and info["foul"]
    assert info["skaeve"] == 6 and info["foul_flags"][FOUL_FLAGS.index("K-19:placement")]
    assert r == pytest.approx(-6 / 16)
    assert info["overflow"] == 0


def test_keglebillard_reward_is_weights_times_terms():
    w = load_reward("keglebillard")
    env = gym.make("cuegym/KeglebillardShot-v0", reward={"foul": -0.5})
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        _, r, *_, info = env.step(rng.uniform(-1, 1, 7).astype(np.float32))
        t = info["reward_terms"]
        expect = w.points * t["points"] + w.skaeve * t["skaeve"] - 0.5 * t["foul"] \
            + w.win * t["win"]
        assert r == pytest.approx(expect)
        assert t["skaeve"] == info["skaeve"] and t["points"] == info["shooter_points"]
        env.reset()


def test_golf_selection_picks_own_ball_nearest_the_aimed_point_in_the_side_frame():
    from cuegym.envs.golf import GolfActionMap
    from cuegym.rules.golfbillard import golf_geometry

    geo = golf_geometry()
    m = GolfActionMap(load_settings("golfbillard"), geo)
    xy = np.full((2, 10, 2), np.nan)
    xy[:, 0] = [0.5, 0.2]   # w1
    xy[:, 1] = [-0.5, -0.2]  # w2
    xy[:, 5] = [0.5, 0.2]    # r1 (other table)
    xy[:, 6] = [-0.5, -0.2]  # r2
    xy[1, 0] = xy[1, 1] = np.nan
    a = np.zeros((2, 7))
    a[:, 5:7] = [0.5 / 0.9, 0.2 / 0.45]  # the point (0.5, 0.2) of the side's frame
    b = m.select(a, np.array([0, 1]), xy)
    assert b.tolist() == [0, 6]  # side 1's frame turns (0.5, 0.2) into (-0.5, -0.2): r2


def test_golf_observation_is_turned_for_side_1():
    from cuegym.envs.golf import OBS_INDEX, observe_states
    from cuegym.rules.golfbillard import GolfState

    st = GolfState.with_balls({"w1": (0.45, 0.225), "r1": (-0.45, -0.225)}, to_move=1)
    half = (0.9, 0.45)
    o0, o1 = observe_states([st, st], [0, 1], half)
    assert o0[OBS_INDEX["own1_x"]] == pytest.approx(0.5)
    assert o1[OBS_INDEX["own1_x"]] == pytest.approx(0.5)  # r1 seen from side 1
    assert o1[OBS_INDEX["own1_y"]] == pytest.approx(0.5)
    assert o1[OBS_INDEX["opp1_x"]] == pytest.approx(-0.5)
    assert o1[OBS_INDEX["to_move"]] == 1 and o0[OBS_INDEX["to_move"]] == 0
    assert o0[OBS_INDEX["own_balls_left"]] == pytest.approx(0.2)


def test_keglebillard_observation_of_a_state():
    from cuegym.envs.kegle import OBS_INDEX
    from cuegym.games.kegle import Kegle

    game = Kegle()
    st = game.new_state(3)
    o = game.observe([st, st], [0, 2])
    assert o[0, OBS_INDEX["red_in_hand"]] == 1 and o[0, OBS_INDEX["break"]] == 1
    assert o[0, OBS_INDEX["in_hand_behind_salvo_line"]] == 1
    assert o[0, OBS_INDEX["to_move"]] == 1 and o[1, OBS_INDEX["to_move"]] == 0
    assert o[0, OBS_INDEX["white_x"]] == pytest.approx(-0.525 / 1.05)
    assert o[0, OBS_INDEX["seat1_in_game"]] == 1 and o[0, OBS_INDEX["seat2_in_game"]] == 1
    assert o[0, OBS_INDEX["seat3_in_game"]] == 0


def test_config_loaders_reject_unknown_keys_and_bad_values(tmp_path):
    with pytest.raises(ConfigError, match="unknown"):
        load_reward("keglebillard", {"pointz": 1.0})
    with pytest.raises(ConfigError, match="number"):
        load_reward("golfbillard", {"foul": "x"})
    with pytest.raises(ConfigError, match="unknown game"):
        load_reward("snooker")
    with pytest.raises(ConfigError, match="unknown"):
        load_settings("keglebillard", {"max_event": 3})
    with pytest.raises(ConfigError, match="action"):
        load_settings("keglebillard", {"action": {"V0": [3.0, 1.0]}})
    with pytest.raises(ConfigError, match="unknown"):
        load_settings("keglebillard", {"action": {"speed": [1, 2]}})
    with pytest.raises(ConfigError, match="positive"):
        load_settings("golfbillard", max_events=0)
    with pytest.raises(ConfigError, match="preset"):
        load_noise("pro")
    with pytest.raises(ConfigError, match=">= 0"):
        load_noise({"phi": -1})
    with pytest.raises(ConfigError, match="unknown"):
        gym.make("cuegym/KeglebillardShot-v0", reward={"bogus": 1})
    p = tmp_path / "r.yaml"
    p.write_text("points: 1.0\nskaeve: -1.0\nfoul: 0\nwin: 0\nskaeve_received: 0\n"
                 "opponent_points: 0\nresult: 0\n")
    assert load_reward("keglebillard", p).points == 1.0
    s = load_settings("keglebillard", {"action": {"spin": 0.3}}, max_events=100)
    assert s.action.spin == 0.3 and s.action.V0 == (0.5, 6.0) and s.max_events == 100
    assert not math.isnan(load_reward("golfbillard").own_goals)
