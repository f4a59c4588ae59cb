"""Outside-in audit of the benchmark and tool scripts (bench_envs, bench_physics,
bench_tournament, soak, replay, draw_golf_zones, rules_walkthrough / demo, leave_probe,
aim_sweep, validate_pooltool, rllib_example): bad values refused up front in one line naming
the option, progress and summaries that report what they claim, failing inputs kept, outputs
written under a temporary name and renamed, help texts with their defaults. Each test failed
on the code before its fix; the long work is stubbed out (:class:`Reached`) where a refusal
must come first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_cli import _experiment, _usage_error  # run main: status 2, no traceback; last line
from test_cli_script_checks import Reached, _help_entries, _stub


@pytest.fixture(autouse=True)
def _one_line_errors(monkeypatch, tmp_path):
    monkeypatch.delenv("CUEGYM_DEBUG", raising=False)  # (it would show tracebacks instead)
    monkeypatch.chdir(tmp_path)  # nothing the scripts might write lands in the checkout


# -- bench_envs: --num-envs and the env ids, before any measurement ---------------------------


@pytest.mark.parametrize("argv,says", [
    (["--num-envs", "0"], "--num-envs must be >= 1, got 0"),
    (["--env-ids", "cuegym/KeglebillardShot-v0", "cuegym/KeglebilardShot-v1"],
     "--env-ids: unknown env id 'cuegym/KeglebilardShot-v1' (did you mean "
     "'cuegym/KeglebillardShot-v0'?)"),
])
def test_bench_envs_refuses_bad_sizes_and_ids_before_measuring(argv, says, monkeypatch,
                                                              capsys):
    """--num-envs 0 ran the single-env benchmark, then failed with 'num_envs must be ...' (no
    option named); an unknown id failed after every id before it had been measured."""
    _stub(monkeypatch, "bench_envs", "bench_single", "bench_vector", "bench_sb3_dummy")
    line = _usage_error(_experiment("bench_envs"), argv, capsys)
    assert says in line, line


def test_cuegym_bench_envs_names_itself_in_the_refusal(capsys):
    from cuegym.cli import main

    with pytest.raises(SystemExit) as exc:  # argparse's exit, as the command's
        main(["bench", "envs", "--num-envs", "-1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "cuegym bench envs: error: --num-envs must be >= 1, got -1" in err, err


# -- bench_physics: --games and --json-max-events, before any timing ---------------------------


@pytest.mark.parametrize("games,bad", [("keglebillard,", "''"), ("rectangle", "'rectangle'"),
                                       ("golfbilard", "'golfbilard'")])
def test_bench_physics_checks_every_table_before_timing(games, bad, monkeypatch, capsys):
    """A trailing comma timed every keglebillard configuration, then failed on the empty
    name."""
    _stub(monkeypatch, "bench_physics", "measure")
    line = _usage_error(_experiment("bench_physics"), ["--games", games], capsys)
    assert f"--games: unknown table {bad}" in line and "known: 'keglebillard'" in line, line


@pytest.mark.parametrize("value", ["0", "-5", "2000000"])
def test_bench_physics_refuses_json_max_events_out_of_range(value, monkeypatch, capsys):
    """It reached the simulator, whose error named 'shot[0].max_events', not the option."""
    _stub(monkeypatch, "bench_physics", "measure_json")
    line = _usage_error(_experiment("bench_physics"), ["--shots", "--json-max-events", value],
                        capsys)
    assert f"--json-max-events must be in [1, 1000000], got {value}" in line, line


def test_bench_physics_json_with_extras_is_one_document(monkeypatch, capsys):
    """--json --extras printed the records' list and then the extras as a second JSON
    document on the next line, which json.loads of the output refuses."""
    from cuegym.experiments import bench_physics as bp

    record = {"game": "keglebillard", "batch": 1, "threads": 1, "shots_per_s": 1.0,
              "events_per_shot": 2.0, "us_per_event": 3.0, "cut_off_shots": 0}
    monkeypatch.setattr(bp, "measure", lambda game, batch, threads, cfg: dict(record))
    monkeypatch.setattr(bp, "first_call_seconds", lambda: 0.5)
    monkeypatch.setattr(bp, "memory_per_table", lambda: 1234.0)
    argv = ["--games", "keglebillard", "--batches", "1", "--threads", "1"]
    assert bp.main(argv + ["--json", "--extras"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == {"records": [record],
                   "extras": {"first_call_s": 0.5, "bytes_per_table_b4096_k256": 1234.0}}
    assert bp.main(argv + ["--json"]) == 0  # without --extras: the list, as before
    assert json.loads(capsys.readouterr().out) == [record]


# -- bench_tournament: the text says why the wins do not add up to the games -------------------


def test_bench_tournament_text_counts_drawn_and_unfinished_games(monkeypatch, capsys):
    mod = _stub(monkeypatch, "bench_tournament")
    monkeypatch.setattr(mod, "in_process", lambda *a: {
        "in_process_s": 1.0, "cpu_s": 1.0, "peak_rss_mb": 10, "shots": 50, "wins": [2, 1],
        "unfinished": 1})
    assert mod.main(["--games", "5"]) == 0
    out = capsys.readouterr().out
    assert "wins 2-1 (1 drawn, 1 unfinished)" in out, out
    assert mod.main(["--games", "3"]) == 0  # every game decided: nothing added
    assert "wins 2-1; load" in capsys.readouterr().out


# -- soak: --progress counts the call it reports; a crashing call's inputs are kept ------------


def test_soak_progress_includes_the_call_it_reports(capsys):
    """The running counts were printed before the call's shots and events were added: the
    first line said 0 shots (with that call's failure counts), the last never the total."""
    assert _experiment("soak")(["--shots", "200", "--batch", "100", "--games", "keglebillard",
                                "--progress"]) == 0
    cap = capsys.readouterr()
    lines = [json.loads(x)["keglebillard"] for x in cap.err.strip().splitlines()]
    final = json.loads(cap.out.strip().splitlines()[-1])["keglebillard"]
    assert [r["shots"] for r in lines] == [100, 200]
    assert lines[-1]["events"] == final["events"] > 0


def test_soak_save_failures_keeps_the_inputs_of_a_crashing_call(tmp_path, monkeypatch,
                                                               capsys):
    """A crash counted every shot of the call as failing, but --save-failures wrote nothing:
    the most useful inputs of all were lost."""
    mod = _stub(monkeypatch, "soak", "simulate")  # every call crashes
    out = tmp_path / "fails"
    out.mkdir()
    assert mod.main(["--shots", "10", "--batch", "5", "--games", "keglebillard",
                     "--save-failures", str(out)]) == 1
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["keglebillard"]["crashes"] == 10 and not summary["ok"]
    files = sorted(p.name for p in out.iterdir())
    assert files == ["keglebillard_seed0_at0.npz", "keglebillard_seed0_at5.npz"], files
    with np.load(out / files[0]) as f:
        assert f["xy"].shape[0] == 5 and f["cue"].shape == (5, 5) and int(f["max_events"]) == 2000


# -- replay: --action out of range, named, before the env is made ------------------------------


@pytest.mark.parametrize("action", [["1.5", "0", "0", "0", "0", "0", "0"],
                                    ["0", "0", "0", "0", "0", "0", "nan"]])
def test_replay_refuses_an_action_out_of_range_naming_the_option(action, monkeypatch, capsys):
    """The env refused it after being made, suggesting 'pass clip=True to the env', which the
    command has no way to do."""
    _stub(monkeypatch, "replay", "replay_shot", "replay_game", "replay_agents")
    line = _usage_error(_experiment("replay"), ["--action", *action, "--out", "x.gif"], capsys)
    assert "--action takes seven numbers in [-1, 1]" in line and "clip" not in line, line
    assert not Path("x.gif").exists()


# -- draw_golf_zones: the format before drawing; the picture replaced whole --------------------


def test_draw_golf_zones_refuses_an_unknown_format_before_drawing(monkeypatch, capsys):
    from cuegym.cli_errors import run_cli

    _stub(monkeypatch, "draw_golf_zones", "zones_panel", "kaders_panel")
    main = _experiment("draw_golf_zones")  # (its script runs it through run_cli)
    line = _usage_error(lambda argv: run_cli(main, argv), ["--out", "z.xyz"], capsys)
    assert "--out 'z.xyz': Format 'xyz' is not supported" in line and "png" in line, line


def _failing_savefig(self, fname, *args, **kwargs):
    """A savefig that writes part of the picture, then fails (a full disk, an interrupt)."""
    Path(fname).write_bytes(b"partial")
    raise OSError(28, "No space left on device", str(fname))


def test_draw_golf_zones_failed_write_keeps_the_old_picture(tmp_path, monkeypatch, capsys):
    import matplotlib.figure

    old = tmp_path / "z.png"
    old.write_bytes(b"the old picture")
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", _failing_savefig)
    with pytest.raises(OSError, match="No space left"):
        _experiment("draw_golf_zones")(["--out", str(old), "--dpi", "10"])
    assert old.read_bytes() == b"the old picture"
    assert [p.name for p in tmp_path.iterdir()] == ["z.png"]  # no temporary file left


def test_rules_walkthrough_failed_write_keeps_the_old_pictures(tmp_path, monkeypatch, capsys):
    """The docs' pictures were written in place: a failed write left a broken PNG."""
    import matplotlib.pyplot as plt

    mod = _stub(monkeypatch, "rules_walkthrough")

    def plot(*args, **kwargs):
        fig = plt.figure()
        fig.savefig = lambda fname, *a, **k: _failing_savefig(fig, fname)
        return fig

    monkeypatch.setattr(mod, "plot_shot", plot)
    old = tmp_path / "walkthrough_1.png"
    old.write_bytes(b"the old picture")
    assert mod.main(["--out", str(tmp_path)]) == 2  # the OSError: one line
    assert "No space left on device" in capsys.readouterr().err
    assert old.read_bytes() == b"the old picture"
    assert [p.name for p in tmp_path.iterdir()] == ["walkthrough_1.png"]


def test_rules_walkthrough_names_the_scores_in_words():
    """The pictures' titles showed the field names 'king_alone' and 'clean16'."""
    from cuegym.experiments.rules_walkthrough import describe

    class Outcome:
        def to_dict(self):
            return {"points": 16, "foul": False, "shooter_points": 16, "rodt": True,
                    "blegt": False, "king_alone": True, "clean16": True}

    assert describe(Outcome()) == "points 16; shooter +16; rødt; king alone; clean 16"


# -- leave_probe: the shipped leave network from any directory --------------------------------


def test_leave_probe_finds_the_shipped_leave_network_from_any_directory(monkeypatch, capsys):
    """``--leave agents/pretrained/keglebillard_leave.pt`` (the documented command) was
    refused outside the checkout, where every agent option finds the shipped file."""
    mod = _stub(monkeypatch, "leave_probe")
    seen = {}

    def probe(*args, leave=None, **kwargs):
        seen["leave"] = leave
        raise Reached("leave_probe")

    monkeypatch.setattr(mod, "probe", probe)
    with pytest.raises(Reached):
        mod.main(["--leave", "agents/pretrained/keglebillard_leave.pt"])
    assert Path(seen["leave"]).is_file() and Path(seen["leave"]).is_absolute()
    line = _usage_error(mod.main, ["--leave", "agents/pretrained/nothing.pt"], capsys)
    assert "--leave: no leave network 'agents/pretrained/nothing.pt'" in line, line


# -- aim_sweep: --offset and --n named; --json replaced whole --------------------------------


@pytest.mark.parametrize("argv,says", [
    (["--offset", "inf"], "--offset must be in (0, 90] degrees, got inf"),
    (["--offset", "nan"], "--offset must be in (0, 90] degrees, got nan"),
    (["--offset", "0"], "--offset must be in (0, 90] degrees, got 0.0"),
    (["--n", "1"], "--n must be >= 2"),
])
def test_aim_sweep_refuses_offsets_and_counts_naming_the_option(argv, says, monkeypatch,
                                                               capsys):
    """--offset inf swept with NaN aims ('strike 0: phi = nan is not finite' after a numpy
    warning); the others failed in the sweep with a message naming no option."""
    _stub(monkeypatch, "aim_sweep", "kept_sweep", "sweep_parallel", "sweep")
    line = _usage_error(_experiment("aim_sweep"), argv, capsys)
    assert says in line, line


def test_aim_sweep_failed_json_write_keeps_the_old_file(tmp_path, monkeypatch, capsys):
    mod = _stub(monkeypatch, "aim_sweep")
    n, T = 3, 4
    fake = {"offsets": np.linspace(-1, 1, n), "values": np.zeros((T, n)), "cut": np.zeros(T),
            "aimed": np.ones(T, bool), "inputs": np.zeros((T, 2), np.float32)}
    monkeypatch.setattr(mod, "kept_sweep", lambda path, key, compute: fake)
    figures = {k: 0.0 for k in ("aimer", "network", "search", "train_mse", "held_mse",
                                "noise_mse")}
    # a value json cannot write: the write fails half-way
    monkeypatch.setattr(mod, "fit", lambda *a, **k: {**figures, "n_train": T, "n_held": T,
                                                      "extra": object()})
    out = tmp_path / "fits.json"
    out.write_text('{"old": true}')
    with pytest.raises(TypeError):
        mod.main(["--games", "1", "--n", "3", "--fit", "--json", str(out)])
    assert json.loads(out.read_text()) == {"old": True}
    assert [p.name for p in tmp_path.iterdir()] == ["fits.json"]


# -- validate_pooltool: no pooltool and no way to install it; a damaged cache -----------------


def test_validate_pooltool_without_pooltool_is_one_line(tmp_path, monkeypatch, capsys):
    """A failed install of the pooltool environment (no network) was a CalledProcessError
    traceback."""
    mod = _stub(monkeypatch, "validate_pooltool")
    monkeypatch.setattr(mod, "PT_VENV", tmp_path / "venv")
    monkeypatch.setattr(mod, "PT_PYTHON", tmp_path / "venv" / "bin" / "python")
    monkeypatch.setattr(mod, "CACHE_DIR", tmp_path / "cache")

    def run(cmd, *args, **kwargs):
        raise subprocess.CalledProcessError(1, cmd)

    monkeypatch.setattr(mod.subprocess, "run", run)
    line = _usage_error(mod.main, ["--shots", "3", "--seed", "5"], capsys)
    assert line.startswith("error: pooltool 0.6.0 is not installed and could not be installed"
                           ), line
    assert "runs/pooltool_cache" in line, line
    assert not (tmp_path / "cache").exists()


def test_validate_pooltool_reruns_pooltool_over_a_damaged_cache(tmp_path, monkeypatch):
    """A cache file cut short (an interrupted write) failed every later run with a JSON
    error; it is now a cache miss, and the cache is written under a temporary name."""
    mod = _stub(monkeypatch, "validate_pooltool")
    monkeypatch.setattr(mod, "CACHE_DIR", tmp_path)
    (tmp_path / "x.json").write_text('{"key": "abc", "resu')
    monkeypatch.setattr(mod, "run_pooltool", lambda payload, args, workers: [{"r": 1}])
    cfg = mod.Settings()
    assert mod.cached_pooltool("x", [1], [], cfg) == [{"r": 1}]
    assert json.loads((tmp_path / "x.json").read_text())["results"] == [{"r": 1}]
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]
    monkeypatch.setattr(mod, "run_pooltool", lambda *a: pytest.fail("the cache was not used"))
    assert mod.cached_pooltool("x", [1], [], cfg) == [{"r": 1}]


