"""Compiled golfbillard opening (G-3, specs/golfbillard.md): both sides strike their opening
ball at t = 0 (:func:`referee_opening`: the opening's fouls, its G-19 events, who played which
ball, the penalties and G-25 picks, the result: a first turn or a repeat), and which ball is a
side's opening ball (:func:`opening_ball`). The state after it is the flow's
(``golf_flow.advance_opening``).

Numba caches each file's functions by that file's time stamp only: after editing a kernel file
this one calls (golf_stroke, golf_drops, golf_apply, golf_spots, golf_paths), touch this file
and golf_flow too so the cached entry points are rebuilt.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from cuegym.physics.constants import EV_BALL_BALL

from .golf_apply import (
    _check_restored,
    balls_left,
    error,
    game_winner,
    lift_balls,
    note,
    stroke_moved,
    write_drops,
)
from .golf_arrays import (
    BALLS_PER_SIDE,
    N_BALLS,
    R_DUO,
    R_PICK,
    R_SPOT,
)
from .golf_codes import (
    CS,
    D_OPENING_SIDE,
    D_WRONG_BALL,
    D_WRONG_OPENER,
    E_NONE,
    E_NOT_ON_TABLE,
    E_OPENING_FOUL_SIDE,
    F_G3,
    F_G18,
    F_G19,
    GOAL,
    I_FALL,
    I_FOUL,
    I_JAM,
    I_OFF,
    I_RAIL,
    I_RETURN,
    K_DEFLECT_OPP,
    K_DEFLECT_OWN,
    K_JAM,
    K_WRONG_BALL,
    K_WRONG_OPENER,
    KIND_BITS,
    LT,
    N_FALL,
    N_JAM_FREED,
    N_PICK_UNUSED,
    N_RAIL_RETURN,
    N_SPOTS_REPEAT,
    N_SPOTS_UNUSED,
    PICK,
    RA,
    RF,
    SPOT,
)
from .golf_drops import (
    balls_on_table,
    fall_after_rest,
    final_xy,
    injected_after_drop,
    jam_drop,
    new_drops,
    put_back_on_rim,
    rim_balls_clear,
    table_drops,
)
from .golf_paths import path_max
from .golf_spots import nearest_ball, pick_ball, place_on_spots
from .golf_stroke import _injected_foul_error, _path

#: G-3: opening balls whose distances to their attack goals differ by no more than this [m] are
#: "equal distances" (rounding noise of mirror-image strokes is not a win).
OPENING_TIE_TOL = 1e-6


@nb.njit(cache=True)
def referee_opening(t, st, lg, inp, ga, rp, prm, out):
    """Referee the opening stroke of table t (G-3, G-31) into row t of ``out``.

    Both sides strike one ball at t = 0 (``cue_ball[t]`` = side 0's, side 1's). Each must cross
    x = 0. A side that scores its opening ball takes the first turn; both score: repeat with
    another ball each. Otherwise the ball that stops nearer its attack goal wins; a ball that
    does not cross x = 0 loses; equal distances, or neither crossing: balls back, repeat. A side's
    G-18 foul (injected, or a duo side whose opener is not the due partner) with LT loses the
    opening, and its other letters apply to that side's stroke (:func:`_opening_penalties`,
    G-25 PICK :func:`_opening_picks`); an opening that starts with a side at one ball is kader
    play (G-20), so those are the kader letters. A ball that drops, or jams between a goal's
    caps (G-19), is judged for the side that played it (:func:`played_by`,
    :func:`_opening_fates`): a drop counts for the ball's side (G-6, G-7) unless it is an own
    ball its side played into its defence goal (G-8: a penalty spot); a jam between the caps of
    that side's attack goal is a drop there, between those of its defence goal a G-19 foul (the
    ball to a penalty spot of that side); a ball played off the table (or onto the rail) by the
    other side goes into its goal for its side (G-17), by its own side to a penalty spot (G-16,
    an opening ball always). Rail returns (G-17b) and jams between a cap and the
    short cushion are notes, as in play.
    """
    before = st.xy[t]
    n = lg.n_events[t]
    bo = inp.cue_ball[t]
    out.opening[t] = True
    out.shooter[t] = -1
    out.cue_ball[t] = -1
    out.left_kader[t] = -1
    out.winner[t] = -1
    out.overflow[t] = lg.overflow[t]
    out.op_balls[t, 0], out.op_balls[t, 1] = bo[0], bo[1]
    on0, cnt = balls_on_table(before)
    kader = st.kader[t] or cnt[0] == 1 or cnt[1] == 1  # G-20: also for an opening
    lost = np.zeros(2, np.bool_)
    off = np.zeros(N_BALLS, np.bool_)
    off_time = np.zeros(N_BALLS)  # [s] when each ball ``off`` left the cloth
    # each side's penalised G-18 foul: its letters (-1: none), time [s], event (-1: G-31), ball
    pen_l = np.full(2, -1, np.int64)
    pen_t = np.zeros(2)
    pen_e = np.full(2, -1, np.int64)
    pen_b = np.full(2, -1, np.int64)
    nf = _opening_fouls(t, st, inp, ga, rp, before, on0, kader, lost, off, off_time, pen_l,
                        pen_t, pen_e, pen_b, out)
    if nf < 0:
        return
    db, dg, dt = new_drops()
    fell = np.full(N_BALLS, -1, np.int64)
    nd = table_drops(n, lg.ev_type[t], lg.ev_time[t], lg.ev_i[t], lg.ev_j[t], lg.pocket[t],
                     lg.t_end[t], on0, db, dg, dt, fell)
    if not injected_after_drop(t, inp.inj_n[t], inp.inj_type[t], inp.inj_ball[t], db, nd, fell,
                               out):
        return
    jammed = np.zeros(N_BALLS, np.bool_)  # G-19: between the caps of its player's defence goal
    jam_side = np.full(N_BALLS, -1, np.int64)  # the side that played it there
    for e in range(inp.inj_n[t]):  # in order, as in play:
        typ = inp.inj_type[t, e]
        b = inp.inj_ball[t, e]
        if typ == I_FALL:  # G-6a: an injected fall undoes the log's drop of its ball
            nd = fall_after_rest(b, db, dg, dt, nd, n, lg.ev_type[t], lg.ev_i[t], fell)
            if fell[b] < 0:  # it lies on the rim in the log: nothing to undo
                note(out, t, N_FALL, b)
        elif typ == I_JAM and inp.inj_goal[t, e] >= 0:  # G-19, for the side that played b
            g = inp.inj_goal[t, e]
            tm = inp.inj_time[t, e]
            p = played_by(b, tm, bo, n, lg.ev_type[t], lg.ev_time[t], lg.ev_i[t], lg.ev_j[t])
            if g == p:  # its attack goal (goal index == side): it counts as a drop into g
                nd = jam_drop(b, g, tm, db, dg, dt, nd)
            else:  # its defence goal: the G-19 foul of side p (no LT), b to p's penalty spot
                jammed[b] = True
                jam_side[b] = p
                _opening_foul(out, t, nf, tm, b, F_G19, K_JAM, D_OPENING_SIDE, p, 0, 0)
                nf += 1
    out.n_fouls[t] = nf
    write_drops(out, t, db, dg, dt, nd)
    final = final_xy(lg.rvw[t], on0)
    put_back_on_rim(fell, n, lg.ev_type[t], lg.ev_i[t], lg.ev_j[t], lg.ev_state[t], lg.pocket[t],
                    ga.goals, final, out, t)
    gone = off | jammed
    for i in range(nd):
        gone[db[i]] = True
    rim_balls_clear(fell, final, gone, ga)
    # RA / RF of a side's G-18 foul: those balls go back (and neither count nor go to a spot)
    back = np.zeros(N_BALLS, np.bool_)
    blocked = np.zeros(N_BALLS, np.bool_)
    _opening_back(t, lg, inp, ga.R, before, final, db, nd, off, jammed, pen_l, pen_e, back,
                  blocked)
    # where each ball goes: scored for its side (``into``: put into its goal, G-17 or GOAL), or
    # a penalty spot (of its side; a G-19 jam: of the side that played it there)
    removed = np.zeros(N_BALLS, np.bool_)
    into = np.zeros(N_BALLS, np.bool_)
    rtime = np.zeros(N_BALLS)
    to_spot = np.zeros(2 * N_BALLS + 2, np.int64)  # in order; a ball may appear twice
    in_ts = np.zeros(N_BALLS, np.bool_)
    spot_side = np.empty(N_BALLS, np.int64)
    for x in range(N_BALLS):
        spot_side[x] = x // BALLS_PER_SIDE
    n_ts = _opening_fates(t, lg, bo, db, dg, dt, nd, off, off_time, jammed, jam_side, back,
                          blocked, removed, rtime, into, to_spot, in_ts, spot_side)
    n_ts = _opening_penalties(bo, pen_l, pen_t, pen_b, removed, rtime, into, to_spot, in_ts,
                              n_ts)
    # G-3: which opening ball takes the first turn, or a repeat
    seg = np.empty((n + 2, 8))
    ok = _opening_balls(t, bo, lost, removed, in_ts, final, lg, inp, prm, ga, seg,
                        out.op_scored[t], out.op_crossed[t], out.op_dist[t])
    first, repeat, replaced, reason = _opening_result(out.op_scored[t], ok, out.op_dist[t])
    out.op_first[t], out.op_repeat[t], out.op_replaced[t], out.op_reason[t] = \
        first, repeat, replaced, reason
    # a repeat with balls back, or the balls to penalty spots (G-30)
    xy = out.xy[t]
    xy[:, :] = before if replaced else final
    n_sp = 0
    picked = 0
    if not replaced:
        for x in range(N_BALLS):
            if back[x]:  # RA
                xy[x, 0], xy[x, 1] = before[x, 0], before[x, 1]
        for s in range(2):
            if pen_l[s] > 0 and pen_l[s] & RF:  # G-18 deflect: where the event says
                e = pen_e[s]
                for i in range(inp.inj_rn[t, e]):
                    xy[inp.inj_rb[t, e, i], :] = inp.inj_rxy[t, e, i]
        n_ts = _listed(to_spot, n_ts, in_ts)
        lift_balls(xy, removed, in_ts)
        n_ts, picked = _opening_picks(t, bo, pen_l, xy, ga, rp, inp, to_spot, in_ts, n_ts, out)
        if picked < 0:
            return
        for s in range(2):
            if pen_l[s] > 0 and pen_l[s] & RF:
                e = pen_e[s]
                err, eb, eo = _check_restored(xy, inp.inj_rb[t, e], inp.inj_rn[t, e], ga)
                if err != E_NONE:
                    error(out, t, err, eb, eo)
                    return
        on_spot = np.zeros(N_BALLS, np.int64)
        n_sp, used, err, ev, eb = place_on_spots(to_spot, n_ts, spot_side, xy, ga,
                                                 int(rp[R_SPOT]), inp.spot_n[t],
                                                 inp.spot_choice[t], -1, np.zeros(5, np.bool_),
                                                 inp.draws[t, 1:], out.spot_ball[t],
                                                 out.spot_k[t], on_spot)
        if err != E_NONE:
            error(out, t, err, ev, eb)
            return
        out.on_spot[t, :] = on_spot
        if inp.spot_n[t] > used:
            note(out, t, N_SPOTS_UNUSED, used)
        add_scored(removed, out.scored_mask[t], out.scored[t])
        for x in range(N_BALLS):
            if into[x] and removed[x]:
                out.into_ball[t, out.n_into[t]] = x
                out.n_into[t] += 1
    elif inp.spot_n[t] >= 0:
        note(out, t, N_SPOTS_REPEAT, -1)
    if inp.pick[t] >= 0 and picked == 0:
        note(out, t, N_PICK_UNUSED, -1)
    out.n_spotted[t] = n_sp
    left_after = np.array([balls_left(xy, 0), balls_left(xy, 1)])
    # G-4: a side emptied by the opening (its last ball scored: after repeated double scores, or
    # knocked in by the other side, G-7)
    winner = _opening_winner(left_after, into, removed, rtime)
    out.winner[t] = winner
    out.game_over[t] = winner >= 0


@nb.njit(cache=True)
def _opening_winner(left_after, into, removed, rtime):
    """G-4 / G-17a after an opening: a side emptied with a ball put into its goal by the
    other side (G-17, or a foul's GOAL) wins whatever else the stroke scored; else
    :func:`game_winner` (both empty: the last real drop first). No side shot alone, so the
    side-0 tie-break of ``game_winner`` is used only where drop times tie exactly."""
    n_into = np.zeros(2, np.int64)
    for x in range(N_BALLS):
        if into[x] and removed[x]:
            n_into[x // BALLS_PER_SIDE] += 1
    emptied = (left_after == 0) & (n_into > 0)
    if emptied[0] != emptied[1]:
        return 0 if emptied[0] else 1
    return game_winner(0, left_after, 0, removed, rtime)


@nb.njit(cache=True)
def played_by(b, until, bo, n, ev_type, ev_time, ev_i, ev_j):
    """G-3 / G-7 / G-8 / G-19: the side that played ball b in the opening, by time ``until``
    [s] (its drop or jam). Both sides play at once, so a ball is played by the chain of
    contacts it was last reached by: each side's opening ball ``bo[s]`` is played by its side;
    at a ball-ball contact (events ``n``, ``ev_*``, in log order, those up to ``until``) a ball
    other than the opening balls takes the side of the ball it touched, if that one has a side
    (two such balls exchange theirs). A ball no contact reached (possible only in a hand-written
    log or an injected event) counts as played by its own side."""
    lab = np.full(N_BALLS, -1, np.int64)
    lab[bo[0]] = 0
    lab[bo[1]] = 1
    for k in range(n):
        if ev_type[k] != EV_BALL_BALL or ev_time[k] > until:
            continue
        i, j = ev_i[k], ev_j[k]
        li, lj = lab[i], lab[j]
        if lj >= 0 and i != bo[0] and i != bo[1]:
            lab[i] = lj
        if li >= 0 and j != bo[0] and j != bo[1]:
            lab[j] = li
    return lab[b] if lab[b] >= 0 else b // BALLS_PER_SIDE


@nb.njit(cache=True)
def _opening_fates(t, lg, bo, db, dg, dt, nd, off, off_time, jammed, jam_side, back, blocked,
                   removed, rtime, into, to_spot, in_ts, spot_side):
    """G-3: where the opening's balls go (table t's log ``lg``, opening balls ``bo``). A drop
    (``db[:nd]`` into goal ``dg`` at ``dt`` [s]) counts for the ball's side (``removed``,
    ``rtime``): into its attack goal (G-6), or into its defence goal when the other side played
    it (:func:`played_by`; G-7). A ball ``off`` the table or on the rail (since ``off_time``
    [s]) that the other side played goes into its goal, scored for its side, whatever else
    happens (G-17; marked in ``into``; an opening ball is always its own side's). An own ball
    its side played into its defence goal (G-8) or off the table (G-16), a ball ``jammed``
    between the caps of its player's defence goal (G-19: on the spots of that side,
    ``jam_side``, written to ``spot_side``) and a ball ``blocked`` from going back go to a
    penalty spot: listed in ``to_spot`` in that order and marked in ``in_ts``. Balls going
    ``back`` (a G-18 foul's RA / RF) do neither. Returns how many are listed."""
    n_ts = 0
    n = lg.n_events[t]
    for i in range(nd):
        x = db[i]
        if back[x] or blocked[x]:
            continue
        side = x // BALLS_PER_SIDE
        if dg[i] == side or played_by(x, dt[i], bo, n, lg.ev_type[t], lg.ev_time[t],
                                      lg.ev_i[t], lg.ev_j[t]) != side:
            removed[x] = True
            rtime[x] = dt[i]
        else:
            to_spot[n_ts] = x
            n_ts += 1
            in_ts[x] = True
    for x in range(N_BALLS):
        if not off[x] or removed[x] or in_ts[x]:
            continue
        if played_by(x, off_time[x], bo, n, lg.ev_type[t], lg.ev_time[t], lg.ev_i[t],
                     lg.ev_j[t]) != x // BALLS_PER_SIDE:  # G-17, even over RA
            removed[x] = True
            rtime[x] = off_time[x]
            into[x] = True
            back[x] = False
            blocked[x] = False
        elif not back[x] and not blocked[x]:  # G-16
            to_spot[n_ts] = x
            n_ts += 1
            in_ts[x] = True
    for x in range(N_BALLS):
        if jammed[x] and not removed[x] and not in_ts[x] and not back[x] and not blocked[x]:
            to_spot[n_ts] = x
            n_ts += 1
            in_ts[x] = True
            spot_side[x] = jam_side[x]
    for x in range(N_BALLS):
        if blocked[x] and not in_ts[x]:
            to_spot[n_ts] = x
            n_ts += 1
            in_ts[x] = True
    return n_ts


@nb.njit(cache=True)
def _opening_back(t, lg, inp, R, before, final, db, nd, off, jammed, pen_l, pen_e, back,
                  blocked):
    """RA of a side's penalised G-18 foul in the opening (``pen_l`` (2,) its letters): every
    ball of that side the opening moved goes back where it lay, unless a ball of the other
    side's stroke now lies there (then it is ``blocked`` and goes to a penalty spot); RF: the
    balls its event lists (``inp.inj_rb``) go back to where it says. Marks them in ``back``
    (N_BALLS,). Balls dropped (``db[:nd]``), ``off`` the table or ``jammed`` (G-19) have left
    the cloth. R: ball radius [m]."""
    moved = stroke_moved(lg.n_events[t], lg.ev_type[t], lg.ev_i[t], lg.ev_j[t], lg.rvw0[t],
                         before, final, db, nd, off, jammed)
    for s in range(2):
        if pen_l[s] <= 0:
            continue
        if pen_l[s] & RA:
            for x in range(s * BALLS_PER_SIDE, (s + 1) * BALLS_PER_SIDE):
                back[x] = back[x] or moved[x]
        if pen_l[s] & RF:
            e = pen_e[s]
            for i in range(inp.inj_rn[t, e]):
                back[inp.inj_rb[t, e, i]] = True
    gone = np.zeros(N_BALLS, np.bool_)
    for i in range(nd):
        gone[db[i]] = True
    for x in range(N_BALLS):
        own = pen_l[x // BALLS_PER_SIDE]
        if not back[x] or own <= 0 or not (own & RA):
            continue
        for o in range(N_BALLS):
            if back[o] or blocked[o] or gone[o] or off[o] or jammed[o] or math.isnan(final[o, 0]):
                continue
            if math.hypot(final[o, 0] - before[x, 0], final[o, 1] - before[x, 1]) < 2 * R - 1e-9:
                blocked[x] = True
        back[x] = back[x] and not blocked[x]


@nb.njit(cache=True)
def _opening_penalties(bo, pen_l, pen_t, pen_b, removed, rtime, into, to_spot, in_ts, n_ts):
    """The other letters of each side's penalised G-18 foul in the opening, after the balls'
    fates (:func:`_opening_fates`): SPOT the touched ball (``pen_b``) to a penalty spot, GOAL
    the touched opponent's ball into its goal at the foul's time ``pen_t`` [s] (scored for its
    side, marked in ``into``), CS the side's opening ball ``bo[s]`` to a penalty spot unless
    it scored. Appends to ``to_spot``; returns its length."""
    for s in range(2):
        letters = pen_l[s]
        if letters <= 0:
            continue
        x = pen_b[s]
        if letters & SPOT and x >= 0:
            removed[x] = False  # a touched ball that dropped comes out for its spot
            if not in_ts[x]:
                to_spot[n_ts] = x
                n_ts += 1
                in_ts[x] = True
        if letters & GOAL and x >= 0 and not removed[x]:
            removed[x] = True
            rtime[x] = pen_t[s]
            into[x] = True
            in_ts[x] = False
        c = bo[s]
        if letters & CS and not removed[c] and not in_ts[c]:
            to_spot[n_ts] = c
            n_ts += 1
            in_ts[c] = True
    return n_ts


@nb.njit(cache=True)
def _opening_picks(t, bo, pen_l, xy, ga, rp, inp, to_spot, in_ts, n_ts, out):
    """G-25 PICK of each side's penalised G-18 foul in the opening (kader letters, G-20): the
    opponent picks one of the offender's balls on the table (``xy`` (N_BALLS, 2), the balls
    scored or going to a spot already lifted) for a penalty spot, by ``pick_policy`` (the
    ``agent`` policy takes ``inp.pick[t]``, which must be a ball of that offender). The ball is
    appended to ``to_spot`` and lifted; an opening ball picked is no longer at a distance
    (``op_dist`` inf). Returns (the list's length, how many picks were made; -1 after an input
    error was written to ``out``)."""
    picked = 0
    for s in range(2):
        if pen_l[s] <= 0 or not pen_l[s] & PICK:
            continue
        b, err, ev = pick_ball(s, bo[s], xy, ga, int(rp[R_PICK]), inp.pick[t], inp.draws[t, 0])
        if err != E_NONE:
            error(out, t, err, ev, s)
            return n_ts, -1
        picked += 1
        if b >= 0 and not in_ts[b]:
            to_spot[n_ts] = b
            n_ts += 1
            in_ts[b] = True
            xy[b, 0] = np.nan
            xy[b, 1] = np.nan
            if b == bo[s]:
                out.op_dist[t, s] = np.inf
    return n_ts, picked


@nb.njit(cache=True)
def _listed(to_spot, n_ts, in_ts):
    """Drop from ``to_spot[:n_ts]`` the balls no longer going to a spot (``in_ts`` cleared: a
    GOAL put them into their goal); returns the new length."""
    m = 0
    for i in range(n_ts):
        x = to_spot[i]
        if in_ts[x]:
            to_spot[m] = x
            m += 1
    return m


@nb.njit(cache=True)
def _opening_balls(t, bo, lost, removed, in_ts, final, lg, inp, prm, ga, seg, op_scored,
                   op_crossed, op_dist):
    """G-3: each side's opening ball ``bo`` (2,) on table t: ``op_scored`` it dropped into its
    attack goal and its side lost nothing (``lost``), ``op_crossed`` it crossed x = 0 (its path
    in ``seg``), ``op_dist`` [m] where it stopped from its attack goal (inf when scored or to a
    penalty spot). Returns (2,) bool: the ball is valid (crossed, nothing lost, not to a
    spot)."""
    ok = np.zeros(2, np.bool_)
    for s in range(2):
        b = bo[s]
        op_scored[s] = removed[b] and not lost[s]
        sign = 1.0 if s == 0 else -1.0
        gone = removed[b] or in_ts[b]
        if removed[b]:
            crossed = True
        else:
            ns = _path(b, t, lg, inp, prm, seg)
            crossed = path_max(seg, ns, sign, 0.0) > 0.0
        op_crossed[s] = crossed
        op_dist[s] = np.inf if gone else math.hypot(final[b, 0] - ga.goals[s, 0],
                                                    final[b, 1] - ga.goals[s, 1])
        ok[s] = crossed and not lost[s] and not in_ts[b]
    return ok


@nb.njit(cache=True)
def add_scored(removed, scored_mask, scored):
    """The balls ``removed`` (N_BALLS,) into ``scored_mask``, and counted per side into
    ``scored`` (2,)."""
    for x in range(N_BALLS):
        scored_mask[x] = removed[x]
        if removed[x]:
            scored[x // BALLS_PER_SIDE] += 1


@nb.njit(cache=True)
def _opening_fouls(t, st, inp, ga, rp, before, on0, kader, lost, off, off_time, pen_l, pen_t,
                   pen_e, pen_b, out):
    """The opening's fouls into row t of ``out``: G-3 (a side opened with another ball than its
    middle one while that is on the table; in a repeat after both sides scored, any own ball
    may open: "another ball each"), injected G-18 fouls, G-31 (a duo side's wrong partner
    opened). G-3 and a G-18 foul with LT lose the opening for their side (``lost``); each
    side's penalised G-18 foul (:func:`_penalise`; its kader letters when the opening is in
    ``kader`` play, G-20, G-25) goes to ``pen_l``, ``pen_t``, ``pen_e``, ``pen_b``. Balls the
    caller put off the table or on the rail are marked in ``off``, at the first such event's
    time in ``off_time`` [s] (an opening ball among them also loses); rail returns (G-17b)
    and jams between a cap and the short cushion (G-19) get their notes, as in play (falls and
    goal jams: :func:`referee_opening`). Returns the foul count, -1 after an input error was
    written to ``out`` (an injected event names a ball that is not on the table, as in
    play)."""
    bo = inp.cue_ball[t]
    nf = 0
    for s in range(2):
        mid = s * BALLS_PER_SIDE
        if on0[mid] and bo[s] != mid:  # G-3: only the middle ball may open
            _opening_foul(out, t, nf, 0.0, bo[s], F_G3, K_WRONG_BALL, D_WRONG_BALL, s, mid, 0)
            nf += 1
            lost[s] = True
    kc = 1 if kader else 0
    for e in range(inp.inj_n[t]):
        typ = inp.inj_type[t, e]
        b = inp.inj_ball[t, e]
        if b >= 0 and not on0[b]:
            error(out, t, E_NOT_ON_TABLE, b, 1)
            return -1
        if typ == I_FOUL:
            kind = inp.inj_kind[t, e]
            deflect = kind == K_DEFLECT_OWN or kind == K_DEFLECT_OPP
            side = inp.inj_side[t, e]
            if side < 0 and not deflect:  # a deflect foul's ball is the touched one
                side = b // BALLS_PER_SIDE if b >= 0 else -1
            if side < 0:
                error(out, t, E_OPENING_FOUL_SIDE, e, 0)
                return -1
            err, ea, eb = _injected_foul_error(side, b, kind, on0, inp.inj_rb[t, e],
                                               inp.inj_rn[t, e])
            if err != E_NONE:
                error(out, t, err, ea, eb)
                return -1
            letters = KIND_BITS[kind, kc]
            _opening_foul(out, t, nf, inp.inj_time[t, e], bo[side], F_G18, kind,
                          D_OPENING_SIDE, side, 0, 0)
            nf += 1
            lost[side] = lost[side] or (letters & LT) != 0
            _penalise(side, letters, inp.inj_time[t, e], e, b if deflect else -1, pen_l,
                      pen_t, pen_e, pen_b)
        elif typ == I_OFF or typ == I_RAIL:
            if not off[b]:
                off_time[b] = inp.inj_time[t, e]
            off[b] = True
            if b == bo[0] or b == bo[1]:
                lost[b // BALLS_PER_SIDE] = True
        elif typ == I_RETURN:  # G-17b: not penalised
            note(out, t, N_RAIL_RETURN, b)
        elif typ == I_JAM and inp.inj_goal[t, e] < 0:  # G-19: between a cap and the cushion
            note(out, t, N_JAM_FREED, b)
    if rp[R_DUO] > 0 and inp.players[t, 0] >= 0:
        for s in range(2):
            if inp.players[t, s] != st.openers[t, s]:  # G-31: the wrong partner opened
                _opening_foul(out, t, nf, 0.0, bo[s], F_G18, K_WRONG_OPENER, D_WRONG_OPENER, s,
                              inp.players[t, s], st.openers[t, s])
                nf += 1
                lost[s] = True
                _penalise(s, KIND_BITS[K_WRONG_OPENER, kc], 0.0, -1, -1, pen_l, pen_t, pen_e,
                          pen_b)
    return nf


@nb.njit(cache=True)
def _penalise(s, letters, time, e, ball, pen_l, pen_t, pen_e, pen_b):
    """Side s's G-18 foul in the opening (its consequence ``letters``, ``time`` [s], injected
    event ``e`` or -1, touched ``ball`` or -1) replaces the one kept in ``pen_*`` when it comes
    first (G-19a: time, the first given among ties) or when the kept one has no consequences
    (consultation goes after every other foul)."""
    kept = pen_l[s]
    if kept < 0 or (kept == 0 and letters != 0) or (
            (kept == 0) == (letters == 0) and time < pen_t[s]):
        pen_l[s], pen_t[s], pen_e[s], pen_b[s] = letters, time, e, ball


@nb.njit(cache=True)
def _opening_result(scored, ok, dist):
    """G-3: who takes the first turn: ``(first side or -1, repeat, balls replaced, reason)``
    from each side's opening ball: ``scored`` (2,) it dropped into its attack goal, ``ok``
    (2,) it crossed x = 0 and its side lost nothing, ``dist`` (2,) metres from its attack goal.
    Reasons: 0 both scored (repeat with other balls), 1 one scored, 2 equal distances
    (repeat), 3 nearer, 4 only one valid, 5 neither valid (repeat)."""
    if scored[0] and scored[1]:
        return -1, True, False, 0
    if scored[0] or scored[1]:
        return (0 if scored[0] else 1), False, False, 1
    if ok[0] and ok[1]:
        if abs(dist[0] - dist[1]) <= OPENING_TIE_TOL:
            return -1, True, True, 2
        return (0 if dist[0] <= dist[1] else 1), False, False, 3
    if ok[0] or ok[1]:
        return (0 if ok[0] else 1), False, False, 4
    return -1, True, True, 5


@nb.njit(cache=True)
def _opening_foul(out, t, k, time, ball, rule, kind, variant, a, b, c):
    out.f_rule[t, k] = rule
    out.f_time[t, k] = time
    out.f_kind[t, k] = kind
    out.f_nb[t, k] = 1
    out.f_balls[t, k, 0] = ball
    out.f_det[t, k, 0] = variant
    out.f_det[t, k, 1] = a
    out.f_det[t, k, 2] = b
    out.f_det[t, k, 3] = c


@nb.njit(cache=True)
def opening_ball(xy, s, ga):
    """G-3: the ball side ``s`` opens with: its middle ball while that is on the table (the only
    one that may open), else (a repeat after both sides scored, where any own ball may) its
    on-table ball nearest its middle start spot (ties: the lower number)."""
    if not math.isnan(xy[s * BALLS_PER_SIDE, 0]):
        return s * BALLS_PER_SIDE
    return nearest_ball(xy, s, ga.start[s * BALLS_PER_SIDE, 0], ga.start[s * BALLS_PER_SIDE, 1])


@nb.njit(cache=True)
def opening_balls_kernel(xy, ga, out):
    """out (T, 2): :func:`opening_ball` of both sides on every table."""
    for t in range(xy.shape[0]):
        for s in range(2):
            out[t, s] = opening_ball(xy[t], s, ga)
