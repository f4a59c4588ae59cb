"""The agent interface: strikes, shot noise, names, the arenas' bookkeeping."""

from __future__ import annotations

import numpy as np
import pytest

from cuegym.agents import (
    GeometricAgent,
    PlannerAgent,
    RandomAgent,
    Strikes,
    load_noise,
    make_agent,
    make_arena,
    play_games,
)


def test_strikes_shapes_take_put_concat_clip():
    s = Strikes.empty(3)
    assert s.cue.shape == (3, 5) and s.cue_ball.shape == (3,) and s.place.shape == (3, 2)
    assert np.isnan(s.place).all()
    t = Strikes([[9.0, 190.0, 70.0, 0.9, 0.9]], [0], [[0.1, 0.2]])
    s.put([1], t)
    assert s.cue[1, 0] == 9.0 and s.place[1].tolist() == [0.1, 0.2]
    c = s.clipped()
    assert c.cue[1, 0] <= 8.0 and -180 <= c.cue[1, 1] < 180 and c.cue[1, 2] <= 60.0
    assert np.hypot(c.cue[1, 3], c.cue[1, 4]) <= 0.6 + 1e-12
    both = Strikes.concat([s, t])
    assert len(both) == 4 and len(both.take([0, 3])) == 2


def test_shot_noise_presets_and_validity():
    rng = np.random.default_rng(0)
    assert load_noise("none").is_zero
    t = load_noise("tournament")
    assert t.phi == pytest.approx(0.125) and t.V0 == pytest.approx(0.075)
    assert load_noise(2).phi == pytest.approx(0.25)
    with pytest.raises(ValueError, match="shot-noise preset"):
        load_noise("loud")
    cue = np.array([[0.0, 0.0, 0.0, 0.95, 0.0]])
    out = load_noise(10).sample(cue, 200, rng)
    assert out.shape == (1, 200, 5)
    assert (out[..., 0] >= 0).all() and (out[..., 2] >= 0).all()
    assert (np.hypot(out[..., 3], out[..., 4]) <= 1.0).all()
    s = Strikes(np.tile([2.0, 10.0, 0.0, 0.0, 0.0], (4, 1)), np.zeros(4), np.full((4, 2), 0.1))
    assert np.array_equal(load_noise("none").apply(s, rng).cue, s.cue)


def test_make_agent_names_options_and_errors(capsys):
    assert isinstance(make_agent("random", "keglebillard"), RandomAgent)
    assert isinstance(make_agent("geometric", "golfbillard"), GeometricAgent)
    p = make_agent("planner:n_candidates=8,n_noise=2", "keglebillard")
    assert isinstance(p, PlannerAgent) and p.n_candidates == 8 and p.n_noise == 2
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("oracle", "keglebillard")
    with pytest.raises(ValueError, match="unknown game"):
        make_agent("random", "snooker")
    with pytest.raises(FileNotFoundError):
        make_agent("runs/none/model.zip", "keglebillard")


def test_pretrained_is_never_a_fake(capsys):
    from cuegym.agents import pretrained_aim_path, pretrained_path

    for game in ("keglebillard", "golfbillard"):
        ag = make_agent("pretrained", game)
        if pretrained_path(game) is None:
            assert ag.name == "pretrained=planner"
            assert "resolves to the best available agent" in capsys.readouterr().err
        else:  # keglebillard: the model, choosing by its shipped leave, through the aim
            model = ag
            while hasattr(model, "base"):
                model = model.base
            assert ag.name == "pretrained" and type(model).__name__ == "SB3Agent"
            assert type(ag).__name__ == ("AimCorrectedAgent" if pretrained_aim_path(game)
                                         else "SB3Agent")


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_agents_return_one_valid_strike_per_state(game):
    arena = make_arena(game)
    rng = np.random.default_rng(3)
    # a few states from a short game between random agents
    res_states = []
    states = arena.new_states(3)
    if game == "golfbillard":
        ag = RandomAgent(game)
        s0 = [ag.act_opening(states, side, rng) for side in (0, 1)]
        states = arena.opening(states, *s0)
        states = [s for s in states if s.phase == "play"] or states
    res_states += states
    for agent in (RandomAgent(game), GeometricAgent(game, arena),
                  PlannerAgent(game, n_candidates=6, n_noise=2, arena=arena)):
        st = [s for s in res_states if getattr(s, "phase", "play") == "play"]
        if not st:
            continue
        out = agent.act(st, rng)
        assert len(out) == len(st) and np.isfinite(out.cue).all()
        for s, b, pl in zip(st, out.cue_ball, out.place, strict=True):
            if game == "keglebillard":
                assert b == 0
                assert np.isnan(pl).all() == (s.ball_in_hand is None)
            else:
                from cuegym.rules.golfbillard import SIDE_OF

                assert SIDE_OF[b] == s.to_move and not np.isnan(s.xy[b, 0])


