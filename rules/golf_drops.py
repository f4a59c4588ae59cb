"""Compiled golfbillard ball fates: what a stroke's event log says happened to each ball
(one table; used by the play stroke's referee in ``golf_stroke`` and the opening's in
``golf_opening``).

- drops into a goal by time (:func:`table_drops`), and the G-6a falls after a ball came to rest,
  which are no goal: the ball goes back on the rim (:func:`fall_after_rest`,
  :func:`put_back_on_rim`, :func:`rim_balls_clear`);
- balls off the table (:func:`new_off_table`, :func:`mark_off`), G-19 jams into a goal
  (:func:`jam_drop`), the balls' final places with the gone ones lifted (:func:`final_xy`,
  :func:`lift_gone`, :func:`balls_on_table`).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_POCKET,
    EV_TRANSITION,
    STATIONARY,
)

from .golf_apply import error, note
from .golf_arrays import BALLS_PER_SIDE, N_BALLS
from .golf_codes import E_INJECTED_DROPPED, I_JAM, I_OFF, I_RAIL, I_RETURN, N_FALL
from .golf_spots import nearest_free_point


@nb.njit(cache=True)
def table_drops(n, ev_type, ev_time, ev_i, ev_j, pocket, t_end, on, db, dg, dt, fell):
    """Balls on the table before the stroke that dropped, by time: (ball, goal, time) into
    db, dg, dt; returns their count (a pocket without its event drops at t_end). A drop that
    is a ball's next event after it came to rest is no goal (G-6a: a goal falls before the
    ball rests; one that falls after goes back on the rim): it is left out, and ``fell[b]``
    (N_BALLS,) is set to its event's index (-1 for every other ball)."""
    nd = 0
    seen = np.zeros(N_BALLS, np.bool_)
    for k in range(n):
        if ev_type[k] == EV_BALL_POCKET:
            b = ev_i[k]
            if on[b] and not seen[b]:
                seen[b] = True
                if _rested_before(b, k, ev_type, ev_i, ev_j) >= 0:
                    fell[b] = k
                    continue
                db[nd] = b
                dg[nd] = ev_j[k]
                dt[nd] = ev_time[k]
                nd += 1
    for b in range(N_BALLS):
        if on[b] and pocket[b] >= 0 and not seen[b]:
            db[nd] = b
            dg[nd] = pocket[b]
            dt[nd] = t_end
            nd += 1
    sort_drops(db, dg, dt, nd)
    return nd


@nb.njit(cache=True)
def injected_after_drop(t, inj_n, inj_type, inj_ball, db, nd, fell, out):
    """Refuse table t's injected events that put a ball the log dropped (``db[:nd]``, or a
    G-6a fall after rest: ``fell``) somewhere else: off the table, on the rail, back from the
    rail or jammed between caps (a drop is the ball's last event; only ``fall_after_rest``
    overrides one). Writes the error (ball, event index) to ``out``; returns False then."""
    for e in range(inj_n):
        typ = inj_type[e]
        b = inj_ball[e]
        if b < 0 or not (typ == I_OFF or typ == I_RAIL or typ == I_RETURN or typ == I_JAM):
            continue
        dropped = fell[b] >= 0
        for i in range(nd):
            dropped = dropped or db[i] == b
        if dropped:
            error(out, t, E_INJECTED_DROPPED, b, e)
            return False
    return True


@nb.njit(cache=True)
def _rested_before(b, k, ev_type, ev_i, ev_j):
    """The index of ball b's coming to rest (a transition to stationary) if that is its last
    event before event k, else -1."""
    for m in range(k - 1, -1, -1):
        if ev_i[m] == b or (ev_type[m] == EV_BALL_BALL and ev_j[m] == b):
            return m if ev_type[m] == EV_TRANSITION and ev_j[m] == STATIONARY else -1
    return -1


