"""Input checks of the physics API: arrays of real numbers, flags, ball indices, strikes and
initial motion, each refused with a :class:`PhysicsInputError` that names the argument, the
element and its value (one line; values shortened by :func:`cuegym.configs.short_repr`).

The layout check (balls on the cloth, apart, off pins and posts) is :mod:`.layout`; the run
limits and the memory estimate stay with :func:`cuegym.physics.api.simulate`, which calls all of
them before any work.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..configs import short_repr
from .constants import MAX_V0, MOTION_NAMES, POCKETED, ROLLING, SLIDING, SPINNING, STATIONARY
from .motion import EPS, classify_array

#: The strike values the physics accepts: V0 [m/s] and the cue elevation theta [deg] (the tip
#: offsets need a^2 + b^2 <= 1).
STRIKE_RANGES = {"V0": (0.0, MAX_V0), "theta": (0.0, 90.0)}


class PhysicsInputError(ValueError):
    """Bad input to the simulator: the message names the offending value."""


def check_bool(name: str, value: Any) -> bool:
    """``value`` if it is a bool (or numpy bool); a string, number or None raises (``clip="no"``
    or ``validate="no"`` would otherwise read as True)."""
    if not isinstance(value, bool | np.bool_):
        raise PhysicsInputError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def index_text(idx) -> str:
    """``[0, 1, 2]`` for an index tuple of numpy integers (for messages)."""
    return "[" + ", ".join(str(int(i)) for i in idx) + "]"


#: Words for the array dtypes (``dtype.kind``) that are refused where numbers go.
KIND_WORDS = {"b": "bool", "c": "complex", "U": "string", "S": "bytes", "O": "object",
               "M": "datetime", "m": "timedelta", "V": "structured"}


def is_real(x) -> bool:
    """A real number that is not a bool (Python or numpy)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool | np.bool_)


def convert(name: str, value, what: str) -> np.ndarray:
    """``np.asarray(value)``; a ragged or unconvertible value raises a PhysicsInputError that
    names the argument (``what``: e.g. ``"a (T, B, 2) array of numbers"``)."""
    try:
        return np.asarray(value)
    except (TypeError, ValueError, OverflowError) as exc:
        reason = str(exc).split("\n")[0].split(". ")[0]
        raise PhysicsInputError(f"{name} must be {what}: could not convert {short_repr(value)} "
                                f"({reason})") from None


def first_bad(arr: np.ndarray, bad: np.ndarray) -> tuple[str, str]:
    """(index text, value repr) of the first True of ``bad`` in ``arr``."""
    idx = tuple(np.argwhere(bad)[0])
    return index_text(idx), short_repr(arr[idx])


def real_array(name: str, arr: np.ndarray, what: str) -> np.ndarray:
    """``arr`` as float64 when its dtype holds real numbers (ints or floats; an object array
    only when every element is a real number); complex, string, bool and other dtypes raise a
    PhysicsInputError naming the argument."""
    kind = arr.dtype.kind
    if kind == "f" or kind in "iu":
        return arr.astype(np.float64, copy=False)
    if kind == "O":
        flat = arr.ravel()
        for k, x in enumerate(flat):
            if not is_real(x):
                idx = np.unravel_index(k, arr.shape)
                raise PhysicsInputError(f"{name}{index_text(idx)} is {short_repr(x)}: {name} must "
                                        f"be {what}")
        try:
            return arr.astype(np.float64)
        except OverflowError:  # Python integers beyond floats
            return np.array([float("inf") if abs(x) > 1e308 else float(x) for x in flat],
                            np.float64).reshape(arr.shape)
    word = KIND_WORDS.get(kind, str(arr.dtype))
    example = f" such as {short_repr(arr.flat[0])}" if arr.size else ""
    raise PhysicsInputError(f"{name} must be {what}, got {word} values{example}")


