"""Golfbillard stroke referee on hand-written event logs (docs/rules_golfbillard.md, G-1 .. G-30).

Each test builds a stroke with :class:`LogBuilder` (the SimResult layout of docs/physics_api.md)
and names the rule it checks. Side 0 (w1..w5) attacks goal 0 at +x, side 1 (r1..r5) goal 1.
"""

import math

import numpy as np
import pytest
from golf_strokes import (
    BASE,
    EPS,
    GEO,
    GOAL0,
    IN_DEF,
    KADER,
    SPOTS0,
    ZS,
    R,
    at,
    duty_state,
    idx,
    state,
    stroke,
    toward,
)

from cuegym.rules.golfbillard import (
    BEHAVIOURAL,
    GolfRules,
    GolfState,
    LogBuilder,
    direct_goal_attempt,
    score_stroke,
    score_strokes,
    stack_logs,
)

# --- G-1, G-2, G-6, G-7, G-9: goals and turns --------------------------------------------------


def test_G1_G6_valid_own_goal_keeps_the_turn():
    st = state()
    o = stroke(st, lambda b: b.strike("w1", toward(BASE["w1"], GOAL0, 1.0)).drop(0.4, "w1", 0),
               "w1")
    assert o.foul is None and o.valid_own == 1 and o.turn_kept
    assert o.scored.tolist() == [1, 0] and np.isnan(at(o, "w1")[0])
    assert not o.game_over


def test_G1_no_goal_loses_the_turn():
    st = state()
    o = stroke(st, lambda b: b.strike("w1", (0.5, 0.0)).rest("w1", (0.7, 0.0), 1.0), "w1")
    assert o.foul is None and not o.turn_kept and o.scored.tolist() == [0, 0]
    assert at(o, "w1").tolist() == [0.7, 0.0]


def test_G1_a_foul_loses_the_turn_even_after_a_valid_goal():
    st = state()
    o = stroke(st, lambda b: b.strike("w1", toward(BASE["w1"], GOAL0, 1.0)).drop(0.4, "w1", 0),
               "w1", injected=[{"type": "off_table", "ball": "w2", "time": 0.6}])
    assert o.foul.rule == "G-16" and o.valid_own == 1 and not o.turn_kept


def test_G2_cue_ball_must_be_on_the_table():
    st = state()
    with pytest.raises(ValueError, match="w4"):
        stroke(st, lambda b: b, "w4")
    with pytest.raises(ValueError, match="w9"):
        stroke(st, lambda b: b, "w9")


def test_G2_G18_striking_an_opponents_ball_is_a_behavioural_foul():
    st = state()
    o = stroke(st, lambda b: b.strike("r1", (0.3, 0.0)).rest("r1", (0.4, 0.25), 1.0), "r1")
    assert o.foul.rule == "G-18" and o.foul.kind == "played_opponent_ball"
    assert o.consequences == {"LT", "RA"}
    assert at(o, "r1").tolist() == [0.3, 0.25] and not o.turn_kept


def test_G7_G9_opponent_ball_into_either_goal_counts_for_its_side_and_ends_the_turn():
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (-0.5, 0.5)).ball_ball(0.3, "w1", "r1", (0.35, 0.2),
                                                                    (0.3, 0.25))
                              .rest("w1", (0.3, 0.2), 0.8).drop(0.9, "r1", 0)), "w1")
    assert o.foul is None and o.scored.tolist() == [0, 1] and o.valid_own == 0
    assert not o.turn_kept  # G-9
    o = stroke(st, lambda b: (b.strike("w1", (-0.5, 0.5)).ball_ball(0.3, "w1", "r1", (0.35, 0.2),
                                                                    (0.3, 0.25))
                              .rest("w1", (0.3, 0.2), 0.8).drop(0.9, "r1", 1)), "w1")
    assert o.scored.tolist() == [0, 1] and not o.turn_kept


def test_G6_G7_own_and_opponent_goal_in_one_stroke_keeps_the_turn():
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).drop(0.3, "w1", 0)
                              .ball_ball(0.1, "r2", "w3", (0.3, -0.25)).drop(0.9, "r2", 1)), "w1")
    assert o.scored.tolist() == [1, 1] and o.turn_kept


def test_G6a_goal_off_a_goal_caps_rubber_is_valid():
    """G-6a: a ball that comes off a goal cap's rubber and drops into the attack goal scores."""
    st = state()
    k = ZS.goal_caps[0][0]
    cap = GEO.caps[k]
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0))
                              .post(0.4, "w1", int(k), (cap[0] - 0.04, cap[1]))
                              .drop(0.7, "w1", 0)), "w1")
    assert o.foul is None and o.scored.tolist() == [1, 0] and o.turn_kept


def test_G6a_ball_falling_after_rest_is_no_goal():
    st = state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.84, 0.0), 1.0), "w1",
               injected=[{"type": "fall_after_rest", "ball": "w1"}])
    assert o.scored.tolist() == [0, 0] and not o.turn_kept
    assert at(o, "w1").tolist() == [0.84, 0.0]
    assert any("G-6a" in n for n in o.notes)


def test_G6a_drop_after_the_ball_came_to_rest_is_no_goal():
    """G-6a: a log that has the ball come to rest on the rim and then drop, with nothing
    moving it in between, is a fall after rest (with or without the injected event): no goal,
    the ball back where it lay, the turn lost."""
    st = state()
    for injected in (None, [{"type": "fall_after_rest", "ball": "w1"}]):
        o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).rest("w1", (0.855, 0.0), 0.5)
                                  .drop(2.0, "w1", 0)), "w1", injected=injected)
        assert o.scored.tolist() == [0, 0] and not o.turn_kept and o.foul is None
        assert at(o, "w1").tolist() == [0.855, 0.0]
        assert [n for n in o.notes if "G-6a" in n] == \
            ["G-6a: w1 fell after coming to rest: no goal, back on the rim"]


