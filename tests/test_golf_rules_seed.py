"""Golfbillard: where the seed settles the order of fouls within one stroke (G-17, G-19a), what a
foul puts back (G-18 displaced balls) and that no input is ignored (G-30, G-25, G-31, overflow).

The rule book is docs/rules_golfbillard.md. Each test builds strokes with :class:`LogBuilder`
and names the rule it checks. Side 0 (w1..w5) attacks goal 0 at +x, side 1 (r1..r5) goal 1.
"""

import numpy as np
import pytest
from golf_strokes import BASE, at, idx, state, stroke

from cuegym.rules.golfbillard import GolfRules, LogBuilder, score_stroke


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


# --- nothing ignored silently: choices (G-30, G-25), partners (G-31), overflow ----------------


def _own_goal(b):
    return (b.strike("w1", (1.0, 0.0)).ball_ball(0.1, "w2", "r3", (-0.3, 0.2))
            .drop(0.5, "w2", 1))


@pytest.mark.parametrize("key, option, value", [("spots", "spot_policy", [2]),
                                                 ("pick", "pick_policy", "w2")])
def test_G30_G25_a_choice_whose_option_is_off_is_refused_naming_both(key, option, value):
    with pytest.raises(ValueError, match=rf"choices\[0\]\[{key!r}\].*rules\.{option}.*agent"):
        stroke(state(), _own_goal, "w1", choices={key: value})


def test_G30_unknown_choice_key_is_refused():
    with pytest.raises(ValueError, match="spot"):
        stroke(state(), _own_goal, "w1", choices={"spot": [2]},
               rules=GolfRules(spot_policy="agent"))


def test_G30_agent_spots_are_honoured_and_unneeded_entries_reported():
    rules = GolfRules(spot_policy="agent")
    o = stroke(state(), _own_goal, "w1", choices={"spots": [3, 1]}, rules=rules)
    assert o.spotted == [(idx("w2"), 3)]
    assert any("[1] not needed" in n for n in o.notes)
    with pytest.raises(ValueError, match="no callables"):  # the compiled referee takes lists
        stroke(state(), _own_goal, "w1", choices={"spots": lambda b, free, xy: free[-1]},
               rules=rules)
    o = stroke(state(), lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.7, 0.0), 1.0), "w1",
               choices={"pick": "w2"}, rules=GolfRules(pick_policy="agent"))
    assert any("choices['pick'] not used" in n for n in o.notes)


def test_G3_G30_agent_spots_are_honoured_in_the_opening():
    from cuegym.rules.golfbillard_game import new_match, play_strokes

    st = new_match()
    # w2 (not opening) is knocked into its own defence goal: a penalty spot, chosen by side 1
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
           .ball_ball(0.1, "w1", "w2", (-0.8, 0.1)).drop(0.4, "w2", 1)
           .rest("w1", (0.5, 0.1), 2.0).rest("r1", (-0.6, -0.1), 2.0).build())
    outs, _ = play_strokes([st], log, [[idx("w1"), idx("r1")]], choices=[{"spots": [2]}],
                           rules=GolfRules(spot_policy="agent"))
    assert outs[0].spotted == [(idx("w2"), 2)]
    with pytest.raises(ValueError, match="spot_policy"):
        play_strokes([st], log, [[idx("w1"), idx("r1")]], choices=[{"spots": [2]}])
    with pytest.raises(ValueError, match="ran out"):
        play_strokes([st], log, [[idx("w1"), idx("r1")]], rules=GolfRules(spot_policy="agent"),
                     choices=[{"spots": []}])


def test_G31_duo_turn_order_is_always_checked():
    duo = GolfRules(duo=True)

    def miss(b):
        return b.strike("w1", (1.0, 0.0)).rest("w1", (0.7, 0.0), 1.0)

    with pytest.raises(ValueError, match=r"rules\.duo.*G-31"):
        stroke(state(), miss, "w1", rules=duo)  # no partner given: refused
    o = stroke(state(partner=np.array([1, 0])), miss, "w1", rules=duo, players=0)
    assert o.foul.rule == "G-18" and o.foul.kind == "out_of_turn"
    assert stroke(state(partner=np.array([1, 0])), miss, "w1", rules=duo, players=1).foul is None
    # singles: a side has one player, partner 0; anything else is refused, not ignored
    assert stroke(state(), miss, "w1", players=0).foul is None
    with pytest.raises(ValueError, match="duo"):
        stroke(state(), miss, "w1", players=1)
    with pytest.raises(ValueError, match="partner 0 or 1"):
        stroke(state(), miss, "w1", players=2, rules=duo)


