"""Keglebillard game flow (K-1, K-4, K-16..K-25, K-P7) on hand-built event logs."""

from __future__ import annotations

import numpy as np
import pytest

from cuegym.rules.keglebillard import build_log, judge_lag, load_rules, stack_logs
from cuegym.rules.keglebillard_game import GameState, KeglebillardGame

HIT = [(0.10, "ball_ball", "red", "white"), (0.30, "cushion", "white", 1)]
RODT = [(0.10, "ball_ball", "red", "white"), (0.30, "cushion", "red", 1),
        (0.60, "ball_ball", "red", "spotted")]
PIN = HIT + [(0.8, "pin", "white", "pin1")]
K11 = [(0.1, "cushion", "red", 0)]  # the red misses both whites: penalty 6
K13 = HIT + [(0.8, "pin", "red", "pin2")]  # nakket ind: 2 points across, penalty 0
START = {"red": (-0.7, 0.1), "white": (-0.525, 0.0), "spotted": (0.525, 0.0)}


def mid(n=2, scores=None, to_play=0, *, balls=None, pins=(True,) * 5, **kw):
    """A state between shots: red on the table at START, whites on their spots."""
    b = {**START, **(balls or {})}
    return GameState(order=tuple(range(n)), scores=tuple(scores or (0,) * n), to_play=to_play,
                     balls=(b["red"], b["white"], b["spotted"]), pins=tuple(pins),
                     ball_in_hand=None, **kw)


def play(game, state, events, *, inject=None, **log_kw):
    return game.apply(state, build_log(events, **log_kw), injected=inject)


@pytest.fixture
def game():
    return KeglebillardGame()


# --- K-1 turn order ------------------------------------------------------------------------------

def test_K1_turn_passes_whatever_the_result(game):
    s = mid(3)
    out, s = play(game, s, PIN)
    assert out.shooter_points == 2 and s.to_play == 1
    out, s = play(game, s, K11)
    assert out.foul and s.to_play == 2
    out, s = play(game, s, HIT)
    assert s.to_play == 0 and s.scores == (2 + 6, 0, 6)


def test_K1_finished_players_are_skipped(game):
    s = mid(3, scores=(10, 75, 20), finished=(1,))
    _, s = play(game, s, HIT)
    assert s.to_play == 2


def test_K1_needs_two_players(game):
    with pytest.raises(ValueError, match="at least 2"):
        game.new_state(1)


# --- K-4 first player ----------------------------------------------------------------------------

def test_K4_first_player_default_random_and_lag(game):
    assert game.new_state(3).to_play == 0
    rnd = KeglebillardGame(load_rules(first_player="random"))
    firsts = {rnd.new_state(4, rng=seed).to_play for seed in range(20)}
    assert firsts <= {0, 1, 2, 3} and len(firsts) > 1
    assert rnd.new_state(4, rng=5).to_play == rnd.new_state(4, rng=5).to_play
    lag = KeglebillardGame(load_rules(first_player="lag"))
    with pytest.raises(ValueError, match="lag"):
        lag.new_state(2)
    assert lag.new_state(2, first_player=1).to_play == 1


# --- K-17 skæve to every other player ------------------------------------------------------------

def test_K17_skaeve_to_every_other_player_still_in(game):
    out, s = play(game, mid(4, finished=(3,), scores=(0, 0, 0, 71)), K11)
    assert out.skaeve_to == (1, 2) and s.scores == (0, 6, 6, 71)


def test_K17_option_next_player_only():
    game = KeglebillardGame(load_rules(skaeve_to="next"))
    out, s = play(game, mid(3, to_play=1), K11)
    assert out.skaeve_to == (2,) and s.scores == (0, 0, 6)


def test_K17_two_players_skaeve_to_the_opponent(game):
    out, s = play(game, mid(2, to_play=1), K13)
    assert out.fouls == ("K-13",) and out.skaeve_to == (0,) and s.scores == (2, 0)


# --- K-18 spotting whites ------------------------------------------------------------------------

