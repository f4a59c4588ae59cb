"""The web app: a FastAPI server that owns every game and serves the page (no build step).

The browser only draws and sends strikes; the server keeps the state, runs the physics and the
referee (through :mod:`cuegym.play.session`), lets agents think off the event loop and saves
every game after every shot. Endpoints (JSON; errors are ``{"detail": "<why>"}``):

======  ======================================  =============================================
GET     /                                        the page
GET     /api/info                                games, agents, noise presets, defaults
GET     /api/geometry/{game}?table=              table geometry for drawing (a table config)
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

:func:`create_app` assembles three routers (``page_router``: the page, info, geometry;
``games_router``: a game's start, view and moves; ``replays_router``: saved records and
replays); the routes get this app's games and the game in the path through dependencies.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, FastAPI, Request, params
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from cuegym.configs import load_json
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
        self._listed: dict[int, dict] = {}  # per record folder: record.list_records's known
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

    def save(self, g: LiveGame) -> str | None:
        """Write ``g``'s record; the reason when it could not be written (a full disk, a folder
        that cannot be made), else None. The game has already changed, so a failed save is
        reported with the answer rather than as an error that would hide the played shot."""
        if self.save_dir is None or g.mode != "play":
            return None
        try:
            record.save(g, self.save_dir)
        except OSError as e:
            why = f"the game could not be saved to {self.save_dir}: {e.strerror or e}"
            print(f"cuegym play: {why}", file=sys.stderr, flush=True)
            return why
        return None

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
        """The records of every folder together, newest first (a tournament's records are
        not pushed behind every game played since), each file once (a folder named twice, or
        one holding another, lists it under the first)."""
        out, seen = [], set()
        for k, d in enumerate(self.record_dirs):
            for r in record.list_records(d, self._listed.setdefault(k, {})):
                path = (d / r["name"]).resolve()
                if path not in seen:
                    seen.add(path)
                    out.append({**r, "name": f"{k}:{r['name']}", "folder": str(d)})
        out.sort(key=lambda r: r["saved"], reverse=True)  # stable: a tie keeps folder order
        return out


# --- plumbing shared by the routes: errors, request bodies, this app's games -----------------


async def play_error(_: Request, exc: PlayError) -> JSONResponse:
    """A refused request: ``{"detail": why}`` with 404 (NotFound), 409 (Conflict) or 400."""
    code = 404 if isinstance(exc, NotFound) else 409 if isinstance(exc, Conflict) else 400
    return JSONResponse({"detail": clip(str(exc))}, status_code=code)


async def server_error(_: Request, exc: Exception) -> JSONResponse:
    """A bug (anything but a PlayError): 500 with ``{"detail": ...}``, which the page shows,
    instead of plain text; the traceback still goes to the server's log."""
    return JSONResponse({"detail": clip(f"internal error: {type(exc).__name__}: {exc}")},
                        status_code=500)


