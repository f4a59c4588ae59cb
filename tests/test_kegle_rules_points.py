"""Keglebillard points of a shot (K-5..K-9a, K-P3) on hand-built event logs."""

from __future__ import annotations

import numpy as np
import pytest

from cuegym.rules.keglebillard import (
    KING,
    build_log,
    load_rules,
    score_shots,
    stack_logs,
)

# The red touches the white, the white runs into a cushion: legal so far (K-10, K-11).
HIT = [(0.10, "ball_ball", "red", "white"), (0.30, "cushion", "white", 1)]


def one(events, *, rules=None, inject=None, salvo=False, **log_kw):
    """Score one hand-built shot; returns a dict of table 0's values."""
    s = score_shots(build_log(events, **log_kw), rules, salvo_line=[salvo],
                    injected=[inject or []])
    out = {f: getattr(s, f)[0] for f in ("points", "pin_points", "white_points", "bonus_points",
                                         "penalty", "shooter_points", "skaeve", "foul", "rodt",
                                         "blegt", "king_alone", "clean16", "clean16_white",
                                         "win", "ball_in_hand", "bih_salvo", "legal_pin")}
    out = {k: v.item() for k, v in out.items()}
    out["fouls"] = s.fouls_of(0)
    out["toppler"] = s.pin_toppler[0].tolist()
    return out


def test_K5_each_pin_two_points():
    r = one(HIT + [(0.8, "pin", "white", "pin1"), (0.9, "pin", "white", "pin2")])
    assert r["pin_points"] == 4 and r["points"] == 4 and r["shooter_points"] == 4
    assert not r["foul"] and r["legal_pin"]


def test_K5_pin_touched_below_threshold_scores_nothing():
    r = one(HIT + [(0.8, "pin_touch", "white", "pin1")])
    assert r["points"] == 0 and not r["legal_pin"]


def test_K6_king_alone_six():
    r = one(HIT + [(0.8, "pin", "white", "king")])
    assert r["king_alone"] and r["pin_points"] == 6 and r["shooter_points"] == 6


def test_K6_king_with_another_pin_is_two_each():
    r = one(HIT + [(0.8, "pin", "white", "king"), (0.9, "pin", "white", "pin3")])
    assert not r["king_alone"] and r["pin_points"] == 4


def test_K6_king_alone_needs_all_five_standing_at_start():
    r = one(HIT + [(0.8, "pin", "white", "king")], pins_up0=[True, True, False, True, True])
    assert not r["king_alone"] and r["pin_points"] == 2


def test_K6_king_alone_whoever_toppled_it_red_foul_hands_it_over():
    # K-6 applies whoever toppled the king; toppled by the red before any cushion -> K-12
    r = one([(0.1, "ball_ball", "red", "white"), (0.5, "pin", "red", "king"),
             (0.9, "cushion", "white", 2)])
    assert r["king_alone"] and r["points"] == 6
    assert r["fouls"] == ("K-13",)  # the red touched a white first: nakket ind, penalty 0
    assert r["skaeve"] == 6 and r["shooter_points"] == 0


def test_K6_king_toppled_by_injected_event_counts_two():
    r = one(HIT, inject=[{"type": "pin_toppled", "pins": ["king"], "by": "cue"}])
    assert not r["king_alone"] and r["pin_points"] == 2


def test_K6_injected_pin_spoils_king_alone():
    r = one(HIT + [(0.8, "pin", "white", "king")],
            inject=[{"type": "pin_toppled", "pins": ["pin4"], "by": "sleeve"}])
    assert not r["king_alone"] and r["pin_points"] == 4


CROSS = [  # the white runs through the whole cross: pin3 (-x arm), king, pin1 (+x arm) ...
    (0.80, "pin", "white", "pin3"), (0.85, "pin", "white", "king"),
    (0.90, "pin", "white", "pin1"),
    (0.95, "pin_pin", "king", "pin2"), (0.96, "pin_pin", "king", "pin4"),
]


def test_K7_clean_sixteen_one_white_all_five():
    r = one(HIT + CROSS)
    assert r["clean16"] and r["clean16_white"] == 1
    assert r["pin_points"] == 16 and r["shooter_points"] == 16


