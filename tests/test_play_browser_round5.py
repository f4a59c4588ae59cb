"""cuegym.play in a real browser, fifth audit round: the aim of the second person of a hot-seat
golfbillard opening, a press held across a shot, a drag from the selected ball, the lobby keeping
a model file and its start buttons waiting, an unknown game id, a match's games won in view, the
animation's speed changed while it runs, looking back at a live game, the game-over banner on a
phone, a placement check without an answer, the shot list following the shot shown, the
browser's own Alt/Ctrl keys and an empty "Play to".

Headless Chromium through Selenium as in ``test_play_browser.py`` (its server, browser and
helpers; one of each for the module) and golfbillard positions set up as in
``test_play_browser_golf.py``. Screenshots go to ``CUEGYM_SCREENSHOTS_EXTRA`` (else a temporary
folder). Skipped when Chromium, chromedriver or Selenium are missing.
"""

from __future__ import annotations

import math
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from browser_support import HAVE_SELENIUM, get, needs_browser, post

pytestmark = needs_browser

if HAVE_SELENIUM:
    from test_play_browser import (  # noqa: F401
        browser,
        click_at,
        drag,
        js,
        my_turn,
        scratch,
        server,
        set_range,
        state,
        text,
        wait,
    )
    from test_play_browser_golf import (
        FOUR,
        LAST_WHITE,
        golf_game,
        no_js_errors,
        opening_from_page,
        show,
    )
    from test_play_browser_round3 import kegle_shots, size

LONG = ("Bartholomew Montgomery-Fitzwilliam III", "Maximiliane von Hohenzollern-Sigmaringen",
        "Konstantinos Papadopoulos-Athanasiou", "Wilhelmina Charlotte van Oldenbarnevelt")


def phi(d):
    return js(d, "return window.cuegym.aim.phi")


def towards(d, frm, to):
    """The aim (degrees) from table point ``frm`` to ``to``."""
    return math.degrees(math.atan2(to[1] - frm[1], to[0] - frm[0]))


def kegle_people(base, names=("A", "B")):
    """A keglebillard game of people (noise none): its id."""
    return post(base, "/api/games", {"game": "keglebillard", "noise": "none", "seats": [
        {"kind": "human", "name": n} for n in names]})["view"]["id"]


def lobby(d, base):
    d.get(base + "/")
    wait(d, "document.body.dataset.status === 'lobby' && "
            "document.getElementById('p-seats').children.length === 2", 20, "the lobby")


def select(d, el, value):
    """Set a select (an element or an id) as a person would: its value, then "change"."""
    if isinstance(el, str):
        el = d.find_element("id", el)
    js(d, "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change'));",
       el, value)


@pytest.fixture(scope="module")
def long_game(server):
    """A keglebillard game of two people with 20 shots played (more than the shot list shows)."""
    base, _ = server
    gid = kegle_people(base)
    kegle_shots(base, gid, 20)
    return gid


def test_the_second_person_of_a_hot_seat_opening_aims_at_their_own_goal(server, browser):
    """Golfbillard, both seats people: after White's opening stroke (no shot yet, G-3) Red is
    to strike r1 and the aim is Red's attack goal (-x), not White's 0° left over."""
    base, app = server
    d = browser
    d.get_log("browser")
    show(d, base, golf_game(base, app))
    wait(d, my_turn(d), 30, "White's opening turn")
    w1, L = state(d)["balls"]["w1"], js(d, "return window.cuegym.geo.length")
    assert abs(phi(d) - towards(d, w1, (L / 2, 0))) < 1e-6
    opening_from_page(d, 1.2, 0.0)
    wait(d, my_turn(d), 30, "Red's opening turn")
    assert text(d, "turn").startswith("R to play — opening: strike r1")
    r1 = state(d)["balls"]["r1"]
    assert abs(phi(d) - towards(d, r1, (-L / 2, 0))) < 1e-6, phi(d)
    assert abs(abs(phi(d)) - 180) < 1
    no_js_errors(d)


