"""Top-view trajectory plots of simulated shots (matplotlib, imported lazily).

Example:
    >>> from cuegym.physics.plot import plot_shot            # doctest: +SKIP
    >>> fig = plot_shot(res, table_index=0, title="break")    # doctest: +SKIP
    >>> fig.savefig("shot.png", dpi=120)                      # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np

from ..configs import TableSpec
from .constants import EV_BALL_POCKET
from .path import positions_at

CLOTH = "#1f6f3f"
RAIL = "#5a3a1e"
CUSHION = "#2f8f55"

_BALL_COLOURS = {"red": "#d62728", "white": "#f4f4f4", "spotted": "#f4f1c9"}


def ball_colour(ball_id: str) -> str:
    """Face colour of a ball by its id (keglebillard red/white/spotted; golfbillard w*/r*)."""
    if ball_id in _BALL_COLOURS:
        return _BALL_COLOURS[ball_id]
    if ball_id.startswith("r"):
        return "#d62728"
    if ball_id.startswith("w"):
        return "#f4f4f4"
    return "#f0c020"


def draw_table(ax, table: TableSpec, R: float, pins_up=None) -> None:
    """Cloth, rails, cushion noses, pockets/goals, jaws, caps and pins (standing or fallen)."""
    import matplotlib.patches as mp

    L, W = table.length, table.width
    rail = 0.06
    ax.add_patch(mp.Rectangle((-L / 2 - rail, -W / 2 - rail), L + 2 * rail, W + 2 * rail,
                              color=RAIL, zorder=0))
    cloth = mp.Rectangle((-L / 2, -W / 2), L, W, color=CLOTH, zorder=1)
    ax.add_patch(cloth)
    for c in table.cushions:
        ax.plot([c.x1, c.x2], [c.y1, c.y2], color=CUSHION, lw=3, zorder=2,
                solid_capstyle="butt")
    for p in table.pockets:
        # a pocket cuts the cushion (its centre lies on or past the nose line); a goal inside
        # the cloth (golfbillard) does not: its hole ends at the unbroken cushion, under it,
        # as in envs/render.py
        inside = abs(p.x) < L / 2 - 1e-9 and abs(p.y) < W / 2 - 1e-9
        hole = ax.add_patch(mp.Circle((p.x, p.y), p.radius, color="black",
                                      zorder=1.5 if inside else 2))
        if inside:
            hole.set_clip_path(cloth)
    for c in table.circles:
        if c.kind == 0:
            ax.add_patch(mp.Circle((c.x, c.y), max(c.radius, 0.002), color=CUSHION, zorder=3))
        else:
            ax.add_patch(mp.Circle((c.x, c.y), c.radius, facecolor="#222222",
                                   edgecolor="#bbbbbb", lw=1.0, zorder=3))
    for k, (px, py) in enumerate(table.pin_spots):
        up = True if pins_up is None else bool(pins_up[k])
        if up:
            ax.add_patch(mp.Circle((px, py), table.pin_radius, facecolor="#f5deb3",
                                   edgecolor="#8b5a2b", lw=1.2, zorder=4))
        else:
            ax.plot([px], [py], marker="x", color="#f5deb3", ms=6, mew=1.5, zorder=4)
    ax.set_xlim(-L / 2 - rail, L / 2 + rail)
    ax.set_ylim(-W / 2 - rail, W / 2 + rail)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])


def plot_shot(res, table_index: int = 0, ball_ids=None, title: str | None = None, ax=None,
              dt: float = 0.005):
    """Draw one table of a :class:`~cuegym.physics.SimResult`: start positions (hollow), paths,
    final positions (filled), pins at the end (fallen pins as crosses with their fall line).

    Returns:
        The matplotlib Figure: a new one (not registered with pyplot, so the caller's backend
        and open figures are left alone; ``fig.savefig`` writes it) unless ``ax`` is given.
    """
    import matplotlib.patches as mp
    from matplotlib.figure import Figure

    table = res.table
    R = res.params.R
    t = table_index
    B = res.motion.shape[1]
    ids = list(ball_ids or table.ball_ids or [f"b{i}" for i in range(B)])
    if ax is None:
        # no pyplot: selecting a backend here switched a caller's (inline, Qt, ...) to Agg
        fig = Figure(figsize=(10, 10 * (table.width + 0.12) / (table.length + 0.12)))
        ax = fig.subplots()
    else:
        fig = ax.figure
    draw_table(ax, table, R, res.pins_up[t])
    for k, (px, py) in enumerate(table.pin_spots):
        if not res.pins_up[t, k] and res.pins_up0[t, k]:
            d = res.pin_fall_dir[t, k]
            ax.plot([px, px + d[0] * table.pin_height], [py, py + d[1] * table.pin_height],
                    color="#f5deb3", lw=2, alpha=0.7, zorder=4)
    t_end = float(res.t_end[t])
    times = np.append(np.arange(0.0, t_end, dt), t_end)
    pos = positions_at(res, times)[t]  # (N, B, 2)
    pocket_time = np.full(B, np.inf)
    for k in range(int(res.n_events[t])):
        if res.ev_type[t, k] == EV_BALL_POCKET:
            pocket_time[res.ev_i[t, k]] = res.ev_time[t, k]
    present = res.motion0[t] != 4
    for b in range(B):
        if not present[b]:
            continue
        colour = ball_colour(ids[b])
        path = pos[times <= pocket_time[b] + 1e-12, b]
        moved = np.ptp(path, axis=0).max() > 1e-6 if len(path) else False
        if moved:
            ax.plot(path[:, 0], path[:, 1], color=colour, lw=1.4, alpha=0.9, zorder=5)
        x0, y0 = res.rvw0[t, b, 0, :2]
        ax.add_patch(mp.Circle((x0, y0), R, facecolor="none", edgecolor=colour, lw=1.2,
                               ls="--", zorder=6))
        if res.motion[t, b] != 4:
            x1, y1 = res.rvw[t, b, 0, :2]
            ax.add_patch(mp.Circle((x1, y1), R, facecolor=colour, edgecolor="black", lw=0.8,
                                   zorder=7))
            ax.text(x1, y1, ids[b], ha="center", va="center", fontsize=7, zorder=8,
                    color="black" if colour != "#d62728" else "white")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig
