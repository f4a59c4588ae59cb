"""Keglebillard rule scenarios written from the ORIGINAL rule text (the Danish house rules'
sheet) and its English restatement with rule ids K-.. (where the two disagree the restatement
stands; docs/rules_keglebillard.md is the project's own text of both).

The file walks the seed sentence by sentence (its sections: Generelt, Spil om retten til at
starte udlægget, Point, Fejlstød, Spillets start og diverse "Husets Regler", Fejl, Afslutning)
and then the spec items the seed leaves open. Each test's docstring quotes or paraphrases the
seed sentence it checks and cites the K- id. Scenarios are hand-built event logs
(``build_log``) played through the game layer (``KeglebillardGame.apply``: points, skæve,
recipients, next player, ball in hand, spotting, end of game), the scorer (``score_shots``) or
the lag judge (``judge_lag``), as an examiner who knows only the rule text would write them.
"""

from __future__ import annotations

import pytest
from kegle_scenarios import mid, score

from cuegym.rules.keglebillard import build_log, judge_lag, load_rules, stack_logs
from cuegym.rules.keglebillard_game import GameState, KeglebillardGame

# --- building blocks -----------------------------------------------------------------------------

L = 2.10
BOTTOM_SPOT, TOP_SPOT = (-L / 4, 0.0), (L / 4, 0.0)
START = {"red": (-0.7, 0.1), "white": BOTTOM_SPOT, "spotted": TOP_SPOT}

# the red hits the white, the white runs into a long cushion: legal, no points
HIT = [(0.10, "ball_ball", "red", "white"), (0.30, "cushion", "white", 1)]
# a legal shot that topples one pin with the white
PIN = HIT + [(0.80, "pin", "white", "pin1")]
# rødt: the red touches both whites (with a cushion)
RODT = [(0.10, "ball_ball", "red", "white"), (0.30, "cushion", "red", 1),
        (0.60, "ball_ball", "red", "spotted")]
# blegt: the red touches the white, the white touches the spotted white (with a cushion)
BLEGT = HIT + [(0.60, "ball_ball", "white", "spotted")]
# the red misses both whites (after a cushion): K-11
MISS = [(0.10, "cushion", "red", 0)]
# the white runs through the whole cross, one clean run
CROSS = [(0.80, "pin", "white", "pin3"), (0.85, "pin", "white", "king"),
         (0.90, "pin", "white", "pin1"), (0.95, "pin_pin", "king", "pin2"),
         (0.96, "pin_pin", "king", "pin4")]
# all three balls into pockets in one shot (with a cushion)
ALL_DOWN = HIT + [(0.60, "ball_ball", "white", "spotted"), (0.90, "pocket", "white", 3),
                  (1.00, "pocket", "spotted", 0), (1.20, "pocket", "red", 1)]


def play(game, state, events, *, inject=None, **log_kw):
    return game.apply(state, build_log(events, **log_kw), injected=inject)


@pytest.fixture
def game():
    return KeglebillardGame()


# =================================================================================================
# Generelt
# =================================================================================================

def test_K1_one_shot_each_in_turn_even_after_scoring(game):
    """Seed: "Spillerne støder eet stød af gangen efter tur, indtil distancen er opnået."
    K-1: each turn is exactly one shot, then the turn passes, whatever the result (a scoring
    shot does not keep the turn)."""
    s = mid(3)
    out, s = play(game, s, PIN)
    assert out.shooter_points == 2 and s.to_play == 1
    out, s = play(game, s, RODT)
    assert out.shooter_points == 4 and s.to_play == 2
    out, s = play(game, s, MISS)  # a foul passes the turn too
    assert out.foul and s.to_play == 0
    assert s.scores == (2 + 6, 4 + 6, 0)


def test_K1_turn_skips_a_player_who_went_out(game):
    """Seed: "... efter tur, indtil distancen er opnået" / K-1: the turn passes to the next
    player still in the game."""
    s = mid(4, scores=(10, 70, 20, 30), to_play=0, finished=(1,))
    _, s = play(game, s, HIT)
    assert s.to_play == 2
    _, s = play(game, s, HIT)
    _, s = play(game, s, HIT)
    assert s.to_play == 0


def test_K21_distance_is_70_exactly_70_finishes(game):
    """Seed: "Distancen er 70 points Dvs. fra 0 og op til 70." K-21: 70 reached (three
    players) finishes."""
    out, s = play(game, mid(3, scores=(68, 0, 0)), PIN)
    assert s.scores == (70, 0, 0) and out.finished == (0,) and s.finished == (0,)
    assert s.to_play == 1 and not s.game_over


def test_K21_69_is_not_the_distance(game):
    """Seed: "Distancen er 70 points" (K-21): 69 is not yet out."""
    out, s = play(game, mid(3, scores=(67, 0, 0)), PIN)
    assert s.scores == (69, 0, 0) and s.finished == () and out.finished == ()


def test_K21_overshooting_70_finishes_and_the_points_stand(game):
    """Seed: "afslutte deres deltagelse ved bare at lave points til 70 eller over" (K-21: 70
    or more): no exact finish is needed; overshoot is kept."""
    out, s = play(game, mid(3, scores=(66, 0, 0)), HIT + CROSS)
    assert out.clean16 and s.scores == (82, 0, 0) and s.finished == (0,)


def test_K10_a_ball_must_reach_a_cushion_even_in_a_rodt(game):
    """Seed: "En ball skal i bande hver gang der stødes, uanset om der spilles rødt eller
    blegt." K-10: no cushion is a foul, penalty 6; the rødt's 4 go across too (K-9a); the next
    player has ball in hand."""
    ev = [(0.1, "ball_ball", "red", "white"), (0.6, "ball_ball", "red", "spotted")]
    out, s = play(game, mid(), ev)
    assert out.rodt and out.foul and "K-10" in out.fouls and out.penalty == 6
    assert out.skaeve == 4 + 6 and out.shooter_points == 0 and s.scores == (0, 10)
    assert s.ball_in_hand == "cloth" and s.to_play == 1


def test_K10_a_ball_must_reach_a_cushion_even_in_a_blegt(game):
    """Seed: "... uanset om der spilles rødt eller blegt." K-10 with a blegt: 4 + 6 across."""
    ev = [(0.1, "ball_ball", "red", "white"), (0.5, "ball_ball", "white", "spotted")]
    out, s = play(game, mid(), ev)
    assert out.blegt and out.fouls == ("K-10",) and out.skaeve == 10 and s.scores == (0, 10)


def test_K10_any_ball_on_a_cushion_is_enough(game):
    """Seed: "En ball skal i bande" - one ball, any ball (K-10: "no ball touches a cushion"):
    only the spotted white reaching a cushion makes a legal blegt."""
    ev = [(0.1, "ball_ball", "red", "white"), (0.4, "ball_ball", "white", "spotted"),
          (0.7, "cushion", "spotted", 5)]
    out, s = play(game, mid(), ev)
    assert not out.foul and out.blegt and s.scores == (4, 0)


def test_K14a_red_off_the_table_is_like_a_pocketed_red(game):
    """Seed: "Rød/hvid bal udenfor spillefladen betragtes som ball i hul." K-14a: a ball off
    the table counts as pocketed (K-14 for the red) and the penalty is 6 (the highest single
    one, not 6 + 2); K-14 gives ball in hand behind the salvo line."""
    out, s = play(game, mid(), PIN, inject=[{"type": "off_table", "ball": "red"}])
    assert {"K-14", "K-14a"} <= set(out.fouls) and out.penalty == 6
    assert out.skaeve == 2 + 6 and s.scores == (0, 8)
    assert s.ball_in_hand == "salvo" and s.balls[0] is None


