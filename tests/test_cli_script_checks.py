"""Bad input to the benchmark and tool scripts (replay, bench_physics, bench_tournament, soak,
validate_pooltool, aim_bound, aim_sweep, draw_golf_zones, leave_probe): one line naming the
option, exit status 2, found before the long work starts (that work is stubbed out here and
fails the test if reached); options a mode would ignore are refused. Help texts give the
defaults."""

from __future__ import annotations

import importlib
import subprocess
import types
from pathlib import Path

import numpy as np
import pytest
from test_cli import _experiment, _usage_error  # run main: status 2, no traceback; last line


class Reached(Exception):
    """The long work of a script started: its bad input was not found up front."""


def _module(name: str) -> types.ModuleType:
    return importlib.import_module(f"cuegym.experiments.{name}")


def _stub(monkeypatch, name: str, *functions: str) -> types.ModuleType:
    """The script's module with ``functions`` (its long work) raising :class:`Reached`."""
    mod = _module(name)

    def reached(*args, **kwargs):
        raise Reached(name)

    for f in functions:
        monkeypatch.setattr(mod, f, reached)
    return mod


@pytest.fixture(autouse=True)
def _one_line_errors(monkeypatch, tmp_path):
    monkeypatch.delenv("CUEGYM_DEBUG", raising=False)  # (it would show tracebacks instead)
    monkeypatch.chdir(tmp_path)  # nothing the scripts might write lands in the checkout


# -- 1. replay: a tiny --speed would make millions of frames -------------------------------


@pytest.mark.parametrize("argv", [
    ["--speed", "1e-6", "--out", "x.gif"],
    ["--what", "game", "--animate", "--speed", "1e-6"],
    ["--speed", "0.01", "--fps", "100"],
])
def test_replay_refuses_a_speed_that_makes_too_many_frames(argv, monkeypatch, capsys):
    _stub(monkeypatch, "replay", "replay_shot", "replay_game", "replay_agents")
    line = _usage_error(_experiment("replay"), argv, capsys)
    assert "--speed" in line and "frames" in line and "at most" in line, line
    assert not Path("x.gif").exists()


def test_replay_keeps_normal_speeds_and_refuses_speed_of_a_still_game(monkeypatch, capsys):
    from cuegym.envs.render_shots import MAX_SHOT_FRAMES, shot_frame_count

    assert shot_frame_count(10.0, 20.0, 1.0) == 201 < MAX_SHOT_FRAMES  # the defaults: as before
    assert shot_frame_count(10.0, 20.0, 5e-324) == float("inf")
    _stub(monkeypatch, "replay", "replay_shot", "replay_game", "replay_agents")
    for argv in (["--speed", "0.25"], ["--what", "game", "--animate", "--speed", "0.5"]):
        with pytest.raises(Reached):  # checked, then on to the replay
            _experiment("replay")(argv)
    line = _usage_error(_experiment("replay"), ["--what", "game", "--speed", "2"], capsys)
    assert "--speed sets the pace of an animated shot" in line, line


def test_shot_frames_refuses_a_frame_count_over_the_bound():
    from cuegym.envs.render_shots import shot_frames

    res = types.SimpleNamespace(t_end=np.array([4.0]))  # refused before anything else is read
    with pytest.raises(ValueError, match=r"speed 1e-06 at 20 fps would make 80,000,001 frames"):
        shot_frames("golfbillard", res, 0, fps=20.0, speed=1e-6)


# -- 2. bench_physics: --max-events and --no-reuse only size the table benchmark -------------


@pytest.mark.parametrize("argv,says", [
    (["--per-call", "1", "--seconds", "0.01", "--max-events", "0"],
     "--max-events set the table benchmark, not --per-call"),
    (["--per-event", "2", "--no-reuse"], "--no-reuse set the table benchmark, not --per-event"),
    (["--shots", "--max-events", "1000", "--no-reuse"],
     "--max-events, --no-reuse set the table benchmark, not --shots"),
    (["--max-events", "0"], "--max-events must be in [1, 1000000], got 0"),
    (["--max-events", "2000000"], "--max-events must be in [1, 1000000], got 2000000"),
])
def test_bench_physics_refuses_table_options_in_other_modes(argv, says, monkeypatch, capsys):
    _stub(monkeypatch, "bench_physics", "measure", "measure_per_call", "measure_per_event",
          "measure_json")
    line = _usage_error(_experiment("bench_physics"), argv, capsys)
    assert says in line, line


