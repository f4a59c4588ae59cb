"""The agents' API, sixth outside audit (each test failed before its fix): a keglebillard state
batch of another table refused by every agent; a malformed state batch a ValueError naming the
caller's field and row; the agent classes' arena checked; ExpertAgent.value's states checked;
the golfbillard random agent never pushing where a direction is free; idle_q and the value
terms' values checked; make_arena's rules (a YAML path for both games, a wrong type named);
play_games' swap and position_values' side checked (docs/agents.md)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cuegym.agents import (
    GeometricAgent,
    GuidedPlannerAgent,
    PlannerAgent,
    make_agent,
    make_arena,
    play_games,
)
from cuegym.games.strikes import Strikes

ROOT = Path(__file__).resolve().parents[1]

SMALL_GUIDED = {"n_candidates": 6, "n_noise": 1, "n_policy": 0, "policy": "none", "n_top": 1,
                "n_next": 1, "reply_candidates": 2, "reply_noise": 1}
SMALL_GUIDED_SPEC = "guided:n_candidates=6,n_noise=1,n_policy=2,n_top=1,n_recheck=1,n_next=1," \
                    "reply_candidates=2,reply_noise=1"
SPECS = ["random", "geometric", "pretrained", "expert", "planner:n_candidates=4,n_noise=1"]


def _positions(arena, game, n_games=3, max_shots=4):
    """The states of the last round of a few geometric games (a batch, none over)."""
    got = []
    play_games(arena, [make_agent("geometric", game, arena=arena)] * 2, n_games, seed=0,
               max_shots=max_shots, observer=lambda g, s, m: got.append(s))
    return got[-1]


@pytest.fixture(scope="module")
def helmatch_batch():
    helm = make_arena("keglebillard", table="keglebillard-helmatch")
    return _positions(helm, "keglebillard", 2, 3)


@pytest.fixture(scope="module")
def played():
    """Each game's arena and a batch of its positions in play."""
    out = {}
    for game in ("keglebillard", "golfbillard"):
        arena = make_arena(game)
        out[game] = arena, _positions(arena, game)
    return out


# -- a KegleStates batch of another table ---------------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
def test_a_batch_of_another_table_is_refused(helmatch_batch, spec):
    assert helmatch_batch.table == "keglebillard-helmatch"
    agent = make_agent(spec, "keglebillard", arena=make_arena("keglebillard"))
    with pytest.raises(ValueError, match="keglebillard-helmatch"):
        agent.act(helmatch_batch, np.random.default_rng(0))


def test_a_batch_of_the_agents_own_table_is_played(helmatch_batch):
    helm = make_arena("keglebillard", table="keglebillard-helmatch")
    out = make_agent("geometric", "keglebillard", arena=helm).act(helmatch_batch,
                                                                   np.random.default_rng(0))
    assert len(out) == len(helmatch_batch) and np.isfinite(out.cue).all()


# -- a malformed state batch ----------------------------------------------------------------

CASES = {
    "keglebillard": [("hand", lambda s: s.hand.__setitem__(1, 7)),
                     ("to_play", lambda s: s.to_play.__setitem__(1, 9)),
                     ("xy", lambda s: s.xy.__setitem__((1, 1), (np.inf, 0.0)))],
    "golfbillard": [("to_move", lambda s: s.to_move.__setitem__(1, 5)),
                    ("phase", lambda s: s.phase.__setitem__(1, 9)),
                    ("xy", lambda s: s.xy.__setitem__((1, 0), (3.0, 0.0)))],
}


@pytest.mark.parametrize("game", list(CASES))
@pytest.mark.parametrize("spec", SPECS)
def test_a_malformed_batch_is_a_value_error_naming_the_field(played, game, spec):
    arena, base = played[game]
    agent = make_agent(spec, game, arena=arena)
    for field, mutate in CASES[game]:
        states = base.copy()
        mutate(states)
        # the row the caller gave (1), not a row of an internal repeated batch
        with pytest.raises(ValueError) as e:
            agent.act(states, np.random.default_rng(0))
        assert field in str(e.value) and any(w in str(e.value) for w in
                                             ("[1", "table 1", "states[1]")), (field, e.value)


