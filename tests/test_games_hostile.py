"""Hostile input to the game layer's batch API (cuegym.games: Kegle, Golf): each bad argument
is a ValueError whose message names the argument and the value, before any work, and a refused
call leaves the states as they were."""

from __future__ import annotations

import numpy as np
import pytest

from cuegym.games.golf import Golf
from cuegym.games.kegle import Kegle
from cuegym.games.noise import load_noise
from cuegym.games.strikes import Strikes

BREAK = [3.0, 2.0, 0.0, 0.0, 0.0]


@pytest.fixture(scope="module")
def K():
    return Kegle()


@pytest.fixture(scope="module")
def G():
    return Golf({"match": "single"})


def _snapshot(states) -> dict[str, np.ndarray]:
    return {k: v.copy() for k, v in vars(states).items() if isinstance(v, np.ndarray)}


def _unchanged(states, snap) -> bool:
    now = _snapshot(states)
    return now.keys() == snap.keys() and all(
        np.array_equal(now[k], snap[k], equal_nan=True) for k in snap)


def _kegle_strikes(T: int) -> Strikes:
    return Strikes.of(np.tile(BREAK, (T, 1)), place=np.tile([-0.8, 0.1], (T, 1)))


def _golf_openings(G, states):
    b = G.opening_balls(states)
    T = len(states)
    s0 = Strikes(np.tile([1.1, 20.0, 0, 0, 0], (T, 1)), b[:, 0], np.full((T, 2), np.nan))
    s1 = Strikes(np.tile([1.1, 200.0, 0, 0, 0], (T, 1)), b[:, 1], np.full((T, 2), np.nan))
    return s0, s1


def _rngs(T: int) -> list[np.random.Generator]:
    return [np.random.default_rng(k) for k in range(T)]


def test_kegle_play_refuses_bad_rng_states_noise_and_active(K, G):
    s = K.new(4, 2)
    snap = _snapshot(s)
    st = _kegle_strikes(4)
    noise = load_noise("tournament")
    cases = [
        (dict(rng=5), r"rng must be a numpy.random.Generator .* got 5"),
        (dict(rng=np.random.RandomState(0)), "rng must be a numpy.random.Generator"),
        (dict(rng=_rngs(2)), r"rng: 2 generators for 4 tables"),
        (dict(rng=[np.random.default_rng(0), 3, 4, 5]), "rng must be"),
        (dict(rng=_rngs(4), active=np.array([1, 0, 2, 0])),
         r"active must be a bool array of shape \(4,\), got dtype int"),
        (dict(rng=_rngs(4), active=[1.0, 0.0, 1.0, 0.0]), "active must be a bool array"),
        (dict(rng=_rngs(4), active=["a", "b", "c", "d"]), "active must be a bool array"),
        (dict(rng=_rngs(4), noise=object()), "noise must be a preset name"),
        (dict(rng=_rngs(4), noise="loud"), "shot-noise preset"),
    ]
    for kw, msg in cases:
        kw = {"noise": noise, **kw}
        with pytest.raises(ValueError, match=msg):
            K.play(s, st, kw.pop("noise"), kw.pop("rng"), **kw)
        assert _unchanged(s, snap), kw
    with pytest.raises(ValueError, match=r"states must be a KegleStates .* got GolfStates "
                                         r"\(the other game's states\)"):
        K.play(G.new(4), st, noise, _rngs(4))
    with pytest.raises(ValueError, match="got a list holding GolfState"):
        K.play(list(G.new(4)), st, noise, _rngs(4))
    with pytest.raises(ValueError, match="strikes must be a Strikes batch"):
        K.play(s, np.tile(BREAK, (4, 1)), noise, _rngs(4))
    assert _unchanged(s, snap)


