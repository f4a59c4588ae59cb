"""Train an SB3 agent (SAC by default; PPO, TD3, DQN) on a cuegym env from a YAML config.

In the CleanRL manner: a dataclass of settings (one line of doc per field; it and the checks
that run before a run directory is touched are ``train_config.py``), seeding in one block,
the hyper-parameters logged, throughput printed. The env is the native batched one
(``cuegym.envs.make_sb3_vec_env``: all tables in one physics call per step), optionally behind
the geometric-residual action wrapper (``cuegym.agents.residual``) or the discrete shot menu
(``cuegym.agents.choice``, for DQN). Evaluation, best model and checkpoints are SB3's
``EvalCallback`` and ``CheckpointCallback`` (replay buffer included); the one logger is SB3's
(CSV and TensorBoard).

    python experiments/train.py --config configs/train/keglebillard_sac.yaml
    python experiments/train.py --config configs/train/keglebillard_sac.yaml --timesteps 20000 \\
        --name quick --seed 1 --set 'algo_kwargs={gamma: 0.5}'
    python experiments/train.py --name quick --resume          # continue from the last checkpoint

``--set key=value`` values are YAML; mappings merge deeply into the config's (``algo_kwargs=
{gamma: 0.5}`` changes gamma only), an empty mapping replaces (``demos={}``: none),
``key=null`` resets a known key to its default (an unknown key is an error, null or not).

Writes ``runs/<name>/``: ``model.zip`` (final), ``best_model.zip`` (best periodic evaluation),
``config.yaml`` (the settings used), ``evaluations.npz`` (SB3's evaluation log),
``logs/<part>/progress.csv`` and TensorBoard events (SB3's logger; one part per session, so a
resume never overwrites a log: ``tensorboard --logdir runs/<name>/logs``),
``learning_curve.png`` (from the CSV logs), ``checkpoints/`` (``rl_model_<steps>_steps.zip`` +
``rl_model_replay_buffer_<steps>_steps.pkl``, the last two kept, for ``--resume``) and
``status.json`` (steps done; ``finished`` once learning stopped at ``total_timesteps`` or
``time_limit_min``). PPO plays whole rollouts of ``n_steps`` per table (SB3's 2,048 where
``algo_kwargs`` gives none): a budget that is no whole number of them is said. Every model,
buffer and metadata file is written to a temporary file and renamed, so an interrupt never
leaves a half-written checkpoint; Ctrl-C saves a last checkpoint and exits (status 130).
``--resume`` refuses a run directory whose config differs from the one given (other than
``total_timesteps``, ``time_limit_min``, ``progress_bar``, ``device``, ``threads`` and
``name``, so a run folder moved to another name resumes there) and says
so, and exits 0, when the run is already finished (a larger ``total_timesteps`` or
``time_limit_min`` continues it; a ``total_timesteps`` below the steps done is refused). A
resumed session seeds its tables, action draws, numpy and torch from (``seed``, steps done):
new episodes, not the first session's again, and the same ones at every resume from a
checkpoint. An off-policy run (SAC, TD3, DQN) resumes only with its checkpoint's replay
buffer (refused without it, ``save_replay_buffer: false`` included). A session killed without
saving (SIGKILL, a power cut) resumes from its last checkpoint: its evaluations past that
checkpoint are left out of ``evaluations.npz``, the best score and the learning curve, and a
``best_model.zip`` it saved past it is set aside as ``best_model_past_checkpoint.zip`` (the best
model is chosen again from the resumed session's evaluations).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cuegym.cli_errors import check_writable_dir, cli_main, script_prog, seed_arg, write_atomic
from cuegym.experiments.train_config import (
    ALGOS,
    TrainConfig,
    algo_class,
    check_arguments,
    check_episodic,
    check_run_name,
    flag_override,
    game_of,
    load_config,
    parse_run_args,
    policy_class,
    run_overrides,
)

#: keys a resumed run may change (how long and how it runs, not what it learns; ``name`` is
#: where it is: a run folder moved or copied to another name resumes there)
RESUME_MAY_CHANGE = ("total_timesteps", "time_limit_min", "progress_bar", "device", "threads",
                     "name")
#: what makes a directory hold a run's work (a directory with only config.yaml, from a run that
#: stopped before learning, is reused)
RUN_WORK = ("status.json", "checkpoints", "model.zip", "best_model.zip", "logs",
            "evaluations.npz", "demos.json")


_BANKS: dict = {}


def training_positions(cfg: TrainConfig) -> Any:
    """The generated training bank of ``cfg.train_positions`` (None: none configured); built
    once per process."""
    tp = dict(cfg.train_positions)
    if not tp:
        return None
    unknown = sorted(set(tp) - {"generate", "n", "seed"})
    if unknown:
        raise ValueError(f"unknown train_positions key(s) {unknown}; known: generate, n, seed")
    kind = tp.get("generate")
    if kind != "keglebillard-play":
        raise ValueError(f"train_positions.generate must be 'keglebillard-play', got {kind!r}")
    key = (kind, int(tp.get("n", 16384)), int(tp.get("seed", 1)))
    if key not in _BANKS:
        from cuegym.envs.positions import generate_keglebillard_play_positions

        t0 = time.time()
        _BANKS[key] = generate_keglebillard_play_positions(key[1], seed=key[2],
                                                           progress=cfg.progress_bar)
        print(f"training positions: {key[1]:,} from games between geometric aimers (seed "
              f"{key[2]}) in {time.time() - t0:.0f} s", flush=True)
    return _BANKS[key]


def make_env(cfg: TrainConfig, n_envs: int, seed: int, train: bool = True) -> Any:
    """The SB3 VecEnv: the native batched env (on the generated training positions when
    configured and ``train``), the residual or choice wrapper if configured, a monitor."""
    from cuegym.envs import make_sb3_vec_env
    from cuegym.envs.sb3 import vec_monitor

    kwargs = dict(cfg.env_kwargs)
    bank = training_positions(cfg) if train else None
    if bank is not None:
        kwargs["positions"] = bank
    venv = make_sb3_vec_env(cfg.env_id, n_envs=n_envs, seed=seed, **kwargs)
    if cfg.action == "residual":
        from cuegym.agents.residual import ResidualSpec, ResidualVecEnv

        venv = ResidualVecEnv(venv, ResidualSpec(game=game_of(cfg.env_id), **cfg.residual))
    elif cfg.action == "choice":
        from cuegym.agents.choice import ChoiceSpec, ChoiceVecEnv

        venv = ChoiceVecEnv(venv, ChoiceSpec(game=game_of(cfg.env_id), **cfg.choice))
    return vec_monitor(venv)


# ---------------------------------------------------------------------------------------------
# Callbacks (SB3's evaluation and checkpoints), checkpoints on disk, the learning curve
# ---------------------------------------------------------------------------------------------


def run_meta(cfg: TrainConfig) -> dict[str, Any]:
    """The metadata every saved model of the run carries (``cuegym.agents.sb3_agent``)."""
    meta: dict[str, Any] = {"game": game_of(cfg.env_id), "env_id": cfg.env_id,
                            "action": cfg.action, "algo": cfg.algo, "policy": cfg.policy,
                            "env_kwargs": cfg.env_kwargs, "run": cfg.name, "seed": cfg.seed}
    if cfg.action == "residual":
        from cuegym.agents.residual import ResidualSpec

        meta["residual"] = ResidualSpec(game=meta["game"], **cfg.residual).as_dict()
    if cfg.action == "choice":
        from cuegym.agents.choice import ChoiceSpec

        meta["choice"] = ChoiceSpec(game=meta["game"], **cfg.choice).as_dict()
    for key in ("residual", "choice"):
        meta.get(key, {}).pop("game", None)
    return meta


def make_callbacks(cfg: TrainConfig, run: Path, eval_env: Any, resume: bool,
                   started: float) -> list:
    """SB3's ``EvalCallback`` (best model, ``evaluations.npz``; foul rate and points per shot
    logged beside the mean reward; fixed seeds at every evaluation), ``CheckpointCallback``
    (model + replay buffer, the last two kept) and the wall-clock limit counted from
    ``started`` (``time.time()`` when the session began), in that order
    (:mod:`cuegym.experiments.train_callbacks`)."""
    from cuegym.experiments.train_callbacks import Checkpoints, ShotEval, TimeLimit

    return [ShotEval(eval_env, cfg, run, resume),
            Checkpoints(max(1, cfg.checkpoint_freq // max(1, cfg.n_envs)), run,
                        cfg.save_replay_buffer),
            TimeLimit(cfg.time_limit_min, started)]


def seed_with_demos(model: Any, cfg: TrainConfig, run: Path) -> None:
    """SAC/TD3 from demonstrations: the sampling planner's simulated candidate shots
    (``cuegym.agents.demos``) fill the replay buffer, the actor is cloned on the best of each
    position and the critics regressed on the rewards; online learning starts at once."""
    from cuegym.agents.demos import fill_replay_buffer, planner_demos, pretrain

    if cfg.action == "choice":
        return seed_q_with_demos(model, cfg, run)
    if cfg.algo not in ("sac", "td3") or cfg.action != "residual":
        raise ValueError("demos need an off-policy algo (sac, td3) and the residual action, "
                         "or dqn and the choice action")
    d = dict(cfg.demos)  # its keys were checked by load_config (DEMO_KEYS)
    t0 = time.time()
    renv = make_env(cfg, 64, cfg.seed + 20_000).venv  # the residual wrapper (no monitor)
    per_state = int(d.get("per_state", 32))
    obs, act, rew, best = planner_demos(
        renv, int(d["states"]), per_state=per_state, noise_samples=int(d.get("noise_samples", 4)),
        jitter=float(d.get("jitter", 0.35)), noise=cfg.env_kwargs.get("noise", "none"),
        reward=cfg.env_kwargs.get("reward"), seed=cfg.seed, progress=cfg.progress_bar)
    renv.close()
    t1 = time.time()
    fill_replay_buffer(model, obs, act, rew)
    losses = pretrain(model, obs, act, rew, best, per_state,
                      bc_steps=int(d.get("bc_steps", 2000)),
                      critic_steps=int(d.get("critic_steps", 2000)), seed=cfg.seed)
    model.learning_starts = 0
    blk = rew.reshape(-1, per_state)
    info = {"positions": int(d["states"]), "transitions": int(len(rew)),
            "mean_reward_first": float(blk[:, 0].mean()),
            "mean_reward_best": float(blk.max(1).mean()), "demo_s": round(t1 - t0, 1),
            "pretrain_s": round(time.time() - t1, 1), **losses}
    (run / "demos.json").write_text(json.dumps(info, indent=1))
    print(f"demonstrations: {info['positions']:,} positions, {info['transitions']:,} "
          f"transitions in {info['demo_s']} s (reward of the aimer's first shot "
          f"{info['mean_reward_first']:+.4f}, of the best found {info['mean_reward_best']:+.4f}); "
          f"pretrained in {info['pretrain_s']} s (bc loss {losses['bc']:.4f}, critic loss "
          f"{losses['critic']:.5f})", flush=True)


def seed_q_with_demos(model: Any, cfg: TrainConfig, run: Path) -> None:
    """DQN from simulated demonstrations: every menu entry of ``states`` positions is simulated
    under ``noise_samples`` noise draws (``cuegym.agents.demos.choice_demos``); the Q-network
    is regressed on all of them (``q_steps`` batches) and ``buffer_per_state`` random entries of
    each position go into the replay buffer; online learning starts at once."""
    from cuegym.agents.demos import choice_demos, fill_replay_buffer, pretrain_q

    d = dict(cfg.demos)  # its keys were checked by load_config (DEMO_KEYS)
    t0 = time.time()
    cenv = make_env(cfg, 64, cfg.seed + 20_000).venv  # the choice wrapper (no monitor)
    obs, q = choice_demos(cenv, int(d["states"]), noise_samples=int(d.get("noise_samples", 4)),
                          noise=cfg.env_kwargs.get("noise", "none"),
                          reward=cfg.env_kwargs.get("reward"), seed=cfg.seed,
                          progress=cfg.progress_bar)
    cenv.close()
    t1 = time.time()
    rng = np.random.default_rng(cfg.seed)
    k = int(d.get("buffer_per_state", 2))
    if k > 0:
        S, A = q.shape
        a = rng.integers(0, A, (S, k))
        fill_replay_buffer(model, np.repeat(obs, k, axis=0), a.reshape(-1),
                           q[np.arange(S)[:, None], a].reshape(-1))
    loss = pretrain_q(model, obs, q, steps=int(d.get("q_steps", 4000)),
                      batch_size=int(d.get("q_batch", 256)), lr=float(d.get("q_lr", 1e-3)),
                      seed=cfg.seed)
    model.learning_starts = 0
    best = q.argmax(1)
    spec = cenv.cspec  # the aimer's own shot: candidate 0, its spin, speed factor 1
    aimer = (int(np.argmin(np.abs(np.subtract(spec.spins, spec.spin0)))) * len(spec.speeds)
             + int(np.argmin(np.abs(np.subtract(spec.speeds, 1.0)))))
    info = {"positions": int(len(q)), "actions": int(q.shape[1]),
            "mean_reward_aimer": float(q[:, aimer].mean()),
            "mean_reward_best": float(q.max(1).mean()),
            "best_action_count": np.bincount(best, minlength=q.shape[1]).tolist(),
            "demo_s": round(t1 - t0, 1), "pretrain_s": round(time.time() - t1, 1),
            "q_loss": loss}
    (run / "demos.json").write_text(json.dumps(info, indent=1))
    print(f"demonstrations: {info['positions']:,} positions x {info['actions']} actions in "
          f"{info['demo_s']} s (mean reward of the aimer's shot "
          f"{info['mean_reward_aimer']:+.4f}, of the best entry {info['mean_reward_best']:+.4f}); "
          f"Q-network regressed in {info['pretrain_s']} s (loss {loss:.5f})", flush=True)


def _checkpoint_steps(path: Path) -> int:
    return int(path.name.removeprefix("rl_model_").removesuffix("_steps.zip"))


def save_checkpoint(model: Any, run: Path, save_buffer: bool = True, keep: int = 2) -> Path:
    """Checkpoint ``model`` (and its replay buffer) under ``run/checkpoints`` with the names of
    SB3's ``CheckpointCallback``, each file written atomically, the model after the buffer (a
    model file is only ever there with its buffer); keep the last ``keep`` checkpoints."""
    ck = run / "checkpoints"
    ck.mkdir(parents=True, exist_ok=True)
    n = int(model.num_timesteps)
    if save_buffer and getattr(model, "replay_buffer", None) is not None:
        model.save_replay_buffer(ck / f"rl_model_replay_buffer_{n}_steps.pkl")
    path = ck / f"rl_model_{n}_steps.zip"
    model.save(path)
    for old in sorted(ck.glob("rl_model_*_steps.zip"), key=_checkpoint_steps)[:-keep]:
        old.unlink(missing_ok=True)
        (ck / old.name.replace("rl_model_", "rl_model_replay_buffer_").replace(".zip", ".pkl")
         ).unlink(missing_ok=True)
    return path


def latest_checkpoint(run: Path) -> tuple[Path, Path | None] | None:
    """(model zip, replay buffer or None) of the newest checkpoint of ``run``, or None."""
    ck = run / "checkpoints"
    zips = sorted(ck.glob("rl_model_*_steps.zip"), key=_checkpoint_steps) if ck.exists() else []
    if not zips:
        return None
    buf = ck / zips[-1].name.replace("rl_model_", "rl_model_replay_buffer_").replace(".zip",
                                                                                      ".pkl")
    return zips[-1], buf if buf.exists() else None


def read_progress(run: Path) -> list[dict[str, str]]:
    """The rows of SB3's CSV logs of all sessions of ``run`` (``logs/<part>/progress.csv``) that
    hold an evaluation, in step order. A session's rows past the start of a later session are
    left out: that one resumed from an earlier checkpoint (the session was killed, SIGKILL or a
    power cut, after its last checkpoint) and played those steps again. A session's start is
    its first row's step (a resumed session logs one at the checkpoint it starts from)."""
    parts = []
    for part in sorted((run / "logs").glob("*/progress.csv"), key=lambda p: int(p.parent.name)):
        with open(part) as fh:
            rows = [r for r in csv.DictReader(fh) if r.get("time/total_timesteps")]
        parts.append(rows)
    out: list[dict[str, str]] = []
    later = float("inf")  # the earliest start of the sessions after this one
    for rows in reversed(parts):
        steps = [float(r["time/total_timesteps"]) for r in rows]
        out += [r for r, n in zip(rows, steps, strict=True)
                if r.get("eval/mean_reward") and n <= later]
        if steps:
            later = min(later, steps[0])
    return sorted(out, key=lambda r: float(r["time/total_timesteps"]))


