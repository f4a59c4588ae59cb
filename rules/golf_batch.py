"""Run the compiled golfbillard referee on a batch: rules as a vector, errors as ValueError.

:func:`referee` is the one call that scores T strokes (openings and play strokes mixed) and
advances T states: :class:`~cuegym.rules.golf_arrays.GolfStates` and a physics log in,
:class:`~cuegym.rules.golf_arrays.OutcomeArrays` and the next GolfStates out. The game layer
(:mod:`cuegym.games.golf`), the JSON CLI and the per-table views of
:mod:`cuegym.rules.golfbillard` all go through it.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from cuegym.physics.parallel import pool_turn

from .golf_arrays import (
    N_RULES,
    R_ALT,
    R_BLOCKALL,
    R_DEC0,
    R_DEC1,
    R_DUO,
    R_G10ANY,
    R_GAP,
    R_GTW,
    R_HARD,
    R_MASSE,
    R_MAXG,
    R_NPT,
    R_NPW,
    R_PICK,
    R_RAISED,
    R_REPLACEOFF,
    R_SPOT,
    GolfInputs,
    GolfStates,
    OutcomeArrays,
    StateArrays,
    empty_outcomes,
    empty_states,
    golf_log,
    kernel_ready,
    plain_inputs,
)
from .golf_codes import (
    E_DEFLECT_NEEDS,
    E_INJECTED_DROPPED,
    E_NO_FREE_POINT,
    E_NONE,
    E_NOT_ON_TABLE,
    E_OPENING_FOUL_SIDE,
    E_PICK_MISSING,
    E_PICK_NOT_OWN,
    E_RESTORE_CAP,
    E_RESTORE_GOAL,
    E_RESTORE_NOT_ON_TABLE,
    E_RESTORE_OFF_CLOTH,
    E_RESTORE_OVERLAP,
    E_SPOT_NOT_FREE,
    E_SPOTS_MISSING,
    E_SPOTS_RAN_OUT,
    KINDS,
    P_OVER,
    P_PLAY,
    PICK_POLICIES,
    SPOT_POLICIES,
)
from .golf_flow import (
    finish_games_kernel,
    new_games_kernel,
    play_kernel,
    play_serial,
    start_turns_kernel,
)
from .golf_structs import geometry_struct, struct

_STATE_TYPES = {f: a.dtype for f, a in zip(StateArrays._fields, empty_states(1).arrays(),
                                            strict=True)}
_INPUT_TYPES = {f: a.dtype for f, a in zip(GolfInputs._fields,
                                           plain_inputs(np.zeros((1, 2), np.int64),
                                                        np.zeros((1, 2, 5))), strict=True)}


def _kernel_arrays(nt: Any, dtypes: dict) -> Any:
    """A NamedTuple of arrays as the kernels take it: C-contiguous, writeable, the expected
    dtypes (so there is one compiled signature, whoever built the arrays)."""
    return type(nt)(*(kernel_ready(a, dtypes[f]) for f, a in zip(nt._fields, nt, strict=True)))


def rules_vector(rules: Any) -> np.ndarray:
    """A :class:`~cuegym.rules.golf_config.GolfRules` as the kernels' float vector."""
    rp = np.zeros(N_RULES)
    rp[R_HARD] = rules.hard_speed
    rp[R_RAISED] = rules.raised_cue_deg
    rp[R_MASSE] = rules.masse_turn_deg
    rp[R_G10ANY] = rules.any_direction
    rp[R_GAP] = rules.freeze_gap
    rp[R_BLOCKALL] = rules.all_balls
    rp[R_REPLACEOFF] = rules.replace_on_off_table
    rp[R_SPOT] = SPOT_POLICIES.index(rules.spot_policy)
    rp[R_PICK] = PICK_POLICIES.index(rules.pick_policy)
    rp[R_DUO] = rules.duo
    rp[R_DEC0], rp[R_DEC1] = rules.deciding_openers
    rp[R_NPT] = rules.no_progress_turns
    rp[R_NPW] = rules.no_progress_window
    rp[R_GTW] = rules.games_to_win
    rp[R_MAXG] = rules.max_games
    rp[R_ALT] = rules.opening == "alternate"
    return rp


def _check_injected(states: GolfStates, inputs: GolfInputs) -> None:
    """The injected events: no more per table than the inputs have slots for; and in play the
    offender of an injected G-18 foul is the side at the table: a ``side`` naming the other
    one would penalise the shooter for it, so it is refused (the opening reads ``side``, G-3)."""
    K = inputs.inj_side.shape[1]
    n = np.asarray(inputs.inj_n)
    bad_n = np.flatnonzero((n < 0) | (n > K))
    if len(bad_n):  # the kernels index the slots up to inj_n
        t = int(bad_n[0])
        raise ValueError(f"table {t}: inj_n = {int(n[t])} injected events, but the inputs hold "
                         f"{K} slots a table")
    used = np.arange(K)[None, :] < n[:, None]
    bad = (used & (inputs.inj_side >= 0) & (states.phase == P_PLAY)[:, None]
           & (inputs.inj_side != states.to_move[:, None]))
    if bad.any():
        t, k = (int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"table {t}: injected[{k}].side = {int(inputs.inj_side[t, k])}, but in "
                         f"play the offender of a G-18 foul is the side to move "
                         f"({int(states.to_move[t])}); leave 'side' out")


