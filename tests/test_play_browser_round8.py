"""cuegym.play in a real browser, eighth audit round: the lobby's Replay list shows every
folder's records together, newest first, 100 at a time with "Show more"; the page's aim stays
within the range the server takes.

Headless Chromium through Selenium as in ``test_play_browser.py`` (its browser and helpers).
Skipped when Chromium, chromedriver or Selenium are missing.
"""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from browser_support import HAVE_SELENIUM, needs_browser  # noqa: E402

pytestmark = needs_browser

if HAVE_SELENIUM:
    from test_play_browser import browser, js, start_server, wait  # noqa: F401


def _rec(path, names, t, meta=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "format": "cuegym-game", "version": 1, "game": "keglebillard",
        "seats": [{"name": n, "kind": "human", "agent": None} for n in names],
        "shots": [], "final": {"game_over": True}, "meta": meta or {}}))
    os.utime(path, (t, t))


ROWS = "Array.from(document.querySelectorAll('#records .rec')).map(e => e.textContent)"


def test_the_replay_list_shows_every_record_newest_first_100_at_a_time(browser, tmp_path):
    """docs/play.md: Replay lists the records in --save-dir and in runs/eval. Failed before:
    the page showed the first 100 entries of /api/records, which listed --save-dir whole
    first, so with 130 games played neither tournament record below was shown."""
    from cuegym.play.server import create_app

    play, ev = tmp_path / "play", tmp_path / "eval" / "keglebillard" / "games"
    for k in range(130):
        _rec(play / f"g{k:03d}.json", ["You", f"geometric {k}"], 1e9 + 10 + k)
    _rec(ev / "new.json", ["pretrained", "geometric"], 2e9, {"tournament": "new_pair"})
    _rec(ev / "old.json", ["pretrained", "random"], 1e9, {"tournament": "old_pair"})
    srv, th, base = start_server(create_app(save_dir=play, record_dirs=[play, ev.parents[1]]))
    d = browser
    try:
        d.get(base + "/")
        wait(d, "document.querySelectorAll('#records .rec').length > 0", 30, "the records")
        rows = js(d, f"return {ROWS}")
        assert len(rows) == 100 and "tournament new_pair" in rows[0], rows[:2]
        assert "geometric 129" in rows[1] and "geometric 31" in rows[-1]
        more = d.find_element("id", "records-more")
        assert more.is_displayed() and more.text == "Show the other 32"
        js(d, "document.getElementById('records-more').click()")
        rows = js(d, f"return {ROWS}")
        assert len(rows) == 132 and "tournament old_pair" in rows[-1], rows[-2:]
        assert not more.is_displayed()
        # the aim the page sends: in (-180, 180], within the server's [-360, 360]
        assert js(d, "return [wrapDeg(180), wrapDeg(-180), wrapDeg(540.5), wrapDeg(-1e9)]") \
            == [180, 180, -179.5, 80]
    finally:
        srv.should_exit = True
        th.join(10)
