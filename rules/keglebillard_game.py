"""Keglebillard game values and the JSON referee.

:class:`GameState` is the position of one game between two shots and :class:`ShotOutcome` what
one shot did: immutable values with a JSON form (``docs/rules_keglebillard.md``). The game
itself -- placement check, physics, referee and the compiled game flow, for T tables at once --
is the game layer, :class:`cuegym.games.kegle.Kegle` (``KeglebillardGame`` here is that class);
this module keeps the per-table values agents read and the JSON functions of the command-line
referee (``python -m cuegym.rules keglebillard ...``) on top of it.

Rule book: ``docs/rules_keglebillard.md``; rule ids K-.. cited in comments. Game-state JSON:
``docs/rules_keglebillard.md``.

Example:
    >>> from cuegym.rules.keglebillard import build_log
    >>> from cuegym.games.kegle import Kegle
    >>> game = Kegle()
    >>> state = game.new_state(2)
    >>> log = build_log([(0.2, "ball_ball", "red", "white"), (0.5, "cushion", "white", 1),
    ...                  (0.9, "pin", "white", "king")])
    >>> outcome, state = game.apply(state, log)
    >>> outcome.shooter_points, state.scores, state.to_play
    (6, (6, 0), 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cuegym.games.kegle import Kegle as KeglebillardGame
from cuegym.rules.keglebillard import (
    BALL_IDS,
    N_BALLS,
    N_PINS,
    PIN_IDS,
    RED,
    WHITES,
    Injected,
    KeglebillardRules,
    default_table,
    log_from_json,
    parse_injected,
    white_spots,
)
from cuegym.rules.keglebillard import (
    _finite_xy as _xy,  # (x, y) floats, finite, or a ValueError naming the value
)

#: Tolerance [m] when checking that a log starts from the state's positions.
MATCH_TOL = 1e-6

XY = tuple[float, float]


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameState:
    """The position between two shots (immutable).

    Attributes:
        order: the fixed turn order, player ids 0..N-1 (K-1); N >= 2.
        scores: points per player id.
        to_play: the player to shoot next (None when the game is over).
        finished: players who finished, best first (K-21); when the game is over, the whole
            ranking except those in ``lost``.
        lost: players out by an unsportsmanlike event (K-16 option), in the order they left; they
            rank last, the first of them lowest.
        game_over: True once the game has ended (K-20, K-22, or one player left).
        balls: (x, y) of red, white, spotted [m]; None = off the table: the red in hand (K-19), a
            white waiting to be spotted (K-18).
        pins: standing pins, king first (K-P7).
        ball_in_hand: None, ``"salvo"`` (place the red on or behind the salvo line: the break,
            K-3, or after K-14) or ``"cloth"`` (anywhere, K-19). The salvo line applies (K-15)
            exactly when this is ``"salvo"``.
        shot: shots played so far (0: the break is still to be played); a K-19 placement
            that could not be played is not a shot.
        run_no_cushion: K-25 variant: scoring shots in a row without a cushion in this visit.
        rodt_streak: K-25 variant: rødt in a row without a pin in this visit.
        table: the table's config name.
    """

    order: tuple[int, ...]
    scores: tuple[int, ...]
    to_play: int | None
    balls: tuple[XY | None, ...]
    pins: tuple[bool, ...] = (True,) * N_PINS
    ball_in_hand: str | None = "salvo"
    finished: tuple[int, ...] = ()
    lost: tuple[int, ...] = ()
    game_over: bool = False
    shot: int = 0
    run_no_cushion: int = 0
    rodt_streak: int = 0
    table: str = "keglebillard"

    def __post_init__(self) -> None:
        n = len(self.order)
        if n < 2 or sorted(self.order) != list(range(n)):
            raise ValueError(f"state.order must be a permutation of 0..N-1 with N >= 2, got "
                             f"{list(self.order)}")
        if len(self.scores) != n:
            raise ValueError(f"state.scores must have {n} entries, got {list(self.scores)}")
        for p in (*self.finished, *self.lost):
            if p not in self.order:
                raise ValueError(f"state.finished/lost names unknown player {p!r}")
        if len(set(self.finished) | set(self.lost)) != len(self.finished) + len(self.lost):
            raise ValueError(f"a player appears twice in state.finished {list(self.finished)} / "
                             f"lost {list(self.lost)}")
        if self.game_over:
            if self.to_play is not None:
                raise ValueError("state.to_play must be null when the game is over")
        elif self.to_play not in self.in_game:
            raise ValueError(f"state.to_play = {self.to_play!r} is not a player still in the game "
                             f"{list(self.in_game)}")
        if len(self.balls) != N_BALLS or len(self.pins) != N_PINS:
            raise ValueError(f"state needs {N_BALLS} balls and {N_PINS} pins")
        if self.ball_in_hand not in (None, "salvo", "cloth"):
            raise ValueError(f"state.ball_in_hand must be null, 'salvo' or 'cloth', got "
                             f"{self.ball_in_hand!r}")
        if not self.game_over and (self.balls[RED] is None) != (self.ball_in_hand is not None):
            raise ValueError("state: the red is off the table exactly when a player has it in "
                             f"hand; got red = {self.balls[RED]!r}, ball_in_hand = "
                             f"{self.ball_in_hand!r}")

    @property
    def n_players(self) -> int:
        return len(self.order)

    @property
    def in_game(self) -> tuple[int, ...]:
        """Players still in, in turn order."""
        out = set(self.finished) | set(self.lost)
        return tuple(p for p in self.order if p not in out)

    @property
    def ranking(self) -> tuple[int, ...] | None:
        """Final ranking, winner first (None while the game runs)."""
        return (*self.finished, *reversed(self.lost)) if self.game_over else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (docs/rules_keglebillard.md)."""
        out = {
            "table": self.table,
            "players": self.n_players,
            "order": list(self.order),
            "scores": list(self.scores),
            "to_play": self.to_play,
            "finished": list(self.finished),
            "lost": list(self.lost),
            "game_over": self.game_over,
            "balls": {BALL_IDS[b]: None if xy is None else [xy[0], xy[1]]
                      for b, xy in enumerate(self.balls)},
            "pins": {PIN_IDS[p]: up for p, up in enumerate(self.pins)},
            "ball_in_hand": self.ball_in_hand,
            "shot": self.shot,
            "ddbu": {"run_no_cushion": self.run_no_cushion, "rodt_streak": self.rodt_streak},
        }
        if self.game_over:
            out["ranking"] = list(self.ranking)
        return out

    @classmethod
    def from_dict(cls, data: Mapping, table: str | None = None) -> GameState:
        """Parse the JSON form. Only ``players`` (or ``order``) is required: the rest defaults
        to a new game, so ``{"players": 3}`` is the break of a three-player game. Unknown keys
        are errors; ``ranking`` is derived and ignored."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a game state must be a mapping, got {data!r}")
        known = {"table", "players", "order", "scores", "to_play", "finished", "lost",
                 "game_over", "balls", "pins", "ball_in_hand", "shot", "ddbu", "ranking"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown game-state key(s) {unknown}; known: {sorted(known)}")
        if "order" in data:
            order = tuple(_int(p, "state.order") for p in data["order"])
        elif "players" in data:
            order = tuple(range(_int(data["players"], "state.players")))
        else:
            raise ValueError("a game state needs 'players' or 'order'")
        if "players" in data and _int(data["players"], "state.players") != len(order):
            raise ValueError(f"state.players = {data['players']!r} but state.order has "
                             f"{len(order)} players")
        name = str(data.get("table", table or "keglebillard"))
        spots = white_spots(default_table(name))
        balls_in = data.get("balls", {"red": None, "white": spots[0].tolist(),
                                      "spotted": spots[1].tolist()})
        if not isinstance(balls_in, Mapping) or set(balls_in) != set(BALL_IDS):
            raise ValueError(f"state.balls must map each of {list(BALL_IDS)} to [x, y] or null, "
                             f"got {balls_in!r}")
        balls = tuple(None if balls_in[b] is None else _xy(balls_in[b], f"state.balls.{b}")
                      for b in BALL_IDS)
        pins_in = data.get("pins", dict.fromkeys(PIN_IDS, True))
        if isinstance(pins_in, Mapping):
            if set(pins_in) != set(PIN_IDS):
                raise ValueError(f"state.pins must name each of {list(PIN_IDS)}, got "
                                 f"{sorted(pins_in)}")
            pins = tuple(pins_in[p] for p in PIN_IDS)
        else:
            pins = tuple(pins_in)
        if len(pins) != N_PINS or not all(isinstance(p, bool) for p in pins):
            raise ValueError(f"state.pins must be {N_PINS} booleans, got {pins_in!r}")
        ddbu = data.get("ddbu", {})
        if not isinstance(ddbu, Mapping) or set(ddbu) - {"run_no_cushion", "rodt_streak"}:
            raise ValueError(f"state.ddbu must have only run_no_cushion, rodt_streak: {ddbu!r}")
        scores = tuple(_int(s, "state.scores") for s in data.get("scores", [0] * len(order)))
        finished = tuple(_int(p, "state.finished") for p in data.get("finished", ()))
        lost = tuple(_int(p, "state.lost") for p in data.get("lost", ()))
        over = data.get("game_over", False)
        if not isinstance(over, bool):
            raise ValueError(f"state.game_over must be true or false, got {over!r}")
        default_next = None if over else next(
            (p for p in order if p not in finished and p not in lost), None)
        to_play = data.get("to_play", default_next)
        return cls(
            order=order, scores=scores,
            to_play=None if to_play is None else _int(to_play, "state.to_play"),
            balls=balls, pins=pins,
            ball_in_hand=data.get("ball_in_hand", "salvo" if balls[RED] is None else None),
            finished=finished, lost=lost, game_over=over,
            shot=_int(data.get("shot", 0), "state.shot"),
            run_no_cushion=_int(ddbu.get("run_no_cushion", 0), "state.ddbu.run_no_cushion"),
            rodt_streak=_int(ddbu.get("rodt_streak", 0), "state.ddbu.rodt_streak"),
            table=name,
        )


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    return int(value)


# ---------------------------------------------------------------------------------------------
# Outcome
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShotOutcome:
    """What one shot did to the game (JSON: :meth:`to_dict`).

    Attributes:
        shooter: the player who shot. played: False when a K-19 placement could not be played.
        points: the shot's points (K-9a). penalty: its penalty. foul: any foul.
        fouls: foul labels, rule id first (``K-12``, ``K-16:touche``, ``K-19:placement``).
        shooter_points: credited to the shooter. skaeve: credited to each of ``skaeve_to``.
        rodt, blegt, king_alone, clean16: K-8, K-6, K-7.
        pins_toppled: pin id -> ball ids it is attributed to (K-P3), or ``["injected"]``.
        whites_pocketed: white ids pocketed or off the table. red_pocketed: K-14.
        win: K-20, all three balls down.
        pins_restood / pins_waiting: K-P7 after the shot. whites_spotted: white id -> spot;
        whites_waiting: whites whose spot is covered (K-18).
        ball_in_hand: None, ``"salvo"`` or ``"cloth"`` for the next player (K-19).
        next_player: who shoots next (None when over). finished: players who finished in this
        shot (K-21/K-22). lost: player who lost the match by K-16 unsporting_loss (or None).
        game_over, ranking: the final ranking once over. scores: the scores after the shot.
        overflow: the physics end code (non-zero: the simulation was cut off).
    """

    shooter: int
    played: bool
    points: int
    penalty: int
    foul: bool
    fouls: tuple[str, ...]
    shooter_points: int
    skaeve: int
    skaeve_to: tuple[int, ...]
    rodt: bool = False
    blegt: bool = False
    king_alone: bool = False
    clean16: bool = False
    pins_toppled: dict[str, tuple[str, ...]] = field(default_factory=dict)
    whites_pocketed: tuple[str, ...] = ()
    red_pocketed: bool = False
    win: bool = False
    pins_restood: tuple[str, ...] = ()
    pins_waiting: tuple[str, ...] = ()
    whites_spotted: dict[str, XY] = field(default_factory=dict)
    whites_waiting: tuple[str, ...] = ()
    ball_in_hand: str | None = None
    next_player: int | None = None
    finished: tuple[int, ...] = ()
    lost: int | None = None
    game_over: bool = False
    ranking: tuple[int, ...] | None = None
    scores: tuple[int, ...] = ()
    overflow: int = 0

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The foul rule ids without detail (``K-16:touche`` -> ``K-16``)."""
        return tuple(dict.fromkeys(f.split(":")[0] for f in self.fouls))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in self.__dataclass_fields__:
            v = getattr(self, f)
            if isinstance(v, tuple):
                v = list(v)
            elif isinstance(v, dict):
                v = {k: list(x) for k, x in v.items()}
            out[f] = v
        return out


