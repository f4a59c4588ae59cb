"""Compiled golfbillard consequences of a play stroke (G-6 .. G-9, G-14, G-17, G-25 .. G-30).

:func:`apply_stroke` takes the fouls :func:`cuegym.rules.golf_stroke.referee_play` found (in
G-19a order) and applies the penalised one's consequence letters (LT, RA, RF, CS, SPOT, GOAL,
PICK) and nothing else: goals, balls replaced or restored, penalty spots (G-26, G-30), G-17
opponent balls into their goal, game end (G-4, G-17a), turn kept (G-1, G-9); when the turn ends
without a foul and the G-14 defence duty of the turn is unmet, G-14 is applied instead. Writes
row ``t`` of the outcomes; :func:`note` and :func:`error` record notes and input errors.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .golf_arrays import BALLS_PER_SIDE, MAX_NOTES, N_BALLS, R_PICK, R_REPLACEOFF, R_SPOT
from .golf_codes import (
    CS,
    E_NONE,
    E_RESTORE_CAP,
    E_RESTORE_GOAL,
    E_RESTORE_OFF_CLOTH,
    E_RESTORE_OVERLAP,
    F_G8,
    F_G14,
    F_G16,
    F_G17,
    F_G18,
    GOAL,
    K_DEFENCE,
    KIND_BITS,
    LT,
    N_PICK_UNUSED,
    N_SPOTS_UNUSED,
    PICK,
    RA,
    RF,
    RULE_BITS,
    SPOT,
)
from .golf_spots import moved_balls, pick_ball, place_on_spots


@nb.njit(cache=True)
def note(out, t, code, ball):
    """Append note ``code`` (with its ball or value) to table t's outcome."""
    k = out.n_notes[t]
    if k < MAX_NOTES:
        out.note_code[t, k] = code
        out.note_ball[t, k] = ball
        out.n_notes[t] = k + 1


@nb.njit(cache=True)
def error(out, t, code, a, b):
    """Record table t's first input error (code and two values); the caller stops."""
    if out.err[t] == E_NONE:
        out.err[t] = code
        out.err_a[t] = a
        out.err_b[t] = b


