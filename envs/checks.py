"""Argument checks every cuegym env shares: ``num_envs``, ``render_mode``, reset ``options``.

Each raises ``ValueError`` naming the bad value (Gymnasium itself only warns about an unknown
render mode and passes unknown reset options through, which would silently do nothing here).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from cuegym.cli_errors import did_you_mean, unknown
from cuegym.configs import short_repr as _short
from cuegym.physics.checks import check_bool  # noqa: F401  (re-exported: the envs' flags)
from cuegym.physics.parallel import check_threads


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` as an int >= 1; a float, bool, string or non-positive value raises."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
        raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
    return int(num_envs)


def check_render_mode(render_mode: Any, modes: Iterable[str]) -> str | None:
    """``render_mode`` if it is None or one of ``modes``; otherwise a ValueError."""
    modes = list(modes)
    if render_mode is not None and render_mode not in modes:
        if isinstance(render_mode, str):
            raise ValueError(unknown("render_mode", render_mode, [None, *modes]))
        raise ValueError(f"render_mode must be None or one of {modes}, got {render_mode!r}"
                         f"{did_you_mean(render_mode, modes)}")
    return render_mode


def check_reset_options(options: Any, known: Iterable[str] = ()) -> dict[str, Any]:
    """``options`` (None or a mapping with keys among ``known``) as a dict."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a mapping or None, got {options!r}")
    known = list(known)
    bad = [k for k in options if k not in known]
    if bad:
        if not known:
            raise ValueError(f"this env takes no reset options, got {sorted(map(str, bad))}")
        raise ValueError(unknown("reset option", bad[0], known))
    return dict(options)


def check_seat(seat: Any, n_seats: int) -> int | str:
    """The learner's seat of a full-game env: ``"random"`` or an integer 0..n_seats - 1 (a
    numpy integer becomes an int; a bool or float raises, ``seat=True`` is not seat 1)."""
    if isinstance(seat, str) and seat == "random":
        return seat
    if isinstance(seat, bool | np.bool_) or not isinstance(seat, int | np.integer) or \
            not 0 <= seat < n_seats:
        seats = "0 or 1" if n_seats == 2 else f"0..{n_seats - 1}"
        raise ValueError(f"seat must be 'random', {seats}, got {seat!r}")
    return int(seat)


def check_opponent_batching(value: Any) -> str:
    """``"per_table"`` (one opponent call per table) or ``"batched"`` (one call for all)."""
    choices = ["per_table", "batched"]
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"opponent_batching must be 'per_table' or 'batched', got {value!r}"
                         f"{did_you_mean(value, choices)}")
    return value


def check_seed(seed: Any) -> int | None:
    """A reset seed: None or an integer >= 0 (a numpy integer becomes an int). A bool
    (``seed=True`` would silently be seed 1), a float, a string or a negative number raises a
    ValueError naming it (gymnasium's own check raises its ``gymnasium.error.Error``)."""
    if seed is None:
        return None
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be None or an integer >= 0, got {_short(seed)}")
    return int(seed)


def check_bank(positions: Any, cls: type, game: str) -> Any:
    """A user-given position bank: None or a bank of ``game`` (``cls``) with positions."""
    if positions is None:
        return None
    if not isinstance(positions, cls):
        raise ValueError(f"positions must be None or a {cls.__name__} ({game} bank; by name: "
                         f"settings={{'positions': <name>}}), got {type(positions).__name__}: "
                         f"{_short(positions)}")
    return positions  # its fields (lists, scalars, ragged arrays) are the game's check to name


