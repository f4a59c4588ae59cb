"""cuegym.play game records: saved games and tournament games (``evaluate.py --save-games``)
re-simulate bit for bit; the referee's call names what happened."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from golf_outcomes import g12_kader_foul

from cuegym.play import record, session
from cuegym.play.call import golf_call, golf_question_call, kegle_call
from cuegym.play.match import LiveGame

ROOT = Path(__file__).resolve().parents[1]


def _agents_game(game, specs, seed, n_moves, **options):
    g = LiveGame(game, options, [{"kind": "agent", "agent": s} for s in specs], "tournament",
                 seed=seed)
    for _ in range(n_moves):
        if g.table.over(g.state):
            break
        g.agent_move()
    return g


@pytest.mark.parametrize("game, options", [("keglebillard", {"players": 3, "distance": 30}),
                                           ("golfbillard", {})])
def test_a_saved_game_replays_bit_identically(tmp_path, game, options):
    g = _agents_game(game, ["random", "geometric", "random"][: 3 if options else 2], 5, 12,
                     **options)
    assert len(g.shots) >= 6
    path = record.save(g, tmp_path)
    r = record.load_file(path)
    assert r.mode == "replay" and r.meta["verified"]
    assert json.dumps(r.table.state_json(r.state)) == json.dumps(g.table.state_json(g.state))
    for a, b in zip(r.shots, g.shots, strict=True):
        assert json.dumps(a.outcome) == json.dumps(b.outcome)
        assert a.anim == b.anim and a.call == b.call
    # the noise was drawn once: executed strikes differ from what the agents intended
    assert any(s.executed != s.intended for s in g.shots)


def test_a_record_that_does_not_chain_is_refused(tmp_path):
    g = _agents_game("keglebillard", ["geometric", "random"], 1, 3)
    rec = record.record_of(g)
    rec["shots"][1]["before"]["scores"] = [99, 0]
    with pytest.raises(session.PlayError, match="not where shot 0 left"):
        record.load_record(rec)


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_a_record_whose_final_state_seats_or_seed_are_false_is_refused(game):
    """A record's final state (which the records list reads to say finished or not), the seats
    of its shots, its seed, its noise and its shots' intended moves were taken unchecked and
    marked verified."""
    g = _agents_game(game, ["geometric", "random"], 1, 4)
    good = record.record_of(g)
    assert record.load_record(copy.deepcopy(good)).meta["verified"]
    rec = copy.deepcopy(good)
    rec["final"] = {"junk": 1}
    with pytest.raises(session.PlayError, match="'final' state is not where its shots leave"):
        record.load_record(rec)
    rec = copy.deepcopy(good)
    k = next(i for i, s in enumerate(rec["shots"]) if len(s["seats"]) == 1)
    rec["shots"][k]["seats"] = [1 - rec["shots"][k]["seats"][0]]
    with pytest.raises(session.PlayError, match=rf"shot {k}: seats \[\d\] did not play it"):
        record.load_record(rec)
    for seed in ({"a": 1}, -3, True):
        rec = copy.deepcopy(good)
        rec["seed"] = seed
        with pytest.raises(session.PlayError, match="seed must be null or an integer >= 0"):
            record.load_record(rec)
    for noise in ("loud", 3, None):  # the page shows the record's noise as the game's
        rec = copy.deepcopy(good)
        rec["noise"] = noise
        with pytest.raises(session.PlayError, match="noise must be one of"):
            record.load_record(rec)
    for intended in ("<b>x</b>", [1, 2], 7):  # echoed back with the shot
        rec = copy.deepcopy(good)
        rec["shots"][0]["intended"] = intended
        with pytest.raises(session.PlayError, match="shot 0: intended must be a move object"):
            record.load_record(rec)


@pytest.mark.parametrize("game, max_shots", [("keglebillard", 400), ("golfbillard", 24)])
def test_evaluate_save_games_writes_replayable_tournament_games(tmp_path, game, max_shots):
    from cuegym.experiments.evaluate import main

    out = tmp_path / "eval"
    rc = main(["--game", game, "--agents", "geometric,random", "--games", "2", "--seed", "3",
               "--save-games", "2", "--max-shots", str(max_shots), "--out", str(out),
               "--quiet"])
    assert rc == 0
    files = sorted((out / "games").glob("*.json"))
    assert [f.name for f in files] == ["geometric_vs_random_game000.json",
                                       "geometric_vs_random_game001.json"]
    listed = record.list_records(out)
    assert {x["meta"]["tournament"] for x in listed} == {"geometric_vs_random"}
    for f in files:
        r = record.load_file(f)  # re-simulates every shot and checks it
        rec = json.loads(f.read_text())
        assert r.meta["verified"] and len(r.shots) == len(rec["shots"]) > 0
        seats = [s["name"] for s in rec["seats"]]
        assert sorted(seats) == ["geometric", "random"]
    # seats alternate: game 1 has random in seat 0 (play_games swap)
    assert json.loads(files[1].read_text())["seats"][0]["name"] == "random"
    if game == "keglebillard":  # played to the end
        assert all(json.loads(f.read_text())["final"]["game_over"] for f in files)


def test_calls_name_points_fouls_skaeve_and_ball_in_hand():
    o = {"shooter": 0, "played": True, "points": 8, "penalty": 6, "foul": True,
         "fouls": ["K-12", "K-13"], "win": False, "shooter_points": 0, "skaeve": 14,
         "skaeve_to": [1, 2],
         "rodt": True, "blegt": False, "king_alone": False, "clean16": False,
         "pins_toppled": {"king": ["red"], "pin1": ["red"]}, "whites_pocketed": ["white"],
         "whites_waiting": [], "ball_in_hand": "salvo", "next_player": 1, "finished": [],
         "game_over": False, "ranking": None}
    lines = kegle_call(o, ["Ann", "Bo", "Cy"])
    # K-17: each opponent gets the full skæve ("14 to Bo, Cy" read as 14 shared)
    assert lines[0] == "Ann: foul — skæve 14 each to Bo and Cy (points 8 + penalty 6)"
    assert any(x.startswith("K-12:") for x in lines) and any(x.startswith("K-13:") for x in lines)
    assert "rødt (K-8), 2 pins down, pocketed: white" in lines
    assert "Bo has the red in hand, behind the salvo line (K-19)" in lines
    clean = {**o, "foul": False, "fouls": [], "shooter_points": 16, "skaeve": 0, "skaeve_to": [],
             "rodt": False, "clean16": True, "whites_pocketed": [], "ball_in_hand": None,
             "pins_toppled": dict.fromkeys(["king", "pin1", "pin2", "pin3", "pin4"], ["white"]),
             "game_over": True, "ranking": [0, 1, 2], "next_player": None}
    lines = kegle_call(clean, ["Ann", "Bo", "Cy"])
    assert lines[0] == "Ann scores 16 points" and "clean 16 (K-7), 5 pins down" in lines
    assert lines[-1] == "game over — 1. Ann, 2. Bo, 3. Cy"
    g = g12_kader_foul()
    lines = golf_call(g, ["W", "R"])
    assert lines[0].startswith("R: foul G-12")
    assert "r2 to penalty spot 2 (G-30)" in lines
    assert "kader play (G-20): a ball did not leave its kader (G-21)" in lines
    assert lines[-1] == "turn passes to W"


def test_calls_speak_to_you_and_name_the_sides():
    """The person called "You" (the lobby's default) gets "You score", not "You scores"; a duo
    side ("A & B") takes a plural verb too; the opening names the sides, not "side 0"."""
    o = {"shooter": 0, "played": True, "points": 4, "penalty": 0, "foul": False, "fouls": [],
         "win": False, "shooter_points": 4, "skaeve": 0, "skaeve_to": [], "rodt": False,
         "blegt": False, "king_alone": False, "clean16": False, "pins_toppled": {},
         "whites_pocketed": [], "whites_waiting": [], "ball_in_hand": None, "next_player": 0,
         "finished": [], "game_over": False, "ranking": None}
    assert kegle_call(o, ["You", "Bo"]) == ["You score 4 points", "You keep the turn (K-25)"]
    assert kegle_call(o, ["Ann", "Bo"])[0] == "Ann scores 4 points"
    op = {"opening": True, "reason": "side 1 lost the opening (its ball did not cross x = 0, or "
          "it fouled or struck another ball than its middle ball)", "fouls": [],
          "scored_balls": [], "spotted": [], "first": 0}
    lines = golf_call(op, ["You", "geometric"])
    assert lines[0] == ("opening (G-3): geometric lost the opening (their ball did not cross "
                        "x = 0, or they fouled or struck another ball than their middle ball)")
    assert lines[-1] == "You take the first turn"
    op = {**op, "reason": "side 0's ball stopped nearer its attack goal", "first": 0}
    assert golf_call(op, ["You", "R"])[0] == ("opening (G-3): your ball stopped nearer your "
                                              "attack goal")
    assert golf_call(op, ["A & B", "C & D"])[-1] == "A & B take the first turn"
    assert "side 0" not in " ".join(golf_call(op, ["W", "R"]))
    q = {"kind": "spot", "ball": "w4", "options": [1, 2], "text": "choose a penalty spot for w4 "
         "(G-30)"}
    assert golf_question_call(None, ["W", "You"], "You", q) == [
        "You choose a penalty spot for w4 (G-30)"]


def test_strike_checks():
    assert session.parse_strike({"V0": 2, "phi": 270})[1] == -90.0
    for bad, needle in (({"V0": float("nan"), "phi": 0}, "finite"),
                        ({"phi": 0}, "V0 is required"),
                        ({"V0": 9, "phi": 0}, "out of range"),
                        ({"V0": 2, "phi": 0, "theta": -1}, "theta"),
                        ({"V0": 2, "phi": 0, "a": 0.5, "b": 0.5}, "off the cue ball"),
                        ([2, 0], "must be an object")):
        with pytest.raises(session.PlayError, match=needle):
            session.parse_strike(bad)
    assert np.isfinite(session.parse_strike({"V0": 0.05, "phi": -180})).all()


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_replay_cli_writes_a_gif_of_a_game_between_two_agents(tmp_path, game, capsys):
    import imageio.v2 as imageio

    from cuegym.experiments.replay import main

    out = tmp_path / f"{game}.gif"
    assert main(["--game", game, "--agents", "geometric,random", "--max-shots", "3",
                 "--fps", "4", "--out", str(out)]) == 0
    frames = imageio.mimread(out)
    assert len(frames) >= 3 and frames[0].shape[1] == 800
    assert main(["--agents", "geometric", "--out", str(tmp_path / "x.gif")]) == 2  # one line
    assert "--agents needs two agents" in capsys.readouterr().err
