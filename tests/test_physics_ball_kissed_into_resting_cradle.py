"""Known bug (open): a kiss can push a ball a few micrometres into a third ball; if that ball
rests (or later rests) on the other side, the ball can stop cradled between resting balls with
no room for it and stay 1.2-1.3 um inside one of them, above the 1 um tolerance of the soak and
of the layout check.

Found by ``experiments/soak.py --hostile --seed 5`` (2 of 10^6 golfbillard shots; the same two
fail before and after the fixed-obstacle kiss of physics/kiss.py, which does not touch them).
Inputs and what each leaves are in ``tests/fixtures/hostile_resting_cradle_overlap.json``.
Cause (traced): the ball-ball kiss moves its two balls without looking at third balls, and
:func:`cuegym.physics.kiss._unstick_resting` moves only the ball that stops, so when the resting
balls round it are closer than 4R it alternates between them. Strict xfail: the test starts
failing the day this is fixed, so that the marker is removed.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from cuegym.physics import Models, simulate

SHOTS = json.loads((Path(__file__).parent / "fixtures" /
                    "hostile_resting_cradle_overlap.json").read_text())


@pytest.mark.xfail(strict=True, reason="open: a ball cradled by resting balls without room")
@pytest.mark.parametrize("k", range(len(SHOTS)))
def test_ball_stopping_in_a_tight_cradle_overlaps_no_ball(golf, k):
    table, params = golf
    s = SHOTS[k]
    R = params.R
    res = simulate(table, params, [s["xy"]], cue_ball=[s["cue_ball"]], cue=[s["cue"]],
                   w=[s["w"]], models=Models(squirt=s["squirt"]), max_events=5000,
                   t_max=3600.0)
    assert res.overflow[0] == 0
    on = res.motion[0] != 4
    xy = res.rvw[0, on, 0, :2]
    d = np.linalg.norm(xy[:, None] - xy[None], axis=-1) + 4 * R * np.eye(len(xy))
    assert d.min() >= 2 * R - 1e-6
