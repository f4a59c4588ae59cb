"""Keglebillard observations: the layout every keglebillard env and agent shares, and the
batched encoder of game states (:meth:`cuegym.games.kegle.Kegle.observe`).

Positions are divided by (L/2, W/2); scores by the distance (K-21); other seats are listed in
turn order after the observing player. Table of meanings: ``cuegym.envs.keglebillard``.
"""

from __future__ import annotations

import numpy as np

from .kegle_state import HAND_NONE, HAND_SALVO

#: Seats of other players the observation describes (up to 6 players in all).
OTHER_SEATS = 5
#: Observation layout: (name, low, high) per index.
OBS_LAYOUT: tuple[tuple[str, float, float], ...] = (
    ("red_x", -1.1, 1.1), ("red_y", -1.1, 1.1), ("red_on_table", 0.0, 1.0),
    ("white_x", -1.1, 1.1), ("white_y", -1.1, 1.1), ("white_on_table", 0.0, 1.0),
    ("spotted_x", -1.1, 1.1), ("spotted_y", -1.1, 1.1), ("spotted_on_table", 0.0, 1.0),
    ("king_up", 0.0, 1.0), ("pin1_up", 0.0, 1.0), ("pin2_up", 0.0, 1.0), ("pin3_up", 0.0, 1.0),
    ("pin4_up", 0.0, 1.0),
    ("red_in_hand", 0.0, 1.0), ("in_hand_behind_salvo_line", 0.0, 1.0), ("break", 0.0, 1.0),
    ("to_move", 0.0, 1.0), ("own_score", 0.0, 4.0),
    *((f"seat{k}_score", 0.0, 4.0) for k in range(1, OTHER_SEATS + 1)),
    *((f"seat{k}_in_game", 0.0, 1.0) for k in range(1, OTHER_SEATS + 1)),
)
OBS_DIM = len(OBS_LAYOUT)
OBS_INDEX = {name: i for i, (name, _, _) in enumerate(OBS_LAYOUT)}
OBS_LOW = np.array([lo for _, lo, _ in OBS_LAYOUT])
OBS_HIGH = np.array([hi for _, _, hi in OBS_LAYOUT])


def observe_arrays(half: tuple[float, float], red: np.ndarray, whites: np.ndarray,
                   pins: np.ndarray, hand: np.ndarray, brk: np.ndarray, to_move: np.ndarray,
                   own: np.ndarray, others: np.ndarray, others_in: np.ndarray) -> np.ndarray:
    """(n, OBS_DIM) float32 observations (layout :data:`OBS_LAYOUT`).

    Args:
        half: (L/2, W/2) of the table [m] (positions are divided by them).
        red: (n, 2) [m], NaN when in hand. whites: (n, 2, 2) [m], NaN when off the table.
        pins: (n, 5) bool. hand: (n,) 0/1/2 (none, behind the salvo line, anywhere).
        brk: (n,) bool. to_move: (n,) bool. own: (n,) score / distance.
        others: (n, OTHER_SEATS) scores / distance in turn order after the player;
        others_in: (n, OTHER_SEATS) those seats still in the game.
    """
    n = red.shape[0]
    obs = np.zeros((n, OBS_DIM), np.float64)
    hx, hy = half
    balls = np.concatenate([red[:, None], whites], axis=1)  # (n, 3, 2)
    on = ~np.isnan(balls[:, :, 0])
    xy = np.where(on[..., None], balls, 0.0) / np.array([hx, hy])
    obs[:, 0:9:3] = xy[:, :, 0]
    obs[:, 1:9:3] = xy[:, :, 1]
    obs[:, 2:9:3] = on
    obs[:, 9:14] = pins
    obs[:, 14] = hand != HAND_NONE
    obs[:, 15] = hand == HAND_SALVO
    obs[:, 16] = brk
    obs[:, 17] = to_move
    obs[:, 18] = own
    obs[:, 19:19 + OTHER_SEATS] = others
    obs[:, 19 + OTHER_SEATS:] = others_in
    return np.clip(obs, OBS_LOW, OBS_HIGH).astype(np.float32)


def seats_view(order: np.ndarray, scores: np.ndarray, in_game: np.ndarray, players: np.ndarray,
               distance: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores seen from ``players`` (T,): own (T,) / distance, the other seats' (T, OTHER_SEATS)
    scores / distance and in-game flags, in turn order after each player (0 for empty seats)."""
    T, N = order.shape
    rows = np.arange(T)
    own = scores[rows, players] / distance
    others = np.zeros((T, OTHER_SEATS))
    others_in = np.zeros((T, OTHER_SEATS))
    if N < 2:
        return own, others, others_in
    pos = np.argmax(order == players[:, None], axis=1)
    k = min(N - 1, OTHER_SEATS)
    seat = order[rows[:, None], (pos[:, None] + np.arange(1, k + 1)) % N]  # (T, k)
    others[:, :k] = scores[rows[:, None], seat] / distance
    others_in[:, :k] = in_game[rows[:, None], seat]
    return own, others, others_in
