"""Tournament between agents: points per shot, foul rate, win-rate matrix, openskill ratings.

Every pair of agents plays ``--games`` games (seats alternate: each agent breaks / plays side 0
in half of them) through the rules' game flow (``cuegym.agents.arena``), with tournament shot
noise on every strike. Agents are names (``random``, ``geometric``, ``planner``, ``pretrained``)
with optional settings after a colon (``planner:n_candidates=32,n_noise=2``), or saved SB3
models (``runs/<name>/best_model.zip``).

    python experiments/evaluate.py --game keglebillard --agents pretrained,geometric,random \\
        --games 100 --seed 0 --json

``--json`` prints one object: ``{"agents": {"<name>": {"points_per_shot", "foul_rate",
"rating", ...}}, "win_rate": {"<a>": {"<b>": <share of a's games against b that a won>}},
"notes": [...]}``. Otherwise a table is printed. Both write ``<out>/results.json`` and
``<out>/tournament.png`` (default ``runs/eval/<game>/``).

Golfbillard: ``points_per_shot`` counts the shooter's own balls scored per stroke. A drawn game
(G-5 no progress, or a game cut off by ``--max-shots``) is won by nobody; keglebillard games
cut off are decided by the score. ``rating`` is the openskill (Plackett-Luce) mu after all
games, in game order; ``rating_sigma`` its uncertainty.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.cli_errors import cli_main

ROOT = Path(__file__).resolve().parents[1]


def parse_agents(text: str) -> list[str]:
    """Split ``a,b:k=v,k2=v2,c`` into agent specs (a token with ``=`` but no ``:`` continues the
    options of the spec before it)."""
    out: list[str] = []
    for tok in filter(None, (t.strip() for t in text.split(","))):
        if "=" in tok and ":" not in tok and out and ":" in out[-1]:
            out[-1] += "," + tok
        else:
            out.append(tok)
    if len(out) < 2:
        raise ValueError(f"need at least two agents, got {out}")
    return out


def display_names(specs: list[str]) -> list[str]:
    """Names for tables and JSON: the spec itself (a model path as given), made unique."""
    names, seen = [], {}
    for s in specs:
        n = s
        if n in seen:
            seen[n] += 1
            n = f"{n}#{seen[n]}"
        else:
            seen[n] = 1
        names.append(n)
    return names


def run_tournament(game: str, specs: list[str], games: int, seed: int, *,
                   noise: Any = "tournament", max_shots: int | None = None,
                   quiet: bool = False, save_games: int = 0,
                   save_dir: Path | None = None) -> dict[str, Any]:
    """Round robin: every pair plays ``games`` games. Returns the results dictionary.
    ``save_games``: write the first that many games of each pair as game records (replayable
    in ``python -m cuegym.play``) to ``save_dir``."""
    from openskill.models import PlackettLuce

    from cuegym.agents import make_agent, make_arena

    arena = make_arena(game)
    names = display_names(specs)
    notes: list[str] = []
    agents = []
    for spec, name in zip(specs, names, strict=True):
        ag = make_agent(spec, game, arena=arena)
        if ag.name.startswith("pretrained="):
            notes.append(f"'{name}': no trained {game} agent is shipped; it resolves to the "
                         f"best available agent ({ag.name.split('=', 1)[1]})")
        agents.append(ag)
    if max_shots is None:
        max_shots = 400 if game == "keglebillard" else 300
    n = len(agents)
    shots: dict[int, list] = {i: [] for i in range(n)}
    won = np.zeros((n, n))
    played = np.zeros((n, n))
    draws = np.zeros((n, n))
    model = PlackettLuce()
    ratings = [model.rating(name=nm) for nm in names]
    t0 = time.time()
    pairs = list(itertools.combinations(range(n), 2))
    for k, (i, j) in enumerate(pairs):
        t1 = time.time()
        on = arena
        if save_games:
            from cuegym.play.record import RecordingArena, save_tournament_games

            on = RecordingArena(arena, save_games)
        res = _play_pair(on, agents[i], agents[j], games, seed + 1000 * k, noise, max_shots)
        if save_games:
            save_tournament_games(on, res, (names[i], names[j]), (specs[i], specs[j]), noise,
                                  save_dir, f"{names[i]}_vs_{names[j]}")
        for rec, ag in zip(res.shots, res.agent, strict=True):
            shots[(i, j)[ag]].append(rec)
        for g in range(games):
            w = int(res.winner[g])
            played[i, j] += 1
            played[j, i] += 1
            if w == 0:
                won[i, j] += 1
                ranks = [1, 2]
            elif w == 1:
                won[j, i] += 1
                ranks = [2, 1]
            else:
                draws[i, j] += 1
                draws[j, i] += 1
                ranks = [1, 1]
            (ri,), (rj,) = model.rate([[ratings[i]], [ratings[j]]], ranks=ranks)
            ratings[i], ratings[j] = ri, rj
        if not quiet:
            print(f"  {names[i]} vs {names[j]}: {int(won[i, j])}-{int(won[j, i])}"
                  f" ({int(draws[i, j])} drawn) in {time.time() - t1:.0f} s", file=sys.stderr)
    out_agents = {}
    for i, nm in enumerate(names):
        recs = shots[i]
        out_agents[nm] = {
            "points_per_shot": round(float(np.mean([r.points for r in recs])) if recs else 0.0,
                                     4),
            "foul_rate": round(float(np.mean([r.foul for r in recs])) if recs else 0.0, 4),
            "rating": round(float(ratings[i].mu), 3),
            "rating_sigma": round(float(ratings[i].sigma), 3),
            "given_per_shot": round(float(np.mean([r.given for r in recs])) if recs else 0.0,
                                    4),
            "shots": len(recs),
            "games": int(played[i].sum()),
            "wins": int(won[i].sum()),
            "agent": agents[i].name,
        }
    win_rate = {names[i]: {names[j]: round(float(won[i, j] / played[i, j]), 4)
                           for j in range(n) if j != i} for i in range(n)}
    return {"game": game, "games_per_pair": games, "seed": seed, "noise": str(noise),
            "agents": out_agents, "win_rate": win_rate,
            "draw_rate": {names[i]: {names[j]: round(float(draws[i, j] / played[i, j]), 4)
                                     for j in range(n) if j != i} for i in range(n)},
            "notes": notes, "seconds": round(time.time() - t0, 1)}


def _play_pair(arena, a, b, games, seed, noise, max_shots):
    from cuegym.agents import play_games

    return play_games(arena, [a, b], games, seed=seed, noise=noise, max_shots=max_shots)


def format_table(res: dict[str, Any]) -> str:
    """The results as a plain-text table (agents, then the win-rate matrix)."""
    names = list(res["agents"])
    unit = "points/shot" if res["game"] == "keglebillard" else "goals/stroke"
    w = max(12, *(len(n) for n in names)) + 2
    lines = [f"{res['game']}: {res['games_per_pair']} games per pair, seed {res['seed']}, "
             f"noise {res['noise']}", ""]
    head = f"{'agent':<{w}}{unit:>13}{'foul rate':>11}{'rating':>16}{'games':>7}{'wins':>6}"
    lines += [head, "-" * len(head)]
    order = sorted(names, key=lambda n: -res["agents"][n]["rating"])
    for n in order:
        a = res["agents"][n]
        lines.append(f"{n:<{w}}{a['points_per_shot']:>13.3f}{a['foul_rate']:>11.3f}"
                     f"{a['rating']:>9.2f} ± {a['rating_sigma']:<4.2f}{a['games']:>7}"
                     f"{a['wins']:>6}")
    lines += ["", "win rate (row beat column)"]
    lines.append(" " * w + "".join(f"{n[:12]:>14}" for n in order))
    for r in order:
        cells = "".join(f"{'—' if r == c else format(res['win_rate'][r][c], '.2f'):>14}"
                        for c in order)
        lines.append(f"{r:<{w}}{cells}")
    for note in res["notes"]:
        lines.append(f"note: {note}")
    return "\n".join(lines)


def plot_results(res: dict[str, Any], path: Path) -> Path:
    """tournament.png: win-rate matrix, points per shot, foul rate, ratings."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted(res["agents"], key=lambda n: -res["agents"][n]["rating"])
    n = len(names)
    labels = [a if res["agents"][a]["agent"] in (a, a.split(":")[0]) else
              f"{a}\n({res['agents'][a]['agent']})" for a in names]
    M = np.full((n, n), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if a != b:
                M[i, j] = res["win_rate"][a][b]
    fig, axs = plt.subplots(1, 4, figsize=(17, 4.2),
                            gridspec_kw={"width_ratios": [1.3, 1, 1, 1]})
    ax = axs[0]
    im = ax.imshow(M, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(n), labels, rotation=30, ha="right")
    ax.set_yticks(range(n), labels)
    for i in range(n):
        for j in range(n):
            if i != j:
                ax.text(j, i, f"{M[i, j]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_title("win rate (row beat column)")
    fig.colorbar(im, ax=ax, fraction=0.046)
    unit = "points / shot" if res["game"] == "keglebillard" else "own goals / stroke"
    for ax, key, label, colour in ((axs[1], "points_per_shot", unit, "#2a7ab0"),
                                   (axs[2], "foul_rate", "foul rate", "#c0392b"),
                                   (axs[3], "rating", "openskill rating (mu ± sigma)",
                                    "#27ae60")):
        vals = [res["agents"][a][key] for a in names]
        err = [res["agents"][a]["rating_sigma"] for a in names] if key == "rating" else None
        ax.bar(range(n), vals, color=colour, yerr=err, capsize=4)
        ax.set_xticks(range(n), labels, rotation=30, ha="right")
        ax.set_title(label)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"{res['game']} tournament: {res['games_per_pair']} games per pair, "
                 f"seed {res['seed']}")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=("keglebillard", "golfbillard"), default="keglebillard")
    p.add_argument("--agents", default="pretrained,geometric,random",
                   help="comma-separated agents: names (options after ':') or model .zip paths")
    p.add_argument("--games", type=int, default=100, help="games per pair of agents")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--noise", default="tournament",
                   help="shot noise: tournament, none, or a scale factor of the tournament noise")
    p.add_argument("--max-shots", type=int, help="shots after which a game is cut off")
    p.add_argument("--out", help="output directory (default runs/eval/<game>)")
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--save-games", type=int, default=0, metavar="N",
                   help="save the first N games of each pair as game records in <out>/games/ "
                        "(open them in python -m cuegym.play)")
    args = p.parse_args(argv)
    try:
        specs = parse_agents(args.agents)
    except ValueError as e:
        p.error(str(e))
    if args.games < 1:
        p.error("--games must be >= 1")
    if args.save_games < 0:
        p.error("--save-games must be >= 0")
    out = Path(args.out) if args.out else Path("runs") / "eval" / args.game
    res = run_tournament(args.game, specs, args.games, args.seed, noise=args.noise,
                         max_shots=args.max_shots, quiet=args.quiet,
                         save_games=args.save_games, save_dir=out / "games")
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(res, indent=1))
    png = plot_results(res, out / "tournament.png")
    if args.json:
        print(json.dumps(res))
    else:
        print(format_table(res))
        print(f"\nwrote {out / 'results.json'} and {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
