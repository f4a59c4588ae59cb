"""K-P3 (docs/rules_keglebillard.md): if both whites topple the same pin at the same
instant, it belongs to both. The physics gave it to the lower-index white only, and the
other white passed through the pin's place without a contact; build_log gave it to both."""
import numpy as np

from cuegym.configs import load_params, load_table
from cuegym.physics import simulate
from cuegym.physics.constants import EV_BALL_PIN
from cuegym.rules.keglebillard_log import build_log


def _shot():
    table, params = load_table("keglebillard"), load_params("keglebillard")
    R = params.R
    d = R + table.pin_radius + 0.05
    xy = np.array([[[-0.6, 0.3], [-d, 0.0], [d, 0.0]]])
    v = np.array([[[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0]]])
    w = np.zeros((1, 3, 3))
    w[0, 1] = [0.0, 1.0 / R, 0.0]
    w[0, 2] = [0.0, -1.0 / R, 0.0]
    res = simulate(table, params, xy, v=v, w=w, motion0=np.array([[-1, 3, 3]]),
                   pins_up=np.array([[1, 0, 0, 0, 0]], bool))
    return res, d


def test_both_whites_same_instant_pin_belongs_to_both():
    res, _ = _shot()
    assert not res.pins_up[0, 0]
    assert res.pin_toppler[0, 0] == 0b110


def test_both_whites_same_instant_both_touch_the_pin():
    res, _ = _shot()
    n = res.n_events[0]
    pin_hits = {int(res.ev_i[0, k]) for k in range(n) if res.ev_type[0, k] == EV_BALL_PIN}
    assert pin_hits == {1, 2}


def test_physics_agrees_with_build_log():
    res, d = _shot()
    t = [res.ev_time[0, k] for k in range(res.n_events[0]) if res.ev_type[0, k] == EV_BALL_PIN][0]
    log = build_log([(t, "pin", "white", "king"), (t, "pin", "spotted", "king")],
                    struck=("white", "spotted"),
                    start={"red": (-0.6, 0.3), "white": (-d, 0.0), "spotted": (d, 0.0)},
                    end={"red": (-0.6, 0.3), "white": (-0.3, 0.0), "spotted": (0.3, 0.0)},
                    pins_up0=[True, False, False, False, False])
    assert int(res.pin_toppler[0, 0]) == int(log.pin_toppler[0][0])
