"""Hostile input to both referees (issue 13): malformed logs and states must give one clear,
path-named ValueError (CLI: exit 2, one line on stderr), never another exception and never a
silent wrong answer; valid input must keep giving the right result.

Hand-written cases assert the exact message fragment (JSON path + reason); the property-based
tests, which spoil the same valid inputs (``referee_inputs.py``) at every path, are in
``test_rules_hostile_fuzz.py``.
"""

from __future__ import annotations

import copy
import io
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from mutations import replaced
from referee_inputs import MID, golf_input, kegle_input, refused

from cuegym.rules import golf_json as golf_game
from cuegym.rules.golfbillard import (
    GolfState,
    LogBuilder,
    load_golf_rules,
    score_stroke,
)
from cuegym.rules.inputs import MAX_PLAYERS, RefereeInputError, req_bool, req_int, req_num
from cuegym.rules.keglebillard import build_log, read_log
from cuegym.rules.keglebillard_game import GameState, KeglebillardGame
from cuegym.rules.keglebillard_game import score_json as kegle_score


def test_the_valid_inputs_score():
    out = kegle_score(kegle_input())["outcome"]
    assert out["whites_pocketed"] == ["spotted"] and set(out["pins_toppled"]) == {
        "king", "pin1", "pin2"}
    out = golf_game.score_json(golf_input())["outcome"]
    assert out["scored_balls"] == ["w1"]


# --- keglebillard: the log -------------------------------------------------------------------

K_LOG_CASES = [
    # a final that omits a ball is an error (an empty final used to win the game, K-20)
    (("log", "final"), {}, "log.final.red is missing"),
    (("log", "final", "white"), None, "log.final.white must be an object"),
    # final positions: the cloth, pins, jaws, other balls
    (("log", "final", "white", "x"), 5.0, "'log.final.white' at (5.0000, -0.2000) is off the "
                                          "cloth"),
    (("log", "final", "white"), {"x": 0.0, "y": 0.09, "state": "stationary"},
     "'log.final.white' at (0.0000, 0.0900) overlaps standing pin 2"),
    (("log", "final", "white"), {"x": 0.0, "y": 0.0, "state": "stationary"}, None),  # king down
    (("log", "final", "white"), {"x": 0.21, "y": 0.31, "state": "stationary"},
     "'log.final.red' and 'log.final.white' overlap"),
    (("log", "final", "white", "x"), "0.4", "log.final.white.x must be a number, got '0.4'"),
    (("log", "final", "white", "x"), float("nan"), "log.final.white.x must be finite, got nan"),
    (("log", "final", "white", "x"), True, "log.final.white.x must be a number, got True"),
    (("log", "final", "white", "state"), "moving", "log.final.white.state must be one of"),
    (("log", "final", "white", "state"), "rolling", "log.final.white.state is 'rolling', but "
                                                     "the shot ended at rest"),
    (("log", "final", "white", "colour"), "red", "log.final.white has unknown key(s) ['colour']"),
    # pockets: index in range, the event, agreement
    (("log", "final", "spotted", "pocket"), 9, "log.final.spotted.pocket must be an integer in "
                                               "[0, 5], got 9"),
    (("log", "final", "spotted", "pocket"), 1, "log.final.spotted.pocket = 1, but its "
                                               "ball_pocket event (log.events[6]) names pocket 2"),
    (("log", "final", "spotted", "pocket"), None, "log.final.spotted.pocket = None contradicts "
                                                  "state 'pocketed'"),
    (("log", "final", "white", "state"), "pocketed", "log.final.white.pocket = None contradicts"),
    (("log", "events", 6), {"time": 0.9, "type": "transition", "agents": ["spotted"],
                            "state": "stationary"},
     "log.final.spotted is pocketed, but log.events has no ball_pocket event for 'spotted'"),
    (("log", "events", 6, "agents", 1), "pocket9", "log.events[6].agents[1] names pocket 9, but "
                                                   "the table has 6"),
    (("log", "events", 6, "agents", 1), "hole", "log.events[6].agents[1] must name a pocket"),
    # pins: JSON booleans, a toppler and an event for a toppled pin
    (("log", "pins", "king", "standing"), "no", "log.pins.king.standing must be true or false, "
                                                "got 'no'"),
    (("log", "pins", "king", "standing"), 0, "log.pins.king.standing must be true or false, "
                                             "got 0"),
    (("log", "pins", "king", "toppled_by"), None, "log.pins.king.toppled_by is null, but the pin "
                                                  "was toppled"),
    (("log", "pins", "pin2", "toppled_by"), "red", "log.pins.pin2.toppled_by must be null for a "
                                                   "pin that was not toppled"),
    (("log", "pins", "pin3"), {"standing": False, "toppled_by": "white"},
     "log.pins.pin3 is toppled, but no ball_pin or pin_pin event touches 'pin3'"),
    (("log", "pins", "queen"), {"standing": True, "toppled_by": None},
     "log.pins has unknown key(s) ['queen']"),
    # events: finite, non-negative, ordered times; indices in range; agents that exist
    (("log", "events", 2, "time"), float("nan"), "log.events[2].time must be finite, got nan"),
    (("log", "events", 2, "time"), float("inf"), "log.events[2].time must be finite, got inf"),
    (("log", "events", 0, "time"), -0.1, "log.events[0].time must be >= 0.0, got -0.1"),
    (("log", "events", 2, "time"), 0.05, "log.events[2].time = 0.05 is earlier than the event "
                                         "before it (0.2)"),
    (("log", "events", 2, "time"), "0.3", "log.events[2].time must be a number, got '0.3'"),
    (("log", "events", 2, "agents", 1), "cushion99", "log.events[2].agents[1] names cushion 99, "
                                                     "but the table has 6"),
    (("log", "events", 5, "agents", 1), "jaw12", "log.events[5].agents[1] names jaw 12, but the "
                                                 "table has 12"),
    (("log", "events", 0, "agents", 1), "red", "log.events[0].agents[1] must be a ball other "
                                               "than 'red'"),
    (("log", "events", 0, "agents", 1), "blue", "log.events[0].agents[1] is an unknown ball "
                                                "'blue'"),
    (("log", "events", 0, "type"), "ball_post", "log.events[0].agents[1] must name a post as "
                                                "'post<index>', got 'white'"),
    (("log", "events", 0), {"time": 0.1, "type": "ball_post", "agents": ["red", "post0"]},
     "log.events[0].agents[1] names circle 0, which is not a post (cap)"),
    (("log", "events", 1, "state"), "pocketed", "log.events[1].state must be one of"),
    (("log", "events", 0, "time"), None, "log.events[0].time must be a number, got None"),
    (("log", "n_events"), 8, "log.n_events = 8 but log.events has 7"),
    (("log", "t_end"), 0.5, "log.t_end = 0.5 is earlier than the last event (0.9)"),
    (("log", "overflow"), True, "log.overflow = True contradicts end_reason 'rest'"),
    (("log", "overflow"), "no", "log.overflow must be true or false"),
    (("log", "end_reason"), "tired", "log.end_reason must be one of"),
    (("log", "events"), {}, "log.events must be a list"),
    (("inject", 0, "pins", 0), "queen", "inject[0].pins[0] is an unknown pin 'queen'"),
    (("inject", 0, "unsporting"), "yes", "inject[0].unsporting must be true or false"),
    (("rules",), [1], "rules must be an object"),
    (("rules",), {"colour": 1}, "rules has unknown key(s) ['colour']; allowed: "
                                "['ball_in_hand_area'"),
    (("allow_overflow",), 1, "allow_overflow must be true or false, got 1"),
]


