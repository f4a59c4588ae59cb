"""Event prediction for the event loop (:mod:`.engine`): when each ball next changes motion state,
meets a fixed object (pocket, straight cushion, jaw or post circle, standing pin) or meets another
ball.

Predictions are absolute times cached per ball and per pair; :func:`_refresh_ball` recomputes
only those that involve a ball an event changed. Times are exact polynomial roots
(:mod:`.roots`), culled first by a cheap bound on how far a ball can get.
"""

from __future__ import annotations

import math

import numba as nb

from .constants import POCKETED
from .motion import INF, P_OVERLAP_NOW, P_R, P_RPIN, evolve, path_coeffs, transition_time
from .roots import first_entry_root, quadratic_roots

# kinds of a ball's cached next object event
OBJ_POCKET = 0
OBJ_LINE = 1
OBJ_CIRCLE = 2
OBJ_PIN = 3


@nb.njit(cache=True, error_model="numpy", inline="always")
def _far_from_path(px, py, ex, ey, sag, cx, cy, rad):
    """True when (cx, cy) is farther than rad from every point of a path that stays within
    ``sag`` of the chord from (px, py) to (ex, ey) (a cheap exact-enough cull)."""
    dx = ex - px
    dy = ey - py
    l2 = dx * dx + dy * dy
    rx = cx - px
    ry = cy - py
    s = 0.0
    if l2 > 0.0:
        s = (rx * dx + ry * dy) / l2
        s = min(1.0, max(0.0, s))
    gx = rx - s * dx
    gy = ry - s * dy
    lim = rad + sag + 1e-9
    return gx * gx + gy * gy > lim * lim


@nb.njit(cache=True, error_model="numpy", inline="always")
def _circle_time(x, y, qx, qy, ax, ay, cx, cy, rad, T, ex, ey, sag):
    """First time in [0, T] the centre (x, y) + q t + a t^2 comes within ``rad`` of (cx, cy).
    (ex, ey) is the centre at T and ``sag`` bounds the path's distance from that chord."""
    if _far_from_path(x, y, ex, ey, sag, cx, cy, rad):
        return INF
    dx = x - cx
    dy = y - cy
    c4 = ax * ax + ay * ay
    c3 = 2.0 * (ax * qx + ay * qy)
    c2 = qx * qx + qy * qy + 2.0 * (ax * dx + ay * dy)
    c1 = 2.0 * (qx * dx + qy * dy)
    c0 = dx * dx + dy * dy - rad * rad
    return first_entry_root(c4, c3, c2, c1, c0, T)


@nb.njit(cache=True, error_model="numpy", inline="always")
def _line_time(x, y, qx, qy, ax, ay, ln, R, reach, T):
    """First time the ball (radius R) touches straight cushion ``ln`` = (x1, y1, x2, y2, nx, ny)
    from the playing side while moving into it, with the contact inside the segment."""
    x1 = ln[0]
    y1 = ln[1]
    nx = ln[4]
    ny = ln[5]
    d0 = (x - x1) * nx + (y - y1) * ny - R
    if d0 > reach:
        return INF
    A = ax * nx + ay * ny
    Bc = qx * nx + qy * ny
    ex = ln[2] - x1
    ey = ln[3] - y1
    el2 = ex * ex + ey * ey
    # touching and moving in, or at rest against it along the normal and pulled in (a ball
    # frozen to the cushion whose spin drags it in: no root below would catch it, t = 0)
    if d0 <= 0.0 and (Bc < 0.0 or (Bc == 0.0 and A < 0.0)):
        s = ((x - x1) * ex + (y - y1) * ey) / el2
        if 0.0 <= s <= 1.0:
            return 0.0
    if d0 <= 0.0 and Bc >= 0.0 and A < 0.0:
        # Within R of the line and moving out, but curving back before it is clear (a kiss
        # elsewhere can leave a ball there): the contact is where it turns back.
        t = -Bc / (2.0 * A)
        if 0.0 < t <= T and (A * t + Bc) * t + d0 <= 0.0:
            px = x + qx * t + ax * t * t
            py = y + qy * t + ay * t * t
            s = ((px - x1) * ex + (py - y1) * ey) / el2
            if 0.0 <= s <= 1.0:
                return t
    # (a ball may also start past the line's extension, in a pocket mouth, and curve back
    # onto the segment later: look for later entries whatever the sign of d0)
    n, r0, r1 = quadratic_roots(A, Bc, d0, T)
    for k in range(n):
        t = r0 if k == 0 else r1
        if t <= 0.0 or t > T:
            continue
        if 2.0 * A * t + Bc >= 0.0:  # leaving the line, not entering
            continue
        px = x + qx * t + ax * t * t
        py = y + qy * t + ay * t * t
        s = ((px - x1) * ex + (py - y1) * ey) / el2
        if 0.0 <= s <= 1.0:
            return t
    return INF


