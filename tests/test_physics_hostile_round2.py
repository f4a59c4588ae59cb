"""Hostile input to the physics API, round 2 (after tests/test_physics_hostile_inputs.py): table
geometry built by hand, model names of the wrong type, the memory check of broadcast batches,
non-string ball ids and numpy numbers in JSON objects, input that is not UTF-8; and guards on
what was already right: array layouts and dtypes, empty batches, edge layouts, caller arrays
left alone, bit-identical results across thread counts and batch neighbours."""

import copy
import dataclasses
import io
import json
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest
from test_physics_bounds import kegle_json_shot as _shot

from cuegym.configs import Circle, ConfigError, Cushion, Pocket, load_params, load_table
from cuegym.physics import Models, PhysicsInputError, api, simulate, simulate_json
from cuegym.physics.constants import MAX_SPEED, MAX_SPIN, MAX_V0, POCKETED
from cuegym.physics.jsonio import main_simulate
from cuegym.physics.layout import validate_layout
from cuegym.physics.scenarios import hostile_shots

XY = np.array([[[-0.7, 0.1], [-0.525, 0.0], [0.525, 0.0]]])
CUE = np.array([[3.0, 0.0, 0.0, 0.0, 0.0]])
FIELDS = ("rvw", "rvw0", "motion", "motion0", "pocket", "pins_up", "pin_toppler",
          "pin_topple_time", "pin_fall_dir", "n_events", "t_end", "overflow")


def _refused(fn, pattern, exc=PhysicsInputError):
    with pytest.raises(exc, match=pattern) as info:
        fn()
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 300
    return msg


def _same(a, b, rows=slice(None)):
    """Results a and b[rows] are bit-identical (final state, pins, and the logged events)."""
    for f in FIELDS:
        assert np.array_equal(getattr(a, f), getattr(b, f)[rows]), f
    for t, tb in enumerate(range(*rows.indices(b.n_tables))):
        n = int(a.n_events[t])
        for f in ("ev_type", "ev_time", "ev_i", "ev_j", "ev_state", "ev_motion"):
            assert np.array_equal(getattr(a, f)[t, :n], getattr(b, f)[tb, :n]), f


# ---- 1. table geometry given as a hand-built TableSpec --------------------------------------

def _cushion(table, k, **kw):
    c = list(table.cushions)
    c[k] = dataclasses.replace(c[k], **kw)
    return {"cushions": tuple(c)}


@pytest.mark.parametrize("change,pattern", [
    ({"length": float("nan")}, r"^table\.length = nan m must be in \(0, 100\.0\] m$"),
    ({"width": float("inf")}, r"^table\.width = inf m must be in \(0, 100\.0\]"),
    ({"length": 1000.0}, r"^table\.length = 1000\.0 m must be in \(0, 100\.0\]"),
    ({"pin_radius": float("nan")}, r"^table\.pin_radius = nan m must be > 0 and finite$"),
    ({"pin_radius": -0.01}, r"^table\.pin_radius = -0\.01 m must be > 0"),
    ({"pin_height": 0.0}, r"^table\.pin_height = 0\.0 m must be > 0"),
    ({"pin_base_radius": "7 mm"}, r"^table\.pin_base_radius = '7 mm' m must be > 0"),
    ("cushion_nan", r"^table\.cushions\[1\] = \(nan, .*every coordinate must be a finite"),
    ("cushion_normal", r"^table\.cushions\[1\] normal \(0\.0, 0\.0\) must be a unit vector"),
    ("cushion_point", r"^table\.cushions\[1\] has zero length"),
    ({"pockets": (Pocket(float("nan"), 0.0, 0.05),)},
     r"^table\.pockets\[0\] at \(nan, 0\.0\) with radius 0\.05 m: coordinates must be finite"),
    ({"pockets": (Pocket(1.05, 0.0, -0.05),)}, r"^table\.pockets\[0\] .* radius -0\.05 m"),
    ({"circles": (Circle(0.3, 0.1, float("nan"), 1),)}, r"^table\.circles\[0\] .* radius nan"),
    ({"circles": (Circle(0.3, 0.1, 0.02, 7),)}, r"^table\.circles\[0\]\.kind = 7 must be 0 "),
    ({"pin_spots": ((float("nan"), 0.0),)}, r"^table\.pin_spots\[0\] = \(nan, 0\.0\) must be"),
])
def test_hand_built_table_geometry_is_checked(change, pattern):
    """A TableSpec made directly (not by load_table / custom_table, which check every number)
    went unchecked: a NaN length passed every ball as on the cloth, a NaN cushion end let the
    struck ball roll off to x = 145 m, a NaN pin radius made the pins ghosts."""
    table, params = load_table("rectangle"), load_params("keglebillard")
    if change == "cushion_nan":
        change = _cushion(table, 1, x1=float("nan"))
    elif change == "cushion_normal":
        change = _cushion(table, 1, nx=0.0, ny=0.0)
    elif change == "cushion_point":
        c = table.cushions[1]
        change = _cushion(table, 1, x2=c.x1, y2=c.y1)
    bad = dataclasses.replace(table, **change)
    xy = np.array([[[-0.7, 0.1], [-0.525, 0.0]]])
    _refused(lambda: simulate(bad, params, xy, cue_ball=[0], cue=[[5.0, 0, 0, 0, 0]]), pattern)
    simulate(table, params, xy, cue_ball=[0], cue=[[5.0, 0, 0, 0, 0]])  # the original is fine


