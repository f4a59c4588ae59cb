"""Analytic checks of the physics kernels (docs/physics.md sections 2-5, 8)."""

import math

import numpy as np
import pytest

from cuegym.configs import custom_table
from cuegym.physics import Models, simulate
from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_PIN,
    EV_PIN_PIN,
    EV_TRANSITION,
    ROLLING,
)


def _one(table, params, xy, cue=None, cue_ball=0, **kw):
    xy = np.asarray(xy, float)[None]
    if cue is None:
        return simulate(table, params, xy, **kw)
    return simulate(table, params, xy, cue_ball=[cue_ball], cue=[cue], **kw)


def _first(res, typ, t=0):
    k = np.nonzero(res.ev_type[t, : res.n_events[t]] == typ)[0]
    assert k.size, f"no event of type {typ}"
    return int(k[0])


def test_strike_speed_and_spin_match_alciatore(open_bed):
    table, p = open_bed
    V0, a, b = 2.0, 0.2, -0.3
    res = _one(table, p, [[0.0, 0.0]], [V0, 30.0, 0.0, a, b])
    V = 2 * V0 / (1 + p.m / p.M + 2.5 * (a * a + b * b))
    v = res.rvw0[0, 0, 1, :2]
    assert np.allclose(v, V * np.array([math.cos(math.radians(30)), math.sin(math.radians(30))]))
    w = res.rvw0[0, 0, 2]
    assert w[2] == pytest.approx(-5 * V / (2 * p.R) * a)  # left English: clockwise (w_z < 0)


def test_sliding_to_rolling_time_and_five_sevenths_speed(open_bed):
    """A centre-ball (stun) hit slides for 2 v0 / (7 u_s g) and then rolls at 5/7 v0."""
    table, p = open_bed
    res = _one(table, p, [[0.0, 0.0]], [1.0, 0.0, 0.0, 0.0, 0.0])
    v0 = res.rvw0[0, 0, 1, 0]
    k = _first(res, EV_TRANSITION)
    assert res.ev_j[0, k] == ROLLING
    assert res.ev_time[0, k] == pytest.approx(2 * v0 / (7 * p.u_s * p.g), rel=1e-12)
    assert res.ev_state[0, k, 0, 2] == pytest.approx(5 / 7 * v0, rel=1e-12)


def test_stopping_distance_after_sliding_phase(open_bed):
    table, p = open_bed
    res = _one(table, p, [[0.0, 0.0]], [1.5, 0.0, 0.0, 0.0, 0.0])
    v0 = res.rvw0[0, 0, 1, 0]
    tau = 2 * v0 / (7 * p.u_s * p.g)
    d_slide = v0 * tau - 0.5 * p.u_s * p.g * tau**2
    v_roll = 5 / 7 * v0
    d_roll = v_roll**2 / (2 * p.u_r * p.g)
    assert res.rvw[0, 0, 0, 0] == pytest.approx(d_slide + d_roll, rel=1e-10)
    assert res.t_end[0] == pytest.approx(tau + v_roll / (p.u_r * p.g), rel=1e-10)
    assert res.overflow[0] == 0


@pytest.mark.parametrize("model,expected", [("frictionless_elastic", (0.0, 1.0)),
                                            ("frictional_inelastic", None)])
def test_head_on_equal_mass_hit(open_bed, model, expected):
    table, p = open_bed
    res = _one(table, p, [[0.0, 0.0], [0.5, 0.0]], None,
               v=[[[1.0, 0.0], [0.0, 0.0]]], w=[[[0.0, 1.0 / p.R, 0.0], [0.0] * 3]],
               models=Models(ball_ball=model))
    k = _first(res, EV_BALL_BALL)
    v1 = res.ev_state[0, k, 0, 2]
    v2 = res.ev_state[0, k, 1, 2]
    before = v1 + v2  # momentum along x is conserved by both models
    if expected is not None:
        assert v1 == pytest.approx(0.0, abs=1e-12)
        assert v2 == pytest.approx(before, rel=1e-12)
    else:
        e = p.e_b
        # normal speeds split (1 - e)/2 and (1 + e)/2 of the approach speed
        assert v2 / (v1 + v2) == pytest.approx((1 + e) / 2, rel=1e-9)


