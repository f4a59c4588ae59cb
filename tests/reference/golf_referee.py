"""Golfbillard referee: pure functions from a stroke's event log to its outcome (G-1 .. G-31).

docs/rules_golfbillard.md is the rule book; rule ids (G-..) in comments point into it. This module
scores *strokes*: the physics result of T tables, the :class:`GolfState` of each table before the
stroke, and what physics cannot know (injected events, the opponent's choices) go in; a
:class:`GolfOutcome` per table comes out: valid goals per side, every foul with its rule id in
G-19a order (only the first is penalised), the consequence letters LT / RA / CS, balls replaced,
balls put on penalty spots (G-26, G-30) or into goals (G-17), turn kept or lost (G-1, G-9), game
over and winner (G-4, G-17a), and the ball positions after the stroke. Game flow (opening, turns,
duos, no-progress, matches) is in :mod:`cuegym.rules.golfbillard_game`.

Glossary (spec): *goal* a hole in the middle of each short cushion, goal g = pocket index g: goal 0
at +x is side 0's attack goal and side 1's defence goal, goal 1 at -x the reverse. *Cap* a fixed
post (``table.circles``). *Turn* (Aufnahme) a side's visit. *Cue ball* the own ball struck.
*Kader* one of 15 zones used in the end phase (G-20..G-26). Balls ``w1..w5`` (index 0..4) are side
0, ``r1..r5`` (5..9) side 1.

The event log is the ``SimResult`` layout of docs/physics_api.md (any object with those fields
works, e.g. :class:`LogBuilder` for hand-written strokes). Ball paths come from a ``segments``
callable ``(table, ball) -> [(t_start, t_end, p0, q, acc), ...]`` (the physics path query); without
one, paths are the straight lines between the logged event positions (exact for hand-written logs).

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

import copy
import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import yaml

from cuegym.configs import (
    CIRCLE_POST,
    CONFIG_DIR,
    ConfigError,
    PhysicsParams,
    TableSpec,
    load_params,
    load_table,
)
from cuegym.configs.zones import (
    ZoneSet,
    as_points,
    as_segments,
    edge_distances,
    load_zones,
    path_leaves_band,
    path_leaves_polygon,
)
from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_POCKET,
    EV_BALL_POST,
    EV_TRANSITION,
    POCKETED,
    ROLLING,
    SLIDING,
    STATIONARY,
)
from cuegym.rules.inputs import (
    RefereeInputError,
    check_layout,
    req_bool,
    req_choice,
    req_int,
    req_list,
    req_name,
    req_num,
    req_obj,
    req_xy,
    show,
)

N_SIDES = 2
BALLS_PER_SIDE = 5
N_BALLS = N_SIDES * BALLS_PER_SIDE
#: Side of each ball index: w1..w5 side 0, r1..r5 side 1.
SIDE_OF = np.repeat(np.arange(N_SIDES), BALLS_PER_SIDE)

#: Foul order within one stroke (G-19a): by event time, ties in this order. G-18 (behavioural,
#: injected) and G-19 (jam) are not in G-19a's list: G-18 goes first, G-19 after G-17.
FOUL_ORDER = ("G-18", "G-10", "G-11", "G-13", "G-12", "G-8", "G-16", "G-17", "G-19", "G-15",
              "G-21", "G-14")
_RANK = {r: k for k, r in enumerate(FOUL_ORDER)}

#: Consequence letters of each foul (docs/rules_golfbillard.md, Fouls): LT turn lost, RA balls
#: replaced (every ball the stroke moved), RF only the balls the foul displaced are put back
#: (the injected event carries them and their positions; the others stay where the stroke left
#: them), CS cue ball to a penalty spot, SPOT named balls to penalty spots, GOAL named balls
#: into their goal, PICK the opponent picks one of the offender's balls for a penalty spot (G-25).
CONSEQUENCES: dict[str, frozenset[str]] = {
    "G-8": frozenset({"LT", "SPOT"}),
    "G-10": frozenset({"LT", "RA", "CS"}),
    "G-11": frozenset({"LT", "RA", "CS"}),
    "G-12": frozenset({"LT", "RA", "CS"}),
    "G-13": frozenset({"LT", "RA", "CS"}),
    "G-14": frozenset({"LT", "RA", "SPOT"}),
    "G-15": frozenset({"LT", "SPOT"}),
    "G-16": frozenset({"LT", "SPOT"}),
    "G-17": frozenset({"LT", "GOAL", "CS"}),
    "G-19": frozenset({"SPOT"}),  # the only rule of the table without LT: the spec names none
    "G-21": frozenset({"LT", "CS"}),
}

#: G-18 behavioural fouls (seed: Fehler, Zielen, Berührung, Reihenfolge, Dauer, Beratung):
#: kind -> (consequences outside kader play, consequences in kader play, G-25).
#: ``consultation`` has no penalty in the seed, so none here (no letters: a foul whose
#: stroke still scores validly keeps the turn, as G-19).
BEHAVIOURAL: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    k: (frozenset(a.split()), frozenset(b.split()))
    for k, (a, b) in {
        "foot_off_floor": ("LT RA", "LT RA CS"),
        "over_caps_or_balls": ("LT RA CS", "LT RA CS"),
        "aiming_behind_opponent": ("LT", "LT PICK"),
        "played_opponent_ball": ("LT RA", "LT RA PICK"),
        "before_rest": ("LT RA", "LT RA CS"),
        "touch": ("LT RA CS", "LT RA CS"),
        "touch_without_stroke": ("LT RA", "LT RA"),
        "touch_own_ball": ("LT RA CS", "LT RA CS"),
        "touch_opponent_ball": ("LT RA CS", "LT RA PICK"),
        "deflect_own_ball": ("LT RF SPOT", "LT RF SPOT"),
        "deflect_opponent_ball": ("LT RF CS GOAL", "LT RF CS GOAL"),
        "out_of_turn": ("LT RA", "LT RA CS"),
        "wrong_opener": ("LT CS", "LT CS"),
        "time": ("LT", "LT PICK"),
        "consultation": ("", ""),
    }.items()
}

INJECTED_TYPES = ("off_table", "rests_on_rail", "rail_return", "jam", "fall_after_rest", "foul")
#: Injected types that put their ball somewhere after the stroke (a dropped ball cannot be).
PLACING_TYPES = ("off_table", "rests_on_rail", "rail_return", "jam")


def refuse_placing_dropped(injected: list, drops: list, falls: dict, ids: Sequence[str]) -> None:
    """A ball the log dropped (``drops``, or a G-6a fall after rest in ``falls``) has no later
    place: an injected event putting it off the table, on the rail or between caps is an input
    error (only ``fall_after_rest`` overrides a drop)."""
    dropped = {b for b, _, _ in drops} | set(falls)
    for k, e in enumerate(injected):
        if e["type"] in PLACING_TYPES and e.get("ball") in dropped:
            raise ValueError(f"injected[{k}].ball = {ids[e['ball']]}: it dropped into a goal")
#: The note of a G-6a fall after rest (``.format(ball id)``).
FALL_NOTE = "G-6a: {} fell after coming to rest: no goal, back on the rim"
#: G-18 kinds whose consequence puts back only "die durch den Fehler verschobenen Baelle" (RF):
#: their event may carry ``restore``, the displaced balls and where they lay before the foul.
RESTORE_KINDS = frozenset(k for k, v in BEHAVIOURAL.items() if "RF" in v[0] | v[1])
SPOT_POLICIES = ("first_free", "random", "agent")
PICK_POLICIES = ("nearest_goal", "cue_ball", "random", "agent")
_MOVE_TOL = 1e-9  # a ball whose centre moved less than this [m] did not move


def attack_goal(side: int) -> int:
    """Goal index a side scores into (G-6): side 0 -> goal 0 (+x), side 1 -> goal 1 (-x)."""
    return int(side)


def defence_goal(side: int) -> int:
    """Goal index at a side's own end (G-8)."""
    return 1 - int(side)


