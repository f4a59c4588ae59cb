"""Golfbillard rule scenarios written from the original rule text (the German seed,
specs' source) and the English restatement with its rule ids (G-..), sentence by sentence.

Each test paraphrases (in English) the seed sentence it checks and cites the G- id; where the
seed is silent the spec's wording is quoted. A test marked ``xfail(strict=True)`` documents a
place where the referee disagrees with the spec (or with the seed where the spec is silent).
Positions and strokes are hand-written event logs (:class:`LogBuilder`), as in
tests/test_golf_rules_scenarios.py. Side 0 (w1..w5) attacks goal 0 at +x, side 1 (r1..r5)
goal 1 at -x.
"""

import math

import numpy as np
import pytest
from golf_strokes import (
    BASE,
    EPS,
    GEO,
    GOAL0,
    GOAL1,
    KADER,
    SPOTS0,
    SPOTS1,
    ZS,
    R,
    at,
    idx,
    state,
    stroke,
    toward,
)

from cuegym.rules.golfbillard import GolfRules, GolfState, LogBuilder
from cuegym.rules.golfbillard_game import (
    finish_game,
    new_match,
    play_strokes,
    score_opening,
    start_turn,
)

W1, R1 = 0, 5
BELOW0 = (0.6, 0.2)  # below goal 0's (upper) stroke line, outside the small triangle


def off(ball, t=None):
    e = {"type": "off_table", "ball": ball}
    if t is not None:
        e["time"] = t
    return e


def foul(kind, **kw):
    return {"type": "foul", "kind": kind, **kw}


def play_one(st, log, cue_ball, rules=None, **kw):
    outs, new = play_strokes([st], log, [cue_ball], rules=rules or GolfRules(), **kw)
    return outs[0], new[0]


def spotted(o):
    return dict(o.spotted)


def goal_w1(b):
    """w1 (at BASE (0.5, 0)) straight into its attack goal: a valid goal."""
    return b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0)


def goal_w1_and_w2_moved(b):
    """w1 into its attack goal; w2 knocked on by r3 elsewhere (a moved own ball)."""
    return (b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0)
            .ball_ball(0.2, "r3", "w2", (-0.6, 0.2), (-0.3, 0.2)).rest("w2", (-0.1, 0.3), 1.0))


def miss_w1(b):
    return b.strike("w1", (1.0, 0.0)).rest("w1", (0.7, 0.0), 1.0)


# =============================================================================================
# Fehler (fouls)
# =============================================================================================


def test_foot_off_floor_LT_RA_goal_taken_back_no_spot():
    """Seed: "One plays with at least one foot on the floor; otherwise one loses the turn and
    every displaced ball is put back." (G-18 foot_off_floor: LT RA.) The valid goal of the
    stroke comes back out of the goal; no ball goes to a penalty spot outside kader play."""
    st = state()
    o = stroke(st, goal_w1_and_w2_moved, "w1", injected=[foul("foot_off_floor")])
    assert o.foul.rule == "G-18" and o.foul.kind == "foot_off_floor"
    assert o.consequences == {"LT", "RA"} and not o.turn_kept
    assert o.scored.tolist() == [0, 0] and at(o, "w1").tolist() == [0.5, 0.0]
    assert at(o, "w2").tolist() == [-0.3, 0.2] and o.spotted == []


def test_foot_off_floor_in_kader_cue_ball_to_penalty_spot():
    """Seed: "In kader play the cue ball is put on the penalty spot." (G-18, G-25: LT RA CS.)"""
    st = state(KADER)
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.5, 0.2), 1.0), "w1",
               injected=[foul("foot_off_floor")])
    assert o.kader and o.consequences == {"LT", "RA", "CS"}
    assert spotted(o) == {idx("w1"): 1} and np.allclose(at(o, "w1"), SPOTS0[0])


def test_jam_between_attack_goal_caps_is_a_valid_goal():
    """Seed: "A ball jammed between the caps of the attack goal, not touching the cloth, counts
    as validly scored." (G-19.) The own ball scores and the turn goes on (G-1)."""
    st = state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.75, 0.0), 1.0), "w1",
               injected=[{"type": "jam", "ball": "w1", "goal": 0, "time": 0.5}])
    assert o.foul is None and o.scored.tolist() == [1, 0] and o.turn_kept
    assert np.isnan(at(o, "w1")[0])


def test_jam_between_cap_and_short_cushion_is_freed_no_foul():
    """Seed: "A ball jammed between the cap and the short cushion is freed." (G-19.)"""
    st = state()
    o = stroke(st, miss_w1, "w1", injected=[{"type": "jam", "ball": "w1", "where": "cap_cushion"}])
    assert o.foul is None and not o.turn_kept and o.spotted == []


def test_jam_between_defence_goal_caps_goes_to_a_penalty_spot():
    """Seed: "A ball jammed between the goal caps of the defence goal is put on the penalty
    spot." (G-19: that ball to a penalty spot.)"""
    st = state({**BASE, "w3": (-0.7, -0.05)})
    o = stroke(st, lambda b: (b.strike("w3", (-1.0, 0.0)).rest("w3", (-0.78, 0.0), 1.0)), "w3",
               injected=[{"type": "jam", "ball": "w3", "goal": 1, "time": 0.8}])
    assert o.foul.rule == "G-19" and spotted(o) == {idx("w3"): 1}
    assert np.allclose(at(o, "w3"), SPOTS0[0]) and o.scored.tolist() == [0, 0]
    assert not o.turn_kept


def test_over_caps_or_balls_LT_RA_CS_even_with_a_goal():
    """Seed: "Whoever plays directly over caps or balls loses the turn; every displaced ball is
    put back and the cue ball is put on the penalty spot. Playing over them indirectly is
    allowed." (G-18 over_caps_or_balls: LT RA CS.)"""
    st = state()
    o = stroke(st, goal_w1_and_w2_moved, "w1", injected=[foul("over_caps_or_balls")])
    assert o.consequences == {"LT", "RA", "CS"} and not o.turn_kept
    assert o.scored.tolist() == [0, 0] and at(o, "w2").tolist() == [-0.3, 0.2]
    assert spotted(o) == {idx("w1"): 1} and np.allclose(at(o, "w1"), SPOTS0[0])


def test_own_ball_off_the_table_to_a_spot_and_a_valid_goal_loses_the_turn():
    """Seed: "If one plays one or more own balls off the table, it (they) go on the penalty
    spot. If the same stroke validly scores, one loses the turn." (G-16: LT; those balls to
    penalty spots; goals stand.)"""
    st = state()
    o = stroke(st, goal_w1_and_w2_moved, "w1", injected=[off("w3", 0.7)])
    assert o.foul.rule == "G-16" and o.foul.balls == (idx("w3"),)
    assert o.scored.tolist() == [1, 0] and o.valid_own == 1 and not o.turn_kept
    assert spotted(o) == {idx("w3"): 1} and np.allclose(at(o, "w3"), SPOTS0[0])
    assert at(o, "w2").tolist() == [-0.1, 0.3]  # nothing else is put back


def test_cue_ball_off_the_table_goes_to_a_spot():
    """G-16 with the struck ball itself off the table: LT, it goes on a penalty spot."""
    st = state()
    o = stroke(st, lambda b: b.strike("w1", (0.3, 1.0)), "w1", injected=[off("w1", 0.5)])
    assert o.foul.rule == "G-16" and spotted(o) == {idx("w1"): 1} and not o.turn_kept


def test_opponent_ball_off_the_table_into_its_goal_cue_ball_to_spot():
    """Seed: "If one plays one or more of the opponent's balls off the table, it (they) are put
    into the goal. ... The cue ball goes on the penalty spot." (G-17: LT; those balls into
    their goal, scored for the opponent; CS.)"""
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, 1.0)).ball_ball(0.1, "w1", "r1", (0.35, 0.2))
                              .rest("w1", (0.4, 0.1), 1.0)), "w1", injected=[off("r1", 0.5)])
    assert o.foul.rule == "G-17" and o.consequences == {"LT", "GOAL", "CS"}
    assert o.into_goal == [idx("r1")] and o.scored.tolist() == [0, 1]
    assert np.isnan(at(o, "r1")[0]) and spotted(o) == {idx("w1"): 1}
    assert not o.turn_kept


def test_opponent_ball_off_while_scoring_validly_loses_the_turn_goal_stands():
    """Seed: "If the same stroke validly scores, one loses the turn." (G-17: goals stand.)"""
    st = state()
    o = stroke(st, lambda b: (b.strike("w2", (1.0, 0.2)).ball_ball(0.3, "w2", "r1", (0.25, 0.22))
                              .ball_ball(0.5, "r1", "w1", (0.45, 0.05)).drop(0.9, "w1", 0)
                              .rest("w2", (0.1, 0.3), 1.0)), "w2", injected=[off("r1", 0.7)])
    assert o.foul.rule == "G-17" and o.scored.tolist() == [1, 1] and o.valid_own == 1
    assert not o.turn_kept and spotted(o) == {idx("w2"): 1}


def test_one_one_opponent_ball_off_while_scoring_loses_the_game():
    """Seed: "At 1/1, playing an opponent's ball off the table and scoring validly is punished
    with the loss of the game." (G-17a.)"""
    st = state({"w1": (0.5, 0.0), "r1": (0.3, 0.25)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0)), "w1",
               injected=[off("r1", 0.2)])
    assert o.valid_own == 1 and o.game_over and o.winner == 1
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0)), "w1",
               injected=[off("r1", 0.6)])  # the order in time does not matter
    assert o.game_over and o.winner == 1


