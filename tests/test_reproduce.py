"""One command reproduces a shipped issue-16 agent (experiments/reproduce.py): the stages chain
on each other's outputs, not on the shipped files (every stage shrunk here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

TINY_DQN = ["n_envs=4", "total_timesteps=32", "eval_freq=16", "eval_episodes=8",
            "checkpoint_freq=16", "threads=1",
            "train_positions={generate: keglebillard-play, n: 24, seed: 3}",
            "demos={states: 6, noise_samples: 2, q_steps: 3, buffer_per_state: 2}",
            "policy_kwargs={n_cand: 4, net_arch: [16]}",
            "algo_kwargs={learning_starts: 4, batch_size: 8, buffer_size: 1000}"]
TINY_LEAVE = ["games=2", "workers=1", "entries=2", "draws=1",
              "leave={reply_candidates: 2, reply_noise: 1}",
              "fit={epochs: 1, batch: 8, hidden: [8]}"]
TINY_AIM = ["games=2", "workers=1", "draws=1", "offsets={n: 3}",
            "fit={epochs: 1, batch: 8, hidden: [8]}"]


def test_keglebillard_chain_trains_each_stage_on_the_one_before(tmp_path):
    from cuegym.agents import make_agent
    from cuegym.agents.aim import AimCorrectedAgent, load_aim
    from cuegym.agents.leave import LeaveAwareAgent
    from cuegym.experiments.reproduce import main

    argv = ["--game", "keglebillard", "--name", "r", "--runs-dir", str(tmp_path),
            "--no-progress", "--check", "4", "--dqn", *TINY_DQN, "--leave", *TINY_LEAVE,
            "--aim", *TINY_AIM]
    assert main(argv) == 0
    out = tmp_path / "r"
    report = json.loads((out / "reproduce.json").read_text())
    assert set(report["times"]) == {"dqn_s", "leave_s", "aim_s", "total_s"}
    assert report["check"]["geometric_games"] == 4 and "planner_games" not in report["check"]
    # each stage's base is the run's own network, never the shipped one
    leave_cfg = load_aim(tmp_path / "r_leave" / "model.pt")[1]["config"]
    aim_cfg = load_aim(tmp_path / "r_aim" / "model.pt")[1]["config"]
    dqn = tmp_path / "r_dqn" / "best_model.zip"
    assert leave_cfg["base"] == f"{dqn}:aim=none"
    assert aim_cfg["base"] == f"{dqn}:aim=none,leave={tmp_path / 'r_leave' / 'model.pt'}"
    assert leave_cfg["eval"]["geometric"] == 0 and aim_cfg["fit"]["threads"] == 2
    agent = make_agent(report["spec"], "keglebillard")
    assert isinstance(agent, AimCorrectedAgent) and isinstance(agent.base, LeaveAwareAgent)
    assert sorted(p.name for p in out.iterdir()) == [
        "keglebillard.json", "keglebillard.zip", "keglebillard_aim.pt",
        "keglebillard_leave.pt", "reproduce.json"]
    # --resume skips the finished stages (nothing is trained again)
    before = (tmp_path / "r_aim" / "model.pt").stat().st_mtime_ns
    assert main([*argv, "--resume", "--check", "0"]) == 0
    assert (tmp_path / "r_aim" / "model.pt").stat().st_mtime_ns == before


def test_golfbillard_is_one_stage_of_expert_iteration(tmp_path):
    from cuegym.agents.expert import ExpertAgent
    from cuegym.experiments.reproduce import main

    tiny = ["generations=1", "label_positions=16", "train={steps: 10}", "workers=1",
            "final_fit={}", "spec={n_cand: 3, spins: [0.0], speeds: [1.0]}",
            "teacher={k1: 2, top: 1, n_perturb: 1, k2: 2, chunk: 8}",
            "games={first: [[geometric, geometric, 1]]}",
            "eval={geometric: 2, planner: 0, pretrained: 0}"]
    assert main(["--game", "golfbillard", "--name", "g", "--runs-dir", str(tmp_path),
                 "--no-progress", "--check", "2", "--expert", *tiny]) == 0
    report = json.loads((tmp_path / "g" / "reproduce.json").read_text())
    assert set(report["times"]) == {"expert_s", "total_s"}
    assert report["files"] == ["golfbillard_expert.pt"]
    assert report["check"]["geometric_games"] == 2
    from cuegym.agents import make_agent

    assert isinstance(make_agent(report["spec"], "golfbillard"), ExpertAgent)
    # the command that plays the agent it made (the docs point to it)
    assert report["play"] == (f'cuegym evaluate --game golfbillard --agents "{report["spec"]},'
                              'planner" --games 500 --seed 900')


def test_bad_options_are_refused(tmp_path, capsys):
    from cuegym.experiments.reproduce import main

    base = ["--runs-dir", str(tmp_path)]
    for argv, says in ((["--game", "golfbillard", "--leave", "games=2"],
                        "--leave: no such stage for golfbillard"),
                       (["--game", "keglebillard", "--fit-threads", "0"], "--fit-threads"),
                       (["--game", "golfbillard", "--fit-threads", "2"],
                        "--fit-threads: golfbillard has no fit stage"),
                       (["--game", "snooker"], "invalid choice: 'snooker'")):
        with pytest.raises(SystemExit) as stop:
            main([*argv, *base])
        assert stop.value.code == 2 and says in capsys.readouterr().err
    assert main(["--game", "keglebillard", *base, "--dqn", "n_envz=2"]) == 2
    assert "n_envz" in capsys.readouterr().err


def test_resume_continues_an_interrupted_dqn_stage_and_skips_a_finished_one(tmp_path):
    """train.py writes status.json also when interrupted ("finished": false); --resume skipped
    such a DQN stage, so the chain went on with a half-trained network."""
    from cuegym.experiments.reproduce import _skipped

    run = tmp_path / "r_dqn"
    run.mkdir()
    assert not _skipped(run, "dqn", resume=True)  # never started
    (run / "status.json").write_text(json.dumps({"timesteps": 96, "finished": False,
                                                 "stopped_by": "interrupt"}))
    assert not _skipped(run, "dqn", resume=True)
    (run / "status.json").write_text(json.dumps({"timesteps": 4096, "finished": True,
                                                 "stopped_by": "total_timesteps"}))
    assert _skipped(run, "dqn", resume=True) and not _skipped(run, "dqn", resume=False)
    (tmp_path / "r_aim").mkdir()
    assert not _skipped(tmp_path / "r_aim", "aim", resume=True)
    (tmp_path / "r_aim" / "model.pt").write_bytes(b"")
    assert _skipped(tmp_path / "r_aim", "aim", resume=True)
