"""Agents off the default setting: the helmatch table, non-default rule options, three
players, broken option strings and model files (each refused up front with a message naming
the bad value, or played on the setting asked for, never silently on the default one)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from cuegym.agents import (
    GuidedPlannerAgent,
    load_noise,
    make_agent,
    make_arena,
    play_games,
    pretrained_path,
)

HELMATCH = "keglebillard-helmatch"


@pytest.fixture(scope="module")
def helmatch():
    return make_arena("keglebillard", table=HELMATCH)


# -- an agent made for one setting, played on another -------------------------------------------


@pytest.mark.parametrize("spec", ["geometric", "expert", "planner:n_candidates=4,n_noise=2"])
def test_agent_of_the_default_table_is_refused_on_helmatch(helmatch, spec):
    """An agent made without ``arena=`` aims and searches on the kleinmatch table; played on a
    helmatch arena it once played on silently (geometric: 2.7 points a shot instead of 3.9,
    fouls 0.33 instead of 0.17)."""
    agent = make_agent(spec, "keglebillard")
    with pytest.raises(ValueError, match=r"'keglebillard'.*'keglebillard-helmatch'.*arena=arena"):
        play_games(helmatch, [agent, make_agent("random", "keglebillard", arena=helmatch)], 1)


def test_agent_of_other_rules_is_refused_naming_the_option():
    arena = make_arena("keglebillard", {"distance": 50})
    agent = make_agent("geometric", "keglebillard")
    with pytest.raises(ValueError, match=r"distance: 70 vs 50"):
        play_games(arena, [agent, make_agent("random", "keglebillard", arena=arena)], 1)
    golf = make_arena("golfbillard", {"duo": True})
    with pytest.raises(ValueError, match=r"duo: False vs True"):
        play_games(golf, [make_agent("geometric", "golfbillard"),
                          make_agent("random", "golfbillard", arena=golf)], 1)


def test_agent_of_an_equal_setting_plays():
    """Another arena object of the same table and rules (the default ones) is no mismatch."""
    arena = make_arena("keglebillard")
    res = play_games(arena, [make_agent("geometric", "keglebillard"),
                             make_agent("random", "keglebillard")], 1, max_shots=4)
    assert res.n_shots.tolist() == [4]


@pytest.mark.skipif(pretrained_path("keglebillard") is None, reason="no shipped model")
def test_trained_model_plays_in_the_arena_it_is_given(helmatch):
    """The DQN observed and aimed on its own default arena whatever it was given: on helmatch
    its candidates aimed at the kleinmatch pockets (2.0 points a shot against random over 4
    games at seed 1, against 4.2 with the helmatch candidates; 4.7 on kleinmatch)."""
    dqn = make_agent("pretrained:aim=none", "keglebillard", arena=helmatch)
    assert dqn.arena is helmatch
    full = make_agent("pretrained", "keglebillard", arena=helmatch)
    assert full.base.base.arena is helmatch  # aim(leave(DQN))
    guided = GuidedPlannerAgent("keglebillard", arena=helmatch, n_candidates=8, n_noise=2,
                                n_top=1, n_next=1)
    assert guided.policy.arena is helmatch
    res = play_games(helmatch, [dqn, make_agent("random", "keglebillard", arena=helmatch)], 2,
                     seed=1, max_shots=200)
    assert res.stats(0)["points_per_shot"] > 3.0 > res.stats(1)["points_per_shot"]


@pytest.mark.skipif(pretrained_path("keglebillard") is None, reason="no shipped model")
def test_model_of_another_game_than_the_arena_is_refused(helmatch):
    from cuegym.agents.sb3_agent import SB3Agent

    with pytest.raises(ValueError, match="plays keglebillard, the arena golfbillard"):
        SB3Agent(pretrained_path("keglebillard"), arena=make_arena("golfbillard"))


# -- settings the arenas do not play --------------------------------------------------------------


@pytest.mark.parametrize("who", ["random", "lag"])
def test_first_player_other_than_player0_is_refused(who):
    """The arena's games are broken by player 0 whatever ``first_player`` said (silently)."""
    with pytest.raises(ValueError, match=f"first_player='{who}'.*player0"):
        make_arena("keglebillard", {"first_player": who})


def test_golfbillard_table_option():
    assert make_arena("golfbillard", table="golfbillard").game == "golfbillard"
    with pytest.raises(ValueError, match="table 'keglebillard-helmatch': golfbillard"):
        make_arena("golfbillard", table=HELMATCH)


