"""Valid referee inputs (one keglebillard and one golfbillard ``score`` payload, every
optional key present) for the hostile-input tests to spoil, and the check that a spoilt one is
refused in one line."""

from __future__ import annotations

import pytest

from cuegym.configs import load_table
from cuegym.rules.golfbillard import GolfState
from cuegym.rules.keglebillard import PIN_IDS

KPOCKET = load_table("keglebillard").pockets[2].name  # top_right_corner


def kegle_input() -> dict:
    """A valid keglebillard ``score`` input: rødt-free hit, the king toppled by the white (with a
    chain to pin1), the spotted ball pocketed, every optional key present."""
    return {
        "state": {"players": 2, "order": [0, 1], "scores": [4, 10], "to_play": 0,
                  "finished": [], "lost": [], "game_over": False, "table": "keglebillard",
                  "balls": {"red": [-0.7, 0.1], "white": [-0.3, 0.05], "spotted": [0.6, 0.3]},
                  "pins": dict.fromkeys(PIN_IDS, True), "ball_in_hand": None, "shot": 3,
                  "ddbu": {"run_no_cushion": 0, "rodt_streak": 0}},
        "log": {
            "final": {"red": {"x": 0.2, "y": 0.3, "state": "stationary", "pocket": None},
                      "white": {"x": 0.4, "y": -0.2, "state": "stationary", "pocket": None},
                      "spotted": {"x": 1.05, "y": 0.525, "state": "pocketed", "pocket": 2}},
            "pins": {"king": {"standing": False, "toppled_by": "white"},
                     "pin1": {"standing": False, "toppled_by": "white"},
                     **{p: {"standing": True, "toppled_by": None}
                        for p in ("pin2", "pin3", "pin4")}},
            "events": [{"time": 0.1, "type": "ball_ball", "agents": ["red", "white"]},
                       {"time": 0.2, "type": "transition", "agents": ["red"], "state": "rolling"},
                       {"time": 0.3, "type": "ball_cushion", "agents": ["white", "cushion0"]},
                       {"time": 0.5, "type": "ball_pin", "agents": ["white", "king"]},
                       {"time": 0.6, "type": "pin_pin", "agents": ["king", "pin1"]},
                       {"time": 0.7, "type": "ball_cushion", "agents": ["red", "jaw3"]},
                       {"time": 0.9, "type": "ball_pocket", "agents": ["spotted", KPOCKET]}],
            "n_events": 7, "t_end": 3.0, "overflow": False, "end_reason": "rest"},
        "inject": [{"type": "pin_toppled", "pins": ["pin2"], "by": "cue", "unsporting": False}],
        "rules": {"skaeve_to": "all"},
    }


MID = {"w1": (0.5, 0.0), "w2": (-0.8, 0.0), "w3": (-0.3, 0.3), "r1": (0.3, 0.25),
       "r2": (0.3, -0.25), "r3": (-0.1, -0.3)}


def golf_input() -> dict:
    """A valid golfbillard ``score`` input with a log: w1 off a cap into its attack goal."""
    state = GolfState.with_balls(MID).to_json()
    final = {b: {"x": x, "y": y, "state": "stationary", "pocket": None}
             for b, (x, y) in MID.items()}
    final["w1"] = {"x": 0.897, "y": 0.0, "state": "pocketed", "pocket": 0}
    final["r1"] = {"x": 0.35, "y": 0.3, "state": "stationary", "pocket": None}
    return {
        "state": state,
        "log": {"final": final, "pins": {},
                "events": [{"time": 0.2, "type": "ball_ball", "agents": ["w1", "r1"]},
                           {"time": 0.3, "type": "ball_post", "agents": ["w1", "post1"]},
                           {"time": 0.35, "type": "ball_cushion", "agents": ["r1", "cushion2"]},
                           {"time": 0.6, "type": "ball_pocket", "agents": ["w1", "goal_plus_x"]}],
                "n_events": 4, "t_end": 1.5, "overflow": False, "end_reason": "rest"},
        "strike": {"ball": "w1", "V0": 0.8, "phi": 10.0, "theta": 0.0, "a": 0.0, "b": 0.0},
        "inject": [{"type": "rail_return", "ball": "r2", "time": 0.5}], "player": 0,
        "choices": {}, "rules": {"match": "best_of_3"}, "allow_overflow": False,
    }


def golf_states_input() -> dict:
    """:func:`golf_input` with a real physics log carrying the balls' states (a shot simulated
    with ``event_states``): w1 into r1, both moving on."""
    from cuegym.physics import simulate_json

    payload = golf_input()
    payload["strike"] = {"ball": "w1", "V0": 1.2, "phi": 40.0, "theta": 0.0, "a": 0.1, "b": 0.2}
    payload["log"] = simulate_json({"table": "golfbillard", "event_states": True,
                                    "balls": {k: {"x": x, "y": y} for k, (x, y) in MID.items()},
                                    "strike": payload["strike"]})
    del payload["inject"]
    return payload


def refused(fn, payload, fragment: str) -> str:
    with pytest.raises(ValueError) as info:
        fn(payload)
    msg = str(info.value)
    assert fragment in msg, msg
    assert "\n" not in msg
    return msg
