"""cuegym.play: every API endpoint and every kind of bad request (FastAPI TestClient).

A refused request must say why (4xx with ``detail``) and leave the game exactly as it was.
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from cuegym.play.server import create_app  # noqa: E402

STRIKE = {"V0": 3.0, "phi": 0.0, "theta": 0.0, "a": 0.0, "b": 0.0}


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(save_dir=tmp_path / "games", record_dirs=[tmp_path / "games"]),
                      base_url="http://localhost")


def new_game(c, **kw):
    body = {"game": "keglebillard", "options": {"players": 2, "distance": 10},
            "seats": [{"kind": "human", "name": "Ann"}, {"kind": "agent", "agent": "geometric"}],
            "noise": "none", "seed": 1, **kw}
    r = c.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()["view"]


def snapshot(c, gid):
    v = c.get(f"/api/games/{gid}").json()
    return json.dumps([v["state"], v["shots"], v["awaiting"]], sort_keys=True)


def refused(c, gid, method, url, code, needle, **kw):
    """The request gets ``code`` with ``needle`` in its detail, and the game is unchanged."""
    before = snapshot(c, gid)
    r = c.request(method, url, **kw)
    assert r.status_code == code, r.text
    assert needle in r.json()["detail"], r.json()["detail"]
    assert snapshot(c, gid) == before


def test_info_and_geometry(client):
    info = client.get("/api/info").json()
    assert info["games"] == ["keglebillard", "golfbillard"]
    assert {"pretrained", "expert", "planner", "geometric", "random"} <= set(info["agents"])
    assert info["noises"] == ["none", "tournament"]
    k = client.get("/api/geometry/keglebillard").json()
    assert len(k["pockets"]) == 6 and len(k["pin_spots"]) == 5 and k["salvo_x"] < 0
    g = client.get("/api/geometry/golfbillard").json()
    assert len(g["goals"]) == 2 and len(g["start"]) == 10 and len(g["penalty_spots"]) == 2
    r = client.get("/api/geometry/snooker")  # an unknown game type: 404, as the docs say
    assert r.status_code == 404 and "unknown game 'snooker'" in r.json()["detail"]


def test_page_and_static_files(client):
    r = client.get("/")
    assert r.status_code == 200 and "<canvas id=\"table\">" in r.text
    assert client.head("/").status_code == 200  # curl -I and link checkers probe with HEAD
    for f in ("app.js", "table.js", "style.css"):
        assert client.get(f"/static/{f}").status_code == 200


@pytest.mark.parametrize("body, needle", [
    ({"game": "snooker", "seats": []}, "unknown game"),
    ({"seats": []}, "'game' is required"),
    ({"game": "keglebillard", "options": {"players": 7},
      "seats": [{"kind": "human"}] * 7}, "2 to 6 players"),
    ({"game": "keglebillard", "options": {"distance": 0},
      "seats": [{"kind": "human"}] * 2}, "distance"),
    ({"game": "keglebillard", "options": {"tables": 2},
      "seats": [{"kind": "human"}] * 2}, "unknown keglebillard option"),
    ({"game": "keglebillard", "seats": [{"kind": "human"}]}, "needs 2 seats"),
    ({"game": "keglebillard", "seats": [{"kind": "human"}, {"kind": "robot"}]}, "kind"),
    ({"game": "keglebillard", "seats": [{"kind": "human"}, {"kind": "agent", "agent": "magic"}]},
     "unknown agent 'magic'"),
    ({"game": "keglebillard", "seats": [{"kind": "human"},
                                        {"kind": "agent", "agent": "/nope/model.zip"}]},
     "does not exist"),
    ({"game": "keglebillard", "seats": [{"kind": "human"}] * 2, "noise": "loud"},
     "unknown noise"),
    ({"game": "keglebillard", "seats": [{"kind": "human"}] * 2, "seed": -1}, "seed"),
    ({"game": "golfbillard", "options": {"duo": "yes"}, "seats": []}, "duo"),
    ({"game": "golfbillard", "seats": [{"kind": "human"}] * 4}, "needs 2 seats"),
    ({"game": "keglebillard", "seats": [{"kind": "human"}] * 2, "colour": "red"},
     "unknown key(s) ['colour']"),
])
def test_new_game_refuses_bad_requests(client, body, needle):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400, r.text
    assert needle in r.json()["detail"]


def test_a_body_must_be_sent_as_json(client):
    """A page on another site can POST text/plain or form bodies here without a CORS
    preflight: they are refused, and no game starts."""
    body = json.dumps({"game": "keglebillard", "seats": [{"kind": "human"}, {"kind": "human"}]})
    for kind in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {} if kind is None else {"Content-Type": kind}
        r = client.post("/api/games", content=body, headers=headers)
        assert r.status_code == 400 and "Content-Type: application/json" in r.json()["detail"]
    assert client.post("/api/games", content=body, headers={
        "Content-Type": "application/json; charset=utf-8"}).status_code == 200
    # a page of another origin is refused whatever it sends; the app's own page is not
    r = client.post("/api/games", content=body, headers={
        "Content-Type": "application/json", "Origin": "http://evil.example"})
    assert r.status_code == 400 and "another site ('http://evil.example')" in r.json()["detail"]
    assert client.post("/api/games", content=body, headers={
        "Content-Type": "application/json", "Origin": "http://localhost"}).status_code == 200
    # DNS rebinding: a page of another site whose name resolves to this machine sends its own
    # name as Host and as Origin, which agree (was: 200, and it could load any model file)
    for path in ("/api/games", "/api/info"):
        r = client.request("POST" if path == "/api/games" else "GET", path, content=body,
                           headers={"Content-Type": "application/json",
                                    "Host": "attacker.example:8765",
                                    "Origin": "http://attacker.example:8765"})
        assert r.status_code == 400, path
        assert "not to host 'attacker.example'" in r.json()["detail"]
    for host in ("127.0.0.1:8765", "[::1]:8765", "LOCALHOST"):
        assert client.get("/api/info", headers={"Host": host}).status_code == 200, host


def test_the_command_line_adds_the_bound_host_and_the_allowed_ones():
    from cuegym.play.__main__ import allowed_hosts

    assert allowed_hosts("127.0.0.1", None) == ("localhost", "127.0.0.1", "::1", "127.0.0.1")
    assert allowed_hosts("192.168.1.5", ["pool.local"])[-2:] == ("192.168.1.5", "pool.local")
    assert allowed_hosts("0.0.0.0", None) == ("*",)  # any name the other machines use
    assert "*" not in allowed_hosts("0.0.0.0", ["pool.local"])


def test_a_failed_save_keeps_the_shot_and_says_so(tmp_path):
    """The save folder could not be written (here: under a file; a full disk alike): the game
    was created and the move played, but both answered 500, so the page showed an error and a
    retry of the move was refused as stale."""
    (tmp_path / "afile").write_text("")
    c = TestClient(create_app(save_dir=tmp_path / "afile" / "sub"), base_url="http://localhost")
    r = c.post("/api/games", json={"game": "keglebillard",
                                   "seats": [{"kind": "human"}, {"kind": "human"}]})
    assert r.status_code == 200 and "could not be saved" in r.json()["save_error"]
    gid = r.json()["view"]["id"]
    r = c.post(f"/api/games/{gid}/move", json={"seat": 0, "move": {"strike": STRIKE,
                                                                    "place": [-0.9, 0.1]}})
    assert r.status_code == 200 and "could not be saved" in r.json()["save_error"]
    assert c.get(f"/api/games/{gid}").json()["shots"] == 1


def test_malformed_json_and_non_objects(client):
    for raw in (b"{not json", b"[1, 2]", b"\xff\xfe"):
        r = client.post("/api/games", content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 400
        assert "JSON" in r.json()["detail"]


def test_text_that_cannot_be_sent_back_is_refused_and_nothing_is_kept(client, tmp_path):
    """A lone surrogate (JSON's \\ud800 escape) or a value nested too deep is refused before
    it is kept: the saved records and every later response stay readable."""
    deep = json.loads("[" * 40 + "]" * 40)

    def post(url, body):  # json.dumps escapes the surrogate as JSON allows
        return client.post(url, content=json.dumps(body),
                           headers={"Content-Type": "application/json"})

    for body, needle in (
            ({"game": "keglebillard", "seats": [{"kind": "human", "name": "\ud800"},
                                                {"kind": "human"}]},
             "body.seats[0].name = '\\ud800' is not text"),
            ({"game": "keglebillard", "x\udfff": 1}, "body key"),
            ({"game": deep}, "body.game[0][0]")):
        r = post("/api/games", body)
        assert r.status_code == 400 and needle in r.json()["detail"], r.text
    assert client.get("/api/records").json() == []
    # the same through an uploaded record's meta: refused, no replay kept
    v = new_game(client)
    rec = client.get(f"/api/games/{v['id']}/record").json()
    for meta, needle in (({"who": "\ud800"}, "record.meta.who"),
                         ({"n": deep}, "nests more than 32")):
        r = post("/api/replays", {"record": {**rec, "meta": meta}})
        assert r.status_code == 400 and needle in r.json()["detail"], r.text
    # a record file of that kind on disk is left out of the list, which stays readable
    listed = client.get("/api/records").json()
    (tmp_path / "games" / "deep.json").write_text(json.dumps({**rec, "meta": {"n": deep}}))
    (tmp_path / "games" / "odd.json").write_text(json.dumps({**rec, "meta": {"w": "\ud800"}}))
    r = client.get("/api/records")
    assert r.status_code == 200 and r.json() == listed


def test_unknown_game_id_everywhere(client):
    for method, url in (("GET", "/api/games/nope"), ("POST", "/api/games/nope/move"),
                        ("POST", "/api/games/nope/agent"), ("POST", "/api/games/nope/choice"),
                        ("GET", "/api/games/nope/shots/0"), ("GET", "/api/games/nope/record"),
                        ("GET", "/api/games/nope/placement?x=0&y=0")):
        r = client.request(method, url, json={})
        assert r.status_code == 404, (url, r.text)
        assert "unknown game id 'nope'" in r.json()["detail"]


def test_the_server_keeps_the_most_recent_games_and_says_so(client, monkeypatch):
    """Past MAX_GAMES games the oldest is dropped; its 404 says so (not only 'a restart')."""
    from cuegym.play import server

    monkeypatch.setattr(server, "MAX_GAMES", 3)
    ids = [new_game(client)["id"] for _ in range(4)]
    assert client.get(f"/api/games/{ids[-1]}").status_code == 200
    r = client.get(f"/api/games/{ids[0]}")
    assert r.status_code == 404
    detail = r.json()["detail"]
    assert f"unknown game id '{ids[0]}'" in detail and "keeps the 3 most recent games" in detail
    assert "dropped" in detail and "restarted" in detail


def test_default_seat_names_are_unique(client):
    seats = [{"kind": "agent", "agent": "geometric"}] * 3 + [{"kind": "human"}]
    v = new_game(client, options={"players": 4, "distance": 10}, seats=seats)
    assert [s["name"] for s in v["seats"]] == ["geometric", "geometric 2", "geometric 3",
                                               "Player 4"]
    seats = [{"kind": "agent", "agent": "random"}, {"kind": "human", "name": "random"}]
    v = new_game(client, seats=seats)
    assert [s["name"] for s in v["seats"]] == ["random 2", "random"]
    # a name is trimmed before the defaults avoid it (" random" was refused as taken)
    seats = [{"kind": "agent", "agent": "random"}, {"kind": "human", "name": " random "}]
    v = new_game(client, seats=seats)
    assert [s["name"] for s in v["seats"]] == ["random 2", "random"]


def test_bad_moves_are_refused_and_change_nothing(client):
    v = new_game(client)
    gid = v["id"]
    url = f"/api/games/{gid}/move"
    place = [-0.9, 0.1]
    mv = lambda **s: {"seat": 0, "move": {"strike": {**STRIKE, **s}, "place": place}}  # noqa: E731
    raw = json.dumps(mv()).replace('"V0": 3.0', '"V0": NaN').encode()
    refused(client, gid, "POST", url, 400, "V0 must be a finite number", content=raw,
            headers={"Content-Type": "application/json"})
    raw = json.dumps(mv()).replace('"phi": 0.0', '"phi": Infinity').encode()
    refused(client, gid, "POST", url, 400, "phi must be a finite number", content=raw,
            headers={"Content-Type": "application/json"})
    refused(client, gid, "POST", url, 400, "V0 = 50.0 m/s is out of range", json=mv(V0=50.0))
    refused(client, gid, "POST", url, 400, "V0 = 0.0 m/s is out of range", json=mv(V0=0.0))
    refused(client, gid, "POST", url, 400, "theta = 80.0 deg is out of range", json=mv(theta=80.0))
    refused(client, gid, "POST", url, 400, "off the cue ball", json=mv(a=0.6, b=0.6))
    refused(client, gid, "POST", url, 400, "phi must be a finite number", json=mv(phi="left"))
    refused(client, gid, "POST", url, 400, "V0 must be a finite number", json=mv(V0=True))
    refused(client, gid, "POST", url, 400, "unknown key(s) ['spin']",
            json={"seat": 0, "move": {"strike": {**STRIKE, "spin": 1}, "place": place}})
    refused(client, gid, "POST", url, 400, "needs 'seat'", json={"move": mv()["move"]})
    refused(client, gid, "POST", url, 400, "seat must be a seat number",
            json={**mv(), "seat": 5})
    # out of turn: seat 1 is the agent and not to move anyway
    refused(client, gid, "POST", url, 409, "not seat 1's turn", json={**mv(), "seat": 1})
    refused(client, gid, "POST", url, 409, "shot 3 is ahead of the game", json={**mv(), "shot": 3})
    # ball in hand: a placement is required, legal, behind the salvo line
    refused(client, gid, "POST", url, 400, "place it first",
            json={"seat": 0, "move": {"strike": STRIKE}})
    refused(client, gid, "POST", url, 400, "K-19: the red at (-0.5250, 0.0000) overlaps the "
            "white ball", json={"seat": 0, "move": {"strike": STRIKE, "place": [-0.525, 0.0]}})
    refused(client, gid, "POST", url, 400, "in front of the salvo line",
            json={"seat": 0, "move": {"strike": STRIKE, "place": [0.3, 0.2]}})
    refused(client, gid, "POST", url, 400, "not on the cloth",
            json={"seat": 0, "move": {"strike": STRIKE, "place": [-1.5, 0.0]}})
    refused(client, gid, "POST", url, 400, "two finite numbers",
            json={"seat": 0, "move": {"strike": STRIKE, "place": [0.1]}})
    # the agent is not to move; a person's move is
    refused(client, gid, "POST", f"/api/games/{gid}/agent", 409, "waiting for a person",
            json={})
    refused(client, gid, "POST", f"/api/games/{gid}/choice", 409, "no choice is pending",
            json={"seat": 0, "answer": {"spot": 1}})
    assert client.get(f"/api/games/{gid}").json()["shots"] == 0


def test_placement_endpoint(client):
    gid = new_game(client)["id"]
    ok = client.get(f"/api/games/{gid}/placement?x=-0.9&y=0.1").json()
    assert ok == {"ok": True, "reason": None}
    bad = client.get(f"/api/games/{gid}/placement?x=-0.525&y=0.0").json()
    assert not bad["ok"] and "overlaps the white ball" in bad["reason"]
    front = client.get(f"/api/games/{gid}/placement?x=0.2&y=0.0").json()
    assert not front["ok"] and "salvo line" in front["reason"]
    r = client.get(f"/api/games/{gid}/placement?x=nan&y=0")
    assert r.status_code == 400 and "finite" in r.json()["detail"]
    r = client.get(f"/api/games/{gid}/placement?x=left&y=0")
    assert r.status_code == 400


def test_a_short_game_against_an_agent_to_the_end(client):
    """Aim at the pins (K-12 foul: skæve) until the agent reaches the distance; every shot's
    call, the scores and the record come back; the game is saved and replays exactly."""
    v = new_game(client)
    gid = v["id"]
    for _ in range(40):
        v = client.get(f"/api/games/{gid}").json()
        if v["over"]:
            break
        if v["agents_to_act"]:
            r = client.post(f"/api/games/{gid}/agent", json={"shot": v["shots"]})
            assert r.status_code == 200, r.text
            assert r.json()["think_ms"] >= 0
        else:
            st = v["state"]
            move = {"strike": {**STRIKE, "V0": 2.0}}
            red = [-0.9, 0.1]
            if st["ball_in_hand"]:
                move["place"] = red
            else:
                red = st["balls"]["red"]
            move["strike"]["phi"] = math.degrees(math.atan2(-red[1], -red[0]))  # the king
            r = client.post(f"/api/games/{gid}/move",
                            json={"seat": v["awaiting"]["seat"], "move": move, "shot": v["shots"]})
            assert r.status_code == 200, r.text
        shot = r.json()["shot"]
        assert shot["call"] and shot["after"] == r.json()["view"]["state"]
        assert shot["anim"] is None or shot["anim"]["t_end"] >= 0
    assert v["over"] and v["awaiting"] == {"type": "over"}
    assert v["state"]["ranking"][0] == 1 and v["state"]["scores"][1] >= 10
    refused(client, gid, "POST", f"/api/games/{gid}/move", 409, "the game is over",
            json={"seat": 0, "move": {"strike": STRIKE}})
    refused(client, gid, "POST", f"/api/games/{gid}/agent", 409, "the game is over", json={})
    n = v["shots"]
    s0 = client.get(f"/api/games/{gid}/shots/0").json()
    assert s0["index"] == 0 and s0["executed"]["strike"]["V0"] == 2.0
    assert set(s0["anim"]["balls"]) == {"red", "white", "spotted"}
    assert client.get(f"/api/games/{gid}/shots/{n}").status_code == 404
    assert client.get(f"/api/games/{gid}/shots/-1").status_code == 400  # not a shot number
    # the record: downloadable, listed, opens as a verified replay
    rec = client.get(f"/api/games/{gid}/record").json()
    assert rec["format"] == "cuegym-game" and len(rec["shots"]) == n
    listed = client.get("/api/records").json()
    assert [x["name"] for x in listed] == [f"0:{gid}.json"] and listed[0]["over"]
    rv = client.post("/api/replays", json={"name": f"0:{gid}.json"}).json()["view"]
    assert rv["mode"] == "replay" and rv["meta"]["verified"] and rv["shots"] == n
    assert rv["state"] == v["state"]
    rid = rv["id"]
    refused(client, rid, "POST", f"/api/games/{rid}/move", 409, "replay",
            json={"seat": 0, "move": {"strike": STRIKE}})
    up = client.post("/api/replays", json={"record": rec}).json()["view"]
    assert up["meta"]["source"] == "uploaded" and up["shots"] == n


def test_replay_refuses_bad_records(client):
    v = new_game(client)
    gid = v["id"]
    client.post(f"/api/games/{gid}/move", json={"seat": 0, "move": {"strike": STRIKE,
                                                                    "place": [-0.9, 0.1]}})
    rec = client.get(f"/api/games/{gid}/record").json()
    tampered = json.loads(json.dumps(rec))
    tampered["shots"][0]["executed"]["strike"]["V0"] += 0.001
    for body, code, needle in (
            ({"record": tampered}, 400, "re-simulates to a different outcome"),
            ({"record": {**rec, "format": "pgn"}}, 400, "not a cuegym game record"),
            ({"record": {**rec, "version": True}}, 400, "not a cuegym game record"),
            ({"record": {**rec, "options": []}}, 400, "options must be an object, got []"),
            ({"record": [1, 2]}, 400, "must be a JSON object"),
            ({"record": {**rec, "game": "snooker"}}, 400, "unknown game"),
            ({"name": "0:../../etc/passwd"}, 404, "no saved record"),
            ({"name": "7:x.json"}, 404, "unknown record folder"),
            ({"name": "x.json"}, 400, "'<folder>:<path>'"),
            ({}, 400, "exactly one of"),
    ):
        r = client.post("/api/replays", json=body)
        assert r.status_code == code, (body.keys(), r.text)
        assert needle in r.json()["detail"]


def test_games_do_not_interfere_and_busy_games_refuse(client):
    a = new_game(client, seed=1)["id"]
    b = new_game(client, seed=2, seats=[{"kind": "human"}, {"kind": "human"}])["id"]
    sb = snapshot(client, b)
    r = client.post(f"/api/games/{a}/move",
                    json={"seat": 0, "move": {"strike": STRIKE, "place": [-0.9, 0.1]}})
    assert r.status_code == 200
    assert snapshot(client, b) == sb and client.get(f"/api/games/{a}").json()["shots"] == 1
    g = client.app.state.games.get(b)
    g.lock.acquire()
    try:
        refused(client, b, "POST", f"/api/games/{b}/move", 409, "busy",
                json={"seat": 0, "move": {"strike": STRIKE, "place": [-0.9, 0.1]}})
    finally:
        g.lock.release()


def _opening(c, gid, v):
    from cuegym.rules.golfbillard_game import new_match, opening_strike

    st = new_match()
    for seat in v["awaiting"]["missing"]:
        side = v["awaiting"]["seats"].index(seat)
        ball = v["awaiting"]["balls"][side]
        V0, phi, *_ = opening_strike(st, side, side * 5, V0=1.1 + 0.15 * side)  # no tie
        r = c.post(f"/api/games/{gid}/move", json={
            "seat": seat, "move": {"ball": ball, "strike": {"V0": float(V0), "phi": float(phi)}}})
        assert r.status_code == 200, r.text
    return r.json()


def test_golfbillard_opening_repeat_takes_any_own_ball():
    """G-3: the middle ball alone may open while it is on the table; in the repeat after both
    sides scored theirs, any own ball may ("another ball each")."""
    from cuegym.play.session import GolfTable, PlayError
    from cuegym.rules.golfbillard_game import new_match

    t = GolfTable()
    st = new_match()
    with pytest.raises(PlayError, match="played with w1"):
        t.check_move(st, {"ball": "w3", "strike": STRIKE}, 0)
    st.xy[[0, 5]] = np.nan  # both middle balls scored: the repeat
    assert t.check_move(st, {"ball": "w3", "strike": STRIKE}, 0)[0] == 2
    assert t.check_move(st, {"strike": STRIKE}, 1)[0] == 6  # default: the suggested r2
    with pytest.raises(PlayError, match="not one of side 1's balls"):
        t.check_move(st, {"ball": "w3", "strike": STRIKE}, 1)


def test_golfbillard_opening_and_the_opponents_penalty_spot_choice(client):
    r = client.post("/api/games", json={"game": "golfbillard", "noise": "none", "seats": [
        {"kind": "human", "name": "W"}, {"kind": "human", "name": "R"}]})
    v = r.json()["view"]
    gid = v["id"]
    assert v["awaiting"]["type"] == "opening" and v["awaiting"]["balls"] == ["w1", "r1"]
    refused(client, gid, "POST", f"/api/games/{gid}/move", 400, "played with w1",
            json={"seat": 0, "move": {"ball": "w2", "strike": STRIKE}})
    out = _opening(client, gid, v)
    assert out["shot"]["outcome"]["opening"] and out["shot"]["seats"] == [0, 1]
    v = out["view"]
    assert v["state"]["phase"] == "play"
    s = v["state"]["to_move"]
    pre = "wr"[s]
    refused(client, gid, "POST", f"/api/games/{gid}/move", 400, "is not one of side",
            json={"seat": s, "move": {"ball": "wr"[1 - s] + "4", "strike": STRIKE}})
    # own ball 4 straight onto own ball 2: G-12, the cue ball to a penalty spot the
    # opponent (a person) chooses
    r = client.post(f"/api/games/{gid}/move", json={
        "seat": s, "move": {"ball": pre + "4", "strike": {**STRIKE, "V0": 1.0, "phi": -90.0}}})
    body = r.json()
    assert "shot" not in body and body["pending"]["question"]["kind"] == "spot"
    q = body["pending"]["question"]
    assert q["ball"] == pre + "4" and q["options"] and q["side"] == s  # the offender's spots
    assert body["view"]["awaiting"] == {"type": "choice", "seat": 1 - s, "question": q}
    # while the question is open: why it is asked (the foul, its penalty, who chooses) and
    # where the stroke left the balls (the referee moves them once the answer is in)
    names = ["W", "R"]
    call = body["pending"]["call"]
    assert call[0] == f"{names[s]}: foul G-12 — the cue ball struck an own ball first", call
    assert any(line.startswith("penalty: ") for line in call)
    assert call[-1] == f"{names[1 - s]} chooses {q['text'].removeprefix('choose ')}"
    assert body["view"]["pending"]["call"] == call
    ends = body["pending"]["balls"]
    assert body["view"]["pending"]["balls"] == ends
    assert set(ends) == set(body["view"]["state"]["balls"])
    moved = [b for b, p in ends.items() if p and body["view"]["state"]["balls"][b]
             and math.dist(p, body["view"]["state"]["balls"][b]) > 0.01]
    assert pre + "4" in moved  # the struck ball is where the stroke left it, not on its spot
    assert client.get(f"/api/games/{gid}").json()["pending"]["call"] == call
    refused(client, gid, "POST", f"/api/games/{gid}/choice", 409, "is not asked",
            json={"seat": s, "answer": {"spot": q["options"][0]}})
    refused(client, gid, "POST", f"/api/games/{gid}/choice", 400, "not a free penalty spot",
            json={"seat": 1 - s, "answer": {"spot": 9}})
    refused(client, gid, "POST", f"/api/games/{gid}/move", 409, "waiting for seat",
            json={"seat": 1 - s, "move": {"ball": "wr"[1 - s] + "1", "strike": STRIKE}})
    k = q["options"][-1]
    r = client.post(f"/api/games/{gid}/choice", json={"seat": 1 - s, "answer": {"spot": k}})
    assert r.status_code == 200, r.text
    shot = r.json()["shot"]
    assert shot["outcome"]["foul"] == "G-12"
    assert {"ball": pre + "4", "spot": k} in shot["outcome"]["spotted"]
    assert shot["choices"] == {"spots": [k], "pick": None}
    assert any("penalty spot" in line for line in shot["call"])
    # the record keeps the choice and re-simulates exactly
    rec = client.get(f"/api/games/{gid}/record").json()
    rv = client.post("/api/replays", json={"record": rec})
    assert rv.status_code == 200, rv.text
    assert rv.json()["view"]["state"] == r.json()["view"]["state"]


def test_agent_move_times(client):
    """An agent's move in a live game: pretrained and expert < 1 s, planner < 5 s (after
    loading and compiling: in a fresh clone the first ordinary golfbillard stroke compiled
    the planner's search for 100 s)."""
    for spec, limit in (("pretrained", 1.0), ("expert", 1.0), ("planner", 5.0)):
        for game in ("keglebillard", "golfbillard"):
            seats = [{"kind": "agent", "agent": spec}, {"kind": "agent", "agent": spec}]
            gid = client.post("/api/games", json={"game": game, "seats": seats,
                                                  "seed": 0}).json()["view"]["id"]
            # loads the agent and compiles its kernels: a golfbillard game's first move is the
            # opening (both middle balls), so a second one compiles the ordinary stroke's
            for _ in range(2):
                assert client.post(f"/api/games/{gid}/agent", json={}).status_code == 200
            times = []
            for _ in range(2):
                t0 = time.perf_counter()
                r = client.post(f"/api/games/{gid}/agent", json={})
                times.append(time.perf_counter() - t0)
                assert r.status_code == 200, r.text
            assert max(times) < limit, (spec, game, times)


def test_golfbillard_duo_partners_alternate(client):
    """G-31: four seats (side 0 partners 0, 1; side 1 partners 0, 1); the due partner plays."""
    seats = [{"kind": "agent", "agent": "random", "name": n} for n in ("A", "B", "C", "D")]
    r = client.post("/api/games", json={"game": "golfbillard", "options": {"duo": True},
                                        "seats": seats, "seed": 4})
    v = r.json()["view"]
    gid = v["id"]
    assert v["side_names"] == ["A & B", "C & D"]
    assert v["awaiting"]["seats"] == [0, 2]  # the openers: partner 0 of each side
    played = []
    for _ in range(12):
        v = client.get(f"/api/games/{gid}").json()
        if v["over"]:
            break
        due = v["agents_to_act"]
        r = client.post(f"/api/games/{gid}/agent", json={})
        assert r.status_code == 200, r.text
        played.append((due, r.json()["shot"]["seats"], r.json()["shot"]["before"]))
    for due, seats, before in played:
        if before["phase"] == "play":
            s = before["to_move"]
            assert seats == [2 * s + before["partner"][s]] == due
    assert {seat for _, seats, _ in played for seat in seats} >= {0, 2}


def test_a_model_zip_plays(client):
    from cuegym.agents import pretrained_path

    path = str(pretrained_path("keglebillard"))
    r = client.post("/api/games", json={"game": "keglebillard", "seed": 0, "seats": [
        {"kind": "agent", "agent": path, "name": "zip"}, {"kind": "human"}]})
    assert r.status_code == 200, r.text
    gid = r.json()["view"]["id"]
    r = client.post(f"/api/games/{gid}/agent", json={"shot": 0})
    assert r.status_code == 200, r.text
    assert r.json()["shot"]["seats"] == [0] and r.json()["shot"]["executed"]["place"]


def test_python_m_cuegym_play_prints_its_url_and_serves(tmp_path):
    import re
    import urllib.request

    from play_server_support import play_server

    with play_server(tmp_path) as line:
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        with urllib.request.urlopen(m.group(0) + "api/info", timeout=20) as r:
            assert json.load(r)["games"] == ["keglebillard", "golfbillard"]
    from cuegym.play.__main__ import main

    with pytest.raises(SystemExit):
        main(["--port", "70000"])


# ---------------------------------------------------------------------------------------------
# Hostile requests: each gets a 4xx naming the bad value, never a 500, and changes nothing
# ---------------------------------------------------------------------------------------------

RAW = {"Content-Type": "application/json"}


def test_hostile_bodies_are_refused_not_500(client):
    gid = new_game(client)["id"]
    url = f"/api/games/{gid}/move"
    # JSON nested past the parser's recursion limit; an integer of more than 4300 digits
    refused(client, gid, "POST", url, 400, "nested too deeply",
            content=b"[" * 100_000 + b"]" * 100_000, headers=RAW)
    refused(client, gid, "POST", url, 400, "malformed JSON: Exceeds the limit",
            content=b'{"seat": ' + b"9" * 5000 + b', "move": {}}', headers=RAW)
    # a key given twice (was: the last one played, silently)
    refused(client, gid, "POST", url, 400, "malformed JSON: the key 'seat' appears twice",
            content=b'{"seat": 1, "seat": 0, "move": {}}', headers=RAW)
    # integers too large for a float where a strike or a placement is read
    big = 10 ** 400
    for key in ("V0", "phi", "theta", "a", "b"):
        refused(client, gid, "POST", url, 400, f"strike.{key} must be a finite number, got 1000",
                json={"seat": 0, "move": {"strike": {**STRIKE, key: big}, "place": [-0.9, 0.1]}})
    refused(client, gid, "POST", url, 400, "place must be [x, y], two finite numbers",
            json={"seat": 0, "move": {"strike": STRIKE, "place": [-0.9, big]}})
    # a strike names no ball (golfbillard's ball is move.ball): an unknown key, not ignored
    refused(client, gid, "POST", url, 400, "unknown key(s) ['ball'] in strike",
            json={"seat": 0, "move": {"strike": {**STRIKE, "ball": "red"}, "place": [-0.9, 0.1]}})

    # a body streamed without Content-Length is cut off at the limit
    def chunks():
        yield b'{"seat": 0, "pad": "'
        for _ in range(60):
            yield b"x" * 100_000
        yield b'"}'
    refused(client, gid, "POST", url, 400, "request body too large", content=chunks(),
            headers=RAW)
    # a huge bad value is named, not echoed whole
    r = client.post(url, json={"seat": "x" * 4_000_000, "move": {}})
    assert r.status_code == 400 and r.json()["detail"].startswith("seat must be a seat number")
    assert "characters left out" in r.json()["detail"] and len(r.content) < 3000
    # the game still plays
    r = client.post(url, json={"seat": 0, "shot": 0,
                               "move": {"strike": STRIKE, "place": [-0.9, 0.1]}})
    assert r.status_code == 200, r.text


def test_shot_number_in_the_path_must_be_an_integer(client):
    gid = new_game(client)["id"]
    for k in ("abc", "1.5", "1e3"):
        r = client.get(f"/api/games/{gid}/shots/{k}")
        assert r.status_code == 400, r.text
        assert r.json()["detail"] == f"a shot number is written with the digits 0-9, got {k!r}"


def test_new_game_refuses_more_bad_requests(client, tmp_path, monkeypatch):
    from cuegym.play import session

    seats = [{"kind": "human"}, {"kind": "human"}]
    bogus = tmp_path / "bogus.zip"
    bogus.write_bytes(b"not a zip")
    for body, needle in (
            ({"options": [1, 2]}, "options must be an object, got [1, 2]"),
            ({"options": "ab"}, "options must be an object, got 'ab'"),
            ({"options": 5}, "options must be an object, got 5"),
            ({"options": [["players", 3]]}, "options must be an object"),
            ({"seats": [{"kind": "human", "name": False}, {}]}, "seats[0].name must be a string"),
            ({"seats": [{"kind": "human", "name": []}, {}]}, "got []"),
            ({"seats": [{"kind": "agent", "agent": "a" * 5000 + ".zip"}, {}]}, "does not exist"),
            ({"seats": [{"kind": "agent", "agent": "a\x00b.zip"}, {}]}, "does not exist"),
            ({"seats": [{"kind": "agent", "agent": str(bogus)}, {}]},
             "cannot be loaded as a keglebillard agent: " + str(bogus) + " is not a readable "
             "model zip"),
    ):
        r = client.post("/api/games", json={"game": "keglebillard", "seats": seats, **body})
        assert r.status_code == 400, (body, r.text)
        assert needle in r.json()["detail"], r.json()["detail"]
    assert client.app.state.games._games == {}
    # a model file with a long path and no name: named by its file name (was refused as a
    # name of over 40 characters the request never gave)
    long = tmp_path / ("d" * 50) / "my_model.zip"
    long.parent.mkdir()
    long.write_bytes(b"")
    monkeypatch.setitem(session._AGENTS, (str(long), "keglebillard"), object())
    r = client.post("/api/games", json={"game": "keglebillard", "seats": [
        {"kind": "agent", "agent": str(long)}, {"kind": "human"}]})
    assert r.status_code == 200, r.text
    assert r.json()["view"]["seats"][0] == {"name": "my_model.zip", "kind": "agent",
                                            "agent": str(long)}


def test_a_model_of_the_other_game_is_refused_at_creation(client):
    from cuegym.agents import pretrained_path

    path = str(pretrained_path("keglebillard"))
    r = client.post("/api/games", json={"game": "golfbillard", "seats": [
        {"kind": "agent", "agent": path, "name": "zip"}, {"kind": "human"}]})
    assert r.status_code == 400, r.text
    assert "cannot be loaded as a golfbillard agent" in r.json()["detail"]
    assert "plays keglebillard, not golfbillard" in r.json()["detail"]


def _golf_spot_question(c):
    """A golfbillard game between two people waiting for a penalty-spot answer (G-30)."""
    v = c.post("/api/games", json={"game": "golfbillard", "noise": "none", "seats": [
        {"kind": "human", "name": "W"}, {"kind": "human", "name": "R"}]}).json()["view"]
    gid = v["id"]
    s = _opening(c, gid, v)["view"]["state"]["to_move"]
    r = c.post(f"/api/games/{gid}/move", json={
        "seat": s, "move": {"ball": "wr"[s] + "4", "strike": {**STRIKE, "V0": 1.0, "phi": -90.0}}})
    q = r.json()["pending"]["question"]
    assert q["kind"] == "spot" and q["options"]
    return gid, 1 - s, q


def test_a_question_with_one_answer_is_not_asked(client):
    """A G-14 foul sends w3 and w5 to penalty spots; once w3 takes spot 2, w5 has only spot 1
    left, and the person was asked to click it. It is now taken at once and recorded as an
    answer; the second tab's answer for w3 finds no question."""
    r = client.post("/api/games", json={"game": "golfbillard", "seats": [
        {"name": "A"}, {"name": "B"}], "noise": "none", "seed": 9})
    gid = r.json()["view"]["id"]
    for seat, ball, V0, phi in ((0, "w1", 2.2, 4.916), (1, "r1", 2.2, 189.671),
                                (0, "w1", 2.2, 11.808), (1, "r1", 2.2, 197.698),
                                (0, "w1", 3.09, 152.037)):
        r = client.post(f"/api/games/{gid}/move", json={
            "seat": seat, "move": {"ball": ball, "strike": {"V0": V0, "phi": phi}}})
        assert r.status_code == 200, r.text
    q = r.json()["pending"]["question"]
    assert (q["ball"], q["options"], q["number"]) == ("w3", [1, 2], 0)
    r = client.post(f"/api/games/{gid}/choice", json={"seat": 1, "answer": {"spot": 2},
                                                      "question": 0})
    assert r.status_code == 200, r.text
    shot = r.json()["shot"]
    assert shot["outcome"]["spotted"] == [{"ball": "w3", "spot": 2}, {"ball": "w5", "spot": 1}]
    assert shot["choices"]["spots"] == [2, 1]
    refused(client, gid, "POST", f"/api/games/{gid}/choice", 409, "no choice is pending",
            json={"seat": 1, "answer": {"spot": 1}, "question": 0})
    rec = client.get(f"/api/games/{gid}/record").json()
    rv = client.post("/api/replays", json={"record": rec})
    assert rv.status_code == 200, rv.text
    assert rv.json()["view"]["state"] == r.json()["view"]["state"]


def test_choice_answers_and_seats_are_type_checked(client):
    gid, o, q = _golf_spot_question(client)
    url = f"/api/games/{gid}/choice"
    k = q["options"][0]
    for answer, needle in (({"spot": True}, "spot True is not a free penalty spot"),
                           ({"spot": float(k)}, f"spot {float(k)} is not a free penalty spot"),
                           ({"spot": str(k)}, f"spot '{k}' is not a free penalty spot"),
                           ({"spot": 10 ** 400}, "is not a free penalty spot"),
                           ({"spot": k, "x": 1}, "unknown key(s) ['x'] in the answer"),
                           ({"pick": "w1"}, "unknown key(s) ['pick'] in the answer")):
        refused(client, gid, "POST", url, 400, needle, json={"seat": o, "answer": answer})
    # -1 and 5 were 409 "seat -1 is not asked" here, 400 for a move: one check for both now
    for seat in (float(o), str(o), [o], None, -1, 5) + ((True,) if o == 1 else ()):
        refused(client, gid, "POST", url, 400, f"seat must be a seat number 0..1, got {seat!r}",
                json={"seat": seat, "answer": {"spot": k}})
    # a stale tab's answer is refused as a stale move is (the key was refused as unknown)
    shots = client.get(f"/api/games/{gid}").json()["shots"]
    refused(client, gid, "POST", url, 409, "the game has moved on",
            json={"seat": o, "answer": {"spot": k}, "shot": shots - 1})
    # ... and so is an answer to a question already answered: one stroke can ask several
    # (a penalty spot for each ball), all at the same shot, and a second tab's answer to the
    # first was taken for the next
    assert q["number"] == 0
    refused(client, gid, "POST", url, 409, "question 1 has not been asked; the open one is "
            "question 0", json={"seat": o, "answer": {"spot": k}, "question": 1})
    for bad in (-1, True, "0", 0.0):
        refused(client, gid, "POST", url, 400, "question must be the number of the question",
                json={"seat": o, "answer": {"spot": k}, "question": bad})
    refused(client, gid, "POST", url, 400, "shot must be the number of shots played so far "
            "(0 or more), got -1", json={"seat": o, "answer": {"spot": k}, "shot": -1})
    r = client.post(url, json={"seat": o, "answer": {"spot": k}, "shot": shots, "question": 0})
    assert r.status_code == 200, r.text
    assert r.json()["shot"]["choices"] == {"spots": [k], "pick": None}
    # the record keeps the answer; malformed choices in a record are refused, not a 500
    rec = client.get(f"/api/games/{gid}/record").json()
    for choices, needle in (([1], "choices must be {'spots'"), ("ab", "choices must be"),
                            ({"spots": [10 ** 400]}, "choices.spots must be a list"),
                            ({"spots": [k], "pick": [1]}, "choices.pick must be a ball id")):
        bad = json.loads(json.dumps(rec))
        bad["shots"][1]["choices"] = choices
        r = client.post("/api/replays", json={"record": bad})
        assert r.status_code == 400, (choices, r.text)
        assert r.json()["detail"].startswith("shot 1 of the record cannot be re-played")
        assert needle in r.json()["detail"], r.json()["detail"]
    bad = json.loads(json.dumps(rec))
    bad["shots"][0]["executed"]["strikes"] = bad["shots"][0]["executed"]["strikes"][:1]
    r = client.post("/api/replays", json={"record": bad})
    assert r.status_code == 400 and "must be two strikes (the opening)" in r.json()["detail"]


def test_replay_refuses_malformed_records_not_500(client):
    gid = new_game(client)["id"]
    client.post(f"/api/games/{gid}/move", json={"seat": 0, "move": {"strike": STRIKE,
                                                                    "place": [-0.9, 0.1]}})
    rec = client.get(f"/api/games/{gid}/record").json()

    def with_(f):
        x = json.loads(json.dumps(rec))
        f(x)
        return x

    for bad, needle in (
            (with_(lambda x: x.update(seats=[1, 2])), "seats[0] must be an object"),
            (with_(lambda x: x["seats"][1].update(kind=["agent"])), "seats[1].kind must be"),
            (with_(lambda x: x["seats"][1].update(agent=[1])), "seats[1].agent must be a string"),
            (with_(lambda x: x.update(noise=[1])),
             "noise must be one of ['none', 'tournament'], got [1]"),
            (with_(lambda x: x.update(options="ab")), "options must be an object, got 'ab'"),
            (with_(lambda x: x.update(meta=[["a", 1]])), "meta must be an object"),
            (with_(lambda x: x["shots"][0].update(seats=5)), "seats must be a list of seat"),
            (with_(lambda x: x["shots"][0].update(seats="ab")), "got 'ab'"),
            (with_(lambda x: x["shots"][0]["executed"]["strike"].update(V0="3.0")),
             "executed.strike.V0 must be a finite number, got '3.0'"),
            (with_(lambda x: x["shots"][0]["executed"].update(place="ab")),
             "executed.place must be [x, y]"),
            (with_(lambda x: x["shots"][0].pop("outcome")), "shot 0 of the record lacks 'outcome'"),
            (with_(lambda x: x["shots"][0].pop("after")), "shot 0 of the record lacks 'after'"),
            (with_(lambda x: x["shots"][0].pop("executed")),
             "shot 0 of the record lacks 'executed'"),
    ):
        r = client.post("/api/replays", json={"record": bad})
        assert r.status_code == 400, (needle, r.text)
        assert needle in r.json()["detail"], r.json()["detail"]
    # NaN / Infinity would be kept in the replay and break every later answer about it
    v0 = json.dumps(rec["shots"][0]["executed"]["strike"]["V0"])
    for token in ("NaN", "Infinity", "1e999"):
        raw = json.dumps({"record": rec}).replace(f'"V0": {v0}', f'"V0": {token}', 1)
        r = client.post("/api/replays", content=raw.encode(), headers=RAW)
        assert r.status_code == 400 and "NaN or Infinity" in r.json()["detail"], r.text
    assert all(g.mode == "play" for g in client.app.state.games._games.values())


def test_odd_record_names_and_unreadable_record_files(client, tmp_path):
    gid = new_game(client)["id"]
    d = tmp_path / "games"
    files = {"deep.json": "[" * 100_000 + "]" * 100_000,
             "seats.json": json.dumps({"format": "cuegym-game", "seats": [1, 2]}),
             "shots.json": json.dumps({"format": "cuegym-game", "shots": 5}),
             "final.json": json.dumps({"format": "cuegym-game", "final": [1]}),
             "nan.json": '{"format": "cuegym-game", "meta": {"x": NaN}}',
             "digits.json": '{"format": "cuegym-game", "version": ' + "9" * 5000 + "}"}
    for name, text in files.items():
        (d / name).write_text(text)
    (d / "binary.json").write_bytes(b"\xff\xfe\x00")
    r = client.get("/api/records")  # the listing skips what it cannot read
    assert r.status_code == 200, r.text
    assert [x["name"] for x in r.json()] == [f"0:{gid}.json"]
    for name in [*files, "binary.json"]:  # opening one says why
        r = client.post("/api/replays", json={"name": f"0:{name}"})
        assert r.status_code == 400, (name, r.text)
    for name in ("²:x.json", "9" * 5000 + ":x.json"):
        r = client.post("/api/replays", json={"name": name})
        assert r.status_code == 404 and "unknown record folder" in r.json()["detail"], r.text
    for name in ("0:a\x00.json", "0:" + "a" * 5000 + ".json"):
        r = client.post("/api/replays", json={"name": name})
        assert r.status_code == 404 and "no saved record" in r.json()["detail"], r.text


def test_concurrent_requests_on_one_game(client):
    import threading

    gid = new_game(client, seats=[{"kind": "human"}, {"kind": "human"}])["id"]
    codes = []

    def shoot():
        r = client.post(f"/api/games/{gid}/move", json={
            "seat": 0, "shot": 0, "move": {"strike": STRIKE, "place": [-0.9, 0.1]}})
        codes.append(r.status_code)

    threads = [threading.Thread(target=shoot) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [200] + [409] * 5
    assert client.get(f"/api/games/{gid}").json()["shots"] == 1
    # saves of one game at once (two requests finishing together) neither fail nor leave an
    # older record over a newer one
    games = client.app.state.games
    g = games.get(gid)
    errors = []

    def save():
        for _ in range(40):
            try:
                games.save(g)
            except Exception as e:  # noqa: BLE001
                errors.append(e)

    threads = [threading.Thread(target=save) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    saved = json.loads((games.save_dir / f"{gid}.json").read_text())
    assert len(saved["shots"]) == 1
    assert not list(games.save_dir.glob("*.tmp"))


def test_seat_names_seeds_and_null_strike_parts_are_checked(client):
    """Two seats named alike (the calls could not tell them apart), a NUL or a right-to-left
    override in a name, and a 4,000-digit seed were accepted; a null tip offset was "required"
    although it may be left out."""
    def start(seats, **kw):
        return client.post("/api/games", json={"game": "keglebillard", "seats": seats, **kw})

    two = [{"kind": "human", "name": "A"}, {"kind": "human", "name": "A "}]
    r = start(two)
    assert r.status_code == 400 and "seats[1].name 'A' is taken by another seat" in r.text
    for bad in ("Ann\x00", "Ann\u202e"):
        r = start([{"kind": "human", "name": bad}, {"kind": "human"}])
        assert r.status_code == 400 and "seats[0].name must be printable text" in r.text
    r = start([{"kind": "human", "name": "   "}, {"kind": "human"}])  # blank: the default
    assert r.status_code == 200 and r.json()["view"]["seats"][0]["name"] == "Player 1"
    r = start([{"kind": "human"}, {"kind": "human"}], seed=10 ** 4000)
    assert r.status_code == 400 and "seed must be an integer in [0, 2**128), got an integer " \
        "of 13288 bits" in r.text
    gid = new_game(client)["id"]
    refused(client, gid, "POST", f"/api/games/{gid}/move", 400,
            "strike.a must be a number, got null (it may be left out: 0)",
            json={"seat": 0, "move": {"strike": {**STRIKE, "a": None}, "place": [-0.9, 0.1]}})


def test_agents_play_the_games_setting():
    """Was: every agent was made for the default setting (70 points, two players), so in a
    3-player game to 30 the planner valued its shots under the wrong rules."""
    from cuegym.play import session

    t = session.make_table("keglebillard", {"players": 3, "distance": 30})
    for spec in ("planner", "geometric"):
        agent = session.get_agent(spec, "keglebillard", t)
        assert agent.arena is t.arena and agent.arena.rules.distance == 30
        assert agent.arena.n_players == 3
        assert session.get_agent(spec, "keglebillard", t) is agent  # cached per setting
        assert session.get_agent(spec, "keglebillard").arena.rules.distance == 70
    golf = session.make_table("golfbillard", {"match": "best_of_3"})
    assert session.get_agent("planner", "golfbillard", golf).arena is golf.arena
    assert len(session._AGENTS) <= session.MAX_AGENTS
