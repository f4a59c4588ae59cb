"""Agents API, eighth round: the search's noise model and the trained agents' view of big games.

* The planner and the guided planner planned for a noise without its ``place`` part (a red in
  hand's placement, which play perturbs: ``ShotNoise.apply``): ``noisy_batch`` moved no
  simulated placement, and ``noise=none`` vs ``noise={place: 0.3}`` played the same strikes.
* The trained agents (the shipped DQN with and without its aim correction, the expert, the aim
  network's inputs) refused keglebillard games of 7+ players ("pass next_seats_only=True"),
  though the envs they were trained in observe such games (the five seats after the player's).

Each test failed on the code before its fix, except the checks that what was right stays so
(default play bit for bit, 2-6 player observations)."""

import numpy as np
import pytest

from cuegym.agents import make_agent, make_arena
from cuegym.agents.planner import noisy_batch
from cuegym.games.kegle_state import HAND_NONE
from cuegym.games.noise import load_noise


def _played(arena, n, shots, seed):
    """n positions after ``shots`` shots (random and geometric strikes, no noise), live ones."""
    rng = np.random.default_rng(seed)
    st = arena.new_states(n)
    agents = [make_agent(s, "keglebillard", arena=arena) for s in ("random", "geometric")]
    for k in range(shots):
        live = np.flatnonzero(~arena.overs(st))
        sub = arena.take(st, live)
        _, new = arena.step(sub, agents[k % 2].act(sub, rng))
        arena.put(st, live, new)
    return arena.take(st, np.flatnonzero(~arena.overs(st)))


def _mixed(arena):
    """Break positions (the red in hand) and mid-game ones, some without a ball in hand."""
    mid = _played(arena, 6, 3, seed=5)
    assert (mid.hand == HAND_NONE).any()
    return type(mid).concat([arena.new_states(3), mid])


# -- D2: the search's placement noise -------------------------------------------------------


def _batch(noise, K=3, seed=1, groups=None):
    ar = make_arena("keglebillard")
    st = _mixed(ar)
    p = make_agent("planner:n_candidates=5,n_noise=3", "keglebillard", arena=ar)
    flat, sizes = p.candidate_batch(st, np.random.default_rng(0))
    rng = np.random.default_rng(seed)
    rep, noisy = noisy_batch(ar, st, flat, sizes, load_noise(noise), K, rng, groups)
    return ar, st, flat, sizes, rep, noisy, rng


def test_noisy_batch_moves_in_hand_placements_with_common_draws():
    K, sigma = 3, 0.05
    ar, st, flat, sizes, rep, noisy, _ = _batch({"place": sigma}, K)
    base = np.repeat(flat.place, K, axis=0)
    in_hand = np.repeat(st.hand != HAND_NONE, sizes * K)
    # before: every placement where the candidate put it
    assert np.isfinite(noisy.place[in_hand]).all()
    assert (np.abs(noisy.place - base)[in_hand] > 0).all()
    assert np.isnan(noisy.place[~in_hand]).all()  # no ball in hand: no placement
    off = (noisy.place - base).reshape(-1, K, 2)  # (candidates, K, 2)
    owner = np.repeat(np.arange(len(sizes)), sizes)
    for t in np.flatnonzero(st.hand != HAND_NONE):
        block = off[owner == t]  # common random numbers: a state's candidates share them
        np.testing.assert_allclose(block, np.broadcast_to(block[0], block.shape), atol=1e-12)
    assert not np.allclose(off[owner == 0][0], off[owner == 1][0])  # states: their own draws
    cand_in_hand = np.repeat(st.hand != HAND_NONE, sizes)
    assert 0.5 * sigma < off[cand_in_hand].std() < 2 * sigma


