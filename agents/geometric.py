"""Geometric aiming (no simulation): ghost-ball shots and safe placements, for both games.

The *ghost ball* of an object ball O sent toward a target P is where the cue ball's centre must be
at contact: ``G = O - 2R u`` with ``u = (P - O) / |P - O|``; aiming the cue ball at G sends O along
u (friction-free). The *cut angle* is the angle between the cue ball's path and u; the object
ball leaves with about ``cos(cut)`` of the cue ball's speed.

Keglebillard (spec K-5..K-19): the red is cut into a white so that the white runs into the pins,
clear of pins on the way (K-12) and with a tangent line that misses them (K-13); with ball in
hand the red is placed behind the ghost ball (:mod:`cuegym.agents.geometric_kegle`).
Golfbillard (spec G-6..G-13): straight shots into the goal cone, safe placements into it,
advances and defences (:mod:`cuegym.agents.geometric_golf`). Both aimers are numba kernels over
a batch of tables; their names are re-exported here. Plane geometry and :class:`Candidates`:
:mod:`cuegym.agents.geometry`.

:func:`kegle_candidates` and :func:`golf_candidates` return every shot the aimer considers with a
heuristic cost; :class:`GeometricAgent` plays the cheapest, the planner
(:class:`cuegym.agents.planner.PlannerAgent`) simulates them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cuegym.agents.base import SPIN_MAX, Agent, Strikes, check_arena, check_game
from cuegym.agents.geometric_golf import (  # noqa: F401 (the golfbillard aimer, re-exported)
    GOLF_SPEED,
    GOLF_STAGING,
    GoalCone,
    goal_cone,
    golf_best,
    golf_candidates,
    golf_candidates_batch,
    stop_speed,
)
from cuegym.agents.geometric_kegle import (  # noqa: F401 (the keglebillard aimer, re-exported)
    KEGLE_SPEED,
    kegle_best,
    kegle_candidates,
    kegle_candidates_batch,
)
from cuegym.agents.geometry import N_GEO_FEAT, Candidates, seg_dist  # noqa: F401 (re-exported)
from cuegym.configs import finite_number

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
        self.arena = check_arena(arena, game) or make_arena(game)
        self.spin = (-0.2 if game == "keglebillard" else 0.0) if spin is None else \
            finite_number("spin", spin)
        if not -SPIN_MAX <= self.spin <= SPIN_MAX:  # the agents' tip limit (Strikes.clipped)
            raise ValueError(f"spin must be in [-{SPIN_MAX}, {SPIN_MAX}] ball radii (the "
                             f"agents' cue-tip limit), got {spin!r}")
        self.name = name

    def candidates(self, state: Any) -> Candidates:
        if self.game == "keglebillard":
            return kegle_candidates(self.arena, state, spins=(self.spin,))
        return golf_candidates(self.arena, state, spins=(self.spin,))

    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        # all tables in one compiled call, no per-state Python
        if self.game == "golfbillard":
            return golf_best(self.arena, states, self.spin)
        return kegle_best(self.arena, states, self.spin)
