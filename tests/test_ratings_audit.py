"""Audit of the tournament statistics (cuegym.agents.ratings, evaluate.py's numbers) against
independent computations written here: the Wilson interval solved from its defining quadratic,
Bradley-Terry by plain gradient ascent with standard errors from a finite-difference Hessian,
Student's t quantiles from closed forms and mpmath.

Defects found and fixed (each test below says which it guards):

* ``bradley_terry(prior=0)`` with agents that won every game against the rest returned
  finite garbage (+-120,000 Elo with standard errors of 0: a claim of certainty); the maximum
  likelihood estimate does not exist there and is now refused with a ValueError naming them.
* ``mean_interval`` of one value returned a zero-width interval (no uncertainty at all); it
  now has no interval (NaN bounds).
* the benchmark's mean-return intervals were normal ones (z = 1.96) whatever the number of
  episodes (``--episodes`` may be 2: the normal interval then covers the mean in about 70 %
  of samples); they now use Student's t with n - 1 degrees of freedom.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cuegym.agents.ratings import (
    ELO,
    bradley_terry,
    mean_interval,
    rating_groups,
    t_quantile,
    wilson_interval,
)

Z = 1.959963984540054


# ---------------------------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------------------------


def wilson_from_quadratic(k: float, n: int, z: float = Z) -> tuple[float, float]:
    """The Wilson interval as the set of p with (k/n - p)^2 <= z^2 p (1 - p) / n: the roots of
    (n + z^2) p^2 - (2k + z^2) p + k^2 / n = 0."""
    a, b, c = n + z * z, -(2 * k + z * z), k * k / n
    d = math.sqrt(b * b - 4 * a * c)
    return (-b - d) / (2 * a), (-b + d) / (2 * a)


def bt_reference(w: np.ndarray, prior: float) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry by gradient ascent of the log-likelihood (virtual draws added as the
    ratings module documents), Elo scale, mean 0; standard errors from a finite-difference
    Hessian with agent 0 held at 0, mapped to the mean-zero coordinates. One connected group,
    every agent played."""
    n = len(w)
    played = (w + w.T) > 0
    np.fill_diagonal(played, False)
    w = w + prior * played
    scale = 4.0 / max(1.0, (w + w.T).sum(1).max())

    def grad(th):
        p = 1 / (1 + np.exp(th[None, :] - th[:, None]))  # P(i beats j)
        return (w * (1 - p)).sum(1) - (w.T * p).sum(1)

    th = np.zeros(n)
    for _ in range(200_000):
        g = grad(th)
        th += scale * g
        th -= th.mean()
        if np.abs(g).max() < 1e-11:
            break

    def loglik(t):
        d = t[:, None] - t[None, :]
        return float((w * -np.logaddexp(0.0, -d)).sum())

    h, m = 1e-4, n - 1
    H = np.zeros((m, m))
    for a in range(m):
        for b in range(m):
            ea, eb = np.zeros(n), np.zeros(n)
            ea[a + 1] = eb[b + 1] = h
            H[a, b] = (loglik(th + ea + eb) - loglik(th + ea - eb) - loglik(th - ea + eb)
                       + loglik(th - ea - eb)) / (4 * h * h)
    cov = np.zeros((n, n))
    cov[1:, 1:] = np.linalg.inv(-H)
    A = np.eye(n) - 1.0 / n
    return th * ELO, np.sqrt(np.diag(A @ cov @ A.T)) * ELO


# ---------------------------------------------------------------------------------------------
# Wilson
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 40, 100, 1000])
def test_wilson_interval_is_the_quadratics_roots(n):
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n} & set(range(n + 1))):
        assert wilson_interval(k, n) == pytest.approx(wilson_from_quadratic(k, n), abs=1e-12)
    # half wins (draws counted half, the ratings' convention) are accepted as such
    assert wilson_interval(2.5, 5) == pytest.approx(wilson_from_quadratic(2.5, 5), abs=1e-12)
    # another level: 99 %
    assert wilson_interval(3, 10, 2.5758293035489) == pytest.approx(
        wilson_from_quadratic(3, 10, 2.5758293035489), abs=1e-12)


def test_wilson_interval_ends_and_one_game():
    assert wilson_interval(1, 1) == pytest.approx((1 / (1 + Z * Z), 1.0))
    assert wilson_interval(0, 1) == pytest.approx((0.0, Z * Z / (1 + Z * Z)))
    lo, hi = wilson_interval(6, 6)  # evaluate.py's tiny tournament: 6 of 6
    assert (round(lo, 4), hi) == (0.6097, 1.0)


