"""What the two PettingZoo AEC envs share (``keglebillard_v0``, ``golfbillard_v0``): their
settings, spaces, the episode bookkeeping of ``reset`` and the rendering."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from cuegym.cli_errors import check_int
from cuegym.configs import load_params
from cuegym.physics.api import Workspace

from .base import GAME_UNUSED_SETTINGS, refuse_unused_settings
from .checks import check_bool, check_render_mode, check_seed
from .config import load_noise, load_reward, load_settings
from .render import HumanDisplay

#: settings the AEC envs do not use (every agent shoots its own turns; there is no opponent
#: inside the env)
AEC_UNUSED_SETTINGS = {
    **GAME_UNUSED_SETTINGS,
    "max_opponent_shots": "every player is an agent of the AEC env, which plays no opponent "
                          "of its own (the single-agent full-game envs' limit)"}


class CuegymAEC(HumanDisplay, AECEnv):
    """Base of the cuegym AEC envs. Subclasses set ``metadata`` (its ``name`` titles the human
    viewer), call :meth:`_setup` in ``__init__`` and :meth:`_start_episode` in ``reset``, and
    implement :meth:`_frame` (one RGB frame of the table)."""

    def _setup(self, game: str, *, reward: Any, noise: Any, settings: Any, clip: bool,
               render_mode: str | None, observation_space: Any, action_space: Any) -> None:
        """Settings, reward weights, noise and spaces of ``game`` (``keglebillard`` or
        ``golfbillard``); see the envs' arguments."""
        self.params = load_params(game)
        refuse_unused_settings(settings, AEC_UNUSED_SETTINGS, type(self).__name__)
        # max_steps only sets the default max_shots: given with max_shots, one would be ignored
        self._max_steps_given = isinstance(settings, Mapping) and "max_steps" in settings
        self.settings = load_settings(game, settings)
        self.reward_spec = load_reward(game, reward)
        self.noise = load_noise(noise)
        self.clip = check_bool("clip", clip)
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self._obs_space = observation_space
        self._act_space = action_space
        self.workspace = Workspace()  # reused event-log buffers (not while rendering)
        self._viewer = None
        self.last_shot = None

    def _max_shots(self, max_shots: Any, default: int) -> int:
        """``max_shots`` (None: ``default``) as an int >= 1; 0 is refused, not taken as the
        default."""
        if max_shots is None:
            return default
        if self._max_steps_given:
            raise ValueError(f"settings max_steps only sets the default of max_shots, which is "
                             f"given ({max_shots!r}): give one of them")
        return check_int("max_shots", max_shots)

    def _check_agent(self, agent: Any) -> str:
        if agent not in self.possible_agents:
            from cuegym.cli_errors import unknown

            raise ValueError(unknown("agent", agent, self.possible_agents))
        return agent

    def _agent_spaces(self, agent: str) -> tuple[Any, Any]:
        """``agent``'s own observation and action spaces (an unknown agent raises, naming it).
        Each agent has its own space objects, as PettingZoo's envs do: seeding one agent's
        action space leaves the others' samples alone."""
        agent = self._check_agent(agent)
        spaces = self.__dict__.setdefault("_spaces", {})
        if agent not in spaces:
            spaces[agent] = (copy.deepcopy(self._obs_space), copy.deepcopy(self._act_space))
        return spaces[agent]

    def observation_space(self, agent: str):
        return self._agent_spaces(agent)[0]

    def action_space(self, agent: str):
        return self._agent_spaces(agent)[1]

    def _clear_rewards(self) -> None:
        """Every reward 0.0 (PettingZoo's own sets the int 0: a step that decides nothing, such
        as golfbillard side 0's opening choice, then handed out ints among floats)."""
        for agent in self.rewards:
            self.rewards[agent] = 0.0

    def _check_reset(self, what: str) -> None:
        """A clear error for ``observe`` or ``render`` before ``reset()`` on the unwrapped env
        (``env()``'s OrderEnforcingWrapper says so too)."""
        if getattr(self, "agents", None) is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before {what}()")

    def _start_episode(self, seed: int | None, options: dict | None = None) -> None:
        """Seed (once, or again when ``seed`` is given) and reset the per-agent dicts. A bad
        seed raises before anything changes (the env stays usable). The envs take no reset
        options: given ones are ignored with a warning, not refused, because PettingZoo's own
        conformance test (``api_test``) resets with ``options={"options": 1}``."""
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"reset options must be a mapping or None, got {options!r}")
        if options:
            warnings.warn(f"{self.metadata['name']} takes no reset options; ignored "
                          f"{sorted(map(str, options))}", stacklevel=3)
        seed = check_seed(seed)
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

    def _check_can_step(self) -> None:
        """A clear error for a step before ``reset()`` or after every agent is done (the
        unwrapped env; ``env()``'s OrderEnforcingWrapper catches the first case too)."""
        if getattr(self, "agents", None) is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before step()")
        if not self.agents:
            raise RuntimeError(f"{self.metadata['name']}: the game is over (every agent is "
                               "done): call reset() before step()")

    def _frame(self) -> np.ndarray:
        raise NotImplementedError

    def render(self):
        if self.render_mode is None:
            return None
        self._check_reset("render")
        frame = self._frame()
        if self.render_mode == "rgb_array":
            return frame
        self._show_human(frame, self.metadata["name"])
        return None
