"""The settings of a training run (experiments/train.py): the :class:`TrainConfig` dataclass,
its YAML loading with ``--set`` overrides, and every check that runs before a run directory is
touched (unknown keys, null values, the keys of the mappings passed on to SB3, the env and the
action wrappers, the wrappers' specs, the network sizes). The other run scripts (selfplay,
train_aim, expert_iteration, reproduce) share the command-line half: ``parse_run_args``,
``run_overrides``, ``flag_override``, ``refuse_empty``, ``check_device``."""

from __future__ import annotations

import argparse
import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cuegym.cli_errors import UsageError, check_int, existing_file, packaged_path, resolve_path
from cuegym.cli_errors import unknown as unknown_name
from cuegym.configs import finite_number, load_yaml, text_number_hint

ALGOS = ("sac", "ppo", "td3", "dqn")


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
    seed: int = 0  # seeds torch, numpy, the envs (table i: seed + i); 0 to 2**32 - 1 (SB3)
    policy: str = "MlpPolicy"  # SB3 policy name, or a dotted path to a policy class
    policy_kwargs: dict = field(default_factory=lambda: {"net_arch": [256, 256]})  # network
    algo_kwargs: dict = field(default_factory=dict)  # SAC/PPO/TD3/DQN hyper-parameters
    demos: dict = field(default_factory=dict)  # simulated demonstrations before learning.
    #   SAC/TD3, residual action: states, per_state, noise_samples, jitter, bc_steps,
    #   critic_steps. DQN, choice action: states, noise_samples, q_steps, q_lr, q_batch,
    #   buffer_per_state
    time_limit_min: float = 0.0  # stop learning this many wall-clock minutes after the session
    # (one train() call, one --resume) started, its setup (positions, demos) included: the setup
    # runs whole, so one longer than the limit leaves no learning (0: no limit)
    eval_freq: int = 10_000  # environment steps between evaluations
    eval_episodes: int = 512  # one-shot episodes (fixed seeds) per evaluation
    checkpoint_freq: int = 50_000  # environment steps between checkpoints
    threads: int = 1  # torch threads (1: small networks gain little from more, and extra
    #   threads spin badly when the cores are shared)
    save_replay_buffer: bool = True  # checkpoints include the replay buffer (needed by --resume)
    device: str = "cpu"  # torch device
    progress_bar: bool = True  # tqdm/rich progress bar


#: the keys of ``demos`` (SAC/TD3 with the residual action; DQN with the choice action)
DEMO_KEYS = {"residual": ("states", "per_state", "noise_samples", "jitter", "bc_steps",
                          "critic_steps"),
             "choice": ("states", "noise_samples", "q_steps", "q_lr", "q_batch",
                        "buffer_per_state")}


#: ``demos`` keys that divide or scale the work (0 would divide by zero, shape an empty batch or
#: learn at rate 0); the others may be 0 (``states: 0``: no demonstrations)
_DEMO_POSITIVE = ("per_state", "noise_samples", "q_batch", "q_lr")


#: integer keys and their minimum
_INT_MIN = {"n_envs": 1, "total_timesteps": 1, "seed": 0, "eval_freq": 1, "eval_episodes": 1,
            "checkpoint_freq": 1, "threads": 1}

#: the largest seed SB3 takes: its ``set_random_seed`` seeds numpy's global generator, which
#: refuses one above 2**32 - 1 (with a message that names neither the key nor the value).
#: train.py's ``seed`` and selfplay.py's; the tables' ``seed + i`` may go beyond it (the envs
#: take seeds below 2**63)
SB3_SEED_MAX = 2**32 - 1


def check_run_name(name: Any, what: str = "config key name") -> str:
    """A run's name: the folder under the runs directory (``--runs-dir``) that holds its files.
    An empty or blank name (it would write into the runs directory itself, or fall back to the
    config's name), an absolute path (the runs directory would be ignored) or one with ``..``
    is a :class:`UsageError` naming ``what``."""
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"{what} must be a non-empty run name (a folder under --runs-dir), "
                         f"got {name!r}")
    path = Path(name)
    if path.is_absolute() or not path.parts or ".." in path.parts:
        raise UsageError(f"{what} must name a folder inside --runs-dir (no absolute path, "
                         f"'.' or '..'), got {name!r}")
    return name


