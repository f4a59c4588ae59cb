"""Compiled golfbillard stroke referee: one play stroke of one table (G-1, G-2, G-6 .. G-26).

:func:`referee_play` reads table ``t`` of the batched state, event log and inputs
(:mod:`cuegym.rules.golf_arrays`), finds every foul with its rule in G-19a order (only the first
is penalised), the G-14 defence duty over the turn and the G-21 kader duty, and hands them to
:func:`cuegym.rules.golf_apply.apply_stroke` (consequences, goals, penalty spots, game end),
which writes row ``t`` of the outcomes. What the log says happened to each ball (drops, falls
after rest, off the table) is read by :mod:`cuegym.rules.golf_drops`. The batched entry point
and the game flow are in :mod:`cuegym.rules.golf_flow`; the Python views in
:mod:`cuegym.rules.golfbillard`.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_POST,
    EV_TRANSITION,
)

from .golf_apply import apply_stroke, error, note
from .golf_arrays import (
    BALLS_PER_SIDE,
    MAX_FOULS,
    N_BALLS,
    R_BLOCKALL,
    R_DUO,
    R_G10ANY,
    R_GAP,
    R_MASSE,
)
from .golf_codes import (
    D_INJECTED,
    D_OUT_OF_TURN,
    D_PLAIN,
    D_PLAYED_OPP,
    E_DEFLECT_NEEDS,
    E_NONE,
    E_NOT_ON_TABLE,
    E_RESTORE_NOT_ON_TABLE,
    F_G8,
    F_G10,
    F_G11,
    F_G12,
    F_G13,
    F_G15,
    F_G16,
    F_G17,
    F_G18,
    F_G19,
    F_G21,
    I_FALL,
    I_FOUL,
    I_JAM,
    I_OFF,
    I_RAIL,
    I_RETURN,
    K_BLOCKING,
    K_DEFLECT_OPP,
    K_DEFLECT_OWN,
    K_JAM,
    K_KADER,
    K_OFF_TABLE,
    K_OUT_OF_TURN,
    K_OWN_BALL,
    K_OWN_GOAL,
    K_PLAYED_OPP,
    K_PUSH,
    K_VLIEGEREN,
    KIND_BITS,
    N_FALL,
    N_JAM_FREED,
    N_LIMIT_EVENTS,
    N_RAIL_RETURN,
)
from .golf_drops import (
    balls_on_table,
    fall_after_rest,
    final_xy,
    injected_after_drop,
    jam_drop,
    lift_gone,
    mark_off,
    new_drops,
    new_off_table,
    put_back_on_rim,
    rim_balls_clear,
    table_drops,
)
from .golf_heading import (
    below_stroke_line,
    direct_goal_attempt,
    frozen_list,
    hard_or_raised,
    initial_direction,
)
from .golf_paths import ball_path, in_poly, kader_of, path_leaves, seg_dist
from .golf_spots import moved_balls


@nb.njit(cache=True)
def add_foul(fr, ft, fk, fnb, fb, fd, nf, rule, time, kind, det0, det1, det2):
    """Append a foul without balls to a table's foul arrays (rule, time, kind, ball count,
    balls, detail: variant det0 and values det1, det2); return its index, -1 when full (the
    caller adds balls and counts it)."""
    if nf >= MAX_FOULS:
        return -1
    fr[nf] = rule
    ft[nf] = time
    fk[nf] = kind
    fnb[nf] = 0
    fd[nf, 0] = det0
    fd[nf, 1] = det1
    fd[nf, 2] = det2
    fd[nf, 3] = 0.0
    return nf


@nb.njit(cache=True)
def sort_fouls(fr, ft, fk, fnb, fb, fd, nf):
    """Stable sort by (time, rule order) (G-19a), a G-18 kind with no consequence in or out of
    kader play (consultation) after every other foul: only the first foul is penalised, and
    one that carries no penalty must not take it from one that does."""
    free = np.zeros(nf, np.bool_)
    for i in range(nf):
        free[i] = fr[i] == F_G18 and KIND_BITS[fk[i], 0] == 0 and KIND_BITS[fk[i], 1] == 0
    order = np.arange(nf)
    for i in range(1, nf):
        v = order[i]
        j = i - 1
        while j >= 0 and _after(free[order[j]], ft[order[j]], fr[order[j]], free[v], ft[v],
                                fr[v]):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = v
    fr[:nf] = fr[order]
    ft[:nf] = ft[order]
    fk[:nf] = fk[order]
    fnb[:nf] = fnb[order]
    fb[:nf] = fb[order]
    fd[:nf] = fd[order]


@nb.njit(cache=True)
def _after(free_a, time_a, rule_a, free_b, time_b, rule_b):
    """Foul a sorts after foul b (G-19a, consequence-free fouls last)."""
    if free_a != free_b:
        return free_a
    return time_a > time_b or (time_a == time_b and rule_a > rule_b)


@nb.njit(cache=True)
def first_contact(n, ev_type, ev_time, ev_i, ev_j, b):
    """Ball b's first ball_ball / ball_cushion / ball_post contact: (type, time, other);
    (0, inf, -1) if none."""
    for k in range(n):
        typ = ev_type[k]
        if typ == EV_BALL_BALL or typ == EV_BALL_CUSHION or typ == EV_BALL_POST:
            if ev_i[k] == b or (typ == EV_BALL_BALL and ev_j[k] == b):
                other = ev_j[k] if ev_i[k] == b else ev_i[k]
                return typ, ev_time[k], other
    return 0, np.inf, -1


@nb.njit(cache=True)
def _masse_or_pique(c, t_stop, dx, dy, n, ev_type, ev_time, ev_i, ev_state, rvw0, physics,
                    seg, ns, masse_deg):
    """G-10: the cue ball's heading turned by masse_deg or more, or reversed (pique), before
    ``t_stop`` (checked at every point where the heading can be extreme)."""
    for m in range(-1, n + ns):
        if m < 0:
            vx, vy = rvw0[c, 1, 0], rvw0[c, 1, 1]
        elif m < n:
            if not (ev_i[m] == c and ev_type[m] == EV_TRANSITION and ev_time[m] < t_stop):
                continue
            vx, vy = ev_state[m, 0, 2], ev_state[m, 0, 3]
        else:
            if not physics:
                break
            s = m - n
            if not seg[s, 0] < t_stop:
                continue
            tau = min(seg[s, 1], t_stop) - seg[s, 0]
            vx = seg[s, 4] + 2.0 * seg[s, 6] * tau
            vy = seg[s, 5] + 2.0 * seg[s, 7] * tau
        sp = math.hypot(vx, vy)
        if sp > 1e-6:
            along = vx * dx + vy * dy
            if along < 0:
                return True
            cosang = min(max(along / sp, -1.0), 1.0)
            if math.acos(cosang) * (180.0 / math.pi) >= masse_deg:
                return True
    return False


@nb.njit(cache=True)
def _path(b, t, lg, inp, prm, seg):
    return ball_path(b, lg.n_events[t], lg.ev_type[t], lg.ev_time[t], lg.ev_i[t], lg.ev_j[t],
                     lg.ev_state[t], lg.ev_motion[t], lg.rvw0[t], lg.motion0[t], lg.rvw[t],
                     lg.t_end[t], prm, inp.physics[t], seg)


@nb.njit(cache=True)
def kader_left(t, before, s, gone, lg, inp, prm, ga, seg):
    """G-21 / G-23: some ball left its kader during the stroke.

    A ball in ``gone`` (dropped or off the table) has left. A ball that starts on a kader line
    has left once its centre is more than epsilon_line from that line; any other ball once its
    centre comes within epsilon_line of its kader's boundary. The defender's balls see the G-23
    merged kader at the shooter's attack goal.
    """
    n = lg.n_events[t]
    eps = ga.eps
    near = np.empty(ga.view_band.shape[1], np.int64)
    one = np.empty(1, np.int64)
    for b in range(N_BALLS):
        if math.isnan(before[b, 0]):
            continue
        if gone[b]:
            return True
        involved = False
        for k in range(n):
            if lg.ev_i[t, k] == b or (lg.ev_type[t, k] == EV_BALL_BALL and lg.ev_j[t, k] == b):
                involved = True
                break
        if not involved and abs(lg.rvw0[t, b, 1, 0]) <= 1e-8 and abs(lg.rvw0[t, b, 1, 1]) <= 1e-8:
            continue  # never moved
        view = 0 if b // BALLS_PER_SIDE == s else 1 + s
        px, py = before[b, 0], before[b, 1]
        nn = 0
        for e in range(ga.view_ne[view]):
            d = seg_dist(px, py, ga.view_edges[view, e, 0, 0], ga.view_edges[view, e, 0, 1],
                         ga.view_edges[view, e, 1, 0], ga.view_edges[view, e, 1, 1])
            if d <= eps:
                near[nn] = ga.view_band[view, e]
                nn += 1
        ns = _path(b, t, lg, inp, prm, seg)
        if nn > 0:
            if path_leaves(seg, ns, ga.polys, ga.nv, ga.lines, near, nn):
                return True
        else:
            kid = kader_of(ga, view, px, py)
            if kid == 0:
                return True
            one[0] = ga.kader_poly[kid]
            if path_leaves(seg, ns, ga.polys, ga.nv, ga.lines, one, 1):
                return True
    return False


@nb.njit(cache=True)
def _add_ball_foul(fr, ft, fk, fnb, fb, fd, nf, rule, time, kind, det0, det1, det2, b):
    """Append a foul naming one ball ``b`` (see :func:`add_foul`); return the new foul count."""
    k = add_foul(fr, ft, fk, fnb, fb, fd, nf, rule, time, kind, det0, det1, det2)
    if k >= 0:
        fb[k, 0] = b
        fnb[k] = 1
        nf += 1
    return nf


@nb.njit(cache=True)
def _goal_and_off_table_fouls(s, db, dg, dt, nd, is_off, off_time, off_seq, fr, ft, fk, fnb, fb,
                              fd, nf):
    """G-8 (own balls into the own defence goal, one foul naming them all) and G-16 / G-17
    (own / opponent's balls off the table or resting on the rail, one foul per side naming its
    balls by off time). Returns the new foul count."""
    opp = 1 - s
    g_def = 1 - s
    k = -2
    for i in range(nd):
        if db[i] // BALLS_PER_SIDE == s and dg[i] == g_def:
            if k == -2:
                k = add_foul(fr, ft, fk, fnb, fb, fd, nf, F_G8, dt[i], K_OWN_GOAL, D_PLAIN, 0, 0)
                if k >= 0:
                    nf += 1
            if k >= 0:
                fb[k, fnb[k]] = db[i]
                fnb[k] += 1
    for side in (s, opp):
        k = -2
        for _ in range(N_BALLS):  # by off time, then by order of mention
            best = -1
            for b in range(side * BALLS_PER_SIDE, (side + 1) * BALLS_PER_SIDE):
                if is_off[b] and not _in(fb, fnb, k, b) and (
                        best < 0 or off_time[b] < off_time[best]
                        or (off_time[b] == off_time[best] and off_seq[b] < off_seq[best])):
                    best = b
            if best < 0:
                break
            if k == -2:
                k = add_foul(fr, ft, fk, fnb, fb, fd, nf, F_G16 if side == s else F_G17,
                             off_time[best], K_OFF_TABLE, D_PLAIN, 1 if side == s else 0, 0)
                if k < 0:
                    break
                nf += 1
            fb[k, fnb[k]] = best
            fnb[k] += 1
    return nf


@nb.njit(cache=True)
def referee_play(t, st, lg, inp, ga, rp, prm, out):
    """Referee the play stroke of table t: write row t of ``out`` (OutcomeArrays).

    Step by step in the rules' order: what physics produced and the injected events, each foul
    (into the foul arrays ``fr`` .. ``fd``, ``nf`` of them; sorted in G-19a order), the G-21
    kader duty, the G-14 defence duty over the turn, then :func:`apply_stroke`. ``st``,
    ``lg``, ``inp``, ``ga`` and ``out`` are the structrefs of :mod:`cuegym.rules.golf_structs`
    (one reference count a call, where a NamedTuple pays one per array)."""
    s = st.to_move[t]
    g_att, g_def = s, 1 - s
    before = st.xy[t]
    c = inp.cue_ball[t, 0]
    n = lg.n_events[t]
    ev_type, ev_time, ev_i, ev_j = lg.ev_type[t], lg.ev_time[t], lg.ev_i[t], lg.ev_j[t]
    seg = np.empty((n + 2, 8))
    on0, cnt = balls_on_table(before)
    out.opening[t] = False
    out.shooter[t] = s
    out.cue_ball[t] = c
    out.overflow[t] = lg.overflow[t]
    out.n_notes[t] = 0
    if not on0[c]:
        error(out, t, E_NOT_ON_TABLE, c, 0)
        return
    kader = st.kader[t] or cnt[0] == 1 or cnt[1] == 1  # G-20
    if lg.overflow[t] > 0:
        note(out, t, N_LIMIT_EVENTS + lg.overflow[t] - 1, -1)
    fr, ft, fk, fnb, fb, fd = new_fouls()
    nf = 0

    # --- what physics produced, and what it cannot know (injected events) --------------------
    db, dg, dt = new_drops()
    fell = np.full(N_BALLS, -1, np.int64)
    nd = table_drops(n, ev_type, ev_time, ev_i, ev_j, lg.pocket[t], lg.t_end[t], on0, db, dg,
                     dt, fell)
    final = final_xy(lg.rvw[t], on0)
    is_off, off_time, off_seq, jammed = new_off_table()
    if not injected_after_drop(t, inp.inj_n[t], inp.inj_type[t], inp.inj_ball[t], db, nd, fell,
                               out):
        return
    nd, nf, ok = _injected_events(t, s, on0, inp, out, db, dg, dt, nd, is_off, off_time, off_seq,
                                  jammed, fr, ft, fk, fnb, fb, fd, nf, n, ev_type, ev_i, fell)
    if not ok:
        return
    put_back_on_rim(fell, n, ev_type, ev_i, ev_j, lg.ev_state[t], lg.pocket[t], ga.goals, final,
                    out, t)
    gone = lift_gone(db, nd, is_off, jammed, final)
    rim_balls_clear(fell, final, gone, ga)

    # --- G-2 an opponent's ball struck; G-31 a partner out of turn ---------------------------
    nf = _turn_order_fouls(s, c, rp[R_DUO], inp.players[t, 0], st.partner[t, s], fr, ft, fk,
                           fnb, fb, fd, nf)

    # --- the cue ball's initial direction and first contact ----------------------------------
    pcx, pcy = before[c, 0], before[c, 1]
    d0x, d0y, speed0 = initial_direction(lg.rvw0[t, c, 1, 0], lg.rvw0[t, c, 1, 1],
                                         inp.cue[t, 0, 1])
    theta = inp.cue[t, 0, 2]
    fc_type, fc_time, fc_other = first_contact(n, ev_type, ev_time, ev_i, ev_j, c)
    t_stop = heading_stop(c, fc_time, db, dt, nd)
    direct = direct_goal_attempt(pcx, pcy, d0x, d0y, g_att, ga)

    # --- G-10 hard / raised-cue stroke from below the stroke line ----------------------------
    if below_stroke_line(pcx, pcy, g_att, ga) and (direct or rp[R_G10ANY] > 0):
        kind = hard_or_raised(pcx, pcy, d0x, d0y, speed0, theta, fc_type, fc_other, g_att, ga,
                              rp)
        if kind >= 0 and not _cue_turned(t, c, t_stop, d0x, d0y, lg, inp, prm, seg,
                                         rp[R_MASSE]):
            nf = _add_ball_foul(fr, ft, fk, fnb, fb, fd, nf, F_G10, 0.0, kind, D_PLAIN, speed0,
                                theta, c)

    # --- G-11 vliegeren ----------------------------------------------------------------------
    nf = _vliegeren(c, pcx, pcy, fc_type, fc_other, ga, fr, ft, fk, fnb, fb, fd, nf)

    # --- G-13 push: struck into what the cue ball is frozen to -------------------------------
    nf = _push(t, c, pcx, pcy, d0x, d0y, direct, g_att, before, rp[R_GAP], ga, fr, ft, fk, fnb,
               fb, fd, nf, lg.n_events[t], lg.ev_type[t], lg.ev_i[t], lg.ev_j[t], lg.rvw0[t],
               final, gone)

    # --- G-12 own ball directly onto own ball ------------------------------------------------
    nf = _own_ball_first(s, c, fc_type, fc_time, fc_other, fr, ft, fk, fnb, fb, fd, nf)

    # --- G-8 own ball into the own defence goal; G-16 / G-17 balls off the table or on the rail
    nf = _goal_and_off_table_fouls(s, db, dg, dt, nd, is_off, off_time, off_seq, fr, ft, fk,
                                   fnb, fb, fd, nf)

    # --- G-15 blocking -----------------------------------------------------------------------
    nf = _blocking(t, s, g_att, before, final, gone, lg, rp, ga, fr, ft, fk, fnb, fb, fd, nf)

    # --- G-21 kader duty ---------------------------------------------------------------------
    left = -1
    if kader and not in_poly(ga.polys, ga.nv, ga.great_out[g_att], pcx, pcy):  # G-22 exempt
        left = 1 if kader_left(t, before, s, gone, lg, inp, prm, ga, seg) else 0
        if left == 0:
            nf = _add_ball_foul(fr, ft, fk, fnb, fb, fd, nf, F_G21, lg.t_end[t], K_KADER,
                                D_PLAIN, 0, 0, c)
    sort_fouls(fr, ft, fk, fnb, fb, fd, nf)

    # --- G-14 progress over the turn ---------------------------------------------------------
    duty_met = st.duty_met[t] or _duty_met_now(t, st.duty[t], on0, gone, g_def, lg, inp, prm,
                                               ga, seg)

    apply_stroke(t, s, c, kader, fr, ft, fk, fnb, fb, fd, nf, db, dg, dt, nd, is_off, off_time,
                 off_seq, jammed, before, final, duty_met, left, on0, st, lg, inp, ga, rp, out)


@nb.njit(cache=True)
def new_fouls():
    """Empty foul arrays of one stroke (see :func:`add_foul`): rule, time [s], kind, ball count
    (MAX_FOULS,), balls (MAX_FOULS, N_BALLS) padded with -1, detail (MAX_FOULS, 4)."""
    fr = np.zeros(MAX_FOULS, np.int64)
    ft = np.zeros(MAX_FOULS)
    fk = np.zeros(MAX_FOULS, np.int64)
    fnb = np.zeros(MAX_FOULS, np.int64)
    fb = np.full((MAX_FOULS, N_BALLS), -1, np.int64)
    fd = np.zeros((MAX_FOULS, 4))
    return fr, ft, fk, fnb, fb, fd


@nb.njit(cache=True)
def _injected_events(t, s, on0, inp, out, db, dg, dt, nd, is_off, off_time, off_seq, jammed,
                     fr, ft, fk, fnb, fb, fd, nf, n, ev_type, ev_i, fell):
    """Table t's injected events (``inp.inj_*``, what physics cannot know) in order: balls off
    the table or on the rail (``is_off``, ``off_time`` [s], ``off_seq``), notes for rail
    returns and freed jams, falls after rest (G-6a: a drop of that ball is undone, ``fell``;
    a ball the log leaves on the rim gets the note only), jams (``jammed``: G-19 in the
    shooter's defence goal, a drop in the other) and G-18 fouls. ``n``, ``ev_type``, ``ev_i``:
    the log's events. Returns (drop count, foul count, ok); not ok after an input error was
    written to ``out``."""
    g_def = 1 - s
    n_off = 0
    for e in range(inp.inj_n[t]):
        typ = inp.inj_type[t, e]
        b = inp.inj_ball[t, e]
        tm = inp.inj_time[t, e]
        if b >= 0 and not on0[b]:
            error(out, t, E_NOT_ON_TABLE, b, 1)
            return nd, nf, False
        if typ == I_OFF or typ == I_RAIL:
            n_off = mark_off(b, tm, is_off, off_time, off_seq, n_off)
        elif typ == I_RETURN:
            note(out, t, N_RAIL_RETURN, b)
        elif typ == I_FALL:
            nd = fall_after_rest(b, db, dg, dt, nd, n, ev_type, ev_i, fell)
            if fell[b] < 0:  # it lies on the rim in the log: nothing to undo
                note(out, t, N_FALL, b)
        elif typ == I_JAM:
            g = inp.inj_goal[t, e]
            if g < 0:
                note(out, t, N_JAM_FREED, b)
            elif g == g_def:  # any ball, own or opponent's (G-19: the shooter's defence goal)
                jammed[b] = True
                nf = _add_ball_foul(fr, ft, fk, fnb, fb, fd, nf, F_G19, tm, K_JAM, D_PLAIN, 0, 0,
                                    b)
            else:  # between a goal's caps without touching the cloth: it counts as a drop
                nd = jam_drop(b, g, tm, db, dg, dt, nd)
        elif typ == I_FOUL:
            kind = inp.inj_kind[t, e]
            err, ea, eb = _injected_foul_error(s, b, kind, on0, inp.inj_rb[t, e],
                                               inp.inj_rn[t, e])
            if err != E_NONE:
                error(out, t, err, ea, eb)
                return nd, nf, False
            k = add_foul(fr, ft, fk, fnb, fb, fd, nf, F_G18, tm, kind, D_INJECTED, 0, 0)
            if k >= 0:
                fd[k, 3] = e  # its event: the balls an RF foul puts back
                if b >= 0:
                    fb[k, 0] = b
                    fnb[k] = 1
                nf += 1
    return nd, nf, True


@nb.njit(cache=True)
def _injected_foul_error(s, b, kind, on0, rb, rn):
    """An injected G-18 foul's input error: a deflect foul that does not name a ball of the side
    its kind needs, or a ball to put back (``rb[:rn]``) that was not on the table (``on0``).
    Returns (error code, value, value), E_NONE when fine."""
    need = -1
    if kind == K_DEFLECT_OWN:
        need = s
    elif kind == K_DEFLECT_OPP:
        need = 1 - s
    if need >= 0 and (b < 0 or b // BALLS_PER_SIDE != need):
        return E_DEFLECT_NEEDS, kind, b
    for i in range(rn):
        if not on0[rb[i]]:
            return E_RESTORE_NOT_ON_TABLE, rb[i], 0
    return E_NONE, 0, 0


@nb.njit(cache=True)
def _turn_order_fouls(s, c, duo, player, partner, fr, ft, fk, fnb, fb, fd, nf):
    """G-18 fouls of who struck what: G-2 the cue ball ``c`` is not side ``s``'s; G-31 (duos,
    ``duo`` > 0) the ``player`` who struck is not the due ``partner`` (-1: not given). Returns
    the new foul count."""
    # G-2: only own balls may be struck; striking the opponent's is a G-18 foul.
    if c // BALLS_PER_SIDE != s:
        nf = _add_ball_foul(fr, ft, fk, fnb, fb, fd, nf, F_G18, 0.0, K_PLAYED_OPP,
                            D_PLAYED_OPP, 0, 0, c)
    # G-31: partners alternate; out-of-order play is a G-18 foul.
    if duo > 0 and player >= 0 and player != partner:
        k = add_foul(fr, ft, fk, fnb, fb, fd, nf, F_G18, 0.0, K_OUT_OF_TURN, D_OUT_OF_TURN,
                     player, partner)
        if k >= 0:
            nf += 1
    return nf


@nb.njit(cache=True)
def heading_stop(c, fc_time, db, dt, nd):
    """When the cue ball's heading stops counting for G-10 [s]: its first contact
    (``fc_time``) or its drop (among ``db[:nd]``, at ``dt``), whichever is first."""
    t_stop = fc_time
    for i in range(nd):
        if db[i] == c and dt[i] < t_stop:
            t_stop = dt[i]
    return t_stop


@nb.njit(cache=True)
def _cue_turned(t, c, t_stop, dx, dy, lg, inp, prm, seg, masse_deg):
    """G-10 exemption: table t's cue ball c turned from its heading (dx, dy) by ``masse_deg``
    or more, or reversed, before ``t_stop`` [s] (a masse or pique; see
    :func:`_masse_or_pique`). ``seg`` is the path buffer."""
    ns = _path(c, t, lg, inp, prm, seg)
    return _masse_or_pique(c, t_stop, dx, dy, lg.n_events[t], lg.ev_type[t], lg.ev_time[t],
                           lg.ev_i[t], lg.ev_state[t], lg.rvw0[t], inp.physics[t], seg, ns,
                           masse_deg)


@nb.njit(cache=True)
def _vliegeren(c, pcx, pcy, fc_type, fc_other, ga, fr, ft, fk, fnb, fb, fd, nf):
    """G-11: the cue ball c lay at (pcx, pcy) [m] in a long-cushion strip and its first contact
    is that strip's cushion. Returns the new foul count."""
    for k2 in range(2):
        if in_poly(ga.polys, ga.nv, ga.strip[k2], pcx, pcy) and fc_type == EV_BALL_CUSHION \
                and fc_other == ga.strip_cushion[k2]:
            nf = _add_ball_foul(fr, ft, fk, fnb, fb, fd, nf, F_G11, 0.0, K_VLIEGEREN, D_PLAIN,
                                k2, 0, c)
    return nf


