"""Golfbillard game flow: the opening, turns, duos, kader phase, no-progress and matches.

Built on the stroke referee of :mod:`cuegym.rules.golfbillard`; pure functions that return new
:class:`~cuegym.rules.golfbillard.GolfState` objects (docs/rules_golfbillard.md):

- G-3 the opening (:func:`score_opening`): both middle balls struck at t = 0; option
  ``alternate``: no opening stroke, side 0 starts every game.
- G-1 / G-9 turns (:func:`advance`), G-14 the defence-triangle duty of each new turn
  (:func:`start_turn`), G-20 kader play from the first stroke with a side on one ball.
- G-5 no progress: after ``no_progress_turns`` turns, ``no_progress_window`` scoreless turns of
  each side end the game as a draw (not in kader play).
- G-4 best-of-3 matches (:func:`finish_game`), G-31 duos (partners alternate per turn).
- :func:`play_strokes` scores a batch of tables in either phase and advances each state;
  :func:`play_game` runs a whole game or match with the physics and a stroke policy;
  :func:`score_json` is the ``score`` CLI.

Example:
    >>> from cuegym.rules.golfbillard_game import new_match
    >>> st = new_match()
    >>> st.phase, st.to_move, st.balls_left.tolist()
    ('opening', 0, [5, 5])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cuegym.configs.zones import path_max
from cuegym.physics.constants import EV_BALL_BALL
from cuegym.rules.inputs import (
    RefereeInputError,
    read_sim_output,
    req_bool,
    req_choice,
    req_int,
    req_list,
    req_name,
    req_num,
    req_obj,
)

from .golf_referee import (
    BALLS_PER_SIDE,
    BEHAVIOURAL,
    FALL_NOTE,
    N_BALLS,
    N_SIDES,
    SIDE_OF,
    Foul,
    GolfGeometry,
    GolfOutcome,
    GolfRules,
    GolfState,
    TableLog,
    _check_restored,
    _injected,
    _moved,
    _pick_ball,
    _rng_for,
    attack_goal,
    ball_index,
    check_choices,
    check_injected_foul,
    check_log,
    check_overflow,
    check_player,
    defence_duty,
    frozen_contacts,
    golf_geometry,
    limit_note,
    load_golf_rules,
    new_game_state,
    place_on_spots,
    refuse_placing_dropped,
    rim_balls_clear,
    score_strokes,
)

# ---------------------------------------------------------------------------------------------
# Match, game and turn bookkeeping
# ---------------------------------------------------------------------------------------------


def new_match(rules: GolfRules | None = None, seed: int = 0,
              openers: Sequence[int] = (0, 0), geo: GolfGeometry | None = None) -> GolfState:
    """A fresh match (G-4) at its first game.

    Args:
        rules: rule-set options (default: ``configs/rules/golfbillard.yaml``).
        seed: base seed for random choices (G-30 ``random``).
        openers: G-31 partner (0 / 1) of each side who opens game 1 (duo play; in singles a
            side has one player, so only (0, 0) is accepted).
    """
    rules = rules or load_golf_rules()
    geo = geo or golf_geometry()
    o = np.array([int(x) for x in openers], np.int64)
    if o.shape != (2,) or np.any((o != 0) & (o != 1)):
        raise ValueError(f"openers must be two partners 0/1, got {openers!r}")
    if not rules.duo and o.any():
        raise ValueError(f"openers = {list(openers)} but rules.duo is off: a singles side has one "
                         "player (partner 0); set duo=True for duo play (G-31)")
    st = new_game_state(rules, geo, seed)
    st.openers, st.first_openers, st.partner = o.copy(), o.copy(), o.copy()
    if rules.opening == "alternate":
        st = start_turn(st, 0, geo)
    return st


def start_turn(state: GolfState, side: int, geo: GolfGeometry | None = None) -> GolfState:
    """A new turn of ``side``: G-14 records its own balls in its defence triangles."""
    st = state.copy()
    st.to_move = int(side)
    st.duty = defence_duty(st.xy, side, geo)
    st.duty_met = False
    st.turn_strokes = 0
    st.turn_scored = False
    return st


def next_game(state: GolfState, rules: GolfRules, geo: GolfGeometry | None = None) -> GolfState:
    """The next game of the match: balls on their start spots, G-31 openers, G-3 opening."""
    geo = geo or golf_geometry()
    st = new_game_state(rules, geo, state.seed)
    st.games_won = state.games_won.copy()
    st.game_no = state.game_no + 1
    st.winner = state.winner
    st.first_openers = state.first_openers.copy()
    if not rules.duo:
        st.openers = np.zeros(N_SIDES, np.int64)  # singles: one player per side (partner 0)
    elif st.game_no == 1:
        st.openers = 1 - state.first_openers  # G-31: in the second game the other partner opens
    else:
        st.openers = np.array(rules.deciding_openers, np.int64)  # deciding game: configured
    st.partner = st.openers.copy()
    if rules.opening == "alternate":
        st = start_turn(st, 0, geo)  # G-3 option alternate: side 0 starts every game
    return st


def finish_game(state: GolfState, winner: int, rules: GolfRules,
                geo: GolfGeometry | None = None) -> GolfState:
    """Record a finished game (winner 0 / 1, or 2 for a G-5 draw); start the next or end the
    match (G-4: first to 2 games in ``best_of_3``, 1 in ``single``). Drawn games count as
    played: after 3 games (1 in ``single``) the side with more wins takes the match, equal
    wins draw it (2)."""
    st = state.copy()
    st.winner = int(winner)
    if winner in (0, 1):
        st.games_won[winner] += 1
    if st.games_won.max() >= rules.games_to_win:
        st.match_winner = int(np.argmax(st.games_won))
        st.phase = "over"
        return st
    if st.game_no + 1 >= rules.max_games:  # drawn games used up the match: most games wins
        gw = st.games_won
        st.match_winner = 2 if gw[0] == gw[1] else int(np.argmax(gw))
        st.phase = "over"
        return st
    return next_game(st, rules, geo)


def end_turn(state: GolfState, rules: GolfRules, geo: GolfGeometry | None = None) -> GolfState:
    """The side at the table loses the turn: G-5 bookkeeping, G-31 partner rotation."""
    st = state.copy()
    s = int(st.to_move)
    st.turns += 1
    if not st.kader and rules.no_progress_window > 0:  # G-5, not in kader play
        if st.turn_scored:
            st.idle_turns = 0
        elif st.turns > rules.no_progress_turns:
            st.idle_turns += 1
        if st.idle_turns >= N_SIDES * rules.no_progress_window:
            return finish_game(st, 2, rules, geo)
    if rules.duo:
        st.partner[s] = 1 - st.partner[s]  # G-31: partners alternate per turn
    return start_turn(st, 1 - s, geo)


def advance(state: GolfState, outcome: GolfOutcome, rules: GolfRules | None = None,
            geo: GolfGeometry | None = None) -> GolfState:
    """The state after a play stroke scored by :func:`~cuegym.rules.golfbillard.score_strokes`."""
    rules = rules or load_golf_rules()
    st = state.copy()
    st.xy = outcome.xy.copy()
    st.on_spot = outcome.on_spot.copy()
    st.fouled_spots = outcome.fouled_spots.copy()
    st.kader = bool(outcome.kader or np.any(st.balls_left == 1))  # G-20
    st.stroke_no += 1
    if outcome.scored.any():
        st.turn_scored = True
    if outcome.game_over:
        return finish_game(st, outcome.winner, rules, geo)
    if outcome.turn_kept:  # G-1
        st.turn_strokes += 1
        st.duty_met = outcome.duty_met
        return st
    return end_turn(st, rules, geo)


# ---------------------------------------------------------------------------------------------
# The opening (G-3)
# ---------------------------------------------------------------------------------------------

#: G-3: opening balls whose distances to their attack goals differ by no more than this [m] are
#: "equal distances" (rounding noise of mirror-image strokes is not a win).
OPENING_TIE_TOL = 1e-6


@dataclass
class OpeningOutcome:
    """What the opening stroke decided (G-3).

    Attributes:
        balls: (2,) the opening ball of side 0 and side 1.
        scored: (2,) the side scored its opening ball. crossed: (2,) its ball crossed x = 0.
        distance: (2,) final centre distance of each opening ball to its attack goal [m]
            (inf when it did not stay on the table).
        fouls: the opening's fouls: G-3 (another ball than the due one), G-18 (injected, or a
            wrong duo opener, G-31), G-19 (a jam in the defence goal of the side that played
            the ball).
        first: side that takes the first turn, -1 when the opening is repeated.
        repeat: the opening is played again (both scored, a tie, or neither crossed).
        replaced: the balls were put back (tie, or neither crossed).
        scored_balls: balls removed and credited to their side.
        spotted: (ball, spot) put on penalty spots.
        reason: text for people. game_over, winner: G-4 (both sides emptied by openings).
        xy: (10, 2) positions after the opening.
        into_goal: balls put into their goal (G-17, G-18 deflect's GOAL).
        overflow: the physics ``overflow`` code of the stroke (0 came to rest, 1 max_events,
            2 t_max; non-zero only with ``allow_overflow``, with a note); in the JSON only when
            non-zero.
    """

    balls: tuple[int, int]
    scored: tuple[bool, bool]
    crossed: tuple[bool, bool]
    distance: tuple[float, float]
    fouls: list[Foul]
    first: int
    repeat: bool
    replaced: bool
    scored_balls: list[int]
    spotted: list[tuple[int, int]]
    reason: str
    game_over: bool
    winner: int
    xy: np.ndarray
    notes: list[str] = field(default_factory=list)
    #: (10,) the penalty spot each ball put on one of its own side's lies on (G-26; 0: none,
    #: also for a ball put on the spots of the side that jammed it, G-19)
    on_spot: np.ndarray = field(default_factory=lambda: np.zeros(N_BALLS, np.int64))
    into_goal: list[int] = field(default_factory=list)
    overflow: int = 0

    def to_json(self, geo: GolfGeometry | None = None) -> dict:
        geo = geo or golf_geometry()
        ids = geo.ball_ids
        out = {
            "opening": True,
            "balls": [ids[b] for b in self.balls],
            "scored": list(self.scored), "crossed": list(self.crossed),
            "distance": [None if math.isinf(d) else float(d) for d in self.distance],
            "fouls": [{"rule": f.rule, "kind": f.kind, "balls": [ids[b] for b in f.balls],
                       "detail": f.detail} for f in self.fouls],
            "first": None if self.first < 0 else int(self.first),
            "repeat": self.repeat, "replaced": self.replaced,
            "scored_balls": [ids[b] for b in self.scored_balls],
            "spotted": [{"ball": ids[b], "spot": int(k)} for b, k in self.spotted],
            "into_goal": [ids[b] for b in self.into_goal],
            "reason": self.reason, "game_over": self.game_over,
            "winner": None if self.winner < 0 else int(self.winner),
            "balls_after": {ids[b]: None if np.isnan(self.xy[b, 0]) else
                            [float(self.xy[b, 0]), float(self.xy[b, 1])] for b in range(N_BALLS)},
            "notes": self.notes,
        }
        if self.overflow:  # the docs: only an opening cut off at a limit has the key
            out["overflow"] = int(self.overflow)
        return out


def opening_balls(state: GolfState, geo: GolfGeometry | None = None) -> tuple[int, int]:
    """The ball each side opens with (G-3): its middle ball w1 / r1 while that is on the table
    (:func:`score_opening` takes the opening from a side that strikes any other ball); in a
    repeat after both sides scored, where any own ball may open, the on-table own ball nearest
    the middle start spot (ties: the lower number)."""
    geo = geo or golf_geometry()
    out = []
    for s in range(N_SIDES):
        if not np.isnan(state.xy[s * BALLS_PER_SIDE, 0]):
            out.append(s * BALLS_PER_SIDE)
            continue
        own = [b for b in range(N_BALLS) if SIDE_OF[b] == s and not np.isnan(state.xy[b, 0])]
        mid = geo.start[s * BALLS_PER_SIDE]
        out.append(min(own, key=lambda b: float(np.hypot(*(state.xy[b] - mid)))))
    return out[0], out[1]


def score_opening(state: GolfState, log: Any, balls: Sequence[Any], *, t: int = 0,
                  injected: Any = None, players: Sequence[int] | None = None,
                  segments: Callable | None = None, rules: GolfRules | None = None,
                  geo: GolfGeometry | None = None,
                  rng: np.random.Generator | None = None, choices: Any = None,
                  allow_overflow: bool = False) -> OpeningOutcome:
    """Referee the opening stroke on table ``t`` of ``log`` (G-3, G-31).

    Both sides strike one ball at t = 0 (``balls`` = side 0's, side 1's). Each must cross
    x = 0. A side that scores its opening ball takes the first turn; both score: repeat with
    another ball each. Otherwise the ball that stops nearer its attack goal wins; a ball that does
    not cross x = 0 loses; equal distances, or neither crossing: balls back, repeat. Only the
    side's due ball (:func:`opening_balls`: the middle ball) may open: a side that strikes another
    ball loses the opening (a ``G-3`` foul ``wrong_opening_ball`` in ``fouls``; that ball is
    not spotted and, if it drops, counts like any other ball that drops). A side's G-18 foul
    (injected with ``side``, or a duo side whose ``players`` entry is not its opener, G-31) with
    LT loses the opening; the side's penalised G-18 foul (the first by time with consequences)
    applies its letters to that side's stroke: RA its balls the opening moved go back, RF the
    event's ``restore``, SPOT the touched ball to a penalty spot, GOAL the touched opponent's
    ball into its goal, CS its opening ball to a penalty spot unless it scored, PICK (kader
    play: an opening that starts with a side at one ball, G-20, G-25) one of its balls the
    opponent picks to a penalty spot.

    Balls that drop or jam are judged for the side that played them (:func:`_players`, the
    chains of contacts from the two opening balls): a drop counts for the ball's side (G-6 in
    its attack goal, G-7 in its defence goal when the other side played it), except an own
    ball its own side played into its defence goal (G-8: a penalty spot); a jam between the
    caps of the player's attack goal counts as a drop there, between the caps of its defence
    goal it is that side's G-19 foul: the ball to one of that side's penalty spots. A rail
    return (G-17b) and a jam between a cap and the short cushion change nothing (a note).

    ``players`` (the two partners who opened) is required with ``rules.duo`` and may only be
    None or [0, 0] without it; ``choices`` (``spots`` with ``spot_policy = 'agent'``, ``pick``
    with ``pick_policy = 'agent'``: a ball of the offending side), ``allow_overflow`` and the
    errors are those of :func:`~cuegym.rules.golfbillard.score_strokes`.
    """
    rules = rules or load_golf_rules()
    geo = geo or golf_geometry()
    if state.phase != "opening":
        raise ValueError(f"score_opening needs a state in phase 'opening', got {state.phase!r}")
    b = tuple(ball_index(x, geo) for x in balls)
    if len(b) != 2 or SIDE_OF[b[0]] != 0 or SIDE_OF[b[1]] != 1:
        raise ValueError(f"the opening needs one ball of side 0 then one of side 1, got {balls!r}")
    before = state.xy.copy()
    on0 = ~np.isnan(before[:, 0])
    for x in b:
        if not on0[x]:
            raise ValueError(f"opening ball {geo.ball_ids[x]} is not on the table")
    choices = check_choices(choices, rules, "choices")
    if players is None:
        check_player(None, rules, "players")  # duo play needs them
    else:
        if isinstance(players, (str, dict)) or len(players) != N_SIDES:
            raise ValueError(f"players must be the two openers [p0, p1], got {players!r}")
        players = [check_player(p, rules, f"players[{k}]") for k, p in enumerate(players)]
    check_overflow(log, allow_overflow, [t])
    tl = TableLog(log, t, segments)
    events = _injected(injected, geo, tl.t_end)
    rng = rng or _rng_for(state)
    # G-20: an opening that starts with a side at one ball is kader play (G-25 letters)
    kader = bool(state.kader or np.any(np.bincount(SIDE_OF[on0], minlength=N_SIDES) == 1))
    fouls: list[Foul] = []
    lost = [False, False]
    notes: list[str] = [limit_note(tl.overflow)] if tl.overflow else []
    off: dict[int, float] = {}  # ball -> when it left the cloth (its first such event) [s]
    for s in range(N_SIDES):
        mid = s * BALLS_PER_SIDE
        # G-3: only the middle ball may open; once both scored it, any own ball ("another each")
        if not np.isnan(state.xy[mid, 0]) and b[s] != mid:
            fouls.append(Foul("G-3", 0.0, (b[s],), "wrong_opening_ball",
                              f"side {s} opened with {geo.ball_ids[b[s]]}; only "
                              f"{geo.ball_ids[mid]} may open"))
            lost[s] = True
    pen: dict[int, tuple] = {}  # side -> its penalised G-18 foul: letters, time, restore, ball

    def penalise(side, letters, time, restore, ball):
        kept = pen.get(side)
        if kept is None or (not kept[0] and letters) or (
                bool(kept[0]) == bool(letters) and time < kept[1]):
            pen[side] = (letters, time, restore, ball)

    for e in events:
        if "ball" in e and not on0[e["ball"]]:
            raise ValueError(f"injected {e['type']} names ball {geo.ball_ids[e['ball']]}, which "
                             "is not on the table")
        if e["type"] == "foul":
            deflect = e["kind"] in ("deflect_own_ball", "deflect_opponent_ball")
            side = e.get("side")
            if side is None and not deflect and "ball" in e:
                side = SIDE_OF[e["ball"]]
            if side not in (0, 1):
                raise ValueError("an opening foul needs a side (0 / 1) or a ball of the offending "
                                 f"side; a deflect foul needs its side: {e!r}")
            check_injected_foul(e, side, on0, geo)
            touched = e.get("ball")
            letters = BEHAVIOURAL[e["kind"]][int(kader)]
            fouls.append(Foul("G-18", e["time"], (b[side],), e["kind"], f"side {side}"))
            lost[side] = lost[side] or "LT" in letters
            penalise(side, letters, e["time"], e.get("restore", ()),
                     touched if deflect else None)
        elif e["type"] in ("off_table", "rests_on_rail"):
            off.setdefault(e["ball"], e["time"])
            if e["ball"] in b:
                lost[SIDE_OF[e["ball"]]] = True
        elif e["type"] == "rail_return":
            notes.append(f"G-17b: {geo.ball_ids[e['ball']]} rode over the rail and came back: "
                         "not penalised")
        elif e["type"] == "jam" and "goal" not in e:
            notes.append(f"G-19: {geo.ball_ids[e['ball']]} jammed between a cap and the short "
                         "cushion: freed")
        # falls and jams between a goal's caps act on the drops (below)
    if rules.duo:
        for s in range(N_SIDES):
            if int(players[s]) != int(state.openers[s]):  # G-31: the wrong partner opened
                fouls.append(Foul("G-18", 0.0, (b[s],), "wrong_opener",
                                  f"side {s}: partner {players[s]} opened, "
                                  f"partner {int(state.openers[s])} was due"))
                lost[s] = True
                penalise(s, BEHAVIOURAL["wrong_opener"][int(kader)], 0.0, (), None)
    drops = tl.drops(on0)
    falls = tl.falls(on0)
    refuse_placing_dropped(events, drops, falls, geo.ball_ids)
    jam_by: dict[int, int] = {}  # G-19 jammed ball -> the side whose defence goal holds it
    for e in events:  # in their order
        x = e.get("ball")
        if e["type"] == "fall_after_rest":  # G-6a: undoes the log's drop of its ball
            drops, on_rim = tl.fall_after_rest(x, drops, falls)
            if on_rim:
                notes.append(FALL_NOTE.format(geo.ball_ids[x]))
        elif e["type"] == "jam" and "goal" in e:
            p = _players(tl, b, e["time"]).get(x, SIDE_OF[x])
            if e["goal"] == attack_goal(p):  # held by the caps of its player's attack goal
                drops = sorted([d for d in drops if d[0] != x] + [(x, int(e["goal"]), e["time"])],
                               key=lambda d: d[2])
            else:  # the caps of its player's defence goal: that side's G-19 (no LT)
                jam_by[x] = p
                fouls.append(Foul("G-19", e["time"], (x,), "jam",
                                  f"{geo.ball_ids[x]} jammed between the caps of side {p}'s "
                                  "defence goal"))
    final = tl.final_xy()
    final[~on0] = np.nan
    for x, k in sorted(falls.items()):  # G-6a: back on the rim
        final[x] = tl.rim_point(x, k, geo.goals)
        notes.append(FALL_NOTE.format(geo.ball_ids[x]))
    rim_balls_clear(final, falls, {x for x, _, _ in drops} | set(off) | set(jam_by), geo)
    # RA / RF of a side's penalised foul: those balls go back, neither counting nor spotted
    moved = _moved(tl, before, final, {x for x, _, _ in drops} | set(off) | set(jam_by))
    back: set[int] = set()
    restored: dict[int, tuple[float, float]] = {}
    for s in range(N_SIDES):
        letters, _, rest, _ = pen.get(s, (frozenset(), 0.0, (), None))
        if "RA" in letters:
            back |= {x for x in range(N_BALLS) if SIDE_OF[x] == s and moved[x]}
        if "RF" in letters:
            for r, x, y in rest:
                back.add(r)
                restored[r] = (x, y)
    # a ball RA would put back where the other side's stroke left a ball goes to a spot instead
    gone = {x for x, _, _ in drops} | set(off) | set(jam_by)
    blocked: list[int] = []
    for x in range(N_BALLS):
        if x not in back or "RA" not in pen.get(SIDE_OF[x], (frozenset(),))[0]:
            continue
        if any(o not in back and o not in blocked and o not in gone and not np.isnan(final[o, 0])
               and math.hypot(*(final[o] - before[x])) < 2 * geo.R - 1e-9
               for o in range(N_BALLS)):
            blocked.append(x)
            back.discard(x)
    removed: dict[int, float] = {}
    to_spot: list[int] = []
    spot_of: dict[int, int] = {}  # a ball placed on another side's spots than its own: that side
    for x, g, tt in drops:
        if x in back or x in blocked:
            continue
        own = SIDE_OF[x]
        # G-6 its attack goal; G-7 an opponent's ball counts in either goal; G-8 its own side
        # played it into its defence goal
        if g == attack_goal(own) or _players(tl, b, tt).get(x, own) != own:
            removed[x] = tt
        else:
            to_spot.append(x)
    into: list[int] = []  # put into their goal (G-17, GOAL)
    for x in sorted(off):
        if x in removed or x in to_spot:
            continue
        if _players(tl, b, off[x]).get(x, SIDE_OF[x]) != SIDE_OF[x]:
            # G-17: the other side played it off the table: into its goal, whatever else
            removed[x] = off[x]
            into.append(x)
            back.discard(x)
            blocked = [y for y in blocked if y != x]
        elif x not in back and x not in blocked:  # G-16 (an opening ball: always its side's)
            to_spot.append(x)
    for x in sorted(jam_by):
        if x not in removed and x not in to_spot and x not in back and x not in blocked:
            to_spot.append(x)
            spot_of[x] = jam_by[x]
    to_spot += [x for x in blocked if x not in to_spot]
    for s in range(N_SIDES):  # the penalised fouls' other letters
        letters, tm, _, touched = pen.get(s, (frozenset(), 0.0, (), None))
        if "SPOT" in letters and touched is not None:
            removed.pop(touched, None)
            if touched not in to_spot:
                to_spot.append(touched)
        if "GOAL" in letters and touched is not None and touched not in removed:
            removed[touched] = tm
            into.append(touched)
            to_spot = [x for x in to_spot if x != touched]
        if "CS" in letters and b[s] not in removed and b[s] not in to_spot:
            to_spot.append(b[s])
    scored = tuple(bool(b[s] in removed and not lost[s]) for s in range(N_SIDES))
    crossed = []
    dist = []
    for s in range(N_SIDES):
        sign = 1.0 if s == 0 else -1.0
        gone = b[s] in removed or b[s] in to_spot
        crossed.append(bool(b[s] in removed or path_max(tl.segments(b[s]), (sign, 0.0)) > 0.0))
        goal = geo.goals[attack_goal(s), :2]
        dist.append(math.inf if gone else float(np.hypot(*(final[b[s]] - goal))))
    ok = [crossed[s] and not lost[s] and b[s] not in to_spot for s in range(N_SIDES)]
    first, repeat, replaced = -1, False, False
    if scored[0] and scored[1]:
        repeat, reason = True, "both sides scored their opening ball: repeat with another ball"
    elif scored[0] or scored[1]:
        first = 0 if scored[0] else 1
        reason = f"side {first} scored its opening ball"
    elif ok[0] and ok[1]:
        if abs(dist[0] - dist[1]) <= OPENING_TIE_TOL:
            repeat, replaced, reason = True, True, "equal distances: balls back, repeat"
        else:
            first = int(np.argmin(dist))
            reason = f"side {first}'s ball stopped nearer its attack goal"
    elif ok[0] or ok[1]:
        first = 0 if ok[0] else 1
        reason = (f"side {1 - first} lost the opening (its ball did not cross x = 0, or it "
                  f"fouled or struck another ball than its middle ball)")
    else:
        repeat, replaced, reason = True, True, ("neither side opened validly (no ball crossed "
                                                "x = 0, or both fouled): balls back, repeat")
    xy = before.copy() if replaced else final.copy()
    spotted: list[tuple[int, int]] = []
    on_spot = np.zeros(N_BALLS, np.int64)
    picks = 0
    if not replaced:
        for x in back:
            xy[x] = before[x]
        for x, p in restored.items():
            xy[x] = p
        for x in removed:
            xy[x] = np.nan
        for x in to_spot:
            xy[x] = np.nan
        for s in range(N_SIDES):  # G-25 PICK (kader letters): one of the offender's balls
            if "PICK" not in pen.get(s, (frozenset(),))[0]:
                continue
            picks += 1
            x = _pick_ball(state, xy, b[s], choices.get("pick"), rules, geo, rng, side=s)
            if x is not None and x not in to_spot:
                to_spot.append(x)
                xy[x] = np.nan
                if x == b[s]:
                    dist[s] = math.inf
        for s in range(N_SIDES):
            letters, _, rest, _ = pen.get(s, (frozenset(), 0.0, (), None))
            if "RF" in letters and rest:
                _check_restored(xy, [r for r, _, _ in rest], geo)
        pending = choices.get("spots")
        for x in to_spot:  # one at a time, each on its side's spots (G-19: the jamming side's)
            got, left = place_on_spots([x], xy, geo, rules, rng, pending,
                                       offender=spot_of.get(x, SIDE_OF[x]))
            spotted += got
            if isinstance(pending, (list, tuple)):
                pending = left
            k = got[0][1]
            on_spot[x] = k if spot_of.get(x, SIDE_OF[x]) == SIDE_OF[x] else 0
        if isinstance(pending, (list, tuple)) and pending:
            notes.append(f"choices['spots']: entries {list(pending)} not needed")
    elif "spots" in choices:
        notes.append("choices['spots'] not used: the balls went back (repeat)")
    if choices.get("pick") is not None and not picks:
        notes.append("choices['pick'] not used: no G-25 pick in this stroke")
    left = np.bincount(SIDE_OF[~np.isnan(xy[:, 0])], minlength=N_SIDES)
    winner = -1
    if np.any(left == 0):  # G-4 (after double scores, or a last ball scored by G-7)
        if np.all(left == 0):
            last = [max(tt for x, tt in removed.items() if SIDE_OF[x] == s) for s in range(2)]
            winner = int(np.argmin(last))
        else:
            winner = int(np.flatnonzero(left == 0)[0])
    return OpeningOutcome(balls=b, scored=scored, crossed=tuple(crossed), distance=tuple(dist),
                          fouls=fouls, first=first, repeat=repeat, replaced=replaced,
                          scored_balls=[] if replaced else sorted(removed), spotted=spotted,
                          reason=reason, game_over=winner >= 0, winner=winner, xy=xy, notes=notes,
                          on_spot=on_spot, overflow=tl.overflow,
                          into_goal=[] if replaced else sorted({x for x in into if x in removed}))


def _players(tl: TableLog, openers: Sequence[int], until: float) -> dict[int, int]:
    """G-3 / G-7 / G-8 / G-19: who played each ball of the opening by time ``until`` [s]: ball ->
    side. The two sides play at once; the opening balls (``openers``, side 0's then side 1's)
    are their sides' own, and every other ball belongs to the chain of contacts that reached
    it last: at each ball-ball contact up to ``until`` (in the log's order) it takes the side
    of the ball it met, when that ball has one (two such balls swap). A ball missing from the
    result was reached by neither chain (the caller takes its own side)."""
    side = {int(openers[0]): 0, int(openers[1]): 1}
    for k in np.flatnonzero((tl.type == EV_BALL_BALL) & (tl.time <= until)):
        x, y = int(tl.i[k]), int(tl.j[k])
        sx, sy = side.get(x), side.get(y)
        if sy is not None and x not in openers:
            side[x] = sy
        if sx is not None and y not in openers:
            side[y] = sx
    return side


def advance_opening(state: GolfState, outcome: OpeningOutcome, rules: GolfRules | None = None,
                    geo: GolfGeometry | None = None) -> GolfState:
    """The state after the opening: the first turn (G-3) with its partner (G-31), or a repeat."""
    rules = rules or load_golf_rules()
    st = state.copy()
    st.xy = outcome.xy.copy()
    st.stroke_no += 1
    st.on_spot = outcome.on_spot.copy()  # G-26: only a ball on its own side's spots
    if outcome.game_over:
        return finish_game(st, outcome.winner, rules, geo)
    st.kader = bool(np.any(st.balls_left == 1))  # G-20, a repeat included
    if outcome.repeat:
        return st
    w = outcome.first
    st.phase = "play"
    if rules.duo:
        # G-31: the winner continues with its second partner, unless the opening scored
        # validly: then the opener continues his turn. The loser's next turn is its partner's.
        st.partner[w] = st.openers[w] if outcome.scored[w] else 1 - st.openers[w]
        st.partner[1 - w] = 1 - st.openers[1 - w]
    st = start_turn(st, w, geo)  # G-14: the opening itself is exempt
    st.turn_scored = bool(outcome.scored[w])
    return st


# ---------------------------------------------------------------------------------------------
# Batched play: either phase
# ---------------------------------------------------------------------------------------------


def play_strokes(states: Sequence[GolfState], log: Any, cue_ball: Any, cue: Any = None, *,
                 injected: Any = None, players: Any = None, segments: Callable | None = None,
                 choices: Any = None, rules: GolfRules | None = None,
                 geo: GolfGeometry | None = None, allow_overflow: bool = False
                 ) -> tuple[list[GolfOutcome | OpeningOutcome], list[GolfState]]:
    """Score one stroke per table and advance each table's state (opening or play).

    Args:
        states: T states.
        log: physics result for T tables.
        cue_ball: (T,) for play strokes, or (T, 2) where column 1 is -1 for a play stroke and
            the side-1 opening ball for an opening.
        cue: (T, 5) or (T, 2, 5) strikes (only the first is used for play strokes).
        injected, players, segments, choices, rules, geo, allow_overflow: as in
            :func:`~cuegym.rules.golfbillard.score_strokes`; for an opening ``players[t]`` is the
            pair of partners who opened (G-31).

    Returns:
        (outcomes, new states).
    """
    rules = rules or load_golf_rules()
    geo = geo or golf_geometry()
    T = len(states)
    check_log(log, np.stack([s.on_table for s in states]), geo)  # both phases
    cb = np.asarray(cue_ball, dtype=object)
    if cb.ndim == 1:
        cb = np.stack([cb, np.full(T, -1, dtype=object)], axis=1)
    if cb.shape != (T, 2):
        raise ValueError(f"cue_ball must have shape ({T},) or ({T}, 2), got {cb.shape}")
    cue_arr = None
    if cue is not None:
        cue_arr = np.asarray(cue, dtype=np.float64)
        cue_arr = cue_arr.reshape(T, -1, 5)[:, 0, :]
    injected = [[] for _ in range(T)] if injected is None else list(injected)
    players = [None] * T if players is None else list(players)
    choices = [None] * T if choices is None else list(choices)
    for name, v in (("injected", injected), ("players", players), ("choices", choices)):
        if len(v) != T:
            raise ValueError(f"{name} needs one entry per table ({T}), got {len(v)}")
    outs: list[Any] = [None] * T
    new: list[Any] = [None] * T
    play = [t for t in range(T) if states[t].phase == "play"]
    for t in range(T):
        if states[t].phase == "over":
            raise ValueError(f"table {t}: the match is over")
        if states[t].phase == "opening":
            o = score_opening(states[t], log, (cb[t, 0], cb[t, 1]), t=t, injected=injected[t],
                              players=players[t], segments=segments, rules=rules, geo=geo,
                              choices=choices[t], allow_overflow=allow_overflow)
            outs[t], new[t] = o, advance_opening(states[t], o, rules, geo)
    if play:
        sub = _take_tables(log, play)
        seg = None if segments is None else (lambda k, b: segments(play[k], b))
        res = score_strokes([states[t] for t in play], sub, [cb[t, 0] for t in play],
                            None if cue_arr is None else cue_arr[play],
                            injected=[injected[t] for t in play],
                            players=[players[t] for t in play], segments=seg,
                            choices=[choices[t] for t in play], rules=rules, geo=geo,
                            allow_overflow=allow_overflow)
        for t, o in zip(play, res, strict=True):
            outs[t], new[t] = o, advance(states[t], o, rules, geo)
    return outs, new


_LOG_FIELDS = ("rvw", "rvw0", "motion", "motion0", "pocket", "ev_type", "ev_time", "ev_i", "ev_j",
               "ev_state", "ev_motion", "n_events", "t_end", "overflow")


def _take_tables(log: Any, idx: Sequence[int]) -> Any:
    from types import SimpleNamespace

    if len(idx) == int(np.asarray(log.n_events).shape[0]) and list(idx) == list(range(len(idx))):
        return log
    return SimpleNamespace(**{f: np.asarray(getattr(log, f))[list(idx)] for f in _LOG_FIELDS
                              if hasattr(log, f)})


# ---------------------------------------------------------------------------------------------
# Physics, policies and whole games
# ---------------------------------------------------------------------------------------------


def simulate_strokes(states: Sequence[GolfState], cue_ball: Any, cue: Any, *,
                     geo: GolfGeometry | None = None, params: Any = None, models: Any = None,
                     max_events: int = 1000, t_max: float = 60.0) -> tuple[Any, Callable]:
    """Simulate one stroke per state with :func:`cuegym.physics.simulate`.

    Args:
        states: T states (their ``xy``; scored balls are absent).
        cue_ball: (T,) or (T, 2) struck balls (-1 for an unused slot).
        cue: (T, 5) or (T, 2, 5) strikes V0, phi, theta, a, b.

    Returns:
        (SimResult, segments callable ``(table, ball) -> path segments``).
    """
    from cuegym.configs import load_params
    from cuegym.physics import GAME_MODELS, simulate
    from cuegym.physics.path import ball_segments

    geo = geo or golf_geometry()
    params = params or load_params("golfbillard")
    xy = np.stack([s.xy for s in states])
    present = ~np.isnan(xy[..., 0])
    xy = np.where(present[..., None], xy, 0.0)
    cb = np.asarray(cue_ball, dtype=np.int64)
    cb = cb[:, None] if cb.ndim == 1 else cb
    cue_arr = np.asarray(cue, dtype=np.float64).reshape(len(states), cb.shape[1], 5)
    res = simulate(geo.table, params, xy, cue_ball=cb, cue=cue_arr, present=present,
                   max_events=max_events, t_max=t_max, ball_names=geo.ball_ids,
                   models=GAME_MODELS if models is None else models)  # the games' physics
    return res, (lambda t, b: ball_segments(res, t, b))


def opening_strike(state: GolfState, side: int, ball: int, V0: float = 1.1,
                   geo: GolfGeometry | None = None) -> np.ndarray:
    """G-3: a soft strike of ``ball`` off the side's left long cushion toward its attack goal.

    Aims at the attack goal's mirror image in the left cushion's ball-centre line (left is +y
    for side 0, facing +x, and -y for side 1). Returns (5,) V0, phi, theta, a, b.
    """
    geo = geo or golf_geometry()
    p = state.xy[ball]
    gx, gy = geo.goals[attack_goal(side), :2]
    wall = (geo.table.width / 2 - geo.R) * (1.0 if side == 0 else -1.0)
    phi = math.degrees(math.atan2(2 * wall - gy - p[1], gx - p[0]))
    return np.array([V0, phi, 0.0, 0.0, 0.0])


def random_policy(state: GolfState, rng: np.random.Generator,
                  geo: GolfGeometry | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A random but purposeful stroke: a random own ball aimed roughly at the attack goal.

    Returns:
        (cue_ball (2,), cue (2, 5)); slot 1 is used only in the opening (side 1's ball).
    """
    geo = geo or golf_geometry()
    if state.phase == "opening":
        b = opening_balls(state, geo)
        cue = np.stack([opening_strike(state, s, b[s], float(rng.uniform(0.9, 1.3)), geo)
                        for s in range(N_SIDES)])
        return np.array(b), cue
    s = state.to_move
    own = np.flatnonzero((SIDE_OF == s) & state.on_table)
    b = int(rng.choice(own))
    goal = geo.goals[attack_goal(s), :2]
    d = goal - state.xy[b]
    aim = math.degrees(math.atan2(d[1], d[0]))
    frozen = [u for _, _, u in frozen_contacts(state.xy, b, geo, 0.0005)]
    for k in range(20):  # avoid pushing into what the ball is frozen to (G-13)
        phi = aim + float(rng.normal(0.0, 6.0)) if k < 10 else float(rng.uniform(-180, 180))
        u = np.array([math.cos(math.radians(phi)), math.sin(math.radians(phi))])
        if all(float(u @ f) <= 0.0 for f in frozen):
            break
    V0 = float(rng.uniform(0.3, 1.5))
    cue = np.zeros((2, 5))
    cue[0] = (V0, phi, 0.0, float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3)))
    return np.array([b, -1]), cue


