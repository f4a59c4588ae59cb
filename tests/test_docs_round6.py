"""Documentation audit, sixth round (README.md, docs/agents.md): a training run stopped by
SIGTERM in its setup, --resume of a run without a checkpoint, and numbers in YAML as YAML 1.2
reads them. Each test failed on the code before its fix."""
import subprocess
import sys
import textwrap

import pytest

from cuegym.configs import load_yaml
from cuegym.experiments import train as T
from cuegym.experiments.train_config import TrainConfig


def test_sigterm_during_demonstrations_exits_130(tmp_path):
    script = textwrap.dedent("""
        import os, signal, sys
        import cuegym.experiments.train as T
        def demos(*a, **k):
            os.kill(os.getpid(), signal.SIGTERM)   # a job scheduler's stop during the setup
            raise AssertionError("SIGTERM did not interrupt")
        T.seed_with_demos = demos
        sys.exit(T.main(["--config", "configs/train/keglebillard_sac.yaml", "--name", "t",
                         "--no-progress", "--set", "demos={states: 8}", "n_envs=2",
                         "eval_episodes=4", "total_timesteps=16"]))
    """)
    p = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 130, (p.returncode, p.stdout[-500:], p.stderr[-500:])
    assert "interrupted" in p.stderr + p.stdout


def test_resume_without_checkpoint_is_refused_by_the_directory_check(tmp_path):
    cfg = TrainConfig(name="r")
    run = tmp_path / "r"
    T.start_run_dir(cfg, run, resume=False, overwrite=False)   # config.yaml only
    with pytest.raises(Exception, match="no checkpoint"):
        T.check_run_dir(cfg, run, resume=True, overwrite=False)


@pytest.mark.parametrize("text, value", [("1.5e3", 1500.0), ("1.0e6", 1e6), (".5e3", 500.0),
                                         ("2.0e0", 2.0), ("1.E3", 1000.0)])
def test_a_float_with_an_unsigned_exponent_is_a_number(text, value):
    assert load_yaml(text) == value


@pytest.mark.parametrize("text", ["1:30.0", "-1:30.5"])
def test_a_colon_float_is_text_as_a_colon_int_is(text):
    assert load_yaml(text) == text      # YAML 1.1 read these in base 60 (90.0)