@nb.njit(cache=True)
def _own_ball_first(s, c, fc_type, fc_time, fc_other, fr, ft, fk, fnb, fb, fd, nf):
    """G-12: side s's cue ball c first touched (at ``fc_time`` [s]) another own ball, before
    any cushion, cap or opponent's ball. Returns the new foul count."""
    if fc_type == EV_BALL_BALL and fc_other // BALLS_PER_SIDE == s and c // BALLS_PER_SIDE == s:
        k = add_foul(fr, ft, fk, fnb, fb, fd, nf, F_G12, fc_time, K_OWN_BALL, D_PLAIN, 0, 0)
        if k >= 0:
            fb[k, 0] = c
            fb[k, 1] = fc_other
            fnb[k] = 2
            nf += 1
    return nf


@nb.njit(cache=True)
def _duty_met_now(t, duty, on0, gone, g_def, lg, inp, prm, ga, seg):
    """G-14: table t's stroke met the defence duty of the turn: a duty ball (``duty`` (N_BALLS,)
    bool, on the table before the stroke) dropped, went off the table or left the great
    defence triangle of goal ``g_def``; met too when no ball carries the duty."""
    one = np.empty(1, np.int64)
    one[0] = ga.great_in[g_def]
    any_duty = False
    for b in range(N_BALLS):
        if duty[b] and on0[b]:
            any_duty = True
            if gone[b]:
                return True
            ns = _path(b, t, lg, inp, prm, seg)
            if path_leaves(seg, ns, ga.polys, ga.nv, ga.lines, one, 1):
                return True
    return not any_duty


