"""The training scripts as a researcher picking up the project runs them (experiments/train.py,
selfplay.py, expert_retrain.py, reproduce.py): a resumed run that continues rather than replays,
budgets and settings that are refused before any work instead of failing inside SB3, a
self-play learner from ``--init`` that takes the recipe it is given. Tiny budgets throughout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml
from script_refusals import no_work as _no_work
from script_refusals import refusal as _refusal
from tiny_runs import tiny_sac as _tiny

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("stable_baselines3")

SAC_YAML = ROOT / "configs" / "train" / "keglebillard_sac.yaml"
DQN_YAML = ROOT / "configs" / "train" / "keglebillard_dqn.yaml"
GOLF_SAC_YAML = ROOT / "configs" / "train" / "golfbillard_sac.yaml"
TINY_SETS = ["demos=null", "total_timesteps=8", "n_envs=2", "eval_episodes=2",
             "policy_kwargs={net_arch: [8]}",
             "algo_kwargs={learning_starts: 2, batch_size: 4, buffer_size: 100}"]


# ---------------------------------------------------------------------------------------------
# train.py: resume
# ---------------------------------------------------------------------------------------------


def test_resume_with_a_budget_below_the_steps_done_is_refused_and_leaves_the_run(tmp_path,
                                                                                 capsys):
    """``--resume --timesteps N`` below the steps done (or a longer time limit on a run that
    did all its steps) failed with an AttributeError from SB3's callbacks after rewriting the
    run's config.yaml with the smaller budget (every later resume then failed as well)."""
    from cuegym.experiments.train import main, train

    run = train(_tiny("r"), runs_dir=tmp_path)
    saved = (run / "config.yaml").read_text()
    argv = ["--name", "r", "--resume", "--runs-dir", str(tmp_path)]
    line = _refusal(main, [*argv, "--timesteps", "16"], capsys)
    assert "has done 32 steps already, more than the total_timesteps 16 given" in line, line
    assert (run / "config.yaml").read_text() == saved
    # a longer time limit where no step is left: nothing to do, said so, exit 0
    assert main([*argv, "--set", "time_limit_min=5"]) == 0
    out = capsys.readouterr().out
    assert "is finished (32 of 32 steps" in out and "raise total_timesteps to" in out
    assert (run / "config.yaml").read_text() == saved
    assert main([*argv, "--timesteps", "48"]) == 0  # a larger budget goes on
    assert json.loads((run / "status.json").read_text())["timesteps"] == 48


