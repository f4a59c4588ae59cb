"""Training workflows other than train.py, outside audit: reproduce's resume of an unfinished
expert stage, ``eval: {}``, train_aim's base checked before the run folder, selfplay's --init
action settings and pool names, resume refusals that name keys, and the full-game envs refusing
the Shot envs' bank (docs/agents.md)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import gymnasium as gym
import pytest
import torch

import cuegym  # noqa: F401 (registers the env ids)

ROOT = Path(__file__).resolve().parents[1]


def _metrics(run: Path, rows: int) -> None:
    with (run / "metrics.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["generation"])
        w.writeheader()
        w.writerows({"generation": k} for k in range(rows))


def test_reproduce_resumes_an_expert_stage_that_did_not_finish(tmp_path):
    """model.pt is rewritten after every generation: a run stopped after generation 0 was
    taken for finished and its generation-0 network shipped."""
    from cuegym.experiments.reproduce import _skipped

    run = tmp_path / "r_expert"
    run.mkdir()
    (run / "model.pt").write_bytes(b"gen0")
    cfg = {"generations": 3, "final_fit": {"steps": 5}}
    _metrics(run, 1)
    assert not _skipped(run, "expert", True, cfg)
    _metrics(run, 3)
    assert not _skipped(run, "expert", True, cfg)  # the final fit is still to come
    (run / "final.json").write_text("{}")
    assert _skipped(run, "expert", True, cfg)
    assert _skipped(run, "expert", True, {"generations": 3, "final_fit": {}})
    assert not _skipped(run, "expert", False, cfg)


def test_eval_off_keeps_its_seed():
    """``eval: {}`` (no games) dropped the seed: a KeyError after all the labelling."""
    from cuegym.experiments import expert_iteration as ei
    from cuegym.experiments import train_aim

    cfg = ei.load_config(ROOT / "configs" / "expert" / "keglebillard.yaml", {"eval": {}})
    assert cfg["eval"] == {"seed": ei.DEFAULTS["eval"]["seed"]}
    cfg = train_aim.load_config(ROOT / "configs" / "aim" / "keglebillard.yaml", {"eval": {}})
    assert cfg["eval"] == {"seed": train_aim.DEFAULTS["eval"]["seed"]}


def test_train_aim_checks_its_base_before_the_run_folder(tmp_path):
    """A base that cannot rank was refused after the run folder was made (and, with
    --overwrite, the old run deleted); for the leave target, an AttributeError after the
    games."""
    from cuegym.experiments import train_aim

    # (leave.aim only for the leave target: target aim refuses the leave's settings)
    for over, says in (({"base": "geometric", "entries": 3}, "entries=3 needs a base"),
                       ({"base": "geometric", "entries": 1, "leave": {"aim": "none"}},
                        "target: leave needs a base")):
        path = ROOT / "configs" / "aim" / ("keglebillard.yaml" if over["entries"] > 1 else
                                          "keglebillard_leave.yaml")
        with pytest.raises(ValueError, match=f"config key base: {says}"):
            train_aim.load_config(path, over)
    old = tmp_path / "good"
    old.mkdir()
    (old / "model.pt").write_bytes(b"weights")
    assert train_aim.main(["--config", str(ROOT / "configs" / "aim" / "keglebillard.yaml"),
                           "--runs-dir", str(tmp_path), "--name", "good", "--overwrite",
                           "--set", "base=geometric", "entries=3"]) == 2
    assert (old / "model.pt").read_bytes() == b"weights"


def test_selfplay_init_model_must_share_the_train_configs_menu(tmp_path):
    from cuegym.experiments.selfplay import SelfPlayConfig, train_config

    text = (ROOT / "configs" / "train" / "keglebillard_dqn.yaml").read_text()
    other = tmp_path / "dqn_other.yaml"
    other.write_text(text.replace("spins: [-0.4, 0.0, 0.3], speeds: [0.75, 1.0, 1.35]",
                                  "spins: [-0.2, 0.1, 0.5], speeds: [0.5, 1.5, 2.0]"))
    init = str(ROOT / "agents" / "pretrained" / "keglebillard.zip")
    cfg = SelfPlayConfig(train_config=str(other), init_model=init)
    with pytest.raises(ValueError, match=r"trained with choice\.spins = \[-0\.4, 0\.0, 0\.3\], "
                                         r"the train config has \[-0\.2, 0\.1, 0\.5\] \(and "
                                         "speeds differ too\\)"):
        train_config(cfg)
    same = SelfPlayConfig(train_config=str(ROOT / "configs" / "train" / "keglebillard_dqn.yaml"),
                          init_model=init)
    assert train_config(same).choice["spins"] == [-0.4, 0.0, 0.3]


def test_selfplay_pool_names_are_kept_apart():
    from cuegym.experiments.selfplay import _named_apart

    class A:
        def __init__(self, name):
            self.name = name

    got = [a.name for a in _named_apart([A("geometric"), A("gen1"), A("geometric"), A("gen1")])]
    assert got == ["geometric", "init:gen1", "geometric#2", "init:gen1#2"]


def test_resume_refusals_name_the_keys_and_let_run_settings_change(tmp_path):
    from cuegym.experiments import expert_iteration as ei
    from cuegym.experiments import train_aim
    from cuegym.experiments.reproduce import START_OVER

    cfg = ei.load_config(ROOT / "configs" / "expert" / "keglebillard.yaml", {})
    refuse = ei.resume_refusal(cfg)
    assert refuse({**cfg, "progress_bar": not cfg["progress_bar"], "threads": 3,
                   "name": "copied"}) is None
    why = refuse({**cfg, "seed": 7, "train": {**cfg["train"], "steps": 1}})
    assert "seed" in why and "train.steps" in why
    acfg = train_aim.load_config(ROOT / "configs" / "aim" / "keglebillard.yaml", {})
    arefuse = train_aim.resume_refusal(acfg)
    assert arefuse({**acfg, "name": "copied_labels"}) is None  # docs/keglebillard_gap.md recipe
    assert "games" in arefuse({**acfg, "games": 3})
    run = tmp_path / "x_expert"
    run.mkdir()
    (run / "config.yaml").write_text("name: x\n")
    with pytest.raises(ValueError, match="another --name") as e:
        ei.check_run(run, cfg, False, False, refuse, START_OVER)
    assert "--overwrite" not in str(e.value)


def test_expert_resume_refuses_fewer_generations_than_the_run_has_done(tmp_path):
    """A resume with generations=1 of a run with 2 finished rewrote its config.yaml to 1 while
    gen0.pt, gen1.pt and two metrics rows stayed (train.py refuses the like for its steps)."""
    from cuegym.experiments import expert_iteration as ei

    run = tmp_path / "ex"
    run.mkdir()
    (run / "metrics.csv").write_text("generation\n0\n1\n")
    cfg = ei.load_config(ROOT / "configs" / "expert" / "keglebillard.yaml", {"generations": 1})
    why = ei.resume_refusal(cfg, run)(cfg)
    assert "has done 2 generations, more than the generations 1 given" in why
    more = {**cfg, "generations": 2}
    assert ei.resume_refusal(more, run)(more) is None
    assert ei.resume_refusal(cfg)(cfg) is None  # without the run: the keys only


def test_expert_resume_with_new_play_settings_resaves_the_model(tmp_path):
    """A resume of a finished run with other ``play`` settings recorded them in config.yaml,
    but model.pt kept the old ones (no generation ran to save it)."""
    from cuegym.agents.expert import load_net
    from cuegym.experiments.expert_iteration import expert_iteration, load_config

    over = {"name": "p", "generations": 1, "label_positions": 8, "train": {"steps": 2},
            "progress_bar": False, "games": {"first": [["geometric", "geometric", 1]]},
            "eval": {"geometric": 0, "planner": 0}}
    run = expert_iteration(load_config(ROOT / "configs" / "expert" / "keglebillard.yaml", over),
                           runs_dir=tmp_path)
    gen0 = run / "gen0.pt"
    cfg = load_config(ROOT / "configs" / "expert" / "keglebillard.yaml",
                      {**over, "play": {"res_gain": 0.25}})
    expert_iteration(cfg, runs_dir=tmp_path, resume=True)
    net, _ = load_net(run / "model.pt")
    assert net.spec.res_gain == 0.25
    want, _ = load_net(gen0)
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(),
                                                  want.state_dict().values(), strict=True))


@pytest.mark.parametrize("env_id", ["cuegym/Keglebillard-v0", "cuegym/Golfbillard-v0"])
def test_full_game_envs_refuse_the_shot_envs_bank(env_id):
    with pytest.raises(ValueError, match="settings key 'positions' is not used by .*GameCore: "
                                         "the full-game envs start every episode from a new game"):
        gym.make(env_id, settings={"positions": "no-such-bank"})
    gym.make(env_id, settings={"max_steps": 20}).reset(seed=0)


def test_selfplay_leaves_the_shot_bank_out_of_the_game_env(tmp_path):
    from cuegym.experiments.selfplay import SelfPlayConfig, _game_env_kwargs, train_config

    tcfg = train_config(SelfPlayConfig(
        train_config=str(ROOT / "configs" / "train" / "keglebillard_dqn.yaml")))
    kw = _game_env_kwargs(tcfg)
    assert "noise" not in kw and kw["settings"] == {} and kw["reward"] == {"foul": -0.75}
    json.dumps(kw)


def test_train_aim_refuses_a_model_base_that_ranks_no_menu(tmp_path):
    """Every SB3 model has a ranked() that refuses models other than menu DQNs: a SAC base
    passed the check (which asked whether it had the method) and failed after the run folder
    was made."""
    from tiny_runs import tiny_sac

    from cuegym.experiments import train_aim
    from cuegym.experiments.train import train

    run = train(tiny_sac("sacbase"), runs_dir=tmp_path)
    base = str(run / "model.zip")
    with pytest.raises(ValueError, match="config key base: "):
        train_aim.load_config(ROOT / "configs" / "aim" / "keglebillard.yaml",
                              {"base": base, "entries": 3})
