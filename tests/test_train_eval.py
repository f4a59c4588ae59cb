"""Training that loses no work and mixes no runs, evaluation researchers can trust, models that
carry their metadata, position banks that carry their generator's version (issues 13, 14, 16).
Tiny budgets throughout."""

from __future__ import annotations

import importlib.util
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from script_refusals import WorkStarted as _WorkStarted
from script_refusals import no_work as _no_work
from script_refusals import refusal as _refusal
from tiny_runs import tiny_sac as _tiny

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("stable_baselines3")

SAC_YAML = ROOT / "configs" / "train" / "keglebillard_sac.yaml"


# ---------------------------------------------------------------------------------------------
# Config: deep --set merge, one-line errors naming the key
# ---------------------------------------------------------------------------------------------


def test_set_merges_mappings_deeply_and_null_resets():
    import yaml

    from cuegym.experiments.train_config import load_config, parse_set

    file_kwargs = yaml.safe_load(SAC_YAML.read_text())["algo_kwargs"]
    cfg = load_config(SAC_YAML, parse_set(["algo_kwargs={gamma: 0.5}", "n_envs=3"]))
    assert cfg.algo_kwargs == {**file_kwargs, "gamma": 0.5}  # buffer size etc. kept
    assert cfg.n_envs == 3
    assert load_config(SAC_YAML, parse_set(["demos=null"])).demos == {}
    assert load_config(SAC_YAML, parse_set(["demos={}"])).demos == {}  # empty replaces
    two = parse_set(["residual={dphi: 1.0}", "residual={spin: 0.1}"])
    assert two == {"residual": {"dphi": 1.0, "spin": 0.1}}


def test_a_repeated_set_adds_to_the_earlier_ones():
    """``--set a=1 --set b=2`` gives both (argparse's default ``store`` kept only the last)."""
    import argparse

    from cuegym.experiments.train_config import parse_run_args, run_overrides

    args = parse_run_args(argparse.ArgumentParser(), ["--set", "total_timesteps=512",
                                                      "--set", "eval_freq=256", "seed=3"], "")
    assert run_overrides(args) == {"total_timesteps": 512, "eval_freq": 256, "seed": 3}


