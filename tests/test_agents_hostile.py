"""The public agent API used as a library, outside-in: agent specs and their options, the
helpers ``with_aim`` / ``with_leave`` and the label pools, and ``act`` / ``act_opening`` on
what a researcher may hand them. Each refusal is one ValueError naming the option and the
value; each test failed (a silent default, a traceback from deep inside, a strike on the wrong
table) before the fix it names."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from cuegym.agents import (
    RandomAgent,
    make_agent,
    make_arena,
    parse_options,
    play_games,
    pretrained_path,
    with_aim,
    with_leave,
)

HELMATCH = "keglebillard-helmatch"


@pytest.fixture(scope="module")
def kegle():
    return make_arena("keglebillard")


@pytest.fixture(scope="module")
def helmatch():
    return make_arena("keglebillard", table=HELMATCH)


# -- specs and options -------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["planner:noise=", "planner:n_noise=2,noise= ",
                                  "guided:policy=", "pretrained:aim=", "pretrained:leave=",
                                  "pretrained:entries=", "expert:select=", "geometric:spin="])
def test_an_empty_option_value_is_refused_not_read_as_null(spec):
    """``key=`` was YAML's null: ``planner:noise=`` planned without any noise,
    ``pretrained:aim=`` played the DQN without its aim correction and leave, ``guided:policy=``
    dropped the proposals, ``entries=`` / ``select=`` took the defaults, all without a word
    (agents/__init__.py: _options)."""
    key = spec.rsplit(",", 1)[-1].split(":")[-1].split("=")[0]
    with pytest.raises(ValueError, match=f"agent option '{key}= ?' has no value"):
        parse_options(spec)
    with pytest.raises(ValueError, match=f"agent option '{key}= ?' has no value"):
        make_agent(spec, "keglebillard")
    assert parse_options("planner:noise=null") == {"noise": None}  # None, when meant
    with pytest.raises(ValueError, match="name= needs a label"):  # its own message, as before
        make_agent("random:name=", "keglebillard")


def test_an_option_in_the_spec_and_as_a_keyword_is_refused():
    """``make_agent("planner:n_noise=2", game, n_noise=4)`` played 4 noise draws without a word,
    and a keyword ``name=""`` (or 3) skipped the spec's name check (make_agent)."""
    with pytest.raises(ValueError, match=r"'n_noise' is given twice: 2 in the spec "
                                         r"'planner:n_noise=2' and 4 as a keyword"):
        make_agent("planner:n_noise=2", "keglebillard", n_noise=4)
    for bad in ("", " ", 3):
        with pytest.raises(ValueError, match=f"name= needs a label .*got {bad!r}"):
            make_agent("random", "keglebillard", name=bad)
    assert make_agent("planner", "keglebillard", n_noise=3, name="p3").n_noise == 3


@pytest.mark.parametrize("spec", ["random", "geometric", "planner:n_candidates=2"])
def test_an_arena_that_is_no_arena_is_refused(spec):
    """``arena=3`` was taken by random and geometric (which then failed at the first move) and
    was an AttributeError ('TERMS') in the planner's constructor (make_agent)."""
    with pytest.raises(ValueError, match=r"arena must be an arena of "
                                         r"make_arena\('keglebillard'\), got 3"):
        make_agent(spec, "keglebillard", arena=3)


def test_a_path_of_another_kind_is_not_an_agent_name():
    """A ``.json`` or ``.ZIP`` path got "(did you mean 'pretrained'?)" from the folder name,
    and the list of what is known left the ``.pt`` paths out (make_agent)."""
    for spec in ("agents/pretrained/keglebillard.json", "agents/pretrained/keglebillard.ZIP"):
        with pytest.raises(ValueError) as e:
            make_agent(spec, "keglebillard")
        assert "a model path ends in .zip (a Stable-Baselines3 model) or .pt" in str(e.value)
        assert "did you mean" not in str(e.value)
    with pytest.raises(ValueError, match=r"did you mean 'planner'.*\(or a model \.zip or "
                                         r"expert network \.pt path\)"):
        make_agent("planer", "keglebillard")


@pytest.mark.skipif(pretrained_path("keglebillard") is None, reason="no shipped model")
@pytest.mark.parametrize("spec, says", [
    ("pretrained:aim=false", "aim=False: takes 'shipped', 'none' or a network .pt path "
                             "(aim=none plays without one)"),
    ("pretrained:aim=None", "aim='None': takes 'shipped', 'none' or a network .pt path "
                            "(did you mean 'none'?)"),
    ("pretrained:leave=Shipped", "(did you mean 'shipped'?)"),
    ("pretrained:aim=0", "aim=0: takes 'shipped', 'none'"),
])
def test_aim_and_leave_take_shipped_none_or_a_path(spec, says):
    """YAML's ``false`` / ``0`` and a case variant were looked up as a file: "no aim network
    False", after the model had been loaded (_network_value, before any loading)."""
    with pytest.raises(ValueError) as e:
        make_agent(spec, "keglebillard")
    assert says in str(e.value), str(e.value)


def test_an_aim_network_given_as_an_agent_says_how_it_is_used():
    """``make_agent("agents/pretrained/keglebillard_aim.pt")`` said only "is not an expert
    model" (expert.py: load_net)."""
    with pytest.raises(ValueError, match=r"keglebillard_aim.pt is an aim or leave network .*"
                                         r"pretrained:aim=<path> or leave=<path>"):
        make_agent("agents/pretrained/keglebillard_aim.pt", "keglebillard")


def test_guided_names_its_reply_and_refinement_settings():
    """The reply search's settings were refused as ``spins`` / ``terms``, and a huge
    ``refine_scale`` as ``jitter['phi']``: options the user never wrote (guided.py:
    GuidedPlannerAgent)."""
    for spec, says in (
            ("guided:reply_spins=[5]", r"reply_spins\[0\] must be a finite number in "
                                       r"\[-0.6, 0.6\], got 5"),
            ("guided:reply_spins=3", "reply_spins must be a list of back/top spins b, got 3"),
            ("guided:reply_terms={draw: 1}", r"unknown reply_terms key 'draw'; known: 'bih'"),
            ("guided:refine_scale=1e6", r"refine_scale=1000000.0 makes the refinement's "
                                        r"jitter\['phi'\] 1e\+06, more than 360")):
        with pytest.raises(ValueError, match=says):
            make_agent(spec + ",policy=none", "keglebillard")


def test_a_policy_network_of_the_other_game_is_named():
    """The guided planner's ``policy=<golfbillard network>`` on keglebillard said "the network
    plays golfbillard, the arena keglebillard" without naming the file (ExpertAgent)."""
    with pytest.raises(ValueError, match=r"the network agents/pretrained/golfbillard_expert.pt "
                                         r"plays golfbillard, the arena keglebillard"):
        make_agent("guided:policy=agents/pretrained/golfbillard_expert.pt", "keglebillard")


# -- the helpers ---------------------------------------------------------------------------------


def test_with_aim_and_with_leave_check_their_arguments(kegle):
    """with_aim("geometric", ...) was an AttributeError, with_aim(None, "none") returned None,
    aim=3 was "no aim network 3", a golfbillard arena (or 3) was taken and failed at the first
    move; with_leave's unknown setting ``wieght`` was ignored and ``kw=None`` a TypeError."""
    geo = make_agent("geometric", "keglebillard", arena=kegle)
    for agent in ("geometric", None):
        with pytest.raises(ValueError, match="with_aim wraps an Agent"):
            with_aim(agent, "none", kegle)
        with pytest.raises(ValueError, match="with_leave wraps an Agent"):
            with_leave(agent, "none", kegle, {})
    for aim in (3, True):
        with pytest.raises(ValueError, match=f"aim={aim!r}: takes 'shipped', 'none' or a "):
            with_aim(geo, aim, kegle)
    for arena, got in ((make_arena("golfbillard"), "a golfbillard arena"), (3, "3")):
        with pytest.raises(ValueError, match=r"arena must be a keglebillard arena "
                                             rf"\(make_arena\('keglebillard'\)\), got {got}"):
            with_aim(geo, "shipped", arena)
    with pytest.raises(ValueError, match=r"unknown leave setting 'wieght' \(did you mean "
                                         r"'weight'\?\)"):
        with_leave(geo, "none", kegle, {"wieght": 1.0})
    assert with_leave(geo, "none", kegle, None) is geo
    assert with_aim(geo, "none", kegle) is geo


def test_the_label_pool_helpers_check_their_arguments():
    """shares(5, 0) gave [] (five games lost without a word), shares(-5, 2) negative shares,
    shares(5.5, 2) floats; label_pool(0) ran in-process, label_pool(2.5) failed inside
    multiprocessing, period 0 spun a core and nan ended the watch thread (pool.py)."""
    from cuegym.agents.pool import label_pool, shares

    for total, workers, says in ((5, 0, "workers must be >= 1, got 0"),
                                 (5, 2.5, "workers must be an integer >= 1, got 2.5"),
                                 (-5, 2, "total must be >= 0, got -5"),
                                 (5.5, 2, "total must be an integer >= 0, got 5.5"),
                                 (True, 2, "total must be an integer >= 0, got True")):
        with pytest.raises(ValueError, match=says):
            shares(total, workers)
    assert shares(5, 2) == [3, 2] and shares(0, 3) == [0, 0, 0]
    for workers in (0, -1, 2.5, "2"):
        with pytest.raises(ValueError, match=f"workers must be .*got {workers!r}"):
            label_pool(workers)
    for period in (0, -1.0, float("nan"), float("inf"), True):
        with pytest.raises(ValueError, match="period must be a finite number of seconds > 0"):
            label_pool(2, period=period)
    with label_pool(1) as pool:
        assert pool is None


