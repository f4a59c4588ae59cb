"""The guided planner (cuegym.agents.guided): valid, reproducible strikes from real positions of
both games, the pluggable value, its settings checked, and that it plays better than the aimer.

The head-to-head against the plain planner (500+ games per game) is in docs/agents.md.
"""

from __future__ import annotations

import numpy as np
import pytest
from game_positions import geometric_games

from cuegym.agents import (
    GeometricAgent,
    GuidedPlannerAgent,
    PlannerAgent,
    Strikes,
    load_noise,
    make_agent,
    make_arena,
    planner_preset,
    play_games,
)
from cuegym.agents.planner import segment_top

#: cheap settings: enough to exercise every path (policy, perturbations, both plies)
SMALL = {"n_candidates": 10, "n_noise": 2, "n_policy": 2, "n_top": 3, "n_next": 2,
         "reply_candidates": 4, "reply_noise": 2}


@pytest.fixture(scope="module", params=["keglebillard", "golfbillard"])
def game_states(request):
    """(arena, 6 positions of real games between geometric agents, a few shots in)."""
    arena = make_arena(request.param)
    states, _ = geometric_games(arena, 6, 4, 5)
    live = np.flatnonzero(~arena.overs(states))
    assert len(live) >= 3
    return arena, arena.take(states, live)


def test_guided_plays_valid_reproducible_strikes(game_states):
    arena, states = game_states
    agent = GuidedPlannerAgent(arena.game, arena=arena, **SMALL)
    assert agent.policy is not None  # the shipped model proposes
    a = agent.act(states, np.random.default_rng(3))
    b = agent.act(states, np.random.default_rng(3))
    assert len(a) == len(states)
    a.validate()
    assert np.array_equal(a.cue, b.cue) and np.array_equal(a.cue_ball, b.cue_ball)
    assert np.array_equal(a.place, b.place, equal_nan=True)
    batch = arena.g.batch(states)
    if arena.game == "keglebillard":
        assert (a.cue_ball == 0).all()
        hand = batch.hand != 0
        assert np.isfinite(a.place[hand]).all() and np.isnan(a.place[~hand]).all()
    else:
        from cuegym.rules.golfbillard import SIDE_OF

        assert (SIDE_OF[a.cue_ball] == arena.movers(batch)).all()


def test_zero_value_plays_the_first_ply_choice(game_states):
    """A learned value that is 0 everywhere leaves the first ply's choice (``n_top=0``), and it
    sees every next position of the top candidates that is still being played."""
    arena, states = game_states
    seen = []

    def zero(s):
        seen.append(len(s))
        return np.zeros(len(s))

    valued = GuidedPlannerAgent(arena.game, arena=arena, value=zero, **SMALL)
    one_ply = GuidedPlannerAgent(arena.game, arena=arena, **{**SMALL, "n_top": 0})
    a = valued.act(states, np.random.default_rng(8))
    b = one_ply.act(states, np.random.default_rng(8))
    assert np.array_equal(a.cue, b.cue)
    assert 0 < seen[0] <= len(states) * SMALL["n_top"] * SMALL["n_next"]


def test_next_values_count_for_the_side_to_move(game_states):
    """The second ply's value counts for the shooter where he is to move again, against him
    where the opponent is, and nothing where the game is over."""
    arena, states = game_states
    agent = GuidedPlannerAgent(arena.game, arena=arena, value=lambda s: np.ones(len(s)),
                               **SMALL)
    batch = arena.g.batch(states)
    movers = arena.movers(batch)
    shooter = movers.copy()
    shooter[::2] = 1 - shooter[::2]  # half of them "played into" a position where he is to move
    got = agent.next_values(batch, shooter, np.random.default_rng(0))
    want = np.where(movers == shooter, 1.0, -1.0)
    assert got.tolist() == want.tolist()


