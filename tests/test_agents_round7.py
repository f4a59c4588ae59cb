"""Agents API, seventh round: arguments that were read loosely (an agent without an arena on
another table, another game's jitter, a stats index, a sample of text or NaN). Each test failed
on the code before its fix, except the checks that valid input still works."""

import numpy as np
import pytest

from cuegym.agents import make_agent, make_arena, play_games
from cuegym.agents.ratings import mean_interval


def test_play_games_refuses_a_random_agent_made_for_the_default_table():
    # without arena= it placed a red in hand by the kleinmatch table: on the helmatch, in front
    # of its salvo line (K-15 fouls), and play_games did not see it
    hel = make_arena("keglebillard", table="keglebillard-helmatch")
    geo = make_agent("geometric", "keglebillard", arena=hel)
    with pytest.raises(ValueError, match="table"):
        play_games(hel, [make_agent("random", "keglebillard"), geo], 1, seed=0, max_shots=2)
    ok = play_games(hel, [make_agent("random", "keglebillard", arena=hel), geo], 1, seed=0,
                    max_shots=4)
    assert len(ok.winner) == 1
    ar = make_arena("keglebillard")
    play_games(ar, [make_agent("random", "keglebillard"),
                    make_agent("geometric", "keglebillard", arena=ar)], 1, seed=0, max_shots=2)


@pytest.mark.parametrize("spec", ["planner:jitter={place: 0.5}",
                                  "guided:jitter={place: 0.5},policy=none,n_policy=0"])
def test_golfbillard_planners_refuse_a_placement_jitter(spec):
    # no golfbillard ball is placed: the option was taken and did nothing
    with pytest.raises(ValueError, match="place"):
        make_agent(spec, "golfbillard")
    agent = make_agent(spec.replace("place", "phi"), "golfbillard")
    assert getattr(agent, "first", agent).jitter["phi"] == 0.5  # (guided: its first ply's)


def test_keglebillard_planner_still_takes_a_placement_jitter():
    assert make_agent("planner:jitter={place: 0.05}", "keglebillard").jitter["place"] == 0.05


@pytest.mark.parametrize("bad", [-1, 2, "0", 0.5, True])
def test_stats_refuses_an_agent_index_other_than_0_or_1(bad):
    # stats(-1) counted the draws (winner -1) as wins of an agent that played no game
    ar = make_arena("keglebillard")
    r = play_games(ar, [make_agent("geometric", "keglebillard", arena=ar),
                        make_agent("random", "keglebillard", arena=ar)], 1, seed=0, max_shots=2)
    with pytest.raises(ValueError, match="agent index"):
        r.stats(bad)
    assert r.stats(np.int64(1))["games"] == 1


@pytest.mark.parametrize("x", [[1.0, np.nan, 2.0], [1.0, np.inf], ["1", "2", "4"], [None, 1.0]])
def test_mean_interval_refuses_non_finite_values_or_text(x):
    with pytest.raises(ValueError, match="mean_interval"):
        mean_interval(x, student=True)
    m, lo, hi = mean_interval([1, 2, 4], student=True)
    assert lo < m < hi
