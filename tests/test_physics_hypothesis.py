"""Property tests of physics input extremes (issue 13, item 6): any parameter set inside the
documented ranges simulates cleanly (finite, no overlap, nothing through a cushion, a shot that
reports rest is at rest); any value outside is refused naming it; any junk in a JSON number
field is a PhysicsInputError, never another exception."""

import copy
import dataclasses
import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuegym.configs import ConfigError, load_params, load_table
from cuegym.physics import PhysicsInputError, simulate, simulate_json
from cuegym.physics.constants import MAX_SPIN, MAX_V0, PARAM_RANGES, POCKETED

TABLE = load_table("keglebillard")
BASE = load_params("keglebillard")
XY = np.array([[[-0.8, 0.1], [-0.525, 0.0], [0.525, 0.0]]])
#: examples per property (raise with CUEGYM_HYPOTHESIS_EXAMPLES for a longer hunt)
EXAMPLES = int(os.environ.get("CUEGYM_HYPOTHESIS_EXAMPLES", "25"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 25,
                    suppress_health_check=[HealthCheck.too_slow])


def _edge(lo, hi):
    """Values at and near the ends of a range, and inside it."""
    return st.one_of(st.sampled_from([lo, hi]), st.floats(lo, hi))


PHYS = st.fixed_dictionaries({
    "u_s": _edge(*PARAM_RANGES["u_s"]), "u_r": _edge(*PARAM_RANGES["u_r"]),
    "u_sp": _edge(*PARAM_RANGES["u_sp"]), "g": _edge(*PARAM_RANGES["g"]),
    "e_b": _edge(0.0, 1.0), "e_c": _edge(0.0, 1.0), "f_c": _edge(*PARAM_RANGES["f_c"]),
})
STRIKE = st.tuples(_edge(0.0, MAX_V0), st.floats(-180, 180), _edge(0.0, 90.0),
                   st.floats(0.0, 1.0), st.floats(0, 2 * math.pi))


@SETTINGS
@given(phys=PHYS, strike=STRIKE, h=st.floats(0.05, 1.95), spin=_edge(0.0, MAX_SPIN))
def test_parameters_inside_the_ranges_simulate_cleanly(phys, strike, h, spin):
    params = dataclasses.replace(BASE, **phys)
    table = dataclasses.replace(TABLE, cushion_height=h * params.R)
    v0, phi, theta, r, ang = strike
    cue = [[v0, phi, theta, r * math.cos(ang), r * math.sin(ang)]]
    w = np.zeros((1, 3, 3))
    w[0, 2] = [0.0, 0.0, spin]
    res = simulate(table, params, XY, cue_ball=[0], cue=cue, w=w, max_events=3000, t_max=60.0)
    R = params.R
    assert np.all(np.isfinite(res.rvw))
    on = res.motion[0] != POCKETED
    xy = res.rvw[0, on, 0, :2]
    tol = 1e-6 if res.overflow[0] == 0 else 1e-5
    assert np.all(np.abs(xy[:, 0]) <= TABLE.length / 2 + tol)
    assert np.all(np.abs(xy[:, 1]) <= TABLE.width / 2 + tol)
    d = np.linalg.norm(xy[:, None] - xy[None], axis=-1) + np.eye(len(xy))
    assert d.min() >= 2 * R - tol
    if res.overflow[0] == 0:
        assert np.all(res.motion[0][on] == 0)
    times = res.ev_time[0, :res.n_events[0]]
    assert np.all(np.diff(times) >= 0)


@SETTINGS
@given(name=st.sampled_from(sorted(PARAM_RANGES)), side=st.sampled_from(["low", "high"]),
       factor=st.floats(1.001, 1e6))
def test_parameters_outside_the_ranges_are_refused_by_name(name, side, factor):
    lo, hi = PARAM_RANGES[name]
    value = hi * factor if side == "high" else lo / factor
    if side == "low" and lo == 0.0:
        value = -factor  # negative: configs refuse it already
    try:
        params = dataclasses.replace(BASE, **{name: value})
    except ConfigError as exc:
        assert name in str(exc)
        return
    with pytest.raises(PhysicsInputError, match=rf"params\.{name} = .* \[{lo}, {hi}\]"):
        simulate(TABLE, params, XY)


SHOT = {"table": "keglebillard",
        "balls": {"red": {"x": -0.8, "y": 0.1, "v": [0.0, 0.0], "w": [0.0, 0.0, 0.0]},
                  "white": {"x": -0.525, "y": 0.0}, "spotted": {"x": 0.525, "y": 0.0}},
        "strike": {"ball": "red", "V0": 2.5, "phi": -20.0, "theta": 0.0, "a": 0.0, "b": 0.2},
        "params": {"u_s": 0.2}, "max_events": 500, "t_max": 20.0}
PATHS = [("balls", "red", "x"), ("balls", "white", "y"), ("balls", "red", "v", 0),
         ("balls", "red", "w", 2), ("strike", "V0"), ("strike", "phi"), ("strike", "theta"),
         ("strike", "a"), ("strike", "b"), ("params", "u_s"), ("max_events",), ("t_max",)]
JUNK = st.one_of(st.none(), st.booleans(), st.text(max_size=5), st.integers(-10**400, 10**400),
                 st.floats(allow_nan=True, allow_infinity=True),
                 st.lists(st.integers(), max_size=2),
                 st.dictionaries(st.text(max_size=2), st.integers(), max_size=1))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(path=st.sampled_from(PATHS), value=JUNK)
def test_junk_in_a_json_number_field_is_an_input_error_or_a_valid_result(path, value):
    shot = copy.deepcopy(SHOT)
    obj = shot
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value
    try:
        out = simulate_json(shot)
    except PhysicsInputError:
        return
    assert out["end_reason"] in ("rest", "max_events", "t_max")
    assert all(math.isfinite(f["x"]) and math.isfinite(f["y"]) for f in out["final"].values())
