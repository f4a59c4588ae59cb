"""Golfbillard's JSON entry: the ``score`` CLI (:func:`score_json`), physics-output logs
(:func:`log_from_json`) and logs written by hand (:func:`hand_log_json`, its events
:data:`HAND_LOG_EVENTS`), read into the per-table flow of :mod:`cuegym.rules.golfbillard_game`.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from cuegym.rules.golfbillard import (
    check_choices,
    check_player,
)
from cuegym.rules.inputs import (
    MATCH_TOL,
    RefereeInputError,
    check_in_pocket,
    check_layout,
    check_overflow_codes,
    read_sim_output,
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
)

from .golf_arrays import N_BALLS, N_SIDES, SIDE_OF
from .golf_config import (
    GolfGeometry,
    GolfRules,
    ball_index,
    golf_geometry,
    load_golf_rules,
)
from .golf_logs import LogBuilder
from .golf_state import GolfState
from .golf_views import (
    parse_injected,
)
from .golfbillard_game import (
    new_match,
    play_strokes,
    simulate_strokes,
)

__all__ = ["HAND_LOG_EVENTS", "hand_log_json", "log_from_json", "score_json"]


def _strike_arrays(state: GolfState, obj: Any, geo: GolfGeometry, where: str
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(cue_ball (1, 2), cue (1, 2, 5)) from a JSON strike object or list of them (the opening
    needs one per side). Values are checked as the physics checks a strike (ranges, a ball on
    the table)."""
    from cuegym.physics.checks import STRIKE_RANGES, PhysicsInputError, check_strikes

    if isinstance(obj, dict):
        strikes, paths = [obj], [where]
    else:
        strikes = req_list(obj, where, min_len=1, max_len=2)
        paths = [f"{where}[{k}]" for k in range(len(strikes))]
    cb = np.full((1, 2), -1, np.int64)
    cue = np.zeros((1, 2, 5))
    for s, sp in zip(strikes, paths, strict=True):
        req_obj(s, sp, ("ball", "V0", "phi", "theta", "a", "b"), ("ball", "V0", "phi"))
    if state.phase == "opening":
        if len(strikes) != 2:
            raise RefereeInputError(f"{where}: the opening (G-3) needs two strikes, one per "
                                    f"side, got {len(strikes)}")
        sides = [SIDE_OF[req_name(s["ball"], f"{sp}.ball", geo.ball_ids, "ball")]
                 for s, sp in zip(strikes, paths, strict=True)]
        if sorted(sides) != [0, 1]:
            raise RefereeInputError(f"{where}: the opening (G-3) strikes one ball of each side, "
                                    f"got {[s['ball'] for s in strikes]}")
        order = np.argsort(sides)
        strikes, paths = [strikes[k] for k in order], [paths[k] for k in order]
    elif len(strikes) != 1:
        raise RefereeInputError(f"{where}: a stroke has one strike, got {len(strikes)}")
    for k, (s, sp) in enumerate(zip(strikes, paths, strict=True)):
        cb[0, k] = req_name(s["ball"], f"{sp}.ball", geo.ball_ids, "ball")
        if not state.on_table[cb[0, k]]:
            raise RefereeInputError(f"{sp}.ball names {s['ball']!r}, which is not on the table")
        # the physics' ranges, named by their JSON paths
        cue[0, k] = [req_num(s.get(name, 0.0), f"{sp}.{name}", *STRIKE_RANGES.get(name, ()))
                     for name in ("V0", "phi", "theta", "a", "b")]
        with np.errstate(over="ignore"):  # huge offsets square to inf, refused below
            tip = cue[0, k, 3] ** 2 + cue[0, k, 4] ** 2
        if tip > 1.0 + 1e-12:
            raise RefereeInputError(f"{sp}.a, {sp}.b: the cue tip must hit the ball, a^2 + b^2 "
                                    f"<= 1, got {tip:.4g}")
    try:
        check_strikes(cb, cue, state.on_table[None])
    except PhysicsInputError as exc:
        raise RefereeInputError(f"{where}: {exc}".replace("table 0: ", "")) from None
    return cb, cue


def _kernel_params(prm: Any, geo: GolfGeometry) -> np.ndarray:
    """The physics kernels' parameter vector of the golfbillard table (its motion laws)."""
    from cuegym.physics.engine import pack_params

    t = geo.table
    return pack_params(prm, t.cushion_height, t.pin_radius, t.pin_height)


