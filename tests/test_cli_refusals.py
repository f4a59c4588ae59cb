"""Command-line mistakes of train, evaluate and selfplay: one line naming the value, exit status
2, checked before any work, existing outputs left as they were; options a mode would ignore are
refused (black-box audit items 1-6, 11, 12)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("stable_baselines3")

ROOT = Path(__file__).resolve().parents[1]
TRAIN = ROOT / "configs" / "train"
SAC = str(TRAIN / "keglebillard_sac.yaml")
DQN = str(TRAIN / "keglebillard_dqn.yaml")
TINY = ["--no-progress", "--timesteps", "32", "--set", "demos={}", "n_envs=2", "eval_freq=32",
        "eval_episodes=4", "checkpoint_freq=32", "policy_kwargs={net_arch: [8]}",
        "algo_kwargs={learning_starts: 8, batch_size: 8, buffer_size: 500}"]


def _main(name: str):
    return importlib.import_module(f"cuegym.experiments.{name}").main


def _refused(name: str, argv: list[str], capsys) -> str:
    """Run the script's main: exit status 2, no traceback; its last stderr line."""
    try:
        code = _main(name)(argv)
    except SystemExit as exc:  # argparse's error (usage line, then the message)
        code = exc.code
    cap = capsys.readouterr()
    err = cap.err
    assert code == 2, (code, err, cap.out[-2000:])
    assert "Traceback" not in err, err
    return err.strip().splitlines()[-1]


def _snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


# -- 1. a refused --overwrite leaves the old run as it was -----------------------------------


def test_a_refused_overwrite_leaves_the_old_run_untouched(tmp_path, capsys):
    argv = ["--config", SAC, "--name", "r", "--runs-dir", str(tmp_path), *TINY]
    assert _main("train")(argv) == 0
    run = tmp_path / "r"
    before = _snapshot(run)
    assert {"model.zip", "config.yaml", "status.json"} <= set(before)
    for bad in ("env_kwargs={noise: -1}", "residual={dphi: nan}", "algo_kwargs={bogus: null}",
                "algo_kwargs={learning_rate: abc}", "policy_kwargs={activation_fn: 3}"):
        line = _refused("train", [*argv, bad, "--overwrite"], capsys)
        assert line.startswith("error: "), line
        assert _snapshot(run) == before, bad


# -- 2. unknown keys are refused whatever their value, null included -------------------------


@pytest.mark.parametrize("key,says", [
    ("bogus=null", "unknown train config key(s) ['bogus']"),
    ("algo_kwargs={bogus: null}", "unknown algo_kwargs key 'bogus'"),
    ("residual={bogus: null}", "unknown residual key 'bogus'"),
    ("demos={bogus: null}", "unknown demos key(s) ['bogus']"),
    ("algo_kwargs={learning_starts:16}", "(did you mean 'learning_starts'?)"),
])
def test_unknown_keys_set_to_null_are_refused(key, says, capsys, tmp_path):
    line = _refused("train", ["--config", SAC, "--runs-dir", str(tmp_path), "--set", key],
                    capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())


def test_null_still_resets_a_known_key():
    from cuegym.experiments.train_config import load_config, parse_set

    cfg = load_config(SAC, parse_set(["algo_kwargs={gamma: null, learning_starts: null}",
                                      "residual={dphi: null}", "seed=null"]))
    assert "gamma" not in cfg.algo_kwargs and "learning_starts" not in cfg.algo_kwargs
    assert "dphi" not in cfg.residual and cfg.seed == 0


# -- 3. bad keys and values of residual, choice, policy_kwargs: one line ---------------------


