"""The keglebillard event log the referee reads: :class:`EventLog`, its checks and its sources.

:class:`EventLog` holds the fields of ``cuegym.physics.SimResult`` the rules read
(docs/physics_api.md; leading table axis). :func:`read_log` validates any SimResult-like object
into one, :func:`sim_log` takes the physics' own output unchecked, :func:`stack_logs` batches
logs; :func:`build_log` writes a log by hand as physics would (pin contacts and topples K-P1,
chains K-P2, toppler attribution K-P3) and :func:`log_from_json` reads the physics JSON output
(fallen pins K-P5). Scoring the log is :mod:`cuegym.rules.keglebillard`
(docs/rules_keglebillard.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from cuegym.configs import (
    CIRCLE_JAW,
    CIRCLE_POST,
    TableSpec,
    default_params,
)
from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_PIN,
    EV_BALL_POCKET,
    EV_BALL_POST,
    EV_NONE,
    EV_PIN_PIN,
    EV_TRANSITION,
    POCKETED,
    ROLLING,
    SLIDING,
    STATIONARY,
)
from cuegym.rules.inputs import (
    END_REASONS,
    RefereeInputError,
    check_in_pocket,
    check_layout,
    events_used,
    read_sim_output,
    req_bool,
    req_int,
    req_key,
    req_list,
    req_name,
    req_num,
    req_obj,
    req_xy,
    show,
)
from cuegym.rules.keglebillard_config import (
    BALL_IDS,
    N_BALLS,
    N_PINS,
    PIN_IDS,
    default_table,
    salvo_x,
    white_spots,
)


def _ball_index(value: Any, what: str) -> int:
    if isinstance(value, str) and value in BALL_IDS:
        return BALL_IDS.index(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and \
            0 <= value < N_BALLS:
        return int(value)
    raise ValueError(f"{what}: unknown ball {value!r} (known: {list(BALL_IDS)})")


def _pin_index(value: Any, what: str) -> int:
    if isinstance(value, str) and value in PIN_IDS:
        return PIN_IDS.index(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and \
            0 <= value < N_PINS:
        return int(value)
    raise ValueError(f"{what}: unknown pin {value!r} (known: {list(PIN_IDS)})")


#: field: (trailing shape, dtype); None = any length (the event axis K).
_LOG_SPEC: dict[str, tuple[tuple, type]] = {
    "rvw": ((N_BALLS, 3, 3), np.float64),
    "motion": ((N_BALLS,), np.int64),
    "pocket": ((N_BALLS,), np.int64),
    "rvw0": ((N_BALLS, 3, 3), np.float64),
    "motion0": ((N_BALLS,), np.int64),
    "pins_up": ((N_PINS,), np.bool_),
    "pins_up0": ((N_PINS,), np.bool_),
    "pin_toppler": ((N_PINS,), np.int64),
    "pin_topple_time": ((N_PINS,), np.float64),
    "ev_type": ((None,), np.int64),
    "ev_time": ((None,), np.float64),
    "ev_i": ((None,), np.int64),
    "ev_j": ((None,), np.int64),
    "n_events": ((), np.int64),
    "overflow": ((), np.int64),
}


@dataclass(frozen=True)
class EventLog:
    """The part of ``cuegym.physics.SimResult`` the rules read, validated; leading axis = table.

    Shapes as in docs/physics_api.md: ``rvw``/``rvw0`` (T, 3, 3, 3), ``motion``/``motion0``/
    ``pocket`` (T, 3), ``pins_up``/``pins_up0``/``pin_toppler``/``pin_topple_time`` (T, 5),
    ``ev_type``/``ev_time``/``ev_i``/``ev_j`` (T, K), ``n_events``/``overflow`` (T,).
    """

    rvw: np.ndarray
    motion: np.ndarray
    pocket: np.ndarray
    rvw0: np.ndarray
    motion0: np.ndarray
    pins_up: np.ndarray
    pins_up0: np.ndarray
    pin_toppler: np.ndarray
    pin_topple_time: np.ndarray
    ev_type: np.ndarray
    ev_time: np.ndarray
    ev_i: np.ndarray
    ev_j: np.ndarray
    n_events: np.ndarray
    overflow: np.ndarray

    def __len__(self) -> int:
        return int(self.n_events.shape[0])

    def take(self, idx: Any) -> EventLog:
        """The tables ``idx`` (an index array or slice) as a new log."""
        idx = np.arange(len(self))[idx] if isinstance(idx, slice) else np.atleast_1d(idx)
        return EventLog(**{f.name: getattr(self, f.name)[idx] for f in fields(self)})


def read_log(log: Any, table: TableSpec | None = None) -> EventLog:
    """Validate a SimResult-like object (attributes or a mapping) into an :class:`EventLog`.

    Args:
        log: the SimResult fields (attributes or a mapping). An :class:`EventLog` is returned
            as it is: :func:`read_log`, :func:`build_log` and :func:`log_from_json` make
            validated ones (one constructed directly is trusted; pass its fields as a mapping to
            check it).
        table: the table the shot was played on (default kleinmatch): the cushion, jaw and
            pocket indices of the events and ``pocket`` must exist on it, and a log that names
            its own table (a SimResult's ``table``) must name this one.

    Raises:
        ValueError: a missing field, a wrong shape, an event code or agent out of range (a
            ball not on the table at the start, an index the table lacks), a pocketed ball
            without its ``ball_pocket`` event, or a NaN/inf where a number is needed; the
            message names the field and the value.
    """
    if isinstance(log, EventLog):
        return log

    def get(name: str) -> Any:
        if isinstance(log, Mapping):
            return log.get(name)
        return getattr(log, name, None)

    own = getattr(get("table"), "name", None)  # a SimResult knows its table
    want = (table or default_table()).name
    if own is not None and own != want:
        raise ValueError(f"the log was simulated on table {own!r}, not on {want!r}, where it "
                         f"is to be scored")

    n_ev = get("n_events")
    if n_ev is None:
        raise ValueError("event log lacks field 'n_events'")
    T = np.shape(n_ev)[0] if np.ndim(n_ev) == 1 else -1
    if T < 0:
        raise ValueError(f"log.n_events must have shape (T,), got shape {np.shape(n_ev)}")
    ev_type = get("ev_type")
    K = np.shape(ev_type)[1] if ev_type is not None and np.ndim(ev_type) == 2 else -1
    # the event axis is cut to the longest log (n_events of another dtype fails its check below)
    K_used = events_used(n_ev, K) if np.issubdtype(np.asarray(n_ev).dtype, np.integer) \
        else max(1, K)
    out = _log_fields(get, T, K, K_used)
    n = out["n_events"]
    bad = np.flatnonzero((n < 0) | (n > K))
    if bad.size:
        raise ValueError(f"log.n_events[{bad[0]}] = {n[bad[0]]} is outside [0, {K}]")
    _check((out["overflow"] < 0) | (out["overflow"] >= len(END_REASONS)), out["overflow"],
           "log.overflow", f"is not an end code 0..{len(END_REASONS) - 1} {END_REASONS}")
    valid = np.arange(K_used)[None, :] < n[:, None]
    _check_events(out, valid)
    present0 = out["motion0"] != POCKETED
    on_end = present0 & (out["motion"] != POCKETED) & (out["pocket"] < 0)
    _check(present0[..., None] & ~np.isfinite(out["rvw0"][:, :, 0, :2]),
           out["rvw0"][:, :, 0, :2], "log.rvw0 position", "is not finite")
    _check(on_end[..., None] & ~np.isfinite(out["rvw"][:, :, 0, :2]),
           out["rvw"][:, :, 0, :2], "log.rvw position", "is not finite")
    _check(out["pins_up"] & ~out["pins_up0"], out["pins_up"], "log.pins_up",
           "is True for a pin that was down at the start")
    _check(np.isnan(out["pin_topple_time"]), out["pin_topple_time"], "log.pin_topple_time",
           "is NaN")
    # a pin that fell is attributed to the balls of its chain (K-P3); without one it would
    # score as a legal pin of nobody's (the JSON reader refuses such a pin too)
    fell = out["pins_up0"] & ~out["pins_up"]
    _check(fell & ((out["pin_toppler"] <= 0) | (out["pin_toppler"] >= 1 << N_BALLS)),
           out["pin_toppler"], "log.pin_toppler",
           f"is not a mask of balls 1..{(1 << N_BALLS) - 1} for a pin that fell in the shot")
    _check_agents(out, valid, table or default_table())
    return EventLog(**out)


def _log_fields(get: Any, T: int, K: int, K_used: int) -> dict[str, np.ndarray]:
    """Every field of :data:`_LOG_SPEC` read with ``get(name)``, its shape (T tables, K event
    slots) and dtype checked, the event arrays cut to their first ``K_used`` slots; a missing
    ``overflow`` is all 0 (ended at rest)."""
    out: dict[str, np.ndarray] = {}
    for name, (trail, dtype) in _LOG_SPEC.items():
        value = get(name)
        if value is None:
            if name == "overflow":
                value = np.zeros(T, np.int64)
            else:
                raise ValueError(f"event log lacks field {name!r}")
        arr = np.asarray(value)
        want = (T, *(K if d is None else d for d in trail))
        if arr.shape != want:
            raise ValueError(f"log.{name} must have shape {want}, got {arr.shape}")
        if dtype is np.bool_:
            if arr.dtype != np.bool_:
                raise ValueError(f"log.{name} must be boolean, got dtype {arr.dtype}")
        elif dtype is np.int64:
            if not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"log.{name} must be integer, got dtype {arr.dtype}")
        if name.startswith("ev_"):
            arr = arr[:, :K_used]
        out[name] = np.ascontiguousarray(arr, dtype=dtype)
    return out


def _check_events(out: dict[str, np.ndarray], valid: np.ndarray) -> None:
    """The logged events (``valid`` (T, K): the slots in use) have known codes, finite times in
    order, and ball or pin agents as their type needs."""
    typ, ti, tj = out["ev_type"], out["ev_i"], out["ev_j"]
    _check(valid & ((typ < EV_NONE) | (typ > EV_TRANSITION) | (typ == EV_NONE)), typ,
           "log.ev_type", f"is not an event code 1..{EV_TRANSITION}")
    _check(valid & ~np.isfinite(out["ev_time"]), out["ev_time"], "log.ev_time", "is not finite")
    dt = np.diff(np.where(valid, out["ev_time"], 0.0), axis=1)
    _check(np.pad(valid[:, 1:] & (dt < 0), ((0, 0), (1, 0))), out["ev_time"], "log.ev_time",
           "is earlier than the event before it")
    ball_i = valid & (typ != EV_PIN_PIN)
    _check(ball_i & ((ti < 0) | (ti >= N_BALLS)), ti, "log.ev_i", "is not a ball index")
    _check(valid & (typ == EV_BALL_BALL) & ((tj < 0) | (tj >= N_BALLS) | (tj == ti)), tj,
           "log.ev_j", "is not a second ball")
    pin_j = valid & ((typ == EV_BALL_PIN) | (typ == EV_PIN_PIN))
    _check(pin_j & ((tj < 0) | (tj >= N_PINS)), tj, "log.ev_j", "is not a pin index")
    _check(valid & (typ == EV_PIN_PIN) & ((ti < 0) | (ti >= N_PINS)), ti, "log.ev_i",
           "is not a pin index")


def sim_log(sim: Any, rows: Any = None) -> EventLog:
    """The :class:`EventLog` of a ``cuegym.physics.simulate`` result for the tables ``rows``
    (default all), without :func:`read_log`'s checks: the physics' own output is valid by
    construction (the game layer scores its shots through this). The event axis is cut to the
    longest log, as :func:`read_log` does."""
    n = sim.n_events if rows is None else sim.n_events[rows]
    K = events_used(n, sim.ev_type.shape[1])
    out = {}
    for name, (_, dtype) in _LOG_SPEC.items():
        a = getattr(sim, name)
        if name.startswith("ev_"):
            a = a[:, :K]
        out[name] = np.ascontiguousarray(a if rows is None else a[rows], dtype=dtype)
    return EventLog(**out)


def _check_agents(out: dict[str, np.ndarray], valid: np.ndarray, table: TableSpec) -> None:
    """Agents and pockets of a log against the table and the balls on it at the start."""
    typ, ti, tj = out["ev_type"], out["ev_i"], out["ev_j"]
    for name in ("motion", "motion0"):
        _check((out[name] < 0) | (out[name] > POCKETED), out[name], f"log.{name}",
               f"is not a motion code 0..{POCKETED}")
    n_lines, n_pockets = len(table.cushions), len(table.pockets)
    pk = out["pocket"]
    _check((pk < -1) | (pk >= n_pockets), pk, "log.pocket",
           f"is not -1 or a pocket index 0..{n_pockets - 1} of table {table.name!r}")
    present0 = out["motion0"] != POCKETED
    _check(~present0 & ((out["motion"] != POCKETED) | (pk >= 0)), out["motion"], "log.motion",
           "is not 4 (pocketed, absent) for a ball that was not on the table at the start")
    _check(present0 & ((pk >= 0) != (out["motion"] == POCKETED)), pk, "log.pocket",
           "contradicts log.motion (a pocketed ball has motion 4 and its pocket index)")
    ball_i = valid & (typ != EV_PIN_PIN)
    on_i = np.take_along_axis(present0, np.clip(ti, 0, N_BALLS - 1), axis=1)
    _check(ball_i & ~on_i, ti, "log.ev_i", "is a ball that was not on the table at the start",
           BALL_IDS)
    on_j = np.take_along_axis(present0, np.clip(tj, 0, N_BALLS - 1), axis=1)
    _check(valid & (typ == EV_BALL_BALL) & ~on_j, tj, "log.ev_j",
           "is a ball that was not on the table at the start", BALL_IDS)
    jaws = np.array([c.kind == CIRCLE_JAW for c in table.circles] + [False], bool)
    cush = valid & (typ == EV_BALL_CUSHION)
    _check(cush & ((tj < 0) | ((tj >= n_lines) & ~jaws[np.clip(tj - n_lines, -1,
                                                               len(jaws) - 1)])), tj,
           "log.ev_j", f"is not a cushion (0..{n_lines - 1}) or jaw circle of the table")
    posts = np.array([c.kind == CIRCLE_POST for c in table.circles] + [False], bool)
    _check(valid & (typ == EV_BALL_POST) & ~posts[np.clip(tj, -1, len(posts) - 1)], tj,
           "log.ev_j", "is not a post (cap) of the table")
    drop = valid & (typ == EV_BALL_POCKET)
    _check(drop & ((tj < 0) | (tj >= n_pockets)), tj, "log.ev_j",
           f"is not a pocket index 0..{n_pockets - 1}")
    # a pocketed ball drops at its ball_pocket event, into the pocket ``pocket`` names
    hit = drop[:, None, :] & (ti[:, None, :] == np.arange(N_BALLS)[None, :, None])  # (T, B, K)
    same = (hit & (tj[:, None, :] == pk[:, :, None])).any(2)
    _check(present0 & (pk >= 0) & ~same, pk, "log.pocket",
           "has no ball_pocket event of that ball into that pocket")
    _check(present0 & (pk < 0) & hit.any(2), pk, "log.pocket",
           "is -1 for a ball with a ball_pocket event")


def _check(bad: np.ndarray, values: np.ndarray, name: str, why: str,
           names: Sequence[str] = ()) -> None:
    """Raise for the first True of ``bad``: ``<name>[t, k] = <value> (<names[value]>) <why>``."""
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        v = values[idx].item()
        label = f" ({names[v]})" if names and isinstance(v, int) and 0 <= v < len(names) else ""
        raise RefereeInputError(f"{name}[{', '.join(map(str, idx))}] = {v!r}{label} {why}")


def stack_logs(logs: Sequence[Any], table: TableSpec | None = None) -> EventLog:
    """Concatenate logs along the table axis (event axes padded to the longest), each read on
    ``table`` (default: the table a SimResult names, else the kleinmatch; logs of different
    tables are refused)."""
    if not logs:
        raise ValueError("stack_logs needs at least one log")
    if table is None:
        own = {t.name: t for t in (getattr(lg, "table", None) for lg in logs)
               if isinstance(t, TableSpec)}
        if len(own) > 1:
            raise ValueError(f"stack_logs: the logs were simulated on different tables "
                             f"{sorted(own)}")
        table = next(iter(own.values()), None)
    parts = [read_log(lg, table) for lg in logs]
    K = max(p.ev_type.shape[1] for p in parts)
    out = {}
    for f in fields(EventLog):
        arrs = []
        for p in parts:
            a = getattr(p, f.name)
            if f.name.startswith("ev_") and a.shape[1] < K:
                pad = np.zeros((a.shape[0], K - a.shape[1]), a.dtype)
                a = np.concatenate([a, pad], axis=1)
            arrs.append(a)
        out[f.name] = np.concatenate(arrs, axis=0)
    return EventLog(**out)


#: Start layout used by :func:`build_log` on the kleinmatch table when none is given: red behind
#: the salvo line, whites on their spots (on another table: :func:`table_start`).
DEFAULT_START = {"red": (-0.7, 0.1), "white": (-0.525, 0.0), "spotted": (0.525, 0.0)}

#: The event kinds of :func:`build_log` (and of the rules CLI's ``hand_log``).
BUILD_KINDS = ("ball_ball", "cushion", "pocket", "pin", "pin_touch", "pin_pin", "transition")


def table_arg(table: TableSpec | str | None, where: str = "build_log") -> TableSpec:
    """The ``table`` argument of ``where`` (``build_log``, ``score_shots``, ``judge_lag``): a
    keglebillard TableSpec, a table config name, or None (the kleinmatch table)."""
    if table is None:
        return default_table()
    if isinstance(table, str):
        try:
            return default_table(table)
        except ValueError as exc:  # no such table, or not a keglebillard table
            raise RefereeInputError(f"{where} table: {exc}") from None
    if not isinstance(table, TableSpec) or table.game != "keglebillard":
        raise RefereeInputError(f"{where} table must be a keglebillard table name or "
                                f"TableSpec, got {show(table)}")
    return table


def table_start(table: TableSpec | str | None = None) -> dict[str, tuple[float, float]]:
    """The start layout :func:`build_log` uses on ``table`` when none is given: the whites on
    their spots (K-18), the red 0.175 m behind the salvo line (K-3) at y = 0.1. On the
    kleinmatch table this is :data:`DEFAULT_START`."""
    t = table_arg(table)
    (wx, wy), (sx, sy) = white_spots(t).tolist()
    return {"red": (salvo_x(t) - 0.175, 0.1), "white": (wx, wy), "spotted": (sx, sy)}


def _layout_error(table: TableSpec, balls: Mapping[str, tuple[float, float]],
                  pins_up: np.ndarray) -> str | None:
    """Why the positions ``balls`` (path -> (x, y)) are illegal on ``table`` with the pins
    ``pins_up`` standing, or None: the state check's (and the physics')
    :func:`~cuegym.rules.inputs.check_layout`, with every position and pin named."""
    try:
        check_layout(table, default_params("keglebillard"), balls, pins_up)
    except RefereeInputError as exc:
        msg = re.sub(r"standing pin (\d+)", lambda m: f"{m[0]} ({PIN_IDS[int(m[1])]})", str(exc))
        if " at (" not in msg:  # two balls overlap, or a ball in a pocket: add the positions
            msg += "; " + ", ".join(f"{path} = ({x:.4f}, {y:.4f})"
                                    for path, (x, y) in balls.items() if repr(path) in msg)
        return msg
    return None


def _layouts(table: TableSpec, pos0: Mapping, pos1: Mapping, end: Mapping | None,
             absent_idx: set[int], pocket: np.ndarray, up0: np.ndarray, pins_up: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`build_log`'s start and rest layouts, (1, B, 3, 3) each, checked as a state's:
    the whites' start and the rest layout legal on ``table`` (:func:`_layout_error`), a pocketed
    ball in its pocket (default: the pocket's centre). The red's start is not checked, nor then
    the rest: a red placed where it cannot be played is a K-19 placement foul, no shot, whose
    log ``Kegle.apply`` ignores."""
    rvw0 = np.zeros((1, N_BALLS, 3, 3))
    rvw = np.zeros((1, N_BALLS, 3, 3))
    rest = {}  # the balls at rest on the cloth at the end, by path
    for b, name in enumerate(BALL_IDS):
        rvw0[0, b, 0, :2] = req_xy(pos0[name], f"build_log start.{name}")
        path = (f"build_log end.{name}" if end and name in end else
                f"build_log start.{name} (no end given: it rests there)")
        if b in absent_idx:
            rvw[0, b, 0, :2] = req_xy(pos1[name], path)
        elif pocket[b] >= 0:  # it lies where it dropped
            pk = table.pockets[pocket[b]]
            xy = req_xy(end[name], path) if end and name in end else (pk.x, pk.y)
            check_in_pocket(table, int(pocket[b]), xy[0], xy[1], path)
            rvw[0, b, 0, :2] = xy
        else:
            rvw[0, b, 0, :2] = rest[path] = req_xy(pos1[name], path)
    start_xy = {f"build_log start.{name}": tuple(rvw0[0, b, 0, :2]) for b, name in
                enumerate(BALL_IDS) if b not in absent_idx}
    whites = {p: xy for p, xy in start_xy.items() if not p.endswith(".red")}
    msg = _layout_error(table, whites, up0)
    if msg is None and _layout_error(table, start_xy, up0) is None:
        msg = _layout_error(table, rest, pins_up)
    if msg:
        raise RefereeInputError(msg)
    return rvw0, rvw