# ---------------------------------------------------------------------------------------------
# Bradley-Terry
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("prior", [0.5, 0.0])
def test_bradley_terry_matches_an_independent_fit(seed, prior):
    """Ratings and standard errors equal a gradient-ascent fit and a finite-difference
    Hessian, for 3-5 agents with half-wins (draws) in the counts."""
    rng = np.random.default_rng(seed)
    n = 3 + seed % 3
    w = rng.integers(1, 15, (n, n)).astype(float) + 0.5 * rng.integers(0, 3, (n, n))
    np.fill_diagonal(w, 0.0)
    r, se = bradley_terry(w, prior=prior)
    rr, sr = bt_reference(w, prior)
    np.testing.assert_allclose(r, rr, atol=1e-6)
    np.testing.assert_allclose(se, sr, rtol=1e-4)
    assert r.sum() == pytest.approx(0.0, abs=1e-9)  # anchored: mean 0


def test_bradley_terry_scale_is_elo():
    """400 log10 of the odds: 3 : 1 is 190.85 Elo; the default prior adds one virtual draw:
    30 : 10 becomes 30.5 : 10.5."""
    r, _ = bradley_terry(np.array([[0, 30], [10, 0]]))
    assert r[0] - r[1] == pytest.approx(400 * math.log10(30.5 / 10.5), abs=1e-8)
    assert ELO == pytest.approx(400 / math.log(10))


def test_draws_count_half_a_win():
    """A draw is half a win for each side: one win and two draws is 2 : 1 (plus the prior)."""
    win_draws = np.array([[0, 1 + 0.5 * 2], [0.5 * 2, 0]])
    r, _ = bradley_terry(win_draws, prior=0.0)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(2), abs=1e-8)
    only_draws, se = bradley_terry(np.array([[0, 2.0], [2.0, 0]]), prior=0.0)
    assert only_draws == pytest.approx([0.0, 0.0], abs=1e-12) and np.isfinite(se).all()


def test_one_game_and_zero_games():
    r, se = bradley_terry(np.array([[0, 1], [0, 0]]))  # one win, one virtual draw: 1.5 : 0.5
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3), abs=1e-8)
    # se of each (mean 0): ELO * sqrt(1 / (2 * 3/4 * 1/4)) / 2
    assert se == pytest.approx([ELO * math.sqrt(1 / (2 * 0.75 * 0.25)) / 2] * 2, rel=1e-6)
    for empty in (np.zeros((2, 2)), np.zeros((4, 4))):
        r, se = bradley_terry(empty)
        assert np.isnan(r).all() and np.isnan(se).all()
        assert rating_groups(empty) == []


def test_ratings_do_not_depend_on_the_order_of_the_games():
    """Shuffling the games gives bit-identical ratings (they see counts only); relabelling
    the agents relabels the ratings."""
    rng = np.random.default_rng(5)
    n = 4
    games = [(int(i), int(j), float(rng.choice([1.0, 0.5, 0.0])))  # (i, j, i's score)
             for i, j in rng.integers(0, n, (300, 2)) if i != j]

    def tally(gs):
        w = np.zeros((n, n))
        for i, j, s in gs:
            w[i, j] += s
            w[j, i] += 1 - s
        return w

    r0, se0 = bradley_terry(tally(games))
    for _ in range(3):
        order = rng.permutation(len(games))
        r, se = bradley_terry(tally([games[k] for k in order]))
        assert np.array_equal(r, r0) and np.array_equal(se, se0)
    perm = np.array([2, 0, 3, 1])
    w = tally(games)
    r, se = bradley_terry(w[np.ix_(perm, perm)])
    np.testing.assert_allclose(r, r0[perm], atol=1e-9)
    np.testing.assert_allclose(se, se0[perm], atol=1e-9)


