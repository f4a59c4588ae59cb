"""Frozen balls against pooltool 0.6.0, without pooltool installed (docs/validation.md,
"Frozen starts").

Two shots of a 2026-12-07 audit, stored with pooltool's results in
``fixtures/pooltool_frozen.json`` (pooltool moves them by less than 2e-9 m when the cue ball's
speed changes by 1e-9 m/s): the cue ball into two balls 1e-7 m apart (shot 76) and into three
in a line 1e-6 m apart (shot 220). pooltool's kiss of one pair steps a ball a micrometre into
the ball behind it, and pooltool fires that overlapping pair at once although it separates;
cuegym waited for it to approach and ended 0.19 m and 37 mm away. Under the physics API's
default ``touching: "pooltool"`` it fires such a pair at once too (docs/physics.md sec. 6).
"""

import json
import math
from pathlib import Path

import pytest

from cuegym.physics import simulate_json

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "pooltool_frozen.json").read_text())


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_a_frozen_pair_struck_ends_where_pooltool_ends(name):
    fx = FIXTURES[name]
    out = simulate_json(fx["shot"])
    for ball, p in fx["pooltool_final"].items():
        q = out["final"][ball]
        assert math.hypot(q["x"] - p["x"], q["y"] - p["y"]) <= 1e-3, (name, ball)
    # the same collisions in the same order (cushions are named differently by the two)
    def seq(events):
        return [(e["type"], sorted(e["agents"]) if e["type"] == "ball_ball" else None)
                for e in events if e["type"] != "transition"]
    assert seq(out["events"]) == seq(fx["pooltool_events"])


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_the_games_rule_keeps_waiting_for_an_approach(name):
    """The games' ``"bounded"`` rule fires an overlapping pair only while it approaches."""
    shot = {**FIXTURES[name]["shot"], "models": {**FIXTURES[name]["shot"].get("models", {}),
                                                "touching": "bounded"}}
    events = [e for e in simulate_json(shot)["events"] if e["type"] == "ball_ball"]
    same_time = [a["time"] for a, b in zip(events, events[1:], strict=False)
                 if a["time"] == b["time"]]
    assert not same_time
