"""Train an SB3 agent (SAC by default; PPO, TD3, DQN) on a cuegym env from a YAML config.

One readable file in the CleanRL manner: a dataclass of settings (one line of doc per field),
seeding in one block, the hyper-parameters logged, throughput printed. The env is the native
batched one (``cuegym.envs.make_sb3_vec_env``: all tables in one physics call per step),
optionally behind the geometric-residual action wrapper (``cuegym.agents.residual``) or the
discrete shot menu (``cuegym.agents.choice``, for DQN). Evaluation, best model and checkpoints
are SB3's ``EvalCallback`` and ``CheckpointCallback`` (replay buffer included); the one logger
is SB3's (CSV and TensorBoard).

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
``time_limit_min``). Every model,
buffer and metadata file is written to a temporary file and renamed, so an interrupt never
leaves a half-written checkpoint; Ctrl-C saves a last checkpoint and exits (status 130).
``--resume`` refuses a run directory whose config differs from the one given (other than
``total_timesteps``, ``time_limit_min``, ``progress_bar``, ``device``, ``threads``) and says
so, and exits 0, when the run is already finished (a larger ``total_timesteps`` or
``time_limit_min`` continues it).
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
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cuegym.cli_errors import UsageError, check_int, cli_main, resolve_path, seed_arg
from cuegym.cli_errors import unknown as unknown_name

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


#: keys a resumed run may change (how long and how it runs, not what it learns)
RESUME_MAY_CHANGE = ("total_timesteps", "time_limit_min", "progress_bar", "device", "threads")
#: what makes a directory hold a run's work (a directory with only config.yaml, from a run that
#: stopped before learning, is reused)
RUN_WORK = ("status.json", "checkpoints", "model.zip", "best_model.zip", "logs",
            "evaluations.npz", "demos.json")
#: the keys of ``demos`` (SAC/TD3 with the residual action; DQN with the choice action)
DEMO_KEYS = {"residual": ("states", "per_state", "noise_samples", "jitter", "bc_steps",
                          "critic_steps"),
             "choice": ("states", "noise_samples", "q_steps", "q_lr", "q_batch",
                        "buffer_per_state")}
#: integer keys and their minimum
_INT_MIN = {"n_envs": 1, "total_timesteps": 1, "seed": 0, "eval_freq": 1, "eval_episodes": 1,
            "checkpoint_freq": 1, "threads": 1}


def deep_merge(base: dict, over: dict) -> dict:
    """``base`` updated by ``over``, non-empty mappings merged recursively; an empty mapping
    replaces (``demos={}``: no demonstrations), a None value removes the key (back to its
    default)."""
    out = dict(base)
    for k, v in over.items():
        if v is None:
            out.pop(k, None)
        elif isinstance(v, dict) and v:  # (nulls inside a new mapping: nothing to reset)
            out[k] = deep_merge(out[k] if isinstance(out.get(k), dict) else {}, v)
        else:
            out[k] = v
    return out


def layered_config(defaults: dict[str, Any], path: str | Path | None,
                   over: dict[str, Any] | None, what: str) -> dict[str, Any]:
    """``defaults``, then the YAML file ``path`` (if any), then ``over``, merged deeply
    (:func:`deep_merge`); a top-level key not in ``defaults`` is a ValueError naming it (``what``
    names the config), a key set to null takes its default."""
    cfg = dict(defaults)
    for part in ((yaml.safe_load(resolve_path(path).read_text()) or {}) if path else {},
                 over or {}):
        bad = sorted(set(part) - set(defaults))
        if bad:
            raise ValueError(f"unknown {what} config key(s) {bad}; known: {sorted(defaults)}")
        cfg = deep_merge(cfg, part)
    return {**defaults, **cfg}  # a key set to null (removed by deep_merge) is back to default


def read_yaml_mapping(path: str | Path) -> dict:
    """A YAML file that must hold a mapping (one-line ValueError otherwise)."""
    try:
        text = resolve_path(path, "config file").read_text()
    except OSError as e:
        raise ValueError(f"cannot read config file {path}: {e.strerror or e}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ValueError(f"bad YAML: config file {path} is not valid YAML{where}") from None
    if data is None:
        raise ValueError(f"config file {path} is empty: it must be a mapping of TrainConfig keys")
    if not isinstance(data, dict):
        raise ValueError(f"config file {path} must be a mapping of TrainConfig keys, got a "
                         f"{type(data).__name__}")
    return data


def _check_types(data: dict) -> None:
    """Each key's value has its field's type (one-line ValueError naming the key)."""
    for f in dataclasses.fields(TrainConfig):
        if f.name not in data:
            continue
        v = data[f.name]
        kind = type(f.default) if f.default is not dataclasses.MISSING else dict
        if kind is int:
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"config key {f.name} must be an integer, got {v!r}")
            if v < _INT_MIN.get(f.name, 0):
                raise ValueError(f"config key {f.name} must be >= {_INT_MIN.get(f.name, 0)}, "
                                 f"got {v}")
        elif kind is float:
            if isinstance(v, bool) or not isinstance(v, int | float) or not v >= 0 \
                    or v == float("inf"):
                raise ValueError(f"config key {f.name} must be a finite number >= 0, got {v!r}")
        elif kind is not type(v) and not (kind is dict and isinstance(v, dict)):
            raise ValueError(f"config key {f.name} must be a {kind.__name__}, got {v!r}")


def load_config(path: str | Path | None, overrides: dict | None = None) -> TrainConfig:
    """Read a YAML config into :class:`TrainConfig`, ``overrides`` merged deeply
    (:func:`deep_merge`); unknown keys and values of the wrong type raise a one-line
    ValueError naming the key. A key set to null in ``overrides`` (back to its default) must be
    a known one too, at the top level and inside the mappings (``algo_kwargs={bogus: null}``
    and the YAML typo ``{learning_starts:16}``, a key with no value, are refused)."""
    file_data: dict = read_yaml_mapping(path) if path is not None else {}
    over = overrides or {}
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(file_data) - known) + sorted(set(over) - known - set(file_data), key=str)
    if unknown:
        raise ValueError(f"unknown train config key(s) {unknown}; known: {sorted(known)}")
    data = deep_merge(file_data, over)
    _check_types(data)
    cfg = TrainConfig(**data)
    if cfg.algo not in ALGOS:
        raise ValueError(f"algo must be one of {list(ALGOS)}, got {cfg.algo!r}")
    if cfg.action not in ("absolute", "residual", "choice"):
        raise ValueError(f"action must be 'absolute', 'residual' or 'choice', got {cfg.action!r}")
    if (cfg.algo == "dqn") != (cfg.action == "choice"):
        raise ValueError("the choice action (discrete) needs algo dqn, and dqn needs it; got "
                         f"algo {cfg.algo!r} with action {cfg.action!r}")
    resets = {k: [key for key, val in v.items() if val is None]  # keys reset to default
              for k, v in over.items() if k in SECTIONS and isinstance(v, dict)}
    # a wrapper's settings without its wrapper would be ignored: refused where they are given
    # together with another action (--set ones with any other action; a file's with the file's
    # own); a --set action=... that switches a file's action away from them is deliberate
    file_action = file_data.get("action", TrainConfig.action)
    for section in ("residual", "choice"):
        if cfg.action == section:
            continue
        in_over = isinstance(over.get(section), dict) and over[section]
        in_file = file_action != section and getattr(cfg, section)
        if in_over or in_file:
            raise ValueError(f"config key {section} sets the {section} action, but the action "
                             f"is {cfg.action!r}: remove it (--set {section}=null)")
    for section, keys in resets.items():
        if keys:
            check_section_keys(cfg, section, keys)
    return cfg


def _kwarg_names(fn: Any, skip: tuple[str, ...] = ()) -> list[str] | None:
    """The keyword arguments ``fn`` takes (but ``skip``), None when it takes any (``**kw``)."""
    import inspect

    params = inspect.signature(fn).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return None
    return [n for n in params if n not in ("self", *skip)]


#: the config keys that are mappings of settings passed on (checked by name)
SECTIONS = ("demos", "train_positions", "residual", "choice", "algo_kwargs", "env_kwargs",
            "policy_kwargs")


def section_known_keys(cfg: TrainConfig, section: str) -> list[str] | None:
    """The keys the mapping ``section`` of ``cfg`` may hold (None: any)."""
    if section == "demos":
        return list(DEMO_KEYS["choice" if cfg.action == "choice" else "residual"])
    if section == "train_positions":
        return ["generate", "n", "seed"]
    if section in ("residual", "choice"):
        if section == "residual":
            from cuegym.agents.residual import ResidualSpec as spec
        else:
            from cuegym.agents.choice import ChoiceSpec as spec
        return [f.name for f in dataclasses.fields(spec) if f.name != "game"]
    if section == "algo_kwargs":
        return _kwarg_names(algo_class(cfg.algo),
                            ("policy", "env", "policy_kwargs", "seed", "device", "verbose"))
    if section == "env_kwargs":
        from gymnasium import spec as env_spec
        from gymnasium.envs.registration import load_env_creator

        entry = env_spec(cfg.env_id).vector_entry_point
        if isinstance(entry, str):
            entry = load_env_creator(entry)
        return None if entry is None else _kwarg_names(entry, ("num_envs",))
    if section == "policy_kwargs":
        policy = policy_class(cfg.policy)
        if isinstance(policy, str):
            policy = algo_class(cfg.algo).policy_aliases.get(policy)
        return None if policy is None else _kwarg_names(
            policy, ("observation_space", "action_space", "lr_schedule"))
    raise KeyError(section)


def check_section_keys(cfg: TrainConfig, section: str, keys: Any) -> None:
    """Refuse a key of the mapping ``section`` that is not one of its known keys: a one-line
    ValueError naming it (with the closest known key), not a TypeError from deep inside SB3,
    the env or a wrapper, and not silently dropped when its value is null."""
    known = section_known_keys(cfg, section)
    if known is None:
        return
    bad = [k for k in keys if k not in known]
    if not bad:
        return
    if section == "demos":
        raise ValueError(f"unknown demos key(s) {sorted(bad, key=str)} for the {cfg.action} "
                         f"action; known: {known}")
    hint = ""
    if isinstance(bad[0], str) and ":" in bad[0]:
        hint = " (a YAML mapping needs a space after each colon: {key: value})"
    raise ValueError(unknown_name(f"{section} key", bad[0], known) + hint)


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
        _BANKS[key] = generate_keglebillard_play_positions(key[1], seed=key[2],
                                                           progress=cfg.progress_bar)
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


def make_callbacks(cfg: TrainConfig, run: Path, eval_env: Any, resume: bool) -> list:
    """SB3's ``EvalCallback`` (best model, ``evaluations.npz``; foul rate and points per shot
    logged beside the mean reward; fixed seeds at every evaluation), ``CheckpointCallback``
    (model + replay buffer, the last two kept) and the wall-clock limit."""
    from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback, EvalCallback

    calls = max(1, cfg.n_envs)

    class ShotEval(EvalCallback):
        def __init__(self) -> None:
            super().__init__(eval_env, n_eval_episodes=cfg.eval_episodes,
                             eval_freq=max(1, cfg.eval_freq // calls), log_path=str(run),
                             best_model_save_path=str(run), deterministic=True, verbose=0)
            self.terms: dict[str, list] = {"foul_rate": [], "points_per_shot": [],
                                           "given_per_shot": []}
            npz = run / "evaluations.npz"
            if resume and npz.exists():  # carry the log and the best score over the resume
                try:
                    with np.load(npz) as z:
                        self.evaluations_timesteps = z["timesteps"].tolist()
                        self.evaluations_results = z["results"].tolist()
                        self.evaluations_length = z["ep_lengths"].tolist()
                except (OSError, ValueError, KeyError, zipfile.BadZipFile):
                    # SB3 rewrites this log in place: an interrupt can cut it short
                    print(f"note: {npz} is unreadable (cut short by an interrupt?); the "
                          "evaluation log restarts (the CSV logs keep the history)",
                          file=sys.stderr)
                best = [float(r["eval/mean_reward"]) for r in read_progress(run)]
                if best:
                    self.best_mean_reward = max(best)

        def _log_success_callback(self, locals_: dict, globals_: dict) -> None:
            if locals_["done"]:
                info = locals_["info"]
                terms = info.get("reward_terms", {})
                self.terms["foul_rate"].append(float(info.get("foul", False)))
                self.terms["points_per_shot"].append(
                    float(terms.get("points", terms.get("own_goals", 0.0))))
                self.terms["given_per_shot"].append(
                    float(terms.get("skaeve", terms.get("opponent_goals", 0.0))))
                for k, v in self.terms.items():
                    self.logger.record(f"eval/{k}", float(np.mean(v)))

        def _on_step(self) -> bool:
            if self.eval_freq > 0 and self.n_calls % self.eval_freq == 0:
                for v in self.terms.values():
                    v.clear()
                self.eval_env.seed(cfg.seed + 10_000)  # the same positions every time
            return super()._on_step()

        def evaluate_now(self) -> None:
            """One evaluation at the current step (start and end of learning), unless the
            last one was at this step."""
            if self.evaluations_timesteps and \
                    self.evaluations_timesteps[-1] == self.model.num_timesteps:
                return
            calls_before, self.n_calls = self.n_calls, 0
            self.num_timesteps = self.model.num_timesteps
            self._on_step()
            self.n_calls = calls_before

        def _on_training_start(self) -> None:
            self.evaluate_now()

    class Checkpoints(CheckpointCallback):
        def _on_step(self) -> bool:
            if self.n_calls % self.save_freq == 0:
                save_checkpoint(self.model, run, cfg.save_replay_buffer)
            return True

    class TimeLimit(BaseCallback):
        hit = False

        def _on_step(self) -> bool:
            if cfg.time_limit_min and time.time() - T_START > 60.0 * cfg.time_limit_min:
                print(f"time limit of {cfg.time_limit_min} min reached at "
                      f"{self.num_timesteps:,} steps", flush=True)
                self.hit = True
                return False
            return True

    ckpt = Checkpoints(max(1, cfg.checkpoint_freq // calls), str(run / "checkpoints"),
                       save_replay_buffer=cfg.save_replay_buffer)
    return [ShotEval(), ckpt, TimeLimit()]


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


def write_atomic(path: Path, text: str) -> None:
    """Write a small text file atomically (temporary file, then a rename)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def read_progress(run: Path) -> list[dict[str, str]]:
    """The rows of SB3's CSV logs of all sessions of ``run`` (``logs/<part>/progress.csv``) that
    hold an evaluation, in step order."""
    rows = []
    for part in sorted((run / "logs").glob("*/progress.csv"), key=lambda p: int(p.parent.name)):
        with open(part) as fh:
            rows += [r for r in csv.DictReader(fh) if r.get("eval/mean_reward")]
    return sorted(rows, key=lambda r: float(r["time/total_timesteps"]))


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
                              ("mean reward (eval)", "foul rate",
                               "own goals / stroke" if golf else "points / shot"), strict=True):
        y = np.array([float(r.get(f"eval/{key}") or "nan") for r in rows])
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


