"""Geometric aiming (no simulation): ghost-ball shots and safe placements, for both games.

The *ghost ball* of an object ball O sent toward a target P is where the cue ball's centre must be
at contact: ``G = O - 2R u`` with ``u = (P - O) / |P - O|``; aiming the cue ball at G sends O along
u (friction-free). The *cut angle* is the angle between the cue ball's path and u; the object
ball leaves with about ``cos(cut)`` of the cue ball's speed.

Keglebillard (spec K-5..K-14): the red (the cue ball) is cut into a white so that the white runs
into the pins (the king; two points a pin, six for the king alone), the red's path to the ghost
ball must be clear of pins (K-12), and after contact the red runs off along the tangent line, which
passes the pins at the ghost ball's distance (no K-13); a slight draw keeps it from bending
forward. Running on, the white reaches a cushion (K-10), and the red has touched a white (K-11).
Shots whose tangent line meets the other white (rødt, K-8) are preferred. With ball in hand the red
is placed behind the white for a 10-30 degree cut.

Golfbillard (spec G-6..G-13): for each own ball, a straight shot at the attack goal when the path
between the goal caps is clear, at a speed that just carries it in (below the G-10 hard stroke
threshold) when the ball lies in the goal's *cone* (the caps leave about +-7 degrees); otherwise
a *safe placement*: roll an own ball softly into the cone, along the ray it most likely stops in
under execution noise, never onto another ball first (G-12), never along the near long cushion
from the strip (G-11), never into what it is frozen to (G-13). Opponent balls in their cone
may be driven out sideways (defence).

:func:`kegle_candidates` and :func:`golf_candidates` return every shot the aimer considers with a
heuristic cost; :class:`GeometricAgent` plays the cheapest, the planner
(:class:`cuegym.agents.planner.PlannerAgent`) simulates them all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np

from cuegym.agents.base import Agent, Strikes, check_game

# ---------------------------------------------------------------------------------------------
# Plane geometry
# ---------------------------------------------------------------------------------------------


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.hypot(v[0], v[1]))
    return v / n if n > 1e-12 else np.array([1.0, 0.0])


def _rot(v: np.ndarray, deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def seg_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of points ``p`` (N, 2) from the segment a-b."""
    p = np.atleast_2d(p)
    d = b - a
    L2 = float(d @ d)
    s = np.clip(((p - a) @ d) / L2, 0.0, 1.0) if L2 > 0 else np.zeros(len(p))
    return np.hypot(*(p - (a + s[:, None] * d)).T)


