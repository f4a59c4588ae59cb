"""Hostile input to the physics layer (black-box audit, defects 1-13): every bad value is refused
with a one-line ValueError naming the argument (or JSON path) and the value as given; valid
inputs, including the newly spelled-out accepted forms, give bit-identical results."""

import json
import subprocess
import sys

import numpy as np
import pytest
from test_physics_bounds import kegle_json_shot as _shot

from cuegym.configs import ConfigError, load_params, load_table
from cuegym.physics import Models, PhysicsInputError, api, simulate, simulate_json
from cuegym.physics.path import ball_segments, positions_at, sample_paths, states_at

XY = np.array([[[-0.7, 0.1], [-0.525, 0.0], [0.525, 0.0]]])
CUE = [[3.0, 0.0, 0.0, 0.0, 0.0]]


@pytest.fixture(scope="module")
def tp():
    return load_table("keglebillard"), load_params("keglebillard")


def _refused(fn, pattern, exc=PhysicsInputError):
    with pytest.raises(exc, match=pattern) as info:
        fn()
    msg = str(info.value)
    assert "\n" not in msg and "np.float64" not in msg and "np.int64" not in msg
    return msg


def _same(a, b):
    for f in ("rvw", "rvw0", "motion", "pins_up", "ev_time", "ev_state", "n_events", "t_end"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f


def _golf(**strike):
    return {"table": "golfbillard", "balls": {"w1": {"x": -0.5, "y": 0.0}},
            "strike": {"ball": "w1", "V0": 1.0, "phi": 0.0, **strike}}


# ---- 1. cue_ball ------------------------------------------------------------------------------

@pytest.mark.parametrize("cb,pattern", [
    ([1.7], r"cue_ball\[0\] is 1\.7: a ball index must be an integer"),
    ([0.5], r"cue_ball\[0\] is 0\.5"),
    ([np.nan], r"cue_ball\[0\] is nan"),
    ([np.inf], r"cue_ball\[0\] is inf"),
    ([1e30], r"cue_ball index 1e\+30 out of range for 3 balls"),
    ([True], r"cue_ball must be .*ball indices.*got bool values"),
    (["0"], r"cue_ball must be .*got string values such as '0'"),
    ([0j], r"cue_ball must be .*got complex values"),
    ([None], r"cue_ball must be .*got object values"),
    (0, r"cue_ball must have shape \(T,\) or \(T, S\).*got shape \(\).*pass \[0\]"),
    ([[[0]]], r"cue_ball must have shape \(T,\) or \(T, S\)"),
    ([5], r"cue_ball index 5 out of range for 3 balls"),
])
def test_cue_ball_must_be_integer_indices(tp, cb, pattern):
    _refused(lambda: simulate(*tp, XY, cue_ball=cb, cue=CUE), pattern)


def test_cue_ball_accepts_ints_and_integral_floats_identically(tp):
    ref = simulate(*tp, XY, cue_ball=np.array([1], np.int64), cue=CUE)
    for cb in ([1], np.array([1], np.int32), np.array([1], np.uint8), [1.0], np.ones(1),
               [[1]], np.array([1], object)):
        _same(simulate(*tp, XY, cue_ball=cb, cue=CUE), ref)


# ---- 2. present / pins_up ---------------------------------------------------------------------

@pytest.mark.parametrize("kw,pattern", [
    ({"pins_up": [["False"] * 5]}, r"pins_up must be .*bools.*got string values such as 'False'"),
    ({"pins_up": [[None] * 5]}, r"pins_up\[0, 0\] is None"),
    ({"present": [["no", 1, 1]]}, r"present must be .*got string values"),
    ({"present": [[1, 0.5, 1]]}, r"present\[0, 1\] is 0\.5"),
    ({"present": [[1, 1, np.nan]]}, r"present\[0, 2\] is nan"),
    ({"present": [[1, 2, 1]]}, r"present\[0, 1\] is 2"),
    ({"present": [[1, -1, 1]]}, r"present\[0, 1\] is -1"),
    ({"present": [[1 + 1j, 1, 1]]}, r"present must be .*got complex values"),
    ({"present": [[None, 1, 1]]}, r"present\[0, 0\] is None"),
    ({"pins_up": np.ones((1, 4), bool)}, r"pins_up must have shape \(1, 5\)"),
])
def test_flags_refuse_non_bool_values(tp, kw, pattern):
    _refused(lambda: simulate(*tp, XY, **kw), pattern)


def test_flags_accept_bool_and_exact_zero_one(tp):
    up = np.array([[True, False, True, True, False]])
    ref = simulate(*tp, XY, cue_ball=[0], cue=CUE, present=np.ones((1, 3), bool), pins_up=up)
    for present, pins in (([[1, 1, 1]], up.astype(int).tolist()),
                          (np.ones((1, 3)), up.astype(np.float32)),
                          ([[True, 1, 1.0]], np.array(up, object))):
        res = simulate(*tp, XY, cue_ball=[0], cue=CUE, present=present, pins_up=pins)
        _same(res, ref)
        assert res.pins_up0.dtype == bool and res.pins_up0.tolist() == up.tolist()


# ---- 3. numbers: no complex, strings, bools ---------------------------------------------------

@pytest.mark.parametrize("kw,pattern", [
    ({"xy": XY + 1j}, r"^xy must be a \(T, B, 2\) array of real numbers, got complex values"),
    ({"xy": XY.astype(str)}, r"^xy must be .*got string values such as '-0\.7'"),
    ({"xy": XY.astype(bool)}, r"^xy must be .*got bool values"),
    ({"xy": [[[None, 0.1], [-0.5, 0], [0.5, 0]]]}, r"^xy\[0, 0, 0\] is None: xy must be"),
    ({"cue_ball": [0], "cue": [[True, False, False, False, False]]},
     r"^cue must be .*got bool values"),
    ({"cue_ball": [0], "cue": [[3.0 + 0j, 0, 0, 0, 0]]}, r"^cue must be .*complex"),
    ({"v": [[["1", "0"], ["0", "0"], ["0", "0"]]]}, r"^v must be a \(T, B, 2\) .*string"),
    ({"w": np.zeros((1, 3, 3), complex)}, r"^w must be a \(T, B, 3\) .*complex"),
])
def test_numeric_arrays_refuse_other_dtypes(tp, kw, pattern):
    kw = dict(kw)
    xy = kw.pop("xy", XY)
    _refused(lambda: simulate(*tp, xy, **kw), pattern)


@pytest.mark.parametrize("kw,pattern", [
    ({"t_max": "5"}, r"t_max must be a number, got '5'"),
    ({"t_max": True}, r"t_max must be a number, got True"),
    ({"t_max": 10 ** 400}, r"t_max must be in \(0, 3600.0\] s, got inf"),
    ({"kiss": "1e-6"}, r"kiss must be a number, got '1e-6'"),
    ({"kiss": False}, r"kiss must be a number, got False"),
    ({"kiss": np.bool_(False)}, r"kiss must be a number, got False"),
])
def test_scalars_must_be_real_numbers(tp, kw, pattern):
    _refused(lambda: simulate(*tp, XY, **kw), pattern)


def test_scalars_accept_numpy_numbers(tp):
    ref = simulate(*tp, XY, cue_ball=[0], cue=CUE, t_max=5.0, kiss=1e-6)
    _same(simulate(*tp, XY, cue_ball=[0], cue=CUE, t_max=np.float32(5.0), kiss=np.float64(1e-6)),
          ref)
    _same(simulate(*tp, XY, cue_ball=[0], cue=CUE, t_max=np.int64(5), kiss=1e-6), ref)


@pytest.mark.parametrize("kw,pattern", [
    ({"u_s": True}, r"params\.u_s must be a number, got True"),
    ({"e_b": np.bool_(True)}, r"params\.e_b must be a number, got True"),
    ({"R": "0.03"}, r"params\.R must be a number, got '0\.03'"),
    ({"m": 1 + 0j}, r"params\.m must be a number"),
    ({"g": 10 ** 400}, r"params\.g must be finite, got 1000000"),
])
def test_params_refuse_bool_str_complex(kw, pattern):
    msg = _refused(lambda: load_params("keglebillard", **kw), pattern, ConfigError)
    assert len(msg) < 120


# ---- 4. non-numeric / ragged arrays -----------------------------------------------------------

@pytest.mark.parametrize("xy,kw,pattern", [
    ("abc", {}, r"^xy must be a \(T, B, 2\) array of real numbers, got string"),
    ([[[0.1, 0.1], [0.5]]], {}, r"^xy must be a \(T, B, 2\) array of real numbers: could not "
                                r"convert \[\[\[0\.1"),
    (XY, {"cue_ball": [0], "cue": "fast"}, r"^cue must be .*string values such as 'fast'"),
    (XY, {"cue_ball": [0], "cue": [[3.0, 0, 0], [1.0]]}, r"^cue must be .*could not convert"),
    (XY, {"present": [[1, 1], [1]]}, r"^present must be .*could not convert"),
])
def test_unconvertible_arrays_name_the_argument(tp, xy, kw, pattern):
    _refused(lambda: simulate(*tp, xy, **kw), pattern)


# ---- 5. object types and label lengths --------------------------------------------------------

@pytest.mark.parametrize("which,value,pattern", [
    ("table", "keglebillard", r"table must be a TableSpec .*load_table.*got str 'keglebillard'"),
    ("table", None, r"table must be a TableSpec .*got NoneType None"),
    ("params", {"R": 0.03}, r"params must be a PhysicsParams .*got dict"),
    ("params", None, r"params must be a PhysicsParams"),
    ("models", {"squirt": True}, r"models must be a Models or None .*got dict"),
    ("models", "mirror", r"models must be a Models or None .*got str 'mirror'"),
    ("models", 0, r"models must be a Models or None .*got int 0"),
])
def test_wrong_object_types_are_refused(tp, which, value, pattern):
    kw = {"table": tp[0], "params": tp[1], "xy": XY}
    if which == "models":
        kw["models"] = value
    else:
        kw[which] = value
    _refused(lambda: simulate(**kw), pattern)


def test_models_none_is_the_default(tp):
    _same(simulate(*tp, XY, cue_ball=[0], cue=CUE, models=None),
          simulate(*tp, XY, cue_ball=[0], cue=CUE, models=Models()))


def test_label_lists_of_the_wrong_length_are_refused_up_front(tp):
    off = np.array([[[-0.7, 0.1], [-0.525, 0.0], [5.0, 0.0]]])
    _refused(lambda: simulate(*tp, off, ball_names=("red",)),
             r"ball_names must name the 3 balls .*got 1 names")
    _refused(lambda: simulate(*tp, off, table_names=[]),
             r"table_names must name the 1 tables .*got 0 names")
    msg = _refused(lambda: simulate(*tp, off, ball_names=("red", "white", "spotted"),
                                    table_names=["first"]), r"off the cloth")
    assert msg.startswith("first: 'spotted'")


# ---- 6. cue without cue_ball ------------------------------------------------------------------

def test_cue_without_cue_ball_is_refused(tp):
    _refused(lambda: simulate(*tp, XY, cue=[[3, 0, 0, 0, 0.2]]), r"cue given without cue_ball")
    _refused(lambda: simulate(*tp, XY, cue_ball=[0]), r"cue_ball given without cue")


# ---- 7. messages ------------------------------------------------------------------------------

def test_spin_just_over_the_limit_shows_the_difference(tp):
    w = np.zeros((1, 3, 3))
    w[0, 0, 2] = 1000.001
    _refused(lambda: simulate(*tp, XY, w=w), r"magnitude 1000\.001 rad/s; .*\[0, 1000\.0\]")


def test_micrometre_overlap_shows_the_real_threshold(tp):
    R = tp[1].R
    xy = np.array([[[0.3, 0.2], [0.3 + 2 * R - 1.001e-6, 0.2]]])
    _refused(lambda: simulate(*tp, xy),
             r"overlap by 1\.001 µm \(centres 0\.061498999 m apart, need >= 2R - 1 µm = "
             r"0\.061499000 m\)")
    simulate(*tp, np.array([[[0.3, 0.2], [0.3 + 2 * R - 0.999e-6, 0.2]]]))  # accepted
    far = np.array([[[0.3, 0.2], [0.33, 0.2]]])  # a clear overlap keeps the old wording
    _refused(lambda: simulate(*tp, far),
             r"overlap \(centres 0\.03000 m apart, need >= 2R = 0\.06150 m\)$")


def test_no_numpy_reprs_and_huge_values_are_short(tp):
    _refused(lambda: simulate(*tp, XY * np.nan), r"^xy\[0, 0, 0\] is nan: values must be finite")
    _refused(lambda: simulate(*tp, XY, cue_ball=[0], cue=[[25.0, 0, 0, 0, 0]]),
             r"^table 0: strike V0 = 25\.0 out of range \[0\.0, 20\.0\] \(ball 0\)$")
    huge = XY.copy()
    huge[0, 0, 0] = 1e300
    msg = _refused(lambda: simulate(*tp, huge), r"at \(1e\+300, 0\.1000\) is off the cloth")
    assert len(msg) < 200


def test_strike_errors_name_the_slot_and_ball(tp):
    cb = [[0, 2]]
    cue = [[[3.0, 0, 0, 0, 0], [2.0, 0, 95.0, 0, 0]]]
    _refused(lambda: simulate(*tp, XY, cue_ball=cb, cue=cue,
                              ball_names=("red", "white", "spotted")),
             r"strike theta = 95\.0 out of range \[0\.0, 90\.0\] \(strike slot 1, 'spotted'\)")
    cue = [[[3.0, 0, 0, 0.9, 0.9], [2.0, 0, 0, 0, 0]]]
    _refused(lambda: simulate(*tp, XY, cue_ball=cb, cue=cue),
             r"^table 0: strike offsets need a\^2 \+ b\^2 <= 1, got 1\.62 \(strike slot 0, "
             r"ball 0\)$")
    _refused(lambda: simulate(*tp, XY, cue_ball=[[1, 1]], cue=[[[1.0, 0, 0, 0, 0]] * 2]),
             r"the same ball is struck twice \(strike slot 1, ball 1\)")


def test_deeply_nested_json_value_is_shortened():
    deep = 1
    for _ in range(500):
        deep = [deep]
    msg = _refused(lambda: simulate_json(_shot(t_max=deep)), r"shot\[0\]\.t_max must be a number")
    assert len(msg) < 120
    _refused(lambda: simulate_json(_shot(t_max=10 ** 400)), r"shot\[0\]\.t_max must be finite")


# ---- 8. JSON paths ----------------------------------------------------------------------------

@pytest.mark.parametrize("shot,pattern", [
    (_shot(strike={"ball": "red", "V0": 25, "phi": 0.0}),
     r"^shot\[0\]\.strike\[0\]\.V0 = 25 is out of range \[0\.0, 20\.0\] m/s$"),
    (_shot(strike={"ball": "red", "V0": 2, "phi": 0.0, "theta": 95}),
     r"^shot\[0\]\.strike\[0\]\.theta = 95 is out of range \[0\.0, 90\.0\]"),
    (_shot(strike={"ball": "red", "V0": 2, "phi": 0.0, "a": 0.9, "b": 0.9}),
     r"^shot\[0\]\.strike\[0\]: strike offsets need a\^2 \+ b\^2 <= 1, got a = 0\.9, b = 0\.9"),
    (_shot(params={"R": 0.5}), r"^shot\[0\]\.params\.R = 0\.5 is outside the valid range"),
    ({"table": {"length": 2, "width": 1, "cushion_height": 0.1}, "balls": {"a": {"x": 0, "y": 0}},
      "strike": {"ball": "a", "V0": 1, "phi": 0}},
     r"^shot\[0\]\.table\.cushion_height = 0\.1 m must be in \(0, 2R\)"),
    ({"table": "rectangle",
      "balls": {f"b{i}": {"x": -0.9 + 0.07 * (i % 25), "y": -0.4 + 0.07 * (i // 25)}
                for i in range(63)}},
     r"^shot\[0\]\.balls: at most 62 balls per table, got 63$"),
    (_shot(balls={"red": {"x": 0.0, "y": 0.0}, "white": {"x": -0.525, "y": 0.0}}),
     r"^shot\[0\]: 'red' at \(0\.0000, 0\.0000\) overlaps standing pin 'king'$"),
    (_shot(pins=["king", "pin1", "king"]), r"^shot\[0\]\.pins lists the pin id 'king' twice$"),
    (_shot(strike=[{"ball": "red", "V0": 1, "phi": 0}, {"ball": "red", "V0": 1, "phi": 0}]),
     r"^shot\[0\]\.strike\[1\]\.ball 'red': the same ball is struck twice$"),
])
def test_json_errors_name_the_path(shot, pattern):
    _refused(lambda: simulate_json(shot), pattern)
    _refused(lambda: simulate_json([_shot(), shot]), pattern.replace(r"shot\[0\]", r"shot\[1\]"))


def test_json_ranges_at_the_limits_are_accepted():
    out = simulate_json(_shot(strike={"ball": "red", "V0": 20.0, "phi": 0.0, "theta": 90.0,
                                      "a": 1.0, "b": 0.0}))
    assert out["n_events"] >= 0
    assert simulate_json(_shot(pins=["king", "pin1"]))["pins"]["pin2"]["standing"] is False


# ---- 9. list order ----------------------------------------------------------------------------

def test_json_lists_name_the_first_bad_shot():
    overlap = _shot()
    overlap["balls"]["white"] = {"x": -0.8, "y": 0.1}
    off = _golf()
    off["balls"]["w1"] = {"x": 5.0, "y": 0.0}
    cases = [
        ([_shot(), _golf(V0=25), overlap], r"^shot\[1\]\.strike\[0\]\.V0 = 25"),
        ([_golf(V0=25), _shot(strike={"ball": "red", "V0": "x", "phi": 0})],
         r"^shot\[0\]\.strike\[0\]\.V0 = 25"),
        ([_shot(), off, overlap], r"^shot\[1\]: 'w1' at \(5\.0000, 0\.0000\) is off the cloth"),
        ([_shot(), overlap, off], r"^shot\[1\]: 'red' and 'white' overlap"),
        ([overlap, _shot(strike={"ball": "red", "V0": "x", "phi": 0})],
         r"^shot\[0\]: 'red' and 'white' overlap"),
        ([_shot(), _shot(), _golf(theta=-1), overlap], r"^shot\[2\]\.strike\[0\]\.theta = -1"),
    ]
    for shots, pattern in cases:
        _refused(lambda shots=shots: simulate_json(shots), pattern)


def test_valid_json_lists_still_equal_the_singles():
    shots = [_shot(), _golf(), _shot(pins=["king"]), _golf(V0=2.0, a=0.3)]
    assert simulate_json(shots) == [simulate_json(s) for s in shots]


# ---- 10. memory checked before allocating -----------------------------------------------------

def test_memory_is_refused_before_the_per_ball_arrays(tp, monkeypatch):
    monkeypatch.setattr(api, "available_memory", lambda: 100 * 2**20)

    def boom(*a, **k):
        raise AssertionError("per-ball arrays allocated before the memory check")

    monkeypatch.setattr(api, "_initial_motion", boom)
    T = 200_000
    xy = np.zeros((T, 1, 2))
    _refused(lambda: simulate(*tp, xy, max_events=1), r"needs about 0\.\d+ GiB .* available")


# ---- 11. path queries -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def res(tp):
    return simulate(*tp, XY, cue_ball=[2], cue=[[2.0, 90.0, 0.0, 0.0, 0.0]])


@pytest.mark.parametrize("table,ball,pattern", [
    (0, -1, r"ball = -1 is out of range: the result has 3 balls \(0 to 2\)"),
    (0, 3, r"ball = 3 is out of range"),
    (5, 0, r"table = 5 is out of range: the result has 1 tables"),
    (-1, 0, r"table = -1 is out of range"),
    (0.5, 0, r"table must be an integer index, got 0\.5"),
    (0, 1.0, r"ball must be an integer index, got 1\.0"),
    (0, True, r"ball must be an integer index, got True"),
    ("0", 0, r"table must be an integer index, got '0'"),
])
def test_ball_segments_indices(res, table, ball, pattern):
    _refused(lambda: ball_segments(res, table, ball), pattern)


def test_ball_segments_accept_numpy_ints(res):
    a = ball_segments(res, np.int64(0), np.int32(2))
    b = ball_segments(res, 0, 2)
    assert len(a) == len(b) > 1
    for x, y in zip(a, b, strict=True):
        assert x[0] == y[0] and x[1] == y[1] and np.array_equal(x[2], y[2])


@pytest.mark.parametrize("dt,pattern", [
    ("0.1", r"dt must be a positive number of seconds, got '0\.1'"),
    (None, r"dt must be a positive number of seconds, got None"),
    (True, r"dt must be a positive number of seconds, got True"),
    (0.0, r"dt must be > 0 and finite, got 0\.0"),
    (-1, r"dt must be > 0 and finite, got -1"),
    (np.inf, r"dt must be > 0 and finite, got inf"),
    (np.nan, r"dt must be > 0 and finite, got nan"),
    (1e-300, r"^dt: the result would need about .* GiB"),
])
def test_sample_paths_dt(res, dt, pattern):
    _refused(lambda: sample_paths(res, dt), pattern)


def test_sample_paths_valid_dt_unchanged(res):
    t1, p1 = sample_paths(res, 0.05)
    t2, p2 = sample_paths(res, np.float64(0.05))
    assert np.array_equal(t1, t2) and np.array_equal(p1, p2)
    t_end = float(res.t_end.max())
    want = np.arange(0.0, t_end + 0.05, 0.05)
    want[-1] = min(want[-1], t_end)
    assert np.array_equal(t1, want) and np.array_equal(p1, positions_at(res, want))


@pytest.mark.parametrize("times,pattern", [
    ([0.5 + 1j], r"times must be .*real numbers.*complex"),
    (["0.5"], r"times must be .*string"),
    ([True], r"times must be .*bool"),
    ([None], r"times\[0\] is None"),
    ([[0.1], [0.2, 0.3]], r"times must be .*could not convert"),
    ([np.nan], r"times\[0, 0\] is nan: values must be finite"),
    (np.zeros((2, 2)), r"times must have shape \(N,\) or \(1, N\), got \(2, 2\)"),
])
def test_times_must_be_real_numbers(res, times, pattern):
    _refused(lambda: positions_at(res, times), pattern)


def test_unsorted_times_come_back_in_the_callers_order(res):
    t = np.array([0.5, 0.1, 0.0, 2.0, 0.3, 0.1])
    got = states_at(res, t)
    for k, tk in enumerate(t):
        assert np.array_equal(got[:, k], states_at(res, [tk])[:, 0])
    srt = np.sort(t)
    assert np.array_equal(states_at(res, srt), got[:, np.argsort(t, kind="stable")])


# ---- 12. CLI ----------------------------------------------------------------------------------

def test_cli_deeply_nested_json_is_a_one_line_error():
    cmd = [sys.executable, "-m", "cuegym.physics", "simulate"]
    bad = subprocess.run(cmd, input="[" * 100000 + "]" * 100000, capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: input is not valid JSON") and "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1
    bad = subprocess.run(cmd, input=json.dumps(_shot(strike={"ball": "red", "V0": 25, "phi": 0})),
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "shot[0].strike[0].V0 = 25" in bad.stderr
