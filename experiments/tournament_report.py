"""The tournament report of ``experiments/evaluate.py``: the plain-text table and the figure.

:func:`format_table` prints the results of a round robin (the dictionary of
:func:`~cuegym.experiments.evaluate.run_tournament`: each agent's per-shot rates, Bradley-Terry
rating and games, then the win-rate matrix with Wilson intervals); :func:`plot_results` draws
them as ``tournament.png``. :func:`setting_text` and :func:`rules_text` name the tournament's
setting (table and rule options) in their headings.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np


def rules_text(rules: Mapping[str, Any] | None) -> str:
    """``rules`` as ``--rules`` takes them (``duo=true match=best_of_3``; values but text as
    JSON)."""
    return " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}"
                    for k, v in (rules or {}).items()) or "(none)"


def setting_text(res: Mapping[str, Any]) -> str:
    """The tournament's setting for the table and figure headings: empty on the default one,
    else ``, table <name>`` and ``, rules <options>``."""
    table, rules = res.get("table"), res.get("rules") or {}
    out = f", table {table}" if table not in (None, "keglebillard", "golfbillard") else ""
    return out + (f", rules {rules_text(rules)}" if rules else "")


def per_pair(res: Mapping[str, Any]) -> str:
    """"N games per pair", or "N matches (best of 3) per pair" where golfbillard's rules play
    matches: then every count, rate and rating of the tournament is of whole matches."""
    n = res["games_per_pair"]
    if (res.get("rules") or {}).get("match") == "best_of_3":
        return f"{_plural(n, 'match')} (best of 3) per pair"
    return f"{_plural(n, 'game')} per pair"


def _cell(v: float | None) -> str:
    """A per-shot rate for the table: n/a for an agent that played no shot."""
    return "n/a" if v is None else f"{v:.3f}"


def _nan(v: float | None) -> float:
    return np.nan if v is None else v


def _plural(k: int, noun: str) -> str:
    return f"{k} {noun}{'' if k == 1 else 'es' if noun.endswith('ch') else 's'}"


def _fmt_rate(res: dict[str, Any], r: str, c: str) -> str:
    v = res["win_rate"][r][c]
    if v is None:
        return "n/a"
    lo, hi = res["win_rate_ci"][r][c]
    return f"{v:.2f} [{lo:.2f},{hi:.2f}]"


def by_rating(res: dict[str, Any]) -> list[str]:
    """The agents of ``res``, best rating first; those without a rating (no finished game)
    last. (A rating of exactly 0, the mean, is a rating: it was once sorted as missing.)"""
    def key(n: str) -> float:
        r = res["agents"][n]["rating"]
        return np.inf if r is None else -r

    return sorted(res["agents"], key=key)


def format_table(res: dict[str, Any]) -> str:
    """The results as a plain-text table (agents, then the win-rate matrix with intervals)."""
    names = list(res["agents"])
    unit = "points/shot" if res["game"] == "keglebillard" else "goals/stroke"
    w = max(12, *(len(n) for n in names)) + 2
    lines = [f"{res['game']}: {per_pair(res)}, "
             f"seed {res['seed']}, noise {res['noise']}{setting_text(res)}", ""]
    head = (f"{'agent':<{w}}{unit:>13}{'foul rate':>11}{'BT rating (Elo ± se)':>22}{'won':>6}"
            f"{'lost':>6}{'drawn':>7}{'unfin.':>8}")
    lines += [head, "-" * len(head)]
    order = by_rating(res)
    for n in order:
        a = res["agents"][n]
        rating = "n/a" if a["rating"] is None else f"{a['rating']:+.0f} ± {a['rating_se']:.0f}"
        lines.append(f"{n:<{w}}{_cell(a['points_per_shot']):>13}{_cell(a['foul_rate']):>11}"
                     f"{rating:>22}{a['wins']:>6}{a['losses']:>6}{a['draws']:>7}"
                     f"{a['unfinished']:>8}")
    cw = max(19, *(len(n) + 2 for n in order))
    lines += ["", "win rate of finished games (row beat column) [Wilson 95 % interval]"]
    lines.append(" " * w + "".join(f"{n:>{cw}}" for n in order))
    for r in order:
        cells = "".join(f"{'—' if r == c else _fmt_rate(res, r, c):>{cw}}" for c in order)
        lines.append(f"{r:<{w}}{cells}")
    for n in order:
        if res["agents"][n]["spec"] != n:
            lines.append(f"{n}: {res['agents'][n]['spec']}")
    for note in res["notes"]:
        lines.append(f"note: {note}")
    return "\n".join(lines)


#: Longest agent name on the figure's axes [characters]; a longer one is cut there (with "…")
#: and given whole in the caption, so the panels keep their room.
TICK_CHARS = 24


def plot_results(res: dict[str, Any], path: Path) -> Path:
    """tournament.png: win-rate matrix (Wilson 95 % intervals in the cells), Bradley-Terry
    ratings with 95 % intervals, points per shot, foul rate; short names on the axes, the
    full specs in the caption."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = by_rating(res)
    n = len(names)
    M = np.full((n, n), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if a != b and res["win_rate"][a][b] is not None:
                M[i, j] = res["win_rate"][a][b]
    fig, axs = plt.subplots(1, 4, figsize=(6.0 + 2.6 * 3 + 0.35 * n, 4.6),
                            gridspec_kw={"width_ratios": [1.5, 1, 1, 1]})
    ax = axs[0]
    im = ax.imshow(M, vmin=0, vmax=1, cmap="RdYlGn")
    ticks = [n if len(n) <= TICK_CHARS else n[:TICK_CHARS - 1] + "…" for n in names]
    ax.set_xticks(range(n), ticks, rotation=30, ha="right")
    ax.set_yticks(range(n), ticks)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j:
                txt = _fmt_rate(res, a, b).replace(" ", "\n")
                d = res["draw_rate"][a][b]
                if d:  # a drawn game is no win: without this two drawers look like losers
                    txt += f"\ndrawn {d:.2f}"
                dark = np.isfinite(M[i, j]) and not 0.2 < M[i, j] < 0.85
                ax.text(j, i, txt, ha="center", va="center", fontsize=7 if n > 4 else 8,
                        color="white" if dark else "black")
    ax.set_title("win rate, row beat column\n[95 % interval]", fontsize=10)
    fig.colorbar(im, ax=ax, fraction=0.046)
    unit = "points / shot" if res["game"] == "keglebillard" else "own goals / stroke"
    ag = res["agents"]
    x = np.arange(n)
    rating = [ag[a]["rating"] if ag[a]["rating"] is not None else np.nan for a in names]
    err = [1.96 * ag[a]["rating_se"] if ag[a]["rating_se"] is not None else 0.0 for a in names]
    for ax, vals, label, colour, yerr in (
            (axs[1], rating, "Bradley-Terry rating (Elo)\n± 95 % interval", "#27ae60", err),
            (axs[2], [_nan(ag[a]["points_per_shot"]) for a in names], unit, "#2a7ab0", None),
            (axs[3], [_nan(ag[a]["foul_rate"]) for a in names], "foul rate", "#c0392b", None)):
        ax.bar(x, vals, color=colour, yerr=yerr, capsize=4)
        ax.set_xticks(x, ticks, rotation=30, ha="right")
        ax.set_title(label, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"{res['game']} tournament: {per_pair(res)}, seed {res['seed']}, noise "
                 f"{res['noise']}{setting_text(res)}")
    caption = [a if ag[a]["spec"] == a else f"{a} = {ag[a]['spec']}" for a in names
               if ag[a]["spec"] != a or len(a) > TICK_CHARS]  # a cut name whole
    unfinished = sum(ag[a]["unfinished"] for a in names) // 2
    if unfinished:
        caption.append(f"{_plural(unfinished, 'unfinished game')} (cut off at "
                       f"{_plural(res['max_shots'], 'shot')}) left out of the win rates and "
                       "ratings")
    caption += [note for note in res["notes"] if note.startswith("no finished game joins")]
    if caption:
        fig.text(0.01, 0.005, "\n".join(caption), fontsize=8, va="bottom", ha="left")
    fig.tight_layout(rect=(0, 0.035 * len(caption), 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return path
