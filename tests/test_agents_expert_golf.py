"""Expert iteration for golfbillard (cuegym.agents.expert, experiments/expert_iteration.py):
positions of whole golf games, features in the mover's frame, the teacher on golf states, and a
one-generation run of configs/expert/golfbillard.yaml that saves an agent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cuegym.rules.golf_codes import P_PLAY

ROOT = Path(__file__).resolve().parents[1]

torch = pytest.importorskip("torch")

SPEC = {"game": "golfbillard", "n_cand": 4, "spins": (-0.3, 0.3), "speeds": (1.0,),
        "spin0": 0.0, "q_scale": 2.0}


@pytest.fixture(scope="module")
def arena():
    from cuegym.agents import make_arena

    return make_arena("golfbillard")


@pytest.fixture(scope="module")
def positions(arena):
    from cuegym.agents import make_agent
    from cuegym.agents.expert import collect_positions

    g = make_agent("geometric", "golfbillard", arena=arena)
    return collect_positions(arena, [g, g], 2, seed=5)


def test_golf_positions_are_play_states_of_both_sides(positions):
    from cuegym.rules.golf_codes import P_PLAY

    states, z, res = positions
    assert type(states).__name__ == "GolfStates"
    assert len(states) == len(z) == int(res.n_shots.sum()) - len(res.n_shots)  # no openings
    assert (states.phase == P_PLAY).all()
    assert set(np.unique(states.to_move)) == {0, 1}
    won = res.winner >= 0
    assert set(np.unique(z)) <= ({-1.0, 1.0} if won.all() else {-1.0, 0.0, 1.0})


def test_golf_features_are_seen_from_the_side_to_move(arena, positions):
    """A side-1 table and the same table turned by 180 degrees with the balls' owners swapped
    (side 0 to move) read the same; the strikes stay on the table as it is."""
    from cuegym.agents.expert import ExpertSpec, features
    from cuegym.agents.residual import golf_frame_state, golf_from_frame

    states, _, _ = positions
    spec = ExpertSpec(**SPEC)
    idx = np.flatnonzero(states.to_move == 1)[:6]
    sub = [states.state(int(t)) for t in idx]
    turned = [golf_frame_state(s) for s in sub]
    obs1, f1, s1 = features(arena, sub, spec)
    obs0, f0, s0 = features(arena, turned, spec)
    np.testing.assert_allclose(obs1, obs0, atol=1e-6)
    np.testing.assert_allclose(f1, f0, atol=1e-5)
    back = golf_from_frame(s0, np.ones(len(s0), np.int64))
    np.testing.assert_array_equal(s1.cue_ball, back.cue_ball)
    d = np.mod(s1.cue[:, 1] - back.cue[:, 1] + 180.0, 360.0) - 180.0
    np.testing.assert_allclose(d, 0.0, atol=1e-6)
    assert np.isnan(s1.place).all()  # no ball in hand in golfbillard


def test_golf_teacher_labels_menu_and_student(arena, positions):
    from cuegym.agents.expert import (
        ExpertAgent,
        ExpertNet,
        ExpertSpec,
        TeacherSpec,
        teacher_labels,
    )

    states, _, _ = positions
    spec = ExpertSpec(**SPEC)
    torch.manual_seed(0)
    student = ExpertAgent(ExpertNet(spec), arena=arena)
    sub = states.take(np.arange(0, len(states), max(1, len(states) // 8)))
    lab = teacher_labels(arena, sub, spec, TeacherSpec(k1=2, top=2, n_perturb=2, k2=2, chunk=4),
                         np.random.default_rng(0), student=student)
    T = len(sub)
    assert lab["obs"].shape == (T, spec.obs_dim) and lab["q"].shape == (T, spec.menu.n_actions)
    assert (lab["value"] >= lab["menu_value"]).all()
    assert (lab["value"] >= lab["student_value"]).all()
    assert (lab["res"][:, 4:] == 0).all()  # no placement to correct
    with pytest.raises(ValueError, match="golfbillard"):
        from cuegym.agents import make_arena

        teacher_labels(make_arena("keglebillard"), sub, spec, TeacherSpec(),
                       np.random.default_rng(0))


def test_golf_teacher_labels_split_over_a_pool(arena, positions):
    """With a pool the states are labelled in ``parts`` pieces, in order, each with a generator
    seeded from the caller's: the same seed and parts give the same labels, and each piece's
    labels are those of the piece labelled here with its seed."""
    from concurrent.futures import ThreadPoolExecutor

    from cuegym.agents.expert import ExpertSpec, TeacherSpec, teacher_labels

    states, _, _ = positions
    spec = ExpertSpec(**SPEC)
    tspec = TeacherSpec(k1=2, top=1, n_perturb=1, k2=2, chunk=4)
    sub = states.take(np.arange(7))
    with ThreadPoolExecutor(2) as pool:
        a = teacher_labels(arena, sub, spec, tspec, np.random.default_rng(3), pool=pool, parts=2)
        b = teacher_labels(arena, sub, spec, tspec, np.random.default_rng(3), pool=pool, parts=2)
    seeds = np.random.default_rng(3).integers(0, 2**63 - 1, size=2)
    first = teacher_labels(arena, sub.take(np.arange(4)), spec, tspec,
                           np.random.default_rng(int(seeds[0])))
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
        np.testing.assert_array_equal(a[k][:4], first[k])
    assert len(a["entry"]) == 7
    with pytest.raises(ValueError, match="parts must be"):
        teacher_labels(arena, sub, spec, tspec, np.random.default_rng(0), parts=2)


def test_golf_one_generation_trains_saves_and_plays(tmp_path, arena):
    from cuegym.agents import make_agent, play_games
    from cuegym.experiments.expert_iteration import load_config, main

    argv = ["--config", str(ROOT / "configs" / "expert" / "golfbillard.yaml"),
            "--runs-dir", str(tmp_path), "--name", "g", "--no-progress", "--set",
            "generations=1", "label_positions=16", "train={steps: 10}", "workers=1",
            "final_fit={}", "spec={n_cand: 3, spins: [0.0], speeds: [1.0], select: q, "
            "res_gain: 0.0}",
            "teacher={k1: 2, top: 1, n_perturb: 1, k2: 2, chunk: 8}",
            "games={first: [[geometric, geometric, 1]]}",
            "eval={geometric: 2, planner: 0, pretrained: 0}"]
    assert main(argv) == 0
    run = tmp_path / "g"
    for f in ("gen0.pt", "model.pt", "labels_gen0.npz", "metrics.csv", "learning_curve.png"):
        assert (run / f).exists(), f
    assert not (run / "final.pt").exists()  # final_fit {}: off
    header = (run / "metrics.csv").read_text().splitlines()[0].split(",")
    assert "geometric_draws" in header  # G-5 draws are counted, and no win
    agent = make_agent(str(run / "model.pt"), "golfbillard")
    assert agent.game == "golfbillard" and agent.meta["game"] == "golfbillard"
    # model.pt plays with the config's `play` settings, the generation with the training ones
    assert (agent.select, agent.res_gain) == ("policy", 1.0)
    gen0 = make_agent(str(run / "gen0.pt"), "golfbillard")
    assert (gen0.select, gen0.res_gain) == ("q", 0.0)
    res = play_games(arena, [agent, make_agent("geometric", "golfbillard", arena=arena)], 2,
                     seed=9)
    assert res.stats(0)["shots"] > 0
    states = arena.take(arena.new_states(2), [0, 1])
    states.phase[:] = P_PLAY  # as after an alternate opening: act() plays a turn's stroke
    assert agent.value(states).shape == (2,)
    # experiments/expert_retrain.py: a fresh network on the run's labels, kader duels repeated
    from cuegym.experiments import expert_retrain

    out = tmp_path / "re.pt"
    assert expert_retrain.main(["--runs", str(run), "--out", str(out), "--steps", "3",
                                "--batch", "8", "--hidden", "16", "16", "--duel-repeat",
                                "3"]) == 0
    re = make_agent(str(out), "golfbillard")
    assert list(re.spec.hidden) == [16, 16] and (re.select, re.res_gain) == ("policy", 1.0)
    assert re.meta["labels"] == 16 and re.meta["duel_repeat"] == 3
    assert len(re.act(states, np.random.default_rng(0))) == 2
    obs = arena.g.observe(arena.g.batch(states))
    assert not expert_retrain.kader_duel(obs).any()  # five balls each
    with pytest.raises(ValueError, match="no labels_gen"):
        expert_retrain.retrain([tmp_path], out, None, 1, 8, 1e-3)
    with pytest.raises(ValueError, match="duel_repeat must be"):
        expert_retrain.retrain([run], out, None, 1, 8, 1e-3, duel_repeat=0)
    with pytest.raises(ValueError, match="spec.game"):
        load_config(None, {"game": "golfbillard", "spec": {"game": "keglebillard"}})
    with pytest.raises(ValueError, match="eval: unknown opponent"):
        load_config(None, {"eval": {"guided": 10}})
    with pytest.raises(ValueError, match="unknown play key"):
        load_config(None, {"play": {"select": "q", "n_cand": 3}})
    assert load_config(None, {"threads": None, "workers": 2})["threads"] == 1  # null: default
    with pytest.raises(ValueError, match="workers must be"):
        load_config(None, {"workers": 0})
    with pytest.raises(ValueError, match="unknown final_fit key"):
        load_config(None, {"final_fit": {"hiden": [8]}})


def test_golf_two_workers_and_a_final_fit(tmp_path):
    """``workers: 2`` labels in two spawned processes; ``final_fit`` fits a fresh network on
    both generations' labels, writes final.pt and final.json and makes it model.pt."""
    import json

    from cuegym.agents import make_agent
    from cuegym.experiments.expert_iteration import main

    argv = ["--config", str(ROOT / "configs" / "expert" / "golfbillard.yaml"),
            "--runs-dir", str(tmp_path), "--name", "w", "--no-progress", "--set",
            "generations=2", "label_positions=12", "train={steps: 3}", "workers=2",
            "final_fit={hidden: [16, 8], steps: 3, batch: 8}",
            "spec={n_cand: 3, spins: [0.0], speeds: [1.0]}",
            "teacher={k1: 2, top: 1, n_perturb: 1, k2: 2, chunk: 8}",
            "games={first: [[geometric, geometric, 1]], later: [[student, geometric, 1]]}",
            "eval={geometric: 2, planner: 0, pretrained: 0}"]
    assert main(argv) == 0
    run = tmp_path / "w"
    final = make_agent(str(run / "model.pt"), "golfbillard")
    assert list(final.spec.hidden) == [16, 8] and final.meta["labels"] == 24
    assert (final.select, final.res_gain) == ("policy", 1.0)  # the config's play settings
    assert list(make_agent(str(run / "final.pt"), "golfbillard").spec.hidden) == [16, 8]
    row = json.loads((run / "final.json").read_text())
    assert row["labels"] == 24 and row["geometric_games"] == 2
    labels = np.load(run / "labels_gen1.npz")
    assert len(labels["L_entry"]) == 12