def test_G6a_a_ball_set_moving_again_after_rest_scores():
    """G-6a: a ball that came to rest on the rim and is then hit into the goal scores."""
    gx = GEO.goals[0, 0]
    # w2 glances off r1 (a legal first contact, G-12), then sends w1 to the rim
    st = state({**BASE, "w1": (gx - 0.2, 0.0), "w2": (gx - 0.5, 0.0),
                "r1": (gx - 0.4, 2 * R * 0.9)})
    o = stroke(st, lambda b: (b.strike("w2", (1.0, 0.0))
                              .ball_ball(0.05, "w2", "r1", (gx - 0.4 - 2 * R * 0.44, 0.0))
                              .rest("r1", (gx - 0.35, 0.1), 0.4)
                              .ball_ball(0.1, "w2", "w1", (gx - 0.2 - 2 * R, 0.0))
                              .rest("w1", (gx - 0.04, 0.0), 0.5)
                              .ball_ball(0.9, "w2", "w1", (gx - 0.04 - 2 * R, 0.0))
                              .drop(1.0, "w1", 0)
                              .rest("w2", (gx - 0.1, 0.0), 1.2)), "w2")
    assert o.foul is None and o.scored.tolist() == [1, 0] and o.turn_kept
    assert not any("G-6a" in n for n in o.notes)


def test_G6a_injected_fall_undoes_the_logs_drop():
    """G-6a: the injected event on a ball the log drops (no rest in the log) undoes the goal;
    the ball goes back on the rim, at the hole circle's edge where it dropped (the goal's
    centre, the log's default drop point: towards the table's middle), or the free point
    nearest that where it is off the cloth."""
    st = state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.7, "w1", 0), "w1",
               injected=[{"type": "fall_after_rest", "ball": "w1"}])
    gx, gy, r = GEO.goals[0]
    assert o.scored.tolist() == [0, 0] and not o.turn_kept
    assert np.allclose(at(o, "w1"), [gx - r, gy])
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.7, "w1", 0, at=(gx - 0.01,
                                                                               gy + 0.02)),
               "w1", injected=[{"type": "fall_after_rest", "ball": "w1"}])
    # along the radius, the hole circle's edge lies past the cloth's edge (in the cushion, which
    # the physics refuses): the free point nearest it instead, on that edge, outside the hole
    hx = GEO.table.length / 2 - GEO.R
    p = at(o, "w1")
    assert gx - r * 0.01 / math.hypot(0.01, 0.02) > hx
    assert math.isclose(p[0], hx, abs_tol=1e-12) and p[1] > gy
    assert math.hypot(*(p - (gx, gy))) > r


_RIM_BALLS = {"w1": (0.6, 0.0), "w2": (0.3, 0.2), "w3": (-0.35, 0.0),
              "r1": (-0.3, 0.25), "r2": (-0.3, -0.25), "r3": (-0.5, 0.3)}


@pytest.mark.parametrize("how", ["log_rest_then_drop", "injected_fall"])
def test_G6a_ball_back_on_the_rim_does_not_overlap_the_ball_lying_there(how):
    """G-6a: w1 fell in after it had come to rest on the rim, and w2 has since stopped where it
    lay: w1 goes to the free point nearest its rim point (it used to overlap w2, and the next
    stroke refused the referee's own state)."""
    from cuegym.rules.golfbillard import check_state
    from cuegym.rules.golfbillard_game import play_strokes

    st = GolfState.with_balls(_RIM_BALLS, to_move=0)
    lb = LogBuilder(st.xy).strike("w1", (0.8, 0.0))
    inj = []
    if how == "log_rest_then_drop":
        lb = lb.rest("w1", (0.864, 0.0), 1.0).drop(1.5, "w1", 0)
    else:
        lb = lb.drop(0.5, "w1", 0, (0.87, 0.0))
        inj = [{"type": "fall_after_rest", "ball": "w1"}]
    log = lb.rest("w2", (0.845, 0.0), 2.0).build()
    outs, states = play_strokes([st], log, ["w1"], [[0.8, 0, 0, 0, 0]], injected=[inj])
    assert outs[0].to_json()["scored_balls"] == [] and outs[0].notes  # no goal, the G-6a note
    check_state(states[0])
    w1, w2 = at(outs[0], "w1"), at(outs[0], "w2")
    assert math.isclose(math.hypot(*(w1 - w2)), 2 * GEO.R, abs_tol=1e-6)  # touching, nearest


def test_G6a_real_physics_put_back_does_not_overlap_the_follower():
    """The same with real physics: w1 drives r1 into goal 1 and rolls after it onto r1's rim
    point; r1 is injected as having fallen after it came to rest."""
    from cuegym.rules.golfbillard import check_state
    from cuegym.rules.golfbillard_game import play_strokes, simulate_strokes

    st = GolfState.with_balls({"w1": (-0.55, 0.0), "w2": (-0.3, 0.3), "w3": (0.35, 0.0),
                               "r1": (-0.72, 0.0), "r2": (0.3, -0.25), "r3": (0.5, 0.3)},
                              to_move=0)
    cb, cue = np.array([0]), np.array([[0.6, 180.0, 0.0, 0.0, 0.3]])
    res = simulate_strokes([st], cb, cue)
    _, states = play_strokes([st], res, cb, cue,
                             injected=[[{"type": "fall_after_rest", "ball": "r1"}]])
    check_state(states[0])


# --- G-4: game over ---------------------------------------------------------------------------


def test_G4_side_scoring_its_last_ball_wins():
    st = state({"w1": (0.5, 0.0), "r1": (0.3, 0.25), "r2": (0.3, -0.25)})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0), "w1")
    assert o.game_over and o.winner == 0 and not o.turn_kept


def test_G4_both_sides_emptied_in_one_stroke_first_last_drop_wins():
    st = state({"w1": (0.3, 0.0), "r1": (0.6, 0.0)})
    # r1 (side 1's last ball) drops first, into goal 0: it counts for side 1 (G-7)
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.2, "w1", "r1", (0.5385, 0.0))
                              .drop(0.5, "r1", 0).drop(0.9, "w1", 0)), "w1")
    assert o.scored.tolist() == [1, 1] and o.game_over and o.winner == 1
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.2, "w1", "r1", (0.5385, 0.0))
                              .drop(0.9, "r1", 0).drop(0.5, "w1", 0)), "w1")
    assert o.game_over and o.winner == 0


# --- G-8 ---------------------------------------------------------------------------------------


def test_G8_own_ball_into_own_defence_goal():
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0)
                              .ball_ball(0.2, "r3", "w2", (-0.6, 0.2), (-0.35, 0.2))
                              .drop(1.0, "w2", 1)), "w1")
    assert o.foul.rule == "G-8" and o.foul.balls == (idx("w2"),)
    assert o.consequences == {"LT", "SPOT"}
    assert o.scored.tolist() == [1, 0] and not o.turn_kept  # the other goal stands
    assert (idx("w2"), 1) in o.spotted and np.allclose(at(o, "w2"), SPOTS0[0])


# --- G-10, G-10a -------------------------------------------------------------------------------

BELOW = (0.6, 0.2)  # below goal 0's stroke line, outside the small triangle