@nb.njit(cache=True)
def apply_stroke(t, s, c, kader, fr, ft, fk, fnb, fb, fd, nf, db, dg, dt, nd, is_off, off_time,
                 off_seq, jammed, before, final, duty_met, left, on0, st, lg, inp, ga, rp, out):
    """Apply the penalised foul's consequences (and nothing else) and settle the stroke; when
    the turn ends without a foul and the G-14 duty is unmet, apply G-14 instead (a second
    pass).

    Step by step: where each ball goes (goal, put back, restored, into its goal, penalty spot),
    the G-26 / G-30 penalty spots, game end and turn, then row t of ``out``."""
    opp = 1 - s
    moved = stroke_moved(lg.n_events[t], lg.ev_type[t], lg.ev_i[t], lg.ev_j[t], lg.rvw0[t],
                         before, final, db, nd, is_off, jammed)
    # G-17 exception to "only the first foul": an opponent's ball played off the table (or left
    # on a cushion, goal cap or cover) always goes into its goal, whatever foul is penalised.
    opp_off, n_oo, is_opp_off = _opponent_balls_off(opp, is_off, off_time, off_seq)
    xy = np.empty((N_BALLS, 2))
    removed = np.zeros(N_BALLS, np.bool_)
    rtime = np.zeros(N_BALLS)
    to_spot = np.zeros(N_BALLS, np.bool_)
    replaced = np.zeros(N_BALLS, np.bool_)
    into = np.zeros(N_BALLS, np.int64)
    fouled = np.empty((2, 5), np.bool_)
    on_spot = np.zeros(N_BALLS, np.int64)
    allowed = np.zeros(5, np.bool_)
    order = np.zeros(N_BALLS, np.int64)
    for attempt in range(2):
        xy[:] = final
        removed[:] = False
        to_spot[:] = False
        replaced[:] = False
        has = nf > 0
        letters = penalty_letters(fr, fk, nf, kader)
        if not has or not (letters & RA):
            count_drops(s, db, dg, dt, nd, removed, rtime, to_spot)  # G-6, G-7, G-8
        n_into = 0
        # --- the penalised foul's consequence letters ----------------------------------------
        if has:
            _put_back(letters, fr[0], rp[R_REPLACEOFF], moved, before, final, is_opp_off, xy,
                      replaced)
            if letters & RF:  # G-18 deflect: the balls the foul displaced go back
                e = int(fd[0, 3])
                _restore(inp.inj_rn[t, e], inp.inj_rb[t, e], inp.inj_rxy[t, e], xy, removed,
                         to_spot, replaced)
            n_into = _penalised_balls(letters, fr[0], fb[0], fnb[0], ft[0], opp, c, removed,
                                      rtime, to_spot, into)
            if letters & PICK:
                b, err, ev = pick_ball(s, c, xy, ga, int(rp[R_PICK]), inp.pick[t],
                                       inp.draws[t, 0])
                if err != E_NONE:
                    error(out, t, err, ev, s)
                    return
                if b >= 0:
                    to_spot[b] = True
        n_into = _into_their_goal(opp_off, n_oo, off_time, removed, rtime, into, n_into)  # G-17
        _off_balls_to_spots(is_off, jammed, xy, removed, replaced, to_spot)
        lift_balls(xy, removed, to_spot)
        if has and letters & RF:
            err, eb, eo = _check_restored(xy, inp.inj_rb[t, int(fd[0, 3])],
                                          inp.inj_rn[t, int(fd[0, 3])], ga)
            if err != E_NONE:
                error(out, t, err, eb, eo)
                return
        # --- G-26: in kader play, a foul stroke with the cue ball lying on a penalty spot ----
        g26 = _cue_on_spot(s, c, kader and has, st.on_spot[t], st.fouled_spots[t], removed,
                           to_spot, xy, fouled, allowed)
        kept_on_spot(st.on_spot[t], before, xy, on_spot)
        # --- G-30: place the balls one at a time, the cue ball first ---------------------------
        n_order = spot_order(c, to_spot, order)
        # the shooter is the offender: its spots, for an opponent's ball too (G-19)
        n_sp, used, err, ev, eb = place_on_spots(order, n_order, np.full(N_BALLS, s, np.int64),
                                                 xy, ga, int(rp[R_SPOT]), inp.spot_n[t],
                                                 inp.spot_choice[t], g26, allowed,
                                                 inp.draws[t, 1:], out.spot_ball[t],
                                                 out.spot_k[t], on_spot)
        if err != E_NONE:
            error(out, t, err, ev, eb)
            return
        # --- G-4 / G-17a: game over ---------------------------------------------------------
        left_after, scored = count_balls(xy, removed, on_spot)
        valid_own = scored[s]
        winner = game_winner(s, left_after, n_into, removed, rtime)
        game_over = winner >= 0
        # G-1, G-9; a penalised foul without LT (G-19) leaves a valid goal its turn
        turn_kept = (not has or not (letters & LT)) and valid_own > 0 and not game_over
        # --- G-14: the defence-triangle duty, checked when the turn ends without a foul -------
        if attempt == 0 and not turn_kept and not game_over and not has and not duty_met:
            nf = _defence_foul(lg.t_end[t], st.duty[t], on0, fr, ft, fk, fnb, fb, fd)
            continue
        break
    # --- write the outcome -------------------------------------------------------------------
    out.kader[t] = kader
    out.cons[t] = letters
    write_fouls(out, t, fr, ft, fk, fnb, fb, fd, nf)
    write_drops(out, t, db, dg, dt, nd)
    _write_balls(out, t, xy, on_spot, fouled, replaced, n_sp, removed, scored, valid_own, into,
                 n_into)
    out.turn_kept[t] = turn_kept
    out.duty_met[t] = duty_met if attempt == 0 else False
    out.left_kader[t] = left
    out.game_over[t] = game_over
    out.winner[t] = winner
    if inp.spot_n[t] > used:
        note(out, t, N_SPOTS_UNUSED, used)
    if inp.pick[t] >= 0 and not letters & PICK:
        note(out, t, N_PICK_UNUSED, -1)


@nb.njit(cache=True)
def stroke_moved(n, ev_type, ev_i, ev_j, rvw0, before, final, db, nd, is_off, jammed):
    """(N_BALLS,) bool: the balls the stroke moved (see
    :func:`cuegym.rules.golf_spots.moved_balls`), counting every ball dropped (``db[:nd]``),
    off the table or jammed."""
    gone_all = np.zeros(N_BALLS, np.bool_)
    for i in range(nd):
        gone_all[db[i]] = True
    for b in range(N_BALLS):
        gone_all[b] = gone_all[b] or is_off[b] or jammed[b]
    moved = np.zeros(N_BALLS, np.bool_)
    moved_balls(n, ev_type, ev_i, ev_j, rvw0, before, final, gone_all, moved)
    return moved


