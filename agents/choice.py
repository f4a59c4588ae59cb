"""Discrete shot choice: a learned Q-function picks one of the geometric aimer's shots, each in
a few spin and speed variants.

The residual action (:mod:`cuegym.agents.residual`) leaves spin and speed to continuous
corrections, which a Gaussian policy finds hard to use where the best choice is one of two
far-apart options (draw the red back *or* follow through). Here the action is one index into
a fixed menu:

    action = (candidate k, spin variant i, speed variant j),   k < n_cand, i < len(spins),
    j < len(speeds),  index = (k * len(spins) + i) * len(speeds) + j

Candidate k is the aimer's k-th cheapest shot (:func:`~cuegym.agents.residual.candidate_batch`,
the same candidate features are appended to the observation); the variant replaces its top/back
spin ``b`` by ``spins[i]`` and scales its cue speed by ``speeds[j]``, after first rescaling it so
that the red leaves the cue at the speed the aimer wanted whatever the spin (the cue speed a
tip offset ``b`` needs grows with ``1 + m/M + 5/2 b^2``, ``physics.resolve`` strike model).
A padded (invalid) candidate plays candidate 0 in the same variant.

A value-based learner (SB3 DQN with ``gamma = 0``: each episode is one decision, so Q(s, a) is
the expected reward of the shot) fits this action; ``cuegym.agents.demos.choice_demos``
simulates every menu entry of many positions under the shot noise and gives the Q-network a
regression target for all of them at once before online learning.

With the keglebillard defaults (4 candidates x 3 spins x 3 speeds = 36 actions), picking the
best menu entry with the expected values known fouls on about 5 % of shots at about 7 points per
shot, against 12 % and 5.3 points for the best of 6 candidates as the aimer plays them (768
positions of the Shot env bank, 16 noise samples each).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from cuegym.agents.base import Strikes, check_game
from cuegym.agents.residual import N_FEAT, ResidualSpec, ResidualVecEnv, env_actions


@dataclass(frozen=True)
class ChoiceSpec:
    """The discrete menu (see the module doc).

    Attributes:
        game: ``keglebillard`` or ``golfbillard``.
        n_cand: geometric candidates in the menu (their features go into the observation).
        spins: top/back spin ``b`` variants (tip offset / R; negative = draw).
        speeds: cue-speed factors, applied after the spin rescaling.
        spin0: the ``b`` the aimer's candidates are generated with.
    """

    game: str = "keglebillard"
    n_cand: int = 4
    spins: tuple[float, ...] = (-0.4, 0.0, 0.3)
    speeds: tuple[float, ...] = (0.75, 1.0, 1.35)
    spin0: float = -0.4

    def __post_init__(self) -> None:
        check_game(self.game)
        object.__setattr__(self, "spins", tuple(float(b) for b in self.spins))
        object.__setattr__(self, "speeds", tuple(float(s) for s in self.speeds))
        if self.n_cand < 1:
            raise ValueError(f"n_cand must be >= 1, got {self.n_cand}")
        if not self.spins or not self.speeds:
            raise ValueError("spins and speeds need at least one value each")
        bad = [b for b in self.spins if not -0.9 <= b <= 0.9]
        if bad:
            raise ValueError(f"spins must lie in [-0.9, 0.9] (tip offset / R), got {bad}")
        bad = [s for s in self.speeds if not 0.2 <= s <= 3.0]
        if bad:
            raise ValueError(f"speeds must lie in [0.2, 3.0] (factors), got {bad}")

    @property
    def n_variants(self) -> int:
        return len(self.spins) * len(self.speeds)

    @property
    def n_actions(self) -> int:
        return self.n_cand * self.n_variants

    @property
    def extra_obs(self) -> int:
        return self.n_cand * N_FEAT

    def candidate_spec(self) -> ResidualSpec:
        """The residual spec whose candidate block (``candidate_block``) this menu is built on:
        the same candidates and features as the residual action."""
        return ResidualSpec(game=self.game, n_cand=self.n_cand, spin0=self.spin0)

    def decode(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(candidate, spin index, speed index) of each action index."""
        a = np.asarray(actions, np.int64).reshape(-1)
        if a.size and (a.min() < 0 or a.max() >= self.n_actions):
            bad = a[(a < 0) | (a >= self.n_actions)][0]
            raise ValueError(f"choice action {bad} out of range [0, {self.n_actions})")
        nsp = len(self.speeds)
        return a // self.n_variants, (a // nsp) % len(self.spins), a % nsp

    def as_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["spins"], out["speeds"] = list(self.spins), list(self.speeds)
        return out


