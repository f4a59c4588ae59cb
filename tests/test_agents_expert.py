"""Expert iteration (cuegym.agents.expert, experiments/expert_iteration.py): the teacher's
search, the residual map, positions from whole games, a one-generation training run, and the
agent it saves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def arena():
    from cuegym.agents import make_arena

    return make_arena("keglebillard")


@pytest.fixture(scope="module")
def positions(arena):
    from cuegym.agents import make_agent
    from cuegym.agents.expert import collect_positions

    g = make_agent("geometric", "keglebillard", arena=arena)
    return collect_positions(arena, [g, g], 3, seed=7)


def test_positions_from_whole_games_carry_the_result_of_the_player_to_move(positions):
    states, z, res = positions
    assert len(states) == int(res.n_shots.sum()) == len(z)
    assert set(np.unique(z)) <= {-1.0, 0.0, 1.0}
    assert res.finished.all() and (res.winner >= 0).all()
    assert (z != 0).all()  # every game decided: +1 for the winner's positions, -1 the loser's
    assert 0 < (z > 0).mean() < 1
    assert states.scores.max() > 0  # late positions with scores are in


def test_apply_residual_zero_is_the_strike_and_bad_placements_fall_back(arena, positions):
    from cuegym.agents.expert import ExpertSpec, apply_residual, features
    from cuegym.games.kegle_state import HAND_NONE

    states, _, _ = positions
    spec = ExpertSpec()
    hand = np.flatnonzero(states.hand != HAND_NONE)[:4]
    idx = np.concatenate([np.arange(4), hand])
    sub = states.take(idx)
    _, _, block = features(arena, sub, spec)
    first = block.take(np.arange(len(sub)) * spec.n_cand)
    out, r = apply_residual(first, np.zeros((len(sub), 6)), spec, sub, arena)
    np.testing.assert_allclose(out.cue, first.clipped().cue)
    np.testing.assert_array_equal(np.isnan(out.place), np.isnan(first.place))
    big = np.zeros((len(sub), 6))
    big[:, 0] = 10.0          # clipped to RES_MAX units of aim
    big[:, 4:] = -10.0        # placements pushed 9 cm: applied only where still playable
    out, r = apply_residual(first, big, spec, sub, arena)
    np.testing.assert_allclose(out.cue[:, 1] - first.cue[:, 1], 3.0 * spec.res_scale[0])
    has = ~np.isnan(first.place[:, 0])
    np.testing.assert_array_equal(has, sub.hand != HAND_NONE)  # (the break places the red)
    assert len(hand) and (r[~has, 4:] == 0).all()
    assert np.isnan(out.place[~has]).all()
    assert arena.placement_ok(sub, np.nan_to_num(out.place)).all()
    moved = (r[:, 4] != 0)
    np.testing.assert_allclose(out.place[moved] - first.place[moved], -0.09)
    np.testing.assert_array_equal(out.place[has & ~moved], first.place[has & ~moved])


def test_teacher_weighs_the_menu_and_the_students_move(arena, positions):
    from cuegym.agents.expert import (
        ExpertAgent,
        ExpertNet,
        ExpertSpec,
        TeacherSpec,
        teacher_labels,
    )

    states, _, _ = positions
    spec = ExpertSpec()
    torch.manual_seed(0)
    student = ExpertAgent(ExpertNet(spec), arena=arena)
    sub = states.take(np.arange(0, len(states), max(1, len(states) // 10)))
    lab = teacher_labels(arena, sub, spec, TeacherSpec(k1=2, top=2, n_perturb=2, k2=2, chunk=4),
                         np.random.default_rng(0), student=student)
    T = len(sub)
    assert lab["q"].shape == (T, spec.menu.n_actions) and lab["res"].shape == (T, 6)
    # the best menu entry as is and the student's move are among the teacher's candidates
    assert (lab["value"] >= lab["menu_value"]).all()
    assert (lab["value"] >= lab["student_value"]).all()
    valid = np.repeat(lab["feats"][:, :, 0] > 0, spec.menu.n_variants, axis=1)
    assert valid[np.arange(T), lab["entry"]].all()  # labels name real candidates
    assert np.isfinite(lab["res"]).all() and (np.abs(lab["res"]) <= 3.0 + 1e-9).all()


def test_one_generation_trains_saves_and_plays(tmp_path, arena, capsys):
    from cuegym.agents import make_agent, make_arena, play_games
    from cuegym.experiments.expert_iteration import load_config, main

    argv = ["--config", str(ROOT / "configs" / "expert" / "keglebillard.yaml"),
            "--runs-dir", str(tmp_path), "--name", "t", "--no-progress", "--set",
            "generations=1", "label_positions=24", "train={steps: 20}",
            "teacher={k1: 2, top: 2, n_perturb: 2, k2: 2, chunk: 12}",
            "games={first: [[geometric, geometric, 2]]}", "eval={geometric: 2, planner: 0}"]
    assert main(argv) == 0
    run = tmp_path / "t"
    for f in ("config.yaml", "gen0.pt", "model.pt", "labels_gen0.npz", "metrics.csv",
              "learning_curve.png"):
        assert (run / f).exists(), f
    agent = make_agent(str(run / "model.pt"), "keglebillard")
    assert agent.name == "model" and agent.meta["generation"] == 0
    states = make_arena("keglebillard").new_states(3)
    a = agent.act(states, np.random.default_rng(0))
    b = agent.act(states, np.random.default_rng(1))
    np.testing.assert_array_equal(a.cue, b.cue)  # one forward pass: no randomness
    assert len(a) == 3 and np.isfinite(a.cue).all()
    v = agent.value(states)
    assert v.shape == (3,) and (np.abs(v) <= 1).all()
    from cuegym.agents.expert import value_function

    np.testing.assert_array_equal(value_function(run / "model.pt")(states), v)
    res = play_games(arena, [agent, make_agent("random", "keglebillard")], 2, seed=3)
    assert res.stats(0)["shots"] > 0
    with pytest.raises(ValueError, match="unknown expert config key"):
        load_config(None, {"gamez": 1})
    with pytest.raises(ValueError, match="unknown teacher key"):
        load_config(None, {"teacher": {"k3": 1}})
    assert main(argv) == 2  # no silent overwrite of a run: a one-line error
    capsys.readouterr()
    relabel = [a.replace("label_positions=24", "label_positions=30") for a in argv]
    assert main([*relabel, "--resume"]) == 2  # a resume may add generations, not relabel
    assert "config.yaml differs from the config given" in capsys.readouterr().err


def test_shipped_expert_loads_and_acts_deterministically():
    from cuegym.agents import make_agent, make_arena

    agent = make_agent("expert", "keglebillard")
    assert agent.name == "expert" and agent.meta["command"].startswith(
        "python experiments/expert_iteration.py --config configs/expert/keglebillard.yaml")
    arena = make_arena("keglebillard")
    from cuegym.agents import play_games

    res = play_games(arena, [agent, make_agent("geometric", "keglebillard")], 2, seed=11)
    a = agent.act(arena.new_states(4), np.random.default_rng(0))
    b = agent.act(arena.new_states(4), np.random.default_rng(5))
    np.testing.assert_array_equal(a.cue, b.cue)
    np.testing.assert_array_equal(a.place, b.place)
    assert res.stats(0)["shots"] > 0


def test_expert_networks_play_their_own_game_only(tmp_path):
    from cuegym.agents import make_agent
    from cuegym.agents.expert import ExpertAgent, ExpertNet, ExpertSpec, save_net

    with pytest.raises(FileNotFoundError, match="no expert model"):
        make_agent("missing.pt", "keglebillard")
    path = save_net(ExpertNet(ExpertSpec(game="golfbillard", spin0=0.0)), tmp_path / "g.pt")
    with pytest.raises(ValueError, match="for golfbillard, not keglebillard"):
        make_agent(str(path), "keglebillard")
    assert make_agent(str(path), "golfbillard").game == "golfbillard"
    with pytest.raises(ValueError, match="the arena keglebillard"):
        from cuegym.agents import make_arena

        ExpertAgent(path, arena=make_arena("keglebillard"))
    with pytest.raises(ValueError, match="game"):
        ExpertSpec(game="snooker")

    with pytest.raises(ValueError, match="select"):
        ExpertSpec(select="best")
    with pytest.raises(ValueError, match="select"):
        ExpertAgent(ExpertNet(ExpertSpec()), select="best")
    with pytest.raises(ValueError, match="res_scale"):
        ExpertSpec(res_scale=(1.0, 0.1))