def bank_arrays(positions: Any, cls: type, fields: Iterable[tuple[str, tuple, str, Any]],
                length_field: str, length_what: str) -> dict[str, np.ndarray]:
    """The fields of a user's position bank (a ``cls``) as new arrays: ``fields`` are (name,
    shape after N, kind, dtype kept) with kind ``"f"`` (real numbers), ``"i"`` (integers) or
    ``"b"`` (flags, bool or 0/1); N is the length of ``length_field`` (shape (N,):
    ``length_what`` per position). Raises ValueError naming the field and what is wrong with
    it (not a ``cls``, not an array, its dtype, its shape, a flag that is not 0/1); ranges and
    positions are the game's to check."""
    if not isinstance(positions, cls):
        raise ValueError(f"positions must be a {cls.__name__}, got {type(positions).__name__}")
    raw_n = getattr(positions, length_field)
    try:
        n = len(raw_n) if np.ndim(raw_n) == 1 else -1
    except (TypeError, ValueError):
        n = -1
    if n < 0:
        raise ValueError(f"positions.{length_field} must have shape (N,), {length_what}, got "
                         f"shape {np.shape(raw_n)}")
    out = {}
    for name, shape, kind, dtype in fields:
        raw = getattr(positions, name)
        try:
            a = np.asarray(raw)
        except (TypeError, ValueError):
            raise ValueError(f"positions.{name} must be an array, got {type(raw).__name__}") \
                from None
        if a.dtype.kind not in ("biuf" if kind == "f" else "biu"):
            raise ValueError(f"positions.{name} must hold "
                             f"{'real numbers' if kind == 'f' else 'integers'}, got dtype "
                             f"{a.dtype}")
        if a.shape != (n, *shape):
            want = "(" + ", ".join(["N", *map(str, shape)]) + ("," if not shape else "") + ")"
            raise ValueError(f"positions.{name} must have shape {want} with N = "
                             f"len(positions.{length_field}) = {n}, got {a.shape}")
        if kind == "b" and ((a != 0) & (a != 1)).any():
            k = int(np.argwhere((a != 0) & (a != 1))[0][0])
            raise ValueError(f"positions[{k}].{name} = {a[k].tolist()!r}: {name} holds flags "
                             "(bool or 0/1)")
        cast = a.astype(dtype)
        if kind == "i" and (cast != a).any():  # e.g. hand 256 kept in int8 would be 0
            k = int(np.argwhere(cast != a)[0][0])
            info = np.iinfo(dtype)
            raise ValueError(f"positions[{k}].{name} = {a[k].tolist()!r} is out of range "
                             f"({info.min}..{info.max})")
        out[name] = cast
    if n < 1:
        raise ValueError("positions: the bank is empty")
    return out


# What ``set_attr`` may change: the settings a constructor takes and checks. Everything else
# on a core (its states, generators, step counters, action map, spaces) is the env's state or
# structure; setting it from outside would corrupt a game silently, so it is refused.
SETTABLE = ("clip", "threads", "noise", "reward", "opponent", "opponent_batching", "seat_choice")


def checked_setting(core: Any, name: Any, value: Any) -> Any:
    """``value`` checked for ``core.<name> = value`` (a vector env's or the SB3 adapter's
    ``set_attr``). ``name`` must be one of the core's settings (``SETTABLE``: ``clip``,
    ``threads``, ``noise``, ``reward``, and for the full-game envs ``opponent``,
    ``opponent_batching`` and ``seat_choice``, which the next reset uses); each is checked and
    converted as the env's constructor does. A misspelt name, or an attribute that is the env's
    state (``states``, ``rngs``, ...), raises a ValueError naming it."""
    settable = [k for k in SETTABLE if hasattr(core, k)]
    if not isinstance(name, str) or name not in settable:
        if isinstance(name, str) and not name.startswith("_") and hasattr(core, name):
            raise ValueError(f"env attribute {name!r} is the env's state or structure, not a "
                             f"setting; set_attr takes {', '.join(map(repr, settable))}")
        raise ValueError(unknown("env setting", name, settable))
    if name == "clip":
        return check_bool("clip", value)
    if name == "threads":
        return check_threads(value)
    if name == "noise":
        from .config import load_noise

        return load_noise(value)
    if name == "reward":
        from .config import load_reward

        return core.checked_reward(load_reward(core.game_name, value))
    if name == "opponent":
        from .opponents import as_opponent

        return as_opponent(value, core.random_opponent, core.game_name,
                           getattr(core, "opponent_arena", None))
    if name == "opponent_batching":
        return check_opponent_batching(value)
    return check_seat(value, getattr(core, "num_players", 2))
