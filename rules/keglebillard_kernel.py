"""The keglebillard referee's scoring, compiled: one numba kernel over the table axis.

:func:`cuegym.rules.keglebillard.score_shots` validates its input (the event log, the injected
events) and calls :func:`score_kernel`, which walks each table's events once or twice and writes
the :class:`~cuegym.rules.keglebillard.ShotScores` arrays. Rule ids cite
docs/rules_keglebillard.md; balls red = 0, white = 1, spotted = 2; pins king = 0, pin1..pin4.
Times are only compared, never combined, so the results are exact.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_PIN,
    EV_PIN_PIN,
    POCKETED,
)

#: Columns of the fouls array (``cuegym.rules.keglebillard.FOUL_COLUMNS`` in this order).
F_K10, F_K10_CBP, F_K11, F_K12, F_K13, F_K14, F_K14A, F_K15, F_K16 = range(9)
N_FOULS = 9
_RED, _WHITE, _SPOTTED = 0, 1, 2
_GEOM_TOL = 1e-9  # as cuegym.rules.keglebillard.GEOM_TOL


@njit(cache=True)
def _root_times(ev_type, ev_i, ev_j, n, topple_time, out):
    """(5,) topple time of the pin that started each pin's chain (K-P2, K-P3): a pin's parent is
    the falling pin of its first ``pin_pin`` event."""
    P = topple_time.shape[0]
    parent = np.arange(P)
    seen = np.zeros(P, np.bool_)
    for k in range(n):
        if ev_type[k] == EV_PIN_PIN:
            q = ev_j[k]
            if not seen[q]:
                seen[q] = True
                parent[q] = ev_i[k]
    for p in range(P):
        r = p
        for _ in range(P):
            r = parent[r]
        out[p] = topple_time[r]


@njit(cache=True)
def _cushioned_times(ev_type, ev_time, ev_i, ev_j, n, cush):
    """(3,) when each ball first counts as "cushioned" for the K-10 option: it touched a
    cushion, or was hit by a ball that itself had touched one (one step, as the rule says: a
    ball cushioned only by a hit passes nothing on; a contact counts both ways)."""
    own = np.full(3, np.inf)  # each ball's own first cushion
    for k in range(n):
        if ev_type[k] == EV_BALL_CUSHION:
            i = min(max(ev_i[k], 0), 2)
            own[i] = min(own[i], ev_time[k])
    cush[:] = own
    for k in range(n):
        if ev_type[k] == EV_BALL_BALL:
            tk = ev_time[k]
            i = min(max(ev_i[k], 0), 2)
            j = min(max(ev_j[k], 0), 2)
            if own[j] <= tk:
                cush[i] = min(cush[i], tk)
            if own[i] <= tk:
                cush[j] = min(cush[j], tk)


@njit(cache=True)
def _clean16(ev_type, ev_time, ev_i, ev_j, n, w):
    """K-7: white ``w`` toppled the pins in one clean run: between its first and last pin
    contact no cushion or ball contact of ``w`` and no other ball's pin contact."""
    tf, tl = np.inf, -np.inf
    for k in range(n):
        if ev_type[k] == EV_BALL_PIN and ev_i[k] == w:
            tf = min(tf, ev_time[k])
            tl = max(tl, ev_time[k])
    if not math.isfinite(tf):
        return False
    for k in range(n):
        tm = ev_time[k]
        if tm < tf or tm > tl:
            continue
        ty = ev_type[k]
        if ty == EV_BALL_CUSHION and ev_i[k] == w:
            return False
        if ty == EV_BALL_BALL and (ev_i[k] == w or ev_j[k] == w):
            return False
        if ty == EV_BALL_PIN and ev_i[k] != w:
            return False
    return True


@njit(cache=True)
def _contacts(et, tmv, ei, ej, n):
    """K-8 and K-11 facts of one log: (red touched the white, red touched the spotted ball,
    time of the first red-white contact, of the red's first cushion, any cushion at all, blegt:
    the whites touched after the red met one)."""
    t_rw = np.inf
    t_rc = np.inf
    rw1 = rw2 = cush_any = False
    for k in range(n):
        ty = et[k]
        if ty == EV_BALL_BALL:
            lo, hi = min(ei[k], ej[k]), max(ei[k], ej[k])
            if lo == _RED and hi == _WHITE:
                rw1 = True
                t_rw = min(t_rw, tmv[k])
            elif lo == _RED and hi == _SPOTTED:
                rw2 = True
                t_rw = min(t_rw, tmv[k])
        elif ty == EV_BALL_CUSHION:
            cush_any = True
            if ei[k] == _RED:
                t_rc = min(t_rc, tmv[k])
    bl = False
    for k in range(n):
        if et[k] == EV_BALL_BALL and min(ei[k], ej[k]) == _WHITE and \
                max(ei[k], ej[k]) == _SPOTTED and tmv[k] >= t_rw:
            bl = True
            break
    return rw1, rw2, t_rw, t_rc, cush_any, bl


