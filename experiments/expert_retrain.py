"""Train a fresh expert network on the stored teacher labels of finished expert-iteration runs.

Expert iteration (``experiments/expert_iteration.py``) keeps every generation's labels in
``runs/<name>/labels_gen<k>.npz``. This script pools the labels of one or more such runs and fits
a new :class:`~cuegym.agents.expert.ExpertNet` on all of them at once (distillation of the
runs' teachers into one network), optionally with another hidden layout and with the golfbillard
kader-duel positions (kader play, one ball left on each side) repeated, since they are few
(about 4 % of the labels) and decide most lost games (docs/agents.md).

    python experiments/expert_retrain.py --runs runs/golf_a runs/golf_b --out runs/golf_ab.pt \\
        --steps 8000 --batch 512 --duel-repeat 5

The network keeps the menu and observation of the first run's ``model.pt`` and its play
settings (``select``, ``res_gain``); the runs must share the game, the menu and the residual
scale their labels are in terms of (others are refused, naming the field). The output is a
``.pt`` that ``make_agent`` and ``evaluate.py --agents <path>.pt`` load. One torch thread by
default (the machine is shared).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.cli_errors import check_counts, cli_main, script_prog, seed_arg
from cuegym.experiments.expert_iteration import load_labels, pool_labels


def kader_duel(obs: np.ndarray) -> np.ndarray:
    """(n,) bool: golfbillard observations (n, OBS_DIM) in kader play with one ball left on
    each side."""
    from cuegym.games.golf_obs import OBS_INDEX
    from cuegym.rules.golf_arrays import BALLS_PER_SIDE

    one = 1.0 / BALLS_PER_SIDE + 1e-6
    return ((obs[:, OBS_INDEX["kader"]] > 0.5) & (obs[:, OBS_INDEX["own_balls_left"]] < one)
            & (obs[:, OBS_INDEX["opp_balls_left"]] < one))


#: the ExpertSpec fields the stored labels are in terms of (the menu the entries index, the
#: residual units): runs whose labels are pooled must agree on them
LABEL_FIELDS = ("game", "n_cand", "spins", "speeds", "spin0", "res_scale")


def run_spec(run: Path) -> Any:
    """The :class:`~cuegym.agents.expert.ExpertSpec` of an expert-iteration run: its
    ``model.pt``'s, or where there is none yet (a run stopped in its first generation) the one
    its ``config.yaml`` describes."""
    from cuegym.agents.expert import ExpertSpec, load_net
    from cuegym.configs import load_yaml

    if (run / "model.pt").is_file():
        return load_net(run / "model.pt")[0].spec
    if not (run / "config.yaml").is_file():
        raise ValueError(f"{run} has no model.pt or config.yaml (not an expert-iteration run?)")
    cfg = load_yaml((run / "config.yaml").read_text()) or {}
    return ExpertSpec(**{**(cfg.get("spec") or {}), "game": cfg.get("game", "keglebillard")})


def check_same_menu(runs: list[Path]) -> None:
    """Refuse runs whose labels index different menus or residual units (a ValueError naming
    the run and the field): pooled, an entry or a residual of one would be read as another's
    (silently where the sizes happen to agree)."""
    if len(runs) < 2:
        return
    first = run_spec(runs[0]).as_dict()
    for run in runs[1:]:
        other = run_spec(run).as_dict()
        diff = [f"{k}: {first[k]!r} in {runs[0]}, {other[k]!r} here" for k in LABEL_FIELDS
                if first[k] != other[k]]
        if diff:
            raise ValueError(f"{run} labels another menu than {runs[0]} ({'; '.join(diff)}): "
                             "only runs of one game, menu and residual scale pool")


def pooled_labels(runs: list[Path]) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """The teacher labels and game-result pairs of every generation of ``runs``, concatenated."""
    data = []
    for run in runs:
        files = sorted(run.glob("labels_gen*.npz"))
        if not files:
            raise ValueError(f"{run} has no labels_gen*.npz (not an expert-iteration run?)")
        data += [load_labels(f) for f in files]
    return pool_labels(data)


def retrain(runs: list[Path], out: Path, hidden: list[int] | None, steps: int, batch: int,
            lr: float, duel_repeat: int = 1, seed: int = 0, threads: int = 1,
            command: str = "") -> dict[str, float]:
    """Fit a fresh network on the pooled labels of ``runs`` and save it to ``out``; returns the
    training losses (:func:`cuegym.agents.expert.train_net`) and the label counts."""
    import torch

    from cuegym.agents.expert import TrainSpec, fit_fresh, load_net, save_net

    if duel_repeat < 1:
        raise ValueError(f"duel_repeat must be >= 1, got {duel_repeat}")
    check_same_menu(runs)
    labels, vobs, vz = pooled_labels(runs)
    base, meta = load_net(runs[0] / "model.pt")
    if duel_repeat > 1 and base.spec.game != "golfbillard":
        raise ValueError(f"duel_repeat is for golfbillard runs, {runs[0]} is {base.spec.game}")
    spec = dataclasses.replace(base.spec, hidden=list(hidden or base.spec.hidden))
    if labels["obs"].shape[1] != spec.obs_dim:
        raise ValueError(f"the labels have observations of {labels['obs'].shape[1]} values, "
                         f"the network reads {spec.obs_dim}")
    n = len(labels["entry"])
    duel = kader_duel(labels["obs"]) if spec.game == "golfbillard" else np.zeros(n, bool)
    rows = np.concatenate([np.arange(n)] + [np.flatnonzero(duel)] * (duel_repeat - 1))
    torch.set_num_threads(int(threads))
    t0 = time.time()
    net, losses = fit_fresh(spec, {k: v[rows] for k, v in labels.items()}, vobs, vz,
                            TrainSpec(steps=steps, batch=batch, lr=lr), seed=seed)
    save_net(net, out, {**meta, "command": command, "retrained_from": [str(r) for r in runs],
                        "labels": n, "duel_labels": int(duel.sum()), "duel_repeat": duel_repeat,
                        "train_s": round(time.time() - t0, 1)})
    return {**losses, "labels": n, "duel_labels": int(duel.sum())}


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", nargs="+", action="extend", required=True, type=Path,
                   help="expert-iteration run directories (runs/<name>) whose labels to pool")
    p.add_argument("--out", required=True, type=Path, help="the .pt file to write")
    p.add_argument("--hidden", type=int, nargs="+", help="hidden layer widths (default: the "
                   "first run's)")
    p.add_argument("--steps", type=int, default=8000, help="gradient steps (default 8000)")
    p.add_argument("--batch", type=int, default=512, help="positions per step (default 512)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 1e-3)")
    p.add_argument("--duel-repeat", type=int, default=1, help="golfbillard: how many times each "
                   "kader-duel label is used per pass (default 1: as collected)")
    p.add_argument("--seed", type=seed_arg, default=0,
                   help="seed of the network's initialisation and batches (default 0)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    a = p.parse_args(argv)
    check_counts(p, a, "steps", "batch", "threads")
    if not (a.lr > 0 and a.lr != float("inf")):
        p.error(f"--lr must be a finite number > 0, got {a.lr}")
    if a.hidden is not None and min(a.hidden) < 1:
        p.error(f"--hidden widths must be >= 1, got {a.hidden}")
    if a.duel_repeat < 1:
        p.error(f"--duel-repeat must be >= 1, got {a.duel_repeat}")
    if a.out.is_dir():  # (found otherwise only when the fit is done, naming a temporary file)
        p.error(f"--out {a.out} is a directory: give the .pt file to write")
    info = retrain(a.runs, a.out, a.hidden, a.steps, a.batch, a.lr, a.duel_repeat, a.seed,
                   a.threads, command="python experiments/expert_retrain.py "
                   + " ".join(sys.argv[1:] if argv is None else argv))
    print({k: round(v, 4) if isinstance(v, float) else v for k, v in info.items()})
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