@nb.njit(cache=True, error_model="numpy")
def _predict_objects(i, st, mo, t0, ttr, lines, circles, pockets, pin_spots, up, prm, out_t,
                     out_kind, out_idx):
    """Earliest event of ball i against a fixed object; writes out_t/out_kind/out_idx[i]."""
    out_t[i] = INF
    out_kind[i] = -1
    out_idx[i] = -1
    m = mo[i]
    qx, qy, ax, ay = path_coeffs(st[i, 2], st[i, 3], st[i, 4], st[i, 5], m, prm)
    if qx == 0.0 and qy == 0.0 and ax == 0.0 and ay == 0.0:
        return
    T = ttr[i] - t0[i]
    if not (T > 0.0):
        return
    R = prm[P_R]
    x = st[i, 0]
    y = st[i, 1]
    qn = math.sqrt(qx * qx + qy * qy)
    an = math.sqrt(ax * ax + ay * ay)
    reach = qn * T + an * T * T + 1e-9
    best = INF
    kind = -1
    idx = -1
    # Straight cushions first: they are cheap (quadratics) and bound the horizon, so the quartic
    # tests below only run for objects the ball can reach before it meets a cushion.
    for k in range(lines.shape[0]):
        t = _line_time(x, y, qx, qy, ax, ay, lines[k], R, reach, T)
        if t < best:
            best = t
            kind = OBJ_LINE
            idx = k
    # The ball's path up to the first cushion (or its transition): a parabola within ``sag``
    # of its chord. Objects farther than that from the chord cannot be reached.
    Th = min(best, T)
    ex = x + qx * Th + ax * Th * Th
    ey = y + qy * Th + ay * Th * Th
    sag = 0.25 * an * Th * Th
    # pockets win ties against cushions (priority: pockets before collisions)
    for k in range(pockets.shape[0]):
        t = _circle_time(x, y, qx, qy, ax, ay, pockets[k, 0], pockets[k, 1], pockets[k, 2], Th,
                         ex, ey, sag)
        if t < best or (t == best and kind == OBJ_LINE):
            best = t
            kind = OBJ_POCKET
            idx = k
    for k in range(circles.shape[0]):
        t = _circle_time(x, y, qx, qy, ax, ay, circles[k, 0], circles[k, 1],
                         circles[k, 2] + R, Th, ex, ey, sag)
        if t < best:
            best = t
            kind = OBJ_CIRCLE
            idx = k
    rp = prm[P_RPIN] + R
    for k in range(pin_spots.shape[0]):
        if not up[k]:
            continue
        t = _circle_time(x, y, qx, qy, ax, ay, pin_spots[k, 0], pin_spots[k, 1], rp, Th, ex, ey,
                         sag)
        if t < best:
            best = t
            kind = OBJ_PIN
            idx = k
    if kind >= 0:
        out_t[i] = t0[i] + best
        out_kind[i] = kind
        out_idx[i] = idx


