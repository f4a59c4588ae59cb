"""Regression: a massé into 9 frozen golfbillard balls left two balls resting 1.7 micrometres
inside each other (hostile soak, seed 2).

The struck ball's massé started a chain of collisions through the frozen cluster at t ~ 2e-14 s.
Resolving (0, 4) kissed ball 0 back along its velocity into ball 1, the partner of its previous
collision; the two were crawling apart at ~1e-4 m/s, so they never collided again and came to
rest overlapping. kiss._unstick_resting now puts a ball that stops at 2R + kiss from a
resting ball it overlaps (logged in its transition event).
"""

import numpy as np

from cuegym.physics import simulate
from cuegym.physics.constants import EV_TRANSITION
from cuegym.physics.path import positions_at

XY = [[-0.4167070403885277, -0.09577416466228955], [-0.37380415969320374, -0.13983767369235658],
      [-0.32026329035981976, -0.17009697492396975], [-0.28963860331359126, -0.11676425941725133],
      [-0.4751631811746745, -0.11488252943770098], [-0.4303860886206943, -0.1639361242409792],
      [-0.3772017670395543, -0.048640489040470115], [-0.3849022916340504, -0.2053302568164755],
      [-0.22840541384257207, -0.1224867158134386], [0.8326639646593885, 0.1961213155578836]]
CUE = [9.104087368191177, -100.53673723013846, 47.76283542243863, -0.7144846350800201,
       0.47484613501480827]


def test_masse_into_frozen_cluster_leaves_no_resting_overlap(golf):
    table, params = golf
    R = params.R
    res = simulate(table, params, [XY], cue_ball=[3], cue=[CUE], max_events=5000, t_max=3600.0)
    assert res.overflow[0] == 0 and np.all(res.motion[0] == 0)
    xy = res.rvw[0, :, 0, :2]
    d = np.linalg.norm(xy[:, None] - xy[None], axis=-1) + np.eye(10)
    assert d[0, 1] > 2 * R  # the pair that overlapped by 1.7e-6 m
    assert d.min() >= 2 * R - 1e-9
    # the move is part of ball 0's logged path: the path ends where the final state is
    end = positions_at(res, [res.t_end[0]])[0, 0]
    assert np.array_equal(end, xy)
    n = res.n_events[0]
    last0 = max(k for k in range(n) if res.ev_type[0, k] == EV_TRANSITION
                and res.ev_i[0, k] == 0)
    assert np.array_equal(res.ev_state[0, last0, 0, :2], xy[0])


# Hostile soak, seed 1, shot 48128: ball 0, frozen to balls 1, 2 and 3, is nudged (ball 6 struck
# with squirt) and comes to rest cradled by them 1.5 micrometres inside ball 1; moving it
# 2R + kiss away from ball 1 pushes it into 2 or 3. It now ends within the layout tolerance
# of all three, and the final layout is a valid start for the next shot.
XY2 = [[0.7247820879511946, -0.10852934710722201], [0.6677444603245715, -0.08553023767388349],
       [0.7169990609382746, -0.1695348754674957], [0.7859116455928341, -0.10178937807632352],
       [0.7075411308830823, -0.2303032682310952], [0.6463892185364757, -0.22376923300369245],
       [0.6106814427806477, -0.06259419553968226], [0.7109454061308113, -0.04175891965116074],
       [0.8343131596070881, -0.13973069383010278], [-0.7012043321051898, -0.41874768867611234]]
CUE2 = [2.0243701470324793, 168.35214284480793, 21.20422126194954, -0.3379834319141981,
        0.024647880198351423]


def test_ball_cradled_by_resting_balls_ends_within_tolerance(golf):
    from cuegym.physics import Models
    from cuegym.physics.layout import BALL_OVERLAP_TOL

    table, params = golf
    R = params.R
    res = simulate(table, params, [XY2], cue_ball=[6], cue=[CUE2], models=Models(squirt=True),
                   max_events=5000, t_max=3600.0)
    assert res.overflow[0] == 0
    xy = res.rvw[0, :, 0, :2]
    d = np.linalg.norm(xy[:, None] - xy[None], axis=-1) + np.eye(10)
    assert d.min() >= 2 * R - BALL_OVERLAP_TOL / 2
    simulate(table, params, [xy])  # a valid layout for the next shot
