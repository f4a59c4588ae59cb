"""The JSON path's two parsers (cuegym.physics.jsonfast, cuegym.physics.jsonparse) agree: the
fast, whole-column screen plans exactly what the exact shot-by-shot validator plans, and gives
up (never raises, never accepts) wherever the exact one refuses a shot. Inputs: varied shots on
every table (custom tables, parameters, models, pins, initial v/w, several or no strikes,
limits, integers for floats) and the same with one value broken."""

import copy
import math

import numpy as np
import pytest

from cuegym.configs import custom_table, load_params, load_table
from cuegym.physics import PhysicsInputError, simulate
from cuegym.physics.jsonfast import _fast_groups
from cuegym.physics.jsonio import _chunk_outputs, simulate_json
from cuegym.physics.jsonparse import _exact_groups, _group_chunks
from cuegym.physics.scenarios import json_shots, random_positions

NAMED = ("keglebillard", "keglebillard-helmatch", "golfbillard", "rectangle")
CUSTOM = [{"length": 2.1, "width": 1.05, "posts": [{"x": 0.3, "y": 0.0, "radius": 0.0175}]},
          {"length": 1.8, "width": 0.9, "pockets": [{"x": 0.9, "y": 0.45, "radius": 0.06}]},
          {"length": 2, "width": 1}]
JUNK = [None, True, "1.0", 10**400, math.nan, math.inf, [1.0], {"a": 1}, -2, 1e308]


def _table(spec):
    if isinstance(spec, str):
        return load_table(spec)
    return custom_table(spec["length"], spec["width"], 0.0394, spec.get("pockets", []),
                        spec.get("posts", []))


def _strike(rng, ball):
    s = {"ball": ball, "V0": float(rng.uniform(0, 4)), "phi": float(rng.uniform(-180, 180))}
    if rng.random() < 0.7:
        s.update(theta=float(rng.uniform(0, 10)), a=float(rng.uniform(-0.3, 0.3)),
                 b=float(rng.uniform(-0.3, 0.3)))
    return s


def valid_shot(rng) -> dict:
    spec = (NAMED[rng.integers(4)] if rng.random() < 0.8
            else copy.deepcopy(CUSTOM[rng.integers(len(CUSTOM))]))
    table = _table(spec)
    params = load_params(table.game if table.game != "none" else "keglebillard")
    shot, P = {"table": spec}, len(table.pin_spots)
    up = np.ones((1, P), bool)
    if P and rng.random() < 0.4:
        shot["pins"] = (bool(rng.random() < 0.5) if rng.random() < 0.3
                        else [p for p in table.pin_ids if rng.random() < 0.5])
        up[0] = [shot["pins"] if isinstance(shot["pins"], bool) else p in shot["pins"]
                 for p in table.pin_ids]
    ids = list(table.ball_ids) or [f"b{k}" for k in range(6)]
    k = int(rng.integers(1, min(len(ids), 6) + 1))
    chosen = [str(c) for c in rng.choice(ids, k, replace=False)]
    xy = random_positions(rng, table, params, 1, k, up, margin=1e-3)[0]
    shot["balls"] = {}
    for b, bid in enumerate(chosen):
        d = {"x": float(xy[b, 0]), "y": float(xy[b, 1])}
        if rng.random() < 0.15:
            d["v"] = [float(c) for c in rng.uniform(-1, 1, 2)]
        if rng.random() < 0.15:
            d["w"] = [float(c) for c in rng.uniform(-20, 20, 3)]
        shot["balls"][bid] = d
    r = rng.random()
    if r < 0.7:
        shot["strike"] = _strike(rng, chosen[0])
    elif r < 0.85:
        shot["strike"] = [_strike(rng, c) for c in chosen[:2]]
    if rng.random() < 0.2:
        shot["params"] = {"u_s": float(rng.uniform(0.1, 0.3))}
    if rng.random() < 0.1:
        shot["models"] = {"cushion": "mirror"}
    if rng.random() < 0.2:
        shot["max_events"] = int(rng.choice([3, 1000, 5000]))
    if rng.random() < 0.15:
        shot["t_max"] = float(rng.choice([0.2, 60.0])) if rng.random() < 0.8 else 2
    if rng.random() < 0.2:
        shot["event_states"] = bool(rng.random() < 0.7)
    if rng.random() < 0.05:
        shot["balls"][chosen[0]]["x"] = 0  # an integer: the exact parser's case
    return shot