def test_a_random_agent_without_an_arena_checks_a_batch_too(played):
    _, base = played["keglebillard"]
    states = base.copy()
    states.hand[1] = 7
    with pytest.raises(ValueError, match=r"hand\[1\]"):
        make_agent("random", "keglebillard").act(states, np.random.default_rng(0))


# -- the agent classes' arena ---------------------------------------------------------------


@pytest.mark.parametrize("cls, kw", [(GeometricAgent, {}),
                                     (PlannerAgent, {"n_candidates": 2, "n_noise": 1}),
                                     (GuidedPlannerAgent, SMALL_GUIDED)])
@pytest.mark.parametrize("game, other", [("golfbillard", "keglebillard"),
                                         ("keglebillard", "golfbillard")])
def test_agent_classes_refuse_an_arena_of_the_other_game(cls, kw, game, other):
    with pytest.raises(ValueError, match="arena"):
        cls(game, arena=make_arena(other), **kw)
    with pytest.raises(ValueError, match="arena"):
        cls(game, arena="not an arena", **kw)


# -- ExpertAgent.value ----------------------------------------------------------------------


@pytest.mark.parametrize("game, other", [("keglebillard", "golfbillard"),
                                         ("golfbillard", "keglebillard")])
def test_expert_value_refuses_what_act_refuses(game, other):
    ex = make_agent("expert", game, arena=make_arena(game))
    for bad in (make_arena(other).new_states(2), np.zeros((2, 40))):
        with pytest.raises(ValueError, match="states"):
            ex.value(bad)


def test_expert_value_names_a_malformed_batch(played):
    arena, base = played["keglebillard"]
    ex = make_agent("expert", "keglebillard", arena=arena)
    assert ex.value(base).shape == (len(base),)
    states = base.copy()
    states.to_play[1] = 9
    with pytest.raises(ValueError, match=r"to_play\[1\]"):
        ex.value(states)


# -- the golfbillard random agent never pushes ----------------------------------------------


def test_random_golf_agent_never_pushes_when_a_free_direction_exists(played):
    arena, base = played["golfbillard"]
    st = base.take([0])
    R = arena.R
    xy = np.full((10, 2), np.nan)
    xy[0] = (0.835, 0.05575 + 0.0175 + R + 1e-5)          # on the +x goal's cap
    a = math.radians(100)
    xy[6] = xy[0] + (2 * R + 1e-5) * np.array([math.cos(a), math.sin(a)])
    xy[1], xy[5], xy[7] = (-0.5, 0.0), (-0.3, 0.2), (0.0, -0.3)
    st.xy[0] = xy
    st.to_move[0] = 0
    agent = make_agent("random", "golfbillard", arena=arena)
    pushes = 0
    for seed in range(40):
        recs, _ = arena.step(st, agent.act(st, np.random.default_rng(seed)))
        pushes += "G-13" in recs[0].rules
    assert pushes == 0


def test_the_free_direction_keeps_its_margin_and_is_none_when_hemmed_in():
    from cuegym.rules.golfbillard_game import _FREE_MARGIN, _free_direction

    def unit(deg):
        return np.array([math.cos(math.radians(deg)), math.sin(math.radians(deg))])

    # frozen below (-90) and at 100 degrees: free from 0 to 10 degrees
    got = _free_direction([unit(-90), unit(100)], -90.0)
    assert 0.0 < got % 360 < 10.0
    assert max(float(unit(got) @ unit(-90)), float(unit(got) @ unit(100))) < 0
    got = _free_direction([unit(0)], 170.0)  # the aim itself is free: kept
    assert got == pytest.approx(170.0)
    got = _free_direction([unit(0)], 30.0)  # the nearer edge, a margin inside it
    assert got == pytest.approx(90.0 + _FREE_MARGIN)
    assert _free_direction([unit(0), unit(180)], 0.0) is None  # only along the contacts
    assert _free_direction([unit(0), unit(120), unit(240)], 0.0) is None


# -- idle_q and the value terms -------------------------------------------------------------


@pytest.mark.parametrize("spec", ["planner", SMALL_GUIDED_SPEC])
@pytest.mark.parametrize("terms", [{"draw": -40.0, "idle_q": 2.0}, {"idle_q": -3.0},
                                   {"draw": -40.0, "idle_q": 1.0}])
def test_idle_q_outside_0_1_is_refused_when_the_agent_is_made(spec, terms):
    with pytest.raises(ValueError, match="idle_q"):
        make_agent(spec, "golfbillard", terms=terms)


