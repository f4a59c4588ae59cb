"""Geometric-residual actions: a learned policy picks among the geometric aimer's shots and
corrects them.

Plain RL on the env's absolute action (aim anywhere in 360 degrees, any speed) has to discover
ghost-ball aiming from rewards alone; the published evidence (pix2pockets) is that it loses to a
simple geometric aimer. Residual RL starts from the aimer instead: for each position the
aimer's ``n_cand`` cheapest shots (:mod:`cuegym.agents.geometric`) are described in the
observation, and the action is

==========  =====================================================================
index       meaning
==========  =====================================================================
0..M-1      a score per candidate; the played candidate is ``argmax(score_k -
            prior * k)`` (candidates sorted by the aimer's cost, so the untrained
            policy plays the aimer's choice)
M           aim correction ``dphi * u`` [deg]
M+1         speed correction: V0 times ``exp(dlogv * u)``
M+2         top/back spin correction ``spin * u`` (added to the aimer's b)
M+3         side spin ``side * u``
M+4, M+5    keglebillard only: placement correction ``dplace * u`` [m] (ball in hand)
==========  =====================================================================

all in [-1, 1]. The observation is the env's, followed by ``n_cand`` blocks of
:data:`FEATURES` (see :func:`candidate_batch`). :class:`ResidualVecEnv` wraps an SB3 VecEnv of a
Shot env with this action and observation; :func:`residual_strikes` is the same map for agents
acting on rules states (``cuegym.agents.sb3_agent.SB3Agent``). Both games: golfbillard works in
the frame of the side to move (its attack goal at +x), as the env's observation does.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from cuegym.agents.base import Strikes, check_game

#: Candidate kinds per game (one-hot in the features; anything else counts as the last kind).
KINDS = {"keglebillard": ("king", "pin", "bank", "safe", "fallback"),
         "golfbillard": ("goal", "place", "advance", "defend", "fallback")}
#: Per-candidate features: valid, cost / 10, kind one-hot (5), cos phi, sin phi, V0 / 6, b,
#: placement x / (L/2), placement y / (W/2) (0 without placement), then the aimer's geometry
#: (``cuegym.agents.geometric.Candidates.feats``, 8 values).
FEATURES = ("valid", "cost", "kind0", "kind1", "kind2", "kind3", "kind4", "cos_phi", "sin_phi",
            "V0", "b", "place_x", "place_y", *(f"geo{k}" for k in range(8)))
N_FEAT = len(FEATURES)


@dataclass(frozen=True)
class ResidualSpec:
    """The residual action's ranges (see the module table).

    Attributes:
        game: ``keglebillard`` or ``golfbillard``.
        n_cand: candidates the policy chooses among (M).
        prior: score handicap per rank, so that zero scores pick the cheapest candidate.
        dphi: largest aim correction [deg]. dlogv: largest log speed factor.
        spin: largest b correction. side: largest side spin a. dplace: largest placement
            correction [m].
        spin0: the b the aimer's candidates are generated with.
        shaping: golfbillard training only: reward added per unit of change of the position
            value (own minus the opponent's chances,
            :meth:`~cuegym.agents.arena.GolfbillardArena.position_value`) over the stroke,
            which the one-stroke env's reward (goals only) does not see.
    """

    game: str = "keglebillard"
    n_cand: int = 6
    prior: float = 0.25
    dphi: float = 2.0
    dlogv: float = 0.5
    spin: float = 0.4
    side: float = 0.3
    dplace: float = 0.08
    spin0: float = -0.4
    shaping: float = 0.0

    def __post_init__(self) -> None:
        check_game(self.game)
        if self.n_cand < 1:
            raise ValueError(f"n_cand must be >= 1, got {self.n_cand}")

    @property
    def act_dim(self) -> int:
        return self.n_cand + (6 if self.game == "keglebillard" else 4)

    @property
    def extra_obs(self) -> int:
        return self.n_cand * N_FEAT

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _kind_codes(game: str) -> np.ndarray:
    """Index into ``KINDS[game]`` of each aimer label code: keglebillard codes are
    ``TARGET_LABELS`` indices shifted by one (0: the fallback), golfbillard ``GOLF_LABELS``
    indices; pins are one kind; an unknown kind counts as the last."""
    from cuegym.agents.geometric_golf import GOLF_LABELS
    from cuegym.agents.geometric_kegle import TARGET_LABELS

    labels = ("fallback", *TARGET_LABELS) if game == "keglebillard" else GOLF_LABELS
    kinds = KINDS[game]
    names = ["pin" if name.startswith("pin") else name for name in labels]
    return np.array([kinds.index(n) if n in kinds else len(kinds) - 1 for n in names], np.int64)


def candidate_batch(arena: Any, states: Any, spec: ResidualSpec) -> tuple[Strikes, np.ndarray]:
    """The ``n_cand`` cheapest geometric candidates of each of T states (a batch or state
    values; the aimer runs once for all of them), padded by repeating the cheapest and marked
    invalid, with their features.

    Returns:
        the candidates as ``T * n_cand`` strikes, state-major (candidate k of state t at row
        ``t * n_cand + k``, :func:`block_rows`), and their features ``(T, n_cand, N_FEAT)``
        (:data:`FEATURES`).
    """
    from cuegym.agents.geometric_golf import golf_candidates_batch
    from cuegym.agents.geometric_kegle import kegle_candidates_batch

    if spec.game == "keglebillard":
        cb = kegle_candidates_batch(arena, states, spins=(spec.spin0,))
        kind = _kind_codes(spec.game)[cb.label + 1]
        ball, place = np.zeros(cb.cost.shape, np.int64), cb.place
    else:
        cb = golf_candidates_batch(arena, states, spins=(0.0,))
        kind = _kind_codes(spec.game)[cb.label]
        ball, place = cb.ball, np.full((*cb.cost.shape, 2), np.nan)
    T, K = cb.cost.shape
    M = spec.n_cand
    # the used slots by cost (stable: ties keep the aimer's order), then the unused ones
    order = np.lexsort((cb.cost, np.arange(K)[None] >= cb.count[:, None]), axis=-1)[:, :M]
    valid = np.arange(M)[None] < np.minimum(cb.count, M)[:, None]
    order = np.pad(order, ((0, 0), (0, M - order.shape[1])), mode="edge")
    idx = np.where(valid, order, order[:, :1])
    rows = np.arange(T)[:, None]
    cue = cb.cue[rows, idx]
    place = place[rows, idx]
    half = np.array([arena.table.length / 2, arena.table.width / 2])
    f = np.zeros((T, M, N_FEAT))
    f[:, :, 0] = valid
    f[:, :, 1] = np.clip(cb.cost[rows, idx] / 10.0, 0.0, 5.0)
    f[rows, np.arange(M)[None], 2 + kind[rows, idx]] = 1.0
    phi = np.radians(cue[:, :, 1])
    f[:, :, 7] = np.cos(phi)
    f[:, :, 8] = np.sin(phi)
    f[:, :, 9] = cue[:, :, 0] / 6.0
    f[:, :, 10] = cue[:, :, 4]
    f[:, :, 11:13] = np.nan_to_num(place / half)
    f[:, :, 13:13 + cb.feats.shape[2]] = cb.feats[rows, idx]
    return Strikes(cue.reshape(T * M, 5), ball[rows, idx].reshape(T * M),
                   place.reshape(T * M, 2)), f


def block_rows(states: np.ndarray, n_cand: int) -> np.ndarray:
    """Rows of the candidate blocks of ``states`` (indices into the T states, repeats allowed)
    in :func:`candidate_batch`'s state-major strikes."""
    return (np.asarray(states, np.int64)[:, None] * n_cand + np.arange(n_cand)[None]).reshape(-1)