def test_K18_white_spotted_on_spot_farther_from_other_white(game):
    events = HIT + [(0.9, "pocket", "white", 3)]
    out, s = play(game, mid(), events, end={"spotted": (0.3, 0.2), "red": (0.0, -0.4)})
    assert out.whites_spotted == {"white": (-0.525, 0.0)} and s.balls[1] == (-0.525, 0.0)
    out, s = play(game, mid(), events, end={"spotted": (-0.3, 0.2), "red": (0.0, -0.4)})
    assert s.balls[1] == (0.525, 0.0)


def test_K18_both_whites_one_on_each_spot(game):
    events = HIT + [(0.6, "ball_ball", "white", "spotted"), (0.9, "pocket", "white", 3),
                    (1.0, "pocket", "spotted", 0)]
    out, s = play(game, mid(), events, end={"red": (0.0, -0.4)})
    assert s.balls[1] == (-0.525, 0.0) and s.balls[2] == (0.525, 0.0)
    assert out.shooter_points == 4 + 4


def test_K18_covered_spot_waits_and_play_goes_on_with_two_balls(game):
    events = HIT + [(0.9, "pocket", "white", 3)]
    # the spotted ball ends far up the table; the red covers the bottom spot
    out, s = play(game, mid(), events, end={"spotted": (0.5, 0.3), "red": (-0.50, 0.02)})
    assert out.whites_waiting == ("white",) and s.balls[1] is None
    # next shot with two balls; the red moves off the spot, the white is then spotted
    nxt = [(0.1, "ball_ball", "red", "spotted"), (0.3, "cushion", "spotted", 2)]
    out, s = play(game, s, nxt, absent=["white"], start={"red": (-0.50, 0.02),
                                                         "spotted": (0.5, 0.3)},
                  end={"red": (0.2, 0.1), "spotted": (0.7, 0.4)})
    assert out.whites_spotted == {"white": (-0.525, 0.0)} and s.balls[1] == (-0.525, 0.0)


def test_K18_a_waiting_white_keeps_its_spot_until_a_shot_frees_it(game):
    # the white waits for the bottom spot (farther from the spotted ball, which the red covers)
    events = HIT + [(0.9, "pocket", "white", 3)]
    out, s = play(game, mid(), events, end={"spotted": (0.3, 0.2), "red": (-0.50, 0.02)})
    assert out.whites_waiting == ("white",) and s.wait_spots == (0, -1)
    assert s.to_dict()["waiting_for"] == {"white": "bottom", "spotted": None}
    nxt = [(0.1, "ball_ball", "red", "spotted"), (0.3, "cushion", "spotted", 2)]
    kw = dict(absent=["white"], start={"red": (-0.50, 0.02), "spotted": (0.3, 0.2)})
    # the spotted ball crosses to the bottom half, so the top spot is now the farther one; the
    # white still goes on its own spot, the bottom one, freed by this shot
    out, s2 = play(game, s, nxt, end={"red": (0.2, 0.3), "spotted": (-0.2, 0.3)}, **kw)
    assert out.whites_spotted == {"white": (-0.525, 0.0)} and s2.wait_spots == (-1, -1)
    # its spot still covered (the red stays on it), the white waits on, even with the top
    # spot free
    out, s3 = play(game, s, nxt, end={"red": (-0.50, 0.02), "spotted": (-0.2, 0.3)}, **kw)
    assert out.whites_waiting == ("white",) and s3.balls[1] is None and s3.wait_spots == (0, -1)
    # the spotted ball pocketed while the white waits for the bottom spot: it takes the top one
    out, s4 = play(game, s, nxt + [(0.9, "pocket", "spotted", 5)],
                   end={"red": (-0.50, 0.02)}, **kw)
    assert out.whites_spotted == {"spotted": (0.525, 0.0)} and s4.wait_spots == (0, -1)


