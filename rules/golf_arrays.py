"""Array bundles of the compiled golfbillard referee: batched states, event logs, outcomes.

Every bundle holds arrays with a leading table axis T. :class:`GolfStates` is the batched game
state (one row per table, the fields of :class:`~cuegym.rules.golf_state.GolfState`);
:class:`GolfLog` the physics event log (``SimResult`` fields, docs/physics_api.md);
:class:`GolfOutcomes` what the strokes did; :class:`GolfInputs` what physics cannot know
(injected events, the duo partner who struck, the opponent's choices, random draws). The kernels
take these NamedTuples (:class:`StateArrays`, :class:`OutcomeArrays`, GolfLog, GolfInputs)
wrapped as structrefs (:mod:`cuegym.rules.golf_structs`); the batches people use are
dataclasses whose ``arrays()`` is that view (no copy). The kernels index with the states' fields
without bounds checks: a caller's batch is checked first (:func:`check_states`, the game layer
``cuegym.games.golf``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import numpy as np

from cuegym.games import checks

from .inputs import events_used

N_SIDES = 2
BALLS_PER_SIDE = 5
N_BALLS = N_SIDES * BALLS_PER_SIDE
#: Side of each ball index: w1..w5 side 0, r1..r5 side 1.
SIDE_OF = np.repeat(np.arange(N_SIDES), BALLS_PER_SIDE)

MAX_FOULS = 32  # fouls one stroke can hold (injected G-18 fouls included)
MAX_INJECTED = 16  # injected events per stroke
MAX_NOTES = 20  # notes per stroke
N_DRAWS = 16  # random draws per stroke for the ``random`` policies

# GolfRules as a float vector (``rules_vector``): indices.
(R_HARD, R_RAISED, R_MASSE, R_G10ANY, R_GAP, R_BLOCKALL, R_REPLACEOFF, R_SPOT, R_PICK, R_DUO,
 R_DEC0, R_DEC1, R_NPT, R_NPW, R_GTW, R_MAXG, R_ALT) = range(17)
N_RULES = 17


class StateArrays(NamedTuple):
    """T golfbillard tables' states (each field as in :class:`GolfState`, table axis first).

    Attributes:
        xy: (T, 10, 2) float ball centres [m], NaN for a scored ball. to_move: (T,) side.
        phase: (T,) 0 opening, 1 play, 2 over. kader: (T,) bool (G-20).
        duty: (T, 10) bool (G-14). duty_met: (T,) bool. turn_strokes: (T,). turn_scored: (T,)
        on_spot: (T, 10) spot 1..5 or 0 (G-26). fouled_spots: (T, 2, 5) bool.
        turns, idle_turns: (T,) (G-5). winner: (T,) last game's winner (-1, 0, 1, 2 draw).
        games_won: (T, 2). game_no: (T,). match_winner: (T,) -1 / 0 / 1 / 2.
        partner, openers, first_openers: (T, 2) duo partners (G-31). stroke_no, seed: (T,).
    """

    xy: np.ndarray
    to_move: np.ndarray
    phase: np.ndarray
    kader: np.ndarray
    duty: np.ndarray
    duty_met: np.ndarray
    turn_strokes: np.ndarray
    turn_scored: np.ndarray
    on_spot: np.ndarray
    fouled_spots: np.ndarray
    turns: np.ndarray
    idle_turns: np.ndarray
    winner: np.ndarray
    games_won: np.ndarray
    game_no: np.ndarray
    match_winner: np.ndarray
    partner: np.ndarray
    openers: np.ndarray
    first_openers: np.ndarray
    stroke_no: np.ndarray
    seed: np.ndarray


@dataclass
class GolfStates:
    """A batch of T golfbillard states (fields and units: :class:`StateArrays`).

    ``len(states)`` is T; ``states[t]`` (and iteration) gives the per-table
    :class:`~cuegym.rules.golf_state.GolfState`; ``arrays()`` the kernels' view.
    """

    xy: np.ndarray
    to_move: np.ndarray
    phase: np.ndarray
    kader: np.ndarray
    duty: np.ndarray
    duty_met: np.ndarray
    turn_strokes: np.ndarray
    turn_scored: np.ndarray
    on_spot: np.ndarray
    fouled_spots: np.ndarray
    turns: np.ndarray
    idle_turns: np.ndarray
    winner: np.ndarray
    games_won: np.ndarray
    game_no: np.ndarray
    match_winner: np.ndarray
    partner: np.ndarray
    openers: np.ndarray
    first_openers: np.ndarray
    stroke_no: np.ndarray
    seed: np.ndarray

    def arrays(self) -> StateArrays:
        """The kernels' view of the same arrays."""
        return StateArrays(*(getattr(self, f) for f in StateArrays._fields))

    def _parts(self) -> Iterator[np.ndarray]:
        return (getattr(self, f.name) for f in fields(self))

    def __len__(self) -> int:
        return int(self.to_move.shape[0])

    @property
    def n(self) -> int:
        return len(self)

    def copy(self) -> GolfStates:
        """An independent copy (array copies)."""
        return GolfStates(*(np.array(a, copy=True) for a in self._parts()))

    def take(self, idx: Any) -> GolfStates:
        """The tables ``idx`` (an index array or mask), as a new batch."""
        return GolfStates(*(np.ascontiguousarray(a[idx]) for a in self._parts()))

    def put(self, idx: Any, other: GolfStates) -> None:
        """Write ``other`` into tables ``idx`` in place (another type or number of tables is
        refused before anything is written)."""
        if not isinstance(other, GolfStates):
            raise ValueError(f"put takes a GolfStates batch, got {type(other).__name__}")
        checks.put_fields({f.name: getattr(self, f.name) for f in fields(self)},
                   {f.name: getattr(other, f.name) for f in fields(self)}, idx, len(self))

    @staticmethod
    def concat(parts: Sequence[GolfStates]) -> GolfStates:
        """One batch of the tables of ``parts``, in order."""
        return GolfStates(*(np.concatenate(list(a)) for a in zip(*(p._parts() for p in parts),
                                                                  strict=True)))

    @property
    def over(self) -> np.ndarray:
        """(T,) bool: the match is over."""
        from .golf_codes import P_OVER

        return self.phase == P_OVER

    @property
    def balls_left(self) -> np.ndarray:
        """(T, 2) balls each side has on the table."""
        on = ~np.isnan(self.xy[..., 0])
        return on.reshape(len(self), N_SIDES, BALLS_PER_SIDE).sum(-1)

    def state(self, t: int) -> Any:
        """Table t as a :class:`~cuegym.rules.golf_state.GolfState`."""
        from .golf_views import unpack_state

        return unpack_state(self, int(t))

    def __getitem__(self, t: int) -> Any:
        return self.state(checks.table_index(t, len(self)))

    def __iter__(self) -> Iterator[Any]:
        return (self.state(t) for t in range(len(self)))

    def states(self) -> list:
        """Every table as a GolfState."""
        return list(self)

    def problem(self, half: Any = None) -> str | None:
        """Why :func:`check_states` refuses this batch (``half``: the table's half length and
        width [m]), or None."""
        try:
            check_states(self, half)
        except ValueError as exc:
            return str(exc)
        return None