def test_recheck_averages_fresh_draws_and_hands_over_their_next_states(game_states):
    """``recheck`` plays the top candidates again under ``n_recheck`` draws: the value is the
    mean over all ``n_noise + n_recheck`` draws, and the next states are those of the fresh
    draws, candidate i's draw k at row ``i * n_recheck + k``. Without noise every draw is the
    plain shot, so the values stay and every row is that candidate's outcome."""
    arena, states = game_states
    batch = arena.g.batch(states)
    agent = GuidedPlannerAgent(arena.game, arena=arena, noise="none", n_recheck=3,
                               **{**SMALL, "n_policy": 0})
    flat, sizes = agent.candidates(batch, np.random.default_rng(2))
    T, M = len(sizes), 2
    pick = (np.concatenate([[0], np.cumsum(sizes)[:-1]])[:, None] + np.arange(M)).reshape(-1)
    cands = flat.take(pick)
    out, plain = arena.outcomes(arena.take(batch, np.repeat(np.arange(T), M)), cands)
    v = arena.score(out, terms=agent.first.terms).reshape(T, M)
    q, new, R = agent.recheck(batch, cands, v, np.random.default_rng(4))
    assert R == 3 and np.allclose(q, v)
    mover = arena.movers(new)
    assert mover.tolist() == np.repeat(arena.movers(plain), R).tolist()
    scores = np.asarray(arena.scores(new))
    assert np.array_equal(scores, np.repeat(np.asarray(arena.scores(plain)), R, axis=0))
    # with noise the fresh draws count in proportion to their number
    noisy = GuidedPlannerAgent(arena.game, arena=arena, n_recheck=3, **{**SMALL, "n_policy": 0})
    q0 = noisy.recheck(batch, cands, np.zeros((T, M)), np.random.default_rng(4))[0]
    q1 = noisy.recheck(batch, cands, np.full((T, M), 10.0), np.random.default_rng(4))[0]
    assert np.allclose(q1 - q0, 10.0 * SMALL["n_noise"] / (SMALL["n_noise"] + 3))


def test_refine_appends_perturbations_of_the_best_and_keeps_the_first_ply(game_states):
    """``refine`` appends ``n_refine`` candidates to every state's block, perturbations of its
    ``refine_top`` best first-ply candidates (within a few jitter widths of one of them); the
    first-ply candidates keep their strikes, values and next-state rows, in order. Without noise
    a refined candidate's value is its plain shot's."""
    arena, states = game_states
    batch = arena.g.batch(states)
    R, top_k, K = 5, 2, SMALL["n_noise"]
    agent = GuidedPlannerAgent(arena.game, arena=arena, noise="none", n_refine=R,
                               refine_top=top_k, **{**SMALL, "n_policy": 0})
    flat, sizes = agent.candidates(batch, np.random.default_rng(2))
    T = len(sizes)
    v1 = np.arange(len(flat), dtype=float) % 7.0  # distinct ranks within each block
    owner = np.repeat(np.arange(T), sizes)  # the state of each candidate
    new = arena.outcomes(arena.take(batch, np.repeat(owner, K)),
                         Strikes(np.repeat(flat.cue, K, 0), np.repeat(flat.cue_ball, K),
                                 np.repeat(flat.place, K, 0)))[1]
    strikes, sizes2, v, nxt = agent.refine(batch, flat, sizes, v1, new,
                                           np.random.default_rng(3))
    assert sizes2.tolist() == (sizes + R).tolist() and len(strikes) == len(v) == sizes2.sum()
    start, start2 = (np.concatenate([[0], np.cumsum(x)[:-1]]) for x in (sizes, sizes2))
    best = segment_top(v1, sizes, top_k)
    movers = arena.movers(nxt)
    for t in range(T):
        a, b, n = start[t], start2[t], sizes[t]
        assert np.array_equal(strikes.cue[b:b + n], flat.cue[a:a + n])
        assert np.array_equal(v[b:b + n], v1[a:a + n])
        assert movers[b * K:(b + n) * K].tolist() == arena.movers(new)[a * K:(a + n) * K].tolist()
        ref = strikes.cue[b + n:b + n + R]
        near = np.abs(ref[:, None, 1] - flat.cue[best[t], 1][None]).min(1)
        assert (near < 5 * agent.refiner.jitter["phi"]).all()  # degrees
        out, _ = arena.outcomes(arena.take(batch, np.full(R, t)), strikes.take(
            np.arange(b + n, b + n + R)))
        assert np.allclose(v[b + n:b + n + R], arena.score(out, terms=agent.first.terms))
    assert agent.refiner.jitter["phi"] == 0.5 * agent.first.jitter["phi"]
    # the whole move with a refinement (and with the recheck after it) plays valid strikes
    for extra in ({}, {"n_recheck": 2}):
        played = GuidedPlannerAgent(arena.game, arena=arena, n_refine=4,
                                    **{**SMALL, **extra}).act(states, np.random.default_rng(1))
        played.validate()
        assert len(played) == T


