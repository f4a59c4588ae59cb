"""Statistics of tournaments: win-rate intervals, Bradley-Terry ratings, intervals of means.

Used by ``experiments/evaluate.py`` (tables, JSON, figure, benchmark page). Everything here is
independent of the order in which games were played: it works on counts.

* :func:`wilson_interval`: the Wilson score interval of a binomial proportion (``wins`` of ``n``
  trials; the tournament's win rate is wins over *finished* games, a draw counted as no win),
  good also near 0 and 1 and for few games, unlike the normal approximation.
* :func:`bradley_terry`: maximum-likelihood Bradley-Terry strengths from a matrix of pairwise
  wins of two-player games (a draw counts half a win for each side; games of three or more
  players are not rated: the tournament plays two-seat games only), on the Elo scale
  (``400 / ln 10`` points per unit of log-strength: P(i beats j) = 1 / (1 + 10^((r_j - r_i) /
  400)), +191 is 3 : 1 odds), anchored so that the rated agents of each group have mean 0, with
  standard errors from the Fisher information; :func:`rating_groups` says which agents share
  a scale (those joined by a chain of games). A weak prior (``prior``: one virtual draw per
  pair that played) keeps every rating finite; with ``prior=0`` a tournament in which some
  agents won every game against the rest has no maximum-likelihood estimate (it diverges) and
  is refused with a ValueError naming them. The model has no seat (first-move) term: the
  tournament alternates the seats, so each agent of a pair has the first move in half its
  games (one game more for the first-listed when the number is odd) and a first-move advantage
  favours neither (it only pulls the rating differences slightly towards 0).
* :func:`mean_interval`: mean and 95 % interval of a sample (mean returns): normal, or with
  ``student=True`` Student's t with n - 1 degrees of freedom (the benchmark's), none for a
  single value.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cuegym.configs import short_repr

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
        wins: successes (may be fractional, e.g. draws counted half; ``evaluate.py`` counts
            a draw as no win: wins over finished games). n: trials, a whole number >= 0.
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
            every game. 0 gives the plain maximum-likelihood estimate, which exists only when
            no set of agents won every game against the other agents of its group (Ford's
            condition: the graph of "i won (or drew) a game against j" is strongly connected
            within each group); otherwise it diverges and a ValueError names the agents.
        tol, max_iter: convergence of the MM iteration (change of log-strength).

    Returns:
        (ratings (n,), standard errors (n,)), Elo points with mean 0. The errors come from the
        inverse Fisher information under the mean-zero constraint; NaN for an agent that
        played no game. Agents joined by no chain of games (:func:`rating_groups` gives more
        than one group) have no common scale: each group is then centred on its own mean 0,
        and ratings compare only within a group.
    """
    w = count_matrix(wins, "wins")
    n = len(w)
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
    _check_estimate_exists(w, played)
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


def _check_estimate_exists(w: np.ndarray, played: np.ndarray) -> None:
    """Refuse wins ``w`` (n, n) (prior included) whose maximum-likelihood ratings diverge: in a
    group (:func:`_groups` of ``played``) the agents some agent ``i`` beat, directly or through
    a chain of wins, are not the whole group, so the others won every game against them
    (Ford 1957; Hunter 2004, assumption 1). A prior > 0 never fails: every pair that played
    then has a (virtual) win each way. Without this check the fit stopped where Newton's steps
    ran out: ratings of +-120,000 Elo with standard errors of 0."""
    beat = (w > 0) & played
    for group in _groups(played):
        for i in group:
            reach = np.zeros(len(w), bool)
            reach[i] = True
            frontier = reach.copy()
            while frontier.any():
                frontier = beat[frontier].any(0) & ~reach
                reach |= frontier
            losers = [int(j) for j in group if reach[j]]
            if len(losers) < len(group):
                winners = [int(j) for j in group if not reach[j]]
                raise ValueError(
                    f"no maximum-likelihood ratings: agents {winners} won every game against "
                    f"agents {losers} (no loss, no draw), so their rating difference grows "
                    "without bound; give prior > 0 (e.g. the default 0.5, one virtual draw "
                    "per pair) for finite ratings")


