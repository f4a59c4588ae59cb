"""The discrete shot menu (cuegym.agents.choice), its simulated demonstrations, DQN training on
it, and the pieces that keep training and play consistent (action ranges, Shot-env scores, the
play position bank)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("stable_baselines3")


def _cenv(n: int = 4, seed: int = 3, noise: str = "none", spec=None):
    from cuegym.agents.choice import ChoiceSpec, ChoiceVecEnv
    from cuegym.envs import make_sb3_vec_env

    venv = make_sb3_vec_env("cuegym/KeglebillardShot-v0", n_envs=n, seed=seed, noise=noise)
    return ChoiceVecEnv(venv, spec or ChoiceSpec())


def test_choice_spec_menu_layout_and_errors():
    from cuegym.agents.choice import ChoiceSpec

    spec = ChoiceSpec(n_cand=4, spins=(-0.4, 0.0, 0.3), speeds=(0.75, 1.0, 1.35))
    assert spec.n_variants == 9 and spec.n_actions == 36
    k, i, j = spec.decode(np.array([0, 1, 3, 9, 35]))
    assert k.tolist() == [0, 0, 0, 1, 3] and i.tolist() == [0, 0, 1, 0, 2]
    assert j.tolist() == [0, 1, 0, 0, 2]
    with pytest.raises(ValueError, match="out of range"):
        spec.decode(np.array([36]))
    with pytest.raises(ValueError, match="spins"):
        ChoiceSpec(spins=(1.5,))
    with pytest.raises(ValueError, match="speeds"):
        ChoiceSpec(speeds=(0.0,))
    with pytest.raises(ValueError, match="n_cand"):
        ChoiceSpec(n_cand=0)
    assert ChoiceSpec(**{k: v for k, v in spec.as_dict().items()}) == spec


def test_choice_strikes_variants_rescale_speed_for_spin():
    from cuegym.agents import make_arena
    from cuegym.agents.choice import ChoiceSpec, choice_strikes
    from cuegym.agents.residual import ResidualSpec, block_rows, candidate_block

    arena = make_arena("keglebillard")
    spec = ChoiceSpec(n_cand=2, spins=(-0.4, 0.3), speeds=(1.0, 1.5))
    state = arena.new_states(1)[0]
    cands, feats = candidate_block(arena, state, ResidualSpec(n_cand=2, spin0=spec.spin0))
    mr = arena.params.m / arena.params.M
    out = choice_strikes(cands.take(block_rows(np.zeros(spec.n_actions), spec.n_cand)),
                         np.repeat(feats[None], spec.n_actions, 0), np.arange(spec.n_actions),
                         spec, mr)
    c0 = cands.cue[0]
    # entry (candidate 0, spin -0.4, speed 1) is the aimer's shot when it used b = -0.4
    if c0[4] == pytest.approx(-0.4):
        assert np.allclose(out.cue[0], c0)
    # the red leaves at the same speed whatever the spin: V0 / (1 + m/M + 5/2 b^2) is kept
    ball = out.cue[:, 0] / (1.0 + mr + 2.5 * out.cue[:, 4] ** 2)
    assert ball[2] == pytest.approx(ball[0]) and ball[1] == pytest.approx(1.5 * ball[0])
    assert out.cue[2, 4] == pytest.approx(0.3)
    assert np.allclose(out.cue[4:, 1], cands.cue[1, 1])
    # an invalid (padded) candidate plays candidate 0
    bad = feats.copy()
    bad[1, 0] = 0.0
    o2 = choice_strikes(cands, bad[None], np.array([4]), spec, mr)
    assert o2.cue[0, 1] == pytest.approx(c0[1])


def test_choice_env_and_demos_agree_without_noise():
    """The demonstrations' value of a menu entry is exactly the env's reward for that action
    (same positions, no shot noise)."""
    from cuegym.agents.demos import choice_demos

    cenv = _cenv(4, seed=11)
    assert cenv.action_space.n == 36
    obs, q = choice_demos(cenv, 4, noise_samples=1, noise="none", seed=0)
    assert obs.shape == (4, cenv.observation_space.shape[0]) and q.shape == (4, 36)
    assert np.isfinite(q).all() and q.std() > 0
    for a in (0, 13, 35):
        env2 = _cenv(4, seed=11)  # the same positions again
        assert np.allclose(env2.reset(), obs)
        _, r, done, _ = env2.step(np.full(4, a))
        assert done.all()
        assert np.allclose(r, q[:, a], atol=1e-6), a


def test_in_action_range_clips_like_the_env():
    from cuegym.agents.base import Strikes
    from cuegym.agents.residual import in_action_range
    from cuegym.envs.config import load_settings

    act = load_settings("keglebillard").action
    s = Strikes(np.array([[9.0, 10.0, 75.0, 0.6, -0.7], [2.0, 10.0, 5.0, 0.1, 0.2]]),
                np.zeros(2), np.full((2, 2), np.nan))
    out = in_action_range(s, act)
    assert out.cue[0].tolist() == [act.V0[1], 10.0, act.theta[1], act.spin, -act.spin]
    assert np.array_equal(out.cue[1], s.cue[1]) and s.cue[0, 0] == 9.0  # input untouched


def test_shot_model_sees_no_game_scores(tmp_path):
    """A model trained on the one-shot env met only 0 : 0; the agent shows it that."""
    from cuegym.agents import make_agent, make_arena
    from cuegym.envs.kegle import OBS_INDEX
    from cuegym.experiments.train import load_config, train

    cfg = load_config(ROOT / "configs" / "train" / "keglebillard_dqn.yaml",
                      {"name": "t_dqn_obs", "n_envs": 4, "total_timesteps": 16, "eval_freq": 16,
                       "eval_episodes": 4, "progress_bar": False, "demos": {},
                       "train_positions": {},
                       "threads": 1, "policy_kwargs": {"net_arch": [8]},
                       "algo_kwargs": {"learning_starts": 4, "batch_size": 4,
                                       "buffer_size": 100, "gamma": 0.0}})
    run = train(cfg, runs_dir=tmp_path)
    agent = make_agent(str(run / "model.zip"), "keglebillard")
    st = make_arena("keglebillard").new_states(1)[0]
    scored = dataclasses.replace(st, scores=(40, 55))
    o1, o2 = agent._obs_kegle([st]), agent._obs_kegle([scored])
    assert np.array_equal(o1, o2) and o2[0, OBS_INDEX["own_score"]] == 0.0


def test_train_dqn_choice_from_demonstrations_plays_and_exports(tmp_path, capsys, monkeypatch):
    from cuegym.agents import make_agent, make_arena, play_games
    from cuegym.agents.sb3_agent import export_model
    from cuegym.experiments import train as train_module
    from cuegym.experiments.train import load_config, train

    # the process's bank cache may hold this bank from another test: generate (and report) anew
    monkeypatch.setattr(train_module, "_BANKS", {})

    cfg = load_config(ROOT / "configs" / "train" / "keglebillard_dqn.yaml",
                      {"name": "t_dqn", "n_envs": 4, "total_timesteps": 32, "eval_freq": 16,
                       "eval_episodes": 8, "checkpoint_freq": 16, "progress_bar": False,
                       "threads": 1, "env_kwargs": {"noise": "tournament"},
                       "train_positions": {"generate": "keglebillard-play", "n": 24, "seed": 3},
                       "demos": {"states": 6, "noise_samples": 2, "q_steps": 3,
                                 "buffer_per_state": 2},
                       "policy_kwargs": {"n_cand": 4, "net_arch": [16]},
                       "algo_kwargs": {"learning_starts": 4, "batch_size": 8,
                                       "buffer_size": 1000, "gamma": 0.0}})
    run = train(cfg, runs_dir=tmp_path)
    info = json.loads((run / "demos.json").read_text())
    assert info["positions"] == 6 and info["actions"] == 36
    assert "training positions: 24" in capsys.readouterr().out
    assert info["mean_reward_best"] >= info["mean_reward_aimer"]
    assert sum(info["best_action_count"]) == 6
    dst = export_model(run / "best_model.zip", tmp_path / "ship" / "kegle_dqn.zip")
    meta = json.loads(dst.with_suffix(".json").read_text())
    assert meta["action"] == "choice" and meta["algo"] == "dqn"
    assert meta["choice"]["speeds"] == [0.75, 1.0, 1.35]
    arena = make_arena("keglebillard")
    res = play_games(arena, [make_agent(str(dst), "keglebillard"),
                             make_agent("random", "keglebillard")], 2, seed=0, max_shots=20)
    assert res.stats(0)["shots"] > 0


def test_choice_and_dqn_come_together(tmp_path):
    from cuegym.experiments.train import load_config

    with pytest.raises(ValueError, match="needs algo dqn"):
        load_config(None, {"algo": "dqn"})
    with pytest.raises(ValueError, match="needs algo dqn"):
        load_config(None, {"algo": "sac", "action": "choice"})
    from cuegym.experiments.train import train

    base = {"name": "t_bad", "progress_bar": False, "n_envs": 2, "train_positions": {}}
    with pytest.raises(ValueError, match="unknown demos key"):
        train(load_config(ROOT / "configs" / "train" / "keglebillard_dqn.yaml",
                          {**base, "demos": {"states": 2, "per_state": 3}}), runs_dir=tmp_path)
    with pytest.raises(ValueError, match="train_positions"):
        train(load_config(ROOT / "configs" / "train" / "keglebillard_dqn.yaml",
                          {**base, "train_positions": {"generate": "random"}}),
              runs_dir=tmp_path)


def test_play_position_bank_is_valid_and_reproducible():
    from cuegym.envs.positions import generate_keglebillard_play_positions, layout_ok
    from cuegym.rules.keglebillard_game import KeglebillardGame

    a = generate_keglebillard_play_positions(40, seed=2, tables=8)
    b = generate_keglebillard_play_positions(40, seed=2, tables=8)
    assert len(a) == 40 and np.array_equal(np.nan_to_num(a.whites), np.nan_to_num(b.whites))
    g = KeglebillardGame()
    for t in range(len(a)):
        xy = np.concatenate([a.red[t][None], a.whites[t]])
        assert layout_ok(xy, a.pins[t], g.R, g.pin_spots, g.r_pin)
    assert (a.hand[np.isnan(a.red[:, 0])] > 0).all()  # a red off the table is in hand


def test_candidate_q_network_is_shared_across_candidates():
    """Swapping two candidate blocks of the observation swaps their Q-values."""
    import gymnasium as gym
    import torch

    from cuegym.agents.qnet import CandidateQPolicy
    from cuegym.agents.residual import N_FEAT

    D0, M, V = 5, 3, 4
    obs_space = gym.spaces.Box(-5.0, 5.0, (D0 + M * N_FEAT,), np.float32)
    pol = CandidateQPolicy(obs_space, gym.spaces.Discrete(M * V), lambda _: 1e-3, n_cand=M,
                           net_arch=[8])
    x = torch.randn(2, D0 + M * N_FEAT)
    y = x.clone()
    blk = lambda k: slice(D0 + k * N_FEAT, D0 + (k + 1) * N_FEAT)  # noqa: E731
    y[:, blk(0)], y[:, blk(2)] = x[:, blk(2)], x[:, blk(0)]
    qx, qy = pol.q_net(x), pol.q_net(y)
    assert qx.shape == (2, M * V)
    assert torch.allclose(qx[:, :V], qy[:, 2 * V:]) and torch.allclose(qx[:, V:2 * V],
                                                                      qy[:, V:2 * V])
    with pytest.raises(ValueError, match="do not split"):
        CandidateQPolicy(obs_space, gym.spaces.Discrete(M * V + 1), lambda _: 1e-3, n_cand=M)
