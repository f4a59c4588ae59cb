"""Keglebillard rules walk-through: three illustrated shots and how the referee scores them.

    python experiments/rules_walkthrough.py [--out docs/img]

Writes walkthrough_<n>.png (trajectories, toppled pins, the outcome in the title) and prints
each outcome as JSON. The pictures and the scoring are in docs/rules_keglebillard.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

from cuegym.cli_errors import check_writable_dir, checkout_path, cli_main, script_prog
from cuegym.configs import load_params, load_table
from cuegym.games.kegle import Kegle as KeglebillardGame
from cuegym.physics import GAME_MODELS, simulate
from cuegym.physics.plot import plot_shot
from cuegym.rules.keglebillard_game import GameState

SHOTS = [
    # (title, red/white/spotted positions, strike V0, phi, theta, a, b)
    ("1. red - white - king alone", [[-0.35, -0.35], [-0.2, -0.2], [0.525, 0.3]],
     [1.5, 45.0, 0.0, 0.0, 0.0]),
    ("2. blegt: red - white - spotted", [[-0.6, 0.3], [-0.3, 0.3], [0.0, 0.3]],
     [1.5, 0.0, 0.0, 0.0, -0.5]),
    ("3. foul: red into the pins first", [[-0.4, -0.4], [-0.525, 0.2], [0.525, 0.0]],
     [2.0, 45.0, 0.0, 0.0, 0.0]),
]


def describe(out) -> str:
    d = out.to_dict()
    parts = [f"points {d['points']}"]
    if d["foul"]:
        parts.append(f"foul {', '.join(d['fouls'])}, penalty {d['penalty']}")
        parts.append(f"skæve {d['skaeve']} to the opponent")
    else:
        parts.append(f"shooter +{d['shooter_points']}")
    for key, name in (("rodt", "rødt"), ("blegt", "blegt"), ("king_alone", "king alone"),
                      ("clean16", "clean 16")):
        if d.get(key):
            parts.append(name)
    return "; ".join(parts)


def save_png(fig, path: Path, dpi: int = 100) -> None:
    """``fig`` as a PNG at ``path``, written under a temporary name and renamed (an interrupted
    run leaves the docs' picture whole), then closed."""
    import matplotlib.pyplot as plt

    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.png")
    try:
        fig.savefig(tmp, dpi=dpi, format="png")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
        plt.close(fig)


@cli_main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(checkout_path("docs", "img")),
                    help="folder for walkthrough_<n>.png (default: docs/img of the checkout "
                         "cuegym runs from, else under the working directory)")
    args = ap.parse_args(argv)
    from cuegym.experiments.train_config import refuse_empty

    refuse_empty(ap, ("--out", args.out), folders=("--out",))  # '' is the working directory
    out_dir = Path(args.out)
    check_writable_dir(out_dir, "--out")  # a file in the way: one line, before the shots
    out_dir.mkdir(parents=True, exist_ok=True)
    table, params = load_table("keglebillard"), load_params("keglebillard")
    game = KeglebillardGame()
    for n, (title, xy, cue) in enumerate(SHOTS, start=1):
        res = simulate(table, params, np.array([xy], float), cue_ball=[0], cue=[cue],
                       models=GAME_MODELS)  # as the game plays them
        state = GameState(order=(0, 1), scores=(0, 0), to_play=0,
                          balls=tuple(tuple(map(float, p)) for p in xy), ball_in_hand=None)
        outcome, _ = game.apply(state, res)
        text = describe(outcome)
        fig = plot_shot(res, 0, title=f"{title}\n{text}")
        path = out_dir / f"walkthrough_{n}.png"
        save_png(fig, path)
        print(json.dumps({"shot": title, "outcome": outcome.to_dict(), "plot": str(path)},
                         default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