def hard_goal_attempt(st, p, speed=2.5, theta=0.0, extra=None, cue_ball="w1"):
    def build(b):
        b = b.strike(cue_ball, toward(p, GOAL0, speed))
        if extra:
            b = extra(b)
        return b.drop(0.2, cue_ball, 0)
    return stroke(st, build, cue_ball, theta)


def test_G10_hard_direct_goal_attempt_from_below_the_stroke_line():
    st = state({**BASE, "w1": BELOW})
    o = hard_goal_attempt(st, BELOW)
    assert o.foul.rule == "G-10" and o.consequences == {"LT", "RA", "CS"}
    assert o.scored.tolist() == [0, 0] and not o.turn_kept  # the goal is taken back (RA)
    assert o.spotted == [(idx("w1"), 1)] and np.allclose(at(o, "w1"), SPOTS0[0])  # CS
    assert hard_goal_attempt(st, BELOW, speed=1.9).foul is None  # below the hard threshold


def test_G10_hard_stroke_allowed_from_small_triangle_or_above_the_stroke_line():
    for p in ((0.78, 0.0), (0.3, 0.0)):
        st = state({**BASE, "w1": p})
        o = hard_goal_attempt(st, p)
        assert o.foul is None and o.turn_kept


def off_stroke_line(d, u=0.5, upper=True):
    """A point at signed distance ``d`` [m] from goal 0's upper (y > 0) or lower stroke line,
    at fraction ``u`` along it from the long cushion: d > 0 below the line (toward the goal-0
    corner), d < 0 above it (toward the goal axis)."""
    a = np.array([0.0, 0.45 if upper else -0.45])
    e = np.array([0.72, 0.0]) - a
    n = np.array([e[1], -e[0]]) / np.linalg.norm(e)
    if np.dot(n, np.array([0.9, 0.45 if upper else -0.45]) - a) < 0:
        n = -n  # toward the corner, i.e. below
    return tuple(a + u * e + d * n)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("d, foul", [
    (2.0 * EPS, True),      # inside the region below: a foul
    (1.01 * EPS, True),     # just outside the line's band, below it: a foul
    (EPS * (1 - 1e-6), False),  # on the line (its lower edge): above, allowed
    (0.5 * EPS, False),     # on the line
    (0.0, False),           # on the line's centre
    (-0.5 * EPS, False),    # on the line, above side
    (-1.01 * EPS, False),   # just outside the band, above: allowed
])
def test_G10_on_the_stroke_line_is_above_it_hard_stroke_allowed(d, foul, upper):
    # seed: a hard stroke is allowed "über oder auf der Stoßlinie"; a ball on the line (centre
    # within eps_line) is above it and scores normally
    p = off_stroke_line(d, u=0.5, upper=upper)
    o = hard_goal_attempt(state({**BASE, "w1": p}), p)
    if foul:
        assert o.foul.rule == "G-10" and o.scored.tolist() == [0, 0] and not o.turn_kept
    else:
        assert o.foul is None and o.valid_own == 1 and o.turn_kept
        assert o.scored.tolist() == [1, 0]


def test_G10_on_the_small_triangle_line_is_inside():
    on_small_line = (0.78, 0.0295)  # small-triangle edge at x = 0.78 is y = 0.02909
    assert hard_goal_attempt(state({**BASE, "w1": on_small_line}), on_small_line).foul is None
    outside = (0.78, 0.02909 + 1.5 * EPS * math.hypot(0.115, 0.05575) / 0.115)
    assert hard_goal_attempt(state({**BASE, "w1": outside}), outside).foul.rule == "G-10"


def test_G10_raised_cue_toward_a_goal_cap_at_any_speed():
    st = state({**BASE, "w1": BELOW})
    cap = GEO.caps[ZS.goal_caps[0][0]]

    def build(b):
        return b.strike("w1", toward(BELOW, cap, 0.8)).rest("w1", (0.8, 0.07), 1.0)

    o = stroke(st, build, "w1", theta=35.0)
    assert o.foul.rule == "G-10" and o.foul.kind == "raised cue toward a goal cap"
    assert stroke(st, build, "w1", theta=25.0).foul is None


def test_G10_masse_and_pique_are_exempt_but_elevation_alone_is_not():
    st = state({**BASE, "w1": BELOW})
    v0 = toward(BELOW, GOAL0, 2.5)
    p1 = np.array(BELOW) + 0.05 * v0
    turned = 2.0 * np.array([[math.cos(0.3), -math.sin(0.3)], [math.sin(0.3), math.cos(0.3)]]) @ (
        v0 / 2.5)
    masse = hard_goal_attempt(st, BELOW, extra=lambda b: b.turn(0.05, "w1", p1, turned))
    assert masse.foul is None
    small_turn = 2.0 * v0 / 2.5 + 0.05 * np.array([-v0[1], v0[0]]) / 2.5  # ~1.4 degrees
    assert hard_goal_attempt(st, BELOW, theta=60.0,
                             extra=lambda b: b.turn(0.05, "w1", p1, small_turn)).foul.rule == "G-10"
    pique = hard_goal_attempt(st, BELOW, extra=lambda b: b.turn(0.05, "w1", p1, -0.3 * v0))
    assert pique.foul is None


def test_G10a_direct_goal_attempt_geometry():
    p = np.array([0.3, 0.0])
    assert direct_goal_attempt(p, np.array([1.0, 0.0]), 0, GEO)
    assert not direct_goal_attempt(p, np.array([-1.0, 0.0]), 0, GEO)
    assert not direct_goal_attempt(p, np.array([0.0, 1.0]), 0, GEO)
    reach = R + GEO.r_cap
    cap = GEO.caps[ZS.goal_caps[0][0]]
    for off, expect in ((reach - 0.001, True), (reach + 0.001, False)):
        target = cap + np.array([0.0, off])
        d = (target - p) / np.linalg.norm(target - p)
        assert direct_goal_attempt(p, d, 0, GEO) == expect
    # from behind the caps along the short cushion, toward a cap
    assert direct_goal_attempt(np.array([0.87, 0.3]), np.array([0.0, -1.0]), 0, GEO)


def test_G10a_option_any_direction():
    st = state({**BASE, "w1": BELOW})

    def build(b):  # hard, away from the goal
        return b.strike("w1", (0.0, 2.5)).rest("w1", (0.6, 0.35), 1.0)

    assert stroke(st, build, "w1").foul is None
    o = stroke(st, build, "w1", rules=GolfRules(any_direction=True))
    assert o.foul.rule == "G-10"


