"""Stable-Baselines3 ``VecEnv`` over a native cuegym vector env (no per-table Python envs).

SB3 does not take Gymnasium vector envs; this adapter speaks its protocol: ``reset()`` returns
observations only, ``step_wait()`` returns ``(obs, rewards, dones, infos)`` with a list of one
info dict per table, same-step reset with ``info["terminal_observation"]``, and
``info["TimeLimit.truncated"]``. An episode's last info also carries SB3 ``Monitor``'s statistics,
``info["episode"] = {"r": return, "l": length, "t": seconds since the env was made}``, so that
``learn`` logs ``rollout/ep_rew_mean`` without a ``VecMonitor`` (one on top overwrites them with
the same figures). Built by :func:`cuegym.envs.make_sb3_vec_env`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from .base import table_spec

#: Info keys copied into each table's info dict by default (``info_keys=None``: all keys).
DEFAULT_INFO_KEYS = ("played", "foul", "reward_terms")


def _vector_class(env_id: str):
    spec = gym.spec(env_id)
    entry = spec.vector_entry_point
    if entry is None:
        raise ValueError(f"{env_id} has no vector_entry_point")
    if isinstance(entry, str):
        from gymnasium.envs.registration import load_env_creator

        return load_env_creator(entry)
    return entry


def _check_sb3_seed(seed: Any) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}")
    return int(seed)


def _check_info_keys(info_keys: Any, core: Any) -> frozenset | None:
    """``info_keys`` as a frozenset of the core's info keys (None: all of them); a string (its
    letters would be taken as keys) or a key the env's info does not have raises."""
    if info_keys is None:
        return None
    if info_keys is DEFAULT_INFO_KEYS:  # the defaults cover both games' keys
        return frozenset(info_keys)
    if isinstance(info_keys, str | bytes) or not isinstance(info_keys, Iterable):
        raise ValueError(f"info_keys must be None or a list of info keys, got {info_keys!r}")
    keys = list(info_keys)
    known = getattr(core, "INFO_KEYS", None)
    for k in keys:
        if not isinstance(k, str) or (known is not None and k not in known):
            from cuegym.cli_errors import unknown

            raise ValueError(unknown("info key", k, known or ()))
    return frozenset(keys)


def _info_rows(info: dict, idx: Any, keys: Any = None, masked: bool = False) -> list[dict]:
    """One info dict per table of ``idx`` from a vector info dict, values as Python objects:
    the keys in ``keys`` (None: all; nested dicts keep all theirs), with ``masked`` only those
    whose ``_key`` mask is set for the table. The vector env's masks and ``final_*`` entries
    are left out. One conversion per key, not per table."""
    idx = np.asarray(idx, np.int64)
    cols = []
    for k, v in info.items():
        if k.startswith("_") or k in ("final_obs", "final_info") or \
                (keys is not None and k not in keys):
            continue
        mask = info[f"_{k}"][idx].tolist() if masked else None
        if isinstance(v, dict):
            col = _info_rows(v, idx, None, masked)
        else:
            rows = v[idx]
            col = rows.tolist() if rows.ndim == 1 and rows.dtype != object else list(rows)
        cols.append((k, mask, col))
    return [{k: c[i] for k, mask, c in cols if mask is None or mask[i]} for i in range(len(idx))]


def _shared_options(per_table: list[dict]) -> dict | None:
    """SB3's ``set_options`` gives one options dict per table; the native vector env takes one
    for all of them (``reset_mask`` selects tables), so they must be equal."""
    first = per_table[0] if per_table else {}
    for opts in per_table[1:]:
        if opts.keys() != first.keys() or any(
                not np.array_equal(np.asarray(opts[k], dtype=object),
                                   np.asarray(first[k], dtype=object)) for k in first):
            raise ValueError("a native vector env resets its tables with one options dict (use "
                             "'reset_mask' to pick tables); set_options gave different ones: "
                             f"{first!r} and {opts!r}")
    return dict(first) or None