def _strike_velocity(cue_row: np.ndarray, prm: Any, geo: GolfGeometry) -> tuple[float, float]:
    """The cue ball's velocity [m/s] just after the strike ``[V0, phi, theta, a, b]``, from the
    physics' own strike model (:func:`cuegym.physics.resolve.strike`, no squirt, the default
    ``Models``): V = 2 V0 / (1 + m/M + 5/2 (a^2 + b^2)), its level part V cos(theta) along phi."""
    from cuegym.physics.resolve import strike

    V0, phi, theta, a, bb = (float(x) for x in cue_row)
    vx, vy, *_ = strike(V0, math.radians(phi), math.radians(theta), a, bb, 0.0,
                        _kernel_params(prm, geo))
    return vx, vy


def _start_from_strikes(state: GolfState, cue_ball: np.ndarray, cue: np.ndarray, prm: Any,
                        geo: GolfGeometry) -> tuple[np.ndarray, np.ndarray]:
    """(rvw0 (1, N_BALLS, 3, 3), motion0 (1, N_BALLS)) right after the strike, for a log without
    the balls' states: the state's layout, each struck ball with its :func:`_strike_velocity`."""
    from cuegym.physics.constants import POCKETED, STATIONARY

    on = state.on_table
    rvw0 = np.zeros((1, N_BALLS, 3, 3))
    rvw0[0, :, 0, :2] = np.where(on[:, None], state.xy, 0.0)
    for k in range(cue_ball.shape[1]):
        b = int(cue_ball[0, k])
        if b >= 0:
            rvw0[0, b, 1, :2] = _strike_velocity(cue[0, k], prm, geo)
    return rvw0, np.where(on, STATIONARY, POCKETED)[None].astype(np.int32)


def _start_from_states(states: tuple, on: np.ndarray, cue_ball: np.ndarray, geo: GolfGeometry,
                       path: str) -> tuple[np.ndarray, np.ndarray]:
    """(rvw0, motion0) as :func:`_start_from_strikes` gives them, from a log's own ``start``
    (``SimOutput.states``); a ball the stroke does not strike must start at rest."""
    from cuegym.physics.constants import MOTION_NAMES, STATIONARY

    rvw0, motion0 = states[0], states[1]
    struck = {int(b) for b in cue_ball[0] if b >= 0}
    for b in np.flatnonzero(on & (motion0 != STATIONARY)):
        if int(b) not in struck:
            raise RefereeInputError(
                f"{path}.start.{geo.ball_ids[b]} is {MOTION_NAMES[motion0[b]]}, but the stroke "
                f"strikes only {[geo.ball_ids[k] for k in sorted(struck)]} (every other ball "
                "starts at rest)")
    return rvw0[None].copy(), motion0[None].astype(np.int32)


def log_from_json(out: Any, state: GolfState, cue_ball: np.ndarray, cue: np.ndarray,
                  geo: GolfGeometry | None = None, path: str = "log") -> Any:
    """A one-table log from an output object of ``cuegym.physics.simulate_json``.

    An output of a shot simulated with ``event_states`` carries the balls' states right after
    the strike and after every event: the log then has them, with the game's motion laws, and
    the zone questions about paths (G-3, G-14, G-21) are answered on the exact paths, as for a
    ``shot`` simulated with the game's parameters. Without them the JSON output has no
    positions or velocities at events: the cue balls' initial velocity is rebuilt from the
    strike by the physics' strike model (V = 2 V0 / (1 + m/M + 5/2 (a^2 + b^2)), its level
    part V cos(theta) along phi), and those questions see each ball moving straight from its
    start to its end.

    Raises:
        RefereeInputError (a ValueError): one line naming the JSON path of the bad value; the
            checks of :func:`cuegym.rules.inputs.read_sim_output` (``final`` lists every ball
            on the table in ``state``, legal final positions, goal events, ordered finite times,
            cushion, goal and cap indices in range).
    """

    from cuegym.configs import load_params
    from cuegym.physics.constants import POCKETED, STATIONARY

    geo = geo or golf_geometry()
    prm = load_params("golfbillard")
    on = state.on_table
    so = read_sim_output(out, path, geo.table, prm, geo.ball_ids, on, xy0=state.xy)
    K = max(len(so.ev_type), 1)
    n = len(so.ev_type)
    ev = {"ev_type": np.zeros((1, K), np.int8), "ev_time": np.zeros((1, K)),
          "ev_i": np.zeros((1, K), np.int32), "ev_j": np.zeros((1, K), np.int32),
          "ev_state": np.full((1, K, 2, 7), np.nan), "ev_motion": np.zeros((1, K, 2), np.int8)}
    ev["ev_type"][0, :n], ev["ev_time"][0, :n] = so.ev_type, so.ev_time
    ev["ev_i"][0, :n], ev["ev_j"][0, :n] = so.ev_i, so.ev_j
    if so.states is None:  # no motion laws: straight paths between the known positions
        rvw0, motion0 = _start_from_strikes(state, cue_ball, cue, prm, geo)
        kernel_prm = None
    else:  # the exact paths: the states after every event and the game's motion laws
        rvw0, motion0 = _start_from_states(so.states, on, cue_ball, geo, path)
        ev["ev_state"][0, :n], ev["ev_motion"][0, :n] = so.states[2], so.states[3]
        kernel_prm = _kernel_params(prm, geo)
    rvw = np.zeros((1, N_BALLS, 3, 3))
    dropped = so.pocket >= 0  # a dropped ball keeps its start position in rvw
    rvw[0, :, 0, :2] = np.where(on[:, None], state.xy, 0.0)
    rvw[0, on & ~dropped, 0, :2] = so.final_xy[on & ~dropped]
    motion = np.where(on & ~dropped, STATIONARY, POCKETED)[None].astype(np.int32)
    return SimpleNamespace(rvw=rvw, rvw0=rvw0, motion=motion, motion0=motion0,
                           pocket=so.pocket[None].astype(np.int32),
                           n_events=np.array([n], np.int32), t_end=np.array([so.t_end]),
                           overflow=np.array([so.end_code], np.int8), prm=kernel_prm, **ev)


