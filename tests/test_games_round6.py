"""The batched game layer, sixth outside audit: each test failed on the code before its fix."""
import dataclasses

import numpy as np
import pytest

from cuegym.games.golf import Golf
from cuegym.games.kegle import Kegle
from cuegym.games.strikes import Strikes


def _kegle_shot(T):
    return Strikes.of([[2.0, 0.0, 0.0, 0.0, 0.0]] * T, place=[[-0.7, 0.1]] * T)


def test_kegle_outcome_of_a_table_that_did_not_shoot_is_none_like_golf():
    G = Kegle()
    out, _ = G.play(G.new(2, 2), _kegle_shot(2), active=np.array([True, False]))
    assert out.outcome(1) is None            # GolfOutcomes.outcome: None where it did not strike
    assert out.outcomes()[1] is None and out.outcomes()[0].played


def test_kegle_outcome_does_not_share_the_next_states_order():
    G = Kegle()
    out, new = G.play(G.new(1, 3), Strikes.of([[2.0, 180.0, 0, 0, 0]], place=[[-0.7, 0.1]]),
                      allow_overflow=True)
    before = out.outcome(0).to_dict()
    reset = G.new(1, 3)
    reset.order[:] = [2, 1, 0]
    reset.to_play[:] = 2
    new.put([0], reset)                     # a vector env resetting the finished table
    assert out.outcome(0).to_dict() == before
    assert not np.shares_memory(out.order, new.order)


def test_kegle_put_refuses_states_of_another_table():
    klein = Kegle().new(2, 2)
    helm = Kegle(table="keglebillard-helmatch").new(2, 2)
    with pytest.raises(ValueError, match="table"):
        klein.put([0, 1], helm)


@pytest.mark.parametrize("game", ["kegle", "golf"])
def test_put_refuses_the_other_games_states_with_a_value_error(game):
    k, g = Kegle().new(2, 2), Golf().new(2)
    dst, src = (k, g) if game == "kegle" else (g, k)
    with pytest.raises(ValueError):
        dst.put([0, 1], src)


@pytest.mark.parametrize("game", ["kegle", "golf"])
def test_a_refused_put_changes_nothing(game):
    states = Kegle().new(4, 2) if game == "kegle" else Golf().new(4)
    before = states.copy()
    other = states.take([0, 1])
    other.xy[:] = 0.1
    other.shot = np.zeros(3, np.int64) if game == "kegle" else None
    if game == "golf":
        other.seed = np.zeros(3, np.int64)
    with pytest.raises(ValueError):
        states.put([0, 1], other)
    for f in dataclasses.fields(states):
        if f.name != "table":
            assert np.array_equal(getattr(states, f.name), getattr(before, f.name),
                                  equal_nan=True), f.name


def test_kegle_events_injected_into_a_table_that_does_not_shoot_are_refused():
    G = Kegle(rules={"unsporting_loss": True})
    with pytest.raises(ValueError, match=r"injected\[1\]"):
        G.play(G.new(2, 2), _kegle_shot(2), active=np.array([True, False]),
               injected=[None, [{"type": "touche", "unsporting": True}]])


def test_kegle_bad_injected_event_names_its_table_and_draws_nothing():
    G = Kegle()
    rng = np.random.default_rng(0)
    state0 = rng.bit_generator.state
    with pytest.raises(ValueError, match=r"injected\[2\]\[0\]"):
        G.play(G.new(3, 2), _kegle_shot(3), "tournament", rng,
               injected=[None, None, [{"type": "nonsense"}]])
    assert rng.bit_generator.state == state0


@pytest.mark.parametrize("kw", [{"max_events": 0}, {"t_max": -1.0}, {"threads": 0}])
def test_kegle_bad_physics_setting_draws_nothing(kw):
    G = Kegle()
    rng = np.random.default_rng(0)
    state0 = rng.bit_generator.state
    with pytest.raises(ValueError):
        G.play(G.new(2, 2), _kegle_shot(2), "tournament", rng, **kw)
    assert rng.bit_generator.state == state0


def test_golf_play_on_an_empty_batch():
    G = Golf()
    out, new = G.play(G.new(0), Strikes.empty(0))   # Kegle.play(new(0, 2), ...) works
    assert len(out) == 0 and len(new) == 0


@pytest.mark.parametrize("idx", [1.7, "1", np.float64(1.2)])
def test_golf_states_index_must_be_an_integer(idx):
    s = Golf().new(3)
    with pytest.raises(TypeError):
        s[idx]                                       # KegleStates refuses these


def test_strikes_of_refuses_a_non_integer_cue_ball():
    with pytest.raises(ValueError, match="cue_ball"):
        Strikes.of([[1.0, 0, 0, 0, 0]] * 2, cue_ball=[1.7, 6.2])   # Strikes(...) refuses them


def test_kegle_refused_play_draws_nothing_and_a_good_retry_plays():
    G = Kegle()
    states = G.new(2, 2)
    rng = np.random.default_rng(5)
    with pytest.raises(ValueError, match="workspace"):
        G.play(states, _kegle_shot(2), "tournament", rng, workspace="ws")
    out, _ = G.play(states, _kegle_shot(2), "tournament", rng)
    ref, _ = G.play(states, _kegle_shot(2), "tournament", np.random.default_rng(5))
    assert np.array_equal(out.strike, ref.strike)
