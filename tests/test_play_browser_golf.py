"""cuegym.play golfbillard in a real browser, the parts reached from a set-up position: kader
play (the G-21 duty said, a G-21 foul and its penalty-spot question, G-26 moving a cue ball off
its penalty spot), a best-of-3 match (game 1 to game 2, the duo's other partners open game 2,
the deciding game's openers, the match-end banner), a G-5 draw in a match, the opening when both
sides score, a saved game replayed to the same calls, a duo listed by its sides, and the spin
diagram from the keyboard.

Headless Chromium through Selenium as in ``test_play_browser.py`` (its server, browser and
helpers); positions are set on the server's game (``app.state.games``) as
``tests/test_play_calls.py`` writes them. Skipped when Chromium, chromedriver or Selenium are
missing.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from browser_support import HAVE_SELENIUM, get, needs_browser, post

pytestmark = needs_browser

if HAVE_SELENIUM:
    from test_play_browser import (  # noqa: F401
        browser,
        click_at,
        js,
        my_turn,
        server,
        set_range,
        shoot_and_wait,
        state,
        text,
        wait,
    )

LAST_WHITE = {"w1": [0.5, 0.0], "r1": [0.2, -0.3], "r2": [-0.2, -0.1]}  # w1 1.5 m/s, 0°: scores
FOUR = {"w1": [0.2, 0.1], "w2": [-0.2, 0.1], "r1": [0.2, -0.1], "r2": [-0.2, -0.1]}
KADER = {"w1": [0.2, 0.1], "r1": [0.5, -0.3], "r2": [-0.2, -0.1], "r3": [-0.5, 0.3]}
SPOT1 = [0.86925, 0.09387]  # side 0's penalty spot 1 (G-27)


def golf_game(base, app, balls=None, names=("W", "R"), options=None, **fields):
    """A golfbillard game of people (noise none); with ``balls``, set to a play-phase position
    (the others scored), white to move, as its start (so that its record chains)."""
    gid = post(base, "/api/games", {"game": "golfbillard", "noise": "none",
                                    "options": options or {},
                                    "seats": [{"kind": "human", "name": n} for n in names]}
               )["view"]["id"]
    if balls is not None:
        g = app.state.games.get(gid)
        j = g.table.state_json(g.table.new_state())
        j.update(phase="play", to_move=0, turns=10, idle_turns=0, stroke=20)
        j["balls"] = dict.fromkeys(g.table.ball_ids) | balls
        j["turn"] = {"strokes": 0, "scored": False, "duty": [], "duty_met": False}
        j.pop("kader", None)  # from the balls (G-20)
        j.update(fields)
        g.state = g.table.state_from_json(j)
        g.start = g.table.state_json(g.state)
    return gid


def show(d, base, gid):
    d.get(base + f"/?game={gid}")
    wait(d, "window.cuegym.view && document.body.dataset.status === 'idle'", 30, "the table")
    js(d, "document.getElementById('speed').value = '4'")


def strike(d, ball, V0, phi):
    wait(d, my_turn(d), 30, "my turn")
    click_at(d, state(d)["balls"][ball])
    wait(d, f"window.cuegym.ball === '{ball}'", 5, "the ball selected")
    set_range(d, "phi", phi)
    set_range(d, "v0", V0)
    shoot_and_wait(d)


def opening_from_page(d, V0, phi):
    wait(d, my_turn(d), 30, "an opening turn")
    set_range(d, "phi", phi)
    set_range(d, "v0", V0)
    n = js(d, "return window.cuegym.view.shots")
    d.find_element("id", "shoot").click()
    wait(d, f"!window.cuegym.busy && document.body.dataset.status === 'idle' && "
            f"(window.cuegym.view.shots > {n} || window.cuegym.view.awaiting.missing.length < 2)",
         30, "the opening strike taken")


def calls(d):
    return [p.text for p in d.find_elements("css selector", "#call p")]


def hint(d):
    return js(d, "return document.querySelector('#scoreboard .hint').textContent")


def no_js_errors(d):
    logs = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert logs == [], logs


def test_kader_play_G21_foul_question_and_G26(server, browser):
    """Kader play (white down to w1): the scoreboard says the G-21 duty; a stroke that moves no
    ball out of its kader is a G-21 foul, the opponent chooses w1's penalty spot; from that spot
    a second foul moves w1 on by G-26, with no question."""
    base, app = server
    d = browser
    d.get_log("browser")
    gid = golf_game(base, app, KADER)
    show(d, base, gid)
    assert hint(d).startswith("kader play (G-20) · turn 10")
    assert hint(d).endswith("G-21: a ball must leave its kader")
    strike(d, "w1", 0.1, 90.0)
    wait(d, "!window.cuegym.busy && !document.getElementById('choice').hidden", 30, "the question")
    q = js(d, "return window.cuegym.view.awaiting.question")
    assert q["kind"] == "spot" and q["ball"] == "w1" and q["options"] == [1, 2, 3]
    assert text(d, "turn") == "R chooses a penalty spot for w1 (G-30)"
    assert calls(d)[:3] == ["W: foul G-21 — kader play: a ball did not leave its kader",
                            "G-21: no ball left its kader",
                            "penalty: turn lost; the cue ball goes to a penalty spot"]
    d.find_element("css selector", "#choice button[data-answer='1']").click()
    wait(d, "!window.cuegym.busy && window.cuegym.view.awaiting.type === 'move'", 30, "the answer")
    assert "w1 to penalty spot 1 (G-30)" in calls(d) and calls(d)[-1] == "turn passes to R"
    assert state(d)["balls"]["w1"] == pytest.approx(SPOT1) and state(d)["on_spot"] == {"w1": 1}
    # w1 fouls again from spot 1: G-26 sends it to spot 2, nobody is asked
    gid = golf_game(base, app, {**KADER, "w1": SPOT1}, on_spot={"w1": 1},
                    fouled_spots=[[1], []])
    show(d, base, gid)
    strike(d, "w1", 0.1, 180.0)
    wait(d, "window.cuegym.view.shots === 1 && window.cuegym.view.awaiting.type === 'move'", 30,
         "the stroke")
    assert "w1 to penalty spot 2 (G-26)" in calls(d)
    assert state(d)["on_spot"] == {"w1": 2} and state(d)["to_move"] == 1
    no_js_errors(d)


def test_best_of_3_duo_game_2_openers_replay_and_the_listed_sides(server, browser):
    """A duo best-of-3: Ann & Bob win game 1 (no banner; the scoreboard has game 2 and the
    games won); game 2 is opened by the other partners, Bob and Di, from the page; the saved
    record replays to the same calls; the lobby lists the game by its sides."""
    base, app = server
    d = browser
    d.get_log("browser")
    gid = golf_game(base, app, LAST_WHITE, names=("Ann", "Bob", "Cy", "Di"),
                    options={"duo": True, "match": "best_of_3"})
    show(d, base, gid)
    assert hint(d).startswith("game 1 · kader play (G-20)")
    strike(d, "w1", 1.5, 0.0)
    wait(d, "window.cuegym.view.state.phase === 'opening'", 30, "game 2")
    assert calls(d)[-2:] == ["Ann & Bob win game 1 (1-0)", "game 2 starts"]
    assert js(d, "return document.getElementById('banner').hidden")
    assert hint(d).startswith("game 2 · opening (G-3) · turn 0")
    won = js(d, "return Array.from(document.querySelectorAll('#scoreboard .pname small'))"
                ".map(e => e.textContent)")
    assert won == ["games 1", "games 0"]
    assert js(d, "return window.cuegym.view.awaiting.seats") == [1, 3]  # G-31: the others
    assert text(d, "turn") == "Bob to play — opening: strike w1 off the left long cushion (G-3)"
    from cuegym.rules.golfbillard_game import new_match, opening_strike

    for side in (0, 1):
        V0, phi, *_ = opening_strike(new_match(), side, side * 5, V0=1.1 + 0.15 * side)
        if side:
            assert text(d, "turn").startswith("Di to play — opening: strike r1")
        opening_from_page(d, float(V0), float(phi))
    wait(d, "window.cuegym.view.shots === 2", 30, "the opening of game 2")
    assert calls(d)[0].startswith("opening (G-3): ")
    # the saved record re-simulates to the same shots and calls
    rec = get(base, f"/api/games/{gid}/record")
    live = app.state.games.get(gid)
    rid = post(base, "/api/replays", {"record": rec})["view"]["id"]
    d.get(base + f"/?game={rid}")
    wait(d, "window.cuegym.view && window.cuegym.view.mode === 'replay' && "
            "document.body.dataset.status === 'idle'", 30, "the replay")
    assert js(d, "return window.cuegym.view.meta.verified")
    d.find_element("id", "last").click()
    wait(d, "window.cuegym.shown === 2", 10, "the last shot")
    assert calls(d) == live.shots[-1].call
    assert [s.call for s in app.state.games.get(rid).shots] == [s.call for s in live.shots]
    assert hint(d).startswith("game 2 · play")
    # the lobby's saved games: a duo by its sides, as its title
    d.get(base + "/")
    wait(d, "document.querySelectorAll('#records .rec').length >= 1", 20, "the saved games")
    rows = [r.text for r in d.find_elements("css selector", "#records .rec")]
    assert any(r.startswith("golfbillard: Ann & Bob vs Cy & Di") for r in rows), rows
    assert not any("Ann vs Bob" in r for r in rows), rows
    no_js_errors(d)


def test_deciding_game_openers_G5_in_a_match_and_the_match_end(server, browser):
    """The deciding game of a duo is opened by the deciding openers (partner 0 of each side,
    the rules' default: the page asks nothing); a G-5 draw of game 2 starts game 3 without a
    banner; the match won 2-1 shows the banner."""
    base, app = server
    d = browser
    d.get_log("browser")
    gid = golf_game(base, app, LAST_WHITE, names=("Ann", "Bob", "Cy", "Di"),
                    options={"duo": True, "match": "best_of_3"}, winner=1, partner=[1, 1],
                    openers=[1, 1], match={"games_won": [0, 1], "game": 1, "winner": None})
    show(d, base, gid)
    strike(d, "w1", 1.5, 0.0)
    wait(d, "window.cuegym.view.state.phase === 'opening'", 30, "game 3")
    assert calls(d)[-2:] == ["Ann & Bob win game 2 (1-1)", "game 3 starts"]
    assert js(d, "return window.cuegym.view.awaiting.seats") == [0, 2]
    assert text(d, "turn").startswith("Ann to play — opening")
    # G-5 in game 2 at 1-0: drawn, game 3 starts, no banner
    gid = golf_game(base, app, FOUR, options={"match": "best_of_3"}, turns=45, idle_turns=5,
                    stroke=90, winner=0, match={"games_won": [1, 0], "game": 1, "winner": None})
    show(d, base, gid)
    strike(d, "w1", 0.3, 90.0)
    wait(d, "window.cuegym.view.state.phase === 'opening'", 30, "game 3")
    assert calls(d)[-2:] == ["game 2 drawn (G-5, no progress), W leads 1-0", "game 3 starts"]
    assert js(d, "return document.getElementById('banner').hidden")
    assert hint(d).startswith("game 3 · opening (G-3)")
    # game 3 at 1-1 won by white: the match
    gid = golf_game(base, app, LAST_WHITE, options={"match": "best_of_3"}, winner=1,
                    match={"games_won": [1, 1], "game": 2, "winner": None})
    show(d, base, gid)
    strike(d, "w1", 1.5, 0.0)
    wait(d, "window.cuegym.view.over && document.body.dataset.status === 'idle'", 30, "the end")
    assert calls(d)[-2:] == ["W wins game 3 (2-1)", "game over — W wins the match (2-1)"]
    assert not js(d, "return document.getElementById('banner').hidden")
    assert text(d, "banner") == "W wins the match 2-1"
    assert text(d, "turn") == "Game over — W wins the match 2-1"
    assert hint(d) == "match over after 10 turns · noise none"
    no_js_errors(d)


def test_opening_both_sides_score_then_another_ball(server, browser):
    """Both opening balls scored (G-3): the call says so and names them, the opening is
    repeated with the next ball of each side (w2, r2), which the turn line names."""
    base, app = server
    d = browser
    d.get_log("browser")
    gid = golf_game(base, app)
    show(d, base, gid)
    for phi in (31.46301610663078, -148.53698389336924):  # both score at 2 m/s (noise none)
        opening_from_page(d, 2.0, phi)
    wait(d, "window.cuegym.view.shots === 1", 30, "the opening")
    assert calls(d) == ["opening (G-3): both sides scored their opening ball: repeat with "
                        "another ball", "scored: w1, r1"]
    assert js(d, "return window.cuegym.view.awaiting.balls") == ["w2", "r2"]
    assert text(d, "turn") == "W to play — opening: strike w2 off the left long cushion (G-3)"
    left = js(d, "return Array.from(document.querySelectorAll('#scoreboard .balls'))"
                 ".map(e => +e.dataset.left)")
    assert left == [4, 4]
    no_js_errors(d)


def test_spin_diagram_from_the_keyboard(server, browser, tmp_path):
    """The spin diagram is reached with Tab, shows a focus ring, and its arrows move the tip
    (left: a > 0, up: b > 0; Shift: bigger steps) within the limit, the label following; Home
    centres it; the table's aim does not move; without focus it looks as before."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    base, app = server
    d = browser
    d.get_log("browser")
    gid = golf_game(base, app, KADER)
    show(d, base, gid)
    wait(d, my_turn(d), 30, "my turn")
    ring = "const s = getComputedStyle(document.getElementById('spin'));" \
           "return [s.outlineStyle, s.outlineWidth];"
    assert js(d, ring)[0] == "none"
    js(d, "document.getElementById('v0').focus()")
    ActionChains(d).send_keys(Keys.TAB).perform()  # from the power slider to the diagram
    assert js(d, "return document.activeElement.id") == "spin"
    assert js(d, ring) == ["solid", "2px"]
    d.find_element("id", "spin").screenshot(str(tmp_path / "spin_focus.png"))
    phi = js(d, "return window.cuegym.aim.phi")
    ActionChains(d).send_keys(Keys.ARROW_LEFT, Keys.ARROW_UP, Keys.ARROW_UP).perform()
    assert js(d, "return [window.cuegym.aim.a, window.cuegym.aim.b]") == [0.02, 0.04]
    assert text(d, "spin-val") == "a +0.02 b +0.04"
    ActionChains(d).key_down(Keys.SHIFT).send_keys(Keys.ARROW_DOWN).key_up(Keys.SHIFT).perform()
    assert js(d, "return window.cuegym.aim.b") == pytest.approx(-0.06)
    for _ in range(12):  # far past the rim: stops on the limit
        ActionChains(d).key_down(Keys.SHIFT).send_keys(Keys.ARROW_RIGHT).key_up(Keys.SHIFT) \
            .perform()
    a, b = js(d, "return [window.cuegym.aim.a, window.cuegym.aim.b]")
    assert a < -0.5 and (a * a + b * b) ** 0.5 <= 0.6 + 1e-9, (a, b)
    assert text(d, "spin-val") == f"a {a:+.2f} b {b:+.2f}"
    assert js(d, "return window.cuegym.aim.phi") == phi
    # the shot with that spin is taken as shown
    click_at(d, state(d)["balls"]["w1"])  # the mouse on the table: the focus leaves the diagram
    wait(d, "window.cuegym.ball === 'w1'", 5, "the ball selected")
    js(d, "document.getElementById('spin').focus()")
    ActionChains(d).send_keys(Keys.HOME).perform()
    assert js(d, "return [window.cuegym.aim.a, window.cuegym.aim.b]") == [0, 0]
    assert text(d, "spin-val") == "a +0.00 b +0.00"
    no_js_errors(d)
