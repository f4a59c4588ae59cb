"""One golfbillard table's game state (:class:`GolfState`, OpenSpiel's "State") and its checks.

The position and bookkeeping of one table with its state JSON (docs/rules_golfbillard.md): a new
game on the G-3 start spots (:func:`new_game_state`); the checks that a state is legal
(:func:`validate_state`: positions by the physics' layout check) and can arise in a match
(:func:`check_state`: G-4, G-5, G-6, G-14, G-20, G-26); the G-14 defence duty of a new turn
(:func:`defence_duty`). The batched form of the state is
:class:`~cuegym.rules.golf_arrays.GolfStates`; the referee that advances it
:mod:`cuegym.rules.golfbillard`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from cuegym.configs.zones import as_points
from cuegym.rules.inputs import (
    RefereeInputError,
    check_layout,
    req_bool,
    req_choice,
    req_count,
    req_int,
    req_list,
    req_name,
    req_obj,
    req_xy,
)

from .golf_arrays import (
    BALLS_PER_SIDE,
    N_BALLS,
    N_SIDES,
    SIDE_OF,
    GolfStates,
    StateArrays,
    check_states,
)
from .golf_codes import PHASES
from .golf_config import GolfGeometry, GolfRules, ball_index, golf_geometry, load_golf_rules


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
    def kader_due(self) -> bool:
        """A side is down to one ball: kader play (G-20)."""
        return bool((self.balls_left == 1).any())

    @property
    def scored(self) -> np.ndarray:
        """(2,) balls each side has scored in this game."""
        return BALLS_PER_SIDE - self.balls_left

    def copy(self) -> GolfState:
        """An independent copy (array fields copied)."""
        return replace(self, **{f.name: getattr(self, f.name).copy() for f in fields(self)
                                if isinstance(getattr(self, f.name), np.ndarray)})

    @classmethod
    def with_balls(cls, balls: dict, geo: GolfGeometry | None = None, **fields: Any) -> GolfState:
        """A play-phase state with only ``balls`` (id or index -> (x, y)) on the table; kader
        play on when a side is down to one ball unless ``kader`` is given (G-20); the G-14
        duty as given (empty by default: ``start_turn`` records it); a ball lying on one of
        its side's penalty spots on it unless ``on_spot`` is given (G-26, :func:`spots_lain_on`).

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
        st.kader = st.kader_due
        st.on_spot = spots_lain_on(xy, geo)  # unless ``on_spot`` is given (G-26)
        for name, v in fields.items():
            if not hasattr(st, name):
                raise ValueError(f"GolfState has no field {name!r}")
            setattr(st, name, v)
        check_fields([st], geo, "state")  # setattr takes anything: to_move=2, kader="yes"
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
        # absent: on once a side is down to one ball (G-20), as the referee would have set it
        st.kader = req_bool(obj["kader"], f"{path}.kader") if "kader" in obj else st.kader_due
        tp = f"{path}.turn"
        turn = req_obj(obj.get("turn", {}), tp, ("strokes", "scored", "duty", "duty_met"))
        st.turn_strokes = req_count(turn.get("strokes", 0), f"{tp}.strokes")
        st.turn_scored = req_bool(turn.get("scored", False), f"{tp}.scored")
        st.duty = np.zeros(N_BALLS, bool)
        if "duty" in turn:
            for k, bid in enumerate(req_list(turn["duty"], f"{tp}.duty")):
                st.duty[req_name(bid, f"{tp}.duty[{k}]", ids, "ball")] = True
        elif st.turn_strokes == 0 and st.phase == "play":
            # a turn that begins here: G-14 records the mover's balls in its defence triangles
            st.duty = defence_duty(xy, st.to_move, geo)
        st.duty_met = req_bool(turn.get("duty_met", False), f"{tp}.duty_met")
        # left out: each ball lying on one of its side's penalty spots is on it (G-26)
        st.on_spot = np.zeros(N_BALLS, np.int64) if "on_spot" in obj else spots_lain_on(xy, geo)
        for bid, k in req_obj(obj.get("on_spot", {}), f"{path}.on_spot").items():
            st.on_spot[req_name(bid, f"{path}.on_spot.{bid}", ids, "ball")] = req_int(
                k, f"{path}.on_spot.{bid}", 1, 5)
        fs = req_list(obj.get("fouled_spots", [[], []]), f"{path}.fouled_spots", N_SIDES)
        st.fouled_spots = np.zeros((N_SIDES, 5), bool)
        for side in range(N_SIDES):
            sp = f"{path}.fouled_spots[{side}]"
            for n, k in enumerate(req_list(fs[side], sp, max_len=5)):
                st.fouled_spots[side, req_int(k, f"{sp}[{n}]", 1, 5) - 1] = True
        st.turns = req_count(obj.get("turns", 0), f"{path}.turns")
        st.idle_turns = req_count(obj.get("idle_turns", 0), f"{path}.idle_turns")
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
        st.stroke_no = req_count(obj.get("stroke", 0), f"{path}.stroke")
        st.seed = req_int(obj.get("seed", 0), f"{path}.seed", 0)
        check_state(st, rules, geo, path)
        return st


