"""Hostile input to both referees, property-based (issue 13): hypothesis (derandomized, so the
suite is reproducible) mutates the valid inputs of :mod:`referee_inputs` at every path; every
mutation is scored or refused in one line, equivalent inputs score alike, and real physics
outputs and real game states are accepted. The hand-written cases are in
``test_rules_hostile.py``.
"""

from __future__ import annotations

import copy
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mutations import at, paths, replaced
from referee_inputs import MID, golf_input, golf_states_input, kegle_input

from cuegym.physics import simulate_json
from cuegym.rules import golf_json
from cuegym.rules import golfbillard_game as golf_game
from cuegym.rules.golfbillard import GolfState, load_golf_rules
from cuegym.rules.keglebillard_game import GameState, KeglebillardGame, play_game
from cuegym.rules.keglebillard_game import score_json as kegle_score

HYPO = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def _paths(obj) -> list[tuple]:
    """Every path into a JSON tree (objects and lists, every item), leaves and inner nodes."""
    return [p for p in paths(obj, max_items=None) if p]


def _leaves(obj) -> list[tuple]:
    return [p for p in _paths(obj) if not isinstance(at(obj, p), dict | list)]


HOSTILE = [None, True, False, 0, -1, 1.5, -1e308, 1e308, float("nan"), float("inf"),
           float("-inf"), "", "zzz", "0.5", [], [1, 2], {}, {"x": 1}, 10 ** 30, [[[]]]]

K_IN, G_IN, S_IN = kegle_input(), golf_input(), golf_states_input()
# free-text leaves where any string is valid
FREE_TEXT = {("inject", 0, "by")}
K_PATHS, G_PATHS = _paths(K_IN), _paths(G_IN)
K_LEAVES = [p for p in _leaves(K_IN) if p not in FREE_TEXT]
G_LEAVES = _leaves(G_IN)
S_PATHS, S_LEAVES = _paths(S_IN), _leaves(S_IN)
#: Per game: (valid input, its paths, its leaves, the scoring function); ``golf_states`` is a
#: golfbillard input whose log carries the balls' states (``event_states``).
INPUTS = {"kegle": (K_IN, K_PATHS, K_LEAVES, kegle_score),
          "golf": (G_IN, G_PATHS, G_LEAVES, golf_json.score_json),
          "golf_states": (S_IN, S_PATHS, S_LEAVES, golf_json.score_json)}


def _accepts_or_refuses(fn, payload) -> bool:
    """True if ``fn`` scored ``payload``; False for a clear one-line ValueError. Any other
    exception fails the test."""
    try:
        out = fn(payload)
    except ValueError as exc:
        msg = str(exc)
        assert msg and "\n" not in msg and len(msg) < 600, msg
        return False
    json.dumps(out, allow_nan=False)  # the result is plain, finite JSON
    return True


@HYPO
@given(game=st.sampled_from(list(INPUTS)), data=st.data())
def test_any_mutation_is_scored_or_refused_clearly(game, data):
    base, paths, _, fn = INPUTS[game]
    path = data.draw(st.sampled_from(paths))
    parent = at(base, path[:-1])
    if isinstance(parent, dict) and data.draw(st.booleans()):
        payload = replaced(base, path, delete=True)
    else:
        payload = replaced(base, path, data.draw(st.sampled_from(HOSTILE)))
    _accepts_or_refuses(fn, payload)


@HYPO
@given(game=st.sampled_from(list(INPUTS)), data=st.data())
def test_a_wrong_type_or_non_finite_leaf_is_always_refused(game, data):
    """Every leaf is a number, a boolean, null or a name from a fixed set: a NaN, an object, a
    list of lists or an unknown string in its place is never a valid input."""
    base, _, leaves, fn = INPUTS[game]
    path = data.draw(st.sampled_from(leaves))
    value = data.draw(st.sampled_from([float("nan"), float("inf"), {"x": 1}, [[[]]], "zzz"]))
    assert not _accepts_or_refuses(fn, replaced(base, path, value)), (path, value)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(data=st.data())
def test_several_mutations_at_once_are_scored_or_refused_clearly(data):
    for base, _, _, fn in INPUTS.values():
        payload = copy.deepcopy(base)
        for _ in range(data.draw(st.integers(2, 5))):
            live = _paths(payload)
            if not live:
                break
            path = data.draw(st.sampled_from(live))
            payload = replaced(payload, path, data.draw(st.sampled_from(HOSTILE)))
        _accepts_or_refuses(fn, payload)


