"""Golfbillard cores: observation layout (from the side to move, turned so its attack goal is at
+x), action map with ball selection, the Shot core and the full-game core (env classes and cards
in :mod:`cuegym.envs.golfbillard`).

Strokes are simulated in one batched physics call per round; the referee
(``cuegym.rules.golfbillard_game.play_strokes``) is per table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from cuegym.configs import load_params
from cuegym.games.noise import load_noise
from cuegym.games.strikes import Strikes
from cuegym.physics import simulate
from cuegym.physics.api import Workspace
from cuegym.physics.path import ball_segments
from cuegym.rules.golfbillard import (
    BALLS_PER_SIDE,
    N_BALLS,
    SIDE_OF,
    GolfOutcome,
    GolfRules,
    GolfState,
    golf_geometry,
    load_golf_rules,
)
from cuegym.rules.golfbillard_game import (
    OpeningOutcome,
    new_match,
    opening_balls,
    play_strokes,
)

from .actions import layout_box, strikes_from_actions, unit_box
from .base import Core
from .config import load_reward, load_settings
from .positions import load_positions

# ---------------------------------------------------------------------------------------------
# Observation and action layout
# ---------------------------------------------------------------------------------------------

_BALL_FIELDS = []
for _who in ("own", "opp"):
    for _k in range(1, BALLS_PER_SIDE + 1):
        _BALL_FIELDS += [(f"{_who}{_k}_x", -1.1, 1.1), (f"{_who}{_k}_y", -1.1, 1.1),
                         (f"{_who}{_k}_on_table", 0.0, 1.0)]
#: Observation layout: (name, low, high) per index.
OBS_LAYOUT: tuple[tuple[str, float, float], ...] = (
    *_BALL_FIELDS,
    ("own_balls_left", 0.0, 1.0), ("opp_balls_left", 0.0, 1.0), ("kader", 0.0, 1.0),
    ("opening", 0.0, 1.0), ("turn_continues", 0.0, 1.0),
    *((f"own{k}_duty", 0.0, 1.0) for k in range(1, BALLS_PER_SIDE + 1)),
    ("to_move", 0.0, 1.0), ("own_games_won", 0.0, 1.0), ("opp_games_won", 0.0, 1.0),
)
OBS_DIM = len(OBS_LAYOUT)
OBS_INDEX = {name: i for i, (name, _, _) in enumerate(OBS_LAYOUT)}
ACTION_LAYOUT = ("V0", "phi", "theta", "a", "b", "select_x", "select_y")
ACT_DIM = len(ACTION_LAYOUT)
#: Rules options the golfbillard envs apply over the shipped rule set (one game, not a match).
ENV_RULES = {"match": "single"}


def observation_space() -> gym.spaces.Box:
    return layout_box(OBS_LAYOUT)


def action_space() -> gym.spaces.Box:
    return unit_box(ACT_DIM)


_LOW = observation_space().low
_HIGH = observation_space().high


def golf_rules(rules: Any) -> GolfRules:
    """The envs' rule set: the shipped file with :data:`ENV_RULES`, then ``rules`` (a mapping
    of options or a GolfRules, returned as is)."""
    if isinstance(rules, GolfRules):
        return rules
    return load_golf_rules(**{**ENV_RULES, **dict(rules or {})})


def side_sign(side: np.ndarray) -> np.ndarray:
    """+1 for side 0, -1 for side 1: multiply table coordinates to get the side's frame."""
    return 1.0 - 2.0 * np.asarray(side, np.float64)


