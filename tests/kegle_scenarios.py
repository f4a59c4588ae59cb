"""Building blocks of the keglebillard rule-scenario tests (not a test module): a state
between shots and the scorer's figures of one hand-built event log."""
from __future__ import annotations

from cuegym.rules.keglebillard import build_log, score_shots
from cuegym.rules.keglebillard_game import GameState

#: ball centres [m] between shots: the red in the bottom half, the whites on their spots
START = {"red": (-0.7, 0.1), "white": (-0.525, 0.0), "spotted": (0.525, 0.0)}


def mid(n=2, scores=None, to_play=0, *, balls=None, pins=(True,) * 5, hand=None, **kw):
    """A state between shots (not the break): red at START unless in hand, whites on spots."""
    b = {**START, **(balls or {})}
    red = None if hand else b["red"]
    return GameState(order=tuple(range(n)), scores=tuple(scores or (0,) * n), to_play=to_play,
                     balls=(red, b["white"], b["spotted"]), pins=tuple(pins),
                     ball_in_hand=hand, **{"shot": 5, **kw})


def score(events, *, rules=None, inject=None, salvo=False, **log_kw):
    """The scorer's figures of one shot given as ``build_log`` events, as plain values."""
    s = score_shots(build_log(events, **log_kw), rules, salvo_line=[salvo],
                    injected=[inject or []])
    r = {f: getattr(s, f)[0].item() for f in (
        "points", "pin_points", "white_points", "bonus_points", "penalty", "shooter_points",
        "skaeve", "foul", "rodt", "blegt", "king_alone", "clean16", "win", "ball_in_hand",
        "bih_salvo", "legal_pin")}
    r["fouls"] = set(s.fouls_of(0))
    return r
