"""The ``cuegym`` command and the shared error handling of every command line: registration on
``import cuegym`` in a fresh process, packaging (console script, py.typed, the experiments
subpackage), subcommands from a directory outside the checkout, one-line errors with exit status
2, quiet exit into a closed pipe."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cuegym
from cuegym import cli
from cuegym.cli_errors import EXIT_BROKEN_PIPE, did_you_mean, one_line, run_cli, unknown

PKG = Path(cuegym.__file__).resolve().parent


def _run(args: list[str], cwd: Path, stdin: str = "", timeout: float = 240
         ) -> subprocess.CompletedProcess:
    """``python -m cuegym.cli ARGS`` in ``cwd`` (a directory outside the checkout)."""
    env = {**os.environ, "CUEGYM_DEBUG": ""}
    return subprocess.run([sys.executable, "-m", "cuegym.cli", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=timeout, env=env)


def _one_error_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


# -- registration and packaging --------------------------------------------------------------


def test_import_cuegym_registers_the_ids_in_a_fresh_process(tmp_path):
    code = """
import sys
import cuegym
heavy = [m for m in ("numba", "torch", "stable_baselines3", "cuegym.physics") if m in sys.modules]
assert not heavy, heavy  # registration is strings only
import gymnasium as gym
ids = sorted(k for k in gym.registry if k.startswith("cuegym/"))
assert ids == ["cuegym/Golfbillard-v0", "cuegym/GolfbillardShot-v0", "cuegym/Keglebillard-v0",
               "cuegym/KeglebillardShot-v0"], ids
for i in ids:
    assert gym.spec(i).vector_entry_point.startswith("cuegym.envs."), i
env = gym.make("cuegym/KeglebillardShot-v0")
obs, _ = env.reset(seed=0)
_, _, terminated, _, _ = env.step(env.action_space.sample())
venv = gym.make_vec("cuegym/GolfbillardShot-v0", num_envs=3,
                    vectorization_mode="vector_entry_point")
print(obs.shape[0], terminated, venv.reset(seed=0)[0].shape[0])
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["29", "True", "3"]


