"""Compiled golfbillard game flow and the batched referee entry point (specs/golfbillard.md).

- G-3 the opening is refereed in ``golf_opening`` (:func:`referee_opening`); the state after it
  here (:func:`advance_opening`).
- G-1 / G-9 turns (:func:`advance_play`), G-14 the defence duty of each new turn
  (:func:`start_turn`), G-20 kader play, G-5 no progress, G-4 matches (:func:`finish_game`),
  G-31 duos (partners alternate per turn).
- :func:`play_kernel` referees one stroke per table (opening or play, ``prange`` over tables)
  and writes the outcomes and the next states; states are copied as arrays, row by row.

Numba caches each file's functions by that file's time stamp only: after editing a kernel file
this one calls (golf_opening, golf_stroke, golf_drops, golf_apply, golf_spots, golf_paths),
touch this file too so the cached entry points are rebuilt.
"""

from __future__ import annotations

import math

import numba as nb

from .golf_apply import balls_left
from .golf_arrays import (
    BALLS_PER_SIDE,
    N_BALLS,
    R_ALT,
    R_DEC0,
    R_DEC1,
    R_DUO,
    R_GTW,
    R_MAXG,
    R_NPT,
    R_NPW,
)
from .golf_codes import (
    E_NONE,
    P_OPENING,
    P_OVER,
    P_PLAY,
)
from .golf_opening import referee_opening
from .golf_paths import in_poly
from .golf_stroke import referee_play

# ---------------------------------------------------------------------------------------------
# Turns, games, matches (one table row of a GolfStates, in place)
# ---------------------------------------------------------------------------------------------


@nb.njit(cache=True)
def defence_duty(xy, side, ga, out):
    """G-14: out (10,) = own balls of ``side`` in its own great (+eps) or small (-eps) defence
    triangle."""
    g = 1 - side
    for b in range(N_BALLS):
        out[b] = False
        if b // BALLS_PER_SIDE == side and not math.isnan(xy[b, 0]):
            x, y = xy[b, 0], xy[b, 1]
            out[b] = in_poly(ga.polys, ga.nv, ga.great_in[g], x, y) or in_poly(
                ga.polys, ga.nv, ga.small_out[g], x, y)


@nb.njit(cache=True)
def start_turn(ns, t, side, ga):
    """A new turn of ``side``: G-14 records its own balls in its defence triangles."""
    ns.to_move[t] = side
    defence_duty(ns.xy[t], side, ga, ns.duty[t])
    ns.duty_met[t] = False
    ns.turn_strokes[t] = 0
    ns.turn_scored[t] = False


@nb.njit(cache=True)
def reset_game(ns, t, rp, ga):
    """Balls on their start spots and every per-game field cleared (G-3)."""
    ns.xy[t, :, :] = ga.start
    ns.to_move[t] = 0
    ns.phase[t] = P_PLAY if rp[R_ALT] > 0 else P_OPENING
    ns.kader[t] = False
    ns.duty[t, :] = False
    ns.duty_met[t] = False
    ns.turn_strokes[t] = 0
    ns.turn_scored[t] = False
    ns.on_spot[t, :] = 0
    ns.fouled_spots[t, :, :] = False
    ns.turns[t] = 0
    ns.idle_turns[t] = 0
    ns.match_winner[t] = -1
    ns.stroke_no[t] = 0


@nb.njit(cache=True)
def next_game(ns, t, rp, ga):
    """The next game of the match: balls on their start spots, G-31 openers, G-3 opening."""
    reset_game(ns, t, rp, ga)
    ns.game_no[t] += 1
    if rp[R_DUO] == 0:  # singles: one player per side (partner 0)
        ns.openers[t, 0] = 0
        ns.openers[t, 1] = 0
    elif ns.game_no[t] == 1:  # G-31: in the second game the other partner opens
        ns.openers[t, 0] = 1 - ns.first_openers[t, 0]
        ns.openers[t, 1] = 1 - ns.first_openers[t, 1]
    else:  # deciding game: configured
        ns.openers[t, 0] = int(rp[R_DEC0])
        ns.openers[t, 1] = int(rp[R_DEC1])
    ns.partner[t, :] = ns.openers[t]
    if rp[R_ALT] > 0:
        start_turn(ns, t, 0, ga)  # G-3 option alternate: side 0 starts every game


