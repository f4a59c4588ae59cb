"""The golfbillard game layer (cuegym.games.golf): batched play, inactive tables, the opening,
reward terms and observations, against the per-table rules views."""

import numpy as np
import pytest

from cuegym.games.golf import Golf
from cuegym.games.golf_obs import OBS_DIM, OBS_INDEX
from cuegym.games.noise import load_noise
from cuegym.games.strikes import Strikes
from cuegym.rules.golf_codes import P_OPENING, P_PLAY
from cuegym.rules.golfbillard_game import play_strokes, random_policy

G = Golf({"match": "single"})
NAN2 = np.full((1, 2), np.nan)


def strikes(cue, balls):
    cue = np.asarray(cue, np.float64).reshape(-1, 5)
    return Strikes(cue, np.asarray(balls, np.int64), np.full((len(cue), 2), np.nan))


def opening(states, rng):
    b = G.opening_balls(states)
    T = len(states)
    s0 = strikes(np.column_stack([rng.uniform(0.9, 1.3, T), rng.uniform(10, 30, T),
                                  np.zeros((T, 3))]), b[:, 0])
    s1 = strikes(np.column_stack([rng.uniform(0.9, 1.3, T), rng.uniform(190, 210, T),
                                  np.zeros((T, 3))]), b[:, 1])
    return s0, s1


def test_new_and_opening_balls():
    st = G.new(3, seed=[1, 2, 3])
    assert len(st) == 3 and (st.phase == P_OPENING).all() and st.seed.tolist() == [1, 2, 3]
    assert G.opening_balls(st).tolist() == [[0, 5]] * 3
    assert st[1].phase == "opening" and st[1].balls_left.tolist() == [5, 5]
    with pytest.raises(ValueError, match="duo"):
        G.new(2, openers=(1, 0))


def test_play_matches_the_per_table_view_and_keeps_inactive_tables():
    rng = np.random.default_rng(3)
    st = G.new(6, seed=np.arange(6))
    with pytest.raises(ValueError, match="strikes1"):
        G.play(st, opening(st, rng)[0])
    s0, s1 = opening(st, rng)
    out, st = G.play(st, s0, strikes1=s1, allow_overflow=True)
    assert out.opening.all()
    for _ in range(4):
        play = st.phase == P_PLAY
        cb = np.zeros((len(st), 2), np.int64)
        cue = np.zeros((len(st), 2, 5))
        for t in range(len(st)):
            cb[t], cue[t] = random_policy(st[t], rng)
        act = play & (np.arange(len(st)) % 3 != 0)
        before = st.copy()
        out, new = G.play(st, strikes(cue[:, 0], np.maximum(cb[:, 0], 0)),
                          strikes1=strikes(cue[:, 1], np.maximum(cb[:, 1], 0)), active=act,
                          allow_overflow=True)
        for t in np.flatnonzero(~act):  # inactive: untouched, zero rows
            assert new[t].to_json() == before[t].to_json() and out.outcome(t) is None
        idx = np.flatnonzero(act)
        ref_o, ref_s = play_strokes([before[t] for t in idx], _rows(out.sim, idx), cb[idx],
                                    cue[idx], rules=G.rules, allow_overflow=True)
        for k, t in enumerate(idx):
            assert out.outcome(t).to_json() == ref_o[k].to_json()
            assert new[t].to_json() == ref_s[k].to_json()
        st = new


def _rows(sim, idx):
    from types import SimpleNamespace

    names = ("rvw", "rvw0", "motion", "motion0", "pocket", "ev_type", "ev_time", "ev_i", "ev_j",
             "ev_state", "ev_motion", "n_events", "t_end", "overflow")
    return SimpleNamespace(prm=sim.prm, **{n: getattr(sim, n)[idx] for n in names})


def test_noise_draws_from_each_tables_generator():
    st = G.new(4)
    s0, s1 = opening(st, np.random.default_rng(0))
    noise = load_noise("tournament")
    a, _ = G.play(st, s0, noise, [np.random.default_rng(k) for k in range(4)], strikes1=s1,
                  allow_overflow=True)
    b, _ = G.play(st, s0, noise, [np.random.default_rng(k) for k in range(4)], strikes1=s1,
                  allow_overflow=True)
    assert np.array_equal(a.strike, b.strike) and not np.array_equal(a.strike[:, 0], s0.cue)


def test_reward_terms_and_observe():
    st = G.new(2)
    st.phase[:] = P_PLAY
    st.xy[:] = np.nan
    st.xy[:, 0] = (0.80, 0.0)  # w1 straight in front of goal 0
    st.xy[:, 5] = (-0.2, 0.3)
    st.xy[:, 6] = (-0.2, -0.3)
    st.to_move[:] = 0
    out, new = G.play(st, strikes([[1.0, 0.0, 0, 0, 0], [0.3, 180.0, 0, 0, 0]], [0, 0]))
    terms, reward = G.reward_terms(out)
    assert terms["own_goals"].tolist() == [1.0, 0.0]
    assert new.over[0] and G.result(new, [0, 1])[0] == 1.0
    assert terms["progress"][0] > 0 and terms["foul"].tolist() == [0.0, 0.0]
    t1, _ = G.reward_terms(out, viewer=np.array([1, 1]))
    assert t1["opponent_scored"].tolist() == [1.0, 0.0] and t1["own_goals"].tolist() == [0, 0]
    obs = G.observe(new, [0, 1])
    assert obs.shape == (2, OBS_DIM) and obs.dtype == np.float32
    assert obs[1, OBS_INDEX["own1_on_table"]] == 1.0  # side 1 sees r1 first
    assert obs[0, OBS_INDEX["own_balls_left"]] == 0.0
