"""Regression shots against pooltool 0.6.0, without pooltool installed (issue 3).

Each file in ``tests/fixtures/pooltool/`` holds one random shot from
``experiments/validate_pooltool.py`` (its ``source`` says which command and index) as a cuegym
JSON shot object: the struck ball already carries pooltool's post-strike velocity and spin, so
no strike model is involved. Beside it are pooltool's final positions and its ordered
ball-ball / ball-cushion / ball-post collisions. The shots were picked by pooltool alone
(shots whose pooltool result moves by less than 0.1 mm when the cue ball's speed changes by
1e-9 m/s, spread over ball counts and posts), not by how well cuegym does on them.
Method: docs/validation.md.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

FIXTURE_DIR = Path(__file__).parent / "fixtures" / "pooltool"
FIXTURES = sorted(FIXTURE_DIR.glob("*.json"))
TOL = 1e-3  # [m] every ball within 1 mm of pooltool
COLLISIONS = ("ball_ball", "ball_cushion", "ball_post")

#: Fixtures that are known to differ, with the analysis (docs/validation.md). Empty: every
#: fixture is expected to match.
KNOWN: dict[str, str] = {}


def _sequence(events: list[dict]) -> list[tuple]:
    """(type, ball agents) of each collision, in order; ball-ball agents sorted. The cushion
    or post index is left out: the two simulators number them differently."""
    seq = []
    for e in events:
        if e["type"] not in COLLISIONS:
            continue
        if e["type"] == "ball_ball":
            seq.append((e["type"], tuple(sorted(str(a) for a in e["agents"]))))
        else:
            seq.append((e["type"], (str(e["agents"][0]),)))
    return seq


@pytest.fixture(scope="module")
def results() -> dict[str, tuple[dict, dict]]:
    """All fixtures simulated by cuegym in one batch: name -> (fixture, cuegym output)."""
    from cuegym.physics import simulate_json

    data = [json.loads(p.read_text()) for p in FIXTURES]
    out = simulate_json([d["shot"] for d in data])
    return {p.name: (d, o) for p, d, o in zip(FIXTURES, data, out, strict=True)}


def test_fixtures_present() -> None:
    assert len(FIXTURES) >= 20, f"expected the pooltool fixtures in {FIXTURE_DIR}"


def _maybe_known(name: str) -> None:
    if name in KNOWN:
        pytest.xfail(KNOWN[name])


@pytest.mark.parametrize("name", [p.name for p in FIXTURES])
def test_final_positions_match_pooltool(results, name: str) -> None:
    _maybe_known(name)
    fx, ours = results[name]
    assert not ours["overflow"], f"{name}: cuegym overflowed"
    errs = {}
    for bid, p in fx["pooltool"]["final"].items():
        q = ours["final"][bid]
        errs[bid] = math.hypot(q["x"] - p["x"], q["y"] - p["y"])
    worst = max(errs, key=errs.get)
    assert errs[worst] <= TOL, (
        f"{name}: ball {worst} ends {errs[worst] * 1e3:.3f} mm from pooltool "
        f"(pooltool {fx['pooltool']['final'][worst]}, cuegym {ours['final'][worst]})")


@pytest.mark.parametrize("name", [p.name for p in FIXTURES])
def test_collision_sequence_matches_pooltool(results, name: str) -> None:
    _maybe_known(name)
    fx, ours = results[name]
    seq_pt = _sequence(fx["pooltool"]["events"])
    seq_us = _sequence(ours["events"])
    assert seq_us == seq_pt
    t_pt = [e["time"] for e in fx["pooltool"]["events"] if e["type"] in COLLISIONS]
    t_us = [e["time"] for e in ours["events"] if e["type"] in COLLISIONS]
    for k, (a, b) in enumerate(zip(t_pt, t_us, strict=True)):
        assert abs(a - b) <= 1e-6, f"{name}: collision {k} {seq_pt[k]} at {b} s, pooltool {a} s"