def steps_tick(v: float, _pos: Any = None) -> str:
    """A learning curve's step axis label: 250, 2.5k, 1.2M (not 0.25k below a thousand)."""
    if abs(v) >= 1e6:
        return f"{v / 1e6:g}M"
    if abs(v) >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def plot_learning_curve(run: Path, title: str = "") -> Path | None:
    """learning_curve.png from SB3's CSV logs: mean reward, foul rate and points per shot of
    the evaluations; with demonstrations, the reward of the aimer's own shot as the
    before-learning reference (step 0 is after the pre-training on the demonstrations)."""
    rows = read_progress(run)
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    x = np.array([float(r["time/total_timesteps"]) for r in rows])
    golf = "Golf" in title
    before = None  # the untrained reference: the aimer's own shot on the demonstration positions
    if (run / "demos.json").exists():
        info = json.loads((run / "demos.json").read_text())
        before = info.get("mean_reward_aimer", info.get("mean_reward_first"))
    fig, axs = plt.subplots(1, 3, figsize=(13, 3.6))
    for ax, key, label in zip(axs, ("mean_reward", "foul_rate", "points_per_shot"),
                              ("mean reward", "foul rate",
                               "own goals / stroke" if golf else "points / shot"), strict=True):
        y = np.array([float(r.get(f"eval/{key}") or "nan") for r in rows])
        ax.plot(x, y, marker="o", ms=3, label="evaluation")
        if key == "mean_reward" and before is not None:
            ax.axhline(before, color="grey", ls="--", lw=1,
                       label="the aimer's own shot (before learning)")
            ax.legend(fontsize=8, loc="best")
        ax.set_xlabel("environment steps")
        ax.set_ylabel(label)
        ax.xaxis.set_major_formatter(FuncFormatter(steps_tick))
        ax.grid(alpha=0.3)
    fig.suptitle(f"{title or run.name}: periodic evaluations")
    fig.tight_layout()
    out = run / "learning_curve.png"
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, out)
    return out


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------


