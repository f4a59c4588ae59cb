"""Train an SB3 agent (SAC by default; PPO, TD3, DQN) on a cuegym env from a YAML config.

One readable file in the CleanRL manner: a dataclass of settings (one line of doc per field),
seeding in one block, the hyper-parameters logged, throughput printed. The env is the native
batched one (``cuegym.envs.make_sb3_vec_env``: all tables in one physics call per step),
optionally behind the geometric-residual action wrapper (``cuegym.agents.residual``) or the
discrete shot menu (``cuegym.agents.choice``, for DQN).

    python experiments/train.py --config configs/train/keglebillard_sac.yaml
    python experiments/train.py --config configs/train/keglebillard_sac.yaml --timesteps 20000 \\
        --name quick --seed 1
    python experiments/train.py --name quick --resume          # continue from the last checkpoint

Writes ``runs/<name>/``: ``model.zip`` (final), ``best_model.zip`` (best periodic evaluation),
``config.yaml`` (the settings used), ``metrics.csv`` (one row per evaluation),
``learning_curve.png``, ``checkpoints/`` (model + replay buffer, for ``--resume``) and ``tb/``
(TensorBoard: ``tensorboard --logdir runs/<name>/tb``).
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cuegym.cli_errors import cli_main, resolve_path

ROOT = Path(__file__).resolve().parents[1]
ALGOS = ("sac", "ppo", "td3", "dqn")
T_START = time.time()  # the time limit counts from the start of the process (demos included)


@dataclass
class TrainConfig:
    """Settings of one training run (YAML keys; unknown keys are errors)."""

    name: str = "keglebillard_sac"  # run directory under runs/
    algo: str = "sac"  # sac | ppo | td3 | dqn (dqn: choice action only)
    env_id: str = "cuegym/KeglebillardShot-v0"  # a registered cuegym id
    env_kwargs: dict = field(default_factory=lambda: {"noise": "tournament"})  # env arguments
    action: str = "residual"  # absolute (the env's action) | residual (geometric residual) |
    #   choice (discrete menu of geometric shots in spin/speed variants)
    residual: dict = field(default_factory=dict)  # ResidualSpec fields (residual action only)
    choice: dict = field(default_factory=dict)  # ChoiceSpec fields (choice action only)
    train_positions: dict = field(default_factory=dict)  # Shot env start positions for
    #   training (and demos) generated at the start instead of the bank named in env_kwargs:
    #   {generate: keglebillard-play, n: .., seed: ..}; evaluation keeps the named bank, so the
    #   periodic evaluation (and the best-model choice) sees positions training never met
    n_envs: int = 16  # tables stepped together
    total_timesteps: int = 200_000  # environment steps (all tables together)
    seed: int = 0  # seeds torch, numpy, the envs (table i: seed + i)
    policy: str = "MlpPolicy"  # SB3 policy name, or a dotted path to a policy class
    policy_kwargs: dict = field(default_factory=lambda: {"net_arch": [256, 256]})  # network
    algo_kwargs: dict = field(default_factory=dict)  # SAC/PPO/TD3/DQN hyper-parameters
    demos: dict = field(default_factory=dict)  # simulated demonstrations before learning.
    #   SAC/TD3, residual action: states, per_state, noise_samples, jitter, bc_steps,
    #   critic_steps. DQN, choice action: states, noise_samples, q_steps, q_lr, q_batch,
    #   buffer_per_state
    time_limit_min: float = 0.0  # stop learning after this many minutes of wall clock (0: none)
    eval_freq: int = 10_000  # environment steps between evaluations
    eval_episodes: int = 512  # one-shot episodes (fixed seeds) per evaluation
    checkpoint_freq: int = 50_000  # environment steps between checkpoints
    threads: int = 1  # torch threads (1: small networks gain little from more, and extra
    #   threads spin badly when the cores are shared)
    save_replay_buffer: bool = True  # checkpoints include the replay buffer (needed by --resume)
    device: str = "cpu"  # torch device
    progress_bar: bool = True  # tqdm/rich progress bar


def load_config(path: str | Path | None, overrides: dict | None = None) -> TrainConfig:
    """Read a YAML config into :class:`TrainConfig` (then ``overrides``); unknown keys raise."""
    data: dict = {}
    if path is not None:
        with open(resolve_path(path, "config file")) as fh:
            data = yaml.safe_load(fh) or {}
    data.update(overrides or {})
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown train config key(s) {unknown}; known: {sorted(known)}")
    cfg = TrainConfig(**data)
    if cfg.algo not in ALGOS:
        raise ValueError(f"algo must be one of {list(ALGOS)}, got {cfg.algo!r}")
    if cfg.action not in ("absolute", "residual", "choice"):
        raise ValueError(f"action must be 'absolute', 'residual' or 'choice', got {cfg.action!r}")
    if (cfg.algo == "dqn") != (cfg.action == "choice"):
        raise ValueError("the choice action (discrete) needs algo dqn, and dqn needs it; got "
                         f"algo {cfg.algo!r} with action {cfg.action!r}")
    return cfg


def game_of(env_id: str) -> str:
    return "golfbillard" if "Golf" in env_id else "keglebillard"


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
        _BANKS[key] = generate_keglebillard_play_positions(key[1], seed=key[2])
        print(f"training positions: {key[1]:,} from games between geometric aimers (seed "
              f"{key[2]}) in {time.time() - t0:.0f} s", flush=True)
    return _BANKS[key]


def make_env(cfg: TrainConfig, n_envs: int, seed: int, train: bool = True) -> Any:
    """The SB3 VecEnv: the native batched env (on the generated training positions when
    configured and ``train``), the residual or choice wrapper if configured, a monitor."""
    from stable_baselines3.common.vec_env import VecMonitor

    from cuegym.envs import make_sb3_vec_env

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
    return VecMonitor(venv)


def algo_class(name: str):
    from stable_baselines3 import DQN, PPO, SAC, TD3

    return {"sac": SAC, "ppo": PPO, "td3": TD3, "dqn": DQN}[name]


def policy_class(name: str) -> Any:
    """An SB3 policy name (``MlpPolicy``) as is, or a dotted path to a policy class
    (``cuegym.agents.qnet.CandidateQPolicy``) imported."""
    if "." not in name:
        return name
    import importlib

    mod, _, cls = name.rpartition(".")
    try:
        return getattr(importlib.import_module(mod), cls)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"policy {name!r} cannot be imported: {exc}") from exc


# ---------------------------------------------------------------------------------------------
# Periodic evaluation, best model, metrics CSV, checkpoints
# ---------------------------------------------------------------------------------------------


def evaluate_policy_on(model: Any, env: Any, episodes: int, seed: int) -> dict[str, float]:
    """Deterministic policy on ``episodes`` one-decision episodes with fixed seeds: mean
    reward, foul rate, points and skæve (keglebillard) or own goals (golfbillard) per shot."""
    env.seed(seed)
    obs = env.reset()
    n = env.num_envs
    rew, foul, pts, given = [], [], [], []
    while len(rew) < episodes:
        act, _ = model.predict(obs, deterministic=True)
        obs, r, done, info = env.step(act)
        for k in range(n):
            if done[k]:
                rew.append(float(r[k]))
                foul.append(float(info[k].get("foul", False)))
                terms = info[k].get("reward_terms", {})
                pts.append(float(terms.get("points", terms.get("own_goals", 0.0))))
                given.append(float(terms.get("skaeve", terms.get("opponent_goals", 0.0))))
    k = episodes
    return {"mean_reward": float(np.mean(rew[:k])), "foul_rate": float(np.mean(foul[:k])),
            "points_per_shot": float(np.mean(pts[:k])), "given_per_shot": float(np.mean(given[:k]))}


def make_callbacks(cfg: TrainConfig, run: Path, eval_env: Any):
    from stable_baselines3.common.callbacks import BaseCallback

    class EvalCSV(BaseCallback):
        """Every ``eval_freq`` steps: evaluate, append to metrics.csv, keep the best model,
        write a checkpoint (model + replay buffer) every ``checkpoint_freq`` steps."""

        def __init__(self) -> None:
            super().__init__()
            self.best = -np.inf
            self.t0 = time.time()
            self.next_eval = 0
            self.next_ckpt = cfg.checkpoint_freq
            self.csv = run / "metrics.csv"

        def _on_training_start(self) -> None:
            self.next_eval = self.num_timesteps  # evaluate at the start (and on resume)
            if (run / "best.json").exists():
                self.best = json.loads((run / "best.json").read_text())["mean_reward"]

        def _on_step(self) -> bool:
            if cfg.time_limit_min and time.time() - T_START > 60.0 * cfg.time_limit_min:
                print(f"time limit of {cfg.time_limit_min} min reached at "
                      f"{self.num_timesteps:,} steps", flush=True)
                return False
            if self.num_timesteps >= self.next_eval:
                self.next_eval = self.num_timesteps + cfg.eval_freq
                self.evaluate()
            if self.num_timesteps >= self.next_ckpt:
                self.next_ckpt = self.num_timesteps + cfg.checkpoint_freq
                save_checkpoint(self.model, run, cfg.save_replay_buffer)
            return True

        def evaluate(self) -> None:
            m = evaluate_policy_on(self.model, eval_env, cfg.eval_episodes, cfg.seed + 10_000)
            row = {"timesteps": self.num_timesteps, "wall_s": round(time.time() - self.t0, 1),
                   **{k: round(v, 5) for k, v in m.items()}}
            new = not self.csv.exists()
            with open(self.csv, "a", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=list(row))
                if new:
                    w.writeheader()
                w.writerow(row)
            for k, v in m.items():
                self.logger.record(f"eval/{k}", v)
            if m["mean_reward"] > self.best:
                self.best = m["mean_reward"]
                self.model.save(run / "best_model.zip")
                (run / "best.json").write_text(json.dumps({**row, "mean_reward": self.best}))
            print(f"[eval] steps {self.num_timesteps:>9,}  reward {m['mean_reward']:+.4f}  "
                  f"fouls {m['foul_rate']:.3f}  points/shot {m['points_per_shot']:.3f}  "
                  f"best {self.best:+.4f}", flush=True)

    return EvalCSV()


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
    d = dict(cfg.demos)
    unknown = sorted(set(d) - {"states", "per_state", "noise_samples", "jitter", "bc_steps",
                               "critic_steps"})
    if unknown:
        raise ValueError(f"unknown demos key(s) {unknown}")
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

    d = dict(cfg.demos)
    keys = {"states", "noise_samples", "q_steps", "q_lr", "q_batch", "buffer_per_state"}
    unknown = sorted(set(d) - keys)
    if unknown:
        raise ValueError(f"unknown demos key(s) for the choice action {unknown}; known: "
                         f"{sorted(keys)}")
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


def save_checkpoint(model: Any, run: Path, save_buffer: bool = True) -> None:
    ck = run / "checkpoints"
    ck.mkdir(exist_ok=True)
    model.save(ck / "latest.zip")
    if save_buffer and hasattr(model, "save_replay_buffer") and \
            getattr(model, "replay_buffer", None) is not None:
        model.save_replay_buffer(ck / "latest_replay_buffer.pkl")
    (ck / "latest.json").write_text(json.dumps({"timesteps": int(model.num_timesteps)}))


def plot_learning_curve(run: Path, title: str = "") -> Path | None:
    """learning_curve.png from metrics.csv: mean reward, foul rate and points per shot; with
    demonstrations, the reward of the aimer's own shot as the before-learning reference (step 0
    is after the pre-training on the demonstrations)."""
    path = run / "metrics.csv"
    if not path.exists():
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        return None
    from matplotlib.ticker import FuncFormatter

    x = np.array([float(r["timesteps"]) for r in rows])
    golf = "Golf" in title
    before = None  # the untrained reference: the aimer's own shot on the demonstration positions
    if (run / "demos.json").exists():
        info = json.loads((run / "demos.json").read_text())
        before = info.get("mean_reward_aimer", info.get("mean_reward_first"))
    fig, axs = plt.subplots(1, 3, figsize=(13, 3.6))
    for ax, key, label in zip(axs, ("mean_reward", "foul_rate", "points_per_shot"),
                              ("mean reward (eval)", "foul rate",
                               "own goals / stroke" if golf else "points / shot"), strict=True):
        y = np.array([float(r[key]) for r in rows])
        ax.plot(x, y, marker="o", ms=3, label="evaluation")
        if key == "mean_reward" and before is not None:
            ax.axhline(before, color="grey", ls="--", lw=1,
                       label="the aimer's own shot (before learning)")
            ax.legend(fontsize=8, loc="best")
        ax.set_xlabel("environment steps")
        ax.xaxis.set_major_formatter(FuncFormatter(
            lambda v, _: f"{v / 1e6:g}M" if v >= 1e6 else f"{v / 1e3:g}k" if v else "0"))
        ax.set_title(label)
        ax.grid(alpha=0.3)
    fig.suptitle(title or run.name)
    fig.tight_layout()
    out = run / "learning_curve.png"
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------


def train(cfg: TrainConfig, *, runs_dir: str | Path = "runs", resume: bool = False
          ) -> Path:
    """Run one training; returns the run directory."""
    import torch
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    run = Path(runs_dir) / cfg.name
    if run.exists() and not resume:
        for f in ("metrics.csv", "best.json"):
            (run / f).unlink(missing_ok=True)
    run.mkdir(parents=True, exist_ok=True)
    with open(run / "config.yaml", "w") as fh:
        yaml.safe_dump(dataclasses.asdict(cfg), fh, sort_keys=False)

    # seeding, in one block
    set_random_seed(cfg.seed)
    torch.set_num_threads(max(1, int(cfg.threads)))
    os.environ.setdefault("NUMBA_NUM_THREADS", str(max(1, int(cfg.threads))))

    env = make_env(cfg, cfg.n_envs, cfg.seed)
    eval_env = make_env(cfg, min(cfg.n_envs * 4, 128), cfg.seed + 10_000, train=False)
    Algo = algo_class(cfg.algo)
    ckpt = run / "checkpoints" / "latest.zip"
    if resume:
        if not ckpt.exists():
            raise FileNotFoundError(f"--resume: no checkpoint at {ckpt}")
        model = Algo.load(ckpt, env=env, device=cfg.device)
        buf = run / "checkpoints" / "latest_replay_buffer.pkl"
        if buf.exists() and hasattr(model, "load_replay_buffer"):
            model.load_replay_buffer(buf)
        print(f"resumed from {ckpt} at {model.num_timesteps:,} steps")
    else:
        kwargs = dict(cfg.algo_kwargs)
        if cfg.algo in ("sac", "td3") and "action_noise" in kwargs:
            from stable_baselines3.common.noise import NormalActionNoise

            sd = float(kwargs.pop("action_noise"))
            dim = env.action_space.shape[0]
            kwargs["action_noise"] = NormalActionNoise(np.zeros(dim), sd * np.ones(dim))
        model = Algo(policy_class(cfg.policy), env, policy_kwargs=dict(cfg.policy_kwargs),
                     seed=cfg.seed,
                     device=cfg.device, verbose=0, **kwargs)
    if cfg.demos and cfg.demos.get("states", 0) and not resume:
        seed_with_demos(model, cfg, run)
    model.set_logger(configure(str(run / "tb"), ["tensorboard", "csv"]))
    print(f"training {cfg.algo.upper()} on {cfg.env_id} ({cfg.action} action), "
          f"{cfg.n_envs} tables, {cfg.total_timesteps:,} steps, seed {cfg.seed}")
    print("hyper-parameters:", json.dumps({"policy_kwargs": cfg.policy_kwargs,
                                           **{k: str(v) for k, v in cfg.algo_kwargs.items()}}))
    cb = make_callbacks(cfg, run, eval_env)
    remaining = cfg.total_timesteps - (model.num_timesteps if resume else 0)
    t0 = time.time()
    start_steps = model.num_timesteps
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=cb, progress_bar=cfg.progress_bar,
                    reset_num_timesteps=not resume)
    dt = time.time() - t0
    cb.evaluate()
    model.save(run / "model.zip")
    save_checkpoint(model, run, cfg.save_replay_buffer)
    steps = model.num_timesteps - start_steps
    print(f"done: {steps:,} steps in {dt:.0f} s ({steps / max(dt, 1e-9):,.0f} steps/s); "
          f"run in {run}")
    plot_learning_curve(run, f"{cfg.algo.upper()} on {cfg.env_id} ({cfg.action})")
    env.close()
    eval_env.close()
    return run


def parse_set(items: list[str]) -> dict[str, Any]:
    """``--set key=value`` pairs; values are parsed as YAML (numbers, lists, mappings)."""
    out = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--set needs key=value, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = yaml.safe_load(v)
    return out


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="YAML config (configs/train/*.yaml)")
    p.add_argument("--name", help="run name (directory under runs/)")
    p.add_argument("--timesteps", type=int, help="total environment steps")
    p.add_argument("--seed", type=int)
    p.add_argument("--algo", choices=ALGOS)
    p.add_argument("--n-envs", type=int)
    p.add_argument("--resume", action="store_true", help="continue runs/<name> from its last "
                   "checkpoint (model and replay buffer)")
    p.add_argument("--runs-dir", default="runs", help="directory of the runs (default ./runs)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                   help="override config keys (values as YAML)")
    args = p.parse_args(argv)
    over = parse_set(args.set)
    for key, val in (("name", args.name), ("total_timesteps", args.timesteps),
                     ("seed", args.seed), ("algo", args.algo), ("n_envs", args.n_envs)):
        if val is not None:
            over[key] = val
    if args.no_progress:
        over["progress_bar"] = False
    config = args.config
    if args.resume and config is None:
        if not args.name:
            p.error("--resume needs --name (or --config)")
        config = Path(args.runs_dir) / args.name / "config.yaml"
    cfg = load_config(config, over)
    if args.resume and args.config is not None:
        saved = Path(args.runs_dir) / cfg.name / "config.yaml"
        if saved.exists():
            shutil.copy(saved, Path(args.runs_dir) / cfg.name / "config.prev.yaml")
    train(cfg, runs_dir=args.runs_dir, resume=args.resume)
    return 0


if __name__ == "__main__":
    sys.exit(main())