def test_G31_duo_opening_needs_the_openers():
    from cuegym.rules.golfbillard_game import new_match, score_opening

    duo = GolfRules(duo=True)
    st = new_match(duo)
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
           .rest("w1", (0.5, 0.1), 2.0).rest("r1", (-0.6, -0.1), 2.0).build())
    with pytest.raises(ValueError, match="G-31"):
        score_opening(st, log, ("w1", "r1"), rules=duo)
    assert score_opening(st, log, ("w1", "r1"), rules=duo, players=[0, 0]).first == 1
    with pytest.raises(ValueError, match="duo"):
        score_opening(new_match(), log, ("w1", "r1"), players=[0, 1])


@pytest.mark.parametrize("code, limit", [(1, "max_events"), (2, "t_max")])
def test_overflowed_stroke_is_refused_unless_the_caller_opts_in(code, limit):
    from cuegym.rules.golfbillard_game import new_match, play_strokes

    st = state()
    log = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).rest("w1", (0.7, 0.0), 1.0).build()
    log.overflow[0] = code
    with pytest.raises(ValueError, match=rf"{limit}.*allow_overflow=True"):
        score_stroke(st, log, "w1")
    o = score_stroke(st, log, "w1", allow_overflow=True)
    assert o.overflow == code and any("allow_overflow" in n for n in o.notes)
    # the opening too
    op = new_match()
    lo = (LogBuilder(op.xy).strike("w1", (1.0, 0.6)).strike("r1", (-1.0, -0.6))
          .rest("w1", (0.5, 0.1), 2.0).rest("r1", (-0.6, -0.1), 2.0).build())
    lo.overflow[0] = code
    with pytest.raises(ValueError, match="allow_overflow"):
        play_strokes([op], lo, [[idx("w1"), idx("r1")]])
    outs, _ = play_strokes([op], lo, [[idx("w1"), idx("r1")]], allow_overflow=True)
    assert outs[0].first == 1


# --- G-18 deflecting a ball: only the balls the foul displaced go back ---------------------------


def _busy(b):
    # w1 knocks r1 on and drops into the attack goal; w2 and w3 roll on (w3 after w2 hit it)
    return (b.strike("w1", (-1.0, 0.6)).ball_ball(0.2, "w1", "r1", (0.35, 0.22))
            .rest("r1", (0.1, 0.35), 1.0).rest("w1", (0.6, 0.1), 1.0)
            .ball_ball(0.5, "w2", "w3", (-0.3, 0.0), (-0.3, -0.2)).rest("w2", (-0.1, 0.1), 1.2)
            .rest("w3", (-0.2, -0.3), 1.3))


def test_G18_deflect_own_ball_puts_back_only_what_the_foul_displaced():
    # seed: "Die durch den Fehler verschobenen Baelle werden zurueckgelegt und der beruehrte Ball
    # wird auf die Strafmarke gelegt": w2 was deflected and drove w3 on; only w3 goes back
    ev = {"type": "foul", "kind": "deflect_own_ball", "ball": "w2", "time": 0.4,
          "restore": {"w3": [-0.3, -0.2]}}
    o = stroke(state(), _busy, "w1", injected=[ev])
    assert o.foul.kind == "deflect_own_ball" and o.consequences == {"LT", "RF", "SPOT"}
    assert o.replaced == [idx("w3")] and at(o, "w3").tolist() == [-0.3, -0.2]
    assert idx("w2") in dict(o.spotted)  # the touched ball to a penalty spot
    assert at(o, "r1").tolist() == [0.1, 0.35] and at(o, "w1").tolist() == [0.6, 0.1]
    assert not o.turn_kept
    # nothing displaced by the foul: nothing goes back
    o = stroke(state(), _busy, "w1", injected=[{**ev, "restore": {}}])
    assert o.replaced == [] and at(o, "w3").tolist() == [-0.2, -0.3]
    o = stroke(state(), _busy, "w1", injected=[{k: v for k, v in ev.items() if k != "restore"}])
    assert o.replaced == [] and at(o, "w3").tolist() == [-0.2, -0.3]


