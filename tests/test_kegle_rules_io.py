"""Keglebillard rule-set config, input validation, game-state JSON and the CLI."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from cuegym.configs import ConfigError, load_table
from cuegym.rules import __main__ as cli
from cuegym.rules.keglebillard import (
    BALL_IDS,
    PIN_IDS,
    KeglebillardRules,
    build_log,
    load_rules,
    log_from_json,
    read_log,
    score_shots,
)
from cuegym.rules.keglebillard_game import GameState, KeglebillardGame, score_json

HIT = [(0.10, "ball_ball", "red", "white"), (0.30, "cushion", "white", 1)]


# --- rule-set config (K-4, K-10, K-13, K-16, K-17, K-19, K-21, K-25) ------------------------- ---

def test_rules_file_defaults_are_the_spec_defaults():
    rules = load_rules()
    assert rules == KeglebillardRules()
    assert rules.as_dict() == {"variant": "house", "first_player": "player0",
                               "cushion_before_pins": False, "frhv_nakkebal": False,
                               "skaeve_to": "all", "ball_in_hand_area": "cloth",
                               "unsporting_loss": False, "distance": 70}


def test_rules_overrides_and_mapping():
    assert load_rules(distance=50).distance == 50
    assert load_rules({"variant": "ddbu"}).ddbu


@pytest.mark.parametrize("bad, match", [
    ({"colour": "red"}, "unknown keglebillard rule option"),
    ({"variant": "snooker"}, "rules.variant"),
    ({"first_player": "oldest"}, "rules.first_player"),
    ({"skaeve_to": "me"}, "rules.skaeve_to"),
    ({"ball_in_hand_area": "pocket"}, "rules.ball_in_hand_area"),
    ({"frhv_nakkebal": "yes"}, "rules.frhv_nakkebal"),
    ({"distance": 0}, "rules.distance"),
    ({"distance": 70.5}, "rules.distance"),
])
def test_rules_bad_options_raise(bad, match):
    with pytest.raises(ConfigError, match=match):
        load_rules(bad)
    assert issubclass(ConfigError, ValueError)


def test_rules_file_path(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text("variant: ddbu\ndistance: 100\n")
    rules = load_rules(p)
    assert rules.ddbu and rules.distance == 100
    p.write_text("variant: ddbu\nspeed: 3\n")
    with pytest.raises(ConfigError, match="speed"):
        load_rules(p)


def test_ids_match_the_table_config():
    table = load_table("keglebillard")
    assert tuple(table.ball_ids) == BALL_IDS and tuple(table.pin_ids) == PIN_IDS


# --- bad logs ------------------------------------------------------------------------------------

def test_read_log_accepts_simresult_like_namespaces():
    lg = build_log(HIT)
    ns = SimpleNamespace(**{k: getattr(lg, k) for k in lg.__dataclass_fields__})
    assert score_shots(ns).points.tolist() == [0]
    d = {k: getattr(lg, k) for k in lg.__dataclass_fields__}
    assert score_shots(d).foul.tolist() == [False]


@pytest.mark.parametrize("field, value, match", [
    ("ev_time", lambda a: np.where(np.arange(a.shape[1]) == 0, np.nan, a), "ev_time"),
    ("n_events", lambda a: a + 100, "n_events"),
    ("pins_up", lambda a: a[:, :4], "pins_up"),
    ("ev_type", lambda a: a + 20, "ev_type"),
    ("ev_i", lambda a: a + 7, "ev_i"),
    ("rvw0", lambda a: a * np.nan, "rvw0"),
    ("pins_up", lambda a: a.astype(int), "boolean"),
])
def test_read_log_bad_values_raise_naming_the_field(field, value, match):
    lg = build_log(HIT)
    d = {k: getattr(lg, k) for k in lg.__dataclass_fields__}
    d[field] = value(d[field])
    with pytest.raises(ValueError, match=match):
        read_log(d)


def test_read_log_missing_field():
    lg = build_log(HIT)
    d = {k: getattr(lg, k) for k in lg.__dataclass_fields__ if k != "pin_toppler"}
    with pytest.raises(ValueError, match="pin_toppler"):
        read_log(d)


def test_bad_salvo_and_injected_shapes():
    lg = build_log(HIT)
    with pytest.raises(ValueError, match="salvo_line"):
        score_shots(lg, salvo_line=[True, False])
    with pytest.raises(ValueError, match="one entry per table"):
        score_shots(lg, injected=[[], []])
    with pytest.raises(ValueError, match="must be a list"):
        score_shots(lg, injected=[{"type": "touche"}])


# --- hand-built logs: the table and the rest layout ----------------------------------------------

HELMATCH = "keglebillard-helmatch"


def test_build_log_table_sets_the_default_start_and_the_geometry():
    from cuegym.rules.keglebillard_log import DEFAULT_START, table_start

    assert table_start() == DEFAULT_START
    assert table_start(HELMATCH) == {"red": (-0.885, 0.1), "white": (-0.71, 0.0),
                                     "spotted": (0.71, 0.0)}
    lg = build_log(HIT, table=load_table(HELMATCH))  # a TableSpec works as well as a name
    assert lg.rvw0[0, :, 0, :2].tolist() == [[-0.885, 0.1], [-0.71, 0.0], [0.71, 0.0]]
    with pytest.raises(ValueError, match="build_log table: unknown table 'snooker'"):
        build_log(HIT, table="snooker")
    with pytest.raises(ValueError, match="build_log table: table 'golfbillard' is not a "
                                         "keglebillard table"):
        build_log(HIT, table="golfbillard")
    with pytest.raises(ValueError, match="pocket index must be an integer in"):
        build_log(HIT + [(0.5, "pocket", "white", 6)])


def test_build_log_table_matters_end_to_end():
    """The same hand-built shot on kleinmatch and on helmatch: a rest position off the small
    cloth, a pocketed ball in a small-table pocket; scored and applied on its own table, and the
    next state reads back through the state JSON."""
    far = {"white": (-1.2, 0.3)}  # on the helmatch cloth, past the kleinmatch cushion
    with pytest.raises(ValueError, match=r"'build_log end.white' at \(-1.2000, 0.3000\) is "
                                         "off the cloth"):
        build_log(HIT, end=far)
    game = KeglebillardGame(table=HELMATCH)
    out, s = game.apply(game.new_state(2), build_log(HIT, end=far, table=HELMATCH))
    assert out.played and not out.foul
    assert s.balls[1] == (-1.2, 0.3) and GameState.from_dict(s.to_dict()) == s
    # a log for the wrong table does not start from the state
    with pytest.raises(ValueError, match=r"the log starts the white ball at \[-0.525, 0.0\], "
                                         r"the state has it at \[-0.71, 0.0\]"):
        game.apply(game.new_state(2), build_log(HIT, end=far | {"white": (0.3, 0.3)}))
    # a white dropped into pocket 0, resting at the kleinmatch pocket's centre
    drop = HIT + [(0.9, "pocket", "white", 0)]
    small = build_log(drop, end={"white": (-1.05, -0.525)})
    out, s = KeglebillardGame().apply(KeglebillardGame().new_state(2), small)
    assert out.whites_pocketed == ("white",) and GameState.from_dict(s.to_dict()) == s
    with pytest.raises(ValueError, match=r"build_log end.white at \(-1.0500, -0.5250\) is not in "
                                         r"pocket 0 \(bottom_left_corner\) it dropped into on "
                                         "table 'keglebillard-helmatch'"):
        build_log(drop, end={"white": (-1.05, -0.525)}, table=HELMATCH)
    big = build_log(drop, table=HELMATCH)  # default: it rests at its pocket's centre
    assert big.rvw[0, 1, 0, :2].tolist() == [-1.42, -0.71]
    out, s = game.apply(game.new_state(2), big)
    assert out.whites_pocketed == ("white",) and GameState.from_dict(s.to_dict()) == s


@pytest.mark.parametrize("events, end, match", [
    (HIT, {"white": (0.0, 0.082)},
     r"'build_log end.white' at \(0.0000, 0.0820\) overlaps standing pin 2 \(pin2\)$"),
    (HIT, {"red": (-0.082, 0.03)},
     r"'build_log end.red' at \(-0.0820, 0.0300\) overlaps standing pin 3 \(pin3\)$"),
    (HIT, {"white": (0.3, 0.2), "spotted": (0.33, 0.2)},
     r"'build_log end.white' and 'build_log end.spotted' overlap \(centres 0.03000 m apart, "
     r"need >= 2R = 0.06150 m\); build_log end.white = \(0.3000, 0.2000\), build_log "
     r"end.spotted = \(0.3300, 0.2000\)$"),
    (HIT, {"spotted": (1.2, 0.0)},
     r"'build_log end.spotted' at \(1.2000, 0.0000\) is off the cloth \(outside the cushions"),
    (HIT, {"spotted": (-0.99, -0.5)},
     r"'build_log end.spotted' at \(-0.9900, -0.5000\) is off the cloth \(overlapping "
     "cushion 0"),
    (HIT, {"spotted": (1.04, 0.52)},
     r"'build_log end.spotted' is inside pocket 2 \(top_right_corner\); place it on the "
     r"cloth; build_log end.spotted = \(1.0400, 0.5200\)$"),
    (HIT + [(0.9, "pocket", "white", 4)], {"white": (0.0, -0.3)},
     r"build_log end.white at \(0.0000, -0.3000\) is not in pocket 4 \(bottom_side\)"),
    (HIT, {"whitey": (0.0, 0.3)}, r"build_log end.whitey is an unknown ball 'whitey'"),
])
def test_build_log_refuses_an_illegal_rest_layout(events, end, match):
    with pytest.raises(ValueError, match=match):
        build_log(events, end=end)


def test_build_log_refuses_an_event_after_a_drop_and_an_illegal_white_start():
    with pytest.raises(ValueError, match=r"build_log events\[1\]\[2\] names 'white' after it "
                                         r"dropped into a pocket at build_log events\[0\]"):
        build_log([(0.1, "pocket", "white", 0), (0.2, "cushion", "white", 1)])
    # listed out of time order: the order of the times counts
    with pytest.raises(ValueError, match=r"events\[0\]\[2\] names 'white' after it dropped"):
        build_log([(0.2, "cushion", "white", 1), (0.1, "pocket", "white", 0)])
    # a white's start is checked (only the red's may be unplayable: a K-19 placement foul)
    with pytest.raises(ValueError, match=r"'build_log start.white' at \(0.0000, 0.0000\) "
                                         r"overlaps standing pin 0 \(king\)"):
        build_log([(0.1, "ball_ball", "red", "white")], start={"white": (0, 0)},
                  end={"white": (0, 0)})
    build_log([(0.1, "cushion", "white", 1)], start={"red": (0, 0)})  # the red on the king


def test_build_log_legal_rest_layouts_pass_and_read_back():
    game = KeglebillardGame()
    state = GameState.from_dict({"players": 2, "balls": {
        "red": [-0.7, 0.1], "white": [-0.525, 0.0], "spotted": [0.525, 0.0]}})
    for events, end in [
        (HIT + [(0.8, "pin", "white", "pin2")], {"white": (0.0, 0.082)}),  # on a fallen pin's spot
        (HIT, {"white": (0.0, 0.082 + 0.04075), "spotted": (0.0, 0.082 + 0.04075 + 0.0615)}),
        (HIT + [(0.9, "pocket", "white", 4)], {"white": (0.0, -0.56)}),  # in its capture circle
        (HIT, {"spotted": (1.05 - 0.03075, 0.0)}),  # touching the short cushion
    ]:
        out, s = game.apply(state, build_log(events, end=end))
        assert out.played and GameState.from_dict(s.to_dict()) == s
    # a red placed where it cannot be played is no shot: its rest layout is not checked
    hand = GameState.from_dict({"players": 2, "balls": {
        "red": None, "white": [-0.525, 0.0], "spotted": [0.525, 0.0]}, "ball_in_hand": "cloth"})
    out, s = game.apply(hand, build_log(HIT, start={"red": (-0.53, 0.0)}))
    assert not out.played and out.fouls == ("K-19:placement",) and s.balls == hand.balls


# --- game-state JSON -----------------------------------------------------------------------------

def test_state_json_round_trip():
    game = KeglebillardGame()
    s = game.new_state(3)
    assert GameState.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    _, s2 = game.apply(GameState.from_dict({"players": 2, "balls": {
        "red": [-0.7, 0.1], "white": [-0.525, 0.0], "spotted": [0.525, 0.0]}}), build_log(HIT))
    assert GameState.from_dict(s2.to_dict()) == s2


def test_state_json_minimal_is_a_new_game():
    s = GameState.from_dict({"players": 4})
    assert s == KeglebillardGame().new_state(4)


@pytest.mark.parametrize("bad, match", [
    ({"players": 2, "score": [1, 2]}, "unknown key"),
    ({"players": 1}, "N >= 2"),
    ({"players": 2, "scores": [1]}, "scores"),
    ({"players": 2, "to_play": 5}, "to_play"),
    ({"players": 2, "balls": {"red": None}}, "state.balls"),
    ({"players": 2, "balls": {"red": [0.1, float("nan")], "white": None, "spotted": None},
      "ball_in_hand": None}, "finite"),
    ({"players": 2, "pins": [True] * 4}, "pins"),
    ({"players": 2, "ball_in_hand": "pocket"}, "ball_in_hand"),
    ({"players": 2, "ball_in_hand": None}, "in hand"),
    ({"players": "two"}, "integer"),
    ({}, "players"),
])
def test_state_json_bad_input_raises(bad, match):
    with pytest.raises(ValueError, match=match):
        GameState.from_dict(bad)


def test_outcome_json_is_serialisable():
    game = KeglebillardGame()
    s = GameState.from_dict({"players": 2, "balls": {
        "red": [-0.7, 0.1], "white": [-0.525, 0.0], "spotted": [0.525, 0.0]}})
    out, _ = game.apply(s, build_log(HIT + [(0.8, "pin", "white", "king")]))
    d = json.loads(json.dumps(out.to_dict()))
    assert d["points"] == 6 and d["king_alone"] and d["pins_toppled"] == {"king": ["white"]}


# --- physics output JSON -> log ------------------------------------------------------------------

def test_log_from_json_recovers_topple_times_and_chains():
    out = {"final": {"red": {"x": 0.1, "y": 0.2, "state": "stationary", "pocket": None},
                     "white": {"x": 0.3, "y": 0.3, "state": "stationary", "pocket": None},
                     "spotted": {"x": 1.03, "y": 0.51, "state": "pocketed", "pocket": 2}},
           "pins": {"king": {"standing": False, "toppled_by": "red"},
                    "pin1": {"standing": False, "toppled_by": "red"},
                    **{p: {"standing": True, "toppled_by": None}
                       for p in ("pin2", "pin3", "pin4")}},
           "events": [{"time": 0.1, "type": "ball_cushion", "agents": ["red", "cushion3"]},
                      {"time": 0.3, "type": "ball_pin", "agents": ["red", "king"]},
                      {"time": 0.35, "type": "transition", "agents": ["red"],
                       "state": "rolling"},
                      {"time": 0.4, "type": "pin_pin", "agents": ["king", "pin1"]},
                      {"time": 0.6, "type": "ball_ball", "agents": ["white", "red"]},
                      {"time": 0.9, "type": "ball_pocket", "agents": ["spotted",
                                                                      "top_right_corner"]}],
           "n_events": 6, "t_end": 2.0, "overflow": False, "end_reason": "rest"}
    lg = log_from_json(out, start={"red": (-0.7, 0.1), "white": (-0.5, 0.2),
                                   "spotted": (0.5, 0.0)})
    assert lg.pin_topple_time[0, :2].tolist() == [0.3, 0.4]
    assert lg.ev_i[0, 4] == 0 and lg.ev_j[0, 4] == 1 and lg.ev_j[0, 5] == 2
    s = score_shots(lg)
    assert s.fouls_of(0) == ("K-13",) and s.points[0] == 2 + 2 + 2


# --- CLI -----------------------------------------------------------------------------------------

def run_cli(argv, stdin=""):
    old_in, old_out, old_err = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), io.StringIO(), io.StringIO()
    try:
        rc = cli.main(argv)
        return rc, sys.stdout.getvalue(), sys.stderr.getvalue()
    finally:
        sys.stdin, sys.stdout, sys.stderr = old_in, old_out, old_err


def test_cli_new_state():
    rc, out, _ = run_cli(["new", "--game", "keglebillard", "--players", "3"])
    assert rc == 0 and json.loads(out)["order"] == [0, 1, 2]


def test_cli_score_log_input_and_errors():
    log = {"final": {b: {"x": x, "y": y, "state": "stationary", "pocket": None}
                     for b, (x, y) in {"red": (0.2, 0.3), "white": (0.4, -0.2),
                                       "spotted": (0.525, 0.0)}.items()},
           "pins": {p: {"standing": True, "toppled_by": None} for p in PIN_IDS},
           "events": [{"time": 0.1, "type": "ball_ball", "agents": ["red", "white"]},
                      {"time": 0.5, "type": "ball_cushion", "agents": ["white", "cushion0"]}],
           "n_events": 2, "t_end": 3.0, "overflow": False, "end_reason": "rest"}
    obj = {"state": {"players": 2}, "log": log, "place": [-0.8, 0.2],
           "inject": [{"type": "touche"}]}
    rc, out, err = run_cli(["score", "--game", "keglebillard"], json.dumps(obj))
    res = json.loads(out)
    assert rc == 0 and res["outcome"]["fouls"] == ["K-16:touche"]
    assert res["state"]["ball_in_hand"] == "cloth" and res["state"]["scores"] == [0, 6]
    # the same with a list of inputs gives a list
    rc, out, _ = run_cli(["score"], json.dumps([obj, obj]))
    assert rc == 0 and len(json.loads(out)) == 2
    # errors: one line on stderr, exit 2
    rc, _, err = run_cli(["score"], json.dumps({"state": {"players": 2}, "log": log}))
    assert rc == 2 and "ball in hand" in err
    rc, _, err = run_cli(["score"], "{not json")
    assert rc == 2 and "not valid JSON" in err
    twice = json.dumps(obj)[:-1] + ', "place": [-0.8, -0.2]}'  # was: the last place, silently
    rc, _, err = run_cli(["score"], twice)
    assert rc == 2 and "the key 'place' appears twice in one object" in err
    rc, _, err = run_cli(["score"], json.dumps({"state": {"players": 2}, "lg": {}}))
    assert rc == 2 and "input has unknown key" in err
    rc, _, err = run_cli(["score", "--game", "snooker"], "{}")
    assert rc == 2 and "unknown game" in err


def test_cli_golfbillard_is_dispatched_lazily(monkeypatch):
    monkeypatch.setitem(cli.GAMES, "golfbillard", ("cuegym.rules.no_such_golf_module",))
    rc, _, err = run_cli(["score", "--game", "golfbillard"], "{}")
    assert rc == 2 and "golfbillard rules are not available" in err


def test_score_json_placement_foul():
    res = score_json({"state": {"players": 2}, "shot": {
        "balls": {"red": {"x": -0.53, "y": 0.0}},
        "strike": {"ball": "red", "V0": 2.0, "phi": 0.0}}})
    assert res["outcome"]["fouls"] == ["K-19:placement"] and not res["outcome"]["played"]


def test_rules_import_without_gymnasium():
    code = ("import sys; sys.modules['gymnasium'] = None; "
            "import cuegym.rules.keglebillard, cuegym.rules.keglebillard_game; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "ok"


def test_score_json_shot_must_agree_with_state():
    state = {"players": 2, "balls": {"red": [-0.7, 0.1], "white": [-0.525, 0.0],
                                     "spotted": [0.525, 0.0]}}
    strike = {"ball": "red", "V0": 2.0, "phi": 0.0}
    with pytest.raises(ValueError, match="differs from the state"):
        score_json({"state": state, "shot": {"balls": {"white": {"x": 0.0, "y": 0.3}},
                                             "strike": strike}})
    with pytest.raises(ValueError, match="standing pins"):
        score_json({"state": state, "shot": {"balls": {}, "pins": ["king"], "strike": strike}})
    with pytest.raises(ValueError, match="does not have ball in hand"):
        score_json({"state": state, "log": {"final": {}, "pins": {}, "events": []},
                    "place": [0.0, 0.3]})


@pytest.mark.parametrize("code, limit", [(1, "max_events"), (2, "t_max")])
def test_KP6_overflowed_shot_is_refused_unless_the_caller_opts_in(code, limit):
    # K-P6: a shot ends when everything is at rest; a log cut off by a limit is not scored as
    # if it had come to rest unless the caller says so
    log = build_log(HIT, overflow=code)
    with pytest.raises(ValueError, match=rf"table 0.*{limit}.*allow_overflow=True"):
        score_shots(log)
    s = score_shots(log, allow_overflow=True)
    assert int(s.overflow[0]) == code and not s.foul[0]
    with pytest.raises(ValueError, match="allow_overflow must be true or false"):
        score_shots(log, allow_overflow="yes")
    game = KeglebillardGame()
    state = GameState(order=(0, 1), scores=(0, 0), to_play=0,
                      balls=((-0.7, 0.1), (-0.525, 0.0), (0.525, 0.0)), ball_in_hand=None)
    with pytest.raises(ValueError, match="allow_overflow"):
        game.apply(state, log)
    with pytest.raises(ValueError, match="allow_overflow"):
        game.apply_log([state], log)
    out, _ = game.apply(state, log, allow_overflow=True)
    assert out.overflow == code
    # the JSON interface: refused unless "allow_overflow": true
    jlog = {"final": {b: {"x": x, "y": y, "state": "stationary", "pocket": None}
                      for b, (x, y) in {"red": (0.2, 0.3), "white": (0.4, -0.2),
                                        "spotted": (0.525, 0.0)}.items()},
            "pins": {p: {"standing": True, "toppled_by": None} for p in PIN_IDS},
            "events": [{"time": 0.1, "type": "ball_ball", "agents": ["red", "white"]},
                       {"time": 0.5, "type": "ball_cushion", "agents": ["white", "cushion0"]}],
            "n_events": 2, "t_end": 3.0, "overflow": True, "end_reason": limit}
    obj = {"state": state.to_dict(), "log": jlog}
    with pytest.raises(ValueError, match=rf"^log: the simulation stopped at its {limit} limit "
                                         r".*allow_overflow"):  # the input's key, not table 0
        score_json(obj)
    assert score_json({**obj, "allow_overflow": True})["outcome"]["overflow"] == code
