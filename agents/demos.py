"""Planner demonstrations for off-policy training (SAC / TD3 from demonstrations).

For positions drawn from a Shot env, the sampling planner's search is run *inside the residual
action space* (:mod:`cuegym.agents.residual`): for each position, ``per_state`` residual actions
(each of the ``n_cand`` geometric candidates, unchanged and with random corrections) are
simulated under ``noise_samples`` draws of the env's shot noise in one batched physics call and
scored with the env's own reward weights. Every (observation, action, mean reward) triple is a
transition for the replay buffer (one-decision episodes: the next observation is never used), and
the best action of each position is a label for behaviour cloning. ``experiments/train.py``
uses both before online learning (config key ``demos``).

For the discrete menu action (:mod:`cuegym.agents.choice`, DQN), :func:`choice_demos` simulates
*every* menu entry of each position under ``noise_samples`` noise draws, which gives the
Q-network a target for all its outputs at once (:func:`pretrain_q`): with one-decision
episodes (``gamma = 0``) Q(s, a) is the expected reward, so this is plain regression.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cuegym.agents.base import ShotNoise, Strikes, load_noise
from cuegym.agents.residual import ResidualSpec, block_rows, in_action_range, residual_strikes


def reward_terms(arena: Any, states: Any, strikes: Strikes, spec: ResidualSpec
                 ) -> dict[str, np.ndarray]:
    """The env's reward terms of each strike played from its state (nothing is advanced).

    Keglebillard: ``points`` (credited to the shooter), ``skaeve``, ``foul``, ``win``; an
    unplayable placement (K-19) is a foul handing over 6. Golfbillard (states in the mover's
    frame, the mover is side 0): ``own_goals``, ``opponent_goals``, ``foul`` and ``position``
    (the change of :meth:`GolfbillardArena.position_value`, own minus the opponent's).
    """
    T = len(states)
    if spec.game == "keglebillard":
        g = arena.g
        out, _ = g.play(g.batch(states), strikes, max_events=arena.max_events,
                        t_max=arena.t_max, allow_overflow=True)
        return g.reward_terms(out, None)[0]
    res, _ = arena.outcomes(states, strikes)
    xy0 = arena.g.batch(states).xy
    zero, one = np.zeros(T, np.int64), np.ones(T, np.int64)

    def own_minus_opponent(xy: np.ndarray) -> np.ndarray:
        return arena.position_values(xy, zero) - arena.position_values(xy, one)

    return {"own_goals": res.scored[:, 0].astype(np.float64),
            "opponent_goals": res.scored[:, 1].astype(np.float64),
            "foul": res.foul.astype(np.float64),
            "position": own_minus_opponent(res.xy) - own_minus_opponent(xy0)}


def env_reward(game: str, terms: Mapping[str, np.ndarray], weights: Any,
               shaping: float = 0.0) -> np.ndarray:
    """The Shot env's reward from :func:`reward_terms` (``weights``: the env's reward config,
    ``cuegym.envs.config.load_reward``), plus the residual wrapper's golfbillard shaping."""
    if game == "keglebillard":
        from cuegym.games.kegle import Kegle

        return Kegle.total(terms, weights)
    return (weights.own_goals * terms["own_goals"]
            + weights.opponent_goals * terms["opponent_goals"] + weights.foul * terms["foul"]
            + shaping * terms["position"])


