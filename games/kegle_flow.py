"""Keglebillard game flow, compiled: numba kernels over the table axis.

What happens to a game after its shot is scored (``cuegym.rules.keglebillard.score_shots``):
points and skæve to the players (K-9a, K-17, K-25), the unsporting loss (K-16 option), the table
after the shot (K-16 touched balls put back, K-19 ball in hand, K-18 spotting, K-P7 pins stood
up), and the end rules (K-20..K-22): who finished, who plays next, the final ranking. The K-19
placement check (:func:`placement_codes`) lives here too, once. Rule ids cite
docs/rules_keglebillard.md.

Kernels read and write plain arrays with a leading table axis; the state arrays are those of
:class:`~cuegym.games.kegle_state.KegleStates`, written in place into the caller's copy.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from cuegym.rules.keglebillard import GEOM_TOL

from .kegle_state import HAND_CLOTH, HAND_NONE, HAND_SALVO

#: :func:`placement_codes` results: why a placement cannot be played (K-19), and what ``which``
#: then names.
PLACE_OK, PLACE_NONE, PLACE_OFF_CLOTH, PLACE_POCKET, PLACE_JAW, PLACE_BALL, PLACE_PIN = range(7)

#: ``mode`` of :func:`resolve`: the table does not shoot; a played shot; a K-19 placement that
#: cannot be played (no shot).
MODE_SKIP, MODE_PLAYED, MODE_PLACEMENT_FOUL = 0, 1, 2


@njit(cache=True)
def placement_codes(place, whites, need, hx, hy, pockets, circles, pin_spots, R, r_pin, code,
                    which):
    """K-19: can the red be placed at ``place``? (T,) ``code`` (``PLACE_*``) and ``which``
    (the pocket, jaw, ball or pin in the way, else -1), for the tables with ``need``.

    The red may touch a ball but not overlap one, must lie on the cloth (centre within
    (L/2 - R, W/2 - R)), not in a pocket's capture circle nor on a jaw, and keep R + r_pin from
    every pin spot. A NaN placement is no placement. Placing it in front of the salvo line is
    not checked here: that shot is played with penalty 6 (K-15).

    Args:
        place: (T, 2) [m]. whites: (T, 2, 2) white and spotted centres, NaN when off.
        need: (T,) bool, tables to check (the others get PLACE_OK).
        hx, hy: L/2 - R, W/2 - R [m]. pockets: (P, 3) x, y, capture radius. circles: (C, 3)
        jaw x, y, radius. pin_spots: (5, 2). R: ball radius, r_pin: pin radius [m].
    """
    T = place.shape[0]
    for t in range(T):
        code[t] = PLACE_OK
        which[t] = -1
        if not need[t]:
            continue
        x, y = place[t, 0], place[t, 1]
        if not (math.isfinite(x) and math.isfinite(y)):
            code[t] = PLACE_NONE
            continue
        if not (abs(x) <= hx + 1e-12 and abs(y) <= hy + 1e-12):
            code[t] = PLACE_OFF_CLOTH
            continue
        found = False
        for k in range(pockets.shape[0]):
            if math.hypot(x - pockets[k, 0], y - pockets[k, 1]) < pockets[k, 2]:
                code[t], which[t], found = PLACE_POCKET, k, True
                break
        if found:
            continue
        for k in range(circles.shape[0]):
            if math.hypot(x - circles[k, 0], y - circles[k, 1]) < circles[k, 2] + R - GEOM_TOL:
                code[t], which[t], found = PLACE_JAW, k, True
                break
        if found:
            continue
        for w in range(2):
            wx, wy = whites[t, w, 0], whites[t, w, 1]
            if wx == wx and math.hypot(x - wx, y - wy) < 2 * R - GEOM_TOL:
                code[t], which[t], found = PLACE_BALL, w + 1, True
                break
        if found:
            continue
        for p in range(pin_spots.shape[0]):
            if math.hypot(x - pin_spots[p, 0], y - pin_spots[p, 1]) < R + r_pin - GEOM_TOL:
                code[t], which[t] = PLACE_PIN, p
                break


@njit(cache=True)
def _pos(order, p):
    for i in range(order.shape[0]):
        if order[i] == p:
            return i
    return -1


@njit(cache=True)
def _end_rules(order, remaining, scores, shooter, legal_pin, got, keep_turn, ddbu, distance,
               fin, n_fin, now, n_now):
    """K-21, K-21a, K-22 (K-25: reaching the distance always finishes). ``remaining`` (N,) by
    player id: still in and not lost; updated. Appends to ``fin``/``now``; returns
    (n_fin, n_now, over, to_play)."""
    N = order.shape[0]
    n_rem = 0
    for p in range(N):
        n_rem += remaining[p]
    i0 = _pos(order, shooter)
    for k in range(N):  # the shooter first, then the others in turn order
        p = order[(i0 + k) % N]
        if not remaining[p] or scores[p] < distance or n_rem < 2:
            continue
        if n_rem == 2 and not ddbu:
            # K-22: only by legally toppling a pin, or through the opponent's skæve
            if not ((p == shooter and legal_pin) or got[p]):
                continue
        remaining[p] = False
        n_rem -= 1
        fin[n_fin] = p
        n_fin += 1
        now[n_now] = p
        n_now += 1
    over = n_rem <= 1
    to_play = -1
    if over:
        for k in range(N):  # the last player left loses (K-22)
            p = order[k]
            if remaining[p]:
                fin[n_fin] = p
                n_fin += 1
                now[n_now] = p
                n_now += 1
    elif keep_turn and remaining[shooter]:
        to_play = shooter  # K-25: the visit goes on
    else:
        for k in range(1, N):
            p = order[(i0 + k) % N]
            if remaining[p]:
                to_play = p
                break
    return n_fin, n_now, over, to_play


@njit(cache=True)
def _win(order, in_game, scores, shooter, shooter_lost, fin, n_fin, now):
    """K-20: the shooter wins; the others still in rank by points, ties in turn order after
    the shooter. Returns (n_fin, n_now)."""
    N = order.shape[0]
    n_now = 0
    if not shooter_lost:
        now[0] = shooter
        n_now = 1
    start = n_now
    i0 = _pos(order, shooter)
    for k in range(1, N):
        p = order[(i0 + k) % N]
        if in_game[p]:
            # stable insertion by descending score
            j = n_now
            while j > start and scores[now[j - 1]] < scores[p]:
                now[j] = now[j - 1]
                j -= 1
            now[j] = p
            n_now += 1
    for k in range(n_now):
        fin[n_fin] = now[k]
        n_fin += 1
    return n_fin, n_now


@njit(cache=True)
def _spot_whites(xy, spots, R, spotted, waiting, wait_spot):
    """K-18: a white off the table goes on the spot farther from the other white (its own spot
    on a tie); both off: one on each spot. A covered spot (a ball within 2R) makes it wait for
    that spot, which stays its spot until a shot frees it (``wait_spot``, (2,) by white, read and
    written; -1: no spot chosen yet). ``xy`` (3, 2) is updated; ``spotted``, ``waiting`` (2,)
    bool by white are written."""
    off1 = xy[1, 0] != xy[1, 0]
    off2 = xy[2, 0] != xy[2, 0]
    k1 = wait_spot[0] if off1 else -1  # the spot of the white, of the spotted ball
    k2 = wait_spot[1] if off2 else -1
    if off1 and off2:
        if k1 < 0 and k2 < 0:
            k1, k2 = 0, 1
        elif k1 < 0:  # the other one already waits for its spot: this one takes the other
            k1 = 1 - k2
        elif k2 < 0:
            k2 = 1 - k1
    elif (off1 and k1 < 0) or (off2 and k2 < 0):
        w = 1 if off1 else 2
        other = 3 - w
        d0 = math.hypot(spots[0, 0] - xy[other, 0], spots[0, 1] - xy[other, 1])
        d1 = math.hypot(spots[1, 0] - xy[other, 0], spots[1, 1] - xy[other, 1])
        if abs(d0 - d1) <= GEOM_TOL:
            k = w - 1
        else:
            k = 0 if d0 >= d1 else 1
        if w == 1:
            k1 = k
        else:
            k2 = k
    wait_spot[0] = -1
    wait_spot[1] = -1
    for w in range(1, 3):
        k = k1 if w == 1 else k2
        if k < 0:
            continue
        covered = False
        for b in range(3):
            if xy[b, 0] == xy[b, 0] and math.hypot(xy[b, 0] - spots[k, 0],
                                                   xy[b, 1] - spots[k, 1]) < 2 * R - GEOM_TOL:
                covered = True
                break
        if covered:
            waiting[w - 1] = True
            wait_spot[w - 1] = k
        else:
            xy[w, 0], xy[w, 1] = spots[k, 0], spots[k, 1]
            spotted[w - 1] = True


@njit(cache=True)
def _restand_pins(xy, pins, pin_spots, respot_r, restood):
    """K-P7: stand every fallen pin whose spot is free (no ball centre within ``respot_r``)."""
    for p in range(pins.shape[0]):
        if pins[p]:
            continue
        free = True
        for b in range(3):
            if xy[b, 0] == xy[b, 0] and not math.hypot(
                    xy[b, 0] - pin_spots[p, 0], xy[b, 1] - pin_spots[p, 1]) > respot_r:
                free = False
                break
        if free:
            pins[p] = True
            restood[p] = True


@njit(cache=True)
def _recipients(order, in_game, shooter, only_next, to):
    """K-17: skæve go to every other player still in (option: only the next one)."""
    N = order.shape[0]
    i0 = _pos(order, shooter)
    for k in range(1, N):
        p = order[(i0 + k) % N]
        if in_game[p]:
            to[p] = True
            if only_next:
                return


@njit(cache=True)
def _pay_skaeve(order, in_game, shooter, only_next, skaeve, to, scores):
    """K-9a, K-17: ``skaeve`` points to each recipient (:func:`_recipients`, marked in ``to``
    (N,)), added to ``scores`` (N,): a K-19 placement foul's 6."""
    _recipients(order, in_game, shooter, only_next, to)
    for p in range(order.shape[0]):
        if to[p]:
            scores[p] += skaeve


