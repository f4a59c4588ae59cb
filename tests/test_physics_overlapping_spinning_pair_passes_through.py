"""Regression: two spinning golfbillard balls left overlapping by a kiss curved through each
other and one ended 33 m off the table (hostile soak, seed 2: 12 of 20,480 shots).

A chain of simultaneous collisions in a frozen cluster (t = 0.155 s) ended with the kiss of
balls 5 and 9 falling back to its symmetric push, which left ball 9 0.47 mm inside ball 3.
The pair was separating at that moment, so no contact was predicted; their spins (up to
370 rad/s) then curved them into each other while still overlapping, and a contact was only
looked for where the gap crosses zero from above, which never happened. Detection now also
fires when an overlapping pair (or a ball overlapping a cushion) starts to close in
(roots.first_entry_root, predict._line_time).
"""

import numpy as np

from cuegym.physics import simulate
from cuegym.physics.path import states_at
from cuegym.physics.roots import first_entry_root

XY = [[0.37114327030484384, 0.4001534169432702], [0.16609529590583505, 0.1602686107330451],
      [0.18205923425607154, 0.21966055187281464], [0.1330994335672454, 0.2568786646206478],
      [0.07987791172955852, 0.22606114341467443], [0.06899441016076874, 0.28659047013819045],
      [0.3199394353103214, 0.3660885188536866], [0.09908994930028953, 0.167638993399626],
      [0.4116396370526563, 0.3538684919651883], [0.08383983025786876, 0.3462718198392538]]
W = [[103.62530180630385, 145.10563769908822, 17.24907189433792],
     [-315.71181036736715, 67.31030047370339, 74.26834931147826],
     [76.52656040167045, -153.07778151030732, -33.11324721851603],
     [-370.6464206332083, 45.93218857272143, 197.39579760445287],
     [-309.52807016122347, -140.74205563272915, -203.59501607744843],
     [-148.76159698711012, 7.640967441314718, -171.61584514245317],
     [-71.23790104014284, -104.73427533169338, -17.11370963932869],
     [-119.11329080876109, 22.075728334531455, -230.10152021495415],
     [203.83083995461942, 89.49442660495568, 303.9961294085723],
     [110.55881700341246, 141.37761995427562, 256.3275512464107]]
CUE = [3.7145368899768, -18.02267528996714, 4.219130421118745, -0.06775617031240462,
       0.9497326332137805]


def test_spinning_overlapping_pair_collides_instead_of_passing_through(golf):
    table, params = golf
    R = params.R
    res = simulate(table, params, [XY], cue_ball=[6], cue=[CUE], w=[W], max_events=5000,
                   t_max=3600.0)
    assert res.overflow[0] == 0
    xy = res.rvw[0, :, 0, :2]
    assert np.all(np.abs(xy[:, 0]) <= table.length / 2 - R + 1e-6)
    assert np.all(np.abs(xy[:, 1]) <= table.width / 2 - R + 1e-6)
    # balls 3 and 9 never get deeper into each other than the kiss left them
    times = np.linspace(0.16, 0.6, 441)
    pos = states_at(res, times)[0, :, :, :2]
    d = np.linalg.norm(pos[:, 3] - pos[:, 9], axis=-1)
    assert d.min() >= 2 * R - 5e-4


def test_overlap_that_starts_closing_is_a_contact():
    # f(t) = -(t - 1)^2 - 0.25: overlapping throughout, opening until t = 1 and closing after it
    # while still overlapping: the contact is at the turning point
    assert first_entry_root(0.0, 0.0, -1.0, 2.0, -1.25, 3.0) == 1.0
    # f(t) = -t^2 + 3t - 0.25 on [0, 1]: opens and separates (crosses zero upward): no contact
    assert first_entry_root(0.0, 0.0, -1.0, 3.0, -0.25, 1.0) == np.inf
