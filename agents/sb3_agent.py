"""A trained Stable-Baselines3 policy as an agent that plays rules states.

The model is a ``.zip`` saved by SB3. The agent turns each game state into the env observation
(``cuegym.games.kegle.Kegle.observe`` / ``cuegym.envs.golf.observe_states``), asks the policy
(deterministic), and maps the action back to a strike exactly as the env does (absolute action),
through the geometric-residual map (``cuegym.agents.residual``) or the discrete shot menu
(``cuegym.agents.choice``).

Metadata (which algorithm, env id and action wrapper): models saved by cuegym
(:func:`save_model`; ``experiments/train.py``, ``selfplay.py``, the shipped agents) carry it in
the zip itself, as a member ``cuegym.json`` (SB3 ignores it when loading) with ``{"game",
"env_id", "action", "residual", "choice", "algo"}``. For other zips :func:`model_meta` looks for
``<model>.json`` beside it, then the run's ``config.yaml``, and otherwise infers it from the
zip's own SB3 data (the policy's module gives the algorithm, the observation size the game, a
``Box`` action the env's absolute action) and says so on stderr: a model trained with plain SB3
on ``cuegym.envs.make_sb3_vec_env`` plays in tournaments as it is. :func:`write_meta` adds the
metadata to an existing zip. A model trained on a one-shot (Shot) env is shown every position
at 0 : 0, as in training.
"""

from __future__ import annotations

import json
import os
import pickle
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.agents.base import Agent, Strikes, check_game, global_rngs_kept, unreadable_reason
from cuegym.cli_errors import existing_file
from cuegym.configs import load_yaml

#: the zip member holding cuegym's metadata of a saved model
META_MEMBER = "cuegym.json"
ALGOS = ("sac", "ppo", "td3", "dqn")


def _check_meta_types(meta: dict[str, Any], path: Path) -> None:
    """A ValueError naming the key of a model's metadata that has the wrong type (text for
    the ids, mappings for the action settings), not an AttributeError from using it."""
    for key, kind, what in (("env_id", str, "text"), ("action", str, "text"),
                            ("algo", str, "text"), ("game", str, "text"),
                            ("residual", dict, "a mapping"), ("choice", dict, "a mapping")):
        v = meta.get(key)
        if v is not None and not isinstance(v, kind):
            raise ValueError(f"{path}: metadata {key} must be {what}, got {v!r}")


def read_zip_meta(path: str | Path) -> dict[str, Any] | None:
    """The ``cuegym.json`` member of a model zip, or None when it has none."""
    try:
        with zipfile.ZipFile(path) as z:
            if META_MEMBER not in z.namelist():
                return None
            meta = json.loads(z.read(META_MEMBER))
    except zipfile.BadZipFile as e:
        raise ValueError(f"{path} is not a readable model zip ({e})") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: {META_MEMBER} is not valid JSON ({e})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: {META_MEMBER} is not a JSON object")
    return meta


