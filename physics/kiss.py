"""Positional corrections of the event loop: the kiss spacer and the push-outs (docs/physics.md
sec. 7). Pure numba kernels over one table's state ``st`` (B, 7): x, y, vx, vy, wx, wy, wz.

After each collision the agents are put a spacer ``delta`` apart (pooltool's kiss), so that the
next root search does not find the contact just resolved. These moves are micrometres, but they
must never put a ball into a fixed obstacle (straight cushion, jaw or post circle, standing pin):
a ball wedged between a golfbillard post and the cushion and pressed by other balls was kissed
into the post or past the cushion nose by up to 35 um (hostile soak, issue 13). Every kiss is
therefore checked against the fixed obstacles and, where it would leave a ball inside one, redone
so that the obstacles win (:func:`_kiss_pair`, :func:`_keep_clear`); a ball that stops is also
projected out of them (:func:`_unstick_resting`), and where it has no room between resting
balls they make room (:func:`_relax_resting`). On ordinary shots no kiss comes near that
check's tolerance and no cluster needs relaxing: results are bit-identical to the plain kiss.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .constants import POCKETED, ROLLING, SLIDING, SPINNING, STATIONARY
from .motion import P_RPIN

#: Default spacer between agents after a collision [m] (pooltool's kiss, docs/physics.md sec. 7).
KISS = 1e-6
#: Depth [m] by which a ball may overlap a fixed obstacle (cushion, jaw, post, standing pin)
#: before a correction moves it out: far below the kiss, far above rounding (a ball kissed to
#: R + delta from a cushion and then moved along it stays within ~1e-16 m of that distance).
FIXED_TOL = 1e-9
#: Passes of the projection out of fixed obstacles: in a wedge (a post next to a cushion, two
#: posts) each projection out of one obstacle can push the ball into the other, and alternate
#: projections converge to the wedge's corner geometrically.
FIXED_PASSES = 32
#: Rounds of :func:`_kiss_pair` against the obstacles when both balls of the pair are blocked.
PAIR_ROUNDS = 8


# ---------------------------------------------------------------------------------------------
# fixed obstacles
# ---------------------------------------------------------------------------------------------


@nb.njit(cache=True, error_model="numpy", inline="always")
def _line_out(x, y, R, ln):
    """Depth [m] of a ball at (x, y) inside straight cushion ``ln`` (x1, y1, x2, y2, nx, ny; n
    points into the table) and the unit direction out of it. Along the segment the direction is
    the cushion normal (a ball up to R behind the nose line still belongs to this cushion);
    past its ends it is radial from the end point. Depth <= 0: no contact."""
    ex = ln[2] - ln[0]
    ey = ln[3] - ln[1]
    rx = x - ln[0]
    ry = y - ln[1]
    u = (rx * ex + ry * ey) / (ex * ex + ey * ey)
    if 0.0 <= u <= 1.0:
        dist = rx * ln[4] + ry * ln[5]
        if dist <= -R:
            return -1.0, 0.0, 0.0  # far behind the line: not on this cushion's playing side
        return R - dist, ln[4], ln[5]
    u = min(1.0, max(0.0, u))
    gx = rx - u * ex
    gy = ry - u * ey
    g = math.sqrt(gx * gx + gy * gy)
    if g == 0.0:
        return R, ln[4], ln[5]
    return R - g, gx / g, gy / g


@nb.njit(cache=True, error_model="numpy")
def _inside_fixed(x, y, R, lines, circles, pin_spots, up, prm):
    """True when a ball at (x, y) is inside a straight cushion, circle or standing pin by more
    than FIXED_TOL (the depth of :func:`_line_out` and of the circles, without square roots:
    this runs after every kiss)."""
    lim = R - FIXED_TOL
    for k in range(lines.shape[0]):
        ex = lines[k, 2] - lines[k, 0]
        ey = lines[k, 3] - lines[k, 1]
        rx = x - lines[k, 0]
        ry = y - lines[k, 1]
        u = (rx * ex + ry * ey) / (ex * ex + ey * ey)
        if 0.0 <= u <= 1.0:
            dist = rx * lines[k, 4] + ry * lines[k, 5]
            if -R < dist < lim:
                return True
        else:
            u = min(1.0, max(0.0, u))
            gx = rx - u * ex
            gy = ry - u * ey
            if gx * gx + gy * gy < lim * lim:
                return True
    for k in range(circles.shape[0]):
        dx = x - circles[k, 0]
        dy = y - circles[k, 1]
        rad = circles[k, 2] + lim
        if dx * dx + dy * dy < rad * rad:
            return True
    rp = prm[P_RPIN] + lim
    for k in range(pin_spots.shape[0]):
        if up[k]:
            dx = x - pin_spots[k, 0]
            dy = y - pin_spots[k, 1]
            if dx * dx + dy * dy < rp * rp:
                return True
    return False


@nb.njit(cache=True, error_model="numpy")
def _project_fixed(x, y, R, gap, lines, circles, pin_spots, up, prm):
    """(x, y) moved out of every fixed obstacle it is inside by more than FIXED_TOL, to ``gap``
    beyond contact, along each obstacle's normal; repeated (FIXED_PASSES) while a move pushes it
    into another obstacle. In a wedge narrower than the ball the passes converge to the corner
    (within FIXED_TOL); the last pass's obstacle is always cleared."""
    rp = prm[P_RPIN] + R
    for _ in range(FIXED_PASSES):
        moved = False
        for k in range(lines.shape[0]):
            dep, ox, oy = _line_out(x, y, R, lines[k])
            if dep > FIXED_TOL:
                x += (dep + gap) * ox
                y += (dep + gap) * oy
                moved = True
        for k in range(circles.shape[0] + pin_spots.shape[0]):
            if k < circles.shape[0]:
                cx = circles[k, 0]
                cy = circles[k, 1]
                rad = circles[k, 2] + R
            else:
                p = k - circles.shape[0]
                if not up[p]:
                    continue
                cx = pin_spots[p, 0]
                cy = pin_spots[p, 1]
                rad = rp
            dx = x - cx
            dy = y - cy
            d = math.sqrt(dx * dx + dy * dy)
            if rad - d > FIXED_TOL and d > 0.0:
                x = cx + dx / d * (rad + gap)
                y = cy + dy / d * (rad + gap)
                moved = True
        if not moved:
            break
    return x, y


