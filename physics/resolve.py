"""Collision and strike models (docs/physics.md sec. 3-5, 7-8). Pure numba kernels over floats.

Each resolver takes the agents' state right at contact and returns the state right after.
Models (selected by integer codes from constants.py):

- cue strike: instantaneous point impact, Alciatore TP A-30, optional squirt (TP A-31)
- ball-ball: frictional inelastic with Alciatore's throw friction (TP A-5/A-6/A-14), or
  frictionless elastic
- ball-cushion and ball-post: Han (2005) with the cushion contact height, or a mirror with
  restitution
- ball-pin: 1-D frictionless impact on a light body (K-P1)
"""

from __future__ import annotations

import math

import numba as nb

from .constants import SLIDING
from .motion import (
    EPS,
    P_CUE_M,
    P_EB,
    P_EPIN,
    P_EPIN_POST,
    P_M,
    P_ME,
    P_MPIN,
    P_R,
    path_coeffs,
    transition_time,
)


@nb.njit(cache=True, error_model="numpy")
def strike(V0, phi, theta, a, b, squirt, prm):
    """Cue strike on a ball at rest (instantaneous point model, Alciatore TP A-30).

    Args:
        V0: cue speed [m/s]. phi: aim [rad], 0 = +x. theta: cue elevation [rad].
        a, b: contact offsets / R (a > 0 left English, b > 0 follow); a^2 + b^2 <= 1.
        squirt: 1.0 to deflect v by the squirt angle (TP A-31), 0.0 for none.
    Returns:
        (vx, vy, wx, wy, wz) of the ball right after the strike (it is then sliding).
    """
    R = prm[P_R]
    m = prm[P_M]
    M = prm[P_CUE_M]
    V = 2.0 * V0 / (1.0 + m / M + 2.5 * (a * a + b * b))
    dx = math.cos(phi)
    dy = math.sin(phi)
    ct = math.cos(theta)
    st = math.sin(theta)
    vx = V * ct * dx
    vy = V * ct * dy
    k = 5.0 * V / (2.0 * R)
    # w = k (b e - a sin(theta) d - a cos(theta) z), e = z x d = (-dy, dx, 0)
    wx = k * (-b * dy - a * st * dx)
    wy = k * (b * dx - a * st * dy)
    wz = -k * a * ct
    if squirt != 0.0:
        me = prm[P_ME]
        alpha = -squirt * math.atan2(2.5 * a * math.sqrt(max(0.0, 1.0 - a * a)),
                                     1.0 + m / me + 2.5 * (1.0 - a * a))
        ca = math.cos(alpha)
        sa = math.sin(alpha)
        vx, vy = ca * vx - sa * vy, sa * vx + ca * vy
    return vx, vy, wx, wy, wz


@nb.njit(cache=True, error_model="numpy")
def ball_ball(v1x, v1y, w1x, w1y, w1z, v2x, v2y, w2x, w2y, w2z, nx, ny, model, prm):
    """Ball-ball impact; (nx, ny) is the unit line of centres from ball 1 to ball 2.

    model 0: frictional inelastic (Alciatore friction u_b = 0.009951 + 0.108 exp(-1.088 |c|)),
    model 1: frictionless elastic. Returns the 10 new velocity/spin components.
    """
    v1n = v1x * nx + v1y * ny
    v2n = v2x * nx + v2y * ny
    if model == 1:
        j = v1n - v2n
        return (v1x - j * nx, v1y - j * ny, w1x, w1y, w1z,
                v2x + j * nx, v2y + j * ny, w2x, w2y, w2z)
    R = prm[P_R]
    e = prm[P_EB]
    v1n_new = 0.5 * ((1.0 - e) * v1n + (1.0 + e) * v2n)
    v2n_new = 0.5 * ((1.0 + e) * v1n + (1.0 - e) * v2n)
    p1x = v1x - v1n * nx
    p1y = v1y - v1n * ny
    p2x = v2x - v2n * nx
    p2y = v2y - v2n * ny
    sx = w1x + w2x
    sy = w1y + w2y
    sz = w1z + w2z
    # contact slip c = v1_perp - v2_perp + R (w1 + w2) x n   (3-D, n horizontal)
    cx = p1x - p2x - R * sz * ny
    cy = p1y - p2y + R * sz * nx
    cz = R * (sx * ny - sy * nx)
    cn = math.sqrt(cx * cx + cy * cy + cz * cz)
    u_b = 0.009951 + 0.108 * math.exp(-1.088 * cn)
    D = e * abs(v1n - v2n)
    if cn > EPS and 7.0 * u_b * D < cn:
        f = -u_b * D / cn
        jx = f * cx
        jy = f * cy
        jz = f * cz
    else:
        jx = -cx / 7.0
        jy = -cy / 7.0
        jz = -cz / 7.0
    k = 5.0 / (2.0 * R)
    # n x j = (ny jz, -nx jz, nx jy - ny jx)
    dwx = k * ny * jz
    dwy = -k * nx * jz
    dwz = k * (nx * jy - ny * jx)
    return (v1n_new * nx + p1x + jx, v1n_new * ny + p1y + jy, w1x + dwx, w1y + dwy, w1z + dwz,
            v2n_new * nx + p2x - jx, v2n_new * ny + p2y - jy, w2x + dwx, w2y + dwy, w2z + dwz)


