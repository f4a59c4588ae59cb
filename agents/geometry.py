"""Plane geometry shared by the geometric aimers (:mod:`cuegym.agents.geometric` for
keglebillard, :mod:`cuegym.agents.geometric_golf` for golfbillard) and the candidate container
they return. Lengths in metres, directions as unit vectors, points as (2,) or (N, 2) arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from cuegym.agents.base import Strikes


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
