"""Golfbillard referee inputs found by the sixth outside audit (docs/rules_golfbillard.md):
keys an injected event does not take, a G-18 foul's ``side`` in play, G-17a in the opening,
kader flags a match cannot reach, and a CLI ``strike`` beside a ``shot``."""
import pytest

from cuegym.rules.golf_json import score_json
from cuegym.rules.golfbillard import GolfState, LogBuilder, score_stroke
from cuegym.rules.golfbillard_game import score_opening

ST = GolfState.with_balls({"w1": (0.5, 0.0), "w2": (-0.3, 0.2), "r1": (0.3, 0.25),
                           "r2": (0.3, -0.25)}, to_move=0)
LOG = LogBuilder(ST.xy).strike("w1", (0.5, 0.0)).rest("w1", (0.7, 0.0), 1.0).build()
R2 = 0.0615
BALLS = {"w1": [0.5, 0.0], "w2": [-0.3, 0.2], "w3": None, "w4": None, "w5": None,
         "r1": [0.3, 0.25], "r2": [0.3, -0.25], "r3": None, "r4": None, "r5": None}


@pytest.mark.parametrize("event, key", [
    # in play the offender is the side at the table: naming the other side penalised the
    # shooter without a word
    ({"type": "foul", "kind": "touch", "ball": "r2", "side": 1}, "side"),
    # a jam is between a goal's caps or between a cap and the cushion, not both
    ({"type": "jam", "ball": "r1", "goal": 0, "where": "cap_cushion"}, "where"),
    ({"type": "jam", "ball": "r1", "goal": 0, "where": "nowhere"}, "where"),
    # keys of other event types
    ({"type": "off_table", "ball": "r1", "goal": 7}, "goal"),
    ({"type": "off_table", "ball": "r1", "kind": "bogus"}, "kind"),
    ({"type": "rail_return", "ball": "r1", "where": "cap_cushion"}, "where"),
])
def test_inapplicable_injected_keys_are_refused(event, key):
    with pytest.raises(ValueError, match=key):
        score_stroke(ST, LOG, "w1", [0.5, 0, 0, 0, 0], injected=[event])


def test_a_foul_naming_the_side_to_move_is_still_read():
    o = score_stroke(ST, LOG, "w1", [0.5, 0, 0, 0, 0],
                     injected=[{"type": "foul", "kind": "touch", "ball": "r2", "side": 0}])
    plain = score_stroke(ST, LOG, "w1", [0.5, 0, 0, 0, 0],
                         injected=[{"type": "foul", "kind": "touch", "ball": "r2"}])
    assert o.fouls == plain.fouls and o.fouls


def test_opening_side_emptied_by_G17_wins_even_when_both_sides_are_empty():
    """G-4: balls put into a goal by G-17 are settled by G-17a (the emptied side wins); the
    drop times decided before, and side 0 won."""
    st = GolfState.with_balls({"w1": (-0.825, 0.0), "w2": (0.5, 0.2),
                               "r1": (0.825, 0.0), "r2": (-0.5, -0.2)}, phase="opening")
    log = (LogBuilder(st.xy)
           .strike("w1", (1.5, 0.0)).strike("r1", (-1.5, 0.0))
           .ball_ball(0.1, "w1", "r2", (-0.5, -0.2 + R2), (-0.5, -0.2))
           .ball_ball(0.3, "w1", "w2", (0.5 - R2, 0.2), (0.5, 0.2))
           .drop(0.5, "w1", 0).drop(0.6, "r1", 1).drop(0.7, "w2", 0)
           .build())
    o = score_opening(st, log, ["w1", "r1"],
                      injected=[{"type": "off_table", "ball": "r2", "time": 0.9}])
    assert o.to_json()["into_goal"] == ["r2"]
    assert o.game_over and o.winner == 1
    assert "side 1 wins" in o.reason and "repeat" not in o.reason


def test_kader_true_needs_a_side_on_one_ball():
    with pytest.raises(ValueError, match=r"state\.kader is true"):
        GolfState.from_json({"phase": "play", "to_move": 0, "kader": True, "balls": BALLS})


def test_fouled_spots_need_kader_play():
    with pytest.raises(ValueError, match="fouled_spots"):
        GolfState.from_json({"phase": "play", "to_move": 0, "fouled_spots": [[1], []],
                             "balls": BALLS})


def test_strike_next_to_a_shot_is_refused():
    with pytest.raises(ValueError, match="strike"):
        score_json({"state": {"phase": "play", "to_move": 0, "balls": BALLS},
                    "shot": {"strike": {"ball": "w1", "V0": 0.5, "phi": 0}},
                    "strike": {"ball": "w2", "V0": 3.0, "phi": 90}})
