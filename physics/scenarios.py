"""Random but valid table layouts and strikes, vectorised over tables.

Used by the benchmarks, the soak test, the invariant tests and the demo. Draws come from the
caller's ``numpy.random.Generator`` (kernels never draw random numbers).
"""

from __future__ import annotations

import numpy as np

from ..configs import PhysicsParams, TableSpec


def random_positions(rng: np.random.Generator, table: TableSpec, params: PhysicsParams, T: int,
                     B: int, pins_up: np.ndarray | None = None, margin: float = 1e-4,
                     fixed: np.ndarray | None = None) -> np.ndarray:
    """(T, B, 2) ball centres on the cloth, not touching each other, posts, pins or pockets.

    Args:
        fixed: optional (T, B, 2) with NaN where a ball is to be drawn; finite entries are kept.
    """
    R = params.R
    hx = table.length / 2 - R - margin
    hy = table.width / 2 - R - margin
    xy = np.full((T, B, 2), np.nan) if fixed is None else np.array(fixed, dtype=float)
    pins_up = np.ones((T, len(table.pin_spots)), bool) if pins_up is None else pins_up
    for b in range(B):
        todo = np.isnan(xy[:, b, 0])
        for _ in range(1000):
            if not todo.any():
                break
            n = int(todo.sum())
            cand = np.stack([rng.uniform(-hx, hx, n), rng.uniform(-hy, hy, n)], axis=1)
            ok = np.ones(n, bool)
            others = xy[todo][:, :b]
            if b:
                d = np.linalg.norm(others - cand[:, None, :], axis=-1)
                ok &= ~np.any(d < 2 * R + margin, axis=1)
            for c in table.circles:
                ok &= np.hypot(cand[:, 0] - c.x, cand[:, 1] - c.y) > c.radius + R + margin
            for p in table.pockets:
                ok &= np.hypot(cand[:, 0] - p.x, cand[:, 1] - p.y) > p.radius + margin
            for k, (px, py) in enumerate(table.pin_spots):
                near = np.hypot(cand[:, 0] - px, cand[:, 1] - py) <= table.pin_radius + R + margin
                ok &= ~(near & pins_up[todo, k])
            idx = np.nonzero(todo)[0][ok]
            xy[idx, b] = cand[ok]
            todo[idx] = False
        if todo.any():
            raise RuntimeError("could not place balls without overlap")
    return xy


def random_strikes(rng: np.random.Generator, T: int, v_range=(0.5, 6.0), theta_max: float = 10.0,
                   spin: float = 0.5) -> np.ndarray:
    """(T, 5) strikes V0 [m/s], phi [deg], theta [deg], a, b with a^2 + b^2 <= spin^2."""
    r = spin * np.sqrt(rng.uniform(0, 1, T))
    ang = rng.uniform(0, 2 * np.pi, T)
    return np.stack([rng.uniform(*v_range, T), rng.uniform(-180.0, 180.0, T),
                     rng.uniform(0.0, theta_max, T), r * np.cos(ang), r * np.sin(ang)], axis=1)


def keglebillard_shots(rng: np.random.Generator, table: TableSpec, params: PhysicsParams, T: int):
    """Realistic random keglebillard shots: whites on random spots of the bed, all pins up, the
    red struck toward a random point near a white (with a spread), 0.5-6 m/s.

    Returns:
        dict(xy (T, 3, 2), cue_ball (T,), cue (T, 5), pins_up (T, 5)).
    """
    pins = np.ones((T, len(table.pin_spots)), bool)
    xy = random_positions(rng, table, params, T, 3, pins)
    cue = random_strikes(rng, T)
    target = xy[np.arange(T), rng.integers(1, 3, T)]
    d = target - xy[:, 0]
    cue[:, 1] = np.degrees(np.arctan2(d[:, 1], d[:, 0])) + rng.normal(0.0, 8.0, T)
    return {"xy": xy, "cue_ball": np.zeros(T, np.int64), "cue": cue, "pins_up": pins}


def golfbillard_shots(rng: np.random.Generator, table: TableSpec, params: PhysicsParams, T: int):
    """Random golfbillard strokes: 10 balls at random places, one random own ball struck.

    Returns:
        dict(xy (T, 10, 2), cue_ball (T,), cue (T, 5)).
    """
    xy = random_positions(rng, table, params, T, 10)
    cue = random_strikes(rng, T, v_range=(0.3, 4.0))
    return {"xy": xy, "cue_ball": rng.integers(0, 10, T), "cue": cue}