async def read_body(request: Request) -> bytes:
    """The request's body; PlayError past MAX_BODY bytes, by its Content-Length or, without
    one, as soon as the stream passes the limit (the rest is never read)."""
    size = request.headers.get("content-length", "")
    if size.isascii() and size.isdigit() and (len(size) > 12 or int(size) > MAX_BODY):
        raise PlayError(f"request body too large ({size} bytes; at most {MAX_BODY})")
    chunks, n = [], 0
    async for chunk in request.stream():  # not request.body(): refuse before holding it all
        n += len(chunk)
        if n > MAX_BODY:
            raise PlayError(f"request body too large (over {MAX_BODY} bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_object(raw: bytes, allowed: frozenset[str]) -> dict:
    """``raw`` as a JSON object (an empty body: ``{}``) with keys from ``allowed`` only;
    PlayError otherwise."""
    try:
        data = load_json(raw or b"{}")
    except ValueError as e:  # bad JSON or UTF-8, a key given twice, a 4300-digit integer
        raise PlayError(f"malformed JSON: {e}") from None
    except RecursionError:
        raise PlayError("malformed JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise PlayError(f"the request body must be a JSON object, got {type(data).__name__}")
    session.check_plain_json(data, "body")
    extra = sorted(set(data) - allowed)
    if extra:
        raise PlayError(f"unknown key(s) {extra}; allowed: {sorted(allowed)}")
    return data


def json_body(*allowed: str) -> params.Depends:
    """A dependency: the request's JSON object, with only the keys ``allowed``.

    Read by hand rather than as a pydantic body so that every refusal is a PlayError
    (400 with our message, not 422) and the size limit holds while streaming."""
    keys = frozenset(allowed)

    async def body(request: Request) -> dict:
        # a browser sends a POST from any web page to this server without asking it first
        # when the body is text or a form (no CORS preflight): such a page must not start
        # games, move or load models. Browsers name the page's origin on every such POST.
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
            raise PlayError(f"a request from another site ({origin!r}) is refused")
        raw = await read_body(request)
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if (raw or kind) and kind != "application/json":
            raise PlayError(f"send the request body as JSON (Content-Type: application/json), "
                            f"got Content-Type {kind or 'none'!r}")
        return parse_object(raw, keys)

    return Depends(body)


async def games_of(request: Request) -> Games:  # async: no worker thread for a lookup
    """This app's games."""
    return request.app.state.games


GamesDep = Annotated[Games, Depends(games_of)]


async def game_of(gid: str, games: GamesDep) -> LiveGame:
    """The game ``gid`` in the path (NotFound when the server does not keep it)."""
    return games.get(gid)


GameDep = Annotated[LiveGame, Depends(game_of)]
NewGameBody = Annotated[dict, json_body("game", "options", "seats", "noise", "seed")]
MoveBody = Annotated[dict, json_body("seat", "move", "shot")]
AgentBody = Annotated[dict, json_body("shot")]
ChoiceBody = Annotated[dict, json_body("seat", "answer", "shot", "question")]
ReplayBody = Annotated[dict, json_body("name", "record")]


async def play_and_save(games: Games, g: LiveGame, play: Callable[..., dict],
                        *args: Any) -> dict:
    """``play(*args)``'s answer; it runs off the event loop (agents think, the physics
    simulates) and the game is saved after it."""
    out = await run_in_threadpool(play, *args)
    return _saved(out, await run_in_threadpool(games.save, g))


def _saved(out: dict, why: str | None) -> dict:
    """``out`` with ``"save_error"`` when the game could not be saved (it is played all the
    same: the answer must show the shot, and the next save may work)."""
    return out if why is None else {**out, "save_error": why}


# --- the page and what it draws with before any game -------------------------------------------

page_router = APIRouter()


@page_router.api_route("/", methods=["GET", "HEAD"])
def index() -> FileResponse:
    """The page (static/index.html), never cached."""
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})


@page_router.get("/api/info")
def info() -> dict:
    """What the lobby offers: ``{games, agents, noises, limits, defaults}``."""
    return {"games": list(session.GAMES), "agents": list(session.AGENT_NAMES),
            "noises": list(session.NOISES),
            "limits": {"V0": [session.V0_MIN, session.V0_MAX], "theta": [0, session.THETA_MAX],
                       "phi": [-session.PHI_MAX, session.PHI_MAX], "spin": session.SPIN_MAX},
            # the tables each game is played on (the option "table"), its default first
            "tables": {game: [_table_info(t) for t in session.tables_of(game)]
                       for game in session.GAMES},
            # deciding_openers: a duo best-of-3 only (G-31)
            "defaults": {"keglebillard": {"players": 2, "distance": 70,
                                          "table": session.DEFAULT_TABLES["keglebillard"]},
                         "golfbillard": {"duo": False, "match": "single",
                                         "deciding_openers": [0, 0]}}}


#: What the lobby calls a table config (the rules' names for the keglebillard tables, K-1).
TABLE_LABELS = {"keglebillard": "kleinmatch", "keglebillard-helmatch": "helmatch"}


def _table_info(name: str) -> dict:
    """``{name, label, length, width}`` of a table config, for the lobby's choice."""
    from cuegym.configs import load_table

    t = load_table(name)
    return {"name": name, "label": TABLE_LABELS.get(name, name), "length": float(t.length),
            "width": float(t.width)}


@page_router.get("/api/geometry/{game}")
def geometry(game: str, table: str | None = None) -> dict:
    """The table of ``game`` for drawing (cushions, pockets or goals, spots): its default
    table, or ``?table=`` one of the tables it is played on (keglebillard:
    ``keglebillard-helmatch``); 404 for an unknown game, 400 naming a table it is not played
    on."""
    if game not in session.GAMES:
        raise NotFound(f"unknown game {game!r}; use one of {list(session.GAMES)}")
    if table is None:
        table = session.DEFAULT_TABLES[game]
    return _geometry(game, session.check_table(game, table))


