"""JSON shot objects → :func:`~cuegym.physics.simulate` calls (the input side of
:mod:`cuegym.physics.jsonio`, whose docstring gives the format).

Two parsers share one planner. :func:`_exact_groups` validates shot by shot and owns every error
message (the first bad value of a list, in list order, is the one named).
:func:`~cuegym.physics.jsonfast._fast_groups` (:mod:`cuegym.physics.jsonfast`) is a screen for
the common, well-formed list: it checks whole groups at once (types by set of
``type``, numbers by one numpy conversion) and gives up -- returning None, never raising -- on
anything it does not recognise as valid, whereupon the exact parser runs and names the error.
Both fill the same :class:`_Columns` per group of shots sharing table, parameters, models and
limits; :func:`_group_chunks` turns them into the arrays of the array API, in chunks.
"""

from __future__ import annotations

import json
import math
import numbers
from itertools import chain
from typing import Any

import numpy as np

from ..configs import (
    TABLE_NAMES,
    ConfigError,
    PhysicsParams,
    custom_table,
    load_params,
    load_table,
    short_repr,
    unreachable,
)
from .api import Models, Workspace, check_physics
from .checks import (
    START_STATES,
    PhysicsInputError,
    is_real,
    motion_problem,
    norm_problem,
    strike_problem,
)
from .constants import (
    MAX_EVENTS,
    MAX_JSON_SHOTS,
    MAX_SPEED,
    MAX_T,
    MAX_V0,
    spin_limit,
)
from .layout import layout_problem

SHOT_KEYS = {"table", "pins", "params", "models", "balls", "strike", "max_events", "t_max",
             "event_states"}
BALL_KEYS = {"x", "y", "v", "w", "state"}
STRIKE_KEYS = {"ball", "V0", "phi", "theta", "a", "b"}
MODEL_KEYS = {"ball_ball", "cushion", "squirt", "touching"}
TABLE_KEYS = {"length", "width", "cushion_height", "pockets", "posts"}
PARAM_KEYS = frozenset(PhysicsParams.__dataclass_fields__)
#: Most balls on one table (the array API's limit).
MAX_BALLS = 62
#: Most tables simulated in one call of the array API (bounds the event-log memory of a list).
CHUNK_TABLES = 512
#: Event-log memory [bytes] one chunk may use; chunks shrink for large ``max_events``. One such
#: set of buffers is kept between calls (zero-filling fresh buffers would cost as much as the
#: simulation of a 256-shot list).
CHUNK_LOG_BYTES = 32 * 2**20


def _num(where: str, value: Any) -> float:
    """A finite JSON number as a float (bool is not a number). Called from Python, numpy
    numbers are numbers too (np.int64(5) was refused as "must be a number, got 5")."""
    if type(value) is float:  # the common case first: a JSON float
        if value - value == 0.0:  # finite (inf - inf and nan - nan are nan)
            return value
    elif is_real(value):
        try:
            x = float(value)
        except OverflowError:  # an integer too large for a float
            x = math.inf
        if math.isfinite(x):
            return x
    else:
        raise PhysicsInputError(f"{where} must be a number, got {short_repr(value)}")
    raise PhysicsInputError(f"{where} must be finite, got {short_repr(value)}")


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
        raise PhysicsInputError(f"unknown key(s) {short_repr(unknown)} in {where}; allowed: "
                                f"{sorted(allowed)}")