#: ``hand_log.events[k]`` by ``type`` (a :class:`~cuegym.rules.golf_logs.LogBuilder` method):
#: (allowed keys, required keys). ``t`` [s], ``at``/``at_a``/``at_b`` ball centres [m], ``v``
#: velocities [m/s]; ``cushion`` 0..3 or ``cushionN``, ``cap`` 0..11 or ``postN``, ``goal`` 0, 1
#: or its name, ``motion`` a motion name or 0..3 (default ``rolling``).
HAND_LOG_EVENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "strike": (("type", "ball", "v"), ("ball", "v")),
    "ball_ball": (("type", "t", "a", "b", "at_a", "at_b"), ("t", "a", "b", "at_a")),
    "cushion": (("type", "t", "ball", "cushion", "at"), ("t", "ball", "cushion", "at")),
    "post": (("type", "t", "ball", "cap", "at"), ("t", "ball", "cap", "at")),
    "drop": (("type", "t", "ball", "goal", "at"), ("t", "ball", "goal")),
    "turn": (("type", "t", "ball", "at", "v", "motion"), ("t", "ball", "at", "v")),
    "rest": (("type", "t", "ball", "at"), ("t", "ball", "at")),
}


def _hand_event(e: Any, ep: str, state: GolfState, geo: GolfGeometry
                ) -> tuple[str, dict[str, Any]]:
    """One ``hand_log.events[k]`` object checked: its type and its fields (balls as indices,
    points as (x, y), a cushion, cap, goal or motion as the index the log uses)."""
    typ = req_choice(req_key(req_obj(e, ep), "type", ep), f"{ep}.type", tuple(HAND_LOG_EVENTS))
    req_obj(e, ep, *HAND_LOG_EVENTS[typ])
    f: dict[str, Any] = {}
    for key in ("ball", "a", "b"):
        if key in e:
            f[key] = req_name(e[key], f"{ep}.{key}", geo.ball_ids, "ball")
            if not state.on_table[f[key]]:
                raise RefereeInputError(f"{ep}.{key} names {e[key]!r}, which is not on the "
                                        "table in the state")
    if typ == "ball_ball" and f["a"] == f["b"]:
        raise RefereeInputError(f"{ep}.b must be a ball other than {e['a']!r}")
    for key in ("at", "at_a", "at_b", "v"):
        if key in e:
            f[key] = req_xy(e[key], f"{ep}.{key}")
    if typ == "strike":
        return typ, f
    f["t"] = req_num(e["t"], f"{ep}.t", lo=0.0)
    if typ == "cushion":
        f["cushion"] = req_table_index(e["cushion"], f"{ep}.cushion", geo.table, "cushion")
    elif typ == "post":
        f["cap"] = req_table_index(e["cap"], f"{ep}.cap", geo.table, "post")
    elif typ == "turn":
        f["motion"] = req_table_index(e.get("motion", "rolling"), f"{ep}.motion", geo.table,
                                      "motion")
    elif typ == "drop":
        g = f["goal"] = req_table_index(e["goal"], f"{ep}.goal", geo.table, "pocket")
        if "at" in f:
            check_in_pocket(geo.table, g, f["at"][0], f["at"][1], f"{ep}.at", "goal")
    return typ, f


