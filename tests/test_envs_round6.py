"""RL conventions, sixth outside audit: each test failed on the code before its fix."""
import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401  (registers the ids)


def test_keglebillard_reset_plays_the_opponents_until_the_learner_is_to_play():
    """docs/envs.md 'Full-game envs': at reset 'opponents shoot until the learner is to play'.
    With a small settings max_opponent_shots the keglebillard core's reset stops its opponents
    at the cap (envs/kegle.py KegleGameCore.reset ignores _play_opponents' cut), so the first
    step raises 'the last step stopped midway'. golfbillard's reset keeps playing ('a reset is
    no step', envs/golf.py GolfGameCore.reset)."""
    env = gym.make("cuegym/Keglebillard-v0", num_players=3, seat=2,
                   settings={"max_opponent_shots": 1})
    obs, _ = env.reset(seed=0)
    assert obs[17] == 1.0  # to_move: the learner's turn
    env.step(np.zeros(7, np.float32))  # raises RuntimeError on the current code

    venv = gym.make_vec("cuegym/Keglebillard-v0", num_envs=2,
                        vectorization_mode="vector_entry_point", num_players=3, seat=2,
                        settings={"max_opponent_shots": 1})
    venv.reset(seed=0)
    for _ in range(5):  # same-step autoresets must leave the tables playable too
        venv.step(np.zeros((2, 7), np.float32))


@pytest.mark.parametrize("make", [
    lambda: gym.make("cuegym/Keglebillard-v0", num_players=7),
    lambda: gym.make_vec("cuegym/Keglebillard-v0", 2, vectorization_mode="vector_entry_point",
                         num_players=7),
])
def test_keglebillard_seven_players_are_played_or_refused_when_made(make):
    """The card (envs/keglebillard.py:173) says the observation 'describes up to six players:
    with more, the seats after the fifth next are not shown'; check_num_players takes up to
    MAX_PLAYERS (1000), but games/kegle.py Kegle.observe refuses more than 6 players, so the
    env is made and every reset() raises. Either refuse num_players > 6 when the env is made
    (naming num_players) or play such games."""
    try:
        env = make()
    except ValueError as e:
        assert "num_players" in str(e)
        return
    env.reset(seed=0)
    env.step(env.action_space.sample())


def test_keglebillard_aec_seven_players_are_played_or_refused_when_made():
    from cuegym.envs import keglebillard_v0

    try:
        env = keglebillard_v0.env(num_players=7)
    except ValueError as e:
        assert "num_players" in str(e)
        return
    env.reset(seed=0)
    env.last()  # raises 'the observation shows 5 other seats' on the current code


@pytest.mark.parametrize("env_id", ["cuegym/KeglebillardShot-v0", "cuegym/GolfbillardShot-v0"])
@pytest.mark.parametrize("key, value", [("max_steps", 3), ("max_opponent_shots", 1)])
def test_shot_envs_refuse_the_full_game_settings_they_ignore(env_id, key, value):
    """The full-game cores refuse the Shot-only settings key 'positions' ('it would be ignored
    without a word', envs/base.py Core._configure / GAME_UNUSED_SETTINGS); the Shot cores take
    the full-game-only keys max_steps and max_opponent_shots and ignore them."""
    with pytest.raises(ValueError, match=key):
        gym.make(env_id, settings={key: value})


def test_seven_player_observation_shows_the_five_next_seats():
    """The env's observation shows the five seats after the learner's (its card); the game
    layer's observe still refuses such a game unless asked for that view."""
    from cuegym.games.kegle import Kegle

    env = gym.make("cuegym/Keglebillard-v0", num_players=7)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    g = Kegle()
    st = g.new(1, 7)
    with pytest.raises(ValueError, match="next_seats_only"):
        g.observe(st)
    assert g.observe(st, next_seats_only=True).shape == (1, obs.shape[0])


def test_shot_env_terminal_obs_shows_a_red_placed_from_hand_and_pocketed_off_the_table():
    """KeglebillardShot-v0's terminal observation shows the balls as the shot left them: a red
    placed from hand and then pocketed read as on the table (red_on_table 1, in the pocket),
    unlike a pocketed red that started on the table (0, 0, 0)."""
    from cuegym.envs.kegle import OBS_INDEX as I

    envs = gym.make_vec("cuegym/KeglebillardShot-v0", num_envs=512,
                        vectorization_mode="vector_entry_point")
    core = envs.unwrapped.core
    envs.reset(seed=0)
    rng = np.random.default_rng(1)
    seen = 0
    for _ in range(6):
        hand0 = core.hand.copy()
        _, _, _, _, info = envs.step(rng.uniform(-1, 1, (512, 7)).astype(np.float32))
        fo = np.stack(info["final_obs"])
        fi = info["final_info"]
        sel = (hand0 != 0) & fi["played"] & fi["pocketed"][:, 0]
        seen += int(sel.sum())
        red = fo[sel][:, [I["red_x"], I["red_y"], I["red_on_table"]]]
        assert (red == 0).all(), red
    envs.close()
    assert seen > 0
