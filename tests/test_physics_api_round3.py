"""Physics API audit, round 3 (s47): a ball's start state can be given (JSON ``"state"``,
``simulate(motion0=...)``), pockets and posts no ball can reach are refused once R is known,
env settings beyond the physics limits are refused when loaded, the zone set's ``version`` is
read, and the docs say which parameters a custom table starts from."""

import copy
import math
import re

import numpy as np
import pytest

from cuegym.configs import ConfigError, custom_table, load_params, load_table, load_yaml
from cuegym.physics import PhysicsInputError, simulate, simulate_json
from cuegym.physics.constants import (
    EV_TRANSITION,
    MAX_EVENTS,
    MAX_T,
    ROLLING,
    SLIDING,
    SPINNING,
    STATIONARY,
)
from cuegym.physics.jsonfast import _fast_groups
from cuegym.physics.jsonparse import _exact_groups, _group_chunks

R = 0.03075
ROLL_X = {"x": 0.0, "y": 0.0, "v": [1.0, 0.0], "w": [0.0, 1.0 / R, 0.0]}  # rolling along +x


def _shot(balls, **kw):
    return {"table": "rectangle", "event_states": True, "balls": copy.deepcopy(balls), **kw}


def _events(out):
    return [(e["type"], e.get("state"), e["time"]) for e in out["events"]]


# --- finding 1: a given start state ------------------------------------------------------------


def test_a_ball_given_rolling_starts_rolling_and_logs_no_t0_transition():
    rolled = simulate_json(_shot({"c": dict(ROLL_X, state="rolling")}))
    default = simulate_json(_shot({"c": ROLL_X}))
    assert rolled["start"]["c"]["state"] == "rolling"
    assert default["start"]["c"]["state"] == "sliding"  # the default stays (pooltool fixtures)
    assert _events(default)[0] == ("transition", "rolling", 0.0)
    assert all(e["time"] > 0.0 for e in rolled["events"])
    # the same path: the default's events after its zero-length sliding phase, the same end
    assert _events(rolled) == _events(default)[1:]
    assert rolled["final"]["c"]["x"] == pytest.approx(default["final"]["c"]["x"], abs=1e-12)
    assert rolled["final"]["c"]["y"] == pytest.approx(default["final"]["c"]["y"], abs=1e-12)
    # first event: the cushion at x = L/2 - R, reached by rolling from t = 0
    a = 0.5 * 0.01 * 9.81
    t_c = (1.0 - math.sqrt(1.0 - 4.0 * a * (1.05 - R))) / (2.0 * a)
    first = rolled["events"][0]
    assert first["type"] == "ball_cushion" and first["time"] == pytest.approx(t_c, rel=1e-12)


def test_rolling_w_is_set_from_v_within_the_slip_tolerance():
    """A slip below 1e-9 m/s (w written with 11 digits) is rolling; w_xy is set from v."""
    v = [0.3, -0.4]
    w = [round(0.4 / R, 9), round(0.3 / R, 9), 2.0]
    out = simulate_json(_shot({"c": {"x": 0.0, "y": 0.0, "v": v, "w": w, "state": "rolling"}}))
    start = out["start"]["c"]
    assert start["state"] == "rolling" and start["v"] == v
    assert start["w"][:2] == [0.4 / R, 0.3 / R] and start["w"][2] == 2.0
    assert out["events"][0]["time"] > 0.0