@nb.njit(cache=True)
def finish_game(ns, t, winner, rp, ga):
    """Record a finished game (0 / 1, 2 for a G-5 draw); start the next or end the match (G-4:
    first to ``games_to_win``; drawn games count as played, after ``max_games`` the side with
    more wins takes the match, equal wins draw it)."""
    ns.winner[t] = winner
    if winner == 0 or winner == 1:
        ns.games_won[t, winner] += 1
    g0, g1 = ns.games_won[t, 0], ns.games_won[t, 1]
    if max(g0, g1) >= rp[R_GTW]:
        ns.match_winner[t] = 0 if g0 >= g1 else 1
        ns.phase[t] = P_OVER
        return
    if ns.game_no[t] + 1 >= rp[R_MAXG]:
        ns.match_winner[t] = 2 if g0 == g1 else (0 if g0 > g1 else 1)
        ns.phase[t] = P_OVER
        return
    next_game(ns, t, rp, ga)


@nb.njit(cache=True)
def end_turn(ns, t, rp, ga):
    """The side at the table loses the turn: G-5 bookkeeping, G-31 partner rotation."""
    s = ns.to_move[t]
    ns.turns[t] += 1
    if not ns.kader[t] and rp[R_NPW] > 0:  # G-5, not in kader play
        if ns.turn_scored[t]:
            ns.idle_turns[t] = 0
        elif ns.turns[t] > rp[R_NPT]:
            ns.idle_turns[t] += 1
        if ns.idle_turns[t] >= 2 * rp[R_NPW]:
            finish_game(ns, t, 2, rp, ga)
            return
    if rp[R_DUO] > 0:
        ns.partner[t, s] = 1 - ns.partner[t, s]  # G-31: partners alternate per turn
    start_turn(ns, t, 1 - s, ga)


@nb.njit(cache=True)
def advance_play(ns, t, out, rp, ga):
    """The state after a play stroke (G-1, G-20, G-4)."""
    ns.xy[t, :, :] = out.xy[t]
    ns.on_spot[t, :] = out.on_spot[t]
    ns.fouled_spots[t, :, :] = out.fouled_spots[t]
    ns.kader[t] = out.kader[t] or balls_left(ns.xy[t], 0) == 1 or balls_left(ns.xy[t], 1) == 1
    ns.stroke_no[t] += 1
    if out.scored[t, 0] > 0 or out.scored[t, 1] > 0:
        ns.turn_scored[t] = True
    if out.game_over[t]:
        finish_game(ns, t, out.winner[t], rp, ga)
    elif out.turn_kept[t]:  # G-1
        ns.turn_strokes[t] += 1
        ns.duty_met[t] = out.duty_met[t]
    else:
        end_turn(ns, t, rp, ga)


@nb.njit(cache=True)
def advance_opening(ns, t, out, rp, ga):
    """The state after the opening: the first turn (G-3) with its partner (G-31), or a repeat."""
    ns.xy[t, :, :] = out.xy[t]
    ns.stroke_no[t] += 1
    ns.on_spot[t, :] = out.on_spot[t]  # the spots of the balls put on their own side's (G-26)
    if out.game_over[t]:
        finish_game(ns, t, out.winner[t], rp, ga)
        return
    # G-20: a repeat after double scores can leave a side on one ball (its next opening starts
    # in kader play, which stays on)
    ns.kader[t] = balls_left(ns.xy[t], 0) == 1 or balls_left(ns.xy[t], 1) == 1
    if out.op_repeat[t]:
        return
    w = out.op_first[t]
    ns.phase[t] = P_PLAY
    if rp[R_DUO] > 0:
        # G-31: the winner continues with its second partner, unless the opening scored
        # validly: then the opener continues his turn. The loser's next turn is its partner's.
        ns.partner[t, w] = ns.openers[t, w] if out.op_scored[t, w] else 1 - ns.openers[t, w]
        ns.partner[t, 1 - w] = 1 - ns.openers[t, 1 - w]
    start_turn(ns, t, w, ga)  # G-14: the opening itself is exempt
    ns.turn_scored[t] = out.op_scored[t, w]


