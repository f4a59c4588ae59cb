"""cuegym.play in a real browser: headless Chromium driven by Selenium through whole short games.

pytest starts the server on a free loopback port; the browser plays a keglebillard game against
the shipped agent to its end (place the red, an illegal placement refused with its reason, aim
by dragging, shoot, the animation ends, the call and the score, a page reload), a golfbillard
game's opening and strokes (click an own ball, shoot), watches two agents and replays a saved
game. Screenshots of each game in play go to the folder named by ``CUEGYM_SCREENSHOTS`` (the
README's: ``CUEGYM_SCREENSHOTS=docs/img pytest tests/test_play_browser.py``), else to a temporary
folder. Skipped when Chromium, chromedriver or Selenium are missing (CI installs them: .ci/run).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import threading
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")
pytest.importorskip("selenium")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs chromium and chromedriver (apt: chromium "
                                       "chromium-driver)")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--window-size=1400,860", "--hide-scrollbars")


@pytest.fixture(scope="module")
def img(tmp_path_factory):
    """Where screenshots go: $CUEGYM_SCREENSHOTS, else a temporary folder."""
    path = Path(os.environ.get("CUEGYM_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from cuegym.play.server import create_app

    save = tmp_path_factory.mktemp("games")
    app = create_app(save_dir=save, record_dirs=[save])
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    t0 = time.time()
    while not srv.started:
        assert time.time() - t0 < 30, "the server did not start"
        time.sleep(0.05)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}", app
    srv.should_exit = True
    th.join(10)


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = CHROMIUM
    for f in FLAGS:
        opts.add_argument(f)
    d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    d.set_script_timeout(30)
    yield d
    d.quit()


def js(d, script, *args):
    return d.execute_script(script, *args)


def wait(d, cond, timeout=60.0, what=""):
    t0 = time.time()
    while time.time() - t0 < timeout:
        v = js(d, f"try {{ return ({cond}); }} catch (e) {{ return null; }}")
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what or cond}: status "
                         f"{js(d, 'return document.body.dataset.status')}, turn "
                         f"{text(d, 'turn')!r}, error {text(d, 'g-err')!r}")


def text(d, el_id):
    return js(d, f"return document.getElementById('{el_id}').textContent")


def my_turn(d):
    return "document.body.dataset.status === 'idle' && document.getElementById('turn')" \
           ".className === 'mine'"


def drag(d, xy0, xy1, steps=6):
    """Drag with the mouse from table point xy0 to xy1 (metres)."""
    from selenium.webdriver.common.action_chains import ActionChains

    canvas = d.find_element("id", "table")
    rect = js(d, "const r = document.getElementById('table').getBoundingClientRect();"
                 "return [r.left, r.top, r.width, r.height];")
    p0 = js(d, "return window.cuegym.toClient(arguments[0], arguments[1]);", *xy0)
    p1 = js(d, "return window.cuegym.toClient(arguments[0], arguments[1]);", *xy1)
    # ActionChains offsets are from the element's centre
    cx, cy = rect[0] + rect[2] / 2, rect[1] + rect[3] / 2
    a = ActionChains(d, duration=20)
    a.move_to_element_with_offset(canvas, int(p0[0] - cx), int(p0[1] - cy)).click_and_hold()
    for k in range(1, steps + 1):
        f = k / steps
        a.move_to_element_with_offset(canvas, int(p0[0] + (p1[0] - p0[0]) * f - cx),
                                      int(p0[1] + (p1[1] - p0[1]) * f - cy))
    a.release().perform()


def click_at(d, xy):
    from selenium.webdriver.common.action_chains import ActionChains

    canvas = d.find_element("id", "table")
    rect = js(d, "const r = document.getElementById('table').getBoundingClientRect();"
                 "return [r.left, r.top, r.width, r.height];")
    p = js(d, "return window.cuegym.toClient(arguments[0], arguments[1]);", *xy)
    ActionChains(d, duration=20).move_to_element_with_offset(
        canvas, int(p[0] - rect[0] - rect[2] / 2), int(p[1] - rect[1] - rect[3] / 2)
    ).click().perform()


def set_range(d, el_id, value):
    js(d, "const e = document.getElementById(arguments[0]); e.value = arguments[1];"
          "e.dispatchEvent(new Event('input'));", el_id, value)


def state(d):
    return js(d, "return window.cuegym.view.state")


def shoot_and_wait(d):
    n = js(d, "return window.cuegym.view.shots")
    d.find_element("id", "shoot").click()
    wait(d, f"window.cuegym.view.shots > {n} || window.cuegym.view.pending", 30, "the shot")
    wait(d, "document.body.dataset.status !== 'animating' && !window.cuegym.busy", 60,
         "the animation to end")


def test_keglebillard_against_the_shipped_agent_to_the_end(server, browser, img):
    base, app = server
    d = browser
    d.get(base + "/")
    wait(d, "document.getElementById('p-seats').children.length === 2", 20, "the lobby")
    d.find_element("id", "p-distance").clear()
    d.find_element("id", "p-distance").send_keys("20")
    js(d, "document.getElementById('p-noise').value = 'none'")
    d.find_element("id", "p-start").click()
    wait(d, my_turn(d), 60, "my first turn")
    gid = js(d, "return window.cuegym.view.id")
    assert f"?game={gid}" in d.current_url
    js(d, "document.getElementById('speed').value = '4'")
    assert "red in hand" in text(d, "turn")
    # an illegal placement is refused with the reason, and the shot cannot be played
    red = js(d, "return window.cuegym.place")
    drag(d, red, (-0.525, 0.01))
    wait(d, "window.cuegym.placeOk === false", 10, "the placement check")
    assert "overlaps the white ball" in text(d, "aim-hint")
    assert js(d, "return document.getElementById('shoot').disabled")
    # a legal one
    drag(d, js(d, "return window.cuegym.place"), (-0.95, 0.12))
    wait(d, "window.cuegym.placeOk === true", 10, "a legal placement")
    assert not js(d, "return document.getElementById('shoot').disabled")
    shots_by_me = 0
    reloaded = False
    for _ in range(30):
        st = state(d)
        if st["game_over"]:
            break
        if js(d, f"return {my_turn(d)}"):
            st = state(d)
            red = js(d, "return window.cuegym.place") if st["ball_in_hand"] else st["balls"]["red"]
            if st["ball_in_hand"]:
                wait(d, "window.cuegym.placeOk === true", 10, "the default placement")
            # aim by dragging from the red toward the king, with some power
            drag(d, (red[0] + 0.1, red[1]), (0.0, 0.0))
            phi = js(d, "return window.cuegym.aim.phi")
            assert abs(phi - math.degrees(math.atan2(-red[1], -red[0]))) < 2.0
            set_range(d, "v0", 2.5)
            if shots_by_me == 0:  # placed and aiming
                d.save_screenshot(str(img / "play_keglebillard.png"))
            shoot_and_wait(d)
            shots_by_me += 1
            call = text(d, "call")
            assert call, "no call after the shot"
            scores = js(d, "return Array.from(document.querySelectorAll('#scoreboard .pts'))"
                           ".map(e => +e.textContent)")
            assert scores == state(d)["scores"]
            if not reloaded:  # a page reload keeps the game
                # pause the agent (it moves by itself after a short pause, which a loaded
                # machine can outlast) and let a move already sent finish before the snapshot
                js(d, "document.getElementById('autoplay').click()")
                wait(d, "document.body.dataset.status === 'idle' && !window.cuegym.busy", 60,
                     "a pause")
                before = state(d)
                d.refresh()
                wait(d, "window.cuegym.view && document.body.dataset.status === 'idle'", 30,
                     "the reloaded page")
                assert js(d, "return window.cuegym.view.id") == gid
                after = state(d)  # the reloaded page plays on: the agent may have moved since
                assert after == before or after["shot"] > before["shot"]
                js(d, "document.getElementById('speed').value = '4'")
                reloaded = True
        else:
            time.sleep(0.2)
    wait(d, "window.cuegym.view.over && document.body.dataset.status === 'idle' && "
            "window.cuegym.shown === window.cuegym.view.shots", 120, "the end of the game")
    assert not js(d, "return document.getElementById('banner').hidden")
    assert "wins" in text(d, "banner") and text(d, "turn").startswith("Game over")
    g = app.state.games.get(gid)
    assert g.table.over(g.state) and shots_by_me >= 1
    assert any(s.seats == [1] for s in g.shots), "the agent never played"
    d.save_screenshot(str(img / "play_keglebillard_end.png"))


def test_golfbillard_against_the_shipped_agent(server, browser, img):
    base, _ = server
    d = browser
    d.get(base + "/")
    wait(d, "document.getElementById('p-seats').children.length === 2", 20, "the lobby")
    js(d, "const g = document.getElementById('p-game'); g.value = 'golfbillard';"
          "g.dispatchEvent(new Event('change'));")
    d.find_element("id", "p-start").click()
    wait(d, my_turn(d), 60, "the opening")
    js(d, "document.getElementById('speed').value = '4'")
    assert "opening" in text(d, "turn")
    # the opening: off the left long cushion toward the attack goal
    from cuegym.rules.golfbillard_game import new_match, opening_strike

    V0, phi, *_ = opening_strike(new_match(), 0, 0)
    set_range(d, "phi", float(phi))
    set_range(d, "v0", float(V0))
    shoot_and_wait(d)
    wait(d, "window.cuegym.view.state.phase !== 'opening' || "
            "window.cuegym.view.awaiting.type === 'opening'", 60, "the opening played")
    strokes = choices = 0
    t0 = time.time()
    while time.time() - t0 < 150:
        if strokes >= 2 or state(d)["phase"] == "over":
            break
        if js(d, "return window.cuegym.view.awaiting.type === 'choice' && !window.cuegym.busy "
                 "&& document.body.dataset.status === 'idle' && "
                 "!document.getElementById('choice').hidden"):
            # the agent fouled: I choose the penalty spot / the picked ball (a foul can ask
            # for several, one ball after another: the next question is a new choice)
            asked = js(d, "return JSON.stringify(window.cuegym.view.awaiting.question)")
            d.find_element("css selector", "#choice button").click()
            wait(d, "!window.cuegym.busy && (window.cuegym.view.awaiting.type !== 'choice' || "
                    f"JSON.stringify(window.cuegym.view.awaiting.question) !== {asked!r})", 30,
                 "the choice taken")
            choices += 1
            continue
        if js(d, f"return {my_turn(d)}"):
            st = state(d)
            if st["phase"] == "opening":  # a repeated opening
                shoot_and_wait(d)
                continue
            own = js(d, "return window.cuegym.view.own_balls")
            ball = own[0]
            click_at(d, st["balls"][ball])
            wait(d, f"window.cuegym.ball === '{ball}'", 5, "the ball selected")
            assert ball in text(d, "turn")
            goal = [1.1, 0.0] if st["to_move"] == 0 else [-1.1, 0.0]
            p = st["balls"][ball]
            drag(d, (p[0] + 0.08 * (1 if goal[0] > 0 else -1), p[1]), goal)
            set_range(d, "v0", 1.6)
            if strokes == 1:
                d.save_screenshot(str(img / "play_golfbillard.png"))
            shoot_and_wait(d)
            strokes += 1
            assert text(d, "call")
        else:
            time.sleep(0.2)
    assert strokes >= 1
    assert js(d, "return window.cuegym.thoughts") >= 1


def test_watch_agents_then_replay_a_saved_game(server, browser, img):
    base, app = server
    d = browser
    body = {"game": "keglebillard", "options": {"distance": 40}, "noise": "tournament",
            "seats": [{"kind": "agent", "agent": "pretrained"},
                      {"kind": "agent", "agent": "geometric"}]}
    req = urllib.request.Request(base + "/api/games", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        gid = json.load(r)["view"]["id"]
    d.get(base + f"/?game={gid}&watch=1")
    js(d, "document.getElementById('speed').value = '4'")
    wait(d, "document.body.dataset.status === 'animating' && window.cuegym.view.shots >= 1",
         60, "an agent's shot")
    time.sleep(0.6)
    d.save_screenshot(str(img / "play_watch.png"))
    wait(d, "window.cuegym.view.shots >= 2 && document.body.dataset.status === 'idle'", 120,
         "two agent shots")
    # step back and forth through the shots
    js(d, "document.getElementById('autoplay').checked = false")
    wait(d, "document.body.dataset.status === 'idle' && !window.cuegym.busy", 60, "a pause")
    n = js(d, "return window.cuegym.view.shots")
    d.find_element("id", "prev").click()
    assert text(d, "shotpos") == f"{n - 1} / {n}"
    assert js(d, "return window.cuegym.shown") == n - 1
    d.find_element("id", "next").click()
    wait(d, f"window.cuegym.shown === {n} && document.body.dataset.status === 'idle'", 30,
         "the step forward")
    # replay: the watched game is saved; open it from the lobby list and step through it
    d.get(base + "/")
    wait(d, "document.querySelectorAll('#records .rec').length >= 1", 20, "the saved games")
    rows = d.find_elements("css selector", "#records .rec")
    target = [row for row in rows if "pretrained vs geometric" in row.text]
    assert target, [row.text for row in rows]
    target[0].find_element("tag name", "button").click()
    wait(d, "window.cuegym.view && window.cuegym.view.mode === 'replay' && "
            "document.body.dataset.status === 'idle'", 30, "the replay")
    assert js(d, "return window.cuegym.view.meta.verified")
    assert text(d, "shotpos").startswith("0 / ")
    d.find_element("id", "next").click()
    wait(d, "window.cuegym.shown === 1 && document.body.dataset.status === 'idle'", 30,
         "the first replayed shot")
    assert text(d, "call")
    d.find_element("id", "next").click()
    wait(d, "window.cuegym.shown === 2 && document.body.dataset.status === 'idle'", 30,
         "the second replayed shot")
    d.save_screenshot(str(img / "play_replay.png"))