# ---------------------------------------------------------------------------------------------
# Game
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Whole games and the JSON interface
# ---------------------------------------------------------------------------------------------

#: A policy: (game, state, rng) -> (red placement or None, cue row [V0, phi, theta, a, b]).
Policy = Callable[[KeglebillardGame, GameState, np.random.Generator],
                  tuple[Sequence[float] | None, Sequence[float]]]


def random_policy(game: KeglebillardGame, state: GameState, rng: np.random.Generator
                  ) -> tuple[XY | None, np.ndarray]:
    """Uniformly random strikes; half of them aimed roughly at a white. A red in hand is placed
    uniformly in its area (K-19; behind the salvo line when that applies)."""
    red = None
    if state.ball_in_hand is not None:
        hx, hy = game.table.length / 2 - game.R, game.table.width / 2 - game.R
        x_max = game.salvo_x if state.ball_in_hand == "salvo" else hx
        for _ in range(1000):
            cand = (float(rng.uniform(-hx, x_max)), float(rng.uniform(-hy, hy)))
            if game.placement_error(state, cand) is None:
                red = cand
                break
        else:  # pragma: no cover - the area is never that crowded
            red = (-hx, 0.0)
    pos = red if red is not None else state.balls[RED]
    whites = [state.balls[b] for b in WHITES if state.balls[b] is not None]
    if whites and rng.random() < 0.5:
        tx, ty = whites[int(rng.integers(len(whites)))]
        phi = math.degrees(math.atan2(ty - pos[1], tx - pos[0])) + rng.normal(0.0, 3.0)
    else:
        phi = rng.uniform(0.0, 360.0)
    cue = np.array([rng.uniform(1.0, 5.0), phi % 360.0, 0.0, rng.uniform(-0.3, 0.3),
                    rng.uniform(-0.3, 0.3)])
    return red, cue


