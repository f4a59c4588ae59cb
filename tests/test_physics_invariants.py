"""Invariants over many random shots on both tables (issue 2, item 9)."""

import numpy as np
import pytest

from cuegym.physics import simulate
from cuegym.physics.constants import EV_BALL_BALL, EV_BALL_POCKET, EV_PIN_PIN, POCKETED
from cuegym.physics.motion import evolve
from cuegym.physics.path import states_at
from cuegym.physics.scenarios import golfbillard_shots, keglebillard_shots

N_SHOTS = 200


def _run(kind, table, params, n, seed):
    rng = np.random.default_rng(seed)
    gen = keglebillard_shots if kind == "kegle" else golfbillard_shots
    s = gen(rng, table, params, n)
    return simulate(table, params, s["xy"], cue_ball=s["cue_ball"], cue=s["cue"],
                    pins_up=s.get("pins_up"), max_events=2000)


@pytest.fixture(scope="module", params=["kegle", "golf"])
def batch(request, kegle, golf):
    table, params = kegle if request.param == "kegle" else golf
    return table, params, _run(request.param, table, params, N_SHOTS, 7)


def test_every_shot_ends_at_rest_without_nan(batch):
    _, _, res = batch
    assert np.all(res.overflow == 0)
    assert np.all(np.isfinite(res.rvw))
    assert np.all((res.motion == 0) | (res.motion == POCKETED))


def test_event_times_ordered(batch):
    _, _, res = batch
    for t in range(res.n_tables):
        times = res.ev_time[t, : res.n_events[t]]
        assert np.all(np.diff(times) >= 0)
        assert np.all(np.isfinite(times))


def test_no_overlap_at_rest(batch):
    _, params, res = batch
    xy = res.rvw[:, :, 0, :2]
    on = res.motion != POCKETED
    d = np.linalg.norm(xy[:, :, None] - xy[:, None], axis=-1)
    B = xy.shape[1]
    iu = np.triu(np.ones((B, B), bool), 1)
    both = on[:, :, None] & on[:, None, :] & iu
    assert np.all(d[both] >= 2 * params.R - 1e-6)


def _pocket_times(res):
    pt = np.full(res.motion.shape, np.inf)
    for t in range(res.n_tables):
        for k in range(res.n_events[t]):
            if res.ev_type[t, k] == EV_BALL_POCKET:
                pt[t, res.ev_i[t, k]] = res.ev_time[t, k]
    return pt


def test_no_ball_through_cushion_cap_or_ball(batch):
    """Sampled every 2 ms: balls on the table stay inside the cushions, outside every post, and
    never overlap each other (a missed collision would show here)."""
    table, params, res = batch
    R = params.R
    times = np.arange(0.0, float(res.t_end.max()) + 0.002, 0.002)
    pos = states_at(res, times)[..., :2]  # (T, N, B, 2)
    on = times[None, :, None] < _pocket_times(res)[:, None, :]
    x, y = pos[..., 0], pos[..., 1]
    outside = (np.abs(x) > table.length / 2 - R + 1e-6) | (np.abs(y) > table.width / 2 - R + 1e-6)
    # where the cushions are cut (pocket mouths) a ball may pass the nose line on its way in
    near_pocket = np.zeros_like(outside)
    for p in table.pockets:
        near_pocket |= np.hypot(x - p.x, y - p.y) < p.radius + 2 * R
    assert not np.any(outside & on & ~near_pocket)
    assert np.all(np.abs(x[on]) <= table.length / 2 + 1e-6)
    assert np.all(np.abs(y[on]) <= table.width / 2 + 1e-6)
    for c in table.posts:
        d = np.hypot(x - c.x, y - c.y)
        assert np.all(d[on] >= c.radius + R - 1e-6)
    B = pos.shape[2]
    for i in range(B):
        for j in range(i + 1, B):
            d = np.linalg.norm(pos[:, :, i] - pos[:, :, j], axis=-1)
            both = on[:, :, i] & on[:, :, j]
            assert np.all(d[both] >= 2 * R - 1e-5), (i, j, d[both].min())


