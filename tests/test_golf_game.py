"""Golfbillard game flow on hand-written logs: opening (G-3), turns (G-1, G-14), duos (G-31),
kader phase (G-20), no progress (G-5), matches (G-4), the state JSON and the score CLI."""

import copy
import json
import subprocess
import sys

import numpy as np
import pytest

from cuegym.rules import golfbillard as G
from cuegym.rules.golfbillard import (
    GolfRules,
    GolfState,
    LogBuilder,
    defence_duty,
    golf_geometry,
    score_stroke,
)
from cuegym.rules.golfbillard_game import (
    finish_game,
    new_match,
    opening_balls,
    play_strokes,
    score_opening,
)

GEO = golf_geometry()
W1, R1 = 0, 5


def idx(name):
    return GEO.ball_ids.index(name)


def opening_log(st, w_end, r_end, w_drop=None, r_drop=None):
    b = LogBuilder(st.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
    b = b.cushion(0.5, "w1", 2, (-0.3, 0.41925)).cushion(0.5, "r1", 0, (0.3, -0.41925))
    b = b.drop(1.5, "w1", w_drop) if w_drop is not None else b.rest("w1", w_end, 2.0)
    b = b.drop(1.6, "r1", r_drop) if r_drop is not None else b.rest("r1", r_end, 2.0)
    return b.build()


def play_one(st, log, cue_ball, rules=None, **kw):
    outs, new = play_strokes([st], log, [cue_ball], rules=rules or GolfRules(), **kw)
    return outs[0], new[0]


# --- G-3: the opening -------------------------------------------------------------------------


def test_G3_opening_nearer_ball_takes_the_first_turn():
    st = new_match()
    assert st.phase == "opening" and opening_balls(st) == (W1, R1)
    log = opening_log(st, (0.5, 0.1), (-0.6, -0.1))
    o = score_opening(st, log, ("w1", "r1"))
    assert o.crossed == (True, True) and o.first == 1 and not o.repeat
    outs, new = play_strokes([st], log, [[W1, R1]])
    assert new[0].phase == "play" and new[0].to_move == 1 and new[0].stroke_no == 1
    assert np.allclose(new[0].xy[W1], (0.5, 0.1))


def test_G3_ball_not_crossing_x0_loses_neither_crossing_repeats():
    st = new_match()
    b = (LogBuilder(st.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
         .rest("w1", (-0.1, 0.3), 2.0).rest("r1", (-0.7, -0.1), 2.0))
    o = score_opening(st, b.build(), (W1, R1))
    assert o.crossed == (False, True) and o.first == 1
    b = (LogBuilder(st.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
         .rest("w1", (-0.1, 0.3), 2.0).rest("r1", (0.1, -0.3), 2.0))
    outs, new = play_strokes([st], b.build(), [[W1, R1]])
    assert outs[0].repeat and outs[0].replaced and new[0].phase == "opening"
    assert np.allclose(new[0].xy, st.xy)  # balls back


def test_G3_equal_distances_repeat():
    st = new_match()
    o = score_opening(st, opening_log(st, (0.5, 0.1), (-0.5, -0.1)), (W1, R1))
    assert o.repeat and o.replaced and o.first == -1


def test_G3_G31_scoring_the_opening_ball_takes_the_turn_and_the_opener_continues():
    rules = GolfRules(duo=True)
    st = new_match(rules, openers=(1, 0))
    log = opening_log(st, None, (-0.6, -0.1), w_drop=0)
    outs, new = play_strokes([st], log, [[W1, R1]], players=[[1, 0]], rules=rules)
    assert outs[0].scored == (True, False) and outs[0].first == 0
    n = new[0]
    assert n.to_move == 0 and n.balls_left.tolist() == [4, 5] and n.turn_scored
    assert n.partner.tolist() == [1, 1]  # opener 1 of side 0 continues; side 1: its 2nd partner


def test_G3_G1_the_observation_says_the_turn_continues_after_a_scored_opening():
    """turn_continues read turn_strokes > 0, which is 0 after a scored opening, though the
    opener keeps the turn with a goal to its name (G-3)."""
    from cuegym.games.golf import Golf
    from cuegym.games.golf_obs import OBS_INDEX

    rules = GolfRules()
    st = new_match(rules)
    log = opening_log(st, None, (-0.6, -0.1), w_drop=0)
    _, new = play_strokes([st], log, [[W1, R1]], rules=rules)
    assert new[0].to_move == 0 and new[0].turn_scored and new[0].turn_strokes == 0
    g = Golf(rules)
    batch = g.batch(new)
    mine = g.observe(batch, [0])[0]
    theirs = g.observe(batch, [1])[0]
    assert mine[OBS_INDEX["turn_continues"]] == 1.0
    assert theirs[OBS_INDEX["turn_continues"]] == 0.0


def test_G31_opening_won_by_distance_continues_with_the_second_partner():
    rules = GolfRules(duo=True)
    st = new_match(rules, openers=(1, 0))
    outs, new = play_strokes([st], opening_log(st, (0.7, 0.1), (-0.3, -0.1)), [[W1, R1]],
                             players=[[1, 0]], rules=rules)
    assert outs[0].first == 0 and new[0].partner.tolist() == [0, 1]


def test_G31_wrong_opener_loses_the_opening():
    rules = GolfRules(duo=True)
    st = new_match(rules, openers=(1, 0))
    outs, new = play_strokes([st], opening_log(st, (0.7, 0.1), (-0.3, -0.1)), [[W1, R1]],
                             players=[[0, 0]], rules=rules)
    o = outs[0]
    assert o.fouls[0].kind == "wrong_opener" and o.first == 1
    assert (W1, 1) in o.spotted


def _opening_foul(kind, w_end=None, **event):
    """The opening of a new match with side 0's G-18 foul ``kind`` injected; w1 drops into its
    attack goal (``w_end`` None) or stops at ``w_end``, r1 stops short of its attack goal."""
    st = new_match()
    log = opening_log(st, w_end, (-0.3, -0.1), w_drop=0 if w_end is None else None)
    outs, new = play_strokes([st], log, [[W1, R1]],
                             injected=[[{"type": "foul", "kind": kind, "time": 0.0, **event}]])
    return st, outs[0], new[0]


def test_G3_G18_touch_in_the_opening_puts_the_ball_back_and_on_a_penalty_spot():
    """LT: side 0 loses the opening, its goal does not count (RA) and w1 goes to its spot 1
    (CS, "auch dann, wenn man getroffen hat")."""
    st, o, n = _opening_foul("touch", side=0)
    assert o.first == 1 and not o.repeat and o.scored_balls == []
    assert o.spotted == [(W1, 1)] and n.balls_left.tolist() == [5, 5]


def test_G3_G18_foot_off_floor_in_the_opening_puts_the_ball_back_where_it_lay():
    st, o, n = _opening_foul("foot_off_floor", ball="w1")  # the ball names the side
    assert o.first == 1 and o.scored_balls == [] and o.spotted == []
    assert np.allclose(n.xy[W1], st.xy[W1]) and n.balls_left.tolist() == [5, 5]


def test_G3_G18_a_ball_that_cannot_go_back_goes_to_a_penalty_spot():
    """RA would put w1 back on its start spot, where side 1's opening ball now lies: w1 goes
    to a penalty spot instead (the other side's stroke stands)."""
    st = new_match()
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
           .rest("w1", (0.5, 0.1), 2.0).rest("r1", (-0.825, 0.0), 2.0).build())
    outs, new = play_strokes([st], log, [[W1, R1]], injected=[[
        {"type": "foul", "kind": "foot_off_floor", "time": 0.0, "side": 0}]])
    o, n = outs[0], new[0]
    assert o.first == 1 and o.spotted == [(W1, 1)]
    assert np.allclose(n.xy[R1], (-0.825, 0.0)) and n.balls_left.tolist() == [5, 5]


def test_G3_G18_time_in_the_opening_loses_it_and_the_goal_stands():
    st, o, n = _opening_foul("time", side=0)  # LT only: nothing is put back
    assert o.first == 1 and o.scored_balls == [W1] and n.balls_left.tolist() == [4, 5]


def test_G3_G18_consultation_in_the_opening_changes_nothing():
    """The foul without consequences: side 0 scored its opening ball and takes the turn."""
    st, o, n = _opening_foul("consultation", side=0)
    assert o.fouls[0].kind == "consultation" and o.first == 0 and o.scored == (True, False)


def test_G3_G18_deflect_in_the_opening_needs_its_side_and_applies_its_letters():
    with pytest.raises(ValueError, match="a deflect foul.*needs its side"):
        _opening_foul("deflect_opponent_ball", w_end=(0.5, 0.1), ball="r3")
    # LT RF CS GOAL: r3 into its goal (scored for side 1), w1 to a penalty spot
    st, o, n = _opening_foul("deflect_opponent_ball", w_end=(0.5, 0.1), ball="r3", side=0)
    assert o.first == 1 and o.scored_balls == [idx("r3")] and (W1, 1) in o.spotted
    assert n.balls_left.tolist() == [5, 4]
    # LT RF SPOT: the touched own ball to a penalty spot, w1 stays where it stopped
    st, o, n = _opening_foul("deflect_own_ball", w_end=(0.5, 0.1), ball="w3", side=0)
    assert o.first == 1 and o.spotted == [(idx("w3"), 1)] and np.allclose(n.xy[W1], (0.5, 0.1))


def _opening_with(st, w_ball, r_ball, w_end, r_end, w_drop=None):
    b = LogBuilder(st.xy).strike(w_ball, (1.0, 0.6)).strike(r_ball, (-1.0, -0.6))
    b = b.drop(1.5, w_ball, w_drop) if w_drop is not None else b.rest(w_ball, w_end, 2.0)
    return b.rest(r_ball, r_end, 2.0).build()


def test_G3_only_the_middle_ball_may_open_another_ball_loses_the_opening():
    st = new_match()
    # side 0 strikes w2 (not its middle ball): it loses the opening although w2 stops nearer
    log = _opening_with(st, "w2", "r1", (0.7, 0.3), (-0.3, -0.1))
    o = score_opening(st, log, ("w2", "r1"))
    assert o.first == 1 and not o.repeat and o.fouls[0].rule == "G-3"
    assert o.fouls[0].kind == "wrong_opening_ball" and o.fouls[0].balls == (idx("w2"),)
    assert np.allclose(o.xy[idx("w2")], (0.7, 0.3))  # not spotted, not put back
    # the same for side 1
    o = score_opening(st, _opening_with(st, "w1", "r3", (0.3, 0.1), (-0.78, 0.0)), ("w1", "r3"))
    assert o.first == 0 and [f.rule for f in o.fouls] == ["G-3"]
    # a wrong ball that drops counts as a goal for its side, but is no opening score
    o = score_opening(st, _opening_with(st, "w2", "r1", None, (-0.3, -0.1), w_drop=0),
                      ("w2", "r1"))
    assert o.scored == (False, False) and o.first == 1 and idx("w2") in o.scored_balls
    # both sides strike a wrong ball: nobody opened validly, balls back, repeat
    outs, new = play_strokes([st], _opening_with(st, "w2", "r2", (0.3, 0.1), (-0.3, -0.1)),
                             [[idx("w2"), idx("r2")]])
    assert outs[0].repeat and outs[0].replaced and new[0].phase == "opening"
    assert np.allclose(new[0].xy, st.xy)


def test_G3_both_score_repeat_with_another_ball():
    st = new_match()
    outs, new = play_strokes([st], opening_log(st, None, None, w_drop=0, r_drop=1), [[W1, R1]])
    assert outs[0].repeat and not outs[0].replaced
    n = new[0]
    assert n.phase == "opening" and n.balls_left.tolist() == [4, 4]
    assert opening_balls(n) == (idx("w2"), idx("r2"))  # what opening_strike plays
    # "another ball each": with the middle balls scored, any own ball may open the repeat
    o = score_opening(n, _opening_with(n, "w3", "r2", (0.5, 0.1), (-0.3, -0.1)), ("w3", "r2"))
    assert o.fouls == [] and o.first == 0
    o = score_opening(n, _opening_with(n, "w2", "r5", (0.3, 0.1), (-0.5, -0.1)), ("w2", "r5"))
    assert o.fouls == [] and o.first == 1


def test_G3_G6a_an_opening_ball_that_falls_after_rest_is_no_opening_score():
    """G-6a in the opening: w1 that dropped only after it came to rest (injected, or a log
    whose drop follows its rest) scores nothing and goes back on the rim, where it lies nearer
    its goal than r1 does to its own: side 0 takes the first turn."""
    st = new_match()
    gx, gy, r = GEO.goals[0]
    by_event = score_opening(st, _opening_with(st, "w1", "r1", None, (-0.3, -0.1), w_drop=0),
                             ("w1", "r1"), injected=[{"type": "fall_after_rest", "ball": "w1"}])
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
           .rest("w1", (gx - r - 0.001, gy), 1.4).drop(1.5, "w1", 0)
           .rest("r1", (-0.3, -0.1), 2.0).build())
    by_log = score_opening(st, log, ("w1", "r1"))
    for o, where in ((by_event, (gx - r, gy)), (by_log, (gx - r - 0.001, gy))):
        assert o.scored == (False, False) and idx("w1") not in o.scored_balls
        assert np.allclose(o.xy[idx("w1")], where) and o.first == 0
        assert any("G-6a: w1 fell after coming to rest" in n for n in o.notes)


def test_G3_a_middle_ball_on_a_penalty_spot_still_is_the_only_opener():
    """G-3: "only the middle ball (w1, r1) may open", wherever it lies (here on a penalty
    spot after an opening both sides lost), not the ball nearest its start spot."""
    st = new_match()
    moved = copy.deepcopy(st)
    moved.xy[W1] = (0.3, 0.35)  # w1 off its start spot: w2 lies nearest that spot now
    assert opening_balls(moved) == (W1, R1)
    o = score_opening(moved, _opening_with(moved, "w2", "r1", (0.5, 0.1), (-0.3, -0.1)),
                      ("w2", "r1"))
    assert [f.rule for f in o.fouls] == ["G-3"] and o.first == 1


def test_G3_G20_repeats_down_to_one_ball_each_start_kader_play():
    """Four double scores leave one ball a side: the fifth opening starts in kader play, and
    the state says so (a state at one ball with kader off is refused as inconsistent)."""
    st = new_match()
    for _ in range(4):
        assert not st.kader
        wb, rb = opening_balls(st)
        w, r = GEO.ball_ids[wb], GEO.ball_ids[rb]
        log = (LogBuilder(st.xy).strike(w, (1.0, 0.0)).strike(r, (-1.0, 0.0))
               .drop(0.5, w, 0).drop(0.6, r, 1).build())
        outs, new = play_strokes([st], log, [[wb, rb]])
        assert outs[0].repeat
        st = new[0]
    assert st.phase == "opening" and st.balls_left.tolist() == [1, 1] and st.kader
    assert GolfState.from_json(st.to_json()).kader

def test_G3_option_alternate_side_0_starts_every_game():
    rules = GolfRules(opening="alternate")
    st = new_match(rules)
    assert st.phase == "play" and st.to_move == 0
    assert st.duty.tolist() == [True] + [False] * 9  # G-14: w1 lies in its defence triangle
    st2 = finish_game(st, 0, rules)
    assert st2.game_no == 1 and st2.phase == "play" and st2.to_move == 0
    st3 = finish_game(st2, 1, rules)  # the winner of game 2 does not matter either
    assert st3.game_no == 2 and st3.phase == "play" and st3.to_move == 0


# --- G-1, G-14 over a turn --------------------------------------------------------------------

MID = {"w1": (0.5, 0.0), "w2": (-0.8, 0.0), "w3": (-0.3, 0.3), "r1": (0.3, 0.25),
       "r2": (0.3, -0.25), "r3": (-0.1, -0.3)}


def test_G1_G14_duty_runs_over_the_whole_turn():
    st = GolfState.with_balls(MID)
    st.duty[idx("w2")] = True
    log = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build()
    o1, st1 = play_one(st, log, "w1")
    assert o1.turn_kept and not o1.duty_met and st1.to_move == 0 and st1.turn_strokes == 1
    assert st1.duty[idx("w2")] and not st1.duty_met
    log = LogBuilder(st1.xy).strike("w3", (1.0, 0.0)).rest("w3", (0.0, 0.3), 1.0).build()
    o2, st2 = play_one(st1, log, "w3")
    assert o2.foul.rule == "G-14" and st2.to_move == 1
    assert st2.balls_left.tolist() == [2, 3]  # the first stroke's goal stands
    assert np.allclose(st2.xy[idx("w3")], (-0.3, 0.3))  # RA for the last stroke only
    assert np.allclose(st2.xy[idx("w2")], GEO.zones.penalty_spots[0][0])
    assert st2.on_spot[idx("w2")] == 1


def test_G14_duty_met_early_in_the_turn_is_kept():
    st = GolfState.with_balls(MID)
    st.duty[idx("w2")] = True
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0)
           .ball_ball(0.1, "w2", "w3", (-0.8, 0.0)).rest("w2", (-0.3, 0.0), 1.0).build())
    o1, st1 = play_one(st, log, "w1")
    assert o1.duty_met and st1.duty_met
    log = LogBuilder(st1.xy).strike("w3", (1.0, 0.0)).rest("w3", (0.0, 0.3), 1.0).build()
    o2, st2 = play_one(st1, log, "w3")
    assert o2.foul is None and st2.to_move == 1


