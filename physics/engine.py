"""The batched event loop: resolution and logging for T tables in one compiled call.

Structure (per table, inside ``prange``):

1. Predict (predict.py), for every ball, its next motion transition, its earliest event
   against a fixed object (pocket, straight cushion, jaw/post circle, standing pin) and, for
   every ball pair, their next contact. Predictions are cached as absolute times and recomputed
   only for the balls an event changed (pooltool recomputes everything in Python; we cannot
   afford that).
2. Take the soonest event (a scan in the loop). Ties follow a fixed priority (the scan order):
   transitions, then ball-object events (pocket before cushion before post/jaw before pin,
   lower index first), then chained pin falls, then ball-ball pairs (lower indices first).
3. Resolve it (inline in ``simulate_table``'s loop, one branch per kind of event: see the
   comment there), log the agents' state after it, and repeat until every ball is at rest or
   pocketed and no pin is still due to fall (K-P6), or ``max_events`` / ``t_max`` is reached,
   which is flagged in ``overflow``. The loop is bounded: a shot always terminates.

Balls are stored lazily: each keeps its state at the time of its own last event, and is
evolved in closed form when needed. Event times are exact polynomial roots (roots.py).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_PIN,
    EV_BALL_POCKET,
    EV_BALL_POST,
    EV_PIN_PIN,
    EV_TRANSITION,
    POCKETED,
    ROLLING,
    SLIDING,
    TOUCH_POOLTOOL,
)
from .kiss import KISS, _keep_clear, _kiss_circle, _kiss_line, _kiss_pair, _unstick_resting
from .motion import (
    INF,
    N_PARAMS,
    P_CUE_M,
    P_EB,
    P_EC,
    P_EPIN,
    P_EPIN_POST,
    P_FC,
    P_G,
    P_H,
    P_KISS,
    P_M,
    P_ME,
    P_MPIN,
    P_OVERLAP_NOW,
    P_PIN_DELAY,
    P_PIN_LEN,
    P_PIN_V,
    P_R,
    P_RPIN,
    P_UR,
    P_US,
    P_USP,
    classify,
    enter_state,
    evolve,
    next_motion,
    transition_time,
)
from .predict import (
    OBJ_CIRCLE,
    OBJ_LINE,
    OBJ_PIN,
    OBJ_POCKET,
    _pair_time,
    _predict_objects,
    _refresh_ball,
)
from .resolve import ball_ball, ball_pin, cushion, strike

# next-event kinds in the main loop
K_TRANSITION = 0
K_OBJECT = 1
K_PIN_FALL = 2
K_BALL_BALL = 3

#: Separation speed [m/s] below which two balls moving together after their collision are
#: separated (:func:`_separate`), and the fraction of the chaser's speed pooltool moves.
SEPARATION_SPEED = 0.01
THEFT_FRACTION = 0.1


def pack_params(params, cushion_height: float, pin_radius: float, pin_height: float,
                kiss: float = KISS) -> np.ndarray:
    """The one boundary where a :class:`~cuegym.configs.PhysicsParams` becomes a kernel array."""
    prm = np.zeros(N_PARAMS, dtype=np.float64)
    prm[P_R] = params.R
    prm[P_M] = params.m
    prm[P_US] = params.u_s
    prm[P_UR] = params.u_r
    prm[P_USP] = params.u_sp
    prm[P_EB] = params.e_b
    prm[P_EC] = params.e_c
    prm[P_FC] = params.f_c
    prm[P_G] = params.g
    prm[P_H] = cushion_height
    prm[P_CUE_M] = params.M
    prm[P_ME] = params.m_e
    prm[P_MPIN] = params.m_pin
    prm[P_EPIN] = params.e_pin
    prm[P_PIN_V] = params.pin_topple_speed
    prm[P_PIN_DELAY] = params.pin_chain_delay
    prm[P_EPIN_POST] = params.e_pin_post
    prm[P_RPIN] = pin_radius
    prm[P_PIN_LEN] = pin_height
    prm[P_KISS] = kiss
    return prm


# ---------------------------------------------------------------------------------------------
# the per-table event loop
#
# ``simulate_table`` is one long function on purpose: its set-up, the next-event scan and the
# four kinds of event stay inline. Handlers split out per kind were measured 17-30 % slower per
# event (they need some thirty arrays each, and numba either passes them on every call or,
# bundled in tuples, counts a reference per array); even the set-up and the scan as
# ``inline="always"`` functions cost 2-3 % per event at 2-6 balls.
# ---------------------------------------------------------------------------------------------


@nb.njit(cache=True, error_model="numpy", inline="always")
def _remove(act, nact, a):
    """Drop ball a from the ascending list act[:nact]; returns the new length."""
    k = 0
    for jj in range(nact):
        if act[jj] != a:
            act[k] = act[jj]
            k += 1
    return k


@nb.njit(cache=True, error_model="numpy")
def _advance(i, tnow, st, mo, t0, prm):
    """Evolve ball i's stored state to tnow (within its motion state) in place."""
    x, y, vx, vy, wx, wy, wz = evolve(st[i, 0], st[i, 1], st[i, 2], st[i, 3], st[i, 4], st[i, 5],
                                      st[i, 6], mo[i], tnow - t0[i], prm)
    st[i, 0] = x
    st[i, 1] = y
    st[i, 2] = vx
    st[i, 3] = vy
    st[i, 4] = wx
    st[i, 5] = wy
    st[i, 6] = wz
    t0[i] = tnow


