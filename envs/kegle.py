"""Keglebillard cores: the env-side plumbing of the batched Shot core and the full-game core
(see :mod:`cuegym.envs.keglebillard` for the env classes and their cards).

Every shot is played by the game layer (:class:`cuegym.games.kegle.Kegle`: noise, the K-19
placement check, one batched physics call, the referee and the compiled game flow); a core maps
actions to strikes, keeps its tables' states (a :class:`~cuegym.games.kegle_state.KegleStates`
batch) and turns outcomes into rewards (``Kegle.reward_terms``), observations and info. No
Python loop over tables on the step path, except each table's random draws from its own
generator and opponents that act one table at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import gymnasium as gym
import numpy as np

from cuegym.games.kegle import Kegle
from cuegym.games.kegle_obs import (  # noqa: F401 (the layout, re-exported for the envs)
    OBS_DIM,
    OBS_INDEX,
    OBS_LAYOUT,
    OTHER_SEATS,
    observe_arrays,
)
from cuegym.games.kegle_state import (  # noqa: F401 (re-exported)
    HAND_CLOTH,
    HAND_NONE,
    HAND_SALVO,
    OUTCOME_FOULS,
    KegleStates,
)
from cuegym.games.strikes import Strikes
from cuegym.physics.api import Workspace
from cuegym.rules.keglebillard import FOUL_COLUMNS
from cuegym.rules.keglebillard_game import ShotOutcome

from .actions import layout_box, scale, strikes_from_actions, unit_box
from .base import GAME_UNUSED_SETTINGS, SHOT_UNUSED_SETTINGS, Core, refuse_unused_rules
from .checks import check_bank, check_opponent_batching, check_seat
from .config import load_settings
from .opponents import check_opponent_cue, opponent_strikes
from .positions import KeglebillardPositions, check_kegle_positions, load_positions

#: Action layout: the strike (docs: cuegym.envs.actions), then the red's placement.
ACTION_LAYOUT = ("V0", "phi", "theta", "a", "b", "place_x", "place_y")
ACT_DIM = len(ACTION_LAYOUT)
#: the step info's ``foul_flags`` columns: the referee's, K-19's and, under ``variant: ddbu``,
#: K-25's (the last two were left out: a ddbu foul was flagged by no column)
FOUL_FLAGS = OUTCOME_FOULS
assert FOUL_FLAGS[:len(FOUL_COLUMNS) + 1] == (*FOUL_COLUMNS, "K-19:placement")


def observation_space() -> gym.spaces.Box:
    return layout_box(OBS_LAYOUT)


def action_space() -> gym.spaces.Box:
    return unit_box(ACT_DIM)


class KegleActionMap:
    """Flat actions -> strikes and red placements (units and ranges in the env cards)."""

    def __init__(self, game: Kegle, settings) -> None:
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


def check_num_players(num_players: Any) -> int:
    """``num_players`` of a full-game env as an int in [2, MAX_PLAYERS] (K-1; a numpy integer
    becomes an int; a bool, float or string raises). Checked when the env is made: the AEC env
    builds its games only at ``reset``, where a refused count would surface late and under
    the game layer's name ``n_players``."""
    from cuegym.rules.inputs import MAX_PLAYERS

    if isinstance(num_players, bool | np.bool_) or \
            not isinstance(num_players, int | np.integer) or \
            not 2 <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be an integer from 2 to {MAX_PLAYERS}, got "
                         f"{num_players!r}")
    return int(num_players)


def kegle_game(rules: Any, table: Any) -> Kegle:
    """The game layer of a core, with ``rules`` checked first: None, a mapping of options, a
    YAML path or a ``KeglebillardRules`` (anything else would fail deep inside as a path)."""
    from pathlib import Path

    from cuegym.rules.keglebillard import KeglebillardRules

    if rules is not None and not isinstance(rules, Mapping | str | Path | KeglebillardRules):
        raise ValueError(f"rules must be None, a mapping of rule options, a YAML path or a "
                         f"KeglebillardRules, got {rules!r}")
    return Kegle(rules, table)


