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
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from cuegym.configs import default_params
from cuegym.games.kegle import Kegle as KeglebillardGame
from cuegym.rules.inputs import (
    MAX_PLAYERS,
    RefereeInputError,
    check_layout,
    check_overflow_codes,
    req_bool,
    req_choice,
    req_count,
    req_int,
    req_list,
    req_obj,
    req_xy,
    show,
)
from cuegym.rules.kegle_hand_logs import (
    HAND_LOG_KEYS,
    HAND_LOG_KINDS,
    _build_hand_log,
    _hand_log_args,
    _shot_to_log,
)
from cuegym.rules.keglebillard import Injected, parse_injected
from cuegym.rules.keglebillard_config import (
    BALL_IDS,
    N_BALLS,
    N_PINS,
    PIN_IDS,
    RED,
    SPOT_NAMES,
    WHITES,
    KeglebillardRules,
    default_table,
    white_spots,
)
from cuegym.rules.keglebillard_log import log_from_json

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
        shot: shots played so far (0: the break is still to be played, so the red is in hand
            behind the salvo line, K-3); a K-19 placement that could not be played is not a
            shot. Not given (-1): 0 for a new game (the red in hand behind the salvo line,
            nobody has scored, finished or lost), otherwise 1 (the count only tells the break
            from the rest; a ``ddbu`` state after a foul at 0 : 0 needs it given).
        run_no_cushion: K-25 variant: scoring shots in a row without a cushion in this visit.
        rodt_streak: K-25 variant: rødt in a row without a pin in this visit.
        wait_spots: by white (white, spotted), the spot a white waiting off the table goes on
            once a shot frees it: 0 the bottom spot, 1 the top one, fixed when it was pocketed
            (K-18); -1 when it is on the table or its spot is not chosen yet (then K-18 chooses
            after the next shot).
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
    shot: int = -1
    run_no_cushion: int = 0
    rodt_streak: int = 0
    wait_spots: tuple[int, int] = (-1, -1)
    table: str = "keglebillard"

    def __post_init__(self) -> None:
        if self.shot == -1:  # not given: the break only for a new game (K-3)
            new_game = (self.ball_in_hand == "salvo" and not any(self.scores)
                        and not self.finished and not self.lost and not self.game_over)
            object.__setattr__(self, "shot", 0 if new_game else 1)
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
        for k, sc in enumerate(self.scores):
            if sc < 0:
                raise ValueError(f"state.scores[{k}] = {sc} must be >= 0")
        in_game = self.in_game
        if self.game_over and in_game:
            raise ValueError(f"state.game_over is true, but players {list(in_game)} are neither "
                             "finished nor lost")
        if not self.game_over and len(in_game) < 2:
            raise ValueError(f"state.game_over is false, but only {list(in_game)} are still in "
                             "the game (it ends when fewer than two are left, K-22)")
        for name, value, hi in (("shot", self.shot, None), ("run_no_cushion",
                                 self.run_no_cushion, 1), ("rodt_streak", self.rodt_streak, 2)):
            if value < 0 or (hi is not None and value > hi):
                where = "state.shot" if name == "shot" else f"state.ddbu.{name}"
                raise ValueError(f"{where} = {value} must be in [0, {hi}] (K-25)" if hi else
                                 f"{where} = {value} must be >= 0")
        if self.shot == 0 and not self.game_over and self.ball_in_hand != "salvo":
            raise ValueError("state.shot = 0 says the break is still to be played, which needs "
                             "the red in hand behind the salvo line (K-3: ball_in_hand "
                             f"\"salvo\"), got ball_in_hand = {self.ball_in_hand!r}")
        self._check_wait_spots()

    def _check_wait_spots(self) -> None:
        """K-18: a white waits for one of the two spots, only off the table, and not both for
        the same one."""
        try:
            ws = tuple(self.wait_spots)
        except TypeError:
            raise ValueError(f"state.wait_spots must be two of -1, 0, 1, got "
                             f"{self.wait_spots!r}") from None
        if len(ws) != 2 or any(isinstance(k, bool) or k not in (-1, 0, 1) for k in ws):
            raise ValueError(f"state.wait_spots must be two of -1, 0, 1, got {ws!r}")
        for w, k in zip(WHITES, ws, strict=True):
            if k >= 0 and self.balls[w] is not None:
                raise ValueError(f"state: {BALL_IDS[w]} waits for a spot (K-18) but lies on "
                                 f"the table at {list(self.balls[w])}")
        if ws[0] >= 0 and ws[0] == ws[1]:
            raise ValueError(f"state: both whites wait for the same spot {ws[0]} (K-18: one on "
                             "each spot)")

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
            "waiting_for": {BALL_IDS[w]: None if k < 0 else SPOT_NAMES[k]
                            for w, k in zip(WHITES, self.wait_spots, strict=True)},
        }
        if self.game_over:
            out["ranking"] = list(self.ranking)
        return out

    @classmethod
    def from_dict(cls, data: Mapping, table: str | None = None, path: str = "state"
                  ) -> GameState:
        """Parse the JSON form. Only ``players`` (or ``order``) is required: the rest defaults
        to a new game, so ``{"players": 3}`` is the break of a three-player game. Unknown keys
        are errors; ``ranking`` is derived (if given, it must be the derived one).

        Raises:
            RefereeInputError (a ValueError): one line naming the JSON path (``state.scores[2]``)
                of a missing or mistyped value, an illegal ball position (off the cloth, in a
                pocket, on a jaw or a standing pin, overlapping a ball) or an inconsistency
                (:meth:`__post_init__`). Checks that need the rules:
                :meth:`KeglebillardGame.check_state`.
        """
        data = req_obj(data, path, _STATE_KEYS)
        order = _json_order(data, path)
        name = data.get("table", table or "keglebillard")
        if not isinstance(name, str):
            raise RefereeInputError(f"{path}.table must be a table name, got {show(name)}")
        try:
            tspec = default_table(name)
        except ValueError as exc:  # ConfigError: no such table; or not a keglebillard table
            raise RefereeInputError(f"{path}.table: {exc}") from None
        balls, pins = _json_layout(data, white_spots(tspec), path)
        ddbu = req_obj(data.get("ddbu", {}), f"{path}.ddbu", ("run_no_cushion", "rodt_streak"))
        waits = req_obj(data.get("waiting_for", {}), f"{path}.waiting_for",
                        tuple(BALL_IDS[w] for w in WHITES))
        wait_spots = tuple(-1 if waits.get(BALL_IDS[w]) is None else SPOT_NAMES.index(
            req_choice(waits[BALL_IDS[w]], f"{path}.waiting_for.{BALL_IDS[w]}", SPOT_NAMES))
            for w in WHITES)
        scores = tuple(req_count(s, f"{path}.scores[{k}]") for k, s in enumerate(
            req_list(data.get("scores", [0] * len(order)), f"{path}.scores", len(order))))
        finished, lost = (tuple(req_int(p, f"{path}.{key}[{k}]") for k, p in enumerate(
            req_list(data.get(key, []), f"{path}.{key}", max_len=len(order))))
            for key in ("finished", "lost"))
        over = req_bool(data.get("game_over", False), f"{path}.game_over")
        default_next = None if over else next(
            (p for p in order if p not in finished and p not in lost), None)
        to_play = data.get("to_play", default_next)
        ball_in_hand = req_choice(data.get("ball_in_hand", "salvo" if balls[RED] is None
                                           else None), f"{path}.ball_in_hand",
                                  (None, "salvo", "cloth"))
        check_layout(tspec, default_params("keglebillard"),
                     {f"{path}.balls.{BALL_IDS[b]}": xy for b, xy in enumerate(balls)
                      if xy is not None}, pins)
        try:
            state = cls(
                order=order, scores=scores,
                to_play=None if to_play is None else req_int(to_play, f"{path}.to_play"),
                balls=balls, pins=pins, ball_in_hand=ball_in_hand, finished=finished, lost=lost,
                game_over=over,
                shot=req_count(data["shot"], f"{path}.shot") if "shot" in data else -1,
                run_no_cushion=req_count(ddbu.get("run_no_cushion", 0),
                                      f"{path}.ddbu.run_no_cushion"),
                rodt_streak=req_count(ddbu.get("rodt_streak", 0), f"{path}.ddbu.rodt_streak"),
                wait_spots=wait_spots, table=name,
            )
        except RefereeInputError:
            raise
        except ValueError as exc:  # __post_init__ names the field as "state.<key>"
            raise RefereeInputError(str(exc).replace("state", path, 1) if path != "state"
                                    else str(exc)) from None
        ranking = data.get("ranking")
        if ranking is not None and (not over or req_list(ranking, f"{path}.ranking")
                                    != list(state.ranking)):
            raise RefereeInputError(
                f"{path}.ranking = {show(ranking)} contradicts the state (derived: "
                f"{None if state.ranking is None else list(state.ranking)})")
        return state


