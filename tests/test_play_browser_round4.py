"""cuegym.play in a real browser, fourth audit round: the next game of a match starts on a clean
table (no trails of the last game), the side choosing a penalty spot is the one highlighted, a
repeated golfbillard opening is struck with the ball its side picks (G-3), and a duo best-of-3
names the openers of a deciding game (G-31 ``deciding_openers``) from the lobby.

Headless Chromium through Selenium as in ``test_play_browser.py`` (its server, browser and
helpers) and golfbillard positions set up as in ``test_play_browser_golf.py``; the browser tests
are skipped when Chromium, chromedriver or Selenium are missing. The option's checks are plain
API tests and always run.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from browser_support import HAVE_SELENIUM, get, needs_browser

if HAVE_SELENIUM:
    from test_play_browser import (  # noqa: F401
        browser,
        click_at,
        js,
        my_turn,
        server,
        state,
        text,
        wait,
    )
    from test_play_browser_golf import (
        KADER,
        LAST_WHITE,
        golf_game,
        hint,
        no_js_errors,
        opening_from_page,
        show,
        strike,
    )

DUO = ("Ann", "Bob", "Cy", "Di")
DUO_BO3 = {"duo": True, "match": "best_of_3"}
BOTH_SCORE = (31.46301610663078, -148.53698389336924)  # both opening balls score at 2 m/s


def pixel(d, xy):
    """The table canvas's colour (r, g, b) at table point ``xy`` (metres)."""
    return js(d, "const [u, v] = window.cuegym.tv.px(arguments[0], arguments[1]);"
                 "return Array.from(window.cuegym.tv.ctx.getImageData(Math.round(u), "
                 "Math.round(v), 1, 1).data).slice(0, 3);", *xy)


def trail_at(d, xy, off):
    """Is a trail drawn at ``xy``? Much brighter than the cloth ``off`` (metres) beside it (a
    trail is a light line over the dark green cloth)."""
    return sum(pixel(d, xy)) - sum(pixel(d, (xy[0] + off[0], xy[1] + off[1]))) > 60


def sides_lit(d):
    """Which scoreboard rows (golfbillard: side 0, side 1) are highlighted as the one to act."""
    return js(d, "return Array.from(document.querySelectorAll('#scoreboard .player'))"
                 ".map(e => e.classList.contains('to-move'))")


def open_game_2(d):
    """Game 2's opening of a duo from the page (Bob and Di open it, G-31), no tie."""
    from cuegym.rules.golfbillard_game import new_match, opening_strike

    for side in (0, 1):
        V0, phi, *_ = opening_strike(new_match(), side, side * 5, V0=1.1 + 0.15 * side)
        opening_from_page(d, float(V0), float(phi))
    wait(d, "window.cuegym.view.shots === 2 && document.body.dataset.status === 'idle'", 30,
         "the opening of game 2")


@needs_browser
def test_the_next_game_of_a_match_starts_without_the_last_games_trails(server, browser):
    """Game 1 of a best-of-3 won: game 2's fresh rack is drawn without the winning stroke's
    trail (it was drawn over the new rack, live and when stepping back to game 2's start);
    within a game the last stroke's trails are still drawn."""
    base, app = server
    d = browser
    d.get_log("browser")
    gid = golf_game(base, app, LAST_WHITE, names=DUO, options=DUO_BO3)
    show(d, base, gid)
    strike(d, "w1", 1.5, 0.0)  # w1 from (0.5, 0) into the attack goal at +x: game 1 won
    wait(d, "window.cuegym.view.state.phase === 'opening' && "
            "document.body.dataset.status === 'idle'", 30, "game 2")
    assert state(d)["balls"]["w1"] == [-0.825, 0.0]  # the new rack
    assert not trail_at(d, (0.7, 0.0), (0.0, 0.04)), pixel(d, (0.7, 0.0))
    open_game_2(d)
    # within game 2 the opening's trails are drawn: w1's path a quarter of the way along
    path = js(d, "const a = window.cuegym.shots[1].anim, b = a.balls.w1.segs, t = a.t_end / 4;"
                 "return [ballAt(b, t), ballAt(b, t + 0.01)];")
    (x, y), (x2, y2) = path
    n = ((x2 - x) ** 2 + (y2 - y) ** 2) ** 0.5
    assert n > 0, path
    assert trail_at(d, (x, y), (-(y2 - y) / n * 0.04, (x2 - x) / n * 0.04)), path
    # one shot back: game 2's rack before its opening, again without game 1's trail
    d.find_element("id", "prev").click()
    wait(d, "window.cuegym.shown === 1", 10, "the shot before")
    assert js(d, "return window.cuegym.displayState().balls.w1") == [-0.825, 0.0]
    assert not trail_at(d, (0.7, 0.0), (0.0, 0.04)), pixel(d, (0.7, 0.0))
    no_js_errors(d)