def candidate_block(arena: Any, state: Any, spec: ResidualSpec) -> tuple[Strikes, np.ndarray]:
    """The ``n_cand`` cheapest geometric candidates of one state (padded by repeating the best,
    marked invalid) and their features ``(n_cand, N_FEAT)``."""
    strikes, feats = candidate_batch(arena, [state], spec)
    return strikes, feats[0]


def residual_strikes(cands: Strikes, feats: np.ndarray, actions: np.ndarray,
                     spec: ResidualSpec, states: Any = None,
                     arena: Any = None) -> Strikes:
    """Map residual actions ``(T, act_dim)`` onto strikes, given the T states' candidate
    blocks (:func:`candidate_batch`: ``T * n_cand`` strikes, features ``(T, n_cand, N_FEAT)``).

    Keglebillard placements that the correction makes unplayable (K-19) fall back to the
    candidate's own placement when ``states`` and ``arena`` are given.
    """
    T, M = feats.shape[:2]
    a = np.clip(np.asarray(actions, np.float64).reshape(T, spec.act_dim), -1.0, 1.0)
    valid = feats[:, :, 0] > 0
    score = a[:, :M] - spec.prior * np.arange(M)[None]
    score = np.where(valid, score, -np.inf)
    out = cands.take(np.arange(T) * M + np.argmax(score, axis=1))
    out.cue[:, 1] += spec.dphi * a[:, M]
    out.cue[:, 0] *= np.exp(spec.dlogv * a[:, M + 1])
    out.cue[:, 4] += spec.spin * a[:, M + 2]
    out.cue[:, 3] += spec.side * a[:, M + 3]
    if spec.game == "keglebillard":
        has = ~np.isnan(out.place[:, 0])
        moved = out.place + spec.dplace * a[:, M + 4:M + 6]
        if states is not None and arena is not None and has.any():
            from cuegym.games.kegle_state import HAND_SALVO

            batch = arena.g.batch(states)
            ok = arena.placement_ok(batch, np.where(has[:, None], moved, 0.0))
            ok &= (batch.hand != HAND_SALVO) | (moved[:, 0] <= arena.salvo_x)
            moved = np.where(ok[:, None], moved, out.place)
        out.place = np.where(has[:, None], moved, out.place)
    return out.clipped()