@nb.njit(cache=True, error_model="numpy")
def _keep_clear(st, i, gap, R, lines, circles, pin_spots, up, prm):
    """Move ball i out of the fixed obstacles it is inside (after a kiss against one of them,
    which may push it into a neighbouring one: a post next to the cushion)."""
    if _inside_fixed(st[i, 0], st[i, 1], R, lines, circles, pin_spots, up, prm):
        st[i, 0], st[i, 1] = _project_fixed(st[i, 0], st[i, 1], R, gap, lines, circles,
                                            pin_spots, up, prm)


# ---------------------------------------------------------------------------------------------
# kisses
# ---------------------------------------------------------------------------------------------


@nb.njit(cache=True, error_model="numpy")
def _kiss_pair_free(st, i, j, delta, R):
    """Move balls i, j (touching) apart to 2R + delta along their straight-line motion
    (pooltool's kiss); falls back to a symmetric push along the line of centres. Knows no
    obstacle: :func:`_kiss_pair` checks its result."""
    dx = st[j, 0] - st[i, 0]
    dy = st[j, 1] - st[i, 1]
    dvx = st[j, 2] - st[i, 2]
    dvy = st[j, 3] - st[i, 3]
    a = dvx * dvx + dvy * dvy
    b = 2.0 * (dx * dvx + dy * dvy)
    target = 2.0 * R + delta
    c = dx * dx + dy * dy - target * target
    ok = False
    t = 0.0
    if a > 0.0:
        disc = b * b - 4.0 * a * c
        if disc >= 0.0:
            sq = math.sqrt(disc)
            r0 = (-b - sq) / (2.0 * a)
            r1 = (-b + sq) / (2.0 * a)
            t = r0 if abs(r0) < abs(r1) else r1
            # pooltool limits only the midpoint's move (a thin cut into a resting ball steps the
            # moving ball back further than 5 delta, and that is still the right kiss)
            mx = 0.5 * t * (st[i, 2] + st[j, 2])
            my = 0.5 * t * (st[i, 3] + st[j, 3])
            if math.sqrt(mx * mx + my * my) <= 5.0 * delta:
                ok = True
    if ok:
        st[i, 0] += t * st[i, 2]
        st[i, 1] += t * st[i, 3]
        st[j, 0] += t * st[j, 2]
        st[j, 1] += t * st[j, 3]
        return
    d = math.sqrt(dx * dx + dy * dy)
    if d == 0.0:
        return
    nx = dx / d
    ny = dy / d
    cx = 0.5 * (st[i, 0] + st[j, 0])
    cy = 0.5 * (st[i, 1] + st[j, 1])
    st[i, 0] = cx - 0.5 * target * nx
    st[i, 1] = cy - 0.5 * target * ny
    st[j, 0] = cx + 0.5 * target * nx
    st[j, 1] = cy + 0.5 * target * ny


