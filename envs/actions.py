"""Flat actions in [-1, 1] -> strikes: validation and the documented linear maps.

Every env's action is a ``Box(-1, 1, (A,), float32)``. The first five components are the strike,
in the order of the physics API (docs/physics_api.md): cue speed ``V0``, aim ``phi``, elevation
``theta``, side spin ``a``, top/back spin ``b``. Keglebillard adds the red's placement (used
only when the player has the red in hand); golfbillard adds an aimed point that selects the
struck ball (the player's own ball nearest that point).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from .config import ActionSpec

#: The strike components of every action, in order.
STRIKE_FIELDS = ("V0", "phi", "theta", "a", "b")

#: How far past +-1 an action may lie and still be taken (clipped) without ``clip``: float32
#: rounding, as when ``gymnasium.wrappers.RescaleAction`` maps its own float32 bound to
#: 1.0000001. A few float32 steps (1.2e-7 each); a real overshoot is refused.
BOUND_ROUNDING = 1e-6


def layout_box(layout) -> gym.spaces.Box:
    """The float32 Box of an observation layout ``((name, low, high), ...)``."""
    low = np.array([lo for _, lo, _ in layout], np.float32)
    high = np.array([hi for _, _, hi in layout], np.float32)
    return gym.spaces.Box(low, high, dtype=np.float32)


def unit_box(dim: int) -> gym.spaces.Box:
    """The flat action space: ``dim`` values in [-1, 1]."""
    return gym.spaces.Box(-1.0, 1.0, (dim,), np.float32)


def check_actions(actions, n: int | None, dim: int, *, clip: bool) -> np.ndarray:
    """Validate a batch of actions and return it as a float64 (n, dim) array.

    Args:
        actions: (n, dim) array-like, a vector env's batch; with ``n=None`` one env's (dim,)
            action, returned as (1, dim). Nothing else is reshaped: a (1, dim) action to a
            single env, or a (dim,) one to a vector env of one table, is a shape error.
        clip: clip values outside [-1, 1] instead of raising. Values within
            :data:`BOUND_ROUNDING` of the bounds (float32 rounding) are clipped either way.

    Raises:
        ValueError: not real numbers (strings, complex, booleans, objects), wrong shape, a NaN
            or inf (always), or a value outside [-1, 1] by more than :data:`BOUND_ROUNDING`
            (unless ``clip``); the message names the first offending entry.
    """
    if np.ma.is_masked(actions):  # np.asarray would drop the mask and play the hidden values
        raise ValueError(f"action must not have masked entries, got {actions!r}")
    try:
        raw = np.asarray(actions)
    except (TypeError, ValueError):  # ragged nested sequences
        raise ValueError(f"action must be numeric (real numbers), got {actions!r}") from None
    if raw.dtype.kind not in "fiu":  # strings, complex, bool, objects: never silently cast
        shown = repr(actions)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ValueError(f"action must be numeric: real numbers (float or int), got dtype "
                         f"{raw.dtype}: {shown}")
    a = raw.astype(np.float64, copy=False)
    want = (dim,) if n is None else (n, dim)
    if a.shape != want:
        raise ValueError(f"action must have shape {want}, got {a.shape}")
    single = n is None
    if single:
        a = a[None]
    finite = np.isfinite(a)
    if not finite.all():
        t, k = np.argwhere(~finite)[0]
        where = f"action[{k}]" if single else f"action[{t}, {k}]"
        raise ValueError(f"{where} is {float(a[t, k])!r}: actions must be finite")
    out = (a < -1.0) | (a > 1.0)
    if out.any():
        far = np.abs(a) > 1.0 + BOUND_ROUNDING
        if not clip and far.any():
            t, k = np.argwhere(far)[0]
            where = f"action[{k}]" if single else f"action[{t}, {k}]"
            raise ValueError(f"{where} = {float(a[t, k])!r} is outside [-1, 1] (pass clip=True "
                             "to the env to clip instead)")
        a = np.clip(a, -1.0, 1.0)
    return a


def strikes_from_actions(a: np.ndarray, spec: ActionSpec, phi_offset=0.0) -> np.ndarray:
    """(n, 5) strikes V0 [m/s], phi [deg], theta [deg], a, b from validated actions.

    ``V0 = V0_min + (u0 + 1) / 2 * (V0_max - V0_min)``; ``phi = 180 * u1 + phi_offset`` (degrees
    counter-clockwise from +x, wrapped to [-180, 180)); ``theta = theta_min + (u2 + 1) / 2 *
    (theta_max - theta_min)``; ``a = spin * u3``; ``b = spin * u4``.
    """
    v_lo, v_hi = spec.V0
    t_lo, t_hi = spec.theta
    cue = np.empty((a.shape[0], 5))
    cue[:, 0] = v_lo + (a[:, 0] + 1.0) * 0.5 * (v_hi - v_lo)
    cue[:, 1] = np.mod(180.0 * a[:, 1] + phi_offset + 180.0, 360.0) - 180.0
    cue[:, 2] = t_lo + (a[:, 2] + 1.0) * 0.5 * (t_hi - t_lo)
    cue[:, 3] = spec.spin * a[:, 3]
    cue[:, 4] = spec.spin * a[:, 4]
    return cue


def actions_from_strikes(cue: np.ndarray, spec: ActionSpec, phi_offset=0.0) -> np.ndarray:
    """Inverse of :func:`strikes_from_actions` (n, 5) -> (n, 5) actions, clipped to [-1, 1]
    (a strike outside the action ranges maps to the nearest one)."""
    cue = np.asarray(cue, np.float64).reshape(-1, 5)
    v_lo, v_hi = spec.V0
    t_lo, t_hi = spec.theta
    u = np.empty_like(cue)
    u[:, 0] = 2.0 * (cue[:, 0] - v_lo) / (v_hi - v_lo) - 1.0
    u[:, 1] = (np.mod(cue[:, 1] - phi_offset + 180.0, 360.0) - 180.0) / 180.0
    u[:, 2] = 2.0 * (cue[:, 2] - t_lo) / (t_hi - t_lo) - 1.0
    spin = spec.spin if spec.spin > 0 else 1.0
    u[:, 3] = cue[:, 3] / spin
    u[:, 4] = cue[:, 4] / spin
    return np.clip(u, -1.0, 1.0)


def scale(u: np.ndarray, lo, hi) -> np.ndarray:
    """Map [-1, 1] linearly onto [lo, hi] (arrays broadcast); exact at both ends."""
    w = (u + 1.0) * 0.5
    return np.where(u >= 1.0, hi, lo + w * (np.asarray(hi) - np.asarray(lo)))