def run_game(rules: GolfRules | None = None, *, seed: int = 0, policy: Callable | None = None,
             max_strokes: int = 3000, state: GolfState | None = None,
             geo: GolfGeometry | None = None) -> tuple[GolfState, list]:
    """Play until the match is over (or ``max_strokes``) with the physics and a policy.

    Args:
        rules: rule-set options (``match: single`` for one game; ``duo`` for duos).
        seed: seeds the policy's generator and the state.
        policy: ``(state, rng, geo) -> (cue_ball (2,), cue (2, 5))``; default
            :func:`random_policy`. In a duo the due partner always strikes.
        max_strokes: safety limit (kader play has no G-5 limit).
        state: start from this state instead of a new match.

    Returns:
        (final state, list of outcomes).
    """
    rules = rules or load_golf_rules()
    geo = geo or golf_geometry()
    policy = policy or random_policy
    rng = np.random.default_rng(seed)
    st = state if state is not None else new_match(rules, seed=seed, geo=geo)
    history: list = []
    while st.phase != "over" and len(history) < max_strokes:
        cb, cue = policy(st, rng, geo)
        res, seg = simulate_strokes([st], cb[None], cue[None], geo=geo)
        players = [list(st.openers) if st.phase == "opening" else int(st.partner[st.to_move])]
        # random play: a stroke cut off by max_events / t_max is scored where it ended (the
        # outcome's overflow code and notes record it)
        outs, new = play_strokes([st], res, cb[None], cue[None], players=players, segments=seg,
                                 rules=rules, geo=geo, allow_overflow=True)
        history.append(outs[0])
        st = new[0]
    return st, history