def test_noisy_batch_placement_draws_are_the_play_noise():
    # ShotNoise.apply's model: placement + sigma * N(0, 1) each of x and y, drawn after the
    # strikes' normals; the strike part unchanged by the placement part
    K, sigma = 2, 0.04
    ar, st, flat, sizes, rep, noisy, rng = _batch({"phi": 0.2, "place": sigma}, K, seed=3)
    T = len(sizes)
    ref = np.random.default_rng(3)
    ref.standard_normal((T, K, 5))
    dz = ref.standard_normal((T * K, 2)).reshape(T, K, 2)
    want = np.repeat(flat.place, K, axis=0) + np.repeat(dz, sizes, axis=0).reshape(-1, 2) * sigma
    np.testing.assert_array_equal(noisy.place, want)  # (NaN where no ball is in hand)
    assert rng.random() == ref.random()  # nothing else drawn
    _, _, _, _, _, plain, _ = _batch({"phi": 0.2}, K, seed=3)
    np.testing.assert_array_equal(noisy.cue, plain.cue)


def test_noisy_batch_groups_share_placement_draws():
    n = len(_mixed(make_arena("keglebillard")))
    groups = np.array([0, 0, 1] + [2] * (n - 3))  # the break positions 0 and 1: one group
    ar, st, flat, sizes, rep, noisy, _ = _batch({"place": 0.05}, 2, groups=groups)
    off = (noisy.place - np.repeat(flat.place, 2, axis=0)).reshape(-1, 2, 2)
    first = np.cumsum(sizes) - sizes
    np.testing.assert_allclose(off[first[0]], off[first[1]], atol=1e-12)  # group 0
    assert not np.allclose(off[first[0]], off[first[2]])  # group 1


def test_a_placement_the_noise_makes_illegal_is_the_k19_foul():
    # as play handles it: no shot, the K-19 value (arena.values: -6 plus the bih term, -2)
    ar, st, flat, sizes, rep, noisy, _ = _batch({"place": 0.4}, 4)
    bad = ~ar.placement_ok(rep, noisy.place)
    assert bad.sum() > 0
    v = ar.values(ar.take(rep, np.flatnonzero(bad)), noisy.take(np.flatnonzero(bad)))
    np.testing.assert_array_equal(v, -8.0)


@pytest.mark.parametrize("spec", [
    "planner:n_candidates=24,n_noise=4",
    "guided:policy=none,n_candidates=12,n_noise=3,n_top=2,n_next=1,reply_candidates=4,"
    "reply_noise=1"])
def test_planners_plan_for_the_placement_noise(spec):
    ar = make_arena("keglebillard")
    st = ar.new_states(4)  # the break: the red in hand
    a = make_agent(spec + ",noise=none", "keglebillard", arena=ar).act(
        st, np.random.default_rng(2))
    b = make_agent(spec + ",noise={place: 0.3}", "keglebillard", arena=ar).act(
        st, np.random.default_rng(2))
    assert not (np.array_equal(a.cue, b.cue) and np.array_equal(a.place, b.place))


def test_default_noise_search_draws_and_places_as_before():
    # the tournament preset has place 0: the same draws, the same placements (default play
    # unchanged bit for bit; checked against the old code on fixed-seed positions too)
    assert load_noise("tournament").place == 0
    K = 3
    ar, st, flat, sizes, rep, noisy, rng = _batch("tournament", K, seed=4)
    ref = np.random.default_rng(4)
    z = np.repeat(ref.standard_normal((len(sizes), K, 5)), sizes, axis=0)
    np.testing.assert_array_equal(noisy.place, np.repeat(flat.place, K, axis=0))
    np.testing.assert_array_equal(
        noisy.cue, load_noise("tournament").sample(flat.cue, K, None, z=z).reshape(-1, 5))
    assert rng.random() == ref.random()


# -- D3: trained agents in games of 7+ players ----------------------------------------------


@pytest.mark.parametrize("n_players", [7, 9])
@pytest.mark.parametrize("spec", ["pretrained:aim=none", "pretrained", "expert"])
def test_trained_agents_play_games_of_seven_or_more(spec, n_players):
    ar = make_arena("keglebillard", n_players=n_players)
    st = _played(ar, 3, 4, seed=n_players)
    agent = make_agent(spec, "keglebillard", arena=ar)  # (the SB3 model: refused here)
    out = agent.act(st, np.random.default_rng(0))
    assert len(out) == len(st) and np.isfinite(out.cue).all()
    _, new = ar.step(st, out)
    assert len(new) == len(st)