def test_K18_waiting_for_in_the_state_json(game):
    s = mid(balls={"white": None}, wait_spots=(1, -1))
    back = GameState.from_dict(s.to_dict())
    assert back == s and back.to_dict()["waiting_for"] == {"white": "top", "spotted": None}
    # without the key a waiting white's spot is chosen by K-18 after the next shot
    d = s.to_dict()
    del d["waiting_for"]
    assert GameState.from_dict(d).wait_spots == (-1, -1)
    with pytest.raises(ValueError, match="state.waiting_for.white"):
        GameState.from_dict({**d, "waiting_for": {"white": "middle"}})
    with pytest.raises(ValueError, match="spotted waits for a spot"):
        GameState.from_dict({**d, "waiting_for": {"spotted": "top"}})
    with pytest.raises(ValueError, match="same spot"):
        mid(balls={"white": None, "spotted": None}, wait_spots=(0, 0))


def test_K2_a_log_that_strikes_a_white_is_refused(game):
    """K-2: the cue ball is always the red; a log with a white moving at t = 0 is no shot of
    this game (lag logs, K-24, go through judge_lag)."""
    for struck in (("white",), ("red", "spotted")):
        with pytest.raises(ValueError, match=r"moving at the start.*\(K-2\)"):
            play(game, mid(), HIT, struck=struck)
    play(game, mid(), HIT)  # the red struck: fine


def test_K18_log_must_match_waiting_white(game):
    s = mid(balls={"white": None})
    with pytest.raises(ValueError, match="white"):
        play(game, s, HIT)


# --- K-P7 pins stood up again --------------------------------------------------------------------

def test_KP7_toppled_pins_stood_up_when_spot_free(game):
    out, s = play(game, mid(), PIN, end={"white": (0.3, 0.3)})
    assert out.pins_restood == ("pin1",) and all(s.pins)


def test_KP7_pin_waits_while_a_ball_covers_its_spot(game):
    # the white stops 40 mm from the pin1 spot (0.082, 0): within R + r_pin + 2 mm
    out, s = play(game, mid(), PIN, end={"white": (0.122, 0.0)})
    assert out.pins_waiting == ("pin1",) and s.pins == (True, False, True, True, True)
    # a later shot moves the white away: the pin stands again
    out, s = play(game, mid(to_play=1, balls={"white": (0.122, 0.0)}, pins=s.pins),
                  HIT, start={"white": (0.122, 0.0)}, end={"white": (0.5, 0.4)},
                  pins_up0=s.pins)
    assert out.pins_restood == ("pin1",) and all(s.pins)


def test_KP7_injected_pins_are_stood_up_too(game):
    out, s = play(game, mid(), HIT, inject=[{"type": "pin_toppled", "pins": ["king"]}])
    assert out.pins_toppled == {"king": ("injected",)} and all(s.pins)


# --- K-19 ball in hand ---------------------------------------------------------------------------

def test_K19_ball_in_hand_anywhere_after_K10(game):
    out, s = play(game, mid(), [(0.1, "ball_ball", "red", "white")])
    assert out.fouls == ("K-10",) and s.ball_in_hand == "cloth" and s.balls[0] is None
    # placing the red in front of the salvo line is fine: no K-15
    out, s = play(game, s, HIT, start={"red": (0.3, -0.3)})
    assert not out.foul


def test_K19_ball_in_hand_behind_salvo_line_after_K14(game):
    out, s = play(game, mid(), HIT + [(0.9, "pocket", "red", 2)])
    assert s.ball_in_hand == "salvo"
    out, _ = play(game, s, HIT, start={"red": (-0.3, -0.3)})
    assert out.fouls == ("K-15",)
    out, _ = play(game, s, HIT, start={"red": (-0.8, -0.3)})
    assert not out.foul


def test_K19_option_behind_salvo_line_only():
    game = KeglebillardGame(load_rules(ball_in_hand_area="salvo"))
    out, s = play(game, mid(), [(0.1, "ball_ball", "red", "white")])
    assert s.ball_in_hand == "salvo"


def test_K19_touche_gives_ball_in_hand(game):
    out, s = play(game, mid(), HIT, inject=[{"type": "touche"}])
    assert out.fouls == ("K-16:touche",) and s.ball_in_hand == "cloth"


