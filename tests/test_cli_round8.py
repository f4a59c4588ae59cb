"""Command-line details an outside audit found (round 8): outputs the user pointed elsewhere,
usage lines of the command typed, help texts that match the code, repeated names."""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_cli import _experiment, _usage_error


def _cuegym(args):
    return subprocess.run([sys.executable, "-m", "cuegym", *args], capture_output=True,
                          text=True, timeout=120)


def test_demo_training_run_goes_under_out(tmp_path, monkeypatch):
    """The training run (and its --overwrite) went to ./runs/demo_keglebillard whatever --out
    said."""
    from cuegym.experiments import demo

    monkeypatch.chdir(tmp_path)
    cmds = []
    monkeypatch.setattr(demo, "run", lambda cmd: cmds.append(cmd))
    monkeypatch.setattr(demo, "physics_part", lambda out: None)
    out = tmp_path / "elsewhere"
    assert demo.main(["--out", str(out), "--timesteps", "8", "--games", "1"]) == 0
    train = next(c for c in cmds if c[1].endswith("train.py"))
    assert train[train.index("--runs-dir") + 1] == str(out)
    tour = next(c for c in cmds if c[1].endswith("evaluate.py"))
    assert str(out / "demo_keglebillard" / "model.zip") in tour[tour.index("--agents") + 1]


@pytest.mark.parametrize("script,argv", [("demo", ["--out", "", "--skip-train"]),
                                         ("rules_walkthrough", ["--out", " "])])
def test_an_empty_out_is_refused(script, argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = _usage_error(_experiment(script), argv, capsys)
    assert "--out" in line and "give a folder (an empty one is not the default)" in line, line
    assert list(tmp_path.iterdir()) == []


def test_simulate_usage_error_names_the_simulate_command():
    r = _cuegym(["simulate", "extra"])
    assert r.returncode == 2 and "usage: cuegym simulate" in r.stderr, r.stderr
    assert "cuegym simulate: error: unrecognized arguments: extra" in r.stderr


def test_physics_arguments_before_the_subcommand_are_the_parents():
    r = subprocess.run([sys.executable, "-m", "cuegym.physics", "--bogus", "simulate"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "simulate: error" not in r.stderr, r.stderr


def test_bare_cuegym_usage_goes_to_stderr_and_help_to_stdout():
    r = _cuegym([])
    assert r.returncode == 2 and r.stdout == "" and "usage: cuegym" in r.stderr
    r = _cuegym(["--help"])
    assert r.returncode == 0 and "usage: cuegym" in r.stdout


def test_evaluate_benchmark_help_lists_every_option_it_refuses():
    from cuegym.experiments.evaluate import TOURNAMENT_ONLY, _parser

    part = next(a.help for a in _parser()._actions if "--benchmark" in a.option_strings)
    for k in TOURNAMENT_ONLY:
        assert f"--{k.replace('_', '-')}" in part, (k, part)


def test_replay_out_help_names_the_default_path_it_writes():
    from cuegym.experiments.replay import Settings, out_path

    r = _cuegym(["replay", "--help"])
    assert "runs/replay/<table>_<what>_<seed>.gif" in " ".join(r.stdout.split())
    cfg = Settings(game="keglebillard", what="shot", seed=0, table="keglebillard-helmatch")
    assert str(out_path(cfg)) == "runs/replay/keglebillard-helmatch_shot_0.gif"


def test_soak_refuses_a_game_named_twice(capsys):
    line = _usage_error(_experiment("soak"), ["--games", "keglebillard,keglebillard"], capsys)
    assert "--games 'keglebillard,keglebillard' names a game twice" in line, line


def test_replay_plays_a_random_game_under_the_rules_given(tmp_path, monkeypatch):
    """--rules reach the random game's game layer (replay had no --rules)."""
    from cuegym.experiments import replay

    seen = []
    real = replay._kegle_random_game

    def spy(cfg, *a):
        seen.append(cfg.rules)
        return real(cfg, *a)

    monkeypatch.setattr(replay, "_kegle_random_game", spy)
    out = tmp_path / "g.gif"
    assert replay.main(["--what", "game", "--rules", "distance=4", "first_player=random",
                        "--max-shots", "2", "--fps", "1", "--out", str(out)]) == 0
    assert seen == [{"distance": 4, "first_player": "random"}] and out.exists()


@pytest.mark.parametrize("argv,says", [
    (["--agents", "random,random", "--rules", "variant=ddbu"],
     "--rules variant: a game between --agents is played as the web table plays it"),
    (["--game", "golfbillard", "--agents", "random,random", "--rules", "duo=true"],
     "takes the golfbillard options match only"),
    (["--rules", "distance=5"], "rules option distance = 5 is not used by KegleShotCore"),
    (["--what", "game", "--rules", "bogus=1"], "unknown keglebillard rule option key(s)"),
])
def test_replay_refuses_rules_its_mode_would_not_play(argv, says, capsys, tmp_path):
    line = _usage_error(_experiment("replay"), [*argv, "--out", str(tmp_path / "x.gif")],
                        capsys)
    assert says in line, line
    assert not (tmp_path / "x.gif").exists()


def test_demo_refuses_a_seed_the_training_cannot_take_before_the_physics(capsys, monkeypatch):
    from cuegym.experiments import demo

    ran = []
    monkeypatch.setattr(demo, "physics_part", lambda out: ran.append(out))
    line = _usage_error(_experiment("demo"), ["--seed", str(2**32)], capsys)
    assert "--seed must be <= 4294967295" in line and ran == [], line