_STATE_KEYS = ("game", "phase", "to_move", "balls", "kader", "turn", "on_spot", "fouled_spots",
               "turns", "idle_turns", "winner", "match", "partner", "openers", "first_openers",
               "stroke", "seed")


def _result(v: Any, path: str) -> int:
    """A game or match result: null -> -1, side 0 / 1, ``"draw"`` -> 2."""
    return {None: -1, "draw": 2, 0: 0, 1: 1}[req_choice(v, path, (None, 0, 1, "draw"))]


def check_fields(states: Sequence[GolfState], geo: GolfGeometry | None = None,
                 path: str = "states") -> None:
    """Raise ValueError unless every field of each state is what the compiled referee reads:
    :func:`~cuegym.rules.golf_arrays.check_states` (``Golf.play``'s check: types, shapes, index
    ranges, balls inside the cushion noses) on the states' fields as given. Not cast first:
    packing would read ``"0"`` as 0, ``"yes"`` as True and 2.5 as 2. Not the rules'
    consistency (:func:`check_state`).

    Raises:
        ValueError: one line naming the field, the state (table) and the value, e.g.
            ``states.to_move[0] = 2: the side to move is 0 or 1``.
    """
    geo = geo or golf_geometry()
    cols = {}
    for name in StateArrays._fields:
        vals = [getattr(st, name) for st in states]
        if name == "phase":
            bad = [t for t, v in enumerate(vals) if not (isinstance(v, str) and v in PHASES)]
            if bad:
                raise RefereeInputError(f"{path}.phase[{bad[0]}] = {vals[bad[0]]!r}: a phase is "
                                        f"one of {list(PHASES)}")
            vals = [PHASES.index(v) for v in vals]
        try:
            cols[name] = np.array(vals)
        except (TypeError, ValueError):  # ragged: e.g. one state's on_spot of 9 balls
            raise RefereeInputError(f"{path}.{name}: the states' values differ in shape") from None
    half = (geo.table.length / 2, geo.table.width / 2)
    check_states(GolfStates(**cols), half, geo.ball_ids, path)


def validate_state(state: GolfState, geo: GolfGeometry | None = None, path: str = "state"
                   ) -> None:
    """Raise RefereeInputError (a ValueError) if a ball position is not finite, leaves the
    cloth, overlaps a cap or another ball, or lies inside a goal (the physics' layout check)."""
    geo = geo or golf_geometry()
    xy = np.asarray(state.xy, dtype=np.float64)
    if xy.shape != (N_BALLS, 2):
        raise RefereeInputError(f"{path}.xy must have shape ({N_BALLS}, 2), got {xy.shape}")
    on = ~np.isnan(xy[:, 0])
    bad = on & ~np.isfinite(xy).all(1) | ~on & ~np.isnan(xy[:, 1])
    if bad.any():
        b = int(np.argmax(bad))
        raise RefereeInputError(f"{path}.balls.{geo.ball_ids[b]} must be finite, or NaN, NaN "
                                f"(scored), got {xy[b].tolist()}")
    check_layout(geo.table, geo.layout_params(), {f"{path}.balls.{geo.ball_ids[b]}": xy[b]
                                     for b in np.flatnonzero(on)})