def in_action_range(strikes: Strikes, action: Any) -> Strikes:
    """The strikes as the env's action map can express them (``action``: the env settings'
    :class:`~cuegym.envs.config.ActionSpec`): V0 and theta clipped to their ranges, ``a`` and
    ``b`` to +-spin. Demonstrations and agents playing rules states use it, so that a shot
    means the same in training (through the env) and in play."""
    out = strikes.take(slice(None))
    out.cue[:, 0] = np.clip(out.cue[:, 0], *action.V0)
    out.cue[:, 2] = np.clip(out.cue[:, 2], *action.theta)
    out.cue[:, 3:5] = np.clip(out.cue[:, 3:5], -action.spin, action.spin)
    return out


# ---------------------------------------------------------------------------------------------
# States from env observations (the Shot envs hold their positions; we read them back)
# ---------------------------------------------------------------------------------------------


def kegle_states_from_obs(obs: np.ndarray, arena: Any) -> Any:
    """A two-player :class:`~cuegym.games.kegle_state.KegleStates` batch (T tables, 0 : 0,
    player 0 to shoot) from keglebillard env observations ``(T, OBS_DIM)`` (``envs/kegle.py``
    layout: ball x, y / (L/2, W/2), on-table flags, pins, in-hand flags)."""
    from cuegym.games.kegle_obs import OBS_INDEX as I
    from cuegym.games.kegle_state import HAND_CLOTH, HAND_NONE, HAND_SALVO, empty_states

    o = np.asarray(obs, np.float64).reshape(len(obs), -1)
    out = empty_states(len(o), 2)
    half = np.array([arena.table.length / 2, arena.table.width / 2])
    for b, name in enumerate(("red", "white", "spotted")):
        on = o[:, I[f"{name}_on_table"]] > 0.5
        xy = o[:, [I[f"{name}_x"], I[f"{name}_y"]]] * half
        out.xy[:, b] = np.where(on[:, None], xy, np.nan)
    out.pins[:] = o[:, [I[k] for k in ("king_up", "pin1_up", "pin2_up", "pin3_up",
                                       "pin4_up")]] > 0.5
    in_hand = o[:, I["red_in_hand"]] > 0.5
    salvo = o[:, I["in_hand_behind_salvo_line"]] > 0.5
    # a finished table (terminal) without the red: any consistent state will do
    out.hand[:] = np.where(in_hand, np.where(salvo, HAND_SALVO, HAND_CLOTH),
                           np.where(np.isnan(out.xy[:, 0, 0]), HAND_CLOTH, HAND_NONE))
    out.xy[in_hand, 0] = np.nan
    out.shot[:] = 1
    return out


def golf_states_from_obs(obs: np.ndarray, arena: Any) -> Any:
    """A :class:`~cuegym.rules.golf_arrays.GolfStates` batch in the mover's frame (the mover
    is side 0 there, in play) from golfbillard env observations ``(T, OBS_DIM)``
    (``envs/golf.py`` layout: own balls then the opponent's, x, y / (L/2, W/2) in the side's
    frame, on-table flags; kader; duty flags)."""
    from cuegym.games.golf_obs import OBS_INDEX as I
    from cuegym.rules.golf_arrays import empty_states
    from cuegym.rules.golf_codes import P_PLAY

    o = np.asarray(obs, np.float64).reshape(len(obs), -1)
    out = empty_states(len(o))
    half = np.array([arena.table.length / 2, arena.table.width / 2])
    balls = [f"own{j}" for j in range(1, 6)] + [f"opp{j}" for j in range(1, 6)]
    on = o[:, [I[f"{b}_on_table"] for b in balls]] > 0.5
    xy = np.stack([o[:, [I[f"{b}_x"] for b in balls]], o[:, [I[f"{b}_y"] for b in balls]]],
                  axis=-1) * half
    out.xy[:] = np.where(on[:, :, None], xy, np.nan)
    # a finished table: keep one own ball for the aimer
    out.xy[~on[:, :5].any(axis=1), 0] = (0.0, 0.3)
    out.phase[:] = P_PLAY
    out.kader[:] = o[:, I["kader"]] > 0.5
    out.duty[:, :5] = o[:, [I[f"own{j}_duty"] for j in range(1, 6)]] > 0.5
    out.winner[:] = -1
    out.match_winner[:] = -1
    return out