def _json_order(data: Mapping, path: str) -> tuple[int, ...]:
    """The turn order of a JSON state: ``order`` as given, or ``players`` seats in order; both
    given, they must agree."""
    if "order" in data:
        order = tuple(req_int(p, f"{path}.order[{k}]") for k, p in enumerate(
            req_list(data["order"], f"{path}.order", max_len=MAX_PLAYERS)))
    elif "players" in data:
        order = tuple(range(req_int(data["players"], f"{path}.players", 0, MAX_PLAYERS)))
    else:
        raise RefereeInputError(f"{path} needs 'players' or 'order'")
    if "players" in data and req_int(data["players"], f"{path}.players") != len(order):
        raise RefereeInputError(f"{path}.players = {data['players']!r} but {path}.order has "
                                f"{len(order)} players")
    return order


def _json_layout(data: Mapping, spots: np.ndarray, path: str
                 ) -> tuple[tuple[tuple[float, float] | None, ...], tuple[bool, ...]]:
    """The balls ((x, y) [m] or None, by :data:`BALL_IDS`) and standing pins of a JSON state;
    by default the break's: the red in hand, the whites on their ``spots`` (2, 2), every pin
    up. Pins come as a mapping by name or a list of five."""
    balls_in = req_obj(data.get("balls", {"red": None, "white": spots[0].tolist(),
                                          "spotted": spots[1].tolist()}),
                       f"{path}.balls", BALL_IDS, BALL_IDS)
    balls = tuple(None if balls_in[b] is None else req_xy(balls_in[b], f"{path}.balls.{b}")
                  for b in BALL_IDS)
    pins_in = data.get("pins", dict.fromkeys(PIN_IDS, True))
    if isinstance(pins_in, Mapping):
        req_obj(pins_in, f"{path}.pins", PIN_IDS, PIN_IDS)
        pins = tuple(req_bool(pins_in[p], f"{path}.pins.{p}") for p in PIN_IDS)
    else:
        pins = tuple(req_bool(p, f"{path}.pins[{k}]")
                     for k, p in enumerate(req_list(pins_in, f"{path}.pins", N_PINS)))
    return balls, pins


