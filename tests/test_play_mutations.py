"""cuegym.play: seeded random mutations of valid moves and answers, both games.

Each request body is a legal move (the geometric agent's, for a person's seat) or a legal
penalty-spot / pick answer, with one or two values replaced by hostile ones (None, NaN text,
huge numbers, wrong types, extra keys) or removed. Whatever the mutation, the server answers
200 (the mutation was harmless) or a 4xx with a reason, never a 5xx, and a refused request
leaves the game exactly as it was. A longer run of the same idea found nothing either (about
4,000 mutated moves and answers per game); this keeps it from coming back.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402
from mutations import mutate  # noqa: E402

from cuegym.play import session  # noqa: E402
from cuegym.play.server import create_app  # noqa: E402


def _snapshot(c, gid):
    v = c.get(f"/api/games/{gid}").json()
    return json.dumps([v["state"], v["shots"], v["awaiting"], v.get("pending")], sort_keys=True)


def _legal(g, rng):
    """(url suffix, a legal body) for what the game waits for."""
    a = g.awaiting()
    if a["type"] == "choice":
        q = a["question"]
        key = "spot" if q["kind"] == "spot" else "pick"
        return "choice", {"seat": a["seat"], "answer": {key: rng.choice(q["options"])}}
    agent = session.get_agent("geometric", g.game)
    nrng = np.random.default_rng(rng.randrange(2**32))
    if a["type"] == "opening":
        seat = a["missing"][0]
        side = g.table.opening_seats(g.state).index(seat)
        move = g.table.agent_move(agent, g.state, nrng, side)
    else:
        seat = a["seat"]
        move = g.table.agent_move(agent, g.state, nrng)
    return "move", {"seat": seat, "move": move, "shot": len(g.shots)}


@pytest.mark.parametrize("game, options", [("keglebillard", {"players": 3, "distance": 70}),
                                           ("golfbillard", {"duo": False})])
def test_mutated_moves_and_answers_are_refused_or_played_never_500(tmp_path, game, options):
    app = create_app(save_dir=tmp_path)
    c = TestClient(app, raise_server_exceptions=False, base_url="http://localhost")
    seats = [{"kind": "human", "name": n} for n in ("A", "B", "C")[:3 if game == "keglebillard"
                                                                    else 2]]
    r = c.post("/api/games", json={"game": game, "options": options, "seats": seats,
                                   "noise": "tournament", "seed": 3})
    assert r.status_code == 200, r.text
    gid = r.json()["view"]["id"]
    g = app.state.games.get(gid)
    rng = random.Random(11)
    codes = {}
    for _ in range(12):  # legal requests played (each after up to 3 mutated ones)
        if g.awaiting()["type"] == "over":
            break
        kind, body = _legal(g, rng)
        for _ in range(3):
            bad = mutate(body, rng)
            if rng.random() < 0.5 and isinstance(bad, dict):
                bad = mutate(bad, rng)
            before = _snapshot(c, gid)
            # json.dumps writes NaN and Infinity as JavaScript does; the server must refuse them
            r = c.post(f"/api/games/{gid}/{kind}", content=json.dumps(bad),
                       headers={"content-type": "application/json"})
            codes[r.status_code] = codes.get(r.status_code, 0) + 1
            assert r.status_code < 500, (bad, r.text)
            if r.status_code == 200:  # harmless: it played
                break
            assert r.json()["detail"], bad
            assert _snapshot(c, gid) == before, (bad, r.json())
        else:
            r = c.post(f"/api/games/{gid}/{kind}", json=body)
            assert r.status_code == 200, (body, r.text)
    assert codes.get(400, 0) >= 10  # the mutations did reach the checks