def test_kegle_noise_preset_names_play_as_their_shot_noise(K):
    """noise="tournament" (a preset name, as the envs take) plays exactly as the loaded
    ShotNoise; a bool mask for active still works."""
    s = K.new(3, 2)
    st = _kegle_strikes(3)
    st.cue[:, 1] = [-5.0, 0.0, 5.0]
    act = np.array([True, False, True])
    o1, n1 = K.play(s, st, load_noise("tournament"), _rngs(3), active=act)
    o2, n2 = K.play(s, st, "tournament", _rngs(3), active=act)
    for t in (0, 2):
        assert o1.outcome(t) == o2.outcome(t)
    for t in range(3):
        assert n1.state(t) == n2.state(t)
    o3, _ = K.play(s, st, 1.0, np.random.default_rng(0), active=act)  # a scale factor
    o4, _ = K.play(s, st, load_noise(1.0), np.random.default_rng(0), active=act)
    assert np.array_equal(o3.strike, o4.strike, equal_nan=True)


def test_kegle_legal_placement_observe_result(K, G):
    s = K.new(4, 2)
    snap = _snapshot(s)
    with pytest.raises(ValueError, match=r"place must have shape \(4, 2\) .* got shape \(3, 2\)"):
        K.legal_placement(s, np.tile([-0.8, 0.0], (3, 1)))
    with pytest.raises(ValueError, match=r"place must have shape \(4, 2\)"):
        K.legal_placement(s, np.zeros(8))
    with pytest.raises(ValueError, match=r"place must be a \(4, 2\) array"):
        K.legal_placement(s, [["a", "b"]] * 4)
    with pytest.raises(ValueError, match="states must be a KegleStates .* GolfStates"):
        K.legal_placement(G.new(4), np.zeros((4, 2)))
    assert K.legal_placement(s, np.tile([-0.8, 0.0], (4, 1))).tolist() == [True] * 4
    one = K.new(1, 2)
    assert K.legal_placement(one, [-0.8, 0.0]).tolist() == [True]  # (2,) for one table
    with pytest.raises(ValueError, match=r"players\[3\] = 9 is not in 0..1"):
        K.observe(s, np.array([0, 0, 0, 9]))
    with pytest.raises(ValueError, match=r"players\[0\] = -1 is not in 0..1"):
        K.observe(s, -1)
    with pytest.raises(ValueError, match="players must be integers"):
        K.observe(s, np.array([0.5, 0, 0, 0]))
    with pytest.raises(ValueError, match=r"players must have shape \(4,\)"):
        K.observe(s, [0, 1])
    with pytest.raises(ValueError, match=r"players\[3\] = 9 is not in 0..1"):
        K.result(s, np.array([0, 0, 0, 9]))
    with pytest.raises(ValueError, match="players must be integers"):
        K.result(s, [True, False, True, False])
    with pytest.raises(ValueError, match="states must be a KegleStates"):
        K.observe(G.new(4), [0, 0, 0, 0])
    assert _unchanged(s, snap)
    # valid calls are unchanged: one player for all broadcasts, as (T,) does
    assert np.array_equal(K.observe(s, 1), K.observe(s, np.ones(4, np.int64)))
    assert K.result(s, np.array([0, 1, 0, 1])).tolist() == [0.0] * 4


def test_golf_play_refuses_bad_input_and_leaves_states_unchanged(K, G):
    s = G.new(4, seed=np.arange(4))
    snap = _snapshot(s)
    s0, s1 = _golf_openings(G, s)
    noise = load_noise("tournament")
    for rng, msg in ((5, "rng must be a numpy.random.Generator"),
                     (np.random.RandomState(0), "rng must be a numpy.random.Generator"),
                     (_rngs(3), r"rng: 3 generators for 4 tables")):
        with pytest.raises(ValueError, match=msg):
            G.play(s, s0, noise, rng, strikes1=s1)
    with pytest.raises(ValueError, match="active must be a bool array"):
        G.play(s, s0, noise, _rngs(4), strikes1=s1, active=np.array([1, 1, 1, 1]))
    with pytest.raises(ValueError, match="noise must be a preset name"):
        G.play(s, s0, [1, 2], _rngs(4), strikes1=s1)
    with pytest.raises(ValueError, match="strikes1 must be a Strikes batch"):
        G.play(s, s0, noise, _rngs(4), strikes1=np.zeros((4, 5)))
    with pytest.raises(ValueError, match=r"states must be a GolfStates .* got KegleStates "
                                         r"\(the other game's states\)"):
        G.play(K.new(4, 2), s0, noise, _rngs(4), strikes1=s1)
    assert _unchanged(s, snap)
    o1, n1 = G.play(s, s0, noise, _rngs(4), strikes1=s1, allow_overflow=True)
    o2, n2 = G.play(s, s0, "tournament", _rngs(4), strikes1=s1, allow_overflow=True)
    assert np.array_equal(o1.strike, o2.strike, equal_nan=True)
    assert np.array_equal(n1.xy, n2.xy, equal_nan=True)