# ---------------------------------------------------------------------------------------------
# JSON (the score CLI)
# ---------------------------------------------------------------------------------------------


def _strike_arrays(state: GolfState, obj: Any, geo: GolfGeometry, where: str
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(cue_ball (1, 2), cue (1, 2, 5)) from a JSON strike object or list of them (the opening
    needs one per side). Values are checked as the physics checks a strike (ranges, a ball on
    the table)."""
    from cuegym.physics.checks import PhysicsInputError, check_strikes

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
        cue[0, k] = [req_num(s.get(name, 0.0), f"{sp}.{name}")
                     for name in ("V0", "phi", "theta", "a", "b")]
    try:
        check_strikes(cb, cue, state.on_table[None])
    except PhysicsInputError as exc:
        raise RefereeInputError(f"{where}: {exc}".replace("table 0: ", "")) from None
    return cb, cue


def log_from_json(out: Any, state: GolfState, cue_ball: np.ndarray, cue: np.ndarray,
                  geo: GolfGeometry | None = None, path: str = "log") -> Any:
    """A one-table log from an output object of ``cuegym.physics.simulate_json``.

    The JSON output has no positions or velocities at events: the cue balls' initial velocity
    is rebuilt from the strike (V = 2 V0 / (1 + m/M + 5/2 (a^2 + b^2)), along phi), and zone
    questions about paths (G-3, G-14, G-21) see each ball moving straight from its start to its
    end. Score a ``shot`` instead of a ``log`` for exact paths.

    Raises:
        RefereeInputError (a ValueError): one line naming the JSON path of the bad value; the
            checks of :func:`cuegym.rules.inputs.read_sim_output` (``final`` lists every ball
            on the table in ``state``, legal final positions, goal events, ordered finite times,
            cushion, goal and cap indices in range).
    """
    from types import SimpleNamespace

    from cuegym.configs import load_params
    from cuegym.physics.constants import POCKETED, STATIONARY

    geo = geo or golf_geometry()
    prm = load_params("golfbillard")
    on = state.on_table
    so = read_sim_output(out, path, geo.table, prm, geo.ball_ids, on)
    K = max(len(so.ev_type), 1)
    n = len(so.ev_type)
    ev = {"ev_type": np.zeros((1, K), np.int8), "ev_time": np.zeros((1, K)),
          "ev_i": np.zeros((1, K), np.int32), "ev_j": np.zeros((1, K), np.int32),
          "ev_state": np.full((1, K, 2, 7), np.nan), "ev_motion": np.zeros((1, K, 2), np.int8)}
    ev["ev_type"][0, :n], ev["ev_time"][0, :n] = so.ev_type, so.ev_time
    ev["ev_i"][0, :n], ev["ev_j"][0, :n] = so.ev_i, so.ev_j
    rvw0 = np.zeros((1, N_BALLS, 3, 3))
    rvw0[0, :, 0, :2] = np.where(on[:, None], state.xy, 0.0)
    for k in range(cue_ball.shape[1]):
        b = int(cue_ball[0, k])
        if b < 0:
            continue
        V0, phi, _theta, a, bb = cue[0, k]
        V = 2 * V0 / (1 + prm.m / prm.M + 2.5 * (a * a + bb * bb))
        rvw0[0, b, 1, :2] = V * np.cos(np.radians(phi)), V * np.sin(np.radians(phi))
    rvw = rvw0.copy()
    rvw[0, :, 1] = 0.0
    dropped = so.pocket >= 0  # a dropped ball keeps its start position in rvw
    rvw[0, on & ~dropped, 0, :2] = so.final_xy[on & ~dropped]
    motion0 = np.where(on, STATIONARY, POCKETED)[None].astype(np.int32)
    motion = np.where(on & ~dropped, STATIONARY, POCKETED)[None].astype(np.int32)
    return SimpleNamespace(rvw=rvw, rvw0=rvw0, motion=motion, motion0=motion0,
                           pocket=so.pocket[None].astype(np.int32),
                           n_events=np.array([n], np.int32), t_end=np.array([so.t_end]),
                           overflow=np.array([so.end_code], np.int8), **ev)


def score_json(payload: Any) -> dict:
    """The ``score`` CLI: see :func:`cuegym.rules.golfbillard.score_cli`.

    Raises:
        RefereeInputError (a ValueError): one line naming the JSON path of the bad value
            (``state.balls.w1``, ``log.final.r2``, ``strike.V0``, ``inject[0].ball``);
            ConfigError (a ValueError) for a bad rule option.
    """
    from cuegym.configs import load_params

    geo = golf_geometry()
    payload = req_obj(payload, "input", ("state", "shot", "log", "strike", "rules", "inject",
                                         "injected", "player", "choices", "allow_overflow"))
    if ("shot" in payload) == ("log" in payload):
        raise RefereeInputError("input needs exactly one of 'shot' or 'log'")
    if "inject" in payload and "injected" in payload:
        raise RefereeInputError("input has both 'inject' and 'injected'; give one")
    rules = load_golf_rules(**req_obj(payload.get("rules", {}), "rules"))
    state = (GolfState.from_json(payload["state"], geo, rules)
             if payload.get("state") is not None else new_match(rules, geo=geo))
    if state.phase == "over":
        raise RefereeInputError("state.phase is 'over': the match is over, there is no stroke "
                                "to score")
    ikey = "inject" if "inject" in payload else "injected"
    inject = _injected(payload.get(ikey), geo, 0.0, ikey)  # validated here, kept as given
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
    player = payload.get("player")
    if state.phase == "opening" and player is not None:
        player = [req_choice(p, f"player[{k}]", (0, 1))
                  for k, p in enumerate(req_list(player, "player", N_SIDES))]
    elif player is not None:
        player = req_choice(player, "player", (0, 1))
    if "shot" in payload:
        from cuegym.physics.api import Models

        shot = req_obj(payload["shot"], "shot", ("table", "params", "models", "balls", "strike",
                                                 "max_events", "t_max"), ("strike",))
        req_choice(shot.get("table", "golfbillard"), "shot.table", ("golfbillard",))
        for name, rec in req_obj(shot.get("balls", {}), "shot.balls").items():
            bp = f"shot.balls.{name}"
            b = req_name(name, bp, geo.ball_ids, "ball")
            rec = req_obj(rec, bp, ("x", "y"), ("x", "y"))
            if not state.on_table[b]:
                raise RefereeInputError(f"{bp}: that ball is scored in the state")
            xy = (req_num(rec["x"], f"{bp}.x"), req_num(rec["y"], f"{bp}.y"))
            if math.dist(xy, state.xy[b]) > 1e-6:
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
            models = Models(**req_obj(shot.get("models", {}), "shot.models",
                                      ("ball_ball", "cushion", "squirt")))
        except (TypeError, ValueError) as exc:
            raise RefereeInputError(f"shot.models: {exc}") from None
        max_events = req_int(shot.get("max_events", 1000), "shot.max_events", 1)
        t_max = req_num(shot.get("t_max", 60.0), "shot.t_max", lo=0.0)
        if t_max <= 0.0:
            raise RefereeInputError(f"shot.t_max must be > 0, got {t_max!r}")
        res, seg = simulate_strokes([state], cb, cue, geo=geo, params=params, models=models,
                                    max_events=max_events, t_max=t_max)
    else:
        if "strike" not in payload:
            raise RefereeInputError("with a 'log', give the shot's 'strike' (the cue ball and "
                                    "V0, phi, theta, a, b) too")
        cb, cue = _strike_arrays(state, payload["strike"], geo, "strike")
        res, seg = log_from_json(payload["log"], state, cb, cue, geo), None
    outs, new = play_strokes([state], res, cb, cue, injected=[inject], players=[player],
                             segments=seg, choices=[choices], rules=rules, geo=geo,
                             allow_overflow=req_bool(payload.get("allow_overflow", False),
                                                     "allow_overflow"))
    return {"outcome": outs[0].to_json(geo), "state": new[0].to_json(geo)}
