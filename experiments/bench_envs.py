"""Env throughput: steps per second of the cuegym envs, single, native vector and SB3 DummyVecEnv.

    python experiments/bench_envs.py                       # table, the target env only
    python experiments/bench_envs.py --json                # JSON list of records
    python experiments/bench_envs.py --all                 # every registered id
    python experiments/bench_envs.py --env-ids cuegym/GolfbillardShot-v0 --num-envs 64
    python experiments/bench_envs.py --all --memory 4096   # also the peak memory per table

Each record: {"env_id", "mode": "single" | "vector" | "sb3_dummy" (| "sb3_native" with
--sb3-native), "num_envs", "steps_per_s", "threads", "load_1min"}. A step is one env step of one
table (so a vector step of 256 tables counts 256). ``single`` is ``gymnasium.make(id)`` stepped
in a loop with resets; ``vector`` is ``gymnasium.make_vec(id, num_envs,
vectorization_mode="vector_entry_point")`` (the native batched env, same-step autoreset);
``sb3_dummy`` is SB3's ``DummyVecEnv`` over ``num_envs`` single envs (the usual SB3 path);
``sb3_native`` is ``cuegym.envs.make_sb3_vec_env``. Actions are uniform random, drawn before the
clock starts. The target (docs/envs.md): cuegym/KeglebillardShot-v0 vector at 256 envs on 2
cores >= 20,000 steps/s and >= 10x sb3_dummy.

A ``vector`` record also compares the env with the physics alone: ``shots_per_step`` (physics
shots the env played per table step, counted at ``cuegym.physics.simulate`` during the timed
steps: the learner's and, in whole games, the opponent's; a step with no shot, e.g. a foul
without one, counts none), ``env_shots_per_s`` (steps_per_s x shots_per_step),
``physics_shots_per_s`` (``bench_physics``' random shots of the env's table simulated alone with
the games' models, batch num_envs, the same numba threads, wall time) and ``env_physics_ratio``
(env_shots_per_s / physics_shots_per_s: the share of the physics' speed the env keeps).

``--memory T`` adds a ``memory`` record per id (the design's target: < 64 KiB a table at 4096
tables): a vector env of T tables, made, reset and stepped ``MEMORY_STEPS`` times under
``tracemalloc`` (numpy's allocations, which hold every array of the env and the step; what
the numba kernels allocate is one table's scratch at a time a thread, not traced):
``peak_bytes_per_table`` (the highest traced total of those steps, over T) and
``held_bytes_per_table`` (what the env holds between steps: its states, observations and the
physics log it reuses).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from cuegym.cli_errors import cli_main, script_prog, seed_arg

TARGET_ID = "cuegym/KeglebillardShot-v0"


@dataclass
class Settings:
    """Benchmark settings (one line each)."""

    env_ids: list[str] = field(default_factory=lambda: [TARGET_ID])  # ids to measure
    num_envs: int = 256  # tables of the vector and DummyVecEnv runs
    seconds: float = 3.0  # minimum wall time per measurement (after one warm-up step)
    seed: int = 0  # env and action seed
    threads: int = 0  # numba threads for the physics (0: numba's default, all cores)
    sb3_native: bool = False  # also measure cuegym.envs.make_sb3_vec_env
    memory: int | None = None  # tables of the memory record (None: no memory record)


#: the steps the memory record traces (after one untraced warm-up env of 4 tables)
MEMORY_STEPS = 3


def _timed(step, n_per_step: int, seconds: float, started=None) -> float:
    step()  # warm-up (compilation, caches)
    if started is not None:
        started()
    t0 = time.perf_counter()
    steps = 0
    while True:
        step()
        steps += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return steps * n_per_step / dt


def bench_single(env_id: str, cfg: Settings) -> float:
    import gymnasium as gym

    env = gym.make(env_id)
    env.reset(seed=cfg.seed)
    acts = np.random.default_rng(cfg.seed).uniform(-1, 1, (1024, env.action_space.shape[0]))
    acts = acts.astype(np.float32)
    k = [0]

    def step():
        _, _, te, tr, _ = env.step(acts[k[0] % len(acts)])
        k[0] += 1
        if te or tr:
            env.reset()

    return _timed(step, 1, cfg.seconds)


class ShotCounter:
    """Inside ``with``: counts the physics shots played, i.e. the tables of each
    ``cuegym.physics.simulate`` call with a strike (a cue_ball >= 0 in any strike slot; the
    games look ``simulate`` up there at each call), and the env steps (``steps``, counted by
    the caller)."""

    def __init__(self) -> None:
        self.shots = self.steps = 0

    def reset(self) -> None:
        self.shots = self.steps = 0

    def __enter__(self) -> ShotCounter:
        import cuegym.physics as physics

        self._real = real = physics.simulate

        def counting(*args, **kwargs):
            cb = kwargs.get("cue_ball")  # (T,) or (T, S); None: no strike
            if cb is not None:
                struck = np.asarray(cb) >= 0
                self.shots += int(struck.reshape(len(struck), -1).any(axis=1).sum()
                                  if struck.ndim else struck)
            return real(*args, **kwargs)

        physics.simulate = counting
        return self

    def __exit__(self, *exc) -> None:
        import cuegym.physics as physics

        physics.simulate = self._real


def bench_vector(env_id: str, cfg: Settings, counts: dict | None = None) -> float:
    """Vector steps per second (tables x steps); with ``counts`` (a dict) also sets
    ``counts["shots_per_step"]``, the physics shots per table step (:class:`ShotCounter`)."""
    import gymnasium as gym

    envs = gym.make_vec(env_id, num_envs=cfg.num_envs, vectorization_mode="vector_entry_point")
    envs.reset(seed=cfg.seed)
    acts = np.random.default_rng(cfg.seed).uniform(
        -1, 1, (16, cfg.num_envs, envs.single_action_space.shape[0])).astype(np.float32)
    k = [0]
    counter = ShotCounter()

    def step():
        envs.step(acts[k[0] % len(acts)])
        k[0] += 1
        counter.steps += 1

    with counter:
        rate = _timed(step, cfg.num_envs, cfg.seconds, started=counter.reset)
    if counts is not None:
        counts["shots_per_step"] = counter.shots / (counter.steps * cfg.num_envs)
    return rate


def step_memory(env_id: str, T: int, seed: int) -> dict:
    """The memory record of ``env_id``'s vector env at ``T`` tables (module docstring)."""
    import tracemalloc

    import gymnasium as gym

    def make(n):
        return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")

    warm = make(4)  # kernels compiled and caches filled outside the trace
    warm.reset(seed=seed)
    warm.step(warm.action_space.sample())
    warm.close()
    rng = np.random.default_rng(seed)
    tracemalloc.start()
    try:
        envs = make(T)
        envs.reset(seed=seed)
        for _ in range(MEMORY_STEPS):
            envs.step(rng.uniform(-1, 1, (T, envs.single_action_space.shape[0]))
                      .astype(np.float32))
        held, peak = tracemalloc.get_traced_memory()
        envs.close()
    finally:
        tracemalloc.stop()
    return {"env_id": env_id, "mode": "memory", "num_envs": T, "steps": MEMORY_STEPS,
            "peak_bytes_per_table": round(peak / T), "held_bytes_per_table": round(held / T)}