@njit(cache=True)
def _credit(rules_i, foul, win, points, penalty, cushion, rodt, toppled, order, in_game,
            shooter, scores, run_nc, rodt_streak, flow_fouls, to):
    """Points and skæve of a played shot (K-9a, K-17, K-20; K-25 visits). ``toppled`` (5,):
    the pins the shot toppled. Updates ``scores`` (N,), writes ``flow_fouls`` (3,) and the
    recipients ``to`` (N,). Returns (foul, shooter_points, skaeve, keep_turn, run_nc,
    rodt_streak)."""
    ddbu = rules_i[0] != 0
    keep_turn = False
    shooter_points = 0
    skaeve = 0
    if ddbu:
        # K-25: a visit lasts while the player scores without a foul; a foul loses the shot's
        # points and the turn; a cushion at least every other scoring shot; the third rødt in
        # a row without a pin is a foul.
        if not foul and points > 0:
            if cushion:
                run_nc = 0
            elif run_nc >= 1:
                flow_fouls[1] = True
                foul = True
            else:
                run_nc += 1
            any_pin = False
            for p in range(toppled.shape[0]):
                any_pin |= toppled[p]
            if rodt and not any_pin:
                rodt_streak += 1
                if rodt_streak >= 3:
                    flow_fouls[2] = True
                    foul = True
            else:
                rodt_streak = 0
        keep_turn = not foul and points > 0
        if not keep_turn:
            run_nc = 0
            rodt_streak = 0
        if not foul:
            shooter_points = points
            scores[shooter] += points
    elif win:
        pass  # K-20 overrides every physics foul; no points or skæve change hands
    elif foul:
        # K-9a, K-17 as in _pay_skaeve, written out: that call from here cost resolve 10 %
        _recipients(order, in_game, shooter, rules_i[1] != 0, to)
        skaeve = points + penalty
        for p in range(order.shape[0]):
            if to[p]:
                scores[p] += skaeve
    else:
        shooter_points = points
        scores[shooter] += points
    return foul, shooter_points, skaeve, keep_turn, run_nc, rodt_streak


