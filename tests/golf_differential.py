"""Differential harness: the compiled golfbillard referee against the Python reference referee.

Plays random strokes on T tables at once (a mix of purposeful random strokes, wild strokes --
hard, raised cue, any ball, any direction -- and the geometric agent; openings included), each
stroke simulated once and refereed by both the product (:mod:`cuegym.rules.golfbillard_game`)
and the oracle (``tests/reference``, the Python referee the compiled one replaced), with random
injected events, wrong duo partners and positions that start in the end phase. Every outcome and
every next state must be identical (their JSON, which carries every field exactly).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from reference import golf_game as OG
from reference import golf_referee as OR

from cuegym.agents.arena import GolfbillardArena
from cuegym.agents.geometric import GeometricAgent
from cuegym.physics.path import ball_segments
from cuegym.rules.golf_paths import golf_arrays
from cuegym.rules.golfbillard import BEHAVIOURAL, SIDE_OF, GolfState, golf_geometry, load_golf_rules
from cuegym.rules.golfbillard_game import (
    OpeningOutcome,
    _take_table,
    new_match,
    play_strokes,
    random_policy,
    simulate_strokes,
    start_turn,
)

GEO = golf_geometry()
#: (2, 5, 2) penalty spots 1..5 of an offender of side 0 / 1 (G-27..G-29) [m]
SPOTS = golf_arrays(GEO).spots
KINDS = sorted(BEHAVIOURAL)

#: Rule-set variants the harness cycles through (options over the shipped file).
VARIANTS = (
    {},
    {"duo": True},
    {"opening": "alternate", "match": "single"},
    {"no_progress_turns": 4, "no_progress_window": 1},
    {"pick_policy": "cue_ball", "all_balls": True, "replace_on_off_table": True},
    {"any_direction": True, "duo": True, "deciding_openers": [1, 0]},
    {"spot_policy": "agent", "pick_policy": "agent"},
)


def to_oracle(st: GolfState) -> OR.GolfState:
    return OR.GolfState(**{f.name: (getattr(st, f.name).copy()
                                    if isinstance(getattr(st, f.name), np.ndarray)
                                    else getattr(st, f.name))
                           for f in dataclasses.fields(OR.GolfState)})


def sparse_state(rng: np.random.Generator, rules) -> GolfState:
    """A play-phase state with 1-3 balls per side at random free places (end phase, kader)."""
    while True:
        balls = {}
        for s in range(2):
            for b in rng.choice(5, size=int(rng.integers(1, 4)), replace=False):
                balls[int(b) + 5 * s] = (rng.uniform(-0.85, 0.85), rng.uniform(-0.4, 0.4))
        try:
            st = GolfState.with_balls(balls, to_move=int(rng.integers(2)))
        except ValueError:
            continue
        st.kader = bool(rng.random() < 0.3)
        return st


def wild_strike(st: GolfState, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Any own ball (sometimes the opponent's), any direction, up to hard; raised cue at times."""
    cb = np.array([-1, -1])
    cue = np.zeros((2, 5))
    on = ~np.isnan(st.xy[:, 0])
    if st.phase == "opening":
        b = list(OG.opening_balls(to_oracle(st)))
        for s in range(2):  # G-3: now and then another ball than the due one
            own = np.flatnonzero(on & (SIDE_OF == s))
            if rng.random() < 0.08:
                b[s] = int(rng.choice(own))
        cb[:] = b
        for s in range(2):
            cue[s] = (rng.uniform(0.3, 3.0), rng.uniform(-180, 180), 0.0,
                      rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3))
        return cb, cue
    side = st.to_move if rng.random() < 0.97 else 1 - st.to_move
    own = np.flatnonzero(on & (SIDE_OF == side))
    if not len(own):
        own = np.flatnonzero(on & (SIDE_OF == st.to_move))
    cb[0] = rng.choice(own)
    theta = rng.uniform(25, 45) if rng.random() < 0.15 else 0.0
    cue[0] = (rng.uniform(0.2, 4.0), rng.uniform(-180, 180), theta, rng.uniform(-0.4, 0.4),
              rng.uniform(-0.4, 0.4))
    return cb, cue


