"""Golfbillard geometric aimer (spec G-6..G-13), compiled over a batch of tables.

For each own ball of the side to move: a straight shot at the attack goal when the ball lies in
the goal's *cone* (:class:`GoalCone`: the caps leave about +-7 degrees) and the path between the
caps is clear, struck to roll ``goal_extra`` past the goal centre (below the G-10 hard stroke);
otherwise *safe placements*: among rays from the ball (one per degree, within 75 degrees of the
direction to the cone's middle) the ones whose stretch inside the cone the ball most likely stops
in under execution noise (the stopping distance error grows as the square root of the distance),
struck to stop in the middle of that stretch, and *advances* toward staging points on the attack
half. Opponent balls in their own cone may be driven out sideways (defence). Never toward what
the ball is frozen to (G-13), never along the nearest long cushion from the strip (G-11), never
onto a ball on the way (G-12 when it is an own ball), never hard (G-10).

:func:`golf_candidates_batch` returns every stroke the aimer considers for T tables at once
(one compiled call, :func:`golf_aim_kernel`), with a heuristic cost (lower is better);
:func:`golf_best` the cheapest per table (what :class:`~cuegym.agents.geometric.GeometricAgent`
plays); :func:`golf_candidates` those of one state as :class:`~cuegym.agents.geometry.Candidates`
(the planner, the residual and choice agents).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numba as nb
import numpy as np

from cuegym.agents.base import Strikes
from cuegym.agents.geometry import N_GEO_FEAT, Candidates
from cuegym.rules.golf_arrays import BALLS_PER_SIDE, N_BALLS, SIDE_OF
from cuegym.rules.golf_heading import frozen_list


def stop_speed(dist: float, params: Any) -> float:
    """Ball speed [m/s] after a centre-ball strike that makes a ball stop after ``dist`` metres:
    it slides until it rolls at 5/7 of its speed (u_s), then rolls (u_r):
    ``dist = v^2 (24/49 / (2 u_s g) + 25/49 / (2 u_r g))``."""
    return math.sqrt(max(dist, 0.0) / stop_k(params))


def stop_k(params: Any) -> float:
    """Stopping distance per squared ball speed after a centre-ball strike [m / (m/s)^2]
    (:func:`stop_speed`)."""
    return (24.0 / 49.0) / (2.0 * params.u_s * params.g) + (25.0 / 49.0) / (2.0 * params.u_r *
                                                                          params.g)


#: Golfbillard aimer: a goal shot is struck to roll ``goal_extra`` metres past the goal centre;
#: ``speed_sigma`` is the ball-speed error [m/s] the placements are made robust to (the
#: tournament noise of 0.075 m/s on the cue speed is about 0.11 m/s of ball speed).
GOLF_SPEED = {"goal_extra": 0.4, "speed_sigma": 0.11, "cone_margin": 0.003}


#: Staging points on the attack half (x for side 0; mirrored for side 1) [m]: where a ball that
#: cannot reach the goal cone this stroke is rolled to, for a cone placement later.
GOLF_STAGING = np.array([(x, y) for x in (0.3, 0.45, 0.6) for y in (-0.25, -0.12, 0.0, 0.12,
                                                                   0.25)])


@dataclass(frozen=True)
class GoalCone:
    """The region in front of a goal from which a straight shot passes between the goal caps.

    The goal caps leave a ball centre ``gap`` = cap y - r_cap - R of play on either side of the
    goal axis at the caps' x, so a ball at distance D from the goal centre along the axis must lie
    within ``slope * D`` of the axis (about +-7 degrees); ``near``/``far`` bound it along the axis
    (beyond the cross, short of the caps).

    Attributes:
        gx: x of the goal centre. sgn: +1 for the goal at +x. slope: half-width per metre.
        near, far: distances from the goal centre along the axis [m]. margin [m].
    """

    gx: float
    sgn: float
    slope: float
    near: float
    far: float
    margin: float

    def polygon(self) -> np.ndarray:
        """(4, 2) the cone cut to [near, far], shrunk by ``margin`` (counter-clockwise)."""
        pts = []
        for d, sy in ((self.near, 1.0), (self.far, 1.0), (self.far, -1.0), (self.near, -1.0)):
            pts.append((self.gx - self.sgn * d, sy * (self.slope * d - self.margin)))
        poly = np.array(pts)
        area = np.sum(poly[:, 0] * np.roll(poly[:, 1], -1) - np.roll(poly[:, 0], -1) * poly[:, 1])
        return poly if area > 0 else poly[::-1].copy()

    def contains(self, p: np.ndarray) -> bool:
        d = self.sgn * (self.gx - p[0])
        return bool(self.near <= d <= self.far and abs(p[1]) <= self.slope * d - self.margin)


def goal_cone(geo: Any, goal: int) -> GoalCone:
    """The :class:`GoalCone` of goal ``goal`` (index = the side that attacks it)."""
    gx = float(geo.goals[goal, 0])
    sgn = 1.0 if gx > 0 else -1.0
    near_caps = geo.caps[np.abs(geo.caps[:, 0] - gx) < 0.2]
    cx = float(np.mean(np.abs(near_caps[:, 0])))
    cy = float(np.max(np.abs(near_caps[:, 1])))
    gap = cy - geo.r_cap - geo.R
    slope = gap / (abs(gx) - cx)
    cross = float(np.max(np.abs(geo.caps[np.abs(geo.caps[:, 1]) < 1e-9, 0])))  # outer cross cap
    near = abs(gx) - cx + geo.R  # a ball centre just in front of the caps
    far = abs(gx) - (cross + geo.r_cap + geo.R + 0.005)
    return GoalCone(gx, sgn, slope, near, far, GOLF_SPEED["cone_margin"])




def strip_y(geo: Any) -> float:
    """|y| of the long-cushion strip's inner line (G-11), from the zone polygons."""
    try:
        poly = geo.zones.zone("strip_top").polygons[0]
        return float(np.min(np.abs(poly[:, 1])))
    except (ValueError, IndexError, AttributeError):
        return 0.3577


