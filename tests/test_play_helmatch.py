"""cuegym.play on the other keglebillard table: the helmatch (``keglebillard-helmatch``, 2.84 x
1.42 m; the kleinmatch, ``keglebillard``, is the default; docs/rules_keglebillard.md).

Before: the web table played keglebillard on the kleinmatch only. ``make_table`` refused the
option ``table``, so the lobby could not start a helmatch game, the page drew the kleinmatch
whatever the game, and ``experiments/evaluate.py --table keglebillard-helmatch --save-games``
refused to write records (the web table could not replay them). Now the option ``table`` plays
on that table (its size, pockets, pins and spots from configs/tables), a game record names it,
``/api/geometry/keglebillard?table=`` draws it, agents are made for it, the lobby offers it and
a bad name is a 400 naming it. Also the shot call with several skæve recipients (K-17: each
gets the full skæve) says "each".

The browser tests (headless Chromium through Selenium, as ``test_play_browser.py``) are skipped
when Chromium, chromedriver or Selenium are missing; the API tests always run. Screenshots go to
``CUEGYM_SCREENSHOTS_EXTRA``, else to a temporary folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from browser_support import HAVE_SELENIUM, get, needs_browser

from cuegym.configs import load_table
from cuegym.play import record, session
from cuegym.play.call import kegle_call
from cuegym.play.session import PlayError

if HAVE_SELENIUM:
    from test_play_browser import (  # noqa: F401
        browser,
        js,
        my_turn,
        set_range,
        start_server,
        state,
        text,
        wait,
    )

HELMATCH = "keglebillard-helmatch"


@pytest.fixture
def client(tmp_path):
    from fastapi.testclient import TestClient

    from cuegym.play.server import create_app

    return TestClient(create_app(save_dir=tmp_path / "games", record_dirs=[tmp_path / "games"]),
                      base_url="http://localhost")


# ---------------------------------------------------------------------------------------------
# the option (API)
# ---------------------------------------------------------------------------------------------


def test_make_table_plays_on_the_helmatch_table_from_its_config():
    """The table, the referee, the states and the drawing are the helmatch config's; the
    option is in the game's options (so in its record) only when it is not the default."""
    t = session.make_table("keglebillard", {"table": HELMATCH, "players": 3, "distance": 40})
    assert t.options == {"players": 3, "distance": 40, "table": HELMATCH}
    assert session.make_table("keglebillard", t.options).options == t.options
    assert t.arena.table.name == HELMATCH and t.arena.n_players == 3
    st = t.new_state()
    assert st.table == HELMATCH and t.state_json(st)["balls"]["white"] == [-0.71, 0.0]
    spec = load_table(HELMATCH)
    geo = t.geometry()
    assert geo["table"] == HELMATCH
    assert (geo["length"], geo["width"]) == (spec.length, spec.width) == (2.84, 1.42)
    assert geo["pockets"] == [[p.x, p.y, p.radius] for p in spec.pockets]
    assert geo["pin_spots"] == [list(p) for p in spec.pin_spots]
    assert geo["white_spots"] == [[-0.71, 0.0], [0.71, 0.0]] and geo["salvo_x"] == -0.71
    # the default table: as before, no "table" in the options
    k = session.make_table("keglebillard", {"table": "keglebillard"})
    assert k.options == {"players": 2, "distance": 70} and k.geometry()["length"] == 2.10
    # a move on the helmatch: a placement off the kleinmatch's cloth is legal there
    assert t.placement_error(st, (-1.3, 0.6)) is None
    assert k.placement_error(k.new_state(), (-1.3, 0.6)) is not None


def test_agents_are_made_for_the_table_they_sit_at():
    """The per-setting agent cache: an agent at a helmatch game has the helmatch arena (one
    made for the kleinmatch would aim at its pockets and pins), one per table."""
    helm = session.make_table("keglebillard", {"table": HELMATCH})
    klein = session.make_table("keglebillard")
    a = session.get_agent("geometric", "keglebillard", helm)
    assert a.arena is helm.arena and a.arena.table.name == HELMATCH
    assert session.get_agent("geometric", "keglebillard", helm) is a  # cached
    b = session.get_agent("geometric", "keglebillard", klein)
    assert b is not a and b.arena.table.name == "keglebillard"
    import numpy as np

    st = helm.new_state()
    played = session.agents_move(helm, [a, a], st, session.noise_of("none"),
                                 np.random.default_rng(0))
    assert played.state.table == HELMATCH and played.outcome["played"]