def test_ball_over_the_wooden_rail_and_back_is_not_penalised():
    """Seed: "A ball that comes back onto the cloth over the wooden rail is not penalised."
    (G-17b.) A valid goal of the same stroke keeps the turn."""
    st = state()
    o = stroke(st, lambda b: (goal_w1(b).ball_ball(0.2, "r3", "w2", (-0.6, 0.2), (-0.3, 0.2))
                              .rest("w2", (-0.1, 0.3), 1.0)), "w1",
               injected=[{"type": "rail_return", "ball": "w2"}])
    assert o.foul is None and o.turn_kept and at(o, "w2").tolist() == [-0.1, 0.3]


@pytest.mark.parametrize("own", [True, False])
def test_ball_left_on_cushion_cap_or_cover_counts_as_off_the_table(own):
    """Seed: "A ball left lying on the cushion, the goal cap or its cover counts as played off
    the table." (G-16 / G-17.)"""
    st = state()
    b = "w3" if own else "r2"
    o = stroke(st, miss_w1, "w1", injected=[{"type": "rests_on_rail", "ball": b}])
    if own:
        assert o.foul.rule == "G-16" and spotted(o) == {idx("w3"): 1}
    else:
        assert o.foul.rule == "G-17" and o.into_goal == [idx("r2")]
        assert spotted(o) == {idx("w1"): 1}


# --- vliegeren (G-11) --------------------------------------------------------------------------


def test_vliegeren_as_a_goal_attempt_LT_RA_CS():
    """Seed: "If the ball lies in the kader along the long cushion or on the line, one may not
    lift it over the nearest cushion. ... loses the turn, every displaced ball is put back and
    the cue ball goes on the penalty spot." (G-11, read as vliegeren: first contact that
    cushion.) Here a goal attempt along the cushion that scores: the goal is taken back."""
    p = (0.3, 0.40)
    st = state({**BASE, "w1": p, "r1": (0.3, 0.25)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.05)).cushion(0.05, "w1", 2, (0.34, 0.41925))
                              .drop(0.9, "w1", 0)), "w1")
    assert o.foul.rule == "G-11" and o.consequences == {"LT", "RA", "CS"}
    assert o.scored.tolist() == [0, 0] and np.allclose(at(o, "w1"), SPOTS0[0])
    assert not o.turn_kept


def test_vliegeren_as_a_defensive_stroke_is_also_forbidden():
    """Seed: "Lifting over the cushion is forbidden both as a goal attempt and as a defensive
    stroke." (G-11.) A stroke away from the attack goal along the strip's cushion."""
    p = (0.0, -0.40)
    st = state({**BASE, "w1": p})
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, -0.2)).cushion(0.05, "w1", 0, (-0.02, -0.41925))
                              .rest("w1", (-0.6, -0.35), 1.0)), "w1")
    assert o.foul.rule == "G-11" and spotted(o) == {idx("w1"): 1}


def test_vliegeren_ball_on_the_vlieglijn_counts():
    """Seed: "... along the long cushion or on the line" (G-11: |y| >= 0.3577, or on the
    line)."""
    p = (0.0, 0.3577 - 0.5 * EPS)
    st = state({**BASE, "w1": p})
    o = stroke(st, lambda b: (b.strike("w1", (0.2, 1.0)).cushion(0.06, "w1", 2, (0.012, 0.41925))
                              .rest("w1", (0.1, 0.25), 1.0)), "w1")
    assert o.foul is not None and o.foul.rule == "G-11"


def test_vliegeren_side_1():
    """G-11 holds for side 1 alike (strip at y < 0, its cushion y = -0.45)."""
    p = (0.2, -0.40)
    st = state({**BASE, "r1": p}, to_move=1)
    o = stroke(st, lambda b: (b.strike("r1", (-1.0, -0.1)).cushion(0.05, "r1", 0, (0.16, -0.41925))
                              .rest("r1", (-0.5, -0.35), 1.0)), "r1")
    assert o.foul.rule == "G-11" and np.allclose(at(o, "r1"), SPOTS1[0])


# --- blocking (G-15) ---------------------------------------------------------------------------


def _block(r1, w1_end=(0.6, 0.05), r1_end=None, w1=(0.3, 0.1)):
    st = state({"w1": w1, "w2": (-0.3, 0.2), "r1": r1, "r2": (-0.3, -0.2)})

    def build(b):
        b = b.strike("w1", (1.0, 0.0))
        if r1_end is not None:
            b = b.ball_ball(0.2, "w1", "r1", (r1[0] - 2 * R, r1[1])).rest("r1", r1_end, 0.9)
        return b.rest("w1", w1_end, 1.0)
    return stroke(st, build, "w1")


def test_blocking_defender_in_small_triangle_attacker_ball_to_spot():
    """Seed: "If a defender's ball lies in the great or small defence triangle, the attacker's
    ball may lie in the great attack triangle after his stroke only if the defender's ball is
    not in the small triangle after it. Otherwise the offender's ball goes on the penalty
    spot." (G-15: spot; nothing put back; LT.)"""
    o = _block((0.86, 0.0))
    assert o.foul.rule == "G-15" and spotted(o) == {idx("w1"): 1} and not o.turn_kept
    assert at(o, "r1").tolist() == [0.86, 0.0]


def test_blocking_defender_on_the_great_triangle_line_before_counts():
    """Seed: "A ball on the line of the great defence triangle counts as lying in the triangle;
    this holds for both players." (G-15.) r1 on the base line x = 0.45 (0.5 mm outside),
    knocked into the small triangle: blocking. 2 mm outside: not in the triangle, no foul."""
    o = _block((0.45 - 0.5 * EPS, 0.0), w1=(0.3, 0.0), r1_end=(0.86, 0.0),
               w1_end=(0.6, 0.03))
    assert o.foul is not None and o.foul.rule == "G-15"
    o = _block((0.448, 0.0), w1=(0.3, 0.0), r1_end=(0.86, 0.0), w1_end=(0.6, 0.03))
    assert o.foul is None


def test_blocking_attacker_on_the_great_triangle_line_counts():
    """Seed: "... this holds for both players": the attacker's ball on the great triangle's
    base line (0.5 mm outside) lies in it."""
    o = _block((0.86, 0.0), w1_end=(0.45 - 0.5 * EPS, 0.1))
    assert o.foul is not None and o.foul.rule == "G-15"
    o = _block((0.86, 0.0), w1_end=(0.445, 0.1))
    assert o.foul is None


def test_blocking_defender_moved_out_of_small_triangle_no_foul():
    """G-15 needs the defender's ball in the small triangle *after* the stroke."""
    o = _block((0.7, 0.0), w1=(0.3, 0.0), r1_end=(0.6, 0.2), w1_end=(0.6, 0.0))
    assert o.foul is None


def test_only_the_first_foul_by_time_is_penalised():
    """G-19a: own ball onto own ball (first contact, t = 0.2) comes before the own goal (drop,
    t = 0.9): only G-12 is penalised, and its RA brings the own-goal ball back out."""
    st = state({**BASE, "w1": (-0.3, -0.2), "w3": (-0.6, -0.2)})
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, 0.0))
                              .ball_ball(0.2, "w1", "w3", (-0.5385, -0.2))
                              .drop(0.9, "w3", 1).rest("w1", (-0.55, -0.2), 1.0)), "w1")
    assert [f.rule for f in o.fouls] == ["G-12", "G-8"] and o.foul.rule == "G-12"
    assert at(o, "w3").tolist() == [-0.6, -0.2] and spotted(o) == {idx("w1"): 1}


# =============================================================================================
# Ins Tor spielen (goals)
# =============================================================================================


def test_ball_on_the_rim_falling_after_rest_is_no_goal_and_goes_back():
    """Seed: "Ball on the rim of the goal: if it falls before coming to rest the goal is valid,
    even off the rubber. Otherwise it is not valid; the ball is taken out and put back."
    (G-6a.) Injected fall after rest: no goal, the ball back on the rim, turn lost."""
    st = state()
    rim = (0.897 - 0.0325 - 0.001, 0.0)
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", rim, 1.0), "w1",
               injected=[{"type": "fall_after_rest", "ball": "w1"}])
    assert o.scored.tolist() == [0, 0] and not o.turn_kept
    assert np.allclose(at(o, "w1"), rim)


@pytest.mark.parametrize("dy", [-0.0009, -0.0004, 0.0003, 0.0011])
def test_a_ball_that_fell_after_rest_goes_back_outside_the_hole(dy):
    """G-6a: a ball put back on the rim lies outside the hole circle as the physics reads it
    (centre distance squared not below r squared), so the next stroke can be simulated: exactly
    on the circle, rounding left it a hair inside and the physics refused the next stroke
    ("inside pocket 0")."""
    gx, gy, r = GEO.goals[0][:3]
    st = state()
    edge = (gx - 0.032, gy + dy)  # it dropped there, just inside the circle (no rest event)
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.8, "w1", 0, edge), "w1",
               injected=[{"type": "fall_after_rest", "ball": "w1"}])
    x, y = at(o, "w1")
    assert (gx - x) ** 2 + (gy - y) ** 2 >= r ** 2
    assert math.hypot(x - gx, y - gy) - r < 1e-8  # and still on the rim


def test_goal_off_the_goal_cap_rubber_is_valid():
    """Seed: "... the goal is valid, even if it is played off the rubber." (G-6a.)"""
    st = state()
    cap = GEO.caps[ZS.goal_caps[0][1]]
    o = stroke(st, lambda b: (b.strike("w1", (1.0, -0.1))
                              .post(0.3, "w1", int(ZS.goal_caps[0][1]), (cap[0] - 0.045, cap[1]))
                              .drop(0.5, "w1", 0)), "w1")
    assert o.foul is None and o.scored.tolist() == [1, 0] and o.turn_kept


