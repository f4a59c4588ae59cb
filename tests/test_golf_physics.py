"""Golfbillard rules on strokes simulated by cuegym.physics (real event logs and paths).

The strokes of issue 5: a direct goal; an own ball into the own goal; a hard stroke below the
stroke line; a stroke from the strip whose first contact is that cushion; own ball directly onto
own ball; a ball left in the defence triangle for a whole turn; a kader-phase stroke where nothing
leaves its kader; the last ball of both sides dropping in one stroke. Then whole random games.
"""

import math

import numpy as np
import pytest

from cuegym.rules.golfbillard import GolfRules, GolfState, golf_geometry, score_stroke
from cuegym.rules.golfbillard_game import play_strokes, run_game, simulate_strokes

GEO = golf_geometry()
BASE = {"w2": (-0.3, 0.3), "w3": (-0.3, -0.3), "r1": (0.3, 0.3), "r2": (0.3, -0.3),
        "r3": (-0.6, 0.3)}


def idx(name):
    return GEO.ball_ids.index(name)


def simulate(st, ball, cue):
    b = idx(ball)
    res = simulate_strokes([st], [b], [cue])
    return res, score_stroke(st, res, b, cue, paths="physics")


def aim(p, q):
    return math.degrees(math.atan2(q[1] - p[1], q[0] - p[0]))


def test_G6_G1_real_direct_goal():
    st = GolfState.with_balls({**BASE, "w1": (0.5, 0.0)})
    res, o = simulate(st, "w1", [0.4, 0.0, 0.0, 0.0, 0.0])
    assert o.drops and o.drops[0][:2] == (idx("w1"), 0)
    assert o.foul is None and o.valid_own == 1 and o.turn_kept
    assert res.overflow[0] == 0


def test_G8_real_own_ball_into_the_own_goal():
    st = GolfState.with_balls({**BASE, "w1": (-0.6, 0.0)})
    _, o = simulate(st, "w1", [0.4, 180.0, 0.0, 0.0, 0.0])
    assert o.foul.rule == "G-8" and not o.turn_kept
    assert np.allclose(o.xy[idx("w1")], GEO.zones.penalty_spots[0][0])


def test_G10_real_hard_stroke_below_the_stroke_line():
    p = (0.6, 0.2)
    st = GolfState.with_balls({**BASE, "w1": p})
    _, o = simulate(st, "w1", [2.0, aim(p, (0.897, 0.0)), 0.0, 0.0, 0.0])
    assert o.foul.rule == "G-10" and o.consequences == {"LT", "RA", "CS"}
    _, o = simulate(st, "w1", [0.5, aim(p, (0.897, 0.0)), 0.0, 0.0, 0.0])
    assert o.foul is None  # a soft one is allowed


def test_G11_real_stroke_from_the_strip_onto_its_cushion():
    st = GolfState.with_balls({**BASE, "w1": (0.0, 0.40)})
    res, o = simulate(st, "w1", [0.8, 80.0, 0.0, 0.0, 0.0])
    assert res.ev_type[0, 0] == 2 and res.ev_j[0, 0] == 2  # first event: the top cushion
    assert o.foul.rule == "G-11"
    _, o = simulate(st, "w1", [0.8, -60.0, 0.0, 0.0, 0.0])
    assert o.foul is None or o.foul.rule != "G-11"


def test_G12_real_own_ball_directly_onto_own_ball():
    st = GolfState.with_balls({**BASE, "w1": (-0.3, -0.3), "w3": (0.0, -0.3)})
    _, o = simulate(st, "w1", [0.5, 0.0, 0.0, 0.0, 0.0])
    assert o.foul.rule == "G-12"
    assert np.allclose(o.xy[idx("w3")], (0.0, -0.3))  # RA


def test_G14_real_ball_left_in_the_defence_triangle_for_a_whole_turn():
    st = GolfState.with_balls({**BASE, "w1": (0.5, 0.0), "w4": (-0.8, 0.0)})
    st.duty[idx("w4")] = True  # as start_turn records it
    rules = GolfRules()
    cue = np.array([[0.4, 0.0, 0.0, 0.0, 0.0]])
    res = simulate_strokes([st], [idx("w1")], cue)
    outs, new = play_strokes([st], res, [idx("w1")], cue, rules=rules)
    assert outs[0].turn_kept and not new[0].duty_met
    st1 = new[0]
    cue = np.array([[0.2, 0.0, 0.0, 0.0, 0.0]])
    res = simulate_strokes([st1], [idx("w3")], cue)
    outs, new = play_strokes([st1], res, [idx("w3")], cue, rules=rules)
    o = outs[0]
    assert o.foul.rule == "G-14" and o.foul.balls == (idx("w4"),)
    assert np.allclose(new[0].xy[idx("w3")], (-0.3, -0.3))
    assert np.allclose(new[0].xy[idx("w4")], GEO.zones.penalty_spots[0][0])
    assert new[0].to_move == 1 and new[0].balls_left.tolist() == [3, 3]


def test_G21_real_kader_stroke_where_nothing_leaves_its_kader():
    st = GolfState.with_balls({"w1": (0.2, 0.2), "w2": (-0.3, 0.3), "r1": (-0.2, -0.25)})
    _, o = simulate(st, "w1", [0.05, 20.0, 0.0, 0.0, 0.0])
    assert o.kader and o.left_kader is False and o.foul.rule == "G-21"
    _, o = simulate(st, "w1", [0.5, 20.0, 0.0, 0.0, 0.0])
    assert o.left_kader is True and (o.foul is None or o.foul.rule != "G-21")


def test_G4_real_last_balls_of_both_sides_drop_in_one_stroke():
    st = GolfState.with_balls({"w1": (0.35, 0.0), "r1": (0.6, 0.0)})
    _, o = simulate(st, "w1", [1.0, 0.0, 0.0, 0.0, 0.4])
    assert [d[0] for d in o.drops] == [idx("r1"), idx("w1")]  # r1 first, then the follow
    assert o.scored.tolist() == [1, 1] and o.game_over
    assert o.winner == 1  # G-4: the side whose last ball dropped first (r1, counted by G-7)


@pytest.mark.parametrize("duo", [False, True])
def test_G3_G5_G31_full_random_game_runs_to_its_end(duo):
    rules = GolfRules(duo=duo, match="single")
    st, hist = run_game(rules, seed=3, max_strokes=2000)
    assert st.phase == "over" and st.match_winner in (0, 1, 2)
    assert hasattr(hist[0], "first")  # the opening came first
    assert len(hist) < 2000


def test_G4_random_best_of_three_match_runs_to_its_end():
    st, hist = run_game(GolfRules(opening="alternate"), seed=5, max_strokes=4000)
    assert st.phase == "over"
    assert st.match_winner in (0, 1, 2) and st.game_no <= 2
    assert sum(1 for o in hist if hasattr(o, "first")) == 0  # alternate: no opening stroke


def test_G13_real_push_into_a_frozen_ball():
    st = GolfState.with_balls({**BASE, "w1": (0.0, -0.3), "w3": (2 * GEO.R + 0.0002, -0.3)})
    _, o = simulate(st, "w1", [0.5, 0.0, 0.0, 0.0, 0.0])
    assert o.foul.rule == "G-13"
    _, o = simulate(st, "w1", [0.5, 180.0, 0.0, 0.0, 0.0])
    assert o.foul is None or o.foul.rule != "G-13"
