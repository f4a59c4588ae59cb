"""The play web app, eighth outside audit (docs/play.md): the Replay list across folders, the
record of a replay, seat names, the aim's range, records' keys and intended moves, a model
path that is a folder, --help. Each test marked "failed before" failed on the code before its
fix; the others guard what the fix added."""
import copy
import json
import os

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from cuegym.play import record, session  # noqa: E402
from cuegym.play.server import create_app  # noqa: E402

MOVE0 = {"V0": 2.0, "theta": 0, "a": 0, "b": 0}


@pytest.fixture
def client(tmp_path):
    games = tmp_path / "games"
    return TestClient(create_app(save_dir=games, record_dirs=[games]),
                      base_url="http://localhost")


def _new(client, game="keglebillard", seed=0, seats=({"name": "A"}, {"name": "B"})):
    r = client.post("/api/games", json={"game": game, "noise": "none", "seed": seed,
                                        "seats": list(seats)})
    assert r.status_code == 200, r.text
    return r.json()["view"]["id"]


def _kegle_record(client, seed=0):
    """The record of a keglebillard game of one person's shot (the red placed)."""
    gid = _new(client, seed=seed)
    r = client.post(f"/api/games/{gid}/move", json={
        "seat": 0, "move": {"strike": {**MOVE0, "phi": 0.0}, "place": [-0.8, 0.1]}})
    assert r.status_code == 200, r.text
    return client.get(f"/api/games/{gid}/record").json()


# -- the Replay list: every folder's records together, newest first ---------------------------

def _listing(names, meta=None):
    return {"format": "cuegym-game", "version": 1, "game": "keglebillard",
            "seats": [{"name": n, "kind": "human", "agent": None} for n in names],
            "shots": [], "final": {"game_over": True}, "meta": meta or {}}


def _write(path, rec, t):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec))
    os.utime(path, (t, t))


def test_the_records_of_all_folders_are_listed_together_newest_first(tmp_path):
    """Failed before: /api/records listed --save-dir whole before the --records folders, and
    the lobby showed its first 100 entries, so a tournament's records vanished once 100 games
    were saved."""
    play, ev = tmp_path / "play", tmp_path / "eval"
    for k in range(3):
        _write(play / f"g{k}.json", _listing(["You", f"geometric {k}"]), 1e9 + 10 * k)
    _write(ev / "keglebillard" / "games" / "t.json",
           _listing(["pretrained", "geometric"], {"tournament": "pretrained_vs_geometric"}),
           1e9 + 15)
    c = TestClient(create_app(save_dir=play, record_dirs=[play, ev]),
                   base_url="http://localhost")
    listed = c.get("/api/records").json()
    assert [x["name"] for x in listed] == ["0:g2.json", "1:keglebillard/games/t.json",
                                           "0:g1.json", "0:g0.json"]
    assert [x["saved"] for x in listed] == [1e9 + 20, 1e9 + 15, 1e9 + 10, 1e9]
    assert listed[1]["meta"]["tournament"] == "pretrained_vs_geometric"


def test_a_record_file_is_read_again_only_when_it_changed(tmp_path, monkeypatch):
    """The lobby lists every folder on every visit: an unchanged file is not parsed again, a
    changed one is, and one removed is no longer listed."""
    d = tmp_path / "play"
    _write(d / "a.json", _listing(["Ann", "Bo"]), 1e9)
    _write(d / "b.json", _listing(["Cy", "Di"]), 1e9 + 1)
    read = []
    entry = record._entry
    monkeypatch.setattr(record, "_entry", lambda p, root: read.append(p.name) or entry(p, root))
    c = TestClient(create_app(save_dir=d, record_dirs=[d]), base_url="http://localhost")
    assert [x["seats"] for x in c.get("/api/records").json()] == [["Cy", "Di"], ["Ann", "Bo"]]
    assert sorted(read) == ["a.json", "b.json"]
    read.clear()
    assert len(c.get("/api/records").json()) == 2 and read == []
    _write(d / "a.json", _listing(["Ann", "Eve"]), 1e9 + 2)
    (d / "b.json").unlink()
    assert [x["seats"] for x in c.get("/api/records").json()] == [["Ann", "Eve"]]
    assert read == ["a.json"]


# -- the record of a replay is the record that was opened -------------------------------------

@pytest.mark.parametrize("seed", [12345, None])
def test_the_record_of_a_replay_is_the_record_opened(client, seed):
    """Failed before: "save record" on a replay gave seed 0 and a meta with the replay's
    "source" and "verified" added."""
    rec = _kegle_record(client)
    rec = {**rec, "seed": seed, "meta": {"tournament": "a_vs_b", "game_index": 3}}
    rid = client.post("/api/replays", json={"record": rec}).json()["view"]["id"]
    view = client.get(f"/api/games/{rid}").json()
    assert view["meta"] == {"tournament": "a_vs_b", "game_index": 3, "source": "uploaded",
                            "verified": True}
    assert client.get(f"/api/games/{rid}/record").json() == rec