def test_K14a_K9_white_off_the_table_counts_as_a_pocketed_white(game):
    """Seed: "Rød/hvid bal udenfor spillefladen betragtes som ball i hul" and "en kugle over
    bord tæller som en kugle i hul". K-9 + K-14a: the white counts 2 as pocketed, the shot is a
    foul with penalty 6 (2 + 6 across), and the white is spotted like a pocketed one (K-18)."""
    out, s = play(game, mid(), HIT, inject=[{"type": "off_table", "ball": "spotted"}],
                  end={"white": (-0.3, 0.3)})
    assert out.points == 2 and out.penalty == 6 and out.skaeve == 8 and s.scores == (0, 8)
    assert s.balls[2] == TOP_SPOT  # farther from the white, which lies in the bottom half


# =================================================================================================
# Spil om retten til at starte udlægget (K-24, the lag)
# =================================================================================================

def lag(events, end, start=None, **kw):
    return build_log(events, start=start or {"white": (-0.8, -0.2), "spotted": (-0.8, 0.2)},
                     end=end, absent=["red"], struck=kw.pop("struck", ("white", "spotted")),
                     **kw)


TOP = [(1.0, "cushion", "white", 5), (1.0, "cushion", "spotted", 5)]  # both reach the top


def test_K24_ball_nearest_the_bottom_cushion_breaks():
    """Seed: "Spilleren, hvis ball ligger nærmest nederste bande, lægger ud i første spil."
    K-24: the ball whose centre stops nearer the bottom cushion wins the break."""
    logs = [lag(TOP, {"white": (-0.9, -0.2), "spotted": (-0.6, 0.2)}),
            lag(TOP, {"white": (-0.2, -0.3), "spotted": (-0.95, 0.3)})]
    assert judge_lag(stack_logs(logs)).tolist() == [0, 1]


def test_K24_a_pocket_is_nearest():
    """Seed: "Hullet er nærmest." K-24: a ball in a pocket counts as nearest (here the white,
    on its own side of the centre line, drops into the bottom-left corner)."""
    lg = lag(TOP + [(2.0, "pocket", "white", 0)], {"spotted": (-0.99, 0.2)})
    assert judge_lag(lg).tolist() == [0]


def test_K24_both_balls_must_be_moving():
    """Seed: "Begge baller skal være i bevægelse inden første bal rammer øverste bande, ellers
    stødes der om." K-24: one ball not moving -> re-lag."""
    lg = lag(TOP[:1], {"white": (-0.9, -0.2)}, struck=("white",))
    assert judge_lag(lg).tolist() == [-1]


def test_K24_balls_touching_or_equally_far_relag():
    """Seed: "Hvis ballerne på vejen har berørt hinanden, eller hvis de standser lige langt fra
    den nederste bande, skal der stødes om." K-24: re-lag."""
    logs = [lag(TOP + [(1.5, "ball_ball", "white", "spotted")],
                {"white": (-0.9, -0.2), "spotted": (-0.5, 0.2)}),
            lag(TOP, {"white": (-0.7, -0.2), "spotted": (-0.7, 0.3)})]
    assert judge_lag(stack_logs(logs)).tolist() == [-1, -1]


def test_K24_ball_touching_the_pins_loses_the_break():
    """Seed: "Hvis en spillers ball rammer keglerne ... fortabes retten til at lægge ud."
    K-24: the white touches a pin (even without toppling it) and loses, although it stopped
    nearer the bottom cushion."""
    for kind in ("pin", "pin_touch"):
        lg = lag(TOP + [(0.5, kind, "white", "pin4")],
                 {"white": (-0.95, -0.2), "spotted": (-0.5, 0.2)})
        assert judge_lag(lg).tolist() == [1], kind


def test_K24_ball_crossing_the_long_centre_line_loses_the_break():
    """Seed: "Hvis en spillers ball ... krydser den langsgående midterlinje, fortabes retten til
    at lægge ud." K-24: the spotted white ends across y = 0 and loses, although nearer."""
    lg = lag(TOP, {"white": (-0.5, -0.2), "spotted": (-0.95, -0.2)})
    assert judge_lag(lg).tolist() == [0]


# =================================================================================================
# Point (K-5 .. K-9)
# =================================================================================================

def test_K5_toppled_pin_two_points_each(game):
    """Seed: "Væltet kegle 2 point". K-5: three pins -> 6 to the shooter."""
    ev = HIT + [(0.80, "pin", "white", "pin1"), (0.85, "pin", "white", "pin2"),
                (0.90, "pin_pin", "pin2", "pin3")]
    out, s = play(game, mid(), ev)
    assert out.points == 6 and out.shooter_points == 6 and s.scores == (6, 0)


def test_K6_king_alone_six(game):
    """Seed: "Konge væltet alene 6 point". K-6: only the king falls (all five stood) -> 6."""
    out, s = play(game, mid(), HIT + [(0.8, "pin", "white", "king")])
    assert out.king_alone and out.points == 6 and s.scores == (6, 0)


def test_K6_king_alone_by_the_spotted_white(game):
    """Seed: "Konge væltet alene 6 point" - whichever white (K-6)."""
    ev = [(0.1, "ball_ball", "red", "spotted"), (0.3, "cushion", "spotted", 2),
          (0.8, "pin", "spotted", "king")]
    out, s = play(game, mid(), ev)
    assert out.king_alone and s.scores == (6, 0)


def test_K6_king_with_another_pin_is_two_each(game):
    """Seed: "Konge væltet alene" - not alone: the king is an ordinary pin (K-5/K-6)."""
    ev = HIT + [(0.8, "pin", "white", "king"), (0.9, "pin_pin", "king", "pin1")]
    out, s = play(game, mid(), ev)
    assert not out.king_alone and out.points == 4 and s.scores == (4, 0)


def test_K6_king_alone_needs_all_five_standing(game):
    """K-6: king alone only when all five pins stood at the start of the shot."""
    pins = (True, False, True, True, True)
    out, s = play(game, mid(pins=pins), HIT + [(0.8, "pin", "white", "king")],
                  pins_up0=list(pins))
    assert not out.king_alone and out.points == 2


def test_K8_rodt_four(game):
    """Seed: "Rødt eller blegt 4 point". K-8 rødt: the red touches both whites -> 4."""
    out, s = play(game, mid(), RODT)
    assert out.rodt and not out.blegt and out.points == 4 and s.scores == (4, 0)


def test_K8_blegt_four(game):
    """Seed: "Rødt eller blegt 4 point". K-8 blegt: red -> white -> other white -> 4."""
    out, s = play(game, mid(), BLEGT)
    assert out.blegt and not out.rodt and out.points == 4 and s.scores == (4, 0)


def test_K8_rodt_and_blegt_in_one_shot_count_once(game):
    """Seed: "Rødt eller blegt 4 point" - "or": K-8 at most once per shot."""
    ev = BLEGT + [(0.9, "ball_ball", "red", "spotted"), (1.1, "ball_ball", "red", "white")]
    out, s = play(game, mid(), ev)
    assert out.points == 4 and s.scores == (4, 0)


def test_K8_red_touching_one_white_twice_is_not_rodt(game):
    """K-8: rødt needs both whites; touching the same white twice is nothing."""
    out, s = play(game, mid(), HIT + [(0.7, "ball_ball", "red", "white")])
    assert not out.rodt and not out.blegt and out.points == 0 and s.scores == (0, 0)


