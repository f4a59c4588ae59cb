"""The one interface every agent implements. The strike batch it returns
(:class:`~cuegym.games.strikes.Strikes`) and the execution noise
(:class:`~cuegym.games.noise.ShotNoise`) live in the game layer and are re-exported here.

An agent acts on a batch of *game states* (keglebillard: a
:class:`~cuegym.games.kegle_state.KegleStates` batch from the game layer, or a list of rules
:class:`~cuegym.rules.keglebillard_game.GameState` values -- iterating a batch gives those
values; golfbillard: a list of :class:`~cuegym.rules.golfbillard.GolfState`) and returns one
strike per state as a :class:`Strikes` batch. Game states need no environment; an agent that
works on env observations (``SB3Agent``) turns states into observations itself, so every agent
plays through the same call and the same tournament code (``cuegym.agents.arena``).

Strike parameters are those of the physics API (docs/physics_api.md): ``V0`` cue speed [m/s],
``phi`` aim [deg, 0 = +x, 90 = +y], ``theta`` cue elevation [deg], ``a`` side and ``b`` top/back
spin (cue-tip offsets / R).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from cuegym.games.noise import ShotNoise, load_noise  # noqa: F401 (re-exported)
from cuegym.games.strikes import SPIN_MAX, THETA_MAX, V0_MAX, Strikes  # noqa: F401 (re-exported)

GAMES = ("keglebillard", "golfbillard")


def check_game(game: str) -> str:
    """Return ``game`` if it is a known game name, else raise ValueError naming it."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known: {list(GAMES)}")
    return game


class Agent(ABC):
    """An agent for one game: a batched policy over game states.

    Subclasses set ``game`` and implement :meth:`act`. ``rng`` is the caller's generator: every
    random choice an agent makes comes from it, so a seeded tournament is reproducible.
    """

    #: ``"keglebillard"`` or ``"golfbillard"``.
    game: str = ""
    #: short name used in tables and charts.
    name: str = "agent"

    @abstractmethod
    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        """One strike per state; each state is a position where this agent is to play.

        Args:
            states: T game states of this agent's game, none of them over.
            rng: the caller's random generator.

        Returns:
            :class:`Strikes` of length T (keglebillard: ``place`` is set exactly where the state
            has the red in hand; golfbillard: ``cue_ball`` is one of the shooter's own balls).
        """

    def act_opening(self, states: Sequence[Any], side: int, rng: np.random.Generator) -> Strikes:
        """Golfbillard G-3 opening: this agent's strike of its middle ball for ``side``.

        The default is the rules' soft stroke off the left long cushion
        (:func:`cuegym.rules.golfbillard_game.opening_strike`) at a cue speed near 1.1 m/s.
        """
        from cuegym.rules.golfbillard_game import opening_balls, opening_strike

        out = Strikes.empty(len(states))
        for t, st in enumerate(states):
            ball = opening_balls(st)[side]
            out.cue[t] = opening_strike(st, side, ball, V0=1.1 + 0.05 * rng.standard_normal())
            out.cue_ball[t] = ball
        return out

    def reset(self) -> None:  # noqa: B027 - optional hook
        """Forget anything remembered between games (most agents remember nothing)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r}, name={self.name!r})"