def random_injected(st: GolfState, rng: np.random.Generator) -> list[dict]:
    """Zero or one injected event on a ball on the table (valid for both referees)."""
    if rng.random() > 0.12:
        return []
    on = np.flatnonzero(~np.isnan(st.xy[:, 0]))
    b = int(rng.choice(on))
    typ = rng.choice(["off_table", "rests_on_rail", "rail_return", "jam", "fall_after_rest",
                      "foul", "foul"])
    e: dict = {"type": str(typ), "ball": b}
    if typ in ("off_table", "rests_on_rail"):
        e["time"] = float(rng.uniform(0.0, 3.0))
    if typ == "jam":
        if rng.random() < 0.3:
            e["where"] = "cap_cushion"
        else:
            e["goal"] = int(rng.integers(2))
    if typ == "foul":
        kind = str(rng.choice(KINDS))
        e["kind"] = kind
        e["time"] = float(rng.uniform(0.0, 1.0))
        opening = st.phase == "opening"
        s = int(rng.integers(2)) if opening else st.to_move
        need = {"deflect_own_ball": s, "deflect_opponent_ball": 1 - s}.get(kind)
        if need is not None:
            mine = [x for x in on if SIDE_OF[x] == need]
            if not mine:
                e["kind"] = "time"
            else:
                if opening:  # the touched ball does not name the offender: its side does
                    e["side"] = s
                e["ball"] = int(rng.choice(mine))
                others = [int(x) for x in on if x != e["ball"]]
                if others and rng.random() < 0.5:  # RF: a displaced ball goes back
                    r = int(rng.choice(others))
                    e["restore"] = {r: [float(st.xy[r, 0]), float(st.xy[r, 1])]}
    return [e]


#: the shipped choice policies, for an arena built from a variant whose choices are 'agent'
POLICY_DEFAULTS = {"spot_policy": "first_free", "pick_policy": "nearest_goal"}


def random_choices(st: GolfState, rules, rng: np.random.Generator) -> dict | None:
    """The opponent's choices where the rule options take them (spots 1-3, a pick)."""
    ch = {}
    if rules.spot_policy == "agent":
        ch["spots"] = [int(x) for x in rng.integers(1, 4, int(rng.integers(0, 4)))]
    if rules.pick_policy == "agent" and st.phase == "play":
        own = np.flatnonzero(~np.isnan(st.xy[:, 0]) & (SIDE_OF == st.to_move))
        ch["pick"] = int(rng.choice(own))
    return ch or None