def as_array(name: str, value, shape: tuple, words: str | None = None) -> np.ndarray:
    """``value`` as a finite float64 array of shape ``shape`` (``words``: that shape as the
    user writes it, e.g. ``(T, B, 2)``). Refused, naming ``name``: values that are not real
    numbers (strings, bools, complex, None), ragged nesting, another shape, NaN or inf."""
    words = words or str(shape)
    what = f"a {words} array of real numbers"
    arr = value if isinstance(value, np.ndarray) else convert(name, value, what)
    arr = real_array(name, arr, what)
    if arr.shape != shape:
        raise PhysicsInputError(f"{name} must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        at, val = first_bad(arr, ~np.isfinite(arr))
        raise PhysicsInputError(f"{name}{at} is {val}: values must be finite")
    return arr


def flag_array(name: str, value, shape: tuple, words: str) -> np.ndarray:
    """A (T, n) bool array from ``value``: bool dtype, or numbers that are exactly 0 or 1.
    Anything else (strings, None, 0.5, NaN, 2, complex) raises a PhysicsInputError naming
    ``name``, the first bad element's index and its value."""
    what = f"a {words} array of bools (True/False or 1/0)"
    arr = value if isinstance(value, np.ndarray) else convert(name, value, what)
    if arr.shape != shape:
        raise PhysicsInputError(f"{name} must have shape {shape}, got {arr.shape}")
    kind = arr.dtype.kind
    if kind == "b":
        return arr
    if kind in "iuf":
        bad = (arr != 0) & (arr != 1)
    elif kind == "O":
        bad = np.array([not (isinstance(x, bool | np.bool_) or (is_real(x) and x in (0, 1)))
                        for x in arr.ravel()], bool).reshape(arr.shape)
    else:
        word = KIND_WORDS.get(kind, str(arr.dtype))
        example = f" such as {short_repr(arr.flat[0])}" if arr.size else ""
        raise PhysicsInputError(f"{name} must be {what}, got {word} values{example}")
    if bad.any():
        at, val = first_bad(arr, bad)
        raise PhysicsInputError(f"{name}{at} is {val}: {name} must be {what}")
    return arr.astype(bool)


def number_array(name: str, value, what: str) -> tuple[np.ndarray, str]:
    """``value`` as an array of numbers, and its dtype kind (``"i"``, ``"u"`` or ``"f"``):
    the start of the integer-code arguments (``cue_ball``, ``motion0``), which check the shape
    and values themselves. An object array of real numbers becomes float64 (kind ``"f"``);
    other dtypes (bool, string, complex, None) raise a PhysicsInputError naming ``name``."""
    raw = value if isinstance(value, np.ndarray) else convert(name, value, what)
    kind = raw.dtype.kind
    if kind == "O" and all(is_real(x) for x in raw.ravel()):
        raw = real_array(name, raw, what)
        kind = "f"
    if kind not in "iuf":
        word = KIND_WORDS.get(kind, str(raw.dtype))
        example = f" such as {short_repr(raw.flat[0])}" if raw.size else ""
        raise PhysicsInputError(f"{name} must be {what}, got {word} values{example}")
    return raw, kind


def cue_ball_array(cue_ball, T: int, B: int) -> np.ndarray:
    """:func:`simulate`'s ``cue_ball`` as a (T, S) int64 array. Integer dtypes are taken, and
    floats that are exactly integral (``np.zeros(T)``); fractions, NaN, inf, bools, strings and
    complex values are refused, as is an index outside [-1, B - 1], quoting the value given."""
    what = "a (T,) or (T, S) array of ball indices (integers, -1: no strike)"
    raw, kind = number_array("cue_ball", cue_ball, what)
    if raw.ndim not in (1, 2) or raw.shape[0] != T:
        hint = f" (a single index: pass [{short_repr(raw.item())}])" if raw.ndim == 0 else ""
        raise PhysicsInputError(f"cue_ball must have shape (T,) or (T, S), one row per table "
                                f"(T = {T}), got shape {raw.shape}{hint}")
    cb = raw[:, None] if raw.ndim == 1 else raw
    if kind == "f":
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(cb) | (cb != np.floor(cb))
        if bad.any():
            at, val = first_bad(cb if raw.ndim == 2 else raw, bad if raw.ndim == 2
                                 else bad[:, 0])
            raise PhysicsInputError(f"cue_ball{at} is {val}: a ball index must be an integer "
                                    f"(-1: no strike)")
    out = (cb >= B) if kind == "u" else (cb >= B) | (cb < -1)
    if out.any():
        val = short_repr(cb[out][0])
        raise PhysicsInputError(f"cue_ball index {val} out of range for {B} balls")
    return cb.astype(np.int64)


def table_label(t: int, table_names: Sequence[str] | None) -> str:
    return f"table {t}" if table_names is None else str(table_names[t])


def strike_problem(cue_ball: np.ndarray, cue: np.ndarray, present: np.ndarray,
                   table_names: Sequence[str] | None = None,
                   ball_names: Sequence[str] | None = None) -> tuple[int, str] | None:
    """(table, message) of the first bad strike (see :func:`check_strikes`), or None; each
    kind of check reports its first table, the caller takes the lowest."""
    T, S = cue_ball.shape
    B = present.shape[1]
    bad = (cue_ball >= B) | (cue_ball < -1)
    if bad.any():
        t = int(np.argwhere(bad)[0][0])
        return t, f"cue_ball index {cue_ball[bad][0]} out of range for {B} balls"
    used = cue_ball >= 0

    def which(t: int, j: int) -> str:
        b = int(cue_ball[t, j])
        ball = f"ball {b}" if ball_names is None else repr(ball_names[b])
        return f"(strike slot {j}, {ball})" if S > 1 else f"({ball})"

    found = []
    for name, k in (("V0", 0), ("theta", 2)):
        lo, hi = STRIKE_RANGES[name]
        col = cue[..., k]
        badv = used & ((col < lo) | (col > hi))
        if badv.any():
            t, j = np.argwhere(badv)[0]
            found.append((int(t), f"{table_label(t, table_names)}: strike {name} = "
                                  f"{short_repr(float(col[t, j]))} out of range [{lo}, {hi}] "
                                  f"{which(t, j)}"))
    with np.errstate(over="ignore"):  # huge offsets square to inf, refused below
        ab = cue[..., 3] ** 2 + cue[..., 4] ** 2
    badv = used & (ab > 1.0 + 1e-12)
    if badv.any():
        t, j = np.argwhere(badv)[0]
        found.append((int(t), f"{table_label(t, table_names)}: strike offsets need "
                              f"a^2 + b^2 <= 1, got {float(ab[t, j]):.10g} {which(t, j)}"))
    tt, ss = np.nonzero(used)
    gone = ~present[tt, cue_ball[tt, ss]]
    if gone.any():
        k = int(np.argmax(gone))
        b = int(cue_ball[tt[k], ss[k]])
        ball = f"ball {b}" if ball_names is None else f"ball {b} ({ball_names[b]!r})"
        found.append((int(tt[k]), f"{table_label(tt[k], table_names)}: struck {ball} is not "
                                  f"on the table"))
    if S > 1:
        for s1 in range(S):
            for s2 in range(s1 + 1, S):
                dup = used[:, s1] & (cue_ball[:, s1] == cue_ball[:, s2])
                if dup.any():
                    t = int(np.argmax(dup))
                    found.append((t, f"{table_label(t, table_names)}: the same ball is "
                                     f"struck twice {which(t, s2)}"))
    return min(found, key=lambda f: f[0]) if found else None


def check_strikes(cue_ball: np.ndarray, cue: np.ndarray, present: np.ndarray,
                  table_names: Sequence[str] | None = None,
                  ball_names: Sequence[str] | None = None) -> None:
    """Range checks on strikes (vectorised): V0 in [0, 20] m/s, theta in [0, 90] deg,
    a^2 + b^2 <= 1, struck ball present, no ball struck twice."""
    problem = strike_problem(cue_ball, cue, present, table_names, ball_names)
    if problem is not None:
        raise PhysicsInputError(problem[1])


def norm_problem(name: str, vec: np.ndarray, limit: float, unit: str,
                 table_names: Sequence[str] | None, ball_names: Sequence[str] | None
                  ) -> tuple[int, str] | None:
    """(table, message) of the first ball whose initial velocity/spin magnitude exceeds
    ``limit``, or None."""
    with np.errstate(over="ignore"):  # 1e200 squared is inf, which is refused below
        norm = np.sqrt(np.sum(vec * vec, axis=-1))
    bad = norm > limit
    if not bad.any():
        return None
    t, b = np.argwhere(bad)[0]
    ball = f"ball {b}" if ball_names is None else repr(ball_names[b])
    return int(t), (f"{table_label(t, table_names)}: {name} of {ball} has magnitude "
                    f"{float(norm[t, b]):.10g} {unit}; initial "
                    f"{'speeds' if name == 'v' else 'spins'} must be in [0, {limit}] "
                    f"{unit} (a strike at the V0 limit stays below that)")


def check_norm(name: str, vec: np.ndarray, limit: float, unit: str,
               table_names: Sequence[str] | None, ball_names: Sequence[str] | None) -> None:
    """Refuse initial velocities/spins whose magnitude exceeds ``limit`` (per ball)."""
    problem = norm_problem(name, vec, limit, unit, table_names, ball_names)
    if problem is not None:
        raise PhysicsInputError(problem[1])


def check_index(name: str, value, n: int, what: str) -> int:
    """``value`` as an index in [0, n) of a result's ``what`` (tables, balls): a Python or
    numpy integer, not a bool; a negative index is refused, not counted from the end."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise PhysicsInputError(f"{name} must be an integer index, got {short_repr(value)}")
    if not 0 <= value < n:
        span = f"0 to {n - 1}" if n else "none"
        raise PhysicsInputError(f"{name} = {int(value)} is out of range: the result has {n} "
                                f"{what} ({span})")
    return int(value)


#: Largest contact-point slip |u| = |v + R z x w| [m/s] of a ball given as ``rolling``. A
#: rolling ball has u = 0 exactly, but w = v/R computed in floating point (or written with ten
#: significant digits) leaves a slip of about |v| 1e-16 (1e-11): far below this, while a slip a
#: user meant is far above it. What the rolling start ignores is small: as a sliding ball that
#: slip would last 2|u| / (7 u_s g) (at most 3e-8 s within the parameter ranges) and change v by
#: 2|u|/7 < 3e-10 m/s. The rolling ball's w_xy is then set from v (u = 0 exactly).
ROLLING_SLIP_TOL = 1e-9
#: The kernel's zero for speeds and slips [m/s] (and |w_z| [rad/s]): ``motion.EPS``, pooltool's
#: 100 machine epsilons, 2.2e-14 (a state's "v = 0" means |v| <= this).
MOTION_ZERO = EPS
#: The start states a ball may be given (``simulate(motion0=...)``; JSON ``"state"``).
START_STATES = {MOTION_NAMES[c]: c for c in (STATIONARY, SPINNING, SLIDING, ROLLING)}
_NEEDS = {STATIONARY: "v = 0 and w = 0",
          SPINNING: "v = 0, w_xy = 0 and w_z != 0",
          SLIDING: "v != 0 or w_xy != 0 (a ball at rest or only spinning cannot slide)",
          ROLLING: f"v != 0 and the slip |u| = |v + R z x w| <= {ROLLING_SLIP_TOL:g} m/s "
                   f"(w_xy = (-v_y, v_x)/R)"}


def motion0_array(value, T: int, B: int) -> np.ndarray:
    """:func:`simulate`'s ``motion0`` as a (T, B) int32 array of start-state codes: -1 (the
    default: a moving ball slides, one that only spins spins), 0 stationary, 1 spinning,
    2 sliding, 3 rolling. Integer dtypes are taken, and floats that are exactly integral; other
    values, codes and shapes are refused, naming the first bad element."""
    what = "a (T, B) array of start-state codes (-1 default, 0 stationary .. 3 rolling)"
    raw, _ = number_array("motion0", value, what)
    if raw.shape != (T, B):
        raise PhysicsInputError(f"motion0 must have shape (T, B) = {(T, B)}, got {raw.shape}")
    with np.errstate(invalid="ignore"):
        bad = ~np.isin(raw, (-1, STATIONARY, SPINNING, SLIDING, ROLLING))
    if bad.any():
        at, val = first_bad(raw, bad)
        hint = (" (an absent ball is present=False)" if raw[tuple(np.argwhere(bad)[0])]
                == POCKETED else "")
        raise PhysicsInputError(f"motion0{at} is {val}: a start state must be -1 (default), "
                                f"0 stationary, 1 spinning, 2 sliding or 3 rolling{hint}")
    return raw.astype(np.int32)


def motion_problem(motion0: np.ndarray, vw: np.ndarray, present: np.ndarray,
                   cue_ball: np.ndarray, R: float, table_names: Sequence[str] | None = None,
                   ball_names: Sequence[str] | None = None, json: bool = False
                   ) -> tuple[int, str] | None:
    """(table, message) of the first ball whose given start state (``motion0`` >= 0) is not
    allowed, or None: a ball that is absent or struck (it slides after its strike) takes no
    state, and a state must agree with the ball's ``vw`` (T, B, 5) vx, vy, wx, wy, wz before
    the strikes: it is the state the kernel gives that ball (:func:`~.motion.classify`), or
    sliding for a rolling ball, or rolling for a moving ball whose slip is at most
    :data:`ROLLING_SLIP_TOL` (``_NEEDS``; "zero" is :data:`MOTION_ZERO`). ``json``: name the
    value by its JSON path (``shot[0].balls.<id>.state``; ``table_names`` and ``ball_names``
    required)."""
    given = motion0 >= 0
    if not given.any():
        return None
    T, B = motion0.shape
    struck = np.zeros((T, B), bool)
    tt, ss = np.nonzero(cue_ball >= 0)
    struck[tt, cue_ball[tt, ss]] = True
    vx, vy, wx, wy = (vw[..., k] for k in range(4))
    vn = np.hypot(vx, vy)  # |v| [m/s]
    un = np.hypot(vx - R * wy, vy + R * wx)  # slip |u| [m/s]
    state = classify_array(np.ascontiguousarray(vw, np.float64), float(R))
    # a ball the kernel would start rolling may be given as sliding (it rolls at once), and a
    # moving one as rolling while its slip is within ROLLING_SLIP_TOL (its w_xy is then reset)
    ok = ((motion0 == state) | ((motion0 == SLIDING) & (state == ROLLING))
          | ((motion0 == ROLLING) & (vn > MOTION_ZERO) & (un <= ROLLING_SLIP_TOL)))
    bad = given & (~present | struck | ~ok)
    if not bad.any():
        return None
    t, b = (int(i) for i in np.argwhere(bad)[0])
    code = int(motion0[t, b])
    name = MOTION_NAMES[code]
    if json:
        head = f"{table_names[t]}.balls.{ball_names[b]}.state = {name!r}"
        ball = repr(ball_names[b])
    else:
        ball = f"ball {b}" if ball_names is None else repr(ball_names[b])
        head = (f"{table_label(t, table_names)}: motion0[{t}, {b}] = {code} ({name}) of "
                f"{ball}")
    if not present[t, b]:
        return t, f"{head}: the ball is not on the table (present is False): give it no state"
    if struck[t, b]:
        return t, (f"{head}: {ball} is struck and slides after its strike: give a struck ball "
                   f"no state")
    vals = ", ".join(f"{float(x):.10g}" for x in vw[t, b])
    return t, (f"{head} disagrees with its v, w = [{vals}] (|v| = {float(vn[t, b]):.6g} m/s, "
               f"slip |u| = {float(un[t, b]):.6g} m/s): {name} needs {_NEEDS[code]}")


def check_motion0(motion0: np.ndarray, vw: np.ndarray, present: np.ndarray,
                  cue_ball: np.ndarray, R: float, table_names: Sequence[str] | None = None,
                  ball_names: Sequence[str] | None = None) -> None:
    """Refuse a given start state that is not allowed (:func:`motion_problem`)."""
    problem = motion_problem(motion0, vw, present, cue_ball, R, table_names, ball_names)
    if problem is not None:
        raise PhysicsInputError(problem[1])
