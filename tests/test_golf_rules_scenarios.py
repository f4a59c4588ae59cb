"""Rule scenarios for the golfbillard referee, written from the rule text of
docs/rules_golfbillard.md (rule ids G-..) as an outside examiner would: a foul and a goal in one
stroke, several balls to penalty spots, the last ball, kader play, duos, best of 3. Each test
names its rule ids and says what the rule demands. Side 0 (w1..w5) attacks goal 0 at +x, side 1
(r1..r5) goal 1.
"""

import numpy as np
import pytest
from golf_strokes import (
    BASE,
    GEO,
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
)

W1, R1 = 0, 5
BELOW0 = (0.6, 0.2)  # below goal 0's stroke line (side 0's attack goal)


def off(ball, t=None):
    e = {"type": "off_table", "ball": ball}
    if t is not None:
        e["time"] = t
    return e


def play_one(st, log, cue_ball, rules=None, **kw):
    outs, new = play_strokes([st], log, [cue_ball], rules=rules or GolfRules(), **kw)
    return outs[0], new[0]


def spotted(o):
    return dict(o.spotted)


# =============================================================================================
# G-1 / G-2: turn kept or passed; any own ball
# =============================================================================================


def test_G1_flow_turn_kept_then_passed_with_next_sides_duty():
    """G-1: a valid own goal keeps the turn (same side, stroke count up); a miss passes it and
    the new turn of side 1 records r3 in its defence triangle (G-14)."""
    st = state({**BASE, "r3": (0.8, 0.0)}, to_move=0)
    log = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build()
    o, st1 = play_one(st, log, "w1")
    assert o.turn_kept and st1.to_move == 0 and st1.turn_strokes == 1
    log = LogBuilder(st1.xy).strike("w2", (1.0, 0.0)).rest("w2", (-0.1, 0.2), 1.0).build()
    o, st2 = play_one(st1, log, "w2")
    assert not o.turn_kept and o.foul is None and st2.to_move == 1
    assert st2.duty.tolist() == [i == idx("r3") for i in range(10)]


def test_G2_any_own_ball_may_be_struck_not_only_one_cue_ball():
    """G-2: the player strikes any own ball; w3 as cue ball scoring is a valid goal."""
    st = state({**BASE, "w3": (0.55, -0.12)})
    o = stroke(st, lambda b: b.strike("w3", (1.0, 0.1)).drop(0.4, "w3", 0), "w3")
    assert o.foul is None and o.turn_kept and o.scored.tolist() == [1, 0]


def test_G2_G25_striking_opponent_ball_in_kader_LT_RA_PICK():
    """Seed (Zielen): "Mit einem Ball des Gegners zu spielen ... Verlust der Aufnahme. Die
    verschobenen Baelle werden zurueckgelegt; beim Spiel im Kader bestimmt der Gegner einen
    Ball, der auf die Strafmarke gelegt wird." Kader: r1 put back, one white ball spotted."""
    st = state(KADER)  # side 1 on one ball: kader play
    o = stroke(st, lambda b: b.strike("r1", (0.3, 0.0)).rest("r1", (-0.1, -0.25), 1.0), "r1")
    assert o.foul.rule == "G-18" and o.foul.kind == "played_opponent_ball"
    assert o.consequences == {"LT", "RA", "PICK"} and not o.turn_kept
    assert at(o, "r1").tolist() == [-0.2, -0.25]
    assert len(o.spotted) == 1 and o.spotted[0][0] in (idx("w1"), idx("w2"))


# =============================================================================================
# G-3: the opening
# =============================================================================================


def _opening(st, w_end=None, r_end=None, w_drop=None, r_drop=None, w="w1", r="r1"):
    b = LogBuilder(st.xy).strike(w, (1.0, 0.6)).strike(r, (-1.0, -0.6))
    b = b.drop(1.5, w, w_drop) if w_drop is not None else b.rest(w, w_end, 2.0)
    b = b.drop(1.6, r, r_drop) if r_drop is not None else b.rest(r, r_end, 2.0)
    return b.build()


def test_G3_scorer_takes_the_turn_even_if_other_ball_did_not_cross():
    st = new_match()
    log = _opening(st, w_drop=0, r_end=(0.2, -0.1))  # r1 never crossed x = 0
    outs, new = play_strokes([st], log, [[W1, R1]])
    o, n = outs[0], new[0]
    assert o.first == 0 and tuple(o.scored) == (True, False) and not o.crossed[1]
    assert n.phase == "play" and n.to_move == 0 and n.balls_left.tolist() == [4, 5]


def test_G3_nearer_ball_wins_side_1():
    st = new_match()
    o = score_opening(st, _opening(st, w_end=(0.4, 0.1), r_end=(-0.75, -0.1)), ("w1", "r1"))
    assert o.first == 1 and not o.repeat


def test_G3_opening_ball_into_own_defence_goal_loses_it_and_is_spotted():
    """Documented reading: an opening ball dropping into its own defence goal loses the
    opening for its side and goes to a penalty spot (G-8 flavour)."""
    st = new_match()
    outs, new = play_strokes([st], _opening(st, w_drop=1, r_end=(-0.3, -0.1)), [[W1, R1]])
    o = outs[0]
    assert o.first == 1 and (W1, 1) in o.spotted
    assert np.allclose(new[0].xy[W1], SPOTS0[0]) and new[0].to_move == 1
    assert new[0].balls_left.tolist() == [5, 5]


def test_G3_opening_ball_off_the_table_loses():
    st = new_match()
    outs, new = play_strokes([st], _opening(st, w_end=(0.7, 0.1), r_end=(-0.3, -0.1)),
                             [[W1, R1]], injected=[[off("w1", 1.0)]])
    assert outs[0].first == 1 and (W1, 1) in outs[0].spotted


def _opening_hit_off(st, hit, off_ball_events=()):
    """An opening in which w1 meets ``hit`` at 1.0 s and stops at (0.6, 0.1), nearer its goal
    than r1 at (-0.3, -0.1); ``hit`` then leaves the table at 1.4 s (injected)."""
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.3)).strike("r1", (-1.0, -0.6))
           .ball_ball(1.0, "w1", hit, (0.77, 0.12), (0.825, 0.15))
           .rest("w1", (0.6, 0.1), 2.0).rest("r1", (-0.3, -0.1), 2.0).build())
    return play_strokes([st], log, [[W1, R1]],
                        injected=[[off(hit, 1.4), *off_ball_events]])