@nb.njit(cache=True, error_model="numpy")
def _set_vw(i, st, vx, vy, wx, wy, wz):
    st[i, 2] = vx
    st[i, 3] = vy
    st[i, 4] = wx
    st[i, 5] = wy
    st[i, 6] = wz


@nb.njit(cache=True, error_model="numpy")
def _log(k, ev_type, ev_time, ev_i, ev_j, ev_state, ev_motion, typ, t, a, b, st, mo, ball_b):
    """Write event k: its type, time, agents a and b and (for balls) their state after it."""
    ev_type[k] = typ
    ev_time[k] = t
    ev_i[k] = a
    ev_j[k] = b
    for c in range(7):
        ev_state[k, 0, c] = st[a, c] if a >= 0 else 0.0
        ev_state[k, 1, c] = st[b, c] if ball_b else 0.0
    ev_motion[k, 0] = mo[a] if a >= 0 else -1
    ev_motion[k, 1] = mo[b] if ball_b else -1


@nb.njit(cache=True, error_model="numpy")
def _topple(p, tnow, dx, dy, mask, src, up, p_mask, p_time, p_dir, p_sched, p_src, p_smask,
            pin_spots, prm):
    """Pin p falls now along (dx, dy); schedule the pins its sweep reaches (K-P2, K-P3)."""
    up[p] = False
    p_mask[p] = mask
    p_time[p] = tnow
    p_dir[p, 0] = dx
    p_dir[p, 1] = dy
    p_sched[p] = INF
    L = prm[P_PIN_LEN]
    reach = 2.0 * prm[P_RPIN]
    sx = pin_spots[p, 0]
    sy = pin_spots[p, 1]
    for q in range(pin_spots.shape[0]):
        if q == p or not up[q]:
            continue
        rx = pin_spots[q, 0] - sx
        ry = pin_spots[q, 1] - sy
        s = rx * dx + ry * dy
        s = min(max(s, 0.0), L)
        ex = rx - s * dx
        ey = ry - s * dy
        if ex * ex + ey * ey <= reach * reach * (1.0 + 1e-12):
            tq = tnow + prm[P_PIN_DELAY]
            if tq < p_sched[q]:
                p_sched[q] = tq
                p_src[q] = p
                p_smask[q] = mask
            elif tq == p_sched[q]:
                p_smask[q] |= mask  # simultaneous chains: the pin belongs to both (K-P3)


@nb.njit(cache=True, error_model="numpy")
def _join_topple(p, a, tnow, p_mask, p_sched, p_src, p_smask, prm):
    """Ball a toppled pin p at the very instant another ball did (K-P3: both whites at once,
    the pin is both's; with the red it is the red's, which the referee reads from the bits):
    a's bit joins the pin's and that of the chains the pin started at ``tnow``."""
    bit = np.int64(1) << a
    p_mask[p] |= bit
    tq = tnow + prm[P_PIN_DELAY]
    for q in range(p_sched.shape[0]):
        if p_src[q] == p and p_sched[q] == tq:
            p_smask[q] |= bit