def _event_rows(events: Any, table: TableSpec) -> list[tuple[float, int, Sequence]]:
    """:func:`build_log`'s events checked, as (time, index as given, event) in time order
    (equal times as given)."""
    for n, e in enumerate(req_list(events, "build_log events")):
        if isinstance(e, str) or not isinstance(e, Sequence) or len(e) != 4 or \
                e[1] not in BUILD_KINDS:
            raise RefereeInputError(f"build_log events[{n}] = {show(e)}: expected (time, kind, "
                                    f"a, b) with kind in {sorted(BUILD_KINDS)}")
        req_num(e[0], f"build_log events[{n}] time", lo=0.0)
        if e[1] in ("cushion", "pocket", "transition"):
            req_int(e[3], f"build_log events[{n}] {e[1]} index", 0,
                    {"transition": ROLLING, "pocket": len(table.pockets) - 1}.get(e[1]))
    return sorted(((float(e[0]), i, e) for i, e in enumerate(events)), key=lambda r: r[:2])


def _pin_event(kind: str, a: Any, b: Any, t: float, n: int, pins_up: np.ndarray,
               toppler: np.ndarray, t_top: np.ndarray) -> tuple[int, int]:
    """A ``pin``, ``pin_touch`` or ``pin_pin`` event of :func:`build_log` at time ``t``: its
    agents (ev_i, ev_j); a topple updates ``pins_up``, ``toppler`` (K-P3: a ball topples a pin
    for itself, the red and a white at the same instant for the red, a falling pin for its own
    balls) and ``t_top`` in place."""
    if kind == "pin_pin":
        p, q = _pin_index(a, "pin_pin"), _pin_index(b, "pin_pin")
        if not pins_up[p] and not pins_up[q] and t_top[q] == t:
            toppler[q] |= toppler[p]  # K-P3: chains that reach a pin at once: it is both's
            return p, q
        if pins_up[p] or not pins_up[q]:
            raise RefereeInputError(f"build_log events[{n}]: pin_pin {PIN_IDS[p]} -> "
                                    f"{PIN_IDS[q]} at t = {t} needs a fallen pin and a "
                                    "standing one (or one that fell at that instant)")
        pins_up[q], toppler[q], t_top[q] = False, toppler[p], t
        return p, q
    i, p = _ball_index(a, kind), _pin_index(b, kind)
    if kind == "pin":
        if t_top[p] == t:  # K-P3: same instant
            bits = toppler[p] | (1 << i)
            toppler[p] = 1 if bits & 1 else bits
        elif not pins_up[p]:
            why = "down at the start" if t_top[p] == np.inf else f"toppled at t = {t_top[p]}"
            raise RefereeInputError(f"build_log events[{n}]: pin {PIN_IDS[p]} is not standing "
                                    f"at t = {t} ({why})")
        else:
            pins_up[p], toppler[p], t_top[p] = False, 1 << i, t
    return i, p