def test_K16_K19_double_hit_is_a_touche_ball_in_hand(game):
    # seed: touché is touching a ball with anything but the tip *or* a double hit
    out, s = play(game, mid(), HIT, inject=[{"type": "double_hit"}])
    assert out.fouls == ("K-16:double_hit",) and out.penalty == 6
    assert out.ball_in_hand == "cloth" and s.ball_in_hand == "cloth" and s.balls[0] is None
    assert s.to_play == 1
    # the salvo option restricts it like any other ball in hand
    g2 = KeglebillardGame(load_rules(ball_in_hand_area="salvo"))
    _, s2 = play(g2, mid(), HIT, inject=[{"type": "double_hit"}])
    assert s2.ball_in_hand == "salvo"
    # a foul that gives no ball in hand by itself (pins not in place) does not
    _, s3 = play(game, mid(), HIT, inject=[{"type": "pins_not_in_place"}])
    assert s3.ball_in_hand is None


def test_K19_placement_rules(game):
    s = game.new_state(2)
    R = game.R
    assert game.placement_error(s, (-0.525 - 2 * R, 0.0)) is None  # touching is allowed
    assert "overlaps" in game.placement_error(s, (-0.525 - 2 * R + 1e-4, 0.0))
    assert "pin1 spot" in game.placement_error(s, (0.082 + 0.040, 0.0))
    assert game.placement_error(s, (0.082 + R + game.r_pin, 0.0)) is None
    assert "not on the cloth" in game.placement_error(s, (-1.04, 0.0))
    assert "corner pocket" in game.placement_error(s, (-1.05 + R, -0.525 + R))
    with pytest.raises(ValueError, match="finite"):
        game.placement_error(s, (float("nan"), 0.0))


def test_K19_unplayable_placement_is_a_foul_without_a_shot(game):
    s = mid(2, scores=(10, 20), to_play=1, shot=7)
    s = GameState(**{**s.__dict__, "balls": (None, *s.balls[1:]), "ball_in_hand": "salvo"})
    out, s2 = game.placement_foul(s, (-0.53, 0.0))
    assert not out.played and out.fouls == ("K-19:placement",) and out.penalty == 6
    assert out.skaeve_to == (0,) and s2.scores == (16, 20)
    assert s2.to_play == 0 and s2.ball_in_hand == "cloth" and s2.balls == s.balls
    assert s2.shot == 7  # no shot happened
    # apply() with a log placed there gives the same result and ignores the log
    out2, s3 = play(game, s, HIT, start={"red": (-0.53, 0.0)})
    assert out2.fouls == ("K-19:placement",) and s3 == s2


def test_K19_K3_unplayable_break_placement_next_player_breaks(game):
    out, s = game.placement_foul(game.new_state(3), (0.0, 0.0))
    assert "pin" in game.placement_error(game.new_state(3), (0.0, 0.0))
    assert s.to_play == 1 and s.ball_in_hand == "salvo" and s.shot == 0
    assert s.scores == (0, 6, 6)


def test_K19_K3_placement_foul_from_a_state_without_its_shot_count(game):
    """A hand-written mid-game state that leaves out ``shot`` is not a break: the placement
    foul hands the next player the red anywhere on the cloth (K-19), as with ``shot`` given.
    Only a new game (red in hand behind the salvo line, nobody has scored) defaults to the
    break."""
    base = mid(2, scores=(10, 4), to_play=1).to_dict()
    del base["shot"]
    base["balls"]["red"] = None
    for hand in ("salvo", "cloth"):
        s = GameState.from_dict({**base, "ball_in_hand": hand})
        assert s.shot == 1
        out, s2 = game.placement_foul(s, (-0.53, 0.0))
        assert out.fouls == ("K-19:placement",) and s2.scores == (16, 4)
        assert s2.to_play == 0 and s2.ball_in_hand == "cloth"
    assert GameState.from_dict({"players": 2}).shot == 0
    # shot 0 is the break: the red in hand behind the salvo line (K-3), else refused
    for hand in ("cloth", None):
        d = {**base, "ball_in_hand": hand, "shot": 0}
        if hand is None:
            d["balls"] = {**base["balls"], "red": [-0.7, 0.1]}
        with pytest.raises(ValueError, match=r"state\.shot = 0 says the break .*K-3"):
            GameState.from_dict(d)


