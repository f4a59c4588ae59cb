"""Tournament timing: seconds for a fixed-seed tournament between two agents, in-process and as
a whole ``cuegym evaluate`` process.

    python experiments/bench_tournament.py                      # golfbillard, geometric x 2
    python experiments/bench_tournament.py --game keglebillard --games 100 --repeat 3 --json
    python experiments/bench_tournament.py --cli                # also the whole process

``in_process_s``: wall seconds of :func:`cuegym.agents.play_games` (``--games`` games, seed
``--seed``, tournament noise, the evaluate defaults for ``max_shots``), after a two-game warm-up
that loads the compiled kernels; ``cpu_s`` its process CPU seconds (less sensitive to other
load on the machine); ``peak_rss_mb`` the process's peak resident memory after it [MiB] (one
record per process is exact; with ``--repeat`` the later ones repeat the peak). With
``--cli``: ``whole_process_s``, the wall seconds of ``python -m
cuegym.experiments.evaluate --game G --agents A,B --games N --seed S --quiet --json`` (imports,
kernel cache loads, the tournament, results and plot), its output written to a temporary
directory. Each record also gives the tournament's shots and wins (to check that two code
versions played the same games) and the 1-minute load average. Only the public agent API is
used, so the script times older checkouts too (``PYTHONPATH`` pointing at them).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cuegym.cli_errors import UsageError, cli_main, debug_mode, script_prog, seed_arg
from cuegym.experiments.evaluate import split_specs


def in_process(game: str, agents: list[str], games: int, seed: int) -> dict[str, Any]:
    """Time one tournament in this process (after a two-game warm-up)."""
    import numpy as np

    from cuegym.agents import make_agent, make_arena, play_games

    arena = make_arena(game)
    players = [make_agent(a, game, arena=arena) for a in agents]
    max_shots = 400 if game == "keglebillard" else 300  # the evaluate defaults
    play_games(arena, players, 2, seed=seed, max_shots=max_shots)
    t0, c0 = time.perf_counter(), time.process_time()
    res = play_games(arena, players, games, seed=seed, max_shots=max_shots)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"in_process_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "peak_rss_mb": round(peak_rss_mb()), "shots": int(res.n_shots.sum()),
            "wins": [int((res.winner == a).sum()) for a in range(2)],
            "unfinished": int((~np.asarray(res.finished)).sum())}


def peak_rss_mb() -> float:
    """The process's peak resident memory so far [MiB] (``ru_maxrss``: KiB on Linux, bytes on
    macOS)."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


#: what a model file's name ends in (SB3 models, expert, aim and leave networks)
MODEL_SUFFIXES = (".zip", ".pt")


def _absolute(text: str) -> str:
    """``text`` made absolute when it names a model file under the working directory."""
    p = Path(text).expanduser()
    if text.lower().endswith(MODEL_SUFFIXES) and not p.is_absolute() and p.is_file():
        return str(p.resolve())
    return text


def absolute_specs(agents: list[str]) -> list[str]:
    """The agent specs with the model files they name relative to the working directory (the
    part before ``:``, and option values such as ``aim=x.pt``) made absolute: the evaluate
    process runs in a temporary folder (so that it imports the cuegym of ``PYTHONPATH``, not
    one under the working directory). Other names are left for ``packaged_path`` to find."""
    out = []
    for spec in agents:
        name, sep, opts = spec.partition(":")
        if sep:
            pairs = (o.partition("=") for o in opts.split(","))
            opts = ",".join(k + eq + (_absolute(v) if eq else "") for k, eq, v in pairs)
        out.append(_absolute(name) + sep + opts)
    return out


def whole_process(game: str, agents: list[str], games: int, seed: int) -> float:
    """Wall seconds of one ``cuegym evaluate`` process; a :class:`UsageError` with the last
    line it wrote on stderr where it fails."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "cuegym.experiments.evaluate", "--game", game, "--agents",
               ",".join(absolute_specs(agents)), "--games", str(games), "--seed", str(seed),
               "--quiet", "--json", "--out", out]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              cwd=out)
        wall = round(time.perf_counter() - t0, 3)
    if proc.returncode == 0 or debug_mode():  # its warnings; or all of it (a traceback, say)
        sys.stderr.write(proc.stderr or "")
    if proc.returncode != 0:
        lines = (proc.stderr or "").strip().splitlines()
        last = lines[-1].removeprefix("error: ") if lines else "no message"
        raise UsageError(f"--cli: the evaluate process failed (exit status {proc.returncode}): "
                         f"{last}")
    return wall


@cli_main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                 description=__doc__.split("\n\n")[0])  # the whole sentence
    ap.add_argument("--game", choices=("keglebillard", "golfbillard"), default="golfbillard",
                    help="the game (default golfbillard)")
    ap.add_argument("--agents", default="geometric,geometric",
                    help="two agent specs (default geometric,geometric)")
    ap.add_argument("--games", type=int, default=100, help="games per measurement (default 100)")
    ap.add_argument("--seed", type=seed_arg, default=0, help="the games' seed (default 0)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="measurements (one record each; default 1)")
    ap.add_argument("--cli", action="store_true", help="also time the whole evaluate process")
    ap.add_argument("--json", action="store_true", help="print a JSON list of records")
    args = ap.parse_args(argv)
    agents = split_specs(args.agents)  # as evaluate: "pretrained:aim=x,leave=y" is one spec
    if len(agents) != 2:
        raise ValueError(f"--agents needs two agent specs, got {agents}")
    for name, v in (("--games", args.games), ("--repeat", args.repeat)):
        if v < 1:
            raise ValueError(f"{name} must be at least 1, got {v}")
    from cuegym.experiments.evaluate import MAX_GAMES

    if args.games > MAX_GAMES:  # evaluate's cap: a pair's games are played at once, in memory
        raise ValueError(f"--games must be at most {MAX_GAMES:,} (as evaluate's), got "
                         f"{args.games}")
    records = []
    for _ in range(args.repeat):
        rec = {"game": args.game, "agents": agents, "games": args.games, "seed": args.seed,
               **in_process(args.game, agents, args.games, args.seed)}
        if args.cli:
            rec["whole_process_s"] = whole_process(args.game, agents, args.games, args.seed)
        rec["load_1min"] = round(os.getloadavg()[0], 2)
        records.append(rec)
    if args.json:
        print(json.dumps(records))
        return 0
    for r in records:
        whole = f", whole process {r['whole_process_s']:.2f} s" if "whole_process_s" in r else ""
        # (the wins add up to the games only when every game was decided)
        rest = r["games"] - sum(r["wins"])
        undecided = (f" ({rest - r['unfinished']} drawn, {r['unfinished']} unfinished)"
                     if rest else "")
        print(f"{r['game']} {' vs '.join(r['agents'])}, {r['games']} games: in-process "
              f"{r['in_process_s']:.2f} s ({r['cpu_s']:.2f} s CPU, peak {r['peak_rss_mb']} MiB)"
              f"{whole}; {r['shots']} shots, "
              f"wins {r['wins'][0]}-{r['wins'][1]}{undecided}; load {r['load_1min']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
