"""Arguments refused at the public entry points rather than read loosely: a flag's truth value,
a transposed placement, a reward weight or a setting the env never uses."""

import importlib

import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401  (registers the env ids)
from cuegym.configs import load_params, load_table
from cuegym.envs.wrappers import RewardWeights, VectorRewardWeights
from cuegym.games.strikes import Strikes
from cuegym.physics import simulate

KEGLE_XY = np.array([[[-0.8, 0.1], [-0.525, 0.0], [0.525, 0.0]]])


@pytest.mark.parametrize("value", ["no", "false", None, 0.5, 1])
def test_simulate_validate_must_be_a_bool(value):
    # "no" ran the layout check and None skipped it: any object's truth value was taken
    with pytest.raises(ValueError, match="validate"):
        simulate(load_table("keglebillard"), load_params("keglebillard"), KEGLE_XY,
                 cue_ball=[0], cue=[[3.0, 0.0, 0.0, 0.0, 0.0]], validate=value)


def test_simulate_validate_takes_numpy_bools():
    for flag in (np.bool_(True), np.bool_(False)):
        res = simulate(load_table("keglebillard"), load_params("keglebillard"), KEGLE_XY,
                       cue_ball=[0], cue=[[1.0, 0.0, 0.0, 0.0, 0.0]], validate=flag)
        assert res.n_events[0] > 0


def test_strikes_refuses_a_transposed_place():
    # (2, T) has the size of (T, 2): it was reshaped into scrambled places
    with pytest.raises(ValueError, match=r"place must have shape \(3, 2\)"):
        Strikes.of([[3.0, 5.0, 0.0, 0.0, 0.0]] * 3, place=np.zeros((2, 3)))
    one = Strikes.of([3.0, 5.0, 0.0, 0.0, 0.0], place=[0.1, 0.2])  # one strike: (2,) is fine
    assert one.place.tolist() == [[0.1, 0.2]]


@pytest.mark.parametrize("eid,term", [("cuegym/KeglebillardShot-v0", "opponent_points"),
                                      ("cuegym/GolfbillardShot-v0", "result")])
def test_reward_wrappers_refuse_terms_the_shot_env_never_computes(eid, term):
    # the env's reward= refuses them; the wrappers took them and never used them
    with pytest.raises(ValueError, match=term):
        RewardWeights(gym.make(eid), {term: 5.0})
    venv = gym.make_vec(eid, 2, vectorization_mode="vector_entry_point")
    with pytest.raises(ValueError, match=term):
        VectorRewardWeights(venv, {term: 5.0})
    venv.close()
    full = eid.replace("Shot", "")
    RewardWeights(gym.make(full), {term: 5.0})  # the full-game env computes it


@pytest.mark.parametrize("mod", ["keglebillard_v0", "golfbillard_v0"])
@pytest.mark.parametrize("settings", [{"positions": "no_such_bank"}, {"max_opponent_shots": 5}])
def test_aec_refuses_settings_it_does_not_use(mod, settings):
    m = importlib.import_module(f"cuegym.envs.{mod}")
    with pytest.raises(ValueError, match=next(iter(settings))):
        m.env(settings=settings)


@pytest.mark.parametrize("mod", ["keglebillard_v0", "golfbillard_v0"])
def test_aec_max_steps_sets_max_shots_unless_max_shots_is_given(mod):
    m = importlib.import_module(f"cuegym.envs.{mod}")
    assert m.raw_env(settings={"max_steps": 7}).max_shots % 7 == 0
    assert m.raw_env(max_shots=9).max_shots == 9
    with pytest.raises(ValueError, match="max_steps"):
        m.env(settings={"max_steps": 7}, max_shots=9)


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_the_game_layer_refuses_a_validate_flag_before_it_draws_the_noise(game):
    # simulate refuses validate="no", but only after play had drawn the strikes' noise
    from cuegym.games.golf import Golf
    from cuegym.games.kegle import Kegle

    g = Kegle() if game == "keglebillard" else Golf()
    states = g.new(2, 2) if game == "keglebillard" else g.new(2)
    strikes = Strikes.of([[2.0, 10.0, 0.0, 0.0, 0.0]] * 2,
                         place=[[-0.8, 0.1]] * 2 if game == "keglebillard" else None)
    kw = {} if game == "keglebillard" else {"strikes1": Strikes.of(
        [[2.0, 170.0, 0.0, 0.0, 0.0]] * 2, cue_ball=list(g.opening_balls(states)[:, 1]))}
    if game == "golfbillard":
        strikes.cue_ball[:] = g.opening_balls(states)[:, 0]
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match="validate"):
        g.play(states, strikes, "tournament", rng, validate="no", **kw)
    assert rng.bit_generator.state == before
    g.play(states, strikes, "tournament", rng, validate=True, **kw)  # a bool plays
