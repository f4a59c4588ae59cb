"""The tiny SAC run the training tests share: keglebillard's SAC recipe on 4 tables for 32 steps,
a net of 8 units, no demonstrations (a few seconds)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAC_YAML = ROOT / "configs" / "train" / "keglebillard_sac.yaml"


def tiny_sac(name: str, **over):
    """The :class:`TrainConfig` of the tiny run ``name``; ``over`` replaces its keys."""
    from cuegym.experiments.train import load_config

    base = {"name": name, "n_envs": 4, "total_timesteps": 32, "eval_freq": 32,
            "eval_episodes": 4, "checkpoint_freq": 16, "progress_bar": False, "demos": None,
            "policy_kwargs": {"net_arch": [8]},
            "algo_kwargs": {"learning_starts": 8, "batch_size": 8, "buffer_size": 500}}
    return load_config(SAC_YAML, {**base, **over})
