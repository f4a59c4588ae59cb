"""Keglebillard, the game layer: the one place that plays a keglebillard shot, for T tables.

:class:`Kegle` holds the static side (rule set, table, ball and pin sizes, as arrays built
once). Its batch API (see :mod:`cuegym.games`):

    states = G.new(T, n_players)                       # KegleStates (arrays, table axis first)
    ok = G.legal_placement(states, place)              # K-19, (T,) bool
    outcomes, states = G.play(states, strikes, noise, rng)
    terms, reward = G.reward_terms(outcomes, weights)  # each reward term, once
    obs = G.observe(states, players)

``play``: execution noise (:class:`~cuegym.games.noise.ShotNoise`) -> the K-19 placement check
(:func:`~cuegym.games.kegle_flow.placement_codes`) -> one batched ``cuegym.physics.simulate`` ->
the referee (``cuegym.rules.keglebillard.score_shots``, numpy over the table axis) -> the
compiled game flow (:func:`~cuegym.games.kegle_flow.resolve`). The per-table methods
(:meth:`Kegle.new_state`, :meth:`Kegle.apply`, :meth:`Kegle.placement_foul`,
:meth:`Kegle.placement_error`, :meth:`Kegle.next_game`) are the same code on a batch of one,
for the JSON referee (``python -m cuegym.rules keglebillard``) and hand-built logs.

Example:
    >>> from cuegym.games.kegle import Kegle
    >>> from cuegym.rules.keglebillard import build_log
    >>> G = Kegle()
    >>> log = build_log([(0.2, "ball_ball", "red", "white"), (0.5, "cushion", "white", 1),
    ...                  (0.9, "pin", "white", "king")])
    >>> outcome, state = G.apply(G.new_state(2), log)
    >>> outcome.shooter_points, state.scores, state.to_play
    (6, (6, 0), 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from cuegym.configs import load_params
from cuegym.physics.api import check_run_settings
from cuegym.physics.constants import POCKETED, STATIONARY
from cuegym.rules.inputs import (
    MATCH_TOL,
    MAX_PLAYERS,
    RefereeInputError,
    check_layout,
    req_int,
)
from cuegym.rules.keglebillard import (
    BALL_IDS,
    FOUL_COLUMNS,
    N_BALLS,
    N_PINS,
    PIN_IDS,
    RED,
    KeglebillardRules,
    default_table,
    load_rules,
    parse_injected,
    read_log,
    salvo_x,
    score_shots,
    sim_log,
    white_spots,
)

from . import checks
from . import kegle_flow as flow
from .kegle_obs import OBS_DIM, OTHER_SEATS, observe_arrays, seats_view
from .kegle_state import (
    HAND_NONE,
    HAND_SALVO,
    KegleOutcomes,
    KegleStates,
    check_state_layout,
    check_states,
    empty_states,
    from_game_states,
)
from .noise import ShotNoise, execute_strikes
from .rewards import weighted_total
from .strikes import Strikes, active_tables

#: Reward terms a keglebillard shot defines (``configs/reward/keglebillard.yaml``).
REWARD_TERMS = ("points", "skaeve", "foul", "win", "skaeve_received", "opponent_points",
                "result")


class Kegle:
    """Keglebillard for T tables at once (static side: rules, table, sizes).

    Args:
        rules: a :class:`~cuegym.rules.keglebillard.KeglebillardRules`, a mapping of options
            over the shipped file, or None (``configs/rules/keglebillard.yaml``).
        table: table config name (``keglebillard`` or ``keglebillard-helmatch``).
    """

    def __init__(self, rules: KeglebillardRules | Mapping | None = None,
                 table: str = "keglebillard") -> None:
        self.rules = rules if isinstance(rules, KeglebillardRules) else load_rules(rules)
        self.table_name = table
        self.table = t = default_table(table)
        self.params = load_params("keglebillard")
        self.R = R = self.params.R
        self.r_pin = t.pin_radius
        self.pin_spots = np.asarray(t.pin_spots, np.float64).reshape(N_PINS, 2)
        self.spots = white_spots(t)
        self.salvo_x = salvo_x(t)
        # K-P7: a pin spot is free when no ball centre lies within R + r_pin + clearance
        self.respot_r = R + self.r_pin + float(t.spots["respot_clearance"])
        self.hx, self.hy = t.length / 2 - R, t.width / 2 - R
        self.half = (t.length / 2, t.width / 2)
        self._pockets = np.array([[p.x, p.y, p.radius] for p in t.pockets],
                                 np.float64).reshape(-1, 3)
        self._circles = np.array([[c.x, c.y, c.radius] for c in t.circles],
                                 np.float64).reshape(-1, 3)
        r = self.rules
        self._rules_i = np.array([r.ddbu, r.skaeve_to == "next", r.ball_in_hand_area == "salvo",
                                  r.unsporting_loss, r.distance], np.int64)

    # -- new games --------------------------------------------------------------------------

    def new(self, T: int, n_players: int, *, first_player: Any = None,
            rng: np.random.Generator | int | None = None) -> KegleStates:
        """T new games (K-3): whites on their spots, pins up, the red in hand behind the salvo
        line. Who breaks (K-4): ``first_player`` (an int or (T,) ints) if given; else by
        ``rules.first_player`` (``random`` draws T from ``rng``; ``lag`` needs
        ``first_player``, the winner of :func:`~cuegym.rules.keglebillard.judge_lag`)."""
        n = req_int(n_players, "n_players", hi=MAX_PLAYERS)
        if n < 2:
            raise ValueError(f"keglebillard needs at least 2 players (K-1), got {n}")
        T = req_int(T, "T", lo=0)
        if first_player is None:
            if self.rules.first_player == "player0":
                first_player = 0
            elif self.rules.first_player == "random":
                g = checks.draw_rng(rng)
                first_player = g.integers(n) if T == 1 else g.integers(n, size=T)
            else:
                raise ValueError("rules.first_player = 'lag': pass first_player, the winner of "
                                 "the lag (cuegym.rules.keglebillard.judge_lag, K-24)")
        try:
            fp = np.broadcast_to(np.asarray(first_player), (T,))
        except ValueError:
            raise ValueError(f"first_player must be one player or one per table ({T}), got "
                             f"shape {np.shape(first_player)}") from None
        if not np.issubdtype(fp.dtype, np.integer) or ((fp < 0) | (fp >= n)).any():
            raise ValueError(f"first_player must be in 0..{n - 1}, got {first_player!r}")
        s = empty_states(T, n, self.table_name)
        s.xy[:, 1] = self.spots[0]
        s.xy[:, 2] = self.spots[1]
        s.hand[:] = HAND_SALVO
        s.to_play[:] = fp
        return s

    def new_state(self, n_players: int, *, first_player: int | None = None,
                  rng: np.random.Generator | int | None = None):
        """One new game as a rules ``GameState`` (see :meth:`new`)."""
        if first_player is not None:
            first_player = req_int(first_player, "first_player")
        return self.new(1, n_players, first_player=first_player, rng=rng).state(0)

    def next_game(self, state):
        """K-23: the loser breaks, then the others in reverse finishing order (winner last)."""
        if not state.game_over:
            raise ValueError("next_game needs a finished game")
        self.check_state(state)  # a game of another table would move onto this one's spots
        order = tuple(reversed(state.ranking))
        return replace(self.new_state(state.n_players, first_player=order[0]), order=order)

    def check_state(self, state, path: str = "state") -> None:
        """Raise :class:`~cuegym.rules.inputs.RefereeInputError` if the rules ``GameState``
        ``state`` cannot arise under these rules.

        On top of ``GameState.__post_init__`` (structure) and ``GameState.from_dict``
        (positions): the state's table is this game's; while the game runs, a player still in
        is below the distance unless exactly two are left in the house rules (K-22 keeps them
        in), and every finished player reached it (K-21); the K-25 counters are 0 in the house
        rules.
        """
        from cuegym.rules.inputs import RefereeInputError

        if state.table != self.table_name:
            raise RefereeInputError(f"{path}.table {state.table!r} is not this game's table "
                                    f"{self.table_name!r}")
        d = self.rules.distance
        if not state.game_over:
            in_game = state.in_game
            for p in in_game:
                if state.scores[p] >= d and (self.rules.ddbu or len(in_game) > 2):
                    raise RefereeInputError(
                        f"{path}.scores[{p}] = {state.scores[p]} reaches the distance {d}, but "
                        f"player {p} is still in with {len(in_game)} players left (K-21: "
                        "finished; only two players left in the house rules can stay, K-22)")
            for p in state.finished:
                if state.scores[p] < d:
                    raise RefereeInputError(
                        f"{path}.scores[{p}] = {state.scores[p]} is below the distance {d}, but "
                        f"player {p} finished while the game goes on (K-21)")
        if not self.rules.ddbu and (state.run_no_cushion or state.rodt_streak):
            raise RefereeInputError(f"{path}.ddbu counters must be 0 in the house rules, got "
                                    f"run_no_cushion {state.run_no_cushion}, rodt_streak "
                                    f"{state.rodt_streak}")

    def batch(self, states: Sequence[Any] | KegleStates) -> KegleStates:
        """A :class:`KegleStates` from rules ``GameState`` values (a batch is returned as is)."""
        return from_game_states(states)

    @staticmethod
    def _batch(states: Any) -> KegleStates:
        """``states`` as a batch, after refusing what is not keglebillard states (the other
        game's states, arrays, ...) with a ValueError naming it. The methods that only read
        the batch with numpy (``observe``, ``result``) take it so."""
        from cuegym.rules.golf_arrays import GolfStates
        from cuegym.rules.golfbillard import GolfState
        from cuegym.rules.keglebillard_game import GameState

        checks.batch_type(states, KegleStates, GameState, "keglebillard",
                          (GolfStates, GolfState))
        return from_game_states(states)

    def _checked(self, states: Any) -> KegleStates:
        """:meth:`_batch`, then refused unless the compiled flow can take its arrays
        (:func:`~cuegym.games.kegle_state.check_states`: shapes, dtypes, index ranges, the
        turn order, who is still in, the balls on this table) with a ValueError naming the
        field, the table and the value: where a batch enters a kernel, before anything is
        changed or drawn."""
        return check_states(self._batch(states), self.half, self.table_name)

    # -- ball in hand (K-19) ------------------------------------------------------------------

    def placement_codes(self, states: KegleStates | Sequence[Any], place: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
        """(T,) ``kegle_flow.PLACE_*`` codes and the object in the way, for every table that
        has the red in hand (the others: PLACE_OK)."""
        return self._placement_codes(self._checked(states), place)

    def _placement_codes(self, states: KegleStates, place: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
        place = checks.placements(place, len(states))
        code = np.empty(len(states), np.int64)
        which = np.empty(len(states), np.int64)
        flow.placement_codes(place, np.ascontiguousarray(states.xy[:, 1:]),
                             states.hand != HAND_NONE, self.hx, self.hy, self._pockets,
                             self._circles, self.pin_spots, self.R, self.r_pin, code, which)
        return code, which

    def legal_placement(self, states: KegleStates | Sequence[Any], place: np.ndarray
                        ) -> np.ndarray:
        """(T,) bool: the placement can be played (K-19), or the red is not in hand."""
        states = self._checked(states)
        return self._placement_codes(states, place)[0] == flow.PLACE_OK

    def placement_error(self, state, xy: Sequence[float]) -> str | None:
        """Why the red cannot be placed at ``xy`` in ``state`` (K-19), or None if it can."""
        from cuegym.rules.inputs import req_xy

        x, y = req_xy(xy, "red placement")
        s = from_game_states([state])
        s.hand[:] = HAND_SALVO  # check the placement whatever the state says
        code, which = self._placement_codes(s, np.array([[x, y]]))
        return placement_message(int(code[0]), int(which[0]), x, y, self.table)

    def layout(self, states: KegleStates, place: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        """Physics inputs of T shots: xy (T, 3, 2) (the red from ``place`` where in hand;
        absent balls at their spot or the origin, never read) and present (T, 3)."""
        xy = states.xy.copy()
        inh = states.hand != HAND_NONE
        xy[inh, RED] = place[inh]
        present = ~np.isnan(xy[:, :, 0])
        for w in (1, 2):
            xy[~present[:, w], w] = self.spots[w - 1]
        xy[~present[:, RED], RED] = 0.0
        return xy, present

    # -- playing shots ------------------------------------------------------------------------

    def play(self, states: KegleStates, strikes: Strikes, noise: ShotNoise | None = None,
             rng: Any = None, *, active: np.ndarray | None = None,
             injected: Sequence[Iterable | None] | None = None, max_events: int = 400,
             t_max: float = 60.0, threads: int | None = None, workspace: Any = None,
             validate: bool = False, allow_overflow: bool = False
             ) -> tuple[KegleOutcomes, KegleStates]:
        """Play one strike per table: the player to move shoots.

        Args:
            states: T games, none over where ``active``; a batch the compiled flow cannot take
                (:func:`~cuegym.games.kegle_state.check_states`: a field of the wrong shape or
                dtype, an index out of range, a turn order that is no permutation, a player
                listed twice or to shoot after finishing, a ball half NaN or off the table) is a
                ValueError naming the field, the table and the value, before anything is drawn.
            strikes: T strikes (``place`` read where the red is in hand: a NaN or illegal
                placement is the K-19 foul, no shot).
            noise, rng: execution noise applied to the strikes of the active tables (a
                ``ShotNoise``, or what ``load_noise`` reads: a preset name such as
                ``"tournament"``, a scale factor, a mapping; ``rng``: one generator, or T
                generators of which those of active tables are used). Without noise (None) the
                strikes must be within the physics' limits.
            active: (T,) bool (a bool array: ints are refused), the tables that shoot
                (default all); the others keep their state (outcome row: ``shooter`` -1).
            injected: per table, injected events (K-14a, K-16) or None.
            max_events, t_max, threads, workspace, validate: physics settings
                (``cuegym.physics.simulate``).
            allow_overflow: score a shot the simulation cut off at ``max_events`` / ``t_max``
                where it ended (``outcomes.overflow`` says so); refused by default (K-P6: a shot
                ends at rest; ``cuegym.rules.keglebillard.score_shots``).

        Returns:
            (outcomes, next states); ``outcomes.sim`` is the physics result of the simulated
            tables and ``outcomes.row`` each table's row in it (-1: none).
        """
        states = self._checked(states)
        T = len(states)
        if not isinstance(strikes, Strikes):
            raise ValueError(f"strikes must be a Strikes batch (cuegym.games.strikes), got "
                             f"{type(strikes).__name__}")
        noise = checks.play_noise(noise)
        checks.play_rng(rng, T)
        act, idx = active_tables(strikes, T, active, states.game_over, "game")
        if (strikes.cue_ball[idx] != RED).any():
            t = int(idx[np.argmax(strikes.cue_ball[idx] != RED)])
            raise ValueError(f"table {t}: keglebillard strikes the red (ball 0, K-2), got "
                             f"cue_ball {int(strikes.cue_ball[t])}")
        injected = _parsed_injected(injected, act)  # before anything is drawn
        check_run_settings(max_events, t_max, threads, workspace, validate)
        executed = strikes.copy()
        executed.put(idx, execute_strikes(strikes, idx, noise, rng))
        code, _ = self._placement_codes(states, executed.place)
        ok = act & (code == flow.PLACE_OK)
        play = np.flatnonzero(ok)
        mode = np.where(act, flow.MODE_PLACEMENT_FOUL, flow.MODE_SKIP).astype(np.int8)
        mode[play] = flow.MODE_PLAYED
        sim, log, row = self._simulate_played(states, executed, ok, workspace,
                                              max_events=max_events, t_max=t_max,
                                              threads=threads, validate=validate)
        inj = _played_injected(injected, act & ~ok, play, executed.place)
        out, new = self._resolve(states, mode, play, log, inj, allow_overflow)
        out.strike = np.where(act[:, None], executed.cue, np.nan)
        out.place = np.where((act & (states.hand != HAND_NONE))[:, None], executed.place,
                             np.nan)
        out.sim, out.row = sim, row
        return out, new

    def _simulate_played(self, states: KegleStates, executed: Strikes, ok: np.ndarray,
                         workspace: Any, **physics: Any) -> tuple[Any, Any, np.ndarray]:
        """Simulate the strikes of the tables ``ok`` (T,) bool. Returns (the physics result or
        None when no table shoots, its log for the referee, (T,) each table's row in the result,
        -1 for none). ``physics``: max_events, t_max, threads, validate."""
        from cuegym.physics import GAME_MODELS, simulate

        T = len(states)
        play = np.flatnonzero(ok)
        row = np.full(T, -1, np.int64)
        if not len(play):
            return None, None, row
        xy, present = self.layout(states, executed.place)
        if workspace is not None and len(play) < T:
            # constant shape: every table in the call, so the workspace's log buffers are
            # reused; a table that does not shoot has no balls and ends at once
            present &= ok[:, None]
            xy[~present] = 0.0
            cue = np.where(ok[:, None], executed.cue, 0.0)
            sim = simulate(self.table, self.params, xy, cue_ball=np.where(ok, 0, -1), cue=cue,
                           pins_up=states.pins, present=present, workspace=workspace,
                           models=GAME_MODELS, **physics)
            row[play] = play
            return sim, sim_log(sim, play), row
        sim = simulate(self.table, self.params, xy[play], cue_ball=np.zeros(len(play), np.int64),
                       cue=executed.cue[play], pins_up=states.pins[play],
                       present=present[play], workspace=workspace, models=GAME_MODELS,
                       **physics)
        row[play] = np.arange(len(play))
        return sim, sim_log(sim), row

    def apply_log(self, states: KegleStates | Sequence[Any], log: Any,
                  injected: Sequence[Iterable | None] | None = None, *,
                  allow_overflow: bool = False) -> tuple[KegleOutcomes, KegleStates]:
        """Score T shots already simulated from ``states`` (``log``: a SimResult or anything
        :func:`~cuegym.rules.keglebillard.read_log` takes, one table per state) and advance.
        Where the red was in hand, its placement is the log's start position (K-19 checked).
        ``allow_overflow`` as in :meth:`play`.

        Raises:
            ValueError: the log does not start from the states (balls, pins), or bad input.
        """
        states = self._checked(states)
        lg = read_log(log, self.table)
        T = len(states)
        if len(lg) != T:
            raise ValueError(f"{T} states for a log of {len(lg)} tables")
        if states.game_over.any():
            raise ValueError(f"table {int(np.argmax(states.game_over))}: the game is over")
        place = lg.rvw0[:, RED, 0, :2]
        code, _ = self._placement_codes(states, place)
        ok = code == flow.PLACE_OK
        play = np.flatnonzero(ok)
        self._check_start(states.take(play), lg.take(play))
        mode = np.full(T, flow.MODE_PLACEMENT_FOUL, np.int8)
        mode[play] = flow.MODE_PLAYED
        inj = _played_injected(_parsed_injected(injected, np.ones(T, bool)), ~ok, play, place)
        out, new = self._resolve(states, mode, play, lg.take(play) if len(play) else None, inj,
                                 allow_overflow)
        try:  # a hand-made log's balls at rest must lie where a state can hold them
            check_state_layout(new, "next states")
        except ValueError as exc:
            raise ValueError(f"the log leaves the table in a layout no state can hold: "
                             f"{exc}") from None
        out.strike = np.full((T, 5), np.nan)
        out.place = np.where((states.hand != HAND_NONE)[:, None], place, np.nan)
        return out, new

    def _check_start(self, states: KegleStates, lg: Any) -> None:
        """The log must start from the state: same whites, pins, and red unless in hand; the
        whites at rest (K-2: the cue ball is always the red)."""
        present0 = lg.motion0 != POCKETED
        struck = present0 & (lg.motion0 != STATIONARY)
        struck[:, RED] = False
        if struck.any():
            t, b = np.argwhere(struck)[0]
            raise ValueError(f"the log has the {BALL_IDS[b]} ball moving at the start: the cue "
                             "ball is always the red (K-2); a white is never struck")
        on = ~np.isnan(states.xy[:, :, 0])
        check = np.ones_like(on)
        check[:, RED] = states.hand == HAND_NONE
        bad = check & (present0 != on)
        if bad.any():
            t, b = np.argwhere(bad)[0]
            raise ValueError(f"the log has the {BALL_IDS[b]} ball "
                             f"{'on' if present0[t, b] else 'off'} the table at the start, "
                             f"the state {'on' if on[t, b] else 'off'} it")
        d = np.hypot(*(np.nan_to_num(states.xy) - lg.rvw0[:, :, 0, :2]).transpose(2, 0, 1))
        bad = check & on & (d > MATCH_TOL)
        if bad.any():
            t, b = np.argwhere(bad)[0]
            raise ValueError(f"the log starts the {BALL_IDS[b]} ball at "
                             f"{lg.rvw0[t, b, 0, :2].tolist()}, the state has it at "
                             f"{states.xy[t, b].tolist()}")
        bad = (lg.pins_up0 != states.pins).any(1)
        if bad.any():
            t = int(np.argmax(bad))
            raise ValueError(f"the log's standing pins {lg.pins_up0[t].tolist()} differ from "
                             f"the state's {states.pins[t].tolist()}")

    #: ShotScores fields the flow and the outcomes read, with their trailing shapes and dtypes.
    _SCORE_FIELDS = {
        "points": ((), np.int64), "penalty": ((), np.int64), "foul": ((), bool),
        "win": ((), bool), "cushion": ((), bool), "rodt": ((), bool), "blegt": ((), bool),
        "king_alone": ((), bool), "clean16": ((), bool), "legal_pin": ((), bool),
        "ball_in_hand": ((), bool), "bih_salvo": ((), bool), "unsporting": ((), bool),
        "overflow": ((), np.int64), "pins_toppled": ((N_PINS,), bool),
        "pins_injected": ((N_PINS,), bool), "pin_toppler": ((N_PINS,), np.int64),
        "present0": ((N_BALLS,), bool), "pocketed": ((N_BALLS,), bool),
        "end_xy": ((N_BALLS, 2), np.float64), "fouls": ((len(FOUL_COLUMNS),), bool)}

    def _referee(self, states: KegleStates, play: np.ndarray, log: Any, injected: list | None,
                 allow_overflow: bool) -> tuple[dict[str, np.ndarray], np.ndarray, list | None]:
        """Score the played tables' log (rows = ``play``): the ShotScores fields as (T, ..)
        arrays (zeros where not played), where K-16 touched balls go back (T, 3, 2), and the
        injected K-16 labels per table (None without injected events)."""
        T = len(states)
        touch = np.full((T, N_BALLS, 2), np.nan)
        out = {k: np.zeros((T, *shape), dtype) for k, (shape, dtype) in self._SCORE_FIELDS.items()}
        labels = None
        if not len(play):
            return out, touch, labels
        inj = None
        if injected is not None:
            inj = [parse_injected(e) for e in injected]
            for k, t in enumerate(play):
                for e in inj[k]:
                    if e.type == "deliberate_touch":
                        for b, x, y in e.balls:
                            touch[t, b] = (x, y)
        sc = score_shots(log, self.rules, table=self.table,
                         salvo_line=states.hand[play] == HAND_SALVO, injected=inj,
                         allow_overflow=allow_overflow)
        for k, v in out.items():
            v[play] = getattr(sc, k)
        if inj is not None:
            self._check_touched(states, out, touch, play)
            labels = [()] * T
            for k, t in enumerate(play):
                labels[t] = tuple(e.label for e in sc.injected[k] if e.rule == "K-16")
        return out, touch, labels

    def _check_touched(self, states: KegleStates, out: dict[str, np.ndarray], touch: np.ndarray,
                       play: np.ndarray) -> None:
        """K-16 deliberate touch: the balls put back where the event says must fit among the
        balls the shot left on the table and the pins still standing (the state's layout check),
        or the next state would hold overlapping balls.

        Raises:
            RefereeInputError: naming the put-back ball and what it overlaps.
        """
        for t in play:
            back = ~np.isnan(touch[t, :, 0])
            if not back.any():
                continue
            balls = {}
            for b, name in enumerate(BALL_IDS):
                if back[b]:
                    balls[f"injected deliberate_touch balls.{name}"] = tuple(touch[t, b])
                elif (out["present0"][t, b] and not out["pocketed"][t, b]
                      and not (b == RED and out["ball_in_hand"][t])):  # red taken in hand
                    balls[f"the {name} where the shot left it"] = tuple(out["end_xy"][t, b])
            up = states.pins[t] & (out["pin_toppler"][t] == 0) & ~out["pins_injected"][t]
            check_layout(self.table, self.params, balls, up)

    def _resolve(self, states: KegleStates, mode: np.ndarray, play: np.ndarray, log: Any,
                 injected: list | None, allow_overflow: bool = False
                 ) -> tuple[KegleOutcomes, KegleStates]:
        """Referee the played tables' log (rows = ``play``) and run the compiled flow."""
        T, N = states.order.shape
        sc, touch, labels = self._referee(states, play, log, injected, allow_overflow)
        new = states.copy()
        o = {k: np.zeros(T, np.int64) for k in ("penalty", "shooter_points", "skaeve", "n_now")}
        o["shooter"] = np.full(T, -1, np.int64)
        o["lost"] = np.full(T, -1, np.int64)
        o["foul"] = np.zeros(T, bool)
        o["flow"] = np.zeros((T, 3), bool)
        o["to"] = np.zeros((T, N), bool)
        o["restood"] = np.zeros((T, N_PINS), bool)
        o["spotted"] = np.zeros((T, 2), bool)
        o["waiting"] = np.zeros((T, 2), bool)
        o["now"] = np.full((T, N), -1, np.int64)
        o["rank"] = np.full((T, N), -1, np.int64)
        flow.resolve(
            mode, self._rules_i, self.spots, self.pin_spots, self.R, self.respot_r,
            sc["points"], sc["penalty"], sc["foul"], sc["win"], sc["cushion"], sc["rodt"],
            sc["legal_pin"], sc["ball_in_hand"], sc["bih_salvo"], sc["unsporting"],
            sc["pins_toppled"], sc["pins_injected"], sc["present0"], sc["pocketed"],
            sc["end_xy"], touch,
            new.xy, new.pins, new.hand, new.order, new.scores, new.to_play, new.finished,
            new.n_finished, new.lost, new.n_lost, new.game_over, new.shot, new.run_no_cushion,
            new.rodt_streak, new.wait_spot,
            o["shooter"], o["penalty"], o["foul"], o["flow"], o["shooter_points"], o["skaeve"],
            o["to"], o["restood"], o["spotted"], o["waiting"], o["now"], o["n_now"], o["lost"],
            o["rank"])
        fouls = np.concatenate([sc["fouls"], o["flow"]], axis=1)
        outcomes = KegleOutcomes(
            shooter=o["shooter"], played=mode == flow.MODE_PLAYED, points=sc["points"],
            penalty=o["penalty"], foul=o["foul"], fouls=fouls,
            shooter_points=o["shooter_points"], skaeve=o["skaeve"], skaeve_to=o["to"],
            rodt=sc["rodt"], blegt=sc["blegt"], king_alone=sc["king_alone"],
            clean16=sc["clean16"], win=sc["win"], pins_toppled=sc["pins_toppled"],
            pin_toppler=sc["pin_toppler"], pins_injected=sc["pins_injected"],
            pins_restood=o["restood"], pins_up=new.pins.copy(), pocketed=sc["pocketed"],
            whites_spotted=o["spotted"], whites_waiting=o["waiting"], hand=new.hand.copy(),
            next_player=new.to_play.copy(), finished_now=o["now"], n_finished_now=o["n_now"],
            lost_now=o["lost"], game_over=new.game_over.copy(), scores=new.scores.copy(),
            overflow=sc["overflow"], strike=np.full((T, 5), np.nan),
            place=np.full((T, 2), np.nan), order=new.order.copy(), next_xy=new.xy.copy(),
            ranking=o["rank"], ball_in_hand=sc["ball_in_hand"], labels=labels)
        return outcomes, new

    # -- per-table conveniences (JSON referee, hand-built logs) -------------------------------

    def apply(self, state, log: Any, *, injected: Iterable | None = None, index: int = 0,
              allow_overflow: bool = False):
        """Score table ``index`` of ``log`` (played from the rules ``GameState`` ``state``)
        and advance: (ShotOutcome, next GameState); ``allow_overflow`` as in :meth:`play`.
        A state these rules cannot reach is refused (:meth:`check_state`)."""
        if state.game_over:
            raise ValueError("the game is over")
        self.check_state(state)
        lg = read_log(log, self.table).take([index])
        out, new = self.apply_log([state], lg, injected=[injected],
                                  allow_overflow=allow_overflow)
        return out.outcome(0), new.state(0)

    def placement_foul(self, state, red_xy: Sequence[float] | None = None, reason: str = ""):
        """K-19: the placement cannot be played. No shot happens: a foul with penalty 6 and no
        points; the next player has ball in hand, anywhere on the cloth, or behind the salvo
        line while the break is still to be played (K-3) or with the ``salvo`` option.
        (K-25: the turn just passes.) Returns (ShotOutcome, next GameState)."""
        if state.game_over:
            raise ValueError("the game is over")
        self.check_state(state)
        if state.ball_in_hand is None:
            raise ValueError("placement_foul: the player does not have ball in hand")
        if red_xy is not None and not reason and self.placement_error(state, red_xy) is None:
            raise ValueError(f"placement_foul: the red can be placed at {list(red_xy)}")
        s = from_game_states([state])
        out, new = self._resolve(s, np.array([flow.MODE_PLACEMENT_FOUL], np.int8),
                                 np.zeros(0, np.int64), None, None)
        return out.outcome(0), new.state(0)

    # -- rewards and observations -------------------------------------------------------------

    def reward_terms(self, outcomes: KegleOutcomes, weights: Any = None,
                     viewer: np.ndarray | None = None, result: np.ndarray | None = None
                     ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Each keglebillard reward term of one shot per table (K-5..K-22), and their weighted
        sum.

        From the shooter's side (``viewer`` None, or where ``viewer`` is the shooter):
        ``points`` (credited to the shot), ``skaeve`` (handed over by a foul, counted once;
        6 for a K-19 placement foul in the house rules), ``foul`` (1), ``win`` (K-20). From
        another player ``viewer`` (T,): ``skaeve_received`` (the skæve it got) and
        ``opponent_points`` (the shooter's points). ``result`` (T,) is passed through (see
        :meth:`result`). Tables that did not shoot get zeros.

        Args:
            weights: a ``KeglebillardReward``, a mapping of weights over the shipped ones, a
                YAML path, or None (the shipped weights); as ``cuegym.envs.config.load_reward``
                reads them (an unknown term is a ConfigError naming it).
        """
        from cuegym.envs.config import load_reward

        weights = load_reward("keglebillard", weights)  # a mapping or YAML path too; checked
        T = len(outcomes)
        if viewer is not None:  # a seat of the game (9 was clipped to the last seat's skæve)
            viewer = checks.seats(viewer, T, outcomes.skaeve_to.shape[1], "viewer")
        shot = outcomes.shooter >= 0
        own = shot.copy() if viewer is None else shot & (outcomes.shooter == viewer)
        terms = {name: np.zeros(T) for name in REWARD_TERMS}
        terms["points"][own] = outcomes.shooter_points[own]
        terms["skaeve"][own] = np.where(outcomes.foul, outcomes.skaeve, 0)[own]
        terms["foul"][own] = outcomes.foul[own]
        terms["win"][own] = outcomes.win[own]
        if viewer is not None:
            other = shot & ~own
            got = outcomes.skaeve_to[np.arange(T), viewer] & other
            terms["skaeve_received"][got] = outcomes.skaeve[got]
            terms["opponent_points"][other] = outcomes.shooter_points[other]
        if result is not None:
            terms["result"][:] = result
        return terms, self.total(terms, weights)

    total = staticmethod(weighted_total)

    @staticmethod
    def result(states: KegleStates, players: np.ndarray) -> np.ndarray:
        """(T,) +1 ranked first .. -1 ranked last, from the finishing order (K-21, K-22); 0
        while ``players`` (T,) are still in the game."""
        states = Kegle._batch(states)
        T, N = states.order.shape
        players = checks.seats(players, T, N, "players")
        out = np.zeros(T)
        fin = states.finished == players[:, None]
        lost = states.lost == players[:, None]
        has_f = fin.any(1)
        has_l = lost.any(1)
        out[has_f] = 1.0 - 2.0 * np.argmax(fin, 1)[has_f] / (N - 1)
        rank_l = N - 1 - np.argmax(lost, 1)
        out[has_l] = 1.0 - 2.0 * rank_l[has_l] / (N - 1)
        return out

    def observe(self, states: KegleStates | Sequence[Any], players: Any = None,
                to_move: np.ndarray | None = None, shot_env: bool = False,
                next_seats_only: bool = False) -> np.ndarray:
        """(T, OBS_DIM) float32 observations (``cuegym.games.kegle_obs.OBS_LAYOUT``) from the
        point of view of ``players`` (T,) (default: the player to move). ``to_move`` defaults
        to "the player is the one to move". ``shot_env``: as the Shot env shows a position,
        which has no score: 0 : 0 against one opponent. The observation shows 5 other seats:
        a game of more than 6 players is refused unless ``next_seats_only`` (the envs' view:
        the five seats after the player's, the others left out)."""
        states = self._batch(states)
        T = len(states)
        if states.order.shape[1] > OTHER_SEATS + 1 and not next_seats_only:  # not unasked
            raise ValueError(f"the observation shows {OTHER_SEATS} other seats: at most "
                             f"{OTHER_SEATS + 1} players, got {states.order.shape[1]} (pass "
                             "next_seats_only=True to show the five next seats)")
        players = states.to_play.copy() if players is None else \
            checks.seats(players, T, states.order.shape[1], "players")
        tm = (states.to_play == players) & ~states.game_over if to_move is None \
            else np.asarray(to_move, bool)
        if shot_env:
            own = np.zeros(T)
            others = np.zeros((T, 5))
            others_in = np.zeros((T, 5))
            others_in[:, 0] = 1.0
        else:
            own, others, others_in = seats_view(states.order, states.scores, states.in_game(),
                                                np.clip(players, 0, None),
                                                float(self.rules.distance))
        return observe_arrays(self.half, states.xy[:, 0], states.xy[:, 1:], states.pins,
                              states.hand, states.shot == 0, tm, own, others, others_in)


def placement_message(code: int, which: int, x: float, y: float, table: Any) -> str | None:
    """The K-19 reason for a ``kegle_flow.PLACE_*`` code (None for PLACE_OK)."""
    at = f"the red at ({x:.4f}, {y:.4f})"
    if code == flow.PLACE_OK:
        return None
    if code == flow.PLACE_NONE:
        return "no placement given"
    if code == flow.PLACE_OFF_CLOTH:
        return f"{at} is not on the cloth"
    if code == flow.PLACE_POCKET:
        return f"{at} is in the {table.pockets[which].name} pocket"
    if code == flow.PLACE_JAW:
        return f"{at} overlaps a pocket jaw"
    if code == flow.PLACE_BALL:
        return f"{at} overlaps the {BALL_IDS[which]} ball"
    return f"{at} is within R + r_pin of the {PIN_IDS[which]} spot"


__all__ = ["MATCH_TOL", "OBS_DIM", "REWARD_TERMS", "Kegle", "KegleOutcomes", "KegleStates",
           "placement_message"]


def _parsed_injected(injected: Sequence[Iterable | None] | None, act: np.ndarray
                     ) -> list[tuple] | None:
    """Every table's injected events parsed once (errors name ``injected[t][k]``), one entry
    per table of ``act`` (T,) bool, or None; a table that does not shoot takes none: they
    would be dropped without a word."""
    if injected is None:
        return None
    T = len(act)
    if len(injected) != T:
        raise ValueError(f"injected must have one entry per table ({T}), got {len(injected)}")
    out = [parse_injected(injected[t], f"injected[{t}]") for t in range(T)]
    for t in range(T):
        if out[t] and not act[t]:
            raise RefereeInputError(f"table {t} does not shoot (inactive or its game is over), "
                                    f"so injected[{t}] has no shot to happen in; pass None or "
                                    "[] for that table")
    return out


def _played_injected(injected: list[tuple] | None, unplayable: np.ndarray, play: np.ndarray,
                     place: np.ndarray) -> list | None:
    """The (parsed) injected events of the played tables (rows = ``play``), or None. A table
    whose K-19 placement cannot be played (``unplayable`` (T,) bool; ``place`` (T, 2) [m]) has
    no shot, so any event injected into it is refused rather than dropped (an unsportsmanlike
    one would otherwise not lose the match, K-16 option)."""
    if injected is None:
        return None
    for t in np.flatnonzero(unplayable):
        if injected[t]:
            raise RefereeInputError(
                f"table {t}: the red's placement {[float(v) for v in place[t]]} cannot be "
                f"played (K-19: no shot), so injected[{t}] has no shot to happen in; pass None "
                "or [] for that table")
    return [injected[t] for t in play]