def observe_states(states: Sequence[GolfState], sides: Sequence[int], half: tuple[float, float],
                   to_move: Sequence[bool] | None = None, games_to_win: int = 1) -> np.ndarray:
    """(n, OBS_DIM) float32 observations of golfbillard states from ``sides``' point of view."""
    n = len(states)
    xy = np.stack([s.xy for s in states]) if n else np.zeros((0, N_BALLS, 2))
    side = np.asarray(sides, np.int64)
    f = side_sign(side)
    on = ~np.isnan(xy[..., 0])
    p = np.where(on[..., None], xy, 0.0) * f[:, None, None] / np.array(half)
    own = np.where(side[:, None] == 0, np.arange(N_BALLS)[None], (np.arange(N_BALLS)[None] + 5)
                   % N_BALLS)  # own balls first, then the opponent's
    p = np.take_along_axis(p, own[..., None], axis=1)
    on_o = np.take_along_axis(on, own, axis=1)
    obs = np.zeros((n, OBS_DIM))
    obs[:, 0:30:3] = p[:, :, 0]
    obs[:, 1:30:3] = p[:, :, 1]
    obs[:, 2:30:3] = on_o
    obs[:, 30] = on_o[:, :5].sum(1) / BALLS_PER_SIDE
    obs[:, 31] = on_o[:, 5:].sum(1) / BALLS_PER_SIDE
    for t, st in enumerate(states):
        s = int(side[t])
        obs[t, 32] = st.kader
        obs[t, 33] = st.phase == "opening"
        obs[t, 34] = st.phase == "play" and st.to_move == s and st.turn_strokes > 0
        if st.to_move == s and st.phase == "play":
            obs[t, 35:40] = st.duty[s * 5:(s + 1) * 5]
        if to_move is None:
            obs[t, 40] = st.phase == "opening" or (st.phase == "play" and st.to_move == s)
        else:
            obs[t, 40] = to_move[t]
        obs[t, 41] = st.games_won[s] / games_to_win
        obs[t, 42] = st.games_won[1 - s] / games_to_win
    return np.clip(obs, _LOW, _HIGH).astype(np.float32)


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


# ---------------------------------------------------------------------------------------------
# Strokes
# ---------------------------------------------------------------------------------------------


def play_golf_strokes(geo, rules: GolfRules, params, states: Sequence[GolfState],
                      cue_ball: np.ndarray, cue: np.ndarray, *, max_events: int = 300,
                      t_max: float = 60.0, threads: int | None = None,
                      workspace: Workspace | None = None):
    """Simulate and referee one stroke per state (an opening strikes both balls at t = 0).

    Args:
        cue_ball: (T, 2) struck balls; column 1 is -1 for a play stroke. cue: (T, 2, 5).

    Returns:
        (outcomes, next states, the SimResult).
    """
    xy = np.stack([s.xy for s in states])
    present = ~np.isnan(xy[..., 0])
    res = simulate(geo.table, params, np.where(present[..., None], xy, 0.0), cue_ball=cue_ball,
                   cue=cue, present=present, max_events=max_events, t_max=t_max,
                   threads=threads, validate=False, workspace=workspace)
    players = [list(s.openers) if s.phase == "opening" else int(s.partner[s.to_move])
               for s in states]
    # opt in: a stroke cut off by max_events / t_max is scored where it ended and reported in
    # info["overflow"]
    outs, new = play_strokes(states, res, cue_ball, cue, players=players,
                             segments=lambda t, b: ball_segments(res, t, b), rules=rules,
                             geo=geo, allow_overflow=True)
    return outs, new, res


def goal_distance(xy: np.ndarray, side: np.ndarray, geo) -> np.ndarray:
    """(n,) mean distance [m] of each side's own balls to its attack goal; a scored ball
    counts 0."""
    side = np.asarray(side, np.int64)
    goal = geo.goals[side, :2]  # attack goal index == side
    own = SIDE_OF[None] == side[:, None]
    d = np.hypot(xy[..., 0] - goal[:, None, 0], xy[..., 1] - goal[:, None, 1])
    d = np.where(np.isnan(d), 0.0, d)
    return np.where(own, d, 0.0).sum(1) / BALLS_PER_SIDE


def _foul_rule(o) -> str:
    if isinstance(o, GolfOutcome):
        return "" if o.foul is None else o.foul.rule
    return o.fouls[0].rule if o.fouls else ""


def _stroke_terms(o, s: int) -> tuple[float, float, float, float]:
    """(own scored, opponent's scored, foul, opponent's own scored) for side s's stroke."""
    if isinstance(o, OpeningOutcome):
        own = sum(1 for b in o.scored_balls if SIDE_OF[b] == s)
        opp = sum(1 for b in o.scored_balls if SIDE_OF[b] != s)
        foul = any(SIDE_OF[f.balls[0]] == s for f in o.fouls if f.balls)
        return float(own), 0.0, float(foul), float(opp)
    return float(o.scored[s]), float(o.scored[1 - s]), float(o.foul is not None), 0.0


