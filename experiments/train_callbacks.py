"""The SB3 callbacks of ``train.py``: evaluation with the shot terms, checkpoints, a time limit;
and :func:`quiet_progress_bar` for every ``learn(progress_bar=True)``.

Imported by :func:`cuegym.experiments.train.make_callbacks` when learning starts (so that
``train.py --help`` and the config checks do not wait for stable-baselines3).
"""

from __future__ import annotations

import sys
import time
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback, EvalCallback

from cuegym.experiments.train import read_progress, save_checkpoint
from cuegym.experiments.train_config import TrainConfig


def quiet_progress_bar() -> None:
    """Silence tqdm's ``TqdmExperimentalWarning`` ("rich is experimental/alpha"): SB3's
    progress bar is tqdm's rich bar, which warns once per ``learn`` call, a line of noise in
    every training run's output (and a warning in every test that trains with the bar)."""
    from tqdm import TqdmExperimentalWarning

    warnings.filterwarnings("ignore", category=TqdmExperimentalWarning)


class ShotEval(EvalCallback):
    """SB3's ``EvalCallback`` (best model, ``evaluations.npz``) on the same positions at every
    evaluation (``eval_env`` reseeded with ``cfg.seed + 10_000``), logging the foul rate, the
    points per shot and the points given per shot beside the mean reward. On ``resume`` the
    evaluation log and the best score carry over from ``run`` up to the checkpoint the model
    resumes from (:meth:`_resume_log`, when learning starts)."""

    #: where a best model saved past the checkpoint a run resumes from is set aside
    SET_ASIDE = "best_model_past_checkpoint.zip"

    def __init__(self, eval_env: Any, cfg: TrainConfig, run: Path, resume: bool) -> None:
        super().__init__(eval_env, n_eval_episodes=cfg.eval_episodes,
                         eval_freq=max(1, cfg.eval_freq // max(1, cfg.n_envs)), log_path=str(run),
                         best_model_save_path=str(run), deterministic=True, verbose=0)
        self.eval_seed = cfg.seed + 10_000
        self.terms: dict[str, list] = {"foul_rate": [], "points_per_shot": [],
                                       "given_per_shot": []}
        self.resume_from = run if resume else None

    def _init_callback(self) -> None:
        super()._init_callback()
        if self.resume_from is not None:  # (the model, and so its steps, is known only now)
            self._resume_log(self.resume_from, int(self.model.num_timesteps))
            self.resume_from = None

    def _resume_log(self, run: Path, steps: int) -> None:
        """Carry the evaluation log and the best score of ``run`` over to a session resumed
        from its checkpoint at ``steps``. Only the evaluations at ``steps`` or before are kept:
        a session killed hard (SIGKILL, a power cut) after its last checkpoint left some of
        later steps, which this session plays again. A ``best_model.zip`` saved past ``steps``
        is of such a session, a model this run no longer has: it is set aside as
        :data:`SET_ASIDE` and the best model is chosen again among this session's evaluations
        (the earlier best one is lost); otherwise the best score is that of the evaluations
        kept (the CSV logs', :func:`read_progress`, which survive a cut-short npz)."""
        npz = run / "evaluations.npz"
        if npz.exists():
            try:
                with np.load(npz) as z:
                    keep = z["timesteps"] <= steps
                    logs = [z[k][keep].tolist() for k in ("timesteps", "results", "ep_lengths")]
                (self.evaluations_timesteps, self.evaluations_results,
                 self.evaluations_length) = logs
                if not keep.all():
                    print(f"note: {npz}: {int((~keep).sum())} evaluation(s) past the checkpoint "
                          f"at {steps:,} steps (of a session stopped without saving) left out; "
                          "this session evaluates those steps again", file=sys.stderr)
            except (OSError, ValueError, KeyError, IndexError, zipfile.BadZipFile):
                # SB3 rewrites this log in place: an interrupt can cut it short
                print(f"note: {npz} is unreadable (cut short by an interrupt?); the "
                      "evaluation log restarts (the CSV logs keep the history)",
                      file=sys.stderr)
        best_zip = run / "best_model.zip"
        if _saved_steps(best_zip) > steps:
            best_zip.replace(run / self.SET_ASIDE)
            print(f"note: {best_zip} was saved past the checkpoint at {steps:,} steps (by a "
                  f"session stopped without saving); set aside as {self.SET_ASIDE}: the best "
                  "model is chosen again from this session's evaluations", file=sys.stderr)
            return
        best = [float(r["eval/mean_reward"]) for r in read_progress(run)
                if float(r["time/total_timesteps"]) <= steps]
        if best:
            self.best_mean_reward = max(best)

    def _log_success_callback(self, locals_: dict, globals_: dict) -> None:
        if locals_["done"]:
            info = locals_["info"]
            terms = info.get("reward_terms", {})
            self.terms["foul_rate"].append(float(info.get("foul", False)))
            self.terms["points_per_shot"].append(
                float(terms.get("points", terms.get("own_goals", 0.0))))
            self.terms["given_per_shot"].append(
                float(terms.get("skaeve", terms.get("opponent_goals", 0.0))))
            for k, v in self.terms.items():
                self.logger.record(f"eval/{k}", float(np.mean(v)))

    def _on_step(self) -> bool:
        if self.eval_freq > 0 and self.n_calls % self.eval_freq == 0:
            for v in self.terms.values():
                v.clear()
            self.eval_env.seed(self.eval_seed)  # the same positions every time
        return super()._on_step()

    def evaluate_now(self) -> None:
        """One evaluation at the current step (start and end of learning), unless the last one
        was at this step."""
        if self.evaluations_timesteps and \
                self.evaluations_timesteps[-1] == self.model.num_timesteps:
            return
        calls_before, self.n_calls = self.n_calls, 0
        self.num_timesteps = self.model.num_timesteps
        self._on_step()
        self.n_calls = calls_before

    def _on_training_start(self) -> None:
        self.evaluate_now()


def _saved_steps(path: Path) -> int:
    """The steps (``num_timesteps``) of the SB3 model saved in ``path``; -1 when there is none
    or it cannot be read."""
    from cuegym.agents.sb3_agent import read_zip_data

    try:
        return int(read_zip_data(path)["num_timesteps"])
    except (OSError, KeyError, ValueError, TypeError):
        return -1


class Checkpoints(CheckpointCallback):
    """SB3's ``CheckpointCallback`` schedule, saved by :func:`save_checkpoint` (each file
    written atomically, the last two kept)."""

    def __init__(self, save_freq: int, run: Path, save_buffer: bool) -> None:
        super().__init__(save_freq, str(run / "checkpoints"), save_replay_buffer=save_buffer)
        self.run = run

    def _on_step(self) -> bool:
        if self.n_calls % self.save_freq == 0:
            save_checkpoint(self.model, self.run, self.save_replay_buffer)
        return True


class TimeLimit(BaseCallback):
    """Stops learning once ``minutes`` have passed since ``start`` (``time.time()``); ``hit``
    says whether it did. ``minutes`` None or 0: no limit."""

    def __init__(self, minutes: float | None, start: float) -> None:
        super().__init__()
        self.minutes, self.start, self.hit = minutes, start, False

    def _on_step(self) -> bool:
        if self.minutes and time.time() - self.start > 60.0 * self.minutes:
            print(f"time limit of {self.minutes} min reached at {self.num_timesteps:,} steps",
                  flush=True)
            self.hit = True
            return False
        return True
