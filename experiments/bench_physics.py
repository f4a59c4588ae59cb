"""Physics benchmark: shots per second for keglebillard (3 balls + 5 pins) and golfbillard
(10 balls + 12 caps) at batch 1, 64 and 1024 on 1 and 2 threads.

    python experiments/bench_physics.py            # table
    python experiments/bench_physics.py --json     # JSON list of records
    python experiments/bench_physics.py --shots    # JSON path vs array API, 256 2-6 ball shots
    python experiments/bench_physics.py --shots shots.json   # ... on the shots of a file
    python experiments/bench_physics.py --extras   # also first-call time and memory per table
    python experiments/bench_physics.py --json --extras   # {"records": [...], "extras": {...}}
    python experiments/bench_physics.py --per-event [--against cuegym_old]   # us/event by balls
    python experiments/bench_physics.py --per-call [--against cuegym_old]    # us/call by batch
    python experiments/bench_physics.py --max-events 1000 --no-reuse   # fresh 1000-slot logs
    python experiments/bench_physics.py --pooltool [PYTHON]   # pooltool 0.6 side by side

Each record: {"game", "batch", "threads", "shots_per_s", "events_per_shot", "us_per_event"}.
Shots are drawn by cuegym.physics.scenarios (realistic random strikes, seed 0), simulated with
the games' models (``GAME_MODELS``, as the envs play them); a run of a configuration repeats
batches until at least --seconds of wall time and keeps the best of 3.

``--pooltool`` times pooltool 0.6 (in its own environment, ``.venv-pooltool/``) and cuegym on the
same shots, side by side: the table benchmark's shots with the pins down (pooltool has none) and
the pooltool cross-check's parameters and models (experiments/pooltool_tables.py), pooltool one
shot at a time on one core, cuegym at batch 1024 on one thread (the target's configuration).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np

from cuegym.cli_errors import UsageError, cli_main, script_prog, unknown
from cuegym.configs import load_params, load_table
from cuegym.experiments.validate_pooltool import PT_PYTHON
from cuegym.physics import GAME_MODELS, Workspace, simulate
from cuegym.physics.constants import MAX_EVENTS
from cuegym.physics.scenarios import golfbillard_shots, json_shots, keglebillard_shots


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
        # the games' models (GAME_MODELS: the bounded touching rule), as the envs play them
        return simulate(table, params, s["xy"][sl], cue_ball=s["cue_ball"][sl], cue=s["cue"][sl],
                        pins_up=None if pins is None else pins[sl], threads=threads,
                        max_events=cfg.max_events, workspace=ws, models=GAME_MODELS)

    run(0)  # compile / warm up
    best = None
    for _ in range(3):
        shots = events = cut = 0
        k = 0
        t0 = time.perf_counter()
        while True:
            res = run(starts[k % len(starts)])
            k += 1
            shots += batch
            events += int(res.n_events.sum())
            cut += int((res.overflow != 0).sum())  # cut off by max_events: not whole shots
            el = time.perf_counter() - t0
            if el >= cfg.seconds:
                break
        rate = shots / el
        if best is None or rate > best["shots_per_s"]:
            best = {"game": game, "batch": batch, "threads": threads,
                    "shots_per_s": round(rate, 1),
                    "events_per_shot": round(events / shots, 2),
                    "us_per_event": round(el / events * 1e6, 3), "cut_off_shots": cut}
    return best


def _best_rate(fn, n_shots: int, seconds: float, clock=time.perf_counter) -> float:
    """Shots per second of ``fn`` (simulating ``n_shots``): calls repeated for at least
    ``seconds`` of ``clock`` (``time.process_time`` counts only this process's CPU time, the
    fairer clock for one-thread comparisons on a machine shared with other jobs)."""
    k = 0
    t0 = clock()
    while True:
        fn()
        k += 1
        el = clock() - t0
        if el >= seconds:
            return k * n_shots / el


def measure_json(shots: list[dict], cfg: Settings, rounds: int = 3) -> dict:
    """The JSON path against the array API on the same shots, side by side on one thread
    (process CPU time).

    ``json`` times :func:`simulate_json` (shot objects in, result objects out), ``json_text``
    adds ``json.loads`` of the input and ``json.dumps`` of the output (the command line minus
    process start), ``array`` times :func:`simulate` on the arrays the JSON path builds (built
    beforehand, log buffers reused as the envs do). Rounds alternate the three; each keeps
    its best round. ``ratio`` = json / array.
    """
    import numba

    from cuegym.physics.jsonio import simulate_json
    from cuegym.physics.jsonparse import plan

    text = json.dumps(shots)
    chunks = [kw for _, kw in plan(shots)]
    ws = Workspace()
    fns = {"array": lambda: [simulate(**kw, workspace=ws) for kw in chunks],
           "json": lambda: simulate_json(shots),
           "json_text": lambda: json.dumps(simulate_json(json.loads(text)))}
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        for fn in fns.values():
            fn()  # compile / warm up
        best = dict.fromkeys(fns, 0.0)
        for _ in range(rounds):
            for name, fn in fns.items():
                best[name] = max(best[name], _best_rate(fn, len(shots), cfg.seconds,
                                                        time.process_time))
    finally:
        numba.set_num_threads(old)
    events = sum(o["n_events"] for o in simulate_json(shots))
    return {"shots": len(shots), "events_per_shot": round(events / len(shots), 2),
            **{f"{k}_shots_per_s": round(v, 1) for k, v in best.items()},
            "ratio": round(best["json"] / best["array"], 3),
            "ratio_text": round(best["json_text"] / best["array"], 3)}


def _ball_shots(cfg_mod, scen_mod, B: int, n: int, seed: int, slots: int | None = None):
    """n golfbillard-table shots with B balls at random places, ball 0 struck (0.3-4 m/s), in
    ``slots`` >= B ball slots (the rest absent). Drawn with the given configs/scenarios modules
    so that a side-by-side comparison feeds both engines the same arrays."""
    rng = np.random.default_rng(seed)
    table, params = cfg_mod.load_table("golfbillard"), cfg_mod.load_params("golfbillard")
    xy = scen_mod.random_positions(rng, table, params, n, B)
    cue = scen_mod.random_strikes(rng, n, v_range=(0.3, 4.0))
    slots = slots or B
    full = np.zeros((n, slots, 2))
    full[:, :B] = xy
    # absent slots parked at distinct places (never simulated, never validated)
    full[:, B:, 0] = np.linspace(-0.5, 0.5, slots - B)[None, :] if slots > B else 0.0
    present = np.zeros((n, slots), bool)
    present[:, :B] = True
    return table, params, full, cue, present


def measure_per_event(balls: list[int], cfg: Settings, against: str | None = None,
                      n: int = 512, rounds: int = 7) -> list[dict]:
    """Microseconds of process CPU time per event on one thread for shots of B balls
    (golfbillard table), and with ``against`` (a package name: a copy of an older cuegym) the
    same shots through its engine, rounds alternating between the two; each keeps its best
    round. Also B = 3 in 10 slots (7 absent balls padded), reported as "3/10"."""
    import numba

    mods = _engines(against)
    cases = [(b, None) for b in balls] + [(3, 10)]
    old_threads = numba.get_num_threads()
    numba.set_num_threads(1)
    out = []
    try:
        for B, slots in cases:
            runs = {}
            for name, (cfg_mod, phys, scen) in mods.items():
                table, params, xy, cue, present = _ball_shots(cfg_mod, scen, B, n, cfg.seed,
                                                              slots)
                ws = phys.Workspace()

                def run(phys=phys, table=table, params=params, xy=xy, cue=cue, present=present,
                        ws=ws):
                    return phys.simulate(table, params, xy, cue_ball=np.zeros(n, np.int64),
                                         cue=cue, present=present, max_events=2000,
                                         threads=1, workspace=ws)

                res = run()
                runs[name] = (run, int(res.n_events.sum()), res)
            if "old" in runs:  # the comparison is only meaningful on identical results
                a, b = runs["new"][2], runs["old"][2]
                same = (np.array_equal(a.n_events, b.n_events) and np.array_equal(a.rvw, b.rvw)
                        and all(np.array_equal(a.ev_state[t, :a.n_events[t]],
                                               b.ev_state[t, :a.n_events[t]]) for t in range(n)))
            best = dict.fromkeys(runs, 0.0)
            for _ in range(rounds):
                for name, (run, ev, _) in runs.items():
                    best[name] = max(best[name], _best_rate(run, ev, cfg.seconds,
                                                            time.process_time))
            rec = {"balls": f"{B}/{slots}" if slots else B,
                   "events_per_shot": round(runs["new"][1] / n, 2),
                   "us_per_event": round(1e6 / best["new"], 3)}
            if "old" in runs:
                rec.update(us_per_event_old=round(1e6 / best["old"], 3),
                           speedup=round(best["new"] / best["old"], 2), identical=bool(same))
            out.append(rec)
    finally:
        numba.set_num_threads(old_threads)
    return out


def _engines(against: str | None) -> dict:
    """{"new": (configs, physics, scenarios) modules} and, with ``against`` (a package name: a
    copy of an older cuegym), the same modules of that package as "old"."""
    import importlib

    engines = {"new": ("cuegym.configs", "cuegym.physics", "cuegym.physics.scenarios")}
    if against:
        engines["old"] = (f"{against}.configs", f"{against}.physics",
                          f"{against}.physics.scenarios")
    return {k: tuple(importlib.import_module(m) for m in v) for k, v in engines.items()}


def measure_per_call(batches: list[int], cfg: Settings, against: str | None = None,
                     rounds: int = 7) -> list[dict]:
    """Microseconds of process CPU time per ``simulate`` call on one thread, T tables of one
    short keglebillard shot each (the red into the white, 3 balls, pins standing): what the
    Python side (input checks, buffers, results) costs around the kernel, which an env's step
    pays once per batch. With ``against`` the older package's calls alternate with these, on
    the same arrays, and each keeps its best round."""
    import numba

    mods = _engines(against)
    old_threads = numba.get_num_threads()
    numba.set_num_threads(1)
    out = []
    try:
        for T in batches:
            rng = np.random.default_rng(cfg.seed)
            xy = np.tile([[-0.8, 0.2], [-0.525, 0.0], [0.525, 0.0]], (T, 1, 1))
            cue = np.tile([2.0, 0.0, 0.0, 0.0, 0.0], (T, 1))
            cue[:, 1] = rng.uniform(-20.0, 20.0, T)
            cb = np.zeros(T, np.int64)
            runs = {}
            for name, (cfg_mod, phys, _) in mods.items():
                table, params = cfg_mod.load_table("keglebillard"), cfg_mod.load_params(
                    "keglebillard")
                ws = phys.Workspace()

                def run(phys=phys, table=table, params=params, ws=ws, xy=xy, cb=cb, cue=cue):
                    return phys.simulate(table, params, xy, cue_ball=cb, cue=cue, threads=1,
                                         workspace=ws)

                run()
                runs[name] = run
            best = dict.fromkeys(runs, 0.0)
            for _ in range(rounds):
                for name, run in runs.items():
                    best[name] = max(best[name], _best_rate(run, 1, cfg.seconds,
                                                            time.process_time))
            rec = {"tables": T, "us_per_call": round(1e6 / best["new"], 1)}
            if "old" in runs:
                rec.update(us_per_call_old=round(1e6 / best["old"], 1),
                           speedup=round(best["new"] / best["old"], 2))
            out.append(rec)
    finally:
        numba.set_num_threads(old_threads)
    return out


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


#: pooltool's shots per second the design quotes (README, "Performance"):
#: 85 on a 3-ball shot, about 15 on a 10-ball shot; quoted, not measured here
DESIGN_POOLTOOL_RATE = {"keglebillard": 85.0, "golfbillard": 15.0}
#: the --pooltool comparison's defaults: shots per table, timed pooltool passes (best kept),
#: cuegym's batch (the target's configuration: batch 1024 on one thread)
PT_SHOTS, PT_ROUNDS, PT_BATCH = 200, 2, 1024


def pooltool_shots(game: str, n: int, seed: int, max_events: int) -> tuple[dict, list[dict]]:
    """The first ``n`` shots of the table benchmark's ``game`` (:func:`_shots`, ``seed``) as
    both engines can play them: pins down (pooltool has none), the pooltool cross-check's
    parameters and models (jaws and caps with the balls' e_c, f_c, as pooltool resolves
    them). Returns cuegym's ``simulate`` arguments (table, params, xy (n, B, 2), cue_ball (n,),
    cue (n, 5), pins_up (n, P) or None) and the same shots as pooltool_runner's input."""
    from cuegym.experiments.pooltool_tables import JAW_PARAMS, MODELS, PARAMS, pt_shot
    from cuegym.experiments.pooltool_tables import _table_and_params as table_and_params

    _, _, s = _shots(game, n, seed)
    table, params = table_and_params(game)
    P = len(table.pin_spots)
    kw = {"table": table, "params": params, "xy": s["xy"], "cue_ball": s["cue_ball"],
          "cue": s["cue"], "pins_up": np.zeros((n, P), bool) if P else None}
    ids = table.ball_ids
    shots = []
    for t in range(n):
        v0, phi, theta, a, b = (float(c) for c in s["cue"][t])
        shots.append(pt_shot({
            "table": game, "params": dict(PARAMS, **JAW_PARAMS), "models": dict(MODELS),
            "balls": {bid: {"x": float(x), "y": float(y)} for bid, (x, y) in zip(
                ids, s["xy"][t].tolist(), strict=True)},
            "strike": {"ball": ids[int(s["cue_ball"][t])], "V0": v0, "phi": phi,
                       "theta": theta, "a": a, "b": b},
            "max_events": max_events}))
    return kw, shots