@pytest.mark.parametrize("name", ["keglebillard", "keglebillard-helmatch", "golfbillard",
                                  "rectangle"])
def test_shipped_tables_pass_the_geometry_check(name):
    assert api.table_problem(load_table(name)) is None


def test_a_valid_hand_built_table_is_accepted():
    table = dataclasses.replace(load_table("rectangle"),
                                cushions=(Cushion(-1.0, -0.5, 1.0, -0.5, 0.0, 1.0),),
                                circles=(Circle(0.3, 0.1, 0.0, 0),), pin_spots=())
    assert api.table_problem(table) is None


# ---- 2. model names -------------------------------------------------------------------------

@pytest.mark.parametrize("kw,pattern", [
    ({"ball_ball": ["frictional_inelastic"]},
     r"unknown ball_ball model \['frictional_inelastic'\]"),
    ({"cushion": {"mirror": 1}}, r"unknown cushion model \{'mirror': 1\}"),
])
def test_model_names_of_the_wrong_type_are_named(kw, pattern):
    """A list or dict as a model name raised TypeError "unhashable type: 'list'"."""
    _refused(lambda: Models(**kw), pattern, ConfigError)
    shot = _shot(models=kw)
    _refused(lambda: simulate_json(shot), r"^shot\[0\]\.models: " + pattern)


# ---- 3. memory check before T x B arrays ------------------------------------------------------

def test_a_broadcast_batch_is_refused_before_anything_of_its_size_is_made(kegle, monkeypatch):
    """A broadcast xy costs nothing; its finiteness mask, float64 copy and the default
    ``present`` flags were made before the memory check refused the call (1.2 GiB of
    temporaries for 10 million tables of 62 balls)."""
    monkeypatch.setattr(api, "available_memory", lambda: 2**30)
    T, B = 300_000, 62
    xy = np.broadcast_to(np.array([0.0, 0.0]), (T, B, 2))
    tracemalloc.start()
    try:
        _refused(lambda: simulate(*kegle, xy, max_events=10), r"needs about .* GiB")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * 2**20  # was 56 MB: the finiteness mask of xy and ``present``


def test_the_memory_check_still_comes_after_the_dtype_and_shape_checks(kegle, monkeypatch):
    monkeypatch.setattr(api, "available_memory", lambda: 2**20)
    big = np.broadcast_to(np.array([0.0, 0.0]), (300_000, 3, 2))
    _refused(lambda: simulate(*kegle, big.astype(complex)), r"^xy must be .*complex")
    _refused(lambda: simulate(*kegle, big[..., :1]), r"^xy must have shape \(T, B, 2\)")
    _refused(lambda: simulate(*kegle, big, max_events=0), r"^max_events must be an integer")


# ---- 4. JSON objects from Python: ball ids, numpy numbers ------------------------------------

CUSTOM = {"length": 2.0, "width": 1.0}


@pytest.mark.parametrize("bid", [0, None, (1, 2), 1.5])
def test_json_ball_ids_must_be_strings(bid):
    """{0: .., "0": ..} were two balls, both named "0" in the output; a tuple id made the
    output unwritable as JSON."""
    shot = {"table": CUSTOM, "balls": {bid: {"x": 0.0, "y": 0.0}, "0": {"x": 0.5, "y": 0.0}}}
    pattern = r"^shot\[0\]\.balls: ball ids must be strings, got " + type(bid).__name__
    _refused(lambda: simulate_json(shot), pattern)
    good = {"table": CUSTOM, "balls": {"a": {"x": -0.5, "y": 0.0}}}
    _refused(lambda: simulate_json([good, shot]), pattern.replace(r"\[0\]", r"\[1\]"))


