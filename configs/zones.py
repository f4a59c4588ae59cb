"""Golfbillard zones: polygons and segments from ``configs/zones/<name>.yaml``, and geometry.

The golfbillard referee asks two kinds of question (docs/rules_golfbillard.md):

- *Where is a ball?* ``in_zone(name, points, eps)`` / ``zone_of(points, names, eps)`` /
  ``ZoneSet.kader_of`` answer for many points at once (numpy, any leading shape).
- *Did a ball leave a zone during the stroke?* ``path_leaves_polygon(segments, polygon, eps)``
  answers over the physics path segments (``cuegym.physics.path.ball_segments``): the ball centre
  moves as ``p(tau) = p0 + q tau + acc tau^2`` for ``tau`` in ``[0, t_end - t_start]``.

**The line band.** A ball is *on a line* when its centre is within ``epsilon_line`` of it. Each
rule says whether a ball on a zone's boundary counts as inside; the functions here take a signed
offset ``eps``: ``eps > 0`` moves every edge of the polygon outward by ``eps`` (the band counts as
inside), ``eps < 0`` moves it inward (the band counts as outside), ``eps = 0`` is the closed
polygon. Offsets are *mitred*: corners stay sharp, so at a corner the band is up to
``eps / sin(angle / 2)`` wide instead of ``eps``. That offset polygon is the exact region used by
every point and path query alike; at the 0.85 mm band the difference from a rounded band is
below 0.4 mm and only at corners, most of which a ball centre cannot reach (caps stand there).

**Paths, exactly.** A path leaves a polygon whose edges are straight lines only by crossing one of
those lines, and ``n . p(tau) = c`` is a quadratic in ``tau``. ``path_exits`` therefore solves
every crossing in closed form, splits each segment at the crossings (and at each extremum), and
tests the pieces' end and middle points: exact up to floating point, no sampling tolerance.

Example:
    >>> from cuegym.configs.zones import load_zones
    >>> zs = load_zones()
    >>> bool(zs.in_zone("great_triangle_0", [0.80, 0.0]))
    True
    >>> int(zs.kader_of([0.0, 0.0]))            # the bos
    8
    >>> zs.penalty_spots[1, 0].tolist()          # spot 1 of an offender of side 1
    [-0.86925, -0.09387]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.configs import (
    CONFIG_DIR,
    ConfigError,
    config_list,
    config_mapping,
    finite_number,
    load_yaml,
)

ZONE_DIR = CONFIG_DIR / "zones"

#: Names of the zone sets shipped in ``configs/zones``.
ZONE_SET_NAMES = ("golfbillard",)
#: The zone-set format version this code reads (a file's optional ``version`` key must be it).
ZONE_SET_VERSION = 1
_MISSING = object()

_BOUNDARY_TOL = 1e-12  # a point this close to an edge of a closed polygon is on it
_EDGE_TOL = 1e-9  # root / interval tolerance in the path queries [s]


# ---------------------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------------------


def as_points(points: Any, name: str = "points") -> np.ndarray:
    """Return ``points`` as a float array of shape ``(..., 2)``; raise ValueError if it is not.

    Args:
        points: one point ``[x, y]`` or an array of points ``(..., 2)`` [m].
        name: what to call the value in the error message.
    """
    try:
        arr = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers of shape (..., 2), got {points!r}") from None
    if arr.ndim == 0 or arr.shape[-1] != 2:
        raise ValueError(f"{name} must have shape (..., 2), got shape {arr.shape}: {points!r}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {points!r}")
    return arr


def _polygon_array(poly: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(poly, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"{name}: polygon must be a list of [x, y], got {poly!r}") from None
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] < 3:
        raise ConfigError(f"{name}: polygon needs at least 3 [x, y] vertices, got {poly!r}")
    if not np.all(np.isfinite(arr)):
        raise ConfigError(f"{name}: polygon vertices must be finite, got {poly!r}")
    area = polygon_area(arr)
    if abs(area) < 1e-12:
        raise ConfigError(f"{name}: polygon has zero area: {poly!r}")
    return arr if area > 0 else arr[::-1].copy()  # counter-clockwise


def _segment_array(seg: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(seg, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"{name}: segment must be [[x1, y1], [x2, y2]], got {seg!r}") from None
    if arr.shape != (2, 2) or not np.all(np.isfinite(arr)):
        raise ConfigError(f"{name}: segment must be [[x1, y1], [x2, y2]], got {seg!r}")
    if np.allclose(arr[0], arr[1]):
        raise ConfigError(f"{name}: segment has zero length: {seg!r}")
    return arr


# ---------------------------------------------------------------------------------------------
# Polygon geometry (vectorised over points)
# ---------------------------------------------------------------------------------------------


def polygon_area(poly: np.ndarray) -> float:
    """Signed area of a polygon ``(V, 2)`` [m^2]; positive when counter-clockwise."""
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, _next(y)) - np.dot(_next(x), y))


def _next(a: np.ndarray) -> np.ndarray:
    """``a`` shifted by one row: row i holds row i+1 (the last holds the first)."""
    return np.concatenate((a[1:], a[:1]))


def polygon_edges(poly: np.ndarray) -> np.ndarray:
    """Edges of a polygon as an array ``(V, 2, 2)``: edge i runs from vertex i to vertex i+1."""
    return np.stack([poly, _next(poly)], axis=1)


def offset_polygon(poly: np.ndarray, d: float) -> np.ndarray:
    """Move every edge of a counter-clockwise polygon outward by ``d`` [m] (inward if d < 0).

    Corners are mitred (each new vertex is where the two moved edges meet). Valid while ``|d|``
    is small against the polygon's edges, which holds for the line band.

    Returns:
        (V, 2) the offset polygon, same vertex order.
    """
    if d == 0.0:
        return poly
    e = _next(poly) - poly  # edge i: v_i -> v_{i+1}
    n = np.stack([e[:, 1], -e[:, 0]], axis=1) / np.hypot(e[:, 0], e[:, 1])[:, None]
    na = np.concatenate((n[-1:], n[:-1]))  # vertex i joins edge i-1 (normal na) and edge i
    # v' = v + d m with na . m = 1 and n . m = 1: m = (na + n) / (1 + na . n) (mitre vector)
    cos = np.einsum("ij,ij->i", na, n)
    m = np.where((1.0 + cos)[:, None] > 1e-12, (na + n) / np.maximum(1.0 + cos, 1e-12)[:, None],
                 n)
    return poly + d * m


def edge_distances(points: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Distance from each point ``(..., 2)`` to each edge of ``(E, 2, 2)``: ``(..., E)`` [m]."""
    p = np.asarray(points, dtype=np.float64)[..., None, :]  # (..., 1, 2)
    a, b = edges[:, 0], edges[:, 1]
    ab = b - a
    denom = np.einsum("ij,ij->i", ab, ab)
    s = np.einsum("...ij,ij->...i", p - a, ab) / denom
    s = np.clip(s, 0.0, 1.0)
    closest = a + s[..., None] * ab
    return np.linalg.norm(p - closest, axis=-1)