def run(T: int, strokes: int, seed: int, variant: dict, sparse: float = 0.3,
        max_events: int = 300) -> dict:
    """Play ``strokes`` rounds on T tables through both referees; assert equality each stroke.

    Returns counts of what was exercised (openings, fouls by rule, kader strokes, games ended).
    """
    rng = np.random.default_rng(seed)
    opts = {"match": "best_of_3", **variant}
    rules = load_golf_rules(**opts)
    rules_o = OR.load_golf_rules(**opts)
    # the agent only aims (the choices are random_choices'); an arena plays whole strokes, so
    # it takes policies, not 'agent'
    arena = GolfbillardArena({**opts, **{k: v for k, v in POLICY_DEFAULTS.items()
                                         if opts.get(k) == "agent"}})
    agent = GeometricAgent("golfbillard", arena=arena)
    states = [new_match(rules, seed=k) if rng.random() > sparse else sparse_state(rng, rules)
              for k in range(T)]
    ostates = [to_oracle(s) for s in states]
    stats = _new_stats()
    for _ in range(strokes):
        cb = np.full((T, 2), -1, np.int64)
        cue = np.zeros((T, 2, 5))
        mode = rng.integers(0, 3, T)
        play_geo = [t for t in range(T) if mode[t] == 2 and states[t].phase == "play"]
        if play_geo:
            stk = agent.act([states[t] for t in play_geo], rng)
            for k, t in enumerate(play_geo):
                cb[t, 0] = stk.cue_ball[k]
                cue[t, 0] = stk.cue[k]
        for t in range(T):
            if t in play_geo:
                continue
            if mode[t] == 0:
                cb[t], cue[t] = random_policy(states[t], rng)
            else:
                cb[t], cue[t] = wild_strike(states[t], rng)
        players = []
        wrong = rules.duo and rng.random() < 0.05
        for st in states:
            if st.phase == "opening":
                p = [int(x) for x in st.openers]
                if wrong:
                    p[int(rng.integers(2))] ^= 1
                players.append(p)
            else:
                p = int(st.partner[st.to_move])
                players.append(p ^ 1 if wrong else p)
        injected = [random_injected(st, rng) for st in states]
        choices = [random_choices(st, rules, rng) for st in states]
        states, ostates = _same_round(states, ostates, cb, cue, injected, players, choices,
                                      rules, rules_o, stats, max_events)
        for t in range(T):
            if states[t].phase == "over" or states[t].stroke_no > 400:
                stats["games"] += states[t].phase == "over"
                states[t] = (new_match(rules, seed=int(rng.integers(1 << 30)))
                             if rng.random() > sparse else sparse_state(rng, rules))
                ostates[t] = to_oracle(states[t])
    return stats


def spot_state(rng: np.random.Generator, rules) -> GolfState:
    """A play-phase state whose penalty spots are mostly taken: 3-5 of the spots 1-5 of the side
    to move hold balls of either side (so G-30 falls through to spots 4, 5 and the free point
    nearest spot 3), a few more balls anywhere; half of them in kader play, some of those with
    fouled spots (G-26); random duo partners when ``rules.duo``."""
    while True:
        s = int(rng.integers(2))
        pool = [int(b) for b in rng.permutation(10)]
        balls = {pool.pop(): tuple(SPOTS[s, k])
                 for k in rng.choice(5, size=int(rng.integers(3, 6)), replace=False)}
        for b in pool[:int(rng.integers(0, 4))]:
            balls[b] = (rng.uniform(-0.85, 0.85), rng.uniform(-0.4, 0.4))
        if {int(SIDE_OF[b]) for b in balls} != {0, 1}:  # the shooter and its opponent on it
            continue
        try:
            st = GolfState.with_balls(balls, to_move=s)
        except ValueError:
            continue
        st.kader = bool(rng.random() < 0.5)
        if st.kader and rng.random() < 0.6:
            st.fouled_spots = rng.random((2, 5)) < 0.4
        if rules.duo:
            st.partner = rng.integers(0, 2, 2)
        return start_turn(st, s)


def run_spots(T: int, rounds: int, seed: int, variant: dict) -> dict:
    """One wild stroke on each of T fresh :func:`spot_state` tables per round, through both
    referees (singles plus ``variant``); returns the counts of :func:`run`, with ``spots``: how
    often each penalty spot (0: the free point nearest spot 3) was used."""
    rng = np.random.default_rng(seed)
    opts = {"match": "single", **variant}
    rules, rules_o = load_golf_rules(**opts), OR.load_golf_rules(**opts)
    stats = _new_stats()
    for _ in range(rounds):
        states = [spot_state(rng, rules) for _ in range(T)]
        cb = np.full((T, 2), -1, np.int64)
        cue = np.zeros((T, 2, 5))
        for t in range(T):
            cb[t], cue[t] = wild_strike(states[t], rng)
        injected = [random_injected(st, rng) for st in states]
        players = [int(st.partner[st.to_move]) for st in states]
        choices = [random_choices(st, rules, rng) for st in states]
        _same_round(states, [to_oracle(s) for s in states], cb, cue, injected, players, choices,
                    rules, rules_o, stats, 300)
    return stats


def _new_stats() -> dict:
    return {"strokes": 0, "openings": 0, "cut_openings": 0, "kader": 0, "games": 0, "fouls": {},
            "spots": {}}