def test_G4_G14_a_stroke_that_ends_the_game_is_not_followed_by_the_duty_check():
    """The turn's last stroke (no foul) plays the opponent's last ball into a goal (G-7): the
    game is over (G-4) and the unmet duty of w1 is not checked, which would undo it by RA."""
    st = GolfState.with_balls({"w1": (-0.8, 0.0), "w2": (-0.3, 0.2), "w3": (0.3, -0.2),
                               "r1": (-0.6, 0.25)})
    st.duty[idx("w1")] = True
    log = (LogBuilder(st.xy).strike("w2", (-1.0, 0.0))
           .ball_ball(0.2, "w2", "r1", (-0.55, 0.2), (-0.6, 0.25))
           .drop(0.6, "r1", 1).rest("w2", (-0.5, 0.15), 1.0).build())
    o, st1 = play_one(st, log, "w2")
    assert o.foul is None and not o.duty_met
    assert o.game_over and o.winner == 1 and st1.games_won.tolist() == [0, 1]

def test_G14_new_turn_records_the_defenders_duty():
    st = GolfState.with_balls({**MID, "r3": (0.8, 0.0)})
    log = LogBuilder(st.xy).strike("w3", (1.0, 0.0)).rest("w3", (0.0, 0.3), 1.0).build()
    o, st1 = play_one(st, log, "w3")
    assert st1.to_move == 1 and st1.duty.tolist() == [i == idx("r3") for i in range(10)]


