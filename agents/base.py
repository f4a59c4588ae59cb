"""The one interface every agent implements, the strike batch it returns, and shot noise.

An agent acts on a batch of *game states* (``cuegym.rules``: a keglebillard
:class:`~cuegym.rules.keglebillard_game.GameState` or a golfbillard
:class:`~cuegym.rules.golfbillard.GolfState`) and returns one strike per state as a
:class:`Strikes` batch. Game states need no environment; an agent that works on env observations
(``SB3Agent``) turns states into observations itself, so every agent plays through the same
call and the same tournament code (``cuegym.agents.arena``).

Strike parameters are those of the physics API (docs/physics_api.md): ``V0`` cue speed [m/s],
``phi`` aim [deg, 0 = +x, 90 = +y], ``theta`` cue elevation [deg], ``a`` side and ``b`` top/back
spin (cue-tip offsets / R).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

GAMES = ("keglebillard", "golfbillard")

#: Strike limits the agents keep to (the physics accepts V0 <= 20, theta <= 90, a^2 + b^2 <= 1).
V0_MAX = 8.0
THETA_MAX = 60.0
SPIN_MAX = 0.6


def _tournament_sigma() -> tuple[float, float, float, float, float]:
    """The ``tournament`` preset of ``configs/envs/noise.yaml`` (the envs' source of truth) in
    strike units: a and b from metres to fractions of the ball radius R."""
    from cuegym.configs import load_params
    from cuegym.envs.config import noise_presets

    t = noise_presets()["tournament"]
    R = load_params("keglebillard").R  # both games play balls of the same radius
    return t.V0, t.phi, t.theta, t.a / R, t.b / R


_TOURNAMENT = _tournament_sigma()


def check_game(game: str) -> str:
    """Return ``game`` if it is a known game name, else raise ValueError naming it."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known: {list(GAMES)}")
    return game


@dataclass
class Strikes:
    """One strike per table (the leading axis is the batch of states an agent acted on).

    Attributes:
        cue: (T, 5) V0 [m/s], phi [deg], theta [deg], a, b.
        cue_ball: (T,) index of the struck ball (keglebillard: always 0, the red; golfbillard:
            one of the shooter's own balls, 0..9).
        place: (T, 2) keglebillard only: where the red is placed when the player has ball in hand
            [m]; NaN where nothing is placed.
    """

    cue: np.ndarray
    cue_ball: np.ndarray
    place: np.ndarray

    def __post_init__(self) -> None:
        self.cue = np.asarray(self.cue, np.float64).reshape(-1, 5)
        T = len(self.cue)
        self.cue_ball = np.asarray(self.cue_ball, np.int64).reshape(T)
        self.place = np.asarray(self.place, np.float64).reshape(T, 2)

    @classmethod
    def empty(cls, T: int) -> Strikes:
        """T strikes of zeros with no placement (to fill in)."""
        return cls(np.zeros((T, 5)), np.zeros(T, np.int64), np.full((T, 2), np.nan))

    def __len__(self) -> int:
        return len(self.cue)

    def take(self, idx: Any) -> Strikes:
        """The strikes at ``idx`` (an index array or a boolean mask), copied."""
        return Strikes(self.cue[idx].copy(), self.cue_ball[idx].copy(), self.place[idx].copy())

    def put(self, idx: Any, other: Strikes) -> None:
        """Write ``other`` into the rows ``idx`` (in place)."""
        self.cue[idx] = other.cue
        self.cue_ball[idx] = other.cue_ball
        self.place[idx] = other.place

    @staticmethod
    def concat(parts: Sequence[Strikes]) -> Strikes:
        return Strikes(np.concatenate([p.cue for p in parts]),
                       np.concatenate([p.cue_ball for p in parts]),
                       np.concatenate([p.place for p in parts]))

    def clipped(self) -> Strikes:
        """A copy kept inside the agents' strike limits (V0 in [0.05, V0_MAX], theta in
        [0, THETA_MAX], a^2 + b^2 <= SPIN_MAX^2, phi wrapped to [-180, 180))."""
        cue = self.cue.copy()
        cue[:, 0] = np.clip(cue[:, 0], 0.05, V0_MAX)
        cue[:, 1] = (cue[:, 1] + 180.0) % 360.0 - 180.0
        cue[:, 2] = np.clip(cue[:, 2], 0.0, THETA_MAX)
        r = np.hypot(cue[:, 3], cue[:, 4])
        scale = np.where(r > SPIN_MAX, SPIN_MAX / np.maximum(r, 1e-12), 1.0)
        cue[:, 3:5] *= scale[:, None]
        return Strikes(cue, self.cue_ball.copy(), self.place.copy())


