"""Golfbillard whole-game flow, round 7: the opening's foul term goes to the side whose foul it
is (G-19 in the opening), the reference referee keeps a cut-off opening's overflow code and
note (so the differential harness compares openings cut at max_events), and the differential
on positions with the penalty spots mostly taken."""

import numpy as np
import pytest
from golf_differential import GEO, VARIANTS, _same, run, run_spots, to_oracle
from reference import golf_game as OG

from cuegym.games.golf import Golf
from cuegym.rules.golfbillard import GolfState, LogBuilder
from cuegym.rules.golfbillard_game import new_match, opening_strike, play_strokes, simulate_strokes


def test_opening_g19_foul_charged_to_the_jamming_side():
    # r1 knocks w2 between the caps of goal 0, side 1's defence goal: side 1's G-19 foul
    # (docs/rules_golfbillard.md), although the named ball is side 0's
    G = Golf({"match": "single"})
    st = GolfState.with_balls({"w1": tuple(GEO.start[0]), "w3": tuple(GEO.start[2]),
                               "w2": (0.6, 0.25), "r1": tuple(GEO.start[5]),
                               "r2": tuple(GEO.start[6]), "r3": tuple(GEO.start[7])},
                              phase="opening")
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.3)).strike("r1", (-1.0, -0.6))
           .ball_ball(0.2, "r1", "w2", (0.63, 0.19), (0.6, 0.25))
           .rest("w1", (0.6, 0.1), 2.0).rest("r1", (-0.3, -0.1), 2.0).build())
    out, _ = G.apply_log([st], log, np.array([[0, 5]]), np.tile([1.0, 0, 0, 0, 0], (1, 2, 1)),
                         injected=[[{"type": "jam", "ball": "w2", "goal": 0, "time": 0.6}]])
    o = out.outcome(0)
    assert [f.rule for f in o.fouls] == ["G-19"]
    assert o.fouls[0].detail == "w2 jammed between the caps of side 1's defence goal"
    t0, _ = G.reward_terms(out, viewer=np.array([0]))
    t1, _ = G.reward_terms(out, viewer=np.array([1]))
    assert (t0["foul"][0], t1["foul"][0]) == (0.0, 1.0)


def test_opening_cut_at_max_events_same_outcome_as_reference():
    st = new_match()
    cb = np.array([[0, 5]])
    cue = np.array([[opening_strike(st, 0, 0, V0=1.1), opening_strike(st, 1, 5, V0=1.2)]])
    res = simulate_strokes([st], cb, cue, geo=GEO, max_events=3)
    assert int(res.overflow[0]) == 1  # the opening was cut off
    outs, _ = play_strokes([st], res, cb, cue, geo=GEO, allow_overflow=True)
    oouts, _ = OG.play_strokes([to_oracle(st)], res, cb, cue, allow_overflow=True)
    a, b = outs[0].to_json(GEO), oouts[0].to_json()
    assert a["overflow"] == 1 and "max_events" in a["notes"][0]
    assert _same(a, b), {k: (a.get(k), b.get(k)) for k in a if not _same(a.get(k), b.get(k))}


@pytest.mark.parametrize("k", [0, 1, 5])
def test_differential_with_openings_cut_at_max_events(k):
    stats = run(T=16, strokes=6, seed=300 + k, variant=VARIANTS[k], max_events=6)
    assert stats["cut_openings"] > 0, stats


@pytest.mark.parametrize("variant", [{}, {"duo": True},
                                     {"spot_policy": "agent", "pick_policy": "agent"}])
def test_differential_with_penalty_spots_occupied(variant):
    stats = run_spots(T=16, rounds=4, seed=7, variant=variant)
    assert stats["strokes"] == 64
    # spots 4, 5 and the free point nearest spot 3 (0) were used
    assert sum(n for k, n in stats["spots"].items() if k in (4, 5, 0)) > 0, stats
