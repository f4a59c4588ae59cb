"""cuegym.play in a real browser: headless Chromium driven by Selenium through whole short games.

pytest starts the server on a free loopback port; the browser plays a keglebillard game against
the shipped agent to its end (place the red, an illegal placement refused with its reason, aim
by dragging, shoot, the animation ends, the call and the score, a page reload), a golfbillard
game's opening and strokes (click an own ball, shoot), watches two agents and replays a saved
game; a golfbillard penalty-spot question (the spots drawn, the foul said), the spin diagram's
rim, the keyboard, small windows, and names shown as text (never markup) in the lobby.
Screenshots of each game in play go to the folder named by ``CUEGYM_SCREENSHOTS`` (the README's:
``CUEGYM_SCREENSHOTS=docs/img pytest tests/test_play_browser.py``), else to a temporary folder;
the others to ``CUEGYM_SCREENSHOTS_EXTRA``, else to a temporary folder. Skipped when Chromium,
chromedriver or Selenium are missing (CI installs them: .ci/run).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from browser_support import post

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
def scratch(tmp_path_factory):
    """Screenshots that are not the docs' ($CUEGYM_SCREENSHOTS_EXTRA, else a temporary
    folder): window sizes, the golfbillard question."""
    path = Path(os.environ.get("CUEGYM_SCREENSHOTS_EXTRA") or tmp_path_factory.mktemp("extra"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def start_server(app):
    """``app`` served on a free port of 127.0.0.1 in a thread: (server, thread, base URL)."""
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    t0 = time.time()
    while not srv.started:
        assert time.time() - t0 < 30, "the server did not start"
        time.sleep(0.05)
    return srv, th, f"http://127.0.0.1:{srv.servers[0].sockets[0].getsockname()[1]}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from cuegym.play.server import create_app

    save = tmp_path_factory.mktemp("games")
    app = create_app(save_dir=save, record_dirs=[save])
    srv, th, base = start_server(app)
    yield base, app
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
    # a deadline, not a count of polls: on a loaded machine the agent's move and its animation
    # outlast 30 polls of 0.2 s, and the game (to 20) then could not end in the loop
    deadline = time.monotonic() + 300
    while shots_by_me < 30 and time.monotonic() < deadline:
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
    assert re.search(r"\bwins?", text(d, "banner")) and text(d, "turn").startswith("Game over")
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
            q = json.loads(asked)
            # the free spots are drawn, numbered as the buttons; the call says why I choose
            if q["kind"] == "spot":
                drawn = js(d, "return window.cuegym.spotsDrawn")
                assert [p["spot"] for p in drawn if p["offered"]] == q["options"], drawn
            assert f"You choose {q['text'].removeprefix('choose ')}" in text(d, "call"), \
                text(d, "call")
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
    # (the step buttons are disabled while a shot is shown moving: wait until they are not)
    wait(d, "document.body.dataset.status === 'idle' && !window.cuegym.busy && "
            "!document.getElementById('prev').disabled", 60, "a pause")
    n = js(d, "return window.cuegym.view.shots")
    d.find_element("id", "prev").click()
    wait(d, f"document.getElementById('shotpos').textContent === '{n - 1} / {n}'", 10,
         "the step back")
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


def test_lobby_shows_names_as_text_not_markup(server, browser):
    """A seat name (or any string of a saved record) is shown as text in the Replay list, never
    run as HTML; the seat form's default names follow the seat's kind."""
    base, _ = server
    d = browser
    evil = "<img src=x onerror=window.pw=1>"
    post(base, "/api/games", {"game": "keglebillard", "noise": "none", "seats": [
        {"kind": "human", "name": evil}, {"kind": "human", "name": "Bob's"}]})
    d.get(base + "/")
    wait(d, "Array.from(document.querySelectorAll('#records .rec')).some("
            "r => r.textContent.includes('Bob'))", 20, "the saved games")
    time.sleep(0.5)  # an injected image would have failed to load by now
    assert js(d, "return window.pw") is None
    assert not d.find_elements("css selector", "#records img")
    rows = [r.text for r in d.find_elements("css selector", "#records .rec")]
    assert any(f"{evil} vs Bob's" in r for r in rows), rows
    # the default names: "You" for the first person; an agent seat has none (the server names
    # it after its agent), and a person again gets the default back; a typed name stays
    kinds = d.find_elements("css selector", "#p-seats .kind")
    names = d.find_elements("css selector", "#p-seats .name")
    assert [n.get_attribute("value") for n in names] == ["You", ""]
    js(d, "const k = document.querySelectorAll('#p-seats .kind')[0]; k.value = 'agent';"
          "k.dispatchEvent(new Event('change'));")
    assert names[0].get_attribute("value") == ""
    js(d, "const k = document.querySelectorAll('#p-seats .kind')[0]; k.value = 'human';"
          "k.dispatchEvent(new Event('change'));")
    assert names[0].get_attribute("value") == "You"
    names[0].clear()
    names[0].send_keys("Ann")
    js(d, "const k = document.querySelectorAll('#p-seats .kind')[0]; k.value = 'agent';"
          "k.dispatchEvent(new Event('change'));")
    assert names[0].get_attribute("value") == "Ann" and len(kinds) == 2
    # the first person is "You" whichever seat it takes (a person in seat 2 behind an agent
    # was "Player 2"); a person after a named one gets the seat's label
    js(d, "const k = document.querySelectorAll('#p-seats .kind')[1]; k.value = 'human';"
          "k.dispatchEvent(new Event('change'));")
    assert names[1].get_attribute("value") == "You"
    js(d, "const k = document.querySelectorAll('#p-seats .kind')[0]; k.value = 'human';"
          "k.dispatchEvent(new Event('change'));")
    assert [n.get_attribute("value") for n in names] == ["Ann", "Player 2"]


def test_spin_rim_keys_and_small_windows(server, browser, scratch):
    """Every point of the spin diagram is a legal strike (rounding never leaves the limit);
    a focused slider keeps its arrow keys; the aim shown stays in (-180, 180]; at 800x600 whose
    turn it is and Shoot are in view without scrolling."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    base, _ = server
    d = browser
    gid = post(base, "/api/games", {"game": "keglebillard", "noise": "none", "seats": [
        {"kind": "human", "name": "You"}, {"kind": "agent", "agent": "geometric"}]})["view"]["id"]
    d.get(base + f"/?game={gid}")
    wait(d, my_turn(d), 60, "my turn")
    js(d, "document.getElementById('autoplay').checked = false")
    # synthetic pointer events all around the rim and just inside/outside it
    bad = js(d, """
      const c = document.getElementById('spin'), r = c.getBoundingClientRect(), out = [];
      for (let k = 0; k < 720; k++) for (const f of [0.55, 0.595, 0.6, 0.605, 0.7, 1.0]) {
        const t = k * Math.PI / 360, u = 60 - 50 * f * Math.cos(t), v = 60 - 50 * f * Math.sin(t);
        const x = r.left + u * r.width / 120, y = r.top + v * r.height / 120;
        c.dispatchEvent(new PointerEvent('pointerdown', {clientX: x, clientY: y, bubbles: true}));
        window.dispatchEvent(new PointerEvent('pointerup', {bubbles: true}));
        const a = window.cuegym.aim.a, b = window.cuegym.aim.b;
        if (Math.hypot(a, b) > 0.6 + 1e-9 || Math.abs(a * 100 - Math.round(a * 100)) > 1e-9)
          out.push([k, f, a, b]);
      }
      return out;""")
    assert bad == [], bad[:5]
    assert js(d, "return legalSpin(0.01, 0.6, 0.6)") == [0.01, 0.59]
    # a real click on the rim (the audit's point: just right of the top of the vertical line),
    # then the shot is played, not refused
    spin = d.find_element("id", "spin")
    ActionChains(d).move_to_element_with_offset(spin, 0, -spin.size["height"] // 2 + 3) \
        .click().perform()
    a, b = js(d, "return [window.cuegym.aim.a, window.cuegym.aim.b]")
    assert b > 0.5 and math.hypot(a, b) <= 0.6 + 1e-9, (a, b)
    # a focused slider takes the arrow keys; the table's aim does not move
    phi = js(d, "return window.cuegym.aim.phi")
    v0 = d.find_element("id", "v0")
    v0.click()
    v = js(d, "return window.cuegym.aim.V0")
    v0.send_keys(Keys.ARROW_LEFT)
    assert js(d, "return window.cuegym.aim.V0") == pytest.approx(v - 0.05)
    assert js(d, "return window.cuegym.aim.phi") == phi
    # the arrows elsewhere fine-tune the aim, shown within (-180, 180]
    js(d, "document.activeElement.blur(); window.cuegym.aim.phi = 179.95;")
    for _ in range(3):
        ActionChains(d).send_keys(Keys.ARROW_LEFT).perform()
    assert text(d, "phi-val") == "-179.75°"
    assert js(d, "return window.cuegym.aim.phi") == pytest.approx(-179.75)
    # the power slider covers the documented strike range
    assert js(d, "const e = document.getElementById('v0'); return [+e.min, +e.max]") == \
        js(d, "return window.cuegym.info.limits.V0")
    wait(d, "window.cuegym.placeOk === true", 10, "the default placement")
    set_range(d, "v0", 2.0)
    shoot_and_wait(d)
    assert text(d, "g-err") == ""
    assert js(d, "return window.cuegym.view.shots") >= 1
    # small windows: the turn line and Shoot in view, no page scrolling
    try:
        for w, h in ((800, 600), (1024, 768), (1600, 900)):
            d.set_window_size(w, h)
            iw, ih = js(d, "return [innerWidth, innerHeight]")
            d.set_window_size(2 * w - iw, 2 * h - ih)
            d.refresh()
            wait(d, "window.cuegym.view && document.body.dataset.status === 'idle' && "
                    "document.getElementById('turn').textContent.length > 1", 30, "the table")
            js(d, "document.getElementById('autoplay').checked = false")
            wait(d, my_turn(d) + " && !window.cuegym.busy", 60, "my turn again")
            got = js(d, "const f = id => document.getElementById(id).getBoundingClientRect();"
                        "return [innerWidth, innerHeight, f('turn').top, f('shoot').bottom,"
                        "document.documentElement.scrollHeight];")
            assert got[:2] == [w, h]
            assert 0 <= got[2] and got[3] <= h and got[4] <= h + 1, (w, h, got)
            d.save_screenshot(str(scratch / f"play_{w}x{h}.png"))
    finally:
        d.set_window_size(1400, 860)


def test_golfbillard_penalty_spot_question_shows_spots_and_the_foul(server, browser, scratch):
    """Person against person: own ball 4 onto own ball 2 (G-12) asks the opponent for a penalty
    spot. While the question is open the free spots are drawn and numbered as the buttons, the
    call says which foul gives the choice, and the balls stay where the stroke left them."""
    base, _ = server
    d = browser
    from cuegym.rules.golfbillard_game import new_match, opening_strike

    v = post(base, "/api/games", {"game": "golfbillard", "noise": "none", "seats": [
        {"kind": "human", "name": "W"}, {"kind": "human", "name": "R"}]})["view"]
    gid, st0 = v["id"], new_match()
    for seat in v["awaiting"]["missing"]:  # the opening through the API (as test_play_api)
        side = v["awaiting"]["seats"].index(seat)
        V0, phi, *_ = opening_strike(st0, side, side * 5, V0=1.1 + 0.15 * side)
        out = post(base, f"/api/games/{gid}/move", {"seat": seat, "move": {
            "ball": v["awaiting"]["balls"][side], "strike": {"V0": float(V0), "phi": float(phi)}}})
    s = out["view"]["state"]["to_move"]
    ball, names = "wr"[s] + "4", ["W", "R"]
    d.get(base + f"/?game={gid}")
    wait(d, my_turn(d), 30, "the first stroke")
    js(d, "document.getElementById('speed').value = '4'")
    click_at(d, state(d)["balls"][ball])
    wait(d, f"window.cuegym.ball === '{ball}'", 5, "the ball selected")
    set_range(d, "phi", -90.0)
    set_range(d, "v0", 1.0)
    shoot_and_wait(d)
    wait(d, "window.cuegym.pending && !document.getElementById('choice').hidden", 30,
         "the question")
    q = js(d, "return window.cuegym.view.awaiting.question")
    assert q["kind"] == "spot" and q["ball"] == ball and q["options"]
    # the call: why the opponent is asked, not the opening's call
    call = text(d, "call")
    assert f"{names[s]}: foul G-12" in call and "struck an own ball first" in call, call
    assert f"{names[1 - s]} chooses a penalty spot for {ball}" in call, call
    assert "opening" not in call
    # the spots 1-3, numbered as the buttons, the offered ones highlighted
    drawn = js(d, "return window.cuegym.spotsDrawn")
    assert [p["spot"] for p in drawn] == [1, 2, 3]
    assert [p["spot"] for p in drawn if p["offered"]] == q["options"]
    buttons = [b.text for b in d.find_elements("css selector", "#choice button")]
    assert buttons == [f"spot {k}" for k in q["options"]]
    geo = js(d, "return window.cuegym.geo.penalty_spots")[s]
    assert [[p["x"], p["y"]] for p in drawn] == geo[:3]
    yellow = """
      const ctx = document.getElementById('table').getContext('2d'), tv = window.cuegym.tv;
      const [u, v] = tv.px(arguments[0], arguments[1]);
      const n = Math.ceil(1.3 * window.cuegym.geo.R * tv.s);
      const px = ctx.getImageData(Math.round(u) - n, Math.round(v) - n, 2 * n + 1, 2 * n + 1).data;
      let k = 0;  // yellow pixels (the ring and number of an offered spot, #ffd24a)
      for (let i = 0; i < px.length; i += 4)
        if (px[i] > 220 && px[i + 1] > 170 && px[i + 2] < 120) k++;
      return k;"""
    for p in drawn:
        if p["offered"]:
            assert js(d, yellow, p["x"], p["y"]) > 10, p
    # the balls stay where the stroke left them (not the state before it)
    shown = js(d, "return window.cuegym.displayState().balls")
    assert shown == js(d, "return window.cuegym.view.pending.balls")
    ends = js(d, "const a = window.cuegym.pendingAnim; return Object.fromEntries("
                 "Object.entries(a.balls).filter(([, b]) => !b.drop).map(([id, b]) => "
                 "[id, ballAt(b.segs, a.t_end)]));")
    for b, p in ends.items():
        assert shown[b] == pytest.approx(p, abs=1e-9), b
    assert math.dist(shown[ball], state(d)["balls"][ball]) > 0.01
    d.save_screenshot(str(scratch / "play_golfbillard_choice.png"))
    # the answer: the call of the whole stroke, the ball on the chosen spot
    k = q["options"][-1]
    d.find_element("css selector", f"#choice button[data-answer='{k}']").click()
    wait(d, "!window.cuegym.busy && window.cuegym.view.awaiting.type !== 'choice'", 30,
         "the answer taken")
    assert f"{ball} to penalty spot {k} (G-30)" in text(d, "call")
    assert js(d, "return window.cuegym.pending") is None
    assert state(d)["balls"][ball] == pytest.approx(geo[k - 1], abs=1e-6)


# --- the audit of the table page: seat kinds, long names, the server gone, a stale move, G-5 ----


def _fits(d, sel, box="#side"):
    """The elements matching ``sel`` that run past the right edge of ``box`` (or make it
    scroll sideways): [] when everything fits."""
    return js(d, """
      const box = document.querySelector(arguments[1]), r = box.getBoundingClientRect(), out = [];
      if (box.scrollWidth > box.clientWidth + 1)
        out.push(['scroll', box.scrollWidth, box.clientWidth]);
      for (const e of document.querySelectorAll(arguments[0])) {
        const q = e.getBoundingClientRect();
        if (q.width && q.right > r.right + 0.5) out.push([e.id || e.tagName, q.right, r.right]);
      }
      return out;""", sel, box)


def test_lobby_seat_kind_select_shows_person_in_full(server, browser, scratch):
    """Each seat's kind select is at least as wide as the same select sized to its options (so
    "person" is not cut to "perso"), and each seat row stays inside its card."""
    base, _ = server
    d = browser
    natural = """return Array.from(document.querySelectorAll('#p-seats .kind')).map(s => {
        const c = s.cloneNode(true); c.style.width = 'auto'; c.style.position = 'absolute';
        document.body.appendChild(c); const w = c.getBoundingClientRect().width; c.remove();
        return [s.getBoundingClientRect().width, w]; });"""
    try:
        for w in (1400, 700):
            d.set_window_size(w, 860)
            d.get(base + "/")
            wait(d, "document.getElementById('p-seats').children.length === 2", 20, "the lobby")
            for game, opt, value in (("keglebillard", "p-players", "6"),
                                     ("golfbillard", "p-duo", "1")):
                js(d, "const g = document.getElementById('p-game'); g.value = arguments[0];"
                      "g.dispatchEvent(new Event('change'));"
                      "const o = document.getElementById(arguments[1]); o.value = arguments[2];"
                      "o.dispatchEvent(new Event('change'));", game, opt, value)
                widths = js(d, natural)
                assert len(widths) in (4, 6)
                assert all(have >= need - 0.5 for have, need in widths), (w, game, widths)
                agent = js(d, "return Math.min(...Array.from(document.querySelectorAll("
                              "'#p-seats .agent')).map(s => s.getBoundingClientRect().width))")
                assert agent >= 100, (w, game, agent)  # "pretrained" in full
                assert _fits(d, "#p-seats .seat > *", "#play-card") == [], (w, game)
                d.save_screenshot(str(scratch / f"play_lobby_{game}_{w}.png"))
    finally:
        d.set_window_size(1400, 860)


def test_long_names_wrap_in_the_side_panel_and_the_choice_reads_naturally(server, browser,
                                                                          scratch):
    """40-character names without spaces stay inside the side panel (the turn line and the call
    wrap, the shot history ellipsizes with the whole line as its title); while the opponent
    chooses, the turn line says "<name> chooses a penalty spot ...", not "chooses: choose"."""
    base, _ = server
    d = browser
    from cuegym.rules.golfbillard_game import new_match, opening_strike

    names = ["W" * 40, "R" * 40]
    v = post(base, "/api/games", {"game": "golfbillard", "noise": "none", "seats": [
        {"kind": "human", "name": names[0]}, {"kind": "human", "name": names[1]}]})["view"]
    gid, st0 = v["id"], new_match()
    for seat in v["awaiting"]["missing"]:
        side = v["awaiting"]["seats"].index(seat)
        V0, phi, *_ = opening_strike(st0, side, side * 5, V0=1.1 + 0.15 * side)
        out = post(base, f"/api/games/{gid}/move", {"seat": seat, "move": {
            "ball": v["awaiting"]["balls"][side], "strike": {"V0": float(V0), "phi": float(phi)}}})
    s = out["view"]["state"]["to_move"]
    ball = "wr"[s] + "4"  # own ball 4 onto own ball 2: G-12, the opponent chooses a spot
    out = post(base, f"/api/games/{gid}/move", {"seat": s, "shot": 1, "move": {
        "ball": ball, "strike": {"V0": 1.0, "phi": -90.0}}})
    assert out["view"]["awaiting"]["type"] == "choice"
    d.get(base + f"/?game={gid}")
    wait(d, "window.cuegym.view && !document.getElementById('choice').hidden", 30,
         "the question")
    assert text(d, "turn") == f"{names[1 - s]} chooses a penalty spot for {ball} (G-30)"
    assert _fits(d, "#side *") == []
    d.save_screenshot(str(scratch / "play_long_names_choice.png"))
    d.find_element("css selector", "#choice button").click()
    wait(d, "!window.cuegym.busy && window.cuegym.view.awaiting.type === 'move'", 30,
         "the answer taken")
    lis = d.find_elements("css selector", "#history li")
    assert len(lis) == 2 and lis[1].get_attribute("title").startswith(f"{names[s]}: foul G-12")
    assert js(d, "const li = document.querySelectorAll('#history li')[1];"
                 "return li.scrollWidth > li.clientWidth")  # ellipsized, not run off
    assert names[1 - s] in text(d, "turn")
    assert _fits(d, "#side *") == []
    d.save_screenshot(str(scratch / "play_long_names.png"))
    js(d, "document.getElementById('side').scrollTop = 1e6")
    d.save_screenshot(str(scratch / "play_long_names_history.png"))
    # a person called "You": "You choose a penalty spot ..."
    assert js(d, "return asked('You', 'choose a penalty spot for w4 (G-30)')") == \
        "You choose a penalty spot for w4 (G-30)"
    assert js(d, "return asked('Ann', \"pick one of the offender's balls (G-25)\")") == \
        "Ann picks one of the offender's balls (G-25)"


def test_a_server_that_cannot_be_reached_is_said(browser, tmp_path, scratch):
    """A shot sent to a server that has stopped: the page says the server cannot be reached
    (the browser's own message is only "Failed to fetch")."""
    from cuegym.play.server import create_app

    srv, th, base = start_server(create_app(save_dir=tmp_path, record_dirs=[tmp_path]))
    d = browser
    try:
        gid = post(base, "/api/games", {"game": "keglebillard", "noise": "none", "seats": [
            {"kind": "human", "name": "A"}, {"kind": "human", "name": "B"}]})["view"]["id"]
        d.get(base + f"/?game={gid}")
        wait(d, my_turn(d) + " && window.cuegym.placeOk === true", 30, "my turn")
    finally:
        srv.should_exit = True
        th.join(15)
    assert not th.is_alive()
    d.find_element("id", "shoot").click()
    wait(d, "!window.cuegym.busy && document.getElementById('g-err').textContent", 30,
         "the error")
    err = text(d, "g-err")
    assert err.startswith("The server cannot be reached"), err
    d.save_screenshot(str(scratch / "play_server_gone.png"))


def test_a_stale_move_shows_the_current_position(server, browser, scratch):
    """A shot sent after the game has moved on (another tab played it) gets 409; the page then
    shows the game as it is now (the latest shot, its call, the state after it), not the old
    position."""
    base, _ = server
    d = browser
    gid = post(base, "/api/games", {"game": "keglebillard", "noise": "none", "seats": [
        {"kind": "human", "name": "A"}, {"kind": "human", "name": "B"}]})["view"]["id"]
    d.get(base + f"/?game={gid}")
    wait(d, my_turn(d) + " && window.cuegym.placeOk === true", 30, "my turn")
    js(d, "document.getElementById('autoplay').checked = false")
    place = js(d, "return window.cuegym.place")
    out = post(base, f"/api/games/{gid}/move", {"seat": 0, "shot": 0, "move": {
        "place": place, "strike": {"V0": 2.0, "phi": 0.0, "theta": 0, "a": 0, "b": 0}}})
    assert out["view"]["shots"] == 1
    d.find_element("id", "shoot").click()
    wait(d, "!window.cuegym.busy && document.getElementById('g-err').textContent", 30,
         "the refusal")
    wait(d, "window.cuegym.view.shots === 1 && window.cuegym.shown === 1", 10, "the present shown")
    assert text(d, "g-err").startswith("The game has moved on"), text(d, "g-err")
    assert js(d, "return [window.cuegym.shown, window.cuegym.view.shots]") == [1, 1]
    assert js(d, "return window.cuegym.displayState()") == out["view"]["state"]
    assert "Viewing shot" not in text(d, "turn")
    call = [p.text for p in d.find_elements("css selector", "#call p")]
    assert call == out["shot"]["call"], call
    assert text(d, "shotpos") == "1 / 1"
    d.save_screenshot(str(scratch / "play_stale_move.png"))


def test_G5_draw_is_not_shown_as_play(server, browser, scratch):
    """A game drawn by G-5 (no progress): the scoreboard's line says the game is over, not
    "play · turn 46", and the result is "drawn (G-5, no progress)"."""
    from test_play_calls import g5_record

    base, _ = server
    d = browser
    gid = post(base, "/api/replays", {"record": g5_record()})["view"]["id"]
    d.get(base + f"/?game={gid}")
    wait(d, "window.cuegym.view && document.body.dataset.status === 'idle'", 30, "the replay")
    hint = "return document.querySelector('#scoreboard .hint').textContent"
    assert js(d, hint).startswith("play · turn 45")
    d.find_element("id", "last").click()
    wait(d, "window.cuegym.shown === 1", 10, "the last shot")
    assert js(d, hint) == "game over after 46 turns · noise none"
    assert js(d, "return resultText()") == "drawn (G-5, no progress)"
    d.save_screenshot(str(scratch / "play_g5_draw.png"))
