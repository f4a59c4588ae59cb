"""Bad input to the run scripts (train, train_aim, expert_iteration, selfplay, reproduce) is
refused in one line with exit status 2, naming the bad value, before any long work starts and
before a run directory exists: the network sizes and learning rate of train_aim's fit, unknown
keys of expert iteration's ``games`` and ``teacher.terms``, run names that leave --runs-dir, a
torch device this machine does not have, empty --runs-dir / --config options and empty config
files, and reproduce.py's stage options."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from script_refusals import WorkStarted as _WorkStarted
from script_refusals import no_work as _no_work
from script_refusals import refusal

pytest.importorskip("stable_baselines3")

ROOT = Path(__file__).resolve().parents[1]
SAC_YAML = str(ROOT / "configs" / "train" / "keglebillard_sac.yaml")
AIM_YAML = str(ROOT / "configs" / "aim" / "keglebillard.yaml")
GOLF_EXPERT = str(ROOT / "configs" / "expert" / "golfbillard.yaml")


def _script(name: str):
    return importlib.import_module(f"cuegym.experiments.{name}")


def _no_long_work(monkeypatch) -> None:
    """Every script's long work (and the stages of reproduce.py) replaced by :func:`_no_work`:
    a check that comes too late fails the test instead of training."""
    train, aim, ei, sp = (_script(n) for n in ("train", "train_aim", "expert_iteration",
                                               "selfplay"))
    # train.train checks its config (check_config) first, then builds the env: train.py and
    # reproduce.py's DQN stage (whose check builds it too) stop there
    monkeypatch.setattr(train, "make_env", _no_work)
    monkeypatch.setattr(aim, "label_pool", _no_work)
    monkeypatch.setattr(aim, "train_aim", _no_work)
    monkeypatch.setattr(ei, "label_pool", _no_work)
    monkeypatch.setattr(ei, "run_generation", _no_work)
    monkeypatch.setattr(ei, "expert_iteration", _no_work)
    monkeypatch.setattr(sp, "run", _no_work)


def _refusal(name: str, argv: list[str], capsys) -> str:
    """Exit status 2 without a traceback; the last line of stderr."""
    return refusal(_script(name).main, argv, capsys)


# -- 1. train_aim: the fit's widths and learning rate, checked before the labelling -----------


@pytest.mark.parametrize("key,says", [
    ("fit={hidden: [-3]}", "config key fit.hidden[0] must be >= 1, got -3"),
    ("fit={hidden: [64, 0]}", "config key fit.hidden[1] must be >= 1, got 0"),
    ("fit={head: [0]}", "config key fit.head[0] must be >= 1, got 0"),
    ("fit={lr: -1.0}", "config key fit.lr must be in (0, inf), got -1.0"),
    ("fit={lr: 0}", "config key fit.lr must be in (0, inf), got 0"),
    ("fit={layout: contact, head: []}", "fit: layout 'contact' needs trunk and head layers"),
])
def test_train_aim_checks_the_fit_before_the_run_directory(tmp_path, capsys, monkeypatch, key,
                                                           says):
    _no_long_work(monkeypatch)
    line = _refusal("train_aim", ["--config", AIM_YAML, "--runs-dir", str(tmp_path),
                                  "--no-progress", "--set", key], capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())


def test_reproduce_refuses_a_bad_aim_fit_before_its_first_stage(tmp_path, capsys, monkeypatch):
    """Its docstring promises every stage's settings are checked before the first one runs."""
    _no_long_work(monkeypatch)
    line = _refusal("reproduce", ["--game", "keglebillard", "--runs-dir", str(tmp_path),
                                  "--no-progress", "--aim", "fit={hidden: [-3]}"], capsys)
    assert "--aim: config key fit.hidden[0] must be >= 1, got -3" in line, line
    assert not any(tmp_path.iterdir())


# -- 2., 3. expert iteration: games' keys and rows, teacher.terms -----------------------------


@pytest.mark.parametrize("key,says", [
    ("games={firts: [[geometric, geometric, 5]]}",
     "unknown games key 'firts' (did you mean 'first'?); known: 'first', 'later'"),
    ("games={first: []}", "games.first must list at least one row"),
    ("games={later: []}", "games.later must list at least one row"),
    ("games={first: [[geometric, geometric]]}", "games.first: each row is [agent, agent, "
     "n_games >= 1]"),
    ("teacher={terms: {bogus: 1}}", "unknown teacher.terms key 'bogus'"),
    ("teacher={terms: {fuol: 1}}", "unknown teacher.terms key 'fuol' (did you mean 'foul'?)"),
    ("teacher={terms: {foul: 1e9}}", "teacher.terms['foul']"),  # the planner's weight bound
])
def test_expert_iteration_refuses_games_and_terms_before_the_run_directory(
        tmp_path, capsys, monkeypatch, key, says):
    _no_long_work(monkeypatch)
    line = _refusal("expert_iteration", ["--config", GOLF_EXPERT, "--runs-dir", str(tmp_path),
                                         "--no-progress", "--set", key], capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())


def test_expert_iteration_takes_the_default_of_a_games_key_set_to_null():
    from cuegym.experiments import expert_iteration as ei

    cfg = ei.load_config(GOLF_EXPERT, {"games": {"first": None}})
    assert cfg["games"]["first"] == ei.DEFAULTS["games"]["first"]


def test_reproduce_refuses_an_unknown_games_key_of_the_expert_stage(tmp_path, capsys,
                                                                     monkeypatch):
    _no_long_work(monkeypatch)
    line = _refusal("reproduce", ["--game", "golfbillard", "--runs-dir", str(tmp_path),
                                  "--no-progress", "--expert",
                                  "games={firts: [[geometric, geometric, 5]]}"], capsys)
    assert "--expert: unknown games key 'firts' (did you mean 'first'?)" in line, line
    assert not any(tmp_path.iterdir())


