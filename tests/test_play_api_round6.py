"""The play web app's HTTP API and records, sixth outside audit (docs/play.md): each test
failed on the code before its fix."""
import json

import pytest
from fastapi.testclient import TestClient

from cuegym.play import record
from cuegym.play.server import create_app


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(save_dir=tmp_path / "games"), base_url="http://localhost")


def _game(c, names=("Ann", "Bo")):
    return c.post("/api/games", json={"game": "keglebillard",
                                      "seats": [{"name": n} for n in names]})


@pytest.mark.parametrize("name", ["Jean\u00a0Pierre", "山田\u3000太郎", "A\u2009B"])
def test_a_name_with_a_space_character_is_a_name(client, name):
    """docs/play.md refuses control/formatting characters, line/paragraph separators and
    private-use characters; a no-break or ideographic space is none of them."""
    r = _game(client, (name, "Bo"))
    assert r.status_code == 200, r.text


def test_a_ten_digit_shot_number_is_a_missing_shot_not_a_bad_number(client):
    gid = _game(client).json()["view"]["id"]
    r = client.get(f"/api/games/{gid}/shots/1234567890")
    assert r.status_code == 404, r.text  # was 400 "is written with the digits 0-9"
    r = client.get(f"/api/games/{gid}/shots/00000000000")
    assert r.status_code == 404, r.text  # shot 0 of a game with no shots


def test_the_save_dir_given_again_as_records_is_listed_once(tmp_path):

    d = tmp_path / "play"
    d.mkdir()
    c = TestClient(create_app(d, [d, d]), base_url="http://localhost")  # what --records play gives
    assert _game(c).status_code == 200
    names = [x["name"].split(":", 1)[1] for x in c.get("/api/records").json()]
    assert len(names) == len(set(names)) == 1


@pytest.fixture
def raising_client(tmp_path):
    return TestClient(create_app(save_dir=tmp_path), base_url="http://localhost",
                      raise_server_exceptions=False)


def _three_player_record(c):
    v = c.post("/api/games", json={"game": "keglebillard", "options": {"players": 3},
                                   "seats": [{"kind": "agent", "agent": "random", "name": n}
                                             for n in "ABC"],
                                   "noise": "none", "seed": 3}).json()["view"]
    for _ in range(3):
        assert c.post(f"/api/games/{v['id']}/agent", json={}).status_code == 200
    rec = c.get(f"/api/games/{v['id']}/record").json()
    rec["options"]["players"] = 2
    rec["seats"] = rec["seats"][:2]
    for s in rec["shots"]:
        s.pop("seats")
    return rec


def test_a_start_state_with_other_players_is_refused_not_500(raising_client):
    rec = _three_player_record(raising_client)
    r = raising_client.post("/api/replays", json={"record": rec})
    assert r.status_code == 400, r.text
    assert "players" in r.json()["detail"]


def test_a_start_state_with_other_players_is_refused_without_shots(raising_client):
    rec = _three_player_record(raising_client)
    rec["shots"], rec["final"] = [], rec["start"]
    r = raising_client.post("/api/replays", json={"record": rec})
    assert r.status_code == 400, r.text


def test_long_agent_names_do_not_kill_the_run_after_the_games(tmp_path):
    from cuegym.experiments.evaluate import main

    out = tmp_path / "eval"
    long = "geometric:spin=0.1,name=a_long_label_for_the_geometric_agent"
    rc = main(["--game", "keglebillard", "--agents", f"{long},random", "--games", "1",
               "--seed", "3", "--save-games", "1", "--out", str(out), "--quiet"])
    assert rc == 0
    files = sorted((out / "games").glob("*.json"))
    assert len(files) == 1
    r = record.load_file(files[0])
    assert r.meta["verified"]
    assert all(len(s["name"]) <= 40 for s in json.loads(files[0].read_text())["seats"])