@nb.njit(cache=True, error_model="numpy")
def _kiss_pair(st, i, j, delta, R, lines, circles, pin_spots, up, prm):
    """Kiss of balls i, j (touching, states at the contact time) that leaves neither inside a
    fixed obstacle.

    The plain kiss (:func:`_kiss_pair_free`) is kept when both balls end up clear. It is not
    when a ball is wedged against a post or cushion: its straight-line step may move a ball tens
    of micrometres along its own velocity (pooltool bounds only the midpoint's move, and two
    balls moving almost oppositely, tangentially to their line of centres, have a slow midpoint
    and a far root), and its symmetric fallback pushes into whatever lies behind. Then, from the
    contact positions, each ball is first projected out of the obstacles, and the pair is pushed
    to 2R + delta along its line of centres: both balls half the way where both stay clear,
    otherwise only the ball that stays clear, the other one held; where neither can move
    (both wedged) the symmetric push is made and each ball projected back out, for up to
    PAIR_ROUNDS rounds. The obstacles always win: a residual overlap of the two balls is left to
    the event loop (an overlapping pair that starts to approach collides at once) and to
    :func:`_unstick_resting` when they stop.
    """
    x1 = st[i, 0]
    y1 = st[i, 1]
    x2 = st[j, 0]
    y2 = st[j, 1]
    _kiss_pair_free(st, i, j, delta, R)
    if not (_inside_fixed(st[i, 0], st[i, 1], R, lines, circles, pin_spots, up, prm)
            or _inside_fixed(st[j, 0], st[j, 1], R, lines, circles, pin_spots, up, prm)):
        return
    x1, y1 = _project_fixed(x1, y1, R, delta, lines, circles, pin_spots, up, prm)
    x2, y2 = _project_fixed(x2, y2, R, delta, lines, circles, pin_spots, up, prm)
    target = 2.0 * R + delta
    for _ in range(PAIR_ROUNDS):
        dx = x2 - x1
        dy = y2 - y1
        d = math.sqrt(dx * dx + dy * dy)
        push = target - d
        if push <= 0.0 or d == 0.0:
            break
        nx = dx / d
        ny = dy / d
        ax = x1 - 0.5 * push * nx
        ay = y1 - 0.5 * push * ny
        bx = x2 + 0.5 * push * nx
        by = y2 + 0.5 * push * ny
        a_ok = not _inside_fixed(ax, ay, R, lines, circles, pin_spots, up, prm)
        b_ok = not _inside_fixed(bx, by, R, lines, circles, pin_spots, up, prm)
        if a_ok and b_ok:
            x1, y1, x2, y2 = ax, ay, bx, by
            break
        if a_ok or not b_ok:
            # ball i can move or both are blocked: try moving i alone
            cx = x1 - push * nx
            cy = y1 - push * ny
            if not _inside_fixed(cx, cy, R, lines, circles, pin_spots, up, prm):
                x1, y1 = cx, cy
                break
        if b_ok or not a_ok:
            cx = x2 + push * nx
            cy = y2 + push * ny
            if not _inside_fixed(cx, cy, R, lines, circles, pin_spots, up, prm):
                x2, y2 = cx, cy
                break
        x1, y1 = _project_fixed(ax, ay, R, delta, lines, circles, pin_spots, up, prm)
        x2, y2 = _project_fixed(bx, by, R, delta, lines, circles, pin_spots, up, prm)
    st[i, 0] = x1
    st[i, 1] = y1
    st[j, 0] = x2
    st[j, 1] = y2


