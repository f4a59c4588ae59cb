"""Game records: every game as JSON, enough to re-simulate it bit for bit; and the recorder
``experiments/evaluate.py --save-games N`` uses to save tournament games in the same format.

A record (``"format": "cuegym-game", "version": 1``)::

    {"format", "version", "game", "options", "noise", "seed", "seats": [{name, kind, agent}],
     "start": <state JSON>,
     "shots": [{"seats": [k], "before": <state>, "intended": <move> | null,
                "executed": <move>, "choices": {"spots": [..], "pick": ..} | null,
                "outcome": <referee outcome>, "after": <state>}, ...],
     "final": <state>, "meta": {...}}

States and outcomes are the rules' JSON (docs/rules_keglebillard.md, docs/rules_golfbillard.md);
moves are those of :mod:`cuegym.play.session`. ``executed`` is the strike after execution noise:
re-playing it from ``before`` through the same physics and referee gives ``outcome`` and
``after`` exactly (:func:`load_record` checks every shot and refuses a record that differs).
``options`` are the web table's (:func:`cuegym.play.session.make_table`): the setting the
replay plays on; a tournament game off the default setting (``evaluate.py --table / --rules``)
also names it in ``meta.table`` and ``meta.rules`` (:func:`arena_setting`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cuegym.play import session
from cuegym.play.match import NAME_MAX, LiveGame, Shot, is_seed, seed_shown
from cuegym.play.session import PlayError

FORMAT = "cuegym-game"
VERSION = 1
#: The keys of a record and of its shots (what :func:`record_of` writes): a record with another
#: key (a misspelt "finall") is refused, not opened without what it meant to say.
RECORD_KEYS = frozenset({"format", "version", "game", "options", "noise", "seed", "seats",
                         "start", "shots", "final", "meta"})
SHOT_KEYS = frozenset({"index", "seats", "before", "intended", "executed", "choices",
                       "outcome", "after", "call"})
SEAT_KEYS = frozenset({"name", "kind", "agent"})


def _canon(obj: Any) -> Any:
    """JSON round trip (what a saved file gives back), for exact comparisons."""
    return json.loads(json.dumps(obj))


def record_of(g: LiveGame) -> dict:
    """The record of a live game; of a replay, the record it was opened from (its seed and
    meta as recorded: the replay's view adds ``source`` and ``verified`` to the meta)."""
    return {"format": FORMAT, "version": VERSION, "game": g.game, "options": g.table.options,
            "noise": g.noise_name, "seed": g.seed, "seats": [s.to_json() for s in g.seats],
            "start": g.start, "shots": [s.to_json(k, with_anim=False) | {"index": k}
                                        for k, s in enumerate(g.shots)],
            "final": g.table.state_json(g.state),
            "meta": g.meta if g.record_meta is None else g.record_meta}


def save(g: LiveGame, directory: str | Path) -> Path:
    """Write the game's record to ``directory/<id>.json`` (replaced after every shot)."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{g.id}.json"
    with g.save_lock:  # concurrent saves of one game: each its own temporary file, the newest last
        tmp = path.with_suffix(f".json.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(record_of(g)))
        tmp.replace(path)
    return path


def load_record(rec: Any, name: str = "") -> LiveGame:
    """A replay game from a record: every shot re-simulated from its ``before`` state with its
    executed strike; PlayError when the record is malformed or a shot does not re-simulate to
    the recorded outcome and state."""
    _check_record(rec)
    g, state = _replay_game(rec, name)
    shots = rec["shots"]
    if not isinstance(shots, list):
        raise PlayError("record.shots must be a list")
    for k, s in enumerate(shots):
        state = _replay_shot(g, state, k, s)
    if rec.get("final") is not None and \
            _canon(rec["final"]) != _canon(g.table.state_json(state)):
        raise PlayError("bad record: its 'final' state is not where its shots leave the game")
    g.state = state
    g.meta["verified"] = True
    return g


def _check_record(rec: Any) -> None:
    """PlayError unless ``rec`` has a record's format and version, its keys, no NaN, and a
    meta, seats and noise of the right types (a replay must not fail later on them)."""
    if not isinstance(rec, Mapping):
        raise PlayError(f"a game record must be a JSON object, got {type(rec).__name__}")
    if rec.get("format") != FORMAT or rec.get("version") != VERSION \
            or isinstance(rec.get("version"), bool):
        raise PlayError(f"not a cuegym game record (format {rec.get('format')!r}, version "
                        f"{rec.get('version')!r}; expected {FORMAT!r}, {VERSION})")
    for key in ("game", "seats", "start", "shots"):
        if key not in rec:
            raise PlayError(f"the record lacks {key!r}")
    session.check_plain_json(rec, "record")
    try:
        json.dumps(rec, allow_nan=False)
    except ValueError:
        raise PlayError("bad record: it holds NaN or Infinity, which JSON does not allow") \
            from None
    _check_keys(rec, RECORD_KEYS, "the record")
    for key in ("meta", "options"):
        if rec.get(key) is not None and not isinstance(rec[key], Mapping):
            raise PlayError(f"bad record: {key} must be an object, got {rec[key]!r}")
    if isinstance(rec["seats"], list):  # not a list: LiveGame says why
        for k, s in enumerate(rec["seats"]):
            if not isinstance(s, Mapping):
                raise PlayError(f"bad record: seats[{k}] must be an object {{name, kind, agent}}, "
                                f"got {s!r}")
            _check_keys(s, SEAT_KEYS, f"seats[{k}]")
            if s.get("kind") not in ("human", "agent"):
                raise PlayError(f"bad record: seats[{k}].kind must be 'human' or 'agent', got "
                                f"{s.get('kind')!r}")
            if s.get("agent") is not None and not isinstance(s.get("agent"), str):
                raise PlayError(f"bad record: seats[{k}].agent must be a string or null, got "
                                f"{s.get('agent')!r}")
    if rec.get("noise", "none") not in session.NOISES:
        raise PlayError(f"bad record: noise must be one of {list(session.NOISES)}, got "
                        f"{rec.get('noise')!r}")
    seed = rec.get("seed")
    if seed is not None and not is_seed(seed):
        raise PlayError(f"bad record: seed must be null or an integer >= 0 (below 2**128), got "
                        f"{seed_shown(seed)}")


def _check_keys(obj: Mapping, allowed: frozenset[str], where: str) -> None:
    """PlayError naming the keys of ``obj`` that are not ``allowed`` (``where``: whose)."""
    extra = sorted(set(obj) - allowed)
    if extra:
        raise PlayError(f"bad record: unknown key(s) {extra} in {where}; allowed: "
                        f"{sorted(allowed)}")


def _check_intended(game: str, intended: Any) -> None:
    """PlayError unless ``intended`` is null or a move as the app takes it (a person's move or
    an agent's, :func:`cuegym.play.session.move_strike`: strikes within the limits): a
    keglebillard ``{strike, place}``, a golfbillard ``{strike, ball}`` or an opening's
    ``{"strikes": [<side 0's move>, <side 1's>]}``. Its shape only: an agent's placement may
    be one the referee refuses (K-19), and the executed move is what is re-played."""
    if intended is None:
        return
    keys = ("place",) if game == "keglebillard" else ("ball",)
    moves = [intended]
    if game == "golfbillard" and isinstance(intended, Mapping) and "strikes" in intended:
        moves = intended["strikes"]
        if set(intended) != {"strikes"} or not isinstance(moves, list) or len(moves) != 2:
            raise PlayError(f"an opening is {{'strikes': [<side 0's move>, <side 1's>]}}, got "
                            f"{intended!r}")
    for m in moves:
        session.move_strike(m, game, keys)
        if game == "keglebillard" and m.get("place") is not None:
            session.parse_xy(m["place"], "place")
        if game == "golfbillard" and m.get("ball") is not None and \
                not isinstance(m["ball"], str):
            raise PlayError(f"ball must be a ball id such as 'w3', got {m['ball']!r}")


def _replay_game(rec: Mapping, name: str) -> tuple[LiveGame, Any]:
    """The replay game of a checked record, no shot played yet, and its start state."""
    seats = [{"name": s.get("name"), "kind": "human" if s.get("kind") == "human" else "agent",
              "agent": None if s.get("kind") == "human" else "random"}
             for s in rec["seats"]] if isinstance(rec["seats"], list) else rec["seats"]
    try:
        g = LiveGame(rec["game"], rec.get("options") or {}, seats, "none", seed=0,
                     replay_of={**dict(rec.get("meta") or {}), "source": name})
        # as recorded (a replay draws nothing): "save record" gives back the record opened
        g.noise_name = str(rec.get("noise", "none"))
        g.seed = rec.get("seed")
        g.record_meta = dict(rec.get("meta") or {})
        for k, s in enumerate(g.seats):  # the agents as recorded (files may be gone)
            s.agent = rec["seats"][k].get("agent")
        state = g.table.state_from_json(rec["start"])
    except (ValueError, TypeError, KeyError) as e:
        raise PlayError(f"bad record: {e}") from None
    g.start = g.table.state_json(state)
    return g, state


def _replay_shot(g: LiveGame, state: Any, k: int, s: Any) -> Any:
    """Re-play the record's shot ``k`` from ``state`` and add it to ``g.shots``; the state
    after it. PlayError when it cannot be re-played or gives another outcome or state."""
    try:
        if isinstance(s, Mapping):  # not an object: s["before"] says why below
            _check_keys(s, SHOT_KEYS, f"shot {k}")
        if _canon(g.table.state_json(state)) != _canon(s["before"]):
            raise PlayError(f"shot {k}: its 'before' state is not where shot {k - 1} left "
                            "the game")
        seats_k = s.get("seats") or []
        if not isinstance(seats_k, list) or not all(
                isinstance(x, int) and not isinstance(x, bool) and 0 <= x < len(g.seats)
                for x in seats_k):
            raise PlayError(f"shot {k}: seats must be a list of seat numbers "
                            f"0..{len(g.seats) - 1}, got {seats_k!r}")
        if seats_k and seats_k != g.shooters(state):
            raise PlayError(f"shot {k}: seats {seats_k} did not play it: "
                            f"{g.shooters(state)} were to play")
        for key in ("executed", "outcome", "after"):
            if key not in s:
                raise PlayError(f"shot {k} of the record lacks {key!r}")
        try:
            _check_intended(g.game, s.get("intended"))
        except PlayError as e:
            raise PlayError(f"shot {k}: intended must be a move object or null (a {g.game} "
                            f"move as played): {e}") from None
        try:
            res = g.table.replay(state, s["executed"], s.get("choices"))
        except PlayError as e:
            raise PlayError(f"shot {k} of the record cannot be re-played: {e}") from None
    except PlayError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError,
            OverflowError) as e:
        raise PlayError(f"shot {k} of the record cannot be re-played: {e}") from None
    after = g.table.state_json(res.state)
    if _canon(res.outcome) != _canon(s["outcome"]) or _canon(after) != _canon(s["after"]):
        raise PlayError(f"shot {k} re-simulates to a different outcome or state than "
                        "recorded (different physics or rules version?)")
    g.shots.append(Shot(seats=list(s.get("seats") or []), before=s["before"],
                        intended=s.get("intended"), executed=s["executed"],
                        choices=res.choices, outcome=res.outcome, after=after,
                        anim=res.anim, call=g.call(res.outcome, s["before"], after)))
    return res.state


def load_file(path: str | Path) -> LiveGame:
    p = Path(path)
    try:
        rec = json.loads(p.read_text())
    except (OSError, ValueError, RecursionError) as e:  # ValueError: bad JSON, UTF-8, digits
        raise PlayError(f"cannot read game record {p.name}: {type(e).__name__}: {e}") from None
    return load_record(rec, p.name)


def list_records(directory: str | Path, known: dict | None = None) -> list[dict]:
    """Saved records under ``directory`` (recursively), newest first: path relative to it,
    ``saved`` (when the file was last written, seconds since the epoch), game, seats' names,
    shots, over, meta, and ``table`` when the game was played on another table than its game's
    default (keglebillard ``keglebillard-helmatch``).

    ``known``: what an earlier call found in this folder (a dict, empty at first, that each
    call brings up to date): a file is read again only when its size or modification time has
    changed. The lobby lists every folder on every visit, and a folder of thousands of games
    would otherwise be parsed whole each time."""
    d = Path(directory)
    found: dict[Path, tuple[tuple[int, int], dict | None]] = {}
    if d.is_dir():
        for p in d.rglob("*.json"):
            try:
                st = p.stat()
            except OSError:  # removed since listed
                continue
            version = (st.st_mtime_ns, st.st_size)
            old = known.get(p) if known is not None else None
            found[p] = old if old is not None and old[0] == version else \
                (version, _entry(p, d))
    if known is not None:  # files gone are forgotten
        known.clear()
        known.update(found)
    listed = sorted(((ns, e) for (ns, _), e in found.values() if e is not None),
                    key=lambda x: x[0], reverse=True)
    return [{**e, "saved": ns / 1e9} for ns, e in listed]


def _entry(p: Path, d: Path) -> dict | None:
    """The listing of record file ``p`` under folder ``d`` (no ``saved``), or None when it is
    not a readable record (opening it says why)."""
    try:
        rec = json.loads(p.read_text())
        if not isinstance(rec, dict) or rec.get("format") != FORMAT:
            return None
        entry = {"name": str(p.relative_to(d)), "game": rec.get("game"),
                 "seats": [s.get("name") for s in rec.get("seats", [])],
                 "shots": len(rec.get("shots", [])), "over": _over(rec),
                 "meta": rec.get("meta") or {}}
        opts = rec.get("options")
        if isinstance(opts, dict) and opts.get("table") is not None:  # not the default
            entry["table"] = str(opts["table"])
        session.check_plain_json(entry, p.name)  # PlayError is a ValueError
        json.dumps(entry, allow_nan=False)
    except (OSError, ValueError, RecursionError, TypeError, AttributeError):
        return None
    return entry


def _over(rec: dict) -> bool:
    f = rec.get("final") or {}
    return bool(f.get("game_over")) or f.get("phase") == "over"


# ---------------------------------------------------------------------------------------------
# Tournament games (experiments/evaluate.py --save-games N)
# ---------------------------------------------------------------------------------------------


class RecordingArena:
    """Wraps an arena (``cuegym.agents.make_arena``) so that :func:`cuegym.agents.play_games`
    played through it leaves the executed strikes of its first ``n`` games.

    Games are told apart by their state objects: :meth:`new_states` hands out distinct ones and
    every state passed to ``step`` / ``opening`` maps to its game (the objects are kept alive).
    """

    def __init__(self, arena: Any, n: int) -> None:
        self.arena = arena
        self.n = int(n)
        self._game: dict[int, int] = {}
        self._keep: list = []
        self.moves: dict[int, list[tuple[Any, dict]]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.arena, name)

    def new_states(self, n: int, **seeds: Any) -> list:
        import copy

        states = [copy.copy(s) for s in self.arena.new_states(n, **seeds)]
        self._game = {}
        self._keep = []
        self.moves = {g: [] for g in range(min(self.n, len(states)))}
        for g, s in enumerate(states):
            self._track(s, g)
        return states

    def _track(self, s: Any, g: int) -> None:
        self._game[id(s)] = g
        self._keep.append(s)

    def step(self, states: Sequence[Any], strikes: Any) -> tuple[list, list]:
        rec, new = self.arena.step(states, strikes)
        ids = self.arena.table.ball_ids if self.arena.game == "golfbillard" else None
        for t, (s, s2) in enumerate(zip(states, new, strict=True)):
            g = self._game[id(s)]
            self._track(s2, g)
            if g in self.moves:
                cue = session.strike_json(strikes.cue[t])
                if ids is None:
                    p = strikes.place[t]
                    move = {"strike": cue, "place": None if s.ball_in_hand is None
                            else [float(p[0]), float(p[1])]}
                else:
                    move = {"strike": cue, "ball": ids[int(strikes.cue_ball[t])]}
                self.moves[g].append((s, move))
        return rec, new

    def opening(self, states: Sequence[Any], strikes0: Any, strikes1: Any) -> list:
        new = self.arena.opening(states, strikes0, strikes1)
        ids = self.arena.table.ball_ids
        for t, (s, s2) in enumerate(zip(states, new, strict=True)):
            g = self._game[id(s)]
            self._track(s2, g)
            if g in self.moves:
                move = {"strikes": [
                    {**session.strike_json(st.cue[t]), "ball": ids[int(st.cue_ball[t])]}
                    for st in (strikes0, strikes1)]}
                self.moves[g].append((s, move))
        return new


def arena_setting(arena: Any) -> dict:
    """The setting of a tournament arena (``cuegym.agents.make_arena``): ``{"table": <table
    config name>, "rules": {<the rule options that differ from the arena's default>}}``, what
    ``make_arena(game, rules, table=table)`` takes to play its games again (golfbillard's
    default is the arena's, ``match: single``)."""
    from cuegym.agents import make_arena

    arena = getattr(arena, "arena", arena)  # a RecordingArena: the arena it wraps
    ref = make_arena(arena.game).rules.as_dict()
    rules = {k: v for k, v in arena.rules.as_dict().items() if v != ref.get(k)}
    return _canon({"table": arena.table.name, "rules": rules})


def is_default_setting(setting: Mapping) -> bool:
    """``setting`` (:func:`arena_setting`) is its game's default: the shipped table and rules."""
    return setting["table"] in ("keglebillard", "golfbillard") and not setting["rules"]


def web_options(arena: Any) -> dict:
    """The options of the web table (:func:`cuegym.play.session.make_table`) for a tournament
    arena's setting: keglebillard ``players`` and ``distance``, golfbillard ``duo`` and
    ``match`` (as on the default setting), every other rule option that differs from the
    default under its own name (``deciding_openers``), and a table other than the game's own
    as ``table``. The web table must take them all: :func:`web_table` checks."""
    arena = getattr(arena, "arena", arena)
    setting = arena_setting(arena)
    if arena.game == "keglebillard":
        opts: dict[str, Any] = {"players": int(arena.n_players),
                                "distance": int(arena.rules.distance)}
        if setting["table"] != "keglebillard":
            opts["table"] = setting["table"]
    else:
        opts = {"duo": bool(arena.rules.duo), "match": str(arena.rules.match)}
    for k, v in setting["rules"].items():
        opts.setdefault(k, v)
    return opts


def web_table(arena: Any) -> tuple[dict, Any]:
    """``(options, table)``: the web table (:func:`cuegym.play.session.make_table`) that
    replays a tournament arena's games, on the arena's table and rules (keglebillard on
    either of its tables); PlayError naming the setting when the web table cannot play it
    (rule options that it does not take, such as ``variant``), so that a record is never
    written for a setting its replay would not load, or would re-simulate on another one."""
    from types import SimpleNamespace

    from cuegym.agents.head_to_head import setting_mismatch

    arena = getattr(arena, "arena", arena)
    opts = web_options(arena)
    setting = arena_setting(arena)
    shown = f"table {setting['table']!r}" + "".join(
        f", {k}={v if isinstance(v, str) else json.dumps(v)}"
        for k, v in setting["rules"].items())
    try:
        table = session.make_table(arena.game, opts)
    except PlayError as e:
        raise PlayError(f"games on {shown} cannot be saved as game records: the web table "
                        f"(python -m cuegym.play) does not play that setting ({e})") from None
    why = setting_mismatch(SimpleNamespace(arena=table.arena), arena)
    if why is not None:
        raise PlayError(f"games on {shown} cannot be saved as game records: the web table "
                        f"(python -m cuegym.play) would replay them on another setting ({why})")
    return opts, table


def seat_labels(names: Sequence[str], per_side: int = 1) -> list[str]:
    """Seat names of a tournament's agents (``names`` one per player or side; golfbillard duo,
    ``per_side`` 2: ``<name> 1``, ``<name> 2``), each at most :data:`NAME_MAX` characters and
    distinct: a long display name (an agent's options, a run folder) is cut, not refused after
    the games were played."""
    out: list[str] = []
    for name in names:
        for p in range(per_side):
            tail = f" {p + 1}" if per_side > 1 else ""
            label, n = name[:NAME_MAX - len(tail)] + tail, 1
            while label in out:  # two names cut to the same text
                n += 1
                mark = f"#{n}{tail}"
                label = name[:NAME_MAX - len(mark)] + mark
            out.append(label)
    return out


def save_tournament_games(rec_arena: RecordingArena, results: Any, names: Sequence[str],
                          specs: Sequence[str], noise: Any, out_dir: str | Path,
                          pair: str) -> list[Path]:
    """Write the recorded games of one pair as game records, on the tournament's setting
    (table and rules: the record's ``options`` are the web table's for it, :func:`web_options`,
    and off the default setting ``meta.table`` and ``meta.rules`` name it, :func:`arena_setting`),
    re-simulated through :mod:`cuegym.play.session` on that setting; a game that would not
    re-simulate exactly raises, and so does a setting the web table cannot replay
    (:func:`web_table`: PlayError). Golfbillard duo: each side's agent plays both partners'
    seats (``<name> 1``, ``<name> 2``)."""
    import re

    out = []
    game = rec_arena.arena.game
    opts, table = web_table(rec_arena.arena)  # before any file is written
    setting = arena_setting(rec_arena.arena)
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    pair = re.sub(r"[^A-Za-z0-9_.=-]+", "-", pair)
    for g, moves in sorted(rec_arena.moves.items()):
        sides = [int(a) for a in results.seats[g]]  # the agent of each player / side
        per_side = table.players // len(sides)  # golfbillard duo: two partners a side
        labels = seat_labels([names[a] for a in sides], per_side)
        seats = [{"name": labels[i * per_side + p], "kind": "agent", "agent": specs[a]}
                 for i, a in enumerate(sides) for p in range(per_side)]
        lg = LiveGame(game, opts, [{"kind": "human", "name": s["name"]} for s in seats],
                      "none", seed=0)
        for k, s in enumerate(seats):
            lg.seats[k].kind, lg.seats[k].agent = "agent", s["agent"]
        lg.noise_name = str(noise)
        lg.meta = {"tournament": pair, "game_index": g}
        if not is_default_setting(setting):
            lg.meta.update(setting)
        state = moves[0][0] if moves else lg.state  # the arena's start (its own seed)
        lg.start = lg.table.state_json(state)
        for k, (before, move) in enumerate(moves):
            if lg.table.state_json(before) != lg.table.state_json(state):
                raise RuntimeError(f"game {g} shot {k}: the tournament state differs from the "
                                   "re-simulated one")
            res = lg.table.replay(state, move)
            lg.shots.append(Shot(seats=lg.shooters(state), before=lg.table.state_json(state),
                                 intended=None, executed=res.executed, choices=res.choices,
                                 outcome=res.outcome, after=lg.table.state_json(res.state),
                                 anim=None))
            state = res.state
        lg.state = state
        lg.id = f"{pair}_game{g:03d}"
        out.append(save(lg, d))
    return out
