"""Physics input bounds (issue 13, item 2): every value outside its documented range is refused
with the range in the message; resource limits are checked before anything is allocated."""

import dataclasses
import json

import numpy as np
import pytest

from cuegym.configs import custom_table
from cuegym.physics import PhysicsInputError, simulate, simulate_json
from cuegym.physics.api import check_memory
from cuegym.physics.constants import (
    MAX_EVENTS,
    MAX_JSON_SHOTS,
    MAX_SPEED,
    MAX_SPIN,
    MAX_T,
    PARAM_RANGES,
    spin_limit,
)

XY = [[[-0.8, 0.1], [-0.525, 0.0], [0.525, 0.0]]]


def kegle_json_shot(**kw):
    """A keglebillard JSON shot (the red into the white), ``kw`` replacing its keys."""
    s = {"table": "keglebillard",
         "balls": {"red": {"x": -0.8, "y": 0.1}, "white": {"x": -0.525, "y": 0.0},
                   "spotted": {"x": 0.525, "y": 0.0}},
         "strike": {"ball": "red", "V0": 2.5, "phi": -20.0}}
    s.update(kw)
    return s


def test_huge_initial_velocity_is_refused_not_ended_at_rest():
    s = kegle_json_shot()
    s["balls"]["white"]["v"] = [1e200, 0]
    with pytest.raises(PhysicsInputError, match=rf"shot\[0\].*'white'.*\[0, {MAX_SPEED}\] m/s"):
        simulate_json(s)
    s = kegle_json_shot()
    s["balls"]["white"]["w"] = [0, 0, 2 * MAX_SPIN]
    with pytest.raises(PhysicsInputError, match=rf"\[0, {MAX_SPIN}\] rad/s"):
        simulate_json(s)


def test_speeds_and_spins_at_the_limit_are_accepted(kegle):
    table, p = kegle
    v = np.zeros((1, 3, 2))
    v[0, 1] = [0.0, MAX_SPEED]
    w = np.zeros((1, 3, 3))
    w[0, 2] = [0.0, 0.0, MAX_SPIN]
    res = simulate(table, p, XY, v=v, w=w, t_max=MAX_T, max_events=20000)
    assert res.overflow[0] == 0 and np.all(np.isfinite(res.rvw))


def test_a_small_balls_strike_state_can_be_given_back():
    """The spin limit follows the radius (spin_limit): a 10 mm ball struck at 10 m/s with draw
    spins at 1324 rad/s, which the fixed 1000 rad/s limit refused as a start state."""
    shot = {"table": {"length": 1.0, "width": 0.5, "cushion_height": 0.013, "pockets": [],
                      "posts": []},
            "params": {"R": 0.01, "u_sp": 0.0044444}, "event_states": True,
            "balls": {"a": {"x": 0, "y": 0}, "b": {"x": 0.3, "y": 0.1}},
            "strike": {"ball": "a", "V0": 10, "phi": 10, "theta": 0, "a": 0.0, "b": 0.6}}
    out = simulate_json(shot)
    start = out["start"]["a"]
    assert np.linalg.norm(start["w"]) > MAX_SPIN
    again = {**shot, "balls": {**shot["balls"], "a": {"x": 0, "y": 0, "v": start["v"],
                                                      "w": start["w"]}}}
    del again["strike"]
    back = simulate_json(again)
    for b in ("a", "b"):
        assert back["final"][b]["x"] == pytest.approx(out["final"][b]["x"], abs=1e-9)
    again["balls"]["a"]["w"] = [0.0, 0.0, 1.01 * spin_limit(0.01)]
    with pytest.raises(PhysicsInputError, match=rf"\[0, {spin_limit(0.01)}\] rad/s"):
        simulate_json(again)
    assert spin_limit(0.05) == MAX_SPIN  # a big ball keeps the fixed limit


@pytest.mark.parametrize("name,value", [("u_s", 1e-60), ("u_r", 1e-9), ("u_sp", 0.0001),
                                        ("g", 0.5), ("R", 1e-300), ("m", 1e6),
                                        ("pin_chain_delay", 1e9)])
def test_meaningless_parameters_are_refused_with_the_range(name, value):
    lo, hi = PARAM_RANGES[name]
    with pytest.raises(PhysicsInputError, match=rf"params\.{name}.*\[{lo}, {hi}\]"):
        simulate_json(kegle_json_shot(params={name: value}))


@pytest.mark.parametrize("kiss", [float("nan"), -1e-6, 0.01, "x"])
def test_bad_kiss_is_refused(kegle, kiss):
    table, p = kegle
    with pytest.raises(PhysicsInputError, match="kiss"):
        simulate(table, p, XY, kiss=kiss)


@pytest.mark.parametrize("h", [0.0615, 0.08])
def test_cushion_height_outside_0_2R_is_refused(kegle, h):
    table, p = kegle
    table = dataclasses.replace(table, cushion_height=h)
    with pytest.raises(PhysicsInputError, match=r"cushion_height.*\(0, 2R\)"):
        simulate(table, p, XY)
    custom = kegle_json_shot(table={"length": 2.1, "width": 1.05, "cushion_height": h})
    custom["balls"] = {"a": {"x": 0.0, "y": 0.0}}
    custom["strike"] = {"ball": "a", "V0": 1.0, "phi": 0.0}
    with pytest.raises(PhysicsInputError, match="cushion_height"):
        simulate_json(custom)