def shot_bank(positions: Any, settings: Any, table: str, game: Kegle
              ) -> KeglebillardPositions:
    """The Shot core's bank: ``positions`` (checked whole, a copy:
    :func:`~cuegym.envs.positions.check_kegle_positions` on ``game``'s table), else the
    settings' bank on the default table, else the table's own bank. A settings bank other than
    the shipped default with a non-default table is refused: the table's own bank would
    silently replace it; so is a bank made on another table. Under the rules option
    ``ball_in_hand_area: salvo`` a position with the red in hand anywhere (K-19) has it in hand
    behind the salvo line instead, as that option's games do."""
    if positions is not None:
        bank = check_kegle_positions(check_bank(positions, KeglebillardPositions,
                                                "keglebillard"), game)
    else:
        name = settings.positions
        if table != "keglebillard":
            if name not in (load_settings("keglebillard").positions, table):
                raise ValueError(f"settings positions {name!r} is a bank of another table; "
                                 f"table={table!r} plays its own bank {table!r} (pass "
                                 "positions= a KeglebillardPositions to use another)")
            name = table
        bank = load_positions(name, "keglebillard", table)
    if game.rules.ball_in_hand_area == "salvo" and (bank.hand == HAND_CLOTH).any():
        # K-19 under the salvo option: the red in hand goes behind the line, never anywhere
        bank = replace(bank, hand=np.where(bank.hand == HAND_CLOTH, HAND_SALVO, bank.hand)
                       .astype(bank.hand.dtype))
    return bank


# ---------------------------------------------------------------------------------------------
# The Shot core: one decision per episode from a position bank
# ---------------------------------------------------------------------------------------------