@pytest.mark.parametrize("config,key,says", [
    (SAC, "residual={bogus: 1}", "unknown residual key 'bogus'"),
    (SAC, "residual={dphi: nan}", "residual.dphi must be a finite number >= 0, got 'nan'"),
    (SAC, "residual={dphi: .nan}", "residual.dphi must be a finite number >= 0, got nan"),
    (SAC, "residual={n_cand: 2.5}", "residual.n_cand must be an integer >= 1, got 2.5"),
    (SAC, "policy_kwargs={net_arch: [-5]}", "policy_kwargs.net_arch must be a list of layer"),
    (SAC, "policy_kwargs={net_arch: {pi: [8], qf: [0]}}", "policy_kwargs.net_arch"),
    (DQN, "choice={bogus: 3}", "unknown choice key 'bogus'"),
    (DQN, "choice={spins: [nan]}", "choice.spins must be a list of finite numbers"),
    (DQN, "choice={speeds: [9]}", "speeds must lie in [0.2, 3.0]"),
    (SAC, "demos={states: -1}", "demos.states must be an integer >= 0, got -1"),
    (SAC, "train_positions={generate: keglebillard-play, n: 0}", "train_positions.n must be"),
])
def test_bad_wrapper_and_policy_settings_are_one_line(config, key, says, capsys, tmp_path):
    argv = ["--config", config, "--runs-dir", str(tmp_path), "--set", key]
    if config == DQN:
        argv += ["train_positions={}"]
    line = _refused("train", argv, capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())


# -- 4. options a mode would ignore ---------------------------------------------------------