@njit(cache=True)
def _table_after(xy, pins, present0, pocketed, end_xy, touch_xy, win, bih, toppled, injected,
                 spots, pin_spots, R, respot_r, spotted, waiting, restood, wait_spot):
    """The table after a played shot, in place: balls at rest (pocketed ones off), K-16
    touched balls put back, the red in hand (K-19), whites spotted (K-18), pins stood up
    again (K-P7)."""
    for b in range(3):
        if not present0[b] or pocketed[b]:
            xy[b, 0] = np.nan
            xy[b, 1] = np.nan
        else:
            xy[b, 0] = end_xy[b, 0]
            xy[b, 1] = end_xy[b, 1]
        if not win and touch_xy[b, 0] == touch_xy[b, 0]:
            xy[b, 0] = touch_xy[b, 0]
            xy[b, 1] = touch_xy[b, 1]
    if bih:
        xy[0, 0] = np.nan  # K-19: the next player takes the red in hand
        xy[0, 1] = np.nan
    _spot_whites(xy, spots, R, spotted, waiting, wait_spot)
    for p in range(pins.shape[0]):
        pins[p] = pins[p] and not toppled[p] and not injected[p]
    _restand_pins(xy, pins, pin_spots, respot_r, restood)


@njit(cache=True)
def _players_in(finished, n_finished, lost, n_lost, in_game):
    """``in_game`` (N,) by player id: neither finished nor lost (the first ``n_finished`` of
    ``finished``, ``n_lost`` of ``lost``)."""
    in_game[:] = True
    for k in range(n_finished):
        in_game[finished[k]] = False
    for k in range(n_lost):
        in_game[lost[k]] = False