_STATE_DTYPES = {"xy": np.float64, "kader": np.bool_, "duty": np.bool_, "duty_met": np.bool_,
                 "turn_scored": np.bool_, "fouled_spots": np.bool_}


_COUNT = (0, checks.INT_MAX, "a count is >= 0")
_PARTNER = (0, 1, "a duo partner is 0 or 1 (G-31)")
_RESULT = "-1 (none yet), 0, 1 or 2 (a draw)"
#: The fields :func:`check_states` checks: trailing shape, the kernels' dtype, integer range.
STATE_FIELDS = (
    ("xy", (N_BALLS, 2), np.float64, None),
    ("to_move", (), np.int64, (0, 1, "the side to move is 0 or 1")),
    ("phase", (), np.int64, (0, 2, "a phase is 0 (opening), 1 (play) or 2 (over)")),
    ("kader", (), np.bool_, None),
    ("duty", (N_BALLS,), np.bool_, None),
    ("duty_met", (), np.bool_, None),
    ("turn_strokes", (), np.int64, _COUNT),
    ("turn_scored", (), np.bool_, None),
    ("on_spot", (N_BALLS,), np.int64, (0, 5, "a penalty spot is 0 (none) or 1..5 (G-26)")),
    ("fouled_spots", (N_SIDES, 5), np.bool_, None),
    ("turns", (), np.int64, _COUNT),
    ("idle_turns", (), np.int64, _COUNT),
    ("winner", (), np.int64, (-1, 2, f"the last game's winner is {_RESULT}")),
    ("games_won", (N_SIDES,), np.int64, _COUNT),
    ("game_no", (), np.int64, (0, checks.INT_MAX, "the game of the match is >= 0")),
    ("match_winner", (), np.int64, (-1, 2, f"the match winner is {_RESULT}")),
    ("partner", (N_SIDES,), np.int64, _PARTNER),
    ("openers", (N_SIDES,), np.int64, _PARTNER),
    ("first_openers", (N_SIDES,), np.int64, _PARTNER),
    ("stroke_no", (), np.int64, _COUNT),
    ("seed", (), np.int64, (0, checks.INT_MAX, "a seed is >= 0")),
)
_FIELDS = checks.BatchFields(STATE_FIELDS)


