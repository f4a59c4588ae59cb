"""Expert iteration for keglebillard and golfbillard: positions from whole games, labelled by
a simulating teacher that also weighs the student's own move, distilled into a network that
then plays with one forward pass (method: :mod:`cuegym.agents.expert`; docs/agents.md).

    python experiments/expert_iteration.py --config configs/expert/keglebillard.yaml
    python experiments/expert_iteration.py --config configs/expert/keglebillard.yaml \\
        --name quick --set generations=1 label_positions=64 'train={steps: 50}'
    python experiments/expert_iteration.py --config configs/expert/keglebillard.yaml --resume
    python experiments/expert_iteration.py --config configs/expert/golfbillard.yaml

Writes ``runs/<name>/``: ``config.yaml`` (the settings used), ``gen<k>.pt`` (the network after
generation k) and ``model.pt`` (the last), ``labels_gen<k>.npz`` (the teacher's labels and the
games' positions of generation k, for ``--resume``), ``metrics.csv`` (one row per generation:
teacher and student values on the generation's fresh positions, losses, games against the
agents of ``eval``) and ``learning_curve.png``. Every file is written to a
temporary name and renamed; ``--resume`` continues after the last finished generation (more
``generations`` go on; fewer than the run has done are refused).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cuegym.agents.pool import label_pool
from cuegym.cli_errors import check_int, cli_main, script_prog
from cuegym.cli_errors import unknown as unknown_name
from cuegym.configs import load_yaml
from cuegym.experiments.train import require_run, write_atomic
from cuegym.experiments.train_config import (
    check_agent_specs,
    check_run_name,
    layered_config,
    parse_run_args,
    run_overrides,
)

#: Config keys and their defaults (configs/expert/keglebillard.yaml documents each).
DEFAULTS: dict[str, Any] = {
    "game": "keglebillard", "name": "keglebillard_expert", "seed": 0, "generations": 3,
    "threads": 1,
    "spec": {}, "teacher": {}, "train": {}, "label_positions": 6000, "max_shots": 400,
    "games": {"first": [["geometric", "geometric", 200]],
              "later": [["student", "student", 100], ["student", "geometric", 100]]},
    "eval": {"geometric": 100, "planner": 40, "seed": 50_000},
    "progress_bar": True,
    "play": {},
    "workers": 1,
    "final_fit": {},
}

#: ``final_fit`` keys: a fresh network's hidden layout and its optimisation (``TrainSpec``)
FINAL_FIT_KEYS = ("hidden", "steps", "batch", "lr", "w_q", "w_res", "w_value")

#: ``play`` keys: how ``model.pt`` plays (its saved spec), where it differs from the training run
PLAY_KEYS = ("select", "res_gain")


#: The opponents ``eval`` may name, with their colour in the learning curve.
EVAL_COLORS = {"geometric": "tab:green", "planner": "tab:red", "pretrained": "tab:purple"}
#: integer keys and their minimum (seeds: numpy takes no negative seed)
INT_MIN = {"seed": 0, "generations": 1, "threads": 1, "label_positions": 1, "max_shots": 1,
           "workers": 1}
#: the largest seed the games take (``play_games``: seeds are int64); the run derives its
#: games' seeds from ``seed`` (:func:`games_seed`) and ``eval.seed`` (:func:`eval_seed`)
SEED_MAX = 2**63 - 1
#: metrics.csv columns holding counts (the rest are floats)
INT_COLUMNS = ("generation", "positions", "labelled")


def load_config(path: str | Path | None, over: dict[str, Any] | None = None) -> dict[str, Any]:
    """The run's settings: :data:`DEFAULTS`, then the YAML file, then ``over``; unknown keys are
    an error naming them, a key set to null takes its default."""
    cfg = layered_config(DEFAULTS, path, over, "expert")
    check_run_name(cfg["name"])
    for key, lo in INT_MIN.items():
        check_int(f"config key {key}", cfg[key], lo)
    games = DEFAULTS["games"]
    for key in cfg["games"]:  # (check_like checks only the keys the defaults have)
        if key not in games:
            raise ValueError(unknown_name("games key", key, games))
    cfg["games"] = {**games, **cfg["games"]}  # a key set to null takes its default
    for key in ("first", "later"):
        if not cfg["games"][key] and (key == "first" or cfg["generations"] > 1):
            raise ValueError(f"games.{key} must list at least one row [agent, agent, n_games]"
                             f"{' (generations after the first play them)' * (key == 'later')}"
                             f", got {cfg['games'][key]!r}")
        for row in cfg["games"][key]:
            if not (isinstance(row, list) and len(row) == 3 and all(
                    isinstance(a, str) for a in row[:2]) and isinstance(row[2], int) and
                    not isinstance(row[2], bool) and row[2] >= 1):
                raise ValueError(f"games.{key}: each row is [agent, agent, n_games >= 1], "
                                 f"got {row!r}")
            if key == "first" and "student" in row[:2]:
                raise ValueError(f"games.first: {row!r} names the student, which the first "
                                 "generation does not have yet (games.later may)")
    cfg["eval"] = check_eval(cfg["eval"], DEFAULTS["eval"]["seed"])
    check_seeds(cfg)
    from cuegym.agents.expert import ExpertSpec, TeacherSpec, TrainSpec

    for key, cls in (("spec", ExpertSpec), ("teacher", TeacherSpec), ("train", TrainSpec)):
        known = {f.name for f in dataclasses.fields(cls)}
        bad = sorted(set(cfg[key] or {}) - known)
        if bad:
            raise ValueError(f"unknown {key} key(s) {bad}; known: {sorted(known)}")
    bad = sorted(set(cfg["final_fit"] or {}) - set(FINAL_FIT_KEYS))
    if bad:
        raise ValueError(f"unknown final_fit key(s) {bad}; known: {list(FINAL_FIT_KEYS)}")
    from cuegym.agents.base import check_game, load_noise

    bad = sorted(set(cfg["play"] or {}) - set(PLAY_KEYS))
    if bad:
        raise ValueError(f"unknown play key(s) {bad}; known: {list(PLAY_KEYS)}")
    check_game(cfg["game"])
    check_agent_specs({f"games.{key}[{i}]": name for key in ("first", "later")
                       for i, row in enumerate(cfg["games"].get(key, []))
                       for name in row[:2] if name != "student"}, cfg["game"])
    if (cfg["spec"] or {}).get("game", cfg["game"]) != cfg["game"]:
        raise ValueError(f"spec.game {cfg['spec']['game']!r} differs from game {cfg['game']!r}")
    bad = [k for k in cfg["eval"] if k != "seed" and k not in EVAL_COLORS]
    if bad:
        raise ValueError(f"eval: unknown opponent(s) {bad}; known: {sorted(EVAL_COLORS)}")
    # the specs a run builds, built now: a bad value is refused before the run directory exists
    spec = expert_spec(cfg)
    dataclasses.replace(spec, **(cfg["play"] or {}))
    teacher = TeacherSpec(**(cfg["teacher"] or {}))
    try:  # the noise is read where the labelling starts: checked now
        load_noise(teacher.noise)
    except ValueError as e:
        raise ValueError(f"config key teacher.noise: {e}") from None
    from cuegym.agents.arena import GolfbillardArena, KeglebillardArena
    from cuegym.agents.planner import MAX_WEIGHT, check_numbers

    # the arena reads the terms only where the teacher's first search runs (after the games)
    arena = KeglebillardArena if cfg["game"] == "keglebillard" else GolfbillardArena
    check_numbers("teacher.terms", teacher.terms, arena.TERMS, lo=-MAX_WEIGHT, hi=MAX_WEIGHT)
    TrainSpec(**(cfg["train"] or {}))
    final = dict(cfg["final_fit"] or {})
    if "hidden" in final:
        dataclasses.replace(spec, hidden=final.pop("hidden"))
    TrainSpec(**final)
    return cfg


def check_eval(ev: dict[str, Any], seed: int) -> dict[str, Any]:
    """``eval`` with its seed (``seed`` when it names none: ``eval: {}``, which switches the
    games off, replaced the defaults' seed too): games against each opponent integers >= 0
    (0: none), its seed one >= 0; a ValueError naming the key otherwise. Shared with
    train_aim.py."""
    ev = {"seed": seed, **ev}
    for key, v in ev.items():
        check_int(f"config key eval.{key}", v, 0)
    return ev


def games_seed(cfg: dict[str, Any], k: int, m: int) -> int:
    """The seed of generation ``k``'s games of row ``m`` (of ``games.first`` or ``.later``)."""
    return int(cfg["seed"]) * 1000 + 10 * k + m


def eval_seed(cfg: dict[str, Any], k: int) -> int:
    """The seed of the ``eval`` games after generation ``k`` (``generations``: the final fit)."""
    return int(cfg["eval"]["seed"]) + 100 * k


def check_seeds(cfg: dict[str, Any]) -> None:
    """The seeds a run derives stay within :data:`SEED_MAX`: those of the games of every
    generation (:func:`games_seed`: the largest is the first generation's last row or the last
    generation's) and of the ``eval`` games (:func:`eval_seed`, the final fit's after the last
    generation); a ValueError naming ``seed`` or ``eval.seed``, its value and its largest
    allowed value, before the run directory exists (not at the generation that reaches 2**63).
    (The networks' seeds, ``seed * 100 + k``, stay below torch's 2**64 then.)"""
    gens, seed = int(cfg["generations"]), int(cfg["seed"])
    last_row = {0: len(cfg["games"]["first"]) - 1}  # (games.later: every generation after 0)
    if gens > 1:
        last_row[gens - 1] = len(cfg["games"]["later"]) - 1
    k = max(last_row, key=lambda k: games_seed(cfg, k, last_row[k]))
    top = games_seed(cfg, k, last_row[k])
    if top > SEED_MAX:
        most = (SEED_MAX - (top - seed * 1000)) // 1000
        raise ValueError(f"config key seed must be <= {most} (generation {k}'s games play on "
                         f"seed * 1000 + 10 * generation + row, below 2**63), got {seed}")
    last = gens if cfg["final_fit"] else gens - 1
    if eval_seed(cfg, last) > SEED_MAX:
        whose = "the final fit's" if last == gens else f"generation {last}'s"
        raise ValueError(f"config key eval.seed must be <= {SEED_MAX - 100 * last} ({whose} "
                         f"eval games play on eval.seed + 100 * {last}, below 2**63), got "
                         f"{cfg['eval']['seed']}")


def expert_spec(cfg: dict[str, Any]) -> Any:
    """The run's :class:`~cuegym.agents.expert.ExpertSpec` (``spec`` for the config's game)."""
    from cuegym.agents.expert import ExpertSpec

    return ExpertSpec(**{**(cfg["spec"] or {}), "game": cfg["game"]})


def _atomic_npz(path: Path, **arrays: np.ndarray) -> None:
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.npz")
    try:
        np.savez_compressed(tmp, **arrays)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _agent(spec: str, student: Any, arena: Any) -> Any:
    from cuegym.agents import make_agent

    return student if spec == "student" else make_agent(spec, arena.game, arena=arena)


def _games_eval(arena: Any, student: Any, other: str, n: int, seed: int) -> dict[str, float]:
    """Student vs ``other``: wins / finished games (a G-5 draw is no win) with the Wilson 95 %
    interval, the share of draws, points (golfbillard: own goals) per shot and foul rate of
    both (tournament noise, seats alternating)."""
    from cuegym.agents import play_games
    from cuegym.agents.ratings import wilson_interval

    res = play_games(arena, [student, _agent(other, None, arena)], n, seed=seed)
    a, b = res.stats(0), res.stats(1)
    dec = a["wins"] + a["losses"] + a["draws"]
    lo, hi = wilson_interval(a["wins"], dec) if dec else (float("nan"),) * 2
    key = other.split(":")[0]
    draws = {f"{key}_draws": a["draws"] / dec if dec else float("nan")} \
        if arena.game == "golfbillard" else {}  # G-5; keglebillard has no draws
    return {f"{key}_win": a["wins"] / dec if dec else float("nan"), f"{key}_win_lo": lo,
            f"{key}_win_hi": hi, f"{key}_games": n, **draws, f"{key}_pps": a["points_per_shot"],
            f"{key}_fouls": a["foul_rate"], f"{key}_opp_pps": b["points_per_shot"],
            f"{key}_opp_fouls": b["foul_rate"]}


def plot_curves(run: Path, rows: list[dict[str, Any]], game: str = "keglebillard",
                final: dict[str, Any] | None = None) -> Path:
    """learning_curve.png: per generation, the student's games (win share with 95 % interval
    against the opponents of ``eval``; points per shot; foul rate) and the simulated
    value of its move, the teacher's and the best stage-1 menu entry's on the generation's fresh
    positions (before training on them; the student's value at generation 0 is the menu's).
    ``final``: the :func:`final_fit` row, drawn as stars after the last generation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = np.array([r["generation"] for r in rows])
    fig, ax = plt.subplots(1, 4, figsize=(17, 3.8))
    for key, c in EVAL_COLORS.items():
        if f"{key}_win" not in rows[0]:
            continue
        w = np.array([r[f"{key}_win"] for r in rows])
        lo = np.array([r[f"{key}_win_lo"] for r in rows])
        hi = np.array([r[f"{key}_win_hi"] for r in rows])
        ax[0].errorbar(g, w, yerr=[w - lo, hi - w], marker="o", color=c, capsize=3,
                       label=f"vs {key} ({rows[0][f'{key}_games']} games)")
        ax[1].plot(g, [r[f"{key}_pps"] for r in rows], "o-", color=c, label=f"vs {key}")
        ax[2].plot(g, [100 * r[f"{key}_fouls"] for r in rows], "o-", color=c, label=f"vs {key}")
        if final and f"{key}_win" in final:
            x, w = g[-1] + 1, final[f"{key}_win"]
            ax[0].errorbar([x], [w], yerr=[[w - final[f"{key}_win_lo"]],
                                           [final[f"{key}_win_hi"] - w]],
                           marker="*", ms=12, color=c, capsize=3)
            ax[1].plot([x], [final[f"{key}_pps"]], "*", ms=12, color=c)
            ax[2].plot([x], [100 * final[f"{key}_fouls"]], "*", ms=12, color=c)
    ax[0].axhline(0.5, color="grey", lw=0.8)
    ax[0].set(xlabel="generation", ylabel="share of finished games won", ylim=(0, 1),
              title="student's games (95 % Wilson)")
    pts = "own goals" if game == "golfbillard" else "points"
    ax[1].set(xlabel="generation", ylabel=f"{pts} per shot", title=f"student's {pts} per shot")
    ax[2].set(xlabel="generation", ylabel="fouls [% of shots]", title="student's foul rate")
    for key, c, lab in (("teacher_value", "black", "teacher's move (best of its search)"),
                        ("menu_value", "tab:blue", "best menu entry of stage 1"),
                        ("student_value", "tab:orange", "student's move")):
        ax[3].plot(g, [r[key] for r in rows], "o-", color=c, label=lab)
    ax[3].set(xlabel="generation", ylabel="mean simulated value (teacher's terms)",
              title="moves on the generation's fresh positions")
    for a in ax:
        a.set_xticks(g)
        if final:
            if a is not ax[3]:
                a.set_xticks(list(g) + [g[-1] + 1], [str(k) for k in g] + ["final\nfit"])
            else:
                a.set_xlim(ax[0].get_xlim())
        if a.get_legend_handles_labels()[0]:  # (no eval games: no curves to name)
            a.legend(fontsize=8)
        a.grid(alpha=0.3)
    fig.tight_layout()
    out = run / "learning_curve.png"
    tmp = run / f".learning_curve.{os.getpid()}.tmp.png"
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, out)
    return out


def load_labels(path: Path) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """One generation's ``labels_gen<k>.npz``: (teacher labels, value observations, results)."""
    with np.load(path) as d:
        labels = {k[2:]: d[k] for k in d.files if k.startswith("L_")}
        return labels, d["value_obs"], d["value_z"]


def pool_labels(data: list[tuple[dict, np.ndarray, np.ndarray]]
                ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Generations' ``(labels, value_obs, value_z)`` (:func:`load_labels`) concatenated."""
    labels = {n: np.concatenate([d[0][n] for d in data]) for n in data[0][0]}
    return labels, np.concatenate([d[1] for d in data]), np.concatenate([d[2] for d in data])


def run_generation(k: int, cfg: dict[str, Any], arena: Any, net: Any, student: Any,
                   rng: np.random.Generator, bar: Any, pool: Any = None
                   ) -> tuple[dict, np.ndarray, np.ndarray, dict[str, float]]:
    """Games, then the teacher's labels of ``label_positions`` of their positions (split over
    the ``workers`` processes of ``pool`` when there is one)."""
    from cuegym.agents.expert import TeacherSpec, collect_positions, teacher_labels

    t0 = time.time()
    rows = cfg["games"]["first" if k == 0 or student is None else "later"]
    parts, zs = [], []
    for m, (a, b, n) in enumerate(rows):
        st, z, _ = collect_positions(arena, [_agent(a, student, arena), _agent(b, student, arena)],
                                     int(n), seed=games_seed(cfg, k, m),
                                     max_shots=int(cfg["max_shots"]))
        parts.append(st)
        zs.append(z)
    states = type(parts[0]).concat(parts)
    z = np.concatenate(zs)
    t_games = time.time() - t0
    n_lab = min(int(cfg["label_positions"]), len(states))
    pick = np.sort(rng.choice(len(states), n_lab, replace=False))
    t0 = time.time()
    bar.reset(total=n_lab)
    bar.set_description(f"generation {k}: teacher")
    labels = teacher_labels(arena, states.take(pick), expert_spec(cfg),
                            TeacherSpec(**cfg["teacher"]), rng, student=student,
                            progress=bar.update, pool=pool,
                            parts=int(cfg["workers"]) if pool is not None else 1)
    info = {"positions": len(states), "labelled": n_lab, "t_games_s": t_games,
            "t_teacher_s": time.time() - t0,
            "teacher_value": float(labels["value"].mean()),
            "menu_value": float(labels["menu_value"].mean()),
            "student_value": float(labels["student_value"].mean()),
            "student_entry_agrees": float(np.nan) if student is None else
            float((student.propose(states.take(pick))[0] == labels["entry"]).mean())}
    return labels, arena.g.observe(states), z, info


def _eval_games(arena: Any, student: Any, ev: dict[str, Any], seed: int) -> dict[str, float]:
    """The ``eval`` games of ``student`` against each opponent named there (seed ``seed``)."""
    row: dict[str, float] = {}
    t0 = time.time()
    for other in EVAL_COLORS:
        if int(ev.get(other, 0)):
            row.update(_games_eval(arena, student, other, int(ev[other]), seed))
    row["t_eval_s"] = time.time() - t0
    return row


def _meta(cfg: dict[str, Any], generation: int | str, **extra: Any) -> dict[str, Any]:
    """What a saved network of this run records: game, generation, config, the command."""
    return {"game": cfg["game"], "generation": generation, "config": cfg, **extra,
            "command": "python experiments/expert_iteration.py " + " ".join(sys.argv[1:])}


def _save_model(net: Any, run: Path, meta: dict[str, Any], cfg: dict[str, Any]) -> Path:
    """``model.pt``: ``net`` playing with the ``play`` settings (chosen on held-out games; the
    generations keep the ones the student played with while collecting positions)."""
    from cuegym.agents.expert import save_net

    return save_net(net, run / "model.pt", meta,
                    spec=dataclasses.replace(net.spec, **(cfg["play"] or {})))


def _log(row: dict[str, Any], label: str | None = None) -> None:
    """One JSON line of ``row`` (floats rounded; under ``label`` if given) on stderr."""
    out = {k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}
    print(json.dumps(out if label is None else {label: out}), file=sys.stderr, flush=True)


def final_fit(cfg: dict[str, Any], run: Path, arena: Any,
              data: list[tuple[dict, np.ndarray, np.ndarray]]) -> dict[str, Any]:
    """``final_fit``: a fresh network (its own ``hidden`` layout, default the run's) fitted on
    the labels of every generation at once, written to ``final.pt`` and as ``model.pt`` (with
    the ``play`` settings), then played in the ``eval`` games; returns (and writes to
    ``final.json``) its losses and results."""
    from cuegym.agents.expert import ExpertAgent, TrainSpec, fit_fresh, save_net

    opts = dict(cfg["final_fit"])
    spec = expert_spec(cfg)
    spec = dataclasses.replace(spec, hidden=list(opts.pop("hidden", spec.hidden)))
    labels, vobs, vz = pool_labels(data)
    t0 = time.time()
    net, losses = fit_fresh(spec, labels, vobs, vz, TrainSpec(**opts),
                            seed=int(cfg["seed"]) * 100 + 99)
    meta = _meta(cfg, "final", labels=len(labels["entry"]))
    save_net(net, run / "final.pt", meta)
    model = _save_model(net, run, meta, cfg)
    row = {"labels": len(labels["entry"]), "t_train_s": time.time() - t0, **losses,
           **_eval_games(arena, ExpertAgent(model, arena=arena), cfg["eval"],
                         eval_seed(cfg, int(cfg["generations"])))}
    write_atomic(run / "final.json", json.dumps(row, indent=1) + "\n")
    _log(row, "final_fit")
    return row


def check_run(run: Path, cfg: dict[str, Any], resume: bool, overwrite: bool,
              refuse_resume: Callable[[dict[str, Any]], str | None],
              start_over: str = "--overwrite to start over") -> None:
    """Refuse, changing nothing, a run directory that does not fit: one that holds work
    unless ``resume`` or ``overwrite`` (the message's other way out: ``start_over``), a
    ``resume`` of a run that does not exist (no config.yaml: :func:`train.require_run`) and
    one for which ``refuse_resume(saved config)`` gives a reason. Shared by expert iteration,
    train_aim.py and reproduce.py."""
    if run.exists() and not run.is_dir():
        raise ValueError(f"{run} is a file, not a run directory")
    if run.exists() and not (resume or overwrite) and any(run.iterdir()):
        raise ValueError(f"{run} exists: pass --resume to continue it or {start_over}")
    if resume:
        why = refuse_resume(load_yaml(require_run(run).read_text()))
        if why:
            raise ValueError(f"--resume: {run}/config.yaml {why}")


def open_run(run: Path, cfg: dict[str, Any], resume: bool, overwrite: bool,
             refuse_resume: Callable[[dict[str, Any]], str | None]) -> Path:
    """The run directory ``run``, checked by :func:`check_run`, then made (emptied first with
    ``overwrite``), with ``cfg`` written to its config.yaml. Shared by expert iteration and
    train_aim.py."""
    import shutil

    check_run(run, cfg, resume, overwrite, refuse_resume)
    if run.exists() and overwrite:
        shutil.rmtree(run)
    run.mkdir(parents=True, exist_ok=True)
    write_atomic(run / "config.yaml", yaml.safe_dump(cfg, sort_keys=False))
    return run


def changed_keys(saved: dict[str, Any], given: dict[str, Any]) -> list[str]:
    """The keys whose values differ between two configs (``section.key`` inside mappings
    both have), for a resume refusal that says what it refuses."""
    out = []
    for k in sorted(set(saved) | set(given)):
        a, b = saved.get(k), given.get(k)
        if isinstance(a, dict) and isinstance(b, dict):
            out += [f"{k}.{sub}" for sub in changed_keys(a, b)]
        elif a != b:
            out.append(k)
    return out


#: what a resume of expert iteration may change: how far it goes, how the shipped model
#: plays, and what does not touch the results (the run's name, as when a run is copied)
RESUME_FREE = ("generations", "play", "name", "progress_bar", "threads")


def resume_refusal(cfg: dict[str, Any], run: Path | None = None
                   ) -> Callable[[dict[str, Any]], str | None]:
    """Expert iteration may resume with :data:`RESUME_FREE` changed; a run saved before a key
    existed had its default. With the ``run`` folder, fewer ``generations`` than it has done
    are refused too (its config would no longer describe its files)."""
    def refuse(saved: dict[str, Any]) -> str | None:
        free = dict.fromkeys(RESUME_FREE)
        diff = changed_keys(DEFAULTS | saved | free, cfg | free)
        if diff:
            return (f"differs from the config given in {', '.join(diff)} "
                    f"(a resume may change {', '.join(RESUME_FREE)})")
        done = len(_read_metrics(run / "metrics.csv")) if run is not None else 0
        if done > int(cfg["generations"]):
            return (f"belongs to a run that has done {done} generations, more than the "
                    f"generations {cfg['generations']} given: give {done} or more")
        return None
    return refuse


def finished(run: Path, cfg: dict[str, Any]) -> bool:
    """Whether the run ``run`` of ``cfg`` has done all its generations and its final fit
    (final.json is the fit's last file; model.pt is rewritten after every generation, so it
    does not tell)."""
    done = len(_read_metrics(run / "metrics.csv")) >= int(cfg["generations"])
    return done and (not cfg["final_fit"] or (run / "final.json").exists())


def _read_metrics(metrics: Path) -> list[dict[str, Any]]:
    """The rows of a run's metrics.csv, one per finished generation ([] when there is none)."""
    if not metrics.exists():
        return []
    with metrics.open() as f:
        return [{k: int(v) if k in INT_COLUMNS or k.endswith("_games") else float(v)
                 for k, v in r.items()} for r in csv.DictReader(f)]


def _write_metrics(metrics: Path, rows: list[dict[str, Any]]) -> None:
    """metrics.csv with ``rows``, written atomically."""
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=list(rows[-1]))
    w.writeheader()
    w.writerows(rows)
    write_atomic(metrics, buf.getvalue())


def expert_iteration(cfg: dict[str, Any], runs_dir: str | Path = "runs", resume: bool = False,
                     overwrite: bool = False) -> Path:
    """Run (or ``resume``) the generations of ``cfg``, then its ``final_fit`` (if any, and
    not done yet); returns the run directory."""
    import torch
    from tqdm.auto import tqdm

    from cuegym.agents import make_arena
    from cuegym.agents.expert import (
        ExpertAgent,
        ExpertNet,
        TrainSpec,
        load_net,
        save_net,
        train_net,
    )

    torch.set_num_threads(int(cfg["threads"]))
    torch.manual_seed(int(cfg["seed"]))
    run = Path(runs_dir) / cfg["name"]
    run = open_run(run, cfg, resume, overwrite, resume_refusal(cfg, run))
    arena = make_arena(cfg["game"])
    metrics = run / "metrics.csv"
    rows = _read_metrics(metrics) if resume else []
    start = len(rows)
    data = [load_labels(run / f"labels_gen{k}.npz") for k in range(start)]
    net, student = ExpertNet(expert_spec(cfg)), None
    if start:  # the last generation's student goes on learning
        net, _ = load_net(run / f"gen{start - 1}.pt")
        student = ExpertAgent(net, arena=arena)
    bar = tqdm(disable=not cfg["progress_bar"], unit="pos")
    with label_pool(int(cfg["workers"])) as pool:
        for k in range(start, int(cfg["generations"])):
            rng = np.random.default_rng([int(cfg["seed"]), k])
            labels, vobs, vz, info = run_generation(k, cfg, arena, net, student, rng, bar, pool)
            _atomic_npz(run / f"labels_gen{k}.npz", value_obs=vobs, value_z=vz,
                        **{f"L_{n}": v for n, v in labels.items()})
            data.append((labels, vobs, vz))
            t0 = time.time()
            losses = train_net(net, *pool_labels(data), TrainSpec(**cfg["train"]),
                               seed=int(cfg["seed"]) * 100 + k)
            student = ExpertAgent(net, arena=arena)
            meta = _meta(cfg, k)
            save_net(net, run / f"gen{k}.pt", meta)
            _save_model(net, run, meta, cfg)
            row = {"generation": k, **info, "t_train_s": time.time() - t0, **losses,
                   **_eval_games(arena, student, cfg["eval"], eval_seed(cfg, k))}
            rows.append(row)
            _write_metrics(metrics, rows)
            plot_curves(run, rows, cfg["game"])
            _log(row)
    bar.close()
    if cfg["final_fit"] and (start < int(cfg["generations"]) or not (run / "final.json").exists()):
        plot_curves(run, rows, cfg["game"], final=final_fit(cfg, run, arena, data))
    elif start and start >= int(cfg["generations"]):
        # a resume with nothing left to run may still bring new play settings: model.pt
        # takes them (its network is the last generation's, or the final fit's)
        last = run / ("final.pt" if cfg["final_fit"] else f"gen{start - 1}.pt")
        net, meta = load_net(last)
        _save_model(net, run, meta, cfg)
    return run


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="YAML config (configs/expert/keglebillard.yaml, "
                   "configs/expert/golfbillard.yaml)")
    p.add_argument("--name", help="run name (directory under runs/)")
    args = parse_run_args(p, argv, "continue runs/<name> after its last finished generation "
                          "(its config must be the one given, generations and play aside)")
    cfg = load_config(args.config, run_overrides(args))
    run = expert_iteration(cfg, runs_dir=args.runs_dir, resume=args.resume,
                           overwrite=args.overwrite)
    print(f"wrote {run}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