# --- G-11 --------------------------------------------------------------------------------------


def test_G11_vliegeren_first_contact_with_the_strip_cushion():
    p = (0.0, 0.40)
    st = state({**BASE, "w1": p})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.3)).cushion(0.05, "w1", 2, (0.05, 0.41925))
                              .rest("w1", (0.8, 0.3), 1.0)), "w1")
    assert o.foul.rule == "G-11" and o.consequences == {"LT", "RA", "CS"}
    assert np.allclose(at(o, "w1"), SPOTS0[0])
    o = stroke(st, lambda b: (b.strike("w1", (1.0, -0.3)).cushion(0.5, "w1", 1, (0.869, 0.3))
                              .rest("w1", (0.8, 0.3), 1.0)), "w1")
    assert o.foul is None


def test_G11_on_the_vlieglijn_counts_as_in_the_strip():
    for y, foul in ((0.3577 - 0.0005, True), (0.3577 - 0.002, False)):
        st = state({**BASE, "w1": (0.0, y)})
        o = stroke(st, lambda b, y=y: (b.strike("w1", (0.2, 1.0))
                                       .cushion(0.1, "w1", 2, (0.02, 0.41925))
                                       .rest("w1", (0.1, 0.2), 1.0)), "w1")
        assert (o.foul is not None and o.foul.rule == "G-11") == foul


# --- G-12 --------------------------------------------------------------------------------------


def test_G12_own_ball_played_directly_onto_own_ball():
    st = state({**BASE, "w1": (-0.3, -0.3), "w3": (0.0, -0.3)})
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.2, "w1", "w3", (-0.0615, -0.3))
                              .rest("w1", (-0.05, -0.3), 0.5).rest("w3", (0.3, -0.3), 1.0)), "w1")
    assert o.foul.rule == "G-12" and o.foul.balls == (idx("w1"), idx("w3"))
    assert at(o, "w3").tolist() == [0.0, -0.3] and idx("w3") in o.replaced  # RA
    assert np.allclose(at(o, "w1"), SPOTS0[0])  # CS


def test_G12_not_after_a_cushion_or_an_opponent_ball():
    st = state({**BASE, "w1": (-0.3, -0.3), "w3": (0.0, -0.3)})
    o = stroke(st, lambda b: (b.strike("w1", (0.3, -1.0)).cushion(0.1, "w1", 0, (-0.27, -0.41925))
                              .ball_ball(0.5, "w1", "w3", (-0.0615, -0.3))
                              .rest("w3", (0.3, -0.3), 1.0)), "w1")
    assert o.foul is None
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.1, "w1", "r2", (0.2385, -0.25))
                              .ball_ball(0.5, "w1", "w3", (-0.0615, -0.3))), "w1")
    assert o.foul is None


# --- G-13 --------------------------------------------------------------------------------------


def test_G13_push_into_a_frozen_ball_or_cushion():
    gap = 0.0003
    st = state({**BASE, "w1": (0.0, -0.3), "w3": (2 * R + gap, -0.3)})

    def build(v):
        return lambda b: b.strike("w1", v).rest("w1", (0.01, -0.3), 0.5)

    o = stroke(st, build((1.0, 0.0)), "w1")
    assert o.foul.rule == "G-13" and o.foul.detail == "w1 frozen to w3 and struck into it"
    assert stroke(st, build((-1.0, 0.0)), "w1").foul is None
    assert stroke(st, build((0.0, 1.0)), "w1").foul is None  # along the contact: not into it
    # "a frozen neighbour ball may move only if the stroke points away from it": along the
    # contact, the neighbour moving makes it a push
    o = stroke(st, lambda b: (b.strike("w1", (0.0, 1.0)).rest("w1", (0.0, -0.1), 0.5)
                              .rest("w3", (2 * R + gap + 0.005, -0.3), 0.2)), "w1")
    assert o.foul.rule == "G-13"
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, 0.0)).rest("w1", (-0.2, -0.3), 0.5)
                              .rest("w3", (2 * R + gap + 0.005, -0.3), 0.2)), "w1")
    assert o.foul is None  # pointing away from it, the neighbour may move
    far = state({**BASE, "w1": (0.0, -0.3), "w3": (2 * R + 0.001, -0.3)})
    assert stroke(far, build((1.0, 0.0)), "w1").foul is None  # 1 mm is not frozen
    cush = state({**BASE, "w1": (0.2, 0.45 - R - 0.0002)})
    o = stroke(cush, lambda b: b.strike("w1", (0.5, 0.5)).rest("w1", (0.3, 0.3), 1.0), "w1")
    assert o.foul.rule == "G-13" and o.consequences == {"LT", "RA", "CS"}
    o = stroke(cush, lambda b: b.strike("w1", (0.5, -0.5)).rest("w1", (0.3, 0.3), 1.0), "w1")
    assert o.foul is None


def test_G13_exception_goal_attempt_off_the_outer_side_or_front_cap():
    cap = GEO.caps[ZS.outer_side_caps[0]]  # (0, 0.18)
    a = math.radians(80)
    p = cap + (R + GEO.r_cap + 0.0002) * np.array([math.cos(a), math.sin(a)])
    st = state({**BASE, "w1": tuple(p)})
    o = stroke(st, lambda b: b.strike("w1", toward(p, GOAL0, 1.0)).rest("w1", (0.5, 0.1), 1.0),
               "w1")
    assert o.foul is None  # direct goal attempt, ball beyond the cap's axis toward the goal
    o = stroke(st, lambda b: b.strike("w1", toward(p, (0.9, -0.3), 1.0))
               .rest("w1", (0.5, 0.1), 1.0), "w1")
    assert o.foul.rule == "G-13"  # not a goal attempt
    # on the wrong side of the axis line the exception does not hold
    a = math.radians(100)
    q = cap + (R + GEO.r_cap + 0.0002) * np.array([math.cos(a), math.sin(a)])
    st = state({**BASE, "w1": tuple(q)})
    o = stroke(st, lambda b: b.strike("w1", toward(q, GOAL0, 1.0)).rest("w1", (0.5, 0.1), 1.0),
               "w1")
    assert o.foul.rule == "G-13"
    # the front cap (0.18, 0), from its attack side
    front = GEO.caps[ZS.front_caps[0]]
    f = front + (R + GEO.r_cap + 0.0002) * np.array([math.cos(1.45), math.sin(1.45)])
    st = state({**BASE, "w1": tuple(f)})
    o = stroke(st, lambda b: b.strike("w1", toward(f, (0.897, 0.02), 1.0))
               .rest("w1", (0.5, 0.05), 1.0), "w1")
    assert o.foul is None