def test_G3_G17_opponents_ball_played_off_the_table_in_the_opening_goes_into_its_goal():
    """G-17 in the opening: side 0's stroke plays r2 off the table, so r2 goes into its goal,
    scored for side 1 (the exception to "only the first foul": always), and the opening is
    still decided by the opening balls (w1 nearer: side 0 starts)."""
    st = new_match()
    st.xy[idx("r2")] = (0.83, 0.15)
    outs, new = _opening_hit_off(st, "r2")
    o, n = outs[0], new[0]
    assert o.first == 0 and o.scored_balls == [idx("r2")] and o.into_goal == [idx("r2")]
    assert o.spotted == [] and n.balls_left.tolist() == [5, 4] and np.isnan(n.xy[idx("r2")]).all()


def test_G3_G16_own_ball_played_off_the_table_in_the_opening_goes_to_a_penalty_spot():
    """G-16 in the opening: side 0's stroke plays its own w2 off the table: a penalty spot of
    side 0, nothing scored, and the opening still goes by the opening balls."""
    st = new_match()
    st.xy[idx("w2")] = (0.83, 0.15)
    outs, new = _opening_hit_off(st, "w2")
    o, n = outs[0], new[0]
    assert o.first == 0 and o.scored_balls == [] and o.into_goal == []
    assert o.spotted == [(idx("w2"), 1)] and n.balls_left.tolist() == [5, 5]


def test_G3_G17_in_the_opening_overrides_the_owners_RA():
    """Side 1's foot_off_floor (LT RA CS) would put back the balls its side's opening moved;
    r2, played off the table by side 0's stroke, still goes into its goal (G-17: whatever foul
    is penalised first). Side 1 loses the opening, r1 goes back where it lay."""
    st = new_match()
    st.xy[idx("r2")] = (0.83, 0.15)
    foul = {"type": "foul", "kind": "foot_off_floor", "time": 0.0, "side": 1}
    outs, new = _opening_hit_off(st, "r2", [foul])
    o, n = outs[0], new[0]
    assert o.first == 0 and o.into_goal == [idx("r2")] and n.balls_left.tolist() == [5, 4]
    assert np.allclose(n.xy[R1], st.xy[R1])


def test_G3_G18_deflect_opponent_ball_in_the_opening_lists_the_ball_put_into_its_goal():
    """GOAL of a deflect foul in the opening: the touched opponent's ball is put into its
    goal, and the outcome says so (``into_goal``), as in play."""
    st = new_match()
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
           .rest("w1", (0.5, 0.1), 2.0).rest("r1", (-0.3, -0.1), 2.0).build())
    outs, new = play_strokes([st], log, [[W1, R1]], injected=[[
        {"type": "foul", "kind": "deflect_opponent_ball", "ball": "r3", "time": 0.0,
         "side": 0}]])
    assert outs[0].into_goal == [idx("r3")] and new[0].balls_left.tolist() == [5, 4]


def test_G3_neither_crossing_balls_back_repeat():
    st = new_match()
    outs, new = play_strokes([st], _opening(st, w_end=(-0.2, 0.3), r_end=(0.2, -0.3)),
                             [[W1, R1]])
    assert outs[0].repeat and new[0].phase == "opening" and np.allclose(new[0].xy, st.xy)


def test_G3_option_alternate_no_opening():
    rules = GolfRules(opening="alternate")
    st = new_match(rules)
    assert st.phase == "play" and st.to_move == 0


# =============================================================================================
# G-4: game and match
# =============================================================================================


def test_G4_best_of_three_2_0_ends_after_two_games_via_play():
    """G-4 best of 3: winning stroke of game 1 starts game 2 (opening); side 0 winning game 2
    too ends the match 2-0 with no third game."""
    st = GolfState.with_balls({"w1": (0.5, 0.0), "r1": (0.3, 0.25), "r2": (0.3, -0.25)})
    log = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build()
    o, st1 = play_one(st, log, "w1")
    assert o.game_over and o.winner == 0
    assert st1.phase == "opening" and st1.game_no == 1 and st1.games_won.tolist() == [1, 0]
    assert np.allclose(st1.xy, GEO.start) and not st1.kader
    st2 = GolfState.with_balls({"w1": (0.5, 0.0), "r1": (0.3, 0.25)},
                               games_won=np.array([1, 0]), game_no=1)
    log = LogBuilder(st2.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build()
    o, st3 = play_one(st2, log, "w1")
    assert o.game_over and o.winner == 0
    assert st3.phase == "over" and st3.match_winner == 0 and st3.games_won.tolist() == [2, 0]


def test_G4_one_all_goes_to_a_deciding_game():
    rules = GolfRules()
    st = finish_game(finish_game(new_match(rules), 0, rules), 1, rules)
    assert st.phase == "opening" and st.game_no == 2 and st.games_won.tolist() == [1, 1]
    st = finish_game(st, 1, rules)
    assert st.phase == "over" and st.match_winner == 1


def test_G4_single_game_option():
    rules = GolfRules(match="single")
    st = GolfState.with_balls({"w1": (0.5, 0.0), "r1": (0.3, 0.25)})
    log = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build()
    o, st1 = play_one(st, log, "w1", rules)
    assert st1.phase == "over" and st1.match_winner == 0


def test_G4_opponent_last_ball_scored_by_me_opponent_wins():
    """G-7 + G-4: my stroke drops the opponent's last ball (into my attack goal): it counts for
    the opponent, who has all 5 scored and wins."""
    st = state({"w1": (0.3, 0.2), "w2": (-0.3, 0.2), "r1": (0.7, 0.15)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.2, "w1", "r1", (0.6385, 0.15))
                              .rest("w1", (0.6, 0.15), 0.5).drop(0.8, "r1", 0)), "w1")
    assert o.scored.tolist() == [0, 1] and o.game_over and o.winner == 1


def test_G4_last_balls_drop_at_the_same_time_shooter_wins():
    """Documented: equal drop times of both last balls -> the shooter wins."""
    st = state({"w1": (0.3, 0.0), "r1": (0.6, 0.0)}, to_move=0)
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.2, "w1", "r1", (0.5385, 0.0))
                              .drop(0.7, "r1", 0).drop(0.7, "w1", 0)), "w1")
    assert o.game_over and o.winner == 0


