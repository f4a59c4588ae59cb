"""Self-play with an opponent pool: the learner plays whole games against snapshots of itself.

The learner (SB3; SAC on the geometric-residual action by default, or DQN on the shot menu with
``--train-config configs/train/keglebillard_dqn.yaml``) trains on the full-game env
(``cuegym/Keglebillard-v0`` or ``cuegym/Golfbillard-v0``), whose opponent is a
:class:`PoolOpponent`: at every opponent shot it plays a member drawn from the pool (by default
the geometric baseline to begin with; a golfbillard turn that goes on after a goal draws again
at each stroke). After each generation of ``steps_per_generation`` steps
the learner is saved and plays ``eval_games`` games
(``cuegym.agents.head_to_head.play_games``, fixed seeds) against every pool member; when it
wins at least ``promote_at`` of them against each, the snapshot is *promoted* into the pool
(the oldest self-snapshot leaves when the pool is full).

    python experiments/selfplay.py --game keglebillard --generations 5 --steps 20000
    python experiments/selfplay.py --game golfbillard --generations 3 --steps 5000 \
        --init runs/golfbillard_sac/best_model.zip
    python experiments/selfplay.py --game keglebillard --train-config \
        configs/train/keglebillard_dqn.yaml --init agents/pretrained/keglebillard.zip

Writes ``runs/<name>/``: ``model.zip`` (the last learner), ``pool/`` (promoted snapshots with
their metadata), ``selfplay.csv`` (one row per generation and pool member: win rate over the
finished games, points per shot, fouls, games cut off unfinished), ``selfplay.png`` and
``config.yaml`` and ``logs/progress.csv`` (SB3's training statistics). A self-play run cannot be
resumed: a run name that holds a run already is refused unless ``--overwrite`` is given, which
deletes the old run's files first.

Of the train config the learner takes its algorithm, action (``residual`` / ``choice`` settings),
``policy``, ``policy_kwargs``, ``algo_kwargs`` (``gamma`` 0.9, no action noise), ``env_kwargs``
(passed to the full-game env; its ``rules`` and ``table`` also make the arena where the pool
members are made and the learner is judged; its ``noise`` must be the self-play's ``noise``, so the
shipped train configs, which set ``tournament``, take only that; its ``settings.positions``, the
Shot envs' bank, is left out and named), ``device`` and ``threads``. An ``--init`` model is loaded
with those ``algo_kwargs`` too (not the ones saved in it: a Shot-env model's gamma is 0); its
network stays its own, so a train config whose ``policy``, ``policy_kwargs`` or action settings
(the residual's scales, the choice's menu) differ from it is refused. The keys of a train.py run
that self-play replaces by its own settings or does not have (``n_envs``, ``total_timesteps``,
``time_limit_min``, ``demos``, ``train_positions``, ``eval_freq``, ``eval_episodes``,
``checkpoint_freq``, ``save_replay_buffer``, ``seed``) are named on stderr when the run starts, not
silently dropped.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cuegym.cli_errors import check_writable_dir, cli_main, packaged_path, script_prog
from cuegym.cli_errors import unknown as unknown_name

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class SelfPlayConfig:
    """Settings of a self-play run (YAML keys or command-line flags)."""

    name: str = "selfplay_keglebillard"  # run directory under runs/
    game: str = "keglebillard"  # keglebillard | golfbillard
    generations: int = 5  # learn / evaluate / promote cycles
    steps_per_generation: int = 20_000  # learner steps per generation
    n_envs: int = 8  # tables of the full-game env
    eval_games: int = 20  # games against each pool member per generation
    promote_at: float = 0.55  # win rate against every member needed for promotion
    pool_size: int = 5  # snapshots kept (the baselines in `initial_pool` always stay)
    initial_pool: list = field(default_factory=lambda: ["geometric"])  # agent names / .zip
    init_model: str = ""  # start from this model .zip (e.g. a Shot-env run's best_model.zip)
    train_config: str = ""  # train YAML for the algorithm (default configs/train/<game>_sac.yaml)
    seed: int = 0  # seeds everything
    noise: str | float = "tournament"  # shot noise of the env and games: preset or scale (the
    #   train config's env_kwargs.noise, where it sets one, must agree: the SAC and DQN ones do)
    progress: bool = True  # progress bars (learning, evaluation games) on stderr


#: integer settings and their minimum
_INT_MIN = {"generations": 1, "steps_per_generation": 1, "n_envs": 1, "eval_games": 1,
            "pool_size": 1, "seed": 0}

#: what makes a run directory hold a self-play run's work (cleared by ``--overwrite``; a
#: directory with only config.yaml, from a run that stopped before learning, is reused)
RUN_WORK = ("model.zip", "model.json", "pool", "selfplay.csv", "selfplay.png", "logs")

#: train config keys of a train.py run that self-play does not use: its own settings replace
#: them (name, seed, n_envs, generations x steps_per_generation, eval_games, progress) or it has
#: no such step (demonstrations, generated Shot-env positions, time limit, checkpoints)
TRAIN_KEYS_UNUSED = ("seed", "n_envs", "total_timesteps", "time_limit_min", "demos",
                     "train_positions", "eval_freq", "eval_episodes", "checkpoint_freq",
                     "save_replay_buffer", "progress_bar")


def check_config(cfg: SelfPlayConfig) -> SelfPlayConfig:
    """``cfg`` if its values are in range (a ValueError naming the key otherwise): checked
    before the run starts, not after a generation of learning."""
    if cfg.game not in ("keglebillard", "golfbillard"):
        raise ValueError(unknown_name("game", cfg.game, ("keglebillard", "golfbillard")))
    for key, lo in _INT_MIN.items():
        v = getattr(cfg, key)
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"self-play key {key} must be an integer >= {lo}, got {v!r}")
    from cuegym.experiments.train_config import SB3_SEED_MAX

    if cfg.seed > SB3_SEED_MAX:  # set_random_seed's numpy refusal names neither key nor value
        raise ValueError(f"self-play key seed (--seed) must be <= {SB3_SEED_MAX} (2**32 - 1: SB3 "
                         f"seeds numpy with it), got {cfg.seed}")
    p = cfg.promote_at
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0 <= p <= 1:
        raise ValueError(f"self-play key promote_at must be a win rate in [0, 1], got {p!r}")
    if not isinstance(cfg.initial_pool, list) or not cfg.initial_pool or not all(
            isinstance(a, str) and a.strip() for a in cfg.initial_pool):
        raise ValueError(f"self-play key initial_pool must be a non-empty list of agent specs "
                         f"(the learner's first opponents), got {cfg.initial_pool!r}")
    from cuegym.experiments.train_config import check_agent_specs

    check_agent_specs({f"initial_pool[{i}]": a for i, a in enumerate(cfg.initial_pool)},
                      cfg.game)
    from cuegym.games.noise import check_noise_option

    check_noise_option(cfg.noise, "self-play key noise")  # a preset, a scale or a mapping
    from cuegym.experiments.train_config import check_run_name

    check_run_name(cfg.name, "self-play key name")  # (no absolute path or '..': --runs-dir)
    for key in ("init_model", "train_config"):
        v = getattr(cfg, key)
        if not isinstance(v, str):
            raise ValueError(f"self-play key {key} must be a string, got {v!r}")
    if not isinstance(cfg.progress, bool):  # "maybe" or "no" would silently be true
        raise ValueError(f"self-play key progress must be true or false, got {cfg.progress!r}")
    if cfg.init_model and _init_model_file(cfg.init_model) is None:
        raise ValueError(f"init_model (--init): no model file {cfg.init_model!r}")
    return cfg


def train_config(cfg: SelfPlayConfig) -> Any:
    """The train config of the learner (``train_config``, default
    ``configs/train/<game>_sac.yaml``), checked against the self-play: its game, its action
    (residual or choice), the settings it passes on (``cuegym.experiments.train``); and the
    ``init_model``'s game, algorithm and action against it. ValueErrors name the mismatch."""
    from cuegym.experiments.train_config import (
        check_arguments,
        check_episodic,
        game_of,
        load_config,
    )

    path = cfg.train_config or ROOT / "configs" / "train" / f"{cfg.game}_sac.yaml"
    tcfg = load_config(path)
    if tcfg.action not in ("residual", "choice"):
        raise ValueError("self-play uses the geometric-residual or the choice action (train "
                         f"config action: {tcfg.action!r})")
    if game_of(tcfg.env_id) != cfg.game:
        raise ValueError(f"train config {str(path)!r} is for {game_of(tcfg.env_id)} "
                         f"({tcfg.env_id}), not {cfg.game}: give a {cfg.game} train config")
    check_arguments(tcfg)
    check_episodic(tcfg.algo_kwargs, cfg.n_envs, "self-play key n_envs (--n-envs)")
    _check_env_noise(cfg, tcfg, path)
    if cfg.init_model:
        from cuegym.agents.sb3_agent import model_meta

        init = _init_model_file(cfg.init_model)
        if init is None:  # run() called without check_config
            raise ValueError(f"init_model (--init): no model file {cfg.init_model!r}")
        try:
            meta = model_meta(init)
        except (OSError, ValueError, KeyError) as e:
            raise ValueError(f"init_model (--init) {cfg.init_model!r} is not a cuegym model: "
                             f"{e}") from None
        if meta["game"] != cfg.game:
            raise ValueError(f"init_model (--init): model {cfg.init_model!r} plays "
                             f"{meta['game']}, not {cfg.game}")
        if (meta["algo"], meta["action"]) != (tcfg.algo, tcfg.action):
            raise ValueError(f"init_model (--init): model {cfg.init_model!r} is {meta['algo']} "
                             f"with the {meta['action']} action, the train config {tcfg.algo} "
                             f"with the {tcfg.action} action: give --train-config of the "
                             "model's kind")
        _check_init_spec(cfg, tcfg, meta)
    return tcfg


