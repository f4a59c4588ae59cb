"""Baselines are ordered: geometric clearly beats random, the planner clearly beats geometric.

Fixed seeds, tournament shot noise, seats alternating. Measured margins (docs/agents.md) are far
wider than the thresholds asserted here.
"""

from __future__ import annotations

import numpy as np
import pytest

from cuegym.agents import (
    GeometricAgent,
    PlannerAgent,
    RandomAgent,
    Strikes,
    load_noise,
    make_arena,
    play_games,
)


@pytest.fixture(scope="module")
def kegle():
    return make_arena("keglebillard")


@pytest.fixture(scope="module")
def golf():
    return make_arena("golfbillard")


def test_keglebillard_geometric_beats_random(kegle):
    res = play_games(kegle, [GeometricAgent("keglebillard", kegle), RandomAgent("keglebillard")],
                     10, seed=0)
    g, r = res.stats(0), res.stats(1)
    assert g["wins"] >= 9
    assert g["points_per_shot"] > 2 * r["points_per_shot"]
    assert g["foul_rate"] < r["foul_rate"]


def test_keglebillard_planner_beats_geometric(kegle):
    planner = PlannerAgent("keglebillard", n_candidates=64, n_noise=4, arena=kegle)
    res = play_games(kegle, [planner, GeometricAgent("keglebillard", kegle)], 12, seed=0)
    p, g = res.stats(0), res.stats(1)
    assert p["wins"] >= 9
    assert p["points_per_shot"] > g["points_per_shot"] + 1.0
    assert p["foul_rate"] < g["foul_rate"]


def test_golfbillard_geometric_beats_random(golf):
    res = play_games(golf, [GeometricAgent("golfbillard", golf), RandomAgent("golfbillard")], 8,
                     seed=0)
    g, r = res.stats(0), res.stats(1)
    assert g["wins"] >= 6 and r["wins"] == 0
    assert g["points_per_shot"] > r["points_per_shot"]


def _golf_positions(golf, n, seed):
    """Play-phase positions from games between geometric agents (fixed seed)."""
    rng = np.random.default_rng(seed)
    geo = GeometricAgent("golfbillard", golf)
    states = golf.new_states(4)
    states = golf.opening(states, *[geo.act_opening(states, s, rng) for s in (0, 1)])
    out = []
    noise = load_noise("tournament")
    while len(out) < n:
        live = [s for s in states if s.phase == "play"]
        if not live:
            break
        out += live
        _, states = golf.step(live, noise.apply(geo.act(live, rng), rng))
    return out[:n]


def test_golfbillard_planner_strokes_are_worth_more_than_geometric(golf):
    """One stroke from 24 positions of real games, each executed under 4 noise draws: the
    planner's strokes have the higher mean value (goals, turn kept, fouls, position)."""
    states = _golf_positions(golf, 24, seed=1)
    rng = np.random.default_rng(0)
    planner = PlannerAgent("golfbillard", n_candidates=16, n_noise=2, arena=golf)
    noise = load_noise("tournament")
    vals = {}
    for name, agent in (("planner", planner), ("geometric", GeometricAgent("golfbillard", golf))):
        s = agent.act(states, np.random.default_rng(7))
        reps = [golf.values(states, noise.apply(s, rng)) for _ in range(4)]
        vals[name] = float(np.mean(reps))
    assert vals["planner"] > vals["geometric"] + 0.05


@pytest.mark.slow
def test_golfbillard_planner_beats_geometric_in_games(golf):
    planner = PlannerAgent("golfbillard", n_candidates=32, n_noise=4, arena=golf)
    res = play_games(golf, [planner, GeometricAgent("golfbillard", golf)], 20, seed=0)
    assert res.stats(0)["wins"] >= 2 * res.stats(1)["wins"] + 4


def test_planner_plays_the_geometric_shot_without_noise_or_search(kegle):
    """With one candidate the planner plays exactly the aimer's best shot."""
    states = kegle.new_states(2)
    rng = np.random.default_rng(0)
    p = PlannerAgent("keglebillard", n_candidates=1, n_noise=1, arena=kegle, spins=(-0.4,))
    g = GeometricAgent("keglebillard", kegle, spin=-0.4)
    assert np.allclose(p.act(states, rng).cue, g.act(states, rng).cue)
    assert isinstance(p.act(states, rng), Strikes)


def test_shipped_keglebillard_agent_against_geometric(kegle):
    """Issue 7 targets for the shipped agent (agents/pretrained/keglebillard.zip choosing by
    its leave network keglebillard_leave.pt, through its aim correction keglebillard_aim.pt):
    fewer fouls than 10 %, more points per shot than the aimer and a head-to-head win. Seed 0,
    1,600 games: 9.7 % fouls of 15,135 shots, 5.21 against 3.78 points, 1,367 wins (the leave
    fitted without mirror images: 9.8 %, 5.16 against 3.79, 1,372; the aim network before it
    learnt the leave's strikes: 9.8 %, 5.07 against 3.80, 1,348). The agent's foul rate is close
    to the target (9.3-9.5 % over 4,000-6,000 games): 400-game samples
    scatter from 9.2 to 10.9 % for either network, hence 1,600 (about 10 s)."""
    from cuegym.agents import make_agent, pretrained_path

    if pretrained_path("keglebillard") is None:
        pytest.skip("no shipped keglebillard agent")
    agent = make_agent("pretrained", "keglebillard", arena=kegle)
    res = play_games(kegle, [agent, GeometricAgent("keglebillard", kegle)], 1600, seed=0)
    p, g = res.stats(0), res.stats(1)
    assert p["foul_rate"] < 0.10 and p["foul_rate"] < g["foul_rate"] / 2
    assert p["points_per_shot"] > g["points_per_shot"] + 0.5
    assert p["wins"] >= 0.75 * 1600