def _checked_rows(rows: Any, T: int) -> np.ndarray:
    """``referee``'s ``rows`` as (n,) int64: integer indices of the T tables, strictly
    increasing (a repeat would referee a table twice in parallel; a bool mask would read as the
    rows 0 and 1), else a ValueError naming the value."""
    a = np.asarray(rows)
    if a.ndim != 1 or a.dtype == bool or not (np.issubdtype(a.dtype, np.integer) or a.size == 0):
        raise ValueError(f"rows must be a 1-D array of table indices, got {a!r}")
    if a.size and (a.min() < 0 or a.max() >= T or np.any(np.diff(a) <= 0)):
        raise ValueError(f"rows must be increasing table indices in [0, {T}), got "
                         f"{a.tolist()[:20]}")
    return np.ascontiguousarray(a, np.int64)


def referee(states: GolfStates, log: Any, inputs: GolfInputs, rules: Any, geo: Any,
            rows: np.ndarray | None = None) -> tuple[OutcomeArrays, GolfStates]:
    """Score one stroke per table and advance each state (opening or play).

    Args:
        states: T states before the stroke (no table of ``rows`` may be ``over``).
        log: the physics result of the T strokes (SimResult fields; ``prm`` needed where
            ``inputs.physics``).
        inputs: :class:`GolfInputs` (struck balls, strikes, partners, injected events, choices).
        rules: GolfRules. geo: GolfGeometry.
        rows: the tables that struck ((n,) indices, ascending, no repeats); None: all. The
            others' outcomes stay at their empty fill and their next states are ``states``.

    Returns:
        (outcomes, next states), T tables each.

    Raises:
        ValueError: a table whose match is over, or bad input found while scoring (a ball that
            is not on the table, a missing or illegal choice), naming the table.
    """
    T = states.n
    rows = np.arange(T) if rows is None else _checked_rows(rows, T)
    over = rows[states.phase[rows] == P_OVER]
    if len(over):
        raise ValueError(f"table {int(over[0])}: the match is over")
    _check_injected(states, inputs)
    prm = getattr(log, "prm", None)
    if prm is None:
        if np.any(inputs.physics):
            raise ValueError("physics paths need a log with prm (a SimResult, or a JSON log with "
                             "the balls' states); use straight paths for hand-written logs")
        prm = np.zeros(16)
    out = empty_outcomes(T)
    ns = empty_states(T)
    if len(rows) < T:  # the tables that did not strike keep their states
        ns.put(slice(None), states)
    with pool_turn(len(rows), numba.get_num_threads()) as pooled:
        kernel = play_kernel if pooled else play_serial
        kernel(struct(_kernel_arrays(states.arrays(), _STATE_TYPES)), struct(golf_log(log)),
               struct(_kernel_arrays(inputs, _INPUT_TYPES)), geometry_struct(geo),
               rules_vector(rules), kernel_ready(prm, np.float64), struct(out),
               struct(ns.arrays()), rows)
    bad = np.flatnonzero(out.err != E_NONE)
    if len(bad):
        t = int(bad[0])
        msg = f"table {t}: {error_text(out, t, geo)}"
        code = int(out.err[t])
        if code in (E_SPOTS_MISSING, E_SPOTS_RAN_OUT, E_PICK_MISSING):
            raise ChoiceNeeded(msg, t, "pick" if code == E_PICK_MISSING else "spot",
                               int(out.err_b[t]) if code != E_PICK_MISSING else -1)
        raise ValueError(msg)
    return out, ns


def check_next_layouts(states: GolfStates, geo: Any) -> None:
    """The balls of the next ``states`` lie where a stroke can be played from (the physics'
    layout check: on the cloth, clear of the caps, the goals and each other), else a ValueError
    naming the table and the ball. The physics' own logs always pass (76,800 states of random
    Golfbillard-v0 games checked); a log written by hand may leave a ball on a cap or on
    another ball, which the next stroke would refuse or simulate from."""
    from cuegym.physics.layout import layout_problem

    xy = states.xy
    present = ~np.isnan(xy[..., 0])
    problem = layout_problem(geo.table, geo.layout_params(),
                             np.where(present[..., None], xy, 0.0), present,
                             np.zeros((len(states), 0), bool), tuple(geo.ball_ids),
                             [f"next states[{t}]" for t in range(len(states))])
    if problem is not None:
        raise ValueError(f"the log leaves the table in a layout no state can hold: "
                         f"{problem[1]}")


