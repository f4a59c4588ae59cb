"""Keglebillard game states and shot outcomes for T tables: dataclasses of arrays.

:class:`KegleStates` is the position between two shots of T games (leading axis = table; N =
players per game, the same for the whole batch); :class:`KegleOutcomes` what one shot per table
did. Copies are array copies. The per-table JSON values of the rules
(:class:`~cuegym.rules.keglebillard_game.GameState`, :class:`ShotOutcome`) convert to and from
them (:func:`from_game_states`, :meth:`KegleStates.state`, :meth:`KegleOutcomes.outcome`);
agents read a batch one table at a time through that value (``states[t]``, ``for s in states``).
A caller's batch is checked before the compiled flow indexes with it (:func:`check_states`).

Balls are indexed red = 0, white = 1, spotted = 2; pins king = 0, pin1..pin4 (K-P7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from cuegym.rules.inputs import MAX_PLAYERS, RefereeInputError
from cuegym.rules.keglebillard import BALL_IDS, FOUL_COLUMNS, N_BALLS, N_PINS, PIN_IDS, WHITES

from . import checks

#: ``hand`` codes: the red on the table; in hand behind the salvo line (the break, K-3, or after
#: K-14; the salvo line applies, K-15); in hand anywhere on the cloth (K-19).
HAND_NONE, HAND_SALVO, HAND_CLOTH = 0, 1, 2
HAND_NAMES = (None, "salvo", "cloth")
_HAND_CODE = {None: HAND_NONE, "salvo": HAND_SALVO, "cloth": HAND_CLOTH}

#: Columns of :attr:`KegleOutcomes.fouls`: the referee's physics fouls, then the flow's own.
OUTCOME_FOULS = (*FOUL_COLUMNS, "K-19:placement", "K-25:no_cushion", "K-25:third_rodt")
F_PLACEMENT = len(FOUL_COLUMNS)
F_NO_CUSHION = F_PLACEMENT + 1
F_THIRD_RODT = F_PLACEMENT + 2


@dataclass
class KegleStates:
    """T keglebillard games between two shots (the fields of ``GameState``, as arrays).

    Attributes:
        xy: (T, 3, 2) float64 ball centres [m]; NaN = off the table (the red in hand, K-19; a
            white waiting to be spotted, K-18).
        pins: (T, 5) bool standing pins.
        hand: (T,) int8 :data:`HAND_NONE` / :data:`HAND_SALVO` / :data:`HAND_CLOTH`.
        order: (T, N) int64 the fixed turn order (K-1, K-23), player ids 0..N-1.
        scores: (T, N) int64 points per player id.
        to_play: (T,) int64 the player to shoot next; -1 when the game is over.
        finished: (T, N) int64 players who finished, best first (K-21), -1 padded;
            n_finished (T,) how many.
        lost: (T, N) int64 players out by an unsporting event (K-16 option), in the order they
            left, -1 padded; n_lost (T,).
        game_over: (T,) bool.
        shot: (T,) int64 shots played (0: the break is still to come).
        run_no_cushion, rodt_streak: (T,) int64 K-25 variant counters.
        wait_spot: (T, 2) int64 by white (white, spotted): the spot a white waiting off the
            table goes on once it is free (0 bottom, 1 top; fixed when it was pocketed, K-18);
            -1 when the white is on the table, or waits with its spot not yet chosen.
    """

    xy: np.ndarray
    pins: np.ndarray
    hand: np.ndarray
    order: np.ndarray
    scores: np.ndarray
    to_play: np.ndarray
    finished: np.ndarray
    n_finished: np.ndarray
    lost: np.ndarray
    n_lost: np.ndarray
    game_over: np.ndarray
    shot: np.ndarray
    run_no_cushion: np.ndarray
    rodt_streak: np.ndarray
    wait_spot: np.ndarray
    table: str = "keglebillard"

    def __len__(self) -> int:
        return int(self.hand.shape[0])

    @property
    def n_players(self) -> int:
        return int(self.order.shape[1])

    def _arrays(self) -> dict[str, np.ndarray]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "table"}

    def copy(self) -> KegleStates:
        return KegleStates(**{k: v.copy() for k, v in self._arrays().items()}, table=self.table)

    def take(self, idx: Any) -> KegleStates:
        """The tables ``idx`` (index array, mask or slice) as a new batch (copies)."""
        return KegleStates(**{k: np.ascontiguousarray(v[idx]) for k, v in self._arrays().items()},
                           table=self.table)

    def put(self, idx: Any, other: KegleStates) -> None:
        """Write ``other`` into the tables ``idx`` (in place). Another type, table, player count
        or number of tables is refused before anything is written."""
        if not isinstance(other, KegleStates):
            raise ValueError(f"put takes a KegleStates batch, got {type(other).__name__}")
        if other.table != self.table:
            raise ValueError(f"cannot put states of table {other.table!r} into a batch of "
                             f"table {self.table!r}")
        if other.n_players != self.n_players:
            raise ValueError(f"cannot put {other.n_players}-player states into a batch of "
                             f"{self.n_players}-player games")
        checks.put_fields(self._arrays(), other._arrays(), idx, len(self))

    @staticmethod
    def concat(parts: Sequence[KegleStates]) -> KegleStates:
        if not parts:
            raise ValueError("concat needs at least one batch")
        tables = {p.table for p in parts}
        if len(tables) > 1:
            raise ValueError(f"concat joins batches of one table, got {sorted(tables)}")
        names = parts[0]._arrays().keys()
        return KegleStates(**{k: np.concatenate([getattr(p, k) for p in parts]) for k in names},
                           table=parts[0].table)

    # -- derived --------------------------------------------------------------------------

    def in_game(self) -> np.ndarray:
        """(T, N) bool by player id: still in the game (neither finished nor lost)."""
        T, N = self.order.shape
        out = np.ones((T, N), bool)
        rows = np.repeat(np.arange(T), N)
        for arr in (self.finished, self.lost):
            f = arr.reshape(-1)
            ok = f >= 0
            out[rows[ok], f[ok]] = False
        return out

    def whites(self) -> np.ndarray:
        """(T, 2, 2) white and spotted centres [m] (NaN when off the table)."""
        return self.xy[:, 1:]

    # -- per-table values -------------------------------------------------------------------

    def state(self, t: int):
        """Table ``t`` as a rules :class:`~cuegym.rules.keglebillard_game.GameState`."""
        from cuegym.rules.keglebillard_game import GameState

        xy = self.xy[t].tolist()
        balls = tuple(None if xy[b][0] != xy[b][0] else (xy[b][0], xy[b][1])
                      for b in range(N_BALLS))
        over = bool(self.game_over[t])
        tp = int(self.to_play[t])
        return GameState(
            order=tuple(self.order[t].tolist()), scores=tuple(self.scores[t].tolist()),
            to_play=None if over else tp, balls=balls, pins=tuple(self.pins[t].tolist()),
            ball_in_hand=HAND_NAMES[int(self.hand[t])],
            finished=tuple(self.finished[t, :self.n_finished[t]].tolist()),
            lost=tuple(self.lost[t, :self.n_lost[t]].tolist()), game_over=over,
            shot=int(self.shot[t]), run_no_cushion=int(self.run_no_cushion[t]),
            rodt_streak=int(self.rodt_streak[t]),
            wait_spots=tuple(self.wait_spot[t].tolist()), table=self.table)

    def __getitem__(self, t: int):
        return self.state(checks.table_index(t, len(self)))

    def __iter__(self):
        return (self.state(t) for t in range(len(self)))

    def states(self) -> list:
        """Every table as a ``GameState``."""
        return list(self)

    def problem(self, half: Any = None, table: str | None = None) -> str | None:
        """Why :func:`check_states` refuses this batch (``half``: the table's half length and
        width [m]; ``table``: the game's table name), or None."""
        try:
            check_states(self, half, table)
        except ValueError as exc:
            return str(exc)
        return None


_COUNT = (0, checks.INT_MAX, "a count is >= 0")
_LISTED = (-1, lambda N: N - 1, "a player id 0..N-1, or -1 after the listed ones")
#: The fields :func:`check_states` checks: trailing shape (-1: N players), the flow kernels'
#: dtype, integer range (a bound may be a function of N).
STATE_FIELDS = (
    ("xy", (N_BALLS, 2), np.float64, None),
    ("pins", (N_PINS,), np.bool_, None),
    ("hand", (), np.int8, (0, 2, "a hand code is 0 (the red on the table), 1 (in hand behind "
                              "the salvo line) or 2 (in hand on the cloth)")),
    ("order", (-1,), np.int64, (0, lambda N: N - 1, "the turn order holds the player ids "
                                                     "0..N-1")),
    ("scores", (-1,), np.int64, (0, checks.INT_MAX, "a score is >= 0 (penalties go to the "
                                                     "other players, K-17)")),
    ("to_play", (), np.int64, (-1, lambda N: N - 1, "the player to shoot is 0..N-1 (-1 when "
                                                    "the game is over)")),
    ("finished", (-1,), np.int64, _LISTED),
    ("n_finished", (), np.int64, (0, lambda N: N, "a count of players is 0..N")),
    ("lost", (-1,), np.int64, _LISTED),
    ("n_lost", (), np.int64, (0, lambda N: N, "a count of players is 0..N")),
    ("game_over", (), np.bool_, None),
    ("shot", (), np.int64, _COUNT),
    ("run_no_cushion", (), np.int64, _COUNT),
    ("rodt_streak", (), np.int64, _COUNT),
    ("wait_spot", (2,), np.int64, (-1, 1, "a white's waiting spot is -1 (none), 0 (bottom) or 1 "
                                         "(top) (K-18)")),
)
_FIELDS = checks.BatchFields(STATE_FIELDS)
_COLUMNS: dict[tuple, tuple[np.ndarray, ...]] = {}


def _columns(N: int, lim: np.ndarray) -> tuple[np.ndarray, ...]:
    """For :func:`check_states`' rows of N players: each column's lowest and highest value,
    from :data:`STATE_FIELDS` (the order shifted by N) and ``lim`` (the balls' bounds); each
    entry's place in finished and lost, and whether it is one of finished (compared with
    n_finished)."""
    key = (N, float(lim[0]), float(lim[1]))
    c = _COLUMNS.get(key)
    if c is None:
        ranges = {f[0]: f[3] for f in STATE_FIELDS}
        cols = [("finished", N, 0), ("lost", N, 0), ("to_play", 1, 0), ("order", N, N),
                ("wait_spot", 2, 0), ("hand", 1, 0), ("n_finished", 1, 0), ("n_lost", 1, 0),
                ("shot", 1, 0), ("run_no_cushion", 1, 0), ("rodt_streak", 1, 0)]
        lo = [np.full(n, checks.range_value(ranges[f][0], N) + d, np.float64)
              for f, n, d in cols] + [-np.tile(lim, N_BALLS)]
        hi = [np.full(n, checks.range_value(ranges[f][1], N) + d, np.float64)
              for f, n, d in cols] + [np.tile(lim, N_BALLS)]
        if len(_COLUMNS) > 64:
            _COLUMNS.clear()
        c = _COLUMNS[key] = (np.concatenate(lo), np.concatenate(hi), np.tile(np.arange(N), 2),
                             np.arange(2 * N) < N)
    return c


def check_states(states: KegleStates, half: Any = None, table: str | None = None,
                 path: str = "states") -> KegleStates:
    """``states`` checked where a user's batch enters the game layer, before anything reads it.

    What the compiled flow (:func:`cuegym.games.kegle_flow.resolve`) indexes with or would
    silently misread: every field an array of the documented shape (T tables first, N >= 2
    players) and of a dtype that casts to the flow's without changing a value; ``hand``
    0..2; ``order`` a permutation of 0..N-1; ``finished`` / ``lost`` their first
    ``n_finished`` / ``n_lost`` entries player ids, the rest -1, no player in both or twice;
    ``to_play`` a player still in the game (-1 allowed once the game is over);
    ``wait_spot`` -1..1; counts >= 0; each ball NaN, NaN (off the table) or finite and, with
    ``half`` (the table's half length and width [m], its cushion-nose rectangle), inside it;
    with ``table``, the batch's table is that one. Not the rules' consistency (points against
    the distance, K-21; ``Kegle.check_state`` checks one state). A few numpy operations over
    the batch (no loop over tables).

    Returns:
        ``states`` itself, or, where a field had another dtype, a batch with that field
        converted (never the caller's arrays changed).

    Raises:
        ValueError: one line naming the field, the table and the value, e.g.
            ``states.to_play[0] = 2: the player to shoot is 0..N-1 ... (N = 2)``.
    """
    T = checks.lead_length(states, "hand", path)
    order = getattr(states, "order", None)
    if not isinstance(order, np.ndarray) or order.ndim != 2 or \
            not 2 <= order.shape[1] <= MAX_PLAYERS:
        got = f"shape {order.shape}" if isinstance(order, np.ndarray) else type(order).__name__
        raise ValueError(f"{path}.order must be a numpy array of shape (T, N), the turn order "
                         f"of N = 2..{MAX_PLAYERS} players (K-1), got {got}")
    N = order.shape[1]
    if table is not None and states.table != table:
        raise ValueError(f"{path}.table = {states.table!r} is not this game's table {table!r}")
    arrs, own = _FIELDS.arrays(states, T, N, path)
    xy, pins, hand, order, scores, to_play, fin, n_fin, lost, n_lost, over, shot, run, rodt, \
        wait = arrs
    lim = checks.bounds(half)
    lo, hi, place, first = _columns(N, lim)
    nf, nl = n_fin[:, None], n_lost[:, None]
    # every number but the scores, one row per table: finished, lost, the player to shoot and
    # the turn order shifted past the ids (the part sorted below), then the rest, the balls last
    m = np.concatenate((fin, lost, to_play[:, None], order + N, wait, hand[:, None], nf, nl,
                        shot[:, None], run[:, None], rodt[:, None], xy.reshape(T, 2 * N_BALLS)),
                       1, dtype=np.float64)
    # in range (a ball inside the cushion noses, NaN passes); the first n_finished / n_lost
    # entries of finished / lost are player ids, the others -1; where the game goes on, a
    # player to shoot; no id twice among the listed players, the player to shoot (so one still
    # in the game) and the order (so a permutation); a ball NaN in x and y or in neither
    ranked = np.sort(m[:, :3 * N + 1], 1)
    bad = (np.count_nonzero((m < lo) | (m > hi))
           + np.count_nonzero((m[:, :2 * N] >= 0) != (place < np.where(first, nf, nl)))
           + np.count_nonzero((ranked[:, 1:] == ranked[:, :-1]) & (ranked[:, 1:] >= 0))
           + np.count_nonzero((to_play < 0) & ~over) + checks.half_nan(xy)
           + np.count_nonzero(scores < 0))  # (the scores' range, apart from the rows above)
    if bad:
        raise ValueError(_problem(arrs, N, lim, path))
    if own:
        return states
    return KegleStates(**dict(zip(_FIELDS.names, arrs, strict=True)), table=states.table)


def _problem(arrs: list, N: int, lim: np.ndarray, path: str) -> str:
    """The message of the first problem :func:`check_states` found (the slow path)."""
    msg = _FIELDS.range_problem(arrs, N, path) or checks.xy_problem(arrs[0], lim, path,
                                                                      BALL_IDS)
    if msg:
        return msg
    xy, pins, hand, order, scores, to_play, fin, n_fin, lost, n_lost, over = arrs[:11]
    ids = np.arange(N)
    bad = (np.sort(order, 1) != ids).any(1)  # in range: a duplicate is a missing id
    if bad.any():
        return checks.element_problem(path, "order", order, bad, f"the turn order is a "
                                      f"permutation of the player ids 0..{N - 1} (K-1)")
    for name, a, n in (("finished", fin, n_fin), ("lost", lost, n_lost)):
        bad = (a >= 0) != (ids < n[:, None])
        if bad.any():
            t = int(np.argmax(bad.any(1)))
            return (f"{path}.{name}[{t}] = {a[t].tolist()} with {path}.n_{name}[{t}] = "
                    f"{int(n[t])}: the first n_{name} entries are player ids, the rest -1")
    bad = (to_play < 0) & ~over
    if bad.any():
        t = int(np.argmax(bad))
        return (f"{path}.to_play[{t}] = {int(to_play[t])} with {path}.game_over[{t}] = False: "
                "the player to shoot is one still in the game (-1 only once it is over)")
    fl = np.concatenate((fin, lost, to_play[:, None]), 1)
    ranked = np.sort(fl, 1)
    t = int(np.argmax(((ranked[:, 1:] == ranked[:, :-1]) & (ranked[:, 1:] >= 0)).any(1)))
    tp = to_play
    if tp[t] >= 0 and ((fin[t] == tp[t]).any() or (lost[t] == tp[t]).any()):
        return (f"{path}.to_play[{t}] = {int(to_play[t])}, but that player is no longer in the "
                f"game ({path}.finished[{t}] = {fin[t].tolist()}, {path}.lost[{t}] = "
                f"{lost[t].tolist()}): the player to shoot is one still in")
    return (f"{path}.finished[{t}] = {fin[t].tolist()}, {path}.lost[{t}] = "
            f"{lost[t].tolist()}: a player finishes or is lost once")


def empty_states(T: int, N: int, table: str = "keglebillard") -> KegleStates:
    """T unfilled N-player states (zeros; to be written)."""
    return KegleStates(
        xy=np.full((T, N_BALLS, 2), np.nan), pins=np.ones((T, N_PINS), bool),
        hand=np.zeros(T, np.int8), order=np.tile(np.arange(N, dtype=np.int64), (T, 1)),
        scores=np.zeros((T, N), np.int64), to_play=np.zeros(T, np.int64),
        finished=np.full((T, N), -1, np.int64), n_finished=np.zeros(T, np.int64),
        lost=np.full((T, N), -1, np.int64), n_lost=np.zeros(T, np.int64),
        game_over=np.zeros(T, bool), shot=np.zeros(T, np.int64),
        run_no_cushion=np.zeros(T, np.int64), rodt_streak=np.zeros(T, np.int64),
        wait_spot=np.full((T, 2), -1, np.int64), table=table)


def from_game_states(states: Sequence[Any]) -> KegleStates:
    """A batch from rules ``GameState`` values (all with the same number of players and
    table); a :class:`KegleStates` is returned as is."""
    if isinstance(states, KegleStates):
        return states
    states = list(states)
    if not states:
        raise ValueError("from_game_states needs at least one state")
    # the same value repeated (a state once per candidate strike) is converted once
    index: dict[int, int] = {}
    uniq, inverse = [], np.empty(len(states), np.int64)
    for t, s in enumerate(states):
        k = index.get(id(s))
        if k is None:
            k = index[id(s)] = len(uniq)
            uniq.append(s)
        inverse[t] = k
    try:
        out = _convert(uniq)
    except ValueError:
        if len(uniq) < len(states):
            _convert(states)  # raises again, naming the state by the caller's index
        raise
    return out if len(uniq) == len(states) else out.take(inverse)


def _convert(states: list) -> KegleStates:
    """The batch of the rules ``GameState`` values ``states``, checked as the JSON form is: a
    value the cast to the flow's dtype would change (a score 2.5, a pin ``"x"`` or None) is
    refused by :func:`check_states`, and the balls must lie legally (:func:`check_state_layout`).
    The constructor takes any Python values; this is where they enter the game layer."""
    N = states[0].n_players
    table = states[0].table
    for t, s in enumerate(states):
        if s.n_players != N or s.table != table:
            raise ValueError(f"state {t} has {s.n_players} players on {s.table!r}; the batch "
                             f"{N} on {table!r}")
    nan = (np.nan, np.nan)
    cols = {
        "xy": [[nan if pos is None else pos for pos in s.balls] for s in states],
        "pins": [s.pins for s in states],
        "hand": [_HAND_CODE[s.ball_in_hand] for s in states],
        "order": [s.order for s in states],
        "scores": [s.scores for s in states],
        "to_play": [-1 if s.to_play is None else s.to_play for s in states],
        "finished": [(*s.finished, *(-1,) * (N - len(s.finished))) for s in states],
        "n_finished": [len(s.finished) for s in states],
        "lost": [(*s.lost, *(-1,) * (N - len(s.lost))) for s in states],
        "n_lost": [len(s.lost) for s in states],
        "game_over": [s.game_over for s in states],
        "shot": [s.shot for s in states],
        "run_no_cushion": [s.run_no_cushion for s in states],
        "rodt_streak": [s.rodt_streak for s in states],
        "wait_spot": [s.wait_spots for s in states],
    }
    arrays = {}
    for name, values in cols.items():
        try:  # numpy picks the dtype: check_states then refuses one that does not cast exactly
            arrays[name] = np.array(values)
        except (TypeError, ValueError, OverflowError) as exc:  # ragged, or an int past 64 bits
            raise ValueError(f"states.{name}: the GameState values {checks._short(values)} do "
                             f"not form an array ({str(exc).split(chr(10))[0]})") from None
    out = check_states(KegleStates(**arrays, table=table), path="states")
    check_state_layout(out)
    return out


def check_state_layout(states: KegleStates, path: str = "states") -> None:
    """The balls on the table lie legally (on the cloth, clear of the cushions, jaws, pockets,
    standing pins and each other): the check of ``GameState.from_dict`` and the physics
    (:func:`cuegym.physics.layout.layout_problem`), one compiled pass over the batch.

    Raises:
        RefereeInputError: ``states[t]: 'balls.white' and 'balls.spotted' overlap ...``.
    """
    from cuegym.configs import default_params
    from cuegym.physics.layout import layout_problem
    from cuegym.rules.keglebillard_config import default_table

    present = ~np.isnan(states.xy[:, :, 0])
    problem = layout_problem(default_table(states.table), default_params("keglebillard"),
                             np.where(present[..., None], states.xy, 0.0), present, states.pins,
                             tuple(f"balls.{b}" for b in BALL_IDS), pin_names=PIN_IDS)
    if problem is not None:
        t, msg = problem
        raise RefereeInputError(msg.replace(f"table {t}", f"{path}[{t}]", 1))


@dataclass
class KegleOutcomes:
    """What one shot per table did (the fields of ``ShotOutcome``, as arrays; T tables).

    Per table (T,): shooter; played (False: a K-19 placement that could not be played, no
    shot); points (K-9a), penalty (0 unless a foul), foul, shooter_points, skaeve (credited to
    each recipient); rodt, blegt, king_alone, clean16 (K-6..K-8); win (K-20); next_player
    (-1 when over); lost_now (the shooter, out by K-16 ``unsporting_loss``, or -1); game_over;
    overflow (physics end code); hand (the next player's ball in hand, a ``HAND_*`` code);
    ball_in_hand (the referee's K-19 flag: the shot gives the next player ball in hand).
    Per table and more:
        fouls (T, F) bool, columns :data:`OUTCOME_FOULS`; skaeve_to (T, N) bool by player id;
        finished_now (T, N) int64 players who finished in this shot, in order, -1 padded
        (n_finished_now (T,)); scores (T, N) after the shot.
        pins_toppled (T, 5) by balls, pin_toppler (T, 5) ball bit masks (K-P3), pins_injected
        (T, 5) by K-16 events; pins_restood (T, 5) stood up again after the shot, pins_up (T, 5)
        standing after it (K-P7).
        pocketed (T, 3) pocketed or off the table; whites_spotted (T, 2) white/spotted put on a
        spot, whites_waiting (T, 2) waiting (K-18).
        strike (T, 5) executed strike; place (T, 2) the red's placement (NaN: none).
        order (T, N) turn order; next_xy (T, 3, 2) the balls after the shot (spotting done);
        ranking (T, N) the final ranking once over (-1 padded).
    ``labels`` holds per-table tuples of extra foul labels (injected K-16 events), or None.
    ``sim`` is the physics result of the played tables (or None) and ``row`` (T,) each table's
    row in it (-1: not simulated).
    """

    shooter: np.ndarray
    played: np.ndarray
    points: np.ndarray
    penalty: np.ndarray
    foul: np.ndarray
    fouls: np.ndarray
    shooter_points: np.ndarray
    skaeve: np.ndarray
    skaeve_to: np.ndarray
    rodt: np.ndarray
    blegt: np.ndarray
    king_alone: np.ndarray
    clean16: np.ndarray
    win: np.ndarray
    pins_toppled: np.ndarray
    pin_toppler: np.ndarray
    pins_injected: np.ndarray
    pins_restood: np.ndarray
    pins_up: np.ndarray
    pocketed: np.ndarray
    whites_spotted: np.ndarray
    whites_waiting: np.ndarray
    hand: np.ndarray
    next_player: np.ndarray
    finished_now: np.ndarray
    n_finished_now: np.ndarray
    lost_now: np.ndarray
    game_over: np.ndarray
    scores: np.ndarray
    overflow: np.ndarray
    strike: np.ndarray
    place: np.ndarray
    order: np.ndarray
    next_xy: np.ndarray
    ranking: np.ndarray
    ball_in_hand: np.ndarray
    labels: list | None = None
    sim: Any = None
    row: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.shooter.shape[0])

    def foul_labels(self, t: int) -> tuple[str, ...]:
        """Table t's foul labels, rule id first (``K-12``, ``K-16:touche``,
        ``K-19:placement``), in the referee's order."""
        row = self.fouls[t]
        k16 = OUTCOME_FOULS.index("K-16")
        out = [OUTCOME_FOULS[c] for c in range(len(FOUL_COLUMNS)) if row[c] and c != k16]
        if row[k16]:
            out += list(self.labels[t]) if self.labels is not None else ["K-16"]
        out += [OUTCOME_FOULS[c] for c in range(len(FOUL_COLUMNS), len(OUTCOME_FOULS))
                if row[c]]
        return tuple(dict.fromkeys(out))

    def outcome(self, t: int):
        """Table ``t`` as a rules :class:`~cuegym.rules.keglebillard_game.ShotOutcome`, or None
        where it did not shoot (inactive, or its game over; as ``GolfOutcomes.outcome``)."""
        from cuegym.rules.keglebillard_game import ShotOutcome

        shooter = int(self.shooter[t])
        if shooter < 0:
            return None
        order = self.order[t].tolist()
        i = order.index(shooter)
        after = order[i + 1:] + order[:i]
        to = tuple(p for p in after if self.skaeve_to[t, p])
        over = bool(self.game_over[t])
        if not self.played[t]:
            return ShotOutcome(
                shooter=shooter, played=False, points=0, penalty=int(self.penalty[t]),
                foul=True, fouls=("K-19:placement",), shooter_points=0,
                skaeve=int(self.skaeve[t]), skaeve_to=to,
                ball_in_hand=HAND_NAMES[int(self.hand[t])],
                next_player=None if over else int(self.next_player[t]),
                finished=tuple(self.finished_now[t, :self.n_finished_now[t]].tolist()),
                game_over=over, ranking=self._ranking(t), scores=tuple(self.scores[t].tolist()))
        toppled = {}
        for p in range(N_PINS):
            if self.pins_toppled[t, p]:
                bits = int(self.pin_toppler[t, p])
                toppled[PIN_IDS[p]] = tuple(BALL_IDS[b] for b in range(N_BALLS) if bits >> b & 1)
            elif self.pins_injected[t, p]:
                toppled[PIN_IDS[p]] = ("injected",)
        nxt = self.next_xy[t].tolist()
        lost = int(self.lost_now[t])
        return ShotOutcome(
            shooter=shooter, played=True, points=int(self.points[t]),
            penalty=int(self.penalty[t]), foul=bool(self.foul[t]), fouls=self.foul_labels(t),
            shooter_points=int(self.shooter_points[t]), skaeve=int(self.skaeve[t]),
            skaeve_to=to, rodt=bool(self.rodt[t]), blegt=bool(self.blegt[t]),
            king_alone=bool(self.king_alone[t]), clean16=bool(self.clean16[t]),
            pins_toppled=toppled,
            whites_pocketed=tuple(BALL_IDS[b] for b in WHITES if self.pocketed[t, b]),
            red_pocketed=bool(self.pocketed[t, 0]), win=bool(self.win[t]),
            pins_restood=tuple(PIN_IDS[p] for p in range(N_PINS) if self.pins_restood[t, p]),
            pins_waiting=tuple(PIN_IDS[p] for p in range(N_PINS) if not self.pins_up[t, p]),
            whites_spotted={BALL_IDS[b]: (nxt[b][0], nxt[b][1]) for b in WHITES
                            if self.whites_spotted[t, b - 1]},
            whites_waiting=tuple(BALL_IDS[b] for b in WHITES if self.whites_waiting[t, b - 1]),
            ball_in_hand=HAND_NAMES[int(self.hand[t])],
            next_player=None if over else int(self.next_player[t]),
            finished=tuple(self.finished_now[t, :self.n_finished_now[t]].tolist()),
            lost=None if lost < 0 else lost, game_over=over, ranking=self._ranking(t),
            scores=tuple(self.scores[t].tolist()), overflow=int(self.overflow[t]))

    def _ranking(self, t: int) -> tuple[int, ...] | None:
        if not self.game_over[t]:
            return None
        r = self.ranking[t]
        return tuple(r[r >= 0].tolist())

    def outcomes(self) -> list:
        return [self.outcome(t) for t in range(len(self))]