def test_K19_placement_check_and_physics_layout(game):
    s = game.batch([game.new_state(2)] * 3)
    place = np.array([[-0.53, 0.0], [-0.8, 0.2], [np.nan, np.nan]])
    assert game.legal_placement(s, place).tolist() == [False, True, False]
    xy, present = game.layout(s, place)
    assert xy[1, 0].tolist() == [-0.8, 0.2] and present[1].all()
    mid_game = game.batch([mid()])  # the red on the table: no placement to check
    assert game.legal_placement(mid_game, place[2:]).tolist() == [True]


# --- K-20 all three balls down -------------------------------------------------------------------

ALL_DOWN = HIT + [(0.6, "ball_ball", "white", "spotted"), (0.9, "pocket", "white", 3),
                  (1.0, "pocket", "spotted", 0), (1.2, "pocket", "red", 1)]


def test_K20_all_three_down_wins_overriding_fouls(game):
    out, s = play(game, mid(2, scores=(10, 60)), ALL_DOWN)
    assert out.win and not out.foul and out.fouls == ()
    assert s.game_over and s.ranking == (0, 1) and s.scores == (10, 60)
    # also without any cushion (K-10 would apply otherwise)
    out, s = play(game, mid(2), [(0.1, "ball_ball", "red", "white"),
                                 (0.6, "ball_ball", "white", "spotted"),
                                 (0.9, "pocket", "white", 4), (1.0, "pocket", "spotted", 5),
                                 (1.2, "pocket", "red", 1)])
    assert out.win and s.game_over


def test_K20_injected_foul_cancels_the_win(game):
    out, s = play(game, mid(2), ALL_DOWN, inject=[{"type": "double_hit"}])
    assert not out.win and not s.game_over
    assert set(out.fouls) == {"K-14", "K-16:double_hit"} and out.penalty == 6
    assert s.ball_in_hand == "salvo"


def test_K20_waiting_white_does_not_count(game):
    events = [(0.1, "ball_ball", "red", "spotted"), (0.3, "cushion", "spotted", 1),
              (0.9, "pocket", "spotted", 3), (1.0, "pocket", "red", 1)]
    out, s = play(game, mid(balls={"white": None}), events, absent=["white"])
    assert not out.win and out.fouls == ("K-14",)


def test_K20_three_or_more_players_rank_by_points(game):
    s = mid(5, scores=(10, 20, 5, 10, 80), to_play=2, finished=(4,))
    out, s = play(game, s, ALL_DOWN)
    # shooter 2 first, then by points; the tie 3 / 0 goes by turn order after the shooter
    assert s.game_over and s.ranking == (4, 2, 1, 3, 0)


# --- K-21 / K-21a / K-22 end of the game ---------------------------------------------------------

def test_K21_player_reaching_70_leaves_with_three_or_more(game):
    out, s = play(game, mid(3, scores=(68, 10, 10)), PIN)
    assert out.finished == (0,) and s.finished == (0,) and not s.game_over
    assert s.in_game == (1, 2) and s.to_play == 1


def test_K21_reaching_70_by_skaeve_leaves_too(game):
    out, s = play(game, mid(3, scores=(0, 66, 10)), K11)
    assert out.finished == (1,) and s.in_game == (0, 2) and s.to_play == 2


def test_K21a_order_shooter_first_then_turn_order(game):
    # player 1 fouls: 6 skæve to 2, 3 and 0; all three reach 70
    s = mid(4, scores=(68, 5, 65, 69), to_play=1)
    out, s = play(game, s, K11)
    # 2 leaves (4 in), 3 leaves (3 in); then only 0 and 1 are in: K-22, 0 got skæve -> wins
    assert out.finished == (2, 3, 0, 1) and s.game_over and s.ranking == (2, 3, 0, 1)


def test_K22_two_players_70_without_a_pin_plays_on(game):
    out, s = play(game, mid(2, scores=(66, 40)), RODT)
    assert out.shooter_points == 4 and s.scores == (70, 40) and not s.game_over
    out, s = play(game, s, PIN, start={"red": (-0.7, 0.1)})  # opponent scores legally
    assert not s.game_over and s.to_play == 0