def test_K9_white_in_a_pocket_two_each(game):
    """Seed: "Hvid ball i hul 2 point". K-9: one white 2; both whites 4."""
    out, s = play(game, mid(), HIT + [(0.9, "pocket", "white", 3)],
                  end={"red": (0.2, -0.3)})
    assert out.points == 2 and s.scores == (2, 0)
    out, s = play(game, mid(), BLEGT + [(0.9, "pocket", "white", 3),
                                        (1.0, "pocket", "spotted", 2)], end={"red": (0.2, -0.3)})
    assert out.points == 2 + 2 + 4 and s.scores == (8, 0)  # two whites + blegt


def test_K7_clean_sixteen(game):
    """Seed: "Èn hvid ball vælter alle kegler i ét rent gennemløb. Ingen hjælp fra den anden
    hvide ball = 16 point". K-7: 16 instead of 10."""
    out, s = play(game, mid(), HIT + CROSS)
    assert out.clean16 and out.points == 16 and s.scores == (16, 0)


def test_K7_help_from_the_other_white_at_the_pins_is_not_sixteen(game):
    """Seed: "Ingen hjælp fra den anden hvide ball". K-7: the spotted white topples one of the
    five: 5 pins, 10 (plus the blegt)."""
    ev = HIT + [(0.5, "ball_ball", "white", "spotted"), (0.80, "pin", "white", "pin3"),
                (0.85, "pin", "white", "king"), (0.90, "pin", "white", "pin1"),
                (0.95, "pin_pin", "king", "pin2"), (1.0, "pin", "spotted", "pin4")]
    out, s = play(game, mid(), ev)
    assert not out.clean16 and out.points == 10 + 4 and s.scores == (14, 0)


def test_K7_run_interrupted_by_a_cushion_is_not_clean(game):
    """Seed: "i ét rent gennemløb" - one clean run. K-7: the white touches a cushion between its
    first and last pin: 10, not 16."""
    ev = HIT + [(0.80, "pin", "white", "pin3"), (0.85, "pin", "white", "king"),
                (0.87, "pin_pin", "king", "pin2"), (0.88, "pin_pin", "king", "pin4"),
                (1.2, "cushion", "white", 5), (1.6, "pin", "white", "pin1")]
    out, _ = play(game, mid(), ev)
    assert not out.clean16 and out.points == 10


def test_K7_other_white_may_set_the_runner_moving(game):
    """K-7: "no help" means no help at the pins: the spotted white sets the white moving before
    its run, the white then runs the cross alone -> 16 (plus the blegt: red -> spotted ->
    white)."""
    ev = [(0.1, "ball_ball", "red", "spotted"), (0.3, "cushion", "spotted", 2),
          (0.5, "ball_ball", "spotted", "white")] + CROSS
    out, s = play(game, mid(), ev)
    assert out.clean16 and out.blegt and out.points == 16 + 4 and s.scores == (20, 0)


def test_K5_K8_K9_points_of_one_shot_add_up(game):
    """Seed "Point" list: the items of one shot are added. King alone 6 + blegt 4 + a white in a
    pocket 2 = 12 (K-5..K-9)."""
    ev = BLEGT + [(0.8, "pin", "white", "king"), (1.2, "pocket", "spotted", 2)]
    out, s = play(game, mid(), ev, end={"red": (0.2, -0.3)})
    assert out.king_alone and out.blegt and out.points == 12 and s.scores == (12, 0)


# =================================================================================================
# Fejlstød ("skæve")
# =================================================================================================

def test_K9a_on_a_foul_all_points_go_to_the_opponent(game):
    """Seed: "Ved fejlstød tilskrives alle point ("skæve") til modstanderen." K-9a: the
    shooter gets nothing; the opponent gets the shot's points plus the penalty."""
    # the white topples the king alone and the red misses no white, but no cushion: K-10
    ev = [(0.1, "ball_ball", "red", "white"), (0.5, "pin", "white", "king")]
    out, s = play(game, mid(2, scores=(20, 30)), ev)
    assert out.shooter_points == 0 and out.skaeve == 6 + 6 and s.scores == (20, 42)


def test_K14_red_in_a_pocket_two_skaeve_plus_the_points(game):
    """Seed: "Hvis den røde ball går i hul, gives der 2 skæve samt det antal point, der er
    scoret." K-14: penalty 2 + the shot's points (a pin by the white, 2) = 4 to the
    opponent."""
    out, s = play(game, mid(), PIN + [(1.0, "pocket", "red", 0)])
    assert out.fouls == ("K-14",) and out.penalty == 2 and out.skaeve == 4
    assert out.shooter_points == 0 and s.scores == (0, 4)


def test_K14_red_in_a_pocket_without_points_is_two(game):
    """Seed: "... gives der 2 skæve samt det antal point, der er scoret" - with no points
    scored, just 2 (K-14)."""
    out, s = play(game, mid(), HIT + [(1.0, "pocket", "red", 0)])
    assert out.skaeve == 2 and s.scores == (0, 2)


def test_K14_red_in_a_pocket_with_rodt_and_white_pocketed(game):
    """Seed: "... 2 skæve samt det antal point, der er scoret." K-14: rødt 4 + white pocketed 2
    + 2 = 8 across."""
    ev = RODT + [(0.9, "pocket", "white", 3), (1.3, "pocket", "red", 1)]
    out, s = play(game, mid(), ev, end={"spotted": (0.3, 0.3)})
    assert out.rodt and out.penalty == 2 and out.skaeve == 8 and s.scores == (0, 8)


def test_K13_red_topples_a_pin_after_a_cushion_points_only(game):
    """Seed: "Hvis en kegle væltes af den røde ball, efter at den har været i banden ..., gives
    det antal point, der er scoret." K-13: penalty 0, the points go across."""
    ev = [(0.1, "ball_ball", "red", "white"), (0.3, "cushion", "red", 2),
          (0.6, "pin", "red", "pin2")]
    out, s = play(game, mid(), ev)
    assert out.fouls == ("K-13",) and out.penalty == 0 and out.skaeve == 2
    assert out.shooter_points == 0 and s.scores == (0, 2)
    assert s.ball_in_hand is None and s.balls[0] == START["red"]  # no ball in hand for K-13


def test_K13_red_nakket_ind_by_a_white_points_only(game):
    """Seed: "... eller er blevet "nakket" ind, gives det antal point, der er scoret." K-13: the
    red, after touching a white (no cushion of its own; the white reaches one), topples the king
    alone: 6 across, penalty 0."""
    ev = HIT + [(0.6, "pin", "red", "king")]
    out, s = play(game, mid(), ev)
    assert out.fouls == ("K-13",) and out.king_alone and out.penalty == 0
    assert out.skaeve == 6 and s.scores == (0, 6)


def test_K13_red_and_white_pins_all_go_across(game):
    """K-13 + K-9a: the white's pin and the red's pin are the shot's points, all across."""
    ev = PIN + [(0.9, "pin", "red", "pin3")]
    out, s = play(game, mid(), ev)
    assert out.skaeve == 4 and out.penalty == 0 and s.scores == (0, 4)


def test_K16_pin_toppled_by_cue_machine_or_hand_six_plus_points(game):
    """Seed: "Hvis en kegle væltes med kø, maskine ("jomfru") eller hånd, efter stødballen er
    ramt, gives der 6 skæve samt det antal point, der er scoret." K-16 + K-9a: the pin counts 2,
    plus the white's pin 2, plus 6 = 10."""
    for by in ("cue", "maskine", "hand"):
        out, s = play(game, mid(), PIN, inject=[{"type": "pin_toppled", "pins": ["pin3"],
                                                 "by": by}])
        assert out.penalty == 6 and out.points == 4 and out.skaeve == 10, by
        assert s.scores == (0, 10) and all(s.pins)  # both pins stood up again (K-P7)


