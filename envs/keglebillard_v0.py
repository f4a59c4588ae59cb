"""Keglebillard as a PettingZoo AEC environment (``from cuegym.envs import keglebillard_v0``).

    >>> from cuegym.envs import keglebillard_v0
    >>> env = keglebillard_v0.env(num_players=3)
    >>> env.reset(seed=0)
    >>> for agent in env.agent_iter(max_iter=6):
    ...     obs, reward, terminated, truncated, info = env.last()
    ...     env.step(None if terminated or truncated else env.action_space(agent).sample())

Agents ``player_0`` .. ``player_{N-1}`` in the fixed turn order (K-1); ``player_0`` breaks. The
agent to act is the one the rules name (``GameState.to_play``): with the ``ddbu`` variant
(K-25) a player keeps shooting while scoring. Actions and observations are those of
``cuegym/Keglebillard-v0`` (each agent observes from its own seat; ``to_move`` tells whether it
is its turn). Rewards per shot, from each agent's point of view, with the weights of
``configs/reward/keglebillard.yaml``: the shooter gets ``points``, ``skaeve``, ``foul``,
``win``; each player receiving skæve gets ``skaeve_received``; every other player gets
``opponent_points`` for the shooter's points; an agent's last reward adds ``result`` (+1 first
.. -1 last). A player who finishes (70 points with three or more players, K-21) is terminated;
all are when the game ends; all are truncated after ``max_shots`` shots. The rules state is
``env.game_state`` (a :class:`~cuegym.rules.keglebillard_game.GameState`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from cuegym.configs import load_params
from cuegym.physics.api import Workspace
from cuegym.rules.keglebillard_game import KeglebillardGame

from .actions import check_actions
from .config import load_noise, load_reward, load_settings
from .kegle import (
    HAND_CLOTH,
    HAND_NONE,
    HAND_SALVO,
    KegleActionMap,
    action_space,
    clamp_strikes,
    observation_space,
    observe_states,
    play_shots,
)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env (see :class:`raw_env` for the arguments)."""
    return raw_env(**kwargs)


class raw_env(AECEnv):  # noqa: N801 - the PettingZoo naming convention
    """Keglebillard for N agents.

    Args:
        num_players: players (2 or more; observations describe up to 6).
        rules, table, reward, noise, settings, clip: as ``cuegym/Keglebillard-v0``.
        max_shots: shots before every agent is truncated (default: the settings' max_steps
            times the number of players).
        render_mode: None, ``rgb_array`` or ``human``.
    """

    metadata = {"name": "keglebillard_v0", "render_modes": ["rgb_array", "human"],
                "render_fps": 4, "is_parallelizable": False}

    def __init__(self, num_players: int = 2, *, rules: Any = None,
                 table: str = "keglebillard", reward: Any = None, noise: Any = "none",
                 settings: Any = None, clip: bool = False, max_shots: int | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        if isinstance(num_players, bool) or not isinstance(num_players, int) or num_players < 2:
            raise ValueError(f"num_players must be an integer >= 2, got {num_players!r}")
        self.num_players = num_players
        self.game = KeglebillardGame(rules, table)
        self.params = load_params("keglebillard")
        self.settings = load_settings("keglebillard", settings)
        self.reward_spec = load_reward("keglebillard", reward)
        self.noise = load_noise(noise)
        self.clip = bool(clip)
        self.max_shots = max_shots or self.settings.max_steps * num_players
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._obs_space = observation_space()
        self._act_space = action_space()
        self.map = KegleActionMap(self.game, self.settings)
        self.workspace = Workspace()
        self._viewer = None
        self.last_shot = None

    def observation_space(self, agent: str):
        return self._obs_space

    def action_space(self, agent: str):
        return self._act_space

    def _player(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or not hasattr(self, "np_random"):
            self.np_random, _ = seeding.np_random(seed)
        self.game_state = self.game.new_state(self.num_players, first_player=0)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.shots = 0
        self.last_shot = None
        self.agent_selection = self.possible_agents[self.game_state.to_play]

    def observe(self, agent: str) -> np.ndarray:
        return observe_states(self.game, [self.game_state], [self._player(agent)])[0]

    def _rank_result(self, player: int) -> float:
        st = self.game_state
        N = st.n_players
        if player in st.lost:
            rank = N - 1 - list(st.lost).index(player)
        elif player in st.finished:
            rank = list(st.finished).index(player)
        else:
            return 0.0
        return 1.0 - 2.0 * rank / (N - 1)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        shooter = self._player(agent)
        st = self.game_state
        a = check_actions(action, 1, self._act_space.shape[0], clip=self.clip)
        code = {None: HAND_NONE, "salvo": HAND_SALVO, "cloth": HAND_CLOTH}[st.ball_in_hand]
        place = self.map.placements(a, np.array([code], np.int8))
        cue = clamp_strikes(self.noise.apply(self.map.strikes(a), [self.np_random],
                                             np.array([0]), self.params.R))
        s = self.settings
        outcomes, new, res, row = play_shots(
            self.game, self.params, [st], cue, place, max_events=s.max_events, t_max=s.t_max,
            workspace=None if self.render_mode else self.workspace)
        o = outcomes[0]
        self.game_state = new[0]
        self.shots += 1
        self.last_shot = (res, int(row[0]), o, shooter, cue[0])
        w = self.reward_spec
        self._clear_rewards()
        terms = {a_: dict.fromkeys(w.terms, 0.0) for a_ in self.agents}
        terms[agent].update(points=o.shooter_points, skaeve=o.skaeve if o.foul else 0,
                            foul=float(o.foul), win=float(o.win))
        for p in o.skaeve_to:
            name = self.possible_agents[p]
            if name in terms:
                terms[name]["skaeve_received"] += o.skaeve
        for name in terms:
            if name != agent:
                terms[name]["opponent_points"] += o.shooter_points
        live = set(self.game_state.in_game)
        for name in self.agents:
            p = self._player(name)
            if self.game_state.game_over or p not in live:
                self.terminations[name] = True
                terms[name]["result"] = self._rank_result(p)
        if self.shots >= self.max_shots and not self.game_state.game_over:
            for name in self.agents:
                self.truncations[name] = True
        shot = o.to_dict()
        for name in self.agents:
            self.rewards[name] = float(sum(getattr(w, k) * v for k, v in terms[name].items()))
            self.infos[name] = {"shot": shot, "reward_terms": terms[name]}
        if not self.game_state.game_over and not all(self.truncations.values()):
            self.agent_selection = self.possible_agents[self.game_state.to_play]
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            return None
        from .render import render_keglebillard_aec

        frame = render_keglebillard_aec(self)
        if self.render_mode == "rgb_array":
            return frame
        from .render import HumanViewer

        if self._viewer is None:
            self._viewer = HumanViewer("keglebillard_v0")
        self._viewer.show(frame, 1.0 / self.metadata["render_fps"])
        return None

    def close(self) -> None:
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None
