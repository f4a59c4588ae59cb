"""The referees' CLI and JSON input, from the sixth outside audit (rules CLI): each case here
failed before its fix.

keglebillard ``score`` with a ``shot`` struck a white, or a second ball, and ignored a ``place``
beside it; ``shot.pins`` took ``false`` / ``0`` while pins stood and refused the standing pins
in another order; golfbillard played an opening stroke under the ``alternate`` opening (which
has none), named injected-event and shot-limit errors "table 0: ..." or without their path,
took strings and booleans as ``restore`` coordinates and gave an opening cut off under
``allow_overflow`` no ``overflow`` code or note; counters at the int64 limit wrapped; a huge
``--seed`` or ``--indent`` crashed with a traceback; stdin that is not UTF-8 was scored.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cuegym
from cuegym.cli_errors import seed_arg
from cuegym.rules.golf_json import score_json as golf_score
from cuegym.rules.golfbillard import new_state_json as golf_new_state
from cuegym.rules.keglebillard_game import score_json as kegle_score

ROOT = str(Path(cuegym.__file__).resolve().parent.parent)  # the directory holding the package

RED = {"red": {"x": -0.7, "y": 0.1}}
STRIKE = {"ball": "red", "V0": 3.0, "phi": 5.0}
NOT_IN_HAND = {"players": 2, "ball_in_hand": None, "shot": 3,
               "balls": {"red": [-0.7, 0.1], "white": [-0.3, 0.05], "spotted": [0.6, 0.3]}}
KING_DOWN = {**NOT_IN_HAND,
             "pins": {"king": False, "pin1": True, "pin2": True, "pin3": True, "pin4": True}}
G = {"phase": "play", "to_move": 0,
     "balls": {"w1": [0.5, 0.0], "w2": [-0.8, 0.0], "w3": [-0.3, 0.3], "w4": None, "w5": None,
               "r1": [0.3, 0.25], "r2": [0.3, -0.25], "r3": [-0.1, -0.3], "r4": None,
               "r5": None}}
OPEN = [{"ball": "w1", "V0": 1.1, "phi": 25}, {"ball": "r1", "V0": 1.0, "phi": -155}]
BASE = {"state": G, "strike": {"ball": "w1", "V0": 1.0, "phi": 3},
        "hand_log": {"events": [{"type": "rest", "t": 0.4, "ball": "w1", "at": [0.6, 0.0]}]}}
BIG = 2 ** 63 - 1


def _cli(argv: list[str], stdin: bytes = b"", tmp: Path | None = None
         ) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]),
               LC_ALL="C.UTF-8", CUEGYM_DEBUG="")
    return subprocess.run([sys.executable, "-m", "cuegym.rules", *argv], input=stdin,
                          capture_output=True, env=env, cwd=tmp, timeout=300)


# ---- 1. keglebillard: the shot strikes only the red (K-2) ----------------------------------

@pytest.mark.parametrize("shot, path", [
    ({"balls": RED, "strike": {"ball": "white", "V0": 3.0, "phi": 5.0}}, "shot.strike"),
    ({"balls": RED, "strike": [STRIKE, {"ball": "spotted", "V0": 5.0, "phi": 180.0}]},
     "shot.strike"),
    ({"balls": RED}, "shot.strike"),  # no strike: nothing would move
    ({"balls": {**RED, "white": {"v": [2.0, 0.5]}}, "strike": STRIKE}, "shot.balls.white"),
    ({"balls": {**RED, "spotted": {"x": 0.525, "y": 0.0, "w": [0.0, 30.0, 0.0]}},
      "strike": STRIKE}, "shot.balls.spotted"),
])
def test_kegle_shot_form_strikes_only_the_red(shot, path):
    with pytest.raises(ValueError) as info:
        kegle_score({"state": {"players": 2}, "shot": shot})
    assert str(info.value).startswith(path), str(info.value)


def test_kegle_shot_form_still_takes_one_strike_of_the_red_in_a_list():
    out = kegle_score({"state": {"players": 2}, "shot": {"balls": RED, "strike": [STRIKE]}})
    assert out["outcome"]["shooter"] == 0


# ---- 2. keglebillard: 'place' beside a 'shot' ----------------------------------------------

@pytest.mark.parametrize("payload", [
    {"state": {"players": 2}, "place": [-0.9, -0.3], "shot": {"balls": RED, "strike": STRIKE}},
    {"state": NOT_IN_HAND, "place": [-0.9, -0.3], "shot": {"strike": STRIKE}},
])
def test_kegle_place_beside_a_shot_is_refused(payload):
    with pytest.raises(ValueError, match="^'place' goes with a 'log' or 'hand_log'"):
        kegle_score(payload)


# ---- 3. golfbillard: the alternate opening has no opening stroke ---------------------------

def test_golf_alternate_rules_refuse_a_state_in_the_opening_phase():
    with pytest.raises(ValueError, match=r"^state\.phase is 'opening'.*'alternate'"):
        golf_score({"state": golf_new_state(2), "rules": {"opening": "alternate"},
                    "shot": {"strike": OPEN}})


def test_golf_alternate_rules_accept_their_new_match_and_its_next_state():
    out = golf_score({"state": None, "rules": {"opening": "alternate"},
                      "shot": {"strike": {"ball": "w2", "V0": 1.0, "phi": 10}}})
    assert out["state"]["phase"] in ("play", "over")
    if out["state"]["phase"] == "play":  # fed back under the same rules
        golf_score({"state": out["state"], "rules": {"opening": "alternate"},
                    "shot": {"strike": {"ball": "r1" if out["state"]["to_move"] else "w2",
                                        "V0": 0.5, "phi": 3}}})
    # the CLI's new state (phase opening) is still the default rules' start
    golf_score({"state": golf_new_state(2), "shot": {"strike": OPEN}})


# ---- 4. big numbers on the command line ----------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["new", "--game", "golfbillard", "--seed", str(2 ** 63)],
    ["play", "--game", "golfbillard", "--seed", str(10 ** 30), "--max-shots", "1"],
    ["new", "--indent", str(10 ** 22)],
])
def test_big_numbers_are_usage_errors(argv, tmp_path):
    r = _cli(argv, tmp=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr[-300:])
    assert b"Traceback" not in r.stderr
    assert "error: " in r.stderr.decode().strip().splitlines()[-1]  # argparse: usage, then it


def test_seed_arg_bounds():
    assert seed_arg(str(2 ** 63 - 1)) == 2 ** 63 - 1
    with pytest.raises(argparse.ArgumentTypeError, match=r"^must be an integer below 2\*\*63"):
        seed_arg(str(2 ** 63))
    with pytest.raises(argparse.ArgumentTypeError, match=r"^must be an integer >= 0, got -1$"):
        seed_arg("-1")


# ---- 5. stdin that is not UTF-8 ------------------------------------------------------------

def test_score_refuses_non_utf8_stdin(tmp_path):
    text = (b'{"state": {"players": 2}, "shot": {"balls": {"red": {"x": -0.7, "y": 0.1}}, '
            b'"strike": {"ball": "red", "V0": 3.0, "phi": 5.0}}, '
            b'"inject": [{"type": "pin_toppled", "pins": ["king"], "by": "sle\xffve"}]}')
    r = _cli(["score"], text, tmp_path)
    assert r.returncode == 2, (r.returncode, r.stdout[:200])
    assert r.stdout == b""
    at = text.index(b"\xff")
    assert r.stderr.decode().strip() == ("error: stdin is not valid JSON: it is not UTF-8 text "
                                         f"(byte 0xff at offset {at})")


# ---- 6. keglebillard shot.pins --------------------------------------------------------------

@pytest.mark.parametrize("pins", [False, 0, 1, True, [], ["pin1", "pin1", "pin2", "pin3"],
                                  ["pin1", "pin2", "pin3", "pin4", "king"]])
def test_kegle_shot_pins_other_than_the_standing_ones_are_refused(pins):
    with pytest.raises(ValueError, match=r"^shot\.pins .* differs from the state's"):
        kegle_score({"state": KING_DOWN, "shot": {"strike": STRIKE, "pins": pins}})


@pytest.mark.parametrize("state, pins", [
    (KING_DOWN, ["pin4", "pin1", "pin2", "pin3"]),
    (NOT_IN_HAND, True),
    (NOT_IN_HAND, ["king", "pin4", "pin3", "pin2", "pin1"]),
])
def test_kegle_shot_pins_are_compared_as_a_set(state, pins):
    kegle_score({"state": state, "shot": {"strike": STRIKE, "pins": pins}})


# ---- 7, 8. golfbillard errors name their JSON path ------------------------------------------

def _deflect(restore=None, **kw):
    e = {"type": "foul", "kind": "deflect_own_ball", "ball": "w3", **kw}
    if restore is not None:
        e["restore"] = restore
    return {**BASE, "inject": [e]}


@pytest.mark.parametrize("payload, start", [
    (_deflect({"w2": ["-0.75", "0.05"]}), "inject[0].restore.w2[0] must be a number"),
    (_deflect({"w2": [False, 0.05]}), "inject[0].restore.w2[0] must be a number"),
    (_deflect({"w2": [-0.8, 0.5]}), "inject[0].restore.w2 is off the cloth"),
    ({**BASE, "inject": [{"type": "foul", "kind": "deflect_own_ball"}]},
     "inject[0].ball is missing"),
    ({**BASE, "inject": [{"type": "foul", "kind": "time", "side": 1}]},
     "inject[0].side = 1, but in play"),
    ({**BASE, "inject": [{"type": "off_table", "ball": "w2"}],
      "rules": {"spot_policy": "agent"}, "choices": {"spots": [4]}}, "choices.spots: "),
    ({"state": None, "shot": {"strike": OPEN, "t_max": 4000}}, "shot.t_max"),
    ({"state": None, "shot": {"strike": OPEN, "max_events": 10 ** 9}}, "shot.max_events"),
    ({"state": None, "shot": {"strike": OPEN, "params": {"u_s": 1e300}}}, "shot.params.u_s"),
])
def test_golf_error_starts_with_the_json_path(payload, start):
    with pytest.raises(ValueError) as info:
        golf_score(payload)
    assert str(info.value).startswith(start), str(info.value)


# ---- 9. golfbillard opening cut off under allow_overflow ------------------------------------

def test_golf_opening_scored_with_allow_overflow_keeps_the_code_and_a_note():
    out = golf_score({"state": None, "shot": {"strike": OPEN, "max_events": 2},
                      "allow_overflow": True})["outcome"]
    assert out["opening"] and out["overflow"] == 1
    assert any("max_events" in n for n in out["notes"]), out["notes"]
    calm = golf_score({"state": None, "shot": {"strike": OPEN}})["outcome"]
    assert "overflow" not in calm and not any("limit" in n for n in calm["notes"])


# ---- 10. counters do not wrap ---------------------------------------------------------------

@pytest.mark.parametrize("key", ["stroke", "turns"])
def test_golf_counter_beyond_the_cap_is_refused(key):
    with pytest.raises(ValueError, match=rf"^state\.{key} must be at most 2\*\*53 .* got {BIG}$"):
        golf_score({"state": {**G, key: BIG},
                    "shot": {"strike": {"ball": "w2", "V0": 0.5, "phi": 3}}})


def test_golf_counter_at_the_cap_is_accepted():
    out = golf_score({"state": {**G, "stroke": 2 ** 53, "turns": 2 ** 53},
                      "shot": {"strike": {"ball": "w2", "V0": 0.5, "phi": 3}}})
    assert out["state"]["stroke"] > 2 ** 53 and out["state"]["turns"] >= 2 ** 53


@pytest.mark.parametrize("key, value, path", [
    ("scores", [BIG, BIG], "state.scores[0]"),
    ("shot", BIG, "state.shot"),
    ("ddbu", {"run_no_cushion": BIG}, "state.ddbu.run_no_cushion"),
])
def test_kegle_count_beyond_the_cap_is_refused_naming_the_input(key, value, path):
    with pytest.raises(ValueError) as info:
        kegle_score({"state": {**NOT_IN_HAND, key: value}, "shot": {"strike": STRIKE},
                     "inject": [{"type": "moving_balls"}]})
    assert str(info.value).startswith(path) and str(BIG) in str(info.value), str(info.value)


def test_physics_simulate_caps_indent_as_the_rules_cli_does():
    """``cuegym-physics simulate --indent 10**9`` crashed in json.dump (the rules CLI's cap)."""
    import subprocess
    import sys

    shot = '{"table": "rectangle", "balls": {"b0": {"x": 0, "y": 0}}, ' \
           '"strike": {"ball": "b0", "V0": 1, "phi": 0}}'
    r = subprocess.run([sys.executable, "-m", "cuegym.physics", "simulate", "--indent",
                        str(10 ** 9)], input=shot, capture_output=True, text=True)
    assert r.returncode == 2 and "--indent must be at most 64" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def _rules_cli(argv, capsys):
    """(status, stdout JSON or None, stderr) of ``python -m cuegym.rules`` in this process."""
    import json

    from cuegym.rules.__main__ import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def test_rules_play_takes_rules_options(capsys):
    """--rules distance=8: the random game ends when a player reaches 8 (K-20), where the
    shipped distance (70) would not end it within the same shots."""
    code, rec, _ = _rules_cli(["play", "--rules", "distance=8", "--seed", "1"], capsys)
    assert code == 0 and rec["state"]["game_over"] and max(rec["state"]["scores"]) >= 8
    assert rec["n_shots"] < 60
    code, rec, _ = _rules_cli(["play", "--rules", "distance=8", "--seed", "1", "--max-shots",
                               str(rec["n_shots"])], capsys)
    code70, rec70, _ = _rules_cli(["play", "--seed", "1", "--max-shots",
                                   str(rec["n_shots"])], capsys)
    assert rec["state"]["game_over"] and not rec70["state"]["game_over"]


def test_rules_new_takes_the_first_player_option_and_then_a_seed(capsys):
    seats = {_rules_cli(["new", "--rules", "first_player=random", "--seed", str(s)],
                        capsys)[1]["to_play"] for s in range(8)}
    assert seats == {0, 1}


def test_rules_new_golf_opening_option_decides_the_phase(capsys):
    assert _rules_cli(["new", "--game", "golfbillard"], capsys)[1]["phase"] == "opening"
    _, st, _ = _rules_cli(["new", "--game", "golfbillard", "--rules", "opening=alternate"],
                          capsys)
    assert st["phase"] == "play"


@pytest.mark.parametrize("argv,says", [
    (["play", "--rules", "bogus=1"], "unknown keglebillard rule option key(s) ['bogus']"),
    (["new", "--rules", "distance=-3"], "distance"),
    (["play", "--game", "golfbillard", "--rules", "duo=true"],
     "rules.duo = True contradicts 2 players"),
    (["new", "--game", "golfbillard", "--rules", "duo=true"], "rules.duo = True: a new"),
    (["new", "--game", "golfbillard", "--players", "4"], "players: 4: a new"),
    (["new", "--game", "golfbillard", "--rules", "duo=maybe"], "rules.duo must be true or false"),
    (["play", "--game", "golfbillard", "--rules", "duo=maybe"],
     "rules.duo must be true or false"),
    (["play", "--rules", "nofile.yaml"], "--rules 'nofile.yaml'"),
])
def test_rules_cli_refuses_bad_rules_options(argv, says, capsys):
    code, _, err = _rules_cli(argv, capsys)
    assert code == 2 and says in err and "Traceback" not in err


def test_rules_new_golfbillard_takes_a_duo_option_that_agrees_with_the_players(capsys):
    code, st, _ = _rules_cli(["new", "--game", "golfbillard", "--rules", "duo=false"], capsys)
    assert code == 0 and st["phase"] == "opening"
