"""Adapters, second outside audit: the RLlib example's vectorize mode and discount, the SB3
adapter's per-table spec, and RecordShotVideo's step trigger and video length (docs/envs.md,
"Rendering and replays"; docs/agents.md, "Ray RLlib")."""

from __future__ import annotations

import sys
import types

import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401 (registers the env ids)
from cuegym.envs import make_sb3_vec_env


def _fake_ray(monkeypatch, seen: dict) -> None:
    """Just enough of Ray for rllib_example.main to build and run its config."""
    class Config:
        def environment(self, env, env_config):
            seen["env"] = env
            return self

        def env_runners(self, **kw):
            seen["runners"] = kw
            return self

        def training(self, **kw):
            seen["training"] = kw
            return self

        def build_algo(self):
            return types.SimpleNamespace(train=lambda: {}, save=lambda path: path)

    ray = types.ModuleType("ray")
    ray.init = lambda **kw: None
    ray.shutdown = lambda: None
    ppo = types.ModuleType("ray.rllib.algorithms.ppo")
    ppo.PPOConfig = Config
    for name, mod in (("ray", ray), ("ray.rllib", types.ModuleType("ray.rllib")),
                      ("ray.rllib.algorithms", types.ModuleType("ray.rllib.algorithms")),
                      ("ray.rllib.algorithms.ppo", ppo)):
        monkeypatch.setitem(sys.modules, name, mod)


@pytest.mark.parametrize("env_id, gamma", [("cuegym/KeglebillardShot-v0", 0.0),
                                           ("cuegym/Golfbillard-v0", 0.9)])
def test_rllib_example_steps_single_envs_with_next_step_reset(monkeypatch, tmp_path, env_id,
                                                              gamma):
    """RLlib's runners take a finished env's reset from the next step; the native vector env
    resets in the same step (every other Shot step was dropped). Whole games had gamma 0."""
    from cuegym.experiments import rllib_example

    seen: dict = {}
    _fake_ray(monkeypatch, seen)
    monkeypatch.chdir(tmp_path)
    assert rllib_example.main(["--env", env_id, "--iterations", "1", "--runners", "0",
                               "--tables", "2"]) == 0
    assert seen["runners"]["gym_env_vectorize_mode"] == gym.VectorizeMode.SYNC
    assert seen["training"]["gamma"] == gamma


def test_sb3_adapter_spec_makes_the_same_env():
    """get_attr("spec") gave the bare registry spec: gym.make(spec) made another game."""
    v = make_sb3_vec_env("cuegym/Keglebillard-v0", n_envs=2, num_players=3, noise="tournament")
    spec = v.get_attr("spec")[0]
    assert spec.kwargs == {"num_players": 3, "noise": "tournament"}
    assert spec.max_episode_steps == 500
    env = gym.make(spec)
    assert env.unwrapped.core.num_players == 3
    assert env.unwrapped.core.noise.name == "tournament"


def test_record_shot_video_starts_at_its_step_and_keeps_to_its_length(tmp_path):
    """A step trigger's video took every shot since the reset (737 frames for video_length
    10)."""
    pytest.importorskip("moviepy")
    from cuegym.envs.wrappers import RecordShotVideo

    env = RecordShotVideo(gym.make("cuegym/Keglebillard-v0", render_mode="rgb_array_list",
                                   seat=0), str(tmp_path / "videos"), step_trigger=lambda s: s == 3,
                          video_length=10)
    lengths = []
    real = env.stop_recording

    def stop():
        lengths.append(len(env.recorded_frames))
        real()

    env.stop_recording = stop
    env.reset(seed=1)
    for a in np.random.default_rng(0).uniform(-1, 1, (4, 7)).astype(np.float32):
        env.step(a)
    env.close()
    assert lengths == [10]
    assert (tmp_path / "videos" / "rl-video-step-3.mp4").exists()
