"""Training scripts, round 4 (audit s47): reproduce's --resume checks the finished stages too,
a resume after a hard kill drops what the killed session did past its checkpoint, a candidate
Q-network reads the menu's candidate count, an off-policy resume needs its replay buffer, a
residual setting of the other game is refused, and PPO's rollout note uses SB3's n_steps."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from cuegym.cli_errors import UsageError

pytest.importorskip("stable_baselines3")

ROOT = Path(__file__).resolve().parents[1]
TRAIN = ROOT / "configs" / "train"


def _tiny(name: str, **over):
    """A SAC run of a few dozen steps: evaluations every 32 steps, checkpoints every 64."""
    from cuegym.experiments.train import load_config

    base = {"name": name, "n_envs": 4, "total_timesteps": 128, "eval_freq": 32,
            "eval_episodes": 4, "checkpoint_freq": 64, "progress_bar": False, "demos": None,
            "policy_kwargs": {"net_arch": [16]},
            "algo_kwargs": {"learning_starts": 8, "batch_size": 8, "buffer_size": 1000}}
    return load_config(TRAIN / "keglebillard_sac.yaml", {**base, **over})


def _model_steps(path: Path) -> int:
    with zipfile.ZipFile(path) as z:
        return int(json.loads(z.read("data"))["num_timesteps"])


# ---------------------------------------------------------------------------------------------
# reproduce.py --resume: a finished stage's settings are checked too
# ---------------------------------------------------------------------------------------------


def _finished_keglebillard_chain(tmp_path: Path, sets: dict) -> None:
    """The run folders a finished keglebillard chain leaves (configs, status, model.pt),
    written as the stages' own scripts write them (nothing is trained)."""
    from cuegym.experiments import reproduce, train
    from cuegym.experiments.expert_iteration import open_run
    from cuegym.experiments.train_aim import resume_refusal

    cfgs = reproduce.keglebillard_configs("rep", tmp_path, False, False, 1, sets)
    dqn = tmp_path / "rep_dqn"
    train.start_run_dir(cfgs["dqn"], dqn, False, False)
    (dqn / "status.json").write_text(json.dumps(
        {"timesteps": 256, "finished": True, "stopped_by": "total_timesteps",
         "total_timesteps": 256, "time_limit_min": 0.0}))
    for stage in ("leave", "aim"):
        run = open_run(tmp_path / f"rep_{stage}", cfgs[stage], False, False,
                       resume_refusal(cfgs[stage]))
        (run / "model.pt").write_bytes(b"weights")


def test_reproduce_resume_refuses_a_changed_setting_of_a_finished_stage(tmp_path):
    """``--resume --dqn seed=5`` of a finished seed-0 chain skipped every stage unchecked and
    reported the seed-0 files as made (train.py --resume --seed 5 refuses the same run)."""
    from cuegym.experiments import reproduce
    from cuegym.experiments.train import RunError

    dqn = {"total_timesteps": 256, "train_positions": {"n": 256}, "n_envs": 8,
           "demos": {"states": 64, "q_steps": 20}, "eval_freq": 128, "eval_episodes": 32,
           "checkpoint_freq": 128, "time_limit_min": 0}
    sets = {"dqn": dqn, "leave": {"draws": 1}, "aim": {"draws": 1}, "expert": {}}
    _finished_keglebillard_chain(tmp_path, sets)
    assert reproduce._skipped(tmp_path / "rep_dqn", "dqn", True)
    # the same settings: every stage is skipped, nothing refused
    reproduce.keglebillard_configs("rep", tmp_path, True, False, 1, sets)
    with pytest.raises(RunError, match=r"rep_dqn is another run \(seed: 0 there, 5 given\)"):
        reproduce.keglebillard_configs("rep", tmp_path, True, False, 1,
                                       {**sets, "dqn": {**dqn, "seed": 5}})
    with pytest.raises(ValueError, match=r"rep_aim/config\.yaml labels differently .*draws"):
        reproduce.keglebillard_configs("rep", tmp_path, True, False, 1,
                                       {**sets, "aim": {"draws": 2}})
    # what a resume of an unfinished stage acts on is refused for a finished one, not ignored
    for stage, change, key in (("dqn", {**dqn, "total_timesteps": 512}, "total_timesteps"),
                               ("leave", {"draws": 1, "fit": {"epochs": 3}}, "fit.epochs")):
        with pytest.raises(UsageError, match=rf"rep_{stage} finished with other settings "
                                             rf"\({key}\)"):
            reproduce.keglebillard_configs("rep", tmp_path, True, False, 1,
                                           {**sets, stage: change})
    # how a run is shown and run may differ: the progress bar, the fit's threads
    reproduce.keglebillard_configs("rep", tmp_path, True, True, 2, sets)