def test_K7_other_white_may_set_the_runner_moving():
    events = [(0.1, "ball_ball", "red", "spotted"), (0.2, "cushion", "spotted", 1),
              (0.5, "ball_ball", "white", "spotted"), (0.6, "cushion", "white", 3)]
    r = one(events + CROSS)
    assert r["clean16"] and r["blegt"] and r["points"] == 16 + 4


def test_K7_cushion_during_run_is_not_clean():
    r = one(HIT + CROSS[:2] + [(0.87, "cushion", "white", 0)] + CROSS[2:])
    assert not r["clean16"] and r["pin_points"] == 10


def test_K7_ball_contact_during_run_is_not_clean():
    r = one(HIT + CROSS[:2] + [(0.87, "ball_ball", "red", "white")] + CROSS[2:])
    assert not r["clean16"] and r["pin_points"] == 10


def test_K7_red_touching_a_pin_during_run_is_not_clean():
    r = one(HIT + CROSS[:2] + [(0.86, "pin_touch", "red", "pin2")] + CROSS[2:])
    assert not r["clean16"]


def test_K7_pins_shared_with_the_other_white_are_not_clean():
    events = HIT + [(0.2, "ball_ball", "white", "spotted"), (0.4, "cushion", "spotted", 1)]
    events += [(0.80, "pin", "white", "pin3"), (0.85, "pin", "white", "king"),
               (0.90, "pin", "spotted", "pin1"), (0.95, "pin_pin", "king", "pin2"),
               (0.96, "pin_pin", "king", "pin4")]
    r = one(events)
    assert not r["clean16"] and r["pin_points"] == 10


def test_K7_needs_all_five_standing_at_start():
    events = HIT + [(0.80, "pin", "white", "pin3"), (0.85, "pin", "white", "king"),
                    (0.90, "pin", "white", "pin1"), (0.95, "pin_pin", "king", "pin2")]
    r = one(events, pins_up0=[True, True, True, True, False])
    assert not r["clean16"] and r["pin_points"] == 8


def test_K8_rodt_four():
    r = one([(0.1, "ball_ball", "red", "white"), (0.4, "cushion", "red", 1),
             (0.9, "ball_ball", "red", "spotted")])
    assert r["rodt"] and not r["blegt"] and r["bonus_points"] == 4 and r["shooter_points"] == 4


def test_K8_blegt_four():
    r = one(HIT + [(0.6, "ball_ball", "white", "spotted")])
    assert r["blegt"] and not r["rodt"] and r["points"] == 4


def test_K8_rodt_and_blegt_count_once():
    r = one(HIT + [(0.6, "ball_ball", "white", "spotted"), (0.9, "ball_ball", "red", "spotted")])
    assert r["rodt"] and r["bonus_points"] == 4


def test_K8_whites_touching_before_the_red_arrives_is_not_blegt():
    events = [(0.05, "ball_ball", "white", "spotted"), (0.1, "ball_ball", "red", "white"),
              (0.3, "cushion", "white", 1)]
    assert not one(events)["blegt"]


def test_K9_white_pocketed_two_each():
    r = one(HIT + [(0.9, "pocket", "white", 2)])
    assert r["white_points"] == 2 and r["shooter_points"] == 2
    r = one(HIT + [(0.6, "ball_ball", "white", "spotted"), (0.9, "pocket", "white", 2),
                   (1.0, "pocket", "spotted", 3)])
    assert r["white_points"] == 4 and r["points"] == 4 + 4  # + blegt


def test_K9_white_off_the_table_counts_two_with_K14a_penalty():
    r = one(HIT, inject=[{"type": "off_table", "ball": "white"}])
    assert r["white_points"] == 2 and r["fouls"] == ("K-14a",)
    assert r["penalty"] == 6 and r["skaeve"] == 8


def test_K9a_points_of_a_foul_go_across_as_skaeve():
    # Red pocketed (K-14, penalty 2) in a shot that toppled two pins with the white
    r = one(HIT + [(0.8, "pin", "white", "pin1"), (0.9, "pin", "white", "pin2"),
                   (1.2, "pocket", "red", 0)])
    assert r["points"] == 4 and r["penalty"] == 2 and r["skaeve"] == 6
    assert r["shooter_points"] == 0