# -- acting ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["random", "geometric", "expert"])
def test_act_opening_is_golfbillards_only(kegle, spec):
    """A keglebillard agent's act_opening was an AttributeError ('GameState' object has no
    attribute 'xy') deep in the golfbillard rules (base.py: _check_opening)."""
    agent = make_agent(spec, "keglebillard", arena=kegle)
    with pytest.raises(ValueError, match="act_opening is golfbillard's G-3 opening; "
                                         "keglebillard has no opening stroke"):
        agent.act_opening(kegle.new_states(2), 0, np.random.default_rng(0))


def test_random_places_the_red_by_its_arena(helmatch):
    """``make_agent("random", ..., arena=helmatch)`` dropped the arena: a red in hand was placed
    in the kleinmatch's area by its salvo line, 16 of 40 break placements in front of the
    helmatch's salvo line (K-15 fouls) (random_agent.py: RandomAgent)."""
    states = helmatch.g.batch([list(helmatch.new_states(1))[0]] * 40)  # the break: in hand
    before = copy.deepcopy(states)
    agent = make_agent("random", "keglebillard", arena=helmatch)
    assert agent.arena is helmatch
    out = agent.act(states, np.random.default_rng(1))
    assert (out.place[:, 0] <= helmatch.salvo_x).all()
    assert out.place[:, 0].min() < -make_arena("keglebillard").hx  # the helmatch's whole area
    assert helmatch.placement_ok(states, out.place).all()
    assert np.array_equal(states.xy, before.xy, equal_nan=True)  # the caller's batch as it was
    with pytest.raises(ValueError, match="arena must be a keglebillard arena"):
        RandomAgent("keglebillard", arena=make_arena("golfbillard"))


def test_a_list_of_states_of_another_table_is_refused(kegle, helmatch):
    """A list of helmatch ``GameState`` values (each names its table) was played by a
    kleinmatch agent as kleinmatch positions (base.py: check_table)."""
    states = list(helmatch.new_states(2))
    rng = np.random.default_rng(0)
    for spec in ("geometric", "planner:n_candidates=2,n_noise=1", "expert"):
        with pytest.raises(ValueError, match=r"states\[0\] is a position on the table "
                                             r"'keglebillard-helmatch', and '\w+' plays on "
                                             r"'keglebillard'"):
            make_agent(spec, "keglebillard", arena=kegle).act(states, rng)
    assert len(make_agent("geometric", "keglebillard", arena=helmatch).act(states, rng)) == 2


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_act_on_0_1_and_many_tables_repeats_and_leaves_the_states_alone(game):
    """The acting contract of the cheap agents on both games (a guard; no failure found):
    one strike per state for 0, 1 and many tables, as a batch or a list; the same generator
    gives the same strikes; the states handed in are not changed."""
    arena = make_arena(game)
    got = []
    play_games(arena, [make_agent("random", game, arena=arena)] * 2, 3, seed=1, max_shots=4,
               observer=lambda g, s, m: got.append(s))
    batch = got[-1]
    for spec in ("random", "geometric", "planner:n_candidates=3,n_noise=1"):
        agent = make_agent(spec, game, arena=arena)
        for states in (batch, list(batch), batch.take([0]), batch.take([]), []):
            before = copy.deepcopy(states)
            a = agent.act(states, np.random.default_rng(5))
            b = agent.act(states, np.random.default_rng(5))
            assert len(a) == len(states) and np.array_equal(a.cue, b.cue)
            assert np.isfinite(a.cue).all()
            if len(states):
                assert np.array_equal(arena.g.batch(states).xy, arena.g.batch(before).xy,
                                      equal_nan=True)


@pytest.mark.parametrize("spec", ["pretrained:aim=shipped", "pretrained:leave=shipped",
                                  "agents/pretrained/golfbillard.zip:aim=shipped"])
def test_a_shipped_network_asked_for_where_none_is_shipped_is_refused(spec):
    """``aim=shipped`` / ``leave=shipped`` written out for golfbillard (which ships neither)
    played the model alone without a word (make_agent: _check_shipped); left out, the
    default still falls back to the model alone."""
    key = spec.split(":")[1].split("=")[0]
    with pytest.raises(ValueError, match=f"{key}=shipped: no {key} network is shipped for "
                                         f"golfbillard .*its model plays without one"):
        make_agent(spec, "golfbillard")


@pytest.mark.skipif(pretrained_path("keglebillard") is None, reason="no shipped model")
def test_ranked_entries_take_an_integer_count(kegle):
    """``ranked(states, 2.5)`` ranked 2 entries and ``ranked(states, True)`` one, without a word
    (int(k); sb3_agent.py: SB3Agent.ranked, leave.py: LeaveAwareAgent.ranked)."""
    dqn = make_agent("pretrained:aim=none,leave=none", "keglebillard", arena=kegle)
    leave = make_agent("pretrained:aim=none,leave=shipped,entries=3", "keglebillard",
                       arena=kegle)
    states = kegle.new_states(2)
    for agent in (dqn, leave):
        for k in (2.5, True, "2", 2.0):
            with pytest.raises(ValueError, match=f"k .* must be an integer, got {k!r}"):
                agent.ranked(states, k)
        assert len(agent.ranked(states, np.int64(2))) == 4