def build_log(events: Sequence[Sequence], *, start: Mapping | None = None,
              end: Mapping | None = None, absent: Iterable[str] = (),
              struck: Iterable[str] = ("red",), pins_up0: Sequence[bool] | None = None,
              overflow: int = 0, table: TableSpec | str | None = None) -> EventLog:
    """Build a one-table event log by hand (tests, human-entered shots), as physics would log it.

    Args:
        events: ``(time, kind, a, b)`` tuples, ball and pin names or indices:
            ``("ball_ball", ball, ball)``, ``("cushion", ball, cushion_index)``,
            ``("pocket", ball, pocket_index)``, ``("pin", ball, pin)`` a contact that topples
            the pin, ``("pin_touch", ball, pin)`` one below the threshold (K-P1),
            ``("pin_pin", falling_pin, pin)`` a chain topple (K-P2), ``("transition", ball, m)``.
            Toppled pins are attributed by K-P3 (red and a white at the same instant: the red;
            both whites: both). A cushion index is 0..5 (straight cushions) or
            ``len(table.cushions) + i`` for the jaw ``table.circles[i]`` (6..17).
        start: ball name -> (x, y) at t = 0 (defaults: :func:`table_start`, on the kleinmatch
            table :data:`DEFAULT_START`).
        end: ball name -> (x, y) at rest (default: the start position; a pocketed ball: its
            pocket's centre). The rest layout must be legal on ``table`` as in a game state: on
            the cloth, clear of the cushions, jaws, pocket capture circles, the pins still
            standing and the other balls; a pocketed ball lies in its pocket's capture circle.
            (Not checked when the start cannot be played, a K-19 placement foul: no shot.)
            A ball that left the table (injected ``off_table``, K-14a) needs a legal ``end``
            too, as in the physics output; the flow ignores it unless ``returned``.
        absent: balls not on the table at the start (a white waiting to be spotted, K-18).
        struck: balls moving at t = 0 (motion0 sliding); the others start at rest.
        pins_up0: pins standing at the start (default all five).
        overflow: the physics end code (0 came to rest).
        table: the table (a keglebillard ``TableSpec`` or config name, default kleinmatch):
            the default start, the cushion, jaw and pocket indices and the end-layout check.
            Score and apply the log with the same table (``score_shots(table=)``,
            ``Kegle(rules, table=)``).

    Returns:
        An :class:`EventLog` with T = 1.

    Raises:
        RefereeInputError (a ValueError): a malformed event, an unknown ball, pin or table, or
            an illegal end layout, e.g. ``'build_log end.white' at (0.0000, 0.0820) overlaps
            standing pin 2 (pin2)``.
    """
    table = table_arg(table)
    for arg, given in (("start", start), ("end", end)):
        for name in req_obj(given or {}, f"build_log {arg}"):
            req_name(name, f"build_log {arg}.{name}", BALL_IDS, "ball")
    pos0 = {**table_start(table), **dict(start or {})}
    pos1 = {**pos0, **dict(end or {})}
    absent_idx = {_ball_index(b, "build_log absent") for b in absent}
    up0 = np.ones(N_PINS, bool) if pins_up0 is None else np.asarray(
        [req_bool(p, f"build_log pins_up0[{k}]") for k, p in enumerate(req_list(
            pins_up0, "build_log pins_up0", N_PINS))])
    rows = _event_rows(events, table)
    K = max(len(rows), 1)
    ev_type = np.zeros((1, K), np.int64)
    ev_time = np.zeros((1, K))
    ev_i = np.zeros((1, K), np.int64)
    ev_j = np.zeros((1, K), np.int64)
    motion0 = np.full(N_BALLS, STATIONARY, np.int64)
    motion = np.full(N_BALLS, STATIONARY, np.int64)
    pocket = np.full(N_BALLS, -1, np.int64)
    motion0[[_ball_index(b, "build_log struck") for b in struck]] = SLIDING
    motion0[list(absent_idx)] = POCKETED
    motion[list(absent_idx)] = POCKETED
    pins_up = up0.copy()
    toppler = np.zeros(N_PINS, np.int64)
    t_top = np.full(N_PINS, np.inf)
    dropped: dict[int, int] = {}  # ball -> the event that dropped it
    for k, (t, n, e) in enumerate(rows):
        kind, a, b = e[1], e[2], e[3]
        ev_time[0, k] = t
        if kind != "pin_pin":  # nothing happens to a ball after it dropped
            for slot, v in enumerate((a, b) if kind == "ball_ball" else (a,)):
                i = _ball_index(v, kind)
                if i in dropped:
                    raise RefereeInputError(
                        f"build_log events[{n}][{2 + slot}] names {BALL_IDS[i]!r} after it "
                        f"dropped into a pocket at build_log events[{dropped[i]}]")
            if kind == "pocket":
                dropped[_ball_index(a, kind)] = n
        if kind == "ball_ball":
            i, j = sorted((_ball_index(a, "ball_ball"), _ball_index(b, "ball_ball")))
            ev_type[0, k], ev_i[0, k], ev_j[0, k] = EV_BALL_BALL, i, j
        elif kind in ("cushion", "pocket", "transition"):
            i = _ball_index(a, kind)
            code = {"cushion": EV_BALL_CUSHION, "pocket": EV_BALL_POCKET,
                    "transition": EV_TRANSITION}[kind]
            ev_type[0, k], ev_i[0, k], ev_j[0, k] = code, i, int(b)
            if kind == "pocket":
                pocket[i], motion[i] = int(b), POCKETED
        else:  # a pin: touched, toppled by a ball or by a falling pin
            ev_i[0, k], ev_j[0, k] = _pin_event(kind, a, b, t, n, pins_up, toppler, t_top)
            ev_type[0, k] = EV_PIN_PIN if kind == "pin_pin" else EV_BALL_PIN
    rvw0, rvw = _layouts(table, pos0, pos1, end, absent_idx, pocket, up0, pins_up)
    return read_log(dict(
        rvw=rvw, motion=motion[None], pocket=pocket[None], rvw0=rvw0, motion0=motion0[None],
        pins_up=pins_up[None], pins_up0=up0[None].copy(), pin_toppler=toppler[None],
        pin_topple_time=t_top[None], ev_type=ev_type, ev_time=ev_time, ev_i=ev_i, ev_j=ev_j,
        n_events=np.array([len(rows)], np.int64),
        overflow=np.array([req_int(overflow, "build_log overflow", 0, len(END_REASONS) - 1)],
                          np.int64)), table)