def golf_frame_state(state: Any) -> Any:
    """A golfbillard state seen by its side to move: turned by 180 degrees for side 1 and the
    balls reordered own first, so that the mover is side 0 attacking +x."""
    s = int(state.to_move)
    st = state.copy()
    order = (np.arange(10) + 5 * s) % 10
    f = 1.0 - 2.0 * s
    st.xy = state.xy[order] * f
    st.duty = np.asarray(state.duty)[order]
    st.on_spot = np.asarray(state.on_spot)[order]
    st.to_move = 0
    return st


def golf_frame_states(states: Any) -> Any:
    """:func:`golf_frame_state` of every table of a ``GolfStates`` batch, as one batch."""
    s = np.asarray(states.to_move, np.int64)
    order = (np.arange(10)[None] + 5 * s[:, None]) % 10
    rows = np.arange(len(s))[:, None]
    out = states.copy()
    out.xy = states.xy[rows, order] * (1.0 - 2.0 * s)[:, None, None]
    out.duty = states.duty[rows, order]
    out.on_spot = states.on_spot[rows, order]
    out.to_move = np.zeros_like(states.to_move)
    return out


def golf_from_frame(strikes: Strikes, sides: np.ndarray) -> Strikes:
    """Strikes computed in the mover's frame back to the table: phi + 180 deg and own ball k
    -> ball 5 side + k for side 1."""
    out = strikes.take(slice(None))
    s = np.asarray(sides, np.int64)
    out.cue[:, 1] = np.mod(out.cue[:, 1] + 180.0 * s + 180.0, 360.0) - 180.0
    out.cue_ball = (out.cue_ball + 5 * s) % 10
    return out


# ---------------------------------------------------------------------------------------------
# Env actions from strikes (the inverse of the env's action map)
# ---------------------------------------------------------------------------------------------


def env_actions(game: str, strikes: Strikes, states: Any, arena: Any,
                settings: Any = None) -> np.ndarray:
    """The env's flat action (``envs/kegle.py``, ``envs/golf.py``) that plays ``strikes``
    (T strikes for T states: a batch or per-table state values).

    Keglebillard: strike, then the placement mapped into the in-hand area. Golfbillard (states
    and strikes in the mover's frame): strike with phi in the frame, then the struck ball's
    position as the selection point.
    """
    from cuegym.envs.actions import actions_from_strikes
    from cuegym.envs.config import load_settings

    settings = settings or load_settings(game)
    batch = arena.g.batch(states)
    T = len(strikes)
    a = np.zeros((T, 7))
    a[:, :5] = actions_from_strikes(strikes.cue, settings.action)
    if game == "keglebillard":
        from cuegym.games.kegle_state import HAND_NONE, HAND_SALVO

        hx, hy = arena.hx, arena.hy
        placed = (batch.hand != HAND_NONE) & ~np.isnan(strikes.place[:, 0])
        x_hi = np.where(batch.hand == HAND_SALVO, arena.salvo_x, hx)
        x, y = strikes.place[:, 0], strikes.place[:, 1]
        a[:, 5] = np.where(placed, 2.0 * (x + hx) / (x_hi + hx) - 1.0, 0.0)
        a[:, 6] = np.where(placed, 2.0 * (y + hy) / (2 * hy) - 1.0, 0.0)
    else:
        half = np.array([arena.table.length / 2, arena.table.width / 2])
        p = batch.xy[np.arange(T), np.asarray(strikes.cue_ball, np.int64)]
        a[:, 5:7] = np.nan_to_num(p / half)
    return np.clip(a, -1.0, 1.0).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# The SB3 VecEnv wrapper
# ---------------------------------------------------------------------------------------------