def physics_rate(game: str, cfg: Settings, threads: int) -> float:
    """Shots per second of the physics alone on ``game``'s table: bench_physics' random shots
    (seed ``cfg.seed``) with the games' models, batch ``cfg.num_envs``, ``threads`` numba
    threads, wall time (best of 3 runs of ``cfg.seconds / 3`` each)."""
    from cuegym.experiments.bench_physics import Settings as PhysicsSettings
    from cuegym.experiments.bench_physics import measure

    pcfg = PhysicsSettings(seconds=cfg.seconds / 3, seed=cfg.seed,
                           pool=max(PhysicsSettings.pool, cfg.num_envs))
    return measure(game, cfg.num_envs, threads, pcfg)["shots_per_s"]


def _bench_sb3(venv, cfg: Settings) -> float:
    venv.seed(cfg.seed)
    venv.reset()
    acts = np.random.default_rng(cfg.seed).uniform(
        -1, 1, (16, cfg.num_envs, venv.action_space.shape[0])).astype(np.float32)
    k = [0]

    def step():
        venv.step(acts[k[0] % len(acts)])
        k[0] += 1

    return _timed(step, cfg.num_envs, cfg.seconds)


def bench_sb3_dummy(env_id: str, cfg: Settings) -> float:
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv

    return _bench_sb3(DummyVecEnv([lambda: gym.make(env_id)] * cfg.num_envs), cfg)


def bench_sb3_native(env_id: str, cfg: Settings) -> float:
    from cuegym.envs import make_sb3_vec_env

    return _bench_sb3(make_sb3_vec_env(env_id, cfg.num_envs), cfg)


def run(cfg: Settings) -> list[dict]:
    import numba

    import cuegym.envs  # noqa: F401 - registers the ids

    if cfg.threads:
        numba.set_num_threads(cfg.threads)
    modes = [("single", bench_single), ("vector", bench_vector), ("sb3_dummy", bench_sb3_dummy)]
    if cfg.sb3_native:
        modes.append(("sb3_native", bench_sb3_native))
    from cuegym.envs import ENV_IDS

    out = []
    physics = {}  # game -> physics-alone shots/s (the ids of one table share it)
    for env_id in cfg.env_ids:
        for mode, fn in modes:
            counts = {}
            sps = fn(env_id, cfg, counts) if mode == "vector" else fn(env_id, cfg)
            out.append({"env_id": env_id, "mode": mode,
                        "num_envs": 1 if mode == "single" else cfg.num_envs,
                        "steps_per_s": round(sps, 1), "threads": numba.get_num_threads(),
                        "load_1min": round(os.getloadavg()[0], 2)})
            if mode == "vector":
                game = ENV_IDS[env_id][0]
                if game not in physics:
                    physics[game] = physics_rate(game, cfg, numba.get_num_threads())
                env_shots = sps * counts["shots_per_step"]
                out[-1].update(shots_per_step=round(counts["shots_per_step"], 3),
                               env_shots_per_s=round(env_shots, 1),
                               physics_shots_per_s=physics[game],
                               env_physics_ratio=round(env_shots / physics[game], 3))
        if cfg.memory:
            out.append(step_memory(env_id, cfg.memory, cfg.seed))
    return out