@nb.njit(cache=True, error_model="numpy")
def _kiss_line(st, i, ln, delta, R):
    """Put ball i at R + delta from straight cushion ln, stepping back along its velocity."""
    nx = ln[4]
    ny = ln[5]
    dist = (st[i, 0] - ln[0]) * nx + (st[i, 1] - ln[1]) * ny
    vn = st[i, 2] * nx + st[i, 3] * ny
    if vn != 0.0:
        t = (R + delta - dist) / vn
        if abs(t) * math.sqrt(st[i, 2] ** 2 + st[i, 3] ** 2) <= 5.0 * delta:
            st[i, 0] += t * st[i, 2]
            st[i, 1] += t * st[i, 3]
            return
    st[i, 0] += (R + delta - dist) * nx
    st[i, 1] += (R + delta - dist) * ny


@nb.njit(cache=True, error_model="numpy")
def _kiss_circle(st, i, cx, cy, rad, delta):
    """Put ball i's centre at rad + delta from (cx, cy) (rad = circle radius + R)."""
    dx = st[i, 0] - cx
    dy = st[i, 1] - cy
    vx = st[i, 2]
    vy = st[i, 3]
    target = rad + delta
    a = vx * vx + vy * vy
    if a > 0.0:
        b = 2.0 * (dx * vx + dy * vy)
        c = dx * dx + dy * dy - target * target
        disc = b * b - 4.0 * a * c
        if disc >= 0.0:
            sq = math.sqrt(disc)
            r0 = (-b - sq) / (2.0 * a)
            r1 = (-b + sq) / (2.0 * a)
            t = r0 if abs(r0) < abs(r1) else r1
            if abs(t) * math.sqrt(a) <= 5.0 * delta:
                st[i, 0] += t * vx
                st[i, 1] += t * vy
                return
    d = math.sqrt(dx * dx + dy * dy)
    if d == 0.0:
        return
    st[i, 0] = cx + dx / d * target
    st[i, 1] = cy + dy / d * target


#: Overlap [m] of two resting balls that :func:`_unstick_resting` removes (the layout check's
#: tolerance: balls placed frozen, exactly 2R apart, are left alone).
REST_OVERLAP_TOL = 1e-9


@nb.njit(cache=True, error_model="numpy", inline="always")
def segment_gap2(x, y, ln):
    """Squared distance [m^2] from (x, y) to the straight cushion segment ``ln`` (x1, y1, x2,
    y2, ...), and the position u in [0, 1] of the segment's nearest point."""
    ex = ln[2] - ln[0]
    ey = ln[3] - ln[1]
    rx = x - ln[0]
    ry = y - ln[1]
    u = min(1.0, max(0.0, (rx * ex + ry * ey) / (ex * ex + ey * ey)))
    gx = rx - u * ex
    gy = ry - u * ey
    return gx * gx + gy * gy, u