@pytest.mark.parametrize("options, needle", [
    ({"table": "helmatch"}, "unknown keglebillard table 'helmatch'; use one of "
                            f"['keglebillard', '{HELMATCH}']"),
    ({"table": "golfbillard"}, "unknown keglebillard table 'golfbillard'"),
    ({"table": 7}, "unknown keglebillard table 7"),
    ({"table": ["keglebillard"]}, "unknown keglebillard table ['keglebillard']"),
])
def test_a_bad_table_is_a_400_naming_it(client, options, needle):
    r = client.post("/api/games", json={"game": "keglebillard", "options": options,
                                        "seats": [{"kind": "human"}, {"kind": "human"}]})
    assert r.status_code == 400 and needle in r.json()["detail"], r.text


def test_golfbillard_has_its_one_table_and_the_geometry_serves_each_table(client):
    r = client.post("/api/games", json={"game": "golfbillard", "options": {"table": HELMATCH},
                                        "seats": [{"kind": "human"}, {"kind": "human"}]})
    assert r.status_code == 400
    assert f"table '{HELMATCH}': golfbillard is played on its one table" in r.json()["detail"]
    # the drawing of each table; without ?table= the game's default, as before
    k = client.get("/api/geometry/keglebillard").json()
    h = client.get(f"/api/geometry/keglebillard?table={HELMATCH}").json()
    assert (k["table"], k["length"], k["salvo_x"]) == ("keglebillard", 2.10, -0.525)
    assert (h["table"], h["length"], h["width"], h["salvo_x"]) == (HELMATCH, 2.84, 1.42, -0.71)
    assert h == session.make_table("keglebillard", {"table": HELMATCH}).geometry()
    assert client.get("/api/geometry/golfbillard?table=golfbillard").json()["length"] == 1.80
    for url, needle in ((f"/api/geometry/golfbillard?table={HELMATCH}", HELMATCH),
                        ("/api/geometry/keglebillard?table=nope", "'nope'")):
        r = client.get(url)
        assert r.status_code == 400 and needle in r.json()["detail"], r.text
    assert client.get(f"/api/geometry/snooker?table={HELMATCH}").status_code == 404
    # the lobby's choice: the tables of each game, the default first, with their sizes
    info = client.get("/api/info").json()
    assert info["tables"]["keglebillard"] == [
        {"name": "keglebillard", "label": "kleinmatch", "length": 2.10, "width": 1.05},
        {"name": HELMATCH, "label": "helmatch", "length": 2.84, "width": 1.42}]
    assert [t["name"] for t in info["tables"]["golfbillard"]] == ["golfbillard"]
    assert info["defaults"]["keglebillard"]["table"] == "keglebillard"


def test_a_helmatch_game_through_the_api_is_recorded_and_replays_on_it(client):
    """A person and an agent on the helmatch: the view and the record name the table, the
    agent plays there, and the record replays there (and not on the kleinmatch)."""
    r = client.post("/api/games", json={
        "game": "keglebillard", "options": {"table": HELMATCH}, "noise": "none", "seed": 5,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "agent", "agent": "geometric"}]})
    assert r.status_code == 200, r.text
    v = r.json()["view"]
    gid = v["id"]
    assert v["options"] == {"players": 2, "distance": 70, "table": HELMATCH}
    assert v["state"]["table"] == HELMATCH
    # a red placed where only the helmatch has cloth (x = -1.3: past the kleinmatch's end)
    assert client.get(f"/api/games/{gid}/placement?x=-1.3&y=0.6").json()["ok"]
    move = {"strike": {"V0": 2.5, "phi": 5.0}, "place": [-1.3, 0.0]}
    r = client.post(f"/api/games/{gid}/move", json={"seat": 0, "move": move, "shot": 0})
    assert r.status_code == 200, r.text
    if not r.json()["view"]["over"] and r.json()["view"]["awaiting"]["seat"] == 1:
        r = client.post(f"/api/games/{gid}/agent", json={"shot": 1})
        assert r.status_code == 200, r.text
    rec = client.get(f"/api/games/{gid}/record").json()
    assert rec["options"]["table"] == HELMATCH and len(rec["shots"]) >= 1
    assert all(s["after"]["table"] == HELMATCH for s in rec["shots"])
    g = record.load_record(rec)
    assert g.meta["verified"] and g.table.arena.table.name == HELMATCH
    listed = client.get("/api/records").json()
    assert [x.get("table") for x in listed] == [HELMATCH]
    rv = client.post("/api/replays", json={"name": listed[0]["name"]}).json()["view"]
    assert rv["mode"] == "replay" and rv["options"]["table"] == HELMATCH
    # the same record without the option: its states are on another table than the game's
    klein = {**rec, "options": {"players": 2, "distance": 70}}
    with pytest.raises(PlayError, match=f"the state is on table '{HELMATCH}', the game on "
                                        "'keglebillard'"):
        record.load_record(klein)