@njit(cache=True)
def _pins(pins_up0, pins_up, pin_toppler, inj_pins, down, toppler, inj_only):
    """Pins toppled this shot by balls (``down``, attributed ``toppler``, K-P3: the red's alone
    when the log names it among others) and by K-16
    events only (``inj_only``), written; returns (all stood at the start, all are down, number
    down by balls, number by events)."""
    all_stood = all_down = True
    n_ball = n_inj = 0
    for p in range(pins_up0.shape[0]):
        st = pins_up0[p]
        d = st and not pins_up[p]
        down[p] = d
        m = pin_toppler[p]
        # K-P3: the red and a white at the same instant (chains reaching the pin at once too,
        # which the log gives to both): the red's alone; two whites keep both
        toppler[p] = ((1 if m & 1 else m) if d else 0)
        all_stood = all_stood and st
        all_down = all_down and d
        n_ball += d
        io = inj_pins[p] and not d
        inj_only[p] = io
        n_inj += io
    return all_stood, all_down, n_ball, n_inj


@njit(cache=True)
def _pin_fouls(et, tmv, ei, ej, n, down, toppler, root_time, t_ok, cbp, cush, f):
    """K-10 option (a pin felled by a ball not yet cushioned), K-12 and K-13 (a red pin before /
    after the red met a white or, without ``frhv``, a cushion: ``t_ok``), into ``f``."""
    P = down.shape[0]
    if cbp:
        _cushioned_times(et, tmv, ei, ej, n, cush)
        for p in range(P):
            if down[p]:
                for b in range(3):
                    if (toppler[p] >> b) & 1 and cush[b] >= root_time[p]:
                        f[F_K10_CBP] = True
    for p in range(P):
        if down[p] and (toppler[p] & 1) != 0:
            if root_time[p] < t_ok:
                f[F_K12] = True
            else:
                f[F_K13] = True


@njit(cache=True)
def _balls_down(motion0, motion, pocket, off, present0, pocketed):
    """Balls on the table at the start (``present0``) and down this shot (``pocketed``:
    pocketed or off the table for good, K-14a), (3,) each, written; returns (all three were on
    the table, all three are down, number of whites down)."""
    n_whites = 0
    all_present = all_down = True
    for b in range(3):
        pr = motion0[b] != POCKETED
        pk = pr and (motion[b] == POCKETED or pocket[b] >= 0 or off[b])
        present0[b] = pr
        pocketed[b] = pk
        all_present = all_present and pr
        all_down = all_down and pk
        if b > 0:
            n_whites += pk
    return all_present, all_down, n_whites


@njit(cache=True)
def _clean16_white(et, tmv, ei, ej, n, toppler):
    """K-7 the clean 16, once all five stood and all are down: every pin toppled by one white
    (``toppler``: (5,) ball bits, K-P3), in one clean run. Returns (a clean 16, its white or
    -1)."""
    c16, c16w = False, -1
    for w in (_WHITE, _SPOTTED):
        mine = True
        for p in range(toppler.shape[0]):
            mine = mine and toppler[p] == (1 << w)
        if mine and _clean16(et, tmv, ei, ej, n, w):
            c16, c16w = True, w
    return c16, c16w


@njit(cache=True)
def _points(house, c16, king_alone, n_pins, n_whites, rd, bl):
    """K-5, K-6, K-7, K-9 points of one shot (K-9a: for every shot, legal or not) from the pins
    down by balls and events, the whites down, rødt and blegt. Returns (king alone, pin,
    white, bonus points)."""
    if house:
        pp = 16 if c16 else (6 if king_alone else 2 * n_pins)
        return king_alone, pp, 2 * n_whites, (4 if (rd or bl) else 0)
    return False, 2 * n_pins, 0, (4 if rd else 0)  # K-25: only pins (2) and rødt (4) score


@njit(cache=True)
def _ball_fouls(f, house, cush_any, red_met_white, red_down, off_any, red_over_salvo, k16):
    """The fouls that need no pin: K-10 (no cushion), K-11 (the red met no white), K-14 (the
    red down), K-14a (a ball off the table), K-15 (the red in front of the salvo line where
    it applies), K-16 (an injected event), into ``f``."""
    f[F_K10] = house and not cush_any
    f[F_K11] = not red_met_white
    f[F_K14] = red_down
    f[F_K14A] = off_any
    f[F_K15] = red_over_salvo
    f[F_K16] = k16


@njit(cache=True)
def _worst_foul(f, foul_penalty):
    """(any foul in ``f``, the highest single penalty among them: never a sum)."""
    fl = False
    pen = 0
    for c in range(N_FOULS):
        if f[c]:
            fl = True
            pen = max(pen, foul_penalty[c])
    return fl, pen