class RunError(ValueError):
    """A run directory that does not fit the request (exit 2 with one line)."""


def check_resume(cfg: TrainConfig, run: Path) -> dict[str, Any]:
    """The saved settings of ``run`` must be ``cfg``'s (but for :data:`RESUME_MAY_CHANGE`);
    returns its status (``{"timesteps", "finished"}``)."""
    saved_path = run / "config.yaml"
    if not saved_path.exists():
        raise RunError(f"--resume: {run} holds no run (no config.yaml)")
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
        same_budget = (st.get("total_timesteps"), st.get("time_limit_min")) == \
            (cfg.total_timesteps, cfg.time_limit_min)
        if st["finished"] and same_budget:  # a larger budget continues the run
            why = "its time limit" if st.get("stopped_by") == "time_limit" else "all its steps"
            print(f"run {run} is finished ({st['timesteps']:,} of {cfg.total_timesteps:,} "
                  f"steps, stopped by {why}); nothing to resume (raise total_timesteps or "
                  "time_limit_min to continue it)", flush=True)
            return False
    elif any((run / f).exists() for f in RUN_WORK) and not overwrite:
        raise RunError(f"{run} holds a run already: continue it with --resume, start over "
                       "with --overwrite (deletes it) or choose another --name")
    return True


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


def build_model(cfg: TrainConfig, env: Any, run: Path, resume: bool) -> Any:
    """A new model (with ``cfg.algo_kwargs``), or the last checkpoint with its replay buffer
    when resuming; saves are atomic and carry the run's metadata (``cuegym.agents.sb3_agent``)."""
    from cuegym.agents.sb3_agent import atomic_algo

    Algo = atomic_algo(algo_class(cfg.algo))
    if resume:
        found = latest_checkpoint(run)
        if found is None:
            raise RunError(f"--resume: no checkpoint in {run / 'checkpoints'}; start over with "
                           "--overwrite")
        ckpt, buf = found
        model = Algo.load(ckpt, env=env, device=cfg.device)
        if buf is not None and hasattr(model, "load_replay_buffer"):
            model.load_replay_buffer(buf)
        print(f"resumed from {ckpt} at {model.num_timesteps:,} steps", flush=True)
    else:
        kwargs = dict(cfg.algo_kwargs)
        if cfg.algo in ("sac", "td3") and "action_noise" in kwargs:
            from stable_baselines3.common.noise import NormalActionNoise

            sd = float(kwargs.pop("action_noise"))
            dim = env.action_space.shape[0]
            kwargs["action_noise"] = NormalActionNoise(np.zeros(dim), sd * np.ones(dim))
        try:
            model = Algo(policy_class(cfg.policy), env, policy_kwargs=dict(cfg.policy_kwargs),
                         seed=cfg.seed, device=cfg.device, verbose=0, **kwargs)
        except (TypeError, RuntimeError, AssertionError) as e:  # a value SB3/torch refuse
            raise ValueError(f"config keys policy_kwargs / algo_kwargs: cannot build the "
                             f"{cfg.algo} model from them: "
                             f"{str(e).splitlines()[0] if str(e) else type(e).__name__}"
                             ) from e
    model.cuegym_meta = run_meta(cfg)
    return model