@nb.njit(cache=True)
def _opponent_balls_off(opp, is_off, off_time, off_seq):
    """G-17: side ``opp``'s balls played off the table (or left on a cushion, goal cap or
    cover), by off time and then order of mention: (N_BALLS,) those balls first, their count,
    (N_BALLS,) bool which they are."""
    opp_off = np.zeros(N_BALLS, np.int64)
    is_opp_off = np.zeros(N_BALLS, np.bool_)
    n_oo = 0
    for _ in range(BALLS_PER_SIDE):
        best = -1
        for b in range(opp * BALLS_PER_SIDE, (opp + 1) * BALLS_PER_SIDE):
            if is_off[b] and (best < 0 or off_time[b] < off_time[best] or (
                    off_time[b] == off_time[best] and off_seq[b] < off_seq[best])):
                taken = False
                for i in range(n_oo):
                    taken = taken or opp_off[i] == b
                if not taken:
                    best = b
        if best < 0:
            break
        opp_off[n_oo] = best
        n_oo += 1
    for i in range(n_oo):
        is_opp_off[opp_off[i]] = True
    return opp_off, n_oo, is_opp_off


@nb.njit(cache=True)
def penalty_letters(fr, fk, nf, kader):
    """The consequence letters (RA | RF | CS | ...) of the penalised foul, the first of
    ``nf`` (G-19a); a G-18 foul's by its kind ``fk``, in kader play its kader letters (G-25).
    0 without a foul."""
    if nf == 0:
        return 0
    return KIND_BITS[fk[0], 1 if kader else 0] if fr[0] == F_G18 else RULE_BITS[fr[0]]


@nb.njit(cache=True)
def count_drops(s, db, dg, dt, nd, removed, rtime, to_spot):
    """G-6, G-7: the drops ``db[:nd]`` (into goal ``dg`` at ``dt`` [s]) count for their side
    (``removed``, ``rtime``); G-8: side s's ball in its own defence goal is no goal and goes
    to a penalty spot (``to_spot``)."""
    g_att = s
    for i in range(nd):
        b = db[i]
        if b // BALLS_PER_SIDE == s and dg[i] != g_att:
            to_spot[b] = True
        else:
            removed[b] = True
            rtime[b] = dt[i]


@nb.njit(cache=True)
def _put_back(letters, rule, replace_off, moved, before, final, is_opp_off, xy, replaced):
    """RA: every ball the stroke moved goes back to where it lay ``before``; with the option
    ``replace_on_off_table`` (``replace_off`` > 0) a G-16 / G-17 foul puts back those still on
    the table. An opponent's ball off the table (``is_opp_off``) goes into its goal instead
    (G-17)."""
    if letters & RA:
        for b in range(N_BALLS):
            if moved[b] and not is_opp_off[b]:
                xy[b, 0], xy[b, 1] = before[b, 0], before[b, 1]
                replaced[b] = True
    elif (rule == F_G16 or rule == F_G17) and replace_off > 0:
        for b in range(N_BALLS):
            if moved[b] and not math.isnan(final[b, 0]) and not is_opp_off[b]:
                xy[b, 0], xy[b, 1] = before[b, 0], before[b, 1]
                replaced[b] = True


@nb.njit(cache=True)
def _restore(rn, rb, rxy, xy, removed, to_spot, replaced):
    """RF (G-18 deflect): only the balls the foul displaced go back, ``rb[:rn]`` to ``rxy``
    (rn, 2) [m] (the injected event carries them); the others, dropped balls included, stay
    as the stroke left them."""
    for i in range(rn):
        b = rb[i]
        removed[b] = False
        to_spot[b] = False
        xy[b, 0], xy[b, 1] = rxy[i, 0], rxy[i, 1]
        replaced[b] = True


@nb.njit(cache=True)
def _penalised_balls(letters, rule, balls, n_balls, time, opp, c, removed, rtime, to_spot,
                     into):
    """SPOT: the foul's balls (``balls[:n_balls]``) to penalty spots (G-8 spots its ball as a
    drop already); GOAL (G-18 deflect_opponent_ball): the touched opponent's ball into its goal
    at the foul's ``time`` [s], listed in ``into``; CS: the cue ball c to a penalty spot.
    Returns how many balls went into their goal."""
    n_into = 0
    if letters & SPOT and rule != F_G8:
        for i in range(n_balls):
            removed[balls[i]] = False  # a touched ball that dropped comes out for its spot
            to_spot[balls[i]] = True
    if letters & GOAL and rule == F_G18:
        for i in range(n_balls):
            b = balls[i]
            if b // BALLS_PER_SIDE == opp:
                into[n_into] = b
                n_into += 1
                removed[b] = True
                rtime[b] = time
    if letters & CS and not removed[c]:
        to_spot[c] = True
    return n_into


