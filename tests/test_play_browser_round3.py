"""cuegym.play in a real browser, third audit round: stepping through shots, the call of the
shot shown, the server gone while agents play, many seats and a phone's width, the duo title.

Headless Chromium through Selenium as in ``test_play_browser.py`` (its server, browser and
helpers); the browser tests are skipped when Chromium, chromedriver or Selenium are missing.
One test here is plain API (an agent's answer says no agent is thinking) and always runs.
"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from browser_support import HAVE_SELENIUM, get, needs_browser, post

if HAVE_SELENIUM:
    from test_play_browser import browser, js, my_turn, server, start_server, text, wait  # noqa: F401


def size(d, w, h):
    """The window's inner size w x h (CSS pixels)."""
    d.set_window_size(w, h)
    iw, ih = js(d, "return [innerWidth, innerHeight]")
    d.set_window_size(2 * w - iw, 2 * h - ih)


def kegle_shots(base, gid, n, players=2):
    """Play ``n`` shots of a keglebillard game of people through the API (noise none)."""
    for k in range(n):
        v = get(base, f"/api/games/{gid}")
        if v["over"]:
            return v
        st, seat = v["state"], v["awaiting"]["seat"]
        phi = (-30.0 + 47.0 * k + 180.0) % 360.0 - 180.0  # the server takes |phi| <= 360
        move = {"strike": {"V0": 2.2, "phi": phi, "theta": 0, "a": 0, "b": 0}}
        if st["ball_in_hand"]:
            for xy in ([-0.675, 0.12], [-0.8, -0.3], [-0.9, 0.35], [-0.7, -0.1]):
                if get(base, f"/api/games/{gid}/placement?x={xy[0]}&y={xy[1]}")["ok"]:
                    move["place"] = xy
                    break
        post(base, f"/api/games/{gid}/move", {"seat": seat, "shot": k, "move": move})
    return get(base, f"/api/games/{gid}")


def calls(d):
    return [p.text for p in d.find_elements("css selector", "#call p")]


@needs_browser
def test_stepping_waits_for_the_animation_and_the_call_follows_the_shot_shown(server, browser):
    """A replay: ▶▶ (and ◀◀, ◀) are disabled while ▶ animates a shot (a click there used to
    land the step past the end, "27 / 26"); stepping back shows the call of the shot now
    shown, as the shot list marks it (it kept the later shot's call), none at the start."""
    base, _ = server
    d = browser
    gid = post(base, "/api/games", {"game": "keglebillard", "noise": "none", "seats": [
        {"kind": "human", "name": "A"}, {"kind": "human", "name": "B"}]})["view"]["id"]
    kegle_shots(base, gid, 3)
    rec = get(base, f"/api/games/{gid}/record")
    rid = post(base, "/api/replays", {"record": rec})["view"]["id"]
    d.get(base + f"/?game={rid}")
    wait(d, "window.cuegym.view && document.body.dataset.status === 'idle'", 30, "the replay")
    n = js(d, "return window.cuegym.view.shots")
    assert n == 3 and calls(d) == []
    js(d, "document.getElementById('speed').value = '0.25'")
    d.find_element("id", "next").click()
    wait(d, "document.body.dataset.status === 'animating'", 10, "the animation")
    dis = js(d, "return ['first', 'prev', 'next', 'last'].map(id => document.getElementById(id)"
                ".disabled)")
    assert dis == [True, True, True, True], dis
    js(d, "document.getElementById('last').click()")  # a click that gets through anyway
    js(d, "document.getElementById('speed').value = '4'")
    wait(d, "document.body.dataset.status === 'idle'", 30, "the animation's end")
    assert js(d, "return window.cuegym.shown") == 1 and text(d, "shotpos") == f"1 / {n}"
    shots = js(d, "return window.cuegym.shots.map(s => s.call)")
    assert calls(d) == shots[0]
    d.find_element("id", "next").click()
    wait(d, "window.cuegym.shown === 2 && document.body.dataset.status === 'idle'", 30, "shot 2")
    assert calls(d) == shots[1]
    d.find_element("id", "prev").click()  # back to shot 1: its call, marked in the list
    assert js(d, "return window.cuegym.shown") == 1
    assert calls(d) == shots[0], (calls(d), shots)
    assert js(d, "return document.querySelector('#history li.current').textContent") == \
        shots[0][0]
    d.find_element("id", "first").click()
    assert calls(d) == []
    d.find_element("id", "last").click()
    assert calls(d) == shots[2]