def check_states(states: GolfStates, half: Any = None, ids: Sequence[str] | None = None,
                 path: str = "states") -> GolfStates:
    """``states`` checked where a user's batch enters the game layer, before anything reads it.

    What the compiled referee indexes with or would silently misread: every field an array
    of the documented shape (T tables first; :class:`StateArrays`) and of a dtype that casts
    to the kernels' without changing a value (integers for the integer fields, bool or 0/1
    for the flags, real numbers for ``xy``); ``to_move`` 0/1, ``phase`` 0..2, ``on_spot``
    0..5, ``winner`` and ``match_winner`` -1..2, duo partners 0/1, counts, ``game_no`` and
    ``seed`` >= 0; each ball NaN, NaN (off the table) or finite and, with ``half`` (the
    table's half length and width [m], its cushion-nose rectangle), inside it. Not the
    rules' consistency (``cuegym.rules.golf_state.check_state`` checks one state whole).
    A few numpy operations over the batch (no loop over tables).

    Returns:
        ``states`` itself, or, where a field had another dtype, a batch with that field
        converted (never the caller's arrays changed).

    Raises:
        ValueError: one line naming the field, the table (and ball) and the value, e.g.
            ``states.on_spot[0, 0] = 9: a penalty spot is 0 (none) or 1..5 (G-26)``.
    """
    T = checks.lead_length(states, "to_move", path)
    arrs, own = _FIELDS.arrays(states, T, 0, path)
    lim = checks.bounds(half)
    if _FIELDS.out_of_range(arrs, T, 0, lim) or checks.half_nan(arrs[0]):
        ids = ids or [f"ball {b}" for b in range(N_BALLS)]
        raise ValueError(_FIELDS.range_problem(arrs, 0, path)
                         or checks.xy_problem(arrs[0], lim, path, ids))
    return states if own else GolfStates(**dict(zip(_FIELDS.names, arrs, strict=True)))


def empty_states(T: int) -> GolfStates:
    """Zero-filled states for T tables (every field allocated)."""
    shapes = {"xy": (T, N_BALLS, 2), "duty": (T, N_BALLS), "on_spot": (T, N_BALLS),
              "fouled_spots": (T, N_SIDES, 5), "games_won": (T, N_SIDES),
              "partner": (T, N_SIDES), "openers": (T, N_SIDES), "first_openers": (T, N_SIDES)}
    return GolfStates(**{f: np.zeros(shapes.get(f, (T,)), _STATE_DTYPES.get(f, np.int64))
                         for f in StateArrays._fields})