def test_own_ball_into_opponents_goal_is_valid_and_keeps_the_turn():
    """Seed: "Playing a legally played own ball into the opponent's goal is valid." "Scoring
    an own ball validly, one stays at the table." (G-6, G-1.)"""
    st = state()
    o = stroke(st, goal_w1, "w1")
    assert o.foul is None and o.scored.tolist() == [1, 0] and o.turn_kept and not o.game_over


@pytest.mark.parametrize("goal", [0, 1])
def test_opponent_ball_into_either_goal_counts_for_it_and_ends_the_turn(goal):
    """Seed: "A legally played opponent's ball that disappears into one's own goal or the
    opponent's goal is valid too." "Scoring only an opponent's ball, one loses the turn."
    (G-7, G-9.)"""
    st = state()
    end = (0.85, 0.0) if goal == 0 else (-0.85, 0.0)
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, 0.6)).ball_ball(0.2, "w1", "r1", (0.35, 0.2))
                              .rest("w1", (0.3, 0.18), 0.5).drop(1.2, "r1", goal)), "w1")
    assert end  # (documentation: r1 rolls into goal `goal`)
    assert o.foul is None and o.scored.tolist() == [0, 1] and not o.turn_kept


def test_own_ball_into_own_defence_goal_LT_to_spot():
    """Seed: "Playing an own ball into the defence goal is not valid. The offender loses the
    turn; the ball is taken out and put on the penalty spot." (G-8.)"""
    st = state()
    o = stroke(st, lambda b: b.strike("w2", (-1.0, -0.2)).drop(0.6, "w2", 1), "w2")
    assert o.foul.rule == "G-8" and o.consequences == {"LT", "SPOT"}
    assert spotted(o) == {idx("w2"): 1} and np.allclose(at(o, "w2"), SPOTS0[0])
    assert o.scored.tolist() == [0, 0] and not o.turn_kept


def test_own_goal_and_defence_goal_in_one_stroke_other_goal_stands():
    """G-8: "LT; that ball to a penalty spot; other goals of the stroke stand"."""
    st = state({**BASE, "w3": (-0.6, -0.1)})
    o = stroke(st, lambda b: (goal_w1(b).ball_ball(0.1, "r3", "w3", (-0.58, 0.14), (-0.6, -0.1))
                              .drop(0.7, "w3", 1)), "w1")
    assert o.foul.rule == "G-8" and o.scored.tolist() == [1, 0] and not o.turn_kept
    assert spotted(o) == {idx("w3"): 1}


def test_own_and_opponent_goal_in_one_stroke_keeps_the_turn():
    """Seed: "Scoring an own ball validly, one stays at the table; scoring only an opponent's
    ball, one loses it." (G-1, G-9.)"""
    st = state()
    o = stroke(st, lambda b: (goal_w1(b).ball_ball(0.2, "r3", "w2", (-0.6, 0.2), (-0.3, 0.2))
                              .drop(0.9, "r3", 1)), "w1")
    assert o.foul is None and o.scored.tolist() == [1, 1] and o.turn_kept


def test_more_than_one_goal_last_balls_first_drop_wins():
    """Seed: "More than one goal in a stroke: if by a legal stroke one or both players have no
    balls left, the one whose last ball disappears first into a goal wins." (G-4.)"""
    st = state({"w1": (0.5, 0.0), "r1": (0.6, 0.2), "r2": (-0.3, -0.2)}, to_move=0)
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.3)).ball_ball(0.05, "w1", "r1", (0.55, 0.15))
                              .drop(0.4, "r1", 0).drop(0.6, "w1", 0)), "w1")
    # r1 is not side 1's last ball: side 0 emptied by its own goal wins
    assert o.game_over and o.winner == 0
    st = state({"w1": (0.5, 0.0), "r1": (0.6, 0.2)}, to_move=0)
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.3)).ball_ball(0.05, "w1", "r1", (0.55, 0.15))
                              .drop(0.4, "r1", 0).drop(0.6, "w1", 0)), "w1")
    assert o.game_over and o.winner == 1  # r1, side 1's last ball, dropped first
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.3)).ball_ball(0.05, "w1", "r1", (0.55, 0.15))
                              .drop(0.6, "r1", 0).drop(0.4, "w1", 0)), "w1")
    assert o.game_over and o.winner == 0


# --- hard stroke near the goal (G-10) ----------------------------------------------------------


def _hard(p, speed=2.5, theta=0.0, cue_ball="w1", side=0):
    goal = GOAL0 if side == 0 else GOAL1
    st = state({**BASE, cue_ball: p}, to_move=side)
    return stroke(st, lambda b: b.strike(cue_ball, toward(p, goal, speed)).drop(0.2, cue_ball,
                                                                               side),
                  cue_ball, theta)


def test_hard_stroke_allowed_in_the_small_attack_triangle():
    """Seed: "A hard, fast stroke is allowed if the ball lies in the small attack triangle or
    on its line, or above or on the stroke line." (G-10.)"""
    for p in ((0.8, 0.0), (0.78, 0.0295), (0.3, 0.1)):
        o = _hard(p)
        assert o.foul is None and o.turn_kept, p


def test_hard_stroke_from_below_the_stroke_line_LT_RA_CS():
    """Seed: "A hard, fast stroke is not allowed if the ball lies below the stroke line ...
    loses the turn, the displaced balls are put back and the cue ball goes on the penalty
    spot." (G-10: 2.0 m/s or more.)"""
    o = _hard(BELOW0)
    assert o.foul.rule == "G-10" and o.consequences == {"LT", "RA", "CS"}
    assert o.scored.tolist() == [0, 0] and np.allclose(at(o, "w1"), SPOTS0[0])
    assert _hard(BELOW0, speed=1.5).foul is None


def test_hard_stroke_from_below_side_1():
    o = _hard((-0.6, -0.2), cue_ball="r1", side=1)
    assert o.foul.rule == "G-10" and np.allclose(at(o, "r1"), SPOTS1[0])


def test_raised_cue_pushing_toward_the_goal_cap_from_below_is_a_foul():
    """Seed: "... nor may one simply push the cue ball forward toward or against the goal cap
    with a raised cue." (G-10 (b): elevation >= 30 deg toward a goal cap, at any speed.)"""
    st = state({**BASE, "w1": BELOW0})
    cap = GEO.caps[ZS.goal_caps[0][0]]
    o = stroke(st, lambda b: (b.strike("w1", toward(BELOW0, cap, 0.5))
                              .rest("w1", (0.75, 0.09), 1.0)), "w1", theta=40.0)
    assert o.foul is not None and o.foul.rule == "G-10"


def test_masse_from_below_the_stroke_line_is_allowed():
    """Seed: "If the cue ball describes no curve (massé) and is not first sent forward and then
    drawn back (piqué), a hard, fast stroke is not allowed." (G-10 exemption.)"""
    st = state({**BASE, "w1": BELOW0})
    v0 = toward(BELOW0, GOAL0, 2.5)
    p1 = np.array(BELOW0) + 0.04 * v0
    rot = np.array([[math.cos(0.4), -math.sin(0.4)], [math.sin(0.4), math.cos(0.4)]])
    o = stroke(st, lambda b: (b.strike("w1", v0).turn(0.04, "w1", p1, rot @ v0)
                              .drop(0.3, "w1", 0)), "w1", theta=50.0)
    assert o.foul is None and o.turn_kept
    o = stroke(st, lambda b: (b.strike("w1", v0).turn(0.04, "w1", p1, -0.2 * v0)
                              .rest("w1", (0.55, 0.19), 1.0)), "w1", theta=70.0)
    assert o.foul is None  # piqué: forward, then drawn back


# =============================================================================================
# Zielen (aiming)
# =============================================================================================


def test_aiming_behind_opponent_ball_loses_the_turn_only():
    """Seed: "Standing behind an opponent's ball with the cue in playing stance is punished with
    the loss of the turn." (G-18 aiming_behind_opponent: LT.) Nothing is put back, the goal
    stands."""
    st = state()
    o = stroke(st, goal_w1_and_w2_moved, "w1", injected=[foul("aiming_behind_opponent")])
    assert o.consequences == {"LT"} and not o.turn_kept
    assert o.scored.tolist() == [1, 0] and at(o, "w2").tolist() == [-0.1, 0.3]
    assert o.spotted == []


def test_aiming_behind_opponent_in_kader_the_opponent_names_a_ball():
    """Seed: "In kader play the opponent names a ball that is put on the penalty spot."
    (G-25 PICK.)"""
    st = state({"w1": (0.2, 0.2), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.5, 0.2), 1.0), "w1",
               injected=[foul("aiming_behind_opponent")], rules=GolfRules(pick_policy="agent"),
               choices={"pick": "w2"})
    assert o.consequences == {"LT", "PICK"} and spotted(o) == {idx("w2"): 1}
    assert at(o, "w1").tolist() == [0.5, 0.2]


def test_playing_an_opponents_ball_LT_RA():
    """Seed: "Playing with an opponent's ball is punished with the loss of the turn. The
    displaced balls are put back." (G-2, G-18 played_opponent_ball.)"""
    st = state()
    o = stroke(st, lambda b: (b.strike("r1", (1.0, -1.0)).ball_ball(0.2, "r1", "w1", (0.45, 0.04))
                              .drop(0.5, "w1", 0).rest("r1", (0.4, 0.1), 1.0)), "r1")
    assert o.foul.kind == "played_opponent_ball" and o.consequences == {"LT", "RA"}
    assert at(o, "r1").tolist() == [0.3, 0.25] and at(o, "w1").tolist() == [0.5, 0.0]
    assert o.scored.tolist() == [0, 0] and not o.turn_kept