def test_reply_recheck_replays_the_best_reply(game_states):
    """Without noise the fresh draws of the best reply repeat its value; with noise they are
    new draws of the same reply, so the value moves."""
    arena, states = game_states
    batch = arena.g.batch(states)

    def reply(noise, r):
        agent = GuidedPlannerAgent(arena.game, arena=arena, noise=noise, reply_recheck=r,
                                   **SMALL)
        return agent.reply_values(batch, np.random.default_rng(6))

    assert np.allclose(reply("none", 4), reply("none", 0))
    plain, rechecked = reply("tournament", 0), reply("tournament", 4)
    assert np.isfinite(rechecked).all() and not np.allclose(plain, rechecked)


def test_bad_value_and_settings_are_refused(game_states):
    arena, states = game_states
    bad = GuidedPlannerAgent(arena.game, arena=arena, value=lambda s: np.zeros(1),
                             **SMALL)
    with pytest.raises(ValueError, match="value returned shape"):
        bad.act(states, np.random.default_rng(0))
    with pytest.raises(ValueError, match="n_next"):
        GuidedPlannerAgent(arena.game, arena=arena, n_noise=2, n_next=3)
    with pytest.raises(ValueError, match="n_next"):
        GuidedPlannerAgent(arena.game, arena=arena, n_noise=6, n_next=3, n_recheck=2)
    with pytest.raises(ValueError, match="n_recheck"):
        GuidedPlannerAgent(arena.game, arena=arena, n_recheck=-1)
    with pytest.raises(ValueError, match="reply_recheck"):
        GuidedPlannerAgent(arena.game, arena=arena, reply_recheck=-2)
    with pytest.raises(ValueError, match="n_policy"):
        GuidedPlannerAgent(arena.game, arena=arena, n_candidates=4, n_policy=4)
    with pytest.raises(ValueError, match="reply_noise"):
        GuidedPlannerAgent(arena.game, arena=arena, reply_noise=0)
    with pytest.raises(ValueError, match="policy"):
        GuidedPlannerAgent(arena.game, arena=arena, policy=3)
    with pytest.raises(ValueError, match="n_refine"):
        GuidedPlannerAgent(arena.game, arena=arena, n_refine=-1)
    with pytest.raises(ValueError, match="refine_top"):
        GuidedPlannerAgent(arena.game, arena=arena, refine_top=0)
    for bad_scale in (0.0, float("nan")):
        with pytest.raises(ValueError, match="refine_scale"):
            GuidedPlannerAgent(arena.game, arena=arena, refine_scale=bad_scale)


def test_make_agent_guided_with_options():
    agent = make_agent("guided:n_top=2,policy=none", "keglebillard")
    assert isinstance(agent, GuidedPlannerAgent)
    assert agent.n_top == 2 and agent.policy is None and agent.n_policy == 0
    # any agent spec proposes: the shipped expert network, by name
    agent = make_agent("guided:policy=expert", "golfbillard")
    assert agent.policy.name == "expert" and agent.policy.game == "golfbillard"
    with pytest.raises(ValueError, match="cannot be a guided planner"):
        make_agent("guided:policy=guided", "golfbillard")
    with pytest.raises(ValueError, match="unknown agent|not a"):
        make_agent("guided:policy=nonsense", "golfbillard")


def test_segment_top_ranks_each_block():
    vals = np.array([1.0, 5.0, 3.0, 7.0, 2.0, 2.0])
    sizes = np.array([3, 1, 2])
    assert segment_top(vals, sizes, 2).tolist() == [[1, 2], [3, 3], [4, 5]]
    with pytest.raises(ValueError, match="candidate"):
        segment_top(vals, np.array([3, 0, 3]), 1)


