"""The shots of the pooltool cross-check (``validate_pooltool.py``) on shipped tables, and the
setup all its shots share.

``make_table_shots`` draws random shots on a shipped table (``--table keglebillard`` or
``golfbillard``); ``pt_shot`` turns any shot into the pooltool runner's input, giving a table
with pockets as cuegym's own segments (``geometry_of``: ``TableSpec.arrays``). The shared setup
(ball, parameters, models, event cap) and the random aim and tip offsets are here too, as the
rectangle's shots in ``validate_pooltool.py`` use them as well.

Method and results: docs/validation.md.
"""

from __future__ import annotations

import functools
import math

import numpy as np

# --- the shared setup (docs/physics.md section 0, keglebillard balls) -------------------------
R = 0.03075
PARAMS = {
    "R": R,
    "m": 0.207,
    "u_s": 0.2,
    "u_r": 0.01,
    "u_sp": 10 * 2 / 5 / 9 * R,  # pooltool: u_sp = k_sp R with k_sp = 0.4444 1/m
    "e_b": 0.95,
    "e_c": 0.85,
    "f_c": 0.2,
    "g": 9.81,
    "M": 0.567,  # cue mass (strike model): pooltool's CueSpecs.M default
    "e_cap": 0.85,  # pooltool resolves posts with the ball's e_c, f_c: cuegym's e_cap, f_cap
    "f_cap": 0.2,  # must equal them here
}
MODELS = {"ball_ball": "frictional_inelastic", "cushion": "han_2005", "squirt": False}
MAX_EVENTS = 5000
#: --table choices: the pocketless rectangle of the original method, or a shipped table
TABLES = ("rectangle", "keglebillard", "golfbillard", "keglebillard-helmatch")
#: pooltool resolves a jaw (circular cushion) with the ball's e_c and f_c: cuegym's e_jaw and
#: f_jaw are set equal to them on the pocketed tables
JAW_PARAMS = {"e_jaw": PARAMS["e_c"], "f_jaw": PARAMS["f_c"]}


# --- random aims and offsets ------------------------------------------------------------------


def random_phi(rng, centre: float | None = None, spread: float = 0.0):
    """Aim in [0, 360) (or within ``spread`` degrees of ``centre``), never within 0.01 deg of
    an axis (docs/physics.md section 6: pooltool's quartic solver returns t = 0 for two balls
    rolling in bitwise-identical directions)."""
    while True:
        phi = (rng.uniform(0.0, 360.0) if centre is None
               else (centre + rng.uniform(-spread, spread)) % 360.0)
        if abs(phi / 90.0 - round(phi / 90.0)) * 90.0 > 0.01:
            return float(phi)


def random_ab(rng, r2max: float) -> tuple[float, float]:
    """Tip offsets (a, b) uniform in the disc a^2 + b^2 <= ``r2max``."""
    while True:
        a, b = rng.uniform(-1, 1, 2) * math.sqrt(r2max)
        if a * a + b * b <= r2max:
            return float(a), float(b)


# --- shots on a shipped table -----------------------------------------------------------------


@functools.cache
def _table_and_params(name: str):
    """The shipped table ``name`` and the parameters of its shots (PARAMS and JAW_PARAMS
    over the game's own)."""
    from cuegym.configs import load_params, load_table

    table = load_table(name)
    return table, load_params(table.game, **PARAMS, **JAW_PARAMS)


def table_geometry(name: str) -> dict:
    """The segments cuegym's kernels get for the shipped table ``name`` (``TableSpec.arrays``
    with the shots' parameters), in the runner's ``geometry`` format."""
    return geometry_of(*_table_and_params(name))


