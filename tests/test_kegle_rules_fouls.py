"""Keglebillard fouls and penalties (K-2, K-3, K-10..K-16) on hand-built event logs."""

from __future__ import annotations

import pytest

from cuegym.rules.keglebillard import build_log, load_rules, score_shots
from cuegym.rules.keglebillard_game import KeglebillardGame, score_json

HIT = [(0.10, "ball_ball", "red", "white"), (0.30, "cushion", "white", 1)]


def one(events, *, rules=None, inject=None, salvo=False, **log_kw):
    s = score_shots(build_log(events, **log_kw), rules, salvo_line=[salvo],
                    injected=[inject or []])
    return {"points": int(s.points[0]), "penalty": int(s.penalty[0]), "foul": bool(s.foul[0]),
            "fouls": s.fouls_of(0), "skaeve": int(s.skaeve[0]),
            "shooter_points": int(s.shooter_points[0]), "bih": bool(s.ball_in_hand[0]),
            "bih_salvo": bool(s.bih_salvo[0]), "win": bool(s.win[0]),
            "unsporting": bool(s.unsporting[0])}


def test_legal_shot_has_no_foul():
    r = one(HIT)
    assert not r["foul"] and r["penalty"] == 0 and r["fouls"] == ()


def test_K2_red_must_be_on_the_table():
    with pytest.raises(ValueError, match="red"):
        score_shots(build_log(HIT, absent=["red"]))


def test_K3_break_places_red_behind_salvo_line():
    game = KeglebillardGame()
    state = game.new_state(2)
    assert state.ball_in_hand == "salvo" and state.balls[0] is None
    assert state.balls[1] == (-0.525, 0.0) and state.balls[2] == (0.525, 0.0)
    assert all(state.pins)
    # overlapping the white on its spot cannot be played (K-3, K-19)
    assert "overlaps" in game.placement_error(state, (-0.55, 0.0))
    assert game.placement_error(state, (-0.7, 0.1)) is None


def test_K10_no_cushion_penalty_six_and_ball_in_hand_anywhere():
    r = one([(0.1, "ball_ball", "red", "white")])
    assert r["fouls"] == ("K-10",) and r["penalty"] == 6 and r["skaeve"] == 6
    assert r["bih"] and not r["bih_salvo"]


def test_K10_pocket_without_jaw_is_no_cushion():
    r = one([(0.1, "ball_ball", "red", "white"), (0.5, "pocket", "white", 4)])
    assert "K-10" in r["fouls"] and r["skaeve"] == 2 + 6


def test_K10_option_cushion_before_pins_direct_shot_fouls():
    rules = load_rules(cushion_before_pins=True)
    # the red drives the white straight into the pins; only later a cushion
    direct = [(0.1, "ball_ball", "red", "white"), (0.5, "pin", "white", "pin3"),
              (0.9, "cushion", "red", 1)]
    assert "K-10:cushion_before_pins" in one(direct, rules=rules)["fouls"]
    assert one(direct, rules=rules)["penalty"] == 6
    assert not one(direct)["foul"]  # default rule set: legal
    # the red went to a cushion first and passed that on to the white
    banked = [(0.05, "cushion", "red", 0), (0.1, "ball_ball", "red", "white"),
              (0.5, "pin", "white", "pin3")]
    assert not one(banked, rules=rules)["foul"]
    # the white went to a cushion before the pins
    assert not one(HIT + [(0.5, "pin", "white", "pin3")], rules=rules)["foul"]


def test_K10_option_cushioned_by_a_hit_is_one_step():
    rules = load_rules(cushion_before_pins=True)
    # red banked, then red -> spotted, spotted -> white, white into the pins: the white was hit
    # only by the spotted ball, which never touched a cushion itself
    two_hops = [(0.05, "cushion", "red", 0), (0.1, "ball_ball", "red", "spotted"),
                (0.2, "ball_ball", "spotted", "white"), (0.5, "pin", "white", "pin3")]
    r = one(two_hops, rules=rules)
    assert "K-10:cushion_before_pins" in r["fouls"] and r["penalty"] == 6
    # the spotted ball itself, hit by the banked red, may topple pins
    one_hop = two_hops[:2] + [(0.5, "pin", "spotted", "pin3")]
    assert not one(one_hop, rules=rules)["foul"]