# --- G-14 (stroke level; the turn level is in test_golf_game.py) --------------------------------

def test_G14_duty_not_met_at_the_end_of_the_turn():
    st = duty_state()
    o = stroke(st, lambda b: b.strike("w2", (0.5, 0.0)).rest("w2", (0.0, 0.2), 1.0), "w2")
    assert o.foul.rule == "G-14" and o.foul.balls == (idx("w1"),)
    assert o.consequences == {"LT", "RA", "SPOT"} and not o.duty_met
    assert at(o, "w2").tolist() == [-0.3, 0.2]  # RA for the turn's last stroke
    assert np.allclose(at(o, "w1"), SPOTS0[0])


def test_G14_ball_leaving_the_great_triangle_meets_the_duty():
    st = duty_state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (-0.3, 0.0), 1.0), "w1")
    assert o.foul is None and o.duty_met
    # leaving and coming back counts ("at some moment")
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).turn(0.5, "w1", (-0.40, 0.0), (-0.3, 0.0))
                              .rest("w1", (-0.7, 0.0), 1.0)), "w1")
    assert o.foul is None and o.duty_met
    # a ball that stays within the line band has not left (the line counts as inside)
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0))
                              .turn(0.5, "w1", (-0.45 + 0.0005, 0.0), (-0.3, 0.0))
                              .rest("w1", (-0.7, 0.0), 1.0)), "w1")
    assert o.foul.rule == "G-14"


def test_G14_several_balls_one_leaving_is_enough_and_a_drop_counts():
    st = duty_state(w3=(-0.75, 0.05))
    st.duty[idx("w3")] = True
    o = stroke(st, lambda b: (b.strike("w3", (1.0, 0.0)).rest("w3", (0.0, 0.0), 1.0)), "w3")
    assert o.foul is None and o.duty_met
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(2.0, "w1", 0), "w1")
    assert o.foul is None and o.duty_met and o.turn_kept
    o = stroke(st, lambda b: b.strike("w2", (1.0, 0.0)).rest("w2", (0.0, 0.2), 1.0), "w2")
    assert o.foul.rule == "G-14" and set(o.foul.balls) == {idx("w1"), idx("w3")}


def test_G14_not_checked_when_the_last_stroke_has_another_foul():
    st = duty_state(w3=(0.0, 0.3))
    st.xy[idx("w2")] = (-0.3, 0.3)
    o = stroke(st, lambda b: (b.strike("w2", (1.0, 0.0)).ball_ball(0.2, "w2", "w3", (-0.0615, 0.3))
                              .rest("w3", (0.2, 0.3), 1.0)), "w2")
    assert o.foul.rule == "G-12" and [f.rule for f in o.fouls] == ["G-12"]
    assert np.allclose(at(o, "w1"), IN_DEF)


def test_G14_line_of_the_great_triangle_counts_as_inside_for_the_duty():
    from cuegym.rules.golfbillard import defence_duty

    xy = np.full((10, 2), np.nan)
    xy[0] = (-0.45 + 0.0005, 0.1)  # on the base line, just outside
    xy[1] = (-0.45 + 0.002, 0.1)  # clearly outside
    xy[2] = (-0.89, 0.05)  # in the small triangle, outside the great one
    assert defence_duty(xy, 0).tolist()[:3] == [True, False, True]


def test_G14_alternate_opening_exempts_nothing_the_middle_ball_carries_the_duty():
    """With ``opening: alternate`` no opening stroke is played, so side 0's first turn has the
    duty for w1, which starts in its small defence triangle (docs/rules_golfbillard.md, G-3)."""
    from cuegym.rules.golfbillard_game import new_match, play_strokes

    rules = GolfRules(opening="alternate")
    st = new_match(rules)
    other = LogBuilder(st.xy).strike("w2", (1.0, 0.0)).rest("w2", (-0.5, 0.15), 1.0).build()
    out, _ = play_strokes([st], other, ["w2"], [[0.0, 0, 0, 0, 0]], rules=rules)
    assert out[0].foul.rule == "G-14"
    middle = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).rest("w1", (-0.2, 0.06), 1.0).build()
    out, _ = play_strokes([st], middle, ["w1"], [[0.0, 0, 0, 0, 0]], rules=rules)
    assert out[0].foul is None


# --- G-15 --------------------------------------------------------------------------------------


def blocking_state(r1=(0.86, 0.0), **extra):
    return state({"w1": (0.3, 0.1), "w2": (-0.3, 0.2), "r1": r1, "r2": (-0.3, -0.2), **extra})


def test_G15_blocking_the_defender_in_the_small_triangle():
    st = blocking_state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.6, 0.05), 1.0), "w1")
    assert o.foul.rule == "G-15" and o.foul.balls == (idx("w1"),)
    assert o.consequences == {"LT", "SPOT"} and not o.turn_kept
    assert np.allclose(at(o, "w1"), SPOTS0[0])


def test_G15_goals_stand_and_only_moved_balls_unless_all_balls():
    st = blocking_state(w3=(0.7, -0.1))
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).rest("w1", (0.6, 0.05), 1.0)
                              .ball_ball(0.1, "w2", "r2", (-0.3, 0.2)).drop(0.8, "r2", 1)), "w1")
    assert o.foul.rule == "G-15" and o.foul.balls == (idx("w1"),)
    assert o.scored.tolist() == [0, 1]  # goals stand
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.6, 0.05), 1.0), "w1",
               rules=GolfRules(all_balls=True))
    assert set(o.foul.balls) == {idx("w1"), idx("w3")}


def test_G15_needs_the_defender_strictly_in_the_small_triangle_after():
    on_line = (0.76, 0.0196)  # on the small triangle's edge (y = 0.01939 at x = 0.76)
    st = blocking_state(r1=on_line)
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.6, 0.05), 1.0), "w1")
    assert o.foul is None
    st = blocking_state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.4, 0.05), 1.0), "w1")
    assert o.foul is None  # the shooter ball ends outside the great attack triangle


# --- G-16, G-17, G-17a, G-17b ------------------------------------------------------------------