@nb.njit(cache=True)
def _in(fb, fnb, k, b):
    if k < 0:
        return False
    for i in range(fnb[k]):
        if fb[k, i] == b:
            return True
    return False


@nb.njit(cache=True)
def _push(t, c, pcx, pcy, d0x, d0y, direct, g_att, before, gap, ga, fr, ft, fk, fnb, fb, fd,
          nf, n_ev, ev_type, ev_i, ev_j, rvw0, final, gone):
    """G-13: the first thing the cue ball is frozen to (balls, cushions, caps, by index) that
    the stroke points into, or a frozen neighbour ball that moved although the stroke did not
    point away from it (it went along the contact); a goal attempt off the front / outer side
    cap is exempt. ``n_ev`` .. ``gone``: the stroke's events and end, to tell what moved."""
    m = N_BALLS + ga.cushions.shape[0] + ga.caps.shape[0]
    kinds = np.empty(m, np.int64)
    ks = np.empty(m, np.int64)
    us = np.empty((m, 2))
    moved = np.zeros(N_BALLS, np.bool_)
    n = frozen_list(before, c, ga, gap, kinds, ks, us)
    for i in range(n):
        kind, k = kinds[i], ks[i]
        into = d0x * us[i, 0] + d0y * us[i, 1]
        if into < -1e-12:
            continue  # the stroke points away from it
        if into <= 1e-12:  # along the contact: only a frozen ball that moved is pushed
            if kind != 0:
                continue
            moved_balls(n_ev, ev_type, ev_i, ev_j, rvw0, before, final, gone, moved)
            if not moved[k]:
                continue
        if kind == 2 and direct and (k == ga.front_caps[g_att] or k == ga.outer_caps[0]
                                     or k == ga.outer_caps[1]):
            sign = 1.0 if g_att == 0 else -1.0
            if (pcx - ga.caps[k, 0]) * sign > 0:
                continue  # G-13 exception: goal attempt off the front / outer side cap
        j = add_foul(fr, ft, fk, fnb, fb, fd, nf, F_G13, 0.0, K_PUSH, D_PLAIN, kind, k)
        if j >= 0:
            fb[j, 0] = c
            fnb[j] = 1
            nf += 1
        return nf
    return nf


