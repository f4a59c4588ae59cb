"""The evaluation an outside audit checked (round 8): a tournament's outputs replace an earlier
one's (its game records too), its output paths are checked before any game, the ratings refuse
counts that are not counts, an agent with no shot has no rates, an unknown game is named as
such, best-of-3 tournaments count matches and say so, and a docs figure the audit recomputed."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import cuegym.agents as agents_mod
from cuegym.agents import make_agent, make_arena, play_games
from cuegym.agents.ratings import bradley_terry, rating_groups
from cuegym.cli_errors import UsageError
from cuegym.experiments import evaluate

MAIN = evaluate.main.__wrapped__  # raw exceptions, no exit-code wrapper
DOCS = Path(evaluate.__file__).resolve().parents[1]


def _count_games(monkeypatch):
    calls = []
    orig = agents_mod.play_games

    def counting(*a, **kw):
        calls.append(1)
        return orig(*a, **kw)

    monkeypatch.setattr(agents_mod, "play_games", counting)
    return calls


# 1 (medium) ------------------------------------------------------------------------------
def test_save_games_leaves_no_records_of_an_earlier_run(tmp_path):
    """<out>/games must hold this tournament's records only (or the run must refuse/replace)."""
    base = ["--agents", "random,geometric", "--quiet", "--out", str(tmp_path)]
    MAIN(base + ["--games", "4", "--seed", "1", "--save-games", "4"])
    MAIN(base + ["--games", "2", "--seed", "7", "--save-games", "2"])
    seeds = {json.loads(p.read_text())["meta"]["tournament_seed"]
             for p in (tmp_path / "games").glob("*.json")}
    assert seeds == {7}, f"records of tournaments {sorted(seeds)} mixed in one games/ folder"
    assert len(list((tmp_path / "games").glob("*.json"))) == 2
    MAIN(base + ["--games", "2", "--seed", "7"])  # no records saved: the earlier ones go too
    assert list((tmp_path / "games").glob("*.json")) == []


def test_files_in_the_games_folder_other_than_records_are_kept(tmp_path):
    """Only a tournament's records go: the user's files stay, even named like records."""
    base = ["--agents", "random,geometric", "--quiet", "--out", str(tmp_path)]
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "notes.json").write_text("{}")
    (tmp_path / "games" / "my_notes_game001.json").write_text('{"mine": true}')
    MAIN(base + ["--games", "2", "--seed", "7", "--save-games", "1"])
    assert (tmp_path / "games" / "notes.json").exists()
    assert (tmp_path / "games" / "my_notes_game001.json").exists()


def test_a_tournaments_records_from_game_1000_on_are_replaced_too(tmp_path):
    from cuegym.experiments.evaluate import drop_earlier_records, earlier_records

    games = tmp_path / "games"
    games.mkdir()
    rec = {"format": "cuegym-game", "meta": {"tournament_seed": 1}}
    for name in ("a_vs_b_game999.json", "a_vs_b_game1000.json", "a_vs_b_game0001.json"):
        (games / name).write_text(json.dumps(rec))
    found = earlier_records(games)
    assert sorted(f.name for f in found) == ["a_vs_b_game0001.json", "a_vs_b_game1000.json",
                                             "a_vs_b_game999.json"]
    assert drop_earlier_records(found, [games / "a_vs_b_game999.json"]) == 2
    assert [f.name for f in games.iterdir()] == ["a_vs_b_game999.json"]


# 2 (medium) ------------------------------------------------------------------------------
@pytest.mark.parametrize("blocker", ["games_file", "results_dir"])
def test_bad_output_paths_refused_before_any_game(tmp_path, monkeypatch, blocker):
    if blocker == "games_file":
        (tmp_path / "games").write_text("")
        extra = ["--save-games", "1"]
    else:
        (tmp_path / "results.json").mkdir()
        extra = []
    calls = _count_games(monkeypatch)
    with pytest.raises((SystemExit, UsageError)):
        MAIN(["--agents", "random,geometric", "--games", "2", "--quiet", "--out", str(tmp_path)]
             + extra)
    assert not calls, f"{len(calls)} pair(s) played before the output path was refused"


# 3 (low) ---------------------------------------------------------------------------------
def test_docs_geometric_vs_random_golfbillard_rate_matches_round_robin():
    """docs/agents.md golfbillard round robin (100 games a pair, seed 0): wins 208/185/116/1 and
    the quoted pair rates give geometric 93 of 100 against random; README and the targets table
    quote 95 % 'from the round robin'."""
    W = np.array([[0, 40, 68, 100], [25, 0, 69, 91], [12, 11, 0, 93], [0, 0, 1, 0]], float)
    D = np.array([[0, 35, 20, 0], [35, 0, 20, 9], [20, 20, 0, 6], [0, 9, 6, 0]], float)
    r, _ = bradley_terry(W + 0.5 * D)
    assert np.allclose(np.round(r), [249, 203, 11, -463])  # the table's ratings: counts right
    rate = round(100 * W[2, 3] / (W[2, 3] + W[3, 2] + D[2, 3]))
    readme = (DOCS / "README.md").read_text()
    agents_md = (DOCS / "docs" / "agents.md").read_text()
    assert f"Geometric beats random (99 %, {rate} %)" in readme
    assert f"golfbillard {rate} %, 69 %" in agents_md


# 4 (low) ---------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [[[0, -3], [1, 0]], [[0, float("nan")], [1, 0]],
                                 [[1, 2, 3], [4, 5, 6]]])
def test_rating_groups_refuses_bad_counts(bad):
    with pytest.raises(ValueError, match="square matrix of non-negative counts"):
        rating_groups(bad)


def test_bradley_terry_refuses_text_counts():
    with pytest.raises(ValueError):
        bradley_terry([["0", "3"], ["1", "0"]])


# 5 (low) ---------------------------------------------------------------------------------
def test_stats_of_an_agent_without_shots_has_no_rates():
    arena = make_arena("keglebillard")
    ags = [make_agent(s, "keglebillard", arena=arena) for s in ("random", "geometric")]
    res = play_games(arena, ags, 1, seed=0, max_shots=1, swap=False)
    st = res.stats(1)
    assert st["shots"] == 0
    for k in ("points_per_shot", "foul_rate", "given_per_shot"):
        assert st[k] is None or math.isnan(st[k]), f"{k} = {st[k]!r} for an agent with no shot"


# 6 (low) ---------------------------------------------------------------------------------
def test_unknown_game_is_not_blamed_on_rules():
    with pytest.raises((UsageError, ValueError)) as e:
        evaluate.run_tournament("chess", ["random", "geometric"], 2, 0, quiet=True)
    assert "--rules" not in str(e.value) and "unknown game 'chess'" in str(e.value)


# 7 (low) ---------------------------------------------------------------------------------
def test_best_of_3_table_says_its_units_are_matches():
    res = evaluate.run_tournament("golfbillard", ["geometric", "random"], 2, 0, quiet=True,
                                  rules={"match": "best_of_3"})
    head = evaluate.format_table(res).splitlines()[0]
    # a tournament "game" here is a whole best-of-3 match (won/lost/Wilson/--max-shots per match)
    assert head.startswith("golfbillard: 2 matches (best of 3) per pair"), head