def test_mirror_cushion_angle(open_bed):
    table = custom_table(2.0, 1.0)
    _, p = open_bed
    ang = math.radians(30.0)
    res = _one(table, p, [[0.0, 0.0]], None, v=[[[math.cos(ang), -math.sin(ang)]]],
               w=[[[math.sin(ang) / p.R, math.cos(ang) / p.R, 0.0]]],
               models=Models(cushion="mirror"))
    k = _first(res, EV_BALL_CUSHION)
    from cuegym.physics.path import states_at

    before = states_at(res, [res.ev_time[0, k] - 1e-9])[0, 0, 0]
    after = res.ev_state[0, k, 0]
    assert after[3] == pytest.approx(-p.e_c * before[3], rel=1e-6)  # normal (y) part reversed
    assert after[2] == pytest.approx(before[2], rel=1e-6)  # tangential part kept


def _han(v, w, n, p, h, e, f):
    """Han 2005 by hand (docs/physics.md 5.1), n from the ball into the cushion."""
    t = np.array([-n[1], n[0]])
    vn, vt = v @ n, v @ t
    wn, wt, wz = w[:2] @ n, w[:2] @ t, w[2]
    S = h / p.R - 1
    C = math.sqrt(1 - S * S)
    sx = vn * S + p.R * wt
    sy = -vt - p.R * wz * C + p.R * wn * S
    PN = (1 + e) * p.m * vn * C
    s = math.hypot(sx, sy)
    if 2 * p.m / 7 * s <= f * PN:
        Px, Py = 2 * p.m / 7 * sx, 2 * p.m / 7 * sy
    else:
        Px, Py = f * PN * sx / s, f * PN * sy / s
    Jn, Jt, Jz = -Px * S - PN * C, Py, Px * C - PN * S
    k = 5 / (2 * p.m * p.R)
    vn, vt = vn + Jn / p.m, vt + Jt / p.m
    wn, wt, wz = wn - k * Jt * S, wt + k * (Jn * S - Jz * C), wz + k * Jt * C
    return vn * n + vt * t, np.array([*(wn * n + wt * t), wz])


def test_han_2005_matches_hand_computation(open_bed, kegle):
    _, p = open_bed
    table = custom_table(2.0, 1.0, cushion_height=0.037)
    v = np.array([1.2, 0.9])
    w = np.array([-10.0, 25.0, 40.0])
    # put the ball 1 mm from the +x cushion so it hits almost at once, before sliding changes much
    res = _one(table, p, [[1.0 - p.R - 0.001, 0.0]], None, v=[[v]], w=[[w]])
    k = _first(res, EV_BALL_CUSHION)
    from cuegym.physics.path import states_at

    before = states_at(res, [res.ev_time[0, k] * (1 - 1e-12)])[0, 0, 0]
    v_exp, w_exp = _han(before[2:4], before[4:7], np.array([1.0, 0.0]), p, 0.037, p.e_c, p.f_c)
    assert np.allclose(res.ev_state[0, k, 0, 2:4], v_exp, rtol=1e-6, atol=1e-9)
    assert np.allclose(res.ev_state[0, k, 0, 4:7], w_exp, rtol=1e-6, atol=1e-6)


def test_ball_through_a_gap_of_the_pin_cross_touches_no_pin(kegle):
    """K-P1 geometry: neighbouring pins leave 62 mm; a 61.5 mm ball passes 0.25 mm clear."""
    table, p = kegle
    res = _one(table, p, [[0.041, -0.45], [-0.9, 0.4], [0.9, 0.4]], [1.5, 90.0, 0.0, 0.0, 0.2])
    types = res.ev_type[0, : res.n_events[0]]
    first_cushion = _first(res, EV_BALL_CUSHION)
    assert not np.any(types[:first_cushion] == EV_BALL_PIN)
    assert res.pins_up[0, : 5].all() or res.pin_topple_time[0].min() > res.ev_time[0, first_cushion]