# ---------------------------------------------------------------------------------------------
# Batched entry points
# ---------------------------------------------------------------------------------------------


@nb.njit(cache=True)
def _copy_row(st, ns, t):
    ns.xy[t, :, :] = st.xy[t]
    ns.to_move[t] = st.to_move[t]
    ns.phase[t] = st.phase[t]
    ns.kader[t] = st.kader[t]
    ns.duty[t, :] = st.duty[t]
    ns.duty_met[t] = st.duty_met[t]
    ns.turn_strokes[t] = st.turn_strokes[t]
    ns.turn_scored[t] = st.turn_scored[t]
    ns.on_spot[t, :] = st.on_spot[t]
    ns.fouled_spots[t, :, :] = st.fouled_spots[t]
    ns.turns[t] = st.turns[t]
    ns.idle_turns[t] = st.idle_turns[t]
    ns.winner[t] = st.winner[t]
    ns.games_won[t, :] = st.games_won[t]
    ns.game_no[t] = st.game_no[t]
    ns.match_winner[t] = st.match_winner[t]
    ns.partner[t, :] = st.partner[t]
    ns.openers[t, :] = st.openers[t]
    ns.first_openers[t, :] = st.first_openers[t]
    ns.stroke_no[t] = st.stroke_no[t]
    ns.seed[t] = st.seed[t]


@nb.njit(cache=True)
def _play_table(t, st, lg, inp, ga, rp, prm, out, ns):
    _copy_row(st, ns, t)
    if st.phase[t] == P_OPENING:
        referee_opening(t, st, lg, inp, ga, rp, prm, out)
        if out.err[t] == E_NONE:
            advance_opening(ns, t, out, rp, ga)
    elif st.phase[t] == P_PLAY:
        referee_play(t, st, lg, inp, ga, rp, prm, out)
        if out.err[t] == E_NONE:
            advance_play(ns, t, out, rp, ga)


@nb.njit(cache=True, parallel=True)
def play_kernel(st, lg, inp, ga, rp, prm, out, ns, rows):
    """Referee one stroke on each table of ``rows`` ((n,) int64 indices into the T tables) and
    write their outcomes and next states (prange); the other tables' rows are not touched (a
    batch where only some tables struck is refereed in place, without copying its rows out)."""
    for i in nb.prange(rows.shape[0]):
        _play_table(rows[i], st, lg, inp, ga, rp, prm, out, ns)


@nb.njit(cache=True)
def play_serial(st, lg, inp, ga, rp, prm, out, ns, rows):
    """:func:`play_kernel` on the calling thread (small batches, forked workers: see
    ``cuegym.physics.parallel.pool_turn``)."""
    for i in range(rows.shape[0]):
        _play_table(rows[i], st, lg, inp, ga, rp, prm, out, ns)


@nb.njit(cache=True)
def new_games_kernel(ns, rp, ga):
    """Every row a fresh game (G-3, after :func:`reset_game`; ``alternate``: side 0 starts,
    with its duty)."""
    for t in range(ns.to_move.shape[0]):
        reset_game(ns, t, rp, ga)
        if rp[R_ALT] > 0:
            start_turn(ns, t, 0, ga)


@nb.njit(cache=True)
def start_turns_kernel(ns, sides, ga):
    """:func:`start_turn` of ``sides[t]`` on every row."""
    for t in range(ns.to_move.shape[0]):
        start_turn(ns, t, sides[t], ga)


@nb.njit(cache=True)
def finish_games_kernel(ns, winners, rp, ga):
    """:func:`finish_game` with ``winners[t]`` on every row."""
    for t in range(ns.to_move.shape[0]):
        finish_game(ns, t, winners[t], rp, ga)