def log_from_json(out: Mapping, table: TableSpec | None = None, *,
                  start: Mapping[str, Sequence[float]] | None = None,
                  pins_up0: Sequence[bool] | None = None, path: str = "log") -> EventLog:
    """A one-table :class:`EventLog` from an output object of ``cuegym.physics.simulate_json``.

    Args:
        out: ``{"final": .., "pins": .., "events": [..], "end_reason": ..}`` (physics/jsonio.py).
        table: the table, to turn cushion, jaw and pocket names into indices (default kleinmatch).
        start: ball id -> (x, y) at the start; the balls on the table at the start are exactly
            these (default: the output's own ``start`` when the shot was simulated with
            ``event_states``, else the balls listed in ``out["final"]``, at their final
            positions).
        pins_up0: pins standing at the start (default: all five).
        path: the JSON path of ``out`` named in errors.

    Raises:
        RefereeInputError (a ValueError): one line naming the JSON path of the bad value; the
            checks are those of :func:`cuegym.rules.inputs.read_sim_output` (every ball of the
            start in ``final``, legal final positions, pocket events, ordered finite times,
            agents and indices in range, booleans), plus legal ``start`` positions.

    The JSON output has no topple times, so they are recovered from the events: a pin toppled
    by a chain falls at its ``pin_pin`` event, one toppled directly at the last ``ball_pin``
    contact of a ball it is attributed to (a fallen pin leaves the table, K-P5).
    """
    table = table or default_table()
    params = default_params("keglebillard")
    up0 = np.ones(N_PINS, bool) if pins_up0 is None else np.asarray(
        [req_bool(p, f"pins_up0[{k}]") for k, p in enumerate(req_list(pins_up0, "pins_up0",
                                                                         N_PINS))])
    if start is None:  # the output's start, else the balls of ``final``, where they ended
        own = "start" if "start" in req_obj(out, path) else "final"
        listed = req_obj(req_key(out, own, path), f"{path}.{own}")
        start_xy = {}
        for name, rec in listed.items():
            rp = f"{path}.{own}.{name}"
            req_name(name, rp, BALL_IDS, "ball")
            rec = req_obj(rec, rp)
            start_xy[name] = (req_num(req_key(rec, "x", rp), f"{rp}.x"),
                              req_num(req_key(rec, "y", rp), f"{rp}.y"))
        if own == "start":
            check_layout(table, params, {f"{path}.start.{name}": xy
                                         for name, xy in start_xy.items()}, up0)
    else:
        start_xy = {}
        for name, xy in req_obj(start, "start").items():
            req_name(name, f"start.{name}", BALL_IDS, "ball")
            start_xy[name] = req_xy(xy, f"start.{name}")
        check_layout(table, params, {f"start.{name}": xy for name, xy in start_xy.items()}, up0)
    rvw0 = np.zeros((1, N_BALLS, 3, 3))
    motion0 = np.full(N_BALLS, POCKETED, np.int64)
    for name, xy in start_xy.items():
        b = BALL_IDS.index(name)
        motion0[b] = STATIONARY
        rvw0[0, b, 0, :2] = xy
    so = read_sim_output(out, path, table, params, BALL_IDS, motion0 != POCKETED, up0,
                         xy0=None if start is None else rvw0[0, :, 0, :2])
    if so.states is not None:  # the states right after the strike
        rvw0[0], motion0 = so.states[0], so.states[1].astype(np.int64)

    K = max(len(so.ev_type), 1)
    ev = {name: np.zeros((1, K), dtype) for name, dtype in
          (("ev_type", np.int64), ("ev_time", np.float64), ("ev_i", np.int64),
           ("ev_j", np.int64))}
    n = len(so.ev_type)
    ev["ev_type"][0, :n], ev["ev_time"][0, :n] = so.ev_type, so.ev_time
    ev["ev_i"][0, :n], ev["ev_j"][0, :n] = so.ev_i, so.ev_j
    # topple times: a chain pin at its first pin_pin event, a direct one at the last contact of
    # a ball it is attributed to
    last_contact = np.full((N_BALLS, N_PINS), np.nan)
    chain_time = np.full(N_PINS, np.nan)
    for k in range(n):
        if so.ev_type[k] == EV_PIN_PIN and math.isnan(chain_time[so.ev_j[k]]):
            chain_time[so.ev_j[k]] = so.ev_time[k]
        elif so.ev_type[k] == EV_BALL_PIN:
            last_contact[so.ev_i[k], so.ev_j[k]] = so.ev_time[k]
    t_top = np.full(N_PINS, np.inf)
    for p in np.flatnonzero(up0 & ~so.pins_up):
        if not math.isnan(chain_time[p]):
            t_top[p] = chain_time[p]
        else:
            times = [last_contact[b, p] for b in range(N_BALLS) if so.toppler[p] >> b & 1]
            times = [t for t in times if not math.isnan(t)]
            t_top[p] = min(times) if times else 0.0
    motion = np.where((so.pocket >= 0) | (motion0 == POCKETED), POCKETED, STATIONARY)
    rvw = np.zeros((1, N_BALLS, 3, 3))
    rvw[0, :, 0, :2] = so.final_xy
    return read_log(dict(
        rvw=rvw, motion=motion[None], pocket=so.pocket[None], rvw0=rvw0, motion0=motion0[None],
        pins_up=so.pins_up[None], pins_up0=up0[None].copy(), pin_toppler=so.toppler[None],
        pin_topple_time=t_top[None], n_events=np.array([n], np.int64),
        overflow=np.array([so.end_code], np.int64), **ev), table)