class GolfLog(NamedTuple):
    """The physics event log of T tables (``SimResult`` fields, docs/physics_api.md)."""

    ev_type: np.ndarray
    ev_time: np.ndarray
    ev_i: np.ndarray
    ev_j: np.ndarray
    ev_state: np.ndarray
    ev_motion: np.ndarray
    n_events: np.ndarray
    rvw0: np.ndarray
    motion0: np.ndarray
    rvw: np.ndarray
    pocket: np.ndarray
    t_end: np.ndarray
    overflow: np.ndarray


def _is_kernel_ready(a: Any, dtype: Any) -> bool:
    return (type(a) is np.ndarray and a.dtype == dtype and a.flags.c_contiguous
            and a.flags.writeable)


def kernel_ready(a: Any, dtype: Any) -> np.ndarray:
    """``a`` as a kernel takes it: C-contiguous, writeable, of ``dtype`` (one compiled
    signature); an array that already is one is returned as it is (``np.require``'s checks
    cost about a microsecond an array, paid on every field of every batched call)."""
    return a if _is_kernel_ready(a, dtype) else np.require(a, dtype, ["C", "W"])


def golf_log(log) -> GolfLog:
    """The :class:`GolfLog` view of a SimResult-like object (C-contiguous, writeable, kernel
    dtypes: one compiled signature). The event arrays' dtypes are the physics' own (int8 codes,
    int32 indices), so a SimResult's log is read where it lies: converting them copied up to
    12 KiB a table whenever one table's log was long. An event array that needs another dtype
    is converted only up to the longest log (the padding is never read), and refused if a
    value does not fit."""
    n_events = np.asarray(log.n_events)
    T = int(n_events.shape[0])
    ov = getattr(log, "overflow", None)
    K = events_used(n_events, np.shape(log.ev_type)[1])

    def events(name, dtype):  # an array the kernel can read as it is stays whole (no copy)
        a = np.asarray(getattr(log, name))
        if _is_kernel_ready(a, dtype):
            return a
        a = a[:, :K]
        out = np.ascontiguousarray(a, dtype)
        if np.issubdtype(dtype, np.integer) and not np.array_equal(out, a):
            raise ValueError(f"log {name}: values outside {np.dtype(dtype).name} (an event "
                             f"code or a ball index), e.g. {a[out != a][0]!r}")
        return out

    return GolfLog(
        ev_type=events("ev_type", np.int8), ev_time=events("ev_time", np.float64),
        ev_i=events("ev_i", np.int32), ev_j=events("ev_j", np.int32),
        ev_state=events("ev_state", np.float64), ev_motion=events("ev_motion", np.int8),
        n_events=kernel_ready(log.n_events, np.int64),
        rvw0=kernel_ready(log.rvw0, np.float64), motion0=kernel_ready(log.motion0, np.int64),
        rvw=kernel_ready(log.rvw, np.float64), pocket=kernel_ready(log.pocket, np.int64),
        t_end=kernel_ready(log.t_end, np.float64),
        overflow=np.zeros(T, np.int64) if ov is None else kernel_ready(ov, np.int64))


class GolfInputs(NamedTuple):
    """What a stroke's physics cannot know, per table.

    Attributes:
        cue_ball: (T, 2) struck balls; column 1 is side 1's opening ball, -1 for a play stroke.
        cue: (T, 2, 5) strikes V0, phi, theta, a, b (theta feeds G-10 (b)).
        players: (T, 2) duo partner who struck (play: column 0; opening: the two openers);
            -1 when not given.
        inj_n: (T,) injected events; inj_type, inj_ball (-1 none), inj_goal (-1: a cap-cushion
            jam), inj_kind (G-18 kind code), inj_side (-1 none): (T, K) int; inj_time: (T, K)
            [s]. inj_rn: (T, K) balls a G-18 deflect event restores (RF); inj_rb: (T, K, 10)
            those balls; inj_rxy: (T, K, 10, 2) where they go back [m]. K slots a table:
            :data:`MAX_INJECTED` from ``make_inputs``, 0 for plain strokes (``inj_n`` <= K).
        spot_n: (T,) penalty-spot choices given (-1: none given); spot_choice: (T, 10).
        pick: (T,) the G-25 ball picked (-1: none given).
        draws: (T, N_DRAWS) uniform [0, 1) draws for the ``random`` policies.
        physics: (T,) bool: paths from the physics motion laws (else straight lines).
    """

    cue_ball: np.ndarray
    cue: np.ndarray
    players: np.ndarray
    inj_n: np.ndarray
    inj_type: np.ndarray
    inj_ball: np.ndarray
    inj_goal: np.ndarray
    inj_kind: np.ndarray
    inj_side: np.ndarray
    inj_time: np.ndarray
    inj_rn: np.ndarray
    inj_rb: np.ndarray
    inj_rxy: np.ndarray
    spot_n: np.ndarray
    spot_choice: np.ndarray
    pick: np.ndarray
    draws: np.ndarray
    physics: np.ndarray