def test_an_agents_answer_says_no_agent_is_thinking(tmp_path):
    """POST .../agent answers with the view after the move: ``thinking`` is null (it named the
    agent that had just moved, so the page waited for a move already made and fetched the game
    again after every agent shot)."""
    from fastapi.testclient import TestClient

    from cuegym.play.server import create_app

    c = TestClient(create_app(save_dir=tmp_path, record_dirs=[tmp_path]), base_url="http://localhost")
    v = c.post("/api/games", json={"game": "keglebillard", "noise": "none", "seats": [
        {"kind": "agent", "agent": "geometric"}, {"kind": "agent", "agent": "random"}]}).json()
    r = c.post(f"/api/games/{v['view']['id']}/agent", json={"shot": 0})
    assert r.status_code == 200, r.text
    assert r.json()["view"]["shots"] == 1
    assert r.json()["view"]["thinking"] is None


@needs_browser
def test_watching_agents_when_the_server_stops_says_so(browser, tmp_path):
    """Two agents playing; the server stops: the page says it cannot be reached (it showed
    "random to play" and nothing else, for ever), also when it was waiting for an agent that
    was already thinking (a reload's fetch failing there was an uncaught error)."""
    from cuegym.play.server import create_app

    srv, th, base = start_server(create_app(save_dir=tmp_path, record_dirs=[tmp_path]))
    d = browser
    try:
        gid = post(base, "/api/games", {"game": "keglebillard", "noise": "none", "seats": [
            {"kind": "agent", "agent": "geometric"},
            {"kind": "agent", "agent": "geometric"}]})["view"]["id"]
        d.get(base + f"/?game={gid}&watch=1")
        js(d, "document.getElementById('speed').value = '4'")
        wait(d, "window.cuegym.view && window.cuegym.view.shots >= 1 && "
                "document.body.dataset.status === 'idle' && !window.cuegym.busy", 60,
             "an agent's shot")
        js(d, "const a = document.getElementById('autoplay'); a.checked = false;"
              "a.dispatchEvent(new Event('change'));")
        wait(d, "document.body.dataset.status === 'idle' && !window.cuegym.busy", 60, "a pause")
    finally:
        srv.should_exit = True
        th.join(15)
    assert not th.is_alive()
    d.get_log("browser")  # drop what came before
    js(d, "const a = document.getElementById('autoplay'); a.checked = true;"
          "a.dispatchEvent(new Event('change'));")
    wait(d, "document.getElementById('g-err').textContent.startsWith("
            "'The server cannot be reached')", 10, "the error")
    # an agent already thinking (as after a reload during its move): the page asks for the
    # game again; that fails too, and is said
    js(d, "const a = document.getElementById('autoplay'); a.checked = false;"
          "a.dispatchEvent(new Event('change'));")
    wait(d, "!window.cuegym.busy", 10, "the failed move")
    js(d, "document.getElementById('g-err').textContent = '';"
          "window.cuegym.view = {...window.cuegym.view, thinking: 1};"
          "document.getElementById('autoplay').checked = true; schedule();")
    wait(d, "document.getElementById('g-err').textContent.startsWith("
            "'The server cannot be reached')", 10, "the error")
    js(d, "document.getElementById('autoplay').checked = false; schedule();")
    errors = [m["message"] for m in d.get_log("browser") if "Uncaught" in m["message"]]
    assert errors == [], errors


