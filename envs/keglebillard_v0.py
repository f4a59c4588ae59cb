"""Keglebillard as a PettingZoo AEC environment (``from cuegym.envs import keglebillard_v0``).

    >>> from cuegym.envs import keglebillard_v0
    >>> env = keglebillard_v0.env(num_players=3)
    >>> env.reset(seed=0)
    >>> for agent in env.agent_iter(max_iter=6):
    ...     obs, reward, terminated, truncated, info = env.last()
    ...     env.step(None if terminated or truncated else env.action_space(agent).sample())

Agents ``player_0`` .. ``player_{N-1}`` in the fixed turn order (K-1); ``player_0`` breaks
(a random player, drawn from the env's generator, with rules ``first_player: random``). The
agent to act is the one the rules name (``GameState.to_play``): with the ``ddbu`` variant
(K-25) a player keeps shooting while scoring. Actions and observations are those of
``cuegym/Keglebillard-v0`` (each agent observes from its own seat; ``to_move`` tells whether it
is its turn). Rewards per shot, from each agent's point of view, with the weights of
``configs/reward/keglebillard.yaml``: the shooter gets ``points``, ``skaeve``, ``foul``,
``win``; each player receiving skæve gets ``skaeve_received``; every other player gets
``opponent_points`` for the shooter's points; an agent's last reward adds ``result`` (+1 first
.. -1 last). A player who finishes (70 points with three or more players, K-21) is terminated;
all are when the game ends; all are truncated after ``max_shots`` shots. The rules state is
``env.game_state`` (a :class:`~cuegym.rules.keglebillard_game.GameState`; the batch of one is
``env.states``). Shots are played by the game layer, ``cuegym.games.kegle``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cuegym.games.strikes import Strikes

from .actions import check_actions
from .aec import CuegymAEC
from .kegle import (
    KegleActionMap,
    action_space,
    check_num_players,
    kegle_game,
    observation_space,
)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped as PettingZoo's own envs are: ``OrderEnforcingWrapper`` (a clear
    error for ``step``/``observe``/``render`` before ``reset``); :class:`raw_env` (same
    arguments) is the unwrapped env. Out-of-range actions raise in the env itself (or are
    clipped with ``clip=True``), so no ``ClipOutOfBoundsWrapper`` is added."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(CuegymAEC):  # noqa: N801 - the PettingZoo naming convention
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
        num_players = check_num_players(num_players)
        self.num_players = num_players
        self.game = kegle_game(rules, table)
        if self.game.rules.first_player == "lag":
            raise ValueError("rules first_player='lag' needs the lag's winner (K-24), which "
                             "the env does not play: use 'player0' or 'random'")
        self._setup("keglebillard", reward=reward, noise=noise, settings=settings, clip=clip,
                    render_mode=render_mode, observation_space=observation_space(),
                    action_space=action_space())
        self.max_shots = self._max_shots(max_shots, self.settings.max_steps * num_players)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.map = KegleActionMap(self.game, self.settings)

    def _player(self, agent: str) -> int:
        return self.possible_agents.index(self._check_agent(agent))

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._start_episode(seed, options)
        # K-4: player_0 breaks, or a random player with rules first_player='random'
        first = int(self.np_random.integers(self.num_players)) \
            if self.game.rules.first_player == "random" else 0
        self.states = self.game.new(1, self.num_players, first_player=first)
        self.agent_selection = self.possible_agents[int(self.states.to_play[0])]

    @property
    def game_state(self):
        """The rules state of the game (a ``GameState``)."""
        return self.states.state(0)

    def observe(self, agent: str) -> np.ndarray:
        self._check_reset("observe")
        return self.game.observe(self.states, [self._player(agent)], next_seats_only=True)[0]

    def step(self, action) -> None:
        self._check_can_step()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        shooter = self._player(agent)
        a = check_actions(action, None, self._act_space.shape[0], clip=self.clip)
        self._cumulative_rewards[agent] = 0.0  # after the check: a refused action keeps it
        strikes = Strikes(self.map.strikes(a), np.zeros(1, np.int64),
                          self.map.placements(a, self.states.hand))
        s = self.settings
        out, self.states = self.game.play(
            self.states, strikes, self.noise, [self.np_random], max_events=s.max_events,
            t_max=s.t_max, workspace=None if self.render_mode else self.workspace,
            allow_overflow=True)
        o = out.outcome(0)
        self.shots += 1
        self.last_shot = (out.sim, int(out.row[0]), o, shooter, out.strike[0])
        w = self.reward_spec
        self._clear_rewards()
        live = self.states.in_game()[0]
        over = bool(self.states.game_over[0])
        terms = {}
        for name in self.agents:
            p = self._player(name)
            t, _ = self.game.reward_terms(out, w, viewer=np.array([p]))
            terms[name] = {k: float(t[k][0]) for k in w.terms}
            if over or not live[p]:
                self.terminations[name] = True
                terms[name]["result"] = float(self.game.result(self.states, [p])[0])
        if self.shots >= self.max_shots and not over:
            for name in self.agents:
                self.truncations[name] = True
        shot = o.to_dict()
        for name in self.agents:
            self.rewards[name] = float(sum(getattr(w, k) * v for k, v in terms[name].items()))
            self.infos[name] = {"shot": shot, "reward_terms": terms[name]}
        if not over and not all(self.truncations.values()):
            self.agent_selection = self.possible_agents[int(self.states.to_play[0])]
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _frame(self) -> np.ndarray:
        from .render import render_keglebillard_aec

        return render_keglebillard_aec(self)