def test_K12_direct_shot_into_the_pins_six_plus_points(game):
    """Seed: "Det samme gælder ved direkte stød i keglerne" (6 skæve + points). K-12: the red
    topples a pin before touching a cushion or a white."""
    ev = [(0.2, "pin", "red", "pin3"), (0.3, "pin_pin", "pin3", "king"),
          (0.5, "ball_ball", "red", "white"), (0.7, "cushion", "white", 1)]
    out, s = play(game, mid(), ev)
    assert out.fouls == ("K-12",) and out.penalty == 6 and out.skaeve == 4 + 6
    assert s.scores == (0, 10)


def test_K10_no_ball_reaches_a_cushion_six_plus_points(game):
    """Seed: "... hvis ingen ball rammer banden" (6 skæve + points). K-10: the white topples a
    pin, nothing reaches a cushion: 2 + 6."""
    ev = [(0.1, "ball_ball", "red", "white"), (0.5, "pin", "white", "pin1")]
    out, s = play(game, mid(), ev)
    assert out.fouls == ("K-10",) and out.skaeve == 8 and s.scores == (0, 8)


def test_K11_red_misses_the_white_six_plus_points(game):
    """Seed: "... eller hvis stødballen ikke rammer den hvide ball" (6 skæve + points). K-11:
    the red touches no white: 6."""
    out, s = play(game, mid(), MISS)
    assert out.fouls == ("K-11",) and out.penalty == 6 and out.skaeve == 6
    assert s.scores == (0, 6) and s.ball_in_hand is None  # no ball in hand for K-11


def test_K11_with_a_red_pin_after_a_cushion(game):
    """K-11 + K-13: the red misses the whites but topples a pin after a cushion: 2 + 6 (the
    highest single penalty)."""
    out, s = play(game, mid(), MISS + [(0.4, "pin", "red", "pin3")])
    assert set(out.fouls) == {"K-11", "K-13"} and out.penalty == 6 and out.skaeve == 8


def test_K16_touche_six_plus_points(game):
    """Seed: "Der gives også 6 skæve samt det antal point, der er scoret, hvis den hvide ball
    røres med køen (touché)". K-16: 6 + the white's pin 2."""
    out, s = play(game, mid(), PIN, inject=[{"type": "touche"}])
    assert out.penalty == 6 and out.skaeve == 8 and s.scores == (0, 8)


def test_K16_pins_not_in_place_six_plus_points(game):
    """Seed: "... hvis keglerne ikke står på deres plads, når der stødes" (6 + points). K-16."""
    out, s = play(game, mid(), PIN, inject=[{"type": "pins_not_in_place"}])
    assert out.penalty == 6 and out.skaeve == 8 and s.scores == (0, 8)


def test_K15_break_ball_in_front_of_the_salvo_line_six_plus_points(game):
    """Seed: "... eller hvis udlægsballen er foran salvolinjen." K-15: the break is played and
    scored, with penalty 6: the shot's points (king alone 6) + 6 go across."""
    s = game.new_state(2)
    out, s2 = play(game, s, HIT + [(0.8, "pin", "white", "king")],
                   start={"red": (-0.45, 0.25)})
    assert out.played and out.fouls == ("K-15",) and out.skaeve == 12
    assert s2.scores == (0, 12) and s2.ball_in_hand is None and s2.to_play == 1


def test_K16_balls_not_at_rest_six_plus_points(game):
    """Seed: "Hvis kuglerne ikke ligger stille, når der stødes, ... gives der ligeledes 6 skæve
    samt det antal point, der er scoret." K-16 moving_balls."""
    out, s = play(game, mid(), RODT, inject=[{"type": "moving_balls"}])
    assert out.penalty == 6 and out.skaeve == 10 and s.scores == (0, 10)


def test_K14a_ball_on_the_cushion_top_six_plus_points(game):
    """Seed: "... eller hvis en af ballerne har været uden for spillefladen, inklusive
    banderne, gives der ligeledes 6 skæve samt det antal point, der er scoret." K-14a: the white
    ran on the cushion top and came back: 6 + the pin 2; it stays where it stopped."""
    out, s = play(game, mid(), PIN, inject=[{"type": "off_table", "ball": "white",
                                             "returned": True}], end={"white": (0.4, 0.3)})
    assert out.fouls == ("K-14a",) and out.skaeve == 8 and s.scores == (0, 8)
    assert s.balls[1] == (0.4, 0.3)


def test_penalty_is_the_highest_single_one_not_a_sum(game):
    """Spec (Fouls): a shot's penalty is the highest single value, never a sum. K-10 (6) + K-14
    (2) + K-13 (0): 6 + points."""
    ev = [(0.1, "ball_ball", "red", "white"), (0.4, "pin", "red", "pin2"),
          (0.9, "pocket", "red", 4)]
    out, s = play(game, mid(), ev)
    assert {"K-10", "K-13", "K-14"} <= set(out.fouls) and out.penalty == 6
    assert out.skaeve == 2 + 6 and s.ball_in_hand == "salvo"


# =================================================================================================
# Spillets start og diverse "Husets Regler"
# =================================================================================================

def test_K3_start_whites_on_their_spots_red_behind_the_salvo_line(game):
    """Seed: "Ved spillets start placerer dommeren de to hvide baller på de afmærkede pletter.
    Den røde ball placeres bag salvolinjen af den spiller, som lægger ud." K-3/K-4."""
    s = game.new_state(3)
    assert s.balls[1] == BOTTOM_SPOT and s.balls[2] == TOP_SPOT and s.balls[0] is None
    assert s.ball_in_hand == "salvo" and all(s.pins) and s.to_play == 0
    assert s.scores == (0, 0, 0)
    # placed behind the line (and on it): legal, no K-15
    for x in (-0.9, -L / 4):
        out, s2 = play(game, s, PIN, start={"red": (x, 0.3)})
        assert not out.foul and s2.scores == (2, 0, 0)


def test_K3_break_red_may_not_overlap_a_white(game):
    """K-3: the break placement may not overlap a ball; touching is fine (K-19)."""
    s = game.new_state(2)
    R = game.R
    assert game.placement_error(s, (-L / 4 - 2 * R + 0.01, 0.0)) is not None
    assert game.placement_error(s, (-L / 4 - 2 * R, 0.0)) is None


def test_KP7_pins_are_set_up_again_every_time(game):
    """Seed: "Keglerne skal sættes på plads hver gang." K-P7: after the shot every toppled pin
    whose spot is free stands again."""
    out, s = play(game, mid(), HIT + CROSS, end={"white": (0.6, 0.3)})
    assert all(s.pins) and set(out.pins_restood) == {"king", "pin1", "pin2", "pin3", "pin4"}


def test_KP7_pin_stays_down_while_a_ball_covers_its_spot(game):
    """K-P7: a toppled pin whose spot a ball covers (centre within 42.75 mm) stays out until a
    later shot frees it."""
    out, s = play(game, mid(), PIN, end={"white": (0.082 + 0.041, 0.0)})
    assert s.pins == (True, False, True, True, True)
    assert out.pins_waiting == ("pin1",)


def test_K20_three_balls_in_pockets_wins(game):
    """Seed: "Tre kugler i hul betyder, at spillet er vundet." K-20: the shooter wins at once;
    no points change hands."""
    out, s = play(game, mid(2, scores=(30, 60)), ALL_DOWN)
    assert out.win and s.game_over and s.ranking == (0, 1) and s.scores == (30, 60)


