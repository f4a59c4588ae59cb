"""The web app: a FastAPI server that owns every game and serves the page (no build step).

The browser only draws and sends strikes; the server keeps the state, runs the physics and the
referee (through :mod:`cuegym.play.session`), lets agents think off the event loop and saves
every game after every shot. Endpoints (JSON; errors are ``{"detail": "<why>"}``):

======  ======================================  =============================================
GET     /                                        the page
GET     /api/info                                games, agents, noise presets, defaults
GET     /api/geometry/{game}                     table geometry for drawing
POST    /api/games                               new game ``{game, options, seats, noise, seed}``
GET     /api/games/{id}                          the game's view (state, seats, whose turn)
POST    /api/games/{id}/move                     a person's move ``{seat, move, shot}``
POST    /api/games/{id}/agent                    the agent(s) due to move do so ``{shot}``
POST    /api/games/{id}/choice                   a person's penalty-spot / pick answer
GET     /api/games/{id}/placement?x=&y=          can the red go there (K-19)? and why not
GET     /api/games/{id}/shots/{k}                shot k: states, strikes, outcome, call, motion
GET     /api/games/{id}/record                   the game record (JSON, re-simulatable)
GET     /api/records                             saved records (play games, tournaments)
POST    /api/replays                             open a record ``{name}`` or ``{record}``
======  ======================================  =============================================

Status codes: 400 a malformed or invalid request (bad JSON, NaN, out-of-range strike, illegal
placement), 404 an unknown game (id, or game type in /api/geometry) or shot or record, 409 valid
but not now (out of turn, an agent thinking, a replay, the game over). A refused request never
changes the game. The server keeps the MAX_GAMES most recent games in memory (finished games and
replays are dropped first); every played game is also saved to disk after every shot.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from cuegym.play import record, session
from cuegym.play.match import Conflict, LiveGame
from cuegym.play.session import PlayError

STATIC = Path(__file__).resolve().parent / "static"
MAX_GAMES = 200
MAX_BODY = 5_000_000
MAX_DETAIL = 2000


def clip(text: str) -> str:
    """An error message of at most about MAX_DETAIL characters: a huge bad value is shown by
    its start and end, not echoed whole."""
    if len(text) <= MAX_DETAIL:
        return text
    cut = len(text) - MAX_DETAIL
    return f"{text[:MAX_DETAIL - 500]} …[{cut} characters left out]… {text[-500:]}"


class NotFound(PlayError):
    """An unknown game, shot or record: HTTP 404."""


class Games:
    """The games of one server (one per browser tab), by id."""

    def __init__(self, save_dir: Path | None, record_dirs: list[Path]) -> None:
        self.save_dir = save_dir
        self.record_dirs = record_dirs
        self._games: dict[str, LiveGame] = {}
        self._lock = threading.Lock()

    def add(self, g: LiveGame) -> LiveGame:
        with self._lock:
            if len(self._games) >= MAX_GAMES:  # forget the oldest finished or replayed game
                old = min(self._games.values(), key=lambda x: (x.mode == "play" and not
                                                              x.table.over(x.state), x.created))
                del self._games[old.id]
            self._games[g.id] = g
        return g

    def get(self, gid: str) -> LiveGame:
        g = self._games.get(gid)
        if g is None:
            raise NotFound(f"unknown game id {gid!r}: the server keeps the {MAX_GAMES} most "
                           "recent games in memory, so this one was dropped for newer ones or the "
                           "server restarted (saved games can be opened as replays)")
        return g

    def save(self, g: LiveGame) -> None:
        if self.save_dir is not None and g.mode == "play":
            record.save(g, self.save_dir)

    def record_path(self, name: Any) -> Path:
        if not isinstance(name, str) or ":" not in name:
            raise PlayError(f"a record name is '<folder>:<path>' as listed by /api/records, got "
                            f"{name!r}")
        k, _, rel = name.partition(":")
        if not (k.isascii() and k.isdigit()) or len(k) > 6 or int(k) >= len(self.record_dirs):
            raise NotFound(f"unknown record folder in {name!r}")
        root = self.record_dirs[int(k)].resolve()
        try:
            p = (root / rel).resolve()
            found = p.is_relative_to(root) and p.suffix == ".json" and p.is_file()
        except (OSError, ValueError):  # a name too long, a NUL byte
            found = False
        if not found:
            raise NotFound(f"no saved record {name!r}")
        return p

    def records(self) -> list[dict]:
        out = []
        for k, d in enumerate(self.record_dirs):
            for r in record.list_records(d):
                out.append({**r, "name": f"{k}:{r['name']}", "folder": str(d)})
        return out


def create_app(save_dir: str | Path | None = "runs/play",
               record_dirs: list[str | Path] | None = None) -> FastAPI:
    """The FastAPI app. ``save_dir``: where every game's record is written (None: nowhere);
    ``record_dirs``: folders listed for replay (default: ``save_dir`` and ``runs/eval``)."""
    sd = Path(save_dir) if save_dir is not None else None
    dirs = [Path(d) for d in record_dirs] if record_dirs is not None else \
        ([sd] if sd is not None else []) + [Path("runs/eval")]
    games = Games(sd, dirs)
    app = FastAPI(title="cuegym play", docs_url=None, redoc_url=None)
    app.state.games = games

    @app.exception_handler(PlayError)
    async def _play_error(_: Request, exc: PlayError) -> JSONResponse:
        code = 404 if isinstance(exc, NotFound) else 409 if isinstance(exc, Conflict) else 400
        return JSONResponse({"detail": clip(str(exc))}, status_code=code)

    async def body(request: Request, allowed: set[str]) -> dict:
        size = request.headers.get("content-length", "")
        if size.isascii() and size.isdigit() and (len(size) > 12 or int(size) > MAX_BODY):
            raise PlayError(f"request body too large ({size} bytes; at most {MAX_BODY})")
        chunks, n = [], 0
        async for chunk in request.stream():  # stop reading at the limit
            n += len(chunk)
            if n > MAX_BODY:
                raise PlayError(f"request body too large (over {MAX_BODY} bytes)")
            chunks.append(chunk)
        raw = b"".join(chunks)
        try:
            data = json.loads(raw or b"{}")
        except ValueError as e:  # bad JSON or UTF-8, an integer of more than 4300 digits
            raise PlayError(f"malformed JSON: {e}") from None
        except RecursionError:
            raise PlayError("malformed JSON: nested too deeply") from None
        if not isinstance(data, dict):
            raise PlayError(f"the request body must be a JSON object, got {type(data).__name__}")
        extra = sorted(set(data) - allowed)
        if extra:
            raise PlayError(f"unknown key(s) {extra}; allowed: {sorted(allowed)}")
        return data

    @app.get("/")
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/info")
    def info() -> dict:
        return {"games": list(session.GAMES), "agents": list(session.AGENT_NAMES),
                "noises": list(session.NOISES),
                "limits": {"V0": [session.V0_MIN, session.V0_MAX], "theta": [0, session.THETA_MAX],
                           "spin": session.SPIN_MAX},
                "defaults": {"keglebillard": {"players": 2, "distance": 70},
                             "golfbillard": {"duo": False, "match": "single"}}}

    @app.get("/api/geometry/{game}")
    def geometry(game: str) -> dict:
        if game not in session.GAMES:
            raise NotFound(f"unknown game {game!r}; use one of {list(session.GAMES)}")
        return session.make_table(game).geometry()

    @app.post("/api/games")
    async def new_game(request: Request) -> dict:
        d = await body(request, {"game", "options", "seats", "noise", "seed"})
        if "game" not in d:
            raise PlayError("'game' is required (keglebillard or golfbillard)")
        g = await run_in_threadpool(LiveGame, d["game"], d.get("options"), d.get("seats"),
                                    d.get("noise", "tournament"), d.get("seed"))
        games.add(g)
        await run_in_threadpool(games.save, g)
        return g.result(None)

    @app.get("/api/games/{gid}")
    def view(gid: str) -> dict:
        return games.get(gid).view()

    @app.post("/api/games/{gid}/move")
    async def move(gid: str, request: Request) -> dict:
        g = games.get(gid)
        d = await body(request, {"seat", "move", "shot"})
        if "move" not in d or "seat" not in d:
            raise PlayError("a move needs 'seat' (who plays) and 'move'")
        out = await run_in_threadpool(g.human_move, d["seat"], d["move"], d.get("shot"))
        await run_in_threadpool(games.save, g)
        return out

    @app.post("/api/games/{gid}/agent")
    async def agent(gid: str, request: Request) -> dict:
        g = games.get(gid)
        d = await body(request, {"shot"})
        out = await run_in_threadpool(g.agent_move, d.get("shot"))
        await run_in_threadpool(games.save, g)
        return out

    @app.post("/api/games/{gid}/choice")
    async def choice(gid: str, request: Request) -> dict:
        g = games.get(gid)
        d = await body(request, {"seat", "answer"})
        out = await run_in_threadpool(g.answer, d.get("seat"), d.get("answer"))
        await run_in_threadpool(games.save, g)
        return out

    @app.get("/api/games/{gid}/placement")
    def placement(gid: str, x: str = "", y: str = "") -> dict:
        g = games.get(gid)
        if g.game != "keglebillard":
            raise PlayError("placement applies to keglebillard only")
        try:
            xy = session.parse_xy([float(x), float(y)], "x, y")
        except ValueError:
            raise PlayError(f"x and y must be finite numbers in metres, got {x!r}, {y!r}") \
                from None
        why = g.table.placement_error(g.state, xy)
        return {"ok": why is None, "reason": why}

    @app.get("/api/games/{gid}/shots/{k}")
    def shot(gid: str, k: str) -> dict:
        g = games.get(gid)
        try:
            k = int(k)
        except ValueError:
            raise PlayError(f"a shot number is an integer, got {k!r}") from None
        if not 0 <= k < len(g.shots):
            raise NotFound(f"shot {k} does not exist: the game has {len(g.shots)} shots")
        return g.shot(k)

    @app.get("/api/games/{gid}/record")
    def get_record(gid: str) -> JSONResponse:
        g = games.get(gid)
        return JSONResponse(record.record_of(g), headers={
            "Content-Disposition": f'attachment; filename="{g.game}_{g.id}.json"'})

    @app.get("/api/records")
    def records() -> list:
        return games.records()

    @app.post("/api/replays")
    async def replay(request: Request) -> dict:
        d = await body(request, {"name", "record"})
        if ("name" in d) == ("record" in d):
            raise PlayError("give exactly one of 'name' (a saved record) or 'record' (its JSON)")
        if "name" in d:
            path = games.record_path(d["name"])
            g = await run_in_threadpool(record.load_file, path)
        else:
            g = await run_in_threadpool(record.load_record, d["record"], "uploaded")
        games.add(g)
        return g.result(None)

    return app


def warm_up(agents: tuple[str, ...] = ("pretrained",)) -> None:
    """Load the agents and compile the physics once (numba caches to disk), so that the first
    shot of the first game is not slow."""
    import numpy as np

    for game in session.GAMES:
        t = session.make_table(game)
        for spec in agents:
            ag = session.get_agent(spec, game)
            session.agents_move(t, [ag, ag], t.new_state(), session.noise_of("none"),
                                np.random.default_rng(0))