def check_state(state: GolfState, rules: GolfRules | None = None,
                geo: GolfGeometry | None = None, path: str = "state") -> None:
    """Raise RefereeInputError unless ``state`` can arise in a match under ``rules``.

    Positions (:func:`validate_state`); while the match runs, both sides have a ball on the
    table (the game ends with a side's last ball, G-6), no match winner, and a game winner only
    from game 2 on; a finished match names its winner; games won fit the games played and, under
    ``rules``, stay below the games to win (G-4) and the G-5 idle turns below the draw limit;
    kader play is on exactly while a side is down to one ball (G-20), and spots are marked
    fouled only in it (G-26); the G-14 duty names the moving
    side's balls; a ball on a penalty spot (G-26) lies on that spot of its side.
    """
    rules = rules or load_golf_rules()
    validate_state(state, geo, path)
    ids = (geo or golf_geometry()).ball_ids
    over = state.phase == "over"
    mp = f"{path}.match"
    if state.phase == "opening" and rules.opening == "alternate":
        raise RefereeInputError(f"{path}.phase is 'opening', but the rules' opening is "
                                "'alternate' (G-3 option): there is no opening stroke, side 0 "
                                "starts every game; give phase 'play'")
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
        limit = rules.idle_limit
        if limit and state.idle_turns >= limit:
            raise RefereeInputError(f"{path}.idle_turns = {state.idle_turns} reaches the G-5 "
                                    f"limit {limit}, which ends the game as a draw")
        if state.kader_due and not state.kader:
            raise RefereeInputError(f"{path}.kader must be true: a side is down to one ball "
                                    "(G-20)")
        if state.kader and not state.kader_due:  # balls never come back within a game
            raise RefereeInputError(f"{path}.kader is true, but no side is down to one ball "
                                    f"(balls left {state.balls_left.tolist()}; G-20)")
        if state.fouled_spots.any() and not state.kader:
            raise RefereeInputError(f"{path}.fouled_spots: spots are marked only in kader play "
                                    f"(G-26), but {path}.kader is false")
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
    geo = geo or golf_geometry()
    for b in np.flatnonzero(state.on_spot > 0):
        k = int(state.on_spot[b])
        spot = geo.zones.penalty_spots[SIDE_OF[b], k - 1]
        if np.hypot(*(state.xy[b] - spot)) > ON_SPOT_TOL:
            raise RefereeInputError(
                f"{path}.on_spot.{ids[b]} = {k}, but {ids[b]} lies at "
                f"{[round(float(v), 6) for v in state.xy[b]]}, not on penalty spot {k} of side "
                f"{SIDE_OF[b]} at {[round(float(v), 6) for v in spot]} (a ball keeps its spot "
                "only until it moves, G-26)")


#: a ball whose centre lies this close [m] to one of its side's penalty spots lies on it (G-26);
#: the referee puts balls on the spots' exact coordinates
ON_SPOT_TOL = 1e-6


def spots_lain_on(xy: np.ndarray, geo: GolfGeometry | None = None) -> np.ndarray:
    """G-26: the penalty spot (1..5) of its own side each ball lies on, 0 for none.

    Args:
        xy: (10, 2) ball centres [m], NaN for a ball off the table.

    Returns:
        (10,) int64: spot k where the centre lies within ``ON_SPOT_TOL`` of its side's spot k.
    """
    spots = (geo or golf_geometry()).zones.penalty_spots[SIDE_OF]  # (10, 5, 2)
    d = np.hypot(*(np.asarray(xy, np.float64)[:, None, :] - spots).transpose(2, 0, 1))
    near = d <= ON_SPOT_TOL  # NaN compares False
    return np.where(near.any(1), near.argmax(1) + 1, 0).astype(np.int64)


def new_game_state(rules: GolfRules | None = None, geo: GolfGeometry | None = None,
                   seed: int = 0) -> GolfState:
    """A fresh game: all balls on their start spots, side 0 to move (G-3). ``seed``: an
    integer >= 0 (not cast: 1.5 or True would silently be seed 1)."""
    geo = geo or golf_geometry()
    rules = rules or GolfRules()
    st = GolfState(xy=geo.start.copy(), seed=req_int(seed, "seed", 0))
    st.phase = "play" if rules.opening == "alternate" else "opening"
    return st


def defence_duty(xy: np.ndarray, side: int, geo: GolfGeometry | None = None) -> np.ndarray:
    """G-14: own balls of ``side`` in its own great (line = inside) or small (line = outside)
    defence triangle (the referee's kernel :func:`cuegym.rules.golf_flow.defence_duty`).

    Returns:
        (10,) bool.
    """
    from .golf_flow import defence_duty as kernel
    from .golf_structs import geometry_struct

    out = np.zeros(N_BALLS, bool)
    kernel(np.ascontiguousarray(xy, np.float64), int(side), geometry_struct(geo or golf_geometry()),
           out)
    return out