@pytest.mark.parametrize("path, value, fragment", K_LOG_CASES,
                         ids=[".".join(map(str, c[0])) + f"={c[1]!r}"[:30] for c in K_LOG_CASES])
def test_kegle_bad_log_is_refused(path, value, fragment):
    if fragment is None:  # a near miss that is legal
        assert kegle_score(replaced(kegle_input(), path, value))["outcome"]["played"]
        return
    refused(kegle_score, replaced(kegle_input(), path, value), fragment)


def test_kegle_missing_keys_name_their_path():
    inp = kegle_input()
    for path, fragment in ((("log", "final", "white", "x"), "log.final.white.x is missing"),
                           (("log", "final", "white"), "log.final.white is missing"),
                           (("log", "pins", "pin4"), "log.pins.pin4 is missing"),
                           (("log", "pins", "king", "standing"),
                            "log.pins.king.standing is missing"),
                           (("log", "events", 3, "time"), "log.events[3].time is missing"),
                           (("log", "events", 1, "state"), "log.events[1].state is missing"),
                           (("log", "pins"), "log.pins is missing"),
                           (("log", "events"), "log.events is missing")):
        refused(kegle_score, replaced(inp, path, delete=True), fragment)


def test_kegle_event_of_a_ball_not_on_the_table_or_already_pocketed():
    inp = kegle_input()
    inp["state"]["balls"]["spotted"] = None  # waiting to be spotted: not in the shot
    inp["log"]["final"].pop("spotted")
    refused(kegle_score, inp, "log.events[6].agents[0] names 'spotted', which was not on the "
                              "table at the start")
    inp = kegle_input()
    inp["log"]["events"].append({"time": 1.0, "type": "ball_ball",
                                 "agents": ["spotted", "red"]})
    inp["log"]["n_events"] = 8
    refused(kegle_score, inp, "log.events[7].agents[0] names 'spotted' after it dropped into a "
                              "pocket at event 6")