def test_a_resumed_session_goes_on_with_new_episodes_the_same_at_every_resume(tmp_path,
                                                                              monkeypatch):
    """SB3's load seeds nothing, so a resumed session's tables started again from seed + i:
    the positions (and shot-noise draws) of the first session's first episodes, again."""
    from stable_baselines3.common.callbacks import BaseCallback

    from cuegym.experiments import train as T

    seen: list[np.ndarray] = []

    class FirstObs(BaseCallback):
        def _on_training_start(self) -> None:
            seen.append(np.array(self.model._last_obs, copy=True))

        def _on_step(self) -> bool:
            return True

    make = T.make_callbacks
    monkeypatch.setattr(T, "make_callbacks", lambda *a: [*make(*a), FirstObs()])
    T.train(_tiny("s"), runs_dir=tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    for where in ("a", "b"):
        T.train(_tiny("s", total_timesteps=48), runs_dir=tmp_path / where, resume=True)
    first, resumed, again = seen
    assert not np.array_equal(first, resumed)
    assert np.array_equal(resumed, again)  # a resume from one checkpoint repeats
    assert T.session_seed(0, 0) == 0 and T.session_seed(7, 0) == 7
    assert 0 <= T.session_seed(0, 32) < 2**31 - 1024 and T.session_seed(0, 32) != \
        T.session_seed(0, 64)


def test_the_demonstrations_replacing_learning_starts_is_said(tmp_path, capsys):
    """With demonstrations learning starts at once (``learning_starts`` 0) whatever the config
    says; the printed hyper-parameters showed the config's value, so the override was silent."""
    from cuegym.experiments.train import train

    cfg = _tiny("d", total_timesteps=8, demos={"states": 2, "per_state": 2, "bc_steps": 1,
                                               "critic_steps": 1})
    train(cfg, runs_dir=tmp_path)
    assert "learning_starts 8 of algo_kwargs replaced by 0" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# train.py: settings refused before any work, naming the key
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("config,sets,says", [
    (GOLF_SAC_YAML, ["train_positions={generate: keglebillard-play, n: 8}"],
     "config key train_positions generates keglebillard Shot-env start positions; env_id "
     "'cuegym/GolfbillardShot-v0' takes none"),
    (SAC_YAML, ["env_id=cuegym/Keglebillard-v0", "train_positions={generate: "
                "keglebillard-play, n: 8}"], "env_id 'cuegym/Keglebillard-v0' takes none"),
    (SAC_YAML, ["train_positions={n: 8}"],
     "config key train_positions.generate must be 'keglebillard-play', got None"),
    (SAC_YAML, ["env_id=cuegym/KeglebillardShot-v1"],
     "config key env_id: unknown env id 'cuegym/KeglebillardShot-v1' (did you mean"),
])
def test_train_positions_and_env_id_are_checked_before_any_work(tmp_path, capsys, monkeypatch,
                                                                config, sets, says):
    """train_positions for an env that takes no start positions were generated first (131,072
    of them in the recipe) and then refused by the env in a message naming no key; an unknown
    env_id was gymnasium's ``Environment ... doesn't exist``."""
    from cuegym.experiments import train

    monkeypatch.setattr(train, "training_positions", _no_work)
    line = _refusal(train.main, ["--config", str(config), "--runs-dir", str(tmp_path),
                                 "--no-progress", "--set", *TINY_SETS, *sets], capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())


def test_episodic_train_freq_with_several_tables_is_refused_before_the_run_dir(tmp_path,
                                                                               capsys):
    """``train_freq: [1, episode]`` passes SB3's constructor, but SB3 asserts one env when
    learning starts: a traceback after the run directory was written."""
    from cuegym.experiments import train

    line = _refusal(train.main, ["--config", str(SAC_YAML), "--runs-dir", str(tmp_path),
                                 "--no-progress", "--set", *TINY_SETS,
                                 "algo_kwargs={train_freq: [1, episode]}"], capsys)
    assert "config key algo_kwargs.train_freq [1, 'episode'] trains per episode" in line, line
    assert "n_envs is 2" in line
    assert not any(tmp_path.iterdir())


def test_learning_curve_step_ticks_read_as_steps():
    """Below a thousand steps the axis read 0.05k, 0.1k, ..."""
    from cuegym.experiments.train import steps_tick

    assert [steps_tick(v) for v in (0, 50, 250, 1000, 2500, 1.5e6, 3e6)] == \
        ["0", "50", "250", "1k", "2.5k", "1.5M", "3M"]


# ---------------------------------------------------------------------------------------------
# selfplay.py: the learner takes the train config it is given
# ---------------------------------------------------------------------------------------------


def _train_yaml(tmp_path: Path, src: Path, **algo_kwargs) -> Path:
    data = yaml.safe_load(src.read_text())
    data["algo_kwargs"] = {**data["algo_kwargs"], **algo_kwargs}
    path = tmp_path / src.name
    path.write_text(yaml.safe_dump(data))
    return path


def _selfplay_learner(cfg):
    """The learner selfplay.run builds for ``cfg`` (its env as run() makes it)."""
    from cuegym.envs import make_sb3_vec_env
    from cuegym.envs.sb3 import vec_monitor
    from cuegym.experiments import selfplay as S

    tcfg = S.train_config(S.check_config(cfg))
    spec, wrapper, _ = S._action_space(cfg, tcfg, "cuegym/Keglebillard-v0")
    venv = make_sb3_vec_env("cuegym/Keglebillard-v0", n_envs=cfg.n_envs, seed=cfg.seed,
                            noise=cfg.noise, opponent="geometric")
    return S._learner(cfg, tcfg, vec_monitor(wrapper(venv, spec)))


def test_selfplay_from_init_takes_the_train_configs_algo_kwargs(tmp_path):
    """With ``--init`` the learner kept the hyper-parameters saved in the model (the shipped
    DQN's: gamma 0 of the one-shot env, learning_starts 0 of its demonstrations) and the train
    config's ``algo_kwargs`` were ignored, against the docs (the learner's gamma is 0.9)."""
    from cuegym.experiments.selfplay import SelfPlayConfig

    path = _train_yaml(tmp_path, DQN_YAML, buffer_size=500, learning_rate=0.001)
    init = str(ROOT / "agents" / "pretrained" / "keglebillard.zip")
    model = _selfplay_learner(SelfPlayConfig(name="i", n_envs=2, train_config=str(path),
                                             init_model=init))
    assert (model.gamma, model.buffer_size, model.learning_starts) == (0.9, 500, 1000)
    assert model.learning_rate == 0.001 and model.exploration_initial_eps == 0.1
    # a network the loaded model does not have is refused, not ignored
    data = yaml.safe_load(path.read_text())
    data["policy_kwargs"]["net_arch"] = [64]
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match=r"has policy_kwargs.net_arch \[256, 256\], the train "
                                         r"config \[64\]"):
        _selfplay_learner(SelfPlayConfig(name="i", n_envs=2, train_config=str(path),
                                         init_model=init))