def write_meta(path: str | Path, meta: dict[str, Any]) -> Path:
    """Store ``meta`` as the ``cuegym.json`` member of the model zip ``path`` (replacing an
    older one), atomically (a temporary copy, then a rename). The weights are not touched."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                if info.filename != META_MEMBER:
                    dst.writestr(info, src.read(info.filename))
            dst.writestr(META_MEMBER, json.dumps(meta, indent=1))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def read_zip_data(path: str | Path) -> dict[str, Any]:
    """The ``data`` member of an SB3 model zip (its settings, ``num_timesteps`` among them).

    Raises:
        ValueError: the file is no zip or has no ``data`` member; OSError: it cannot be read;
        json.JSONDecodeError (a ValueError): ``data`` is not JSON."""
    try:
        with zipfile.ZipFile(path) as z:
            if "data" not in z.namelist():
                raise ValueError(f"{path} is not a Stable-Baselines3 model zip (no 'data' "
                                 "member)")
            return json.loads(z.read("data"))
    except zipfile.BadZipFile as e:
        raise ValueError(f"{path} is not a readable model zip ({e})") from None


def _infer_meta(path: Path) -> dict[str, Any]:
    """Metadata guessed from a plain SB3 zip's ``data`` (the message says what was assumed)."""
    import sys

    from cuegym.envs import golf, kegle

    data = read_zip_data(path)
    module = str(data.get("policy_class", {}).get("__module__", ""))
    algo = next((a for a in ALGOS if f".{a}." in module + "."), None)
    if algo is None and module.endswith("common.policies") and "clip_range" in data:
        algo = "ppo"  # PPO's actor-critic policy lives in common.policies (as A2C's does)
    if algo is None:
        raise ValueError(f"{path}: cannot tell the algorithm from the policy module "
                         f"{module!r}; write the metadata with "
                         "cuegym.agents.sb3_agent.write_meta(path, {'algo': ..., 'env_id': ...})")
    shape = json.loads(str(data.get("observation_space", {}).get("_shape", "[]")))
    dims = {kegle.observation_space().shape[0]: "keglebillard",
            golf.observation_space().shape[0]: "golfbillard"}
    act_type = str(data.get("action_space", {}).get(":type:", ""))
    if len(shape) != 1 or shape[0] not in dims or "Box" not in act_type:
        raise ValueError(f"{path}: observation shape {shape} and action space {act_type!r} are "
                         "not those of a cuegym env with its own (absolute) action; write the "
                         "metadata with cuegym.agents.sb3_agent.write_meta")
    game = dims[shape[0]]
    env_id = "cuegym/KeglebillardShot-v0" if game == "keglebillard" else \
        "cuegym/GolfbillardShot-v0"
    print(f"note: {path} carries no cuegym metadata; assuming algo {algo} (its policy), "
          f"{game} (observation size {shape[0]}), the env's absolute action and env_id "
          f"{env_id} (add metadata with cuegym.agents.sb3_agent.write_meta)", file=sys.stderr)
    return {"env_id": env_id, "action": "absolute", "algo": algo, "game": game,
            "inferred": True}


def _run_config(folder: Path) -> dict[str, Any] | None:
    """The train.py run config beside a model (its ``config.yaml`` naming an ``env_id``), or
    None (no file, or another command's config)."""
    path = folder / "config.yaml"
    cfg = load_yaml(path.read_text()) if path.exists() else None
    return cfg if isinstance(cfg, dict) and cfg.get("env_id") else None


def model_meta(path: str | Path) -> dict[str, Any]:
    """The metadata of a saved model: its ``cuegym.json`` member, else ``<model>.json``
    beside it, else the run's ``config.yaml`` in the same directory, else inferred from the
    SB3 data (with a note on stderr). Keys: game, env_id, action, residual, choice, algo."""
    p = Path(path)
    side = p.with_suffix(".json")
    meta = read_zip_meta(p)
    if meta is None and side.exists():
        try:
            meta = json.loads(side.read_text())
        except json.JSONDecodeError as e:
            raise ValueError(f"{side} (the metadata of {p.name}) is not valid JSON ({e})") \
                from None
        if not isinstance(meta, dict):
            raise ValueError(f"{side} (the metadata of {p.name}) is not a JSON object")
    elif meta is None and isinstance(cfg := _run_config(p.parent), dict):
        meta = {k: cfg.get(k) for k in ("env_id", "action", "residual", "choice", "algo")}
    elif meta is None:
        meta = _infer_meta(p)
    _check_meta_types(meta, p)
    env_id = meta.get("env_id") or "cuegym/KeglebillardShot-v0"
    meta.setdefault("game", "golfbillard" if "Golf" in env_id else "keglebillard")
    meta["env_id"] = env_id
    meta["action"] = meta.get("action") or "absolute"
    meta["residual"] = dict(meta.get("residual") or {})
    meta["choice"] = dict(meta.get("choice") or {})
    meta["algo"] = (meta.get("algo") or "sac").lower()
    return meta


