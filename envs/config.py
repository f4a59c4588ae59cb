"""Env settings, reward weights and shot-noise presets: frozen, validated, loaded from YAML.

Files (unknown keys are errors, values are checked):

- ``configs/envs/<game>.yaml``   :class:`EnvSettings` (action ranges, physics limits, bank name)
- ``configs/envs/noise.yaml``    :class:`ShotNoise` presets (``none``, ``tournament``)
- ``configs/reward/<game>.yaml`` :class:`KeglebillardReward` / :class:`GolfbillardReward`

Example:
    >>> from cuegym.envs.config import load_reward, load_noise, load_settings
    >>> load_reward("keglebillard").points
    0.0625
    >>> round(load_noise("tournament").phi, 3)
    0.125
    >>> load_settings("keglebillard").action.V0
    (0.5, 6.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cuegym.cli_errors import did_you_mean, unknown
from cuegym.configs import CONFIG_DIR, ConfigError

GAMES = ("keglebillard", "golfbillard")


def _read(path: Path) -> dict:
    if not path.exists():
        raise ConfigError(f"no config file {str(path)!r}")
    with open(path) as fh:
        data = yaml.safe_load(fh)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return data


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool):
        raise ConfigError(f"{name} must be a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise ConfigError(f"{name} must be finite, got {value!r}")
    return x


def _from_mapping(cls, data: Mapping, base, what: str):
    if not isinstance(data, Mapping):
        raise ConfigError(f"{what} must be a mapping, got {data!r}")
    known = {f.name for f in fields(cls)}
    extra = sorted(set(data) - known)
    if extra:
        raise ConfigError(f"unknown {what} key(s) {extra}{did_you_mean(extra[0], known)}; "
                          f"known: {sorted(known)}")
    return replace(base, **dict(data)) if base is not None else cls(**dict(data))


def _check_game(game: str) -> str:
    if game not in GAMES:
        raise ConfigError(unknown("game", game, GAMES))
    return game


# ---------------------------------------------------------------------------------------------
# Rewards
# ---------------------------------------------------------------------------------------------


class _RewardTerms:
    """Shared by the reward dataclasses: validated numeric weights, term names, weight vector."""

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, _number(f"reward.{f.name}", getattr(self, f.name)))

    @property
    def terms(self) -> tuple[str, ...]:
        return tuple(f.name for f in fields(self))

    @property
    def weights(self) -> np.ndarray:
        return np.array([getattr(self, t) for t in self.terms])


@dataclass(frozen=True)
class KeglebillardReward(_RewardTerms):
    """Weights of the keglebillard reward terms (``configs/reward/keglebillard.yaml``).

    The reward of a step is ``sum(weight * term)``; the unweighted terms are in
    ``info["reward_terms"]``.

    Attributes:
        points: points credited to the learner's own shot (K-5..K-9).
        skaeve: skæve the learner's foul handed over (the shot's points plus the penalty,
            K-9a), counted once however many players receive them.
        foul: 1 per foul of the learner (K-10..K-19), a shaping term.
        win: 1 when the learner's shot put all three balls down (K-20).
        skaeve_received: full game: skæve the learner received from opponents' fouls.
        opponent_points: full game: points the opponents credited to themselves.
        result: full game, last step: +1 ranked first down to -1 ranked last.
    """

    points: float = 0.0625
    skaeve: float = -0.0625
    foul: float = 0.0
    win: float = 1.0
    skaeve_received: float = 0.0
    opponent_points: float = 0.0
    result: float = 1.0



@dataclass(frozen=True)
class GolfbillardReward(_RewardTerms):
    """Weights of the golfbillard reward terms (``configs/reward/golfbillard.yaml``).

    Attributes:
        own_goals: own balls scored by the learner's strokes (G-6, G-7 for the opponent's).
        opponent_goals: opponent balls scored because of the learner's strokes.
        foul: 1 per foul of the learner.
        progress: mean decrease of the learner's own balls' distance to its attack goal over
            the step, in table lengths (shaping; 0 by default).
        opponent_scored: full game: balls the opponent scored on its own strokes.
        result: full game, last step: +1 win, -1 loss, 0 draw or truncation.
    """

    own_goals: float = 0.2
    opponent_goals: float = -0.2
    foul: float = -0.1
    progress: float = 0.0
    opponent_scored: float = 0.0
    result: float = 1.0



_REWARD_CLASSES = {"keglebillard": KeglebillardReward, "golfbillard": GolfbillardReward}


def load_reward(game: str, source: Any = None, **overrides: float):
    """Reward weights of ``game``.

    Args:
        game: ``keglebillard`` or ``golfbillard``.
        source: None (the shipped ``configs/reward/<game>.yaml``), a YAML path, a mapping of
            weights (over the shipped file), or a reward object of the game (returned as is).
        **overrides: weights that replace those of ``source``.

    Raises:
        ConfigError (a ValueError): an unknown term or a bad value.
    """
    cls = _REWARD_CLASSES[_check_game(game)]
    if isinstance(source, cls):
        reward = source
    elif isinstance(source, Mapping) or source is None:
        reward = _from_mapping(cls, _read(CONFIG_DIR / "reward" / f"{game}.yaml"), None,
                               f"{game} reward")
        if source:
            reward = _from_mapping(cls, source, reward, f"{game} reward")
    elif isinstance(source, str | Path):
        reward = _from_mapping(cls, _read(Path(source)), None, f"{game} reward")
    else:
        raise ConfigError(f"reward must be None, a mapping, a path or a {cls.__name__}, got "
                          f"{source!r}")
    return _from_mapping(cls, overrides, reward, f"{game} reward") if overrides else reward


# ---------------------------------------------------------------------------------------------
# Shot noise
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShotNoise:
    """Gaussian shot-execution noise: standard deviations added to every executed strike.

    Attributes:
        V0: cue speed [m/s]. phi: aim [deg]. theta: cue elevation [deg].
        a, b: cue-tip offsets [m] (divided by the ball radius R when applied).
        name: the preset name (``custom`` for hand-made ones).
    """

    V0: float = 0.0
    phi: float = 0.0
    theta: float = 0.0
    a: float = 0.0
    b: float = 0.0
    name: str = "custom"

    def __post_init__(self) -> None:
        for k in ("V0", "phi", "theta", "a", "b"):
            x = _number(f"noise.{k}", getattr(self, k))
            if x < 0:
                raise ConfigError(f"noise.{k} is a standard deviation and must be >= 0, got {x!r}")
            object.__setattr__(self, k, x)

    def sigma(self, R: float) -> np.ndarray:
        """(5,) deviations in strike order V0, phi, theta, a, b (a, b in units of R)."""
        return np.array([self.V0, self.phi, self.theta, self.a / R, self.b / R])

    @property
    def is_zero(self) -> bool:
        return not any((self.V0, self.phi, self.theta, self.a, self.b))

    def apply(self, cue: np.ndarray, rngs, rows: np.ndarray, R: float) -> np.ndarray:
        """The executed strikes: ``cue`` (n, 5) plus noise, kept valid for the physics.

        One ``standard_normal(5)`` draw per row from ``rngs[rows[k]]`` (each table's own
        generator, so a table's stream does not depend on the batch). V0 is kept in [0, 20],
        theta in [0, 90], a^2 + b^2 <= 1. Returns a new array; ``cue`` is not written.
        """
        cue = np.array(cue, dtype=np.float64)
        if self.is_zero or len(rows) == 0:
            return cue
        z = np.empty((len(rows), 5))
        for k, t in enumerate(rows):
            rngs[t].standard_normal(out=z[k])
        cue += z * self.sigma(R)
        np.clip(cue[:, 0], 0.0, 20.0, out=cue[:, 0])
        np.clip(cue[:, 2], 0.0, 90.0, out=cue[:, 2])
        r = np.hypot(cue[:, 3], cue[:, 4])
        big = r > 1.0
        if big.any():
            cue[big, 3:5] /= r[big, None] * (1.0 + 1e-12)
        return cue


_NOISE_KEYS = ("V0", "phi", "theta", "a", "b")


def noise_presets() -> dict[str, ShotNoise]:
    """The presets of ``configs/envs/noise.yaml`` by name."""
    data = _read(CONFIG_DIR / "envs" / "noise.yaml")
    out = {}
    for name, values in data.items():
        if not isinstance(values, Mapping) or set(values) - set(_NOISE_KEYS):
            raise ConfigError(f"noise preset {name!r} must map {list(_NOISE_KEYS)} to numbers, "
                              f"got {values!r}")
        out[str(name)] = ShotNoise(**values, name=str(name))
    return out


def load_noise(source: Any = "none") -> ShotNoise:
    """A :class:`ShotNoise` from a preset name (``none``, ``tournament``), a mapping of
    deviations (``{"phi": 0.2}``; missing ones are 0) or a ShotNoise (returned as is)."""
    if isinstance(source, ShotNoise):
        return source
    if source is None:
        source = "none"
    if isinstance(source, str):
        presets = noise_presets()
        if source not in presets:
            raise ConfigError(unknown("shot-noise preset", source, sorted(presets)))
        return presets[source]
    if isinstance(source, Mapping):
        extra = sorted(set(source) - set(_NOISE_KEYS))
        if extra:
            raise ConfigError(f"unknown noise key(s) {extra}{did_you_mean(extra[0], _NOISE_KEYS)}"
                              f"; known: {list(_NOISE_KEYS)}")
        return ShotNoise(**dict(source))
    raise ConfigError(f"noise must be a preset name, a mapping or a ShotNoise, got {source!r}")


# ---------------------------------------------------------------------------------------------
# Env settings
# ---------------------------------------------------------------------------------------------


def _range(name: str, value: Any, lo: float, hi: float) -> tuple[float, float]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ConfigError(f"{name} must be [min, max], got {value!r}")
    a, b = _number(f"{name}[0]", value[0]), _number(f"{name}[1]", value[1])
    if not lo <= a < b <= hi:
        raise ConfigError(f"{name} must satisfy {lo} <= min < max <= {hi}, got {value!r}")
    return a, b


@dataclass(frozen=True)
class ActionSpec:
    """How the flat action in [-1, 1] maps to a strike.

    Attributes:
        V0: (min, max) cue speed [m/s]; action -1 is min, +1 is max (linear).
        theta: (min, max) cue elevation [deg] (linear).
        spin: largest |a| and |b| (cue-tip offset / R); a = spin * action (a^2 + b^2 <= 2 spin^2,
            so spin <= 0.7 keeps every strike inside the ball).
    """

    V0: tuple[float, float] = (0.5, 6.0)
    theta: tuple[float, float] = (0.0, 60.0)
    spin: float = 0.5

    def __post_init__(self) -> None:
        object.__setattr__(self, "V0", _range("action.V0", self.V0, 0.0, 20.0))
        object.__setattr__(self, "theta", _range("action.theta", self.theta, 0.0, 90.0))
        s = _number("action.spin", self.spin)
        if not 0.0 <= s <= 0.7:
            raise ConfigError(f"action.spin must be in [0, 0.7], got {s!r}")
        object.__setattr__(self, "spin", s)


@dataclass(frozen=True)
class EnvSettings:
    """Settings shared by a game's envs (``configs/envs/<game>.yaml``).

    Attributes:
        action: :class:`ActionSpec`.
        max_events: physics event-log size per shot (a shot that fills it is cut off and
            reported in ``info["overflow"]``).
        t_max: physics time limit per shot [s].
        positions: name of the start-position bank of the Shot env.
        max_steps: full-game env: learner steps before the episode is truncated.
        max_opponent_shots: full-game env: opponent shots within one learner step before the
            episode is truncated.
    """

    action: ActionSpec = ActionSpec()
    max_events: int = 300
    t_max: float = 60.0
    positions: str = "keglebillard"
    max_steps: int = 500
    max_opponent_shots: int = 2000

    def __post_init__(self) -> None:
        if isinstance(self.action, Mapping):
            object.__setattr__(self, "action", _from_mapping(ActionSpec, self.action, None,
                                                             "action"))
        elif not isinstance(self.action, ActionSpec):
            raise ConfigError(f"action must be a mapping, got {self.action!r}")
        for name in ("max_events", "max_steps", "max_opponent_shots"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
                raise ConfigError(f"{name} must be a positive integer, got {v!r}")
            object.__setattr__(self, name, int(v))
        t = _number("t_max", self.t_max)
        if t <= 0:
            raise ConfigError(f"t_max must be > 0, got {t!r}")
        object.__setattr__(self, "t_max", t)
        if not isinstance(self.positions, str) or not self.positions:
            raise ConfigError(f"positions must be a bank name, got {self.positions!r}")


def load_settings(game: str, source: Any = None, **overrides: Any) -> EnvSettings:
    """Env settings of ``game``: the shipped file, then ``source`` (a mapping over it, a YAML
    path, or an :class:`EnvSettings`), then ``overrides``. ``action`` may be a partial mapping.
    """
    _check_game(game)
    if isinstance(source, EnvSettings):
        base = source
    else:
        base = _from_mapping(EnvSettings, _read(CONFIG_DIR / "envs" / f"{game}.yaml"), None,
                             f"{game} env settings")
        if isinstance(source, str | Path):
            base = _from_mapping(EnvSettings, _read(Path(source)), None, f"{game} env settings")
        elif isinstance(source, Mapping):
            overrides = {**dict(source), **overrides}
        elif source is not None:
            raise ConfigError(f"settings must be None, a mapping, a path or EnvSettings, got "
                              f"{source!r}")
    if "action" in overrides and isinstance(overrides["action"], Mapping):
        overrides = dict(overrides)
        overrides["action"] = _from_mapping(ActionSpec, overrides["action"], base.action,
                                            "action")
    return _from_mapping(EnvSettings, overrides, base, f"{game} env settings") if overrides \
        else base


#: What the envs accept as ``noise``: a preset name, a mapping of deviations or a ShotNoise.
NoiseArg = str | Mapping[str, float] | ShotNoise
#: What the envs accept as ``settings``: None (the shipped file), a mapping over it, a YAML path
#: or an EnvSettings.
SettingsArg = Mapping[str, Any] | str | Path | EnvSettings | None
