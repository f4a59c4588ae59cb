"""Golfbillard geometry as arrays for the compiled referee, and its point / path kernels.

:func:`golf_arrays` turns the static game facts (:class:`~cuegym.rules.golfbillard.GolfGeometry`:
the table config and ``configs/zones/golfbillard.yaml``) into one :class:`GolfArrays` bundle of
plain arrays, once: every zone the rules test is stored as an already *offset* polygon (the line
band conventions of :mod:`cuegym.configs.zones`, computed there with
:func:`~cuegym.configs.zones.offset_polygon`, so the YAML stays the one source of truth) together
with its edge lines. The ``@njit`` functions below answer the referee's questions for one ball of
one table:

- *where is a point* (:func:`in_poly`, the crossing test plus the closed boundary of
  :func:`cuegym.configs.zones.points_in_polygon`);
- *what was a ball's path* (:func:`ball_path`: the physics path pieces of
  :func:`cuegym.physics.path.ball_segments`, or straight lines between logged positions for
  hand-written logs and JSON logs without the balls' states, as ``TableLog.segments``);
- *did a path leave a polygon or a line band* (:func:`path_leaves`, the closed-form splitting of
  :func:`cuegym.configs.zones.path_exits`), *how far did it reach* (:func:`path_max`).

Path arrays are ``(S, 8)`` rows ``t_start, t_end, p0x, p0y, qx, qy, ax, ay`` [s, m, m/s, m/s^2].
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

from cuegym.configs.zones import band_polygons, offset_polygon, polygon_edges, polygon_lines
from cuegym.physics.constants import EV_BALL_BALL, EV_BALL_POCKET, EV_PIN_PIN
from cuegym.physics.motion import path_coeffs

_BOUNDARY_TOL = 1e-12  # as cuegym.configs.zones: a point this close to a closed edge is on it
_EDGE_TOL = 1e-9  # as cuegym.configs.zones: root / interval tolerance of the path queries [s]
VMAX = 8  # most vertices of any stored polygon


class GolfArrays(NamedTuple):
    """Static golfbillard facts as arrays (built once by :func:`golf_arrays`).

    Attributes:
        R: ball radius [m]. r_cap: cap radius [m]. eps: ``epsilon_line`` [m].
        hx, hy: largest |x|, |y| of a ball centre on the cloth [m].
        caps: (12, 2) cap centres. goals: (2, 3) goal x, y, radius. start: (10, 2) G-3 spots.
        cushions: (C, 6) straight cushions x1, y1, x2, y2, nx, ny.
        spots: (2, 5, 2) penalty spots 1..5 of an offender of side 0 / 1 (G-27..G-29).
        goal_caps: (2, 2) caps flanking goal g. front_caps: (2,). outer_caps: (2,) (G-13).
        strip_cushion: (2,) cushion of strip_top / strip_bottom (G-11).
        polys: (P, VMAX, 2) offset polygons; nv: (P,) their vertex counts; lines: (P, VMAX, 3)
            their edge lines (nx, ny, c).
        below: (2, 2) polygon ids of below_stroke_line_g (+eps). small_in / small_out: (2,)
            small_triangle_g at +eps / -eps; great_in / great_out: (2,) great_triangle_g.
        strip: (2,) strip_top / strip_bottom (+eps). stroke_line: (2, S, 2, 2) the segments of
            stroke_line_g (G-10: a ball within eps of them is on the line, above it).
        kader_poly: (18,) polygon id of kader k (1..17) offset by -eps (-1 for k = 0).
        view_ids: (3, 17) kader ids of each view (0: own kaders, 1 / 2: the G-23 merge at goal
            0 / 1), sorted; view_n: (3,). view_edges: (3, E, 2, 2) their raw edges; view_ne:
            (3,); view_band: (3, E) polygon id of each edge's line band (+eps).
    """

    R: float
    r_cap: float
    eps: float
    hx: float
    hy: float
    caps: np.ndarray
    goals: np.ndarray
    start: np.ndarray
    cushions: np.ndarray
    spots: np.ndarray
    goal_caps: np.ndarray
    front_caps: np.ndarray
    outer_caps: np.ndarray
    strip_cushion: np.ndarray
    polys: np.ndarray
    nv: np.ndarray
    lines: np.ndarray
    below: np.ndarray
    small_in: np.ndarray
    small_out: np.ndarray
    great_in: np.ndarray
    great_out: np.ndarray
    strip: np.ndarray
    stroke_line: np.ndarray
    kader_poly: np.ndarray
    view_ids: np.ndarray
    view_n: np.ndarray
    view_edges: np.ndarray
    view_ne: np.ndarray
    view_band: np.ndarray


_ARRAYS: dict[int, GolfArrays] = {}


def golf_arrays(geo) -> GolfArrays:
    """The :class:`GolfArrays` of a :class:`~cuegym.rules.golfbillard.GolfGeometry` (cached)."""
    if id(geo) in _ARRAYS:
        return _ARRAYS[id(geo)]
    zs = geo.zones
    eps = float(zs.eps_line)
    polys: list[np.ndarray] = []

    def add(poly: np.ndarray, off: float) -> int:
        p = offset_polygon(np.asarray(poly, dtype=np.float64), off)
        if len(p) > VMAX:
            raise ValueError(f"a zone polygon has {len(p)} vertices; the kernels hold {VMAX}")
        polys.append(p)
        return len(polys) - 1

    def zone(name: str, off: float) -> list[int]:
        return [add(p, off) for p in zs.zone(name).polygons]

    below = np.array([zone(f"below_stroke_line_{g}", eps) for g in range(2)], np.int64)
    if below.shape != (2, 2):
        raise ValueError("below_stroke_line_g must be two polygons per goal")
    small_in = np.array([zone(f"small_triangle_{g}", eps)[0] for g in range(2)], np.int64)
    small_out = np.array([zone(f"small_triangle_{g}", -eps)[0] for g in range(2)], np.int64)
    great_in = np.array([zone(f"great_triangle_{g}", eps)[0] for g in range(2)], np.int64)
    great_out = np.array([zone(f"great_triangle_{g}", -eps)[0] for g in range(2)], np.int64)
    strip = np.array([zone(n, eps)[0] for n in ("strip_top", "strip_bottom")], np.int64)
    strip_cushion = np.array([zs.zone(n).cushion for n in ("strip_top", "strip_bottom")],
                             np.int64)
    kader_poly = np.full(18, -1, np.int64)
    for kid in range(1, 18):
        kader_poly[kid] = add(zs.kader(kid).polygon, -eps)
    views = [zs.kader_set(None), zs.kader_set(0), zs.kader_set(1)]
    view_ids = np.zeros((3, 17), np.int64)
    view_n = np.zeros(3, np.int64)
    edge_lists = []
    for v, ks in enumerate(views):
        ids = sorted(k.id for k in ks)
        view_ids[v, :len(ids)] = ids
        view_n[v] = len(ids)
        edge_lists.append(np.concatenate([polygon_edges(k.polygon) for k in ks]))
    E = max(len(e) for e in edge_lists)
    view_edges = np.zeros((3, E, 2, 2))
    view_ne = np.zeros(3, np.int64)
    view_band = np.full((3, E), -1, np.int64)
    for v, edges in enumerate(edge_lists):
        view_edges[v, :len(edges)] = edges
        view_ne[v] = len(edges)
        for k, band in enumerate(band_polygons(edges, eps)):
            view_band[v, k] = add(band, 0.0)
    P = len(polys)
    arr = np.zeros((P, VMAX, 2))
    nv = np.zeros(P, np.int64)
    lines = np.zeros((P, VMAX, 3))
    for k, p in enumerate(polys):
        arr[k, :len(p)] = p
        nv[k] = len(p)
        lines[k, :len(p)] = polygon_lines(p)
    t = geo.table
    cush = np.array([[c.x1, c.y1, c.x2, c.y2, c.nx, c.ny] for c in t.cushions], np.float64)
    out = GolfArrays(
        R=float(geo.R), r_cap=float(geo.r_cap), eps=eps, hx=float(t.length / 2 - geo.R),
        hy=float(t.width / 2 - geo.R), caps=np.ascontiguousarray(geo.caps, np.float64),
        goals=np.ascontiguousarray(geo.goals, np.float64),
        start=np.ascontiguousarray(geo.start, np.float64), cushions=cush,
        spots=np.ascontiguousarray(zs.penalty_spots, np.float64),
        goal_caps=np.ascontiguousarray(zs.goal_caps, np.int64),
        front_caps=np.ascontiguousarray(zs.front_caps, np.int64),
        outer_caps=np.ascontiguousarray(zs.outer_side_caps, np.int64),
        strip_cushion=strip_cushion, polys=arr, nv=nv, lines=lines, below=below,
        small_in=small_in, small_out=small_out, great_in=great_in, great_out=great_out,
        strip=strip, stroke_line=np.stack([np.asarray(zs.zone(f"stroke_line_{g}").segments,
                                                      np.float64) for g in range(2)]),
        kader_poly=kader_poly, view_ids=view_ids, view_n=view_n,
        view_edges=view_edges, view_ne=view_ne, view_band=view_band)
    _ARRAYS[id(geo)] = out
    return out


# ---------------------------------------------------------------------------------------------
# Points
# ---------------------------------------------------------------------------------------------


@nb.njit(cache=True)
def in_poly(polys, nv, pid, x, y):
    """Point (x, y) in stored polygon ``pid`` (closed: within 1e-12 of an edge counts)."""
    n = nv[pid]
    cnt = 0
    for i in range(n):
        j = i + 1 if i + 1 < n else 0
        xi, yi = polys[pid, i, 0], polys[pid, i, 1]
        xj, yj = polys[pid, j, 0], polys[pid, j, 1]
        if (yi > y) != (yj > y):
            x_at = xi + (xj - xi) * (y - yi) / (yj - yi)
            if x < x_at:
                cnt += 1
    if cnt % 2 == 1:
        return True
    for i in range(n):
        j = i + 1 if i + 1 < n else 0
        if seg_dist(x, y, polys[pid, i, 0], polys[pid, i, 1], polys[pid, j, 0],
                    polys[pid, j, 1]) <= _BOUNDARY_TOL:
            return True
    return False


@nb.njit(cache=True)
def seg_dist(x, y, ax, ay, bx, by):
    """Distance from (x, y) to the segment a-b [m] (as ``configs.zones.edge_distances``)."""
    abx = bx - ax
    aby = by - ay
    s = ((x - ax) * abx + (y - ay) * aby) / (abx * abx + aby * aby)
    s = min(max(s, 0.0), 1.0)
    dx = x - (ax + s * abx)
    dy = y - (ay + s * aby)
    return math.sqrt(dx * dx + dy * dy)


@nb.njit(cache=True)
def on_line(segs, x, y, eps):
    """A point within max(eps, 1e-12) of one of the segments (S, 2, 2): on a line zone (as
    ``configs.zones.Zone.contains`` for segment zones)."""
    tol = max(eps, _BOUNDARY_TOL)
    for k in range(segs.shape[0]):
        if seg_dist(x, y, segs[k, 0, 0], segs[k, 0, 1], segs[k, 1, 0], segs[k, 1, 1]) <= tol:
            return True
    return False


@nb.njit(cache=True)
def kader_of(ga, view, x, y):
    """G-24 kader id of a point in kader view ``view`` at -eps (first by id), 0 for none."""
    for k in range(ga.view_n[view]):
        kid = ga.view_ids[view, k]
        if in_poly(ga.polys, ga.nv, ga.kader_poly[kid], x, y):
            return kid
    return 0


# ---------------------------------------------------------------------------------------------
# Paths
# ---------------------------------------------------------------------------------------------


@nb.njit(cache=True)
def ball_path(b, n, ev_type, ev_time, ev_i, ev_j, ev_state, ev_motion, rvw0, motion0, rvw,
              t_end, prm, physics, out):
    """Write ball ``b``'s path pieces into ``out`` (at least n + 2 rows); return their count.

    ``physics``: the pieces of :func:`cuegym.physics.path.ball_segments` (states after each
    event, motion laws from ``prm``); otherwise straight lines between the logged positions up
    to a drop and the end (``TableLog.segments`` without a path query; events without a
    position, as in JSON logs without the balls' states, are skipped).
    """
    if physics:
        m = 0
        t0 = 0.0
        px, py = rvw0[b, 0, 0], rvw0[b, 0, 1]
        vx, vy = rvw0[b, 1, 0], rvw0[b, 1, 1]
        wx, wy = rvw0[b, 2, 0], rvw0[b, 2, 1]
        mo = motion0[b]
        for k in range(n + 1):
            if k < n:
                typ = ev_type[k]
                if typ == EV_PIN_PIN:
                    continue
                if ev_i[k] == b:
                    slot = 0
                elif typ == EV_BALL_BALL and ev_j[k] == b:
                    slot = 1
                else:
                    continue
                t1 = ev_time[k]
            else:
                t1 = t_end
            qx, qy, ax, ay = path_coeffs(vx, vy, wx, wy, mo, prm)
            out[m, 0] = t0
            out[m, 1] = max(t1, t0)
            out[m, 2] = px
            out[m, 3] = py
            out[m, 4] = qx
            out[m, 5] = qy
            out[m, 6] = ax
            out[m, 7] = ay
            m += 1
            if k < n:
                t0 = t1
                px, py = ev_state[k, slot, 0], ev_state[k, slot, 1]
                vx, vy = ev_state[k, slot, 2], ev_state[k, slot, 3]
                wx, wy = ev_state[k, slot, 4], ev_state[k, slot, 5]
                mo = ev_motion[k, slot]
        return m
    # straight lines between waypoints
    tp = 0.0
    xp, yp = rvw0[b, 0, 0], rvw0[b, 0, 1]
    m = 0
    ended = False
    for k in range(n):
        typ = ev_type[k]
        if not (ev_i[k] == b or (typ == EV_BALL_BALL and ev_j[k] == b)):
            continue
        row = 1 if (typ == EV_BALL_BALL and ev_j[k] == b) else 0
        if not math.isnan(ev_state[k, row, 0]):
            m = _straight(out, m, tp, xp, yp, ev_time[k], ev_state[k, row, 0],
                          ev_state[k, row, 1])
            tp, xp, yp = ev_time[k], ev_state[k, row, 0], ev_state[k, row, 1]
        if typ == EV_BALL_POCKET:
            ended = True
            break
    if not ended:
        m = _straight(out, m, tp, xp, yp, t_end, rvw[b, 0, 0], rvw[b, 0, 1])
    return m


@nb.njit(cache=True)
def _straight(out, m, t0, x0, y0, t1, x1, y1):
    dt = t1 - t0
    out[m, 0] = t0
    out[m, 1] = t1
    out[m, 2] = x0
    out[m, 3] = y0
    out[m, 4] = (x1 - x0) / dt if dt > 0 else 0.0
    out[m, 5] = (y1 - y0) / dt if dt > 0 else 0.0
    out[m, 6] = 0.0
    out[m, 7] = 0.0
    return m + 1


@nb.njit(cache=True)
def _roots(A, B, C, out, k):
    """The three candidate roots of ``configs.zones._quad_roots`` into out[k:k+3] (NaN-padded)."""
    scale = max(max(abs(A), abs(B)), abs(C)) + 1e-300
    lin = abs(A) <= 1e-14 * scale
    out[k] = np.nan
    out[k + 1] = np.nan
    out[k + 2] = np.nan
    if lin:
        if abs(B) > 0:
            out[k] = -C / B
        return
    disc = B * B - 4.0 * A * C
    if disc >= 0:
        sq = math.sqrt(max(disc, 0.0))
        qq = -0.5 * (B + math.copysign(sq, B))
        r1 = qq / A
        out[k] = r1
        out[k + 1] = C / qq if qq != 0 else r1
    out[k + 2] = -B / (2.0 * A)


@nb.njit(cache=True)
def _inside_any(polys, nv, pids, npid, x, y):
    for k in range(npid):
        if in_poly(polys, nv, pids[k], x, y):
            return True
    return False


@nb.njit(cache=True)
def path_leaves(seg, ns, polys, nv, lines, pids, npid):
    """True when the path is, at some moment, outside the union of polygons ``pids[:npid]``.

    Exact as :func:`cuegym.configs.zones.path_exits`: each piece is split at every crossing of
    every edge line (closed-form roots) and at each extremum, and the ends and middles of the
    pieces are tested.
    """
    nl = 0
    for k in range(npid):
        nl += nv[pids[k]]
    taus = np.empty(2 + 3 * nl)
    for s in range(ns):
        dur = max(seg[s, 1] - seg[s, 0], 0.0)
        p0x, p0y, qx, qy, ax, ay = seg[s, 2], seg[s, 3], seg[s, 4], seg[s, 5], seg[s, 6], seg[s, 7]
        taus[0] = 0.0
        taus[1] = dur
        m = 2
        for k in range(npid):
            pid = pids[k]
            for e in range(nv[pid]):
                nx, ny, c = lines[pid, e, 0], lines[pid, e, 1], lines[pid, e, 2]
                _roots(ax * nx + ay * ny, qx * nx + qy * ny, p0x * nx + p0y * ny - c, taus, m)
                m += 3
        cnt = 0
        for k in range(m):  # keep valid roots, clipped, compacted
            r = taus[k]
            if k >= 2:
                if not (r >= -_EDGE_TOL and r <= dur + _EDGE_TOL):
                    continue
                r = min(max(r, 0.0), dur)
            taus[cnt] = r
            cnt += 1
        for i in range(1, cnt):  # insertion sort
            v = taus[i]
            j = i - 1
            while j >= 0 and taus[j] > v:
                taus[j + 1] = taus[j]
                j -= 1
            taus[j + 1] = v
        for i in range(2 * cnt - 1):
            if i < cnt:
                tau = taus[i]
            else:
                tau = 0.5 * (taus[i - cnt + 1] + taus[i - cnt])
            x = p0x + qx * tau + ax * tau * tau
            y = p0y + qy * tau + ay * tau * tau
            if not _inside_any(polys, nv, pids, npid, x, y):
                return True
    return False


@nb.njit(cache=True)
def path_max(seg, ns, dx, dy):
    """Largest ``(dx, dy) . p(tau)`` over the path [m] (-inf without pieces)."""
    best = -np.inf
    for s in range(ns):
        dur = max(seg[s, 1] - seg[s, 0], 0.0)
        a = seg[s, 6] * dx + seg[s, 7] * dy
        b = seg[s, 4] * dx + seg[s, 5] * dy
        c = seg[s, 2] * dx + seg[s, 3] * dy
        tv = -b / (2.0 * a) if abs(a) > 0 else 0.0
        tv = min(max(tv, 0.0), dur)
        for tau in (0.0, dur, tv):
            v = a * tau ** 2 + b * tau + c
            if v > best:
                best = v
    return best