# ---------------------------------------------------------------------------------------------
# Rule-set options
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GolfRules:
    """Rule-set options (``configs/rules/golfbillard.yaml``); defaults are the rule book's.

    Attributes:
        opening: G-3 ``simultaneous`` or ``alternate`` (no opening stroke: side 0 starts
            every game).
        match: G-4 ``best_of_3`` or ``single``.
        no_progress_turns: G-5 turns (both sides together) after which the no-progress count runs.
        no_progress_window: G-5 scoreless turns of each side that end the game as a draw.
        hard_speed: G-10 (a) initial cue-ball speed of a hard stroke [m/s].
        raised_cue_deg: G-10 (b) cue elevation of a raised cue [deg].
        masse_turn_deg: G-10 heading turn before the first contact that makes a masse [deg].
        any_direction: G-10a option: G-10 applies to every stroke from below the stroke line.
        freeze_gap: G-13 a gap below this is frozen [m].
        all_balls: G-15 option ``all_balls``.
        replace_on_off_table: G-16 / G-17 option: RA for the balls still on the table.
        spot_policy: G-30 ``first_free``, ``random`` or ``agent``.
        pick_policy: G-25 ``nearest_goal``, ``cue_ball``, ``random`` or ``agent``.
        duo: G-31 duo play.
        deciding_openers: G-31 partner (0/1) of each side who opens a deciding game.
    """

    opening: str = "simultaneous"
    match: str = "best_of_3"
    no_progress_turns: int = 40
    no_progress_window: int = 3
    hard_speed: float = 2.0
    raised_cue_deg: float = 30.0
    masse_turn_deg: float = 10.0
    any_direction: bool = False
    freeze_gap: float = 0.0005
    all_balls: bool = False
    replace_on_off_table: bool = False
    spot_policy: str = "first_free"
    pick_policy: str = "nearest_goal"
    duo: bool = False
    deciding_openers: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        choices = {"opening": ("simultaneous", "alternate"), "match": ("best_of_3", "single"),
                   "spot_policy": SPOT_POLICIES, "pick_policy": PICK_POLICIES}
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ConfigError(f"rules.{name} must be one of {list(allowed)}, got "
                                  f"{getattr(self, name)!r}")
        for name in ("no_progress_turns", "no_progress_window"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ConfigError(f"rules.{name} must be an integer >= 0, got {v!r}")
            object.__setattr__(self, name, int(v))
        for name in ("hard_speed", "raised_cue_deg", "masse_turn_deg", "freeze_gap"):
            v = getattr(self, name)
            try:
                x = float(v)
            except (TypeError, ValueError):
                raise ConfigError(f"rules.{name} must be a number, got {v!r}") from None
            if not math.isfinite(x) or x < 0 or isinstance(v, bool):
                raise ConfigError(f"rules.{name} must be a finite number >= 0, got {v!r}")
            object.__setattr__(self, name, x)
        for name in ("any_direction", "all_balls", "replace_on_off_table", "duo"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ConfigError(f"rules.{name} must be true or false, got "
                                  f"{getattr(self, name)!r}")
        d = self.deciding_openers
        try:
            d = tuple(int(x) for x in d)
        except (TypeError, ValueError):
            raise ConfigError(
                f"rules.deciding_openers must be two partners 0/1, got {d!r}") from None
        if len(d) != 2 or any(x not in (0, 1) for x in d):
            raise ConfigError(f"rules.deciding_openers must be two partners 0/1, got {d!r}")
        object.__setattr__(self, "deciding_openers", d)

    @property
    def games_to_win(self) -> int:
        """Games a side needs to win the match (G-4)."""
        return 2 if self.match == "best_of_3" else 1

    @property
    def max_games(self) -> int:
        """Games a match lasts at most (G-4; drawn games count)."""
        return 3 if self.match == "best_of_3" else 1

    @classmethod
    def from_dict(cls, data: dict, base: GolfRules | None = None) -> GolfRules:
        """Build from a mapping; unknown keys raise ConfigError (a ValueError)."""
        if not isinstance(data, dict):
            raise ConfigError(f"rules must be a mapping, got {data!r}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                f"unknown golfbillard rule option(s) {unknown}; known: {sorted(known)}")
        return replace(base or cls(), **data)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["deciding_openers"] = list(self.deciding_openers)
        return d


RULES_PATH = CONFIG_DIR / "rules" / "golfbillard.yaml"


def load_golf_rules(path: str | Path | None = None, **overrides: Any) -> GolfRules:
    """Load ``configs/rules/golfbillard.yaml`` (or ``path``), then apply ``overrides``."""
    p = Path(path) if path is not None else RULES_PATH
    with open(p) as fh:
        data = yaml.safe_load(fh) or {}
    rules = GolfRules.from_dict(data)
    return GolfRules.from_dict(overrides, base=rules) if overrides else rules


# ---------------------------------------------------------------------------------------------
# Static facts of the game (OpenSpiel's "Game"): table, ball size, zones
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GolfGeometry:
    """Everything static the referee needs, in one place (built by :func:`golf_geometry`).

    Attributes:
        table: the golfbillard TableSpec. zones: the ZoneSet. R: ball radius [m].
        r_cap: cap radius [m]. caps: (12, 2) cap centres [m]. goals: (2, 3) goal x, y, radius.
        start: (10, 2) start spots (G-3). ball_ids: ``w1 .. r5``.
    """

    table: TableSpec
    zones: ZoneSet
    R: float
    r_cap: float
    caps: np.ndarray
    goals: np.ndarray
    start: np.ndarray
    ball_ids: tuple[str, ...]


_GEOMETRY: dict[tuple, GolfGeometry] = {}


def golf_geometry(table: TableSpec | None = None, params: PhysicsParams | None = None,
                  zones: ZoneSet | None = None) -> GolfGeometry:
    """The static game facts, from the shipped configs unless given (cached for the defaults)."""
    key = (id(table), id(params), id(zones))
    if key in _GEOMETRY:
        return _GEOMETRY[key]
    table = table or load_table("golfbillard")
    params = params or load_params("golfbillard")
    zones = zones or load_zones("golfbillard")
    posts = table.posts
    if not posts or len(table.pockets) != 2:
        raise ValueError(
            f"table {table.name!r} is not a golfbillard table (needs 2 goals and caps)")
    caps = np.array([[c.x, c.y] for c in table.circles], dtype=np.float64)
    goals = np.array([[p.x, p.y, p.radius] for p in table.pockets], dtype=np.float64)
    spots = table.spots or {}
    sx = float(spots.get("start_x", 0.825))
    sy = [float(y) for y in spots.get("start_y", [0.0, 0.15, -0.15, 0.30, -0.30])]
    if len(sy) != BALLS_PER_SIDE:
        raise ValueError(f"table spots.start_y must have {BALLS_PER_SIDE} values, got {sy!r}")
    start = np.array([[-sx, y] for y in sy] + [[sx, y] for y in sy], dtype=np.float64)
    ids = table.ball_ids or tuple([f"w{k}" for k in range(1, 6)] + [f"r{k}" for k in range(1, 6)])
    if len(ids) != N_BALLS:
        raise ValueError(f"golfbillard needs {N_BALLS} balls, table lists {len(ids)}")
    geo = GolfGeometry(table=table, zones=zones, R=float(params.R), r_cap=float(posts[0].radius),
                       caps=caps, goals=goals, start=start, ball_ids=tuple(ids))
    _GEOMETRY[key] = geo
    return geo


def ball_index(ball: Any, geo: GolfGeometry | None = None, path: str = "") -> int:
    """Index 0..9 of a ball given as index or id (``w1`` .. ``r5``); a ValueError
    (RefereeInputError naming ``path`` when given) otherwise."""
    geo = geo or golf_geometry()
    if isinstance(ball, (int, np.integer)) and not isinstance(ball, bool):
        if 0 <= int(ball) < N_BALLS:
            return int(ball)
    elif isinstance(ball, str) and ball in geo.ball_ids:
        return geo.ball_ids.index(ball)
    what = f"unknown ball {show(ball)}; balls are 0..9 or {list(geo.ball_ids)}"
    raise RefereeInputError(f"{path} is an {what}" if path else what)


# ---------------------------------------------------------------------------------------------
# Game state
# ---------------------------------------------------------------------------------------------

PHASES = ("opening", "play", "over")


@dataclass
class GolfState:
    """Position and bookkeeping of one golfbillard table (OpenSpiel's "State").

    Functions never modify a state they are given; they return a new one.

    Attributes:
        xy: (10, 2) ball centres [m]; NaN for a ball already scored.
        to_move: side at the table (0 white, 1 red).
        phase: ``opening`` (G-3 stroke next), ``play``, or ``over`` (match over).
        kader: kader play is on (G-20).
        duty: (10,) balls under the defence-triangle duty of the current turn (G-14).
        duty_met: the duty was met earlier in this turn.
        turn_strokes: strokes already played in this turn.
        turn_scored: a ball was scored (for either side) in this turn (G-5).
        on_spot: (10,) penalty spot 1..5 a ball lies on, 0 for none (G-26).
        fouled_spots: (2, 5) spots from which a side made a foul stroke in kader play (G-26).
        turns: turns completed in this game. idle_turns: scoreless turns since the G-5 limit.
        winner: winner of the last finished game: -1 none yet, 0 / 1, 2 draw (G-5).
        games_won: (2,) games won in the match. game_no: 0-based game of the match.
        match_winner: -1 until the match is over (G-4), else 0 / 1 (2: drawn single game).
        partner: (2,) duo partner (0/1) of each side who plays its current / next turn (G-31).
        openers: (2,) partners who opened this game. first_openers: those of game 1.
        stroke_no: strokes played in this game (opening strokes included).
        seed: base seed of the random choices (G-30 ``random``), mixed with ``stroke_no``.
    """

    xy: np.ndarray
    to_move: int = 0
    phase: str = "opening"
    kader: bool = False
    duty: np.ndarray = field(default_factory=lambda: np.zeros(N_BALLS, bool))
    duty_met: bool = False
    turn_strokes: int = 0
    turn_scored: bool = False
    on_spot: np.ndarray = field(default_factory=lambda: np.zeros(N_BALLS, np.int64))
    fouled_spots: np.ndarray = field(default_factory=lambda: np.zeros((N_SIDES, 5), bool))
    turns: int = 0
    idle_turns: int = 0
    winner: int = -1
    games_won: np.ndarray = field(default_factory=lambda: np.zeros(N_SIDES, np.int64))
    game_no: int = 0
    match_winner: int = -1
    partner: np.ndarray = field(default_factory=lambda: np.zeros(N_SIDES, np.int64))
    openers: np.ndarray = field(default_factory=lambda: np.zeros(N_SIDES, np.int64))
    first_openers: np.ndarray = field(default_factory=lambda: np.zeros(N_SIDES, np.int64))
    stroke_no: int = 0
    seed: int = 0

    # -- derived ------------------------------------------------------------------------------
    @property
    def on_table(self) -> np.ndarray:
        """(10,) bool: ball still on the table."""
        return ~np.isnan(self.xy[:, 0])

    @property
    def balls_left(self) -> np.ndarray:
        """(2,) balls each side still has on the table."""
        return np.bincount(SIDE_OF[self.on_table], minlength=N_SIDES)

    @property
    def scored(self) -> np.ndarray:
        """(2,) balls each side has scored in this game."""
        return BALLS_PER_SIDE - self.balls_left

    def copy(self) -> GolfState:
        return copy.deepcopy(self)

    @classmethod
    def with_balls(cls, balls: dict, geo: GolfGeometry | None = None, **fields: Any) -> GolfState:
        """A play-phase state with only ``balls`` (id or index -> (x, y)) on the table.

        Example:
            >>> st = GolfState.with_balls({"w1": (0.5, 0.0), "r1": (-0.5, 0.0)}, to_move=0)
            >>> st.balls_left.tolist(), st.phase
            ([1, 1], 'play')
        """
        geo = geo or golf_geometry()
        xy = np.full((N_BALLS, 2), np.nan)
        for b, p in balls.items():
            xy[ball_index(b, geo)] = as_points(p, f"position of {b!r}")
        st = cls(xy=xy, phase="play")
        for name, v in fields.items():
            if not hasattr(st, name):
                raise ValueError(f"GolfState has no field {name!r}")
            setattr(st, name, v)
        validate_state(st, geo)
        return st

    # -- JSON ---------------------------------------------------------------------------------
    def to_json(self, geo: GolfGeometry | None = None) -> dict:
        """The game-state JSON of docs/rules_golfbillard.md."""
        geo = geo or golf_geometry()
        ids = geo.ball_ids
        return {
            "game": "golfbillard",
            "phase": self.phase,
            "to_move": int(self.to_move),
            "balls": {ids[b]: None if np.isnan(self.xy[b, 0]) else
                      [float(self.xy[b, 0]), float(self.xy[b, 1])] for b in range(N_BALLS)},
            "kader": bool(self.kader),
            "turn": {"strokes": int(self.turn_strokes), "scored": bool(self.turn_scored),
                     "duty": [ids[b] for b in np.flatnonzero(self.duty)],
                     "duty_met": bool(self.duty_met)},
            "on_spot": {ids[b]: int(self.on_spot[b]) for b in np.flatnonzero(self.on_spot)},
            "fouled_spots": [[int(k) + 1 for k in np.flatnonzero(self.fouled_spots[s])]
                             for s in range(N_SIDES)],
            "turns": int(self.turns),
            "idle_turns": int(self.idle_turns),
            "winner": None if self.winner < 0 else ("draw" if self.winner == 2 else
                                                     int(self.winner)),
            "match": {"games_won": [int(x) for x in self.games_won], "game": int(self.game_no),
                      "winner": None if self.match_winner < 0 else
                      ("draw" if self.match_winner == 2 else int(self.match_winner))},
            "partner": [int(x) for x in self.partner],
            "openers": [int(x) for x in self.openers],
            "first_openers": [int(x) for x in self.first_openers],
            "stroke": int(self.stroke_no),
            "seed": int(self.seed),
        }

    @classmethod
    def from_json(cls, obj: dict, geo: GolfGeometry | None = None,
                  rules: GolfRules | None = None, path: str = "state") -> GolfState:
        """Parse the game-state JSON (docs/rules_golfbillard.md) and :func:`check_state` it.

        Raises:
            RefereeInputError (a ValueError): one line naming the JSON path (``state.balls.w1``,
                ``state.match.games_won[1]``) of an unknown key, a missing or mistyped value, an
                illegal position or an inconsistency.
        """
        geo = geo or golf_geometry()
        ids = geo.ball_ids
        obj = req_obj(obj, path, _STATE_KEYS, ("balls",))
        req_choice(obj.get("game", "golfbillard"), f"{path}.game", ("golfbillard",))
        balls = req_obj(obj["balls"], f"{path}.balls", ids)
        xy = np.full((N_BALLS, 2), np.nan)
        for b, bid in enumerate(ids):
            if bid not in balls:
                raise RefereeInputError(f"{path}.balls.{bid} is missing (null for a scored ball)")
            if balls[bid] is not None:
                xy[b] = req_xy(balls[bid], f"{path}.balls.{bid}")
        st = new_game_state(geo=geo)
        st.xy = xy
        st.phase = req_choice(obj.get("phase", "play"), f"{path}.phase", PHASES)
        st.to_move = req_choice(obj.get("to_move", 0), f"{path}.to_move", (0, 1))
        st.kader = req_bool(obj.get("kader", False), f"{path}.kader")
        tp = f"{path}.turn"
        turn = req_obj(obj.get("turn", {}), tp, ("strokes", "scored", "duty", "duty_met"))
        st.turn_strokes = req_int(turn.get("strokes", 0), f"{tp}.strokes", 0)
        st.turn_scored = req_bool(turn.get("scored", False), f"{tp}.scored")
        st.duty = np.zeros(N_BALLS, bool)
        for k, bid in enumerate(req_list(turn.get("duty", []), f"{tp}.duty")):
            st.duty[req_name(bid, f"{tp}.duty[{k}]", ids, "ball")] = True
        st.duty_met = req_bool(turn.get("duty_met", False), f"{tp}.duty_met")
        st.on_spot = np.zeros(N_BALLS, np.int64)
        for bid, k in req_obj(obj.get("on_spot", {}), f"{path}.on_spot").items():
            st.on_spot[req_name(bid, f"{path}.on_spot.{bid}", ids, "ball")] = req_int(
                k, f"{path}.on_spot.{bid}", 1, 5)
        fs = req_list(obj.get("fouled_spots", [[], []]), f"{path}.fouled_spots", N_SIDES)
        st.fouled_spots = np.zeros((N_SIDES, 5), bool)
        for side in range(N_SIDES):
            sp = f"{path}.fouled_spots[{side}]"
            for n, k in enumerate(req_list(fs[side], sp, max_len=5)):
                st.fouled_spots[side, req_int(k, f"{sp}[{n}]", 1, 5) - 1] = True
        st.turns = req_int(obj.get("turns", 0), f"{path}.turns", 0)
        st.idle_turns = req_int(obj.get("idle_turns", 0), f"{path}.idle_turns", 0)
        st.winner = _result(obj.get("winner"), f"{path}.winner")
        mp = f"{path}.match"
        match = req_obj(obj.get("match", {}), mp, ("games_won", "game", "winner"))
        st.games_won = np.array([req_int(x, f"{mp}.games_won[{k}]", 0) for k, x in enumerate(
            req_list(match.get("games_won", [0, 0]), f"{mp}.games_won", N_SIDES))], np.int64)
        st.game_no = req_int(match.get("game", 0), f"{mp}.game", 0)
        st.match_winner = _result(match.get("winner"), f"{mp}.winner")
        for name in ("partner", "openers", "first_openers"):
            v = req_list(obj.get(name, [0, 0]), f"{path}.{name}", N_SIDES)
            setattr(st, name, np.array([req_choice(x, f"{path}.{name}[{k}]", (0, 1))
                                        for k, x in enumerate(v)], np.int64))
        st.stroke_no = req_int(obj.get("stroke", 0), f"{path}.stroke", 0)
        st.seed = req_int(obj.get("seed", 0), f"{path}.seed", 0)
        check_state(st, rules, geo, path)
        return st


_STATE_KEYS = ("game", "phase", "to_move", "balls", "kader", "turn", "on_spot", "fouled_spots",
               "turns", "idle_turns", "winner", "match", "partner", "openers", "first_openers",
               "stroke", "seed")


def _result(v: Any, path: str) -> int:
    """A game or match result: null -> -1, side 0 / 1, ``"draw"`` -> 2."""
    return {None: -1, "draw": 2, 0: 0, 1: 1}[req_choice(v, path, (None, 0, 1, "draw"))]


@functools.lru_cache(maxsize=1)
def _ball_params() -> PhysicsParams:
    """The golfbillard physical parameters (for the layout check)."""
    return load_params("golfbillard")


def validate_state(state: GolfState, geo: GolfGeometry | None = None, path: str = "state"
                   ) -> None:
    """Raise RefereeInputError (a ValueError) if a ball position is not finite, leaves the
    cloth, overlaps a cap or another ball, or lies inside a goal (the physics' layout check)."""
    geo = geo or golf_geometry()
    xy = np.asarray(state.xy, dtype=np.float64)
    if xy.shape != (N_BALLS, 2):
        raise RefereeInputError(f"{path}.xy must have shape ({N_BALLS}, 2), got {xy.shape}")
    on = ~np.isnan(xy[:, 0])
    bad = on & ~np.isfinite(xy).all(1)
    if bad.any():
        b = int(np.argmax(bad))
        raise RefereeInputError(f"{path}.balls.{geo.ball_ids[b]} must be finite, got "
                                f"{xy[b].tolist()}")
    params = _ball_params()
    if params.R != geo.R:
        params = replace(params, R=geo.R)
    check_layout(geo.table, params, {f"{path}.balls.{geo.ball_ids[b]}": xy[b]
                                     for b in np.flatnonzero(on)})


def check_state(state: GolfState, rules: GolfRules | None = None,
                geo: GolfGeometry | None = None, path: str = "state") -> None:
    """Raise RefereeInputError unless ``state`` can arise in a match under ``rules``.

    Positions (:func:`validate_state`); while the match runs, both sides have a ball on the
    table (the game ends with a side's last ball, G-6), no match winner, and a game winner only
    from game 2 on; a finished match names its winner; games won fit the games played and, under
    ``rules``, stay below the games to win (G-4) and the G-5 idle turns below the draw limit;
    kader play is on once a side is down to one ball (G-20); the G-14 duty names the moving
    side's balls; a ball on a penalty spot (G-26) is on the table.
    """
    rules = rules or load_golf_rules()
    validate_state(state, geo, path)
    ids = (geo or golf_geometry()).ball_ids
    over = state.phase == "over"
    mp = f"{path}.match"
    if over != (state.match_winner >= 0):
        raise RefereeInputError(f"{mp}.winner must be {'set' if over else 'null'} when "
                                f"{path}.phase is {state.phase!r}")
    if not over:
        left = state.balls_left
        if (left == 0).any():
            raise RefereeInputError(f"{path}.balls: side {int(np.argmin(left))} has no ball "
                                    "left, so its game is over (G-6), but the phase is "
                                    f"{state.phase!r}")
        if (state.winner >= 0) != (state.game_no >= 1):
            raise RefereeInputError(
                f"{path}.winner (of the last finished game) must be "
                f"{'set' if state.game_no else 'null'} in game {state.game_no} of the match")
        if (state.games_won >= rules.games_to_win).any():
            raise RefereeInputError(f"{mp}.games_won = {state.games_won.tolist()} reaches "
                                    f"{rules.games_to_win}, but the match is not over (G-4)")
        if state.game_no >= rules.max_games:
            raise RefereeInputError(f"{mp}.game = {state.game_no}, but a match has at most "
                                    f"{rules.max_games} games (G-4)")
        limit = N_SIDES * rules.no_progress_window
        if limit and state.idle_turns >= limit:
            raise RefereeInputError(f"{path}.idle_turns = {state.idle_turns} reaches the G-5 "
                                    f"limit {limit}, which ends the game as a draw")
        if (left == 1).any() and not state.kader:
            raise RefereeInputError(f"{path}.kader must be true: a side is down to one ball "
                                    "(G-20)")
    if state.games_won.sum() > state.game_no + over:
        raise RefereeInputError(f"{mp}.games_won = {state.games_won.tolist()}: more games won "
                                f"than played ({state.game_no + over})")
    if state.idle_turns > state.turns:
        raise RefereeInputError(f"{path}.idle_turns = {state.idle_turns} exceeds "
                                f"{path}.turns = {state.turns}")
    wrong = np.flatnonzero(state.duty & (SIDE_OF != state.to_move))
    if wrong.size:
        raise RefereeInputError(f"{path}.turn.duty names {ids[wrong[0]]}, which is not a ball "
                                f"of side {state.to_move} (to move, G-14)")
    off = np.flatnonzero((state.on_spot > 0) & ~state.on_table)
    if off.size:
        raise RefereeInputError(f"{path}.on_spot names {ids[off[0]]}, which is not on the "
                                "table")


def new_game_state(rules: GolfRules | None = None, geo: GolfGeometry | None = None,
                   seed: int = 0) -> GolfState:
    """A fresh game: all balls on their start spots, side 0 to move (G-3)."""
    geo = geo or golf_geometry()
    rules = rules or GolfRules()
    st = GolfState(xy=geo.start.copy(), seed=int(seed))
    st.phase = "play" if rules.opening == "alternate" else "opening"
    return st


def defence_duty(xy: np.ndarray, side: int, geo: GolfGeometry | None = None) -> np.ndarray:
    """G-14: own balls of ``side`` in its own great or small defence triangle (line = inside).

    Returns:
        (10,) bool.
    """
    geo = geo or golf_geometry()
    g = defence_goal(side)
    eps = geo.zones.eps_line
    on = ~np.isnan(xy[:, 0])
    pts = np.where(on[:, None], xy, 0.0)
    inside = geo.zones.in_zone(f"great_triangle_{g}", pts, eps) | geo.zones.in_zone(
        f"small_triangle_{g}", pts, -eps)
    return on & (SIDE_OF == side) & inside


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

    def sort_key(self) -> tuple[bool, float, int]:
        # a G-18 kind with no consequence (consultation) goes after every other foul: it must
        # not take the penalty from one that has one
        free = self.rule == "G-18" and not any(BEHAVIOURAL.get(self.kind, ("x",)))
        return (free, self.time, _RANK[self.rule])


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
        game_over: the game ended with this stroke. winner: 0 / 1, -1 while the game goes on.
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


class TableLog:
    """The event log of one table of a batched result, with the queries the rules need."""

    def __init__(self, log: Any, t: int, segments: Callable | None = None):
        self.log, self.t, self._segments = log, t, segments
        n = int(np.asarray(log.n_events)[t])
        self.type = np.asarray(log.ev_type)[t, :n].astype(np.int64)
        self.time = np.asarray(log.ev_time)[t, :n].astype(np.float64)
        self.i = np.asarray(log.ev_i)[t, :n].astype(np.int64)
        self.j = np.asarray(log.ev_j)[t, :n].astype(np.int64)
        self.state = np.asarray(log.ev_state)[t, :n]
        self.t_end = float(np.asarray(log.t_end)[t])
        self.rvw0 = np.asarray(log.rvw0)[t]
        self.rvw = np.asarray(log.rvw)[t]
        self.pocket = np.asarray(log.pocket)[t]
        self.overflow = int(np.asarray(getattr(log, "overflow", np.zeros(t + 1)))[t])

    def involves(self, b: int) -> np.ndarray:
        """(n,) bool: events with ball ``b`` as an agent."""
        return (self.i == b) | ((self.type == EV_BALL_BALL) & (self.j == b))

    def first_contact(self, b: int) -> tuple[int, float, int]:
        """Ball ``b``'s first contact: (event type, time, other agent); (0, inf, -1) if none.

        A contact is a ball_ball, ball_cushion or ball_post event (a drop is not).
        """
        k = np.flatnonzero(self.involves(b) & np.isin(
            self.type, (EV_BALL_BALL, EV_BALL_CUSHION, EV_BALL_POST)))
        if len(k) == 0:
            return 0, math.inf, -1
        k = k[0]
        other = self.j[k] if self.i[k] == b else self.i[k]
        return int(self.type[k]), float(self.time[k]), int(other)

    def rested_before(self, b: int, k: int) -> int:
        """The index of ball ``b``'s coming to rest if that is its last event before event
        ``k``, else -1."""
        prior = np.flatnonzero(self.involves(b)[:k])
        if len(prior) and self.type[prior[-1]] == EV_TRANSITION and \
                self.j[prior[-1]] == STATIONARY:
            return int(prior[-1])
        return -1

    def falls(self, on: np.ndarray) -> dict[int, int]:
        """G-6a: ball -> index of its drop event, for the balls on the table whose first drop
        comes right after they came to rest (no goal: they go back on the rim)."""
        out: dict[int, int] = {}
        seen = set()
        for k in np.flatnonzero(self.type == EV_BALL_POCKET):
            b = int(self.i[k])
            if on[b] and b not in seen:
                seen.add(b)
                if self.rested_before(b, int(k)) >= 0:
                    out[b] = int(k)
        return out

    def rim_point(self, b: int, k: int, goals: np.ndarray) -> np.ndarray:
        """G-6a: where ball ``b``, fallen by drop event ``k`` (``len(events)``: a drop without
        its event), goes back on the rim: where it lay, else where it dropped, else the goal's
        centre, moved out to the hole circle's edge when inside it."""
        n = len(self.type)
        g = int(self.j[k]) if k < n else int(self.pocket[b])
        centre, r = goals[g, :2], goals[g, 2]
        p = centre.copy()
        rest = self.rested_before(b, k) if k < n else -1
        if rest >= 0 and not np.isnan(self.state[rest, 0, 0]):
            p = self.state[rest, 0, :2].astype(np.float64)
        elif k < n and not np.isnan(self.state[k, 0, 0]):
            p = self.state[k, 0, :2].astype(np.float64)
        d = math.hypot(*(p - centre))
        if d < r:
            u = (p - centre) / d if d > 1e-12 else np.array([-math.copysign(1.0, centre[0]), 0.0])
            p = centre + (r + 1e-9) * u  # just outside: on the circle, rounding may put it in
        return p

    def fall_after_rest(self, b: int, drops: list, falls: dict[int, int]) -> tuple[list, bool]:
        """An injected G-6a fall of ball ``b``: ``drops`` without the log's drop of it (that
        drop's event, or ``len(events)`` for a drop without one, goes into ``falls``), and
        whether it gets only a note (the log leaves it on the rim)."""
        if any(d[0] == b for d in drops):
            ks = np.flatnonzero((self.type == EV_BALL_POCKET) & (self.i == b))
            falls[b] = int(ks[0]) if len(ks) else len(self.type)
            return [d for d in drops if d[0] != b], False
        return drops, b not in falls

    def drops(self, on: np.ndarray) -> list[tuple[int, int, float]]:
        """(ball, goal, time) of balls on the table before the stroke that dropped, by time
        (not those that fell after they came to rest: :meth:`falls`)."""
        out = []
        seen = set()
        for k in np.flatnonzero(self.type == EV_BALL_POCKET):
            b = int(self.i[k])
            if on[b] and b not in seen:
                seen.add(b)
                if self.rested_before(b, int(k)) < 0:
                    out.append((b, int(self.j[k]), float(self.time[k])))
        for b in np.flatnonzero(on & (self.pocket >= 0)):  # a pocket without its event
            if int(b) not in seen:
                out.append((int(b), int(self.pocket[b]), self.t_end))
        return sorted(out, key=lambda d: d[2])

    def final_xy(self) -> np.ndarray:
        return self.rvw[:, 0, :2].astype(np.float64)

    def waypoints(self, b: int) -> tuple[np.ndarray, np.ndarray]:
        """Times and centre positions of ball ``b`` at t = 0, at each of its events (up to a
        drop) and at the end. Events without a position (a JSON log) are skipped."""
        ts, ps = [0.0], [self.rvw0[b, 0, :2]]
        for k in np.flatnonzero(self.involves(b)):
            row = 1 if (self.type[k] == EV_BALL_BALL and self.j[k] == b) else 0
            if not np.isnan(self.state[k, row, 0]):
                ts.append(float(self.time[k]))
                ps.append(self.state[k, row, :2])
            if self.type[k] == EV_BALL_POCKET:
                return np.array(ts), np.array(ps, dtype=np.float64)
        ts.append(self.t_end)
        ps.append(self.rvw[b, 0, :2])
        return np.array(ts), np.array(ps, dtype=np.float64)

    def segments(self, b: int) -> Any:
        """Path segments of ball ``b``: the physics path query if given, else straight lines
        between the logged positions (exact for hand-written logs, approximate for curves)."""
        if self._segments is not None:
            return self._segments(self.t, b)
        ts, ps = self.waypoints(b)
        dt = np.diff(ts)
        seg = np.zeros((len(dt), 8))
        seg[:, 0], seg[:, 1] = ts[:-1], ts[1:]
        seg[:, 2:4] = ps[:-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            seg[:, 4:6] = np.where(dt[:, None] > 0, np.diff(ps, axis=0) / dt[:, None], 0.0)
        return seg

    def velocities_before(self, b: int, t_stop: float) -> np.ndarray:
        """Velocities (k, 2) of ball ``b`` from t = 0 up to ``t_stop`` at every point where the
        heading can be extreme: after the strike, after each transition, and (with physics
        segments) at the end of each segment. Within a segment the acceleration is constant,
        so the heading is monotone between these points."""
        vs = [self.rvw0[b, 1, :2]]
        for k in np.flatnonzero((self.i == b) & (self.type == EV_TRANSITION)):
            if self.time[k] < t_stop:
                vs.append(self.state[k, 0, 2:4])
        if self._segments is not None:
            for s in as_segments(self._segments(self.t, b)):
                if s[0] < t_stop:
                    tau = min(s[1], t_stop) - s[0]
                    vs.append(s[4:6] + 2.0 * s[6:8] * tau)
        return np.array(vs, dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# Hand-written logs (tests, replays, human input)
# ---------------------------------------------------------------------------------------------


class LogBuilder:
    """Build a one-table event log with the SimResult fields from a few hand-written events.

    Each ball moves in straight lines between the positions given at its events; a ball that is
    never mentioned stays where it was.

    Example:
        >>> from cuegym.rules.golfbillard import LogBuilder, new_game_state
        >>> st = new_game_state()
        >>> log = (LogBuilder(st.xy).strike("w1", v=(1.5, 0.0))
        ...        .rest("w1", (0.2, 0.0), 1.0).build())
        >>> int(log.n_events[0]), float(log.t_end[0])
        (1, 1.0)
    """

    def __init__(self, xy: np.ndarray, geo: GolfGeometry | None = None):
        self.geo = geo or golf_geometry()
        self.xy0 = np.array(xy, dtype=np.float64)
        self.v0 = np.zeros((N_BALLS, 2))
        self.final = self.xy0.copy()
        self.pocket = np.full(N_BALLS, -1)
        self.events: list[tuple[float, int, int, int, np.ndarray, np.ndarray]] = []

    def _b(self, ball: Any) -> int:
        return ball_index(ball, self.geo)

    def strike(self, ball: Any, v: Sequence[float]) -> LogBuilder:
        """The struck ball leaves with velocity ``v`` [m/s] at t = 0."""
        self.v0[self._b(ball)] = v
        return self

    def _add(self, t: float, typ: int, i: int, j: int, pi: Any, pj: Any = None,
             vi: Sequence[float] = (0.0, 0.0)) -> LogBuilder:
        si = np.zeros(7)
        si[:2] = pi
        si[2:4] = vi
        sj = np.zeros(7)
        if pj is not None:
            sj[:2] = pj
        self.events.append((float(t), typ, i, j, si, sj))
        if typ != EV_BALL_POCKET:
            self.final[i] = pi
            if pj is not None:
                self.final[j] = pj
        return self

    def ball_ball(self, t: float, a: Any, b: Any, at_a: Sequence[float],
                  at_b: Sequence[float] | None = None) -> LogBuilder:
        """Balls ``a`` and ``b`` collide at time ``t``, centres ``at_a`` and ``at_b``."""
        ia, ib = self._b(a), self._b(b)
        if at_b is None:
            at_b = self.final[ib]
        if ia > ib:
            ia, ib, at_a, at_b = ib, ia, at_b, at_a
        return self._add(t, EV_BALL_BALL, ia, ib, at_a, at_b)

    def cushion(self, t: float, ball: Any, cushion: int, at: Sequence[float]) -> LogBuilder:
        """``ball`` hits straight cushion ``cushion`` (0 y=-W/2, 1 x=+L/2, 2 y=+W/2, 3 x=-L/2)."""
        return self._add(t, EV_BALL_CUSHION, self._b(ball), int(cushion), at)

    def post(self, t: float, ball: Any, cap: int, at: Sequence[float]) -> LogBuilder:
        """``ball`` hits cap ``cap`` (index into table.circles)."""
        return self._add(t, EV_BALL_POST, self._b(ball), int(cap), at)

    def drop(self, t: float, ball: Any, goal: int, at: Sequence[float] | None = None) -> LogBuilder:
        """``ball`` drops into goal ``goal`` at time ``t`` (centre ``at``, default the goal)."""
        b = self._b(ball)
        at = self.geo.goals[goal, :2] if at is None else at
        self.pocket[b] = goal
        self.final[b] = at
        return self._add(t, EV_BALL_POCKET, b, int(goal), at)

    def turn(self, t: float, ball: Any, at: Sequence[float], v: Sequence[float],
             motion: int = ROLLING) -> LogBuilder:
        """A motion transition of ``ball`` at ``at`` with velocity ``v`` after it (masse, piqué)."""
        return self._add(t, EV_TRANSITION, self._b(ball), motion, at, None, v)

    def rest(self, ball: Any, at: Sequence[float], t: float) -> LogBuilder:
        """``ball`` comes to rest at ``at`` at time ``t``."""
        return self._add(t, EV_TRANSITION, self._b(ball), STATIONARY, at)

    def build(self) -> SimpleNamespace:
        """A SimResult-like object with one table (T = 1)."""
        ev = sorted(self.events, key=lambda e: e[0])
        K = max(len(ev), 1)
        B = N_BALLS
        rvw0 = np.zeros((1, B, 3, 3))
        rvw0[0, :, 0, :2] = np.nan_to_num(self.xy0)
        rvw0[0, :, 1, :2] = self.v0
        rvw = np.zeros((1, B, 3, 3))
        rvw[0, :, 0, :2] = np.nan_to_num(self.final)
        absent = np.isnan(self.xy0[:, 0])
        motion = np.where((self.pocket >= 0) | absent, POCKETED, STATIONARY)[None]
        motion0 = np.where(absent, POCKETED, np.where(np.any(self.v0 != 0, 1), SLIDING,
                                                       STATIONARY))[None]
        out = SimpleNamespace(
            rvw=rvw, rvw0=rvw0, motion=motion.astype(np.int32), motion0=motion0.astype(np.int32),
            pocket=np.where(absent, -1, self.pocket)[None].astype(np.int32),
            ev_type=np.zeros((1, K), np.int8), ev_time=np.zeros((1, K)),
            ev_i=np.zeros((1, K), np.int32), ev_j=np.zeros((1, K), np.int32),
            ev_state=np.zeros((1, K, 2, 7)), ev_motion=np.zeros((1, K, 2), np.int8),
            n_events=np.array([len(ev)], np.int32),
            t_end=np.array([max([e[0] for e in ev], default=0.0)]),
            overflow=np.zeros(1, np.int8))
        for k, (t, typ, i, j, si, sj) in enumerate(ev):
            out.ev_type[0, k], out.ev_time[0, k] = typ, t
            out.ev_i[0, k], out.ev_j[0, k] = i, j
            out.ev_state[0, k, 0], out.ev_state[0, k, 1] = si, sj
        return out


def stack_logs(logs: Sequence[Any]) -> SimpleNamespace:
    """Stack one-table logs (e.g. from :class:`LogBuilder`) into one batch, padding the events."""
    K = max(np.asarray(lg.ev_type).shape[1] for lg in logs)
    out = {}
    for name in ("rvw", "rvw0", "motion", "motion0", "pocket", "n_events", "t_end", "overflow"):
        out[name] = np.concatenate([np.asarray(getattr(lg, name)) for lg in logs])
    for name in ("ev_type", "ev_time", "ev_i", "ev_j", "ev_state", "ev_motion"):
        parts = []
        for lg in logs:
            a = np.asarray(getattr(lg, name))
            pad = [(0, 0)] * a.ndim
            pad[1] = (0, K - a.shape[1])
            parts.append(np.pad(a, pad))
        out[name] = np.concatenate(parts)
    return SimpleNamespace(**out)


# ---------------------------------------------------------------------------------------------
# Geometry of a stroke
# ---------------------------------------------------------------------------------------------


def _ray_hits_segment(p: np.ndarray, d: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """Does the ray p + s d (s >= 0) cross the segment a-b?"""
    e = b - a
    M = np.array([[d[0], -e[0]], [d[1], -e[1]]])
    det = np.linalg.det(M)
    if abs(det) < 1e-15:
        return False
    s, u = np.linalg.solve(M, a - p)
    return s >= 0.0 and -1e-12 <= u <= 1.0 + 1e-12


def _ray_dist(p: np.ndarray, d: np.ndarray, c: np.ndarray) -> float:
    """Closest approach of the ray p + s d (s >= 0, |d| = 1) to the point c."""
    s = max(float(np.dot(c - p, d)), 0.0)
    return float(np.linalg.norm(p + s * d - c))


def direct_goal_attempt(p: np.ndarray, d: np.ndarray, goal: int, geo: GolfGeometry) -> bool:
    """G-10a: the line of the initial direction ``d`` from ``p`` passes between goal ``goal``'s
    caps, or within R + r_cap of one of their centres."""
    ca, cb = geo.caps[geo.zones.goal_caps[goal]]
    if _ray_hits_segment(p, d, ca, cb):
        return True
    return toward_goal_cap(p, d, goal, geo)


def toward_goal_cap(p: np.ndarray, d: np.ndarray, goal: int, geo: GolfGeometry) -> bool:
    """G-10 (b): the initial direction passes within R + r_cap of one of goal ``goal``'s caps."""
    reach = geo.R + geo.r_cap
    return any(_ray_dist(p, d, c) <= reach for c in geo.caps[geo.zones.goal_caps[goal]])


def frozen_contacts(xy: np.ndarray, c: int, geo: GolfGeometry, gap: float
                    ) -> list[tuple[str, int, np.ndarray]]:
    """G-13: what the cue ball ``c`` is frozen to (gap < ``gap``): (kind, index, unit vector
    from the cue-ball centre toward it), kind ``ball``, ``cushion`` or ``cap``."""
    p = xy[c]
    out = []
    R = geo.R
    for b in np.flatnonzero(~np.isnan(xy[:, 0])):
        if b == c:
            continue
        dv = xy[b] - p
        dist = float(np.hypot(*dv))
        if dist - 2 * R < gap:
            out.append(("ball", int(b), dv / dist))
    for k, cu in enumerate(geo.table.cushions):
        n = np.array([cu.nx, cu.ny])
        a, b2 = np.array([cu.x1, cu.y1]), np.array([cu.x2, cu.y2])
        e = b2 - a
        s = float(np.dot(p - a, e) / np.dot(e, e))
        if 0.0 <= s <= 1.0 and float(np.dot(p - a, n)) - R < gap:
            out.append(("cushion", k, -n))
    for k, cc in enumerate(geo.caps):
        dv = cc - p
        dist = float(np.hypot(*dv))
        if dist - R - geo.r_cap < gap:
            out.append(("cap", k, dv / dist))
    return out


# ---------------------------------------------------------------------------------------------
# Penalty spots (G-26 .. G-30)
# ---------------------------------------------------------------------------------------------


def _spot_free(p: np.ndarray, xy: np.ndarray, geo: GolfGeometry) -> bool:
    """G-30: a ball placed at ``p`` overlaps no ball on the table."""
    on = ~np.isnan(xy[:, 0])
    if not np.any(on):
        return True
    return bool(np.all(np.hypot(*(xy[on] - p).T) >= 2 * geo.R - 1e-9))


def rim_balls_clear(final: np.ndarray, fell: Iterable[int], gone: set[int],
                    geo: GolfGeometry) -> None:
    """G-6a: a ball put back on the rim where another ball (not ``gone``) now lies, or whose
    rim point is off the cloth, goes to the free point nearest it (G-30) instead."""
    R = geo.R
    hx, hy = geo.table.length / 2 - R, geo.table.width / 2 - R
    for b in sorted(fell):
        p = final[b].copy()
        if np.isnan(p[0]):
            continue
        others = final.copy()
        others[[b, *gone]] = np.nan
        on = ~np.isnan(others[:, 0])
        if (abs(p[0]) <= hx and abs(p[1]) <= hy
                and not np.any(np.hypot(*(others[on] - p).T) < 2 * R)):
            continue
        final[b] = nearest_free_point(p, others, geo)


def nearest_free_point(target: np.ndarray, xy: np.ndarray, geo: GolfGeometry) -> np.ndarray:
    """G-30: the free point nearest ``target`` where a ball touches no ball, cap or goal and
    lies on the cloth: the nearest free one of the target, the points of each obstacle circle
    and cloth side nearest it, and the crossings of two of those (ties: the first)."""
    R = geo.R
    hx, hy = geo.table.length / 2 - R, geo.table.width / 2 - R
    balls = xy[~np.isnan(xy[:, 0])]

    def free(p):
        return bool(abs(p[0]) <= hx and abs(p[1]) <= hy
                    and np.all(np.hypot(*(geo.caps - p).T) >= R + geo.r_cap)
                    and np.all(np.hypot(*(geo.goals[:, :2] - p).T) > geo.goals[:, 2] + 1e-6)
                    and np.all(np.hypot(*(balls - p).T) >= 2 * R))

    t = np.asarray(target, float)
    if free(t):
        return t.copy()
    discs = ([(b, 2 * R + 1e-9) for b in balls] + [(c, R + geo.r_cap + 1e-9) for c in geo.caps]
             + [(g[:2], g[2] + 2e-6) for g in geo.goals])
    sides = [(0, hx), (0, -hx), (1, hy), (1, -hy)]  # coordinate axis = value
    cands = []
    for c, r in discs:
        d = np.hypot(*(t - c))
        if d >= 1e-12:
            cands.append(c + r * (t - c) / d)
    for ax, v in sides:
        p = t.copy()
        p[ax] = v
        cands.append(p)
    for k, (c1, r1) in enumerate(discs):
        for c2, r2 in discs[k + 1:]:
            d = np.hypot(*(c2 - c1))
            if 1e-12 <= d <= r1 + r2 and d >= abs(r1 - r2):
                a = (r1 ** 2 - r2 ** 2 + d ** 2) / (2 * d)
                h = math.sqrt(max(r1 ** 2 - a ** 2, 0.0))
                m, u = c1 + a * (c2 - c1) / d, np.array([-(c2 - c1)[1], (c2 - c1)[0]]) / d
                cands += [m + h * u, m - h * u]
    for c, r in discs:
        for ax, v in sides:
            off = v - c[ax]
            if abs(off) <= r:
                h = math.sqrt(r * r - off * off)
                for sgn in (h, -h):
                    p = np.empty(2)
                    p[ax], p[1 - ax] = v, c[1 - ax] + sgn
                    cands.append(p)
    cands += [np.array([x, y]) for x in (hx, -hx) for y in (hy, -hy)]
    for c, r in discs:  # a disc centred on the target: its whole circle is as near
        if np.hypot(*(c - t)) < 1e-12:
            ang = 2 * np.pi * np.arange(3600) / 3600
            cands += list(c + r * np.stack([np.cos(ang), np.sin(ang)], axis=1))
    best, out = np.inf, None
    for p in cands:
        d = float(np.hypot(*(p - t)))
        if d < best - 1e-12 and free(p):
            best, out = d, p
    if out is None:
        raise RuntimeError("no free point on the table")  # cannot happen with 10 balls
    return out


def choose_spot(ball: int, xy: np.ndarray, geo: GolfGeometry, policy: str,
                rng: np.random.Generator, choice: Any = None,
                allowed: Sequence[int] | None = None, side: int | None = None
                ) -> tuple[int, np.ndarray]:
    """Where one penalised ball goes (G-30), on the spots of the offender ``side`` (None: the
    ball's own side).

    The opponent chooses a free spot among 1-3; if none is free, 4, then 5; if all are blocked,
    the free point nearest spot 3 (returned as spot 0). ``allowed`` (G-26) restricts the order to
    those spots (first free wins); if none of them is free the normal choice applies.

    Args:
        ball: the ball to place (its side gives the spot orientation, G-27..G-29).
        xy: (10, 2) current positions, the ball itself already lifted (NaN).
        policy: ``first_free``, ``random`` or ``agent``.
        choice: for ``agent``: a spot number, or a callable ``(ball, free_spots, xy) -> spot``.

    Returns:
        (spot number 0..5, centre [m]).
    """
    spots = geo.zones.penalty_spots[SIDE_OF[ball] if side is None else side]
    free = [k for k in range(1, 6) if _spot_free(spots[k - 1], xy, geo)]
    if allowed is not None:
        for k in allowed:
            if k in free:
                return k, spots[k - 1].copy()
    first3 = [k for k in free if k <= 3]
    if first3:
        if policy == "first_free":
            k = first3[0]
        elif policy == "random":
            k = int(rng.choice(first3))
        else:  # agent
            k = choice(ball, first3, xy) if callable(choice) else choice
            if k not in first3:
                raise ValueError(f"spot choice {k!r} for ball {geo.ball_ids[ball]} is not a free "
                                 f"spot among {first3}")
        return int(k), spots[k - 1].copy()
    for k in (4, 5):
        if k in free:
            return k, spots[k - 1].copy()
    return 0, nearest_free_point(spots[2], xy, geo)


def place_on_spots(balls: Sequence[int], xy: np.ndarray, geo: GolfGeometry, rules: GolfRules,
                   rng: np.random.Generator, spots: Any = None,
                   allowed: dict[int, list[int]] | None = None, offender: int | None = None
                   ) -> tuple[list[tuple[int, int]], list]:
    """Put ``balls`` on penalty spots one at a time, in that order (G-30, G-26), the spots of
    side ``offender`` (None: each ball's own side).

    Args:
        balls: the balls to place; ``xy`` (10, 2) is updated in place (they must be NaN there).
        spots: the opponent's choices for ``rules.spot_policy = 'agent'``: a list of spot
            numbers consumed in placing order, or a callable ``(ball, free_spots, xy) -> spot``.
            A choice is consumed only where the opponent has one (a free spot among 1-3);
            a ball with a G-26 ``allowed`` spot free goes there without a choice.
        allowed: ball -> the spots G-26 still allows for it (first free wins).

    Returns:
        ((ball, spot) placed, list entries of ``spots`` left unused).
    """
    pending = list(spots) if isinstance(spots, (list, tuple)) else None
    spotted = []
    for b in balls:
        side = SIDE_OF[b] if offender is None else offender
        own = geo.zones.penalty_spots[side]
        allow = (allowed or {}).get(b)
        ch = None
        if allow is not None and any(_spot_free(own[k - 1], xy, geo) for k in allow):
            k, p = choose_spot(b, xy, geo, "first_free", rng, None, allow, side)
        else:
            if rules.spot_policy == "agent" and any(_spot_free(own[k - 1], xy, geo)
                                                    for k in (1, 2, 3)):
                if pending is not None:
                    if not pending:
                        raise ValueError(f"spot_policy 'agent' needs a spot choice for "
                                         f"{geo.ball_ids[b]}; choices['spots'] ran out")
                    ch = pending.pop(0)
                elif callable(spots):
                    ch = spots
                else:
                    raise ValueError(f"spot_policy 'agent' needs choices['spots'] (a list of "
                                     f"spot numbers or a callable), got {spots!r}")
            k, p = choose_spot(b, xy, geo, rules.spot_policy, rng, ch, None, side)
        xy[b] = p
        spotted.append((int(b), int(k)))
    return spotted, pending or []


# ---------------------------------------------------------------------------------------------
# The referee
# ---------------------------------------------------------------------------------------------


def _rng_for(state: GolfState) -> np.random.Generator:
    return np.random.default_rng([int(state.seed), int(state.game_no), int(state.stroke_no)])


def _injected(events: Any, geo: GolfGeometry, t_end: float, path: str = "inject"
              ) -> list[dict]:
    """Validate one stroke's injected events (module docstring); errors name ``path[k].key``."""
    out = []
    for k, e in enumerate(req_list([] if events is None else events, path)):
        ep = f"{path}[{k}]"
        e = dict(req_obj(e, ep, ("type", "ball", "time", "goal", "where", "kind", "side",
                                 "restore"), ("type",)))
        req_choice(e["type"], f"{ep}.type", INJECTED_TYPES)
        if "ball" in e:
            e["ball"] = ball_index(e["ball"], geo, f"{ep}.ball")
        elif e["type"] != "foul":
            raise RefereeInputError(f"{ep}.ball is missing (a {e['type']!r} event names its "
                                    "ball)")
        e["time"] = req_num(e.get("time", 0.0 if e["type"] == "foul" else t_end), f"{ep}.time",
                            lo=0.0)
        if e["type"] == "foul":
            req_choice(e.get("kind"), f"{ep}.kind", tuple(BEHAVIOURAL))
        if "side" in e:
            req_choice(e["side"], f"{ep}.side", (0, 1))
        if "restore" in e:
            e["restore"] = _restore_list(e, geo)
        if e["type"] == "jam":
            if "goal" in e:
                req_choice(e["goal"], f"{ep}.goal", (0, 1))
            elif e.get("where") != "cap_cushion":
                raise RefereeInputError(f"{ep} (a jam) needs 'goal': 0 / 1 or 'where': "
                                        f"'cap_cushion', got {show(e)}")
        out.append(e)
    return out


def _restore_list(e: dict, geo: GolfGeometry) -> tuple[tuple[int, float, float], ...]:
    """The ``restore`` of a G-18 deflect event: ``{ball: [x, y]}`` of the balls the foul
    displaced, as ``(ball, x, y)``. Only the RF kinds take it; the touched ball itself is dealt
    with by the rule (penalty spot or goal), so it cannot be restored."""
    if e["type"] != "foul" or e.get("kind") not in RESTORE_KINDS:
        raise ValueError(f"'restore' is only for the G-18 kinds {sorted(RESTORE_KINDS)} (they put "
                         f"back the balls the foul displaced); {e.get('kind') or e['type']!r} "
                         f"puts back every moved ball (RA) or none, got {e!r}")
    rest = e["restore"]
    if not isinstance(rest, dict):
        raise ValueError(f"injected restore must map ball ids to [x, y], got {rest!r}")
    out = []
    for bid, p in rest.items():
        b = ball_index(bid, geo)
        if b == e.get("ball"):
            raise ValueError(f"restore names the touched ball {geo.ball_ids[b]}: it goes to a "
                             "penalty spot or into its goal by the rule, not back")
        q = as_points(p, f"restore[{bid!r}]")
        if q.shape != (2,):
            raise ValueError(f"restore[{bid!r}] must be one point [x, y], got {p!r}")
        out.append((b, float(q[0]), float(q[1])))
    return tuple(out)


def score_strokes(states: GolfState | Sequence[GolfState], log: Any, cue_ball: Any,
                  cue: Any = None, *, injected: Any = None, players: Any = None,
                  segments: Callable | None = None, choices: Any = None,
                  rules: GolfRules | None = None, geo: GolfGeometry | None = None,
                  rngs: Sequence[np.random.Generator] | None = None,
                  allow_overflow: bool = False) -> list[GolfOutcome]:
    """Referee T strokes at once (one per table of ``log``).

    Args:
        states: the GolfState of each table before its stroke (phase ``play``), or one state
            when T = 1.
        log: the physics result (SimResult fields, leading axis T).
        cue_ball: (T,) ball struck on each table (index or id).
        cue: (T, 5) strike V0, phi, theta, a, b (deg); theta feeds G-10 (b). Optional.
        injected: per table a list of injected events (module docstring); a flat list when T = 1.
        players: (T,) duo partner (0 / 1) who struck (G-31). Required with ``rules.duo``
            (a partner other than the due one is a G-18 ``out_of_turn`` foul); without duo
            play only None or 0 (a singles side has one player) are accepted.
        segments: ``(table, ball) -> path segments`` (physics path query); default: straight
            lines between logged positions.
        choices: per table a dict of the opponent's choices (or None): ``spots`` (a list of
            spot numbers, one per placed ball in placing order, or a callable ``(ball,
            free_spots, xy) -> spot``; needs ``rules.spot_policy = 'agent'``) and ``pick``
            (G-25: the offender's ball, or a callable ``(balls, xy) -> ball``; needs
            ``rules.pick_policy = 'agent'``). A choice whose option is not set is a ValueError;
            entries the stroke did not need are reported in ``notes``.
        rules, geo: rule-set options and static game facts (defaults: the shipped configs).
        rngs: per table random generators for the ``random`` policies (default: from the
            state's seed and stroke number).
        allow_overflow: score a stroke whose simulation stopped at ``max_events`` / ``t_max``
            (physics ``overflow`` != 0) where its log ended, with a note; by default such a
            stroke is refused, since the rules judge balls at rest.

    Returns:
        One GolfOutcome per table.

    Raises:
        ValueError: bad input (the message names it), a choice or partner the rule options do
            not use, or an overflowed simulation without ``allow_overflow``.
    """
    rules = rules or GolfRules()
    geo = geo or golf_geometry()
    T = int(np.asarray(log.n_events).shape[0])
    if isinstance(states, GolfState):
        states = [states]
    if len(states) != T:
        raise ValueError(f"got {len(states)} states for a log of {T} tables")
    check_log(log, np.stack([st.on_table for st in states]), geo)
    cb = np.atleast_1d(np.asarray(cue_ball, dtype=object))
    if cb.shape != (T,):
        raise ValueError(f"cue_ball must have shape ({T},), got {cb.shape}: {cue_ball!r}")
    cb = np.array([ball_index(b, geo) for b in cb])
    if cue is None:
        cue_arr = np.zeros((T, 5))
    else:
        cue_arr = np.asarray(cue, dtype=np.float64).reshape(-1, 5) if np.size(cue) else None
        if cue_arr is None or cue_arr.shape != (T, 5) or not np.all(np.isfinite(cue_arr)):
            raise ValueError(f"cue must be finite with shape ({T}, 5), got {cue!r}")
    if injected is None:
        injected = [[] for _ in range(T)]
    elif T == 1 and (len(injected) == 0 or isinstance(injected[0], dict)):
        injected = [injected]
    if len(injected) != T:
        raise ValueError(f"injected must hold one list per table ({T}), got {injected!r}")
    if players is None:
        players = [None] * T
    players = list(np.atleast_1d(np.asarray(players, dtype=object)))
    if choices is None:
        choices = [{} for _ in range(T)]
    elif isinstance(choices, dict):
        choices = [choices]
    if len(players) != T or len(choices) != T:
        raise ValueError(f"players and choices need one entry per table ({T})")
    for t in range(T):
        choices[t] = check_choices(choices[t], rules, f"choices[{t}]")
        players[t] = check_player(players[t], rules, f"players[{t}]")
    check_overflow(log, allow_overflow)

    # --- vectorised facts over all tables: initial velocity of each cue ball -----------------
    rvw0 = np.asarray(log.rvw0)
    v0 = rvw0[np.arange(T), cb, 1, :2]
    speed0 = np.hypot(v0[:, 0], v0[:, 1])
    phi = np.radians(cue_arr[:, 1])
    d0 = np.where(speed0[:, None] > 1e-9, v0 / np.maximum(speed0, 1e-300)[:, None],
                  np.stack([np.cos(phi), np.sin(phi)], axis=1))
    before = np.stack([np.asarray(st.xy, dtype=np.float64) for st in states])
    if before.shape != (T, N_BALLS, 2):
        raise ValueError(f"state.xy must have shape ({N_BALLS}, 2), got {before.shape[1:]}")
    zf = zone_facts(before, np.asarray(log.rvw)[:, :, 0, :2], geo)
    outs = []
    for t in range(T):
        st = states[t]
        if st.phase != "play":
            raise ValueError(f"table {t}: state phase is {st.phase!r}; score_strokes scores "
                             f"'play' strokes (the opening is golfbillard_game.score_opening)")
        tl = TableLog(log, t, segments)
        rng = rngs[t] if rngs is not None else _rng_for(st)
        zt = {k: v[t] for k, v in zf.items()}
        outs.append(_referee(st, tl, zt, int(cb[t]), float(speed0[t]), d0[t],
                             float(cue_arr[t, 2]), _injected(injected[t], geo, tl.t_end),
                             players[t], choices[t], rules, geo, rng))
    return outs


#: The option that enables each key of ``choices`` (G-30 spots, G-25 pick).
CHOICE_OPTIONS = {"spots": "spot_policy", "pick": "pick_policy"}


def check_choices(choices: Any, rules: GolfRules, where: str = "choices") -> dict:
    """The opponent's choices of one stroke, checked against the rule options.

    Returns a dict (empty for None). Raises ValueError for anything but a mapping with keys
    ``spots`` / ``pick``, and for a key whose option (``spot_policy`` / ``pick_policy``) is not
    ``agent``: such a choice would be ignored, so it is refused.
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
            raise ValueError(f"{where}[{key!r}] is given but rules.{option} is "
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


def limit_note(overflow: int) -> str:
    """The note of a stroke cut off at a simulation limit (physics ``overflow`` 1 / 2)."""
    limit = ("", "max_events", "t_max")[overflow]
    return (f"the simulation stopped at a limit ({limit}) before every ball came to rest; "
            "scored as it stood (allow_overflow)")


def check_overflow(log: Any, allow_overflow: bool, tables: Sequence[int] | None = None) -> None:
    """Refuse a log in which the simulation stopped at a limit before every ball came to rest
    (physics ``overflow``: 1 max_events, 2 t_max), unless ``allow_overflow``; the rules judge a
    stroke from balls at rest."""
    if not isinstance(allow_overflow, (bool, np.bool_)):
        raise ValueError(f"allow_overflow must be true or false, got {allow_overflow!r}")
    code = np.asarray(getattr(log, "overflow", 0)).reshape(-1)
    idx = range(len(code)) if tables is None else tables
    bad = [t for t in idx if code[t] != 0]
    if bad and not allow_overflow:
        t = bad[0]
        limit = {1: "max_events", 2: "t_max"}.get(int(code[t]), f"code {int(code[t])}")
        raise ValueError(f"table {t}: the simulation stopped at its {limit} limit before every "
                         f"ball came to rest (overflow = {int(code[t])}); raise max_events / "
                         "t_max, or pass allow_overflow=True to score it where the log ended")


def zone_facts(before: np.ndarray, after: np.ndarray, geo: GolfGeometry) -> dict:
    """Zone membership of every ball before and after the stroke, for both goals at once.

    Args:
        before, after: (T, 10, 2) centres [m] (NaN rows are ignored).

    Returns:
        dict of bool arrays (T, 10, 2) indexed [table, ball, goal], line conventions of the rule
        book (``+eps``: a ball on the line counts as inside, ``-eps``: as outside):
        ``below`` strictly below goal g's stroke line: in the region below it, farther than
        eps from the stroke line (a ball on the line counts as above it, seed "über oder auf der
        Stoßlinie") and not in the small triangle (+eps: on its line counts as inside) (G-10);
        ``great_in_b`` / ``great_in_a`` in the great triangle (+eps) before / after (G-14, G-15);
        ``small_strict_b`` / ``small_strict_a`` in the small triangle (-eps) (G-15);
        ``great_strict_b`` in the great triangle (-eps) (G-22); and ``strip`` (T, 10, 2):
        in the top / bottom long-cushion strip (+eps) (G-11).
    """
    zs = geo.zones
    eps = zs.eps_line
    b0 = np.nan_to_num(before)
    a0 = np.nan_to_num(after)

    def both(name: str, pts: np.ndarray, e: float) -> np.ndarray:
        return np.stack([zs.in_zone(f"{name}_{g}", pts, e) for g in range(2)], axis=-1)

    return {
        "below": (both("below_stroke_line", b0, eps) & ~both("stroke_line", b0, eps)
                  & ~both("small_triangle", b0, eps)),
        "great_in_b": both("great_triangle", b0, eps),
        "great_in_a": both("great_triangle", a0, eps),
        "small_strict_b": both("small_triangle", b0, -eps),
        "small_strict_a": both("small_triangle", a0, -eps),
        "great_strict_b": both("great_triangle", b0, -eps),
        "strip": np.stack([zs.in_zone(n, b0, eps) for n in ("strip_top", "strip_bottom")], -1),
    }


def score_stroke(state: GolfState, log: Any, cue_ball: Any, cue: Any = None,
                 **kw: Any) -> GolfOutcome:
    """Referee one stroke (a log with T = 1); keyword arguments as :func:`score_strokes`."""
    if cue is not None:
        cue = np.asarray(cue, dtype=np.float64).reshape(1, 5)
    if kw.get("players") is not None:
        kw["players"] = [kw["players"]]
    if isinstance(kw.get("choices"), dict):
        kw["choices"] = [kw["choices"]]
    return score_strokes([state], log, [cue_ball], cue, **kw)[0]


def kader_left(state_xy: np.ndarray, tl: TableLog, shooter: int, gone: set[int],
               geo: GolfGeometry) -> tuple[bool, list[int]]:
    """G-21 / G-23: whether some ball left its kader during the stroke, and which.

    A ball that dropped or left the table has left. A ball that starts on a kader line has left
    once its centre is more than epsilon_line from that line; any other ball has left once its
    centre comes within epsilon_line of its kader's boundary (so a ball that ends on a line has
    left). The defender's balls see the G-23 merged kader at the shooter's attack goal.
    """
    zs = geo.zones
    eps = zs.eps_line
    left = []
    for b in np.flatnonzero(~np.isnan(state_xy[:, 0])):
        b = int(b)
        if b in gone:
            left.append(b)
            continue
        if not tl.involves(b).any() and np.allclose(tl.rvw0[b, 1, :2], 0.0):
            continue  # never moved
        merged = None if SIDE_OF[b] == shooter else attack_goal(shooter)
        p = state_xy[b]
        edges = zs.kader_edges(merged)
        dist = edge_distances(p, edges)
        if dist.min() <= eps:
            near = edges[dist <= eps]
            if path_leaves_band(tl.segments(b), near, eps):
                left.append(b)
        else:
            kid = int(zs.kader_of(p, merged, -eps))
            if kid == 0 or path_leaves_polygon(tl.segments(b), zs.kader(kid).polygon, -eps):
                left.append(b)
    return bool(left), left


def _referee(st: GolfState, tl: TableLog, zf: dict, c: int, speed0: float, d0: np.ndarray,
             theta: float,
             injected: list[dict], player: Any, choices: dict, rules: GolfRules,
             geo: GolfGeometry, rng: np.random.Generator) -> GolfOutcome:
    zs = geo.zones
    eps = zs.eps_line
    s = int(st.to_move)
    opp = 1 - s
    g_att, g_def = attack_goal(s), defence_goal(s)
    before = st.xy.copy()
    on0 = ~np.isnan(before[:, 0])
    if not on0[c]:
        raise ValueError(f"cue ball {geo.ball_ids[c]} is not on the table (G-2)")
    counts0 = np.bincount(SIDE_OF[on0], minlength=2)
    kader = bool(st.kader or np.any(counts0 == 1))  # G-20
    fouls: list[Foul] = []
    notes: list[str] = []
    ids = geo.ball_ids
    if tl.overflow:
        notes.append(limit_note(tl.overflow))

    # --- what physics produced ---------------------------------------------------------------
    drops = tl.drops(on0)
    fell = tl.falls(on0)
    refuse_placing_dropped(injected, drops, fell, ids)
    final = tl.final_xy()
    final[~on0] = np.nan
    off: dict[int, tuple[float, str]] = {}
    jammed: set[int] = set()
    for e in injected:
        b = e.get("ball")
        if b is not None and not on0[b]:
            raise ValueError(f"injected {e['type']} names ball {ids[b]}, which is not on the table")
        if e["type"] in ("off_table", "rests_on_rail"):
            if b not in off or e["time"] < off[b][0]:
                off[b] = (e["time"], e["type"])
        elif e["type"] == "rail_return":
            notes.append(f"G-17b: {ids[b]} rode over the rail and came back: not penalised")
        elif e["type"] == "fall_after_rest":
            drops, on_rim = tl.fall_after_rest(b, drops, fell)
            if on_rim:
                notes.append(FALL_NOTE.format(ids[b]))
        elif e["type"] == "jam":
            if "goal" not in e:
                notes.append(f"G-19: {ids[b]} jammed between a cap and the short cushion: freed")
            elif e["goal"] == g_def:  # any ball, own or opponent's
                jammed.add(b)
                fouls.append(Foul("G-19", e["time"], (b,), "jam",
                                  f"{ids[b]} jammed between the defence goal's caps"))
            else:  # between the caps of a goal without touching the cloth: it counts as a drop
                drops = [d for d in drops if d[0] != b] + [(b, int(e["goal"]), e["time"])]
                drops.sort(key=lambda d: d[2])
        elif e["type"] == "foul":
            check_injected_foul(e, s, on0, geo)
            fouls.append(Foul("G-18", e["time"], () if b is None else (b,), e["kind"],
                              f"behavioural foul {e['kind']}", e.get("restore", ())))
    for b in range(N_BALLS):
        if b in fell:
            final[b] = tl.rim_point(b, fell[b], geo.goals)
            notes.append(FALL_NOTE.format(ids[b]))
    dropped = {b for b, _, _ in drops}
    for b in dropped | set(off) | jammed:
        final[b] = np.nan
    rim_balls_clear(final, fell, dropped | set(off) | jammed, geo)

    # G-2: only own balls may be struck; striking the opponent's is a G-18 foul.
    if SIDE_OF[c] != s:
        fouls.append(Foul("G-18", 0.0, (c,), "played_opponent_ball",
                          f"{ids[c]} is the opponent's ball (G-2)"))
    # G-31: partners alternate; out-of-order play is a G-18 foul.
    if rules.duo and int(player) != int(st.partner[s]):
        fouls.append(Foul("G-18", 0.0, (), "out_of_turn",
                          f"partner {player} struck; partner {int(st.partner[s])} was due"))

    p_c = before[c]
    fc_type, fc_time, fc_other = tl.first_contact(c)
    t_stop = min([fc_time] + [t for b, _, t in drops if b == c])
    direct = direct_goal_attempt(p_c, d0, g_att, geo)

    # --- G-10 hard / raised-cue stroke from below the stroke line ----------------------------
    # (on the stroke line, within eps_line, is above it: a hard stroke is allowed there)
    below = bool(zf["below"][c, g_att])
    if below and (direct or rules.any_direction):
        hard = speed0 >= rules.hard_speed
        against_cap = fc_type == EV_BALL_POST and fc_other in zs.goal_caps[g_att]
        raised = theta >= rules.raised_cue_deg and (toward_goal_cap(p_c, d0, g_att, geo)
                                                    or against_cap)
        if hard or raised:
            vs = tl.velocities_before(c, t_stop)
            sp = np.hypot(vs[:, 0], vs[:, 1])
            mv = vs[sp > 1e-6]
            along = mv @ d0
            pique = bool(np.any(along < 0))
            cosang = np.clip(along / np.hypot(mv[:, 0], mv[:, 1]), -1, 1)
            masse = bool(np.any(np.degrees(np.arccos(cosang)) >= rules.masse_turn_deg))
            if not (masse or pique):
                why = "hard" if hard else "raised cue toward a goal cap"
                fouls.append(Foul("G-10", 0.0, (c,), why,
                                  f"{why} direct goal attempt from below the stroke line "
                                  f"(speed {speed0:.2f} m/s, theta {theta:.0f} deg)"))

    # --- G-11 vliegeren ----------------------------------------------------------------------
    for k, (strip, words) in enumerate((("strip_top", "strip along the +y long cushion"),
                                        ("strip_bottom", "strip along the -y long cushion"))):
        z = zs.zone(strip)
        if zf["strip"][c, k] and fc_type == EV_BALL_CUSHION and fc_other == z.cushion:
            fouls.append(Foul("G-11", 0.0, (c,), "vliegeren",
                              f"{ids[c]} in the {words} struck first onto its long cushion"))

    # --- G-13 push ---------------------------------------------------------------------------
    for kind, k, u in frozen_contacts(before, c, geo, rules.freeze_gap):
        into = float(np.dot(d0, u))
        if into < -1e-12:
            continue  # the stroke points away from it
        if into <= 1e-12 and not (kind == "ball" and _moved(tl, before, final,
                                                             dropped | set(off))[k]):
            continue  # along the contact: only a frozen neighbour ball that moved is pushed
        if kind == "cap" and direct and (k == zs.front_caps[g_att] or k in zs.outer_side_caps):
            sign = 1.0 if g_att == 0 else -1.0
            if (p_c[0] - geo.caps[k, 0]) * sign > 0:
                continue  # G-13 exception: goal attempt off the front / outer side cap
        fouls.append(Foul("G-13", 0.0, (c,), "push",
                          f"{ids[c]} frozen to {ids[k] if kind == 'ball' else f'{kind} {k}'} "
                          "and struck into it"))
        break

    # --- G-12 own ball directly onto own ball ------------------------------------------------
    if fc_type == EV_BALL_BALL and SIDE_OF[fc_other] == s and SIDE_OF[c] == s:
        fouls.append(Foul("G-12", fc_time, (c, fc_other), "own_ball",
                          f"{ids[c]} struck directly onto own ball {ids[fc_other]}"))

    # --- G-8 own ball into the own defence goal ----------------------------------------------
    own_goal = [(b, t) for b, g, t in drops if SIDE_OF[b] == s and g == g_def]
    if own_goal:
        fouls.append(Foul("G-8", own_goal[0][1], tuple(b for b, _ in own_goal), "own_goal",
                          "own ball into the own defence goal"))

    # --- G-16 / G-17 balls off the table or resting on the rail ------------------------------
    for side, rule in ((s, "G-16"), (opp, "G-17")):
        bs = sorted((b for b in off if SIDE_OF[b] == side), key=lambda b: off[b][0])
        if bs:
            fouls.append(Foul(rule, off[bs[0]][0], tuple(bs), "off_table",
                              ("own" if side == s else "opponent's") + " ball(s) off the table"))

    # --- G-15 blocking -----------------------------------------------------------------------
    d_on = np.flatnonzero(on0 & (SIDE_OF == opp))
    blocked = False
    for b in d_on:
        was = zf["great_in_b"][b, g_att] or zf["small_strict_b"][b, g_att]
        if was and not np.isnan(final[b, 0]) and zf["small_strict_a"][b, g_att]:
            blocked = True
    if blocked:
        moved = _moved(tl, before, final, dropped | set(off))
        mine = np.flatnonzero((SIDE_OF == s) & ~np.isnan(final[:, 0]))
        offenders = tuple(int(b) for b in mine
                          if (rules.all_balls or moved[b])
                          and zf["great_in_a"][b, g_att])
        if offenders:
            fouls.append(Foul("G-15", tl.t_end, offenders, "blocking",
                              "defender ball kept in the small triangle while shooter balls "
                              "end in the great attack triangle"))

    # --- G-21 kader duty ---------------------------------------------------------------------
    left = None
    if kader:
        if zf["great_strict_b"][c, g_att]:
            left = None  # G-22 exempt
        else:
            left, _ = kader_left(before, tl, s, dropped | set(off), geo)
            if not left:
                fouls.append(Foul("G-21", tl.t_end, (c,), "kader",
                                  "no ball left its kader"))

    fouls.sort(key=Foul.sort_key)
    foul = fouls[0] if fouls else None

    # --- G-14 progress over the turn ---------------------------------------------------------
    duty_balls = np.flatnonzero(st.duty & on0)
    duty_met = bool(st.duty_met) or not len(duty_balls)
    if not duty_met:
        gone = dropped | set(off)
        great = zs.zone(f"great_triangle_{g_def}").polygons[0]
        for b in duty_balls:
            if b in gone or path_leaves_polygon(tl.segments(int(b)), great, eps):
                duty_met = True
                break

    return _apply(st, tl, c, kader, fouls, foul, drops, off, jammed, before, final, duty_met,
                  left, notes, choices, rules, geo, rng)


def check_injected_foul(e: dict, s: int, on0: np.ndarray, geo: GolfGeometry) -> None:
    """An injected G-18 foul of side s: a deflect foul names a touched ball of the side its
    kind needs, and the balls it restores were on the table (``on0``); else a ValueError."""
    b = e.get("ball")
    need = {"deflect_own_ball": s, "deflect_opponent_ball": 1 - s}.get(e["kind"])
    if need is not None and (b is None or SIDE_OF[b] != need):
        whose = "own" if need == s else "opponent"
        raise ValueError(f"behavioural foul {e['kind']} needs the touched {whose} ball, got "
                         f"{b!r}")
    for r, _, _ in e.get("restore", ()):
        if not on0[r]:
            raise ValueError(f"injected restore names ball {geo.ball_ids[r]}, which is not on "
                             "the table")


def _moved(tl: TableLog, before: np.ndarray, final: np.ndarray, gone: set[int]) -> np.ndarray:
    """(10,) balls the stroke moved: an event, a displacement, a drop or leaving the table."""
    on = ~np.isnan(before[:, 0])
    agents = np.zeros(N_BALLS, bool)
    agents[tl.i[tl.i < N_BALLS]] = True
    bb = tl.type == EV_BALL_BALL
    agents[tl.j[bb]] = True
    shifted = np.any(np.abs(np.nan_to_num(final, nan=np.inf) - np.nan_to_num(before)) > _MOVE_TOL,
                     axis=1)
    moved = agents | np.any(tl.rvw0[:, 1, :2] != 0, axis=1) | shifted
    moved[list(gone)] = True
    return moved & on


def _apply(st: GolfState, tl: TableLog, c: int, kader: bool, fouls: list[Foul], foul: Foul | None,
           drops: list, off: dict, jammed: set[int], before: np.ndarray, final: np.ndarray,
           duty_met: bool, left: bool | None, notes: list[str], choices: dict, rules: GolfRules,
           geo: GolfGeometry, rng: np.random.Generator, check_duty: bool = True) -> GolfOutcome:
    """Apply the penalised foul's consequences (and nothing else) and settle the stroke."""
    s = int(st.to_move)
    opp = 1 - s
    g_att = attack_goal(s)
    on0 = ~np.isnan(before[:, 0])
    xy = final.copy()
    removed: dict[int, float] = {}  # ball -> time it left the table for good (scored)
    to_spot: list[int] = []
    into_goal: list[int] = []
    replaced: list[int] = []
    letters: set[str] = set()
    gone = {b for b, _, _ in drops} | set(off) | set(jammed)
    # G-17 exception to "only the first foul": an opponent's ball played off the table (or left
    # on a cushion, goal cap or cover) always goes into its goal, whatever foul is penalised.
    opp_off = sorted((b for b in off if SIDE_OF[b] == opp), key=lambda b: off[b][0])

    def stroke_goals() -> None:
        # G-6, G-7: a dropped ball counts for its side; G-8: an own ball in the own defence goal
        # is no goal and goes to a penalty spot.
        for b, g, t in drops:
            if SIDE_OF[b] == s and g != g_att:
                to_spot.append(b)
            else:
                removed[b] = t

    def replace_moved(only_on_table: bool = False) -> None:
        # RA: every ball the stroke moved goes back; dropped balls come back out of the goal.
        for b in np.flatnonzero(_moved(tl, before, final, gone)):
            if (only_on_table and np.isnan(final[b, 0])) or b in opp_off:
                continue  # an opponent's ball off the table goes into its goal (G-17)
            xy[b] = before[b]
            replaced.append(int(b))

    if foul is None:
        stroke_goals()
    else:
        if foul.rule == "G-18":
            letters = set(BEHAVIOURAL[foul.kind][1 if kader else 0])  # G-25 in kader play
        else:
            letters = set(CONSEQUENCES[foul.rule])
        if "RA" in letters:
            replace_moved()
        else:
            stroke_goals()  # goals stand
            if foul.rule in ("G-16", "G-17") and rules.replace_on_off_table:
                replace_moved(only_on_table=True)
        if "RF" in letters:
            # G-18 deflect: only the balls the foul displaced go back (the event carries them);
            # the others, dropped balls included, stay as the stroke left them
            for b, x, y in foul.restore:
                removed.pop(b, None)
                if b in to_spot:
                    to_spot.remove(b)
                xy[b] = (x, y)
                replaced.append(b)
        if "SPOT" in letters and foul.rule != "G-8":
            for b in foul.balls:
                removed.pop(b, None)  # a touched ball that dropped comes out for its spot
                if b not in to_spot:
                    to_spot.append(b)
        if "GOAL" in letters and foul.rule == "G-18":
            # G-18 deflect_opponent_ball: the touched opponent's ball goes into its goal
            for b in foul.balls:
                if SIDE_OF[b] == opp:
                    into_goal.append(b)
                    removed[b] = foul.time
        if "CS" in letters and c not in removed and c not in to_spot:
            to_spot.insert(0, c)
        if "PICK" in letters:
            b = _pick_ball(st, xy, c, choices.get("pick"), rules, geo, rng)
            if b is not None and b not in to_spot:
                to_spot.append(b)
    # G-17 (whichever foul came first, G-17 itself included): the opponent's balls played off
    # the table go into their goal, scored for the opponent, at the time they left (G-17a).
    for b in opp_off:
        if b not in removed:
            into_goal.append(b)
            removed[b] = off[b][0]
    # Balls off the table, on the rail or jammed in the defence goal that the penalised foul does
    # not deal with (nor brought back by RA) go to a penalty spot of their side.
    for b in sorted(set(off) | set(jammed)):
        if np.isnan(xy[b, 0]) and b not in removed and b not in to_spot:
            to_spot.append(b)
        elif b in jammed and b not in replaced and b not in to_spot and b not in removed:
            to_spot.append(b)
    for b in removed:
        xy[b] = np.nan
    for b in to_spot:
        xy[b] = np.nan
    if foul is not None and foul.restore and "RF" in letters:
        _check_restored(xy, [b for b, _, _ in foul.restore], geo)

    # --- G-26: in kader play, a foul stroke with the cue ball lying on a penalty spot ---------
    fouled = st.fouled_spots.copy()
    g26_ball = None
    if kader and foul is not None and st.on_spot[c] > 0 and SIDE_OF[c] == s:
        fouled[s, st.on_spot[c] - 1] = True
        if c not in removed:
            g26_ball = c
            if c not in to_spot:
                xy[c] = np.nan
                to_spot.insert(0, c)
    # --- G-30: place the balls one at a time, the cue ball first -------------------------------
    same = np.all(xy == before, axis=1)
    on_spot = np.where(same, st.on_spot, 0)
    allowed = {}
    if g26_ball is not None:
        allowed[g26_ball] = [k for k in range(1, 6) if not fouled[SIDE_OF[g26_ball], k - 1]]
    order = sorted(dict.fromkeys(to_spot), key=lambda b: (b != c, b))
    spotted, unused = place_on_spots(order, xy, geo, rules, rng, choices.get("spots"), allowed,
                                     offender=s)
    for b, k in spotted:
        on_spot[b] = k if SIDE_OF[b] == s else 0  # another side's spot is none of its own
    on_spot[np.isnan(xy[:, 0])] = 0

    scored = np.zeros(N_SIDES, np.int64)
    for b in removed:
        scored[SIDE_OF[b]] += 1
    valid_own = sum(1 for b in removed if SIDE_OF[b] == s)
    left_after = np.bincount(SIDE_OF[~np.isnan(xy[:, 0])], minlength=N_SIDES)

    # --- G-4 / G-17a: game over --------------------------------------------------------------
    winner = -1
    empty = left_after == 0
    if empty[opp] and any(SIDE_OF[b] == opp for b in into_goal):
        winner = opp  # G-17a: balls put into their goal emptied the opponent: the opponent wins
    elif empty.all():
        last = [max(t for b, t in removed.items() if SIDE_OF[b] == side) for side in range(2)]
        winner = s if last[s] <= last[opp] else opp  # G-4: whose last ball dropped first
    elif empty.any():
        winner = int(np.flatnonzero(empty)[0])
    game_over = winner >= 0

    turn_kept = "LT" not in letters and valid_own > 0 and not game_over  # G-1, G-9, G-19
    # --- G-14: the defence-triangle duty, checked when the turn ends without another foul -----
    if check_duty and not turn_kept and not game_over and foul is None and not duty_met:
        duty = tuple(int(b) for b in np.flatnonzero(st.duty & on0))
        g14 = Foul("G-14", tl.t_end, duty, "defence_triangle",
                   "own ball(s) left in the defence triangle for the whole turn")
        return _apply(st, tl, c, kader, fouls + [g14], g14, drops, off, jammed, before, final,
                      False, left, notes, choices, rules, geo, rng, check_duty=False)

    if unused:
        notes.append(f"choices['spots']: {len(unused)} entr{'y' if len(unused) == 1 else 'ies'} "
                     f"{unused} not needed ({len(spotted)} ball(s) chosen for by the opponent)")
    if "pick" in choices and "PICK" not in letters:
        notes.append("choices['pick'] not used: no G-25 pick in this stroke")
    return GolfOutcome(
        shooter=s, cue_ball=c, kader=kader, fouls=fouls, foul=foul,
        consequences=frozenset(letters), drops=list(drops), scored=scored,
        scored_balls=sorted(removed), valid_own=valid_own, replaced=sorted(set(replaced)),
        spotted=spotted, into_goal=into_goal, turn_kept=turn_kept, duty_met=duty_met,
        left_kader=left, game_over=game_over, winner=winner, xy=xy,
        on_spot=on_spot.astype(np.int64), fouled_spots=fouled, notes=notes,
        overflow=tl.overflow)


def _check_restored(xy: np.ndarray, balls: Sequence[int], geo: GolfGeometry) -> None:
    """A ball put back by RF must lie on the cloth, clear of caps, goals and the other balls."""
    R, tol = geo.R, 1e-7
    hx, hy = geo.table.length / 2 - R, geo.table.width / 2 - R
    for b in balls:
        x, y = xy[b]
        where = f"restore: {geo.ball_ids[b]} at ({x}, {y})"
        if abs(x) > hx + tol or abs(y) > hy + tol:
            raise ValueError(f"{where} is off the cloth")
        if np.any(np.hypot(*(geo.caps - xy[b]).T) < R + geo.r_cap - tol):
            raise ValueError(f"{where} overlaps a cap")
        if np.any(np.hypot(*(geo.goals[:, :2] - xy[b]).T) < geo.goals[:, 2]):
            raise ValueError(f"{where} is inside a goal")
        for o in np.flatnonzero(~np.isnan(xy[:, 0])):
            if o != b and math.hypot(*(xy[o] - xy[b])) < 2 * R - tol:
                raise ValueError(f"{where} overlaps {geo.ball_ids[o]}")


def _pick_ball(st: GolfState, xy: np.ndarray, c: int, choice: Any, rules: GolfRules,
               geo: GolfGeometry, rng: np.random.Generator, side: int | None = None
               ) -> int | None:
    """G-25: the offender's ball the opponent picks for a penalty spot; the offender is the side
    to move, or ``side`` (the opening, where both sides strike)."""
    s = int(st.to_move) if side is None else side
    mine = [int(b) for b in np.flatnonzero((SIDE_OF == s) & ~np.isnan(xy[:, 0]))]
    if not mine:
        return None
    if rules.pick_policy == "cue_ball":
        return c if c in mine else mine[0]
    if rules.pick_policy == "random":
        return int(rng.choice(mine))
    if rules.pick_policy == "agent":
        b = choice(mine, xy) if callable(choice) else choice
        if b is None:
            raise ValueError("pick_policy 'agent' needs choices['pick'] (a ball of the offender)")
        b = ball_index(b, geo)
        if b not in mine:
            raise ValueError(f"picked ball {geo.ball_ids[b]} is not one of the offender's balls "
                             f"on the table {[geo.ball_ids[m] for m in mine]}")
        return b
    goal = geo.goals[attack_goal(s), :2]
    return min(mine, key=lambda b: float(np.hypot(*(xy[b] - goal))))


# ---------------------------------------------------------------------------------------------
# JSON entry point (python -m cuegym.rules score --game golfbillard)
# ---------------------------------------------------------------------------------------------


def score_cli(payload: dict) -> dict:
    """Score one stroke given as JSON (``python -m cuegym.rules score --game golfbillard``).

    Args:
        payload: ``{"state": <state JSON> | null, "shot": <physics shot object>}`` or
            ``{"state": .., "log": <output object of cuegym.physics.simulate_json>,
            "strike": <the shot's strike>}``. A null or missing state is a new match. In the
            opening (G-3) the strike is a list of two strikes, one per side. A shot may omit
            ``balls`` and ``table`` (taken from the state). Optional: ``rules`` (option
            overrides), ``inject`` (events, module docstring), ``player`` (duo partner, G-31;
            in the opening the two openers; required in duo play), ``choices`` (``{"spots":
            [..], "pick": ball}``, with the ``agent`` policies), ``allow_overflow`` (true:
            score a shot cut off by max_events / t_max where it ended; default: refused).

    Returns:
        ``{"outcome": <outcome JSON>, "state": <state JSON after the stroke>}``.
    """
    from . import golf_game as game

    return game.score_json(payload)


#: The name the CLI (``cuegym.rules.__main__``) looks up.
score_json = score_cli


def new_state_json(n_players: int = 2, *, seed: int | None = None) -> dict:
    """The CLI's ``new``: a new match, singles (2 players) or duos (4 players, G-31)."""
    from . import golf_game as game

    if n_players not in (2, 4):
        raise ValueError(f"golfbillard is played by 2 players or 2 duos (4), got {n_players!r}")
    rules = load_golf_rules(duo=n_players == 4)
    return game.new_match(rules, seed=seed or 0).to_json()


def play_game(n_players: int = 2, *, seed: int = 0, max_shots: int = 3000,
              rules: dict | None = None) -> dict:
    """The CLI's ``play``: one match with the physics and random purposeful strokes.

    Returns:
        ``{"shots": [outcome JSON ..], "state": <final state JSON>, "ranking": [sides, best
        first] (a draw: both in one list), "n_shots": n}``.
    """
    from . import golf_game as game

    if n_players not in (2, 4):
        raise ValueError(f"golfbillard is played by 2 players or 2 duos (4), got {n_players!r}")
    r = load_golf_rules(**{"duo": n_players == 4, **(rules or {})})
    st, hist = game.run_game(r, seed=seed, max_strokes=max_shots)
    w = st.match_winner
    ranking = [[0, 1]] if w not in (0, 1) else [w, 1 - w]
    return {"shots": [o.to_json() for o in hist], "state": st.to_json(), "ranking": ranking,
            "n_shots": len(hist)}