@nb.njit(cache=True)
def _blocking(t, s, g_att, before, final, gone, lg, rp, ga, fr, ft, fk, fnb, fb, fd, nf):
    """G-15: a defender ball that was in the great or small attack triangle stays in the small
    one while the shooter's (moved) balls end in the great attack triangle."""
    opp = 1 - s
    blocked = False
    for b in range(opp * BALLS_PER_SIDE, (opp + 1) * BALLS_PER_SIDE):
        if math.isnan(before[b, 0]):
            continue
        x, y = before[b, 0], before[b, 1]
        was = in_poly(ga.polys, ga.nv, ga.great_in[g_att], x, y) or in_poly(
            ga.polys, ga.nv, ga.small_out[g_att], x, y)
        if was and not math.isnan(final[b, 0]) and in_poly(
                ga.polys, ga.nv, ga.small_out[g_att], lg.rvw[t, b, 0, 0], lg.rvw[t, b, 0, 1]):
            blocked = True
    if not blocked:
        return nf
    moved = np.zeros(N_BALLS, np.bool_)
    moved_balls(lg.n_events[t], lg.ev_type[t], lg.ev_i[t], lg.ev_j[t], lg.rvw0[t], before, final,
                gone, moved)
    k = -2
    for b in range(s * BALLS_PER_SIDE, (s + 1) * BALLS_PER_SIDE):
        if math.isnan(final[b, 0]):
            continue
        if (rp[R_BLOCKALL] > 0 or moved[b]) and in_poly(ga.polys, ga.nv, ga.great_in[g_att],
                                                          lg.rvw[t, b, 0, 0], lg.rvw[t, b, 0, 1]):
            if k == -2:
                k = add_foul(fr, ft, fk, fnb, fb, fd, nf, F_G15, lg.t_end[t], K_BLOCKING,
                             D_PLAIN, 0, 0)
                if k < 0:
                    return nf
                nf += 1
            fb[k, fnb[k]] = b
            fnb[k] += 1
    return nf