@nb.njit(cache=True, error_model="numpy", inline="always")
def _pair_time(i, j, tnow, st, mo, t0, ttr, ob_t, prm):
    """Absolute time of the next contact of balls i and j, looking only as far as the first
    event already due for either ball (its transition or object event): that event refreshes
    this prediction anyway. inf if there is none before then."""
    if mo[i] == POCKETED or mo[j] == POCKETED:
        return INF
    xi, yi, vxi, vyi, wxi, wyi, wzi = evolve(st[i, 0], st[i, 1], st[i, 2], st[i, 3], st[i, 4],
                                             st[i, 5], st[i, 6], mo[i], tnow - t0[i], prm)
    xj, yj, vxj, vyj, wxj, wyj, wzj = evolve(st[j, 0], st[j, 1], st[j, 2], st[j, 3], st[j, 4],
                                             st[j, 5], st[j, 6], mo[j], tnow - t0[j], prm)
    qxi, qyi, axi, ayi = path_coeffs(vxi, vyi, wxi, wyi, mo[i], prm)
    qxj, qyj, axj, ayj = path_coeffs(vxj, vyj, wxj, wyj, mo[j], prm)
    dqx = qxj - qxi
    dqy = qyj - qyi
    dax = axj - axi
    day = ayj - ayi
    if dqx == 0.0 and dqy == 0.0 and dax == 0.0 and day == 0.0:
        return INF  # neither translates, or both move identically: the gap never changes
    dx = xj - xi
    dy = yj - yi
    R2 = 2.0 * prm[P_R]
    if prm[P_OVERLAP_NOW] > 0.0 and dx * dx + dy * dy < R2 * R2:
        # pooltool's rule: a pair already overlapping (a kiss pushed one ball into the other,
        # or they start so) is due now, approaching or not (PHYSICS.md sec. 6)
        return tnow
    T = min(min(ttr[i], ttr[j]), min(ob_t[i], ob_t[j])) - tnow
    if not (T > 0.0):
        return INF
    # relative path p(t) = d + dq t + da t^2 must come within 2R of the origin
    ex = dx + dqx * T + dax * T * T
    ey = dy + dqy * T + day * T * T
    sag = 0.25 * math.sqrt(dax * dax + day * day) * T * T
    if _far_from_path(dx, dy, ex, ey, sag, 0.0, 0.0, R2):
        return INF
    c4 = dax * dax + day * day
    c3 = 2.0 * (dax * dqx + day * dqy)
    c2 = dqx * dqx + dqy * dqy + 2.0 * (dax * dx + day * dy)
    c1 = 2.0 * (dqx * dx + dqy * dy)
    c0 = dx * dx + dy * dy - R2 * R2
    return tnow + first_entry_root(c4, c3, c2, c1, c0, T)



@nb.njit(cache=True, error_model="numpy")
def _refresh_ball(i, tnow, st, mo, t0, ttr, tbb, lines, circles, pockets, pin_spots, up, prm,
                  ob_t, ob_kind, ob_idx, act, nact, skip):
    """Recompute every cached prediction that involves ball i (its state is valid at tnow).

    Pairs are predicted with the balls still on the table, ``act[:nact]``, except ``skip``: the
    other agent of a ball-ball event, whose own refresh (next, with its transition and object
    times up to date) writes that pair's prediction.
    """
    B = st.shape[0]
    if mo[i] == POCKETED:
        ttr[i] = INF
        ob_t[i] = INF
        ob_kind[i] = -1
        for j in range(B):
            tbb[i, j] = INF
            tbb[j, i] = INF
        return
    ttr[i] = t0[i] + transition_time(st[i, 2], st[i, 3], st[i, 4], st[i, 5], st[i, 6], mo[i], prm)
    _predict_objects(i, st, mo, t0, ttr, lines, circles, pockets, pin_spots, up, prm, ob_t,
                     ob_kind, ob_idx)
    for jj in range(nact):
        j = act[jj]
        if j == i or j == skip:
            continue
        t = _pair_time(i, j, tnow, st, mo, t0, ttr, ob_t, prm)
        if i < j:
            tbb[i, j] = t
        else:
            tbb[j, i] = t

