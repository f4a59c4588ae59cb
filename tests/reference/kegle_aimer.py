"""TEST ORACLE ONLY: the keglebillard geometric aimer as it was before the compiled kernel
(``cuegym.agents.geometric_kegle``): numpy per state, at issue 12.
tests/test_agents_kegle_aimer.py compares the product with it. Not part of the product.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from cuegym.agents.base import Strikes
from cuegym.agents.geometric_kegle import KEGLE_SPEED
from cuegym.agents.geometry import N_GEO_FEAT, Candidates

from .aim_geometry import seg_dist_many


def _kegle_targets(arena: Any, state: Any, W: np.ndarray
                   ) -> list[tuple[np.ndarray, str, float]]:
    """Where to send the white at W, with a base cost: the king (0), the other standing pins
    (0.5 each), and, as safe shots worth no points but no foul, the four cushions straight
    across from the white (4)."""
    spots = arena.pin_spots
    up = np.array(state.pins, bool)
    out = []
    for k in np.flatnonzero(up):
        out.append((spots[k].copy(), "king" if k == 0 else f"pin{k}", 0.0 if k == 0 else 0.5))
    hx, hy = arena.hx, arena.hy
    if up[0]:  # one-cushion banks into the king: its mirror image in each cushion line
        k0 = spots[0]
        for P in ((k0[0], 2 * hy - k0[1]), (k0[0], -2 * hy - k0[1]), (2 * hx - k0[0], k0[1]),
                  (-2 * hx - k0[0], k0[1])):
            out.append((np.array(P, float), "bank", KEGLE_SPEED["bank_cost"]))
    for P in ((W[0], hy), (W[0], -hy), (hx, W[1]), (-hx, W[1])):
        P = np.array(P, float)
        if float(np.hypot(*(P - W))) > 0.05:
            out.append((P, "safe", 4.0))
    return out


def _kegle_shots(arena: Any, state: Any, C: np.ndarray, J: np.ndarray, W: np.ndarray,
                 P: np.ndarray, label: np.ndarray, spin_b: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised ghost-ball shots: the red at C[n] at white J[n] (at W[n]) sent toward P[n]
    (label code: 0 king, 1 pin, 2 bank, 3 safe).

    Returns:
        (cue (N, 5), cost (N,), cut angle (N,) [deg], feasible (N,) bool).
    """
    R = arena.R
    rp = R + arena.r_pin
    u = P - W
    u /= np.maximum(np.hypot(u[:, 0], u[:, 1]), 1e-12)[:, None]
    G = W - 2.0 * R * u
    d = G - C
    d_r = np.hypot(d[:, 0], d[:, 1])
    ok = d_r > 1e-6
    dh = d / np.maximum(d_r, 1e-12)[:, None]
    cosa = np.clip((dh * u).sum(1), -1.0, 1.0)
    cut = np.degrees(np.arccos(cosa))
    ok &= cut <= 78.0
    cost = cut / 25.0 + 0.4 * d_r
    pins = arena.pin_spots[np.array(state.pins, bool)]
    other = np.full((len(C), 2), np.nan)  # the other white (NaN: off the table)
    for k in (1, 2):
        if state.balls[k] is not None:
            other[J != k] = state.balls[k]
    has_other = ~np.isnan(other[:, 0])
    oth = np.nan_to_num(other, nan=1e3)

    def dist_other(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        dd = b - a
        L2 = np.maximum((dd * dd).sum(1), 1e-24)
        t = np.clip(((oth - a) * dd).sum(1) / L2, 0.0, 1.0)
        q = a + t[:, None] * dd
        return np.where(has_other, np.hypot(*(oth - q).T), np.inf)

    # the red's path to the ghost ball: clear of the other white and of standing pins (K-12)
    n_shots = len(C)
    feat = np.zeros((n_shots, N_GEO_FEAT))
    d_oth = dist_other(C, G)
    cost += 4.0 * (d_oth < 2 * R)
    d_pin = seg_dist_many(pins, C, G).min(1) if len(pins) else np.full(n_shots, 1.0)
    cost += 8.0 * (d_pin < rp + 0.004)
    feat[:, 0] = np.clip((d_pin - rp) / 0.2, -1, 1)
    feat[:, 1] = np.clip((d_oth - 2 * R) / 0.2, -1, 1)
    d_w = np.hypot(*(P - W).T)
    bank = label == 2
    if bank.any():  # the white's path to the cushion must not meet the pins first
        hit = np.full((len(C), 2), np.nan)
        for n in np.flatnonzero(bank):
            q = _cushion_point(arena, W[n], P[n])
            if q is not None:
                hit[n] = q
        ok &= ~(bank & np.isnan(hit[:, 0]))
        hb = np.where(np.isnan(hit), W, hit)
        d_w = np.where(bank, np.hypot(*(hb - W).T) + np.hypot(*(arena.pin_spots[0] - hb).T),
                       d_w)
        if len(pins):
            cost += 3.0 * (bank & (seg_dist_many(pins, W, hb).min(1) < rp + 0.01))
    if len(pins):
        cost += 2.0 * ((label == 3) & (seg_dist_many(pins, W, P).min(1) < rp + 0.01))
    # after contact the red leaves along the tangent (stun): toward pins (K-13), the other white
    # (rødt, K-8) or a pocket (K-14)?
    tan = dh - cosa[:, None] * u
    n_t = np.hypot(tan[:, 0], tan[:, 1])
    side = n_t > 1e-6
    tan /= np.maximum(n_t, 1e-12)[:, None]
    t_pin = seg_dist_many(pins, G, G + 1.2 * tan).min(1) if len(pins) else np.full(n_shots, 1.0)
    cost += 6.0 * (side & (t_pin < rp + 0.01))
    t_oth = dist_other(G, G + 1.5 * tan)
    cost -= 1.0 * (side & (t_oth < 2 * R - 0.005))
    pk = arena.pockets[:, :2]
    t_pk = seg_dist_many(pk, G, G + 1.0 * tan).min(1)
    cost += 2.0 * (side & (t_pk < arena.pockets[0, 2] + 0.01))
    feat[:, 2] = np.where(side, np.clip((t_pin - rp) / 0.2, -1, 1), -1.0)
    feat[:, 3] = np.where(side, np.clip((t_oth - 2 * R) / 0.2, -1, 1), 1.0)
    feat[:, 4] = np.where(side, np.clip((t_pk - arena.pockets[0, 2]) / 0.2, -1, 1), 1.0)
    feat[:, 5] = cut / 90.0
    feat[:, 6] = np.clip(d_r / 2.0, 0, 1)
    feat[:, 7] = np.clip(d_w / 2.0, 0, 1)
    b = np.where(cut < KEGLE_SPEED["full_cut"], min(spin_b, KEGLE_SPEED["full_draw"]), spin_b)
    # a full hit: the red would follow the white into the pins; draw it back
    k = KEGLE_SPEED
    v_white = k["white0"] + k["white_per_m"] * d_w
    v_contact = v_white * k["slide"] / np.maximum(cosa, 0.3)
    v_red = np.clip(v_contact + k["red_per_m"] * d_r, k["min"], k["max"])
    V0 = v_red * (1.0 + arena.params.m / arena.params.M + 2.5 * b * b) / 2.0
    cue = np.zeros((len(C), 5))
    cue[:, 0] = V0
    cue[:, 1] = np.degrees(np.arctan2(d[:, 1], d[:, 0]))
    cue[:, 4] = b
    return cue, cost, cut, ok, feat


def _cushion_point(arena: Any, W: np.ndarray, P: np.ndarray) -> np.ndarray | None:
    """Where the straight line W -> P (P a mirror image beyond a cushion line) crosses the
    ball-centre cushion line, or None if it does not."""
    hx, hy = arena.hx, arena.hy
    d = P - W
    for axis, lim in ((0, hx), (0, -hx), (1, hy), (1, -hy)):
        if abs(d[axis]) < 1e-12:
            continue
        s = (lim - W[axis]) / d[axis]
        if 0.0 < s < 1.0:
            q = W + s * d
            if abs(q[0]) <= hx + 1e-9 and abs(q[1]) <= hy + 1e-9:
                return q
    return None


#: Red placements behind a ghost ball: (distance behind it [m], cut angle [deg]), best first.
_PLACE_GRID = np.array([(L, beta) for L in (0.25, 0.4, 0.15, 0.6)
                        for beta in (15.0, -15.0, 25.0, -25.0, 8.0, -8.0, 35.0, -35.0)])


def _placements(arena: Any, state: Any, W: np.ndarray, P: np.ndarray, limit: int
                ) -> list[list[np.ndarray]]:
    """For each shot W[n] -> P[n]: up to ``limit`` red placements behind its ghost ball, for
    8-35 degree cuts, that are playable (K-19) and in the in-hand area (K-3, K-15)."""
    R = arena.R
    u = P - W
    u /= np.maximum(np.hypot(u[:, 0], u[:, 1]), 1e-12)[:, None]
    G = W - 2.0 * R * u  # (N, 2)
    L = _PLACE_GRID[:, 0]
    c, s = np.cos(np.radians(_PLACE_GRID[:, 1])), np.sin(np.radians(_PLACE_GRID[:, 1]))
    rot = np.stack([c[None] * u[:, None, 0] - s[None] * u[:, None, 1],
                    s[None] * u[:, None, 0] + c[None] * u[:, None, 1]], axis=-1)  # (N, K, 2)
    C = G[:, None, :] - L[None, :, None] * rot
    flat = C.reshape(-1, 2)
    ok = arena.placement_ok([state] * len(flat), flat)
    if state.ball_in_hand == "salvo":  # on or behind the salvo line (K-3, K-15)
        ok &= flat[:, 0] <= arena.salvo_x
    ok = ok.reshape(C.shape[:2])
    return [list(C[n][ok[n]][:limit]) for n in range(len(C))]


def kegle_candidates(arena: Any, state: Any, *, spins: Sequence[float] = (-0.2,),
                     max_places: int = 12) -> Candidates:
    """The geometric aimer's shots for one keglebillard state.

    Every (white, target pin) pair gives a ghost-ball shot from the red's position, or, with
    ball in hand, from up to ``max_places`` placements behind the ghost ball; one shot per spin
    ``b`` in ``spins``. When no white is on the table (both waiting, K-18) or nothing is
    feasible, a plain shot at the nearest white or a cushion is returned with a high cost.
    """
    whites = [(j, np.array(state.balls[j], float)) for j in (1, 2) if state.balls[j] is not None]
    in_hand = state.ball_in_hand is not None
    Cs, Js, Ws, Ps, codes, c0s, names = [], [], [], [], [], [], []
    code_of = {"king": 0, "bank": 2, "safe": 3}
    shots = [(j, W, P, label, c0) for j, W in whites
             for P, label, c0 in _kegle_targets(arena, state, W)
             if not (in_hand and label == "safe")]  # with the red in hand: pin shots only
    if in_hand and shots:
        places = _placements(arena, state, np.array([x[1] for x in shots]),
                             np.array([x[2] for x in shots]), max_places)
    else:
        places = [[np.array(state.balls[0], float)] if not in_hand else [] for _ in shots]
    for (j, W, P, label, c0), starts in zip(shots, places, strict=True):
        for C in starts:
            Cs.append(C)
            Js.append(j)
            Ws.append(W)
            Ps.append(P)
            codes.append(code_of.get(label, 1))
            c0s.append(c0)
            names.append(f"w{j}:{label}")
    rows, cost, kind, place, feats = [], [], [], [], []
    if Cs:
        C, J, W, P = np.array(Cs), np.array(Js), np.array(Ws), np.array(Ps)
        code, c0 = np.array(codes), np.array(c0s)
        for b in spins:
            cue, cst, cut, ok, feat = _kegle_shots(arena, state, C, J, W, P, code, b)
            for n in np.flatnonzero(ok):
                rows.append(cue[n])
                cost.append(cst[n] + c0[n])
                kind.append(f"{names[n]}:cut{cut[n]:.0f}")
                place.append(C[n] if in_hand else (np.nan, np.nan))
                feats.append(feat[n])
    if not rows:  # fallback: any legal-looking shot
        C = _fallback_place(arena, state) if state.ball_in_hand is not None else \
            np.array(state.balls[0], float)
        if whites:
            W = whites[0][1]
            phi = math.degrees(math.atan2(W[1] - C[1], W[0] - C[0]))
        else:
            phi = 90.0 if C[1] < 0 else -90.0
        rows.append(np.array([2.0, phi, 0.0, 0.0, -0.2]))
        cost.append(50.0)
        kind.append("fallback")
        place.append(C if state.ball_in_hand is not None else (np.nan, np.nan))
        feats.append(np.zeros(N_GEO_FEAT))
    n = len(rows)
    return Candidates(Strikes(np.array(rows), np.zeros(n, np.int64), np.array(place, float)),
                      np.array(cost), kind, np.array(feats))


def _fallback_place(arena: Any, state: Any) -> np.ndarray:
    """A valid placement: near the bottom spot, behind the salvo line when required."""
    xs = np.linspace(-arena.hx + 0.01, arena.salvo_x - 0.05, 9)
    ys = np.linspace(-arena.hy + 0.05, arena.hy - 0.05, 9)
    C = np.array([(x, y) for x in xs[::-1] for y in ys])
    ok = arena.placement_ok([state] * len(C), C)
    return C[int(np.argmax(ok))] if ok.any() else C[0]