def seg_dist_many(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N, M) distances of points ``p`` (M, 2) from N segments a[n]-b[n] ((N, 2) each)."""
    p = np.asarray(p, np.float64).reshape(-1, 2)
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    a = np.broadcast_to(a, b.shape) if a.shape != b.shape else a
    out = np.empty((len(b), len(p)))
    _seg_dist_many(p, a.reshape(-1, 2), b.reshape(-1, 2), out)
    return out


@nb.njit(cache=True)
def _seg_dist_many(p, a, b, out):
    """Kernel of :func:`seg_dist_many` (the same arithmetic, without temporaries)."""
    for n in range(b.shape[0]):
        dx = b[n, 0] - a[n, 0]
        dy = b[n, 1] - a[n, 1]
        L2 = max(dx * dx + dy * dy, 1e-24)
        for m in range(p.shape[0]):
            s = ((p[m, 0] - a[n, 0]) * dx + (p[m, 1] - a[n, 1]) * dy) / L2
            s = min(max(s, 0.0), 1.0)
            out[n, m] = math.hypot(p[m, 0] - (a[n, 0] + s * dx), p[m, 1] - (a[n, 1] + s * dy))


def ray_dist(p: np.ndarray, a: np.ndarray, u: np.ndarray, length: float) -> np.ndarray:
    """Distance of points ``p`` (N, 2) from the ray a + s u, 0 <= s <= length."""
    return seg_dist(p, a, a + length * u)


def ghost(obj: np.ndarray, target: np.ndarray, R: float) -> tuple[np.ndarray, np.ndarray]:
    """(ghost-ball centre, unit direction object -> target)."""
    u = _unit(target - obj)
    return obj - 2.0 * R * u, u


def cue_speed(ball_speed: float, a: float, b: float, m: float, M: float) -> float:
    """Cue speed V0 that gives the cue ball ``ball_speed`` (Alciatore TP A-30)."""
    return ball_speed * (1.0 + m / M + 2.5 * (a * a + b * b)) / 2.0


@dataclass
class Candidates:
    """Candidate strikes for one state with the aimer's cost (lower is better).

    Attributes:
        strikes: the candidates as a :class:`Strikes` batch.
        cost: (N,) heuristic cost. kind: (N,) a short label per candidate (for inspection).
        feats: (N, N_GEO_FEAT) the geometry behind the cost, scaled to about [-1, 1]
            (keglebillard: clearance of the red's path to the pins and the other white, of the
            red's tangent line to pins, the other white and the pockets, cut angle / 90,
            distances; golfbillard: in-cone probability, path length, goal / placement flags).
    """

    strikes: Strikes
    cost: np.ndarray
    kind: list[str]
    feats: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.cost)

    def best(self) -> int:
        return int(np.argmin(self.cost))


#: Geometry features per candidate (:attr:`Candidates.feats`).
N_GEO_FEAT = 8

# ---------------------------------------------------------------------------------------------
# Keglebillard
# ---------------------------------------------------------------------------------------------


#: Speed model of the keglebillard aimer (tuned on positions from real games, see docs/agents.md):
#: the white must leave the contact at ``KEGLE_SPEED["white0"] + KEGLE_SPEED["white_per_m"] *
#: (distance to the pins)`` so that it runs through the pins on to a cushion (K-10); a sliding
#: ball loses about 2/7 of its speed before it rolls, hence the ``slide`` factors.
KEGLE_SPEED = {"white0": 1.0, "white_per_m": 0.8, "slide": 1.7, "red_per_m": 0.25,
               "min": 1.0, "max": 6.0, "full_cut": 0.0, "full_draw": -0.5, "bank_cost": 1.5}


def kegle_speed(params: Any, d_r: float, d_w: float, cosa: float, b: float) -> float:
    """Cue speed V0 for a red travelling ``d_r`` to the ghost ball, cutting a white at
    ``cosa`` = cos(cut angle) which then travels ``d_w`` to the pins."""
    k = KEGLE_SPEED
    v_white = k["white0"] + k["white_per_m"] * d_w
    v_contact = v_white * k["slide"] / max(cosa, 0.3)
    v_red = float(np.clip(v_contact + k["red_per_m"] * d_r, k["min"], k["max"]))
    return cue_speed(v_red, 0.0, b, params.m, params.M)


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


# ---------------------------------------------------------------------------------------------
# Golfbillard
# ---------------------------------------------------------------------------------------------


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


def stop_speed(dist: float, params: Any) -> float:
    """Ball speed [m/s] after a centre-ball strike that makes a ball stop after ``dist`` metres:
    it slides until it rolls at 5/7 of its speed (u_s), then rolls (u_r):
    ``dist = v^2 (24/49 / (2 u_s g) + 25/49 / (2 u_r g))``."""
    k = (24.0 / 49.0) / (2.0 * params.u_s * params.g) + (25.0 / 49.0) / (2.0 * params.u_r *
                                                                         params.g)
    return math.sqrt(max(dist, 0.0) / k)


#: Golfbillard aimer: a goal shot is struck to roll ``goal_extra`` metres past the goal centre;
#: ``speed_sigma`` is the ball-speed error [m/s] the placements are made robust to (the
#: tournament noise of 0.075 m/s on the cue speed is about 0.11 m/s of ball speed).
GOLF_SPEED = {"goal_extra": 0.4, "speed_sigma": 0.11, "cone_margin": 0.003}


#: Staging points on the attack half (x for side 0; mirrored for side 1) [m]: where a ball that
#: cannot reach the goal cone this stroke is rolled to, for a cone placement later.
GOLF_STAGING = np.array([(x, y) for x in (0.3, 0.45, 0.6) for y in (-0.25, -0.12, 0.0, 0.12,
                                                                   0.25)])


@dataclass(frozen=True)
class GoalCone:
    """The region in front of a goal from which a straight shot passes between the goal caps.

    The goal caps leave a ball centre ``gap`` = cap y - r_cap - R of play on either side of the
    goal axis at the caps' x, so a ball at distance D from the goal centre along the axis must lie
    within ``slope * D`` of the axis (about +-7 degrees); ``near``/``far`` bound it along the axis
    (beyond the cross, short of the caps).

    Attributes:
        gx: x of the goal centre. sgn: +1 for the goal at +x. slope: half-width per metre.
        near, far: distances from the goal centre along the axis [m]. margin [m].
    """

    gx: float
    sgn: float
    slope: float
    near: float
    far: float
    margin: float

    def polygon(self) -> np.ndarray:
        """(4, 2) the cone cut to [near, far], shrunk by ``margin`` (counter-clockwise)."""
        pts = []
        for d, sy in ((self.near, 1.0), (self.far, 1.0), (self.far, -1.0), (self.near, -1.0)):
            pts.append((self.gx - self.sgn * d, sy * (self.slope * d - self.margin)))
        poly = np.array(pts)
        area = np.sum(poly[:, 0] * np.roll(poly[:, 1], -1) - np.roll(poly[:, 0], -1) * poly[:, 1])
        return poly if area > 0 else poly[::-1].copy()

    def contains(self, p: np.ndarray) -> bool:
        d = self.sgn * (self.gx - p[0])
        return bool(self.near <= d <= self.far and abs(p[1]) <= self.slope * d - self.margin)


def goal_cone(geo: Any, goal: int) -> GoalCone:
    """The :class:`GoalCone` of goal ``goal`` (index = the side that attacks it)."""
    gx = float(geo.goals[goal, 0])
    sgn = 1.0 if gx > 0 else -1.0
    near_caps = geo.caps[np.abs(geo.caps[:, 0] - gx) < 0.2]
    cx = float(np.mean(np.abs(near_caps[:, 0])))
    cy = float(np.max(np.abs(near_caps[:, 1])))
    gap = cy - geo.r_cap - geo.R
    slope = gap / (abs(gx) - cx)
    cross = float(np.max(np.abs(geo.caps[np.abs(geo.caps[:, 1]) < 1e-9, 0])))  # outer cross cap
    near = abs(gx) - cx + geo.R  # a ball centre just in front of the caps
    far = abs(gx) - (cross + geo.r_cap + geo.R + 0.005)
    return GoalCone(gx, sgn, slope, near, far, GOLF_SPEED["cone_margin"])


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


def _strip_y(geo: Any) -> float:
    """|y| of the long-cushion strip's inner line (G-11), from the zone polygons."""
    try:
        poly = geo.zones.zone("strip_top").polygons[0]
        return float(np.min(np.abs(poly[:, 1])))
    except (ValueError, IndexError, AttributeError):
        return 0.3577


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
    strip = _strip_y(geo)
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


# ---------------------------------------------------------------------------------------------
# The agent
# ---------------------------------------------------------------------------------------------


class GeometricAgent(Agent):
    """Plays the geometric aimer's cheapest shot (no simulation, deterministic).

    Args:
        game: ``keglebillard`` or ``golfbillard``.
        arena: the arena whose geometry it uses (default: the game's default arena).
        spin: draw/follow ``b`` of its shots (keglebillard default -0.2: slight draw).
    """

    def __init__(self, game: str = "keglebillard", arena: Any = None, spin: float | None = None,
                 name: str = "geometric") -> None:
        from cuegym.agents.arena import make_arena

        self.game = check_game(game)
        self.arena = arena or make_arena(game)
        self.spin = (-0.2 if game == "keglebillard" else 0.0) if spin is None else float(spin)
        self.name = name

    def candidates(self, state: Any) -> Candidates:
        if self.game == "keglebillard":
            return kegle_candidates(self.arena, state, spins=(self.spin,))
        return golf_candidates(self.arena, state, spins=(self.spin,))

    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        out = Strikes.empty(len(states))
        for t, s in enumerate(states):
            c = self.candidates(s)
            out.put([t], c.strikes.take([c.best()]))
        return out