def pooltool_seconds(python: str, shots: list[dict], rounds: int = PT_ROUNDS) -> dict:
    """pooltool_runner's ``--time``: {"shots", "cpu_s": [..], "wall_s": [..],
    "events_per_shot"}, seconds per pass over ``shots`` in pooltool's own process (one numba
    thread), each shot's System built, after an untimed pass (numba's first calls)."""
    from cuegym.experiments.validate_pooltool import call_runner

    try:
        return call_runner(shots, ["--time", str(rounds)], python, {"NUMBA_NUM_THREADS": "1"})
    except RuntimeError as exc:
        tail = " ".join(str(exc).strip().splitlines()[-3:])
        raise UsageError(f"--pooltool {python}: pooltool_runner failed: {tail}") from None


def measure_pooltool(game: str, n: int, python: str, cfg: Settings) -> dict:
    """pooltool and cuegym on the same ``n`` shots of ``game`` (:func:`pooltool_shots`),
    side by side: shots per second of process CPU time, pooltool one shot at a time (best of
    its passes), cuegym at batch :data:`PT_BATCH` on one thread (the shots repeated to fill
    whole batches, log buffers reused; best of 3 rounds). ``ratio`` = cuegym / pooltool;
    ``ratio_vs_design`` = cuegym / the design's quoted pooltool figure (not measured);
    ``max_final_diff_m`` [m] the largest distance between where a ball ends in the two."""
    import numba

    kw, shots = pooltool_shots(game, n, cfg.seed, cfg.max_events)
    pt_run = pooltool_seconds(python, shots)
    rows = np.arange(-(-n // PT_BATCH) * PT_BATCH) % n  # the n shots, whole batches
    calls = [rows[i:i + PT_BATCH] for i in range(0, len(rows), PT_BATCH)]
    ws = Workspace()

    def run(r):
        return simulate(kw["table"], kw["params"], kw["xy"][r], cue_ball=kw["cue_ball"][r],
                        cue=kw["cue"][r], pins_up=None if kw["pins_up"] is None
                        else kw["pins_up"][r], threads=1, max_events=cfg.max_events,
                        workspace=ws, models=GAME_MODELS)

    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        res = run(np.arange(n))  # compile / warm up; the events and ends of the n shots
        events, cut = int(res.n_events.sum()), int((res.overflow != 0).sum())
        # the same shots on both sides: their balls end where pooltool's do
        gap = res.rvw[:, :, 0, :2] - np.asarray(pt_run["final"])
        diff = float(np.hypot(gap[..., 0], gap[..., 1]).max())  # a distance [m], not per axis
        rate = max(_best_rate(lambda: [run(r) for r in calls], len(rows), cfg.seconds,
                              time.process_time) for _ in range(3))
    finally:
        numba.set_num_threads(old)
    pt_rate = n / min(pt_run["cpu_s"])
    design = DESIGN_POOLTOOL_RATE[game]
    return {"game": game, "balls": int(kw["xy"].shape[1]), "shots": n, "pins": "down",
            "pooltool_shots_per_s": round(pt_rate, 1),
            "pooltool_wall_shots_per_s": round(n / min(pt_run["wall_s"]), 1),
            "pooltool_events_per_shot": round(pt_run["events_per_shot"], 2),
            "cuegym_shots_per_s": round(rate, 1), "cuegym_events_per_shot": round(events / n, 2),
            "batch": PT_BATCH, "threads": 1, "cut_off_shots": cut,
            "max_final_diff_m": float(f"{diff:.3g}"),
            "ratio": round(rate / pt_rate, 1), "design_pooltool_shots_per_s": design,
            "ratio_vs_design": round(rate / design, 1)}


#: most balls of a --per-event case (the golfbillard table holds 10 balls)
MAX_BALLS = 16
#: the table benchmark's defaults (None on the command line: the options of that mode only)
TABLE_DEFAULTS = {"games": "keglebillard,golfbillard", "batches": "1,64,1024", "threads": "1,2"}
#: the tables of the table benchmark (each has its shot generator in :func:`_shots`)
GAMES = ("keglebillard", "golfbillard")
#: the defaults of the generated --shots list: its length and each shot's max_events
N_SHOTS, JSON_MAX_EVENTS = 256, 1000


def _counts(ap: argparse.ArgumentParser, option: str, text: str, lo: int, hi: int) -> list[int]:
    """Comma-separated integers in [lo, hi], or an argparse error naming the option."""
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        values = []
    if not values or any(not lo <= v <= hi for v in values):
        ap.error(f"{option} takes comma-separated integers in [{lo}, {hi}], got {text!r}")
    return values


def check_args(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse values out of range and options the chosen mode would silently ignore; fill in
    the table benchmark's defaults."""
    import math

    import numba

    if not (math.isfinite(args.seconds) and args.seconds > 0):
        ap.error(f"--seconds must be a finite number > 0, got {args.seconds}")
    modes = [m for m, v in (("--per-event", args.per_event), ("--per-call", args.per_call),
                            ("--shots", args.shots), ("--pooltool", args.pooltool))
             if v is not None]
    if len(modes) > 1:
        ap.error(f"{' and '.join(modes)} are separate benchmarks: give one")
    if args.against is not None and args.per_event is None and args.per_call is None:
        ap.error("--against compares --per-event or --per-call timings: it needs one of them")
    if args.against is not None:
        check_against(ap, args.against)
    if args.extras and modes:  # the first-call time and memory come with the table benchmark
        ap.error(f"--extras adds to the table benchmark, not {modes[0]}")
    for opt in ("n_shots", "json_max_events"):
        if getattr(args, opt) is not None and args.shots != "":
            ap.error(f"--{opt.replace('_', '-')} sets the generated shots of --shots (without "
                     "FILE)")
    if args.pooltool_shots is not None and args.pooltool is None:
        ap.error("--pooltool-shots sets the shots of --pooltool: it needs --pooltool")
    args.pooltool_shots = PT_SHOTS if args.pooltool_shots is None else args.pooltool_shots
    if not 1 <= args.pooltool_shots <= Settings.pool:
        ap.error(f"--pooltool-shots must be in [1, {Settings.pool}], got {args.pooltool_shots}")
    args.n_shots = N_SHOTS if args.n_shots is None else args.n_shots
    args.json_max_events = JSON_MAX_EVENTS if args.json_max_events is None else \
        args.json_max_events
    if args.n_shots < 1:
        ap.error(f"--n-shots must be >= 1, got {args.n_shots}")
    if not 1 <= args.json_max_events <= MAX_EVENTS:  # (the simulator's limit) now, not after
        ap.error(f"--json-max-events must be in [1, {MAX_EVENTS}], got {args.json_max_events}")
    table_opts = [k for k in TABLE_DEFAULTS if getattr(args, k) is not None]
    # the other modes size and reuse their logs themselves (--per-event 2000 slots, --per-call
    # the default, --shots the shots' max_events), so these two would do nothing there
    given = [*table_opts, *(["max_events"] if args.max_events is not None else []),
             *(["no_reuse"] if args.no_reuse else [])]
    if modes == ["--pooltool"]:  # --games picks its tables too
        given = [k for k in given if k != "games"]
    if given and modes:
        ap.error(f"{', '.join('--' + k.replace('_', '-') for k in given)} set the table "
                 f"benchmark, not {modes[0]}")
    args.max_events = Settings.max_events if args.max_events is None else args.max_events
    if not 1 <= args.max_events <= MAX_EVENTS:  # (the simulator's limit) now, not when timing
        ap.error(f"--max-events must be in [1, {MAX_EVENTS}], got {args.max_events}")
    for k, v in TABLE_DEFAULTS.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    # every table named now: a bad one failed only after the tables before it were measured
    for game in args.games.split(","):
        if game not in GAMES:
            ap.error(f"--games: {unknown('table', game, GAMES)}")
    args.batches = ",".join(map(str, _counts(ap, "--batches", args.batches, 1, Settings.pool)))
    # more threads than numba has would be clamped, and the record would name the wrong count
    # (the default 1,2 keeps to numba's threads; an explicit count beyond them is refused)
    hi = numba.config.NUMBA_NUM_THREADS if "threads" in table_opts else 2
    counts = _counts(ap, "--threads", args.threads, 1, hi)
    if "threads" not in table_opts:  # the default 1,2 on a one-thread numba: 1 only
        counts = [t for t in counts if t <= numba.config.NUMBA_NUM_THREADS]
    args.threads = ",".join(map(str, counts))


def check_against(ap: argparse.ArgumentParser, against: str) -> None:
    """Refuse an ``--against`` that names no importable copy of cuegym, before any timing: a
    path (the option takes a package name), or a package without the modules compared."""
    import importlib.util
    import re
    from pathlib import Path

    hint = ("give the import name of a copy of an older cuegym (e.g. cuegym_old, made with git "
            "archive, in a folder on PYTHONPATH)")
    try:
        exists = Path(against).expanduser().exists()
    except (OSError, ValueError):
        exists = False
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", against):
        if exists:
            what = "is a path, not a package name"
        elif "/" in against or "\\" in against or against.startswith(("~", ".")):
            what = "does not exist (and the option takes a package name, not a path)"
        else:
            what = "is not a package name"
        ap.error(f"--against {against!r} {what}: {hint}")
    for mod in (against, f"{against}.configs", f"{against}.physics",
                f"{against}.physics.scenarios"):
        try:
            found = importlib.util.find_spec(mod) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            here = (f" ({against!r} is a path here, not an importable package)" if exists
                    and mod == against else "")
            ap.error(f"--against {against!r}: no module {mod!r} can be imported{here}; {hint}")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                 description=__doc__.split("\n\n")[0])  # the whole sentence
    ap.add_argument("--json", action="store_true", help="print JSON: the table's records as "
                    "one list; --per-event, --per-call and --pooltool one object per line")
    ap.add_argument("--shots", nargs="?", const="", default=None, metavar="FILE",
                    help="JSON path vs array API on the same shots, side by side: the shots of "
                         "FILE, or 256 random 2-6 ball shots (keglebillard and golfbillard)")
    ap.add_argument("--n-shots", type=int, default=None,
                    help=f"list length for --shots (default {N_SHOTS})")
    ap.add_argument("--per-event", nargs="?", const="2,3,4,5,6,10,16", default=None,
                    metavar="BALLS", help="us/event on one thread for these ball counts "
                                          "(golfbillard table; plus 3 balls in 10 slots; "
                                          "default 2,3,4,5,6,10,16)")
    ap.add_argument("--per-call", nargs="?", const="1,16,256", default=None, metavar="TABLES",
                    help="us per simulate call on one thread for these batch sizes (a short "
                         "keglebillard shot per table: the Python side around the kernel; "
                         "default 1,16,256)")
    ap.add_argument("--against", metavar="PACKAGE",
                    help="with --per-event or --per-call: also time this package (a copy of an "
                         "older cuegym, e.g. made with git archive) on the same shots, side by "
                         "side")
    ap.add_argument("--pooltool", nargs="?", const=str(PT_PYTHON), default=None,
                    metavar="PYTHON", help="pooltool 0.6 side by side with cuegym on the same "
                    "shots of the --games tables (pins down; pooltool one shot at a time, "
                    f"cuegym batch {PT_BATCH}, one thread each, process CPU time), run by the "
                    f"interpreter PYTHON (default {PT_PYTHON})")
    ap.add_argument("--pooltool-shots", type=int, default=None,
                    help=f"shots per table of --pooltool (default {PT_SHOTS})")
    ap.add_argument("--json-max-events", type=int, default=None,
                    help=f"max_events of the generated --shots list, 1 to {MAX_EVENTS} "
                         f"(default {JSON_MAX_EVENTS})")
    ap.add_argument("--seconds", type=float, default=Settings.seconds,
                    help=f"minimum time per measurement: wall time for the table, process "
                    f"CPU time for --shots, --per-event, --per-call and cuegym in --pooltool "
                    f"(default {Settings.seconds:g})")
    ap.add_argument("--extras", action="store_true", help="first-call time and memory per table "
                    "(with --json: one object {\"records\": [...], \"extras\": {...}})")
    ap.add_argument("--games", default=None, help="comma-separated tables of the table "
                    f"benchmark and of --pooltool (default {TABLE_DEFAULTS['games']})")
    ap.add_argument("--batches", default=None, help="comma-separated tables per call "
                    f"(default {TABLE_DEFAULTS['batches']})")
    ap.add_argument("--threads", default=None, help="comma-separated numba thread counts "
                    f"(default {TABLE_DEFAULTS['threads']})")
    ap.add_argument("--max-events", type=int, default=None,
                    help=f"event-log size per table of the table benchmark (default "
                         f"{Settings.max_events})")
    ap.add_argument("--no-reuse", action="store_true",
                    help="table benchmark: allocate fresh log buffers on every call")
    return ap


def _print_per_event(ap: argparse.ArgumentParser, args: argparse.Namespace, cfg: Settings) -> int:
    """``--per-event``: us per event by ball count (and the older package's, side by side)."""
    recs = measure_per_event(_counts(ap, "--per-event", args.per_event, 1, MAX_BALLS), cfg,
                             args.against)
    for r in recs:
        print(json.dumps(r) if args.json else
              f"{r['balls']!s:>5} balls: {r['events_per_shot']:7.2f} events/shot "
              f"{r['us_per_event']:7.3f} us/event" +
              (f"  (old {r['us_per_event_old']:.3f}, {r['speedup']:.2f}x, identical "
               f"{r['identical']})" if "speedup" in r else ""), flush=True)
    return 0


def _print_per_call(ap: argparse.ArgumentParser, args: argparse.Namespace, cfg: Settings) -> int:
    """``--per-call``: us per simulate call by batch size."""
    for r in measure_per_call(_counts(ap, "--per-call", args.per_call, 1, 100_000), cfg,
                              args.against):
        print(json.dumps(r) if args.json else
              f"{r['tables']:6d} tables: {r['us_per_call']:9.1f} us/call" +
              (f"  (old {r['us_per_call_old']:.1f}, {r['speedup']:.2f}x)" if "speedup" in r
               else ""), flush=True)
    return 0


def _print_json_path(args: argparse.Namespace, cfg: Settings) -> int:
    """``--shots``: the JSON path against the array API on the same shots."""
    if args.shots:
        with open(args.shots) as fh:
            try:
                shots = json.load(fh)
            except json.JSONDecodeError as exc:
                raise ValueError(f"--shots {args.shots}: not valid JSON ({exc})") from None
        shots = [shots] if isinstance(shots, dict) else shots
    else:
        shots = json_shots(np.random.default_rng(cfg.seed), args.n_shots)
        for s in shots:
            s["max_events"] = args.json_max_events
    rec = measure_json(shots, cfg)
    print(json.dumps(rec) if args.json else
          f"{rec['shots']} shots, {rec['events_per_shot']} events/shot, 1 thread: array API "
          f"{rec['array_shots_per_s']:.0f} shots/s, JSON objects {rec['json_shots_per_s']:.0f}"
          f" ({rec['ratio']:.0%}), JSON text {rec['json_text_shots_per_s']:.0f} "
          f"({rec['ratio_text']:.0%})")
    return 0


def _print_pooltool(args: argparse.Namespace, cfg: Settings) -> int:
    """``--pooltool``: pooltool and cuegym on the same shots; a missing interpreter skips."""
    python = args.pooltool
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        if python != str(PT_PYTHON):  # the user's own interpreter: not there is a mistake
            raise UsageError(f"--pooltool {python}: no executable Python interpreter there")
        msg = (f"pooltool side by side skipped: no pooltool interpreter at {python} (create "
               "it with experiments/validate_pooltool.py, which installs pooltool 0.6.0 in "
               ".venv-pooltool/, or give --pooltool PYTHON)")
        print(json.dumps({"pooltool_skipped": msg}) if args.json else msg, flush=True)
        return 0
    for game in args.games.split(","):
        r = measure_pooltool(game, args.pooltool_shots, python, cfg)
        print(json.dumps(r) if args.json else
              f"{game}, {r['shots']} shots of {r['balls']} balls (the table benchmark's shots, "
              f"seed {cfg.seed}; pins down on both sides, pooltool has none; pooltool's "
              "models and parameters on both sides):\n"
              f"  pooltool 0.6: {r['pooltool_shots_per_s']:9.1f} shots/s (its own process, one "
              "shot at a time, each shot's System built; process CPU time, best of "
              f"{PT_ROUNDS} passes after an untimed one; wall {r['pooltool_wall_shots_per_s']:.1f}"
              f"), {r['pooltool_events_per_shot']:.2f} events/shot\n"
              f"  cuegym:       {r['cuegym_shots_per_s']:9.1f} shots/s (batch {r['batch']}, 1 "
              f"thread, process CPU time), {r['cuegym_events_per_shot']:.2f} events/shot "
              "(each engine counts its own events); balls end within "
              f"{r['max_final_diff_m']:.2g} m of pooltool's\n"
              f"  cuegym / pooltool measured side by side: {r['ratio']:.1f}x; cuegym / "
              f"{r['design_pooltool_shots_per_s']:g} shots/s (the design's quoted pooltool "
              f"figure, not measured): {r['ratio_vs_design']:.1f}x", flush=True)
        if r["cut_off_shots"]:
            print(f"note: {r['cut_off_shots']} of the {game} shots filled max_events "
                  f"{cfg.max_events} in cuegym and were cut off", file=sys.stderr, flush=True)
    return 0


def _print_table(args: argparse.Namespace, cfg: Settings) -> int:
    """The default: shots per second by game, batch and threads (and ``--extras``)."""
    batches = [int(b) for b in args.batches.split(",")]
    threads_list = [int(t) for t in args.threads.split(",")]
    recs = []
    for game in args.games.split(","):
        for batch in batches:
            for threads in threads_list:
                recs.append(measure(game, batch, threads, cfg))
                if not args.json:
                    r = recs[-1]
                    print(f"{r['game']:13s} batch {r['batch']:5d} threads {r['threads']}: "
                          f"{r['shots_per_s']:10.1f} shots/s  {r['events_per_shot']:6.2f} "
                          f"events/shot  {r['us_per_event']:7.3f} us/event", flush=True)
                if recs[-1]["cut_off_shots"]:
                    print(f"note: {recs[-1]['cut_off_shots']} of the timed {game} shots filled "
                          f"--max-events {args.max_events} and were cut off: the figures are "
                          "not those of whole shots", file=sys.stderr, flush=True)
    extras = None
    if args.extras:
        extras = {"first_call_s": round(first_call_seconds(), 3),
                  "bytes_per_table_b4096_k256": round(memory_per_table(), 0)}
    if args.json:  # one JSON document: the list, or with --extras an object holding it
        print(json.dumps(recs if extras is None else {"records": recs, "extras": extras}))
        return 0
    by = {(r["game"], r["batch"], r["threads"]): r["shots_per_s"] for r in recs}
    for game in args.games.split(","):
        b = max(batches)
        if (game, b, 1) in by and (game, b, 2) in by:
            print(f"{game}: 2 threads / 1 thread at batch {b} = "
                  f"{by[(game, b, 2)] / by[(game, b, 1)]:.2f}x")
    if extras is not None:
        print(extras)
    return 0


@cli_main
def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    check_args(ap, args)
    cfg = Settings(seconds=args.seconds, max_events=args.max_events, reuse=not args.no_reuse)
    if args.per_event is not None:
        return _print_per_event(ap, args, cfg)
    if args.per_call is not None:
        return _print_per_call(ap, args, cfg)
    if args.shots is not None:
        return _print_json_path(args, cfg)
    if args.pooltool is not None:
        return _print_pooltool(args, cfg)
    return _print_table(args, cfg)


if __name__ == "__main__":
    sys.exit(main())