#: residual fields that are largest corrections (>= 0)
_NONNEGATIVE = ("prior", "dphi", "dlogv", "spin", "side", "dplace")


def _finite(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v)


def check_spec(cfg: TrainConfig, section: str) -> None:
    """The ``residual`` / ``choice`` settings make a valid ResidualSpec / ChoiceSpec for the
    game: every value of its field's type (numbers finite), a one-line ValueError naming the
    key otherwise (not a TypeError or a numpy error from deep inside the wrapper)."""
    given = getattr(cfg, section)
    if not given:
        return
    check_section_keys(cfg, section, given)
    if section == "residual":
        from cuegym.agents.residual import ResidualSpec as spec
    else:
        from cuegym.agents.choice import ChoiceSpec as spec
    defaults = {f.name: f.default for f in dataclasses.fields(spec)}
    for key, v in given.items():
        d = defaults[key]
        if isinstance(d, int) and not isinstance(d, bool):
            check_int(f"config key {section}.{key}", v, 1)
        elif isinstance(d, float):
            if not _finite(v) or (key in _NONNEGATIVE and v < 0):
                raise ValueError(f"config key {section}.{key} must be a finite number"
                                 f"{' >= 0' if key in _NONNEGATIVE else ''}, got {v!r}")
        elif isinstance(d, tuple):
            if not isinstance(v, list | tuple) or not v or not all(_finite(x) for x in v):
                raise ValueError(f"config key {section}.{key} must be a list of finite numbers, "
                                 f"got {v!r}")
    try:
        spec(game=game_of(cfg.env_id), **given)
    except (ValueError, TypeError) as e:
        raise ValueError(f"config key {section}: {e}") from None


