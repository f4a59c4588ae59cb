"""The one adapter between the play app and the game layer (rules, physics, agents).

Everything the app does to a game goes through here (golfbillard's table in
:mod:`cuegym.play.golf_table`, made by :func:`make_table`): new games, who is to move, checking and
playing a strike (execution noise, one physics call, the referee, the game flow), an agent's
move, the closed-form animation of a shot, the table geometry for drawing. The server, the
game records and the tests call this module and nothing below it, so when the game layer
changes only this file changes.

Strikes are the physics API's (docs/physics_api.md): ``V0`` cue speed [m/s], ``phi`` aim [deg,
0 = +x, counter-clockwise], ``theta`` cue elevation [deg], ``a`` side and ``b`` top/back spin
(cue-tip offsets / R). A *move* is what one turn submits:

- keglebillard: ``{"strike": {...}, "place": [x, y] | None}`` (``place``: the red when in hand);
- golfbillard play: ``{"strike": {...}, "ball": "w3"}``;
- golfbillard opening (G-3): ``{"strikes": [{..., "ball": "w1"}, {..., "ball": "r1"}]}``, one
  per side, struck at t = 0.

Physics settings are those of :mod:`cuegym.agents.arena` (the tournaments'), so a game played
here and one recorded by ``experiments/evaluate.py --save-games`` re-simulate the same way.
"""

from __future__ import annotations

import functools
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cuegym.agents.base import SPIN_MAX, THETA_MAX, V0_MAX
from cuegym.configs import DEFAULT_TABLES, check_game_table, game_tables

if TYPE_CHECKING:
    from cuegym.play.golf_table import GolfTable

GAMES = ("keglebillard", "golfbillard")
NOISES = ("none", "tournament")
AGENT_NAMES = ("pretrained", "expert", "guided", "planner", "geometric", "random")
#: The strike limits a person may use: the agents' (cuegym.agents.base), V0 from 0.05 m/s.
V0_MIN = 0.05
#: The largest aim |phi| taken [deg]: one turn either way covers every way of writing an angle,
#: and a bigger one is no aim anyone meant (wrapped, 1e300 would become an arbitrary angle, and
#: past 2**53 degrees no digit below the degree is left).
PHI_MAX = 360.0


class PlayError(ValueError):
    """A move or request the game cannot take; the message says why (HTTP 4xx)."""


@functools.cache
def tables_of(game: str) -> tuple[str, ...]:
    """The table configs ``game`` is played on, its default first
    (:func:`cuegym.configs.game_tables`); PlayError for an unknown game."""
    try:
        return game_tables(game)
    except ValueError as exc:
        raise PlayError(str(exc)) from None


def check_table(game: str, table: Any) -> str:
    """``table`` when it is a table ``game`` is played on, else PlayError naming it and the
    tables there are (:func:`cuegym.configs.check_game_table`)."""
    tables_of(game)  # an unknown game, as PlayError
    try:
        return check_game_table(game, table)
    except ValueError as exc:
        raise PlayError(str(exc)) from None


#: How deep a request body or a game record may nest. The responses echo parts of them
#: (seat names, a record's meta) and are serialised by pydantic, whose depth limit is far
#: below what Python's JSON parser accepts; the app's own JSON nests a few levels.
MAX_JSON_DEPTH = 32


