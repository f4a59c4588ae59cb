"""Env settings, reward weights and shot-noise presets: frozen, validated, loaded from YAML.

Files (unknown keys are errors, values are checked):

- ``configs/envs/<game>.yaml``   :class:`EnvSettings` (action ranges, physics limits, bank name)
- ``configs/envs/noise.yaml``    shot-noise presets: :mod:`cuegym.games.noise` (re-exported)
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

from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.cli_errors import unknown
from cuegym.configs import CONFIG_DIR, ConfigError, finite_number, from_mapping, load_yaml
from cuegym.games.noise import ShotNoise, load_noise, noise_presets  # noqa: F401 (re-exported)
from cuegym.physics.constants import MAX_EVENTS, MAX_T

GAMES = ("keglebillard", "golfbillard")


def _read(path: Path) -> dict:
    if path.is_dir():  # "" is the folder "."
        raise ConfigError(f"{str(path)!r} is a folder, not a config file")
    if not path.is_file():
        raise ConfigError(f"no config file {str(path)!r}")
    with open(path) as fh:
        data = load_yaml(fh)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return data


def _number(name: str, value: Any) -> float:
    return finite_number(name, value)  # a string, even "0.5", is refused, as in every config


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
        reward = from_mapping(cls, _read(CONFIG_DIR / "reward" / f"{game}.yaml"), None,
                               f"{game} reward")
        if source:
            reward = from_mapping(cls, source, reward, f"{game} reward")
    elif isinstance(source, str | Path):
        reward = from_mapping(cls, _read(Path(source)), None, f"{game} reward")
    else:
        raise ConfigError(f"reward must be None, a mapping, a path or a {cls.__name__}, got "
                          f"{source!r}")
    return from_mapping(cls, overrides, reward, f"{game} reward") if overrides else reward


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
        max_events: physics event-log size per shot, 1 to ``physics.constants.MAX_EVENTS``
            (a shot that fills it is cut off and reported in ``info["overflow"]``).
        t_max: physics time limit per shot [s], in (0, ``physics.constants.MAX_T``].
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
            object.__setattr__(self, "action", from_mapping(ActionSpec, self.action, None,
                                                             "action"))
        elif not isinstance(self.action, ActionSpec):
            raise ConfigError(f"action must be a mapping, got {self.action!r}")
        for name in ("max_events", "max_steps", "max_opponent_shots"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
                raise ConfigError(f"{name} must be a positive integer, got {v!r}")
            object.__setattr__(self, name, int(v))
        # the physics' own limits (physics/constants.py), checked here so that a bad setting
        # is refused when the settings are loaded, not at the first step
        if self.max_events > MAX_EVENTS:
            raise ConfigError(f"max_events must be at most {MAX_EVENTS} (the physics' "
                              f"MAX_EVENTS), got {self.max_events!r}")
        t = _number("t_max", self.t_max)
        if not 0.0 < t <= MAX_T:
            raise ConfigError(f"t_max must be in (0, {MAX_T}] s (the physics' MAX_T), got {t!r}")
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
        base = from_mapping(EnvSettings, _read(CONFIG_DIR / "envs" / f"{game}.yaml"), None,
                             f"{game} env settings")
        if isinstance(source, str | Path):
            base = from_mapping(EnvSettings, _read(Path(source)), None, f"{game} env settings")
        elif isinstance(source, Mapping):
            overrides = {**dict(source), **overrides}
        elif source is not None:
            raise ConfigError(f"settings must be None, a mapping, a path or EnvSettings, got "
                              f"{source!r}")
    if "action" in overrides and isinstance(overrides["action"], Mapping):
        overrides = dict(overrides)
        overrides["action"] = from_mapping(ActionSpec, overrides["action"], base.action,
                                            "action")
    return from_mapping(EnvSettings, overrides, base, f"{game} env settings") if overrides \
        else base


def with_episode_limit(game: str, settings: Any, max_episode_steps: Any, *, one_step: bool
                       ) -> Any:
    """``settings`` with gymnasium's ``max_episode_steps`` applied (``gymnasium.make_vec`` passes
    it to vector entry points): the full-game envs' ``max_steps``; the Shot envs' episodes are
    one step, which no limit >= 1 shortens. None leaves ``settings`` as they are; a limit that
    contradicts the ``max_steps`` the caller's settings state (a mapping's key, a YAML file's or
    an EnvSettings' value) raises."""
    if max_episode_steps is None:
        return settings
    if isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int | np.integer) \
            or max_episode_steps < 1:
        raise ConfigError(f"max_episode_steps must be an integer >= 1, got {max_episode_steps!r}")
    if one_step:
        return settings
    if isinstance(settings, Mapping):
        given = settings.get("max_steps")
    elif isinstance(settings, EnvSettings | str | Path):  # they state every setting
        given = load_settings(game, settings).max_steps
    else:  # None: the shipped file, which the limit is meant to override
        given = None
    if given is not None and given != max_episode_steps:
        raise ConfigError(f"max_episode_steps={max_episode_steps} contradicts settings "
                          f"max_steps={given!r}")
    return load_settings(game, settings, max_steps=int(max_episode_steps))


#: What the envs accept as ``noise``: a preset name, a mapping of deviations or a ShotNoise.
NoiseArg = str | Mapping[str, float] | ShotNoise
#: What the envs accept as ``settings``: None (the shipped file), a mapping over it, a YAML path
#: or an EnvSettings.
SettingsArg = Mapping[str, Any] | str | Path | EnvSettings | None
