"""The "continually touching" rule (docs/physics.md section 7, ``Models.touching``): two balls
left moving together by their collision. A ball rolls up behind another moving the same way,
closing at about 5 mm/s; after the e_b = 0.95 impact they would separate slower than 0.01 m/s.

- ``bounded`` (the games', ``GAME_MODELS``) pushes them apart to exactly 0.01 m/s along the
  line of centres;
- ``pooltool`` (the physics API's default) does what pooltool 0.6 does: the chased ball takes
  10 % of the chaser's speed along the line of centres (a shot found by the pooltool audit:
  0.12 m apart under the two rules).
Both conserve momentum.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cuegym.configs import ConfigError
from cuegym.physics import simulate_json
from cuegym.physics.api import Models

R = 0.03075


def _rolling(speed: float, deg: float) -> dict:
    v = speed * np.array([math.cos(math.radians(deg)), math.sin(math.radians(deg))])
    return {"v": [float(v[0]), float(v[1])], "w": [float(-v[1] / R), float(v[0] / R), 0.0]}


def _chase(touching: str | None) -> dict:
    d = np.array([math.cos(math.radians(10.0)), math.sin(math.radians(10.0))])
    p0 = np.array([-0.6, -0.1])
    p1 = p0 + (2 * R + 0.0005) * d
    shot = {"table": "rectangle",
            "balls": {"b0": {"x": float(p0[0]), "y": float(p0[1]), **_rolling(0.80, 10.0)},
                      "b1": {"x": float(p1[0]), "y": float(p1[1]), **_rolling(0.795, 10.3)}},
            "event_states": True}
    if touching is not None:
        shot["models"] = {"touching": touching}
    return simulate_json(shot)


def _first_contact(out: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two balls' velocities right after their first collision and its line of centres."""
    ev = next(e for e in out["events"] if e["type"] == "ball_ball")
    a, b = ev["after"]
    n = np.array([b["x"] - a["x"], b["y"] - a["y"]])
    return np.array(a["v"]), np.array(b["v"]), n / np.linalg.norm(n)


def test_bounded_separates_the_pair_at_exactly_0_01_m_s_and_pooltool_is_the_default():
    assert _chase(None) == _chase("pooltool") != _chase("bounded")
    va, vb, n = _first_contact(_chase("bounded"))
    assert (vb - va) @ n == pytest.approx(0.01, abs=1e-12)


def test_pooltool_gives_the_slower_ball_along_n_a_tenth_of_the_faster_ones_speed():
    """pooltool 0.6's rule as it is coded: its "chaser" is the ball with the larger speed
    along n (here the ball in front, just pushed away), and the other ball takes 10 % of that
    speed from it, so this pair closes in again and collides a second time."""
    va_b, vb_b, n = _first_contact(_chase("bounded"))
    out = _chase("pooltool")
    va, vb, n2 = _first_contact(out)
    assert np.allclose(n, n2, atol=1e-12)
    assert np.allclose(va + vb, va_b + vb_b, atol=1e-12)  # momentum: the same under both rules
    # the collision's own speeds along n (sa behind, sb in front), recovered from pooltool's
    # rule, must also give the bounded rule's result: one collision, two rules after it
    sb = (vb @ n) / 0.9
    sa = va @ n - 0.1 * sb
    assert 0.0 < sb - sa < 0.01  # the trigger; the ball in front is pooltool's chaser
    dv = 0.5 * (0.01 - (sb - sa))
    assert va_b @ n == pytest.approx(sa - dv, abs=1e-12)
    assert vb_b @ n == pytest.approx(sb + dv, abs=1e-12)
    kinds = [e["type"] for e in out["events"]]
    assert kinds.count("ball_ball") > [e["type"] for e in _chase("bounded")["events"]].count(
        "ball_ball")


def test_an_unknown_touching_model_is_refused_naming_it():
    with pytest.raises(ConfigError, match=r"unknown touching model 'newton'; known: "
                                          r"\['bounded', 'pooltool'\]"):
        Models(touching="newton")
    with pytest.raises(ValueError, match="touching"):
        simulate_json({"table": "rectangle", "balls": {"b0": {"x": 0.0, "y": 0.0}},
                       "models": {"touching": 3}})
