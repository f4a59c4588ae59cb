"""The pooltool cross-check's tooling (experiments/validate_pooltool.py, pooltool_runner.py;
docs/validation.md), after the forty-ninth session's audit: pooltool's spurious contact between
balls rolling along one line is flagged apart from chaos, the chaos probe also moves every ball
by a rounding-sized step (balls laid exactly 2R apart), and ``max_events`` resolves as many
events in pooltool as in cuegym. The first two tests run without pooltool; the others need the
git-ignored ``.venv-pooltool`` and are skipped without it."""

from __future__ import annotations

import copy
import math

import pytest

import cuegym.experiments.validate_pooltool as vp
from cuegym.physics import simulate_json

needs_pooltool = pytest.mark.skipif(not vp.PT_PYTHON.exists(), reason="no .venv-pooltool "
                                    "(validate_pooltool.py makes it)")

R = 0.03075
TABLE = {"length": 2.1, "width": 1.05, "cushion_height": 0.0394, "pockets": [], "posts": []}
PARAMS = {"R": R, "m": 0.207, "u_s": 0.2, "u_r": 0.01, "u_sp": 0.013666666666666666,
          "e_b": 0.95, "e_c": 0.85, "f_c": 0.2, "g": 9.81, "M": 0.567, "e_cap": 0.85,
          "f_cap": 0.2}
MODELS = {"ball_ball": "frictional_inelastic", "cushion": "han_2005", "squirt": False}


def _shot(balls, strike, **kw):
    return {"table": TABLE, "params": PARAMS, "models": MODELS, "balls": balls,
            "strike": strike, "max_events": 5000, "t_max": 600.0, **kw}


#: a full-ball hit (aimed at b1's centre) with draw: the balls then roll along one line
FULL_BALL = _shot({"b0": {"x": -0.8456474572492089, "y": -0.2453666668323866},
                   "b1": {"x": -0.12915240160502095, "y": 0.08391454163798845}},
                  {"ball": "b0", "V0": 1.1794288776431923, "phi": 24.682196521524922,
                   "theta": 0.0, "a": 0.0, "b": -0.4103129679367813})
#: three balls, many events: capped runs end mid-shot
CAPPED = _shot({"b0": {"x": -0.5, "y": -0.2}, "b1": {"x": 0.1, "y": 0.05},
                "b2": {"x": 0.6, "y": 0.3}},
               {"ball": "b0", "V0": 3.0, "phi": 23.0, "theta": 2.0, "a": 0.1, "b": 0.2})


def _rack() -> dict:
    """A 6-ball triangle laid the natural way, every neighbour exactly 2R apart."""
    d = 2 * R
    balls = {"b0": {"x": -0.6, "y": -0.015362499248278913}}
    k = 1
    for row in range(3):
        for j in range(row + 1):
            balls[f"b{k}"] = {"x": 0.3 + row * d * math.sqrt(3) / 2, "y": (j - row / 2) * d}
            k += 1
    return _shot(balls, {"ball": "b0", "V0": 2.111435424519261, "phi": 1.924538310316144,
                         "theta": 3.313298756260342, "a": 0.019477635710298757,
                         "b": -0.11743808253943497})


def _dist(a, b) -> float:
    return max(math.hypot(a["final"][i]["x"] - b["final"][i]["x"],
                          a["final"][i]["y"] - b["final"][i]["y"]) for i in a["final"])


@pytest.fixture(autouse=True)
def _scratch_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(vp, "CACHE_DIR", tmp_path / "pooltool_cache")


def test_compare_shot_flags_a_spurious_pooltool_collision():
    ours = simulate_json(FULL_BALL)
    pt = copy.deepcopy(ours)
    pt["events"] = [dict(e, gap=0.0) if e["type"] == "ball_ball" else e for e in pt["events"]]
    assert vp.compare_shot(pt, ours)["pooltool_spurious"] is False
    pt["events"].append({"time": 1.16, "type": "ball_ball", "agents": ["b0", "b1"],
                         "gap": 0.025})  # pooltool's contact 2.5 cm apart
    assert vp.compare_shot(pt, ours)["pooltool_spurious"] is True


def test_the_chaos_probe_nudges_the_speed_and_every_balls_place(monkeypatch):
    sent = []

    def fake(name, payload, args, cfg):
        sent.extend(payload)
        return [{"final": {b: {"x": p["x"], "y": p["y"]} for b, p in s["balls"].items()}}
                for s in payload]

    monkeypatch.setattr(vp, "cached_pooltool", fake)
    shot = _rack()
    pt = {"init": {"b0": {"v": [2.0, 0.05], "w": [0.0, 0.0, 0.0]}},
          "final": {b: dict(p) for b, p in shot["balls"].items()}}
    moved = vp.chaos_probe([shot], [pt], [0], vp.Settings(), "t")
    assert len(sent) == 2  # the speed nudge, then the place nudge
    assert sent[0]["balls"]["b1"] == shot["balls"]["b1"]
    steps = [math.hypot(sent[1]["balls"][b]["x"] - p["x"], sent[1]["balls"][b]["y"] - p["y"])
             for b, p in shot["balls"].items()]
    assert all(0.5 * vp.JITTER < s < 2 * vp.JITTER for s in steps)
    assert moved[0] == pytest.approx(max(steps), abs=1e-15)


@needs_pooltool
def test_pooltools_contact_between_balls_rolling_along_one_line_is_marked():
    pt = vp.call_runner([FULL_BALL], [])[0]
    gaps = [e["gap"] for e in pt["events"] if e["type"] == "ball_ball"]
    assert abs(gaps[0]) < 1e-6 and max(gaps) > 0.01  # the hit, then a "contact" 2.5 cm apart
    row = vp.compare_shot(pt, simulate_json(vp.replay_shot(FULL_BALL, pt)))
    assert row["pooltool_spurious"] and row["max_err"] > vp.TOL


@needs_pooltool
def test_the_chaos_probe_sees_a_rack_laid_exactly_2R_apart():
    shot = _rack()
    pt = vp.call_runner([shot], [])[0]
    assert _dist(simulate_json(shot), pt) > vp.TOL  # touching or not, by rounding
    assert vp.chaos_probe([shot], [pt], [0], vp.Settings(), "rack")[0] > vp.TOL


@needs_pooltool
@pytest.mark.parametrize("strike", [True, False])
@pytest.mark.parametrize("k", [3, 5])
def test_max_events_resolves_as_many_events_in_pooltool_as_in_cuegym(k, strike):
    shot = dict(CAPPED, max_events=k)
    if not strike:  # the chaos probe's form: the struck ball's v, w given
        shot = vp.replay_shot(shot, vp.call_runner([CAPPED], [])[0])
    pt = vp.call_runner([shot], [])[0]
    ours = simulate_json(shot)
    assert _dist(ours, pt) <= 1e-9  # was 0.30-0.64 m: pooltool went one or two events further
    assert pt["overflow"] is True and bool(ours["overflow"])


@needs_pooltool
def test_a_cap_pooltool_cannot_express_is_refused_and_a_full_log_is_no_overflow():
    n = len(simulate_json(CAPPED)["events"])
    pt = vp.call_runner([dict(CAPPED, max_events=n)], [])[0]
    assert pt["overflow"] is False  # it ended by itself in exactly n events (was flagged)
    assert not simulate_json(dict(CAPPED, max_events=n))["overflow"]
    no_strike = vp.replay_shot(dict(CAPPED, max_events=2), vp.call_runner([CAPPED], [])[0])
    assert "cannot be expressed in pooltool" in vp.call_runner([no_strike], [])[0]["error"]