def plain_inputs(cue_ball: np.ndarray, cue: np.ndarray, players: np.ndarray | None = None,
                 physics: Any = True, draws: np.ndarray | None = None,
                 slots: int = 0) -> GolfInputs:
    """Inputs without injected events or choices (the hot path; ``make_inputs`` fills these in).

    ``physics``: paths from the physics, one bool or (T,) bools. ``slots``: the injected-event
    axis (``make_inputs`` asks for :data:`MAX_INJECTED`); 0 on the hot path, where the slots
    would be 4 KiB a table of zeros the kernels never read (they stop at ``inj_n``)."""
    T = cue_ball.shape[0]
    K = slots
    return GolfInputs(
        cue_ball=np.ascontiguousarray(cue_ball, np.int64),
        cue=np.ascontiguousarray(cue, np.float64),
        players=(np.full((T, 2), -1, np.int64) if players is None
                 else np.ascontiguousarray(players, np.int64)),
        inj_n=np.zeros(T, np.int64), inj_type=np.zeros((T, K), np.int64),
        inj_ball=np.full((T, K), -1, np.int64), inj_goal=np.full((T, K), -1, np.int64),
        inj_kind=np.zeros((T, K), np.int64), inj_side=np.full((T, K), -1, np.int64),
        inj_time=np.zeros((T, K)), inj_rn=np.zeros((T, K), np.int64),
        inj_rb=np.zeros((T, K, N_BALLS), np.int64), inj_rxy=np.zeros((T, K, N_BALLS, 2)),
        spot_n=np.full(T, -1, np.int64),
        spot_choice=np.zeros((T, N_BALLS), np.int64), pick=np.full(T, -1, np.int64),
        draws=np.zeros((T, N_DRAWS)) if draws is None else np.ascontiguousarray(draws),
        physics=np.broadcast_to(np.asarray(physics, bool), (T,)).copy())


