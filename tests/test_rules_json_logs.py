"""Hand-written logs in the ``score`` JSON input (``"hand_log"``), both games.

A ``hand_log`` is the JSON form of the Python builders (keglebillard ``build_log``, golfbillard
``LogBuilder``): the same scenario through JSON and through Python must give the same outcome
and next state; malformed input gives one line naming its JSON path; ``shot``, ``log`` and
``hand_log`` are mutually exclusive.
"""

from __future__ import annotations

import copy
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from test_rules_hostile import refused  # one line, naming the fragment

from cuegym.rules.golf_json import score_json as golf_score
from cuegym.rules.golfbillard import GolfState, LogBuilder
from cuegym.rules.golfbillard_game import play_strokes
from cuegym.rules.keglebillard import build_log
from cuegym.rules.keglebillard_game import GameState, KeglebillardGame
from cuegym.rules.keglebillard_game import score_json as kegle_score

# ---------------------------------------------------------------------------------------------
# Keglebillard
# ---------------------------------------------------------------------------------------------

#: A mid-game state: the red on the table (no ball in hand), all pins up.
K_STATE = {"players": 2, "scores": [4, 10], "shot": 3, "ball_in_hand": None,
           "balls": {"red": [-0.7, 0.1], "white": [-0.3, 0.05], "spotted": [0.6, 0.3]}}

#: The red off a cushion onto the white, the white topples the king alone (K-7).
K_EVENTS = [[0.1, "cushion", "red", 4], [0.3, "ball_ball", "red", "white"],
            [0.5, "pin", "white", "king"]]
K_END = {"red": [-0.2, 0.3], "white": [0.3, -0.2]}


def k_input(**hand_log) -> dict:
    return {"state": copy.deepcopy(K_STATE),
            "hand_log": {"events": copy.deepcopy(K_EVENTS), "end": dict(K_END), **hand_log}}


def k_python(events, state=K_STATE, place=None, **kw):
    """The same scenario through build_log + Kegle.apply."""
    st = GameState.from_dict(state)
    start = {n: xy for n, xy in zip(("red", "white", "spotted"), st.balls, strict=True)
             if xy is not None}
    if place is not None:
        start["red"] = tuple(place)
    kw.setdefault("absent", [n for n in ("white", "spotted") if n not in start])
    log = build_log([tuple(e) for e in events], start=start, pins_up0=st.pins, **kw)
    out, new = KeglebillardGame(table=st.table).apply(st, log)
    return {"outcome": out.to_dict(), "state": new.to_dict()}


def test_kegle_scoring_scenario_equals_build_log():
    got = kegle_score(k_input())
    assert got == k_python(K_EVENTS, end=K_END)
    o = got["outcome"]
    assert o["played"] and not o["foul"] and o["points"] > 0
    assert o["pins_toppled"] == {"king": ["white"]} and o["king_alone"]
    assert got["state"]["balls"]["red"] == [-0.2, 0.3]
    # the optional fields repeat the state's start: same result
    same = k_input(start={"red": [-0.7, 0.1], "white": [-0.3, 0.05]}, absent=[],
                   pins_up0=[True] * 5, struck=["red"], overflow=0)
    assert kegle_score(same) == got
    # indices and physics JSON names of cushions, pockets and motions are the same events
    named = k_input()
    named["hand_log"]["events"][0][3] = "cushion4"
    named["hand_log"]["events"].append([0.4, "transition", "red", "rolling"])
    assert kegle_score(named) == k_python(K_EVENTS + [[0.4, "transition", "red", 3]], end=K_END)


def test_kegle_foul_scenario_equals_build_log():
    events = [[0.2, "ball_ball", "red", "white"], [0.6, "pocket", "red", "top_right_corner"],
              [0.4, "transition", "red", 3], [0.3, "cushion", "white", 1]]  # any order
    inp = {"state": copy.deepcopy(K_STATE), "hand_log": {"events": events}}
    got = kegle_score(inp)
    py_events = [e[:3] + [2] if e[1] == "pocket" else e for e in events]
    assert got == k_python(py_events)
    o = got["outcome"]
    assert o["foul"] and o["red_pocketed"] and o["fouls"] == ["K-14"]
    assert got["state"]["ball_in_hand"] is not None