class RunError(ValueError):
    """A run directory that does not fit the request (exit 2 with one line)."""


def require_run(run: Path) -> Path:
    """``run``'s config.yaml, which a ``--resume`` needs: a :class:`RunError` when there is
    none (a resume never starts a new run quietly). Shared by the run scripts."""
    saved_path = Path(run) / "config.yaml"
    if not saved_path.is_file():
        raise RunError(f"--resume: {run} holds no run (no config.yaml); start it without "
                       "--resume")
    return saved_path


def check_resume(cfg: TrainConfig, run: Path) -> dict[str, Any]:
    """The saved settings of ``run`` must be ``cfg``'s (but for :data:`RESUME_MAY_CHANGE`);
    returns its status (``{"timesteps", "finished"}``)."""
    saved_path = require_run(run)
    saved = dataclasses.asdict(load_config(saved_path))
    given = dataclasses.asdict(cfg)
    diff = [k for k in given if k not in RESUME_MAY_CHANGE and given[k] != saved.get(k)]
    if diff:
        what = ", ".join(f"{k}: {saved.get(k)!r} there, {given[k]!r} given" for k in diff)
        raise RunError(f"--resume: {run} is another run ({what}); use another --name, or "
                       "resume it without changing those keys")
    status_path = run / "status.json"
    return json.loads(status_path.read_text()) if status_path.exists() else \
        {"timesteps": 0, "finished": False}