def test_a_press_held_across_a_shot_does_not_aim_on_the_next_turn(server, browser):
    """Hold the mouse on the table, shoot with space, release while the shot is played: on the
    next turn a bare mouse moving over the table leaves the aim alone (the release was lost and
    the aim followed the pointer)."""
    from selenium.webdriver.common.action_chains import ActionChains

    base, _ = server
    d = browser
    d.get_log("browser")
    d.get(base + f"/?game={kegle_people(base)}")
    wait(d, my_turn(d) + " && window.cuegym.placeOk === true", 30, "my turn, the red placed")
    js(d, "document.getElementById('speed').value = '4'")
    set_range(d, "v0", 1.0)
    canvas = d.find_element("id", "table")

    def to(xy):  # an ActionChains offset (from the canvas's centre) of table point xy
        r = js(d, "const r = document.getElementById('table').getBoundingClientRect();"
                  "return [r.left + r.width / 2, r.top + r.height / 2];")
        p = js(d, "return window.cuegym.toClient(arguments[0], arguments[1]);", *xy)
        return int(p[0] - r[0]), int(p[1] - r[1])

    ActionChains(d, duration=20).move_to_element_with_offset(canvas, *to((0.6, 0.3))) \
        .click_and_hold().perform()
    assert js(d, "return window.cuegym.drag") == "aim"
    ActionChains(d).send_keys(" ").perform()
    wait(d, "window.cuegym.busy", 5, "the shot")
    ActionChains(d).release().perform()
    wait(d, "window.cuegym.view.shots === 1", 30, "the shot played")
    wait(d, my_turn(d), 30, "the next turn")
    assert js(d, "return window.cuegym.drag") is None
    before = phi(d)
    a = ActionChains(d, duration=20)
    for xy in ((0.5, -0.3), (-0.2, 0.35), (0.9, 0.0)):
        a.move_to_element_with_offset(canvas, *to(xy))
    a.perform()
    assert phi(d) == before
    no_js_errors(d)


def test_a_drag_from_the_selected_ball_aims(server, browser):
    """Golfbillard: a press on the ball already selected starts a drag from it (the cue
    follows the pointer), in play and in the opening; it reset the aim and ignored the drag."""
    base, app = server
    d = browser
    d.get_log("browser")
    show(d, base, golf_game(base, app, FOUR))
    wait(d, my_turn(d), 30, "my turn")
    w1 = state(d)["balls"]["w1"]
    click_at(d, w1)
    wait(d, "window.cuegym.ball === 'w1'", 5, "w1 selected")
    goal = phi(d)
    end = (w1[0] + 0.3 * math.cos(math.radians(120)), w1[1] + 0.3 * math.sin(math.radians(120)))
    drag(d, w1, end)
    assert abs(phi(d) - 120) < 1.5, (phi(d), goal)
    assert js(d, "return window.cuegym.ball") == "w1"
    # the opening: a drag from the suggested ball w1
    show(d, base, golf_game(base, app))
    wait(d, my_turn(d), 30, "the opening")
    w1 = state(d)["balls"]["w1"]
    drag(d, w1, (w1[0] + 0.3 * math.cos(math.radians(40)),
                 w1[1] + 0.3 * math.sin(math.radians(40))))
    assert abs(phi(d) - 40) < 1.5, phi(d)
    assert text(d, "turn").startswith("W to play — opening: strike w1")
    no_js_errors(d)