# -- seat names -------------------------------------------------------------------------------

@pytest.mark.parametrize("typed", ["Player 1", "Player\u00a01", "Player\u20091", "Player\u30001",
                                   " Player 1 "])
def test_an_unnamed_seat_avoids_a_typed_name_however_it_is_spaced(client, typed):
    """Failed before (the no-break, thin and ideographic spaces): the default name was checked
    against the typed name trimmed only, so "Player\u00a01" (which is "Player 1") clashed with
    seat 0's default "Player 1" and the game was refused."""
    r = client.post("/api/games", json={"game": "keglebillard", "noise": "none",
                                        "seats": [{}, {"name": typed}]})
    assert r.status_code == 200, r.text
    assert [s["name"] for s in r.json()["view"]["seats"]] == ["Player 1 2", "Player 1"]


@pytest.mark.parametrize("name", ["\u0301", "\u0301\u0301", "\ufe0f", "\u3164", "\u2800",
                                  "\u115f", "\u1160", "\uffa0", " \u3164 \u0301 "])
def test_a_name_that_shows_nothing_is_refused(client, name):
    """Failed before: a lone combining mark, a variation selector, a Hangul filler or the
    blank Braille pattern was taken as a name, and the calls said " scores 6 points"."""
    r = client.post("/api/games", json={"game": "keglebillard",
                                        "seats": [{"name": name}, {"name": "B"}]})
    assert r.status_code == 400, r.text
    assert "seats[0].name must show a letter" in r.json()["detail"]


@pytest.mark.parametrize("name, shown", [("e\u0301", "\u00e9"), ("A\u3164", "A\u3164"),
                                         ("\U0001f3b1", "\U0001f3b1"),
                                         ("\U0001f44d\ufe0f", "\U0001f44d\ufe0f"), ("-", "-"),
                                         ("\u5c71\u7530", "\u5c71\u7530")])
def test_a_name_with_something_to_show_is_taken(client, name, shown):
    r = client.post("/api/games", json={"game": "keglebillard",
                                        "seats": [{"name": name}, {"name": "B"}]})
    assert r.status_code == 200, r.text
    assert r.json()["view"]["seats"][0]["name"] == shown


# -- the aim's range --------------------------------------------------------------------------

@pytest.mark.parametrize("phi", [1e300, 1e20, -1e17, 10 ** 30, 360.5, -361])
def test_an_aim_beyond_a_turn_is_refused_not_wrapped(client, phi):
    """Failed before: phi 1e300 was wrapped to an arbitrary angle and played, and the record
    kept "intended": {"phi": 1e300}."""
    gid = _new(client)
    before = client.get(f"/api/games/{gid}").json()
    r = client.post(f"/api/games/{gid}/move", json={
        "seat": 0, "move": {"strike": {**MOVE0, "phi": phi}, "place": [-0.8, 0.1]}})
    assert r.status_code == 400, r.text
    assert "strike.phi" in r.json()["detail"] and "[-360.0, 360.0]" in r.json()["detail"]
    assert client.get(f"/api/games/{gid}").json() == before


@pytest.mark.parametrize("phi, wrapped", [(360, 0.0), (-360, 0.0), (180, -180.0),
                                          (-359.5, 0.5), (270, -90.0)])
def test_an_aim_within_a_turn_either_way_is_wrapped(phi, wrapped):
    assert session.parse_strike({**MOVE0, "phi": phi})[1] == wrapped


def test_info_gives_the_aim_range(client):
    assert client.get("/api/info").json()["limits"]["phi"] == [-360.0, 360.0]


# -- records: unknown keys and intended moves are refused; the app's own records load ----------

@pytest.mark.parametrize("where, needle", [
    ("top", "unknown key(s) ['finall'] in the record"),
    ("seat", "unknown key(s) ['nmae'] in seats[1]"),
    ("shot", "unknown key(s) ['outcom'] in shot 0"),
    ("intended", "shot 0: intended must be a move object or null"),
    ("intended key", "unknown key(s) ['junk']"),
    ("intended phi", "strike.phi = 1e+300 deg is out of range"),
    ("intended place", "place must be [x, y]"),
    ("intended opening", "unknown key(s) ['strikes'] in a keglebillard move"),
])
def test_an_uploaded_record_with_an_unknown_key_or_a_bad_intended_move_is_refused(
        client, where, needle):
    """Failed before (all but "intended" itself, a string, which was refused): a misspelt key
    or an "intended" strike that is not a strike was opened, and the strike served back as the
    intended move."""
    rec = copy.deepcopy(_kegle_record(client))
    shot = rec["shots"][0]
    if where == "top":
        rec["finall"] = rec["final"]
    elif where == "seat":
        rec["seats"][1]["nmae"] = "B"
    elif where == "shot":
        shot["outcom"] = 1
    elif where == "intended":
        shot["intended"] = "fast"
    elif where == "intended key":
        shot["intended"] = {**shot["intended"], "junk": [1]}
    elif where == "intended phi":
        shot["intended"]["strike"]["phi"] = 1e300
    elif where == "intended place":
        shot["intended"]["place"] = [0.1]
    else:  # an opening's move in a keglebillard game
        shot["intended"] = {"strikes": [shot["intended"]] * 2}
    r = client.post("/api/replays", json={"record": rec})
    assert r.status_code == 400, r.text
    assert needle in r.json()["detail"], r.json()["detail"]