def _check_net_arch(arch: Any) -> None:
    """``policy_kwargs.net_arch``: a list of layer sizes (integers >= 1), or a mapping of such
    lists (``{pi: [..], qf: [..]}``)."""
    lists = arch.values() if isinstance(arch, dict) else [arch]
    for sizes in lists:
        if not isinstance(sizes, list) or not all(
                isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in sizes):
            raise ValueError("config key policy_kwargs.net_arch must be a list of layer sizes "
                             f"(integers >= 1) or a mapping of such lists, got {arch!r}")


def check_arguments(cfg: TrainConfig) -> None:
    """Check what the config passes on to torch, SB3, the env and the action wrappers before a
    run directory is touched: the device, the keys of ``demos``, ``train_positions``,
    ``algo_kwargs``, ``env_kwargs`` and ``policy_kwargs``, and the ``residual`` / ``choice``
    settings."""
    import torch

    if cfg.demos.get("states") and not (cfg.action == "choice" or (
            cfg.algo in ("sac", "td3") and cfg.action == "residual")):
        raise ValueError("demos need an off-policy algo (sac, td3) and the residual action, "
                         "or dqn and the choice action")
    # all of them, even those a run without ``states`` skips: a mistyped key is not ignored
    for section in SECTIONS:
        check_section_keys(cfg, section, getattr(cfg, section))
    for key, v in cfg.demos.items():
        if not _finite(v) or v < 0 or (key not in ("jitter", "q_lr") and not isinstance(v, int)):
            kind = "a finite number" if key in ("jitter", "q_lr") else "an integer"
            raise ValueError(f"config key demos.{key} must be {kind} >= 0, got {v!r}")
    if cfg.train_positions:
        for key, lo in (("n", 1), ("seed", 0)):
            if key in cfg.train_positions:
                check_int(f"config key train_positions.{key}", cfg.train_positions[key], lo)
    try:
        torch.device(cfg.device)
    except (RuntimeError, TypeError):
        raise ValueError(f"config key device: {cfg.device!r} is not a torch device (cpu, "
                         "cuda, cuda:0, ...)") from None
    if "net_arch" in cfg.policy_kwargs:
        _check_net_arch(cfg.policy_kwargs["net_arch"])
    for section in ("residual", "choice"):
        check_spec(cfg, section)