def test_guided_with_its_default_policy_plays_seven_players():
    ar = make_arena("keglebillard", n_players=7)
    g = make_agent("guided:n_candidates=6,n_noise=2,n_policy=2,n_top=1,n_next=1,"
                   "reply_candidates=2,reply_noise=1", "keglebillard", arena=ar)
    assert len(g.act(ar.new_states(2), np.random.default_rng(0))) == 2


def test_trained_agents_observe_as_their_envs_in_a_seven_player_game():
    from cuegym.agents.aim import aim_inputs, inputs_of
    from cuegym.agents.expert import features

    ar = make_arena("keglebillard", n_players=7)
    st = _played(ar, 3, 6, seed=1)
    env_view = ar.g.observe(st, next_seats_only=True)  # envs/kegle.py, keglebillard_v0.py
    sb3 = make_agent("pretrained:aim=none", "keglebillard", arena=ar)
    shot = "Shot" in sb3.meta["env_id"]  # (the shipped DQN: a Shot-env model, 0 : 0 scores)
    np.testing.assert_array_equal(sb3._observe(st),
                                  ar.g.observe(st, shot_env=shot, next_seats_only=True))
    ex = make_agent("expert", "keglebillard", arena=ar)
    np.testing.assert_array_equal(features(ar, st, ex.spec)[0], env_view)
    v = ex.value(st)
    assert v.shape == (len(st),) and (np.abs(v) <= 1).all()
    s = make_agent("geometric", "keglebillard", arena=ar).act(st, np.random.default_rng(0))
    x, sign = aim_inputs(ar, st, s)
    x2, sign2 = inputs_of(ar, env_view, st.xy, st.pins, s)
    np.testing.assert_array_equal(x, x2)
    np.testing.assert_array_equal(sign, sign2)


@pytest.mark.parametrize("n_players", [2, 4, 6])
def test_observations_of_up_to_six_players_unchanged(n_players):
    # the five seats after the player's are every other seat: the inputs the agents always read
    from cuegym.agents.expert import features

    ar = make_arena("keglebillard", n_players=n_players)
    st = _played(ar, 3, 4, seed=n_players)
    full = ar.g.observe(st)
    sb3 = make_agent("pretrained:aim=none", "keglebillard", arena=ar)
    np.testing.assert_array_equal(sb3._observe(st), ar.g.observe(
        st, shot_env="Shot" in sb3.meta["env_id"]))
    ex = make_agent("expert", "keglebillard", arena=ar)
    np.testing.assert_array_equal(features(ar, st, ex.spec)[0], full)


def test_the_experts_teacher_values_its_strikes_under_the_planners_noise_model():
    """expert.mean_values batches its noisy strikes through planner.noisy_batch (it had its own
    copy, which left the placement's noise out): the same values as before without placement
    noise, and placement noise reaches its search."""
    from cuegym.agents import make_agent, make_arena
    from cuegym.agents.expert import mean_values
    from cuegym.games.noise import load_noise
    from cuegym.games.strikes import Strikes

    arena = make_arena("keglebillard")
    states = arena.new_states(3)  # the break: the red in hand
    s = make_agent("geometric", "keglebillard", arena=arena).act(states, np.random.default_rng(0))
    strikes = Strikes(np.repeat(s.cue, 2, axis=0), np.repeat(s.cue_ball, 2),
                      np.repeat(s.place, 2, axis=0))
    noise = load_noise("tournament")
    got = mean_values(arena, states, strikes, 2, 4, noise, np.random.default_rng(5))
    # the copy it replaced, draw for draw
    rng = np.random.default_rng(5)
    z = np.repeat(rng.standard_normal((3, 4, 5)), 2, axis=0)
    cue = noise.sample(strikes.cue, 4, rng, z=z).reshape(-1, 5)
    noisy = Strikes(cue, np.repeat(strikes.cue_ball, 4), np.repeat(strikes.place, 4, axis=0))
    rep = arena.g.batch(states).take(np.repeat(np.arange(3), 8))
    want = arena.values(rep, noisy).reshape(3, 2, 4).mean(2)
    assert np.array_equal(got, want)
    placed = load_noise({"place": 0.3})
    moved = mean_values(arena, states, strikes, 2, 4, placed, np.random.default_rng(5))
    still = mean_values(arena, states, strikes, 2, 4, load_noise("none"),
                        np.random.default_rng(5))
    assert not np.array_equal(moved, still)
