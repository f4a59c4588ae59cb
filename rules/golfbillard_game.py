"""Golfbillard game flow entry points: the opening, turns, duos, kader phase, matches, JSON.

The flow is compiled (:mod:`cuegym.rules.golf_flow`; specs/golfbillard.md):

- G-3 the opening: both middle balls struck at t = 0; option ``alternate``: no opening stroke,
  side 0 starts game 1 and the sides alternate per game.
- G-1 / G-9 turns, G-14 the defence-triangle duty of each new turn (:func:`start_turn`), G-20
  kader play from the first stroke with a side on one ball.
- G-5 no progress: after ``no_progress_turns`` turns, ``no_progress_window`` scoreless turns of
  each side end the game as a draw (not in kader play).
- G-4 best-of-3 matches (:func:`finish_game`), G-31 duos (partners alternate per turn).

This module gives the per-table view of it: :func:`play_strokes` scores a batch of tables in
either phase and advances each state; :func:`run_game` runs a whole game or match with the
physics and a stroke policy; :func:`score_json` is the ``score`` CLI. The batched game layer
for envs and agents is :mod:`cuegym.games.golf`.

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

from cuegym.rules.golfbillard import (
    N_BALLS,
    N_SIDES,
    SIDE_OF,
    GolfGeometry,
    GolfRules,
    GolfState,
    attack_goal,
    ball_index,
    check_choices,
    check_overflow,
    check_player,
    frozen_contacts,
    golf_geometry,
    load_golf_rules,
    physics_paths,
)

from .golf_batch import finish_games, new_states, referee, start_turns
from .golf_flow import opening_balls_kernel
from .golf_paths import golf_arrays
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
           "play_strokes", "random_policy", "run_game", "score_json", "score_opening",
           "simulate_strokes", "start_turn"]

# ---------------------------------------------------------------------------------------------
# Match, game and turn bookkeeping (per-table views of the compiled flow)
# ---------------------------------------------------------------------------------------------


def new_match(rules: GolfRules | None = None, seed: int = 0,
              openers: Sequence[int] = (0, 0), geo: GolfGeometry | None = None) -> GolfState:
    """A fresh match (G-4) at its first game.

    Args:
        rules: rule-set options (default: ``configs/rules/golfbillard.yaml``).
        seed: base seed for random choices (G-30 ``random``).
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
    return unpack_state(new_states(1, rules, geo, int(seed), o), 0)


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
    """The ball each side must open with (G-3): its middle ball w1 / r1 while that is on the
    table; in a repeat after both sides scored their opening balls, the on-table own ball
    nearest the middle start spot (ties: the lower number). The referee takes the opening from
    a side that strikes any other ball."""
    out = np.zeros((1, 2), np.int64)
    opening_balls_kernel(np.ascontiguousarray(state.xy, np.float64)[None],
                         golf_arrays(geo or golf_geometry()), out)
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
    (injected with ``side``, or a duo side whose ``players`` entry is not its opener, G-31) loses
    the opening; ``wrong_opener`` also puts that ball on a penalty spot. Other balls that drop count
    for their side (into its attack goal) or go to a penalty spot (into its defence goal).

    ``players`` (the two partners who opened) is required with ``rules.duo`` and may only be
    None or [0, 0] without it; ``choices`` (``spots`` only, with ``spot_policy = 'agent'``),
    ``allow_overflow`` and the errors are those of
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
        cue: (T, 5) or (T, 2, 5) strikes (only the first is used for play strokes).
        injected, players, paths, choices, rules, geo, allow_overflow: as in
            :func:`~cuegym.rules.golfbillard.score_strokes`; for an opening ``players[t]`` is the
            pair of partners who opened (G-31) and ``choices[t]`` may hold ``spots`` only.

    Returns:
        (outcomes: GolfOutcome or OpeningOutcome per table, new states).
    """
    rules = rules or load_golf_rules()
    geo = geo or golf_geometry()
    T = len(states)
    cb = np.asarray(cue_ball, dtype=object)
    if cb.ndim == 1:
        cb = np.stack([cb, np.full(T, -1, dtype=object)], axis=1)
    if cb.shape != (T, 2):
        raise ValueError(f"cue_ball must have shape ({T},) or ({T}, 2), got {cb.shape}")
    cb = np.array([[-1 if (isinstance(x, (int, np.integer)) and x == -1) else
                    ball_index(x, geo) for x in row] for row in cb], np.int64).reshape(T, 2)
    _validate_balls(states, cb, geo)
    injected = [None] * T if injected is None else list(injected)
    players = [None] * T if players is None else list(players)
    choices = [None] * T if choices is None else list(choices)
    for name, v in (("injected", injected), ("players", players), ("choices", choices)):
        if len(v) != T:
            raise ValueError(f"{name} needs one entry per table ({T}), got {len(v)}")
    for t, st in enumerate(states):
        choices[t] = check_choices(choices[t], rules, f"choices[{t}]")
        if st.phase == "opening":
            if "pick" in choices[t]:
                raise ValueError("choices['pick'] has no use in the opening (G-25 applies in "
                                 "kader play only)")
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
    cue2 = np.zeros((T, 2, 5))
    if cue is not None:
        c = np.asarray(cue, dtype=np.float64).reshape(T, -1, 5)
        cue2[:, :c.shape[1]] = c[:, :2]
    gs = pack_states(states)
    inputs = make_inputs(cb, cue2, np.asarray(log.t_end, np.float64), geo, injected=injected,
                         players=players, choices=choices, physics=physics_paths(log, paths),
                         draws=policy_draws(gs, rules))
    out, ns = referee(gs, log, inputs, rules, geo)
    return outcome_objects(out, geo, inputs), unpack_states(ns)


# ---------------------------------------------------------------------------------------------
# Physics, policies and whole games
# ---------------------------------------------------------------------------------------------


def simulate_strokes(states: Sequence[GolfState], cue_ball: Any, cue: Any, *,
                     geo: GolfGeometry | None = None, params: Any = None, models: Any = None,
                     max_events: int = 1000, t_max: float = 60.0) -> Any:
    """Simulate one stroke per state with :func:`cuegym.physics.simulate`.

    Args:
        states: T states (their ``xy``; scored balls are absent).
        cue_ball: (T,) or (T, 2) struck balls (-1 for an unused slot).
        cue: (T, 5) or (T, 2, 5) strikes V0, phi, theta, a, b.

    Returns:
        The SimResult (the referee reads the balls' paths from it).
    """
    from cuegym.configs import load_params
    from cuegym.physics import simulate

    geo = geo or golf_geometry()
    params = params or load_params("golfbillard")
    xy = np.stack([s.xy for s in states])
    present = ~np.isnan(xy[..., 0])
    xy = np.where(present[..., None], xy, 0.0)
    cb = np.asarray(cue_ball, dtype=np.int64)
    cb = cb[:, None] if cb.ndim == 1 else cb
    cue_arr = np.asarray(cue, dtype=np.float64).reshape(len(states), cb.shape[1], 5)
    kw = {} if models is None else {"models": models}
    res = simulate(geo.table, params, xy, cue_ball=cb, cue=cue_arr, present=present,
                   max_events=max_events, t_max=t_max, ball_names=geo.ball_ids, **kw)
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


def random_policy(state: GolfState, rng: np.random.Generator,
                  geo: GolfGeometry | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A random but purposeful stroke: a random own ball aimed roughly at the attack goal.

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


# ---------------------------------------------------------------------------------------------
# JSON (the score CLI)
# ---------------------------------------------------------------------------------------------


def _strikes(obj: Any, where: str) -> list[dict]:
    strikes = [obj] if isinstance(obj, dict) else obj
    if not isinstance(strikes, list) or not strikes or not all(isinstance(s, dict)
                                                              for s in strikes):
        raise ValueError(f"{where} must be a strike object or a list of them, got {obj!r}")
    return strikes


def _strike_arrays(state: GolfState, strikes: list[dict], geo: GolfGeometry
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(cue_ball (1, 2), cue (1, 2, 5)) from JSON strikes; the opening needs one per side."""
    cb = np.full((1, 2), -1, np.int64)
    cue = np.zeros((1, 2, 5))
    for s in strikes:
        extra = sorted(set(s) - {"ball", "V0", "phi", "theta", "a", "b"})
        if extra:
            raise ValueError(f"unknown key(s) {extra} in strike {s!r}")
        if "V0" not in s or "phi" not in s:
            raise ValueError(f"a strike needs V0 and phi, got {s!r}")
    if state.phase == "opening":
        if len(strikes) != 2:
            raise ValueError(f"the opening (G-3) needs two strikes, one per side, got {strikes!r}")
        strikes = sorted(strikes, key=lambda s: SIDE_OF[ball_index(s.get("ball"), geo)])
    elif len(strikes) != 1:
        raise ValueError(f"a stroke has one strike, got {len(strikes)}")
    for k, s in enumerate(strikes):
        cb[0, k] = ball_index(s.get("ball"), geo)
        vals = [s["V0"], s["phi"], s.get("theta", 0.0), s.get("a", 0.0), s.get("b", 0.0)]
        for name, v in zip(("V0", "phi", "theta", "a", "b"), vals, strict=True):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"strike {name} must be a finite number, got {v!r}")
        cue[0, k] = vals
    return cb, cue


