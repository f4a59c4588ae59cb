"""Command-line scripts, third outside audit: refusals before the work (leave_probe's
network, bench_tournament's games), cut-off shots named by the physics benchmark, its threads
within numba's, aim_sweep's foreign files, demo's Ctrl-C, the console script's own name and
output folders that are files (docs/envs.md, "The `cuegym` command")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_leave_probe_refuses_an_aim_network_before_simulating(capsys):
    from cuegym.experiments.leave_probe import main

    t0 = time.perf_counter()
    assert main(["--games", "40", "--leave",
                 str(ROOT / "agents" / "pretrained" / "keglebillard_aim.pt")]) == 2
    err = capsys.readouterr().err
    assert "--leave: " in err and "not a leave network" in err
    assert time.perf_counter() - t0 < 60  # 40 games of probing took minutes before the refusal


def test_bench_tournament_refuses_evaluates_games_cap_at_once(capsys):
    from cuegym.experiments.bench_tournament import main
    from cuegym.experiments.evaluate import MAX_GAMES

    assert main(["--games", str(MAX_GAMES + 1), "--cli"]) == 2
    assert f"--games must be at most {MAX_GAMES:,}" in capsys.readouterr().err


def test_bench_physics_names_cut_off_shots(capsys):
    import json

    from cuegym.experiments.bench_physics import main

    assert main(["--games", "golfbillard", "--batches", "8", "--threads", "1",
                 "--max-events", "20", "--seconds", "0.01", "--json"]) == 0
    out = capsys.readouterr()
    rec = json.loads(out.out)[0]
    assert rec["cut_off_shots"] > 0
    assert "were cut off" in out.err


def test_bench_physics_default_threads_keep_to_numbas(monkeypatch):
    import numba

    from cuegym.experiments import bench_physics

    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 1)
    ap = bench_physics._parser()
    args = ap.parse_args(["--games", "keglebillard"])
    bench_physics.check_args(ap, args)
    assert args.threads == "1"


def test_aim_sweep_names_a_file_that_is_not_its_sweep(tmp_path, capsys):
    from cuegym.experiments.aim_sweep import main

    np.savez(tmp_path / "train.npz", a=np.zeros(3))
    assert main(["--games", "1", "--draws", "1", "--n", "3", "--sweeps", str(tmp_path)]) == 2
    assert "is not a sweep made by aim_sweep.py" in capsys.readouterr().err
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["--games", "1", "--draws", "1", "--n", "3", "--sweeps", str(afile)]) == 2
    assert "--sweeps" in capsys.readouterr().err


def test_demo_out_that_is_a_file_is_named(tmp_path, capsys):
    from cuegym.experiments.demo import main

    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["--out", str(afile), "--skip-train"]) == 2
    assert "--out" in capsys.readouterr().err


@pytest.mark.skipif(os.name != "posix", reason="process groups and SIGINT")
def test_demo_lets_a_step_finish_its_ctrl_c(tmp_path):
    """subprocess.run killed the step 0.25 s after Ctrl-C: train.py's last checkpoint was
    never written."""
    child = tmp_path / "child.py"
    child.write_text(textwrap.dedent(f"""
        import signal, sys, time
        def stop(*_):
            time.sleep(1.0)  # a checkpoint being written
            open({str(tmp_path / 'saved')!r}, 'w').write('ok')
            sys.exit(130)
        signal.signal(signal.SIGINT, stop)
        open({str(tmp_path / 'ready')!r}, 'w').write('1')
        time.sleep(60)
    """))
    parent = subprocess.Popen(
        [sys.executable, "-c", "import sys; from cuegym.experiments.demo import run\n"
         "try:\n    run([sys.executable, sys.argv[1]])\nexcept KeyboardInterrupt:\n"
         "    sys.exit(130)", str(child)],
        cwd=ROOT.parent, start_new_session=True)
    for _ in range(600):
        if (tmp_path / "ready").exists():
            break
        time.sleep(0.05)
    os.killpg(parent.pid, signal.SIGINT)
    assert parent.wait(timeout=30) == 130
    assert (tmp_path / "saved").read_text() == "ok"


def test_a_console_script_is_named_as_typed(monkeypatch):
    from cuegym.cli_errors import prog_name

    monkeypatch.setattr(sys, "argv", ["/somewhere/bin/cuegym-physics", "simulate"])
    assert prog_name("python -m cuegym.physics") == "cuegym-physics"
    monkeypatch.setattr(sys, "argv", ["cuegym rules"])
    assert prog_name("python -m cuegym.rules") == "cuegym rules"
    monkeypatch.setattr(sys, "argv", ["-c"])
    assert prog_name("python -m cuegym.rules") == "python -m cuegym.rules"
