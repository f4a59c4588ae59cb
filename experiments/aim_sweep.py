"""Aim sweep: is the keglebillard aimer's aim off in a way a rule (or a network) could learn?

For every position of some geometric-vs-geometric games, the aimer's cheapest shot is played
with its aim turned by each of ``--n`` offsets in [-``--offset``, +``--offset``] degrees, every
offset under the same ``--draws`` draws of the tournament noise (common random numbers), and
valued as the planner values shots (``arena.values``: the shooter's points minus the skæve he
hands over, -2 for ball in hand). The mean value per offset is printed overall and by cut angle,
with the offsets signed by the side of the cut: positive turns the aim toward the white's centre
(a fuller hit), negative away from it (a thinner cut). Friction throw pushes the white toward
the red's line, so an aimer that ignored it would gain from a thinner cut: a systematic bias of
that kind shows as a peak away from 0.

    python experiments/aim_sweep.py --games 30 --draws 24

docs/agents.md ("Why the keglebillard network lags the planner") has the figures.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cuegym.agents import make_agent
from cuegym.agents.arena import make_arena
from cuegym.agents.base import Strikes, load_noise
from cuegym.agents.expert import collect_positions, mean_values
from cuegym.agents.geometric_kegle import kegle_candidates_batch

#: Cut-angle bins [deg] of the printed table.
CUT_BINS = ((0, 15), (15, 30), (30, 50), (50, 80))


def cut_sides(red: np.ndarray, white: np.ndarray, phi: np.ndarray, R: float) -> np.ndarray:
    """(T,) +1 / -1: the side to which the red, aimed at ``phi`` [deg] from ``red`` (T, 2) [m],
    cuts the white at ``white`` (T, 2) [m] (sign of the cross product of the red's direction
    and the white's line of centres at contact; balls of radius ``R`` [m]); 0 for a full hit or
    a miss."""
    u = np.stack([np.cos(np.radians(phi)), np.sin(np.radians(phi))], 1)
    d = white - red
    b = (d * u).sum(1)
    disc = b * b - ((d * d).sum(1) - (2.0 * R) ** 2)
    hit = disc >= 0.0
    ghost = red + (b - np.sqrt(np.where(hit, disc, 0.0)))[:, None] * u
    n = white - ghost
    return np.where(hit, np.sign(u[:, 0] * n[:, 1] - u[:, 1] * n[:, 0]), 0.0)


def sweep(games: int, draws: int, offset: float, n: int, seed: int, chunk: int = 64
          ) -> dict[str, np.ndarray]:
    """Mean values of the aimer's cheapest shot under aim offsets.

    Returns:
        ``offsets`` (n,) [deg], ``values`` (T, n) mean values, column j for the aim turned
        by ``offsets[j]`` toward the white's centre (negative: a thinner cut), ``cut`` (T,)
        [deg], ``aimed`` (T,) bool: the shot aims at a white for a target (not the aimer's
        fallback).
    """
    if games < 1 or draws < 1 or n < 2 or not offset > 0:
        raise ValueError(f"need games >= 1, draws >= 1, n >= 2, offset > 0; got {games}, "
                         f"{draws}, {n}, {offset}")
    arena = make_arena("keglebillard")
    geo = make_agent("geometric", "keglebillard")
    states, _, _ = collect_positions(arena, [geo, geo], games, seed=seed)
    T = len(states)
    c = kegle_candidates_batch(arena, states, spins=(-0.4,))
    rows = np.arange(T)
    best = np.argmin(c.cost, axis=1)
    cue, place = c.cue[rows, best], c.place[rows, best]
    white = c.white[rows, best]
    red = np.where(np.isnan(place).any(1)[:, None], states.xy[:, 0], place)
    side = cut_sides(red, states.xy[rows, np.maximum(white, 1)], cue[:, 1], float(arena.R))
    offsets = np.linspace(-offset, offset, n)
    strikes = Strikes(np.repeat(cue, n, 0), np.zeros(T * n, np.int64), np.repeat(place, n, 0))
    strikes.cue[:, 1] += np.tile(offsets, T)
    noise, rng = load_noise("tournament"), np.random.default_rng(seed)
    vals = np.concatenate([
        mean_values(arena, states.take(np.arange(a, min(a + chunk, T))),
                    strikes.take(np.arange(a * n, min(a + chunk, T) * n)), n, draws, noise, rng)
        for a in range(0, T, chunk)])
    signed = np.where(side[:, None] < 0, vals[:, ::-1], vals)  # offsets are symmetric
    aimed = (white > 0) & (c.label[rows, best] >= 0) & (side != 0)
    return {"offsets": offsets, "values": signed, "cut": c.cut[rows, best], "aimed": aimed}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=30, help="geometric-vs-geometric games whose "
                    "positions are swept")
    ap.add_argument("--draws", type=int, default=24, help="noise draws per offset")
    ap.add_argument("--offset", type=float, default=2.5, help="largest aim offset [deg]")
    ap.add_argument("--n", type=int, default=11, help="offsets in [-offset, offset]")
    ap.add_argument("--seed", type=int, default=123)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    r = sweep(args.games, args.draws, args.offset, args.n, args.seed)
    ok = r["aimed"]
    print(f"{ok.sum()} positions (of {len(ok)}) with an aimed cheapest shot, {args.draws} draws "
          f"per offset, {time.perf_counter() - t0:.0f} s")
    print("aim offset, + fuller / - thinner [deg]: " +
          " ".join(f"{x:+6.2f}" for x in r["offsets"]))
    bins = [("all", ok)] + [(f"cut {lo}-{hi} deg", ok & (r["cut"] >= lo) & (r["cut"] < hi))
                            for lo, hi in CUT_BINS]
    for label, m in bins:
        if m.any():
            v = r["values"][m].mean(0)
            print(f"{label:>16} n={m.sum():4d}: " + " ".join(f"{x:+6.2f}" for x in v)
                  + f"   best {r['offsets'][np.argmax(v)]:+.2f}")


if __name__ == "__main__":
    main()