def save_model(model: Any, path: str | Path, meta: dict[str, Any] | None = None,
               exclude: list[str] | None = None) -> Path:
    """``model.save(path)`` atomically (a temporary file in the same directory, then a rename:
    an interrupt leaves the previous file intact), with ``meta`` (default: the model's
    ``cuegym_meta`` attribute, if any) stored as the zip's ``cuegym.json``."""
    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_name(path.name + ".zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = meta if meta is not None else getattr(model, "cuegym_meta", None)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.zip")
    from stable_baselines3.common.base_class import BaseAlgorithm

    try:  # the base class's save: atomic_algo's override calls this function
        BaseAlgorithm.save(model, tmp, exclude=list(exclude or []) + ["cuegym_meta"])
        if meta is not None:
            with zipfile.ZipFile(tmp, "a", zipfile.ZIP_DEFLATED) as z:
                z.writestr(META_MEMBER, json.dumps(meta, indent=1))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def save_replay_buffer(model: Any, path: str | Path) -> Path:
    """``model.save_replay_buffer(path)`` atomically (temporary file, then a rename)."""
    from stable_baselines3.common.save_util import save_to_pkl

    path = Path(path)
    if path.suffix != ".pkl":
        path = path.with_name(path.name + ".pkl")
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.pkl")
    try:
        save_to_pkl(tmp, model.replay_buffer, model.verbose)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


_ATOMIC: dict[type, type] = {}


def atomic_algo(cls: type) -> type:
    """A subclass of the SB3 algorithm ``cls`` whose ``save`` and ``save_replay_buffer`` go
    through :func:`save_model` / :func:`save_replay_buffer` (atomic; the metadata in
    ``model.cuegym_meta`` stored in every saved zip), so that SB3's own callbacks
    (``EvalCallback``, ``CheckpointCallback``) write complete, self-describing files."""
    if cls not in _ATOMIC:
        def save(self, path, exclude=None, include=None):
            if include:
                raise ValueError("save(include=...) is not supported by the atomic save")
            save_model(self, path, exclude=exclude)

        def save_buffer(self, path):
            save_replay_buffer(self, path)

        _ATOMIC[cls] = type(cls.__name__, (cls,), {
            "save": save, "save_replay_buffer": save_buffer,
            "__doc__": f"{cls.__name__} with atomic saves carrying cuegym metadata."})
    return _ATOMIC[cls]


def load_model(path: str | Path, algo: str) -> Any:
    """Load an SB3 model (SAC, PPO, TD3 or DQN) on the CPU, leaving the global generators as
    they were (:func:`global_rngs_kept`)."""
    with global_rngs_kept():  # SB3's first import moves Python's ``random`` stream too
        from stable_baselines3 import DQN, PPO, SAC, TD3

    classes = {"sac": SAC, "ppo": PPO, "td3": TD3, "dqn": DQN}
    if algo not in classes:
        raise ValueError(f"unknown algo {algo!r} for {path}; known: {sorted(classes)}")
    cls = classes[algo]
    try:
        with global_rngs_kept():
            model = cls.load(str(path), device="cpu")
    except (pickle.UnpicklingError, RuntimeError, EOFError, KeyError, ValueError,
            zipfile.BadZipFile) as e:  # a member cut short or not what SB3 wrote
        raise ValueError(f"{path} is not a readable {algo.upper()} model zip "
                         f"({unreadable_reason(e)})") from None
    except (AttributeError, TypeError) as e:  # another algorithm's policy, set up as this one
        raise ValueError(f"{path} cannot be loaded as a {algo.upper()} model "
                         f"({unreadable_reason(e)}): is its metadata's algo {algo!r} the one it "
                         "was saved by?") from None
    # SB3 loads another algorithm's zip as this one without a word (a DQN zip read as SAC
    # then fails at its first move: "no attribute 'actor'"): its policy must be the algorithm's
    bases = tuple(set(getattr(cls, "policy_aliases", {}).values()))
    if bases and not isinstance(model.policy, bases):
        raise ValueError(f"{path} holds a {type(model.policy).__name__}, not a {algo.upper()} "
                         f"policy: its metadata's algo {algo!r} is not the one it was saved by")
    return model


