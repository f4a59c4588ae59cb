"""Keglebillard geometric aimer (spec K-5..K-19), compiled over a batch of tables.

The red (the cue ball) is cut into a white so that the white runs to a target: the king (six
points alone), the other standing pins, the king's mirror image in each cushion line (one-cushion
banks) or, worth nothing but no foul, the four cushions straight across from the white. The red
is aimed at the *ghost ball* ``G = W - 2R u`` (u: the unit direction white -> target). A shot's
cost adds the cut angle, the red's travel, a red path to the ghost ball that meets a pin (K-12)
or the other white, a white path of a bank or safe shot through the pins, a tangent line after
contact (where the red runs off) that meets the pins (K-13) or a pocket (K-14), and subtracts for
a tangent line through the other white (rødt, K-8). Speed (:data:`KEGLE_SPEED`): the white must
run through the pins on to a cushion (K-10). With the red in hand it is placed behind the ghost
ball for an 8-35 degree cut, where the placement can be played (K-19) and behind the salvo line
where that applies (K-3, K-15).

:func:`kegle_candidates_batch` returns every shot the aimer considers for T tables at once (one
compiled call, :func:`kegle_aim_kernel`), with its cost (lower is better); :func:`kegle_best` the
cheapest per table (what :class:`~cuegym.agents.geometric.GeometricAgent` plays);
:func:`kegle_candidates` those of one state as :class:`~cuegym.agents.geometry.Candidates`.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numba as nb
import numpy as np

from cuegym.agents.base import Strikes
from cuegym.agents.geometry import N_GEO_FEAT, Candidates
from cuegym.games.kegle_flow import PLACE_OK, placement_codes
from cuegym.games.kegle_state import HAND_NONE, HAND_SALVO

#: Speed model of the keglebillard aimer (tuned on positions from real games, see docs/agents.md):
#: the white must leave the contact at ``KEGLE_SPEED["white0"] + KEGLE_SPEED["white_per_m"] *
#: (distance to the pins)`` so that it runs through the pins on to a cushion (K-10); a sliding
#: ball loses about 2/7 of its speed before it rolls, hence the ``slide`` factors.
KEGLE_SPEED = {"white0": 1.0, "white_per_m": 0.8, "slide": 1.7, "red_per_m": 0.25,
               "min": 1.0, "max": 6.0, "full_cut": 0.0, "full_draw": -0.5, "bank_cost": 1.5}

#: Red placements behind a ghost ball: (distance behind it [m], cut angle [deg]), best first.
PLACE_GRID = np.array([(L, beta) for L in (0.25, 0.4, 0.15, 0.6)
                       for beta in (15.0, -15.0, 25.0, -25.0, 8.0, -8.0, 35.0, -35.0)])

#: Target kinds (the ``code`` of a shot) and the labels of candidates: ``TARGET_LABELS[label]``
#: with label 0..4 the pin (0: the king), 5 a bank, 6 a safe shot.
KING, PIN, BANK, SAFE = range(4)
TARGET_LABELS = ("king", "pin1", "pin2", "pin3", "pin4", "bank", "safe")
#: Targets per white at most: 5 pins, 4 banks, 4 safe cushion points.
MAX_TARGETS = 13


class KegleAim(NamedTuple):
    """The aimer's constants as arrays (built once per arena by :func:`kegle_aim`).

    Attributes:
        spots: (5, 2) pin spots [m] (0: the king). pockets: (P, 3) x, y, capture radius [m].
        circles: (C, 3) jaw circles x, y, radius [m] (K-19 placement checks).
        place: (32, 3) placement grid: distance behind the ghost ball [m], cos and sin of the cut.
        fallback: (81, 2) placements tried, in order, when nothing else is found [m].
        R, r_pin: ball and pin radius [m]. hx, hy: reach of a ball centre on the cloth [m].
        salvo_x: x of the salvo line [m]. m, M: ball and cue mass [kg].
        white0 .. bank_cost: :data:`KEGLE_SPEED`.
    """

    spots: np.ndarray
    pockets: np.ndarray
    circles: np.ndarray
    place: np.ndarray
    fallback: np.ndarray
    R: float
    r_pin: float
    hx: float
    hy: float
    salvo_x: float
    m: float
    M: float
    white0: float
    white_per_m: float
    slide: float
    red_per_m: float
    v_min: float
    v_max: float
    full_cut: float
    full_draw: float
    bank_cost: float


_AIMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def kegle_aim(arena: Any) -> KegleAim:
    """The :class:`KegleAim` of a :class:`~cuegym.agents.arena.KeglebillardArena` (cached while
    the arena lives)."""
    hit = _AIMS.get(arena)
    if hit is not None:
        return hit
    g, k = arena.g, KEGLE_SPEED
    beta = np.radians(PLACE_GRID[:, 1])
    xs = np.linspace(-arena.hx + 0.01, arena.salvo_x - 0.05, 9)
    ys = np.linspace(-arena.hy + 0.05, arena.hy - 0.05, 9)
    aim = KegleAim(
        spots=np.ascontiguousarray(arena.pin_spots, np.float64),
        pockets=np.ascontiguousarray(g._pockets, np.float64).reshape(-1, 3),
        circles=np.ascontiguousarray(g._circles, np.float64).reshape(-1, 3),
        place=np.column_stack([PLACE_GRID[:, 0], np.cos(beta), np.sin(beta)]),
        fallback=np.array([(x, y) for x in xs[::-1] for y in ys]),
        R=float(arena.R), r_pin=float(arena.r_pin), hx=float(arena.hx), hy=float(arena.hy),
        salvo_x=float(arena.salvo_x), m=float(arena.params.m), M=float(arena.params.M),
        white0=k["white0"], white_per_m=k["white_per_m"], slide=k["slide"],
        red_per_m=k["red_per_m"], v_min=k["min"], v_max=k["max"], full_cut=k["full_cut"],
        full_draw=k["full_draw"], bank_cost=k["bank_cost"])
    _AIMS[arena] = aim
    return aim


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------


@nb.njit(cache=True)
def _seg_dist(px, py, ax, ay, bx, by):
    """Distance of the point (px, py) from the segment (ax, ay)-(bx, by) [m]."""
    dx = bx - ax
    dy = by - ay
    L2 = max(dx * dx + dy * dy, 1e-24)
    s = ((px - ax) * dx + (py - ay) * dy) / L2
    s = min(max(s, 0.0), 1.0)
    return math.hypot(px - (ax + s * dx), py - (ay + s * dy))


@nb.njit(cache=True)
def _pins_dist(spots, up, ax, ay, bx, by):
    """Least distance of the standing pins (``up``) from the segment (ax, ay)-(bx, by) [m]; 1.0
    when none stands."""
    d = np.inf
    anyup = False
    for k in range(spots.shape[0]):
        if up[k]:
            anyup = True
            d = min(d, _seg_dist(spots[k, 0], spots[k, 1], ax, ay, bx, by))
    return d if anyup else 1.0


@nb.njit(cache=True)
def _other_dist(ox, oy, ax, ay, bx, by):
    """Distance of the other white (ox, oy) from the segment (ax, ay)-(bx, by) [m]; inf when
    it is off the table (NaN)."""
    if math.isnan(ox):
        return np.inf
    dx = bx - ax
    dy = by - ay
    L2 = max(dx * dx + dy * dy, 1e-24)
    t = min(max(((ox - ax) * dx + (oy - ay) * dy) / L2, 0.0), 1.0)
    return math.hypot(ox - (ax + t * dx), oy - (ay + t * dy))


@nb.njit(cache=True)
def _cushion_point(wx, wy, px, py, hx, hy):
    """Where the line W -> P (P a mirror image beyond a cushion line) crosses the ball-centre
    cushion line: (found, x, y) [m]."""
    d = (px - wx, py - wy)
    w = (wx, wy)
    for axis, lim in ((0, hx), (0, -hx), (1, hy), (1, -hy)):
        if abs(d[axis]) < 1e-12:
            continue
        s = (lim - w[axis]) / d[axis]
        if 0.0 < s < 1.0:
            qx, qy = wx + s * d[0], wy + s * d[1]
            if abs(qx) <= hx + 1e-9 and abs(qy) <= hy + 1e-9:
                return True, qx, qy
    return False, 0.0, 0.0


@nb.njit(cache=True)
def _targets(wx, wy, up, in_hand, A, tgt):
    """Where to send the white at (wx, wy): rows (x, y, kind, base cost, label) of ``tgt``
    (MAX_TARGETS, 5): the king (0), the other standing pins (0.5), the king's mirror images in
    the cushion lines (banks, ``bank_cost``) and, without ball in hand, the four cushions straight
    across (safe, 4). Returns how many."""
    n = 0
    for k in range(5):
        if up[k]:
            tgt[n, 0], tgt[n, 1] = A.spots[k, 0], A.spots[k, 1]
            tgt[n, 2], tgt[n, 3], tgt[n, 4] = (KING, 0.0, k) if k == 0 else (PIN, 0.5, k)
            n += 1
    hx, hy = A.hx, A.hy
    if up[0]:  # one-cushion banks into the king: its mirror image in each cushion line
        kx, ky = A.spots[0, 0], A.spots[0, 1]
        for x, y in ((kx, 2 * hy - ky), (kx, -2 * hy - ky), (2 * hx - kx, ky),
                     (-2 * hx - kx, ky)):
            tgt[n, 0], tgt[n, 1], tgt[n, 2], tgt[n, 3], tgt[n, 4] = x, y, BANK, A.bank_cost, 5
            n += 1
    if not in_hand:  # with the red in hand: pin shots only
        for x, y in ((wx, hy), (wx, -hy), (hx, wy), (-hx, wy)):
            if math.hypot(x - wx, y - wy) > 0.05:
                tgt[n, 0], tgt[n, 1], tgt[n, 2], tgt[n, 3], tgt[n, 4] = x, y, SAFE, 4.0, 6
                n += 1
    return n


@nb.njit(cache=True)
def _playable(x, y, whites, salvo, A, buf, need, code, which):
    """The red can be placed at (x, y) (K-19; on or behind the salvo line when ``salvo``).
    whites: (1, 2, 2) [m]; buf, need, code, which: one-row scratch for ``placement_codes``."""
    if salvo and not x <= A.salvo_x:
        return False
    buf[0, 0] = x
    buf[0, 1] = y
    placement_codes(buf, whites, need, A.hx, A.hy, A.pockets, A.circles, A.spots, A.R, A.r_pin,
                    code, which)
    return code[0] == PLACE_OK


@nb.njit(cache=True)
def _shot(cx, cy, wx, wy, px, py, code, ox, oy, up, A, feat):
    """The ghost-ball shot of the red at (cx, cy) cutting the white at (wx, wy) toward (px, py)
    (target kind ``code``; the other white at (ox, oy), NaN if off). Writes the N_GEO_FEAT
    features into ``feat``; returns (feasible, cost, cut [deg], red travel d_r
    [m], white travel d_w [m], cos of the cut, the red's direction dx, dy [m])."""
    R = A.R
    rp = R + A.r_pin
    ux, uy = px - wx, py - wy
    n = max(math.hypot(ux, uy), 1e-12)
    ux, uy = ux / n, uy / n
    gx, gy = wx - 2.0 * R * ux, wy - 2.0 * R * uy
    dx, dy = gx - cx, gy - cy
    d_r = math.hypot(dx, dy)
    ok = d_r > 1e-6
    n = max(d_r, 1e-12)
    hx_, hy_ = dx / n, dy / n
    cosa = min(max(hx_ * ux + hy_ * uy, -1.0), 1.0)
    cut = math.degrees(math.acos(cosa))
    ok = ok and cut <= 78.0
    cost = cut / 25.0 + 0.4 * d_r
    # the red's path to the ghost ball: clear of the other white and of standing pins (K-12)
    d_oth = _other_dist(ox, oy, cx, cy, gx, gy)
    if d_oth < 2 * R:
        cost += 4.0
    d_pin = _pins_dist(A.spots, up, cx, cy, gx, gy)
    if d_pin < rp + 0.004:
        cost += 8.0
    feat[0] = min(max((d_pin - rp) / 0.2, -1.0), 1.0)
    feat[1] = min(max((d_oth - 2 * R) / 0.2, -1.0), 1.0)
    d_w = math.hypot(px - wx, py - wy)
    if code == BANK:  # the white's path to the cushion must not meet the pins first
        found, bx, by = _cushion_point(wx, wy, px, py, A.hx, A.hy)
        if not found:
            ok = False
            bx, by = wx, wy
        d_w = math.hypot(bx - wx, by - wy) + math.hypot(A.spots[0, 0] - bx, A.spots[0, 1] - by)
        if _pins_dist(A.spots, up, wx, wy, bx, by) < rp + 0.01:  # 1.0 when none stands
            cost += 3.0
    if code == SAFE and _pins_dist(A.spots, up, wx, wy, px, py) < rp + 0.01:
        cost += 2.0
    # after contact the red leaves along the tangent (stun): toward pins (K-13), the other
    # white (rødt, K-8) or a pocket (K-14)?
    tx, ty = hx_ - cosa * ux, hy_ - cosa * uy
    n_t = math.hypot(tx, ty)
    side = n_t > 1e-6
    n = max(n_t, 1e-12)
    tx, ty = tx / n, ty / n
    t_pin = _pins_dist(A.spots, up, gx, gy, gx + 1.2 * tx, gy + 1.2 * ty)
    if side and t_pin < rp + 0.01:
        cost += 6.0
    t_oth = _other_dist(ox, oy, gx, gy, gx + 1.5 * tx, gy + 1.5 * ty)
    if side and t_oth < 2 * R - 0.005:
        cost -= 1.0
    t_pk = np.inf
    for k in range(A.pockets.shape[0]):
        t_pk = min(t_pk, _seg_dist(A.pockets[k, 0], A.pockets[k, 1], gx, gy, gx + 1.0 * tx,
                                   gy + 1.0 * ty))
    r_pk = A.pockets[0, 2]
    if side and t_pk < r_pk + 0.01:
        cost += 2.0
    feat[2] = min(max((t_pin - rp) / 0.2, -1.0), 1.0) if side else -1.0
    feat[3] = min(max((t_oth - 2 * R) / 0.2, -1.0), 1.0) if side else 1.0
    feat[4] = min(max((t_pk - r_pk) / 0.2, -1.0), 1.0) if side else 1.0
    feat[5] = cut / 90.0
    feat[6] = min(max(d_r / 2.0, 0.0), 1.0)
    feat[7] = min(max(d_w / 2.0, 0.0), 1.0)
    return ok, cost, cut, d_r, d_w, cosa, dx, dy


@nb.njit(cache=True)
def _put(row, cx, cy, j, wx, wy, tgt):
    """One start row: red (cx, cy), white j at (wx, wy), target row ``tgt`` (x, y, kind, base
    cost, label)."""
    row[0], row[1], row[2], row[3], row[4] = cx, cy, j, wx, wy
    for i in range(5):
        row[5 + i] = tgt[i]


@nb.njit(cache=True)
def _starts(xy, up, hand, max_places, A, rows):
    """Every (red start, white, target) of one table as rows of ``rows`` (R, 10): red x, y,
    white j, white x, y, target x, y, kind, base cost, label; with the red in
    hand, up to ``max_places`` playable placements behind each ghost ball. Returns how many."""
    in_hand = hand != HAND_NONE
    salvo = hand == HAND_SALVO
    tgt = np.empty((MAX_TARGETS, 5))
    whites = np.ascontiguousarray(xy[1:]).reshape(1, 2, 2)
    buf = np.empty((1, 2))
    need = np.ones(1, np.bool_)
    code = np.empty(1, np.int64)
    which = np.empty(1, np.int64)
    nr = 0
    for j in (1, 2):
        wx, wy = xy[j, 0], xy[j, 1]
        if math.isnan(wx):
            continue
        for q in range(_targets(wx, wy, up, in_hand, A, tgt)):
            px, py = tgt[q, 0], tgt[q, 1]
            if in_hand:  # placements behind the ghost ball, for an 8-35 degree cut
                ux, uy = px - wx, py - wy
                n = max(math.hypot(ux, uy), 1e-12)
                ux, uy = ux / n, uy / n
                gx, gy = wx - 2.0 * A.R * ux, wy - 2.0 * A.R * uy
                kept = 0
                for k in range(A.place.shape[0]):
                    if kept >= max_places:
                        break
                    L, c, s = A.place[k, 0], A.place[k, 1], A.place[k, 2]
                    cx, cy = gx - L * (c * ux - s * uy), gy - L * (s * ux + c * uy)
                    if _playable(cx, cy, whites, salvo, A, buf, need, code, which):
                        _put(rows[nr], cx, cy, j, wx, wy, tgt[q])
                        nr += 1
                        kept += 1
            else:
                _put(rows[nr], xy[0, 0], xy[0, 1], j, wx, wy, tgt[q])
                nr += 1
    return nr


@nb.njit(cache=True)
def _fallback(xy, hand, A, cue, cost, place, feats, white, label, cut):
    """Nothing feasible: a 2 m/s shot (draw -0.2) at the first white on the table, or across
    the table; the red placed at the first playable point of the fallback grid (or its first
    point) when in hand. Writes row 0; returns 1."""
    in_hand = hand != HAND_NONE
    cx, cy = xy[0, 0], xy[0, 1]
    if in_hand:
        whites = np.ascontiguousarray(xy[1:]).reshape(1, 2, 2)
        buf = np.empty((1, 2))
        need = np.ones(1, np.bool_)
        code = np.empty(1, np.int64)
        which = np.empty(1, np.int64)
        cx, cy = A.fallback[0, 0], A.fallback[0, 1]
        for k in range(A.fallback.shape[0]):
            if _playable(A.fallback[k, 0], A.fallback[k, 1], whites, False, A, buf, need,
                         code, which):
                cx, cy = A.fallback[k, 0], A.fallback[k, 1]
                break
    j = 1 if not math.isnan(xy[1, 0]) else (2 if not math.isnan(xy[2, 0]) else 0)
    if j:
        phi = math.degrees(math.atan2(xy[j, 1] - cy, xy[j, 0] - cx))
    else:
        phi = 90.0 if cy < 0 else -90.0
    cue[0, :] = 0.0
    cue[0, 0], cue[0, 1], cue[0, 4] = 2.0, phi, -0.2
    cost[0] = 50.0
    place[0, 0], place[0, 1] = (cx, cy) if in_hand else (np.nan, np.nan)
    feats[0, :] = 0.0
    white[0], label[0], cut[0] = 0, -1, 0.0
    return 1


@nb.njit(cache=True)
def _table_shots(xy, up, hand, spins, max_places, A, rows, geo, gfeat, cue, aim, cost, place,
                 feats, white, label, cut):
    """Every candidate of one table (xy: (3, 2) red, white, spotted white [m], NaN off; up: (5,)
    standing pins; hand: HAND_*): the feasible shots of every start, all for the first spin,
    then all for the next; the aim phi is left to the caller, from ``aim`` (the red's direction
    [m]). rows, geo, gfeat: scratch. Returns how many."""
    in_hand = hand != HAND_NONE
    nr = _starts(xy, up, hand, max_places, A, rows)
    for r in range(nr):
        j = int(rows[r, 2])
        ok, c, ct, d_r, d_w, cosa, dx, dy = _shot(rows[r, 0], rows[r, 1], rows[r, 3],
                                                  rows[r, 4], rows[r, 5], rows[r, 6],
                                                  int(rows[r, 7]), xy[3 - j, 0], xy[3 - j, 1],
                                                  up, A, gfeat[r])
        geo[r, 0], geo[r, 1], geo[r, 2], geo[r, 3] = 1.0 if ok else 0.0, c, ct, dx
        geo[r, 4], geo[r, 5], geo[r, 6], geo[r, 7] = d_r, d_w, cosa, dy
    n = 0
    for b0 in spins:
        for r in range(nr):
            if geo[r, 0] == 0.0:
                continue
            ct, d_r, d_w, cosa = geo[r, 2], geo[r, 4], geo[r, 5], geo[r, 6]
            # a full hit: the red would follow the white into the pins; draw it back
            b = min(b0, A.full_draw) if ct < A.full_cut else b0
            v_white = A.white0 + A.white_per_m * d_w
            v_contact = v_white * A.slide / max(cosa, 0.3)
            v_red = min(max(v_contact + A.red_per_m * d_r, A.v_min), A.v_max)
            cue[n, 0] = v_red * (1.0 + A.m / A.M + 2.5 * b * b) / 2.0
            aim[n, 0], aim[n, 1] = geo[r, 3], geo[r, 7]
            cue[n, 2] = 0.0
            cue[n, 3] = 0.0
            cue[n, 4] = b
            cost[n] = geo[r, 1] + rows[r, 8]
            place[n, 0], place[n, 1] = (rows[r, 0], rows[r, 1]) if in_hand else (np.nan, np.nan)
            feats[n, :] = gfeat[r]
            white[n], label[n], cut[n] = int(rows[r, 2]), int(rows[r, 9]), ct
            n += 1
    if n == 0:
        n = _fallback(xy, hand, A, cue, cost, place, feats, white, label, cut)
    return n


@nb.njit(cache=True)
def kegle_aim_kernel(xy, pins, hand, spins, max_places, A, cue, aim, cost, place, feats, white,
                     label, cut, count):
    """The aimer's candidates of T tables.

    Args:
        xy: (T, 3, 2) red, white, spotted white [m] (NaN off the table / in hand).
        pins: (T, 5) bool standing pins. hand: (T,) HAND_NONE / HAND_SALVO / HAND_CLOTH.
        spins: (S,) draw / follow ``b``. max_places: placements per target with ball in hand.
        A: :class:`KegleAim`.
        cue: (T, K, 5) out: strikes (V0 [m/s], phi [deg], theta, a, b), K >= rows x S; phi
            only for the fallback (label -1), the others' direction is in ``aim`` (T, K, 2) [m].
        cost: (T, K) out (slots past ``count`` untouched). place: (T, K, 2) out: the red's
            placement [m] (NaN: none). feats: (T, K, N_GEO_FEAT) out. white: (T, K) out: the
            white aimed at (0: fallback). label: (T, K) out: TARGET_LABELS index (-1:
            fallback). cut: (T, K) out: cut angle [deg]. count: (T,) out (>= 1).
    """
    R = max(2 * MAX_TARGETS, 2 * 9 * max_places)
    rows = np.empty((R, 10))
    geo = np.empty((R, 8))
    gfeat = np.empty((R, N_GEO_FEAT))
    for t in range(xy.shape[0]):
        count[t] = _table_shots(xy[t], pins[t], hand[t], spins, max_places, A, rows, geo, gfeat,
                                cue[t], aim[t], cost[t], place[t], feats[t], white[t], label[t],
                                cut[t])


# ---------------------------------------------------------------------------------------------
# Python API
# ---------------------------------------------------------------------------------------------


@dataclass
class KegleCandidates:
    """The aimer's candidates of T tables, K slots each (the first ``count[t]`` used).

    Attributes:
        cue: (T, K, 5) strikes (V0 [m/s], phi [deg], theta [deg], a, b).
        cost: (T, K) heuristic cost, lower is better (inf in unused slots).
        place: (T, K, 2) the red's placement [m] (NaN: the red is not in hand).
        feats: (T, K, N_GEO_FEAT) clearances of the red's path and tangent line, cut / 90,
            distances (:attr:`Candidates.feats`).
        white: (T, K) the white aimed at (1 / 2; 0 for the fallback). label: (T, K) index into
            :data:`TARGET_LABELS` (-1: fallback). cut: (T, K) cut angle [deg].
        count: (T,) candidates per table (at least one: the fallback).
    """

    cue: np.ndarray
    cost: np.ndarray
    place: np.ndarray
    feats: np.ndarray
    white: np.ndarray
    label: np.ndarray
    cut: np.ndarray
    count: np.ndarray

    def table(self, t: int) -> Candidates:
        """Table t's candidates as :class:`Candidates` (kinds ``w<j>:<target>:cut<deg>``)."""
        n = int(self.count[t])
        kind = ["fallback" if lab < 0 else f"w{j}:{TARGET_LABELS[lab]}:cut{c:.0f}"
                for j, lab, c in zip(self.white[t, :n].tolist(), self.label[t, :n].tolist(),
                                     self.cut[t, :n].tolist(), strict=True)]
        return Candidates(Strikes(self.cue[t, :n].copy(), np.zeros(n, np.int64),
                                  self.place[t, :n].copy()),
                          self.cost[t, :n].copy(), kind, self.feats[t, :n].copy())


def _tables(states: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(T, 3, 2) positions, (T, 5) standing pins and (T,) HAND_* codes of a KegleStates batch
    or of a sequence of rules GameState values."""
    from cuegym.games.kegle_state import HAND_NAMES, KegleStates

    if isinstance(states, KegleStates):
        xy, pins, hand = states.xy, states.pins, states.hand
    else:
        states = list(states)
        nan = (math.nan, math.nan)
        xy = np.array([[nan if b is None else b for b in s.balls] for s in states],
                      np.float64) if states else np.zeros((0, 3, 2))
        pins = np.array([s.pins for s in states], bool) if states else np.zeros((0, 5), bool)
        codes = {name: k for k, name in enumerate(HAND_NAMES)}
        bad = [s.ball_in_hand for s in states if s.ball_in_hand not in codes]
        if bad:
            raise ValueError(f"ball_in_hand must be one of {list(codes)}, got {bad[0]!r}")
        hand = np.array([codes[s.ball_in_hand] for s in states], np.int64)
    xy = np.ascontiguousarray(xy, np.float64)
    if xy.ndim != 3 or xy.shape[1:] != (3, 2) or np.shape(pins)[1:] != (5,):
        raise ValueError(f"keglebillard states need (T, 3, 2) positions and (T, 5) pins, got "
                         f"{xy.shape} and {np.shape(pins)}")
    return xy, np.ascontiguousarray(pins, np.bool_), np.ascontiguousarray(hand, np.int64)


def kegle_candidates_batch(arena: Any, states: Any, *, spins: Sequence[float] = (-0.2,),
                           max_places: int = 12) -> KegleCandidates:
    """The aimer's shots for T keglebillard states, one compiled call
    (:func:`kegle_aim_kernel`).

    Every (white, target) pair gives a ghost-ball shot from the red's position or, with ball in
    hand, from up to ``max_places`` placements behind the ghost ball; one shot per spin ``b`` in
    ``spins``. When no white is on the table (both waiting, K-18) or nothing is feasible, a
    plain shot at the nearest white or across the table is returned with a high cost.

    Args:
        arena: a :class:`~cuegym.agents.arena.KeglebillardArena`. states: a KegleStates batch or
            a sequence of rules GameState values.
    """
    xy, pins, hand = _tables(states)
    sp = np.array(spins, np.float64).reshape(-1)
    if not np.isfinite(sp).all():
        raise ValueError(f"spins must be finite, got {list(spins)}")
    if int(max_places) != max_places or max_places < 0:
        raise ValueError(f"max_places must be a whole number >= 0, got {max_places!r}")
    T = len(hand)
    K = max(max(2 * MAX_TARGETS, 18 * int(max_places)) * len(sp), 1)
    out = KegleCandidates(cue=np.zeros((T, K, 5)), cost=np.full((T, K), np.inf),
                          place=np.full((T, K, 2), np.nan), feats=np.zeros((T, K, N_GEO_FEAT)),
                          white=np.zeros((T, K), np.int64), label=np.full((T, K), -1, np.int64),
                          cut=np.zeros((T, K)), count=np.zeros(T, np.int64))
    aim = np.zeros((T, K, 2))
    kegle_aim_kernel(xy, pins, hand, sp, int(max_places), kegle_aim(arena), out.cue, aim,
                     out.cost, out.place, out.feats, out.white, out.label, out.cut, out.count)
    # the aim, with numpy's arctan2 over the whole batch: the strikes are then bit-identical to
    # the per-state numpy aimer's (numpy's SIMD arctan2 and libm's differ in the last bit now
    # and then, and a tournament, a chaotic system, would drift from the recorded one)
    shot = out.label >= 0
    out.cue[..., 1][shot] = np.degrees(np.arctan2(aim[..., 1][shot], aim[..., 0][shot]))
    return out


def kegle_candidates(arena: Any, state: Any, *, spins: Sequence[float] = (-0.2,),
                     max_places: int = 12) -> Candidates:
    """The aimer's shots for one keglebillard state as :class:`Candidates`
    (:func:`kegle_candidates_batch` of one table)."""
    return kegle_candidates_batch(arena, [state], spins=spins, max_places=max_places).table(0)


def kegle_best(arena: Any, states: Any, spin: float = -0.2) -> Strikes:
    """The cheapest of the aimer's shots (spin ``b``) for each of T states (the first of equal
    costs), as a :class:`Strikes` batch (``place`` set where the red is in hand)."""
    c = kegle_candidates_batch(arena, states, spins=(spin,))
    rows = np.arange(len(c.count))
    best = np.argmin(c.cost, axis=1) if len(rows) else np.zeros(0, np.int64)
    return Strikes(c.cue[rows, best], np.zeros(len(rows), np.int64), c.place[rows, best])