_NAMED_TABLES: dict = {}
_DEFAULT_MODELS = Models()
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
                raise PhysicsInputError(f"{where}: unknown table {short_repr(spec)}; known: "
                                        f"{list(TABLE_NAMES)} or a custom table object")
            t = _named_table(spec)
            return t, t.game if t.game != "none" else "keglebillard", spec
        _check_keys(where, spec, TABLE_KEYS)
        key = _key(spec)
        hit = self.tables.get(key)
        if hit is None:
            hit = self.tables[key] = (json_custom_table(where, spec), "keglebillard", key)
        return hit

    def physics(self, shot: str, game: str, params_in: Any) -> tuple[PhysicsParams, str]:
        """(PhysicsParams, key): the game's defaults with shot ``shot``'s overrides."""
        if not params_in and isinstance(params_in, dict):
            base = _game_params(game)
            return base, game
        where = shot + ".params"
        _check_keys(where, params_in, PARAM_KEYS)
        over = {k: _num(f"{where}.{k}", v) for k, v in params_in.items()}
        given = game + json.dumps(over, sort_keys=True)
        found = self.params.get(given)
        if found is None:
            try:
                hit = PhysicsParams.from_dict(over, base=_game_params(game))
            except ConfigError as exc:
                raise PhysicsInputError(f"{where}: {exc}") from None
            # equal parameter sets share one object (one group, one kernel-array unpack),
            # however they were written; the overrides as given find it again
            key = game + json.dumps(hit.as_dict(), sort_keys=True)
            found = self.params[given] = self.params.setdefault(key, (hit, key))
        return found

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


def json_custom_table(where: str, spec: dict):
    """The :class:`~cuegym.configs.TableSpec` of a JSON custom table object ``spec`` (length,
    width [m], optional cushion_height [m] and lists of pockets and posts, each x, y, radius
    [m]), built by :func:`~cuegym.configs.custom_table`; a bad value raises a
    PhysicsInputError named by its JSON path under ``where`` (e.g. ``shot[0].table``)."""
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


def _check_physics(where: str, table, params: PhysicsParams, custom: bool) -> None:
    """The array API's parameter ranges, cushion-height and pocket/post reach checks
    (``api.check_physics``, cached by identity), its errors named by JSON path:
    ``shot[0].params.R``, ``shot[0].table.cushion_height``, ``shot[0].table.pockets[0]``
    (``custom``: the shot gave the table as an object)."""
    try:
        check_physics(table, params)
    except PhysicsInputError as exc:
        msg = str(exc)
        far = unreachable(table, params.R) if custom else None
        if far is not None and far.kind == "post" and msg == far.message():
            # a custom table's circles are its posts, in the order given (it has no jaws)
            msg = far.message(f"table.posts[{far.index}]")
        if msg.startswith(("params.", "table.")):
            raise PhysicsInputError(f"{where}.{msg}") from None
        raise PhysicsInputError(f"{where}.table.{msg}" if custom else f"{where}: {msg}") from None


def _at(*parts: Any) -> str:
    """An error location from its parts (joined only when an error is raised)."""
    return "".join(map(str, parts))


def _fnum(value: Any, *where: Any) -> float:
    """:func:`_num` with the location given as parts, formatted only on error (hot path)."""
    if type(value) is float and value - value == 0.0:
        return value
    return _num(_at(*where), value)