@njit(cache=True)
def score_kernel(ev_type, ev_time, ev_i, ev_j, n_events, motion0, motion, pocket, pins_up0,
                 pins_up, pin_toppler, pin_topple_time, red_x0, salvo, salvo_x, off, off_any,
                 inj_pins, k16, touche, unsporting, flags, foul_penalty,
                 points, pin_points, white_points, bonus_points, penalty, shooter_points,
                 skaeve, foul, fouls, rodt, blegt, king_alone, clean16, clean16_white,
                 legal_pin, cushion, win, ball_in_hand, bih_salvo, unsporting_out, down,
                 inj_only, toppler, present0, pocketed):
    """Score T shots (K-5..K-20; K-25 scoring). Inputs are validated arrays of the event log
    (``cuegym.rules.keglebillard.EventLog``, (T, K) events, (T, 3) balls, (T, 5) pins) and:

    Args:
        red_x0: (T,) the red's x at the start [m]. salvo: (T,) the salvo line applies (K-15).
        salvo_x: x of the salvo line [m].
        off: (T, 3) balls off the table for good (K-14a); off_any (T,): any ball left it.
        inj_pins: (T, 5) pins toppled by K-16 events; k16, touche, unsporting: (T,) injected
            K-16 events, a touché among them (double hit included), one marked unsporting.
        flags: (4,) int64: house rules (not K-25), K-10 cushion_before_pins, K-13 frhv_nakkebal,
            ball in hand behind the salvo line (ball_in_hand_area == salvo).
        foul_penalty: (9,) penalty of each foul column.
    Outputs: the :class:`~cuegym.rules.keglebillard.ShotScores` arrays of the same names
    (``down``: pins_toppled, ``inj_only``: pins_injected, ``toppler``: pin_toppler,
    ``unsporting_out``: unsporting), written for every table.

    Per table: the contacts, the pins and the balls down; the points; the fouls and the K-20
    win; then what they mean for the shooter and the opponents.
    """
    house = flags[0] != 0
    cbp = house and flags[1] != 0
    frhv = flags[2] != 0
    salvo_area = flags[3] != 0
    T = ev_type.shape[0]
    root_time = np.empty(pins_up0.shape[1])
    cush = np.empty(3)
    for t in range(T):
        n = n_events[t]
        et, tmv, ei, ej = ev_type[t], ev_time[t], ev_i[t], ev_j[t]
        # --- what the shot did: contacts, pins down (K-P3 chains), balls down ------------------
        rw1, rw2, t_rw, t_rc, cush_any, bl = _contacts(et, tmv, ei, ej, n)
        rd = rw1 and rw2  # K-8 rødt; blegt only when not rødt
        bl = bl and not rd
        rodt[t], cushion[t], blegt[t] = rd, cush_any, bl and house
        _root_times(et, ei, ej, n, pin_topple_time[t], root_time)
        all_stood, all_down, n_ball, n_inj = _pins(pins_up0[t], pins_up[t], pin_toppler[t],
                                                   inj_pins[t], down[t], toppler[t],
                                                   inj_only[t])
        all_present, all_pocketed, n_whites = _balls_down(motion0[t], motion[t], pocket[t],
                                                          off[t], present0[t], pocketed[t])
        # --- points: K-5, K-6 king alone, K-7 clean 16, K-9 ------------------------------------
        c16, c16w = False, -1
        if house and all_stood and all_down:  # tested here: a call for every table cost 10 %
            c16, c16w = _clean16_white(et, tmv, ei, ej, n, toppler[t])
        clean16[t], clean16_white[t] = c16, c16w
        ka = all_stood and down[t, 0] and n_ball == 1 and n_inj == 0
        ka, pp, wp, bp = _points(house, c16, ka, n_ball + n_inj, n_whites, rd, bl)
        pts = pp + wp + bp
        king_alone[t], pin_points[t], white_points[t], bonus_points[t] = ka, pp, wp, bp
        points[t] = pts
        # --- fouls -----------------------------------------------------------------------------
        f = fouls[t]
        f[:] = False
        _ball_fouls(f, house, cush_any, rw1 or rw2, pocketed[t, _RED], off_any[t],
                    salvo[t] and red_x0[t] > salvo_x + _GEOM_TOL, k16[t])
        t_ok = t_rw if frhv else min(t_rw, t_rc)
        _pin_fouls(et, tmv, ei, ej, n, down[t], toppler[t], root_time, t_ok, cbp, cush, f)
        # K-20: all three balls down in one shot wins, overriding physics fouls; K-16 cancels it
        w20 = house and all_present and all_pocketed and not k16[t]
        if w20:
            f[:] = False
        fl, pen = _worst_foul(f, foul_penalty)
        # --- the outcome: on a foul the points plus the penalty go across as skæve (K-9a) -----
        win[t], foul[t] = w20, fl
        penalty[t] = pen if (house and fl) else 0
        skaeve[t] = pts + pen if (house and fl) else 0
        shooter_points[t] = 0 if (fl or w20) else pts
        # K-19 ball in hand after K-10, K-14 or a touché; behind the line whenever K-14 is one
        bih = f[F_K10] or f[F_K14] or (touche[t] and not w20)
        ball_in_hand[t] = bih
        bih_salvo[t] = bih and (f[F_K14] or salvo_area)
        legal_pin[t] = not fl and not w20 and n_ball > 0
        unsporting_out[t] = unsporting[t] and not w20