def test_arrays_and_json_give_the_same_start_states_and_results():
    table, params = load_table("rectangle"), load_params("keglebillard")
    xy = np.array([[[0.0, 0.0], [0.5, 0.3], [-0.5, -0.3], [-0.6, 0.3], [0.6, -0.3]]])
    v = np.zeros((1, 5, 2))
    w = np.zeros((1, 5, 3))
    v[0, 0] = [1.0, 0.0]
    w[0, 0] = [0.0, 1.0 / R, 0.0]  # rolling
    w[0, 1] = [0.0, 0.0, 5.0]  # spinning
    v[0, 2] = [0.0, -0.5]  # sliding (rolling kinematics, given as sliding)
    w[0, 2] = [0.5 / R, 0.0, 0.0]
    codes = np.array([[ROLLING, SPINNING, SLIDING, STATIONARY, -1]])
    res = simulate(table, params, xy, v=v, w=w, motion0=codes, cue_ball=[4],
                   cue=[[1.0, 120.0, 0.0, 0.0, 0.0]])
    assert res.motion0[0].tolist() == [ROLLING, SPINNING, SLIDING, STATIONARY, SLIDING]
    names = ("stationary", "spinning", "sliding", "rolling")
    balls = {}
    for b in range(5):
        d = {"x": float(xy[0, b, 0]), "y": float(xy[0, b, 1])}
        if v[0, b].any():
            d["v"] = v[0, b].tolist()
        if w[0, b].any():
            d["w"] = w[0, b].tolist()
        if codes[0, b] >= 0:
            d["state"] = names[codes[0, b]]
        balls[f"b{b}"] = d
    shot = _shot(balls, strike={"ball": "b4", "V0": 1.0, "phi": 120.0})
    out = simulate_json(shot)
    assert [out["start"][f"b{b}"]["state"] for b in range(5)] == [
        "rolling", "spinning", "sliding", "stationary", "sliding"]
    n = int(res.n_events[0])
    assert out["n_events"] == n
    assert [e["time"] for e in out["events"]] == res.ev_time[0, :n].tolist()
    assert [[out["final"][f"b{b}"][k] for k in ("x", "y")] for b in range(5)] == \
        res.rvw[0, :, 0, :2].tolist()
    # no t = 0 transition for the rolling ball (ball 0); the sliding one (ball 2) has one
    log = zip(res.ev_type[0, :n], res.ev_time[0, :n], res.ev_i[0, :n], res.ev_j[0, :n],
              strict=True)
    t0 = [(int(i), int(j)) for typ, t, i, j in log if typ == EV_TRANSITION and t == 0.0]
    assert t0 == [(2, ROLLING)]
    # the fast screen and the exact validator plan the same arrays (motion0 included)
    lst = [shot, _shot({"c": ROLL_X}), _shot({"c": dict(ROLL_X, state="rolling")})]
    fast, exact = _fast_groups(copy.deepcopy(lst)), _exact_groups(copy.deepcopy(lst))
    assert fast is not None
    plans = [[c for g in gs.values() for c in _group_chunks(g)] for gs in (fast, exact)]
    for (ia, ka), (ib, kb) in zip(*plans, strict=True):
        assert ia == ib
        ma, mb = ka["motion0"], kb["motion0"]
        assert (ma is None) == (mb is None)
        if ma is not None:
            assert ma.dtype == mb.dtype == np.int32 and np.array_equal(ma, mb)


@pytest.mark.parametrize("ball, state, says", [
    ({"v": [1.0, 0.0]}, "rolling", r"rolling needs v != 0 and the slip .* <= 1e-09 m/s"),
    ({"v": [1.0, 0.0], "w": [0.0, 1.0 / R + 1e-6, 0.0]}, "rolling", r"slip \|u\| = 3.075e-08"),
    ({}, "rolling", "rolling needs v != 0"),
    ({}, "sliding", "sliding needs v != 0 or w_xy != 0"),
    ({"w": [0.0, 0.0, 4.0]}, "sliding", "sliding needs"),
    ({}, "spinning", r"spinning needs v = 0, w_xy = 0 and w_z != 0"),
    ({"w": [1.0, 0.0, 4.0]}, "spinning", "spinning needs"),
    ({"v": [0.1, 0.0]}, "stationary", "stationary needs v = 0 and w = 0"),
    ({"w": [0.0, 0.0, 4.0]}, "stationary", "stationary needs"),
])
def test_a_state_that_disagrees_with_v_and_w_is_refused(ball, state, says):
    balls = {"c": {"x": 0.0, "y": 0.0, **ball, "state": state}}
    with pytest.raises(PhysicsInputError,
                       match=rf"^shot\[0\]\.balls\.c\.state = '{state}' disagrees with its v, w .*"
                             + says):
        simulate_json(_shot(balls))
    table, params = load_table("rectangle"), load_params("keglebillard")
    v = np.array([[ball.get("v", [0.0, 0.0])]])
    w = np.array([[ball.get("w", [0.0, 0.0, 0.0])]])
    code = {"stationary": 0, "spinning": 1, "sliding": 2, "rolling": 3}[state]
    with pytest.raises(PhysicsInputError, match=rf"^table 0: motion0\[0, 0\] = {code} "
                                                rf"\({state}\) of ball 0 disagrees .*" + says):
        simulate(table, params, np.zeros((1, 1, 2)), v=v, w=w, motion0=[[code]])