def test_K20_ball_over_the_side_counts_as_in_a_pocket_for_the_win(game):
    """Seed: "Kugler over bord er ikke tilladt, og en kugle over bord tæller som en kugle i
    hul." K-20/K-14a: two balls pocketed and the third off the table -> the shooter wins."""
    ev = BLEGT + [(0.9, "pocket", "white", 3), (1.2, "pocket", "red", 1)]
    out, s = play(game, mid(2), ev, inject=[{"type": "off_table", "ball": "spotted"}])
    assert out.win and s.game_over and s.ranking == (0, 1)


def test_K20_wins_even_without_a_cushion(game):
    """K-20 overrides every physics foul of that shot (here K-10 and K-14)."""
    ev = [(0.1, "ball_ball", "red", "white"), (0.5, "ball_ball", "white", "spotted"),
          (0.9, "pocket", "white", 4), (1.0, "pocket", "spotted", 5), (1.2, "pocket", "red", 1)]
    out, s = play(game, mid(2, scores=(0, 50)), ev)
    assert out.win and not out.foul and s.game_over and s.scores == (0, 50)


def test_K20_injected_foul_cancels_the_win(game):
    """K-20: an injected K-16 foul in the same shot cancels the win (a touché here): the whites
    2 + 2 and the blegt 4 plus 6 go across; the red is in hand behind the line (K-14)."""
    out, s = play(game, mid(2), ALL_DOWN, inject=[{"type": "touche"}])
    assert not out.win and not s.game_over and out.skaeve == 8 + 6 and s.scores == (0, 14)
    assert s.ball_in_hand == "salvo"


def test_K20_waiting_white_does_not_count(game):
    """K-20: a white still waiting to be spotted from an earlier shot does not count."""
    ev = [(0.1, "ball_ball", "red", "spotted"), (0.3, "cushion", "spotted", 1),
          (0.9, "pocket", "spotted", 3), (1.0, "pocket", "red", 1)]
    out, s = play(game, mid(balls={"white": None}), ev, absent=["white"])
    assert not out.win and out.fouls == ("K-14",) and out.skaeve == 2 + 2


def test_K19_touche_gives_the_next_player_ball_in_hand(game):
    """Seed: "Ved touché får den næste spiller ball i hånd." K-16/K-19: anywhere on the cloth;
    the salvo line does not apply then (no K-15 in front of it)."""
    out, s = play(game, mid(), HIT, inject=[{"type": "touche"}])
    assert s.ball_in_hand == "cloth" and s.balls[0] is None and s.to_play == 1
    out, s2 = play(game, s, PIN, start={"red": (0.4, 0.3)})
    assert not out.foul and out.shooter_points == 2 and s2.scores == (0, 8)


def test_K19_double_hit_is_a_touche_ball_in_hand(game):
    """Seed: "Der dømmes også fejl, hvis spilleren laver touché. Det vil sige, hvis en ball
    berøres med andet end køens læderdup, eller hvis spilleren laver dobbeltstød" + "Ved touché
    får den næste spiller ball i hånd." K-16/K-19: a double hit is a touché: 6 and ball in
    hand."""
    out, s = play(game, mid(), HIT, inject=[{"type": "double_hit"}])
    assert out.penalty == 6 and out.skaeve == 6 and s.ball_in_hand == "cloth"


def test_K19_no_cushion_gives_ball_in_hand(game):
    """Seed: "Det samme gælder, hvis ingen ball rammer banden." K-10/K-19."""
    _, s = play(game, mid(), [(0.1, "ball_ball", "red", "white")])
    assert s.ball_in_hand == "cloth" and s.balls[0] is None


@pytest.mark.parametrize("kind", ["moving_balls", "pins_not_in_place", "no_foot_on_floor",
                                  "guide_marks"])
def test_K19_other_fouls_give_no_ball_in_hand(game, kind):
    """Seed: ball in hand only "Ved touché" and "hvis ingen ball rammer banden" (and K-14 by the
    spec): other K-16 fouls leave the red where it stopped."""
    _, s = play(game, mid(), HIT, inject=[{"type": kind}])
    assert s.ball_in_hand is None and s.balls[0] == START["red"]


def test_K19_red_in_a_pocket_ball_in_hand_behind_the_salvo_line(game):
    """K-14/K-19: after the red is pocketed the next player places it on or behind the salvo
    line; in front of the line is K-15 (6 + points)."""
    _, s = play(game, mid(), HIT + [(1.0, "pocket", "red", 0)])
    assert s.ball_in_hand == "salvo"
    out, s2 = play(game, s, PIN, start={"red": (-0.3, 0.3)})
    assert out.fouls == ("K-15",) and out.skaeve == 8 and s2.scores == (8, 2)
    out, s3 = play(game, s, PIN, start={"red": (-0.8, 0.3)})
    assert not out.foul and s3.scores == (0, 4)


def test_K18_white_that_cannot_be_spotted_waits_play_with_two_balls(game):
    """Seed: "Hvis en ball ikke kan lægges på pletten, må der spilles med to baller. Den tredje
    ball lægges på plads, når stødet er afsluttet, og de to baller ligger stille." K-18."""
    # the white is pocketed; the spotted white lies in the top half, so the white's spot is the
    # bottom one, which the red covers
    out, s = play(game, mid(), HIT + [(0.9, "pocket", "white", 3)],
                  end={"spotted": (0.5, 0.3), "red": (-0.50, 0.03)})
    assert out.whites_waiting == ("white",) and s.balls[1] is None
    # the next shot is played with two balls; once it is over and the spot free, the white is
    # put on its spot
    nxt = [(0.1, "ball_ball", "red", "spotted"), (0.3, "cushion", "spotted", 2)]
    out, s = play(game, s, nxt, absent=["white"],
                  start={"red": (-0.50, 0.03), "spotted": (0.5, 0.3)},
                  end={"red": (0.1, 0.3), "spotted": (0.7, -0.3)})
    assert s.balls[1] == BOTTOM_SPOT and out.whites_spotted == {"white": BOTTOM_SPOT}


def test_K18_pocketed_white_goes_on_the_spot_farther_from_the_other_white(game):
    """K-18: a pocketed white is spotted on the white spot farther from the other white - its
    own spot or not."""
    # spotted pocketed; the white lies in the top half: the spotted goes on the bottom spot
    ev = BLEGT + [(0.9, "pocket", "spotted", 2)]
    out, s = play(game, mid(), ev, end={"white": (0.4, 0.3), "red": (0.0, -0.3)})
    assert s.balls[2] == BOTTOM_SPOT
    # white pocketed; the spotted white lies in the bottom half: the white goes on the top spot
    ev = HIT + [(0.9, "pocket", "white", 3)]
    out, s = play(game, mid(), ev, end={"spotted": (-0.3, -0.3), "red": (0.0, 0.3)})
    assert s.balls[1] == TOP_SPOT


def test_K18_both_whites_pocketed_one_on_each_spot(game):
    """K-18: both whites pocketed: one on each spot."""
    ev = BLEGT + [(0.9, "pocket", "white", 3), (1.0, "pocket", "spotted", 2)]
    _, s = play(game, mid(), ev, end={"red": (0.0, -0.3)})
    assert {s.balls[1], s.balls[2]} == {BOTTOM_SPOT, TOP_SPOT}


# =================================================================================================
# Fejl
# =================================================================================================

def test_K16_deliberate_touch_foul_and_balls_put_back(game):
    """Seed: "Der dømmes fejl, hvis spilleren bevidst berører en eller flere baller med hånden,
    køen eller en anden genstand. Ballen eller ballerne skal ... lægges tilbage på den plads,
    hvor de lå, før fejlen blev begået." K-16: 6 + points; the touched ball is put back."""
    out, s = play(game, mid(), PIN, inject=[{"type": "deliberate_touch",
                                             "balls": {"spotted": [0.3, -0.2]}}],
                  end={"spotted": (0.7, 0.3)})
    assert out.penalty == 6 and out.skaeve == 8 and s.scores == (0, 8)
    assert s.balls[2] == (0.3, -0.2)


