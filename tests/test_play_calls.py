"""The referee's call in words (cuegym.play.call) at the end of a golfbillard game or match and
after RA + CS: real strokes through the play layer (physics, referee, game flow) from states
written as JSON (docs/rules_golfbillard.md), then the call of the stroke's outcome and states.

- G-5 no progress: a stroke that ends a game as a draw says so (the outcome alone does not: the
  draw is decided when the turn ends), as the last game or with the next game of the match.
- G-4 best of 3: the end of game 1 is not "game over"; the end of the match is.
- G-10 (RA, CS): a ball sent to a penalty spot is not also "put back".
"""

from __future__ import annotations

import numpy as np
from golf_outcomes import g12_kader_foul

from cuegym.play.call import golf_call, golf_question_call
from cuegym.play.session import GolfTable

NAMES = ["pretrained", "You"]
FOUR = {"w1": [0.2, 0.1], "w2": [-0.2, 0.1], "r1": [0.2, -0.1], "r2": [-0.2, -0.1]}
LAST_WHITE = {"w1": [0.5, 0.0], "r1": [0.2, -0.3], "r2": [-0.2, -0.1]}


def golf_state(t: GolfTable, balls: dict, **fields) -> dict:
    """A play-phase state JSON with ``balls`` (the others scored), white to move."""
    j = t.state_json(t.new_state())
    j.update(phase="play", to_move=0, turns=10, idle_turns=0, stroke=20)
    j["balls"] = dict.fromkeys(t.ball_ids) | balls
    j["turn"] = {"strokes": 0, "scored": False, "duty": [], "duty_met": False}
    j.pop("kader", None)
    j.update(fields)
    return j


def stroke(t: GolfTable, before: dict, ball: str, V0: float, phi: float):
    """Play one stroke without noise: (outcome JSON, state JSON after, state JSON before as the
    rules read it)."""
    st = t.state_from_json(before)
    res = t.play(st, [t.ball_ids.index(ball)], np.array([V0, phi, 0.0, 0.0, 0.0]), None, None,
                 executed=True)
    return res.outcome, t.state_json(res.state), t.state_json(st)


def _in_match(games) -> dict:
    """The state keys of a match where the sides have won ``games[0]`` and play game
    ``games[1]`` (none for None)."""
    if games is None:
        return {}
    won, game = games
    return {"match": {"games_won": won, "game": game, "winner": None},
            "winner": 0 if won[0] else 1}


def g5_stroke(match: str, games=None):
    """A scoreless stroke by white at the G-5 limit (40 turns passed, 5 of 6 scoreless turns):
    the turn passes and the game is drawn. ``games``: (games_won, game index) of a match."""
    t, extra = GolfTable(match=match), _in_match(games)
    before = golf_state(t, FOUR, turns=45, idle_turns=5, stroke=90, **extra)
    o, after, before = stroke(t, before, "w1", 0.3, 90.0)
    assert not o["game_over"] and not o["turn_kept"] and o["foul"] is None  # the referee's part
    assert after["winner"] == "draw"
    return o, before, after


def winning_stroke(match: str, games=None):
    """White scores its last ball (G-4)."""
    t, extra = GolfTable(match=match), _in_match(games)
    before = golf_state(t, LAST_WHITE, **extra)
    o, after, before = stroke(t, before, "w1", 1.5, 0.0)
    assert o["game_over"] and o["winner"] == 0
    return o, before, after


def test_G5_draw_of_a_one_game_match_is_called():
    o, before, after = g5_stroke("single")
    assert after["phase"] == "over" and after["match"]["winner"] == "draw"
    for b in (before, None):  # the state before is optional
        lines = golf_call(o, NAMES, before=b, after=after)
        assert lines[0] == "pretrained: no goal"
        assert lines[-1] == "game over — draw (G-5, no progress)", lines
        assert not any("turn passes" in x for x in lines), lines


def test_G5_draw_in_a_best_of_3_match_starts_the_next_game():
    o, before, after = g5_stroke("best_of_3", ([1, 0], 1))  # game 2, white leads 1-0
    assert after["phase"] == "opening" and after["match"]["game"] == 2
    for b in (before, None):
        lines = golf_call(o, NAMES, before=b, after=after)
        assert lines[-2:] == ["game 2 drawn (G-5, no progress), pretrained leads 1-0",
                              "game 3 starts"], lines
        assert not any("game over" in x or "turn passes" in x for x in lines), lines
    # the third game drawn at 1-1: the match is drawn (G-4)
    o, before, after = g5_stroke("best_of_3", ([1, 1], 2))
    assert after["phase"] == "over"
    assert golf_call(o, ["W", "You"], before, after)[-2:] == [
        "game 3 drawn (G-5, no progress), games 1-1", "game over — the match is drawn (1-1)"]


