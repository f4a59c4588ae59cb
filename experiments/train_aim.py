"""Train a keglebillard aim correction (:mod:`cuegym.agents.aim`): value curves over aim offsets
of a base agent's strikes in positions of its games, fitted by a network that then turns the
base agent's aim with one forward pass. With ``target: leave`` the same pipeline trains a
leave network instead (:mod:`cuegym.agents.leave`: what each of the base DQN's best entries
leaves the opponent), which a :class:`~cuegym.agents.leave.LeaveAwareAgent` chooses by.

    python experiments/train_aim.py --config configs/aim/keglebillard.yaml
    python experiments/train_aim.py --config configs/aim/keglebillard_leave.yaml
    python experiments/train_aim.py --config configs/aim/keglebillard.yaml --name quick \\
        --set games=40 'fit={epochs: 2}' 'eval={geometric: 20, planner: 0}'

Writes ``runs/<name>/``: ``config.yaml``, ``labels_<k>.npz`` (the inputs and value curves of
worker k's piece of the games; ``--resume`` reuses them), ``model.pt`` (the network; its
metadata holds the config and the command) and ``eval.json`` (games of the corrected agent
and of the base agent alone against the same opponents on the same seeds, side by side; win
rates with Wilson 95 % intervals). ``agents/pretrained/keglebillard_aim.pt`` is ``model.pt`` of
the shipped config (``keglebillard_leave.pt`` that of ``keglebillard_leave.yaml``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.agents.pool import label_pool, shares
from cuegym.cli_errors import check_int, cli_main, script_prog
from cuegym.experiments.expert_iteration import (
    _atomic_npz,
    _eval_games,
    _log,
    changed_keys,
    check_eval,
    open_run,
)
from cuegym.experiments.train import write_atomic
from cuegym.experiments.train_config import (
    check_agent_specs,
    check_in_range,
    check_run_name,
    layered_config,
    parse_run_args,
    run_overrides,
)

#: Config keys and their defaults (configs/aim/keglebillard.yaml documents each).
DEFAULTS: dict[str, Any] = {
    "name": "keglebillard_aim", "target": "aim", "seed": 0, "threads": 1, "workers": 1,
    "base": "pretrained:aim=none", "entries": 1, "opponent": "geometric", "games": 200,
    "offsets": {"max_deg": 1.0, "n": 21}, "draws": 16, "noise": "tournament",
    "chunk": 12,  # cuegym.agents.aim.LABEL_CHUNK (not imported here: no torch for --help)
    "fit": {"hidden": [256, 256, 256], "epochs": 30, "batch": 256, "lr": 0.001,
            "mirror": [], "threads": None, "layout": "mlp", "head": [256, 128]},
    "eval": {"geometric": 1000, "planner": 200, "seed": 50_000},
    "leave": {"reply_candidates": 12, "reply_noise": 4, "weight": 0.75, "own": 0.5,
              "aim": "shipped"},
    "progress_bar": True,
}


def load_config(path: str | Path | None, over: dict[str, Any] | None = None,
                base_written_later: bool = False) -> dict[str, Any]:
    """:data:`DEFAULTS`, then the YAML file, then ``over``; unknown keys and bad values are an
    error naming them, a key set to null takes its default. The ``base`` and ``opponent``
    agents are built once to check them, but for a ``base`` that a stage before this one is
    still to write (``base_written_later``: reproduce.py's chain checks every stage first)."""
    cfg = layered_config(DEFAULTS, path, over, "aim", free=("noise",))  # noise: a preset or a scale
    check_run_name(cfg["name"])
    if cfg["target"] not in ("aim", "leave"):
        raise ValueError(f"target must be 'aim' or 'leave', got {cfg['target']!r}")
    for key in ("offsets", "fit", "eval", "leave"):  # mappings: the keys of their defaults
        bad = sorted(set(cfg[key]) - set(DEFAULTS[key]))
        if bad:
            raise ValueError(f"unknown {key} key(s) {bad}; known: {list(DEFAULTS[key])}")
    cfg["offsets"] = {**DEFAULTS["offsets"], **cfg["offsets"]}
    cfg["fit"] = {**DEFAULTS["fit"], **cfg["fit"]}
    cfg["leave"] = {**DEFAULTS["leave"], **cfg["leave"]}
    # the other target's settings would be ignored (target aim never reads leave, target leave
    # labels offset 0 only): refused at any value but their default
    other = "leave" if cfg["target"] == "aim" else "offsets"
    for key, default in DEFAULTS[other].items():
        if cfg[other][key] != default:
            raise ValueError(f"config key {other}.{key} ({cfg[other][key]!r}) is a setting of "
                             f"target {'aim' if other == 'offsets' else 'leave'}, but the target "
                             f"is {cfg['target']!r}, which never reads it: remove it (--set "
                             f"{other}=null)")
    lv = cfg["leave"]
    if int(lv["reply_candidates"]) < 1 or int(lv["reply_noise"]) < 1 or \
            not float(lv["weight"]) >= 0.0 or not 0.0 <= float(lv["own"]) <= 1.0:
        raise ValueError(f"leave: reply_candidates and reply_noise must be >= 1, weight a "
                         f"number >= 0 and own one in [0, 1], got {lv}")
    if lv["aim"] not in (None, "none", "shipped") and not Path(str(lv["aim"])).is_file():
        raise ValueError(f"leave: aim={lv['aim']!r} is none of none, shipped or an aim "
                         "network's path")
    n, deg = int(cfg["offsets"]["n"]), float(cfg["offsets"]["max_deg"])
    if n < 3 or n % 2 == 0 or not 0.0 < deg <= 10.0:
        raise ValueError(f"offsets: n must be odd and >= 3 (0 in the middle) and max_deg in "
                         f"(0, 10] degrees, got n={n}, max_deg={deg}")
    for key in ("games", "workers", "draws", "chunk", "threads", "entries"):
        check_int(f"config key {key}", cfg[key], 1)
    check_int("config key seed", cfg["seed"], 0)  # numpy takes no negative seed
    cfg["eval"] = check_eval(cfg["eval"], DEFAULTS["eval"]["seed"])
    from cuegym.agents.base import load_noise

    try:  # the noise is read where the labelling starts (in the workers): checked now
        load_noise(cfg["noise"])
    except ValueError as e:
        raise ValueError(f"config key noise: {e}") from None
    agents = {"opponent": cfg["opponent"]} | ({} if base_written_later else {"base": cfg["base"]})
    built = check_agent_specs(agents, "keglebillard")
    if "base" in built and (int(cfg["entries"]) > 1 or cfg["target"] == "leave"):
        # found where the labelling starts otherwise: after the run directory (and with
        # --overwrite the old run) is gone; the base ranks as the labelling asks it to
        why = f"entries={cfg['entries']}" if int(cfg["entries"]) > 1 else "target: leave"
        try:
            built["base"].ranked([], int(cfg["entries"]))
        except AttributeError:
            raise ValueError(f"config key base: {why} needs a base that ranks its strikes (a "
                             f"discrete-menu DQN model), and {cfg['base']!r} does not") from None
        except ValueError as e:  # an SB3 model that is no menu DQN, or too few entries
            raise ValueError(f"config key base: {e}") from None
    if int(cfg["games"]) < int(cfg["workers"]):
        raise ValueError(f"games ({cfg['games']}) must be at least workers ({cfg['workers']})")
    ft = cfg["fit"]["threads"]
    if int(cfg["fit"]["epochs"]) < 1 or int(cfg["fit"]["batch"]) < 1 or \
            (ft is not None and (isinstance(ft, bool) or not isinstance(ft, int) or ft < 1)):
        raise ValueError(f"fit: epochs and batch must be >= 1 and threads null or an integer "
                         f">= 1, got {cfg['fit']}")
    # the network's sizes and learning rate are read only after the labelling: checked now
    check_in_range("config key fit.lr", cfg["fit"]["lr"], 0.0, None, True, False)
    for key in ("hidden", "head"):  # (check_like: lists of integers)
        for i, width in enumerate(cfg["fit"][key]):
            check_int(f"config key fit.{key}[{i}]", width, 1)
    from cuegym.agents.aim import LAYOUTS

    if cfg["fit"]["layout"] not in LAYOUTS:
        raise ValueError(f"fit: layout must be one of {list(LAYOUTS)}, got "
                         f"{cfg['fit']['layout']!r}")
    if cfg["fit"]["layout"] == "contact" and cfg["target"] == "leave":
        raise ValueError("fit: layout 'contact' scores aim offsets; the leave (target: leave) "
                         "takes layout 'mlp'")
    if cfg["fit"]["layout"] == "contact" and not (cfg["fit"]["hidden"] and cfg["fit"]["head"]):
        raise ValueError(f"fit: layout 'contact' needs trunk and head layers, got hidden="
                         f"{cfg['fit']['hidden']}, head={cfg['fit']['head']}")
    mirror = cfg["fit"]["mirror"]
    if not isinstance(mirror, list) or not all(a in ("long", "short") for a in mirror):
        raise ValueError(f"fit: mirror must be a list of the axes long, short, got {mirror!r}")
    return cfg


def offsets(cfg: dict[str, Any]) -> np.ndarray:
    """(n,) the aim offsets [deg] of the curves; a leave network has two outputs, the leave
    and the shot's own value, both of the strike as given (offset 0)."""
    if cfg["target"] == "leave":
        return np.zeros(2)
    deg = float(cfg["offsets"]["max_deg"])
    return np.linspace(-deg, deg, int(cfg["offsets"]["n"]))


def _reply(cfg: dict[str, Any]) -> tuple[int, int]:
    """The leave labels' reply search: (candidates, draws of each)."""
    return int(cfg["leave"]["reply_candidates"]), int(cfg["leave"]["reply_noise"])


def _strikes_per_position(cfg: dict[str, Any]) -> int:
    """The labelled strikes of a position: each entry under each draw, turned by each offset
    (aim), or followed by the reply search at each position it leaves (leave)."""
    strikes = int(cfg["entries"]) * int(cfg["draws"])
    if cfg["target"] == "leave":
        candidates, draws = _reply(cfg)
        return strikes * (1 + candidates * draws)
    return strikes * len(offsets(cfg))


def _eval(cfg: dict[str, Any], model: Path) -> dict[str, Any]:
    """The corrected agent and the base agent alone against ``eval``'s opponents, same seeds."""
    from cuegym.agents import make_agent
    from cuegym.agents.aim import AimCorrectedAgent
    from cuegym.agents.arena import make_arena

    arena = make_arena("keglebillard")
    base = make_agent(cfg["base"], "keglebillard", arena=arena)
    if cfg["target"] == "leave":  # with and without the leave, through the same correction
        from cuegym.agents import with_aim
        from cuegym.agents.leave import LeaveAwareAgent

        aim = cfg["leave"]["aim"]
        pair = (("leave", with_aim(LeaveAwareAgent(base, model, entries=int(cfg["entries"]),
                                                   weight=float(cfg["leave"]["weight"]),
                                                   own=float(cfg["leave"]["own"]),
                                                   arena=arena), aim, arena)),
                ("base", with_aim(base, aim, arena)))
    else:
        pair = (("corrected", AimCorrectedAgent(base, model, arena=arena)), ("base", base))
    return {who: _eval_games(arena, agent, cfg["eval"], int(cfg["eval"]["seed"]))
            for who, agent in pair}


def _label_args(cfg: dict[str, Any], share: int, k: int) -> tuple[Any, tuple]:
    """The labelling function of ``cfg["target"]`` and its arguments for worker ``k``."""
    from cuegym.agents.aim import label_games
    from cuegym.agents.leave import label_leave_games

    common = (cfg["base"], cfg["opponent"], share, (int(cfg["seed"]), k))
    if cfg["target"] == "leave":
        return label_leave_games, (*common, int(cfg["entries"]), int(cfg["draws"]), _reply(cfg),
                                   cfg["noise"], int(cfg["chunk"]), int(cfg["threads"]))
    return label_games, (*common, offsets(cfg), int(cfg["draws"]), cfg["noise"],
                         int(cfg["chunk"]), int(cfg["threads"]), int(cfg["entries"]))


def _targets(cfg: dict[str, Any], part: Any, path: Path) -> np.ndarray:
    """(n, outputs) what the network regresses in one labels file: the aim curves, or the
    leave and the shot's own value."""
    if cfg["target"] != "leave":
        return part["values"]
    if "own" not in part:
        raise ValueError(f"{path} has no own values (labelled before they were kept): label "
                         "again (--overwrite)")
    return np.concatenate([part["values"], part["own"][:, None]], 1)


def resume_refusal(cfg: dict[str, Any]) -> Callable[[dict[str, Any]], str | None]:
    """A resume reuses the labels: it may change the fit, the evaluation, the progress bar,
    the threads and the leave's play settings, nothing that labels."""
    keep = ("fit", "eval", "progress_bar", "threads", "name")  # name: a copied run's labels
    play = ("weight", "own", "aim")  # the leave's play settings: not in the labels

    def labelling(c: dict[str, Any]) -> dict[str, Any]:
        c = {k: v for k, v in c.items() if k not in keep}
        c["leave"] = {k: v for k, v in (c.get("leave") or {}).items() if k not in play}
        return c

    def refuse(saved: dict[str, Any]) -> str | None:
        diff = changed_keys(labelling({**DEFAULTS, **saved}), labelling(cfg))
        if not diff:
            return None
        return (f"labels differently from the config given: {', '.join(diff)} (only "
                f"{list(keep)} and leave {list(play)} may change)")
    return refuse


def train_aim(cfg: dict[str, Any], runs_dir: str | Path = "runs", resume: bool = False,
              overwrite: bool = False) -> Path:
    """Label, fit and evaluate one aim correction (module doc); returns the run directory."""
    import torch

    from cuegym.agents.aim import fit_aim, mirrored_labels, save_aim

    run = open_run(Path(runs_dir) / cfg["name"], cfg, resume, overwrite, resume_refusal(cfg))
    torch.set_num_threads(int(cfg["threads"]))
    workers, games = int(cfg["workers"]), int(cfg["games"])
    share = shares(games, workers)
    t0 = time.time()
    todo = [k for k in range(workers) if not (run / f"labels_{k}.npz").exists()]
    with label_pool(workers if len(todo) > 1 else 1) as pool:
        args = {k: _label_args(cfg, share[k], k) for k in todo}
        jobs = {k: pool.submit(args[k][0], *args[k][1]) for k in todo} if pool else {}
        if todo:  # the pieces report only when done: say what is under way
            _log({"labelling_games": [share[k] for k in todo], "workers": len(todo),
                  "target": cfg["target"], "entries": int(cfg["entries"]),
                  "strikes_per_position": _strikes_per_position(cfg)})
        for k in todo:
            part = jobs[k].result() if pool else args[k][0](*args[k][1])
            _atomic_npz(run / f"labels_{k}.npz", **part)
            _log({"labels": k, "curves": len(part["x"]), "t_s": round(time.time() - t0)})
    parts = [np.load(run / f"labels_{k}.npz") for k in range(workers)]
    x = np.concatenate([p["x"] for p in parts])
    values = np.concatenate([_targets(cfg, p, run / f"labels_{k}.npz")
                             for k, p in enumerate(parts)])
    t_label = time.time() - t0
    positions = len(x)  # labelled (the fit adds their mirror images with fit.mirror)
    _log({"positions": positions, "t_label_s": t_label})
    t0 = time.time()
    fit = cfg["fit"]
    # the fit runs alone (the workers are done), so it may take more threads than they did
    # (the shipped networks' weights came out the same with 1 and 2: docs/agents.md)
    torch.set_num_threads(int(fit["threads"] or cfg["threads"]))
    if fit["mirror"]:  # each label again for the position's mirror images (no simulation)
        from cuegym.agents.arena import make_arena

        x, values = mirrored_labels(make_arena("keglebillard"), x, values,
                                    curves=cfg["target"] != "leave", axes=fit["mirror"])
    net = fit_aim(x, values, offsets(cfg), hidden=fit["hidden"], epochs=int(fit["epochs"]),
                  batch=int(fit["batch"]), lr=float(fit["lr"]), seed=int(cfg["seed"]),
                  layout=fit["layout"], head=fit["head"],
                  log=(lambda e, loss: _log({"epoch": e, "loss": loss}))
                  if cfg["progress_bar"] else None)
    meta = {"game": "keglebillard", "config": cfg, "positions": positions,
            "command": "python experiments/train_aim.py " + " ".join(sys.argv[1:])}
    save_aim(net, run / "model.pt", meta)
    report = {"positions": positions, "t_label_s": t_label, "t_fit_s": time.time() - t0,
              **_eval(cfg, run / "model.pt")}
    write_atomic(run / "eval.json", json.dumps(report, indent=1))
    _log(report)
    return run


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="YAML config (configs/aim/keglebillard.yaml)")
    p.add_argument("--name", help="run name (directory under runs/)")
    args = parse_run_args(p, argv, "reuse the labels of runs/<name> (same labelling config)")
    run = train_aim(load_config(args.config, run_overrides(args)), runs_dir=args.runs_dir,
                    resume=args.resume, overwrite=args.overwrite)
    print(f"wrote {run}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