def test_shooting_before_rest_LT_RA_and_CS_in_kader():
    """Seed: "Aiming or playing before the balls of the previous stroke have come to rest:
    loss of the turn, displaced balls put back; in kader play the cue ball on the penalty
    spot." (G-18 before_rest.)"""
    o = stroke(state(), goal_w1, "w1", injected=[foul("before_rest")])
    assert o.consequences == {"LT", "RA"} and o.scored.tolist() == [0, 0] and o.spotted == []
    o = stroke(state(KADER), lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.5, 0.2), 1.0),
               "w1", injected=[foul("before_rest")])
    assert o.consequences == {"LT", "RA", "CS"} and spotted(o) == {idx("w1"): 1}


# =============================================================================================
# Berührung (touching)
# =============================================================================================


def test_touch_cue_ball_to_spot_even_after_a_goal_others_back():
    """Seed: "On a touch one loses the turn, the cue ball goes on the penalty spot - even when
    one has scored - and every other displaced ball is put back." (G-18 touch: LT RA CS.)"""
    st = state()
    o = stroke(st, goal_w1_and_w2_moved, "w1", injected=[foul("touch", time=0.3)])
    assert o.consequences == {"LT", "RA", "CS"} and not o.turn_kept
    assert o.scored.tolist() == [0, 0] and spotted(o) == {idx("w1"): 1}
    assert at(o, "w2").tolist() == [-0.3, 0.2]


def test_touch_without_striking_LT_RA_no_spot():
    """Seed: "Causing a touch without striking, one loses the turn and every displaced ball is
    put back." (G-18 touch_without_stroke: LT RA.)"""
    st = state()
    o = stroke(st, goal_w1_and_w2_moved, "w1", injected=[foul("touch_without_stroke")])
    assert o.consequences == {"LT", "RA"} and o.spotted == [] and o.scored.tolist() == [0, 0]


def test_touch_own_ball_in_kader_even_after_a_goal():
    """Seed: "Touching an own ball in kader play: loss of the turn, displaced balls put back
    even if one scored, the cue ball on the penalty spot." (G-18 touch_own_ball, G-25.)"""
    st = state({"w1": (0.6, 0.0), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0), "w1",
               injected=[foul("touch_own_ball", ball="w2")])
    assert o.kader and o.consequences == {"LT", "RA", "CS"}
    assert o.scored.tolist() == [0, 0] and spotted(o) == {idx("w1"): 1}


def test_touch_opponent_ball_in_kader_all_back_opponent_names_a_ball():
    """Seed: "Touching an opponent's ball in kader play: loss of the turn, all balls put back -
    even after a valid goal - and the opponent names a ball that must go on the penalty spot."
    (G-18 touch_opponent_ball, G-25: LT RA PICK.)"""
    st = state({"w1": (0.6, 0.0), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0), "w1",
               injected=[foul("touch_opponent_ball", ball="r1")],
               rules=GolfRules(pick_policy="agent"), choices={"pick": "w2"})
    assert o.consequences == {"LT", "RA", "PICK"} and o.scored.tolist() == [0, 0]
    assert at(o, "w1").tolist() == [0.6, 0.0] and spotted(o) == {idx("w2"): 1}


def test_deflecting_own_ball_touched_ball_to_spot():
    """Seed: "Stopping, pushing on or deflecting an own ball: loss of the turn; the balls the
    foul displaced are put back and the touched ball goes on the penalty spot." (G-18
    deflect_own_ball: LT RF SPOT.)"""
    st = state()
    o = stroke(st, goal_w1_and_w2_moved, "w1",
               injected=[foul("deflect_own_ball", ball="w2", time=0.5)])
    assert o.consequences == {"LT", "RF", "SPOT"} and not o.turn_kept
    assert spotted(o) == {idx("w2"): 1} and o.scored.tolist() == [1, 0]


def test_deflecting_opponent_ball_into_its_goal_cue_ball_to_spot():
    """Seed: "The same with an opponent's ball: loss of the turn, displaced balls put back, the
    cue ball on the penalty spot and the touched ball into the goal." (G-18
    deflect_opponent_ball: LT RF CS GOAL.)"""
    st = state()
    o = stroke(st, miss_w1, "w1", injected=[foul("deflect_opponent_ball", ball="r2", time=0.5)])
    assert o.consequences == {"LT", "RF", "CS", "GOAL"}
    assert o.into_goal == [idx("r2")] and o.scored.tolist() == [0, 1]
    assert spotted(o) == {idx("w1"): 1}


# =============================================================================================
# Durchstoß (push)
# =============================================================================================


def test_push_frozen_to_a_cushion_LT_RA_CS():
    """Seed: "Keeping the cue tip on the cue ball until it touches another ball, a cushion or a
    cap: loss of the turn, displaced balls put back, cue ball on the penalty spot." (G-13:
    frozen, struck into it.)"""
    p = (-0.2, -(0.45 - R - 0.0002))
    st = state({**BASE, "w3": p})
    o = stroke(st, lambda b: b.strike("w3", (0.6, -0.4)).rest("w3", (0.1, -0.35), 1.0), "w3")
    assert o.foul.rule == "G-13" and o.consequences == {"LT", "RA", "CS"}
    assert spotted(o) == {idx("w3"): 1}
    o = stroke(st, lambda b: b.strike("w3", (0.6, 0.4)).rest("w3", (0.1, -0.2), 1.0), "w3")
    assert o.foul is None  # played away from the cushion


def test_push_frozen_ball_may_move_only_when_played_away():
    """Seed: "... the one ball may not move when one plays the touching ball, unless one plays
    away from it." (G-13.)"""
    st = state({**BASE, "w3": (-0.3, -0.3), "r2": (-0.3 + 2 * R + 0.0002, -0.3)})
    o = stroke(st, lambda b: (b.strike("w3", (0.0, 1.0)).rest("w3", (-0.3, -0.1), 1.0)
                              .rest("r2", (-0.3 + 2 * R + 0.004, -0.3), 0.3)), "w3")
    assert o.foul is not None and o.foul.rule == "G-13"
    o = stroke(st, lambda b: (b.strike("w3", (-1.0, 0.3)).rest("w3", (-0.6, -0.2), 1.0)
                              .rest("r2", (-0.3 + 2 * R + 0.004, -0.3), 0.3)), "w3")
    assert o.foul is None


def test_push_exception_goal_attempt_off_the_front_cap():
    """Seed: "One does not push when making a goal attempt with a ball that touches the front
    cap or the outermost side cap of the cross and lies beyond that cap's axis line on the
    attack side." (G-13 exception.) w1 frozen to the front cap (0.18, 0), just beyond its
    axis line x = 0.18 (at 89 deg): the goal attempt points slightly into the cap, yet is no
    push."""
    front = GEO.caps[ZS.front_caps[0]]  # (0.18, 0)
    u = np.array([math.cos(1.55), math.sin(1.55)])
    p = front + (R + GEO.r_cap + 0.0002) * u
    d = toward(p, (0.897, 0.0), 1.0)
    assert np.dot(d, -u) > 0  # the stroke has a component into the cap
    st = state({**BASE, "w1": tuple(p)})
    o = stroke(st, lambda b: b.strike("w1", d).rest("w1", (0.6, 0.03), 1.0), "w1")
    assert o.foul is None
    o = stroke(st, lambda b: (b.strike("w1", toward(p, (0.9, -0.4), 1.0))
                              .rest("w1", (0.6, -0.2), 1.0)), "w1")
    assert o.foul is not None and o.foul.rule == "G-13"  # no goal attempt: a push
    q = front + (R + GEO.r_cap + 0.0002) * np.array([math.cos(2.6), math.sin(2.6)])
    st = state({**BASE, "w1": tuple(q)})  # on the defence side of the cap's axis: a push
    o = stroke(st, lambda b: (b.strike("w1", toward(q, (0.897, 0.0), 1.0))
                              .rest("w1", (0.6, 0.03), 1.0)), "w1")
    assert o.foul is not None and o.foul.rule == "G-13"


# =============================================================================================
# Auf den eigenen Ball spielen (own ball onto own ball)
# =============================================================================================


def test_own_ball_directly_onto_own_ball_LT_RA_CS():
    """Seed: "Playing an own ball directly onto another own ball: loss of the turn, displaced
    balls put back, cue ball on the penalty spot." (G-12.)"""
    st = state({**BASE, "w3": (0.7, 0.0)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.1, "w1", "w3", (0.6385, 0.0))
                              .drop(0.4, "w3", 0).rest("w1", (0.65, 0.0), 0.6)), "w1")
    assert o.foul.rule == "G-12" and o.consequences == {"LT", "RA", "CS"}
    assert o.scored.tolist() == [0, 0] and at(o, "w3").tolist() == [0.7, 0.0]
    assert spotted(o) == {idx("w1"): 1}


def test_own_ball_onto_own_ball_via_a_cushion_is_allowed():
    """G-12 is the *direct* play: after a cushion first, an own ball may be hit."""
    st = state({**BASE, "w3": (0.7, 0.3)})
    o = stroke(st, lambda b: (b.strike("w1", (0.4, 1.0)).cushion(0.3, "w1", 2, (0.6, 0.41925))
                              .ball_ball(0.5, "w1", "w3", (0.65, 0.35))
                              .rest("w3", (0.75, 0.2), 1.0).rest("w1", (0.64, 0.38), 1.0)),
               "w1")
    assert o.foul is None


# =============================================================================================
# Bälle im großen Verteidigungsdreieck (G-14)
# =============================================================================================


def _duty(balls, duty):
    st = state(balls)
    for b in duty:
        st.duty[idx(b)] = True
    return st


def test_defence_triangle_ball_not_leaving_LT_RA_spot():
    """Seed: "An own ball in the great or small defence triangle must have left the great
    triangle, directly or indirectly, by the end of the turn. If not, it goes on the penalty
    spot, every displaced ball is put back and the turn is lost." (G-14.)"""
    st = _duty({**BASE, "w3": (-0.75, 0.05)}, ["w3"])
    o = stroke(st, lambda b: b.strike("w2", (1.0, 0.0)).rest("w2", (0.0, 0.25), 1.0), "w2")
    assert o.foul.rule == "G-14" and not o.turn_kept
    assert at(o, "w2").tolist() == [-0.3, 0.2] and spotted(o) == {idx("w3"): 1}


