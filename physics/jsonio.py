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

A list of shot objects is answered with a list, in order. Unknown keys are errors. See
:func:`simulate_json`.

Speed: a list runs at close to the array API's speed. Every distinct table, parameter set and
model choice is read and validated once per call (named tables and game parameters once per
process); shots that share them are grouped and simulated in chunks of at most
:data:`CHUNK_TABLES` tables through :func:`~cuegym.physics.simulate`, reusing one set of
event-log buffers; outputs are built from whole-array ``tolist()`` conversions.
"""

from __future__ import annotations

import gc
import json
import math
from typing import Any

import numpy as np

from ..configs import TABLE_NAMES, ConfigError, PhysicsParams, custom_table, load_params, load_table
from .api import Models, PhysicsInputError, Workspace, simulate
from .constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_PIN,
    EV_BALL_POCKET,
    EV_BALL_POST,
    EV_PIN_PIN,
    EV_TRANSITION,
    EVENT_NAMES,
    MAX_EVENTS,
    MAX_JSON_SHOTS,
    MAX_T,
    MOTION_NAMES,
    POCKETED,
)

SHOT_KEYS = {"table", "pins", "params", "models", "balls", "strike", "max_events", "t_max"}
BALL_KEYS = {"x", "y", "v", "w"}
STRIKE_KEYS = {"ball", "V0", "phi", "theta", "a", "b"}
MODEL_KEYS = {"ball_ball", "cushion", "squirt"}
TABLE_KEYS = {"length", "width", "cushion_height", "pockets", "posts"}
PARAM_KEYS = frozenset(PhysicsParams.__dataclass_fields__)
#: Most tables simulated in one call of the array API (bounds the event-log memory of a list).
CHUNK_TABLES = 512
#: Event-log memory [bytes] one chunk may use; chunks shrink for large ``max_events``. One such
#: set of buffers is kept between calls (zero-filling fresh buffers would cost as much as the
#: simulation of a 256-shot list).
CHUNK_LOG_BYTES = 32 * 2**20
_END_REASONS = ("rest", "max_events", "t_max")


def _num(where: str, value: Any) -> float:
    """A finite JSON number as a float (bool is not a number)."""
    if type(value) is float:  # the common case first: a JSON float
        if value - value == 0.0:  # finite (inf - inf and nan - nan are nan)
            return value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            x = float(value)
        except OverflowError:  # an integer too large for a float
            x = math.inf
        if math.isfinite(x):
            return x
    else:
        raise PhysicsInputError(f"{where} must be a number, got {value!r}")
    raise PhysicsInputError(f"{where} must be finite, got {value!r}")


def _key(obj: Any) -> str:
    """A cache key for a JSON value (repr for values JSON cannot spell, e.g. numpy scalars)."""
    try:
        return json.dumps(obj, sort_keys=True)
    except (TypeError, ValueError):
        return repr(obj)


def _check_keys(where: str, obj: Any, allowed: set | frozenset) -> None:
    if not isinstance(obj, dict):
        raise PhysicsInputError(f"{where} must be an object, got {type(obj).__name__}")
    if not obj.keys() <= allowed:
        unknown = sorted(set(obj) - allowed)
        raise PhysicsInputError(f"unknown key(s) {unknown} in {where}; allowed: {sorted(allowed)}")


_NAMED_TABLES: dict = {}
_DEFAULT_MODELS = Models()
_SPARE_WORKSPACES: list = []  # event-log buffers kept for the next call (list ops are atomic)
_GAME_PARAMS: dict = {}


def _named_table(name: str):
    """A shipped table, read from its YAML once per process (TableSpec is frozen)."""
    t = _NAMED_TABLES.get(name)
    if t is None:
        t = _NAMED_TABLES[name] = load_table(name)
    return t


def _game_params(game: str) -> PhysicsParams:
    """A game's default parameters, read from their YAML once per process (frozen)."""
    p = _GAME_PARAMS.get(game)
    if p is None:
        p = _GAME_PARAMS[game] = load_params(game)
    return p