@cli_main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                 description=__doc__.splitlines()[0])
    d = Settings()
    ap.add_argument("--env-ids", nargs="+", default=None,
                    help=f"the env ids to measure (default {' '.join(d.env_ids)})")
    ap.add_argument("--all", action="store_true", help="every registered cuegym id")
    ap.add_argument("--num-envs", type=int, default=d.num_envs,
                    help=f"tables of the vector and DummyVecEnv runs (default {d.num_envs})")
    ap.add_argument("--seconds", type=float, default=d.seconds, help="minimum wall time per "
                    f"measurement, after one warm-up step (default {d.seconds:g})")
    ap.add_argument("--seed", type=seed_arg, default=d.seed,
                    help=f"env and action seed (default {d.seed})")
    ap.add_argument("--threads", type=int, default=d.threads,
                    help="numba threads of the physics (0: numba's default, all cores)")
    ap.add_argument("--sb3-native", action="store_true",
                    help="also measure cuegym.envs.make_sb3_vec_env")
    ap.add_argument("--memory", type=int, default=None, metavar="T",
                    help="also trace each id's vector env step's peak memory per table at T "
                         "tables (the design's target: < 64 KiB at 4096)")
    ap.add_argument("--json", action="store_true", help="print a JSON list of records")
    args = ap.parse_args(argv)
    if args.memory is not None and args.memory < 1:
        ap.error(f"--memory must be >= 1 tables, got {args.memory}")
    if not (np.isfinite(args.seconds) and args.seconds > 0):
        ap.error(f"--seconds must be a finite number > 0, got {args.seconds}")
    import numba

    if not 0 <= args.threads <= numba.config.NUMBA_NUM_THREADS:
        ap.error(f"--threads must be in [0, {numba.config.NUMBA_NUM_THREADS}] (0: numba's "
                 f"default), got {args.threads}")
    if args.all and args.env_ids is not None:  # one of the two would be ignored
        ap.error("--all measures every registered id: give it or --env-ids, not both")
    # found now, not after the single-env run (or the runs of the ids before a bad one)
    if args.num_envs < 1:
        ap.error(f"--num-envs must be >= 1, got {args.num_envs}")
    from cuegym.envs import ENV_IDS

    if args.all:
        args.env_ids = list(ENV_IDS)
    elif args.env_ids is None:
        args.env_ids = d.env_ids
    for env_id in args.env_ids:
        if env_id not in ENV_IDS:
            from cuegym.cli_errors import did_you_mean

            ap.error(f"--env-ids: unknown env id {env_id!r}{did_you_mean(env_id, ENV_IDS)}; "
                     f"known: {', '.join(ENV_IDS)}")
    cfg = Settings(env_ids=args.env_ids, num_envs=args.num_envs, seconds=args.seconds,
                   seed=args.seed, threads=args.threads, sb3_native=args.sb3_native,
                   memory=args.memory)
    records = run(cfg)
    if args.json:
        print(json.dumps(records))
        return 0
    print(f"{'env_id':32s} {'mode':11s} {'num_envs':>8s} {'steps/s':>12s}")
    for r in records:
        if r["mode"] != "memory":
            print(f"{r['env_id']:32s} {r['mode']:11s} {r['num_envs']:8d} "
                  f"{r['steps_per_s']:12.1f}")
    by = {(r["env_id"], r["mode"]): r["steps_per_s"] for r in records if "steps_per_s" in r}
    for env_id in cfg.env_ids:
        v, s = by.get((env_id, "vector")), by.get((env_id, "sb3_dummy"))
        if v and s:
            print(f"{env_id}: vector / sb3_dummy = {v / s:.1f}x")
    for r in records:
        if "env_physics_ratio" in r:
            print(f"{r['env_id']}: {r['shots_per_step']:.2f} shots/step, env "
                  f"{r['env_shots_per_s']:.0f} shots/s; physics alone "
                  f"{r['physics_shots_per_s']:.0f} shots/s (same table, batch {r['num_envs']}, "
                  f"{r['threads']} threads); env shots : physics shots = "
                  f"{r['env_physics_ratio']:.2f}")
    for r in records:
        if r["mode"] == "memory":
            print(f"{r['env_id']}: a vector step at {r['num_envs']} tables peaks at "
                  f"{r['peak_bytes_per_table'] / 1024:.1f} KiB a table (the env holds "
                  f"{r['held_bytes_per_table'] / 1024:.1f} KiB a table between steps)")
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