def _check_init_spec(cfg: SelfPlayConfig, tcfg: Any, meta: dict[str, Any]) -> None:
    """The ``--init`` model's action settings (the residual's scales, the choice's menu) must
    be the train config's: the snapshots are saved with the config's, and the network's
    outputs index the model's own (a Q-value of another menu entry, a residual on another
    scale)."""
    from cuegym.agents.choice import ChoiceSpec
    from cuegym.agents.residual import ResidualSpec

    section = tcfg.action
    spec = ResidualSpec if section == "residual" else ChoiceSpec

    def full(opts: dict[str, Any]) -> dict[str, Any]:
        d = spec(game=cfg.game, **{k: v for k, v in opts.items() if k != "game"}).as_dict()
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    model, config = full(meta[section]), full(getattr(tcfg, section))
    diff = [k for k in config if config[k] != model.get(k)]
    if diff:
        k = diff[0]
        raise ValueError(f"init_model (--init): model {cfg.init_model!r} was trained with "
                         f"{section}.{k} = {model.get(k)!r}, the train config has "
                         f"{config[k]!r}" + (f" (and {', '.join(diff[1:])} differ too)"
                                             if diff[1:] else "")
                         + ": give --train-config with the model's settings")


def _same_noise(a: Any, b: Any) -> bool:
    """Whether two noise options (preset names, scales, mappings) are the same noise."""
    from cuegym.games.noise import load_noise

    try:
        return a == b or load_noise(a) == load_noise(b)
    except ValueError:
        return False