def broken(rng, shot: dict) -> dict:
    """``shot`` with one value or key broken (possibly still valid, e.g. an integer)."""
    shot = copy.deepcopy(shot)
    junk = copy.deepcopy(JUNK[rng.integers(len(JUNK))])
    ball = next(iter(shot["balls"].values()))
    strike = shot.get("strike")
    strike = strike[0] if isinstance(strike, list) else strike
    where = [(ball, "x"), (ball, "y"), (ball, "v"), (ball, "w"), (shot, "pins"),
             (shot, "max_events"), (shot, "t_max"), (shot, "params"), (shot, "models"),
             (shot, "colour"), (shot, "table"), (shot, "balls"), (ball, "z"),
             (shot, "event_states")]
    if strike:
        where += [(strike, k) for k in ("ball", "V0", "phi", "theta", "a", "b", "c")]
    obj, key = where[rng.integers(len(where))]
    if rng.random() < 0.2 and key in obj:
        del obj[key]
    else:
        obj[key] = junk
    return shot


def _same_plans(a: list, b: list) -> None:
    assert len(a) == len(b)
    for (ia, ka), (ib, kb) in zip(a, b, strict=True):
        assert ia == ib and ka.keys() == kb.keys()
        for k, va in ka.items():
            vb = kb[k]
            if isinstance(va, np.ndarray):
                assert va.dtype == vb.dtype and np.array_equal(va, vb), k
            elif k == "table_names":
                assert [va[t] for t in range(len(va))] == [vb[t] for t in range(len(vb))]
            else:
                assert va == vb, k


def _plan(groups):
    return [c for g in groups.values() for c in _group_chunks(g)]


@pytest.mark.parametrize("seed", range(4))
def test_fast_parser_plans_what_the_exact_parser_plans(seed):
    rng = np.random.default_rng(seed)
    shots = [valid_shot(rng) for _ in range(60)]
    plain = [s for s in shots if s["balls"][next(iter(s["balls"]))]["x"] != 0
             and s.get("t_max") != 2]
    for lst in (shots, plain, plain[:1]):
        exact = _plan(_exact_groups(copy.deepcopy(lst)))
        fast = _fast_groups(copy.deepcopy(lst))
        if lst is not shots:
            assert fast is not None  # well-formed lists take the fast path
        if fast is not None:
            _same_plans(_plan(fast), exact)


def test_outputs_of_both_plans_are_identical():
    rng = np.random.default_rng(7)
    shots = [valid_shot(rng) for _ in range(80)]
    out = [None] * len(shots)
    for idx, kw in _plan(_exact_groups(shots)):
        states = [shots[i].get("event_states", False) for i in idx]
        for i, r in zip(idx, _chunk_outputs(simulate(**kw), kw, states), strict=True):
            out[i] = r
    assert simulate_json(shots) == out
    assert _fast_groups(json_shots(rng, 8)) is not None  # the benchmark's shots: fast path