def test_struck_and_absent_balls_take_no_state():
    balls = {"c": dict(ROLL_X, state="rolling"), "d": {"x": 0.5, "y": 0.0}}
    with pytest.raises(PhysicsInputError, match=r"^shot\[0\]\.balls\.c\.state = 'rolling': 'c' "
                                                r"is struck and slides after its strike"):
        simulate_json(_shot(balls, strike={"ball": "c", "V0": 1.0, "phi": 0.0}))
    table, params = load_table("rectangle"), load_params("keglebillard")
    xy = np.array([[[0.0, 0.0], [0.5, 0.0]]])
    with pytest.raises(PhysicsInputError, match=r"motion0\[0, 1\] = 0 \(stationary\) of ball 1: "
                                                r"the ball is not on the table"):
        simulate(table, params, xy, motion0=[[-1, 0]], present=[[True, False]])
    with pytest.raises(PhysicsInputError, match=r"motion0\[0, 0\] = 2 \(sliding\) of ball 0: "
                                                r"ball 0 is struck"):
        simulate(table, params, xy, v=[[[1.0, 0.0], [0.0, 0.0]]], motion0=[[2, -1]],
                 cue_ball=[0], cue=[[1.0, 0.0, 0.0, 0.0, 0.0]])


@pytest.mark.parametrize("motion0, says", [
    ([[4, -1]], r"motion0\[0, 0\] is 4: .*\(an absent ball is present=False\)"),
    ([[2.5, -1]], r"motion0\[0, 0\] is 2.5"),
    ([[-2, -1]], r"motion0\[0, 0\] is -2"),
    ([["rolling", -1]], r"motion0 must be a \(T, B\) array .* got string values"),
    ([[0, 0, 0]], r"motion0 must have shape \(T, B\) = \(1, 2\), got \(1, 3\)"),
])
def test_bad_motion0_values_are_refused(motion0, says):
    table, params = load_table("rectangle"), load_params("keglebillard")
    with pytest.raises(PhysicsInputError, match=says):
        simulate(table, params, np.array([[[0.0, 0.0], [0.5, 0.0]]]), motion0=motion0)


@pytest.mark.parametrize("state", ["pocketed", "Rolling", 3, None])
def test_unknown_json_states_are_refused(state):
    with pytest.raises(PhysicsInputError, match=r"^shot\[0\]\.balls\.c\.state must be one of "
                                                r"\['stationary', 'spinning', 'sliding', "
                                                r"'rolling'\]"):
        simulate_json(_shot({"c": {"x": 0.0, "y": 0.0, "state": state}}))


# --- finding 2: pockets and posts no ball can reach ---------------------------------------------


@pytest.mark.parametrize("table, says", [
    ({"length": 2.0, "width": 1.0, "pockets": [{"x": 1.0, "y": 0.5, "radius": 0.04}]},
     r"pockets\[0\] at \(1.0, 0.5\) with radius 0.04 m can never capture a ball"),
    ({"length": 2.0, "width": 1.0, "pockets": [{"x": 1.01, "y": 0.0, "radius": 0.02}]},
     r"pockets\[0\] at \(1.01, 0.0\) with radius 0.02 m can never capture a ball"),
    ({"length": 2.0, "width": 1.0, "posts": [{"x": 1.0, "y": 0.5, "radius": 0.01}]},
     r"posts\[0\] at \(1.0, 0.5\) with radius 0.01 m can never be touched"),
])
def test_an_unreachable_pocket_or_post_of_a_custom_table_is_refused(table, says):
    area = r".*every ball centre stays within \|x\| <= 0.96925, \|y\| <= 0.46925 m"
    with pytest.raises(PhysicsInputError, match=r"^shot\[0\]\.table\." + says + area):
        simulate_json({"table": table, "balls": {"a": {"x": 0.5, "y": 0.0}}})
    spec = custom_table(2.0, 1.0, pockets=table.get("pockets"), posts=table.get("posts"))
    with pytest.raises(PhysicsInputError, match=r"^table\.(pockets|circles)\[0\]"):
        simulate(spec, load_params("keglebillard"), np.array([[[0.5, 0.0]]]))