def test_K9a_injected_pins_count_two_each():
    r = one(HIT, inject=[{"type": "pin_toppled", "pins": ["pin1", "pin2"], "by": "hand"}])
    assert r["points"] == 4 and r["fouls"] == ("K-16:pin_toppled",)
    assert r["skaeve"] == 4 + 6


def test_KP3_red_and_white_same_instant_blames_red():
    r = one(HIT + [(0.8, "pin", "red", "pin1"), (0.8, "pin", "white", "pin1")])
    assert r["toppler"][1] == 0b001
    assert "K-13" in r["fouls"]  # the red toppled it (after touching a white)


def test_KP3_both_whites_same_instant_belong_to_both():
    r = one(HIT + [(0.8, "pin", "white", "pin1"), (0.8, "pin", "spotted", "pin1")])
    assert r["toppler"][1] == 0b110 and not r["foul"] and r["points"] == 2


def test_KP2_KP3_chain_pins_belong_to_the_ball_that_started_it():
    r = one(HIT + [(0.8, "pin", "white", "pin1"), (0.9, "pin_pin", "pin1", "king"),
                   (1.0, "pin_pin", "king", "pin3")])
    assert r["toppler"][0] == r["toppler"][3] == 0b010 and r["pin_points"] == 6


def test_KP2_KP3_chains_that_reach_a_pin_at_once_both_own_it():
    """Two falling pins reach the king at the same instant (the physics logs both pin_pin
    events and gives the king to both chains' balls): a hand-built log may say so too; a
    later second chain onto a fallen pin is refused."""
    r = one(HIT + [(0.8, "pin", "white", "pin1"), (0.8, "pin", "spotted", "pin3"),
                   (0.9, "pin_pin", "pin1", "king"), (0.9, "pin_pin", "pin3", "king")])
    assert r["toppler"][KING] == 0b110 and r["pin_points"] == 6 and not r["foul"]
    with pytest.raises(ValueError, match="needs a fallen pin and a standing one"):
        build_log(HIT + [(0.8, "pin", "white", "pin1"), (0.8, "pin", "spotted", "pin3"),
                         (0.9, "pin_pin", "pin1", "king"), (1.0, "pin_pin", "pin3", "king")])


def test_scoring_is_batched_over_tables():
    logs = [build_log(HIT + [(0.8, "pin", "white", "king")]),
            build_log([(0.1, "cushion", "red", 0)]),
            build_log(HIT + CROSS)]
    s = score_shots(stack_logs(logs))
    assert s.points.tolist() == [6, 0, 16]
    assert s.foul.tolist() == [False, True, False]
    assert s.king_alone.tolist() == [True, False, False]
    assert s.pins_toppled[:, KING].tolist() == [True, False, True]


def test_K25_ddbu_scores_only_pins_and_rodt():
    ddbu = load_rules(variant="ddbu")
    r = one(HIT + [(0.8, "pin", "white", "king"), (0.9, "pocket", "spotted", 1)], rules=ddbu)
    assert r["points"] == 2 and not r["king_alone"]  # no king bonus, no white points
    r = one(HIT + [(0.6, "ball_ball", "white", "spotted")], rules=ddbu)
    assert r["points"] == 0  # blegt does not score
    r = one([(0.1, "ball_ball", "red", "white"), (0.9, "ball_ball", "red", "spotted")],
            rules=ddbu)
    assert r["points"] == 4 and not r["foul"]  # no cushion is not a foul by itself (K-25)


@pytest.mark.parametrize("T", [1, 7])
def test_scores_have_table_shapes(T):
    s = score_shots(stack_logs([build_log(HIT)] * T))
    for name in ("points", "penalty", "foul", "win", "ball_in_hand"):
        assert getattr(s, name).shape == (T,)
    assert s.fouls.shape[0] == T and s.pins_toppled.shape == (T, 5)
    assert np.all(s.points == 0)
