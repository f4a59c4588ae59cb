"""Saved regression shots: one test per past physics bug."""

import numpy as np

from cuegym.physics import simulate
from cuegym.physics.constants import POCKETED


def test_ball_leaving_a_pocket_mouth_curves_back_onto_the_cushion(kegle):
    """Soak (1M shots, seed 0) found a red that hit a side-pocket jaw, left the mouth with its
    centre just past the nose line's extension, curved back (massé) and passed through the
    cushion: the straight-cushion check returned 'no event' whenever the ball started past the
    line, instead of looking for a later entry."""
    table, params = kegle
    xy = np.array([[[0.3923450134918727, 0.12136110113714976],
                    [-0.5929930527022547, 0.31220535055638504],
                    [0.4254318144258362, 0.31466697537061855]]])
    cue = np.array([[5.69949534562127, 86.38703902204713, 6.24497404905915,
                     -0.1588978280090866, 0.3538511550709969]])
    res = simulate(table, params, xy, cue_ball=[0], cue=cue)
    on = res.motion[0] != POCKETED
    pos = res.rvw[0, :, 0, :2]
    assert np.all(np.abs(pos[on, 0]) <= table.length / 2)
    assert np.all(np.abs(pos[on, 1]) <= table.width / 2)
    assert res.overflow[0] == 0