def test_limits_on_events_time_and_list_length(kegle):
    table, p = kegle
    with pytest.raises(PhysicsInputError, match=rf"max_events.*\[1, {MAX_EVENTS}\]"):
        simulate(table, p, XY, max_events=MAX_EVENTS + 1)
    with pytest.raises(PhysicsInputError, match=rf"max_events.*\[1, {MAX_EVENTS}\]"):
        simulate_json(kegle_json_shot(max_events=MAX_EVENTS + 1))
    with pytest.raises(PhysicsInputError, match="max_events"):
        simulate(table, p, XY, max_events=True)
    with pytest.raises(PhysicsInputError, match=rf"t_max.*{MAX_T}"):
        simulate(table, p, XY, t_max=MAX_T * 2)
    with pytest.raises(PhysicsInputError, match=rf"t_max.*{MAX_T}"):
        simulate_json(kegle_json_shot(t_max=1e9))
    with pytest.raises(PhysicsInputError, match=f"at most {MAX_JSON_SHOTS} shots"):
        simulate_json([{}] * (MAX_JSON_SHOTS + 1))
    for bad in (0, 2.5, "4", True):  # 2.5 ran on 2 threads; 0 was refused only after the work
        with pytest.raises(PhysicsInputError, match=f"threads must be None or an integer >= 1, "
                                                    f"got {bad!r}"):
            simulate(table, p, XY, threads=bad)


def test_memory_is_estimated_up_front(kegle):
    table, p = kegle
    T = 20000
    xy = np.tile(np.array(XY), (T, 1, 1))
    with pytest.raises(PhysicsInputError, match=r"GiB.*lower max_events or split the batch"):
        simulate(table, p, xy, max_events=MAX_EVENTS)
    # the estimate is the log size (131 B per slot) plus ball states
    need = check_memory(10, 3, 5, 1000)
    assert 10 * 1000 * 131 <= need <= 10 * 1000 * 131 + 10 * 4096


def test_custom_table_json_roundtrip_still_works():
    s = {"table": {"length": 2.1, "width": 1.05, "cushion_height": 0.03},
         "balls": {"a": {"x": 0.0, "y": 0.0, "w": [0.0, 0.0, 50.0]}},
         "strike": {"ball": "a", "V0": 1.0, "phi": 0.0}}
    out = simulate_json(json.loads(json.dumps(s)))
    assert out["end_reason"] == "rest"


def test_custom_table_helper_checks_height(kegle):
    t = custom_table(2.0, 1.0, cushion_height=0.0615)
    with pytest.raises(PhysicsInputError, match="cushion_height"):
        simulate(t, kegle[1], [[[0.0, 0.0]]])


SIX = {"layout": "six", "mouth": 0.08, "jaw_radius": 0.005, "corner_capture_radius": 0.045,
       "side_capture_radius": 0.045, "side_capture_depth": 0.02}
PINS = {"arm": 0.082, "radius": 0.01, "base_radius": 0.007, "height": 0.12}


@pytest.mark.parametrize("change, says", [
    ({"pockets": "six"}, "pockets must be a mapping, got 'six'"),
    ({"pockets": {"layout": "six"}}, "pockets needs ['mouth', 'jaw_radius'"),
    ({"pockets": {**SIX, "mouht": 0.1}}, "unknown pockets key(s) ['mouht'] (did you mean"),
    ({"pockets": {"layout": "round"}}, "unknown pocket layout 'round'"),
    ({"pockets": {"layout": "list", "list": [5]}}, "pockets.list[0] must be a mapping, got 5"),
    ({"pockets": {"layout": "list", "list": [{"x": 0.0}]}},
     "pockets.list[0] needs ['y', 'radius']"),
    ({"posts": {"centres": [[0.1, 0.1]]}}, "posts needs ['radius']"),
    ({"posts": {"radius": 0.02, "centres": [[0.1, 0.1, 0.0]]}}, "posts.centres[0] must be [x, y]"),
    ({"posts": {"radius": 0.02, "colour": "red"}}, "unknown posts key(s) ['colour']"),
    ({"pins": {"arm": 0.082}}, "pins needs ['radius', 'base_radius', 'height']"),
    ({"pins": {**PINS, "ids": ["king"]}}, "pins.ids must name 5, got 1"),
    ({"pins": {**PINS, "colour": "white"}}, "unknown pins key(s) ['colour']"),
    ({"balls": "red"}, "balls must be a list, got 'red'"),
    ({"balls": ["red", "red"]}, "balls must be distinct non-empty names"),
    ({"spots": [0.5, 0.0]}, "spots must be a mapping"),
    ({"colour": "green"}, "unknown table key(s) ['colour']"),
])
def test_a_table_config_names_what_is_wrong_with_it(change, says):
    from cuegym.configs import ConfigError, table_from_dict

    table_from_dict({"length": 2.1, "width": 1.05, "pockets": SIX, "pins": PINS})  # valid
    with pytest.raises(ConfigError) as e:
        table_from_dict({"length": 2.1, "width": 1.05, **change})
    assert says in str(e.value)


@pytest.mark.parametrize("kw, says", [
    ({"pockets": [{"x": 1.0}]}, "pockets.list[0] needs ['y', 'radius']"),
    ({"pockets": "ab"}, "pockets must be a list, got 'ab'"),
    ({"posts": [{"x": 0.0, "y": 0.0}]}, "posts[0] needs ['radius']"),
    ({"posts": [5]}, "posts[0] must be a mapping, got 5"),
    ({"posts": [{"x": 0.0, "y": 0.0, "radius": 0.02, "r": 1}]}, "unknown posts[0] key(s) ['r']"),
])
def test_custom_table_names_a_bad_pocket_or_post(kw, says):
    from cuegym.configs import ConfigError

    with pytest.raises(ConfigError) as e:
        custom_table(2.0, 1.0, **kw)
    assert says in str(e.value)