@dataclass(frozen=True)
class ShotNoise:
    """Gaussian execution noise on a strike (standard deviations), as in the computational
    billiards tournaments (ICGA / FastFiz): the executed strike is the intended one plus noise.

    Attributes:
        V0: cue speed [m/s]. phi: aim [deg]. theta: elevation [deg].
        a, b: cue-tip offsets [fraction of R].
        place: ball-in-hand placement [m] (0: placed exactly).

    The defaults are the ``tournament`` preset of ``configs/envs/noise.yaml`` (V0 0.075 m/s,
    phi 0.125 deg, theta 0.1 deg, a and b 0.5 mm / R), the noise the envs apply.
    """

    V0: float = _TOURNAMENT[0]
    phi: float = _TOURNAMENT[1]
    theta: float = _TOURNAMENT[2]
    a: float = _TOURNAMENT[3]
    b: float = _TOURNAMENT[4]
    place: float = 0.0

    @classmethod
    def named(cls, name: str | float | ShotNoise | None) -> ShotNoise:
        """``"tournament"`` (the defaults), ``"none"``, or a number scaling the tournament
        noise (``2`` doubles every deviation)."""
        if isinstance(name, ShotNoise):
            return name
        if name is None or name == "none":
            return cls(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        if name == "tournament":
            return cls()
        try:
            k = float(name)
        except (TypeError, ValueError):
            raise ValueError(f"shot noise must be 'tournament', 'none' or a scale factor, got "
                             f"{name!r}") from None
        if not k >= 0:
            raise ValueError(f"shot noise scale must be >= 0, got {name!r}")
        t = cls()
        return cls(t.V0 * k, t.phi * k, t.theta * k, t.a * k, t.b * k, t.place * k)

    @property
    def sigma(self) -> np.ndarray:
        """(5,) deviations in strike order V0, phi, theta, a, b."""
        return np.array([self.V0, self.phi, self.theta, self.a, self.b])

    @property
    def is_zero(self) -> bool:
        return not (self.sigma.any() or self.place)

    def sample(self, cue: np.ndarray, k: int, rng: np.random.Generator,
               z: np.ndarray | None = None) -> np.ndarray:
        """(T, k, 5) noisy copies of (T, 5) strikes, kept valid for the physics (V0 >= 0,
        theta in [0, 90], a^2 + b^2 <= 1). ``z``: optional (T, k, 5) standard normal draws to
        use instead of drawing from ``rng``."""
        cue = np.asarray(cue, np.float64).reshape(-1, 5)
        out = np.repeat(cue[:, None, :], k, axis=1)
        if self.sigma.any():
            z = rng.standard_normal(out.shape) if z is None else np.asarray(z).reshape(out.shape)
            out = out + z * self.sigma
        out[..., 0] = np.clip(out[..., 0], 0.0, 20.0)
        out[..., 2] = np.clip(out[..., 2], 0.0, 90.0)
        r = np.hypot(out[..., 3], out[..., 4])
        scale = np.where(r > 0.95, 0.95 / np.maximum(r, 1e-12), 1.0)
        out[..., 3:5] *= scale[..., None]
        return out

    def apply(self, strikes: Strikes, rng: np.random.Generator) -> Strikes:
        """The strikes as executed: one noise sample each (placements get ``place`` noise)."""
        out = Strikes(self.sample(strikes.cue, 1, rng)[:, 0], strikes.cue_ball.copy(),
                      strikes.place.copy())
        if self.place:
            out.place = out.place + rng.normal(size=out.place.shape) * self.place
        return out


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