@nb.njit(cache=True, error_model="numpy")
def alloc_scratch(B, P):
    """Working arrays of one table's event loop (reused across the tables of a chunk)."""
    fs = np.empty((4 + B, max(B, P)))
    ints = np.empty((6, max(B, P)), dtype=np.int64)
    return fs, ints


@nb.njit(cache=True, error_model="numpy", inline="always")
def _separate(st, a, b, nx, ny, model):
    """Two balls moving together along their line of centres n (from a to b) would otherwise
    collide again and again (inelastic collapse). pooltool's "continually touching" fix, when
    both move with headings within about 26 degrees (cos > 0.9) and |separation speed| is
    below 0.01 m/s: ``model`` TOUCH_POOLTOOL, as pooltool 0.6 does it (ball a is its ball1, the
    earlier of the pair): the chased ball (the smaller speed along n) takes 10 % of the
    chaser's speed along n from it; TOUCH_BOUNDED (when the separation speed is below 0.01 m/s,
    approaching pairs included): pushed apart to 0.01 m/s, so the kinetic energy added is at
    most m (0.01 m/s)^2 / 4 (about 5 microjoules). Momentum is conserved by both."""
    s1 = st[a, 2] * nx + st[a, 3] * ny
    s2 = st[b, 2] * nx + st[b, 3] * ny
    va = math.sqrt(st[a, 2] ** 2 + st[a, 3] ** 2)
    vb = math.sqrt(st[b, 2] ** 2 + st[b, 3] ** 2)
    if not (va > 0.0 and vb > 0.0):
        return
    if model == TOUCH_POOLTOOL:
        if abs(s2 - s1) >= SEPARATION_SPEED:
            return
    elif s2 - s1 >= SEPARATION_SPEED:
        return
    cosang = (st[a, 2] * st[b, 2] + st[a, 3] * st[b, 3]) / (va * vb)
    if cosang <= 0.9:
        return
    if model == TOUCH_POOLTOOL:
        # the sign follows pooltool: the chaser's speed along n, whichever way it points
        dv = THEFT_FRACTION * s1 if s1 > s2 else -THEFT_FRACTION * s2
    else:
        dv = 0.5 * (SEPARATION_SPEED - (s2 - s1))
    st[a, 2] -= dv * nx
    st[a, 3] -= dv * ny
    st[b, 2] += dv * nx
    st[b, 3] += dv * ny