def check_agent_specs(named: dict[str, Any], game: str) -> dict[str, Any]:
    """Each agent a config names (``{config key: agent spec}``, as ``make_agent`` and
    ``evaluate.py --agents`` take them) built once, so that a misspelt name or option is
    refused, naming its key, before a run directory or any long work exists (the agents
    themselves are built again where the run plays them); returns them by key (for checks of
    what they can do)."""
    from cuegym.agents import make_agent

    built = {}
    for key, spec in named.items():
        try:
            built[key] = make_agent(spec, game)
        except (ValueError, FileNotFoundError) as e:
            raise ValueError(f"config key {key}: {e}") from None
    return built


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
                   over: dict[str, Any] | None, what: str,
                   free: tuple[str, ...] = ()) -> dict[str, Any]:
    """``defaults``, then the YAML file ``path`` (if any; an empty one is refused, as
    :func:`load_config` refuses it), then ``over``, merged deeply (:func:`deep_merge`); a
    top-level key not in ``defaults`` is a ValueError naming it (``what`` names the config), a
    key set to null takes its default. Every value must be of its default's kind
    (:func:`check_like`), except the top-level keys ``free``."""
    cfg = dict(defaults)
    for part in (read_yaml_mapping(path, f"{what} config keys") if path is not None
                 else {}, over or {}):
        if not isinstance(part, dict):
            raise ValueError(f"{what} config overrides must be a mapping, got {part!r}")
        bad = sorted(set(part) - set(defaults))
        if bad:
            raise ValueError(f"unknown {what} config key(s) {bad}; known: {sorted(defaults)}")
        cfg = deep_merge(cfg, part)
    cfg = {**defaults, **cfg}  # a key set to null (removed by deep_merge) is back to default
    check_like(cfg, {k: v for k, v in defaults.items() if k not in free})
    return cfg


def _kind(default: Any) -> tuple[str, Callable[[Any], bool]]:
    """(what a value like ``default`` is, in words; the test of a value)."""
    import math

    if isinstance(default, bool):
        return "true or false", lambda v: isinstance(v, bool)
    if isinstance(default, int):
        return "an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)
    if isinstance(default, float):
        return "a finite number", lambda v: isinstance(v, int | float) and \
            not isinstance(v, bool) and math.isfinite(v)
    if isinstance(default, str):
        return "a string", lambda v: isinstance(v, str)
    if isinstance(default, list):
        return "a list", lambda v: isinstance(v, list)
    if isinstance(default, dict):
        return "a mapping", lambda v: isinstance(v, dict)
    return "anything", lambda v: True


def check_like(cfg: dict[str, Any], defaults: dict[str, Any], where: str = "") -> None:
    """Each value of ``cfg`` whose key has a default (not None) is of the default's kind: an
    integer for an integer, a finite number for a float, a string, a list (its items of the
    kind of the default's first item, if it has one), a mapping (checked the same way, key by
    key); a ValueError naming the key (``where`` prefixes it) otherwise."""
    for key, default in defaults.items():
        if key not in cfg or default is None:
            continue
        value, name = cfg[key], f"{where}{key}"
        words, ok = _kind(default)
        if not ok(value):
            raise ValueError(f"{name} must be {words}, got {value!r}{text_number_hint(value)}")
        if isinstance(default, dict):
            check_like(value, default, f"{name}.")
        elif isinstance(default, list) and default and not isinstance(default[0], list | dict):
            words, ok = _kind(default[0])
            for i, item in enumerate(value):
                if not ok(item):
                    raise ValueError(f"{name}[{i}] must be {words}, got {item!r}"
                                     f"{text_number_hint(item)}")