class _Cache:
    """Everything validated once per :func:`simulate_json` call, keyed by its JSON spelling."""

    def __init__(self) -> None:
        self.tables: dict = {}
        self.params: dict = {}
        self.models: dict = {}

    def table(self, shot: str, spec: Any):
        """(TableSpec, game for the default parameters, key) of shot ``shot``'s table."""
        where = shot + ".table"
        if isinstance(spec, str):
            if spec not in TABLE_NAMES:
                raise PhysicsInputError(f"{where}: unknown table {spec!r}; known: "
                                        f"{list(TABLE_NAMES)} or a custom table object")
            t = _named_table(spec)
            return t, t.game if t.game != "none" else "keglebillard", spec
        _check_keys(where, spec, TABLE_KEYS)
        key = _key(spec)
        hit = self.tables.get(key)
        if hit is None:
            hit = self.tables[key] = (_custom_table(where, spec), "keglebillard", key)
        return hit

    def physics(self, shot: str, game: str, params_in: Any) -> tuple[PhysicsParams, str]:
        """(PhysicsParams, key): the game's defaults with shot ``shot``'s overrides."""
        if not params_in and isinstance(params_in, dict):
            base = _game_params(game)
            return base, game
        where = shot + ".params"
        _check_keys(where, params_in, PARAM_KEYS)
        over = {k: _num(f"{where}.{k}", v) for k, v in params_in.items()}
        key = game + json.dumps(over, sort_keys=True)
        hit = self.params.get(key)
        if hit is None:
            try:
                hit = PhysicsParams.from_dict(over, base=_game_params(game))
            except ConfigError as exc:
                raise PhysicsInputError(f"{where}: {exc}") from None
            # equal parameter sets share one object (one group, one kernel-array unpack)
            key = game + json.dumps(hit.as_dict(), sort_keys=True)
            hit = self.params.setdefault(key, hit)
        return hit, key

    def model(self, shot: str, models_in: Any) -> Models:
        """The collision models of shot ``shot``."""
        if isinstance(models_in, dict) and not models_in:
            return _DEFAULT_MODELS
        where = shot + ".models"
        _check_keys(where, models_in, MODEL_KEYS)
        key = _key(models_in)
        hit = self.models.get(key)
        if hit is None:
            try:
                hit = self.models[key] = Models(**models_in)
            except (ConfigError, TypeError) as exc:
                raise PhysicsInputError(f"{where}: {exc}") from None
        return hit


def _custom_table(where: str, spec: dict):
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
        return custom_table(_num(f"{where}.length", spec["length"]),
                            _num(f"{where}.width", spec["width"]),
                            _num(f"{where}.cushion_height", spec.get("cushion_height", 0.0394)),
                            spec.get("pockets", []), spec.get("posts", []))
    except ConfigError as exc:
        raise PhysicsInputError(f"{where}: {exc}") from None


def _at(*parts: Any) -> str:
    """An error location from its parts (joined only when an error is raised)."""
    return "".join(map(str, parts))


def _fnum(value: Any, *where: Any) -> float:
    """:func:`_num` with the location given as parts, formatted only on error (hot path)."""
    if type(value) is float and value - value == 0.0:
        return value
    return _num(_at(*where), value)


def _parse_balls(where: str, balls: Any, table) -> list:
    """[(id, x, y, v or None, w or None)] of a shot's balls, validated."""
    if not isinstance(balls, dict) or not balls:
        raise PhysicsInputError(f"{where}.balls must be a non-empty object of ball ids")
    if table.ball_ids:
        unknown = [b for b in balls if b not in table.ball_ids]
        if unknown:
            raise PhysicsInputError(f"{where}.balls: unknown ball id(s) {unknown} on table "
                                    f"{table.name!r}; known: {list(table.ball_ids)}")
    out = []
    for bid, b in balls.items():
        if not (type(b) is dict and b.keys() <= BALL_KEYS):
            _check_keys(_at(where, ".balls.", bid), b, BALL_KEYS)
        if "x" not in b or "y" not in b:
            raise PhysicsInputError(f"{where}.balls.{bid} needs {'x' if 'x' not in b else 'y'!r}")
        x = _fnum(b["x"], where, ".balls.", bid, ".x")
        y = _fnum(b["y"], where, ".balls.", bid, ".y")
        vw = [None, None]
        if len(b) > 2:
            for slot, (k, n) in enumerate((("v", 2), ("w", 3))):
                if k in b:
                    val = b[k]
                    if not isinstance(val, list) or len(val) != n:
                        raise PhysicsInputError(f"{where}.balls.{bid}.{k} must be a list of {n} "
                                                f"numbers, got {val!r}")
                    vw[slot] = [_fnum(val[c], where, ".balls.", bid, f".{k}[{c}]")
                                for c in range(n)]
        out.append((bid, x, y, vw[0], vw[1]))
    return out