# -- reproducibility off the default setting ------------------------------------------------------


@pytest.mark.parametrize("game, rules, kw", [
    ("keglebillard", {"variant": "ddbu", "ball_in_hand_area": "salvo"}, {"table": HELMATCH}),
    ("golfbillard", {"match": "best_of_3", "duo": True}, {}),
])
def test_same_seed_same_games_other_seed_other_games(game, rules, kw):
    arena = make_arena(game, rules, **kw)
    agents = [make_agent("geometric", game, arena=arena), make_agent("random", game, arena=arena)]

    def shots(seed):
        res = play_games(arena, agents, 2, seed=seed, max_shots=20)
        return [(r.game, r.shooter, r.points, r.foul) for r in res.shots], res.n_shots.tolist()

    assert shots(5) == shots(5)
    assert shots(5) != shots(6)


def test_agents_act_legally_for_three_players_skaeve_to_next():
    arena = make_arena("keglebillard", {"skaeve_to": "next"}, n_players=3)
    rng = np.random.default_rng(0)
    for spec in ("random", "geometric", "expert"):
        agent = make_agent(spec, "keglebillard", arena=arena)
        states = arena.new_states(3)
        recs, _ = arena.step(states, load_noise("tournament").apply(agent.act(states, rng), rng))
        assert len(recs) == 3


# -- broken model files -----------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"hello", b"\x00" * 7, b"h\x00\x00\x00"])
@pytest.mark.parametrize("as_", ["{}", "pretrained:aim={}", "pretrained:leave={}"])
def test_a_pt_file_of_other_bytes_is_a_clear_error(tmp_path, data, as_):
    """A text file named .pt was read by torch as a legacy pickle: KeyError 101."""
    if as_ != "{}" and pretrained_path("keglebillard") is None:
        pytest.skip("no shipped model")
    bad = tmp_path / "net.pt"
    bad.write_bytes(data)
    with pytest.raises(ValueError, match="net.pt"):
        make_agent(as_.format(bad), "keglebillard")


@pytest.fixture(scope="module")
def dqn_copy(tmp_path_factory):
    if pretrained_path("keglebillard") is None:
        pytest.skip("no shipped model")
    from cuegym.agents.sb3_agent import read_zip_meta, write_meta

    def make(name, **change):
        path = tmp_path_factory.mktemp("zips") / f"{name}.zip"
        shutil.copy(pretrained_path("keglebillard"), path)
        write_meta(path, {**read_zip_meta(pretrained_path("keglebillard")), **change})
        return path

    return make


@pytest.mark.parametrize("change, match", [
    ({"env_id": "cuegym/GolfbillardShot-v0"}, "env_id 'cuegym/GolfbillardShot-v0' is not a "
                                              "cuegym keglebillard env"),
    ({"env_id": "CartPole-v1"}, "env_id 'CartPole-v1'"),
    ({"action": "absolute"}, r"observations of shape \(113,\).*action 'absolute'.*\(29,\)"),
    ({"algo": "sac"}, "cannot be loaded as a SAC model.*algo 'sac'"),
])
def test_a_zip_whose_metadata_does_not_fit_is_refused_up_front(dqn_copy, change, match):
    """Each was once made without a word, then played garbage or failed at its first move
    (SB3's shape error; "'CandidateQPolicy' object has no attribute 'actor'")."""
    with pytest.raises(ValueError, match=match):
        make_agent(str(dqn_copy("m", **change)), "keglebillard")


def test_full_game_env_opponents_are_made_for_the_envs_setting():
    """Was: a named opponent (``opponent="geometric"``, ``"planner"``...) was made for the
    default table and rules, so on the helmatch table it aimed at the kleinmatch's pockets."""
    import gymnasium as gym

    env = gym.make("cuegym/Keglebillard-v0", opponent="geometric",
                   table="keglebillard-helmatch", rules={"distance": 30}, num_players=3)
    arena = env.unwrapped.core.opponent.arena
    assert arena.table.name == "keglebillard-helmatch" and arena.rules.distance == 30
    assert arena.n_players == 3
    env.reset(seed=0)
    env.step(env.action_space.sample())
    golf = gym.make("cuegym/Golfbillard-v0", opponent="geometric",
                    rules={"match": "best_of_3"})
    assert golf.unwrapped.core.opponent.arena.rules.match == "best_of_3"
    golf.reset(seed=0)
    golf.step(golf.action_space.sample())
