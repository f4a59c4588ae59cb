"""Physics benchmark: shots per second for keglebillard (3 balls + 5 pins) and golfbillard
(10 balls + 12 caps) at batch 1, 64 and 1024 on 1 and 2 threads.

    python experiments/bench_physics.py            # table
    python experiments/bench_physics.py --json     # JSON list of records
    python experiments/bench_physics.py --shots shots.json   # time a JSON shot list (1 thread)
    python experiments/bench_physics.py --extras   # also first-call time and memory per table
    python experiments/bench_physics.py --max-events 1000 --no-reuse   # fresh 1000-slot logs

Each record: {"game", "batch", "threads", "shots_per_s", "events_per_shot", "us_per_event"}.
Shots are drawn by cuegym.physics.scenarios (realistic random strikes, seed 0); a run of a
configuration repeats batches until at least --seconds of wall time and keeps the best of 3.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np

from cuegym.cli_errors import cli_main
from cuegym.configs import load_params, load_table
from cuegym.physics import Workspace, simulate
from cuegym.physics.scenarios import golfbillard_shots, keglebillard_shots


@dataclass
class Settings:
    """Benchmark settings (one line each)."""

    seconds: float = 0.5  # minimum wall time per measurement
    pool: int = 4096  # distinct random shots drawn per game
    seed: int = 0  # shot generator seed
    max_events: int = 400  # log size per table (random shots here use at most ~150 events)
    reuse: bool = True  # reuse log buffers between calls (physics.Workspace), as the envs do


def _shots(game: str, n: int, seed: int):
    rng = np.random.default_rng(seed)
    table, params = load_table(game), load_params(game)
    gen = keglebillard_shots if game == "keglebillard" else golfbillard_shots
    return table, params, gen(rng, table, params, n)


def measure(game: str, batch: int, threads: int, cfg: Settings) -> dict:
    table, params, s = _shots(game, cfg.pool, cfg.seed)
    pins = s.get("pins_up")
    starts = list(range(0, cfg.pool - batch + 1, batch))
    ws = Workspace() if cfg.reuse else None

    def run(i0):
        sl = slice(i0, i0 + batch)
        return simulate(table, params, s["xy"][sl], cue_ball=s["cue_ball"][sl], cue=s["cue"][sl],
                        pins_up=None if pins is None else pins[sl], threads=threads,
                        max_events=cfg.max_events, workspace=ws)

    run(0)  # compile / warm up
    best = None
    for _ in range(3):
        shots = events = 0
        k = 0
        t0 = time.perf_counter()
        while True:
            res = run(starts[k % len(starts)])
            k += 1
            shots += batch
            events += int(res.n_events.sum())
            el = time.perf_counter() - t0
            if el >= cfg.seconds:
                break
        rate = shots / el
        if best is None or rate > best["shots_per_s"]:
            best = {"game": game, "batch": batch, "threads": threads,
                    "shots_per_s": round(rate, 1),
                    "events_per_shot": round(events / shots, 2),
                    "us_per_event": round(el / events * 1e6, 3)}
    return best


def measure_file(path: str, cfg: Settings) -> dict:
    """Time the shots of a JSON shot list as one batch on one thread."""
    from cuegym.physics.jsonio import simulate_json

    with open(path) as fh:
        shots = json.load(fh)
    if isinstance(shots, dict):
        shots = [shots]
    simulate_json(shots)  # warm up
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            out = simulate_json(shots)
            el = time.perf_counter() - t0
            events = sum(o["n_events"] for o in out)
            rec = {"game": "file", "batch": len(shots), "threads": 1,
                   "shots_per_s": round(len(shots) / el, 1),
                   "events_per_shot": round(events / len(shots), 2),
                   "us_per_event": round(el / max(events, 1) * 1e6, 3)}
            if best is None or rec["shots_per_s"] > best["shots_per_s"]:
                best = rec
    finally:
        numba.set_num_threads(old)
    return best


def first_call_seconds() -> float:
    """Wall time of import + first simulate() in a fresh process (numba cache already warm)."""
    code = ("import time; t=time.perf_counter();"
            "from cuegym.configs import load_table, load_params;"
            "from cuegym.physics import Workspace, simulate;"
            "t_=load_table('keglebillard'); p=load_params('keglebillard');"
            "simulate(t_, p, [[[-0.8,0.1],[-0.525,0],[0.525,0]]], cue_ball=[0],"
            " cue=[[2.0,0.0,0.0,0.0,0.0]]);"
            "print(time.perf_counter()-t)")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)  # fill cache
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def memory_per_table(T: int = 4096, max_events: int = 256) -> float:
    """Bytes per table of a SimResult at batch T (arrays only) for the keglebillard layout."""
    table, params, s = _shots("keglebillard", T, 1)
    res = simulate(table, params, s["xy"], cue_ball=s["cue_ball"], cue=s["cue"],
                   pins_up=s["pins_up"], max_events=max_events)
    total = sum(v.nbytes for v in vars(res).values() if isinstance(v, np.ndarray))
    return total / T


@cli_main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print a JSON list of records")
    ap.add_argument("--shots", help="time the shots of this JSON shot-list file instead")
    ap.add_argument("--seconds", type=float, default=Settings.seconds)
    ap.add_argument("--extras", action="store_true", help="first-call time and memory per table")
    ap.add_argument("--games", default="keglebillard,golfbillard")
    ap.add_argument("--batches", default="1,64,1024")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--max-events", type=int, default=Settings.max_events)
    ap.add_argument("--no-reuse", action="store_true",
                    help="allocate fresh log buffers on every call")
    args = ap.parse_args(argv)
    cfg = Settings(seconds=args.seconds, max_events=args.max_events, reuse=not args.no_reuse)
    if args.shots:
        rec = measure_file(args.shots, cfg)
        print(json.dumps(rec) if args.json else rec)
        return 0
    recs = []
    for game in args.games.split(","):
        for batch in map(int, args.batches.split(",")):
            for threads in map(int, args.threads.split(",")):
                recs.append(measure(game, batch, threads, cfg))
                if not args.json:
                    r = recs[-1]
                    print(f"{r['game']:13s} batch {r['batch']:5d} threads {r['threads']}: "
                          f"{r['shots_per_s']:10.1f} shots/s  {r['events_per_shot']:6.2f} "
                          f"events/shot  {r['us_per_event']:7.3f} us/event", flush=True)
    if args.json:
        print(json.dumps(recs))
    else:
        by = {(r["game"], r["batch"], r["threads"]): r["shots_per_s"] for r in recs}
        for game in args.games.split(","):
            b = max(map(int, args.batches.split(",")))
            if (game, b, 1) in by and (game, b, 2) in by:
                print(f"{game}: 2 threads / 1 thread at batch {b} = "
                      f"{by[(game, b, 2)] / by[(game, b, 1)]:.2f}x")
    if args.extras:
        extras = {"first_call_s": round(first_call_seconds(), 3),
                  "bytes_per_table_b4096_k256": round(memory_per_table(), 0)}
        print(json.dumps(extras) if args.json else extras)
    return 0


if __name__ == "__main__":
    sys.exit(main())