def test_G4_G8_last_own_ball_into_own_goal_is_spotted_game_goes_on():
    st = state({"w1": (-0.6, 0.0), "r1": (0.3, 0.25), "r2": (0.3, -0.25)})
    o = stroke(st, lambda b: b.strike("w1", (-1.0, 0.0)).drop(0.5, "w1", 1), "w1")
    assert o.foul.rule == "G-8" and not o.game_over and not o.turn_kept
    assert np.allclose(at(o, "w1"), SPOTS0[0]) and o.scored.tolist() == [0, 0]


# =============================================================================================
# G-5: no progress
# =============================================================================================


def test_G5_a_score_resets_the_idle_count():
    rules = GolfRules(no_progress_turns=0, no_progress_window=1, match="single")
    st = GolfState.with_balls({"w1": (0.2, 0.1), "w2": (-0.2, 0.1), "w3": (-0.4, 0.3),
                               "r1": (0.2, -0.1), "r2": (-0.2, -0.1), "r3": (0.4, -0.3)})
    # side 0 misses (idle 1)
    log = LogBuilder(st.xy).strike("w2", (0.1, 0.0)).rest("w2", (-0.19, 0.1), 0.5).build()
    o, st = play_one(st, log, "w2", rules)
    assert st.idle_turns == 1 and st.phase == "play"
    # side 1 scores r2 and then misses: its turn scored, idle back to 0
    log = LogBuilder(st.xy).strike("r2", (-1.0, 0.0)).drop(0.5, "r2", 1).build()
    o, st = play_one(st, log, "r2", rules)
    assert o.turn_kept
    log = LogBuilder(st.xy).strike("r1", (0.1, 0.0)).rest("r1", (0.21, -0.1), 0.5).build()
    o, st = play_one(st, log, "r1", rules)
    assert st.phase == "play" and st.idle_turns == 0


# =============================================================================================
# G-6 .. G-9: goals
# =============================================================================================


def test_G7_opponent_ball_into_its_own_attack_goal_counts_for_it():
    st = state()
    o = stroke(st, lambda b: (b.strike("w2", (-1.0, 0.0)).ball_ball(0.2, "w2", "r3", (-0.5385, 0.2))
                              .rest("w2", (-0.5, 0.2), 0.5).drop(0.9, "r3", 1)), "w2")
    assert o.foul is None and o.scored.tolist() == [0, 1] and not o.turn_kept


def test_G8_cue_ball_into_own_goal_with_a_valid_goal_of_another_own_ball():
    """G-8: LT; that ball to a penalty spot; other goals stand. w3 (cue) hits r3 first, then
    w2, which ... w1 drops into the attack goal; w3 itself ends in its own defence goal."""
    st = state({**BASE, "w3": (-0.5, 0.0)})
    o = stroke(st, lambda b: (b.strike("w3", (-1.0, 0.0)).drop(0.3, "w3", 1)
                              .ball_ball(0.1, "w1", "r1", (0.45, 0.0)).drop(0.6, "w1", 0)), "w3")
    assert o.foul.rule == "G-8" and o.consequences == {"LT", "SPOT"}
    assert o.scored.tolist() == [1, 0] and not o.turn_kept
    assert spotted(o) == {idx("w3"): 1} and np.allclose(at(o, "w3"), SPOTS0[0])


def test_G8_two_own_balls_into_own_goal_two_spots_cue_ball_first():
    st = state({**BASE, "w2": (-0.6, 0.1), "w3": (-0.5, -0.1)})
    o = stroke(st, lambda b: (b.strike("w3", (-1.0, 0.1))
                              .ball_ball(0.05, "w3", "r3", (-0.55, -0.05))
                              .drop(0.3, "w2", 1).drop(0.5, "w3", 1)), "w3")
    assert o.foul.rule == "G-8" and set(o.foul.balls) == {idx("w2"), idx("w3")}
    assert o.spotted == [(idx("w3"), 1), (idx("w2"), 2)]


def test_G9_G8_only_opponent_ball_and_own_goal():
    st = state()
    o = stroke(st, lambda b: (b.strike("w2", (-1.0, 0.0)).ball_ball(0.2, "w2", "r3", (-0.5385, 0.2))
                              .drop(0.5, "r3", 1).drop(0.9, "w2", 1)), "w2")
    assert o.foul.rule == "G-8" and o.scored.tolist() == [0, 1] and not o.turn_kept
    assert idx("w2") in spotted(o)


# =============================================================================================
# G-10 / G-10a / G-11 / G-12 / G-13
# =============================================================================================


def test_G10_side1_hard_stroke_below_its_stroke_line_RA_and_opponent_ball_back():
    """Mirror for side 1: r1 at (-0.6, -0.2) below goal 1's stroke line, hard at goal 1, kisses
    w2 on its way; RA puts w2 back, no goal, r1 to side 1's spot 1 (-0.86925, -0.09387)."""
    p = (-0.6, -0.2)
    st = state({**BASE, "r1": p, "w2": (-0.7, -0.05)}, to_move=1)
    o = stroke(st, lambda b: (b.strike("r1", toward(p, GOAL1, 2.6))
                              .ball_ball(0.05, "r1", "w2", (-0.65, -0.13))
                              .rest("w2", (-0.8, 0.2), 0.8).drop(0.3, "r1", 1)), "r1")
    assert o.foul.rule == "G-10" and o.consequences == {"LT", "RA", "CS"}
    assert o.scored.tolist() == [0, 0] and at(o, "w2").tolist() == [-0.7, -0.05]
    assert np.allclose(at(o, "r1"), SPOTS1[0]) and np.allclose(SPOTS1[0], (-0.86925, -0.09387))


def test_G10_raised_cue_soft_not_a_goal_attempt_is_allowed():
    """G-10 applies to direct goal attempts (G-10a) only: a raised-cue soft stroke from below
    the stroke line toward the long cushion is fine."""
    st = state({**BASE, "w1": BELOW0})
    o = stroke(st, lambda b: b.strike("w1", (0.0, 0.8)).rest("w1", (0.6, 0.3), 1.0), "w1",
               theta=45.0)
    assert o.foul is None


def test_G11_strip_ball_first_contact_a_ball_then_its_cushion_is_fine():
    p = (0.0, 0.40)
    st = state({**BASE, "w1": p, "r1": (0.1, 0.40)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.05, "w1", "r1", (0.0385, 0.4))
                              .cushion(0.2, "w1", 2, (0.05, 0.41925)).rest("w1", (0.1, 0.3), 1.0)),
               "w1")
    assert o.foul is None