def log_from_json(out: Any, state: GolfState, cue_ball: np.ndarray, cue: np.ndarray,
                  geo: GolfGeometry | None = None) -> Any:
    """A one-table log from an output object of ``cuegym.physics.simulate_json``.

    The JSON output has no positions or velocities at events: the cue balls' initial velocity
    is rebuilt from the strike (V = 2 V0 / (1 + m/M + 5/2 (a^2 + b^2)), along phi), and zone
    questions about paths (G-3, G-14, G-21) see each ball moving straight from its start to its
    end. Score a ``shot`` instead of a ``log`` for exact paths.
    """
    from types import SimpleNamespace

    from cuegym.configs import load_params
    from cuegym.physics.constants import EVENT_NAMES, MOTION_NAMES, POCKETED, STATIONARY

    geo = geo or golf_geometry()
    if not isinstance(out, dict) or "final" not in out or "events" not in out:
        raise ValueError(f"'log' must be a simulate_json output object with final and events, "
                         f"got {out!r}")
    events = out["events"]
    if not isinstance(events, list):
        raise ValueError(f"log.events must be a list, got {events!r}")
    pockets = [p.name for p in geo.table.pockets]
    K = max(len(events), 1)
    ev = {"ev_type": np.zeros((1, K), np.int8), "ev_time": np.zeros((1, K)),
          "ev_i": np.zeros((1, K), np.int32), "ev_j": np.zeros((1, K), np.int32),
          "ev_state": np.full((1, K, 2, 7), np.nan), "ev_motion": np.zeros((1, K, 2), np.int8)}

    def agent(name: Any, k: int) -> int:
        if isinstance(name, str):
            if name in geo.ball_ids:
                return geo.ball_ids.index(name)
            if name in pockets:
                return pockets.index(name)
            for prefix in ("cushion", "post", "pocket"):
                if name.startswith(prefix) and name[len(prefix):].isdigit():
                    return int(name[len(prefix):])
        raise ValueError(f"log.events[{k}]: unknown agent {name!r}")

    for k, e in enumerate(events):
        if not isinstance(e, dict) or e.get("type") not in EVENT_NAMES[1:]:
            raise ValueError(f"log.events[{k}] has no known type: {e!r}")
        code = EVENT_NAMES.index(e["type"])
        agents = list(e.get("agents") or [])
        if not agents:
            raise ValueError(f"log.events[{k}] has no agents: {e!r}")
        ev["ev_type"][0, k] = code
        ev["ev_time"][0, k] = float(e["time"])
        ev["ev_i"][0, k] = agent(agents[0], k)
        if code == 7:
            st_name = e.get("state", "stationary")
            if st_name not in MOTION_NAMES:
                raise ValueError(f"log.events[{k}]: unknown motion state {st_name!r}")
            ev["ev_j"][0, k] = MOTION_NAMES.index(st_name)
        elif len(agents) > 1:
            ev["ev_j"][0, k] = agent(agents[1], k)
        if code == 1 and ev["ev_i"][0, k] > ev["ev_j"][0, k]:
            ev["ev_i"][0, k], ev["ev_j"][0, k] = ev["ev_j"][0, k], ev["ev_i"][0, k]
    on = state.on_table
    rvw0 = np.zeros((1, N_BALLS, 3, 3))
    rvw0[0, :, 0, :2] = np.where(on[:, None], state.xy, 0.0)
    prm = load_params("golfbillard")
    for k in range(cue_ball.shape[1]):
        b = int(cue_ball[0, k])
        if b < 0:
            continue
        V0, phi, _theta, a, bb = cue[0, k]
        V = 2 * V0 / (1 + prm.m / prm.M + 2.5 * (a * a + bb * bb))
        rvw0[0, b, 1, :2] = V * np.cos(np.radians(phi)), V * np.sin(np.radians(phi))
    rvw = rvw0.copy()
    rvw[0, :, 1] = 0.0
    pocket = np.full((1, N_BALLS), -1, np.int32)
    motion = np.where(on, STATIONARY, POCKETED)[None].astype(np.int32)
    final = out["final"]
    if not isinstance(final, dict):
        raise ValueError(f"log.final must be an object, got {final!r}")
    for name, rec in final.items():
        b = ball_index(name, geo)
        if not on[b]:
            raise ValueError(f"log.final lists {name}, which is not on the table in the state")
        if rec.get("pocket") is not None:
            pocket[0, b] = int(rec["pocket"])
            motion[0, b] = POCKETED
        else:
            rvw[0, b, 0, :2] = float(rec["x"]), float(rec["y"])
    t_end = float(out.get("t_end", max([e["time"] for e in events], default=0.0)))
    return SimpleNamespace(rvw=rvw, rvw0=rvw0, motion=motion, motion0=motion.copy(),
                           pocket=pocket, n_events=np.array([len(events)], np.int32),
                           t_end=np.array([t_end]), overflow=np.zeros(1, np.int8), **ev)