def json_shots(rng: np.random.Generator, n: int, balls: tuple[int, int] = (2, 6)) -> list[dict]:
    """``n`` JSON shot objects (cuegym.physics.jsonio format) of ``balls[0]..balls[1]`` balls:
    the first half on the keglebillard table (its at most 3 balls, all pins up), the rest on
    the golfbillard table, each drawn like :func:`keglebillard_shots` / :func:`golfbillard_shots`
    with the first ball struck."""
    from ..configs import load_params, load_table

    out = []
    for game, count, gen in (("keglebillard", n // 2, keglebillard_shots),
                             ("golfbillard", n - n // 2, golfbillard_shots)):
        table, params = load_table(game), load_params(game)
        s = gen(rng, table, params, count)
        for t in range(count):
            k = int(rng.integers(balls[0], min(balls[1], len(table.ball_ids)) + 1))
            ids = table.ball_ids[:k]
            v0, phi, theta, a, b = (float(c) for c in s["cue"][t])
            out.append({"table": game,
                        "balls": {bid: {"x": float(s["xy"][t, i, 0]), "y": float(s["xy"][t, i, 1])}
                                  for i, bid in enumerate(ids)},
                        "strike": {"ball": ids[0], "V0": v0, "phi": phi, "theta": theta, "a": a,
                                   "b": b}})
    return out


def frozen_clusters(rng: np.random.Generator, table: TableSpec, params: PhysicsParams, T: int,
                    B: int, pins_up: np.ndarray | None = None, max_tries: int = 200) -> np.ndarray:
    """(T, B, 2) layouts where the balls form touching ("frozen") clusters: each ball after the
    first of a table touches (centres exactly 2R apart) a random earlier ball, or, with
    probability 1/4, starts a new cluster at a random free spot. Nothing overlaps a ball, post,
    pin or pocket; a table whose cluster cannot grow draws its remaining balls freely."""
    R = params.R
    hx = table.length / 2 - R
    hy = table.width / 2 - R
    pins_up = np.ones((T, len(table.pin_spots)), bool) if pins_up is None else pins_up
    xy = np.full((T, B, 2), np.nan)
    xy[:, 0] = random_positions(rng, table, params, T, 1, pins_up)[:, 0]
    for b in range(1, B):
        todo = rng.uniform(0, 1, T) >= 0.25
        for _ in range(max_tries):
            if not todo.any():
                break
            idx = np.nonzero(todo)[0]
            anchor = xy[idx, rng.integers(0, b, idx.size)]
            ang = rng.uniform(0, 2 * np.pi, idx.size)
            cand = anchor + 2 * R * np.stack([np.cos(ang), np.sin(ang)], axis=1)
            ok = (np.abs(cand[:, 0]) <= hx - 1e-4) & (np.abs(cand[:, 1]) <= hy - 1e-4)
            d = np.linalg.norm(xy[idx, :b] - cand[:, None, :], axis=-1)
            ok &= np.all(d >= 2 * R - 1e-12, axis=1)
            for c in table.circles:
                ok &= np.hypot(cand[:, 0] - c.x, cand[:, 1] - c.y) > c.radius + R + 1e-4
            for p in table.pockets:
                ok &= np.hypot(cand[:, 0] - p.x, cand[:, 1] - p.y) > p.radius + 1e-4
            for k, (px, py) in enumerate(table.pin_spots):
                near = np.hypot(cand[:, 0] - px, cand[:, 1] - py) <= table.pin_radius + R + 1e-4
                ok &= ~(near & pins_up[idx, k])
            xy[idx[ok], b] = cand[ok]
            todo[idx[ok]] = False
        free = np.isnan(xy[:, b, 0])
        if free.any():
            fixed = np.full((int(free.sum()), b + 1, 2), np.nan)
            fixed[:, :b] = xy[free, :b]
            xy[free, : b + 1] = random_positions(rng, table, params, int(free.sum()), b + 1,
                                                 pins_up[free], fixed=fixed)
    return xy


def hostile_shots(rng: np.random.Generator, table: TableSpec, params: PhysicsParams, T: int,
                  B: int) -> dict:
    """Shots at the edges of the valid input: frozen clusters of B balls, one struck at up to the
    strike limit (V0 <= 20 m/s) with any tip offset (a^2 + b^2 <= 1), half of them massé
    (theta up to 89 deg), a quarter with initial spins (|w| <= 1000 rad/s) on the other balls,
    all pins standing.

    Returns:
        dict(xy (T, B, 2), cue_ball (T,), cue (T, 5), w (T, B, 3), pins_up (T, P)).
    """
    from .constants import MAX_SPIN, MAX_V0

    pins = np.ones((T, len(table.pin_spots)), bool)
    xy = frozen_clusters(rng, table, params, T, B, pins)
    r = np.sqrt(rng.uniform(0, 1, T))
    ang = rng.uniform(0, 2 * np.pi, T)
    v0 = MAX_V0 * rng.uniform(0, 1, T) ** 0.5
    theta = np.where(rng.uniform(0, 1, T) < 0.5, rng.uniform(0, 89.0, T), rng.uniform(0, 10, T))
    cue = np.stack([v0, rng.uniform(-180, 180, T), theta, r * np.cos(ang), r * np.sin(ang)],
                   axis=1)
    cb = rng.integers(0, B, T)
    w = rng.normal(0, MAX_SPIN / 6, (T, B, 3))
    w *= np.minimum(1.0, MAX_SPIN / np.maximum(np.linalg.norm(w, axis=-1), 1e-300))[..., None]
    w[rng.uniform(0, 1, T) >= 0.25] = 0.0
    return {"xy": xy, "cue_ball": cb, "cue": cue, "w": w, "pins_up": pins}
