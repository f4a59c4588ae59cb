"""Shared pieces of the golfbillard referee tests on hand-written event logs.

The standard positions (side 0, w1..w5, attacks goal 0 at +x; side 1, r1..r5, goal 1), the
stroke helper that builds a log with :class:`LogBuilder` and scores it, and ball lookups by id.
"""

import numpy as np

from cuegym.rules.golfbillard import GolfState, LogBuilder, golf_geometry, score_stroke

GEO = golf_geometry()
ZS = GEO.zones
R = GEO.R
EPS = ZS.eps_line
GOAL0 = np.array([0.897, 0.0])
GOAL1 = np.array([-0.897, 0.0])
SPOTS0 = ZS.penalty_spots[0]
SPOTS1 = ZS.penalty_spots[1]
BASE = {"w1": (0.5, 0.0), "w2": (-0.3, 0.2), "w3": (-0.3, -0.2),
        "r1": (0.3, 0.25), "r2": (0.3, -0.25), "r3": (-0.6, 0.2)}


def state(balls=None, **kw):
    return GolfState.with_balls(dict(BASE if balls is None else balls), **kw)


def toward(p, q, speed):
    d = np.asarray(q, float) - np.asarray(p, float)
    return speed * d / np.linalg.norm(d)


def stroke(st, build, cue_ball, theta=0.0, **kw):
    log = build(LogBuilder(st.xy)).build()
    return score_stroke(st, log, cue_ball, [0.0, 0.0, theta, 0.0, 0.0], **kw)


def idx(name):
    return GEO.ball_ids.index(name)


def at(o, name):
    return o.xy[idx(name)]



#: side 1 down to one ball (kader play, G-20)
KADER = {"w1": (0.2, 0.2), "w2": (-0.3, 0.2), "r1": (-0.2, -0.25)}  # side 1 on one ball


IN_DEF = (-0.8, 0.0)  # inside side 0's great defence triangle (goal 1)


def duty_state(**balls):
    """The BASE position with w1 in side 0's great defence triangle and owing the G-14 duty,
    ``balls`` moved."""
    st = state({**BASE, "w1": IN_DEF, **balls})
    st.duty[idx("w1")] = True
    return st
