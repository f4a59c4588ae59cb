"""TEST ORACLE ONLY: the plane-geometry helpers of the numpy geometric aimers
(tests/reference/golf_aimer.py, tests/reference/kegle_aimer.py), as they were in
``cuegym.agents.geometric`` at issue 12. Not part of the product.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.hypot(v[0], v[1]))
    return v / n if n > 1e-12 else np.array([1.0, 0.0])


def _rot(v: np.ndarray, deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


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


def ghost(obj: np.ndarray, target: np.ndarray, R: float) -> tuple[np.ndarray, np.ndarray]:
    """(ghost-ball centre, unit direction object -> target)."""
    u = _unit(target - obj)
    return obj - 2.0 * R * u, u


def cue_speed(ball_speed: float, a: float, b: float, m: float, M: float) -> float:
    """Cue speed V0 that gives the cue ball ``ball_speed`` (Alciatore TP A-30)."""
    return ball_speed * (1.0 + m / M + 2.5 * (a * a + b * b)) / 2.0
