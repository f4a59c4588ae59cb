"""Game flow for agents: many games in lock-step, strikes simulated in one batched physics call.

An *arena* wraps one game's rules (``cuegym.rules``) behind the few calls agents and tournaments
need: new game states, who is to move, playing a batch of strikes (noise, physics, referee,
game flow), and scoring candidate strikes without advancing the game (the planner's search).
:func:`~cuegym.agents.head_to_head.play_games` (:mod:`cuegym.agents.head_to_head`) runs whole
games between two agents with fixed seeds.

Keglebillard is played by two players (player 0 breaks); golfbillard by two sides (side 0 white,
side 1 red), one game per match by default (``match: single``) so that one game is one result.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from cuegym.agents.base import Strikes, check_game, check_value_terms
from cuegym.compat import moved_names
from cuegym.configs import finite_number
from cuegym.rules.inputs import MAX_PLAYERS, req_int

#: Value of winning the game outright with a shot (keglebillard K-20, golfbillard G-4), in the
#: units of :meth:`KeglebillardArena.values` / :meth:`GolfbillardArena.values`.
WIN_VALUE = 100.0

#: Default most tables one physics call of a search plays (:func:`played_values`): the logs take
#: about 50 KB a keglebillard table (``max_events`` 400), so a search over many states at once
#: (the planner: 576 strikes a state) stays near 200 MB instead of growing with the states.
MAX_TABLES = 4096


@dataclass
class ShotRecord:
    """One played shot, for the statistics (the same fields for both games).

    Attributes:
        game: index of the game in the batch. shooter: player (keglebillard) or side
            (golfbillard) who shot. points: points (keglebillard) or own balls (golfbillard) the
            shot credited to the shooter. given: points (skæve) or balls the shot credited to the
            opponent(s). foul: the shot was a foul. rules: the foul's rule ids.
    """

    game: int
    shooter: int
    points: float
    given: float
    foul: bool
    rules: tuple[str, ...] = ()


def shot_records(shooter: np.ndarray, points: np.ndarray, given: np.ndarray, foul: np.ndarray,
                 rules: list[tuple[str, ...]]) -> list[ShotRecord]:
    """One :class:`ShotRecord` per table from (T,) columns (``rules``: a tuple per table)."""
    return [ShotRecord(game=t, shooter=sh, points=p, given=g, foul=f, rules=r)
            for t, (sh, p, g, f, r) in enumerate(zip(
                np.asarray(shooter).tolist(), np.asarray(points, float).tolist(),
                np.asarray(given, float).tolist(), np.asarray(foul, bool).tolist(), rules,
                strict=True))]


def played_values(arena: Any, states: Any, strikes: Strikes,
                  score: Callable[[Any, Any, Any], np.ndarray], *, next_states: bool = False
                  ) -> Any:
    """Play one (already noised) strike per state (``arena.outcomes``) and score each:
    ``score(states, outcomes, next states)`` -> (T,). Played in slices of at most
    ``arena.max_tables`` tables, so a search over many states holds the physics logs of one
    slice (each table is played on its own: the same values as one call).

    Returns:
        (T,) values; with ``next_states`` also the next states (one batch, row for row).
    """
    batch, T, n = arena.g.batch(states), len(strikes), arena.max_tables
    if len(batch) != T:  # (else a batch over max_tables was scored on its first T states)
        raise ValueError(f"{T} strikes for {len(batch)} states: one strike per state")
    vals, news = [], []
    slices = [None] if T <= n else [np.arange(i, min(i + n, T)) for i in range(0, T, n)]
    for rows in slices:  # None: the whole batch, not copied
        b, s = (batch, strikes) if rows is None else (batch.take(rows), strikes.take(rows))
        out, new = arena.outcomes(b, s)
        vals.append(score(b, out, new))
        if next_states:
            news.append(new)
    v = vals[0] if len(vals) == 1 else np.concatenate(vals)
    if not next_states:
        return v
    return v, news[0] if len(news) == 1 else type(news[0]).concat(news)


def _rules_type(rules: Any, cls: type, game: str) -> None:
    """Refuse ``rules`` of a type neither arena reads (5, True, a list): a TypeError deep in
    the loader ("expected str, bytes or os.PathLike object") did not name ``rules``."""
    if rules is not None and not isinstance(rules, cls | Mapping | str | os.PathLike):
        raise ValueError(f"rules must be a {cls.__name__}, a mapping of rule options, a rules "
                         f"YAML path (configs/rules/{game}.yaml) or None, got {rules!r}")


def _max_tables(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"max_tables must be a positive integer, got {n!r}")
    return int(n)


def _physics_limits(max_events: Any, t_max: Any) -> tuple[int, float]:
    """An arena's per-shot physics limits, checked (``int``/``float`` took 2.5 as 2 and "60"
    as 60 silently); the physics checks their ranges when it runs."""
    return req_int(max_events, "max_events", 1), finite_number("t_max", t_max, positive=True)


# ---------------------------------------------------------------------------------------------
# Keglebillard
# ---------------------------------------------------------------------------------------------


class KeglebillardArena:
    """Keglebillard for agents, on the game layer (:class:`cuegym.games.kegle.Kegle`).

    States are :class:`~cuegym.games.kegle_state.KegleStates` batches (a list of rules
    ``GameState`` values is accepted too); iterating a batch gives the ``GameState`` of each
    table, which agents read.

    Args:
        rules: a rule set, a mapping of options (over the shipped file), a rules YAML path,
            or None (the shipped file); its
            ``first_player`` must be ``player0`` (player 0 breaks every game; the seats are the
            order, :func:`~cuegym.agents.head_to_head.play_games` alternates them).
        table: table config name (``keglebillard``, the kleinmatch, or
            ``keglebillard-helmatch``).
        n_players: players per game (K-1).
        max_events, t_max: physics limits per shot.
        max_tables: most tables one physics call of a search plays (:func:`played_values`: a
            longer batch is played in slices of it; the same values, bounded memory).
    """

    #: the value terms :meth:`values` / :meth:`score` take (shaping of a search's values)
    TERMS = ("bih", "foul", "rodt_bonus", "game")

    game = "keglebillard"

    def __init__(self, rules: Any = None, table: str = "keglebillard", n_players: int = 2,
                 max_events: int = 400, t_max: float = 60.0,
                 max_tables: int = MAX_TABLES) -> None:
        from cuegym.games.kegle import Kegle
        from cuegym.rules.keglebillard_config import KeglebillardRules

        _rules_type(rules, KeglebillardRules, "keglebillard")
        self.g = Kegle(rules, table)
        self.rules = self.g.rules
        if self.rules.first_player != "player0":
            # new_states breaks with player 0 and play_games alternates the agents' seats:
            # the option would be ignored without a word
            raise ValueError(f"rules first_player={self.rules.first_player!r}: the arena's "
                             "games are broken by player 0 (play_games alternates which agent "
                             "sits there: swap=True), so only first_player: player0 is played")
        self.table = self.g.table
        self.params = self.g.params
        self.R = self.g.R
        self.n_players = req_int(n_players, "n_players", 2, MAX_PLAYERS)
        self.max_events, self.t_max = _physics_limits(max_events, t_max)
        self.max_tables = _max_tables(max_tables)
        self.hx, self.hy = self.g.hx, self.g.hy
        t = self.table
        self.pockets = np.array([[p.x, p.y, p.radius] for p in t.pockets]).reshape(-1, 3)
        self.pin_spots = self.g.pin_spots
        self.r_pin = self.g.r_pin
        self.salvo_x = self.g.salvo_x
        self.spots = self.g.spots

    # -- game bookkeeping -----------------------------------------------------------------

    def new_states(self, n: int) -> Any:
        """``n`` new games (the break, player 0 to play), a ``KegleStates`` batch."""
        return self.g.new(req_int(n, "n", 0), self.n_players, first_player=0)

    def batch(self, states: Any) -> Any:
        """A ``KegleStates`` batch of ``states`` (a batch or rules ``GameState`` values)."""
        return self.g.batch(states)

    # the batch bookkeeping of play_games: a KegleStates batch, or a list of GameState values
    # (kept as a list, so that a caller tracking the values by identity can)
    @staticmethod
    def take(states: Any, idx: Any) -> Any:
        if isinstance(states, list):
            return [states[i] for i in np.asarray(idx, np.int64)]
        return states.take(idx)

    def put(self, states: Any, idx: Any, new: Any) -> None:
        if isinstance(states, list):
            for i, s in zip(np.asarray(idx, np.int64), new, strict=True):
                states[i] = s
        else:
            states.put(idx, self.g.batch(new))

    def movers(self, states: Any) -> np.ndarray:
        """(T,) the player to move (-1 where over)."""
        return self.g.batch(states).to_play.copy()

    def overs(self, states: Any) -> np.ndarray:
        return self.g.batch(states).game_over.copy()

    def winners(self, states: Any) -> list[int | None]:
        """The winner (player id) of each game; None for a game that did not finish (cut off by
        the shot limit: unfinished, neither won nor drawn, whatever the score)."""
        states = self.g.batch(states)
        out: list[int | None] = []
        for t in range(len(states)):
            if not states.game_over[t]:
                out.append(None)
                continue
            out.append(int(states.finished[t, 0]) if states.n_finished[t] else
                       int(states.lost[t, states.n_lost[t] - 1]))
        return out

    def scores(self, states: Any) -> list:
        return [tuple(s) for s in self.g.batch(states).scores.tolist()]

    # -- shots ------------------------------------------------------------------------------

    def placement_ok(self, states: Any, place: np.ndarray) -> np.ndarray:
        """(T,) bool: each placement is playable (K-19); states without ball in hand: True."""
        return self.g.legal_placement(self.g.batch(states), place)

    def outcomes(self, states: Any, strikes: Strikes) -> tuple[Any, Any]:
        """Play one (already noised) strike per state and advance: (KegleOutcomes, KegleStates)."""
        return self.g.play(self.g.batch(states), strikes, max_events=self.max_events,
                           t_max=self.t_max, allow_overflow=True)

    def values(self, states: Any, strikes: Strikes, *, terms: Mapping | None = None
               ) -> np.ndarray:
        """Value of each strike for its shooter, without advancing the game: the points the
        shot credits to the shooter minus the skæve it hands over (K-9a..K-16), ``WIN_VALUE``
        for a K-20 win, and -6 for a placement that cannot be played (K-19).

        ``terms`` may add shaping: ``bih`` (value of handing the opponent ball in hand, default
        -2), ``foul`` (added per foul on top of the skæve, default 0), ``rodt_bonus`` (default
        0), ``game`` (default 0: added for a shot that ends the game with the shooter first by
        points or skæve, K-21/K-22, subtracted where it ends it with another player first; a
        K-20 win is ``WIN_VALUE`` anyway). :meth:`score` gives the same values for outcomes
        already played.
        """
        return played_values(self, states, strikes,
                             lambda b, out, new: self.score(out, terms=terms))

    @staticmethod
    def score(out: Any, *, terms: Mapping | None = None) -> np.ndarray:
        """(T,) :meth:`values` of played outcomes ``out`` (the ``KegleOutcomes`` of
        :meth:`outcomes`), for searches that also need the next states."""
        terms = check_value_terms("terms", terms, KeglebillardArena.TERMS)
        bih, foul = terms.get("bih", -2.0), terms.get("foul", 0.0)
        v = (out.shooter_points - out.skaeve + WIN_VALUE * out.win + bih * out.ball_in_hand
             + terms.get("rodt_bonus", 0.0) * out.rodt + foul * out.foul)
        game = terms.get("game", 0.0)
        if game:
            end = out.game_over & ~out.win.astype(bool)
            v = v + game * np.where(end, np.where(out.ranking[:, 0] == out.shooter, 1.0, -1.0),
                                    0.0)
        return np.where(out.played, v, -6.0 + bih + foul)

    def step(self, states: Any, strikes: Strikes) -> tuple[list[ShotRecord], Any]:
        """Play one (already noised) strike per state (``Kegle.play``); returns the records and
        the new states (a batch; a list of ``GameState`` values for a list)."""
        out, new = self.g.play(self.g.batch(states), strikes, max_events=self.max_events,
                               t_max=self.t_max, allow_overflow=True)
        # labels only where a foul column is set (an empty row has none): most shots are clean
        rules = [tuple(dict.fromkeys(f.split(":")[0] for f in out.foul_labels(t))) if any_foul
                 else () for t, any_foul in enumerate(out.fouls.any(1).tolist())]
        rec = shot_records(out.shooter, out.shooter_points, out.skaeve, out.foul, rules)
        return rec, new.states() if isinstance(states, list) else new


# ---------------------------------------------------------------------------------------------
# Golfbillard
# ---------------------------------------------------------------------------------------------


class GolfbillardArena:
    """Golfbillard for agents, on the game layer (:class:`cuegym.games.golf.Golf`): states are
    :class:`~cuegym.rules.golf_arrays.GolfStates` batches (their items are rules ``GolfState``
    values, which the agents read).

    Args:
        rules: a ``GolfRules``, a mapping of options over the shipped file, a rules YAML path
            (that file's rule set as written, as keglebillard takes one), or None. Over the
            shipped file (None, a mapping) the arena's default is ``match: single`` (one game
            per match, one result).
        max_events, t_max: physics limits per stroke.
        max_tables: most tables one physics call of a search plays (:func:`played_values`: a
            longer batch is played in slices of it; the same values, bounded memory).
    """

    #: the value terms :meth:`values` / :meth:`score` take (shaping of a search's values)
    TERMS = ("foul", "keep", "position", "draw", "lead", "idle_q")

    game = "golfbillard"
    n_players = 2

    def __init__(self, rules: Any = None, max_events: int = 600, t_max: float = 60.0,
                 max_tables: int = MAX_TABLES) -> None:
        from cuegym.games.golf import Golf
        from cuegym.rules.golfbillard import GolfRules, load_golf_rules

        _rules_type(rules, GolfRules, "golfbillard")
        if isinstance(rules, GolfRules):
            self.rules = rules
        elif isinstance(rules, str | os.PathLike):  # was: dict("configs/...") failed
            self.rules = _golf_rules_file(rules)
        else:
            opts = {"match": "single", **dict(rules or {})}
            self.rules = load_golf_rules(**opts)
        self.g = Golf(self.rules)
        self.geo = self.g.geo
        self.params = self.g.params
        self.table = self.geo.table
        self.R = self.params.R
        self.max_events, self.t_max = _physics_limits(max_events, t_max)
        self.max_tables = _max_tables(max_tables)
        self._cones: dict[int, Any] = {}

    def new_states(self, n: int, seeds: Any = None) -> Any:
        """n new single games; ``seeds`` (n,) ints >= 0 are the states' seeds, which drive the
        rules' random choices (``spot_policy`` / ``pick_policy`` ``random``), default 0..n-1."""
        n = req_int(n, "n", 0)
        if seeds is None:
            return self.g.new(n, seed=np.arange(n))
        seeds = np.asarray(seeds)
        if seeds.shape != (n,) or seeds.dtype.kind not in "iu" or (seeds < 0).any():
            raise ValueError(f"seeds must be {n} integers >= 0, got {seeds!r}")
        return self.g.new(n, seed=seeds.astype(np.int64))

    @staticmethod
    def to_move(state: Any) -> int:
        return int(state.to_move)

    @staticmethod
    def over(state: Any) -> bool:
        return state.phase == "over"

    @staticmethod
    def winner(state: Any) -> int | None:
        """The winning side; None for a draw (G-5) or a game cut off by the stroke limit
        (``GameResults.finished`` tells the two apart)."""
        w = state.match_winner if state.phase == "over" else -1
        return int(w) if w in (0, 1) else None

    # the batch bookkeeping of play_games: a GolfStates batch, or a list of GolfState values
    # (kept as a list, so that a caller tracking the values by identity can)
    def take(self, states: Any, idx: Any) -> Any:
        if isinstance(states, list):
            return [states[i] for i in np.asarray(idx, np.int64)]
        return self.g.batch(states).take(np.asarray(idx, np.int64))

    def put(self, states: Any, idx: Any, new: Any) -> None:
        if isinstance(states, list):
            for i, s in zip(np.asarray(idx, np.int64), new, strict=True):
                states[i] = s
        else:
            states.put(np.asarray(idx, np.int64), self.g.batch(new))

    def movers(self, states: Any) -> np.ndarray:
        return self.g.batch(states).to_move.copy()

    def overs(self, states: Any) -> np.ndarray:
        return self.g.batch(states).over

    def openings(self, states: Any) -> np.ndarray:
        """(T,) bool: the table is in its G-3 opening."""
        from cuegym.rules.golf_codes import P_OPENING

        return self.g.batch(states).phase == P_OPENING

    def winners(self, states: Any) -> list[int | None]:
        b = self.g.batch(states)
        return [int(w) if o and w in (0, 1) else None
                for w, o in zip(b.match_winner, b.over, strict=True)]

    @staticmethod
    def scores(states: Any) -> list:
        return [None] * len(states)

    def outcomes(self, states: Any, strikes: Strikes) -> tuple[Any, Any]:
        """Referee play strokes (no opening) and advance: (GolfOutcomes, GolfStates)."""
        return self.g.play(self.g.batch(states), strikes, max_events=self.max_events,
                           t_max=self.t_max, allow_overflow=True)

    def values(self, states: Any, strikes: Strikes, *, terms: Mapping | None = None
               ) -> np.ndarray:
        """Value of each play stroke for its side, looking one stroke ahead: own balls scored
        minus the opponent's, ``WIN_VALUE`` for winning the game (``-WIN_VALUE`` for losing
        it), ``keep`` (default 0.7) for keeping the turn, ``foul`` (default -0.3) for a foul,
        plus ``position`` (default 1) times :meth:`position_values` of the balls afterwards (own
        minus the opponent's chances).

        Opt-in G-5 terms (all default 0, off): ``draw`` (the value of a G-5 draw for the
        shooter), ``lead`` (what a draw costs per ball of the shooter's lead: a draw is worth
        ``draw - lead * (own balls scored - the opponent's)``) and ``idle_q`` (the chance that a
        turn scores, for the hazard): the stroke adds ``Φ(after) - Φ(before)`` of
        :meth:`draw_potentials` for the shooter (a potential, so that the terms of successive
        strokes of a search add up to ``Φ(last) - Φ(first)``). :meth:`score` gives the same
        values for outcomes already played."""
        return played_values(self, states, strikes, lambda b, out, new: self.score(
            out, terms=terms, states=b, new=new))

    def score(self, out: Any, *, terms: Mapping | None = None, states: Any = None,
              new: Any = None) -> np.ndarray:
        """(T,) :meth:`values` of played outcomes ``out`` (the ``GolfOutcomes`` of
        :meth:`outcomes`), for searches that also need the next states. The G-5 terms need
        the states before (``states``) and after (``new``) the strokes."""
        terms = check_value_terms("terms", terms, self.TERMS)
        T = len(out)
        rows = np.arange(T)
        s = out.shooter
        v = (out.scored[rows, s] - out.scored[rows, 1 - s]).astype(np.float64)
        v += np.where(out.game_over, np.where(out.winner == s, WIN_VALUE, -WIN_VALUE), 0.0)
        v += np.where(out.foul, terms.get("foul", -0.3), 0.0)
        v += np.where(out.turn_kept, terms.get("keep", 0.7), 0.0)
        w = terms.get("position", 1.0)
        if w:
            live = ~out.game_over
            xy, side = out.xy[live], s[live]
            v[live] += w * (self.position_values(xy, side) - self.position_values(xy, 1 - side))
        if terms.get("draw", 0.0) or terms.get("lead", 0.0):
            if states is None or new is None:
                raise ValueError("the G-5 terms (draw, lead) need the states before and after "
                                 "the strokes: score(out, states=..., new=...)")
            v += (self.draw_potentials(new, s, terms, before=states)
                  - self.draw_potentials(states, s, terms))
        return v

    def draw_potentials(self, states: Any, side: np.ndarray, terms: Mapping, *,
                        before: Any = None) -> np.ndarray:
        """(T,) Φ: the chance of a G-5 draw times its value for ``side[t]`` (T,) at each state.

        The value of a draw is ``terms["draw"] - terms["lead"] * lead``, with ``lead`` the
        side's own balls scored minus the opponent's (a draw costs the side ahead its edge). The
        chance is 1 for a drawn game, 0 for a decided one and in kader play (G-5 does not apply,
        G-20), else ``(1 - idle_q) ** r``: ``r`` is the number of turns that must end without a
        ball scored before G-5 ends the game — the turns left to the limit of
        ``no_progress_turns``, then ``2 * no_progress_window`` minus the idle turns already
        counted; a turn that has scored ends the count first (G-5: a scoring turn resets it).
        ``idle_q`` (default 0.1: about the balls per turn in games between the planners) is the
        chance that a turn scores.

        ``before``: the states the strokes were played from. In a match of several games a
        stroke that ends a game starts the next one (or ends the match), so a table whose game
        ended between ``before`` and ``states`` is valued by that game's result (the state's
        last winner: 1 for a draw, else 0) and by the lead the side had in it (``before``'s
        balls), not by the next game's rack.
        """
        q = float(terms.get("idle_q", 0.1))
        if not 0.0 <= q < 1.0:
            raise ValueError(f"idle_q must be in [0, 1), got {q}")
        b = self.g.batch(states)
        side = np.asarray(side, np.int64)
        npt, limit = self.rules.no_progress_turns, self.rules.idle_limit
        ended = np.zeros(len(b), bool)
        xy = b.xy
        if before is not None:
            b0 = self.g.batch(before)
            ended = (b.game_no != b0.game_no) | (b.over & ~b0.over)
            xy = np.where(ended[:, None, None], b0.xy, b.xy)
        lead = self._lead(xy, side)
        value = terms.get("draw", 0.0) - terms.get("lead", 0.0) * lead
        scored = b.turn_scored.astype(np.int64)  # the current turn ends the count first
        r = scored + np.maximum(npt - b.turns - scored, 0) + limit \
            - np.where(scored > 0, 0, b.idle_turns)
        chance = np.where(b.kader | (limit == 0), 0.0, (1.0 - q) ** np.maximum(r, 0))
        drawn = (b.winner == 2) | (b.over & (b.match_winner == 2))
        chance = np.where(b.over | ended, drawn.astype(np.float64), chance)
        return chance * value

    @staticmethod
    def _lead(xy: np.ndarray, side: np.ndarray) -> np.ndarray:
        """(T,) ``side[t]``'s balls scored minus the opponent's at ``xy`` (T, 10, 2)."""
        left = (~np.isnan(xy[..., 0])).reshape(len(xy), 2, -1).sum(-1)  # (T, 2) balls left
        rows = np.arange(len(xy))
        return left[rows, 1 - side] - left[rows, side]

    def position_value(self, xy: np.ndarray, side: int) -> float:
        """:meth:`position_values` of one table: ``xy`` (10, 2), ``side`` 0 or 1."""
        if isinstance(side, bool | np.bool_) or not isinstance(side, int | np.integer) or \
                side not in (0, 1):  # 2 valued nothing, 0.7 was read as side 0
            raise ValueError(f"side must be 0 (white) or 1 (red), got {side!r}")
        return float(self.position_values(np.asarray(xy)[None], np.array([side]))[0])

    def position_values(self, xy: np.ndarray, side: np.ndarray) -> np.ndarray:
        """(T,) chances of ``side[t]``'s balls at ``xy[t]`` ((T, 10, 2) [m], NaN off the
        table): per ball 0.8 in its goal cone with a clear straight shot
        (:class:`~cuegym.agents.geometric.GoalCone`: no other ball centre within 2 R of the
        line to the goal), 0.4 in the cone but blocked, else 0.3 exp(-d / 0.3) at distance d
        [m] from the cone."""
        from cuegym.rules.golfbillard import SIDE_OF

        xy = np.asarray(xy, np.float64)
        side = np.asarray(side)
        T = len(xy)
        if xy.shape[1:] != (len(SIDE_OF), 2) or side.shape != (T,):
            raise ValueError(f"position_values needs xy (T, {len(SIDE_OF)}, 2) and side (T,), "
                             f"got {xy.shape} and {side.shape}")
        # integers 0 or 1: side 2 was valued 0 and 0.7 read as side 0, without a word
        bad = np.ones(T, bool) if side.dtype.kind not in "iu" else (side != 0) & (side != 1)
        if bad.any():
            t = int(np.argmax(bad))
            raise ValueError(f"side[{t}] = {side[t:t + 1].tolist()[0]!r}: a side is 0 (white) or 1 "
                             "(red), an integer")
        side = side.astype(np.int64, copy=False)
        on = ~np.isnan(xy[..., 0])  # (T, 10)
        out = np.zeros(T)
        for sd in (0, 1):  # the two goals; all tables of a side at once
            rows = np.flatnonzero(side == sd)
            if not len(rows):
                continue
            c, poly, goal = self._cone(sd)
            mine = np.flatnonzero(SIDE_OF == sd)
            p = xy[rows][:, mine]  # (n, 5, 2)
            ok = on[rows][:, mine]
            d = c.sgn * (c.gx - p[..., 0])
            inside = (d >= c.near) & (d <= c.far) & (np.abs(p[..., 1]) <= c.slope * d - c.margin)
            # clear: every other ball's centre farther than 2 R from the segment ball-goal
            seg = goal - p  # (n, 5, 2)
            L2 = np.maximum((seg ** 2).sum(-1), 1e-300)
            q = xy[rows][:, None, :, :] - p[:, :, None, :]  # (n, 5, 10, 2) others - ball
            s = np.clip((q * seg[:, :, None, :]).sum(-1) / L2[..., None], 0.0, 1.0)
            dist = np.hypot(*np.moveaxis(q - s[..., None] * seg[:, :, None, :], -1, 0))
            other = on[rows][:, None, :] & (np.arange(len(SIDE_OF))[None, None, :]
                                            != mine[None, :, None])
            clear = np.where(other, dist > 2 * self.R, True).all(-1)
            # distance from outside the cone: to the nearest of its four edges
            a, b = poly, np.roll(poly, -1, axis=0)  # (4, 2) edges a-b
            e = b - a
            w = p[..., None, :] - a  # (n, 5, 4, 2)
            t = np.clip((w * e).sum(-1) / (e ** 2).sum(-1), 0.0, 1.0)
            dc = np.hypot(*np.moveaxis(w - t[..., None] * e, -1, 0)).min(-1)  # (n, 5)
            v = np.where(inside, np.where(clear, 0.8, 0.4),
                         0.3 * np.exp(-np.nan_to_num(dc) / 0.3))
            out[rows] = np.where(ok, v, 0.0).sum(-1)
        return out

    def _cone(self, side: int) -> tuple[Any, np.ndarray, np.ndarray]:
        """The goal cone of ``side``, its polygon (4, 2) and its goal centre (2,), cached."""
        from cuegym.agents.geometric import goal_cone

        got = self._cones.get(side)
        if got is None:
            cone = goal_cone(self.geo, side)
            got = self._cones[side] = (cone, cone.polygon(), self.geo.goals[side, :2].copy())
        return got

    def step(self, states: Any, strikes: Strikes) -> tuple[list[ShotRecord], Any]:
        """Play one (already noised) play stroke per state; returns the records and the new
        states (a batch; a list of ``GolfState`` values for a list)."""
        out, new = self.outcomes(states, strikes)
        rows = np.arange(len(out))
        s = out.shooter
        foul = out.foul
        rules = [(r,) if f else () for r, f in zip(out.first_rule.tolist(), foul.tolist(),
                                                    strict=True)]
        rec = shot_records(s, out.scored[rows, s], out.scored[rows, 1 - s], foul, rules)
        return rec, new.states() if isinstance(states, list) else new

    def opening(self, states: Any, strikes0: Strikes, strikes1: Strikes) -> Any:
        """Play the G-3 opening (both sides at t = 0, strikes already executed); returns the
        new states (a list of ``GolfState`` values for a list)."""
        _, new = self.g.play(self.g.batch(states), strikes0, strikes1=strikes1,
                             max_events=self.max_events, t_max=self.t_max, allow_overflow=True)
        return new.states() if isinstance(states, list) else new


