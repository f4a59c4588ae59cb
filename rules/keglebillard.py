"""Keglebillard referee: pure, batched functions from a finished shot's event log to its score.

The rule book is ``docs/rules_keglebillard.md``; every rule is cited by its id (K-..). This module
reads the physics event log (the ``SimResult`` contract of ``docs/physics_api.md``: numpy arrays
with a leading table axis) and scores T shots at once (validation in numpy, the scoring in one
compiled kernel, :mod:`cuegym.rules.keglebillard_kernel`); it knows nothing of players.
Game state and flow (players, scores, spotting, ball in hand, the end rules) live in the game
layer, :mod:`cuegym.games.kegle`, which calls :func:`score_shots`.

Here: the injected events (:class:`Injected`, K-14a and K-16), the scorer :func:`score_shots` ->
:class:`ShotScores` (K-5..K-20, K-25) and the lag :func:`judge_lag` (K-24). The rule set, the
ball and pin ids and the table facts are :mod:`cuegym.rules.keglebillard_config`; the event log
(:class:`EventLog`, :func:`read_log`, :func:`build_log`, :func:`log_from_json`,
:func:`stack_logs`) is :mod:`cuegym.rules.keglebillard_log`; this module re-exports both
(``__all__``), so it stays the one public entry point.

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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from cuegym.configs import TableSpec
from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_PIN,
    EV_NONE,
    EV_PIN_PIN,
    POCKETED,
    S_Y,
    STATIONARY,
)
from cuegym.rules.inputs import (
    RefereeInputError,
    check_overflow_codes,
    req_bool,
    req_int,
    req_list,
    req_name,
    req_num,
    req_obj,
    req_xy,
    show,
)
from cuegym.rules.keglebillard_config import (
    BALL_IDS,
    GEOM_TOL,
    KING,
    N_BALLS,
    N_PINS,
    PIN_IDS,
    RED,
    RULES_PATH,
    SPOTTED,
    WHITE,
    WHITES,
    KeglebillardRules,
    default_table,
    load_rules,
    salvo_x,
    white_spots,
)
from cuegym.rules.keglebillard_kernel import score_kernel
from cuegym.rules.keglebillard_log import (
    DEFAULT_START,
    EventLog,
    build_log,
    log_from_json,
    read_log,
    sim_log,
    stack_logs,
    table_arg,
)

#: The public API: the referee below, and (re-exported) the rule set and ids of
#: :mod:`cuegym.rules.keglebillard_config` and the event log of
#: :mod:`cuegym.rules.keglebillard_log`.
__all__ = ["BALL_IDS", "DEFAULT_START", "FOUL_COLUMNS", "FOUL_PENALTY", "GEOM_TOL",
           "INJECTED_TYPES", "KING", "N_BALLS", "N_PINS", "PIN_IDS", "RED", "RULES_PATH",
           "SPOTTED", "TOUCHE_TYPES", "WHITE", "WHITES", "EventLog", "Injected",
           "KeglebillardRules", "ShotRow", "ShotScores", "build_log", "check_overflow",
           "default_table", "judge_lag", "load_rules", "log_from_json", "parse_injected",
           "read_log", "salvo_x", "score_shots", "sim_log", "stack_logs", "white_spots"]

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
        # The one check of both forms: from_dict turns the JSON names into indices and builds
        # the object here, so an object made in Python is refused where its JSON form would be
        # (a pin -1 would topple pin4, True be a ball index, a NaN put-back be lost).
        kind = self.type
        if not isinstance(kind, str) or kind not in INJECTED_TYPES:
            raise RefereeInputError(f"unknown injected event type {show(kind)}; known: "
                                    f"{sorted(INJECTED_TYPES)}")
        path = f"injected {kind}"
        own = _INJ_KEYS.get(kind, set())
        for name in ("pins", "by", "balls", "ball", "returned"):
            if name not in own and not _unset(getattr(self, name), _INJ_DEFAULTS[name]):
                raise RefereeInputError(f"{path} takes no {name} (it takes "
                                        f"{sorted(own | {'unsporting'})}), got "
                                        f"{show(getattr(self, name))}")
        pins = tuple(sorted({req_int(v, f"{path}.pins[{k}]", 0, N_PINS - 1)
                             for k, v in enumerate(_listed(self.pins, f"{path}.pins"))}))
        balls = tuple(_touched(b, f"{path}.balls[{k}]")
                      for k, b in enumerate(_listed(self.balls, f"{path}.balls")))
        if len({b[0] for b in balls}) < len(balls):
            raise RefereeInputError(f"{path}.balls lists a ball twice: {show(self.balls)}")
        if not isinstance(self.by, str):
            raise RefereeInputError(f"{path}.by must be a string, got {show(self.by)}")
        if kind == "off_table" and _unset(self.ball, -1):
            raise RefereeInputError("injected off_table needs a ball")
        ball = (req_int(self.ball, f"{path}.ball", 0, N_BALLS - 1) if kind == "off_table"
                else -1)
        for name, value in (("pins", pins), ("balls", balls), ("ball", ball),
                            ("returned", req_bool(self.returned, f"{path}.returned")),
                            ("unsporting", req_bool(self.unsporting, f"{path}.unsporting"))):
            object.__setattr__(self, name, value)  # plain Python values: == and hash work
        if kind == "off_table" and self.unsporting:
            raise RefereeInputError("injected off_table (K-14a) cannot be marked unsporting")
        if kind == "pin_toppled" and not pins:
            raise RefereeInputError("injected pin_toppled needs at least one pin")
        if kind == "deliberate_touch" and not balls:
            raise RefereeInputError("injected deliberate_touch needs the touched balls' "
                                    "positions")

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
        by = data.get("by", "")  # (its type, as the rest of the event: __post_init__)
        returned = req_bool(data.get("returned", False), f"{path}.returned")
        unsporting = req_bool(data.get("unsporting", False), f"{path}.unsporting")
        try:
            return cls(type=kind, pins=pins, by=by, balls=balls, ball=ball, returned=returned,
                       unsporting=unsporting)
        except ValueError as exc:  # __post_init__: a rule of the event, named without its path
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


#: The field defaults of :class:`Injected`: a field its type does not take must keep them.
_INJ_DEFAULTS = {f.name: f.default for f in fields(Injected)}


def _unset(value: Any, default: Any) -> bool:
    """An :class:`Injected` field left at its default (``()``, ``""``, -1, False)."""
    if isinstance(default, tuple):
        return isinstance(value, (tuple, list, np.ndarray)) and len(value) == 0
    return type(value) in (type(default), np.int64, np.bool_) and value == default


def _listed(value: Any, path: str, length: int | None = None) -> list:
    """A list or tuple (or numpy array) field of :class:`Injected` as a list."""
    return req_list(value.tolist() if isinstance(value, np.ndarray) else value, path, length)


def _touched(value: Any, path: str) -> tuple[int, float, float]:
    """One ``(ball, x, y)`` of a ``deliberate_touch``: a ball index and a finite position [m]."""
    b, x, y = _listed(value, path, 3)
    return (req_int(b, f"{path}[0]", 0, N_BALLS - 1), req_num(x, f"{path}[1]"),
            req_num(y, f"{path}[2]"))


def parse_injected(items: Iterable | None, path: str = "inject") -> tuple[Injected, ...]:
    """One shot's injected events from dicts or :class:`Injected` (None: no events); ``path``
    is the JSON path named in errors."""
    if items is None:
        return ()
    if isinstance(items, (Mapping, str)) or not isinstance(items, Iterable):
        raise RefereeInputError(f"{path} (injected events) must be a list, got {show(items)}")
    return tuple(Injected.from_dict(e, f"{path}[{k}]") for k, e in enumerate(items))


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
    """``value`` as a (T,) array of ``dtype``: None is all zeros (False), one value applies to
    every table. A bool vector must hold bools: other dtypes are refused rather than cast
    (``"no"``, 0.5, NaN and 2 would read as True), as the envs' ``reset_mask``."""
    if value is None:
        return np.zeros(T, dtype)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):  # ragged
        raise ValueError(f"{name} must be an array of shape ({T},), got {show(value)}") from None
    if np.dtype(dtype) == np.bool_ and arr.dtype != np.bool_:
        raise ValueError(f"{name} must be True / False (a bool array of shape ({T},)), got "
                         f"dtype {arr.dtype}: {show(value)}")
    if arr.ndim == 0:
        arr = np.full(T, arr)
    if arr.shape != (T,):
        raise ValueError(f"{name} must have shape ({T},), got {arr.shape}")
    return arr.astype(dtype)