def train(cfg: TrainConfig, *, runs_dir: str | Path = "runs", resume: bool = False,
          overwrite: bool = False) -> Path:
    """Run one training; returns the run directory. Raises :class:`RunError` for a run
    directory that does not fit (an existing run without ``resume``/``overwrite``, another
    run's directory with ``resume``) and KeyboardInterrupt after saving a checkpoint."""
    import numba
    import torch
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    check_arguments(cfg)
    run = Path(runs_dir) / cfg.name
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
    logs = run / "logs"
    part = sum(d.is_dir() for d in logs.iterdir()) if logs.exists() else 0
    model.set_logger(configure(str(logs / str(part)), ["csv", "tensorboard"]))
    print(f"training {cfg.algo.upper()} on {cfg.env_id} ({cfg.action} action), "
          f"{cfg.n_envs} tables, {cfg.total_timesteps:,} steps, seed {cfg.seed}")
    print("hyper-parameters:", json.dumps({"policy_kwargs": cfg.policy_kwargs,
                                           **{k: str(v) for k, v in cfg.algo_kwargs.items()}}))
    callbacks = make_callbacks(cfg, run, eval_env, resume)
    t0, start_steps = time.time(), model.num_timesteps
    remaining = cfg.total_timesteps - model.num_timesteps
    try:
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=callbacks,
                        log_interval=1 if cfg.algo == "ppo" else max(4, cfg.eval_freq // 4),
                        progress_bar=cfg.progress_bar, reset_num_timesteps=not resume)
    except KeyboardInterrupt:
        path = save_checkpoint(model, run, cfg.save_replay_buffer)
        write_status(run, model, cfg, "interrupt")
        print(f"\ninterrupted at {model.num_timesteps:,} steps; checkpoint {path} saved: "
              f"continue with --name {cfg.name} --resume", file=sys.stderr, flush=True)
        raise KeyboardInterrupt("checkpoint saved") from None
    dt = time.time() - t0
    callbacks[0].evaluate_now()
    model.save(run / "model.zip")
    save_checkpoint(model, run, cfg.save_replay_buffer)
    write_status(run, model, cfg, "time_limit" if callbacks[2].hit else "total_timesteps")
    steps = model.num_timesteps - start_steps
    print(f"done: {steps:,} steps in {dt:.0f} s ({steps / max(dt, 1e-9):,.0f} steps/s); "
          f"run in {run}")
    plot_learning_curve(run, f"{cfg.algo.upper()} on {cfg.env_id} ({cfg.action})")
    env.close()
    eval_env.close()
    return run