def test_G16_own_ball_off_the_table():
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).drop(0.3, "w1", 0)
                              .ball_ball(0.1, "w2", "w3", (-0.3, 0.2)).rest("w2", (-0.1, 0.3), 1)),
               "w1", injected=[{"type": "off_table", "ball": "w3", "time": 0.5}])
    assert o.foul.rule == "G-16" and o.consequences == {"LT", "SPOT"}
    assert o.scored.tolist() == [1, 0] and not o.turn_kept  # goals stand
    assert np.allclose(at(o, "w3"), SPOTS0[0]) and at(o, "w2").tolist() == [-0.1, 0.3]
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).drop(0.3, "w1", 0)
                              .ball_ball(0.1, "w2", "w3", (-0.3, 0.2)).rest("w2", (-0.1, 0.3), 1)),
               "w1", injected=[{"type": "rests_on_rail", "ball": "w3"}],
               rules=GolfRules(replace_on_off_table=True))
    assert o.foul.rule == "G-16" and at(o, "w2").tolist() == [-0.3, 0.2]  # option: RA on table
    assert o.scored.tolist() == [1, 0]


def test_G17_opponent_ball_off_the_table_goes_into_its_goal():
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (-0.5, 0.5)).ball_ball(0.3, "w1", "r1", (0.35, 0.2))
                              .rest("w1", (0.4, 0.3), 1.0)),
               "w1", injected=[{"type": "off_table", "ball": "r1", "time": 0.6}])
    assert o.foul.rule == "G-17" and o.consequences == {"LT", "GOAL", "CS"}
    assert o.into_goal == [idx("r1")] and o.scored.tolist() == [0, 1]
    assert np.allclose(at(o, "w1"), SPOTS0[0])


def test_G17a_emptying_the_opponent_by_G17_makes_the_opponent_win():
    st = state({"w1": (0.5, 0.0), "w2": (-0.3, 0.2), "r1": (0.3, 0.25)})
    o = stroke(st, lambda b: b.strike("w1", (-1.0, 1.0)).rest("w1", (0.4, 0.1), 1.0), "w1",
               injected=[{"type": "off_table", "ball": "r1", "time": 0.5}])
    assert o.game_over and o.winner == 1


def test_G17a_at_one_one_playing_the_opponent_off_while_scoring_loses():
    st = state({"w1": (0.5, 0.0), "r1": (0.3, 0.25)})
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.5, "w1", 0), "w1",
               injected=[{"type": "off_table", "ball": "r1", "time": 0.4}])
    assert o.valid_own == 1 and o.game_over and o.winner == 1


def test_G17b_ball_riding_over_the_rail_and_back_is_not_penalised():
    st = state()
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.7, 0.0), 1.0), "w1",
               injected=[{"type": "rail_return", "ball": "w1"}])
    assert o.foul is None and any("G-17b" in n for n in o.notes)


# --- G-18, G-25 --------------------------------------------------------------------------------



@pytest.mark.parametrize("kind", sorted(BEHAVIOURAL))
def test_G18_G25_behavioural_fouls_carry_the_seeds_consequences(kind):
    for balls, kader in ((BASE, False), (KADER, True)):
        st = state(balls)
        touched = "r1" if "opponent" in kind else "w2"
        o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.3, 0.2), 1.0), "w1",
                   injected=[{"type": "foul", "kind": kind, "ball": touched}])
        if kind == "consultation" and kader:  # no penalty: the stroke's G-21 takes it
            assert [(f.rule, f.kind) for f in o.fouls] == [("G-21", "kader"), ("G-18", kind)]
            continue
        assert o.foul.rule == "G-18" and o.foul.kind == kind and o.kader == kader
        assert o.consequences == BEHAVIOURAL[kind][int(kader)]
        assert ("LT" in o.consequences) == (kind != "consultation") and not o.turn_kept
        if "RA" in o.consequences:
            assert at(o, "w1").tolist() == list(balls["w1"]) or idx("w1") in dict(o.spotted)
        if "CS" in o.consequences:
            assert dict(o.spotted)[idx("w1")] == 1
        if "GOAL" in o.consequences:
            assert o.into_goal == [idx("r1")] and o.scored[1] == 1
        if "SPOT" in o.consequences:
            assert idx(touched) in dict(o.spotted)


def test_G18_consultation_has_no_consequence():
    """The seed names no penalty for consultation: the foul is recorded, nothing else happens,
    so a stroke that validly scores keeps the turn (G-1)."""
    o = stroke(state(), lambda b: b.strike("w1", (1.0, 0.0)).drop(0.6, "w1", 0), "w1",
               injected=[{"type": "foul", "kind": "consultation"}])
    assert o.foul.rule == "G-18" and o.consequences == frozenset()
    assert o.scored.tolist() == [1, 0] and o.turn_kept and not o.spotted
    # with a real foul in the same stroke, that one is penalised, though consultation counts
    # at the strike (G-19a): a foul without a penalty does not take it from one with one
    st = state({**BASE, "w1": BELOW})
    o = stroke(st, lambda b: b.strike("w1", toward(BELOW, GOAL0, 2.5)).drop(0.2, "w1", 0), "w1",
               injected=[{"type": "foul", "kind": "consultation"}])
    assert [f.rule for f in o.fouls] == ["G-10", "G-18"] and o.foul.rule == "G-10"
    assert o.consequences == {"LT", "RA", "CS"} and not o.turn_kept and o.scored[0] == 0


def test_G25_opponent_picks_an_offender_ball_in_kader_play():
    st = state(KADER)
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.3, 0.2), 1.0), "w1",
               injected=[{"type": "foul", "kind": "time"}])
    assert o.consequences == {"LT", "PICK"}
    assert list(dict(o.spotted)) == [idx("w1")]  # nearest its attack goal (default policy)
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).rest("w1", (0.3, 0.2), 1.0), "w1",
               injected=[{"type": "foul", "kind": "time"}], choices={"pick": "w2"},
               rules=GolfRules(pick_policy="agent"))
    assert list(dict(o.spotted)) == [idx("w2")]
    with pytest.raises(ValueError, match="r1"):
        stroke(st, lambda b: b.strike("w1", (1.0, 0.0)), "w1",
               injected=[{"type": "foul", "kind": "time"}], choices={"pick": "r1"},
               rules=GolfRules(pick_policy="agent"))


def test_G18_unknown_kind_and_bad_injected_events_raise():
    st = state()
    with pytest.raises(ValueError, match="sneezing"):
        stroke(st, lambda b: b, "w1", injected=[{"type": "foul", "kind": "sneezing"}])
    with pytest.raises(ValueError, match="teleport"):
        stroke(st, lambda b: b, "w1", injected=[{"type": "teleport", "ball": "w1"}])
    with pytest.raises(ValueError, match="w5"):
        stroke(st, lambda b: b, "w1", injected=[{"type": "off_table", "ball": "w5"}])


# --- G-19, G-19a -------------------------------------------------------------------------------