def score_json(payload: Any) -> dict:
    """The ``score`` CLI: see :func:`cuegym.rules.golfbillard.score_cli`."""
    from cuegym.configs import load_params

    geo = golf_geometry()
    if not isinstance(payload, dict):
        raise ValueError(f"input must be a JSON object, got {payload!r}")
    known = {"state", "shot", "log", "strike", "rules", "inject", "injected", "player",
             "choices", "allow_overflow"}
    unknown = sorted(set(payload) - known)
    if unknown:
        raise ValueError(f"unknown input key(s) {unknown}; known: {sorted(known)}")
    if ("shot" in payload) == ("log" in payload):
        raise ValueError("input needs exactly one of 'shot' or 'log'")
    rules = load_golf_rules(**(payload.get("rules") or {}))
    state = (GolfState.from_json(payload["state"], geo) if payload.get("state") is not None
             else new_match(rules, geo=geo))
    if state.phase == "over":
        raise ValueError("the match in 'state' is over")
    inject = payload.get("inject", payload.get("injected")) or []
    if not isinstance(inject, list):
        raise ValueError(f"inject must be a list of events, got {inject!r}")
    choices = payload.get("choices") or {}
    if not isinstance(choices, dict) or set(choices) - {"spots", "pick"}:
        raise ValueError(f"choices must be {{'spots': [..], 'pick': ball}}, got {choices!r}")
    player = payload.get("player")
    if state.phase == "opening" and player is not None:
        if not isinstance(player, list) or len(player) != 2:
            raise ValueError(f"in the opening 'player' is the two openers [p0, p1], got {player!r}")
    elif player is not None and player not in (0, 1):
        raise ValueError(f"player must be partner 0 or 1, got {player!r}")
    if "shot" in payload:
        from cuegym.physics.api import Models

        shot = payload["shot"]
        if not isinstance(shot, dict):
            raise ValueError(f"'shot' must be a physics shot object, got {shot!r}")
        extra = sorted(set(shot) - {"table", "params", "models", "balls", "strike", "max_events",
                                    "t_max"})
        if extra:
            raise ValueError(f"unknown key(s) {extra} in shot")
        if shot.get("table", "golfbillard") != "golfbillard":
            raise ValueError(f"shot.table must be 'golfbillard', got {shot.get('table')!r}")
        for name, rec in (shot.get("balls") or {}).items():
            b = ball_index(name, geo)
            if not state.on_table[b]:
                raise ValueError(f"shot.balls.{name}: that ball is scored in the state")
            if math.dist((rec.get("x"), rec.get("y")), state.xy[b]) > 1e-6:
                raise ValueError(f"shot.balls.{name} at ({rec.get('x')}, {rec.get('y')}) differs "
                                 f"from the state's {state.xy[b].tolist()}")
        cb, cue = _strike_arrays(state, _strikes(shot.get("strike"), "shot.strike"), geo)
        try:
            params = load_params("golfbillard", **(shot.get("params") or {}))
            models = Models(**(shot.get("models") or {}))
        except TypeError as exc:
            raise ValueError(f"shot.models: {exc}") from None
        max_events = shot.get("max_events", 1000)
        res = simulate_strokes([state], cb, cue, geo=geo, params=params, models=models,
                                    max_events=max_events, t_max=shot.get("t_max", 60.0))
    else:
        if "strike" not in payload:
            raise ValueError("with a 'log', give the shot's 'strike' (the cue ball and V0, phi, "
                             "theta, a, b) too")
        cb, cue = _strike_arrays(state, _strikes(payload["strike"], "strike"), geo)
        res = log_from_json(payload["log"], state, cb, cue, geo)
    outs, new = play_strokes([state], res, cb, cue, injected=[inject], players=[player],
                             choices=[choices], rules=rules, geo=geo,
                             allow_overflow=payload.get("allow_overflow", False))
    return {"outcome": outs[0].to_json(geo), "state": new[0].to_json(geo)}

