"""Golfbillard cores: the action map with ball selection, the Shot core and the full-game core
(env classes and cards in :mod:`cuegym.envs.golfbillard`).

Every stroke goes through the game layer (:class:`cuegym.games.golf.Golf`: noise, one batched
physics call, the compiled referee and game flow); states are :class:`GolfStates` batches and
the observation layout is :mod:`cuegym.games.golf_obs`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from cuegym.games.golf import Golf, GolfOutcomes
from cuegym.games.golf_obs import (  # noqa: F401 (the layout, re-exported for the envs)
    OBS_DIM,
    OBS_HIGH,
    OBS_INDEX,
    OBS_LAYOUT,
    OBS_LOW,
    observe_arrays,
    side_sign,
)
from cuegym.games.strikes import Strikes
from cuegym.physics.api import Workspace
from cuegym.rules.golf_arrays import N_BALLS, SIDE_OF, GolfStates
from cuegym.rules.golf_codes import P_OPENING, P_OVER, P_PLAY
from cuegym.rules.golfbillard import GolfRules, load_golf_rules

from .actions import layout_box, strikes_from_actions, unit_box
from .base import GAME_UNUSED_SETTINGS, SHOT_UNUSED_SETTINGS, Core, refuse_unused_rules
from .checks import check_bank, check_opponent_batching, check_seat
from .golf_positions import GolfbillardPositions, check_golf_positions, playable
from .opponents import check_opponent_cue, opponent_strikes
from .positions import load_positions

ACTION_LAYOUT = ("V0", "phi", "theta", "a", "b", "select_x", "select_y")
ACT_DIM = len(ACTION_LAYOUT)
#: Rules options the golfbillard envs apply over the shipped rule set (one game, not a match).
ENV_RULES = {"match": "single"}


def observation_space() -> gym.spaces.Box:
    return layout_box(OBS_LAYOUT)


def action_space() -> gym.spaces.Box:
    return unit_box(ACT_DIM)


def golf_rules(rules: Any) -> GolfRules:
    """The envs' rule set: the shipped file with :data:`ENV_RULES`, then ``rules`` (a mapping
    of options or a GolfRules, returned as is)."""
    if isinstance(rules, GolfRules):
        return rules
    if rules is not None and not isinstance(rules, Mapping):
        raise ValueError(f"rules must be None, a mapping of rule options or a GolfRules, got "
                         f"{rules!r}")
    return load_golf_rules(**{**ENV_RULES, **dict(rules or {})})


def observe_states(states: Any, sides: Sequence[int], half: tuple[float, float],
                   to_move: Sequence[bool] | None = None, games_to_win: int = 1) -> np.ndarray:
    """(n, OBS_DIM) float32 observations of golfbillard states (a GolfStates batch or
    GolfState values) from ``sides``' point of view (:func:`cuegym.games.golf_obs.observe_arrays`).
    """
    from cuegym.rules.golf_views import pack_states

    batch = states if isinstance(states, GolfStates) else pack_states(list(states))
    return observe_arrays(batch, np.asarray(sides, np.int64), half,
                          None if to_move is None else np.asarray(to_move, bool), games_to_win)


class GolfActionMap:
    """Flat actions -> struck ball and strike for a side (units in the env cards)."""

    def __init__(self, settings, geo) -> None:
        self.spec = settings.action
        self.half = np.array([geo.table.length / 2, geo.table.width / 2])

    def strikes(self, a: np.ndarray, side: np.ndarray) -> np.ndarray:
        """(n, 5) strikes; phi is measured in the side's frame (+180 deg for side 1)."""
        return strikes_from_actions(a, self.spec, phi_offset=180.0 * np.asarray(side))

    def select(self, a: np.ndarray, side: np.ndarray, xy: np.ndarray) -> np.ndarray:
        """(n,) struck ball: the side's own ball on the table nearest the aimed point
        ``(select_x * L/2, select_y * W/2)`` of the side's frame."""
        side = np.asarray(side, np.int64)
        point = a[:, 5:7] * self.half * side_sign(side)[:, None]
        mine = (SIDE_OF[None] == side[:, None]) & ~np.isnan(xy[..., 0])
        d2 = np.where(mine, ((np.nan_to_num(xy) - point[:, None]) ** 2).sum(-1), np.inf)
        if not mine.any(1).all():
            raise ValueError("a side to move has no ball on the table")
        return np.argmin(d2, axis=1)