class ChoiceNeeded(ValueError):
    """The opponent's choice (``agent`` policies) that a stroke needs was not given: a penalty
    spot (G-30) for ``ball``, or the offender's ball to pick (G-25). A ValueError, so callers
    that treat it as bad input can; an interactive caller (cuegym.play) asks for it instead.

    Attributes:
        table: the table index. kind: ``spot`` or ``pick``. ball: the ball to place (spot), -1.
    """

    def __init__(self, msg: str, table: int, kind: str, ball: int) -> None:
        super().__init__(msg)
        self.table, self.kind, self.ball = table, kind, ball


def error_text(out: OutcomeArrays, t: int, geo: Any) -> str:
    """The message of table t's error code."""
    ids = geo.ball_ids
    code, a, b = int(out.err[t]), int(out.err_a[t]), int(out.err_b[t])
    if code == E_NOT_ON_TABLE:
        if b == 0:
            return f"cue ball {ids[a]} is not on the table (G-2)"
        return f"an injected event names ball {ids[a]}, which is not on the table"
    if code == E_DEFLECT_NEEDS:
        whose = "own" if KINDS[a] == "deflect_own_ball" else "opponent"
        return (f"behavioural foul {KINDS[a]} needs the touched {whose} ball, got "
                f"{ids[b] if b >= 0 else None!r}")
    if code == E_SPOTS_MISSING:
        return "spot_policy 'agent' needs choices['spots'], got None"
    if code == E_SPOTS_RAN_OUT:
        return (f"spot_policy 'agent' needs a spot choice for {ids[b]}; choices['spots'] ran "
                f"out")
    if code == E_SPOT_NOT_FREE:
        return f"spot choice {a!r} for ball {ids[b]} is not a free spot among spots 1-3"
    if code == E_PICK_MISSING:
        return "pick_policy 'agent' needs choices['pick'] (a ball of the offender)"
    if code == E_PICK_NOT_OWN:
        return (f"picked ball {ids[a]} is not one of the offender's balls on the table "
                f"(side {b})")
    if code == E_OPENING_FOUL_SIDE:
        return (f"an opening foul needs a side (0 / 1) or a ball of the offending side; a "
                f"deflect foul, whose ball is the touched one, needs its side (injected event "
                f"{a})")
    if code == E_NO_FREE_POINT:
        return f"no free point on the table for {ids[a]}"
    if code == E_INJECTED_DROPPED:
        return (f"injected[{b}].ball = {ids[a]}: puts it off the table, on the rail or "
                f"between caps, but it dropped into a goal in the log (only fall_after_rest "
                f"overrides a drop)")
    if code == E_RESTORE_NOT_ON_TABLE:
        return f"injected restore names ball {ids[a]}, which is not on the table"
    if code == E_RESTORE_OFF_CLOTH:
        return f"restore: {ids[a]} is off the cloth"
    if code == E_RESTORE_CAP:
        return f"restore: {ids[a]} overlaps a cap"
    if code == E_RESTORE_GOAL:
        return f"restore: {ids[a]} is inside a goal"
    if code == E_RESTORE_OVERLAP:
        return f"restore: {ids[a]} overlaps {ids[b]}"
    return f"referee error {code}"


def new_states(T: int, rules: Any, geo: Any, seed: Any = 0, openers: Any = (0, 0)
               ) -> GolfStates:
    """T new matches at their first game (G-3, G-4; ``openers``: G-31 partners of game 1)."""
    ns = empty_states(T)
    ns.seed[:] = seed
    ns.winner[:] = -1
    o = np.broadcast_to(np.asarray(openers, np.int64), (T, 2))
    ns.openers[:] = o
    ns.first_openers[:] = o
    ns.partner[:] = o
    new_games_kernel(struct(ns.arrays()), rules_vector(rules), geometry_struct(geo))
    return ns


def start_turns(states: GolfStates, sides: Any, geo: Any) -> GolfStates:
    """A new turn of ``sides`` on every table (G-14 duty recorded): a new batch."""
    ns = states.copy()
    sides = np.broadcast_to(np.asarray(sides, np.int64), (ns.n,)).copy()
    start_turns_kernel(struct(ns.arrays()), sides, geometry_struct(geo))
    return ns


def finish_games(states: GolfStates, winners: Any, rules: Any, geo: Any) -> GolfStates:
    """Record finished games (0 / 1, 2 draw) and start the next or end the match: a new batch."""
    ns = states.copy()
    winners = np.broadcast_to(np.asarray(winners, np.int64), (ns.n,)).copy()
    finish_games_kernel(struct(ns.arrays()), winners, rules_vector(rules), geometry_struct(geo))
    return ns