def _same_round(states, ostates, cb, cue, injected, players, choices, rules, rules_o, stats,
                max_events):
    """Simulate one stroke per table, referee it with both, assert the same outcomes and next
    states, count what was exercised into ``stats``; returns the next states (product, oracle)."""
    res = simulate_strokes(states, cb, cue, geo=GEO, max_events=max_events)
    outs, new, oouts, onew = both(states, ostates, res, cb, cue, injected, players, choices,
                                  rules, rules_o, stats)
    for t in range(len(states)):
        a, b = outs[t].to_json(GEO), oouts[t].to_json()
        assert _same(a, b), _diff(t, a, b, states[t])
        a, b = new[t].to_json(GEO), onew[t].to_json()
        assert _same(a, b), _diff(t, a, b, states[t])
        o = outs[t]
        if isinstance(o, OpeningOutcome):
            stats["openings"] += 1
            stats["cut_openings"] += o.overflow != 0
        if getattr(o, "kader", False):
            stats["kader"] += 1
        for f in o.fouls[:1]:
            stats["fouls"][f.rule] = stats["fouls"].get(f.rule, 0) + 1
        for _, k in getattr(o, "spotted", ()):
            stats["spots"][k] = stats["spots"].get(k, 0) + 1
    stats["strokes"] += len(states)
    return list(new), list(onew)


def both(states, ostates, res, cb, cue, injected, players, choices, rules, rules_o, stats):
    """Referee the batch with the product and the oracle. Where one raises ValueError (an
    illegal choice or restore), fall back to one table at a time: each table must then be
    accepted by both, or refused by both (it keeps its state)."""
    kw = {"injected": injected, "players": players, "choices": choices, "allow_overflow": True}
    try:
        a = play_strokes(states, res, cb, cue, rules=rules, geo=GEO, **kw)
    except ValueError:
        a = None
    try:
        b = OG.play_strokes(ostates, res, cb, cue, rules=rules_o,
                            segments=lambda t, x: ball_segments(res, t, x), **kw)
    except ValueError:
        b = None
    if a is not None and b is not None:
        return a[0], a[1], b[0], b[1]
    outs, new, oouts, onew = [], [], [], []
    for t in range(len(states)):
        sub = _take_table(res, t)
        one = {k: [v[t]] for k, v in kw.items() if k != "allow_overflow"}
        try:
            a = play_strokes([states[t]], sub, cb[t:t + 1], cue[t:t + 1], rules=rules, geo=GEO,
                             allow_overflow=True, **one)
        except ValueError as exc:
            a = exc
        try:
            b = OG.play_strokes([ostates[t]], sub, cb[t:t + 1], cue[t:t + 1], rules=rules_o,
                                segments=lambda _, x, t=t: ball_segments(res, t, x),
                                allow_overflow=True, **one)
        except ValueError as exc:
            b = exc
        assert isinstance(a, Exception) == isinstance(b, Exception), (t, a, b)
        if isinstance(a, Exception):
            stats["refused"] = stats.get("refused", 0) + 1
            a = ([_Kept(states[t])], [states[t]])
            b = ([_Kept(ostates[t])], [ostates[t]])
        outs += a[0]
        new += a[1]
        oouts += b[0]
        onew += b[1]
    return outs, new, oouts, onew


class _Kept:
    """The outcome stand-in of a stroke both referees refused (the table keeps its state)."""

    fouls: list = []
    kader = False

    def __init__(self, st) -> None:
        self.st = st

    def to_json(self, geo=None) -> dict:
        return {"refused": True}


def _same(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _diff(t: int, a, b, st) -> str:
    keys = [k for k in a if not _same(a.get(k), b.get(k))] if isinstance(a, dict) else []
    return (f"table {t} differs in {keys}: new {[a.get(k) for k in keys]} vs reference "
            f"{[b.get(k) for k in keys]}; state before {st.to_json(GEO)}")
