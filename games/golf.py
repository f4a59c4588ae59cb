"""Golfbillard for T tables at once: the game layer (API shape: :mod:`cuegym.games`).

Example:
    >>> import numpy as np
    >>> from cuegym.games.golf import Golf
    >>> from cuegym.games.strikes import Strikes
    >>> G = Golf({"match": "single"})
    >>> states = G.new(4)
    >>> b = G.opening_balls(states)                      # G-3: the middle balls
    >>> s0 = Strikes(np.tile([1.1, 20.0, 0, 0, 0], (4, 1)), b[:, 0], np.full((4, 2), np.nan))
    >>> s1 = Strikes(np.tile([1.1, 200.0, 0, 0, 0], (4, 1)), b[:, 1], np.full((4, 2), np.nan))
    >>> out, states = G.play(states, s0, strikes1=s1, allow_overflow=True)
    >>> bool(out.opening.all())
    True

``play`` is execution noise -> one batched physics call -> the compiled referee and game flow
(:mod:`cuegym.rules.golf_flow`, numba over the table axis); states and outcomes stay arrays.
Per-table values are the rules' :class:`~cuegym.rules.golfbillard.GolfState`,
:class:`~cuegym.rules.golfbillard.GolfOutcome` and
:class:`~cuegym.rules.golf_views.OpeningOutcome` (``docs/rules_golfbillard.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cuegym.configs import load_params, short_repr
from cuegym.physics.api import check_run_settings
from cuegym.rules.golf_arrays import (
    BALLS_PER_SIDE,
    N_BALLS,
    SIDE_OF,
    GolfInputs,
    GolfStates,
    OutcomeArrays,
    check_states,
    plain_inputs,
)
from cuegym.rules.golf_batch import check_next_layouts, new_states, referee
from cuegym.rules.golf_codes import P_OPENING, P_OVER, P_PLAY, RULE
from cuegym.rules.golf_opening import opening_balls_kernel
from cuegym.rules.golf_paths import golf_arrays
from cuegym.rules.golf_structs import geometry_struct
from cuegym.rules.golf_views import make_inputs, outcome_object, pack_states, policy_draws
from cuegym.rules.golfbillard import GolfRules, check_overflow, golf_geometry, load_golf_rules
from cuegym.rules.inputs import req_int

from . import checks
from .golf_obs import OBS_DIM, observe_arrays
from .noise import ShotNoise, check_intended, execute_strikes
from .rewards import weighted_total
from .strikes import Strikes, active_tables

#: The reward terms of golfbillard (weights: ``configs/reward/golfbillard.yaml``).
REWARD_TERMS = ("own_goals", "opponent_goals", "foul", "progress", "opponent_scored", "result")


@dataclass
class GolfOutcomes:
    """What one stroke per table did: the referee's :class:`OutcomeArrays` (every field readable
    here, e.g. ``out.scored`` (T, 2), ``out.n_fouls`` (T,), ``out.opening`` (T,)) plus:

    Attributes:
        arrays: the OutcomeArrays. inputs: the GolfInputs the referee read.
        xy0: (T, 10, 2) positions before the stroke [m].
        strike: (T, 2, 5) executed strikes (column 1: side 1's opening strike; NaN unused).
        active: (T,) bool, the tables that struck (others: zero rows).
        sim: the physics result (None when nothing was simulated); row: (T,) each table's row
            in it (-1: none).
    """

    arrays: OutcomeArrays
    inputs: GolfInputs
    xy0: np.ndarray
    strike: np.ndarray
    active: np.ndarray
    sim: Any = None
    row: Any = None
    geo: Any = None

    def __getattr__(self, name: str) -> Any:
        arrays = self.__dict__.get("arrays")
        if arrays is not None and name in OutcomeArrays._fields:
            return getattr(arrays, name)
        raise AttributeError(name)

    def __len__(self) -> int:
        return int(self.active.shape[0])

    @property
    def foul(self) -> np.ndarray:
        """(T,) bool: the stroke was penalised."""
        return self.arrays.n_fouls > 0

    @property
    def first_rule(self) -> np.ndarray:
        """(T,) rule id of the penalised foul ('' for none), e.g. ``G-12``."""
        from cuegym.rules.golf_codes import RULES

        names = np.array(("",) + RULES)
        return names[np.where(self.foul, self.arrays.f_rule[:, 0] + 1, 0)]

    def outcome(self, t: int) -> Any:
        """Table t as the rules' GolfOutcome / OpeningOutcome (None where it did not strike)."""
        if not self.active[t]:
            return None
        return outcome_object(self.arrays, int(t), self.geo, self.inputs)

    def __getitem__(self, t: int) -> Any:
        return self.outcome(t)

    def outcomes(self) -> list:
        return [self.outcome(t) for t in range(len(self))]


class Golf:
    """Golfbillard for T tables at once (static side: rules, table, zone arrays).

    Args:
        rules: a :class:`~cuegym.rules.golfbillard.GolfRules`, a mapping of options over the
            shipped file (``configs/rules/golfbillard.yaml``), or None. Its ``spot_policy``
            and ``pick_policy`` (G-30, G-25) must be policies (``first_free``, ``random``,
            ...): a stroke here is played whole, with no one to ask, so ``agent`` (the
            caller answers each choice: :func:`cuegym.rules.golfbillard_game.play_strokes`
            with ``choices``, or the web table) is refused.
    """

    def __init__(self, rules: GolfRules | Mapping | None = None) -> None:
        self.rules = rules if isinstance(rules, GolfRules) else load_golf_rules(
            **dict(rules or {}))
        for opt in ("spot_policy", "pick_policy"):
            # the referee would stop at the first penalised ball, in the middle of a step
            if getattr(self.rules, opt) == "agent":
                raise ValueError(
                    f"rules {opt} 'agent' needs the caller to answer each choice, which the "
                    "games, envs and arenas do not ask (they play whole strokes): use a policy "
                    "(configs/rules/golfbillard.yaml lists them), or play_strokes with choices "
                    "(cuegym.rules.golfbillard_game)")
        self.geo = golf_geometry()
        self.arrays = golf_arrays(self.geo)
        self.table = self.geo.table
        self.params = load_params("golfbillard")
        self.R = float(self.params.R)
        self.half = (self.table.length / 2, self.table.width / 2)

    # -- states -----------------------------------------------------------------------------

    def new(self, T: int, *, seed: Any = 0, openers: Any = (0, 0)) -> GolfStates:
        """T new matches (G-3, G-4): balls on their start spots, the opening to play (or side
        0 to move with ``opening: alternate``). ``seed``: the state's base seed (int or (T,));
        ``openers``: G-31 partners of game 1 (duo play only)."""
        T = req_int(T, "T", lo=0)
        seed = checks.seeds(seed, T)
        o = np.broadcast_to(np.asarray(openers, np.int64), (T, 2))
        if ((o != 0) & (o != 1)).any():
            raise ValueError(f"openers must be partners 0/1, got {openers!r}")
        if not self.rules.duo and o.any():
            raise ValueError(f"openers = {openers!r} but rules.duo is off: a singles side has "
                             "one player (partner 0)")
        return new_states(T, self.rules, self.geo, seed, o)

    @staticmethod
    def batch(states: Sequence[Any] | GolfStates) -> GolfStates:
        """A GolfStates batch from per-table GolfState values (or a batch, returned as is)."""
        return states if isinstance(states, GolfStates) else pack_states(list(states))

    @staticmethod
    def _batch(states: Any) -> GolfStates:
        """``states`` as a batch, after refusing what is not golfbillard states (the other
        game's states, arrays, ...) with a ValueError naming it. The methods that only read
        the batch with numpy (``observe``, ``players``, ``result``, ...) take it so."""
        from cuegym.games.kegle_state import KegleStates
        from cuegym.rules.golf_state import GolfState
        from cuegym.rules.keglebillard_game import GameState

        checks.batch_type(states, GolfStates, GolfState, "golfbillard", (KegleStates, GameState))
        return Golf.batch(states)

    def _checked(self, states: Any) -> GolfStates:
        """:meth:`_batch`, then refused unless the compiled referee and flow can take its
        arrays (:func:`~cuegym.rules.golf_arrays.check_states`: shapes, dtypes, index ranges,
        the balls on this table) with a ValueError naming the field, the table and the value:
        where a batch enters a kernel, before anything is changed or drawn."""
        return check_states(self._batch(states), self.half, self.geo.ball_ids)

    def opening_balls(self, states: GolfStates | Sequence[Any]) -> np.ndarray:
        """(T, 2) the ball each side must open with (G-3: the middle ball while on the table)."""
        return self._opening_balls(self._checked(states))

    def _opening_balls(self, states: GolfStates) -> np.ndarray:
        out = np.zeros((len(states), 2), np.int64)
        opening_balls_kernel(states.xy, geometry_struct(self.geo), out)
        return out

    def legal_balls(self, states: GolfStates | Sequence[Any]) -> np.ndarray:
        """(T, 10) bool: the balls the side to move may strike (G-2: its own on the table; in
        the opening, G-3, side 0's due ball; side 1's is ``opening_balls(states)[:, 1]``)."""
        states = self._checked(states)
        on = ~np.isnan(states.xy[..., 0])
        own = SIDE_OF[None] == states.to_move[:, None]
        ok = on & own & (states.phase == P_PLAY)[:, None]
        op = np.flatnonzero(states.phase == P_OPENING)
        if len(op):
            ok[op, self._opening_balls(states.take(op))[:, 0]] = True
        return ok

    def players(self, states: GolfStates | Sequence[Any]) -> np.ndarray:
        """(T, 2) the due duo partners (G-31): play: column 0 the partner of the side to move;
        opening: the two openers."""
        return self._players(self._batch(states))

    @staticmethod
    def _players(states: GolfStates) -> np.ndarray:
        rows = np.arange(len(states))
        out = np.stack([states.partner[rows, states.to_move], np.full(len(states), -1)], 1)
        op = states.phase == P_OPENING
        out[op] = states.openers[op]
        return out

    # -- playing ----------------------------------------------------------------------------

    def play(self, states: GolfStates, strikes: Strikes, noise: ShotNoise | None = None,
             rng: Any = None, *, strikes1: Strikes | None = None,
             active: np.ndarray | None = None, players: np.ndarray | None = None,
             max_events: int = 300, t_max: float = 60.0, threads: int | None = None,
             workspace: Any = None, validate: bool = False, allow_overflow: bool = False
             ) -> tuple[GolfOutcomes, GolfStates]:
        """Play one stroke per table: the side to move strikes (an opening: both sides).

        Args:
            states: T states, none over where ``active``; a batch the compiled referee cannot
                take (:func:`~cuegym.rules.golf_arrays.check_states`: a field of the wrong
                shape or dtype, an index out of range, a ball half NaN or off the table) is a
                ValueError naming the field, the table and the value, before anything is drawn.
            strikes: T strikes of the side to move (in an opening: side 0's, on its due ball).
            noise, rng: execution noise on the strikes of the active tables (a ``ShotNoise``
                or what ``load_noise`` reads, e.g. ``"tournament"``; ``rng``: one generator or
                T of them). Without noise (None) the strikes must be in the physics' limits.
            strikes1: side 1's opening strikes (read where a table is in its opening).
            active: (T,) bool (a bool array: ints are refused), the tables that strike
                (default all); the others keep their state.
            players: (T, 2) duo partners who struck (G-31; default the due ones).
            max_events, t_max, threads, workspace, validate: physics settings.
            allow_overflow: score a stroke cut off by ``max_events`` / ``t_max`` where it
                ended (refused by default: the rules judge balls at rest).

        Returns:
            (outcomes, next states).
        """
        from cuegym.physics import GAME_MODELS, simulate

        states = self._checked(states)
        T = len(states)
        for name, st in (("strikes", strikes), ("strikes1", strikes1)):
            if not isinstance(st, Strikes) and (name == "strikes" or st is not None):
                raise ValueError(f"{name} must be a Strikes batch (cuegym.games.strikes), got "
                                 f"{type(st).__name__}")
        noise = checks.play_noise(noise)
        checks.play_rng(rng, T)
        check_run_settings(max_events, t_max, threads, workspace, validate)  # before any draw
        act, idx = active_tables(strikes, T, active, states.over, "match")
        opening = act & (states.phase == P_OPENING)
        op = np.flatnonzero(opening)
        if len(op) and strikes1 is None:
            raise ValueError(f"table {int(op[0])} is in its opening (G-3): pass strikes1, "
                             "side 1's opening strikes")
        if len(op) and len(strikes1) != T:
            raise ValueError(f"{len(strikes1)} strikes1 for {T} tables")
        executed = np.zeros((T, 2, 5))
        cb = np.full((T, 2), -1, np.int64)
        cb[idx, 0] = strikes.cue_ball[idx]  # noise keeps the struck balls: checked before it
        if len(op):
            cb[op, 1] = strikes1.cue_ball[op]
        self._check_balls(states, cb, act)
        pl = self._players(states) if players is None else self._checked_players(players, T)
        if len(op):  # side 1's strikes checked too before side 0's noise is drawn
            check_intended(strikes1, op)
        executed[idx, 0] = execute_strikes(strikes, idx, noise, rng).cue
        if len(op):
            executed[op, 1] = execute_strikes(strikes1, op, noise, rng).cue
        xy = np.where(act[:, None, None], states.xy, np.nan)
        present = ~np.isnan(xy[..., 0])
        sim = None
        row = np.full(T, -1, np.int64)
        if len(idx):
            # every table keeps its row (an inactive one has no balls and ends at once), so a
            # workspace's log buffers keep their shape
            sim = simulate(self.table, self.params, np.where(present[..., None], xy, 0.0),
                           cue_ball=cb, cue=executed,
                           present=present, max_events=max_events, t_max=t_max,
                           threads=threads, validate=validate, workspace=workspace,
                           models=GAME_MODELS)
            row[idx] = idx
            check_overflow(sim, allow_overflow, idx)
        inputs = plain_inputs(cb, executed, pl, physics=True,
                              draws=policy_draws(states, self.rules))
        out, new = self._referee(states, sim, inputs, act)
        return GolfOutcomes(out, inputs, states.xy.copy(),
                            np.where(cb[..., None] >= 0, executed, np.nan), act, sim, row,
                            self.geo), new

    def _checked_players(self, players: Any, T: int) -> np.ndarray:
        """``players`` as (T, 2) int64: each side's partner at the table, 0 or 1 in duo play
        (G-31), 0 in singles; a ValueError naming the value otherwise."""
        try:
            pl = np.asarray(players)
        except (TypeError, ValueError):
            pl = np.asarray(None)
        if pl.shape != (T, 2) or pl.dtype.kind not in "iub":
            raise ValueError(f"players must be a (T, 2) = ({T}, 2) integer array of each "
                             f"side's partner, got {short_repr(players)}")
        hi = 1 if self.rules.duo else 0
        bad = (pl < 0) | (pl > hi)
        if bad.any():
            t, s = (int(i) for i in np.argwhere(bad)[0])
            raise ValueError(f"players[{t}, {s}] = {int(pl[t, s])}: a partner is "
                             + ("0 or 1 (G-31 duo)" if hi else "0 in singles (duo is off)"))
        return pl.astype(np.int64)

    def _check_balls(self, states: GolfStates, cb: np.ndarray, act: np.ndarray) -> None:
        """Struck balls must be on the table (a ball of the other side is legal input: the
        G-18 foul ``played_opponent_ball``, G-2)."""
        rows = np.flatnonzero(act & (states.phase == P_PLAY))
        b = cb[rows, 0]
        on = (b >= 0) & (b < N_BALLS)
        on[on] = ~np.isnan(states.xy[rows[on], b[on], 0])
        if not on.all():
            t = int(rows[np.argmin(on)])
            raise ValueError(f"table {t}: ball {int(cb[t, 0])} is not a ball on the table")
        op = np.flatnonzero(act & (states.phase == P_OPENING))
        if len(op):
            bo = cb[op]
            ok = (bo >= 0).all(1) & (bo // BALLS_PER_SIDE == [0, 1]).all(1)
            ok &= ~np.isnan(states.xy[op[:, None], np.clip(bo, 0, N_BALLS - 1), 0]).any(1)
            if not ok.all():
                t = int(op[np.argmin(ok)])
                raise ValueError(f"table {t}: the opening needs a ball of side 0 (strikes) and "
                                 f"one of side 1 (strikes1) on the table, got {cb[t].tolist()}")

    def _referee(self, states: GolfStates, log: Any, inputs: GolfInputs, act: np.ndarray
                 ) -> tuple[OutcomeArrays, GolfStates]:
        """Referee the tables ``act`` in place in the batch (the others keep their states)."""
        idx = np.flatnonzero(act)
        if not len(idx):  # (no table struck: no physics log, nothing to referee)
            from cuegym.rules.golf_arrays import empty_outcomes

            return empty_outcomes(len(states)), states.copy()
        return referee(states, log, inputs, self.rules, self.geo,
                       rows=None if len(idx) == len(act) else idx)

    def apply_log(self, states: GolfStates | Sequence[Any], log: Any, cue_ball: np.ndarray,
                  cue: np.ndarray, *, injected: Sequence[Any] | None = None,
                  players: Sequence[Any] | None = None, choices: Sequence[Any] | None = None,
                  allow_overflow: bool = False) -> tuple[GolfOutcomes, GolfStates]:
        """Score T strokes already simulated from ``states`` (``log``: a SimResult or a
        hand-written log, one table per state; ``cue_ball`` (T, 2), ``cue`` (T, 2, 5)) with
        injected events, partners and the opponent's choices (the rules' JSON inputs)."""
        states = self._checked(states)
        T = len(states)
        n_log = len(np.asarray(log.t_end))
        if n_log != T:  # (Kegle.apply_log says the same)
            raise ValueError(f"{T} states for a log of {n_log} tables")
        cue_ball, cue = np.asarray(cue_ball, np.int64), np.asarray(cue, np.float64)
        for name, a, shape in (("cue_ball", cue_ball, (T, 2)), ("cue", cue, (T, 2, 5))):
            if a.size != np.prod(shape):
                raise ValueError(f"{name} must have shape {shape} (both sides' strikes per "
                                 f"table), got {a.shape}")
        check_overflow(log, allow_overflow)
        inputs = make_inputs(cue_ball.reshape(T, 2), cue.reshape(T, 2, 5),
                             np.asarray(log.t_end, np.float64), self.geo, injected=injected,
                             players=players, choices=choices,
                             physics=getattr(log, "prm", None) is not None,
                             draws=policy_draws(states, self.rules))
        out, new = referee(states, log, inputs, self.rules, self.geo)
        check_next_layouts(new, self.geo)  # a log written by hand may leave a ball on a cap
        return GolfOutcomes(out, inputs, states.xy.copy(), inputs.cue.copy(),
                            np.ones(T, bool), log, np.arange(T), self.geo), new

    # -- rewards and observations ------------------------------------------------------------

    def goal_distance(self, xy: np.ndarray, side: np.ndarray) -> np.ndarray:
        """(T,) mean distance [m] of each side's own balls to its attack goal; a scored ball
        counts 0."""
        side = np.asarray(side, np.int64)
        goal = self.geo.goals[side, :2]  # attack goal index == side
        own = SIDE_OF[None] == side[:, None]
        d = np.hypot(xy[..., 0] - goal[:, None, 0], xy[..., 1] - goal[:, None, 1])
        return np.where(own, np.nan_to_num(d, nan=0.0), 0.0).sum(1) / BALLS_PER_SIDE

    def progress(self, xy0: np.ndarray, xy1: np.ndarray, side: np.ndarray,
                 new_game: np.ndarray | None = None) -> np.ndarray:
        """(T,) decrease of :meth:`goal_distance` from ``xy0`` to ``xy1``, in table lengths;
        0 where ``new_game`` (T,) bool: a game of the match ended between them, and ``xy1`` is
        the next game's start (its balls back on their spots are no move of the player's)."""
        out = (self.goal_distance(xy0, side) - self.goal_distance(xy1, side)) \
            / self.table.length
        return out if new_game is None else np.where(new_game, 0.0, out)

    @staticmethod
    def _offenders(a: OutcomeArrays) -> np.ndarray:
        """(T, F) the side whose foul each listed foul is, -1 past ``n_fouls``. In play the
        shooter's; in the opening the side each foul records in ``f_det[..., 1]`` (G-3, G-18,
        G-31: the side that opened; G-19: the side that played the ball between the caps,
        which may be the other side's ball, so the named ball's side would be wrong)."""
        side = np.where(a.opening[:, None], a.f_det[:, :, 1].astype(np.int64),
                        a.shooter[:, None])
        return np.where(np.arange(a.f_rule.shape[1])[None] < a.n_fouls[:, None], side, -1)

    def reward_terms(self, outcomes: GolfOutcomes, weights: Any = None,
                     viewer: np.ndarray | None = None, result: np.ndarray | None = None
                     ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Each golfbillard reward term of one stroke per table, and their weighted sum.

        For ``viewer`` (T,) sides (default: the shooter; in an opening side 0): where the
        viewer struck, ``own_goals`` (its balls scored), ``opponent_goals`` (the other side's
        balls scored by the stroke, G-7, G-17), ``foul`` (1), ``progress`` (its balls' mean
        distance to its attack goal decreased, in table lengths); where the other side struck,
        ``opponent_scored`` (balls it scored). An opening is both sides' stroke: the viewer gets
        its own balls, a foul of its side, and ``opponent_scored`` for the other's.
        ``result`` (T,) is passed through. Tables that did not strike get zeros.
        """
        from cuegym.envs.config import load_reward

        weights = load_reward("golfbillard", weights)  # a mapping or YAML path too; checked
        a = outcomes.arrays
        T = len(outcomes)
        act = outcomes.active
        v = (np.where(a.opening, 0, a.shooter) if viewer is None
             else checks.seats(viewer, T, 2, "viewer"))
        rows = np.arange(T)
        own_struck = act & (a.opening | (a.shooter == v))
        terms = {name: np.zeros(T) for name in REWARD_TERMS}
        sc_side = a.scored_mask.reshape(T, 2, BALLS_PER_SIDE).sum(-1)
        mine, theirs = sc_side[rows, v], sc_side[rows, 1 - v]
        terms["own_goals"] = np.where(own_struck, mine, 0.0)
        terms["opponent_goals"] = np.where(act & ~a.opening & (a.shooter == v), theirs, 0.0)
        foul = (self._offenders(a) == v[:, None]).any(1)
        terms["foul"] = np.where(own_struck, foul, 0.0).astype(np.float64)
        terms["progress"] = np.where(own_struck, self.progress(outcomes.xy0, a.xy, v), 0.0)
        terms["opponent_scored"] = np.where(act & a.opening, theirs, 0.0) + np.where(
            act & ~a.opening & (a.shooter != v), theirs, 0.0)
        if result is not None:
            terms["result"] = np.broadcast_to(np.asarray(result, np.float64), (T,)).copy()
        return terms, self.total(terms, weights)

    total = staticmethod(weighted_total)

    @staticmethod
    def result(states: GolfStates, sides: np.ndarray) -> np.ndarray:
        """(T,) +1 the side won the match, -1 lost, 0 a draw or while it goes on."""
        states = Golf._batch(states)
        w = states.match_winner
        sides = checks.seats(sides, len(states), 2, "sides")
        over = (states.phase == P_OVER) & ((w == 0) | (w == 1))
        return np.where(over, np.where(w == sides, 1.0, -1.0), 0.0)

    @staticmethod
    def ended_by_no_progress(states: GolfStates) -> np.ndarray:
        """(T,) bool: the match is over without a winner and its last game was a G-5
        no-progress draw, which the envs report as a truncation, not a termination (G-5). A
        match that a side had already won on games (best of 3: 1-0, then two draws) ends with
        a result, so it terminates."""
        states = Golf._batch(states)
        return (states.phase == P_OVER) & (states.winner == 2) & (states.match_winner == 2)

    def observe(self, states: GolfStates | Sequence[Any], sides: Any = None,
                to_move: np.ndarray | None = None) -> np.ndarray:
        """(T, OBS_DIM) float32 observations (``cuegym.games.golf_obs.OBS_LAYOUT``) from the
        point of view of ``sides`` (T,) (default: the side to move)."""
        states = self._batch(states)
        sides = states.to_move if sides is None else checks.seats(sides, len(states), 2, "sides")
        return observe_arrays(states, sides, self.half, to_move, self.rules.games_to_win)


__all__ = ["OBS_DIM", "REWARD_TERMS", "Golf", "GolfOutcomes", "GolfStates", "RULE"]
