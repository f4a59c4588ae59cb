"""Keglebillard referee: pure, batched functions from a finished shot's event log to its score.

The rule book is ``docs/rules_keglebillard.md``; every rule is cited by its id (K-..). This module
reads the physics event log (the ``SimResult`` contract of ``docs/physics_api.md``: numpy arrays
with a leading table axis) and scores T shots at once (validation in numpy, the scoring in one
compiled kernel, :mod:`cuegym.rules.keglebillard_kernel`); it knows nothing of players.
Game state and flow (players, scores, spotting, ball in hand, the end rules) live in the game
layer, :mod:`cuegym.games.kegle`, which calls :func:`score_shots`.

Glossary (the game's own terms, explained once):
    rødt ("red"): the red touches both whites in one shot (K-8).
    blegt ("pale"): the red touches one white and that white then touches the other (K-8).
    penalty: the 0, 2 or 6 points a foul adds (K-10..K-16); the highest single one applies.
    skæve: what a foul hands over, the shot's points plus the penalty (K-9a); written ``skaeve``.
    konge: the king, the centre pin. udlæg: the break. salvo line: x = -L/4 (K-3).
    nakket ind: the red toppled a pin after a cushion or a white (K-13).

Balls are indexed red = 0 (the cue ball, K-2), white = 1, spotted = 2; pins king = 0, pin1..pin4.

Example:
    >>> from cuegym.rules.keglebillard import build_log, score_shots
    >>> log = build_log([(0.2, "ball_ball", "red", "white"), (0.5, "cushion", "white", 1),
    ...                  (0.9, "pin", "white", "king")])
    >>> s = score_shots(log)
    >>> int(s.points[0]), bool(s.king_alone[0]), bool(s.foul[0])
    (6, True, False)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cuegym.configs import (
    CIRCLE_JAW,
    CIRCLE_POST,
    CONFIG_DIR,
    ConfigError,
    PhysicsParams,
    TableSpec,
    load_params,
    load_table,
)
from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_PIN,
    EV_BALL_POCKET,
    EV_BALL_POST,
    EV_NONE,
    EV_PIN_PIN,
    EV_TRANSITION,
    POCKETED,
    ROLLING,
    S_Y,
    SLIDING,
    STATIONARY,
)
from cuegym.rules.inputs import (
    END_REASONS,
    RefereeInputError,
    check_layout,
    read_sim_output,
    req_bool,
    req_int,
    req_key,
    req_list,
    req_name,
    req_num,
    req_obj,
    req_xy,
    show,
)
from cuegym.rules.keglebillard_kernel import score_kernel

BALL_IDS = ("red", "white", "spotted")
RED, WHITE, SPOTTED = 0, 1, 2
WHITES = (WHITE, SPOTTED)
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
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d <= 0:
            raise ConfigError(f"rules.distance must be a positive integer, got {d!r}")
        object.__setattr__(self, "distance", int(d))

    @property
    def ddbu(self) -> bool:
        """True for the K-25 variant."""
        return self.variant == "ddbu"

    @classmethod
    def from_dict(cls, data: Mapping, base: KeglebillardRules | None = None) -> KeglebillardRules:
        """Build from a mapping; unknown keys are errors, missing keys come from ``base``."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"rules must be a mapping, got {data!r}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown keglebillard rule option(s) {unknown}; known: "
                              f"{sorted(known)}")
        return replace(base or cls(), **dict(data))

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _read_rules(path: Path) -> KeglebillardRules:
    if not path.exists():
        raise ConfigError(f"no rules file {str(path)!r}")
    with open(path) as fh:
        data = yaml.safe_load(fh)
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


# ---------------------------------------------------------------------------------------------
# Injected events (K-16 fouls physics cannot produce; K-14a ball off the table)
# ---------------------------------------------------------------------------------------------

#: Injected event types and the rule each belongs to.
INJECTED_TYPES = {
    "touche": "K-16",  # the player touched a ball: next player has ball in hand (K-19)
    "double_hit": "K-16",  # a double hit is a touché (seed), so ball in hand too
    "pin_toppled": "K-16",  # pin toppled by cue, rest, hand, clothes or body: 2 each (K-9a)
    "moving_balls": "K-16",  # shot while balls were moving
    "pins_not_in_place": "K-16",
    "no_foot_on_floor": "K-16",
    "guide_marks": "K-16",
    "deliberate_touch": "K-16",  # touched balls are put back (positions carried)
    "off_table": "K-14a",  # a ball left the playing surface
}
#: The injected types that are a touché (K-16: touching a ball with anything but the tip, or a
#: double hit); each gives the next player ball in hand (K-19).
TOUCHE_TYPES = frozenset({"touche", "double_hit"})
_INJ_KEYS = {"pin_toppled": {"pins", "by"}, "deliberate_touch": {"balls"},
             "off_table": {"ball", "returned"}}


