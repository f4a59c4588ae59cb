"""Path queries: where every ball was at any time during a simulated shot, in closed form.

Every change of a ball's motion is an event that logs the ball's state right after it, so a
ball's path is a chain of parabolic pieces ``p(τ) = p0 + q τ + acc τ²`` between its events.
Rules use this ("did this ball leave that zone during the shot"); rendering samples it.

Example:
    >>> import numpy as np
    >>> from cuegym.configs import load_table, load_params
    >>> from cuegym.physics import simulate
    >>> from cuegym.physics.path import positions_at, ball_segments
    >>> table, params = load_table("keglebillard"), load_params("keglebillard")
    >>> res = simulate(table, params, [[[-0.8, 0.3], [-0.525, 0.0], [0.525, 0.0]]],
    ...                cue_ball=[0], cue=[[1.5, 0.0, 0.0, 0.0, 0.0]])
    >>> positions_at(res, [0.0, 0.5]).shape     # (T, N times, B, 2)
    (1, 2, 3, 2)
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..configs import short_repr
from .api import MEMORY_CHECK_FROM, available_memory
from .checks import PhysicsInputError, as_array, check_index, convert, is_real, real_array
from .constants import EV_BALL_BALL, EV_BALL_POCKET, EV_PIN_PIN
from .motion import evolve, path_coeffs


@nb.njit(cache=True, error_model="numpy")
def _positions_kernel(st0, mo0, ev_type, ev_time, ev_i, ev_j, ev_state, ev_motion, n_events,
                      t_end, final_xy, times, prm, out):
    """out[t, k, b, :] = state (x, y, vx, vy, wx, wy, wz) of ball b of table t at times[t, k]
    (times sorted per table; clamped to [0, t_end]). A ball's pocket event logs where it
    dropped; from then on it lies at its final place ``final_xy`` (T, B, 2), the pocket's
    centre."""
    T, B, _ = st0.shape
    N = times.shape[1]
    cur = np.empty((B, 7))
    cur_t = np.empty(B)
    cur_m = np.empty(B, np.int64)
    for t in range(T):
        for b in range(B):
            for c in range(7):
                cur[b, c] = st0[t, b, c]
            cur_t[b] = 0.0
            cur_m[b] = mo0[t, b]
        k = 0
        n = n_events[t]
        for s in range(N):
            tq = min(max(times[t, s], 0.0), t_end[t])
            while k < n and ev_time[t, k] <= tq:
                typ = ev_type[t, k]
                if typ != EV_PIN_PIN:
                    a = ev_i[t, k]
                    for c in range(7):
                        cur[a, c] = ev_state[t, k, 0, c]
                    cur_t[a] = ev_time[t, k]
                    cur_m[a] = ev_motion[t, k, 0]
                    if typ == EV_BALL_POCKET:
                        cur[a, 0] = final_xy[t, a, 0]
                        cur[a, 1] = final_xy[t, a, 1]
                    if typ == EV_BALL_BALL:
                        bb = ev_j[t, k]
                        for c in range(7):
                            cur[bb, c] = ev_state[t, k, 1, c]
                        cur_t[bb] = ev_time[t, k]
                        cur_m[bb] = ev_motion[t, k, 1]
                k += 1
            for b in range(B):
                x, y, vx, vy, wx, wy, wz = evolve(cur[b, 0], cur[b, 1], cur[b, 2], cur[b, 3],
                                                  cur[b, 4], cur[b, 5], cur[b, 6], cur_m[b],
                                                  tq - cur_t[b], prm)
                out[t, s, b, 0] = x
                out[t, s, b, 1] = y
                out[t, s, b, 2] = vx
                out[t, s, b, 3] = vy
                out[t, s, b, 4] = wx
                out[t, s, b, 5] = wy
                out[t, s, b, 6] = wz


def _start_state(res) -> np.ndarray:
    st0 = np.empty(res.rvw0.shape[:2] + (7,))
    st0[..., 0:2] = res.rvw0[..., 0, 0:2]
    st0[..., 2:4] = res.rvw0[..., 1, 0:2]
    st0[..., 4:7] = res.rvw0[..., 2, :]
    return st0


def _times_array(times, T: int) -> np.ndarray:
    """``times`` as a finite (T, N) float64 array; anything that is not real numbers of shape
    (N,) or (T, N) raises a PhysicsInputError naming ``times``."""
    what = f"an (N,) or ({T}, N) array of real numbers [s]"
    arr = times if isinstance(times, np.ndarray) else convert("times", times, what)
    arr = real_array("times", arr, what)
    if arr.ndim == 1:
        arr = np.broadcast_to(arr, (T, arr.shape[0]))
    if arr.ndim != 2 or arr.shape[0] != T:
        raise PhysicsInputError(f"times must have shape (N,) or ({T}, N), got {arr.shape}")
    return as_array("times", arr, arr.shape, f"(N,) or ({T}, N)")


def states_at(res, times) -> np.ndarray:
    """Full ball states at the given times.

    Args:
        res: a :class:`~cuegym.physics.SimResult`.
        times: (N,) times [s] shared by all tables, or (T, N) per table, in any order (the
            output keeps the caller's order). Times are clamped to [0, t_end] of each table.
            At an event time the state is the one right after the event.
    Returns:
        (T, N, B, 7): x, y [m], vx, vy [m/s], wx, wy, wz [rad/s]. Pocketed balls stay where
        their centre entered the pocket, at rest.
    Raises:
        PhysicsInputError (a ValueError): ``times`` not real numbers, not finite, of another
        shape, or too many to fit in memory.
    """
    T, B = res.motion.shape
    times = _times_array(times, T)
    N = times.shape[1]
    _check_output_memory("times", T * N * B * 7 * 8)
    order = None
    # the kernel walks each row in order (compared, not differenced: 1e308 - -1e308 overflows)
    if N > 1 and np.any(times[:, 1:] < times[:, :-1]):
        order = np.argsort(times, axis=1, kind="stable")
        times = np.take_along_axis(times, order, axis=1)
    out = np.empty((T, N, B, 7))
    _positions_kernel(_start_state(res), res.motion0.astype(np.int64), res.ev_type, res.ev_time,
                      res.ev_i, res.ev_j, res.ev_state, res.ev_motion, res.n_events, res.t_end,
                      np.ascontiguousarray(res.rvw[:, :, 0, :2]), np.ascontiguousarray(times),
                      res.prm, out)
    if order is not None:  # back to the caller's order
        back = np.empty_like(out)
        np.put_along_axis(back, order[:, :, None, None], out, axis=1)
        out = back
    return out


def _check_output_memory(name: str, nbytes: int) -> None:
    """Refuse an output array that would not fit in 90 % of the available memory."""
    if nbytes < MEMORY_CHECK_FROM:
        return
    avail = available_memory()
    if avail is not None and nbytes > 0.9 * avail:
        raise PhysicsInputError(f"{name}: the result would need about {nbytes / 2**30:.2f} GiB "
                                f"but only {avail / 2**30:.2f} GiB is available: ask for fewer "
                                f"times (a larger dt)")


def positions_at(res, times) -> np.ndarray:
    """Ball centres at the given times: (T, N, B, 2) [m]. See :func:`states_at`."""
    return states_at(res, times)[..., 0:2]


def sample_paths(res, dt: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """Positions of every ball every ``dt`` seconds up to the longest t_end.

    Args:
        dt: sample spacing [s], a positive finite real number.
    Returns:
        (times (N,), positions (T, N, B, 2)). Tables that ended earlier repeat their final
        positions.
    Raises:
        PhysicsInputError (a ValueError): a bad ``dt``, or one so small that the samples would
        not fit in memory.
    """
    if not is_real(dt):
        raise PhysicsInputError(f"dt must be a positive number of seconds, got {short_repr(dt)}")
    try:
        step = float(dt)
    except OverflowError:
        step = float("inf")
    if not (step > 0 and np.isfinite(step)):
        raise PhysicsInputError(f"dt must be > 0 and finite, got {short_repr(dt)}")
    t_last = float(np.max(res.t_end)) if res.t_end.size else 0.0
    n = int(min((t_last + step) / step, 2.0**62)) + 1  # np.arange's length, or one more
    T, B = res.motion.shape
    _check_output_memory("dt", n * (8 + T * B * 7 * 8))
    times = np.arange(0.0, t_last + step, step)
    times[-1] = min(times[-1], t_last)
    return times, positions_at(res, times)


def ball_segments(res, table: int, ball: int) -> list[tuple[float, float, np.ndarray,
                                                             np.ndarray, np.ndarray]]:
    """The closed-form pieces of one ball's path.

    Returns:
        A list of ``(t_start, t_end, p0, q, acc)``; during [t_start, t_end] the ball centre is
        ``p0 + q τ + acc τ²`` with τ = t − t_start (p0, q, acc: (2,) arrays in m, m/s, m/s²).
        Pieces where the ball does not move have q = acc = 0.
    Raises:
        PhysicsInputError (a ValueError): ``table`` or ``ball`` not an integer index of the
        result (negative indices are refused, not counted from the end).
    """
    T, B = res.motion.shape
    table = check_index("table", table, T, "tables")
    ball = check_index("ball", ball, B, "balls")
    n = int(res.n_events[table])
    t_end = float(res.t_end[table])
    st = _start_state(res)[table, ball].copy()
    m = int(res.motion0[table, ball])
    t0 = 0.0
    changes: list[tuple[float, np.ndarray, int]] = [(0.0, st, m)]
    for k in range(n):
        typ = int(res.ev_type[table, k])
        if typ == EV_PIN_PIN:
            continue
        if int(res.ev_i[table, k]) == ball:
            slot = 0
        elif typ == EV_BALL_BALL and int(res.ev_j[table, k]) == ball:
            slot = 1
        else:
            continue
        state = res.ev_state[table, k, slot].copy()
        if typ == EV_BALL_POCKET:  # logged where it dropped; from then on at the pocket's
            state[:2] = res.rvw[table, ball, 0, :2]  # centre (its final place)
        changes.append((float(res.ev_time[table, k]), state, int(res.ev_motion[table, k, slot])))
    segs = []
    for idx, (t0, s, m) in enumerate(changes):
        t1 = changes[idx + 1][0] if idx + 1 < len(changes) else t_end
        qx, qy, ax, ay = path_coeffs(s[2], s[3], s[4], s[5], m, res.prm)
        segs.append((t0, max(t1, t0), np.array([s[0], s[1]]), np.array([qx, qy]),
                     np.array([ax, ay])))
    return segs