def test_the_lobby_keeps_a_model_file(server, browser):
    """A model .zip chosen for a seat stays chosen when Players changes (the select went blank
    and Start said "got ''")."""
    base, _ = server
    d = browser
    lobby(d, base)
    path = "/tmp/no-such-model.zip"
    js(d, "window.prompt = () => arguments[0];", path)
    select(d, d.find_elements("css selector", "#p-seats .agent")[1], "__zip")
    select(d, "p-players", "3")
    agents = d.find_elements("css selector", "#p-seats .agent")
    assert len(agents) == 3
    assert [a.get_attribute("value") for a in agents] == ["pretrained", path, "pretrained"]
    chosen = js(d, "const s = arguments[0]; return s.options[s.selectedIndex].text", agents[1])
    assert chosen == path
    d.find_element("id", "p-start").click()
    wait(d, "document.getElementById('p-err').textContent", 20, "the refusal")
    assert "got ''" not in text(d, "p-err") and path in text(d, "p-err"), text(d, "p-err")


def test_start_waits_for_its_answer(server, browser):
    """Start (and Watch) are disabled while the request is on its way, so a double click makes
    one game (it made two), and enabled again when it fails."""
    from selenium.webdriver.common.action_chains import ActionChains

    base, _ = server
    d = browser
    lobby(d, base)
    # a double click: one request (it fails here, as with no answer), then the button again
    js(d, "window.posts = 0; const f = window.fetch; window.fetch = (u, o) => {"
          "  if (u === '/api/games' && o && o.method === 'POST') { window.posts += 1;"
          "    return new Promise((_, no) => setTimeout(() => no(new TypeError('down')), 400)); }"
          "  return f(u, o); };")
    for button, err in (("p-start", "p-err"), ("w-start", "w-err")):
        js(d, "document.getElementById(arguments[0]).textContent = ''", err)
        ActionChains(d).double_click(d.find_element("id", button)).perform()
        assert js(d, f"return document.getElementById('{button}').disabled")
        wait(d, f"document.getElementById('{err}').textContent", 10, "the failure")
        assert "cannot be reached" in text(d, err)
        assert not js(d, f"return document.getElementById('{button}').disabled")
    assert js(d, "return window.posts") == 2  # one per button


def test_an_unknown_game_id_shows_the_lobby_without_the_game_bar(server, browser):
    """/?game=<an id the server does not know>: the lobby says so, and the header has no
    "save record" (it downloaded the page) or "new game" link; the URL is the lobby's."""
    base, _ = server
    d = browser
    d.get(base + "/?game=0123456789ab")
    wait(d, "document.body.dataset.status === 'lobby' && "
            "document.getElementById('p-err').textContent", 20, "the lobby")
    assert "0123456789ab" in text(d, "p-err")
    assert js(d, "return document.getElementById('gamebar').hidden")
    assert not d.find_element("id", "download").is_displayed()
    assert d.current_url == base + "/"


def test_a_matchs_games_won_are_in_view_with_long_names(server, browser, scratch):
    """A duo best of 3 with long names: "games 0" is drawn in full beside the name cut short
    (it was inside the name, cut off with it) and is in the row's title."""
    base, app = server
    d = browser
    names = ("pretrained 2", "pretrained 4", "pretrained 3", "pretrained 5")
    show(d, base, golf_game(base, app, names=names, options={"duo": True, "match": "best_of_3"}))
    rows = js(d, """
      return Array.from(document.querySelectorAll('#scoreboard .player')).map(row => {
        const el = Array.from(row.querySelectorAll('*'))
          .find(e => /^games \\d$/.test(e.textContent));
        if (!el) return null;
        const r = el.getBoundingClientRect(), y = (r.top + r.bottom) / 2;
        const ends = [r.left + 1, r.right - 1].map(x => document.elementFromPoint(x, y));
        const pts = row.querySelector('.pts').getBoundingClientRect();
        return {text: el.textContent, seen: ends.every(e => e === el || el.contains(e)),
                apart: r.right <= pts.left, titles: Array.from(row.querySelectorAll('[title]'))
                  .map(e => e.title)};
      });""")
    d.save_screenshot(str(scratch / "round5_games_won.png"))
    sides = ["pretrained 2 & pretrained 4", "pretrained 3 & pretrained 5"]
    for row, side in zip(rows, sides, strict=True):
        assert row and row["text"] == "games 0" and row["seen"] and row["apart"], rows
        assert f"{side} · games 0" in row["titles"], row
    # the name itself is cut short: the element holding its text is narrower than the text
    assert js(d, "const e = Array.from(document.querySelectorAll('#scoreboard .pname *'))"
                 ".concat([document.querySelector('#scoreboard .pname')]).find(e => "
                 "e.firstChild && e.firstChild.nodeType === 3 && e.firstChild.data === "
                 "'pretrained 2 & pretrained 4'); return e.scrollWidth > e.clientWidth")