def test_K22_legal_pin_finishes(game):
    out, s = play(game, mid(2, scores=(68, 40)), PIN)
    assert s.game_over and s.ranking == (0, 1) and out.finished == (0, 1)


def test_K22_already_over_70_finishes_with_a_later_pin(game):
    out, s = play(game, mid(2, scores=(72, 40)), PIN)
    assert s.game_over and s.ranking == (0, 1)


def test_K22_skaeve_from_the_opponent_finishes_even_K13(game):
    out, s = play(game, mid(2, scores=(69, 40), to_play=1), K13)
    assert out.penalty == 0 and s.game_over and s.ranking == (0, 1)


def test_K22_placement_foul_skaeve_to_70_finishes(game):
    # K-19's 6 skæve take the opponent from 64 to 70: with two players that ends the game
    s = mid(2, scores=(30, 64), to_play=0, shot=9)
    s = GameState(**{**s.__dict__, "balls": (None, *s.balls[1:]), "ball_in_hand": "cloth"})
    out, s2 = game.placement_foul(s, (-0.53, 0.0))
    assert out.fouls == ("K-19:placement",) and s2.scores == (30, 70)
    assert s2.game_over and s2.ranking == (1, 0)


def test_K22_shooter_over_70_by_own_foul_does_not_finish(game):
    # the opponent receives skæve but stays under 70; the shooter (at 75) fouled: plays on
    out, s = play(game, mid(2, scores=(75, 40)), K11)
    assert not s.game_over and s.scores == (75, 46)


def test_K22_applies_once_two_are_left(game):
    s = mid(3, scores=(60, 75, 66), finished=(1,), to_play=2)
    out, s = play(game, s, RODT)  # 66 + 4 = 70 with two left: no pin, plays on
    assert not s.game_over and s.scores[2] == 70


# --- K-23 next game ------------------------------------------------------------------------------

def test_K23_loser_breaks_winner_last(game):
    s = mid(3, scores=(0, 66, 10), to_play=0)
    s = GameState(**{**s.__dict__, "finished": (2, 0, 1), "game_over": True, "to_play": None})
    nxt = game.next_game(s)
    assert nxt.order == (1, 0, 2) and nxt.to_play == 1 and nxt.scores == (0, 0, 0)
    assert nxt.ball_in_hand == "salvo" and not nxt.game_over
    with pytest.raises(ValueError):
        game.next_game(mid(2))


# --- K-16 unsporting loss ------------------------------------------------------------------------

def test_K16_unsporting_loss_option():
    game = KeglebillardGame(load_rules(unsporting_loss=True))
    inj = [{"type": "deliberate_touch", "balls": {"white": [-0.525, 0.0]}, "unsporting": True}]
    out, s = play(game, mid(2, scores=(50, 10)), HIT, inject=inj)
    assert out.lost == 0 and s.game_over and s.ranking == (1, 0)
    out, s = play(game, mid(3, scores=(50, 10, 20)), HIT, inject=inj)
    assert s.lost == (0,) and s.in_game == (1, 2) and not s.game_over
    assert s.scores == (50, 16, 26)
    # without the option it is a plain K-16 foul
    out, s = play(KeglebillardGame(), mid(2), HIT, inject=inj)
    assert out.lost is None and not s.game_over


def test_K23_with_unsporting_loss_the_unsporting_player_breaks_the_next_game():
    """docs/rules_keglebillard.md, K-23 with ``unsporting_loss``: the player who lost the match
    ranks last and breaks, not the last player left in play."""
    game = KeglebillardGame(load_rules(unsporting_loss=True))
    inj = [{"type": "deliberate_touch", "balls": {"white": [-0.525, 0.0]}, "unsporting": True}]
    _, s = play(game, mid(3, scores=(50, 10, 20)), HIT, inject=inj)  # player 0 loses
    s = GameState(**{**s.__dict__, "finished": (2, 1), "game_over": True, "to_play": None})
    assert s.ranking == (2, 1, 0)
    nxt = game.next_game(s)
    assert nxt.order == (0, 1, 2) and nxt.to_play == 0