def mean_rewards(arena: Any, rep_states: Any, strikes: Strikes, spec: Any, weights: Any,
                 shot_noise: ShotNoise, K: int, per_state: int, rng: np.random.Generator,
                 shaping: float = 0.0) -> np.ndarray:
    """The env's reward of each strike, averaged over ``K`` draws of ``shot_noise``.

    ``strikes`` come in blocks of ``per_state`` per position (``rep_states``: the position of
    each, a batch or state values); all strikes of a block meet the same ``K`` draws (common
    random numbers), so they are compared on equal luck. Returns (len(strikes),) mean rewards.
    """
    z = rng.standard_normal((len(strikes) // per_state, K, 5))
    cue = shot_noise.sample(strikes.cue, K, rng, z=np.repeat(z, per_state, axis=0))
    noisy = Strikes(cue.reshape(-1, 5), np.repeat(strikes.cue_ball, K),
                    np.repeat(strikes.place, K, axis=0))
    batch = arena.g.batch(rep_states)
    terms = reward_terms(arena, batch.take(np.repeat(np.arange(len(batch)), K)), noisy, spec)
    return env_reward(spec.game, terms, weights, shaping).reshape(-1, K).mean(1)


def demo_actions(spec: ResidualSpec, valid: np.ndarray, per_state: int, jitter: float,
                 rng: np.random.Generator) -> np.ndarray:
    """(per_state, act_dim) residual actions for one position: each valid candidate once
    unchanged, then random candidates with Gaussian corrections (``jitter`` in action units)."""
    M = spec.n_cand
    cand = np.flatnonzero(valid)
    if cand.size == 0:
        cand = np.array([0])
    A = np.zeros((per_state, spec.act_dim))
    k = np.concatenate([cand, rng.choice(cand, max(per_state - len(cand), 0))])[:per_state]
    A[:, :M] = -1.0
    A[np.arange(per_state), k] = 1.0
    n0 = min(len(cand), per_state)
    A[n0:, M:] = np.clip(rng.normal(0.0, jitter, (per_state - n0, spec.act_dim - M)), -1, 1)
    return A


def planner_demos(renv: Any, n_states: int, *, per_state: int = 32, noise_samples: int = 4,
                  jitter: float = 0.35, noise: Any = "tournament", reward: Any = None,
                  seed: int = 0, progress: bool = False
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Demonstrations from ``n_states`` positions of the residual env ``renv``.

    Args:
        renv: a :class:`~cuegym.agents.residual.ResidualVecEnv` (its ``reset`` draws positions).
        per_state: residual actions tried per position. noise_samples: noise draws each.
        jitter: standard deviation of the random corrections (action units).
        noise: the env's shot noise (a preset name or scale, :class:`ShotNoise`).
        reward: the env's reward weights (None: the shipped ones).

    Returns:
        (obs (S*N, D), actions (S*N, A), mean rewards (S*N,), best (S,) index of each
        position's best action within its block of N).
    """
    from cuegym.envs.config import load_reward

    spec = renv.rspec
    weights = load_reward(spec.game, reward)
    shot_noise = load_noise(noise)
    rng = np.random.default_rng(seed)
    N, K = int(per_state), int(noise_samples)
    obs_l, act_l, rew_l, best_l = [], [], [], []
    done = 0
    from tqdm.auto import tqdm

    bar = tqdm(total=n_states, desc="demonstrations", unit="pos", disable=not progress)
    while done < n_states:
        obs = renv.reset()
        S = min(len(obs), n_states - done)
        states, feats = renv._states.take(np.arange(S)), renv._feats[:S]
        A = np.concatenate([demo_actions(spec, feats[t, :, 0] > 0, N, jitter, rng)
                            for t in range(S)])
        rep_states = states.take(np.repeat(np.arange(S), N))
        rows = block_rows(np.repeat(np.arange(S), N), spec.n_cand)  # N times each block
        strikes = in_action_range(residual_strikes(renv._cands.take(rows),
                                                   np.repeat(feats, N, axis=0), A, spec,
                                                   rep_states, renv.arena),
                                  renv.settings.action)
        r = mean_rewards(renv.arena, rep_states, strikes, spec, weights, shot_noise, K, N, rng,
                         spec.shaping)
        obs_l.append(np.repeat(obs[:S], N, axis=0))
        act_l.append(A)
        rew_l.append(r)
        best_l.append(r.reshape(S, N).argmax(1))
        done += S
        bar.update(S)
    bar.close()
    return (np.concatenate(obs_l).astype(np.float32), np.concatenate(act_l).astype(np.float32),
            np.concatenate(rew_l).astype(np.float32), np.concatenate(best_l))


def choice_demos(cenv: Any, n_states: int, *, noise_samples: int = 4, noise: Any = "tournament",
                 reward: Any = None, seed: int = 0, chunk: int = 32, progress: bool = False
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Mean rewards of every menu entry of ``n_states`` positions of ``cenv``.

    Args:
        cenv: a :class:`~cuegym.agents.choice.ChoiceVecEnv` (its ``reset`` draws positions).
        noise_samples: shot-noise draws per entry (common to all entries of a position, so
            entries are compared on equal luck). chunk: positions per physics call.
        noise, reward, seed: as in :func:`planner_demos`.

    Returns:
        (obs (S, D) float32, mean rewards (S, n_actions) float32).
    """
    from cuegym.agents.choice import menu_strikes
    from cuegym.envs.config import load_reward

    spec = cenv.cspec
    weights = load_reward(spec.game, reward)
    shot_noise = load_noise(noise)
    rng = np.random.default_rng(seed)
    A, K = spec.n_actions, int(noise_samples)
    if K < 1:
        raise ValueError(f"noise_samples must be >= 1, got {noise_samples}")
    menu = np.arange(A)
    obs_l, q_l = [], []
    done = 0
    from tqdm.auto import tqdm

    bar = tqdm(total=n_states, desc="demonstrations", unit="pos", disable=not progress)
    while done < n_states:
        obs = cenv.reset()
        S = min(len(obs), n_states - done)
        for a in range(0, S, chunk):
            b = min(S, a + chunk)
            n = b - a
            rep_states = cenv._states.take(np.repeat(np.arange(a, b), A))
            # every menu entry of each state: (n, A) actions, n * A strikes state-major
            strikes = in_action_range(
                menu_strikes(cenv._cands.take(block_rows(np.arange(a, b), spec.n_cand)),
                             cenv._feats[a:b, :, 0] > 0, np.tile(menu, (n, 1)), spec,
                             cenv.mass_ratio), cenv.settings.action)
            q_l.append(mean_rewards(cenv.arena, rep_states, strikes, spec, weights, shot_noise,
                                    K, A, rng).reshape(n, A))
        obs_l.append(obs[:S])
        done += S
        bar.update(S)
    bar.close()
    return np.concatenate(obs_l).astype(np.float32), np.concatenate(q_l).astype(np.float32)


def pretrain_q(model: Any, obs: np.ndarray, q: np.ndarray, *, steps: int = 4000,
               batch_size: int = 256, lr: float | None = None, seed: int = 0) -> float:
    """Regress a DQN's Q-network on the mean rewards of every action (:func:`choice_demos`);
    the target network is synchronised after. ``lr``: learning rate for this regression
    (default: the model's); the model's own is restored after. Returns the final loss."""
    import torch
    import torch.nn.functional as F

    rng = np.random.default_rng(seed)
    dev = model.device
    ob = torch.as_tensor(obs, device=dev)
    tg = torch.as_tensor(q, device=dev)
    net = model.q_net
    opt = model.policy.optimizer
    lr0 = [g["lr"] for g in opt.param_groups]
    if lr is not None:
        for g in opt.param_groups:
            g["lr"] = float(lr)
    loss_v = float("nan")
    for _ in range(int(steps)):
        i = torch.as_tensor(rng.integers(0, len(ob), min(batch_size, len(ob))), device=dev)
        loss = F.mse_loss(net(ob[i]), tg[i])
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss_v = float(loss.detach())
    for g, v in zip(opt.param_groups, lr0, strict=True):
        g["lr"] = v
    model.q_net_target.load_state_dict(net.state_dict())
    return loss_v


def fill_replay_buffer(model: Any, obs: np.ndarray, actions: np.ndarray,
                       rewards: np.ndarray) -> None:
    """Add one-decision transitions (done, next observation = observation) to an SB3
    off-policy model's replay buffer, in chunks of its env count."""
    buf = model.replay_buffer
    n = buf.n_envs
    m = (len(obs) // n) * n
    for i in range(0, m, n):
        sl = slice(i, i + n)
        buf.add(obs[sl], obs[sl], actions[sl], rewards[sl], np.ones(n, bool),
                [{} for _ in range(n)])


def pretrain(model: Any, obs: np.ndarray, actions: np.ndarray, rewards: np.ndarray,
             best: np.ndarray, per_state: int, *, bc_steps: int = 2000,
             critic_steps: int = 2000, batch_size: int = 256, seed: int = 0) -> dict[str, float]:
    """Behaviour cloning of the actor on each position's best action, and regression of the
    critics on the mean rewards (one-decision episodes: Q(s, a) = E[r]). SAC or TD3.

    Returns:
        final losses ``{"bc": .., "critic": ..}``.
    """
    import torch
    import torch.nn.functional as F

    rng = np.random.default_rng(seed)
    dev = model.device
    S = len(best)
    idx_best = np.arange(S) * per_state + best
    ob_b = torch.as_tensor(obs[idx_best], device=dev)
    ac_b = torch.as_tensor(actions[idx_best], device=dev)
    ob_all = torch.as_tensor(obs, device=dev)
    ac_all = torch.as_tensor(actions, device=dev)
    rw_all = torch.as_tensor(rewards, device=dev).unsqueeze(1)
    actor = model.actor
    losses = {"bc": float("nan"), "critic": float("nan")}
    for _ in range(int(bc_steps)):
        i = torch.as_tensor(rng.integers(0, S, min(batch_size, S)), device=dev)
        pred = actor(ob_b[i], deterministic=True) if hasattr(actor, "action_dist") \
            else actor(ob_b[i])
        loss = F.mse_loss(pred, ac_b[i])
        actor.optimizer.zero_grad()
        loss.backward()
        actor.optimizer.step()
        losses["bc"] = float(loss.detach())
    critic = model.critic
    for _ in range(int(critic_steps)):
        i = torch.as_tensor(rng.integers(0, len(obs), min(batch_size, len(obs))), device=dev)
        qs = critic(ob_all[i], ac_all[i])
        loss = sum(F.mse_loss(q, rw_all[i]) for q in qs)
        critic.optimizer.zero_grad()
        loss.backward()
        critic.optimizer.step()
        losses["critic"] = float(loss.detach())
    model.critic_target.load_state_dict(model.critic.state_dict())
    if hasattr(model, "actor_target"):
        model.actor_target.load_state_dict(model.actor.state_dict())
    return losses

