"""The random baseline: the rules' own random policies, batched.

Keglebillard: :func:`cuegym.rules.keglebillard_game.random_policy` (cue speed 1-5 m/s, half the
shots aimed roughly at a white, random spin; a red in hand placed uniformly in its area).
Golfbillard: :func:`cuegym.rules.golfbillard_game.random_policy` (a random own ball aimed
roughly at the attack goal, never pushed into what it is frozen to).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cuegym.agents.arena import make_arena
from cuegym.agents.base import Agent, Strikes, check_arena, check_game


class RandomAgent(Agent):
    """Random strikes from the rules' random policy of ``game``.

    Args:
        game: ``keglebillard`` or ``golfbillard``.
        arena: the arena it plays in (keglebillard: a red in hand is placed in that table's
            area and by its rules, behind its salvo line; default: the default arena, whose
            table and rules ``play_games`` then checks against the games', as it does for the
            other agents; golfbillard: no arena needed, its random strokes do not depend on
            one).
        name: label in tables.
    """

    def __init__(self, game: str = "keglebillard", name: str = "random",
                 arena: Any = None) -> None:
        self.game = check_game(game)
        self.name = name
        check_arena(arena, game)
        # keglebillard: the arena's game places a red in hand; without one, the default arena's
        # (kleinmatch) is also what play_games compares with the games' table and rules, so
        # on the helmatch it is refused instead of placing the red in front of its salvo line
        self.arena = arena
        if game == "keglebillard":
            self.arena = arena or make_arena(game)
            self._game = self.arena.g

    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        out = Strikes.empty(len(states))
        if self.game == "keglebillard":
            from cuegym.rules.keglebillard_game import random_policy

            for t, s in enumerate(states):
                red, cue = random_policy(self._game, s, rng)
                out.cue[t] = cue
                if red is not None:
                    out.place[t] = red
        else:
            from cuegym.rules.golfbillard_game import random_policy

            for t, s in enumerate(states):
                cb, cue = random_policy(s, rng)
                out.cue[t] = cue[0]
                out.cue_ball[t] = cb[0]
        return out