def test_K16_unsportsmanlike_option_loses_the_match():
    """Seed: "I særligt grove tilfælde kan en bevidst fejl betegnes som "usportslig optræden",
    og dommeren kan dømme spilleren som taber af kampen." K-16 option unsporting_loss."""
    g = KeglebillardGame(load_rules(unsporting_loss=True))
    out, s = play(g, mid(2, scores=(40, 10)), HIT,
                  inject=[{"type": "deliberate_touch", "balls": {"white": [-0.3, -0.2]},
                           "unsporting": True}])
    assert s.game_over and s.ranking == (1, 0)
    # without the option it is an ordinary K-16 foul
    out, s = play(KeglebillardGame(), mid(2, scores=(40, 10)), HIT,
                  inject=[{"type": "deliberate_touch", "balls": {"white": [-0.3, -0.2]},
                           "unsporting": True}])
    assert not s.game_over and s.scores == (40, 16)


@pytest.mark.parametrize("kind", ["touche", "double_hit", "no_foot_on_floor", "guide_marks"])
def test_K16_player_fouls_six(game, kind):
    """Seed: "Der dømmes også fejl, hvis spilleren laver touché ... eller hvis spilleren laver
    dobbeltstød. Det samme gælder, hvis spilleren ikke berører gulvet i det øjeblik, der
    stødes, eller hvis spilleren bevidst laver synlige retningslinjer eller holdepunkter på
    banden." K-16: penalty 6 (plus the points)."""
    out, s = play(game, mid(3), RODT, inject=[{"type": kind}])
    assert out.penalty == 6 and out.skaeve == 4 + 6 and s.scores == (0, 10, 10)


def test_K12_K13_red_toppling_a_pin_is_always_a_foul(game):
    """Seed: "Derudover dømmes der fejl, hvis den røde ball vælter en kegle". K-12/K-13: a red
    pin is never a legal score, whether first (K-12) or after a cushion/white (K-13)."""
    r1 = score([(0.2, "pin", "red", "king"), (0.4, "ball_ball", "red", "white"),
                (0.6, "cushion", "white", 1)])
    r2 = score(HIT + [(0.6, "pin", "red", "king")])
    assert r1["foul"] and r1["fouls"] == {"K-12"} and r1["skaeve"] == 12
    assert r2["foul"] and r2["fouls"] == {"K-13"} and r2["skaeve"] == 6
    assert r1["shooter_points"] == r2["shooter_points"] == 0


def test_K12_chain_started_by_the_red_is_the_reds(game):
    """K-P3/K-12: a pin toppled by a falling pin belongs to the ball that started the chain."""
    ev = [(0.2, "pin", "red", "pin3"), (0.3, "pin_pin", "pin3", "king"),
          (0.5, "ball_ball", "red", "white"), (0.7, "cushion", "white", 1)]
    out, _ = play(game, mid(), ev)
    assert out.pins_toppled == {"pin3": ("red",), "king": ("red",)} and out.fouls == ("K-12",)


def test_KP3_red_and_white_chains_reach_a_pin_at_once_red_is_blamed(game):
    """K-P3: "Each toppled pin is attributed to the ball that started its chain. If the red and
    a white topple the same pin at the same instant, the red is blamed". The red's chain (pin3)
    and the white's chain (pin1) reach the king at the same instant: the king is the red's."""
    ev = HIT + [(0.5, "pin", "red", "pin3"), (0.5, "pin", "white", "pin1"),
                (0.6, "pin_pin", "pin3", "king"), (0.6, "pin_pin", "pin1", "king")]
    out, _ = play(game, mid(), ev)
    assert out.fouls == ("K-13",) and out.skaeve == 6  # these agree
    assert out.pins_toppled["king"] == ("red",)


def test_KP3_red_and_white_topple_one_pin_at_once_red_is_blamed(game):
    """K-P3: the red and a white topple the same pin at the same instant: the red is blamed
    (K-13 here)."""
    ev = HIT + [(0.7, "pin", "red", "pin2"), (0.7, "pin", "white", "pin2")]
    out, s = play(game, mid(), ev)
    assert out.fouls == ("K-13",) and out.skaeve == 2 and s.scores == (0, 2)


@pytest.mark.parametrize("by", ["cue", "maskine", "clothes", "body"])
def test_K16_pin_toppled_during_the_shot_by_cue_rest_clothes_or_body(game, by):
    """Seed: "Det er også en fejl, hvis en kegle under stødet væltes med kø, maskine, tøj eller
    en legemsdel." K-16 pin_toppled: the pin counts 2, penalty 6."""
    out, s = play(game, mid(), HIT, inject=[{"type": "pin_toppled", "pins": ["king"],
                                             "by": by}])
    assert out.penalty == 6 and out.points == 2 and out.skaeve == 8 and s.scores == (0, 8)


# =================================================================================================
# Afslutning (K-20 .. K-23)
# =================================================================================================

def test_K22_two_players_game_ends_when_the_player_topples_pins(game):
    """Seed: "Et spil kan afsluttes ved, at spilleren vælter kegler ..., således at distancen
    på 70 point kan opnås." K-22: with two players, reaching 70 by a legal shot that topples a
    pin ends the game; the shooter wins."""
    out, s = play(game, mid(2, scores=(68, 40)), PIN)
    assert s.scores == (70, 40) and s.game_over and s.ranking == (0, 1)


def test_K22_two_players_game_ends_by_the_opponents_skaeve(game):
    """Seed: "... eller hvis modspilleren laver det fornødne antal skæve, således at distancen
    på 70 point kan opnås." K-22: the opponent's foul takes the player to 70: the game ends, the
    receiver wins."""
    out, s = play(game, mid(2, scores=(10, 64)), MISS)
    assert s.scores == (10, 70) and s.game_over and s.ranking == (1, 0)


def test_K22_two_players_70_without_a_pin_plays_on(game):
    """Seed (Afslutning): only pins or the opponent's skæve end the game (the "bare ... 70
    eller over" exception is for all but the last two). K-22: reaching 70 by a rødt or a white
    in a pocket does not end it; the points stand."""
    out, s = play(game, mid(2, scores=(66, 40)), RODT)
    assert s.scores == (70, 40) and not s.game_over and s.to_play == 1
    out, s = play(game, mid(2, scores=(68, 40)), HIT + [(0.9, "pocket", "white", 3)],
                  end={"red": (0.2, -0.3)})
    assert s.scores == (70, 40) and not s.game_over


def test_K22_over_70_then_a_legal_pin_later_ends_it(game):
    """K-22: a player already at 70 or more finishes with a later legal pin."""
    out, s = play(game, mid(2, scores=(74, 40)), PIN)
    assert s.game_over and s.ranking == (0, 1) and s.scores == (76, 40)


def test_K22_nakket_ind_skaeve_end_the_game(game):
    """K-22: skæve of a K-13 foul (penalty 0) from the opponent finish the receiver."""
    out, s = play(game, mid(2, scores=(20, 68)), HIT + [(0.6, "pin", "red", "pin1")])
    assert s.scores == (20, 70) and s.game_over and s.ranking == (1, 0)


def test_K22_own_foul_with_pins_does_not_end_it(game):
    """K-22: the pin must be toppled legally; a foul shot's points go across anyway."""
    out, s = play(game, mid(2, scores=(72, 40)), PIN + [(1.0, "pocket", "red", 0)])
    assert not s.game_over and s.scores == (72, 44)