@needs_browser
def test_many_seats_show_the_finished_rank_and_fit_a_phone(server, browser):
    """Six seats: in the two-column scoreboard (a window under 820 px high) a finished
    player's rank (#1) is shown (it was hidden with the agent's name); at a phone's width
    (390 x 844) the scoreboard takes two columns too, so whose turn it is and Shoot are on the
    first screen, and the game's title in the header is readable (it was cut to "k.")."""
    base, _ = server
    d = browser
    names = ["You", "Ann", "Bob", "Cy", "Di", "Ed"]
    gid = post(base, "/api/games", {"game": "keglebillard", "noise": "none",
                                    "options": {"players": 6, "distance": 1},
                                    "seats": [{"kind": "human", "name": n} for n in names]}
               )["view"]["id"]
    for _ in range(8):  # play on until someone has finished
        v = get(base, f"/api/games/{gid}")
        if v["state"]["finished"]:
            break
        st, seat = v["state"], v["awaiting"]["seat"]
        red = st["balls"]["red"]
        if st["ball_in_hand"]:  # behind the white, straight at it and the pins
            red = [-0.675, 0.0] if st["ball_in_hand"] == "salvo" else [-0.3, 0.0]
        move = {"strike": {"V0": 3.0, "phi": math.degrees(math.atan2(-red[1], -red[0])),
                           "theta": 0, "a": 0, "b": 0}}
        if st["ball_in_hand"]:
            move["place"] = red
        post(base, f"/api/games/{gid}/move", {"seat": seat, "shot": v["shots"], "move": move})
    st = get(base, f"/api/games/{gid}")["state"]
    assert st["finished"], st
    first = st["finished"][0]
    try:
        size(d, 1280, 800)
        d.get(base + f"/?game={gid}")
        wait(d, "window.cuegym.view && document.body.dataset.status === 'idle'", 30, "the table")
        assert js(d, "return document.getElementById('scoreboard').className") == "many"
        rank = js(d, "const s = document.querySelectorAll('#scoreboard .pname')[arguments[0]]"
                     ".querySelector('small'); return [s.textContent, getComputedStyle(s).display,"
                     "s.getBoundingClientRect().width]", first)
        assert rank[0] == "#1" and rank[1] != "none" and rank[2] > 5, rank
        # a phone's width: a fresh game (a person to play, red in hand)
        gid2 = post(base, "/api/games", {"game": "keglebillard", "noise": "none",
                                         "options": {"players": 6},
                                         "seats": [{"kind": "human", "name": n} for n in names]}
                    )["view"]["id"]
        size(d, 390, 844)
        d.get(base + f"/?game={gid2}")
        wait(d, my_turn(d), 30, "my turn")
        got = js(d, "const f = id => document.getElementById(id).getBoundingClientRect();"
                    "return [innerWidth, innerHeight, f('turn').bottom, f('shoot').bottom,"
                    "f('title').width, document.documentElement.scrollWidth]")
        assert got[0] == 390, got
        assert js(d, "return getComputedStyle(document.getElementById('scoreboard'))"
                     ".gridTemplateColumns").count("px") == 2
        assert got[2] <= got[1] and got[3] <= got[1], got
        assert got[4] > 150 and got[5] <= 390, got
    finally:
        size(d, 1400, 860)


@needs_browser
def test_golfbillard_duo_title_names_the_sides(server, browser):
    """A duo's title says who plays whom: "Ann & Bob vs Cy & Di", not four names in a row."""
    base, _ = server
    d = browser
    gid = post(base, "/api/games", {"game": "golfbillard", "noise": "none",
                                    "options": {"duo": True, "match": "best_of_3"},
                                    "seats": [{"kind": "human", "name": n}
                                              for n in ("Ann", "Bob", "Cy", "Di")]})["view"]["id"]
    d.get(base + f"/?game={gid}")
    wait(d, my_turn(d), 30, "the opening")
    assert text(d, "title") == "golfbillard · Ann & Bob vs Cy & Di"
    assert text(d, "turn").startswith("Ann to play — opening")
    sb = text(d, "scoreboard")
    assert "Ann & Bob" in sb and "Cy & Di" in sb and "games 0" in sb and "game 1 ·" in sb
