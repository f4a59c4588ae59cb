"""Opponents of the full-game envs: anything that turns rules states into strikes.

The interface is the one of ``cuegym.agents`` (``Agent.act(states, rng) -> Strikes``): a batch
of game states where the opponent is to play (keglebillard: a
:class:`~cuegym.games.kegle_state.KegleStates` batch, whose items are rules ``GameState``
values; golfbillard: a list of :class:`~cuegym.rules.golfbillard.GolfState`) and the caller's
generator; the result is a :class:`~cuegym.games.strikes.Strikes` batch (``cue`` (T, 5),
``cue_ball`` (T,) the struck ball (golfbillard), ``place`` (T, 2) the red's placement where the
red is in hand (keglebillard)). The envs execute those strikes with their shot noise. A plain
callable ``f(states, rng)`` returning such an object is accepted too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class _CallableOpponent:
    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self.name = getattr(fn, "__name__", "callable")

    def act(self, states, rng):
        return self.fn(states, rng)


def as_opponent(opponent: Any, default: Callable[[], Any], game: str) -> Any:
    """An object with ``act(states, rng)``.

    Args:
        opponent: ``"random"`` or None (``default()``, the env's uniform random opponent),
            ``"geometric"`` (``cuegym.agents.geometric.GeometricAgent(game)``, imported only
            then), an object with ``act(states, rng)`` (a ``cuegym.agents`` Agent), or a
            callable ``f(states, rng)``.
        game: ``keglebillard`` or ``golfbillard`` (for named agents).
    """
    if opponent is None or opponent == "random":
        return default()
    if opponent == "geometric":
        try:
            from cuegym.agents.geometric import GeometricAgent
        except ImportError as e:  # pragma: no cover - agents ship with cuegym
            raise ValueError(f"opponent 'geometric' needs cuegym.agents ({e})") from None
        return GeometricAgent(game)
    if isinstance(opponent, str):
        raise ValueError(f"unknown opponent {opponent!r}: named opponents are 'random' and "
                         "'geometric' (or pass an agent object with act(states, rng))")
    if hasattr(opponent, "act"):
        return opponent
    if callable(opponent):
        return _CallableOpponent(opponent)
    raise ValueError(f"an opponent must be 'random', 'geometric', an object with "
                     f"act(states, rng) or a callable, got {opponent!r}")
