"""The JSON shot interface: ``python -m cuegym.physics simulate < in.json > out.json``.

A shot object (metres, seconds, degrees; origin at the table centre, x along the length)::

    {"table": "keglebillard" | "keglebillard-helmatch" | "golfbillard" | "rectangle" |
              {"length": 2.10, "width": 1.05, "cushion_height": 0.0394,
               "pockets": [{"x": .., "y": .., "radius": ..}],
               "posts": [{"x": .., "y": .., "radius": ..}]},
     "pins": true,                       # keglebillard tables: all pins standing (or a list of ids)
     "params": {"R": .., "u_s": .., ...},  # overrides of the game's configs/physics/*.yaml
                                         # (rectangle, custom: keglebillard's; u_sp keeps its
                                         # value when R is overridden)
     "models": {"ball_ball": "frictional_inelastic" | "frictionless_elastic",
                "cushion": "han_2005" | "mirror", "squirt": false,
                "touching": "pooltool" | "bounded"},  # default pooltool's rule
     "balls": {"<id>": {"x": .., "y": .., "v": [vx, vy], "w": [wx, wy, wz],
                        "state": "rolling"}},  # optional start state (docs/physics_api.md)
     "strike": {"ball": "<id>", "V0": .., "phi": .., "theta": .., "a": .., "b": ..},  # or a list
     "max_events": 1000, "t_max": 60.0,
     "event_states": false}              # true: the balls' states at the start and after events

A list of shot objects is answered with a list, in order. Unknown keys are errors. The output
of a shot::

    {"final": {"<id>": {"x": .., "y": .., "state": "stationary" | .. | "pocketed",
                        "pocket": null | <index>}},
     "pins": {"<pin>": {"standing": .., "toppled_by": null | "<id>"}},
     "events": [{"time": .., "type": "ball_ball" | "ball_cushion" | "ball_pocket" | "ball_post" |
                 "ball_pin" | "pin_pin" | "transition", "agents": [..],
                 "state": ..}],             # state: a transition's new motion state only
     "n_events": .., "t_end": .., "overflow": false, "end_reason": "rest" | "max_events" | "t_max"}

With ``event_states``, ``"start": {"<id>": {"x", "y", "v", "w", "state"}}`` (every ball right
after the strike) and on each event with balls ``"after": [..]`` (their states after it, in
the order of ``agents``).

Speed: a list runs at about half the array API's speed (``python
experiments/bench_physics.py --shots``). Every distinct table, parameter set and model choice is
read and validated once per call (named tables and game parameters once per process); a
well-formed list is checked group by group with whole-column type and range tests
(:mod:`cuegym.physics.jsonparse`); shots that share table, parameters, models and limits are
simulated in chunks of at most :data:`~cuegym.physics.jsonparse.CHUNK_TABLES` tables through
:func:`~cuegym.physics.simulate`, reusing one set of event-log buffers; the output objects of a
chunk are built column by column from whole-array ``tolist()`` conversions. Entry point:
:func:`simulate_json`.
"""

from __future__ import annotations

import gc
import json
from itertools import islice
from typing import Any

import numpy as np

from ..configs import load_json
from .api import PhysicsInputError, Workspace, simulate
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
    S_VX,
    S_VY,
    S_WX,
    S_WY,
    S_WZ,
    S_X,
    S_Y,
)
from .jsonparse import plan

_END_REASONS = ("rest", "max_events", "t_max")
_MOTION_NAMES = np.array(MOTION_NAMES, object)
_AGENT_NAMES: dict = {}  # (id(table), ball order) -> (table, first, second)
_SPARE_WORKSPACES: list = []  # event-log buffers kept for the next call (list ops are atomic)


def _agent_names(table, order: tuple) -> tuple[list, list]:
    """Per event type, the name lists that ev_i and ev_j index (None: no such agent); kept
    for the last few (table, ball order) pairs (the entry holds the table, so its id stays
    unique while it is kept)."""
    hit = _AGENT_NAMES.get((id(table), order))
    if hit is not None and hit[0] is table:
        return hit[1], hit[2]
    if len(_AGENT_NAMES) >= 64:
        _AGENT_NAMES.clear()
    order = list(order)
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
    _AGENT_NAMES[id(table), tuple(order)] = (table, first, second)
    return first, second