def dist_to_edges(points: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Distance from each point ``(..., 2)`` to the nearest of ``edges`` ``(E, 2, 2)`` [m]."""
    return np.min(edge_distances(points, edges), axis=-1)


def points_in_polygon(poly: np.ndarray, points: np.ndarray, eps: float = 0.0) -> np.ndarray:
    """Which points lie in the polygon offset by ``eps`` (closed: the boundary counts as inside).

    Args:
        poly: (V, 2) counter-clockwise polygon [m].
        points: (..., 2) points [m].
        eps: signed offset [m]: > 0 grows the polygon, < 0 shrinks it (see module docstring).

    Returns:
        bool array of shape ``points.shape[:-1]``.
    """
    poly = offset_polygon(poly, eps)
    pts = np.asarray(points, dtype=np.float64)
    shape = pts.shape[:-1]
    p = pts.reshape(-1, 2)
    x, y = p[:, :1], p[:, 1:]
    xi, yi = poly[:, 0], poly[:, 1]
    nxt = _next(poly)
    xj, yj = nxt[:, 0], nxt[:, 1]
    crosses = (yi > y) != (yj > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_at = xi + (xj - xi) * (y - yi) / (yj - yi)
    inside = (np.sum(crosses & (x < x_at), axis=1) % 2) == 1
    on_edge = dist_to_edges(p, polygon_edges(poly)) <= _BOUNDARY_TOL
    return (inside | on_edge).reshape(shape)


# ---------------------------------------------------------------------------------------------
# Path segments: p(tau) = p0 + q tau + acc tau^2
# ---------------------------------------------------------------------------------------------


def as_segments(segments: Any) -> np.ndarray:
    """Normalise path segments to an array ``(S, 8)``: t_start, t_end, p0x, p0y, qx, qy, ax, ay.

    Accepts that array, or a sequence of ``(t_start, t_end, p0, q, acc)`` tuples as returned by
    ``cuegym.physics.path.ball_segments``.
    """
    if isinstance(segments, np.ndarray) and segments.ndim == 2 and segments.shape[1] == 8:
        arr = segments.astype(np.float64, copy=False)
    else:
        rows = []
        for s in segments:
            try:
                t0, t1, p0, q, acc = s
                rows.append([float(t0), float(t1), *np.ravel(p0)[:2], *np.ravel(q)[:2],
                             *np.ravel(acc)[:2]])
            except (TypeError, ValueError):
                raise ValueError(
                    f"a path segment must be (t_start, t_end, p0, q, acc), got {s!r}") from None
        arr = np.asarray(rows, dtype=np.float64).reshape(-1, 8)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"path segments must be finite, got {arr!r}")
    if np.any(arr[:, 1] < arr[:, 0] - _EDGE_TOL):
        raise ValueError(f"a path segment ends before it starts: {arr!r}")
    return arr


def _quad_roots(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Real roots of ``A t^2 + B t + C`` (elementwise), shape ``A.shape + (3,)``, NaN-padded.

    The third column is the extremum ``-B / 2A`` (a grazing touch that rounding turned into a
    miss still yields its nearest point).
    """
    out = np.full(A.shape + (3,), np.nan)
    scale = np.maximum(np.maximum(np.abs(A), np.abs(B)), np.abs(C)) + 1e-300
    lin = np.abs(A) <= 1e-14 * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        # linear
        r = np.where(lin & (np.abs(B) > 0), -C / np.where(B == 0, 1.0, B), np.nan)
        out[..., 0] = np.where(lin, r, np.nan)
        # quadratic, numerically stable form
        disc = B * B - 4.0 * A * C
        sq = np.sqrt(np.maximum(disc, 0.0))
        qq = -0.5 * (B + np.copysign(sq, B))
        r1 = qq / np.where(lin, 1.0, A)
        r2 = np.where(qq != 0, C / np.where(qq == 0, 1.0, qq), r1)
        quad = ~lin & (disc >= 0)
        out[..., 0] = np.where(quad, r1, out[..., 0])
        out[..., 1] = np.where(quad, r2, np.nan)
        out[..., 2] = np.where(~lin, -B / np.where(lin, 1.0, 2.0 * A), np.nan)
    return out


def path_exits(segments: Any, inside: Callable[[np.ndarray], np.ndarray],
               lines: np.ndarray) -> bool:
    """True when the path is, at some moment, at a point where ``inside`` is False.

    Exact when ``inside`` can change value only on the given straight lines: each segment is
    split at every crossing of every line (a quadratic in tau, solved in closed form) and at each
    extremum, and ``inside`` is tested at the ends and the middle of every piece.

    Args:
        segments: path segments (see :func:`as_segments`).
        inside: maps points ``(N, 2)`` to bool ``(N,)``.
        lines: ``(L, 3)`` rows ``(nx, ny, c)``: the lines ``nx x + ny y = c``.
    """
    seg = as_segments(segments)
    if len(seg) == 0:
        return False
    dur = np.maximum(seg[:, 1] - seg[:, 0], 0.0)
    p0, q, acc = seg[:, 2:4], seg[:, 4:6], seg[:, 6:8]
    lines = np.asarray(lines, dtype=np.float64).reshape(-1, 3)
    n, c = lines[:, :2], lines[:, 2]
    A = acc @ n.T
    B = q @ n.T
    C = p0 @ n.T - c
    roots = _quad_roots(A, B, C).reshape(len(seg), -1)
    ok = (roots >= -_EDGE_TOL) & (roots <= dur[:, None] + _EDGE_TOL)
    roots = np.where(ok, np.clip(roots, 0.0, dur[:, None]), np.nan)
    taus = np.concatenate([np.zeros((len(seg), 1)), dur[:, None], roots], axis=1)
    taus = np.sort(taus, axis=1)  # NaN last
    mids = 0.5 * (taus[:, 1:] + taus[:, :-1])
    tau = np.concatenate([taus, mids], axis=1)
    valid = ~np.isnan(tau)
    tau = np.where(valid, tau, 0.0)[..., None]
    pts = p0[:, None, :] + q[:, None, :] * tau + acc[:, None, :] * tau * tau
    return not bool(np.all(inside(pts[valid])))


def polygon_lines(poly: np.ndarray) -> np.ndarray:
    """The supporting lines ``(V, 3)`` (nx, ny, c) of a polygon's edges."""
    e = _next(poly) - poly
    n = np.stack([e[:, 1], -e[:, 0]], axis=1) / np.hypot(e[:, 0], e[:, 1])[:, None]
    return np.concatenate([n, np.einsum("ij,ij->i", n, poly)[:, None]], axis=1)


def path_leaves_polygon(segments: Any, poly: np.ndarray, eps: float = 0.0) -> bool:
    """True when the path is, at some moment, outside the polygon offset by ``eps``.

    The offset polygon is closed: a path that only touches its boundary has not left. Exact
    (see :func:`path_exits`).

    Args:
        segments: path segments of one ball.
        poly: (V, 2) counter-clockwise polygon [m].
        eps: signed offset [m] (> 0: the line band counts as inside).
    """
    off = offset_polygon(np.asarray(poly, dtype=np.float64), eps)
    return path_exits(segments, lambda p: points_in_polygon(off, p), polygon_lines(off))


def path_max(segments: Any, direction: Sequence[float]) -> float:
    """Largest value of ``direction . p(tau)`` over the path (closed form) [m].

    E.g. ``path_max(segs, (1, 0)) > 0`` says the ball centre crossed x = 0 toward +x (G-3).
    """
    seg = as_segments(segments)
    if len(seg) == 0:
        return -math.inf
    d = np.asarray(direction, dtype=np.float64)
    dur = np.maximum(seg[:, 1] - seg[:, 0], 0.0)
    a, b, c = seg[:, 6:8] @ d, seg[:, 4:6] @ d, seg[:, 2:4] @ d
    with np.errstate(divide="ignore", invalid="ignore"):
        tv = np.where(np.abs(a) > 0, -b / (2.0 * np.where(a == 0, 1.0, a)), 0.0)
    tv = np.clip(tv, 0.0, dur)
    cand = np.stack([np.zeros_like(dur), dur, tv], axis=1)
    vals = a[:, None] * cand**2 + b[:, None] * cand + c[:, None]
    return float(np.max(vals))


def band_polygons(edges: np.ndarray, eps: float) -> list[np.ndarray]:
    """The mitred line band of each edge: a rectangle reaching ``eps`` beyond it on all sides."""
    out = []
    for a, b in edges:
        u = (b - a) / np.linalg.norm(b - a)
        n = np.array([-u[1], u[0]])
        a2, b2 = a - eps * u, b + eps * u
        out.append(np.array([a2 - eps * n, b2 - eps * n, b2 + eps * n, a2 + eps * n]))
    return out


def path_leaves_band(segments: Any, edges: np.ndarray, eps: float) -> bool:
    """True when the path gets, at some moment, more than ``eps`` from every one of ``edges``.

    For G-21: a ball that starts on a kader line "has left once its centre is more than
    epsilon_line from it". The band of an edge is the mitred rectangle of :func:`band_polygons`.
    """
    bands = band_polygons(np.asarray(edges, dtype=np.float64).reshape(-1, 2, 2), eps)
    if not bands:
        return True

    def inside(p: np.ndarray) -> np.ndarray:
        return np.any([points_in_polygon(b, p) for b in bands], axis=0)

    return path_exits(segments, inside, np.concatenate([polygon_lines(b) for b in bands]))


# ---------------------------------------------------------------------------------------------
# Zone data
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Zone:
    """A named zone: a union of polygons, or a set of line segments.

    Attributes:
        name: key in the YAML (``great_triangle_0``, ``strip_top``, ...).
        label: text for pictures.
        polygons: counter-clockwise polygons, each ``(V, 2)`` [m] (empty for a line zone).
        segments: line segments ``(S, 2, 2)`` [m] (stroke lines, vlieglijn).
        goal: goal index the zone belongs to, or None.
        cushion: index into ``table.cushions`` of the long cushion of a strip, or None.
    """

    name: str
    label: str
    polygons: tuple[np.ndarray, ...] = ()
    segments: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, 2)))
    goal: int | None = None
    cushion: int | None = None

    def contains(self, points: Any, eps: float = 0.0) -> np.ndarray:
        """Membership of points ``(..., 2)``; ``eps`` is the signed offset of the module doc.

        For a line zone a point is "in" it when within ``max(eps, 1e-12)`` of a segment.
        """
        pts = as_points(points)
        if self.polygons:
            out = np.zeros(pts.shape[:-1], dtype=bool)
            for poly in self.offset(eps):
                out |= points_in_polygon(poly, pts)
            return out
        return dist_to_edges(pts, self.segments) <= max(eps, _BOUNDARY_TOL)

    def offset(self, eps: float) -> tuple[np.ndarray, ...]:
        """The zone's polygons offset by ``eps`` (cached)."""
        cache = self.__dict__.setdefault("_offsets", {})
        if eps not in cache:
            cache[eps] = tuple(offset_polygon(p, eps) for p in self.polygons)
        return cache[eps]

    @property
    def edges(self) -> np.ndarray:
        """All boundary edges ``(E, 2, 2)`` (or the segments of a line zone)."""
        if not self.polygons:
            return self.segments
        return np.concatenate([polygon_edges(p) for p in self.polygons])