def test_a_speed_changed_during_an_animation_goes_on_from_there(server, browser):
    """The animation's time goes on from where it is when the speed changes (4× to ¼×: it
    went back to ¼ of the time since the start)."""
    base, _ = server
    d = browser
    d.get_log("browser")
    gid = kegle_people(base)
    post(base, f"/api/games/{gid}/move", {"seat": 0, "shot": 0, "move": {
        "place": [-0.675, 0.12],
        "strike": {"V0": 6.0, "phi": 10.0, "theta": 0, "a": 0, "b": 0}}})
    rec = get(base, f"/api/games/{gid}/record")
    rid = post(base, "/api/replays", {"record": rec})["view"]["id"]
    d.get(base + f"/?game={rid}")
    wait(d, "window.cuegym.view && document.body.dataset.status === 'idle'", 30, "the replay")
    t_end = js(d, "return window.cuegym.shots[0].anim.t_end")
    assert t_end > 2.5, t_end
    # the time of each frame: the last ballAt of a frame is the last ball's place at that time
    js(d, "window.seen = []; window.lastT = undefined; const at = window.ballAt;"
          "window.ballAt = (s, t) => { window.lastT = t; return at(s, t); };"
          "const f = () => { if (window.cuegym.anim && window.lastT !== undefined)"
          "  window.seen.push(window.lastT);"
          "  requestAnimationFrame(f); }; requestAnimationFrame(f);")
    js(d, "document.getElementById('speed').value = '4'")
    d.find_element("id", "next").click()
    wait(d, "window.seen.length && window.seen[window.seen.length - 1] > 1.0", 10, "1 s of motion")
    js(d, "const s = document.getElementById('speed'); s.value = '0.25';"
          "s.dispatchEvent(new Event('change')); window.switched = window.seen.length;")
    time.sleep(0.5)
    seen, k = js(d, "return [window.seen, window.switched]")
    assert js(d, "return document.body.dataset.status") == "animating"
    assert all(b >= a for a, b in zip(seen, seen[1:], strict=False)), seen
    assert seen[-1] - seen[k - 1] < 0.5, (seen[k - 1], seen[-1])  # at ¼×: ~0.13 s in 0.5 s
    js(d, "document.getElementById('speed').value = '4'")
    wait(d, "document.body.dataset.status === 'idle'", 30, "the end")


def test_looking_back_at_a_live_game_stays_there(server, browser, long_game):
    """Play mode with "auto" ticked: after ◀◀, ◀ or a click in the shot list the page stays on
    the shot chosen (it stepped forward again after 0.9 s while saying "Viewing shot 0 of
    20"); ▶ steps one shot, ▶▶ returns to the game."""
    base, _ = server
    d = browser
    d.get(base + f"/?game={long_game}")
    wait(d, "window.cuegym.view && document.body.dataset.status === 'idle'", 30, "the game")
    assert js(d, "return document.getElementById('autoplay').checked")
    js(d, "document.getElementById('speed').value = '4'")  # auto's pause: 0.225 s
    d.find_element("id", "first").click()
    assert text(d, "turn") == "Viewing shot 0 of 20 (▶▶ returns to the game)"
    time.sleep(1.5)
    assert js(d, "return window.cuegym.shown") == 0
    assert js(d, "return document.body.dataset.status") == "idle"
    d.find_elements("css selector", "#history li")[2].click()
    time.sleep(1.0)
    assert js(d, "return window.cuegym.shown") == 3
    d.find_element("id", "next").click()
    wait(d, "window.cuegym.shown === 4 && document.body.dataset.status === 'idle'", 20, "▶")
    time.sleep(1.0)
    assert js(d, "return window.cuegym.shown") == 4
    d.find_element("id", "prev").click()
    time.sleep(1.0)
    assert js(d, "return window.cuegym.shown") == 3
    d.find_element("id", "last").click()
    assert js(d, "return window.cuegym.shown") == 20
    assert "Viewing" not in text(d, "turn") and "to play" in text(d, "turn")


