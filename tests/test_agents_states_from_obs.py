"""The rules states the residual and choice wrappers read back from Shot-env observations
(cuegym.agents.residual.kegle_states_from_obs / golf_states_from_obs) are the positions that
were observed: balls, pins, ball in hand, kader and duty, for every table at once."""
from __future__ import annotations

import numpy as np
import pytest
from game_positions import geometric_games

from cuegym.agents import make_arena
from cuegym.agents.residual import (
    env_actions,
    golf_frame_states,
    golf_states_from_obs,
    kegle_states_from_obs,
)
from cuegym.envs.golf import observe_states
from cuegym.games.kegle_state import HAND_CLOTH, HAND_NONE, HAND_SALVO, KegleStates
from cuegym.rules.golf_arrays import GolfStates
from cuegym.rules.golf_codes import P_PLAY

# observations are float32: positions come back to float32 precision of x / (L/2)
ATOL = 2e-7 * 2.0


def _positions(arena):
    _, seen = geometric_games(arena, 24, 12, 7)
    return type(seen[0]).concat(seen)


def test_keglebillard_states_from_observations():
    arena = make_arena("keglebillard")
    states = _positions(arena)
    # ball in hand anywhere on the cloth (K-19) is rare in geometric games: make some
    states.hand[np.flatnonzero(states.hand == HAND_SALVO)[:3]] = HAND_CLOTH
    assert {HAND_NONE, HAND_SALVO, HAND_CLOTH} <= set(states.hand.tolist())
    obs = arena.g.observe(states, shot_env=True)
    back = kegle_states_from_obs(obs, arena)
    assert isinstance(back, KegleStates) and len(back) == len(states)
    np.testing.assert_array_equal(back.hand, states.hand)
    np.testing.assert_array_equal(back.pins, states.pins)
    np.testing.assert_array_equal(np.isnan(back.xy), np.isnan(states.xy))
    np.testing.assert_allclose(back.xy, states.xy, atol=ATOL, rtol=0)
    # the Shot env's view: 0 : 0, two players, player 0 to shoot after the break
    assert (back.scores == 0).all() and back.n_players == 2 and (back.to_play == 0).all()
    assert (back.shot == 1).all() and not back.game_over.any()
    # every table reads as a valid rules state
    assert len([s for s in back]) == len(states)


def test_golfbillard_states_from_observations_are_the_movers_frame():
    arena = make_arena("golfbillard")
    states = _positions(arena)
    states.kader[::5] = True  # kader play comes late in a game: flag some tables
    half = (arena.table.length / 2, arena.table.width / 2)
    obs = observe_states(states, states.to_move, half)
    back = golf_states_from_obs(obs, arena)
    frame = golf_frame_states(states)
    assert isinstance(back, GolfStates) and len(back) == len(states)
    assert states.kader.any() and states.duty.any() and (states.to_move == 1).any()
    np.testing.assert_array_equal(np.isnan(back.xy), np.isnan(frame.xy))
    np.testing.assert_allclose(back.xy, frame.xy, atol=ATOL, rtol=0)
    np.testing.assert_array_equal(back.kader, states.kader)
    np.testing.assert_array_equal(back.duty[:, :5], frame.duty[:, :5])
    assert not back.duty[:, 5:].any() and (back.to_move == 0).all()
    assert (back.phase == P_PLAY).all() and (back.winner == -1).all()
    assert len([s for s in back]) == len(states)


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_env_actions_take_a_batch_or_state_values_alike(game):
    """The env action of a strike is the same whether the states come as a batch or as
    per-table values; keglebillard placements map into the ball-in-hand area."""
    from cuegym.agents import GeometricAgent

    arena = make_arena(game)
    states = _positions(arena)
    if game == "golfbillard":
        states = golf_frame_states(states)
    strikes = GeometricAgent(game, arena).act(states, np.random.default_rng(0))
    batch = env_actions(game, strikes, states, arena)
    values = env_actions(game, strikes, list(states), arena)
    np.testing.assert_array_equal(batch, values)
    assert batch.shape == (len(states), 7) and np.abs(batch).max() <= 1.0
    if game == "keglebillard":
        placed = states.hand != HAND_NONE
        assert placed.any() and (batch[~placed, 5:] == 0).all()
