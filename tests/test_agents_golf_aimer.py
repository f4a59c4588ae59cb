"""Differential test: the compiled golfbillard aimer (cuegym.agents.geometric_golf, one kernel
over a table axis) against the per-state numpy aimer it replaced (tests/reference/golf_aimer.py,
the oracle).

On random positions (balls anywhere, in and near both goal cones, frozen pairs, frozen to
cushions and caps, sides with no ball left) and on positions from real games, every state must
give the same candidates: the same number, balls and kinds in the same order, and the same
strikes, costs and features up to 1e-12. They are not always bit-identical: the oracle's dot
products go through BLAS (fused multiply-adds) and its ``np.exp`` through numpy's SIMD exp, the
kernel uses plain products and libm's exp, so a few last bits differ (about 1e-15).
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.golf_aimer import golf_candidates as golf_candidates_numpy

from cuegym.agents import make_agent, make_arena, play_games
from cuegym.agents.geometric_golf import (
    GOLF_LABELS,
    goal_cone,
    golf_best,
    golf_candidates,
    golf_candidates_batch,
)
from cuegym.rules.golf_paths import golf_arrays
from cuegym.rules.golfbillard import GolfState

ARENA = make_arena("golfbillard")
R = ARENA.geo.R


def _random_states(rng: np.random.Generator, n: int) -> list[GolfState]:
    """n play states: 10 balls (about 30 % scored), some in a goal cone, some frozen."""
    geo = ARENA.geo
    cones = [goal_cone(geo, g) for g in (0, 1)]
    ga = golf_arrays(geo)
    hx, hy = ga.hx, ga.hy  # the cloth's reach of a ball centre [m]
    out = []
    for _ in range(n):
        xy = np.column_stack([rng.uniform(-hx, hx, 10), rng.uniform(-hy, hy, 10)])
        for b in np.flatnonzero(rng.random(10) < 0.3):  # in a cone
            c = cones[int(rng.integers(0, 2))]
            d = rng.uniform(c.near, c.far)
            xy[b] = (c.gx - c.sgn * d, rng.uniform(-1, 1) * c.slope * d)
        if rng.random() < 0.3:  # a frozen pair
            k = int(rng.integers(0, 9))
            a = rng.uniform(0, 2 * np.pi)
            xy[k + 1] = xy[k] + (2 * R + rng.uniform(0, 3e-4)) * np.array([np.cos(a), np.sin(a)])
        if rng.random() < 0.15:  # frozen to a long cushion or a cap
            k = int(rng.integers(0, 10))
            cap = geo.caps[int(rng.integers(0, len(geo.caps)))]
            xy[k] = (rng.uniform(-hx, hx), np.sign(rng.uniform(-1, 1)) * (hy - 1e-4)) \
                if rng.random() < 0.5 else cap + (R + geo.r_cap + 1e-4) * np.array([0.0, 1.0])
        xy[rng.random(10) < 0.3] = np.nan
        if rng.random() < 0.05:  # the side to move has no ball left
            xy[:5] = np.nan
        out.append(GolfState(xy=xy, to_move=int(rng.integers(0, 2)), phase="play"))
    return out


def _game_states(n_games: int) -> list[GolfState]:
    """The play states of a few real games (geometric agents, tournament noise)."""
    from cuegym.agents.base import Agent

    seen: list[GolfState] = []

    class Spy(Agent):
        game = "golfbillard"
        name = "spy"

        def __init__(self) -> None:
            self.inner = make_agent("geometric", "golfbillard", arena=ARENA)

        def act(self, states, rng):
            seen.extend(states)
            return self.inner.act(states, rng)

    play_games(ARENA, [Spy(), Spy()], n_games, seed=3, max_shots=60)
    return seen


def _check(states: list[GolfState], spins=(0.0, -0.2)) -> set[str]:
    batch = golf_candidates_batch(ARENA, states, spins=spins)
    kinds: set[str] = set()
    for t, st in enumerate(states):
        new = batch.table(t, ARENA.geo.ball_ids)
        old = golf_candidates_numpy(ARENA, st, spins=spins)
        assert new.kind == old.kind, t
        assert np.array_equal(new.strikes.cue_ball, old.strikes.cue_ball), t
        assert np.isnan(new.strikes.place).all()
        np.testing.assert_allclose(new.strikes.cue, old.strikes.cue, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(new.cost, old.cost, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(new.feats, old.feats, rtol=1e-12, atol=1e-12)
        kinds.update(k.split(":")[-1] for k in new.kind)
    return kinds


def test_random_states_match_the_numpy_aimer() -> None:
    kinds = _check(_random_states(np.random.default_rng(0), 250))
    assert kinds == set(GOLF_LABELS)  # every branch was exercised


def test_game_states_match_the_numpy_aimer() -> None:
    states = _game_states(4)
    assert len(states) > 50
    _check(states, spins=(0.0,))


@pytest.mark.slow
def test_many_states_match_the_numpy_aimer() -> None:
    for seed in range(1, 9):
        _check(_random_states(np.random.default_rng(seed), 1000))
    _check(_game_states(40), spins=(0.0,))


def test_single_state_wrapper_and_best() -> None:
    states = _random_states(np.random.default_rng(5), 40)
    batch = golf_candidates_batch(ARENA, states, spins=(0.1,))
    best = golf_best(ARENA, states, 0.1)
    for t, st in enumerate(states):
        one = golf_candidates(ARENA, st, spins=(0.1,))
        assert one.kind == batch.table(t, ARENA.geo.ball_ids).kind
        k = one.best()
        assert np.array_equal(best.cue[t], one.strikes.cue[k])
        assert best.cue_ball[t] == one.strikes.cue_ball[k]
    # a GolfStates batch gives the same as the list
    packed = golf_candidates_batch(ARENA, ARENA.g.batch(states), spins=(0.1,))
    assert np.array_equal(packed.cue, batch.cue) and np.array_equal(packed.count, batch.count)
    assert len(golf_best(ARENA, [], 0.0)) == 0


def test_bad_input_is_named() -> None:
    st = _random_states(np.random.default_rng(1), 1)[0]
    st.to_move = 2
    with pytest.raises(ValueError, match="side to move must be 0 or 1, got 2"):
        golf_candidates(ARENA, st)
    st.to_move = 0
    with pytest.raises(ValueError, match="spins must be finite"):
        golf_candidates(ARENA, st, spins=(float("nan"),))


def test_bench_tournament_smoke(capsys) -> None:
    import json

    from cuegym.experiments import bench_tournament

    assert bench_tournament.main(["--games", "2", "--json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert rec["in_process_s"] > 0 and rec["shots"] >= 2 and sum(rec["wins"]) <= 2
    assert rec["peak_rss_mb"] > 0
    assert bench_tournament.main(["--agents", "geometric"]) == 2
    assert "needs two agent specs" in capsys.readouterr().err
    # a spec with several options is one agent, as in evaluate.py
    assert bench_tournament.main(["--agents", "planner:n_candidates=4,n_noise=1,geometric",
                                  "--games", "1", "--json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert rec["agents"] == ["planner:n_candidates=4,n_noise=1", "geometric"]
