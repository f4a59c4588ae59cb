"""Physics JSON logs with the balls' states (``event_states``) in the referees' ``score`` input.

A golfbillard stroke scored from such a log has the exact ball paths, so it scores as the
``shot`` does (the physics run by the referee) on every stroke, openings and kader play
included; without the states the zone-leaving questions (G-3, G-14, G-21) see straight lines
from start to end. Malformed states are refused with one line naming their JSON path.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from cuegym.envs.positions import load_positions
from cuegym.physics import simulate_json
from cuegym.rules.golf_arrays import N_BALLS
from cuegym.rules.golf_json import score_json as golf_score
from cuegym.rules.golfbillard import GolfState
from cuegym.rules.golfbillard_game import new_match
from cuegym.rules.keglebillard_game import score_json as kegle_score
from cuegym.rules.keglebillard_log import log_from_json as kegle_log

IDS = [f"w{i}" for i in range(1, 6)] + [f"r{i}" for i in range(1, 6)]


def _golf_shot(state: GolfState, strike) -> dict:
    balls = {IDS[b]: {"x": float(state.xy[b, 0]), "y": float(state.xy[b, 1])}
             for b in range(N_BALLS) if state.on_table[b]}
    return {"table": "golfbillard", "balls": balls, "strike": strike}


def _three_routes(state_json, shot: dict) -> tuple[dict, dict, dict]:
    """(the shot scored by the referee's own physics, the JSON log, the JSON log with states)."""
    strike = shot["strike"]
    ref = golf_score({"state": state_json, "shot": {"strike": strike}})
    plain = golf_score({"state": state_json, "log": simulate_json(shot), "strike": strike})
    full = golf_score({"state": state_json, "log": simulate_json({**shot, "event_states": True}),
                       "strike": strike})
    return ref, plain, full


def test_golf_strokes_from_a_log_with_states_score_as_the_shot():
    rng = np.random.default_rng(5)
    bank = load_positions("golfbillard")
    kader = 0
    for k in rng.integers(0, len(bank), 150):
        st = bank.state(int(k))
        own = [b for b in range(5 * st.to_move, 5 * st.to_move + 5) if st.on_table[b]]
        strike = {"ball": IDS[int(rng.choice(own))], "V0": float(rng.uniform(0.2, 3.0)),
                  "phi": float(rng.uniform(-180, 180)), "a": float(rng.uniform(-0.3, 0.3)),
                  "b": float(rng.uniform(-0.3, 0.3))}
        ref, _, full = _three_routes(st.to_json(), _golf_shot(st, strike))
        assert full == ref, (int(k), strike)
        kader += st.kader
    assert kader > 0  # kader play (G-21's path question) among them


def test_golf_openings_from_a_log_with_states_score_as_the_shot():
    """G-3: each opening ball must cross x = 0; a straight line from start to end misses a ball
    that crossed and came back (about one opening in six of these)."""
    rng = np.random.default_rng(2)
    st = new_match()
    differ_without = 0
    for _ in range(60):
        strike = [{"ball": "w1", "V0": float(rng.uniform(0.5, 2.5)),
                   "phi": float(rng.uniform(-40, 60))},
                  {"ball": "r1", "V0": float(rng.uniform(0.5, 2.5)),
                   "phi": float(180 + rng.uniform(-40, 60))}]
        ref, plain, full = _three_routes(None, _golf_shot(st, strike))
        assert full == ref, strike
        differ_without += plain != ref
    assert differ_without > 0


def _golf_log():
    st = new_match()
    strike = [{"ball": "w1", "V0": 1.5, "phi": 20.0}, {"ball": "r1", "V0": 1.5, "phi": 200.0}]
    return st, strike, simulate_json({**_golf_shot(st, strike), "event_states": True})


def _first(log, kind):
    return next(k for k, e in enumerate(log["events"]) if e["type"] == kind)


@pytest.mark.parametrize(("change", "fragment"), [
    (lambda g: g.pop("start"), "log.events[0].after needs the output's 'start'"),
    (lambda g: g["events"][0].pop("after"), "log.events[0] has no 'after'"),
    (lambda g: g["start"].pop("w3"), "log.start.w3 is missing"),
    (lambda g: g["start"]["w1"].update(x=0.5), "log.start.w1 is at (0.5,"),
    (lambda g: g["start"]["w1"].update(v=[40.0, 0.0]), "log.start.w1.v = [40.0, 0.0] is faster "
                                                       "than 30 m/s"),
    (lambda g: g["start"]["w1"].update(w=[0.0, 0.0]), "log.start.w1.w must have 3"),
    (lambda g: g["start"]["w1"].update(state="flying"), "log.start.w1.state"),
    (lambda g: g["start"]["w3"].update(state="pocketed"), "log.start.w3.state must be one of"),
    (lambda g: g["start"]["w1"].pop("state"), "log.start.w1"),
    (lambda g: g["events"][_first(g, "ball_ball")]["after"].pop(),
     "].after must have 2"),
    (lambda g: g["events"][0]["after"][0].update(x=float("nan")), "log.events[0].after[0].x"),
    (lambda g: g["events"][0]["after"][0].update(y=5.0), "log.events[0].after[0].y"),
    (lambda g: g["start"]["w2"].update(v=[0.5, 0.0], state="rolling"),
     "log.start.w2 is rolling, but the stroke strikes only ['w1', 'r1'] (every other ball "
     "starts at rest)"),
])
def test_golf_malformed_states_are_refused(change, fragment):
    st, strike, log = _golf_log()
    assert golf_score({"state": None, "log": log, "strike": strike})["outcome"]["opening"]
    bad = copy.deepcopy(log)
    change(bad)
    with pytest.raises(ValueError) as exc:
        golf_score({"state": None, "log": bad, "strike": strike})
    msg = str(exc.value)
    assert fragment in msg and "\n" not in msg, msg


KEGLE_BALLS = {"red": [-0.8, 0.1], "white": [-0.525, 0.0], "spotted": [0.525, 0.0]}


def _kegle_log(states=True):
    return simulate_json({"table": "keglebillard", "event_states": states,
                          "balls": {k: {"x": x, "y": y} for k, (x, y) in KEGLE_BALLS.items()},
                          "strike": {"ball": "red", "V0": 3.0, "phi": -5.0, "b": 0.2}})


def test_kegle_log_with_states_starts_where_the_output_says():
    full, plain = _kegle_log(), _kegle_log(False)
    lg = kegle_log(full)  # no start given: the output's own
    assert lg.rvw0[0, :, 0, :2].tolist() == list(KEGLE_BALLS.values())
    assert lg.motion0[0].tolist() == [2, 0, 0]  # the red sliding after the strike
    assert lg.rvw0[0, 0, 1, 0] > 0
    # without states the start defaults to the final positions, as before
    assert kegle_log(plain).rvw0[0, :, 0, :2].tolist() == [
        [plain["final"][n]["x"], plain["final"][n]["y"]] for n in KEGLE_BALLS]
    # scored against a state, the states change nothing the keglebillard referee reads
    state = {"players": 2, "balls": KEGLE_BALLS}
    assert kegle_score({"state": state, "log": full}) == kegle_score({"state": state,
                                                                      "log": plain})
    moved = {**state, "balls": {**KEGLE_BALLS, "white": [-0.4, 0.0]}}
    with pytest.raises(ValueError, match=r"log.start.white is at \(-0.525, 0.0\), but the shot "
                                         r"starts it at \(-0.4, 0.0\)"):
        kegle_score({"state": moved, "log": full})
    chain = simulate_json({"table": "keglebillard", "event_states": True,
                           "balls": {k: {"x": x, "y": y} for k, (x, y) in KEGLE_BALLS.items()},
                           "strike": {"ball": "red", "V0": 5.0, "phi": -8.0, "b": 0.2}})
    pin_pin = next(k for k, e in enumerate(chain["events"]) if e["type"] == "pin_pin")
    assert "after" not in chain["events"][pin_pin]
    kegle_log(chain)
    chain["events"][pin_pin]["after"] = []
    with pytest.raises(ValueError, match=rf"log.events\[{pin_pin}\].after is given, but a "
                                         "pin_pin event has no ball"):
        kegle_log(chain)