# ---------------------------------------------------------------------------------------------
# Shot core
# ---------------------------------------------------------------------------------------------


class GolfShotCore(Core):
    """T golfbillard tables, one stroke per episode, play-phase positions from a bank.

    Args: as :class:`cuegym.envs.kegle.KegleShotCore` (``rules``: golfbillard options over the
    shipped file and :data:`ENV_RULES`).
    """

    def __init__(self, n: int, *, rules: Any = None, reward: Any = None, noise: Any = "none",
                 settings: Any = None, positions: Any = None, clip: bool = False,
                 threads: int | None = None, render_mode: str | None = None) -> None:
        self.n = int(n)
        self.rules = golf_rules(rules)
        self.geo = golf_geometry()
        self.params = load_params("golfbillard")
        self.settings = load_settings("golfbillard", settings)
        self.reward = load_reward("golfbillard", reward)
        self.noise = load_noise(noise)
        self.bank = positions if positions is not None else load_positions(
            self.settings.positions)
        self.clip = bool(clip)
        self.threads = threads
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = action_space()
        self.actions = GolfActionMap(self.settings, self.geo)
        self.half = (self.geo.table.length / 2, self.geo.table.width / 2)
        self.rngs = [np.random.default_rng() for _ in range(self.n)]
        self.states: list[GolfState] = [self.bank.state(0)] * self.n
        self.pov = np.zeros(self.n, np.int64)
        self.index = np.zeros(self.n, np.int64)
        self.done = np.zeros(self.n, bool)
        self.workspace = Workspace()
        self.last: dict[str, Any] | None = None

    def reset(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        N = len(self.bank)
        for t in idx:
            k = min(int(self.rngs[t].random() * N), N - 1)
            self.index[t] = k
            self.states[t] = self.bank.state(k)
            self.pov[t] = self.states[t].to_move
            self.done[t] = False
        return {"position_index": self.index[idx].copy()}

    def observe(self) -> np.ndarray:
        return observe_states(self.states, self.pov, self.half, to_move=~self.done,
                              games_to_win=self.rules.games_to_win)

    def step(self, a: np.ndarray):
        n = self.n
        side = self.pov.copy()
        xy0 = np.stack([s.xy for s in self.states])
        cb = np.full((n, 2), -1, np.int64)
        cb[:, 0] = self.actions.select(a, side, xy0)
        cue = np.zeros((n, 2, 5))
        cue[:, 0] = self.noise.execute(self.actions.strikes(a, side), self.rngs)
        s = self.settings
        outs, new, res = play_golf_strokes(self.geo, self.rules, self.params, self.states, cb,
                                           cue, max_events=s.max_events, t_max=s.t_max,
                                           threads=self.threads, workspace=self.workspace)
        terms = {k: np.zeros(n) for k in self.reward.terms}
        foul_rule = []
        for t, o in enumerate(outs):
            own, opp, foul, _ = _stroke_terms(o, int(side[t]))
            terms["own_goals"][t] = own
            terms["opponent_goals"][t] = opp
            terms["foul"][t] = foul
            foul_rule.append(_foul_rule(o))
        xy1 = np.stack([o.xy for o in outs])
        L = self.geo.table.length
        terms["progress"] = (goal_distance(xy0, side, self.geo)
                             - goal_distance(xy1, side, self.geo)) / L
        reward = sum(getattr(self.reward, k) * v for k, v in terms.items())
        info = _golf_info(outs, new, side, cb[:, 0], cue[:, 0], res, terms)
        info["position_index"] = self.index.copy()
        info["foul_rule"] = np.array(foul_rule, dtype="<U5")
        self.states = list(new)
        self.done[:] = True
        self.last = {"res": res, "outs": outs, "cue": cue[:, 0], "cb": cb[:, 0], "side": side} \
            if self.render_mode else None
        return np.asarray(reward, np.float64), np.ones(n, bool), np.zeros(n, bool), info

    def render_table(self, t: int) -> np.ndarray:
        from .render import render_golf_shot

        return render_golf_shot(self, t)


def _golf_info(outs, new, side, cb, cue, res, terms) -> dict[str, np.ndarray]:
    n = len(outs)
    won = np.zeros(n, np.int64)
    over = np.zeros(n, bool)
    for t, st in enumerate(new):
        over[t] = st.phase == "over"
        if over[t] and st.match_winner in (0, 1):
            won[t] = 1 if st.match_winner == side[t] else -1
    left = np.stack([st.balls_left for st in new])
    own_left = np.where(side == 0, left[:, 0], left[:, 1])
    opp_left = np.where(side == 0, left[:, 1], left[:, 0])
    return {
        "foul": terms["foul"] > 0,
        "turn_kept": np.array([bool(getattr(o, "turn_kept", False)) for o in outs]),
        "opening": np.array([isinstance(o, OpeningOutcome) for o in outs]),
        "cue_ball": np.asarray(cb, np.int64), "strike": np.asarray(cue),
        "overflow": np.asarray(res.overflow).astype(np.int8),
        "balls_left": np.stack([own_left, opp_left], 1).astype(np.int64),
        "game_over": over, "winner": won, "side": np.asarray(side, np.int64),
        "reward_terms": terms,
    }


# ---------------------------------------------------------------------------------------------
# Full-game core
# ---------------------------------------------------------------------------------------------


class GolfRandomOpponent:
    """The default opponent: uniformly random flat actions mapped like the learner's (ball
    selection, frame); its opening stroke is a random action on the opening ball."""

    name = "random"

    def __init__(self, actions: GolfActionMap) -> None:
        self.map = actions

    def act(self, states: Sequence[GolfState], rng: np.random.Generator):
        u = rng.uniform(-1.0, 1.0, (len(states), ACT_DIM))
        side = np.array([s.to_move for s in states], np.int64)
        xy = np.stack([s.xy for s in states])
        return Strikes(self.map.strikes(u, side), self.map.select(u, side, xy),
                       np.full((len(states), 2), np.nan))

    def act_opening(self, states: Sequence[GolfState], side: int, rng: np.random.Generator):
        u = rng.uniform(-1.0, 1.0, (len(states), ACT_DIM))
        sides = np.full(len(states), side, np.int64)
        balls = np.array([opening_balls(s)[side] for s in states], np.int64)
        return Strikes(self.map.strikes(u, sides), balls, np.full((len(states), 2), np.nan))


def default_opening(states: Sequence[GolfState], side: int, rng: np.random.Generator):
    """The rules' soft opening stroke off the left long cushion (V0 ~ U(0.9, 1.3) m/s), for
    opponents without ``act_opening``."""
    from cuegym.rules.golfbillard_game import opening_strike

    balls = np.array([opening_balls(s)[side] for s in states], np.int64)
    cue = np.stack([opening_strike(s, side, int(b), float(rng.uniform(0.9, 1.3)))
                    for s, b in zip(states, balls, strict=True)])
    return Strikes(cue, balls, np.full((len(states), 2), np.nan))


class GolfGameCore(Core):
    """T whole golfbillard games (one game each, ``match: single``), the learner one side.

    Args:
        opponent: ``"random"`` or an agent with ``act(states, rng)`` (``cue`` (T, 5),
            ``cue_ball`` (T,)) and optionally ``act_opening(states, side, rng)``; a callable works.
        opponent_batching, seat ("random", 0 or 1: the learner's side), and the Shot core's
        arguments.
    """

    def __init__(self, n: int, *, opponent: Any = "random",
                 opponent_batching: str = "per_table", seat: int | str = "random",
                 rules: Any = None, reward: Any = None, noise: Any = "none",
                 settings: Any = None, clip: bool = False, threads: int | None = None,
                 render_mode: str | None = None) -> None:
        from .opponents import as_opponent

        self.n = int(n)
        self.rules = golf_rules(rules)
        self.geo = golf_geometry()
        self.params = load_params("golfbillard")
        self.settings = load_settings("golfbillard", settings)
        self.reward = load_reward("golfbillard", reward)
        self.noise = load_noise(noise)
        if seat != "random" and seat not in (0, 1):
            raise ValueError(f"seat must be 'random', 0 or 1, got {seat!r}")
        self.seat_choice = seat
        if opponent_batching not in ("per_table", "batched"):
            raise ValueError(f"opponent_batching must be 'per_table' or 'batched', got "
                             f"{opponent_batching!r}")
        self.opponent_batching = opponent_batching
        self.clip = bool(clip)
        self.threads = threads
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = action_space()
        self.actions = GolfActionMap(self.settings, self.geo)
        self.opponent = as_opponent(opponent, lambda: GolfRandomOpponent(self.actions),
                                    "golfbillard")
        self.half = (self.geo.table.length / 2, self.geo.table.width / 2)
        self.rngs = [np.random.default_rng() for _ in range(self.n)]
        self.states: list[GolfState] = [new_match(self.rules)] * self.n
        self.side = np.zeros(self.n, np.int64)
        self.steps = np.zeros(self.n, np.int64)
        self.workspace = Workspace()
        self.last: list[Any] = [None] * self.n

    def _learner_turn(self, t: int) -> bool:
        st = self.states[t]
        return st.phase == "opening" or (st.phase == "play" and st.to_move == self.side[t])

    def _opp(self, method: str, tables: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Opponent strikes for ``tables``: ``act`` (play) or ``act_opening`` (G-3, the
        opponent's side passed; the rules' opening stroke when the opponent has none)."""
        states = [self.states[t] for t in tables]
        opening = method == "act_opening"
        fn = getattr(self.opponent, method, None) if opening else self.opponent.act
        if fn is None:
            fn = default_opening

        def call(idx: list[int]):
            sts = [states[k] for k in idx]
            rng = self.rngs[tables[idx[0]]]
            if opening:
                return fn(sts, int(1 - self.side[tables[idx[0]]]), rng)
            return fn(sts, rng)

        if self.opponent_batching == "per_table":
            groups = [[k] for k in range(len(tables))]
        elif opening:  # one call per opponent side
            groups = [[k for k in range(len(tables)) if self.side[tables[k]] == s]
                      for s in (0, 1)]
            groups = [g for g in groups if g]
        else:
            groups = [list(range(len(tables)))]
        cue = np.zeros((len(tables), 5))
        cb = np.zeros(len(tables), np.int64)
        for g in groups:
            part = call(g)
            c = np.asarray(part.cue, np.float64).reshape(-1, 5)
            b = np.asarray(part.cue_ball, np.int64).reshape(-1)
            if c.shape != (len(g), 5) or b.shape != (len(g),):
                raise ValueError(f"the opponent returned strikes of shape {c.shape} and balls "
                                 f"of shape {b.shape} for {len(g)} states")
            cue[g] = c
            cb[g] = b
        for k, st in enumerate(states):
            side = 1 - self.side[tables[k]]
            b = int(cb[k])
            if not (0 <= b < N_BALLS and SIDE_OF[b] == side and not np.isnan(st.xy[b, 0])):
                raise ValueError(f"the opponent struck ball {b}, not an own ball on the table "
                                 f"of side {side}")
        return cue, cb

    def _stroke(self, tables: list[int], cb: np.ndarray, cue: np.ndarray) -> list:
        s = self.settings
        outs, new, res = play_golf_strokes(
            self.geo, self.rules, self.params, [self.states[t] for t in tables], cb, cue,
            max_events=s.max_events, t_max=s.t_max, threads=self.threads,
            workspace=None if self.render_mode else self.workspace)
        for k, t in enumerate(tables):
            if self.render_mode:
                self.last[t] = (res, k, outs[k], self.states[t], cb[k], cue[k])
            self.states[t] = new[k]
        return outs

    def _play_opponents(self, tables, terms) -> np.ndarray:
        count = np.zeros(self.n, np.int64)
        cut = np.zeros(self.n, bool)
        while True:
            todo = [int(t) for t in tables if self.states[t].phase == "play" and not cut[t]
                    and self.states[t].to_move != self.side[t]]
            if not todo:
                return cut
            cue1, b = self._opp("act", todo)
            cue1 = self.noise.execute(cue1, [self.rngs[t] for t in todo])
            cb = np.stack([b, np.full(len(todo), -1)], 1)
            cue = np.zeros((len(todo), 2, 5))
            cue[:, 0] = cue1
            outs = self._stroke(todo, cb, cue)
            for t, o in zip(todo, outs, strict=True):
                count[t] += 1
                cut[t] |= count[t] >= self.settings.max_opponent_shots
                if terms is not None:
                    terms["opponent_scored"][t] += _stroke_terms(o, 1 - int(self.side[t]))[0]

    def reset(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        for t in idx:
            if self.seat_choice == "random":
                self.side[t] = int(self.rngs[t].random() < 0.5)
            else:
                self.side[t] = int(self.seat_choice)
            self.states[t] = new_match(self.rules)
            self.steps[t] = 0
            self.last[t] = None
        self._play_opponents(np.asarray(idx), None)
        return {"side": self.side[idx].copy()}

    def observe(self) -> np.ndarray:
        return observe_states(self.states, self.side, self.half,
                              games_to_win=self.rules.games_to_win)

    def step(self, a: np.ndarray):
        n = self.n
        if not all(self._learner_turn(t) for t in range(n)):
            raise RuntimeError("step() on a finished game: reset it first")
        side = self.side.copy()
        terms = {k: np.zeros(n) for k in self.reward.terms}
        xy0 = np.stack([s.xy for s in self.states])
        d0 = goal_distance(xy0, side, self.geo)
        opening = np.array([s.phase == "opening" for s in self.states])
        cb = np.full((n, 2), -1, np.int64)
        cb[:, 0] = self.actions.select(a, side, xy0)
        op_t = [int(t) for t in np.flatnonzero(opening)]
        opp_cue = opp_b = None
        if op_t:
            for t in op_t:
                cb[t, 0] = opening_balls(self.states[t])[side[t]]
            opp_cue, opp_b = self._opp("act_opening", op_t)
        mine = self.noise.execute(self.actions.strikes(a, side), self.rngs)
        cue = np.zeros((n, 2, 5))
        cue[:, 0] = mine
        if op_t:
            opp_cue = self.noise.execute(opp_cue, [self.rngs[t] for t in op_t])
            for k, t in enumerate(op_t):  # column 0 is side 0's ball (G-3)
                pair_b = [cb[t, 0], opp_b[k]]
                pair_c = [mine[t], opp_cue[k]]
                if side[t] == 1:
                    pair_b, pair_c = pair_b[::-1], pair_c[::-1]
                cb[t] = pair_b
                cue[t] = pair_c
        executed = mine.copy()
        struck = np.where(opening & (side == 1), cb[:, 1], cb[:, 0])
        outs = self._stroke(list(range(n)), cb, cue)
        foul_rule = []
        for t, o in enumerate(outs):
            own, opp, foul, opp_own = _stroke_terms(o, int(side[t]))
            terms["own_goals"][t] = own
            terms["opponent_goals"][t] = opp
            terms["foul"][t] = foul
            terms["opponent_scored"][t] = opp_own
            foul_rule.append(_foul_rule(o))
        cut = self._play_opponents(np.arange(n), terms)
        self.steps += 1
        xy1 = np.stack([s.xy for s in self.states])
        terms["progress"] = (d0 - goal_distance(xy1, side, self.geo)) / self.geo.table.length
        terminated = np.array([s.phase == "over" for s in self.states])
        for t in np.flatnonzero(terminated):
            w = self.states[t].match_winner
            terms["result"][t] = 0.0 if w not in (0, 1) else (1.0 if w == side[t] else -1.0)
        truncated = ~terminated & (cut | (self.steps >= self.settings.max_steps))
        reward = sum(getattr(self.reward, k) * v for k, v in terms.items())
        info = _golf_info(outs, self.states, side, struck, executed, _Overflow(outs), terms)
        info["foul_rule"] = np.array(foul_rule, dtype="<U5")
        return np.asarray(reward, np.float64), terminated, truncated, info

    def render_table(self, t: int) -> np.ndarray:
        from .render import render_golf_state

        return render_golf_state(self, t)


class _Overflow:
    """The ``overflow`` codes of a list of outcomes, shaped like a SimResult field."""

    def __init__(self, outs) -> None:
        self.overflow = np.array([int(getattr(o, "overflow", 0)) for o in outs], np.int8)

