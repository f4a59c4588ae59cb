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

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from ..configs import (
    CIRCLE_JAW,
    CIRCLE_POST,
    MAX_TABLE_SIDE,
    ConfigError,
    PhysicsParams,
    TableSpec,
    reach_problem,
    short_repr,
)
from .checks import (
    PhysicsInputError,
    as_array,
    check_bool,
    check_index,
    check_motion0,
    check_norm,
    check_strikes,
    convert,
    cue_ball_array,
    flag_array,
    is_real,
    motion0_array,
    real_array,
)
from .constants import (
    BALL_BALL_MODELS,
    CUSHION_MODELS,
    MAX_EVENTS,
    MAX_KISS,
    MAX_SPEED,
    MAX_T,
    MAX_TABLES,
    PARAM_RANGES,
    TOUCHING_MODELS,
    spin_limit,
)
from .engine import KISS, pack_params, prepare_batch, simulate_batch, simulate_serial
from .layout import kernel_arrays, validate_layout
from .parallel import check_threads, pool_turn


@dataclass(frozen=True)
class Models:
    """Which published model resolves each interaction.

    Attributes:
        ball_ball: ``"frictional_inelastic"`` (Alciatore TP A-5/A-6/A-14, default) or
            ``"frictionless_elastic"``.
        cushion: ``"han_2005"`` (Han 2005 with the cushion contact height, default) or
            ``"mirror"`` (reflection with restitution e_c). Posts and jaws use the same choice.
        squirt: deflect the cue ball by Alciatore's squirt angle (TP A-31). Default off.
        touching: two balls left moving together by their collision (headings within about
            26 degrees, separating slower than 0.01 m/s) are separated as ``"pooltool"`` 0.6
            does it (default: the chased ball takes 10 % of the chaser's speed along the line
            of centres, so balls in a line, a Newton's cradle, end where pooltool's do; its
            pairs can collide again and again until ``max_events``, and which ball is the
            chaser depends on the balls' order) or ``"bounded"`` (pushed apart to 0.01 m/s,
            adding at most about 5 microjoules, the same for any order of the balls: the
            games' choice, :data:`GAME_MODELS`); docs/physics.md section 7.
    """

    ball_ball: str = "frictional_inelastic"
    cushion: str = "han_2005"
    squirt: bool = False
    touching: str = "pooltool"

    def __post_init__(self) -> None:
        # a name must be a string before the dict lookup (a list raised "unhashable type")
        if not isinstance(self.ball_ball, str) or self.ball_ball not in BALL_BALL_MODELS:
            raise ConfigError(f"unknown ball_ball model {self.ball_ball!r}; "
                              f"known: {sorted(BALL_BALL_MODELS)}")
        if not isinstance(self.cushion, str) or self.cushion not in CUSHION_MODELS:
            raise ConfigError(f"unknown cushion model {self.cushion!r}; "
                              f"known: {sorted(CUSHION_MODELS)}")
        if not isinstance(self.squirt, bool | np.bool_):
            raise ConfigError(f"squirt must be true or false, got {self.squirt!r}")
        if not isinstance(self.touching, str) or self.touching not in TOUCHING_MODELS:
            raise ConfigError(f"unknown touching model {self.touching!r}; "
                              f"known: {sorted(TOUCHING_MODELS)}")

    def codes(self) -> np.ndarray:
        return np.array([BALL_BALL_MODELS[self.ball_ball], CUSHION_MODELS[self.cushion],
                         TOUCHING_MODELS[self.touching]], dtype=np.int64)


