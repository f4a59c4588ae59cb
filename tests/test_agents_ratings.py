"""Hostile input to the tournament statistics (cuegym.agents.ratings): counts that are not
finite, a non-positive quantile, a negative or NaN prior and self-wins are refused with a
ValueError naming the value (was: confident garbage, or numpy's LinAlgError)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cuegym.agents.ratings import bradley_terry, wilson_interval


@pytest.mark.parametrize("args, msg", [
    ((math.nan, 10), "wins must be a finite number, got nan"),
    ((5, math.nan), "n must be a finite whole number, got nan"),
    ((5, math.inf), "n must be a finite whole number, got inf"),
    ((math.inf, math.inf), "wins must be a finite number, got inf"),
    ((1, 1, -1.96), "z must be a finite number > 0, got -1.96"),
    ((1, 1, 0), "z must be a finite number > 0, got 0"),
    ((1, 1, math.nan), "z must be a finite number, got nan"),
    ((2, 4.5), "n must be a finite whole number, got 4.5"),
    ((True, 2), "wins must be a finite number, got True"),
    (("3", 5), "wins must be a finite number, got '3'"),
    ((3, 2), r"need 0 <= wins <= n, got wins=3, n=2"),
    ((-1, 2), r"need 0 <= wins <= n, got wins=-1, n=2"),
])
def test_wilson_interval_refuses(args, msg):
    with pytest.raises(ValueError, match=msg):
        wilson_interval(*args)


def test_wilson_interval_valid_input_unchanged():
    assert wilson_interval(8, 10) == wilson_interval(np.int64(8), np.float64(10.0))
    lo, hi = wilson_interval(2.5, 5)  # draws counted half
    assert 0.0 < lo < 0.5 < hi < 1.0
    assert all(math.isnan(v) for v in wilson_interval(0, 0))


W = np.array([[0, 7, 2], [3, 0, 6], [8, 4, 0]], float)


@pytest.mark.parametrize("kw, msg", [
    ({"prior": -1}, r"prior must be a finite number >= 0 \(virtual wins\), got -1"),
    ({"prior": math.nan}, "prior must be a finite number, got nan"),
    ({"prior": math.inf}, "prior must be a finite number, got inf"),
    ({"prior": "0.5"}, "prior must be a finite number, got '0.5'"),
    ({"tol": 0.0}, "tol must be a finite number > 0"),
    ({"max_iter": 0}, "max_iter must be an integer >= 1, got 0"),
    ({"max_iter": 2.5}, "max_iter must be an integer >= 1, got 2.5"),
])
def test_bradley_terry_refuses_bad_settings(kw, msg):
    with pytest.raises(ValueError, match=msg):
        bradley_terry(W, **kw)


def test_bradley_terry_refuses_bad_matrices():
    with pytest.raises(ValueError, match=r"wins\[0, 0\] = 5: an agent plays no game against "
                                         r"itself"):
        bradley_terry([[5, 1], [1, 0]])
    with pytest.raises(ValueError, match=r"wins\[1, 1\] = 0.5"):
        bradley_terry([[0, 1], [1, 0.5]])
    for bad in ([[1, 2, 3]], 3, "x", [[0, 1], [1]], [[0, -1], [1, 0]], [[0, np.nan], [1, 0]]):
        with pytest.raises(ValueError, match="wins must be a square matrix of non-negative "
                                             "counts"):
            bradley_terry(bad)


def test_bradley_terry_valid_input_unchanged():
    r, se = bradley_terry(np.array([[0, 30], [10, 0]]), prior=0.0)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert se == pytest.approx([31.7164, 31.7164], abs=1e-3)
    r1, _ = bradley_terry(W)
    r2, _ = bradley_terry(W, prior=np.float64(0.5), max_iter=np.int64(10_000))
    assert np.array_equal(r1, r2)
    assert all(np.isnan(v).all() for v in bradley_terry(np.zeros((2, 2))))


def test_bradley_terry_reaches_the_maximum_when_one_agent_wins_everything():
    """Hunter's MM crawls here: after its 10,000 steps the first agent stood at 1120 Elo, the
    maximum of the likelihood is at 1149.3 (an independent Newton fit and max_iter=100000
    agree). The gradient of the log-likelihood (with the prior's virtual draws) is now 0."""
    wins = np.array([[0, 10000, 10000], [0, 0, 6000], [0, 4000, 0]], float)
    r, se = bradley_terry(wins)
    assert r[0] == pytest.approx(1149.31, abs=0.01) and np.isfinite(se).all()
    theta = r / (400 / math.log(10))
    w = wins + 0.5 * (wins + wins.T > 0)
    games = w + w.T
    q = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    np.fill_diagonal(games, 0)
    assert np.abs(w.sum(1) - (games * q).sum(1)).max() < 1e-6
    np.testing.assert_allclose(bradley_terry(wins, max_iter=100_000)[0], r, atol=1e-6)


def test_ratings_sort_a_rating_of_zero_as_a_rating():
    """evaluate.py sorted by -(rating or -1e9), so an agent rated exactly 0 came last."""

    from cuegym.experiments.tournament_report import by_rating

    res = {"agents": {"a": {"rating": -120.0}, "b": {"rating": 0.0}, "c": {"rating": None},
                      "d": {"rating": 120.0}}}
    assert by_rating(res) == ["d", "b", "a", "c"]


def test_agents_joined_by_no_game_are_rated_per_group():
    """Two groups with no game between them were put on one scale by where the iteration
    started (a 10 : 0 pair and a 1 : 1 pair came out +188, -340, +76, +76); each group is now
    centred on its own mean, and rating_groups says which agents share a scale."""
    from cuegym.agents.ratings import rating_groups

    w = np.zeros((5, 5))
    w[0, 1] = 10
    w[2, 3] = w[3, 2] = 1
    r, se = bradley_terry(w)
    alone, _ = bradley_terry(w[:2, :2])
    assert r[:2] == pytest.approx(alone)  # the group's ratings are those it has on its own
    assert r[2:4] == pytest.approx([0.0, 0.0], abs=1e-9)
    assert np.isnan(r[4]) and np.isnan(se[4])  # played nothing
    assert rating_groups(w) == [[0, 1], [2, 3]]
    w[1, 2] = 1  # one game joins them: one scale
    assert rating_groups(w) == [[0, 1, 2, 3]]
    r, _ = bradley_terry(w)
    assert np.nansum(r) == pytest.approx(0.0, abs=1e-9)
    assert rating_groups(np.zeros((3, 3))) == []


def test_tournament_notes_and_draws_are_shown(tmp_path):
    """The figure showed two agents that drew every game as two losers (0.00 each); the
    table's ratings now say they are ± 1 standard error."""
    from cuegym.experiments.tournament_report import format_table, plot_results

    agents = {n: {"points_per_shot": 0.0, "foul_rate": 0.0, "rating": 0.0, "rating_se": 77.7,
                  "wins": 0, "losses": 0, "draws": 4, "unfinished": 0, "spec": n}
              for n in ("a", "b")}
    res = {"game": "golfbillard", "games_per_pair": 1, "seed": 0, "noise": "tournament",
           "max_shots": 300, "agents": agents, "win_rate": {"a": {"b": 0.0}, "b": {"a": 0.0}},
           "win_rate_ci": {"a": {"b": [0.0, 0.49]}, "b": {"a": [0.0, 0.49]}},
           "draw_rate": {"a": {"b": 1.0}, "b": {"a": 1.0}}, "notes": []}
    text = format_table(res)
    assert "1 game per pair" in text and "Elo ± se" in text and "+0 ± 78" in text
    assert plot_results(res, tmp_path / "t.png").stat().st_size > 0
