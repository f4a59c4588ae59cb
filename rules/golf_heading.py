"""Compiled golfbillard geometry of a stroke's start: where the cue ball lies and where it heads.

The stroke referee (:mod:`cuegym.rules.golf_stroke`) asks these of one table before it reads the
event log: the initial heading (G-10), whether a stroke from below a goal's stroke line is hard
or raised toward its caps (G-10), whether it is a direct attempt at that goal (G-10a), and what
the cue ball is frozen to (G-13). They take plain floats and the :class:`GolfArrays` bundle
(:mod:`cuegym.rules.golf_paths`), so the Python views in :mod:`cuegym.rules.golfbillard` and the
geometric agent call the very same tests. Lengths in metres, speeds in m/s, angles in degrees.
"""

from __future__ import annotations

import math

import numba as nb

from cuegym.physics.constants import EV_BALL_POST

from .golf_arrays import N_BALLS, R_HARD, R_RAISED
from .golf_codes import K_HARD, K_RAISED
from .golf_paths import in_poly, on_line


@nb.njit(cache=True)
def _ray_hits_segment(px, py, dx, dy, ax, ay, bx, by):
    """Does the ray p + s d (s >= 0) cross the segment a-b?"""
    ex, ey = bx - ax, by - ay
    det = dx * (-ey) - (-ex) * dy
    if abs(det) < 1e-15:
        return False
    rx, ry = ax - px, ay - py
    s = (rx * (-ey) - (-ex) * ry) / det
    u = (dx * ry - dy * rx) / det
    return s >= 0.0 and -1e-12 <= u <= 1.0 + 1e-12


@nb.njit(cache=True)
def _ray_dist(px, py, dx, dy, cx, cy):
    """Closest approach of the ray p + s d (s >= 0, |d| = 1) to the point c."""
    s = max((cx - px) * dx + (cy - py) * dy, 0.0)
    ex = px + s * dx - cx
    ey = py + s * dy - cy
    return math.sqrt(ex * ex + ey * ey)


@nb.njit(cache=True)
def toward_goal_cap(px, py, dx, dy, g, ga):
    """G-10 (b): the direction passes within R + r_cap of one of goal g's caps."""
    reach = ga.R + ga.r_cap
    for m in range(2):
        k = ga.goal_caps[g, m]
        if _ray_dist(px, py, dx, dy, ga.caps[k, 0], ga.caps[k, 1]) <= reach:
            return True
    return False


@nb.njit(cache=True)
def direct_goal_attempt(px, py, dx, dy, g, ga):
    """G-10a: the line of the initial direction passes between goal g's caps, or within
    R + r_cap of one of them."""
    a, b = ga.goal_caps[g, 0], ga.goal_caps[g, 1]
    if _ray_hits_segment(px, py, dx, dy, ga.caps[a, 0], ga.caps[a, 1], ga.caps[b, 0],
                         ga.caps[b, 1]):
        return True
    return toward_goal_cap(px, py, dx, dy, g, ga)


@nb.njit(cache=True)
def initial_direction(v0x, v0y, phi):
    """The cue ball's initial heading: (dx, dy) the unit vector of its velocity (v0x, v0y)
    [m/s] at t = 0, or of the cue's direction ``phi`` [deg] when it did not move; and its
    speed [m/s]."""
    speed0 = math.hypot(v0x, v0y)
    if speed0 > 1e-9:
        d0x = v0x / max(speed0, 1e-300)
        d0y = v0y / max(speed0, 1e-300)
    else:
        phi = phi * (math.pi / 180.0)
        d0x, d0y = math.cos(phi), math.sin(phi)
    return d0x, d0y, speed0


@nb.njit(cache=True)
def below_stroke_line(px, py, g, ga):
    """G-10: (px, py) [m] lies below goal g's stroke line: in one of its two regions, not on
    the line itself and not in the small triangle."""
    return (in_poly(ga.polys, ga.nv, ga.below[g, 0], px, py)
            or in_poly(ga.polys, ga.nv, ga.below[g, 1], px, py)) \
        and not on_line(ga.stroke_line[g], px, py, ga.eps) \
        and not in_poly(ga.polys, ga.nv, ga.small_in[g], px, py)


@nb.njit(cache=True)
def hard_or_raised(px, py, dx, dy, speed0, theta, fc_type, fc_other, g, ga, rp):
    """G-10: the foul kind of a stroke from below goal g's stroke line at (px, py) [m] with
    heading (dx, dy), speed ``speed0`` [m/s] and cue elevation ``theta`` [deg]: K_HARD (speed
    of at least R_HARD), K_RAISED (elevation of at least R_RAISED toward a goal cap, or a first
    contact ``fc_type`` / ``fc_other`` with one), -1 neither."""
    if speed0 >= rp[R_HARD]:
        return K_HARD
    against_cap = fc_type == EV_BALL_POST and (fc_other == ga.goal_caps[g, 0]
                                               or fc_other == ga.goal_caps[g, 1])
    if theta >= rp[R_RAISED] and (toward_goal_cap(px, py, dx, dy, g, ga) or against_cap):
        return K_RAISED
    return -1


@nb.njit(cache=True)
def frozen_list(xy, c, ga, gap, kind_out, k_out, u_out):
    """G-13: what ball ``c`` is frozen to (a gap below ``gap`` [m]): other balls, straight
    cushions, caps, each by index. Writes the kind (0 ball, 1 cushion, 2 cap), its index and
    the unit vector from the ball's centre toward it; returns how many."""
    R = ga.R
    pcx, pcy = xy[c, 0], xy[c, 1]
    n = 0
    for kind in range(3):
        m = N_BALLS if kind == 0 else (ga.cushions.shape[0] if kind == 1 else ga.caps.shape[0])
        for k in range(m):
            if kind == 0:
                if k == c or math.isnan(xy[k, 0]):
                    continue
                dvx, dvy = xy[k, 0] - pcx, xy[k, 1] - pcy
                dist = math.hypot(dvx, dvy)
                if not dist - 2 * R < gap:
                    continue
                ux, uy = dvx / dist, dvy / dist
            elif kind == 1:
                x1, y1, x2, y2, nx, ny = ga.cushions[k, 0], ga.cushions[k, 1], \
                    ga.cushions[k, 2], ga.cushions[k, 3], ga.cushions[k, 4], ga.cushions[k, 5]
                ex, ey = x2 - x1, y2 - y1
                sp = ((pcx - x1) * ex + (pcy - y1) * ey) / (ex * ex + ey * ey)
                if not (0.0 <= sp <= 1.0 and (pcx - x1) * nx + (pcy - y1) * ny - R < gap):
                    continue
                ux, uy = -nx, -ny
            else:
                dvx, dvy = ga.caps[k, 0] - pcx, ga.caps[k, 1] - pcy
                dist = math.hypot(dvx, dvy)
                if not dist - R - ga.r_cap < gap:
                    continue
                ux, uy = dvx / dist, dvy / dist
            kind_out[n] = kind
            k_out[n] = k
            u_out[n, 0] = ux
            u_out[n, 1] = uy
            n += 1
    return n
