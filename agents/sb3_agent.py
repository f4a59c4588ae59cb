"""A trained Stable-Baselines3 policy as an agent that plays rules states.

The model is a ``.zip`` saved by SB3 (``experiments/train.py`` writes ``runs/<name>/model.zip``
and ``best_model.zip`` next to the run's ``config.yaml``). The agent turns each game state into
the env observation (``cuegym.games.kegle.Kegle.observe`` / ``cuegym.envs.golf.observe_states``),
asks the policy (deterministic), and maps the action back to a strike exactly as the env does
(absolute action), through the geometric-residual map (``cuegym.agents.residual``) or the
discrete shot menu (``cuegym.agents.choice``), as the run's config says. A model file may also
carry that metadata itself: ``<model>.json`` beside it with ``{"game", "env_id", "action",
"residual", "choice"}`` (the shipped agents under ``agents/pretrained/`` do). A model trained on
a one-shot (Shot) env is shown every position at 0 : 0, as in training.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cuegym.agents.base import Agent, Strikes, check_game


def model_meta(path: str | Path) -> dict[str, Any]:
    """The metadata of a saved model: ``<model>.json`` beside it, else the run's
    ``config.yaml`` in the same directory. Keys: game, env_id, action, residual, choice,
    algo."""
    p = Path(path)
    side = p.with_suffix(".json")
    if side.exists():
        meta = json.loads(side.read_text())
    elif (p.parent / "config.yaml").exists():
        cfg = yaml.safe_load((p.parent / "config.yaml").read_text()) or {}
        meta = {k: cfg.get(k) for k in ("env_id", "action", "residual", "choice", "algo")}
    else:
        raise FileNotFoundError(f"no metadata for model {p}: expected {side.name} or "
                                "config.yaml beside it")
    env_id = meta.get("env_id") or "cuegym/KeglebillardShot-v0"
    meta.setdefault("game", "golfbillard" if "Golf" in env_id else "keglebillard")
    meta["env_id"] = env_id
    meta["action"] = meta.get("action") or "absolute"
    meta["residual"] = dict(meta.get("residual") or {})
    meta["choice"] = dict(meta.get("choice") or {})
    meta["algo"] = (meta.get("algo") or "sac").lower()
    return meta


def load_model(path: str | Path, algo: str) -> Any:
    """Load an SB3 model (SAC, PPO, TD3 or DQN) on the CPU."""
    from stable_baselines3 import DQN, PPO, SAC, TD3

    classes = {"sac": SAC, "ppo": PPO, "td3": TD3, "dqn": DQN}
    if algo not in classes:
        raise ValueError(f"unknown algo {algo!r} for {path}; known: {sorted(classes)}")
    cls = classes[algo]
    return cls.load(str(path), device="cpu")


class SB3Agent(Agent):
    """Plays a saved SB3 model.

    Args:
        path: the model ``.zip``.
        game: optional check: the game the model must be for.
        deterministic: use the policy's mean action (default) instead of sampling.
        name: label in tables (default: the file's stem, or its run directory's name).
    """

    def __init__(self, path: str | Path, game: str | None = None, deterministic: bool = True,
                 name: str | None = None) -> None:
        from cuegym.agents.arena import make_arena

        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(f"no model file {self.path}")
        self.meta = model_meta(self.path)
        self.game = check_game(self.meta["game"])
        if game is not None and check_game(game) != self.game:
            raise ValueError(f"model {self.path} plays {self.game}, not {game}")
        self.model = load_model(self.path, self.meta["algo"])
        self.deterministic = bool(deterministic)
        self.arena = make_arena(self.game)
        stem = self.path.stem
        self.name = name or (self.path.parent.name if stem in ("model", "best_model") else stem)
        self.residual = None
        if self.meta["action"] == "residual":
            from cuegym.agents.residual import ResidualSpec

            opts = {k: v for k, v in self.meta["residual"].items() if k != "game"}
            self.residual = ResidualSpec(game=self.game, **opts)
        self.choice = None
        if self.meta["action"] == "choice":
            from cuegym.agents.choice import ChoiceSpec

            opts = {k: v for k, v in self.meta["choice"].items() if k != "game"}
            self.choice = ChoiceSpec(game=self.game, **opts)
            self.residual = self.choice.candidate_spec()  # as ChoiceVecEnv builds the block
        from cuegym.envs.config import load_settings

        self.settings = load_settings(self.game)

    # -- observations -------------------------------------------------------------------------

    def _obs_kegle(self, states: Sequence[Any]) -> np.ndarray:
        # a Shot-env model saw every position at 0 : 0 against one opponent; game scores would
        # be inputs it never met in training
        return self.arena.g.observe(states, shot_env="Shot" in self.meta["env_id"])

    def _obs_golf(self, states: Sequence[Any]) -> np.ndarray:
        from cuegym.envs.golf import observe_states

        half = (self.arena.table.length / 2, self.arena.table.width / 2)
        return observe_states(states, [s.to_move for s in states], half)

    # -- acting -------------------------------------------------------------------------------

    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        if not len(states):
            return Strikes.empty(0)
        kegle = self.game == "keglebillard"
        obs = self._obs_kegle(states) if kegle else self._obs_golf(states)
        if self.residual is not None:
            return self._act_residual(states, obs)
        act, _ = self.model.predict(obs, deterministic=self.deterministic)
        act = np.clip(np.asarray(act, np.float64).reshape(len(states), -1), -1.0, 1.0)
        if kegle:
            from cuegym.envs.kegle import KegleActionMap

            amap = KegleActionMap(self.arena.g, self.settings)
            hand = self.arena.batch(states).hand
            return Strikes(amap.strikes(act), np.zeros(len(states), np.int64),
                           amap.placements(act, hand))
        from cuegym.envs.golf import GolfActionMap

        amap = GolfActionMap(self.settings, self.arena.geo)
        side = np.array([s.to_move for s in states])
        xy = np.stack([s.xy for s in states])
        return Strikes(amap.strikes(act, side), amap.select(act, side, xy),
                       np.full((len(states), 2), np.nan))

    def _act_residual(self, states: Sequence[Any], obs: np.ndarray) -> Strikes:
        from cuegym.agents.residual import (
            candidate_block,
            golf_frame_state,
            golf_from_frame,
            in_action_range,
            residual_strikes,
        )

        spec = self.residual
        kegle = self.game == "keglebillard"
        seen = list(states) if kegle else [golf_frame_state(s) for s in states]
        blocks = [candidate_block(self.arena, s, spec) for s in seen]
        feats = np.stack([b[1] for b in blocks])
        full = np.concatenate([obs, feats.reshape(len(states), -1)], axis=1).astype(np.float32)
        act, _ = self.model.predict(full, deterministic=self.deterministic)
        if self.choice is not None:
            from cuegym.agents.choice import choice_strikes

            out = choice_strikes([b[0] for b in blocks], feats, act, self.choice,
                                 self.arena.params.m / self.arena.params.M)
        else:
            out = residual_strikes([b[0] for b in blocks], feats, act, spec, seen, self.arena)
        out = in_action_range(out, self.settings.action)  # as the env it trained on plays it
        if not kegle:
            out = golf_from_frame(out, np.array([s.to_move for s in states]))
        return out


def export_model(src: str | Path, dst: str | Path, **extra: Any) -> Path:
    """Write a lean copy of a trained model for shipping (``agents/pretrained/<game>.zip``):
    the optimizers' running statistics are dropped (they matter only for more training), the
    metadata (:func:`model_meta` plus ``extra``, e.g. the command that trained it) goes to
    ``<dst>.json`` beside it. The copy loads and plays exactly like the original."""
    src, dst = Path(src), Path(dst)
    meta = {**model_meta(src), **extra}
    if meta["action"] == "residual":  # every field, so later changes of defaults cannot bite
        from cuegym.agents.residual import ResidualSpec

        opts = {k: v for k, v in meta["residual"].items() if k != "game"}
        full = ResidualSpec(game=meta["game"], **opts).as_dict()
        full.pop("game")
        meta["residual"] = full
    if meta["action"] == "choice":
        from cuegym.agents.choice import ChoiceSpec

        opts = {k: v for k, v in meta["choice"].items() if k != "game"}
        full = ChoiceSpec(game=meta["game"], **opts).as_dict()
        full.pop("game")
        meta["choice"] = full
    model = load_model(src, meta["algo"])
    for name in ("actor", "critic", "policy"):
        opt = getattr(getattr(model, name, None), "optimizer", None)
        if opt is not None:
            opt.state.clear()
    if getattr(model, "ent_coef_optimizer", None) is not None:
        model.ent_coef_optimizer.state.clear()
    dst.parent.mkdir(parents=True, exist_ok=True)
    model.save(dst, exclude=["replay_buffer", "_last_obs", "_last_original_obs",
                             "_episode_storage"])
    dst.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    return dst
