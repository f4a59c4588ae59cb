"""The keglebillard game layer's API (cuegym.games.kegle): batches, play, rewards, observations."""

from __future__ import annotations

import numpy as np
import pytest

from cuegym.configs import load_params
from cuegym.envs.config import load_reward
from cuegym.games.kegle import Kegle
from cuegym.games.kegle_obs import OBS_INDEX
from cuegym.games.kegle_state import HAND_CLOTH, HAND_NONE, HAND_SALVO, from_game_states
from cuegym.games.noise import load_noise
from cuegym.games.strikes import Strikes

BREAK = [3.0, 2.0, 0.0, 0.0, 0.0]  # from behind the salvo line towards the white


@pytest.fixture(scope="module")
def G():
    return Kegle()


def test_new_states_are_breaks_and_convert_both_ways(G):
    s = G.new(4, 3, first_player=[0, 1, 2, 0])
    assert len(s) == 4 and s.n_players == 3 and (s.hand == HAND_SALVO).all()
    assert np.isnan(s.xy[:, 0]).all() and s.pins.all() and (s.shot == 0).all()
    assert s.to_play.tolist() == [0, 1, 2, 0]
    values = list(s)
    assert values[1] == G.new_state(3, first_player=1)
    back = from_game_states(values)
    for name in ("xy", "pins", "hand", "order", "scores", "to_play", "finished", "lost"):
        assert np.array_equal(getattr(back, name), getattr(s, name), equal_nan=True), name
    with pytest.raises(ValueError, match="at least 2 players"):
        G.new(2, 1)
    with pytest.raises(ValueError, match="first_player"):
        G.new(2, 2, first_player=2)
    with pytest.raises(ValueError, match="players"):
        from_game_states([G.new_state(2), G.new_state(3)])


def test_state_copies_are_array_copies(G):
    s = G.new(3, 2)
    c = s.copy()
    c.scores[0, 0] = 9
    assert s.scores[0, 0] == 0
    sub = s.take([2, 0])
    sub.scores[:] = 5
    s.put([1], sub.take([0]))
    assert s.scores[:, 0].tolist() == [0, 5, 0]


def test_play_batch_equals_one_table_at_a_time(G):
    """A table's result does not depend on the batch (the other tables, their generators)."""
    s = G.new(6, 2)
    st = Strikes.of(np.tile(BREAK, (6, 1)), place=np.tile([-0.8, 0.1], (6, 1)))
    st.cue[:, 1] = np.linspace(-10, 10, 6)
    st.place[3] = (-0.525, 0.0)  # on the white: K-19, no shot
    noise = load_noise("tournament")
    out, new = G.play(s, st, noise, [np.random.default_rng(k) for k in range(6)])
    assert not out.played[3] and out.fouls[3, -3] and out.skaeve[3] == 6
    assert out.played.sum() == 5 and (out.row[out.played] >= 0).all()
    for t in range(6):
        o1, n1 = G.play(s.take([t]), st.take([t]), noise, [np.random.default_rng(t)])
        assert o1.outcome(0) == out.outcome(t) and n1.state(0) == new.state(t)


def test_play_inactive_tables_keep_their_state_and_draw_nothing(G):
    s = G.new(3, 2)
    st = Strikes.of(np.tile(BREAK, (3, 1)), place=np.tile([-0.8, 0.1], (3, 1)))
    rngs = [np.random.default_rng(k) for k in range(3)]
    out, new = G.play(s, st, load_noise("tournament"), rngs, active=[True, False, True])
    assert out.shooter.tolist()[1] == -1 and new.state(1) == s.state(1)
    assert rngs[1].bit_generator.state == np.random.default_rng(1).bit_generator.state
    assert np.isnan(out.strike[1]).all()


def test_play_refuses_bad_input(G):
    s = G.new(2, 2)
    ok = Strikes.of(np.tile(BREAK, (2, 1)), place=np.tile([-0.8, 0.1], (2, 1)))
    with pytest.raises(ValueError, match="3 strikes for 2 tables"):
        G.play(s, Strikes.of(np.tile(BREAK, (3, 1))))
    with pytest.raises(ValueError, match="strikes the red"):
        G.play(s, Strikes.of(np.tile(BREAK, (2, 1)), cue_ball=1))
    with pytest.raises(ValueError, match="V0"):
        G.play(s, Strikes.of(np.tile([30.0, 0, 0, 0, 0], (2, 1))))
    with pytest.raises(ValueError, match="needs rng"):
        G.play(s, ok, load_noise("tournament"))
    over = s.copy()
    over.game_over[1] = True
    with pytest.raises(ValueError, match="table 1: the game is over"):
        G.play(over, ok)


def test_reward_terms_from_each_point_of_view(G):
    s = G.new(1, 3)
    out, _ = G.play(s, Strikes.of([[3.0, 180.0, 0.0, 0.0, 0.0]], place=[[-0.8, 0.1]]))
    assert out.foul[0] and out.skaeve[0] > 0  # away from the whites: K-11
    w = load_reward("keglebillard")
    terms, r = G.reward_terms(out, w)
    assert terms["skaeve"][0] == out.skaeve[0] and terms["foul"][0] == 1
    assert r[0] == pytest.approx(w.skaeve * out.skaeve[0])
    other, _ = G.reward_terms(out, w, viewer=np.array([1]))
    assert other["skaeve_received"][0] == out.skaeve[0] and other["skaeve"][0] == 0
    me, _ = G.reward_terms(out, w, viewer=np.array([0]))
    assert me["skaeve"][0] == out.skaeve[0] and me["skaeve_received"][0] == 0


def test_result_ranks_finished_and_lost_players(G):
    s = G.new(1, 3)
    s.finished[0, :2] = [2, 0]
    s.n_finished[0] = 2
    s.lost[0, 0] = 1
    s.n_lost[0] = 1
    s.game_over[0] = True
    assert G.result(s, [2]).tolist() == [1.0] and G.result(s, [0]).tolist() == [0.0]
    assert G.result(s, [1]).tolist() == [-1.0]


def test_observe_from_each_seat(G):
    s = G.new(2, 3)
    s.scores[:] = [7, 14, 35]
    o = G.observe(s, [0, 2])
    assert o[0, OBS_INDEX["to_move"]] == 1 and o[1, OBS_INDEX["to_move"]] == 0
    assert o[0, OBS_INDEX["own_score"]] == pytest.approx(0.1)
    assert o[1, OBS_INDEX["seat1_score"]] == pytest.approx(0.1)  # after player 2 comes 0
    assert o[0, OBS_INDEX["seat3_in_game"]] == 0 and o[0, OBS_INDEX["break"]] == 1
    shot = G.observe(s, shot_env=True)
    assert shot[0, OBS_INDEX["own_score"]] == 0 and shot[0, OBS_INDEX["seat1_in_game"]] == 1


def test_legal_placement_is_the_K19_check(G):
    s = G.new(5, 2)
    R = load_params("keglebillard").R
    place = np.array([[-0.8, 0.1], [-0.525, 0.0], [-0.525 + 2 * R, 0.0], [0.0, 0.0],
                      [np.nan, np.nan]])
    assert G.legal_placement(s, place).tolist() == [True, False, True, False, False]
    s.hand[:] = HAND_NONE  # nothing to place
    assert G.legal_placement(s, place).all()
    s.hand[:] = HAND_CLOTH
    assert "king spot" in G.placement_error(G.new_state(2), (0.0, 0.0))

