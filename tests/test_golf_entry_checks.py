"""The golfbillard per-table referee API checks its inputs as the game layer does (audit s48).

``score_stroke`` / ``score_strokes`` / ``play_strokes`` refuse state fields the compiled referee
would index with out of range (``Golf.play``'s ``check_states``), strikes outside the physics'
limits or of the wrong shape, and ``new_match`` / ``GolfState.with_balls`` refuse values they
used to cast.
"""

import subprocess
import sys

import numpy as np
import pytest

from cuegym.rules.golfbillard import (
    GolfState,
    LogBuilder,
    score_stroke,
    score_strokes,
    stack_logs,
)
from cuegym.rules.golfbillard_game import new_match, play_strokes

BALLS = {"w1": (0.5, 0.0), "w2": (-0.3, 0.2), "r1": (0.3, 0.25)}


def _log(st):
    return LogBuilder(st.xy).strike("w1", (1.0, 0.0)).rest("w1", (0.7, 0.0), 1.0).build()


# --- state fields: the kernels index with them unchecked ------------------------------------

_SEGV = """
from cuegym.rules.golfbillard import GolfState, LogBuilder, score_stroke
st = GolfState.with_balls({'w1': (0.5, 0.0), 'w2': (-0.3, 0.2), 'r1': (0.3, 0.25)})
st.to_move = 2
log = LogBuilder(st.xy).strike('w1', (1.0, 0.0)).rest('w1', (0.7, 0.0), 1.0).build()
try:
    score_stroke(st, log, 'w1')
except ValueError as e:
    print('REFUSED', e)
"""


def test_golf_to_move_2_is_refused_not_a_segfault():
    # in a child process: the unchecked kernel read out of bounds and killed the interpreter
    r = subprocess.run([sys.executable, "-c", _SEGV], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, f"process died with {r.returncode} (SIGSEGV is -11): {r.stderr}"
    assert "REFUSED" in r.stdout and "to_move" in r.stdout


@pytest.mark.parametrize("field", [dict(to_move=2), dict(to_move=-1),
                                   dict(on_spot=np.full(10, 9)), dict(partner=np.array([0, 7])),
                                   dict(winner=5), dict(games_won=np.array([-5, 0])),
                                   dict(seed=-1), dict(to_move="0"), dict(kader="yes"),
                                   dict(turn_strokes=2.5), dict(phase="later")])
def test_golf_score_stroke_checks_state_fields_as_golf_play_does(field):
    st = GolfState.with_balls(BALLS)
    for k, v in field.items():
        setattr(st, k, v)
    log = _log(st)
    name = next(iter(field))
    with pytest.raises(ValueError, match=name):
        score_stroke(st, log, "w1")
    with pytest.raises(ValueError, match=name):
        play_strokes([st], log, ["w1"], [[1.0, 0, 0, 0, 0]])


@pytest.mark.parametrize("field", [dict(to_move=2), dict(to_move="0"), dict(kader="yes"),
                                   dict(seed=-1), dict(turn_strokes=2.5),
                                   dict(partner=np.array([0, 7]))])
def test_golf_with_balls_checks_the_fields_it_sets(field):
    with pytest.raises(ValueError, match=next(iter(field))):
        GolfState.with_balls(BALLS, **field)


def test_golf_score_strokes_names_the_table_of_a_bad_state():
    good = GolfState.with_balls(BALLS)
    bad = good.copy()
    bad.on_spot = np.full(10, 9)
    with pytest.raises(ValueError, match=r"states\.on_spot\[1, 0\] = 9"):
        score_strokes([good, bad], stack_logs([_log(good), _log(bad)]), ["w1", "w1"])


# --- strikes: the physics' limits and an exact shape ------------------------------------------

@pytest.mark.parametrize("cue", [[[1.0, 0.0, np.nan, 0.0, 0.0]], [[1.0, 0.0, np.inf, 0.0, 0.0]],
                                 [[1.0, 0.0, 500.0, 0.0, 0.0]], [[-3.0, 0.0, 0.0, 0.0, 0.0]],
                                 [[1.0, 0.0, 0.0, 2.0, 2.0]], np.zeros((1, 3, 5)) + 1.0,
                                 [["1", 0, 0, 0, 0]]])
def test_golf_play_strokes_checks_its_cue(cue):
    st = GolfState.with_balls(BALLS, to_move=0)
    with pytest.raises(ValueError, match="cue"):
        play_strokes([st], _log(st), ["w1"], cue)


def test_golf_score_strokes_refuses_a_transposed_cue_and_out_of_range_theta():
    st = GolfState.with_balls(BALLS, to_move=0)
    log = _log(st)
    with pytest.raises(ValueError, match="theta"):
        score_stroke(st, log, "w1", [1.0, 0.0, 500.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"cue must have shape \(2, 5\)"):  # (5, 2) is no (2, 5)
        score_strokes([st, st], stack_logs([log, log]), ["w1", "w1"], np.zeros((5, 2)))
    with pytest.raises(ValueError, match="cue"):
        score_strokes([st], log, ["w1"], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0])


def test_golf_good_cues_are_still_scored():
    st = GolfState.with_balls(BALLS, to_move=0)
    log = _log(st)
    one = [1.0, 0.0, 5.0, 0.1, 0.0]
    assert score_stroke(st, log, "w1", one).cue_ball == 0  # one (5,) strike for one state
    assert len(score_strokes([st], log, ["w1"], [one])) == 1
    outs, _ = play_strokes([st], log, ["w1"], np.array([[one, [0.0] * 5]]))  # (T, 2, 5)
    assert outs[0].cue_ball == 0


# --- new_match's seed ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1.5, True, -1, np.float64(1.9), "3"])
def test_golf_new_match_seed_is_checked(seed):
    with pytest.raises(ValueError, match="seed"):
        new_match(seed=seed)


def test_golf_new_match_takes_integer_seeds():
    assert new_match(seed=np.int64(7)).seed == 7
