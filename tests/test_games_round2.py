"""The game layer and the physics API, outside audit: strikes checked before any noise is
drawn and named by table, one execution rule for both games, viewers and partners checked,
the observation's seat limit, shape errors named; a JSON shot's result not depending on the
shots beside it; the workspace argument checked (docs/rules_*.md, "game layer";
docs/physics_api.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cuegym.games.golf import Golf
from cuegym.games.kegle import Kegle
from cuegym.games.strikes import Strikes

PLACE = [[-0.7, 0.1]] * 3


def _kegle_strikes(cue):
    return Strikes.of(np.asarray(cue, float), place=PLACE[:len(cue)])


def _opening(H: Golf, T: int, V0=(1.1, 1.1)) -> tuple:
    """(states, side 0's strikes, side 1's strikes) of T new games' openings: each side's
    suggested ball struck at ``V0`` toward its attack goal."""
    gs = H.new(T)
    b = H.opening_balls(gs)
    return gs, *(Strikes(np.tile([v, phi, 0, 0, 0], (T, 1)), b[:, k], np.full((T, 2), np.nan))
                 for k, (v, phi) in enumerate(zip(V0, (20.0, 200.0), strict=True)))


def test_a_nan_strike_under_noise_is_named_by_its_table_before_any_draw():
    G = Kegle()
    s = G.new(3, 2)
    cue = [[3, 5, 0, 0, 0], [3, 5, 0, 0, 0], [np.nan, 5, 0, 0, 0]]
    g = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"table 2: strike V0 = nan is not finite"):
        G.play(s, _kegle_strikes(cue), "tournament", g, active=np.array([False, True, True]))
    assert g.random() == np.random.default_rng(0).random()  # nothing drawn
    with pytest.raises(ValueError, match=r"table 2: V0 = 25\.0 is outside"):
        G.play(s, _kegle_strikes([[3, 5, 0, 0, 0]] * 2 + [[25, 5, 0, 0, 0]]))


def test_a_wrong_injected_length_is_refused_before_any_draw():
    G = Kegle()
    g = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"injected must have one entry per table \(3\)"):
        G.play(G.new(3, 2), _kegle_strikes([[3, 5, 0, 0, 0]] * 3), "tournament", g,
               injected=[None])
    assert g.random() == np.random.default_rng(0).random()


def test_zero_noise_clamps_in_both_games():
    """Keglebillard clamped an out-of-range strike under "none"; golfbillard refused it."""
    G = Kegle()
    o, _ = G.play(G.new(3, 2), _kegle_strikes(np.tile([25, 20.0, 0, 0, 0], (3, 1))), "none",
                  np.random.default_rng(0))
    assert (o.strike[:, 0] == 20.0).all()
    gs, s0, s1 = _opening(Golf({"match": "single"}), 3, V0=(25, 1.1))
    o, _ = Golf({"match": "single"}).play(gs, s0, "none", np.random.default_rng(0), strikes1=s1,
                                          allow_overflow=True)
    assert (o.strike[:, 0, 0] == 20.0).all()


def test_reward_viewers_must_be_seats():
    G = Kegle()
    s = G.new(4, 3)
    o, _ = G.play(s, Strikes.of(np.tile([3, 5.0, 0, 0, 0], (4, 1)), place=[[-0.7, 0.1]] * 4))
    with pytest.raises(ValueError, match=r"viewer\[0\] = 9 is not in 0\.\.2"):
        G.reward_terms(o, viewer=np.full(4, 9))
    H = Golf({"match": "single"})
    gs, s0, s1 = _opening(H, 2)
    go, _ = H.play(gs, s0, strikes1=s1, allow_overflow=True)
    with pytest.raises(ValueError, match=r"viewer\[0\] = 2 is not in 0\.\.1"):
        H.reward_terms(go, viewer=np.full(2, 2))


@pytest.mark.parametrize("duo, players, says", [
    (True, np.full((2, 2), 7), r"players\[0, 0\] = 7: a partner is 0 or 1"),
    (False, np.ones((2, 2), int), r"players\[0, 0\] = 1: a partner is 0 in singles"),
    (True, np.zeros(5, int), r"players must be a \(T, 2\) = \(2, 2\) integer array"),
])
def test_golf_partners_are_checked(duo, players, says):
    D = Golf({"match": "single", "duo": duo})
    ds, s0, s1 = _opening(D, 2)
    with pytest.raises(ValueError, match=says):
        D.play(ds, s0, strikes1=s1, players=players, allow_overflow=True)


def test_shapes_and_ranges_are_named():
    G = Kegle()
    with pytest.raises(ValueError, match=r"the observation shows 5 other seats: at most 6"):
        G.observe(G.new(1, 7))
    assert G.observe(G.new(1, 6)).shape[0] == 1
    with pytest.raises(ValueError, match=r"first_player must be one player or one per table"):
        G.new(2, 3, first_player=[0, 1, 2])
    with pytest.raises(ValueError, match=r"cue must be one strike \(5,\) or a \(T, 5\) array"):
        Strikes.of(np.zeros((3, 4)))
    s = G.new(3, 2)
    s.scores[0, 0] = -3
    with pytest.raises(ValueError, match="a score is >= 0"):
        G.play(s, _kegle_strikes([[3, 5, 0, 0, 0]] * 3))
    H = Golf({"match": "single"})
    gs, s0, s1 = _opening(H, 3)
    go, _ = H.play(gs, s0, strikes1=s1, allow_overflow=True)
    with pytest.raises(ValueError, match="2 states for a log of 3 tables"):
        H.apply_log(gs.take([0, 1]), go.sim, go.inputs.cue_ball, go.inputs.cue)


def test_a_json_shot_of_a_custom_table_does_not_depend_on_the_shots_beside_it():
    """Ball indices (which order simultaneous events) came from the whole list: the same shot
    came to rest mirrored in a list and alone."""
    from cuegym.physics.jsonio import simulate_json

    def shot(order):
        balls = {"a": {"x": -0.5, "y": 0}, "b": {"x": 0, "y": 0.03175},
                 "c": {"x": 0, "y": -0.03175}}
        return {"table": "rectangle", "balls": {k: balls[k] for k in order},
                "strike": {"ball": "a", "V0": 3, "phi": 0}}

    shots = [shot("abc"), shot("acb"), shot("abc")]
    together = simulate_json(json.loads(json.dumps(shots)))
    alone = [simulate_json([s])[0] for s in shots]
    assert together == alone


def test_simulate_names_a_workspace_of_the_wrong_type():
    from cuegym.configs import load_params, load_table
    from cuegym.physics.api import PhysicsInputError, simulate

    table, params = load_table("keglebillard"), load_params("keglebillard")
    xy = np.array([[[-0.5, 0.0], [0.3, 0.2], [0.5, -0.3]]])
    with pytest.raises(PhysicsInputError, match="workspace must be a Workspace or None"):
        simulate(table, params, xy, workspace="x")