# ---------------------------------------------------------------------------------------------
# The aimer's constants as arrays
# ---------------------------------------------------------------------------------------------

#: Candidate labels (``GolfCandidates.label`` codes index this).
GOLF_LABELS = ("goal", "place", "advance", "defend", "fallback")
GOAL, PLACE, ADVANCE, DEFEND, FALLBACK = range(5)
#: Rays tried for a placement: angles about the direction to the cone's middle [deg].
RAY_DEG = np.arange(-75, 76, 1.0)
#: Placements kept per ball (at most), among the ``TOP_RAYS`` likeliest rays.
MAX_PLACE, TOP_RAYS = 3, 24
#: Aims per ball at most: a goal shot or placements and advances, then two defences per
#: opponent ball.
MAX_BALL_AIMS = MAX_PLACE + len(GOLF_STAGING) + 2 * BALLS_PER_SIDE
#: Aims per table at most (each gives one candidate per spin).
MAX_AIMS = BALLS_PER_SIDE * MAX_BALL_AIMS


class GolfAim(NamedTuple):
    """The aimer's constants as arrays, indexed by the side to move s (its attack goal is s).

    Attributes:
        goal: (2, 2) centre of side s's attack goal [m].
        cone: (2, 6) gx [m], sgn, slope, near [m], far [m], margin [m] of that goal's
            :class:`GoalCone`.
        poly: (2, 4, 2) the cone's polygon (counter-clockwise) [m]; mid: (2, 2) its vertex mean.
        stage: (2, 15, 2) staging points on side s's attack half [m]; stage_goal: (2, 15) their
            distances from the goal [m]; stage_mid: (2, 15) from ``mid`` [m].
        caps: (12, 2) cap centres [m]. rays: (151,) ray angles about the direction to ``mid``
            [rad].
        R, r_cap: ball and cap radius [m]. strip: |y| of the strip's inner line (G-11) [m].
        k_stop: squared ball speed per metre of stopping distance [(m/s)^2 / m]; k_dist:
            stopping distance per squared ball speed [m / (m/s)^2] (:func:`stop_k`). v_max:
            largest ball speed struck (below G-10 hard) [m/s]. gap: G-13 freeze gap [m]. m, M:
            ball and cue mass [kg].
        goal_extra: roll past the goal centre [m]; sigma: ball-speed error [m/s] (GOLF_SPEED).
        cos_defend: cosine of the widest cut of a defence (70 degrees).
    """

    goal: np.ndarray
    cone: np.ndarray
    poly: np.ndarray
    mid: np.ndarray
    stage: np.ndarray
    stage_goal: np.ndarray
    stage_mid: np.ndarray
    caps: np.ndarray
    rays: np.ndarray
    R: float
    r_cap: float
    strip: float
    k_stop: float
    k_dist: float
    v_max: float
    gap: float
    m: float
    M: float
    goal_extra: float
    sigma: float
    cos_defend: float


