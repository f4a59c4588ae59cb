"""What the two PettingZoo AEC envs share (``keglebillard_v0``, ``golfbillard_v0``): their
settings, spaces, the episode bookkeeping of ``reset`` and the rendering."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from cuegym.configs import load_params
from cuegym.physics.api import Workspace

from .config import load_noise, load_reward, load_settings
from .render import HumanDisplay


class CuegymAEC(HumanDisplay, AECEnv):
    """Base of the cuegym AEC envs. Subclasses set ``metadata`` (its ``name`` titles the human
    viewer), call :meth:`_setup` in ``__init__`` and :meth:`_start_episode` in ``reset``, and
    implement :meth:`_frame` (one RGB frame of the table)."""

    def _setup(self, game: str, *, reward: Any, noise: Any, settings: Any, clip: bool,
               render_mode: str | None, observation_space: Any, action_space: Any) -> None:
        """Settings, reward weights, noise and spaces of ``game`` (``keglebillard`` or
        ``golfbillard``); see the envs' arguments."""
        self.params = load_params(game)
        self.settings = load_settings(game, settings)
        self.reward_spec = load_reward(game, reward)
        self.noise = load_noise(noise)
        self.clip = bool(clip)
        self.render_mode = render_mode
        self._obs_space = observation_space
        self._act_space = action_space
        self.workspace = Workspace()  # reused event-log buffers (not while rendering)
        self._viewer = None
        self.last_shot = None

    def observation_space(self, agent: str):
        return self._obs_space

    def action_space(self, agent: str):
        return self._act_space

    def _start_episode(self, seed: int | None) -> None:
        """Seed (once, or again when ``seed`` is given) and reset the per-agent dicts."""
        if seed is not None or not hasattr(self, "np_random"):
            self.np_random, _ = seeding.np_random(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.shots = 0
        self.last_shot = None

    def _frame(self) -> np.ndarray:
        raise NotImplementedError

    def render(self):
        if self.render_mode is None:
            return None
        frame = self._frame()
        if self.render_mode == "rgb_array":
            return frame
        self._show_human(frame, self.metadata["name"])
        return None
