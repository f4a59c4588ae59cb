"""Amortised search for keglebillard and golfbillard: a network learns what a simulating
teacher finds, from positions of whole games, and then plays with one forward pass (expert
iteration).

Each generation (``experiments/expert_iteration.py``):

1. **Positions from whole games** (:func:`collect_positions`): lock-step games
   (:func:`~cuegym.agents.head_to_head.play_games`) between the current student, the planner and the
   geometric aimer; every position met is kept with its game's final result seen by the player
   to move (``+1`` won, ``-1`` lost, ``0`` cut off), so scores, ball in hand and late-game
   states come in the proportions games produce them.
2. **Teacher labels** (:func:`teacher_labels`), all positions of a chunk in one batched
   physics call per stage: stage 1 simulates every entry of the discrete shot menu
   (:mod:`cuegym.agents.choice`: the aimer's ``n_cand`` cheapest shots x spin x speed
   variants) under ``k1`` draws of the tournament noise; stage 2 takes the ``top`` entries,
   ``n_perturb`` random residual corrections of each (aim, speed, spin, side, placement) and the
   **student's own proposal** (expert iteration: the student's move enters the teacher's
   candidate set), and simulates them under ``k2`` fresh draws. All candidates of a state meet
   the same draws (common random numbers). The teacher plays the best stage-2 mean value
   (``arena.values``: keglebillard points minus skæve, win, ball in hand handed over;
   golfbillard own goals minus the opponent's, win, the turn kept, foul, the position left).
3. **Training** (:func:`train_net`, torch): one MLP shared across the candidates maps
   ``[full-game observation, candidate features]`` to, per menu variant, a policy logit
   (cross-entropy toward the teacher's entry), the entry's simulated value (regression on the
   stage-1 means, all entries at once) and a continuous residual (regressed toward the
   teacher's correction of its entry, so aim, speed, spin and placement stay continuous and
   the menu seeds the move without capping it); a value head on the observation alone regresses
   the game results (Monte-Carlo returns of whole games).

At play time (:class:`ExpertAgent`) the agent computes the candidate block, runs the network
once and plays the entry of highest predicted value (or logit, ``select``) plus its residual:
no simulation. :meth:`ExpertAgent.value` is the value head, ``value(states) -> (T,)``
expected result for the player to move, in [-1, 1], for search that wants a leaf evaluation.

The game-specific parts are small: the observation (``Kegle.observe`` / ``Golf.observe``, both
from the side to move and with the game score), the aimer's candidate block
(:func:`~cuegym.agents.residual.candidate_batch`; golfbillard's candidate features are turned
into the mover's frame, :func:`features`) and the state batch type (``KegleStates`` /
``GolfStates``). Golfbillard has no ball in hand, so its residual's placement components stay
zero (:func:`apply_residual`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from cuegym.agents.base import (
    Agent,
    Strikes,
    check_game,
    check_live,
    checked_states,
    global_rngs_kept,
    load_noise,
    load_torch_file,
)
from cuegym.agents.choice import ChoiceSpec, menu_strikes
from cuegym.agents.residual import (
    FEATURES,
    N_FEAT,
    ResidualSpec,
    candidate_batch,
    in_action_range,
)
from cuegym.cli_errors import check_int, existing_file
from cuegym.configs import finite_number
from cuegym.games import golf_obs, kegle_obs
from cuegym.games.kegle_state import HAND_SALVO

#: The residual's components, in this order; :attr:`ExpertSpec.res_scale` gives one unit of each.
RES_FIELDS = ("phi", "log_V0", "b", "a", "place_x", "place_y")
#: Largest residual, in units of ``res_scale``.
RES_MAX = 3.0
#: Observation width of each game (``Kegle.observe``, ``Golf.observe``).
OBS_DIMS = {"keglebillard": kegle_obs.OBS_DIM, "golfbillard": golf_obs.OBS_DIM}
#: Candidate features that change sign when a golfbillard table is seen from side 1 (turned by
#: 180 degrees): the aim's cos, sin and the struck ball's x, y (``geo2``, ``geo3``).
_GOLF_FLIP = np.array([FEATURES.index(f) for f in ("cos_phi", "sin_phi", "geo2", "geo3")])


def _tuple_of(name: str, values: Any, item: Any) -> tuple:
    """``values`` (a list or tuple) with each item checked by ``item(f"{name}[i]", v)``."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise ValueError(f"{name} must be a list, got {values!r}")
    return tuple(item(f"{name}[{i}]", v) for i, v in enumerate(values))