def test_play_games_is_reproducible_and_swaps_seats():
    arena = make_arena("keglebillard")
    a, b = GeometricAgent("keglebillard", arena), RandomAgent("keglebillard")
    r1 = play_games(arena, [a, b], 4, seed=5)
    r2 = play_games(arena, [a, b], 4, seed=5)
    assert r1.winner.tolist() == r2.winner.tolist()
    assert [s.points for s in r1.shots] == [s.points for s in r2.shots]
    assert r1.seats.tolist() == [[0, 1], [1, 0], [0, 1], [1, 0]]
    st = r1.stats(0)
    assert st["games"] == 4 and st["shots"] > 0 and 0 <= st["foul_rate"] <= 1
    with pytest.raises(ValueError, match="plays"):
        play_games(arena, [a, RandomAgent("golfbillard")], 1)


def test_play_games_on_a_list_of_states_equals_the_batch():
    """An arena wrapper that keeps games as a list of GameState values (e.g. to record them by
    identity) plays exactly the games of the batched path."""
    arena = make_arena("keglebillard")

    class ListArena:
        def __init__(self):
            self.seen = set()

        def __getattr__(self, name):
            return getattr(arena, name)

        def new_states(self, n, **seeds):
            return list(arena.new_states(n, **seeds))

        def step(self, states, strikes):
            assert isinstance(states, list)
            assert all(id(s) in self.seen for s in states if s.shot > 0)
            rec, new = arena.step(states, strikes)
            self.seen.update(id(s) for s in new)
            return rec, new

    a, b = GeometricAgent("keglebillard", arena), RandomAgent("keglebillard")
    r1 = play_games(arena, [a, b], 4, seed=2, max_shots=60)
    r2 = play_games(ListArena(), [a, b], 4, seed=2, max_shots=60)
    assert r1.winner.tolist() == r2.winner.tolist() and r1.scores == r2.scores
    assert r1.n_shots.tolist() == r2.n_shots.tolist()


def _finished_pair(game: str, arena):
    """Two states of ``game``, the second a finished game / match: as a batch and as a list."""
    import dataclasses

    if game == "keglebillard":
        live = arena.g.new_state(2)
        over = dataclasses.replace(live, game_over=True, finished=(0,), lost=(1,),
                                   scores=(arena.g.rules.distance, 3), to_play=None)
        return arena.g.batch([live, over]), [live, over]
    from cuegym.rules.golf_codes import P_OVER, P_PLAY

    batch = arena.new_states(2)
    batch.phase[:] = P_PLAY, P_OVER  # as after an alternate opening (G-3): side 0 to play
    return batch, list(batch)


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_every_agent_refuses_rng_none_and_finished_games_alike(game):
    """rng=None is a ValueError naming rng for every agent (was: AttributeError for random and
    planner, silently accepted by the others); a finished game anywhere in the batch is a
    ValueError naming its index in the caller's batch (was: a silent strike, numpy's "a cannot
    be empty", or the row of a planner's internal candidate batch)."""
    arena = make_arena(game)
    batch, listed = _finished_pair(game, arena)
    rng = np.random.default_rng(0)
    what = "game" if game == "keglebillard" else "match"
    for spec in ("random", "geometric", "planner:n_candidates=6,n_noise=2", "guided",
                 "pretrained", "expert"):
        agent = make_agent(spec, game, arena=arena)
        live = batch.take([0])
        with pytest.raises(ValueError, match=r"rng must be a numpy.random.Generator .*got None"):
            agent.act(live, None)
        with pytest.raises(ValueError, match="rng must be one numpy.random.Generator"):
            agent.act(live, [np.random.default_rng(0)])
        for states in (batch, listed):
            with pytest.raises(ValueError, match=rf"states\[1\]: the {what} is over"):
                agent.act(states, rng)
        with pytest.raises(ValueError, match=rf"states\[0\]: the {what} is over \(2 of the 3"):
            agent.act(batch.take([1, 0, 1]), rng)
    # the draws of a live batch are untouched by the check: same generator, same strikes
    rnd = RandomAgent(game)
    a = rnd.act(batch.take([0, 0]), np.random.default_rng(4))
    b = rnd.act(batch.take([0, 0]), np.random.default_rng(4))
    assert np.array_equal(a.cue, b.cue)