def test_golf_position_values_match_the_rule_per_ball():
    """The batched position value: 0.8 for a ball in its cone with a clear shot, 0.4 when another
    ball blocks it, 0.3 exp(-d / 0.3) outside; the other side's balls count for it only."""
    golf = make_arena("golfbillard")
    cone, poly, goal = golf._cone(0)
    d = 0.5 * (cone.near + cone.far)
    inside = np.array([cone.gx - cone.sgn * d, 0.0])
    xy = np.full((3, 10, 2), np.nan)
    xy[0, 0] = inside
    xy[1, 0] = inside
    xy[1, 7] = 0.5 * (inside + goal)  # a side-1 ball on the line to the goal
    far = inside + [-cone.sgn * 0.4, 0.0]
    xy[2, 0] = far
    got = golf.position_values(xy, np.zeros(3, np.int64))
    dist = abs(far[0] - (cone.gx - cone.sgn * cone.far))
    assert got[0] == pytest.approx(0.8) and got[1] == pytest.approx(0.4)
    assert got[2] == pytest.approx(0.3 * np.exp(-dist / 0.3), rel=1e-6)
    other = golf.position_values(xy, np.ones(3, np.int64))
    assert other[0] == 0.0 and other[2] == 0.0 and 0.0 < other[1] < 0.3


def test_keglebillard_guided_beats_geometric():
    """Cheap settings, 16 games: the planner beats geometric 94 % at full strength, the guided
    planner must win clearly too."""
    kegle = make_arena("keglebillard")
    guided = GuidedPlannerAgent("keglebillard", arena=kegle, n_candidates=24, n_noise=3,
                                n_top=3, n_next=2, reply_candidates=8, reply_noise=2)
    res = play_games(kegle, [guided, GeometricAgent("keglebillard", kegle)], 16, seed=11)
    assert res.stats(0)["wins"] >= 12


@pytest.mark.slow
@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_guided_beats_the_planner(game):
    """The shipped presets against the plain planner's, 60 games (docs/agents.md: 500+)."""
    arena = make_arena(game)
    res = play_games(arena, [make_agent("guided", game, arena=arena),
                             PlannerAgent(game, arena=arena)], 60, seed=1234)
    s = res.stats(0)
    assert s["wins"] > s["losses"] + 6


def test_keglebillard_game_term_values_ending_the_game():
    """``terms={"game": g}``: +g for a shot that ends the game with the shooter first (K-22 at
    a distance of 1 point: a legal pin finishes), -g where it hands the game over, else 0."""
    arena = make_arena("keglebillard", rules={"distance": 1})
    states = arena.new_states(12)
    strikes = GeometricAgent("keglebillard", arena).act(states, np.random.default_rng(0))
    out, _ = arena.outcomes(states, load_noise("tournament").apply(strikes,
                                                                   np.random.default_rng(1)))
    diff = arena.score(out, terms={"game": 100.0}) - arena.score(out)
    end = out.game_over & ~out.win
    assert end.any()
    want = np.where(end, np.where(out.ranking[:, 0] == out.shooter, 100.0, -100.0), 0.0)
    assert diff.tolist() == want.tolist()
    assert (diff[end & (out.ranking[:, 0] == out.shooter)] == 100.0).any()


def _golf_play_states(n, turns, idle, rules=None):
    """``n`` golfbillard tables past the opening at their start spots, side 0 to move, with the
    G-5 counters ``turns`` and ``idle`` (each (n,)), under ``rules``."""
    from cuegym.rules.golf_codes import P_PLAY

    arena = make_arena("golfbillard", rules=rules)
    b = arena.g.batch(arena.new_states(n))
    b.phase[:] = P_PLAY
    b.to_move[:] = 0
    b.turns[:] = turns
    b.idle_turns[:] = idle
    return arena, b


def test_golf_draw_potential_follows_g5():
    """Φ = chance of a G-5 draw x its value for the side: the value is ``draw - lead x (own
    balls scored - the opponent's)``; the chance 1 for a drawn game, 0 for a decided one and in
    kader play, else (1 - idle_q) ** (turns that must still end scoreless)."""
    from cuegym.rules.golf_codes import P_OVER

    arena, b = _golf_play_states(6, [0, 40, 43, 45, 45, 45], [0, 0, 3, 5, 5, 5])
    b.xy[:, [1, 2]] = np.nan  # side 0 has scored two balls, side 1 none: side 0 leads by 2
    b.turn_scored[1] = True  # its turn has scored: the count starts again after it
    b.phase[3:5] = P_OVER
    b.match_winner[3], b.match_winner[4] = 2, 1  # a G-5 draw, a game won by side 1
    b.kader[5] = True
    terms = {"draw": -3.0, "lead": 2.0, "idle_q": 0.2}
    for side, value in ((0, -3.0 - 2.0 * 2), (1, -3.0 + 2.0 * 2)):
        got = arena.draw_potentials(b, np.full(6, side), terms)
        want = [0.8 ** 46 * value, 0.8 ** 7 * value, 0.8 ** 3 * value, value, 0.0, 0.0]
        assert got == pytest.approx(want, rel=1e-12, abs=1e-300)
    assert arena.draw_potentials(b, np.zeros(6, np.int64), {"lead": 1.0})[3] == -2.0
    with pytest.raises(ValueError, match="idle_q"):
        arena.draw_potentials(b, np.zeros(6, np.int64), {"draw": -1.0, "idle_q": 1.0})