@nb.njit(cache=True)
def _into_their_goal(opp_off, n_oo, off_time, removed, rtime, into, n_into):
    """G-17 (whichever foul came first, G-17 itself included): the opponent's balls played off
    the table (``opp_off[:n_oo]``) go into their goal, scored for the opponent, when they left
    (``off_time`` [s], G-17a); appended to ``into``. Returns how many balls are in ``into``."""
    for i in range(n_oo):
        b = opp_off[i]
        if not removed[b]:
            into[n_into] = b
            n_into += 1
            removed[b] = True
            rtime[b] = off_time[b]
    return n_into


@nb.njit(cache=True)
def _off_balls_to_spots(is_off, jammed, xy, removed, replaced, to_spot):
    """Balls off the table, on the rail or jammed that the penalised foul does not deal with
    (nor RA brought back) go to a penalty spot of their side."""
    for b in range(N_BALLS):
        if is_off[b] or jammed[b]:
            if math.isnan(xy[b, 0]) and not removed[b]:
                to_spot[b] = True
            elif jammed[b] and not replaced[b] and not removed[b]:
                to_spot[b] = True


@nb.njit(cache=True)
def lift_balls(xy, removed, to_spot):
    """Lift the balls scored (``removed``) or going to a penalty spot from ``xy`` (NaN)."""
    for b in range(N_BALLS):
        if removed[b] or to_spot[b]:
            xy[b, 0] = np.nan
            xy[b, 1] = np.nan