def parse_set(items: list[str]) -> dict[str, Any]:
    """``--set key=value`` pairs; values are parsed as YAML (numbers, lists, mappings); a
    repeated key's mappings merge."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--set needs key=value, got {item!r}")
        k, v = item.split("=", 1)
        try:
            val = yaml.safe_load(v)
        except yaml.YAMLError:
            raise ValueError(f"--set {k.strip()}: {v!r} is not valid YAML") from None
        out = _merge_sets(out, {k.strip(): val})
    return out


def _merge_sets(base: dict, over: dict) -> dict:
    """Two ``--set`` pairs merged: as :func:`deep_merge`, but a null is kept (not applied), so
    that :func:`load_config` sees, and checks, every key set to null."""
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and v and isinstance(out.get(k), dict) and out[k]:
            out[k] = _merge_sets(out[k], v)
        else:
            out[k] = v
    return out


def parse_run_args(p: argparse.ArgumentParser, argv: list[str] | None,
                   resume_help: str) -> argparse.Namespace:
    """Add the options every run script shares (``--resume`` with ``resume_help``,
    ``--overwrite``, ``--runs-dir``, ``--no-progress``, ``--set``) to ``p`` and parse ``argv``;
    ``--resume`` with ``--overwrite`` is a usage error."""
    p.add_argument("--resume", action="store_true", help=resume_help)
    p.add_argument("--overwrite", action="store_true", help="delete an existing runs/<name> "
                   "and start over")
    p.add_argument("--runs-dir", default="runs", help="directory of the runs (default ./runs)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                   help="override config keys (values as YAML; mappings merge deeply)")
    args = p.parse_args(argv)
    if args.resume and args.overwrite:
        p.error("--resume and --overwrite exclude each other")
    return args


def run_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The config overrides every run script takes from its command line (:func:`parse_run_args`
    options and ``--name``): the ``--set`` pairs, then ``name`` and ``progress_bar: false``
    where ``--name`` / ``--no-progress`` were given."""
    over = parse_set(args.set)
    if getattr(args, "name", None):
        flag_override(over, "name", args.name, "--name")
    if args.no_progress:
        flag_override(over, "progress_bar", False, "--no-progress")
    return over


