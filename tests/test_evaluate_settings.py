"""``experiments/evaluate.py --table / --rules``: tournaments off the default setting, and their
saved game records (``--save-games``), which must name the setting and re-simulate on it.

Before: evaluate.py had no table or rules option (a tournament was always on the default
setting), and ``cuegym.play.record.save_tournament_games`` re-simulated every recorded game on
the default setting, so a record of a tournament on another table or rules would have been
written wrongly (or raised).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuegym.play import record, session
from cuegym.play.session import PlayError

ROOT = Path(__file__).resolve().parents[1]
HELMATCH = "keglebillard-helmatch"


def _evaluate(tmp_path: Path, *argv: str, out: str = "eval") -> Path:
    from cuegym.experiments.evaluate import main

    rc = main(["--agents", "geometric,random", "--seed", "3", "--quiet",
               "--out", str(tmp_path / out), *argv])
    assert rc == 0
    return tmp_path / out


def _records(out: Path) -> list[tuple[dict, object]]:
    """Each saved record of ``out`` (a tournament's --out) and its replay (re-simulated and
    checked shot by shot by ``record.load_file``)."""
    files = sorted((out / "games").glob("*.json"))
    assert files
    return [(json.loads(f.read_text()), record.load_file(f)) for f in files]


def _check_replays_identically(rec: dict, r) -> None:
    assert r.meta["verified"] and len(r.shots) == len(rec["shots"]) > 0
    for shot, replayed in zip(rec["shots"], r.shots, strict=True):
        assert json.dumps(replayed.outcome) == json.dumps(shot["outcome"])
        assert json.dumps(replayed.after) == json.dumps(shot["after"])
    assert json.dumps(r.table.state_json(r.state)) == json.dumps(rec["final"])


def _same_games(rec: dict) -> object:
    """The tournament's games again, from the record's meta alone (its setting, the pair's
    seed): ``play_games`` on ``make_arena(game, meta.rules, table=meta.table)``."""
    from cuegym.agents import make_agent, make_arena, play_games

    meta = rec["meta"]
    arena = make_arena(rec["game"], meta.get("rules"), **(
        {"table": meta["table"]} if "table" in meta else {}))
    agents = [make_agent(s, rec["game"], arena=arena) for s in ("geometric", "random")]
    return play_games(arena, agents, meta["games_per_pair"], seed=meta["pair_seed"],
                      max_shots=meta["max_shots"])


# ---------------------------------------------------------------------------------------------
# golfbillard duo, best of 3
# ---------------------------------------------------------------------------------------------


def test_golf_duo_best_of_3_tournament_records_replay_on_its_setting(tmp_path):
    out = _evaluate(tmp_path, "--game", "golfbillard", "--games", "2", "--max-shots", "200",
                    "--save-games", "2", "--rules", "duo=true", "match=best_of_3")
    res = json.loads((out / "results.json").read_text())
    assert res["table"] == "golfbillard"
    assert res["rules"] == {"match": "best_of_3", "duo": True}
    recs = _records(out)
    assert len(recs) == 2
    again = _same_games(recs[0][0])
    for g, (rec, r) in enumerate(recs):
        # the web table's options name the setting: a duo best-of-3 match, four seats
        assert rec["options"]["duo"] is True and rec["options"]["match"] == "best_of_3"
        assert r.table.duo and r.table.match == "best_of_3" and r.table.players == 4
        assert rec["meta"]["table"] == "golfbillard"
        assert rec["meta"]["rules"] == {"match": "best_of_3", "duo": True}
        names = [s["name"] for s in rec["seats"]]
        first = "geometric" if g == 0 else "random"  # seats alternate (play_games swap)
        second = "random" if g == 0 else "geometric"
        assert names == [f"{first} 1", f"{first} 2", f"{second} 1", f"{second} 2"]
        assert [s["agent"] for s in rec["seats"]] == [first, first, second, second]
        _check_replays_identically(rec, r)
        # a match of best of 3: one side won two games (the default setting plays one game)
        final = rec["final"]
        assert final["phase"] == "over" and max(final["match"]["games_won"]) == 2
        # the duo's partners alternate: both partners of a side shot
        assert {k for s in rec["shots"] for k in s["seats"]} == {0, 1, 2, 3}
        assert int(again.n_shots[g]) == len(rec["shots"])  # the tournament's own games


def test_golf_duo_records_do_not_replay_as_singles(tmp_path):
    """The record's options are what its replay plays: the same shots as a single game on
    the default setting do not re-simulate (the recorder once always used the default)."""
    out = _evaluate(tmp_path, "--game", "golfbillard", "--games", "1", "--max-shots", "30",
                    "--save-games", "1", "--rules", "duo=true", "match=best_of_3")
    rec, _ = _records(out)[0]
    rec["options"] = {"duo": False, "match": "single"}
    rec["seats"] = rec["seats"][::2]
    with pytest.raises(PlayError):
        record.load_record(rec)


# ---------------------------------------------------------------------------------------------
# keglebillard: another distance, the helmatch table
# ---------------------------------------------------------------------------------------------


def test_kegle_distance_tournament_records_replay_on_its_setting(tmp_path):
    out = _evaluate(tmp_path, "--game", "keglebillard", "--games", "2", "--save-games", "2",
                    "--rules", "distance=30")
    res = json.loads((out / "results.json").read_text())
    assert (res["table"], res["rules"]) == ("keglebillard", {"distance": 30})
    recs = _records(out)
    again = _same_games(recs[0][0])
    for g, (rec, r) in enumerate(recs):
        assert rec["options"] == {"players": 2, "distance": 30}
        assert rec["meta"]["rules"] == {"distance": 30}
        _check_replays_identically(rec, r)
        scores = rec["final"]["scores"]
        assert rec["final"]["game_over"] and max(scores) >= 30 and max(scores) < 70
        assert int(again.n_shots[g]) == len(rec["shots"])


def test_helmatch_tournament_records_replay_on_the_helmatch_table(tmp_path):
    """The web table plays the helmatch table (its option ``table``): a helmatch tournament's
    records name it and replay on it (they were refused: the web table had no such option)."""
    out = _evaluate(tmp_path, "--game", "keglebillard", "--table", HELMATCH, "--games", "2",
                    "--max-shots", "40", "--save-games", "2")
    res = json.loads((out / "results.json").read_text())
    assert (res["table"], res["rules"]) == (HELMATCH, {})
    recs = _records(out)
    again = _same_games(recs[0][0])
    for g, (rec, r) in enumerate(recs):
        assert rec["options"]["table"] == HELMATCH
        assert rec["meta"]["table"] == HELMATCH and rec["meta"]["rules"] == {}
        assert r.table.arena.table.name == HELMATCH
        assert r.table.geometry()["length"] == 2.84  # the page draws the table played on
        _check_replays_identically(rec, r)
        assert int(again.n_shots[g]) == len(rec["shots"])
    # the same shots on the kleinmatch (the default setting) do not re-simulate
    rec = recs[0][0]
    rec["options"] = {k: v for k, v in rec["options"].items() if k != "table"}
    with pytest.raises(PlayError):
        record.load_record(rec)


def test_save_games_on_a_setting_the_web_table_cannot_replay_is_refused_first(tmp_path,
                                                                             capsys):
    """No record is written that its replay would load on another setting, or not at all:
    the refusal comes before any game is played."""
    from cuegym.experiments.evaluate import main

    # the web table plays either keglebillard table but has no rule option ``variant``
    cases = [(["--rules", "variant=ddbu"], "variant=ddbu"),
             (["--table", HELMATCH, "--rules", "variant=ddbu"],
              f"table '{HELMATCH}', variant=ddbu")]
    with pytest.raises(PlayError, match="variant"):  # the web table has no variant option
        session.make_table("keglebillard", {"players": 2, "distance": 70, "variant": "ddbu"})
    for argv, named in cases:
        with pytest.raises(SystemExit) as e:
            main(["--game", "keglebillard", "--agents", "geometric,random", "--games", "1",
                  "--save-games", "1", "--quiet", "--out", str(tmp_path / "x"), *argv])
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert "--save-games: games on" in err and named in err
        assert "cannot be saved as game records" in err
        assert not (tmp_path / "x").exists()


# ---------------------------------------------------------------------------------------------
# the default setting: records as before
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game, explicit, options", [
    ("keglebillard", ["--table", "keglebillard", "--rules", "distance=70"],
     {"players": 2, "distance": 70}),
    ("golfbillard", ["--table", "golfbillard", "--rules", "match=single", "duo=false"],
     {"duo": False, "match": "single"})])
def test_a_default_setting_tournament_records_as_before(tmp_path, game, explicit, options):
    """The default setting given explicitly writes the very records of a tournament without
    the options, and those are as before: the web table's default options, no setting in
    meta."""
    common = ["--game", game, "--games", "2", "--max-shots", "24", "--save-games", "2"]
    plain = _evaluate(tmp_path, *common, out="plain")
    named = _evaluate(tmp_path, *common, *explicit, out="named")
    files = sorted((plain / "games").glob("*.json"))
    assert [f.name for f in files] == ["geometric_vs_random_game000.json",
                                       "geometric_vs_random_game001.json"]
    for f in files:
        assert f.read_bytes() == (named / "games" / f.name).read_bytes()
        rec = json.loads(f.read_text())
        assert rec["options"] == options
        assert set(rec["meta"]) == {"tournament", "game_index", "tournament_seed", "pair_seed",
                                    "games_per_pair", "max_shots"}
        assert [s["name"] for s in rec["seats"]] in (["geometric", "random"],
                                                     ["random", "geometric"])
        assert record.load_file(f).meta["verified"]
    res = json.loads((plain / "results.json").read_text())
    assert res["table"] == game and res["rules"] == {}


# ---------------------------------------------------------------------------------------------
# the options themselves
# ---------------------------------------------------------------------------------------------


def test_rules_from_a_yaml_file_and_words_later_over_earlier(tmp_path):
    from cuegym.experiments.evaluate import run_tournament, tournament_arena
    from cuegym.experiments.train_config import parse_rules

    f = tmp_path / "r.yaml"
    f.write_text("duo: true\nmatch: best_of_3\n")
    assert parse_rules([str(f), "match=single"]) == {"duo": True, "match": "single"}
    assert parse_rules(["deciding_openers=[1, 0]", "duo=true"]) == {
        "deciding_openers": [1, 0], "duo": True}
    assert parse_rules(None) is None
    # the shipped rules file is found as configs/... from any directory
    shipped = parse_rules(["configs/rules/golfbillard.yaml"])
    assert shipped["match"] == "best_of_3"
    assert tournament_arena("golfbillard", None, shipped).rules.match == "best_of_3"
    res = run_tournament("golfbillard", ["geometric", "random"], 1, 0, max_shots=6, quiet=True,
                         rules={"duo": True})
    assert res["rules"] == {"duo": True} and res["table"] == "golfbillard"


def test_the_table_and_figure_name_the_setting(tmp_path):
    from cuegym.experiments.evaluate import run_tournament
    from cuegym.experiments.tournament_report import format_table

    res = run_tournament("keglebillard", ["geometric", "random"], 1, 0, max_shots=4,
                         quiet=True, table=HELMATCH, rules={"distance": 50})
    head = format_table(res).splitlines()[0]
    assert f"table {HELMATCH}" in head and "rules distance=50" in head
    res = run_tournament("keglebillard", ["geometric", "random"], 1, 0, max_shots=4,
                         quiet=True)
    assert "table" not in format_table(res).splitlines()[0]


@pytest.mark.parametrize("argv, message", [
    (["--table", "helmatch"], "--table 'helmatch': unknown table 'helmatch'"),
    (["--table", ""], "--table '': give a table"),
    (["--game", "golfbillard", "--table", HELMATCH],
     f"--table '{HELMATCH}': table '{HELMATCH}': golfbillard is played on its one table"),
    (["--table", "golfbillard"], "--table 'golfbillard':"),
    (["--rules", "dou=true"], "--rules dou=true: unknown keglebillard rule option"),
    (["--game", "golfbillard", "--rules", "match=best_of_5"],
     "--rules match=best_of_5: rules.match must be one of"),
    (["--rules", "distance=0"], "--rules distance=0: rules.distance must be a positive"),
    (["--game", "golfbillard", "--rules", "duo=true,match=best_of_3"],
     "--rules 'duo=true,match=best_of_3': one KEY=VALUE per word"),
    (["--rules", "no_such_rules.yaml"], "--rules 'no_such_rules.yaml': no rules file"),
    (["--rules", "distance=[1"], "--rules distance: '[1' is not valid YAML"),
    (["--rules", "first_player=lag"], "--rules first_player=lag: rules first_player='lag'"),
    (["--benchmark", "--table", HELMATCH], "--table: --benchmark would ignore it"),
    (["--benchmark", "--rules", "distance=50"], "--rules: --benchmark would ignore it"),
])
def test_bad_table_and_rules_are_refused_naming_the_value(tmp_path, capsys, argv, message):
    from cuegym.experiments.evaluate import main

    out = tmp_path / "never"
    with pytest.raises(SystemExit) as e:
        main(["--agents", "geometric,random", "--quiet", *argv]
             + ([] if "--benchmark" in argv else ["--games", "1", "--out", str(out)]))
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert not out.exists()


def test_rules_file_that_is_not_a_mapping_is_refused(tmp_path, capsys):
    from cuegym.experiments.evaluate import main

    f = tmp_path / "r.yaml"
    f.write_text("- duo\n")
    with pytest.raises(SystemExit):
        main(["--game", "golfbillard", "--agents", "geometric,random", "--games", "1",
              "--rules", str(f), "--out", str(tmp_path / "o")])
    assert "a rules file holds a mapping of rule options, got list" in capsys.readouterr().err


def test_cuegym_evaluate_has_the_same_options(capsys):
    from cuegym import cli

    with pytest.raises(SystemExit) as e:
        cli.main(["evaluate", "--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "--table" in text and "--rules" in text
    with pytest.raises(SystemExit) as e:
        cli.main(["evaluate", "--table", "nope", "--games", "1"])
    assert e.value.code == 2
    assert "cuegym evaluate: error: --table 'nope': unknown table 'nope'" in \
        capsys.readouterr().err


@pytest.mark.parametrize("spec, name", [
    ("/x/agents/pretrained/keglebillard_expert.pt", "keglebillard_expert"),
    ("runs/golfbillard_expert/model.pt", "golfbillard_expert"),
    ("runs/kegle_dqn/best_model.zip", "kegle_dqn*"),
    ("/x/keglebillard.zip:deterministic=false", "keglebillard:deterministic=false"),
    ("planner:n_candidates=12", "planner:n_candidates=12"),
])
def test_model_paths_get_short_names(spec, name):
    """A model path is shown by its file's or run's name in tables, JSON keys and figures, a
    ``.pt`` network as a ``.zip`` model (a full .pt path squeezed the figure's panels)."""
    from cuegym.experiments.evaluate import short_name

    assert short_name(spec) == name


# --- replay --table (audit s49: replay had no way to draw a helmatch game) ------------------

@pytest.mark.parametrize("mode", [["--what", "shot"], ["--what", "game", "--max-shots", "2"],
                                  ["--agents", "geometric,random", "--max-shots", "2"]])
def test_replay_plays_and_draws_the_table_given(mode, tmp_path, capsys, monkeypatch):
    from cuegym.envs import render, render_shots
    from cuegym.experiments.replay import main

    seen = []
    make = render.kegle_renderer

    def spy(table_name, *a, **k):
        seen.append(table_name)
        return make(table_name, *a, **k)

    monkeypatch.setattr(render, "kegle_renderer", spy)
    monkeypatch.setattr(render_shots, "kegle_renderer", spy)  # the animation's frames
    out = tmp_path / "r.gif"
    assert main([*mode, "--table", HELMATCH, "--fps", "2", "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["frames"] > 0 and out.stat().st_size > 0
    assert seen and set(seen) == {HELMATCH}


def test_replay_refuses_a_table_its_game_does_not_have(capsys):
    from cuegym.experiments.replay import main

    with pytest.raises(SystemExit) as e:
        main(["--game", "golfbillard", "--table", HELMATCH])
    assert e.value.code == 2 and "golfbillard is played on its one table" in \
        capsys.readouterr().err


# --- rules new / play --table (audit s49: always the kleinmatch) -----------------------------

def test_rules_new_and_play_take_the_table(capsys):
    from cuegym.rules.__main__ import main

    assert main(["new", "--table", HELMATCH, "--players", "3"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["table"] == HELMATCH and st["balls"]["white"] == [-0.71, 0.0]
    assert main(["play", "--table", HELMATCH, "--max-shots", "2", "--seed", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["state"]["table"] == HELMATCH


@pytest.mark.parametrize("argv, says", [
    (["new", "--table", "bogus"], "unknown keglebillard table 'bogus'; use one of "
                                  "['keglebillard', 'keglebillard-helmatch']"),
    (["new", "--table", "golfbillard"], "unknown keglebillard table 'golfbillard'"),
    (["play", "--game", "golfbillard", "--table", HELMATCH],
     "golfbillard is played on its one table ('golfbillard')"),
])
def test_rules_new_and_play_refuse_a_table_the_game_lacks(argv, says, capsys):
    from cuegym.rules.__main__ import main

    assert main(argv) == 2
    assert says in capsys.readouterr().err
