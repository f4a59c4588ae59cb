"""Golfbillard: where the seed settles the order of fouls within one stroke (G-17, G-19a), what a
foul puts back (G-18 displaced balls) and that no input is ignored (G-30, G-25, G-31, overflow).

The rule book is docs/rules_golfbillard.md. Each test builds strokes with :class:`LogBuilder`
and names the rule it checks. Side 0 (w1..w5) attacks goal 0 at +x, side 1 (r1..r5) goal 1.
"""

import numpy as np
import pytest

from cuegym.rules.golfbillard import (
    GolfState,
    LogBuilder,
    golf_geometry,
    score_stroke,
)

GEO = golf_geometry()
ZS = GEO.zones
SPOTS0 = ZS.penalty_spots[0]
BASE = {"w1": (0.5, 0.0), "w2": (-0.3, 0.2), "w3": (-0.3, -0.2),
        "r1": (0.3, 0.25), "r2": (0.3, -0.25), "r3": (-0.6, 0.2)}


def state(balls=None, **kw):
    return GolfState.with_balls(dict(BASE if balls is None else balls), **kw)


def stroke(st, build, cue_ball, theta=0.0, **kw):
    log = build(LogBuilder(st.xy)).build()
    return score_stroke(st, log, cue_ball, [0.0, 0.0, theta, 0.0, 0.0], **kw)


def idx(name):
    return GEO.ball_ids.index(name)


def at(o, name):
    return o.xy[idx(name)]


def off(ball, t):
    return {"type": "off_table", "ball": ball, "time": t}


# --- G-17: an opponent's ball off the table always goes into its goal --------------------------


def _w2_moves(b):
    return b.strike("w1", (1.0, 0.0)).rest("w1", (0.7, 0.0), 1.0)


@pytest.mark.parametrize("t_own, t_opp, first", [(0.3, 0.6, "G-16"), (0.6, 0.3, "G-17")])
def test_G17_G16_both_orders_opponent_ball_into_its_goal_own_ball_to_a_spot(t_own, t_opp, first):
    o = stroke(state(), _w2_moves, "w1", injected=[off("w3", t_own), off("r1", t_opp)])
    assert [f.rule for f in o.fouls] == sorted(["G-16", "G-17"], key=lambda r: r != first)
    assert o.foul.rule == first and not o.turn_kept and not o.game_over
    assert o.into_goal == [idx("r1")] and o.scored.tolist() == [0, 1]
    assert np.isnan(at(o, "r1")[0]) and idx("r1") in o.scored_balls
    assert idx("w3") in dict(o.spotted)  # the own ball goes to a penalty spot either way


@pytest.mark.parametrize("t_drop, t_opp, first", [(0.5, 0.8, "G-8"), (0.8, 0.5, "G-17")])
def test_G17_G8_both_orders_opponent_ball_into_its_goal(t_drop, t_opp, first):
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.1, "w2", "r3", (-0.3, 0.2))
                              .drop(t_drop, "w2", 1)), "w1", injected=[off("r3", t_opp)])
    assert o.foul.rule == first and {f.rule for f in o.fouls} == {"G-8", "G-17"}
    assert o.into_goal == [idx("r3")] and o.scored.tolist() == [0, 1]
    assert idx("w2") in dict(o.spotted)  # the own goal (G-8) is no goal: a penalty spot
    assert not o.turn_kept


@pytest.mark.parametrize("t_foul, t_opp, first", [(0.0, 0.6, "G-18"), (0.9, 0.3, "G-17")])
def test_G17_G18_both_orders_opponent_ball_into_its_goal(t_foul, t_opp, first):
    # a touch (LT RA CS): every moved ball goes back, but not the opponent's ball played off
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, 0.5)).ball_ball(0.2, "w1", "r1", (0.35, 0.2))
                              .rest("w1", (0.1, 0.1), 1.0)), "w1",
               injected=[{"type": "foul", "kind": "touch", "time": t_foul}, off("r1", t_opp)])
    assert o.foul.rule == first
    assert o.into_goal == [idx("r1")] and o.scored.tolist() == [0, 1]
    assert idx("r1") not in o.replaced and np.isnan(at(o, "r1")[0])
    assert dict(o.spotted)[idx("w1")] == 1  # CS of the touch and of G-17 alike


def test_G17_after_G10_replace_all_keeps_the_opponent_ball_in_its_goal():
    below = (0.6, 0.2)
    st = state({**BASE, "w1": below})
    d = np.array([0.897, 0.0]) - below
    o = stroke(st, lambda b: (b.strike("w1", 2.5 * d / np.linalg.norm(d))
                              .ball_ball(0.1, "w1", "r1", (0.65, 0.18)).drop(0.2, "w1", 0)),
               "w1", injected=[off("r1", 0.5)])
    assert o.foul.rule == "G-10" and "RA" in o.consequences
    assert o.scored.tolist() == [0, 1] and o.into_goal == [idx("r1")]  # w1's goal taken back


@pytest.mark.parametrize("t_own, t_opp", [(0.3, 0.6), (0.6, 0.3)])
def test_G17a_opponents_last_ball_off_after_another_foul_opponent_wins(t_own, t_opp):
    st = state({"w1": (0.5, 0.0), "w2": (-0.3, 0.2), "w3": (-0.3, -0.2), "r1": (0.3, 0.25)})
    o = stroke(st, _w2_moves, "w1", injected=[off("w3", t_own), off("r1", t_opp)])
    assert o.game_over and o.winner == 1 and o.into_goal == [idx("r1")]


def test_G17a_opponents_last_ball_off_after_an_own_goal_opponent_wins():
    st = state({"w1": (0.5, 0.0), "w2": (-0.3, 0.2), "r1": (0.3, 0.25)})
    o = stroke(st, lambda b: b.strike("w2", (-1.0, 0.0)).drop(0.4, "w2", 1), "w2",
               injected=[off("r1", 0.8)])
    assert o.foul.rule == "G-8" and o.game_over and o.winner == 1
