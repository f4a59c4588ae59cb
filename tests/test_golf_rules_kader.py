"""Golfbillard kader play and penalty spots on hand-written event logs (docs/rules_golfbillard.md,
G-20 .. G-23, G-26, G-30).

As in test_golf_rules.py: each test builds a stroke with :class:`LogBuilder` and names the rule
it checks. Side 0 (w1..w5) attacks goal 0 at +x, side 1 (r1..r5) goal 1.
"""

import numpy as np
import pytest
from golf_strokes import (
    GEO,
    KADER,
    SPOTS0,
    SPOTS1,
    R,
    at,
    duty_state,
    idx,
    state,
    stroke,
)

from cuegym.rules.golfbillard import (
    GolfRules,
    choose_spot,
)

# --- G-20 .. G-23: kader play ------------------------------------------------------------------


def test_G20_kader_play_from_a_stroke_starting_with_one_ball_left():
    o = stroke(state(KADER), lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.5, 0.2), 1.0),
               "w1")
    assert o.kader
    o = stroke(state(), lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.7, 0.0), 1.0), "w1")
    assert not o.kader and o.left_kader is None
    st = state()
    st.kader = True  # once on, it stays on
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.52, 0.0), 1.0), "w1")
    assert o.kader


def test_G21_no_ball_leaving_its_kader_is_a_foul():
    st = state(KADER)
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.5)).rest("w1", (0.3, 0.25), 1.0), "w1")
    assert o.foul.rule == "G-21" and o.consequences == {"LT", "CS"} and o.left_kader is False
    assert np.allclose(at(o, "w1"), SPOTS0[0]) and at(o, "w2").tolist() == [-0.3, 0.2]


def test_G21_leaving_coming_back_dropping_and_ending_on_a_line():
    st = state(KADER)
    ok = [
        lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.5, 0.2), 1.0),  # into kader 11
        lambda b: (b.strike("w1", (1.0, 0.0)).turn(0.5, "w1", (0.5, 0.2), (-0.5, 0.0))
                   .rest("w1", (0.3, 0.2), 1.0)),  # out and back
        lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.45, 0.2), 1.0),  # ends on a line
        lambda b: b.strike("w1", (1.0, -0.3)).drop(1.0, "w1", 0),  # dropped
    ]
    for build in ok:
        o = stroke(st, build, "w1")
        assert o.foul is None and o.left_kader is True
    # reaching within the line band counts, stopping short of it does not
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.45 - 0.0008, 0.2), 1), "w1")
    assert o.foul is None
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.45 - 0.0012, 0.2), 1), "w1")
    assert o.foul.rule == "G-21"


def test_G21_ball_starting_on_a_kader_line():
    on_line = (0.2, 0.3577)
    st = state({**KADER, "w1": on_line})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.3, 0.3577), 1.0), "w1")
    assert o.foul.rule == "G-21"  # it ran along its line
    o = stroke(st, lambda b: b.strike("w1", (0.0, -1.0)).rest("w1", (0.2, 0.35), 1.0), "w1")
    assert o.foul is None  # more than epsilon_line off the line


def test_G22_cue_ball_in_the_great_attack_triangle_is_exempt():
    st = state({**KADER, "w1": (0.7, 0.0)})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.2)).rest("w1", (0.75, 0.05), 1.0), "w1")
    assert o.foul is None and o.left_kader is None


def test_G23_defender_balls_see_one_merged_kader_at_the_shooters_attack_goal():
    # side 0 shoots; r2 (defender) goes from the great triangle at goal 0 into a corner there
    st = state({"w1": (0.3, 0.1), "w2": (-0.3, 0.2), "r2": (0.5, 0.1)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0))
                              .ball_ball(0.2, "w1", "r2", (0.4385, 0.1), (0.5, 0.1))
                              .rest("w1", (0.4385, 0.1), 0.3).rest("r2", (0.85, 0.3), 1.0)), "w1")
    assert o.foul.rule == "G-21"
    # the same move at the defender's own attack goal (no merge there) leaves its kader
    st = state({"w1": (-0.3, 0.1), "w2": (-0.3, 0.3), "r2": (-0.5, 0.1)})
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, 0.0))
                              .ball_ball(0.2, "w1", "r2", (-0.4385, 0.1), (-0.5, 0.1))
                              .rest("w1", (-0.4385, 0.1), 0.3).rest("r2", (-0.85, 0.3), 1.0)),
               "w1")
    assert o.foul is None and o.left_kader