def _rules_arg(rules: Any) -> KeglebillardRules:
    """``score_shots``' ``rules``: a rule set, a mapping of options over the shipped file (as
    ``Kegle(rules=)``), or None (the shipped file)."""
    if isinstance(rules, KeglebillardRules):
        return rules
    if rules is None or isinstance(rules, Mapping):
        return load_rules(rules)
    raise RefereeInputError(f"rules must be a KeglebillardRules (load_rules), a mapping of "
                            f"rule options or None, got {show(rules)}")


def check_overflow(overflow: np.ndarray, allow_overflow: bool) -> None:
    """Refuse shots the simulation cut off before everything came to rest (physics ``overflow``:
    1 max_events, 2 t_max) unless ``allow_overflow`` (K-P6: a shot ends at rest)."""
    check_overflow_codes(overflow, allow_overflow, None, "every ball and pin")


def _injected_arrays(inj: tuple, present0: np.ndarray, pins_up0: np.ndarray
                     ) -> tuple[np.ndarray, ...]:
    """The T shots' parsed injected events (``inj``: per table a tuple of :class:`Injected`) as
    the kernel's arrays, checked against the start (``present0`` (T, 3), ``pins_up0`` (T, 5)):
    off (T, 3) balls that left the table for good (they count as pocketed, K-14a), off_any (T,)
    any ball off, even one that came back; inj_pins (T, 5) pins toppled by hand, k16 (T,) a
    K-16 event, touche (T,) one of them a touch, unsporting (T,) one of them unsporting."""
    T = len(inj)
    off = np.zeros((T, N_BALLS), bool)
    off_any = np.zeros(T, bool)
    inj_pins = np.zeros((T, N_PINS), bool)
    k16 = np.zeros(T, bool)
    touche = np.zeros(T, bool)
    unsporting = np.zeros(T, bool)
    def on_table(kind: str, b: int, t: int) -> None:
        # a ball off the table at the start (pocketed, or a white waiting for its spot, K-18)
        # can neither leave it (K-14a) nor be touched and put back where it lay (K-16)
        if not present0[t, b]:
            raise ValueError(f"injected {kind}: ball {BALL_IDS[b]!r} was not on the table at "
                             f"the start (table {t})")

    for t, events in enumerate(inj):
        for e in events:
            if e.type == "off_table":
                on_table(e.type, e.ball, t)
                off_any[t] = True
                off[t, e.ball] |= not e.returned
                continue
            for b, _x, _y in e.balls:
                on_table(e.type, b, t)
            k16[t] = True
            touche[t] |= e.type in TOUCHE_TYPES
            unsporting[t] |= e.unsporting
            for p in e.pins:
                if not pins_up0[t, p]:
                    raise ValueError(f"injected pin_toppled: pin {PIN_IDS[p]!r} was not standing "
                                     f"at the start (table {t})")
                inj_pins[t, p] = True
    return off, off_any, inj_pins, k16, touche, unsporting