def test_defence_triangle_ball_leaving_indirectly_meets_the_duty():
    """Seed: "... directly or indirectly": w2 knocks r3 onto the duty ball w3, which leaves."""
    st = _duty({**BASE, "w3": (-0.6, 0.1)}, ["w3"])
    o = stroke(st, lambda b: (b.strike("w2", (-1.0, 0.0)).ball_ball(0.1, "w2", "r3",
                                                                  (-0.5385, 0.2))
                              .rest("w2", (-0.5, 0.25), 0.5)
                              .ball_ball(0.3, "r3", "w3", (-0.6, 0.1615))
                              .rest("r3", (-0.6, 0.13), 0.6)
                              .rest("w3", (-0.6, -0.3), 1.0)), "w2")
    assert o.foul is None and o.duty_met


def test_defence_triangle_line_counts_as_inside():
    """Seed: "A ball on the line of the great defence triangle counts as lying in the
    triangle." (G-14.) start_turn records the duty of a ball 0.5 mm outside the base line."""
    st = state({**BASE, "w3": (-0.45 + 0.5 * EPS, -0.1)})
    st = start_turn(st, 0)
    assert st.duty[idx("w3")]
    st = state({**BASE, "w3": (-0.45 + 0.003, -0.1)})
    assert not start_turn(st, 0).duty[idx("w3")]


def test_defence_triangle_several_balls_one_leaving_is_enough():
    """Seed: "If several own balls lie in the great defence triangle, at least one must have
    left it by the end of the turn. If none has, they all go on the penalty spots." (G-14.)"""
    st = _duty({**BASE, "w1": (-0.8, 0.0), "w3": (-0.7, -0.06)}, ["w1", "w3"])
    o = stroke(st, lambda b: b.strike("w3", (1.0, 0.0)).rest("w3", (-0.2, -0.06), 1.0), "w3")
    assert o.foul is None and o.duty_met
    o = stroke(st, lambda b: b.strike("w2", (1.0, 0.0)).rest("w2", (0.0, 0.25), 1.0), "w2")
    assert o.foul.rule == "G-14" and set(spotted(o)) == {idx("w1"), idx("w3")}
    assert sorted(spotted(o).values()) == [1, 2]


def test_defence_duty_over_the_whole_turn_checked_at_its_end():
    """Seed: "... by the end of the turn": a scoring stroke keeps the turn and is not yet
    judged; the failing check comes with the stroke that ends the turn."""
    st = start_turn(state({**BASE, "w3": (-0.75, 0.05)}), 0)
    assert st.duty[idx("w3")]
    o, st1 = play_one(st, LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build(),
                      "w1")
    assert o.foul is None and o.turn_kept and st1.to_move == 0
    log = LogBuilder(st1.xy).strike("w2", (1.0, 0.0)).rest("w2", (0.0, 0.25), 1.0).build()
    o, st2 = play_one(st1, log, "w2")
    assert o.foul.rule == "G-14" and st2.to_move == 1
    assert np.allclose(st2.xy[idx("w3")], SPOTS0[0]) and st2.balls_left.tolist() == [2, 3]


# =============================================================================================
# Spiel im Kader (kader play)
# =============================================================================================


def test_kader_play_begins_when_a_player_has_one_ball_left():
    """Seed: "Kader play begins as soon as one of the players has only one ball left." (G-20.)
    The stroke that leaves a side on one ball is not in kader play; the next one is."""
    st = state({"w1": (0.6, 0.0), "w2": (-0.3, 0.2), "r1": (0.3, 0.25), "r2": (0.3, -0.25)})
    o, st1 = play_one(st, LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build(),
                      "w1")
    assert not o.kader and st1.kader
    st = state({"w1": (0.2, 0.2), "r1": (0.3, 0.25), "r2": (-0.3, -0.2), "r3": (-0.5, 0.1)},
               to_move=1)
    o = stroke(st, lambda b: b.strike("r2", (-0.1, 0.0)).rest("r2", (-0.31, -0.2), 0.5), "r2")
    assert o.kader  # the side not at the table has one ball: kader play too