def _energy(s, m, R):
    I = 0.4 * m * R * R
    return 0.5 * m * (s[2] ** 2 + s[3] ** 2) + 0.5 * I * (s[4] ** 2 + s[5] ** 2 + s[6] ** 2)


def test_kinetic_energy_never_rises_across_an_event(batch):
    """Agents' kinetic energy right after an event <= right before it. The only allowed rise is
    the bounded separation push of two balls moving together (engine.SEPARATION_SPEED):
    at most m (0.01 m/s)^2 / 4."""
    _, params, res = batch
    m, R = params.m, params.R
    tol = m * 0.01**2 / 4 + 1e-12
    B = res.motion.shape[1]
    for t in range(res.n_tables):
        cur = np.zeros((B, 7))
        cur[:, :2] = res.rvw0[t, :, 0, :2]
        cur[:, 2:4] = res.rvw0[t, :, 1, :2]
        cur[:, 4:] = res.rvw0[t, :, 2, :]
        cur_t = np.zeros(B)
        cur_m = res.motion0[t].astype(int).copy()
        for k in range(res.n_events[t]):
            typ = res.ev_type[t, k]
            if typ == EV_PIN_PIN:
                continue
            tk = res.ev_time[t, k]
            agents = [(res.ev_i[t, k], 0)]
            if typ == EV_BALL_BALL:
                agents.append((res.ev_j[t, k], 1))
            e_before = e_after = 0.0
            for a, slot in agents:
                s = evolve(*cur[a], cur_m[a], tk - cur_t[a], res.prm)
                e_before += _energy(s, m, R)
                e_after += _energy(res.ev_state[t, k, slot], m, R)
                cur[a] = res.ev_state[t, k, slot]
                cur_t[a] = tk
                cur_m[a] = res.ev_motion[t, k, slot]
            assert e_after <= e_before * (1 + 1e-9) + tol, (t, k, typ, e_before, e_after)


def test_deterministic_and_batch_equals_single(kegle):
    table, params = kegle
    a = _run("kegle", table, params, 16, 3)
    b = _run("kegle", table, params, 16, 3)
    assert np.array_equal(a.rvw, b.rvw) and np.array_equal(a.ev_time, b.ev_time)
    rng = np.random.default_rng(3)
    s = keglebillard_shots(rng, table, params, 16)
    for t in range(16):
        one = simulate(table, params, s["xy"][t:t + 1], cue_ball=s["cue_ball"][t:t + 1],
                       cue=s["cue"][t:t + 1], pins_up=s["pins_up"][t:t + 1], max_events=2000)
        assert np.array_equal(one.rvw[0], a.rvw[t])
        n = a.n_events[t]
        assert one.n_events[0] == n
        assert np.array_equal(one.ev_time[0, :n], a.ev_time[t, :n])
        assert np.array_equal(one.ev_state[0, :n], a.ev_state[t, :n])


def test_threads_give_identical_results(golf):
    table, params = golf
    rng = np.random.default_rng(5)
    s = golfbillard_shots(rng, table, params, 32)
    r1 = simulate(table, params, s["xy"], cue_ball=s["cue_ball"], cue=s["cue"], threads=1)
    r2 = simulate(table, params, s["xy"], cue_ball=s["cue_ball"], cue=s["cue"], threads=2)
    assert np.array_equal(r1.rvw, r2.rvw) and np.array_equal(r1.n_events, r2.n_events)


def test_limits_are_flagged(kegle):
    table, params = kegle
    rng = np.random.default_rng(0)
    s = keglebillard_shots(rng, table, params, 8)
    r = simulate(table, params, s["xy"], cue_ball=s["cue_ball"], cue=s["cue"], max_events=3)
    assert np.all(r.overflow == 1) and np.all(r.n_events == 3)
    r = simulate(table, params, s["xy"], cue_ball=s["cue_ball"], cue=s["cue"], t_max=0.01)
    assert np.all(r.overflow == 2) and np.allclose(r.t_end, 0.01)
