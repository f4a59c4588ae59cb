"""cuegym.envs: Gymnasium, vector, Stable-Baselines3 and PettingZoo environments.

Importing ``cuegym`` (or this package) registers four ids with Gymnasium (each with a
``vector_entry_point``):

================================ =================================================
id                               what (single / vector class)
================================ =================================================
``cuegym/KeglebillardShot-v0``   one keglebillard shot from a realistic position
                                 (KeglebillardShotEnv / KeglebillardShotVectorEnv)
``cuegym/GolfbillardShot-v0``    one golfbillard stroke from a realistic position
                                 (GolfbillardShotEnv / GolfbillardShotVectorEnv)
``cuegym/Keglebillard-v0``       a whole keglebillard game for one learner
                                 (KeglebillardEnv / KeglebillardVectorEnv)
``cuegym/Golfbillard-v0``        a whole golfbillard game for one learner
                                 (GolfbillardEnv / GolfbillardVectorEnv)
================================ =================================================

Example:
    >>> import gymnasium as gym
    >>> import cuegym  # registers the ids
    >>> env = gym.make("cuegym/KeglebillardShot-v0")
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    >>> terminated
    True
    >>> envs = gym.make_vec("cuegym/KeglebillardShot-v0", num_envs=8,
    ...                     vectorization_mode="vector_entry_point")
    >>> envs.reset(seed=0)[0].shape
    (8, 29)

SB3: :func:`make_sb3_vec_env`; PettingZoo: ``from cuegym.envs import keglebillard_v0,
golfbillard_v0``. Docs: docs/envs.md.
"""

from __future__ import annotations

import gymnasium as _gym

ENV_IDS = {
    "cuegym/KeglebillardShot-v0": ("keglebillard", "KeglebillardShotEnv",
                                   "KeglebillardShotVectorEnv"),
    "cuegym/GolfbillardShot-v0": ("golfbillard", "GolfbillardShotEnv",
                                  "GolfbillardShotVectorEnv"),
    "cuegym/Keglebillard-v0": ("keglebillard", "KeglebillardEnv", "KeglebillardVectorEnv"),
    "cuegym/Golfbillard-v0": ("golfbillard", "GolfbillardEnv", "GolfbillardVectorEnv"),
}


def register_envs() -> None:
    """Register the cuegym ids with Gymnasium (idempotent; done on ``import cuegym`` and
    ``import cuegym.envs``). The entry points are strings: nothing is imported until
    ``gymnasium.make``.

    Gymnasium's passive env checker is off by default (``gym.make(..., disable_env_checker=
    False)`` turns it on): the envs pass ``gymnasium.utils.env_checker.check_env`` in the test
    suite, and the passive checker of gymnasium 1.x breaks after a rejected first reset (it
    marks the check done before calling the env, so after ``reset(seed=-1)`` the next step
    fails with a TypeError inside the checker instead of working).
    """
    for env_id, (module, single, vector) in ENV_IDS.items():
        if env_id in _gym.registry:
            continue
        _gym.register(
            id=env_id,
            entry_point=f"cuegym.envs.{module}:{single}",
            vector_entry_point=f"cuegym.envs.{module}:{vector}",
            disable_env_checker=True,
        )


register_envs()


def make_sb3_vec_env(env_id: str, n_envs: int = 1, seed: int | None = None, **kwargs):
    """A Stable-Baselines3 ``VecEnv`` over the native batched env of ``env_id``.

    One batched physics call per step for all ``n_envs`` tables; same-step reset with
    ``info["terminal_observation"]`` and ``info["TimeLimit.truncated"]``, as SB3 expects.

    Args:
        env_id: a registered cuegym id (or ``cuegym:<id>``, as ``gym.make`` takes it).
            n_envs: number of tables. seed: table i gets seed
            ``seed + i`` at the first reset. **kwargs: env arguments (see the env cards).
    """
    from cuegym.cli_errors import unknown

    from .sb3 import CuegymVecEnv

    # gymnasium's "module:id" form, as gym.make takes it (cuegym is imported already)
    env_id = env_id.removeprefix("cuegym:") if isinstance(env_id, str) else env_id
    if env_id not in ENV_IDS:
        raise ValueError(unknown("env id", env_id, ENV_IDS))
    return CuegymVecEnv(env_id, n_envs, seed=seed, **kwargs)


_LAZY = {
    "KeglebillardShotEnv": "keglebillard", "KeglebillardShotVectorEnv": "keglebillard",
    "KeglebillardEnv": "keglebillard", "KeglebillardVectorEnv": "keglebillard",
    "GolfbillardShotEnv": "golfbillard", "GolfbillardShotVectorEnv": "golfbillard",
    "GolfbillardEnv": "golfbillard", "GolfbillardVectorEnv": "golfbillard",
    "RewardWeights": "wrappers", "VectorRewardWeights": "wrappers",
    "ShotNoise": "config", "load_reward": "config", "load_noise": "config",
    "load_settings": "config",
}


def __getattr__(name: str):
    import importlib

    if name in _LAZY:
        return getattr(importlib.import_module(f"cuegym.envs.{_LAZY[name]}"), name)
    if name in ("keglebillard_v0", "golfbillard_v0"):
        return importlib.import_module(f"cuegym.envs.{name}")
    raise AttributeError(f"module 'cuegym.envs' has no attribute {name!r}")


__all__ = ["ENV_IDS", "make_sb3_vec_env", "register_envs", *sorted(_LAZY),
           "keglebillard_v0", "golfbillard_v0"]