def test_reply_terms_idle_q_is_refused_when_the_guided_planner_is_made():
    with pytest.raises(ValueError, match=r"reply_terms\['idle_q'\]"):
        GuidedPlannerAgent("golfbillard", reply_terms={"idle_q": 1.5}, **SMALL_GUIDED)


@pytest.mark.parametrize("terms", [{"game": float("nan")}, {"foul": "x"},
                                   {"bih": float("inf")}, {"foul": True}])
def test_keglebillard_values_refuse_a_term_that_is_not_a_finite_number(terms):
    arena = make_arena("keglebillard")
    states = arena.new_states(2)
    strikes = Strikes.of(np.tile([2.0, 10.0, 0, 0, 0], (2, 1)),
                         place=np.tile([-0.8, 0.0], (2, 1)))
    with pytest.raises(ValueError, match=f"terms\\['{next(iter(terms))}'\\]"):
        arena.values(states, strikes, terms=terms)


@pytest.mark.parametrize("terms", [{"keep": float("nan")}, {"position": "1"},
                                   {"idle_q": 1.0}, {"idle_q": -0.1}])
def test_golfbillard_values_refuse_bad_term_values(played, terms):
    arena, base = played["golfbillard"]
    states = base.take([0, 1])
    strikes = make_agent("geometric", "golfbillard", arena=arena).act(
        states, np.random.default_rng(0))
    with pytest.raises(ValueError, match=f"terms\\['{next(iter(terms))}'\\]"):
        arena.values(states, strikes, terms=terms)


# -- make_arena's rules ---------------------------------------------------------------------


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
@pytest.mark.parametrize("rules", [5, True, "single", [1]])
def test_make_arena_refuses_rules_of_a_wrong_type_naming_rules(game, rules):
    with pytest.raises(ValueError, match="rules"):
        make_arena(game, rules)


def test_make_arena_takes_a_rules_file_for_both_games_alike(tmp_path):
    make_arena("keglebillard", ROOT / "configs" / "rules" / "keglebillard.yaml")
    golf = make_arena("golfbillard", str(ROOT / "configs" / "rules" / "golfbillard.yaml"))
    assert golf.rules.match == "best_of_3"  # the file as written
    own = tmp_path / "single.yaml"
    own.write_text("match: single\nduo: true\n")
    rules = make_arena("golfbillard", own).rules
    assert rules.match == "single" and rules.duo
    (tmp_path / "list.yaml").write_text("- 1\n")
    with pytest.raises(ValueError, match="mapping"):
        make_arena("golfbillard", tmp_path / "list.yaml")
    with pytest.raises(ValueError, match="folder"):
        make_arena("golfbillard", tmp_path)


# -- play_games' swap, position_values' side ------------------------------------------------


@pytest.mark.parametrize("swap", ["no", "false", None, 2.5])
def test_play_games_refuses_a_swap_that_is_not_a_bool(swap):
    arena = make_arena("keglebillard")
    agents = [make_agent("geometric", "keglebillard", arena=arena),
              make_agent("random", "keglebillard", arena=arena)]
    with pytest.raises(ValueError, match="swap"):
        play_games(arena, agents, 2, seed=0, swap=swap, max_shots=2)


@pytest.mark.parametrize("side", [2, -1, 0.7, 1.9])
def test_position_values_refuse_a_side_that_is_not_0_or_1(side):
    G = make_arena("golfbillard")
    xy = G.new_states(1).xy[:1].copy()
    with pytest.raises(ValueError, match="side"):
        G.position_values(xy, np.array([side]))
    with pytest.raises(ValueError, match="side"):
        G.position_value(xy[0], side)


def test_position_values_of_sides_0_and_1_are_read():
    G = make_arena("golfbillard")
    xy = G.new_states(1).xy[:1].copy()
    xy[0, 0] = (0.6, 0.0)  # w1 in front of its attack goal (+x)
    both = G.position_values(np.concatenate([xy, xy]), np.array([0, 1]))
    assert both[0] == G.position_value(xy[0], 0) and both[1] == G.position_value(xy[0], 1)
    assert G.position_value(xy[0], np.int64(1)) == both[1]
    with pytest.raises(ValueError, match="side"):
        G.position_value(xy[0], True)
