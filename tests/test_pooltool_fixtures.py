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

import math
from pathlib import Path

import pytest
from pooltool_support import TOL, event_times, sequence, simulate_fixtures

FIXTURE_DIR = Path(__file__).parent / "fixtures" / "pooltool"
FIXTURES = sorted(FIXTURE_DIR.glob("*.json"))
COLLISIONS = ("ball_ball", "ball_cushion", "ball_post")

#: Fixtures that are known to differ, with the analysis (docs/validation.md). Empty: every
#: fixture is expected to match.
KNOWN: dict[str, str] = {}


@pytest.fixture(scope="module")
def results() -> dict[str, tuple[dict, dict]]:
    """All fixtures simulated by cuegym in one batch: name -> (fixture, cuegym output)."""
    return simulate_fixtures(FIXTURES)


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
    # the cushion or post index is left out: the two simulators number them differently
    seq_pt = sequence(fx["pooltool"]["events"], COLLISIONS, ball_only=True)
    seq_us = sequence(ours["events"], COLLISIONS, ball_only=True)
    assert seq_us == seq_pt
    t_pt = event_times(fx["pooltool"]["events"], COLLISIONS)
    t_us = event_times(ours["events"], COLLISIONS)
    for k, (a, b) in enumerate(zip(t_pt, t_us, strict=True)):
        assert abs(a - b) <= 1e-6, f"{name}: collision {k} {seq_pt[k]} at {b} s, pooltool {a} s"