def test_skaeve_to_several_players_says_each_gets_it():
    """K-17: with three or more players every other player gets the full skæve; "skæve 6 to
    Bob, Cy" read as 6 shared between them."""
    o = {"shooter": 0, "played": True, "foul": True, "fouls": ["K-11"], "win": False,
         "shooter_points": 0, "skaeve": 6, "skaeve_to": [1, 2], "points": 0, "penalty": 6}
    names = ["Ann", "Bob", "Cy", "Di"]
    assert kegle_call(o, names)[0] == "Ann: foul — skæve 6 each to Bob and Cy (points 0 + " \
                                      "penalty 6)"
    assert kegle_call({**o, "skaeve_to": [1, 2, 3]}, names)[0].startswith(
        "Ann: foul — skæve 6 each to Bob, Cy and Di (")
    assert kegle_call({**o, "skaeve_to": [2]}, names)[0].startswith(  # one: no "each"
        "Ann: foul — skæve 6 to Cy (")
    unplayable = {**o, "played": False, "fouls": ["K-19"]}
    assert kegle_call(unplayable, names)[0] == ("Ann: K-19 the red cannot be placed there — "
                                                "no shot, skæve 6 each to Bob and Cy")


# ---------------------------------------------------------------------------------------------
# in the browser
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shots_dir(tmp_path_factory):
    path = Path(os.environ.get("CUEGYM_SCREENSHOTS_EXTRA") or tmp_path_factory.mktemp("helm"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def helm_server(tmp_path_factory):
    """The app with its saved games and a helmatch tournament's records (``evaluate.py
    --table keglebillard-helmatch --save-games 2``) listed for replay."""
    from cuegym.experiments.evaluate import main
    from cuegym.play.server import create_app

    save = tmp_path_factory.mktemp("games")
    ev = tmp_path_factory.mktemp("eval")
    assert main(["--game", "keglebillard", "--table", HELMATCH, "--agents", "geometric,random",
                 "--games", "2", "--save-games", "2", "--max-shots", "12", "--quiet",
                 "--out", str(ev)]) == 0
    app = create_app(save_dir=save, record_dirs=[save, ev / "games"])
    srv, th, base = start_server(app)
    yield base, app, ev / "games"
    srv.should_exit = True
    th.join(10)


def pixel_sum(d, xy, spread=1):
    """The brightest (r + g + b) of the table canvas's pixels within ``spread`` pixels of the
    row of table point ``xy`` (metres): a thin line is found whatever its rounding."""
    return js(d, "const [u, v] = window.cuegym.tv.px(arguments[0], arguments[1]); let best = 0;"
                 "for (let k = -arguments[2]; k <= arguments[2]; k++) {"
                 "  const p = window.cuegym.tv.ctx.getImageData(Math.round(u) + k, Math.round(v),"
                 "    1, 1).data; best = Math.max(best, p[0] + p[1] + p[2]); }"
                 "return best;", *xy, spread)


def no_js_errors(d):
    errs = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"]
    assert not errs, errs


@needs_browser
def test_a_helmatch_game_from_the_lobby_draws_the_big_table_plays_and_replays(helm_server,
                                                                             browser,
                                                                             shots_dir):
    base, app, _ = helm_server
    d = browser
    d.get(base + "/")
    d.get_log("browser")
    wait(d, "document.getElementById('p-seats').children.length === 2", 20, "the lobby")
    # the table choice: keglebillard's two tables, the kleinmatch by default; not for golf
    opts = js(d, "return Array.from(document.getElementById('p-table').options)"
                 ".map(o => [o.value, o.textContent])")
    assert opts == [["keglebillard", "kleinmatch (2.10 × 1.05 m)"],
                    [HELMATCH, "helmatch (2.84 × 1.42 m)"]]
    assert js(d, "return document.getElementById('p-table').value") == "keglebillard"
    js(d, "const g = document.getElementById('p-game'); g.value = 'golfbillard';"
          "g.dispatchEvent(new Event('change'));")
    assert not js(d, "return document.getElementById('p-table').offsetParent")  # hidden
    js(d, "const g = document.getElementById('p-game'); g.value = 'keglebillard';"
          "g.dispatchEvent(new Event('change'));")
    assert js(d, "return document.getElementById('p-table').offsetParent !== null")
    js(d, f"document.getElementById('p-table').value = '{HELMATCH}'")
    js(d, "document.getElementById('p-noise').value = 'none'")
    js(d, "const r = document.querySelectorAll('#p-seats .seat')[1];"
          "r.querySelector('.kind').value = 'agent'; r.querySelector('.agent').value = "
          "'geometric';")
    d.save_screenshot(str(shots_dir / "helmatch_lobby.png"))
    d.find_element("id", "p-start").click()
    wait(d, my_turn(d), 60, "my first turn")
    js(d, "document.getElementById('speed').value = '4'")
    gid = js(d, "return window.cuegym.view.id")
    g = app.state.games.get(gid)
    assert g.table.options == {"players": 2, "distance": 70, "table": HELMATCH}
    # the page draws the helmatch: its geometry, the title, its salvo line (x = -0.71, not the
    # kleinmatch's -0.525)
    geo = js(d, "return window.cuegym.geo")
    assert geo == session.make_table("keglebillard", {"table": HELMATCH}).geometry()
    assert text(d, "title") == "keglebillard (helmatch) · You vs geometric"
    assert "to 70 points · helmatch · noise none" in text(d, "scoreboard")
    assert state(d)["balls"]["white"] == [-0.71, 0.0]
    wait(d, "window.cuegym.placeOk === true", 10, "the default placement")
    # the red in hand behind the helmatch's salvo line
    assert js(d, "return window.cuegym.place") == pytest.approx([-0.86, 0.12])
    line, cloth = pixel_sum(d, (-0.71, 0.45)), pixel_sum(d, (-0.62, 0.45))
    klein = pixel_sum(d, (-0.525, 0.45))
    assert line > cloth + 60 and klein < cloth + 30, (line, cloth, klein)
    width = js(d, "return window.cuegym.tv.c.width")
    assert js(d, "return window.cuegym.tv.s") == pytest.approx(width / (2.84 + 0.15))
    d.save_screenshot(str(shots_dir / "helmatch_table.png"))
    # a shot: the red from behind the line at the far white, then the agent's
    set_range(d, "v0", 2.5)
    d.find_element("id", "shoot").click()
    wait(d, "window.cuegym.view.shots >= 1 && document.body.dataset.status !== 'animating' "
            "&& !window.cuegym.busy", 60, "the shot")
    assert text(d, "call")
    wait(d, "window.cuegym.view.shots >= 2 || window.cuegym.view.over", 90, "the agent's shot")
    wait(d, "document.body.dataset.status !== 'animating' && !window.cuegym.busy", 60,
         "the agent's animation")
    d.save_screenshot(str(shots_dir / "helmatch_after_shots.png"))
    assert all(s.after["table"] == HELMATCH for s in g.shots)
    assert any(s.seats == [1] for s in g.shots) or g.table.over(g.state)
    # the geometric agent at this game was made for the helmatch
    agent = session.get_agent("geometric", "keglebillard", g.table)
    assert agent.arena.table.name == HELMATCH
    # the record names the table and replays: from the lobby's list, drawn on the helmatch
    rec = get(base, f"/api/games/{gid}/record")
    assert rec["options"]["table"] == HELMATCH
    n = len(rec["shots"])
    d.get(base + "/")
    wait(d, "document.querySelectorAll('#records .rec').length >= 3", 20, "the records")
    rows = js(d, "return Array.from(document.querySelectorAll('#records .rec div'))"
                 ".map(e => e.firstChild.textContent)")
    assert "keglebillard (helmatch): You vs geometric" in rows, rows
    idx = rows.index("keglebillard (helmatch): You vs geometric")
    js(d, "document.querySelectorAll('#records .rec button')[arguments[0]].click()", idx)
    wait(d, "window.cuegym.view && window.cuegym.view.mode === 'replay' && "
            "document.body.dataset.status === 'idle'", 60, "the replay")
    assert js(d, "return window.cuegym.view.meta.verified")
    assert js(d, "return window.cuegym.geo.length") == 2.84
    assert text(d, "title") == "keglebillard (helmatch) · replay"
    js(d, "document.getElementById('speed').value = '4'")
    js(d, "if (document.getElementById('autoplay').checked) "
          "document.getElementById('autoplay').click()")
    for k in range(n):
        d.find_element("id", "next").click()
        wait(d, f"window.cuegym.shown === {k + 1} && !window.cuegym.anim", 60, f"shot {k + 1}")
        assert js(d, "return window.cuegym.displayState()") == rec["shots"][k]["after"]
    d.save_screenshot(str(shots_dir / "helmatch_replay.png"))
    no_js_errors(d)


@needs_browser
def test_a_helmatch_tournament_record_replays_and_agents_watched_on_helmatch(helm_server,
                                                                            browser,
                                                                            shots_dir):
    """``evaluate.py --table keglebillard-helmatch --save-games 2`` records open in the page
    on the helmatch and step to their recorded end; the Watch card plays two agents there."""
    base, app, games = helm_server
    d = browser
    d.get(base + "/")
    d.get_log("browser")
    wait(d, "document.querySelectorAll('#records .rec').length >= 2", 20, "the records")
    rows = js(d, "return Array.from(document.querySelectorAll('#records .rec div'))"
                 ".map(e => e.textContent)")
    tour = [k for k, r in enumerate(rows) if "tournament geometric_vs_random" in r]
    assert len(tour) == 2 and all(rows[k].startswith("keglebillard (helmatch): ")
                                  for k in tour), rows
    name = js(d, "return Array.from(document.querySelectorAll('#records .rec small'))"
                 ".map(e => e.textContent)")[tour[0]].split(" · ")[-1]
    rec = json.loads((games / name).read_text())
    assert rec["options"]["table"] == HELMATCH and rec["meta"]["table"] == HELMATCH
    js(d, "document.querySelectorAll('#records .rec button')[arguments[0]].click()", tour[0])
    wait(d, "window.cuegym.view && window.cuegym.view.mode === 'replay' && "
            "document.body.dataset.status === 'idle'", 60, "the replay")
    assert js(d, "return window.cuegym.geo.table") == HELMATCH
    assert js(d, "return window.cuegym.view.shots") == len(rec["shots"]) > 0
    d.find_element("id", "last").click()
    wait(d, f"window.cuegym.shown === {len(rec['shots'])}", 20, "the end")
    assert js(d, "return window.cuegym.displayState()") == rec["final"]
    d.save_screenshot(str(shots_dir / "helmatch_tournament_replay.png"))
    # the Watch card: two agents on the helmatch
    d.get(base + "/")
    wait(d, "document.getElementById('w-table').options.length === 2", 20, "the lobby")
    js(d, f"document.getElementById('w-table').value = '{HELMATCH}';"
          "document.getElementById('w-a0').value = 'geometric';"
          "document.getElementById('w-a1').value = 'random';"
          "document.getElementById('w-noise').value = 'none';")
    d.find_element("id", "w-start").click()
    wait(d, "window.cuegym.view && window.cuegym.view.shots >= 1", 90, "the agents' first shot")
    gid = js(d, "return window.cuegym.view.id")
    g = app.state.games.get(gid)
    assert g.table.options["table"] == HELMATCH
    assert js(d, "return window.cuegym.geo.length") == 2.84
    assert g.shots[0].after["table"] == HELMATCH
    # golfbillard has no table choice in the Watch card
    d.get(base + "/")
    wait(d, "document.getElementById('w-game') !== null && "
            "document.getElementById('w-table').options.length === 2", 20, "the lobby")
    js(d, "const g = document.getElementById('w-game'); g.value = 'golfbillard';"
          "g.dispatchEvent(new Event('change'));")
    assert js(d, "return document.getElementById('w-kegle-opts').hidden")
    no_js_errors(d)