@nb.njit(cache=True)
def fall_after_rest(b, db, dg, dt, nd, n, ev_type, ev_i, fell):
    """An injected G-6a fall of ball b: if the log drops it, that drop is left out of db, dg,
    dt and ``fell[b]`` names its event (``n`` for a drop without one). Returns the drop
    count."""
    m = _without_drop(b, db, dg, dt, nd)
    if m < nd and fell[b] < 0:
        fell[b] = n
        for k in range(n):
            if ev_type[k] == EV_BALL_POCKET and ev_i[k] == b:
                fell[b] = k
                break
    return m


@nb.njit(cache=True)
def _without_drop(b, db, dg, dt, nd):
    """Ball b's drop left out of db, dg, dt (order kept). Returns the drop count."""
    m = 0
    for i in range(nd):
        if db[i] != b:
            db[m], dg[m], dt[m] = db[i], dg[i], dt[i]
            m += 1
    return m


#: how far outside the hole circle [m] a ball put back on the rim (G-6a) lies
RIM_CLEARANCE = 1e-9


@nb.njit(cache=True)
def put_back_on_rim(fell, n, ev_type, ev_i, ev_j, ev_state, pocket, goals, final, out, t):
    """G-6a: each ball that fell after it came to rest (``fell``, :func:`table_drops`) goes
    back on the rim of the goal it fell into, in ``final`` (N_BALLS, 2) [m]: where it lay (its
    rest event's centre), else where it dropped, else the goal's centre; a point inside the
    hole circle is moved out along the radius to its edge (:data:`RIM_CLEARANCE` outside it;
    from the centre: towards the table's middle). Each gets its note in row t of ``out``."""
    for b in range(N_BALLS):
        k = fell[b]
        if k < 0:
            continue
        note(out, t, N_FALL, b)
        g = ev_j[k] if k < n else pocket[b]
        gx, gy, r = goals[g, 0], goals[g, 1], goals[g, 2]
        r_k = _rested_before(b, k, ev_type, ev_i, ev_j) if k < n else -1
        px, py = gx, gy
        if r_k >= 0 and not math.isnan(ev_state[r_k, 0, 0]):
            px, py = ev_state[r_k, 0, 0], ev_state[r_k, 0, 1]
        elif k < n and not math.isnan(ev_state[k, 0, 0]):
            px, py = ev_state[k, 0, 0], ev_state[k, 0, 1]
        d = math.hypot(px - gx, py - gy)
        if d < r:
            ux, uy = ((px - gx) / d, (py - gy) / d) if d > 1e-12 else (-math.copysign(1.0, gx),
                                                                     0.0)
            # 1 nm outside the circle: exactly on it, rounding can leave the centre a hair
            # inside, and the physics then refuses the next stroke (ball inside the goal)
            px, py = gx + (r + RIM_CLEARANCE) * ux, gy + (r + RIM_CLEARANCE) * uy
        final[b, 0], final[b, 1] = px, py


@nb.njit(cache=True)
def rim_balls_clear(fell, final, gone, ga):
    """G-6a: a ball put back on the rim (``fell``) where another ball now lies (or whose rim
    point left the cloth) goes to the free point nearest it instead (G-30's
    :func:`~cuegym.rules.golf_spots.nearest_free_point`): the rule puts it back where it lay,
    and the next state must still be one the physics can take. ``final`` (N_BALLS, 2) [m];
    ``gone`` (N_BALLS,) bool: balls that left the table this stroke (they block nothing)."""
    for b in range(N_BALLS):
        if fell[b] < 0 or math.isnan(final[b, 0]):
            continue
        px, py = final[b, 0], final[b, 1]
        clear = abs(px) <= ga.hx and abs(py) <= ga.hy
        for o in range(N_BALLS):
            if (o != b and not gone[o] and not math.isnan(final[o, 0])
                    and math.hypot(px - final[o, 0], py - final[o, 1]) < 2 * ga.R):
                clear = False
        if clear:
            continue
        others = final.copy()
        for o in range(N_BALLS):
            if o == b or gone[o]:
                others[o, 0], others[o, 1] = np.nan, np.nan
        x, y, found = nearest_free_point(px, py, others, ga)
        if found:
            final[b, 0], final[b, 1] = x, y