def test_G18_deflect_opponent_ball_into_its_goal_displaced_balls_back_others_stay():
    ev = {"type": "foul", "kind": "deflect_opponent_ball", "ball": "r1", "time": 0.6,
          "restore": {"w2": [-0.3, 0.2]}}
    o = stroke(state(), lambda b: _busy(b).drop(0.9, "r2", 1), "w1", injected=[ev])
    assert o.consequences == {"LT", "RF", "CS", "GOAL"}
    assert o.into_goal == [idx("r1")]  # the touched ball into its goal
    assert dict(o.spotted)[idx("w1")] == 1  # CS
    assert o.replaced == [idx("w2")] and at(o, "w2").tolist() == [-0.3, 0.2]
    assert at(o, "w3").tolist() == [-0.2, -0.3]  # moved by the stroke, not by the foul: stays
    assert o.scored.tolist() == [0, 2]  # r2 dropped in the stroke (stands) and r1 by the rule


def test_G18_restore_brings_a_ball_the_foul_dropped_back_out():
    ev = {"type": "foul", "kind": "deflect_own_ball", "ball": "w2", "time": 0.4,
          "restore": {"w3": [-0.3, -0.2]}}
    o = stroke(state(), lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.6, 0.0), 1.0)
               .ball_ball(0.5, "w2", "w3", (-0.3, 0.0), (-0.3, -0.2)).drop(0.9, "w3", 0),
               "w1", injected=[ev])
    assert at(o, "w3").tolist() == [-0.3, -0.2] and o.scored.tolist() == [0, 0]


def test_G18_restore_is_checked():
    def plain(b):
        return b.strike("w1", (1.0, 0.0)).rest("w1", (0.6, 0.0), 1.0)

    with pytest.raises(ValueError, match="only for the G-18 kinds"):
        stroke(state(), plain, "w1", injected=[{"type": "foul", "kind": "touch",
                                                "restore": {"w2": [0, 0.3]}}])
    with pytest.raises(ValueError, match="touched ball w2"):
        stroke(state(), plain, "w1", injected=[{"type": "foul", "kind": "deflect_own_ball",
                                                "ball": "w2", "restore": {"w2": [0, 0.3]}}])
    with pytest.raises(ValueError, match="overlaps r1"):
        stroke(state(), plain, "w1", injected=[{"type": "foul", "kind": "deflect_own_ball",
                                                "ball": "w2", "restore": {"w3": [0.3, 0.26]}}])
    with pytest.raises(ValueError, match="finite"):
        stroke(state(), plain, "w1", injected=[{"type": "foul", "kind": "deflect_own_ball",
                                                "ball": "w2",
                                                "restore": {"w3": [0.3, float("nan")]}}])
    with pytest.raises(ValueError, match="w5"):
        stroke(state(), plain, "w1", injected=[{"type": "foul", "kind": "deflect_own_ball",
                                                "ball": "w2", "restore": {"w5": [0.0, 0.3]}}])


def test_G31_singles_has_one_player_per_side_in_every_game():
    from cuegym.rules.golfbillard_game import finish_game, new_match

    rules = GolfRules(match="best_of_3")
    st = finish_game(new_match(rules), 0, rules)  # game 2 of a singles match
    assert st.game_no == 1 and st.openers.tolist() == [0, 0] and st.partner.tolist() == [0, 0]
    with pytest.raises(ValueError, match="duo"):
        new_match(rules, openers=(1, 0))
    duo = GolfRules(duo=True)
    st = finish_game(new_match(duo, openers=(1, 0)), 0, duo)
    assert st.openers.tolist() == [0, 1]  # duo: the other partner opens game 2
