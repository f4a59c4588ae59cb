"""Golfbillard game flow entry points: the opening, turns, duos, kader phase, matches (the JSON
entry is :mod:`cuegym.rules.golf_json`).

The flow is compiled (:mod:`cuegym.rules.golf_flow`; specs/golfbillard.md):

- G-3 the opening: both middle balls struck at t = 0; option ``alternate``: no opening stroke,
  side 0 starts every game.
- G-1 / G-9 turns, G-14 the defence-triangle duty of each new turn (:func:`start_turn`), G-20
  kader play from the first stroke with a side on one ball.
- G-5 no progress: after ``no_progress_turns`` turns, ``no_progress_window`` scoreless turns of
  each side end the game as a draw (not in kader play).
- G-4 best-of-3 matches (:func:`finish_game`), G-31 duos (partners alternate per turn).

This module gives the per-table view of it: :func:`play_strokes` scores a batch of tables in
either phase and advances each state; :func:`run_game` runs a whole game or match with the
physics and a stroke policy; :mod:`cuegym.rules.golf_json` is the ``score`` CLI. The batched
game layer for envs and agents is :mod:`cuegym.games.golf`.

Example:
    >>> from cuegym.rules.golfbillard_game import new_match
    >>> st = new_match()
    >>> st.phase, st.to_move, st.balls_left.tolist()
    ('opening', 0, [5, 5])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from cuegym.compat import moved_names
from cuegym.rules.golfbillard import (
    check_choices,
    check_cue,
    check_fields,
    check_log,
    check_overflow,
    check_player,
    frozen_contacts,
    physics_paths,
)
from cuegym.rules.inputs import (
    req_int,
)

from .golf_arrays import N_SIDES, SIDE_OF
from .golf_batch import check_next_layouts, finish_games, new_states, referee, start_turns
from .golf_config import (
    GolfGeometry,
    GolfRules,
    attack_goal,
    ball_index,
    golf_geometry,
    load_golf_rules,
)
from .golf_opening import opening_balls_kernel
from .golf_state import GolfState
from .golf_structs import geometry_struct
from .golf_views import (
    OpeningOutcome,
    make_inputs,
    outcome_objects,
    pack_states,
    policy_draws,
    unpack_state,
    unpack_states,
)

__all__ = ["OpeningOutcome", "finish_game", "new_match", "opening_balls", "opening_strike",
           "play_strokes", "random_policy", "run_game", "score_opening", "simulate_strokes",
           "start_turn"]

# ---------------------------------------------------------------------------------------------
# Match, game and turn bookkeeping (per-table views of the compiled flow)
# ---------------------------------------------------------------------------------------------


def new_match(rules: GolfRules | None = None, seed: int = 0,
              openers: Sequence[int] = (0, 0), geo: GolfGeometry | None = None) -> GolfState:
    """A fresh match (G-4) at its first game.

    Args:
        rules: rule-set options (default: ``configs/rules/golfbillard.yaml``).
        seed: base seed for random choices (G-30 ``random``): an integer >= 0 (a float or
            bool is refused, not cast).
        openers: G-31 partner (0 / 1) of each side who opens game 1 (duo play; in singles a
            side has one player, so only (0, 0) is accepted).
    """
    rules = rules or load_golf_rules()
    geo = geo or golf_geometry()
    o = np.array([int(x) for x in openers], np.int64)
    if o.shape != (2,) or np.any((o != 0) & (o != 1)):
        raise ValueError(f"openers must be two partners 0/1, got {openers!r}")
    if not rules.duo and o.any():
        raise ValueError(f"openers = {list(openers)} but rules.duo is off: a singles side has one "
                         "player (partner 0); set duo=True for duo play (G-31)")
    return unpack_state(new_states(1, rules, geo, req_int(seed, "seed", 0), o), 0)


def start_turn(state: GolfState, side: int, geo: GolfGeometry | None = None) -> GolfState:
    """A new turn of ``side``: G-14 records its own balls in its defence triangles."""
    return unpack_state(start_turns(pack_states([state]), int(side), geo or golf_geometry()), 0)


def finish_game(state: GolfState, winner: int, rules: GolfRules,
                geo: GolfGeometry | None = None) -> GolfState:
    """Record a finished game (winner 0 / 1, or 2 for a G-5 draw); start the next or end the
    match (G-4: first to 2 games in ``best_of_3``, 1 in ``single``). Drawn games count as
    played: after 3 games (1 in ``single``) the side with more wins takes the match, equal
    wins draw it (2)."""
    if winner not in (0, 1, 2):
        raise ValueError(f"winner must be 0, 1 or 2 (draw), got {winner!r}")
    return unpack_state(finish_games(pack_states([state]), int(winner), rules,
                                     geo or golf_geometry()), 0)


# ---------------------------------------------------------------------------------------------
# The opening (G-3)
# ---------------------------------------------------------------------------------------------


def opening_balls(state: GolfState, geo: GolfGeometry | None = None) -> tuple[int, int]:
    """The ball each side opens with (G-3): its middle ball w1 / r1 while that is on the table
    (the referee takes the opening from a side that strikes any other ball); in a repeat after
    both sides scored their opening balls, where any own ball may open, the on-table own ball
    nearest the middle start spot (ties: the lower number), as :func:`opening_strike` plays."""
    out = np.zeros((1, 2), np.int64)
    opening_balls_kernel(np.ascontiguousarray(state.xy, np.float64)[None],
                         geometry_struct(geo or golf_geometry()), out)
    return int(out[0, 0]), int(out[0, 1])


def score_opening(state: GolfState, log: Any, balls: Sequence[Any], *, t: int = 0,
                  injected: Any = None, players: Sequence[int] | None = None,
                  paths: str = "auto", rules: GolfRules | None = None,
                  geo: GolfGeometry | None = None, choices: Any = None,
                  allow_overflow: bool = False) -> OpeningOutcome:
    """Referee the opening stroke on table ``t`` of ``log`` (G-3, G-31).

    Both sides strike one ball at t = 0 (``balls`` = side 0's, side 1's). Each must cross
    x = 0. A side that scores its opening ball takes the first turn; both score: repeat with
    another ball each. Otherwise the ball that stops nearer its attack goal wins; a ball that does
    not cross x = 0 loses; equal distances, or neither crossing: balls back, repeat. Only the
    side's due ball (:func:`opening_balls`: the middle ball) may open: a side that strikes another
    ball loses the opening (a ``G-3`` foul ``wrong_opening_ball`` in ``fouls``; that ball is
    not spotted and, if it drops, counts like any other ball that drops). A G-18 foul
    (injected with ``side``, or a duo side whose ``players`` entry is not its opener, G-31) with
    LT loses the opening, and the side's penalised one applies its other letters to that side's
    stroke (RA, RF, SPOT, GOAL, CS; an opening at one ball is kader play, G-20: the kader
    letters, PICK included, G-25; docs/rules_golfbillard.md, G-3 reading). A ball that drops
    or jams between a goal's caps is judged for the side that played it (the chain of contacts
    from its opening ball): a drop counts for the ball's side (G-6, G-7) unless its own side
    played it into its defence goal (G-8: a penalty spot); a jam between the caps of that
    side's attack goal is a drop there, of its defence goal a G-19 foul (a penalty spot).

    ``players`` (the two partners who opened) is required with ``rules.duo`` and may only be
    None or [0, 0] without it; ``choices`` (``spots`` with ``spot_policy = 'agent'``, ``pick``
    with ``pick_policy = 'agent'``), ``allow_overflow`` and the errors are those of
    :func:`~cuegym.rules.golfbillard.score_strokes`.
    """
    if state.phase != "opening":
        raise ValueError(f"score_opening needs a state in phase 'opening', got {state.phase!r}")
    outs, _ = play_strokes([state], _take_table(log, t), [list(balls)],
                           injected=None if injected is None else [injected],
                           players=[players], paths=paths, rules=rules, geo=geo,
                           choices=[choices], allow_overflow=allow_overflow)
    return outs[0]


def _take_table(log: Any, t: int) -> Any:
    """Table t of a log, as a one-table log (``prm`` kept)."""
    fields = ("rvw", "rvw0", "motion", "motion0", "pocket", "ev_type", "ev_time", "ev_i", "ev_j",
              "ev_state", "ev_motion", "n_events", "t_end", "overflow")
    T = int(np.asarray(log.n_events).shape[0])
    if not 0 <= t < T:
        raise ValueError(f"table {t!r} is not in a log of {T} tables")
    if T == 1:
        return log
    sub = {f: np.asarray(getattr(log, f))[t:t + 1] for f in fields if hasattr(log, f)}
    return SimpleNamespace(prm=getattr(log, "prm", None), **sub)


# ---------------------------------------------------------------------------------------------
# Batched play: either phase
# ---------------------------------------------------------------------------------------------


def _validate_balls(states: Sequence[GolfState], cb: np.ndarray, geo: GolfGeometry) -> None:
    for t, st in enumerate(states):
        if st.phase == "over":
            raise ValueError(f"table {t}: the match is over")
        if st.phase == "opening":
            b = cb[t]
            if SIDE_OF[b[0]] != 0 or b[1] < 0 or SIDE_OF[b[1]] != 1:
                raise ValueError(f"table {t}: the opening needs one ball of side 0 then one of "
                                 f"side 1, got {[geo.ball_ids[x] if x >= 0 else None for x in b]}")
            for x in b:
                if np.isnan(st.xy[x, 0]):
                    raise ValueError(f"table {t}: opening ball {geo.ball_ids[x]} is not on the "
                                     f"table")


def play_strokes(states: Sequence[GolfState], log: Any, cue_ball: Any, cue: Any = None, *,
                 injected: Any = None, players: Any = None, paths: str = "auto",
                 choices: Any = None, rules: GolfRules | None = None,
                 geo: GolfGeometry | None = None, allow_overflow: bool = False
                 ) -> tuple[list[Any], list[GolfState]]:
    """Score one stroke per table and advance each table's state (opening or play).

    Args:
        states: T states.
        log: physics result for T tables.
        cue_ball: (T,) for play strokes, or (T, 2) where column 1 is -1 for a play stroke and
            the side-1 opening ball for an opening (indices or ids).
        cue: (T, 5) or (T, 2, 5) strikes V0 [m/s], phi, theta [deg], a, b [R] (only the
            first is used for play strokes), checked as the physics checks a strike
            (:func:`~cuegym.rules.golfbillard.check_cue`). Optional: zeros.
        injected, players, choices: one entry per table, always a list of T (where
            :func:`~cuegym.rules.golfbillard.score_strokes` also takes one table's entries when
            T = 1); for an opening ``players[t]`` is the pair of partners who opened (G-31);
            its ``choices[t]`` ``pick`` (G-25, an opening in kader play) names a ball of the
            offending side.
        paths, rules, geo, allow_overflow: as in :func:`~cuegym.rules.golfbillard.score_strokes`.

    Returns:
        (outcomes: GolfOutcome or OpeningOutcome per table, new states).

    Raises:
        ValueError: as :func:`~cuegym.rules.golfbillard.score_strokes` (a state field the
            compiled referee would misread, a strike outside the physics' limits, ...).
    """
    rules = rules or load_golf_rules()
    geo = geo or golf_geometry()
    T = len(states)
    check_fields(states, geo)  # the kernels index with the fields unchecked
    on_table = np.stack([s.on_table for s in states])
    check_log(log, on_table, geo)  # both phases
    cb = np.asarray(cue_ball, dtype=object)
    if cb.ndim == 1:
        cb = np.stack([cb, np.full(T, -1, dtype=object)], axis=1)
    if cb.shape != (T, 2):
        raise ValueError(f"cue_ball must have shape ({T},) or ({T}, 2), got {cb.shape}")
    cb = np.array([[-1 if (isinstance(x, (int, np.integer)) and x == -1) else
                    ball_index(x, geo) for x in row] for row in cb], np.int64).reshape(T, 2)
    _validate_balls(states, cb, geo)
    per_table = {}
    for name, v in (("injected", injected), ("players", players), ("choices", choices)):
        if v is not None and (isinstance(v, str | dict) or getattr(v, "ndim", 1) == 0
                              or not isinstance(v, Sequence | np.ndarray)):
            raise ValueError(f"{name} needs a list with one entry per table ({T}), got {v!r} "
                             "(score_stroke takes one table's entries)")
        per_table[name] = [None] * T if v is None else list(v)
        if len(per_table[name]) != T:
            raise ValueError(f"{name} needs one entry per table ({T}), got "
                             f"{len(per_table[name])}")
    injected, players, choices = (per_table[k] for k in ("injected", "players", "choices"))
    for t, st in enumerate(states):
        choices[t] = check_choices(choices[t], rules, f"choices[{t}]")
        if st.phase == "opening":
            p = players[t]
            if p is None:
                check_player(None, rules, f"players[{t}]")  # duo play needs them
            else:
                if isinstance(p, (str, dict)) or np.ndim(p) != 1 or len(p) != N_SIDES:
                    raise ValueError(f"players[{t}] must be the two openers [p0, p1], got {p!r}")
                players[t] = [check_player(x, rules, f"players[{t}][{k}]")
                              for k, x in enumerate(p)]
                players[t] = [0 if x is None else x for x in players[t]]
        else:
            players[t] = check_player(players[t], rules, f"players[{t}]")
    check_overflow(log, allow_overflow)
    cue2 = np.zeros((T, 2, 5)) if cue is None else check_cue(cue, cb, on_table, geo, slots=True)
    gs = pack_states(states)
    inputs = make_inputs(cb, cue2, np.asarray(log.t_end, np.float64), geo, injected=injected,
                         players=players, choices=choices, physics=physics_paths(log, paths),
                         draws=policy_draws(gs, rules))
    out, ns = referee(gs, log, inputs, rules, geo)
    check_next_layouts(ns, geo)  # a log written by hand may leave a ball on a cap
    return outcome_objects(out, geo, inputs), unpack_states(ns)


# ---------------------------------------------------------------------------------------------
# Physics, policies and whole games
# ---------------------------------------------------------------------------------------------


def simulate_strokes(states: Sequence[GolfState], cue_ball: Any, cue: Any, *,
                     geo: GolfGeometry | None = None, params: Any = None, models: Any = None,
                     max_events: int = 1000, t_max: float = 60.0) -> Any:
    """Simulate one stroke per state with :func:`cuegym.physics.simulate` (``models``: the
    games' :data:`~cuegym.physics.GAME_MODELS` unless given).

    Args:
        states: T states (their ``xy``; scored balls are absent).
        cue_ball: (T,) or (T, 2) struck balls (-1 for an unused slot).
        cue: (T, 5) or (T, 2, 5) strikes V0, phi, theta, a, b.

    Returns:
        The SimResult (the referee reads the balls' paths from it).
    """
    from cuegym.configs import load_params
    from cuegym.physics import GAME_MODELS, simulate

    geo = geo or golf_geometry()
    params = params or load_params("golfbillard")
    xy = np.stack([s.xy for s in states])
    present = ~np.isnan(xy[..., 0])
    xy = np.where(present[..., None], xy, 0.0)
    cb = np.asarray(cue_ball, dtype=np.int64)
    cb = cb[:, None] if cb.ndim == 1 else cb
    cue_arr = np.asarray(cue, dtype=np.float64).reshape(len(states), cb.shape[1], 5)
    res = simulate(geo.table, params, xy, cue_ball=cb, cue=cue_arr, present=present,
                   max_events=max_events, t_max=t_max, ball_names=geo.ball_ids,
                   models=GAME_MODELS if models is None else models)
    return res


def opening_strike(state: GolfState, side: int, ball: int, V0: float = 1.1,
                   geo: GolfGeometry | None = None) -> np.ndarray:
    """G-3: a soft strike of ``ball`` off the side's left long cushion toward its attack goal.

    Aims at the attack goal's mirror image in the left cushion's ball-centre line (left is +y
    for side 0, facing +x, and -y for side 1). Returns (5,) V0, phi, theta, a, b.
    """
    geo = geo or golf_geometry()
    p = state.xy[ball]
    gx, gy = geo.goals[attack_goal(side), :2]
    wall = (geo.table.width / 2 - geo.R) * (1.0 if side == 0 else -1.0)
    phi = math.degrees(math.atan2(2 * wall - gy - p[1], gx - p[0]))
    return np.array([V0, phi, 0.0, 0.0, 0.0])


#: How far [deg] :func:`random_policy`'s fallback stays inside the edges of the free wedge: a
#: stroke along a contact still pushes a frozen ball that moves, and with the physics' squirt
#: on (off by default) side spin turns the cue ball's start a little off its aim.
_FREE_MARGIN = 5.0


def _free_direction(frozen: Sequence[np.ndarray], aim: float) -> float | None:
    """The direction [deg] nearest ``aim`` [deg] among those that point into none of
    ``frozen`` (unit vectors from the ball toward what it is frozen to, G-13), at least
    :data:`_FREE_MARGIN` inside the edges of that wedge (its middle where it is narrower than
    two margins); None where no direction is free (the ball is hemmed in). No draws: the
    caller's generator moves as it did."""
    ang = [math.degrees(math.atan2(float(f[1]), float(f[0]))) for f in frozen]
    # phi is free of a contact at angle a where cos(phi - a) <= 0, i.e. phi - a in [90, 270]
    # (mod 360): the free set is one arc (or none), and its ends are among the a +- 90
    for c in [a + s for a in ang for s in (90.0, -90.0)]:
        off = [(c - a) % 360.0 for a in ang]
        if all(90.0 - 1e-9 <= o <= 270.0 + 1e-9 for o in off):
            lo, hi = max(90.0 - o for o in off), min(270.0 - o for o in off)  # c + [lo, hi]
            if hi - lo < 1e-6:  # one direction, along the contacts: none is clear
                return None
            m = min(_FREE_MARGIN, (hi - lo) / 2)
            lo, hi = lo + m, hi - m
            d = (aim - c + 180.0) % 360.0 - 180.0
            if not lo <= d <= hi:  # the nearer end of the arc, going round the circle
                d = min((lo, hi), key=lambda e: abs((d - e + 180.0) % 360.0 - 180.0))
            return (c + d + 180.0) % 360.0 - 180.0  # in [-180, 180), as the uniform draws
    return None


def random_policy(state: GolfState, rng: np.random.Generator,
                  geo: GolfGeometry | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A random but purposeful stroke: a random own ball aimed roughly at the attack goal,
    never pushed into what it is frozen to (G-13) where any direction is free: 10 aims near
    the goal, 10 uniform ones, then the free direction nearest the goal
    (:func:`_free_direction`).

    Returns:
        (cue_ball (2,), cue (2, 5)); slot 1 is used only in the opening (side 1's ball).
    """
    geo = geo or golf_geometry()
    if state.phase == "opening":
        b = opening_balls(state, geo)
        cue = np.stack([opening_strike(state, s, b[s], float(rng.uniform(0.9, 1.3)), geo)
                        for s in range(N_SIDES)])
        return np.array(b), cue
    s = state.to_move
    own = np.flatnonzero((SIDE_OF == s) & state.on_table)
    b = int(rng.choice(own))
    goal = geo.goals[attack_goal(s), :2]
    d = goal - state.xy[b]
    aim = math.degrees(math.atan2(d[1], d[0]))
    frozen = [u for _, _, u in frozen_contacts(state.xy, b, geo, 0.0005)]
    for k in range(20):  # avoid pushing into what the ball is frozen to (G-13)
        phi = aim + float(rng.normal(0.0, 6.0)) if k < 10 else float(rng.uniform(-180, 180))
        u = np.array([math.cos(math.radians(phi)), math.sin(math.radians(phi))])
        if all(float(u @ f) <= 0.0 for f in frozen):
            break
    else:  # a narrow free wedge the draws missed: played the last draw, a push
        free = _free_direction(frozen, aim)
        if free is not None:
            phi = free
    V0 = float(rng.uniform(0.3, 1.5))
    cue = np.zeros((2, 5))
    cue[0] = (V0, phi, 0.0, float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3)))
    return np.array([b, -1]), cue


def run_game(rules: GolfRules | None = None, *, seed: int = 0, policy: Callable | None = None,
             max_strokes: int = 3000, state: GolfState | None = None,
             geo: GolfGeometry | None = None) -> tuple[GolfState, list]:
    """Play until the match is over (or ``max_strokes``) with the physics and a policy.

    Args:
        rules: rule-set options (``match: single`` for one game; ``duo`` for duos).
        seed: seeds the policy's generator and the state.
        policy: ``(state, rng, geo) -> (cue_ball (2,), cue (2, 5))``; default
            :func:`random_policy`. In a duo the due partner always strikes.
        max_strokes: safety limit (kader play has no G-5 limit).
        state: start from this state instead of a new match.

    Returns:
        (final state, list of outcomes).
    """
    rules = rules or load_golf_rules()
    geo = geo or golf_geometry()
    policy = policy or random_policy
    rng = np.random.default_rng(seed)
    st = state if state is not None else new_match(rules, seed=seed, geo=geo)
    history: list = []
    while st.phase != "over" and len(history) < max_strokes:
        cb, cue = policy(st, rng, geo)
        res = simulate_strokes([st], cb[None], cue[None], geo=geo)
        players = [list(st.openers) if st.phase == "opening" else int(st.partner[st.to_move])]
        # random play: a stroke cut off by max_events / t_max is scored where it ended (the
        # outcome's overflow code and notes record it)
        outs, new = play_strokes([st], res, cb[None], cue[None], players=players,
                                 rules=rules, geo=geo, allow_overflow=True)
        history.append(outs[0])
        st = new[0]
    return st, history


#: ``from cuegym.rules.golfbillard_game import score_json`` (and the JSON entry's other names)
#: keeps working: :mod:`cuegym.rules.golf_json` imports this module, so they come on first use
__getattr__ = moved_names(__name__, "cuegym.rules.golf_json",
                          ("HAND_LOG_EVENTS", "hand_log_json", "log_from_json", "score_json"))