def _ball_index(value: Any, what: str) -> int:
    if isinstance(value, str) and value in BALL_IDS:
        return BALL_IDS.index(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and \
            0 <= value < N_BALLS:
        return int(value)
    raise ValueError(f"{what}: unknown ball {value!r} (known: {list(BALL_IDS)})")


def _pin_index(value: Any, what: str) -> int:
    if isinstance(value, str) and value in PIN_IDS:
        return PIN_IDS.index(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and \
            0 <= value < N_PINS:
        return int(value)
    raise ValueError(f"{what}: unknown pin {value!r} (known: {list(PIN_IDS)})")




@dataclass(frozen=True)
class Injected:
    """One injected event (K-16 foul or K-14a ball off the table) of one shot.

    Attributes:
        type: a key of :data:`INJECTED_TYPES`.
        pins: ``pin_toppled``: the pins toppled (indices; must stand at the start).
        by: ``pin_toppled``: what toppled them (cue, rest, hand, clothes, body; free text).
        balls: ``deliberate_touch``: ``(ball, x, y)`` of each touched ball, put back there.
        ball: ``off_table``: the ball that left the playing surface.
        returned: ``off_table``: it touched a cushion top or rail and came back onto the cloth
            (penalty 6, not pocketed); False: it is off the table (counts as pocketed).
        unsporting: the event is marked unsportsmanlike (K-16 option ``unsporting_loss``).
    """

    type: str
    pins: tuple[int, ...] = ()
    by: str = ""
    balls: tuple[tuple[int, float, float], ...] = ()
    ball: int = -1
    returned: bool = False
    unsporting: bool = False

    def __post_init__(self) -> None:
        if self.type not in INJECTED_TYPES:
            raise ValueError(f"unknown injected event type {self.type!r}; known: "
                             f"{sorted(INJECTED_TYPES)}")
        if self.type == "off_table" and not 0 <= self.ball < N_BALLS:
            raise ValueError(f"injected off_table needs a ball, got {self.ball!r}")
        if self.type == "off_table" and self.unsporting:
            raise ValueError("injected off_table (K-14a) cannot be marked unsporting")
        if self.type == "pin_toppled" and not self.pins:
            raise ValueError("injected pin_toppled needs at least one pin")
        if self.type == "deliberate_touch" and not self.balls:
            raise ValueError("injected deliberate_touch needs the touched balls' positions")

    @property
    def rule(self) -> str:
        return INJECTED_TYPES[self.type]

    @property
    def label(self) -> str:
        """Foul label, rule id first: ``K-16:touche``."""
        return f"{self.rule}:{self.type}"

    @classmethod
    def from_dict(cls, data: Mapping, path: str = "inject[0]") -> Injected:
        """Parse the JSON form, e.g. ``{"type": "pin_toppled", "pins": ["pin2"], "by": "cue"}``,
        ``{"type": "deliberate_touch", "balls": {"white": [0.1, 0.2]}, "unsporting": true}``,
        ``{"type": "off_table", "ball": "spotted"}``. Unknown keys are errors; ``path`` is the
        JSON path named in them."""
        if isinstance(data, Injected):
            return data
        data = req_obj(data, path, required=("type",))
        kind = data["type"]
        if not isinstance(kind, str) or kind not in INJECTED_TYPES:
            raise RefereeInputError(f"{path}.type is an unknown injected event type "
                                    f"{show(kind)}; known: {sorted(INJECTED_TYPES)}")
        allowed = {"type", "unsporting"} | _INJ_KEYS.get(kind, set())
        req_obj(data, path, allowed)
        pins = tuple(sorted({req_name(p, f"{path}.pins[{k}]", PIN_IDS, "pin") for k, p in
                             enumerate(req_list(data.get("pins", []), f"{path}.pins"))}))
        balls = tuple((req_name(b, f"{path}.balls.{b}", BALL_IDS, "ball"),
                       *req_xy(xy, f"{path}.balls.{b}"))
                      for b, xy in req_obj(data.get("balls", {}), f"{path}.balls").items())
        ball = req_name(data["ball"], f"{path}.ball", BALL_IDS, "ball") if "ball" in data else -1
        by = data.get("by", "")
        if not isinstance(by, str):
            raise RefereeInputError(f"{path}.by must be a string, got {show(by)}")
        try:
            return cls(type=kind, pins=pins, by=by, balls=balls, ball=ball,
                       returned=req_bool(data.get("returned", False), f"{path}.returned"),
                       unsporting=req_bool(data.get("unsporting", False), f"{path}.unsporting"))
        except RefereeInputError:
            raise
        except ValueError as exc:
            raise RefereeInputError(f"{path}: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.pins:
            out["pins"] = [PIN_IDS[p] for p in self.pins]
        if self.by:
            out["by"] = self.by
        if self.balls:
            out["balls"] = {BALL_IDS[b]: [x, y] for b, x, y in self.balls}
        if self.type == "off_table":
            out["ball"] = BALL_IDS[self.ball]
            out["returned"] = self.returned
        if self.unsporting:
            out["unsporting"] = True
        return out


def parse_injected(items: Iterable | None, path: str = "inject") -> tuple[Injected, ...]:
    """One shot's injected events from dicts or :class:`Injected` (None: no events); ``path``
    is the JSON path named in errors."""
    if items is None:
        return ()
    if isinstance(items, (Mapping, str)) or not isinstance(items, Iterable):
        raise RefereeInputError(f"{path} (injected events) must be a list, got {show(items)}")
    return tuple(Injected.from_dict(e, f"{path}[{k}]") for k, e in enumerate(items))


# ---------------------------------------------------------------------------------------------
# The event log (the fields of SimResult the rules read)
# ---------------------------------------------------------------------------------------------

#: field: (trailing shape, dtype); None = any length (the event axis K).
_LOG_SPEC: dict[str, tuple[tuple, type]] = {
    "rvw": ((N_BALLS, 3, 3), np.float64),
    "motion": ((N_BALLS,), np.int64),
    "pocket": ((N_BALLS,), np.int64),
    "rvw0": ((N_BALLS, 3, 3), np.float64),
    "motion0": ((N_BALLS,), np.int64),
    "pins_up": ((N_PINS,), np.bool_),
    "pins_up0": ((N_PINS,), np.bool_),
    "pin_toppler": ((N_PINS,), np.int64),
    "pin_topple_time": ((N_PINS,), np.float64),
    "ev_type": ((None,), np.int64),
    "ev_time": ((None,), np.float64),
    "ev_i": ((None,), np.int64),
    "ev_j": ((None,), np.int64),
    "n_events": ((), np.int64),
    "overflow": ((), np.int64),
}


@dataclass(frozen=True)
class EventLog:
    """The part of ``cuegym.physics.SimResult`` the rules read, validated; leading axis = table.

    Shapes as in docs/physics_api.md: ``rvw``/``rvw0`` (T, 3, 3, 3), ``motion``/``motion0``/
    ``pocket`` (T, 3), ``pins_up``/``pins_up0``/``pin_toppler``/``pin_topple_time`` (T, 5),
    ``ev_type``/``ev_time``/``ev_i``/``ev_j`` (T, K), ``n_events``/``overflow`` (T,).
    """

    rvw: np.ndarray
    motion: np.ndarray
    pocket: np.ndarray
    rvw0: np.ndarray
    motion0: np.ndarray
    pins_up: np.ndarray
    pins_up0: np.ndarray
    pin_toppler: np.ndarray
    pin_topple_time: np.ndarray
    ev_type: np.ndarray
    ev_time: np.ndarray
    ev_i: np.ndarray
    ev_j: np.ndarray
    n_events: np.ndarray
    overflow: np.ndarray

    def __len__(self) -> int:
        return int(self.n_events.shape[0])

    def take(self, idx: Any) -> EventLog:
        """The tables ``idx`` (an index array or slice) as a new log."""
        idx = np.arange(len(self))[idx] if isinstance(idx, slice) else np.atleast_1d(idx)
        return EventLog(**{f.name: getattr(self, f.name)[idx] for f in fields(self)})


def read_log(log: Any, table: TableSpec | None = None) -> EventLog:
    """Validate a SimResult-like object (attributes or a mapping) into an :class:`EventLog`.

    Args:
        log: the SimResult fields (attributes or a mapping). An :class:`EventLog` is returned
            as it is: :func:`read_log`, :func:`build_log` and :func:`log_from_json` make
            validated ones (one constructed directly is trusted; pass its fields as a mapping to
            check it).
        table: the table the shot was played on (default kleinmatch): the cushion, jaw and
            pocket indices of the events and ``pocket`` must exist on it.

    Raises:
        ValueError: a missing field, a wrong shape, an event code or agent out of range (a
            ball not on the table at the start, an index the table lacks), a pocketed ball
            without its ``ball_pocket`` event, or a NaN/inf where a number is needed; the
            message names the field and the value.
    """
    if isinstance(log, EventLog):
        return log

    def get(name: str) -> Any:
        if isinstance(log, Mapping):
            return log.get(name)
        return getattr(log, name, None)

    n_ev = get("n_events")
    if n_ev is None:
        raise ValueError("event log lacks field 'n_events'")
    T = np.shape(n_ev)[0] if np.ndim(n_ev) == 1 else -1
    if T < 0:
        raise ValueError(f"log.n_events must have shape (T,), got shape {np.shape(n_ev)}")
    ev_type = get("ev_type")
    K = np.shape(ev_type)[1] if ev_type is not None and np.ndim(ev_type) == 2 else -1
    # the event axis is cut to the longest log: rows past n_events are never read
    n_max = int(np.max(n_ev, initial=0)) if np.issubdtype(np.asarray(n_ev).dtype, np.integer) \
        else K
    K_used = max(1, min(K, n_max))
    out: dict[str, np.ndarray] = {}
    for name, (trail, dtype) in _LOG_SPEC.items():
        value = get(name)
        if value is None:
            if name == "overflow":
                value = np.zeros(T, np.int64)
            else:
                raise ValueError(f"event log lacks field {name!r}")
        arr = np.asarray(value)
        want = (T, *(K if d is None else d for d in trail))
        if arr.shape != want:
            raise ValueError(f"log.{name} must have shape {want}, got {arr.shape}")
        if dtype is np.bool_:
            if arr.dtype != np.bool_:
                raise ValueError(f"log.{name} must be boolean, got dtype {arr.dtype}")
        elif dtype is np.int64:
            if not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"log.{name} must be integer, got dtype {arr.dtype}")
        if name.startswith("ev_"):
            arr = arr[:, :K_used]
        out[name] = np.ascontiguousarray(arr, dtype=dtype)
    n = out["n_events"]
    bad = np.flatnonzero((n < 0) | (n > K))
    if bad.size:
        raise ValueError(f"log.n_events[{bad[0]}] = {n[bad[0]]} is outside [0, {K}]")
    _check((out["overflow"] < 0) | (out["overflow"] >= len(END_REASONS)), out["overflow"],
           "log.overflow", f"is not an end code 0..{len(END_REASONS) - 1} {END_REASONS}")
    K = K_used
    valid = np.arange(K)[None, :] < n[:, None]
    typ, ti, tj = out["ev_type"], out["ev_i"], out["ev_j"]
    _check(valid & ((typ < EV_NONE) | (typ > EV_TRANSITION) | (typ == EV_NONE)), typ,
           "log.ev_type", f"is not an event code 1..{EV_TRANSITION}")
    _check(valid & ~np.isfinite(out["ev_time"]), out["ev_time"], "log.ev_time", "is not finite")
    dt = np.diff(np.where(valid, out["ev_time"], 0.0), axis=1)
    _check(np.pad(valid[:, 1:] & (dt < 0), ((0, 0), (1, 0))), out["ev_time"], "log.ev_time",
           "is earlier than the event before it")
    ball_i = valid & (typ != EV_PIN_PIN)
    _check(ball_i & ((ti < 0) | (ti >= N_BALLS)), ti, "log.ev_i", "is not a ball index")
    _check(valid & (typ == EV_BALL_BALL) & ((tj < 0) | (tj >= N_BALLS) | (tj == ti)), tj,
           "log.ev_j", "is not a second ball")
    pin_j = valid & ((typ == EV_BALL_PIN) | (typ == EV_PIN_PIN))
    _check(pin_j & ((tj < 0) | (tj >= N_PINS)), tj, "log.ev_j", "is not a pin index")
    _check(valid & (typ == EV_PIN_PIN) & ((ti < 0) | (ti >= N_PINS)), ti, "log.ev_i",
           "is not a pin index")
    present0 = out["motion0"] != POCKETED
    on_end = present0 & (out["motion"] != POCKETED) & (out["pocket"] < 0)
    _check(present0[..., None] & ~np.isfinite(out["rvw0"][:, :, 0, :2]),
           out["rvw0"][:, :, 0, :2], "log.rvw0 position", "is not finite")
    _check(on_end[..., None] & ~np.isfinite(out["rvw"][:, :, 0, :2]),
           out["rvw"][:, :, 0, :2], "log.rvw position", "is not finite")
    _check(out["pins_up"] & ~out["pins_up0"], out["pins_up"], "log.pins_up",
           "is True for a pin that was down at the start")
    _check(np.isnan(out["pin_topple_time"]), out["pin_topple_time"], "log.pin_topple_time",
           "is NaN")
    _check_agents(out, valid, table or default_table())
    return EventLog(**out)


def sim_log(sim: Any, rows: Any = None) -> EventLog:
    """The :class:`EventLog` of a ``cuegym.physics.simulate`` result for the tables ``rows``
    (default all), without :func:`read_log`'s checks: the physics' own output is valid by
    construction (the game layer scores its shots through this). The event axis is cut to the
    longest log, as :func:`read_log` does."""
    n = sim.n_events if rows is None else sim.n_events[rows]
    K = max(1, min(sim.ev_type.shape[1], int(np.max(n, initial=0))))
    out = {}
    for name, (_, dtype) in _LOG_SPEC.items():
        a = getattr(sim, name)
        if name.startswith("ev_"):
            a = a[:, :K]
        out[name] = np.ascontiguousarray(a if rows is None else a[rows], dtype=dtype)
    return EventLog(**out)


def _check_agents(out: dict[str, np.ndarray], valid: np.ndarray, table: TableSpec) -> None:
    """Agents and pockets of a log against the table and the balls on it at the start."""
    typ, ti, tj = out["ev_type"], out["ev_i"], out["ev_j"]
    for name in ("motion", "motion0"):
        _check((out[name] < 0) | (out[name] > POCKETED), out[name], f"log.{name}",
               f"is not a motion code 0..{POCKETED}")
    n_lines, n_pockets = len(table.cushions), len(table.pockets)
    pk = out["pocket"]
    _check((pk < -1) | (pk >= n_pockets), pk, "log.pocket",
           f"is not -1 or a pocket index 0..{n_pockets - 1} of table {table.name!r}")
    present0 = out["motion0"] != POCKETED
    _check(~present0 & ((out["motion"] != POCKETED) | (pk >= 0)), out["motion"], "log.motion",
           "is not 4 (pocketed, absent) for a ball that was not on the table at the start")
    _check(present0 & ((pk >= 0) != (out["motion"] == POCKETED)), pk, "log.pocket",
           "contradicts log.motion (a pocketed ball has motion 4 and its pocket index)")
    ball_i = valid & (typ != EV_PIN_PIN)
    on_i = np.take_along_axis(present0, np.clip(ti, 0, N_BALLS - 1), axis=1)
    _check(ball_i & ~on_i, ti, "log.ev_i", "is a ball that was not on the table at the start",
           BALL_IDS)
    on_j = np.take_along_axis(present0, np.clip(tj, 0, N_BALLS - 1), axis=1)
    _check(valid & (typ == EV_BALL_BALL) & ~on_j, tj, "log.ev_j",
           "is a ball that was not on the table at the start", BALL_IDS)
    jaws = np.array([c.kind == CIRCLE_JAW for c in table.circles] + [False], bool)
    cush = valid & (typ == EV_BALL_CUSHION)
    _check(cush & ((tj < 0) | ((tj >= n_lines) & ~jaws[np.clip(tj - n_lines, -1,
                                                               len(jaws) - 1)])), tj,
           "log.ev_j", f"is not a cushion (0..{n_lines - 1}) or jaw circle of the table")
    posts = np.array([c.kind == CIRCLE_POST for c in table.circles] + [False], bool)
    _check(valid & (typ == EV_BALL_POST) & ~posts[np.clip(tj, -1, len(posts) - 1)], tj,
           "log.ev_j", "is not a post (cap) of the table")
    drop = valid & (typ == EV_BALL_POCKET)
    _check(drop & ((tj < 0) | (tj >= n_pockets)), tj, "log.ev_j",
           f"is not a pocket index 0..{n_pockets - 1}")
    # a pocketed ball drops at its ball_pocket event, into the pocket ``pocket`` names
    hit = drop[:, None, :] & (ti[:, None, :] == np.arange(N_BALLS)[None, :, None])  # (T, B, K)
    same = (hit & (tj[:, None, :] == pk[:, :, None])).any(2)
    _check(present0 & (pk >= 0) & ~same, pk, "log.pocket",
           "has no ball_pocket event of that ball into that pocket")
    _check(present0 & (pk < 0) & hit.any(2), pk, "log.pocket",
           "is -1 for a ball with a ball_pocket event")


def _check(bad: np.ndarray, values: np.ndarray, name: str, why: str,
           names: Sequence[str] = ()) -> None:
    """Raise for the first True of ``bad``: ``<name>[t, k] = <value> (<names[value]>) <why>``."""
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        v = values[idx].item()
        label = f" ({names[v]})" if names and isinstance(v, int) and 0 <= v < len(names) else ""
        raise RefereeInputError(f"{name}[{', '.join(map(str, idx))}] = {v!r}{label} {why}")


def stack_logs(logs: Sequence[Any]) -> EventLog:
    """Concatenate logs along the table axis (event axes padded to the longest)."""
    if not logs:
        raise ValueError("stack_logs needs at least one log")
    parts = [read_log(lg) for lg in logs]
    K = max(p.ev_type.shape[1] for p in parts)
    out = {}
    for f in fields(EventLog):
        arrs = []
        for p in parts:
            a = getattr(p, f.name)
            if f.name.startswith("ev_") and a.shape[1] < K:
                pad = np.zeros((a.shape[0], K - a.shape[1]), a.dtype)
                a = np.concatenate([a, pad], axis=1)
            arrs.append(a)
        out[f.name] = np.concatenate(arrs, axis=0)
    return EventLog(**out)


#: Start layout used by :func:`build_log` when none is given: red behind the salvo line, whites
#: on their spots.
DEFAULT_START = {"red": (-0.7, 0.1), "white": (-0.525, 0.0), "spotted": (0.525, 0.0)}

_BUILD_KINDS = {"ball_ball", "cushion", "pocket", "pin", "pin_touch", "pin_pin", "transition"}


def build_log(events: Sequence[Sequence], *, start: Mapping | None = None,
              end: Mapping | None = None, absent: Iterable[str] = (),
              struck: Iterable[str] = ("red",), pins_up0: Sequence[bool] | None = None,
              overflow: int = 0) -> EventLog:
    """Build a one-table event log by hand (tests, human-entered shots), as physics would log it.

    Args:
        events: ``(time, kind, a, b)`` tuples, ball and pin names or indices:
            ``("ball_ball", ball, ball)``, ``("cushion", ball, cushion_index)``,
            ``("pocket", ball, pocket_index)``, ``("pin", ball, pin)`` a contact that topples
            the pin, ``("pin_touch", ball, pin)`` one below the threshold (K-P1),
            ``("pin_pin", falling_pin, pin)`` a chain topple (K-P2), ``("transition", ball, m)``.
            Toppled pins are attributed by K-P3 (red and a white at the same instant: the red;
            both whites: both).
        start: ball name -> (x, y) at t = 0 (defaults: :data:`DEFAULT_START`).
        end: ball name -> (x, y) at rest (default: the start position).
        absent: balls not on the table at the start (a white waiting to be spotted, K-18).
        struck: balls moving at t = 0 (motion0 sliding); the others start at rest.
        pins_up0: pins standing at the start (default all five).
        overflow: the physics end code (0 came to rest).

    Returns:
        An :class:`EventLog` with T = 1.
    """
    pos0 = {**DEFAULT_START, **dict(start or {})}
    pos1 = {**pos0, **dict(end or {})}
    absent_idx = {_ball_index(b, "build_log absent") for b in absent}
    up0 = np.ones(N_PINS, bool) if pins_up0 is None else np.asarray(
        [req_bool(p, f"build_log pins_up0[{k}]") for k, p in enumerate(req_list(
            pins_up0, "build_log pins_up0", N_PINS))])
    for n, e in enumerate(req_list(events, "build_log events")):
        if isinstance(e, str) or not isinstance(e, Sequence) or len(e) != 4 or \
                e[1] not in _BUILD_KINDS:
            raise RefereeInputError(f"build_log events[{n}] = {show(e)}: expected (time, kind, "
                                    f"a, b) with kind in {sorted(_BUILD_KINDS)}")
        req_num(e[0], f"build_log events[{n}] time", lo=0.0)
        if e[1] in ("cushion", "pocket", "transition"):
            req_int(e[3], f"build_log events[{n}] {e[1]} index", 0,
                    ROLLING if e[1] == "transition" else None)
    rows = sorted(((float(e[0]), i, e) for i, e in enumerate(events)), key=lambda r: r[:2])
    K = max(len(rows), 1)
    ev_type = np.zeros((1, K), np.int64)
    ev_time = np.zeros((1, K))
    ev_i = np.zeros((1, K), np.int64)
    ev_j = np.zeros((1, K), np.int64)
    motion0 = np.full(N_BALLS, STATIONARY, np.int64)
    motion = np.full(N_BALLS, STATIONARY, np.int64)
    pocket = np.full(N_BALLS, -1, np.int64)
    motion0[[_ball_index(b, "build_log struck") for b in struck]] = SLIDING
    motion0[list(absent_idx)] = POCKETED
    motion[list(absent_idx)] = POCKETED
    pins_up = up0.copy()
    toppler = np.zeros(N_PINS, np.int64)
    t_top = np.full(N_PINS, np.inf)
    for k, (t, _, e) in enumerate(rows):
        if len(e) != 4 or e[1] not in _BUILD_KINDS:
            raise ValueError(f"build_log event {e!r}: expected (time, kind, a, b) with kind in "
                             f"{sorted(_BUILD_KINDS)}")
        kind, a, b = e[1], e[2], e[3]
        ev_time[0, k] = t
        if kind == "ball_ball":
            i, j = sorted((_ball_index(a, "ball_ball"), _ball_index(b, "ball_ball")))
            ev_type[0, k], ev_i[0, k], ev_j[0, k] = EV_BALL_BALL, i, j
        elif kind in ("cushion", "pocket", "transition"):
            i = _ball_index(a, kind)
            code = {"cushion": EV_BALL_CUSHION, "pocket": EV_BALL_POCKET,
                    "transition": EV_TRANSITION}[kind]
            ev_type[0, k], ev_i[0, k], ev_j[0, k] = code, i, int(b)
            if kind == "pocket":
                pocket[i], motion[i] = int(b), POCKETED
        elif kind in ("pin", "pin_touch"):
            i, p = _ball_index(a, kind), _pin_index(b, kind)
            ev_type[0, k], ev_i[0, k], ev_j[0, k] = EV_BALL_PIN, i, p
            if kind == "pin":
                if t_top[p] == t:  # K-P3: same instant
                    bits = toppler[p] | (1 << i)
                    toppler[p] = 1 if bits & 1 else bits
                elif not pins_up[p]:
                    raise ValueError(f"build_log: pin {PIN_IDS[p]} is not standing at t = {t}")
                else:
                    pins_up[p], toppler[p], t_top[p] = False, 1 << i, t
        else:
            p, q = _pin_index(a, "pin_pin"), _pin_index(b, "pin_pin")
            if pins_up[p] or not pins_up[q]:
                raise ValueError(f"build_log: pin_pin {PIN_IDS[p]} -> {PIN_IDS[q]} at t = {t} "
                                 "needs a fallen pin and a standing one")
            ev_type[0, k], ev_i[0, k], ev_j[0, k] = EV_PIN_PIN, p, q
            pins_up[q], toppler[q], t_top[q] = False, toppler[p], t
    rvw0 = np.zeros((1, N_BALLS, 3, 3))
    rvw = np.zeros((1, N_BALLS, 3, 3))
    for b, name in enumerate(BALL_IDS):
        rvw0[0, b, 0, :2] = req_xy(pos0[name], f"build_log start.{name}")
        rvw[0, b, 0, :2] = req_xy(pos1[name], f"build_log end.{name}")
    return read_log(dict(
        rvw=rvw, motion=motion[None], pocket=pocket[None], rvw0=rvw0, motion0=motion0[None],
        pins_up=pins_up[None], pins_up0=up0[None].copy(), pin_toppler=toppler[None],
        pin_topple_time=t_top[None], ev_type=ev_type, ev_time=ev_time, ev_i=ev_i, ev_j=ev_j,
        n_events=np.array([len(rows)], np.int64),
        overflow=np.array([req_int(overflow, "build_log overflow", 0, len(END_REASONS) - 1)],
                          np.int64)))


def log_from_json(out: Mapping, table: TableSpec | None = None, *,
                  start: Mapping[str, Sequence[float]] | None = None,
                  pins_up0: Sequence[bool] | None = None, path: str = "log") -> EventLog:
    """A one-table :class:`EventLog` from an output object of ``cuegym.physics.simulate_json``.

    Args:
        out: ``{"final": .., "pins": .., "events": [..], "end_reason": ..}`` (physics/jsonio.py).
        table: the table, to turn cushion, jaw and pocket names into indices (default kleinmatch).
        start: ball id -> (x, y) at the start; the balls on the table at the start are exactly
            these (default: the balls listed in ``out["final"]``, at their final positions).
        pins_up0: pins standing at the start (default: all five).
        path: the JSON path of ``out`` named in errors.

    Raises:
        RefereeInputError (a ValueError): one line naming the JSON path of the bad value; the
            checks are those of :func:`cuegym.rules.inputs.read_sim_output` (every ball of the
            start in ``final``, legal final positions, pocket events, ordered finite times,
            agents and indices in range, booleans), plus legal ``start`` positions.

    The JSON output has no topple times, so they are recovered from the events: a pin toppled
    by a chain falls at its ``pin_pin`` event, one toppled directly at the last ``ball_pin``
    contact of a ball it is attributed to (a fallen pin leaves the table, K-P5).
    """
    table = table or default_table()
    params = _ball_params()
    up0 = np.ones(N_PINS, bool) if pins_up0 is None else np.asarray(
        [req_bool(p, f"pins_up0[{k}]") for k, p in enumerate(req_list(pins_up0, "pins_up0",
                                                                         N_PINS))])
    if start is None:  # the balls of ``final``, where they ended
        final = req_obj(req_key(req_obj(out, path), "final", path), f"{path}.final")
        start_xy = {}
        for name, rec in final.items():
            rp = f"{path}.final.{name}"
            req_name(name, rp, BALL_IDS, "ball")
            rec = req_obj(rec, rp)
            start_xy[name] = (req_num(req_key(rec, "x", rp), f"{rp}.x"),
                              req_num(req_key(rec, "y", rp), f"{rp}.y"))
    else:
        start_xy = {}
        for name, xy in req_obj(start, "start").items():
            req_name(name, f"start.{name}", BALL_IDS, "ball")
            start_xy[name] = req_xy(xy, f"start.{name}")
        check_layout(table, params, {f"start.{name}": xy for name, xy in start_xy.items()}, up0)
    rvw0 = np.zeros((1, N_BALLS, 3, 3))
    motion0 = np.full(N_BALLS, POCKETED, np.int64)
    for name, xy in start_xy.items():
        b = BALL_IDS.index(name)
        motion0[b] = STATIONARY
        rvw0[0, b, 0, :2] = xy
    so = read_sim_output(out, path, table, params, BALL_IDS, motion0 != POCKETED, up0)

    K = max(len(so.ev_type), 1)
    ev = {name: np.zeros((1, K), dtype) for name, dtype in
          (("ev_type", np.int64), ("ev_time", np.float64), ("ev_i", np.int64),
           ("ev_j", np.int64))}
    n = len(so.ev_type)
    ev["ev_type"][0, :n], ev["ev_time"][0, :n] = so.ev_type, so.ev_time
    ev["ev_i"][0, :n], ev["ev_j"][0, :n] = so.ev_i, so.ev_j
    # topple times: a chain pin at its first pin_pin event, a direct one at the last contact of
    # a ball it is attributed to
    last_contact = np.full((N_BALLS, N_PINS), np.nan)
    chain_time = np.full(N_PINS, np.nan)
    for k in range(n):
        if so.ev_type[k] == EV_PIN_PIN and math.isnan(chain_time[so.ev_j[k]]):
            chain_time[so.ev_j[k]] = so.ev_time[k]
        elif so.ev_type[k] == EV_BALL_PIN:
            last_contact[so.ev_i[k], so.ev_j[k]] = so.ev_time[k]
    t_top = np.full(N_PINS, np.inf)
    for p in np.flatnonzero(up0 & ~so.pins_up):
        if not math.isnan(chain_time[p]):
            t_top[p] = chain_time[p]
        else:
            times = [last_contact[b, p] for b in range(N_BALLS) if so.toppler[p] >> b & 1]
            times = [t for t in times if not math.isnan(t)]
            t_top[p] = min(times) if times else 0.0
    motion = np.where((so.pocket >= 0) | (motion0 == POCKETED), POCKETED, STATIONARY)
    rvw = np.zeros((1, N_BALLS, 3, 3))
    rvw[0, :, 0, :2] = so.final_xy
    return read_log(dict(
        rvw=rvw, motion=motion[None], pocket=so.pocket[None], rvw0=rvw0, motion0=motion0[None],
        pins_up=so.pins_up[None], pins_up0=up0[None].copy(), pin_toppler=so.toppler[None],
        pin_topple_time=t_top[None], n_events=np.array([n], np.int64),
        overflow=np.array([so.end_code], np.int64), **ev), table)


@functools.lru_cache(maxsize=1)
def _ball_params() -> PhysicsParams:
    """The keglebillard physical parameters (ball radius for the layout checks)."""
    return load_params("keglebillard")


# ---------------------------------------------------------------------------------------------
# Scoring one shot per table
# ---------------------------------------------------------------------------------------------

#: Columns of :attr:`ShotScores.fouls` (physics fouls, rule id first) and their penalties.
FOUL_COLUMNS = ("K-10", "K-10:cushion_before_pins", "K-11", "K-12", "K-13", "K-14", "K-14a",
                "K-15", "K-16")
FOUL_PENALTY = np.array([6, 6, 6, 6, 0, 2, 6, 6, 6], np.int64)
_F = {name: i for i, name in enumerate(FOUL_COLUMNS)}


@dataclass(frozen=True)
class ShotScores:
    """What T shots scored, before any player is involved. Arrays have a leading table axis.

    Points (int64, (T,)):
        points: the shot's points by K-5..K-9 (K-9a), legal or not; K-25: pins and rødt only.
        pin_points (K-5/K-6/K-7), white_points (K-9), bonus_points (rødt/blegt, K-8).
        penalty: the highest penalty of the fouls that apply (0 on a legal shot).
        shooter_points: points credited to the shooter (0 on a foul or a K-20 win).
        skaeve: points handed over on a foul (points + penalty; 0 in the K-25 variant).
    Flags ((T,) bool): foul, rodt, blegt, king_alone, clean16, legal_pin (a legal shot that
        toppled at least one pin, K-22), cushion (a ball touched a cushion), win (K-20),
        ball_in_hand (K-19) and bih_salvo (its area is behind the salvo line), unsporting.
    Others:
        fouls (T, F) bool: the physics fouls, columns :data:`FOUL_COLUMNS` (all False on a win).
        injected (T tuples of :class:`Injected`): the injected events of each shot.
        clean16_white (T,) int: the white of the clean 16, -1 if none.
        pins_toppled (T, P) bool: pins toppled by balls; pins_injected (T, P): by K-16 events.
        pin_toppler (T, P) int: bit mask of the balls each toppled pin is attributed to (K-P3).
        pins_up0 (T, P) bool: pins standing at the start.
        present0 (T, B): balls on the table at the start; pocketed (T, B): pocketed or off the
            table during the shot; start_xy, end_xy (T, B, 2) [m].
        overflow (T,) int: the physics end code (0 = came to rest).
    """

    points: np.ndarray
    pin_points: np.ndarray
    white_points: np.ndarray
    bonus_points: np.ndarray
    penalty: np.ndarray
    shooter_points: np.ndarray
    skaeve: np.ndarray
    foul: np.ndarray
    fouls: np.ndarray
    injected: tuple[tuple[Injected, ...], ...]
    rodt: np.ndarray
    blegt: np.ndarray
    king_alone: np.ndarray
    clean16: np.ndarray
    clean16_white: np.ndarray
    legal_pin: np.ndarray
    cushion: np.ndarray
    win: np.ndarray
    ball_in_hand: np.ndarray
    bih_salvo: np.ndarray
    unsporting: np.ndarray
    pins_toppled: np.ndarray
    pins_injected: np.ndarray
    pin_toppler: np.ndarray
    pins_up0: np.ndarray
    present0: np.ndarray
    pocketed: np.ndarray
    start_xy: np.ndarray
    end_xy: np.ndarray
    overflow: np.ndarray
    variant: str = field(default="house")

    def __len__(self) -> int:
        return int(self.points.shape[0])

    def fouls_of(self, t: int) -> tuple[str, ...]:
        """Labels of table t's fouls, rule id first (``K-12``, ``K-16:touche``, ...)."""
        return self._labels(self.fouls[t].tolist(), t)

    def _labels(self, row: list[bool], t: int) -> tuple[str, ...]:
        k16 = _F["K-16"]
        labels = [FOUL_COLUMNS[c] for c, on in enumerate(row) if on and c != k16]
        if row[k16]:
            labels += [e.label for e in self.injected[t] if e.rule == "K-16"]
        return tuple(dict.fromkeys(labels))

    def rows(self) -> list[ShotRow]:
        """Every table as a :class:`ShotRow` of plain Python values (one ``tolist`` per field:
        the per-table game flow then never indexes numpy arrays)."""
        cols = [getattr(self, name).tolist() for name in _ROW_ARRAYS]
        fouls = self.fouls.tolist()
        return [ShotRow(*vals, injected=self.injected[t], fouls=self._labels(fouls[t], t))
                for t, vals in enumerate(zip(*cols, strict=True))]


_ROW_ARRAYS = ("points", "penalty", "foul", "win", "legal_pin", "cushion", "rodt", "blegt",
               "king_alone", "clean16", "ball_in_hand", "bih_salvo", "unsporting", "overflow",
               "pins_toppled", "pins_injected", "pin_toppler", "pins_up0", "present0", "pocketed",
               "start_xy", "end_xy")


@dataclass(frozen=True, slots=True)
class ShotRow:
    """One table of :class:`ShotScores` in plain Python values (same meanings); ``fouls`` holds
    the labels of :meth:`ShotScores.fouls_of`."""

    points: int
    penalty: int
    foul: bool
    win: bool
    legal_pin: bool
    cushion: bool
    rodt: bool
    blegt: bool
    king_alone: bool
    clean16: bool
    ball_in_hand: bool
    bih_salvo: bool
    unsporting: bool
    overflow: int
    pins_toppled: list[bool]
    pins_injected: list[bool]
    pin_toppler: list[int]
    pins_up0: list[bool]
    present0: list[bool]
    pocketed: list[bool]
    start_xy: list[list[float]]
    end_xy: list[list[float]]
    injected: tuple[Injected, ...]
    fouls: tuple[str, ...]


def _vector(name: str, value: Any, T: int, dtype: type) -> np.ndarray:
    if value is None:
        return np.zeros(T, dtype)
    arr = np.asarray(value)
    if arr.ndim == 0:
        arr = np.full(T, arr)
    if arr.shape != (T,):
        raise ValueError(f"{name} must have shape ({T},), got {arr.shape}")
    return arr.astype(dtype)


def check_overflow(overflow: np.ndarray, allow_overflow: bool) -> None:
    """Refuse shots the simulation cut off before everything came to rest (physics ``overflow``:
    1 max_events, 2 t_max) unless ``allow_overflow`` (K-P6: a shot ends at rest)."""
    if not isinstance(allow_overflow, (bool, np.bool_)):
        raise ValueError(f"allow_overflow must be true or false, got {allow_overflow!r}")
    bad = np.flatnonzero(np.asarray(overflow) != 0)
    if len(bad) and not allow_overflow:
        t = int(bad[0])
        code = int(np.asarray(overflow)[t])
        limit = {1: "max_events", 2: "t_max"}.get(code, f"code {code}")
        raise ValueError(f"table {t}: the simulation stopped at its {limit} limit before every "
                         f"ball and pin came to rest (overflow = {code}); raise max_events / "
                         "t_max, or pass allow_overflow=True to score it where the log ended")


def score_shots(log: Any, rules: KeglebillardRules | None = None, *,
                table: TableSpec | None = None, salvo_line: Any = None,
                injected: Sequence[Iterable | None] | None = None,
                allow_overflow: bool = False) -> ShotScores:
    """Score T finished shots from their event log (K-5..K-20; K-25 scoring).

    Pure: reads the log, writes nothing into it. The input is validated here; the scoring is
    one compiled kernel over the table axis (``keglebillard_kernel.score_kernel``).

    Args:
        log: a ``cuegym.physics.SimResult`` or anything with its fields (see :func:`read_log`).
        rules: the rule set (default: :func:`load_rules`).
        table: the keglebillard table (salvo line); default the kleinmatch table.
        salvo_line: (T,) bool, True where the salvo line applies to this shot (break, or ball in
            hand behind the line, K-15); default False.
        injected: length-T sequence of each shot's injected events (dicts or :class:`Injected`,
            K-14a and K-16), or None.
        allow_overflow: score shots whose simulation stopped at ``max_events`` / ``t_max``
            (``overflow`` != 0) where the log ended (``ShotScores.overflow`` keeps the code). By
            default such a log is refused: the rules judge a shot once everything is at rest
            (K-P6).

    Returns:
        :class:`ShotScores`.

    Raises:
        ValueError: a malformed log or injected event (the message names the value), or an
            overflowed shot without ``allow_overflow``.
    """
    rules = rules or load_rules()
    table = table or default_table()
    lg = read_log(log, table)
    T, K = lg.ev_type.shape
    check_overflow(lg.overflow, allow_overflow)
    house = not rules.ddbu
    salvo = _vector("salvo_line", salvo_line, T, np.bool_)
    if injected is None:
        inj = ((),) * T
    else:
        if len(injected) != T:
            raise ValueError(f"injected must have one entry per table ({T}), got {len(injected)}")
        inj = tuple(parse_injected(e) for e in injected)

    present0 = lg.motion0 != POCKETED
    if not present0[:, RED].all():
        t = int(np.flatnonzero(~present0[:, RED])[0])
        raise ValueError(f"log.motion0[{t}, 0] = {lg.motion0[t, 0]}: the red (cue ball, K-2) "
                         "must be on the table at the start")
    # injected events into arrays
    off = np.zeros((T, N_BALLS), bool)  # left the table for good (counts as pocketed, K-14a)
    off_any = np.zeros(T, bool)
    inj_pins = np.zeros((T, N_PINS), bool)
    k16 = np.zeros(T, bool)
    touche = np.zeros(T, bool)
    unsporting = np.zeros(T, bool)
    for t, events in enumerate(inj):
        for e in events:
            if e.type == "off_table":
                if not present0[t, e.ball]:
                    raise ValueError(f"injected off_table: ball {BALL_IDS[e.ball]!r} was not on "
                                     f"the table at the start (table {t})")
                off_any[t] = True
                off[t, e.ball] |= not e.returned
                continue
            k16[t] = True
            touche[t] |= e.type in TOUCHE_TYPES
            unsporting[t] |= e.unsporting
            for p in e.pins:
                if not lg.pins_up0[t, p]:
                    raise ValueError(f"injected pin_toppled: pin {PIN_IDS[p]!r} was not standing "
                                     f"at the start (table {t})")
                inj_pins[t, p] = True

    out = {name: np.zeros(T, np.int64) for name in (
        "points", "pin_points", "white_points", "bonus_points", "penalty", "shooter_points",
        "skaeve", "clean16_white")}
    for name in ("foul", "rodt", "blegt", "king_alone", "clean16", "legal_pin", "cushion", "win",
                 "ball_in_hand", "bih_salvo", "unsporting"):
        out[name] = np.zeros(T, bool)
    fouls = np.zeros((T, len(FOUL_COLUMNS)), bool)
    down = np.zeros((T, N_PINS), bool)
    inj_only = np.zeros((T, N_PINS), bool)
    toppler = np.zeros((T, N_PINS), np.int64)
    pocketed = np.zeros((T, N_BALLS), bool)
    flags = np.array([house, rules.cushion_before_pins, rules.frhv_nakkebal,
                      rules.ball_in_hand_area == "salvo"], np.int64)
    score_kernel(
        lg.ev_type, lg.ev_time, lg.ev_i, lg.ev_j, lg.n_events, lg.motion0, lg.motion, lg.pocket,
        lg.pins_up0, lg.pins_up, lg.pin_toppler, lg.pin_topple_time,
        np.ascontiguousarray(lg.rvw0[:, RED, 0, 0]), salvo, salvo_x(table), off, off_any,
        inj_pins, k16, touche, unsporting, flags, FOUL_PENALTY,
        out["points"], out["pin_points"], out["white_points"], out["bonus_points"],
        out["penalty"], out["shooter_points"], out["skaeve"], out["foul"], fouls, out["rodt"],
        out["blegt"], out["king_alone"], out["clean16"], out["clean16_white"], out["legal_pin"],
        out["cushion"], out["win"], out["ball_in_hand"], out["bih_salvo"], out["unsporting"],
        down, inj_only, toppler, present0, pocketed)
    return ShotScores(
        **out, fouls=fouls, injected=inj, pins_toppled=down, pins_injected=inj_only,
        pin_toppler=toppler, pins_up0=lg.pins_up0, present0=present0, pocketed=pocketed,
        start_xy=lg.rvw0[:, :, 0, :2].copy(), end_xy=lg.rvw[:, :, 0, :2].copy(),
        overflow=lg.overflow, variant=rules.variant)


# ---------------------------------------------------------------------------------------------
# K-24 the lag
# ---------------------------------------------------------------------------------------------

def judge_lag(log: Any, table: TableSpec | None = None) -> np.ndarray:
    """Judge T lags (K-24): player 0 drives the white, player 1 the spotted ball, the red absent.

    Each player's ball starts on its own side of y = 0. A ball that touches a pin or whose centre
    crosses y = 0 loses (crossing is checked at every logged event and at rest). Otherwise the
    ball whose centre stops nearer the bottom cushion (x = -L/2) wins; a pocketed ball counts as
    nearest. Re-lag when the balls touch, stop equally far, both are pocketed, both lose, or one
    ball was not moving at t = 0 (both must move before the first reaches the top cushion; with
    strikes at t = 0 that means both were struck).

    Returns:
        (T,) int: 0 or 1, the player who wins the break, or -1 for a re-lag.
    """
    table = table or default_table()
    lg = read_log(log, table)
    T, K = lg.ev_type.shape
    valid = np.arange(K)[None, :] < lg.n_events[:, None]
    typ = np.where(valid, lg.ev_type, EV_NONE)
    balls = (WHITE, SPOTTED)
    y0 = lg.rvw0[:, balls, 0, 1]  # (T, 2)
    if (np.sign(y0[:, 0]) * np.sign(y0[:, 1]) >= 0).any():
        t = int(np.flatnonzero(np.sign(y0[:, 0]) * np.sign(y0[:, 1]) >= 0)[0])
        raise ValueError(f"lag on table {t}: the two balls must start on opposite sides of "
                         f"y = 0, got y = {y0[t].tolist()}")
    moving0 = (lg.motion0[:, balls] != STATIONARY) & (lg.motion0[:, balls] != POCKETED)
    touched = (valid & (typ == EV_BALL_BALL) & (np.minimum(lg.ev_i, lg.ev_j) == WHITE)
               & (np.maximum(lg.ev_i, lg.ev_j) == SPOTTED)).any(1)
    pocketed = (lg.motion[:, balls] == POCKETED) | (lg.pocket[:, balls] >= 0)
    if isinstance(log, Mapping):
        ev_state = log.get("ev_state")
    else:
        ev_state = getattr(log, "ev_state", None)
    lose = np.zeros((T, 2), bool)
    for n, b in enumerate(balls):
        lose[:, n] = (valid & (typ == EV_BALL_PIN) & (lg.ev_i == b)).any(1)
        side = np.sign(y0[:, n])
        y_end = np.where(pocketed[:, n], y0[:, n], lg.rvw[:, b, 0, 1])
        lose[:, n] |= np.sign(y_end) == -side
        if ev_state is not None:
            es = np.asarray(ev_state)[:, :K]  # read_log cut the event axis to K
            for row, agent in ((0, lg.ev_i), (1, lg.ev_j)):
                mine = valid & (typ != EV_PIN_PIN) & (agent == b)
                if row == 1:
                    mine &= typ == EV_BALL_BALL
                crossed = mine & (np.sign(es[:, :, row, S_Y]) == -side[:, None])
                lose[:, n] |= crossed.any(1)
    # distance of the centre from the bottom cushion; a pocketed ball is nearest (-1 m)
    dist = np.where(pocketed, -1.0, lg.rvw[:, balls, 0, 0] + table.length / 2)
    winner = np.where(dist[:, 0] < dist[:, 1], 0, 1)
    winner = np.where(np.abs(dist[:, 0] - dist[:, 1]) <= GEOM_TOL, -1, winner)
    winner = np.where(pocketed.all(1), -1, winner)
    winner = np.where(lose[:, 0] & ~lose[:, 1], 1, winner)
    winner = np.where(lose[:, 1] & ~lose[:, 0], 0, winner)
    relag = touched | lose.all(1) | ~moving0.all(1)
    return np.where(relag, -1, winner).astype(np.int64)