def _parse_balls(where: str, balls: Any, table) -> list:
    """[(id, x, y, v or None, w or None, start-state code or -1)] of a shot's balls,
    validated (the state's agreement with v, w and the strikes is checked on the assembled
    arrays: :func:`_first_problem`)."""
    if not isinstance(balls, dict) or not balls:
        raise PhysicsInputError(f"{where}.balls must be a non-empty object of ball ids")
    if len(balls) > MAX_BALLS:
        raise PhysicsInputError(f"{where}.balls: at most {MAX_BALLS} balls per table, got "
                                f"{len(balls)}")
    # JSON keys are strings; from Python, 0 and "0" were two balls that the output named "0"
    # twice, and a tuple id made the output unwritable as JSON
    odd = next((b for b in balls if not isinstance(b, str)), _MISSING)
    if odd is not _MISSING:
        raise PhysicsInputError(f"{where}.balls: ball ids must be strings, got "
                                f"{type(odd).__name__} {short_repr(odd)}")
    if table.ball_ids:
        unknown = [b for b in balls if b not in table.ball_ids]
        if unknown:
            raise PhysicsInputError(f"{where}.balls: unknown ball id(s) {short_repr(unknown)} "
                                    f"on table {table.name!r}; known: {list(table.ball_ids)}")
    out = []
    for bid, b in balls.items():
        if not (type(b) is dict and b.keys() <= BALL_KEYS):
            _check_keys(_at(where, ".balls.", bid), b, BALL_KEYS)
        if "x" not in b or "y" not in b:
            raise PhysicsInputError(f"{where}.balls.{bid} needs {'x' if 'x' not in b else 'y'!r}")
        x = _fnum(b["x"], where, ".balls.", bid, ".x")
        y = _fnum(b["y"], where, ".balls.", bid, ".y")
        vw = [None, None]
        state = -1
        if len(b) > 2:
            for slot, (k, n) in enumerate((("v", 2), ("w", 3))):
                if k in b:
                    val = b[k]
                    if not isinstance(val, list) or len(val) != n:
                        raise PhysicsInputError(f"{where}.balls.{bid}.{k} must be a list of {n} "
                                                f"numbers, got {short_repr(val)}")
                    vw[slot] = [_fnum(val[c], where, ".balls.", bid, f".{k}[{c}]")
                                for c in range(n)]
            if "state" in b:
                state = _state_code(b["state"], _at(where, ".balls.", bid, ".state"))
        out.append((bid, x, y, vw[0], vw[1], state))
    return out


def _state_code(value: Any, where: str) -> int:
    """The motion-state code of a ball's ``"state"`` (a start state's name)."""
    code = START_STATES.get(value) if isinstance(value, str) else None
    if code is None:
        hint = (" (a pocketed ball is left out of balls)" if value == "pocketed" else "")
        raise PhysicsInputError(f"{where} must be one of {list(START_STATES)}, got "
                                f"{short_repr(value)}{hint}")
    return code


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
            raise PhysicsInputError(f"{where}.strike[{s_i}].ball {short_repr(ball)} is not one "
                                    f"of the balls {short_repr(list(balls), 200)}")
        for k in ("V0", "phi"):
            if k not in s:
                raise PhysicsInputError(f"{where}.strike[{s_i}] needs {k!r}")
        vals = [_fnum(s[k], where, ".strike[", s_i, "].", k) if k in s else 0.0
                for k in _STRIKE_VALUES]
        if vals[0] < 0:
            raise PhysicsInputError(f"{where}.strike[{s_i}].V0 must be >= 0, got "
                                    f"{short_repr(s['V0'])}")
        _strike_ranges(f"{where}.strike[{s_i}]", s, vals)
        if any(o[0] == ball for o in out):
            raise PhysicsInputError(f"{where}.strike[{s_i}].ball {ball!r}: the same ball is "
                                    f"struck twice")
        out.append((ball, *vals))
    return out


def _strike_ranges(where: str, s: dict, vals: list) -> None:
    """The array API's strike ranges (``checks.strike_problem``), named by JSON path: V0 in
    [0, MAX_V0] m/s, theta in [0, 90] degrees, a^2 + b^2 <= 1."""
    if vals[0] > MAX_V0:
        raise PhysicsInputError(f"{where}.V0 = {short_repr(s['V0'])} is out of range "
                                f"[0.0, {MAX_V0}] m/s")
    if not 0.0 <= vals[2] <= 90.0:
        raise PhysicsInputError(f"{where}.theta = {short_repr(s['theta'])} is out of range "
                                f"[0.0, 90.0] degrees")
    ab = vals[3] * vals[3] + vals[4] * vals[4]  # inf, not OverflowError, for huge offsets
    if ab > 1.0 + 1e-12:
        raise PhysicsInputError(f"{where}: strike offsets need a^2 + b^2 <= 1, got a = "
                                f"{short_repr(s.get('a', 0.0))}, b = {short_repr(s.get('b', 0.0))} "
                                f"(a^2 + b^2 = {ab:.10g})")


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
    _check_physics(where, table, params, isinstance(shot["table"], dict))
    models = cache.model(where, shot.get("models", {}))
    balls = _parse_balls(where, shot["balls"], table)
    strikes = _parse_strikes(where, shot, shot["balls"])
    up = _pins_up(where, shot.get("pins", bool(table.pin_spots)), table)
    max_events = shot.get("max_events", 1000)
    if (isinstance(max_events, bool | np.bool_) or not isinstance(max_events, numbers.Integral)
            or not 1 <= max_events <= MAX_EVENTS):
        raise PhysicsInputError(f"{where}.max_events must be an integer in [1, {MAX_EVENTS}], "
                                f"got {short_repr(max_events)}")
    max_events = int(max_events)  # np.int64(5) and 5: one group
    t_max = _fnum(shot.get("t_max", 60.0), where, ".t_max")
    if not 0 < t_max <= MAX_T:
        raise PhysicsInputError(f"{where}.t_max must be in (0, {MAX_T}] s, got {short_repr(t_max)}")
    if not isinstance(shot.get("event_states", False), bool | np.bool_):
        raise PhysicsInputError(f"{where}.event_states must be true or false, got "
                                f"{short_repr(shot['event_states'])}")
    return {"i": i, "table": table, "params": params, "models": models, "balls": balls,
            "strikes": strikes, "pins_up": up, "max_events": max_events, "t_max": t_max,
            "key": (tkey, pkey, models, max_events, t_max)}