def _check_env_noise(cfg: SelfPlayConfig, tcfg: Any, path: Any) -> None:
    """The train config's ``env_kwargs.noise`` (where set) must be the self-play's ``noise``
    (the noise of the learner's env and of the evaluation games): one of them would be
    ignored otherwise."""
    if "noise" in tcfg.env_kwargs and not _same_noise(tcfg.env_kwargs["noise"], cfg.noise):
        raise ValueError(f"train config {str(path)!r} sets env_kwargs.noise "
                         f"{tcfg.env_kwargs['noise']!r}, the self-play noise is {cfg.noise!r} "
                         "(self-play key noise: the learner's env and the evaluation games): "
                         "make them agree")


def unused_train_keys(cfg: SelfPlayConfig) -> list[str]:
    """The keys of :data:`TRAIN_KEYS_UNUSED` that the train config file sets (an empty mapping
    or a zero ``time_limit_min`` is nothing to use): self-play names them when it starts."""
    from cuegym.experiments.train_config import read_yaml_mapping

    path = cfg.train_config or ROOT / "configs" / "train" / f"{cfg.game}_sac.yaml"
    data = read_yaml_mapping(path)
    unused = [k for k in TRAIN_KEYS_UNUSED if k in data and data[k] is not None
              and data[k] != {} and not (k == "time_limit_min" and data[k] == 0)]
    settings = (data.get("env_kwargs") or {}).get("settings")
    if isinstance(settings, dict) and "positions" in settings:
        unused.append("env_kwargs.settings.positions")  # the Shot envs' bank (_game_env_kwargs)
    return unused


