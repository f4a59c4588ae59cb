"""Per-table Python views of the compiled golfbillard referee (JSON, tests, tools).

The hot path keeps states and outcomes as arrays (:mod:`cuegym.rules.golf_arrays`); this module
converts between those arrays and the per-table objects of :mod:`cuegym.rules.golfbillard`
(:class:`GolfState`, :class:`GolfOutcome`, :class:`OpeningOutcome`, :class:`Foul`), parses
injected events and the opponent's choices into :class:`GolfInputs`, and writes the texts
(foul details, notes, opening reasons) from the kernels' codes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .golf_arrays import (
    MAX_INJECTED,
    N_BALLS,
    N_DRAWS,
    SIDE_OF,
    GolfInputs,
    GolfStates,
    OutcomeArrays,
    empty_states,
    plain_inputs,
)
from .golf_codes import (
    BEHAVIOURAL,
    D_INJECTED,
    D_OPENING_SIDE,
    D_OUT_OF_TURN,
    D_PLAYED_OPP,
    D_WRONG_OPENER,
    INJECTED_TYPES,
    KIND,
    KINDS,
    LETTERS,
    N_FALL,
    N_JAM_FREED,
    N_LIMIT_EVENTS,
    N_LIMIT_TIME,
    N_PICK_UNUSED,
    N_RAIL_RETURN,
    N_SPOTS_REPEAT,
    N_SPOTS_UNUSED,
    OPENING_REASONS,
    PHASES,
    RULES,
)
from .golf_config import ball_index, golf_geometry
from .golf_state import GolfState
from .inputs import RefereeInputError, req_choice, req_list, req_num, req_obj, show

# ---------------------------------------------------------------------------------------------
# States
# ---------------------------------------------------------------------------------------------


def pack_states(states: Sequence[Any]) -> GolfStates:
    """Per-table :class:`~cuegym.rules.golf_state.GolfState` objects -> one GolfStates batch."""
    T = len(states)
    gs = empty_states(T)
    for t, st in enumerate(states):
        gs.xy[t] = st.xy
        gs.to_move[t] = st.to_move
        gs.phase[t] = PHASES.index(st.phase)
        gs.kader[t] = st.kader
        gs.duty[t] = st.duty
        gs.duty_met[t] = st.duty_met
        gs.turn_strokes[t] = st.turn_strokes
        gs.turn_scored[t] = st.turn_scored
        gs.on_spot[t] = st.on_spot
        gs.fouled_spots[t] = st.fouled_spots
        gs.turns[t] = st.turns
        gs.idle_turns[t] = st.idle_turns
        gs.winner[t] = st.winner
        gs.games_won[t] = st.games_won
        gs.game_no[t] = st.game_no
        gs.match_winner[t] = st.match_winner
        gs.partner[t] = st.partner
        gs.openers[t] = st.openers
        gs.first_openers[t] = st.first_openers
        gs.stroke_no[t] = st.stroke_no
        gs.seed[t] = st.seed
    return gs


def unpack_state(gs: GolfStates, t: int) -> Any:
    """Row t of a GolfStates batch as a :class:`~cuegym.rules.golf_state.GolfState`."""
    return GolfState(
        xy=gs.xy[t].copy(), to_move=int(gs.to_move[t]), phase=PHASES[int(gs.phase[t])],
        kader=bool(gs.kader[t]), duty=gs.duty[t].copy(), duty_met=bool(gs.duty_met[t]),
        turn_strokes=int(gs.turn_strokes[t]), turn_scored=bool(gs.turn_scored[t]),
        on_spot=gs.on_spot[t].copy(), fouled_spots=gs.fouled_spots[t].copy(),
        turns=int(gs.turns[t]), idle_turns=int(gs.idle_turns[t]), winner=int(gs.winner[t]),
        games_won=gs.games_won[t].copy(), game_no=int(gs.game_no[t]),
        match_winner=int(gs.match_winner[t]), partner=gs.partner[t].copy(),
        openers=gs.openers[t].copy(), first_openers=gs.first_openers[t].copy(),
        stroke_no=int(gs.stroke_no[t]), seed=int(gs.seed[t]))


def unpack_states(gs: GolfStates) -> list[Any]:
    return [unpack_state(gs, t) for t in range(gs.n)]


# ---------------------------------------------------------------------------------------------
# Inputs: injected events, choices, random draws
# ---------------------------------------------------------------------------------------------


#: The keys each injected event type takes (the others take ``_COMMON_KEYS``).
_COMMON_KEYS = frozenset(("type", "ball", "time"))
_INJECTED_KEYS = {"jam": _COMMON_KEYS | {"goal", "where"},
                  "foul": _COMMON_KEYS | {"kind", "side", "restore"}}


def parse_injected(events: Any, geo: Any, t_end: float, path: str = "inject") -> list[dict]:
    """Validate one table's injected events (cuegym.rules.golfbillard docstring).

    Raises:
        RefereeInputError (a ValueError) naming ``path[k].key`` of the bad value.
    """
    from .golfbillard import _restore_list

    out = []
    for k, e in enumerate(req_list([] if events is None else events, path)):
        ep = f"{path}[{k}]"
        e = dict(req_obj(e, ep, ("type", "ball", "time", "goal", "where", "kind", "side",
                                 "restore"), ("type",)))
        req_choice(e["type"], f"{ep}.type", INJECTED_TYPES)
        stray = sorted(set(e) - _INJECTED_KEYS.get(e["type"], _COMMON_KEYS))
        if stray:  # e.g. a jam's 'where' beside its 'goal', or a 'kind' on off_table
            raise RefereeInputError(f"{ep}.{stray[0]}: a {e['type']!r} event takes only "
                                    f"{sorted(_INJECTED_KEYS.get(e['type'], _COMMON_KEYS))}, "
                                    f"got {show(e)}")
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
            e["restore"] = _restore_list(e, geo, f"{ep}.restore")
        if e["type"] == "jam":
            if "goal" in e and "where" in e:
                raise RefereeInputError(f"{ep}.where: a jam is either between a goal's caps "
                                        "('goal') or between a cap and the cushion ('where'), "
                                        f"not both, got {show(e)}")
            if "goal" in e:
                req_choice(e["goal"], f"{ep}.goal", (0, 1))
            elif e.get("where") != "cap_cushion":
                raise RefereeInputError(f"{ep} (a jam) needs 'goal': 0 / 1 or 'where': "
                                        f"'cap_cushion', got {show(e)}")
        out.append(e)
    if len(out) > MAX_INJECTED:
        raise RefereeInputError(f"{path}: at most {MAX_INJECTED} injected events per stroke, "
                                f"got {len(out)}")
    return out


def make_inputs(cue_ball: np.ndarray, cue: np.ndarray, t_end: np.ndarray, geo: Any, *,
                injected: Sequence[Any] | None = None, players: Sequence[Any] | None = None,
                choices: Sequence[Any] | None = None, physics: Any = True,
                draws: np.ndarray | None = None) -> GolfInputs:
    """Build :class:`GolfInputs` for T tables from per-table Python values.

    Args:
        cue_ball: (T, 2) ints. cue: (T, 2, 5). t_end: (T,) [s] (default time of injected
            events). injected: per table a list of events. players: per table None, a partner
            (play) or a pair (opening). choices: per table ``{"spots": [..], "pick": ball}``.
        physics: paths from the physics (bool, or (T,) bools).
        draws: (T, N_DRAWS) uniforms for the ``random`` policies.
    """
    T = cue_ball.shape[0]
    inp = plain_inputs(cue_ball, cue, None, physics, draws, slots=MAX_INJECTED)
    for t in range(T):
        if players is not None and players[t] is not None:
            p = players[t]
            if np.ndim(p) == 0:
                inp.players[t, 0] = int(p)
            else:
                inp.players[t, :len(p)] = [int(x) for x in p]
        evs = parse_injected(injected[t] if injected is not None else None, geo,
                             float(t_end[t]))
        inp.inj_n[t] = len(evs)
        for k, e in enumerate(evs):
            inp.inj_type[t, k] = INJECTED_TYPES.index(e["type"])
            inp.inj_ball[t, k] = e.get("ball", -1)
            inp.inj_time[t, k] = e["time"]
            inp.inj_goal[t, k] = e.get("goal", -1)
            inp.inj_kind[t, k] = KIND.get(e.get("kind"), 0)
            inp.inj_side[t, k] = e.get("side", -1)
            for i, (b, x, y) in enumerate(e.get("restore", ())):
                inp.inj_rb[t, k, i] = b
                inp.inj_rxy[t, k, i] = (x, y)
            inp.inj_rn[t, k] = len(e.get("restore", ()))
        ch = choices[t] if choices is not None else None
        if ch is not None:
            if not isinstance(ch, dict) or set(ch) - {"spots", "pick"}:
                raise ValueError(f"choices must be {{'spots': [..], 'pick': ball}}, got {ch!r}")
            spots = ch.get("spots")
            if spots is not None:
                if callable(spots) or not isinstance(spots, (list, tuple)) or len(spots) > N_BALLS:
                    raise ValueError(f"choices['spots'] must be a list of at most {N_BALLS} spot "
                                     f"numbers (the compiled referee takes no callables), got "
                                     f"{spots!r}")
                for k, v in enumerate(spots):
                    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                        raise ValueError(f"choices['spots'][{k}] must be a spot number, got {v!r}")
                    if not -2**31 < v < 2**31:  # would overflow the int64 input array
                        raise ValueError(f"choices['spots'][{k}] = {v} is not a penalty spot "
                                         "number (1-5)")
                    inp.spot_choice[t, k] = int(v)
                inp.spot_n[t] = len(spots)
            if ch.get("pick") is not None:
                if callable(ch["pick"]):
                    raise ValueError("choices['pick'] must be a ball (index or id), not a "
                                     "callable")
                inp.pick[t] = ball_index(ch["pick"], geo)
    return inp


def policy_draws(gs: GolfStates, rules: Any) -> np.ndarray | None:
    """(T, N_DRAWS) uniforms for the ``random`` spot / pick policies, seeded per table by
    (seed, game, stroke) so a replay draws the same; None when no policy is random."""
    if rules.spot_policy != "random" and rules.pick_policy != "random":
        return None
    return np.stack([np.random.default_rng([int(gs.seed[t]), int(gs.game_no[t]),
                                            int(gs.stroke_no[t])]).random(N_DRAWS)
                     for t in range(gs.n)])


# ---------------------------------------------------------------------------------------------
# Outcomes
# ---------------------------------------------------------------------------------------------


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
        into_goal: balls put into their goal (G-17: played off the table by the other side;
            G-18 deflect's GOAL), among ``scored_balls``.
        overflow: the physics ``overflow`` code of the stroke (0 came to rest, 1 max_events,
            2 t_max; non-zero only with ``allow_overflow``, with a note); in the JSON only when
            non-zero.
    """

    balls: tuple[int, int]
    scored: tuple[bool, bool]
    crossed: tuple[bool, bool]
    distance: tuple[float, float]
    fouls: list
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
    into_goal: list[int] = field(default_factory=list)
    overflow: int = 0

    def to_json(self, geo: Any = None) -> dict:
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
        if self.overflow:  # only a cut-off opening has it (the reference referee's keys else)
            out["overflow"] = int(self.overflow)
        return out


