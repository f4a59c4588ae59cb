"""The one strike type: what a player does to the table, for T tables at once.

A :class:`Strikes` batch holds one strike per table (leading axis = table), in the units of the
physics API (docs/physics_api.md):

    cue_ball (T,)   int64    index of the struck ball (keglebillard: 0, the red, K-2;
                             golfbillard: one of the shooter's own balls, 0..9)
    cue      (T, 5) float64  V0 [m/s] cue speed, phi [deg] aim (0 = +x, 90 = +y), theta [deg]
                             cue elevation, a (side) and b (top/back) cue-tip offsets in units
                             of the ball radius R (a > 0: left English, b > 0: follow)
    place    (T, 2) float64  keglebillard: where the red is placed when the player has ball in
                             hand [m]; NaN where nothing is placed

Agents return it, the execution noise (:mod:`cuegym.games.noise`) perturbs it, the game layer
plays it. :meth:`Strikes.validate` checks the physics' limits (``V0`` in [0, 20], ``theta`` in
[0, 90], ``a^2 + b^2 <= 1``), naming the first bad value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The strike components, in the order of the ``cue`` columns.
STRIKE_FIELDS = ("V0", "phi", "theta", "a", "b")
#: The physics' limits on a strike (``cuegym.physics.simulate`` refuses anything outside).
V0_LIMIT = 20.0
THETA_LIMIT = 90.0
#: Largest cue-tip offset sqrt(a^2 + b^2) [R] the physics accepts.
TIP_LIMIT = 1.0

#: Strike limits the agents keep to (:meth:`Strikes.clipped`): well inside the physics' ones.
V0_MAX = 8.0
THETA_MAX = 60.0
SPIN_MAX = 0.6


@dataclass
class Strikes:
    """One strike per table (see the module docstring for units).

    Attributes:
        cue: (T, 5) V0 [m/s], phi [deg], theta [deg], a, b [R].
        cue_ball: (T,) struck ball index.
        place: (T, 2) keglebillard red placement [m] (NaN: none).
    """

    cue: np.ndarray
    cue_ball: np.ndarray
    place: np.ndarray

    def __post_init__(self) -> None:
        cue = np.asarray(self.cue, np.float64)
        if cue.shape != (5,) and (cue.ndim != 2 or cue.shape[1] != 5):
            raise ValueError(f"cue must have shape (T, 5) (V0, phi, theta, a, b per strike) "
                             f"or (5,), got shape {cue.shape}")
        self.cue = cue.reshape(-1, 5)
        T = len(self.cue)
        cb = np.asarray(self.cue_ball)
        if cb.size != T:
            raise ValueError(f"cue_ball must have {T} entries (one per strike), got shape "
                             f"{cb.shape}")
        if cb.size and not np.issubdtype(cb.dtype, np.integer):
            if cb.dtype == bool or not np.array_equal(cb, np.round(cb)):
                raise ValueError(f"cue_ball must hold integer ball indices, got {cb!r}")
        self.cue_ball = cb.astype(np.int64).reshape(T)
        pl = np.asarray(self.place, np.float64)
        # the exact shape: a (2, T) array has the right size but would scramble the places
        if pl.shape != (T, 2) and not (T == 1 and pl.shape == (2,)):
            raise ValueError(f"place must have shape ({T}, 2), got {pl.shape}")
        self.place = pl.reshape(T, 2)

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def empty(cls, T: int) -> Strikes:
        """T strikes of zeros on ball 0 with no placement (to fill in)."""
        return cls(np.zeros((T, 5)), np.zeros(T, np.int64), np.full((T, 2), np.nan))

    @classmethod
    def of(cls, cue: Any, cue_ball: Any = None, place: Any = None) -> Strikes:
        """From a (T, 5) strike array (or one (5,) strike); ``cue_ball`` defaults to 0 and
        ``place`` to none."""
        cue = np.asarray(cue, np.float64)
        if cue.shape[-1:] != (5,) or cue.ndim > 2:  # a (3, 4) array reshaped into nonsense
            raise ValueError(f"cue must be one strike (5,) or a (T, 5) array (V0, phi, theta, "
                             f"a, b), got shape {cue.shape}")
        cue = cue.reshape(-1, 5)
        T = len(cue)
        cb = np.zeros(T, np.int64) if cue_ball is None else np.broadcast_to(cue_ball, (T,))
        pl = np.full((T, 2), np.nan) if place is None else place
        return cls(cue, np.array(cb), pl)  # checked there: 1.7 is no ball (it was cast to 1)

    @staticmethod
    def concat(parts: Sequence[Strikes]) -> Strikes:
        if not parts:
            return Strikes.empty(0)
        return Strikes(np.concatenate([p.cue for p in parts]),
                       np.concatenate([p.cue_ball for p in parts]),
                       np.concatenate([p.place for p in parts]))

    # -- access ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.cue)

    V0 = property(lambda self: self.cue[:, 0], doc="(T,) cue speed [m/s] (a view)")
    phi = property(lambda self: self.cue[:, 1], doc="(T,) aim [deg] (a view)")
    theta = property(lambda self: self.cue[:, 2], doc="(T,) cue elevation [deg] (a view)")
    a = property(lambda self: self.cue[:, 3], doc="(T,) side offset [R] (a view)")
    b = property(lambda self: self.cue[:, 4], doc="(T,) top/back offset [R] (a view)")

    def take(self, idx: Any) -> Strikes:
        """The strikes at ``idx`` (an index array or a boolean mask), copied."""
        return Strikes(self.cue[idx].copy(), self.cue_ball[idx].copy(), self.place[idx].copy())

    def put(self, idx: Any, other: Strikes) -> None:
        """Write ``other`` into the rows ``idx`` (in place)."""
        self.cue[idx] = other.cue
        self.cue_ball[idx] = other.cue_ball
        self.place[idx] = other.place

    def repeat(self, k: int) -> Strikes:
        """Each strike ``k`` times in a row (T * k strikes)."""
        return Strikes(np.repeat(self.cue, k, axis=0), np.repeat(self.cue_ball, k),
                       np.repeat(self.place, k, axis=0))

    def copy(self) -> Strikes:
        return Strikes(self.cue.copy(), self.cue_ball.copy(), self.place.copy())

    # -- limits ---------------------------------------------------------------------------

    def validate(self, n_balls: int | None = None, tables: np.ndarray | None = None,
                 finite_only: bool = False) -> Strikes:
        """Check every strike against the physics' limits (``finite_only``: only that every
        value is finite); returns self. ``tables``: the batch index of each strike, for the
        messages (a game's played tables), else its own index.

        Raises:
            ValueError: a NaN/inf strike value, V0 outside [0, 20] m/s, theta outside [0, 90]
                deg, a^2 + b^2 > 1, or (with ``n_balls``) a cue ball index outside
                0..n_balls-1; the message names the table and the value.
        """
        def at(t: int, name: str) -> str:  # "strike 2: V0" or "table 5: V0"
            return f"strike {t}: {name}" if tables is None else f"table {int(tables[t])}: {name}"

        bad = ~np.isfinite(self.cue)
        if bad.any():
            t, k = np.argwhere(bad)[0]
            v = float(self.cue[t, k])
            name = STRIKE_FIELDS[k] if tables is None else f"strike {STRIKE_FIELDS[k]}"
            raise ValueError(f"{at(t, name)} = {v!r} is not finite")
        if finite_only:
            return self
        for k, hi in ((0, V0_LIMIT), (2, THETA_LIMIT)):
            col = self.cue[:, k]
            out = (col < 0.0) | (col > hi)
            if out.any():
                t = int(np.argmax(out))
                raise ValueError(f"{at(t, STRIKE_FIELDS[k])} = {float(col[t])!r} is outside "
                                 f"[0, {hi}]")
        r2 = self.cue[:, 3] ** 2 + self.cue[:, 4] ** 2
        out = r2 > TIP_LIMIT ** 2 + 1e-12
        if out.any():
            t = int(np.argmax(out))
            raise ValueError(f"{at(t, 'a^2 + b^2')} = {float(r2[t])!r} exceeds 1 (a = "
                             f"{float(self.cue[t, 3])!r}, b = {float(self.cue[t, 4])!r})")
        if n_balls is not None:
            out = (self.cue_ball < 0) | (self.cue_ball >= n_balls)
            if out.any():
                t = int(np.argmax(out))
                raise ValueError(f"strike {t}: cue_ball = {self.cue_ball[t]} is not a ball "
                                 f"index 0..{n_balls - 1}")
        return self

    def clipped(self) -> Strikes:
        """A copy kept inside the agents' strike limits (V0 in [0.05, V0_MAX], theta in
        [0, THETA_MAX], a^2 + b^2 <= SPIN_MAX^2, phi wrapped to [-180, 180))."""
        cue = self.cue.copy()
        cue[:, 0] = np.clip(cue[:, 0], 0.05, V0_MAX)
        cue[:, 1] = (cue[:, 1] + 180.0) % 360.0 - 180.0
        cue[:, 2] = np.clip(cue[:, 2], 0.0, THETA_MAX)
        r = np.hypot(cue[:, 3], cue[:, 4])
        scale = np.where(r > SPIN_MAX, SPIN_MAX / np.maximum(r, 1e-12), 1.0)
        cue[:, 3:5] *= scale[:, None]
        return Strikes(cue, self.cue_ball.copy(), self.place.copy())


def clamp_cue(cue: np.ndarray) -> np.ndarray:
    """(..., 5) strikes kept valid for the physics, in place and returned: V0 clipped to
    [0, 20], theta to [0, 90], and (a, b) scaled radially onto a^2 + b^2 <= 1 (just inside, so
    rounding never crosses the limit). phi is not touched (the physics takes any angle)."""
    np.clip(cue[..., 0], 0.0, V0_LIMIT, out=cue[..., 0])
    np.clip(cue[..., 2], 0.0, THETA_LIMIT, out=cue[..., 2])
    r = np.hypot(cue[..., 3], cue[..., 4])
    big = r > TIP_LIMIT
    if big.any():
        cue[..., 3:5][big] /= (r[big] / TIP_LIMIT * (1.0 + 1e-12))[:, None]
    return cue


__all__ = ["STRIKE_FIELDS", "SPIN_MAX", "THETA_MAX", "V0_MAX", "Strikes", "clamp_cue"]


def active_tables(strikes: Strikes, T: int, active: Any, over: np.ndarray,
                  what: str) -> tuple[np.ndarray, np.ndarray]:
    """The tables a game layer's ``play`` is asked to play, checked: one strike per table,
    ``active`` (None: all) a (T,) mask, and none of them ``over`` (``what`` names the end in
    the error: "game" or "match").

    Returns:
        (active mask (T,) bool, active table indices).
    """
    if len(strikes) != T:
        raise ValueError(f"{len(strikes)} strikes for {T} tables")
    if active is None:
        act = np.ones(T, bool)
    else:
        # a bool mask only, as the envs' reset_mask: ints, floats or strings are refused
        # rather than cast (2 or "no" would silently be True)
        try:
            act = np.asarray(active)
        except (TypeError, ValueError):
            act = np.asarray(None)
        if act.dtype != np.bool_:
            raise ValueError(f"active must be a bool array of shape ({T},), got dtype "
                             f"{act.dtype}: {str(active)[:100]}")
    if act.shape != (T,):
        raise ValueError(f"active must have shape ({T},), got {act.shape}")
    idx = np.flatnonzero(act)
    done = over[idx]
    if done.any():
        raise ValueError(f"table {int(idx[np.argmax(done)])}: the {what} is over")
    return act, idx