def play_game(n_players: int = 2, *, policy: Policy | None = None, seed: int = 0,
              rules: KeglebillardRules | Mapping | None = None, table: str = "keglebillard",
              max_shots: int = 5000, state: GameState | None = None) -> dict[str, Any]:
    """Play one whole game with real physics, every player using ``policy`` (default random).

    Returns:
        ``{"shots": [..outcome dicts..], "state": final state dict, "ranking": [...],
        "n_shots": int}``; ``ranking`` is None if ``max_shots`` ran out first.
    """
    from cuegym.games.strikes import Strikes

    game = KeglebillardGame(rules, table)
    rng = np.random.default_rng(seed)
    policy = policy or random_policy
    state = state or game.new_state(n_players, rng=rng)
    states = game.batch([state])
    shots = []
    while not states.game_over[0] and len(shots) < max_shots:
        red_xy, cue = policy(game, states.state(0), rng)
        place = np.full((1, 2), np.nan) if red_xy is None else np.asarray(red_xy, float)[None]
        # random play: a shot cut off by max_events / t_max is scored where it ended (the
        # outcome's ``overflow`` records it)
        out, states = game.play(states, Strikes.of(cue, place=place), max_events=1000,
                                validate=True, allow_overflow=True)
        shots.append(out.outcome(0).to_dict())
    final = states.state(0).to_dict()
    return {"shots": shots, "state": final, "ranking": final.get("ranking"),
            "n_shots": len(shots)}


