"""Referee input checks shared by both games: path-named errors, typed getters, and the reader of
the physics JSON output (``python -m cuegym.physics simulate``) that both referees score.

Every check raises :class:`RefereeInputError` (a ``ValueError``) with one line that starts with
the JSON path of the bad value and says what was expected, e.g. ``log.final.w1.x is missing``,
``state.scores[2] must be an integer >= 0, got -4``, ``log.events[3].time must be finite, got
nan``. The CLI (:mod:`cuegym.rules.__main__`) prints that line and exits with status 2.

Geometry is never re-typed here: positions are checked by the physics' own layout check
(:func:`cuegym.physics.layout.validate_layout`: the cloth, cushions, jaws, caps, pocket capture
circles, standing pins and ball overlaps of the table config).

Example:
    >>> from cuegym.rules.inputs import req_bool, RefereeInputError
    >>> req_bool(True, "state.kader")
    True
    >>> try:
    ...     req_bool("no", "log.pins.king.standing")
    ... except RefereeInputError as exc:
    ...     print(exc)
    log.pins.king.standing must be true or false, got 'no'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from cuegym.configs import CIRCLE_JAW, CIRCLE_POST, PhysicsParams, TableSpec
from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_PIN,
    EV_BALL_POCKET,
    EV_BALL_POST,
    EV_PIN_PIN,
    EV_TRANSITION,
    EVENT_NAMES,
    MAX_SPEED,
    MAX_SPIN,
    MOTION_NAMES,
    POCKETED,
)

#: Largest player count a game-state JSON may declare with ``players`` (a resource bound on
#: input: ``{"players": 10**9}`` would otherwise build a billion-entry turn order). Not a rule.
MAX_PLAYERS = 1000

#: Positional tolerance [m] of the layout checks (as in ``physics.layout.validate_layout``).
LAYOUT_TOL = 1e-9

#: Tolerance [m] when checking that a log or a shot starts from the state's positions.
MATCH_TOL = 1e-6

#: Largest integer a JSON counter may hold (it is stored in numpy int64 arrays).
INT_MAX = 2**63 - 1

#: ``end_reason`` of the physics JSON output, indexed by ``SimResult.overflow``.
END_REASONS = ("rest", "max_events", "t_max")


class RefereeInputError(ValueError):
    """Bad referee input (a log, a state, a strike): the message starts with the JSON path."""


# ---------------------------------------------------------------------------------------------
# Paths and typed getters
# ---------------------------------------------------------------------------------------------


def events_used(n_events: Any, width: int) -> int:
    """The event slots a batch of logs uses: its longest log (at least 1, at most ``width``,
    the log's ``max_events``). Log readers copy or convert the event axis only that far; rows
    past a table's ``n_events`` are never read."""
    return max(1, min(int(width), int(np.max(n_events, initial=0))))


def show(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters (a hostile input can be megabytes long)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def at(path: str, key: str | int) -> str:
    """The path of ``key`` inside ``path``: ``at("log.final", "w1") == "log.final.w1"``,
    ``at("state.scores", 2) == "state.scores[2]"``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def fail(path: str, reason: str) -> NoReturn:
    """Raise :class:`RefereeInputError` ``"<path> <reason>"``."""
    raise RefereeInputError(f"{path} {reason}")


def check_in_pocket(table: TableSpec, k: int, x: float, y: float, path: str,
                    what: str = "pocket") -> None:
    """A ball that dropped into pocket (goal) ``k`` of ``table`` lies in its capture circle.

    Raises:
        RefereeInputError: ``"<path> at (x, y) is not in pocket k (name) it dropped into ..."``.
    """
    pk = table.pockets[k]
    if math.hypot(x - pk.x, y - pk.y) > pk.radius + LAYOUT_TOL:
        fail(path, f"at ({x:.4f}, {y:.4f}) is not in {what} {k} ({pk.name or k}) it dropped into "
                   f"on table {table.name!r} (its centre must lie within {pk.radius} m of "
                   f"({pk.x}, {pk.y}))")


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, (bool, np.bool_)):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return "a number"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return type(value).__name__


def check_overflow_codes(codes: Any, allow_overflow: Any, tables: Iterable[int] | None,
                         at_rest: str, where: str | None = None) -> None:
    """Refuse the first of ``tables`` (default: all) whose physics ``overflow`` code (``codes``
    (T,): 1 max_events, 2 t_max) says the simulation stopped before ``at_rest`` ("every ball",
    "every ball and pin") came to rest, unless ``allow_overflow``: the rules judge a shot from
    its end at rest. Both games' referees call it; the JSON input names its stroke's key
    (``where``: "log", "shot") instead of the table."""
    if not isinstance(allow_overflow, (bool, np.bool_)):
        raise ValueError(f"allow_overflow must be true or false, got {allow_overflow!r}")
    codes = np.asarray(codes).reshape(-1)
    bad = [t for t in (range(len(codes)) if tables is None else tables) if codes[t] != 0]
    if bad and not allow_overflow:
        t, code = bad[0], int(codes[bad[0]])
        limit = {1: "max_events", 2: "t_max"}.get(code, f"code {code}")
        raise ValueError(f"{where or f'table {t}'}: the simulation stopped at its {limit} "
                         f"limit before {at_rest} came to rest (overflow = {code}); raise "
                         "max_events / t_max, "
                         "or allow overflow (allow_overflow=True; in JSON input "
                         '"allow_overflow": true) to score it where the log ended')


def req_obj(value: Any, path: str, allowed: Iterable[str] | None = None,
            required: Iterable[str] = ()) -> Mapping:
    """``value`` as a JSON object; unknown keys (when ``allowed`` is given) and missing
    ``required`` keys are errors."""
    if not isinstance(value, Mapping):
        fail(path, f"must be an object, got {_type_name(value)}: {show(value)}")
    for k in value:
        if not isinstance(k, str):
            fail(path, f"has a key that is not a string: {show(k)}")
    if allowed is not None:
        allowed = set(allowed)
        unknown = sorted(set(value) - allowed)
        if unknown:
            fail(path, f"has unknown key(s) {show(unknown)}; allowed: {sorted(allowed)}")
    for k in required:
        if k not in value:
            fail(at(path, k), "is missing")
    return value


def req_key(obj: Mapping, key: str, path: str) -> Any:
    """``obj[key]``; ``<path>.<key> is missing`` if absent (``obj`` already checked by
    :func:`req_obj`)."""
    if key not in obj:
        fail(at(path, key), "is missing")
    return obj[key]


def req_list(value: Any, path: str, length: int | None = None, *, min_len: int = 0,
             max_len: int | None = None) -> list:
    """``value`` as a JSON list (a tuple is accepted from Python), of ``length`` items when given,
    else between ``min_len`` and ``max_len``."""
    if not isinstance(value, (list, tuple)):
        fail(path, f"must be a list, got {_type_name(value)}: {show(value)}")
    n = len(value)
    if length is not None and n != length:
        fail(path, f"must have {length} entries, got {n}: {show(value)}")
    if n < min_len:
        fail(path, f"must have at least {min_len} entries, got {n}")
    if max_len is not None and n > max_len:
        fail(path, f"must have at most {max_len} entries, got {n}")
    return list(value)


def req_bool(value: Any, path: str) -> bool:
    """A JSON boolean (``"no"``, ``0`` and ``null`` are errors)."""
    if not isinstance(value, (bool, np.bool_)):
        fail(path, f"must be true or false, got {show(value)}")
    return bool(value)


def req_int(value: Any, path: str, lo: int | None = None, hi: int | None = None) -> int:
    """An integer (not a boolean, not 2.0) in ``[lo, hi]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        fail(path, f"must be an integer, got {show(value)}")
    v = int(value)
    if abs(v) > INT_MAX:
        fail(path, f"must be an integer of at most 63 bits, got {show(value)}")
    if lo is not None and hi is not None and not lo <= v <= hi:
        fail(path, f"must be an integer in [{lo}, {hi}], got {v}")
    if lo is not None and v < lo:
        fail(path, f"must be an integer >= {lo}, got {v}")
    if hi is not None and v > hi:
        fail(path, f"must be an integer <= {hi}, got {v}")
    return v


#: The largest score or count a state may hold: the games add to them in int64 arrays, so a
#: bigger one would wrap into a next state the referee refuses, naming a value never given.
COUNT_MAX = 2**53


def req_count(value: Any, path: str) -> int:
    """A state's score or counter: an integer in [0, :data:`COUNT_MAX`]."""
    v = req_int(value, path, 0)
    if v > COUNT_MAX:
        fail(path, f"must be at most 2**53 = {COUNT_MAX} (the game adds to it; a bigger count "
                   f"would overflow), got {v}")
    return v


def req_num(value: Any, path: str, lo: float | None = None, hi: float | None = None) -> float:
    """A finite number (not a boolean, not a string) in ``[lo, hi]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        fail(path, f"must be a number, got {show(value)}")
    try:
        x = float(value)
    except OverflowError:  # an int beyond float range
        fail(path, f"must be finite, got {show(value)}")
    if not math.isfinite(x):
        fail(path, f"must be finite, got {show(value)}")
    if lo is not None and x < lo:
        fail(path, f"must be >= {lo}, got {show(value)}")
    if hi is not None and x > hi:
        fail(path, f"must be <= {hi}, got {show(value)}")
    return x


def req_xy(value: Any, path: str) -> tuple[float, float]:
    """A position ``[x, y]``: a list of two finite numbers [m] (from Python also a tuple or a
    numpy array of two)."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = value.tolist()
    x, y = req_list(value, path, 2)
    return req_num(x, at(path, 0)), req_num(y, at(path, 1))


def req_choice(value: Any, path: str, choices: Sequence[Any]) -> Any:
    """One of ``choices`` (compared by value and type: ``True`` is not ``1``)."""
    for c in choices:
        if type(value) is type(c) and value == c:
            return c
    fail(path, f"must be one of {list(choices)}, got {show(value)}")


def req_name(value: Any, path: str, names: Sequence[str], what: str) -> int:
    """Index of ``value`` in ``names`` (a ball or pin id)."""
    if isinstance(value, str) and value in names:
        return list(names).index(value)
    fail(path, f"is an unknown {what} {show(value)}; known: {list(names)}")


def check_layout(table: TableSpec, params: PhysicsParams, balls: Mapping[str, Sequence[float]],
                 pins_up: Sequence[bool] | None = None) -> None:
    """Positions must be legal on ``table``: on the cloth, clear of the cushions, jaws, caps and
    standing pins, outside the pockets' capture circles, and not overlapping each other.

    Args:
        balls: JSON path of each ball -> its centre (x, y) [m] (the path names it in the error).
        pins_up: (P,) standing pins (default none).

    The check is the physics' own (:func:`cuegym.physics.layout.validate_layout`), so a position the
    referee accepts is one the simulator accepts for the next shot.
    """
    from cuegym.physics.layout import PhysicsInputError, validate_layout

    if not balls:
        return
    names = tuple(balls)
    xy = np.array([[float(v) for v in balls[n]] for n in names], np.float64)[None]
    P = len(table.pin_spots)
    up = np.zeros((1, P), bool) if pins_up is None else np.asarray(pins_up, bool).reshape(1, P)
    try:
        validate_layout(table, params, xy, np.ones(xy.shape[:2], bool), up, names)
    except PhysicsInputError as exc:
        msg = str(exc)
        raise RefereeInputError(msg.split(": ", 1)[1] if msg.startswith("table 0: ") else msg
                                ) from None


# ---------------------------------------------------------------------------------------------
# The physics JSON output (one shot) as arrays
# ---------------------------------------------------------------------------------------------

_OUT_KEYS = ("final", "pins", "events", "n_events", "t_end", "overflow", "end_reason", "start")
_EVENT_KEYS = ("time", "type", "agents", "state", "after")
_STATE_KEYS = ("x", "y", "v", "w", "state")
_FINAL_KEYS = ("x", "y", "state", "pocket")
_PIN_KEYS = ("standing", "toppled_by")


@dataclass(frozen=True)
class SimOutput:
    """One shot of the physics JSON output, validated. B balls, P pins, K events.

    Attributes:
        ev_type, ev_i, ev_j: (K,) int64 event codes and agents as in ``SimResult``
            (``physics/constants.py``; ball_ball with ev_i < ev_j). ev_time: (K,) [s].
        final_xy: (B, 2) centres at the end [m] (0 for balls off the table).
        pocket: (B,) pocket index of each ball that dropped, -1 otherwise.
        pins_up: (P,) pins standing at the end. toppler: (P,) bit mask of the balls each pin
            toppled in this shot is attributed to (K-P3).
        end_code: index into :data:`END_REASONS`. t_end: end time [s] (the last event's time
            when the output gives none).
        states: the balls' states when the output has them (a shot simulated with
            ``event_states``), else None: ``(rvw0, motion0, ev_state, ev_motion)`` as in
            ``SimResult`` for one table, rvw0 (B, 3, 3) right after the strike (positions,
            velocities [m/s], spins [rad/s]), motion0 (B,), ev_state (K, 2, 7) the event
            agents' states after each event (NaN for a pin), ev_motion (K, 2) int8.
    """

    ev_type: np.ndarray
    ev_time: np.ndarray
    ev_i: np.ndarray
    ev_j: np.ndarray
    final_xy: np.ndarray
    pocket: np.ndarray
    pins_up: np.ndarray
    toppler: np.ndarray
    end_code: int
    t_end: float
    states: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None


def _indexed(name: Any, path: str, prefix: str, n: int, what: str) -> int:
    """``<prefix><k>`` -> k, checked against ``range(n)``."""
    if isinstance(name, str) and name.startswith(prefix) and name[len(prefix):].isdigit():
        k = int(name[len(prefix):])
        if name == f"{prefix}{k}":
            if not 0 <= k < n:
                fail(path, f"names {what} {k}, but the table has {n} ({prefix}0..{prefix}{n - 1})"
                     if n else f"names a {what}, but the table has none")
            return k
    fail(path, f"must name a {what} as '{prefix}<index>', got {show(name)}")


class _EventReader:
    """Agent parsing of one table's events (names as :func:`cuegym.physics.jsonio` writes them)."""

    def __init__(self, table: TableSpec, ball_ids: Sequence[str], on0: np.ndarray,
                 pins_up0: np.ndarray):
        self.table, self.ball_ids, self.on0, self.pins_up0 = table, tuple(ball_ids), on0, pins_up0
        self.n_lines = len(table.cushions)
        self.jaws = [k for k, c in enumerate(table.circles) if c.kind == CIRCLE_JAW]
        self.posts = [k for k, c in enumerate(table.circles) if c.kind == CIRCLE_POST]
        self.pocket_names = [p.name or f"pocket{k}" for k, p in enumerate(table.pockets)]
        self.gone: dict[int, int] = {}  # ball -> event index of its drop

    def ball(self, name: Any, path: str) -> int:
        b = req_name(name, path, self.ball_ids, "ball")
        if not self.on0[b]:
            fail(path, f"names {name!r}, which was not on the table at the start")
        if b in self.gone:
            fail(path, f"names {name!r} after it dropped into a pocket at event "
                       f"{self.gone[b]}")
        return b

    def pin(self, name: Any, path: str) -> int:
        p = req_name(name, path, self.table.pin_ids, "pin")
        if not self.pins_up0[p]:
            fail(path, f"names pin {name!r}, which was down at the start")
        return p

    def cushion(self, name: Any, path: str) -> int:
        if isinstance(name, str) and name.startswith("jaw"):
            k = _indexed(name, path, "jaw", len(self.table.circles), "jaw")
            if k not in self.jaws:
                fail(path, f"names circle {k}, which is not a pocket jaw")
            return self.n_lines + k
        return _indexed(name, path, "cushion", self.n_lines, "cushion")

    def pocket(self, name: Any, path: str) -> int:
        if isinstance(name, str) and name in self.pocket_names:
            return self.pocket_names.index(name)
        if isinstance(name, str) and name.startswith("pocket"):
            return _indexed(name, path, "pocket", len(self.pocket_names), "pocket")
        fail(path, f"must name a pocket {self.pocket_names}, got {show(name)}")

    def post(self, name: Any, path: str) -> int:
        k = _indexed(name, path, "post", len(self.table.circles), "post")
        if k not in self.posts:
            fail(path, f"names circle {k}, which is not a post (cap)")
        return k

    def event(self, ev: Any, k: int, path: str) -> tuple[int, int, int]:
        """(code, i, j) of event ``k``."""
        ev = req_obj(ev, path, _EVENT_KEYS, ("time", "type", "agents"))
        code = EVENT_NAMES.index(req_choice(ev["type"], at(path, "type"), EVENT_NAMES[1:]))
        agents = req_list(ev["agents"], at(path, "agents"), 1 if code == EV_TRANSITION else 2)
        ap = [at(at(path, "agents"), n) for n in range(len(agents))]
        if ("state" in ev) != (code == EV_TRANSITION):
            fail(at(path, "state"), "is missing (a transition names the new motion state)"
                 if code == EV_TRANSITION else f"is only allowed on a transition, not on "
                 f"{EVENT_NAMES[code]!r}")
        if code == EV_PIN_PIN:
            if not self.table.pin_ids:
                fail(at(path, "type"), "is 'pin_pin', but the table has no pins")
            i, j = self.pin(agents[0], ap[0]), self.pin(agents[1], ap[1])
            if i == j:
                fail(ap[1], f"must be a pin other than {agents[0]!r}")
            return code, i, j
        i = self.ball(agents[0], ap[0])
        if code == EV_BALL_BALL:
            j = self.ball(agents[1], ap[1])
            if i == j:
                fail(ap[1], f"must be a ball other than {agents[0]!r}")
            return code, min(i, j), max(i, j)
        if code == EV_BALL_CUSHION:
            return code, i, self.cushion(agents[1], ap[1])
        if code == EV_BALL_POCKET:
            self.gone[i] = k
            return code, i, self.pocket(agents[1], ap[1])
        if code == EV_BALL_POST:
            return code, i, self.post(agents[1], ap[1])
        if code == EV_BALL_PIN:
            if not self.table.pin_ids:
                fail(at(path, "type"), "is 'ball_pin', but the table has no pins")
            return code, i, self.pin(agents[1], ap[1])
        state = req_choice(ev["state"], at(path, "state"), MOTION_NAMES[:POCKETED])
        return code, i, MOTION_NAMES.index(state)


def req_table_index(value: Any, path: str, table: TableSpec, kind: str) -> int:
    """The array-log index (``ev_j``) of a ``cushion``, ``pocket`` or ``post`` of ``table``, or of a
    transition's ``motion`` state, given as that index (an integer) or as the name the physics
    JSON uses: ``cushion3`` / ``jaw2`` (a jaw is cushion ``len(table.cushions) + k``), a pocket's
    name or ``pocket1``, ``post5``; a motion ``stationary``, ``spinning``, ``sliding``,
    ``rolling`` (0..3). Hand-written logs in the CLI input use it (``hand_log``)."""
    reader = _EventReader(table, (), np.zeros(0, bool), np.zeros(len(table.pin_ids), bool))
    if kind == "motion":
        if isinstance(value, str):
            return MOTION_NAMES.index(req_choice(value, path, MOTION_NAMES[:POCKETED]))
        return req_int(value, path, 0, POCKETED - 1)
    if isinstance(value, str):
        return {"cushion": reader.cushion, "pocket": reader.pocket, "post": reader.post}[kind](
            value, path)
    if kind == "pocket":
        return req_int(value, path, 0, len(table.pockets) - 1)
    n_lines = len(table.cushions)
    k = req_int(value, path, 0)
    if kind == "cushion":
        if k < n_lines or (k - n_lines in reader.jaws):
            return k
        jaws = (f" or a jaw ({n_lines} + the jaw's circle index)" if reader.jaws else "")
        fail(path, f"= {k} is not a cushion (0..{n_lines - 1}){jaws} of table {table.name!r}")
    if k not in reader.posts:
        fail(path, f"= {k} is not a post (cap) of table {table.name!r} (posts: {reader.posts})")
    return k


def read_sim_output(out: Any, path: str, table: TableSpec, params: PhysicsParams,
                    ball_ids: Sequence[str], on0: Sequence[bool],
                    pins_up0: Sequence[bool] = (), xy0: np.ndarray | None = None
                    ) -> SimOutput:
    """Validate one output object of ``cuegym.physics.simulate_json`` against the shot's start.

    Args:
        out: ``{"final": .., "pins": .., "events": [..], "n_events": .., "t_end": ..,
            "overflow": .., "end_reason": .., "start": ..}`` (``pins`` only on a table with
            pins; the last five optional; ``start`` and each event's ``after``, the balls'
            states, come with a shot simulated with ``event_states``).
        path: JSON path of ``out`` in the input (``log``).
        table, params: the table config and physical parameters (ball radius).
        ball_ids: the game's ball ids, in index order. on0: (B,) balls on the table at the start.
        pins_up0: (P,) pins standing at the start.
        xy0: (B, 2) ball centres at the start [m]; an ``event_states`` output's ``start``
            must put the balls there.

    Checks: every key and type; ``final`` lists exactly the balls on the table at the start,
    each on the cloth and clear of cushions, jaws, caps, pockets, standing pins and the other
    balls, or pocketed with its ``ball_pocket`` event naming the same pocket; event times finite,
    >= 0 and non-decreasing; every agent a ball on the table (not yet dropped), a standing pin, or
    a cushion, jaw, pocket or post index of the table; a toppled pin names its toppler and has a
    contact that toppled it; ``n_events``, ``t_end``, ``overflow`` and ``end_reason`` agree; at
    rest every ball is stationary; with states, ``start`` lists every ball on the table where
    ``xy0`` puts it, every event with a ball gives one finite state per ball, speeds and spins
    within the physics' input limits.
    """
    on0 = np.asarray(on0, bool)
    up0 = np.asarray(pins_up0, bool)
    B, P = len(ball_ids), len(table.pin_ids)
    if on0.shape != (B,) or up0.shape != (P,):
        raise ValueError(f"read_sim_output: on0 must have shape ({B},) and pins_up0 ({P},)")
    required = ("final", "events", "pins") if P else ("final", "events")
    out = req_obj(out, path, _OUT_KEYS, required)
    events = req_list(out["events"], at(path, "events"))
    reader = _EventReader(table, ball_ids, on0, up0)
    K = len(events)
    ev = np.zeros((4, K), np.float64)
    t_prev = 0.0
    for k, e in enumerate(events):
        ep = at(at(path, "events"), k)
        if isinstance(e, Mapping) and "time" in e:
            t = req_num(e["time"], at(ep, "time"), lo=0.0)
            if t < t_prev:
                fail(at(ep, "time"), f"= {t!r} is earlier than the event before it ({t_prev!r})")
            t_prev = t
        code, i, j = reader.event(e, k, ep)  # (a missing time is reported here)
        ev[:, k] = code, t, i, j
    ev_type, ev_time, ev_i, ev_j = ev[0].astype(np.int64), ev[1], ev[2].astype(np.int64), \
        ev[3].astype(np.int64)

    end_reason = req_choice(out.get("end_reason", "rest"), at(path, "end_reason"), END_REASONS)
    if "overflow" in out and req_bool(out["overflow"], at(path, "overflow")) != (
            end_reason != "rest"):
        fail(at(path, "overflow"), f"= {out['overflow']!r} contradicts end_reason "
                                   f"{end_reason!r}")
    if "n_events" in out and req_int(out["n_events"], at(path, "n_events"), 0) != K:
        fail(at(path, "n_events"), f"= {out['n_events']} but {at(path, 'events')} has {K}")
    t_end = t_prev
    if "t_end" in out:
        t_end = req_num(out["t_end"], at(path, "t_end"), lo=0.0)
        if t_end < t_prev:
            fail(at(path, "t_end"), f"= {t_end!r} is earlier than the last event ({t_prev!r})")

    final_xy, pocket, moving = _read_final(out["final"], at(path, "final"), ball_ids, on0, ev_type,
                                           ev_i, ev_j, at(path, "events"), table)
    if end_reason == "rest" and moving:
        fail(at(at(at(path, "final"), moving[0][0]), "state"),
             f"is {moving[0][1]!r}, but the shot ended at rest (end_reason 'rest')")
    pins_up, toppler = _read_pins(out.get("pins", {}), at(path, "pins"), table, ball_ids, on0, up0,
                                  ev_type, ev_j)
    fp = at(path, "final")
    check_layout(table, params, {at(fp, ball_ids[b]): final_xy[b] for b in range(B)
                                 if on0[b] and pocket[b] < 0}, pins_up)
    states = None
    if "start" in out or any(isinstance(e, Mapping) and "after" in e for e in events):
        states = _read_states(out, path, table, ball_ids, on0, xy0, ev_type, ev_i)
    return SimOutput(ev_type=ev_type, ev_time=ev_time, ev_i=ev_i, ev_j=ev_j, final_xy=final_xy,
                     pocket=pocket, pins_up=pins_up, toppler=toppler,
                     end_code=END_REASONS.index(end_reason), t_end=t_end, states=states)


def _read_ball_state(rec: Any, path: str, table: TableSpec, motions: Sequence[str] = MOTION_NAMES
                     ) -> tuple[list[float], int]:
    """One ball state object ``{"x", "y", "v": [vx, vy], "w": [wx, wy, wz], "state"}`` as a
    row ``[x, y, vx, vy, wx, wy, wz]`` (``S_*`` columns) and its motion code (one of
    ``motions``). Positions lie within twice the table's half-sizes (a pocketed ball sits a
    little past its cushion), speed and spin within the physics' input limits."""
    rec = req_obj(rec, path, _STATE_KEYS, _STATE_KEYS)
    x = req_num(rec["x"], at(path, "x"), -table.length, table.length)
    y = req_num(rec["y"], at(path, "y"), -table.width, table.width)
    v = [req_num(c, at(at(path, "v"), n)) for n, c in enumerate(req_list(rec["v"], at(path, "v"),
                                                                          2))]
    w = [req_num(c, at(at(path, "w"), n)) for n, c in enumerate(req_list(rec["w"], at(path, "w"),
                                                                          3))]
    for name, vec, top, unit in (("v", v, MAX_SPEED, "m/s"), ("w", w, MAX_SPIN, "rad/s")):
        if math.hypot(*vec) > top:
            fail(at(path, name), f"= {show(vec)} is faster than {top:g} {unit}, the physics' limit")
    motion = MOTION_NAMES.index(req_choice(rec["state"], at(path, "state"), motions))
    return [x, y, *v, *w], motion


def _read_states(out: Mapping, path: str, table: TableSpec, ball_ids: Sequence[str],
                 on0: np.ndarray, xy0: np.ndarray | None, ev_type: np.ndarray,
                 ev_i: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ``start`` and ``after`` states of an ``event_states`` output (see
    :class:`SimOutput`): all or none, ``start`` listing exactly the balls on the table at the
    start where ``xy0`` (B, 2) puts them [m], ``after`` one state per ball agent in the order of
    ``agents``."""
    B, K = len(ball_ids), len(ev_type)
    events = out["events"]
    if "start" not in out:
        k = next(k for k, e in enumerate(events) if "after" in e)
        fail(at(at(at(path, "events"), k), "after"), "needs the output's 'start' (the states "
             "of a shot simulated with event_states come together)")
    sp = at(path, "start")
    start = req_obj(out["start"], sp)
    for name in start:
        b = req_name(name, at(sp, name), ball_ids, "ball")
        if not on0[b]:
            fail(at(sp, name), "is listed, but that ball was not on the table at the start")
    rvw0 = np.zeros((B, 3, 3))
    motion0 = np.full(B, POCKETED, np.int8)
    for b in np.flatnonzero(on0):
        bp = at(sp, ball_ids[b])
        if ball_ids[b] not in start:
            fail(bp, "is missing (the start lists every ball on the table)")
        # a ball on the table at the start is not pocketed there
        row, motion0[b] = _read_ball_state(start[ball_ids[b]], bp, table, MOTION_NAMES[:POCKETED])
        if xy0 is not None and math.dist(row[:2], xy0[b]) > MATCH_TOL:
            fail(bp, f"is at ({row[0]!r}, {row[1]!r}), but the shot starts it at "
                     f"({float(xy0[b, 0])!r}, {float(xy0[b, 1])!r})")
        rvw0[b, 0, :2], rvw0[b, 1, :2], rvw0[b, 2] = row[:2], row[2:4], row[4:]
    ev_state = np.full((K, 2, 7), np.nan)
    ev_motion = np.full((K, 2), -1, np.int8)
    for k, e in enumerate(events):
        if ev_type[k] == EV_PIN_PIN:
            if "after" in e:
                fail(at(at(at(path, "events"), k), "after"), "is given, but a pin_pin event has "
                     "no ball")
            continue
        ep = at(at(path, "events"), k)
        if "after" not in e:
            fail(ep, "has no 'after' (with 'start', every event with a ball gives its states)")
        n = 2 if ev_type[k] == EV_BALL_BALL else 1
        after = req_list(e["after"], at(ep, "after"), n)
        # the reader stores a ball_ball as (lower, higher) index; 'after' follows 'agents'
        swap = n == 2 and req_name(e["agents"][0], "", ball_ids, "ball") != ev_i[k]
        for slot, rec in enumerate(after):
            row, mo = _read_ball_state(rec, at(at(ep, "after"), slot), table)
            ev_state[k, slot ^ swap] = row
            ev_motion[k, slot ^ swap] = mo
    return rvw0, motion0, ev_state, ev_motion


def _read_final(final: Any, path: str, ball_ids: Sequence[str], on0: np.ndarray,
                ev_type: np.ndarray, ev_i: np.ndarray, ev_j: np.ndarray, ev_path: str,
                table: TableSpec
                ) -> tuple[np.ndarray, np.ndarray, list[tuple[str, str]]]:
    final = req_obj(final, path)
    B = len(ball_ids)
    for name in final:
        b = req_name(name, at(path, name), ball_ids, "ball")
        if not on0[b]:
            fail(at(path, name), "is listed, but that ball was not on the table at the start")
    xy = np.zeros((B, 2))
    pocket = np.full(B, -1, np.int64)
    moving = []
    drops = {int(ev_i[k]): k for k in np.flatnonzero(ev_type == EV_BALL_POCKET)}
    for b in np.flatnonzero(on0):
        name = ball_ids[b]
        bp = at(path, name)
        if name not in final:
            fail(bp, "is missing (every ball on the table at the start must be listed, "
                     "pocketed or not)")
        rec = req_obj(final[name], bp, _FINAL_KEYS, ("x", "y", "state"))
        xy[b] = req_num(rec["x"], at(bp, "x")), req_num(rec["y"], at(bp, "y"))
        state = req_choice(rec["state"], at(bp, "state"), MOTION_NAMES)
        pk = rec.get("pocket")
        if pk is not None:
            pk = req_int(pk, at(bp, "pocket"), 0, len(table.pockets) - 1)
        if (state == "pocketed") != (pk is not None):
            fail(at(bp, "pocket"), f"= {show(pk)} contradicts state {state!r} (a pocketed ball "
                                   "names its pocket, any other ball has pocket null)")
        k = drops.get(int(b))
        if pk is None and k is not None:
            fail(at(ev_path, int(k)), f"drops {name!r} into a pocket, but {bp} is not pocketed")
        if pk is not None:
            if k is None:
                fail(bp, f"is pocketed, but {ev_path} has no ball_pocket event for {name!r}")
            if int(ev_j[k]) != pk:
                fail(at(bp, "pocket"), f"= {pk}, but its ball_pocket event ({at(ev_path, int(k))})"
                                       f" names pocket {int(ev_j[k])}")
            check_in_pocket(table, pk, xy[b, 0], xy[b, 1], bp)
            pocket[b] = pk
            xy[b] = 0.0
        elif state != "stationary":
            moving.append((name, state))
    return xy, pocket, moving


def _read_pins(pins: Any, path: str, table: TableSpec, ball_ids: Sequence[str], on0: np.ndarray,
               up0: np.ndarray, ev_type: np.ndarray, ev_j: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    pin_ids = table.pin_ids
    P = len(pin_ids)
    pins = req_obj(pins, path, pin_ids, pin_ids)
    up = np.zeros(P, bool)
    toppler = np.zeros(P, np.int64)
    hit = set(ev_j[(ev_type == EV_BALL_PIN) | (ev_type == EV_PIN_PIN)].tolist())
    for p, pid in enumerate(pin_ids):
        pp = at(path, pid)
        rec = req_obj(pins[pid], pp, _PIN_KEYS, _PIN_KEYS)
        up[p] = req_bool(rec["standing"], at(pp, "standing"))
        by = rec["toppled_by"]
        bp = at(pp, "toppled_by")
        names = [] if by is None else [by] if isinstance(by, str) else req_list(by, bp,
                                                                                  min_len=1)
        for n, name in enumerate(names):
            where = bp if isinstance(by, str) else at(bp, n)
            b = req_name(name, where, ball_ids, "ball")
            if not on0[b]:
                fail(where, f"names {name!r}, which was not on the table at the start")
            toppler[p] |= 1 << b
        if up[p] and not up0[p]:
            fail(at(pp, "standing"), "is true, but the pin was down at the start")
        toppled = up0[p] and not up[p]
        if toppled and not names:
            fail(bp, "is null, but the pin was toppled in this shot (name the ball)")
        if toppled and p not in hit:
            fail(pp, f"is toppled, but no ball_pin or pin_pin event touches {pid!r}")
        if not toppled and names:
            fail(bp, f"must be null for a pin that was not toppled in this shot, got {show(by)}")
    return up, toppler