@dataclass(frozen=True, eq=False)
class Kader:
    """One kader of G-24 (or a G-23 merged kader): an id, a name and a polygon ``(V, 2)``."""

    id: int
    name: str
    polygon: np.ndarray


@dataclass(frozen=True, eq=False)
class ZoneSet:
    """All golfbillard zones, loaded from ``configs/zones/<name>.yaml`` (:func:`load_zones`).

    Attributes:
        name: file stem.
        eps_line: ``epsilon_line`` [m]: a ball within this of a line is on it.
        zones: named zones (see the YAML).
        kaders: the 15 kaders of G-24, by id 1..15.
        merges: G-23 per shooter's attack goal g: the merged kader and the ids it replaces.
        penalty_spots: (2, 5, 2) spots 1..5 (index 0..4) for an offender of side 0 / side 1 [m].
        goal_caps: (2, 2) indices into ``table.circles`` of the caps flanking goal g.
        front_caps: (2,) the G-13 front cap for attack goal g.
        outer_side_caps: (2,) the G-13 outer side caps.
    """

    name: str
    eps_line: float
    zones: dict[str, Zone]
    kaders: tuple[Kader, ...]
    merges: dict[int, tuple[Kader, tuple[int, ...]]]
    penalty_spots: np.ndarray
    goal_caps: np.ndarray
    front_caps: np.ndarray
    outer_side_caps: np.ndarray

    def zone(self, name: str) -> Zone:
        """The zone called ``name``; ValueError naming it when unknown."""
        try:
            return self.zones[name]
        except KeyError:
            raise ValueError(f"unknown zone {name!r}; known: {sorted(self.zones)}") from None

    def in_zone(self, name: str, points: Any, eps: float = 0.0) -> np.ndarray:
        """Membership of points ``(..., 2)`` in zone ``name`` offset by ``eps`` [m]."""
        return self.zone(name).contains(points, eps)

    def zone_of(self, points: Any, names: Sequence[str] | None = None,
                eps: float = 0.0) -> np.ndarray:
        """Index into ``names`` of the first zone containing each point, -1 for none.

        Args:
            points: (..., 2) [m].
            names: zone names in priority order (default: every polygon zone, YAML order).
            eps: signed offset [m].

        Returns:
            int array of shape ``points.shape[:-1]``.
        """
        pts = as_points(points)
        if names is None:
            names = [n for n, z in self.zones.items() if z.polygons]
        out = np.full(pts.shape[:-1], -1, dtype=np.int64)
        for k, name in enumerate(names):
            hit = (out < 0) & self.in_zone(name, pts, eps)
            out[hit] = k
        return out

    def kader_set(self, merged_goal: int | None = None) -> tuple[Kader, ...]:
        """The kaders as seen by a ball: all 15, or with the G-23 merge at ``merged_goal``."""
        if merged_goal is None:
            return self.kaders
        if merged_goal not in self.merges:
            raise ValueError(f"merged_goal must be 0, 1 or None, got {merged_goal!r}")
        merged, replaced = self.merges[merged_goal]
        return tuple(k for k in self.kaders if k.id not in replaced) + (merged,)

    def _cached(self, key: tuple, make: Callable[[], Any]) -> Any:
        cache = self.__dict__.setdefault("_cache", {})
        if key not in cache:
            cache[key] = make()
        return cache[key]

    def kader_of(self, points: Any, merged_goal: int | None = None,
                 eps: float = 0.0) -> np.ndarray:
        """Kader id (1..15, 16/17 for the G-23 merged kaders) of each point, 0 for none.

        Points on a shared line get the first kader (by id) whose offset polygon holds them;
        use :meth:`on_kader_line` to tell them apart.
        """
        pts = as_points(points)
        polys = self._cached(("kader_offsets", merged_goal, eps), lambda: [
            (k.id, offset_polygon(k.polygon, eps))
            for k in sorted(self.kader_set(merged_goal), key=lambda k: k.id)])
        out = np.zeros(pts.shape[:-1], dtype=np.int64)
        for kid, poly in polys:
            free = out == 0
            if not free.any():
                break
            out[free & points_in_polygon(poly, pts)] = kid
        return out

    def kader_edges(self, merged_goal: int | None = None) -> np.ndarray:
        """Every kader boundary edge ``(E, 2, 2)`` of that view (shared edges appear twice)."""
        return self._cached(("kader_edges", merged_goal), lambda: np.concatenate(
            [polygon_edges(k.polygon) for k in self.kader_set(merged_goal)]))

    def on_kader_line(self, points: Any, merged_goal: int | None = None) -> np.ndarray:
        """True where a point lies within ``eps_line`` of a kader line (G-21)."""
        return dist_to_edges(as_points(points), self.kader_edges(merged_goal)) <= self.eps_line

    def kader(self, kid: int) -> Kader:
        """The kader with id ``kid`` (1..17)."""
        for k in self.kaders + tuple(m for m, _ in self.merges.values()):
            if k.id == kid:
                return k
        raise ValueError(f"unknown kader id {kid!r}")