def _vec_wrapper_base():
    from stable_baselines3.common.vec_env import VecEnvWrapper

    return VecEnvWrapper


class ResidualVecEnv(_vec_wrapper_base()):
    """An SB3 VecEnv of a cuegym **Shot** env with the residual action and the candidate
    features appended to the observation (see the module doc).

    Args:
        venv: ``cuegym.envs.make_sb3_vec_env("cuegym/KeglebillardShot-v0" | ...)``.
        spec: the :class:`ResidualSpec` (its ``game`` must match the env).
        settings: the env's settings (for the action ranges); default: the shipped ones.
    """

    def __init__(self, venv: Any, spec: ResidualSpec, settings: Any = None) -> None:
        import gymnasium as gym

        from cuegym.agents.arena import make_arena

        self.rspec = spec  # (not `spec`: VecEnv wrappers expose the env spec there)
        from cuegym.envs.config import load_settings

        self.arena = make_arena(spec.game)
        # read once: env_actions would otherwise parse the YAML on every step
        self.settings = settings if settings is not None else load_settings(spec.game)
        base = venv.observation_space
        low = np.concatenate([base.low, np.full(spec.extra_obs, -5.0, np.float32)])
        high = np.concatenate([base.high, np.full(spec.extra_obs, 5.0, np.float32)])
        obs_space = gym.spaces.Box(low.astype(np.float32), high.astype(np.float32),
                                   dtype=np.float32)
        act_space = gym.spaces.Box(-1.0, 1.0, (spec.act_dim,), np.float32)
        super().__init__(venv, observation_space=obs_space, action_space=act_space)
        self._states: Any = None  # the rules states of the current observations (a batch)
        self._cands = Strikes.empty(0)
        self._feats = np.zeros((venv.num_envs, spec.n_cand, N_FEAT))

    def _augment(self, obs: np.ndarray) -> np.ndarray:
        game = self.rspec.game
        if game == "keglebillard":
            self._states = kegle_states_from_obs(obs, self.arena)
        else:
            self._states = golf_states_from_obs(obs, self.arena)
        self._cands, self._feats = candidate_batch(self.arena, self._states, self.rspec)
        return np.concatenate([obs, self._feats.reshape(len(obs), -1)], axis=1).astype(
            np.float32)

    def reset(self) -> np.ndarray:
        return self._augment(self.venv.reset())

    def step_async(self, actions: np.ndarray) -> None:
        strikes = residual_strikes(self._cands, self._feats, actions, self.rspec, self._states,
                                   self.arena)
        self.venv.step_async(env_actions(self.rspec.game, strikes, self._states, self.arena,
                                         self.settings))

    def _position(self, states: Any) -> np.ndarray:
        """(T,) golfbillard position value of a batch of mover-frame states: own (side 0)
        minus the opponent's."""
        side = np.zeros(len(states), np.int64)
        return (self.arena.position_values(states.xy, side)
                - self.arena.position_values(states.xy, side + 1))

    def step_wait(self):
        before = self._states
        obs, rew, done, infos = self.venv.step_wait()
        pad = np.zeros(self.rspec.extra_obs, np.float32)
        shaping = self.rspec.shaping if self.rspec.game == "golfbillard" else 0.0
        rew = np.asarray(rew, np.float32).copy()
        ended = [t for t, info in enumerate(infos) if info.get("terminal_observation") is not None]
        if ended and shaping:
            terms = np.stack([infos[t]["terminal_observation"] for t in ended])
            delta = (self._position(golf_states_from_obs(terms, self.arena))
                     - self._position(before.take(np.array(ended))))
            for t, d in zip(ended, delta, strict=True):
                infos[t]["position_shaping"] = shaping * float(d)
                rew[t] += shaping * float(d)
        for t in ended:
            # one-shot episodes end (terminated): candidate features are not needed
            infos[t]["terminal_observation"] = np.concatenate(
                [infos[t]["terminal_observation"], pad]).astype(np.float32)
        return self._augment(obs), rew, done, infos


def angle_wrap(deg: np.ndarray) -> np.ndarray:
    """Degrees wrapped to [-180, 180)."""
    return np.mod(np.asarray(deg) + 180.0, 360.0) - 180.0


__all__ = ["FEATURES", "KINDS", "N_FEAT", "ResidualSpec", "ResidualVecEnv", "angle_wrap",
           "block_rows", "candidate_batch", "candidate_block", "env_actions", "golf_frame_state",
           "golf_frame_states", "golf_from_frame", "golf_states_from_obs", "in_action_range",
           "kegle_states_from_obs", "residual_strikes"]