_STRIKE_VALUES = ("V0", "phi", "theta", "a", "b")


def _parse_strikes(where: str, shot: dict, balls: dict) -> list:
    """[(ball id, V0, phi, theta, a, b)] of a shot's strikes, validated."""
    strikes = shot.get("strike", [])
    if isinstance(strikes, dict):
        strikes = [strikes]
    if not isinstance(strikes, list):
        raise PhysicsInputError(f"{where}.strike must be an object or a list of them")
    out = []
    for s_i, s in enumerate(strikes):
        if not (type(s) is dict and s.keys() <= STRIKE_KEYS):
            _check_keys(_at(where, ".strike[", s_i, "]"), s, STRIKE_KEYS)
        ball = s.get("ball")
        if not isinstance(ball, str) or ball not in balls:
            raise PhysicsInputError(f"{where}.strike[{s_i}].ball {ball!r} is not one of the "
                                    f"balls {list(balls)}")
        for k in ("V0", "phi"):
            if k not in s:
                raise PhysicsInputError(f"{where}.strike[{s_i}] needs {k!r}")
        vals = [_fnum(s[k], where, ".strike[", s_i, "].", k) if k in s else 0.0
                for k in _STRIKE_VALUES]
        if vals[0] < 0:
            raise PhysicsInputError(f"{where}.strike[{s_i}].V0 must be >= 0, got {s['V0']!r}")
        out.append((ball, *vals))
    return out


def _parse(i: int, shot: Any, cache: _Cache) -> dict:
    where = "shot[" + str(i) + "]"
    if not (type(shot) is dict and shot.keys() <= SHOT_KEYS):
        _check_keys(where, shot, SHOT_KEYS)
    if "table" not in shot:
        raise PhysicsInputError(f"{where} needs 'table'")
    if "balls" not in shot:
        raise PhysicsInputError(f"{where} needs 'balls'")
    table, game, tkey = cache.table(where, shot["table"])
    params, pkey = cache.physics(where, game, shot.get("params", {}))
    models = cache.model(where, shot.get("models", {}))
    balls = _parse_balls(where, shot["balls"], table)
    strikes = _parse_strikes(where, shot, shot["balls"])
    if table.pin_spots:
        pins = shot.get("pins", True)
        if isinstance(pins, bool):
            up = (pins,) * len(table.pin_spots)
        elif isinstance(pins, list) and all(p in table.pin_ids for p in pins):
            up = tuple(pid in pins for pid in table.pin_ids)
        else:
            raise PhysicsInputError(f"{where}.pins must be true/false or a list of pin ids "
                                    f"{list(table.pin_ids)}, got {pins!r}")
    else:
        pins = shot.get("pins", False)
        if pins not in (False, [], None) and pins is not False:
            raise PhysicsInputError(f"{where}.pins: table {table.name!r} has no pins")
        up = ()
    max_events = shot.get("max_events", 1000)
    if (isinstance(max_events, bool) or not isinstance(max_events, int)
            or not 1 <= max_events <= MAX_EVENTS):
        raise PhysicsInputError(f"{where}.max_events must be an integer in [1, {MAX_EVENTS}], "
                                f"got {max_events!r}")
    t_max = _fnum(shot.get("t_max", 60.0), where, ".t_max")
    if not 0 < t_max <= MAX_T:
        raise PhysicsInputError(f"{where}.t_max must be in (0, {MAX_T}] s, got {t_max!r}")
    return {"i": i, "table": table, "params": params, "models": models, "balls": balls,
            "strikes": strikes, "pins_up": up, "max_events": max_events, "t_max": t_max,
            "key": (tkey, pkey, models, max_events, t_max)}


def _agent_names(table, order: list) -> tuple[list, list]:
    """Per event type, the name lists that ev_i and ev_j index (None: no such agent)."""
    nl = len(table.cushions)
    cushions = [f"cushion{j}" for j in range(nl)] + [f"jaw{j}" for j in range(len(table.circles))]
    pockets = [p.name or f"pocket{j}" for j, p in enumerate(table.pockets)]
    posts = [f"post{j}" for j in range(len(table.circles))]
    pins = list(table.pin_ids)
    first = [None] * len(EVENT_NAMES)
    second = [None] * len(EVENT_NAMES)
    for typ, a, b in ((EV_BALL_BALL, order, order), (EV_BALL_CUSHION, order, cushions),
                      (EV_BALL_POCKET, order, pockets), (EV_BALL_POST, order, posts),
                      (EV_BALL_PIN, order, pins), (EV_PIN_PIN, pins, pins)):
        first[typ] = a
        second[typ] = b
    first[EV_TRANSITION] = order
    return first, second