# --- keglebillard: the state -------------------------------------------------------------------

K_STATE_CASES = [
    (("state", "scores", 1), "10", "state.scores[1] must be an integer, got '10'"),
    (("state", "scores", 1), -2, "state.scores[1] must be an integer >= 0, got -2"),
    (("state", "scores", 1), 10.0, "state.scores[1] must be an integer, got 10.0"),
    (("state", "scores"), [1, 2, 3], "state.scores must have 2 entries"),
    (("state", "game_over"), "no", "state.game_over must be true or false, got 'no'"),
    (("state", "pins", "king"), "yes", "state.pins.king must be true or false, got 'yes'"),
    (("state", "pins", "king"), 1, "state.pins.king must be true or false, got 1"),
    (("state", "balls", "white"), [5, 5], "'state.balls.white' at (5.0000, 5.0000) is off the "
                                          "cloth"),
    (("state", "balls", "white"), [0.01, 0.0], "'state.balls.white' at (0.0100, 0.0000) "
                                               "overlaps standing pin 0"),
    (("state", "balls", "white"), [-0.69, 0.1], "'state.balls.red' and 'state.balls.white' "
                                                "overlap"),
    (("state", "balls", "white"), [0.1, "0"], "state.balls.white[1] must be a number"),
    (("state", "balls", "white"), [0.1], "state.balls.white must have 2 entries"),
    (("state", "to_play"), 5, "state.to_play = 5 is not a player still in the game"),
    (("state", "to_play"), "0", "state.to_play must be an integer"),
    (("state",), {"players": MAX_PLAYERS + 1}, f"state.players must be an integer in [0, "
                                               f"{MAX_PLAYERS}], got {MAX_PLAYERS + 1}"),
    (("state", "order", 1), 1.0, "state.order[1] must be an integer"),
    (("state", "shot"), -1, "state.shot must be an integer >= 0"),
    (("state", "ddbu", "rodt_streak"), 3, "state.ddbu.rodt_streak = 3 must be in [0, 2]"),
    (("state", "ddbu", "rodt_streak"), 1, "state.ddbu counters must be 0 in the house rules"),
    (("state", "ball_in_hand"), "table", "state.ball_in_hand must be one of [None, 'salvo', "
                                         "'cloth']"),
    (("state", "table"), "snooker", "state.table: "),
    (("state", "table"), 7, "state.table must be a table name"),
    (("state", "ranking"), [1, 0], "state.ranking = [1, 0] contradicts the state"),
    (("state", "colour"), "red", "state has unknown key(s) ['colour']"),
    (("state", "finished"), [1], "state.game_over is false, but only [0] are still in the game"),
    (("state", "game_over"), True, "state.to_play must be null when the game is over"),
    (("state",), {"players": 2, "game_over": True}, "state.game_over is true, but players "
                                                    "[0, 1] are neither finished nor lost"),
    (("state",), {"players": 3, "scores": [4, 10, 0], "finished": [1]},
     "state.scores[1] = 10 is below the distance 70, but player 1 finished while the game goes "
     "on"),
    (("state",), [], "state must be an object, got a list"),
]


@pytest.mark.parametrize("path, value, fragment", K_STATE_CASES,
                         ids=[".".join(map(str, c[0])) + f"={c[1]!r}"[:30]
                              for c in K_STATE_CASES])
def test_kegle_bad_state_is_refused(path, value, fragment):
    refused(kegle_score, replaced(kegle_input(), path, value), fragment)


def test_kegle_state_consistency_with_the_distance():
    inp = kegle_input()
    inp["state"].update(players=3, order=[0, 1, 2], scores=[4, 75, 0])
    refused(kegle_score, inp, "state.scores[1] = 75 reaches the distance 70, but player 1 is "
                              "still in with 3 players left")
    # K-22: with two left (house rules) a player at 70+ stays in until a legal pin
    inp = kegle_input()
    inp["state"]["scores"] = [4, 75]
    assert kegle_score(inp)["outcome"]["played"]
    inp["rules"] = {"variant": "ddbu"}
    refused(kegle_score, inp, "state.scores[1] = 75 reaches the distance 70")
    # a finished game has no shot to score
    done = {"players": 2, "scores": [70, 3], "finished": [0, 1], "game_over": True,
            "to_play": None}
    assert GameState.from_dict(done).ranking == (0, 1)
    refused(kegle_score, {**kegle_input(), "state": done}, "state.game_over is true: the game "
                                                           "is over")
    with pytest.raises(ValueError, match="n_players must be an integer <= 1000"):
        KeglebillardGame().new_state(10 ** 9)


