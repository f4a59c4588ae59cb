"""The batched candidate blocks (cuegym.agents.residual.candidate_batch) and mover's frame
(golf_frame_states) are the per-state definitions, table by table."""
from __future__ import annotations

import numpy as np
import pytest
from game_positions import geometric_games

from cuegym.agents import make_arena
from cuegym.agents.geometric_golf import golf_candidates
from cuegym.agents.geometric_kegle import kegle_candidates
from cuegym.agents.residual import (
    KINDS,
    N_FEAT,
    ResidualSpec,
    block_rows,
    candidate_batch,
    golf_frame_state,
    golf_frame_states,
)


def _positions(arena):
    """Live positions met in geometric games (tournament noise), as one batch."""
    _, seen = geometric_games(arena, 24, 10, 5)
    return type(seen[0]).concat(seen)


def _reference_block(arena, state, spec):
    """One state's block as the per-state code defined it: the aimer's Candidates sorted by
    cost (stable), padded with the cheapest, one-hot kinds parsed from the labels."""
    if spec.game == "keglebillard":
        c = kegle_candidates(arena, state, spins=(spec.spin0,))
    else:
        c = golf_candidates(arena, state, spins=(0.0,))
    M, half = spec.n_cand, np.array([arena.table.length / 2, arena.table.width / 2])
    order = np.argsort(c.cost, kind="stable")[:M]
    idx = np.concatenate([order, np.full(M - len(order), order[0], np.int64)])
    st = c.strikes.take(idx)
    f = np.zeros((M, N_FEAT))
    f[:len(order), 0] = 1.0
    f[:, 1] = np.clip(c.cost[idx] / 10.0, 0.0, 5.0)
    for k, i in enumerate(idx):
        parts = c.kind[i].split(":")
        kind = parts[1] if spec.game == "keglebillard" and len(parts) > 1 else parts[-1]
        kind = "pin" if kind.startswith("pin") else kind
        kinds = KINDS[spec.game]
        f[k, 2 + (kinds.index(kind) if kind in kinds else len(kinds) - 1)] = 1.0
    phi = np.radians(st.cue[:, 1])
    f[:, 7], f[:, 8], f[:, 9], f[:, 10] = np.cos(phi), np.sin(phi), st.cue[:, 0] / 6, st.cue[:, 4]
    f[:, 11:13] = np.nan_to_num(st.place / half)
    f[:, 13:13 + c.feats.shape[1]] = c.feats[idx]
    return st, f


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
@pytest.mark.parametrize("n_cand", [1, 6, 40])
def test_candidate_batch_is_the_per_state_block(game, n_cand):
    arena = make_arena(game)
    batch = _positions(arena)
    if game == "golfbillard":
        batch = golf_frame_states(batch)
    spec = ResidualSpec(game=game, n_cand=n_cand)
    strikes, feats = candidate_batch(arena, batch, spec)
    assert feats.shape == (len(batch), n_cand, N_FEAT) and len(strikes) == len(batch) * n_cand
    padded = 0
    for t, state in enumerate(batch):
        st, f = _reference_block(arena, state, spec)
        rows = block_rows(np.array([t]), n_cand)
        np.testing.assert_array_equal(strikes.cue[rows], st.cue)
        np.testing.assert_array_equal(strikes.cue_ball[rows], st.cue_ball)
        np.testing.assert_array_equal(strikes.place[rows], st.place)
        np.testing.assert_array_equal(feats[t], f)
        padded += int((f[:, 0] == 0).sum())
    assert padded > 0 or n_cand < 40  # 40 candidates pad every block: padding exercised


def test_golf_frame_states_is_the_per_state_frame():
    arena = make_arena("golfbillard")
    batch = _positions(arena)
    assert {0, 1} <= set(batch.to_move.tolist())
    turned = golf_frame_states(batch)
    for t, state in enumerate(batch):
        one = golf_frame_state(state)
        got = turned[t]
        np.testing.assert_array_equal(got.xy, one.xy)
        np.testing.assert_array_equal(got.duty, one.duty)
        np.testing.assert_array_equal(got.on_spot, one.on_spot)
        assert got.to_move == one.to_move == 0
    np.testing.assert_array_equal(batch.xy, _positions(arena).xy)  # the input is unchanged


def test_candidate_batch_of_no_states():
    arena = make_arena("keglebillard")
    strikes, feats = candidate_batch(arena, [], ResidualSpec(n_cand=3))
    assert len(strikes) == 0 and feats.shape == (0, 3, N_FEAT)