def test_G11_strip_ball_onto_the_far_long_cushion_is_fine():
    p = (0.0, 0.40)
    st = state({**BASE, "w1": p})
    o = stroke(st, lambda b: (b.strike("w1", (0.0, -1.0)).cushion(0.8, "w1", 0, (0.0, -0.41925))
                              .rest("w1", (0.0, 0.0 + 0.25), 1.5)), "w1")
    assert o.foul is None


def test_G12_own_ball_onto_own_ball_which_drops_RA_no_goal():
    st = state({**BASE, "w1": (0.5, 0.1), "w3": (0.7, 0.03)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, -0.35)).ball_ball(0.1, "w1", "w3", (0.64, 0.05))
                              .drop(0.5, "w3", 0).rest("w1", (0.66, 0.06), 0.8)), "w1")
    assert o.foul.rule == "G-12" and o.scored.tolist() == [0, 0] and not o.turn_kept
    assert at(o, "w3").tolist() == [0.7, 0.03] and np.allclose(at(o, "w1"), SPOTS0[0])


def test_G12_after_a_cap_contact_own_ball_is_fine():
    st = state({**BASE, "w1": (-0.3, 0.0), "w2": (-0.3, 0.3)})
    cap = GEO.caps[7]  # (-0.18, 0)
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0))
                              .post(0.1, "w1", 7, (cap[0] - R - 0.0175, 0.0))
                              .ball_ball(0.5, "w1", "w2", (-0.3, 0.2385))
                              .rest("w2", (-0.3, 0.35), 1.0)), "w1")
    assert o.foul is None


def test_G13_push_frozen_to_cushion_in_kader_G26_from_spot():
    """Push (LT RA CS) in kader play by a cue ball lying on penalty spot 1: G-26 sends it to
    spot 2 (first free spot not yet fouled from)."""
    s1 = tuple(SPOTS0[0])
    st = state({"w1": s1, "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    st.on_spot[idx("w1")] = 1  # spot 1 touches the short cushion: frozen to it
    o = stroke(st, lambda b: b.strike("w1", (0.3, -1.0)).rest("w1", (0.6, -0.2), 1.0), "w1")
    assert o.kader and o.foul.rule == "G-13"
    assert o.spotted == [(idx("w1"), 2)] and o.fouled_spots[0, 0]


# =============================================================================================
# G-14 defence duty, G-30 several balls onto occupied spots
# =============================================================================================


def _three_duty(spot1_ball=None):
    balls = {**BASE, "w1": (-0.8, 0.0), "w3": (-0.72, 0.06), "w4": (-0.68, -0.06)}
    if spot1_ball:
        balls[spot1_ball] = tuple(SPOTS0[0])
    st = state(balls)
    for b in ("w1", "w3", "w4"):
        st.duty[idx(b)] = True
    return st


def test_G14_G30_three_duty_balls_spot_1_occupied_go_to_2_3_4():
    """G-14 unmet with w1, w3, w4 in the defence triangle; r1 lies on side 0's spot 1: the
    balls go one at a time (ball order: cue ball not among them) to spots 2, 3, 4."""
    st = _three_duty(spot1_ball="r1")
    o = stroke(st, lambda b: b.strike("w2", (0.5, 0.0)).rest("w2", (0.0, 0.2), 1.0), "w2")
    assert o.foul.rule == "G-14" and o.consequences == {"LT", "RA", "SPOT"}
    assert o.spotted == [(idx("w1"), 2), (idx("w3"), 3), (idx("w4"), 4)]
    assert at(o, "w2").tolist() == [-0.3, 0.2]  # RA of the last stroke


def test_G14_RA_undoes_an_opponent_goal_of_the_last_stroke():
    """The last stroke scores only an opponent's ball (turn ends, G-9) while the duty is unmet:
    G-14 'RA for the turn's last stroke' brings that ball back out of the goal."""
    st = state({**BASE, "w1": (-0.8, 0.0)})
    st.duty[idx("w1")] = True
    o = stroke(st, lambda b: (b.strike("w2", (1.0, 0.2)).ball_ball(0.3, "w2", "r1", (0.25, 0.22))
                              .rest("w2", (0.25, 0.22), 0.6).drop(0.9, "r1", 0)), "w2")
    assert o.foul.rule == "G-14" and o.scored.tolist() == [0, 0]
    assert at(o, "r1").tolist() == [0.3, 0.25] and at(o, "w2").tolist() == [-0.3, 0.2]


def test_G14_duty_met_by_the_duty_ball_being_the_one_scored_in_the_turn_flow():
    """A duty ball can meet its duty by dropping (a valid goal from the defence triangle
    all the way is unusual, but a drop counts)."""
    st = state({**BASE, "w1": (-0.8, 0.0)})
    st.duty[idx("w1")] = True
    log = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(1.5, "w1", 0).build()
    o, st1 = play_one(st, log, "w1")
    assert o.foul is None and o.duty_met and st1.duty_met and st1.to_move == 0


def test_G30_all_five_spots_blocked_nearest_free_point_to_spot_3():
    """G-30: every spot blocked -> the free point nearest spot 3 (reported as spot 0)."""
    balls = {"w1": (-0.8, 0.0), "w2": (-0.3, 0.3), "r1": tuple(SPOTS0[0]), "r2": tuple(SPOTS0[1]),
             "r3": tuple(SPOTS0[2]), "r4": tuple(SPOTS0[3]), "r5": tuple(SPOTS0[4])}
    st = state(balls)
    st.duty[idx("w1")] = True
    o = stroke(st, lambda b: b.strike("w2", (0.5, 0.0)).rest("w2", (-0.2, 0.3), 1.0), "w2")
    assert o.foul.rule == "G-14" and o.spotted[0][0] == idx("w1") and o.spotted[0][1] == 0
    p = at(o, "w1")
    assert np.hypot(*(p - SPOTS0[2])) == pytest.approx(2 * R, abs=1e-6)


# =============================================================================================
# G-15 blocking
# =============================================================================================


def test_G15_blocking_with_a_valid_goal_in_the_same_stroke():
    """w3 (cue) hits r2 first, then w1 into goal 0 (valid); w3 stops in the great attack
    triangle while r1 stays in its small triangle: G-15 (LT, w3 to a spot), the goal stands."""
    st = state({"w1": (0.6, 0.0), "w2": (-0.3, 0.2), "w3": (0.35, -0.1), "r1": (0.86, 0.0),
                "r2": (0.45, -0.15)})
    o = stroke(st, lambda b: (b.strike("w3", (1.0, -0.2)).ball_ball(0.1, "w3", "r2", (0.39, -0.12))
                              .rest("r2", (0.5, -0.3), 0.9)
                              .ball_ball(0.3, "w3", "w1", (0.54, -0.02)).drop(0.7, "w1", 0)
                              .rest("w3", (0.6, -0.05), 1.0)), "w3")
    assert o.foul.rule == "G-15" and o.foul.balls == (idx("w3"),)
    assert o.scored.tolist() == [1, 0] and not o.turn_kept
    assert spotted(o) == {idx("w3"): 1}


def test_G15_defender_only_in_great_triangle_before_moved_into_small_triangle():
    """'lay in the defender's great or small defence triangle before the stroke and lies in that
    small triangle after it': r1 in the great triangle, knocked into the small one."""
    st = state({"w1": (0.4, 0.05), "w2": (-0.3, 0.2), "r1": (0.6, 0.0), "r2": (-0.3, -0.2)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.1, "w1", "r1", (0.5385, 0.0))
                              .rest("r1", (0.86, 0.0), 0.9).rest("w1", (0.6, 0.02), 1.0)), "w1")
    assert o.foul.rule == "G-15"


def test_G19a_G16_before_G15_at_rest_only_first_penalised():
    """Tie at the end of the stroke: leaving the table (G-16) comes before rest (G-15). Only
    G-16 is penalised: w2 to a spot, w1 stays in the great attack triangle."""
    from test_golf_rules import blocking_state  # noqa: PLC0415
    st = blocking_state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.6, 0.05), 1.0), "w1",
               injected=[off("w2")])
    assert [f.rule for f in o.fouls] == ["G-16", "G-15"] and o.foul.rule == "G-16"
    assert at(o, "w1").tolist() == [0.6, 0.05] and idx("w2") in spotted(o)