def test_K21_all_but_the_last_two_finish_by_just_reaching_70(game):
    """Seed: "Dog kan alle spillere, undtagen de sidste to, afslutte deres deltagelse ved bare
    at lave points til 70 eller over." K-21: with three players in, a rødt to 70 finishes; with
    two left the same does not (K-22)."""
    out, s = play(game, mid(3, scores=(66, 60, 10)), RODT)
    assert s.finished == (0,) and s.in_game == (1, 2) and s.to_play == 1
    out, s = play(game, s, RODT)
    assert s.scores == (70, 64, 10) and not s.game_over
    s = GameState(order=(0, 1, 2), scores=(70, 66, 10), to_play=1, finished=(0,),
                  balls=(START["red"], START["white"], START["spotted"]), ball_in_hand=None,
                  shot=9)
    out, s = play(game, s, RODT)
    assert s.scores == (70, 70, 10) and not s.game_over and s.to_play == 2


def test_K21_finishing_by_received_skaeve_with_three_players(game):
    """K-21: "by any points (own or received skæve)": three players in, the skæve take a player
    to 70: it finishes."""
    out, s = play(game, mid(3, scores=(10, 66, 20)), MISS)
    assert s.finished == (1,) and s.scores == (10, 72, 26) and s.to_play == 2


def test_K21_the_first_to_70_is_the_first_out(game):
    """Seed: "Spilleren, som går ud af spillet først er ham der opnår 70 point, eller derover,
    først." K-21: finishing order is the ranking; the last player left loses (K-22)."""
    s = mid(3, scores=(68, 50, 66))
    _, s = play(game, s, PIN)  # player 0 to 70: first out
    assert s.finished == (0,)
    _, s = play(game, s, HIT)  # player 1: nothing
    _, s = play(game, s, HIT + [(0.8, "pin", "white", "king")])  # player 2: 72 with a pin
    assert s.game_over and s.ranking == (0, 2, 1)


def test_K21a_shooter_first_then_turn_order(game):
    """K-21a: after a shot the players at 70+ are taken shooter first, then in turn order after
    the shooter, each with the number of players still in at that moment. Player 1's foul gives
    players 2 and 0 six each: 2 finishes with 3 in (K-21); then two are left and 0 got skæve
    from the opponent (K-22): 0 finishes too and 1 loses."""
    out, s = play(game, mid(3, scores=(64, 30, 65), to_play=1), MISS)
    assert s.game_over and s.ranking == (2, 0, 1) and out.finished == (2, 0, 1)


def test_K20_ends_the_game_with_three_players_ranking_by_points(game):
    """K-20: three or more players still in: the game ends, the shooter first, the others by
    points (ties: turn order after the shooter)."""
    out, s = play(game, mid(4, scores=(20, 50, 20, 5), to_play=3), ALL_DOWN)
    assert s.game_over and s.ranking == (3, 1, 0, 2)


def test_K17_skaeve_go_to_every_other_player_in_full(game):
    """Spec K-17 (the seed: "til modstanderen"): with more than two players each other player
    still in gets the skæve in full."""
    out, s = play(game, mid(4, scores=(0, 70, 0, 0), to_play=2, finished=(1,)), PIN + [
        (1.0, "pocket", "red", 0)])
    assert out.skaeve == 4 and s.scores == (4, 70, 0, 4) and s.to_play == 3


def test_K23_next_game_loser_breaks_winner_last(game):
    """Seed: "I det efterfølgende spil skal vinderen af foregående spil starte som den sidste.
    Taberen starter næste spil." K-23."""
    s = mid(3, scores=(68, 50, 66))
    _, s = play(game, s, PIN)
    _, s = play(game, s, HIT)
    _, s = play(game, s, HIT + [(0.8, "pin", "white", "king")])
    assert s.ranking == (0, 2, 1)
    nxt = game.next_game(s)
    assert nxt.to_play == 1 and nxt.order == (1, 2, 0) and nxt.ball_in_hand == "salvo"
    assert nxt.scores == (0, 0, 0)


# =================================================================================================
# Spec items the seed leaves open
# =================================================================================================

def test_K2_the_red_is_always_the_cue_ball(game):
    """K-2: a log that strikes a white is refused."""
    with pytest.raises(ValueError, match="K-2"):
        play(game, mid(), HIT, struck=("white",))


def test_K19_placement_rules(game):
    """K-19: the red may touch a ball but not overlap one; its centre at least R + r_pin from
    every pin spot; on the cloth."""
    s = mid(hand="cloth")
    R = game.R
    assert game.placement_error(s, (L / 4 - 2 * R, 0.0)) is None  # touching the spotted ball
    assert game.placement_error(s, (L / 4 - 2 * R + 0.005, 0.0)) is not None
    assert game.placement_error(s, (0.0, 0.082 + R + 0.010)) is None
    assert game.placement_error(s, (0.0, 0.082 + R + 0.005)) is not None
    assert game.placement_error(s, (0.0, 0.0)) is not None  # on the king
    assert game.placement_error(s, (1.06, 0.0)) is not None  # off the cloth


def test_K19_unplayable_placement_is_a_foul_without_a_shot(game):
    """K-19: an unplayable placement: no shot, penalty 6 and no points to every other player
    still in (K-17), the next player has ball in hand."""
    s = mid(3, scores=(1, 2, 3), to_play=0, hand="cloth")
    out, s2 = game.placement_foul(s, (L / 4, 0.01))
    assert not out.played and out.points == 0 and out.penalty == 6
    assert s2.scores == (1, 8, 9) and s2.to_play == 1 and s2.ball_in_hand == "cloth"


def test_K19_ball_in_hand_anywhere_after_no_cushion_then_legal_in_front(game):
    """K-19: after K-10 (no K-14) anywhere on the cloth: a placement in the top half is legal
    and the salvo line does not apply."""
    _, s = play(game, mid(), [(0.1, "ball_ball", "red", "white")])
    out, s2 = play(game, s, PIN, start={"red": (0.6, -0.3)})
    assert not out.foul and out.shooter_points == 2 and s2.scores == (0, 8)


def test_K19_option_behind_the_salvo_line_only():
    """K-19 option ``ball_in_hand_area: salvo``: after a touché the red goes behind the line."""
    g = KeglebillardGame(load_rules(ball_in_hand_area="salvo"))
    _, s = play(g, mid(), HIT, inject=[{"type": "touche"}])
    assert s.ball_in_hand == "salvo"


def test_K17_option_only_to_the_next_player():
    """K-17 option: the skæve only to the next player."""
    g = KeglebillardGame(load_rules(skaeve_to="next"))
    out, s = play(g, mid(3), MISS)
    assert s.scores == (0, 6, 0)


def test_K13_option_frhv_nakkebal():
    """K-13 option ``frhv_nakkebal``: a cushion alone is not enough; the red must have touched a
    white before the pin, else K-12 (penalty 6)."""
    ev = [(0.1, "cushion", "red", 4), (0.3, "pin", "red", "pin3"),
          (0.5, "ball_ball", "red", "white")]
    assert score(ev)["fouls"] == {"K-13"}
    r = score(ev, rules=load_rules(frhv_nakkebal=True))
    assert r["fouls"] == {"K-12"} and r["skaeve"] == 8


def test_K10_option_direct_shot_into_the_pins():
    """K-10 option ``cushion_before_pins`` (seed: "direkte stød i keglerne"): a white pushed
    straight into the pins before any cushion: a foul with penalty 6."""
    ev = [(0.1, "ball_ball", "red", "white"), (0.3, "pin", "white", "king"),
          (0.6, "cushion", "white", 1)]
    assert not score(ev)["foul"]
    r = score(ev, rules=load_rules(cushion_before_pins=True))
    assert r["foul"] and r["penalty"] == 6 and r["skaeve"] == 12