def test_G19_jams():
    st = state()

    def build(b):
        return b.strike("w1", (1.0, 0.0)).rest("w1", (0.7, 0.0), 1.0)

    o = stroke(st, build, "w1", injected=[{"type": "jam", "ball": "w2", "goal": 1, "time": 0.5}])
    assert o.foul.rule == "G-19" and np.allclose(at(o, "w2"), SPOTS0[0]) and not o.turn_kept
    assert o.consequences == frozenset({"SPOT"})
    # G-19 names no LT: with a valid own goal in the same stroke the turn is kept (G-1 / G-19)
    o = stroke(st, lambda b: b.strike("w1", (1.0, 0.0)).drop(0.6, "w1", 0), "w1",
               injected=[{"type": "jam", "ball": "w2", "goal": 1, "time": 0.5}])
    assert o.foul.rule == "G-19" and o.scored.tolist() == [1, 0] and o.turn_kept
    assert np.allclose(at(o, "w2"), SPOTS0[0])
    o = stroke(st, build, "w1", injected=[{"type": "jam", "ball": "w1", "goal": 0, "time": 0.5}])
    assert o.foul is None and o.scored.tolist() == [1, 0] and o.turn_kept  # valid goal
    o = stroke(st, build, "w1", injected=[{"type": "jam", "ball": "w1", "where": "cap_cushion"}])
    assert o.foul is None and any("freed" in n for n in o.notes)
    # "a ball" between the caps of the shooter's defence goal: an opponent's ball too goes to a
    # penalty spot, the offender's (G-27: measured toward the offender's attack goal); it does
    # not score, and it lies on none of its own side's spots (G-26)
    o = stroke(st, build, "w1", injected=[{"type": "jam", "ball": "r1", "goal": 1, "time": 0.5}])
    assert o.foul.rule == "G-19" and o.scored.tolist() == [0, 0] and not o.turn_kept
    assert np.allclose(at(o, "r1"), SPOTS0[0]) and o.on_spot[idx("r1")] == 0
    # an opponent's ball between the caps of the shooter's attack goal counts as its drop (G-7)
    o = stroke(st, build, "w1", injected=[{"type": "jam", "ball": "r2", "goal": 0, "time": 0.5}])
    assert o.foul is None and o.scored.tolist() == [0, 1] and not o.turn_kept  # G-9


def test_G19a_only_the_first_foul_by_time_counts():
    st = state({**BASE, "w1": BELOW, "w3": (0.75, 0.25)})
    # G-10 at the strike beats G-12 at the first contact
    o = stroke(st, lambda b: (b.strike("w1", toward(BELOW, GOAL0, 2.5))
                              .ball_ball(0.05, "w1", "w3", (0.7, 0.21))), "w1")
    assert [f.rule for f in o.fouls] == ["G-10", "G-12"] and o.foul.rule == "G-10"
    # G-12 (first contact) beats G-8 (a later drop): RA brings the own-goal ball back
    st = state({**BASE, "w1": (-0.3, -0.2), "w3": (-0.6, -0.2)})
    o = stroke(st, lambda b: (b.strike("w1", (-1.0, 0.0))
                              .ball_ball(0.2, "w1", "w3", (-0.5385, -0.2))
                              .drop(0.9, "w3", 1)), "w1")
    assert o.foul.rule == "G-12" and at(o, "w3").tolist() == [-0.6, -0.2]
    # G-8 (drop at 0.5) beats G-17 (off the table at 0.8); the opponent's ball still goes into
    # its goal (the one exception to "only the first foul", G-17)
    st = state()
    o = stroke(st, lambda b: (b.strike("w1", (1.0, 0.0)).ball_ball(0.1, "w2", "r3", (-0.3, 0.2))
                              .drop(0.5, "w2", 1)), "w1",
               injected=[{"type": "off_table", "ball": "r3", "time": 0.8}])
    assert [f.rule for f in o.fouls] == ["G-8", "G-17"] and o.foul.rule == "G-8"
    assert o.into_goal == [idx("r3")] and o.scored.tolist() == [0, 1]


def test_G19a_ties_at_the_strike_follow_the_listed_order():
    # in the strip, frozen to its cushion, struck into it: G-11 and G-13 at t = 0 -> G-11
    p = (0.0, 0.45 - R - 0.0002)
    st = state({**BASE, "w1": p})
    o = stroke(st, lambda b: (b.strike("w1", (0.3, 1.0)).cushion(0.0001, "w1", 2, p)
                              .rest("w1", (0.2, 0.3), 1.0)), "w1")
    assert [f.rule for f in o.fouls] == ["G-11", "G-13"]


# --- batching, JSON ----------------------------------------------------------------------------


def test_batch_of_tables_equals_single_strokes():
    cases = [
        (state(), lambda b: b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0), "w1"),
        (state({**BASE, "w1": BELOW}),
         lambda b: b.strike("w1", toward(BELOW, GOAL0, 2.5)).drop(0.2, "w1", 0), "w1"),
        (state(KADER), lambda b: b.strike("w1", (1.0, 0.5)).rest("w1", (0.3, 0.25), 1.0), "w1"),
    ]
    logs = [build(LogBuilder(st.xy)).build() for st, build, _ in cases]
    batch = score_strokes([c[0] for c in cases], stack_logs(logs), [c[2] for c in cases])
    for (st, _, cb), lg, ob in zip(cases, logs, batch, strict=True):
        os_ = score_stroke(st, lg, cb)
        assert ob.to_json() == os_.to_json()
    assert [o.foul.rule if o.foul else None for o in batch] == [None, "G-10", "G-21"]


def test_outcome_json_names_balls_by_id():
    o = stroke(state(), lambda b: b.strike("w1", (1.0, 0.0)).drop(0.4, "w1", 0), "w1")
    j = o.to_json()
    assert j["cue_ball"] == "w1" and j["scored_balls"] == ["w1"] and j["balls"]["w1"] is None
    assert j["drops"] == [{"ball": "w1", "goal": 0, "time": 0.4}]


def test_bad_arguments_raise_value_errors_naming_the_value():
    st = state()
    log = LogBuilder(st.xy).build()
    with pytest.raises(ValueError, match="cue"):
        score_stroke(st, log, "w1", [1.0, float("nan"), 0, 0, 0])
    with pytest.raises(ValueError, match="states"):
        score_strokes([st, st], log, ["w1", "w1"])
    with pytest.raises(ValueError, match="opening"):
        score_stroke(GolfState(xy=GEO.start.copy()), log, "w1")
    with pytest.raises(ValueError, match="overlap"):
        GolfState.with_balls({"w1": (0.0, 0.3), "w2": (0.05, 0.3)})
    with pytest.raises(ValueError, match="overlaps the post"):
        GolfState.with_balls({"w1": (0.09, 0.01)})