class KegleShotCore(Core):
    """T keglebillard tables, one shot per episode, positions drawn from a bank.

    Args:
        n: number of tables.
        rules: rule-set options (mapping) or a KeglebillardRules; None: the shipped file.
        table: ``keglebillard`` (kleinmatch) or ``keglebillard-helmatch``.
        reward, noise, settings: see :mod:`cuegym.envs.config` (noise: :mod:`cuegym.games.noise`).
        positions: a :class:`~cuegym.envs.positions.KeglebillardPositions` bank, or None for the
            bank named in the settings (the table's name for a non-default table).
        clip: clip out-of-range actions instead of raising.
        threads: numba threads for the physics (None: numba's default).
        render_mode: None or ``rgb_array`` / ``human``.
    """

    UNUSED_SETTINGS = SHOT_UNUSED_SETTINGS
    UNUSED_REWARD_TERMS = ("skaeve_received", "opponent_points", "result")
    #: rule options of the game's flow, which one shot from a two-player position never meets
    UNUSED_RULES = {
        "first_player": "a Shot env's position has its shooter (K-4 chooses a game's breaker)",
        "distance": "a Shot env's episode is one shot, scored without the game's scores (K-21)",
        "skaeve_to": "a Shot env's positions are two-player: skæve go to the one opponent (K-17)"}

    #: the keys of the step info (``make_sb3_vec_env``'s ``info_keys`` are checked against them)
    INFO_KEYS = (
        "played", "points", "penalty", "shooter_points", "skaeve", "foul", "foul_flags",
        "rodt", "blegt", "king_alone", "clean16", "win", "pins_toppled", "pocketed",
        "overflow", "strike", "in_hand", "placement", "position_index", "reward_terms"
    )

    def __init__(self, n: int, *, rules: Any = None, table: str = "keglebillard",
                 reward: Any = None, noise: Any = "none", settings: Any = None,
                 positions: Any = None, clip: bool = False, threads: int | None = None,
                 render_mode: str | None = None) -> None:
        self.n = int(n)
        self.game = kegle_game(rules, table)
        from cuegym.rules.keglebillard_config import load_rules

        refuse_unused_rules(self.game.rules, load_rules(), self.UNUSED_RULES, type(self).__name__)
        self._configure("keglebillard", settings, reward, noise, clip, threads, render_mode)
        self.bank = shot_bank(positions, self.settings, table, self.game)
        self.observation_space = observation_space()
        self.action_space = action_space()
        self.actions = KegleActionMap(self.game, self.settings)
        self.rngs = [np.random.default_rng() for _ in range(self.n)]
        self.half = self.game.half
        n = self.n
        # the positions as two-player game states (the Shot env shows no score)
        self.states = self.game.new(n, 2)
        self.hand = np.zeros(n, np.int8)  # the bank's, kept after the shot (render)
        self.brk = np.zeros(n, bool)
        self.index = np.zeros(n, np.int64)  # bank index of the current episode
        self.done = np.zeros(n, bool)
        self.workspace = Workspace()
        self.last: dict[str, Any] | None = None  # the last step's shots, for rendering
        self.last_row = np.full(n, -1, np.int64)
        self._no_seats = np.zeros((n, OTHER_SEATS))
        self._one_opponent = np.zeros((n, OTHER_SEATS))
        self._one_opponent[:, 0] = 1.0

    # the displayed table: the position, or after the shot the balls and pins as it left them
    red = property(lambda self: self.states.xy[:, 0], doc="(n, 2) red centre [m], NaN if off")
    whites = property(lambda self: self.states.xy[:, 1:], doc="(n, 2, 2) whites [m], NaN if off")
    pins = property(lambda self: self.states.pins, doc="(n, 5) standing pins")

    # -- episodes --------------------------------------------------------------------------

    def reset(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        """Draw a bank position for each table of ``idx`` (one ``random()`` from its generator)."""
        N = len(self.bank)
        k = np.array([min(int(self.rngs[t].random() * N), N - 1) for t in idx], np.int64)
        self.index[idx] = k
        s = self.states
        s.xy[idx, 0] = self.bank.red[k]
        s.xy[idx, 1:] = self.bank.whites[k]
        s.wait_spot[idx] = -1  # a bank white off the table: K-18 picks its spot after the shot
        s.pins[idx] = self.bank.pins[k]
        s.hand[idx] = self.hand[idx] = self.bank.hand[k]
        self.brk[idx] = self.bank.brk[k]
        s.shot[idx] = np.where(self.brk[idx], 0, 1)
        s.to_play[idx] = 0
        s.game_over[idx] = False
        self.done[idx] = False
        return {"position_index": k}

    def observe(self) -> np.ndarray:
        to_move = ~self.done
        return observe_arrays(self.half, self.red, self.whites, self.pins,
                              np.where(self.done, HAND_NONE, self.hand), self.brk & to_move,
                              to_move, self._no_seats[:, 0], self._no_seats,
                              self._one_opponent)

    # -- one shot per table ----------------------------------------------------------------

    def step(self, a: np.ndarray):
        n = self.n
        strikes = Strikes(self.actions.strikes(a), np.zeros(n, np.int64),
                          self.actions.placements(a, self.hand))
        # a shot cut off by max_events / t_max is scored where it ended: info["overflow"]
        s = self.settings
        out, _ = self.game.play(self.states, strikes, self.noise, self.rngs,
                                max_events=s.max_events, t_max=s.t_max, threads=self.threads,
                                workspace=self.workspace, allow_overflow=True)
        terms, reward = self.game.reward_terms(out, self.reward)
        played = out.played
        in_hand = self.hand != HAND_NONE
        info = {
            "played": played.copy(), "points": out.points, "penalty": out.penalty,
            "shooter_points": out.shooter_points, "skaeve": terms["skaeve"].astype(np.int64),
            "foul": out.foul, "foul_flags": out.fouls.copy(),
            "rodt": out.rodt, "blegt": out.blegt, "king_alone": out.king_alone,
            "clean16": out.clean16, "win": out.win, "pins_toppled": out.pins_toppled,
            "pocketed": out.pocketed, "overflow": out.overflow.astype(np.int64),
            "strike": out.strike, "in_hand": in_hand,
            "placement": np.nan_to_num(out.place), "position_index": self.index.copy(),
            "reward_terms": {k: terms[k] for k in self.reward.terms},
        }
        # the table as the shot left it (the terminal observation and the rendered frame),
        # before spotting and re-standing
        play = np.flatnonzero(played)
        xy = self.states.xy
        if len(play):
            end = out.sim.rvw[out.row[play], :, 0, :2]
            # on the table before (the red: or placed from hand) and not pocketed or off it
            on_end = ~np.isnan(xy[play, :, 0])
            on_end[:, 0] |= in_hand[play]
            on_end &= ~out.pocketed[play]
            xy[play] = np.where(on_end[..., None], end, np.nan)
        xy[~played, 0] = np.nan  # K-19: an unplayable placement, no red on the table
        self.states.pins &= ~out.pins_toppled
        self.done[:] = True
        self.last_row[:] = out.row
        self.last = {"res": out.sim, "place": out.place, "info": info} \
            if self.render_mode else None
        return (reward, np.ones(n, bool), np.zeros(n, bool), info)

    def render_table(self, t: int) -> np.ndarray:
        from .render import render_keglebillard

        last = self.last if self.done[t] else None
        return render_keglebillard(self, t, last)


# ---------------------------------------------------------------------------------------------
# The full-game core
# ---------------------------------------------------------------------------------------------


class KegleRandomOpponent:
    """The default opponent: a uniformly random flat action (mapped like the learner's), i.e.
    the random policy of the action space. ``rng``: one generator, or one per state (row t
    drawn from ``rng[t]``: what per-table calls would draw)."""

    name = "random"
    per_table_rngs = True

    def __init__(self, actions: KegleActionMap) -> None:
        self.map = actions

    def act(self, states: KegleStates, rng: Any) -> Strikes:
        T = len(states)
        if isinstance(rng, np.random.Generator):
            u = rng.uniform(-1.0, 1.0, (T, ACT_DIM))
        else:
            u = np.empty((T, ACT_DIM))
            for t in range(T):
                u[t] = rng[t].uniform(-1.0, 1.0, ACT_DIM)
        return Strikes(self.map.strikes(u), np.zeros(T, np.int64),
                       self.map.placements(u, states.hand))


class KegleGameCore(Core):
    """T whole keglebillard games, one learner per table, opponents in the other seats.

    Args:
        n: number of tables. num_players: players per game (K-1, 2 or more; the observation
            describes up to 6).
        opponent: ``"random"`` (default) or an agent with ``act(states, rng) -> Strikes``
            (``states``: a :class:`~cuegym.games.kegle_state.KegleStates` batch; iterating it
            gives rules ``GameState`` values, e.g. a ``cuegym.agents`` Agent); a callable
            ``f(states, rng)`` works too.
        opponent_batching: ``"per_table"`` (each table's opponent shots are one call with that
            table's generator: a vector env then equals the single envs exactly) or
            ``"batched"`` (one call for all tables waiting on an opponent, with the generator
            of the first of them: faster for batched planners).
        seat: the learner's seat, 0..N-1 (seat 0 breaks the first game, K-4), or ``"random"``
            (drawn at each reset).
        Others as :class:`KegleShotCore`.
    """

    UNUSED_SETTINGS = GAME_UNUSED_SETTINGS

    #: the keys of the step info (``make_sb3_vec_env``'s ``info_keys`` are checked against them)
    INFO_KEYS = (
        "played", "points", "penalty", "foul", "foul_flags", "overflow", "strike",
        "in_hand", "placement", "scores", "game_over", "seat", "reward_terms"
    )

    def __init__(self, n: int, *, num_players: int = 2, opponent: Any = "random",
                 opponent_batching: str = "per_table", seat: int | str = "random",
                 rules: Any = None, table: str = "keglebillard", reward: Any = None,
                 noise: Any = "none", settings: Any = None, clip: bool = False,
                 threads: int | None = None, render_mode: str | None = None) -> None:
        from .opponents import as_opponent

        self.n = int(n)
        self.game = kegle_game(rules, table)
        if self.game.rules.first_player != "player0":
            raise ValueError(f"rules first_player={self.game.rules.first_player!r}: in the "
                             "full-game env seat 0 breaks (K-4); seat='random' (the default) "
                             "draws the learner's seat instead")
        self.num_players = check_num_players(num_players)
        self.seat_choice = check_seat(seat, self.num_players)
        self.opponent_batching = check_opponent_batching(opponent_batching)
        self._configure("keglebillard", settings, reward, noise, clip, threads, render_mode)
        self.observation_space = observation_space()
        self.action_space = action_space()
        self.actions = KegleActionMap(self.game, self.settings)
        self.opponent = as_opponent(opponent, self.random_opponent, "keglebillard",
                                    self.opponent_arena)
        self.rngs = [np.random.default_rng() for _ in range(self.n)]
        self.states = self.game.new(self.n, self.num_players, first_player=0)
        self.seat = np.zeros(self.n, np.int64)
        self.steps = np.zeros(self.n, np.int64)
        self.workspace = Workspace()
        self.last: list[Any] = [None] * self.n  # per table: the last shot, for render

    # -- helpers -----------------------------------------------------------------------------

    def _learner_in(self) -> np.ndarray:
        """(n,) bool: the game goes on and the learner is still in it."""
        st = self.states
        return ~st.game_over & st.in_game()[np.arange(self.n), self.seat]

    def _shoot(self, active: np.ndarray, strikes: Strikes):
        """Execute (noise, physics, rules) one shot on each ``active`` table."""
        s = self.settings
        shooters = self.states.to_play.copy()
        out, self.states = self.game.play(
            self.states, strikes, self.noise, self.rngs, active=active,
            max_events=s.max_events, t_max=s.t_max, threads=self.threads,
            workspace=None if self.render_mode else self.workspace, allow_overflow=True)
        if self.render_mode:
            for t in np.flatnonzero(active):
                self.last[t] = (out.sim, int(out.row[t]), out.outcome(int(t)), int(shooters[t]),
                                out.strike[t])
        return out

    def _opponent_strikes(self, tables: np.ndarray) -> Strikes:
        states = self.states.take(tables)
        opp = self.opponent

        def act(batch: Any, rng: Any) -> Strikes:
            return opponent_strikes(opp.act(batch, rng), "act", with_place=True)

        if self.opponent_batching == "per_table":
            if getattr(opp, "per_table_rngs", False):
                out = act(states, [self.rngs[t] for t in tables])
            else:
                out = Strikes.concat([act(states.take([k]), self.rngs[t])
                                      for k, t in enumerate(tables)])
        else:
            out = act(states, self.rngs[tables[0]])
        if len(out) != len(tables):
            raise ValueError(f"the opponent returned {len(out)} strikes for {len(tables)} "
                             "states")
        check_opponent_cue(out.cue, tables, self.noise)
        full = Strikes.empty(self.n)
        full.put(tables, out)
        return full

    def _play_opponents(self, tables: np.ndarray, terms: dict[str, np.ndarray] | None
                        ) -> np.ndarray:
        """Opponents shoot until each table's learner is to play or out; returns (n,) bool of
        tables truncated by ``max_opponent_shots``."""
        count = np.zeros(self.n, np.int64)
        cut = np.zeros(self.n, bool)
        mine = np.zeros(self.n, bool)
        mine[tables] = True
        while True:
            todo = mine & self._learner_in() & ~cut & (self.states.to_play != self.seat)
            idx = np.flatnonzero(todo)
            if not len(idx):
                return cut
            out = self._shoot(todo, self._opponent_strikes(idx))
            count[idx] += 1
            cut |= todo & (count >= self.settings.max_opponent_shots)
            if terms is not None:
                t_opp, _ = self.game.reward_terms(out, self.reward, viewer=self.seat)
                for k in ("skaeve_received", "opponent_points"):
                    terms[k] += t_opp[k]

    def random_opponent(self) -> KegleRandomOpponent:
        """The env's default opponent (``opponent="random"``): uniform random actions."""
        return KegleRandomOpponent(self.actions)

    def opponent_arena(self) -> Any:
        """The arena of this env's table, rules and player count: named opponents (planner,
        pretrained...) are made for it, so they aim and search on the table played."""
        from cuegym.agents import make_arena

        return make_arena("keglebillard", self.game.rules, table=self.game.table_name,
                          n_players=self.num_players)

    # -- episodes ----------------------------------------------------------------------------

    def reset(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        """New games on ``idx``: the learner's seat (one ``random()`` draw when random), then the
        opponents' shots until the learner is to play (``max_opponent_shots`` bounds a step's
        shots, and a reset is no step). A game that leaves the learner out before its first
        shot (a break that ends it, K-20, or skæve that finish the learner, K-21/K-22) is
        replaced, the seat kept (:meth:`Core._replace_games`)."""
        N = self.num_players
        idx = np.asarray(idx, np.int64)
        for t in idx:
            if self.seat_choice == "random":
                self.seat[t] = min(int(self.rngs[t].random() * N), N - 1)
            else:
                self.seat[t] = int(self.seat_choice)

        def start(todo):
            for t in todo:
                self.last[t] = None
            self.states.put(todo, self.game.new(len(todo), N, first_player=0))
            self.steps[todo] = 0
            # was: one capped round, which could leave the opponents to play and the first
            # step raising "the last step stopped midway"
            while self._play_opponents(todo, None)[todo].any():
                pass

        self._replace_games(idx, start, lambda todo: ~self._learner_in()[todo])
        return {"seat": self.seat[idx].copy()}

    @property
    def max_episode_steps(self) -> int:
        """Learner steps before an episode truncates (``settings.max_steps``)."""
        return self.settings.max_steps

    def observe(self) -> np.ndarray:
        # with more than 6 players the seats after the fifth next are not shown (documented)
        return self.game.observe(self.states, self.seat, next_seats_only=True)

    def step(self, a: np.ndarray):
        n = self.n
        over = ~self._learner_in()
        self.check_learner_to_play(over, ~over & (self.states.to_play != self.seat))
        hand = self.states.hand.copy()
        strikes = Strikes(self.actions.strikes(a), np.zeros(n, np.int64),
                          self.actions.placements(a, hand))
        out = self._shoot(np.ones(n, bool), strikes)
        terms, _ = self.game.reward_terms(out, self.reward)
        cut = self._play_opponents(np.arange(n), terms)
        self.steps += 1
        terminated = ~self._learner_in()
        terms["result"] = np.where(terminated, self.game.result(self.states, self.seat), 0.0)
        truncated = ~terminated & (cut | (self.steps >= self.settings.max_steps))
        reward = self.game.total(terms, self.reward)
        me = self.seat
        N = self.num_players
        seats = (me[:, None] + np.arange(N)) % N
        info = {
            "played": out.played, "points": out.points, "penalty": out.penalty,
            "foul": out.foul, "foul_flags": out.fouls.copy(),
            "overflow": out.overflow.astype(np.int64), "strike": out.strike,
            "in_hand": hand != HAND_NONE, "placement": np.nan_to_num(out.place),
            "scores": np.take_along_axis(self.states.scores, seats, 1),
            "game_over": self.states.game_over.copy(), "seat": me.copy(),
            "reward_terms": {k: terms[k] for k in self.reward.terms},
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