def test_golf_draw_terms_value_the_stroke_that_draws():
    """One scoreless turn before G-5 ends the game (45 turns, 5 idle): a stroke that scores
    nothing draws the game and gains ``draw - Φ(before)`` on top of the plain value; at turn 10
    a lost turn brings the draw one turn nearer (36 to 35 scoreless turns). The terms need the
    states before and after."""
    arena, b = _golf_play_states(12, [45] * 6 + [10] * 6, [5] * 6 + [0] * 6)
    strikes = GeometricAgent("golfbillard", arena).act(b, np.random.default_rng(0))
    out, new = arena.outcomes(b, load_noise("tournament").apply(strikes,
                                                                np.random.default_rng(1)))
    terms = {"draw": -10.0, "idle_q": 0.1}
    diff = arena.score(out, terms=terms, states=b, new=new) - arena.score(out)
    drawn = new.over & (new.match_winner == 2)
    lost = ~out.turn_kept & ~drawn
    assert drawn[:6].all() and lost[6:].all()
    assert diff[:6] == pytest.approx(-10.0 + 0.9 * 10.0)
    assert diff[6:] == pytest.approx(-10.0 * (0.9 ** 35 - 0.9 ** 36))
    with pytest.raises(ValueError, match="states before and after"):
        arena.score(out, terms=terms)
    with pytest.raises(ValueError, match="unknown"):
        arena.score(out, terms={"drew": 1.0})


def test_golf_draw_terms_in_a_best_of_3_value_the_game_the_stroke_ended():
    """In a best-of-3 match the stroke that draws a game starts the next one, whose fresh rack
    says nothing of the draw: Φ after it is the drawn game's (its result, the lead in it), so
    the stroke gains what it gains in a single game (the guided planner played none of a
    best-of-3 before: its G-5 terms refused the match, a 500 at the web table)."""
    terms = {"draw": -10.0, "lead": 1.0, "idle_q": 0.1}
    diffs = []
    for match in ("single", "best_of_3"):
        arena, b = _golf_play_states(6, [45] * 6, [5] * 6, rules={"match": match})
        b.xy[:, 1] = np.nan  # side 0 leads by one ball: a draw costs it one more
        strikes = GeometricAgent("golfbillard", arena).act(b, np.random.default_rng(0))
        out, new = arena.outcomes(b, load_noise("tournament").apply(
            strikes, np.random.default_rng(1)))
        assert (new.winner == 2).all()
        assert (new.game_no == (1 if match == "best_of_3" else 0)).all()
        diffs.append(arena.score(out, terms=terms, states=b, new=new) - arena.score(out))
    assert diffs[1] == pytest.approx(diffs[0])
    assert diffs[0] == pytest.approx(-11.0 + 0.9 * 11.0)


def test_recheck_scores_with_the_presets_value_terms(game_states):
    """The recheck values its fresh draws with the first ply's terms (golfbillard's G-5 terms
    need the states before and after each stroke): the preset's terms and a recheck together
    play, and without noise the recheck leaves the choice unchanged."""
    arena, states = game_states
    terms = planner_preset(arena.game, "guided").get("terms", {})
    kw = {**SMALL, "n_policy": 0, "noise": "none", "terms": terms}
    plain = GuidedPlannerAgent(arena.game, arena=arena, **kw)
    again = GuidedPlannerAgent(arena.game, arena=arena, n_recheck=2, **kw)
    a = plain.act(states, np.random.default_rng(4))
    b = again.act(states, np.random.default_rng(4))
    assert len(b) == len(states) and np.isfinite(b.cue).all()
    np.testing.assert_array_equal(a.cue, b.cue)