class CuegymVecEnv(VecEnv):
    """SB3 VecEnv over ``env_id``'s native vector env.

    Args:
        env_id: a registered cuegym id. n_envs: tables. seed: table i gets ``seed + i`` at the
            first reset (later resets continue the generators, as SB3's DummyVecEnv does).
        info_keys: info keys copied per table (None: all). **kwargs: env arguments.
    """

    def __init__(self, env_id: str, n_envs: int, seed: int | None = None,
                 info_keys: Sequence[str] | None = DEFAULT_INFO_KEYS, **kwargs: Any) -> None:
        self.env_id = env_id
        seed = _check_sb3_seed(seed)
        self.venv = _vector_class(env_id)(num_envs=n_envs, **kwargs)
        self._env_kwargs = dict(kwargs)  # for each table's spec (get_attr("spec"))
        self.info_keys = _check_info_keys(info_keys, self.venv.core)
        super().__init__(n_envs, self.venv.single_observation_space,
                         self.venv.single_action_space)
        if seed is not None:
            self.seed(seed)
        self._actions: np.ndarray | None = None
        # Monitor's episode statistics, per table
        self._t0 = time.time()
        self._ep_return = np.zeros(n_envs)
        self._ep_length = np.zeros(n_envs, np.int64)

    # SB3 protocol ------------------------------------------------------------------------------

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """SB3's ``seed``: table i gets ``seed + i`` at the next reset. The seed is checked now
        (an int >= 0 or None), not at that reset, which would otherwise fail again and again."""
        return super().seed(_check_sb3_seed(seed))

    def reset(self) -> np.ndarray:
        seeds = self._seeds
        seed = None if all(s is None for s in seeds) else seeds
        try:
            options = _shared_options(self._options)
            obs, info = self.venv.reset(seed=seed, options=options)
        except ValueError:
            # refused options are spent like used ones, or every later reset() would repeat
            # the error (the env itself is unchanged: the native reset checks before acting)
            self._reset_options()
            raise
        fresh = np.ones(self.num_envs, bool) if options is None or "reset_mask" not in options \
            else np.asarray(options["reset_mask"], bool)  # the native env checked the mask
        rows = _info_rows(info, range(self.num_envs))
        for t in np.flatnonzero(fresh):  # the tables not reset keep their latest reset info
            self.reset_infos[t] = rows[t]
        self._ep_return[fresh] = 0.0
        self._ep_length[fresh] = 0
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.venv.step(self._actions)
        dones = terminated | truncated
        self._ep_return += rewards
        self._ep_length += 1
        keys = self.info_keys
        live = np.flatnonzero(~dones)
        out: list[dict] = [None] * self.num_envs  # type: ignore[list-item]
        for t, row in zip(live, _info_rows(info, live, keys), strict=True):
            row["TimeLimit.truncated"] = False
            out[t] = row
        if dones.any():
            ended = np.flatnonzero(dones)
            final_obs = info["final_obs"]
            rows = _info_rows(info["final_info"], ended, keys)
            # the new episodes' reset infos, as SB3 keeps them
            for t, reset_info in zip(ended, _info_rows(info, ended, masked=True), strict=True):
                self.reset_infos[t] = reset_info
            for t, row in zip(ended, rows, strict=True):
                row["terminal_observation"] = final_obs[t]
                row["TimeLimit.truncated"] = bool(truncated[t] and not terminated[t])
                row["episode"] = {"r": round(float(self._ep_return[t]), 6),
                                  "l": int(self._ep_length[t]),
                                  "t": round(time.time() - self._t0, 6)}
                out[t] = row
            self._ep_return[ended] = 0.0
            self._ep_length[ended] = 0
        return obs, rewards.astype(np.float32), dones, out

    def close(self) -> None:
        self.venv.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        frames = self.venv.render()
        return list(frames) if frames is not None else [None] * self.num_envs

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name == "render_mode":
            return [self.venv.render_mode for _ in self._get_indices(indices)]
        if attr_name == "spec":  # each table's env spec, as DummyVecEnv gives its envs' specs:
            # with the arguments given (gym.make(spec) makes the same env) and its step limit
            base = gym.spec(self.env_id)
            spec = table_spec(dataclasses.replace(base, kwargs={**base.kwargs,
                                                                **self._env_kwargs}),
                              self.venv.core)
            return [spec for _ in self._get_indices(indices)]
        # the native env's per-table answer (its core's settings; each table's np_random)
        values = self.venv.get_attr(attr_name)
        return [values[i] for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if indices is not None:
            idx = [int(i) for i in self._get_indices(indices)]
            bad = [i for i in idx if not -self.num_envs <= i < self.num_envs]
            if bad:  # (DummyVecEnv raises IndexError too)
                raise IndexError(f"set_attr indices {bad}: this env's tables are 0.."
                                 f"{self.num_envs - 1}")
            # (negative indices count from the end, as SB3's DummyVecEnv takes them)
            if {i % self.num_envs for i in idx} != set(range(self.num_envs)):
                raise ValueError(f"set_attr indices {idx}: the tables of a native vector env "
                                 "share their settings, so set_attr applies to all of them "
                                 "(indices=None)")
        self.venv.set_attr(attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None,
                   **method_kwargs) -> list[Any]:
        """The native env's :meth:`~cuegym.envs.base.CoreVectorEnv.call`, its value for each
        table of ``indices``: a method of the shared core, called once; ``"render"`` each
        table's own frame; ``"reset"`` and ``"step"`` refused (use the env's own)."""
        values = self.venv.call(method_name, *method_args, **method_kwargs)
        return [values[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
                       ) -> list[bool]:
        """True only for SB3's ``Monitor``, whose episode statistics every table's last info
        carries (so ``evaluate_policy`` reads them instead of warning that it cannot)."""
        from stable_baselines3.common.monitor import Monitor

        return [wrapper_class is Monitor for _ in self._get_indices(indices)]


def vec_monitor(venv: VecEnv) -> VecEnv:
    """SB3's ``VecMonitor`` over ``venv``: the adapter, or wrappers of it that may reshape the
    rewards (``ResidualVecEnv``'s golfbillard shaping), so that the logged returns are the ones
    the learner gets. SB3 warns that this overwrites the adapter's own ``Monitor`` statistics;
    here that is the point, so that one warning is not shown."""
    import warnings

    from stable_baselines3.common.vec_env import VecMonitor

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The environment is already wrapped with a "
                                "`Monitor` wrapper", category=UserWarning)
        return VecMonitor(venv)