# -- 4. selfplay: the run name stays inside --runs-dir ----------------------------------------


@pytest.mark.parametrize("files,argv,says", [
    ({}, ["--name", "/abs/path"], "--name must name a folder inside --runs-dir"),
    ({}, ["--name", "../escape"], "--name must name a folder inside --runs-dir"),
    ({"c.yaml": "name: ../../escape\n"}, ["--config", "c.yaml"],
     "self-play key name must name a folder inside --runs-dir"),
])
def test_selfplay_refuses_a_run_name_outside_the_runs_dir(tmp_path, capsys, monkeypatch, files,
                                                          argv, says):
    _no_long_work(monkeypatch)
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    runs = tmp_path / "runs"
    line = _refusal("selfplay", [*argv, "--runs-dir", str(runs)], capsys)
    assert says in line, line
    assert not runs.exists()


# -- 5. a torch device this machine cannot use ------------------------------------------------


def test_check_device_refuses_a_device_not_on_this_machine():
    from cuegym.cli_errors import UsageError
    from cuegym.experiments.train_config import check_device

    check_device("cpu", "config key device")
    with pytest.raises(UsageError, match=r"config key device 'nope' is not a torch device"):
        check_device("nope", "config key device")
    with pytest.raises(UsageError, match=r"config key device 'cuda:99' is not usable here \("):
        check_device("cuda:99", "config key device")


def test_train_refuses_a_device_it_cannot_use_before_any_work(tmp_path, capsys, monkeypatch):
    """Was: parsed by torch.device only, and SB3 trains on the cpu when CUDA is missing."""
    _no_long_work(monkeypatch)
    line = _refusal("train", ["--config", SAC_YAML, "--runs-dir", str(tmp_path),
                              "--no-progress", "--set", "device=cuda:99"], capsys)
    assert "config key device 'cuda:99' is not usable here" in line, line
    assert not any(tmp_path.iterdir())


# -- 6. empty options and files; reproduce's stage options ------------------------------------


@pytest.mark.parametrize("script,argv", [
    ("train", ["--config", SAC_YAML]),
    ("train_aim", ["--config", AIM_YAML]),
    ("expert_iteration", ["--config", GOLF_EXPERT]),
    ("reproduce", ["--game", "keglebillard"]),
    ("selfplay", []),
])
def test_an_empty_runs_dir_is_refused_by_every_run_script(tmp_path, capsys, monkeypatch, script,
                                                          argv):
    """'' was the working directory for all but selfplay."""
    _no_long_work(monkeypatch)
    monkeypatch.setitem(_script("reproduce").STAGES, "keglebillard", (_no_work, _no_work))
    monkeypatch.chdir(tmp_path)
    line = _refusal(script, [*argv, "--runs-dir", "", "--no-progress"], capsys)
    assert "--runs-dir '': give a folder (an empty one is not the default)" in line, line
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("script", ["train", "train_aim", "expert_iteration", "selfplay"])
def test_an_empty_config_file_or_option_is_refused(tmp_path, capsys, monkeypatch, script):
    """An empty file was all defaults for train_aim, expert_iteration and selfplay (train
    refused it); ``--config ''`` was all defaults for train_aim and expert_iteration."""
    _no_long_work(monkeypatch)
    monkeypatch.chdir(tmp_path)
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing set\n")
    runs = tmp_path / "runs"
    line = _refusal(script, ["--config", str(empty), "--runs-dir", str(runs)], capsys)
    assert f"config file {empty} is empty" in line, line
    line = _refusal(script, ["--config", "", "--runs-dir", str(runs)], capsys)
    assert "--config '': give a file" in line, line
    assert not runs.exists()


def test_reproduce_names_the_stage_option_of_a_pair_without_a_value(tmp_path, capsys):
    line = _refusal("reproduce", ["--game", "keglebillard", "--runs-dir", str(tmp_path),
                                  "--aim", "noequals"], capsys)
    assert "--aim needs key=value, got 'noequals'" in line, line
    line = _refusal("reproduce", ["--game", "keglebillard", "--runs-dir", str(tmp_path),
                                  "--leave", "fit={epochs: [}"], capsys)
    assert "--leave fit: " in line and "is not valid YAML" in line, line
    assert not any(tmp_path.iterdir())


def test_reproduce_refuses_a_stage_fit_threads_that_contradicts_fit_threads(tmp_path, capsys,
                                                                            monkeypatch):
    from cuegym.experiments import reproduce

    seen = {}

    def configs(name, runs, resume, progress, fit_threads, sets):
        seen.update(fit_threads=fit_threads, sets=sets)
        raise _WorkStarted("configs loaded")

    monkeypatch.setitem(reproduce.STAGES, "keglebillard", (configs, _no_work))
    base = ["--game", "keglebillard", "--runs-dir", str(tmp_path)]
    line = _refusal("reproduce", [*base, "--fit-threads", "3", "--aim", "fit={threads: 7}"],
                    capsys)
    assert "--aim fit.threads=7 contradicts --fit-threads: give one of them" in line, line
    assert not seen and not any(tmp_path.iterdir())
    # without --fit-threads a stage may set its own (the others keep the default, 2)
    with pytest.raises(_WorkStarted):
        reproduce.main.__wrapped__([*base, "--aim", "fit={threads: 7}"])
    assert seen["sets"]["aim"]["fit"]["threads"] == 7 and seen["fit_threads"] == 2
    # the same value twice is no contradiction
    with pytest.raises(_WorkStarted):
        reproduce.main.__wrapped__([*base, "--fit-threads", "3", "--leave", "fit={threads: 3}"])
    assert seen["fit_threads"] == 3