@dataclass(frozen=True)
class ExpertSpec:
    """What the network sees and outputs.

    Attributes:
        game: ``keglebillard`` or ``golfbillard`` (saved networks without it are keglebillard).
        n_cand, spins, speeds, spin0: the shot menu (:class:`~cuegym.agents.choice.ChoiceSpec`).
        res_scale: one unit of each residual component (:data:`RES_FIELDS`): aim [deg],
            log cue speed, top/back spin b, side spin a, placement x, y [m].
        hidden: widths of the hidden layers (candidate trunk and value head alike).
        q_scale: simulated values are divided by it for the value-of-entry regression.
        select: how the agent picks the entry: ``q`` (the highest predicted value of an entry
            as is, regressed on all entries: the default, it fouls less) or ``policy`` (the
            logits imitating the teacher's entry).
        res_gain: factor on the residual at play time (1: as learnt; 0: the menu entry as is).
    """

    game: str = "keglebillard"
    n_cand: int = 4
    spins: tuple[float, ...] = (-0.4, 0.0, 0.3)
    speeds: tuple[float, ...] = (0.75, 1.0, 1.35)
    spin0: float = -0.4
    res_scale: tuple[float, ...] = (1.0, 0.15, 0.15, 0.1, 0.03, 0.03)
    hidden: tuple[int, ...] = (128, 128)
    q_scale: float = 10.0
    select: str = "q"
    res_gain: float = 1.0

    def __post_init__(self) -> None:
        check_game(self.game)
        for name in ("spins", "speeds", "res_scale"):
            object.__setattr__(self, name, _tuple_of(name, getattr(self, name), finite_number))
        object.__setattr__(self, "hidden", _tuple_of("hidden", self.hidden, check_int))
        if len(self.res_scale) != len(RES_FIELDS) or min(self.res_scale) <= 0:
            raise ValueError(f"res_scale needs {len(RES_FIELDS)} positive values "
                             f"({', '.join(RES_FIELDS)}), got {self.res_scale}")
        if not self.hidden:
            raise ValueError(f"hidden must list positive widths, got {self.hidden}")
        if self.select not in ("policy", "q"):
            raise ValueError(f"select must be 'policy' or 'q', got {self.select!r}")
        for name in ("q_scale", "res_gain"):
            object.__setattr__(self, name, finite_number(name, getattr(self, name)))
        if not 0.0 <= self.res_gain <= 1.0:
            raise ValueError(f"res_gain must lie in [0, 1], got {self.res_gain}")
        if self.q_scale <= 0:
            raise ValueError(f"q_scale must be > 0, got {self.q_scale}")
        self.menu  # noqa: B018 - validates the menu fields

    @property
    def menu(self) -> ChoiceSpec:
        return ChoiceSpec(self.game, self.n_cand, self.spins, self.speeds, self.spin0)

    @property
    def obs_dim(self) -> int:
        return OBS_DIMS[self.game]

    def as_dict(self) -> dict[str, Any]:
        return {f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
                for f in fields(self)}


# ---------------------------------------------------------------------------------------------
# Features and strikes
# ---------------------------------------------------------------------------------------------


def observe_to_move(arena: Any, batch: Any) -> np.ndarray:
    """(T, obs_dim) float32 observation of the player to move in each state of ``batch``
    (``Kegle.observe`` / ``Golf.observe``). Keglebillard as its envs observe (``next_seats_only``:
    the five seats after the player's), so a game of 7+ players has one; up to 6 players that
    is every other seat, the observation it always was."""
    if arena.game == "keglebillard":
        return arena.g.observe(batch, next_seats_only=True)
    return arena.g.observe(batch)