def test_the_shot_list_follows_the_shot_shown(server, browser, long_game, scratch):
    """20 shots, more than the list shows: the current shot is scrolled into the list's view
    (at the start the last, after ◀◀ ▶ the first); only the list scrolls."""
    base, _ = server
    d = browser
    d.get(base + f"/?game={long_game}")
    wait(d, "window.cuegym.view && document.body.dataset.status === 'idle'", 30, "the game")
    js(d, "document.getElementById('autoplay').checked = false")
    seen = ("const ol = document.getElementById('history'), li = ol.querySelector('li.current');"
            "const a = ol.getBoundingClientRect(), b = li.getBoundingClientRect();"
            "return [b.top >= a.top - 1 && b.bottom <= a.bottom + 1, li.textContent];")
    assert js(d, "const ol = document.getElementById('history');"
                 "return ol.scrollHeight > ol.clientHeight")
    vis, _ = js(d, seen)
    assert vis, js(d, "return document.getElementById('history').scrollTop")
    d.save_screenshot(str(scratch / "round5_shot_list.png"))
    assert js(d, "return [document.getElementById('side').scrollTop, window.scrollY]") == [0, 0]
    d.find_element("id", "first").click()
    js(d, "document.getElementById('speed').value = '4'")
    d.find_element("id", "next").click()
    wait(d, "window.cuegym.shown === 1 && document.body.dataset.status === 'idle'", 20, "▶")
    vis, _ = js(d, seen)
    assert vis


def test_the_game_over_banner_stays_on_the_table_on_a_phone(server, browser, scratch):
    """390x844, a duo of long names: the banner stays inside the table (the names cut short
    but not "win", the whole result its title) and the header's "save record" link can be
    clicked (the banner grew over it)."""
    base, app = server
    d = browser
    gid = golf_game(base, app, LAST_WHITE, names=LONG, options={"duo": True})
    seat = get(base, f"/api/games/{gid}")["awaiting"]["seat"]
    post(base, f"/api/games/{gid}/move", {"seat": seat, "shot": 0, "move": {
        "ball": "w1", "strike": {"V0": 1.5, "phi": 0.0, "theta": 0, "a": 0, "b": 0}}})
    try:
        size(d, 390, 844)
        d.get(base + f"/?game={gid}")
        wait(d, "window.cuegym.view && !document.getElementById('banner').hidden", 30, "game over")
        d.save_screenshot(str(scratch / "round5_banner_phone.png"))
        b, s = js(d, "return ['banner', 'stage'].map(id => { const r = document.getElementById(id)"
                     ".getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })")
        assert s[0] - 0.5 <= b[0] and s[1] - 0.5 <= b[1] and b[2] <= s[2] + 0.5 and \
            b[3] <= s[3] + 0.5, (b, s)
        assert js(d, "const a = document.getElementById('download'),"
                     "r = a.getBoundingClientRect(); return document.elementFromPoint("
                     "(r.left + r.right) / 2, (r.top + r.bottom) / 2) === a")
        won = f"{LONG[0]} & {LONG[1]} win"
        assert js(d, "return document.getElementById('banner').title") == won
        assert text(d, "banner") == won
        assert js(d, "const w = document.querySelector('#banner .result').lastChild,"
                     "r = w.getBoundingClientRect(), e = document.elementFromPoint(r.right - 2,"
                     "(r.top + r.bottom) / 2); return w.textContent === 'win' && w.contains(e)")
    finally:
        d.set_window_size(1400, 860)


