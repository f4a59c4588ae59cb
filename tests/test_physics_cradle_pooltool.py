"""Balls in a line (a Newton's cradle), against pooltool 0.6.0 (docs/validation.md, docs/physics.md
section 7): the cue ball struck into b1, which lies 10 µm, 0.1 mm or 3 mm from b2. pooltool's
final positions (same models and parameters; its own result moves < 2e-9 m under the 1e-9 m/s
chaos probe) are in tests/fixtures/pooltool_cradle. The physics API's default touching rule is
pooltool's, so it stops the balls where pooltool does; the games' ``bounded`` rule (0.01 m/s
push) ended these 13 mm-0.79 m away."""
import copy
import json
import math
from pathlib import Path

import pytest

from cuegym.physics import GAME_MODELS, Models, simulate_json

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "pooltool_cradle" /
                       "cradle_fixtures.json").read_text())


def _error(fx: dict, touching: str | None) -> float:
    shot = copy.deepcopy(fx["shot"])
    if touching is not None:
        shot["models"]["touching"] = touching
    out = simulate_json(shot)
    return max(math.hypot(out["final"][b]["x"] - p["x"], out["final"][b]["y"] - p["y"])
               for b, p in fx["pooltool_final"].items())


@pytest.mark.parametrize("fx", FIXTURES, ids=[f["name"] for f in FIXTURES])
def test_default_models_stop_a_cradle_where_pooltool_does(fx):
    assert "touching" not in fx["shot"]["models"]  # the default, as a user's shot gives it
    assert _error(fx, None) <= 1e-6
    assert _error(fx, "bounded") > 1e-2  # the games' rule is not pooltool's here


def test_the_games_play_the_bounded_rule_and_the_api_defaults_to_pooltools():
    assert Models().touching == "pooltool" and GAME_MODELS.touching == "bounded"


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_the_referees_shot_input_plays_the_games_models_unless_told(game):
    """``python -m cuegym.rules score`` with a physics shot object: the game's rule by default
    (the shot object's own default is pooltool's), another where the shot names it."""
    from cuegym.rules.golf_json import score_json as golf_score
    from cuegym.rules.keglebillard_game import score_json as kegle_score

    if game == "keglebillard":
        def score(models):
            return kegle_score({"state": {"players": 2}, "shot": {
                "balls": {"red": {"x": -0.8, "y": 0.1}},
                "strike": {"ball": "red", "V0": 3.0, "phi": 2.0}, **models}})
    else:
        def score(models):
            return golf_score({"state": None, "shot": {"strike": [
                {"ball": "w1", "V0": 1.1, "phi": 25}, {"ball": "r1", "V0": 1.1, "phi": -155}],
                **models}})
    assert score({}) == score({"models": {"touching": "bounded"}})
    with pytest.raises(ValueError, match="touching"):
        score({"models": {"touching": "sticky"}})