def _events(typ: list, tim: list, ei: list, ej: list, first: list, second: list) -> list[dict]:
    """Event objects from one table's log columns (lists); ``first``/``second`` from
    :func:`_agent_names`."""
    names = EVENT_NAMES
    motion = MOTION_NAMES
    return [{"time": tm, "type": "transition", "agents": [first[ty][i]], "state": motion[j]}
            if ty == EV_TRANSITION else
            {"time": tm, "type": names[ty], "agents": [first[ty][i], second[ty][j]]}
            for ty, tm, i, j in zip(typ, tim, ei, ej, strict=True)]


def _chunk_inputs(shots: list[dict], order: list, index: dict) -> dict:
    """Keyword arguments of :func:`simulate` for parsed shots of one group (same table,
    parameters, models and limits); ball b of every table is ``order[b]``."""
    first = shots[0]
    table = first["table"]
    T, B, P = len(shots), len(order), len(table.pin_spots)
    S = max(1, max(len(s["strikes"]) for s in shots))
    # gather in flat Python lists, then scatter into the arrays at once (numpy item
    # assignment per ball would cost more than the simulation of a small shot)
    tt, bb, pos, vw_t, vw_b, vw_val = [], [], [], [], [], []
    st_t, st_k, st_b, st_val = [], [], [], []
    for t, s in enumerate(shots):
        for bid, x, y, v, w in s["balls"]:
            bi = index[bid]
            tt.append(t)
            bb.append(bi)
            pos.append((x, y))
            if v is not None or w is not None:
                vw_t.append(t)
                vw_b.append(bi)
                vw_val.append((*(v or (0.0, 0.0)), *(w or (0.0, 0.0, 0.0))))
        for k, (bid, *vals) in enumerate(s["strikes"]):
            st_t.append(t)
            st_k.append(k)
            st_b.append(index[bid])
            st_val.append(vals)
    xy = np.zeros((T, B, 2))
    xy[tt, bb] = pos
    present = np.zeros((T, B), bool)
    present[tt, bb] = True
    cue_ball = np.full((T, S), -1, np.int64)
    cue = np.zeros((T, S, 5))
    if st_t:
        cue_ball[st_t, st_k] = st_b
        cue[st_t, st_k] = st_val
    vw = None
    if vw_t:
        vw = np.zeros((T, B, 5))
        vw[vw_t, vw_b] = vw_val
    pins_up = np.array([s["pins_up"] for s in shots], bool).reshape(T, P) if P else None
    return {"table": table, "params": first["params"], "xy": xy, "cue_ball": cue_ball,
            "cue": cue, "v": None if vw is None else vw[..., 0:2],
            "w": None if vw is None else vw[..., 2:5], "present": present,
            "pins_up": pins_up, "models": first["models"], "max_events": first["max_events"],
            "t_max": first["t_max"], "ball_names": tuple(order),
            "table_names": [f"shot[{s['i']}]" for s in shots]}


def _chunk_outputs(res, shots: list[dict], order: tuple[str, ...]) -> list[dict]:
    """The output objects of a chunk's :class:`~cuegym.physics.SimResult` (ball b is
    ``order[b]``)."""
    table = shots[0]["table"]
    index = {bid: k for k, bid in enumerate(order)}
    fxy = res.rvw[:, :, 0, 0:2].tolist()
    motion = res.motion.tolist()
    pocket = res.pocket.tolist()
    up = res.pins_up.tolist()
    toppler = res.pin_toppler.tolist()
    n_ev = res.n_events.tolist()
    # every table's log slots, flattened: one tolist() per column for the whole chunk
    counts = res.n_events.astype(np.int64)
    rows = np.repeat(np.arange(len(counts)), counts)
    cols = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    typ, tim, ei, ej = (a[rows, cols].tolist()
                        for a in (res.ev_type, res.ev_time, res.ev_i, res.ev_j))
    start = 0
    t_end = res.t_end.tolist()
    overflow = res.overflow.tolist()
    agent_first, agent_second = _agent_names(table, order)
    pin_ids = table.pin_ids
    out = []
    for t, s in enumerate(shots):
        final = {}
        for bid, *_ in sorted(s["balls"], key=lambda b: index[b[0]]):
            bi = index[bid]
            m = motion[t][bi]
            pocketed = m == POCKETED
            final[bid] = {"x": fxy[t][bi][0], "y": fxy[t][bi][1], "state": MOTION_NAMES[m],
                          "pocket": pocket[t][bi] if pocketed else None}
        pins = {}
        for p, pid in enumerate(pin_ids):
            mask = toppler[t][p]
            # K-P3: with several attributed balls the lowest index (the red) is named
            by = order[(mask & -mask).bit_length() - 1] if mask else None
            pins[pid] = {"standing": up[t][p], "toppled_by": by}
        n = n_ev[t]
        end = start + n
        events = _events(typ[start:end], tim[start:end], ei[start:end], ej[start:end],
                         agent_first, agent_second)
        start = end
        of = overflow[t]
        out.append({"final": final, "pins": pins, "events": events, "n_events": n,
                    "t_end": t_end[t], "overflow": of != 0, "end_reason": _END_REASONS[of]})
    return out