def policy_seeds(rules: GolfRules, rngs: Sequence[np.random.Generator]) -> np.ndarray | int:
    """The rules states' base seeds for the ``random`` penalty-spot and pick policies (G-30,
    G-25), one draw from each table's generator, so their draws differ between tables and
    follow ``reset(seed)``; 0 and no draw when neither policy is random (the default rules),
    which leaves the generators' streams as they are."""
    if rules.spot_policy != "random" and rules.pick_policy != "random":
        return 0
    return np.array([int(g.integers(2**63)) for g in rngs], np.int64)


def _strikes(cue: np.ndarray, balls: np.ndarray) -> Strikes:
    return Strikes(cue, balls, np.full((len(balls), 2), np.nan))


def stroke_info(out: GolfOutcomes) -> dict[str, np.ndarray]:
    """The info arrays a step reports of the learner's stroke (copies: the whole-game step
    drops the stroke's outcomes before the opponent plays, which keeps its peak memory down)."""
    return {"turn_kept": out.turn_kept.copy(), "opening": out.opening.copy(),
            "overflow": out.overflow.astype(np.int64),
            "foul_rule": out.first_rule.astype(object)}


def golf_info(stroke: dict[str, np.ndarray], states: GolfStates, side: np.ndarray,
              struck: np.ndarray, strike: np.ndarray, terms: dict) -> dict[str, np.ndarray]:
    """The info arrays of a golfbillard step (see the env cards); ``stroke``: the learner's
    stroke's :func:`stroke_info`, ``states`` those after the step."""
    over = states.phase == P_OVER
    w = states.match_winner
    won = np.where(over & ((w == 0) | (w == 1)), np.where(w == side, 1, -1), 0)
    left = states.balls_left
    rows = np.arange(len(states))
    return {
        "foul": terms["foul"] > 0, **stroke,
        "cue_ball": np.asarray(struck, np.int64), "strike": np.asarray(strike),
        "balls_left": np.stack([left[rows, side], left[rows, 1 - side]], 1).astype(np.int64),
        "game_over": over, "winner": won.astype(np.int64), "side": np.asarray(side, np.int64),
        "reward_terms": terms,
    }


# ---------------------------------------------------------------------------------------------
# Shot core
# ---------------------------------------------------------------------------------------------


