"""cuegym.play in a real browser, sixth audit round: a look back chosen while an agent thinks
stays when its shot arrives, a game id holding "/" in the URL shows the lobby, and the aiming
aid's object-ball line stops at the cushion.

Headless Chromium through Selenium as in ``test_play_browser.py`` (its server, browser and
helpers). Skipped when Chromium, chromedriver or Selenium are missing.
"""

from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from browser_support import HAVE_SELENIUM, needs_browser, post

pytestmark = needs_browser

if HAVE_SELENIUM:
    from test_play_browser import browser, js, server, text, wait  # noqa: F401


def test_a_look_back_chosen_while_an_agent_thinks_stays(server, browser, monkeypatch):
    """docs/play.md: a look back with ◀◀, ◀ or the shot list stays on the shot chosen. Chosen
    while an agent was thinking, it was dropped when the agent's shot arrived (the page
    animated the shot and jumped to the present)."""
    from cuegym.play import match

    think = match.LiveGame.agent_move

    def slow(self, *a, **k):  # an agent that thinks for a while (a cold one takes seconds)
        time.sleep(1.5)
        return think(self, *a, **k)

    monkeypatch.setattr(match.LiveGame, "agent_move", slow)
    base, _ = server
    d = browser
    gid = post(base, "/api/games", {"game": "keglebillard", "noise": "none", "seed": 1,
                                    "seats": [{"kind": "agent", "agent": "geometric"}] * 2}
               )["view"]["id"]
    d.get(f"{base}/?game={gid}&watch=1")
    wait(d, "window.cuegym.view.shots === 1 && document.body.dataset.status === 'thinking'",
         60, "the second agent thinking")
    js(d, "document.getElementById('first').click()")
    assert js(d, "return window.cuegym.shown") == 0
    wait(d, "window.cuegym.view.shots === 2 && !window.cuegym.busy", 60, "the agent's shot")
    time.sleep(0.5)
    assert js(d, "return window.cuegym.shown") == 0
    assert text(d, "turn").startswith("Viewing shot 0 of 2")
    # ▶▶ returns to the game, with both shots in the list
    js(d, "document.getElementById('last').click()")
    wait(d, "window.cuegym.shown === window.cuegym.view.shots", 30, "the present")
    assert len(d.find_elements("css selector", "#history li")) >= 2


@pytest.mark.parametrize("gid", ["..%2Finfo", "..%2Frecords", "x%2Frecord"])
def test_a_game_id_holding_a_slash_shows_the_lobby(server, browser, gid):
    """docs/play.md: an unknown game id in the URL shows the lobby with the server's reason.
    An id holding "/" went into the API path unescaped (``?game=../info`` fetched /api/info as
    the game) and left a blank page."""
    base, _ = server
    d = browser
    d.get(f"{base}/?game={gid}")
    wait(d, "!document.getElementById('lobby').hidden && "
            "document.getElementById('p-err').textContent", 30, "the lobby with a reason")
    assert js(d, "return document.getElementById('table-view').hidden")


def test_the_object_ball_line_stops_at_the_cushion(server, browser):
    """The aiming aid's line of the object ball is at most 0.25 m long and ends where its
    centre meets a cushion (it ran onto the rail for a ball near one)."""
    base, _ = server
    d = browser
    d.get(base + "/")
    wait(d, "typeof window.ghostLine === 'function'", 30, "the page")
    geo = {"R": 0.03075, "length": 2.1, "width": 1.05}
    obstacle = {"x": 0.0, "y": -0.45, "r": 2 * 0.03075, "ball": True}
    # the cue ball straight at a ball 45 mm from the -y cushion line (y = -0.525 + R)
    out = js(d, "return window.ghostLine(arguments[0], [0, 0], -90, [arguments[1]]);",
             geo, obstacle)
    x1, y1 = out["after"][0], out["after"][1]
    assert y1 >= -geo["width"] / 2 + geo["R"] - 1e-9, out
    assert abs(x1) < 1e-9
    # in open cloth it keeps its 0.25 m
    free = js(d, "return window.ghostLine(arguments[0], [-0.6, 0], 0, [arguments[1]]);", geo,
              {"x": 0.0, "y": 0.0, "r": 2 * 0.03075, "ball": True})
    assert abs(free["after"][0] - 0.25) < 1e-9