def test_kegle_ball_in_hand_uses_place_and_state_start():
    state = {"players": 2}  # the break: red in hand behind the salvo line, whites on their spots
    events = [[0.2, "ball_ball", "red", "white"], [0.4, "ball_ball", "white", "spotted"]]
    inp = {"state": state, "place": [-0.7, 0.1], "hand_log": {"events": events}}
    got = kegle_score(inp)
    assert got == k_python(events, state=state, place=(-0.7, 0.1))
    assert got["outcome"]["played"] and got["outcome"]["blegt"]
    # start.red repeats the placement; a different one is refused
    inp["hand_log"]["start"] = {"red": [-0.7, 0.1]}
    assert kegle_score(inp) == got
    inp["hand_log"]["start"] = {"red": [-0.75, 0.1]}
    refused(kegle_score, inp, "hand_log.start.red at [-0.75, 0.1] differs from the placement "
                              "'place' [-0.7, 0.1]")
    del inp["hand_log"]["start"]
    refused(kegle_score, {"state": state, "hand_log": {"events": events}},
            "has ball in hand: give the red's placement as 'place'")
    # a placement on a pin is a K-19 placement foul, no shot
    out = kegle_score({**inp, "place": [0.0, 0.0]})["outcome"]
    assert not out["played"] and out["fouls"] == ["K-19:placement"]


def test_kegle_illegal_end_layout_refused():
    refused(kegle_score, k_input(end={"white": [0.0, 0.082]}),
            "'hand_log.end.white' at (0.0000, 0.0820) overlaps standing pin 2 (pin2)")
    refused(kegle_score, k_input(end={"white": [2.0, 0.0]}), "'hand_log.end.white'")
    refused(kegle_score, k_input(end={"red": [-0.2, 0.3], "white": [-0.19, 0.3]}),
            "'hand_log.end.red' and 'hand_log.end.white' overlap")
    pocketed = {"state": copy.deepcopy(K_STATE),
                "hand_log": {"events": [[0.5, "pocket", "spotted", 2]],
                             "end": {"spotted": [0.5, 0.5]}}}
    refused(kegle_score, pocketed, "hand_log.end.spotted at (0.5000, 0.5000) is not in pocket 2")


@pytest.mark.parametrize("change, fragment", [
    (lambda h: h["events"].append([0.2, "cushion", "red"]),
     "hand_log.events[3] must have 4 entries, got 3"),
    (lambda h: h["events"].append("pin"), "hand_log.events[3] must be a list, got a string"),
    (lambda h: h["events"][1].__setitem__(0, "0.3"),
     "hand_log.events[1][0] must be a number, got '0.3'"),
    (lambda h: h["events"][1].__setitem__(0, -1), "hand_log.events[1][0] must be >= 0.0"),
    (lambda h: h["events"][1].__setitem__(1, "kiss"),
     "hand_log.events[1][1] must be one of ['ball_ball', 'cushion'"),
    (lambda h: h["events"][1].__setitem__(3, "whyte"),
     "hand_log.events[1][3] is an unknown ball 'whyte'"),
    (lambda h: h["events"][1].__setitem__(3, "red"),
     "hand_log.events[1][3] must be a ball other than 'red'"),
    (lambda h: h["events"][2].__setitem__(3, "queen"),
     "hand_log.events[2][3] is an unknown pin 'queen'"),
    (lambda h: h["events"][0].__setitem__(3, 40),
     "hand_log.events[0][3] = 40 is not a cushion (0..5) or a jaw"),
    (lambda h: h["events"][0].__setitem__(3, 2.0),
     "hand_log.events[0][3] must be an integer, got 2.0"),
    (lambda h: h["events"].append([0.6, "pocket", "red", "pocket9"]),
     "hand_log.events[3][3] names pocket 9, but the table has 6"),
    (lambda h: h["events"].append([0.6, "transition", "red", "flying"]),
     "hand_log.events[3][3] must be one of ['stationary', 'spinning', 'sliding', 'rolling']"),
    (lambda h: h["events"].append([0.7, "pin", "red", "king"]),
     "hand_log.events[3]: pin king is not standing at t = 0.7 (toppled at t = 0.5)"),
    (lambda h: h["events"].append([0.7, "pin_pin", "pin1", "pin2"]),
     "hand_log.events[3]: pin_pin pin1 -> pin2 at t = 0.7 needs a fallen pin"),
    (lambda h: h["events"].extend([[0.6, "pocket", "white", 5], [0.8, "cushion", "white", 1]]),
     "hand_log.events[4][2] names 'white' after it dropped into a pocket at hand_log.events[3]"),
    (lambda h: h.__setitem__("colour", "red"), "hand_log has unknown key(s) ['colour']"),
    (lambda h: h.pop("events"), "hand_log.events is missing"),
    (lambda h: h.__setitem__("end", {"white": [0.3]}), "hand_log.end.white must have 2 entries"),
    (lambda h: h.__setitem__("end", {"blue": [0.3, 0.0]}), "hand_log.end.blue is an unknown ball"),
    (lambda h: h.__setitem__("start", {"white": [-0.31, 0.05]}),
     "hand_log.start.white at [-0.31, 0.05] differs from the state's [-0.3, 0.05]"),
    (lambda h: h.__setitem__("absent", ["spotted"]),
     "hand_log.absent = ['spotted'] differs from the balls off the table in the state []"),
    (lambda h: h.__setitem__("pins_up0", [True, True, False, True, True]),
     "hand_log.pins_up0 = [True, True, False, True, True] differs from the state's standing pins"),
    (lambda h: h.__setitem__("pins_up0", [True] * 4), "hand_log.pins_up0 must have 5 entries"),
    (lambda h: h.__setitem__("struck", ["cue"]), "hand_log.struck[0] is an unknown ball 'cue'"),
    (lambda h: h.__setitem__("struck", ["red", "white"]),
     "hand_log.struck[1] names 'white': the cue ball is always the red (K-2)"),
    (lambda h: h.__setitem__("overflow", 3), "hand_log.overflow must be an integer in [0, 2]"),
    (lambda h: h.__setitem__("overflow", True), "hand_log.overflow must be an integer, got True"),
])
def test_kegle_malformed_hand_log_refused(change, fragment):
    inp = k_input()
    change(inp["hand_log"])
    refused(kegle_score, inp, fragment)


