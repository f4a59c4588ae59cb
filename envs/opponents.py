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
from os import PathLike
from typing import Any


class _CallableOpponent:
    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self.name = getattr(fn, "__name__", "callable")

    def act(self, states, rng):
        return self.fn(states, rng)


def as_opponent(opponent: Any, default: Callable[[], Any], game: str,
                arena: Callable[[], Any] | None = None) -> Any:
    """An object with ``act(states, rng)``.

    Args:
        opponent: ``"random"`` or None (``default()``, the env's uniform random opponent); any
            other name ``cuegym.agents.make_agent`` accepts (``"geometric"``, ``"planner"``,
            ``"planner:n_candidates=32"``, ``"pretrained"``, a model ``.zip`` path), imported
            only then; an object with ``act(states, rng)`` (a ``cuegym.agents`` Agent); or a
            callable ``f(states, rng)``.
        game: ``keglebillard`` or ``golfbillard`` (for named agents).
        arena: builds the arena of the env's table, rules and players, for named agents (an
            agent made for the default setting would aim, search and observe on the default
            table and rules whatever the env's); None: the default arena.
    """
    if opponent is None or opponent == "random":
        return default()
    if isinstance(opponent, str | PathLike):
        from cuegym.agents import make_agent

        try:
            return make_agent(str(opponent), game, arena=None if arena is None else arena())
        except ValueError as e:
            raise ValueError(f"unknown opponent {str(opponent)!r}: {e}") from None
    if hasattr(opponent, "act"):
        return opponent
    if callable(opponent):
        return _CallableOpponent(opponent)
    raise ValueError(f"an opponent must be 'random', an agent name or model path (as "
                     f"cuegym.agents.make_agent takes), an object with act(states, rng) or a "
                     f"callable, got {opponent!r}")
