"""Keglebillard referee inputs found by the sixth outside audit (docs/rules_keglebillard.md):
events injected into a shot that is never played, a touched ball put back where the red lay
when the red goes into hand, and an array log with a fallen pin that no ball toppled."""
import json
import subprocess
import sys

import numpy as np
import pytest
from kegle_scenarios import mid

from cuegym.games.kegle import Kegle
from cuegym.games.strikes import Strikes
from cuegym.rules.keglebillard import build_log, score_shots
from cuegym.rules.keglebillard_game import KeglebillardGame

UNSPORTING = [{"type": "deliberate_touch", "balls": {"white": [-0.4, 0.2]}, "unsporting": True}]


def test_cli_refuses_events_injected_into_an_unplayable_placement():
    """K-19: the red placed on the white is no shot; its K-16 events were dropped without a
    word (an unsportsmanlike one under unsporting_loss did not lose the match)."""
    inp = {"state": {"players": 2}, "place": [-0.525, 0.0], "rules": {"unsporting_loss": True},
           "inject": UNSPORTING, "hand_log": {"events": []}}
    r = subprocess.run([sys.executable, "-m", "cuegym.rules", "score"], input=json.dumps(inp),
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stdout
    assert "'inject'" in r.stderr and "K-19" in r.stderr and "Traceback" not in r.stderr
    del inp["inject"]  # the placement foul itself is still scored
    r = subprocess.run([sys.executable, "-m", "cuegym.rules", "score"], input=json.dumps(inp),
                       capture_output=True, text=True)
    assert r.returncode == 0 and "K-19:placement" in json.loads(r.stdout)["outcome"]["fouls"]


def test_play_refuses_events_injected_into_an_unplayable_placement():
    G = Kegle({"unsporting_loss": True})
    st = G.new(2, 2)
    strikes = Strikes.of([[2.0, 0.0, 0.0, 0.0, 0.0]] * 2, place=[[-0.525, 0.0]] * 2)
    before = st.copy()
    with pytest.raises(ValueError, match=r"table 1: .*K-19.*injected\[1\]"):
        G.play(st, strikes, None, np.random.default_rng(0), injected=[None, UNSPORTING])
    assert np.array_equal(st.scores, before.scores) and np.array_equal(st.hand, before.hand)
    out, _ = G.play(st, strikes, None, np.random.default_rng(0), injected=[None, []])
    assert not out.played.any() and out.foul.all()  # empty lists are no events


def test_touched_white_may_go_back_where_the_red_stops_when_the_red_goes_into_hand():
    """K-10 (no cushion) gives ball in hand: the red leaves the table, so a white put back
    where the red came to rest is legal (it was refused as an overlap; K-14 was accepted)."""
    log = build_log([(0.1, "ball_ball", "red", "white")],
                    end={"red": (0.3, 0.3), "white": (-0.2, -0.2)})
    out, st = KeglebillardGame().apply(
        mid(2), log, injected=[{"type": "deliberate_touch", "balls": {"white": [0.3, 0.3]}}])
    assert "K-10" in out.fouls and st.ball_in_hand == "cloth"
    assert st.balls[0] is None and st.balls[1] == (0.3, 0.3)


def test_touched_white_still_may_not_land_on_the_red_that_stays():
    log = build_log([(0.1, "ball_ball", "red", "white"), (0.2, "cushion", "white", 1)],
                    end={"red": (0.3, 0.3), "white": (-0.2, -0.2)})
    with pytest.raises(ValueError, match="red where the shot left it"):
        KeglebillardGame().apply(
            mid(2), log, injected=[{"type": "deliberate_touch", "balls": {"white": [0.3, 0.3]}}])


@pytest.mark.parametrize("mask", [0, 8, -1])
def test_array_log_pin_fallen_without_a_toppling_ball_is_refused(mask):
    """A fallen pin with no ball of its chain scored as a legal pin (king alone: 6 points);
    the JSON reader refuses the same shot."""
    lg = build_log([(0.1, "ball_ball", "red", "white"), (0.3, "cushion", "white", 1)])
    d = {f: np.array(getattr(lg, f)) for f in lg.__dataclass_fields__}
    d["pins_up"] = d["pins_up"].copy()
    d["pins_up"][0, 0] = False
    d["pin_toppler"] = d["pin_toppler"].copy()
    d["pin_toppler"][0, 0] = mask
    d = {k: (v.item() if v.ndim == 0 else v) for k, v in d.items()}
    with pytest.raises(ValueError, match=r"log\.pin_toppler\[0, 0\] = "):
        score_shots(d)
    d["pin_toppler"] = np.where(np.arange(5) == 0, 2, d["pin_toppler"])  # the white: scored
    assert score_shots(d).points[0] > 0
