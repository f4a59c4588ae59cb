"""Closed-form ball motion between events (docs/physics.md sec. 2; Leckie & Greenspan 2006,
Kiefl 2020).

A ball's state is 7 floats ``(x, y, vx, vy, wx, wy, wz)`` [m, m/s, rad/s] plus a motion-state
code (constants.py). Within one motion state the centre follows the parabola
``p(t) = p0 + q t + acc t^2``; transitions (sliding -> rolling -> spinning -> stationary) are
events, so these kernels never cross one.

Parameter vector ``prm`` (float64) layout: see the ``P_*`` indices below; built once by
:func:`cuegym.physics.engine.pack_params`.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .constants import POCKETED, ROLLING, SLIDING, SPINNING, STATIONARY

# Indices into the packed parameter vector (one boundary: engine.pack_params).
P_R = 0
P_M = 1
P_US = 2
P_UR = 3
P_USP = 4
P_EB = 5
P_EC = 6
P_FC = 7
P_G = 8
P_H = 9  # cushion nose height [m]
P_CUE_M = 10
P_ME = 11
P_MPIN = 12
P_EPIN = 13
P_PIN_V = 14
P_PIN_DELAY = 15
P_EPIN_POST = 16
P_RPIN = 17
P_PIN_LEN = 18
P_KISS = 19  # spacer delta [m] placed between agents after a collision (pooltool's "kiss")
#: 1.0: a pair of balls already closer than 2R is due now even while it separates (pooltool's
#: rule, set by the engine under ``Models.touching == "pooltool"``); 0.0: only while it
#: approaches (the games' ``"bounded"``). Not a physical parameter: ``pack_params`` leaves it 0.
P_OVERLAP_NOW = 20
N_PARAMS = 21

#: pooltool's zero (100 machine epsilons).
EPS = 2.220446049250313e-14
INF = math.inf


@nb.njit(cache=True, error_model="numpy", inline="always")
def spin_decay(wz: float, dt: float, R: float, u_sp: float, g: float) -> float:
    """w_z after dt of spinning friction: linear decay to zero, alpha = 5 u_sp g / (2R)."""
    if abs(wz) < EPS:
        return wz
    alpha = 5.0 * u_sp * g / (2.0 * R)
    mag = abs(wz) - alpha * dt
    if mag <= 0.0:
        return 0.0
    return mag if wz > 0.0 else -mag


@nb.njit(cache=True, error_model="numpy", inline="always")
def evolve(x, y, vx, vy, wx, wy, wz, motion, dt, prm):
    """State after dt seconds inside the current motion state (no transition crossed).

    Returns the new (x, y, vx, vy, wx, wy, wz). Does not write its inputs.
    """
    if dt == 0.0 or motion == STATIONARY or motion == POCKETED:
        return x, y, vx, vy, wx, wy, wz
    R = prm[P_R]
    g = prm[P_G]
    wz1 = spin_decay(wz, dt, R, prm[P_USP], g)
    if motion == SPINNING:
        return x, y, vx, vy, wx, wy, wz1
    if motion == SLIDING:
        u_s = prm[P_US]
        ux = vx - R * wy
        uy = vy + R * wx
        un = math.sqrt(ux * ux + uy * uy)
        if un > 0.0:
            hx = ux / un
            hy = uy / un
        else:
            vn = math.sqrt(vx * vx + vy * vy)
            if vn == 0.0:
                return x, y, vx, vy, wx, wy, wz1
            hx = vx / vn
            hy = vy / vn
        a = u_s * g
        k = 5.0 * u_s * g / (2.0 * R)
        return (
            x + vx * dt - 0.5 * a * dt * dt * hx,
            y + vy * dt - 0.5 * a * dt * dt * hy,
            vx - a * dt * hx,
            vy - a * dt * hy,
            wx - k * dt * hy,
            wy + k * dt * hx,
            wz1,
        )
    # rolling
    vn = math.sqrt(vx * vx + vy * vy)
    if vn == 0.0:
        return x, y, 0.0, 0.0, 0.0, 0.0, wz1
    hx = vx / vn
    hy = vy / vn
    a = prm[P_UR] * g
    nvx = vx - a * dt * hx
    nvy = vy - a * dt * hy
    return (
        x + vx * dt - 0.5 * a * dt * dt * hx,
        y + vy * dt - 0.5 * a * dt * dt * hy,
        nvx,
        nvy,
        -nvy / R,
        nvx / R,
        wz1,
    )


@nb.njit(cache=True, error_model="numpy", inline="always")
def path_coeffs(vx, vy, wx, wy, motion, prm):
    """Velocity and acceleration of the centre, p(t) = p0 + (qx, qy) t + (ax, ay) t^2.

    Returns (qx, qy, ax, ay). Zero for balls that do not translate.
    """
    if motion == SLIDING:
        R = prm[P_R]
        ux = vx - R * wy
        uy = vy + R * wx
        un = math.sqrt(ux * ux + uy * uy)
        if un > 0.0:
            c = -0.5 * prm[P_US] * prm[P_G] / un
            return vx, vy, c * ux, c * uy
        vn = math.sqrt(vx * vx + vy * vy)
        if vn > 0.0:
            c = -0.5 * prm[P_US] * prm[P_G] / vn
            return vx, vy, c * vx, c * vy
        return 0.0, 0.0, 0.0, 0.0
    if motion == ROLLING:
        vn = math.sqrt(vx * vx + vy * vy)
        if vn > 0.0:
            c = -0.5 * prm[P_UR] * prm[P_G] / vn
            return vx, vy, c * vx, c * vy
        return 0.0, 0.0, 0.0, 0.0
    return 0.0, 0.0, 0.0, 0.0


@nb.njit(cache=True, error_model="numpy")
def transition_time(vx, vy, wx, wy, wz, motion, prm):
    """Duration [s] of the current motion state (inf for stationary/pocketed)."""
    R = prm[P_R]
    g = prm[P_G]
    if motion == SLIDING:
        ux = vx - R * wy
        uy = vy + R * wx
        return 2.0 * math.sqrt(ux * ux + uy * uy) / (7.0 * prm[P_US] * g)
    if motion == ROLLING:
        return math.sqrt(vx * vx + vy * vy) / (prm[P_UR] * g)
    if motion == SPINNING:
        return 2.0 * R * abs(wz) / (5.0 * prm[P_USP] * g)
    return INF


@nb.njit(cache=True, error_model="numpy")
def next_motion(vx, vy, wz, motion):
    """Motion state entered at the end of the current one (state already evolved to then)."""
    if motion == SLIDING:
        return ROLLING
    if motion == ROLLING:
        return SPINNING if abs(wz) >= EPS else STATIONARY
    return STATIONARY


@nb.njit(cache=True, error_model="numpy")
def enter_state(vx, vy, wx, wy, wz, motion, prm):
    """Clean up a state on entry, as pooltool does (rolling: w_xy from v; spinning: v = w_xy = 0;
    stationary: all zero). Returns (vx, vy, wx, wy, wz)."""
    if motion == ROLLING:
        R = prm[P_R]
        return vx, vy, -vy / R, vx / R, wz
    if motion == SPINNING:
        return 0.0, 0.0, 0.0, 0.0, wz
    if motion == STATIONARY or motion == POCKETED:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    return vx, vy, wx, wy, wz


@nb.njit(cache=True, error_model="numpy")
def classify(vx, vy, wx, wy, wz, prm):
    """Motion state of a free ball from its velocity and spin (used for user-given v, w)."""
    R = prm[P_R]
    ux = vx - R * wy
    uy = vy + R * wx
    if ux * ux + uy * uy > EPS * EPS:
        return SLIDING
    if vx * vx + vy * vy > EPS * EPS:
        return ROLLING
    if abs(wz) >= EPS:
        return SPINNING
    return STATIONARY


@nb.njit(cache=True, error_model="numpy")
def classify_array(vw, R):
    """:func:`classify` of every ball: (T, B) int32 motion-state codes of the balls whose
    ``vw`` (T, B, 5) float64 holds vx, vy [m/s], wx, wy, wz [rad/s]; ``R`` the ball radius
    [m] (the one parameter :func:`classify` reads)."""
    prm = np.zeros(N_PARAMS)
    prm[P_R] = R
    T, B = vw.shape[0], vw.shape[1]
    out = np.empty((T, B), np.int32)
    for t in range(T):
        for b in range(B):
            out[t, b] = classify(vw[t, b, 0], vw[t, b, 1], vw[t, b, 2], vw[t, b, 3],
                                 vw[t, b, 4], prm)
    return out