def _shot_to_log(game: KeglebillardGame, state: GameState, shot: Mapping
                 ) -> tuple[Any, XY | None]:
    """Simulate a physics-JSON shot object from ``state``; returns (log, red placement)."""
    from cuegym.physics import simulate_json

    if not isinstance(shot, Mapping):
        raise ValueError(f"'shot' must be a physics shot object, got {shot!r}")
    shot = dict(shot)
    balls_in = dict(shot.get("balls") or {})
    unknown = sorted(set(balls_in) - set(BALL_IDS))
    if unknown:
        raise ValueError(f"shot.balls names unknown ball(s) {unknown}")
    red_xy = None
    if state.ball_in_hand is not None:
        if "red" not in balls_in:
            raise ValueError(f"player {state.to_play} has ball in hand: the shot must place the "
                             "red (shot.balls.red)")
        red_xy = _xy((balls_in["red"].get("x"), balls_in["red"].get("y")), "shot.balls.red")
    balls = {}
    for b, name in enumerate(BALL_IDS):
        pos = red_xy if b == RED and red_xy is not None else state.balls[b]
        if pos is None:
            if name in balls_in:
                raise ValueError(f"shot.balls.{name}: the {name} ball is off the table in the "
                                 "state (waiting to be spotted)")
            continue
        rec = dict(balls_in.get(name, {}))
        if "x" in rec and math.dist((rec["x"], rec["y"]), pos) > MATCH_TOL:
            raise ValueError(f"shot.balls.{name} at ({rec['x']}, {rec['y']}) differs from the "
                             f"state's {list(pos)}")
        rec["x"], rec["y"] = pos
        balls[name] = rec
    shot["balls"] = balls
    if shot.setdefault("table", state.table) != state.table:
        raise ValueError(f"shot.table {shot['table']!r} differs from the state's "
                         f"{state.table!r}")
    standing = [PIN_IDS[p] for p, up in enumerate(state.pins) if up]
    if "pins" in shot and shot["pins"] not in (standing, all(state.pins)):
        raise ValueError(f"shot.pins {shot['pins']!r} differs from the state's standing pins "
                         f"{standing}")
    shot["pins"] = standing
    if red_xy is not None and game.placement_error(state, red_xy):
        return None, red_xy
    out = simulate_json(shot)
    start = {name: (rec["x"], rec["y"]) for name, rec in balls.items()}
    return log_from_json(out, game.table, start=start, pins_up0=state.pins), red_xy