_DEFAULT_MODELS = Models()
#: The models both games play with (the game layer, the envs, the referees' shot input): the
#: ``bounded`` touching rule, because pooltool's depends on the balls' order, and a table turned
#: with its sides swapped (golfbillard's colours) must play the same shot the same way.
GAME_MODELS = Models(touching="bounded")


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

        t = check_index("t", t, self.n_tables, "tables")
        n = int(self.n_events[t])
        return [(EVENT_NAMES[self.ev_type[t, k]], float(self.ev_time[t, k]),
                 int(self.ev_i[t, k]), int(self.ev_j[t, k])) for k in range(n)]


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

    @staticmethod
    @functools.lru_cache(maxsize=256)
    def bytes_needed(T: int, B: int, P: int, K: int) -> int:
        """Bytes of the buffers for one call (each view starts on a 64-byte boundary; cached:
        every call asks, and summing the layout costs as much as a small simulation)."""
        return sum(-(-math.prod(shape) * np.dtype(dt).itemsize // 64) * 64
                   for _, shape, dt in Workspace.layout(T, B, P, K))

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


_CHECKED: dict = {}


def _bad_number(x, lo: float = -math.inf, positive: bool = False, hi: float = math.inf) -> bool:
    """True unless ``x`` is a finite real number in [lo, hi] (> 0 with ``positive``)."""
    if not is_real(x):
        return True
    x = float(x)
    return not (math.isfinite(x) and lo <= x <= hi and (x > 0.0 or not positive))


def table_problem(table: TableSpec) -> str | None:
    """The first thing wrong with a table's geometry, or None.

    The config readers (``load_table``, ``custom_table``) check every number, but a
    :class:`~cuegym.configs.TableSpec` built directly (or by ``dataclasses.replace``) is not
    checked there, and the layout check and the kernels trust it: a NaN table length passed
    every ball as on the cloth, a NaN cushion end let a ball leave the table (it came to rest
    145 m away), a NaN pin radius made the pins ghosts. Refused: non-finite numbers anywhere;
    sides outside (0, MAX_TABLE_SIDE] m; pin radius, base radius or height <= 0; a cushion of
    zero length or whose normal is not a unit vector; a jaw/post radius < 0 or a kind other
    than jaw (0) or post (1); a pocket radius <= 0.
    """
    for name in ("length", "width"):
        x = getattr(table, name)
        if _bad_number(x, positive=True, hi=MAX_TABLE_SIDE):
            return f"table.{name} = {short_repr(x)} m must be in (0, {MAX_TABLE_SIDE}] m"
    for name in ("pin_radius", "pin_base_radius", "pin_height"):
        x = getattr(table, name)
        if _bad_number(x, positive=True):
            return f"table.{name} = {short_repr(x)} m must be > 0 and finite"
    for k, c in enumerate(table.cushions):
        values = (c.x1, c.y1, c.x2, c.y2, c.nx, c.ny)
        if any(map(_bad_number, values)):
            return (f"table.cushions[{k}] = {short_repr(values)}: every coordinate must be a "
                    f"finite number")
        if (c.x2 - c.x1) ** 2 + (c.y2 - c.y1) ** 2 == 0.0:
            return f"table.cushions[{k}] has zero length (both ends at ({c.x1}, {c.y1}))"
        if abs(math.hypot(c.nx, c.ny) - 1.0) > 1e-6:
            return (f"table.cushions[{k}] normal ({c.nx}, {c.ny}) must be a unit vector into "
                    f"the playing area")
    for k, c in enumerate(table.circles):
        if _bad_number(c.x) or _bad_number(c.y) or _bad_number(c.radius, lo=0.0):
            return (f"table.circles[{k}] at ({short_repr(c.x)}, {short_repr(c.y)}) with radius "
                    f"{short_repr(c.radius)} m: coordinates must be finite, the radius >= 0")
        if isinstance(c.kind, bool) or c.kind not in (CIRCLE_JAW, CIRCLE_POST):
            return (f"table.circles[{k}].kind = {short_repr(c.kind)} must be {CIRCLE_JAW} "
                    f"(jaw) or {CIRCLE_POST} (post)")
    for k, p in enumerate(table.pockets):
        if _bad_number(p.x) or _bad_number(p.y) or _bad_number(p.radius, positive=True):
            return (f"table.pockets[{k}] at ({short_repr(p.x)}, {short_repr(p.y)}) with radius "
                    f"{short_repr(p.radius)} m: coordinates must be finite, the radius > 0")
    for k, spot in enumerate(table.pin_spots):
        if np.shape(spot) != (2,) or any(map(_bad_number, spot)):
            return f"table.pin_spots[{k}] = {short_repr(spot)} must be a finite (x, y) [m]"
    return None


def check_physics(table: TableSpec, params: PhysicsParams, kiss: float = KISS) -> None:
    """Refuse parameters that make the simulation meaningless (ranges in
    ``constants.PARAM_RANGES``), a table geometry with non-finite or impossible numbers
    (:func:`table_problem`), a cushion height outside (0, 2R), a pocket or post no ball of
    radius R could reach on a table with uncut cushions (:func:`~cuegym.configs.reach_problem`)
    and a kiss spacer outside [0, MAX_KISS]. Cached by identity: a call with the same table and
    parameter objects costs nothing."""
    if not is_real(kiss):  # before the cache: False == 0 and "x" are no spacer
        raise PhysicsInputError(f"kiss must be a number, got {short_repr(kiss)}")
    key = (id(table), id(params), kiss)
    hit = _CHECKED.get(key)
    if hit is not None and hit[0] is table and hit[1] is params:
        return
    for name, (lo, hi) in PARAM_RANGES.items():
        x = getattr(params, name)
        if not lo <= x <= hi:
            raise PhysicsInputError(f"params.{name} = {short_repr(x)} is outside the valid range "
                                    f"[{lo}, {hi}] (outside it the simulation is not meaningful)")
    problem = table_problem(table)
    if problem is not None:
        raise PhysicsInputError(problem)
    h, R = table.cushion_height, params.R
    if not 0.0 < h < 2.0 * R:
        raise PhysicsInputError(f"cushion_height = {short_repr(h)} m must be in (0, 2R) = "
                                f"(0, {short_repr(2 * R)}) m for balls of radius R = "
                                f"{short_repr(R)} m (the nose must touch the ball)")
    problem = reach_problem(table, R)
    if problem is not None:
        raise PhysicsInputError(problem)
    k = float(kiss)
    if not 0.0 <= k <= MAX_KISS:
        raise PhysicsInputError(f"kiss = {short_repr(kiss)} m must be in [0, {MAX_KISS}] m")
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


def _layout_arrays(table: TableSpec, xy, present, pins_up, K: int,
                   workspace: Workspace | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`simulate`'s ``xy`` (T, B, 2), ``present`` (T, B) and ``pins_up`` (T, P) checked
    for shape and type (defaults: every ball present, every pin standing), and the call's
    memory (:func:`check_memory`, ``K`` log slots) checked as soon as T and B are known."""
    what = "a (T, B, 2) array of real numbers"
    xy = xy if isinstance(xy, np.ndarray) else convert("xy", xy, what)
    if xy.dtype.kind not in "fiuO":
        real_array("xy", xy, what)  # raises, naming the dtype
    if xy.ndim != 3 or xy.shape[2] != 2:
        raise PhysicsInputError(f"xy must have shape (T, B, 2), got {xy.shape}")
    T, B, _ = xy.shape
    if B > 62:
        raise PhysicsInputError(f"at most 62 balls per table, got {B}")
    if T > MAX_TABLES:
        raise PhysicsInputError(f"at most {MAX_TABLES} tables per call, got {T}")
    P = len(table.pin_spots)
    # Before anything of size T x B is made: a broadcast xy (np.broadcast_to) costs nothing,
    # but its float64 copy, finiteness mask and the default flags would (1 GiB and more for a
    # call that is then refused).
    check_memory(T, B, P, K, workspace)
    xy = as_array("xy", xy, (T, B, 2))
    present = (np.ones((T, B), bool) if present is None
               else flag_array("present", present, (T, B), "(T, B)"))
    pins = (np.ones((T, P), bool) if pins_up is None
            else flag_array("pins_up", pins_up, (T, P), "(T, P)"))
    return xy, present, pins


def _run_limits(max_events, t_max, threads) -> tuple[int, float, int]:
    """:func:`simulate`'s log size, time limit [s] and thread count, checked
    (``threads=None``: numba's setting)."""
    if (not isinstance(max_events, int | np.integer) or isinstance(max_events, bool)
            or not 1 <= max_events <= MAX_EVENTS):
        raise PhysicsInputError(f"max_events must be an integer in [1, {MAX_EVENTS}], got "
                                f"{short_repr(max_events)}")
    if not is_real(t_max):
        raise PhysicsInputError(f"t_max must be a number, got {short_repr(t_max)}")
    try:
        t_max = float(t_max)
    except OverflowError:  # an integer too large for a float
        t_max = float("inf")
    if not (0 < t_max <= MAX_T):
        raise PhysicsInputError(f"t_max must be in (0, {MAX_T}] s, got {short_repr(t_max)}")
    try:
        n_threads = check_threads(threads)
    except ValueError as exc:
        raise PhysicsInputError(str(exc)) from None
    return int(max_events), t_max, numba.get_num_threads() if n_threads is None else n_threads


def check_run_settings(max_events: Any = 1000, t_max: Any = 60.0, threads: Any = None,
                       workspace: Any = None, validate: Any = True) -> None:
    """Raise :class:`PhysicsInputError` for a ``simulate`` setting it would refuse: the game
    layer asks before it draws a shot's noise, so that a corrected retry draws the same."""
    _run_limits(max_events, t_max, threads)
    _check_type("workspace", workspace, Workspace)
    check_bool("validate", validate)


def _initial_motion(v, w, T: int, B: int, R: float, ball_names, table_names) -> np.ndarray:
    """(T, B, 5) vx, vy [m/s], wx, wy, wz [rad/s] before the strikes: the given ``v`` (T, B, 2)
    and ``w`` (T, B, 3), checked against the speed and spin limits (balls of radius ``R``
    [m]), else zero."""
    vw = np.zeros((T, B, 5))
    if v is not None:
        vw[..., 0:2] = as_array("v", v, (T, B, 2), "(T, B, 2)")
        check_norm("v", vw[..., 0:2], MAX_SPEED, "m/s", table_names, ball_names)
    if w is not None:
        vw[..., 2:5] = as_array("w", w, (T, B, 3), "(T, B, 3)")
        check_norm("w", vw[..., 2:5], spin_limit(R), "rad/s", table_names, ball_names)
    return vw


#: ``prepare_batch``'s "no start state given" (a (0, 0) array: nothing to allocate per call).
_NO_MOTION0 = np.full((0, 0), -1, np.int32)


def _strike_arrays(cue_ball, cue, present: np.ndarray, table_names, ball_names=None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The strikes as (T, S) struck balls (-1: none) and (T, S, 5) V0, phi, theta, a, b,
    checked (:func:`check_strikes`); no ``cue_ball``: one empty slot per table."""
    T, B = present.shape
    if cue_ball is None:
        if cue is not None:
            raise PhysicsInputError("cue given without cue_ball: pass the struck ball of each "
                                    "table as cue_ball (the strike would be ignored)")
        return np.full((T, 1), -1, np.int64), np.zeros((T, 1, 5))
    cb = cue_ball_array(cue_ball, T, B)
    if cue is None:
        raise PhysicsInputError("cue_ball given without cue parameters")
    S = cb.shape[1]
    what = "a (T, 5) or (T, S, 5) array of real numbers"
    cue_arr = cue if isinstance(cue, np.ndarray) else convert("cue", cue, what)
    cue_arr = real_array("cue", cue_arr, what)
    if cue_arr.ndim == 2:
        cue_arr = cue_arr[:, None, :]
    cue_arr = as_array("cue", cue_arr, (T, S, 5), "(T, 5) or (T, S, 5)")
    check_strikes(cb, cue_arr, present, table_names, ball_names)
    return cb, cue_arr


_TYPE_HINTS = {"table": "TableSpec (use cuegym.configs.load_table(name))",
               "params": "PhysicsParams (use cuegym.configs.load_params(game))",
               "models": "Models or None (use cuegym.physics.Models(...))",
               "workspace": "Workspace or None (use cuegym.physics.api.Workspace())"}


def _check_objects(table, params, models, workspace=None) -> Models:
    """Refuse a table, params, models or workspace of the wrong type before any of them is
    used (models and workspace None: the default, none; a falsy non-Models such as 0 is
    refused too)."""
    for name, value, cls in (("table", table, TableSpec), ("params", params, PhysicsParams),
                             ("models", models, Models), ("workspace", workspace, Workspace)):
        _check_type(name, value, cls)
    return _DEFAULT_MODELS if models is None else models


def _check_type(name: str, value: Any, cls: type) -> None:
    """``value`` must be a ``cls`` (None too for ``models`` and ``workspace``: the default,
    none)."""
    if not isinstance(value, cls) and not (name in ("models", "workspace") and value is None):
        raise PhysicsInputError(f"{name} must be a {_TYPE_HINTS[name]}, got "
                                f"{type(value).__name__} {short_repr(value)}")


def _check_labels(ball_names, table_names, pin_names, B: int, T: int, P: int) -> None:
    """Refuse label lists (for messages) whose length is not the number of balls, tables or
    pins: a wrong length would otherwise fail while another error is being reported."""
    for name, labels, n, what in (("ball_names", ball_names, B, "balls"),
                                  ("table_names", table_names, T, "tables"),
                                  ("pin_names", pin_names, P, "pins")):
        if labels is None:
            continue
        try:
            size = len(labels)
        except TypeError:
            raise PhysicsInputError(f"{name} must be a sequence of {n} names, got "
                                    f"{short_repr(labels)}") from None
        if size != n or isinstance(labels, str):
            raise PhysicsInputError(f"{name} must name the {n} {what} of the call, got "
                                    f"{size} names: {short_repr(labels)}")


def simulate(table: TableSpec, params: PhysicsParams, xy, *, cue_ball=None, cue=None, v=None,
             w=None, motion0=None, present=None, pins_up=None, models: Models | None = None,
             max_events: int = 1000, t_max: float = 60.0, threads: int | None = None,
             ball_names: tuple[str, ...] | None = None, kiss: float = KISS,
             validate: bool = True, workspace: Workspace | None = None,
             table_names: Sequence[str] | None = None,
             pin_names: Sequence[str] | None = None) -> SimResult:
    """Simulate T tables at once, each with its own balls, pins and strike(s).

    Args:
        table, params: geometry and physical parameters (shared by the batch).
        xy: (T, B, 2) ball centres [m].
        cue_ball: (T,) or (T, S) struck ball index per table (-1: no strike in that slot).
        cue: (T, 5) or (T, S, 5) strike V0 [m/s], phi [deg], theta [deg], a, b.
        v: optional (T, B, 2) initial velocities [m/s]; w: optional (T, B, 3) spins [rad/s].
            Applied before the strikes; a struck ball's v, w come from the strike.
        motion0: optional (T, B) integer start states of the balls (constants.py codes):
            -1 the default (a moving ball starts sliding, one that only spins spinning),
            0 stationary, 1 spinning, 2 sliding, 3 rolling (starts rolling: no sliding ->
            rolling transition at t = 0). A given state must agree with the ball's v and w
            (``checks.motion_problem``; rolling: slip |v + R z x w| <= ``ROLLING_SLIP_TOL``,
            1e-9 m/s, after which w_xy is set from v); a struck or absent ball takes none.
        present: (T, B) bool; absent balls (pocketed earlier) take no part. Default all.
        pins_up: (T, P) bool standing pins (P = len(table.pin_spots)). Default all standing.
        models: collision models (default :class:`Models`).
        max_events: log size K; a table whose log fills up stops with overflow = 1.
        t_max: simulated time limit [s]; reaching it stops the table with overflow = 2.
        threads: numba threads for the ``prange`` over tables (default: numba's setting).
        ball_names, table_names, pin_names: labels of the balls, tables and pins in error
            messages (default: their indices); each must have one label per ball, table, pin.
        validate: check the layout (overlaps, off-cloth, pockets); leave on unless the caller
            already validated.
        workspace: a :class:`Workspace` whose log buffers are reused from call to call (a
            vectorised env calling with the same T, B, K every step saves the allocation and
            page faults). The returned log arrays are then views into it, valid until the next
            call with the same workspace.

    Returns:
        :class:`SimResult`.
    """
    models = _check_objects(table, params, models, workspace)
    K, t_max, n_threads = _run_limits(max_events, t_max, threads)
    # refuses an oversized call before the per-ball arrays are made (check_memory)
    xy, present, pins = _layout_arrays(table, xy, present, pins_up, K, workspace)
    T, B, _ = xy.shape
    P = pins.shape[1]
    _check_labels(ball_names, table_names, pin_names, B, T, P)
    check_physics(table, params, kiss)
    if check_bool("validate", validate):
        validate_layout(table, params, xy, present, pins, ball_names, table_names, pin_names)
    vw = _initial_motion(v, w, T, B, params.R, ball_names, table_names)
    cb, cue_arr = _strike_arrays(cue_ball, cue, present, table_names, ball_names)
    if motion0 is None:
        mo_given = _NO_MOTION0
    else:
        mo_given = motion0_array(motion0, T, B)
        check_motion0(mo_given, vw, present, cb, params.R, table_names, ball_names)
    prm = pack_params(params, table.cushion_height, table.pin_radius, table.pin_height, kiss)
    st = np.zeros((T, B, 7))
    st[..., 0:2] = xy
    st[..., 2:7] = vw
    mo = np.empty((T, B), np.int32)
    prepare_batch(st, mo, present, cb, cue_arr, 1.0 if models.squirt else 0.0, prm, mo_given)
    rvw0 = _to_rvw(st, params.R)
    motion0 = mo.copy()
    pins0 = pins.copy()
    pk = np.full((T, B), -1, np.int32)
    arrs = kernel_arrays(table, params)
    if workspace is None:
        workspace = Workspace()
    log = workspace.arrays(T, B, P, K)
    p_mask, p_time, p_dir = log["p_mask"], log["p_time"], log["p_dir"]
    ev_type, ev_time, ev_i, ev_j = log["ev_type"], log["ev_time"], log["ev_i"], log["ev_j"]
    ev_state, ev_motion = log["ev_state"], log["ev_motion"]
    n_events, t_end, overflow = log["n_events"], log["t_end"], log["overflow"]
    up = pins.astype(np.bool_)
    args = (st, mo, pk, up, arrs["lines"], arrs["circles"], arrs["circle_kind"], arrs["pockets"],
            arrs["pin_spots"], prm, models.codes(), t_max, p_mask, p_time, p_dir, ev_type,
            ev_time, ev_i, ev_j, ev_state, ev_motion, n_events, t_end, overflow)
    with pool_turn(T, n_threads) as pooled:
        if not pooled:
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