def features(arena: Any, states: Any, spec: ExpertSpec
             ) -> tuple[np.ndarray, np.ndarray, Strikes]:
    """What the network reads for T states (a ``KegleStates`` / ``GolfStates`` batch or rules
    state values).

    Returns:
        obs (T, obs_dim) float32 full-game observation of the player to move (scores
        included, :func:`observe_to_move`); feats (T, n_cand, N_FEAT) float32
        candidate features (``candidate_batch``; golfbillard: in the frame of the side to
        move, attacking +x, as its observation is); the candidate strikes (T * n_cand,
        state-major, on the table as it is).
    """
    batch = arena.g.batch(states)
    obs = observe_to_move(arena, batch)
    rspec = ResidualSpec(game=spec.game, n_cand=spec.n_cand, spin0=spec.spin0)
    strikes, feats = candidate_batch(arena, batch, rspec)
    feats = feats.astype(np.float32)
    if spec.game == "golfbillard" and len(feats):
        feats[:, :, _GOLF_FLIP] *= (1.0 - 2.0 * batch.to_move).astype(np.float32)[:, None, None]
    return obs, feats, strikes


def apply_residual(strikes: Strikes, res: np.ndarray, spec: ExpertSpec, states: Any,
                   arena: Any) -> tuple[Strikes, np.ndarray]:
    """Strikes corrected by residuals ``res`` (T, 6) in units of ``spec.res_scale``
    (clipped to +-``RES_MAX``). A placement the correction makes unplayable (K-19; behind the
    salvo line where required) keeps the uncorrected one; strikes without a placement (no
    ball in hand; every golfbillard stroke) ignore the placement components.

    Returns:
        the corrected strikes (clamped to the physics ranges) and the residuals as applied
        (T, 6) (placement components zeroed where not applied).
    """
    r = np.clip(np.asarray(res, np.float64).reshape(len(strikes), len(RES_FIELDS)),
                -RES_MAX, RES_MAX)
    s = np.asarray(spec.res_scale)
    out = strikes.copy()
    out.cue[:, 1] += s[0] * r[:, 0]
    out.cue[:, 0] *= np.exp(s[1] * r[:, 1])
    out.cue[:, 4] += s[2] * r[:, 2]
    out.cue[:, 3] += s[3] * r[:, 3]
    has = ~np.isnan(out.place[:, 0])
    ok = has.copy()
    if has.any():
        moved = out.place + s[4:6] * r[:, 4:6]
        batch = arena.g.batch(states)
        ok &= arena.placement_ok(batch, np.where(has[:, None], moved, 0.0))
        ok &= (batch.hand != HAND_SALVO) | (moved[:, 0] <= arena.salvo_x)
        out.place = np.where(ok[:, None], moved, out.place)
    r[~ok, 4:6] = 0.0
    return out.clipped(), r


def mean_values(arena: Any, states: Any, strikes: Strikes, per_state: int, k: int,
                noise: Any, rng: np.random.Generator, terms: dict | None = None) -> np.ndarray:
    """Mean ``arena.values`` of strikes in blocks of ``per_state`` per state under ``k`` noise
    draws shared by each state's block (common random numbers, the placement's part of the
    noise too: :func:`~cuegym.agents.planner.noisy_batch`), in one physics call.

    Args:
        states: T states (a batch). strikes: T * per_state strikes, state-major.

    Returns:
        (T, per_state) mean values (units of the arena's ``values``).
    """
    from cuegym.agents.planner import noisy_batch

    T = len(arena.g.batch(states))
    rep, noisy = noisy_batch(arena, states, strikes, np.full(T, per_state), noise, k, rng)
    return arena.values(rep, noisy, terms=terms).reshape(T, per_state, k).mean(2)


# ---------------------------------------------------------------------------------------------
# The network
# ---------------------------------------------------------------------------------------------