# =============================================================================================
# G-16 / G-17 / G-17a / G-17b
# =============================================================================================


def test_G16_two_own_balls_off_cue_ball_placed_first():
    st = state()
    o = stroke(st, lambda b: (b.strike("w3", (1.0, 0.0))
                              .ball_ball(0.1, "w3", "r2", (0.2385, -0.2))),
               "w3", injected=[off("w2", 0.3), off("w3", 0.5)])
    assert o.foul.rule == "G-16" and set(o.foul.balls) == {idx("w2"), idx("w3")}
    assert o.spotted == [(idx("w3"), 1), (idx("w2"), 2)]


def test_G17_with_valid_own_goal_turn_lost_goal_stands():
    """Seed: "Trifft man mit demselben Stoss gueltig ins Tor, verliert man die Aufnahme."
    Opponent's r1 off the table goes into its goal; w1's goal stands; turn lost."""
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0)
                              .ball_ball(0.1, "w2", "r3", (-0.3, 0.2))), "w1",
               injected=[off("r3", 0.6)])
    assert o.foul.rule == "G-17" and o.scored.tolist() == [1, 1] and not o.turn_kept
    assert o.into_goal == [idx("r3")]


def test_G17_option_replace_on_off_table_puts_on_table_balls_back_not_opponent_ball():
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, 0.5)).ball_ball(0.3, "w1", "r1", (0.35, 0.2))
                              .rest("w1", (0.4, 0.3), 1.0)), "w1",
               injected=[off("r1", 0.6)], rules=GolfRules(replace_on_off_table=True))
    assert o.foul.rule == "G-17" and o.into_goal == [idx("r1")]
    assert spotted(o) == {idx("w1"): 1}  # CS after the replacement


def test_G17_rests_on_rail_of_opponent_ball_is_off_the_table():
    """Seed: "Ein Ball, der auf der Bande, der Zielkappe oder deren Abdeckung liegen bleibt,
    gilt als aus dem Billard gespielt."""
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, 0.5)).ball_ball(0.3, "w1", "r1", (0.35, 0.2))
                              .rest("w1", (0.4, 0.3), 1.0)), "w1",
               injected=[{"type": "rests_on_rail", "ball": "r1"}])
    assert o.foul.rule == "G-17" and o.into_goal == [idx("r1")] and o.scored.tolist() == [0, 1]


def test_G17a_at_one_one_off_without_scoring_opponent_wins_too():
    st = state({"w1": (0.5, 0.0), "r1": (0.3, 0.25)})
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, 1.0)).ball_ball(0.1, "w1", "r1", (0.35, 0.2))
                              .rest("w1", (0.4, 0.1), 1.0)), "w1", injected=[off("r1", 0.5)])
    assert o.game_over and o.winner == 1


# =============================================================================================
# G-18 behavioural
# =============================================================================================


def test_G18_touch_with_a_valid_goal_cue_ball_to_spot_goal_undone():
    """Seed (Beruehrung): "der Spielball wird auf die Strafmarke gelegt - auch dann, wenn man
    getroffen hat - und alle anderen verschobenen Baelle werden zurueckgelegt"."""
    st = state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0), "w1",
               injected=[{"type": "foul", "kind": "touch", "time": 0.2}])
    assert o.foul.kind == "touch" and o.scored.tolist() == [0, 0] and not o.turn_kept
    assert spotted(o) == {idx("w1"): 1}


def test_G18_time_with_valid_goal_goal_stands_turn_lost():
    st = state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0), "w1",
               injected=[{"type": "foul", "kind": "time"}])
    assert o.scored.tolist() == [1, 0] and not o.turn_kept


def test_G18_out_of_turn_in_kader_LT_RA_CS_even_with_goal():
    """Seed (Reihenfolge): "... verliert man die Aufnahme und die verschobenen Baelle werden
    zurueckgelegt, selbst wenn getroffen wurde. Beim Spiel im Kader wird der Spielball auf die
    Strafmarke gelegt." """
    duo = GolfRules(duo=True)
    st = state({**KADER, "w1": (0.6, 0.0)}, partner=np.array([1, 0]))
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0), "w1", rules=duo,
               players=0)
    assert o.foul.kind == "out_of_turn" and o.consequences == {"LT", "RA", "CS"}
    assert o.scored.tolist() == [0, 0] and spotted(o) == {idx("w1"): 1}


def test_G18_deflect_opponent_last_ball_into_its_goal_opponent_wins():
    st = state({"w1": (0.5, 0.0), "w2": (-0.3, 0.2), "r1": (0.3, 0.25)})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.7, 0.0), 1.0), "w1",
               injected=[{"type": "foul", "kind": "deflect_opponent_ball", "ball": "r1",
                          "time": 0.3}])
    assert o.into_goal == [idx("r1")] and o.game_over and o.winner == 1