def test_shipped_golf_expert_loads_and_plays_deterministically(arena):
    from cuegym.agents import make_agent, play_games

    agent = make_agent("expert", "golfbillard", arena=arena)
    assert agent.name == "expert" and agent.game == "golfbillard"
    # its recipe is the shipped config (the run had another name and no progress bar)
    from cuegym.experiments.expert_iteration import load_config

    recipe = load_config(ROOT / "configs" / "expert" / "golfbillard.yaml")
    ignore = {"name": None, "progress_bar": None}
    assert agent.meta["config"] | ignore == recipe | ignore
    assert agent.meta["generation"] == "final" and agent.meta["labels"] == 120_000
    res = play_games(arena, [agent, make_agent("geometric", "golfbillard", arena=arena)], 2,
                     seed=13)
    assert res.stats(0)["shots"] > 0
    from cuegym.agents.expert import collect_positions

    states, _, _ = collect_positions(arena, [agent, agent], 1, seed=2)
    a = agent.act(states, np.random.default_rng(0))
    b = agent.act(states, np.random.default_rng(1))
    np.testing.assert_array_equal(a.cue, b.cue)
    np.testing.assert_array_equal(a.cue_ball, b.cue_ball)
    # every stroke strikes one of the side to move's own balls (G-1)
    np.testing.assert_array_equal(a.cue_ball // 5, states.to_move)


def test_shipped_golf_expert_against_geometric(arena):
    """Issue 16 target for the shipped golfbillard expert: >= 90 % of games won against the
    geometric aimer (measured 0.925 [0.921, 0.929] over 16,000 games, seeds 100000-170000),
    scoring more own goals per stroke and fouling less. 200 games at seed 900 (a few seconds;
    185 won, 8 lost, 7 drawn when written): single 200-game samples scatter by about 2
    points, so the bound is 0.85."""
    from cuegym.agents import make_agent, play_games

    agent = make_agent("expert", "golfbillard", arena=arena)
    res = play_games(arena, [agent, make_agent("geometric", "golfbillard", arena=arena)], 200,
                     seed=900)
    e, g = res.stats(0), res.stats(1)
    assert e["wins"] >= 0.85 * (e["wins"] + e["losses"] + e["draws"])
    assert e["points_per_shot"] > g["points_per_shot"] + 0.05
    assert e["foul_rate"] < g["foul_rate"]


@pytest.mark.slow
def test_shipped_golf_expert_against_the_planner(arena):
    """Issue 16 target for the shipped golfbillard expert: >= 55 % of games won against the
    planner with one forward pass per stroke (measured 0.64 [0.60, 0.68] of 500 at seed 900).
    100 games at seed 900 (about a minute; 64 won, 14 lost, 22 drawn when written) at a bound
    of 0.50, and more own goals per stroke than the planner."""
    from cuegym.agents import make_agent, play_games

    agent = make_agent("expert", "golfbillard", arena=arena)
    res = play_games(arena, [agent, make_agent("planner", "golfbillard", arena=arena)], 100,
                     seed=900)
    e, p = res.stats(0), res.stats(1)
    assert e["wins"] >= 0.50 * (e["wins"] + e["losses"] + e["draws"]), e
    assert e["points_per_shot"] > p["points_per_shot"], (e, p)