class SB3Agent(Agent):
    """Plays a saved SB3 model.

    Args:
        path: the model ``.zip``.
        game: optional check: the game the model must be for.
        deterministic: use the policy's mean action (default) instead of sampling.
        name: label in tables (default: the file's stem, or its run directory's name).
        arena: the arena it plays in (default: the game's default arena). Its table and rules
            shape what the model sees: positions in units of that table's half lengths (a
            model trained on the default table sees another table's positions scaled to its
            own), candidates aimed at that table's pockets and pins, placements in its areas.
    """

    def __init__(self, path: str | Path, game: str | None = None, deterministic: bool = True,
                 name: str | None = None, arena: Any = None) -> None:
        from cuegym.agents.arena import make_arena

        self.path = existing_file(path, "model file")
        self.meta = model_meta(self.path)
        self.game = check_game(self.meta["game"])
        if game is not None and check_game(game) != self.game:
            raise ValueError(f"model {self.path} plays {self.game}, not {game}")
        self.model = load_model(self.path, self.meta["algo"])
        if not isinstance(deterministic, bool | np.bool_):  # "no" would silently be True
            raise ValueError(f"deterministic must be true or false, got {deterministic!r}")
        self.deterministic = bool(deterministic)
        if not self.deterministic and self.meta["algo"] == "td3":
            raise ValueError(f"deterministic=false: {self.path} is a TD3 model, whose policy is "
                             "deterministic (it samples nothing)")
        # the caller's arena: the default one would observe and aim on the default table and
        # rules whatever the game is played on (helmatch positions read as kleinmatch ones)
        if arena is not None and arena.game != self.game:
            raise ValueError(f"model {self.path} plays {self.game}, the arena {arena.game}")
        self.arena = arena if arena is not None else make_arena(self.game)
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
        self._check_fit()

    def _check_fit(self) -> None:
        """Refuse, up front, metadata that does not fit the model: an env id that is not a
        cuegym env of the model's game, or an observation (with the candidate block of a
        residual or choice model) of another size than the model's input (else SB3 fails at
        the first move with a shape error, or the model reads inputs it never saw)."""
        from cuegym.envs import ENV_IDS  # env id -> (game, env class, vector class)

        env_id = str(self.meta["env_id"])
        if ENV_IDS.get(env_id, (None,))[0] != self.game:
            ids = ", ".join(k for k, v in ENV_IDS.items() if v[0] == self.game)
            raise ValueError(f"{self.path}: metadata env_id {env_id!r} is not a cuegym "
                             f"{self.game} env ({ids})")
        states = self.arena.new_states(1)
        obs = self._observe(self.arena.g.batch(states))
        if self.residual is not None:
            obs = self._candidates(self.arena.g.batch(states), obs)[3]
        want = getattr(self.model.observation_space, "shape", None)
        if want is not None and tuple(want) != obs.shape[1:]:
            raise ValueError(f"{self.path}: the model reads observations of shape "
                             f"{tuple(want)}, its metadata (env_id {env_id!r}, action "
                             f"{self.meta['action']!r}) gives {obs.shape[1:]}")

    # -- observations -------------------------------------------------------------------------

    def _obs_kegle(self, states: Sequence[Any]) -> np.ndarray:
        # a Shot-env model saw every position at 0 : 0 against one opponent; game scores would
        # be inputs it never met in training. The envs show the five seats after the player's
        # (envs/kegle.py, keglebillard_v0.py): so here, and a game of 7+ players plays
        return self.arena.g.observe(states, shot_env="Shot" in self.meta["env_id"],
                                    next_seats_only=True)

    def _observe(self, states: Sequence[Any]) -> np.ndarray:
        return self._obs_kegle(states) if self.game == "keglebillard" else \
            self._obs_golf(states)

    def _obs_golf(self, states: Any) -> np.ndarray:  # states: a GolfStates batch
        from cuegym.envs.golf import observe_states

        half = (self.arena.table.length / 2, self.arena.table.width / 2)
        return observe_states(states, states.to_move, half)

    # -- acting -------------------------------------------------------------------------------

    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        if not len(states):
            return Strikes.empty(0)
        kegle = self.game == "keglebillard"
        states = self.arena.g.batch(states)  # packed once; every step below reads the arrays
        obs = self._observe(states)
        if self.residual is not None:
            return self._act_residual(states, obs, rng)
        act = self._predict(obs, rng)
        act = np.clip(np.asarray(act, np.float64).reshape(len(states), -1), -1.0, 1.0)
        if kegle:
            from cuegym.envs.kegle import KegleActionMap

            amap = KegleActionMap(self.arena.g, self.settings)
            return Strikes(amap.strikes(act), np.zeros(len(states), np.int64),
                           amap.placements(act, states.hand))
        from cuegym.envs.golf import GolfActionMap

        amap = GolfActionMap(self.settings, self.arena.geo)
        side = states.to_move
        return Strikes(amap.strikes(act, side), amap.select(act, side, states.xy),
                       np.full((len(states), 2), np.nan))

    def _predict(self, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The policy's actions for ``obs``: its mean (deterministic), or sampled with draws
        seeded from ``rng`` alone (one ``integers`` draw; a DQN: one ``random`` and one
        ``integers`` draw for its epsilon-greedy exploration, state by state), so a seeded
        tournament repeats and the caller's global generators are untouched."""
        if self.deterministic:
            return self.model.predict(obs, deterministic=True)[0]
        if self.meta["algo"] == "dqn":
            # SB3's predict explores the whole batch or none of it (one draw per call): here
            # each state explores with the exploration rate, whatever else is in its batch
            act = np.array(self.model.predict(obs, deterministic=True)[0])
            explore = rng.random(len(act)) < float(self.model.exploration_rate)
            act[explore] = rng.integers(int(self.model.action_space.n), size=int(explore.sum()))
            return act
        seed = int(rng.integers(2**63))
        with global_rngs_kept(seed):
            self.model.action_space.seed(seed)  # DQN's exploration samples the space
            return self.model.predict(obs, deterministic=False)[0]

    def _candidates(self, states: Any, obs: np.ndarray
                    ) -> tuple[Any, Strikes, np.ndarray, np.ndarray]:
        """The aimer's candidate blocks as the model sees them: the states as a batch
        (golfbillard: in the shooter's frame), the blocks' strikes (T * n_cand, state-major),
        their features (T, n_cand, N_FEAT) and the model's input (observation and features)."""
        from cuegym.agents.residual import candidate_batch, golf_frame_states

        seen = states if self.game == "keglebillard" else golf_frame_states(states)
        cands, feats = candidate_batch(self.arena, seen, self.residual)
        full = np.concatenate([obs, feats.reshape(len(states), -1)], axis=1).astype(np.float32)
        return seen, cands, feats, full

    def _as_played(self, strikes: Strikes, states: Any, repeat: int = 1) -> Strikes:
        """Model strikes (``repeat`` per state, state-major) as the env it trained on plays
        them: in the action's range, and golfbillard's back in the table frame."""
        from cuegym.agents.residual import golf_from_frame, in_action_range

        out = in_action_range(strikes, self.settings.action)
        if self.game != "keglebillard":
            out = golf_from_frame(out, np.repeat(states.to_move, repeat))
        return out

    def _act_residual(self, states: Any, obs: np.ndarray, rng: np.random.Generator
                      ) -> Strikes:
        from cuegym.agents.residual import residual_strikes

        seen, cands, feats, full = self._candidates(states, obs)
        act = self._predict(full, rng)
        if self.choice is not None:
            from cuegym.agents.choice import choice_strikes

            out = choice_strikes(cands, feats, act, self.choice,
                                 self.arena.params.m / self.arena.params.M)
        else:
            out = residual_strikes(cands, feats, act, self.residual, seen, self.arena)
        return self._as_played(out, states)

    def ranked(self, states: Sequence[Any], k: int, values: bool = False
               ) -> Strikes | tuple[Strikes, np.ndarray]:
        """The ``k`` menu entries of highest Q-value in each state, best first, as played
        (a discrete-menu DQN model only; entry 0 is what :meth:`act` plays). An entry whose
        strike repeats a better entry's comes after all distinct ones.

        Returns:
            ``len(states) * k`` strikes, state-major (entry e of state t at row ``t * k + e``);
            with ``values``, also their Q-values, (len(states), k) (in the reward's units).
        """
        import torch

        from cuegym.agents.choice import menu_strikes

        if self.choice is None or not hasattr(self.model, "q_net"):
            raise ValueError(f"{self.name}: ranked entries need a discrete-menu DQN model "
                             f"(action 'choice'), not action {self.meta['action']!r}")
        if isinstance(k, bool | np.bool_) or not isinstance(k, int | np.integer):
            raise ValueError(f"k (the best entries asked for) must be an integer, got "
                             f"{k!r}")  # int(2.5) gave 2 entries without a word
        k = int(k)
        if not 1 <= k <= self.choice.n_actions:
            raise ValueError(f"{k} best entries asked for; the menu has "
                             f"{self.choice.n_actions} (1 to {self.choice.n_actions})")
        if not len(states):
            return (Strikes.empty(0), np.zeros((0, k))) if values else Strikes.empty(0)
        states = self.arena.g.batch(states)
        _, cands, feats, full = self._candidates(states, self._observe(states))
        with torch.no_grad():
            q = self.model.q_net(torch.as_tensor(full)).numpy()
        T, n = q.shape
        order = np.argsort(-q, axis=1, kind="stable")  # ties: the lower index, as argmax
        every = menu_strikes(cands, feats[:, :, 0] > 0, order, self.choice,
                             self.arena.params.m / self.arena.params.M)
        every = self._as_played(every, states, n)
        # an entry that plays the same strike as a better one (a padded candidate, a speed
        # clipped to the range) goes to the end, so the k strikes differ where they can
        key = np.column_stack([every.cue, every.cue_ball, np.nan_to_num(every.place, nan=9.0)])
        key = key.reshape(T, n, -1)
        same = (key[:, :, None] == key[:, None]).all(3) & np.tri(n, k=-1, dtype=bool)
        rank = np.argsort(same.any(2), axis=1, kind="stable")[:, :k]
        chosen = every.take((np.arange(T)[:, None] * n + rank).reshape(-1))
        if not values:
            return chosen
        return chosen, np.take_along_axis(q, np.take_along_axis(order, rank, 1), 1)


def export_model(src: str | Path, dst: str | Path, **extra: Any) -> Path:
    """Write a lean copy of a trained model for shipping (``agents/pretrained/<game>.zip``):
    the optimizers' running statistics are dropped (they matter only for more training), the
    metadata (:func:`model_meta` plus ``extra``, e.g. the command that trained it) goes into
    the zip (``cuegym.json``) and to ``<dst>.json`` beside it (for people). The copy loads and
    plays exactly like the original."""
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
    save_model(model, dst, meta, exclude=["replay_buffer", "_last_obs", "_last_original_obs",
                                          "_episode_storage"])
    dst.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    return dst