_AIMS: dict[tuple, tuple[Any, GolfAim]] = {}


def golf_aim(arena: Any) -> GolfAim:
    """The :class:`GolfAim` of an arena's geometry, ball parameters and rules (cached)."""
    from cuegym.rules.golfbillard import attack_goal

    geo, prm, rules = arena.geo, arena.params, arena.rules
    key = (id(geo), prm.u_s, prm.u_r, prm.g, prm.m, prm.M, rules.hard_speed, rules.freeze_gap)
    hit = _AIMS.get(key)
    if hit is not None:
        return hit[1]
    cones = [goal_cone(geo, attack_goal(s)) for s in (0, 1)]
    goal = np.array([geo.goals[attack_goal(s), :2] for s in (0, 1)], np.float64)
    poly = np.array([c.polygon() for c in cones], np.float64)
    mid = np.array([p.mean(axis=0) for p in poly])
    stage = np.array([GOLF_STAGING * np.array([c.sgn, 1.0]) for c in cones])
    aim = GolfAim(
        goal=goal,
        cone=np.array([[c.gx, c.sgn, c.slope, c.near, c.far, c.margin] for c in cones]),
        poly=poly, mid=mid, stage=stage,
        stage_goal=np.array([np.hypot(*(goal[s] - stage[s]).T) for s in (0, 1)]),
        stage_mid=np.array([np.hypot(*(stage[s] - mid[s]).T) for s in (0, 1)]),
        caps=np.ascontiguousarray(geo.caps, np.float64), rays=np.radians(RAY_DEG),
        R=float(geo.R), r_cap=float(geo.r_cap), strip=strip_y(geo),
        k_stop=stop_speed(1.0, prm) ** 2, k_dist=stop_k(prm),
        v_max=0.95 * float(rules.hard_speed), gap=float(rules.freeze_gap),
        m=float(prm.m), M=float(prm.M), goal_extra=float(GOLF_SPEED["goal_extra"]),
        sigma=float(GOLF_SPEED["speed_sigma"]), cos_defend=math.cos(math.radians(70.0)))
    _AIMS[key] = (geo, aim)  # the geometry is held, so its id stays unique
    return aim


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------


@nb.njit(cache=True)
def _passes(px, py, ax, ay, dx, dy, L2, reach):
    """The point (px, py) is more than ``reach`` + 2 mm [m] from the segment (ax, ay) + s (dx,
    dy), 0 <= s <= 1 (L2 = max(|d|^2, 1e-24)): ``(dist - reach) - 0.002 > 0`` in floating point,
    the distance's ``hypot`` only computed near the threshold."""
    s = ((px - ax) * dx + (py - ay) * dy) / L2
    s = min(max(s, 0.0), 1.0)
    ex = px - (ax + s * dx)
    ey = py - (ay + s * dy)
    far = reach + 0.002 + 1e-9
    if ex * ex + ey * ey > far * far * (1.0 + 1e-12):
        return True  # clear by far more than the rounding of hypot and of the subtractions
    return (math.hypot(ex, ey) - reach) - 0.002 > 0


@nb.njit(cache=True)
def _clear(xy, b, skip, ax, ay, bx, by, A):
    """The path of ball b's centre from (ax, ay) to (bx, by) clears the other balls on the table
    (all but ``skip``; -1: none) by 2 R and the caps by R + r_cap, with a 2 mm margin. xy:
    (10, 2) [m], NaN off the table. (The same test as ``min(ball clearances, cap clearances) -
    0.002 > 0``, since rounding is monotone; it stops at the first obstacle.)"""
    dx = bx - ax
    dy = by - ay
    L2 = max(dx * dx + dy * dy, 1e-24)
    two_r = 2.0 * A.R
    for k in range(xy.shape[0]):
        if k != b and k != skip and not math.isnan(xy[k, 0]):
            if not _passes(xy[k, 0], xy[k, 1], ax, ay, dx, dy, L2, two_r):
                return False
    r_cap = A.R + A.r_cap
    for k in range(A.caps.shape[0]):
        if not _passes(A.caps[k, 0], A.caps[k, 1], ax, ay, dx, dy, L2, r_cap):
            return False
    return True