def test_reproduce_resume_refuses_a_changed_setting_of_a_finished_expert_stage(tmp_path):
    from cuegym.experiments import expert_iteration as ei
    from cuegym.experiments import reproduce

    tiny = {"generations": 1, "label_positions": 8, "final_fit": {}}
    sets = {"dqn": {}, "leave": {}, "aim": {}, "expert": tiny}
    cfg = reproduce.golfbillard_configs("g", tmp_path, False, False, 1, sets)["expert"]
    run = ei.open_run(tmp_path / "g_expert", cfg, False, False, ei.resume_refusal(cfg))
    (run / "model.pt").write_bytes(b"weights")
    (run / "metrics.csv").write_text("generation\n0\n")
    assert reproduce._skipped(run, "expert", True, cfg)
    reproduce.golfbillard_configs("g", tmp_path, True, False, 1, sets)  # the same: fine
    with pytest.raises(ValueError, match=r"g_expert/config\.yaml differs .*label_positions"):
        reproduce.golfbillard_configs("g", tmp_path, True, False, 1,
                                      {**sets, "expert": {**tiny, "label_positions": 16}})
    # a resume-free key acts on an unfinished run only: refused here (it was ignored)
    with pytest.raises(UsageError, match=r"g_expert finished with other settings "
                                         r"\(play\.res_gain\)"):
        reproduce.golfbillard_configs("g", tmp_path, True, False, 1,
                                      {**sets, "expert": {**tiny, "play": {"res_gain": 0.5}}})


# ---------------------------------------------------------------------------------------------
# train.py --resume after a hard kill past the last checkpoint
# ---------------------------------------------------------------------------------------------


def test_resume_after_a_hard_kill_drops_what_the_killed_session_did_past_its_checkpoint(
        tmp_path, capsys):
    """A SIGKILL after the last checkpoint: the resumed session plays those steps again, but
    the killed session's evaluations of them stayed in evaluations.npz (steps going back) and
    the learning curve, and its best_model.zip (a model the resumed run never had) stayed the
    run's best model."""
    from cuegym.experiments.train import read_progress, train

    run = train(_tiny("k9"), runs_dir=tmp_path)
    first = np.load(run / "evaluations.npz")["timesteps"].tolist()
    assert first == [0, 32, 64, 96, 128]
    # what a SIGKILL at step 128 leaves: checkpoints up to 64, evaluations up to 128, a best
    # model saved at 128
    shutil.copyfile(run / "model.zip", run / "best_model.zip")
    for p in (run / "checkpoints").glob("*_128_steps.*"):
        p.unlink()
    for f in ("status.json", "model.zip"):
        (run / f).unlink()
    capsys.readouterr()
    train(_tiny("k9"), runs_dir=tmp_path, resume=True)
    err = capsys.readouterr().err
    with np.load(run / "evaluations.npz") as z:
        steps, results = z["timesteps"].tolist(), z["results"].mean(1)
    assert steps == [0, 32, 64, 96, 128]
    assert "2 evaluation(s) past the checkpoint at 64 steps" in err, err
    # the killed session's best model is set aside; the best model is one evaluated here
    assert _model_steps(run / "best_model_past_checkpoint.zip") == 128
    best = _model_steps(run / "best_model.zip")
    assert best in (96, 128)
    # the learning curve: each step once, the resumed session's rows past the checkpoint
    rows = read_progress(run)
    curve = [int(float(r["time/total_timesteps"])) for r in rows]
    assert curve == steps
    assert [float(r["eval/mean_reward"]) for r in rows] == pytest.approx(results.tolist(),
                                                                         abs=1e-5)


# ---------------------------------------------------------------------------------------------
# train.py --resume of an off-policy run without its replay buffer
# ---------------------------------------------------------------------------------------------