def test_kegle_ball_off_the_table_in_the_state():
    state = copy.deepcopy(K_STATE)
    state["balls"]["spotted"] = None
    inp = {"state": state, "hand_log": {"events": [[0.3, "ball_ball", "red", "spotted"]]}}
    refused(kegle_score, inp, "hand_log.events[0][3] names 'spotted', which is not on the table "
                              "at the start")
    inp["hand_log"] = {"events": [], "end": {"spotted": [0.5, 0.0]}}
    refused(kegle_score, inp, "hand_log.end.spotted: the spotted ball is not on the table")
    inp["hand_log"] = {"events": [], "absent": ["spotted"]}  # agrees with the state
    assert kegle_score(inp)["outcome"]["played"]
    inp["hand_log"] = {"events": [], "start": {"spotted": [0.5, 0.0]}}
    refused(kegle_score, inp, "hand_log.start.spotted: the spotted ball is off the table in "
                              "the state")
    state["pins"] = {"king": False, "pin1": True, "pin2": True, "pin3": True, "pin4": True}
    inp = {"state": state, "hand_log": {"events": [[0.3, "pin", "red", "king"]]}}
    refused(kegle_score, inp, "hand_log.events[0][3] names pin 'king', which is down at the "
                              "start")


def test_kegle_two_log_forms_refused():
    inp = k_input()
    refused(kegle_score, {**inp, "log": {"final": {}, "pins": {}, "events": []}},
            "exactly one of 'shot' or 'log' or 'hand_log', got ['log', 'hand_log']")
    refused(kegle_score, {**inp, "shot": {"strike": {"ball": "red", "V0": 2.0, "phi": 0.0}}},
            "got ['shot', 'hand_log']")
    refused(kegle_score, {"state": K_STATE}, "exactly one of 'shot' or 'log'")
    refused(kegle_score, {**inp, "place": [-0.7, 0.1]}, "'place' given but the player does not "
                                                       "have ball in hand")


# ---------------------------------------------------------------------------------------------
# Golfbillard
# ---------------------------------------------------------------------------------------------

G_BALLS = {"w1": (0.5, 0.0), "w2": (-0.8, 0.0), "w3": (-0.3, 0.3), "r1": (0.3, 0.25),
           "r2": (0.3, -0.25), "r3": (-0.1, -0.3)}
G_ST = GolfState.with_balls(G_BALLS, to_move=0)
G_STRIKE = {"ball": "w1", "V0": 1.0, "phi": 60.0}
G_CUE = [1.0, 60.0, 0.0, 0.0, 0.0]