def test_many_states_are_searched_in_batches_of_max_states(game_states):
    """More states than ``max_states`` are split into batches (memory): one strike each, in
    order, the same strikes as batches searched one by one with the same generator."""
    arena, states = game_states
    kw = {**SMALL, "n_policy": 0}
    rng = np.random.default_rng(8)
    split = GuidedPlannerAgent(arena.game, arena=arena, max_states=2, **kw).act(states, rng)
    assert len(split) == len(states) and np.isfinite(split.cue).all()
    one = GuidedPlannerAgent(arena.game, arena=arena, **kw)
    rng = np.random.default_rng(8)
    parts = [one.act(arena.take(states, np.arange(a, min(a + 2, len(states)))), rng)
             for a in range(0, len(states), 2)]
    np.testing.assert_array_equal(split.cue, np.concatenate([p.cue for p in parts]))
    with pytest.raises(ValueError, match="max_states"):
        GuidedPlannerAgent(arena.game, arena=arena, max_states=0)


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_candidate_batch_is_the_per_state_candidates(game):
    """The planner's batched candidates are exactly its per-state ones, from the same draws
    (the searches' results do not change with the batching): positions of geometric games,
    keglebillard ones with the red in hand behind the salvo line and anywhere (K-19)."""
    arena = make_arena(game)
    _, seen = geometric_games(arena, 32, 12, 11)
    batch = type(seen[0]).concat(seen)
    if game == "keglebillard":
        assert {1, 2} <= set(batch.hand.tolist())  # salvo and cloth placements met
    for n_candidates in (6, 12, 30):
        planner = PlannerAgent(game, n_candidates=n_candidates, arena=arena)
        mine, gen = np.random.default_rng(3), np.random.default_rng(3)
        flat, sizes = planner.candidate_batch(batch, mine)
        per = [planner.candidates(s, gen, c) for s, c in zip(batch, planner.aim(batch),
                                                              strict=True)]
        assert sizes.tolist() == [len(c) for c in per]
        want = Strikes.concat(per)
        np.testing.assert_array_equal(flat.cue, want.cue)
        np.testing.assert_array_equal(flat.cue_ball, want.cue_ball)
        np.testing.assert_array_equal(flat.place, want.place)
        assert mine.integers(1 << 62) == gen.integers(1 << 62)  # as many draws taken


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_searches_in_slices_play_the_same(game):
    """An arena's ``max_tables`` only slices the searches' physics calls (bounded memory):
    values, next states, the planner's and the guided planner's strikes are those of one call."""
    from cuegym.agents.arena import played_values

    whole, sliced = make_arena(game, max_tables=10**9), make_arena(game, max_tables=7)
    states, _ = geometric_games(whole, 6, 4, 5)
    states = whole.take(states, np.flatnonzero(~whole.overs(states)))
    planner = PlannerAgent(game, n_candidates=6, n_noise=3, arena=whole)
    flat, sizes = planner.candidate_batch(states, np.random.default_rng(0))
    idx = np.repeat(np.arange(len(sizes)), sizes)
    rep, strikes = whole.take(whole.g.batch(states), idx), flat.clipped()
    assert len(strikes) > 7 and len(strikes) % 7  # several slices, the last one short
    np.testing.assert_array_equal(whole.values(rep, strikes), sliced.values(rep, strikes))
    score = (lambda b, out, new: whole.score(out)) if game == "keglebillard" else \
        (lambda b, out, new: whole.score(out, states=b, new=new))
    v1, n1 = played_values(whole, rep, strikes, score, next_states=True)
    v2, n2 = played_values(sliced, rep, strikes, score, next_states=True)
    np.testing.assert_array_equal(v1, v2)
    assert [repr(s) for s in n1] == [repr(s) for s in n2]
    for agent in (PlannerAgent, GuidedPlannerAgent):
        kw = SMALL if agent is GuidedPlannerAgent else {"n_candidates": 6, "n_noise": 3}
        a = agent(game, arena=whole, **kw).act(states, np.random.default_rng(1))
        b = agent(game, arena=sliced, **kw).act(states, np.random.default_rng(1))
        np.testing.assert_array_equal(a.cue, b.cue)
        np.testing.assert_array_equal(a.place, b.place)
    for bad in (0, -1, 2.5, True, "4096"):
        with pytest.raises(ValueError, match="max_tables"):
            make_arena(game, max_tables=bad)