def test_kegle_top_level_and_placement():
    refused(kegle_score, [], "input must be an object, got a list")
    refused(kegle_score, {"state": {"players": 2}}, "exactly one of 'shot' or 'log'")
    inp = kegle_input()
    inp["state"]["balls"]["red"] = None
    inp["state"]["ball_in_hand"] = "cloth"
    refused(kegle_score, {**inp, "place": [0.1, "x"]}, "place[1] must be a number")
    refused(kegle_score, {**inp, "place": {"x": 0.1}}, "place must be a list")
    shot = {"strike": {"ball": "red", "V0": 2.0, "phi": 0.0}}
    base = {"state": kegle_input()["state"]}
    refused(kegle_score, {**base, "shot": {**shot, "balls": []}}, "shot.balls must be an object")
    refused(kegle_score, {**base, "shot": {**shot, "balls": {"red": 3}}},
            "shot.balls.red must be an object")
    refused(kegle_score, {**base, "shot": {**shot, "balls": {"red": {"x": -0.7}}}},
            "shot.balls.red.y is missing")
    refused(kegle_score, {**base, "shot": {**shot, "balls": {"red": {"x": "a", "y": 0}}}},
            "shot.balls.red.x must be a number")
    refused(kegle_score, {**base, "shot": {"strike": {"ball": "red", "V0": -2.0, "phi": 0.0}}},
            "shot.strike[0].V0 must be >= 0")


def test_kegle_array_log_checks():
    """The array path (SimResult fields) refuses what the JSON path refuses."""
    good = build_log([(0.2, "ball_ball", "red", "white"), (0.5, "cushion", "white", 1),
                      (0.8, "pocket", "white", 2)])
    d = {f: np.array(getattr(good, f)) for f in good.__dataclass_fields__}
    for field, change, fragment in (
            ("pocket", lambda a: a.__setitem__((0, 1), 9), "log.pocket[0, 1] = 9 is not -1 or a "
                                                           "pocket index 0..5"),
            ("pocket", lambda a: a.__setitem__((0, 1), 3), "log.pocket[0, 1] = 3 has no "
                                                           "ball_pocket event"),
            ("motion", lambda a: a.__setitem__((0, 1), 0), "contradicts log.motion"),
            ("ev_j", lambda a: a.__setitem__((0, 1), 40), "log.ev_j[0, 1] = 40 is not a "
                                                          "cushion"),
            ("ev_j", lambda a: a.__setitem__((0, 2), -1), "log.ev_j[0, 2] = -1 is not a pocket"),
            ("motion0", lambda a: a.__setitem__((0, 1), 4), "log.motion"),
            ("motion0", lambda a: a.__setitem__((0, 2), 9), "log.motion0[0, 2] = 9 is not a "
                                                            "motion code"),
            ("overflow", lambda a: a.__setitem__(0, 7), "log.overflow[0] = 7 is not an end "
                                                        "code")):
        bad = {k: v.copy() for k, v in d.items()}
        change(bad[field])
        with pytest.raises(ValueError) as info:
            read_log(bad)
        assert fragment in str(info.value), str(info.value)
    read_log(d)  # the untouched copy is fine
    for events, fragment in (([(float("nan"), "ball_ball", "red", "white")], "must be finite"),
                             ([("0.1", "ball_ball", "red", "white")], "must be a number"),
                             ([(0.1, "cushion", "red", 99)], "is not a cushion"),
                             ([(0.1, "transition", "red", 4)], "must be an integer in [0, 3]"),
                             ([(0.1, "cushion", "red")], "expected (time, kind, a, b)"),
                             ([5], "expected (time, kind, a, b)")):
        with pytest.raises(ValueError) as info:
            build_log(events)
        assert fragment in str(info.value), str(info.value)


# --- golfbillard ---------------------------------------------------------------------------------