def test_selfplay_takes_train_freq_as_train_py_does(tmp_path):
    """``train_freq: [n, step]`` (train.py's form of SB3's tuple) made self-play fail with
    ``The frequency of train_freq must be an integer``; ``[n, episode]`` with several tables
    failed only when learning started, after the run directory was written."""
    from cuegym.experiments import selfplay as S

    path = _train_yaml(tmp_path, SAC_YAML, train_freq=[2, "step"], buffer_size=100)
    model = _selfplay_learner(S.SelfPlayConfig(name="t", n_envs=2, train_config=str(path)))
    assert (model.train_freq.frequency, model.train_freq.unit.value) == (2, "step")
    assert model.gamma == 0.9
    path = _train_yaml(tmp_path, SAC_YAML, train_freq=[1, "episode"])
    with pytest.raises(ValueError, match=r"trains per episode, which SB3 does on one table "
                                         r"only; self-play key n_envs \(--n-envs\) is 2"):
        S.train_config(S.SelfPlayConfig(name="t", n_envs=2, train_config=str(path)))


# ---------------------------------------------------------------------------------------------
# expert_retrain.py: only labels of one menu pool
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def expert_run(tmp_path_factory):
    """A finished one-generation keglebillard expert-iteration run (a few seconds)."""
    from cuegym.experiments.expert_iteration import expert_iteration, load_config

    runs = tmp_path_factory.mktemp("expert_runs")
    cfg = load_config(ROOT / "configs" / "expert" / "keglebillard.yaml", {
        "name": "a", "generations": 1, "label_positions": 8, "train": {"steps": 2},
        "progress_bar": False, "games": {"first": [["geometric", "geometric", 1]]},
        "eval": {"geometric": 0, "planner": 0}})
    return expert_iteration(cfg, runs_dir=runs)


def test_expert_retrain_refuses_runs_of_another_menu(expert_run, tmp_path, capsys):
    """Runs whose labels index other menus were pooled as one: a numpy concatenation error
    where the sizes differ, and silently mixed labels where they agree (other spins)."""
    import dataclasses

    from cuegym.agents.expert import ExpertNet, load_net, save_net
    from cuegym.experiments.expert_retrain import main

    other = tmp_path / "b"
    shutil.copytree(expert_run, other)
    net, meta = load_net(other / "model.pt")
    spec = dataclasses.replace(net.spec, spins=(-0.3, 0.0, 0.3))  # as many entries
    save_net(ExpertNet(spec), other / "model.pt", meta)
    out = tmp_path / "pooled.pt"
    line = _refusal(main, ["--runs", str(expert_run), str(other), "--out", str(out),
                           "--steps", "2", "--batch", "4"], capsys)
    assert f"{other} labels another menu than {expert_run} (spins: [-0.4, 0.0, 0.3]" in line
    assert not out.exists()
    line = _refusal(main, ["--runs", str(expert_run), "--out", str(tmp_path), "--steps", "2"],
                    capsys)
    assert f"--out {tmp_path} is a directory" in line, line
    assert main(["--runs", str(expert_run), str(expert_run), "--out", str(out), "--steps", "2",
                 "--batch", "4"]) == 0  # one menu: pooled
    assert out.is_file()


# ---------------------------------------------------------------------------------------------
# reproduce.py: a resume keeps what the report says of the stages it skips
# ---------------------------------------------------------------------------------------------