@needs_browser
def test_the_side_choosing_a_penalty_spot_is_highlighted(server, browser):
    """A G-21 foul in a duo: while Cy chooses the penalty spot (G-30) Cy & Di are highlighted
    in the scoreboard as the side to act (the shooters, Ann & Bob, were); after the answer the
    turn is theirs too."""
    base, app = server
    d = browser
    d.get_log("browser")
    gid = golf_game(base, app, KADER, names=DUO, options=DUO_BO3)
    show(d, base, gid)
    assert sides_lit(d) == [True, False]
    strike(d, "w1", 0.1, 90.0)
    wait(d, "!window.cuegym.busy && !document.getElementById('choice').hidden", 30, "the question")
    assert text(d, "turn") == "Cy chooses a penalty spot for w1 (G-30)"
    assert js(d, "return window.cuegym.view.pending.chooser_side") == 1
    assert sides_lit(d) == [False, True]
    d.find_element("css selector", "#choice button[data-answer='2']").click()
    wait(d, "!window.cuegym.busy && window.cuegym.view.awaiting.type === 'move'", 30, "the answer")
    assert sides_lit(d) == [False, True]
    # stepping back to before the stroke: the shooters, as the state shown says
    d.find_element("id", "prev").click()
    assert sides_lit(d) == [True, False]
    no_js_errors(d)


@needs_browser
def test_a_repeated_opening_is_struck_with_the_ball_its_side_picks(server, browser):
    """G-3: both opening balls scored, the opening is repeated "with another ball each", any
    own ball (docs/rules_golfbillard.md): the page offers every own ball (ringed; the hint says
    so), a click picks one, the turn line names it and the strike is played with it (the page
    always struck the suggested w2 / r2)."""
    base, app = server
    d = browser
    d.get_log("browser")
    gid = golf_game(base, app)
    show(d, base, gid)
    assert js(d, "return window.cuegym.view.awaiting.options") == [["w1"], ["r1"]]
    assert "click one" not in text(d, "aim-hint")
    for phi in BOTH_SCORE:
        opening_from_page(d, 2.0, phi)
    wait(d, "window.cuegym.view.shots === 1", 30, "the opening")
    wait(d, my_turn(d), 30, "the repeat")
    assert js(d, "return window.cuegym.view.awaiting.options") == [
        ["w2", "w3", "w4", "w5"], ["r2", "r3", "r4", "r5"]]
    assert text(d, "turn") == "W to play — opening: strike w2 off the left long cushion (G-3)"
    assert text(d, "aim-hint").startswith("Any of your balls may open this repeat (G-3)")
    click_at(d, state(d)["balls"]["w4"])
    wait(d, "document.getElementById('turn').textContent.includes('strike w4')", 5, "w4 picked")
    assert text(d, "turn") == "W to play — opening: strike w4 off the left long cushion (G-3)"
    opening_from_page(d, 1.2, 0.0)
    wait(d, my_turn(d), 30, "red's strike")
    assert text(d, "turn").startswith("R to play — opening: strike r2")  # red's own default
    click_at(d, state(d)["balls"]["r5"])
    wait(d, "document.getElementById('turn').textContent.includes('strike r5')", 5, "r5 picked")
    opening_from_page(d, 1.3, 180.0)
    wait(d, "window.cuegym.view.shots === 2", 30, "the repeated opening")
    shot = get(base, f"/api/games/{gid}/shots/1")
    assert [s["ball"] for s in shot["executed"]["strikes"]] == ["w4", "r5"]
    assert shot["outcome"]["balls"] == ["w4", "r5"] and not shot["outcome"]["fouls"]
    no_js_errors(d)


