"""The candidate container of the geometric aimers (:mod:`cuegym.agents.geometric_kegle`,
:mod:`cuegym.agents.geometric_golf`) and the point-segment distance the arena's position value
uses. Lengths in metres, points as (2,) or (N, 2) arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuegym.agents.base import Strikes


def seg_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of points ``p`` (N, 2) from the segment a-b."""
    p = np.atleast_2d(p)
    d = b - a
    L2 = float(d @ d)
    s = np.clip(((p - a) @ d) / L2, 0.0, 1.0) if L2 > 0 else np.zeros(len(p))
    return np.hypot(*(p - (a + s[:, None] * d)).T)


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