#: w1 sends r1 (an opponent's ball) into goal 0 and stops: r1 counts for side 1.
G_EVENTS = [{"type": "strike", "ball": "w1", "v": [0.5, 0.866]},
            {"type": "ball_ball", "t": 0.3, "a": "w1", "b": "r1", "at_a": [0.6, 0.2],
             "at_b": [0.63, 0.25]},
            {"type": "post", "t": 0.6, "ball": "r1", "cap": 0, "at": [0.8, 0.08]},
            {"type": "drop", "t": 0.8, "ball": "r1", "goal": 0},
            {"type": "rest", "t": 1.5, "ball": "w1", "at": [0.6, 0.1]}]


def g_input(events=None, strike=None) -> dict:
    return {"state": G_ST.to_json(), "strike": dict(strike or G_STRIKE),
            "hand_log": {"events": copy.deepcopy(G_EVENTS if events is None else events)}}


def g_python(log, cue_ball="w1", cue=G_CUE):
    outs, new = play_strokes([G_ST], log, [cue_ball], [cue], players=[None], choices=[{}])
    return {"outcome": outs[0].to_json(), "state": new[0].to_json()}


def test_golf_scoring_scenario_equals_log_builder():
    got = golf_score(g_input())
    log = (LogBuilder(G_ST.xy).strike("w1", (0.5, 0.866))
           .ball_ball(0.3, "w1", "r1", (0.6, 0.2), (0.63, 0.25)).post(0.6, "r1", 0, (0.8, 0.08))
           .drop(0.8, "r1", 0).rest("w1", (0.6, 0.1), 1.5).build())
    assert got == g_python(log)
    o = got["outcome"]
    assert o["drops"] == [{"ball": "r1", "goal": 0, "time": 0.8}] and o["scored"] == [0, 1]
    assert o["foul"] is None and not o["turn_kept"]
    # names for the cap and goal, events listed out of time order: the same log
    named = g_input()
    named["hand_log"]["events"][2]["cap"] = "post0"
    named["hand_log"]["events"][3]["goal"] = "goal_plus_x"
    named["hand_log"]["events"].reverse()
    assert golf_score(named) == got


def test_golf_strike_velocity_defaults_from_the_strike():
    """Without a strike event the cue ball leaves as the strike gives it (as for a ``log``)."""
    events = [{"type": "turn", "t": 0.2, "ball": "w1", "at": [0.55, 0.05], "v": [0.2, 0.1],
               "motion": "sliding"},
              {"type": "cushion", "t": 0.5, "ball": "w1", "cushion": 2, "at": [0.6, 0.41925]},
              {"type": "rest", "t": 1.0, "ball": "w1", "at": [0.65, 0.3]}]
    hard = {"ball": "w1", "V0": 3.0, "phi": 60.0}
    got = golf_score(g_input(events, hard))
    # V = 2 V0 / (1 + m/M) = 6 / (1 + 0.21 / 0.567) m/s along phi = 60 deg (docs/physics_api.md)
    V = 6.0 / (1.0 + 0.21 / 0.567)
    v = (V * 0.5, V * math.sqrt(3.0) / 2.0)
    log = (LogBuilder(G_ST.xy).strike("w1", v).turn(0.2, "w1", (0.55, 0.05), (0.2, 0.1), 2)
           .cushion(0.5, "w1", 2, (0.6, 0.41925)).rest("w1", (0.65, 0.3), 1.0).build())
    assert got == g_python(log, cue=[3.0, 60.0, 0.0, 0.0, 0.0])


def test_golf_strike_velocity_of_a_raised_cue_is_the_physics_strike():
    """A raised cue leaves the ball with the level part of V (V cos(theta)), as the physics'
    strike does: the rebuilt velocity is the one ``physics.simulate`` starts the ball with."""
    from cuegym.configs import load_params
    from cuegym.physics import simulate
    from cuegym.rules.golf_config import golf_geometry
    from cuegym.rules.golf_json import _strike_velocity

    prm = load_params("golfbillard")
    geo = golf_geometry()
    row = np.array([2.0, 30.0, 40.0, 0.1, -0.2])
    got = _strike_velocity(row, prm, geo)
    V = 4.0 / (1.0 + 0.21 / 0.567 + 2.5 * (0.01 + 0.04)) * math.cos(math.radians(40.0))
    phi = math.radians(30.0)
    assert got == pytest.approx((V * math.cos(phi), V * math.sin(phi)), rel=1e-12)
    res = simulate(geo.table, prm, np.zeros((1, 1, 2)), cue_ball=[0], cue=row[None])
    assert got == pytest.approx(tuple(res.rvw0[0, 0, 1, :2]), rel=1e-12)