_STRIPS = ("strip along the +y long cushion", "strip along the -y long cushion")
_CONTACTS = ("ball", "cushion", "cap")


def foul_detail(out: OutcomeArrays, t: int, i: int, ids: Sequence[str]) -> str:
    """Text for people of foul i of table t."""
    rule = RULES[int(out.f_rule[t, i])]
    kind = KINDS[int(out.f_kind[t, i])]
    balls = [int(b) for b in out.f_balls[t, i, :int(out.f_nb[t, i])]]
    v, a, b, c = (float(x) for x in out.f_det[t, i])
    v = int(v)
    if rule == "G-18":
        if v == D_INJECTED:
            return f"behavioural foul {kind}"
        if v == D_PLAYED_OPP:
            return f"{ids[balls[0]]} is the opponent's ball (G-2)"
        if v == D_OUT_OF_TURN:
            return f"partner {int(a)} struck; partner {int(b)} was due"
        if v == D_OPENING_SIDE:
            return f"side {int(a)}"
        if v == D_WRONG_OPENER:
            return f"side {int(a)}: partner {int(b)} opened, partner {int(c)} was due"
    if rule == "G-3":
        return f"side {int(a)} opened with {ids[balls[0]]}; only {ids[int(b)]} may open"
    cb = ids[balls[0]] if balls else ""
    if rule == "G-10":
        return (f"{kind} direct goal attempt from below the stroke line (speed {a:.2f} m/s, "
                f"theta {b:.0f} deg)")
    if rule == "G-11":
        return f"{cb} in the {_STRIPS[int(a)]} struck first onto its long cushion"
    if rule == "G-13":
        what = ids[int(b)] if int(a) == 0 else f"{_CONTACTS[int(a)]} {int(b)}"  # balls by id
        return f"{cb} frozen to {what} and struck into it"
    if rule == "G-12":
        return f"{cb} struck directly onto own ball {ids[balls[-1]]}"
    if rule == "G-19" and v == D_OPENING_SIDE:  # the opening: the side that played it there
        return f"{cb} jammed between the caps of side {int(a)}'s defence goal"
    return {
        "G-19": f"{cb} jammed between the defence goal's caps",
        "G-8": "own ball into the own defence goal",
        "G-16": "own ball(s) off the table",
        "G-17": "opponent's ball(s) off the table",
        "G-15": "defender ball kept in the small triangle while shooter balls end in the great "
                "attack triangle",
        "G-21": "no ball left its kader",
        "G-14": "own ball(s) left in the defence triangle for the whole turn",
    }[rule]


