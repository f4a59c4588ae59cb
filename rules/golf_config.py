"""Golfbillard rule-set options and static game facts: what every table of a match is played with.

:class:`GolfRules` / :func:`load_golf_rules` are the options of ``configs/rules/golfbillard.yaml``
(G-3 opening, G-4 match, G-5 no progress, G-10 / G-10a, G-13, G-15, G-16 / G-17, G-25, G-30,
G-31 duos; docs/rules_golfbillard.md); :class:`GolfGeometry` / :func:`golf_geometry` the static
facts (the table config, the zones of ``configs/zones/golfbillard.yaml``, ball size, caps, goals,
the G-3 start spots, ball ids), with :func:`ball_index` (ball id or index -> index) and each
side's goals (:func:`attack_goal` G-6, :func:`defence_goal` G-8). The per-table state is
:mod:`cuegym.rules.golf_state`; the referee :mod:`cuegym.rules.golfbillard`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.configs import (
    CONFIG_DIR,
    ConfigError,
    PhysicsParams,
    TableSpec,
    finite_number,
    from_mapping,
    load_params,
    load_table,
    load_yaml,
)
from cuegym.configs.zones import ZoneSet, load_zones
from cuegym.rules.inputs import RefereeInputError, show

from .golf_arrays import BALLS_PER_SIDE, N_BALLS
from .golf_codes import PICK_POLICIES, SPOT_POLICIES


def attack_goal(side: int) -> int:
    """Goal index a side scores into (G-6): side 0 -> goal 0 (+x), side 1 -> goal 1 (-x)."""
    return int(side)


def defence_goal(side: int) -> int:
    """Goal index at a side's own end (G-8)."""
    return 1 - int(side)


