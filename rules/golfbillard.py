"""Golfbillard referee: per-table views and entry points of the compiled referee (G-1 .. G-31).

specs/golfbillard.md is the rule book (docs/rules_golfbillard.md in this repository); rule ids
(G-..) in comments point into it. The referee itself is compiled: :mod:`cuegym.rules.golf_stroke`
(a play stroke: goals, fouls in G-19a order and their consequences, penalty spots, defence duty),
:mod:`cuegym.rules.golf_flow` (opening, turns, duos, kader play, no progress, matches), over the
arrays of :mod:`cuegym.rules.golf_arrays` and the zone polygons of
:mod:`cuegym.rules.golf_paths`. The batched game layer is :mod:`cuegym.games.golf`.

This module is the per-table referee: :func:`score_strokes` (T strokes through the compiled
referee, returned as objects) and the :class:`GolfOutcome` of a stroke with its :class:`Foul`
list, the checks of its inputs (event log, injected events, the opponent's choices, duo
partners), the stroke-geometry tests and penalty spots the referee applies, and the CLI hooks.
It also re-exports, as the one public entry point, the rule-set options and static game facts
(:class:`GolfRules`, :class:`GolfGeometry`: :mod:`cuegym.rules.golf_config`), one table's
:class:`GolfState` and its JSON (:mod:`cuegym.rules.golf_state`) and hand-written event logs
(:class:`LogBuilder`: :mod:`cuegym.rules.golf_logs`). Game flow and the JSON CLI:
:mod:`cuegym.rules.golfbillard_game`.

Glossary (spec): *goal* a hole in the middle of each short cushion, goal g = pocket index g: goal 0
at +x is side 0's attack goal and side 1's defence goal, goal 1 at -x the reverse. *Cap* a fixed
post (``table.circles``). *Turn* (Aufnahme) a side's visit. *Cue ball* the own ball struck.
*Kader* one of 15 zones used in the end phase (G-20..G-26). Balls ``w1..w5`` (index 0..4) are side
0, ``r1..r5`` (5..9) side 1.

The event log is the ``SimResult`` layout of docs/physics_api.md (any object with those fields
works, e.g. :class:`LogBuilder` for hand-written strokes). Ball paths come from the physics motion
laws when the log carries ``prm``: a SimResult, or a physics JSON log with the balls' states
(``event_states``, :func:`~cuegym.rules.golf_json.log_from_json`); hand-written logs and
JSON logs without the states are read as straight lines between the logged event positions
(exact for hand-written logs).

Injected events (a list per table; ``ball`` is an index or id, ``time`` in s; G-6a, G-16..G-19):

- ``{"type": "off_table", "ball": b, "time": t}`` ball left the table (G-16, G-17)
- ``{"type": "rests_on_rail", "ball": b}`` ball left on a cushion, goal cap or cover (G-16, G-17)
- ``{"type": "rail_return", "ball": b}`` rode over the wooden rail and came back: nothing (G-17b)
- ``{"type": "jam", "ball": b, "goal": g}`` jammed between goal g's caps (G-19); or
  ``{"type": "jam", "ball": b, "where": "cap_cushion"}`` between a cap and the short cushion: freed
- ``{"type": "fall_after_rest", "ball": b}`` fell after coming to rest: no goal, back on the rim
  (a drop of it in the log is undone; a log whose drop follows the ball's rest is read alike)
- ``{"type": "foul", "kind": <BEHAVIOURAL key>, "ball": b, "time": t}`` (G-18, G-25; ``ball``
  is the touched ball where the kind names one). The deflect kinds (:data:`RESTORE_KINDS`) may
  add ``"restore": {ball: [x, y]}``: the balls the foul displaced and where they lay before it;
  only those go back (RF), every other ball stays where the stroke left it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cuegym.configs import CIRCLE_POST
from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_POCKET,
    EV_BALL_POST,
    EV_TRANSITION,
    ROLLING,
    STATIONARY,
)
from cuegym.rules.inputs import RefereeInputError, check_overflow_codes, req_int, req_xy

from .golf_arrays import BALLS_PER_SIDE, N_BALLS, N_SIDES, SIDE_OF
from .golf_codes import (
    BEHAVIOURAL,
    CONSEQUENCES,
    FOUL_ORDER,
    INJECTED_TYPES,
    PICK_POLICIES,
    RESTORE_KINDS,
    RULE,
    SPOT_POLICIES,
)
from .golf_config import RULES_PATH as RULES_PATH
from .golf_config import (
    GolfGeometry,
    GolfRules,
    ball_index,
    golf_geometry,
    load_golf_rules,
)
from .golf_config import attack_goal as attack_goal
from .golf_config import defence_goal as defence_goal
from .golf_logs import LogBuilder, stack_logs
from .golf_state import PHASES as PHASES
from .golf_state import (
    GolfState,
    check_fields,
    check_state,
    defence_duty,
    new_game_state,
    validate_state,
)

__all__ = ["BALLS_PER_SIDE", "BEHAVIOURAL", "CONSEQUENCES", "FOUL_ORDER", "INJECTED_TYPES",
           "N_BALLS", "N_SIDES", "PICK_POLICIES", "RESTORE_KINDS", "SIDE_OF", "SPOT_POLICIES",
           "Foul", "GolfGeometry", "GolfOutcome", "GolfRules", "GolfState", "LogBuilder",
           "ball_index", "check_choices", "check_cue", "check_fields", "check_log",
           "check_overflow", "check_player", "check_state", "choose_spot",
           "defence_duty", "direct_goal_attempt", "frozen_contacts", "golf_geometry",
           "load_golf_rules", "new_game_state", "score_stroke", "score_strokes", "stack_logs",
           "toward_goal_cap", "validate_state"]


# ---------------------------------------------------------------------------------------------
# Outcome
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Foul:
    """One foul of a stroke.

    Attributes:
        rule: rule id (``G-12``). time: when the event that makes it happened [s] (G-19a).
        balls: balls it names (the G-8 ball, the G-15 / G-16 balls, the touched ball, ...).
        kind: the G-18 kind, or a short tag. detail: text for people.
        restore: G-18 deflect kinds (RF): ``(ball, x, y)`` of each ball the foul displaced,
            put back there; every other ball stays where the stroke left it.
    """

    rule: str
    time: float
    balls: tuple[int, ...] = ()
    kind: str = ""
    detail: str = ""
    restore: tuple[tuple[int, float, float], ...] = ()

    def sort_key(self) -> tuple[float, int]:
        return (self.time, RULE[self.rule])


@dataclass
class GolfOutcome:
    """What one stroke did (one table).

    Attributes:
        shooter: side that struck. cue_ball: ball struck (index).
        kader: the stroke was played under kader rules (G-20).
        fouls: every foul detected, G-19a order. foul: the penalised one (the first) or None.
        consequences: letters applied (LT, RA, RF, CS, SPOT, GOAL, PICK).
        drops: (ball, goal, time) of every ball that dropped in the stroke (physics + jams).
        scored: (2,) balls scored for each side by this stroke, after the consequences.
        scored_balls: balls removed from the table by this stroke and credited to their side.
        valid_own: shooter's own balls validly into the attack goal (G-6).
        replaced: balls put back where they lay (RA).
        spotted: (ball, spot) for balls put on penalty spots; spot 0 is the free point nearest
            spot 3 (G-30).
        into_goal: balls put into their goal (G-17, G-18 deflect).
        turn_kept: the shooter plays again (G-1, G-9).
        duty_met: G-14 duty met by the end of this stroke (or no duty).
        left_kader: G-21 some ball left its kader (None outside kader play or exempt, G-22).
        game_over: the referee ended the game with this stroke (G-4, G-17a). winner: 0 / 1, -1
            while the game goes on. A G-5 no-progress draw is not the referee's: the game flow
            decides it when the turn ends, so it shows in the next state (``winner`` 2,
            ``"draw"`` in JSON), not here.
        xy: (10, 2) positions after the stroke and its consequences; NaN = scored.
        on_spot: (10,) penalty spot each ball now lies on (0 none).
        fouled_spots: (2, 5) G-26 bookkeeping after the stroke.
        notes: injected events that changed nothing (G-6a, G-17b, freed jams), and a warning
            when the simulation hit a limit.
        overflow: the physics ``overflow`` code of the stroke (0 came to rest, 1 max_events,
            2 t_max); balls still moving then are scored where the log ended.
    """

    shooter: int
    cue_ball: int
    kader: bool
    fouls: list[Foul]
    foul: Foul | None
    consequences: frozenset[str]
    drops: list[tuple[int, int, float]]
    scored: np.ndarray
    scored_balls: list[int]
    valid_own: int
    replaced: list[int]
    spotted: list[tuple[int, int]]
    into_goal: list[int]
    turn_kept: bool
    duty_met: bool
    left_kader: bool | None
    game_over: bool
    winner: int
    xy: np.ndarray
    on_spot: np.ndarray
    fouled_spots: np.ndarray
    notes: list[str] = field(default_factory=list)
    overflow: int = 0

    def to_json(self, geo: GolfGeometry | None = None) -> dict:
        geo = geo or golf_geometry()
        ids = geo.ball_ids
        return {
            "shooter": int(self.shooter),
            "cue_ball": ids[self.cue_ball],
            "kader": bool(self.kader),
            "fouls": [{"rule": f.rule, "time": float(f.time), "balls": [ids[b] for b in f.balls],
                       "kind": f.kind, "detail": f.detail} for f in self.fouls],
            "foul": None if self.foul is None else self.foul.rule,
            "consequences": sorted(self.consequences),
            "drops": [{"ball": ids[b], "goal": int(g), "time": float(t)} for b, g, t in self.drops],
            "scored": [int(x) for x in self.scored],
            "scored_balls": [ids[b] for b in self.scored_balls],
            "valid_own": int(self.valid_own),
            "replaced": [ids[b] for b in self.replaced],
            "spotted": [{"ball": ids[b], "spot": int(k)} for b, k in self.spotted],
            "into_goal": [ids[b] for b in self.into_goal],
            "turn_kept": bool(self.turn_kept),
            "duty_met": bool(self.duty_met),
            "left_kader": self.left_kader,
            "game_over": bool(self.game_over),
            "winner": None if self.winner < 0 else int(self.winner),
            "balls": {ids[b]: None if np.isnan(self.xy[b, 0]) else
                      [float(self.xy[b, 0]), float(self.xy[b, 1])] for b in range(N_BALLS)},
            "notes": list(self.notes),
            "overflow": int(self.overflow),
        }


# ---------------------------------------------------------------------------------------------
# Reading the event log
# ---------------------------------------------------------------------------------------------


#: field -> trailing shape of the SimResult fields the golf referee reads (K: the event axis).
_LOG_SHAPES = {"n_events": (), "t_end": (), "ev_type": ("K",), "ev_time": ("K",), "ev_i": ("K",),
               "ev_j": ("K",), "ev_state": ("K", 2, 7), "rvw": (N_BALLS, 3, 3),
               "rvw0": (N_BALLS, 3, 3), "pocket": (N_BALLS,)}


def check_log(log: Any, on_table: np.ndarray, geo: GolfGeometry | None = None) -> None:
    """Validate a SimResult-like golf log of T tables against the balls on each table.

    Args:
        log: the SimResult fields (attributes).
        on_table: (T, 10) balls on each table before the stroke.

    Raises:
        RefereeInputError (a ValueError) naming the field and entry: a missing field or wrong
        shape; an event code that is not a golf event; a time that is not finite, negative, out
        of order or after ``t_end``; an agent that is no ball on the table, or a cushion, goal or
        cap index the table lacks; a ``pocket`` that is not -1 or a goal.
    """
    geo = geo or golf_geometry()
    arr = {}
    for name in _LOG_SHAPES:
        if getattr(log, name, None) is None:
            raise RefereeInputError(f"log lacks field {name!r}")
        arr[name] = np.asarray(getattr(log, name))
    T = arr["n_events"].shape[0] if arr["n_events"].ndim == 1 else -1
    K = arr["ev_type"].shape[1] if arr["ev_type"].ndim == 2 else -1
    for name, trail in _LOG_SHAPES.items():
        want = (T, *(K if d == "K" else d for d in trail))
        if T < 0 or K < 0 or arr[name].shape != want:
            raise RefereeInputError(f"log.{name} must have shape {want}, got {arr[name].shape}")
        if name in ("n_events", "ev_type", "ev_i", "ev_j", "pocket") and \
                not np.issubdtype(arr[name].dtype, np.integer):
            raise RefereeInputError(f"log.{name} must be integer, got dtype {arr[name].dtype}")
    on = np.asarray(on_table, bool)
    n = arr["n_events"]

    def bad(mask: np.ndarray, name: str, why: str) -> None:
        if mask.any():
            idx = tuple(int(i) for i in np.argwhere(mask)[0])
            raise RefereeInputError(f"log.{name}[{', '.join(map(str, idx))}] = "
                                    f"{arr[name][idx].item()!r} {why}")

    bad((n < 0) | (n > K), "n_events", f"is outside [0, {K}]")
    valid = np.arange(K)[None, :] < n[:, None]
    typ, tm, ei, ej = arr["ev_type"], arr["ev_time"], arr["ev_i"], arr["ev_j"]
    codes = (EV_BALL_BALL, EV_BALL_CUSHION, EV_BALL_POCKET, EV_BALL_POST, EV_TRANSITION)
    bad(valid & ~np.isin(typ, codes), "ev_type", f"is not a golfbillard event code {codes}")
    bad(~np.isfinite(arr["t_end"]) | (arr["t_end"] < 0), "t_end", "is not a finite time >= 0")
    bad(valid & ~(np.isfinite(tm) & (tm >= 0)), "ev_time", "is not a finite time >= 0")
    bad(np.pad(valid[:, 1:] & (np.diff(tm, axis=1) < 0), ((0, 0), (1, 0))), "ev_time",
        "is earlier than the event before it")
    bad(valid & (tm > arr["t_end"][:, None]), "ev_time", "is after log.t_end")
    ball_on = np.take_along_axis(on, np.clip(ei, 0, N_BALLS - 1), axis=1)
    bad(valid & ((ei < 0) | (ei >= N_BALLS) | ~ball_on), "ev_i",
        "is not a ball on the table")
    other_on = np.take_along_axis(on, np.clip(ej, 0, N_BALLS - 1), axis=1)
    bad(valid & (typ == EV_BALL_BALL) & ((ej < 0) | (ej >= N_BALLS) | (ej == ei) | ~other_on),
        "ev_j", "is not a second ball on the table")
    posts = np.array([c.kind == CIRCLE_POST for c in geo.table.circles] + [False], bool)
    for code, ok, what in (
            (EV_BALL_CUSHION, (ej >= 0) & (ej < len(geo.table.cushions)), "a cushion index"),
            (EV_BALL_POCKET, (ej >= 0) & (ej < len(geo.goals)), "a goal index"),
            (EV_BALL_POST, posts[np.clip(ej, -1, len(posts) - 1)], "a cap index"),
            (EV_TRANSITION, (ej >= STATIONARY) & (ej <= ROLLING), "a motion state 0..3")):
        bad(valid & (typ == code) & ~ok, "ev_j", f"is not {what}")
    pk = arr["pocket"]
    bad((pk < -1) | (pk >= len(geo.goals)), "pocket", "is not -1 or a goal index")
    xy = arr["rvw0"][:, :, 0, :2]
    bad(on & ~np.isfinite(xy).all(2), "rvw0", "has a position that is not finite")


# ---------------------------------------------------------------------------------------------
# Geometry of a stroke
# ---------------------------------------------------------------------------------------------


def frozen_contacts(xy: np.ndarray, c: int, geo: GolfGeometry, gap: float
                    ) -> list[tuple[str, int, np.ndarray]]:
    """G-13: what the cue ball ``c`` is frozen to (gap < ``gap``): (kind, index, unit vector
    from the cue-ball centre toward it), kind ``ball``, ``cushion`` or ``cap`` (the referee's
    kernel :func:`cuegym.rules.golf_heading.frozen_list`)."""
    from .golf_heading import frozen_list
    from .golf_paths import golf_arrays
    from .golf_structs import geometry_struct

    ga = golf_arrays(geo)
    m = N_BALLS + ga.cushions.shape[0] + ga.caps.shape[0]
    kinds = np.empty(m, np.int64)
    ks = np.empty(m, np.int64)
    us = np.empty((m, 2))
    n = frozen_list(np.ascontiguousarray(xy, np.float64), int(c), geometry_struct(geo),
                    float(gap), kinds, ks, us)
    names = ("ball", "cushion", "cap")
    return [(names[kinds[i]], int(ks[i]), us[i].copy()) for i in range(n)]


def direct_goal_attempt(p: np.ndarray, d: np.ndarray, goal: int, geo: GolfGeometry) -> bool:
    """G-10a: the line of the initial direction ``d`` from ``p`` passes between goal ``goal``'s
    caps, or within R + r_cap of one of their centres (the referee's own test)."""
    from .golf_heading import direct_goal_attempt as kernel
    from .golf_structs import geometry_struct

    return bool(kernel(float(p[0]), float(p[1]), float(d[0]), float(d[1]), int(goal),
                       geometry_struct(geo)))


def toward_goal_cap(p: np.ndarray, d: np.ndarray, goal: int, geo: GolfGeometry) -> bool:
    """G-10 (b): the initial direction passes within R + r_cap of one of goal ``goal``'s caps."""
    from .golf_heading import toward_goal_cap as kernel
    from .golf_structs import geometry_struct

    return bool(kernel(float(p[0]), float(p[1]), float(d[0]), float(d[1]), int(goal),
                       geometry_struct(geo)))


# ---------------------------------------------------------------------------------------------
# Penalty spots (G-26 .. G-30)
# ---------------------------------------------------------------------------------------------


def choose_spot(ball: int, xy: np.ndarray, geo: GolfGeometry, policy: str,
                rng: np.random.Generator | None = None, choice: Any = None,
                allowed: Sequence[int] | None = None, offender: int | None = None
                ) -> tuple[int, np.ndarray]:
    """Where one penalised ball goes (G-30), on the penalty spots of the ``offender`` side
    (default: the ball's own side; G-27..G-29 measure them toward the offender's attack goal)
    (the referee's kernel :func:`cuegym.rules.golf_spots.choose_spot`).

    The opponent chooses a free spot among 1-3; if none is free, 4, then 5; if all are blocked,
    the free point nearest spot 3 (returned as spot 0). ``allowed`` (G-26) restricts the order to
    those spots (first free wins); if none of them is free the normal choice applies.

    Args:
        ball: the ball to place.
        xy: (10, 2) current positions, the ball itself already lifted (NaN).
        policy: ``first_free``, ``random`` (``rng`` draws) or ``agent`` (``choice``: a spot).
        offender: side 0 or 1 whose foul sends the ball there (its spots); None: the ball's.

    Returns:
        (spot number 0..5, centre [m]).
    """
    from .golf_spots import choose_spot as kernel
    from .golf_structs import geometry_struct

    if policy not in SPOT_POLICIES:
        raise ValueError(f"policy must be one of {list(SPOT_POLICIES)}, got {policy!r}")
    if policy == "random" and rng is None:
        raise ValueError("policy 'random' needs an rng")
    if policy == "agent" and (isinstance(choice, bool) or not isinstance(choice, (int,
                                                                                  np.integer))):
        raise ValueError(f"policy 'agent' needs a spot number as choice, got {choice!r}")
    mask = np.zeros(5, bool)
    for k in allowed or ():
        mask[int(k) - 1] = True
    u = float(rng.random()) if policy == "random" else 0.0
    b = ball_index(ball, geo)
    side = int(SIDE_OF[b]) if offender is None else req_int(offender, "offender", 0, 1)
    k, x, y, err, _ = kernel(b, side, np.ascontiguousarray(xy, np.float64),
                             geometry_struct(geo), SPOT_POLICIES.index(policy),
                             -1 if choice is None else int(choice), mask, allowed is not None, u)
    if err:
        raise ValueError(f"spot choice {choice!r} for ball {geo.ball_ids[ball]} is not a free "
                         f"spot among spots 1-3")
    return int(k), np.array([x, y])


# ---------------------------------------------------------------------------------------------
# The referee (compiled; T strokes at once)
# ---------------------------------------------------------------------------------------------


def score_strokes(states: GolfState | Sequence[GolfState], log: Any, cue_ball: Any,
                  cue: Any = None, *, injected: Any = None, players: Any = None,
                  paths: str = "auto", choices: Any = None, rules: GolfRules | None = None,
                  geo: GolfGeometry | None = None,
                  allow_overflow: bool = False) -> list[GolfOutcome]:
    """Referee T play strokes at once (one per table of ``log``) with the compiled referee.

    Args:
        states: the GolfState of each table before its stroke (phase ``play``), or one state
            when T = 1.
        log: the physics result (SimResult fields, leading axis T).
        cue_ball: (T,) ball struck on each table (index or id).
        cue: (T, 5) strikes V0 [m/s], phi, theta [deg], a, b [R] (one (5,) strike when
            T = 1); theta feeds G-10 (b). Optional; checked as the physics checks a strike
            (:func:`check_cue`).
        injected: per table a list of injected events (module docstring); a flat list when T = 1.
        players: (T,) duo partner (0 / 1) who struck (G-31). Required with ``rules.duo``
            (a partner other than the due one is a G-18 ``out_of_turn`` foul); without duo
            play only None or 0 (a singles side has one player) are accepted.
        paths: ``physics`` (the motion laws; needs a log with ``prm``: a SimResult, or a JSON
            log with the balls' states), ``straight`` (lines between logged positions) or
            ``auto`` (physics when the log carries ``prm``).
        choices: per table a dict of the opponent's choices (or None): ``spots`` (a list of
            spot numbers, one per placed ball in placing order, consumed where the opponent
            has a choice; needs ``rules.spot_policy = 'agent'``) and ``pick`` (G-25: the
            offender's ball; needs ``rules.pick_policy = 'agent'``). A choice whose option is
            not set is a ValueError; entries the stroke did not need are reported in ``notes``.
        rules, geo: rule-set options and static game facts (defaults: the shipped configs).
        allow_overflow: score a stroke whose simulation stopped at ``max_events`` / ``t_max``
            (physics ``overflow`` != 0) where its log ended, with a note; by default such a
            stroke is refused, since the rules judge balls at rest.

    Returns:
        One GolfOutcome per table.

    Raises:
        ValueError: bad input (the message names it): a state field the compiled referee
            would misread (:func:`~cuegym.rules.golf_state.check_fields`, as ``Golf.play``
            checks its batch), a strike outside the physics' limits; a choice or partner the
            rule options do not use, or an overflowed simulation without ``allow_overflow``.
    """
    rules = rules or GolfRules()
    geo = geo or golf_geometry()
    T = int(np.asarray(log.n_events).shape[0])
    if isinstance(states, GolfState):
        states = [states]
    if len(states) != T:
        raise ValueError(f"got {len(states)} states for a log of {T} tables")
    check_fields(states, geo)  # the kernels index with the fields unchecked
    for t, st in enumerate(states):
        if st.phase != "play":
            raise ValueError(f"table {t}: state phase is {st.phase!r}; score_strokes scores "
                             f"'play' strokes (the opening is golfbillard_game.score_opening)")
    on_table = np.stack([st.on_table for st in states])
    check_log(log, on_table, geo)
    cb = np.atleast_1d(np.asarray(cue_ball, dtype=object))
    if cb.shape != (T,):
        raise ValueError(f"cue_ball must have shape ({T},), got {cb.shape}: {cue_ball!r}")
    cb2 = np.full((T, 2), -1, np.int64)
    cb2[:, 0] = [ball_index(b, geo) for b in cb]
    cue2 = np.zeros((T, 2, 5)) if cue is None else check_cue(cue, cb2, on_table, geo)
    if injected is not None and T == 1 and (len(injected) == 0 or isinstance(injected[0], dict)):
        injected = [injected]
    if injected is not None and len(injected) != T:
        raise ValueError(f"injected must hold one list per table ({T}), got {injected!r}")
    if choices is None or isinstance(choices, dict):
        choices = [choices] * T if T == 1 or choices is None else [choices]
    players = [None] * T if players is None else list(np.atleast_1d(np.asarray(players,
                                                                             dtype=object)))
    if len(players) != T or len(choices) != T:
        raise ValueError(f"players and choices need one entry per table ({T})")
    for t in range(T):
        choices[t] = check_choices(choices[t], rules, f"choices[{t}]")
        players[t] = check_player(players[t], rules, f"players[{t}]")
    check_overflow(log, allow_overflow)
    from .golf_batch import referee
    from .golf_views import make_inputs, outcome_objects, pack_states, policy_draws

    gs = pack_states(states)
    inputs = make_inputs(cb2, cue2, np.asarray(log.t_end, np.float64), geo, injected=injected,
                         players=players, choices=choices, physics=physics_paths(log, paths),
                         draws=policy_draws(gs, rules))
    out, _ = referee(gs, log, inputs, rules, geo)
    return outcome_objects(out, geo, inputs)


def check_cue(cue: Any, cue_ball: np.ndarray, on_table: np.ndarray, geo: GolfGeometry,
              slots: bool = False) -> np.ndarray:
    """The strikes ``cue`` of T tables as (T, 2, 5) V0 [m/s], phi, theta [deg], a, b [R],
    checked as the physics checks a strike (the JSON CLI's check): real finite numbers, V0 in
    [0, 20], theta in [0, 90], a^2 + b^2 <= 1, the struck ball on the table
    (:func:`cuegym.physics.checks.check_strikes`; the G-10 raised-cue foul reads theta).

    Args:
        cue: (T, 5) strikes for slot 0 (slot 1 zeros) and (5,) when T = 1, or with ``slots``
            (T, 5) or (T, 2, 5) (``play_strokes``); no other shape is reshaped into these.
        cue_ball: (T, 2) struck balls; slot 1 is -1 for a play stroke (its strike unread).
        on_table: (T, 10) balls on the table.

    Raises:
        RefereeInputError (a ValueError): a message naming ``cue``.
    """
    from cuegym.physics.checks import PhysicsInputError, as_array, check_strikes, convert

    T = cue_ball.shape[0]
    shapes = [(T, 5), (T, 2, 5)] if slots else [(T, 5)] + [(5,)] * (T == 1)
    try:
        arr = convert("cue", cue, "an array of real numbers V0, phi, theta, a, b")
        if arr.shape not in shapes:
            raise PhysicsInputError(f"cue must have shape {' or '.join(map(str, shapes))} (V0, "
                                    f"phi, theta, a, b per table), got shape {arr.shape}")
        arr = as_array("cue", arr, arr.shape, str(arr.shape))  # real numbers, finite
        S = 2 if arr.ndim == 3 else 1  # the slots given; a slot not given strikes nothing
        out = np.zeros((T, 2, 5))
        out[:, :S] = arr.reshape(T, S, 5)
        check_strikes(cue_ball[:, :S], out[:, :S], on_table, None, geo.ball_ids)
    except PhysicsInputError as exc:
        msg = str(exc)
        raise RefereeInputError(msg if msg.startswith("cue") else f"cue: {msg}") from None
    return out


#: The option that enables each key of ``choices`` (G-30 spots, G-25 pick).
CHOICE_OPTIONS = {"spots": "spot_policy", "pick": "pick_policy"}


def check_choices(choices: Any, rules: GolfRules, where: str = "choices",
                  json: bool = False) -> dict:
    """The opponent's choices of one stroke, checked against the rule options.

    Returns a dict (empty for None). Raises ValueError for anything but a mapping with keys
    ``spots`` / ``pick``, and for a key whose option (``spot_policy`` / ``pick_policy``) is not
    ``agent``: such a choice would be ignored, so it is refused. ``json``: name a key by its
    JSON path (``choices.spots``) instead of the Python one (``choices['spots']``).
    """
    if choices is None:
        return {}
    if not isinstance(choices, dict):
        raise ValueError(f"{where} must be a dict with 'spots' and / or 'pick', got {choices!r}")
    unknown = sorted(set(choices) - set(CHOICE_OPTIONS))
    if unknown:
        raise ValueError(f"unknown key(s) {unknown} in {where}; known: {sorted(CHOICE_OPTIONS)}")
    for key, option in CHOICE_OPTIONS.items():
        if key in choices and getattr(rules, option) != "agent":
            path = f"{where}.{key}" if json else f"{where}[{key!r}]"
            raise ValueError(f"{path} is given but rules.{option} is "
                             f"{getattr(rules, option)!r}, which does not use it: set "
                             f"{option}='agent' to let the opponent choose")
    spots = choices.get("spots")
    if "spots" in choices and not (callable(spots) or isinstance(spots, (list, tuple))):
        raise ValueError(f"{where}['spots'] must be a list of spot numbers or a callable, got "
                         f"{spots!r}")
    return dict(choices)


def check_player(player: Any, rules: GolfRules, where: str = "player") -> int | None:
    """The duo partner (0 / 1) who struck (G-31). With ``rules.duo`` it is required (the turn
    order is always checked); without duo play a side has one player, so only None or 0 are
    accepted. Returns the partner, or None (singles, not given)."""
    if player is None:
        if rules.duo:
            raise ValueError(f"{where}: duo play (rules.duo) needs the partner (0 / 1) who "
                             "struck, to check the turn order (G-31)")
        return None
    if isinstance(player, (bool, np.bool_)) or player not in (0, 1):
        raise ValueError(f"{where} must be partner 0 or 1, got {player!r}")
    if not rules.duo and int(player) != 0:
        raise ValueError(f"{where} = {player!r} but rules.duo is off: a singles side has one "
                         "player (partner 0); set duo=True for duo play (G-31)")
    return int(player)


def check_overflow(log: Any, allow_overflow: bool, tables: Sequence[int] | None = None) -> None:
    """Refuse a log in which the simulation stopped at a limit before every ball came to rest
    (physics ``overflow``: 1 max_events, 2 t_max), unless ``allow_overflow``; the rules judge a
    stroke from balls at rest."""
    check_overflow_codes(getattr(log, "overflow", 0), allow_overflow, tables, "every ball")




def _restore_list(e: dict, geo: GolfGeometry, path: str = "restore"
                  ) -> tuple[tuple[int, float, float], ...]:
    """The ``restore`` of a G-18 deflect event: ``{ball: [x, y]}`` of the balls the foul
    displaced, as ``(ball, x, y)``. Only the RF kinds take it; the touched ball itself is dealt
    with by the rule (penalty spot or goal), so it cannot be restored. Errors name ``path``
    (the JSON input's ``inject[k].restore``)."""
    if e["type"] != "foul" or e.get("kind") not in RESTORE_KINDS:
        raise ValueError(f"{path}: 'restore' is only for the G-18 kinds {sorted(RESTORE_KINDS)} "
                         f"(they put back the balls the foul displaced); "
                         f"{e.get('kind') or e['type']!r} puts back every moved ball (RA) or "
                         f"none, got {e!r}")
    rest = e["restore"]
    if not isinstance(rest, dict):
        raise ValueError(f"{path} must map ball ids to [x, y], got {rest!r}")
    out = []
    for bid, p in rest.items():
        b = ball_index(bid, geo, f"{path}.{bid}")
        if b == e.get("ball"):
            raise ValueError(f"{path}.{bid}: restore names the touched ball {geo.ball_ids[b]}: "
                             "it goes to a penalty spot or into its goal by the rule, not back")
        x, y = req_xy(p, f"{path}.{bid}")  # numbers only: "0.5" and false are not coordinates
        out.append((b, x, y))
    return tuple(out)



def physics_paths(log: Any, paths: str) -> bool:
    """Resolve ``paths`` (``physics`` / ``straight`` / ``auto``) for a log."""
    if paths not in ("physics", "straight", "auto"):
        raise ValueError(f"paths must be 'physics', 'straight' or 'auto', got {paths!r}")
    has = getattr(log, "prm", None) is not None
    if paths == "physics" and not has:
        raise ValueError("paths='physics' needs the motion laws of a SimResult or of a JSON log "
                         "with the balls' states (the log has no prm)")
    return has if paths == "auto" else paths == "physics"


def score_stroke(state: GolfState, log: Any, cue_ball: Any, cue: Any = None,
                 **kw: Any) -> GolfOutcome:
    """Referee one stroke (a log with T = 1); ``cue``: one (5,) strike (or (1, 5)); keyword
    arguments as :func:`score_strokes`."""
    if kw.get("players") is not None:
        kw["players"] = [kw["players"]]
    if isinstance(kw.get("choices"), dict):
        kw["choices"] = [kw["choices"]]
    return score_strokes([state], log, [cue_ball], cue, **kw)[0]


# ---------------------------------------------------------------------------------------------
# JSON entry point (python -m cuegym.rules score --game golfbillard)
# ---------------------------------------------------------------------------------------------


def score_cli(payload: dict) -> dict:
    """Score one stroke given as JSON (``python -m cuegym.rules score --game golfbillard``).

    Args:
        payload: ``{"state": <state JSON> | null, "shot": <physics shot object>}`` or
            ``{"state": .., "log": <output object of cuegym.physics.simulate_json>,
            "strike": <the shot's strike>}`` or ``{"state": .., "hand_log": {"events": [..]},
            "strike": ..}`` (a hand-written log, docs/rules_golfbillard.md, CLI). A null or
            missing state is a new match. In the
            opening (G-3) the strike is a list of two strikes, one per side. A shot may omit
            ``balls`` and ``table`` (taken from the state). Optional: ``rules`` (option
            overrides), ``inject`` (events, module docstring), ``player`` (duo partner, G-31;
            in the opening the two openers), ``choices`` (``{"spots": [..], "pick": ball}``).

    Returns:
        ``{"outcome": <outcome JSON>, "state": <state JSON after the stroke>}``.
    """
    from cuegym.rules.golf_json import score_json as score

    return score(payload)


#: The name the CLI (``cuegym.rules.__main__``) looks up.
score_json = score_cli


def new_state_json(n_players: int = 2, *, seed: int | None = None,
                   rules: dict | None = None) -> dict:
    """The CLI's ``new``: a new match. Its state is the same for singles and duos: duo play
    (G-31) is the rule option ``duo``, which each ``score`` input gives (``"rules": {"duo":
    true}`` and ``"player"``), so 4 players (or ``rules`` with ``duo: true``) is refused here
    rather than printing a singles state that would be scored as singles. ``rules``: options
    over the shipped rules (the opening, G-3, decides the first phase)."""
    from cuegym.rules import golfbillard_game as game

    duo = (rules or {}).get("duo", False)
    if n_players == 4 or duo is True:
        what = "players: 4" if n_players == 4 else "rules.duo = True"
        raise ValueError(f"{what}: a new golfbillard match's state is the same for 2 duos as for "
                         "2 players; duo play (G-31) is a rule: give each score input "
                         '"rules": {"duo": true} and "player" (a new state: --players 2, no '
                         "duo option)")
    if n_players != 2:
        raise ValueError(f"players: golfbillard is played by 2 players or 2 duos, got "
                         f"{n_players!r}")
    return game.new_match(load_golf_rules(**_duo_rules(n_players, rules)),
                          seed=seed or 0).to_json()


def _duo_rules(n_players: int, rules: dict | None) -> dict:
    """``rules`` (options over the shipped ones) with G-31's ``duo`` as ``n_players`` says (4:
    two duos); a ``duo`` option that contradicts ``n_players`` is refused, not overridden."""
    duo = n_players == 4
    rules = dict(rules or {})
    if "duo" not in rules:
        return {**rules, "duo": duo}
    if isinstance(rules["duo"], bool) and rules["duo"] != duo:
        raise ValueError(f"rules.duo = {rules['duo']!r} contradicts {n_players} players "
                         f"(duo play is 4 players, G-31)")
    return rules  # its own duo: the rules' loader checks its type


def play_game(n_players: int = 2, *, seed: int = 0, max_shots: int = 3000,
              rules: dict | None = None) -> dict:
    """The CLI's ``play``: one match with the physics and random purposeful strokes, under
    ``rules`` (options over the shipped rules; ``duo`` follows ``n_players``).

    Returns:
        ``{"shots": [outcome JSON ..], "state": <final state JSON>, "ranking": [sides, best
        first] (a draw: both in one list; None when ``max_shots`` ran out before the match
        ended), "n_shots": n}``.
    """
    from cuegym.rules import golfbillard_game as game

    if n_players not in (2, 4):
        raise ValueError(f"golfbillard is played by 2 players or 2 duos (4), got {n_players!r}")
    r = load_golf_rules(**_duo_rules(n_players, rules))
    st, hist = game.run_game(r, seed=seed, max_strokes=max_shots)
    w = st.match_winner
    if st.phase != "over":
        ranking = None
    else:
        ranking = [[0, 1]] if w not in (0, 1) else [w, 1 - w]
    return {"shots": [o.to_json() for o in hist], "state": st.to_json(), "ranking": ranking,
            "n_shots": len(hist)}