@nb.njit(cache=True)
def _in_cone(cone, x, y):
    """(x, y) [m] lies in the goal cone ``cone`` (a :attr:`GolfAim.cone` row)."""
    d = cone[1] * (cone[0] - x)
    return cone[3] <= d <= cone[4] and abs(y) <= cone[2] * d - cone[5]


@nb.njit(cache=True)
def _sign(x):
    return 1.0 if x > 0.0 else (-1.0 if x < 0.0 else 0.0)


@nb.njit(cache=True)
def _allowed(ux, uy, py, fu, nf, strip):
    """Direction (ux, uy) may be struck from a ball at height py [m]: not into anything the ball
    is frozen to (G-13; fu: (nf, 2) unit vectors toward it), not toward the nearest long cushion
    from the strip (G-11; strip: |y| of its inner line [m])."""
    for i in range(nf):
        if ux * fu[i, 0] + uy * fu[i, 1] > 0.0:
            return False
    return not (abs(py) >= strip - 1e-3 and _sign(uy) == _sign(py) and abs(uy) > 0.15)


@nb.njit(cache=True)
def _norm_cdf(x):
    """Standard normal CDF (Abramowitz & Stegun 7.1.26 erf, |error| < 1.5e-7)."""
    z = abs(x) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                          + t * 1.061405429))))
    erf = 1.0 - poly * math.exp(-z * z)
    return 0.5 * (1.0 + _sign(x) * erf)


@nb.njit(cache=True)
def _ray_polygon(px, py, ux, uy, poly, s_io):
    """Cyrus-Beck: entry and exit distances [m] of the rays (px, py) + s (ux[i], uy[i]) through
    the convex counter-clockwise polygon ``poly`` (V, 2), into s_io (A, 2); entry > exit where a
    ray misses it."""
    V = poly.shape[0]
    s_io[:, 0] = 0.0
    s_io[:, 1] = np.inf
    for k in range(V):
        ax, ay = poly[k, 0], poly[k, 1]
        nx = poly[(k + 1) % V, 1] - ay  # outward normal of a counter-clockwise polygon
        ny = -(poly[(k + 1) % V, 0] - ax)
        num = nx * (ax - px) + ny * (ay - py)  # inside: n . (x - a) <= 0
        for i in range(ux.shape[0]):
            den = ux[i] * nx + uy[i] * ny
            if abs(den) < 1e-12:
                if num < 0.0:  # parallel and outside
                    s_io[i, 1] = -1.0
            elif den < 0.0:
                s_io[i, 0] = max(s_io[i, 0], num / den)
            else:
                s_io[i, 1] = min(s_io[i, 1], num / den)


@nb.njit(cache=True)
def _add(aims, na, ux, uy, V, c0, label, f0, f1):
    """Append an aim (unit direction, ball speed [m/s], cost, label, two features) at row na;
    returns na + 1."""
    aims[na, 0] = ux
    aims[na, 1] = uy
    aims[na, 2] = V
    aims[na, 3] = c0
    aims[na, 4] = label
    aims[na, 5] = f0
    aims[na, 6] = f1
    return na + 1


@nb.njit(cache=True)
def _ray_range(px, py, base, poly, rays):
    """The rays (angles ``base + rays[i]`` [rad], ``rays`` ascending) that can meet the convex
    polygon ``poly`` (V, 2) from (px, py): [i0, i1). From outside, the polygon is seen within the
    angles of its vertices (an interval about ``base``, the direction to a point inside it, of
    less than pi); rays more than 1e-6 rad outside it miss it by far more than any rounding, so
    skipping them changes nothing. All rays from inside or on the polygon."""
    lo, hi = 0.0, 0.0
    inside = True
    V = poly.shape[0]
    for k in range(V):
        ax, ay = poly[k, 0], poly[k, 1]
        nx = poly[(k + 1) % V, 1] - ay
        ny = -(poly[(k + 1) % V, 0] - ax)
        if nx * (px - ax) + ny * (py - ay) > 1e-9:
            inside = False
        a = math.atan2(ay - py, ax - px) - base
        a -= 2.0 * math.pi * math.floor((a + math.pi) / (2.0 * math.pi))  # into [-pi, pi)
        lo, hi = min(lo, a), max(hi, a)
    n = rays.shape[0]
    if inside or hi - lo > 3.0:
        return 0, n
    i0 = 0
    while i0 < n and rays[i0] < lo - 1e-6:
        i0 += 1
    i1 = n
    while i1 > i0 and rays[i1 - 1] > hi + 1e-6:
        i1 -= 1
    return i0, i1