def score_shots(log: Any, rules: KeglebillardRules | Mapping | None = None, *,
                table: TableSpec | str | None = None, salvo_line: Any = None,
                injected: Sequence[Iterable | None] | None = None,
                allow_overflow: bool = False) -> ShotScores:
    """Score T finished shots from their event log (K-5..K-20; K-25 scoring).

    Pure: reads the log, writes nothing into it. The input is validated here; the scoring is
    one compiled kernel over the table axis (``keglebillard_kernel.score_kernel``).

    Args:
        log: a ``cuegym.physics.SimResult`` or anything with its fields (see :func:`read_log`).
        rules: the rule set, or a mapping of options over the shipped one (default:
            :func:`load_rules`).
        table: the keglebillard table (salvo line; a ``TableSpec`` or a config name, as
            :func:`build_log`); default the kleinmatch table.
        salvo_line: (T,) bool (or one bool for all), True where the salvo line applies to this
            shot (break, or ball in hand behind the line, K-15); default False. Other dtypes
            (0 / 1, strings) are refused.
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
    rules = _rules_arg(rules)
    table = table_arg(table, "score_shots")
    lg = read_log(log, table)
    T, K = lg.ev_type.shape
    check_overflow(lg.overflow, allow_overflow)
    house = not rules.ddbu
    salvo = _vector("salvo_line", salvo_line, T, np.bool_)
    if injected is None:
        inj = ((),) * T
    else:
        if not isinstance(injected, (list, tuple)):  # a dict or a string has a len() too
            raise ValueError(f"injected must be a list of one entry per table ({T}), got "
                             f"{show(injected)}")
        if len(injected) != T:
            raise ValueError(f"injected must have one entry per table ({T}), got {len(injected)}")
        inj = tuple(parse_injected(e) for e in injected)

    present0 = lg.motion0 != POCKETED
    if not present0[:, RED].all():
        t = int(np.flatnonzero(~present0[:, RED])[0])
        raise ValueError(f"log.motion0[{t}, 0] = {lg.motion0[t, 0]}: the red (cue ball, K-2) "
                         "must be on the table at the start")
    off, off_any, inj_pins, k16, touche, unsporting = _injected_arrays(inj, present0,
                                                                       lg.pins_up0)
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

def judge_lag(log: Any, table: TableSpec | str | None = None) -> np.ndarray:
    """Judge T lags (K-24): player 0 drives the white, player 1 the spotted ball, the red absent.

    Each player's ball starts on or behind the salvo line, on its own side of y = 0 (else a
    ValueError naming the table and the positions). A ball that touches a pin or whose centre
    crosses y = 0 loses (crossing is checked at every logged event, at rest and, for a pocketed
    ball, at its pocket: a pocket across y = 0 was reached by crossing it). Otherwise the
    ball whose centre stops nearer the bottom cushion (x = -L/2) wins; a pocketed ball counts as
    nearest. Re-lag when the balls touch, stop equally far, both are pocketed, both lose, or one
    ball was not moving at t = 0 (both must move before the first reaches the top cushion; with
    strikes at t = 0 that means both were struck). A re-lag condition stands even when one ball
    lost (e.g. both pocketed, one of them across y = 0): the rule lists them without exception.

    Returns:
        (T,) int: 0 or 1, the player who wins the break, or -1 for a re-lag.
    """
    table = table_arg(table, "judge_lag")
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
    x0 = lg.rvw0[:, balls, 0, 0]  # (T, 2)
    ahead = x0 > salvo_x(table) + GEOM_TOL
    if ahead.any():
        t = int(np.flatnonzero(ahead.any(1))[0])
        raise ValueError(f"lag on table {t}: both balls must start on or behind the salvo line "
                         f"x = {salvo_x(table):g} m, got x = {x0[t].tolist()}")
    moving0 = (lg.motion0[:, balls] != STATIONARY) & (lg.motion0[:, balls] != POCKETED)
    touched = (valid & (typ == EV_BALL_BALL) & (np.minimum(lg.ev_i, lg.ev_j) == WHITE)
               & (np.maximum(lg.ev_i, lg.ev_j) == SPOTTED)).any(1)
    pocketed = (lg.motion[:, balls] == POCKETED) | (lg.pocket[:, balls] >= 0)
    if isinstance(log, Mapping):
        ev_state = log.get("ev_state")
    else:
        ev_state = getattr(log, "ev_state", None)
    lose = np.zeros((T, 2), bool)
    pockets_y = np.array([pocket.y for pocket in table.pockets])
    for n, b in enumerate(balls):
        lose[:, n] = (valid & (typ == EV_BALL_PIN) & (lg.ev_i == b)).any(1)
        side = np.sign(y0[:, n])
        # a pocketed ball ends at its pocket: one across y = 0 crossed it (all pockets lie
        # off y = 0); a pocketed ball whose log names no pocket is judged by where it started
        pocket_y = np.where(lg.pocket[:, b] >= 0, pockets_y[np.maximum(lg.pocket[:, b], 0)],
                            y0[:, n])
        y_end = np.where(pocketed[:, n], pocket_y, lg.rvw[:, b, 0, 1])
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
    winner = np.where(lose[:, 0] & ~lose[:, 1], 1, winner)
    winner = np.where(lose[:, 1] & ~lose[:, 0], 0, winner)
    # K-24 lists its re-lags without exception: they stand even when one ball lost
    equal = np.abs(dist[:, 0] - dist[:, 1]) <= GEOM_TOL
    relag = touched | equal | pocketed.all(1) | lose.all(1) | ~moving0.all(1)
    return np.where(relag, -1, winner).astype(np.int64)