def _limit_note(overflow: int) -> str:
    """The note of a stroke scored where its simulation stopped (physics overflow code)."""
    limit = "max_events" if overflow == 1 else "t_max"
    return (f"the simulation stopped at a limit ({limit}) before every ball came to rest; "
            f"scored as it stood (allow_overflow)")


def note_text(out: OutcomeArrays, t: int, k: int, ids: Sequence[str],
              spots: Sequence[int] = ()) -> str:
    """Text of note k of table t (``spots``: the opponent's spot choices given, if any)."""
    code, v = int(out.note_code[t, k]), int(out.note_ball[t, k])
    b = ids[v] if 0 <= v < len(ids) else ""
    if code in (N_LIMIT_EVENTS, N_LIMIT_TIME):
        return _limit_note(1 if code == N_LIMIT_EVENTS else 2)
    if code == N_RAIL_RETURN:
        return f"G-17b: {b} rode over the rail and came back: not penalised"
    if code == N_FALL:
        return f"G-6a: {b} fell after coming to rest: no goal, back on the rim"
    if code == N_JAM_FREED:
        return f"G-19: {b} jammed between a cap and the short cushion: freed"
    if code == N_SPOTS_UNUSED:
        unused = [int(x) for x in spots[v:]]
        if out.opening[t]:
            return f"choices['spots']: entries {unused} not needed"
        n = len(unused)
        return (f"choices['spots']: {n} entr{'y' if n == 1 else 'ies'} {unused} not needed "
                f"({int(out.n_spotted[t])} ball(s) chosen for by the opponent)")
    if code == N_PICK_UNUSED:
        return "choices['pick'] not used: no G-25 pick in this stroke"
    if code == N_SPOTS_REPEAT:
        return "choices['spots'] not used: the balls went back (repeat)"
    raise ValueError(f"unknown note code {code}")


