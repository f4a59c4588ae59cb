"""experiments/evaluate.py (tournament and --benchmark), sixth outside audit: each test failed on
the code before its fix.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import cuegym.agents as agents_pkg
from cuegym.agents.ratings import wilson_interval
from cuegym.experiments import evaluate, tournament_report

ROOT = Path(evaluate.__file__).resolve().parents[1]


class Played(Exception):
    """Raised by the spies below: a game (or an env) was started."""


def _spy_play_games(monkeypatch, calls):
    def fake(*a, **k):
        calls.append(k.get("seed"))
        raise Played

    monkeypatch.setattr(agents_pkg, "play_games", fake)


# --- 1. a model path holding '=' after an agent with options ------------------------------

def test_a_model_path_with_equals_is_its_own_agent():
    """split_specs glued 'runs/lr=3e-4/best_model.zip' to the planner's options (a token with
    '=' and no ':'), so the tournament said 'needs at least two agents, got 1'."""
    assert evaluate.split_specs("planner:n_candidates=4,runs/lr=3e-4/best_model.zip") == [
        "planner:n_candidates=4", "runs/lr=3e-4/best_model.zip"]
    # what the rule is for still holds: an option continues the spec before it
    assert evaluate.split_specs("planner:n_candidates=4,n_noise=2,random") == [
        "planner:n_candidates=4,n_noise=2", "random"]


# --- 2. --seed near 2**63: the later pairs' seeds overflow after earlier pairs played -------

def test_a_seed_whose_pair_seeds_overflow_is_refused_before_any_game(monkeypatch, tmp_path,
                                                                       capsys):
    calls: list = []
    _spy_play_games(monkeypatch, calls)
    seed = 2**63 - 500  # pair 1 would play with seed + 1000 > 2**63 - 1
    code = evaluate.main(["--game", "golfbillard", "--agents", "geometric,random,geometric",
                          "--games", "1", "--seed", str(seed), "--quiet", "--out",
                          str(tmp_path / "o")])
    assert code == 2 and calls == []
    assert "--seed" in capsys.readouterr().err


# --- 3. run_tournament(save_games=...) without a folder --------------------------------------

def test_run_tournament_refuses_save_games_without_save_dir_before_the_games(monkeypatch):
    calls: list = []
    _spy_play_games(monkeypatch, calls)
    with pytest.raises(ValueError, match="save_dir"):
        evaluate.run_tournament("golfbillard", ["geometric", "random"], 2, 0, quiet=True,
                                save_games=1)
    assert calls == []


# --- 4. an agent that played no shot -------------------------------------------------------

def test_an_agent_without_shots_has_no_per_shot_rates():
    """With --max-shots 1 the second agent never shoots; it was reported with a 0.000 foul
    rate and 0.000 points a shot (a clean record it never played)."""
    res = evaluate.run_tournament("keglebillard", ["geometric", "random"], 1, 0, quiet=True,
                                  max_shots=1)
    r = res["agents"]["random"]
    assert r["shots"] == 0
    assert r["foul_rate"] is None and r["points_per_shot"] is None
    row = next(r for r in tournament_report.format_table(res).splitlines()
               if r.startswith("random "))
    assert "0.000" not in row, row  # n/a, not a clean record


# --- 5. display names stay unique ----------------------------------------------------------

def test_display_names_are_unique(tmp_path):
    specs = ["geometric", "geometric", str(tmp_path / "geometric#2.pt")]
    names = evaluate.display_names(specs)
    assert len(set(names)) == len(specs), names


# --- 6. --benchmark refuses a bad agent before any episode ------------------------------------

def test_benchmark_makes_every_agent_before_the_first_episode(monkeypatch, tmp_path, capsys):
    """The benchmark made each agent only when its turn came: 'random,planner,geometric:foo=1'
    ran random's and the planner's episodes, then stopped on geometric's unknown option
    (nothing written)."""
    import cuegym.envs as envs

    made: list = []

    def fake_env(*a, **k):
        made.append(a)
        raise Played

    monkeypatch.setattr(envs, "make_sb3_vec_env", fake_env)
    code = evaluate.main(["--benchmark", "--game", "golfbillard", "--agents",
                          "random,geometric:foo=1", "--episodes", "2", "--quiet",
                          "--benchmark-out", str(tmp_path / "b.md")])
    assert code == 2 and made == []
    assert "foo" in capsys.readouterr().err


# --- 7. the documented intervals match their counts --------------------------------------

def test_documented_win_intervals_match_their_counts():
    """docs/agents.md quotes 304-68-128 as 0.61 [0.57, 0.65] (Wilson of 304/500 is
    [0.5645, 0.6498]) and 183-102-215 as 0.37 [0.33, 0.41] (Wilson [0.3249, 0.4091]): the
    intervals of the rounded rate (305, 185), not of the counts."""
    bad = []
    for path in (ROOT / "README.md", ROOT / "docs" / "agents.md"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"(?<![\d-])(\d[\d,]*)-(\d[\d,]*)-(\d[\d,]*)(?![\d-])[^\[\n]{0,16}?"
                             r"(0\.\d+) \[(0\.\d+), (0\.\d+)\]", text):
            w, l_, d = (int(g.replace(",", "")) for g in m.group(1, 2, 3))
            if re.fullmatch(r"(19|20)\d\d", m.group(1)) and 1 <= l_ <= 12:
                continue  # a date (2026-12-07), not a tally
            lo, hi = m.group(5, 6)
            nd = len(lo.split(".")[1])
            clo, chi = wilson_interval(w, w + l_ + d)
            if (round(clo, nd), round(chi, nd)) != (float(lo), float(hi)):
                bad.append(f"{path.name}:{text.count(chr(10), 0, m.start()) + 1}: "
                           f"{m.group(0)!r} (Wilson {clo:.4f}, {chi:.4f})")
    assert not bad, "\n".join(bad)


# --- 8. golfbillard's random rule choices follow --seed ------------------------------------

def test_golf_random_rule_choices_are_seeded_by_the_tournament_seed(monkeypatch):
    """The games' own seeds (they drive spot_policy/pick_policy 'random') were 0..G-1 at any
    --seed: replica tournaments drew the same rule uniforms."""
    import sys

    from cuegym.agents import make_agent, make_arena, play_games
    from cuegym.rules import golf_views

    real = golf_views.policy_draws
    mods = [m for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith(
        "cuegym.") and getattr(m, "policy_draws", None) is real]
    arena = make_arena("golfbillard", {"spot_policy": "random"})
    ags = [make_agent(s, "golfbillard", arena=arena) for s in ("geometric", "random")]
    seeds = {}
    for tseed in (0, 12345):
        got: set = set()

        def spy(gs, rules, got=got):
            got.update(gs.seed.tolist())
            return real(gs, rules)

        for mod in mods:
            monkeypatch.setattr(mod, "policy_draws", spy)
        play_games(arena, ags, 4, seed=tseed, max_shots=20)
        seeds[tseed] = got
    assert seeds[0] != seeds[12345]


def test_golf_arena_refuses_bad_game_seeds():
    from cuegym.agents import make_arena

    arena = make_arena("golfbillard")
    assert arena.new_states(2, seeds=[5, 7]).seed.tolist() == [5, 7]
    for bad in ([1], [-1, 2], [0.5, 1.0]):
        with pytest.raises(ValueError, match="seeds must be 2 integers"):
            arena.new_states(2, seeds=bad)
