"""The main job on defaults (`make demo`).

For now (issue 2): simulate a break on each table, print a summary and write trajectory
plots under runs/demo/. Later issues turn this into train-and-evaluate.

    python experiments/demo.py [--out runs/demo]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from cuegym.configs import load_params, load_table
from cuegym.physics import simulate
from cuegym.physics.constants import EVENT_NAMES
from cuegym.physics.plot import plot_shot


def keglebillard_break():
    """K-3: whites on their spots, pins up, the red behind the salvo line, struck at the white on
    the far spot's side of the cross so it runs through the pins."""
    table, params = load_table("keglebillard"), load_params("keglebillard")
    spots = table.spots["white"]
    red = [table.spots["salvo_line_x"] - 0.25, 0.12]
    xy = np.array([[red, spots[0], spots[1]]])
    aim = np.array(spots[0]) + [-0.0, -0.02]
    phi = np.degrees(np.arctan2(aim[1] - red[1], aim[0] - red[0]))
    res = simulate(table, params, xy, cue_ball=[0], cue=[[3.2, phi, 2.0, 0.0, 0.25]])
    return table, res


def golfbillard_opening():
    """G-3: all balls on their start spots; both middle balls struck at t = 0, softly off
    their left long cushion."""
    table, params = load_table("golfbillard"), load_params("golfbillard")
    sx = table.spots["start_x"]
    ys = table.spots["start_y"]
    xy = np.array([[[-sx, y] for y in ys] + [[sx, -y] for y in ys]])
    cue = [[[1.8, 33.0, 0.0, 0.0, 0.2], [1.8, -147.0, 0.0, 0.0, 0.2]]]
    res = simulate(table, params, xy, cue_ball=[[0, 5]], cue=cue)
    return table, res


def summarise(name: str, table, res) -> dict:
    ids = list(table.ball_ids)
    counts: dict[str, int] = {}
    for k in range(int(res.n_events[0])):
        nm = EVENT_NAMES[res.ev_type[0, k]]
        counts[nm] = counts.get(nm, 0) + 1
    out = {"table": name, "events": int(res.n_events[0]),
           "duration_s": round(float(res.t_end[0]), 3),
           "event_counts": counts,
           "pocketed": [ids[b] for b in range(len(ids)) if res.motion[0, b] == 4],
           "pins_down": [table.pin_ids[k] for k in range(len(table.pin_ids))
                         if not res.pins_up[0, k]]}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="runs/demo")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    summaries = []
    for name, fn in (("keglebillard", keglebillard_break), ("golfbillard", golfbillard_opening)):
        table, res = fn()
        s = summarise(name, table, res)
        summaries.append(s)
        fig = plot_shot(res, 0, title=f"{name}: {s['events']} events, {s['duration_s']} s")
        path = out / f"{name}_break.png"
        fig.savefig(path, dpi=110)
        s["plot"] = str(path)
        print(json.dumps(s))
    print(f"wrote {len(summaries)} plots to {out}/ in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