def fouls_of(out: OutcomeArrays, t: int, ids: Sequence[str], inp: GolfInputs | None = None
             ) -> list:
    """Table t's fouls as :class:`~cuegym.rules.golfbillard.Foul` objects (``inp``: the inputs,
    for the balls an injected RF foul restores)."""
    from .golfbillard import Foul

    fouls = []
    for i in range(int(out.n_fouls[t])):
        restore: tuple = ()
        if inp is not None and int(out.f_det[t, i, 0]) == D_INJECTED:
            e = int(out.f_det[t, i, 3])
            restore = tuple((int(inp.inj_rb[t, e, k]), float(inp.inj_rxy[t, e, k, 0]),
                             float(inp.inj_rxy[t, e, k, 1])) for k in range(int(inp.inj_rn[t, e])))
        fouls.append(Foul(RULES[int(out.f_rule[t, i])], float(out.f_time[t, i]),
                          tuple(int(b) for b in out.f_balls[t, i, :int(out.f_nb[t, i])]),
                          KINDS[int(out.f_kind[t, i])], foul_detail(out, t, i, ids), restore))
    return fouls


def outcome_object(out: OutcomeArrays, t: int, geo: Any, inp: GolfInputs | None = None) -> Any:
    """Row t of the outcomes as a :class:`GolfOutcome` or :class:`OpeningOutcome` (``inp``: the
    inputs, for the texts that quote them)."""
    from .golfbillard import GolfOutcome

    ids = geo.ball_ids
    fouls = fouls_of(out, t, ids, inp)
    spots = () if inp is None else inp.spot_choice[t, :max(int(inp.spot_n[t]), 0)]
    notes = [note_text(out, t, k, ids, spots) for k in range(int(out.n_notes[t]))]
    spotted = [(int(out.spot_ball[t, k]), int(out.spot_k[t, k]))
               for k in range(int(out.n_spotted[t]))]
    scored_balls = [int(b) for b in np.flatnonzero(out.scored_mask[t])]
    xy = out.xy[t].copy()
    if out.opening[t]:
        first = int(out.op_first[t])
        reason = OPENING_REASONS[int(out.op_reason[t])].format(first=first, loser=1 - first)
        overflow = int(out.overflow[t])
        if overflow and _limit_note(overflow) not in notes:  # the kernel notes it in play only
            notes.insert(0, _limit_note(overflow))
        if out.game_over[t]:  # G-4 / G-17a: no repeat and no first turn follow
            reason = (f"the game ends in the opening: side {int(out.winner[t])} wins (G-4, "
                      f"G-17a); {reason.split(':')[0]}")
        return OpeningOutcome(
            balls=(int(out.op_balls[t, 0]), int(out.op_balls[t, 1])),
            scored=(bool(out.op_scored[t, 0]), bool(out.op_scored[t, 1])),
            crossed=(bool(out.op_crossed[t, 0]), bool(out.op_crossed[t, 1])),
            distance=(float(out.op_dist[t, 0]), float(out.op_dist[t, 1])), fouls=fouls,
            first=first, repeat=bool(out.op_repeat[t]), replaced=bool(out.op_replaced[t]),
            scored_balls=scored_balls, spotted=spotted, reason=reason,
            game_over=bool(out.game_over[t]), winner=int(out.winner[t]), xy=xy, notes=notes,
            into_goal=[int(b) for b in out.into_ball[t, :int(out.n_into[t])]],
            overflow=overflow)
    cons = int(out.cons[t])
    lk = int(out.left_kader[t])
    return GolfOutcome(
        shooter=int(out.shooter[t]), cue_ball=int(out.cue_ball[t]), kader=bool(out.kader[t]),
        fouls=fouls, foul=fouls[0] if fouls else None,
        consequences=frozenset(x for k, x in enumerate(LETTERS) if cons >> k & 1),
        drops=[(int(out.drop_ball[t, k]), int(out.drop_goal[t, k]), float(out.drop_time[t, k]))
               for k in range(int(out.n_drops[t]))],
        scored=out.scored[t].copy(), scored_balls=scored_balls, valid_own=int(out.valid_own[t]),
        replaced=[int(b) for b in np.flatnonzero(out.replaced[t])], spotted=spotted,
        into_goal=[int(b) for b in out.into_ball[t, :int(out.n_into[t])]],
        turn_kept=bool(out.turn_kept[t]), duty_met=bool(out.duty_met[t]),
        left_kader=None if lk < 0 else bool(lk), game_over=bool(out.game_over[t]),
        winner=int(out.winner[t]), xy=xy, on_spot=out.on_spot[t].copy(),
        fouled_spots=out.fouled_spots[t].copy(), notes=notes, overflow=int(out.overflow[t]))


def outcome_objects(out: OutcomeArrays, geo: Any, inp: GolfInputs | None = None) -> list:
    return [outcome_object(out, t, geo, inp) for t in range(out.opening.shape[0])]


__all__ = ["OpeningOutcome", "SIDE_OF", "make_inputs", "outcome_object", "outcome_objects",
           "pack_states", "parse_injected", "policy_draws", "unpack_state", "unpack_states"]