def test_golf_foul_scenario_equals_log_builder():
    events = [{"type": "strike", "ball": "w2", "v": [-0.4, 0.0]},
              {"type": "drop", "t": 0.3, "ball": "w2", "goal": 1}]
    strike = {"ball": "w2", "V0": 0.5, "phi": 180.0}
    got = golf_score(g_input(events, strike))
    log = LogBuilder(G_ST.xy).strike("w2", (-0.4, 0.0)).drop(0.3, "w2", 1).build()
    assert got == g_python(log, "w2", [0.5, 180.0, 0.0, 0.0, 0.0])
    o = got["outcome"]
    assert o["foul"] == "G-8" and o["fouls"][0]["kind"] == "own_goal"
    assert o["spotted"] == [{"ball": "w2", "spot": 1}]


def test_golf_illegal_end_layout_refused():
    rest = {"type": "rest", "t": 1.0, "ball": "w1"}
    refused(golf_score, g_input([{**rest, "at": [0.09, 0.0]}]),
            "'hand_log.events[0].at' at (0.0900, 0.0000) overlaps the post at (0.0900, 0.0000)")
    refused(golf_score, g_input([{**rest, "at": [0.3, 0.26]}]),
            "'hand_log.events[0].at' and 'state.balls.r1' overlap")
    refused(golf_score, g_input([{**rest, "at": [0.0, 0.5]}]), "'hand_log.events[0].at'")
    refused(golf_score, g_input([{"type": "drop", "t": 0.5, "ball": "w1", "goal": 1,
                                  "at": [0.5, 0.0]}]),
            "hand_log.events[0].at at (0.5000, 0.0000) is not in goal 1 (goal_minus_x)")


@pytest.mark.parametrize("event, fragment", [
    ({"type": "jump", "t": 0.2}, "hand_log.events[0].type must be one of ['strike', "),
    ({"t": 0.2, "ball": "w1"}, "hand_log.events[0].type is missing"),
    ("rest", "hand_log.events[0] must be an object, got a string"),
    ({"type": "rest", "t": 0.2, "ball": "w1"}, "hand_log.events[0].at is missing"),
    ({"type": "rest", "t": 0.2, "ball": "w1", "at": [0, 0.3], "v": [0, 0]},
     "hand_log.events[0] has unknown key(s) ['v']"),
    ({"type": "rest", "t": "1", "ball": "w1", "at": [0, 0.3]},
     "hand_log.events[0].t must be a number, got '1'"),
    ({"type": "rest", "t": -1, "ball": "w1", "at": [0, 0.3]}, "hand_log.events[0].t must be >= 0"),
    ({"type": "rest", "t": 1, "ball": "w9", "at": [0, 0.3]},
     "hand_log.events[0].ball is an unknown ball 'w9'"),
    ({"type": "rest", "t": 1, "ball": "w4", "at": [0, 0.3]},
     "hand_log.events[0].ball names 'w4', which is not on the table in the state"),
    ({"type": "rest", "t": 1, "ball": "w1", "at": [0, float("nan")]},
     "hand_log.events[0].at[1] must be finite"),
    ({"type": "post", "t": 0.2, "ball": "w1", "cap": 12, "at": [0.1, 0.0]},
     "hand_log.events[0].cap = 12 is not a post (cap)"),
    ({"type": "post", "t": 0.2, "ball": "w1", "cap": "cap5", "at": [0.1, 0.0]},
     "hand_log.events[0].cap must name a post as 'post<index>', got 'cap5'"),
    ({"type": "cushion", "t": 0.2, "ball": "w1", "cushion": 4, "at": [0.1, 0.0]},
     "hand_log.events[0].cushion = 4 is not a cushion (0..3)"),
    ({"type": "drop", "t": 0.2, "ball": "w1", "goal": 2}, "hand_log.events[0].goal must be an "
                                                          "integer in [0, 1], got 2"),
    ({"type": "turn", "t": 0.2, "ball": "w1", "at": [0.5, 0.0], "v": [0, 1], "motion": 4},
     "hand_log.events[0].motion must be an integer in [0, 3], got 4"),
    ({"type": "ball_ball", "t": 0.2, "a": "w1", "b": "w1", "at_a": [0.5, 0.0]},
     "hand_log.events[0].b must be a ball other than 'w1'"),
    ({"type": "strike", "ball": "w2", "v": [1.0, 0.0]},
     "hand_log.events[0].ball names 'w2', but the stroke strikes ['w1'] (strike.ball)"),
])
def test_golf_malformed_event_refused(event, fragment):
    refused(golf_score, g_input([event]), fragment)