@functools.lru_cache(maxsize=8)
def _geometry(game: str, table: str) -> dict:
    """The drawing of a table (built once: a config does not change while the server runs)."""
    opts = {"table": table} if game == "keglebillard" else {}
    return session.make_table(game, opts).geometry()


# --- games: start one, read it, play it --------------------------------------------------------

games_router = APIRouter(prefix="/api/games")


@games_router.post("")
async def new_game(games: GamesDep, d: NewGameBody) -> dict:
    """A new game from ``{game, options, seats, noise, seed}`` (``game`` and ``seats``
    required; noise ``tournament`` by default). Returns ``{"view": ...}``."""
    if "game" not in d:
        raise PlayError("'game' is required (keglebillard or golfbillard)")
    g = await run_in_threadpool(LiveGame, d["game"], d.get("options"), d.get("seats"),
                                d.get("noise", "tournament"), d.get("seed"))
    games.add(g)
    return _saved(g.result(None), await run_in_threadpool(games.save, g))


@games_router.get("/{gid}")
def view(g: GameDep) -> dict:
    """The game's view: state, seats, whose turn, shots played, last call."""
    return g.view()


@games_router.post("/{gid}/move")
async def move(g: GameDep, games: GamesDep, d: MoveBody) -> dict:
    """A person's move ``{seat, move, shot}`` (``shot``, optional: the shots the client has
    seen, so that a stale move is refused). Returns ``{"view"}`` with ``"shot"`` (the shot
    played) or ``"pending"`` (the opponent's question), or neither (one opening stroke)."""
    if "move" not in d or "seat" not in d:
        raise PlayError("a move needs 'seat' (who plays) and 'move'")
    return await play_and_save(games, g, g.human_move, d["seat"], d["move"], d.get("shot"))


@games_router.post("/{gid}/agent")
async def agent(g: GameDep, games: GamesDep, d: AgentBody) -> dict:
    """The agent(s) due to move do so; takes ``{shot}`` (optional, as for a move). Returns
    what a move does, with ``"think_ms"``."""
    return await play_and_save(games, g, g.agent_move, d.get("shot"))


@games_router.post("/{gid}/choice")
async def choice(g: GameDep, games: GamesDep, d: ChoiceBody) -> dict:
    """A person's answer ``{seat, answer, shot, question}`` to the pending question
    (golfbillard: a penalty spot ``{"spot": k}`` or a ball ``{"pick": id}``; ``shot``,
    optional, as for a move; ``question``, optional, the ``number`` of the question answered:
    one stroke can ask several, and an answer to one already answered is refused with 409).
    Returns ``{"view"}`` with ``"shot"`` or, for a further question, ``"pending"``."""
    return await play_and_save(games, g, g.answer, d.get("seat"), d.get("answer"),
                               d.get("shot"), d.get("question"))


@games_router.get("/{gid}/placement")
def placement(g: GameDep, x: str = "", y: str = "") -> dict:
    """Keglebillard: may the red be placed at ``x``, ``y`` (metres)? ``{"ok", "reason"}``."""
    if g.game != "keglebillard":
        raise PlayError("placement applies to keglebillard only")
    try:
        xy = session.parse_xy([float(x), float(y)], "x, y")
    except ValueError:
        raise PlayError(f"x and y must be finite numbers in metres, got {x!r}, {y!r}") \
            from None
    why = g.table.placement_error(g.state, xy)
    return {"ok": why is None, "reason": why}


@games_router.get("/{gid}/shots/{k}")
def shot(g: GameDep, k: str) -> dict:
    """Shot ``k`` (from 0): states before and after, strikes, outcome, call, animation."""
    if not (k.isascii() and k.isdigit()):  # int() takes "+0", " 0", "1_0"
        raise PlayError(f"a shot number is written with the digits 0-9, got {k!r}")
    digits = k.lstrip("0") or "0"
    if len(digits) > 9:  # no game has that many shots (and no huge int() of a long text)
        raise NotFound(f"shot {digits[:12]}{'...' if len(digits) > 12 else ''} does not exist: "
                       f"the game has {len(g.shots)} shots")
    k = int(digits)
    if not 0 <= k < len(g.shots):
        raise NotFound(f"shot {k} does not exist: the game has {len(g.shots)} shots")
    return g.shot(k)


