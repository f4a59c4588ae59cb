"""Every config loader, fed the shipped configs with one or two values spoiled (seeded random
mutations, :mod:`mutations`): it accepts the result or refuses it with a ValueError naming the
problem (the commands print it as one line), never another exception (a traceback).

A longer run of the same kind (about 9,000 mutated configs over these loaders) found tracebacks
in the table, zone-set, golfbillard-rules, aim and expert configs, now refused by name; this
keeps them from coming back.
"""

from __future__ import annotations

import random

import pytest
import yaml
from mutations import mutate

from cuegym.configs import CONFIG_DIR, table_from_dict
from cuegym.configs.zones import zones_from_dict
from cuegym.envs.config import load_reward, load_settings
from cuegym.games.noise import load_noise
from cuegym.rules.golf_config import load_golf_rules
from cuegym.rules.keglebillard_config import load_rules


def _shipped(rel):
    return yaml.safe_load((CONFIG_DIR / rel).read_text())


def _from_file(load):
    """``load(path)`` on the mapping written to a YAML file."""
    def run(data, tmp_path):
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(data))
        return load(path)
    return run


def _train(path):
    from cuegym.experiments import train_config

    return train_config.load_config(path)


def _aim(path):
    from cuegym.experiments import train_aim

    return train_aim.load_config(path)


def _expert(path):
    """The expert config and the specs a run builds from it."""
    from cuegym.agents.expert import TeacherSpec, TrainSpec
    from cuegym.experiments import expert_iteration

    cfg = expert_iteration.load_config(path)
    return (expert_iteration.expert_spec(cfg), TeacherSpec(**(cfg["teacher"] or {})),
            TrainSpec(**(cfg["train"] or {})))


LOADERS = {
    "table keglebillard": (lambda d, _: table_from_dict(d), "tables/keglebillard.yaml"),
    "table golfbillard": (lambda d, _: table_from_dict(d), "tables/golfbillard.yaml"),
    "zones": (lambda d, _: zones_from_dict(d), "zones/golfbillard.yaml"),
    "reward": (lambda d, _: load_reward("keglebillard", d), "reward/keglebillard.yaml"),
    "env settings": (lambda d, _: load_settings("golfbillard", d), "envs/golfbillard.yaml"),
    "keglebillard rules": (lambda d, _: load_rules(d), "rules/keglebillard.yaml"),
    "golfbillard rules": (_from_file(load_golf_rules), "rules/golfbillard.yaml"),
    "noise": (lambda d, _: load_noise(d), None),
    "train": (_from_file(_train), "train/keglebillard_sac.yaml"),
    "aim": (_from_file(_aim), "aim/keglebillard.yaml"),
    "expert": (_from_file(_expert), "expert/golfbillard.yaml"),
}


@pytest.mark.parametrize("name", list(LOADERS))
def test_a_spoiled_config_is_accepted_or_refused_by_name(name, tmp_path):
    load, rel = LOADERS[name]
    valid = _shipped(rel) if rel else _shipped("envs/noise.yaml")["tournament"]
    load(valid, tmp_path)  # the shipped config loads
    rng = random.Random(name)
    refused = 0
    for _ in range(40):
        data = mutate(valid, rng)
        if rng.random() < 0.4:
            data = mutate(data, rng)
        try:
            load(data, tmp_path)
        except ValueError as e:  # ConfigError, UsageError, RefereeInputError are ValueErrors
            assert str(e), data
            refused += 1
    assert refused >= 5  # the mutations reached the checks


def _zones_with(**change):
    data = _shipped("zones/golfbillard.yaml")
    data.update(change)
    return zones_from_dict(data)


@pytest.mark.parametrize("make, says", [
    (lambda: _zones_with(zones=[1]), "zones must be a mapping of named zones"),
    (lambda: _zones_with(kaders=5), "kaders must be a list, got 5"),
    (lambda: _zones_with(kaders=[{"id": 1}]), "kaders[0] needs ['name', 'polygon']"),
    (lambda: _zones_with(penalty_spots={1: [0, 0]}), "penalty_spots must be spots 1..5"),
    (lambda: _zones_with(caps={"goal": {0: [0, 10**30], 1: [2, 3]}, "front": {0: 5, 1: 7},
                               "outer_side": [9, 11]}), "caps must give goal"),
    (lambda: load_golf_rules(deciding_openers=(0.5, 1)), "deciding_openers must be two partners"),
    (lambda: _expert_spec(hidden=[float("inf")]), "hidden[0] must be an integer"),
    (lambda: _expert_spec(spins=0.5), "spins must be a list, got 0.5"),
    (lambda: _train_spec(lr=-1.0), "train lr must be > 0"),
    # a number given as text (quoted in YAML, or a Python string): say which number to write
    (lambda: _train_spec(lr="1e-3"), "text, not a number: write 0.001 without quotes"),
    # the specs an expert run builds are checked when its config is read, before any work
    (lambda: _expert_config({"final_fit": {"hidden": 5}}), "hidden must be a list, got 5"),
    (lambda: _expert_config({"play": {"res_gain": 2}}), "res_gain must lie in [0, 1]"),
])
def test_bad_values_are_named(make, says):
    with pytest.raises(ValueError) as e:
        make()
    assert says in str(e.value)


def _expert_spec(**kw):
    from cuegym.agents.expert import ExpertSpec

    return ExpertSpec(**kw)


def _train_spec(**kw):
    from cuegym.agents.expert import TrainSpec

    return TrainSpec(**kw)


def _expert_config(over):
    from cuegym.experiments import expert_iteration

    return expert_iteration.load_config(None, over)


@pytest.mark.parametrize("text, value", [
    ("1e-3", 0.001), ("-2E+4", -20000.0), ("3e5", 300000.0), ("1.5e-3", 0.0015),
    ("10", 10), ("'1e-3'", "1e-3"), ("1e-3x", "1e-3x"), ("e5", "e5"), ("0.5", 0.5),
])
def test_exponents_without_a_dot_read_as_numbers(text, value):
    # PyYAML alone (YAML 1.1) reads 1e-3 as the string '1e-3'; a learning rate written so
    # would be refused (or, worse, taken as text by a library)
    from cuegym.configs import load_yaml

    got = load_yaml(f"x: {text}")["x"]
    assert got == value and type(got) is type(value)


def test_an_exponent_learning_rate_in_a_train_config_file(tmp_path):
    from cuegym.experiments.train_config import load_config, parse_set

    path = tmp_path / "dqn.yaml"
    text = (CONFIG_DIR / "train" / "keglebillard_dqn.yaml").read_text()
    path.write_text(text.replace("learning_rate: 0.00002", "learning_rate: 2e-5"))
    assert load_config(path).algo_kwargs["learning_rate"] == 2e-5
    assert parse_set(["algo_kwargs={learning_rate: 3e-4}"]) == {
        "algo_kwargs": {"learning_rate": 3e-4}}
