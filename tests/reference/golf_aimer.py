"""TEST ORACLE ONLY: the golfbillard geometric aimer as it was before the compiled kernel
(``cuegym.agents.geometric_golf``): numpy per state, one Python loop over the own balls, at
issue 12. tests/test_agents_golf_aimer.py requires the same candidates. Not part of the product.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from cuegym.agents.base import Strikes
from cuegym.agents.geometric_golf import (
    GOLF_SPEED,
    GOLF_STAGING,
    goal_cone,
    stop_speed,
    strip_y,
)
from cuegym.agents.geometry import N_GEO_FEAT, Candidates, seg_dist

from .aim_geometry import _rot, _unit, cue_speed, ghost, seg_dist_many


def _golf_clear(xy: np.ndarray, on: np.ndarray, b: int, A: np.ndarray, B: np.ndarray,
                geo: Any, margin: float = 0.002) -> float:
    """How much the path of ball b's centre from A to B clears other balls and caps [m]
    (negative: blocked)."""
    R = geo.R
    others = np.flatnonzero(on & (np.arange(len(xy)) != b))
    c = np.inf
    if len(others):
        c = float(seg_dist(xy[others], A, B).min() - 2 * R)
    cap = float(seg_dist(geo.caps, A, B).min() - (R + geo.r_cap))
    return min(c, cap) - margin


def _golf_clear_many(xy: np.ndarray, on: np.ndarray, b: int, A: np.ndarray, B: np.ndarray,
                     geo: Any, margin: float = 0.002) -> np.ndarray:
    """:func:`_golf_clear` for N paths A[n] -> B[n] of ball b at once: (N,) clearances [m]."""
    R = geo.R
    A = np.broadcast_to(np.asarray(A, float), np.shape(B))
    others = np.flatnonzero(on & (np.arange(len(xy)) != b))
    c = np.full(len(B), np.inf)
    if len(others):
        c = seg_dist_many(xy[others], A, B).min(1) - 2 * R
    cap = seg_dist_many(geo.caps, A, B).min(1) - (R + geo.r_cap)
    return np.minimum(c, cap) - margin


def _ray_polygon(p: np.ndarray, u: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """Cyrus-Beck: (A, 2) entry and exit distances of rays p + s u (u: (A, 2) unit vectors)
    through the convex counter-clockwise polygon; entry > exit where a ray misses it."""
    A = len(u)
    s_in = np.zeros(A)
    s_out = np.full(A, np.inf)
    for k in range(len(poly)):
        a, b = poly[k], poly[(k + 1) % len(poly)]
        e = b - a
        n = np.array([e[1], -e[0]])  # outward normal of a counter-clockwise polygon
        num = float(n @ (a - p))  # inside: n . (x - a) <= 0
        den = u @ n
        par = np.abs(den) < 1e-12
        t = np.where(par, 0.0, num / np.where(par, 1.0, den))
        enter = ~par & (den < 0)
        leave = ~par & (den > 0)
        s_in = np.where(enter, np.maximum(s_in, t), s_in)
        s_out = np.where(leave, np.minimum(s_out, t), s_out)
        s_out = np.where(par & (num < 0), -1.0, s_out)  # parallel and outside
    return np.stack([s_in, s_out], axis=1)


def _norm_cdf(x: np.ndarray) -> np.ndarray:
    """Standard normal CDF (Abramowitz & Stegun 7.1.26 erf, |error| < 1.5e-7), vectorised."""
    z = np.abs(np.asarray(x, np.float64)) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                          + t * 1.061405429))))
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * (1.0 + np.sign(x) * erf)


def golf_candidates(arena: Any, state: Any, *, spins: Sequence[float] = (0.0,)) -> Candidates:
    """The geometric aimer's strokes for one golfbillard play state (the side ``to_move``).

    For each own ball: a straight shot into the attack goal (between the goal caps, rolling
    ``goal_extra`` past the goal centre) when the ball lies in the :class:`GoalCone` and the path
    is clear; otherwise a *safe placement* into the cone, for the next turn: among rays from the
    ball (one per degree) the one whose stretch inside the cone the ball most likely stops in
    under the execution noise (stopping distance error grows as the square root of the
    distance), struck to stop in the middle of that stretch. Never toward what the ball is
    frozen to (G-13), never along the nearest long cushion from the strip (G-11), never onto a
    ball on the way (G-12 when it is an own ball), never hard (G-10).
    """
    from cuegym.rules.golfbillard import SIDE_OF, attack_goal, frozen_contacts

    geo = arena.geo
    prm = arena.params
    side = int(state.to_move)
    xy = state.xy
    on = ~np.isnan(xy[:, 0])
    own = np.flatnonzero(on & (SIDE_OF == side))
    goal = geo.goals[attack_goal(side), :2]
    cone = goal_cone(geo, attack_goal(side))
    opp_cone = goal_cone(geo, attack_goal(1 - side))
    poly = cone.polygon()
    rows, cost, kind, balls, feats = [], [], [], [], []
    v_max = 0.95 * arena.rules.hard_speed
    strip = strip_y(geo)
    k_stop = stop_speed(1.0, prm) ** 2  # v^2 per metre of stopping distance
    for b in own:
        p = xy[b]
        frozen = [f for _, _, f in frozen_contacts(xy, int(b), geo, arena.rules.freeze_gap)]

        def allowed(u: np.ndarray, p: np.ndarray = p, frozen: list = frozen) -> bool:
            if any(float(u @ f) > 0.0 for f in frozen):
                return False  # G-13 push
            return not (abs(p[1]) >= strip - 1e-3 and np.sign(u[1]) == np.sign(p[1])
                        and abs(u[1]) > 0.15)  # G-11 toward the nearest long cushion

        # (unit dir, speed, cost, label, feature 0, feature 1)
        aims: list[tuple[np.ndarray, float, float, str, float, float]] = []
        dist = float(np.hypot(*(goal - p)))
        if cone.contains(p) and _golf_clear(xy, on, int(b), p, goal, geo) > 0:
            u = _unit(goal - p)
            aims.append((u, stop_speed(dist + GOLF_SPEED["goal_extra"], prm), 0.5 * dist,
                         "goal", 1.0, dist))
        else:
            # rays within 75 degrees of the direction to the cone's middle
            mid = poly.mean(axis=0)
            base = math.atan2(mid[1] - p[1], mid[0] - p[0])
            ang = base + np.radians(np.arange(-75, 76, 1.0))
            U = np.stack([np.cos(ang), np.sin(ang)], axis=1)
            seg = _ray_polygon(p, U, poly)
            s_in, s_out = seg[:, 0], seg[:, 1]
            hit = s_out > s_in + 0.01
            if hit.any():
                s_mid = 0.5 * (s_in + s_out)
                v = np.sqrt(k_stop * np.maximum(s_mid, 1e-3))
                sig = 2.0 * v / k_stop * GOLF_SPEED["speed_sigma"]  # d(dist) = 2 v dv / k
                prob = _norm_cdf((s_out - s_mid) / sig) - _norm_cdf((s_in - s_mid) / sig)
                prob = np.where(hit, prob, 0.0)
                top = [i for i in np.argsort(-prob)[:24] if prob[i] > 0.02]
                if top:
                    ends = p + s_mid[top, None] * U[top]
                    clear = _golf_clear_many(xy, on, int(b), p, ends, geo)
                    for i, c in zip(top, clear, strict=True):
                        if c <= 0 or not allowed(U[i]):
                            continue
                        aims.append((U[i], float(v[i]), 3.0 + 4.0 * (1.0 - float(prob[i])),
                                     "place", float(prob[i]), float(s_mid[i])))
                        if len(aims) >= 3:
                            break
            # advance: roll toward a staging point on the attack half (beyond the cross)
            Q = GOLF_STAGING * np.array([cone.sgn, 1.0])
            Ls = np.hypot(*(Q - p).T)
            keep = (Ls >= 0.05) & (np.hypot(*(goal - Q).T) <= dist - 0.05)
            if keep.any():
                clear = _golf_clear_many(xy, on, int(b), p, Q[keep], geo)
                for q, L, c in zip(Q[keep], Ls[keep], clear, strict=True):
                    u = (q - p) / L
                    if c > 0 and allowed(u):
                        aims.append((u, stop_speed(float(L), prm),
                                     8.0 + float(np.hypot(*(q - mid))), "advance", 0.0,
                                     float(L)))
        # defence: drive an opponent's ball out of its goal cone (sideways, away from the axis)
        for o in np.flatnonzero(on & (SIDE_OF != side)):
            if not opp_cone.contains(xy[o]):
                continue
            for sy in (1.0, -1.0):
                P = xy[o] + np.array([0.0, sy * 0.3])
                G, uo = ghost(xy[o], P, geo.R)
                d = G - p
                d_r = float(np.hypot(*d))
                if d_r < 1e-6:
                    continue
                u = d / d_r
                cosa = float(u @ uo)
                if cosa < math.cos(math.radians(70.0)):
                    continue
                mask = on.copy()
                mask[o] = False
                if _golf_clear(xy, mask, int(b), p, G, geo) <= 0:
                    continue
                V = stop_speed(d_r, prm) + stop_speed(0.3, prm) / max(cosa, 0.3)
                aims.append((u, V, 7.5 + 0.5 * d_r, "defend", cosa, d_r))
        for u, V, c0, label, f0, f1 in aims:
            if not allowed(u):
                continue
            g = np.zeros(N_GEO_FEAT)
            g[0], g[1] = f0, min(f1 / 2.0, 1.0)
            g[2] = p[0] / 0.9
            g[3] = p[1] / 0.45
            g[4] = min(dist / 2.0, 1.0)
            g[5] = len(frozen) > 0
            for bspin in spins:
                V0 = cue_speed(min(V, v_max), 0.0, bspin, prm.m, prm.M)
                rows.append([V0, math.degrees(math.atan2(u[1], u[0])), 0.0, 0.0, bspin])
                cost.append(c0)
                kind.append(f"{geo.ball_ids[b]}:{label}")
                balls.append(int(b))
                feats.append(g)
    if not rows:  # nothing clear: a soft roll of the own ball nearest the goal, toward the goal
        b = int(own[np.argmin(np.hypot(*(xy[own] - goal).T))]) if len(own) else 0
        u = _unit(goal - xy[b])
        frozen = [f for _, _, f in frozen_contacts(xy, b, geo, arena.rules.freeze_gap)]
        for k in range(36):
            if all(float(u @ f) <= 0.0 for f in frozen):
                break
            u = _rot(u, 10.0 * (k + 1) * (-1) ** k)
        rows.append([0.6, math.degrees(math.atan2(u[1], u[0])), 0.0, 0.0, 0.0])
        cost.append(50.0)
        kind.append("fallback")
        balls.append(b)
        feats.append(np.zeros(N_GEO_FEAT))
    n = len(rows)
    return Candidates(Strikes(np.array(rows), np.array(balls), np.full((n, 2), np.nan)),
                      np.array(cost), kind, np.array(feats))
