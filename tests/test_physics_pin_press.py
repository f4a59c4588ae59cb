"""A slow ball driven into a standing pin by its own spin (docs/physics.md sec. 8, K-P4).

Below the topple speed a pin is a fixed post (e_pin_post) that leaves the ball's spin as it
is: a ball with follow spin touching it at 1 cm/s was sent back, friction brought it back, and
so on, a geometric series of ball-pin events that filled the event log (overflow) and froze the
other balls mid-roll. Pressed against the pin by its spin it pushes the pin off its spot: the
pin topples (K-P4). A slow touch without such spin still bounces off a standing pin.
"""

import numpy as np

from cuegym.configs import load_params, load_table
from cuegym.physics import GAME_MODELS, simulate
from cuegym.physics.constants import EV_BALL_PIN

TABLE, PARAMS = load_table("keglebillard"), load_params("keglebillard")
R = PARAMS.R
RHO = R + TABLE.pin_radius
PIN3 = -0.082  # the -x arm's pin, on y = 0


def _slow_touch(spin_y: float):
    """The red 0.05 mm short of pin3 at 1 cm/s toward it (+x), with spin w_y; a white rolling
    elsewhere at 1 m/s."""
    xy = np.array([[[PIN3 - RHO - 0.00005, 0.0], [-0.5, 0.3], [0.5, -0.3]]])
    v = np.array([[[0.01, 0.0], [1.0, 0.0], [0.0, 0.0]]])
    w = np.array([[[0.0, spin_y, 0.0], [0.0, 1.0 / R, 0.0], [0.0, 0.0, 0.0]]])
    return simulate(TABLE, PARAMS, xy, v=v, w=w, models=GAME_MODELS, max_events=1000)


def test_a_ball_its_spin_presses_into_a_pin_topples_it_and_the_shot_ends():
    res = _slow_touch(30.0)  # follow spin: the cloth drives the ball into the pin
    n = int(res.n_events[0])
    assert res.overflow[0] == 0 and n < 50
    assert int((res.ev_type[0, :n] == EV_BALL_PIN).sum()) == 1  # one ball-pin contact, not hundreds
    assert not res.pins_up[0, 3]  # pin3 pushed off its spot (K-P4)
    assert res.pin_toppler[0, 3] == 1  # by the red
    assert (res.motion[0] == 0).all()  # everything came to rest (K-P6)


def test_a_slow_touch_without_such_spin_bounces_off_the_standing_pin():
    for spin in (0.01 / R, 0.0, -30.0):  # rolling, no spin, draw: nothing drives it back
        res = _slow_touch(spin)
        assert res.overflow[0] == 0
        assert res.pins_up[0, 3], spin
