"""Regression shots against pooltool 0.6.0 on tables with pockets, without pooltool installed.

Each file in ``tests/fixtures/pooltool_pockets/`` holds one random shot of
``experiments/validate_pooltool.py --table keglebillard|golfbillard`` (its ``source`` says which
command and index) as a cuegym JSON shot object on the shipped table, no pins: the struck ball
already carries pooltool's post-strike velocity and spin. Beside it are pooltool's final
positions with each ball's pocket, its ordered ball-ball / ball-cushion (straight cushions and
jaws) / ball-post / ball-pocket events, and the ``geometry`` pooltool was given (cuegym's own
segments, ``TableSpec.arrays``). The runner names every cushion, jaw, post and pocket as cuegym
does, so the sequences are compared agent by agent. The shots were picked by pooltool alone
(pooltool moves less than 0.1 mm when the cue ball's speed changes by 1e-9 m/s; spread over how
many balls pooltool pocketed and ball counts), not by how well cuegym does on them.
Method: docs/validation.md, "Tables with pockets".
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from pooltool_support import TOL, event_times, sequence, simulate_fixtures

FIXTURE_DIR = Path(__file__).parent / "fixtures" / "pooltool_pockets"
FIXTURES = sorted(FIXTURE_DIR.glob("*.json"))
EVENTS = ("ball_ball", "ball_cushion", "ball_post", "ball_pocket")


@pytest.fixture(scope="module")
def results() -> dict[str, tuple[dict, dict]]:
    """All fixtures simulated by cuegym in one batch: name -> (fixture, cuegym output)."""
    return simulate_fixtures(FIXTURES)


def _pocketed(fx: dict) -> list[tuple[str, int]]:
    return [(b, p["pocket"]) for b, p in fx["pooltool"]["final"].items()
            if p["pocket"] is not None]


def test_fixtures_present() -> None:
    tables = {json.loads(p.read_text())["shot"]["table"] for p in FIXTURES}
    assert len(FIXTURES) >= 6, f"expected the pocketed pooltool fixtures in {FIXTURE_DIR}"
    assert tables == {"keglebillard", "golfbillard"}, tables
    assert sum(bool(_pocketed(json.loads(p.read_text()))) for p in FIXTURES) >= 3


@pytest.mark.parametrize("name", [p.name for p in FIXTURES])
def test_geometry_is_the_tables(name: str) -> None:
    """The segments pooltool was given are still the shipped table's: a changed config makes
    the fixture stale (rerun the command in its ``source``)."""
    from cuegym.configs import CIRCLE_JAW, load_params, load_table

    fx = json.loads((FIXTURE_DIR / name).read_text())
    shot, geom = fx["shot"], fx["geometry"]
    table = load_table(shot["table"])
    arrs = table.arrays(load_params(table.game, **shot["params"]))
    assert (geom["length"], geom["width"], geom["cushion_height"]) == (
        table.length, table.width, table.cushion_height)
    assert geom["lines"] == arrs["lines"].tolist()
    ours = [[c[0], c[1], c[2], c[3], c[4], c[5], "jaw" if k == CIRCLE_JAW else "post"]
            for c, k in zip(arrs["circles"].tolist(), arrs["circle_kind"].tolist(), strict=True)]
    theirs = [[c["x"], c["y"], c["radius"], c["e"], c["f"], c["h"], c["kind"]]
              for c in geom["circles"]]
    assert theirs == ours
    assert [[p["x"], p["y"], p["radius"]] for p in geom["pockets"]] == arrs["pockets"].tolist()


@pytest.mark.parametrize("name", [p.name for p in FIXTURES])
def test_final_positions_match_pooltool(results, name: str) -> None:
    """Every ball on the table within 1 mm of pooltool; every pocketed ball in the same
    pocket (and at its centre: test_pocketed_ball_lies_at_the_pocket_centre)."""
    fx, ours = results[name]
    assert not ours["overflow"], f"{name}: cuegym overflowed"
    for bid, p in fx["pooltool"]["final"].items():
        q = ours["final"][bid]
        assert q["pocket"] == p["pocket"], (
            f"{name}: ball {bid} in pocket {q['pocket']}, pooltool {p['pocket']}")
        if p["pocket"] is None:
            err = math.hypot(q["x"] - p["x"], q["y"] - p["y"])
            assert err <= TOL, (f"{name}: ball {bid} ends {err * 1e3:.3f} mm from pooltool "
                                f"(pooltool {p}, cuegym {q})")


@pytest.mark.parametrize("name", [p.name for p in FIXTURES])
def test_event_sequence_matches_pooltool(results, name: str) -> None:
    fx, ours = results[name]
    seq_pt = sequence(fx["pooltool"]["events"], EVENTS)
    seq_us = sequence(ours["events"], EVENTS)
    assert seq_us == seq_pt
    t_pt = event_times(fx["pooltool"]["events"], EVENTS)
    t_us = event_times(ours["events"], EVENTS)
    for k, (a, b) in enumerate(zip(t_pt, t_us, strict=True)):
        assert abs(a - b) <= 1e-6, f"{name}: event {k} {seq_pt[k]} at {b} s, pooltool {a} s"


POCKETED = [p.name for p in FIXTURES if _pocketed(json.loads(p.read_text()))]


@pytest.mark.parametrize("name", POCKETED)
def test_pocketed_ball_lies_at_the_pocket_centre(results, name: str) -> None:
    """Every ball's final x, y against pooltool's, pocketed ones included: a captured ball lies
    at its pocket's centre, as pooltool's CanonicalBallPocket puts it (it was left where its
    centre crossed the capture circle, 45 / 32.5 mm from the centre)."""
    fx, ours = results[name]
    for bid, p in fx["pooltool"]["final"].items():
        q = ours["final"][bid]
        assert math.hypot(q["x"] - p["x"], q["y"] - p["y"]) <= TOL, (bid, p, q)