def _game_env_kwargs(tcfg: Any) -> dict[str, Any]:
    """The train config's ``env_kwargs`` for the full-game env: without ``noise`` (checked to
    be the self-play's) and the Shot envs' ``settings.positions``, which a full-game env
    refuses (:func:`unused_train_keys` names it)."""
    kw = {k: v for k, v in tcfg.env_kwargs.items() if k != "noise"}
    if isinstance(kw.get("settings"), dict):
        kw["settings"] = {k: v for k, v in kw["settings"].items() if k != "positions"}
    return kw


def env_arena(game: str, env_kwargs: dict[str, Any]) -> Any:
    """The arena of the full-game env's rules and table (``env_kwargs``' ``rules`` and
    ``table``): the pool members are made for it and the learner is judged in it, so that
    they aim, search and score under the rules the learner trains on."""
    from cuegym.agents import make_arena

    kw = {"table": env_kwargs["table"]} if "table" in env_kwargs else {}
    return make_arena(game, env_kwargs.get("rules"), **kw)


def check_run_dir(out: Path, overwrite: bool) -> None:
    """Refuse a run directory that holds a run already unless ``overwrite`` (self-play cannot
    resume one); changes nothing."""
    if not overwrite and any((out / f).exists() for f in RUN_WORK):
        raise ValueError(f"{out} holds a run already: start over with --overwrite (deletes its "
                         "files) or choose another --name (a self-play run cannot be resumed)")


def clear_run_dir(out: Path) -> None:
    """Delete an old run's files in ``out`` (:data:`RUN_WORK` and config.yaml; nothing else),
    so that no stale snapshot (``pool/gen<k>.zip``) or row stays behind."""
    for name in (*RUN_WORK, "config.yaml"):
        p = out / name
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()


def _init_model_file(name: str) -> Path | None:
    """The model file ``--init`` names (SB3 adds ``.zip`` when it is left out), found in the
    working directory or the installed package (``agents/pretrained/...``), or None."""
    for m in (name, f"{name}.zip"):
        p = packaged_path(m)
        if p.is_file():
            return p
    return None


def _named_apart(baselines: list) -> list:
    """The baselines with names apart from each other and from this run's snapshots
    (``gen<k>``), as selfplay.csv and its plot tell the opponents by name: an old run's
    ``gen1.zip`` becomes ``init:gen1``, a second ``geometric`` ``geometric#2``."""
    seen: dict[str, int] = {}
    for agent in baselines:
        name = f"init:{agent.name}" if re.fullmatch(r"gen\d+", agent.name) else agent.name
        seen[name] = seen.get(name, 0) + 1
        agent.name = name if seen[name] == 1 else f"{name}#{seen[name]}"
    return baselines


class PoolOpponent:
    """An opponent for the full-game env that plays a pool member drawn at random per call
    (per shot: a golfbillard turn that goes on after a goal may be played by several members),
    from the generator the env passes (the table's, with the default ``per_table`` batching),
    so a table's games repeat under ``reset(seed)`` whatever the other tables do."""

    def __init__(self, members: list) -> None:
        if not members:
            raise ValueError("a pool opponent needs at least one member")
        self.members = list(members)
        self.name = "pool"

    def act(self, states, rng):
        k = int(rng.integers(len(self.members)))
        return self.members[k].act(states, rng)


def _save_snapshot(model: Any, path: Path, meta: dict) -> Path:
    """The model with its metadata inside the zip (atomic), and beside it for people."""
    from cuegym.agents.sb3_agent import save_model

    save_model(model, path, meta)
    path.with_suffix(".json").write_text(json.dumps(meta))
    return path