@nb.njit(cache=True)
def _top_rays(prob, top):
    """Indices of the up to ``len(top)`` largest ``prob`` above 0.02, largest first (ties: lower
    index first), into ``top``; returns how many."""
    nt = 0
    for i in range(prob.shape[0]):
        p = prob[i]
        if not p > 0.02 or (nt == top.shape[0] and not p > prob[top[nt - 1]]):
            continue
        j = min(nt, top.shape[0] - 1)
        while j > 0 and prob[top[j - 1]] < p:
            top[j] = top[j - 1]
            j -= 1
        top[j] = i
        nt = min(nt + 1, top.shape[0])
    return nt


@nb.njit(cache=True)
def _place_aims(xy, b, s, A, fu, nf, ray, top, aims, na):
    """Safe placements of ball b into side s's goal cone: the rays (one per degree) whose stretch
    inside the cone the ball most likely stops in under the ball-speed error ``A.sigma``, struck
    to stop in its middle, clear of balls and caps and allowed; at most MAX_PLACE, likeliest
    first among the TOP_RAYS likeliest. ray: (151, 7) and top: (TOP_RAYS,) scratch. Appends to
    ``aims``; returns the new count."""
    px, py = xy[b, 0], xy[b, 1]
    mid = A.mid[s]
    base = math.atan2(mid[1] - py, mid[0] - px)
    ux, uy, s_io, prob, s_mid, v = ray[:, 0], ray[:, 1], ray[:, 2:4], ray[:, 4], ray[:, 5], \
        ray[:, 6]
    prob[:] = 0.0
    i0, i1 = _ray_range(px, py, base, A.poly[s], A.rays)
    for i in range(i0, i1):
        ux[i] = math.cos(base + A.rays[i])
        uy[i] = math.sin(base + A.rays[i])
    _ray_polygon(px, py, ux[i0:i1], uy[i0:i1], A.poly[s], s_io[i0:i1])
    for i in range(i0, i1):
        s_in, s_out = s_io[i, 0], s_io[i, 1]
        if s_out > s_in + 0.01:
            s_mid[i] = 0.5 * (s_in + s_out)
            v[i] = math.sqrt(A.k_stop * max(s_mid[i], 1e-3))
            sig = 2.0 * v[i] / A.k_stop * A.sigma  # d(dist) = 2 v dv / k
            prob[i] = _norm_cdf((s_out - s_mid[i]) / sig) - _norm_cdf((s_in - s_mid[i]) / sig)
    n0 = na
    for j in range(_top_rays(prob, top)):
        i = top[j]
        if not (_clear(xy, b, -1, px, py, px + s_mid[i] * ux[i], py + s_mid[i] * uy[i], A)
                and _allowed(ux[i], uy[i], py, fu, nf, A.strip)):
            continue
        na = _add(aims, na, ux[i], uy[i], v[i], 3.0 + 4.0 * (1.0 - prob[i]), PLACE, prob[i],
                  s_mid[i])
        if na - n0 >= MAX_PLACE:
            break
    return na


@nb.njit(cache=True)
def _advance_aims(xy, b, s, A, fu, nf, dist, aims, na):
    """Advances of ball b (``dist`` [m] from side s's goal): rolls to the staging points nearer
    the goal, clear and allowed. Appends to ``aims``; returns the new count."""
    px, py = xy[b, 0], xy[b, 1]
    for q in range(A.stage.shape[1]):
        qx, qy = A.stage[s, q, 0], A.stage[s, q, 1]
        L = math.hypot(qx - px, qy - py)
        if not (L >= 0.05 and A.stage_goal[s, q] <= dist - 0.05):
            continue
        ux, uy = (qx - px) / L, (qy - py) / L
        if _clear(xy, b, -1, px, py, qx, qy, A) and _allowed(ux, uy, py, fu, nf, A.strip):
            na = _add(aims, na, ux, uy, math.sqrt(max(L, 0.0) / A.k_dist),
                      8.0 + A.stage_mid[s, q], ADVANCE, 0.0, L)
    return na