def test_K10_option_chain_judged_by_its_first_ball():
    rules = load_rules(cushion_before_pins=True)
    direct = [(0.1, "ball_ball", "red", "white"), (0.5, "pin", "white", "pin3"),
              (0.55, "cushion", "white", 1), (0.6, "pin_pin", "pin3", "king")]
    r = one(direct, rules=rules)
    assert "K-10:cushion_before_pins" in r["fouls"]


def test_K11_red_touches_no_white():
    r = one([(0.1, "cushion", "red", 0), (0.4, "cushion", "red", 1)])
    assert r["fouls"] == ("K-11",) and r["penalty"] == 6 and r["skaeve"] == 6


def test_K12_red_into_pins_before_cushion_or_white():
    r = one([(0.3, "pin", "red", "pin3"), (0.6, "ball_ball", "red", "white"),
             (0.9, "cushion", "white", 1)])
    assert "K-12" in r["fouls"] and r["penalty"] == 6 and r["skaeve"] == 2 + 6


def test_K12_chain_started_by_red_counts_at_its_first_pin():
    # pin3 toppled by the red before any contact; the king falls by chain after a cushion
    r = one([(0.3, "pin", "red", "pin3"), (0.35, "cushion", "red", 0),
             (0.40, "pin_pin", "pin3", "king"), (0.6, "ball_ball", "red", "white"),
             (0.9, "cushion", "white", 1)])
    assert r["fouls"] == ("K-12",) and r["points"] == 4


def test_K13_red_nakket_ind_after_cushion_penalty_zero():
    r = one([(0.1, "cushion", "red", 0), (0.3, "pin", "red", "pin3"),
             (0.6, "ball_ball", "red", "white")])
    assert r["fouls"] == ("K-13",) and r["penalty"] == 0 and r["foul"]
    assert r["skaeve"] == 2 and r["shooter_points"] == 0


def test_K13_after_white():
    r = one(HIT + [(0.5, "pin", "red", "king")])
    assert r["fouls"] == ("K-13",) and r["skaeve"] == 6  # king alone, penalty 0


def test_K13_option_frhv_nakkebal_needs_a_white_first():
    rules = load_rules(frhv_nakkebal=True)
    events = [(0.1, "cushion", "red", 0), (0.3, "pin", "red", "pin3"),
              (0.6, "ball_ball", "red", "white")]
    assert one(events, rules=rules)["fouls"] == ("K-12",)
    assert one(HIT + [(0.5, "pin", "red", "king")], rules=rules)["fouls"] == ("K-13",)


def test_K14_red_pocketed_penalty_two_ball_in_hand_behind_line():
    r = one(HIT + [(0.9, "pocket", "red", 0)])
    assert r["fouls"] == ("K-14",) and r["penalty"] == 2 and r["skaeve"] == 2
    assert r["bih"] and r["bih_salvo"]


def test_K14_penalty_is_the_highest_single_not_a_sum():
    r = one([(0.1, "cushion", "red", 0), (0.9, "pocket", "red", 0)])
    assert set(r["fouls"]) == {"K-11", "K-14"} and r["penalty"] == 6 and r["bih_salvo"]


def test_K14a_off_table_penalty_six_counts_as_pocketed():
    r = one(HIT, inject=[{"type": "off_table", "ball": "red"}])
    assert set(r["fouls"]) == {"K-14", "K-14a"} and r["penalty"] == 6 and r["bih_salvo"]
    r = one(HIT, inject=[{"type": "off_table", "ball": "spotted", "returned": True}])
    assert r["fouls"] == ("K-14a",) and r["points"] == 0  # came back: not pocketed


def test_K15_red_in_front_of_salvo_line_when_it_applies():
    front = {"red": (-0.4, 0.2)}
    r = one(HIT, start=front, salvo=True)
    assert r["fouls"] == ("K-15",) and r["penalty"] == 6
    assert not one(HIT, start=front, salvo=False)["foul"]
    assert not one(HIT, start={"red": (-0.525, 0.2)}, salvo=True)["foul"]  # on the line


def test_K15_shot_is_played_and_scored():
    r = one(HIT + [(0.8, "pin", "white", "king")], start={"red": (-0.4, 0.2)}, salvo=True)
    assert r["points"] == 6 and r["skaeve"] == 12


@pytest.mark.parametrize("kind", ["touche", "double_hit", "moving_balls", "pins_not_in_place",
                                  "no_foot_on_floor", "guide_marks"])
def test_K16_injected_fouls_penalty_six(kind):
    r = one(HIT + [(0.8, "pin", "white", "pin1")], inject=[{"type": kind}])
    assert r["fouls"] == (f"K-16:{kind}",) and r["penalty"] == 6 and r["skaeve"] == 8
    # K-16 / K-19: a double hit is a touché, so both give the next player ball in hand
    assert r["bih"] == (kind in ("touche", "double_hit")) and not r["bih_salvo"]