@pytest.mark.parametrize("w, winners, losers", [
    ([[0, 5], [0, 0]], [0], [1]),  # one agent won every game
    ([[0, 5, 5], [0, 0, 3], [0, 2, 0]], [0], [1, 2]),  # it won every game of three agents
    ([[0, 5, 0], [0, 0, 3], [0, 3, 0]], [0], [1, 2]),  # a chain: 0 > 1, 1 ~ 2
    ([[0, 2, 4, 0], [2, 0, 0, 1], [0, 0, 0, 3], [0, 0, 1, 0]], [0, 1], [2, 3]),
])
def test_plain_maximum_likelihood_that_diverges_is_refused(w, winners, losers):
    """DEFECT (fails on the old code): with prior=0 and agents that won every game against the
    rest, the maximum does not exist; the fit returned +-120,000 Elo (the first case) with
    standard errors of exactly 0, i.e. certainty, and overflow warnings. It is now refused,
    naming the agents."""
    with pytest.raises(ValueError, match=rf"no maximum-likelihood ratings: agents "
                                         rf"{re_list(winners)} won every game against agents "
                                         rf"{re_list(losers)}.*give prior > 0"):
        bradley_terry(np.array(w, float), prior=0.0)
    r, se = bradley_terry(np.array(w, float))  # the default prior: finite, documented
    assert np.isfinite(r).all() and np.isfinite(se).all() and (se > 0).all()
    assert r[winners].min() > r[losers].max()


def re_list(xs: list[int]) -> str:
    return r"\[" + ", ".join(map(str, xs)) + r"\]"


def test_plain_maximum_likelihood_that_exists_is_still_fitted():
    """Strongly connected wins (a cycle, or each pair split) and separate groups that each
    have one: prior=0 fits, finite, with positive errors."""
    cycle = np.array([[0, 5, 0], [0, 0, 5], [5, 0, 0]], float)
    r, se = bradley_terry(cycle, prior=0.0)
    assert r == pytest.approx([0, 0, 0], abs=1e-9) and (se > 0).all()
    w = np.zeros((5, 5))
    w[0, 1], w[1, 0], w[2, 3], w[3, 2] = 3, 1, 1, 2
    r, se = bradley_terry(w, prior=0.0)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3), abs=1e-8)
    assert r[3] - r[2] == pytest.approx(400 * math.log10(2), abs=1e-8)
    assert np.isnan(r[4]) and np.isfinite(r[:4]).all()
    # a divergent group next to a fine one is still refused (its ratings mean nothing)
    w[1, 0] = 0
    with pytest.raises(ValueError, match=r"agents \[0\] won every game against agents \[1\]"):
        bradley_terry(w, prior=0.0)


def test_seats_alternate_and_results_count_every_game():
    """play_games alternates the seats (each agent breaks in half the games, the first one
    more when odd) and every game is a win, loss, draw or unfinished for each agent."""
    from cuegym.agents import make_agent, make_arena, play_games

    arena = make_arena("keglebillard")
    agents = [make_agent(s, "keglebillard", arena=arena) for s in ("random", "random")]
    res = play_games(arena, agents, 5, seed=3, max_shots=30)
    assert res.seats[:, 0].tolist() == [0, 1, 0, 1, 0]
    a, b = res.stats(0), res.stats(1)
    for s in (a, b):
        assert s["wins"] + s["losses"] + s["draws"] + s["unfinished"] == s["games"] == 5
    assert a["wins"] == b["losses"] and a["draws"] == b["draws"]
    assert a["unfinished"] == int((~res.finished).sum())


# ---------------------------------------------------------------------------------------------
# means: Student's t
# ---------------------------------------------------------------------------------------------


def test_t_quantile_against_closed_forms_and_mpmath():
    for p in (0.6, 0.9, 0.975, 0.995):
        assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-12)
        a = 4 * p * (1 - p)  # 4 degrees of freedom: 2 sqrt(q - 1) (Shaw 2006)
        q = math.cos(math.acos(math.sqrt(a)) / 3) / math.sqrt(a)
        assert t_quantile(p, 4) == pytest.approx(2 * math.sqrt(q - 1), rel=1e-10)
        assert t_quantile(1 - p, 3) == -t_quantile(p, 3)
    mpmath = pytest.importorskip("mpmath")
    for df in (2, 3, 5, 9, 30, 255, 999, 1001, 50_000):
        ref = mpmath.findroot(lambda t, df=df: mpmath.betainc(
            df / 2, 0.5, 0, df / (df + t * t), regularized=True) / 2 - 0.025, 2)
        assert t_quantile(0.975, df) == pytest.approx(float(ref), rel=1e-10)
    # textbook 97.5 % values
    for df, v in ((2, 4.303), (5, 2.571), (10, 2.228), (30, 2.042)):
        assert round(t_quantile(0.975, df), 3) == v
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)
    with pytest.raises(ValueError):
        t_quantile(0.9, 0)