def _int(value: Any, what: str) -> int:
    """``value`` as an int (a YAML integer or an integer-valued string key such as ``'1'``)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ConfigError(f"{what} must be an integer, got {value!r}")
    try:
        return int(value)
    except ValueError:
        raise ConfigError(f"{what} must be an integer, got {value!r}") from None


def _kader(entry: Any, where: str) -> Kader:
    entry = config_mapping(where, entry, ("id", "name", "polygon"), ("replaces",))
    return Kader(_int(entry["id"], f"{where}.id"), str(entry["name"]),
                 _polygon_array(entry["polygon"], f"{where} {entry['name']}"))


def _zone(zname: str, z: Any) -> Zone:
    """One named zone: ``polygons`` or ``segments`` [m], its ``goal`` (0, 1) and ``cushion``."""
    z = config_mapping(f"zone {zname}", z, (), ("label", "goal", "cushion", "polygons",
                                                 "segments"))
    polys = tuple(_polygon_array(p, f"zone {zname}")
                  for p in config_list(f"zone {zname}.polygons", z.get("polygons") or []))
    segs = [_segment_array(s, f"zone {zname}")
            for s in config_list(f"zone {zname}.segments", z.get("segments") or [])]
    if bool(polys) == bool(segs):
        raise ConfigError(f"zone {zname}: give either polygons or segments")
    goal = z.get("goal")
    if goal is not None and (isinstance(goal, bool) or goal not in (0, 1)):
        raise ConfigError(f"zone {zname}: goal must be 0 or 1, got {goal!r}")
    cushion = z.get("cushion")
    return Zone(name=zname, label=str(z.get("label", zname)), polygons=polys,
                segments=np.array(segs).reshape(-1, 2, 2), goal=goal,
                cushion=None if cushion is None else _int(cushion, f"zone {zname}.cushion"))


def _caps(caps: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(goal caps (2, 2), front caps (2,), outer side caps) as cap indices."""
    want = ("caps must give goal {0: [i, j], 1: [i, j]}, front {0: i, 1: j} and outer_side "
            f"[i, j], got {caps!r}")
    caps = config_mapping("caps", caps, ("goal", "front", "outer_side"))
    try:
        goal_caps = np.array([caps["goal"][0], caps["goal"][1]], dtype=np.int64).reshape(2, 2)
        front = np.array([caps["front"][0], caps["front"][1]], dtype=np.int64)
        outer = np.array(caps["outer_side"], dtype=np.int64).reshape(-1)
    except (KeyError, IndexError, TypeError, ValueError, OverflowError):
        raise ConfigError(want) from None
    return goal_caps, front, outer