def test_hit_on_arm_pin_toward_king_fells_both(kegle):
    """K-P2: a slow ball topples the -x arm pin toward the king; the king falls 0.1 s later,
    both attributed to the ball (K-P3)."""
    table, p = kegle
    res = _one(table, p, [[-0.3, 0.0], [0.9, 0.4], [0.9, -0.4]], None,
               v=[[[0.25, 0.0], [0, 0], [0, 0]]], w=[[[0.0, 0.25 / p.R, 0.0], [0] * 3, [0] * 3]])
    assert not res.pins_up[0, 3] and not res.pins_up[0, 0]
    k_hit = _first(res, EV_BALL_PIN)
    k_chain = _first(res, EV_PIN_PIN)
    assert res.ev_j[0, k_hit] == 3
    assert (res.ev_i[0, k_chain], res.ev_j[0, k_chain]) == (3, 0)
    assert res.ev_time[0, k_chain] == pytest.approx(res.ev_time[0, k_hit] + p.pin_chain_delay)
    assert res.pin_toppler[0, 3] == 1 and res.pin_toppler[0, 0] == 1
    assert np.allclose(res.pin_fall_dir[0, 0], [1.0, 0.0])


def test_slow_touch_leaves_pin_standing(kegle):
    """K-P1: below the topple speed the pin acts as a fixed post."""
    table, p = kegle
    res = _one(table, p, [[-0.1240, 0.0], [0.9, 0.4], [0.9, -0.4]], None,
               v=[[[0.02, 0.0], [0, 0], [0, 0]]], w=[[[0.0, 0.02 / p.R, 0.0], [0] * 3, [0] * 3]])
    assert res.pins_up[0].all()
    assert EV_BALL_PIN in res.ev_type[0, : res.n_events[0]]


def test_parallel_rolling_balls_degenerate_quartic(open_bed):
    """docs/physics.md sec. 6: two balls rolling exactly parallel (A = 0). A chasing pair meets at
    the true time; a separating pair never collides (pooltool returns t = 0 for both)."""
    table, p = open_bed
    R = p.R
    w = lambda vx: [0.0, vx / R, 0.0]  # noqa: E731 - rolling spin
    chase = _one(table, p, [[0.0, 0.0], [0.3, 0.0]], None, v=[[[2.0, 0.0], [1.0, 0.0]]],
                 w=[[w(2.0), w(1.0)]])
    k = _first(chase, EV_BALL_BALL)
    # both decelerate equally (rolling): gap closes at 1 m/s from 0.3 - 2R
    assert chase.ev_time[0, k] == pytest.approx(0.3 - 2 * R, rel=1e-9)
    sep = _one(table, p, [[0.0, 0.0], [2 * R + 0.001, 0.0]], None, v=[[[1.0, 0.0], [2.0, 0.0]]],
               w=[[w(1.0), w(2.0)]])
    assert EV_BALL_BALL not in sep.ev_type[0, : sep.n_events[0]]


def test_touching_balls_moving_together_do_not_flood_events(open_bed):
    table, p = open_bed
    # frozen pair, rear ball struck with heavy follow into the front ball
    res = _one(table, p, [[0.0, 0.0], [2 * p.R, 0.0]], [2.0, 0.0, 0.0, 0.0, 0.6])
    assert res.overflow[0] == 0
    assert res.n_events[0] < 60


def test_two_strikes_at_t0(golf):
    """G-3: both middle balls struck at the same instant."""
    table, p = golf
    xy = np.array([[[-0.825, 0.0], [0.825, 0.0]]])
    res = simulate(table, p, xy, cue_ball=[[0, 1]], cue=[[[1.0, 80.0, 0, 0, 0],
                                                          [1.0, -100.0, 0, 0, 0]]])
    assert np.all(np.abs(res.rvw0[0, :, 1, :2]).sum(axis=1) > 0)
    assert res.overflow[0] == 0
