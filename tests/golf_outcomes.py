"""Hand-written golfbillard referee outcomes (the rules' JSON) for the tests of the calls."""

from __future__ import annotations


def g12_kader_foul() -> dict:
    """Side 1, in kader play, strikes r2 directly onto its own ball r1 (G-12: CS, LT, RA): r2
    goes to penalty spot 2, r1 and r2 are listed as put back. A fresh dict each call."""
    return {"shooter": 1, "cue_ball": "r2", "kader": True, "fouls": [
        {"rule": "G-12", "time": 0.1, "balls": ["r2", "r1"], "kind": "own_ball",
         "detail": "r2 struck directly onto own ball r1"}], "foul": "G-12",
        "consequences": ["CS", "LT", "RA"], "scored": [0, 0], "scored_balls": [],
        "spotted": [{"ball": "r2", "spot": 2}], "replaced": ["r1", "r2"], "into_goal": [],
        "turn_kept": False, "duty_met": True, "left_kader": False, "game_over": False,
        "winner": None}