def _replay(lb: LogBuilder, t: float, typ: str, f: Mapping[str, Any]) -> None:
    """One checked ``hand_log`` event (:func:`_hand_event`) into the builder."""
    if typ == "ball_ball":
        lb.ball_ball(t, f["a"], f["b"], f["at_a"], f.get("at_b"))
    elif typ == "cushion":
        lb.cushion(t, f["ball"], f["cushion"], f["at"])
    elif typ == "post":
        lb.post(t, f["ball"], f["cap"], f["at"])
    elif typ == "drop":
        lb.drop(t, f["ball"], f["goal"], f.get("at"))
    elif typ == "turn":
        lb.turn(t, f["ball"], f["at"], f["v"], f["motion"])
    else:
        lb.rest(f["ball"], f["at"], t)


def hand_log_json(obj: Any, state: GolfState, cue_ball: np.ndarray, cue: np.ndarray,
                  geo: GolfGeometry | None = None, path: str = "hand_log") -> Any:
    """A one-table log written by hand, the JSON form of :class:`LogBuilder`:
    ``{"events": [{"type": "post", "t": 0.2, "ball": "w1", "cap": 5, "at": [x, y]}, ..]}``
    (types and keys: :data:`HAND_LOG_EVENTS`). The start is the state's layout. The events are
    given to the builder in time order (as listed at equal times), so a ball rests where its
    latest event puts it; a ball never named stays where the state has it. A struck ball
    (``cue_ball``) without a ``strike`` event leaves with the velocity rebuilt from its strike
    ``cue``, as for a physics-output ``log`` (:func:`log_from_json`).

    Raises:
        RefereeInputError (a ValueError): one line naming the JSON path of the bad value: an
            unknown type or key, a missing key, a ball not on the table in the state (or named
            after it dropped), a ``strike`` of a ball the stroke does not strike, an index the
            table lacks, a drop centre outside its goal, or an illegal rest layout (the state
            check: on the cloth, clear of the cushions, caps, goals and the other balls).
    """
    from cuegym.configs import load_params

    geo = geo or golf_geometry()
    prm = load_params("golfbillard")
    obj = req_obj(obj, path, ("events",), ("events",))
    on = state.on_table
    ids = geo.ball_ids
    struck = [int(b) for b in np.asarray(cue_ball)[0] if b >= 0]
    strikes: dict[int, tuple[float, float]] = {}
    where: dict[int, int] = {}  # ball -> index of its strike event
    rows = []  # (t, k, type, checked fields)
    for k, e in enumerate(req_list(obj["events"], f"{path}.events")):
        ep = f"{path}.events[{k}]"
        typ, f = _hand_event(e, ep, state, geo)
        if typ == "strike":
            b = f["ball"]
            if b not in struck:
                raise RefereeInputError(f"{ep}.ball names {e['ball']!r}, but the stroke strikes "
                                        f"{[ids[x] for x in struck]} (strike.ball)")
            if b in strikes:
                raise RefereeInputError(f"{ep} strikes {e['ball']!r} a second time (first at "
                                        f"{path}.events[{where[b]}])")
            strikes[b], where[b] = f["v"], k
        else:
            rows.append((f["t"], k, typ, f))
    rows.sort(key=lambda r: r[:2])
    lb = LogBuilder(state.xy, geo)
    for slot, b in enumerate(np.asarray(cue_ball)[0]):
        if b >= 0:
            lb.strike(int(b), strikes.get(int(b)) or _strike_velocity(cue[0, slot], prm, geo))
    rest_path = {int(b): f"state.balls.{ids[b]}" for b in np.flatnonzero(on)}
    for t, k, typ, f in rows:
        ep = f"{path}.events[{k}]"
        try:
            _replay(lb, t, typ, f)
        except ValueError as exc:  # LogBuilder: an event of a ball after it dropped
            raise RefereeInputError(f"{ep}: {exc}") from None
        if typ == "ball_ball":
            rest_path[f["a"]] = f"{ep}.at_a"
            if "at_b" in f:
                rest_path[f["b"]] = f"{ep}.at_b"
        else:
            rest_path[f["ball"]] = f"{ep}.at"
    log = lb.build()
    final = log.rvw[0, :, 0, :2]
    check_layout(geo.table, prm, {p: final[b] for b, p in rest_path.items()
                                  if b not in lb.drop_t})
    return log


