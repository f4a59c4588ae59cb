"""Keglebillard rules on real simulated shots (cuegym.physics.simulate).

Each scenario sets up a position and strike that produces the rule situation, first checks that
the physics did produce it (so a physics change shows up as such), then checks the referee.
Scenarios that need luck (red pocketed after a white; all three balls down) are searched in a
small batch around a known shot, and the referee is checked on every table of the batch.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cuegym.configs import load_params, load_table
from cuegym.physics import simulate
from cuegym.physics.constants import EV_BALL_CUSHION
from cuegym.rules.keglebillard import KING, judge_lag, score_shots
from cuegym.rules.keglebillard_game import GameState, KeglebillardGame, play_game, score_json

TABLE = load_table("keglebillard")
PARAMS = load_params("keglebillard")


def sim(xy, cue, **kw):
    xy = np.asarray(xy, float)
    if xy.ndim == 2:
        xy = xy[None]
    cue = np.asarray(cue, float).reshape(-1, 5)
    if len(cue) == 1 and len(xy) > 1:
        cue = np.repeat(cue, len(xy), 0)
    if len(xy) == 1 and len(cue) > 1:
        xy = np.repeat(xy, len(cue), 0)
    return simulate(TABLE, PARAMS, xy, cue_ball=np.zeros(len(xy), int), cue=cue, **kw)


def state_at(xy, n=2, scores=None, to_play=0):
    """A game state with the balls at ``xy`` (red on the table), all pins up."""
    return GameState(order=tuple(range(n)), scores=tuple(scores or (0,) * n), to_play=to_play,
                     balls=tuple(tuple(map(float, p)) for p in xy), ball_in_hand=None)


# red behind the white on the diagonal y = x: the white runs between the arms into the king
KING_SHOT = ([[-0.35, -0.35], [-0.2, -0.2], [0.525, 0.3]], [1.5, 45.0, 0.0, 0.0, 0.0])
# red drives the white along y = 0 through pin3, the king and pin1
CROSS_SHOT = ([[-0.5, 0.0], [-0.3, 0.0], [0.5, 0.35]], [3.0, 0.0, 0.0, 0.0, 0.0])
# red (with draw) into the white, the white into the spotted ball
BLEGT_SHOT = ([[-0.6, 0.3], [-0.3, 0.3], [0.0, 0.3]], [1.5, 0.0, 0.0, 0.0, -0.5])
# the red straight into the king, no white first
RED_PINS_SHOT = ([[-0.4, -0.4], [-0.525, 0.2], [0.525, 0.0]], [2.0, 45.0, 0.0, 0.0, 0.0])
# a soft push: nothing reaches a cushion
SOFT_SHOT = ([[-0.7, 0.3], [-0.5, 0.3], [0.525, 0.0]], [0.5, 0.0, 0.0, 0.0, 0.0])


def test_K6_red_white_king_alone_real_shot():
    res = sim(*KING_SHOT)
    assert res.pins_up[0].tolist() == [False, True, True, True, True], res.events(0)
    assert res.pin_toppler[0, KING] == 0b010  # the white (K-P3)
    s = score_shots(res)
    assert s.king_alone[0] and s.points[0] == 6 and not s.foul[0]
    out, new = KeglebillardGame().apply(state_at(KING_SHOT[0]), res)
    assert out.shooter_points == 6 and new.scores == (6, 0) and out.pins_restood == ("king",)


def test_KP1_K5_white_through_the_whole_cross_real_shot():
    res = sim(*CROSS_SHOT)
    down = ~res.pins_up[0]
    assert down[[0, 1, 3]].all(), res.events(0)  # pin3, king, pin1 on the white's line
    assert (res.pin_toppler[0][down] == 0b010).all()
    s = score_shots(res)
    n = int(down.sum())
    assert s.points[0] == (16 if s.clean16[0] else 2 * n) and not s.foul[0]


def test_K8_blegt_real_shot():
    res = sim(*BLEGT_SHOT)
    s = score_shots(res)
    assert s.blegt[0] and not s.rodt[0], res.events(0)
    assert s.points[0] == 4 and not s.foul[0]


def test_K12_red_into_the_pins_before_any_white_real_shot():
    res = sim(*RED_PINS_SHOT)
    assert res.events(0)[0][0] == "ball_pin" and res.pin_toppler[0, KING] == 0b001
    s = score_shots(res)
    assert "K-12" in s.fouls_of(0) and s.penalty[0] == 6
    assert s.skaeve[0] == s.points[0] + 6 and s.shooter_points[0] == 0


def test_K10_no_cushion_real_shot():
    res = sim(*SOFT_SHOT)
    n = res.n_events[0]
    assert not (res.ev_type[0, :n] == EV_BALL_CUSHION).any(), res.events(0)
    s = score_shots(res)
    assert "K-10" in s.fouls_of(0) and s.ball_in_hand[0] and not s.bih_salvo[0]
    out, new = KeglebillardGame().apply(state_at(SOFT_SHOT[0]), res)
    assert new.ball_in_hand == "cloth" and new.balls[0] is None and new.scores[1] >= 6


def _grid(cue, n_phi=64, d_phi=2.0, v_scale=(0.95, 1.0, 1.05)):
    rows = []
    for k in v_scale:
        for dp in np.linspace(-d_phi, d_phi, n_phi):
            rows.append([cue[0] * k, cue[1] + dp, *cue[2:]])
    return np.array(rows)


def test_K14_red_pocketed_real_shots():
    xy = [[0.6, -0.3], [0.85, -0.35], [0.525, 0.3]]
    res = sim(xy, _grid([3.838, -0.4, 0.0, 0.0, -0.258]))
    s = score_shots(res)
    red_down = res.motion[:, 0] == 4
    k14 = np.array(["K-14" in s.fouls_of(t) for t in range(len(s))])
    assert (k14 == red_down).all() and (s.bih_salvo == red_down).all()
    only = [t for t in range(len(s)) if s.fouls_of(t) == ("K-14",)]
    assert only, "no shot of the batch pocketed the red after a white and a cushion"
    assert (s.penalty[only] == 2).all() and (s.skaeve[only] == s.points[only] + 2).all()


def test_K20_three_balls_in_one_shot_real_shots():
    xy = [[0.5298283781090337, -0.29296936091338044], [-0.99, -0.465], [0.99, -0.465]]
    cue = [5.872904105652431, -16.408854290377704, 0.0, 0.24221181053698493,
           -0.019852331730857986]
    res = sim(xy, np.vstack([cue, _grid(cue, n_phi=128, d_phi=0.5, v_scale=(1.0,))]))
    s = score_shots(res)
    all_down = (res.motion == 4).all(1)
    assert (s.win == all_down).all() and all_down.any(), "no table pocketed all three balls"
    t = int(np.argmax(all_down))
    out, new = KeglebillardGame().apply(state_at(xy, scores=(12, 30)), res, index=t)
    assert out.win and new.game_over and new.ranking == (0, 1) and new.scores == (12, 30)


def test_K21_three_players_one_leaves_at_70_real_shot():
    res = sim(*KING_SHOT)
    out, new = KeglebillardGame().apply(state_at(KING_SHOT[0], 3, (66, 20, 30)), res)
    assert out.finished == (0,) and new.in_game == (1, 2) and not new.game_over
    assert new.to_play == 1


def test_K22_two_player_end_rule_real_shots():
    game = KeglebillardGame()
    # blegt takes player 0 to 70 without a pin: play goes on
    out, new = game.apply(state_at(BLEGT_SHOT[0], 2, (66, 40)), sim(*BLEGT_SHOT))
    assert new.scores == (70, 40) and not new.game_over
    # a legal pin finishes
    out, new = game.apply(state_at(KING_SHOT[0], 2, (66, 40)), sim(*KING_SHOT))
    assert new.game_over and new.ranking == (0, 1)
    # skæve from the opponent's foul finishes the receiver
    out, new = game.apply(state_at(RED_PINS_SHOT[0], 2, (40, 66)), sim(*RED_PINS_SHOT))
    assert out.foul and new.game_over and new.ranking == (1, 0)


@pytest.mark.parametrize("n_players, seed", [(2, 0), (4, 1)])
def test_K1_K21_K22_full_random_game_runs_to_its_end(n_players, seed):
    record = play_game(n_players, seed=seed, max_shots=3000)
    assert record["ranking"] is not None, "the game did not end"
    assert sorted(record["ranking"]) == list(range(n_players))
    shots = record["shots"]
    # K-1: the turn passes after every shot, to a player still in
    for a, b in zip(shots, shots[1:], strict=False):
        assert b["shooter"] == a["next_player"]
    # scores add up: every point credited comes from shooter points or skæve
    total = sum(s["shooter_points"] + s["skaeve"] * len(s["skaeve_to"]) for s in shots)
    assert total == sum(record["state"]["scores"])


# --- differential check: the vectorised referee against a plain per-event one ----------------

def reference(res, t):
    """K-5..K-14 read event by event, the slow obvious way (no clean 16, no options)."""
    n = int(res.n_events[t])
    ev = res.events(t)
    up0, up = res.pins_up0[t], res.pins_up[t]
    down = [p for p in range(5) if up0[p] and not up[p]]
    # chain roots through pin_pin events
    parent = {}
    for typ, _, i, j in ev:
        if typ == "pin_pin" and j not in parent:
            parent[j] = i
    def root(p):
        while p in parent:
            p = parent[p]
        return p
    red_touch = math.inf
    touched = set()
    cushion = False
    for typ, time, i, j in ev[:n]:
        if typ == "ball_ball" and i == 0:
            touched.add(j)
            red_touch = min(red_touch, time)
        if typ == "ball_cushion":
            cushion = True
            if i == 0:
                red_touch = min(red_touch, time)
    rodt = touched == {1, 2}
    first_rw = min((tm for typ, tm, i, j in ev if typ == "ball_ball" and i == 0), default=None)
    blegt = (not rodt and first_rw is not None and
             any(typ == "ball_ball" and (i, j) == (1, 2) and tm >= first_rw
                 for typ, tm, i, j in ev))
    red_pins = [p for p in down if res.pin_toppler[t, p] & 1]
    k12 = any(res.pin_topple_time[t, root(p)] < red_touch for p in red_pins)
    k13 = any(res.pin_topple_time[t, root(p)] >= red_touch for p in red_pins)
    pocketed = [b for b in range(3) if res.motion[t, b] == 4]
    pins = 2 * len(down)
    if all(up0) and down == [0]:
        pins = 6
    points = pins + 2 * len([b for b in pocketed if b > 0]) + (4 if rodt or blegt else 0)
    fouls = set()
    if not cushion:
        fouls.add("K-10")
    if not touched:
        fouls.add("K-11")
    if k12:
        fouls.add("K-12")
    if k13:
        fouls.add("K-13")
    if 0 in pocketed:
        fouls.add("K-14")
    if len(pocketed) == 3:
        fouls = set()
    return points, fouls, rodt, blegt


def test_vectorised_referee_matches_per_event_reference():
    rng = np.random.default_rng(7)
    T = 400
    xy = np.zeros((T, 3, 2))
    xy[:, 1] = [-0.525, 0.0]
    xy[:, 2] = [0.525, 0.0]
    xy[:, 0, 0] = rng.uniform(-0.99, -0.56, T)
    xy[:, 0, 1] = rng.uniform(-0.45, 0.45, T)
    aim = np.where(rng.random(T) < 0.5, 1, 2)
    d = xy[np.arange(T), aim] - xy[:, 0]
    phi = np.degrees(np.arctan2(d[:, 1], d[:, 0])) + rng.normal(0, 8, T)
    cue = np.stack([rng.uniform(0.5, 5.0, T), phi, np.zeros(T), rng.uniform(-0.4, 0.4, T),
                    rng.uniform(-0.4, 0.4, T)], 1)
    res = sim(xy, cue)
    s = score_shots(res)
    for t in range(T):
        if s.clean16[t]:
            continue
        points, fouls, rodt, blegt = reference(res, t)
        assert s.points[t] == points, (t, res.events(t))
        assert set(s.fouls_of(t)) == fouls, (t, res.events(t))
        assert (s.rodt[t], s.blegt[t]) == (rodt, blegt)
    # the batch exercised the rules it checks
    assert s.foul.any() and (~s.foul).any() and s.pins_toppled.any() and s.rodt.any()


def test_K21_cli_score_real_shot_object():
    """``score`` with a physics shot object: the state supplies the balls and the pins."""
    xy, cue = KING_SHOT
    state = {"players": 3, "scores": [66, 0, 0],
             "balls": {"red": xy[0], "white": xy[1], "spotted": xy[2]}}
    res = score_json({"state": state, "shot": {"balls": {}, "strike": {
        "ball": "red", "V0": cue[0], "phi": cue[1], "theta": 0.0, "a": 0.0, "b": 0.0}}})
    out = res["outcome"]
    assert out["king_alone"] and out["points"] == 6 and out["finished"] == [0]
    assert res["state"]["to_play"] == 1 and res["state"]["finished"] == [0]
    # the next shot from the returned state, with a pin still down in it, also runs
    res["state"]["pins"]["pin2"] = False
    again = score_json({"state": res["state"], "shot": {"balls": {}, "strike": {
        "ball": "red", "V0": 2.0, "phi": 180.0}}})
    assert again["outcome"]["shooter"] == 1


def test_K24_lag_real_shots():
    """Both players drive a white to the top cushion at once; the nearer to the bottom wins."""
    xy = np.array([[[0.0, 0.0], [-0.8, -0.2], [-0.8, 0.2]]] * 4)
    present = np.array([[False, True, True]] * 4)
    speeds = [(2.0, 2.0), (2.0, 2.6), (2.6, 2.0), (1.9, 2.1)]
    cue = np.array([[[v0, 0.0, 0.0, 0.0, 0.0], [v1, 0.0, 0.0, 0.0, 0.0]] for v0, v1 in speeds])
    res = simulate(TABLE, PARAMS, xy, cue_ball=np.array([[1, 2]] * 4), cue=cue, present=present)
    winner = judge_lag(res)
    x = res.rvw[:, 1:, 0, 0]
    assert winner[0] == -1  # the same stroke on mirrored lines stops equally far
    for t in range(1, 4):
        assert winner[t] == int(np.argmin(x[t])), (t, x[t], res.events(t))