def test_golf_new_observe_result(K, G):
    with pytest.raises(ValueError, match="T must be an integer >= 0, got -1"):
        G.new(-1)
    with pytest.raises(ValueError, match="T must be an integer, got 2.5"):
        G.new(2.5)
    for seed, msg in ((-1, "seed = -1: a seed must be an integer >= 0"),
                      ([1, -2], r"seed\[1\] = -2"), (1.5, "seed must be an integer"),
                      (True, "seed must be an integer"), ("3", "seed must be an integer"),
                      ([1, 2, 3], r"seed must be one integer or 2 of them")):
        with pytest.raises(ValueError, match=msg):
            G.new(2, seed=seed)
    assert G.new(3, seed=np.arange(3)).seed.tolist() == [0, 1, 2]
    assert G.new(2, seed=np.uint32(7)).seed.tolist() == [7, 7]
    assert len(G.new(0)) == 0
    s = G.new(4)
    snap = _snapshot(s)
    with pytest.raises(ValueError, match=r"sides\[3\] = 5 is not in 0..1"):
        G.observe(s, np.array([0, 0, 0, 5]))
    with pytest.raises(ValueError, match=r"sides\[0\] = 2 is not in 0..1"):
        G.result(s, np.array([2, 0, 0, 0]))
    with pytest.raises(ValueError, match="states must be a GolfStates"):
        G.observe(K.new(4, 2), [0, 0, 0, 0])
    with pytest.raises(ValueError, match="states must be a GolfStates"):
        G.result(K.new(4, 2), [0, 0, 0, 0])
    assert _unchanged(s, snap)
    assert np.array_equal(G.observe(s, [0, 1, 0, 1]), G.observe(list(s), [0, 1, 0, 1]))
    assert G.result(s, [0, 1, 0, 1]).tolist() == [0.0] * 4


def test_new_games_check_their_rng_and_reward_terms_take_mappings():
    """Kegle.new(rng=-1) was numpy's message; reward_terms with a mapping of weights was an
    AttributeError (the envs take one)."""
    import numpy as np

    from cuegym.envs.config import load_reward
    from cuegym.games.kegle import Kegle
    from cuegym.games.strikes import Strikes

    K = Kegle({"first_player": "random"})
    for bad in (-1, 2.5, "3", True):
        with pytest.raises(ValueError, match="rng must be None, a numpy.random.Generator or a "
                                             "seed"):
            K.new(2, 2, rng=bad)
    a, b = K.new(3, 2, rng=5), K.new(3, 2, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a.to_play, b.to_play)
    st = Kegle().new(2, 2)
    out, _ = Kegle().play(st, Strikes.of(np.tile([2.0, 0, 0, 0, 0], (2, 1)), np.zeros(2, int),
                                          np.tile([-0.8, 0.0], (2, 1))))
    _, total = Kegle().reward_terms(out, {"points": 2.0})
    _, ref_total = Kegle().reward_terms(out, load_reward("keglebillard", {"points": 2.0}))
    np.testing.assert_array_equal(total, ref_total)
    with pytest.raises(ValueError, match="bogus"):
        Kegle().reward_terms(out, {"bogus": 1.0})