def _sigterm_interrupts() -> Callable[[], None]:
    """Until the returned function is called, SIGTERM (``kill``, ``timeout``, a job scheduler)
    raises KeyboardInterrupt in the main thread, so that it saves a checkpoint as Ctrl-C does;
    elsewhere (another thread) nothing changes."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, interrupt)
    return lambda: signal.signal(signal.SIGTERM, old)


def _interrupted(model: Any, run: Path, cfg: TrainConfig) -> None:
    """Ctrl-C or SIGTERM once the model exists: save a checkpoint and the status, say how to
    go on, and raise KeyboardInterrupt("checkpoint saved") (``main`` exits 130)."""
    path = save_checkpoint(model, run, cfg.save_replay_buffer)
    write_status(run, model, cfg, "interrupt")
    model.logger.close()
    print(f"\ninterrupted at {model.num_timesteps:,} steps; checkpoint {path} saved: "
          f"continue with --name {cfg.name} --resume", file=sys.stderr, flush=True)
    raise KeyboardInterrupt("checkpoint saved") from None


def write_status(run: Path, model: Any, cfg: TrainConfig, stopped_by: str) -> None:
    """``status.json``: steps done, why learning stopped (``total_timesteps``, ``time_limit``
    or ``interrupt``), ``finished`` (not interrupted) and the budget it ran under."""
    write_atomic(run / "status.json", json.dumps({
        "timesteps": int(model.num_timesteps), "finished": stopped_by != "interrupt",
        "stopped_by": stopped_by, "total_timesteps": cfg.total_timesteps,
        "time_limit_min": cfg.time_limit_min}))


def check_run_dir(cfg: TrainConfig, run: Path, resume: bool, overwrite: bool) -> bool:
    """Check ``run`` for ``cfg`` without changing it; False when a resumed run is finished
    already (nothing to do). Raises :class:`RunError` for a directory that does not fit."""
    if resume:
        st = check_resume(cfg, run)
        done = int(st.get("timesteps", 0))
        own = int(st.get("total_timesteps") or cfg.total_timesteps)
        # a smaller budget than the run's own and than the work done: nothing fits (SB3 ends
        # on a whole rollout, so a run's own budget may lie below its steps: that is finished)
        if done > cfg.total_timesteps and cfg.total_timesteps < own:
            raise RunError(f"--resume: {run} has done {done:,} steps already, more than the "
                           f"total_timesteps {cfg.total_timesteps:,} given: give a larger "
                           "--timesteps (or none: the run's own) to continue it")
        same_budget = (st.get("total_timesteps"), st.get("time_limit_min")) == \
            (cfg.total_timesteps, cfg.time_limit_min)
        # a larger budget continues the run; a longer time limit only where steps are left
        if done >= cfg.total_timesteps or (st["finished"] and same_budget):
            why = "its time limit" if st.get("stopped_by") == "time_limit" else "all its steps"
            more = "total_timesteps" if done >= cfg.total_timesteps else \
                "total_timesteps or time_limit_min"
            print(f"run {run} is finished ({st['timesteps']:,} of {cfg.total_timesteps:,} "
                  f"steps, stopped by {why}); nothing to resume (raise {more} to continue it)",
                  flush=True)
            return False
        resume_checkpoint(cfg, run)  # before the positions and envs are made
    elif any((run / f).exists() for f in RUN_WORK) and not overwrite:
        raise RunError(f"{run} holds a run already: continue it with --resume, start over "
                       "with --overwrite (deletes it) or choose another --name")
    return True


def resume_checkpoint(cfg: TrainConfig, run: Path) -> tuple[Path, Path | None]:
    """The checkpoint a ``--resume`` of ``run`` continues from (:func:`latest_checkpoint`): a
    :class:`RunError` when there is none (the run stopped in its setup, before learning) or
    when an off-policy run's (SAC, TD3, DQN) has no replay buffer beside it (deleted, or
    ``save_replay_buffer: false``): it would go on learning at once from an empty buffer."""
    found = latest_checkpoint(run)
    if found is None:
        raise RunError(f"--resume: no checkpoint in {run / 'checkpoints'} (the run stopped "
                       "before learning); start over with --overwrite")
    ckpt, buf = found
    if buf is None and hasattr(algo_class(cfg.algo), "load_replay_buffer"):
        missing = ckpt.with_name(ckpt.name.replace("rl_model_", "rl_model_replay_buffer_")
                                 .replace(".zip", ".pkl"))
        why = "save_replay_buffer is false" if not cfg.save_replay_buffer else "it is gone"
        raise RunError(f"--resume: no replay buffer {missing} beside the checkpoint ({why}); "
                       f"{cfg.algo} cannot go on without it: start over with --overwrite "
                       "(or another --name)")
    return ckpt, buf


def start_run_dir(cfg: TrainConfig, run: Path, resume: bool, overwrite: bool) -> None:
    """Set up ``run`` (checked by :func:`check_run_dir`) once everything else is checked: an
    old run is deleted (``overwrite``) only now, then the config is written."""
    if not resume and overwrite and any((run / f).exists() for f in RUN_WORK):
        shutil.rmtree(run)
    run.mkdir(parents=True, exist_ok=True)
    write_atomic(run / "config.yaml", yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))


def prepare_run_dir(cfg: TrainConfig, run: Path, resume: bool, overwrite: bool) -> bool:
    """:func:`check_run_dir`, then :func:`start_run_dir` (False: nothing to do)."""
    if not check_run_dir(cfg, run, resume, overwrite):
        return False
    start_run_dir(cfg, run, resume, overwrite)
    return True


def sb3_kwargs(algo: str, algo_kwargs: dict[str, Any], env: Any) -> dict[str, Any]:
    """``algo_kwargs`` of a config as SB3's constructor (and ``load``) take them: SAC/TD3's
    ``action_noise`` (the standard deviation of Gaussian noise, action units) as SB3's
    ``NormalActionNoise``, ``train_freq: [n, step | episode]`` as a tuple. Shared with
    selfplay.py."""
    kwargs = dict(algo_kwargs)
    if algo in ("sac", "td3") and kwargs.get("action_noise") is not None:
        from stable_baselines3.common.noise import NormalActionNoise

        sd = float(kwargs.pop("action_noise"))
        dim = env.action_space.shape[0]
        kwargs["action_noise"] = NormalActionNoise(np.zeros(dim), sd * np.ones(dim))
    if isinstance(kwargs.get("train_freq"), list):  # [n, step | episode]: SB3 takes a tuple
        kwargs["train_freq"] = tuple(kwargs["train_freq"])
    return kwargs


def new_model(cfg: TrainConfig, env: Any, Algo: Any = None) -> Any:
    """A new ``cfg.algo`` model (``Algo``, default SB3's class) on ``env`` with the config's
    policy and ``algo_kwargs``; a value SB3 or torch refuse is a one-line ValueError."""
    Algo = Algo or algo_class(cfg.algo)
    kwargs = sb3_kwargs(cfg.algo, cfg.algo_kwargs, env)
    try:
        return Algo(policy_class(cfg.policy), env, policy_kwargs=dict(cfg.policy_kwargs),
                    seed=cfg.seed, device=cfg.device, verbose=0, **kwargs)
    except (TypeError, RuntimeError, AssertionError) as e:  # a value SB3/torch refuse
        from cuegym.configs import text_number_hint

        texts = [f"{k}: {text_number_hint(v).strip(' ()')}"
                 for k, v in {**cfg.algo_kwargs, **cfg.policy_kwargs}.items()
                 if text_number_hint(v)]
        raise ValueError(f"config keys policy_kwargs / algo_kwargs: cannot build the "
                         f"{cfg.algo} model from them: "
                         f"{str(e).splitlines()[0] if str(e) else type(e).__name__}"
                         + "".join(f"; {x}" for x in texts)) from e


def check_config(cfg: TrainConfig) -> None:
    """Everything :func:`train` can check before its long work (generating the training
    positions, demonstrations, learning) and before the run directory is touched:
    :func:`~cuegym.experiments.train_config.check_arguments`, then the env with ``env_kwargs``
    (on the bank they name, not the generated training positions), its action wrapper and a
    model on it with ``policy_kwargs`` and ``algo_kwargs``, all thrown away (about a second).
    SB3's warnings are left to the real model."""
    import warnings

    check_arguments(cfg)
    try:
        env = make_env(cfg, cfg.n_envs, cfg.seed, train=False)
    except ValueError as e:  # (the wrappers' settings are checked by check_arguments)
        raise ValueError(f"config key env_kwargs: {e}") from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            new_model(cfg, env)
    finally:
        env.close()


def session_seed(seed: int, steps: int) -> int:
    """The seed of a training session that starts after ``steps`` steps of a run seeded
    ``seed``: ``seed`` itself for the first session, else one drawn from both (below 2**31, so
    that table i's ``seed + i`` stays a valid seed)."""
    if steps == 0:
        return int(seed)
    return int(np.random.SeedSequence([int(seed), int(steps)]).generate_state(1)[0] >> 2)


def build_model(cfg: TrainConfig, env: Any, run: Path, resume: bool) -> Any:
    """A new model (with ``cfg.algo_kwargs``), or the last checkpoint with its replay buffer
    when resuming (:func:`resume_checkpoint`: refused without one); saves are atomic and
    carry the run's metadata (``cuegym.agents.sb3_agent``)."""
    from cuegym.agents.sb3_agent import atomic_algo

    Algo = atomic_algo(algo_class(cfg.algo))
    if resume:
        ckpt, buf = resume_checkpoint(cfg, run)
        model = Algo.load(ckpt, env=env, device=cfg.device)
        if buf is not None and hasattr(model, "load_replay_buffer"):
            model.load_replay_buffer(buf)
        # SB3's load seeds nothing: the tables would start again from seed + i, replaying the
        # first session's positions and noise draws. A resumed session goes on from seeds of
        # (seed, steps done) instead: new episodes, and the same ones at every resume from
        # this checkpoint (the tables, the action space's draws, numpy and torch)
        model.set_random_seed(session_seed(cfg.seed, model.num_timesteps))
        print(f"resumed from {ckpt} at {model.num_timesteps:,} steps", flush=True)
    else:
        model = new_model(cfg, env, Algo)
    model.cuegym_meta = run_meta(cfg)
    return model


def train(cfg: TrainConfig, *, runs_dir: str | Path = "runs", resume: bool = False,
          overwrite: bool = False) -> Path:
    """Run one training; returns the run directory. Raises :class:`RunError` for a run
    directory that does not fit (an existing run without ``resume``/``overwrite``, another
    run's directory with ``resume``) and KeyboardInterrupt after saving a checkpoint."""
    started = time.time()  # the session's time limit counts from here, its setup included
    import numba
    import torch
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    run = Path(runs_dir) / cfg.name
    # a file in the way (or no write access): refused before the env and model checks and the
    # training positions, not by the mkdir after them
    check_writable_dir(run, "--runs-dir", runs_dir)
    check_config(cfg)
    check_episodic(cfg.algo_kwargs, cfg.n_envs)
    if not check_run_dir(cfg, run, resume, overwrite):
        return run

    # seeding, in one block
    set_random_seed(cfg.seed)
    torch.set_num_threads(max(1, int(cfg.threads)))
    # the physics' thread count for this run; not through NUMBA_NUM_THREADS, which numba refuses
    # to change once its pool runs (a training in a process that has simulated already)
    numba.set_num_threads(min(max(1, int(cfg.threads)), numba.config.NUMBA_NUM_THREADS))

    # the envs and the model are built before the run directory is touched: a value they
    # refuse leaves an old run (--overwrite) as it was
    env = make_env(cfg, cfg.n_envs, cfg.seed)
    eval_env = make_env(cfg, min(cfg.n_envs * 4, 128), cfg.seed + 10_000, train=False)
    model = build_model(cfg, env, run, resume)
    start_run_dir(cfg, run, resume, overwrite)
    if cfg.demos and cfg.demos.get("states", 0) and not resume:
        seed_with_demos(model, cfg, run)
        given = cfg.algo_kwargs.get("learning_starts")
        if given:  # the printed hyper-parameters below are the config's
            print(f"learning_starts {given} of algo_kwargs replaced by 0: the demonstrations "
                  "filled the replay buffer, online learning starts at once", flush=True)
    logs = run / "logs"
    part = sum(d.is_dir() for d in logs.iterdir()) if logs.exists() else 0
    model.set_logger(configure(str(logs / str(part)), ["csv", "tensorboard"]))
    if resume:  # the session's first row: the step it starts from (read_progress)
        model.logger.record("time/total_timesteps", model.num_timesteps)
        model.logger.dump(model.num_timesteps)
    print(f"training {cfg.algo.upper()} on {cfg.env_id} ({cfg.action} action), "
          f"{cfg.n_envs} tables, {cfg.total_timesteps:,} steps, seed {cfg.seed}")
    # a rollout: n_steps per table for PPO (the model's own: SB3's default 2,048 if not given)
    chunk = cfg.n_envs * int(getattr(model, "n_steps", 1) if cfg.algo == "ppo" else 1)
    if cfg.total_timesteps % chunk:
        print(f"(SB3 stops after the rollout that reaches them: {cfg.total_timesteps:,} steps "
              f"are played in whole rollouts of {chunk:,})")
    print("hyper-parameters:", json.dumps({"policy_kwargs": cfg.policy_kwargs,
                                           **{k: str(v) for k, v in cfg.algo_kwargs.items()}}))
    callbacks = make_callbacks(cfg, run, eval_env, resume, started)
    if cfg.progress_bar:
        from cuegym.experiments.train_callbacks import quiet_progress_bar

        quiet_progress_bar()
    t0, start_steps = time.time(), model.num_timesteps
    remaining = cfg.total_timesteps - model.num_timesteps
    stop = _sigterm_interrupts()  # a job scheduler's or timeout's stop saves as Ctrl-C does
    try:
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=callbacks,
                        log_interval=1 if cfg.algo == "ppo" else max(4, cfg.eval_freq // 4),
                        progress_bar=cfg.progress_bar, reset_num_timesteps=not resume)
        else:  # (a run interrupted at its last step) only the final evaluation and saves
            for cb in callbacks:
                cb.init_callback(model)
    except KeyboardInterrupt:
        _interrupted(model, run, cfg)
    finally:
        stop()
    dt = time.time() - t0
    try:  # the final evaluation and saves: a stop here saves as one during learning does
        callbacks[0].evaluate_now()
        model.save(run / "model.zip")
    except KeyboardInterrupt:
        _interrupted(model, run, cfg)
    save_checkpoint(model, run, cfg.save_replay_buffer)
    write_status(run, model, cfg, "time_limit" if callbacks[2].hit else "total_timesteps")
    model.logger.close()  # its progress.csv and TensorBoard files (left open otherwise)
    steps = model.num_timesteps - start_steps
    print(f"done: {steps:,} steps in {dt:.0f} s ({steps / max(dt, 1e-9):,.0f} steps/s); "
          f"run in {run}")
    plot_learning_curve(run, f"{cfg.algo.upper()} on {cfg.env_id} ({cfg.action})")
    env.close()
    eval_env.close()
    return run


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="YAML config (configs/train/*.yaml)")
    p.add_argument("--name", help="run name (directory under runs/)")
    p.add_argument("--timesteps", type=int, help="total environment steps (the config's "
                   "total_timesteps)")
    p.add_argument("--seed", type=seed_arg, help="seeds the model, the envs and the "
                   "evaluation (the config's seed)")
    p.add_argument("--algo", choices=ALGOS, help="the SB3 algorithm (the config's algo)")
    p.add_argument("--n-envs", type=int, help="tables of the vector env (the config's n_envs)")
    args = parse_run_args(p, argv, "continue runs/<name> from its last checkpoint (model and "
                          "replay buffer); its config must be the one given")
    stop = _sigterm_interrupts()  # SIGTERM in the setup (positions, demonstrations) too
    try:
        over = run_overrides(args)
        for key, val in (("total_timesteps", args.timesteps), ("seed", args.seed),
                         ("algo", args.algo), ("n_envs", args.n_envs)):
            if val is not None:
                flag_override(over, key, val, f"--{key.replace('total_', '').replace('_', '-')}")
        config = args.config
        if args.resume and config is None:
            if not args.name:
                p.error("--resume needs --name (or --config)")
            config = require_run(Path(args.runs_dir) / check_run_name(args.name, "--name"))
        cfg = load_config(config, over)
        train(cfg, runs_dir=args.runs_dir, resume=args.resume, overwrite=args.overwrite)
    except KeyboardInterrupt as e:  # (a ValueError, bad config or run directory: cli_main)
        if not e.args:
            print("\ninterrupted before learning started: nothing to save", file=sys.stderr)
        return 130
    finally:
        stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