@needs_browser
def test_deciding_openers_are_chosen_in_the_lobby_and_open_game_3(server, browser):
    """G-31: "in a deciding game each duo chooses its opener". The lobby asks it for a duo
    best of 3 only (White 2 and Red 1 here) and the game carries it (the web table always
    used the rules' default, partner 0 of each side); at 1-1 game 3 is opened by Bob and Cy."""
    from selenium.webdriver.support.ui import Select

    base, app = server
    d = browser
    d.get_log("browser")
    d.get(base + "/")
    wait(d, "document.body.dataset.status === 'lobby'", 20, "the lobby")
    shown = "return !document.getElementById('p-deciding').hidden"
    assert not js(d, shown)  # keglebillard
    Select(d.find_element("id", "p-game")).select_by_value("golfbillard")
    Select(d.find_element("id", "p-duo")).select_by_value("1")
    assert not js(d, shown)  # a duo's one game has no deciding game
    Select(d.find_element("id", "p-match")).select_by_value("best_of_3")
    assert js(d, shown)
    Select(d.find_element("id", "p-dec0")).select_by_value("1")
    for sel in d.find_elements("css selector", "#p-seats .kind"):
        Select(sel).select_by_value("human")
    d.find_element("id", "p-start").click()
    wait(d, "window.cuegym.view && document.body.dataset.status === 'idle'", 30, "the game")
    assert js(d, "return window.cuegym.view.options") == {**DUO_BO3, "deciding_openers": [1, 0]}
    # the same option at 1-1: White 2 (Bob) and Red 1 (Cy) open game 3
    gid = golf_game(base, app, LAST_WHITE, names=DUO,
                    options={**DUO_BO3, "deciding_openers": [1, 0]}, winner=1, partner=[1, 1],
                    openers=[1, 1], match={"games_won": [0, 1], "game": 1, "winner": None})
    show(d, base, gid)
    strike(d, "w1", 1.5, 0.0)
    wait(d, "window.cuegym.view.state.phase === 'opening'", 30, "game 3")
    assert hint(d).startswith("game 3 · opening (G-3)")
    assert js(d, "return window.cuegym.view.awaiting.seats") == [1, 2]
    assert text(d, "turn").startswith("Bob to play — opening: strike w1")
    no_js_errors(d)


def test_deciding_openers_option_is_checked_and_recorded(tmp_path):
    """``deciding_openers`` (G-31): two partners 0/1, for a duo best of 3 only; anything else is
    a 400 naming it; the view and the record carry it (a replay opens with it)."""
    from fastapi.testclient import TestClient

    from cuegym.play.server import create_app

    c = TestClient(create_app(save_dir=tmp_path, record_dirs=[tmp_path]),
                   base_url="http://localhost")
    seats = [{"kind": "human", "name": n} for n in DUO]

    def new(options, n=4):
        return c.post("/api/games", json={"game": "golfbillard", "noise": "none",
                                          "options": options, "seats": seats[:n]})

    for bad in ([2, 0], [True, 0], [0], [0, 1, 0], "1,0", [0.0, 1]):
        r = new({**DUO_BO3, "deciding_openers": bad})
        assert r.status_code == 400, (bad, r.text)
        assert "deciding_openers must be [partner of side 0, partner of side 1]" in \
            r.json()["detail"] and repr(bad) in r.json()["detail"], r.json()
    for opts, n in (({"duo": True, "match": "single"}, 4), ({"match": "best_of_3"}, 2)):
        r = new({**opts, "deciding_openers": [0, 0]}, n)
        assert r.status_code == 400, r.text
        assert r.json()["detail"].startswith("deciding_openers [0, 0] applies to a duo "
                                             "best-of-3 match (G-31)"), r.json()
    assert new(DUO_BO3).json()["view"]["options"]["deciding_openers"] == [0, 0]  # the default
    assert new({"duo": True}).json()["view"]["options"] == {"duo": True, "match": "single"}
    v = new({**DUO_BO3, "deciding_openers": [0, 1]}).json()["view"]
    assert v["options"]["deciding_openers"] == [0, 1]
    rec = c.get(f"/api/games/{v['id']}/record").json()
    assert rec["options"] == {**DUO_BO3, "deciding_openers": [0, 1]}
    r = c.post("/api/replays", json={"record": rec})
    assert r.status_code == 200, r.text
    assert r.json()["view"]["options"]["deciding_openers"] == [0, 1]
    assert c.get("/api/info").json()["defaults"]["golfbillard"]["deciding_openers"] == [0, 0]