def test_a_placement_check_without_an_answer_is_not_called_illegal(server, browser):
    """The server does not answer the placement check: the page says it cannot be reached (as
    an error, not "Illegal placement: ..."), and the placement is not marked illegal."""
    base, _ = server
    d = browser
    d.get(base + f"/?game={kegle_people(base)}")
    wait(d, my_turn(d) + " && window.cuegym.placeOk === true", 30, "my turn, the red placed")
    js(d, "window.realFetch = window.fetch; window.fetch = (u, o) => String(u).includes("
          "'/placement') ? Promise.reject(new TypeError('Failed to fetch'))"
          " : window.realFetch(u, o);")
    drag(d, js(d, "return window.cuegym.place"), (-0.9, -0.2))
    wait(d, "document.getElementById('g-err').textContent || "
            "document.getElementById('aim-hint').textContent.startsWith('Illegal')", 10,
         "the error")
    assert not text(d, "aim-hint").startswith("Illegal placement"), text(d, "aim-hint")
    assert "cannot be reached" in text(d, "g-err")
    assert "Illegal placement" not in text(d, "aim-hint")
    assert js(d, "return window.cuegym.placeOk") is not False
    assert js(d, "return document.getElementById('shoot').disabled")  # not checked: no shot
    js(d, "window.fetch = window.realFetch")
    drag(d, js(d, "return window.cuegym.place"), (-0.9, 0.2))
    wait(d, "window.cuegym.placeOk === true", 10, "a checked placement")
    assert text(d, "g-err") == ""


def test_alt_ctrl_and_meta_arrows_are_the_browsers(server, browser):
    """On my turn Alt/Ctrl/Meta + ←/→ leave the aim alone and are not prevented (Alt+← is the
    browser's Back); a plain arrow still turns the aim by 0.1°."""
    base, app = server
    d = browser
    show(d, base, golf_game(base, app, FOUR))
    wait(d, my_turn(d), 30, "my turn")
    key = ("const e = new KeyboardEvent('keydown', Object.assign({key: arguments[0], bubbles: true,"
           " cancelable: true}, arguments[1])); document.body.dispatchEvent(e);"
           "return e.defaultPrevented;")
    before = phi(d)
    for mod in ("altKey", "ctrlKey", "metaKey"):
        for k in ("ArrowLeft", "ArrowRight"):
            assert not js(d, key, k, {mod: True}), (mod, k)
            assert phi(d) == before, (mod, k)
    assert js(d, key, "ArrowLeft", {})
    assert abs(phi(d) - before - 0.1) < 1e-9


def test_an_empty_play_to_plays_to_the_default(server, browser):
    """An empty "Play to" is no other distance: the game is to 70 points (K-21; it was sent as
    0 and refused); text that is no number is said in the page, not sent."""
    base, _ = server
    d = browser
    lobby(d, base)
    d.find_element("id", "p-distance").clear()
    select(d, d.find_elements("css selector", "#p-seats .kind")[1], "human")
    d.find_element("id", "p-start").click()
    wait(d, "window.cuegym.view && document.body.dataset.status === 'idle' || "
            "document.getElementById('p-err').textContent", 30, "the game")
    assert text(d, "p-err") == ""
    assert js(d, "return window.cuegym.view.options.distance") == 70
    assert "to 70 points" in js(d, "return document.querySelector('#scoreboard .hint').textContent")
    lobby(d, base)
    d.find_element("id", "p-distance").clear()
    d.find_element("id", "p-distance").send_keys("1e")
    d.find_element("id", "p-start").click()
    assert text(d, "p-err") == "Play to must be a number of points (1..500)"