def zones_from_dict(data: Any, name: str = "custom") -> ZoneSet:
    """Build a :class:`ZoneSet` from a YAML-style mapping (configs/zones/golfbillard.yaml).
    Unknown keys, missing ones and values of the wrong kind raise ConfigError naming them; a
    ``version`` other than :data:`ZONE_SET_VERSION` (1) is refused (the key may be left out)."""
    data = config_mapping("zone set", data, ("epsilon_line", "penalty_spots", "caps"),
                          ("version", "zones", "kaders", "kader_merges"))
    version = data.get("version", _MISSING)
    if version is not _MISSING and (isinstance(version, bool) or version != ZONE_SET_VERSION):
        raise ConfigError(f"version must be {ZONE_SET_VERSION} (the zone-set format this code "
                          f"reads), got {version!r}")
    eps = finite_number("epsilon_line", data["epsilon_line"])
    if not (0.0 <= eps < 0.01):
        raise ConfigError(f"epsilon_line must be in [0, 0.01) m, got {eps!r}")
    zone_cfg = data.get("zones") or {}
    if not isinstance(zone_cfg, Mapping):
        raise ConfigError(f"zones must be a mapping of named zones, got {zone_cfg!r}")
    zones = {str(zname): _zone(str(zname), z) for zname, z in zone_cfg.items()}
    kaders = tuple(_kader(k, f"kaders[{i}]")
                   for i, k in enumerate(config_list("kaders", data.get("kaders") or [])))
    ids = sorted(k.id for k in kaders)
    if ids != list(range(1, len(kaders) + 1)):
        raise ConfigError(f"kader ids must be 1..N without gaps, got {ids}")
    merges = {}
    merge_cfg = data.get("kader_merges") or {}
    if not isinstance(merge_cfg, Mapping):
        raise ConfigError(f"kader_merges must be a mapping goal -> kader, got {merge_cfg!r}")
    for g, m in merge_cfg.items():
        if _int(g, "kader_merges goal") not in (0, 1):
            raise ConfigError(f"kader_merges: goal must be 0 or 1, got {g!r}")
        kader = _kader(m, f"kader_merges[{g}]")
        rep = tuple(_int(i, f"kader_merges[{g}].replaces")
                    for i in config_list(f"kader_merges[{g}].replaces", m.get("replaces", [])))
        if not set(rep) <= set(ids):
            raise ConfigError(f"kader_merges[{g}]: replaces unknown kader ids {rep}")
        merges[int(g)] = (kader, rep)
    spots_cfg = data["penalty_spots"]
    if not isinstance(spots_cfg, Mapping) or \
            sorted(_int(k, "penalty_spots key") for k in spots_cfg) != [1, 2, 3, 4, 5]:
        raise ConfigError(f"penalty_spots must be spots 1..5, got {spots_cfg!r}")
    side0 = [as_points(spots_cfg[k], f"penalty_spots[{k}]") for k in sorted(spots_cfg, key=int)]
    if any(p.shape != (2,) for p in side0):
        raise ConfigError(f"penalty_spots must each be one point [x, y], got {spots_cfg!r}")
    spots = np.stack([np.array(side0), -np.array(side0)])  # side 1: turned by 180 degrees
    goal_caps, front, outer = _caps(data["caps"])
    return ZoneSet(name=name, eps_line=eps, zones=zones, kaders=kaders, merges=merges,
                   penalty_spots=spots, goal_caps=goal_caps, front_caps=front,
                   outer_side_caps=outer)


