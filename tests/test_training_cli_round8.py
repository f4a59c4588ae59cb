"""Training scripts' command lines, round 8 (outside audit of the CLI tools): a seed is bounded
where its config is checked, by what its later uses take (train.py and selfplay.py: SB3's
2**32 - 1; expert_iteration.py: the games' seeds it derives stay below 2**63), not refused
later by numpy with a message naming neither option nor value; train_aim.py refuses the
settings of the target it does not train; train.py checks ``--runs-dir`` before any work."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuegym.cli_errors import UsageError
from tests.script_refusals import WorkStarted, no_work, refusal

pytest.importorskip("stable_baselines3")

ROOT = Path(__file__).resolve().parents[1]
TRAIN = ROOT / "configs" / "train"
BIG = 2**32  # one above SB3's largest seed (numpy's global generator takes < 2**32)


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch):
    monkeypatch.delenv("CUEGYM_DEBUG", raising=False)  # (a traceback instead of one line)


# ---------------------------------------------------------------------------------------------
# D1: seeds bounded where the config is checked
# ---------------------------------------------------------------------------------------------


def test_train_seed_above_sb3s_range_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    from cuegym.experiments import train

    monkeypatch.setattr(train, "make_env", no_work)
    monkeypatch.setattr(train, "training_positions", no_work)
    line = refusal(train.main, ["--config", str(TRAIN / "keglebillard_sac.yaml"), "--name", "s",
                                "--runs-dir", str(tmp_path / "runs"), "--no-progress",
                                "--seed", str(BIG)], capsys)
    assert "--seed" in line and "seed" in line and str(BIG) in line and str(BIG - 1) in line
    assert not (tmp_path / "runs").exists()


def test_train_config_seed_is_bounded_by_sb3s_largest(tmp_path):
    from cuegym.experiments.train_config import SB3_SEED_MAX, load_config

    assert SB3_SEED_MAX == 2**32 - 1
    assert load_config(TRAIN / "keglebillard_sac.yaml", {"seed": SB3_SEED_MAX}).seed == 2**32 - 1
    path = tmp_path / "big.yaml"  # a config file's seed: the same check
    path.write_text(f"seed: {BIG}\n")
    with pytest.raises(ValueError, match=rf"config key seed .*got {BIG}$"):
        load_config(path)


def test_sb3s_set_random_seed_takes_the_largest_seed_and_refuses_the_next():
    """The bound is SB3's own: what the check lets through, set_random_seed takes."""
    from stable_baselines3.common.utils import set_random_seed

    from cuegym.experiments.train_config import SB3_SEED_MAX

    set_random_seed(SB3_SEED_MAX)
    with pytest.raises(ValueError):
        set_random_seed(SB3_SEED_MAX + 1)


def test_selfplay_seed_above_sb3s_range_is_refused_before_the_run(tmp_path, capsys, monkeypatch):
    from cuegym.experiments import selfplay

    monkeypatch.setattr(selfplay, "run", no_work)
    line = refusal(selfplay.main, ["--generations", "1", "--steps", "1", "--n-envs", "1",
                                   "--eval-games", "1", "--runs-dir", str(tmp_path / "runs"),
                                   "--name", "sp", "--no-progress", "--seed", str(BIG)], capsys)
    assert "self-play key seed (--seed)" in line and str(BIG) in line, line
    assert not (tmp_path / "runs").exists()


def test_selfplay_check_config_takes_the_largest_seed():
    from cuegym.experiments.selfplay import SelfPlayConfig, check_config

    assert check_config(SelfPlayConfig(seed=BIG - 1)).seed == BIG - 1
    with pytest.raises(ValueError, match=f"self-play key seed .*got {BIG}$"):
        check_config(SelfPlayConfig(seed=BIG))


def _expert_defaults_top_offset() -> int:
    """The largest ``10 * generation + row`` of the defaults (3 generations, games.later of
    2 rows): generation 2's second row."""
    return 10 * 2 + 1