class _Columns:
    """The balls and strikes of one group's shots as flat columns (shot t is the group's t-th).

    Attributes:
        counts: balls per shot. ids: ball ids, shot by shot. xy: (n_balls, 2) positions [m].
        vw_at: positions in ``ids`` of the balls given ``v`` or ``w``; vw: (len(vw_at), 5)
            vx, vy [m/s], wx, wy, wz [rad/s] (0 where not given).
        mo_at: positions in ``ids`` of the balls given a ``state``; mo: their state codes.
        n_strikes: strikes per shot. st_t, st_k: shot and slot of each strike; st_ball: struck
            ball ids; st_val: (n_strikes, 5) V0, phi, theta, a, b.
        pins: per shot, a tuple of standing flags (one per pin of the table).
    """

    __slots__ = ("counts", "ids", "xy", "vw_at", "vw", "mo_at", "mo", "n_strikes", "st_t",
                 "st_k", "st_ball", "st_val", "pins")


class _Group:
    """Shots sharing table, parameters, models and limits: simulated by the same calls."""

    __slots__ = ("table", "params", "models", "max_events", "t_max", "idx", "raw", "strikes",
                 "pins", "cols")

    def __init__(self, table, params: PhysicsParams, models: Models, max_events: int,
                 t_max: float) -> None:
        self.table, self.params, self.models = table, params, models
        self.max_events, self.t_max = max_events, t_max
        self.idx: list[int] = []  # index of each shot in the input list
        self.raw: list = []  # per shot: parsed record (exact) or its "balls" object (fast)
        self.strikes: list = []  # per shot: its "strike" object (fast)
        self.pins: list[tuple] = []
        self.cols: _Columns | None = None


def _pins_up(where: str, pins: Any, table) -> tuple:
    """Standing flags of ``table``'s pins from a shot's ``pins`` value (True: all standing)."""
    if table.pin_spots:
        if isinstance(pins, bool | np.bool_):
            return (bool(pins),) * len(table.pin_spots)
        if isinstance(pins, list) and all(p in table.pin_ids for p in pins):
            if len(set(pins)) != len(pins):
                twice = next(p for k, p in enumerate(pins) if p in pins[:k])
                raise PhysicsInputError(f"{where}.pins lists the pin id {twice!r} twice")
            return tuple(pid in pins for pid in table.pin_ids)
        raise PhysicsInputError(f"{where}.pins must be true/false or a list of pin ids "
                                f"{list(table.pin_ids)}, got {short_repr(pins)}")
    if not (pins is None or (isinstance(pins, bool | np.bool_) and not pins)
            or (isinstance(pins, list) and not pins)):
        # 0 == False: only the JSON false (or no pins at all) says "none" here
        raise PhysicsInputError(f"{where}.pins: table {table.name!r} has no pins, got "
                                f"{short_repr(pins)} (false, [] or no key)")
    return ()