def test_best_of_3_game_1_is_not_game_over_the_match_end_is():
    o, before, after = winning_stroke("best_of_3")
    assert after["phase"] == "opening" and after["match"] == {
        "games_won": [1, 0], "game": 1, "winner": None}
    lines = golf_call(o, NAMES, before, after)
    assert lines[-2:] == ["pretrained wins game 1 (1-0)", "game 2 starts"], lines
    assert not any("game over" in x for x in lines), lines
    assert golf_call(o, ["You", "R"], before, after)[-2] == "You win game 1 (1-0)"
    # game 2 won at 1-0: the match
    o, before, after = winning_stroke("best_of_3", ([1, 0], 1))
    assert after["phase"] == "over"
    assert golf_call(o, NAMES, before, after)[-2:] == [
        "pretrained wins game 2 (2-0)", "game over — pretrained wins the match (2-0)"]
    # a one-game match: as before
    o, before, after = winning_stroke("single")
    assert golf_call(o, NAMES, before, after)[-1] == "game over — pretrained wins"
    assert golf_call(o, NAMES)[-1] == "game over — pretrained wins"  # the outcome alone


def test_a_ball_sent_to_a_penalty_spot_is_not_also_put_back():
    """G-10 (LT, RA, CS) in kader play and outside it: RA puts back every ball the stroke moved,
    then CS sends the cue ball to a penalty spot; the call lists it once, on its spot."""
    t = GolfTable()
    for kader in (False, True):  # kader play: side 1 down to r1 (G-20)
        balls = {"w1": [0.5, 0.2], "w2": [-0.6, -0.3], "r1": [0.0, -0.35]}
        before = golf_state(t, balls | ({} if kader else {"r2": [-0.2, -0.1]}), kader=kader)
        o, _, _ = stroke(t, before, "w1", 4.0, float(np.degrees(np.arctan2(-0.2, 0.897 - 0.5))))
        assert o["foul"] == "G-10" and "w1" in o["replaced"]
        assert o["spotted"] == [{"ball": "w1", "spot": 1}]
        lines = golf_call(o, ["W", "R"])
        assert "w1 to penalty spot 1 (G-30)" in lines
        back = [x for x in lines if x.startswith("put back: ")]
        assert back == ["put back: " + ", ".join(b for b in o["replaced"] if b != "w1")], lines
        # the penalty in the rule book's order
        assert "penalty: turn lost; every ball the stroke moved goes back; the cue ball goes " \
               "to a penalty spot" in lines
    # a hand-written G-12 outcome: only r1 went back where it lay
    g = g12_kader_foul()
    lines = golf_call(g, ["W", "R"])
    assert "r2 to penalty spot 2 (G-30)" in lines and "put back: r1" in lines, lines
    # G-26: in kader play a fouling cue ball that lay on a penalty spot moves on by rule,
    # with no choice (the call said G-30 for it too)
    assert "r2 to penalty spot 2 (G-26)" in golf_call(g, ["W", "R"], {"on_spot": {"r2": 1}})
    assert "r2 to penalty spot 2 (G-30)" in golf_call(g, ["W", "R"], {"on_spot": {"r1": 1}})
    g["replaced"] = ["r2"]
    assert not any(x.startswith("put back") for x in golf_call(g, ["W", "R"]))
    assert golf_question_call(g, ["W", "R"], "W", {"text": "choose a penalty spot for r2"})[1:] \
        == ["G-12: r2 struck directly onto own ball r1",
            "penalty: turn lost; every ball the stroke moved goes back; the cue ball goes to a "
            "penalty spot", "W chooses a penalty spot for r2"]


def _record(t: GolfTable, before: dict, o: dict, after: dict, names) -> dict:
    return {"format": "cuegym-game", "version": 1, "game": "golfbillard",
            "options": t.options, "noise": "none", "seed": 0,
            "seats": [{"name": n, "kind": "human", "agent": None} for n in names],
            "start": before, "shots": [{
                "seats": [0], "before": before, "intended": None,
                "executed": {"strike": {"V0": 0.3, "phi": 90.0, "theta": 0.0, "a": 0.0,
                                        "b": 0.0}, "ball": "w1"},
                "choices": None, "outcome": o, "after": after}],
            "final": after, "meta": {}}


def g5_record() -> dict:
    """A saved game of one stroke that ends in a G-5 draw (the browser tests open it too)."""
    o, before, after = g5_stroke("single")
    return _record(GolfTable(), before, o, after, NAMES)


def test_G5_draw_is_called_in_a_game_of_the_app():
    """The same through the app: a replayed record's shot has the call the live game gives."""
    from cuegym.play import record

    g = record.load_record(g5_record())
    assert g.shots[0].call[-1] == "game over — draw (G-5, no progress)", g.shots[0].call


def test_G17_the_opening_call_names_a_ball_put_into_its_goal():
    """An opening in which side 0's stroke plays r2 off the table (G-17): the call says r2 went
    into its goal, as the call of a play stroke does."""
    from cuegym.rules.golfbillard import LogBuilder
    from cuegym.rules.golfbillard_game import new_match, play_strokes

    st = new_match()
    st.xy[6] = (0.83, 0.15)  # r2
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.3)).strike("r1", (-1.0, -0.6))
           .ball_ball(1.0, "w1", "r2", (0.77, 0.12), (0.825, 0.15))
           .rest("w1", (0.6, 0.1), 2.0).rest("r1", (-0.3, -0.1), 2.0).build())
    outs, _ = play_strokes([st], log, [[0, 5]],
                           injected=[[{"type": "off_table", "ball": "r2", "time": 1.4}]])
    o = outs[0].to_json()
    assert o["opening"] and o["into_goal"] == ["r2"]
    assert "into their goal: r2" in golf_call(o, NAMES)