@nb.njit(cache=True)
def _cue_on_spot(s, c, foul_in_kader, on_spot0, fouled0, removed, to_spot, xy, fouled, allowed):
    """G-26: in kader play, a foul stroke (``foul_in_kader``) whose cue ball c lay on a penalty
    spot (``on_spot0`` (N_BALLS,) spot 1..5 or 0 before the stroke) marks that spot fouled for
    side s (``fouled`` (2, 5), from ``fouled0``); the cue ball, unless scored, goes to a penalty
    spot, one of its side's spots not fouled (``allowed`` (5,)). Returns that ball, -1 if none.
    Only side s's own cue ball: an opponent's ball struck by a G-18 foul is not s's spot."""
    fouled[:] = fouled0
    g26 = -1
    if foul_in_kader and on_spot0[c] > 0 and c // BALLS_PER_SIDE == s:
        fouled[s, on_spot0[c] - 1] = True
        if not removed[c]:
            g26 = c
            if not to_spot[c]:
                xy[c, 0] = np.nan
                xy[c, 1] = np.nan
                to_spot[c] = True
            for k in range(5):
                allowed[k] = not fouled[g26 // BALLS_PER_SIDE, k]
    return g26


@nb.njit(cache=True)
def kept_on_spot(on_spot0, before, xy, on_spot):
    """``on_spot`` (N_BALLS,): the penalty spot of each ball (``on_spot0``) that still lies
    exactly where it lay ``before``, 0 for the others."""
    for b in range(N_BALLS):
        same = xy[b, 0] == before[b, 0] and xy[b, 1] == before[b, 1]
        on_spot[b] = on_spot0[b] if same else 0


@nb.njit(cache=True)
def spot_order(c, to_spot, order):
    """G-30: the balls ``to_spot`` in placing order into ``order``: the cue ball c first, then
    by number. Returns how many."""
    n_order = 0
    for m in range(N_BALLS + 1):
        b = c if m == 0 else m - 1
        if to_spot[b] and (m == 0 or b != c):
            order[n_order] = b
            n_order += 1
    return n_order


@nb.njit(cache=True)
def count_balls(xy, removed, on_spot):
    """(2,) each side's balls left on the table (``xy`` not NaN), (2,) each side's balls
    scored (``removed``); a ball off the table is on no spot (``on_spot`` cleared)."""
    left_after = np.zeros(2, np.int64)
    scored = np.zeros(2, np.int64)
    for b in range(N_BALLS):
        if math.isnan(xy[b, 0]):
            on_spot[b] = 0
        else:
            left_after[b // BALLS_PER_SIDE] += 1
        if removed[b]:
            scored[b // BALLS_PER_SIDE] += 1
    return left_after, scored


@nb.njit(cache=True)
def _defence_foul(t_end, duty, on0, fr, ft, fk, fnb, fb, fd):
    """G-14 becomes the only foul (the foul arrays held none), at the stroke's end ``t_end``
    [s], naming the duty balls (``duty``, on the table before the stroke: ``on0``). Returns
    the foul count, 1."""
    fr[0], ft[0], fk[0], fnb[0] = F_G14, t_end, K_DEFENCE, 0
    fd[0, :] = 0.0
    for b in range(N_BALLS):
        if duty[b] and on0[b]:
            fb[0, fnb[0]] = b
            fnb[0] += 1
    return 1


@nb.njit(cache=True)
def write_fouls(out, t, fr, ft, fk, fnb, fb, fd, nf):
    """The ``nf`` fouls (in G-19a order) into row t of ``out``."""
    out.n_fouls[t] = nf
    for i in range(nf):
        out.f_rule[t, i] = fr[i]
        out.f_kind[t, i] = fk[i]
        out.f_time[t, i] = ft[i]
        out.f_nb[t, i] = fnb[i]
        out.f_balls[t, i, :] = fb[i]
        out.f_det[t, i, :] = fd[i]


@nb.njit(cache=True)
def write_drops(out, t, db, dg, dt, nd):
    """The ``nd`` drops (ball, goal, time [s]; by time) into row t of ``out``."""
    out.n_drops[t] = nd
    for i in range(nd):
        out.drop_ball[t, i] = db[i]
        out.drop_goal[t, i] = dg[i]
        out.drop_time[t, i] = dt[i]


@nb.njit(cache=True)
def _write_balls(out, t, xy, on_spot, fouled, replaced, n_sp, removed, scored, valid_own, into,
                 n_into):
    """Where the balls ended into row t of ``out``: positions ``xy`` (N_BALLS, 2) [m], penalty
    spots, balls put back, ``n_sp`` balls spotted; the balls scored (``removed``, ``scored``
    (2,) per side, ``valid_own`` the shooter's), ``into[:n_into]`` put into their goal."""
    out.scored[t, 0], out.scored[t, 1] = scored[0], scored[1]
    out.scored_mask[t, :] = removed
    out.valid_own[t] = valid_own
    out.replaced[t, :] = replaced
    out.n_spotted[t] = n_sp
    out.n_into[t] = n_into
    out.into_ball[t, :n_into] = into[:n_into]
    out.xy[t, :, :] = xy
    out.on_spot[t, :] = on_spot
    out.fouled_spots[t, :, :] = fouled


@nb.njit(cache=True)
def game_winner(s, left_after, n_into, removed, rtime):
    """The side that won with side ``s``'s stroke, -1 if none: G-17a (``n_into`` balls put
    into their goal emptied the opponent), G-4 (both sides empty: the side whose last ball
    dropped first, ``s`` on a tie), or the side with no ball left (``left_after``: (2,) balls
    on the table; ``removed``, ``rtime``: (N_BALLS,) which balls scored, and when)."""
    opp = 1 - s
    if left_after[opp] == 0 and n_into > 0:
        return opp
    if left_after[0] == 0 and left_after[1] == 0:
        last = np.full(2, -np.inf)
        for b in range(N_BALLS):
            if removed[b] and rtime[b] > last[b // BALLS_PER_SIDE]:
                last[b // BALLS_PER_SIDE] = rtime[b]
        return s if last[s] <= last[opp] else opp
    if left_after[0] == 0:
        return 0
    if left_after[1] == 0:
        return 1
    return -1


@nb.njit(cache=True)
def _check_restored(xy, balls, n, ga):
    """A ball put back by RF must lie on the cloth, clear of caps, goals and the other balls:
    (error code, ball, the ball it overlaps or -1)."""
    R, tol = ga.R, 1e-7
    for i in range(n):
        b = balls[i]
        x, y = xy[b, 0], xy[b, 1]
        if abs(x) > ga.hx + tol or abs(y) > ga.hy + tol:
            return E_RESTORE_OFF_CLOTH, b, -1
        for k in range(ga.caps.shape[0]):
            if math.hypot(ga.caps[k, 0] - x, ga.caps[k, 1] - y) < R + ga.r_cap - tol:
                return E_RESTORE_CAP, b, -1
        for g in range(2):
            if math.hypot(ga.goals[g, 0] - x, ga.goals[g, 1] - y) < ga.goals[g, 2]:
                return E_RESTORE_GOAL, b, -1
        for o in range(N_BALLS):
            if o != b and not math.isnan(xy[o, 0]) and math.hypot(xy[o, 0] - x,
                                                                  xy[o, 1] - y) < 2 * R - tol:
                return E_RESTORE_OVERLAP, b, o
    return E_NONE, -1, -1


@nb.njit(cache=True)
def balls_left(xy, side):
    """How many of ``side``'s balls are on the table (``xy`` (N_BALLS, 2), NaN: off)."""
    n = 0
    for b in range(side * BALLS_PER_SIDE, (side + 1) * BALLS_PER_SIDE):
        if not math.isnan(xy[b, 0]):
            n += 1
    return n