def test_G18_over_caps_kader_cue_ball_to_spot():
    st = state(KADER)
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.5, 0.2), 1.0), "w1",
               injected=[{"type": "foul", "kind": "over_caps_or_balls"}])
    assert o.consequences == {"LT", "RA", "CS"} and spotted(o) == {idx("w1"): 1}


# =============================================================================================
# G-19 jams
# =============================================================================================


def test_G19_own_ball_jammed_in_attack_goal_caps_is_a_valid_goal_last_ball_wins():
    st = state({"w1": (0.6, 0.0), "r1": (0.3, 0.25), "r2": (0.3, -0.25)})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.8, 0.0), 1.0), "w1",
               injected=[{"type": "jam", "ball": "w1", "goal": 0}])
    assert o.scored.tolist() == [1, 0] and o.game_over and o.winner == 0


def test_G19_jam_cap_cushion_freed_no_penalty():
    st = state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.7, 0.0), 1.0), "w1",
               injected=[{"type": "jam", "ball": "r1", "where": "cap_cushion"}])
    assert o.foul is None


# =============================================================================================
# G-20 .. G-26: kader play
# =============================================================================================


def test_G20_stroke_reducing_to_one_ball_is_not_kader_next_is():
    st = state({"w1": (0.6, 0.0), "w2": (-0.3, 0.2), "r1": (0.3, 0.25), "r2": (0.3, -0.25)})
    log = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build()
    o, st1 = play_one(st, log, "w1")
    assert not o.kader and st1.kader and o.turn_kept
    # next stroke (w2 moving inside its kader only): G-21 foul now applies
    log = LogBuilder(st1.xy).strike("w2", (0.1, 0.0)).rest("w2", (-0.25, 0.2), 0.5).build()
    o, st2 = play_one(st1, log, "w2")
    assert o.kader and o.foul.rule == "G-21" and st2.to_move == 1


def test_G21_drop_of_opponent_ball_counts_as_leaving():
    st = state(KADER)
    o = stroke(st, lambda b: (b.strike("w2", (1.0, -1.0)).ball_ball(0.1, "w2", "r1", (-0.25, -0.2))
                              .rest("w2", (-0.25, 0.18), 0.3).drop(0.9, "r1", 1)), "w2")
    assert o.foul is None and o.left_kader and o.game_over and o.winner == 1


def test_G21_foul_with_an_opponent_ball_moved_inside_its_kader_others_stay():
    """G-21: LT, CS; 'all other balls stay' (no RA): r1 nudged inside its kader stays there."""
    st = state(KADER)
    o = stroke(st, lambda b: (b.strike("w2", (0.5, -1.0))
                              .ball_ball(0.05, "w2", "r1", (-0.22, -0.19))
                              .rest("w2", (-0.25, 0.17), 0.3)
                              .rest("r1", (-0.18, -0.28), 0.9)), "w2")
    assert o.foul.rule == "G-21" and o.consequences == {"LT", "CS"}
    assert at(o, "r1").tolist() == [-0.18, -0.28] and spotted(o) == {idx("w2"): 1}


def test_G22_cue_ball_on_the_great_attack_triangle_line_is_not_exempt():
    """Documented: the cue ball must lie strictly inside the great attack triangle."""
    on_base = (0.45, 0.1)  # on the base line x = 0.45 of goal 0's great triangle
    st = state({**KADER, "w1": on_base})
    o = stroke(st, lambda b: b.strike("w1", (0.0, 1.0)).rest("w1", (0.45, 0.1005), 0.5), "w1")
    assert o.foul is not None and o.foul.rule == "G-21"


def test_G22_exempt_cue_ball_in_great_attack_triangle_side1():
    st = state({"w1": (0.3, 0.2), "w2": (-0.3, 0.2), "r1": (-0.7, 0.0)}, to_move=1)
    o = stroke(st, lambda b: b.strike("r1", (-1.0, 0.1)).rest("r1", (-0.72, 0.002), 0.5), "r1")
    assert o.foul is None and o.left_kader is None


def test_G25_time_in_kader_agent_pick():
    st = state(KADER, to_move=0)
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.5, 0.2), 1.0), "w1",
               injected=[{"type": "foul", "kind": "aiming_behind_opponent"}],
               rules=GolfRules(pick_policy="agent"), choices={"pick": "w2"})
    assert o.consequences == {"LT", "PICK"} and spotted(o) == {idx("w2"): 1}