@nb.njit(cache=True, error_model="numpy")
def _clear_of_fixed(x, y, R, lines, circles, pin_spots, up, prm):
    """True when a ball at (x, y) overlaps no straight cushion, circle or standing pin."""
    for k in range(lines.shape[0]):
        if segment_gap2(x, y, lines[k])[0] < R * R:
            return False
    for k in range(circles.shape[0]):
        dx = x - circles[k, 0]
        dy = y - circles[k, 1]
        if dx * dx + dy * dy < (circles[k, 2] + R) ** 2:
            return False
    rp = prm[P_RPIN] + R
    for k in range(pin_spots.shape[0]):
        if up[k]:
            dx = x - pin_spots[k, 0]
            dy = y - pin_spots[k, 1]
            if dx * dx + dy * dy < rp * rp:
                return False
    return True


@nb.njit(cache=True, error_model="numpy")
def _push_out(a, st, mo, R, gap, lines, circles, pin_spots, up, prm):
    """One pass of :func:`_unstick_resting`: move ball a to 2R + gap from each resting ball it
    overlaps by more than REST_OVERLAP_TOL, in index order. Returns True if it moved."""
    B = st.shape[0]
    lim = (2.0 * R - REST_OVERLAP_TOL) ** 2
    moved = False
    for j in range(B):
        if j == a or mo[j] == POCKETED or mo[j] == SLIDING or mo[j] == ROLLING:
            continue
        dx = st[a, 0] - st[j, 0]
        dy = st[a, 1] - st[j, 1]
        d2 = dx * dx + dy * dy
        if d2 >= lim or d2 == 0.0:
            continue
        d = math.sqrt(d2)
        push = 2.0 * R + gap - d
        x = st[a, 0] + dx / d * push
        y = st[a, 1] + dy / d * push
        if not _clear_of_fixed(x, y, R, lines, circles, pin_spots, up, prm):
            # A cushion, post or pin is in the way (a resting ball pressed against it by the
            # one that stops): slide along it, i.e. project out of the fixed obstacles, if that
            # still reduces the overlap; repeated passes converge to the spot touching both.
            x, y = _project_fixed(x, y, R, gap, lines, circles, pin_spots, up, prm)
            ex = x - st[j, 0]
            ey = y - st[j, 1]
            if (ex * ex + ey * ey <= d2
                    or _inside_fixed(x, y, R, lines, circles, pin_spots, up, prm)):
                continue
        st[a, 0] = x
        st[a, 1] = y
        moved = True
    return moved


@nb.njit(cache=True, error_model="numpy")
def _unstick_resting(a, st, mo, R, delta, lines, circles, pin_spots, up, prm):
    """Ball a stops translating now: move it out of any fixed obstacle, then out of any resting
    ball it overlaps.

    The kisses keep balls out of the fixed obstacles, but a ball left inside one by more than
    FIXED_TOL (e.g. by an earlier correction in a jam) and moving slowly out of it has no event
    that would stop it there; it is projected out first (:func:`_keep_clear`).

    A kiss steps the agents of a collision back along their motion; in a chain of collisions
    through frozen balls that step can leave a ball a few micrometres inside the partner of its
    previous collision while both crawl apart at ~1e-4 m/s. Such a pair is separating, so it
    never collides again, and it would come to rest overlapping. Like the kiss's fallback, the
    ball is put at 2R + delta from the resting ball, along their line of centres. A ball cradled
    by several resting balls may have no room for that gap on every side: then up to 64 more
    passes push it out with a gap of 2 REST_OVERLAP_TOL only. Ball a moves (its transition
    event logs the new position); where a cushion, post, jaw or pin is in the way the ball
    slides along it (projected out of it) if that still reduces the overlap, and otherwise does
    not move. Where these passes do not converge (a tight cradle: the resting balls round it
    closer than 4R apart, no room for it, and each push out of one puts it into another), the
    resting balls in contact are pushed apart as a cluster (:func:`_relax_resting`): its
    neighbours make room. Overlaps with moving balls are left to the event loop (an approaching
    pair collides at once).

    Returns:
        int64 bit mask of the balls other than a that were moved (0 on ordinary shots): the
        caller refreshes their predictions and logs their new positions.
    """
    _keep_clear(st, a, delta, R, lines, circles, pin_spots, up, prm)
    for _ in range(4):
        if not _push_out(a, st, mo, R, delta, lines, circles, pin_spots, up, prm):
            return np.int64(0)
    for _ in range(64):
        if not _push_out(a, st, mo, R, 2.0 * REST_OVERLAP_TOL, lines, circles, pin_spots, up,
                         prm):
            return np.int64(0)
    return _relax_resting(a, st, mo, R, 2.0 * REST_OVERLAP_TOL, lines, circles, pin_spots, up,
                          prm)