def parse_shots(obj: Any) -> list[dict]:
    """Validate a shot object or a list of them (see the module docstring).

    Returns:
        One parsed shot per input shot (internal records for :func:`batches`).
    Raises:
        PhysicsInputError: with a message naming the bad key or value.
    """
    shots = [obj] if isinstance(obj, dict) else obj
    if not isinstance(shots, list) or not shots:
        raise PhysicsInputError("input must be a shot object or a non-empty list of them")
    if len(shots) > MAX_JSON_SHOTS:
        raise PhysicsInputError(f"at most {MAX_JSON_SHOTS} shots per list, got {len(shots)}: "
                                f"split the list")
    cache = _Cache()
    return [_parse(i, s, cache) for i, s in enumerate(shots)]


def batches(parsed: list[dict]) -> list[tuple[list[dict], dict]]:
    """Group parsed shots by (table, parameters, models, limits) and cut each group into chunks.

    Returns:
        ``(shots, kwargs)`` per chunk: ``simulate(**kwargs)`` simulates those shots, in order.
        A chunk holds at most :data:`CHUNK_TABLES` shots and :data:`CHUNK_LOG_BYTES` of log.
    """
    groups: dict = {}
    for p in parsed:
        groups.setdefault(p["key"], []).append(p)
    out = []
    for shots in groups.values():
        table = shots[0]["table"]
        order = list(table.ball_ids)
        seen = set(order)
        for s in shots:
            for b in s["balls"]:
                if b[0] not in seen:
                    seen.add(b[0])
                    order.append(b[0])
        index = {bid: k for k, bid in enumerate(order)}
        per_table = shots[0]["max_events"] * Workspace.BYTES_PER_EVENT
        chunk = max(1, min(CHUNK_TABLES, CHUNK_LOG_BYTES // per_table))
        for c in range(0, len(shots), chunk):
            part = shots[c:c + chunk]
            out.append((part, _chunk_inputs(part, order, index)))
    return out


def simulate_json(obj: Any) -> Any:
    """Simulate one shot object (returns one result) or a list of them (returns a list).

    Raises:
        PhysicsInputError: with a message naming the bad key or value.
    """
    # The output is a tree of many small dicts and lists without reference cycles; the cyclic
    # garbage collector would rescan it again and again as it grows (3/4 of the output-building
    # time on a 256-shot list), so it is paused for the call.
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        parsed = parse_shots(obj)
        results: list = [None] * len(parsed)
        # one set of log buffers for every chunk; a concurrent call takes a fresh one
        ws = _SPARE_WORKSPACES.pop() if _SPARE_WORKSPACES else Workspace()
        for part, kwargs in batches(parsed):
            res = simulate(**kwargs, workspace=ws)
            for p, r in zip(part, _chunk_outputs(res, part, kwargs["ball_names"]), strict=True):
                results[p["i"]] = r
        if not _SPARE_WORKSPACES:
            _SPARE_WORKSPACES.append(ws)
    finally:
        if gc_was_on:
            gc.enable()
    return results[0] if isinstance(obj, dict) else results


def main_simulate(stdin, stdout) -> int:
    try:
        obj = json.load(stdin)
    except json.JSONDecodeError as exc:
        raise PhysicsInputError(f"input is not valid JSON: {exc}") from None
    json.dump(simulate_json(obj), stdout)
    stdout.write("\n")
    return 0