def test_G26_two_consecutive_kader_fouls_from_spots_rotate_1_2_3():
    """Flow: side 0's cue ball on spot 1 fouls (G-21) -> spot 2; later, again from spot 2 ->
    spot 3 (spots 1 and 2 fouled)."""
    s1 = tuple(SPOTS0[0])
    st = state({"w1": s1, "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    st.on_spot[idx("w1")] = 1
    log = LogBuilder(st.xy).strike("w1", (-0.1, 0.0)).rest("w1", (s1[0] - 0.002, s1[1]), 0.2)
    o, st1 = play_one(st, log.build(), "w1")
    assert o.foul.rule == "G-21" and o.spotted == [(idx("w1"), 2)]
    assert st1.on_spot[idx("w1")] == 2 and st1.fouled_spots[0, :2].tolist() == [True, False]
    st1 = st1.copy()
    st1.to_move = 0
    s2 = tuple(SPOTS0[1])
    log = LogBuilder(st1.xy).strike("w1", (-0.1, 0.0)).rest("w1", (s2[0] - 0.002, s2[1]), 0.2)
    o, st2 = play_one(st1, log.build(), "w1")
    assert o.foul.rule == "G-21" and o.spotted == [(idx("w1"), 3)]


def test_G27_G29_side1_spots_are_rotated():
    assert np.allclose(SPOTS1, -SPOTS0)
    assert np.allclose(SPOTS0, [(0.86925, 0.09387), (0.86925, -0.09387), (0.04175, 0.0),
                                (-0.01741, 0.135), (-0.01741, -0.135)])


# =============================================================================================
# G-31 duo
# =============================================================================================


def test_G31_partner_continues_while_scoring_then_alternates():
    duo = GolfRules(duo=True)
    st = GolfState.with_balls({"w1": (0.6, 0.0), "w2": (-0.2, 0.1), "w3": (-0.4, 0.3),
                               "r1": (0.2, -0.1), "r2": (-0.2, -0.1)}, partner=np.array([0, 0]))
    log = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build()
    o, st1 = play_one(st, log, "w1", duo, players=[0])
    assert o.turn_kept and st1.partner.tolist() == [0, 0]
    log = LogBuilder(st1.xy).strike("w2", (0.1, 0.0)).rest("w2", (-0.19, 0.1), 0.5).build()
    o, st2 = play_one(st1, log, "w2", duo, players=[0])  # still partner 0 in the same turn
    assert o.foul is None and st2.to_move == 1 and st2.partner.tolist() == [1, 0]
    log = LogBuilder(st2.xy).strike("r1", (0.1, 0.0)).rest("r1", (0.21, -0.1), 0.5).build()
    o, st3 = play_one(st2, log, "r1", duo, players=[0])
    assert o.foul is None and st3.partner.tolist() == [1, 1] and st3.to_move == 0
    log = LogBuilder(st3.xy).strike("w2", (0.1, 0.0)).rest("w2", (-0.18, 0.1), 0.5).build()
    o, _ = play_one(st3, log, "w2", duo, players=[0])  # partner 1 of side 0 is due
    assert o.foul.kind == "out_of_turn"


def test_G31_second_game_other_partner_opens_via_play():
    duo = GolfRules(duo=True)
    st = new_match(duo, openers=(1, 0))
    st = GolfState.with_balls({"w1": (0.6, 0.0), "r1": (0.3, 0.25)}, partner=np.array([0, 1]),
                              openers=np.array([1, 0]), first_openers=np.array([1, 0]))
    log = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build()
    o, st1 = play_one(st, log, "w1", duo, players=[0])
    assert st1.phase == "opening" and st1.game_no == 1
    assert st1.openers.tolist() == [0, 1] and st1.partner.tolist() == [0, 1]


# =============================================================================================
# more combinations
# =============================================================================================


def test_G3_G4_opening_at_one_ball_each_both_score_first_drop_wins():
    """After four double scores (1/1), the fifth opening: both last balls drop; by G-4 the side
    whose last ball dropped first wins (r dropped at 1.5, w at 1.6)."""
    st = GolfState.with_balls({"w5": tuple(GEO.start[4]), "r5": tuple(GEO.start[9])},
                              phase="opening", kader=True)
    log = (LogBuilder(st.xy).strike("w5", (1.0, 0.0)).strike("r5", (-1.0, 0.0))
           .drop(1.6, "w5", 0).drop(1.5, "r5", 1).build())
    outs, new = play_strokes([st], log, [[idx("w5"), idx("r5")]])
    assert outs[0].game_over and outs[0].winner == 1
    assert new[0].games_won.tolist() == [0, 1]


def test_G15_shooter_ball_on_the_great_triangle_line_counts_inside():
    """Spec: on the great triangle's line counts as inside for G-15, both sides."""
    from test_golf_rules import blocking_state  # noqa: PLC0415
    st = blocking_state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, -0.3)).rest("w1", (0.4505, 0.0), 1.0), "w1")
    assert o.foul is not None and o.foul.rule == "G-15"


def test_G15_side1_mirror():
    st = state({"r1": (-0.3, -0.1), "r2": (0.3, -0.2), "w1": (-0.86, 0.0), "w2": (0.3, 0.2)},
               to_move=1)
    o = stroke(st, lambda b: b.strike("r1", (-1.0, 0.0)).rest("r1", (-0.6, -0.05), 1.0), "r1")
    assert o.foul.rule == "G-15" and spotted(o) == {idx("r1"): 1}
    assert np.allclose(at(o, "r1"), SPOTS1[0])


def test_G23_shooter_ball_from_great_triangle_into_corner_leaves_its_kader():
    """G-23 merges only for the defender; the shooter's own ball moving from the great attack
    triangle (kader 11) into a corner (kader 10) has left its kader."""
    st = state({"w1": (0.3, 0.1), "w2": (0.5, 0.1), "r1": (-0.5, -0.2)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0))
                              .ball_ball(0.2, "w1", "w2", (0.4385, 0.1), (0.5, 0.1))
                              .rest("w1", (0.4385, 0.1), 0.3).rest("w2", (0.85, 0.3), 1.0)), "w1")
    # w1 first hits own w2: G-12 is the first foul; use a cushion first instead
    st = state({"w1": (0.3, 0.3), "w2": (0.5, 0.1), "r1": (-0.5, -0.2)})
    o = stroke(st, lambda b: (b.strike("w1", (0.3, 1.0)).cushion(0.1, "w1", 2, (0.33, 0.41925))
                              .ball_ball(0.4, "w1", "w2", (0.45, 0.15), (0.5, 0.1))
                              .rest("w1", (0.45, 0.2), 0.6).rest("w2", (0.85, 0.3), 1.0)), "w1")
    assert o.foul is None and o.left_kader


def test_G13_exception_side1_outer_side_cap():
    import math
    cap = GEO.caps[ZS.outer_side_caps[1]]  # (0, -0.18)
    a = math.radians(-100)  # beyond the cap's axis toward goal 1 (x < 0)
    p = cap + (R + GEO.r_cap + 0.0002) * np.array([math.cos(a), math.sin(a)])
    st = state({**BASE, "r1": tuple(p), "r2": (0.3, 0.1)}, to_move=1)
    o = stroke(st, lambda b: b.strike("r1", toward(p, GOAL1, 1.0)).rest("r1", (-0.5, -0.1), 1.0),
               "r1")
    assert o.foul is None


def test_G11_vliegeren_in_kader_from_spot_G26():
    """Kader play, cue ball on spot 1 ... (spot 1 is not in the strip); instead: G-11 in kader
    gives LT RA CS and the cue ball goes to spot 1."""
    st = state({**KADER, "w1": (0.0, 0.40)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.3)).cushion(0.05, "w1", 2, (0.05, 0.41925))
                              .rest("w1", (0.8, 0.3), 1.0)), "w1")
    assert o.kader and o.foul.rule == "G-11" and spotted(o) == {idx("w1"): 1}


def test_G17_in_kader_from_spot_G26_moves_cue_ball_to_spot_2():
    s1 = tuple(SPOTS0[0])
    st = state({"w1": s1, "w2": (-0.3, 0.2), "r1": (0.3, 0.25), "r2": (0.3, -0.25)}, kader=True)
    st.on_spot[idx("w1")] = 1
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, 0.3)).ball_ball(0.5, "w1", "r1", (0.36, 0.22))
                              .rest("w1", (0.4, 0.2), 1.0)), "w1", injected=[off("r1", 0.8)])
    assert o.foul.rule == "G-17" and o.into_goal == [idx("r1")]
    assert o.spotted == [(idx("w1"), 2)]


