"""Wrappers: reward re-weighting for single and vector envs; video of animated shots.

Shot noise, reward weights and opponents are small objects the envs take as arguments
(``noise=``, ``reward=``, ``opponent=``; composed by ``gymnasium.make`` / ``make_vec``);
the wrappers here change the reward of an existing env, e.g. for a shaping curriculum:

    >>> import gymnasium as gym, cuegym.envs
    >>> from cuegym.envs.wrappers import RewardWeights
    >>> env = RewardWeights(gym.make("cuegym/KeglebillardShot-v0"), {"foul": -0.5})
    >>> _ = env.reset(seed=0)
    >>> _, r, *_ , info = env.step(env.action_space.sample())
    >>> bool(abs(r - env.reward_of(info["reward_terms"])) < 1e-12)
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorWrapper

from .config import load_reward
from .render_shots import video_frames


def _game_of(env, vector: bool) -> str:
    """The game of a cuegym env (``vector``: a native vector env); anything else raises a
    ValueError naming it (it used to be an AttributeError about ``core``)."""
    from .base import CoreEnv, CoreVectorEnv

    want = CoreVectorEnv if vector else CoreEnv
    if not isinstance(env.unwrapped, want):
        hint = (" (gymnasium.make_vec(id, n, vectorization_mode='vector_entry_point'); over "
                "'sync' or 'async' envs pass wrappers=[lambda e: RewardWeights(e, weights)] to "
                "make_vec)" if vector else "")
        raise ValueError(f"{'VectorRewardWeights' if vector else 'RewardWeights'} needs a "
                         f"{'native cuegym vector env' if vector else 'cuegym env'}{hint}, got "
                         f"{type(env.unwrapped).__name__}")
    name = type(env.unwrapped.core).__name__.lower()
    return "golfbillard" if "golf" in name else "keglebillard"


def _reward_spec(env, weights: Mapping[str, float] | Any, vector: bool) -> Any:
    """The game's reward object of ``weights`` over the env's own, refused where it weights a
    term the env never computes (a Shot env's ``opponent_points`` or ``result``), as the env's
    ``reward=`` argument is."""
    game = _game_of(env, vector=vector)
    core = env.unwrapped.core
    spec = load_reward(game, core.reward, **dict(weights)) \
        if isinstance(weights, Mapping) else load_reward(game, weights)
    return core.checked_reward(spec)


class RewardWeights(gym.Wrapper):
    """Recompute the reward as ``sum(weight * term)`` over ``info["reward_terms"]``.

    Args:
        env: a cuegym env. weights: a mapping of term weights applied over the env's current
            weights (unknown terms raise), or a full reward object of the game.
    """

    def __init__(self, env: gym.Env, weights: Mapping[str, float] | Any) -> None:
        super().__init__(env)
        self.reward_spec = _reward_spec(env, weights, vector=False)

    def reward_of(self, terms: Mapping[str, float]) -> float:
        """The weighted sum of one step's terms."""
        return float(sum(getattr(self.reward_spec, k) * float(v) for k, v in terms.items()))

    def step(self, action):
        obs, _, terminated, truncated, info = self.env.step(action)
        return obs, self.reward_of(info["reward_terms"]), terminated, truncated, info


class VectorRewardWeights(VectorWrapper):
    """:class:`RewardWeights` for a native cuegym vector env (finished tables read their terms
    from ``info["final_info"]``)."""

    def __init__(self, env, weights: Mapping[str, float] | Any) -> None:
        super().__init__(env)
        self.reward_spec = _reward_spec(env, weights, vector=True)

    def _weighted(self, terms: Mapping[str, np.ndarray]) -> np.ndarray:
        out = None
        for k, v in terms.items():
            if k.startswith("_"):
                continue
            x = getattr(self.reward_spec, k) * np.asarray(v, np.float64)
            out = x if out is None else out + x
        return out

    def step(self, actions):
        obs, reward, terminated, truncated, info = self.env.step(actions)
        done = terminated | truncated
        reward = np.array(reward, np.float64)
        if (~done).any():
            reward[~done] = self._weighted(info["reward_terms"])[~done]
        if done.any():
            reward[done] = self._weighted(info["final_info"]["reward_terms"])[done]
        return obs, reward, terminated, truncated, info


class RecordShotVideo(gym.wrappers.RecordVideo):
    """Gymnasium's ``RecordVideo`` that records every frame of an animated render.

    With ``render_mode="rgb_array_list"`` a cuegym env's ``render()`` returns each shot as it
    happens (``metadata["render_fps"]`` = 25 frames per second). Gymnasium's own RecordVideo
    keeps one frame per step (the last of such a list), which for a one-shot episode is a
    two-frame video; this subclass keeps them all and is otherwise RecordVideo (triggers,
    ``video_length`` in frames, at most, ``name_prefix``; writes MP4 with moviepy: ``pip
    install 'cuegym[video]'``; frames padded to whole 16-pixel blocks by
    :func:`~cuegym.envs.render_shots.video_frames`, so that the H.264 is the 4:2:0 every player
    decodes). A step trigger's video starts with the triggering step's shot. The frames a
    recording takes are not returned again by the env's ``render()``. With
    ``render_mode="rgb_array"`` it behaves exactly as RecordVideo.

        >>> import gymnasium as gym, cuegym
        >>> from cuegym.envs.wrappers import RecordShotVideo
        >>> env = RecordShotVideo(gym.make("cuegym/KeglebillardShot-v0",
        ...                                render_mode="rgb_array_list"), "videos")
        >>> _ = env.reset(seed=0); _ = env.step(env.action_space.sample()); env.close()
    """

    def step(self, action):
        if not self.recording and self.step_trigger is not None:
            # the steps before a recording starts are not in it: drop their kept shots, or the
            # first capture would take them all (render() returns what is kept since its last
            # call)
            discard = getattr(self.env.unwrapped, "discard_frames", None)
            if discard is not None:
                discard()
        return super().step(action)

    def stop_recording(self) -> None:
        # padded to whole codec blocks: moviepy writes an odd-sized frame as a 4:4:4 H.264
        # that browsers and most players cannot decode (the frames are 473 or 477 rows)
        self.recorded_frames = video_frames(self.recorded_frames)
        super().stop_recording()

    def _capture_frame(self) -> None:
        frames = self.env.render()
        if not isinstance(frames, list):  # rgb_array: one frame per step, as RecordVideo
            self._record([frames])
            return
        self._record(frames)

    def _record(self, frames: list) -> None:
        if all(isinstance(f, np.ndarray) for f in frames):
            # at most video_length frames (RecordVideo checks after whole steps, each a shot)
            room = self.video_length - len(self.recorded_frames)
            self.recorded_frames += frames[:max(0, room)] if room != float("inf") else frames
            if len(self.recorded_frames) >= self.video_length:
                self.stop_recording()
        else:
            self.stop_recording()
            gym.logger.warn("recording stopped: render() returned something other than frames")
