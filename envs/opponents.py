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

import numpy as np

from cuegym.configs import short_repr
from cuegym.games.strikes import Strikes

from .actions import STRIKE_FIELDS


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
        check_agent_setting(opponent, game, arena)
        return opponent
    if callable(opponent):
        return _CallableOpponent(opponent)
    raise ValueError(f"an opponent must be 'random', an agent name or model path (as "
                     f"cuegym.agents.make_agent takes), an object with act(states, rng) or a "
                     f"callable, got {opponent!r}")


def check_agent_setting(agent: Any, game: str, arena: Callable[[], Any] | None) -> None:
    """Refuse a ``cuegym.agents`` Agent made for the other game or for another table or other
    rules than the env's: it would aim, search and observe on its own setting while the env
    plays another (as ``play_games`` refuses it). Other objects with ``act`` pass as they are."""
    from cuegym.agents.base import Agent

    if not isinstance(agent, Agent):
        return
    if agent.game != game:
        raise ValueError(f"opponent {agent.name!r} plays {agent.game!r}, the env {game!r}")
    if arena is None:
        return
    from cuegym.agents.head_to_head import setting_mismatch

    why = setting_mismatch(agent, arena())
    if why is not None:
        raise ValueError(f"opponent {agent.name!r} was made for another setting than the "
                         f"env's: {why}; pass its name, or make it for the env's table and rules "
                         "(make_agent(spec, game, arena=make_arena(game, rules, table=...)))")


def opponent_strikes(answer: Any, method: str, with_place: bool) -> Strikes:
    """An opponent's answer to ``method`` (``act``, ``act_opening``) as :class:`Strikes`: a
    Strikes batch, or anything with ``cue`` and ``cue_ball`` (and, ``with_place``
    (keglebillard), ``place``); anything else, or strikes that are not of their shapes, or ball
    indices that are not integers (a float ball was cut to an int: 0.7 struck ball 0), is a
    ValueError naming the opponent."""
    if isinstance(answer, Strikes):
        return answer
    need = ("cue", "cue_ball", "place") if with_place else ("cue", "cue_ball")
    if not all(hasattr(answer, a) for a in need):
        shapes = "cue (T, 5), cue_ball (T,)" + (", place (T, 2)" if with_place else "")
        raise ValueError(f"the opponent's {method}() must return strikes (a cuegym.games.strikes"
                         f".Strikes batch: {shapes}), got {type(answer).__name__}: "
                         f"{short_repr(answer)}")
    try:
        place = (answer.place if with_place
                 else np.full((np.size(answer.cue_ball), 2), np.nan))
        return Strikes(answer.cue, answer.cue_ball, place)
    except (TypeError, ValueError) as e:
        raise ValueError(f"the opponent's {method}() returned unusable strikes: {e}") from None


def check_opponent_cue(cue: np.ndarray, tables: np.ndarray, noise: Any) -> None:
    """Refuse an opponent's strikes ``cue`` (n, 5) for ``tables`` (n,) before anything is played
    or drawn: non-finite values always (they reached the physics as a PhysicsInputError, after
    the noise draws); without noise (None or zero) also values outside the physics' limits
    (with noise they are clamped, as every executed strike is). The message names the
    opponent, the table and the value."""
    bad = ~np.isfinite(cue)
    if bad.any():
        k, j = np.argwhere(bad)[0]
        raise ValueError(f"the opponent's strike on table {int(tables[k])} has "
                         f"{STRIKE_FIELDS[j]} = {float(cue[k, j])!r}: strikes must be finite")
    if noise is not None and not noise.is_zero:
        return
    try:
        Strikes.of(cue).validate()
        return
    except ValueError:
        pass  # find the table to name
    for k in range(len(cue)):
        try:
            Strikes.of(cue[k]).validate()
        except ValueError as e:
            why = str(e).split(": ", 1)[-1]
            raise ValueError(f"the opponent's strike on table {int(tables[k])}: {why} (the "
                             "physics' limits; without shot noise nothing clamps it)") from None
