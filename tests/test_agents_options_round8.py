"""The agents API refuses what it would silently get wrong or ignore (an outside audit, round 8):
a strikes/states length mismatch past one slice, a non-integer count of new states, options
that a setting turns off, empty option items, a model path object with a ':' in a folder
name, and act_opening's refusal naming itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import cuegym.agents as A


def _kegle_states(arena, n, shots=3, seed=0):
    """n keglebillard games a few shots in (random and geometric shots)."""
    rng = np.random.default_rng(seed)
    st = arena.new_states(n)
    agents = [A.make_agent(s, "keglebillard", arena=arena) for s in ("random", "geometric")]
    for k in range(shots):
        live = np.flatnonzero(~arena.overs(st))
        sub = arena.take(st, live)
        _, new = arena.step(sub, agents[k % 2].act(sub, rng))
        arena.put(st, live, new)
    return st


def _golf_states(arena, n, seed=0):
    """n golfbillard games just past the opening."""
    rng = np.random.default_rng(seed)
    st = arena.new_states(n)
    ag = A.make_agent("geometric", "golfbillard", arena=arena)
    return arena.opening(st, ag.act_opening(st, 0, rng), ag.act_opening(st, 1, rng))


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
@pytest.mark.parametrize("n_states,n_strikes", [(7, 5), (2, 7)])
def test_values_refuse_a_length_mismatch_whatever_max_tables(game, n_states, n_strikes):
    """Past max_tables a mismatch was scored on the first states, or an IndexError."""
    ar = A.make_arena(game, max_tables=3)
    st = _kegle_states(ar, 8) if game == "keglebillard" else _golf_states(ar, 8)
    st = ar.take(st, np.flatnonzero(~ar.overs(st))[:7])
    strikes = A.make_agent("geometric", game, arena=ar).act(st, np.random.default_rng(0))
    states = ar.take(st, np.arange(n_states))
    strikes = strikes.take(np.arange(n_strikes) % len(strikes))
    with pytest.raises(ValueError, match=f"{n_strikes} strikes for {n_states} states"):
        ar.values(states, strikes)


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
@pytest.mark.parametrize("n", [2.5, "3", True, None])
def test_new_states_refuse_a_count_that_is_not_an_integer(game, n):
    with pytest.raises(ValueError, match="n must be an integer"):
        A.make_arena(game).new_states(n)


@pytest.mark.parametrize("spec,says", [
    ("guided:policy=none,n_candidates=8,n_noise=2,n_top=0,n_next=1,discount=1000",
     "n_top=0 turns its stage off, so n_next, discount"),
    ("guided:policy=none,n_candidates=8,n_noise=2,n_top=0,n_recheck=40", "n_recheck"),
    ("guided:policy=none,n_candidates=8,n_noise=2,n_refine=0,refine_top=9",
     "n_refine=0 turns its stage off, so refine_top"),
    ("pretrained:entries=1,weight=5", "entries=1 leaves the leave network no choice"),
])
def test_options_a_setting_turns_off_are_refused(spec, says):
    with pytest.raises(ValueError, match=says):
        A.make_agent(spec, "keglebillard")


def test_a_stage_the_class_default_turns_off_counts_too():
    """The golfbillard preset does not refine (n_refine is the class default, 0)."""
    with pytest.raises(ValueError, match="n_refine=0 turns its stage off, so refine_top"):
        A.make_agent("guided:refine_top=2,refine_scale=0.9", "golfbillard")


def test_the_stages_options_are_taken_where_the_stage_runs():
    A.make_agent("guided:policy=none,n_candidates=8,n_noise=2,n_top=1,n_next=1,n_refine=0",
                 "keglebillard")
    A.make_agent("pretrained:entries=2,weight=0.5", "keglebillard")


def test_golf_idle_q_without_the_terms_that_read_it_is_refused():
    with pytest.raises(ValueError, match=r"idle_q'\] = 0.9 is read by the 'draw' and 'lead'"):
        A.make_agent("planner:n_candidates=4,n_noise=2,terms={idle_q: 0.9}", "golfbillard")
    A.make_agent("planner:n_candidates=4,n_noise=2", "golfbillard",
                 terms={"draw": -5.0, "idle_q": 0.9})


@pytest.mark.parametrize("spec", ["planner:n_noise=3,,", "planner:,n_noise=3", "planner:,"])
def test_empty_option_items_are_refused(spec):
    with pytest.raises(ValueError, match="hold an empty option"):
        A.make_agent(spec, "keglebillard")


def test_the_empty_option_list_is_the_preset():
    assert A.make_agent("planner:", "keglebillard").name == "planner"


def test_a_path_object_is_a_model_path_whatever_its_folders_are_called(tmp_path):
    d = tmp_path / "run:1"
    d.mkdir()
    shutil.copy(Path(A.__file__).parent / "pretrained" / "keglebillard_expert.pt", d / "m.pt")
    assert A.make_agent(d / "m.pt", "keglebillard").game == "keglebillard"
    assert A.parse_options(d / "m.pt") == {}


def test_act_opening_on_a_finished_match_names_act_opening():
    from cuegym.rules.golf_codes import P_OVER

    ar = A.make_arena("golfbillard")
    b = ar.g.batch(ar.new_states(1))
    b.phase[0] = P_OVER
    ag = A.make_agent("geometric", "golfbillard", arena=ar)
    with pytest.raises(ValueError, match=r"act_opening\(\)"):
        ag.act_opening(b, 0, np.random.default_rng(0))