def test_reproduce_resume_keeps_the_skipped_stages_times(tmp_path):
    """A ``--resume`` that skips finished stages wrote their times as the zero seconds of
    the skip, over the times the first session had recorded."""
    from cuegym.experiments.reproduce import main

    tiny = ["generations=1", "label_positions=8", "train={steps: 2}", "workers=1",
            "final_fit={}", "spec={n_cand: 3, spins: [0.0], speeds: [1.0]}",
            "teacher={k1: 2, top: 1, n_perturb: 1, k2: 2, chunk: 8}",
            "games={first: [[geometric, geometric, 1]]}",
            "eval={geometric: 0, planner: 0, pretrained: 0}"]
    argv = ["--game", "golfbillard", "--name", "g", "--runs-dir", str(tmp_path),
            "--no-progress", "--check", "0", "--expert", *tiny]
    assert main(argv) == 0
    first = json.loads((tmp_path / "g" / "reproduce.json").read_text())
    assert "skipped" not in first and first["times"]["expert_s"] > 0
    assert main([*argv, "--resume"]) == 0
    again = json.loads((tmp_path / "g" / "reproduce.json").read_text())
    assert again["skipped"] == ["expert"]
    assert again["times"]["expert_s"] == first["times"]["expert_s"]
    (tmp_path / "g" / "reproduce.json").unlink()  # no earlier report: unknown, not zero
    assert main([*argv, "--resume"]) == 0
    assert json.loads((tmp_path / "g" / "reproduce.json").read_text())["times"]["expert_s"] \
        is None


def test_selfplay_from_init_counts_its_own_steps(tmp_path):
    """An ``--init`` model's saved step count (the shipped DQN's 280,032) carried on: the
    steps column counted from it, and the train config's ``learning_starts`` and exploration
    schedule, measured against it, were long past (the learner trained from its first step,
    on a replay buffer of a few transitions)."""
    import csv

    from cuegym.experiments.selfplay import main

    path = _train_yaml(tmp_path, DQN_YAML, buffer_size=500)  # learning_starts: 1000
    init = ROOT / "agents" / "pretrained" / "keglebillard.zip"
    assert main(["--game", "keglebillard", "--name", "s", "--runs-dir", str(tmp_path),
                 "--train-config", str(path), "--init", str(init), "--generations", "1",
                 "--steps", "16", "--eval-games", "1", "--n-envs", "2", "--no-progress"]) == 0
    with open(tmp_path / "s" / "selfplay.csv") as fh:
        assert [int(r["steps"]) for r in csv.DictReader(fh)] == [16]
    # 16 steps, fewer than learning_starts: not one gradient step, the network is the init's
    from stable_baselines3 import DQN

    learner, start = DQN.load(tmp_path / "s" / "model.zip"), DQN.load(init)
    for a, b in zip(learner.q_net.parameters(), start.q_net.parameters(), strict=True):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())


def test_expert_learning_curve_without_check_games_draws_without_warnings(tmp_path):
    """With ``eval`` at 0 games (reproduce.py's stages, quick runs) three of the four panels
    have no curve, and each asked matplotlib for a legend of nothing: a UserWarning apiece."""
    import warnings

    from cuegym.experiments.expert_iteration import plot_curves

    rows = [{"generation": k, "teacher_value": 5.0 + k, "menu_value": 4.0,
             "student_value": 3.0 + k} for k in range(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = plot_curves(tmp_path, rows)
    assert path.stat().st_size > 0


def test_a_run_folder_moved_to_another_name_resumes(tmp_path, capsys):
    """The run's name is where it lies (runs/<name>); a folder moved or copied to another
    name was refused as "another run (name: 'a' there, 'b' given)"."""
    from cuegym.experiments.train import main, train

    train(_tiny("a"), runs_dir=tmp_path)
    (tmp_path / "a").rename(tmp_path / "b")
    assert main(["--name", "b", "--resume", "--runs-dir", str(tmp_path), "--timesteps",
                 "48"]) == 0, capsys.readouterr().err
    assert json.loads((tmp_path / "b" / "status.json").read_text())["timesteps"] == 48
    assert yaml.safe_load((tmp_path / "b" / "config.yaml").read_text())["name"] == "b"
