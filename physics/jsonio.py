"""The JSON shot interface: ``python -m cuegym.physics simulate < in.json > out.json``.

A shot object (metres, seconds, degrees; origin at the table centre, x along the length)::

    {"table": "keglebillard" | "keglebillard-helmatch" | "golfbillard" | "rectangle" |
              {"length": 2.10, "width": 1.05, "cushion_height": 0.0394,
               "pockets": [{"x": .., "y": .., "radius": ..}],
               "posts": [{"x": .., "y": .., "radius": ..}]},
     "pins": true,                       # keglebillard tables: all pins standing (or a list of ids)
     "params": {"R": .., "u_s": .., ...},  # overrides of the game's configs/physics/*.yaml
     "models": {"ball_ball": "frictional_inelastic" | "frictionless_elastic",
                "cushion": "han_2005" | "mirror", "squirt": false},
     "balls": {"<id>": {"x": .., "y": .., "v": [vx, vy], "w": [wx, wy, wz]}},
     "strike": {"ball": "<id>", "V0": .., "phi": .., "theta": .., "a": .., "b": ..},  # or a list
     "max_events": 1000, "t_max": 60.0}

A list of shot objects is simulated as one batch per distinct (table, params, models, limits)
and answered with a list. Unknown keys are errors. See :func:`simulate_json`.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from ..configs import TABLE_NAMES, ConfigError, custom_table, load_params, load_table
from .api import Models, PhysicsInputError, simulate
from .constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_PIN,
    EV_BALL_POCKET,
    EV_BALL_POST,
    EV_PIN_PIN,
    EV_TRANSITION,
    EVENT_NAMES,
    MOTION_NAMES,
    POCKETED,
)

SHOT_KEYS = {"table", "pins", "params", "models", "balls", "strike", "max_events", "t_max"}
BALL_KEYS = {"x", "y", "v", "w"}
STRIKE_KEYS = {"ball", "V0", "phi", "theta", "a", "b"}
MODEL_KEYS = {"ball_ball", "cushion", "squirt"}
TABLE_KEYS = {"length", "width", "cushion_height", "pockets", "posts"}


def _num(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PhysicsInputError(f"{where} must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise PhysicsInputError(f"{where} must be finite, got {value!r}")
    return x


def _check_keys(where: str, obj: Any, allowed: set) -> None:
    if not isinstance(obj, dict):
        raise PhysicsInputError(f"{where} must be an object, got {type(obj).__name__}")
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise PhysicsInputError(f"unknown key(s) {unknown} in {where}; allowed: {sorted(allowed)}")


def _table(where: str, spec: Any):
    """(TableSpec, game name for default parameters, canonical key)."""
    if isinstance(spec, str):
        if spec not in TABLE_NAMES:
            raise PhysicsInputError(f"{where}: unknown table {spec!r}; known: {list(TABLE_NAMES)}"
                                    " or a custom table object")
        t = load_table(spec)
        return t, t.game if t.game != "none" else "keglebillard", spec
    _check_keys(where, spec, TABLE_KEYS)
    for k in ("length", "width"):
        if k not in spec:
            raise PhysicsInputError(f"{where} needs {k!r}")
    for lst in ("pockets", "posts"):
        items = spec.get(lst, [])
        if not isinstance(items, list):
            raise PhysicsInputError(f"{where}.{lst} must be a list")
        for i, p in enumerate(items):
            _check_keys(f"{where}.{lst}[{i}]", p, {"x", "y", "radius"})
            for k in ("x", "y", "radius"):
                _num(f"{where}.{lst}[{i}].{k}", p.get(k))
    try:
        t = custom_table(_num(f"{where}.length", spec["length"]),
                         _num(f"{where}.width", spec["width"]),
                         _num(f"{where}.cushion_height", spec.get("cushion_height", 0.0394)),
                         spec.get("pockets", []), spec.get("posts", []))
    except ConfigError as exc:
        raise PhysicsInputError(f"{where}: {exc}") from None
    return t, "keglebillard", json.dumps(spec, sort_keys=True)


def _parse(i: int, shot: Any) -> dict:
    where = f"shot[{i}]"
    _check_keys(where, shot, SHOT_KEYS)
    if "table" not in shot:
        raise PhysicsInputError(f"{where} needs 'table'")
    if "balls" not in shot:
        raise PhysicsInputError(f"{where} needs 'balls'")
    table, game, tkey = _table(f"{where}.table", shot["table"])
    params_in = shot.get("params", {})
    _check_keys(f"{where}.params", params_in, set(load_params(game).as_dict()))
    try:
        params = load_params(game, **{k: _num(f"{where}.params.{k}", v)
                                      for k, v in params_in.items()})
    except ConfigError as exc:
        raise PhysicsInputError(f"{where}.params: {exc}") from None
    models_in = shot.get("models", {})
    _check_keys(f"{where}.models", models_in, MODEL_KEYS)
    try:
        models = Models(**models_in)
    except (ConfigError, TypeError) as exc:
        raise PhysicsInputError(f"{where}.models: {exc}") from None
    balls = shot["balls"]
    if not isinstance(balls, dict) or not balls:
        raise PhysicsInputError(f"{where}.balls must be a non-empty object of ball ids")
    if table.ball_ids:
        unknown = [b for b in balls if b not in table.ball_ids]
        if unknown:
            raise PhysicsInputError(f"{where}.balls: unknown ball id(s) {unknown} on table "
                                    f"{table.name!r}; known: {list(table.ball_ids)}")
    for bid, b in balls.items():
        _check_keys(f"{where}.balls.{bid}", b, BALL_KEYS)
        for k in ("x", "y"):
            if k not in b:
                raise PhysicsInputError(f"{where}.balls.{bid} needs {k!r}")
            _num(f"{where}.balls.{bid}.{k}", b[k])
        for k, n in (("v", 2), ("w", 3)):
            if k in b:
                if not isinstance(b[k], list) or len(b[k]) != n:
                    raise PhysicsInputError(f"{where}.balls.{bid}.{k} must be a list of {n} "
                                            f"numbers, got {b[k]!r}")
                for c, val in enumerate(b[k]):
                    _num(f"{where}.balls.{bid}.{k}[{c}]", val)
    strikes = shot.get("strike", [])
    if isinstance(strikes, dict):
        strikes = [strikes]
    if not isinstance(strikes, list):
        raise PhysicsInputError(f"{where}.strike must be an object or a list of them")
    for s_i, s in enumerate(strikes):
        sw = f"{where}.strike[{s_i}]"
        _check_keys(sw, s, STRIKE_KEYS)
        if s.get("ball") not in balls:
            raise PhysicsInputError(f"{sw}.ball {s.get('ball')!r} is not one of the balls "
                                    f"{list(balls)}")
        for k in ("V0", "phi"):
            if k not in s:
                raise PhysicsInputError(f"{sw} needs {k!r}")
        for k in ("V0", "phi", "theta", "a", "b"):
            if k in s:
                _num(f"{sw}.{k}", s[k])
        if s["V0"] < 0:
            raise PhysicsInputError(f"{sw}.V0 must be >= 0, got {s['V0']!r}")
    pins = shot.get("pins", bool(table.pin_spots))
    if table.pin_spots:
        if isinstance(pins, bool):
            up = [pins] * len(table.pin_spots)
        elif isinstance(pins, list) and all(p in table.pin_ids for p in pins):
            up = [pid in pins for pid in table.pin_ids]
        else:
            raise PhysicsInputError(f"{where}.pins must be true/false or a list of pin ids "
                                    f"{list(table.pin_ids)}, got {pins!r}")
    else:
        if pins not in (False, [], None) and "pins" in shot and pins is not False:
            raise PhysicsInputError(f"{where}.pins: table {table.name!r} has no pins")
        up = []
    max_events = shot.get("max_events", 1000)
    if isinstance(max_events, bool) or not isinstance(max_events, int) or max_events < 1:
        raise PhysicsInputError(f"{where}.max_events must be a positive integer, got "
                                f"{max_events!r}")
    t_max = _num(f"{where}.t_max", shot.get("t_max", 60.0))
    if t_max <= 0:
        raise PhysicsInputError(f"{where}.t_max must be > 0, got {t_max!r}")
    key = (tkey, json.dumps(params.as_dict(), sort_keys=True), models, max_events, t_max)
    return {"table": table, "params": params, "models": models, "balls": balls,
            "strikes": strikes, "pins_up": up, "key": key, "max_events": max_events,
            "t_max": t_max}


def _agents(typ: int, i: int, j: int, ids, table) -> list:
    nl = len(table.cushions)
    if typ == EV_BALL_BALL:
        return [ids[i], ids[j]]
    if typ == EV_BALL_CUSHION:
        return [ids[i], f"cushion{j}" if j < nl else f"jaw{j - nl}"]
    if typ == EV_BALL_POCKET:
        return [ids[i], table.pockets[j].name or f"pocket{j}"]
    if typ == EV_BALL_POST:
        return [ids[i], f"post{j}"]
    if typ == EV_BALL_PIN:
        return [ids[i], table.pin_ids[j]]
    if typ == EV_PIN_PIN:
        return [table.pin_ids[i], table.pin_ids[j]]
    if typ == EV_TRANSITION:
        return [ids[i]]
    return []


def _run_group(shots: list[dict]) -> list[dict]:
    first = shots[0]
    table = first["table"]
    order = list(table.ball_ids) if table.ball_ids else []
    for s in shots:
        for bid in s["balls"]:
            if bid not in order:
                order.append(bid)
    T, B = len(shots), len(order)
    xy = np.zeros((T, B, 2))
    v = np.zeros((T, B, 2))
    w = np.zeros((T, B, 3))
    present = np.zeros((T, B), bool)
    S = max(1, max(len(s["strikes"]) for s in shots))
    cue_ball = np.full((T, S), -1, np.int64)
    cue = np.zeros((T, S, 5))
    pins_up = np.array([s["pins_up"] for s in shots], bool).reshape(T, len(table.pin_spots))
    # Place absent balls far apart outside the bed; they are flagged absent and never simulated.
    for t, s in enumerate(shots):
        for bi, bid in enumerate(order):
            b = s["balls"].get(bid)
            if b is None:
                continue
            present[t, bi] = True
            xy[t, bi] = (b["x"], b["y"])
            if "v" in b:
                v[t, bi] = b["v"]
            if "w" in b:
                w[t, bi] = b["w"]
        for k, st in enumerate(s["strikes"]):
            cue_ball[t, k] = order.index(st["ball"])
            cue[t, k] = (st["V0"], st["phi"], st.get("theta", 0.0), st.get("a", 0.0),
                         st.get("b", 0.0))
    res = simulate(table, first["params"], xy, cue_ball=cue_ball, cue=cue, v=v, w=w,
                   present=present, pins_up=pins_up if table.pin_spots else None,
                   models=first["models"], max_events=first["max_events"],
                   t_max=first["t_max"], ball_names=tuple(order))
    out = []
    for t, s in enumerate(shots):
        final = {}
        for bi, bid in enumerate(order):
            if bid not in s["balls"]:
                continue
            pocketed = int(res.motion[t, bi]) == POCKETED
            final[bid] = {"x": float(res.rvw[t, bi, 0, 0]), "y": float(res.rvw[t, bi, 0, 1]),
                          "state": MOTION_NAMES[int(res.motion[t, bi])] if not pocketed
                          else "pocketed",
                          "pocket": int(res.pocket[t, bi]) if pocketed else None}
        pins = {}
        for p, pid in enumerate(table.pin_ids):
            mask = int(res.pin_toppler[t, p])
            # K-P3: with several attributed balls the lowest index (the red) is named
            by = next((order[b] for b in range(B) if mask >> b & 1), None)
            pins[pid] = {"standing": bool(res.pins_up[t, p]), "toppled_by": by}
        events = []
        for k in range(int(res.n_events[t])):
            typ = int(res.ev_type[t, k])
            ev = {"time": float(res.ev_time[t, k]), "type": EVENT_NAMES[typ],
                  "agents": _agents(typ, int(res.ev_i[t, k]), int(res.ev_j[t, k]), order,
                                    table)}
            if typ == EV_TRANSITION:
                ev["state"] = MOTION_NAMES[int(res.ev_j[t, k])]
            events.append(ev)
        of = int(res.overflow[t])
        out.append({"final": final, "pins": pins, "events": events,
                    "n_events": int(res.n_events[t]), "t_end": float(res.t_end[t]),
                    "overflow": of != 0,
                    "end_reason": ("rest", "max_events", "t_max")[of]})
    return out


def simulate_json(obj: Any) -> Any:
    """Simulate one shot object (returns one result) or a list of them (returns a list).

    Raises:
        PhysicsInputError: with a message naming the bad key or value.
    """
    single = isinstance(obj, dict)
    shots = [obj] if single else obj
    if not isinstance(shots, list) or not shots:
        raise PhysicsInputError("input must be a shot object or a non-empty list of them")
    parsed = [_parse(i, s) for i, s in enumerate(shots)]
    groups: dict = {}
    for i, p in enumerate(parsed):
        groups.setdefault(p["key"], []).append(i)
    results: list = [None] * len(parsed)
    for idxs in groups.values():
        for i, r in zip(idxs, _run_group([parsed[i] for i in idxs]), strict=True):
            results[i] = r
    return results[0] if single else results


def main_simulate(stdin, stdout) -> int:
    try:
        obj = json.load(stdin)
    except json.JSONDecodeError as exc:
        raise PhysicsInputError(f"input is not valid JSON: {exc}") from None
    json.dump(simulate_json(obj), stdout)
    stdout.write("\n")
    return 0