# --- K-24 lag ------------------------------------------------------------------------------------

def lag(events, end, **kw):
    return build_log(events, start={"white": (-0.8, -0.2), "spotted": (-0.8, 0.2)}, end=end,
                     absent=["red"], struck=("white", "spotted"), **kw)


def test_K24_lag_nearer_the_bottom_cushion_wins():
    ev = [(1.0, "cushion", "white", 1), (1.0, "cushion", "spotted", 1)]
    logs = [lag(ev, {"white": (-0.9, -0.2), "spotted": (-0.5, 0.2)}),
            lag(ev, {"white": (-0.5, -0.2), "spotted": (-0.9, 0.2)}),
            lag(ev, {"white": (-0.5, -0.2), "spotted": (-0.5, 0.2)}),  # equal: re-lag
            lag(ev + [(2.0, "ball_ball", "white", "spotted")],
                {"white": (-0.9, -0.2), "spotted": (-0.5, 0.2)}),  # touched: re-lag
            lag(ev + [(0.5, "pin_touch", "white", "pin4")],
                {"white": (-0.9, -0.2), "spotted": (-0.5, 0.2)}),  # pin: white loses
            lag(ev, {"white": (-0.9, 0.1), "spotted": (-0.5, 0.2)}),  # crossed y = 0
            lag(ev + [(3.0, "pocket", "spotted", 3)],
                {"white": (-0.9, -0.2)}),  # pocket on its own side counts nearest
            lag(ev + [(3.0, "pocket", "white", 2)],
                {"spotted": (-0.5, 0.2)}),  # white pocketed across y = 0: it crossed, loses
            lag(ev + [(3.0, "pocket", "spotted", 4)],
                {"white": (-0.5, -0.2)})]  # spotted into the other side pocket: loses
    assert judge_lag(stack_logs(logs)).tolist() == [0, 1, -1, -1, 1, 1, 1, 1, 0]


def test_K24_relags_stand_even_when_one_ball_lost():
    """K-24 lists its re-lags without exception: touching, stopping equally far and both
    pocketed re-lag even when one of the balls also lost (pin, or crossing y = 0)."""
    ev = [(1.0, "cushion", "white", 1), (1.0, "cushion", "spotted", 1)]
    pin = [(0.5, "pin_touch", "white", "pin4")]
    logs = [lag(ev + pin, {"white": (-0.5, -0.2), "spotted": (-0.5, 0.2)}),  # equally far
            lag(ev + pin + [(2.0, "ball_ball", "white", "spotted")],
                {"white": (-0.9, -0.2), "spotted": (-0.5, 0.2)}),  # touched
            # both pocketed, the white across y = 0 (it crossed, so it lost)
            lag(ev + [(3.0, "pocket", "white", 2), (3.0, "pocket", "spotted", 3)], {}),
            lag(ev + pin, {"white": (-0.5, -0.2), "spotted": (-0.6, 0.2)})]  # lost: 1 wins
    assert judge_lag(stack_logs(logs)).tolist() == [-1, -1, -1, 1]


def test_K24_both_must_move_and_start_behind_the_salvo_line_on_opposite_sides():
    ev = [(1.0, "cushion", "white", 1)]
    one_moving = build_log(ev, start={"white": (-0.8, -0.2), "spotted": (-0.8, 0.2)},
                           absent=["red"], struck=("white",))
    assert judge_lag(one_moving).tolist() == [-1]
    same_side = build_log(ev, start={"white": (-0.8, 0.3), "spotted": (-0.8, 0.2)},
                          absent=["red"], struck=("white", "spotted"))
    with pytest.raises(ValueError, match="opposite sides"):
        judge_lag(same_side)
    in_front = build_log(ev, start={"white": (0.5, -0.2), "spotted": (-0.8, 0.2)},
                         absent=["red"], struck=("white", "spotted"))
    with pytest.raises(ValueError, match=r"on or behind the salvo line x = -0\.525 m"):
        judge_lag(in_front)