@pytest.mark.parametrize("argv,says", [
    (["--episodes", "5"], "--episodes: a tournament would ignore it"),
    (["--benchmark-out", "x.md"], "--benchmark-out: a tournament would ignore it"),
    (["--benchmark", "--games", "5"], "--games: --benchmark would ignore it"),
    (["--benchmark", "--save-games", "2", "--max-shots", "5", "--out", "d"],
     "--max-shots, --out, --save-games: --benchmark would ignore them"),
    (["--agents", ""], "--agents '': a tournament needs at least two agents, got 0"),
    (["--benchmark", "--agents", " , "], "--benchmark needs at least one agent, got 0"),
    (["--agents", "geometric,random:name="], "option name= needs a label"),  # 5.
    (["--agents", "planner:name=,geometric"], "'planner:name='"),
    (["--games", "99999999999"], "--games must be in [1, 10,000]"),  # 6.
    # a bad noise is refused before the first game (was: after the tournament had started)
    (["--agents", "geometric,random", "--noise", "-1"], "--noise '-1': noise.scale is a standard"),
    (["--benchmark", "--noise", "tourney"], "did you mean 'tournament'"),
])
def test_evaluate_refuses_options_its_mode_ignores(argv, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = _refused("evaluate", ["--quiet", *argv], capsys)
    assert says in line, line
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("config,key,says", [
    (DQN, "residual={dphi: 1.0}", "config key residual sets the residual action, but the "
                                  "action is 'choice'"),
    (str(TRAIN / "keglebillard_sac_absolute.yaml"), "residual={dphi: 1.0}",
     "the action is 'absolute'"),
    (SAC, "choice={bogus: 3}", "config key choice sets the choice action"),
])
def test_train_refuses_the_settings_of_another_action(config, key, says, capsys, tmp_path):
    line = _refused("train", ["--config", config, "--runs-dir", str(tmp_path), "--set", key],
                    capsys)
    assert says in line, line


@pytest.mark.parametrize("argv,says", [
    (["--game", "keglebillard", "--train-config", str(TRAIN / "golfbillard_sac.yaml")],
     "is for golfbillard (cuegym/GolfbillardShot-v0), not keglebillard"),
    (["--game", "keglebillard", "--init", "agents/pretrained/golfbillard.zip"],
     "plays golfbillard, not keglebillard"),  # 12.
    (["--game", "golfbillard", "--init", "agents/pretrained/keglebillard.zip"],
     "plays keglebillard, not golfbillard"),
    (["--config", "prog.yaml"], "progress must be true or false, got 'maybe'"),  # 11.
    (["--config", "noise.yaml"], "self-play key noise 'tourney': unknown shot-noise preset"),
])
def test_selfplay_refuses_a_mismatch_before_writing(argv, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.yaml").write_text("progress: maybe\n")
    (tmp_path / "noise.yaml").write_text("noise: tourney\n")
    line = _refused("selfplay", [*argv, "--generations", "1", "--steps", "8"], capsys)
    assert says in line and len(line) < 300, line
    assert not (tmp_path / "runs").exists()


# -- 11. booleans ----------------------------------------------------------------------------


@pytest.mark.parametrize("extra,says", [
    ([], "config key progress_bar must be a bool, got 'maybe'"),
    (["--no-progress"], "--set progress_bar='maybe' contradicts --no-progress"),
])
def test_train_refuses_a_non_boolean_progress_bar(extra, says, capsys, tmp_path):
    line = _refused("train", ["--config", SAC, "--runs-dir", str(tmp_path), *extra,
                              "--set", "progress_bar=maybe"], capsys)
    assert says in line, line


def test_train_refuses_a_set_key_its_flag_contradicts(capsys, tmp_path):
    line = _refused("train", ["--config", SAC, "--runs-dir", str(tmp_path), "--seed", "1",
                              "--set", "seed=2"], capsys)
    assert "--set seed=2 contradicts --seed" in line, line


# -- 12. saved games carry the seed that reproduces them; a one-agent benchmark --------------


def test_saved_games_carry_the_seed_that_reproduces_them(tmp_path, capsys):
    from cuegym.agents import make_agent, make_arena, play_games
    from cuegym.play.record import load_record

    out = tmp_path / "ev"
    assert _main("evaluate")(["--agents", "geometric,random", "--games", "3", "--seed", "5",
                              "--save-games", "2", "--max-shots", "30", "--quiet", "--out",
                              str(out)]) == 0
    recs = [json.loads(p.read_text()) for p in sorted((out / "games").glob("*.json"))]
    assert len(recs) == 2
    arena = make_arena("keglebillard")
    agents = [make_agent(a, "keglebillard", arena=arena) for a in ("geometric", "random")]
    for rec in recs:
        m = rec["meta"]
        assert rec["seed"] == m["pair_seed"] == 5 and m["tournament_seed"] == 5
        assert (m["games_per_pair"], m["max_shots"]) == (3, 30)
        load_record(rec)  # the record still re-plays
    res = play_games(arena, agents, recs[0]["meta"]["games_per_pair"], seed=recs[0]["seed"],
                     max_shots=recs[0]["meta"]["max_shots"])
    for rec in recs:
        g = rec["meta"]["game_index"]
        assert int(res.n_shots[g]) == len(rec["shots"])


def test_benchmark_takes_one_agent_and_game_restricts_it(tmp_path, capsys):
    page = tmp_path / "b.md"
    assert _main("evaluate")(["--benchmark", "--agents", "geometric", "--game", "golfbillard",
                              "--episodes", "2", "--quiet", "--json", "--benchmark-out",
                              str(page)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["env_id"], r["agent"]) for r in rows] == [("cuegym/GolfbillardShot-v0",
                                                          "geometric")]
    assert "KeglebillardShot" not in page.read_text()


def test_a_config_file_with_another_actions_settings_is_refused(tmp_path, capsys):
    from cuegym.experiments.train_config import load_config

    path = tmp_path / "c.yaml"
    path.write_text("action: absolute\nresidual: {dphi: 1.0}\n")
    with pytest.raises(ValueError, match="config key residual sets the residual action"):
        load_config(path)
    # a --set action=... that switches a residual file's action is deliberate
    assert load_config(SAC, {"action": "absolute"}).action == "absolute"
    # a null inside a mapping the file lacks resets nothing and is no value
    cfg = load_config(str(TRAIN / "keglebillard_sac_absolute.yaml"),
                      {"env_kwargs": {"reward": None}, "demos": {"states": None}})
    assert cfg.demos == {} and "reward" not in cfg.env_kwargs


def test_make_agent_refuses_an_empty_name_and_demo_checks_the_game_count():
    """An empty ``name=`` given to make_agent directly crashed later (AttributeError); demo's
    --games over evaluate's limit was refused only after its training step."""
    from cuegym.agents import make_agent, parse_options

    for spec in ("random:name=", "planner:name=3", "geometric:name= "):
        with pytest.raises(ValueError, match="option name= needs a label"):
            make_agent(spec, "keglebillard")
    assert parse_options("planner:n_candidates=32,name=p32") == {"n_candidates": 32,
                                                                 "name": "p32"}
    assert make_agent("random:name=r1", "keglebillard").name == "r1"
    r = subprocess.run([sys.executable, str(ROOT / "experiments" / "demo.py"), "--games",
                        "20000"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--games must be <= 10000" in r.stderr


# -- second audit: self-play run directories, train configs and empty options -----------------


def _sp_argv(runs: Path, *extra: str) -> list[str]:
    return ["--name", "r", "--runs-dir", str(runs), "--generations", "1", "--steps", "8",
            "--no-progress", *extra]


def _old_selfplay_run(runs: Path) -> Path:
    run = runs / "r"
    (run / "pool").mkdir(parents=True)
    for f in ("model.zip", "pool/gen1.zip", "selfplay.csv", "config.yaml"):
        (run / f).write_text("old")
    (run / "notes.txt").write_text("mine")  # not a self-play file: never deleted
    return run


class _Stop(Exception):
    """Raised by a stand-in for the env: the run got past every check."""


def test_selfplay_refuses_an_existing_run_without_overwrite(tmp_path, capsys):
    run = _old_selfplay_run(tmp_path)
    before = _snapshot(run)
    line = _refused("selfplay", _sp_argv(tmp_path), capsys)
    assert "holds a run already" in line and "--overwrite" in line, line
    assert _snapshot(run) == before


def test_selfplay_overwrite_clears_the_old_run_once_all_is_checked(tmp_path, capsys,
                                                                  monkeypatch):
    import yaml

    import cuegym.envs
    from cuegym.experiments import selfplay

    run = _old_selfplay_run(tmp_path)
    before = _snapshot(run)
    tc = yaml.safe_load(Path(DQN).read_text())
    tc["env_kwargs"]["reward"] = {"foul": -0.5}
    tc["threads"] = 1
    (tmp_path / "tc.yaml").write_text(yaml.safe_dump(tc))
    seen = {}

    def fake_env(env_id, **kw):
        seen.update(kw)
        raise _Stop

    monkeypatch.setattr(cuegym.envs, "make_sb3_vec_env", fake_env)
    with pytest.raises(_Stop):
        selfplay.main(_sp_argv(tmp_path, "--overwrite", "--train-config",
                               str(tmp_path / "tc.yaml")))
    assert _snapshot(run) == before  # nothing deleted before the learner is made
    # the train config's env_kwargs reach the full-game env but the Shot envs' bank, which a
    # full-game env refuses; its run keys are named
    assert seen["reward"] == {"foul": -0.5} and seen["settings"] == {} and \
        seen["noise"] == "tournament"
    err = capsys.readouterr().err
    for key in ("n_envs", "time_limit_min", "demos", "train_positions",
                "env_kwargs.settings.positions"):
        assert key in err, err
    selfplay.clear_run_dir(run)
    assert sorted(p.name for p in run.iterdir()) == ["notes.txt"]  # no stale pool/gen1.zip


def test_selfplay_learner_takes_the_train_configs_device(monkeypatch):
    from cuegym.experiments import selfplay, train_config

    made = {}

    class FakeAlgo:
        def __init__(self, policy, env, **kw):
            made.update(kw)

    monkeypatch.setattr(train_config, "algo_class", lambda algo: FakeAlgo)
    tcfg = train_config.load_config(SAC, {"device": "meta", "threads": 1})
    selfplay._learner(selfplay.SelfPlayConfig(), tcfg, None)
    assert made["device"] == "meta" and made["gamma"] == 0.9
    assert not {"threads", "device", "env_kwargs"} & set(selfplay.TRAIN_KEYS_UNUSED)


@pytest.mark.parametrize("files,argv,says", [
    ({"p.yaml": "initial_pool: []\n"}, ["--config", "p.yaml"],
     "initial_pool must be a non-empty list of agent specs"),
    ({"p.yaml": "initial_pool: ['']\n"}, ["--config", "p.yaml"], "initial_pool must be"),
    ({"p.yaml": "initial_pool: [geometric, plannr]\n"}, ["--config", "p.yaml"],
     "config key initial_pool[1]: unknown agent 'plannr'"),
    ({}, ["--init", ""], "--init '': give a file"),
    ({}, ["--train-config", ""], "--train-config '': give a file"),
    ({}, ["--config", " "], "--config ' ': give a file"),
    ({}, ["--runs-dir", ""], "--runs-dir '': give a folder"),
    ({"n.yaml": "action: residual\nalgo: sac\nenv_id: cuegym/KeglebillardShot-v0\n"
      "env_kwargs: {noise: none}\n"}, ["--train-config", "n.yaml"],
     "sets env_kwargs.noise 'none', the self-play noise is 'tournament'"),
])
def test_selfplay_refuses_an_empty_pool_and_empty_options(files, argv, says, capsys, tmp_path,
                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    line = _refused("selfplay", [*argv, "--generations", "1", "--steps", "8"], capsys)
    assert says in line, line
    assert not (tmp_path / "runs").exists()


# -- evaluate: empty paths, a folder for the page, the episode cap ----------------------------


@pytest.mark.parametrize("argv,says", [
    (["--out", ""], "--out '': give a folder"),
    (["--benchmark", "--benchmark-out", ""], "--benchmark-out '': give a file"),
    (["--benchmark", "--benchmark-out", "adir"], "--benchmark-out 'adir' is a folder"),
    # the value given, not the folder made from it (which the message quoted as the option's)
    (["--benchmark", "--benchmark-out", "afile/b.md"], "--benchmark-out 'afile/b.md': "),
    (["--benchmark", "--episodes", "100000000000"], "--episodes must be in [2, 100,000]"),
])
def test_evaluate_refuses_empty_paths_and_huge_benchmarks(argv, says, capsys, tmp_path,
                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("")
    page = ROOT / "docs" / "benchmarks.md"
    before = page.read_bytes() if page.exists() else None
    line = _refused("evaluate", ["--quiet", *argv], capsys)
    assert says in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "afile"]
    assert (page.read_bytes() if page.exists() else None) == before


# -- replay: --animate of a shot, evaluate's agent lists, the output path ---------------------


@pytest.mark.parametrize("argv,says", [
    (["--animate"], "--animate animates every shot of a game"),
    (["--what", "shot", "--animate"], "--animate animates every shot of a game"),
    (["--out", "adir.gif"], "--out 'adir.gif' is a folder"),
    (["--out", ""], "--out '': give the output file"),
    (["--agents", ""], "--agents '': give two agents a,b"),
    (["--agents", "planner:n_candidates=8,random,geometric"], "--agents needs two agents a,b"),
    (["--agents", "planner:name=,random"], "option name= needs a label"),
])
def test_replay_refuses_before_simulating(argv, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir.gif").mkdir()
    line = _refused("replay", argv, capsys)
    assert says in line, line
    assert [p.name for p in tmp_path.iterdir()] == ["adir.gif"]


def test_replay_reads_agent_lists_as_evaluate_does():
    from cuegym.agents import make_agent
    from cuegym.experiments.replay import agent_specs

    specs = agent_specs("planner:n_candidates=8,n_noise=2, random")
    assert specs == ["planner:n_candidates=8,n_noise=2", "random"]
    assert make_agent(specs[0], "keglebillard") is not None


# -- benchmarks: conflicting options, --against, the help text --------------------------------


@pytest.mark.parametrize("name,argv,says", [
    ("bench_physics", ["--extras", "--shots"], "--extras adds to the table benchmark, not --shots"),
    ("bench_physics", ["--extras", "--per-call"], "not --per-call"),
    ("bench_physics", ["--per-event", "--against", "/nope"],
     "--against '/nope' does not exist (and the option takes a package name, not a path)"),
    ("bench_physics", ["--per-call", "--against", "adir"],
     "'adir' is a path here, not an importable package"),
    ("bench_physics", ["--per-call", "--against", "no_such_cuegym_copy"],
     "no module 'no_such_cuegym_copy' can be imported"),
    ("bench_envs", ["--all", "--env-ids", "cuegym/KeglebillardShot-v0"],
     "give it or --env-ids, not both"),
    ("make_position_bank", ["--out", ""], "--out '': give the .npz file"),
    ("aim_sweep", ["--fit", "--device", "bogus"], "--device 'bogus' is not a torch device"),
    ("aim_sweep", ["--games", "0"], "--games must be >= 1, got 0"),
    ("aim_bound", ["--n", "1"], "--n must be an odd number >= 3"),
    ("aim_bound", ["--n", "4"], "got 4"),
    ("draw_golf_zones", ["--dpi", "100000"], "--dpi must be in [1, 600], got 100000"),
])
def test_experiment_scripts_refuse_before_working(name, argv, says, capsys, tmp_path,
                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    line = _refused(name, argv, capsys)
    assert says in line, line
    assert [p.name for p in tmp_path.iterdir()] == ["adir"]


def test_bench_tournament_help_has_its_whole_description(capsys):
    with pytest.raises(SystemExit):
        _main("bench_tournament")(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "as a whole ``cuegym evaluate`` process." in out, out


def test_make_position_bank_writes_under_the_working_directory(tmp_path, capsys, monkeypatch):
    from cuegym.envs import positions

    class Bank:
        def summary(self):
            return {}

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(positions, "generate_bank", lambda game, n, seed, progress: (Bank(), {}))
    monkeypatch.setattr(positions, "save_positions",
                        lambda bank, path, stamp: (path.parent.mkdir(parents=True),
                                                   path.write_text("bank")))
    assert _main("make_position_bank")(["--quiet"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["path"] == str(Path("runs") / "banks" / "keglebillard_positions.npz")
    assert (tmp_path / rec["path"]).read_text() == "bank"


def test_an_output_folder_that_may_not_be_written_is_refused_before_the_work(tmp_path,
                                                                            monkeypatch):
    """evaluate checked only that no parent of --out was a file: in a folder it may not write
    to it played every game, then failed; on a read-only file system with a traceback."""
    import os

    from cuegym import cli_errors

    locked = tmp_path / "locked"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != locked and real(p, mode))
    for out in (locked, locked / "runs" / "eval"):  # the folder, or its nearest parent
        with pytest.raises(cli_errors.UsageError, match="may not be written to"):
            cli_errors.check_writable_dir(out, "--out")
    cli_errors.check_writable_dir(tmp_path / "free" / "eval", "--out")
    assert not (tmp_path / "free").exists()  # nothing made
    err = OSError(30, "Read-only file system", "/data/runs")
    assert cli_errors.one_line(err) == "Read-only file system: '/data/runs'"


def test_docs_refreshing_scripts_write_to_the_checkout_or_the_working_directory(tmp_path,
                                                                               monkeypatch):
    """An installed cuegym has no docs/ and is no place to write: evaluate --benchmark,
    rules_walkthrough and draw_golf_zones wrote into site-packages/cuegym/docs."""
    from cuegym import cli_errors

    root = Path(cli_errors.__file__).resolve().parent
    assert cli_errors.checkout_path("docs", "img") == root / "docs" / "img"  # this checkout
    installed = tmp_path / "site" / "cuegym"
    installed.mkdir(parents=True)  # a package folder without the checkout's Makefile
    monkeypatch.setattr(cli_errors, "__file__", str(installed / "cli_errors.py"))
    monkeypatch.chdir(tmp_path)
    assert cli_errors.checkout_path("docs", "benchmarks.md") == tmp_path / "docs" / "benchmarks.md"


def test_an_installed_benchmark_writes_under_runs_not_over_the_users_docs(tmp_path, monkeypatch):
    """An installed cuegym's evaluate --benchmark wrote over the working directory's own
    docs/benchmarks.md; it now writes runs/benchmarks.md (README: runs go to ./runs/), and the
    page names the command as it was typed, not the checkout's script."""
    from cuegym import cli_errors
    from cuegym.experiments import evaluate

    installed = tmp_path / "site" / "cuegym"
    installed.mkdir(parents=True)  # a package folder without the checkout's Makefile
    monkeypatch.setattr(cli_errors, "__file__", str(installed / "cli_errors.py"))
    project = tmp_path / "myproject"
    (project / "docs").mkdir(parents=True)
    mine = project / "docs" / "benchmarks.md"
    mine.write_text("# my own notes\n")
    monkeypatch.chdir(project)
    assert evaluate.main(["--benchmark", "--agents", "random", "--episodes", "2",
                          "--game", "keglebillard", "--quiet"]) == 0
    assert mine.read_text() == "# my own notes\n"
    page = (project / "runs" / "benchmarks.md").read_text()
    assert page.startswith("# Benchmarks: mean return per env id")
    assert "python experiments/evaluate.py" not in page