# --- G-26, G-30: penalty spots -----------------------------------------------------------------


def spot_state(fouled=(), spot=1):
    st = state({"w1": tuple(SPOTS0[spot - 1]), "w2": (0.6, 0.09387), "w3": (-0.3, -0.2),
                "r1": (-0.2, -0.25)})
    st.on_spot[idx("w1")] = spot
    for k in fouled:
        st.fouled_spots[0, k - 1] = True
    return st


def own_ball_foul(b):  # w1 off its spot straight onto w2: G-12
    return (b.strike("w1", (-1.0, 0.0))
            .ball_ball(0.2, "w1", "w2", (0.6615, 0.09387)).rest("w2", (0.3, 0.09387), 1.0))


def test_G26_foul_stroke_from_a_penalty_spot_moves_to_the_next_unused_spot():
    o = stroke(spot_state(), own_ball_foul, "w1")
    assert o.kader and o.foul.rule == "G-12"
    assert o.fouled_spots[0].tolist() == [True, False, False, False, False]
    assert o.spotted == [(idx("w1"), 2)] and o.on_spot[idx("w1")] == 2
    o = stroke(spot_state(fouled=(1,), spot=2), own_ball_foul, "w1")
    assert o.spotted == [(idx("w1"), 3)] and o.fouled_spots[0, :3].tolist() == [True, True, False]
    o = stroke(spot_state(fouled=(1, 2, 3, 4), spot=5), own_ball_foul, "w1")
    assert o.spotted == [(idx("w1"), 1)]  # every spot used: G-30 (first free)


def test_G26_only_the_offenders_own_cue_ball():
    """G-26 moves the offender's ball off its spot; an opponent's ball played from its own
    penalty spot (a G-18 foul, LT RA PICK in kader play) is put back by RA and stays there,
    and no spot of either side is marked."""
    st = state({"w1": (0.3, 0.3), "w2": (0.3, -0.3), "r1": tuple(SPOTS1[2]), "r2": (-0.5, -0.2)},
               kader=True)
    st.on_spot[idx("r1")] = 3
    st.fouled_spots[1, 0] = True
    o = stroke(st, lambda b: b.strike("r1", (-0.3, 0.0)).rest("r1", (-0.3, 0.0), 1.0), "r1")
    assert o.foul.rule == "G-18" and o.foul.kind == "played_opponent_ball"
    assert np.allclose(at(o, "r1"), SPOTS1[2]) and o.on_spot[idx("r1")] == 3
    assert o.fouled_spots.tolist() == st.fouled_spots.tolist()


def test_G26_not_outside_kader_play():
    st = spot_state()
    st.xy[idx("r2")] = (0.3, -0.3)  # two balls each: no kader play
    st.xy[idx("w4")] = (-0.6, 0.3)
    st.kader = False  # with_balls turned it on for side 1's single ball
    o = stroke(st, own_ball_foul, "w1")
    assert not o.kader and o.spotted == [(idx("w1"), 1)]
    assert not o.fouled_spots.any()


def _free(p, xy, tol=1e-9):
    """A ball centred at p lies on the cloth and touches no ball, cap or goal (G-30)."""
    hx, hy = GEO.table.length / 2 - R, GEO.table.width / 2 - R
    balls = xy[~np.isnan(xy[:, 0])]
    return bool(abs(p[0]) <= hx and abs(p[1]) <= hy
                and np.all(np.hypot(*(GEO.caps - p).T) >= R + GEO.r_cap - tol)
                and np.all(np.hypot(*(GEO.goals[:, :2] - p).T) > GEO.goals[:, 2])
                and np.all(np.hypot(*(balls - p).T) >= 2 * R - tol))


