"""The layers every cuegym env shares (Brax-style): a batched core, episode bookkeeping with
same-step autoreset, and the thin single-table and vector adapters.

A *core* holds T tables in arrays (or, for the full-game envs, T rules states) and implements
``reset(idx)``, ``observe()`` and ``step(actions)`` over all tables at once; it draws every
random number from ``core.rngs[t]``, the table's own generator, outside the physics kernels.
:class:`CoreVectorEnv` is a ``gymnasium.vector.VectorEnv`` over a core of T tables;
:class:`CoreEnv` is a ``gymnasium.Env`` over a core of one table whose generator is the env's
``np_random``. Table ``i`` of a vector env reset with ``seed=s`` therefore plays exactly the
trajectory of a single env reset with ``seed=s + i`` (the convention of gymnasium's
``SyncVectorEnv``); ``tests/test_envs_batched.py`` checks it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv

from ..configs import short_repr
from .actions import check_actions
from .checks import SETTABLE, check_reset_options, check_seed, checked_setting
from .render import HumanDisplay
from .render_shots import ANIMATION_FPS, StepClip, step_clip

#: the full-game cores' unused settings (:attr:`Core.UNUSED_SETTINGS`)
GAME_UNUSED_SETTINGS = {"positions": "the full-game envs start every episode from a new game "
                                     "(the break K-3 / the opening G-3), not from a position "
                                     "bank (the Shot envs' setting)"}
#: the Shot cores' unused settings: an episode is one shot, and no opponent shoots
SHOT_UNUSED_SETTINGS = {
    "max_steps": "a Shot env's episode is one shot (the full-game envs' step limit)",
    "max_opponent_shots": "no opponent shoots in a Shot env (the full-game envs' limit)"}


def refuse_unused_settings(settings: Any, unused: Mapping[str, str], owner: str) -> None:
    """Refuse a caller's settings mapping that names a key of ``unused`` (key: why ``owner``
    does not use it): it would be ignored without a word."""
    given = sorted(set(settings) & set(unused)) if isinstance(settings, Mapping) else []
    if given:
        raise ValueError(f"settings key {given[0]!r} is not used by {owner}: {unused[given[0]]}")


def refuse_unused_rules(rules: Any, default: Any, unused: Mapping[str, str], owner: str) -> None:
    """Refuse a rule set (however given: options, a file, a rules object) whose option of
    ``unused`` (key: why ``owner`` does not use it) differs from ``default``'s: it would change
    nothing, without a word. The shipped value passes, so a copy of the shipped file does."""
    for key, why in unused.items():
        if getattr(rules, key) != getattr(default, key):
            raise ValueError(f"rules option {key} = {getattr(rules, key)!r} is not used by "
                             f"{owner}: {why}")


def table_spec(spec: EnvSpec, core: Any) -> EnvSpec:
    """The single env spec of one table of a vector env made from ``spec`` (``core``: its
    tables), so that ``gymnasium.make`` of it plays as the table does: the vector arguments left
    out, the episode limit (the full games' ``max_steps``) as ``max_episode_steps``, as a single
    env made with the same arguments reports it. A ``max_episode_steps`` the vector env was
    given set its tables' ``max_steps``; it goes into the spec's ``settings`` too, since a
    single env's ``TimeLimit`` cannot lengthen its episodes."""
    kwargs = {k: v for k, v in spec.kwargs.items()
              if k not in ("num_envs", "vectorization_mode", "vector_kwargs", "wrappers")}
    given = kwargs.pop("max_episode_steps", None)
    limit = given if given is not None else spec.max_episode_steps
    limit = limit if limit is not None else core.max_episode_steps
    settings = kwargs.get("settings")
    if given is not None and core.max_episode_steps is not None and \
            (settings is None or isinstance(settings, Mapping)):
        # (a path or EnvSettings states max_steps itself: the vector env checked it agrees)
        kwargs["settings"] = {**(settings or {}), "max_steps": core.max_episode_steps}
    return dataclasses.replace(spec, kwargs=kwargs, max_episode_steps=limit)


class Core:
    """Interface of a batched core (documentation; the cores subclass it).

    Attributes:
        n: number of tables. rngs: one ``numpy.random.Generator`` per table.
        observation_space, action_space: the single-table spaces.
        clip: clip out-of-range actions instead of raising.
        max_episode_steps: the learner steps after which an episode truncates (the full-game
            cores' ``settings.max_steps``); None for the Shot cores, whose episodes are one step.
    """

    n: int
    rngs: list[np.random.Generator]
    #: settings keys the core does not use, with why (a caller's mapping naming one is refused)
    UNUSED_SETTINGS: dict[str, str] = {}
    #: reward terms the core never computes (always 0): weights other than the shipped refused
    UNUSED_REWARD_TERMS: tuple[str, ...] = ()
    observation_space: gym.spaces.Box
    action_space: gym.spaces.Box
    clip: bool = False
    render_mode: str | None = None
    max_episode_steps: int | None = None
    #: New games a table may start in one reset of a full-game core, each ended by the
    #: opponents before the learner's first shot, before the reset gives up (an opponent that
    #: wins every game from the break or the opening, or a tiny keglebillard ``distance``).
    MAX_RESET_GAMES = 100

    def _replace_games(self, idx: np.ndarray, start: Any, ended: Any) -> None:
        """A full-game core's reset after its seats are drawn: ``start(todo)`` begins new games
        on the tables ``todo`` and plays the opponents until the learner is to play;
        ``ended(todo)`` says which of them it left with the learner out before its first shot
        (the game over, or the learner finished); those start again, keeping their seat (a
        seat drawn again would favour the seats that shoot early), at most
        :data:`MAX_RESET_GAMES` times."""
        todo = np.asarray(idx, np.int64)
        for _ in range(self.MAX_RESET_GAMES):
            if not len(todo):
                return
            start(todo)
            todo = todo[ended(todo)]
        if len(todo):
            raise RuntimeError(f"reset: the opponents ended {self.MAX_RESET_GAMES} new games "
                               f"in a row before the learner's first shot (tables "
                               f"{todo.tolist()})")

    def _configure(self, game: str, settings: Any, reward: Any, noise: Any, clip: Any,
                   threads: Any, render_mode: str | None) -> None:
        """Load and check what every core of ``game`` takes (after ``self.game`` is set): the
        physics parameters, env settings, reward weights, noise, ``clip``, ``threads`` and
        ``render_mode``."""
        from cuegym.games.noise import load_noise

        from .checks import check_bool, check_threads
        from .config import load_reward, load_settings

        self.game_name = game
        self.params = self.game.params
        refuse_unused_settings(settings, self.UNUSED_SETTINGS, type(self).__name__)
        self.settings = load_settings(game, settings)
        self.reward = self.checked_reward(load_reward(game, reward))
        self.noise = load_noise(noise)
        self.clip = check_bool("clip", clip)
        self.threads = check_threads(threads)
        self.render_mode = render_mode
        self._check_memory()

    def checked_reward(self, weights: Any) -> Any:
        """``weights`` (loaded) refused where a term this core never computes is weighted
        otherwise than the shipped file does (it would be ignored without a word)."""
        from .config import load_reward

        if not self.UNUSED_REWARD_TERMS:  # (the full-game cores compute every term)
            return weights
        shipped = load_reward(self.game_name, None)
        moved = [k for k in self.UNUSED_REWARD_TERMS if getattr(weights, k) != getattr(shipped, k)]
        if moved:
            raise ValueError(f"reward term {moved[0]!r} = {getattr(weights, moved[0])!r} is not "
                             f"computed by {type(self).__name__} (the full-game envs' term; "
                             "here it is always 0): leave it at the shipped "
                             f"{getattr(shipped, moved[0])!r}")
        return weights

    def _check_memory(self) -> None:
        """Refuse ``n`` tables whose step would not fit in memory now, before anything is
        allocated, rather than a MemoryError (or the physics' refusal) at the first step."""
        from cuegym.physics.api import check_memory

        t = self.game.table
        try:
            check_memory(self.n, len(t.ball_ids), len(t.pin_spots), self.settings.max_events)
        except ValueError as e:
            raise ValueError(f"num_envs = {self.n} is more tables than this machine's memory "
                             f"holds: one step's physics {str(e).removeprefix('this call ')}"
                             ) from None

    @staticmethod
    def check_learner_to_play(over: np.ndarray, waiting: np.ndarray) -> None:
        """Refuse a step unless the learner is to play on every table: ``over`` (n,) bool, the
        learner's game has ended; ``waiting`` (n,) bool, the opponents are to play, which only
        a step stopped midway leaves (its opponent raised, or it was interrupted after the
        learner's shot): such a table must be reset, not stepped again, or the next action
        would play in an opponent's seat."""
        if over.any():
            raise RuntimeError(f"step() on a finished game (tables "
                               f"{np.flatnonzero(over).tolist()}): reset it first")
        if waiting.any():
            raise RuntimeError(f"step() while the opponents are to play (tables "
                               f"{np.flatnonzero(waiting).tolist()}): the last step stopped "
                               "midway (its opponent raised or was interrupted); reset those "
                               "tables")

    def reset(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        """Start new episodes on tables ``idx``; returns reset info arrays (len(idx), ...)."""
        raise NotImplementedError

    def observe(self) -> np.ndarray:
        """(n, obs_dim) float32 observations of all tables."""
        raise NotImplementedError

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play validated (n, act_dim) float64 actions: (reward, terminated, truncated, info);
        info maps names to arrays with a leading table axis (nested dicts allowed)."""
        raise NotImplementedError

    def render_table(self, t: int) -> np.ndarray:
        """(H, W, 3) uint8 frame of table t."""
        raise NotImplementedError


def _take(info: dict, idx) -> dict:
    """The rows ``idx`` of every array in a (nested) info dict."""
    return {k: _take(v, idx) if isinstance(v, dict) else v[idx] for k, v in info.items()}


def _unbatch(info: dict) -> dict:
    """Row 0 of a batched info dict, as Python scalars where possible."""
    out = {}
    for k, v in info.items():
        if isinstance(v, dict):
            out[k] = _unbatch(v)
        else:
            x = v[0]
            out[k] = x.item() if isinstance(x, np.generic) else x
    return out


def _masked(info: dict, mask: np.ndarray) -> dict:
    """Gymnasium's vector info form: each key ``k`` gets a boolean ``_k`` (which envs have it)."""
    out: dict[str, Any] = {}
    for k, v in info.items():
        out[k] = _masked(v, mask) if isinstance(v, dict) else v
        out[f"_{k}"] = mask
    return out


def table_seeds(seed, n: int) -> list[int | None]:
    """Per-table seeds: an int ``s`` gives ``s, s + 1, ...``; a sequence of n ints (or None) is
    used as is. Anything else (a float, a string, a bool) raises a ValueError naming it."""
    if isinstance(seed, str | bytes) or not isinstance(seed, Sequence | np.ndarray):
        try:
            seed = check_seed(seed)
        except ValueError:
            raise ValueError(f"seed must be None, an integer >= 0 or a sequence of {n} of them "
                             f"(one per table), got {short_repr(seed)}") from None
        return [None] * n if seed is None else [seed + i for i in range(n)]
    if np.ndim(seed) != 1 or len(seed) != n:
        raise ValueError(f"seed must be an int or {n} seeds, got {np.shape(seed)} seeds")
    try:
        return [check_seed(s) for s in seed]
    except ValueError as exc:
        raise ValueError(f"seed must be None, an int or a sequence of {n} ints: {exc} in "
                         f"{seed!r}") from None


def _reset_mask(options: dict[str, Any], n: int) -> np.ndarray:
    """``options["reset_mask"]`` as an (n,) bool array; other dtypes (ints, floats, strings)
    are refused rather than cast (``"a"`` or 0.5 would silently be True)."""
    raw = options["reset_mask"]
    try:
        mask = np.asarray(raw)
    except (TypeError, ValueError):
        raise ValueError(f"options['reset_mask'] must be a bool array of shape ({n},), got "
                         f"{raw!r}") from None
    if mask.shape != (n,):
        raise ValueError(f"options['reset_mask'] must have shape ({n},), got {mask.shape}")
    if mask.dtype != np.bool_:
        raise ValueError(f"options['reset_mask'] must be a bool array of shape ({n},), got dtype "
                         f"{mask.dtype}: {raw!r}")
    return mask.copy()


class CoreVectorEnv(VectorEnv):
    """A gymnasium ``VectorEnv`` over a batched core, with same-step autoreset.

    When a table's episode ends in ``step``, the observation returned for it is the first one of
    its next episode; the last one is in ``info["final_obs"]`` (an object array, None for the
    others) and that step's info in ``info["final_info"]``, each with a boolean mask
    ``info["_final_obs"]`` / ``info["_final_info"]``, as gymnasium's ``SyncVectorEnv`` does in
    ``AutoresetMode.SAME_STEP``. The other tables' step info is at the top level, masked by
    ``_<key>``.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["rgb_array"],
                "render_fps": 4}

    def __init__(self, core: Core) -> None:
        self.core = core
        self.num_envs = core.n
        self.single_observation_space = core.observation_space
        self.single_action_space = core.action_space
        self.observation_space = gym.vector.utils.batch_space(core.observation_space, core.n)
        self.action_space = gym.vector.utils.batch_space(core.action_space, core.n)
        self.render_mode = core.render_mode
        self._started = False

    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset all tables (or those of ``options["reset_mask"]``).

        Args:
            seed: an int ``s`` seeds table i with ``s + i``; a list gives each table's seed;
                None keeps the generators (fresh entropy on the first reset). Only the tables
                being reset are reseeded: a table the mask leaves out keeps its generator and
                its game, as in gymnasium's vector envs.
            options: ``{"reset_mask": (n,) bool}`` resets only the masked tables.
        """
        options = check_reset_options(options, ("reset_mask",))
        n = self.num_envs
        # every argument is checked, and the new generators made, before anything changes: a
        # rejected reset leaves the env as it was
        seeds = table_seeds(seed, n)
        mask = _reset_mask(options, n) if "reset_mask" in options else np.ones(n, bool)
        if not self._started and not mask.all():
            raise ValueError("options['reset_mask'] must select every table on the first "
                             "reset (the others would start from no episode)")
        fresh = not self._started or any(s is not None for s in seeds)
        rngs = [seeding.np_random(s)[0] if mask[t] and (s is not None or not self._started)
                else None for t, s in enumerate(seeds)] if fresh else []
        super().reset(seed=seeds[0] if isinstance(seed, int | np.integer) else None)
        for t, rng in enumerate(rngs):
            if rng is not None:
                self.core.rngs[t] = rng
        self._started = True
        idx = np.flatnonzero(mask)
        info = self.core.reset(idx)
        full = {k: _scatter(v, idx, n) for k, v in info.items()}
        return self.core.observe(), _masked(full, mask) if full else {}

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play one action per table; finished tables are reset in the same call."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = check_actions(actions, self.num_envs, self.single_action_space.shape[0],
                          clip=self.core.clip)
        reward, terminated, truncated, info = self.core.step(a)
        done = terminated | truncated
        infos = _masked(info, ~done)
        if done.any():
            obs_end = self.core.observe()
            idx = np.flatnonzero(done)
            final_obs = np.full(self.num_envs, None, dtype=object)
            for t in idx:
                final_obs[t] = obs_end[t]
            infos["final_obs"] = final_obs
            infos["_final_obs"] = done
            infos["final_info"] = _masked(info, done)
            infos["_final_info"] = done
            # gymnasium's same-step form: the new episodes' reset info at the top level
            _merge_reset_info(infos, self.core.reset(idx), idx, done)
        return (self.core.observe(), reward.astype(np.float64), terminated.copy(),
                truncated.copy(), infos)

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One frame per table (``render_mode="rgb_array"``): as the table is now. A table whose
        episode ended in the last step shows its next episode's start (same-step autoreset
        replaced its state), so a Shot env's tables show positions, never shots: the single
        env, ``SyncVectorEnv`` or ``RecordShotVideo`` show each shot."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode")
            return None
        if not self._started:  # the core's blank state is no position: nothing to draw
            raise RuntimeError("call reset() before render()")
        return tuple(self.core.render_table(t) for t in range(self.num_envs))

    # SB3-style helpers (the SB3 adapter forwards to these)
    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call a method of the core (or read an attribute), once for the whole batch,
        returned once per table. ``"render"`` is the env's own :meth:`render`, one frame per
        table (as ``SyncVectorEnv.call("render")`` gives)."""
        if name == "render":
            if args or kwargs:
                raise ValueError(f"render takes no arguments, got {args!r} {kwargs!r}")
            frames = self.render()
            return (None,) * self.num_envs if frames is None else frames
        if name in _TABLE_ATTRS and not hasattr(self.core, name):
            return self.get_attr(name)
        if name in _OWN_METHODS:  # the core's would skip the checks, autoreset and episode books
            raise ValueError(f"call({name!r}) would {name} the shared core behind the vector "
                             f"env's back; use the vector env's own {name}()")
        attr = getattr(self.core, name)
        value = attr(*args, **kwargs) if callable(attr) else attr
        return (value,) * self.num_envs

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """An attribute of the core, once per table; and what ``SyncVectorEnv.get_attr`` gives
        for its envs' ``np_random`` (each table's own generator), ``spec`` (each table's single
        env spec: ``gymnasium.make(spec)`` makes an env that plays as the table does) and
        ``metadata``."""
        if name in _TABLE_ATTRS and not hasattr(self.core, name):
            if name == "np_random":
                return tuple(self.core.rngs)
            if name == "spec":
                return (self._table_spec(),) * self.num_envs
            return (self.metadata,) * self.num_envs
        return (getattr(self.core, name),) * self.num_envs

    def _table_spec(self) -> EnvSpec | None:
        """The single env spec of one table (:func:`table_spec` of the vector spec
        ``gymnasium.make_vec`` set)."""
        return None if self.spec is None else table_spec(self.spec, self.core)

    def set_attr(self, name: str, values: Any) -> None:
        """Set a setting of the core (one value for all tables). An attribute the core does not
        have is refused (a misspelt name would silently do nothing); ``clip``, ``threads``,
        ``noise`` and ``reward`` are checked as the constructor checks them."""
        if isinstance(values, list | tuple):  # gymnasium's per-table form: all must be equal
            if len(values) != self.num_envs or not all(_equal(v, values[0])
                                                       for v in values[1:]):
                raise ValueError("a native vector env shares one setting across its tables: "
                                 f"give one value (or {self.num_envs} equal ones), got "
                                 f"{values!r}")
            values = values[0]
        setattr(self.core, name, checked_setting(self.core, name, values))


#: A single env's own attributes (gymnasium's), set on the env itself even where the core has
#: an attribute of that name.
_ENV_OWN = frozenset({"observation_space", "action_space", "render_mode", "metadata", "spec",
                      "np_random", "np_random_seed", "reward_range", "unwrapped", "core"})
#: Attributes every single env has and a core does not: ``get_attr`` / ``call`` answer them per
#: table, as gymnasium's ``SyncVectorEnv`` does for its envs.
_TABLE_ATTRS = ("np_random", "spec", "metadata")
#: The vector env's own steps that ``call`` must not hand to the core (whose ``reset(idx)`` and
#: ``step(a)`` know nothing of the action checks, autoreset or the episode statistics).
_OWN_METHODS = ("reset", "step")


def _equal(a: Any, b: Any) -> bool:
    """``a == b`` for settings (numbers, names, mappings, arrays); False where it cannot tell."""
    if a is b:
        return True
    try:
        return bool(np.all(a == b))
    except (TypeError, ValueError):  # e.g. mappings of arrays
        return False


def _merge_reset_info(infos: dict, reset_info: dict, idx: np.ndarray, done: np.ndarray) -> None:
    """Put the reset info of the tables ``idx`` (rows (len(idx), ..)) into the vector info
    ``infos`` in place: their rows of each key, and its ``_key`` mask, now come from the reset."""
    n = len(done)
    for k, v in reset_info.items():
        old, mask = infos.get(k), infos.get(f"_{k}")
        if isinstance(v, dict):
            sub = old if isinstance(old, dict) else {}
            _merge_reset_info(sub, v, idx, done)
            infos[k] = sub
        elif isinstance(old, np.ndarray) and old.shape[1:] == v.shape[1:]:
            infos[k] = old.astype(np.result_type(old, v), copy=True)
            infos[k][idx] = v
        else:  # a key the step's info does not have (in this shape)
            infos[k], mask = _scatter(v, idx, n), None
        infos[f"_{k}"] = done.copy() if mask is None else mask | done


def _scatter(v, idx: np.ndarray, n: int):
    if isinstance(v, dict):
        return {k: _scatter(x, idx, n) for k, x in v.items()}
    out = np.zeros((n, *v.shape[1:]), dtype=v.dtype)
    out[idx] = v
    return out


class CoreEnv(HumanDisplay, gym.Env):
    """A ``gymnasium.Env`` over a core of one table (the one-table case of the vector env)."""

    metadata = {"render_modes": ["rgb_array", "rgb_array_list", "human"], "render_fps": 4}

    def __init__(self, core: Core) -> None:
        if core.n != 1:
            raise ValueError("a single env needs a core of one table")
        self.core = core
        self._spec: EnvSpec | None = None
        self.observation_space = core.observation_space
        self.action_space = core.action_space
        self.render_mode = core.render_mode
        self._done = True
        self._reset_once = False  # render() before any reset() would draw the core's blank state
        self._viewer = None
        # rgb_array_list: the frames and steps (drawn when render() asks) since render()
        self._frames: list[np.ndarray | StepClip] = []
        if self.render_mode == "rgb_array_list":  # videos play the animation in real time
            self.metadata = {**self.metadata, "render_fps": ANIMATION_FPS}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        check_reset_options(options)
        super().reset(seed=check_seed(seed))
        self.core.rngs[0] = self.np_random
        info = _unbatch(self.core.reset(np.array([0])))
        self._done, self._reset_once = False, True
        if self.render_mode == "human":
            self.render()
        elif self.render_mode == "rgb_array_list":
            self._frames = [self.core.render_table(0)]
        return self.core.observe()[0], info

    @property
    def spec(self) -> EnvSpec | None:
        """The spec ``gymnasium.make`` set, its ``max_episode_steps`` the env's own truncation
        limit (full-game envs: ``settings.max_steps``), so that wrappers reading the spec
        (``TimeAwareObservation``) see it. A ``max_episode_steps`` given to ``gymnasium.make``
        is a ``TimeLimit`` around the env: it can only shorten the episodes; a longer limit
        goes in ``settings={"max_steps": N}``."""
        spec, limit = self._spec, self.core.max_episode_steps
        if spec is None or limit is None or spec.max_episode_steps is not None:
            return spec
        return dataclasses.replace(spec, max_episode_steps=int(limit))

    @spec.setter
    def spec(self, value: EnvSpec | None) -> None:
        self._spec = value

    def __getattr__(self, name: str) -> Any:
        """The core's settings (``clip``, ``threads``, ``noise``, ``reward``; the full games'
        ``opponent``, ``opponent_batching``, ``seat_choice``) read as the env's own attributes,
        so that ``env.get_wrapper_attr``, ``SyncVectorEnv.get_attr`` and ``AsyncVectorEnv.
        get_attr`` see them (only called when the normal lookup fails)."""
        core = self.__dict__.get("core")
        if core is not None and name in SETTABLE and hasattr(core, name):
            return getattr(core, name)
        if self._core_state(name):
            return getattr(core, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _core_state(self, name: str) -> bool:
        """Whether ``name`` is the core's state or structure (``seat``, ``states``, ``settings``,
        ``num_players``...), not a setting and not the env's own attribute. It reads as the
        env's attribute so that gymnasium's ``set_wrapper_attr`` and vector ``set_attr`` bring
        a set of it here, where it is refused as the native ``set_attr`` refuses it; else they
        keep the value on the outermost wrapper, which the env never reads."""
        core = self.__dict__.get("core")
        return (core is not None and not name.startswith("_") and name not in SETTABLE
                and name not in _ENV_OWN and name not in self.__dict__
                and not hasattr(type(self), name) and name in vars(core)
                and not callable(vars(core)[name]))

    def __setattr__(self, name: str, value: Any) -> None:
        """Setting one of the core's settings (see :meth:`__getattr__`) sets it on the core,
        checked as the constructor checks it: ``env.set_wrapper_attr("clip", True)`` and the
        ``set_attr`` of gymnasium's vector envs change the env, as the native vector env's
        ``set_attr`` does (they used to leave a shadow attribute on the outermost wrapper that
        the env never read)."""
        core = self.__dict__.get("core")
        if core is not None and name in SETTABLE and hasattr(core, name):
            setattr(core, name, checked_setting(core, name, value))
        elif self._core_state(name):
            checked_setting(core, name, value)  # raises: the env's state, named
        else:
            super().__setattr__(name, value)

    @property
    def np_random(self) -> np.random.Generator:
        """The table's generator (shot noise, start positions, opponents)."""
        return gym.Env.np_random.fget(self)

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        # the core draws from its own reference: a generator set between resets is used at once
        gym.Env.np_random.fset(self, value)
        self.core.rngs[0] = value

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("call reset() before step(): no episode is running (never reset, or "
                               "the last one ended)")
        a = check_actions(action, None, self.action_space.shape[0], clip=self.core.clip)
        reward, terminated, truncated, info = self.core.step(a)
        self._done = bool(terminated[0] or truncated[0])
        if self.render_mode == "human":
            self.render()
        elif self.render_mode == "rgb_array_list":
            self._frames.append(step_clip(self.core, 0))
        return (self.core.observe()[0], float(reward[0]), bool(terminated[0]),
                bool(truncated[0]), _unbatch(info))

    def discard_frames(self) -> None:
        """``rgb_array_list``: forget the frames and shots kept since the last ``render()``
        (a video recorder's steps before its recording starts)."""
        self._frames = []

    def render(self) -> np.ndarray | list[np.ndarray] | None:
        """``rgb_array``: the table as an (H, W, 3) uint8 image (the last shot's paths drawn);
        ``rgb_array_list``: the frames since the last ``render()`` call, each shot animated as
        it happens (``metadata["render_fps"]`` frames per second; for videos); ``human``: the
        ``rgb_array`` image in a matplotlib window."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode (pass render_mode="
                            "'rgb_array', 'rgb_array_list' or 'human' to the env)")
            return None
        if not self._reset_once:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array_list":
            kept, self._frames = self._frames, []
            return [f for k in kept for f in (k.frames() if isinstance(k, StepClip) else [k])]
        frame = self.core.render_table(0)
        if self.render_mode == "rgb_array":
            return frame
        self._show_human(frame, type(self).__name__)
        return None
