"""Settings the envs would keep without using them are refused (an outside audit of the
Gymnasium / SB3 conventions): the env's state set through gymnasium's attribute routes, a
per-table list of the wrong length, SB3 indices that do not name every table, and the rule
options of a game's flow given to a Shot env."""

from __future__ import annotations

import gymnasium as gym
import pytest

import cuegym  # noqa: F401 (registers the envs)
from cuegym.envs import make_sb3_vec_env


@pytest.mark.parametrize("name,value", [("seat", 1), ("settings", {"max_steps": 5}),
                                        ("num_players", 3)])
def test_single_env_refuses_setting_its_state_as_the_native_set_attr_does(name, value):
    """gymnasium's set_wrapper_attr kept such a value on the outermost wrapper, which the env
    never read, and get_wrapper_attr then reported it."""
    native = gym.make_vec("cuegym/Keglebillard-v0", 2, vectorization_mode="vector_entry_point")
    with pytest.raises(ValueError, match="state or structure"):
        native.set_attr(name, value)
    env = gym.make("cuegym/Keglebillard-v0")
    with pytest.raises(ValueError, match=f"{name!r} is the env's state or structure"):
        env.set_wrapper_attr(name, value)
    assert "seat" not in env.__dict__ and env.get_wrapper_attr("seat_choice") == "random"


def test_sync_vector_set_attr_of_the_seat_is_refused_and_the_setting_works():
    envs = gym.make_vec("cuegym/Keglebillard-v0", 2, vectorization_mode="sync")
    with pytest.raises(ValueError, match="'seat_choice'"):
        envs.set_attr("seat", 1)
    envs.set_attr("seat_choice", 1)
    assert envs.get_attr("seat_choice") == (1, 1)
    envs.close()


def test_single_env_own_attributes_are_still_set_on_it():
    env = gym.make("cuegym/KeglebillardShot-v0")
    space = env.unwrapped.observation_space
    env.unwrapped.observation_space = space  # gymnasium's own attribute, not the core's
    env.unwrapped.extra = 1  # a user's own attribute the core does not have
    env.unwrapped.observe = print  # a name of a core method: not the core's state
    assert env.unwrapped.extra == 1 and env.unwrapped.observe is print
    with pytest.raises(AttributeError):
        getattr(env.unwrapped, "INFO_KEYS")  # noqa: B009 (the core's class constants do not read as the env's


@pytest.mark.parametrize("values", [[True], (True, True), [True] * 4])
def test_native_set_attr_refuses_a_per_table_list_of_the_wrong_length(values):
    v = gym.make_vec("cuegym/KeglebillardShot-v0", 3, vectorization_mode="vector_entry_point")
    with pytest.raises(ValueError, match="give one value"):
        v.set_attr("clip", values)
    assert v.get_attr("clip") == (False, False, False)
    v.set_attr("clip", [True] * 3)
    assert v.get_attr("clip") == (True, True, True)


@pytest.mark.parametrize("indices,error", [([0, 0, 0], ValueError), ([0, 1, 7], IndexError),
                                           ([-4, 0, 1], IndexError), ([-1, 2], ValueError)])
def test_sb3_set_attr_refuses_indices_that_are_not_every_table(indices, error):
    venv = make_sb3_vec_env("cuegym/KeglebillardShot-v0", 3)
    with pytest.raises(error, match=r"set_attr indices"):
        venv.set_attr("clip", True, indices=indices)
    assert venv.get_attr("clip") == [False, False, False]
    venv.set_attr("clip", True, indices=[2, 0, 1])
    assert venv.get_attr("clip") == [True, True, True]
    venv.set_attr("clip", False, indices=[-1, -2, -3])  # from the end, as DummyVecEnv takes them
    assert venv.get_attr("clip") == [False, False, False]
    venv.close()


@pytest.mark.parametrize("eid,rules", [
    ("cuegym/KeglebillardShot-v0", {"first_player": "random"}),
    ("cuegym/KeglebillardShot-v0", {"distance": 5}),
    ("cuegym/KeglebillardShot-v0", {"skaeve_to": "next"}),
    ("cuegym/GolfbillardShot-v0", {"duo": True}),
    ("cuegym/GolfbillardShot-v0", {"opening": "alternate"}),
    ("cuegym/GolfbillardShot-v0", {"deciding_openers": [1, 1]}),
])
def test_shot_envs_refuse_the_rule_options_of_a_games_flow(eid, rules):
    with pytest.raises(ValueError, match=f"rules option {next(iter(rules))} = .* is not used"):
        gym.make(eid, rules=rules)


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_shot_envs_take_a_copy_of_the_shipped_rules_file(game, tmp_path):
    """The flow options at their shipped values change nothing and are taken: a copy of the
    shipped file, as a mapping or (keglebillard) as a path."""
    import yaml

    from cuegym.configs import CONFIG_DIR

    shipped = yaml.safe_load((CONFIG_DIR / "rules" / f"{game}.yaml").read_text())
    eid = "cuegym/KeglebillardShot-v0" if game == "keglebillard" else "cuegym/GolfbillardShot-v0"
    gym.make(eid, rules=shipped).close()
    if game == "keglebillard":
        f = tmp_path / "rules.yaml"
        f.write_text(yaml.safe_dump({**shipped, "distance": 30}))
        with pytest.raises(ValueError, match="rules option distance = 30 is not used"):
            gym.make(eid, rules=str(f))


@pytest.mark.parametrize("eid,rules", [
    ("cuegym/KeglebillardShot-v0", {"variant": "ddbu", "cushion_before_pins": True}),
    ("cuegym/GolfbillardShot-v0", {"match": "best_of_3", "no_progress_window": 2}),
])
def test_shot_envs_take_the_rule_options_a_shot_is_scored_by(eid, rules):
    env = gym.make(eid, rules=rules)
    env.reset(seed=0)
    env.step(env.action_space.sample())
    env.close()