@nb.njit(cache=True, error_model="numpy")
def simulate_table(st, mo, pk, up, lines, circles, circle_kind, pockets, pin_spots, prm, models,
                   t_max, p_mask, p_time, p_dir, ev_type, ev_time, ev_i, ev_j, ev_state,
                   ev_motion, fs, ints):
    """Simulate one table until rest, ``t_max`` or a full log. Writes st/mo/pk/up and the log in
    place; ``fs``/``ints`` are scratch from :func:`alloc_scratch`. Returns
    (n_events, t_end, overflow): overflow 1 when the log filled up, 2 when ``t_max`` came
    first."""
    B = st.shape[0]
    P = pin_spots.shape[0]
    K = ev_type.shape[0]
    NL = lines.shape[0]
    R = prm[P_R]
    delta = prm[P_KISS]
    bb_model = models[0]
    c_model = models[1]
    touch_model = models[2]
    if touch_model == TOUCH_POOLTOOL:  # overlapping pairs fire now, as pooltool fires them
        prm = prm.copy()
        prm[P_OVERLAP_NOW] = 1.0
    # cached predictions (predict.py): per ball, the time of its stored state, of its next
    # transition and of its next object event (which object), and per pair their next contact
    t0 = fs[0, :B]
    ttr = fs[1, :B]
    ob_t = fs[2, :B]
    tbb = fs[4:4 + B, :B]
    ob_kind = ints[0, :B]
    ob_idx = ints[1, :B]
    act = ints[4, :B]  # balls on the table, ascending (absent and pocketed balls take no part)
    # per ball, the last event it took part in (0: none). Of pairs due at the very same time
    # the one predicted longest ago goes first, as in pooltool, whose cache drops the pairs of
    # each event's balls and appends them again in pair order: a pair was last predicted at
    # the later of its balls' last events, and among pairs of one event the scan below meets
    # them in pair order (overlapping pairs fired at once tie in a frozen rack). Only an
    # event's own balls count, as in pooltool: the re-predictions it has no counterpart of (a
    # resting ball pushed aside, the balls around a falling pin) leave the order as it was.
    last_ev = ints[5, :B]
    # pins due to fall in a chain: when, pushed by which pin, belonging to which balls (K-P3)
    p_sched = fs[3, :P]
    p_src = ints[2, :P]
    p_smask = ints[3, :P]
    t0[:] = 0.0
    ttr[:] = INF
    ob_t[:] = INF
    p_sched[:] = INF
    tbb[:, :] = INF
    ob_kind[:] = -1
    ob_idx[:] = -1
    p_src[:] = -1
    p_smask[:] = 0
    for p in range(P):
        p_mask[p] = 0
        p_time[p] = INF
        p_dir[p, 0] = 0.0
        p_dir[p, 1] = 0.0
    nact = 0
    for i in range(B):
        if mo[i] != POCKETED:
            act[nact] = i
            nact += 1
    # Initial predictions: every ball's transition and object event first, then each pair once
    # (a pair's horizon needs both balls' times), evaluated as ``_pair_time(j, i)``, j > i.
    for ii in range(nact):
        i = act[ii]
        ttr[i] = t0[i] + transition_time(st[i, 2], st[i, 3], st[i, 4], st[i, 5], st[i, 6], mo[i],
                                         prm)
        _predict_objects(i, st, mo, t0, ttr, lines, circles, pockets, pin_spots, up, prm, ob_t,
                         ob_kind, ob_idx)
    for jj in range(nact):
        j = act[jj]
        for ii in range(jj):
            i = act[ii]
            tbb[i, j] = _pair_time(j, i, 0.0, st, mo, t0, ttr, ob_t, prm)
    last_ev[:] = 0
    n = 0
    tnow = 0.0
    overflow = 0
    kind = -1
    a = -1
    b = -1
    k_ev = 0
    while True:
        k_ev += 1
        if a >= 0 and kind != K_PIN_FALL:  # the last event's balls' pairs were predicted anew
            last_ev[a] = k_ev
            if b >= 0:
                last_ev[b] = k_ev
        tmin = INF
        kind = -1
        a = -1
        b = -1
        for ii in range(nact):
            i = act[ii]
            if ttr[i] < tmin:
                tmin = ttr[i]
                kind = K_TRANSITION
                a = i
        for ii in range(nact):
            i = act[ii]
            if ob_t[i] < tmin:
                tmin = ob_t[i]
                kind = K_OBJECT
                a = i
        for p in range(P):
            if p_sched[p] < tmin:
                tmin = p_sched[p]
                kind = K_PIN_FALL
                a = p
        for ii in range(nact):
            i = act[ii]
            for jj in range(ii + 1, nact):
                j = act[jj]
                if tbb[i, j] < tmin or (kind == K_BALL_BALL and tbb[i, j] == tmin and
                                        max(last_ev[i], last_ev[j]) < max(last_ev[a],
                                                                          last_ev[b])):
                    tmin = tbb[i, j]
                    kind = K_BALL_BALL
                    a = i
                    b = j
        if kind < 0:
            break
        if tmin > t_max:
            overflow = 2
            tnow = t_max
            break
        if n >= K:
            overflow = 1
            break
        tnow = tmin
        if kind == K_TRANSITION:
            _advance(a, tnow, st, mo, t0, prm)
            m_new = next_motion(st[a, 2], st[a, 3], st[a, 6], mo[a])
            vx, vy, wx, wy, wz = enter_state(st[a, 2], st[a, 3], st[a, 4], st[a, 5], st[a, 6],
                                             m_new, prm)
            _set_vw(a, st, vx, vy, wx, wy, wz)
            pushed = np.int64(0)
            if mo[a] == ROLLING and m_new != ROLLING:
                pushed = _unstick_resting(a, st, mo, R, delta, lines, circles, pin_spots, up,
                                          prm)
            mo[a] = m_new
            _refresh_ball(a, tnow, st, mo, t0, ttr, tbb, lines, circles, pockets, pin_spots, up,
                          prm, ob_t, ob_kind, ob_idx, act, nact, -1)
            _log(n, ev_type, ev_time, ev_i, ev_j, ev_state, ev_motion, EV_TRANSITION, tnow, a,
                 m_new, st, mo, False)
            n += 1
            if pushed != 0:
                # resting balls moved to make room for ball a (kiss._relax_resting): each logs
                # its new position in a transition event without change of motion state, so
                # that the path query agrees; a log too short for them cuts the shot short
                for k in range(B):
                    if (pushed >> k) & 1:
                        if n >= K:
                            overflow = 1
                            break
                        _advance(k, tnow, st, mo, t0, prm)
                        _refresh_ball(k, tnow, st, mo, t0, ttr, tbb, lines, circles, pockets,
                                      pin_spots, up, prm, ob_t, ob_kind, ob_idx, act, nact, -1)
                        _log(n, ev_type, ev_time, ev_i, ev_j, ev_state, ev_motion,
                             EV_TRANSITION, tnow, k, mo[k], st, mo, False)
                        n += 1
                if overflow:
                    break
        elif kind == K_BALL_BALL:
            _advance(a, tnow, st, mo, t0, prm)
            _advance(b, tnow, st, mo, t0, prm)
            _kiss_pair(st, a, b, delta, R, lines, circles, pin_spots, up, prm)
            dx = st[b, 0] - st[a, 0]
            dy = st[b, 1] - st[a, 1]
            d = math.sqrt(dx * dx + dy * dy)
            nx = dx / d
            ny = dy / d
            r = ball_ball(st[a, 2], st[a, 3], st[a, 4], st[a, 5], st[a, 6], st[b, 2], st[b, 3],
                          st[b, 4], st[b, 5], st[b, 6], nx, ny, bb_model, prm)
            _set_vw(a, st, r[0], r[1], r[2], r[3], r[4])
            _set_vw(b, st, r[5], r[6], r[7], r[8], r[9])
            _separate(st, a, b, nx, ny, touch_model)
            mo[a] = SLIDING
            mo[b] = SLIDING
            _refresh_ball(a, tnow, st, mo, t0, ttr, tbb, lines, circles, pockets, pin_spots, up,
                          prm, ob_t, ob_kind, ob_idx, act, nact, b)
            _refresh_ball(b, tnow, st, mo, t0, ttr, tbb, lines, circles, pockets, pin_spots, up,
                          prm, ob_t, ob_kind, ob_idx, act, nact, -1)
            _log(n, ev_type, ev_time, ev_i, ev_j, ev_state, ev_motion, EV_BALL_BALL, tnow, a, b,
                 st, mo, True)
            n += 1
        elif kind == K_PIN_FALL:
            p = a
            src = p_src[p]
            if up[p]:
                dx = pin_spots[p, 0] - pin_spots[src, 0]
                dy = pin_spots[p, 1] - pin_spots[src, 1]
                d = math.sqrt(dx * dx + dy * dy)
                _topple(p, tnow, dx / d, dy / d, p_smask[p], src, up, p_mask, p_time, p_dir,
                        p_sched, p_src, p_smask, pin_spots, prm)
                for i in range(B):
                    if ob_kind[i] == OBJ_PIN and ob_idx[i] == p:
                        _refresh_ball(i, tnow, st, mo, t0, ttr, tbb, lines, circles, pockets,
                                      pin_spots, up, prm, ob_t, ob_kind, ob_idx, act, nact, -1)
                ev_type[n] = EV_PIN_PIN
                ev_time[n] = tnow
                ev_i[n] = src
                ev_j[n] = p
                for c in range(7):
                    ev_state[n, 0, c] = 0.0
                    ev_state[n, 1, c] = 0.0
                ev_motion[n, 0] = -1
                ev_motion[n, 1] = -1
                n += 1
            p_sched[p] = INF
        else:
            okind = ob_kind[a]
            oi = ob_idx[a]
            _advance(a, tnow, st, mo, t0, prm)
            if okind == OBJ_POCKET:
                mo[a] = POCKETED
                pk[a] = oi
                _set_vw(a, st, 0.0, 0.0, 0.0, 0.0, 0.0)
                _refresh_ball(a, tnow, st, mo, t0, ttr, tbb, lines, circles, pockets, pin_spots,
                              up, prm, ob_t, ob_kind, ob_idx, act, nact, -1)
                nact = _remove(act, nact, a)
                _log(n, ev_type, ev_time, ev_i, ev_j, ev_state, ev_motion, EV_BALL_POCKET, tnow,
                     a, oi, st, mo, False)
                n += 1
                # the event keeps where its centre crossed the capture circle (where it dropped,
                # which the rules read); the ball lies at the pocket's centre from now on, as
                # pooltool puts it
                st[a, 0] = pockets[oi, 0]
                st[a, 1] = pockets[oi, 1]
                continue
            typ = EV_BALL_CUSHION
            j_log = oi
            if okind == OBJ_LINE:
                ln = lines[oi]
                _kiss_line(st, a, ln, delta, R)
                _keep_clear(st, a, delta, R, lines, circles, pin_spots, up, prm)
                r = cushion(st[a, 2], st[a, 3], st[a, 4], st[a, 5], st[a, 6], -ln[4], -ln[5],
                            prm[P_EC], prm[P_FC], prm[P_H], c_model, prm)
            elif okind == OBJ_CIRCLE:
                cx = circles[oi, 0]
                cy = circles[oi, 1]
                _kiss_circle(st, a, cx, cy, circles[oi, 2] + R, delta)
                _keep_clear(st, a, delta, R, lines, circles, pin_spots, up, prm)
                dx = cx - st[a, 0]
                dy = cy - st[a, 1]
                d = math.sqrt(dx * dx + dy * dy)
                r = cushion(st[a, 2], st[a, 3], st[a, 4], st[a, 5], st[a, 6], dx / d, dy / d,
                            circles[oi, 3], circles[oi, 4], circles[oi, 5], c_model, prm)
                if circle_kind[oi] == 0:
                    j_log = NL + oi
                else:
                    typ = EV_BALL_POST
            else:
                typ = EV_BALL_PIN
                dx = pin_spots[oi, 0] - st[a, 0]
                dy = pin_spots[oi, 1] - st[a, 1]
                d = math.sqrt(dx * dx + dy * dy)
                nx = dx / d
                ny = dy / d
                vx, vy, toppled = ball_pin(st[a, 2], st[a, 3], st[a, 4], st[a, 5], st[a, 6],
                                           nx, ny, prm[P_PIN_V], prm)
                r = (vx, vy, st[a, 4], st[a, 5], st[a, 6])
                if toppled and not up[oi]:  # another ball toppled it at this very instant
                    _join_topple(oi, a, tnow, p_mask, p_sched, p_src, p_smask, prm)
                elif toppled:
                    _topple(oi, tnow, nx, ny, np.int64(1) << a, -1, up, p_mask, p_time, p_dir,
                            p_sched, p_src, p_smask, pin_spots, prm)
                    for i in range(B):
                        # a contact with this pin due at this same instant stays: that ball
                        # topples it as well (K-P3); later ones now pass where it stood
                        if (i != a and ob_kind[i] == OBJ_PIN and ob_idx[i] == oi
                                and ob_t[i] > tnow):
                            _refresh_ball(i, tnow, st, mo, t0, ttr, tbb, lines, circles,
                                          pockets, pin_spots, up, prm, ob_t, ob_kind, ob_idx, act,
                                          nact, -1)
            _set_vw(a, st, r[0], r[1], r[2], r[3], r[4])
            mo[a] = SLIDING
            _refresh_ball(a, tnow, st, mo, t0, ttr, tbb, lines, circles, pockets, pin_spots, up,
                          prm, ob_t, ob_kind, ob_idx, act, nact, -1)
            _log(n, ev_type, ev_time, ev_i, ev_j, ev_state, ev_motion, typ, tnow, a, j_log, st,
                 mo, False)
            n += 1
    # bring every ball to the end time (only moves balls when the shot was cut short)
    for i in range(B):
        if mo[i] != POCKETED:
            _advance(i, tnow, st, mo, t0, prm)
    return n, tnow, overflow