def flag_override(over: dict[str, Any], key: str, value: Any, flag: str) -> None:
    """Set ``over[key]`` from the command-line flag ``flag``; a ``--set key=...`` of another
    value is a :class:`UsageError` (one of the two would be ignored)."""
    if key in over and over[key] != value:
        raise UsageError(f"--set {key}={over[key]!r} contradicts {flag}: give one of them")
    over[key] = value


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="YAML config (configs/train/*.yaml)")
    p.add_argument("--name", help="run name (directory under runs/)")
    p.add_argument("--timesteps", type=int, help="total environment steps")
    p.add_argument("--seed", type=seed_arg)
    p.add_argument("--algo", choices=ALGOS)
    p.add_argument("--n-envs", type=int)
    args = parse_run_args(p, argv, "continue runs/<name> from its last checkpoint (model and "
                          "replay buffer); its config must be the one given")
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
            config = Path(args.runs_dir) / args.name / "config.yaml"
            if not config.exists():
                raise RunError(f"--resume: {config.parent} holds no run (no config.yaml)")
        cfg = load_config(config, over)
        train(cfg, runs_dir=args.runs_dir, resume=args.resume, overwrite=args.overwrite)
    except KeyboardInterrupt as e:  # (a ValueError, bad config or run directory: cli_main)
        if not e.args:
            print("\ninterrupted before learning started: nothing to save", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