def test_G8_in_kader_own_goal_ball_spotted():
    st = state({"w1": (0.3, 0.0), "w2": (-0.6, 0.0), "r1": (-0.2, -0.25)})
    o = stroke(st, lambda b: b.strike("w2", (-1.0, 0.0)).drop(0.4, "w2", 1), "w2")
    assert o.kader and o.foul.rule == "G-8" and spotted(o) == {idx("w2"): 1}
    assert o.left_kader  # a dropped ball has left (G-21 not a foul)


def test_G14_and_kader_duty_both_ok_then_G14_at_turn_end():
    st = state({"w1": (-0.8, 0.0), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)})
    st.duty[idx("w1")] = True
    o = stroke(st, lambda b: b.strike("w2", (1.0, 0.0)).rest("w2", (0.2, 0.2), 1.0), "w2")
    assert o.kader and o.left_kader and o.foul.rule == "G-14"
    assert spotted(o) == {idx("w1"): 1} and at(o, "w2").tolist() == [-0.3, 0.2]


def test_G30_random_policy_only_free_spots_1_to_3():
    st = _three_duty(spot1_ball="r1")
    seen = set()
    for seed in range(12):
        st.seed = seed
        o = stroke(st, lambda b: b.strike("w2", (0.5, 0.0)).rest("w2", (0.0, 0.2), 1.0), "w2",
                   rules=GolfRules(spot_policy="random"))
        ks = [k for _, k in o.spotted]
        assert 1 not in ks and ks[-1] in (2, 3, 4)
        seen.update(ks)
    assert 4 in seen  # the third ball has to take spot 4 (1 occupied, 2 and 3 taken)


def test_G24_kader_layout_points():
    """G-24 (layout of the spec): strips 1-3 / 13-15, triangles 5 / 11, corners 4, 6 / 10, 12,
    central blocks 7 / 9 and the bos 8."""
    pts = np.array([(-0.6, 0.4), (0.0, 0.4), (0.6, 0.4), (-0.6, -0.4), (0.0, -0.4), (0.6, -0.4),
                    (-0.7, 0.0), (0.7, 0.0), (-0.2, 0.2), (0.2, 0.2), (0.0, 0.0), (-0.8, 0.3),
                    (-0.8, -0.3), (0.8, 0.3), (0.8, -0.3)])
    k = ZS.kader_of(pts)
    assert k[:6].tolist() == [1, 2, 3, 13, 14, 15]
    assert k[6:11].tolist() == [5, 11, 7, 9, 8]
    assert sorted(k[11:13].tolist()) == [4, 6] and sorted(k[13:].tolist()) == [10, 12]


def test_G6a_opponent_ball_falling_after_rest_no_goal_back_on_rim():
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (-0.5, 0.5)).ball_ball(0.3, "w1", "r1", (0.35, 0.2))
                              .rest("w1", (0.3, 0.2), 0.8).rest("r1", (0.86, 0.0), 1.0)
                              .drop(2.0, "r1", 0)), "w1")
    assert o.scored.tolist() == [0, 0] and at(o, "r1").tolist() == [0.86, 0.0]


def test_G10a_any_direction_side1():
    p = (-0.6, -0.2)
    st = state({**BASE, "r1": p}, to_move=1)

    def build(b):
        return b.strike("r1", (0.0, -2.5)).rest("r1", (-0.6, -0.35), 1.0)

    assert stroke(st, build, "r1").foul is None
    assert stroke(st, build, "r1", rules=GolfRules(any_direction=True)).foul.rule == "G-10"


def test_G17b_opponent_ball_over_the_rail_and_back_not_penalised():
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (-0.5, 0.5)).ball_ball(0.3, "w1", "r1", (0.35, 0.2))
                              .rest("w1", (0.3, 0.2), 0.8).rest("r1", (0.2, 0.4), 1.0)), "w1",
               injected=[{"type": "rail_return", "ball": "r1"}])
    assert o.foul is None and o.scored.tolist() == [0, 0]


def test_G4_G17_my_last_ball_scored_and_a_non_last_opponent_ball_off_I_win():
    """Documented reading (CS does nothing on a validly scored cue ball): my last ball w1
    drops validly and r1 (not side 1's last) is played off: G-17 is penalised, r1 into its
    goal, and I have all 5 scored -> I win."""
    st = state({"w1": (0.5, 0.0), "r1": (0.3, 0.25), "r2": (0.3, -0.25)})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.5, "w1", 0), "w1",
               injected=[off("r1", 0.4)])
    assert o.foul.rule == "G-17" and o.game_over and o.winner == 0


def test_G3_G4_opening_at_one_each_only_side0_scores_side0_wins():
    st = GolfState.with_balls({"w5": tuple(GEO.start[4]), "r5": tuple(GEO.start[9])},
                              phase="opening", kader=True)
    log = (LogBuilder(st.xy).strike("w5", (1.0, 0.0)).strike("r5", (-1.0, 0.0))
           .drop(1.6, "w5", 0).rest("r5", (-0.5, -0.3), 2.0).build())
    outs, new = play_strokes([st], log, [[idx("w5"), idx("r5")]])
    assert outs[0].game_over and outs[0].winner == 0 and new[0].games_won.tolist() == [1, 0]


def test_cli_hand_log_G8_with_valid_goal_matches_python():
    """The JSON / CLI path (score_cli with a hand_log) gives the G-8 call: LT, w3 spotted, w1's
    goal stands, side 1 to move."""
    from cuegym.rules import golfbillard as G  # noqa: PLC0415
    st = state({**BASE, "w3": (-0.5, 0.0)})
    out = G.score_cli({"state": st.to_json(), "strike": {"ball": "w3", "V0": 1.0, "phi": 180.0},
                       "hand_log": {"events": [
                           {"type": "strike", "ball": "w3", "v": [-1.0, 0.0]},
                           {"type": "drop", "t": 0.3, "ball": "w3", "goal": "goal_minus_x"},
                           {"type": "ball_ball", "t": 0.1, "a": "w1", "b": "r1",
                            "at_a": [0.45, 0.0]},
                           {"type": "drop", "t": 0.6, "ball": "w1", "goal": "goal_plus_x"}]}})
    oc = out["outcome"]
    assert oc["foul"] == "G-8" and oc["scored"] == [1, 0] and not oc["turn_kept"]
    assert oc["spotted"] == [{"ball": "w3", "spot": 1}] and out["state"]["to_move"] == 1