def _golf_rules_file(path: Any) -> Any:
    """The golfbillard rule set of the YAML file ``path``; a folder, a missing file or one that
    is not a mapping of options is a ConfigError (a ValueError) naming it, as keglebillard's."""
    from pathlib import Path

    from cuegym.configs import ConfigError, load_yaml
    from cuegym.rules.golfbillard import GolfRules

    path = Path(path)
    if path.is_dir():  # "" is the folder "."
        raise ConfigError(f"rules {str(path)!r} is a folder, not a rules file")
    if not path.is_file():
        raise ConfigError(f"no rules file {str(path)!r}")
    with open(path) as fh:
        data = load_yaml(fh) or {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"rules {path}: expected a mapping of rule options")
    return GolfRules.from_dict(data)


def make_arena(game: str, rules: Any = None, **kw: Any) -> KeglebillardArena | GolfbillardArena:
    """The arena of ``game`` (``keglebillard`` or ``golfbillard``) under ``rules`` (a rule
    set, a mapping of options over the shipped file, a rules YAML path, or None); ``kw`` are
    the arena's
    arguments (keglebillard: ``table``, ``n_players``; both: ``max_events``, ``t_max``,
    ``max_tables``). Golfbillard has one table (``configs/tables/golfbillard.yaml``)."""
    check_game(game)
    if game == "golfbillard" and "table" in kw:
        table = kw.pop("table")
        if table != "golfbillard":  # a TypeError about an unexpected argument said less
            raise ValueError(f"table {table!r}: golfbillard is played on its one table "
                             "('golfbillard'); the table option is keglebillard's")
    cls = KeglebillardArena if game == "keglebillard" else GolfbillardArena
    known = [p for p in inspect.signature(cls).parameters if p != "rules"]
    bad = sorted(set(kw) - set(known))
    if bad:  # a TypeError about an unexpected keyword argument said less
        raise ValueError(f"make_arena({game!r}): unknown argument(s) {bad}; {game} arenas take "
                         f"{known}")
    return cls(rules, **kw)


#: ``from cuegym.agents.arena import play_games`` (and the two-seat games' other names) keeps
#: working: :mod:`cuegym.agents.head_to_head` imports this module, so they come on first use
__getattr__ = moved_names(__name__, "cuegym.agents.head_to_head",
                          ("GameResults", "play_games", "setting_mismatch"))