def test_golf_event_order_and_top_level_refusals():
    strike = {"type": "strike", "ball": "w1", "v": [1.0, 0.0]}
    refused(golf_score, g_input([strike, strike]),
            "hand_log.events[1] strikes 'w1' a second time (first at hand_log.events[0])")
    refused(golf_score, g_input([{"type": "drop", "t": 0.5, "ball": "w1", "goal": 0},
                                 {"type": "rest", "t": 0.9, "ball": "w1", "at": [0.0, 0.3]}]),
            "hand_log.events[1]: 'w1' has an event at t = 0.9 after it dropped (at t = 0.5)")
    inp = g_input()
    refused(golf_score, {**inp, "hand_log": {"events": [], "end": {}}},
            "hand_log has unknown key(s) ['end']; allowed: ['events']")
    refused(golf_score, {**inp, "hand_log": []}, "hand_log must be an object, got a list")
    refused(golf_score, {**inp, "log": {"final": {}, "events": []}},
            "input needs exactly one of 'shot' or 'log' or 'hand_log', got ['log', 'hand_log']")
    refused(golf_score, {**inp, "shot": {"strike": G_STRIKE}}, "got ['shot', 'hand_log']")
    refused(golf_score, {k: v for k, v in inp.items() if k != "strike"},
            "with a 'hand_log', give the shot's 'strike'")


def test_golf_opening_hand_log():
    """The opening strikes two balls: a strike event each (or the velocity from each strike)."""
    events = [{"type": "strike", "ball": "w1", "v": [0.5, 0.3]},
              {"type": "rest", "t": 2.0, "ball": "w1", "at": [0.4, 0.2]},
              {"type": "rest", "t": 2.0, "ball": "r1", "at": [-0.3, -0.1]}]
    inp = {"state": None, "hand_log": {"events": events},
           "strike": [{"ball": "w1", "V0": 1.1, "phi": 25}, {"ball": "r1", "V0": 1.1,
                                                           "phi": -155}]}
    out = golf_score(inp)["outcome"]
    assert out["opening"] and out["crossed"] == [True, True]


# ---------------------------------------------------------------------------------------------
# The CLI, end to end
# ---------------------------------------------------------------------------------------------


def _cli(game: str, obj: object, tmp_path) -> subprocess.CompletedProcess:
    env = {**os.environ, "CUEGYM_DEBUG": "", "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "cuegym.rules", "score", "--game", game],
                          input=json.dumps(obj), capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=300)


def test_cli_hand_log_both_games(tmp_path):
    proc = _cli("keglebillard", k_input(), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == kegle_score(k_input())
    bad = k_input(end={"white": [0.0, 0.082]})
    proc = _cli("keglebillard", bad, tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("error: 'hand_log.end.white' at (0.0000, 0.0820) overlaps "
                                   "standing pin 2 (pin2)")
    proc = _cli("golfbillard", g_input(), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == golf_score(g_input())
    proc = _cli("golfbillard", [g_input(), g_input([{"type": "rest", "t": 1, "ball": "w4",
                                                      "at": [0, 0.3]}])], tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("error: input[1]: hand_log.events[0].ball names 'w4', which "
                                   "is not on the table in the state")


def test_the_json_entry_is_still_importable_from_golfbillard_game():
    """rules/golfbillard_game.py was split: its JSON entry lives in rules/golf_json.py, and the
    names it exported before keep their old import path."""
    from cuegym.rules import golf_json
    from cuegym.rules.golfbillard_game import (
        HAND_LOG_EVENTS,
        hand_log_json,
        log_from_json,
        score_json,
    )

    assert (score_json, log_from_json, hand_log_json, HAND_LOG_EVENTS) == (
        golf_json.score_json, golf_json.log_from_json, golf_json.hand_log_json,
        golf_json.HAND_LOG_EVENTS)
