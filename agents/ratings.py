"""Statistics of tournaments: win-rate intervals, Bradley-Terry ratings, intervals of means.

Used by ``experiments/evaluate.py`` (tables, JSON, figure, benchmark page). Everything here is
independent of the order in which games were played: it works on counts.

* :func:`wilson_interval`: the Wilson score interval of a binomial proportion (wins out of
  decided games), good also near 0 and 1 and for few games, unlike the normal approximation.
* :func:`bradley_terry`: maximum-likelihood Bradley-Terry strengths from a matrix of wins (a
  draw counts half a win for each side), on the Elo scale (400 log10 of the odds), with
  standard errors from the Fisher information; :func:`rating_groups` says which agents share
  a scale (those joined by a chain of games).
* :func:`mean_interval`: mean and 95 % normal interval of a sample (mean returns).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: two-sided 95 % quantile of the standard normal distribution
Z95 = 1.959963984540054
#: Elo points per natural-log unit of the Bradley-Terry strength
ELO = 400.0 / math.log(10.0)


def _count(value: Any, name: str, whole: bool = False) -> float:
    """A finite real number (not a bool, not a string); with ``whole``, a whole number."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.integer |
                                                                np.floating):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or (whole and not x.is_integer()):
        raise ValueError(f"{name} must be a finite {'whole ' if whole else ''}number, got "
                         f"{value!r}")
    return x


def _positive(value: Any, name: str) -> float:
    x = _count(value, name)
    if x <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return x


def wilson_interval(wins: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of the proportion ``wins / n``.

    Args:
        wins: successes (may be fractional, e.g. draws counted half). n: trials, a whole
            number >= 0.
        z: normal quantile > 0 (default: 95 % two-sided).

    Returns:
        (low, high) in [0, 1]; (nan, nan) for ``n == 0`` (no decided game: no rate).
    """
    shown = f"wins={wins!r}, n={n!r}"
    wins = _count(wins, "wins")
    n = _count(n, "n", whole=True)
    z = _positive(z, "z")
    if n < 0 or wins < 0 or wins > n:
        raise ValueError(f"need 0 <= wins <= n, got {shown}")
    if n == 0:
        return math.nan, math.nan
    p = wins / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    lo = 0.0 if wins == 0 else max(0.0, centre - half)  # exact at the ends (no rounding)
    hi = 1.0 if wins == n else min(1.0, centre + half)
    return lo, hi


def bradley_terry(wins: np.ndarray, prior: float = 0.5, tol: float = 1e-10,
                  max_iter: int = 10_000) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale.

    P(i beats j) = 1 / (1 + 10^((r_j - r_i) / 400)). Fitted with Hunter's MM algorithm (2004)
    on the counts, so the result does not depend on the order of the games.

    Args:
        wins: (n, n) ``wins[i, j]`` = games i won against j (a draw: 0.5 to each side).
        prior: virtual wins given to each side of every pair that played (a weak prior, one
            virtual draw per pair for 0.5): keeps the estimate finite when an agent won or lost
            every game. 0 gives the plain maximum-likelihood estimate (which then diverges).
        tol, max_iter: convergence of the MM iteration (change of log-strength).

    Returns:
        (ratings (n,), standard errors (n,)), Elo points with mean 0. The errors come from the
        inverse Fisher information under the mean-zero constraint; NaN for an agent that
        played no game. Agents joined by no chain of games (:func:`rating_groups` gives more
        than one group) have no common scale: each group is then centred on its own mean 0,
        and ratings compare only within a group.
    """
    try:
        w = np.asarray(wins, np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"wins must be a square matrix of non-negative counts, got "
                         f"{wins!r}") from None
    n = w.shape[0] if w.ndim else 0
    if w.ndim != 2 or w.shape != (n, n) or (w < 0).any() or not np.isfinite(w).all():
        raise ValueError(f"wins must be a square matrix of non-negative counts, got {w!r}")
    diag = np.diagonal(w)
    if diag.any():
        i = int(np.flatnonzero(diag)[0])
        raise ValueError(f"wins[{i}, {i}] = {diag[i]:g}: an agent plays no game against itself "
                         "(the diagonal must be 0)")
    if _count(prior, "prior") < 0:
        raise ValueError(f"prior must be a finite number >= 0 (virtual wins), got {prior!r}")
    prior = float(prior)
    tol = _positive(tol, "tol")
    if isinstance(max_iter, bool | np.bool_) or not isinstance(max_iter, int | np.integer) \
            or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    games = w + w.T
    played = games > 0
    np.fill_diagonal(played, False)
    w = w + prior * played
    games = w + w.T
    active = played.any(1)
    if not active.any():  # no finished game at all: no rating
        return np.full(n, np.nan), np.full(n, np.nan)
    p = np.ones(n)
    total = w.sum(1)
    for _ in range(max_iter):
        denom = np.where(played, games / (p[:, None] + p[None, :]), 0.0).sum(1)
        new = p.copy()
        new[active] = np.maximum(total[active] / denom[active], 1e-300)
        new[active] /= math.exp(np.log(new[active]).mean())
        done = np.abs(np.log(new) - np.log(p)).max() < tol
        p = new
        if done:
            break
    idx = np.flatnonzero(active)
    # MM crawls when one agent wins (nearly) every game: Newton's method from where it stopped
    # reaches the maximum in a few steps (the likelihood is concave in the log-strengths)
    theta = _newton(np.log(p), w, games, played, idx, tol)
    r = np.where(active, theta, np.nan)
    for group in _groups(played):  # the likelihood fixes no offset between groups
        r[group] -= r[group].mean()
    se = np.full(n, np.nan)
    if len(idx) > 1:
        # the inverse Fisher information; the pseudo-inverse removes each group's null
        # direction, i.e. the errors are those under each group's mean-zero constraint
        cov = np.linalg.pinv(_information(theta, games, played)[np.ix_(idx, idx)])
        se[idx] = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return r * ELO, se * ELO


def rating_groups(games: np.ndarray) -> list[list[int]]:
    """The agents that can be rated on one scale: the connected parts of the graph whose edges
    are the pairs with at least one game (``games`` (n, n): games, e.g. finished games, between
    i and j), each a sorted list of indices, largest first; agents with no game are in none.
    One group means one scale; with several, :func:`bradley_terry`'s ratings compare only
    within a group."""
    g = np.asarray(games, np.float64)
    played = (g + g.T) > 0
    np.fill_diagonal(played, False)
    return sorted((grp.tolist() for grp in _groups(played)), key=lambda grp: (-len(grp), grp))


def _groups(played: np.ndarray) -> list[np.ndarray]:
    """Connected parts (index arrays) of the symmetric (n, n) bool graph ``played``, agents
    without an edge left out."""
    n = len(played)
    seen = ~played.any(1)
    out = []
    for start in range(n):
        if seen[start]:
            continue
        part = np.zeros(n, bool)
        part[start] = seen[start] = True
        frontier = part.copy()
        while frontier.any():
            frontier = played[frontier].any(0) & ~seen
            seen |= frontier
            part |= frontier
        out.append(np.flatnonzero(part))
    return out


def _beats(theta: np.ndarray) -> np.ndarray:
    """(n, n) P(i beats j) for the log-strengths ``theta`` (n,)."""
    return 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))