# -- 3. bench_tournament --cli: relative model paths; a failing evaluate in one line ---------


def _fake_tournament(monkeypatch, returncode: int, stderr: str = "") -> list[list[str]]:
    """bench_tournament with its in-process tournament stubbed and the evaluate process faked
    (``subprocess.run`` as it behaves: ``check=True`` raises); the commands it was given."""
    mod = _module("bench_tournament")
    calls: list[list[str]] = []
    monkeypatch.setattr(mod, "in_process", lambda *a: {"in_process_s": 0.0, "cpu_s": 0.0,
                                                        "peak_rss_mb": 0, "shots": 0,
                                                        "wins": [0, 0], "unfinished": 0})

    def run(cmd, check=False, **kwargs):
        calls.append(cmd)
        if check and returncode:
            raise subprocess.CalledProcessError(returncode, cmd)
        return subprocess.CompletedProcess(cmd, returncode, None, stderr)

    monkeypatch.setattr(mod, "subprocess", types.SimpleNamespace(
        run=run, DEVNULL=subprocess.DEVNULL, PIPE=subprocess.PIPE))
    return calls


def test_bench_tournament_cli_passes_model_paths_absolute(tmp_path, monkeypatch, capsys):
    (tmp_path / "m.zip").write_bytes(b"")
    (tmp_path / "aim.pt").write_bytes(b"")
    calls = _fake_tournament(monkeypatch, 0)
    argv = ["--cli", "--json", "--games", "1", "--agents", "m.zip:aim=aim.pt,leave=none,geometric"]
    assert _experiment("bench_tournament")(argv) == 0, capsys.readouterr().err
    cmd = calls[0]
    assert cmd[cmd.index("--agents") + 1] == (f"{tmp_path / 'm.zip'}:aim={tmp_path / 'aim.pt'},"
                                              "leave=none,geometric")


def test_bench_tournament_cli_failing_evaluate_is_one_line(monkeypatch, capsys):
    _fake_tournament(monkeypatch, 2, "usage: evaluate ...\nerror: no model file 'm.zip'\n")
    line = _usage_error(_experiment("bench_tournament"),
                        ["--cli", "--json", "--games", "1", "--agents", "m.zip,geometric"], capsys)
    assert "evaluate process failed (exit status 2): no model file 'm.zip'" in line, line


# -- 4. soak: a --max-events the simulator refuses is no crash count -------------------------


def test_soak_refuses_max_events_over_the_simulators_limit(monkeypatch, capsys):
    _stub(monkeypatch, "soak", "_soak_game")
    line = _usage_error(_experiment("soak"), ["--max-events", "100000000"], capsys)
    assert "--max-events must be at most 1000000 (the simulator's limit), got 100000000" in line


def test_soak_refuses_a_log_that_does_not_fit_in_memory(monkeypatch, capsys):
    import cuegym.physics.api as api

    _stub(monkeypatch, "soak", "_soak_game")
    monkeypatch.setattr(api, "available_memory", lambda: 2**30)  # 1 GiB free
    line = _usage_error(_experiment("soak"), ["--max-events", "1000000", "--shots", "64"],
                        capsys)
    assert line.startswith("error: --max-events 1000000 with 64 tables a call (--batch): this "
                           "call needs about"), line


# -- 5. validate_pooltool --pooltool-only: the comparison's options are refused --------------


@pytest.mark.parametrize("argv,opt", [
    (["--json"], "--json"), (["--out", "r.json"], "--out"),
    (["--save-fixtures", "fx", "3"], "--save-fixtures"), (["--strikes", "10"], "--strikes"),
])
def test_validate_pooltool_only_refuses_comparison_options(argv, opt, monkeypatch, capsys):
    _stub(monkeypatch, "validate_pooltool", "cached_pooltool", "run_pooltool")
    line = _usage_error(_experiment("validate_pooltool"), ["--pooltool-only", *argv], capsys)
    assert line.endswith(f"{opt} sets the comparison with cuegym, which --pooltool-only skips")


