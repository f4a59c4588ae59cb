"""The layout check of the physics API: every ball present on the cloth, inside the cushions,
off the pocket capture circles, apart from the other balls, the posts, the jaws and the standing
pins (one compiled pass over the batch), with a message naming the table, the ball and what it
overlaps."""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np

from ..configs import PhysicsParams, TableSpec
from .checks import PhysicsInputError, table_label
from .kiss import segment_gap2

#: Overlap [m] of two balls the layout check accepts: the simulator can leave a ball cradled by
#: resting balls up to ~0.3 micrometres inside one of them (kiss._unstick_resting), and its
#: final positions must be valid starting positions of the next shot.
BALL_OVERLAP_TOL = 1e-6


@nb.njit(cache=True, error_model="numpy")
def _first_layout_violation(xy, present, pins_up, R, hx, hy, lines, circles, pockets, pin_spots,
                            r_pin):
    """First problem in the layout as (code, table, ball, other); code 0 means none.

    Codes: 1 off the cloth: outside the cushion noses' rectangle (hx, hy = half length and
    width), or overlapping a straight cushion (other = cushion) — a ball may rest on a pocket's
    lip past the nose line, where the cushion is cut; 2 two balls overlap (other = ball); 3 ball
    overlaps a circle (other = circle index); 4 ball inside a pocket's capture circle
    (other = pocket); 5 ball overlaps a standing pin (other = pin).
    """
    tol = 1e-9
    T, B, _ = xy.shape
    for t in range(T):
        for b in range(B):
            if not present[t, b]:
                continue
            x = xy[t, b, 0]
            y = xy[t, b, 1]
            if abs(x) > hx + tol or abs(y) > hy + tol:
                return 1, t, b, -1
            for k in range(lines.shape[0]):
                g2, u = segment_gap2(x, y, lines[k])
                inside = (x - lines[k, 0]) * lines[k, 4] + (y - lines[k, 1]) * lines[k, 5] > 0.0
                if g2 < (R - tol) ** 2 or (not inside and u > 0.0 and u < 1.0):
                    return 1, t, b, k
            for o in range(b + 1, B):
                if present[t, o]:
                    dx = xy[t, o, 0] - x
                    dy = xy[t, o, 1] - y
                    if dx * dx + dy * dy < (2.0 * R - BALL_OVERLAP_TOL) ** 2:
                        return 2, t, b, o
            for c in range(circles.shape[0]):
                dx = circles[c, 0] - x
                dy = circles[c, 1] - y
                if dx * dx + dy * dy < (circles[c, 2] + R - tol) ** 2:
                    return 3, t, b, c
            for k in range(pockets.shape[0]):
                dx = pockets[k, 0] - x
                dy = pockets[k, 1] - y
                if dx * dx + dy * dy < pockets[k, 2] ** 2:
                    return 4, t, b, k
            for k in range(pin_spots.shape[0]):
                if pins_up[t, k]:
                    dx = pin_spots[k, 0] - x
                    dy = pin_spots[k, 1] - y
                    if dx * dx + dy * dy < (r_pin + R - tol) ** 2:
                        return 5, t, b, k
    return 0, -1, -1, -1


_ARRAYS: dict = {}


def kernel_arrays(table: TableSpec, params: PhysicsParams) -> dict[str, np.ndarray]:
    """Geometry arrays for the kernels, unpacked once per (table, params) pair (cached by
    identity: hashing a TableSpec costs more than a small simulation)."""
    key = (id(table), id(params))
    hit = _ARRAYS.get(key)
    if hit is not None and hit[0] is table and hit[1] is params:
        return hit[2]
    arrs = table.arrays(params)
    for a in arrs.values():
        a.setflags(write=False)
    if len(_ARRAYS) > 64:
        _ARRAYS.clear()
    _ARRAYS[key] = (table, params, arrs)
    return arrs


def coord_text(x: float) -> str:
    """A coordinate [m] for a message: 4 decimals, or 4 significant digits when huge."""
    return f"{x:.4f}" if abs(x) < 1e6 else f"{x:.4g}"


def layout_problem(table: TableSpec, params: PhysicsParams, xy: np.ndarray,
                   present: np.ndarray, pins_up: np.ndarray,
                   names: Sequence[str] | None = None,
                   table_names: Sequence[str] | None = None,
                   pin_names: Sequence[str] | None = None) -> tuple[int, str] | None:
    """(table, message) of the first layout problem (see :func:`validate_layout`), or None."""
    R = params.R
    hx, hy = table.length / 2, table.width / 2
    arrs = kernel_arrays(table, params)
    code, t, b, o = _first_layout_violation(xy, present, pins_up, R, hx, hy, arrs["lines"],
                                            arrs["circles"], arrs["pockets"], arrs["pin_spots"],
                                            table.pin_radius)
    if code == 0:
        return None
    label = (lambda i: repr(names[i])) if names else (lambda i: f"ball {i}")
    x, y = coord_text(xy[t, b, 0]), coord_text(xy[t, b, 1])
    if code == 1:
        where = "outside the cushions" if o < 0 else f"overlapping cushion {o}"
        msg = (f"{label(b)} at ({x}, {y}) is off the cloth ({where}; a ball centre needs "
               f"|x| <= {hx - R:.4f}, |y| <= {hy - R:.4f} m away from the pocket mouths)")
    elif code == 2:
        d = float(np.hypot(*(xy[t, o] - xy[t, b])))
        if float(f"{d:.5f}") < float(f"{2 * R:.5f}"):  # the two numbers differ as printed
            msg = (f"{label(b)} and {label(o)} overlap (centres {d:.5f} m apart, need >= 2R = "
                   f"{2 * R:.5f} m)")
        else:  # an overlap of about a micrometre: show it, and the threshold the check uses
            msg = (f"{label(b)} and {label(o)} overlap by {(2 * R - d) * 1e6:.4g} µm (centres "
                   f"{d:.9f} m apart, need >= 2R - 1 µm = {2 * R - BALL_OVERLAP_TOL:.9f} m)")
    elif code == 3:
        c = table.circles[o]
        what = "post" if c.kind == 1 else "pocket jaw"
        msg = f"{label(b)} at ({x}, {y}) overlaps the {what} at ({c.x:.4f}, {c.y:.4f})"
    elif code == 4:
        p = table.pockets[o]
        msg = f"{label(b)} is inside pocket {o} ({p.name or o}); place it on the cloth"
    else:
        pin = f"pin {o}" if not pin_names else f"pin {pin_names[o]!r}"
        msg = f"{label(b)} at ({x}, {y}) overlaps standing {pin}"
    return int(t), f"{table_label(t, table_names)}: {msg}"


def validate_layout(table: TableSpec, params: PhysicsParams, xy: np.ndarray, present: np.ndarray,
                    pins_up: np.ndarray, names: tuple[str, ...] | None = None,
                    table_names: Sequence[str] | None = None,
                    pin_names: Sequence[str] | None = None) -> None:
    """Raise :class:`PhysicsInputError` for a ball off the cloth, overlapping another ball, a
    post, a jaw or a standing pin, or inside a pocket's capture circle (compiled check).
    ``names`` label the balls, ``table_names`` the tables and ``pin_names`` the pins in the
    message (default indices)."""
    problem = layout_problem(table, params, xy, present, pins_up, names, table_names, pin_names)
    if problem is not None:
        raise PhysicsInputError(problem[1])
