"""The agents' API, second outside audit: a DQN's exploration per state, options refused
where they would do nothing, malformed model metadata named, SB3's first import leaving the
global generators alone, play_games' and make_arena's arguments checked, option ranges and
``-.2`` (docs/agents.md)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401 (registers the env ids)
from cuegym.agents import make_agent
from cuegym.agents.arena import make_arena
from cuegym.agents.head_to_head import play_games

ROOT = Path(__file__).resolve().parents[1]
PRETRAINED = ROOT / "agents" / "pretrained"


def test_a_dqn_explores_state_by_state():
    """SB3's predict draws once per call: the whole batch explored, or none of it."""
    arena = make_arena("keglebillard")
    states = arena.new_states(200)
    greedy = make_agent("pretrained:aim=none,leave=none", "keglebillard", arena=arena)
    eps = make_agent("pretrained:aim=none,leave=none,deterministic=false", "keglebillard",
                     arena=arena)
    rate = float(eps.model.exploration_rate)
    assert 0.0 < rate < 0.5
    want = greedy.act(states, np.random.default_rng(0)).cue
    changed = [int((np.abs(eps.act(states, np.random.default_rng(s)).cue - want).max(1) > 0)
                   .sum()) for s in range(6)]
    assert all(0 < c < 100 for c in changed), changed
    again = eps.act(states, np.random.default_rng(3)).cue
    assert np.array_equal(again, eps.act(states, np.random.default_rng(3)).cue)


def test_deterministic_false_is_refused_where_it_would_do_nothing(tmp_path):
    with pytest.raises(ValueError, match="leave and aim networks choose among its ranked"):
        make_agent("pretrained:deterministic=false", "keglebillard")
    with pytest.raises(ValueError, match="leave and aim networks"):
        make_agent("pretrained:leave=none,deterministic=false", "keglebillard")
    from stable_baselines3 import TD3

    from cuegym.agents.sb3_agent import save_model

    env = gym.make("cuegym/GolfbillardShot-v0")
    model = TD3("MlpPolicy", env, policy_kwargs={"net_arch": [8]}, learning_starts=1,
                buffer_size=10, device="cpu")
    path = save_model(model, tmp_path / "td3.zip", {
        "game": "golfbillard", "env_id": "cuegym/GolfbillardShot-v0", "action": "absolute",
        "algo": "td3"})
    make_agent(str(path), "golfbillard")
    with pytest.raises(ValueError, match="TD3 model, whose policy is deterministic"):
        make_agent(f"{path}:deterministic=false", "golfbillard")


def _bare_copy(tmp_path: Path) -> Path:
    """The shipped golfbillard model without its cuegym.json member."""
    src, dst = PRETRAINED / "golfbillard.zip", tmp_path / "m" / "bare.zip"
    dst.parent.mkdir()
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            if item.filename != "cuegym.json":
                zout.writestr(item, zin.read(item.filename))
    return dst


@pytest.mark.parametrize("side, says", [
    ("{oops", r"bare\.json \(the metadata of bare\.zip\) is not valid JSON"),
    ("[1]", r"bare\.json \(the metadata of bare\.zip\) is not a JSON object"),
    ('{"env_id": "cuegym/GolfbillardShot-v0", "algo": 3}', r"metadata algo must be text, got 3"),
    ('{"env_id": "cuegym/GolfbillardShot-v0", "residual": "abc"}',
     r"metadata residual must be a mapping, got 'abc'"),
])
def test_malformed_model_metadata_is_named(tmp_path, side, says):
    path = _bare_copy(tmp_path)
    path.with_suffix(".json").write_text(side)
    with pytest.raises(ValueError, match=says):
        make_agent(str(path), "golfbillard")


def test_a_config_yaml_of_no_training_run_is_not_read_as_the_models(tmp_path):
    """An unrelated config.yaml beside a model without metadata made it a keglebillard SAC
    ("plays keglebillard, not golfbillard"); now the model itself is read."""
    path = _bare_copy(tmp_path)
    (path.parent / "config.yaml").write_text("lr: 0.001\n")
    with pytest.raises(ValueError, match="write the metadata with") as e:
        make_agent(str(path), "golfbillard")
    assert "plays keglebillard" not in str(e.value)


def test_the_first_sb3_model_leaves_pythons_random_alone():
    code = ("import random\nrandom.seed(0); a = random.random()\n"
            "from cuegym.agents import make_agent\n"
            "random.seed(0); make_agent('pretrained', 'golfbillard'); b = random.random()\n"
            "print(a == b)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT.parent, timeout=300)
    assert out.stdout.strip() == "True", out.stderr[-2000:]


def test_play_games_checks_its_arguments():
    arena = make_arena("keglebillard")
    geo = make_agent("geometric", "keglebillard", arena=arena)
    for kw, says in (({"seed": None}, "seed must be an integer"),
                     ({"seed": 1.5}, "seed must be an integer"),
                     ({"seed": -1}, "seed must be an integer >= 0"),
                     ({"seed": True}, "seed must be an integer"),
                     ({"progress": 5}, "progress must be None or a callable"),
                     ({"observer": "x"}, "observer must be None or a callable")):
        with pytest.raises(ValueError, match=says):
            play_games(arena, [geo, geo], 2, **kw)
    with pytest.raises(ValueError, match="plays agents"):
        play_games(arena, [geo, "random"], 2)
    with pytest.raises(ValueError, match="needs a KeglebillardArena or GolfbillardArena"):
        play_games("keglebillard", [geo, geo], 2)
    with pytest.raises(ValueError, match=r"unknown argument\(s\) \['n_players'\]"):
        make_arena("golfbillard", n_players=3)


def test_option_values_in_range_and_signed_leading_dots():
    with pytest.raises(ValueError, match="n_policy=8 proposes .* but policy=none gives none"):
        make_agent("guided:policy=none,n_policy=8", "keglebillard")
    with pytest.raises(ValueError, match=r"spin must be in \[-0\.6, 0\.6\]"):
        make_agent("geometric:spin=-1", "keglebillard")
    with pytest.raises(ValueError, match="spins"):
        make_agent("planner:spins=[0.9]", "keglebillard")
    assert make_agent("geometric:spin=-.2", "keglebillard").spin == -0.2
    assert make_agent("planner:spins=[-.4]", "keglebillard").spins == (-0.4,)


def test_option_and_config_integers_read_as_yaml_1_2():
    """YAML 1.1 read ``010`` as octal 8 and ``1:30`` as 90: planner:n_candidates=010 was 8."""
    from cuegym.configs import load_yaml

    assert [load_yaml(x) for x in ("010", "1:30", "0x1f", "0o17", "-3", "1_000", "2.5")] == \
        [10, "1:30", 31, 15, -3, 1000, 2.5]
    assert make_agent("planner:n_candidates=010", "keglebillard").n_candidates == 10
    with pytest.raises(ValueError, match="n_candidates"):
        make_agent("planner:n_candidates=1:30", "keglebillard")