class OutcomeArrays(NamedTuple):
    """What T strokes did (play strokes and openings; unused fields stay at their fill).

    Attributes:
        opening: (T,) bool: the row is a G-3 opening. shooter, cue_ball: (T,).
        kader: (T,) played under kader rules (G-20).
        n_fouls: (T,); f_rule, f_kind: (T, F) codes (``golf_codes``); f_time: (T, F) [s];
            f_nb: (T, F) balls named; f_balls: (T, F, 10); f_det: (T, F, 4) detail values
            (an opening foul's [..., 1]: the side that committed it). Fouls in G-19a order;
            the first is penalised.
        cons: (T,) consequence bits. n_drops, drop_ball, drop_goal, drop_time: drops by time.
        scored: (T, 2). scored_mask: (T, 10). valid_own: (T,). replaced: (T, 10) bool.
        n_spotted, spot_ball, spot_k: balls put on penalty spots, in order (spot 0: free point).
        n_into, into_ball: balls put into their goal (G-17). turn_kept, duty_met: (T,) bool.
        left_kader: (T,) -1 not asked, 0 / 1. game_over: (T,) bool, winner: (T,) -1 / 0 / 1:
        the referee's game end (G-4, G-17a); a G-5 draw is the flow's, in the next states.
        xy: (T, 10, 2) after the stroke. on_spot: (T, 10). fouled_spots: (T, 2, 5).
        n_notes, note_code, note_ball: notes. overflow: (T,) physics end code.
        op_balls, op_scored, op_crossed, op_dist: (T, 2) the opening's balls, who scored, who
            crossed x = 0, final distance to the attack goal (inf when gone).
        op_first: (T,) side taking the first turn (-1: repeat). op_repeat, op_replaced: (T,)
        op_reason: (T,) reason code. err, err_a, err_b: (T,) error code and its values.
    """

    opening: np.ndarray
    shooter: np.ndarray
    cue_ball: np.ndarray
    kader: np.ndarray
    n_fouls: np.ndarray
    f_rule: np.ndarray
    f_kind: np.ndarray
    f_time: np.ndarray
    f_nb: np.ndarray
    f_balls: np.ndarray
    f_det: np.ndarray
    cons: np.ndarray
    n_drops: np.ndarray
    drop_ball: np.ndarray
    drop_goal: np.ndarray
    drop_time: np.ndarray
    scored: np.ndarray
    scored_mask: np.ndarray
    valid_own: np.ndarray
    replaced: np.ndarray
    n_spotted: np.ndarray
    spot_ball: np.ndarray
    spot_k: np.ndarray
    n_into: np.ndarray
    into_ball: np.ndarray
    turn_kept: np.ndarray
    duty_met: np.ndarray
    left_kader: np.ndarray
    game_over: np.ndarray
    winner: np.ndarray
    xy: np.ndarray
    on_spot: np.ndarray
    fouled_spots: np.ndarray
    n_notes: np.ndarray
    note_code: np.ndarray
    note_ball: np.ndarray
    overflow: np.ndarray
    op_balls: np.ndarray
    op_scored: np.ndarray
    op_crossed: np.ndarray
    op_dist: np.ndarray
    op_first: np.ndarray
    op_repeat: np.ndarray
    op_replaced: np.ndarray
    op_reason: np.ndarray
    err: np.ndarray
    err_a: np.ndarray
    err_b: np.ndarray


def empty_outcomes(T: int) -> OutcomeArrays:
    """Outcome arrays for T tables (to be filled by the kernels)."""
    F, B = MAX_FOULS, N_BALLS
    i64, f64, b1 = np.int64, np.float64, np.bool_
    spec = {
        "opening": ((T,), b1), "shooter": ((T,), i64), "cue_ball": ((T,), i64),
        "kader": ((T,), b1), "n_fouls": ((T,), i64), "f_rule": ((T, F), i64),
        "f_kind": ((T, F), i64), "f_time": ((T, F), f64), "f_nb": ((T, F), i64),
        "f_balls": ((T, F, B), i64), "f_det": ((T, F, 4), f64), "cons": ((T,), i64),
        "n_drops": ((T,), i64), "drop_ball": ((T, B), i64), "drop_goal": ((T, B), i64),
        "drop_time": ((T, B), f64), "scored": ((T, 2), i64), "scored_mask": ((T, B), b1),
        "valid_own": ((T,), i64), "replaced": ((T, B), b1), "n_spotted": ((T,), i64),
        "spot_ball": ((T, B), i64), "spot_k": ((T, B), i64), "n_into": ((T,), i64),
        "into_ball": ((T, B), i64), "turn_kept": ((T,), b1), "duty_met": ((T,), b1),
        "left_kader": ((T,), i64), "game_over": ((T,), b1), "winner": ((T,), i64),
        "xy": ((T, B, 2), f64), "on_spot": ((T, B), i64), "fouled_spots": ((T, 2, 5), b1),
        "n_notes": ((T,), i64), "note_code": ((T, MAX_NOTES), i64),
        "note_ball": ((T, MAX_NOTES), i64), "overflow": ((T,), i64),
        "op_balls": ((T, 2), i64), "op_scored": ((T, 2), b1), "op_crossed": ((T, 2), b1),
        "op_dist": ((T, 2), f64), "op_first": ((T,), i64), "op_repeat": ((T,), b1),
        "op_replaced": ((T,), b1), "op_reason": ((T,), i64), "err": ((T,), i64),
        "err_a": ((T,), i64), "err_b": ((T,), i64),
    }
    return OutcomeArrays(**{k: np.zeros(s, d) for k, (s, d) in spec.items()})
