"""TEST ORACLE ONLY: the per-table Python keglebillard game flow as it was before the compiled
game layer (``cuegym.games.kegle``), at issue 11 (double hit = touché, overflow refused unless
opted in). tests/test_games_kegle_diff.py plays random shots through both and requires identical
outcomes and next states. Not part of the product.

Keglebillard game state and flow: players, scores, spotting, ball in hand, the end rules.

OpenSpiel's split: :class:`KeglebillardGame` holds the static facts (rule set, table, ball and pin
sizes); :class:`GameState` is the position between two shots, an immutable value. A shot is
played by simulating it (``cuegym.physics.simulate``; :meth:`KeglebillardGame.shot_setup` gives
its inputs) and handing the log to :meth:`KeglebillardGame.apply`, which returns the
:class:`ShotOutcome` and the next state. Nothing here mutates its input.

Rule book: ``docs/rules_keglebillard.md``; rule ids K-.. cited in comments. Game-state JSON:
``docs/rules_keglebillard.md``.

Example:
    >>> from cuegym.rules.keglebillard import build_log
    >>> from cuegym.rules.keglebillard_game import KeglebillardGame
    >>> game = KeglebillardGame()
    >>> state = game.new_state(2)
    >>> log = build_log([(0.2, "ball_ball", "red", "white"), (0.5, "cushion", "white", 1),
    ...                  (0.9, "pin", "white", "king")])
    >>> outcome, state = game.apply(state, log)
    >>> outcome.shooter_points, state.scores, state.to_play
    (6, (6, 0), 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from cuegym.configs import load_params
from cuegym.rules.inputs import (
    req_xy as _xy,  # (x, y) floats, finite, or a ValueError naming the value
)
from cuegym.rules.keglebillard import (
    BALL_IDS,
    GEOM_TOL,
    N_BALLS,
    N_PINS,
    PIN_IDS,
    RED,
    SPOTTED,
    WHITE,
    WHITES,
    Injected,
    KeglebillardRules,
    ShotRow,
    default_table,
    load_rules,
    log_from_json,
    parse_injected,
    read_log,
    salvo_x,
    score_shots,
    white_spots,
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
    wait_spots: tuple[int, int] = (-1, -1)  # K-18: the spot a waiting white goes on (0 / 1)
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
            "waiting_for": {BALL_IDS[w]: None if k < 0 else ("bottom", "top")[k]
                            for w, k in zip(WHITES, self.wait_spots, strict=True)},
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
                 "game_over", "balls", "pins", "ball_in_hand", "shot", "ddbu", "waiting_for",
                 "ranking"}
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
            # absent: 0 only for a new game (the red in hand behind the line, nobody scored)
            shot=_int(data["shot"], "state.shot") if "shot" in data else int(not (
                data.get("ball_in_hand", "salvo" if balls[RED] is None else None) == "salvo"
                and not any(scores) and not finished and not lost and not over)),
            run_no_cushion=_int(ddbu.get("run_no_cushion", 0), "state.ddbu.run_no_cushion"),
            rodt_streak=_int(ddbu.get("rodt_streak", 0), "state.ddbu.rodt_streak"),
            wait_spots=tuple(-1 if data.get("waiting_for", {}).get(BALL_IDS[w]) is None else
                             ("bottom", "top").index(data["waiting_for"][BALL_IDS[w]])
                             for w in WHITES),
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


@dataclass(frozen=True)
class ShotSetup:
    """Inputs for ``cuegym.physics.simulate`` for one table, from a state.

    Attributes:
        xy: (3, 2) ball positions (absent balls at their white spot, never read).
        present: (3,) bool, balls on the table. pins_up: (5,) bool.
        salvo_line: the salvo line applies (K-15).
    """

    xy: np.ndarray
    present: np.ndarray
    pins_up: np.ndarray
    salvo_line: bool


class KeglebillardGame:
    """The static side of keglebillard: rule set, table geometry, ball and pin sizes.

    Args:
        rules: a :class:`KeglebillardRules`, a mapping of options, or None (the shipped file).
        table: table config name (``keglebillard`` or ``keglebillard-helmatch``).
    """

    def __init__(self, rules: KeglebillardRules | Mapping | None = None,
                 table: str = "keglebillard") -> None:
        self.rules = rules if isinstance(rules, KeglebillardRules) else load_rules(rules)
        self.table_name = table
        self.table = default_table(table)
        params = load_params("keglebillard")
        self.R = params.R
        self.r_pin = self.table.pin_radius
        self.pin_spots = np.asarray(self.table.pin_spots, np.float64).reshape(N_PINS, 2)
        self.spots = white_spots(self.table)
        self.salvo_x = salvo_x(self.table)
        # K-P7: a pin spot is free when no ball centre lies within R + r_pin + clearance
        self.respot_r = self.R + self.r_pin + float(self.table.spots["respot_clearance"])

    # -- set-up ---------------------------------------------------------------------------

    def new_state(self, n_players: int, *, first_player: int | None = None,
                  rng: np.random.Generator | int | None = None) -> GameState:
        """The break of a new game (K-3): whites on their spots, pins up, red in hand behind the
        salvo line. Who breaks (K-4): ``first_player`` if given; else by ``rules.first_player``
        (``random`` draws from ``rng``; ``lag`` needs ``first_player`` from :func:`judge_lag`).
        """
        n = _int(n_players, "n_players")
        if n < 2:
            raise ValueError(f"keglebillard needs at least 2 players (K-1), got {n}")
        if first_player is None:
            if self.rules.first_player == "player0":
                first_player = 0
            elif self.rules.first_player == "random":
                first_player = int(np.random.default_rng(rng).integers(n))
            else:
                raise ValueError("rules.first_player = 'lag': pass first_player, the winner of "
                                 "the lag (cuegym.rules.keglebillard.judge_lag, K-24)")
        first_player = _int(first_player, "first_player")
        if not 0 <= first_player < n:
            raise ValueError(f"first_player must be in 0..{n - 1}, got {first_player}")
        return GameState(order=tuple(range(n)), scores=(0,) * n, to_play=first_player,
                         balls=(None, tuple(self.spots[0]), tuple(self.spots[1])),
                         ball_in_hand="salvo", table=self.table_name)

    def next_game(self, state: GameState) -> GameState:
        """K-23: the loser breaks, then the others in reverse finishing order (winner last)."""
        if not state.game_over:
            raise ValueError("next_game needs a finished game")
        order = tuple(reversed(state.ranking))
        fresh = self.new_state(state.n_players, first_player=order[0])
        return replace(fresh, order=order)

    # -- ball in hand ---------------------------------------------------------------------

    def placement_error(self, state: GameState, xy: Sequence[float]) -> str | None:
        """Why the red cannot be placed at ``xy`` (K-19), or None if it can.

        The red may touch a ball but not overlap one, must lie on the cloth (not in a pocket's
        mouth or on a jaw), and its centre must be at least R + r_pin from every pin spot.
        Placing it in front of the salvo line is not an error here: that shot is played with
        penalty 6 (K-15).
        """
        x, y = _xy(xy, "red placement")
        if not self.table.on_cloth(x, y, self.R):
            return f"the red at ({x:.4f}, {y:.4f}) is not on the cloth"
        for pk in self.table.pockets:
            if math.hypot(x - pk.x, y - pk.y) < pk.radius:
                return f"the red at ({x:.4f}, {y:.4f}) is in the {pk.name} pocket"
        for c in self.table.circles:  # pocket jaws count as cushion
            if math.hypot(x - c.x, y - c.y) < c.radius + self.R - GEOM_TOL:
                return f"the red at ({x:.4f}, {y:.4f}) overlaps a pocket jaw"
        for b in WHITES:
            pos = state.balls[b]
            if pos is not None and math.hypot(x - pos[0], y - pos[1]) < 2 * self.R - GEOM_TOL:
                return f"the red at ({x:.4f}, {y:.4f}) overlaps the {BALL_IDS[b]} ball"
        for p, (px, py) in enumerate(self.pin_spots):
            if math.hypot(x - px, y - py) < self.R + self.r_pin - GEOM_TOL:
                return (f"the red at ({x:.4f}, {y:.4f}) is within R + r_pin of the "
                        f"{PIN_IDS[p]} spot")
        return None

    def shot_setup(self, state: GameState, red_xy: Sequence[float] | None = None) -> ShotSetup:
        """Physics inputs for the next shot; ``red_xy`` is the placement when the player has
        ball in hand (required then, refused otherwise). Raises ValueError on a placement that
        :meth:`placement_error` rejects (handle those with :meth:`placement_foul`)."""
        if state.game_over:
            raise ValueError("the game is over")
        if state.ball_in_hand is not None:
            if red_xy is None:
                raise ValueError(f"player {state.to_play} has ball in hand: give red_xy")
            why = self.placement_error(state, red_xy)
            if why:
                raise ValueError(f"K-19: {why}")
            red = _xy(red_xy, "red_xy")
        else:
            if red_xy is not None:
                raise ValueError("red_xy given but the player does not have ball in hand")
            red = state.balls[RED]
        xy = np.empty((N_BALLS, 2))
        present = np.ones(N_BALLS, bool)
        xy[RED] = red
        for b in WHITES:
            pos = state.balls[b]
            present[b] = pos is not None
            xy[b] = self.spots[b - 1] if pos is None else pos
        return ShotSetup(xy=xy, present=present, pins_up=np.array(state.pins, bool),
                         salvo_line=state.ball_in_hand == "salvo")

    # -- playing shots --------------------------------------------------------------------

    def apply(self, state: GameState, log: Any, *, injected: Iterable | None = None,
              index: int = 0, allow_overflow: bool = False) -> tuple[ShotOutcome, GameState]:
        """Score the shot of table ``index`` of ``log`` (played from ``state``) and advance.

        Args:
            state: the state the shot was played from.
            log: the physics result (SimResult or anything :func:`read_log` takes).
            injected: this shot's injected events (K-14a, K-16).
            index: which table of the log.
            allow_overflow: score a shot the simulation cut off (``overflow`` != 0) where it
                ended; refused by default (see :func:`score_shots`).

        Returns:
            (outcome, next state).

        Raises:
            ValueError: the log does not start from ``state`` (balls, pins), bad input, or an
                overflowed shot without ``allow_overflow``.
        """
        lg = read_log(log).take([index])
        scores = score_shots(lg, self.rules, table=self.table,
                             salvo_line=[state.ball_in_hand == "salvo"],
                             injected=[parse_injected(injected)], allow_overflow=allow_overflow)
        return self.resolve(state, scores.rows()[0])

    def apply_batch(self, states: Sequence[GameState], log: Any,
                    injected: Sequence[Iterable | None] | None = None, *,
                    allow_overflow: bool = False) -> list[tuple[ShotOutcome, GameState]]:
        """:meth:`apply` for T tables at once: one vectorised :func:`score_shots` call, then the
        game flow per table (``allow_overflow`` as in :meth:`apply`)."""
        lg = read_log(log)
        if len(states) != len(lg):
            raise ValueError(f"{len(states)} states for a log of {len(lg)} tables")
        scores = score_shots(lg, self.rules, table=self.table,
                             salvo_line=[s.ball_in_hand == "salvo" for s in states],
                             injected=injected, allow_overflow=allow_overflow)
        return [self.resolve(s, row) for s, row in zip(states, scores.rows(), strict=True)]

    def placement_foul(self, state: GameState, red_xy: Sequence[float] | None = None,
                       reason: str = "") -> tuple[ShotOutcome, GameState]:
        """K-19: the placement cannot be played. No shot happens (``shot`` does not count it):
        a foul with penalty 6 and no points; the next player has ball in hand, anywhere on the
        cloth, or behind the salvo line while the break is still to be played (K-3) or with
        the ``salvo`` option. (K-25: the turn just passes.)"""
        if state.game_over:
            raise ValueError("the game is over")
        if state.ball_in_hand is None:
            raise ValueError("placement_foul: the player does not have ball in hand")
        if red_xy is not None and not reason:
            reason = self.placement_error(state, red_xy) or ""
            if not reason:
                raise ValueError(f"placement_foul: the red can be placed at {list(red_xy)}")
        shooter = state.to_play
        scores = list(state.scores)
        ddbu = self.rules.ddbu
        to = () if ddbu else self._recipients(state, shooter)
        skaeve = 0 if ddbu else 6
        for p in to:
            scores[p] += skaeve
        # the break is still to be played (K-3): the next player breaks from behind the line
        behind = state.shot == 0 or self.rules.ball_in_hand_area == "salvo"
        area = "salvo" if behind else "cloth"
        flow = self._end_rules(state, scores, shooter, legal_pin=False, got_skaeve=set(to),
                               keep_turn=False, lost=state.lost)
        new = replace(state, scores=tuple(scores), ball_in_hand=None if flow["over"] else area,
                      run_no_cushion=0, rodt_streak=0, **flow["state"])
        outcome = ShotOutcome(
            shooter=shooter, played=False, points=0, penalty=0 if ddbu else 6, foul=True,
            fouls=("K-19:placement",), shooter_points=0, skaeve=skaeve, skaeve_to=to,
            ball_in_hand=new.ball_in_hand, next_player=new.to_play,
            finished=flow["finished_now"], game_over=new.game_over, ranking=new.ranking,
            scores=new.scores)
        return outcome, new

    # -- the flow of one shot -------------------------------------------------------------

    def _recipients(self, state: GameState, shooter: int) -> tuple[int, ...]:
        """K-17: skæve go to every other player still in (option: only the next one)."""
        in_game = state.in_game
        others = [p for p in _after(state.order, shooter) if p in in_game]
        if self.rules.skaeve_to == "next":
            others = others[:1]
        return tuple(others)

    def resolve(self, state: GameState, row: ShotRow) -> tuple[ShotOutcome, GameState]:
        """Advance ``state`` by one table's scores (a :class:`ShotRow` of
        :meth:`ShotScores.rows`); :meth:`apply` and :meth:`apply_batch` call this."""
        if state.game_over:
            raise ValueError("the game is over")
        if state.ball_in_hand is not None:
            why = self.placement_error(state, row.start_xy[RED])
            if why:  # K-19: this placement cannot be played; the log is not looked at
                return self.placement_foul(state, reason=why)
        self._check_start(state, row)
        rules = self.rules
        shooter = state.to_play
        scores = list(state.scores)
        fouls = list(row.fouls)
        foul, win, points, penalty = row.foul, row.win, row.points, row.penalty
        shooter_points = skaeve = 0
        to: tuple[int, ...] = ()
        run_nc, rodt_streak = state.run_no_cushion, state.rodt_streak
        keep_turn = False
        if rules.ddbu:
            # K-25: a visit lasts while the player scores without a foul; a foul loses the
            # shot's points and the turn; a cushion at least every other scoring shot; the
            # third rødt in a row without a pin is a foul.
            if not foul and points > 0:
                if row.cushion:
                    run_nc = 0
                elif run_nc >= 1:
                    fouls.append("K-25:no_cushion")
                    foul = True
                else:
                    run_nc += 1
                if row.rodt and not any(row.pins_toppled):
                    rodt_streak += 1
                    if rodt_streak >= 3:
                        fouls.append("K-25:third_rodt")
                        foul = True
                else:
                    rodt_streak = 0
            keep_turn = not foul and points > 0
            if not keep_turn:
                run_nc = rodt_streak = 0
            shooter_points = 0 if foul else points
            scores[shooter] += shooter_points
        elif win:
            fouls = []  # K-20 overrides every physics foul; no points or skæve change hands
        elif foul:
            to = self._recipients(state, shooter)  # K-9a, K-17
            skaeve = points + penalty
            for p in to:
                scores[p] += skaeve
        else:
            shooter_points = points
            scores[shooter] += points

        lost = state.lost
        lost_now = None
        if rules.unsporting_loss and row.unsporting:
            lost_now = shooter  # K-16 option: the shooter loses the match
            lost = (*lost, shooter)

        # the table after the shot
        balls: list[XY | None] = [
            (xy[0], xy[1]) if on and not down else None
            for xy, on, down in zip(row.end_xy, row.present0, row.pocketed, strict=True)
        ]
        for e in row.injected:
            if e.type == "deliberate_touch" and not win:  # K-16: touched balls are put back
                for b, x, y in e.balls:
                    balls[b] = (x, y)
        area = ("salvo" if row.bih_salvo else "cloth") if row.ball_in_hand else None
        if row.ball_in_hand:
            balls[RED] = None  # K-19: the next player takes the red in hand
        balls, spotted, waiting, wait_spots = self._spot_whites(balls, state.wait_spots)
        pins = [up and not a and not b
                for up, a, b in zip(state.pins, row.pins_toppled, row.pins_injected, strict=True)]
        pins, restood = self._restand_pins(balls, pins)

        if win:
            flow = self._win(state, scores, shooter, lost)
        else:
            flow = self._end_rules(state, scores, shooter, legal_pin=row.legal_pin,
                                   got_skaeve=set(to) if foul else set(), keep_turn=keep_turn,
                                   lost=lost)
        over = flow["over"]
        if flow["state"].get("to_play") != shooter:  # K-25: another player's visit begins
            run_nc = rodt_streak = 0
        new = replace(
            state, scores=tuple(scores), balls=tuple(balls), pins=tuple(pins),
            ball_in_hand=None if over else area, shot=state.shot + 1,
            run_no_cushion=run_nc, rodt_streak=rodt_streak, wait_spots=wait_spots,
            **flow["state"])
        toppled = {}
        for p in range(N_PINS):
            if row.pins_toppled[p]:
                bits = row.pin_toppler[p]
                toppled[PIN_IDS[p]] = tuple(BALL_IDS[b] for b in range(N_BALLS) if bits >> b & 1)
            elif row.pins_injected[p]:
                toppled[PIN_IDS[p]] = ("injected",)
        outcome = ShotOutcome(
            shooter=shooter, played=True, points=points, penalty=penalty if foul else 0,
            foul=foul, fouls=tuple(fouls), shooter_points=shooter_points, skaeve=skaeve,
            skaeve_to=to, rodt=row.rodt, blegt=row.blegt, king_alone=row.king_alone,
            clean16=row.clean16, pins_toppled=toppled,
            whites_pocketed=tuple(BALL_IDS[b] for b in WHITES if row.pocketed[b]),
            red_pocketed=row.pocketed[RED], win=win,
            pins_restood=tuple(PIN_IDS[p] for p in restood),
            pins_waiting=tuple(PIN_IDS[p] for p in range(N_PINS) if not pins[p]),
            whites_spotted={BALL_IDS[b]: xy for b, xy in spotted.items()},
            whites_waiting=tuple(BALL_IDS[b] for b in waiting),
            ball_in_hand=new.ball_in_hand, next_player=new.to_play,
            finished=flow["finished_now"], lost=lost_now, game_over=over, ranking=new.ranking,
            scores=new.scores, overflow=row.overflow)
        return outcome, new

    def _check_start(self, state: GameState, row: ShotRow) -> None:
        """The log must start from the state: same whites, pins, and red unless in hand."""
        for b in range(N_BALLS):
            pos = state.balls[b]
            if b == RED and state.ball_in_hand is not None:
                continue
            if row.present0[b] != (pos is not None):
                raise ValueError(f"the log has the {BALL_IDS[b]} ball "
                                 f"{'on' if row.present0[b] else 'off'} the table at the start, "
                                 f"the state {'on' if pos is not None else 'off'} it")
            if pos is not None and math.dist(pos, row.start_xy[b]) > MATCH_TOL:
                raise ValueError(f"the log starts the {BALL_IDS[b]} ball at {row.start_xy[b]}, "
                                 f"the state has it at {list(pos)}")
        if tuple(row.pins_up0) != tuple(state.pins):
            raise ValueError(f"the log's standing pins {row.pins_up0} differ from the state's "
                             f"{list(state.pins)}")

    def _spot_whites(self, balls: list[XY | None], wait_spots: tuple[int, int]
                     ) -> tuple[list[XY | None], dict[int, XY], tuple[int, ...], tuple[int, int]]:
        """K-18: a white off the table goes on the spot farther from the other white; both
        off: one on each spot. A covered spot (a ball overlapping it) makes the white wait for
        that spot (``wait_spots``) until a shot frees it."""
        off = [w for w in WHITES if balls[w] is None]
        chosen = {w: wait_spots[w - 1] for w in off if wait_spots[w - 1] >= 0}
        targets: dict[int, int] = dict(chosen)
        if len(off) == 1 and not chosen:
            w = off[0]
            other = balls[WHITE + SPOTTED - w]
            d = [math.dist(spot, other) for spot in self.spots]
            targets[w] = w - 1 if abs(d[0] - d[1]) <= GEOM_TOL else int(np.argmax(d))
        elif len(off) == 2 and len(chosen) < 2:
            if not chosen:
                targets = {WHITE: 0, SPOTTED: 1}
            else:  # one waits already: the white pocketed now takes the other spot
                (w, k), = chosen.items()
                targets[WHITE + SPOTTED - w] = 1 - k
        spotted: dict[int, XY] = {}
        waiting = []
        new_waits = [-1, -1]
        for w, k in sorted(targets.items()):
            spot = self.spots[k]
            covered = any(pos is not None and math.dist(pos, spot) < 2 * self.R - GEOM_TOL
                          for pos in balls)
            if covered:
                waiting.append(w)
                new_waits[w - 1] = k
            else:
                balls[w] = spotted[w] = (float(spot[0]), float(spot[1]))
        return balls, spotted, tuple(waiting), (new_waits[0], new_waits[1])

    def _restand_pins(self, balls: list[XY | None], pins: list[bool]
                      ) -> tuple[list[bool], list[int]]:
        """K-P7: stand every fallen pin whose spot is free (no ball centre within R + r_pin +
        2 mm); the others wait for a later shot."""
        restood = []
        for p in range(N_PINS):
            if pins[p]:
                continue
            if all(pos is None or math.dist(pos, self.pin_spots[p]) > self.respot_r
                   for pos in balls):
                pins[p] = True
                restood.append(p)
        return pins, restood

    def _win(self, state: GameState, scores: list[int], shooter: int,
             lost: tuple[int, ...]) -> dict:
        """K-20: the shooter wins; with three or more still in, the game ends and the others
        rank by points, ties in turn order after the shooter."""
        in_game = state.in_game
        rest = [p for p in _after(state.order, shooter) if p in in_game and p not in lost]
        rest.sort(key=lambda p: -scores[p])  # stable: turn order breaks ties
        ranking = [] if shooter in lost else [shooter]
        finished_now = (*ranking, *rest)
        return {"over": True, "finished_now": finished_now,
                "state": {"finished": (*state.finished, *finished_now), "lost": lost,
                          "game_over": True, "to_play": None}}

    def _end_rules(self, state: GameState, scores: list[int], shooter: int, *,
                   legal_pin: bool, got_skaeve: set[int], keep_turn: bool,
                   lost: tuple[int, ...]) -> dict:
        """K-21, K-21a, K-22 (K-25: reaching the distance always finishes)."""
        remaining = [p for p in state.in_game if p not in lost]
        finished = list(state.finished)
        finished_now = []
        for p in (shooter, *_after(state.order, shooter)):
            if p not in remaining or scores[p] < self.rules.distance or len(remaining) < 2:
                continue
            if len(remaining) == 2 and not self.rules.ddbu:
                # K-22: only by legally toppling a pin, or through the opponent's skæve
                if not ((p == shooter and legal_pin) or p in got_skaeve):
                    continue
            remaining.remove(p)
            finished.append(p)
            finished_now.append(p)
        over = len(remaining) <= 1
        if over:
            finished += remaining  # the last player left loses (K-22)
            finished_now += remaining
            to_play = None
        elif keep_turn and shooter in remaining:
            to_play = shooter  # K-25: the visit goes on
        else:
            to_play = next(p for p in _after(state.order, shooter) if p in remaining)
        return {"over": over, "finished_now": tuple(finished_now),
                "state": {"finished": tuple(finished), "lost": lost, "game_over": over,
                          "to_play": to_play}}


def _after(order: Sequence[int], player: int) -> tuple[int, ...]:
    """The other players in turn order, starting after ``player``."""
    i = list(order).index(player)
    return tuple(order[i + 1:]) + tuple(order[:i])


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
    from cuegym.configs import load_params as _load_params
    from cuegym.physics import GAME_MODELS, simulate

    game = KeglebillardGame(rules, table)
    params = _load_params("keglebillard")
    rng = np.random.default_rng(seed)
    policy = policy or random_policy
    state = state or game.new_state(n_players, rng=rng)
    shots = []
    while not state.game_over and len(shots) < max_shots:
        red_xy, cue = policy(game, state, rng)
        if state.ball_in_hand is not None and game.placement_error(state, red_xy):
            outcome, state = game.placement_foul(state, red_xy)
        else:
            setup = game.shot_setup(state, red_xy)
            res = simulate(game.table, params, setup.xy[None], cue_ball=np.zeros(1, np.int64),
                           cue=np.asarray(cue, np.float64)[None], pins_up=setup.pins_up[None],
                           present=setup.present[None], models=GAME_MODELS)
            # random play: a shot cut off by max_events / t_max is scored where it ended (the
            # outcome's ``overflow`` records it)
            outcome, state = game.apply(state, res, allow_overflow=True)
        shots.append(outcome.to_dict())
    return {"shots": shots, "state": state.to_dict(), "ranking": state.to_dict().get("ranking"),
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


__all__ = ["GameState", "Injected", "KeglebillardGame", "ShotOutcome", "ShotSetup",
           "new_state_json", "play_game", "random_policy", "score_json"]
