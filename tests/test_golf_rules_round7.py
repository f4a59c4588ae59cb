"""Golfbillard injected events against the log's drops (docs/rules_golfbillard.md, injected
events): a ball the log drops into a goal has no later place, so an event putting it off the
table, on the rail or between caps is refused; only ``fall_after_rest`` overrides a drop (the
events were accepted and cancelled a valid goal while ``drops`` still listed it)."""
import pytest

from cuegym.rules.golf_json import score_json
from cuegym.rules.golfbillard import GolfState, LogBuilder, score_stroke
from cuegym.rules.golfbillard_game import score_opening

STATE = {"phase": "play", "to_move": 0,
         "balls": {"w1": [0.5, 0], "w2": [-0.2, -0.3], "w3": [0.1, -0.3], "w4": None,
                   "w5": None, "r1": [0.3, 0.25], "r2": [0.3, -0.25], "r3": None, "r4": None,
                   "r5": None}}
DROP = {"events": [{"type": "drop", "t": 0.4, "ball": "w1", "goal": 0}]}
AFTER_DROP = [{"type": "off_table", "ball": "w1", "time": 0.6},
              {"type": "rests_on_rail", "ball": "w1"},
              {"type": "rail_return", "ball": "w1"},
              {"type": "jam", "ball": "w1", "goal": 1},
              {"type": "jam", "ball": "w1", "goal": 0},
              {"type": "jam", "ball": "w1", "where": "cap_cushion"}]


def _score(inject):
    return score_json({"state": STATE, "strike": {"ball": "w1", "V0": 1, "phi": 0},
                       "hand_log": DROP, "inject": inject})


@pytest.mark.parametrize("event", AFTER_DROP, ids=lambda e: e["type"] + str(e.get("goal", "")))
def test_an_event_placing_a_dropped_ball_is_refused_naming_it(event):
    inject = [{"type": "off_table", "ball": "r1"}, event]
    with pytest.raises(ValueError, match=r"inject\[1\]\.ball = w1: .*dropped into a goal"):
        _score(inject)


def test_the_drop_stands_and_other_balls_events_still_act():
    out = _score([{"type": "off_table", "ball": "r1"}])["outcome"]
    assert [d["ball"] for d in out["drops"]] == ["w1"] and out["scored"][0] == 1
    # fall_after_rest is the event that overrides a drop (G-6a): still accepted
    fell = _score([{"type": "fall_after_rest", "ball": "w1"}])["outcome"]
    assert fell["drops"] == [] and fell["scored"] == [0, 0]


def test_the_opening_refuses_them_too():
    st = GolfState.with_balls({"w1": (-0.825, 0.0), "r1": (0.825, 0.0), "w2": (-0.825, 0.15),
                               "r2": (0.825, 0.15)}, phase="opening")
    log = (LogBuilder(st.xy).strike("w1", (1.5, 0.0)).strike("r1", (-1.5, 0.0))
           .drop(0.5, "w1", 0).rest("r1", (-0.2, 0.06), 1.0).build())
    with pytest.raises(ValueError, match=r"ball = w1: .*dropped into a goal"):
        score_opening(st, log, ["w1", "r1"],
                      injected=[{"type": "off_table", "ball": "w1", "time": 0.9}])
    o = score_opening(st, log, ["w1", "r1"],
                      injected=[{"type": "off_table", "ball": "r2", "time": 0.9}])
    assert o.to_json()["scored_balls"] == ["w1"]


def test_score_stroke_refuses_them():
    st = GolfState.with_balls({"w1": (0.5, 0.0), "w2": (-0.3, 0.2), "r1": (0.3, 0.25)},
                              to_move=0)
    log = LogBuilder(st.xy).strike("w1", (0.5, 0.0)).drop(0.4, "w1", 0).build()
    with pytest.raises(ValueError, match="dropped into a goal"):
        score_stroke(st, log, "w1", [0.5, 0, 0, 0, 0],
                     injected=[{"type": "rests_on_rail", "ball": "w1"}])