def _touch_setup():
    """A two-player game with the balls as they lie and a shot (HIT) that leaves the white at
    (0.2, 0.3) and the red at (0.1, -0.3): (game, state, log)."""
    game = KeglebillardGame()
    state = game.new_state(2)
    state = state.__class__(**{**state.__dict__, "balls": ((-0.7, 0.1), (-0.525, 0.0),
                                                            (0.525, 0.0)),
                               "ball_in_hand": None, "shot": 1})
    return game, state, build_log(HIT, end={"white": (0.2, 0.3), "red": (0.1, -0.3)})


def test_K16_deliberate_touch_puts_balls_back():
    game, state, log = _touch_setup()
    out, new = game.apply(state, log, injected=[
        {"type": "deliberate_touch", "balls": {"white": [-0.3, -0.2]}}])
    assert out.fouls == ("K-16:deliberate_touch",) and out.skaeve == 6
    assert new.balls[1] == (-0.3, -0.2)
    # only the touched balls go back: the others stay where the shot left them
    assert new.balls[0] == (0.1, -0.3) and new.balls[2] == (0.525, 0.0)


def test_K16_deliberate_touch_refuses_a_put_back_position_that_is_taken():
    """The put-back ball must fit among the balls the shot left and the pins still standing:
    the next state would otherwise hold overlapping balls (a state the parser refuses)."""
    game, state, log = _touch_setup()
    for back, what in (([0.12, -0.29], "the red where the shot left it"),
                       ([0.0, 0.08], "standing pin"), ([0.0, 0.6], "cushion")):
        with pytest.raises(ValueError, match="injected deliberate_touch balls.white") as info:
            game.apply(state, log, injected=[{"type": "deliberate_touch",
                                              "balls": {"white": back}}])
        assert what in str(info.value) or "off the cloth" in str(info.value), str(info.value)


def test_K16_unsporting_flag_and_option():
    r = one(HIT, inject=[{"type": "touche", "unsporting": True}])
    assert r["unsporting"] and r["penalty"] == 6


def test_K16_bad_injected_events_raise():
    with pytest.raises(ValueError, match="unknown injected event type"):
        one(HIT, inject=[{"type": "sneeze"}])
    with pytest.raises(ValueError, match="unknown key"):
        one(HIT, inject=[{"type": "touche", "pins": ["king"]}])
    with pytest.raises(ValueError, match="not standing"):
        one(HIT, inject=[{"type": "pin_toppled", "pins": ["king"]}],
            pins_up0=[False, True, True, True, True])
    with pytest.raises(ValueError, match="unknown pin"):
        one(HIT, inject=[{"type": "pin_toppled", "pins": ["queen"]}])
    # K-14a: only a ball that was on the table can leave it
    with pytest.raises(ValueError, match="ball 'spotted' was not on the table at the start"):
        one(HIT, inject=[{"type": "off_table", "ball": "spotted"}], absent=["spotted"])


def test_K16_deliberate_touch_of_a_ball_off_the_table_is_refused():
    """K-16 puts touched balls back where they lay: a white waiting off the table for its spot
    (K-18) lay nowhere, so a deliberate touch naming it is refused, as ``off_table`` of it is
    (it put the white on the cloth and dropped its wait)."""
    state = {"players": 2, "ball_in_hand": None, "shot": 3,
             "balls": {"red": [0.525, 0.0], "white": None, "spotted": [-0.3, 0.3]},
             "waiting_for": {"white": "top", "spotted": None}}
    log = {"events": [[0.1, "cushion", "red", "cushion5"], [0.3, "ball_ball", "red", "spotted"]],
           "end": {"red": [0.525, 0.0], "spotted": [-0.6, 0.3]}}
    with pytest.raises(ValueError, match="deliberate_touch: ball 'white' was not on the table"):
        score_json({"state": state, "hand_log": log,
                    "inject": [{"type": "deliberate_touch", "balls": {"white": [0.0, 0.3]}}]})
    # the same shot with the spotted ball (on the table) touched is a K-16 foul as before
    out = score_json({"state": state, "hand_log": log,
                      "inject": [{"type": "deliberate_touch", "balls": {"spotted": [0.0, 0.3]}}]})
    assert "K-16:deliberate_touch" in out["outcome"]["fouls"]