def test_kader_duty_no_ball_leaves_LT_CS_others_stay():
    """Seed: "With every stroke at least one ball must leave its kader; it may come back into
    the same kader. A breach loses the turn and the cue ball goes on the penalty spot. All
    other balls stay where they lie." (G-21.)"""
    st = state({"w1": (0.2, 0.2), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    o = stroke(st, lambda b: (b.strike("w2", (0.3, -1.0)).ball_ball(0.05, "w2", "r1",
                                                                  (-0.25, -0.19))
                              .rest("w2", (-0.27, 0.15), 0.3).rest("r1", (-0.15, -0.3), 0.9)),
               "w2")
    assert o.foul.rule == "G-21" and o.consequences == {"LT", "CS"}
    assert spotted(o) == {idx("w2"): 1} and at(o, "r1").tolist() == [-0.15, -0.3]
    assert not o.turn_kept


def test_kader_ball_leaving_and_coming_back_meets_the_duty():
    """Seed: "... it may come back into the same kader afterwards." (G-21.)"""
    st = state({"w1": (0.2, 0.2), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    o = stroke(st, lambda b: (b.strike("w2", (1.0, 0.0)).turn(0.4, "w2", (0.1, 0.2), (-0.5, 0.0))
                              .rest("w2", (-0.2, 0.2), 1.0)), "w2")
    assert o.foul is None and o.left_kader


def test_kader_ball_in_the_great_attack_triangle_need_not_change_kader():
    """Seed: "A ball in the great attack triangle need not change its kader." (G-22.)"""
    st = state({"w1": (0.7, 0.05), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    o = stroke(st, lambda b: b.strike("w1", (0.1, 0.0)).rest("w1", (0.72, 0.05), 0.5), "w1")
    assert o.foul is None and o.left_kader is None


def test_kader_ball_dropping_has_changed_kader():
    """Seed: "A ball that disappears into a goal has changed its kader." (G-21.) Own ball from
    the central block into the attack goal: valid, no G-21."""
    st = state({"w1": (0.3, 0.0), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.8, "w1", 0), "w1")
    assert o.foul is None and o.left_kader and o.turn_kept


def test_kader_defenders_great_defence_triangle_is_no_kader():
    """Seed: "The great defence triangle is not a kader for the defender's ball(s)." (G-23: it
    is merged with the two corner kaders at that end.) r1 knocked from the corner into the
    great triangle at goal 0 has not left its kader; w1 stays in its strip kader."""
    st = state({"w1": (0.6, 0.40), "w2": (-0.3, 0.2), "r1": (0.7, 0.3)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, -0.6)).ball_ball(0.05, "w1", "r1",
                                                                  (0.645, 0.372))
                              .rest("w1", (0.66, 0.385), 0.5).rest("r1", (0.75, 0.1), 1.0)), "w1")
    assert o.kader and o.foul is not None and o.foul.rule == "G-21"


def test_kader_ball_on_a_kader_line_need_only_leave_the_line():
    """Seed: "If a ball lies on a kader line, it is enough that it leaves this line." (G-21.)
    w2 on the line x = 0 between the two central kaders moves 2 mm along x: left."""
    st = state({"w1": (0.3, 0.2), "w2": (0.0, 0.27), "r1": (-0.2, -0.25)})
    o = stroke(st, lambda b: b.strike("w2", (0.1, 0.0)).rest("w2", (0.002, 0.27), 0.3), "w2")
    assert o.foul is None and o.left_kader
    o = stroke(st, lambda b: b.strike("w2", (0.0, 0.1)).rest("w2", (0.0, 0.29), 0.3), "w2")
    assert o.foul is not None and o.foul.rule == "G-21"  # moved along its line: still on it


def test_fifteen_kaders():
    """Seed: "For kader play the table is divided into fifteen kaders." (G-24: 3 strips along
    each long cushion, the great triangle and 2 corners at each end, the central block split
    at x = 0, the bos.)"""
    pts = np.array([(-0.6, 0.4), (0.0, 0.4), (0.6, 0.4), (-0.8, 0.3), (-0.7, 0.0), (-0.8, -0.3),
                    (-0.2, 0.2), (0.0, 0.0), (0.2, 0.2), (0.8, 0.3), (0.7, 0.0), (0.8, -0.3),
                    (-0.6, -0.4), (0.0, -0.4), (0.6, -0.4)])
    k = ZS.kader_of(pts)
    assert sorted(k.tolist()) == list(range(1, 16))


def test_kader_duty_side_1():
    st = state({"w1": (0.2, 0.2), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)}, to_move=1)
    o = stroke(st, lambda b: b.strike("r1", (-0.1, 0.0)).rest("r1", (-0.21, -0.25), 0.5), "r1")
    assert o.foul.rule == "G-21" and np.allclose(at(o, "r1"), SPOTS1[0])


# =============================================================================================
# Strafmarken (penalty spots)
# =============================================================================================


def _own_goal_w2(st, **kw):
    return stroke(st, lambda b: b.strike("w2", (-1.0, -0.2)).drop(0.6, "w2", 1), "w2", **kw)


def test_penalty_spots_1_2_3_4_5_geometry():
    """Seed: spot 1 = the corner formed by goal cap and short cushion at the offender's attack
    goal, left, touching the short cushion, 3 mm from the cap; spot 2 the same right; spot 3
    in the bos on the long axis touching the 2nd cap on the attack side; spots 4 / 5 behind
    and touching the two cross-axis caps on the defence side, left / right. (G-27..G-29.)"""
    caps = GEO.caps
    s1, s2, s3, s4, s5 = SPOTS0
    assert s1[0] == pytest.approx(0.90 - R) and s1[1] > 0 and s2[1] < 0
    assert np.hypot(*(s1 - caps[0])) == pytest.approx(R + GEO.r_cap + 0.003, abs=1e-5)
    assert np.hypot(*(s3 - caps[4])) == pytest.approx(R + GEO.r_cap, abs=1e-5) and s3[1] == 0
    for s, arm in ((s4, (8, 9)), (s5, (10, 11))):
        assert s[0] < 0  # defence side
        for k in arm:
            assert np.hypot(*(s - caps[k])) == pytest.approx(R + GEO.r_cap, abs=1e-5)
    assert s4[1] > 0 > s5[1]  # left (+y facing goal 0) / right
    assert np.allclose(SPOTS1, -SPOTS0)  # side 1: turned half a turn


def test_penalty_spot_choice_1_2_3_then_4_then_5():
    """Seed: "The penalty ball goes on spot 1, 2 or 3, at the opponent's choice ... If it cannot
    be put on these spots because of other balls, it goes on the next spot, 4 or 5."
    (G-30: first_free default.)"""
    balls = dict(BASE)
    o = _own_goal_w2(state(balls))
    assert spotted(o) == {idx("w2"): 1}
    balls["r1"] = tuple(SPOTS0[0])
    assert spotted(_own_goal_w2(state(balls))) == {idx("w2"): 2}
    balls["r2"] = tuple(SPOTS0[1])
    balls["w1"] = tuple(SPOTS0[2])
    assert spotted(_own_goal_w2(state(balls))) == {idx("w2"): 4}
    balls["r3"] = tuple(SPOTS0[3])
    assert spotted(_own_goal_w2(state(balls))) == {idx("w2"): 5}


def test_penalty_spot_the_opponent_chooses_among_free_1_to_3():
    """Seed: "... at the opponent's choice (the opponent chooses among 3 spots)." (G-30 agent.)"""
    rules = GolfRules(spot_policy="agent")
    o = _own_goal_w2(state(), rules=rules, choices={"spots": [3]})
    assert spotted(o) == {idx("w2"): 3} and np.allclose(at(o, "w2"), SPOTS0[2])
    with pytest.raises(ValueError):
        _own_goal_w2(state(), rules=rules, choices={"spots": [4]})  # 4 only when 1-3 blocked


def test_penalty_spot_side_1_offender():
    """G-27: spots are measured toward the offender's attack goal (side 1: turned)."""
    st = state(to_move=1)
    o = stroke(st, lambda b: b.strike("r1", (1.0, -0.3)).drop(0.8, "r1", 0), "r1")
    assert o.foul.rule == "G-8" and np.allclose(at(o, "r1"), SPOTS1[0])
    assert np.allclose(SPOTS1[0], (-0.86925, -0.09387))


def test_kader_foul_from_a_penalty_spot_goes_to_the_next_unused_spot():
    """Seed: "If in kader play a player makes a foul stroke with a ball that lies on a penalty
    spot or was put there, the cue ball is moved to the first free penalty spot from which no
    foul stroke has been made yet." (G-26.)"""
    s1 = tuple(SPOTS0[0])
    st = state({"w1": s1, "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    st.on_spot[idx("w1")] = 1
    o, st1 = play_one(st, LogBuilder(st.xy).strike("w1", (-0.1, 0.0))
                      .rest("w1", (s1[0] - 0.002, s1[1]), 0.3).build(), "w1")
    assert o.foul.rule == "G-21" and o.spotted == [(idx("w1"), 2)]
    st1 = st1.copy()
    st1.to_move = 0
    s2 = tuple(SPOTS0[1])
    o, st2 = play_one(st1, LogBuilder(st1.xy).strike("w1", (-0.1, 0.0))
                      .rest("w1", (s2[0] - 0.002, s2[1]), 0.3).build(), "w1")
    assert o.spotted == [(idx("w1"), 3)]
    st2 = st2.copy()
    st2.to_move = 0
    s3 = tuple(SPOTS0[2])
    o, _ = play_one(st2, LogBuilder(st2.xy).strike("w1", (-0.1, 0.0))
                    .rest("w1", (s3[0] - 0.002, s3[1]), 0.3).build(), "w1")
    assert o.spotted == [(idx("w1"), 4)]


def test_kader_foul_from_a_spot_when_every_spot_has_had_one_normal_choice():
    """G-26: "if every free spot has had one, G-30 applies" (the opponent's choice among the
    free spots 1-3, default the first)."""
    s1 = tuple(SPOTS0[0])
    st = state({"w1": s1, "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    st.on_spot[idx("w1")] = 1
    st.fouled_spots[0, 1:] = True  # spots 2-5 already fouled from by side 0
    o = stroke(st, lambda b: b.strike("w1", (-0.1, 0.0)).rest("w1", (s1[0] - 0.002, s1[1]), 0.3),
               "w1")
    assert o.foul.rule == "G-21" and o.spotted == [(idx("w1"), 1)]


def test_kader_foul_from_a_spot_next_spot_occupied_skips_it():
    """G-26: "the first *free* spot from which no foul stroke has been made yet": r1 lies on
    spot 2, so w1 fouling from spot 1 goes to spot 3."""
    s1 = tuple(SPOTS0[0])
    st = state({"w1": s1, "w2": (-0.3, 0.2), "r1": tuple(SPOTS0[1])})
    st.on_spot[idx("w1")] = 1
    o = stroke(st, lambda b: b.strike("w1", (-0.1, 0.0)).rest("w1", (s1[0] - 0.002, s1[1]), 0.3),
               "w1")
    assert o.foul is not None and o.spotted == [(idx("w1"), 3)]


# =============================================================================================
# Duo-Wettkämpfe (duos)
# =============================================================================================

DUO = GolfRules(duo=True)


def _opening_log(st, w_end=None, r_end=None, w_drop=None, r_drop=None):
    b = LogBuilder(st.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
    b = b.drop(1.5, "w1", w_drop) if w_drop is not None else b.rest("w1", w_end, 2.0)
    b = b.drop(1.6, "r1", r_drop) if r_drop is not None else b.rest("r1", r_end, 2.0)
    return b.build()


def test_duo_nearest_ball_stays_at_the_table_second_player_continues():
    """Seed: "The duo whose ball stops nearest the goal stays at the table and the second
    player continues, unless the opening stroke already scored validly." (G-31.)"""
    st = new_match(DUO, openers=(0, 1))
    outs, new = play_strokes([st], _opening_log(st, (0.7, 0.1), (-0.3, -0.1)), [[W1, R1]],
                             players=[[0, 1]], rules=DUO)
    assert outs[0].first == 0 and new[0].to_move == 0 and new[0].partner[0] == 1
    outs, new = play_strokes([st], _opening_log(st, None, (-0.3, -0.1), w_drop=0), [[W1, R1]],
                             players=[[0, 1]], rules=DUO)
    assert outs[0].first == 0 and new[0].to_move == 0 and new[0].partner[0] == 0


def test_duo_losing_side_plays_its_first_turn_with_its_second_player():
    """G-31 "Partners alternate per turn": each side's opener played the opening stroke, so
    the losing side's first turn is its other partner's."""
    st = new_match(DUO, openers=(0, 1))
    outs, new = play_strokes([st], _opening_log(st, (0.7, 0.1), (-0.3, -0.1)), [[W1, R1]],
                             players=[[0, 1]], rules=DUO)
    n = new[0]
    assert n.to_move == 0 and n.partner.tolist() == [1, 0]
    log = LogBuilder(n.xy).strike("w2", (0.1, 0.0)).rest("w2", (-0.824, 0.15), 0.5).build()
    o, n2 = play_one(n, log, "w2", DUO, players=[1])
    assert o.foul is None and n2.to_move == 1 and n2.partner.tolist() == [0, 0]


def test_duo_second_game_the_other_player_opens_else_opening_lost_and_spot():
    """Seed: "In the second game the other player begins; if not, the turn is lost and the cue
    ball goes on the penalty spot." (G-31, G-18 wrong_opener: LT CS.)"""
    st = finish_game(new_match(DUO, openers=(0, 0)), 0, DUO)
    assert st.game_no == 1 and st.openers.tolist() == [1, 1]
    outs, new = play_strokes([st], _opening_log(st, (0.7, 0.1), (-0.3, -0.1)), [[W1, R1]],
                             players=[[0, 1]], rules=DUO)
    o = outs[0]
    assert any(f.kind == "wrong_opener" for f in o.fouls) and o.first == 1
    assert (W1, 1) in o.spotted


def test_duo_deciding_game_each_duo_chooses_its_opener():
    """Seed: "In a deciding game each duo decides who opens." (G-31, configured.)"""
    rules = GolfRules(duo=True, deciding_openers=(0, 1))
    st = finish_game(finish_game(new_match(rules, openers=(1, 1)), 0, rules), 1, rules)
    assert st.game_no == 2 and st.openers.tolist() == [0, 1]


def test_duo_out_of_order_LT_RA_even_with_a_goal_CS_in_kader():
    """Seed: "Play alternates. Not keeping the order loses the turn and the displaced balls are
    put back, even if one scored. In kader play the cue ball goes on the penalty spot."
    (G-31, G-18 out_of_turn.)"""
    st = state(partner=np.array([1, 0]))
    o = stroke(st, goal_w1, "w1", rules=DUO, players=0)
    assert o.foul.kind == "out_of_turn" and o.consequences == {"LT", "RA"}
    assert o.scored.tolist() == [0, 0] and o.spotted == [] and not o.turn_kept
    st = state({"w1": (0.6, 0.0), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)},
               partner=np.array([1, 0]))
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0), "w1", rules=DUO,
               players=0)
    assert o.consequences == {"LT", "RA", "CS"} and spotted(o) == {idx("w1"): 1}


def test_duo_partners_alternate_per_turn():
    """Seed: "Play alternates." (G-31: partners alternate per turn.)"""
    st = state({"w1": (0.2, 0.1), "w2": (-0.2, 0.1), "r1": (0.2, -0.1), "r2": (-0.2, -0.1)},
               partner=np.array([0, 0]))
    log = LogBuilder(st.xy).strike("w1", (0.1, 0.0)).rest("w1", (0.198, 0.1), 0.5).build()
    o, st1 = play_one(st, log, "w1", DUO, players=[0])
    assert st1.to_move == 1 and st1.partner.tolist() == [1, 0]
    log = LogBuilder(st1.xy).strike("r1", (0.1, 0.0)).rest("r1", (0.202, -0.1), 0.5).build()
    o, st2 = play_one(st1, log, "r1", DUO, players=[0])
    assert o.foul is None and st2.partner.tolist() == [1, 1] and st2.to_move == 0


def test_consultation_has_no_penalty():
    """Seed: "Partners may consult on how to play, but not show or point ..." No penalty is
    named. (G-18 consultation: none.)"""
    o = stroke(state(), goal_w1, "w1", injected=[foul("consultation")])
    assert o.consequences == frozenset() and o.scored.tolist() == [1, 0] and o.spotted == []


def test_time_limit_LT_and_PICK_in_kader():
    """Seed: "A turn lasts 50 seconds ... if not played within 10 s after TIME, the turn is
    lost. In kader play the opponent names a ball for the penalty spot." (G-18 time.)"""
    o = stroke(state(), miss_w1, "w1", injected=[foul("time")])
    assert o.consequences == {"LT"} and o.spotted == []
    st = state({"w1": (0.2, 0.2), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.5, 0.2), 1.0), "w1",
               injected=[foul("time")], rules=GolfRules(pick_policy="agent"),
               choices={"pick": "w1"})
    assert o.consequences == {"LT", "PICK"} and spotted(o) == {idx("w1"): 1}


# =============================================================================================
# Play (spec G-1 .. G-5)
# =============================================================================================


def test_opening_nearer_ball_first_turn_nonscoring():
    """G-3: both middle balls at once; the side whose ball stops nearer its attack goal takes
    the first turn."""
    st = new_match()
    o = score_opening(st, _opening_log(st, (0.4, 0.1), (-0.7, -0.1)), ("w1", "r1"))
    assert o.first == 1 and not o.repeat


def test_opening_ball_not_crossing_loses_even_if_nearer():
    """G-3: "A ball that does not cross x = 0 loses the opening"."""
    st = new_match()
    # w1 stops 0.965 m from goal 0 without crossing; r1 crossed and stops 0.973 m from goal 1
    o = score_opening(st, _opening_log(st, (-0.02, 0.3), (-0.01, 0.40)), ("w1", "r1"))
    assert o.crossed == (False, True) and o.first == 1


def test_opening_scored_ball_takes_the_turn():
    """G-3: "a side that scores its opening ball takes it"; both score: repeat with another
    ball each."""
    st = new_match()
    outs, new = play_strokes([st], _opening_log(st, None, (-0.8, 0.0), w_drop=0), [[W1, R1]])
    assert outs[0].first == 0 and new[0].to_move == 0 and new[0].balls_left.tolist() == [4, 5]
    outs, new = play_strokes([st], _opening_log(st, None, None, w_drop=0, r_drop=1), [[W1, R1]])
    assert outs[0].repeat and new[0].phase == "opening" and new[0].balls_left.tolist() == [4, 4]


def test_opening_only_the_middle_ball():
    """G-3: "Only the middle ball (w1, r1) may open; a side that strikes another ball loses the
    opening"."""
    st = new_match()
    log = (LogBuilder(st.xy).strike("w2", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
           .rest("w2", (0.7, 0.3), 2.0).rest("r1", (-0.3, -0.1), 2.0).build())
    o = score_opening(st, log, ("w2", "r1"))
    assert o.first == 1


def test_game_won_by_scoring_all_five_best_of_three():
    """G-4: a game is won by the first side with all 5 balls scored; a match is best of 3."""
    rules = GolfRules()
    st = finish_game(new_match(rules), 1, rules)
    assert st.phase == "opening" and st.games_won.tolist() == [0, 1]
    st = finish_game(st, 0, rules)
    assert st.phase == "opening" and st.game_no == 2
    st = finish_game(st, 0, rules)
    assert st.phase == "over" and st.match_winner == 0


def test_no_progress_draw():
    """G-5: after the limit, if neither side scores for 3 more turns each, the game is a draw."""
    rules = GolfRules(no_progress_turns=4, no_progress_window=3, match="single")
    st = state({"w1": (0.2, 0.1), "w2": (-0.2, 0.1), "r1": (0.2, -0.1), "r2": (-0.2, -0.1)})
    n = 0
    while st.phase == "play":
        s = st.to_move
        b = "w1" if s == 0 else "r1"
        p = st.xy[idx(b)]
        log = LogBuilder(st.xy).strike(b, (0.1, 0.0)).rest(b, (p[0] + 0.001, p[1]), 0.5).build()
        o, st = play_one(st, log, b, rules)
        n += 1
        assert n <= 20
    assert st.winner == 2 and n == 4 + 6


def test_equipment_goals_caps_balls_start_spots():
    """Spec, Equipment: goals of 65 mm at (+-0.897, 0); 12 caps of 35 mm (4 goal caps at
    (+-0.835, +-0.05575), the cross at (+-0.09, 0), (+-0.18, 0), (0, +-0.09), (0, +-0.18));
    balls of 61.5 mm, 5 a side; start spots 75 mm from the own short cushion."""
    assert GEO.R == pytest.approx(0.03075) and GEO.r_cap == pytest.approx(0.0175)
    assert np.allclose(GEO.goals, [(0.897, 0.0, 0.0325), (-0.897, 0.0, 0.0325)])
    caps = {tuple(np.round(c, 5)) for c in GEO.caps}
    want = {(x, y) for x in (0.835, -0.835) for y in (0.05575, -0.05575)}
    want |= {(0.09, 0.0), (-0.09, 0.0), (0.18, 0.0), (-0.18, 0.0), (0.0, 0.09), (0.0, -0.09),
             (0.0, 0.18), (0.0, -0.18)}
    assert len(GEO.caps) == 12 and caps == want
    assert len(GEO.ball_ids) == 10 and GEO.ball_ids[0] == "w1" and GEO.ball_ids[5] == "r1"
    assert np.allclose(GEO.start[:5, 0], -0.825) and np.allclose(GEO.start[5:, 0], 0.825)
    assert GEO.start[0, 1] == 0.0 and GEO.start[5, 1] == 0.0  # the middle balls


def test_no_progress_not_in_kader_play():
    """G-5: "Not applied during kader play"."""
    rules = GolfRules(no_progress_turns=0, no_progress_window=1, match="single")
    st = state({"w1": (0.2, 0.1), "w2": (-0.2, 0.1), "r1": (0.2, -0.1)})
    for _ in range(6):
        b = "w1" if st.to_move == 0 else "r1"
        p = st.xy[idx(b)]
        log = LogBuilder(st.xy).strike(b, (0.1, 0.0)).rest(b, (p[0] + 0.001, p[1]), 0.5).build()
        o, st = play_one(st, log, b, rules)
    assert st.phase == "play"


def test_winning_stroke_starts_the_next_game_with_an_opening():
    """G-4 with G-3: the stroke that scores a side's fifth ball wins the game; in a best of 3
    the next game starts from the start spots with an opening."""
    st = state({"w1": (0.5, 0.0), "r1": (0.3, 0.25), "r2": (0.3, -0.25)})
    o, st1 = play_one(st, LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build(),
                      "w1")
    assert o.game_over and o.winner == 0 and st1.games_won.tolist() == [1, 0]
    assert st1.phase == "opening" and np.allclose(st1.xy, GEO.start) and not st1.kader


# =============================================================================================
# The opening (G-3) follows the rules that the spec and the seed state for every stroke: jams
# (G-19), an opponent's ball played into a goal (G-7), kader play at one ball each (G-20, G-25)
# =============================================================================================


def test_opening_ball_jammed_between_its_attack_goal_caps_scores_the_opening():
    """Seed: "A ball jammed between the caps of the attack goal and not touching the cloth
    counts as validly scored." (G-19.) G-3: "a side that scores its opening ball takes it".
    w1 is jammed between goal 0's caps; r1 stops nearer its goal than w1's jam point."""
    st = new_match()
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
           .rest("w1", (0.75, 0.0), 2.0).rest("r1", (-0.78, 0.0), 2.0).build())
    outs, new = play_strokes([st], log, [[W1, R1]],
                             injected=[[{"type": "jam", "ball": "w1", "goal": 0, "time": 1.5}]])
    assert outs[0].scored == (True, False) and outs[0].first == 0
    assert new[0].to_move == 0 and new[0].balls_left.tolist() == [4, 5]


def test_opening_ball_jammed_between_defence_goal_caps_goes_to_a_spot():
    """Seed: "A ball jammed between the goal caps of the defence goal is put on the penalty
    spot." (G-19.) In the opening w1 knocks w2, which jams between goal 1's caps."""
    st = new_match()
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
           .ball_ball(0.1, "w1", "w2", (-0.8, 0.1)).rest("w2", (-0.8, 0.16), 0.5)
           .rest("w1", (0.5, 0.1), 2.0).rest("r1", (-0.3, -0.1), 2.0).build())
    outs, new = play_strokes([st], log, [[W1, R1]],
                             injected=[[{"type": "jam", "ball": "w2", "goal": 1, "time": 0.4}]])
    assert (idx("w2"), 1) in outs[0].spotted
    assert np.allclose(new[0].xy[idx("w2")], SPOTS0[0])


def test_opening_opponent_ball_knocked_into_a_goal_counts_for_its_side():
    """Seed: "A legally played opponent's ball that disappears into one's own goal or the
    opponent's goal is valid too." (G-7; G-3 is silent on other balls.) In the opening w1
    runs the length of the table and knocks r2 (on its start spot) into goal 0: r2 is
    scored for side 1; w1 stops nearer its goal than r1, so side 0 takes the first turn."""
    st = new_match()
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.3)).strike("r1", (-1.0, -0.6))
           .ball_ball(1.0, "w1", "r2", (0.77, 0.12), (0.825, 0.15)).drop(1.4, "r2", 0)
           .rest("w1", (0.6, 0.1), 2.0).rest("r1", (-0.3, -0.1), 2.0).build())
    outs, new = play_strokes([st], log, [[W1, R1]])
    assert outs[0].first == 0
    assert idx("r2") in outs[0].scored_balls and new[0].balls_left.tolist() == [5, 4]


