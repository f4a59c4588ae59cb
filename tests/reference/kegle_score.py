"""TEST ORACLE ONLY: the keglebillard scorer as it was before the compiled kernel
(``cuegym.rules.keglebillard_kernel``): numpy over the table axis, at issue 11 (double hit =
touché). tests/test_kegle_score_kernel.py requires identical ShotScores. Not part of the product.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from cuegym.configs import TableSpec
from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_PIN,
    EV_NONE,
    EV_PIN_PIN,
    POCKETED,
)
from cuegym.rules.keglebillard import (
    _F,
    BALL_IDS,
    FOUL_COLUMNS,
    FOUL_PENALTY,
    GEOM_TOL,
    KING,
    N_BALLS,
    N_PINS,
    PIN_IDS,
    RED,
    SPOTTED,
    TOUCHE_TYPES,
    WHITE,
    WHITES,
    EventLog,
    KeglebillardRules,
    ShotScores,
    _vector,
    check_overflow,
    default_table,
    load_rules,
    parse_injected,
    read_log,
    salvo_x,
)


def _first(mask: np.ndarray, times: np.ndarray) -> np.ndarray:
    """(T,) time of the first event in ``mask`` (T, K), inf if none."""
    return np.where(mask, times, np.inf).min(axis=1, initial=np.inf)


def _chain_root_time(lg: EventLog, valid: np.ndarray) -> np.ndarray:
    """(T, P) topple time of the pin that started each pin's chain (K-P2, K-P3)."""
    T, K = lg.ev_type.shape
    is_pp = valid & (lg.ev_type == EV_PIN_PIN)
    first_k = np.full((T, N_PINS), K, np.int64)
    tt, kk = np.nonzero(is_pp)
    np.minimum.at(first_k, (tt, lg.ev_j[tt, kk]), kk)
    own = np.broadcast_to(np.arange(N_PINS), (T, N_PINS))
    parent = np.where(first_k < K,
                      np.take_along_axis(lg.ev_i, np.minimum(first_k, K - 1), axis=1), own)
    root = own
    for _ in range(N_PINS):
        root = np.take_along_axis(parent, root, axis=1)
    return np.take_along_axis(lg.pin_topple_time, root, axis=1)


def _cushioned_time(lg: EventLog, valid: np.ndarray) -> np.ndarray:
    """(T, B) when each ball first counts as "cushioned" for the K-10 option: it touched a
    cushion, or was hit by a ball that itself had touched one (one step; both ways)."""
    T = len(lg)
    own = np.full((T, N_BALLS), np.inf)
    rows = np.arange(T)
    K = int(lg.n_events.max(initial=0))
    for k in range(K):
        c = valid[:, k] & (lg.ev_type[:, k] == EV_BALL_CUSHION)
        i = np.clip(lg.ev_i[:, k], 0, N_BALLS - 1)
        own[rows[c], i[c]] = np.minimum(own[rows[c], i[c]], lg.ev_time[:, k][c])
    cush = own.copy()
    for k in range(K):
        b = valid[:, k] & (lg.ev_type[:, k] == EV_BALL_BALL)
        tk = lg.ev_time[:, k]
        i = np.clip(lg.ev_i[:, k], 0, N_BALLS - 1)  # pin_pin rows carry pin indices
        j = np.clip(lg.ev_j[:, k], 0, N_BALLS - 1)
        for a, o in ((i, j), (j, i)):  # a is hit by o
            m = b & (own[rows, o] <= tk)
            cush[rows[m], a[m]] = np.minimum(cush[rows[m], a[m]], tk[m])
    return cush