G_CASES = [
    # the log
    (("log", "final"), {}, "log.final.w1 is missing"),
    (("log", "final", "r2"), None, "log.final.r2 must be an object"),
    (("log", "final", "r2", "x"), 5.0, "'log.final.r2' at (5.0000, -0.2500) is off the cloth"),
    (("log", "final", "r2"), {"x": 0.09, "y": 0.0, "state": "stationary"},
     "'log.final.r2' at (0.0900, 0.0000) overlaps the post"),
    (("log", "final", "r2"), {"x": 0.869, "y": 0.0, "state": "stationary"},
     "'log.final.r2' is inside pocket 0 (goal_plus_x)"),
    (("log", "final", "r2"), {"x": 0.31, "y": 0.26, "state": "stationary"},
     "'log.final.r1' and 'log.final.r2' overlap"),
    (("log", "final", "w4"), {"x": 0.0, "y": 0.4, "state": "stationary"},
     "log.final.w4 is listed, but that ball was not on the table at the start"),
    (("log", "final", "w1", "pocket"), 2, "log.final.w1.pocket must be an integer in [0, 1]"),
    (("log", "final", "w1", "pocket"), 1, "log.final.w1.pocket = 1, but its ball_pocket event "
                                          "(log.events[3]) names pocket 0"),
    (("log", "final", "r2", "y"), float("inf"), "log.final.r2.y must be finite, got inf"),
    (("log", "events", 3), {"time": 0.6, "type": "transition", "agents": ["w1"],
                            "state": "stationary"},
     "log.final.w1 is pocketed, but log.events has no ball_pocket event for 'w1'"),
    (("log", "events", 1, "agents", 1), "post12", "log.events[1].agents[1] names post 12, but "
                                                  "the table has 12"),
    (("log", "events", 2, "agents", 1), "cushion4", "log.events[2].agents[1] names cushion 4, "
                                                    "but the table has 4"),
    (("log", "events", 3, "agents", 1), "goal_3", "log.events[3].agents[1] must name a pocket"),
    (("log", "events", 2, "agents", 1), "jaw0", "log.events[2].agents[1] names circle 0, which "
                                                "is not a pocket jaw"),
    (("log", "events", 0, "type"), "ball_pin", "log.events[0].type is 'ball_pin', but the table "
                                               "has no pins"),
    (("log", "events", 2, "time"), 0.1, "log.events[2].time = 0.1 is earlier than the event "
                                        "before it (0.3)"),
    (("log", "events", 2, "time"), float("nan"), "log.events[2].time must be finite"),
    (("log", "pins"), {"king": {"standing": True, "toppled_by": None}},
     "log.pins has unknown key(s) ['king']"),
    (("strike", "V0"), 25.0, "strike.V0 must be <= 20.0, got 25.0"),
    (("strike", "V0"), "fast", "strike.V0 must be a number, got 'fast'"),
    (("strike", "theta"), 95.0, "strike.theta must be <= 90.0, got 95.0"),
    (("player",), 1, "player = 1 but rules.duo is off"),
    (("choices",), {"spots": [1]}, "choices.spots is given but rules.spot_policy is "
                                   "'first_free'"),
    (("rules",), {"colour": 1}, "rules has unknown key(s) ['colour']; allowed: ['all_balls'"),
    (("strike", "ball"), "w5", "strike.ball names 'w5', which is not on the table"),
    (("strike", "ball"), "x9", "strike.ball is an unknown ball 'x9'"),
    (("strike",), {"ball": "w1", "V0": 0.8, "phi": 10.0, "a": 0.9, "b": 0.9},
     "strike.a, strike.b: the cue tip must hit the ball, a^2 + b^2 <= 1, got 1.62"),
    (("inject",), [{"type": "off_table", "ball": "w5"}], "inject[0].ball names 'w5', which is "
                                                         "not on the table"),
    (("inject",), [{"type": "foul", "kind": "time", "time": "late"}],
     "inject[0].time must be a number"),
    (("inject",), {"type": "jam"}, "inject must be a list"),
    (("inject",), [{"type": "foul", "kind": "deflect_opponent_ball", "ball": "r1", "time": 0.5,
                    "restore": {"r1": [0.0, 0.0]}}],
     "inject[0].restore.r1: restore names the touched ball r1"),
    (("inject",), [{"type": "foul", "kind": "deflect_opponent_ball", "ball": "r1", "time": 0.5,
                    "restore": {"q2": [0.0, 0.0]}}], "inject[0].restore.q2 is an unknown ball"),
    (("inject", 0, "ball"), "w9", "inject[0].ball is an unknown ball 'w9'"),
    (("inject", 0, "ball"), True, "inject[0].ball is an unknown ball True"),
    (("inject", 0, "time"), float("nan"), "inject[0].time must be finite"),
    (("inject", 0, "type"), "earthquake", "inject[0].type must be one of"),
    (("inject", 0), {"type": "foul", "kind": ["time"]}, "inject[0].kind must be one of"),
    (("inject", 0), {"type": "jam", "ball": "r2", "goal": True}, "inject[0].goal must be one "
                                                                 "of [0, 1], got True"),
    (("inject", 0), {"type": "jam", "ball": "r2"}, "inject[0] (a jam) needs 'goal'"),
    (("inject", 0), {"type": "off_table"}, "inject[0].ball is missing"),
    (("allow_overflow",), "yes", "allow_overflow must be true or false, got 'yes'"),
    (("choices",), {"spots": [7]}, "choices.spots[0] must be an integer in [1, 5], got 7"),
    (("choices",), {"pick": "w9"}, "choices.pick is an unknown ball 'w9'"),
    (("player",), 2, "player must be one of [0, 1], got 2"),
    (("player",), True, "player must be one of [0, 1], got True"),
    (("rules",), "duo", "rules must be an object"),
    # the state
    (("state", "kader"), "yes", "state.kader must be true or false, got 'yes'"),
    (("state", "turn", "scored"), 1, "state.turn.scored must be true or false, got 1"),
    (("state", "balls", "w3"), [0.5, 0.01], "'state.balls.w1' and 'state.balls.w3' overlap"),
    (("state", "balls", "w3"), [0.0, 0.1], "'state.balls.w3' at (0.0000, 0.1000) overlaps the "
                                           "post"),
    (("state", "balls", "w3"), [0.1, float("nan")], "state.balls.w3[1] must be finite"),
    (("state", "balls", "w3"), None, "the game is over"),  # see test below for the message
    (("state", "to_move"), 2, "state.to_move must be one of [0, 1], got 2"),
    (("state", "turn", "strokes"), -1, "state.turn.strokes must be an integer >= 0, got -1"),
    (("state", "match", "games_won", 1), 2, "state.match.games_won = [0, 2] reaches 2, but the "
                                            "match is not over"),
    (("state", "match", "games_won"), [0], "state.match.games_won must have 2 entries"),
    (("state", "match", "winner"), 1, "state.match.winner must be null when state.phase is "
                                      "'play'"),
    (("state", "winner"), 0, "state.winner (of the last finished game) must be null in game 0"),
    (("state", "idle_turns"), 6, "state.idle_turns = 6 reaches the G-5 limit 6"),
    (("state", "idle_turns"), 2, "state.idle_turns = 2 exceeds state.turns = 0"),
    (("state", "turn", "duty"), ["r1"], "state.turn.duty names r1, which is not a ball of side 0"),
    (("state", "on_spot"), {"w5": 2}, "state.on_spot names w5, which is not on the table"),
    (("state", "on_spot"), {"w1": 6}, "state.on_spot.w1 must be an integer in [1, 5], got 6"),
    (("state", "partner"), [0, 2], "state.partner[1] must be one of [0, 1], got 2"),
    (("state", "fouled_spots"), [[9], []], "state.fouled_spots[0][0] must be an integer in "
                                           "[1, 5]"),
    (("state", "phase"), "halftime", "state.phase must be one of ['opening', 'play', 'over']"),
    (("state", "stroke"), 1.5, "state.stroke must be an integer, got 1.5"),
]


