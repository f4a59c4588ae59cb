"""The play web app, seventh outside audit (docs/play.md): each test failed on the code before
its fix."""
import re
import socket
import sys
import threading
import time
import urllib.request

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from cuegym.play import session  # noqa: E402
from cuegym.play.call import golf_call  # noqa: E402
from cuegym.play.server import create_app  # noqa: E402


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(save_dir=tmp_path), base_url="http://localhost")


# -- the opening call names the sides by their seat names, never by text rewritten in them ----

NEARER = "side {}'s ball stopped nearer its attack goal"  # rules/golf_codes.py OPENING_REASONS[3]
LOST = ("side {} lost the opening (its ball did not cross x = 0, or it fouled or struck another "
        "ball than its middle ball)")  # OPENING_REASONS[4]


def _opening(reason, first):
    return {"opening": True, "reason": reason.format(first), "first": first, "fouls": []}


def test_a_name_with_the_word_it_is_kept_whole():
    """The names went in first and the "its"/"it" rewrite ran over them: "Fix they's ball"."""
    call = golf_call(_opening(NEARER, 1), ["Ann", "Fix it"])
    assert call[0] == "opening (G-3): Fix it's ball stopped nearer their attack goal", call
    call = golf_call(_opening(LOST, 0), ["its it", "Bo"])
    assert call[0] == ("opening (G-3): its it lost the opening (their ball did not cross x = 0, "
                       "or they fouled or struck another ball than their middle ball)"), call


def test_the_opening_winner_is_named_whatever_the_names_say():
    """Side 0 named "side 1": the second "side N" rewrite credited side 1 (Bob)."""
    call = golf_call(_opening(NEARER, 0), ["side 1", "Bob"])
    assert call[0] == "opening (G-3): side 1's ball stopped nearer their attack goal", call
    assert golf_call(_opening(NEARER, 1), ["Ann", "side 0's"])[0] == \
        "opening (G-3): side 0's's ball stopped nearer their attack goal"


# -- golfbillard duo: the two sides' names differ ----------------------------------------------

def test_duo_sides_with_the_same_name_are_refused(client):
    r = client.post("/api/games", json={"game": "golfbillard", "options": {"duo": True},
                                        "noise": "none", "seats": [
                                            {"name": "A & B"}, {"name": "C"},
                                            {"name": "A"}, {"name": "B & C"}]})
    assert r.status_code == 400 and "'A & B & C'" in r.json()["detail"], r.text
    r = client.post("/api/games", json={"game": "golfbillard", "options": {"duo": True},
                                        "noise": "none", "seats": [
                                            {"name": "A & B"}, {"name": "C"},
                                            {"name": "A"}, {"name": "B"}]})
    assert r.status_code == 200, r.text
    assert r.json()["view"]["side_names"] == ["A & B & C", "A & B"]


# -- the agent cache is shared by the server's worker threads ----------------------------------

def test_get_agent_is_safe_under_concurrent_eviction(monkeypatch):
    """``key in _AGENTS`` then ``move_to_end``/``_AGENTS[key]`` raised KeyError when another
    thread evicted the key in between (a 500 for an agent's move)."""
    monkeypatch.setattr(session, "MAX_AGENTS", 2)  # evict on nearly every call
    monkeypatch.setattr(session, "_AGENTS", type(session._AGENTS)())
    tables = [session.make_table("keglebillard", {"distance": d}) for d in range(1, 4)]
    errors = []
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    stop = time.time() + 1.5

    def worker(k):
        i = k
        while time.time() < stop and not errors:
            try:
                session.get_agent("random", "keglebillard", tables[i % len(tables)])
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e))
            i += 3

    try:
        ts = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []
    assert len(session._AGENTS) <= 2


def test_two_threads_building_one_agent_share_it(monkeypatch):
    """Built outside the lock, the agent a second thread made meanwhile is dropped: every caller
    gets the one cached agent (acting is serialised per agent)."""
    monkeypatch.setattr(session, "_AGENTS", type(session._AGENTS)())
    t = session.make_table("keglebillard", {"distance": 9})
    got = []
    ts = [threading.Thread(target=lambda: got.append(session.get_agent("random", "keglebillard",
                                                                       t))) for _ in range(4)]
    for th in ts:
        th.start()
    for th in ts:
        th.join()
    assert len(got) == 4 and all(a is got[0] for a in got)


# -- the page's scripts are revalidated, so an upgrade is not run with stale ones -------------

@pytest.mark.parametrize("name", ["app.js", "play.js", "view.js", "table.js", "style.css"])
def test_static_files_are_revalidated(client, name):
    page = client.get("/").text
    assert f'/static/{name}"' in page, name
    r = client.get(f"/static/{name}")
    assert r.status_code == 200
    assert r.headers.get("cache-control") == "no-cache", dict(r.headers)
    again = client.get(f"/static/{name}", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304  # revalidation stays cheap
    assert client.get("/static/nothing.js").status_code == 404


# -- the printed URL is a URL for every bind --------------------------------------------------

@pytest.mark.parametrize("host, url", [
    ("127.0.0.1", "http://127.0.0.1:8765/"), ("0.0.0.0", "http://127.0.0.1:8765/"),
    ("", "http://127.0.0.1:8765/"), ("::1", "http://[::1]:8765/"), ("::", "http://[::1]:8765/"),
    ("fe80::1%eth0", "http://[fe80::1%25eth0]:8765/"), ("localhost", "http://localhost:8765/")])
def test_the_url_of_a_bind(host, url):
    from cuegym.play.__main__ import url_of

    assert url_of(host, 8765) == url


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_ipv6_bind_prints_a_bracketed_openable_url(tmp_path):
    """``--host ::1`` printed http://::1:PORT/, which no browser opens."""
    from play_server_support import play_server

    with play_server(tmp_path, "--host", "::1") as line:
        m = re.search(r"http://\[::1\]:\d+/", line)
        assert m, line
        with urllib.request.urlopen(m.group(0) + "api/info", timeout=20) as r:
            assert r.status == 200