@pytest.mark.parametrize("seed", range(3))
def test_fast_parser_gives_up_wherever_the_exact_parser_refuses(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(80):
        lst = [valid_shot(rng) for _ in range(int(rng.integers(1, 4)))]
        k = int(rng.integers(len(lst)))
        lst[k] = broken(rng, lst[k])
        try:
            exact = _plan(_exact_groups(copy.deepcopy(lst)))
        except PhysicsInputError:
            assert _fast_groups(copy.deepcopy(lst)) is None
            continue
        fast = _fast_groups(copy.deepcopy(lst))
        if fast is not None:
            _same_plans(_plan(fast), exact)


def test_a_list_whose_shots_name_more_than_62_balls_together_is_simulated():
    """Shots on a custom table may each name their own balls; grouped into one call, 40 + 40
    ids passed the per-table limit of 62 and the valid list was refused. Each shot's result
    equals the shot simulated alone, and the first bad shot is still named."""
    def shot(prefix, n, V0):
        balls = {f"{prefix}{k}": {"x": -0.9 + 0.1 * (k % 19), "y": -0.4 + 0.1 * (k // 19)}
                 for k in range(n)}
        return {"table": {"length": 2.0, "width": 1.0}, "balls": balls,
                "strike": {"ball": f"{prefix}0", "V0": V0, "phi": 90.0}}

    shots = [shot("a", 40, 1.0), shot("b", 40, 1.5), shot("c", 30, 0.7)]
    assert simulate_json(shots) == [simulate_json(s) for s in shots]
    bad = shot("d", 40, 1.0)
    bad["balls"]["d1"]["x"] = bad["balls"]["d0"]["x"]
    with pytest.raises(ValueError, match=r"^shot\[2\]: 'd0' and 'd1' overlap"):
        simulate_json(shots[:2] + [bad])


@pytest.mark.parametrize("pins", [0, 0.0, "no", True])
def test_pins_on_a_table_without_pins_are_false_or_absent(pins):
    """``"pins": 0`` was taken as false on golfbillard (0 == False) while keglebillard refuses
    ``"pins": 1``: only false, [] or no key say "no pins"."""
    shot = {"table": "golfbillard", "balls": {"w1": {"x": 0.0, "y": 0.0}},
            "strike": {"ball": "w1", "V0": 1.0, "phi": 0.0}}
    with pytest.raises(PhysicsInputError, match=r"^shot\[1\]\.pins: table 'golfbillard' has no "
                                                r"pins, got "):
        simulate_json([shot, dict(shot, pins=pins)])
    simulate_json([dict(shot, pins=False), dict(shot, pins=[])])


@pytest.mark.parametrize("table, match", [
    ({"length": 1e300, "width": 1.0}, r"length = 1e\+300 m: a table side is at most 100 m"),
    ({"length": 2.0, "width": 1.0, "posts": [{"x": 5.0, "y": 0.0, "radius": 0.02}]},
     r"posts\[0\] at \(5.0, 0.0\) with radius 0.02 m lies outside the 2 x 1 m table"),
    ({"length": 2.0, "width": 1.0, "pockets": [{"x": 0.0, "y": 3.0, "radius": 0.05}]},
     r"pockets\[0\] at \(0.0, 3.0\) .* lies outside"),
])
def test_custom_tables_keep_their_pockets_and_posts_within_reach(table, match):
    """A post or pocket no ball could reach, or a table side of 1e300 m, was accepted."""
    with pytest.raises(PhysicsInputError, match=r"^shot\[0\]\.table: " + match):
        simulate_json({"table": table, "balls": {"a": {"x": 0.0, "y": 0.0}}})
    edge = {"length": 2.0, "width": 1.0, "posts": [{"x": 1.01, "y": 0.0, "radius": 0.02}]}
    simulate_json({"table": edge, "balls": {"a": {"x": 0.0, "y": 0.0}}})


@pytest.mark.parametrize("parser", [_fast_groups, _exact_groups])
def test_shots_with_the_same_params_build_them_once_and_share_a_group(parser, monkeypatch):
    """The parameter cache looked the overrides up under their own spelling but stored them
    under the whole set's: every shot built its PhysicsParams again (23 % of the array API's
    shots/s on shots carrying {"u_s": 0.2}, against the >= 50 % target)."""
    from cuegym.configs import PhysicsParams

    shots = json_shots(np.random.default_rng(0), 64)
    for k, s in enumerate(shots):  # two spellings of one set ("u_r" 0.01 is the default)
        s["params"] = [{"u_s": 0.2}, {"u_s": 0.2, "u_r": 0.01}, {"u_s": 0.3}][k % 3]
    built = []
    build = PhysicsParams.from_dict.__func__
    monkeypatch.setattr(PhysicsParams, "from_dict",
                        classmethod(lambda cls, *a, **k: built.append(1) or build(cls, *a, **k)))
    groups = parser(shots)
    # each spelling once per game whose defaults it overrides, and those defaults once each
    assert len(built) <= 3 * 2 + 2
    # equal sets are one object however they were spelt (one group per table and set)
    sets = {}
    for g in groups.values():
        sets.setdefault((g.params.as_dict()["u_s"], g.table.game), set()).add(id(g.params))
    assert all(len(ids) == 1 for ids in sets.values())