# ---------------------------------------------------------------------------------------------
# Rule-set options
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GolfRules:
    """Rule-set options (``configs/rules/golfbillard.yaml``); defaults are the spec's.

    Attributes:
        opening: G-3 ``simultaneous`` or ``alternate`` (no opening stroke: side 0 starts every
            game).
        match: G-4 ``best_of_3`` or ``single``.
        no_progress_turns: G-5 turns (both sides together) after which the no-progress count runs.
        no_progress_window: G-5 scoreless turns of each side that end the game as a draw.
        hard_speed: G-10 (a) initial cue-ball speed of a hard stroke [m/s].
        raised_cue_deg: G-10 (b) cue elevation of a raised cue [deg].
        masse_turn_deg: G-10 heading turn before the first contact that makes a masse [deg].
        any_direction: G-10a option: G-10 applies to every stroke from below the stroke line.
        freeze_gap: G-13 a gap below this is frozen [m].
        all_balls: G-15 option: every shooter ball in the great attack triangle to a penalty
            spot, not only the moved ones.
        replace_on_off_table: G-16 / G-17 option: RA for the balls still on the table.
        spot_policy: G-30 ``first_free``, ``random`` or ``agent``.
        pick_policy: G-25 ``nearest_goal``, ``cue_ball``, ``random`` or ``agent``.
        duo: G-31 duo play.
        deciding_openers: G-31 partner (0/1) of each side who opens a deciding game.
    """

    opening: str = "simultaneous"
    match: str = "best_of_3"
    no_progress_turns: int = 40
    no_progress_window: int = 3
    hard_speed: float = 2.0
    raised_cue_deg: float = 30.0
    masse_turn_deg: float = 10.0
    any_direction: bool = False
    freeze_gap: float = 0.0005
    all_balls: bool = False
    replace_on_off_table: bool = False
    spot_policy: str = "first_free"
    pick_policy: str = "nearest_goal"
    duo: bool = False
    deciding_openers: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        choices = {"opening": ("simultaneous", "alternate"), "match": ("best_of_3", "single"),
                   "spot_policy": SPOT_POLICIES, "pick_policy": PICK_POLICIES}
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ConfigError(f"rules.{name} must be one of {list(allowed)}, got "
                                  f"{getattr(self, name)!r}")
        for name in ("no_progress_turns", "no_progress_window"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ConfigError(f"rules.{name} must be an integer >= 0, got {v!r}")
            object.__setattr__(self, name, int(v))
        for name in ("hard_speed", "raised_cue_deg", "masse_turn_deg", "freeze_gap"):
            object.__setattr__(self, name,
                               finite_number(f"rules.{name}", getattr(self, name), nonneg=True))
        for name in ("any_direction", "all_balls", "replace_on_off_table", "duo"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ConfigError(f"rules.{name} must be true or false, got "
                                  f"{getattr(self, name)!r}")
        d = self.deciding_openers
        if not (isinstance(d, Sequence) and len(d) == 2 and all(
                isinstance(x, int | np.integer) and not isinstance(x, bool) and x in (0, 1)
                for x in d)):
            raise ConfigError(f"rules.deciding_openers must be two partners 0/1, got {d!r}")
        object.__setattr__(self, "deciding_openers", tuple(int(x) for x in d))

    @property
    def games_to_win(self) -> int:
        """Games a side needs to win the match (G-4)."""
        return 2 if self.match == "best_of_3" else 1

    @property
    def max_games(self) -> int:
        """Games a match lasts at most (G-4; drawn games count)."""
        return 3 if self.match == "best_of_3" else 1

    @property
    def idle_limit(self) -> int:
        """G-5: scoreless turns (both sides' together) that end the game as a draw; 0 off."""
        return 2 * self.no_progress_window  # each side's window, the two sides alternating

    @classmethod
    def from_dict(cls, data: dict, base: GolfRules | None = None) -> GolfRules:
        """Build from a mapping; unknown keys raise ConfigError (a ValueError)."""
        return from_mapping(cls, data, base or cls(), "golfbillard rule option")

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["deciding_openers"] = list(self.deciding_openers)
        return d


RULES_PATH = CONFIG_DIR / "rules" / "golfbillard.yaml"


def load_golf_rules(path: str | Path | None = None, **overrides: Any) -> GolfRules:
    """Load ``configs/rules/golfbillard.yaml`` (or ``path``), then apply ``overrides``."""
    p = Path(path) if path is not None else RULES_PATH
    with open(p) as fh:
        data = load_yaml(fh) or {}
    rules = GolfRules.from_dict(data)
    return GolfRules.from_dict(overrides, base=rules) if overrides else rules


# ---------------------------------------------------------------------------------------------
# Static facts of the game (OpenSpiel's "Game"): table, ball size, zones
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GolfGeometry:
    """Everything static the referee needs, in one place (built by :func:`golf_geometry`).

    Attributes:
        table: the golfbillard TableSpec. zones: the ZoneSet. R: ball radius [m].
        r_cap: cap radius [m]. caps: (12, 2) cap centres [m]. goals: (2, 3) goal x, y, radius.
        start: (10, 2) start spots (G-3). ball_ids: ``w1 .. r5``.
    """

    table: TableSpec
    zones: ZoneSet
    R: float
    r_cap: float
    caps: np.ndarray
    goals: np.ndarray
    start: np.ndarray
    ball_ids: tuple[str, ...]

    def layout_params(self) -> PhysicsParams:
        """The golfbillard physics parameters with this geometry's R: what the physics' layout
        check of a state's balls takes."""
        from dataclasses import replace

        from cuegym.configs import default_params

        params = default_params("golfbillard")
        return params if params.R == self.R else replace(params, R=self.R)


_GEOMETRY: dict[tuple, GolfGeometry] = {}


def golf_geometry(table: TableSpec | None = None, params: PhysicsParams | None = None,
                  zones: ZoneSet | None = None) -> GolfGeometry:
    """The static game facts, from the shipped configs unless given (cached for the defaults)."""
    key = (id(table), id(params), id(zones))
    if key in _GEOMETRY:
        return _GEOMETRY[key]
    table = table or load_table("golfbillard")
    params = params or load_params("golfbillard")
    zones = zones or load_zones("golfbillard")
    posts = table.posts
    if not posts or len(table.pockets) != 2:
        raise ValueError(
            f"table {table.name!r} is not a golfbillard table (needs 2 goals and caps)")
    caps = np.array([[c.x, c.y] for c in table.circles], dtype=np.float64)
    goals = np.array([[p.x, p.y, p.radius] for p in table.pockets], dtype=np.float64)
    spots = table.spots or {}
    sx = float(spots.get("start_x", 0.825))
    sy = [float(y) for y in spots.get("start_y", [0.0, 0.15, -0.15, 0.30, -0.30])]
    if len(sy) != BALLS_PER_SIDE:
        raise ValueError(f"table spots.start_y must have {BALLS_PER_SIDE} values, got {sy!r}")
    start = np.array([[-sx, y] for y in sy] + [[sx, y] for y in sy], dtype=np.float64)
    ids = table.ball_ids or tuple([f"w{k}" for k in range(1, 6)] + [f"r{k}" for k in range(1, 6)])
    if len(ids) != N_BALLS:
        raise ValueError(f"golfbillard needs {N_BALLS} balls, table lists {len(ids)}")
    geo = GolfGeometry(table=table, zones=zones, R=float(params.R), r_cap=float(posts[0].radius),
                       caps=caps, goals=goals, start=start, ball_ids=tuple(ids))
    _GEOMETRY[key] = geo
    return geo


def ball_index(ball: Any, geo: GolfGeometry | None = None, path: str = "") -> int:
    """Index 0..9 of a ball given as index or id (``w1`` .. ``r5``); a ValueError
    (RefereeInputError naming ``path`` when given) otherwise."""
    geo = geo or golf_geometry()
    if isinstance(ball, (int, np.integer)) and not isinstance(ball, bool):
        if 0 <= int(ball) < N_BALLS:
            return int(ball)
    elif isinstance(ball, str) and ball in geo.ball_ids:
        return geo.ball_ids.index(ball)
    what = f"unknown ball {show(ball)}; balls are 0..9 or {list(geo.ball_ids)}"
    raise RefereeInputError(f"{path} is an {what}" if path else what)