def test_golfbillard_intended_moves_are_checked(client):
    """An opening is two moves; a play stroke's ball is a ball id."""
    gid = _new(client, "golfbillard")
    for seat, ball in ((0, None), (1, "r1")):  # a person's opening move may leave out its ball
        move = {"strike": {**MOVE0, "phi": 180.0 * seat}} | ({"ball": ball} if ball else {})
        r = client.post(f"/api/games/{gid}/move", json={"seat": seat, "move": move})
        assert r.status_code == 200, r.text
    rec = client.get(f"/api/games/{gid}/record").json()
    assert len(rec["shots"][0]["intended"]["strikes"]) == 2
    assert client.post("/api/replays", json={"record": rec}).status_code == 200
    for intended, needle in (
            ({"strikes": rec["shots"][0]["intended"]["strikes"][:1]}, "an opening is"),
            ({"strikes": rec["shots"][0]["intended"]["strikes"], "x": 1}, "an opening is"),
            ({"strike": {**MOVE0, "phi": 0}, "ball": 7}, "ball must be a ball id"),
            ({"strike": {**MOVE0, "phi": 0}, "place": [0, 0]}, "unknown key(s) ['place']")):
        bad = copy.deepcopy(rec)
        bad["shots"][0]["intended"] = intended
        r = client.post("/api/replays", json={"record": bad})
        assert r.status_code == 400 and needle in r.json()["detail"], r.text


@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_records_the_app_writes_load(client, game):
    """A person's moves and an agent's, as the app records them, are intended moves that load;
    so are a tournament's (evaluate.py --save-games, intended null:
    tests/test_play_record.py::test_evaluate_save_games_writes_replayable_tournament_games)."""
    seats = [{"name": "A"}, {"kind": "agent", "agent": "geometric"}]
    gid = _new(client, game, seed=4, seats=seats)
    for _ in range(4):
        v = client.get(f"/api/games/{gid}").json()
        a = v["awaiting"]
        if a["type"] == "over":
            break
        if v["agents_to_act"]:
            r = client.post(f"/api/games/{gid}/agent", json={})
        elif a["type"] == "choice":  # the person chooses for the agent's foul
            q = a["question"]
            answer = {"spot": q["options"][0]} if q["kind"] == "spot" else \
                {"pick": q["options"][0]}
            r = client.post(f"/api/games/{gid}/choice", json={"seat": a["seat"],
                                                                "answer": answer})
        else:
            seat = a["missing"][0] if a["type"] == "opening" else a["seat"]
            move = {"strike": {**MOVE0, "phi": 180.0 * seat}}
            if game == "keglebillard" and v["state"]["ball_in_hand"]:
                move["place"] = [-0.8, 0.1]
            elif a["type"] == "move" and game == "golfbillard":
                move["ball"] = v["own_balls"][0]
            r = client.post(f"/api/games/{gid}/move", json={"seat": seat, "move": move})
        assert r.status_code == 200, r.text
    listed = client.get("/api/records").json()
    assert len(listed) == 1
    rec = client.get(f"/api/games/{gid}/record").json()
    assert rec["shots"] and all(s["intended"] is not None for s in rec["shots"])
    r = client.post("/api/replays", json={"name": listed[0]["name"]})
    assert r.status_code == 200, r.text
    assert r.json()["view"]["shots"] == len(rec["shots"])


# -- a model path that is a folder; --help ----------------------------------------------------

def test_a_model_path_that_is_a_folder_is_said_to_be_one(client, tmp_path):
    """Failed before: "model file '.../model.zip' does not exist"."""
    d = tmp_path / "model.zip"
    d.mkdir()
    r = client.post("/api/games", json={"game": "keglebillard", "seats": [
        {"name": "A"}, {"kind": "agent", "agent": str(d)}]})
    assert r.status_code == 400
    assert r.json()["detail"] == f"model file {str(d)!r} is a folder, not a model .zip file"


def test_help_describes_the_command_in_plain_text(capsys):
    """Failed before: the description was the module doc's first line, reST and all
    ("``python -m cuegym.play``: start ...")."""
    from cuegym.play.__main__ import main

    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "``" not in out and "Start the local web app" in out
