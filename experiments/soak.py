"""Soak test: many random shots on both tables; every failure class must stay at zero.

    python experiments/soak.py --shots 1000000      # (not in CI; ~minutes on 2 cores)

Counts, per game: crashes (exceptions), overflows (max_events or t_max reached), NaN/inf in any
final state, overlaps of balls at rest, tunnelling (a ball at rest off the bed, inside a post or
a standing pin). Prints a JSON summary; exits 1 if any count is non-zero.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback

import numpy as np

from cuegym.configs import load_params, load_table
from cuegym.physics import simulate
from cuegym.physics.constants import POCKETED
from cuegym.physics.scenarios import golfbillard_shots, keglebillard_shots


def check(table, params, res) -> dict:
    R = params.R
    xy = res.rvw[:, :, 0, :2]
    on = res.motion != POCKETED
    finite = np.isfinite(res.rvw).all(axis=(1, 2, 3))
    B = xy.shape[1]
    d = np.linalg.norm(xy[:, :, None] - xy[:, None], axis=-1)
    iu = np.triu(np.ones((B, B), bool), 1)
    overlap = (on[:, :, None] & on[:, None, :] & iu & (d < 2 * R - 1e-6)).any(axis=(1, 2))
    outside = ((np.abs(xy[..., 0]) > table.length / 2 - R + 1e-6)
               | (np.abs(xy[..., 1]) > table.width / 2 - R + 1e-6))
    # where the cushions are cut for a pocket a ball may come to rest on the lip, past the
    # nose line but outside the capture circle; anywhere else outside means tunnelling
    lip = np.zeros_like(outside)
    for p in table.pockets:
        lip |= np.hypot(xy[..., 0] - p.x, xy[..., 1] - p.y) < p.radius + 2 * R
    off = on & outside & ~lip
    off |= on & ((np.abs(xy[..., 0]) > table.length / 2) | (np.abs(xy[..., 1]) > table.width / 2))
    for c in table.circles:
        off |= on & (np.hypot(xy[..., 0] - c.x, xy[..., 1] - c.y) < c.radius + R - 1e-6)
    for k, (px, py) in enumerate(table.pin_spots):
        near = np.hypot(xy[..., 0] - px, xy[..., 1] - py) < table.pin_radius + R - 1e-6
        off |= on & near & res.pins_up[:, k:k + 1]
    at_rest = on & (res.motion != 0)
    return {"overflow": int((res.overflow != 0).sum()), "nan": int((~finite).sum()),
            "overlap": int(overlap.sum()), "tunnelling": int(off.any(axis=1).sum()),
            "not_at_rest": int(at_rest.any(axis=1).sum())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shots", type=int, default=100_000, help="shots per game")
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-events", type=int, default=2000)
    args = ap.parse_args(argv)
    summary = {}
    bad_total = 0
    for game, gen in (("keglebillard", keglebillard_shots), ("golfbillard", golfbillard_shots)):
        table, params = load_table(game), load_params(game)
        rng = np.random.default_rng(args.seed)
        counts = {"shots": 0, "crashes": 0, "overflow": 0, "nan": 0, "overlap": 0,
                  "tunnelling": 0, "not_at_rest": 0, "events": 0}
        t0 = time.perf_counter()
        while counts["shots"] < args.shots:
            n = min(args.batch, args.shots - counts["shots"])
            s = gen(rng, table, params, n)
            try:
                res = simulate(table, params, s["xy"], cue_ball=s["cue_ball"], cue=s["cue"],
                               pins_up=s.get("pins_up"), max_events=args.max_events)
            except Exception:  # noqa: BLE001 - a soak test counts every crash
                traceback.print_exc()
                counts["crashes"] += n
                counts["shots"] += n
                continue
            for k, v in check(table, params, res).items():
                counts[k] += v
            counts["events"] += int(res.n_events.sum())
            counts["shots"] += n
        counts["seconds"] = round(time.perf_counter() - t0, 1)
        counts["events_per_shot"] = round(counts["events"] / max(counts["shots"], 1), 2)
        summary[game] = counts
        bad_total += sum(counts[k] for k in ("crashes", "overflow", "nan", "overlap",
                                             "tunnelling", "not_at_rest"))
        print(json.dumps({game: counts}), flush=True)
    print(json.dumps({"ok": bad_total == 0, **summary}))
    return 0 if bad_total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