def count_matrix(counts: Any, name: str) -> np.ndarray:
    """``counts`` as an (n, n) float64 matrix of non-negative finite counts (numbers, not text:
    ``"3"`` would be read as 3), or a ValueError naming ``name``."""
    bad = f"{name} must be a square matrix of non-negative counts, got {counts!r}"
    try:
        raw = np.asarray(counts)
        w = raw.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(bad) from None
    n = w.shape[0] if w.ndim else 0
    if raw.dtype.kind not in "iuf" or w.ndim != 2 or w.shape != (n, n) or (w < 0).any() \
            or not np.isfinite(w).all():
        raise ValueError(bad)
    return w


def rating_groups(games: np.ndarray) -> list[list[int]]:
    """The agents that can be rated on one scale: the connected parts of the graph whose edges
    are the pairs with at least one game (``games`` (n, n): games, e.g. finished games, between
    i and j), each a sorted list of indices, largest first; agents with no game are in none.
    One group means one scale; with several, :func:`bradley_terry`'s ratings compare only
    within a group."""
    g = count_matrix(games, "games")
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


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t distribution with ``df`` > 0 degrees of freedom (no
    scipy): closed forms for 1 and 2 degrees of freedom, Hill's expansion (1970) above 1,000
    (error < 1e-12), else the t distribution function (the regularised incomplete beta,
    Lentz's continued fraction) inverted by bisection to 1e-13."""
    p = _count(p, "p")
    df = _positive(df, "df")
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    if df == 1.0:
        return math.tan(math.pi * (p - 0.5))
    if df == 2.0:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    if df > 1000.0:
        z = _normal_quantile(p)
        z2 = z * z
        g = ((z2 + 1) * z / 4, ((5 * z2 + 16) * z2 + 3) * z / 96,
             (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384,
             ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160)
        return z + sum(gk / df ** (k + 1) for k, gk in enumerate(g))
    tail = 1.0 - p  # P(T > t) = I_{df / (df + t^2)}(df / 2, 1 / 2) / 2

    def upper(t: float) -> float:
        return 0.5 * _betainc(df / 2, 0.5, df / (df + t * t))

    lo, hi = 0.0, 1.0
    while upper(hi) > tail:
        lo, hi = hi, 2 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if upper(mid) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def _normal_quantile(p: float) -> float:
    """The ``p`` quantile (0.5 < p < 1) of the standard normal: Newton on ``erfc``."""
    z = 0.0
    for _ in range(100):
        step = (0.5 * math.erfc(-z / math.sqrt(2)) - p) / (
            math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi))
        z -= step
        if abs(step) < 1e-15:
            break
    return z


def _betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b) (Numerical Recipes' ``betai``)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
                     + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def mean_interval(x: np.ndarray, z: float = Z95, *,
                  student: bool = False) -> tuple[float, float, float]:
    """(mean, low, high): the sample mean and its interval, mean +- q s / sqrt n with ``s`` the
    sample standard deviation.

    ``q`` is ``z`` (default: the normal 95 % interval, fine for hundreds of values), or with
    ``student`` the quantile of Student's t with n - 1 degrees of freedom at the same two-sided
    level (for 95 %: 12.71 for 2 values, 2.78 for 5, 2.26 for 10, 1.97 for 256), the exact
    interval for normal samples: the normal one covers the mean in about 70 % of samples of 2,
    88 % of 5. A single value has no interval: (mean, nan, nan) (it was a zero-width interval,
    a claim of no uncertainty at all). Values all equal give a zero-width interval: the sample
    shows no spread to measure."""
    raw = np.asarray(x)
    if raw.dtype == object or not (np.issubdtype(raw.dtype, np.number)
                                   or raw.dtype == np.bool_):  # "1", "2" were averaged
        raise ValueError(f"mean_interval takes numbers, got dtype {raw.dtype}: "
                         f"{short_repr(x)}")
    a = raw.astype(np.float64).ravel()
    if a.size == 0:
        raise ValueError("mean_interval of an empty sample")
    if not np.isfinite(a).all():
        bad = int(np.flatnonzero(~np.isfinite(a))[0])
        raise ValueError(f"mean_interval takes finite values, got {a[bad]} at index {bad}")
    z = _positive(z, "z")
    m = float(a.mean())
    if a.size < 2:
        return m, math.nan, math.nan
    q = t_quantile(0.5 * math.erfc(-z / math.sqrt(2)), a.size - 1) if student else z
    h = q * float(a.std(ddof=1)) / math.sqrt(a.size)
    return m, m - h, m + h