@pytest.mark.parametrize("path, value, fragment", G_CASES,
                         ids=[".".join(map(str, c[0])) + f"={c[1]!r}"[:30] for c in G_CASES])
def test_golf_bad_input_is_refused(path, value, fragment):
    payload = replaced(golf_input(), path, value)
    if path == ("state", "balls", "w3"):  # w3 is in final; drop it there so only the state speaks
        payload["log"]["final"].pop("w3")
        if value is None:  # w3 scored: the state is fine, the log too; the stroke scores
            assert golf_game.score_json(payload)["outcome"]["scored_balls"] == ["w1"]
            return
    refused(golf_game.score_json, payload, fragment)


def test_golf_array_log_checks():
    """The array path (SimResult fields, e.g. LogBuilder) refuses what the JSON path refuses."""
    st = GolfState.with_balls(MID)
    good = (LogBuilder(st.xy).strike("w1", v=(1.0, 0.0)).post(0.2, "w1", 0, (0.82, 0.01))
            .cushion(0.5, "r1", 2, (0.3, 0.419)).drop(0.8, "w1", 0).build())
    score_stroke(st, good, "w1")
    for field, change, fragment in (
            ("ev_j", lambda a: a.__setitem__((0, 0), 99), "log.ev_j[0, 0] = 99 is not a cap "
                                                          "index"),
            ("ev_j", lambda a: a.__setitem__((0, 1), 4), "log.ev_j[0, 1] = 4 is not a cushion "
                                                         "index"),
            ("ev_j", lambda a: a.__setitem__((0, 2), 2), "log.ev_j[0, 2] = 2 is not a goal "
                                                         "index"),
            ("ev_i", lambda a: a.__setitem__((0, 1), 3), "log.ev_i[0, 1] = 3 is not a ball on "
                                                         "the table"),
            ("ev_type", lambda a: a.__setitem__((0, 1), 5), "log.ev_type[0, 1] = 5 is not a "
                                                            "golfbillard event code"),
            ("ev_time", lambda a: a.__setitem__((0, 1), np.nan), "log.ev_time[0, 1] = nan is "
                                                                 "not a finite time"),
            ("ev_time", lambda a: a.__setitem__((0, 1), 0.1), "log.ev_time[0, 1] = 0.1 is "
                                                              "earlier than the event before"),
            ("t_end", lambda a: a.__setitem__(0, 0.3), "log.ev_time[0, 1] = 0.5 is after "
                                                       "log.t_end"),
            ("pocket", lambda a: a.__setitem__((0, 0), 7), "log.pocket[0, 0] = 7 is not -1 or "
                                                           "a goal index"),
            ("n_events", lambda a: a.__setitem__(0, 9), "log.n_events[0] = 9 is outside [0, "
                                                        "3]")):
        bad = copy.deepcopy(good)
        change(getattr(bad, field))
        with pytest.raises(ValueError) as info:
            score_stroke(st, bad, "w1")
        assert fragment in str(info.value), str(info.value)
    bad = copy.deepcopy(good)
    del bad.ev_state
    with pytest.raises(ValueError, match="log lacks field 'ev_state'"):
        score_stroke(st, bad, "w1")