def _nearest_free_on_edges(target, xy):
    """Brute force: the distance from target to the nearest free point sampled on the edges of
    the obstacles (balls, caps, goals), every 0.01 degree."""
    ang = np.radians(np.arange(0, 360, 0.01))
    ring = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    best = np.inf
    edges = ([(b, 2 * R + 2e-9) for b in xy[~np.isnan(xy[:, 0])]]
             + [(c, R + GEO.r_cap + 2e-9) for c in GEO.caps]
             + [(g[:2], g[2] + 3e-6) for g in GEO.goals])
    for c, r in edges:
        pts = c + r * ring
        d = np.hypot(*(pts - target).T)
        for i in np.argsort(d):
            if d[i] >= best:
                break
            if _free(pts[i], xy):
                best = d[i]
                break
    return best


def test_G30_spot_choice_first_free_then_4_5_then_nearest_free_point_to_3():
    rng = np.random.default_rng(0)
    xy = np.full((10, 2), np.nan)
    assert choose_spot(0, xy, GEO, "first_free", rng)[0] == 1
    xy[5], xy[6] = SPOTS0[0], SPOTS0[1]
    assert choose_spot(0, xy, GEO, "first_free", rng)[0] == 3
    xy[7] = SPOTS0[2]
    k, p = choose_spot(0, xy, GEO, "first_free", rng)
    assert k == 4 and np.allclose(p, SPOTS0[3])
    xy[8] = SPOTS0[3]
    assert choose_spot(0, xy, GEO, "first_free", rng)[0] == 5
    xy[9] = SPOTS0[4]
    k, p = choose_spot(0, xy, GEO, "first_free", rng)
    assert k == 0
    assert np.min(np.hypot(*(xy[5:] - p).T)) >= 2 * R - 1e-9
    assert np.min(np.hypot(*(GEO.caps - p).T)) >= R + GEO.r_cap - 1e-9
    assert np.hypot(*(p - SPOTS0[2])) < 0.1
    assert np.hypot(*(p - SPOTS0[2])) == pytest.approx(2 * R, abs=1e-8)  # touching that ball
    # the ball on spot 3 a little off it: the nearest free point is exact, no nearer free point
    # on any obstacle's edge (sampled every 0.01 degree)
    xy[7] = SPOTS0[2] + (0.012, 0.004)
    k, p = choose_spot(0, xy, GEO, "first_free", rng)
    assert k == 0 and _free(p, xy)
    assert np.hypot(*(p - SPOTS0[2])) <= _nearest_free_on_edges(SPOTS0[2], xy) + 1e-9
    # side 1's spots are turned by 180 degrees
    k, p = choose_spot(5, np.full((10, 2), np.nan), GEO, "first_free", rng)
    assert k == 1 and np.allclose(p, -SPOTS0[0])


def test_G30_random_and_agent_policies():
    rng = np.random.default_rng(3)
    xy = np.full((10, 2), np.nan)
    xy[5] = SPOTS0[0]
    got = {choose_spot(0, xy, GEO, "random", rng)[0] for _ in range(40)}
    assert got == {2, 3}
    assert choose_spot(0, xy, GEO, "agent", rng, choice=3)[0] == 3
    with pytest.raises(ValueError, match="spot choice 1"):
        choose_spot(0, xy, GEO, "agent", rng, choice=1)
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.1, "w2", "r3", (-0.3, 0.2))
                              .drop(0.5, "w2", 1)), "w1", choices={"spots": [2]},
               rules=GolfRules(spot_policy="agent"))
    assert o.spotted == [(idx("w2"), 2)]
    with pytest.raises(ValueError, match="choices"):
        stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).drop(0.5, "w2", 1)), "w1",
               rules=GolfRules(spot_policy="agent"))
    with pytest.raises(ValueError, match=r"choices\['spots'\]\[0\] = 10{30} is not a penalty"):
        stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).drop(0.5, "w2", 1)), "w1",
               choices={"spots": [10**30]}, rules=GolfRules(spot_policy="agent"))


def test_G30_several_balls_are_placed_one_at_a_time():
    st = duty_state(w3=(-0.75, 0.05))
    st.duty[idx("w3")] = True
    o = stroke(st, lambda b: b.strike("w2", (0.5, 0.0)).rest("w2", (0.0, 0.2), 1.0), "w2")
    assert o.foul.rule == "G-14"
    assert [k for _, k in o.spotted] == [1, 2]
    p = [at(o, "w1"), at(o, "w3")]
    assert np.hypot(*(p[0] - p[1])) >= 2 * R