def score_json(obj: Mapping) -> dict[str, Any]:
    """The CLI's ``score``: ``{"state": .., "shot": <physics shot object>}`` or
    ``{"state": .., "log": <physics output object>, "place": [x, y]}`` (``place``: the red's
    placement, only with ball in hand), optional ``"inject": [..]`` (K-14a, K-16),
    ``"rules": {..}`` (options over the shipped rule set) and ``"allow_overflow": true`` (score a
    shot cut off by max_events / t_max where it ended; refused by default). Returns
    ``{"outcome": .., "state": <next state>}``."""
    if not isinstance(obj, Mapping):
        raise ValueError(f"input must be a JSON object, got {obj!r}")
    known = ("allow_overflow", "inject", "log", "place", "rules", "shot", "state")
    unknown = sorted(set(obj) - set(known))
    if unknown:
        raise ValueError(f"unknown input key(s) {unknown}; known: {', '.join(known)}")
    if "state" not in obj or ("shot" in obj) == ("log" in obj):
        raise ValueError("input needs 'state' and exactly one of 'shot' or 'log'")
    state = GameState.from_dict(obj["state"])
    game = KeglebillardGame(obj.get("rules"), state.table)
    injected = parse_injected(obj.get("inject"))
    if "shot" in obj:
        log, red_xy = _shot_to_log(game, state, obj["shot"])
        if log is None:
            outcome, new = game.placement_foul(state, red_xy)
            return {"outcome": outcome.to_dict(), "state": new.to_dict()}
    else:
        start = {BALL_IDS[b]: xy for b, xy in enumerate(state.balls) if xy is not None}
        if state.ball_in_hand is not None:
            if "place" not in obj:
                raise ValueError(f"player {state.to_play} has ball in hand: give the red's "
                                 "placement as 'place': [x, y]")
            start["red"] = _xy(obj["place"], "place")
            if game.placement_error(state, start["red"]):
                outcome, new = game.placement_foul(state, start["red"])
                return {"outcome": outcome.to_dict(), "state": new.to_dict()}
        elif "place" in obj:
            raise ValueError("'place' given but the player does not have ball in hand")
        log = log_from_json(obj["log"], game.table, start=start, pins_up0=state.pins)
    outcome, new = game.apply(state, log, injected=injected,
                              allow_overflow=obj.get("allow_overflow", False))
    return {"outcome": outcome.to_dict(), "state": new.to_dict()}


def new_state_json(n_players: int, *, rules: Mapping | None = None, table: str = "keglebillard",
                   first_player: int | None = None, seed: int | None = None) -> dict[str, Any]:
    """The CLI's ``new``: the state of a new game as JSON."""
    game = KeglebillardGame(rules, table)
    return game.new_state(n_players, first_player=first_player, rng=seed).to_dict()


__all__ = ["GameState", "Injected", "KeglebillardGame", "ShotOutcome",
           "new_state_json", "play_game", "random_policy", "score_json"]