# -- rllib_example: checked before Ray; one line without it; the checkpoint under ./runs -------


@pytest.fixture
def _no_ray(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray: ImportError, installed or not


@pytest.mark.parametrize("argv,says", [
    (["--tables", "0"], "--tables must be >= 1, got 0"),
    (["--iterations", "0"], "--iterations must be >= 1, got 0"),
    (["--runners", "-1"], "--runners must be >= 0, got -1"),
    (["--env", "cuegym/Keglebillard-v1"], "--env: unknown env id 'cuegym/Keglebillard-v1'"),
])
def test_rllib_example_checks_its_options_before_ray(argv, says, _no_ray, capsys):
    """They went unchecked to RLlib (after a Ray start); without Ray every one of them was
    answered with 'not installed'."""
    line = _usage_error(_experiment("rllib_example"), argv, capsys)
    assert says in line, line


def test_rllib_example_without_ray_is_one_line_and_writes_under_the_working_dir(_no_ray,
                                                                                capsys):
    import cuegym.experiments.rllib_example as mod

    line = _usage_error(mod.main, [], capsys)
    assert line.startswith("error: Ray RLlib is not installed"), line
    # the checkpoint goes to ./runs/rllib/<id>, as every command's runs (it went into the
    # checkout cuegym runs from, whatever the working directory)
    assert mod.checkpoint_dir("cuegym/GolfbillardShot-v0") == Path(
        "runs", "rllib", "cuegym_GolfbillardShot-v0")


# -- help texts give the defaults --------------------------------------------------------------


@pytest.mark.parametrize("name,options", [
    ("aim_sweep", ["--games", "--draws", "--offset", "--n", "--seed", "--holdout", "--epochs",
                   "--hidden", "--batch", "--device", "--layout", "--workers"]),
    ("bench_physics", ["--n-shots", "--json-max-events", "--per-event", "--per-call"]),
    ("demo", ["--games", "--seed"]),
    ("rllib_example", ["--env", "--runners", "--tables", "--iterations"]),
])
def test_more_help_texts_give_the_defaults(name, options, capsys):
    entries = _help_entries(name, capsys)
    for opt in options:
        assert "default" in entries[opt], entries[opt]


def test_write_atomic_keeps_the_old_file_when_a_write_fails(tmp_path, monkeypatch):
    """The scripts' one atomic text write (evaluate's results.json and benchmark page,
    train's status, validate_pooltool's cache): a failed write leaves the old file whole and no
    temporary file behind."""
    from pathlib import Path

    from cuegym.cli_errors import write_atomic

    target = tmp_path / "results.json"
    write_atomic(target, '{"old": 1}')
    real = Path.write_text

    def half_then_fail(self, text, *a, **k):
        real(self, text[:3], *a, **k)
        raise OSError("disk full")

    monkeypatch.setattr(Path, "write_text", half_then_fail)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, '{"new": 2}')
    monkeypatch.undo()
    assert target.read_text() == '{"old": 1}'
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_bench_physics_times_the_games_models_whole_shots():
    """bench_physics times realistic game shots as the envs play them (GAME_MODELS): with the
    API's default touching rule one seed-0 golfbillard shot needed 737 events and was cut off
    at --max-events 400 in every golfbillard row."""
    from cuegym.experiments.bench_physics import Settings, measure

    rec = measure("golfbillard", 1024, 1, Settings(seconds=0.01))
    assert rec["cut_off_shots"] == 0, rec