def _play_pool(cfg: SelfPlayConfig, arena: Any, learner: Any, members: list, gen: int,
               steps: int, t0: float) -> list[dict]:
    """Generation ``gen``'s games of ``learner`` against every pool member (``eval_games``
    each, seeds by generation and member): one row of the learning curve per member."""
    from tqdm.auto import tqdm

    from cuegym.agents import play_games

    rows = []
    for m_i, member in enumerate(members):
        with tqdm(total=cfg.eval_games, desc=f"gen{gen} vs {member.name}", unit="game",
                  disable=not cfg.progress, file=sys.stderr) as bar:
            res = play_games(arena, [learner, member], cfg.eval_games,
                             seed=cfg.seed + 100 * gen + m_i, noise=cfg.noise,
                             progress=lambda done, _n, b=bar: b.update(done - b.n))
        st = res.stats(0)
        finished = st["games"] - st["unfinished"]  # games cut off count for nobody
        wr = st["wins"] / finished if finished else 0.0
        rows.append({"generation": gen, "steps": steps, "opponent": member.name,
                     "win_rate": round(wr, 4),
                     "points_per_shot": round(st["points_per_shot"], 4),
                     "foul_rate": round(st["foul_rate"], 4), "unfinished": st["unfinished"],
                     "wall_s": round(time.time() - t0, 1)})
        print(f"[gen {gen}] vs {member.name}: win rate {wr:.2f}, points/shot "
              f"{st['points_per_shot']:.2f}, fouls {st['foul_rate']:.3f}", flush=True)
    return rows


def _action_space(cfg: SelfPlayConfig, tcfg: Any, env_id: str) -> tuple[Any, type, dict]:
    """(the action wrapper's spec, the wrapper class, the snapshots' metadata) of the recipe's
    action (``residual`` or ``choice``). Snapshots are full-game models: they see the game's
    scores (SB3Agent masks them only for Shot-env models)."""
    meta = {"game": cfg.game, "env_id": env_id, "action": tcfg.action, "algo": tcfg.algo}
    if tcfg.action == "residual":
        from cuegym.agents.residual import ResidualSpec, ResidualVecEnv

        spec = ResidualSpec(game=cfg.game, **tcfg.residual)
        meta["residual"] = spec.as_dict()
        return spec, ResidualVecEnv, meta
    from cuegym.agents.choice import ChoiceSpec, ChoiceVecEnv

    spec = ChoiceSpec(game=cfg.game, **tcfg.choice)
    meta["choice"] = spec.as_dict()
    return spec, ChoiceVecEnv, meta


def _learner(cfg: SelfPlayConfig, tcfg: Any, env: Any) -> Any:
    """The SB3 model that learns, with the recipe's ``algo_kwargs`` (gamma 0.9: in whole games
    the learner's later shots depend on this one; no action noise): a new one with the recipe's
    policy and ``policy_kwargs``, or ``cfg.init_model`` loaded onto ``env`` with those
    ``algo_kwargs`` (its network stays the model's: a recipe ``policy`` / ``policy_kwargs``
    that differs from it is refused, not ignored)."""
    from cuegym.experiments.train import sb3_kwargs
    from cuegym.experiments.train_config import algo_class, policy_class

    Algo = algo_class(tcfg.algo)
    kw = sb3_kwargs(tcfg.algo, {**tcfg.algo_kwargs, "gamma": 0.9, "action_noise": None}, env)
    if tcfg.algo not in ("sac", "td3"):
        kw.pop("action_noise")
    if not cfg.init_model:
        return Algo(policy_class(tcfg.policy), env, policy_kwargs=dict(tcfg.policy_kwargs),
                    seed=cfg.seed, device=tcfg.device, verbose=0, **kw)
    init = _init_model_file(cfg.init_model)
    if init is None:  # run() called without check_config
        raise ValueError(f"init_model (--init): no model file {cfg.init_model!r}")
    if "stats_window_size" in kw:  # (load sets attributes: SB3 keeps this one private)
        kw["_stats_window_size"] = kw.pop("stats_window_size")
    try:  # (SB3's load takes the hyper-parameters to change; it seeds nothing)
        model = Algo.load(init, env=env, device=tcfg.device, **kw)
    except ValueError as e:  # SB3's message prints both spaces in full: kilobytes
        raise ValueError(f"init_model (--init): model {cfg.init_model!r} does not fit the "
                         f"{cfg.game} self-play env: {str(e).split(':')[0]}") from e
    _check_init_network(cfg, tcfg, model)
    model.set_random_seed(cfg.seed)
    return model