_STATE_KEYS = ("table", "players", "order", "scores", "to_play", "finished", "lost",
               "game_over", "balls", "pins", "ball_in_hand", "shot", "ddbu", "waiting_for",
               "ranking")


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


def play_game(n_players: int | None = None, *, policy: Policy | None = None,
              seed: int | None = 0, rules: KeglebillardRules | Mapping | None = None,
              table: str | None = None, max_shots: int = 5000,
              state: GameState | None = None) -> dict[str, Any]:
    """Play one whole game with real physics, every player using ``policy`` (default random).

    Args:
        n_players: players of a new game (K-1; default 2). With ``state`` it defaults to the
            state's and must agree with it (a state is never played with another count).
        seed: seed of the generator of strikes and placements (an int >= 0, None, or a
            ``numpy.random.Generator``, used as is).
        table: the table's config name (default: the state's, else ``keglebillard``); must be
            the state's table.
        max_shots: shots after which the game is cut off (an int >= 1).
        state: a rules ``GameState`` to play on from (default: a new game); checked against
            the rules as the CLI's ``score`` checks it (``KeglebillardGame.check_state``).

    Returns:
        ``{"shots": [..outcome dicts..], "state": final state dict, "ranking": [...],
        "n_shots": int}``; ``ranking`` is None if ``max_shots`` ran out first.

    Raises:
        ValueError: a bad argument, named (``max_shots``, ``seed``, ``n_players``), or a state
            that contradicts ``n_players``, ``table`` or the rules.
    """
    from cuegym.games.strikes import Strikes

    # checked here: numpy and ``while len(shots) < max_shots`` would take 2.5, True or -1
    # silently (a cut-off at 3, 1 or 0 shots)
    max_shots = req_int(max_shots, "max_shots", 1)
    if seed is not None and not isinstance(seed, np.random.Generator):
        seed = req_int(seed, "seed", 0)
    if state is not None:
        if not isinstance(state, GameState):
            raise TypeError(f"state must be a keglebillard GameState or None, got "
                            f"{type(state).__name__}")
        if n_players is not None and req_int(n_players, "n_players") != state.n_players:
            raise ValueError(f"n_players = {n_players!r} but the state has "
                             f"{state.n_players} players")
        if table is not None and table != state.table:
            raise ValueError(f"table = {table!r} but the state is on {state.table!r}")
        table = state.table
    game = KeglebillardGame(rules, table or "keglebillard")
    rng = np.random.default_rng(seed)
    policy = policy or random_policy
    if state is None:
        state = game.new_state(2 if n_players is None else n_players, rng=rng)
    else:
        game.check_state(state)  # K-21/K-22 scores, the K-25 counters (what __init__ can't)
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