def test_off_policy_resume_without_its_replay_buffer_is_refused(tmp_path, capsys):
    """The checkpoint's replay buffer gone (or never saved): the resume went on silently from
    an empty buffer, learning at once."""
    from cuegym.experiments.train import RunError, build_model, main, make_env, train

    run = train(_tiny("nobuf", total_timesteps=64), runs_dir=tmp_path)
    (run / "checkpoints" / "rl_model_replay_buffer_64_steps.pkl").unlink()
    saved = (run / "config.yaml").read_text()
    capsys.readouterr()
    argv = ["--name", "nobuf", "--runs-dir", str(tmp_path), "--resume", "--timesteps", "128"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "rl_model_replay_buffer_64_steps.pkl" in err and "start over with --overwrite" in err
    assert (run / "config.yaml").read_text() == saved
    cfg = _tiny("nobuf", total_timesteps=128)
    env = make_env(cfg, cfg.n_envs, cfg.seed, train=False)
    try:
        with pytest.raises(RunError, match="no replay buffer"):
            build_model(cfg, env, run, resume=True)
    finally:
        env.close()
    # save_replay_buffer: false: said so
    run = train(_tiny("off", total_timesteps=64, save_replay_buffer=False), runs_dir=tmp_path)
    with pytest.raises(RunError, match=r"no replay buffer .*\(save_replay_buffer is false\)"):
        train(_tiny("off", total_timesteps=128, save_replay_buffer=False), runs_dir=tmp_path,
              resume=True)


# ---------------------------------------------------------------------------------------------
# config checks: the residual settings of the other game, the candidate Q-network's n_cand
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path,residual,needle", [
    ("keglebillard_sac.yaml", {"shaping": 0.5},
     "residual.shaping is for golfbillard training only"),
    ("golfbillard_sac.yaml", {"dplace": 0.5}, "residual.dplace is for keglebillard training only")])
def test_a_residual_setting_of_the_other_game_is_refused(path, residual, needle):
    """``shaping`` is read on golfbillard only, ``dplace`` on keglebillard only: given for the
    other game they were accepted and did nothing."""
    from cuegym.experiments.train import check_config, load_config

    cfg = load_config(TRAIN / path, {"residual": residual, "demos": {}, "n_envs": 2})
    with pytest.raises(ValueError, match=needle):
        check_config(cfg)


def test_a_candidate_q_network_must_read_the_menus_candidate_count(tmp_path):
    """``choice.n_cand: 8`` with the recipe's ``policy_kwargs.n_cand: 4``: 72 actions split
    over 4, so the network was built, reading other candidates' features as the table."""
    from cuegym.experiments.selfplay import SelfPlayConfig, train_config
    from cuegym.experiments.train import check_config, load_config

    over = {"train_positions": {}, "demos": {}, "n_envs": 2}
    for changes, says in (({"choice": {"n_cand": 8}}, "4 must equal choice.n_cand 8"),
                          ({"choice": {"n_cand": 8}, "policy_kwargs": {"n_cand": None}},
                           "4 \\(its default\\) must equal choice.n_cand 8"),
                          ({"policy_kwargs": {"n_cand": 2}}, "2 must equal choice.n_cand 4")):
        cfg = load_config(TRAIN / "keglebillard_dqn.yaml", {**over, **changes})
        with pytest.raises(ValueError, match=f"config key policy_kwargs.n_cand {says}"):
            check_config(cfg)
    check_config(load_config(TRAIN / "keglebillard_dqn.yaml",
                             {**over, "choice": {"n_cand": 8}, "policy_kwargs": {"n_cand": 8}}))
    # self-play checks its train config the same way
    text = (TRAIN / "keglebillard_dqn.yaml").read_text()
    other = tmp_path / "dqn_8.yaml"
    other.write_text(text.replace("choice: {n_cand: 4,", "choice: {n_cand: 8,"))
    with pytest.raises(ValueError, match="policy_kwargs.n_cand 4 must equal choice.n_cand 8"):
        train_config(SelfPlayConfig(train_config=str(other)))


# ---------------------------------------------------------------------------------------------
# PPO's rollout: SB3's n_steps when algo_kwargs gives none
# ---------------------------------------------------------------------------------------------


def test_ppo_rollout_note_uses_the_models_n_steps(tmp_path, capsys, monkeypatch):
    """Without ``algo_kwargs.n_steps`` PPO rolls out SB3's 2,048 steps per table: a budget of
    64 ran 2,048 steps without the note that says so (it counted a rollout of 1 step)."""
    from cuegym.experiments import train as T

    class Stop(Exception):
        pass

    def stop(*a):
        raise Stop

    monkeypatch.setattr(T, "make_callbacks", stop)  # right after the note: no learning
    cfg = T.load_config(TRAIN / "keglebillard_ppo.yaml",
                        {"name": "ppo", "total_timesteps": 64, "n_envs": 1, "eval_episodes": 4,
                         "progress_bar": False, "policy_kwargs": {"net_arch": [16]},
                         "algo_kwargs": {"n_steps": None, "batch_size": 64, "n_epochs": 1}})
    with pytest.raises(Stop):
        T.train(cfg, runs_dir=tmp_path)
    out = capsys.readouterr().out
    assert "64 steps are played in whole rollouts of 2,048" in out, out
