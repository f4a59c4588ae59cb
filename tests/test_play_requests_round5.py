"""The browser table's API, fifth outside round (an auditor using docs/play.md): a bug in an
agent answers JSON, not plain text; question and shot numbers ahead of the game are named as
such; shot numbers in a path are plain digits; seat names are one Unicode spelling and
printable; the G-11 call names its strip in words.
"""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

from cuegym.play import session
from cuegym.play.server import create_app


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(save_dir=tmp_path / "games"), base_url="http://localhost",
                      raise_server_exceptions=False)


def _kegle(c, seats=None):
    seats = seats or [{"kind": "human", "name": "Ann"}, {"kind": "agent", "agent": "geometric"}]
    r = c.post("/api/games", json={"game": "keglebillard", "options": {"distance": 10},
                                   "seats": seats, "noise": "none", "seed": 1})
    return r


def test_a_bug_in_an_agent_answers_500_with_a_json_detail(client, monkeypatch):
    """Before: plain-text "Internal Server Error" (the golfbillard guided planner in a best-of-3
    match hit one on every stroke), which the page could not show."""
    class Broken:
        def act(self, states, rng):
            raise ValueError("the agent broke")

    real = session.get_agent
    monkeypatch.setattr(session, "get_agent", lambda spec, game, table=None: Broken()
                        if table is not None else real(spec, game, table))
    gid = _kegle(client, [{"kind": "agent", "agent": "geometric"},
                          {"kind": "human", "name": "Ann"}]).json()["view"]["id"]
    r = client.post(f"/api/games/{gid}/agent", json={})
    assert r.status_code == 500
    assert r.json() == {"detail": "internal error: ValueError: the agent broke"}


@pytest.mark.parametrize("k", ["+0", " 0", "1_0", "%E0%A5%A6", "0x1", "-0"])
def test_a_shot_number_in_the_path_is_plain_digits(client, k):
    gid = _kegle(client).json()["view"]["id"]
    r = client.get(f"/api/games/{gid}/shots/{k}")
    assert r.status_code == 400
    assert "a shot number is written with the digits 0-9" in r.json()["detail"]


def test_a_shot_number_ahead_of_the_game_is_named_so(client):
    gid = _kegle(client).json()["view"]["id"]
    r = client.post(f"/api/games/{gid}/move", json={
        "seat": 0, "shot": 5, "move": {"place": [-0.7, 0.0], "strike": {"V0": 2.0, "phi": 0.0}}})
    assert r.status_code == 409
    assert r.json()["detail"] == "shot 5 is ahead of the game: 0 shots played (reload the game)"


def test_a_question_not_yet_asked_is_named_so(client):
    """A golfbillard stroke that sends a ball to a penalty spot while the opponent, a person,
    chooses the spot (G-30): answering question 7 when question 0 is open."""
    c = client
    v = c.post("/api/games", json={"game": "golfbillard", "noise": "none", "seed": 0,
                                   "seats": [{"name": "W"}, {"name": "R"}]}).json()["view"]
    gid = v["id"]
    c.post(f"/api/games/{gid}/move",
           json={"seat": 0, "move": {"ball": "w1", "strike": {"V0": 1.1, "phi": 100}}})
    r = c.post(f"/api/games/{gid}/move",
               json={"seat": 1, "move": {"ball": "r1", "strike": {"V0": 1.25, "phi": -80}}})
    s = r.json()["view"]["state"]["to_move"]
    r = c.post(f"/api/games/{gid}/move", json={
        "seat": s, "move": {"ball": "wr"[s] + "4", "strike": {"V0": 1.0, "phi": -90.0}}})
    q = r.json()["pending"]["question"]
    assert q["number"] == 0
    r = c.post(f"/api/games/{gid}/choice",
               json={"seat": 1 - s, "answer": {"spot": q["options"][0]}, "question": 7})
    assert r.status_code == 409
    assert r.json()["detail"].startswith("question 7 has not been asked; the open one is "
                                         "question 0")


@pytest.mark.parametrize("name, bad", [("Ann\u2028Bob", "\u2028"), ("Ann\u2029Bob", "\u2029"),
                                       ("\ue000", "\ue000"), ("A\tB", "\t")])
def test_a_seat_name_must_be_printable(client, name, bad):
    r = _kegle(client, [{"kind": "human", "name": name},
                        {"kind": "agent", "agent": "geometric"}])
    assert r.status_code == 400
    assert r.json()["detail"].endswith(f"(it holds {bad!r})")


def test_two_spellings_of_one_name_are_one_name(client):
    r = _kegle(client, [{"kind": "human", "name": "\u00c5se"},
                        {"kind": "human", "name": "A\u030ase"}])
    assert r.status_code == 400
    assert "seats[1].name '\u00c5se' is taken by another seat" in r.json()["detail"]
    v = _kegle(client, [{"kind": "human", "name": "A\u030ase"},
                        {"kind": "agent", "agent": "geometric"}]).json()["view"]
    assert v["seats"][0]["name"] == "\u00c5se"


def test_the_G11_call_names_the_strip_in_words():
    from cuegym.rules.golfbillard import GolfState, LogBuilder, score_stroke

    st = GolfState.with_balls({"w1": (0.0, 0.40), "r1": (0.3, 0.2)}, to_move=0)
    log = (LogBuilder(st.xy).strike("w1", (1.0, 0.3)).cushion(0.05, "w1", 2, (0.05, 0.41925))
           .rest("w1", (0.8, 0.3), 1.0).build())
    o = score_stroke(st, log, "w1", np.zeros(5))
    assert o.foul.rule == "G-11"
    assert o.foul.detail == "w1 in the strip along the +y long cushion struck first onto its " \
                            "long cushion"