def test_golf_missing_keys_and_state_consistency():
    inp = golf_input()
    for path, fragment in ((("log", "final", "r2", "x"), "log.final.r2.x is missing"),
                           (("log", "events", 1, "agents"), "log.events[1].agents is missing"),
                           (("state", "balls", "w5"), "state.balls.w5 is missing (null for a "
                                                      "scored ball)"),
                           (("strike", "phi"), "strike.phi is missing")):
        refused(golf_game.score_json, replaced(inp, path, delete=True), fragment)
    # a side without balls has lost its game: play cannot go on
    state = inp["state"]
    gone = {**state, "balls": {**state["balls"], "r1": None, "r2": None, "r3": None}}
    refused(lambda s: GolfState.from_json(s), gone, "state.balls: side 1 has no ball left")
    # G-20: one ball left means kader play (left out, it is derived; false contradicts it)
    one = {**state, "balls": {**state["balls"], "r1": None, "r2": None}}
    refused(lambda s: GolfState.from_json(s), {**one, "kader": False}, "state.kader must be true")
    assert GolfState.from_json({**one, "kader": True}).kader
    assert GolfState.from_json({k: v for k, v in one.items() if k != "kader"}).kader
    # a finished match has its winner; more games won than played is refused
    over = {**state, "phase": "over", "match": {"games_won": [2, 0], "game": 1, "winner": 0},
            "winner": 0}
    assert GolfState.from_json(over).match_winner == 0
    refused(golf_game.score_json, {**inp, "state": over}, "state.phase is 'over'")
    refused(lambda s: GolfState.from_json(s), {**over, "match": {"games_won": [2, 1], "game": 1,
                                                                  "winner": 0}},
            "more games won than played (2)")
    refused(lambda s: GolfState.from_json(s), {**state, "match": {"game": 3}, "winner": 1},
            "state.match.game = 3, but a match has at most 3 games")
    with pytest.raises(RefereeInputError, match="game = 1, but a match has at most 1 games"):
        GolfState.from_json({**state, "match": {"game": 1}, "winner": 1},
                            rules=load_golf_rules(match="single"))


def test_golf_opening_strikes_and_shot_objects():
    payload = {"state": None, "shot": {"strike": [{"ball": "w1", "V0": 1.1, "phi": 25.0},
                                                  {"ball": "w2", "V0": 1.1, "phi": -155.0}]}}
    refused(golf_game.score_json, payload, "shot.strike: the opening (G-3) strikes one ball of "
                                           "each side")
    payload["shot"]["strike"] = payload["shot"]["strike"][:1]
    refused(golf_game.score_json, payload, "the opening (G-3) needs two strikes")
    st = golf_input()["state"]
    strike = {"ball": "w1", "V0": 0.4, "phi": 0.0}
    for shot, fragment in (({"strike": strike, "balls": {"w1": {"x": 0.5}}},
                            "shot.balls.w1.y is missing"),
                           ({"strike": strike, "balls": {"w1": [0.5, 0.0]}},
                            "shot.balls.w1 must be an object"),
                           ({"strike": strike, "max_events": 0},
                            "shot.max_events must be an integer >= 1"),
                           ({"strike": strike, "t_max": float("nan")}, "shot.t_max must be "
                                                                        "finite"),
                           ({"strike": strike, "params": {"u_s": "slow"}},
                            "shot.params.u_s must be a number"),
                           ({"strike": strike, "models": {"cushion": "rubber"}}, "shot.models"),
                           ({"strike": strike, "table": "keglebillard"},
                            "shot.table must be one of ['golfbillard']"),
                           ({"strike": []}, "shot.strike must have at least 1 entries")):
        refused(golf_game.score_json, {"state": st, "shot": shot}, fragment)