def score_json(obj: Mapping) -> dict[str, Any]:
    """The CLI's ``score``: ``{"state": .., "shot": <physics shot object>}``,
    ``{"state": .., "log": <physics output object>, "place": [x, y]}`` or
    ``{"state": .., "hand_log": <build_log arguments>, "place": [x, y]}`` (``place``: the red's
    placement, only with ball in hand), optional ``"inject": [..]`` (K-14a, K-16),
    ``"rules": {..}`` (options over the shipped rule set) and ``"allow_overflow": true`` (score a
    shot cut off by max_events / t_max where it ended; refused by default). Returns
    ``{"outcome": .., "state": <next state>}``.

    ``hand_log`` is a log written by hand, the JSON form of :func:`build_log`:
    ``{"events": [[time, kind, a, b], ..], "end": {ball: [x, y]}, "struck": [..],
    "overflow": 0}``; the start (balls, pins, balls off the table) is the state's, so ``start``,
    ``absent`` and ``pins_up0`` are optional and must agree with it (docs/rules_keglebillard.md,
    CLI).

    Raises:
        RefereeInputError (a ValueError): one line naming the JSON path of the bad value
            (``state.scores[1]``, ``log.final.white``, ``hand_log.events[2][3]``,
            ``inject[0].pins[0]``); ConfigError (a ValueError) for a bad rule option.
    """
    obj = req_obj(obj, "input", ("allow_overflow", "hand_log", "inject", "log", "place", "rules",
                                 "shot", "state"))
    forms = [k for k in ("shot", "log", "hand_log") if k in obj]
    if "state" not in obj or len(forms) != 1:
        raise RefereeInputError("input needs 'state' and exactly one of 'shot' or 'log' or "
                                f"'hand_log', got {forms or 'none'}")
    state = GameState.from_dict(obj["state"])
    game = KeglebillardGame(req_obj(obj.get("rules", {}), "rules",
                                    [f.name for f in fields(KeglebillardRules)]), state.table)
    game.check_state(state)
    if state.game_over:
        raise RefereeInputError("state.game_over is true: the game is over, there is no shot "
                                "to score")
    injected = parse_injected(obj.get("inject"))
    if "shot" in obj:
        if "place" in obj:  # it would be ignored: the shot places the red itself
            raise RefereeInputError("'place' goes with a 'log' or 'hand_log'; a 'shot' places "
                                    "the red in shot.balls.red: give one of them")
        log, red_xy = _shot_to_log(game, state, obj["shot"])
        if log is None:
            _no_shot_no_events(injected, red_xy)
            outcome, new = game.placement_foul(state, red_xy)
            return {"outcome": outcome.to_dict(), "state": new.to_dict()}
    else:
        start = {BALL_IDS[b]: xy for b, xy in enumerate(state.balls) if xy is not None}
        if state.ball_in_hand is not None:
            if "place" not in obj:
                raise RefereeInputError(f"player {state.to_play} has ball in hand: give the "
                                        "red's placement as 'place': [x, y]")
            start["red"] = req_xy(obj["place"], "place")
        elif "place" in obj:
            raise RefereeInputError("'place' given but the player does not have ball in hand")
        args = _hand_log_args(obj["hand_log"], game, state, start) if "hand_log" in obj else None
        if state.ball_in_hand is not None and game.placement_error(state, start["red"]):
            _no_shot_no_events(injected, start["red"])
            outcome, new = game.placement_foul(state, start["red"])
            return {"outcome": outcome.to_dict(), "state": new.to_dict()}
        log = (_build_hand_log(args, game) if args is not None else
               log_from_json(obj["log"], game.table, start=start, pins_up0=state.pins))
    allow = req_bool(obj.get("allow_overflow", False), "allow_overflow")
    check_overflow_codes(getattr(log, "overflow", 0), allow, None, "every ball and pin",
                         forms[0])  # named by the input's key, not as "table 0"
    outcome, new = game.apply(state, log, injected=injected, allow_overflow=allow)
    return {"outcome": outcome.to_dict(), "state": new.to_dict()}


def _no_shot_no_events(injected: tuple, red_xy: Any) -> None:
    """An unplayable K-19 placement is no shot: events injected into it are refused, not
    dropped (an unsportsmanlike one would otherwise not lose the match, K-16 option)."""
    if injected:
        raise RefereeInputError(f"'inject' given, but the red's placement {list(red_xy)} cannot "
                                "be played (K-19: no shot), so there is no shot for the events "
                                "to happen in; leave 'inject' out")


def new_state_json(n_players: int, *, rules: Mapping | None = None, table: str = "keglebillard",
                   first_player: int | None = None, seed: int | None = None) -> dict[str, Any]:
    """The CLI's ``new``: the state of a new game as JSON."""
    game = KeglebillardGame(rules, table)
    return game.new_state(n_players, first_player=first_player, rng=seed).to_dict()


__all__ = ["HAND_LOG_KEYS", "HAND_LOG_KINDS", "GameState", "Injected", "KeglebillardGame",
           "ShotOutcome", "new_state_json", "play_game", "random_policy", "score_json"]