def _mlp(n_in: int, hidden: Sequence[int], n_out: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    for h in hidden:
        layers += [nn.Linear(n_in, h), nn.ReLU()]
        n_in = h
    layers.append(nn.Linear(n_in, n_out))
    return nn.Sequential(*layers)


class ExpertNet(nn.Module):
    """Policy, entry values and residuals from one MLP shared across candidates; a value head.

    ``forward(obs (B, obs_dim), feats (B, M, N_FEAT))`` returns logits (B, M * V) (padded
    candidates at -1e9), entry values (B, M * V) (in units of ``q_scale``) and residuals
    (B, M * V, 6) in [-RES_MAX, RES_MAX], with V the menu's variants and entry ``k * V + v``
    as in :mod:`cuegym.agents.choice`. ``value(obs)`` is (B,) in [-1, 1].
    """

    def __init__(self, spec: ExpertSpec) -> None:
        super().__init__()
        self.spec = spec
        self.n_var = spec.menu.n_variants
        self.trunk = _mlp(spec.obs_dim + N_FEAT, spec.hidden,
                          self.n_var * (2 + len(RES_FIELDS)))
        self.value_head = _mlp(spec.obs_dim, spec.hidden, 1)

    def forward(self, obs: torch.Tensor, feats: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        B, M, _ = feats.shape
        x = torch.cat([obs.unsqueeze(1).expand(B, M, obs.shape[1]), feats], dim=2)
        y = self.trunk(x).reshape(B, M, self.n_var, 2 + len(RES_FIELDS))
        valid = (feats[:, :, 0] > 0).unsqueeze(2)
        logits = torch.where(valid, y[..., 0], torch.full_like(y[..., 0], -1e9))
        res = RES_MAX * torch.tanh(y[..., 2:])
        return (logits.reshape(B, M * self.n_var), y[..., 1].reshape(B, M * self.n_var),
                res.reshape(B, M * self.n_var, len(RES_FIELDS)))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.value_head(obs)[:, 0])


# ---------------------------------------------------------------------------------------------
# The agent
# ---------------------------------------------------------------------------------------------


class ExpertAgent(Agent):
    """Plays a trained :class:`ExpertNet`: the menu entry of highest predicted value
    (``select``) plus its residual, one forward pass per batch, no simulation; deterministic
    (``rng`` is not used).

    Args:
        net: the network, or a path to a file saved by :meth:`save` (its ``spec.game`` is the
            game the agent plays).
        name: label in tables (default ``expert``).
        select: how the entry is picked (``q`` or ``policy``, see :class:`ExpertSpec`);
            default: the network's ``spec.select``.
        res_gain: factor on the residual (default: the network's ``spec.res_gain``).
    """

    game = "keglebillard"

    def __init__(self, net: ExpertNet | str | Path, name: str = "expert",
                 arena: Any = None, select: str | None = None,
                 res_gain: float | None = None) -> None:
        from cuegym.agents.arena import make_arena
        from cuegym.envs.config import load_settings

        self.meta: dict[str, Any] = {}
        shown = "the network"
        if isinstance(net, (str, Path)):
            shown = f"the network {net}"
            net, self.meta = load_net(net)
        # the network's play settings with the caller's overrides (ExpertSpec checks them)
        play = replace(net.spec, **{k: v for k, v in (("select", select),
                                                       ("res_gain", res_gain)) if v is not None})
        self.select, self.res_gain = play.select, float(play.res_gain)
        self.net = net.eval()
        self.spec = net.spec
        self.game = net.spec.game
        self.name = name
        self.arena = arena or make_arena(self.game)
        if getattr(self.arena, "game", None) != self.game:
            raise ValueError(f"{shown} plays {self.game}, the arena "
                             f"{getattr(self.arena, 'game', self.arena)}")
        self.settings = load_settings(self.game)
        self.mass_ratio = self.arena.params.m / self.arena.params.M

    def propose(self, states: Any) -> tuple[np.ndarray, np.ndarray, Strikes]:
        """The move for each state: menu entry (T,), residual (T, 6) as applied, strikes."""
        obs, feats, block = features(self.arena, states, self.spec)
        if not len(obs):
            return np.zeros(0, np.int64), np.zeros((0, len(RES_FIELDS))), Strikes.empty(0)
        with torch.no_grad():
            logits, q, res = self.net(torch.as_tensor(obs), torch.as_tensor(feats))
        if self.select == "q":
            logits = torch.where(logits > -1e8, q, logits)  # padded candidates stay out
        entry = logits.argmax(1).numpy()
        r = res[torch.arange(len(entry)), torch.as_tensor(entry)].numpy().astype(np.float64)
        r *= self.res_gain
        base = menu_strikes(block, feats[:, :, 0] > 0, entry, self.spec.menu, self.mass_ratio)
        strikes, r = apply_residual(base, r, self.spec, states, self.arena)
        return entry, r, in_action_range(strikes, self.settings.action)

    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        if not len(states):
            return Strikes.empty(0)
        return self.propose(states)[2]

    def value(self, states: Any) -> np.ndarray:
        """(T,) expected game result for the player to move in each state, in [-1, 1]
        (+1: certain win), from the value head (no simulation). ``states`` are checked as
        :meth:`act` checks them (what they are, their table, a batch's arrays, no finished
        game): an array or the other game's states failed deep inside the observation."""
        states = checked_states(self, states, "value()")
        check_live(self.game, states, "value()")
        obs = observe_to_move(self.arena, self.arena.g.batch(states))
        with torch.no_grad():
            return self.net.value(torch.as_tensor(obs)).numpy().astype(np.float64)

    def save(self, path: str | Path, meta: dict[str, Any] | None = None) -> Path:
        """Write the network, its spec and ``meta`` to ``path`` atomically (a temporary file,
        then a rename)."""
        return save_net(self.net, path, {**self.meta, **dict(meta or {})})


def value_function(path: str | Path | None = None, game: str = "keglebillard") -> Any:
    """The value head of a saved expert network as a plain callable ``value(states) -> (T,)``
    (expected result for the player to move, in [-1, 1]); default: the shipped
    ``agents/pretrained/<game>_expert.pt``. For search that wants a leaf evaluation."""
    if path is None:
        from cuegym.agents import PRETRAINED_DIR

        check_game(game)
        path = PRETRAINED_DIR / f"{game}_expert.pt"
    return ExpertAgent(path).value


def save_net(net: ExpertNet, path: str | Path, meta: dict[str, Any] | None = None,
             spec: ExpertSpec | None = None) -> Path:
    """``torch.save`` of ``{"state_dict", "spec", "meta"}`` to ``path``, atomically; ``spec``
    (default ``net.spec``) may change the play settings (``select``, ``res_gain``) only."""
    spec = net.spec if spec is None else spec
    if replace(spec, select=net.spec.select, res_gain=net.spec.res_gain) != net.spec:
        raise ValueError("save_net: spec may differ from net.spec in select and res_gain only")
    return torch_save_atomic({"state_dict": net.state_dict(), "spec": spec.as_dict(),
                              "meta": json.dumps(meta or {})}, path)


def torch_save_atomic(obj: Any, path: str | Path) -> Path:
    """``torch.save(obj)`` to a temporary name beside ``path``, then a rename (a reader never
    sees half a file); creates the directory."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        torch.save(obj, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def load_net(path: str | Path) -> tuple[ExpertNet, dict[str, Any]]:
    """The network and metadata saved by :func:`save_net`."""
    path = existing_file(path, "expert model file")
    data = load_torch_file(path, "expert model")
    if isinstance(data, dict) and {"n_in", "hidden", "state"} <= set(data):
        raise ValueError(f"{path} is an aim or leave network (cuegym.agents.aim), not an expert "
                         "model: it corrects a trained model, as pretrained:aim=<path> or "
                         "leave=<path>")
    if not isinstance(data, dict) or "state_dict" not in data or "spec" not in data:
        raise ValueError(f"{path} is not an expert model (saved by cuegym.agents.expert)")
    with global_rngs_kept():  # the initial weights, replaced at once, draw from torch's
        net = ExpertNet(ExpertSpec(**data["spec"]))
    net.load_state_dict(data["state_dict"])
    return net, json.loads(data.get("meta") or "{}")


# ---------------------------------------------------------------------------------------------
# Positions from whole games
# ---------------------------------------------------------------------------------------------


def collect_positions(arena: Any, agents: Sequence[Agent], n_games: int, *, seed: int,
                      max_shots: int = 400) -> tuple[Any, np.ndarray, Any]:
    """Every position of ``n_games`` games between ``agents[0]`` and ``agents[1]`` (seats
    alternating, tournament noise), with its game's result for the player to move.

    Returns:
        the states (a ``KegleStates`` / ``GolfStates`` batch of n positions), ``z`` (n,)
        float32 (+1 the player to move won the game, -1 lost, 0 a draw (G-5) or cut off by
        ``max_shots``), and the
        :class:`~cuegym.agents.head_to_head.GameResults`.
    """
    parts: list[Any] = []
    games: list[np.ndarray] = []
    shooters: list[np.ndarray] = []

    def observe(idx: np.ndarray, sub: Any, movers: np.ndarray) -> None:
        parts.append(arena.g.batch(sub).copy())
        games.append(np.asarray(idx, np.int64).copy())
        shooters.append(np.asarray(movers, np.int64).copy())

    from cuegym.agents.head_to_head import play_games

    res = play_games(arena, agents, n_games, seed=seed, max_shots=max_shots, observer=observe)
    g = np.concatenate(games)
    a = np.concatenate(shooters)
    w = res.winner[g]
    z = np.where(w == a, 1.0, np.where(w >= 0, -1.0, 0.0)).astype(np.float32)
    return type(parts[0]).concat(parts), z, res


# ---------------------------------------------------------------------------------------------
# The teacher
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TeacherSpec:
    """The teacher's search (module doc, step 2).

    Attributes:
        k1: noise draws per menu entry in stage 1. top: entries refined in stage 2.
        n_perturb: random residuals per refined entry. k2: noise draws per stage-2 strike.
        jitter: standard deviation of the random residuals, in ``res_scale`` units.
        res_tau: temperature [value units] of the residual label: the mean of the residuals
            tried with the teacher's entry, weighted by ``exp((v - v_best) / res_tau)`` (the
            single best one is mostly the luckiest of a few noisy means; the weighted mean
            keeps the direction that pays on average).
        chunk: positions per batched physics call. noise: the execution noise planned for.
        terms: value shaping passed to ``arena.values`` (e.g. ``{"foul": -8}``: a foul costs
            8 points more than the skæve it hands over).
    """

    k1: int = 4
    top: int = 4
    n_perturb: int = 7
    k2: int = 8
    jitter: float = 1.0
    res_tau: float = 1.0
    chunk: int = 32
    noise: Any = "tournament"
    terms: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("k1", "top", "n_perturb", "k2", "chunk"):
            object.__setattr__(self, name, check_int(f"teacher {name}", getattr(self, name)))
        for name in ("jitter", "res_tau"):
            object.__setattr__(self, name, finite_number(f"teacher {name}", getattr(self, name),
                                                         positive=True))
        if not isinstance(self.terms, dict) or not all(isinstance(k, str) for k in self.terms):
            raise ValueError(f"teacher terms must map value terms to numbers, got "
                             f"{self.terms!r}")
        for k, v in self.terms.items():
            finite_number(f"teacher terms.{k}", v)


def _label_chunk(arena: Any, batch: Any, spec: ExpertSpec, tspec: TeacherSpec,
                 student: ExpertAgent | None, rng: np.random.Generator, noise: Any,
                 settings: Any) -> dict[str, np.ndarray]:
    T = len(batch)
    menu = spec.menu
    A, top = menu.n_actions, min(tspec.top, menu.n_actions)
    mr = arena.params.m / arena.params.M
    obs, feats, block = features(arena, batch, spec)
    valid = feats[:, :, 0] > 0
    entries1 = np.tile(np.arange(A), (T, 1))
    s1 = in_action_range(menu_strikes(block, valid, entries1, menu, mr), settings.action)
    v1 = mean_values(arena, batch, s1, A, tspec.k1, noise, rng, tspec.terms)  # (T, A)
    ok1 = np.repeat(valid, menu.n_variants, axis=1)      # entries of real (unpadded) candidates
    best1 = np.argsort(np.where(ok1, -v1, np.inf), axis=1, kind="stable")[:, :top]  # (T, top)
    J = tspec.n_perturb
    ent = np.repeat(best1, J + 1, axis=1)                                          # (T, top*(J+1))
    res = rng.standard_normal((T, top, J + 1, len(RES_FIELDS))) * tspec.jitter
    res[:, :, 0] = 0.0                                                             # the entry as is
    res = res.reshape(T, top * (J + 1), len(RES_FIELDS))
    if student is not None:
        s_ent, s_res, _ = student.propose(batch)
    else:
        s_ent, s_res = best1[:, 0], np.zeros((T, len(RES_FIELDS)))
    ent = np.concatenate([ent, s_ent[:, None]], axis=1)
    res = np.concatenate([res, s_res[:, None]], axis=1)
    C = ent.shape[1]
    rep = batch.take(np.repeat(np.arange(T), C))
    base = menu_strikes(block, valid, ent, menu, mr)
    s2, applied = apply_residual(base, res.reshape(-1, len(RES_FIELDS)), spec, rep, arena)
    s2 = in_action_range(s2, settings.action)
    v2 = mean_values(arena, batch, s2, C, tspec.k2, noise, rng, tspec.terms)  # (T, C)
    b = v2.argmax(1)
    rows = np.arange(T)
    applied = applied.reshape(T, C, len(RES_FIELDS))
    # a padded candidate plays candidate 0 (menu_strikes): label the entry it really is
    e = ent[rows, b]
    V = menu.n_variants
    same = ent == e[:, None]                                                       # (T, C)
    w = np.where(same, np.exp((v2 - v2[rows, b][:, None]) / tspec.res_tau), 0.0)
    res_label = (w[:, :, None] * applied).sum(1) / w.sum(1)[:, None]
    e = np.where(valid[rows, e // V], e, e % V)
    return {"obs": obs, "feats": feats, "q": v1.astype(np.float32), "entry": e,
            "res": res_label.astype(np.float32),
            "value": v2[rows, b].astype(np.float32),
            "menu_value": v2[:, 0].astype(np.float32),
            "student_value": v2[:, -1].astype(np.float32)}


def teacher_labels(arena: Any, states: Any, spec: ExpertSpec, tspec: TeacherSpec,
                   rng: np.random.Generator, student: ExpertAgent | None = None,
                   progress: Any = None, pool: Executor | None = None, parts: int = 1
                   ) -> dict[str, np.ndarray]:
    """The teacher's move for each of T states, in chunks of ``tspec.chunk`` (one physics call
    per stage and chunk).

    Args:
        pool, parts: label the states in ``parts`` contiguous pieces on the processes of
            ``pool`` (a ``ProcessPoolExecutor``, best with the ``spawn`` context), each piece
            with its own generator seeded from ``rng``: the labels depend on ``parts``, not on
            the pool. ``pool=None``: here, in this process (``parts`` must be 1).
        progress: called with the number of states done after each chunk (each piece, with a
            pool).

    Returns:
        arrays over the T states: ``obs`` (T, obs_dim), ``feats`` (T, n_cand, N_FEAT), ``q``
        (T, A) stage-1 mean value of every menu entry, ``entry`` (T,) and ``res`` (T, 6) the
        teacher's move (menu entry + residual label in ``res_scale`` units, see ``res_tau``),
        ``value`` (T,) its stage-2 mean value, ``menu_value`` (T,) the best stage-1 entry's
        stage-2 value (the menu alone), ``student_value`` (T,) the student's proposal's
        stage-2 value (the best stage-1 entry's when there is no student).
        Values in ``arena.values`` units.
    """
    from cuegym.envs.config import load_settings

    if arena.game != spec.game:
        raise ValueError(f"the expert spec is for {spec.game}, the arena plays {arena.game}")
    if int(parts) < 1 or (pool is None and int(parts) != 1):
        raise ValueError(f"parts must be >= 1, and 1 without a pool; got {parts}")
    batch = arena.g.batch(states)
    if pool is not None:
        cut = np.array_split(np.arange(len(batch)), int(parts))
        seeds = rng.integers(0, 2**63 - 1, size=len(cut))
        net = None if student is None else student.net
        jobs = [pool.submit(_label_part, arena, spec, tspec, batch.take(idx), net, int(seed))
                for idx, seed in zip(cut, seeds, strict=True) if len(idx)]
        out = []
        for job in jobs:  # in order: the labels line up with the states
            out.append(job.result())
            if progress is not None:
                progress(len(out[-1]["entry"]))
        return {k: np.concatenate([o[k] for o in out]) for k in out[0]}
    noise = load_noise(tspec.noise)
    settings = load_settings(spec.game)
    out = []
    for a in range(0, len(batch), tspec.chunk):
        sub = batch.take(np.arange(a, min(len(batch), a + tspec.chunk)))
        out.append(_label_chunk(arena, sub, spec, tspec, student, rng, noise, settings))
        if progress is not None:
            progress(len(sub))
    return {k: np.concatenate([o[k] for o in out]) for k in out[0]}


def _label_part(arena: Any, spec: ExpertSpec, tspec: TeacherSpec, states: Any,
                net: ExpertNet | None, seed: int) -> dict[str, np.ndarray]:
    """One piece of :func:`teacher_labels` in a pool process (one torch thread; the arena
    and the network come pickled, so the piece plays by the caller's rules and weights)."""
    torch.set_num_threads(1)
    student = None if net is None else ExpertAgent(net, arena=arena)
    return teacher_labels(arena, states, spec, tspec, np.random.default_rng(seed), student)


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------


@dataclass
class TrainSpec:
    """Optimisation of :func:`train_net`.

    Attributes:
        steps: gradient steps. batch: positions per step (labelled and valued each).
        lr: Adam learning rate. w_q, w_res, w_value: weights of the entry-value, residual and
        game-value losses (the policy's cross-entropy has weight 1).
    """

    steps: int = 3000
    batch: int = 256
    lr: float = 1e-3
    w_q: float = 1.0
    w_res: float = 1.0
    w_value: float = 1.0

    def __post_init__(self) -> None:
        for name in ("steps", "batch"):
            object.__setattr__(self, name, check_int(f"train {name}", getattr(self, name)))
        object.__setattr__(self, "lr", finite_number("train lr", self.lr, positive=True))
        for name in ("w_q", "w_res", "w_value"):
            object.__setattr__(self, name, finite_number(f"train {name}", getattr(self, name),
                                                         nonneg=True))


def train_net(net: ExpertNet, labels: dict[str, np.ndarray], value_obs: np.ndarray,
              value_z: np.ndarray, tspec: TrainSpec, seed: int = 0) -> dict[str, float]:
    """Fit ``net`` (in place) on teacher ``labels`` (:func:`teacher_labels`, concatenated) and
    game results ``value_z`` (n,) of observations ``value_obs`` (n, obs_dim).

    Returns:
        the mean losses over the last tenth of the steps: ``ce``, ``q``, ``res``, ``value``
        and ``acc`` (share of batch positions where the policy picks the teacher's entry).
    """
    g = torch.Generator().manual_seed(int(seed))
    obs = torch.as_tensor(labels["obs"])
    feats = torch.as_tensor(labels["feats"])
    q = torch.as_tensor(labels["q"] / net.spec.q_scale)
    entry = torch.as_tensor(labels["entry"], dtype=torch.int64)
    res = torch.as_tensor(labels["res"] / RES_MAX)
    valid = torch.as_tensor(np.repeat(labels["feats"][:, :, 0] > 0, net.spec.menu.n_variants,
                                      axis=1))
    vo = torch.as_tensor(value_obs)
    vz = torch.as_tensor(value_z)
    opt = torch.optim.Adam(net.parameters(), lr=tspec.lr)
    net.train()
    n, nv = len(obs), len(vo)
    hist: list[list[float]] = []
    F = nn.functional
    for _ in range(int(tspec.steps)):
        i = torch.randint(0, n, (min(tspec.batch, n),), generator=g)
        j = torch.randint(0, nv, (min(tspec.batch, nv),), generator=g)
        logits, qh, rh = net(obs[i], feats[i])
        rows = torch.arange(len(i))
        l_ce = F.cross_entropy(logits, entry[i])
        ok = valid[i]
        l_q = F.smooth_l1_loss(qh[ok], q[i][ok])
        l_res = F.mse_loss(rh[rows, entry[i]] / RES_MAX, res[i])
        l_v = F.mse_loss(net.value(vo[j]), vz[j])
        loss = l_ce + tspec.w_q * l_q + tspec.w_res * l_res + tspec.w_value * l_v
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            acc = float((logits.argmax(1) == entry[i]).float().mean())
            hist.append([float(l_ce), float(l_q), float(l_res), float(l_v), acc])
    net.eval()
    tail = np.mean(hist[-max(1, len(hist) // 10):], axis=0)
    return dict(zip(("ce", "q", "res", "value", "acc"), map(float, tail), strict=True))


def fit_fresh(spec: ExpertSpec, labels: dict[str, np.ndarray], value_obs: np.ndarray,
              value_z: np.ndarray, tspec: TrainSpec, seed: int = 0
              ) -> tuple[ExpertNet, dict[str, float]]:
    """A new :class:`ExpertNet` of ``spec`` (torch seeded with ``seed``) fitted by
    :func:`train_net` on ``labels`` and the game results; returns it and the losses."""
    torch.manual_seed(int(seed))
    net = ExpertNet(spec)
    return net, train_net(net, labels, value_obs, value_z, tspec, seed=int(seed) + 1)


__all__ = ["RES_FIELDS", "RES_MAX", "ExpertAgent", "ExpertNet", "ExpertSpec", "TeacherSpec",
           "TrainSpec", "apply_residual", "collect_positions", "features", "fit_fresh", "load_net",
           "mean_values", "save_net", "teacher_labels", "train_net", "value_function"]