#: Passes of :func:`_relax_resting` over the pairs of resting balls.
CLUSTER_PASSES = 64


@nb.njit(cache=True, error_model="numpy")
def _relax_resting(a, st, mo, R, gap, lines, circles, pin_spots, up, prm):
    """Push apart every pair of resting balls (and ball a, which stops now) that overlaps by
    more than REST_OVERLAP_TOL to 2R + ``gap``, half the way each, in passes over all pairs
    (up to CLUSTER_PASSES, until none overlaps).

    The last resort of :func:`_unstick_resting`: a kiss can push a ball a few micrometres into
    a third ball, and when the balls round the ball that stops rest closer than 4R apart it has
    no room (golfbillard hostile soak seed 5 left 1.2-1.3 um); then the neighbours make room,
    moving sub-micrometre distances. Fixed obstacles win: a ball whose half would end inside
    one (by more than FIXED_TOL) is held and the other moved the whole way if that stays
    clear; where neither can move the pair is left. Returns the int64 bit mask of the balls
    other than a that moved.
    """
    B = st.shape[0]
    lim = (2.0 * R - REST_OVERLAP_TOL) ** 2
    moved = np.int64(0)
    for _ in range(CLUSTER_PASSES):
        again = False
        for i in range(B):
            if i != a and mo[i] != STATIONARY and mo[i] != SPINNING:
                continue
            for j in range(i + 1, B):
                if j != a and mo[j] != STATIONARY and mo[j] != SPINNING:
                    continue
                dx = st[j, 0] - st[i, 0]
                dy = st[j, 1] - st[i, 1]
                d2 = dx * dx + dy * dy
                if d2 >= lim or d2 == 0.0:
                    continue
                d = math.sqrt(d2)
                push = 2.0 * R + gap - d
                nx = dx / d
                ny = dy / d
                ix = st[i, 0] - 0.5 * push * nx
                iy = st[i, 1] - 0.5 * push * ny
                jx = st[j, 0] + 0.5 * push * nx
                jy = st[j, 1] + 0.5 * push * ny
                i_ok = not _inside_fixed(ix, iy, R, lines, circles, pin_spots, up, prm)
                j_ok = not _inside_fixed(jx, jy, R, lines, circles, pin_spots, up, prm)
                if not (i_ok or j_ok):
                    continue
                if not j_ok:
                    ix = st[i, 0] - push * nx
                    iy = st[i, 1] - push * ny
                    jx = st[j, 0]
                    jy = st[j, 1]
                    if _inside_fixed(ix, iy, R, lines, circles, pin_spots, up, prm):
                        continue
                elif not i_ok:
                    ix = st[i, 0]
                    iy = st[i, 1]
                    jx = st[j, 0] + push * nx
                    jy = st[j, 1] + push * ny
                    if _inside_fixed(jx, jy, R, lines, circles, pin_spots, up, prm):
                        continue
                if ix != st[i, 0] or iy != st[i, 1]:
                    moved |= np.int64(1) << i
                if jx != st[j, 0] or jy != st[j, 1]:
                    moved |= np.int64(1) << j
                st[i, 0] = ix
                st[i, 1] = iy
                st[j, 0] = jx
                st[j, 1] = jy
                again = True
        if not again:
            break
    return moved & ~(np.int64(1) << a)