@pytest.mark.parametrize("text, args, match", [
    ("", [], "is empty"),
    ("- 1\n- 2\n", [], "must be a mapping.*list"),
    ("a: [1,\n", [], "not valid YAML"),
    ("n_envs: 0\n", [], "n_envs must be >= 1"),
    ("n_envs: abc\n", [], "n_envs must be an integer, got 'abc'"),
    ("time_limit_min: soon\n", [], "time_limit_min must be a finite number"),
    ("algo_kwargs: 3\n", [], "algo_kwargs must be a dict"),
    ("seed: 1\n", ["--set", "total_timesteps=-5"], "total_timesteps must be >= 1"),
])
def test_bad_config_is_one_line_exit_2(tmp_path, capsys, text, args, match):
    import re

    from cuegym.experiments.train import main

    path = tmp_path / "c.yaml"
    path.write_text(text)
    assert main(["--config", str(path), "--runs-dir", str(tmp_path), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and re.search(match, err), err


# ---------------------------------------------------------------------------------------------
# Runs: resume, refusal of another run, Ctrl-C, atomic checkpoints
# ---------------------------------------------------------------------------------------------


def test_resume_of_a_finished_run_exits_0_and_a_mismatch_is_refused(tmp_path, capsys):
    from cuegym.experiments.train import RunError, main, train

    run = train(_tiny("r"), runs_dir=tmp_path)
    before = sorted(p.name for p in (run / "checkpoints").iterdir())
    argv = ["--name", "r", "--resume", "--runs-dir", str(tmp_path)]
    assert main(argv) == 0
    assert "is finished (32 of 32 steps, stopped by all its steps)" in capsys.readouterr().out
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == before
    assert main([*argv, "--seed", "7"]) == 2
    err = capsys.readouterr().err
    assert "is another run (seed: 0 there, 7 given)" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(RunError, match="algo_kwargs"):
        train(_tiny("r", algo_kwargs={"gamma": 0.5}), runs_dir=tmp_path, resume=True)
    with pytest.raises(RunError, match="holds a run already"):  # a fresh run never mixes in
        train(_tiny("r"), runs_dir=tmp_path)
    assert main(["--name", "nothing", "--resume", "--runs-dir", str(tmp_path)]) == 2


def test_a_run_stopped_by_its_time_limit_is_finished(tmp_path, capsys, monkeypatch):
    from cuegym.experiments import train as T

    run = T.train(_tiny("tl", time_limit_min=1e-9), runs_dir=tmp_path)  # passed at once
    status = json.loads((run / "status.json").read_text())
    assert status["finished"] and status["stopped_by"] == "time_limit"
    argv = ["--name", "tl", "--resume", "--runs-dir", str(tmp_path)]
    assert T.main(argv) == 0
    assert "stopped by its time limit" in capsys.readouterr().out


def test_each_train_call_counts_its_time_limit_from_its_own_start(tmp_path, monkeypatch):
    """The limit counted from the import of the train module: a second train() in one process
    (a sweep, a notebook) stopped at once, marked finished, having learnt nothing."""
    import time

    from cuegym.experiments import train as T

    seen = []
    make = T.make_callbacks

    def spy(cfg, run, eval_env, resume, started):
        seen.append(started)
        return make(cfg, run, eval_env, resume, started)

    monkeypatch.setattr(T, "make_callbacks", spy)
    before = time.time()
    run = T.train(_tiny("own", time_limit_min=10.0), runs_dir=tmp_path)
    assert len(seen) == 1 and before <= seen[0] <= time.time()
    assert json.loads((run / "status.json").read_text())["stopped_by"] == "total_timesteps"


def test_ctrl_c_saves_a_checkpoint_and_resume_continues(tmp_path, monkeypatch):
    from stable_baselines3.common.callbacks import BaseCallback

    from cuegym.experiments import train as T

    class Interrupt(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps >= 20:
                raise KeyboardInterrupt
            return True

    make = T.make_callbacks
    monkeypatch.setattr(T, "make_callbacks", lambda *a: [*make(*a), Interrupt()])
    with pytest.raises(KeyboardInterrupt, match="checkpoint saved"):
        T.train(_tiny("c", checkpoint_freq=1000), runs_dir=tmp_path)
    run = tmp_path / "c"
    ckpt, buf = T.latest_checkpoint(run)
    assert ckpt.name == "rl_model_20_steps.zip" and buf is not None
    status = json.loads((run / "status.json").read_text())
    assert (status["timesteps"], status["finished"], status["stopped_by"]) == \
        (20, False, "interrupt")
    monkeypatch.setattr(T, "make_callbacks", make)
    (run / "evaluations.npz").write_bytes(b"PK\x03\x04 cut short")  # SB3's log, not atomic
    T.train(_tiny("c", checkpoint_freq=1000), runs_dir=tmp_path, resume=True)
    status = json.loads((run / "status.json").read_text())
    assert (status["timesteps"], status["finished"]) == (32, True)
    # the CLI turns the interrupt into exit status 130 without a traceback
    monkeypatch.setattr(T, "train", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))
    assert T.main(["--config", str(SAC_YAML), "--name", "x", "--runs-dir", str(tmp_path)]) == 130


def test_an_interrupted_save_leaves_the_previous_checkpoint_intact(tmp_path, monkeypatch):
    import stable_baselines3.common.base_class as base
    import stable_baselines3.common.save_util as su

    from cuegym.agents.sb3_agent import atomic_algo
    from cuegym.experiments.train import algo_class, make_env, save_checkpoint

    cfg = _tiny("a")
    model = atomic_algo(algo_class("sac"))("MlpPolicy", make_env(cfg, 2, 0), buffer_size=64,
                                           learning_starts=4, batch_size=4,
                                           policy_kwargs={"net_arch": [8]})
    model.learn(8)
    path = save_checkpoint(model, tmp_path)
    buf = tmp_path / "checkpoints" / "rl_model_replay_buffer_8_steps.pkl"
    saved = path.read_bytes(), buf.read_bytes()

    def half_written(save_path, *a, **k):  # writes part of the file, then the user hits Ctrl-C
        Path(save_path).write_bytes(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    for mod, name in ((base, "save_to_zip_file"), (su, "save_to_pkl")):
        with monkeypatch.context() as m:
            m.setattr(mod, name, half_written)
            with pytest.raises(KeyboardInterrupt):
                if name == "save_to_pkl":
                    model.save_replay_buffer(buf)
                else:
                    model.save(path)
    assert (path.read_bytes(), buf.read_bytes()) == saved
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir()) == \
        ["rl_model_8_steps.zip", "rl_model_replay_buffer_8_steps.pkl"]  # no temporary left
    assert type(model).load(path).num_timesteps == 8


# ---------------------------------------------------------------------------------------------
# Models carry their metadata; plain SB3 models play
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_a_plain_sb3_model_plays_in_a_tournament(tmp_path, capsys, game):
    from stable_baselines3 import PPO

    from cuegym.agents.sb3_agent import model_meta, read_zip_meta
    from cuegym.envs import make_sb3_vec_env
    from cuegym.experiments.evaluate import run_tournament

    env_id = "cuegym/KeglebillardShot-v0" if game == "keglebillard" else \
        "cuegym/GolfbillardShot-v0"
    model = PPO("MlpPolicy", make_sb3_vec_env(env_id, n_envs=2, seed=0), n_steps=4,
                batch_size=8, n_epochs=1, policy_kwargs={"net_arch": [8]})
    model.learn(8)
    path = tmp_path / "plain" / "ppo_plain.zip"
    path.parent.mkdir()
    model.save(path)
    assert read_zip_meta(path) is None
    meta = model_meta(path)
    assert (meta["algo"], meta["game"], meta["action"]) == ("ppo", game, "absolute")
    assert "carries no cuegym metadata" in capsys.readouterr().err
    res = run_tournament(game, [str(path), "random"], 2, 0, max_shots=6, quiet=True)
    assert res["agents"]["ppo_plain"]["shots"] > 0
    assert res["agents"]["ppo_plain"]["spec"] == str(path)


def test_saved_models_carry_metadata_and_the_shipped_ones_too():
    from cuegym.agents import pretrained_path
    from cuegym.agents.sb3_agent import read_zip_meta

    for game in ("keglebillard", "golfbillard"):
        path = pretrained_path(game)
        if path is None:
            continue
        meta = read_zip_meta(path)
        side = json.loads(path.with_suffix(".json").read_text())
        for key in ("game", "env_id", "action", "algo"):
            assert meta[key] == side[key]


@pytest.mark.parametrize("opponent", ["planner:n_candidates=4,n_noise=1", "pretrained",
                                      "model"])
def test_full_game_env_takes_any_agent_name_as_opponent(opponent):
    import gymnasium as gym

    import cuegym.envs  # noqa: F401  (registers the ids)
    from cuegym.agents import pretrained_path

    if opponent == "model":
        opponent = pretrained_path("keglebillard")
        if opponent is None:
            pytest.skip("no shipped keglebillard agent")
    env = gym.make("cuegym/Keglebillard-v0", opponent=opponent, noise="tournament")
    env.reset(seed=0)
    for _ in range(3):
        _, _, term, trunc, _ = env.step(env.action_space.sample())
        if term or trunc:
            env.reset()
    with pytest.raises(ValueError, match="unknown opponent 'plannr': unknown agent"):
        gym.make("cuegym/Keglebillard-v0", opponent="plannr")


# ---------------------------------------------------------------------------------------------
# Tournament accounting and statistics
# ---------------------------------------------------------------------------------------------


def test_games_cut_off_are_unfinished_not_won_or_drawn(tmp_path):
    from cuegym.agents import make_agent, make_arena, play_games
    from cuegym.experiments.evaluate import run_tournament
    from cuegym.experiments.tournament_report import format_table, plot_results

    arena = make_arena("keglebillard")
    res = play_games(arena, [make_agent("geometric", "keglebillard"),
                             make_agent("random", "keglebillard")], 4, seed=0, max_shots=3)
    assert not res.finished.any() and (res.winner == -1).all()
    st = res.stats(0)
    assert (st["wins"], st["losses"], st["draws"], st["unfinished"]) == (0, 0, 0, 4)
    out = run_tournament("keglebillard", ["geometric", "random"], 2, 0, max_shots=2, quiet=True)
    assert out["win_rate"]["geometric"]["random"] is None
    assert out["unfinished"]["geometric"]["random"] == 2
    assert out["agents"]["geometric"]["unfinished"] == 2
    assert out["agents"]["geometric"]["wins"] == out["agents"]["geometric"]["draws"] == 0
    assert any("unfinished" in n for n in out["notes"])
    assert "n/a" in format_table(out)
    assert plot_results(out, tmp_path / "t.png").exists()
    json.dumps(out, allow_nan=False)  # no NaN in the JSON


def test_wilson_interval_and_bradley_terry_on_known_inputs():
    from cuegym.agents.ratings import bradley_terry, mean_interval, wilson_interval

    lo, hi = wilson_interval(8, 10)  # textbook value: [0.490, 0.943]
    assert (round(lo, 3), round(hi, 3)) == (0.490, 0.943)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
    # two agents, 30 : 10: odds 3, 400 log10(3) = 190.8 Elo apart; se of each (mean zero)
    # 400 / ln 10 * sqrt(1 / (40 * 0.75 * 0.25)) / 2 = 31.7
    r, se = bradley_terry(np.array([[0, 30], [10, 0]]), prior=0.0)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert r.sum() == pytest.approx(0, abs=1e-9)
    assert se == pytest.approx([31.7164, 31.7164], abs=1e-3)
    # order independence: permuting the agents permutes the ratings
    w = np.array([[0, 7, 2], [3, 0, 6], [8, 4, 0]], float)
    perm = [2, 0, 1]
    r1, _ = bradley_terry(w)
    r2, _ = bradley_terry(w[np.ix_(perm, perm)])
    assert np.allclose(r1[perm], r2)
    # the prior keeps an unbeaten agent finite
    r, _ = bradley_terry(np.array([[0, 5], [0, 0]]))
    assert np.isfinite(r).all() and r[0] > r[1]
    m, lo, hi = mean_interval([1.0, 2.0, 3.0])
    assert m == 2.0 and hi - m == pytest.approx(1.959964 / math.sqrt(3), rel=1e-6)


def test_benchmark_rows_and_page(tmp_path):
    from cuegym.experiments.evaluate import benchmark_markdown, benchmark_table_seed, main

    out = tmp_path / "bench.md"
    assert main(["--benchmark", "--agents", "geometric,random", "--episodes", "4", "--quiet",
                 "--benchmark-out", str(out)]) == 0
    text = out.read_text()
    for env_id in ("cuegym/KeglebillardShot-v0", "cuegym/GolfbillardShot-v0"):
        assert f"## {env_id}" in text
    assert text.count("| `geometric` |") == 2 and "95 % interval" in text
    # runs at neighbouring seeds play other tables (with seed + t, --seed 1 replayed 63 of the
    # 64 tables of --seed 0)
    starts = [benchmark_table_seed(s) for s in range(50)]
    assert min(np.diff(np.sort(starts))) > 64
    rows = [{"env_id": "e", "agent": "a", "episodes": 2, "mean_return": 0.5,
             "ci95": [0.25, 0.75], "seconds": 1.0}]
    assert "| `a` | +0.5000 | [+0.2500, +0.7500] | 2 | 1 |" in benchmark_markdown(rows, "c", 1)


# ---------------------------------------------------------------------------------------------
# Position banks: version stamps, shipped banks made by the current generator
# ---------------------------------------------------------------------------------------------


def test_bank_stamp_is_checked_on_load(tmp_path, monkeypatch):
    from cuegym.envs import positions as P

    bank, stamp = P.generate_bank("keglebillard", 16, seed=1)
    assert stamp["generator"] == "generate_keglebillard_positions" and stamp["args"]["n"] == 16
    path = tmp_path / "b_positions.npz"
    P.save_positions(bank, path, stamp)
    assert len(P.load_bank_file(path)) == 16
    monkeypatch.setitem(P.GENERATOR_VERSION, "generate_keglebillard_positions",
                        stamp["version"] + 1)
    with pytest.raises(ValueError, match=r"version \d+, this code's is version \d+"):
        P.load_bank_file(path)
    monkeypatch.undo()
    with pytest.raises(ValueError, match="made by generate_keglebillard_positions, not"):
        P.load_bank_file(path, "generate_golfbillard_positions")
    np.savez(tmp_path / "old_positions.npz", kind=np.array("KeglebillardPositions"),
             red=bank.red)
    with pytest.raises(ValueError, match="carries no version stamp") as err:
        P.load_bank_file(tmp_path / "old_positions.npz")
    # the fix it names runs from an installed package too (a module, not a checkout's path)
    module = re.search(r"python -m (\S+)", str(err.value)).group(1)
    assert importlib.util.find_spec(module) is not None
    # a spoilt file: a stamp that is not an object, an array or the kind missing
    arrays = dict(np.load(path, allow_pickle=False))
    for change, says in (({"stamp": np.array("[1]")}, "its stamp is not a JSON object"),
                         ({"whites": None}, "lacks the array(s) ['whites']"),
                         ({"kind": None}, "does not say which game's it is")):
        spoilt = {k: v for k, v in {**arrays, **change}.items() if v is not None}
        np.savez(tmp_path / "spoilt_positions.npz", **spoilt)
        with pytest.raises(ValueError, match=re.escape(says)):
            P.load_bank_file(tmp_path / "spoilt_positions.npz")


def test_make_position_bank_writes_under_runs_unless_told(tmp_path, capsys):
    from cuegym.envs import positions as P
    from cuegym.experiments.make_position_bank import main

    out = tmp_path / "k_positions.npz"
    assert main(["--n", "8", "--out", str(out), "--quiet"]) == 0
    assert P.read_stamp(out)["args"]["n"] == 8
    shipped = P.DATA_DIR / "keglebillard_positions.npz"
    assert main(["--n", "8", "--out", str(shipped), "--quiet"]) == 2
    assert "--overwrite-shipped" in capsys.readouterr().err
    from cuegym.experiments import make_position_bank

    assert "runs" in make_position_bank.__doc__ and "--overwrite-shipped" in \
        make_position_bank.__doc__


# ---------------------------------------------------------------------------------------------
# Configs that call themselves the recipe of a shipped agent are it
# ---------------------------------------------------------------------------------------------


def test_recipe_configs_are_the_shipped_agents_recipes():
    from cuegym.agents import PRETRAINED_DIR
    from cuegym.experiments.train import load_config, run_meta

    claims = {f.name: f for f in (ROOT / "configs" / "train").glob("*.yaml")
              if "recipe of the shipped agent" in f.read_text()}
    shipped = sorted(PRETRAINED_DIR.glob("*.json"))
    assert len(claims) == len(shipped)  # one recipe per shipped agent, no more
    for side in shipped:
        meta = json.loads(side.read_text())
        name = next(n for n in claims if f"configs/train/{n}" in meta["command"])
        text = claims[name].read_text()
        assert side.with_suffix(".zip").name in text  # it names the agent it made
        ours = run_meta(load_config(claims[name]))
        for key in ("game", "env_id", "action", "algo"):
            assert ours[key] == meta[key], (name, key)
        act = meta["action"]
        assert ours[act] == {k: v for k, v in meta[act].items() if k != "game"}, name


def test_losses_ended_by_the_losers_own_shot():
    """GameResults.stats counts the losses whose last shot was the loser's own (a keglebillard
    foul whose skæve takes the opponent to 70), and evaluate.py reports them."""
    from cuegym.agents.arena import ShotRecord
    from cuegym.agents.head_to_head import GameResults
    from cuegym.experiments.evaluate import run_tournament

    # game 0: agent 1 wins on its own shot; game 1: agent 0 fouls, agent 1 wins;
    # game 2: agent 1 fouls, agent 0 wins; game 3: unfinished, agent 0 shot last
    shots = [ShotRecord(0, 0, 3, 0, False), ShotRecord(0, 1, 9, 0, False),
             ShotRecord(1, 1, 2, 0, False), ShotRecord(1, 0, 0, 8, True),
             ShotRecord(2, 0, 4, 0, False), ShotRecord(2, 1, 0, 6, True),
             ShotRecord(3, 0, 1, 0, False)]
    res = GameResults(seats=np.array([[0, 1], [1, 0], [0, 1], [1, 0]]),
                      winner=np.array([1, 1, 0, -1]), shots=shots,
                      agent=np.array([0, 1, 1, 0, 0, 1, 0]), n_shots=np.array([2, 2, 2, 1]),
                      finished=np.array([True, True, True, False]))
    a, b = res.stats(0), res.stats(1)
    assert (a["losses"], a["lost_on_own_shot"]) == (2, 1)
    assert (b["losses"], b["lost_on_own_shot"]) == (1, 1)
    assert a["unfinished"] == b["unfinished"] == 1
    empty = GameResults(seats=np.array([[0, 1]]), winner=np.array([-1]), shots=[],
                        agent=np.zeros(0, np.int64), n_shots=np.zeros(1, np.int64),
                        finished=np.array([False]))
    assert empty.stats(0)["lost_on_own_shot"] == 0
    out = run_tournament("keglebillard", ["geometric", "random"], 4, 0, quiet=True)
    for name in ("geometric", "random"):
        row = out["agents"][name]
        assert 0 <= row["lost_on_own_shot"] <= row["losses"]


# ---------------------------------------------------------------------------------------------
# Bad input refused before any work, naming the value; nothing the caller gave ignored
# ---------------------------------------------------------------------------------------------

DQN_YAML = ROOT / "configs" / "train" / "keglebillard_dqn.yaml"
GOLF_EXPERT = str(ROOT / "configs" / "expert" / "golfbillard.yaml")
AIM_YAML = str(ROOT / "configs" / "aim" / "keglebillard.yaml")


@pytest.mark.parametrize("argv,says", [
    (["--leave", "bogus=1"], "--leave: unknown aim config key(s) ['bogus']"),
    (["--aim", "bogus=1"], "--aim: unknown aim config key(s) ['bogus']"),
    (["--aim", "seed=-1"], "--aim: config key seed must be >= 0, got -1"),
    (["--leave", "eval={geometric: -1}"], "--leave: config key eval.geometric must be >= 0"),
    (["--dqn", "algo_kwargs={gamma: 2}"], "--dqn: config key algo_kwargs.gamma must be in"),
    (["--dqn", "name=x"], "--dqn name='x': a stage's run is named by --name"),
    (["--name", ""], "--name must be a non-empty run name"),
])
def test_reproduce_checks_every_stage_before_the_first_runs(tmp_path, capsys, monkeypatch,
                                                            argv, says):
    from cuegym.experiments import train, train_aim
    from cuegym.experiments.reproduce import main

    monkeypatch.setattr(train, "train", _no_work)
    monkeypatch.setattr(train_aim, "train_aim", _no_work)
    line = _refusal(main, ["--game", "keglebillard", "--runs-dir", str(tmp_path),
                           "--no-progress", *argv], capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())


def test_reproduce_checks_the_stages_run_directories_first_and_resumes_only_started_ones(
        tmp_path, capsys, monkeypatch):
    from cuegym.experiments import expert_iteration as ei
    from cuegym.experiments import train
    from cuegym.experiments.reproduce import main

    monkeypatch.setattr(train, "train", _no_work)
    (tmp_path / "r_aim").mkdir()
    (tmp_path / "r_aim" / "labels_0.npz").write_bytes(b"")  # the last stage's old run
    line = _refusal(main, ["--game", "keglebillard", "--name", "r", "--runs-dir", str(tmp_path),
                           "--no-progress"], capsys)
    assert "r_aim exists: pass --resume" in line, line
    # --resume of a chain whose stage never started starts it (its own resume would refuse)
    seen = {}

    def expert_iteration(cfg, runs_dir, resume):
        seen["resume"] = resume
        raise _WorkStarted

    monkeypatch.setattr(ei, "expert_iteration", expert_iteration)
    with pytest.raises(_WorkStarted):
        main(["--game", "golfbillard", "--name", "g", "--runs-dir", str(tmp_path),
              "--no-progress", "--resume"])
    assert seen == {"resume": False}


@pytest.mark.parametrize("config,kwargs,says", [
    (DQN_YAML, "{batch_size: 0}", "algo_kwargs.batch_size must be >= 1, got 0"),
    (DQN_YAML, "{gamma: 2}", "algo_kwargs.gamma must be in [0, 1], got 2"),
    (DQN_YAML, "{tau: .nan}", "algo_kwargs.tau must be finite, got nan"),
    (DQN_YAML, "{tau: 0}", "algo_kwargs.tau must be in (0, 1], got 0"),
    (DQN_YAML, "{buffer_size: 0}", "algo_kwargs.buffer_size must be >= 1, got 0"),
    (DQN_YAML, "{learning_starts: -10}", "algo_kwargs.learning_starts must be >= 0, got -10"),
    (DQN_YAML, "{exploration_fraction: -3}", "algo_kwargs.exploration_fraction must be in"),
    (DQN_YAML, "{exploration_final_eps: 1.5}", "algo_kwargs.exploration_final_eps must be in"),
    (DQN_YAML, "{gradient_steps: 0}", "algo_kwargs.gradient_steps must be an integer >= 1 or"),
    (DQN_YAML, "{learning_rate: -1}", "algo_kwargs.learning_rate must be in (0, inf), got -1"),
    (DQN_YAML, "{train_freq: [2, epoch]}", "algo_kwargs.train_freq must be an integer >= 1"),
    (DQN_YAML, "{tensorboard_log: tb}", "algo_kwargs.tensorboard_log cannot be set"),
    (SAC_YAML, "{ent_coef: -0.1}", "algo_kwargs.ent_coef must be in [0, inf), got -0.1"),
    (SAC_YAML, "{ent_coef: auto_x}", "algo_kwargs.ent_coef must be a number >= 0, 'auto'"),
    (SAC_YAML, "{ent_coef: auto_0}", "algo_kwargs.ent_coef must be a number >= 0, 'auto' or "
     "'auto_<initial value > 0>' (auto_0.1), got 'auto_0'"),
    (SAC_YAML, "{batch_size: 2.5}", "algo_kwargs.batch_size must be an integer >= 1, got 2.5"),
])
def test_train_refuses_sb3_hyperparameters_out_of_range(tmp_path, capsys, monkeypatch, config,
                                                        kwargs, says):
    from cuegym.experiments import train

    monkeypatch.setattr(train, "training_positions", _no_work)
    monkeypatch.setattr(train, "make_env", _no_work)
    line = _refusal(train.main, ["--config", str(config), "--runs-dir", str(tmp_path),
                                 "--no-progress", "--set", f"algo_kwargs={kwargs}"], capsys)
    assert f"error: config key {says}" in line, line
    assert not any(tmp_path.iterdir())


def test_sb3_hyperparameters_in_range_are_taken(monkeypatch):
    """SB3's other spellings pass: ``auto`` entropy, ``[n, episode]`` (SB3's tuple),
    ``gradient_steps: -1``, a gamma of 1."""
    from cuegym.experiments import train
    from cuegym.experiments.train_config import check_algo_kwargs

    for over in ({"ent_coef": "auto"}, {"ent_coef": "auto_0.1", "gradient_steps": -1},
                 {"ent_coef": 0, "gamma": 1, "tau": 1}, {"target_entropy": "auto"}):
        check_algo_kwargs(_tiny("ok", algo_kwargs=over))
    cfg = _tiny("ok", algo_kwargs={"train_freq": [1, "episode"], "batch_size": 8})
    train.check_config(cfg)
    model = train.new_model(cfg, train.make_env(cfg, 2, 0))
    assert (model.train_freq.frequency, model.train_freq.unit.value) == (1, "episode")


@pytest.mark.parametrize("config,key,says", [
    (DQN_YAML, "env_kwargs={noise: bogus}",
     "config key env_kwargs: unknown shot-noise preset 'bogus'"),
    (DQN_YAML, "policy_kwargs={bogus: 1}", "unexpected keyword argument 'bogus'"),
    (SAC_YAML, "env_kwargs={reward: {bogus: 1}}", "config key env_kwargs: unknown"),
])
def test_train_checks_env_and_policy_before_generating_positions(tmp_path, capsys, monkeypatch,
                                                                 config, key, says):
    from cuegym.experiments import train

    monkeypatch.setattr(train, "training_positions", _no_work)
    line = _refusal(train.main, ["--config", str(config), "--runs-dir", str(tmp_path),
                                 "--no-progress", "--set", key], capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("script", ["train", "train_aim", "expert_iteration"])
@pytest.mark.parametrize("argv,says", [
    (["--name", ""], "--name must be a non-empty run name (a folder under --runs-dir), got ''"),
    (["--name", " "], "--name must be a non-empty run name"),
    (["--set", "name=''"], "config key name must be a non-empty run name"),
    (["--set", "name=.."], "config key name must name a folder inside --runs-dir"),
    (["--name", "/tmp/elsewhere"], "--name must name a folder inside --runs-dir"),
])
def test_an_empty_run_name_is_refused_not_ignored(tmp_path, capsys, monkeypatch, script, argv,
                                                  says):
    import importlib

    mod = importlib.import_module(f"cuegym.experiments.{script}")
    run = {"train": "train", "train_aim": "train_aim", "expert_iteration": "expert_iteration"}
    monkeypatch.setattr(mod, run[script], _no_work)
    config = {"train": str(SAC_YAML), "train_aim": AIM_YAML, "expert_iteration": GOLF_EXPERT}
    line = _refusal(mod.main, ["--config", config[script], "--runs-dir", str(tmp_path),
                               "--no-progress", *argv], capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("key,says", [
    ("seed=-1", "config key seed must be >= 0, got -1"),
    ("max_shots=0", "config key max_shots must be >= 1, got 0"),
    ("threads=0", "config key threads must be >= 1, got 0"),
    ("generations=0", "config key generations must be >= 1, got 0"),
    ("eval={geometric: -1}", "config key eval.geometric must be >= 0, got -1"),
    ("eval={pretrained: 2.5}", "config key eval.pretrained must be an integer >= 0, got 2.5"),
    ("teacher={noise: .nan}", "config key teacher.noise: noise.scale must be finite, got nan"),
    ("games={first: [[student, geometric, 2]]}", "games.first: ['student', 'geometric', 2] "
     "names the student"),
    # was: refused only when the first generation's games began, after the run directory
    ("games={first: [[geometric, plannr, 2]]}", "config key games.first[0]: unknown agent "
     "'plannr'"),
    ("games={later: [[student, 'planner:n_candidate=4', 2]]}", "config key games.later[0]: "
     "unknown planner option 'n_candidate'"),
])
def test_expert_iteration_refuses_bad_values_before_the_run_directory(tmp_path, capsys,
                                                                      monkeypatch, key, says):
    from cuegym.experiments import expert_iteration as ei

    monkeypatch.setattr(ei, "label_pool", _no_work)  # the generations' work
    monkeypatch.setattr(ei, "run_generation", _no_work)
    line = _refusal(ei.main, ["--config", GOLF_EXPERT, "--runs-dir", str(tmp_path),
                              "--no-progress", "--set", key], capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())  # a corrected rerun needs no --overwrite


@pytest.mark.parametrize("key,says", [
    ("seed=-1", "config key seed must be >= 0, got -1"),
    ("eval={planner: -2}", "config key eval.planner must be >= 0, got -2"),
    ("noise=bogus", "config key noise: unknown shot-noise preset 'bogus'"),
    ("eval={seed: -5}", "config key eval.seed must be >= 0, got -5"),
    ("base=pretrained:aim=nne", "config key base: "),
    ("opponent=geometrik", "config key opponent: unknown agent 'geometrik'"),
])
def test_train_aim_refuses_bad_values_before_the_run_directory(tmp_path, capsys, monkeypatch,
                                                               key, says):
    from cuegym.experiments import train_aim

    monkeypatch.setattr(train_aim, "label_pool", _no_work)
    line = _refusal(train_aim.main, ["--config", AIM_YAML, "--runs-dir", str(tmp_path),
                                     "--no-progress", "--set", key], capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("script,config", [("train_aim", AIM_YAML),
                                           ("expert_iteration", GOLF_EXPERT)])
def test_resume_of_a_run_that_never_existed_is_refused(tmp_path, capsys, monkeypatch, script,
                                                       config):
    """As train.py does: a --resume never quietly starts a new run."""
    import importlib

    mod = importlib.import_module(f"cuegym.experiments.{script}")
    monkeypatch.setattr(mod, "label_pool", _no_work)
    line = _refusal(mod.main, ["--config", config, "--runs-dir", str(tmp_path), "--name",
                               "never_existed", "--no-progress", "--resume"], capsys)
    assert f"--resume: {tmp_path / 'never_existed'} holds no run (no config.yaml)" in line, line
    assert not any(tmp_path.iterdir())


def test_a_bank_generated_on_a_read_only_install_is_kept_in_the_user_cache(tmp_path,
                                                                          monkeypatch):
    """The helmatch bank is generated on first use into envs/data; where the package may not
    be written it was generated again in every process (3.5 s each)."""
    import os

    from cuegym.envs import positions as P

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    data = tmp_path / "data"  # the shipped banks only (a checkout may hold a generated one)
    data.mkdir()
    for name in P.SHIPPED_BANKS:
        (data / f"{name}_positions.npz").symlink_to(P.DATA_DIR / f"{name}_positions.npz")
    monkeypatch.setattr(P, "DATA_DIR", data)
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, m: Path(p) != P.DATA_DIR and real(p, m))
    assert P._bank_path("keglebillard") == P.DATA_DIR / "keglebillard_positions.npz"  # shipped
    assert P._bank_path("keglebillard-helmatch") == (tmp_path / "cuegym" /
                                                     "keglebillard-helmatch_positions.npz")
    monkeypatch.undo()
    assert P._bank_path("keglebillard-helmatch").parent == P.DATA_DIR  # a writable package