def test_json_numpy_numbers_are_numbers():
    """np.int64(0) was refused as "must be a number, got 0", np.int64(5) max_events as "must
    be an integer ..., got 5" and np.bool_(True) as "must be true or false, got True"."""
    py = _shot(max_events=50, event_states=True, pins=True)
    py["strike"].update(theta=5, a=0.25)
    py["balls"]["spotted"]["x"] = 0.5  # a float32 too
    npy = copy.deepcopy(py)
    npy.update(max_events=np.int64(50), event_states=np.bool_(True), pins=np.bool_(True))
    npy["balls"]["spotted"]["x"] = np.float32(0.5)
    npy["balls"]["spotted"]["y"] = np.int64(0)
    npy["strike"].update(V0=np.float32(2.5), theta=np.int32(5), a=np.float16(0.25))
    assert simulate_json(npy) == simulate_json(py)
    golf = {"table": "golfbillard", "balls": {"w1": {"x": 0.0, "y": 0.0}},
            "pins": np.bool_(False), "max_events": np.uint8(9)}
    assert simulate_json(golf)["n_events"] == 0
    _refused(lambda: simulate_json(_shot(max_events=np.bool_(True))), r"max_events must be")
    _refused(lambda: simulate_json(_shot(t_max=np.float64("nan"))), r"t_max must be finite")


# ---- 5. the command line: not UTF-8, empty and odd input -------------------------------------

@pytest.mark.parametrize("text,pattern", [
    ('{"table": "rectangle", "balls": {"r\udce9d": {"x": 0, "y": 0}}}',
     r"^input is not valid JSON: it is not UTF-8 text \(byte 0xe9 at character 35\)$"),
    ("", r"^input is not valid JSON: Expecting value"),
    ("[]", r"^input must be a shot object or a non-empty list of them$"),
    ("null", r"^input must be a shot object or a non-empty list of them$"),
    ('{"table": "rectangle", "balls": {"a": {"x": 0, "y": 0}}} {}',
     r"^input is not valid JSON: Extra data"),
    ("\ufeff[]", r"^input is not valid JSON: Unexpected UTF-8 BOM"),
    ('{"table": "rectangle", "balls": {"a": {"x": 1e400, "y": 0}}}',
     r"^shot\[0\]\.balls\.a\.x must be finite, got inf$"),
])
def test_main_simulate_refuses_with_one_line(text, pattern):
    out = io.StringIO()
    _refused(lambda: main_simulate(io.StringIO(text), out), pattern)
    assert out.getvalue() == ""


def test_cli_input_that_is_not_utf8_exits_2():
    """Bytes that are not UTF-8 were read as lone surrogates and echoed into the output
    ("r\\udce9d"), which strict JSON readers refuse."""
    cmd = [sys.executable, "-m", "cuegym.physics", "simulate"]
    raw = b'{"table": "rectangle", "balls": {"r\xe9d": {"x": 0, "y": 0}}}'
    bad = subprocess.run(cmd, input=raw, capture_output=True)
    assert bad.returncode == 2 and bad.stdout == b""
    err = bad.stderr.decode()
    assert err == "error: input is not valid JSON: it is not UTF-8 text (byte 0xe9 at " \
                  "character 35)\n"
    good = subprocess.run(cmd, input='{"table": "rectangle", "balls": {"réd": {"x": 0, "y": 0}}}'
                          .encode(), capture_output=True)
    assert good.returncode == 0 and "r\\u00e9d" in good.stdout.decode()


# ---- 6. guards: array layouts, dtypes, empty batches ------------------------------------------