def test_expert_iteration_seed_bound_is_where_the_derived_games_seed_reaches_2_63():
    from cuegym.experiments.expert_iteration import games_seed, load_config

    most = (2**63 - 1 - _expert_defaults_top_offset()) // 1000
    cfg = load_config(None, {"seed": most})
    assert games_seed(cfg, 2, 1) <= 2**63 - 1 < games_seed({"seed": most + 1}, 2, 1)
    with pytest.raises(ValueError, match=rf"config key seed must be <= {most} .*got {most + 1}$"):
        load_config(None, {"seed": most + 1})
    # one generation of one row: the first generation's first row is the largest
    one = {"generations": 1, "games": {"first": [["geometric", "geometric", 1]]}}
    assert load_config(None, {**one, "seed": (2**63 - 1) // 1000})["seed"] == (2**63 - 1) // 1000
    with pytest.raises(ValueError, match="config key seed"):
        load_config(None, {**one, "seed": (2**63 - 1) // 1000 + 1})


def test_expert_iteration_eval_seed_is_bounded_by_its_last_eval_games():
    from cuegym.experiments.expert_iteration import load_config

    top = 2**63 - 1
    assert load_config(None, {"eval": {"seed": top - 200}})["eval"]["seed"] == top - 200
    with pytest.raises(ValueError, match=rf"config key eval.seed must be <= {top - 200} "):
        load_config(None, {"eval": {"seed": top - 199}})
    # the final fit plays its eval games after the last generation: eval.seed + 100 * 3
    with pytest.raises(ValueError, match=rf"config key eval.seed must be <= {top - 300} "
                       r"\(the final fit's"):
        load_config(None, {"eval": {"seed": top - 200}, "final_fit": {"steps": 2}})


def test_the_largest_derived_games_seed_is_one_play_games_takes():
    """SEED_MAX is play_games' own limit: a game at it plays (one at 2**63 is refused)."""
    from cuegym.agents import make_agent, make_arena, play_games
    from cuegym.experiments.expert_iteration import SEED_MAX

    arena = make_arena("keglebillard")
    agents = [make_agent("random", "keglebillard", arena=arena)] * 2
    assert play_games(arena, agents, 1, seed=SEED_MAX, max_shots=1).stats(0)["games"] == 1
    with pytest.raises(ValueError):
        play_games(arena, agents, 1, seed=SEED_MAX + 1, max_shots=1)


def test_expert_iteration_seed_refused_before_the_run_directory(tmp_path, capsys, monkeypatch):
    """The audit's command: seed 2**60 passed load_config, wrote runs/<name>/config.yaml and
    failed at generation 0 on the derived seed ``seed * 1000``, which it named."""
    from cuegym.experiments import expert_iteration

    monkeypatch.setattr(expert_iteration, "run_generation", no_work)
    line = refusal(expert_iteration.main, [
        "--runs-dir", str(tmp_path / "runs"), "--name", "e2", "--no-progress", "--set",
        f"seed={2**60}", "generations=1", "label_positions=4",
        "games={first: [[geometric, geometric, 1]]}", "train={steps: 2}",
        "eval={geometric: 0, planner: 0}"], capsys)
    assert line.startswith("error: config key seed must be <=") and str(2**60) in line, line
    assert str(2**60 * 1000) not in line
    assert not (tmp_path / "runs").exists()


# ---------------------------------------------------------------------------------------------
# D2: train_aim.py refuses the other target's settings
# ---------------------------------------------------------------------------------------------


def test_train_aim_refuses_leave_settings_under_target_aim():
    from cuegym.experiments.train_aim import load_config

    with pytest.raises(ValueError, match=r"config key leave\.reply_candidates \(3\) is a setting "
                       r"of target leave, but the target is 'aim'"):
        load_config(None, {"target": "aim", "leave": {"weight": 0.1, "reply_candidates": 3}})
    with pytest.raises(ValueError, match=r"leave\.aim .*target is 'aim'"):
        load_config(None, {"leave": {"aim": "none"}})  # (target aim: the default)


def test_train_aim_refuses_offsets_under_target_leave():
    from cuegym.experiments.train_aim import load_config

    with pytest.raises(ValueError, match=r"config key offsets\.n \(5\) is a setting of target "
                       r"aim, but the target is 'leave'"):
        load_config(None, {"target": "leave", "base": "pretrained:aim=none,leave=none",
                           "offsets": {"n": 5}})


def test_train_aim_takes_the_other_targets_defaults():
    """The shipped configs hold the other target's section at its defaults (or not at all):
    switching the target of either is no refusal."""
    from cuegym.experiments.train_aim import load_config

    aim = ROOT / "configs" / "aim" / "keglebillard.yaml"
    leave = ROOT / "configs" / "aim" / "keglebillard_leave.yaml"
    assert load_config(aim)["target"] == "aim"
    assert load_config(leave)["target"] == "leave"
    assert load_config(leave, {"target": "aim"})["target"] == "aim"
    assert load_config(aim, {"target": "leave", "base": "pretrained:aim=none"})["target"] == \
        "leave"
    # the given settings at their defaults, and a section reset with null, pass
    assert load_config(None, {"leave": {"weight": 0.75}})["leave"]["weight"] == 0.75
    assert load_config(None, {"target": "leave", "base": "pretrained:aim=none",
                              "offsets": None})["target"] == "leave"


def test_train_aim_command_refuses_them_before_labelling(tmp_path, capsys, monkeypatch):
    from cuegym.experiments import train_aim

    monkeypatch.setattr(train_aim, "label_pool", no_work)
    line = refusal(train_aim.main, [
        "--runs-dir", str(tmp_path / "runs"), "--name", "a3", "--no-progress", "--set",
        "leave={weight: 0.1, reply_candidates: 3}", "games=1", "draws=1", "offsets={n: 3}",
        "fit={epochs: 1, batch: 8}", "eval={geometric: 0, planner: 0}"], capsys)
    assert "leave.reply_candidates" in line and "'aim'" in line, line
    assert not (tmp_path / "runs").exists()


# ---------------------------------------------------------------------------------------------
# D8: train.py checks --runs-dir before any work
# ---------------------------------------------------------------------------------------------


def test_train_runs_dir_with_a_file_in_the_way_is_refused_before_the_envs(tmp_path, capsys,
                                                                        monkeypatch):
    from cuegym.experiments import train

    monkeypatch.setattr(train, "make_env", no_work)
    monkeypatch.setattr(train, "training_positions", no_work)
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    line = refusal(train.main, ["--config", str(TRAIN / "keglebillard_dqn.yaml"), "--name", "x",
                                "--runs-dir", str(blocker / "runs"), "--no-progress"], capsys)
    assert line == (f"error: --runs-dir {str(blocker / 'runs')!r}: {str(blocker)!r} is a file, "
                    "not a folder"), line


def test_train_function_checks_its_runs_dir_first(tmp_path, monkeypatch):
    """train() as reproduce.py and the tests call it: the run directory's place is checked
    before the config's env and model checks (which build an env)."""
    from cuegym.experiments import train
    from cuegym.experiments.train_config import load_config

    monkeypatch.setattr(train, "make_env", no_work)
    (tmp_path / "runs").write_text("x")
    cfg = load_config(TRAIN / "keglebillard_dqn.yaml", {"name": "x", "progress_bar": False})
    with pytest.raises(UsageError, match=r"--runs-dir .* is a file, not a folder"):
        train.train(cfg, runs_dir=tmp_path / "runs")
    with pytest.raises(WorkStarted):  # (a usable --runs-dir: the config's checks come next)
        train.train(cfg, runs_dir=tmp_path / "ok")
    assert not (tmp_path / "ok").exists()
