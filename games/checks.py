"""Input checks shared by the game layer's batch API (:class:`~cuegym.games.kegle.Kegle`,
:class:`~cuegym.games.golf.Golf`).

Each check is a few numpy operations over the table axis (no Python loop over tables), runs
before a call does any work, and raises a ValueError whose one-line message names the argument
and the bad value, so a refused call leaves the states as they were.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..configs import short_repr
from .noise import ShotNoise, load_noise


def _short(value: Any) -> str:
    return short_repr(value, 120)


def play_noise(noise: Any) -> ShotNoise | None:
    """``noise`` of a ``play`` call: None (no noise: the strikes must be within the physics'
    limits), a :class:`ShotNoise`, or what the envs take for one (a preset name such as
    ``"tournament"``, a scale factor of the tournament noise, a mapping of deviations), read by
    the same :func:`~cuegym.games.noise.load_noise`; anything else is a ConfigError (a
    ValueError) naming the accepted types."""
    if noise is None or isinstance(noise, ShotNoise):
        return noise
    return load_noise(noise)


def play_rng(rng: Any, T: int) -> None:
    """``rng`` of a ``play`` call: None (only without noise), one ``numpy.random.Generator``, or
    a sequence of T generators (table t draws from ``rng[t]``)."""
    if rng is None or isinstance(rng, np.random.Generator):
        return
    if isinstance(rng, list | tuple) and all(isinstance(g, np.random.Generator) for g in rng):
        if len(rng) != T:
            raise ValueError(f"rng: {len(rng)} generators for {T} tables (one Generator, or one "
                             "per table)")
        return
    raise ValueError(f"rng must be a numpy.random.Generator or a sequence of {T} of them (one "
                     f"per table), got {_short(rng)}")


def draw_rng(rng: Any) -> np.random.Generator:
    """``rng`` of a call that draws (``Kegle.new``'s breaking player): None (fresh entropy), a
    ``numpy.random.Generator`` or a seed, an integer >= 0, as ``numpy.random.default_rng``
    takes; a bool, a negative number or anything else is a ValueError naming it."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is not None and (isinstance(rng, bool | np.bool_)
                            or not isinstance(rng, int | np.integer) or rng < 0):
        raise ValueError(f"rng must be None, a numpy.random.Generator or a seed (an integer "
                         f">= 0), got {_short(rng)}")
    return np.random.default_rng(rng)


def seats(values: Any, T: int, n: int, name: str) -> np.ndarray:
    """``values``: a player / side index per table ((T,) or one for all), integers in
    ``0..n-1``; returned as a (T,) int64 array."""
    try:
        a = np.asarray(values)
    except (TypeError, ValueError):
        a = np.asarray(None)
    if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"{name} must be integers in 0..{n - 1} (one per table), got "
                         f"{_short(values)}")
    try:
        a = np.broadcast_to(a, (T,))
    except ValueError:
        raise ValueError(f"{name} must have shape ({T},) (one per table), got shape "
                         f"{a.shape}") from None
    bad = (a < 0) | (a >= n)
    if bad.any():
        t = int(np.argmax(bad))
        raise ValueError(f"{name}[{t}] = {int(a[t])} is not in 0..{n - 1}")
    return a.astype(np.int64, copy=False)


def placements(place: Any, T: int) -> np.ndarray:
    """``place``: (T, 2) red placements [m] (NaN rows: none; (2,) for one table); returned as a
    contiguous (T, 2) float64 array."""
    try:
        a = np.asarray(place, np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"place must be a ({T}, 2) array of placements [m], got "
                         f"{_short(place)}") from None
    if a.shape != (T, 2) and not (T == 1 and a.shape == (2,)):
        raise ValueError(f"place must have shape ({T}, 2) (one x, y per table), got shape "
                         f"{a.shape}")
    return np.ascontiguousarray(a.reshape(T, 2))