def _exact_groups(shots: list) -> dict:
    """Validate shot by shot (raising on the first bad one) and group the parsed shots."""
    cache = _Cache()
    groups: dict = {}
    error = None
    for i, shot in enumerate(shots):
        try:
            p = _parse(i, shot, cache)
        except PhysicsInputError as exc:
            error = exc
            break
        g = groups.get(p["key"])
        if g is None:
            g = groups[p["key"]] = _Group(p["table"], p["params"], p["models"],
                                          p["max_events"], p["t_max"])
        g.idx.append(i)
        g.raw.append(p)
        g.pins.append(p["pins_up"])
    for g in groups.values():
        g.cols = _exact_columns(g)
    if error is not None:
        # a layout, speed or strike problem of an earlier shot is named first (list order)
        earlier = _first_problem([c for g in groups.values() for c in _group_chunks(g)])
        if earlier is not None:
            raise PhysicsInputError(earlier) from None
        raise error
    return groups


def _exact_columns(g: _Group) -> _Columns:
    """:class:`_Columns` of a group of shots parsed by :func:`_parse`."""
    c = _Columns()
    c.counts = [len(p["balls"]) for p in g.raw]
    c.ids = [b[0] for p in g.raw for b in p["balls"]]
    c.xy = np.array([b[1:3] for p in g.raw for b in p["balls"]], np.float64).reshape(-1, 2)
    balls = [b for p in g.raw for b in p["balls"]]
    c.vw_at = [k for k, b in enumerate(balls) if b[3] is not None or b[4] is not None]
    c.vw = np.array([(*(balls[k][3] or (0.0, 0.0)), *(balls[k][4] or (0.0, 0.0, 0.0)))
                     for k in c.vw_at], np.float64).reshape(-1, 5)
    c.mo_at = [k for k, b in enumerate(balls) if b[5] >= 0]
    c.mo = [balls[k][5] for k in c.mo_at]
    c.n_strikes = [len(p["strikes"]) for p in g.raw]
    c.st_t = [t for t, p in enumerate(g.raw) for _ in p["strikes"]]
    c.st_k = [k for p in g.raw for k in range(len(p["strikes"]))]
    c.st_ball = [s[0] for p in g.raw for s in p["strikes"]]
    c.st_val = np.array([s[1:] for p in g.raw for s in p["strikes"]], np.float64).reshape(-1, 5)
    c.pins = g.pins
    return c


_MISSING = object()


class _ShotLabels:
    """``shot[i]`` labels of a chunk's tables for simulate's error messages, made on demand."""

    __slots__ = ("idx",)

    def __init__(self, idx: list[int]) -> None:
        self.idx = idx

    def __len__(self) -> int:
        return len(self.idx)

    def __getitem__(self, t: int) -> str:
        return f"shot[{self.idx[t]}]"


def _slice_group(g: _Group, a: int, z: int) -> _Group:
    """The group of shots a..z-1 of ``g`` (their columns cut out of ``g.cols``)."""
    c = g.cols
    sub = _Group(g.table, g.params, g.models, g.max_events, g.t_max)
    sub.idx = g.idx[a:z]
    ball0 = np.concatenate([[0], np.cumsum(c.counts)])
    strike0 = np.concatenate([[0], np.cumsum(c.n_strikes)])
    b_a, b_z, s_a, s_z = int(ball0[a]), int(ball0[z]), int(strike0[a]), int(strike0[z])
    sc = sub.cols = _Columns()
    sc.counts, sc.ids, sc.xy = c.counts[a:z], c.ids[b_a:b_z], c.xy[b_a:b_z]
    keep = [k for k, at in enumerate(c.vw_at) if b_a <= at < b_z]
    sc.vw_at = [c.vw_at[k] - b_a for k in keep]
    sc.vw = c.vw[keep] if keep else c.vw[:0]
    keep = [k for k, at in enumerate(c.mo_at) if b_a <= at < b_z]
    sc.mo_at, sc.mo = [c.mo_at[k] - b_a for k in keep], [c.mo[k] for k in keep]
    sc.n_strikes, sc.st_k, sc.st_ball = c.n_strikes[a:z], c.st_k[s_a:s_z], c.st_ball[s_a:s_z]
    sc.st_t = [t - a for t in c.st_t[s_a:s_z]]
    sc.st_val, sc.pins = c.st_val[s_a:s_z], c.pins[a:z]
    return sub


