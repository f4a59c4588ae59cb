"""Reward and observation conventions, sixth outside audit (docs/envs.md, Rewards and
Observations): the Shot envs refuse weights of terms they never compute, and golfbillard_v0's
``to_move`` follows the rules after a truncation. Each test failed on the code before its fix."""
import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401
from cuegym.envs import golfbillard_v0
from cuegym.games.golf_obs import OBS_INDEX


@pytest.mark.parametrize("eid, term", [
    ("cuegym/KeglebillardShot-v0", "skaeve_received"),
    ("cuegym/KeglebillardShot-v0", "opponent_points"),
    ("cuegym/KeglebillardShot-v0", "result"),
    ("cuegym/GolfbillardShot-v0", "opponent_scored"),
])
def test_shot_env_refuses_a_full_game_only_weight(eid, term):
    with pytest.raises(ValueError, match=term):
        gym.make(eid, reward={term: -1.0})


def test_shot_env_keeps_the_shipped_full_game_weights_and_checks_set_attr():
    env = gym.make("cuegym/KeglebillardShot-v0", reward={"result": 1.0, "points": 0.1})
    assert env.unwrapped.core.reward.points == 0.1
    venv = gym.make_vec("cuegym/GolfbillardShot-v0", 2, vectorization_mode="vector_entry_point")
    with pytest.raises(ValueError, match="opponent_scored"):
        venv.set_attr("reward", {"opponent_scored": -1.0})
    full = gym.make("cuegym/Keglebillard-v0", reward={"skaeve_received": 1.0})
    assert full.unwrapped.core.reward.skaeve_received == 1.0


@pytest.mark.parametrize("duo", [False, True])
def test_golf_aec_to_move_follows_the_rules_in_the_dead_steps_of_a_truncation(duo):
    env = golfbillard_v0.env(duo=duo, max_shots=3)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    seen = []
    for agent in env.agent_iter(max_iter=100):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            st = env.unwrapped.game_state
            side = int(agent[5])
            due = side == st.to_move and (not duo or int(agent[-1]) == st.partner[st.to_move])
            seen.append((agent, obs[OBS_INDEX["to_move"]], due))
            env.step(None)
        else:
            env.step(rng.uniform(-1, 1, 7))
    assert seen and sum(tm for _, tm, _ in seen) <= 1, seen
    for agent, tm, due in seen:
        assert tm == float(due), (agent, tm, due)
