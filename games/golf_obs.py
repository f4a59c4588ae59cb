"""Golfbillard observations: the layout every golfbillard env and agent shares, and the batched
encoder of game states (:meth:`cuegym.games.golf.Golf.observe`).

The table is seen from the observing side: coordinates are multiplied by +1 (side 0) or -1
(side 1), so its attack goal is always at +x, and divided by (L/2, W/2); its own balls come
first. Table of meanings: ``cuegym.envs.golfbillard``.
"""

from __future__ import annotations

import numpy as np

from cuegym.rules.golf_arrays import BALLS_PER_SIDE, N_BALLS, GolfStates
from cuegym.rules.golf_codes import P_OPENING, P_PLAY

_BALL_FIELDS = []
for _who in ("own", "opp"):
    for _k in range(1, BALLS_PER_SIDE + 1):
        _BALL_FIELDS += [(f"{_who}{_k}_x", -1.1, 1.1), (f"{_who}{_k}_y", -1.1, 1.1),
                         (f"{_who}{_k}_on_table", 0.0, 1.0)]
#: Observation layout: (name, low, high) per index.
OBS_LAYOUT: tuple[tuple[str, float, float], ...] = (
    *_BALL_FIELDS,
    ("own_balls_left", 0.0, 1.0), ("opp_balls_left", 0.0, 1.0), ("kader", 0.0, 1.0),
    ("opening", 0.0, 1.0), ("turn_continues", 0.0, 1.0),
    *((f"own{k}_duty", 0.0, 1.0) for k in range(1, BALLS_PER_SIDE + 1)),
    ("to_move", 0.0, 1.0), ("own_games_won", 0.0, 1.0), ("opp_games_won", 0.0, 1.0),
)
OBS_DIM = len(OBS_LAYOUT)
OBS_INDEX = {name: i for i, (name, _, _) in enumerate(OBS_LAYOUT)}
OBS_LOW = np.array([lo for _, lo, _ in OBS_LAYOUT])
OBS_HIGH = np.array([hi for _, _, hi in OBS_LAYOUT])


def side_sign(side: np.ndarray) -> np.ndarray:
    """+1 for side 0, -1 for side 1: multiply table coordinates to get the side's frame."""
    return 1.0 - 2.0 * np.asarray(side, np.float64)


def observe_arrays(states: GolfStates, sides: np.ndarray, half: tuple[float, float],
                   to_move: np.ndarray | None = None, games_to_win: int = 1) -> np.ndarray:
    """(T, OBS_DIM) float32 observations of a batch from ``sides`` (T,) point of view.

    Args:
        half: (L/2, W/2) [m]. to_move: (T,) bool shown as ``to_move`` (default: the side is to
            strike: an opening, or a play state with the side at the table).
        games_to_win: games a side needs to win the match (G-4), scales ``*_games_won``.
    """
    T = len(states)
    side = np.broadcast_to(np.asarray(sides, np.int64), (T,))
    xy = states.xy
    f = side_sign(side)
    on = ~np.isnan(xy[..., 0])
    p = np.where(on[..., None], xy, 0.0) * f[:, None, None] / np.array(half)
    own = np.where(side[:, None] == 0, np.arange(N_BALLS)[None],
                   (np.arange(N_BALLS)[None] + BALLS_PER_SIDE) % N_BALLS)  # own balls first
    p = np.take_along_axis(p, own[..., None], axis=1)
    on_o = np.take_along_axis(on, own, axis=1)
    rows = np.arange(T)
    opening = states.phase == P_OPENING
    mine = (states.phase == P_PLAY) & (states.to_move == side)
    obs = np.zeros((T, OBS_DIM))
    obs[:, 0:30:3] = p[:, :, 0]
    obs[:, 1:30:3] = p[:, :, 1]
    obs[:, 2:30:3] = on_o
    obs[:, 30] = on_o[:, :BALLS_PER_SIDE].sum(1) / BALLS_PER_SIDE
    obs[:, 31] = on_o[:, BALLS_PER_SIDE:].sum(1) / BALLS_PER_SIDE
    obs[:, 32] = states.kader
    obs[:, 33] = opening
    obs[:, 34] = mine & states.turn_scored  # also a kept turn after a scored opening (G-3)
    duty = states.duty.reshape(T, 2, BALLS_PER_SIDE)[rows, side]
    obs[:, 35:40] = np.where(mine[:, None], duty, 0.0)
    obs[:, 40] = (opening | mine) if to_move is None else np.asarray(to_move, bool)
    obs[:, 41] = states.games_won[rows, side] / games_to_win
    obs[:, 42] = states.games_won[rows, 1 - side] / games_to_win
    return np.clip(obs, OBS_LOW, OBS_HIGH).astype(np.float32)