@nb.njit(cache=True)
def sort_drops(db, dg, dt, nd):
    for i in range(1, nd):
        b, g, tt = db[i], dg[i], dt[i]
        j = i - 1
        while j >= 0 and dt[j] > tt:
            db[j + 1], dg[j + 1], dt[j + 1] = db[j], dg[j], dt[j]
            j -= 1
        db[j + 1], dg[j + 1], dt[j + 1] = b, g, tt


@nb.njit(cache=True)
def balls_on_table(xy):
    """(N_BALLS,) bool: the balls of ``xy`` (N_BALLS, 2) [m] on the table (not NaN); (2,) how
    many each side has there."""
    on = np.zeros(N_BALLS, np.bool_)
    cnt = np.zeros(2, np.int64)
    for b in range(N_BALLS):
        on[b] = not math.isnan(xy[b, 0])
        if on[b]:
            cnt[b // BALLS_PER_SIDE] += 1
    return on, cnt


@nb.njit(cache=True)
def new_drops():
    """Empty drop arrays of one stroke (see :func:`table_drops`): ball, goal, time [s], each
    (N_BALLS + 1,)."""
    return np.zeros(N_BALLS + 1, np.int64), np.zeros(N_BALLS + 1, np.int64), np.zeros(N_BALLS + 1)


@nb.njit(cache=True)
def new_off_table():
    """Empty arrays of the balls that left the cloth in one stroke, each (N_BALLS,): off the
    table or on the rail (bool), when [s] (inf), order of mention; jammed (bool)."""
    return (np.zeros(N_BALLS, np.bool_), np.full(N_BALLS, np.inf), np.zeros(N_BALLS, np.int64),
            np.zeros(N_BALLS, np.bool_))


@nb.njit(cache=True)
def final_xy(rvw, on):
    """(N_BALLS, 2) where the stroke left each ball [m] (``rvw`` (N_BALLS, 3, 2) the physics
    end state); NaN for a ball not ``on`` the table before it."""
    final = np.empty((N_BALLS, 2))
    for b in range(N_BALLS):
        for d in range(2):
            final[b, d] = rvw[b, 0, d] if on[b] else np.nan
    return final


@nb.njit(cache=True)
def mark_off(b, tm, is_off, off_time, off_seq, n_off):
    """Ball b went off the table or onto the rail at ``tm`` [s]: its first mention sets its
    order (``off_seq``), its earliest time counts (``off_time``). Returns how many balls are
    off."""
    if not is_off[b]:
        is_off[b] = True
        off_seq[b] = n_off
        n_off += 1
        off_time[b] = tm
    elif tm < off_time[b]:
        off_time[b] = tm
    return n_off


@nb.njit(cache=True)
def jam_drop(b, g, tm, db, dg, dt, nd):
    """Ball b jammed between goal g's caps at ``tm`` [s] counts as its drop into g (replacing
    a drop of b physics saw); the drops stay by time. Returns the drop count."""
    m = _without_drop(b, db, dg, dt, nd)
    db[m], dg[m], dt[m] = b, g, tm
    nd = m + 1
    sort_drops(db, dg, dt, nd)
    return nd


@nb.njit(cache=True)
def lift_gone(db, nd, is_off, jammed, final):
    """(N_BALLS,) bool: the balls that dropped (``db[:nd]``) or went off the table (G-15,
    G-21, G-14); those and the jammed balls are lifted from ``final`` (NaN)."""
    dropped = np.zeros(N_BALLS, np.bool_)
    for i in range(nd):
        dropped[db[i]] = True
    gone = np.zeros(N_BALLS, np.bool_)
    for b in range(N_BALLS):
        gone[b] = dropped[b] or is_off[b]
        if gone[b] or jammed[b]:
            final[b, 0] = np.nan
            final[b, 1] = np.nan
    return gone