def test_array_layouts_give_bit_identical_results(kegle):
    xy = np.tile(XY, (3, 1, 1))
    xy[1, 0] = [-0.6, -0.2]
    cue = np.tile(CUE, (3, 1))
    cue[2, 1] = 40.0
    ref = simulate(*kegle, xy, cue_ball=[0, 0, 0], cue=cue)
    ro = xy.copy()
    ro.setflags(write=False)
    variants = [
        (np.asfortranarray(xy), np.asfortranarray(cue), np.zeros(3, np.uint8)),
        (xy[::-1].copy()[::-1], cue[::-1].copy()[::-1], np.zeros(6, int)[::2]),
        (ro, cue.astype(">f8"), np.zeros(3, ">i4")),
        (xy.tolist(), tuple(map(tuple, cue)), (0, 0, 0)),
        (np.array(xy, object), cue.astype(np.longdouble), np.zeros(3)),
    ]
    for xy_v, cue_v, cb_v in variants:
        _same(simulate(*kegle, xy_v, cue_ball=cb_v, cue=cue_v), ref)
    one = simulate(*kegle, np.broadcast_to(XY, (4, 3, 2)), cue_ball=[0] * 4,
                   cue=np.broadcast_to(CUE, (4, 5)))
    for t in range(4):
        _same(simulate(*kegle, XY, cue_ball=[0], cue=CUE), one, slice(t, t + 1))


def test_empty_batches(kegle):
    r = simulate(*kegle, np.zeros((0, 3, 2)), cue_ball=np.zeros(0, int), cue=np.zeros((0, 5)))
    assert r.rvw.shape == (0, 3, 3, 3) and r.n_events.shape == (0,)
    r = simulate(*kegle, np.zeros((2, 0, 2)), cue_ball=[-1, -1], cue=np.zeros((2, 5)))
    assert r.rvw.shape == (2, 0, 3, 3) and r.n_events.tolist() == [0, 0]
    assert r.pins_up.all()


# ---- 7. guards: edge layouts and limits -------------------------------------------------------

R = 0.03075
HX, HY = 1.05 - R, 0.525 - R


@pytest.mark.parametrize("xy,kw", [
    ([[0, 0], [2 * R, 0]], {"cue_ball": [0], "cue": [[3, 0, 0, 0, 0]]}),
    ([[0, 0], [2 * R - 1e-12, 0]], {"cue_ball": [1], "cue": [[3, 180, 0, 0, 0]]}),
    ([[0, 0], [2 * R - 0.999e-6, 0]], {"cue_ball": [0], "cue": [[MAX_V0, 0, 0, 0, 0]]}),
    ([[0, 0], [2 * R - 0.999e-6, 0]], {"cue_ball": [0], "cue": [[MAX_V0, 90, 89, 0, 1]]}),
    ([[0, 0], [2 * R, 0], [4 * R, 0]], {"cue_ball": [0], "cue": [[MAX_V0, 0, 0, 0, 0]]}),
    ([[HX + 0.9e-9, 0]], {"cue_ball": [0], "cue": [[5, 0, 0, 0, 0]]}),
    ([[HX, HY]], {"cue_ball": [0], "cue": [[MAX_V0, 45, 89.9, 0.7, 0.7]]}),
    ([[HX, HY]], {"w": [[[-700, 700, 100]]]}),
    ([[0, 0]], {"cue_ball": [0], "cue": [[MAX_V0, 0, 90, 1, 0]]}),
    ([[HX - 1e-3, 0]], {"v": [[[MAX_SPEED, 0]]]}),
    ([[0, 0], [2 * R, 0], [R, 3 ** 0.5 * R], [-2 * R, 0]],
     {"v": [[[0, 0], [0, 0], [0, 0], [MAX_SPEED, 0]]]}),
])
def test_edge_layouts_end_at_rest_in_a_valid_layout(xy, kw):
    table, params = load_table("rectangle"), load_params("keglebillard")
    res = simulate(table, params, [xy], max_events=20000, **kw)
    assert res.overflow[0] == 0 and np.isfinite(res.rvw).all()
    validate_layout(table, params, res.rvw[..., 0, :2].copy(), res.motion != POCKETED,
                    res.pins_up)


def test_limits_are_inclusive_and_just_above_is_refused(kegle):
    ok = simulate(*kegle, XY, cue_ball=[0], cue=[[MAX_V0, 0.0, 90.0, 0.6, 0.8]])
    assert ok.overflow[0] == 0
    for cue, pattern in (
            ([MAX_V0 * (1 + 1e-15), 0, 0, 0, 0], r"strike V0 = 20\.00000000000002 out of range"),
            ([1, 0, np.nextafter(90, 91), 0, 0], r"strike theta = 90\.00000000000001"),
            ([1, 0, 0, 0.6, 0.8 + 1e-9], r"a\^2 \+ b\^2 <= 1, got 1\.000000002")):
        _refused(lambda cue=cue: simulate(*kegle, XY, cue_ball=[0], cue=[cue]), pattern)
    w = np.zeros((1, 3, 3))
    w[0, 1] = [0, 0, np.nextafter(MAX_SPIN, 2 * MAX_SPIN)]
    _refused(lambda: simulate(*kegle, XY, w=w), r"w of ball 1 has magnitude")


