"""Keglebillard shots given as JSON to the referee, turned into event logs.

``score_json`` (:mod:`cuegym.rules.keglebillard_game`, the command-line referee's ``score``)
takes a shot in one of three forms; two are built here: ``shot``, a physics shot object checked
against the game state and simulated (:func:`_shot_to_log`), and ``hand_log``, a log written by
hand, checked into the arguments of :func:`~cuegym.rules.keglebillard_log.build_log` and built
on the state's table (:func:`_hand_log_args`, :func:`_build_hand_log`). Every error names the
JSON path of the bad value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from cuegym.rules.inputs import (
    END_REASONS,
    MATCH_TOL,
    RefereeInputError,
    req_bool,
    req_choice,
    req_int,
    req_key,
    req_list,
    req_name,
    req_num,
    req_obj,
    req_table_index,
    req_xy,
    show,
)
from cuegym.rules.keglebillard_config import BALL_IDS, N_PINS, PIN_IDS, RED
from cuegym.rules.keglebillard_log import BUILD_KINDS, EventLog, build_log, log_from_json

if TYPE_CHECKING:  # (that module imports this one)
    from cuegym.rules.keglebillard_game import XY, GameState, KeglebillardGame


def _shot_to_log(game: KeglebillardGame, state: GameState, shot: Mapping
                 ) -> tuple[Any, XY | None]:
    """Simulate a physics-JSON shot object from ``state``; returns (log, red placement)."""
    from cuegym.physics import GAME_MODELS, PhysicsInputError, simulate_json

    shot = dict(req_obj(shot, "shot"))
    balls_in = req_obj(shot.get("balls", {}), "shot.balls")
    unknown = sorted(set(balls_in) - set(BALL_IDS))
    if unknown:
        raise RefereeInputError(f"shot.balls names unknown ball(s) {show(unknown)}; known: "
                                f"{list(BALL_IDS)}")
    # K-2: the red is the cue ball, struck once; a record gives a ball's place only (a white
    # given a velocity or spin would be struck too, as the log forms and Kegle.play refuse)
    strikes = shot.get("strike")
    sp = "shot.strike" if isinstance(strikes, Mapping) else "shot.strike[0]"
    strikes = [strikes] if isinstance(strikes, Mapping) else strikes
    if not isinstance(strikes, list) or len(strikes) != 1:
        raise RefereeInputError(f"shot.strike must be one strike of the red (K-2: the red is "
                                f"the cue ball), got {show(shot.get('strike'))}")
    ball = req_obj(strikes[0], sp).get("ball")
    if ball != "red":
        raise RefereeInputError(f"{sp}.ball must be 'red' (K-2: the red is the cue ball), got "
                                f"{show(ball)}")
    given = {}  # ball -> (x, y) the shot names (checked against the state)
    for name, rec in balls_in.items():
        rec = req_obj(rec, f"shot.balls.{name}", ("x", "y"))
        if "x" in rec or "y" in rec:
            given[name] = (req_num(req_key(rec, "x", f"shot.balls.{name}"),
                                   f"shot.balls.{name}.x"),
                           req_num(req_key(rec, "y", f"shot.balls.{name}"),
                                   f"shot.balls.{name}.y"))
    red_xy = None
    if state.ball_in_hand is not None:
        if "red" not in given:
            raise RefereeInputError(f"player {state.to_play} has ball in hand: the shot must "
                                    "place the red (shot.balls.red.x, .y)")
        red_xy = given["red"]
    balls = {}
    for b, name in enumerate(BALL_IDS):
        pos = red_xy if b == RED and red_xy is not None else state.balls[b]
        if pos is None:
            if name in balls_in:
                raise RefereeInputError(f"shot.balls.{name}: the {name} ball is off the table "
                                        "in the state (waiting to be spotted)")
            continue
        rec = dict(balls_in.get(name, {}))
        if name in given and math.dist(given[name], pos) > MATCH_TOL:
            raise RefereeInputError(f"shot.balls.{name} at {given[name]} differs from the "
                                    f"state's {list(pos)}")
        rec["x"], rec["y"] = pos
        balls[name] = rec
    shot["balls"] = balls
    if shot.setdefault("table", state.table) != state.table:
        raise RefereeInputError(f"shot.table {show(shot['table'])} differs from the state's "
                                f"{state.table!r}")
    standing = [PIN_IDS[p] for p, up in enumerate(state.pins) if up]
    if "pins" in shot and not _same_pins(shot["pins"], state.pins):
        raise RefereeInputError(f"shot.pins {show(shot['pins'])} differs from the state's "
                                f"standing pins {standing}")
    shot["pins"] = standing
    # the game's models where the shot names none (a shot object's default is pooltool's rule)
    shot["models"] = {**asdict(GAME_MODELS),
                      **req_obj(shot.get("models", {}), "shot.models")}
    if red_xy is not None and game.placement_error(state, red_xy):
        return None, red_xy
    try:
        out = simulate_json(shot)
    except PhysicsInputError as exc:  # its paths start at "shot[0]"
        msg = str(exc).replace("shot[0]", "shot", 1)
        raise RefereeInputError(msg if msg.startswith("shot") else f"shot: {msg}") from None
    start = {name: (rec["x"], rec["y"]) for name, rec in balls.items()}
    return log_from_json(out, game.table, start=start, pins_up0=state.pins), red_xy


def _same_pins(pins: Any, up: Sequence[bool]) -> bool:
    """Whether a shot's ``pins`` (physics JSON: true for all five, false for none, or a list of
    names in any order) are the standing pins ``up``; booleans strictly (0 is not false)."""
    if isinstance(pins, bool):
        return all(up) if pins else not any(up)
    if not isinstance(pins, list) or not all(isinstance(p, str) for p in pins):
        return False
    return len(set(pins)) == len(pins) and set(pins) == {PIN_IDS[p] for p, u in enumerate(up)
                                                           if u}


#: Keys of ``hand_log`` (the arguments of :func:`build_log`; its table is the state's).
HAND_LOG_KEYS = ("events", "start", "end", "absent", "struck", "pins_up0", "overflow")
#: Event kinds of ``hand_log.events`` (those of :func:`build_log`).
HAND_LOG_KINDS = BUILD_KINDS


def _hand_event(e: Any, ep: str, game: KeglebillardGame, on0: Mapping[str, XY],
                pins: Sequence[bool]) -> tuple[float, str, Any, Any]:
    """One ``hand_log.events[k]`` entry ``[time, kind, a, b]`` checked into a :func:`build_log`
    event (names for balls and pins; an index for a cushion, pocket or motion)."""
    t, kind, a, b = req_list(e, ep, 4)
    t = req_num(t, f"{ep}[0]", lo=0.0)
    kind = req_choice(kind, f"{ep}[1]", HAND_LOG_KINDS)

    def ball(v: Any, where: str) -> str:
        req_name(v, where, BALL_IDS, "ball")
        if v not in on0:
            raise RefereeInputError(f"{where} names {v!r}, which is not on the table at the start "
                                    "(off the table in the state)")
        return v

    def pin(v: Any, where: str) -> str:
        if not pins[req_name(v, where, PIN_IDS, "pin")]:
            raise RefereeInputError(f"{where} names pin {v!r}, which is down at the start "
                                    "(state.pins)")
        return v

    if kind == "pin_pin":
        a, b = pin(a, f"{ep}[2]"), pin(b, f"{ep}[3]")
        if a == b:
            raise RefereeInputError(f"{ep}[3] must be a pin other than {a!r}")
        return t, kind, a, b
    a = ball(a, f"{ep}[2]")
    if kind == "ball_ball":
        b = ball(b, f"{ep}[3]")
        if a == b:
            raise RefereeInputError(f"{ep}[3] must be a ball other than {a!r}")
    elif kind in ("pin", "pin_touch"):
        b = pin(b, f"{ep}[3]")
    else:  # cushion (or jaw), pocket, transition: the index build_log takes, or its JSON name
        b = req_table_index(b, f"{ep}[3]", game.table,
                            {"cushion": "cushion", "pocket": "pocket"}.get(kind, "motion"))
    return t, kind, a, b


def _hand_log_args(obj: Any, game: KeglebillardGame, state: GameState,
                   start: Mapping[str, XY]) -> dict[str, Any]:
    """The ``hand_log`` input checked into :func:`build_log`'s keyword arguments. ``start`` is
    the layout the shot starts from (the state's balls, the red's placement with ball in hand):
    ``hand_log.start``, ``.absent`` and ``.pins_up0`` may repeat it but not contradict it."""
    path = "hand_log"
    obj = req_obj(obj, path, HAND_LOG_KEYS, ("events",))
    for name, xy in req_obj(obj.get("start", {}), f"{path}.start").items():
        sp = f"{path}.start.{name}"
        req_name(name, sp, BALL_IDS, "ball")
        xy = req_xy(xy, sp)
        if name not in start:
            raise RefereeInputError(f"{sp}: the {name} ball is off the table in the state")
        if math.dist(xy, start[name]) > MATCH_TOL:
            where = "the placement 'place'" if name == "red" and state.ball_in_hand else \
                "the state's"
            raise RefereeInputError(f"{sp} at {list(xy)} differs from {where} "
                                    f"{list(start[name])}")
    absent = [b for b in BALL_IDS if b not in start]
    if "absent" in obj:
        given = [BALL_IDS[req_name(b, f"{path}.absent[{k}]", BALL_IDS, "ball")]
                 for k, b in enumerate(req_list(obj["absent"], f"{path}.absent"))]
        if sorted(set(given)) != sorted(absent):
            raise RefereeInputError(f"{path}.absent = {show(obj['absent'])} differs from the "
                                    f"balls off the table in the state {absent}")
    if "pins_up0" in obj:
        given = [req_bool(p, f"{path}.pins_up0[{k}]") for k, p in
                 enumerate(req_list(obj["pins_up0"], f"{path}.pins_up0", N_PINS))]
        if given != list(state.pins):
            raise RefereeInputError(f"{path}.pins_up0 = {given} differs from the state's "
                                    f"standing pins {list(state.pins)}")
    end = {}
    for name, xy in req_obj(obj.get("end", {}), f"{path}.end").items():
        req_name(name, f"{path}.end.{name}", BALL_IDS, "ball")
        if name not in start:
            raise RefereeInputError(f"{path}.end.{name}: the {name} ball is not on the table "
                                    "at the start (off the table in the state)")
        end[name] = req_xy(xy, f"{path}.end.{name}")
    struck = []
    for k, b in enumerate(req_list(obj.get("struck", ["red"]), f"{path}.struck")):
        req_name(b, f"{path}.struck[{k}]", BALL_IDS, "ball")
        if b not in start:
            raise RefereeInputError(f"{path}.struck[{k}] names {b!r}, which is not on the table "
                                    "at the start")
        if b != "red":
            raise RefereeInputError(f"{path}.struck[{k}] names {b!r}: the cue ball is always "
                                    "the red (K-2)")
        struck.append(b)
    events = [_hand_event(e, f"{path}.events[{k}]", game, start, state.pins)
              for k, e in enumerate(req_list(obj["events"], f"{path}.events"))]
    return {"events": events, "start": dict(start), "end": end, "absent": absent,
            "struck": struck, "pins_up0": list(state.pins),
            "overflow": req_int(obj.get("overflow", 0), f"{path}.overflow", 0,
                                len(END_REASONS) - 1)}


def _build_hand_log(args: Mapping[str, Any], game: KeglebillardGame) -> EventLog:
    """:func:`build_log` of checked ``hand_log`` arguments (:func:`_hand_log_args`) on the game's
    table; its errors name the ``hand_log`` path (``'hand_log.end.white' at ... overlaps
    standing pin 2 (pin2)``)."""
    try:
        return build_log(table=game.table, **args)
    except ValueError as exc:
        msg = str(exc)
        for old, new in (("build_log end.", "hand_log.end."), ("build_log start.",
                         "hand_log.start."), ("build_log events", "hand_log.events"),
                         ("build_log ", "hand_log.")):
            msg = msg.replace(old, new)
        raise RefereeInputError(msg) from None
