"""Compiled golfbillard penalty spots (G-25 .. G-30) and the balls a stroke moved.

Kernels for one table (called from the batched referee in :mod:`cuegym.rules.golf_flow`):
:func:`choose_spot` (the opponent's spot for a penalised ball), :func:`place_on_spots` (several
balls in order, with the opponent's choices), :func:`nearest_free_point`
(G-30 when every spot is blocked), :func:`pick_ball` (G-25) and :func:`moved_balls` (what RA
puts back).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from cuegym.physics.constants import EV_BALL_BALL

from .golf_arrays import BALLS_PER_SIDE, N_BALLS
from .golf_codes import (
    E_NO_FREE_POINT,
    E_NONE,
    E_PICK_MISSING,
    E_PICK_NOT_OWN,
    E_SPOT_NOT_FREE,
    E_SPOTS_MISSING,
    E_SPOTS_RAN_OUT,
)

_MOVE_TOL = 1e-9  # a ball whose centre moved less than this [m] did not move
_EDGE = 1e-9  # G-30: candidate points sit this far outside an obstacle's edge [m]
_CIRCLE_STEPS = 3600  # G-30: points tried on a circle centred on the target (every 0.1 deg)


@nb.njit(cache=True)
def spot_free(px, py, xy, R):
    """G-30: a ball placed at (px, py) overlaps no ball on the table."""
    for b in range(N_BALLS):
        if not math.isnan(xy[b, 0]):
            if not (math.hypot(xy[b, 0] - px, xy[b, 1] - py) >= 2 * R - 1e-9):
                return False
    return True


@nb.njit(cache=True)
def _point_free(px, py, xy, ga):
    """G-30: a ball centred at (px, py) lies on the cloth and touches no ball, cap or goal."""
    if not (abs(px) <= ga.hx and abs(py) <= ga.hy):
        return False
    R = ga.R
    for c in range(ga.caps.shape[0]):
        if not (math.hypot(px - ga.caps[c, 0], py - ga.caps[c, 1]) >= R + ga.r_cap):
            return False
    for g in range(2):
        if not (math.hypot(px - ga.goals[g, 0], py - ga.goals[g, 1]) > ga.goals[g, 2] + 1e-6):
            return False
    for b in range(N_BALLS):
        if not math.isnan(xy[b, 0]) and not (math.hypot(px - xy[b, 0], py - xy[b, 1]) >= 2 * R):
            return False
    return True


@nb.njit(cache=True)
def _obstacles(xy, ga):
    """(n, 3) discs a ball centre must stay out of (x, y, radius [m]): balls, caps, goals, each
    widened by a hair so that points on their edges pass :func:`_point_free`."""
    n_caps = ga.caps.shape[0]
    out = np.empty((N_BALLS + n_caps + 2, 3))
    n = 0
    for b in range(N_BALLS):
        if not math.isnan(xy[b, 0]):
            out[n, 0], out[n, 1], out[n, 2] = xy[b, 0], xy[b, 1], 2 * ga.R + _EDGE
            n += 1
    for c in range(n_caps):
        out[n, 0], out[n, 1], out[n, 2] = ga.caps[c, 0], ga.caps[c, 1], ga.R + ga.r_cap + _EDGE
        n += 1
    for g in range(2):
        out[n, 0], out[n, 1], out[n, 2] = ga.goals[g, 0], ga.goals[g, 1], ga.goals[g, 2] + 2e-6
        n += 1
    return out[:n]


@nb.njit(cache=True)
def nearest_free_point(tx, ty, xy, ga):
    """G-30: the free point nearest (tx, ty) where a ball touches no ball, cap or goal and lies
    on the cloth, exactly. The free region is the cloth's rectangle less some discs, so its point
    nearest the target is the target itself, the point of one disc's circle or rectangle side
    nearest the target, or a point where two of those boundaries cross; every such candidate is
    tried and the nearest free one wins (on a tie, the first in that order). Returns
    (x, y, found)."""
    if _point_free(tx, ty, xy, ga):
        return tx, ty, True
    discs = _obstacles(xy, ga)
    n = discs.shape[0]
    # the rectangle's sides as lines a x + b y = c
    lines = np.array([[1.0, 0.0, ga.hx], [1.0, 0.0, -ga.hx], [0.0, 1.0, ga.hy],
                      [0.0, 1.0, -ga.hy]])
    best = np.inf
    bx, by = 0.0, 0.0
    cand = np.empty((2, 2))
    for stage in range(5):
        n_i = n if stage == 0 or stage == 2 or stage == 3 else 4
        n_j = n if stage == 2 else (4 if stage == 3 else 1)
        for i in range(n_i):
            for j in range(i + 1 if stage == 2 else 0, n_j):
                for k in range(_candidates(stage, i, j, tx, ty, discs, lines, cand)):
                    best, bx, by = _nearer(cand[k, 0], cand[k, 1], tx, ty, best, bx, by, xy, ga)
    # a disc centred on the target: every point of its circle is as near; try them in turn
    for i in range(n):
        if math.hypot(discs[i, 0] - tx, discs[i, 1] - ty) < 1e-12:
            for a in range(_CIRCLE_STEPS):
                ang = 2 * math.pi * a / _CIRCLE_STEPS
                best, bx, by = _nearer(discs[i, 0] + discs[i, 2] * math.cos(ang),
                                       discs[i, 1] + discs[i, 2] * math.sin(ang), tx, ty, best,
                                       bx, by, xy, ga)
    return bx, by, best < np.inf


@nb.njit(cache=True)
def _nearer(px, py, tx, ty, best, bx, by, xy, ga):
    """(best, x, y): (px, py) if it is free and nearer (tx, ty) than ``best``, else as given."""
    d = math.hypot(px - tx, py - ty)
    if d < best - 1e-12 and _point_free(px, py, xy, ga):
        return d, px, py
    return best, bx, by


@nb.njit(cache=True)
def _candidates(stage, i, j, tx, ty, discs, lines, out):
    """Candidate points for :func:`nearest_free_point` into ``out`` (2, 2); returns how many.
    Stages: 0 the point of circle i nearest the target; 1 the point of side i nearest it;
    2 where circles i and j cross; 3 where circle i crosses side j; 4 the corners (i)."""
    if stage == 0:
        cx, cy, r = discs[i, 0], discs[i, 1], discs[i, 2]
        d = math.hypot(tx - cx, ty - cy)
        if d < 1e-12:
            return 0
        out[0, 0], out[0, 1] = cx + r * (tx - cx) / d, cy + r * (ty - cy) / d
        return 1
    if stage == 1:
        a, b, c = lines[i, 0], lines[i, 1], lines[i, 2]
        out[0, 0] = c if a != 0 else tx
        out[0, 1] = c if b != 0 else ty
        return 1
    if stage == 2:
        x1, y1, r1 = discs[i, 0], discs[i, 1], discs[i, 2]
        x2, y2, r2 = discs[j, 0], discs[j, 1], discs[j, 2]
        d = math.hypot(x2 - x1, y2 - y1)
        if d < 1e-12 or d > r1 + r2 or d < abs(r1 - r2):
            return 0
        a = (r1 * r1 - r2 * r2 + d * d) / (2 * d)
        h = math.sqrt(max(r1 * r1 - a * a, 0.0))
        mx, my = x1 + a * (x2 - x1) / d, y1 + a * (y2 - y1) / d
        ux, uy = -(y2 - y1) / d, (x2 - x1) / d
        out[0, 0], out[0, 1] = mx + h * ux, my + h * uy
        out[1, 0], out[1, 1] = mx - h * ux, my - h * uy
        return 2
    if stage == 3:
        cx, cy, r = discs[i, 0], discs[i, 1], discs[i, 2]
        vertical = lines[j, 0] != 0  # x = c, else y = c
        c = lines[j, 2]
        off = c - (cx if vertical else cy)
        if abs(off) > r:
            return 0
        h = math.sqrt(r * r - off * off)
        for k in range(2):
            s = h if k == 0 else -h
            out[k, 0] = c if vertical else cx + s
            out[k, 1] = cy + s if vertical else c
        return 2
    out[0, 0] = lines[0 if i < 2 else 1, 2]  # stage 4: corner i
    out[0, 1] = lines[2 if i % 2 == 0 else 3, 2]
    return 1


@nb.njit(cache=True)
def choose_spot(ball, side, xy, ga, policy, choice, allowed, has_allowed, u):
    """Where one penalised ball goes (G-30), on the penalty spots of the offender ``side``
    (G-27..G-29 measure them toward the offender's attack goal).

    The opponent chooses a free spot among 1-3; if none is free, 4, then 5; if all are
    blocked, the free point nearest spot 3 (spot 0). With ``has_allowed`` (G-26) the first free
    spot with ``allowed[k - 1]`` wins; if none is free the normal choice applies.

    Args:
        xy: (10, 2) positions, the ball itself already lifted (NaN).
        policy: 0 first_free, 1 random (index ``u`` in [0, 1) into the free spots 1-3),
            2 agent (``choice``, which must be a free spot among 1-3).

    Returns:
        (spot 0..5, x, y, error code, error value).
    """
    free = np.zeros(5, np.bool_)
    for k in range(5):
        free[k] = spot_free(ga.spots[side, k, 0], ga.spots[side, k, 1], xy, ga.R)
    if has_allowed:
        for k in range(5):
            if allowed[k] and free[k]:
                return k + 1, ga.spots[side, k, 0], ga.spots[side, k, 1], E_NONE, 0
    n3 = 0
    for k in range(3):
        if free[k]:
            n3 += 1
    if n3 > 0:
        if policy == 0:
            k = 0
            while not free[k]:
                k += 1
        elif policy == 1:
            j = min(int(u * n3), n3 - 1)
            k = -1
            for m in range(3):
                if free[m]:
                    if j == 0:
                        k = m
                        break
                    j -= 1
        else:
            k = choice - 1
            if not (0 <= k < 3 and free[k]):
                return 0, 0.0, 0.0, E_SPOT_NOT_FREE, choice
        return k + 1, ga.spots[side, k, 0], ga.spots[side, k, 1], E_NONE, 0
    for k in (3, 4):
        if free[k]:
            return k + 1, ga.spots[side, k, 0], ga.spots[side, k, 1], E_NONE, 0
    x, y, found = nearest_free_point(ga.spots[side, 2, 0], ga.spots[side, 2, 1], xy, ga)
    if not found:
        return 0, 0.0, 0.0, E_NO_FREE_POINT, ball
    return 0, x, y, E_NONE, 0


@nb.njit(cache=True)
def pick_ball(s, c, xy, ga, policy, choice, u):
    """G-25: the offender's ball the opponent picks for a penalty spot.

    Args:
        policy: 0 nearest_goal (to the offender's attack goal), 1 cue_ball, 2 random, 3 agent
            (``choice``; -1 when none was given).

    Returns:
        (ball or -1 when side ``s`` has none on the table, error code, error value).
    """
    n = 0
    first = -1
    for b in range(s * BALLS_PER_SIDE, (s + 1) * BALLS_PER_SIDE):
        if not math.isnan(xy[b, 0]):
            if first < 0:
                first = b
            n += 1
    if n == 0:
        return -1, E_NONE, 0
    if policy == 1:
        if s * BALLS_PER_SIDE <= c < (s + 1) * BALLS_PER_SIDE and not math.isnan(xy[c, 0]):
            return c, E_NONE, 0
        return first, E_NONE, 0
    if policy == 2:
        j = min(int(u * n), n - 1)
        for b in range(s * BALLS_PER_SIDE, (s + 1) * BALLS_PER_SIDE):
            if not math.isnan(xy[b, 0]):
                if j == 0:
                    return b, E_NONE, 0
                j -= 1
    if policy == 3:
        if choice < 0:
            return -1, E_PICK_MISSING, 0
        if not (s * BALLS_PER_SIDE <= choice < (s + 1) * BALLS_PER_SIDE
                and not math.isnan(xy[choice, 0])):
            return -1, E_PICK_NOT_OWN, choice
        return choice, E_NONE, 0
    return nearest_ball(xy, s, ga.goals[s, 0], ga.goals[s, 1]), E_NONE, 0  # attack goal = side


@nb.njit(cache=True)
def nearest_ball(xy, s, px, py):
    """Side ``s``'s ball on the table (``xy`` (N_BALLS, 2), NaN: off) nearest the point
    (px, py) [m] (ties: the lower number); -1 when it has none."""
    best = -1
    bd = np.inf
    for b in range(s * BALLS_PER_SIDE, (s + 1) * BALLS_PER_SIDE):
        if not math.isnan(xy[b, 0]):
            d = math.hypot(xy[b, 0] - px, xy[b, 1] - py)
            if d < bd:
                bd = d
                best = b
    return best


@nb.njit(cache=True)
def moved_balls(n, ev_type, ev_i, ev_j, rvw0, before, final, gone, out):
    """out (10,) bool: balls on the table before the stroke that it moved: an agent of an
    event, a ball given a velocity at t = 0, a displaced centre, or one in ``gone``."""
    for b in range(N_BALLS):
        out[b] = False
    for k in range(n):
        i = ev_i[k]
        if 0 <= i < N_BALLS:
            out[i] = True
        if ev_type[k] == EV_BALL_BALL:
            out[ev_j[k]] = True
    for b in range(N_BALLS):
        if rvw0[b, 1, 0] != 0 or rvw0[b, 1, 1] != 0:
            out[b] = True
        for d in range(2):
            f = final[b, d]
            f = np.inf if math.isnan(f) else f
            p = before[b, d]
            p = 0.0 if math.isnan(p) else p
            if abs(f - p) > _MOVE_TOL:
                out[b] = True
        if gone[b]:
            out[b] = True
        if math.isnan(before[b, 0]):
            out[b] = False


@nb.njit(cache=True)
def place_on_spots(order, n_order, sides, xy, ga, policy, spot_n, spot_choice, g26, allowed,
                   u, out_b, out_k, on_spot):
    """Put balls ``order[:n_order]`` on penalty spots one at a time, in that order (G-30, G-26),
    ball b on the spots of side ``sides[b]`` ((N_BALLS,): the offender's; in the opening a
    ball's own side, or the side whose G-19 jam it was).

    ``xy`` is updated in place (the balls must be NaN there). With the ``agent`` policy (2) the
    opponent's choices ``spot_choice[:spot_n]`` (``spot_n`` -1: none given) are consumed in
    placing order, one where the opponent has a choice (a free spot among 1-3); ball ``g26``
    goes to its first free ``allowed`` spot without a choice when one is free. ``u``: uniform
    draws for the ``random`` policy (one per placed ball). Writes (ball, spot) to out_b / out_k
    and the spot to ``on_spot`` (0 for a ball on the other side's spots: none of its own, G-26).

    Returns:
        (balls placed, choices used, error code, error value, error ball).
    """
    used = 0
    for i in range(n_order):
        b = order[i]
        side = sides[b]
        use_allowed = False
        if b == g26:
            for k in range(5):
                if allowed[k] and spot_free(ga.spots[side, k, 0], ga.spots[side, k, 1], xy,
                                            ga.R):
                    use_allowed = True
        ch = -1
        if use_allowed:
            k, px, py, err, ev = choose_spot(b, side, xy, ga, 0, -1, allowed, True, 0.0)
        else:
            if policy == 2:
                any3 = False
                for k in range(3):
                    if spot_free(ga.spots[side, k, 0], ga.spots[side, k, 1], xy, ga.R):
                        any3 = True
                if any3:
                    if spot_n < 0:
                        return i, used, E_SPOTS_MISSING, 0, b
                    if used >= spot_n:
                        return i, used, E_SPOTS_RAN_OUT, 0, b
                    ch = spot_choice[used]
                    used += 1
            k, px, py, err, ev = choose_spot(b, side, xy, ga, policy, ch, allowed, False,
                                             u[i % u.shape[0]])
        if err != E_NONE:
            return i, used, err, ev, b
        xy[b, 0] = px
        xy[b, 1] = py
        out_b[i] = b
        out_k[i] = k
        on_spot[b] = k if side == b // BALLS_PER_SIDE else 0
    return n_order, used, E_NONE, 0, -1
