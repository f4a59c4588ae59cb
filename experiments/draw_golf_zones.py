"""Draw the golfbillard table with every zone, spot and cap labelled, for the docs.

Everything comes from configs (configs/tables/golfbillard.yaml, configs/zones/golfbillard.yaml),
so the picture is what the referee uses. Top panel: triangles, stroke lines, the regions below
them, the long-cushion strips, the bos, penalty spots, caps, goals and start spots. Bottom
panel: the 15 kaders (G-24) and the G-23 merged kaders.

    python experiments/draw_golf_zones.py [--out docs/img/golfbillard_zones.png]   (the default)
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.patches as mp  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from cuegym.cli_errors import (  # noqa: E402
    UsageError,
    check_writable_dir,
    checkout_path,
    script_prog,
)
from cuegym.configs import load_params, load_table  # noqa: E402
from cuegym.configs.zones import load_zones  # noqa: E402


@dataclass
class Settings:
    """Drawing settings (one line each)."""

    out: str = "docs/img/golfbillard_zones.png"  # output PNG
    dpi: int = 110  # resolution
    max_dpi: int = 600  # the most --dpi: 9,000 x 9,720 pixels, a 350 MB image in memory
    width: float = 15.0  # figure width [inch]


CLOTH = "#2f7d4a"
RAIL = "#6b4226"
SIDE_COLOURS = ("#f4f4f4", "#ff5050")  # side 0 white, side 1 red


def draw_table(ax, table, title: str) -> None:
    hx, hy = table.length / 2, table.width / 2
    ax.add_patch(mp.Rectangle((-hx - 0.05, -hy - 0.05), 2 * hx + 0.1, 2 * hy + 0.1, color=RAIL,
                              zorder=0))
    ax.add_patch(mp.Rectangle((-hx, -hy), 2 * hx, 2 * hy, color=CLOTH, zorder=0.5))
    ax.set_xlim(-hx - 0.06, hx + 0.06)
    ax.set_ylim(-hy - 0.07, hy + 0.06)
    ax.set_aspect("equal")
    ax.set_title(title, fontsize=14, loc="left")
    ax.set_xticks(np.arange(-0.9, 0.91, 0.15))
    ax.set_yticks(np.arange(-0.45, 0.451, 0.15))
    ax.tick_params(labelsize=9)
    ax.set_xlabel("x [m]   (side 0 = white attacks goal 0 at +x;  side 1 = red attacks goal 1 "
                  "at -x)", fontsize=10)


def draw_hardware(ax, table, R: float, numbers: bool = True) -> None:
    for k, c in enumerate(table.circles):
        ax.add_patch(mp.Circle((c.x, c.y), c.radius, color="#222222", zorder=6))
        if numbers:
            ax.text(c.x, c.y, str(k), color="white", fontsize=7, ha="center", va="center",
                    zorder=7, fontweight="bold")
    for g, p in enumerate(table.pockets):
        ax.add_patch(mp.Circle((p.x, p.y), p.radius, color="black", zorder=5))
        sx = 1 if p.x > 0 else -1
        ax.text(sx * (table.length / 2 + 0.027), p.y, f"goal {g}", fontsize=10, ha="center",
                va="center", color="white", zorder=8, fontweight="bold", rotation=90)


def label(ax, x, y, text, fc="white", fs=9, **kw) -> None:
    ax.text(x, y, text, fontsize=fs, ha="center", va="center", zorder=9,
            bbox=dict(boxstyle="round,pad=0.2", fc=fc, ec="0.3", alpha=0.9), **kw)


def zones_panel(ax, table, zs, R: float) -> None:
    draw_table(ax, table, "Zones, penalty spots, caps (numbers: index in table.circles)")
    z = zs.zones
    for name in ("strip_top", "strip_bottom"):
        for poly in z[name].polygons:
            ax.add_patch(mp.Polygon(poly, closed=True, fc="#6fa8dc", ec="none", alpha=0.45,
                                    zorder=1))
    for seg in z["vlieglijn"].segments:
        ax.plot(*seg.T, color="#1f4e79", lw=1.5, zorder=2)
    for g in (0, 1):
        for poly in z[f"below_stroke_line_{g}"].polygons:
            ax.add_patch(mp.Polygon(poly, closed=True, fc="none", ec="#c0392b", hatch="///",
                                    lw=0, alpha=0.55, zorder=1.5))
        for poly in z[f"great_triangle_{g}"].polygons:
            ax.add_patch(mp.Polygon(poly, closed=True, fc="#f1c40f", ec="#b7950b", lw=2,
                                    alpha=0.35, zorder=2))
        for poly in z[f"small_triangle_{g}"].polygons:
            ax.add_patch(mp.Polygon(poly, closed=True, fc="#e67e22", ec="#a04000", lw=1.5,
                                    alpha=0.8, zorder=3))
        for seg in z[f"stroke_line_{g}"].segments:
            ax.plot(*seg.T, color="#c0392b", lw=2.2, ls="--", zorder=3)
    for poly in z["bos"].polygons:
        ax.add_patch(mp.Polygon(poly, closed=True, fc="#8e44ad", ec="#5b2c6f", alpha=0.5,
                                zorder=2))
    # labels
    for g, sx in ((0, 1.0), (1, -1.0)):
        label(ax, sx * 0.58, 0.0, f"great\ntriangle {g}", fc="#fcf3cf")
        label(ax, sx * 0.745, -0.14, f"small\ntriangle {g}", fc="#f5cba7", fs=8)
        label(ax, sx * 0.66, 0.27, f"below the\nstroke line {g}", fc="#fadbd8", fs=8)
        label(ax, sx * 0.22, -0.23, f"stroke line {g}", fc="#fadbd8", fs=8,
              rotation=-sx * 32)
    label(ax, -0.45, 0.404, "strip (y > 0): vliegeren onto cushion 2 is G-11", fc="#d6eaf8")
    label(ax, 0.45, -0.404, "strip (y < 0): cushion 0", fc="#d6eaf8")
    label(ax, 0.0, 0.3577 - 0.03, "vlieglijn  y = ±0.3577", fc="#d6eaf8", fs=8)
    label(ax, -0.3, 0.1, "bos (purple): |x| + |y| ≤ 0.09", fc="#e8daef", fs=8)
    ax.annotate("", xy=(-0.04, 0.02), xytext=(-0.2, 0.09),
                arrowprops=dict(arrowstyle="->", color="#5b2c6f"), zorder=9)
    # start spots
    for s, (x0, col) in enumerate(((-0.825, SIDE_COLOURS[0]), (0.825, SIDE_COLOURS[1]))):
        for k, y in enumerate(table.spots["start_y"]):
            ax.add_patch(mp.Circle((x0, y), R, fc="none", ec=col, lw=1, ls=":", zorder=4))
            name = ("w" if s == 0 else "r") + str(k + 1)
            ax.text(x0, y, name, fontsize=8, ha="center", va="center", zorder=4,
                    color=("#e8e8e8", "#ffc0c0")[s])
    # penalty spots: a numbered marker at the ball centre, the ball's outline dashed
    for s in (0, 1):
        col = SIDE_COLOURS[s]
        for k, (x, y) in enumerate(zs.penalty_spots[s]):
            ax.add_patch(mp.Circle((x, y), R, fc="none", ec=col, lw=1.2, ls="--", zorder=7))
            ax.add_patch(mp.Circle((x, y), 0.016, fc=col, ec="black", lw=1, zorder=8))
            ax.text(x, y, str(k + 1), fontsize=9, ha="center", va="center", zorder=9,
                    color="black" if s == 0 else "white", fontweight="bold")
    draw_hardware(ax, table, R)
    handles = [
        mp.Patch(fc="#f1c40f", alpha=0.5, ec="#b7950b", label="great triangle (G-14, G-15)"),
        mp.Patch(fc="#e67e22", ec="#a04000", label="small triangle (G-10, G-15)"),
        mp.Patch(fc="white", ec="#c0392b", hatch="///", label="below the stroke line (G-10)"),
        plt.Line2D([], [], color="#c0392b", ls="--", lw=2, label="stroke line"),
        mp.Patch(fc="#6fa8dc", alpha=0.6, label="long-cushion strip (G-11)"),
        mp.Patch(fc="#8e44ad", alpha=0.5, label="bos"),
        mp.Circle((0, 0), 1, fc=SIDE_COLOURS[0], ec="black",
                  label="penalty spots 1-5 of a white offender (G-27..G-29); dashed: the ball"),
        mp.Circle((0, 0), 1, fc=SIDE_COLOURS[1], ec="black",
                  label="penalty spots 1-5 of a red offender"),
        mp.Circle((0, 0), 1, fc="#222222", label="caps (goal caps 0-3, cross 4-11)"),
        mp.Circle((0, 0), 1, fc="none", ec="0.3", ls=":", label="start spots (G-3)"),
    ]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=3,
              fontsize=9, frameon=False)


KADER_COLOURS = ["#a9cce3", "#f9e79f", "#d2b4de", "#abebc6", "#f5b7b1", "#fad7a0", "#aed6f1",
                 "#d5f5e3", "#fdebd0", "#e8daef", "#d6eaf8", "#fcf3cf", "#ebdef0", "#d1f2eb",
                 "#fae5d3"]


def kaders_panel(ax, table, zs, R: float) -> None:
    draw_table(ax, table, "Kaders (G-24) and the merged kaders of G-23")
    for k in zs.kaders:
        ax.add_patch(mp.Polygon(k.polygon, closed=True, fc=KADER_COLOURS[k.id - 1], ec="black",
                                lw=1.2, alpha=0.95, zorder=1))
        c = k.polygon.mean(axis=0)
        if k.name.startswith("corner"):
            corner = k.polygon[np.argmax(np.abs(k.polygon).sum(axis=1))]  # the table's
            c = (2 * c + corner) / 3  # into the corner, clear of the triangle's side
        if k.name.startswith("centre"):
            c = np.array([np.sign(c[0]) * 0.27, 0.2])
        ax.text(c[0], c[1], f"{k.id}", fontsize=16, ha="center", va="center", zorder=9,
                fontweight="bold")
        ax.text(c[0], c[1] - 0.035, k.name.replace("_", " "), fontsize=7.5, ha="center",
                va="center", zorder=9)
    for g, (merged, replaced) in zs.merges.items():
        ax.add_patch(mp.Polygon(merged.polygon, closed=True, fc="none", ec="#c0392b", lw=3,
                                ls="--", zorder=3))
        sx = 1.0 if g == 0 else -1.0
        shooter = 0 if g == 0 else 1
        label(ax, sx * 0.57, -0.125, f"{merged.id} (dashed): defender's\nkader when side "
              f"{shooter} shoots\n= {' + '.join(map(str, replaced))}", fc="#fadbd8", fs=7.5)
    draw_hardware(ax, table, R, numbers=False)
    ax.set_xlabel("G-21: in kader play each stroke must take some ball out of its kader (a ball "
                  "on a line has left once > 0.85 mm off it);\nG-22: exempt when the cue ball "
                  "lies in the great attack triangle; G-23: the defender's balls see the dashed "
                  "merged kader.", fontsize=10)


def out_file(p: argparse.ArgumentParser, text: str) -> Path:
    """The file ``--out`` names, as matplotlib writes it: a name without a suffix gets ``.png``
    (so ``wrote ...`` names the file written); a folder, or a folder that could not be
    written, is refused before the picture is drawn."""
    if not text.strip() or text.endswith(("/", os.sep)) or Path(text).is_dir():
        p.error(f"--out {text!r}: give the picture's file, not a folder")
    out = Path(text)
    if not os.path.splitext(text)[1][1:]:  # matplotlib's own test: no format in the name
        out = Path(text.rstrip(".") + ".png")
    if out.is_dir():
        p.error(f"--out {text!r}: {str(out)!r} is a folder")
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()  # found now, not after drawing
    if out.suffix[1:].lower() not in formats:  # (one line, in matplotlib's words, as before)
        raise UsageError(f"--out {text!r}: Format {out.suffix[1:]!r} is not supported "
                         f"(supported formats: {', '.join(sorted(formats))})")
    check_writable_dir(out.parent, "--out", text)
    return out


def main(argv: list[str] | None = None) -> Path:
    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(checkout_path(Settings.out)),
                   help="the picture: its suffix sets the format, a name without one gets .png "
                        "(default docs/img/golfbillard_zones.png of the checkout cuegym runs "
                        "from, else under the working directory)")
    p.add_argument("--dpi", type=int, default=Settings.dpi,
                   help=f"resolution, 1 to {Settings.max_dpi} (default {Settings.dpi})")
    args = p.parse_args(argv)
    if not 1 <= args.dpi <= Settings.max_dpi:
        w, h = Settings.width * args.dpi, Settings.width * 1.08 * args.dpi
        p.error(f"--dpi must be in [1, {Settings.max_dpi}], got {args.dpi} (a {w:,.0f} x "
                f"{h:,.0f} pixel picture)")
    out = out_file(p, args.out)
    table = load_table("golfbillard")
    R = load_params("golfbillard").R
    zs = load_zones("golfbillard")
    fig, axes = plt.subplots(2, 1, figsize=(Settings.width, Settings.width * 1.08))
    zones_panel(axes[0], table, zs, R)
    kaders_panel(axes[1], table, zs, R)
    fig.tight_layout(h_pad=2.0)
    out.parent.mkdir(parents=True, exist_ok=True)
    # under a temporary name, then renamed: an interrupted run leaves the old picture whole
    tmp = out.with_name(f".{out.stem}.{os.getpid()}.tmp{out.suffix}")
    try:
        fig.savefig(tmp, dpi=args.dpi, format=out.suffix[1:].lower())
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
        plt.close(fig)
    print(f"wrote {out}")
    return out


if __name__ == "__main__":
    import sys

    from cuegym.cli_errors import run_cli

    sys.exit(run_cli(lambda argv: main(argv) and 0))  # bad input: one line, status 2