def test_opening_at_one_ball_each_is_kader_play_for_behavioural_fouls():
    """Seed: "One plays with at least one foot on the floor; otherwise ... every displaced ball
    is put back. In kader play the cue ball is put on the penalty spot." (G-18, G-25.) After
    four double scores the fifth opening starts with one ball each: kader play (G-20)."""
    st = GolfState.with_balls({"w5": tuple(GEO.start[4]), "r5": tuple(GEO.start[9])},
                              phase="opening", kader=True)
    log = (LogBuilder(st.xy).strike("w5", (1.0, 0.0)).strike("r5", (-1.0, 0.0))
           .rest("w5", (0.5, -0.3), 2.0).rest("r5", (-0.5, -0.3), 2.0).build())
    outs, new = play_strokes([st], log, [[idx("w5"), idx("r5")]],
                             injected=[[foul("foot_off_floor", side=0)]])
    assert outs[0].first == 1 and (idx("w5"), 1) in outs[0].spotted


# --- the opening: who played a ball (G-3 reading), jams, notes, kader letters -----------------


def _both_cross(xy, *extra):
    """Both opening balls cross x = 0; w1 stops nearer its goal (0.41 m) than r1 (0.61 m)."""
    b = LogBuilder(xy).strike("w1", (1.0, 0.3)).strike("r1", (-1.0, -0.6))
    for f in extra:
        b = f(b)
    return b.rest("w1", (0.6, 0.1), 2.0).rest("r1", (-0.3, -0.1), 2.0).build()


@pytest.mark.parametrize("last", ["w1", "r1"])
def test_opening_ball_dropping_counts_for_the_side_whose_chain_touched_it_last(last):
    """G-3 reading (G-7, G-8): r2 is touched by both opening balls and then drops into goal 0,
    side 1's defence goal. Played last by side 0 (w1): an opponent's ball, scored for side 1
    (G-7). Played last by its own side (r1): an own ball into its defence goal, a penalty spot
    of side 1 (G-8) and no goal."""
    st = new_match()
    first = "r1" if last == "w1" else "w1"
    at_ = {"w1": (0.77, 0.12), "r1": (0.825, 0.09)}
    log = _both_cross(st.xy, lambda b: b.ball_ball(0.2, first, "r2", at_[first], (0.825, 0.15))
                       .ball_ball(1.0, last, "r2", at_[last], (0.825, 0.15)).drop(1.4, "r2", 0))
    outs, new = play_strokes([st], log, [[W1, R1]])
    assert outs[0].first == 0 and outs[0].fouls == []
    if last == "w1":
        assert outs[0].scored_balls == [idx("r2")] and new[0].balls_left.tolist() == [5, 4]
    else:
        assert outs[0].scored_balls == [] and (idx("r2"), 1) in outs[0].spotted
        assert np.allclose(new[0].xy[idx("r2")], SPOTS1[0])
        assert new[0].balls_left.tolist() == [5, 5]


def test_opening_opponent_ball_jammed_in_its_players_attack_goal_counts_for_its_side():
    """G-19 in the opening is judged for the side that played the ball: w1 knocks r2 between the
    caps of goal 0, side 0's attack goal: a drop there, so r2 is scored for side 1 (G-7)."""
    st = new_match()
    log = _both_cross(st.xy, lambda b: b.ball_ball(1.0, "w1", "r2", (0.77, 0.12),
                                                    (0.825, 0.15)))
    outs, new = play_strokes([st], log, [[W1, R1]],
                             injected=[[{"type": "jam", "ball": "r2", "goal": 0, "time": 1.3}]])
    assert outs[0].first == 0 and outs[0].fouls == [] and outs[0].spotted == []
    assert outs[0].scored_balls == [idx("r2")] and new[0].balls_left.tolist() == [5, 4]


def test_opening_G19_jam_of_an_opponent_ball_goes_to_the_jamming_sides_spot():
    """G-19 in the opening: r1 knocks w2 (lying near goal 0 after earlier openings) between the
    caps of goal 0, side 1's defence goal: side 1's G-19 foul (no LT: side 1 still opened
    validly), w2 to a penalty spot of side 1, the offender (as in play), which is none of
    side 0's own spots (G-26: not on_spot)."""
    st = GolfState.with_balls({"w1": tuple(GEO.start[0]), "w3": tuple(GEO.start[2]),
                               "w2": (0.6, 0.25), "r1": tuple(GEO.start[5]),
                               "r2": tuple(GEO.start[6]), "r3": tuple(GEO.start[7])},
                              phase="opening")
    log = _both_cross(st.xy, lambda b: b.ball_ball(0.2, "r1", "w2", (0.63, 0.19), (0.6, 0.25)))
    outs, new = play_strokes([st], log, [[W1, R1]],
                             injected=[[{"type": "jam", "ball": "w2", "goal": 0, "time": 0.6}]])
    o = outs[0]
    assert [(f.rule, f.balls) for f in o.fouls] == [("G-19", (idx("w2"),))]
    assert o.fouls[0].detail == "w2 jammed between the caps of side 1's defence goal"
    assert o.first == 0 and o.reason == "side 0's ball stopped nearer its attack goal"
    assert (idx("w2"), 1) in o.spotted and np.allclose(new[0].xy[idx("w2")], SPOTS1[0])
    assert new[0].on_spot[idx("w2")] == 0 and new[0].balls_left.tolist() == [3, 3]


def test_opening_rail_return_and_cap_cushion_jam_are_notes_as_in_play():
    """G-17b (a ball over the rail and back is not penalised) and G-19 (a ball jammed between a
    cap and the short cushion is freed) hold for every stroke: the opening notes them as play
    does, and nothing changes."""
    st = new_match()
    log = _both_cross(st.xy)
    inj = [{"type": "rail_return", "ball": "w1"},
           {"type": "jam", "ball": "r1", "where": "cap_cushion"}]
    outs, _ = play_strokes([st], log, [[W1, R1]], injected=[inj])
    assert outs[0].notes == ["G-17b: w1 rode over the rail and came back: not penalised",
                             "G-19: r1 jammed between a cap and the short cushion: freed"]
    assert outs[0].fouls == [] and outs[0].first == 0 and outs[0].spotted == []


def test_opening_in_kader_play_PICK_takes_the_offenders_ball_and_the_agents_pick():
    """G-20, G-25 in the opening at one ball each: `time` (LT; in kader play LT PICK): the
    opponent picks one of the offender's balls for a penalty spot; with pick_policy agent the
    pick is the caller's (a ball of the offending side), and choices['pick'] is accepted in
    the opening."""
    st = GolfState.with_balls({"w5": tuple(GEO.start[4]), "r5": tuple(GEO.start[9])},
                              phase="opening", kader=True)
    log = (LogBuilder(st.xy).strike("w5", (1.0, 0.0)).strike("r5", (-1.0, 0.0))
           .rest("w5", (0.5, -0.3), 2.0).rest("r5", (-0.5, -0.3), 2.0).build())
    cb = [[idx("w5"), idx("r5")]]
    inj = [[foul("time", side=0)]]
    outs, new = play_strokes([st], log, cb, injected=inj)
    assert outs[0].first == 1 and outs[0].spotted == [(idx("w5"), 1)]
    assert math.isinf(outs[0].distance[0])
    agent = GolfRules(pick_policy="agent")
    outs, _ = play_strokes([st], log, cb, injected=inj, rules=agent, choices=[{"pick": "w5"}])
    assert outs[0].spotted == [(idx("w5"), 1)]
    with pytest.raises(ValueError, match="not one of the offender's balls"):
        play_strokes([st], log, cb, injected=inj, rules=agent, choices=[{"pick": "r5"}])
    # outside kader play `time` is LT only: the pick is not needed, and the outcome says so
    st5 = new_match()
    outs, _ = play_strokes([st5], _both_cross(st5.xy), [[W1, R1]], injected=inj, rules=agent,
                           choices=[{"pick": "w1"}])
    assert outs[0].first == 1 and outs[0].spotted == []
    assert outs[0].notes == ["choices['pick'] not used: no G-25 pick in this stroke"]


def test_opening_injected_event_naming_a_ball_off_the_table_is_refused():
    """As in play: an injected event names a ball on the table (a jam of a scored ball would
    score it twice)."""
    st = GolfState.with_balls({"w1": tuple(GEO.start[0]), "w3": tuple(GEO.start[2]),
                               "r1": tuple(GEO.start[5]), "r2": tuple(GEO.start[6])},
                              phase="opening")
    with pytest.raises(ValueError, match="w2, which is not on the table"):
        play_strokes([st], _both_cross(st.xy), [[W1, R1]],
                     injected=[[{"type": "jam", "ball": "w2", "goal": 0}]])