def test_module_prefix_make_works_without_importing_cuegym(tmp_path):
    """A Ray/subprocess worker that never imported cuegym: ``gym.make("cuegym:<id>")``."""
    code = ("import gymnasium as gym; env = gym.make('cuegym:cuegym/GolfbillardShot-v0'); "
            "print(env.reset(seed=1)[0].shape)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(43,)"


def test_pyproject_ships_the_command_py_typed_and_the_experiments():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    meta = tomllib.loads((PKG / "pyproject.toml").read_text())
    assert meta["project"]["scripts"]["cuegym"] == "cuegym.cli:main"
    assert meta["project"]["scripts"]["cuegym-physics"] == "cuegym.physics.__main__:main"
    assert "cuegym.experiments" in meta["tool"]["setuptools"]["packages"]
    assert "py.typed" in meta["tool"]["setuptools"]["package-data"]["cuegym"]
    assert (PKG / "py.typed").exists() and (PKG / "experiments" / "__init__.py").exists()
    assert "hypothesis" in " ".join(meta["project"]["optional-dependencies"]["test"])
    assert "moviepy" in " ".join(meta["project"]["optional-dependencies"]["video"])
    for command, (module, *_rest) in cli.COMMANDS.items():
        if command != "play":  # built on another branch; the dispatcher reports it missing
            assert (PKG / Path(*module.split(".")[1:])).with_suffix(".py").exists(), module


def test_env_constructor_arguments_are_typed_and_keyword_only():
    import inspect

    import cuegym.envs as E

    for name in ("KeglebillardShotEnv", "KeglebillardEnv", "GolfbillardShotEnv",
                 "GolfbillardEnv"):
        params = inspect.signature(getattr(E, name)).parameters
        assert params and all(p.kind is p.KEYWORD_ONLY for p in params.values()), name
        assert all(p.annotation is not inspect.Parameter.empty for p in params.values()), name
        vec = inspect.signature(getattr(E, name.replace("Env", "VectorEnv"))).parameters
        # the vector envs take gymnasium.make_vec's max_episode_steps too (gymnasium.make wraps
        # the single envs in TimeLimit instead)
        assert list(vec) == ["num_envs", *params, "max_episode_steps"], name
    with pytest.raises(TypeError, match="noice"):
        E.KeglebillardShotEnv(noice="tournament")


# -- the console command ---------------------------------------------------------------------


def test_help_lists_every_subcommand(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("simulate", "rules", "train", "evaluate", "selfplay", "replay", "bench", "play"):
        assert f"  {name} " in out


def test_bench_help_lists_the_benchmarks(capsys):
    """'cuegym bench --help' showed the physics benchmark's options only, hiding the others."""
    assert cli.main(["bench", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: cuegym bench [physics | envs | tournament]")
    assert all(f"  {name} " in out for name in ("physics", "envs", "tournament"))


@pytest.mark.parametrize("args", [["simulate"], ["rules"], ["train"], ["evaluate"],
                                  ["selfplay"], ["replay"], ["bench", "physics"],
                                  ["bench", "envs"], ["bench", "tournament"]])
def test_every_subcommand_has_help(args, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([*args, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    # every usage line names what was typed (physics, rules and play too, whose own entry
    # points name themselves "python -m cuegym.<pkg>")
    assert out.splitlines()[0].startswith(f"usage: cuegym {' '.join(args)} ")


def test_rules_score_help_gives_the_input_forms(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["rules", "score", "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0
    for key in ('"state"', '"shot"', '"log"', '"hand_log"', '"event_states"', '"place"',
                '"strike"', '"inject"'):
        assert key in out, key


def test_module_entry_points_keep_their_own_names(capsys):
    from cuegym.rules.__main__ import main as rules_main

    with pytest.raises(SystemExit):
        rules_main(["--help"])
    assert capsys.readouterr().out.startswith("usage: python -m cuegym.rules ")


def test_scripts_name_what_the_user_typed(tmp_path):
    """Under ``python -m`` argparse named the file (``usage: evaluate.py``), which does not run
    that way; a script run by its path keeps the file's name, ``cuegym evaluate`` its own."""
    from cuegym.cli_errors import script_prog

    out = subprocess.run([sys.executable, "-m", "cuegym.experiments.evaluate", "--help"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: python -m cuegym.experiments.evaluate ")
    spec = importlib.util.find_spec("cuegym.experiments.evaluate")
    assert script_prog("__main__", spec) == "python -m cuegym.experiments.evaluate"
    assert script_prog("__main__", None) is None  # python experiments/evaluate.py
    assert script_prog("cuegym.experiments.evaluate", spec) is None  # imported, e.g. by a test


def test_unknown_command_suggests_the_closest(capsys):
    assert cli.main(["tran"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'tran' (did you mean 'train'?)" in err and len(err.splitlines()) == 1


def test_help_names_a_command_and_version_takes_nothing(capsys):
    """'cuegym help train' and 'cuegym --help train' printed the top-level usage, and
    'cuegym --version extra' ignored 'extra'."""
    for first in ("help", "--help", "-h"):
        with pytest.raises(SystemExit) as exc:
            cli.main([first, "train"])
        assert exc.value.code == 0
        assert capsys.readouterr().out.startswith("usage: cuegym train ")
    assert cli.main(["help", "tran"]) == 2
    assert "unknown command 'tran' (did you mean 'train'?)" in capsys.readouterr().err
    assert cli.main(["help", "train", "evaluate"]) == 2
    assert "help takes one command name, got 'train evaluate'" in capsys.readouterr().err
    assert cli.main(["--version", "extra"]) == 2
    assert "--version takes no arguments, got 'extra'" in capsys.readouterr().err


def test_rules_subcommand_errors_show_the_subcommands_usage(capsys):
    """The checks after parsing printed the parent's usage ('cuegym rules [-h]
    {score,new,play}'), which names none of the options refused."""
    for argv, says in ((["rules", "new", "--seed", "5"], "--seed 5: a new keglebillard game"),
                       (["rules", "play", "--max-shots", "0"], "--max-shots must be >= 1")):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 2
        assert err.startswith(f"usage: cuegym rules {argv[1]} ") and says in err, err


def test_play_without_the_play_package_is_one_line(capsys, monkeypatch):
    monkeypatch.setitem(cli.COMMANDS, "play", ("cuegym.no_such_play.__main__", "main", (), ""))
    assert cli.main(["play"]) == 2
    err = capsys.readouterr().err.strip()
    assert "'cuegym play' is not available" in err and len(err.splitlines()) == 1


def test_simulate_and_rules_from_outside_the_checkout(tmp_path):
    new = _run(["rules", "new", "--game", "keglebillard", "--players", "3"], tmp_path)
    assert new.returncode == 0, new.stderr
    assert json.loads(new.stdout)["players"] == 3
    shot = {"table": "keglebillard", "balls": {"red": {"x": -0.7, "y": 0.0}},
            "strike": {"ball": "red", "V0": 2.0, "phi": 0.0, "theta": 0.0, "a": 0.0, "b": 0.0}}
    sim = _run(["simulate"], tmp_path, stdin=json.dumps(shot))
    assert sim.returncode == 0, sim.stderr
    assert "events" in json.loads(sim.stdout)
    assert not (tmp_path / "runs").exists()


# The script sits beside the interpreter that runs the tests (.venv/bin), on PATH or not.
_SCRIPT = shutil.which("cuegym", path=str(Path(sys.executable).parent)) or shutil.which("cuegym")


@pytest.mark.skipif(_SCRIPT is None, reason="console script not installed "
                    "(pip install -e . installs it)")
def test_installed_console_script(tmp_path):
    out = subprocess.run([_SCRIPT, "--help"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and "simulate" in out.stdout


# -- one-line errors, exit status 2 ----------------------------------------------------------


def test_bad_json_and_unknown_game_are_one_line(tmp_path):
    line = _one_error_line(_run(["simulate"], tmp_path, stdin="{not json"))
    assert "not valid JSON" in line
    # a key given twice was last-wins: the shot ran with the second value, silently
    line = _one_error_line(_run(["simulate"], tmp_path,
                                stdin='{"table": "keglebillard", "table": "golfbillard"}'))
    assert "not valid JSON: the key 'table' appears twice in one object" in line
    line = _one_error_line(_run(["rules", "new", "--game", "kegelbillard"], tmp_path))
    assert "'kegelbillard'" in line and "did you mean 'keglebillard'" in line


def test_train_config_mistakes_are_one_line(tmp_path):
    line = _one_error_line(_run(["train", "--config", "missing.yaml"], tmp_path))
    assert "'missing.yaml'" in line
    (tmp_path / "bad.yaml").write_text("algo: [sac\n")
    line = _one_error_line(_run(["train", "--config", "bad.yaml"], tmp_path))
    assert line.startswith("error: bad YAML") and "bad.yaml" in line
    (tmp_path / "keys.yaml").write_text("algoo: sac\n")
    line = _one_error_line(_run(["train", "--config", "keys.yaml"], tmp_path))
    assert "algoo" in line
    assert not (tmp_path / "runs").exists()


def test_shipped_config_is_found_from_any_directory(tmp_path, monkeypatch):
    from cuegym.cli_errors import UsageError, resolve_path

    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="config file not found: 'configs/nope.yaml'"):
        resolve_path("configs/nope.yaml", "config file")

    p = resolve_path("configs/train/keglebillard_sac.yaml")
    assert p.is_absolute() and p.exists()


def test_shipped_models_are_found_from_any_directory(tmp_path, monkeypatch):
    """docs/envs.md: ``agents/pretrained/...`` paths not in the working directory come from the
    installed package, for make_agent (evaluate, replay) and selfplay --init alike."""
    from cuegym.agents import make_agent
    from cuegym.experiments.selfplay import _init_model_file

    monkeypatch.chdir(tmp_path)
    agent = make_agent("agents/pretrained/keglebillard.zip:aim=none", "keglebillard")
    assert agent.path.is_absolute() and agent.path.exists()
    assert _init_model_file("agents/pretrained/keglebillard") == agent.path
    assert _init_model_file("agents/pretrained/nope.zip") is None
    with pytest.raises(FileNotFoundError, match="no model file nope.zip"):
        make_agent("nope.zip", "keglebillard")


def test_bad_noise_preset_is_one_line_with_a_suggestion(tmp_path):
    line = _one_error_line(_run(["replay", "--noise", "tournment", "--out",
                                 str(tmp_path / "x.gif")], tmp_path))
    assert "'tournment'" in line and "did you mean 'tournament'" in line


def test_unknown_agent_names_the_value_with_a_suggestion():
    from cuegym.agents import make_agent

    with pytest.raises(ValueError, match=r"unknown agent 'planer' \(did you mean 'planner'\?\)"):
        make_agent("planer", "keglebillard")


def test_closed_pipe_exits_quietly(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "cuegym.cli", "rules", "play", "--game",
                             "keglebillard", "--players", "3", "--shots", "--indent", "1"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(10)
    proc.stdout.close()  # like `| head -c 10`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=240) in (0, EXIT_BROKEN_PIPE)
    assert err == ""


@pytest.mark.parametrize("args", [["--help"], ["--version"]])  # (no command: usage on stderr)
def test_usage_into_a_closed_pipe_exits_quietly(args, tmp_path):
    # the reader is gone before cuegym writes (`cuegym --help | true`): its usage and version
    # lines end like a command's output does, not in a BrokenPipeError traceback
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([sys.executable, "-m", "cuegym.cli", *args], cwd=tmp_path,
                              stdout=write, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write)
    assert proc.returncode == EXIT_BROKEN_PIPE
    assert proc.stderr.decode() == ""


def test_run_cli_turns_user_mistakes_into_one_line(capsys):
    def bad_value(argv):
        raise ValueError("n_envs must be a positive integer,\n got 'x'")

    def bug(argv):
        raise KeyError("a bug")

    assert run_cli(bad_value) == 2
    assert capsys.readouterr().err == "error: n_envs must be a positive integer, got 'x'\n"
    with pytest.raises(KeyError):  # a bug keeps its traceback
        run_cli(bug)
    assert one_line(FileNotFoundError(2, "No such file or directory", "m.zip")) == \
        "No such file or directory: 'm.zip'"
    assert one_line(ModuleNotFoundError("x", name="moviepy")).startswith(
        "this needs the package 'moviepy'")
    assert one_line(FileExistsError(17, "File exists", "runs/x")) == "File exists: 'runs/x'"


def test_unknown_env_id_is_one_line(capsys):
    import gymnasium as gym

    assert run_cli(lambda argv: gym.make("cuegym/GolfbillardGame-v0")) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Environment `GolfbillardGame` doesn't exist") and \
        "Golfbillard" in err and "Traceback" not in err


def test_debug_variable_keeps_the_traceback(monkeypatch):
    monkeypatch.setenv("CUEGYM_DEBUG", "1")

    def bad_value(argv):
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        run_cli(bad_value)
    # the referees' and the simulator's own one-line errors too
    from cuegym.physics.__main__ import main as physics_main
    from cuegym.rules.__main__ import main as rules_main

    with pytest.raises(ValueError, match="2 players or 2 duos"):
        rules_main(["new", "--game", "golfbillard", "--players", "3"])
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO('{"shots": 1}'))
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['shots'\]"):
        physics_main(["simulate"])


def test_did_you_mean():
    assert did_you_mean("tournment", ["none", "tournament"]) == " (did you mean 'tournament'?)"
    assert did_you_mean("xyz", ["none", "tournament"]) == ""
    assert unknown("agent", "ranodm", ["random", "planner"]) == (
        "unknown agent 'ranodm' (did you mean 'random'?); known: 'random', 'planner'")


# -- hostile command lines: every bad value is one line naming it, exit status 2 -------------

EXPERIMENTS = PKG / "experiments"


def _experiment(name: str):
    """The ``main`` of ``experiments/<name>.py`` (imported as ``cuegym.experiments.<name>``)."""
    import importlib

    return importlib.import_module(f"cuegym.experiments.{name}").main


def _usage_error(main, argv: list[str], capsys) -> str:
    """Run ``main(argv)`` (cli_main-wrapped or argparse): status 2, no traceback; the last
    stderr line, which names the bad value."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's error (usage line, then the message)
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, (code, err)
    assert "Traceback" not in err, err
    return err.strip().splitlines()[-1]


def test_unknown_agent_option_names_it_and_the_known_ones():
    from cuegym.agents import make_agent

    for spec, known in (("planner:bogus=1", "n_candidates"), ("random:seed=1", "name"),
                        ("geometric:noise=x", "spin"), ("guided:bogus=1", "n_top")):
        name, _, opt = spec.partition(":")
        with pytest.raises(ValueError, match=rf"unknown {name} option '{opt.split('=')[0]}'"
                                             rf".*{known}"):
            make_agent(spec, "keglebillard")
    with pytest.raises(ValueError, match=r"unknown pretrained option 'bogus'.*'aim'"):
        make_agent("pretrained:bogus=1", "golfbillard")


@pytest.mark.parametrize("argv,says", [
    (["new", "--seed", "-1"], "argument --seed: must be an integer >= 0, got -1"),
    (["play", "--max-shots", "0"], "--max-shots must be >= 1, got 0"),
    (["new", "--indent", "-2"], "--indent must be >= 0, got -2"),
    (["new", "--game", "keglebillard", "--seed", "3"],
     "--seed 3: a new keglebillard game draws nothing unless the rules' first_player is random"),
])
def test_rules_command_refuses_bad_numbers(argv, says, capsys):
    from cuegym.rules.__main__ import main

    assert says in _usage_error(main, argv, capsys)


@pytest.mark.parametrize("name,argv,says", [
    ("evaluate", ["--seed", "-1"], "argument --seed: must be an integer >= 0"),
    ("evaluate", ["--agents", "random,planner:bogus=1", "--games", "1", "--quiet"],
     "unknown planner option 'bogus'"),
    ("bench_tournament", ["--seed", "-1", "--agents", "random,random"],
     "argument --seed: must be an integer >= 0"),
    ("bench_envs", ["--seconds", "nan"], "--seconds must be a finite number > 0, got nan"),
    ("bench_envs", ["--seed", "-1"], "argument --seed: must be an integer >= 0"),
    ("bench_envs", ["--threads", "999"], "--threads must be in [0,"),
    ("bench_physics", ["--seconds", "nan"], "--seconds must be a finite number > 0"),
    ("bench_physics", ["--batches", "-4"], "--batches takes comma-separated integers"),
    ("bench_physics", ["--threads", "x"], "--threads takes comma-separated integers"),
    ("bench_physics", ["--threads", "999"], "got '999'"),
    ("bench_physics", ["--per-event", "0"], "--per-event takes comma-separated integers"),
    ("bench_physics", ["--against", "old"], "--against compares --per-event or --per-call"),
    ("bench_physics", ["--per-call", "--shots"], "--per-call and --shots are separate"),
    ("bench_physics", ["--per-call", "0"], "--per-call takes comma-separated integers"),
    ("bench_physics", ["--n-shots", "3"], "--n-shots sets the generated shots of --shots"),
    ("bench_physics", ["--per-event", "2", "--games", "golfbillard"], "--games set the table"),
    ("soak", ["--games", "nope"], "unknown game 'nope'"),
    ("soak", ["--batch", "0"], "--batch must be >= 1, got 0"),
    ("soak", ["--max-events", "0"], "--max-events must be >= 1, got 0"),
    ("soak", ["--seed", "-1"], "argument --seed: must be an integer >= 0"),
    ("replay", ["--seed", "-1"], "argument --seed: must be an integer >= 0"),
    ("replay", ["--fps", "0"], "--fps must be a number in"),
    ("replay", ["--speed", "nan"], "--speed must be a finite number > 0, got nan"),
    ("replay", ["--agents", "random,random", "--what", "shot"], "cannot be used with --what shot"),
    ("replay", ["--what", "game", "--action", "0", "0", "0", "0", "0", "0", "0"],
     "--action is the action of a shot"),
    ("replay", ["--max-shots", "5"], "--max-shots is for a game"),
    ("replay", ["--what", "game", "--max-shots", "0"], "--max-shots must be >= 1"),
    ("replay", ["--agents", "random"], "--agents needs two agents a,b"),
    ("replay", ["--out", "x.txt"], "--out 'x.txt': the replay is a .gif or a video"),
    ("replay", ["--noise", "-1"], "--noise '-1': noise.scale is a standard deviation"),
    ("replay", ["--out", "afile/x.gif"], "is a file, not a folder"),
    ("aim_sweep", ["--seed", "-1"], "argument --seed: must be an integer >= 0"),
    ("aim_sweep", ["--json", "x.json"], "--json only applies with --fit"),
    ("leave_probe", ["--weight", "nan"],
     "argument --weight: must be a finite number >= 0, got 'nan'"),
    ("choice_bound", ["--weight", "-1"],
     "argument --weight: must be a finite number >= 0, got '-1'"),
    ("choice_bound", ["--weight", "inf"], "argument --weight: must be a finite number >= 0"),
    ("choice_bound", ["--weight", "x"], "argument --weight: must be a finite number >= 0, got 'x'"),
    ("leave_probe", ["--leave", "missing.pt"], "no leave network 'missing.pt'"),
    ("aim_bound", ["--seed", "-1"], "argument --seed: must be an integer >= 0"),
    ("choice_bound", ["--seed", "-1"], "argument --seed: must be an integer >= 0"),
    ("make_position_bank", ["--seed", "-1"], "argument --seed: must be an integer >= 0"),
    ("demo", ["--minutes", "1", "--skip-train"], "--skip-train skips"),
    ("demo", ["--minutes", "nan"], "--minutes must be a finite number > 0"),
    ("demo", ["--games", "0"], "--games must be >= 1, got 0"),
    ("reproduce", ["--game", "keglebillard", "--seed", "-1"],
     "argument --seed: must be an integer >= 0"),
    ("evaluate", ["--out", "afile/x", "--games", "1"], "--out 'afile/x': "),
    ("expert_retrain", ["--runs", "x", "--out", "y.pt", "--lr", "inf"],
     "--lr must be a finite number > 0, got inf"),
    ("validate_pooltool", ["--shots", "0"], "--shots must be >= 1, got 0"),
    ("selfplay", ["--generations", "0"], "generations must be an integer >= 1, got 0"),
    ("selfplay", ["--promote-at", "nan"], "promote_at must be a win rate in [0, 1], got nan"),
    ("selfplay", ["--seed", "-1"], "seed must be an integer >= 0, got -1"),
    ("selfplay", ["--init", "missing.zip"], "no model file 'missing.zip'"),
])
def test_experiment_scripts_refuse_bad_values(name, argv, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing the scripts might write lands in the checkout
    (tmp_path / "afile").write_text("")  # a file where a folder is asked for
    line = _usage_error(_experiment(name), argv, capsys)
    assert says in line, line
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("key,says", [
    ("policy_kwargs={nosuch: 1}", "unknown policy_kwargs key 'nosuch'"),
    ("env_kwargs={nosuch: 1}", "unknown env_kwargs key 'nosuch'"),
    ("algo_kwargs={nosuch: 1}", "unknown algo_kwargs key 'nosuch'"),
    ("demos={nosuch: 1}", "unknown demos key(s) ['nosuch']"),  # without states: was ignored
    ("device=nope", "'nope' is not a torch device"),
])
def test_train_refuses_unknown_keys_passed_on_to_sb3_and_the_env(key, says, capsys, tmp_path):
    line = _usage_error(_experiment("train"), ["--set", key, "--runs-dir", str(tmp_path)],
                        capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())  # refused before the run directory is made


def test_scripts_outside_cli_main_before_are_one_line_now(tmp_path):
    """soak, draw_golf_zones and demo printed tracebacks (a KeyError, a ValueError from
    matplotlib, a CalledProcessError of the step that had already said why)."""
    env = {**os.environ, "CUEGYM_DEBUG": ""}
    for args, says in ((["soak.py", "--games", "nope"], "unknown game 'nope'"),
                       (["draw_golf_zones.py", "--out", str(tmp_path / "z.nope")],
                        "Format 'nope' is not supported")):
        proc = subprocess.run([sys.executable, str(EXPERIMENTS / args[0]), *args[1:]],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              env=env)
        assert says in _one_error_line(proc)


def test_yaml_keys_and_agent_options_given_twice_are_refused():
    """PyYAML and a key=value list would keep the last of two silently."""
    import yaml

    from cuegym.agents import parse_options
    from cuegym.configs import load_yaml

    with pytest.raises(yaml.YAMLError, match="found the key 'name' twice"):
        load_yaml("name: a\nseed: 1\nname: b\n")
    assert load_yaml("b: &b {x: 1}\nc: {<<: *b, y: 2}\n")["c"] == {"x": 1, "y": 2}
    with pytest.raises(ValueError, match="'n_candidates' is given twice"):
        parse_options("planner:n_candidates=8,n_candidates=9")


def test_play_refuses_a_save_dir_that_is_a_file(tmp_path, capsys):
    pytest.importorskip("uvicorn")
    from cuegym.play.__main__ import main

    f = tmp_path / "records"
    f.write_text("")
    assert "is a file, not a folder" in _usage_error(main, ["--save-dir", str(f)], capsys)


def test_play_refuses_records_that_are_no_folder_and_a_host_it_cannot_bind(tmp_path, capsys):
    """--records /typo started the server listing nothing; a bad --host ended in uvicorn's log
    line with exit status 3."""
    pytest.importorskip("uvicorn")
    from cuegym.play.__main__ import main

    err = _usage_error(main, ["--records", str(tmp_path / "nope"), "--no-warmup"], capsys)
    assert "is not a folder of saved games (no such folder)" in err
    f = tmp_path / "file"
    f.write_text("")
    assert "(it is a file)" in _usage_error(main, ["--records", str(f)], capsys)
    err = _usage_error(main, ["--host", "999.1.1.1", "--no-warmup"], capsys)
    assert "--host '999.1.1.1' is not an address this machine can bind" in err


def test_python_dash_m_cuegym_is_the_cuegym_command(tmp_path):
    """``python -m cuegym`` failed: 'cuegym is a package and cannot be directly executed'."""
    out = subprocess.run([sys.executable, "-m", "cuegym", "--help"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: cuegym")