def seeds(seed: Any, T: int) -> np.ndarray:
    """``seed``: an integer >= 0, or (T,) of them; returned broadcast to (T,) int64."""
    a = np.asarray(seed) if not isinstance(seed, str | bytes) else np.asarray(None)
    if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"seed must be an integer >= 0 or {T} of them, got {_short(seed)}")
    try:
        a = np.broadcast_to(a, (T,))
    except ValueError:
        raise ValueError(f"seed must be one integer or {T} of them (one per table), got shape "
                         f"{a.shape}") from None
    if a.dtype.kind == "u" and (a > np.iinfo(np.int64).max).any():
        raise ValueError(f"seed must fit in 63 bits, got {_short(seed)}")
    bad = a < 0
    if bad.any():
        t = int(np.argmax(bad))
        where = f"seed[{t}]" if np.ndim(seed) else "seed"
        raise ValueError(f"{where} = {int(a[t])}: a seed must be an integer >= 0")
    return a.astype(np.int64)


def batch_type(states: Any, batch: type, item: type, game: str, other: Sequence[type]) -> None:
    """Refuse ``states`` that are neither a ``batch`` nor a list/tuple of ``item`` values (e.g.
    the other game's states), naming what was given."""
    if isinstance(states, batch):
        return
    if isinstance(states, list | tuple) and states and \
            all(isinstance(s, item) for s in states):
        return
    if isinstance(states, list | tuple):
        bad = next((s for s in states if not isinstance(s, item)), None)
        got = "an empty list" if not states else f"a list holding {type(bad).__name__}"
    else:
        got = type(states).__name__
    hint = " (the other game's states)" if isinstance(states, tuple(other)) or (
        isinstance(states, list | tuple) and states and isinstance(states[0], tuple(other))) \
        else ""
    raise ValueError(f"states must be a {batch.__name__} batch or a list of {game} "
                     f"{item.__name__} values, got {got}{hint}")


# ---------------------------------------------------------------------------------------------
# Batches of states: the arrays a user may edit, checked before a kernel indexes with them
# ---------------------------------------------------------------------------------------------

#: Largest value an int64 state field can hold.
INT_MAX = 2**63 - 1

#: An integer range ``(lo, hi, why)``: ``hi`` may be a callable of N (the players of a batch);
#: ``why`` ends the message of a value out of it.
Range = tuple[Any, Any, str]