def score_shots(log: Any, rules: KeglebillardRules | None = None, *,
                table: TableSpec | None = None, salvo_line: Any = None,
                injected: Sequence[Iterable | None] | None = None,
                allow_overflow: bool = False) -> ShotScores:
    """Score T finished shots from their event log (K-5..K-20; K-25 scoring).

    Pure: reads the log, writes nothing into it. Vectorised over tables with numpy.

    Args:
        log: a ``cuegym.physics.SimResult`` or anything with its fields (see :func:`read_log`).
        rules: the rule set (default: :func:`load_rules`).
        table: the keglebillard table (salvo line); default the kleinmatch table.
        salvo_line: (T,) bool, True where the salvo line applies to this shot (break, or ball in
            hand behind the line, K-15); default False.
        injected: length-T sequence of each shot's injected events (dicts or :class:`Injected`,
            K-14a and K-16), or None.
        allow_overflow: score shots whose simulation stopped at ``max_events`` / ``t_max``
            (``overflow`` != 0) where the log ended (``ShotScores.overflow`` keeps the code). By
            default such a log is refused: the rules judge a shot once everything is at rest
            (K-P6).

    Returns:
        :class:`ShotScores`.

    Raises:
        ValueError: a malformed log or injected event (the message names the value), or an
            overflowed shot without ``allow_overflow``.
    """
    rules = rules or load_rules()
    table = table or default_table()
    lg = read_log(log)
    T, K = lg.ev_type.shape
    check_overflow(lg.overflow, allow_overflow)
    house = not rules.ddbu
    salvo = _vector("salvo_line", salvo_line, T, np.bool_)
    if injected is None:
        inj = tuple(() for _ in range(T))
    else:
        if len(injected) != T:
            raise ValueError(f"injected must have one entry per table ({T}), got {len(injected)}")
        inj = tuple(parse_injected(e) for e in injected)

    present0 = lg.motion0 != POCKETED
    if not present0[:, RED].all():
        t = int(np.flatnonzero(~present0[:, RED])[0])
        raise ValueError(f"log.motion0[{t}, 0] = {lg.motion0[t, 0]}: the red (cue ball, K-2) "
                         "must be on the table at the start")
    # injected events into arrays
    off = np.zeros((T, N_BALLS), bool)  # left the table for good (counts as pocketed, K-14a)
    off_any = np.zeros(T, bool)
    inj_pins = np.zeros((T, N_PINS), bool)
    k16 = np.zeros(T, bool)
    touche = np.zeros(T, bool)
    unsporting = np.zeros(T, bool)
    for t, events in enumerate(inj):
        for e in events:
            if e.type == "off_table":
                if not present0[t, e.ball]:
                    raise ValueError(f"injected off_table: ball {BALL_IDS[e.ball]!r} was not on "
                                     f"the table at the start (table {t})")
                off_any[t] = True
                off[t, e.ball] |= not e.returned
                continue
            k16[t] = True
            touche[t] |= e.type in TOUCHE_TYPES
            unsporting[t] |= e.unsporting
            for p in e.pins:
                if not lg.pins_up0[t, p]:
                    raise ValueError(f"injected pin_toppled: pin {PIN_IDS[p]!r} was not standing "
                                     f"at the start (table {t})")
                inj_pins[t, p] = True

    valid = np.arange(K)[None, :] < lg.n_events[:, None]
    typ = np.where(valid, lg.ev_type, EV_NONE)
    tm, ei, ej = lg.ev_time, lg.ev_i, lg.ev_j
    bb = typ == EV_BALL_BALL
    lo, hi = np.minimum(ei, ej), np.maximum(ei, ej)
    cush_ev = typ == EV_BALL_CUSHION
    red_w1 = bb & (lo == RED) & (hi == WHITE)
    red_w2 = bb & (lo == RED) & (hi == SPOTTED)
    red_white = red_w1 | red_w2
    t_red_white = _first(red_white, tm)
    t_red_cushion = _first(cush_ev & (ei == RED), tm)

    # K-8 rødt / blegt
    rodt = red_w1.any(1) & red_w2.any(1)
    ww = bb & (lo == WHITE) & (hi == SPOTTED)
    blegt = ~rodt & (ww & (tm >= t_red_white[:, None])).any(1)

    # Pins: toppled this shot, attribution (K-P3), time of the chain's first topple (K-P2)
    stood = lg.pins_up0
    down = stood & ~lg.pins_up
    # K-P3: a pin the log gives to the red and a white (chains at one instant) is the red's
    toppler = np.where(down, np.where(lg.pin_toppler & 1, 1, lg.pin_toppler), 0)
    root_time = _chain_root_time(lg, valid)
    all_stood = stood.all(1)
    inj_only = inj_pins & ~down
    n_ball = down.sum(1)
    n_inj = inj_only.sum(1)

    # K-7 the clean 16: all five to one white W in one clean run
    clean16 = np.zeros(T, bool)
    clean16_white = np.full(T, -1, np.int64)
    if house:
        pin_ev = typ == EV_BALL_PIN
        for w in WHITES:
            mine = all_stood & down.all(1) & (toppler == (1 << w)).all(1)
            w_pin = pin_ev & (ei == w)
            tf = _first(w_pin, tm)
            tl = np.where(w_pin, tm, -np.inf).max(axis=1, initial=-np.inf)
            in_run = (tm >= tf[:, None]) & (tm <= tl[:, None])
            w_touch = (cush_ev & (ei == w)) | (bb & ((ei == w) | (ej == w)))
            other_pin = pin_ev & (ei != w)
            ok = mine & np.isfinite(tf) & ~(in_run & (w_touch | other_pin)).any(1)
            clean16 |= ok
            clean16_white[ok] = w

    # K-5, K-6, K-7, K-9 (K-9a: for every shot, legal or not)
    king_alone = all_stood & down[:, KING] & (n_ball == 1) & (n_inj == 0)
    pocketed = present0 & ((lg.motion == POCKETED) | (lg.pocket >= 0) | off)
    if house:
        pin_points = np.where(clean16, 16, np.where(king_alone, 6, 2 * (n_ball + n_inj)))
        white_points = 2 * pocketed[:, 1:].sum(1)
        bonus_points = 4 * (rodt | blegt)
    else:  # K-25: only pins (2) and rødt (4) score
        king_alone[:] = False
        pin_points = 2 * (n_ball + n_inj)
        white_points = np.zeros(T, np.int64)
        bonus_points = 4 * rodt
    points = (pin_points + white_points + bonus_points).astype(np.int64)

    # Fouls
    cushion_any = cush_ev.any(1)
    fouls = np.zeros((T, len(FOUL_COLUMNS)), bool)
    fouls[:, _F["K-10"]] = house & ~cushion_any
    if house and rules.cushion_before_pins:
        cushioned = _cushioned_time(lg, valid)  # (T, B)
        bits = (toppler[:, :, None] >> np.arange(N_BALLS)) & 1  # (T, P, B)
        early = (bits == 1) & (cushioned[:, None, :] >= root_time[:, :, None])
        fouls[:, _F["K-10:cushion_before_pins"]] = (down[:, :, None] & early).any((1, 2))
    fouls[:, _F["K-11"]] = ~red_white.any(1)
    red_pin = down & ((toppler & 1) != 0)
    t_ok = t_red_white if rules.frhv_nakkebal else np.minimum(t_red_white, t_red_cushion)
    red_early = red_pin & (root_time < t_ok[:, None])
    fouls[:, _F["K-12"]] = red_early.any(1)
    fouls[:, _F["K-13"]] = (red_pin & ~red_early).any(1)
    fouls[:, _F["K-14"]] = pocketed[:, RED]
    fouls[:, _F["K-14a"]] = off_any
    fouls[:, _F["K-15"]] = salvo & (lg.rvw0[:, RED, 0, 0] > salvo_x(table) + GEOM_TOL)
    fouls[:, _F["K-16"]] = k16

    # K-20: all three balls down in one shot wins, overriding physics fouls; K-16 cancels it
    win = house & present0.all(1) & pocketed.all(1) & ~k16
    fouls[win] = False
    foul = fouls.any(1)
    if house:
        penalty = np.where(foul, (fouls * FOUL_PENALTY).max(1, initial=0), 0)
        skaeve = np.where(foul, points + penalty, 0)
    else:
        penalty = np.zeros(T, np.int64)
        skaeve = np.zeros(T, np.int64)
    shooter_points = np.where(foul | win, 0, points)

    # K-19 ball in hand after K-10, K-14 or a touché (a double hit included); behind the line
    # whenever K-14 is a reason
    k14 = fouls[:, _F["K-14"]]
    ball_in_hand = fouls[:, _F["K-10"]] | k14 | (touche & ~win)
    bih_salvo = ball_in_hand & (k14 | (rules.ball_in_hand_area == "salvo"))

    return ShotScores(
        points=points, pin_points=pin_points.astype(np.int64),
        white_points=white_points.astype(np.int64), bonus_points=bonus_points.astype(np.int64),
        penalty=penalty.astype(np.int64), shooter_points=shooter_points.astype(np.int64),
        skaeve=skaeve.astype(np.int64), foul=foul, fouls=fouls, injected=inj, rodt=rodt,
        blegt=blegt if house else np.zeros(T, bool), king_alone=king_alone, clean16=clean16,
        clean16_white=clean16_white, legal_pin=~foul & ~win & (n_ball > 0), cushion=cushion_any,
        win=win, ball_in_hand=ball_in_hand, bih_salvo=bih_salvo, unsporting=unsporting & ~win,
        pins_toppled=down, pins_injected=inj_only, pin_toppler=toppler, pins_up0=stood,
        present0=present0,
        pocketed=pocketed, start_xy=lg.rvw0[:, :, 0, :2].copy(), end_xy=lg.rvw[:, :, 0, :2].copy(),
        overflow=lg.overflow, variant=rules.variant)
