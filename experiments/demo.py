"""The main job on defaults (`make demo`): physics, a short training run, a tournament.

Everything is written under ``--out`` (default ``runs/demo`` of the working directory; ``make
demo``: the checkout's).

1. Simulates a break on each table and writes trajectory plots (runs/demo/*_break.png).
2. Trains DQN on cuegym/KeglebillardShot-v0 for a few minutes (experiments/train.py with
   configs/train/keglebillard_dqn.yaml, the shipped agent's recipe, shortened: 8,192 positions
   instead of 131,072), writing runs/demo/demo_keglebillard/ (model, SB3's CSV and TensorBoard
   logs, learning_curve.png; an earlier demo's run there is replaced); progress bars for the
   positions, the demonstrations and the learning.
3. Plays a keglebillard tournament of the fresh model against the geometric and random
   baselines (experiments/evaluate.py, a progress bar per pair), printing the table and
   writing tournament.png.

    python experiments/demo.py         # about 3.5 minutes on 2 cores (3.3 min measured)
    python experiments/demo.py --games 6 --skip-train              # physics + baselines only
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from cuegym.cli_errors import check_writable_dir, cli_main, script_prog, seed_arg
from cuegym.configs import load_params, load_table
from cuegym.experiments.rules_walkthrough import save_png
from cuegym.experiments.train_config import SB3_SEED_MAX, refuse_empty
from cuegym.physics import simulate
from cuegym.physics.constants import EVENT_NAMES
from cuegym.physics.plot import plot_shot
from cuegym.rules.golfbillard import golf_geometry

ROOT = Path(__file__).resolve().parents[1]


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
    xy = golf_geometry().start[None]  # the rules' start spots and ball order (w1..r5)
    cue = [[[1.8, 33.0, 0.0, 0.0, 0.2], [1.8, -147.0, 0.0, 0.0, 0.2]]]
    res = simulate(table, params, xy, cue_ball=[[0, 5]], cue=cue)
    return table, res


def summarise(name: str, table, res) -> dict:
    ids = list(table.ball_ids)
    counts: dict[str, int] = {}
    for k in range(int(res.n_events[0])):
        nm = EVENT_NAMES[res.ev_type[0, k]]
        counts[nm] = counts.get(nm, 0) + 1
    return {"table": name, "events": int(res.n_events[0]),
            "duration_s": round(float(res.t_end[0]), 3), "event_counts": counts,
            "pocketed": [ids[b] for b in range(len(ids)) if res.motion[0, b] == 4],
            "pins_down": [table.pin_ids[k] for k in range(len(table.pin_ids))
                          if not res.pins_up[0, k]]}


def physics_part(out: Path) -> None:
    for name, fn in (("keglebillard", keglebillard_break), ("golfbillard", golfbillard_opening)):
        table, res = fn()
        s = summarise(name, table, res)
        fig = plot_shot(res, 0, title=f"{name}: {s['events']} events, {s['duration_s']} s")
        path = out / f"{name}_break.png"
        save_png(fig, path, dpi=110)  # under a temporary name, then renamed
        s["plot"] = str(path)
        print(json.dumps(s), flush=True)


def run(cmd: list[str]) -> None:
    print("$ " + " ".join(cmd), flush=True)
    child = subprocess.Popen(cmd)  # in the working directory, like every command
    try:
        code = child.wait()
    except KeyboardInterrupt:
        # Ctrl-C reached the child too (one process group): let it finish its own handling
        # (train.py saves a last checkpoint), where subprocess.run killed it after 0.25 s
        child.wait()
        raise
    if code:  # the step has said why on stderr; its status is the demo's
        raise SystemExit(code)


@cli_main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="runs/demo",
                    help="output folder of the plots, the training run (demo_keglebillard/, "
                    "replaced) and the tournament, relative to the working directory (default "
                    "runs/demo)")
    ap.add_argument("--minutes", type=float, default=None,
                    help="wall-clock minutes after which the training process stops "
                    "learning, counted from its start: its setup (positions, demonstrations: "
                    "under a minute with numba's cache warm, about 3 cold) counts against them "
                    "and is not cut short (default 3)")
    ap.add_argument("--timesteps", type=int, default=None,
                    help="training steps at most (default 200000)")
    ap.add_argument("--games", type=int, default=20,
                    help="tournament games per pair (default 20)")
    ap.add_argument("--skip-train", action="store_true", help="evaluate the baselines only")
    ap.add_argument("--seed", type=seed_arg, default=0,
                    help="seed of the training and the tournament (default 0)")
    args = ap.parse_args(argv)
    if args.skip_train and (args.minutes is not None or args.timesteps is not None):
        ap.error("--minutes and --timesteps set the training, which --skip-train skips")
    args.minutes = 3.0 if args.minutes is None else args.minutes
    args.timesteps = 200_000 if args.timesteps is None else args.timesteps
    if not (np.isfinite(args.minutes) and args.minutes > 0):
        ap.error(f"--minutes must be a finite number > 0, got {args.minutes}")
    from cuegym.experiments.evaluate import MAX_GAMES  # the tournament's limit, before training

    for opt, v, lo in (("--timesteps", args.timesteps, 1), ("--games", args.games, 1)):
        if v < lo:
            ap.error(f"{opt} must be >= {lo}, got {v}")
    if args.games > MAX_GAMES:
        ap.error(f"--games must be <= {MAX_GAMES} (the tournament's limit per pair), got "
                 f"{args.games}")
    refuse_empty(ap, ("--out", args.out), folders=("--out",))  # '' is the working directory
    if not args.skip_train and args.seed > SB3_SEED_MAX:  # train.py's bound, before the physics
        ap.error(f"--seed must be <= {SB3_SEED_MAX} (2**32 - 1: the training's SB3 seeds numpy "
                 f"with it), got {args.seed}")
    out = Path(args.out)
    check_writable_dir(out, "--out")  # a file there: named, not a bare "File exists"
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    print("== 1. physics: a break on each table (the first call compiles the kernels)",
          flush=True)
    physics_part(out)
    py = sys.executable
    agents = ["geometric", "random"]
    if not (ROOT / "experiments" / "evaluate.py").exists():
        print("training and evaluation scripts are not installed in this checkout; done")
        return 0
    if not args.skip_train:
        print(f"== 2. training DQN on cuegym/KeglebillardShot-v0 for up to {args.minutes} min",
              flush=True)
        name = "demo_keglebillard"  # (not train.py's keglebillard_dqn: --out runs would replace it)
        run([py, str(ROOT / "experiments" / "train.py"), "--config",
             "configs/train/keglebillard_dqn.yaml", "--runs-dir", str(out),
             "--name", name, "--timesteps", str(args.timesteps), "--seed", str(args.seed),
             "--overwrite", "--set", f"time_limit_min={args.minutes}",
             "train_positions={generate: keglebillard-play, n: 8192, seed: 1}",
             "demos={states: 8192, noise_samples: 4, q_steps: 3000, q_lr: 0.001, "
             "buffer_per_state: 2}",
             "eval_freq=20000", "eval_episodes=512", "checkpoint_freq=100000"])
        model = out / name / "best_model.zip"  # train.py writes <runs-dir>/<name>/
        if not model.exists():
            model = out / name / "model.zip"
        agents = [str(model)] + agents
        print(f"learning curve: {out / name / 'learning_curve.png'}", flush=True)
    print("== 3. tournament (keglebillard, tournament shot noise)", flush=True)
    run([py, str(ROOT / "experiments" / "evaluate.py"), "--game", "keglebillard", "--agents",
         ",".join(agents),
         "--games", str(args.games), "--seed", str(args.seed), "--out", str(out / "eval")])
    print(f"plots in {args.out}/ (breaks, eval/tournament.png); done in "
          f"{(time.perf_counter() - t0) / 60:.1f} min", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