def read_yaml_mapping(path: str | Path, keys: str = "TrainConfig keys",
                      empty_ok: bool = False) -> dict:
    """A YAML file that must hold a mapping of ``keys`` (one-line ValueError otherwise); an
    empty file is ``{}`` when ``empty_ok``."""
    try:
        text = resolve_path(path, "config file").read_text()
    except OSError as e:
        raise ValueError(f"cannot read config file {path}: {e.strerror or e}") from None
    try:
        data = load_yaml(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ValueError(f"bad YAML: config file {path} is not valid YAML{where}") from None
    if data is None and empty_ok:
        return {}
    if data is None:
        raise ValueError(f"config file {path} is empty: it must be a mapping of {keys}")
    if not isinstance(data, dict):
        raise ValueError(f"config file {path} must be a mapping of {keys}, got a "
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
            if f.name == "seed" and v > SB3_SEED_MAX:
                raise ValueError(f"config key seed (--seed) must be <= {SB3_SEED_MAX} (2**32 - 1: "
                                 f"SB3 seeds numpy with it), got {v}")
        elif kind is float:
            if isinstance(v, bool) or not isinstance(v, int | float) or not v >= 0 \
                    or v == float("inf"):
                raise ValueError(f"config key {f.name} must be a finite number >= 0, got {v!r}"
                                 f"{text_number_hint(v)}")
        elif kind is not type(v) and not (kind is dict and isinstance(v, dict)):
            raise ValueError(f"config key {f.name} must be a {kind.__name__}, got {v!r}")


def load_config(path: str | Path | None, overrides: dict | None = None) -> TrainConfig:
    """Read a YAML config into :class:`TrainConfig`, ``overrides`` merged deeply
    (:func:`deep_merge`); unknown keys and values of the wrong type raise a one-line
    ValueError naming the key. A key set to null in ``overrides`` (back to its default) must be
    a known one too, at the top level and inside the mappings (``algo_kwargs={bogus: null}``
    and the YAML typo ``{learning_starts:16}``, a key with no value, are refused), unless it
    takes out a key the file sets (switching ``algo``: ``algo_kwargs={ent_coef: null}``)."""
    file_data: dict = read_yaml_mapping(path) if path is not None else {}
    over = overrides or {}
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(file_data) - known) + sorted(set(over) - known - set(file_data), key=str)
    if unknown:
        raise ValueError(f"unknown train config key(s) {unknown}; known: {sorted(known)}")
    data = deep_merge(file_data, over)
    _check_types(data)
    cfg = TrainConfig(**data)
    check_run_name(cfg.name)
    from cuegym.envs import ENV_IDS

    if cfg.env_id.removeprefix("cuegym:") not in ENV_IDS:  # (gymnasium's message names no key)
        raise ValueError(f"config key env_id: {unknown_name('env id', cfg.env_id, ENV_IDS)}")
    if cfg.algo not in ALGOS:
        raise ValueError(f"algo must be one of {list(ALGOS)}, got {cfg.algo!r}")
    if cfg.action not in ("absolute", "residual", "choice"):
        raise ValueError(f"action must be 'absolute', 'residual' or 'choice', got {cfg.action!r}")
    if (cfg.algo == "dqn") != (cfg.action == "choice"):
        raise ValueError("the choice action (discrete) needs algo dqn, and dqn needs it; got "
                         f"algo {cfg.algo!r} with action {cfg.action!r}")
    # keys reset to default must be known, unless they remove what the file sets (a key of
    # SAC's that --algo td3 would refuse: ``algo_kwargs={ent_coef: null}`` takes it out)
    resets = {k: [key for key, val in v.items() if val is None and not (
                  isinstance(file_data.get(k), dict) and key in file_data[k])]
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


#: settings that only one game's wrapper reads (``cuegym.agents.residual``): given another
#: value than the default for the other game, they are refused (they would do nothing)
_GAME_ONLY = {"residual": {"shaping": "golfbillard", "dplace": "keglebillard"}}

#: residual fields that are largest corrections (>= 0)
_NONNEGATIVE = ("prior", "dphi", "dlogv", "spin", "side", "dplace")


def _finite(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v)


def check_spec(cfg: TrainConfig, section: str) -> None:
    """The ``residual`` / ``choice`` settings make a valid ResidualSpec / ChoiceSpec for the
    game: every value of its field's type (numbers finite), and no setting only the other game
    reads (:data:`_GAME_ONLY`, at another value than its default); a one-line ValueError naming
    the key otherwise (not a TypeError or a numpy error from deep inside the wrapper, and not a
    setting silently ignored)."""
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
    game = game_of(cfg.env_id)
    for key, only in _GAME_ONLY.get(section, {}).items():
        if key in given and only != game and given[key] != defaults[key]:
            raise ValueError(f"config key {section}.{key} is for {only} training only; "
                             f"{cfg.env_id} plays {game}, which ignores it: leave it out (or at "
                             f"its default {defaults[key]!r})")
    try:
        spec(game=game, **given)
    except (ValueError, TypeError) as e:
        raise ValueError(f"config key {section}: {e}") from None


def check_candidate_policy(cfg: TrainConfig) -> None:
    """A policy that reads the menu's candidate blocks (``policy_kwargs.n_cand``,
    :class:`cuegym.agents.qnet.CandidateQPolicy`) must read as many as the ``choice`` menu
    has (``choice.n_cand``; each key at its default where not given): a ValueError naming
    both keys otherwise. (Another count may still split the actions evenly, and the network
    then reads other candidates' features as the table.)"""
    if cfg.action != "choice":
        return
    policy = policy_class(cfg.policy)
    if isinstance(policy, str):
        return
    from cuegym.agents.choice import ChoiceSpec
    from cuegym.agents.qnet import CandidateQPolicy

    if not (isinstance(policy, type) and issubclass(policy, CandidateQPolicy)):
        return
    import inspect

    def value(section: dict, default: Any) -> str:
        return repr(section["n_cand"]) if "n_cand" in section else f"{default!r} (its default)"

    pol_default = inspect.signature(CandidateQPolicy.__init__).parameters["n_cand"].default
    menu_default = {f.name: f.default for f in dataclasses.fields(ChoiceSpec)}["n_cand"]
    if cfg.policy_kwargs.get("n_cand", pol_default) != cfg.choice.get("n_cand", menu_default):
        raise ValueError(f"config key policy_kwargs.n_cand {value(cfg.policy_kwargs, pol_default)}"
                         f" must equal choice.n_cand {value(cfg.choice, menu_default)}: "
                         f"{policy.__name__} reads the observation as that many candidate "
                         "blocks of the menu")


def _check_net_arch(arch: Any) -> None:
    """``policy_kwargs.net_arch``: a list of layer sizes (integers >= 1), or a mapping of such
    lists (``{pi: [..], qf: [..]}``)."""
    lists = arch.values() if isinstance(arch, dict) else [arch]
    for sizes in lists:
        if not isinstance(sizes, list) or not all(
                isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in sizes):
            raise ValueError("config key policy_kwargs.net_arch must be a list of layer sizes "
                             f"(integers >= 1) or a mapping of such lists, got {arch!r}")


#: ranges of SB3's hyper-parameters (``algo_kwargs``), as its documentation gives them:
#: ``("int", lo)`` an integer >= lo; ``("num", lo, hi, lo_open, hi_open)`` a finite number in
#: the interval (None: unbounded); ``("bool",)``; other kinds are checked by name
#: (:func:`check_algo_kwargs`). A key missing here is only checked by building the model.
ALGO_KWARG_RANGES: dict[str, tuple] = {
    "learning_rate": ("num", 0.0, None, True, False), "gamma": ("num", 0.0, 1.0, False, False),
    "tau": ("num", 0.0, 1.0, True, False), "batch_size": ("int", 1), "buffer_size": ("int", 1),
    "n_steps": ("int", 1), "learning_starts": ("int", 0), "n_epochs": ("int", 1),
    "target_update_interval": ("int", 1), "policy_delay": ("int", 1),
    "stats_window_size": ("int", 1),
    "exploration_fraction": ("num", 0.0, 1.0, False, False),
    "exploration_initial_eps": ("num", 0.0, 1.0, False, False),
    "exploration_final_eps": ("num", 0.0, 1.0, False, False),
    "gae_lambda": ("num", 0.0, 1.0, False, False), "clip_range": ("num", 0.0, None, True, False),
    "clip_range_vf": ("num", 0.0, None, True, False), "vf_coef": ("num", 0.0, None, False, False),
    "max_grad_norm": ("num", 0.0, None, True, False), "target_kl": ("num", 0.0, None, True, False),
    "target_policy_noise": ("num", 0.0, None, False, False),
    "target_noise_clip": ("num", 0.0, None, False, False),
    "action_noise": ("num", 0.0, None, False, False),  # the sd of SAC/TD3's Gaussian noise
    "use_sde": ("bool",), "use_sde_at_warmup": ("bool",), "normalize_advantage": ("bool",),
    "optimize_memory_usage": ("bool",),
}
#: algo_kwargs a run sets itself: given, they would be ignored or break it
_ALGO_KWARGS_OWNED = {"tensorboard_log": "the run logs to runs/<name>/logs (TensorBoard too)",
                      "_init_setup_model": "the model is always set up"}


def check_in_range(name: str, value: Any, lo: float | None, hi: float | None, lo_open: bool,
              hi_open: bool) -> None:
    """``value`` a finite number in the interval: a ValueError naming ``name`` otherwise."""
    x = finite_number(name, value)
    if (lo is not None and (x <= lo if lo_open else x < lo)) or \
            (hi is not None and (x >= hi if hi_open else x > hi)):
        left = "-inf" if lo is None else f"{lo:g}"
        right = "inf" if hi is None else f"{hi:g}"
        raise ValueError(f"{name} must be in {'(' if lo_open or lo is None else '['}{left}, "
                         f"{right}{')' if hi_open or hi is None else ']'}, got {value!r}")


def check_algo_kwargs(cfg: TrainConfig) -> None:
    """The values of ``algo_kwargs`` (their keys are checked by :func:`check_section_keys`) in
    SB3's ranges (:data:`ALGO_KWARG_RANGES`; ``train_freq``: an integer >= 1 or ``[n, step |
    episode]``; ``gradient_steps``: >= 1 or -1; ``ent_coef``: a number >= 0, or for SAC
    ``auto`` / ``auto_<initial value > 0>``; ``target_entropy``: ``auto`` or a number;
    ``sde_sample_freq``: >= 1 or -1): a one-line ValueError naming the key and the value,
    where SB3 would train on (``gamma: 2``) or fail deep inside learning."""
    for key, v in cfg.algo_kwargs.items():
        name = f"config key algo_kwargs.{key}"
        if key in _ALGO_KWARGS_OWNED:
            raise ValueError(f"{name} cannot be set: {_ALGO_KWARGS_OWNED[key]}")
        kind = ALGO_KWARG_RANGES.get(key)
        if kind is not None and kind[0] == "int":
            check_int(name, v, kind[1])
        elif kind is not None and kind[0] == "num":
            check_in_range(name, v, *kind[1:])
        elif kind is not None and kind[0] == "bool" and not isinstance(v, bool):
            raise ValueError(f"{name} must be true or false, got {v!r}")
        elif key in ("gradient_steps", "sde_sample_freq"):
            if isinstance(v, bool) or not isinstance(v, int) or not (v >= 1 or v == -1):
                raise ValueError(f"{name} must be an integer >= 1 or -1, got {v!r}"
                                 f"{text_number_hint(v)}")
        elif key == "train_freq":
            ok = (isinstance(v, int) and not isinstance(v, bool) and v >= 1) or (
                isinstance(v, list) and len(v) == 2 and isinstance(v[0], int) and
                not isinstance(v[0], bool) and v[0] >= 1 and v[1] in ("step", "episode"))
            if not ok:
                raise ValueError(f"{name} must be an integer >= 1 or [n >= 1, step | episode], "
                                 f"got {v!r}{text_number_hint(v)}")
        elif key == "ent_coef":
            if cfg.algo == "sac" and isinstance(v, str) and v.startswith("auto"):
                init = v.removeprefix("auto")
                try:
                    ok = init == "" or (init.startswith("_") and float(init[1:]) > 0.0 and
                                        np.isfinite(float(init[1:])))
                except ValueError:
                    ok = False
                if not ok:
                    raise ValueError(f"{name} must be a number >= 0, 'auto' or 'auto_<initial "
                                     f"value > 0>' (auto_0.1), got {v!r}")
            else:
                check_in_range(name, v, 0.0, None, False, False)
        elif key == "target_entropy" and v != "auto":
            finite_number(name, v)


def check_episodic(algo_kwargs: dict[str, Any], n_envs: int, what: str = "n_envs") -> None:
    """``train_freq: [n, episode]`` needs one table: SB3 trains per episode only on one env
    and asserts so when learning starts (after the run directory is written). ``what`` names
    the setting of the tables (self-play's ``--n-envs``)."""
    tf = algo_kwargs.get("train_freq")
    if isinstance(tf, list | tuple) and len(tf) == 2 and tf[1] == "episode" and n_envs > 1:
        raise ValueError(f"config key algo_kwargs.train_freq {list(tf)!r} trains per episode, "
                         f"which SB3 does on one table only; {what} is {n_envs}: use "
                         f"[{tf[0]}, step] or one table")


def check_arguments(cfg: TrainConfig) -> None:
    """Check what the config passes on to torch, SB3, the env and the action wrappers before a
    run directory is touched: the device, the keys of ``demos``, ``train_positions``,
    ``algo_kwargs``, ``env_kwargs`` and ``policy_kwargs``, the values of ``algo_kwargs``
    (:func:`check_algo_kwargs`), the ``residual`` / ``choice`` settings (:func:`check_spec`)
    and a candidate policy's ``n_cand`` against the menu's (:func:`check_candidate_policy`).
    (train.py's ``check_config`` adds what needs the env and the model built; self-play runs
    these checks on its train config too.)"""
    if cfg.demos.get("states") and not (cfg.action == "choice" or (
            cfg.algo in ("sac", "td3") and cfg.action == "residual")):
        raise ValueError("demos need an off-policy algo (sac, td3) and the residual action, "
                         "or dqn and the choice action")
    # all of them, even those a run without ``states`` skips: a mistyped key is not ignored
    for section in SECTIONS:
        check_section_keys(cfg, section, getattr(cfg, section))
    check_algo_kwargs(cfg)
    for key, v in cfg.demos.items():
        positive = key in _DEMO_POSITIVE
        if not _finite(v) or (v <= 0 if positive else v < 0) or (
                key not in ("jitter", "q_lr") and not isinstance(v, int)):
            kind = "a finite number" if key in ("jitter", "q_lr") else "an integer"
            bound = "> 0" if positive else ">= 0"
            raise ValueError(f"config key demos.{key} must be {kind} {bound}, got {v!r}")
    if cfg.train_positions:
        # checked here, not where the positions are generated (after the config's checks)
        kind = cfg.train_positions.get("generate")
        if kind != "keglebillard-play":
            raise ValueError("config key train_positions.generate must be 'keglebillard-play', "
                             f"got {kind!r}")
        if cfg.env_id.removeprefix("cuegym:") != "cuegym/KeglebillardShot-v0":
            raise ValueError(f"config key train_positions generates keglebillard Shot-env start "
                             f"positions; env_id {cfg.env_id!r} takes none (it needs "
                             "cuegym/KeglebillardShot-v0)")
        for key, lo in (("n", 1), ("seed", 0)):
            if key in cfg.train_positions:
                check_int(f"config key train_positions.{key}", cfg.train_positions[key], lo)
    check_device(cfg.device, "config key device")
    if "net_arch" in cfg.policy_kwargs:
        _check_net_arch(cfg.policy_kwargs["net_arch"])
    for section in ("residual", "choice"):
        check_spec(cfg, section)
    check_candidate_policy(cfg)


def check_device(device: Any, what: str) -> None:
    """Refuse a torch device that is no device name, or one not on this machine (``cuda``
    without CUDA: a tensor is put there to find out), before any work rather than when the
    network is built (or, where SB3 falls back to the cpu, never): a :class:`UsageError`
    ``<what> 'cuda' is not usable here (...)``. (aim_sweep.py's ``--device`` too.)"""
    import torch

    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise UsageError(f"{what} {device!r} is not a torch device (cpu, cuda, cuda:0, ...)"
                         ) from None
    try:
        torch.zeros(1, device=dev)
    except (RuntimeError, AssertionError, TypeError, ValueError) as exc:
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"{what} {device!r} is not usable here ({why})") from None


def parse_set(items: list[str], option: str = "--set") -> dict[str, Any]:
    """``--set key=value`` pairs; values are parsed as YAML (numbers, lists, mappings); a
    repeated key's mappings merge. ``option``: the command-line option that gave them, which
    the errors name (reproduce.py's ``--aim``)."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"{option} needs key=value, got {item!r}")
        k, v = item.split("=", 1)
        try:
            val = load_yaml(v)
        except yaml.YAMLError:
            raise UsageError(f"{option} {k.strip()}: {v!r} is not valid YAML") from None
        out = _merge_sets(out, {k.strip(): val})
    return out


#: ``--rules``' help, for every command that takes it (evaluate.py, ``cuegym rules new/play``).
RULES_HELP = ("rule options over the shipped rules (configs/rules/<game>.yaml), values as YAML, "
              "or a YAML file of them; may be repeated, later over earlier: --rules "
              "distance=50, --rules duo=true match=best_of_3")


def parse_rules(items: list[str] | None) -> dict[str, Any] | None:
    """``--rules``: ``KEY=VALUE`` words, values read as YAML as ``--set``'s are
    (:func:`parse_set`), and YAML files of rule options (a
    mapping, as ``configs/rules/<game>.yaml``), in order, a later one over an earlier one;
    None when none is given. A malformed word is a :class:`UsageError` naming it (the options'
    names and values are the rules' to check: ``evaluate.tournament_arena``, ``cuegym rules``)."""
    if items is None:
        return None
    out: dict[str, Any] = {}
    for item in items:
        if "=" in item:
            kv = parse_set([item], "--rules")
            (key, value), = kv.items()
            if isinstance(value, str) and re.search(r",\s*[A-Za-z_]\w*\s*=", value):
                # duo=true,match=best_of_3 would read as duo = 'true,match=best_of_3'
                raise UsageError(f"--rules {item!r}: one KEY=VALUE per word, separated by "
                                 "spaces (--rules duo=true match=best_of_3), not by commas")
            out[key] = value
            continue
        try:
            path = existing_file(packaged_path(item), "rules file")
            data = load_yaml(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"--rules {item!r}: {exc} (give KEY=VALUE rule options or a YAML "
                             "file of them)") from None
        if data is not None and not isinstance(data, Mapping):  # None: an empty file
            raise UsageError(f"--rules {item!r}: a rules file holds a mapping of rule options, "
                             f"got {type(data).__name__}")
        out.update(data or {})
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
    p.add_argument("--set", nargs="*", action="extend", default=[], metavar="KEY=VALUE",
                   help="override config keys (values as YAML; mappings merge deeply; "
                   "--set may be repeated)")
    args = p.parse_args(argv)
    if args.resume and args.overwrite:
        p.error("--resume and --overwrite exclude each other")
    refuse_empty(p, ("--runs-dir", args.runs_dir), ("--config", getattr(args, "config", None)))
    return args


def refuse_empty(p: argparse.ArgumentParser, *options: tuple[str, str | None],
                 folders: tuple[str, ...] = ("--runs-dir",)) -> None:
    """``p.error`` for an option of ``options`` (``(option, value)`` pairs; None: not given)
    given as an empty or blank string: ``--runs-dir ''`` would silently be the working
    directory, ``--config ''`` no config at all. ``folders``: the options that name a folder
    (the message asks for one; the others name a file, ``--name`` a run)."""
    for opt, v in options:
        if v is not None and not v.strip():
            what = "folder" if opt in folders else {"--name": "run name"}.get(opt, "file")
            p.error(f"{opt} {v!r}: give a {what} (an empty one is not the default)")


def run_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The config overrides every run script takes from its command line (:func:`parse_run_args`
    options and ``--name``): the ``--set`` pairs, then ``name`` and ``progress_bar: false``
    where ``--name`` / ``--no-progress`` were given."""
    over = parse_set(args.set)
    if getattr(args, "name", None) is not None:  # (an empty --name is refused, not ignored)
        flag_override(over, "name", check_run_name(args.name, "--name"), "--name")
    if args.no_progress:
        flag_override(over, "progress_bar", False, "--no-progress")
    return over


def flag_override(over: dict[str, Any], key: str, value: Any, flag: str,
                  option: str = "--set", where: str = "") -> None:
    """Set ``over[key]`` from the command-line flag ``flag``; a ``--set key=...`` of another
    value is a :class:`UsageError` (one of the two would be ignored). ``option`` names the
    option that gave ``over`` and ``where`` the mapping ``over`` is in (``fit.``), for the
    message."""
    if key in over and over[key] != value:
        raise UsageError(f"{option} {where}{key}={over[key]!r} contradicts {flag}: give one of "
                         "them")
    over[key] = value
