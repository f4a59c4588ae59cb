"""Keglebillard cores: observation layout, action map, the batched Shot core and the full-game
core (see :mod:`cuegym.envs.keglebillard` for the env classes and their cards).

The Shot core keeps T positions in arrays and plays one shot per table per step with one
batched physics call and the vectorised referee (``cuegym.rules.keglebillard.score_shots``): no
Python loop over tables except the per-table random draws (each table has its own generator).
The full-game core keeps T :class:`~cuegym.rules.keglebillard_game.GameState` values and uses
the rules' per-table game flow.
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
from cuegym.rules.keglebillard import FOUL_COLUMNS, GEOM_TOL, N_PINS, read_log, score_shots
from cuegym.rules.keglebillard_game import GameState, KeglebillardGame, ShotOutcome

from .actions import layout_box, scale, strikes_from_actions, unit_box
from .base import Core
from .config import load_reward, load_settings
from .positions import HAND_CLOTH, HAND_NONE, HAND_SALVO, load_positions

# ---------------------------------------------------------------------------------------------
# Observation and action layout
# ---------------------------------------------------------------------------------------------

#: Seats of other players the observation describes (up to 6 players in all).
OTHER_SEATS = 5
#: Observation layout: (name, low, high) per index.
OBS_LAYOUT: tuple[tuple[str, float, float], ...] = (
    ("red_x", -1.1, 1.1), ("red_y", -1.1, 1.1), ("red_on_table", 0.0, 1.0),
    ("white_x", -1.1, 1.1), ("white_y", -1.1, 1.1), ("white_on_table", 0.0, 1.0),
    ("spotted_x", -1.1, 1.1), ("spotted_y", -1.1, 1.1), ("spotted_on_table", 0.0, 1.0),
    ("king_up", 0.0, 1.0), ("pin1_up", 0.0, 1.0), ("pin2_up", 0.0, 1.0), ("pin3_up", 0.0, 1.0),
    ("pin4_up", 0.0, 1.0),
    ("red_in_hand", 0.0, 1.0), ("in_hand_behind_salvo_line", 0.0, 1.0), ("break", 0.0, 1.0),
    ("to_move", 0.0, 1.0), ("own_score", 0.0, 4.0),
    *((f"seat{k}_score", 0.0, 4.0) for k in range(1, OTHER_SEATS + 1)),
    *((f"seat{k}_in_game", 0.0, 1.0) for k in range(1, OTHER_SEATS + 1)),
)
OBS_DIM = len(OBS_LAYOUT)
OBS_INDEX = {name: i for i, (name, _, _) in enumerate(OBS_LAYOUT)}
#: Action layout: the strike (docs: cuegym.envs.actions), then the red's placement.
ACTION_LAYOUT = ("V0", "phi", "theta", "a", "b", "place_x", "place_y")
ACT_DIM = len(ACTION_LAYOUT)
#: Foul flag columns reported in ``info["foul_flags"]``: the referee's, then K-19 placement.
FOUL_FLAGS = (*FOUL_COLUMNS, "K-19:placement")


def observation_space() -> gym.spaces.Box:
    return layout_box(OBS_LAYOUT)


def action_space() -> gym.spaces.Box:
    return unit_box(ACT_DIM)


_LOW = observation_space().low
_HIGH = observation_space().high


def observe_arrays(half: tuple[float, float], red: np.ndarray, whites: np.ndarray,
                   pins: np.ndarray, hand: np.ndarray, brk: np.ndarray, to_move: np.ndarray,
                   own: np.ndarray, others: np.ndarray, others_in: np.ndarray) -> np.ndarray:
    """(n, OBS_DIM) float32 observations (layout :data:`OBS_LAYOUT`).

    Args:
        half: (L/2, W/2) of the table [m] (positions are divided by them).
        red: (n, 2) [m], NaN when in hand. whites: (n, 2, 2) [m], NaN when off the table.
        pins: (n, 5) bool. hand: (n,) 0/1/2 (none, behind the salvo line, anywhere).
        brk: (n,) bool. to_move: (n,) bool. own: (n,) score / distance.
        others: (n, OTHER_SEATS) scores / distance in turn order after the player;
        others_in: (n, OTHER_SEATS) those seats still in the game.
    """
    n = red.shape[0]
    obs = np.zeros((n, OBS_DIM), np.float64)
    hx, hy = half
    balls = np.concatenate([red[:, None], whites], axis=1)  # (n, 3, 2)
    on = ~np.isnan(balls[:, :, 0])
    xy = np.where(on[..., None], balls, 0.0) / np.array([hx, hy])
    obs[:, 0:9:3] = xy[:, :, 0]
    obs[:, 1:9:3] = xy[:, :, 1]
    obs[:, 2:9:3] = on
    obs[:, 9:14] = pins
    obs[:, 14] = hand != HAND_NONE
    obs[:, 15] = hand == HAND_SALVO
    obs[:, 16] = brk
    obs[:, 17] = to_move
    obs[:, 18] = own
    obs[:, 19:19 + OTHER_SEATS] = others
    obs[:, 19 + OTHER_SEATS:] = others_in
    return np.clip(obs, _LOW, _HIGH).astype(np.float32)


def observe_states(game: KeglebillardGame, states: Sequence[GameState],
                   players: Sequence[int], to_move: Sequence[bool] | None = None,
                   shot_env: bool = False) -> np.ndarray:
    """Observations of game states from the point of view of ``players`` (one per state).

    ``to_move`` defaults to "the player is the one to move". Agents that act on observations
    (trained policies) use this to see a rules state as the envs show it. ``shot_env``: as the
    Shot env shows a position, which has no score: 0 : 0 against one opponent.
    """
    n = len(states)
    red = np.full((n, 2), np.nan)
    whites = np.full((n, 2, 2), np.nan)
    pins = np.zeros((n, N_PINS), bool)
    hand = np.zeros(n, np.int8)
    brk = np.zeros(n, bool)
    tm = np.zeros(n, bool)
    own = np.zeros(n)
    others = np.zeros((n, OTHER_SEATS))
    others_in = np.zeros((n, OTHER_SEATS))
    code = {None: HAND_NONE, "salvo": HAND_SALVO, "cloth": HAND_CLOTH}
    D = float(game.rules.distance)
    for t, (st, p) in enumerate(zip(states, players, strict=True)):
        if st.balls[0] is not None:
            red[t] = st.balls[0]
        for w in (1, 2):
            if st.balls[w] is not None:
                whites[t, w - 1] = st.balls[w]
        pins[t] = st.pins
        hand[t] = code[st.ball_in_hand]
        brk[t] = st.shot == 0
        tm[t] = st.to_play == p if to_move is None else to_move[t]
        if shot_env:
            others_in[t, 0] = 1.0
            continue
        own[t] = st.scores[p] / D
        order = list(st.order)
        i = order.index(p)
        seats = order[i + 1:] + order[:i]
        live = set(st.in_game)
        for k, q in enumerate(seats[:OTHER_SEATS]):
            others[t, k] = st.scores[q] / D
            others_in[t, k] = q in live
    half = (game.table.length / 2, game.table.width / 2)
    return observe_arrays(half, red, whites, pins, hand, brk, tm, own, others, others_in)


class KegleActionMap:
    """Flat actions -> strikes and red placements (units and ranges in the env cards)."""

    def __init__(self, game: KeglebillardGame, settings) -> None:
        self.spec = settings.action
        t = game.table
        self.R = game.R
        self.hx = t.length / 2 - game.R
        self.hy = t.width / 2 - game.R
        self.salvo_x = game.salvo_x

    def strikes(self, a: np.ndarray) -> np.ndarray:
        """(n, 5) V0, phi, theta, a, b."""
        return strikes_from_actions(a, self.spec)

    def placements(self, a: np.ndarray, hand: np.ndarray) -> np.ndarray:
        """(n, 2) red placements [m]: action[5:7] mapped onto the area of ``hand`` (behind the
        salvo line: x in [-(L/2 - R), salvo_x]; anywhere: x in [-(L/2 - R), L/2 - R]; y in
        [-(W/2 - R), W/2 - R]); NaN where the red is not in hand."""
        x_hi = np.where(hand == HAND_SALVO, self.salvo_x, self.hx)
        out = np.empty((a.shape[0], 2))
        out[:, 0] = scale(a[:, 5], -self.hx, x_hi)
        out[:, 1] = scale(a[:, 6], -self.hy, self.hy)
        out[hand == HAND_NONE] = np.nan
        return out


class PlacementCheck:
    """Vectorised :meth:`KeglebillardGame.placement_error` (K-19): True where the red can be
    placed. The red may touch a ball but not overlap one, must lie on the cloth (not in a
    pocket's capture circle, not on a jaw) and keep R + r_pin from every pin spot."""

    def __init__(self, game: KeglebillardGame) -> None:
        t = game.table
        self.R = game.R
        self.hx = t.length / 2 - game.R + 1e-12
        self.hy = t.width / 2 - game.R + 1e-12
        self.pockets = np.array([[p.x, p.y, p.radius] for p in t.pockets]).reshape(-1, 3)
        self.circles = np.array([[c.x, c.y, c.radius + game.R - GEOM_TOL]
                                 for c in t.circles]).reshape(-1, 3)
        self.pins = np.asarray(game.pin_spots, np.float64)
        self.r_pin = game.R + game.r_pin - GEOM_TOL

    def __call__(self, xy: np.ndarray, whites: np.ndarray) -> np.ndarray:
        """xy: (n, 2) placements (NaN: no placement, not ok); whites: (n, 2, 2) NaN if off."""
        x, y = xy[:, 0:1], xy[:, 1:2]
        ok = (np.abs(xy[:, 0]) <= self.hx) & (np.abs(xy[:, 1]) <= self.hy)
        ok &= ~(np.hypot(x - self.pockets[:, 0], y - self.pockets[:, 1])
                < self.pockets[:, 2]).any(1)
        ok &= ~(np.hypot(x - self.circles[:, 0], y - self.circles[:, 1])
                < self.circles[:, 2]).any(1)
        ok &= ~(np.hypot(x - self.pins[:, 0], y - self.pins[:, 1]) < self.r_pin).any(1)
        dw = np.hypot(whites[:, :, 0] - x, whites[:, :, 1] - y)
        ok &= ~(dw < 2 * self.R - GEOM_TOL).any(1)  # NaN (absent white) compares False
        return ok


# ---------------------------------------------------------------------------------------------
# Reward terms
# ---------------------------------------------------------------------------------------------


def _terms(reward, n: int) -> dict[str, np.ndarray]:
    return {name: np.zeros(n) for name in reward.terms}


def _total(reward, terms: dict[str, np.ndarray]) -> np.ndarray:
    out = np.zeros(len(next(iter(terms.values()))))
    for name in reward.terms:
        w = getattr(reward, name)
        if w:
            out += w * terms[name]
    return out


# ---------------------------------------------------------------------------------------------
# The Shot core: one decision per episode from a position bank
# ---------------------------------------------------------------------------------------------


class KegleShotCore(Core):
    """T keglebillard tables, one shot per episode, positions drawn from a bank.

    Args:
        n: number of tables.
        rules: rule-set options (mapping) or a KeglebillardRules; None: the shipped file.
        table: ``keglebillard`` (kleinmatch) or ``keglebillard-helmatch``.
        reward, noise, settings: see :mod:`cuegym.envs.config`.
        positions: a :class:`~cuegym.envs.positions.KeglebillardPositions` bank, or None for the
            bank named in the settings (the table's name for a non-default table).
        clip: clip out-of-range actions instead of raising.
        threads: numba threads for the physics (None: numba's default).
        render_mode: None or ``rgb_array`` / ``human``.
    """

    def __init__(self, n: int, *, rules: Any = None, table: str = "keglebillard",
                 reward: Any = None, noise: Any = "none", settings: Any = None,
                 positions: Any = None, clip: bool = False, threads: int | None = None,
                 render_mode: str | None = None) -> None:
        self.n = int(n)
        self.game = KeglebillardGame(rules, table)
        self.params = load_params("keglebillard")
        self.settings = load_settings("keglebillard", settings)
        self.reward = load_reward("keglebillard", reward)
        self.noise = load_noise(noise)
        if positions is None:
            name = self.settings.positions if table == "keglebillard" else table
            positions = load_positions(name)
        self.bank = positions
        self.clip = bool(clip)
        self.threads = threads
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = action_space()
        self.actions = KegleActionMap(self.game, self.settings)
        self.can_place = PlacementCheck(self.game)
        self.rngs = [np.random.default_rng() for _ in range(self.n)]
        self.half = (self.game.table.length / 2, self.game.table.width / 2)
        n = self.n
        self.red = np.full((n, 2), np.nan)
        self.whites = np.full((n, 2, 2), np.nan)
        self.pins = np.ones((n, N_PINS), bool)
        self.hand = np.zeros(n, np.int8)
        self.brk = np.zeros(n, bool)
        self.index = np.zeros(n, np.int64)  # bank index of the current episode
        self.done = np.zeros(n, bool)
        self.workspace = Workspace()
        self.last: dict[str, Any] | None = None  # the last step's shots, for rendering
        self.last_row = np.full(n, -1, np.int64)
        self._no_seats = np.zeros((n, OTHER_SEATS))
        self._one_opponent = np.zeros((n, OTHER_SEATS))
        self._one_opponent[:, 0] = 1.0

    # -- episodes --------------------------------------------------------------------------

    def reset(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        """Draw a bank position for each table of ``idx`` (one ``random()`` from its generator)."""
        N = len(self.bank)
        k = np.array([min(int(self.rngs[t].random() * N), N - 1) for t in idx], np.int64)
        self.index[idx] = k
        self.red[idx] = self.bank.red[k]
        self.whites[idx] = self.bank.whites[k]
        self.pins[idx] = self.bank.pins[k]
        self.hand[idx] = self.bank.hand[k]
        self.brk[idx] = self.bank.brk[k]
        self.done[idx] = False
        return {"position_index": k}

    def observe(self) -> np.ndarray:
        to_move = ~self.done
        return observe_arrays(self.half, self.red, self.whites, self.pins,
                              np.where(self.done, HAND_NONE, self.hand), self.brk & to_move,
                              to_move, self._no_seats[:, 0], self._no_seats,
                              self._one_opponent)

    # -- one shot per table ----------------------------------------------------------------

    def strikes(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Executed strikes (noise included) and placements for validated actions."""
        cue = self.noise.execute(self.actions.strikes(a), self.rngs)
        return cue, self.actions.placements(a, self.hand)

    def step(self, a: np.ndarray):
        n = self.n
        cue, place = self.strikes(a)
        in_hand = self.hand != HAND_NONE
        ok = ~in_hand | self.can_place(place, self.whites)
        play = np.flatnonzero(ok)
        red = np.where(in_hand[:, None] | ~ok[:, None], place, self.red)
        red[~ok] = np.nan  # an unplayable placement: no red, no strike (K-19)
        xy = np.concatenate([red[:, None], self.whites], axis=1)
        present = ~np.isnan(xy[:, :, 0])
        xy = np.where(present[..., None], xy, 0.0)
        g = self.game
        # every table in one call of constant shape (the workspace's buffers are reused)
        res = simulate(g.table, self.params, xy, cue_ball=np.where(ok, 0, -1), cue=cue,
                       pins_up=self.pins, present=present,
                       max_events=self.settings.max_events, t_max=self.settings.t_max,
                       threads=self.threads, validate=False, workspace=self.workspace)
        log = read_log(res)
        if len(play) < n:
            log = log.take(play)
        sc = score_shots(log, g.rules, table=g.table, salvo_line=self.hand[play] == HAND_SALVO)
        # reward terms and the per-table outcome
        terms = _terms(self.reward, n)
        terms["points"][play] = sc.shooter_points
        terms["skaeve"][play] = sc.skaeve
        terms["foul"][play] = sc.foul
        terms["win"][play] = sc.win
        bad = np.flatnonzero(~ok)  # K-19: the placement cannot be played (no shot)
        foul_skaeve = 0 if g.rules.ddbu else 6
        terms["skaeve"][bad] = foul_skaeve
        terms["foul"][bad] = 1.0
        reward = _total(self.reward, terms)
        flags = np.zeros((n, len(FOUL_FLAGS)), bool)
        flags[play, :len(FOUL_COLUMNS)] = sc.fouls
        flags[bad, -1] = True
        points = np.zeros(n, np.int64)
        points[play] = sc.points
        penalty = np.zeros(n, np.int64)
        penalty[play] = sc.penalty
        penalty[bad] = foul_skaeve
        pins_toppled = np.zeros((n, N_PINS), bool)
        pins_toppled[play] = sc.pins_toppled
        pocketed = np.zeros((n, 3), bool)
        pocketed[play] = sc.pocketed
        overflow = np.where(ok, res.overflow, 0).astype(np.int8)

        def col(values, dtype=bool):
            out = np.zeros(n, dtype)
            out[play] = values
            return out

        info = {
            "played": ok.copy(), "points": points, "penalty": penalty,
            "shooter_points": terms["points"].astype(np.int64),
            "skaeve": terms["skaeve"].astype(np.int64), "foul": terms["foul"] > 0,
            "foul_flags": flags, "rodt": col(sc.rodt), "blegt": col(sc.blegt),
            "king_alone": col(sc.king_alone), "clean16": col(sc.clean16), "win": col(sc.win),
            "pins_toppled": pins_toppled, "pocketed": pocketed, "overflow": overflow,
            "strike": cue, "in_hand": in_hand, "placement": np.nan_to_num(place),
            "position_index": self.index.copy(),
            "reward_terms": terms,
        }
        # the table as the shot left it (the terminal observation and the rendered frame)
        end = res.rvw[play, :, 0, :2]
        on_end = present[play] & ~sc.pocketed
        self.red[play] = np.where(on_end[:, 0, None], end[:, 0], np.nan)
        self.whites[play] = np.where(on_end[:, 1:, None], end[:, 1:], np.nan)
        self.red[bad] = np.nan
        self.pins[play] &= ~sc.pins_toppled
        self.done[:] = True
        self.last_row[:] = -1
        self.last_row[play] = play
        self.last = {"res": res, "place": place, "info": info} if self.render_mode else None
        return (reward, np.ones(n, bool), np.zeros(n, bool), info)

    def render_table(self, t: int) -> np.ndarray:
        from .render import render_keglebillard

        last = self.last if self.done[t] else None
        return render_keglebillard(self, t, last)


# ---------------------------------------------------------------------------------------------
# Playing shots from rules states (full-game core, PettingZoo env, replays)
# ---------------------------------------------------------------------------------------------


def play_shots(game: KeglebillardGame, params, states: Sequence[GameState], cue: np.ndarray,
               place: np.ndarray, *, max_events: int = 300, t_max: float = 60.0,
               threads: int | None = None, workspace: Workspace | None = None
               ) -> tuple[list[ShotOutcome], list[GameState], Any, np.ndarray]:
    """Play one executed strike per state (the player to move shoots): placement check (K-19),
    one batched physics call, the rules' flow.

    Args:
        cue: (T, 5) executed strikes. place: (T, 2) red placements (read where the state has
            the red in hand; NaN there is an unplayable placement).

    Returns:
        (outcomes, next states, the SimResult of the played tables or None, (T,) row of each
        table in it, -1 for an unplayable placement).
    """
    T = len(states)
    row = np.full(T, -1, np.int64)
    setups, play = [], []
    fouls: dict[int, tuple[ShotOutcome, GameState]] = {}
    for t, st in enumerate(states):
        xy = None
        if st.ball_in_hand is not None:
            xy = place[t]
            if not np.isfinite(xy).all():
                fouls[t] = game.placement_foul(st, None, reason="no placement given")
                continue
            if game.placement_error(st, xy) is not None:
                fouls[t] = game.placement_foul(st, xy)
                continue
        setups.append(game.shot_setup(st, xy))
        play.append(t)
    res = None
    results: dict[int, tuple[ShotOutcome, GameState]] = dict(fouls)
    if play:
        res = simulate(game.table, params, np.stack([s.xy for s in setups]),
                       cue_ball=np.zeros(len(play), np.int64), cue=cue[play],
                       pins_up=np.stack([s.pins_up for s in setups]),
                       present=np.stack([s.present for s in setups]), max_events=max_events,
                       t_max=t_max, threads=threads, validate=False, workspace=workspace)
        out = game.apply_batch([states[t] for t in play], res)
        for k, t in enumerate(play):
            results[t] = out[k]
            row[t] = k
    outcomes = [results[t][0] for t in range(T)]
    new = [results[t][1] for t in range(T)]
    return outcomes, new, res, row


class KegleRandomOpponent:
    """The default opponent: a uniformly random flat action (mapped like the learner's), i.e.
    the random policy of the action space; its draws come from the table's generator."""

    name = "random"

    def __init__(self, actions: KegleActionMap) -> None:
        self.map = actions

    def act(self, states: Sequence[GameState], rng: np.random.Generator):
        u = rng.uniform(-1.0, 1.0, (len(states), ACT_DIM))
        code = {None: HAND_NONE, "salvo": HAND_SALVO, "cloth": HAND_CLOTH}
        hand = np.array([code[s.ball_in_hand] for s in states], np.int8)
        return Strikes(self.map.strikes(u), np.zeros(len(states), np.int64),
                           self.map.placements(u, hand))


class KegleGameCore(Core):
    """T whole keglebillard games, one learner per table, opponents in the other seats.

    Args:
        n: number of tables. num_players: players per game (K-1, 2 or more; the observation
            describes up to 6).
        opponent: ``"random"`` (default) or an agent with ``act(states, rng) -> strikes``
            (``cue`` (T, 5) and ``place`` (T, 2), e.g. a ``cuegym.agents`` Agent); a callable
            ``f(states, rng)`` works too.
        opponent_batching: ``"per_table"`` (each table's opponent shots are one call with that
            table's generator: a vector env then equals the single envs exactly) or
            ``"batched"`` (one call for all tables waiting on an opponent, with the generator
            of the first of them: faster for batched planners).
        seat: the learner's seat, 0..N-1 (seat 0 breaks the first game, K-4), or ``"random"``
            (drawn at each reset).
        Others as :class:`KegleShotCore`.
    """

    def __init__(self, n: int, *, num_players: int = 2, opponent: Any = "random",
                 opponent_batching: str = "per_table", seat: int | str = "random",
                 rules: Any = None, table: str = "keglebillard", reward: Any = None,
                 noise: Any = "none", settings: Any = None, clip: bool = False,
                 threads: int | None = None, render_mode: str | None = None) -> None:
        from .opponents import as_opponent

        self.n = int(n)
        self.game = KeglebillardGame(rules, table)
        if isinstance(num_players, bool) or not isinstance(num_players, int | np.integer) or \
                num_players < 2:
            raise ValueError(f"num_players must be an integer >= 2, got {num_players!r}")
        self.num_players = int(num_players)
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, int | np.integer)
                                 or not 0 <= seat < self.num_players):
            raise ValueError(f"seat must be 'random' or 0..{self.num_players - 1}, got {seat!r}")
        self.seat_choice = seat
        if opponent_batching not in ("per_table", "batched"):
            raise ValueError(f"opponent_batching must be 'per_table' or 'batched', got "
                             f"{opponent_batching!r}")
        self.opponent_batching = opponent_batching
        self.params = load_params("keglebillard")
        self.settings = load_settings("keglebillard", settings)
        self.reward = load_reward("keglebillard", reward)
        self.noise = load_noise(noise)
        self.clip = bool(clip)
        self.threads = threads
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = action_space()
        self.actions = KegleActionMap(self.game, self.settings)
        self.opponent = as_opponent(opponent, lambda: KegleRandomOpponent(self.actions),
                                    "keglebillard")
        self.rngs = [np.random.default_rng() for _ in range(self.n)]
        self.states: list[GameState] = [self.game.new_state(self.num_players)] * self.n
        self.seat = np.zeros(self.n, np.int64)
        self.steps = np.zeros(self.n, np.int64)
        self.workspace = Workspace()
        self.last: list[Any] = [None] * self.n  # per table: the last shot, for render

    # -- helpers -----------------------------------------------------------------------------

    def _learner_in(self, t: int) -> bool:
        st = self.states[t]
        return not st.game_over and int(self.seat[t]) in st.in_game

    def _shoot(self, tables: list[int], cue: np.ndarray, place: np.ndarray
               ) -> list[ShotOutcome]:
        """Execute (noise, physics, rules) one shot on each of ``tables``."""
        cue = self.noise.execute(cue, [self.rngs[t] for t in tables])
        s = self.settings
        shooters = [self.states[t].to_play for t in tables]
        outcomes, new, res, row = play_shots(
            self.game, self.params, [self.states[t] for t in tables], cue, place,
            max_events=s.max_events, t_max=s.t_max, threads=self.threads,
            workspace=None if self.render_mode else self.workspace)
        for k, t in enumerate(tables):
            self.states[t] = new[k]
            if self.render_mode:
                self.last[t] = (res, int(row[k]), outcomes[k], shooters[k], cue[k])
        self._executed = cue
        return outcomes

    def _opponent_strikes(self, tables: list[int]) -> tuple[np.ndarray, np.ndarray]:
        states = [self.states[t] for t in tables]
        if self.opponent_batching == "per_table":
            parts = [self.opponent.act([st], self.rngs[t]) for t, st in zip(tables, states,
                                                                              strict=True)]
            cue = np.concatenate([np.asarray(p.cue, np.float64).reshape(-1, 5) for p in parts])
            place = np.concatenate([np.asarray(p.place, np.float64).reshape(-1, 2)
                                    for p in parts])
        else:
            out = self.opponent.act(states, self.rngs[tables[0]])
            cue = np.asarray(out.cue, np.float64).reshape(-1, 5)
            place = np.asarray(out.place, np.float64).reshape(-1, 2)
        if cue.shape != (len(tables), 5) or place.shape != (len(tables), 2):
            raise ValueError(f"the opponent returned strikes of shape {cue.shape} and "
                             f"placements of shape {place.shape} for {len(tables)} states")
        return cue, place

    def _play_opponents(self, tables: np.ndarray, terms: dict[str, np.ndarray] | None
                        ) -> np.ndarray:
        """Opponents shoot until each table's learner is to play or out; returns (n,) bool of
        tables truncated by ``max_opponent_shots``."""
        count = np.zeros(self.n, np.int64)
        cut = np.zeros(self.n, bool)
        while True:
            todo = [int(t) for t in tables if self._learner_in(t) and not cut[t]
                    and self.states[t].to_play != self.seat[t]]
            if not todo:
                return cut
            shooters = [self.states[t].to_play for t in todo]
            cue, place = self._opponent_strikes(todo)
            outcomes = self._shoot(todo, cue, place)
            for t, o, p in zip(todo, outcomes, shooters, strict=True):
                count[t] += 1
                if count[t] >= self.settings.max_opponent_shots:
                    cut[t] = True
                if terms is not None:
                    me = int(self.seat[t])
                    if me in o.skaeve_to:
                        terms["skaeve_received"][t] += o.skaeve
                    if p != me:
                        terms["opponent_points"][t] += o.shooter_points

    def _result(self, t: int) -> float:
        """+1 ranked first .. -1 ranked last, from the finishing order (K-21, K-22)."""
        st = self.states[t]
        me = int(self.seat[t])
        N = st.n_players
        if me in st.lost:
            rank = N - 1 - list(st.lost).index(me)
        elif me in st.finished:
            rank = list(st.finished).index(me)
        else:
            return 0.0
        return 1.0 - 2.0 * rank / (N - 1)

    # -- episodes ----------------------------------------------------------------------------

    def reset(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        """New games on ``idx``: the learner's seat (one ``random()`` draw when random), then the
        opponents' shots until the learner is to play."""
        N = self.num_players
        todo = np.asarray(idx)
        while len(todo):
            for t in todo:
                if self.seat_choice == "random":
                    self.seat[t] = min(int(self.rngs[t].random() * N), N - 1)
                else:
                    self.seat[t] = int(self.seat_choice)
                self.states[t] = self.game.new_state(N, first_player=0)
                self.steps[t] = 0
                self.last[t] = None
            self._play_opponents(todo, None)
            # an opponent's break that ends the game (K-20) before the learner shoots: again
            todo = np.array([t for t in todo if not self._learner_in(t)], np.int64)
        return {"seat": self.seat[idx].copy()}

    def observe(self) -> np.ndarray:
        return observe_states(self.game, self.states, [int(s) for s in self.seat])

    def step(self, a: np.ndarray):
        n = self.n
        terms = _terms(self.reward, n)
        live = [t for t in range(n) if self._learner_in(t)]
        if len(live) != n:
            raise RuntimeError("step() on a finished game: reset it first")
        cue = self.actions.strikes(a)
        code = {None: HAND_NONE, "salvo": HAND_SALVO, "cloth": HAND_CLOTH}
        hand = np.array([code[self.states[t].ball_in_hand] for t in range(n)], np.int8)
        place = self.actions.placements(a, hand)
        outcomes = self._shoot(live, cue, place)
        cue_x = self._executed
        flags = np.zeros((n, len(FOUL_FLAGS)), bool)
        for t, o in enumerate(outcomes):
            terms["points"][t] = o.shooter_points
            terms["skaeve"][t] = o.skaeve if o.foul else 0
            terms["foul"][t] = o.foul
            terms["win"][t] = o.win
            for f in o.fouls:
                key = f if f in FOUL_FLAGS else f.split(":")[0]
                if key in FOUL_FLAGS:
                    flags[t, FOUL_FLAGS.index(key)] = True
        cut = self._play_opponents(np.arange(n), terms)
        self.steps += 1
        terminated = np.array([not self._learner_in(t) for t in range(n)])
        for t in np.flatnonzero(terminated):
            terms["result"][t] = self._result(t)
        truncated = ~terminated & (cut | (self.steps >= self.settings.max_steps))
        reward = _total(self.reward, terms)
        me = self.seat
        info = {
            "played": np.array([o.played for o in outcomes]),
            "points": np.array([o.points for o in outcomes], np.int64),
            "penalty": np.array([o.penalty for o in outcomes], np.int64),
            "foul": np.array([o.foul for o in outcomes]), "foul_flags": flags,
            "overflow": np.array([o.overflow for o in outcomes], np.int8),
            "strike": cue_x, "in_hand": hand != HAND_NONE, "placement": np.nan_to_num(place),
            "scores": np.array([[st.scores[(int(me[t]) + k) % self.num_players]
                                 for k in range(self.num_players)]
                                for t, st in enumerate(self.states)], np.int64),
            "game_over": np.array([st.game_over for st in self.states]),
            "seat": me.copy(), "reward_terms": terms,
        }
        return reward, terminated, truncated, info

    def render_table(self, t: int) -> np.ndarray:
        from .render import render_keglebillard_state

        return render_keglebillard_state(self, t)


def outcome_summary(o: ShotOutcome) -> str:
    """One line for a HUD: points, fouls, skæve."""
    if not o.played:
        return "placement foul (K-19): skaeve 6"
    parts = []
    if o.foul:
        parts.append(f"foul {' '.join(o.fouls)}: skaeve {o.skaeve}")
    elif o.win:
        parts.append("all three balls down: wins (K-20)")
    else:
        parts.append(f"{o.shooter_points} points")
    extras = [k for k in ("rodt", "blegt", "king_alone", "clean16") if getattr(o, k)]
    if extras:
        parts.append(", ".join(extras))
    return "; ".join(parts)