# ---- 8. guards: caller arrays, determinism ----------------------------------------------------

@pytest.fixture(scope="module", params=["keglebillard", "golfbillard"])
def batch(request):
    table, params = load_table(request.param), load_params(request.param)
    shots = hostile_shots(np.random.default_rng(3), table, params, 8,
                          3 if request.param == "keglebillard" else 6)
    shots["present"] = np.ones(shots["xy"].shape[:2], bool)
    shots["v"] = np.zeros(shots["xy"].shape)
    return table, params, shots


def test_caller_arrays_are_never_written(batch):
    table, params, shots = batch
    keep = copy.deepcopy(shots)
    simulate(table, params, **shots, max_events=3000)
    bad = dict(shots, cue=shots["cue"].copy())
    bad["cue"][5, 3] = 2.0
    _refused(lambda: simulate(table, params, **bad), r"^table 5: strike offsets")
    for k, v in keep.items():
        assert np.array_equal(shots[k], v), k
    js = [_shot(), _shot(event_states=True, strike=[{"ball": "red", "V0": 2.0, "phi": 10.0}])]
    js_keep = copy.deepcopy(js)
    simulate_json(js)
    assert js == js_keep


def test_results_do_not_depend_on_threads_or_batch_neighbours(batch):
    table, params, shots = batch
    kw = {"max_events": 3000}
    ref = simulate(table, params, **shots, threads=1, **kw)
    _same(simulate(table, params, **shots, threads=2, **kw), ref)
    rev = simulate(table, params, **{k: v[::-1] for k, v in shots.items()}, threads=2, **kw)
    _same(rev, ref, slice(None, None, -1))
    for t in (0, 5):
        alone = simulate(table, params, **{k: v[t:t + 1] for k, v in shots.items()}, **kw)
        _same(alone, ref, slice(t, t + 1))


def test_json_lists_match_their_shots_alone_bit_for_bit():
    shots = [_shot(), _shot(strike={"ball": "white", "V0": 4.0, "phi": 170.0, "a": 0.5}),
             {"table": "golfbillard", "balls": {"w1": {"x": -0.5, "y": 0.0}},
              "strike": {"ball": "w1", "V0": 3.0, "phi": 3.0}}, _shot(pins=["king"])]
    together = json.dumps(simulate_json(shots))
    assert together == json.dumps([simulate_json(s) for s in shots])
    assert together == json.dumps(simulate_json(copy.deepcopy(shots)))


def test_result_indices_are_refused_clearly_and_unsorted_extreme_times_do_not_warn():
    """``SimResult.events(-1)`` read the last table and ``events(5)`` raised a bare IndexError;
    an empty result's range read "(0 to -1)"; ``positions_at`` differenced the times (an
    overflow warning for 1e308 after -1e308)."""
    import warnings

    from cuegym.configs import default_params, load_table
    from cuegym.physics import simulate
    from cuegym.physics.checks import PhysicsInputError
    from cuegym.physics.path import ball_segments, positions_at

    table, params = load_table("rectangle"), default_params("keglebillard")
    res = simulate(table, params, np.array([[[0.0, 0.0], [0.5, 0.2]]]), cue_ball=[0],
                   cue=[[1.0, 0.0, 0.0, 0.0, 0.0]])
    assert res.events(0) == res.events(np.int64(0))
    for bad, msg in ((-1, r"t = -1 is out of range: the result has 1 tables \(0 to 0\)"),
                     (5, r"t = 5 is out of range"), (True, "t must be an integer index")):
        with pytest.raises(PhysicsInputError, match=msg):
            res.events(bad)
    with pytest.raises(PhysicsInputError, match=r"ball = 0 is out of range: the result has 0 "
                                                r"balls \(none\)"):
        ball_segments(simulate(table, params, np.zeros((1, 0, 2))), 0, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = positions_at(res, np.array([[1e308, -1e308]]))
    assert np.isfinite(out).all()