def test_the_checks_run_once_before_the_agent_works():
    """The shared check (Agent.__init_subclass__) refuses before a subclass's act runs, and
    act_opening refuses a finished match the same way, and a position past the opening."""
    from cuegym.agents.base import Agent

    calls = []

    class Spy(Agent):
        game = "golfbillard"

        def act(self, states, rng):
            calls.append(len(states))
            return Strikes.empty(len(states))

    arena = make_arena("golfbillard")
    batch, _ = _finished_pair("golfbillard", arena)
    spy = Spy()
    with pytest.raises(ValueError, match=r"states\[1\]: the match is over"):
        spy.act(batch, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng must be"):
        spy.act(batch.take([0]), None)
    assert calls == []
    assert len(spy.act(batch.take([0]), np.random.default_rng(0))) == 1 and calls == [1]
    with pytest.raises(ValueError, match=r"states\[1\]: the match is over"):
        spy.act_opening(batch, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng must be"):
        spy.act_opening(batch.take([0]), 0, None)
    # act_opening takes opening positions: a turn's position was struck as an opening
    with pytest.raises(ValueError, match=r"states\[0\]: the game is past its G-3 opening"):
        spy.act_opening(batch.take([0]), 1, np.random.default_rng(0))
    assert len(spy.act_opening(arena.new_states(1), 1, np.random.default_rng(0))) == 1


def test_unreadable_model_files_are_named_not_tracebacks(tmp_path):
    """A model file that is not what it says (garbage, cut short, empty, a zip member spoilt)
    is a ValueError naming the file, for the expert's and aim networks' .pt and SB3's .zip."""
    import zipfile
    from pathlib import Path

    from cuegym.agents.aim import load_aim

    shipped = Path(__file__).resolve().parents[1] / "agents" / "pretrained"
    files = {"garbage.pt": b"garbage", "empty.pt": b"",
             "cut.pt": (shipped / "keglebillard_expert.pt").read_bytes()[:300],
             "garbage.zip": b"garbage",
             "cut.zip": (shipped / "keglebillard.zip").read_bytes()[:3000]}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    with zipfile.ZipFile(shipped / "keglebillard.zip") as src, \
            zipfile.ZipFile(tmp_path / "spoilt.zip", "w") as dst:
        for member in src.namelist():
            dst.writestr(member, b"garbage" if member == "policy.pth" else src.read(member))
    for name in [*files, "spoilt.zip"]:
        path = str(tmp_path / name)
        with pytest.raises(ValueError, match="is not a readable") as e:
            make_agent(path, "keglebillard")
        assert path in str(e.value)
    with pytest.raises(ValueError, match="garbage.pt is not a readable aim network file"):
        load_aim(tmp_path / "garbage.pt")


@pytest.mark.parametrize("spec, says", [
    ("geometric:spin={}", "spin must be a number, got {}"),
    ("geometric:spin=3", "spin must be in [-0.6, 0.6] ball radii (the agents' cue-tip limit), "
                         "got 3"),
    ("guided:discount={a: 1}", "discount must be a number"),
    ("guided:n_refine=4,refine_scale=none", "refine_scale must be a number, got 'none'"),
    ("guided:n_candidates=2.5", "n_candidates must be an integer"),
    ("planner:spins=[0,0.2]", "is not a YAML value (options are separated by commas"),
])
def test_agent_option_values_are_checked_by_name(spec, says):
    with pytest.raises(ValueError) as e:
        make_agent(spec, "golfbillard")
    assert says in str(e.value), str(e.value)


@pytest.mark.parametrize("spec, says", [
    # was: accepted, then a 7 TiB allocation or an OverflowError at the first move
    ("planner:n_candidates=1000000000000", "simulated shots a move, more than 1,048,576"),
    ("planner:n_noise=10000000000", "n_candidates x n_noise = 32 x 10000000000"),
    ("guided:n_top=1000,n_next=6,reply_candidates=1000", "= 18,012,128 simulated shots a move"),
    ("planner:terms={draw: 1e308}", "terms['draw'] must be a finite number in [-1000000.0, "),
    ("planner:jitter={phi: 1e300}", "jitter['phi'] must be at most 360 (the whole range of phi)"),
    ("guided:discount=1e308", "discount must be at most 1e+06, got 1e+308"),
    ("planner:noise=1e300", "noise scale 1e+300 is above 61.5, the most the tournament noise "
     "takes: its a deviation would be"),
    ("planner:noise={phi: 400}", "noise.phi must be at most 360 deg"),
])
def test_search_budgets_weights_noise_and_jitter_are_bounded(spec, says):
    with pytest.raises(ValueError) as e:
        make_agent(spec, "golfbillard")
    assert says in str(e.value), str(e.value)
    assert make_agent("planner:noise=61.5", "golfbillard").noise.name == "tournament*61.5"


def test_model_paths_that_are_missing_or_folders_are_named(tmp_path):
    """A folder named like a model failed deep inside zipfile or torch (IsADirectoryError);
    both cases are now ValueErrors naming the path (and still FileNotFoundErrors)."""
    for name in ("d.zip", "d.pt"):
        (tmp_path / name).mkdir()
    cases = [(f"{tmp_path}/d.zip", "d.zip is a folder, not a model file"),
             (f"{tmp_path}/d.pt", "d.pt is a folder, not an expert model file"),
             (f"pretrained:leave={tmp_path}/d.pt", "d.pt is a folder, not a leave network"),
             (f"pretrained:aim={tmp_path}/nope.pt", "no aim network"),
             (f"{tmp_path}/nope.zip", "no model file")]
    for spec, says in cases:
        with pytest.raises(ValueError, match=says) as e:
            make_agent(spec, "keglebillard")
        assert isinstance(e.value, FileNotFoundError)


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_act_refuses_any_item_that_is_not_a_state(game):
    agent = make_agent("geometric", game)
    rng = np.random.default_rng(0)
    for bad, says in (([None], "got states[0] of type NoneType"),
                      (["x"], "got states[0] of type str"),
                      ({}, "got dict"), ({1}, "got set")):  # was: AttributeErrors, or {} -> 0
        with pytest.raises(ValueError) as e:
            agent.act(bad, rng)
        assert str(e.value).startswith(f"act() takes a batch of {game}") and \
            str(e.value).endswith(says)


def test_golfbillard_act_refuses_states_in_their_opening():
    """Every agent but the planner returned some strike for a G-3 opening state; the planner
    failed inside the arena. act() is a turn's stroke; act_opening plays the opening."""
    arena = make_arena("golfbillard")
    states = arena.new_states(2)
    for spec in ("random", "geometric", "planner:n_candidates=2,n_noise=1"):
        with pytest.raises(ValueError, match=r"states\[0\]: the game is in its G-3 opening "
                                             r"\(2 of the 2 states are\); act_opening"):
            make_agent(spec, "golfbillard").act(states, np.random.default_rng(0))
        out = make_agent(spec, "golfbillard").act_opening(states, 0, np.random.default_rng(0))
        assert len(out) == 2


def test_arena_numbers_are_checked_not_truncated():
    """Were ``int()``/``float()``: n_players 2.5 played 2 players, "3" played 3, True became 1
    (and the error named 1); max_events 2.5 became 2; play_games on a 3-player arena failed
    with an IndexError deep in the seats, and took n_games 2.5 as 2."""
    from cuegym.agents.arena import GolfbillardArena, KeglebillardArena
    from cuegym.agents.head_to_head import play_games

    for bad, msg in ((2.5, "got 2.5"), ("3", "got '3'"), (True, "got True"), (1, "got 1"),
                     (1001, "got 1001")):
        with pytest.raises(ValueError, match=f"n_players must be an integer.*{msg}"):
            KeglebillardArena(n_players=bad)
    for arena in (KeglebillardArena, GolfbillardArena):
        with pytest.raises(ValueError, match="max_events must be an integer, got 2.5"):
            arena(max_events=2.5)
        with pytest.raises(ValueError, match="t_max"):
            arena(t_max="60")
    agents = [make_agent("random", "keglebillard")] * 2
    with pytest.raises(ValueError, match="two-seat games; the arena has n_players = 3"):
        play_games(KeglebillardArena(n_players=3), agents, 4)
    arena = KeglebillardArena()
    with pytest.raises(ValueError, match="n_games must be an integer, got 2.5"):
        play_games(arena, agents, 2.5)
    with pytest.raises(ValueError, match="max_shots must be an integer >= 1, got 0"):
        play_games(arena, agents, 2, max_shots=0)
    assert len(play_games(arena, agents, np.int64(2), max_shots=3).winner) == 2
