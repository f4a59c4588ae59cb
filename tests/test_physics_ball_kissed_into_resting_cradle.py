"""Regression: a ball that stops cradled by resting balls with no room for it must not stay
inside one of them. Before the fix it stayed 1.2-1.3 um inside one, above the 1 um tolerance of
the soak and of the layout check.

Found by ``experiments/soak.py --hostile --seed 5`` (2 of 10^6 golfbillard shots). Inputs and
what each left are in ``tests/fixtures/hostile_resting_cradle_overlap.json``. Cause (traced):
the straight-line kiss of a ball-ball collision moves its two balls without looking at third
balls and had pushed a ball 9.9 um and 3.5 um into a ball behind it; when it stopped among
resting balls closer than 4R apart there was no room for it, and
:func:`cuegym.physics.kiss._unstick_resting`, which moved only the ball that stops, alternated
between them. Fixed by :func:`cuegym.physics.kiss._relax_resting`: the resting neighbours make
room, fixed obstacles win, and each moved ball is logged (docs/physics.md sec. 7, "Tight
cradles").
"""

import json
from pathlib import Path

import numpy as np
import pytest

from cuegym.physics import Models, simulate
from cuegym.physics.constants import ROLLING, STATIONARY
from cuegym.physics.engine import pack_params
from cuegym.physics.kiss import REST_OVERLAP_TOL, _inside_fixed, _relax_resting, _unstick_resting
from cuegym.physics.path import states_at

SHOTS = json.loads((Path(__file__).parent / "fixtures" /
                    "hostile_resting_cradle_overlap.json").read_text())


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
    # the resting balls that made room are logged: the path query ends where the shot ends
    end = states_at(res, res.t_end[:, None])[0, 0]
    np.testing.assert_array_equal(end[on], res.rvw[0, on].reshape(-1, 9)[:, [0, 1, 3, 4, 6, 7, 8]])


def _cradle(golf, gap):
    """Ball 0 stopping between resting balls 1 and 2, which are ``gap`` [m] closer than 4R
    apart, at mid-table (no fixed obstacle near): 0 is gap/2 inside each of them."""
    table, params = golf
    R = params.R
    geo = table.arrays(params)
    prm = pack_params(params, table.cushion_height, table.pin_radius, table.pin_height)
    st = np.zeros((3, 7))
    st[0, :2] = 0.4, 0.3
    st[1, :2] = 0.4 - 2 * R + gap / 2, 0.3
    st[2, :2] = 0.4 + 2 * R - gap / 2, 0.3
    return R, geo, prm, st


def test_ball_stopping_without_room_gets_room_from_its_neighbours(golf):
    """No spot between two resting balls closer than 4R: pushing the stopping ball out of one
    puts it into the other, so the resting balls make room (both moved, both reported)."""
    R, geo, prm, st = _cradle(golf, 3e-6)
    mo = np.array([ROLLING, STATIONARY, STATIONARY], np.int32)
    lines, circles, pins = geo["lines"], geo["circles"], geo["pin_spots"]
    up = np.zeros(0, bool)
    pushed = _unstick_resting(0, st, mo, R, 1e-6, lines, circles, pins, up, prm)
    assert pushed == 0b110
    d = np.hypot(*(st[:, None, :2] - st[None, :, :2]).transpose(2, 0, 1))
    assert d[0, 1] >= 2 * R - REST_OVERLAP_TOL and d[0, 2] >= 2 * R - REST_OVERLAP_TOL
    assert abs(st[1, 0] - (0.4 - 2 * R)) < 3e-6 and abs(st[2, 0] - (0.4 + 2 * R)) < 3e-6
    for b in range(3):
        assert not _inside_fixed(st[b, 0], st[b, 1], R, lines, circles, pins, up, prm)


def test_cluster_relaxation_holds_a_ball_against_a_cushion(golf):
    """A resting ball pressed against the cushion stays out of it: the ball between makes room
    on the free side only."""
    table, params = golf
    R, geo, prm, st = _cradle(golf, 3e-6)
    x_wall = -table.length / 2 + R + 1e-6  # ball 1 touching the short cushion, no post near
    st[:, 0] += x_wall - st[1, 0]
    mo = np.array([STATIONARY, STATIONARY, STATIONARY], np.int32)
    lines, circles, pins = geo["lines"], geo["circles"], geo["pin_spots"]
    up = np.zeros(0, bool)
    pushed = _relax_resting(0, st, mo, R, 2 * REST_OVERLAP_TOL, lines, circles, pins, up, prm)
    assert pushed & 0b100
    assert st[1, 0] >= -table.length / 2 + R - 1e-9
    d = np.hypot(*(st[:, None, :2] - st[None, :, :2]).transpose(2, 0, 1))
    assert d[0, 1] >= 2 * R - REST_OVERLAP_TOL and d[0, 2] >= 2 * R - REST_OVERLAP_TOL