def menu_strikes(block: Strikes, valid: np.ndarray, actions: np.ndarray, spec: ChoiceSpec,
                 mass_ratio: float) -> Strikes:
    """Strikes of menu entries, batched: ``actions`` (T,) or (T, n) entries per state.

    Args:
        block: the T states' candidate blocks (T * n_cand strikes, state-major, as
            ``candidate_batch`` pads them).
        valid: (T, n_cand) bool, the candidate is real (not padding); a padded candidate plays
            candidate 0 in the same variant.
        actions: (T,) or (T, n) menu indices.
        mass_ratio: cue mass / ball mass (``PhysicsParams.m / M``) for the spin rescaling.

    Returns:
        T * n strikes, state-major (entry ``actions[t, e]`` of state t at row ``t * n + e``).
    """
    valid = np.asarray(valid, bool)
    T, M = valid.shape
    if M != spec.n_cand or len(block) != T * M:
        raise ValueError(f"candidate blocks of {len(block)} strikes and a validity mask "
                         f"{valid.shape} do not match {T} states of n_cand={spec.n_cand}")
    a = np.asarray(actions, np.int64).reshape(T, -1)
    k, i, j = spec.decode(a.reshape(-1))
    st = np.repeat(np.arange(T), a.shape[1])
    k = np.where(valid[st, k], k, 0)
    out = block.take(st * M + k)
    b_old = out.cue[:, 4]
    b_new = np.asarray(spec.spins)[i]
    out.cue[:, 0] *= ((1.0 + mass_ratio + 2.5 * b_new ** 2) / (1.0 + mass_ratio + 2.5 * b_old ** 2)
                      * np.asarray(spec.speeds)[j])
    out.cue[:, 4] = b_new
    return out.clipped()


def choice_strikes(cands: Strikes, feats: np.ndarray, actions: np.ndarray,
                   spec: ChoiceSpec, mass_ratio: float) -> Strikes:
    """Strikes of menu entries ``actions`` (T,) given the T states' candidate blocks
    (:func:`menu_strikes` on the blocks as ``candidate_batch`` returns them).

    Args:
        cands: T * n_cand candidate strikes, state-major (``candidate_batch``).
        feats: (T, n_cand, N_FEAT) candidate features (column 0: valid).
        mass_ratio: cue mass / ball mass (``PhysicsParams.m / M``) for the spin rescaling.
    """
    T = len(feats)
    n = np.asarray(actions).size
    if n != T:
        raise ValueError(f"{n} actions for {T} states")
    return menu_strikes(cands, feats[:, :, 0] > 0, actions, spec, mass_ratio)


class ChoiceVecEnv(ResidualVecEnv):
    """An SB3 VecEnv of a cuegym **Shot** env with the discrete menu action
    (``gymnasium.spaces.Discrete(spec.n_actions)``) and the candidate features appended to the
    observation, as :class:`~cuegym.agents.residual.ResidualVecEnv` does.

    Args:
        venv: ``cuegym.envs.make_sb3_vec_env("cuegym/KeglebillardShot-v0" | ...)``.
        spec: the :class:`ChoiceSpec` (its ``game`` must match the env).
        settings: the env's settings (for the action ranges); default: the shipped ones.
    """

    def __init__(self, venv: Any, spec: ChoiceSpec, settings: Any = None) -> None:
        import gymnasium as gym

        # the parent builds the observation space and candidate blocks
        super().__init__(venv, spec.candidate_spec(), settings)
        self.cspec = spec
        self.action_space = gym.spaces.Discrete(spec.n_actions)
        self.mass_ratio = self.arena.params.m / self.arena.params.M

    def step_async(self, actions: np.ndarray) -> None:
        strikes = choice_strikes(self._cands, self._feats, actions, self.cspec, self.mass_ratio)
        self.venv.step_async(env_actions(self.rspec.game, strikes, self._states, self.arena,
                                         self.settings))


__all__ = ["ChoiceSpec", "ChoiceVecEnv", "choice_strikes", "menu_strikes"]