# --- G-20 -------------------------------------------------------------------------------------


def test_G20_kader_play_stays_on_once_started():
    st = GolfState.with_balls({"w1": (0.5, 0.0), "w2": (-0.3, 0.3), "r1": (0.3, 0.25),
                               "r2": (0.3, -0.25)})
    log = (LogBuilder(st.xy).strike("w1", (-1.0, 1.0)).ball_ball(0.1, "w1", "r1", (0.35, 0.2))
           .rest("w1", (0.35, 0.2), 0.3).drop(0.9, "r1", 1).build())
    o, st1 = play_one(st, log, "w1")
    assert not o.kader and st1.kader and st1.balls_left.tolist() == [2, 1]
    st1.xy[idx("r3")] = (-0.6, -0.3)  # even with two balls again (a spotted ball), it stays on
    log = LogBuilder(st1.xy).strike("r2", (-1.0, 0.0)).rest("r2", (0.2, -0.25), 1.0).build()
    o, st2 = play_one(st1, log, "r2")
    assert o.kader and st2.kader


# --- G-5 no progress --------------------------------------------------------------------------


def miss(st):
    s = st.to_move
    b = int(np.flatnonzero((np.arange(10) // 5 == s) & st.on_table)[0])
    p = st.xy[b]
    end = p + (0.002, 0.0) if p[0] < 0 else p - (0.002, 0.0)
    log = LogBuilder(st.xy).strike(b, (0.1, 0.0)).rest(b, end, 0.5).build()
    return log, b


def test_G5_no_progress_ends_the_game_as_a_draw():
    rules = GolfRules(no_progress_turns=2, no_progress_window=1, match="single")
    st = GolfState.with_balls({"w1": (0.2, 0.1), "w2": (-0.2, 0.1), "r1": (0.2, -0.1),
                               "r2": (-0.2, -0.1)})
    for k in range(3):
        log, b = miss(st)
        o, st = play_one(st, log, b, rules)
        assert st.phase == "play" and st.turns == k + 1
    log, b = miss(st)
    o, st = play_one(st, log, b, rules)  # 4 turns: 2 scoreless ones after the limit
    assert st.phase == "over" and st.winner == 2 and st.match_winner == 2


def test_G5_not_applied_in_kader_play():
    rules = GolfRules(no_progress_turns=0, no_progress_window=1, match="single")
    st = GolfState.with_balls({"w1": (0.2, 0.1), "w2": (-0.2, 0.1), "r1": (0.2, -0.1)})
    for _ in range(6):
        log, b = miss(st)
        o, st = play_one(st, log, b, rules)  # G-21 fouls (nothing leaves its kader)
    assert st.phase == "play" and st.idle_turns == 0


# --- G-4 matches ------------------------------------------------------------------------------


def test_G4_best_of_three_and_G31_openers_per_game():
    rules = GolfRules(duo=True, deciding_openers=(1, 1))
    st = new_match(rules, openers=(0, 1))
    st = finish_game(st, 0, rules)
    assert st.games_won.tolist() == [1, 0] and st.game_no == 1 and st.phase == "opening"
    assert st.openers.tolist() == [1, 0]  # G-31: the other partner opens game 2
    assert np.allclose(st.xy, GEO.start)
    st = finish_game(st, 1, rules)
    assert st.openers.tolist() == [1, 1] and st.game_no == 2  # deciding game: configured
    st = finish_game(st, 1, rules)
    assert st.phase == "over" and st.match_winner == 1 and st.games_won.tolist() == [1, 2]


def test_G4_single_game_match():
    rules = GolfRules(match="single")
    st = finish_game(new_match(rules), 1, rules)
    assert st.phase == "over" and st.match_winner == 1


def test_G4_winning_stroke_starts_the_next_game():
    st = GolfState.with_balls({"w1": (0.5, 0.0), "r1": (0.3, 0.25), "r2": (0.3, -0.25)})
    log = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0).build()
    o, st1 = play_one(st, log, "w1")
    assert o.game_over and o.winner == 0
    assert st1.games_won.tolist() == [1, 0] and st1.phase == "opening" and st1.game_no == 1


# --- G-31 duo turns ---------------------------------------------------------------------------


def test_G31_partners_alternate_per_turn_and_out_of_order_is_a_G18_foul():
    rules = GolfRules(duo=True)
    st = GolfState.with_balls({"w1": (0.2, 0.1), "w2": (-0.2, 0.1), "r1": (0.2, -0.1),
                               "r2": (-0.2, -0.1)})
    log, b = miss(st)
    o, st1 = play_one(st, log, b, rules, players=[0])
    assert o.foul is None and st1.partner.tolist() == [1, 0] and st1.to_move == 1
    log, b = miss(st1)
    o, st2 = play_one(st1, log, b, rules, players=[1])  # side 1's partner 0 was due
    assert o.foul.rule == "G-18" and o.foul.kind == "out_of_turn"
    assert o.consequences == {"LT", "RA"}
    assert st2.partner.tolist() == [1, 1] and st2.to_move == 0


# --- JSON and the CLI -------------------------------------------------------------------------


def test_state_json_round_trip_and_errors():
    # kader play (side 1 down to r1, G-20), so a spot may be marked fouled (G-26)
    st = GolfState.with_balls({**{b: xy for b, xy in MID.items() if b not in ("r2", "r3")},
                               "w3": (0.04175, 0.0)})  # w3 on side 0's spot 3
    assert st.kader
    st.duty[idx("w2")] = True
    st.on_spot[idx("w3")] = 3
    st.fouled_spots[1, 4] = True
    j = st.to_json()
    assert json.loads(json.dumps(j)) == j
    back = GolfState.from_json(j)
    assert back.to_json() == j
    assert j["balls"]["w4"] is None and j["turn"]["duty"] == ["w2"]
    with pytest.raises(ValueError, match="colour"):
        GolfState.from_json({**j, "colour": 1})
    with pytest.raises(ValueError, match="w9"):
        GolfState.from_json({**j, "balls": {**j["balls"], "w9": [0, 0]}})
    with pytest.raises(ValueError, match="phase"):
        GolfState.from_json({**j, "phase": "halftime"})
    with pytest.raises(ValueError, match="overlap"):
        GolfState.from_json({**j, "balls": {**j["balls"], "w3": [0.5, 0.01]}})


def test_G26_a_ball_lying_on_its_sides_penalty_spot_is_on_it():
    """G-26 ("a ball lying on (or just put on) a penalty spot"): a state written without
    ``on_spot`` (JSON, or ``with_balls``) has each ball whose centre lies on one of its own
    side's penalty spots on that spot; a given ``on_spot`` stands, but one naming a ball that
    does not lie on that spot is refused with the ball, the spot and both positions."""
    spot1_w, spot3_r = (0.86925, 0.09387), (-0.04175, 0.0)
    st = GolfState.with_balls({**MID, "w1": spot1_w, "r3": spot3_r})
    assert st.on_spot[idx("w1")] == 1 and st.on_spot[idx("r3")] == 3
    assert st.on_spot.sum() == 4  # nothing else lies on a spot of its side
    j = st.to_json()
    assert j["on_spot"] == {"w1": 1, "r3": 3}
    del j["on_spot"]
    assert GolfState.from_json(j).on_spot.tolist() == st.on_spot.tolist()
    assert GolfState.from_json({**j, "on_spot": {}}).on_spot.sum() == 0  # given: it stands
    # side 1's ball on side 0's spot 1 (mirror image of its own) is on none of its own
    assert GolfState.with_balls({**MID, "r1": spot1_w}).on_spot[idx("r1")] == 0
    with pytest.raises(ValueError, match=r"state\.on_spot\.w2 = 2, but w2 lies at \[-0\.8, 0\.0\]"
                       r", not on penalty spot 2 of side 0 at \[0\.86925, -0\.09387\]"):
        GolfState.from_json({**j, "on_spot": {"w2": 2}})


def test_state_json_defaults_a_turn_that_begins_here():
    """G-14 / G-20: a hand-written state without ``turn.duty`` (or without ``kader``) is read as
    the start of its turn: the duty of the mover's balls in its defence triangles, and kader
    play once a side is down to one ball; given values stand."""
    balls = {"w1": (-0.8, 0.0), "w2": (-0.3, 0.2), "r1": (0.3, 0.25), "r2": (0.6, -0.2)}
    j = GolfState.with_balls(balls, to_move=0).to_json()
    del j["turn"], j["kader"]
    st = GolfState.from_json(j)
    assert st.to_json()["turn"]["duty"] == ["w1"] and not st.kader
    assert st.duty.tolist() == defence_duty(st.xy, 0).tolist()
    # the same position through the referee: w1 never left the triangle, G-14
    log = LogBuilder(st.xy).strike("w2", (0.5, 0.0)).rest("w2", (0.0, 0.2), 1.0).build()
    assert score_stroke(st, log, "w2").foul.rule == "G-14"
    # given values stand: an explicit duty, a turn already under way (no duty known)
    assert GolfState.from_json({**j, "turn": {"duty": []}}).to_json()["turn"]["duty"] == []
    assert not GolfState.from_json({**j, "turn": {"strokes": 2}}).duty.any()
    # side 1 has r1 only: kader play is on, in with_balls too
    assert GolfState.with_balls({"w1": (0.5, 0.0), "w2": (0.3, 0.2), "r1": (-0.5, 0.0)}).kader
    one = {**j, "balls": {**j["balls"], "r2": None}}
    assert GolfState.from_json(one).kader
    with pytest.raises(ValueError, match="state.kader must be true"):
        GolfState.from_json({**one, "kader": False})


def test_rules_config_loads_and_rejects_unknown_keys():
    r = G.load_golf_rules()
    assert r == GolfRules() and r.games_to_win == 2
    with pytest.raises(ValueError, match="colour"):
        G.load_golf_rules(colour="red")
    with pytest.raises(ValueError, match="opening"):
        GolfRules(opening="coin_toss")
    with pytest.raises(ValueError, match="hard_speed"):
        GolfRules(hard_speed=-1.0)


def test_score_cli_with_a_log_and_a_strike():
    st = GolfState.with_balls(MID)
    log = {"final": {"w1": {"x": 0.897, "y": 0.0, "state": "pocketed", "pocket": 0},
                     **{b: {"x": x, "y": y, "state": "stationary", "pocket": None}
                        for b, (x, y) in MID.items() if b != "w1"}},
           "events": [{"time": 0.4, "type": "ball_pocket", "agents": ["w1", "goal_plus_x"]}],
           "n_events": 1, "t_end": 0.4}
    out = G.score_cli({"state": st.to_json(), "log": log,
                       "strike": {"ball": "w1", "V0": 0.5, "phi": 0.0}})
    assert out["outcome"]["scored_balls"] == ["w1"] and out["outcome"]["turn_kept"]
    assert out["state"]["balls"]["w1"] is None and out["state"]["to_move"] == 0
    with pytest.raises(ValueError, match="strike"):
        G.score_cli({"state": st.to_json(), "log": log})
    with pytest.raises(ValueError, match="bogus"):
        G.score_cli({"state": st.to_json(), "log": log, "bogus": 1})


def test_score_cli_with_a_shot_runs_the_physics_and_the_CLI_entry_point():
    st = GolfState.with_balls(MID)
    payload = {"state": st.to_json(),
               "shot": {"strike": {"ball": "w1", "V0": 0.4, "phi": 0.0, "theta": 0.0}}}
    out = G.score_cli(payload)
    assert out["outcome"]["scored_balls"] == ["w1"] and out["outcome"]["foul"] is None
    # the opening: one strike per side, from a new match (state null)
    out = G.score_cli({"state": None, "shot": {"strike": [
        {"ball": "w1", "V0": 1.1, "phi": 25.0}, {"ball": "r1", "V0": 1.1, "phi": -155.0}]}})
    assert out["outcome"]["opening"] is True
    proc = subprocess.run([sys.executable, "-m", "cuegym.rules", "score", "--game", "golfbillard"],
                          input=json.dumps(payload), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["outcome"]["scored_balls"] == ["w1"]
    bad = {**payload, "shot": {"strike": {"ball": "w1", "V0": 0.4, "phi": "left"}}}
    proc = subprocess.run([sys.executable, "-m", "cuegym.rules", "score", "--game", "golfbillard"],
                          input=json.dumps(bad), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "phi" in proc.stderr


def test_cli_new_state():
    j = G.new_state_json(2)
    assert j["phase"] == "opening" and j["partner"] == [0, 0]
    with pytest.raises(ValueError, match="3"):
        G.new_state_json(3)
    # 4 printed the singles state, which score then played as singles: duo play is the score
    # input's rules.duo, so new says so instead
    with pytest.raises(ValueError, match=r'players: .* give each score input "rules": '
                                         r'\{"duo": true\} and "player"'):
        G.new_state_json(4)


def test_cli_score_names_the_json_keys_of_player_and_allow_overflow():
    """A duo stroke without "player" was refused naming 'players[0]' (the Python argument);
    an overflowed log said 'pass allow_overflow=True'."""
    payload = {"state": None, "rules": {"duo": True},
               "shot": {"strike": [{"ball": "w1", "V0": 1.1, "phi": 25},
                                   {"ball": "r1", "V0": 1.1, "phi": 205}]}}
    with pytest.raises(ValueError, match=r"^player: duo play \(rules.duo\) needs the partner"):
        G.score_cli(payload)
    short = {**payload, "rules": {}, "shot": {**payload["shot"], "max_events": 2}}
    with pytest.raises(ValueError, match='in JSON input "allow_overflow": true'):
        G.score_cli(short)
    with pytest.raises(ValueError, match="^shot: the simulation stopped at its max_events "):
        G.score_cli(short)  # the input's key, not "table 0"


def test_rules_import_without_gymnasium():
    code = ("import sys; sys.modules['gymnasium'] = None; sys.modules['torch'] = None\n"
            "import cuegym.rules.golfbillard, cuegym.rules.golfbillard_game, cuegym.configs.zones")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_G21_score_cli_log_without_event_positions_uses_start_and_end():
    st = GolfState.with_balls({"w1": (0.2, 0.2), "w2": (-0.3, 0.3), "r1": (-0.2, -0.25)},
                              kader=True)  # G-20: a side is down to one ball
    log = {"final": {"w1": {"x": 0.3, "y": 0.25, "state": "stationary", "pocket": None},
                     "w2": {"x": -0.3, "y": 0.3, "state": "stationary", "pocket": None},
                     "r1": {"x": -0.2, "y": -0.25, "state": "stationary", "pocket": None}},
           "events": [{"time": 0.01, "type": "transition", "agents": ["w1"], "state": "rolling"},
                      {"time": 0.9, "type": "transition", "agents": ["w1"],
                       "state": "stationary"}], "t_end": 0.9}
    out = G.score_cli({"state": st.to_json(), "log": log,
                       "strike": {"ball": "w1", "V0": 0.1, "phi": 26.0}})
    assert out["outcome"]["foul"] == "G-21" and out["outcome"]["left_kader"] is False
    log["final"]["w1"] = {"x": 0.6, "y": 0.25, "state": "stationary", "pocket": None}
    out = G.score_cli({"state": st.to_json(), "log": log,
                       "strike": {"ball": "w1", "V0": 0.3, "phi": 7.0}})
    assert out["outcome"]["foul"] is None and out["outcome"]["left_kader"] is True


def test_cli_play_cut_off_by_max_shots_has_no_ranking():
    """A match that ``max_shots`` cut off is not a draw: its ranking is None (a draw lists both
    sides in one place)."""
    rec = G.play_game(2, seed=0, max_shots=3)
    assert rec["n_shots"] == 3 and rec["state"]["phase"] != "over"
    assert rec["ranking"] is None