@nb.njit(cache=True, error_model="numpy", parallel=True)
def simulate_batch(st, mo, pk, up, lines, circles, circle_kind, pockets, pin_spots, prm, models,
                   t_max, p_mask, p_time, p_dir, ev_type, ev_time, ev_i, ev_j, ev_state,
                   ev_motion, n_events, t_end, overflow, n_chunks):
    """Simulate T tables in parallel (``prange`` over ``n_chunks`` chunks of the leading axis;
    each chunk reuses one scratch allocation). All arrays carry the table axis first except the
    shared geometry (lines, circles, circle_kind, pockets, pin_spots), ``prm`` and ``models``.
    Writes every per-table array in place."""
    T = st.shape[0]
    n_chunks = max(1, min(T, n_chunks))
    for c in nb.prange(n_chunks):
        fs, ints = alloc_scratch(st.shape[1], pin_spots.shape[0])
        for t in range(c * T // n_chunks, (c + 1) * T // n_chunks):
            n, te, of = simulate_table(st[t], mo[t], pk[t], up[t], lines, circles, circle_kind,
                                       pockets, pin_spots, prm, models, t_max, p_mask[t],
                                       p_time[t], p_dir[t], ev_type[t], ev_time[t], ev_i[t],
                                       ev_j[t], ev_state[t], ev_motion[t], fs, ints)
            n_events[t] = n
            t_end[t] = te
            overflow[t] = of


@nb.njit(cache=True, error_model="numpy")
def prepare_batch(st, mo, present, cue_ball, cue, squirt, prm, motion0):
    """Apply the cue strike(s) and set the starting motion states, for every table.

    Args:
        st: (T, B, 7) x, y, vx, vy, wx, wy, wz; velocities may be preset (user-given v, w).
        mo: (T, B) int32, written. present: (T, B) bool.
        cue_ball: (T, S) struck ball per slot (-1 none). cue: (T, S, 5) V0 [m/s],
            phi [deg], theta [deg], a, b. squirt: 1.0 to apply squirt.
        motion0: (T, B) int32 given start states (-1: the default below), or a (0, 0) array
            when none is given. Checked by the caller (``checks.motion_problem``: never for a
            struck or absent ball, always agreeing with v, w).
    By default a moving ball starts sliding, as after any strike or collision (pooltool does
    the same); a ball that only spins starts spinning. A given state is entered as a transition
    enters it (``enter_state``: rolling sets w_xy from v, spinning v = w_xy = 0, stationary all
    zero). Struck balls always start sliding.
    """
    T, B = mo.shape
    S = cue_ball.shape[1]
    given = motion0.shape[0] == T and motion0.shape[1] == B
    for t in range(T):
        for s in range(S):
            b = cue_ball[t, s]
            if b >= 0:
                vx, vy, wx, wy, wz = strike(cue[t, s, 0], math.radians(cue[t, s, 1]),
                                            math.radians(cue[t, s, 2]), cue[t, s, 3],
                                            cue[t, s, 4], squirt, prm)
                _set_vw(b, st[t], vx, vy, wx, wy, wz)
        for b in range(B):
            if not present[t, b]:
                for c in range(2, 7):
                    st[t, b, c] = 0.0
                mo[t, b] = POCKETED
                continue
            if given and motion0[t, b] >= 0:
                m = motion0[t, b]
                vx, vy, wx, wy, wz = enter_state(st[t, b, 2], st[t, b, 3], st[t, b, 4],
                                                 st[t, b, 5], st[t, b, 6], m, prm)
                _set_vw(b, st[t], vx, vy, wx, wy, wz)
                mo[t, b] = m
                continue
            m = classify(st[t, b, 2], st[t, b, 3], st[t, b, 4], st[t, b, 5], st[t, b, 6], prm)
            if m == ROLLING or (m == SLIDING):
                m = SLIDING
            mo[t, b] = m
        for s in range(S):
            b = cue_ball[t, s]
            if b >= 0:
                mo[t, b] = SLIDING


@nb.njit(cache=True, error_model="numpy")
def simulate_serial(st, mo, pk, up, lines, circles, circle_kind, pockets, pin_spots, prm, models,
                    t_max, p_mask, p_time, p_dir, ev_type, ev_time, ev_i, ev_j, ev_state,
                    ev_motion, n_events, t_end, overflow):
    """Same as :func:`simulate_batch` on the calling thread (no thread-pool start-up cost: the
    better choice for small batches)."""
    fs, ints = alloc_scratch(st.shape[1], pin_spots.shape[0])
    for t in range(st.shape[0]):
        n, te, of = simulate_table(st[t], mo[t], pk[t], up[t], lines, circles, circle_kind,
                                   pockets, pin_spots, prm, models, t_max, p_mask[t], p_time[t],
                                   p_dir[t], ev_type[t], ev_time[t], ev_i[t], ev_j[t],
                                   ev_state[t], ev_motion[t], fs, ints)
        n_events[t] = n
        t_end[t] = te
        overflow[t] = of