# --- K-25 ddbu variant ---------------------------------------------------------------------------

@pytest.fixture
def ddbu():
    return KeglebillardGame(load_rules(variant="ddbu"))


def test_K25_ddbu_keeps_shooting_while_scoring(ddbu):
    out, s = play(ddbu, mid(2), PIN)
    assert out.shooter_points == 2 and s.to_play == 0
    out, s = play(ddbu, s, HIT)  # no points: the turn passes
    assert s.to_play == 1 and s.scores == (2, 0)


def test_K25_ddbu_foul_loses_points_and_turn_without_skaeve(ddbu):
    out, s = play(ddbu, mid(2), K13)
    assert out.foul and out.skaeve == 0 and s.scores == (0, 0) and s.to_play == 1
    out, s = play(ddbu, mid(2), HIT + [(0.9, "pocket", "red", 0)])
    assert s.ball_in_hand == "salvo" and s.to_play == 1


def test_K25_ddbu_cushion_every_other_scoring_shot(ddbu):
    rodt_no_cushion = [(0.1, "ball_ball", "red", "white"), (0.6, "ball_ball", "red", "spotted")]
    out, s = play(ddbu, mid(2), rodt_no_cushion)
    assert not out.foul and s.to_play == 0 and s.run_no_cushion == 1
    out, s = play(ddbu, s, rodt_no_cushion)
    assert out.fouls == ("K-25:no_cushion",) and s.scores == (4, 0) and s.to_play == 1


def test_K25_ddbu_third_rodt_without_pin_is_a_foul(ddbu):
    s = mid(2)
    for _ in range(2):
        out, s = play(ddbu, s, RODT)
        assert not out.foul
    out, s = play(ddbu, s, RODT)
    assert out.fouls == ("K-25:third_rodt",) and s.scores == (8, 0) and s.to_play == 1


def test_K25_ddbu_a_player_finishing_mid_visit_starts_the_next_players_visit(ddbu):
    # three players: player 0 reaches 70 with a rødt and leaves (K-21); player 1's visit
    # starts with fresh counters, so his second rødt is no third in a row
    out, s = play(ddbu, mid(3, scores=(66, 10, 10), shot=3), RODT)
    assert s.finished == (0,) and s.to_play == 1 and (s.rodt_streak, s.run_no_cushion) == (0, 0)
    for _ in range(2):
        out, s = play(ddbu, s, RODT)
        assert not out.foul
    assert s.scores == (70, 18, 10) and s.to_play == 1
    # the same for the cushion counter: a scoring shot without a cushion finishes player 0;
    # player 1's first scoring shot may go without one too
    no_cushion = [(0.1, "ball_ball", "red", "white"), (0.5, "pin", "white", "pin1")]
    out, s = play(ddbu, mid(3, scores=(68, 10, 10), shot=3), no_cushion)
    assert s.finished == (0,) and s.run_no_cushion == 0
    out, s = play(ddbu, s, no_cushion)
    assert not out.foul and s.scores == (70, 12, 10)


def test_K25_ddbu_distance_ends_two_player_game(ddbu):
    out, s = play(ddbu, mid(2, scores=(68, 0)), RODT)
    assert s.game_over and s.ranking == (0, 1)


def test_flow_is_pure(game):
    s = mid(2)
    before = s.to_dict()
    play(game, s, PIN)
    assert s.to_dict() == before


def test_batch_apply_matches_apply(game):
    states = [mid(3), mid(3, to_play=2), mid(3, scores=(68, 3, 70), finished=(2,))]
    logs = [build_log(PIN), build_log(K11), build_log(PIN)]
    out, new = game.apply_log(states, stack_logs(logs))
    batch = [(out.outcome(t), new.state(t)) for t in range(3)]
    single = [game.apply(st, lg) for st, lg in zip(states, logs, strict=True)]
    assert batch == single
    assert np.array([o.game_over for o, _ in batch]).tolist() == [False, False, True]
    with pytest.raises(ValueError, match="players"):
        game.apply_log([mid(2), mid(3)], stack_logs(logs[:2]))