@njit(cache=True)
def _next_hand(over, bih, behind):
    """K-19: the next player's ball in hand (``bih``), behind the salvo line or anywhere on
    the cloth; none once the game is over."""
    if over or not bih:
        return HAND_NONE
    return HAND_SALVO if behind else HAND_CLOTH


@njit(cache=True, inline="always")
def _final_ranking(finished, n_finished, lost, n_lost, ranking):
    """(N,) the final ranking: the finished players in order, then the lost ones, last out
    first. Inlined: even on this rare path a call made :func:`resolve` 10-15 % slower."""
    n = 0
    for k in range(n_finished):
        ranking[n] = finished[k]
        n += 1
    for k in range(n_lost - 1, -1, -1):
        ranking[n] = lost[k]
        n += 1


@njit(cache=True)
def resolve(mode, rules_i, spots, pin_spots, R, respot_r,
            # the referee's scores of each table's shot (rows of mode != MODE_PLAYED unread)
            sc_points, sc_penalty, sc_foul, sc_win, sc_cushion, sc_rodt, sc_legal_pin,
            sc_bih, sc_bih_salvo, sc_unsporting, sc_toppled, sc_injected, sc_present0,
            sc_pocketed, sc_end_xy, touch_xy,
            # the state, updated in place (a copy of the caller's)
            xy, pins, hand, order, scores, to_play, finished, n_finished, lost, n_lost,
            game_over, shot, run_nc, rodt_streak, wait_spot,
            # outcome outputs
            o_shooter, o_penalty, o_foul, o_flow_fouls, o_shooter_points, o_skaeve, o_to,
            o_restood, o_spotted, o_waiting, o_now, o_n_now, o_lost_now, o_ranking):
    """Advance T games by one scored shot each (K-9a, K-16..K-25, K-P7).

    Args:
        mode: (T,) ``MODE_*``.
        rules_i: (5,) int64: ddbu variant, skæve only to the next player, ball in hand after a
            placement foul behind the salvo line, unsporting_loss, distance (K-21).
        spots: (2, 2) white spots (K-18). pin_spots: (5, 2). R: ball radius; respot_r: a pin
            spot is free when no ball centre is within this distance (K-P7) [m].
        sc_*: the referee's :class:`~cuegym.rules.keglebillard.ShotScores` fields, (T, ..)
            (rows of tables not played are not read). touch_xy: (T, 3, 2) where K-16
            ``deliberate_touch`` puts each ball back (NaN: not touched).
        xy .. wait_spot: the :class:`~cuegym.games.kegle_state.KegleStates` arrays, in place.
        o_flow_fouls: (T, 3) the flow's own fouls: K-19 placement, K-25 no cushion, K-25 third
            rødt. o_to: (T, N) skæve recipients. o_now: (T, N) finished in this shot.
        o_ranking: (T, N) the final ranking once over (finished, then lost, last out first).

    Per table: who is still in; the points and skæve (or the K-19 placement foul's penalty);
    the table after the shot; the end rules; who plays next and with what in hand.
    """
    ddbu = rules_i[0] != 0
    only_next = rules_i[1] != 0
    salvo_area = rules_i[2] != 0
    unsporting_loss = rules_i[3] != 0
    distance = rules_i[4]
    T, N = order.shape
    remaining = np.empty(N, np.bool_)
    in_game = np.empty(N, np.bool_)
    for t in range(T):
        if mode[t] == MODE_SKIP:
            continue
        shooter = to_play[t]
        o_shooter[t] = shooter
        _players_in(finished[t], n_finished[t], lost[t], n_lost[t], in_game)
        remaining[:] = in_game
        if mode[t] == MODE_PLACEMENT_FOUL:
            # K-19: no shot; a foul with penalty 6, no points; the next player has ball in hand
            o_flow_fouls[t, 0] = o_foul[t] = True
            if not ddbu:
                o_skaeve[t] = o_penalty[t] = 6
                _pay_skaeve(order[t], in_game, shooter, only_next, 6, o_to[t], scores[t])
            nf, nn, over, tp = _end_rules(order[t], remaining, scores[t], shooter, False,
                                          o_to[t], False, ddbu, distance, finished[t],
                                          n_finished[t], o_now[t], 0)
            # the break is still to be played (K-3); GameState holds shot 0 to the red in
            # hand behind the salvo line
            behind = shot[t] == 0 or salvo_area
            hand[t] = _next_hand(over, True, behind)
            run_nc[t] = rodt_streak[t] = 0
        else:
            foul, sp, sk, keep_turn, run_nc[t], rodt_streak[t] = _credit(
                rules_i, sc_foul[t], sc_win[t], sc_points[t], sc_penalty[t], sc_cushion[t],
                sc_rodt[t], sc_toppled[t], order[t], in_game, shooter, scores[t], run_nc[t],
                rodt_streak[t], o_flow_fouls[t], o_to[t])
            o_foul[t], o_shooter_points[t], o_skaeve[t] = foul, sp, sk
            o_penalty[t] = sc_penalty[t] if foul else 0
            if unsporting_loss and sc_unsporting[t]:
                o_lost_now[t] = shooter  # K-16 option: the shooter loses the match
                lost[t, n_lost[t]] = shooter
                n_lost[t] += 1
                remaining[shooter] = False
            _table_after(xy[t], pins[t], sc_present0[t], sc_pocketed[t], sc_end_xy[t],
                         touch_xy[t], sc_win[t], sc_bih[t], sc_toppled[t], sc_injected[t],
                         spots, pin_spots, R, respot_r, o_spotted[t], o_waiting[t],
                         o_restood[t], wait_spot[t])
            # K-20 or the end rules; inline: a helper for this step cost 12-20 %, inlined or not
            if sc_win[t]:
                nf, nn = _win(order[t], in_game, scores[t], shooter, o_lost_now[t] >= 0,
                              finished[t], n_finished[t], o_now[t])
                over, tp = True, -1
            else:
                nf, nn, over, tp = _end_rules(order[t], remaining, scores[t], shooter,
                                              sc_legal_pin[t], o_to[t], keep_turn, ddbu,
                                              distance, finished[t], n_finished[t], o_now[t], 0)
            if tp != shooter:  # K-25: a visit ends when another player is to play (the
                run_nc[t] = rodt_streak[t] = 0  # shooter may have finished while scoring)
            hand[t] = _next_hand(over, sc_bih[t], sc_bih_salvo[t])
            shot[t] += 1
        n_finished[t], o_n_now[t] = nf, nn
        game_over[t], to_play[t] = over, tp
        if over:
            _final_ranking(finished[t], n_finished[t], lost[t], n_lost[t], o_ranking[t])