# --- typed getters -------------------------------------------------------------------------------


def test_typed_getters():
    assert req_bool(np.bool_(True), "a") is True
    assert req_int(np.int64(3), "a", 0, 5) == 3
    assert req_num(np.float32(0.5), "a") == 0.5
    for fn, value, fragment in ((req_bool, 1, "a must be true or false, got 1"),
                                (req_int, True, "a must be an integer, got True"),
                                (req_int, 2.0, "a must be an integer, got 2.0"),
                                (req_num, 10 ** 400, "a must be finite"),
                                (req_num, "1", "a must be a number, got '1'"),
                                (req_num, None, "a must be a number, got None")):
        with pytest.raises(RefereeInputError, match=None) as info:
            fn(value, "a")
        assert fragment in str(info.value)
    with pytest.raises(RefereeInputError) as info:
        req_num("x" * 10_000, "a")
    assert len(str(info.value)) < 200  # a huge value is cut in the message
    assert math.isfinite(req_num(1e308, "a"))


# --- the CLI ------------------------------------------------------------------------------------

CLI_CASES = [
    ("keglebillard", replaced(kegle_input(), ("log", "final"), {}),
     "error: log.final.red is missing"),
    ("keglebillard", [kegle_input(), replaced(kegle_input(), ("state", "scores", 1), "10")],
     "error: input[1]: state.scores[1] must be an integer, got '10'"),
    ("golfbillard", replaced(golf_input(), ("log", "pins"), {"king": True}),
     "error: log.pins has unknown key(s) ['king']"),
    ("golfbillard", replaced(golf_input(), ("state", "kader"), "no"),
     "error: state.kader must be true or false, got 'no'"),
]


def _one_line_error(rc: int, out: str, err: str, fragment: str) -> None:
    assert rc == 2, err
    assert out == "" and err.count("\n") == 1 and err.endswith("\n"), err[-500:]
    assert err.startswith(fragment), err
    assert "Traceback" not in err


@pytest.mark.parametrize("case", [0, 2])
def test_cli_subprocess_exits_2_with_one_line(case):
    game, payload, fragment = CLI_CASES[case]
    proc = subprocess.run([sys.executable, "-m", "cuegym.rules", "score", "--game", game],
                          input=json.dumps(payload), capture_output=True, text=True,
                          timeout=300)
    _one_line_error(proc.returncode, proc.stdout, proc.stderr, fragment)


def _run_cli(game: str, stdin: str) -> tuple[int, str, str]:
    from cuegym.rules import __main__ as cli

    old = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), io.StringIO(), io.StringIO()
    try:
        rc = cli.main(["score", "--game", game])
        return rc, sys.stdout.getvalue(), sys.stderr.getvalue()
    finally:
        sys.stdin, sys.stdout, sys.stderr = old


@pytest.mark.parametrize("game, payload, fragment", CLI_CASES)
def test_cli_exits_2_with_one_line(game, payload, fragment):
    _one_line_error(*_run_cli(game, json.dumps(payload)), fragment)


def test_cli_new_refuses_absurd_player_counts():
    from cuegym.rules import __main__ as cli

    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    try:
        with pytest.raises(SystemExit) as exc:  # argparse's error: the option named
            cli.main(["new", "--game", "keglebillard", "--players", str(10 ** 9)])
        rc, err = exc.value.code, sys.stderr.getvalue()
    finally:
        sys.stdout, sys.stderr = old
    assert rc == 2 and err.endswith("error: --players: keglebillard is played by 2 to 1000 "
                                    "players (K-1), got 1000000000\n"), err


def test_cli_nested_and_non_finite_json():
    _one_line_error(*_run_cli("keglebillard", "[" * 100_000 + "]" * 100_000),
                    "error: stdin is not valid JSON: nested too deeply")
    text = json.dumps(kegle_input()).replace('"t_end": 3.0', '"t_end": NaN')
    _one_line_error(*_run_cli("keglebillard", text), "error: log.t_end must be finite, got nan")
    text = json.dumps(golf_input()).replace('"V0": 0.8', '"V0": 1e999')
    _one_line_error(*_run_cli("golfbillard", text), "error: strike.V0 must be finite, got inf")