@nb.njit(cache=True)
def _defend_aims(xy, b, s, A, aims, na):
    """Defences by ball b of side s: drive each opponent ball in its own goal cone 0.3 m
    sideways (ghost-ball shots, cut at most 70 degrees, clear path). Appends to ``aims``;
    returns the new count."""
    px, py = xy[b, 0], xy[b, 1]
    two_r = 2.0 * A.R
    for o in range(N_BALLS):
        ox, oy = xy[o, 0], xy[o, 1]
        if math.isnan(ox) or SIDE_OF[o] == s or not _in_cone(A.cone[1 - s], ox, oy):
            continue
        for sy in (1.0, -1.0):
            tx, ty = (ox + 0.0) - ox, (oy + sy * 0.3) - oy  # toward the target, as a vector
            n = math.hypot(tx, ty)
            uox, uoy = (tx / n, ty / n) if n > 1e-12 else (1.0, 0.0)
            gx, gy = ox - two_r * uox, oy - two_r * uoy  # the ghost ball
            dx, dy = gx - px, gy - py
            d_r = math.hypot(dx, dy)
            if d_r < 1e-6:
                continue
            ux, uy = dx / d_r, dy / d_r
            cosa = ux * uox + uy * uoy
            if cosa < A.cos_defend:
                continue
            if not _clear(xy, b, o, px, py, gx, gy, A):
                continue
            V = math.sqrt(d_r / A.k_dist) + math.sqrt(0.3 / A.k_dist) / max(cosa, 0.3)
            na = _add(aims, na, ux, uy, V, 7.5 + 0.5 * d_r, DEFEND, cosa, d_r)
    return na


@nb.njit(cache=True)
def _unit(x, y):
    """(x, y) / |(x, y)|, or (1, 0) for a (near) zero or NaN vector."""
    n = math.hypot(x, y)
    return (x / n, y / n) if n > 1e-12 else (1.0, 0.0)


@nb.njit(cache=True)
def _emit(aims, na, b, px, py, dist, frozen, A, spins, cue, cost, ball, label, feats, n, fu, nf):
    """Write the allowed aims of ball b (at (px, py), ``dist`` [m] from the goal) as candidate
    rows n, n + 1, ... (one per spin ``b``, cue speed for the ball speed capped at ``v_max``);
    returns the new row count."""
    for k in range(na):
        ux, uy = aims[k, 0], aims[k, 1]
        if not _allowed(ux, uy, py, fu, nf, A.strip):
            continue
        phi = math.degrees(math.atan2(uy, ux))
        vb = min(aims[k, 2], A.v_max)
        for bs in spins:
            cue[n, 0] = vb * (1.0 + A.m / A.M + 2.5 * (0.0 * 0.0 + bs * bs)) / 2.0
            cue[n, 1] = phi
            cue[n, 2] = 0.0
            cue[n, 3] = 0.0
            cue[n, 4] = bs
            cost[n] = aims[k, 3]
            ball[n] = b
            label[n] = int(aims[k, 4])
            feats[n, :] = 0.0
            feats[n, 0] = aims[k, 5]
            feats[n, 1] = min(aims[k, 6] / 2.0, 1.0)
            feats[n, 2] = px / 0.9
            feats[n, 3] = py / 0.45
            feats[n, 4] = min(dist / 2.0, 1.0)
            feats[n, 5] = 1.0 if frozen else 0.0
            n += 1
    return n


@nb.njit(cache=True)
def _fallback(xy, s, ga, A, fu, kinds, ks, cue, cost, ball, label, feats):
    """Nothing clear: a soft roll (0.6 m/s cue speed) of the own ball nearest the goal toward
    the goal, turned 10, -20, 30, ... degrees until it points into nothing it is frozen to."""
    gx, gy = A.goal[s, 0], A.goal[s, 1]
    b = 0
    best = np.inf
    for k in range(N_BALLS):
        if SIDE_OF[k] == s and not math.isnan(xy[k, 0]):
            d = math.hypot(xy[k, 0] - gx, xy[k, 1] - gy)
            if d < best:
                best = d
                b = k
    ux, uy = _unit(gx - xy[b, 0], gy - xy[b, 1])
    nf = frozen_list(xy, b, ga, A.gap, kinds, ks, fu)
    for k in range(36):
        ok = True
        for i in range(nf):
            if ux * fu[i, 0] + uy * fu[i, 1] > 0.0:
                ok = False
        if ok:
            break
        deg = 10.0 * (k + 1) * (-1.0 if k % 2 else 1.0)
        c, sn = math.cos(math.radians(deg)), math.sin(math.radians(deg))
        ux, uy = c * ux - sn * uy, sn * ux + c * uy
    cue[0, :] = 0.0
    cue[0, 0] = 0.6
    cue[0, 1] = math.degrees(math.atan2(uy, ux))
    cost[0] = 50.0
    ball[0] = b
    label[0] = FALLBACK
    feats[0, :] = 0.0
    return 1