def geometry_of(table, params) -> dict:
    """The runner's ``geometry`` of a cuegym ``TableSpec`` under ``PhysicsParams`` ``params``:
    exactly the arrays cuegym's kernels get (``TableSpec.arrays``)."""
    from cuegym.configs import CIRCLE_JAW

    arrs = table.arrays(params)
    circles = [{"x": c[0], "y": c[1], "radius": c[2], "e": c[3], "f": c[4], "h": c[5],
                "kind": "jaw" if k == CIRCLE_JAW else "post"}
               for c, k in zip(arrs["circles"].tolist(), arrs["circle_kind"].tolist(),
                               strict=True)]
    pockets = [{"x": p.x, "y": p.y, "radius": p.radius, "name": p.name or f"pocket{k}"}
               for k, p in enumerate(table.pockets)]
    return {"length": table.length, "width": table.width,
            "cushion_height": table.cushion_height, "lines": arrs["lines"].tolist(),
            "circles": circles, "pockets": pockets}


def pt_shot(shot: dict) -> dict:
    """The runner's input for a shot: a shot on a shipped table, or on a custom table with
    pockets, carries its segments (``geometry``); a pocketless custom table is passed as it is
    (the runner builds that rectangle itself, as the cached rectangle runs were made)."""
    spec = shot["table"]
    if isinstance(spec, str):
        return dict(shot, geometry=table_geometry(spec))
    if spec.get("pockets"):
        from cuegym.configs import load_params
        from cuegym.physics.jsonparse import json_custom_table

        table = json_custom_table("table", spec)  # the table simulate_json builds
        params = load_params("keglebillard", **shot.get("params", {}))
        return dict(shot, geometry=geometry_of(table, params))
    return shot


def _random_table_positions(rng, n, geom, gap=0.002):
    """n ball centres on a shipped table: inside the cushion rectangle, at least ``gap`` off
    every other ball, jaw and post, and off every pocket's capture circle."""
    lo_x, lo_y = geom["length"] / 2 - R - gap, geom["width"] / 2 - R - gap
    pts = []
    while len(pts) < n:
        p = np.array([rng.uniform(-lo_x, lo_x), rng.uniform(-lo_y, lo_y)])
        if (all(np.hypot(*(p - q)) >= 2 * R + gap for q in pts)
                and all(np.hypot(p[0] - c["x"], p[1] - c["y"]) >= R + c["radius"] + gap
                        for c in geom["circles"])
                and all(np.hypot(p[0] - c["x"], p[1] - c["y"]) >= c["radius"] + gap
                        for c in geom["pockets"])):
            pts.append(p)
    return pts


def make_table_shots(n: int, seed: int, name: str, aim_share: float = 0.5) -> list[dict]:
    """n random shots on the shipped table ``name``: 2 to all of its balls (keglebillard 3,
    golfbillard 10) at random legal spots, no pins, the first ball struck as in
    :func:`make_shots`, but in a share ``aim_share`` of the shots aimed at a random pocket
    (within 3 degrees of its centre) so that pockets and jaws are met often."""
    table, _ = _table_and_params(name)
    geom = table_geometry(name)
    rng = np.random.default_rng([seed, 3, TABLES.index(name)])
    ids = table.ball_ids
    shots = []
    for _ in range(n):
        n_balls = int(rng.integers(2, len(ids) + 1))
        pts = _random_table_positions(rng, n_balls, geom)
        a, b = random_ab(rng, 0.5)
        V0 = float(rng.uniform(0.5, 6.0))
        if rng.random() < aim_share:
            pk = geom["pockets"][int(rng.integers(len(geom["pockets"])))]
            to = math.degrees(math.atan2(pk["y"] - pts[0][1], pk["x"] - pts[0][0]))
            phi = random_phi(rng, centre=to % 360.0, spread=3.0)
        else:
            phi = random_phi(rng)
        shot = {
            "table": name,
            "params": dict(PARAMS, **JAW_PARAMS),
            "models": dict(MODELS),
            "balls": {ids[i]: {"x": float(p[0]), "y": float(p[1])} for i, p in enumerate(pts)},
            "strike": {"ball": ids[0], "V0": V0, "phi": phi,
                       "theta": float(rng.uniform(0.0, 10.0)), "a": a, "b": b},
            "max_events": MAX_EVENTS,
            "t_max": 120.0,
        }
        if table.pin_spots:
            shot["pins"] = False
        shots.append(shot)
    return shots