def _events(res, table, order: tuple) -> list[list[dict]]:
    """Per table, its event objects (one list comprehension over the whole chunk's log)."""
    counts = res.n_events.astype(np.int64)
    rows = np.repeat(np.arange(len(counts)), counts)
    cols = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    typ, tim, ei, ej = (a[rows, cols].tolist()
                        for a in (res.ev_type, res.ev_time, res.ev_i, res.ev_j))
    first, second = _agent_names(table, order)
    names = EVENT_NAMES
    motion = MOTION_NAMES
    flat = iter([{"time": tm, "type": "transition", "agents": [first[ty][i]],
                  "state": motion[j]}
                 if ty == EV_TRANSITION else
                 {"time": tm, "type": names[ty], "agents": [first[ty][i], second[ty][j]]}
                 for ty, tm, i, j in zip(typ, tim, ei, ej, strict=True)])
    return [list(islice(flat, n)) for n in counts.tolist()]


def _finals(res, present: np.ndarray, order: tuple) -> list[dict]:
    """Per table, ``{ball id: {"x", "y", "state", "pocket"}}`` of its balls in ball order."""
    tt, bb = np.nonzero(present)
    x = res.rvw[tt, bb, 0, 0].tolist()
    y = res.rvw[tt, bb, 0, 1].tolist()
    m = res.motion[tt, bb]
    state = _MOTION_NAMES[m].tolist()
    pocket = res.pocket[tt, bb].astype(object)
    pocket[m != POCKETED] = None
    ids = list(map(order.__getitem__, bb.tolist()))
    balls = iter(zip(ids, [{"x": a, "y": b, "state": s, "pocket": p}
                           for a, b, s, p in zip(x, y, state, pocket.tolist(), strict=True)],
                     strict=True))
    return [dict(islice(balls, n)) for n in present.sum(axis=1).tolist()]


def _pins(res, table, order: tuple) -> list[dict]:
    """Per table, ``{pin id: {"standing", "toppled_by"}}``; K-P3: with several attributed
    balls the lowest index (the red) is named."""
    T, P = res.pins_up.shape
    if P == 0:
        return [{} for _ in range(T)]
    mask = res.pin_toppler.ravel()
    low = np.frexp((mask & -mask).astype(np.float64))[1] - 1  # lowest set bit; -1: none
    by = list(map((*order, None).__getitem__, low.tolist()))
    pins = iter([{"standing": s, "toppled_by": b}
                 for s, b in zip(res.pins_up.ravel().tolist(), by, strict=True)])
    ids = table.pin_ids  # zip stops at the last id, leaving the next table's pins in the iterator
    return [dict(zip(ids, pins, strict=False)) for _ in range(T)]


def _ball_state(s: list, motion: int) -> dict:
    """A ball's state object from one row ``[x, y, vx, vy, wx, wy, wz]`` (``S_*`` columns)."""
    return {"x": s[S_X], "y": s[S_Y], "v": [s[S_VX], s[S_VY]], "w": [s[S_WX], s[S_WY], s[S_WZ]],
            "state": MOTION_NAMES[motion]}