def test_validate_pooltool_checks_its_outputs_up_front(tmp_path, monkeypatch, capsys):
    _stub(monkeypatch, "validate_pooltool", "cached_pooltool", "run_pooltool")
    (tmp_path / "afile").write_text("")
    for argv in (["--out", "afile/r.json"], ["--save-fixtures", "afile/fx", "3"]):
        line = _usage_error(_experiment("validate_pooltool"), argv, capsys)
        assert "is a file, not a folder" in line and argv[0] in line, line


# -- 6. aim_bound: --offset in (0, 10] degrees ------------------------------------------------


@pytest.mark.parametrize("offset", ["1e308", "0", "nan", "-1", "10.5"])
def test_aim_bound_refuses_offsets_out_of_range(offset, monkeypatch, capsys):
    _stub(monkeypatch, "aim_bound", "bound")
    line = _usage_error(_experiment("aim_bound"), ["--offset", offset], capsys)
    assert f"--offset must be in (0, 10] degrees, got {float(offset)}" in line, line


# -- 7. aim_sweep: an unwritable --json is found before the sweep ----------------------------


def test_aim_sweep_refuses_an_unwritable_json_before_the_sweep(tmp_path, monkeypatch, capsys):
    _stub(monkeypatch, "aim_sweep", "kept_sweep", "sweep_parallel")
    (tmp_path / "afile").write_text("")
    line = _usage_error(_experiment("aim_sweep"), ["--fit", "--json", "afile/fits.json"], capsys)
    assert "--json 'afile/fits.json'" in line and "is a file, not a folder" in line, line
    line = _usage_error(_experiment("aim_sweep"), ["--fit", "--json", str(tmp_path)], capsys)
    assert "--json" in line and "give the file" in line, line


# -- 8. draw_golf_zones: "wrote" names the file written ---------------------------------------


def test_draw_golf_zones_names_the_file_it_writes(tmp_path, capsys):
    main = _experiment("draw_golf_zones")
    out = main(["--out", str(tmp_path / "x" / "zdir"), "--dpi", "10"])
    assert out == tmp_path / "x" / "zdir.png" and out.is_file()
    assert not (tmp_path / "x" / "zdir").exists()
    assert capsys.readouterr().out.strip() == f"wrote {out}"
    line = _usage_error(main, ["--out", str(tmp_path)], capsys)  # a folder: no sibling .png
    assert "give the picture's file, not a folder" in line, line
    assert not tmp_path.with_name(tmp_path.name + ".png").exists()


# -- 9. leave_probe: the errors name the options ----------------------------------------------


@pytest.mark.parametrize("argv,says", [
    (["--draws", "3"], "--draws must be even and >= 2"),
    (["--best", "40"], "--best must be in [1, 36]"),
    (["--best", "0"], "--best must be in [1, 36]"),
])
def test_leave_probe_errors_name_the_options(argv, says, monkeypatch, capsys):
    import cuegym.agents.aim as aim

    def reached(*args, **kwargs):
        raise Reached("leave_probe")

    monkeypatch.setattr(aim, "game_positions", reached)
    line = _usage_error(_experiment("leave_probe"), argv, capsys)
    assert says in line, line


# -- 10. the help texts give the defaults -----------------------------------------------------


def _help_entries(name: str, capsys) -> dict[str, str]:
    """``--option``: its help text, from the script's ``--help``."""
    with pytest.raises(SystemExit) as exc:
        _experiment(name)(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out.split("options:", 1)[1]
    entries: dict[str, str] = {}
    key = None
    for line in text.splitlines():
        if line.startswith("  -"):
            key = line.split()[0].rstrip(",")
            if key == "-h":
                key = "--help"
            entries[key] = line
        elif key:
            entries[key] += " " + line.strip()
    return entries


@pytest.mark.parametrize("name,options", [
    ("aim_bound", ["--games", "--seed", "--offset"]),
    ("choice_bound", ["--games", "--seed"]),
    ("leave_probe", ["--seed", "--draws", "--best"]),
    ("make_position_bank", ["--game", "--seed"]),
    ("soak", ["--games", "--seed", "--shots", "--max-events"]),
    ("validate_pooltool", ["--shots", "--seed", "--strikes", "--workers", "--json", "--out",
                           "--save-fixtures", "--no-cache", "--pooltool-only"]),
    ("bench_tournament", ["--repeat"]),
])
def test_help_texts_give_the_defaults(name, options, capsys):
    entries = _help_entries(name, capsys)
    for opt in options:
        assert "default" in entries[opt], entries[opt]
