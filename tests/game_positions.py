"""Positions of real games for tests (not a test module)."""
from __future__ import annotations

import numpy as np

from cuegym.agents import GeometricAgent, load_noise


def geometric_games(arena, tables, rounds, seed):
    """``tables`` games between geometric agents played for ``rounds`` rounds (tournament
    noise; golfbillard's opening is a round): the states after them, and the batches of live
    states met before each (non-opening) shot."""
    geo, rng = GeometricAgent(arena.game, arena), np.random.default_rng(seed)
    noise = load_noise("tournament")
    states, seen = arena.new_states(tables), []
    for _ in range(rounds):
        if arena.game == "golfbillard" and arena.openings(states).any():
            states = arena.opening(states, *[noise.apply(geo.act_opening(states, s, rng), rng)
                                             for s in (0, 1)])
            continue
        live = np.flatnonzero(~arena.overs(states))
        sub = arena.take(states, live)
        seen.append(sub)
        _, new = arena.step(sub, noise.apply(geo.act(sub, rng), rng))
        arena.put(states, live, new)
    return states, seen