@nb.njit(cache=True)
def _table_aims(xy, s, ga, A, spins, cue, cost, ball, label, feats, ray, top):
    """Every candidate of one table, side s to move (xy: (10, 2) [m], NaN off the table): per
    own ball a goal shot, or placements and advances, then defences; each allowed aim once per
    spin. Writes rows 0.. of the (K, ..) outputs; returns how many. ray, top: scratch
    (:func:`_place_aims`)."""
    gx, gy = A.goal[s, 0], A.goal[s, 1]
    m = N_BALLS + ga.cushions.shape[0] + ga.caps.shape[0]
    kinds = np.empty(m, np.int64)
    ks = np.empty(m, np.int64)
    fu = np.empty((m, 2))
    aims = np.empty((MAX_BALL_AIMS, 7))
    n = 0
    for b in range(N_BALLS):
        px, py = xy[b, 0], xy[b, 1]
        if math.isnan(px) or SIDE_OF[b] != s:
            continue
        nf = frozen_list(xy, b, ga, A.gap, kinds, ks, fu)
        dist = math.hypot(gx - px, gy - py)
        na = 0
        if _in_cone(A.cone[s], px, py) and _clear(xy, b, -1, px, py, gx, gy, A):
            ux, uy = _unit(gx - px, gy - py)
            na = _add(aims, na, ux, uy, math.sqrt(max(dist + A.goal_extra, 0.0) / A.k_dist),
                      0.5 * dist, GOAL, 1.0, dist)
        else:
            na = _place_aims(xy, b, s, A, fu, nf, ray, top, aims, na)
            na = _advance_aims(xy, b, s, A, fu, nf, dist, aims, na)
        na = _defend_aims(xy, b, s, A, aims, na)
        n = _emit(aims, na, b, px, py, dist, nf > 0, A, spins, cue, cost, ball, label, feats,
                  n, fu, nf)
    if n == 0:
        n = _fallback(xy, s, ga, A, fu, kinds, ks, cue, cost, ball, label, feats)
    return n


@nb.njit(cache=True)
def golf_aim_kernel(xy, side, ga, A, spins, cue, cost, ball, label, feats, count):
    """The aimer's candidates of T tables.

    Args:
        xy: (T, 10, 2) ball centres [m], NaN off the table. side: (T,) side to move (0 / 1).
        ga: the referee's :class:`~cuegym.rules.golf_paths.GolfArrays` (G-13 freezes).
        A: :class:`GolfAim`. spins: (S,) draw / follow ``b`` of each aim's strokes.
        cue: (T, K, 5) out: strikes (V0 [m/s], phi [deg], theta, a, b), K >= MAX_AIMS * S.
        cost: (T, K) out: heuristic cost (slots past ``count`` untouched). ball: (T, K) out:
            the struck ball. label: (T, K) out: GOLF_LABELS code. feats: (T, K, N_GEO_FEAT)
            out: the geometry behind the cost. count: (T,) out: candidates per table (>= 1).
    """
    ray = np.empty((A.rays.shape[0], 7))
    top = np.empty(TOP_RAYS, np.int64)
    for t in range(xy.shape[0]):
        count[t] = _table_aims(xy[t], side[t], ga, A, spins, cue[t], cost[t], ball[t],
                               label[t], feats[t], ray, top)


# ---------------------------------------------------------------------------------------------
# Python API
# ---------------------------------------------------------------------------------------------