def _information(theta: np.ndarray, games: np.ndarray, played: np.ndarray) -> np.ndarray:
    """(n, n) Fisher information of the log-strengths ``theta`` (n,) for ``games`` (n, n)."""
    q = _beats(theta)
    H = np.where(played, games * q * q.T, 0.0)
    return np.diag(H.sum(1)) - H


def _log_likelihood(theta: np.ndarray, w: np.ndarray, played: np.ndarray) -> float:
    t = theta[:, None]
    return float(np.where(played, w * (t - np.logaddexp(t, t.T)), 0.0).sum())


def _newton(theta: np.ndarray, w: np.ndarray, games: np.ndarray, played: np.ndarray,
            idx: np.ndarray, tol: float, max_iter: int = 100) -> np.ndarray:
    """The log-strengths (n,) of maximum likelihood for wins ``w`` (n, n), from ``theta``:
    Newton steps on the agents ``idx`` (mean zero kept), halved while the likelihood falls."""
    theta = theta.copy()
    if len(idx) < 2:
        return theta
    total = w.sum(1)
    for _ in range(max_iter):
        grad = total - np.where(played, games * _beats(theta), 0.0).sum(1)
        info = _information(theta, games, played)[np.ix_(idx, idx)]
        step = np.zeros_like(theta)
        step[idx] = np.linalg.pinv(info) @ grad[idx]
        step[idx] -= step[idx].mean()
        base, a = _log_likelihood(theta, w, played), 1.0
        while a > 1e-9 and _log_likelihood(theta + a * step, w, played) < base - 1e-12:
            a /= 2
        theta += a * step
        if np.abs(a * step).max() < tol:
            break
    return theta


def mean_interval(x: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): the sample mean and its normal 95 % interval (mean +- z s / sqrt n);
    the interval collapses to the mean for fewer than two values."""
    a = np.asarray(x, np.float64).ravel()
    if a.size == 0:
        raise ValueError("mean_interval of an empty sample")
    m = float(a.mean())
    if a.size < 2:
        return m, m, m
    h = z * float(a.std(ddof=1)) / math.sqrt(a.size)
    return m, m - h, m + h