def _check_init_network(cfg: SelfPlayConfig, tcfg: Any, model: Any) -> None:
    """The ``--init`` model's network must be the train config's ``policy`` and (each key it
    sets) ``policy_kwargs``: the loaded network cannot take others."""
    from cuegym.experiments.train_config import policy_class

    want = policy_class(tcfg.policy)
    if isinstance(want, str):
        want = type(model).policy_aliases.get(want, want)
    if want is not model.policy_class:
        raise ValueError(f"init_model (--init): model {cfg.init_model!r} has the policy "
                         f"{model.policy_class.__name__}, the train config {tcfg.policy!r}: "
                         "give --train-config of the model's network")

    def same(a: Any, b: Any) -> bool:  # (YAML lists, saved tuples)
        return (list(a) if isinstance(a, tuple) else a) == (list(b) if isinstance(b, tuple)
                                                             else b)

    stored = model.policy_kwargs or {}
    for key, value in tcfg.policy_kwargs.items():
        if not same(stored.get(key), value):
            raise ValueError(f"init_model (--init): model {cfg.init_model!r} has policy_kwargs."
                             f"{key} {stored.get(key)!r}, the train config {value!r}: give "
                             "--train-config of the model's network")


def run(cfg: SelfPlayConfig, runs_dir: Path = Path("runs"), overwrite: bool = False) -> Path:
    """Run the self-play ``cfg`` into ``runs_dir / cfg.name``; a directory that holds a run
    already is refused unless ``overwrite`` (its old files are deleted once all is checked)."""
    import torch
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    from cuegym.agents import make_agent
    from cuegym.agents.sb3_agent import SB3Agent
    from cuegym.envs import make_sb3_vec_env
    from cuegym.envs.sb3 import vec_monitor

    out = Path(runs_dir) / cfg.name
    tcfg = train_config(cfg)  # checked before anything is written
    check_run_dir(out, overwrite)
    check_writable_dir(out, "run directory")
    unused = unused_train_keys(cfg)
    if unused:
        print(f"self-play does not use the train config's {', '.join(unused)} (it takes algo, "
              "action, policy, policy_kwargs, algo_kwargs, env_kwargs, device and threads; its "
              "own settings set the tables, steps, games and seed)", file=sys.stderr, flush=True)
    set_random_seed(cfg.seed)
    torch.set_num_threads(max(1, int(tcfg.threads)))
    env_id = "cuegym/Keglebillard-v0" if cfg.game == "keglebillard" else "cuegym/Golfbillard-v0"
    spec, wrapper, meta = _action_space(cfg, tcfg, env_id)
    env_kwargs = _game_env_kwargs(tcfg)
    arena = env_arena(cfg.game, env_kwargs)
    baselines = _named_apart([make_agent(a, cfg.game, arena=arena) for a in cfg.initial_pool])
    snapshots: list = []
    opponent = PoolOpponent(baselines)
    venv = make_sb3_vec_env(env_id, n_envs=cfg.n_envs, seed=cfg.seed, noise=cfg.noise,
                            opponent=opponent, **env_kwargs)
    env = vec_monitor(wrapper(venv, spec))
    model = _learner(cfg, tcfg, env)
    if overwrite:  # only now, with everything checked: a refused run leaves the old one as it was
        clear_run_dir(out)
    (out / "pool").mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(yaml.safe_dump(asdict(cfg), sort_keys=False))
    # SB3's training statistics (losses, episode returns) go into the run folder; left alone,
    # every learn() call would make an empty SB3-<date> folder in the system's temp directory
    model.set_logger(configure(str(out / "logs"), ["csv"]))
    rows = []
    csv_path = out / "selfplay.csv"
    t0 = time.time()
    if cfg.progress:
        from cuegym.experiments.train_callbacks import quiet_progress_bar

        quiet_progress_bar()
    for gen in range(1, cfg.generations + 1):
        # self-play's steps count from 0, also for an --init model (whose saved count would
        # put learning_starts and the exploration schedule behind it): the steps column and the
        # schedules are those of a run from a fresh model
        model.learn(total_timesteps=cfg.steps_per_generation, reset_num_timesteps=gen == 1,
                    progress_bar=cfg.progress)
        snap = _save_snapshot(model, out / "model.zip", meta)
        learner = SB3Agent(snap, game=cfg.game, name=f"gen{gen}", arena=arena)
        new_rows = _play_pool(cfg, arena, learner, baselines + snapshots, gen,
                              int(model.num_timesteps), t0)
        rows += new_rows
        wins = [r["win_rate"] for r in new_rows]
        promoted = bool(wins) and min(wins) >= cfg.promote_at
        if promoted:
            path = _save_snapshot(model, out / "pool" / f"gen{gen}.zip", meta)
            snapshots.append(SB3Agent(path, game=cfg.game, name=f"gen{gen}", arena=arena))
            if len(snapshots) > cfg.pool_size:
                snapshots.pop(0)
            opponent.members = baselines + snapshots
        print(f"[gen {gen}] {'promoted into the pool' if promoted else 'not promoted'} "
              f"(pool: {[m.name for m in opponent.members]})", flush=True)
        with open(csv_path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    model.logger.close()  # its progress.csv (left open otherwise)
    plot(out, rows)
    env.close()
    return out


def plot(out: Path, rows: list[dict]) -> Path | None:
    """selfplay.png: win rate per generation against each pool member."""
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for opp in dict.fromkeys(r["opponent"] for r in rows):
        pts = [(r["generation"], r["win_rate"]) for r in rows if r["opponent"] == opp]
        ax.plot(*zip(*pts, strict=True), marker="o", label=f"vs {opp}")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("generation")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("learner win rate")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax.set_title(f"self-play: {out.name}")
    fig.tight_layout()
    path = out / "selfplay.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="YAML with SelfPlayConfig keys")
    d = SelfPlayConfig()
    p.add_argument("--game", choices=("keglebillard", "golfbillard"),
                   help=f"the game (default {d.game})")
    p.add_argument("--name", help="run directory under --runs-dir (default selfplay_<game>)")
    p.add_argument("--generations", type=int,
                   help=f"learn / evaluate / promote cycles (default {d.generations})")
    p.add_argument("--steps", type=int, dest="steps_per_generation",
                   help=f"learner steps per generation (default {d.steps_per_generation:,})")
    p.add_argument("--n-envs", type=int,
                   help=f"tables of the full-game env (default {d.n_envs})")
    p.add_argument("--eval-games", type=int, help=f"games against each pool member per "
                   f"generation (default {d.eval_games})")
    p.add_argument("--promote-at", type=float, help=f"win rate against every member that "
                   f"puts the learner into the pool (default {d.promote_at})")
    p.add_argument("--init", dest="init_model", help="start from this model .zip")
    p.add_argument("--train-config", dest="train_config",
                   help="train YAML for the algorithm and action (default: <game>_sac.yaml)")
    p.add_argument("--seed", type=int, help=f"seeds everything (default {d.seed})")
    p.add_argument("--runs-dir", default="runs", help="directory of the runs (default ./runs)")
    p.add_argument("--no-progress", dest="progress", action="store_false", default=None,
                   help="no progress bars")
    p.add_argument("--overwrite", action="store_true", help="delete the files of an existing "
                   "runs/<name> and start over (a self-play run cannot be resumed)")
    args = p.parse_args(argv)
    from cuegym.experiments.train_config import check_run_name, read_yaml_mapping, refuse_empty

    # '' would silently mean the default (the working directory for --runs-dir)
    refuse_empty(p, ("--config", args.config), ("--init", args.init_model),
                 ("--train-config", args.train_config), ("--name", args.name),
                 ("--runs-dir", args.runs_dir))
    if args.name is not None:  # (a name from --config: check_config)
        check_run_name(args.name, "--name")
    data: dict = {}
    if args.config:  # (an empty file is refused, as every run script refuses it)
        data = read_yaml_mapping(args.config, "self-play keys")
    for k in ("game", "name", "generations", "steps_per_generation", "n_envs", "eval_games",
              "promote_at", "init_model", "train_config", "seed", "progress"):
        v = getattr(args, k)
        if v is not None:
            data[k] = v
    if "name" not in data and "game" in data:
        data["name"] = f"selfplay_{data['game']}"
    unknown = sorted(set(data) - set(SelfPlayConfig.__dataclass_fields__), key=str)
    if unknown:
        p.error(f"unknown self-play key(s) {unknown}")
    run(check_config(SelfPlayConfig(**data)), Path(args.runs_dir), overwrite=args.overwrite)
    return 0


if __name__ == "__main__":
    sys.exit(main())