def _add_states(out: dict, res, t: int, present: np.ndarray, order: tuple) -> None:
    """Table t's ball states into its output object ``out`` (the ``event_states`` option):
    ``start``, every ball right after the strike, and on each event with ball agents
    ``after``, their states right after it, in the order of ``agents`` (a pin_pin event has
    none). Only shots that ask for them pay for them."""
    rvw0 = res.rvw0[t]
    st0 = np.concatenate([rvw0[:, 0, :2], rvw0[:, 1, :2], rvw0[:, 2, :3]], axis=1).tolist()
    mo0 = res.motion0[t].tolist()
    out["start"] = {order[b]: _ball_state(st0[b], mo0[b]) for b in np.flatnonzero(present[t])}
    n = len(out["events"])
    states = res.ev_state[t, :n].tolist()
    motions = res.ev_motion[t, :n].tolist()
    typ = res.ev_type[t, :n].tolist()
    for e, ty, s, m in zip(out["events"], typ, states, motions, strict=True):
        if ty == EV_BALL_BALL:
            e["after"] = [_ball_state(s[0], m[0]), _ball_state(s[1], m[1])]
        elif ty != EV_PIN_PIN:
            e["after"] = [_ball_state(s[0], m[0])]


def _chunk_outputs(res, kwargs: dict, with_states: list[bool]) -> list[dict]:
    """The output objects of a chunk's :class:`~cuegym.physics.SimResult` (``kwargs``: the
    chunk's :func:`~cuegym.physics.simulate` arguments from
    :func:`~cuegym.physics.jsonparse.plan`; ``with_states``: per shot, its ``event_states``)."""
    table, order = kwargs["table"], kwargs["ball_names"]
    of = res.overflow.tolist()
    outs = [{"final": f, "pins": p, "events": e, "n_events": len(e), "t_end": te,
             "overflow": o != 0, "end_reason": _END_REASONS[o]}
            for f, p, e, te, o in zip(_finals(res, kwargs["present"], order),
                                      _pins(res, table, order), _events(res, table, order),
                                      res.t_end.tolist(), of, strict=True)]
    for t, want in enumerate(with_states):
        if want:
            _add_states(outs[t], res, t, kwargs["present"], order)
    return outs


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
        chunks = plan(obj)
        shots = [obj] if isinstance(obj, dict) else obj
        with_states = [s.get("event_states", False) for s in shots]  # plan checked the types
        results: list = [None] * sum(len(idx) for idx, _ in chunks)
        # one set of log buffers for every chunk; a concurrent call takes a fresh one
        ws = _SPARE_WORKSPACES.pop() if _SPARE_WORKSPACES else Workspace()
        for idx, kwargs in chunks:
            res = simulate(**kwargs, workspace=ws)
            for i, r in zip(idx, _chunk_outputs(res, kwargs, [with_states[i] for i in idx]),
                            strict=True):
                results[i] = r
        if not _SPARE_WORKSPACES:
            _SPARE_WORKSPACES.append(ws)
    finally:
        if gc_was_on:
            gc.enable()
    return results[0] if isinstance(obj, dict) else results


def main_simulate(stdin, stdout, indent: int | None = None) -> int:
    """Read a shot object or a list from ``stdin``, write the result(s) to ``stdout`` as JSON
    (``indent`` spaces, default one line); 0 on success (bad input raises)."""
    text = stdin.read()
    if isinstance(text, str):
        # Python reads bytes that are not UTF-8 as lone surrogates (surrogateescape in the C
        # and C.UTF-8 locales) instead of failing: a ball id "r\xe9d" came back as "r\udce9d",
        # which strict JSON readers refuse
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            bad = ord(text[exc.start])
            byte = f"byte 0x{bad - 0xDC00:02x}" if 0xDC80 <= bad <= 0xDCFF else f"U+{bad:04X}"
            raise PhysicsInputError(f"input is not valid JSON: it is not UTF-8 text ({byte} at "
                                    f"character {exc.start})") from None
    try:
        obj = load_json(text)
    except ValueError as exc:  # malformed, not UTF-8, or a key given twice
        raise PhysicsInputError(f"input is not valid JSON: {exc}") from None
    except RecursionError:
        raise PhysicsInputError("input is not valid JSON here: it is nested too deeply (a shot "
                                "needs only a few levels)") from None
    try:
        out = simulate_json(obj)
    except RecursionError:
        raise PhysicsInputError("input is nested too deeply (a shot needs only a few "
                                "levels)") from None
    json.dump(out, stdout, indent=indent)
    stdout.write("\n")
    return 0