def test_reachable_pockets_and_the_shipped_tables_pass():
    ok = {"length": 2.0, "width": 1.0, "pockets": [{"x": 1.0, "y": 0.5, "radius": 0.044}],
          "posts": [{"x": 1.0, "y": 0.5, "radius": 0.013}]}
    simulate_json({"table": ok, "balls": {"a": {"x": 0.5, "y": 0.0}}})
    for name in ("keglebillard", "keglebillard-helmatch", "golfbillard", "rectangle"):
        table = load_table(name)
        params = load_params(table.game if table.game != "none" else "keglebillard")
        simulate(table, params, np.array([[[0.3, 0.3]]]), pins_up=np.zeros(
            (1, len(table.pin_spots)), bool))
    # a larger ball: the custom pocket that reached no longer does
    with pytest.raises(PhysicsInputError, match=r"R = 0.04 m"):
        simulate_json({"table": ok, "params": {"R": 0.04},
                       "balls": {"a": {"x": 0.5, "y": 0.0}}})


# --- finding 3: env settings beyond the physics limits ------------------------------------------


def test_env_settings_beyond_the_physics_limits_are_refused_on_load():
    from cuegym.envs.config import load_settings

    with pytest.raises(ConfigError, match=rf"t_max must be in \(0, {MAX_T}\] s .*got 5000.0"):
        load_settings("keglebillard", t_max=5000.0)
    with pytest.raises(ConfigError, match=rf"max_events must be at most {MAX_EVENTS} .*"
                                          r"got 2000000"):
        load_settings("golfbillard", max_events=2_000_000)
    s = load_settings("keglebillard", t_max=MAX_T, max_events=MAX_EVENTS)
    assert (s.t_max, s.max_events) == (MAX_T, MAX_EVENTS)


# --- finding 4: the zone set's version ----------------------------------------------------------


@pytest.mark.parametrize("version", [99, "banana", None, True, [1]])
def test_a_zone_set_of_another_version_is_refused(version):
    from cuegym.configs.zones import ZONE_DIR, zones_from_dict

    with open(ZONE_DIR / "golfbillard.yaml") as fh:
        data = load_yaml(fh)
    zones_from_dict(data)
    with pytest.raises(ConfigError, match=rf"^version must be 1 .*got {re.escape(repr(version))}"):
        zones_from_dict(dict(data, version=version))


# --- finding 5: the parameters of a custom table ------------------------------------------------


def test_docs_say_which_parameters_a_custom_table_starts_from():
    from pathlib import Path

    p = load_params("keglebillard")
    assert (p.R, p.m, p.u_sp) == (0.03075, 0.207, 0.013667)
    # R overridden alone: u_sp keeps the keglebillard value (spin decay 5 u_sp g / (2R))
    out = simulate_json({"table": {"length": 2.0, "width": 1.0}, "params": {"R": 0.028575},
                         "balls": {"c": {"x": 0.0, "y": 0.0, "w": [0.0, 0.0, 10.0]}}})
    t_spin = 10.0 * 2 * 0.028575 / (5 * 0.013667 * 9.81)
    assert out["events"][0]["time"] == pytest.approx(t_spin, rel=1e-12)
    root = Path(__file__).resolve().parents[1]
    doc = " ".join((root / "docs" / "physics_api.md").read_text().split())
    assert "custom table object (a table of no game) take keglebillard's" in doc
    assert "R = 0.03075 m, m = 0.207 kg, u_s = 0.2, u_r = 0.01, u_sp = 0.013667" in doc
    assert "`u_sp` does not follow an overridden `R`" in doc
    readme = " ".join((root / "README.md").read_text().split())
    assert "`u_sp` does not follow an overridden `R`" in readme
    assert '"state"' in readme and "`\"rolling\"`" in readme