def check_plain_json(value: Any, where: str, depth: int = 0) -> None:
    """PlayError unless every string of ``value`` (keys too) is text that UTF-8 can encode
    (JSON's ``\\ud800`` escape gives a lone surrogate, which it cannot) and it nests at most
    :data:`MAX_JSON_DEPTH` deep: what was taken in can always be sent back."""
    if depth > MAX_JSON_DEPTH:
        shown = where if len(where) <= 60 else where[:57] + "..."
        raise PlayError(f"{shown} nests more than {MAX_JSON_DEPTH} levels deep")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise PlayError(f"{where} = {value[:40]!r} is not text: it holds the lone UTF-16 "
                            f"surrogate {value[e.start]!r}") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            check_plain_json(k, f"{where} key", depth + 1)
            check_plain_json(v, f"{where}.{k}", depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            check_plain_json(v, f"{where}[{i}]", depth + 1)


# ---------------------------------------------------------------------------------------------
# Strikes
# ---------------------------------------------------------------------------------------------


def move_strike(move: Any, game: str, keys: tuple[str, ...]) -> np.ndarray:
    """The strike (5,) of a person's move, an object with ``strike`` and the game's other
    ``keys`` (PlayError for anything else: not an object, an unknown key, a bad strike)."""
    if not isinstance(move, Mapping):
        raise PlayError(f"a move must be an object, got {move!r}")
    extra = sorted(set(move) - {"strike", *keys})
    if extra:
        raise PlayError(f"unknown key(s) {extra} in a {game} move (strike, {', '.join(keys)})")
    return parse_strike(move.get("strike"))


def parse_strike(obj: Any, where: str = "strike") -> np.ndarray:
    """(5,) V0, phi, theta, a, b from a JSON strike; PlayError naming any bad value.

    phi in [-PHI_MAX, PHI_MAX] is wrapped to [-180, 180); V0 in [0.05, V0_MAX], theta in
    [0, THETA_MAX] and a^2 + b^2 <= SPIN_MAX^2 are required (the limits the agents keep to).
    """
    if not isinstance(obj, Mapping):
        raise PlayError(f"{where} must be an object with V0, phi, theta, a, b; got {obj!r}")
    extra = sorted(set(obj) - {"V0", "phi", "theta", "a", "b"})
    if extra:
        raise PlayError(f"unknown key(s) {extra} in {where}")
    vals = []
    for k in ("V0", "phi", "theta", "a", "b"):
        if k not in obj and k in ("theta", "a", "b"):
            v = 0.0  # may be left out
        elif obj.get(k) is None:
            raise PlayError(f"{where}.{k} is required" if k not in obj else
                            f"{where}.{k} must be a number, got null" +
                            (" (it may be left out: 0)" if k in ("theta", "a", "b") else ""))
        else:
            v = obj[k]
        vals.append(finite(v, f"{where}.{k}"))
    V0, phi, theta, a, b = vals
    if not V0_MIN <= V0 <= V0_MAX:
        raise PlayError(f"{where}.V0 = {V0} m/s is out of range [{V0_MIN}, {V0_MAX}]")
    if not -PHI_MAX <= phi <= PHI_MAX:
        raise PlayError(f"{where}.phi = {phi} deg is out of range [{-PHI_MAX}, {PHI_MAX}] "
                        "(it is wrapped to [-180, 180))")
    if not 0.0 <= theta <= THETA_MAX:
        raise PlayError(f"{where}.theta = {theta} deg is out of range [0, {THETA_MAX}]")
    if math.hypot(a, b) > SPIN_MAX + 1e-9:
        raise PlayError(f"{where}: spin (a, b) = ({a}, {b}) is off the cue ball: a^2 + b^2 must "
                        f"be <= {SPIN_MAX}^2")
    return np.array([V0, (phi + 180.0) % 360.0 - 180.0, theta, a, b])


def finite(v: Any, where: str) -> float:
    """``v`` as a float when it is a finite JSON number (not a bool, a string, NaN, infinity or
    an integer too large for a float); else PlayError naming ``where`` and the value."""
    try:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise OverflowError
        return float(v)
    except OverflowError:
        raise PlayError(f"{where} must be a finite number, got {v!r}") from None


def strike_json(cue: Sequence[float]) -> dict[str, float]:
    return {k: float(v) for k, v in zip(("V0", "phi", "theta", "a", "b"), cue, strict=True)}


def parse_xy(obj: Any, where: str) -> tuple[float, float]:
    try:
        if not isinstance(obj, (list, tuple)) or len(obj) != 2:
            raise PlayError("not a pair")
        x, y = (finite(v, where) for v in obj)
    except PlayError:
        raise PlayError(f"{where} must be [x, y], two finite numbers in metres; got {obj!r}") \
            from None
    return x, y


def recorded_strike(obj: Any, where: str) -> np.ndarray:
    """(5,) V0, phi, theta, a, b of a recorded (executed) strike: finite numbers, no range
    check (execution noise may leave the limits); PlayError naming a bad value."""
    if not isinstance(obj, Mapping):
        raise PlayError(f"{where} must be an object with V0, phi, theta, a, b; got {obj!r}")
    for k in ("V0", "phi", "theta", "a", "b"):
        if k not in obj:
            raise PlayError(f"{where}.{k} is missing")
    return np.array([finite(obj[k], f"{where}.{k}") for k in ("V0", "phi", "theta", "a", "b")])


def noise_of(name: str):
    """The :class:`~cuegym.agents.base.ShotNoise` of a preset name (``none`` / ``tournament``)."""
    from cuegym.agents.base import load_noise

    if name not in NOISES:
        raise PlayError(f"unknown noise {name!r}; use one of {list(NOISES)}")
    return load_noise(name)


def noisy_strikes(cue: np.ndarray, noise: Any, rng: np.random.Generator) -> np.ndarray:
    """(k, 5) strikes as executed: one noise draw each (none: unchanged, no draw)."""
    cue = np.asarray(cue, np.float64).reshape(-1, 5)
    if noise.is_zero:
        return cue.copy()
    return noise.sample(cue, 1, rng)[:, 0]


# ---------------------------------------------------------------------------------------------
# Shot animation from the event log (closed-form paths)
# ---------------------------------------------------------------------------------------------


def animation(res: Any, row: int, ball_ids: Sequence[str]) -> dict[str, Any]:
    """The closed-form motion of table ``row`` of a SimResult for the browser.

    Returns ``{"t_end", "balls": {id: {"segs": [[t0, t1, x, y, qx, qy, ax, ay], ...],
    "drop": [t, pocket] | None}}, "pins": [{"up0", "t", "dir"}]}``: during [t0, t1] a ball's
    centre is (x, y) + (qx, qy) τ + (ax, ay) τ², τ = t - t0 (m, m/s, m/s²); ``drop``: when and
    into which pocket/goal it fell; pins (keglebillard): standing at the start, topple time [s]
    (inf: stayed up) and unit fall direction.
    """
    from cuegym.physics.constants import EV_BALL_POCKET, POCKETED
    from cuegym.physics.path import ball_segments

    n = int(res.n_events[row])
    drops: dict[int, list] = {}
    for k in range(n):
        if int(res.ev_type[row, k]) == EV_BALL_POCKET:
            b = int(res.ev_i[row, k])
            drops.setdefault(b, [float(res.ev_time[row, k]), int(res.ev_j[row, k])])
    balls = {}
    for b, bid in enumerate(ball_ids):
        if int(res.motion0[row, b]) == POCKETED:
            continue
        segs = [[t0, t1, *p0.tolist(), *q.tolist(), *acc.tolist()]
                for t0, t1, p0, q, acc in ball_segments(res, row, b)]
        balls[bid] = {"segs": [[float(v) for v in s] for s in segs], "drop": drops.get(b)}
    pins = []
    if getattr(res, "pins_up0", None) is not None and np.asarray(res.pins_up0).shape[-1] > 0:
        for p in range(res.pins_up0.shape[1]):
            tt = float(res.pin_topple_time[row, p])
            pins.append({"up0": bool(res.pins_up0[row, p]),
                         "t": tt if math.isfinite(tt) else None,
                         "dir": [float(v) for v in res.pin_fall_dir[row, p]]})
    return {"t_end": float(res.t_end[row]), "balls": balls, "pins": pins}


def anim_end(anim: Mapping, ball_ids: Sequence[str]) -> dict[str, list[float] | None]:
    """Where the balls of an :func:`animation` stop ([x, y]; None: not on the table at the
    end, or not at the start): the stroke's end before the referee moves any ball."""
    out: dict[str, list[float] | None] = dict.fromkeys(ball_ids)
    for bid, b in anim["balls"].items():
        if b["drop"] is not None or not b["segs"]:
            continue
        t0, t1, x, y, qx, qy, ax, ay = b["segs"][-1]
        tau = t1 - t0
        out[bid] = [x + qx * tau + ax * tau * tau, y + qy * tau + ay * tau * tau]
    return out


# ---------------------------------------------------------------------------------------------
# One played move
# ---------------------------------------------------------------------------------------------


@dataclass
class Played:
    """A move played through the referee.

    Attributes:
        outcome: the referee's outcome as JSON (``ShotOutcome.to_dict`` / ``GolfOutcome.to_json``
            / ``OpeningOutcome.to_json``). state: the next state (game object).
        executed: the strikes as executed (after noise), in move form.
        anim: :func:`animation` of the shot, or None (an unplayable K-19 placement).
        choices: golfbillard: the opponent's answers used (``{"spots": [..], "pick": ..}``),
            None when the shipped policies chose.
        res: the physics result (one table; None without a shot), for renderers.
    """

    outcome: dict
    state: Any
    executed: dict
    anim: dict | None
    choices: dict | None = None
    res: Any = None


@dataclass
class Pending:
    """A golfbillard stroke simulated and waiting for the opponent's choice."""

    state: Any
    executed: dict
    cb: np.ndarray
    cue: np.ndarray
    res: Any
    anim: dict
    answers: dict = field(default_factory=lambda: {"spots": [], "pick": None})
    question: dict = field(default_factory=dict)
    #: the outcome as the shipped policies would place the balls (the foul and its penalty,
    #: which the answers do not change), for saying why the opponent is asked; None: unknown
    preview: dict | None = None


# ---------------------------------------------------------------------------------------------
# Keglebillard
# ---------------------------------------------------------------------------------------------


class KegleTable:
    """Keglebillard through :class:`cuegym.agents.arena.KeglebillardArena`.

    Args:
        players: 2..6 (K-1). distance: points to reach (K-21; 70 by the rules).
        table: the table config (:func:`tables_of`): ``keglebillard``, the kleinmatch (the
            default), or ``keglebillard-helmatch``; its size, pockets, pins and spots are the
            config's, for the physics, the referee, the agents and the drawing alike.
    """

    game = "keglebillard"

    def __init__(self, players: int = 2, distance: int = 70,
                 table: str = "keglebillard") -> None:
        from cuegym.agents import make_arena

        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
            raise PlayError(f"keglebillard is played by 2 to 6 players, got {players!r}")
        if isinstance(distance, bool) or not isinstance(distance, int) or not 1 <= distance <= 500:
            raise PlayError(f"distance must be an integer 1..500, got {distance!r}")
        table = check_table("keglebillard", table)
        self.arena = make_arena("keglebillard", {"distance": distance}, table=table,
                                n_players=players)
        self.g = self.arena.g
        self.players = players
        self.distance = distance
        self.table = table
        self.ball_ids = ("red", "white", "spotted")

    @property
    def options(self) -> dict:
        """The game's options, as :func:`make_table` takes them: the table only when it is
        not the default (a record of a kleinmatch game is as it always was)."""
        out: dict[str, Any] = {"players": self.players, "distance": self.distance}
        if self.table != DEFAULT_TABLES["keglebillard"]:
            out["table"] = self.table
        return out

    def new_state(self) -> Any:
        return self.arena.new_states(1)[0]

    def state_json(self, st: Any) -> dict:
        return st.to_dict()

    def state_from_json(self, obj: dict) -> Any:
        """The state of ``obj`` (the rules' JSON); PlayError when it is on another table than
        this game's or has another number of players (a record's options and its states must
        name the same table and players)."""
        from cuegym.rules.keglebillard_game import GameState

        st = GameState.from_dict(obj)
        if len(st.order) != self.players:  # its seats would name players with no seat
            raise PlayError(f"the state has {len(st.order)} players, the game {self.players} "
                            "(options.players)")
        if st.table != self.table:
            raise PlayError(f"the state is on table {st.table!r}, the game on {self.table!r}"
                            + ("" if self.table != DEFAULT_TABLES["keglebillard"] else
                               f" (a game on {st.table!r} names it in its options: "
                               f"{{\"table\": {json.dumps(st.table)}}})"))
        return st

    @staticmethod
    def over(st: Any) -> bool:
        return bool(st.game_over)

    @staticmethod
    def seat_to_move(st: Any) -> int | None:
        """The seat (player id) to move; None when over."""
        return None if st.game_over else int(st.to_play)

    @staticmethod
    def chooser(st: Any) -> None:
        return None

    def placement_error(self, st: Any, xy: Sequence[float]) -> str | None:
        """Why the red cannot go at ``xy`` (K-19), or None; also "in front of the salvo line"
        when the line applies (K-3, K-14: the app keeps people behind it)."""
        if st.ball_in_hand is None:
            return "the red is on the table: there is nothing to place"
        why = self.g.placement_error(st, xy)
        if why:
            return why
        if st.ball_in_hand == "salvo" and xy[0] > self.g.salvo_x + 1e-12:
            return (f"the red at ({xy[0]:.4f}, {xy[1]:.4f}) is in front of the salvo line "
                    f"x = {self.g.salvo_x:.4f}: place it on or behind the line (K-3, K-15)")
        return None

    def check_move(self, st: Any, move: Mapping) -> tuple[np.ndarray, np.ndarray]:
        """(cue (5,), place (2,) NaN when none) from a person's move, or PlayError."""
        cue = move_strike(move, "keglebillard", ("place",))
        place = np.full(2, np.nan)
        if st.ball_in_hand is not None:
            if move.get("place") is None:
                raise PlayError("you have the red in hand: place it first (move.place = [x, y])")
            xy = parse_xy(move["place"], "place")
            why = self.placement_error(st, xy)
            if why:
                raise PlayError(f"K-19: {why}")
            place[:] = xy
        elif move.get("place") is not None:
            raise PlayError("move.place given but the red is on the table (no ball in hand)")
        return cue, place

    def agent_move(self, agent: Any, st: Any, rng: np.random.Generator) -> dict:
        s = agent.act([st], rng)
        place = s.place[0]
        return {"strike": strike_json(s.cue[0]),
                "place": None if np.isnan(place).any() else [float(v) for v in place]}

    def play(self, st: Any, cue: np.ndarray, place: np.ndarray, noise: Any,
             rng: np.random.Generator, executed: bool = False) -> Played:
        """Play one strike (noise drawn from ``rng`` unless ``executed``): K-19 placement
        foul for an unplayable placement (agents), else physics + referee."""
        from cuegym.agents.base import Strikes

        cue = np.asarray(cue, np.float64).reshape(5)
        run = cue if executed else noisy_strikes(cue, noise, rng)[0]
        s = Strikes(run[None], np.zeros(1, np.int64), np.asarray(place, np.float64)[None])
        move = {"strike": strike_json(run),
                "place": None if np.isnan(place).any() else [float(v) for v in place]}
        if not self.arena.placement_ok([st], s.place)[0]:
            out, new = self.g.placement_foul(st, tuple(place))
            return Played(out.to_dict(), new, move, None)
        out, new = self.g.play(self.g.batch([st]), s, max_events=self.arena.max_events,
                               t_max=self.arena.t_max, allow_overflow=True)
        if not out.played[0]:
            return Played(out.outcome(0).to_dict(), new.state(0), move, None)
        res = out.sim
        return Played(out.outcome(0).to_dict(), new.state(0), move,
                      animation(res, int(out.row[0]), self.ball_ids), res=res)

    def replay(self, st: Any, move: Mapping, choices: Any = None) -> Played:
        """Re-play a recorded move exactly (its strike is the executed one)."""
        if not isinstance(move, Mapping):
            raise PlayError(f"executed must be a move object {{strike, place}}, got {move!r}")
        cue = recorded_strike(move.get("strike"), "executed.strike")
        place = np.full(2, np.nan) if move.get("place") is None else np.array(
            parse_xy(move["place"], "executed.place"))
        return self.play(st, cue, place, None, None, executed=True)

    def geometry(self) -> dict:
        t = self.g.table
        return {**table_json(t, self.g.R), "salvo_x": float(self.g.salvo_x),
                "white_spots": [[float(v) for v in s] for s in self.g.spots],
                "pin_spots": [[float(v) for v in s] for s in self.g.pin_spots],
                "pin_radius": float(t.pin_radius), "pin_height": float(t.pin_height),
                "pin_ids": list(t.pin_ids) or ["king", "p1", "p2", "p3", "p4"]}


def table_json(t: Any, R: float) -> dict:
    """The drawing of table config ``t`` for the page: size, pockets, jaws or caps, cushions
    [m]; ``R`` the ball radius [m]."""
    return {"table": str(t.name), "length": float(t.length), "width": float(t.width),
            "R": float(R),
            "pockets": [[float(p.x), float(p.y), float(p.radius)] for p in t.pockets],
            "circles": [[float(c.x), float(c.y), float(c.radius), int(c.kind)]
                        for c in t.circles],
            "cushions": [[float(c.x1), float(c.y1), float(c.x2), float(c.y2)]
                         for c in t.cushions]}


def __getattr__(name: str) -> Any:
    # GolfTable lives in cuegym.play.golf_table, which imports this module's helpers: loaded
    # on first use, so importing either module first works
    if name == "GolfTable":
        from cuegym.play.golf_table import GolfTable

        return GolfTable
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_table(game: str, options: Mapping | None = None) -> KegleTable | GolfTable:
    """The table of ``game`` with its options (keglebillard: players, distance, table, a
    table config of :func:`tables_of`; golfbillard: duo, match, deciding_openers)."""
    if options is not None and not isinstance(options, Mapping):
        raise PlayError(f"options must be an object, got {options!r}")
    opts = dict(options or {})
    if game == "keglebillard":
        extra = sorted(set(opts) - {"players", "distance", "table"})
        if extra:
            raise PlayError(f"unknown keglebillard option(s) {extra} (players, distance, "
                            "table)")
        return KegleTable(opts.get("players", 2), opts.get("distance", 70),
                          opts.get("table", DEFAULT_TABLES["keglebillard"]))
    if game == "golfbillard":
        if "table" in opts:  # the option is keglebillard's: say so rather than "unknown"
            check_table("golfbillard", opts.pop("table"))
        extra = sorted(set(opts) - {"duo", "match", "deciding_openers"})
        if extra:
            raise PlayError(f"unknown golfbillard option(s) {extra} (duo, match, "
                            "deciding_openers)")
        from cuegym.play.golf_table import GolfTable

        return GolfTable(opts.get("duo", False), opts.get("match", "single"),
                         opts.get("deciding_openers"))
    raise PlayError(f"unknown game {game!r}; use one of {list(GAMES)}")


# ---------------------------------------------------------------------------------------------
# Agents (loaded once per process; acting is serialised per agent)
# ---------------------------------------------------------------------------------------------

_AGENTS: OrderedDict[tuple, Any] = OrderedDict()
#: Agents kept loaded: one per (spec, game, table options, the table config included) met, the
#: least recently used dropped first (a client choosing many distances must not load a model
#: for each without bound).
MAX_AGENTS = 32
_AGENTS_LOCK = threading.Lock()


def check_agent_spec(spec: Any) -> str:
    """An agent spec the app accepts: a name of :data:`AGENT_NAMES` or a path to a ``.zip``."""
    from pathlib import Path

    if not isinstance(spec, str) or not spec:
        raise PlayError(f"an agent must be a name {list(AGENT_NAMES)} or a model .zip path, got "
                        f"{spec!r}")
    if spec in AGENT_NAMES:
        return spec
    if spec.endswith(".zip"):
        try:
            found, folder = Path(spec).is_file(), Path(spec).is_dir()
        except (OSError, ValueError):  # a name too long, a NUL byte
            found = folder = False
        if folder:  # "does not exist" would send the user looking for a missing file
            raise PlayError(f"model file {spec!r} is a folder, not a model .zip file")
        if not found:
            raise PlayError(f"model file {spec!r} does not exist")
        return spec
    raise PlayError(f"unknown agent {spec!r}: use one of {list(AGENT_NAMES)} or a model .zip "
                    "path")


def get_agent(spec: str, game: str, table: KegleTable | GolfTable | None = None) -> Any:
    """The agent ``spec`` of ``game`` for ``table``'s setting (its arena: the table config,
    players, distance, match, duo; None: the default setting), cached: a model loads once per
    setting. An agent made for the default setting would search and observe under the default
    rules (70 points, two players) and aim at the default table's pockets and pins whatever
    the game's options (``play_games`` refuses such an agent: ``setting_mismatch``)."""
    from cuegym.agents import make_agent

    # the options as text: a key must be hashable, and deciding_openers is a list
    key = (spec, game) if table is None else (spec, game, json.dumps(table.options,
                                                                      sort_keys=True))
    # the server's worker threads share the cache: a lookup racing an eviction was a KeyError
    with _AGENTS_LOCK:
        if key in _AGENTS:
            _AGENTS.move_to_end(key)
            return _AGENTS[key]
    spec = check_agent_spec(spec)
    try:  # outside the lock: a model file loads for seconds
        agent = make_agent(spec, game, arena=None if table is None else table.arena)
    except Exception as e:  # a file that is not a model of this game: the request's fault
        if spec in AGENT_NAMES:
            raise
        why = str(e) if isinstance(e, ValueError) else f"{type(e).__name__}: {e}"
        raise PlayError(f"model file {spec!r} cannot be loaded as a {game} agent: "
                        f"{why}") from None
    with _AGENTS_LOCK:  # a thread that built the same agent meanwhile wins: one agent per key
        agent = _AGENTS.setdefault(key, agent)
        _AGENTS.move_to_end(key)
        while len(_AGENTS) > MAX_AGENTS:
            _AGENTS.popitem(last=False)
    return agent


def agents_move(table: KegleTable | GolfTable, agents: Sequence[Any], st: Any, noise: Any,
                rng: np.random.Generator) -> Played:
    """The move due in ``st`` played by agents, one per seat (golfbillard singles: per side;
    the opening: both sides at once). The agents' shipped choices apply (no questions)."""
    if isinstance(table, KegleTable):
        m = table.agent_move(agents[table.seat_to_move(st)], st, rng)
        place = np.full(2, np.nan) if m["place"] is None else np.array(m["place"], float)
        return table.play(st, parse_strike(m["strike"]), place, noise, rng)
    if table.duo:
        raise PlayError("agents_move plays golfbillard singles; duo seats go through the app")
    sides = (0, 1) if st.phase == "opening" else (int(st.to_move),)
    moves = [table.agent_move(agents[s], st, rng, s) for s in sides]
    balls = [table._ball(st, m["ball"], s) for s, m in zip(sides, moves, strict=True)]
    return table.play(st, balls, np.stack([parse_strike(m["strike"]) for m in moves]), noise,
                      rng)