class GolfShotCore(Core):
    """T golfbillard tables, one stroke per episode, play-phase positions from a bank.

    Args: as :class:`cuegym.envs.kegle.KegleShotCore` (``rules``: golfbillard options over the
    shipped file and :data:`ENV_RULES`).
    """

    UNUSED_SETTINGS = SHOT_UNUSED_SETTINGS
    UNUSED_REWARD_TERMS = ("opponent_scored", "result")
    #: rule options of the game's flow, which one stroke from a play-phase position never meets
    UNUSED_RULES = {
        "opening": "a Shot env's positions are in play, past the opening (G-3)",
        "duo": "a Shot env's episode is one stroke of its side, whoever plays it (G-31)",
        "deciding_openers": "a Shot env's episode is one stroke, in no deciding game (G-31)"}

    #: the keys of the step info (``make_sb3_vec_env``'s ``info_keys`` are checked against them)
    INFO_KEYS = (
        "side", "cue_ball", "foul", "foul_rule", "opening", "turn_kept", "balls_left",
        "game_over", "winner", "overflow", "strike", "reward_terms", "position_index"
    )

    def __init__(self, n: int, *, rules: Any = None, reward: Any = None, noise: Any = "none",
                 settings: Any = None, positions: Any = None, clip: bool = False,
                 threads: int | None = None, render_mode: str | None = None) -> None:
        self.n = int(n)
        self.game = Golf(golf_rules(rules))
        self.rules = self.game.rules
        refuse_unused_rules(self.rules, golf_rules(None), self.UNUSED_RULES, type(self).__name__)
        self.geo = self.game.geo
        self._configure("golfbillard", settings, reward, noise, clip, threads, render_mode)
        # a user's bank is checked whole here (a ball off the cloth was played, overlapping
        # balls raised a ZeroDivisionError at the first step, ragged arrays went unnoticed)
        self.bank = load_positions(self.settings.positions, "golfbillard") if positions is None \
            else check_golf_positions(check_bank(positions, GolfbillardPositions, "golfbillard"),
                                      self.rules)
        self.drawn = playable(self.bank, self.rules)  # the bank indices reset draws from
        self.observation_space = observation_space()
        self.action_space = action_space()
        self.actions = GolfActionMap(self.settings, self.geo)
        self.half = self.game.half
        self.rngs = [np.random.default_rng() for _ in range(self.n)]
        self.states: GolfStates = self.bank.batch(np.zeros(self.n, np.int64))
        self.pov = np.zeros(self.n, np.int64)
        self.index = np.zeros(self.n, np.int64)
        self.done = np.zeros(self.n, bool)
        self.workspace = Workspace()
        self.last: dict[str, Any] | None = None

    def reset(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        idx = np.asarray(idx, np.int64)
        N = len(self.drawn)
        k = self.drawn[[min(int(self.rngs[t].random() * N), N - 1) for t in idx]]
        self.index[idx] = k
        self.states.put(idx, self.bank.batch(k))
        self.states.seed[idx] = policy_seeds(self.game.rules, [self.rngs[t] for t in idx])
        self.pov[idx] = self.states.to_move[idx]
        self.done[idx] = False
        return {"position_index": self.index[idx].copy()}

    def observe(self) -> np.ndarray:
        return self.game.observe(self.states, self.pov, to_move=~self.done)

    def step(self, a: np.ndarray):
        n = self.n
        side = self.pov.copy()
        struck = self.actions.select(a, side, self.states.xy)
        s = self.settings
        out, new = self.game.play(self.states, _strikes(self.actions.strikes(a, side), struck),
                                  self.noise, self.rngs, max_events=s.max_events, t_max=s.t_max,
                                  threads=self.threads, workspace=self.workspace,
                                  allow_overflow=True)
        terms, reward = self.game.reward_terms(out, self.reward, viewer=side)
        terms = {k: terms[k] for k in self.reward.terms}
        info = golf_info(stroke_info(out), new, side, struck, out.strike[:, 0], terms)
        info["position_index"] = self.index.copy()
        self.states = new
        self.done[:] = True
        self.last = {"res": out.sim, "outs": out, "cue": out.strike[:, 0], "cb": struck,
                     "side": side} if self.render_mode else None
        return np.asarray(reward, np.float64), np.ones(n, bool), np.zeros(n, bool), info

    def render_table(self, t: int) -> np.ndarray:
        from .render import render_golf_shot

        return render_golf_shot(self, t)


# ---------------------------------------------------------------------------------------------
# Full-game core
# ---------------------------------------------------------------------------------------------


class GolfRandomOpponent:
    """The default opponent: uniformly random flat actions mapped like the learner's (ball
    selection, frame); its opening stroke is a random action on the opening ball. With one
    generator per table (``rng`` a list) each table draws from its own."""

    name = "random"

    def __init__(self, actions: GolfActionMap) -> None:
        self.map = actions

    @staticmethod
    def _draw(rng: Any, T: int) -> np.ndarray:
        if isinstance(rng, np.random.Generator):
            return rng.uniform(-1.0, 1.0, (T, ACT_DIM))
        return np.stack([g.uniform(-1.0, 1.0, ACT_DIM) for g in rng]).reshape(T, ACT_DIM)

    def act(self, states: Any, rng: Any) -> Strikes:
        batch = Golf.batch(states)
        u = self._draw(rng, len(batch))
        side = batch.to_move
        return _strikes(self.map.strikes(u, side), self.map.select(u, side, batch.xy))

    def act_opening(self, states: Any, side: int, rng: Any) -> Strikes:
        batch = Golf.batch(states)
        u = self._draw(rng, len(batch))
        sides = np.full(len(batch), side, np.int64)
        balls = GOLF.opening_balls(batch)[:, side]
        return _strikes(self.map.strikes(u, sides), balls)


class _Lazy:
    """The Golf object of the shipped rules, built on first use (opening balls, frames)."""

    _g: Golf | None = None

    def __getattr__(self, name: str) -> Any:
        if _Lazy._g is None:
            _Lazy._g = Golf(ENV_RULES)
        return getattr(_Lazy._g, name)


GOLF = _Lazy()


def default_opening(states: Any, side: int, rng: np.random.Generator) -> Strikes:
    """The rules' soft opening stroke off the left long cushion (V0 ~ U(0.9, 1.3) m/s), for
    opponents without ``act_opening``."""
    from cuegym.rules.golfbillard_game import opening_strike

    batch = Golf.batch(states)
    balls = GOLF.opening_balls(batch)[:, side]
    cue = np.stack([opening_strike(batch[t], side, int(balls[t]), float(rng.uniform(0.9, 1.3)))
                    for t in range(len(batch))]).reshape(-1, 5)
    return _strikes(cue, balls)


class GolfGameCore(Core):
    """T whole golfbillard games (one game each, ``match: single``), the learner one side.

    Args:
        opponent: ``"random"`` or an agent with ``act(states, rng)`` (``cue`` (T, 5),
            ``cue_ball`` (T,)) and optionally ``act_opening(states, side, rng)``; a callable works.
            ``states`` is a :class:`GolfStates` batch (its items are rules ``GolfState`` values).
        opponent_batching, seat ("random", 0 or 1: the learner's side), and the Shot core's
        arguments. The default random opponent is always called once for all tables, each
        table drawing from its own generator.
    """

    UNUSED_SETTINGS = GAME_UNUSED_SETTINGS

    #: the keys of the step info (``make_sb3_vec_env``'s ``info_keys`` are checked against them)
    INFO_KEYS = (
        "side", "cue_ball", "foul", "foul_rule", "opening", "turn_kept", "balls_left",
        "game_over", "winner", "overflow", "strike", "reward_terms", "opponent_strokes"
    )

    def __init__(self, n: int, *, opponent: Any = "random",
                 opponent_batching: str = "per_table", seat: int | str = "random",
                 rules: Any = None, reward: Any = None, noise: Any = "none",
                 settings: Any = None, clip: bool = False, threads: int | None = None,
                 render_mode: str | None = None) -> None:
        from .opponents import as_opponent

        self.n = int(n)
        self.game = Golf(golf_rules(rules))
        self.rules = self.game.rules
        self.geo = self.game.geo
        self._configure("golfbillard", settings, reward, noise, clip, threads, render_mode)
        self.seat_choice = check_seat(seat, 2)
        self.opponent_batching = check_opponent_batching(opponent_batching)
        self.observation_space = observation_space()
        self.action_space = action_space()
        self.actions = GolfActionMap(self.settings, self.geo)
        self.opponent = as_opponent(opponent, self.random_opponent, "golfbillard",
                                    self.opponent_arena)
        self.half = self.game.half
        self.rngs = [np.random.default_rng() for _ in range(self.n)]
        self.states: GolfStates = self.game.new(self.n)
        self.side = np.zeros(self.n, np.int64)
        self.steps = np.zeros(self.n, np.int64)
        self.workspace = Workspace()
        self.last: list[Any] = [None] * self.n

    def _learner_turn(self) -> np.ndarray:
        st = self.states
        return (st.phase == P_OPENING) | ((st.phase == P_PLAY) & (st.to_move == self.side))

    def _opp(self, method: str, tables: np.ndarray) -> Strikes:
        """Opponent strikes for ``tables``: ``act`` (play) or ``act_opening`` (G-3, the
        opponent's side passed; the rules' opening stroke when the opponent has none)."""
        states = self.states.take(tables)
        opening = method == "act_opening"
        fn = getattr(self.opponent, method, None) if opening else self.opponent.act
        if fn is None:
            fn = default_opening
        opp_side = 1 - self.side[tables]

        def call(idx: np.ndarray, rng: Any) -> Strikes:
            sub = states.take(idx)
            if opening:
                return fn(sub, int(opp_side[idx[0]]), rng)
            return fn(sub, rng)

        k_all = np.arange(len(tables))
        if isinstance(self.opponent, GolfRandomOpponent):  # one call, per-table generators
            groups = [k_all[opp_side == s] for s in (0, 1)] if opening else [k_all]
            rngs = lambda g: [self.rngs[tables[k]] for k in g]  # noqa: E731
        elif self.opponent_batching == "per_table":
            groups = [k_all[k:k + 1] for k in k_all]
            rngs = lambda g: self.rngs[tables[g[0]]]  # noqa: E731
        else:
            groups = [k_all[opp_side == s] for s in (0, 1)] if opening else [k_all]
            rngs = lambda g: self.rngs[tables[g[0]]]  # noqa: E731
        cue = np.zeros((len(tables), 5))
        cb = np.zeros(len(tables), np.int64)
        for g in groups:
            if not len(g):
                continue
            part = opponent_strikes(call(g, rngs(g)), method, with_place=False)
            c, b = part.cue, part.cue_ball
            if c.shape != (len(g), 5) or b.shape != (len(g),):
                raise ValueError(f"the opponent returned strikes of shape {c.shape} and balls "
                                 f"of shape {b.shape} for {len(g)} states")
            cue[g] = c
            cb[g] = b
        check_opponent_cue(cue, tables, self.noise)
        ok = (cb >= 0) & (cb < N_BALLS)
        ok[ok] &= (SIDE_OF[cb[ok]] == opp_side[ok]) & ~np.isnan(states.xy[np.flatnonzero(ok),
                                                                          cb[ok], 0])
        if not ok.all():
            k = int(np.argmin(ok))
            raise ValueError(f"the opponent struck ball {int(cb[k])}, not an own ball on the "
                             f"table of side {int(opp_side[k])}")
        return _strikes(cue, cb)

    def _stroke(self, active: np.ndarray, strikes: Strikes, strikes1: Strikes | None = None
                ) -> GolfOutcomes:
        s = self.settings
        before = self.states
        out, new = self.game.play(before, strikes, self.noise, self.rngs, strikes1=strikes1,
                                  active=active, max_events=s.max_events, t_max=s.t_max,
                                  threads=self.threads,
                                  workspace=None if self.render_mode else self.workspace,
                                  allow_overflow=True)
        self.states = new
        if self.render_mode:
            for t in np.flatnonzero(active):
                self.last[t] = (out.sim, int(t), out.outcome(t), before[t],
                                out.cue_ball[t], out.strike[t])
        return out

    def _play_opponents(self, tables: np.ndarray, terms: dict | None
                        ) -> tuple[np.ndarray, np.ndarray]:
        """The opponent's strokes on ``tables`` until the learner is to play, the game is over
        or ``max_opponent_shots`` strokes are played: (cut (n,) bool, the tables stopped by
        that limit; count (n,) int, the opponent's strokes per table)."""
        count = np.zeros(self.n, np.int64)
        cut = np.zeros(self.n, bool)
        mask = np.zeros(self.n, bool)
        mask[tables] = True
        while True:
            st = self.states
            todo = mask & (st.phase == P_PLAY) & ~cut & (st.to_move != self.side)
            idx = np.flatnonzero(todo)
            if not len(idx):
                return cut, count
            full = Strikes.empty(self.n)
            full.put(idx, self._opp("act", idx))
            out = self._stroke(todo, full)
            count[idx] += 1
            cut[idx] |= count[idx] >= self.settings.max_opponent_shots
            if terms is not None:
                t_opp, _ = self.game.reward_terms(out, self.reward, viewer=self.side)
                terms["opponent_scored"] += t_opp["opponent_scored"]
            del out  # not held while the next round runs

    def random_opponent(self) -> GolfRandomOpponent:
        """The env's default opponent (``opponent="random"``): uniform random actions."""
        return GolfRandomOpponent(self.actions)

    def opponent_arena(self) -> Any:
        """The arena of this env's rules (match, duo...): named opponents are made for it."""
        from cuegym.agents import make_arena

        return make_arena("golfbillard", self.rules)

    def reset(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        """New games on ``idx``: the learner's side (one ``random()`` draw when random), then
        the opponent's strokes until the learner is to play (``opening: alternate`` with the
        learner side 1: the opponent's whole first turn, however many strokes it keeps it
        for; ``max_opponent_shots`` bounds a step's strokes, and a reset is no step). A game
        the opponent ends before the learner's first stroke (G-4, G-17a) is replaced by a
        new one, the side kept, as keglebillard does (:meth:`Core._replace_games`)."""
        idx = np.asarray(idx, np.int64)
        for t in idx:
            if self.seat_choice == "random":
                self.side[t] = int(self.rngs[t].random() < 0.5)
            else:
                self.side[t] = int(self.seat_choice)

        def start(todo):
            for t in todo:
                self.last[t] = None
            self.states.put(todo, self.game.new(
                len(todo), seed=policy_seeds(self.game.rules, [self.rngs[t] for t in todo])))
            self.steps[todo] = 0
            # was: one capped round, then a table could be left with the opponent to play (cut
            # by max_opponent_shots) or its game over, and the first step raised
            while self._play_opponents(todo, None)[0][todo].any():
                pass

        self._replace_games(idx, start, lambda todo: self.states.phase[todo] == P_OVER)
        return {"side": self.side[idx].copy()}

    @property
    def max_episode_steps(self) -> int:
        """Learner steps before an episode truncates (``settings.max_steps``)."""
        return self.settings.max_steps

    def observe(self) -> np.ndarray:
        return self.game.observe(self.states, self.side)

    def step(self, a: np.ndarray):
        n = self.n
        over = self.states.phase == P_OVER
        self.check_learner_to_play(over, ~over & ~self._learner_turn())
        side = self.side.copy()
        xy0 = self.states.xy.copy()
        game0 = self.states.game_no.copy()
        opening = self.states.phase == P_OPENING
        struck = self.actions.select(a, side, xy0)
        op = np.flatnonzero(opening)
        mine = self.actions.strikes(a, side)
        s0 = _strikes(mine, struck)
        s1 = None
        if len(op):
            struck[op] = self.game.opening_balls(self.states.take(op))[np.arange(len(op)),
                                                                      side[op]]
            opp = self._opp("act_opening", op)
            s0 = _strikes(mine, struck)
            s1 = Strikes.empty(n)
            first = op[side[op] == 1]  # the learner is side 1: the opponent strikes for side 0
            k1 = np.isin(op, first)
            s1.put(op[~k1], opp.take(np.flatnonzero(~k1)))
            s1.put(first, s0.take(first))
            s0.put(first, opp.take(np.flatnonzero(k1)))
        out = self._stroke(np.ones(n, bool), s0, s1)
        terms, _ = self.game.reward_terms(out, self.reward, viewer=side)
        executed = np.where((opening & (side == 1))[:, None], out.strike[:, 1], out.strike[:, 0])
        stroke = stroke_info(out)
        del out  # not held while the opponent's strokes run
        cut, opp_strokes = self._play_opponents(np.arange(n), terms)
        self.steps += 1
        terms["progress"] = self.game.progress(xy0, self.states.xy, side,
                                                new_game=self.states.game_no != game0)
        over = self.states.phase == P_OVER
        no_progress = self.game.ended_by_no_progress(self.states)  # G-5: the env truncates
        terminated = over & ~no_progress
        terms["result"] = self.game.result(self.states, side)
        truncated = no_progress | (~over & (cut | (self.steps >= self.settings.max_steps)))
        terms = {k: terms[k] for k in self.reward.terms}
        reward = self.game.total(terms, self.reward)
        info = golf_info(stroke, self.states, side, struck, executed, terms)
        info["opponent_strokes"] = opp_strokes
        return np.asarray(reward, np.float64), terminated, truncated, info

    def render_table(self, t: int) -> np.ndarray:
        from .render import render_golf_state

        return render_golf_state(self, t)