OPTIONAL_LOG_KEYS = ("n_events", "t_end", "overflow", "end_reason")


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(game=st.sampled_from(["kegle", "golf"]), data=st.data())
def test_equivalent_inputs_give_the_same_result(game, data):
    """The correct result, not just any: dropping the log's optional keys (``t_end`` only when
    the referee does not read it) and reordering the objects' keys change nothing."""
    base, fn = (K_IN, kegle_score) if game == "kegle" else (G_IN, golf_json.score_json)
    want = fn(copy.deepcopy(base))
    payload = copy.deepcopy(base)
    drop = data.draw(st.lists(st.sampled_from(OPTIONAL_LOG_KEYS), unique=True))
    for key in drop:
        if not (game == "golf" and key == "t_end"):  # golf reads t_end (drops at the end)
            del payload["log"][key]
    for obj in (payload["log"]["final"], payload["log"]["pins"], payload["state"]):
        keys = data.draw(st.permutations(list(obj)))
        items = [(k, obj.pop(k)) for k in keys]
        obj.update(items)
    assert fn(payload) == want


@pytest.mark.slow
@pytest.mark.parametrize("game", list(INPUTS))
def test_every_path_with_every_hostile_value(game):
    """The exhaustive version of the two properties above (about 2,700 inputs per game)."""
    base, paths, leaves, fn = INPUTS[game]
    for path in paths:
        if isinstance(at(base, path[:-1]), dict):
            _accepts_or_refuses(fn, replaced(base, path, delete=True))
        for value in HOSTILE:
            ok = _accepts_or_refuses(fn, replaced(base, path, value))
            never = (isinstance(value, float) and not math.isfinite(value)) or value in (
                "zzz", {"x": 1}, [[[]]])
            assert not (ok and never and path in leaves), (path, value)


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(v0=st.floats(0.5, 6.0), phi=st.floats(0.0, 360.0), a=st.floats(-0.5, 0.5),
       b=st.floats(-0.5, 0.5), theta=st.floats(0.0, 30.0))
def test_kegle_real_physics_logs_are_accepted_and_score_as_the_shot(v0, phi, a, b, theta):
    """The log route (a stored physics output) scores exactly like the shot route."""
    state = kegle_input()["state"]
    shot = {"strike": {"ball": "red", "V0": v0, "phi": phi, "theta": theta, "a": a, "b": b}}
    via_shot = kegle_score({"state": state, "shot": shot})
    out = simulate_json({"table": "keglebillard", "pins": True,
                         "balls": {k: {"x": x, "y": y} for k, (x, y) in
                                   state["balls"].items()}, **shot})
    via_log = kegle_score({"state": state, "log": json.loads(json.dumps(out))})
    assert via_log == via_shot


@settings(max_examples=15, deadline=None, derandomize=True, database=None)
@given(ball=st.sampled_from(["w1", "w2", "w3"]), v0=st.floats(0.3, 4.0),
       phi=st.floats(-180.0, 180.0), a=st.floats(-0.5, 0.5), b=st.floats(-0.5, 0.5))
def test_golf_real_physics_logs_are_accepted(ball, v0, phi, a, b):
    """Accepted; with the balls' states (``event_states``) scored exactly like the shot."""
    state = golf_input()["state"]
    strike = {"ball": ball, "V0": v0, "phi": phi, "a": a, "b": b}
    shot = {"table": "golfbillard", "balls": {k: {"x": x, "y": y} for k, (x, y) in MID.items()},
            "strike": strike}
    res = golf_json.score_json({"state": state, "log": json.loads(json.dumps(
        simulate_json(shot))), "strike": strike})
    assert res["state"]["stroke"] == 1
    with_states = golf_json.score_json({"state": state, "log": json.loads(json.dumps(
        simulate_json({**shot, "event_states": True}))), "strike": strike})
    assert with_states == golf_json.score_json({"state": state, "shot": {"strike": strike}})


def test_states_of_real_games_round_trip():
    """No false alarms: every state of real games (random strikes, physics) parses back."""
    game = KeglebillardGame()
    for seed, n in ((0, 2), (1, 3)):
        rec = play_game(n, seed=seed, max_shots=80)
        state = GameState.from_dict(rec["state"])
        game.check_state(state)
        assert state.to_dict() == rec["state"]
    for seed, rules in ((0, {}), (1, {"duo": True, "no_progress_turns": 2,
                                      "no_progress_window": 1})):
        r = load_golf_rules(**rules)
        end, hist = golf_game.run_game(r, seed=seed, max_strokes=60)
        assert GolfState.from_json(end.to_json(), rules=r).to_json() == end.to_json()