@nb.njit(cache=True, error_model="numpy")
def cushion(vx, vy, wx, wy, wz, nx, ny, e, f, h, model, prm):
    """Ball against a cushion or post; (nx, ny) points from the ball into the obstacle.

    model 0: Han (2005) with contact height h [m] (h = R for a post: horizontal normal);
    model 1: mirror, v' = v - (1 + e)(v.n) n, spin unchanged. Returns (vx, vy, wx, wy, wz).
    """
    vn = vx * nx + vy * ny
    if model == 1:
        return vx - (1.0 + e) * vn * nx, vy - (1.0 + e) * vn * ny, wx, wy, wz
    R = prm[P_R]
    m = prm[P_M]
    tx = -ny  # t = z x n
    ty = nx
    vt = vx * tx + vy * ty
    wn = wx * nx + wy * ny
    wt = wx * tx + wy * ty
    sin_c = h / R - 1.0
    S = min(1.0, max(-1.0, sin_c))
    C = math.sqrt(max(0.0, 1.0 - S * S))
    s_x = vn * S + R * wt  # v_z = 0
    s_y = -vt - R * wz * C + R * wn * S
    PN = (1.0 + e) * m * vn * C
    sn = math.sqrt(s_x * s_x + s_y * s_y)
    if 2.0 * m / 7.0 * sn <= f * PN:
        Px = 2.0 * m / 7.0 * s_x
        Py = 2.0 * m / 7.0 * s_y
    else:
        Px = f * PN * s_x / sn
        Py = f * PN * s_y / sn
    Jn = -Px * S - PN * C
    Jt = Py
    Jz = Px * C - PN * S
    k = 5.0 / (2.0 * m * R)
    vn1 = vn + Jn / m
    vt1 = vt + Jt / m
    wn1 = wn - k * Jt * S
    wt1 = wt + k * (Jn * S - Jz * C)
    wz1 = wz + k * Jt * C
    return (vn1 * nx + vt1 * tx, vn1 * ny + vt1 * ty,
            wn1 * nx + wt1 * tx, wn1 * ny + wt1 * ty, wz1)


@nb.njit(cache=True, error_model="numpy")
def ball_pin(vx, vy, wx, wy, wz, nx, ny, topple_speed, prm):
    """Ball (velocity vx, vy [m/s], spin wx, wy, wz [rad/s]) against a standing pin, (nx, ny)
    from the ball to the pin (K-P1). The spin is unchanged.

    Above the topple speed the pin is a free light body (:func:`pin_push`) and topples; below
    it the pin is a fixed round post (restitution e_pin_post), unless the ball's spin drives it
    straight back into the pin until it presses on it (:func:`pressed_into_pin`): pushed off
    its spot, the pin topples as well (K-P4).
    Returns (vx, vy, toppled).
    """
    vn = vx * nx + vy * ny
    if vn > topple_speed:
        px, py = pin_push(vx, vy, nx, ny, vn, prm)
        return px, py, True
    e = prm[P_EPIN_POST]
    bx, by = vx - (1.0 + e) * vn * nx, vy - (1.0 + e) * vn * ny
    if pressed_into_pin(vn, bx, by, wx, wy, wz, nx, ny, prm):
        px, py = pin_push(vx, vy, nx, ny, vn, prm)
        return px, py, True
    return bx, by, False


@nb.njit(cache=True, error_model="numpy")
def pressed_into_pin(vn, vx, vy, wx, wy, wz, nx, ny, prm):
    """Whether a ball that touched a standing pin below the topple speed (normal speed ``vn``
    [m/s] before; (vx, vy, wx, wy, wz) after :func:`ball_pin`'s post bounce, sliding) is driven
    back into it by its own spin until it stops sliding: it then presses against the pin and
    pushes it off its spot, which topples it (K-P4).

    The cloth's sliding friction accelerates the ball at a constant ``2 a`` (``path_coeffs``);
    where that points at the pin (a_n > 0) the ball, leaving at e vn, is back after
    e vn / a_n, leaves at e^2 vn, and so on: a geometric series of ever closer touches that
    ends after e vn / (a_n (1 - e)), pressed against the pin, unless its sliding ends first
    (:func:`transition_time`). Left as a bounce, the series fills the event log."""
    e = prm[P_EPIN_POST]
    if e >= 1.0:
        return False
    _, _, ax, ay = path_coeffs(vx, vy, wx, wy, SLIDING, prm)
    an = ax * nx + ay * ny
    if an <= 0.0:
        return False
    return e * vn / (an * (1.0 - e)) < transition_time(vx, vy, wx, wy, wz, SLIDING, prm)


@nb.njit(cache=True, error_model="numpy")
def pin_push(vx, vy, nx, ny, vn, prm):
    """The ball's velocity after it topples a pin it hit at normal speed ``vn`` [m/s]: the
    pin as a free light body (mass m_pin, restitution e_pin; K-P1)."""
    m = prm[P_M]
    mp = prm[P_MPIN]
    J = (1.0 + prm[P_EPIN]) * m * mp / (m + mp) * vn
    return vx - J / m * nx, vy - J / m * ny
