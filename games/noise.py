"""The one execution-noise model: Gaussian noise on every executed strike.

As in the computational billiards tournaments (ICGA / FastFiz, the Computational Pool Olympiad),
the strike a player executes is the one it intended plus independent Gaussian noise on each
component. One convention everywhere (envs, arenas, the planner's search, demonstrations):

* **Units are the strike's own** (:mod:`cuegym.games.strikes`): ``V0`` [m/s], ``phi`` [deg],
  ``theta`` [deg], ``a`` and ``b`` in units of the ball radius R, plus ``place`` [m] on a
  keglebillard ball-in-hand placement (x and y each). The presets in
  ``configs/envs/noise.yaml`` and any mapping of deviations use these units too (the
  tournament's 0.5 mm cue-tip deviation is written as 0.5 mm / R there).
* **Clamps**: after the noise, every strike is put back inside the physics' limits by
  :func:`~cuegym.games.strikes.clamp_cue`: V0 clipped to [0, 20] m/s, theta to [0, 90] deg,
  (a, b) scaled radially onto a^2 + b^2 <= 1. phi is left as is. The clamp applies with zero
  noise too (so an executed strike is always playable).
* **Draws**: :meth:`ShotNoise.draw` takes one generator (all T rows from it, in row order:
  ``rng.standard_normal((T, 5))``) or a sequence of T generators (row t from ``rngs[t]``: the
  envs give each table its own, so a table's stream does not depend on the batch). A noise of
  all-zero deviations draws nothing. Placement noise, when set, is drawn after the strikes.

Example:
    >>> import numpy as np
    >>> from cuegym.games.noise import load_noise
    >>> from cuegym.games.strikes import Strikes
    >>> n = load_noise("tournament")
    >>> n.phi, round(n.a, 5)
    (0.125, 0.01626)
    >>> out = n.apply(Strikes.of([[3.0, 0.0, 0.0, 0.0, 0.0]]), np.random.default_rng(0))
    >>> abs(out.cue[0, 1]) < 1.0
    True
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cuegym.cli_errors import UsageError, did_you_mean
from cuegym.cli_errors import unknown as unknown_name
from cuegym.configs import (
    CONFIG_DIR,
    TABLE_NAMES,
    ConfigError,
    finite_number,
    load_table,
    load_yaml,
)

from .strikes import THETA_LIMIT, TIP_LIMIT, V0_LIMIT, Strikes, clamp_cue

NOISE_PATH = CONFIG_DIR / "envs" / "noise.yaml"
_KEYS = ("V0", "phi", "theta", "a", "b", "place")
#: The longest shipped table's length [m] (configs/tables: the helmatch table, 2.84 m).
LONGEST_TABLE = max(load_table(name).length for name in TABLE_NAMES)
#: The largest deviation of each component, with its unit: the whole range the clamp keeps it in
#: (V0 [0, 20] m/s, theta [0, 90] deg, a and b within the unit disc), a full turn of phi, and the
#: longest table's length for a placement. A wider deviation only means "anything", so it is
#: refused.
MAX_DEVIATION = {"V0": (V0_LIMIT, "m/s"), "phi": (360.0, "deg"), "theta": (THETA_LIMIT, "deg"),
                 "a": (TIP_LIMIT, "R"), "b": (TIP_LIMIT, "R"), "place": (LONGEST_TABLE, "m")}


def _deviation(name: str, value: Any) -> float:
    x = finite_number(f"noise.{name}", value)
    if x < 0:
        raise ConfigError(f"noise.{name} is a standard deviation and must be finite and >= 0, "
                          f"got {value!r}")
    hi, unit = MAX_DEVIATION.get(name, (np.inf, ""))
    if x > hi:
        raise ConfigError(f"noise.{name} must be at most {hi:g} {unit} (the whole range of the "
                          f"component), got {value!r}")
    return x


@dataclass(frozen=True)
class ShotNoise:
    """Standard deviations of the execution noise (units: the module docstring).

    Attributes:
        V0: cue speed [m/s]. phi: aim [deg]. theta: cue elevation [deg].
        a, b: cue-tip offsets [R]. place: ball-in-hand placement, x and y each [m].
        name: the preset name (``custom`` for hand-made ones).
    """

    V0: float = 0.0
    phi: float = 0.0
    theta: float = 0.0
    a: float = 0.0
    b: float = 0.0
    place: float = 0.0
    name: str = "custom"

    def __post_init__(self) -> None:
        for k in _KEYS:
            object.__setattr__(self, k, _deviation(k, getattr(self, k)))

    @property
    def sigma(self) -> np.ndarray:
        """(5,) deviations in strike order V0, phi, theta, a, b."""
        return np.array([self.V0, self.phi, self.theta, self.a, self.b])

    @property
    def is_zero(self) -> bool:
        return not (any((self.V0, self.phi, self.theta, self.a, self.b)) or self.place)

    def scaled(self, k: float) -> ShotNoise:
        """Every deviation times ``k`` (>= 0, at most what keeps each within
        :data:`MAX_DEVIATION`)."""
        k = _deviation("scale", k)
        limits = {f: MAX_DEVIATION[f][0] / getattr(self, f) for f in _KEYS if getattr(self, f)}
        if limits and k > min(limits.values()) * (1 + 1e-12):
            f = min(limits, key=limits.get)
            raise ConfigError(f"noise scale {k:g} is above {limits[f]:g}, the most the "
                              f"{self.name} noise takes: its {f} deviation would be "
                              f"{getattr(self, f) * k:g} {MAX_DEVIATION[f][1]}, above "
                              f"{MAX_DEVIATION[f][0]:g}")
        return ShotNoise(*(getattr(self, f) * k for f in _KEYS), name=f"{self.name}*{k:g}")

    # -- drawing and applying -------------------------------------------------------------

    def draw(self, rng: np.random.Generator | Sequence[np.random.Generator], T: int,
             k: int = 1) -> np.ndarray:
        """(T, k, 5) standard normal draws for T strikes, k samples each (see the module
        docstring for which generator feeds which row); zeros, drawing nothing, when the strike
        deviations are all zero."""
        z = np.zeros((T, k, 5))
        if not self.sigma.any() or T == 0:
            return z
        if isinstance(rng, np.random.Generator):
            return rng.standard_normal((T, k, 5))
        if len(rng) != T:
            raise ValueError(f"{len(rng)} generators for {T} strikes")
        for t in range(T):
            rng[t].standard_normal(out=z[t])
        return z

    def perturb(self, cue: np.ndarray, z: np.ndarray) -> np.ndarray:
        """``cue`` (..., 5) plus ``z * sigma`` (z broadcast to it), clamped; a new array."""
        out = np.asarray(cue, np.float64) + np.asarray(z) * self.sigma
        return clamp_cue(out)

    def sample(self, cue: np.ndarray, k: int, rng: np.random.Generator | Sequence,
               z: np.ndarray | None = None) -> np.ndarray:
        """(T, k, 5) noisy copies of (T, 5) strikes. ``z``: optional (T, k, 5) standard normal
        draws used instead of drawing (common random numbers across candidates)."""
        cue = np.asarray(cue, np.float64).reshape(-1, 5)
        T = len(cue)
        if z is None:
            z = self.draw(rng, T, k)
        return self.perturb(cue[:, None, :], np.asarray(z).reshape(T, k, 5))

    def execute(self, cue: np.ndarray, rng: np.random.Generator | Sequence) -> np.ndarray:
        """(T, 5) executed strikes for (T, 5) intended ones: one sample each, clamped."""
        return self.sample(cue, 1, rng)[:, 0]

    def apply(self, strikes: Strikes, rng: np.random.Generator | Sequence) -> Strikes:
        """The strikes as executed: one noise sample each, clamped; placements (where set) get
        ``place`` noise. ``strikes`` is not written."""
        T = len(strikes)
        cue = self.sample(strikes.cue, 1, rng)[:, 0]
        place = strikes.place.copy()
        if self.place and T:
            if isinstance(rng, np.random.Generator):
                dz = rng.standard_normal((T, 2))
            else:
                dz = np.stack([g.standard_normal(2) for g in rng])
            place += dz * self.place
        return Strikes(cue, strikes.cue_ball.copy(), place)


def check_intended(strikes: Strikes, idx: np.ndarray) -> Strikes:
    """The strikes of the tables ``idx``, every value finite (a ValueError naming the table
    and the value otherwise)."""
    return strikes.take(idx).validate(tables=idx, finite_only=True)


def execute_strikes(strikes: Strikes, idx: np.ndarray, noise: ShotNoise | None,
                    rng: np.random.Generator | Sequence | None) -> Strikes:
    """The strikes of the tables ``idx`` (of a (T,) batch) as executed, for both games' ``play``:
    without noise (None) as given, checked against the physics' limits; with noise (zero noise
    too) one sample each, clamped (:meth:`ShotNoise.apply`; ``rng`` one Generator, or one per
    table of the batch). Checked first, before anything is drawn: every intended value finite
    (NaN plus noise stayed NaN and reached the physics, which named a row, not the table) and,
    with noise other than zero, a generator.

    Raises:
        ValueError: naming the table (its index in the batch) and the value.
    """
    sub = check_intended(strikes, idx)
    if noise is None:
        return sub.validate(tables=idx)
    if rng is None and not noise.is_zero:
        raise ValueError("execution noise needs rng (a Generator or one per table)")
    g = rng if isinstance(rng, np.random.Generator) or rng is None else [rng[t] for t in idx]
    return noise.apply(sub, g)


@functools.lru_cache(maxsize=1)
def noise_presets() -> dict[str, ShotNoise]:
    """The presets of ``configs/envs/noise.yaml`` by name."""
    if not NOISE_PATH.exists():
        raise ConfigError(f"no config file {str(NOISE_PATH)!r}")
    with open(NOISE_PATH) as fh:
        data = load_yaml(fh)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{NOISE_PATH}: expected a mapping of presets")
    out = {}
    for name, values in data.items():
        if not isinstance(values, Mapping) or set(values) - set(_KEYS):
            raise ConfigError(f"noise preset {name!r} must map some of {list(_KEYS)} to numbers,"
                              f" got {values!r}")
        out[str(name)] = ShotNoise(**values, name=str(name))
    return out


def load_noise(source: Any = "none") -> ShotNoise:
    """A :class:`ShotNoise` from:

    * a preset name of ``configs/envs/noise.yaml`` (``none``, ``tournament``); None is ``none``;
    * a number ``k`` >= 0 (or its string, e.g. ``"2"``): the tournament preset times ``k``;
    * a mapping of deviations in strike units (``{"phi": 0.2}``; missing ones are 0);
    * a :class:`ShotNoise` (returned as is).

    Raises:
        ConfigError (a ValueError): an unknown preset or key, or a bad value.
    """
    if isinstance(source, ShotNoise):
        return source
    if source is None:
        source = "none"
    presets = noise_presets()
    if isinstance(source, str):
        if source in presets:
            return presets[source]
        try:
            k = float(source)
        except ValueError:
            raise ConfigError(unknown_name("shot-noise preset", source, sorted(presets))
                              + " (or a scale factor of the tournament noise)") from None
        return presets["tournament"].scaled(k)
    if isinstance(source, (int, float, np.integer, np.floating)) and not isinstance(source, bool):
        return presets["tournament"].scaled(float(source))
    if isinstance(source, Mapping):
        extra = sorted(set(source) - set(_KEYS))
        if extra:
            raise ConfigError(f"unknown noise key(s) {extra}{did_you_mean(str(extra[0]), _KEYS)}"
                              f"; known: {list(_KEYS)}")
        return ShotNoise(**dict(source))
    raise ConfigError(f"noise must be a preset name, a scale factor, a mapping or a ShotNoise, "
                      f"got {source!r}")


def check_noise_option(value: Any, name: str = "--noise") -> None:
    """Refuse, before any work, a noise :func:`load_noise` cannot read: a
    :class:`~cuegym.cli_errors.UsageError` (one line, exit status 2) naming ``name`` and the
    value. Commands check their noise so before simulating, not when the first game starts."""
    try:
        load_noise(value)
    except ValueError as exc:
        raise UsageError(f"{name} {value!r}: {exc}") from None


__all__ = ["ShotNoise", "check_noise_option", "load_noise", "noise_presets"]