@games_router.get("/{gid}/record")
def get_record(g: GameDep) -> JSONResponse:
    """The game's record (:mod:`cuegym.play.record`) as a JSON download."""
    return JSONResponse(record.record_of(g), headers={
        "Content-Disposition": f'attachment; filename="{g.game}_{g.id}.json"'})


# --- saved records and replays -----------------------------------------------------------------

replays_router = APIRouter()


@replays_router.get("/api/records")
def records(games: GamesDep) -> list:
    """The saved records listed for replay, all folders' together, newest first: ``[{name,
    folder, saved, game, seats, shots, over, meta}]`` (``table`` too off the default table)."""
    return games.records()


@replays_router.post("/api/replays")
async def replay(games: GamesDep, d: ReplayBody) -> dict:
    """A replay of ``{name}`` (a saved record, as listed by /api/records) or ``{record}`` (a
    record's JSON), every shot re-simulated and checked. Returns ``{"view": ...}``."""
    if ("name" in d) == ("record" in d):
        raise PlayError("give exactly one of 'name' (a saved record) or 'record' (its JSON)")
    if "name" in d:
        path = games.record_path(d["name"])
        g = await run_in_threadpool(record.load_file, path)
    else:
        g = await run_in_threadpool(record.load_record, d["record"], "uploaded")
    games.add(g)
    return g.result(None)


class RevalidatedStatic(StaticFiles):
    """The page's scripts and style sheet, revalidated on every load (``no-cache``: a 304 by
    ETag when unchanged): cached heuristically, a browser would run the old scripts with the new
    index.html after an upgrade."""

    async def get_response(self, path: str, scope: Any) -> Response:
        response = await super().get_response(path, scope)
        response.headers["Cache-Control"] = "no-cache"
        return response


#: The names this machine is reached by: the Host header of every request must be one of them
#: (or of the names ``create_app`` is given).
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


def create_app(save_dir: str | Path | None = "runs/play",
               record_dirs: list[str | Path] | None = None,
               allowed_hosts: tuple[str, ...] = LOCAL_HOSTS) -> FastAPI:
    """The FastAPI app. ``save_dir``: where every game's record is written (None: nowhere);
    ``record_dirs``: folders listed for replay (default: ``save_dir`` and ``runs/eval``);
    ``allowed_hosts``: the host names requests may be addressed to (``"*"``: any). A page of
    another site whose name an attacker points at 127.0.0.1 (DNS rebinding) sends its own name
    as the Host and as the Origin, which the Origin check alone would let through: it could
    start games and load any model file on this disk."""
    sd = Path(save_dir) if save_dir is not None else None
    dirs = [Path(d) for d in record_dirs] if record_dirs is not None else \
        ([sd] if sd is not None else []) + [Path("runs/eval")]
    app = FastAPI(title="cuegym play", docs_url=None, redoc_url=None,
                  exception_handlers={PlayError: play_error, Exception: server_error})
    hosts = frozenset(h.lower().strip("[]") for h in allowed_hosts)

    @app.middleware("http")
    async def known_host(request: Request, call_next: Callable) -> Any:
        host = urlsplit("//" + request.headers.get("host", "")).hostname or ""
        if "*" not in hosts and host not in hosts:
            return JSONResponse({"detail": clip(
                f"this server answers requests to {sorted(hosts)}, not to host {host!r} (start "
                "it with --allowed-host to add a name)")}, status_code=400)
        return await call_next(request)

    app.state.games = Games(sd, dirs)
    app.include_router(page_router)
    app.mount("/static", RevalidatedStatic(directory=STATIC), name="static")
    app.include_router(games_router)
    app.include_router(replays_router)
    return app


def warm_up(agents: tuple[str, ...] = ("pretrained",)) -> None:
    """Load the agents and compile the physics once (numba caches to disk), so that the first
    shot of the first game is not slow."""
    import numpy as np

    for game in session.GAMES:
        t = session.make_table(game)
        for spec in agents:
            ag = session.get_agent(spec, game, t)
            session.agents_move(t, [ag, ag], t.new_state(), session.noise_of("none"),
                                np.random.default_rng(0))