def test_K9a_injected_pin_counts_two_and_spoils_king_alone(game):
    """K-9a: pins toppled by an injected K-16 event count 2 each; the king is then not alone."""
    out, s = play(game, mid(), HIT + [(0.8, "pin", "white", "king")],
                  inject=[{"type": "pin_toppled", "pins": ["pin4"], "by": "hand"}])
    assert not out.king_alone and out.points == 4 and out.skaeve == 10


def test_K25_ddbu_keeps_the_turn_while_scoring():
    """K-25 variant ``ddbu``: a player keeps shooting while scoring without a foul; a white in a
    pocket scores nothing there."""
    g = KeglebillardGame(load_rules(variant="ddbu"))
    out, s = play(g, mid(2), PIN)
    assert s.scores == (2, 0) and s.to_play == 0
    out, s = play(g, s, HIT + [(0.9, "pocket", "white", 3)], end={"red": (0.2, -0.3)})
    assert s.scores == (2, 0) and s.to_play == 1


def test_K22_both_over_70_the_legal_pin_shooter_wins(game):
    """K-21a/K-22: two players, the opponent waits at 72 (reached without a pin); the shooter
    reaches 70 with a legal pin: taken first, the shooter finishes and wins."""
    out, s = play(game, mid(2, scores=(68, 72)), PIN)
    assert s.game_over and s.ranking == (0, 1) and s.scores == (70, 72)


def test_K12_K11_red_into_the_pins_and_no_white(game):
    """K-11 + K-12: the red goes straight into the pins and never meets a white: points + 6."""
    ev = [(0.2, "pin", "red", "king"), (0.5, "cushion", "red", 5)]
    out, s = play(game, mid(), ev)
    assert set(out.fouls) == {"K-11", "K-12"} and out.penalty == 6
    assert out.king_alone and out.skaeve == 12 and s.scores == (0, 12)


def test_K10_option_direct_shot_gives_no_ball_in_hand():
    """Seed: ball in hand "Ved touché" and "hvis ingen ball rammer banden" only; the K-10 option
    (a pin toppled before any cushion although a ball reaches one later) is a foul with penalty 6
    but no ball in hand (docs' reading; the spec's K-19 names K-10 without the option)."""
    g = KeglebillardGame(load_rules(cushion_before_pins=True))
    ev = [(0.1, "ball_ball", "red", "white"), (0.3, "pin", "white", "pin3"),
          (0.6, "cushion", "white", 1)]
    out, s = play(g, mid(), ev)
    assert out.foul and out.penalty == 6 and out.skaeve == 8 and s.ball_in_hand is None


def test_K22_score_json_opponents_skaeve_end_the_game():
    """Seed: "... hvis modspilleren laver det fornødne antal skæve" through the JSON referee
    (score_json): the red pocketed after the white's pin takes the opponent from 66 to 70."""
    from cuegym.rules.keglebillard_game import score_json
    res = score_json({"state": {"players": 2, "ball_in_hand": None, "scores": [30, 66],
                                "balls": {"red": [-0.7, 0.1], "white": [-0.525, 0.0],
                                          "spotted": [0.525, 0.0]}},
                      "hand_log": {"events": [[0.1, "ball_ball", "red", "white"],
                                              [0.3, "cushion", "white", "cushion1"],
                                              [0.8, "pin", "white", "pin1"],
                                              [1.0, "pocket", "red", "bottom_left_corner"]]}})
    o = res["outcome"]
    assert o["points"] == 2 and o["penalty"] == 2 and o["skaeve"] == 4
    assert o["scores"] == [30, 70] and o["game_over"] and o["ranking"] == [1, 0]


# --- real physics: a position and a strike -------------------------------------------------------

def _strike(game, state, cue, place=None):
    import numpy as np

    from cuegym.games.strikes import Strikes
    out, new = game.play([state], Strikes.of([cue], place=None if place is None else [place]),
                         None, np.random.default_rng(0), allow_overflow=True)
    return out, new.state(0)


def _line_up(**kw):
    """Red at (-0.5, 0), white at (-0.2, 0) on the long axis, in line with pin3, king, pin1."""
    return mid(balls={"red": (-0.5, 0.0), "white": (-0.2, 0.0), "spotted": (0.6, 0.3)}, **kw)


def test_real_KP1_slow_contact_leaves_the_pin_standing(game):
    """K-P1: a contact below the topple speed leaves the pin standing (0 points); a slightly
    faster white topples pin3, which falls onto the king, which falls onto pin1 (K-P2 chain,
    all the white's, K-P3): 6 points. Straight along the axis, no ball reaches a cushion: K-10."""
    from cuegym.physics.constants import EV_BALL_PIN
    touched_only = toppled = False
    for V in (0.262, 0.264, 0.266, 0.268, 0.27, 0.272, 0.274, 0.276):
        out, s = _strike(game, _line_up(), [V, 0.0, 0.0, 0.0, 0.0])
        o = out.outcome(0)
        n = int(out.sim.n_events[0])
        contact = any(int(out.sim.ev_type[0, k]) == EV_BALL_PIN for k in range(n))
        if contact and not o.pins_toppled:
            touched_only = True
            assert o.points == 0 and all(s.pins) and o.fouls == ("K-10",)
        if o.pins_toppled:
            toppled = True
            assert o.pins_toppled == {"pin3": ("white",), "king": ("white",),
                                      "pin1": ("white",)}
            assert o.points == 6 and o.fouls == ("K-10",) and s.scores == (0, 12)
    assert touched_only and toppled


def test_real_KP7_white_resting_on_a_pin_spot_keeps_that_pin_down(game):
    """K-P7: the white stops on pin3's spot after the chain: pin3 stays down, the king and pin1
    stand again; a later shot that frees the spot stands pin3 up."""
    from cuegym.physics.constants import EV_BALL_PIN, EV_PIN_PIN
    out, s = _strike(game, _line_up(), [0.3, 0.0, 0.0, 0.0, 0.0])
    o = out.outcome(0)
    assert set(o.pins_toppled) == {"pin3", "king", "pin1"}
    # K-P2: pin3 (hit by the white) falls along +x onto the king, the king onto pin1, each
    # 0.1 s after the pin that felled it
    sim, n = out.sim, int(out.sim.n_events[0])
    ev = [(int(sim.ev_type[0, k]), float(sim.ev_time[0, k]), int(sim.ev_i[0, k]),
           int(sim.ev_j[0, k])) for k in range(n)]
    t3 = [t for ty, t, i, j in ev if ty == EV_BALL_PIN and (i, j) == (1, 3)][0]
    chain = [(t, i, j) for ty, t, i, j in ev if ty == EV_PIN_PIN]
    assert [(i, j) for _, i, j in chain] == [(3, 0), (0, 1)]
    assert chain[0][0] == pytest.approx(t3 + 0.1) and chain[1][0] == pytest.approx(t3 + 0.2)
    assert s.pins == (True, True, True, False, True)
    assert abs(s.balls[1][0] + 0.082) < 0.04275
    # next player (red in hand after K-10) plays the white away from the spot
    s2 = s
    out2, s3 = play(game, s2, [(0.1, "ball_ball", "red", "white"),
                               (0.4, "cushion", "white", 2)],
                    start={"red": (-0.4, 0.0), "white": s.balls[1], "spotted": s.balls[2]},
                    end={"white": (-0.3, 0.4)}, pins_up0=list(s.pins))
    assert s3.pins == (True,) * 5 and out2.pins_restood == ("pin3",)
