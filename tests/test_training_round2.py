"""The training workflow, second outside round (a practitioner's tiny runs of every config):
a finished run whose last rollout overshot its budget is finished, not refused; SIGTERM saves
a checkpoint as Ctrl-C does; ``demos`` values that divide the work must be > 0; switching
``--algo`` may take out the old algorithm's keys with ``key: null``."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from tiny_runs import tiny_sac as _tiny

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("stable_baselines3")

SAC_YAML = ROOT / "configs" / "train" / "keglebillard_sac.yaml"


def test_resume_of_a_run_that_overshot_its_budget_is_finished_not_refused(tmp_path, capsys):
    """30 steps on 4 tables end after 32 (SB3 steps all tables at once): ``--resume`` with no
    budget of its own said 'has done 32 steps already, more than 30: give a larger
    --timesteps (or none ...)' and exited 2, though none was given."""
    from cuegym.experiments.train import main, train

    run = train(_tiny("o", total_timesteps=30), runs_dir=tmp_path)
    assert json.loads((run / "status.json").read_text())["timesteps"] == 32
    out = capsys.readouterr().out
    assert "30 steps are played in whole rollouts of 4" in out
    assert main(["--name", "o", "--resume", "--runs-dir", str(tmp_path)]) == 0
    assert "is finished (32 of 30 steps" in capsys.readouterr().out


def test_sigterm_raises_keyboard_interrupt_while_learning_and_is_restored_after():
    from cuegym.experiments.train import _sigterm_interrupts

    before = signal.getsignal(signal.SIGTERM)
    stop = _sigterm_interrupts()
    try:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)  # the handler runs before the next line
    finally:
        stop()
    assert signal.getsignal(signal.SIGTERM) == before


@pytest.mark.parametrize("demos, needle", [
    ({"states": 8, "per_state": 0}, "demos.per_state must be an integer > 0, got 0"),
    ({"states": 8, "noise_samples": 0}, "demos.noise_samples must be an integer > 0, got 0"),
])
def test_demos_values_that_divide_the_work_must_be_positive(demos, needle):
    from cuegym.experiments.train_config import check_arguments

    with pytest.raises(ValueError, match=needle):
        check_arguments(_tiny("d", demos=demos))


@pytest.mark.parametrize("demos, needle", [
    ({"states": 8, "q_batch": 0}, "demos.q_batch must be an integer > 0, got 0"),
    ({"states": 8, "q_lr": 0.0}, "demos.q_lr must be a finite number > 0, got 0.0"),
])
def test_dqn_demos_values_that_divide_or_scale_the_work_must_be_positive(demos, needle):
    from cuegym.experiments.train import load_config
    from cuegym.experiments.train_config import check_arguments

    cfg = load_config(ROOT / "configs" / "train" / "keglebillard_dqn.yaml", {"demos": demos})
    with pytest.raises(ValueError, match=needle):
        check_arguments(cfg)


def test_switching_algo_may_take_out_the_old_algorithms_keys():
    """``--algo td3`` on the SAC recipe: SAC's ``ent_coef`` is taken out with ``key: null`` and
    the rest of the recipe (gamma, buffer, learning_starts) stays; a null for a key the file
    does not set is still checked (a typo is not silently dropped)."""
    from cuegym.experiments.train import load_config
    from cuegym.experiments.train_config import check_arguments

    cfg = load_config(SAC_YAML, {"algo": "td3", "demos": {}, "algo_kwargs": {"ent_coef": None}})
    check_arguments(cfg)
    saved = load_config(SAC_YAML)
    assert "ent_coef" not in cfg.algo_kwargs
    assert {k: v for k, v in saved.algo_kwargs.items() if k != "ent_coef"} == cfg.algo_kwargs
    with pytest.raises(ValueError, match="ent_coeff"):
        load_config(SAC_YAML, {"algo_kwargs": {"ent_coeff": None}})