class BatchFields:
    """The array fields of a batch of states (``GolfStates``, ``KegleStates``): for each its
    trailing shape after the table axis (-1: N, the players), the dtype the kernels take and,
    for an integer field, the range its values must lie in.

    :meth:`arrays` returns the fields as the kernels take them (each array as it is when its
    type, dtype and shape are already those, else a converted copy), or raises a ValueError
    naming the field; :meth:`out_of_range` counts the integers out of their ranges (a few
    numpy operations for all fields together) and :meth:`range_problem` names the first.
    """

    def __init__(self, fields: Sequence[tuple[str, tuple[int, ...], Any, Range | None]]) -> None:
        self.names = tuple(f[0] for f in fields)
        self.trailing = tuple(f[1] for f in fields)
        self.dtypes = [np.dtype(f[2]) for f in fields]
        self.ranges = {f[0]: f[3] for f in fields if f[3] is not None}
        self._pos = {n: k for k, n in enumerate(self.names)}
        self._int_pos = [self._pos[n] for n in self.ranges]
        self._xy = self._pos.get("xy")  # the balls: checked against the table's bounds
        self._num_pos = self._int_pos + ([] if self._xy is None else [self._xy])
        self._types = (np.ndarray,) * len(fields)
        self._get = operator.attrgetter(*self.names)
        self._shapes: dict[tuple[int, int], list] = {}
        self._bounds: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def shapes(self, T: int, N: int) -> list[tuple[int, ...]]:
        """Every field's full shape for T tables (N players)."""
        s = self._shapes.get((T, N))
        if s is None:
            if len(self._shapes) > 64:
                self._shapes.clear()
            s = self._shapes[T, N] = [(T, *(N if d < 0 else d for d in tr))
                                      for tr in self.trailing]
        return s

    def arrays(self, states: Any, T: int, N: int, path: str) -> tuple[list[np.ndarray], bool]:
        """The fields of ``states`` in order, as the kernels take them (see the class), and
        whether they are the batch's own arrays (none converted)."""
        arrs = self._get(states)
        if tuple(map(type, arrs)) == self._types and list(map(_DTYPE, arrs)) == self.dtypes \
                and list(map(_SHAPE, arrs)) == self.shapes(T, N):
            return arrs, True
        out = [self._canonical(a, k, shape, N, path)
               for k, (a, shape) in enumerate(zip(arrs, self.shapes(T, N), strict=True))]
        return out, all(a is b for a, b in zip(arrs, out, strict=True))

    def _canonical(self, a: Any, k: int, shape: tuple[int, ...], N: int, path: str
                   ) -> np.ndarray:
        name, dtype = self.names[k], self.dtypes[k]
        what = {"f": "real numbers", "b": "flags (bool)"}.get(dtype.kind, "integers")
        if not isinstance(a, np.ndarray):
            raise ValueError(f"{path}.{name} must be a numpy array of {what} with shape "
                             f"{shape}, got {type(a).__name__}: {_short(a)}")
        if a.dtype.kind not in ("biuf" if dtype.kind == "f" else "biu"):
            raise ValueError(f"{path}.{name} must hold {what} (dtype {dtype}), got dtype "
                             f"{a.dtype}")
        if a.shape != shape:
            raise ValueError(f"{path}.{name} must have shape {shape} (tables first), got "
                             f"shape {a.shape}")
        if a.dtype == dtype and type(a) is np.ndarray:
            return a
        # values the cast would change are refused here, by the field's range if it has one
        if name in self.ranges:
            lo, hi, why = self.ranges[name]
            bad = (a < range_value(lo, N)) | (a > range_value(hi, N))
        elif dtype.kind == "b" and a.dtype.kind != "b":
            bad, why = (a != 0) & (a != 1), f"{name} holds flags (bool, or 0 / 1)"
        elif dtype.kind in "iu" and not np.can_cast(a.dtype, dtype):
            info = np.iinfo(dtype)
            bad, why = (a < info.min) | (a > info.max), f"{name} holds {dtype} integers"
        else:
            bad = None
        if bad is not None and bad.any():
            raise ValueError(element_problem(path, name, a, bad, why))
        return np.ascontiguousarray(a, dtype)

    def _lo_hi(self, T: int, N: int, lim: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = (T, N, float(lim[0]), float(lim[1]))
        b = self._bounds.get(key)
        if b is None:
            shapes = self.shapes(T, N)
            sizes = [int(np.prod(shapes[k], dtype=np.int64)) for k in self._int_pos]
            lo = np.repeat([float(range_value(r[0], N)) for r in self.ranges.values()], sizes)
            hi = np.repeat([float(range_value(r[1], N)) for r in self.ranges.values()], sizes)
            if self._xy is not None:  # x, y of every ball
                n = int(np.prod(shapes[self._xy][:-1], dtype=np.int64))
                lo = np.concatenate([lo, np.tile(-lim, n)])
                hi = np.concatenate([hi, np.tile(lim, n)])
            if len(self._bounds) > 64:
                self._bounds.clear()
            b = self._bounds[key] = (lo, hi)
        return b

    def out_of_range(self, arrs: Sequence[np.ndarray], T: int, N: int, lim: np.ndarray) -> int:
        """How many integers of ``arrs`` (as :meth:`arrays` returns them) are out of range, and
        ball coordinates infinite or beyond ``lim`` (:func:`bounds`; NaN is not counted: see
        :func:`half_nan`)."""
        lo, hi = self._lo_hi(T, N, lim)
        flat = np.concatenate([arrs[k] for k in self._num_pos], axis=None, dtype=np.float64)
        return np.count_nonzero((flat < lo) | (flat > hi))

    def range_problem(self, arrs: Sequence[np.ndarray], N: int, path: str) -> str | None:
        """The first integer out of its range, as ``path.name[t, ...] = value: why``."""
        for name, (lo, hi, why) in self.ranges.items():
            a = arrs[self._pos[name]]
            bad = (a < range_value(lo, N)) | (a > range_value(hi, N))
            if bad.any():
                of_n = callable(lo) or callable(hi)
                return element_problem(path, name, a, bad, why + (f" (N = {N})" if of_n else ""))
        return None


_DTYPE = operator.attrgetter("dtype")
_SHAPE = operator.attrgetter("shape")


def range_value(b: Any, N: int) -> int:
    return int(b(N)) if callable(b) else int(b)


def element_problem(path: str, name: str, a: np.ndarray, bad: np.ndarray, why: str) -> str:
    """``path.name[t, ...] = value: why`` for the first True of ``bad`` (a mask over ``a``'s
    leading axes: a whole row when it has fewer axes)."""
    at = tuple(int(i) for i in np.argwhere(bad)[0])
    v = a[at]
    v = v.tolist() if isinstance(v, np.ndarray) else v.item()
    return f"{path}.{name}[{', '.join(map(str, at))}] = {v}: {why}"


def bounds(half: Any) -> np.ndarray:
    """(2,) the largest |x|, |y| [m] of a ball centre: ``half`` (the table's half length and
    width between the cushion noses, as the physics' layout check takes them) plus its
    tolerance; None: any finite value. A read-only array, made once per table."""
    if half is None:
        return _bounds(math.inf, math.inf)
    hx, hy = half
    return _bounds(float(hx), float(hy))


@functools.lru_cache(maxsize=16)
def _bounds(hx: float, hy: float) -> np.ndarray:
    out = np.array([hx, hy]) + 1e-9 if math.isfinite(hx + hy) else \
        np.full(2, np.finfo(np.float64).max)
    out.setflags(write=False)
    return out


def half_nan(xy: np.ndarray) -> int:
    """How many ball centres of ``xy`` (T, B, 2) are NaN in x or y but not both (NaN, NaN is a
    ball off the table)."""
    nan = np.isnan(xy)
    return np.count_nonzero(nan != nan[..., ::-1])


def xy_problem(xy: np.ndarray, lim: np.ndarray, path: str, ids: Sequence[str]) -> str | None:
    """The first ball half NaN, infinite or beyond ``lim``, named (``path.xy[t, b]`` and its
    id)."""
    nan = np.isnan(xy)
    bad = (nan[..., 0] != nan[..., 1]) | (np.abs(xy) > lim).any(-1)
    if not bad.any():
        return None
    t, b = (int(i) for i in np.argwhere(bad)[0])
    where = ("a ball centre is finite, inside the cushion noses (|x| <= "
             f"{lim[0] - 1e-9:g}, |y| <= {lim[1] - 1e-9:g} m), or NaN, NaN off the table"
             if lim[0] < np.finfo(np.float64).max else
             "a ball centre is finite, or NaN, NaN off the table")
    return f"{path}.xy[{t}, {b}] = {xy[t, b].tolist()} ({ids[b]}): {where}"


def lead_length(states: Any, lead: str, path: str) -> int:
    """T, the length of the batch's (T,) field ``lead``."""
    a = getattr(states, lead, None)
    if not isinstance(a, np.ndarray) or a.ndim != 1:
        got = f"shape {a.shape}" if isinstance(a, np.ndarray) else \
            f"{type(a).__name__}: {_short(a)}"
        raise ValueError(f"{path}.{lead} must be a numpy array of shape (T,), one per table, "
                         f"got {got}")
    return int(a.shape[0])


def put_fields(dst: dict[str, np.ndarray], src: dict[str, np.ndarray], idx: Any, T: int) -> None:
    """``dst[k][idx] = src[k]`` for every field, after checking every field's shape (a refused
    put writes nothing: it used to write the fields before the first bad one)."""
    n = len(np.arange(T)[idx])
    for k, v in dst.items():
        want = (n, *v.shape[1:])
        if np.shape(src[k]) != want:
            raise ValueError(f"put: field {k!r} of the states given has shape "
                             f"{np.shape(src[k])}, the {n} table(s) to write need {want}")
    for k, v in dst.items():
        v[idx] = src[k]



def table_index(t: Any, T: int) -> int:
    """A state batch's ``[t]``: one table number in [-T, T) (a float, a text or a bool is a
    TypeError: 1.7 was read as table 1), as a non-negative index."""
    if not isinstance(t, int | np.integer) or isinstance(t, bool | np.bool_):
        raise TypeError(f"index a state batch with one table number (use take() for "
                        f"several), got {t!r}")
    if not -T <= t < T:
        raise IndexError(f"table {t} out of range for {T} tables")
    return int(t) % T

__all__ = ["BatchFields", "batch_type", "bounds", "half_nan", "placements", "play_noise",
           "play_rng", "put_fields", "seats", "seeds", "table_index", "xy_problem"]
