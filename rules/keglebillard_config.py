"""Keglebillard rule-set options and static facts: what every table of a game is played with.

Ball and pin ids (red = 0 the cue ball, K-2; the king, K-5), the geometric tolerance of the line
and touch tests, the rule options of ``configs/rules/keglebillard.yaml``
(:class:`KeglebillardRules`, :func:`load_rules`: K-4, K-10, K-13, K-16, K-17, K-19, K-21, K-24,
K-25; docs/rules_keglebillard.md), the table (:func:`default_table`, the K-3 salvo line
:func:`salvo_x`, the K-18 :func:`white_spots`) and the physical parameters of the layout checks.
The event log is :mod:`cuegym.rules.keglebillard_log`; the referee
:mod:`cuegym.rules.keglebillard`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.configs import (
    CONFIG_DIR,
    ConfigError,
    TableSpec,
    from_mapping,
    load_table,
    load_yaml,
)
from cuegym.rules.inputs import COUNT_MAX

BALL_IDS = ("red", "white", "spotted")
RED, WHITE, SPOTTED = 0, 1, 2
WHITES = (WHITE, SPOTTED)
#: The two white spots in the order of :func:`white_spots` (K-18).
SPOT_NAMES = ("bottom", "top")
PIN_IDS = ("king", "pin1", "pin2", "pin3", "pin4")
KING = 0
N_BALLS = len(BALL_IDS)
N_PINS = len(PIN_IDS)

#: Geometric tolerance [m] for "on or behind the line" and "touching but not overlapping".
GEOM_TOL = 1e-9

RULES_PATH = CONFIG_DIR / "rules" / "keglebillard.yaml"


# ---------------------------------------------------------------------------------------------
# Rule set (configs/rules/keglebillard.yaml)
# ---------------------------------------------------------------------------------------------

_CHOICES = {
    "variant": ("house", "ddbu"),
    "first_player": ("player0", "random", "lag"),
    "skaeve_to": ("all", "next"),
    "ball_in_hand_area": ("cloth", "salvo"),
}
_FLAGS = ("cushion_before_pins", "frhv_nakkebal", "unsporting_loss")


@dataclass(frozen=True)
class KeglebillardRules:
    """The rule book's options; each default is the first value the rule book names.

    Attributes:
        variant: ``house`` (the seed's rules) or ``ddbu`` (K-25).
        first_player: who breaks the first game (K-4): ``player0``, ``random`` or ``lag`` (K-24).
        cushion_before_pins: K-10 option "direct shot into the pins".
        frhv_nakkebal: K-13 option: only a white (not a cushion) makes a red pin "nakket ind".
        skaeve_to: K-17 with three or more players: ``all`` others still in, or only the ``next``.
        ball_in_hand_area: K-19 when K-14 is not a reason: ``cloth`` or ``salvo``.
        unsporting_loss: K-16 option: an event marked unsportsmanlike loses the match.
        distance: the points a player must reach (K-21).
    """

    variant: str = "house"
    first_player: str = "player0"
    cushion_before_pins: bool = False
    frhv_nakkebal: bool = False
    skaeve_to: str = "all"
    ball_in_hand_area: str = "cloth"
    unsporting_loss: bool = False
    distance: int = 70

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise ConfigError(f"rules.{name} must be one of {list(choices)}, got {value!r}")
        for name in _FLAGS:
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise ConfigError(f"rules.{name} must be true or false, got {value!r}")
            object.__setattr__(self, name, bool(value))
        d = self.distance
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 0 < d <= COUNT_MAX:
            raise ConfigError(f"rules.distance must be a positive integer up to 2**53 (the "
                              f"scores' bound), got {d!r}")
        object.__setattr__(self, "distance", int(d))

    @property
    def ddbu(self) -> bool:
        """True for the K-25 variant."""
        return self.variant == "ddbu"

    @classmethod
    def from_dict(cls, data: Mapping, base: KeglebillardRules | None = None) -> KeglebillardRules:
        """Build from a mapping; unknown keys are errors, missing keys come from ``base``."""
        return from_mapping(cls, data, base or cls(), "keglebillard rule option")

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _read_rules(path: Path) -> KeglebillardRules:
    if path.is_dir():  # "" is the folder "."
        raise ConfigError(f"{str(path)!r} is a folder, not a rules file")
    if not path.is_file():
        raise ConfigError(f"no rules file {str(path)!r}")
    with open(path) as fh:
        data = load_yaml(fh)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{path}: expected a mapping of rule options")
    return KeglebillardRules.from_dict(data)


@functools.lru_cache(maxsize=1)
def _shipped_rules() -> KeglebillardRules:
    return _read_rules(RULES_PATH)


def load_rules(source: str | Path | Mapping | None = None, **overrides: Any) -> KeglebillardRules:
    """Load a rule set.

    Args:
        source: None for ``configs/rules/keglebillard.yaml``; a YAML path; or a mapping of options
            (applied over the shipped file).
        **overrides: options that replace those of ``source``.

    Raises:
        ConfigError (a ValueError): unknown option or bad value.
    """
    if isinstance(source, Mapping):
        rules = KeglebillardRules.from_dict(source, base=_shipped_rules())
    else:
        rules = _shipped_rules() if source is None else _read_rules(Path(source))
    return KeglebillardRules.from_dict(overrides, base=rules) if overrides else rules


@functools.lru_cache(maxsize=4)
def default_table(name: str = "keglebillard") -> TableSpec:
    """The table (cached): spots, salvo line and pin spots come from its config."""
    table = load_table(name)
    if table.game != "keglebillard":
        raise ValueError(f"table {name!r} is not a keglebillard table")
    return table


def salvo_x(table: TableSpec) -> float:
    """x of the salvo line (K-3)."""
    return float(table.spots["salvo_line_x"])


def white_spots(table: TableSpec) -> np.ndarray:
    """(2, 2) white spots: [0] the bottom one (-L/4, 0), [1] the top one (K-18)."""
    return np.asarray(table.spots["white"], dtype=np.float64).reshape(2, 2)
