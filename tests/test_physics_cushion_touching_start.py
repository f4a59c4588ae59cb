"""A ball touching a straight cushion at the start (a legal layout) whose cloth friction pulls it
into the cushion while v.n = 0 collides at once (docs/physics.md sec. 7: a ball overlapping a
cushion that starts to close in collides at that moment; no ball inside a straight cushion).
Before, predict._line_time found no contact: the ball slid 5-47 mm into the cushion and was
pushed out at its next transition, or went through it and came to rest metres off the table."""
import numpy as np
import pytest

from cuegym.configs import load_params, load_table
from cuegym.physics import GAME_MODELS, simulate
from cuegym.physics.path import positions_at

CASES = [
    # rail shot along the cushion, elevated cue, right English (a < 0): pulled into the rail
    ("rectangle", "keglebillard", dict(cue_ball=[0], cue=[[2.0, 0.0, 30.0, -0.3, 0.0]])),
    ("golfbillard", "golfbillard", dict(cue_ball=[0], cue=[[2.0, 0.0, 30.0, -0.3, 0.0]])),
    ("keglebillard", "keglebillard", dict(cue_ball=[0], cue=[[2.0, 0.0, 30.0, -0.3, 0.0]])),
    # a ball at rest given only spin that drives it into the cushion
    ("rectangle", "keglebillard", dict(w=[[[144.1, 199.3, 0.0]]])),
    ("keglebillard", "keglebillard", dict(w=[[[144.1, 199.3, 0.0]]])),
]


@pytest.mark.parametrize("eps", [0.0, 5e-10])
@pytest.mark.parametrize("name,game,kw", CASES)
def test_ball_frozen_to_cushion_stays_on_the_table(name, game, kw, eps):
    table, params = load_table(name), load_params(game)
    R = params.R
    hy = table.width / 2 - R
    x0 = 0.3123 if "w" in kw else -0.3
    extra = {}
    if table.pin_spots:
        extra["pins_up"] = np.zeros((1, len(table.pin_spots)), bool)
    res = simulate(table, params, [[[x0, -(hy + eps)]]], models=GAME_MODELS, **kw, **extra)
    ts = np.linspace(0.0, float(res.t_end[0]), 20001)
    xy = positions_at(res, ts)[0, :, 0]
    y = xy[:, 1]
    # away from the pocket mouths (where the cushion is cut), how far the centre came closer
    # than R to the y = -W/2 cushion nose
    away = np.ones(len(ts), bool)
    for pk in table.pockets:
        away &= np.hypot(xy[:, 0] - pk.x, xy[:, 1] - pk.y) > 0.1
    depth = float((-y - hy)[away].max(initial=0.0))
    assert depth <= 1e-6, f"ball went {depth * 1000:.2f} mm into the cushion"
    x, yf = res.rvw[0, 0, 0, :2]
    assert abs(x) <= table.length / 2 and abs(yf) <= table.width / 2, (x, yf)
