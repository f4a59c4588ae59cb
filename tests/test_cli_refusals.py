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