def _simulate_shot(shot: Any, state: GolfState, geo: GolfGeometry
                   ) -> tuple[np.ndarray, np.ndarray, Any]:
    """The ``score`` input's ``shot`` (a physics shot object played from ``state``: its balls, if
    given, must be the state's) checked and simulated: (cue_ball, cue, the physics result)."""
    from cuegym.configs import load_params
    from cuegym.physics.api import GAME_MODELS
    from cuegym.physics.checks import PhysicsInputError

    shot = req_obj(shot, "shot", ("table", "params", "models", "balls", "strike", "max_events",
                                  "t_max"), ("strike",))
    req_choice(shot.get("table", "golfbillard"), "shot.table", ("golfbillard",))
    for name, rec in req_obj(shot.get("balls", {}), "shot.balls").items():
        bp = f"shot.balls.{name}"
        b = req_name(name, bp, geo.ball_ids, "ball")
        rec = req_obj(rec, bp, ("x", "y"), ("x", "y"))
        if not state.on_table[b]:
            raise RefereeInputError(f"{bp}: that ball is scored in the state")
        xy = (req_num(rec["x"], f"{bp}.x"), req_num(rec["y"], f"{bp}.y"))
        if math.dist(xy, state.xy[b]) > MATCH_TOL:
            raise RefereeInputError(f"{bp} at {xy} differs from the state's "
                                    f"{state.xy[b].tolist()}")
    cb, cue = _strike_arrays(state, shot["strike"], geo, "shot.strike")
    params_in = req_obj(shot.get("params", {}), "shot.params")
    try:
        params = load_params("golfbillard", **{k: req_num(v, f"shot.params.{k}")
                                               for k, v in params_in.items()})
    except ValueError as exc:
        raise RefereeInputError(f"shot.params: {exc}") from None
    try:
        models = dataclasses.replace(GAME_MODELS, **req_obj(  # the game's, as given
            shot.get("models", {}), "shot.models", ("ball_ball", "cushion", "squirt",
                                                    "touching")))
    except (TypeError, ValueError) as exc:
        raise RefereeInputError(f"shot.models: {exc}") from None
    max_events = req_int(shot.get("max_events", 1000), "shot.max_events", 1)
    t_max = req_num(shot.get("t_max", 60.0), "shot.t_max", lo=0.0)
    if t_max <= 0.0:
        raise RefereeInputError(f"shot.t_max must be > 0, got {t_max!r}")
    try:
        res = simulate_strokes([state], cb, cue, geo=geo, params=params, models=models,
                               max_events=max_events, t_max=t_max)
    except PhysicsInputError as exc:  # it names its own arguments (t_max, params.u_s)
        msg = str(exc)
        raise RefereeInputError(f"shot.{msg}" if msg.startswith(("t_max", "max_events",
                                                                  "params.", "models."))
                                else f"shot: {msg}") from None
    return cb, cue, res