def _runs_by_own_ids(g: _Group, table_ids: tuple) -> list[_Group]:
    """``g`` cut into runs of consecutive shots that name the same balls of their own (ids not
    the table's) in the same order: a ball's index orders simultaneous events, so a shot's
    own balls must be numbered as when it is simulated alone, whatever the shots around it."""
    c, fixed, keys, pos = g.cols, set(table_ids), [], 0
    for n in c.counts:
        keys.append(tuple(b for b in c.ids[pos:pos + n] if b not in fixed))
        pos += n
    out, a = [], 0
    for t in range(1, len(keys)):
        if keys[t] != keys[a]:
            out.append(_slice_group(g, a, t))
            a = t
    out.append(_slice_group(g, a, len(keys)))
    return out


def _group_chunks(g: _Group) -> list[tuple[list[int], dict]]:
    """``(shot indices, simulate kwargs)`` per chunk of a group; ball b is ``ball_names[b]``:
    the table's ids, then the shots' own in their order (one order per run of shots,
    :func:`_runs_by_own_ids`)."""
    c, table = g.cols, g.table
    if len(c.counts) > 1 and not set(c.ids) <= set(table.ball_ids):
        runs = _runs_by_own_ids(g, tuple(table.ball_ids))
        if len(runs) > 1:
            return [chunk for sub in runs for chunk in _group_chunks(sub)]
    order = list(table.ball_ids)
    index = {bid: k for k, bid in enumerate(order)}
    for bid in dict.fromkeys(c.ids):
        if bid not in index:
            index[bid] = len(order)
            order.append(bid)
    T, B, P = len(c.counts), len(order), len(table.pin_spots)
    tt = np.repeat(np.arange(T), c.counts)
    bb = np.fromiter(map(index.__getitem__, c.ids), np.int64, len(c.ids))
    xy = np.zeros((T, B, 2))
    xy[tt, bb] = c.xy
    present = np.zeros((T, B), bool)
    present[tt, bb] = True
    vw = vw_t = None
    if c.vw_at:
        vw = np.zeros((T, B, 5))
        vw[tt[c.vw_at], bb[c.vw_at]] = c.vw
        vw_t = tt[c.vw_at]
    mo = mo_t = None
    if c.mo_at:
        mo = np.full((T, B), -1, np.int32)
        mo[tt[c.mo_at], bb[c.mo_at]] = c.mo
        mo_t = tt[c.mo_at]
    S = max(1, max(c.n_strikes))
    cue_ball = np.full((T, S), -1, np.int64)
    cue = np.zeros((T, S, 5))
    if c.st_t:
        cue_ball[c.st_t, c.st_k] = np.fromiter(map(index.__getitem__, c.st_ball), np.int64,
                                               len(c.st_ball))
        cue[c.st_t, c.st_k] = c.st_val
    pins_up = np.fromiter(chain.from_iterable(c.pins), bool, T * P).reshape(T, P) if P else None
    names = tuple(order)
    pin_names = table.pin_ids if P and len(table.pin_ids) == P else None
    size = max(1, min(CHUNK_TABLES, CHUNK_LOG_BYTES // (g.max_events * Workspace.BYTES_PER_EVENT)))
    out = []
    for a in range(0, T, size):
        z = min(T, a + size)
        s = max(1, max(c.n_strikes[a:z]))  # strike slots of this chunk's shots
        has_vw = vw is not None and bool(((vw_t >= a) & (vw_t < z)).any())
        has_mo = mo is not None and bool(((mo_t >= a) & (mo_t < z)).any())
        idx = g.idx[a:z]
        out.append((idx, {
            "table": table, "params": g.params, "xy": xy[a:z], "present": present[a:z],
            "cue_ball": np.ascontiguousarray(cue_ball[a:z, :s]),
            "cue": np.ascontiguousarray(cue[a:z, :s]),
            "v": vw[a:z, :, 0:2] if has_vw else None, "w": vw[a:z, :, 2:5] if has_vw else None,
            "motion0": mo[a:z] if has_mo else None,
            "pins_up": None if pins_up is None else pins_up[a:z], "models": g.models,
            "max_events": g.max_events, "t_max": g.t_max, "ball_names": names,
            "table_names": _ShotLabels(idx), "pin_names": pin_names}))
    return out


def _first_problem(chunks: list[tuple[list[int], dict]]) -> str | None:
    """The message of the first shot (in list order) with a problem the array API checks on
    the assembled arrays: layout (off the cloth, overlaps, pockets, posts, standing pins),
    initial speed or spin, strike, start state; None when there is none. Per shot the order is
    :func:`~cuegym.physics.simulate`'s."""
    best = None
    for idx, kw in chunks:
        T = len(idx)
        names, labels = kw["ball_names"], kw["table_names"]
        pins = kw["pins_up"] if kw["pins_up"] is not None else np.ones((T, 0), bool)
        found = [layout_problem(kw["table"], kw["params"], kw["xy"], kw["present"], pins,
                                 names, labels, kw["pin_names"])]
        if kw["v"] is not None:
            found.append(norm_problem("v", kw["v"], MAX_SPEED, "m/s", labels, names))
            found.append(norm_problem("w", kw["w"], spin_limit(kw["params"].R), "rad/s", labels,
                                      names))
        found.append(strike_problem(kw["cue_ball"], kw["cue"], kw["present"], labels, names))
        if kw["motion0"] is not None:
            vw = np.zeros((T, len(names), 5))
            if kw["v"] is not None:
                vw[..., 0:2], vw[..., 2:5] = kw["v"], kw["w"]
            found.append(motion_problem(kw["motion0"], vw, kw["present"], kw["cue_ball"],
                                        kw["params"].R, labels, names, json=True))
        for k, problem in enumerate(found):
            if problem is not None and (best is None or (idx[problem[0]], k) < best[0]):
                best = ((idx[problem[0]], k), problem[1])
    return None if best is None else best[1]


def plan(obj: Any) -> list[tuple[list[int], dict]]:
    """Validate a shot object or a list of them and plan their simulation.

    Returns:
        ``(shot indices, kwargs)`` per chunk: ``simulate(**kwargs)`` simulates the shots of
        those indices of the list, in order. Chunks group shots with the same table, parameters,
        models and limits, at most :data:`CHUNK_TABLES` shots and :data:`CHUNK_LOG_BYTES` of
        log each.
    Raises:
        PhysicsInputError: with a message naming the bad key or value (of the first bad shot).
    """
    shots = [obj] if isinstance(obj, dict) else obj
    if not isinstance(shots, list) or not shots:
        raise PhysicsInputError("input must be a shot object or a non-empty list of them")
    if len(shots) > MAX_JSON_SHOTS:
        raise PhysicsInputError(f"at most {MAX_JSON_SHOTS} shots per list, got {len(shots)}: "
                                f"split the list")
    from .jsonfast import _fast_groups  # (that module imports this one)

    groups = _fast_groups(shots)
    if groups is None:
        groups = _exact_groups(shots)
    chunks = [chunk for g in groups.values() for chunk in _group_chunks(g)]
    problem = _first_problem(chunks)  # every chunk before any is simulated: list order
    if problem is not None:
        raise PhysicsInputError(problem)
    for _, kw in chunks:
        kw["validate"] = False  # the layout was just checked
    return chunks
