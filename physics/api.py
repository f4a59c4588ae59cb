"""Public batched simulation API: validate in Python, allocate outputs, call the compiled kernel.

Example:
    >>> import numpy as np
    >>> from cuegym.configs import load_table, load_params
    >>> from cuegym.physics import simulate
    >>> table, params = load_table("keglebillard"), load_params("keglebillard")
    >>> xy = np.array([[[-0.8, 0.2], [-0.525, 0.0], [0.525, 0.0]]])       # (T=1, B=3, 2)
    >>> res = simulate(table, params, xy, cue_ball=[0], cue=[[2.0, 0.0, 0.0, 0.0, 0.0]])
    >>> bool(res.overflow[0] == 0)
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numba
import numba as nb
import numpy as np

from ..configs import ConfigError, PhysicsParams, TableSpec
from .constants import (
    BALL_BALL_MODELS,
    CUSHION_MODELS,
    MAX_EVENTS,
    MAX_KISS,
    MAX_SPEED,
    MAX_SPIN,
    MAX_T,
    MAX_TABLES,
    MAX_V0,
    PARAM_RANGES,
)
from .engine import KISS, pack_params, prepare_batch, simulate_batch, simulate_serial
from .parallel import check_threads, run_serially


class PhysicsInputError(ValueError):
    """Bad input to the simulator: the message names the offending value."""


@dataclass(frozen=True)
class Models:
    """Which published model resolves each interaction.

    Attributes:
        ball_ball: ``"frictional_inelastic"`` (Alciatore TP A-5/A-6/A-14, default) or
            ``"frictionless_elastic"``.
        cushion: ``"han_2005"`` (Han 2005 with the cushion contact height, default) or
            ``"mirror"`` (reflection with restitution e_c). Posts and jaws use the same choice.
        squirt: deflect the cue ball by Alciatore's squirt angle (TP A-31). Default off.
    """

    ball_ball: str = "frictional_inelastic"
    cushion: str = "han_2005"
    squirt: bool = False

    def __post_init__(self) -> None:
        if self.ball_ball not in BALL_BALL_MODELS:
            raise ConfigError(f"unknown ball_ball model {self.ball_ball!r}; "
                              f"known: {sorted(BALL_BALL_MODELS)}")
        if self.cushion not in CUSHION_MODELS:
            raise ConfigError(f"unknown cushion model {self.cushion!r}; "
                              f"known: {sorted(CUSHION_MODELS)}")
        if not isinstance(self.squirt, bool | np.bool_):
            raise ConfigError(f"squirt must be true or false, got {self.squirt!r}")

    def codes(self) -> np.ndarray:
        return np.array([BALL_BALL_MODELS[self.ball_ball], CUSHION_MODELS[self.cushion]],
                        dtype=np.int64)


@dataclass
class SimResult:
    """Final state and event log of a batch of T tables (see docs/physics_api.md).

    Arrays have the table axis first: B balls, P pins, K = max_events log slots.
    """

    rvw: np.ndarray  # (T, B, 3, 3) final position, velocity, angular velocity
    motion: np.ndarray  # (T, B) int32 final motion state
    pocket: np.ndarray  # (T, B) int32 pocket index, -1 on the table
    rvw0: np.ndarray  # (T, B, 3, 3) state right after the strike(s), t = 0
    motion0: np.ndarray  # (T, B) int32
    pins_up0: np.ndarray  # (T, P) bool, standing at the start
    pins_up: np.ndarray  # (T, P) bool, standing at the end
    pin_toppler: np.ndarray  # (T, P) int64 bit mask of balls a toppled pin is attributed to
    pin_topple_time: np.ndarray  # (T, P) float64, inf if standing
    pin_fall_dir: np.ndarray  # (T, P, 2)
    ev_type: np.ndarray  # (T, K) int8
    ev_time: np.ndarray  # (T, K) float64
    ev_i: np.ndarray  # (T, K) int32
    ev_j: np.ndarray  # (T, K) int32
    ev_state: np.ndarray  # (T, K, 2, 7)
    ev_motion: np.ndarray  # (T, K, 2) int8
    n_events: np.ndarray  # (T,) int32
    t_end: np.ndarray  # (T,) float64
    overflow: np.ndarray  # (T,) int8: 0 rest, 1 max_events, 2 t_max
    table: TableSpec = field(repr=False)
    params: PhysicsParams = field(repr=False)
    prm: np.ndarray = field(repr=False)

    @property
    def n_tables(self) -> int:
        return self.rvw.shape[0]

    def events(self, t: int) -> list[tuple[str, float, int, int]]:
        """The event log of table t as (type name, time, i, j) tuples (for inspection)."""
        from .constants import EVENT_NAMES

        n = int(self.n_events[t])
        return [(EVENT_NAMES[self.ev_type[t, k]], float(self.ev_time[t, k]),
                 int(self.ev_i[t, k]), int(self.ev_j[t, k])) for k in range(n)]


def _as_array(name: str, value, shape: tuple, dtype=np.float64) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError):
        raise PhysicsInputError(f"{name} must be numeric, got {value!r}") from None
    if arr.shape != shape:
        raise PhysicsInputError(f"{name} must have shape {shape}, got {arr.shape}")
    if dtype == np.float64 and not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise PhysicsInputError(f"{name}{list(bad)} is {arr[tuple(bad)]!r}: values must be "
                                f"finite")
    return arr


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
                ex = lines[k, 2] - lines[k, 0]
                ey = lines[k, 3] - lines[k, 1]
                rx = x - lines[k, 0]
                ry = y - lines[k, 1]
                u = min(1.0, max(0.0, (rx * ex + ry * ey) / (ex * ex + ey * ey)))
                gx = rx - u * ex
                gy = ry - u * ey
                inside = rx * lines[k, 4] + ry * lines[k, 5] > 0.0
                if gx * gx + gy * gy < (R - tol) ** 2 or (not inside and u > 0.0 and u < 1.0):
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


def validate_layout(table: TableSpec, params: PhysicsParams, xy: np.ndarray, present: np.ndarray,
                    pins_up: np.ndarray, names: tuple[str, ...] | None = None,
                    table_names: Sequence[str] | None = None) -> None:
    """Raise :class:`PhysicsInputError` for a ball off the cloth, overlapping another ball, a
    post, a jaw or a standing pin, or inside a pocket's capture circle (compiled check).
    ``names`` label the balls, ``table_names`` the tables in the message (default indices)."""
    R = params.R
    hx, hy = table.length / 2, table.width / 2
    arrs = kernel_arrays(table, params)
    code, t, b, o = _first_layout_violation(xy, present, pins_up, R, hx, hy, arrs["lines"],
                                            arrs["circles"], arrs["pockets"], arrs["pin_spots"],
                                            table.pin_radius)
    if code == 0:
        return
    label = (lambda i: repr(names[i])) if names else (lambda i: f"ball {i}")
    x, y = xy[t, b]
    if code == 1:
        where = "outside the cushions" if o < 0 else f"overlapping cushion {o}"
        msg = (f"{label(b)} at ({x:.4f}, {y:.4f}) is off the cloth ({where}; a ball centre needs "
               f"|x| <= {hx - R:.4f}, |y| <= {hy - R:.4f} m away from the pocket mouths)")
    elif code == 2:
        d = float(np.hypot(*(xy[t, o] - xy[t, b])))
        msg = (f"{label(b)} and {label(o)} overlap (centres {d:.5f} m apart, need >= 2R = "
               f"{2 * R:.5f} m)")
    elif code == 3:
        c = table.circles[o]
        what = "post" if c.kind == 1 else "pocket jaw"
        msg = f"{label(b)} at ({x:.4f}, {y:.4f}) overlaps the {what} at ({c.x:.4f}, {c.y:.4f})"
    elif code == 4:
        p = table.pockets[o]
        msg = f"{label(b)} is inside pocket {o} ({p.name or o}); place it on the cloth"
    else:
        msg = f"{label(b)} at ({x:.4f}, {y:.4f}) overlaps standing pin {o}"
    raise PhysicsInputError(f"{_table_label(t, table_names)}: {msg}")


class Workspace:
    """Reusable event-log buffers for repeated :func:`simulate` calls.

    The arrays of a call (T tables, B balls, P pins, K log slots) are views carved out of one
    byte buffer, kept from call to call and grown when a call needs more: any mix of shapes
    reuses it (a vectorised env calling with the same shapes every step saves the allocation,
    zero-filling and page faults). Only the first ``n_events[t]`` slots of a table's log are
    meaningful; the rest hold zeros or stale values from an earlier call.
    """

    #: Bytes of one event-log slot (type, time, i, j, two 7-float states, two motion codes).
    BYTES_PER_EVENT = 1 + 8 + 4 + 4 + 2 * 7 * 8 + 2

    def __init__(self) -> None:
        self._buf = np.zeros(0, np.uint8)
        self._key: tuple | None = None
        self._arrays: dict[str, np.ndarray] = {}

    @staticmethod
    def layout(T: int, B: int, P: int, K: int) -> list[tuple[str, tuple, type]]:
        """(name, shape, dtype) of the buffers, widest dtype first (keeps every view aligned)."""
        return [("ev_state", (T, K, 2, 7), np.float64), ("ev_time", (T, K), np.float64),
                ("p_time", (T, P), np.float64), ("p_dir", (T, P, 2), np.float64),
                ("t_end", (T,), np.float64), ("p_mask", (T, P), np.int64),
                ("ev_i", (T, K), np.int32), ("ev_j", (T, K), np.int32),
                ("n_events", (T,), np.int32), ("ev_type", (T, K), np.int8),
                ("ev_motion", (T, K, 2), np.int8), ("overflow", (T,), np.int8)]

    @classmethod
    def bytes_needed(cls, T: int, B: int, P: int, K: int) -> int:
        """Bytes of the buffers for one call (each view starts on a 64-byte boundary)."""
        return sum(-(-int(np.prod(shape)) * np.dtype(dt).itemsize // 64) * 64
                   for _, shape, dt in cls.layout(T, B, P, K))

    def arrays(self, T: int, B: int, P: int, K: int) -> dict[str, np.ndarray]:
        key = (T, B, P, K)
        if key == self._key:
            return self._arrays
        need = self.bytes_needed(T, B, P, K)
        if self._buf.nbytes < need:
            self._buf = np.zeros(need, np.uint8)
        out = {}
        off = 0
        for name, shape, dt in self.layout(T, B, P, K):
            n = int(np.prod(shape)) * np.dtype(dt).itemsize
            out[name] = self._buf[off:off + n].view(dt).reshape(shape)
            off += -(-n // 64) * 64
        self._key = key
        self._arrays = out
        return out

    @property
    def nbytes(self) -> int:
        return self._buf.nbytes


def _table_label(t: int, table_names: Sequence[str] | None) -> str:
    return f"table {t}" if table_names is None else str(table_names[t])


def _check_strikes(cue_ball: np.ndarray, cue: np.ndarray, present: np.ndarray,
                   table_names: Sequence[str] | None = None) -> None:
    """Range checks on strikes (vectorised): V0 in [0, 20] m/s, theta in [0, 90] deg,
    a^2 + b^2 <= 1, struck ball present."""
    T, S = cue_ball.shape
    B = present.shape[1]
    bad = (cue_ball >= B) | (cue_ball < -1)
    if bad.any():
        raise PhysicsInputError(f"cue_ball index {cue_ball[bad][0]} out of range for {B} balls")
    used = cue_ball >= 0
    for name, k, lo, hi in (("V0", 0, 0.0, MAX_V0), ("theta", 2, 0.0, 90.0)):
        col = cue[..., k]
        badv = used & ((col < lo) | (col > hi))
        if badv.any():
            t, j = np.argwhere(badv)[0]
            raise PhysicsInputError(f"{_table_label(t, table_names)}: strike {name} = "
                                    f"{col[t, j]!r} out of range [{lo}, {hi}]")
    ab = cue[..., 3] ** 2 + cue[..., 4] ** 2
    badv = used & (ab > 1.0 + 1e-12)
    if badv.any():
        t, j = np.argwhere(badv)[0]
        raise PhysicsInputError(f"{_table_label(t, table_names)}: strike offsets need "
                                f"a^2 + b^2 <= 1, got {ab[t, j]!r}")
    tt, ss = np.nonzero(used)
    gone = ~present[tt, cue_ball[tt, ss]]
    if gone.any():
        k = int(np.argmax(gone))
        raise PhysicsInputError(f"{_table_label(tt[k], table_names)}: struck ball "
                                f"{cue_ball[tt[k], ss[k]]} is not on the table")
    if S > 1:
        for s1 in range(S):
            for s2 in range(s1 + 1, S):
                dup = used[:, s1] & (cue_ball[:, s1] == cue_ball[:, s2])
                if dup.any():
                    t = int(np.argmax(dup))
                    raise PhysicsInputError(f"{_table_label(t, table_names)}: the same ball is "
                                            f"struck twice")


def _check_norm(name: str, vec: np.ndarray, limit: float, unit: str,
                table_names: Sequence[str] | None, ball_names: Sequence[str] | None) -> None:
    """Refuse initial velocities/spins whose magnitude exceeds ``limit`` (per ball)."""
    with np.errstate(over="ignore"):  # 1e200 squared is inf, which is refused below
        norm = np.sqrt(np.sum(vec * vec, axis=-1))
    bad = norm > limit
    if bad.any():
        t, b = np.argwhere(bad)[0]
        ball = f"ball {b}" if ball_names is None else repr(ball_names[b])
        raise PhysicsInputError(f"{_table_label(t, table_names)}: {name} of {ball} has magnitude "
                                f"{norm[t, b]:.6g} {unit}; initial "
                                f"{'speeds' if name == 'v' else 'spins'} must be in [0, {limit}] "
                                f"{unit} (a strike at the V0 limit stays below that)")


_CHECKED: dict = {}


def check_physics(table: TableSpec, params: PhysicsParams, kiss: float = KISS) -> None:
    """Refuse parameters that make the simulation meaningless (ranges in
    ``constants.PARAM_RANGES``), a cushion height outside (0, 2R) and a kiss spacer outside
    [0, MAX_KISS]. Cached by identity: a call with the same table and parameter objects costs
    nothing."""
    key = (id(table), id(params), kiss)
    hit = _CHECKED.get(key)
    if hit is not None and hit[0] is table and hit[1] is params:
        return
    for name, (lo, hi) in PARAM_RANGES.items():
        x = getattr(params, name)
        if not lo <= x <= hi:
            raise PhysicsInputError(f"params.{name} = {x!r} is outside the valid range [{lo}, {hi}]"
                                    f" (outside it the simulation is not meaningful)")
    h, R = table.cushion_height, params.R
    if not 0.0 < h < 2.0 * R:
        raise PhysicsInputError(f"cushion_height = {h!r} m must be in (0, 2R) = (0, {2 * R!r}) m "
                                f"for balls of radius R = {R!r} m (the nose must touch the ball)")
    try:
        k = float(kiss)
    except (TypeError, ValueError):
        raise PhysicsInputError(f"kiss must be a number, got {kiss!r}") from None
    if not 0.0 <= k <= MAX_KISS:
        raise PhysicsInputError(f"kiss = {kiss!r} m must be in [0, {MAX_KISS}] m")
    if len(_CHECKED) > 64:
        _CHECKED.clear()
    _CHECKED[key] = (table, params)


def available_memory() -> int | None:
    """Bytes this process can still allocate: the smaller of MemAvailable and the cgroup's
    (container's) remaining limit; None where neither can be read."""
    out = []
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    out.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            lim = fh.read().strip()
        if lim != "max":
            with open("/sys/fs/cgroup/memory.current") as fh:
                out.append(int(lim) - int(fh.read().strip()))
    except (OSError, ValueError):
        pass
    return min(out) if out else None


#: Calls estimated below this many bytes skip the memory check.
MEMORY_CHECK_FROM = 64 * 2**20
#: Bytes per ball of the per-call state arrays (inputs, packed state, rvw0, rvw, copies).
BYTES_PER_BALL = 48 * 8


def check_memory(T: int, B: int, P: int, K: int, workspace: Workspace | None = None) -> int:
    """Estimate the memory a :func:`simulate` call allocates and refuse a call that would not
    fit in 90 % of the available memory (instead of a MemoryError or an OOM kill).

    Returns:
        The estimate [bytes].
    """
    log = Workspace.bytes_needed(T, B, P, K)
    if workspace is not None and workspace.nbytes >= log:
        log = 0
    need = log + T * (B * BYTES_PER_BALL + P * 64 + 64)
    if need < MEMORY_CHECK_FROM:
        return need  # reading the memory figures would cost more than a small call
    avail = available_memory()
    if avail is not None and need > 0.9 * avail:
        raise PhysicsInputError(
            f"this call needs about {need / 2**30:.2f} GiB ({T} tables x max_events {K} x "
            f"{Workspace.BYTES_PER_EVENT} B of event log, plus ball states) but only "
            f"{avail / 2**30:.2f} GiB is available: lower max_events or split the batch")
    return need


def _layout_arrays(table: TableSpec, xy, present, pins_up
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`simulate`'s ``xy`` (T, B, 2), ``present`` (T, B) and ``pins_up`` (T, P) checked
    for shape and type (defaults: every ball present, every pin standing)."""
    xy = np.asarray(xy, dtype=np.float64)
    if xy.ndim != 3 or xy.shape[2] != 2:
        raise PhysicsInputError(f"xy must have shape (T, B, 2), got {xy.shape}")
    T, B, _ = xy.shape
    if B > 62:
        raise PhysicsInputError(f"at most 62 balls per table, got {B}")
    if T > MAX_TABLES:
        raise PhysicsInputError(f"at most {MAX_TABLES} tables per call, got {T}")
    xy = _as_array("xy", xy, (T, B, 2))
    P = len(table.pin_spots)
    present = (np.ones((T, B), bool) if present is None
               else _as_array("present", present, (T, B), bool))
    pins = (np.ones((T, P), bool) if pins_up is None
            else _as_array("pins_up", pins_up, (T, P), bool))
    return xy, present, pins


def _run_limits(max_events, t_max, threads) -> tuple[int, float, int]:
    """:func:`simulate`'s log size, time limit [s] and thread count, checked
    (``threads=None``: numba's setting)."""
    if (not isinstance(max_events, int | np.integer) or isinstance(max_events, bool)
            or not 1 <= max_events <= MAX_EVENTS):
        raise PhysicsInputError(f"max_events must be an integer in [1, {MAX_EVENTS}], got "
                                f"{max_events!r}")
    try:
        t_max = float(t_max)
    except (TypeError, ValueError):
        raise PhysicsInputError(f"t_max must be a number, got {t_max!r}") from None
    if not (0 < t_max <= MAX_T):
        raise PhysicsInputError(f"t_max must be in (0, {MAX_T}] s, got {t_max!r}")
    try:
        n_threads = check_threads(threads)
    except ValueError as exc:
        raise PhysicsInputError(str(exc)) from None
    return int(max_events), t_max, numba.get_num_threads() if n_threads is None else n_threads


def _initial_motion(v, w, T: int, B: int, ball_names, table_names) -> np.ndarray:
    """(T, B, 5) vx, vy [m/s], wx, wy, wz [rad/s] before the strikes: the given ``v`` (T, B, 2)
    and ``w`` (T, B, 3), checked against the speed and spin limits, else zero."""
    vw = np.zeros((T, B, 5))
    if v is not None:
        vw[..., 0:2] = _as_array("v", v, (T, B, 2))
        _check_norm("v", vw[..., 0:2], MAX_SPEED, "m/s", table_names, ball_names)
    if w is not None:
        vw[..., 2:5] = _as_array("w", w, (T, B, 3))
        _check_norm("w", vw[..., 2:5], MAX_SPIN, "rad/s", table_names, ball_names)
    return vw


def _strike_arrays(cue_ball, cue, present: np.ndarray, table_names
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The strikes as (T, S) struck balls (-1: none) and (T, S, 5) V0, phi, theta, a, b,
    checked (:func:`_check_strikes`); no ``cue_ball``: one empty slot per table."""
    T = present.shape[0]
    if cue_ball is None:
        return np.full((T, 1), -1, np.int64), np.zeros((T, 1, 5))
    cb = np.asarray(cue_ball)
    if cb.ndim == 1:
        cb = cb[:, None]
    cb = _as_array("cue_ball", cb, (T, cb.shape[1] if cb.ndim == 2 else -1), np.int64)
    if cue is None:
        raise PhysicsInputError("cue_ball given without cue parameters")
    cue_arr = np.asarray(cue, dtype=np.float64)
    if cue_arr.ndim == 2:
        cue_arr = cue_arr[:, None, :]
    cue_arr = _as_array("cue", cue_arr, (T, cb.shape[1], 5))
    _check_strikes(cb, cue_arr, present, table_names)
    return cb, cue_arr


def simulate(table: TableSpec, params: PhysicsParams, xy, *, cue_ball=None, cue=None, v=None,
             w=None, present=None, pins_up=None, models: Models | None = None,
             max_events: int = 1000, t_max: float = 60.0, threads: int | None = None,
             ball_names: tuple[str, ...] | None = None, kiss: float = KISS,
             validate: bool = True, workspace: Workspace | None = None,
             table_names: Sequence[str] | None = None) -> SimResult:
    """Simulate T tables at once, each with its own balls, pins and strike(s).

    Args:
        table, params: geometry and physical parameters (shared by the batch).
        xy: (T, B, 2) ball centres [m].
        cue_ball: (T,) or (T, S) struck ball index per table (-1: no strike in that slot).
        cue: (T, 5) or (T, S, 5) strike V0 [m/s], phi [deg], theta [deg], a, b.
        v: optional (T, B, 2) initial velocities [m/s]; w: optional (T, B, 3) spins [rad/s].
            Applied before the strikes; a struck ball's v, w come from the strike.
        present: (T, B) bool; absent balls (pocketed earlier) take no part. Default all.
        pins_up: (T, P) bool standing pins (P = len(table.pin_spots)). Default all standing.
        models: collision models (default :class:`Models`).
        max_events: log size K; a table whose log fills up stops with overflow = 1.
        t_max: simulated time limit [s]; reaching it stops the table with overflow = 2.
        threads: numba threads for the ``prange`` over tables (default: numba's setting).
        ball_names, table_names: labels of the balls and tables in error messages (default:
            their indices).
        validate: check the layout (overlaps, off-cloth, pockets); leave on unless the caller
            already validated.
        workspace: a :class:`Workspace` whose log buffers are reused from call to call (a
            vectorised env calling with the same T, B, K every step saves the allocation and
            page faults). The returned log arrays are then views into it, valid until the next
            call with the same workspace.

    Returns:
        :class:`SimResult`.
    """
    models = models or Models()
    xy, present, pins = _layout_arrays(table, xy, present, pins_up)
    T, B, _ = xy.shape
    P = pins.shape[1]
    K, t_max, n_threads = _run_limits(max_events, t_max, threads)
    check_physics(table, params, kiss)
    if validate:
        validate_layout(table, params, xy, present, pins, ball_names, table_names)
    vw = _initial_motion(v, w, T, B, ball_names, table_names)
    cb, cue_arr = _strike_arrays(cue_ball, cue, present, table_names)
    prm = pack_params(params, table.cushion_height, table.pin_radius, table.pin_height, kiss)
    st = np.zeros((T, B, 7))
    st[..., 0:2] = xy
    st[..., 2:7] = vw
    mo = np.empty((T, B), np.int32)
    prepare_batch(st, mo, present, cb, cue_arr, 1.0 if models.squirt else 0.0, prm)
    rvw0 = _to_rvw(st, params.R)
    motion0 = mo.copy()
    pins0 = pins.copy()
    pk = np.full((T, B), -1, np.int32)
    arrs = kernel_arrays(table, params)
    if workspace is None:
        workspace = Workspace()
    check_memory(T, B, P, K, workspace)
    log = workspace.arrays(T, B, P, K)
    p_mask, p_time, p_dir = log["p_mask"], log["p_time"], log["p_dir"]
    ev_type, ev_time, ev_i, ev_j = log["ev_type"], log["ev_time"], log["ev_i"], log["ev_j"]
    ev_state, ev_motion = log["ev_state"], log["ev_motion"]
    n_events, t_end, overflow = log["n_events"], log["t_end"], log["overflow"]
    up = pins.astype(np.bool_)
    args = (st, mo, pk, up, arrs["lines"], arrs["circles"], arrs["circle_kind"], arrs["pockets"],
            arrs["pin_spots"], prm, models.codes(), t_max, p_mask, p_time, p_dir, ev_type,
            ev_time, ev_i, ev_j, ev_state, ev_motion, n_events, t_end, overflow)
    if run_serially(T, n_threads):
        simulate_serial(*args)
    else:
        old = numba.get_num_threads()
        numba.set_num_threads(min(n_threads, numba.config.NUMBA_NUM_THREADS))
        try:
            simulate_batch(*args, 8 * numba.get_num_threads())
        finally:
            numba.set_num_threads(old)
    return SimResult(rvw=_to_rvw(st, params.R), motion=mo, pocket=pk, rvw0=rvw0, motion0=motion0,
                     pins_up0=pins0, pins_up=up, pin_toppler=p_mask, pin_topple_time=p_time,
                     pin_fall_dir=p_dir, ev_type=ev_type, ev_time=ev_time, ev_i=ev_i, ev_j=ev_j,
                     ev_state=ev_state, ev_motion=ev_motion, n_events=n_events, t_end=t_end,
                     overflow=overflow, table=table, params=params, prm=prm)


def _to_rvw(st: np.ndarray, R: float) -> np.ndarray:
    T, B, _ = st.shape
    rvw = np.zeros((T, B, 3, 3))
    rvw[..., 0, 0:2] = st[..., 0:2]
    rvw[..., 0, 2] = R
    rvw[..., 1, 0:2] = st[..., 2:4]
    rvw[..., 2, :] = st[..., 4:7]
    return rvw