def score_json(payload: Any) -> dict:
    """The ``score`` CLI: see :func:`cuegym.rules.golfbillard.score_cli`. Besides a ``shot``
    or a ``log``, the stroke may be a ``hand_log`` (:func:`hand_log_json`, a log written by hand
    as with :class:`LogBuilder`), given with its ``strike`` like a ``log``; exactly one of the
    three.

    Raises:
        RefereeInputError (a ValueError): one line naming the JSON path of the bad value
            (``state.balls.w1``, ``log.final.r2``, ``strike.V0``, ``inject[0].ball``);
            ConfigError (a ValueError) for a bad rule option.
    """

    geo = golf_geometry()
    payload = req_obj(payload, "input", ("state", "shot", "log", "hand_log", "strike", "rules",
                                         "inject", "injected", "player", "choices",
                                         "allow_overflow"))
    forms = [k for k in ("shot", "log", "hand_log") if k in payload]
    if len(forms) != 1:
        raise RefereeInputError("input needs exactly one of 'shot' or 'log' or 'hand_log', got "
                                f"{forms or 'none'}")
    if "inject" in payload and "injected" in payload:
        raise RefereeInputError("input has both 'inject' and 'injected'; give one")
    if "shot" in payload and "strike" in payload:  # it would be ignored for the shot's own
        raise RefereeInputError("'strike' goes with a 'log' or 'hand_log'; a 'shot' holds its "
                                "own (shot.strike): give one of them")
    rules = load_golf_rules(**req_obj(payload.get("rules", {}), "rules",
                                      [f.name for f in dataclasses.fields(GolfRules)]))
    state = (GolfState.from_json(payload["state"], geo, rules)
             if payload.get("state") is not None else new_match(rules, geo=geo))
    if state.phase == "over":
        raise RefereeInputError("state.phase is 'over': the match is over, there is no stroke "
                                "to score")
    ikey = "inject" if "inject" in payload else "injected"
    inject = parse_injected(payload.get(ikey), geo, 0.0, ikey)  # validated here, kept as given
    for k, e in enumerate(inject):
        if "ball" in e and not state.on_table[e["ball"]]:
            raise RefereeInputError(f"{ikey}[{k}].ball names {payload[ikey][k]['ball']!r}, which "
                                    "is not on the table")
    inject = payload.get(ikey) or []
    choices = req_obj(payload.get("choices", {}), "choices", ("spots", "pick"))
    if "spots" in choices:
        for k, v in enumerate(req_list(choices["spots"], "choices.spots")):
            req_int(v, f"choices.spots[{k}]", 1, 5)
    if "pick" in choices:  # a ball id or index
        ball_index(choices["pick"], geo, "choices.pick")
    check_choices(dict(choices), rules, "choices", json=True)
    # named by its JSON key here (play_strokes would name its 'players[0]' argument)
    player = payload.get("player")
    if state.phase == "opening" and player is not None:
        player = [check_player(req_choice(p, f"player[{k}]", (0, 1)), rules, f"player[{k}]")
                  for k, p in enumerate(req_list(player, "player", N_SIDES))]
    else:
        player = check_player(None if player is None else req_choice(player, "player", (0, 1)),
                              rules, "player")
    if "shot" in payload:
        cb, cue, res = _simulate_shot(payload["shot"], state, geo)
    else:
        form = forms[0]
        if "strike" not in payload:
            raise RefereeInputError(f"with a '{form}', give the shot's 'strike' (the cue ball "
                                    "and V0, phi, theta, a, b) too")
        cb, cue = _strike_arrays(state, payload["strike"], geo, "strike")
        res = (log_from_json(payload["log"], state, cb, cue, geo) if form == "log" else
               hand_log_json(payload["hand_log"], state, cb, cue, geo))
    allow = req_bool(payload.get("allow_overflow", False), "allow_overflow")
    check_overflow_codes(getattr(res, "overflow", 0), allow, None, "every ball",
                         forms[0])  # named by the input's key, not as "table 0"
    try:
        outs, new = play_strokes([state], res, cb, cue, injected=[inject], players=[player],
                                 choices=[choices], rules=rules, geo=geo, allow_overflow=allow)
    except ValueError as exc:  # the referee names its one table "table 0"
        raise RefereeInputError(_input_path(str(exc), inject, ikey)) from None
    return {"outcome": outs[0].to_json(geo), "state": new[0].to_json(geo)}


def _input_path(msg: str, inject: Sequence[Mapping], ikey: str) -> str:
    """A referee error about the input's one table ("table 0: ...") as a JSON-path error of
    the ``score`` input where the value it names can be found; otherwise ``msg`` as it is."""
    if not msg.startswith("table 0: "):
        return msg
    text = msg[len("table 0: "):]

    def event(pred: Callable[[Mapping], bool]) -> int | None:
        return next((k for k, e in enumerate(inject) if pred(e)), None)

    if m := re.match(r"injected\[(\d+)\]\.(.*)", text):
        return f"{ikey}[{m[1]}].{m[2]}"
    if m := re.match(r"restore: (\w+)(.*)|injected restore names ball (\w+)", text):
        ball = m[1] or m[3]
        k = event(lambda e: ball in (e.get("restore") or {}))
        if k is not None:
            return (f"{ikey}[{k}].restore.{ball}{m[2]}" if m[1] else
                    f"{ikey}[{k}].restore.{ball}: that ball is not on the table")
    if m := re.match(r"behavioural foul (\w+) needs", text):
        k = event(lambda e: e.get("kind") == m[1] and "ball" not in e)
        if k is not None:
            return f"{ikey}[{k}].ball is missing: {text}"
    if m := re.search(r"\(injected event (\d+)\)$", text):
        return f"{ikey}[{m[1]}].side: {text}"
    if text.startswith(("spot_policy", "spot choice")):
        return f"choices.spots: {text}"
    if text.startswith(("pick_policy", "picked ball")):
        return f"choices.pick: {text}"
    return msg