@functools.lru_cache(maxsize=8)
def load_zones(name: str = "golfbillard") -> ZoneSet:
    """Load ``configs/zones/<name>.yaml`` (cached; the result is read-only by convention)."""
    path = ZONE_DIR / f"{name}.yaml"
    if name not in ZONE_SET_NAMES or not path.exists():
        raise ValueError(f"unknown zone set {name!r}; known: {list(ZONE_SET_NAMES)}")
    return load_zones_file(path, name)


def load_zones_file(path: str | Path, name: str | None = None) -> ZoneSet:
    """Load a zone set from any YAML file (same format as ``configs/zones/golfbillard.yaml``)."""
    path = Path(path)
    with open(path) as fh:
        data = load_yaml(fh)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return zones_from_dict(data, name or path.stem)


def in_zone(name: str, points: Any, eps: float = 0.0, zones: ZoneSet | None = None) -> np.ndarray:
    """Membership of points ``(..., 2)`` in zone ``name`` of the golfbillard zone set."""
    return (zones or load_zones()).in_zone(name, points, eps)


def zone_of(points: Any, names: Sequence[str] | None = None, eps: float = 0.0,
            zones: ZoneSet | None = None) -> np.ndarray:
    """Index into ``names`` of the first zone holding each point (-1 for none)."""
    return (zones or load_zones()).zone_of(points, names, eps)
