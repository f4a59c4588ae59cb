"""Input checks shared by the game layer's batch API (:class:`~cuegym.games.kegle.Kegle`,
:class:`~cuegym.games.golf.Golf`).

Each check is a few numpy operations over the table axis (no Python loop over tables), runs
before a call does any work, and raises a ValueError whose one-line message names the argument
and the bad value, so a refused call leaves the states as they were.
"""

from __future__ import annotations

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


__all__ = ["batch_type", "placements", "play_noise", "play_rng", "seats", "seeds"]