def test_indices_are_the_documented_ones():
    """docs/rules_golfbillard.md, Indices and names: caps, goals, cushions, balls."""
    from cuegym.configs import CIRCLE_POST
    from cuegym.rules.golfbillard import attack_goal, defence_goal

    t = GEO.table
    assert [c.kind for c in t.circles] == [CIRCLE_POST] * 12
    assert GEO.caps.tolist() == [[0.835, 0.05575], [0.835, -0.05575], [-0.835, 0.05575],
                                 [-0.835, -0.05575], [0.09, 0.0], [0.18, 0.0], [-0.09, 0.0],
                                 [-0.18, 0.0], [0.0, 0.09], [0.0, 0.18], [0.0, -0.09],
                                 [0.0, -0.18]]
    assert ZS.goal_caps.tolist() == [[0, 1], [2, 3]] and ZS.front_caps.tolist() == [5, 7]
    assert ZS.outer_side_caps.tolist() == [9, 11]
    assert [p.name for p in t.pockets] == ["goal_plus_x", "goal_minus_x"]
    assert GEO.goals[:, :2].tolist() == [[0.897, 0.0], [-0.897, 0.0]]
    assert [attack_goal(0), defence_goal(0), attack_goal(1), defence_goal(1)] == [0, 1, 1, 0]
    assert [(c.x1, c.y1, c.x2, c.y2) for c in t.cushions] == [
        (-0.9, -0.45, 0.9, -0.45), (0.9, -0.45, 0.9, 0.45), (0.9, 0.45, -0.9, 0.45),
        (-0.9, 0.45, -0.9, -0.45)]
    assert GEO.ball_ids == ("w1", "w2", "w3", "w4", "w5", "r1", "r2", "r3", "r4", "r5")
    # a cap contact is a ball_post event naming the cap's index
    st = state()
    log = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).post(0.2, "w1", 5, (0.18 - R - 0.0175, 0.0))
    assert log.build().ev_j[0, 0] == 5


def test_start_turn_fills_the_G14_duty_of_a_hand_built_state():
    from cuegym.rules.golfbillard_game import start_turn

    st = state({**BASE, "w1": IN_DEF})
    assert not st.duty.any()  # with_balls leaves the duty as given
    st2 = start_turn(st, 0)
    assert np.flatnonzero(st2.duty).tolist() == [idx("w1")] and not st2.duty_met
    assert st2.to_json()["turn"] == {"strokes": 0, "scored": False, "duty": ["w1"],
                                     "duty_met": False}
    o = stroke(st2, lambda b: b.strike("w2", (0.5, 0.0)).rest("w2", (0.0, 0.2), 1.0), "w2")
    assert o.foul.rule == "G-14"
    assert stroke(st, lambda b: b.strike("w2", (0.5, 0.0)).rest("w2", (0.0, 0.2), 1.0),
                  "w2").foul is None  # without the duty nothing is checked


def test_play_strokes_refuses_one_tables_entries_where_it_needs_one_per_table():
    """play_strokes takes per-table lists (score_stroke one table's entries): a flat
    ``players=0`` was a TypeError from deep inside."""
    from cuegym.rules.golfbillard_game import play_strokes

    st = state()
    log = LogBuilder(st.xy).strike("w2", (0.5, 0.0)).rest("w2", (0.06, 0.2), 1.0).build()
    cue = [[0.0, 0.0, 0.0, 0.0, 0.0]]
    for kw, name in (({"players": 0}, "players"), ({"players": np.array(0)}, "players"),
                     ({"choices": {"spots": []}}, "choices"),
                     ({"injected": "off_table"}, "injected")):
        with pytest.raises(ValueError, match=f"{name} needs a list with one entry per table"):
            play_strokes([st], log, ["w2"], cue, **kw)
    outs, states = play_strokes([st], log, ["w2"], cue, players=[None])
    assert len(outs) == len(states) == 1


def test_log_builder_refuses_an_event_of_a_ball_after_it_dropped():
    """Whatever the order of the calls: nothing happens to a ball after its drop."""
    st = state()
    with pytest.raises(ValueError, match="'w1' has an event at t = 0.9 after it dropped"):
        LogBuilder(st.xy).strike("w1", (1.0, 0.0)).drop(0.5, "w1", 0).rest("w1", (0.0, 0.3), 0.9)
    with pytest.raises(ValueError, match="'w1' drops at t = 0.5 but has an event at t = 0.9"):
        LogBuilder(st.xy).strike("w1", (1.0, 0.0)).rest("w1", (0.0, 0.3), 0.9).drop(0.5, "w1", 0)
    with pytest.raises(ValueError, match="'w1' drops twice"):
        LogBuilder(st.xy).drop(0.5, "w1", 0).drop(0.4, "w1", 1)
    lb = LogBuilder(st.xy).strike("w1", (1.0, 0.0)).ball_ball(0.2, "w1", "w2", (0.6, 0.0))
    assert lb.drop(0.5, "w1", 0).build().pocket[0, idx("w1")] == 0  # earlier events are fine


@pytest.mark.parametrize("end, what", [((0.09, 0.01), "overlaps the post"),
                                       ((-0.35, 0.01), "overlap")])
def test_a_hand_log_leaving_a_ball_where_no_state_can_hold_it_is_refused(end, what):
    """A hand-written log that rests w2 on a cap or on w3 became the next state, which the next
    stroke refused (play_strokes) or simulated from (Golf.apply_log); the physics' own logs never
    leave such layouts (76,800 states of random Golfbillard-v0 games checked)."""
    from cuegym.games.golf import Golf
    from cuegym.rules.golfbillard_game import play_strokes

    st = GolfState.with_balls(_RIM_BALLS, to_move=0)
    log = LogBuilder(st.xy).strike("w2", (0.8, 0.0)).rest("w2", end, 1.0).build()
    says = r"the log leaves the table in a layout no state can hold: next states\[0\]: 'w2'"
    with pytest.raises(ValueError, match=says + f".*{what}"):
        play_strokes([st], log, ["w2"], [[0.8, 0, 0, 0, 0]])
    g = Golf({"match": "single"})
    with pytest.raises(ValueError, match=says):
        g.apply_log([st], log, np.array([[1, -1]]), np.zeros((1, 2, 5)))
