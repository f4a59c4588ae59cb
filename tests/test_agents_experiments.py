"""Smoke runs of the experiments with tiny budgets: train (SAC, PPO, resume), the trained model
as an agent, self-play, and the evaluation CLI with its JSON contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("stable_baselines3")


def _tiny(name: str, **over):
    from cuegym.experiments.train import load_config

    base = {"name": name, "n_envs": 4, "total_timesteps": 48, "eval_freq": 32,
            "eval_episodes": 8, "checkpoint_freq": 32, "progress_bar": False, "demos": None,
            "policy_kwargs": {"net_arch": [16]},
            "algo_kwargs": {"learning_starts": 8, "batch_size": 8, "buffer_size": 1000,
                            "gamma": 0.0}}
    base.update(over)
    return load_config(ROOT / "configs" / "train" / "keglebillard_sac.yaml", base)


def test_train_sac_residual_writes_the_run_and_resumes(tmp_path):
    from cuegym.agents.sb3_agent import read_zip_meta
    from cuegym.experiments.train import latest_checkpoint, read_progress, train

    cfg = _tiny("t_sac")
    run = train(cfg, runs_dir=tmp_path)
    for f in ("model.zip", "best_model.zip", "config.yaml", "evaluations.npz",
              "learning_curve.png", "status.json", "logs/0/progress.csv",
              "checkpoints/rl_model_48_steps.zip",
              "checkpoints/rl_model_replay_buffer_48_steps.pkl"):
        assert (run / f).exists(), f
    assert any(p.name.startswith("events.out.tfevents") for p in (run / "logs" / "0").iterdir())
    rows = read_progress(run)  # SB3's CSV: the evaluations at 0, 32 and the end
    assert [int(r["time/total_timesteps"]) for r in rows] == [0, 32, 48]
    assert {"eval/mean_reward", "eval/foul_rate", "eval/points_per_shot"} <= set(rows[0])
    assert read_zip_meta(run / "best_model.zip")["action"] == "residual"
    status = json.loads((run / "status.json").read_text())
    assert (status["timesteps"], status["finished"], status["stopped_by"]) == \
        (48, True, "total_timesteps")
    cfg2 = _tiny("t_sac", total_timesteps=80)
    train(cfg2, runs_dir=tmp_path, resume=True)
    ckpt, buf = latest_checkpoint(run)
    assert ckpt.name == "rl_model_80_steps.zip" and buf is not None
    assert len(list((run / "checkpoints").glob("*.zip"))) == 2  # the last two kept
    assert [int(r["time/total_timesteps"]) for r in read_progress(run)][-1] == 80
    assert (run / "logs" / "1" / "progress.csv").exists()  # the first session's log is kept


def test_train_sac_from_planner_demonstrations(tmp_path):
    from cuegym.experiments.train import train

    cfg = _tiny("t_demos", demos={"states": 8, "per_state": 4, "noise_samples": 2,
                                  "bc_steps": 5, "critic_steps": 5})
    run = train(cfg, runs_dir=tmp_path)
    info = json.loads((run / "demos.json").read_text())
    assert info["positions"] == 8 and info["transitions"] == 32
    assert info["mean_reward_best"] >= info["mean_reward_first"]
    with pytest.raises(ValueError, match="demos need"):
        train(_tiny("t_bad", action="absolute", demos={"states": 4}), runs_dir=tmp_path)


def test_export_model_is_lean_and_plays_the_same(tmp_path):
    from cuegym.agents import make_agent, make_arena, play_games
    from cuegym.agents.sb3_agent import export_model
    from cuegym.experiments.train import train

    run = train(_tiny("t_exp"), runs_dir=tmp_path)
    dst = export_model(run / "model.zip", tmp_path / "ship" / "keglebillard.zip", command="x")
    assert dst.stat().st_size < (run / "model.zip").stat().st_size
    assert json.loads(dst.with_suffix(".json").read_text())["command"] == "x"
    arena = make_arena("keglebillard")
    geo = make_agent("geometric", "keglebillard")
    r1 = play_games(arena, [make_agent(str(dst), "keglebillard"), geo], 2, seed=1, max_shots=12)
    r2 = play_games(arena, [make_agent(str(run / "model.zip"), "keglebillard"), geo], 2, seed=1,
                    max_shots=12)
    assert [s.points for s in r1.shots] == [s.points for s in r2.shots]


def test_train_ppo_absolute_and_config_errors(tmp_path):
    from cuegym.experiments.train import load_config, train

    cfg = load_config(ROOT / "configs" / "train" / "keglebillard_ppo.yaml",
                      {"name": "t_ppo", "action": "absolute", "n_envs": 4,
                       "total_timesteps": 64, "eval_freq": 64, "eval_episodes": 4,
                       "progress_bar": False, "policy_kwargs": {"net_arch": [8]},
                       "algo_kwargs": {"n_steps": 8, "batch_size": 16, "n_epochs": 1}})
    assert (train(cfg, runs_dir=tmp_path) / "model.zip").exists()
    with pytest.raises(ValueError, match="unknown train config key"):
        load_config(None, {"learning_rate": 1.0})
    with pytest.raises(ValueError, match="algo"):
        load_config(None, {"algo": "a2c"})


def test_every_shipped_train_config_loads():
    from cuegym.experiments.train import load_config

    files = sorted((ROOT / "configs" / "train").glob("*.yaml"))
    assert {f.stem for f in files} >= {"keglebillard_sac", "keglebillard_ppo",
                                       "keglebillard_td3", "keglebillard_dqn", "golfbillard_sac"}
    for f in files:
        load_config(f)


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_trained_model_plays_games_as_an_agent(tmp_path, game):
    from cuegym.agents import make_agent, make_arena, play_games
    from cuegym.experiments.train import train

    over = {}
    if game == "golfbillard":
        over = {"env_id": "cuegym/GolfbillardShot-v0",
                "residual": {"n_cand": 4, "spin0": 0.0, "shaping": 0.2}}
    run = train(_tiny(f"t_{game}", **over), runs_dir=tmp_path)
    agent = make_agent(str(run / "model.zip"), game)
    assert agent.name == f"t_{game}"
    arena = make_arena(game)
    res = play_games(arena, [agent, make_agent("random", game)], 2, seed=0, max_shots=30)
    assert res.stats(0)["shots"] > 0


def test_residual_wrapper_zero_action_is_the_geometric_shot():
    from cuegym.agents import make_arena
    from cuegym.agents.geometric import kegle_candidates
    from cuegym.agents.residual import ResidualSpec, residual_strikes

    arena = make_arena("keglebillard")
    spec = ResidualSpec()
    state = arena.new_states(1)[0]
    from cuegym.agents.residual import candidate_block

    cands, feats = candidate_block(arena, state, spec)
    out = residual_strikes(cands, feats[None], np.zeros((1, spec.act_dim)), spec, [state],
                           arena)
    c = kegle_candidates(arena, state, spins=(spec.spin0,))
    assert np.allclose(out.cue[0], c.strikes.cue[c.best()])
    assert np.allclose(out.place[0], c.strikes.place[c.best()])


def test_selfplay_smoke(tmp_path):
    from cuegym.experiments.selfplay import SelfPlayConfig, run

    cfg = SelfPlayConfig(name="sp", game="keglebillard", generations=1, steps_per_generation=16,
                         n_envs=2, eval_games=2, promote_at=0.0)
    out = run(cfg, tmp_path)
    assert (out / "model.zip").exists() and (out / "selfplay.png").exists()
    rows = (out / "selfplay.csv").read_text().strip().splitlines()
    assert rows[0].startswith("generation,steps,opponent,win_rate") and len(rows) == 2
    assert (out / "pool" / "gen1.zip").exists()  # promote_at 0: always promoted
    assert (out / "logs" / "progress.csv").exists()  # SB3's log in the run, not in /tmp


def test_selfplay_makes_and_judges_its_pool_under_the_env_kwargs_rules(tmp_path, monkeypatch):
    """A train config whose env_kwargs play ddbu rules: the pool members are made for ddbu and
    the learner is judged under ddbu (they used to be made and judged under house rules while
    the learner trained on ddbu)."""
    import cuegym.agents as agents_pkg
    from cuegym.experiments.selfplay import SelfPlayConfig, run

    seen = []
    real = agents_pkg.play_games

    def spy(arena, agents, *a, **kw):
        seen.append((arena.rules.variant, [ag.arena.rules.variant for ag in agents]))
        return real(arena, agents, *a, **kw)

    monkeypatch.setattr(agents_pkg, "play_games", spy)
    tc = tmp_path / "tc.yaml"
    tc.write_text("algo: sac\nenv_id: cuegym/KeglebillardShot-v0\naction: residual\n"
                  "env_kwargs: {noise: tournament, rules: {variant: ddbu}}\n"
                  "algo_kwargs: {learning_starts: 8, batch_size: 8}\n")
    cfg = SelfPlayConfig(name="sp_ddbu", game="keglebillard", generations=1,
                         steps_per_generation=16, n_envs=2, eval_games=2, train_config=str(tc))
    run(cfg, tmp_path)
    assert seen == [("ddbu", ["ddbu", "ddbu"])]


def test_selfplay_choice_dqn_from_the_shipped_agent(tmp_path):
    from cuegym.agents import pretrained_path
    from cuegym.experiments.selfplay import SelfPlayConfig, run

    init = pretrained_path("keglebillard")
    if init is None or json.loads(init.with_suffix(".json").read_text())["action"] != "choice":
        pytest.skip("the shipped keglebillard agent is not a shot-menu DQN")
    cfg = SelfPlayConfig(name="sp_dqn", game="keglebillard", generations=2,
                         steps_per_generation=32, n_envs=2, eval_games=2, promote_at=0.0,
                         init_model=str(init),
                         train_config=str(ROOT / "configs" / "train" / "keglebillard_dqn.yaml"))
    out = run(cfg, tmp_path)
    meta = json.loads((out / "pool" / "gen1.json").read_text())
    assert meta["action"] == "choice" and meta["env_id"] == "cuegym/Keglebillard-v0"
    rows = (out / "selfplay.csv").read_text().strip().splitlines()
    assert len(rows) == 1 + 1 + 2  # gen 1 vs geometric; gen 2 vs geometric and gen1


def test_evaluate_cli_json_contract(tmp_path):
    cmd = [sys.executable, str(ROOT / "experiments" / "evaluate.py"), "--game", "keglebillard",
           "--agents", "pretrained,geometric,planner:n_candidates=8,n_noise=2", "--games", "2",
           "--seed", "0", "--json", "--quiet", "--out", str(tmp_path)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=True)
    res = json.loads(out.stdout)
    names = ["pretrained", "geometric", "planner:n_candidates=8,n_noise=2"]
    assert set(res["agents"]) == set(names)
    for n in names:
        assert {"points_per_shot", "foul_rate", "rating"} <= set(res["agents"][n])
        assert set(res["win_rate"][n]) == set(names) - {n}
        for v in res["win_rate"][n].values():
            assert 0.0 <= v <= 1.0
    if not (ROOT / "agents" / "pretrained" / "keglebillard.zip").exists():
        assert any("resolves to the best available agent" in x for x in res["notes"])
    assert (tmp_path / "tournament.png").exists() and (tmp_path / "results.json").exists()


def test_evaluate_table_golf(tmp_path):
    from cuegym.experiments.evaluate import parse_agents, run_tournament
    from cuegym.experiments.tournament_report import format_table

    assert parse_agents("a,planner:n=1,k=2,b") == ["a", "planner:n=1,k=2", "b"]
    res = run_tournament("golfbillard", ["geometric", "random"], 2, 0, quiet=True)
    text = format_table(res)
    assert "goals/stroke" in text and "win rate" in text


def test_aim_sweep_cut_sides_and_a_tiny_sweep():
    from cuegym.experiments.aim_sweep import cut_sides, sweep

    R = 0.03
    red = np.zeros((4, 2))
    white = np.array([[0.5, 0.03], [0.5, -0.03], [0.5, 0.0], [0.5, 0.2]])
    # white above the red's line: contact below its centre, it leaves counter-clockwise (+1);
    # below: -1; a full hit and a miss have no side
    assert cut_sides(red, white, np.zeros(4), R).tolist() == [1.0, -1.0, 0.0, 0.0]
    r = sweep(games=1, draws=2, offset=1.0, n=3, seed=5)
    T = len(r["cut"])
    assert T > 0 and r["offsets"].tolist() == [-1.0, 0.0, 1.0]
    assert r["values"].shape == (T, 3) and np.isfinite(r["values"]).all()
    assert r["aimed"].any() and "values2" not in r
    assert r["inputs"].shape[0] == T and np.isfinite(r["inputs"]).all()
    with pytest.raises(ValueError, match="n >= 2"):
        sweep(games=1, draws=2, offset=1.0, n=1, seed=5)


def test_aim_sweep_in_workers_is_the_one_process_sweep_per_seed():
    from cuegym.experiments.aim_sweep import head, sweep, sweep_parallel

    par = sweep_parallel(games=3, draws=2, offset=1.0, n=3, seed=5, workers=2)
    first, second = sweep(2, 2, 1.0, 3, 5), sweep(1, 2, 1.0, 3, 1005)  # 2 + 1 games
    for k in ("values", "cut", "inputs", "aimed"):
        np.testing.assert_array_equal(par[k], np.concatenate([first[k], second[k]]))
    cut = head(par, 4)
    assert len(cut["cut"]) == 4 and cut["values"].shape == (4, 3)
    assert cut["offsets"].tolist() == [-1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="workers must be in 1..games"):
        sweep_parallel(games=1, draws=2, offset=1.0, n=3, seed=5, workers=2)


def test_aim_sweep_cli_fits_a_scaling_curve(tmp_path, capsys):
    from cuegym.experiments.aim_sweep import main

    out, kept = tmp_path / "fits.json", tmp_path / "sweeps"
    argv = ["--games", "2", "--draws", "1", "--n", "3", "--offset", "1", "--fit", "--holdout",
            "1", "--epochs", "1", "--hidden", "8", "--batch", "16", "--fit-sizes", "5,5",
            "--json", str(out), "--sweeps", str(kept)]
    main(argv)
    rec = json.loads(out.read_text())
    assert [f["n_train"] <= 5 for f in rec["fits"]] == [True, False]  # 5 (once), then all
    assert rec["args"]["hidden"] == 8 and rec["positions"] > 5
    assert capsys.readouterr().out.count("held-out mean value") == 2
    assert sorted(p.name for p in kept.iterdir()) == ["held.npz", "train.npz"]
    main(argv)  # the kept sweeps again: the same positions, the same fits
    def figures(fits):  # all but the seconds
        return [{k: v for k, v in f.items() if k != "fit_s"} for f in fits]

    assert figures(json.loads(out.read_text())["fits"]) == figures(rec["fits"])
    # kept sweeps of other options are refused (one line, status 2), not reused
    assert main([*argv, "--draws", "2"]) == 2
    assert "holds a sweep of" in capsys.readouterr().err
    for bad, says in ((["--fit-sizes", "5,x"], "--fit-sizes takes"),
                      (["--batch", "0"], "--batch must be >= 1"),
                      (["--workers", "3"], "--workers must be in 1..--games"),
                      (["--layout", "contact", "--device", "cuda"], "trains on the cpu")):
        with pytest.raises(SystemExit) as stop:  # argparse's usage error
            main(["--games", "2", "--fit", "--n", "3", *bad])
        assert stop.value.code == 2 and says in capsys.readouterr().err


def test_aim_sweep_fit_judges_a_network_on_fresh_draws():
    from cuegym.experiments.aim_sweep import fit, sweep

    train = sweep(games=2, draws=2, offset=1.0, n=3, seed=5)
    held = sweep(games=1, draws=2, offset=1.0, n=3, seed=6, redraw=True)
    assert held["values2"].shape == held["values"].shape
    assert not np.array_equal(held["values2"], held["values"])  # independent draws
    f = fit(train, held, epochs=2, hidden=8)
    assert f["n_train"] == train["aimed"].sum() and f["n_held"] == held["aimed"].sum()
    fresh = held["values2"][held["aimed"]]
    assert f["aimer"] == pytest.approx(fresh[:, 1].mean())
    assert fresh.min(1).mean() - 1e-9 <= f["network"] <= fresh.max(1).mean() + 1e-9
    assert np.isfinite([f["search"], f["train_mse"], f["held_mse"], f["noise_mse"]]).all()
    even = sweep(games=1, draws=2, offset=1.0, n=2, seed=5)
    with pytest.raises(ValueError, match="odd number of offsets"):
        fit(even, even)


def test_aim_sweep_positions_as_the_aim_networks_inputs():
    """as_aim_inputs decodes a sweep's positions and strikes into exactly the inputs the
    shipped aim network reads of the same positions and the aimer's strikes (float32 inputs:
    the positions to their last bits), its curves signed as those inputs sign offsets."""
    from cuegym.agents import make_agent, make_arena
    from cuegym.agents.aim import SIDE, aim_inputs
    from cuegym.agents.base import Strikes
    from cuegym.agents.expert import collect_positions
    from cuegym.agents.geometric_kegle import kegle_candidates_batch
    from cuegym.experiments.aim_sweep import as_aim_inputs, fit_contact, sweep

    r = sweep(games=2, draws=2, offset=1.0, n=3, seed=5, redraw=True)
    arena = make_arena("keglebillard")
    geo = make_agent("geometric", "keglebillard", arena=arena)
    states, _, _ = collect_positions(arena, [geo, geo], 2, seed=5)  # the sweep's positions
    c = kegle_candidates_batch(arena, states, spins=(-0.4,))
    rows = np.arange(len(states))
    best = np.argmin(c.cost, axis=1)
    want, _ = aim_inputs(arena, states, Strikes(c.cue[rows, best], np.zeros(len(rows), np.int64),
                                                c.place[rows, best]))
    x, curves = as_aim_inputs(arena, r)
    assert x.shape == want.shape
    np.testing.assert_allclose(x, want, atol=2e-4)
    flip = (r["inputs"][:, -1] < 0) != (x[:, SIDE] < 0)
    for k in ("values", "values2"):
        np.testing.assert_array_equal(curves[k][~flip], r[k][~flip])
        np.testing.assert_array_equal(curves[k][flip], r[k][flip, ::-1])
    f = fit_contact(r, r, epochs=1, hidden=8, head=(8,), batch=8)
    assert f["n_train"] == r["aimed"].sum()
    assert np.isfinite([f["network"], f["train_mse"], f["held_mse"]]).all()


def test_aim_bound_searches_the_leaves_strikes(capsys):
    from cuegym.agents import make_agent, make_arena
    from cuegym.agents.expert import collect_positions
    from cuegym.experiments.aim_bound import AimSearchAgent, main

    arena = make_arena("keglebillard")
    leave = make_agent("pretrained:aim=none,leave=shipped", "keglebillard", arena=arena)
    states, _, _ = collect_positions(arena, [leave, make_agent("geometric", "keglebillard")],
                                     1, seed=3)
    states = states.take(np.arange(min(len(states), 6)))
    T = len(states)
    rng = np.random.default_rng(0)
    # one strike, the one offset 0: the base agent's own strike
    same = AimSearchAgent(leave, arena, 1, offsets=[0.0], draws=1).act(states, rng)
    np.testing.assert_array_equal(same.cue, leave.act(states, rng).cue)
    # two strikes: one of the leave's best two, turned by one of the offsets
    two = AimSearchAgent(leave, arena, 2, offsets=[-0.5, 0.0, 0.5], draws=2).act(states, rng)
    top = leave.ranked(states, 2)
    for t in range(T):
        turn = two.cue[t, 1] - top.cue[2 * t: 2 * t + 2, 1]
        ok = [np.allclose(np.delete(two.cue[t], 1), np.delete(top.cue[2 * t + e], 1))
              and np.isclose(abs(turn[e]), 0.5) | np.isclose(turn[e], 0.0) for e in (0, 1)]
        assert any(ok), t
    with pytest.raises(ValueError, match="does not rank its strikes by a leave"):
        AimSearchAgent(make_agent("geometric", "keglebillard"), arena, 2)
    assert main(["--entries", "2", "--games", "2", "--draws", "2", "--n", "3", "--seed", "1",
                 "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["games"] == 2 and res["decided"] <= 2 and res["simulated_per_move"] == 12
    assert 0.0 <= res["ci95"][0] <= res["win_rate"] <= res["ci95"][1] <= 1.0
    with pytest.raises(SystemExit) as err:
        main(["--draws", "0"])
    assert err.value.code == 2 and "--draws must be >= 1" in capsys.readouterr().err


def test_choice_bound_simulates_the_leaves_predictions(capsys):
    from cuegym.agents import make_agent, make_arena
    from cuegym.agents.base import load_noise
    from cuegym.agents.expert import collect_positions
    from cuegym.agents.leave import reply_search, shot_and_leave
    from cuegym.experiments.choice_bound import SimulatedChoiceAgent, main

    arena = make_arena("keglebillard")
    leave = make_agent("pretrained:aim=none,leave=shipped,entries=3", "keglebillard",
                       arena=arena)
    states, _, _ = collect_positions(arena, [leave, make_agent("geometric", "keglebillard")],
                                     1, seed=3)
    states = states.take(np.arange(min(len(states), 4)))
    T, K = len(states), 3
    strikes = leave.base.ranked(states, K)
    rep = states.take(np.repeat(np.arange(T), K))
    net = leave.predict(rep, strikes)
    # the leave simulated as its labels are, the own value still the network's
    sim = SimulatedChoiceAgent(leave, "leave", draws=2, seed=7)
    got = sim.predict(rep, strikes)
    _, want = shot_and_leave(arena, reply_search(arena), states, strikes, K, 2,
                             load_noise("tournament"), np.random.default_rng(7))
    np.testing.assert_allclose(got[:, 0], want.mean(2).reshape(-1), rtol=1e-6)
    np.testing.assert_array_equal(got[:, 1], net[:, 1])
    # it plays one of the DQN's 3 best entries
    played = SimulatedChoiceAgent(leave, "both", draws=1, seed=1).act(states,
                                                                     np.random.default_rng(0))
    for t in range(T):
        assert any(np.allclose(played.cue[t], strikes.cue[t * K + e]) for e in range(K)), t
    with pytest.raises(ValueError, match="blocks of 3"):
        sim.predict(rep.take(np.arange(2)), strikes.take(np.arange(2)))
    with pytest.raises(ValueError, match="simulate='all'"):
        SimulatedChoiceAgent(leave, "all")
    no_own = make_agent("pretrained:aim=none,leave=shipped,own=0", "keglebillard", arena=arena)
    with pytest.raises(ValueError, match="the own value plays no part"):
        SimulatedChoiceAgent(no_own, "own")
    assert main(["--entries", "2", "--games", "2", "--draws", "1", "--seed", "1",
                 "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["games"] == 2 and res["decided"] <= 2 and res["entry_shots_per_move"] == 2
    assert 0.0 <= res["ci95"][0] <= res["win_rate"] <= res["ci95"][1] <= 1.0
    with pytest.raises(SystemExit) as err:
        main(["--entries", "0"])
    assert err.value.code == 2 and "--entries must be >= 1" in capsys.readouterr().err