@dataclass
class GolfCandidates:
    """The aimer's candidates of T tables, K slots each (the first ``count[t]`` used).

    Attributes:
        cue: (T, K, 5) strikes (V0 [m/s], phi [deg], theta [deg], a, b).
        cost: (T, K) heuristic cost, lower is better (inf in unused slots).
        ball: (T, K) the struck (own) ball. label: (T, K) code into :data:`GOLF_LABELS`.
        feats: (T, K, N_GEO_FEAT) in-cone probability (placements) or cut cosine (defences),
            path length / 2, ball x / 0.9, y / 0.45, goal distance / 2, frozen flag.
        count: (T,) candidates per table (at least one: the fallback).
    """

    cue: np.ndarray
    cost: np.ndarray
    ball: np.ndarray
    label: np.ndarray
    feats: np.ndarray
    count: np.ndarray

    def table(self, t: int, ball_ids: Sequence[str]) -> Candidates:
        """Table t's candidates as :class:`Candidates` (kinds ``<ball id>:<label>``)."""
        n = int(self.count[t])
        ball = self.ball[t, :n].copy()
        lab = self.label[t, :n]
        kind = ["fallback" if c == FALLBACK else f"{ball_ids[b]}:{GOLF_LABELS[c]}"
                for b, c in zip(ball, lab, strict=True)]
        return Candidates(Strikes(self.cue[t, :n].copy(), ball, np.full((n, 2), np.nan)),
                          self.cost[t, :n].copy(), kind, self.feats[t, :n].copy())


def _tables(states: Any) -> tuple[np.ndarray, np.ndarray]:
    """(T, 10, 2) positions and (T,) sides to move of a GolfStates batch or of a sequence of
    GolfState values."""
    from cuegym.rules.golf_arrays import GolfStates

    if isinstance(states, GolfStates):
        xy, side = states.xy, states.to_move
    else:
        states = list(states)
        xy = np.array([s.xy for s in states], np.float64) if states else \
            np.zeros((0, N_BALLS, 2))
        side = np.array([s.to_move for s in states], np.int64)
    xy = np.ascontiguousarray(xy, np.float64)
    side = np.ascontiguousarray(side, np.int64)
    if xy.ndim != 3 or xy.shape[1:] != (N_BALLS, 2):
        raise ValueError(f"golfbillard positions must have shape (T, {N_BALLS}, 2), got "
                         f"{xy.shape}")
    bad = np.flatnonzero((side != 0) & (side != 1))
    if len(bad):
        raise ValueError(f"side to move must be 0 or 1, got {side[bad[0]]} (table {bad[0]})")
    return xy, side


def golf_candidates_batch(arena: Any, states: Any, *, spins: Sequence[float] = (0.0,)
                          ) -> GolfCandidates:
    """The aimer's strokes for T golfbillard play states (each for its side to move), one
    compiled call (:func:`golf_aim_kernel`).

    Args:
        arena: a :class:`~cuegym.agents.arena.GolfbillardArena` (geometry, ball parameters,
            rules). states: a GolfStates batch or a sequence of GolfState values.
        spins: the draw / follow ``b`` of each aim's strokes (one candidate per spin).
    """
    from cuegym.rules.golf_structs import geometry_struct

    xy, side = _tables(states)
    sp = np.array(spins, np.float64).reshape(-1)
    if not np.isfinite(sp).all():
        raise ValueError(f"spins must be finite, got {list(spins)}")
    T, K = len(side), max(MAX_AIMS * len(sp), 1)
    out = GolfCandidates(cue=np.zeros((T, K, 5)), cost=np.full((T, K), np.inf),
                         ball=np.zeros((T, K), np.int64), label=np.zeros((T, K), np.int64),
                         feats=np.zeros((T, K, N_GEO_FEAT)), count=np.zeros(T, np.int64))
    golf_aim_kernel(xy, side, geometry_struct(arena.geo), golf_aim(arena), sp, out.cue, out.cost,
                    out.ball, out.label, out.feats, out.count)
    return out


def golf_candidates(arena: Any, state: Any, *, spins: Sequence[float] = (0.0,)) -> Candidates:
    """The aimer's strokes for one golfbillard play state (the side ``to_move``), as
    :class:`Candidates` (:func:`golf_candidates_batch` of one table)."""
    return golf_candidates_batch(arena, [state], spins=spins).table(0, arena.geo.ball_ids)


def golf_best(arena: Any, states: Any, spin: float = 0.0) -> Strikes:
    """The cheapest of the aimer's strokes (spin ``b``) for each of T states (the first of equal
    costs), as a :class:`Strikes` batch."""
    c = golf_candidates_batch(arena, states, spins=(spin,))
    rows = np.arange(len(c.count))
    best = np.argmin(c.cost, axis=1) if len(rows) else np.zeros(0, np.int64)
    return Strikes(c.cue[rows, best], c.ball[rows, best], np.full((len(rows), 2), np.nan))