def test_mean_interval_of_one_value_has_no_interval():
    """DEFECT (fails on the old code): one value gave (m, m, m), a zero-width interval."""
    m, lo, hi = mean_interval([0.7])
    assert m == 0.7 and math.isnan(lo) and math.isnan(hi)
    m, lo, hi = mean_interval([0.7], student=True)
    assert m == 0.7 and math.isnan(lo) and math.isnan(hi)


def test_mean_interval_student():
    """DEFECT (fails on the old code: no Student's t): with ``student`` the half width is
    t(0.975, n - 1) s / sqrt n; the default stays the normal interval."""
    x = [1.0, 2.0, 3.0]
    m, lo, hi = mean_interval(x, student=True)
    assert m == 2.0 and hi - m == pytest.approx(t_quantile(0.975, 2) / math.sqrt(3), rel=1e-12)
    assert m - lo == pytest.approx(hi - m, rel=1e-12)
    assert mean_interval(x)[2] - 2.0 == pytest.approx(Z / math.sqrt(3), rel=1e-12)
    # coverage on normal samples of 3: t about 95 %, the normal interval far below
    rng = np.random.default_rng(0)
    xs = rng.normal(0.0, 1.0, (4000, 3))
    cover_t = np.mean([lo <= 0 <= hi for _, lo, hi in (mean_interval(r, student=True)
                                                       for r in xs)])
    cover_z = np.mean([lo <= 0 <= hi for _, lo, hi in (mean_interval(r) for r in xs)])
    assert 0.935 < cover_t < 0.965 and cover_z < 0.85


def test_benchmark_rows_use_the_t_interval(monkeypatch):
    """DEFECT (fails on the old code): the benchmark's ci95 used z = 1.96 for any number of
    episodes (down to --episodes 2); its rows and page now use Student's t."""
    from cuegym.experiments import evaluate

    returns = np.array([0.1, 0.5, -0.2, 0.4])
    monkeypatch.setattr(evaluate, "episode_returns", lambda *a, **k: returns.copy())
    (row,) = evaluate.benchmark(["random"], 4, 0, env_ids=("cuegym/KeglebillardShot-v0",),
                                quiet=True)
    half = t_quantile(0.975, 3) * returns.std(ddof=1) / 2
    assert row["mean_return"] == pytest.approx(returns.mean(), abs=1e-4)
    assert row["ci95"] == pytest.approx([returns.mean() - half, returns.mean() + half],
                                        abs=1e-4)
    page = evaluate.benchmark_markdown([row], "c", "tournament")
    assert "Student's t" in page and "normal 95 %" not in page


# ---------------------------------------------------------------------------------------------
# evaluate.py's numbers
# ---------------------------------------------------------------------------------------------


def test_tournament_numbers_match_independent_computations(tmp_path):
    """A small golfbillard round robin of three agents (with G-5 draws): the JSON's win rates,
    Wilson intervals and Bradley-Terry ratings equal those computed here from its counts, and
    the printed table shows them."""
    from cuegym.experiments.evaluate import run_tournament
    from cuegym.experiments.tournament_report import format_table

    res = run_tournament("golfbillard", ["random", "geometric", "random"], 8, 3, quiet=True)
    names = list(res["agents"])
    n, G = len(names), res["games_per_pair"]
    won, drawn = np.zeros((n, n)), np.zeros((n, n))
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            fin = G - res["unfinished"][a][b]
            won[i, j] = round(res["win_rate"][a][b] * fin)
            drawn[i, j] = round(res["draw_rate"][a][b] * fin)
    finished = won + won.T + drawn
    assert (finished + np.eye(n) * G == G).all()  # no game cut off here
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            lo, hi = wilson_from_quadratic(won[i, j], G)
            assert res["win_rate_ci"][a][b] == pytest.approx([lo, hi], abs=6e-5)
    assert drawn.sum() > 0  # the case under test: draws
    for i, a in enumerate(names):
        ag = res["agents"][a]
        assert (ag["wins"], ag["losses"], ag["draws"]) == (won[i].sum(), won[:, i].sum(),
                                                           drawn[i].sum())
    r, se = bt_reference(won + 0.5 * drawn, 0.5)
    assert [res["agents"][a]["rating"] for a in names] == pytest.approx(r, abs=0.051)
    assert [res["agents"][a]["rating_se"] for a in names] == pytest.approx(se, abs=0.051)
    text = format_table(res)
    for a in names:  # the table prints the JSON's values (rounded to 0.1) to whole points
        ag = res["agents"][a]
        assert f"{ag['rating']:+.0f} ± {ag['rating_se']:.0f}" in text
