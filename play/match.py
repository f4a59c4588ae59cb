"""A game in the app: seats (people and agents), the turn, the history of shots, its record.

:class:`LiveGame` is what the server keeps per game id. It plays through
:mod:`cuegym.play.session` only; every shot is kept with the state before it, the strike as
intended and as executed, the opponent's choices, the referee's outcome, the state after and
the shot's animation. :meth:`LiveGame.record` is the saved JSON (:mod:`cuegym.play.record`).

Thread safety: one lock per game serialises every change (an agent thinks while holding it);
:meth:`view` reads without it.
"""

from __future__ import annotations

import secrets
import threading
import time
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.play import session
from cuegym.play.call import golf_call, golf_question_call, kegle_call
from cuegym.play.session import GolfTable, KegleTable, Pending, Played, PlayError

SEAT_KINDS = ("human", "agent")
#: Longest seat name [characters]: the calls and the table's labels show it whole.
NAME_MAX = 40
_AGENT_LOCKS: dict[tuple[str, str], threading.Lock] = {}
_AGENT_LOCKS_GUARD = threading.Lock()


class Conflict(PlayError):
    """The request is valid but not now (out of turn, busy, a replay): HTTP 409."""


@dataclass
class Seat:
    """A player (keglebillard) or a side's player (golfbillard; duo: two per side)."""

    name: str
    kind: str = "human"
    agent: str | None = None

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "agent": self.agent}


@dataclass
class Shot:
    """One shot in a game's history (the record's ``shots`` entries plus the animation)."""

    seats: list[int]
    before: dict
    intended: dict | None
    executed: dict
    choices: dict | None
    outcome: dict
    after: dict
    anim: dict | None
    call: list[str] = field(default_factory=list)
    ms: float = 0.0

    def to_json(self, k: int, with_anim: bool = True) -> dict:
        out = {"index": k, "seats": self.seats, "before": self.before,
               "intended": self.intended, "executed": self.executed, "choices": self.choices,
               "outcome": self.outcome, "after": self.after, "call": self.call}
        if with_anim:
            out["anim"] = self.anim
        return out


def is_seed(seed: Any) -> bool:
    """Whether ``seed`` is a game's seed: an integer in [0, 2**128) (not a bool)."""
    return not isinstance(seed, bool) and isinstance(seed, int) and 0 <= seed < 2 ** 128


def seed_shown(seed: Any) -> str:
    """``seed`` for an error message: its repr, or its size when it is a huge integer (whose
    repr Python refuses past 4,300 digits)."""
    if isinstance(seed, int) and seed.bit_length() > 128:
        return f"an integer of {seed.bit_length()} bits"
    return repr(seed)


#: Letters that show as blank space (Hangul fillers, the blank Braille pattern): a name of
#: them alone shows as nothing, like a name of spaces.
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def spelled(name: str) -> str:
    """A seat name in its one spelling: NFC ("A" + combining ring is "Å"), every space
    character a space (a no-break, thin or ideographic space, what a Japanese keyboard types),
    trimmed ("   " is no name). The names a client typed are compared in this spelling."""
    name = unicodedata.normalize("NFC", name)
    return "".join(" " if unicodedata.category(c) == "Zs" else c for c in name).strip()


def shows_nothing(name: str) -> bool:
    """Whether ``name`` has no character that shows by itself: a letter, digit, punctuation
    mark or symbol other than :data:`BLANK_LETTERS` (combining marks and variation selectors
    show only on such a character)."""
    return not any(unicodedata.category(c)[0] in "LNPS" and c not in BLANK_LETTERS
                   for c in name)


def parse_seats(game: str, table: KegleTable | GolfTable, seats: Any) -> list[Seat]:
    if not isinstance(seats, list) or len(seats) != table.players:
        raise PlayError(f"{game} with options {table.options} needs {table.players} seats, "
                        f"got {seats!r}")
    out = []
    given = {spelled(s.get("name")) for s in seats if isinstance(s, Mapping) and
             isinstance(s.get("name"), str)}  # the default names keep clear of these
    for k, s in enumerate(seats):
        if not isinstance(s, Mapping):
            raise PlayError(f"seats[{k}] must be an object {{kind, agent, name}}, got {s!r}")
        extra = sorted(set(s) - {"kind", "agent", "name"})
        if extra:
            raise PlayError(f"unknown key(s) {extra} in seats[{k}]")
        kind = s.get("kind", "human")
        if kind not in SEAT_KINDS:
            raise PlayError(f"seats[{k}].kind must be one of {list(SEAT_KINDS)}, got {kind!r}")
        agent = None
        if kind == "agent":
            agent = session.check_agent_spec(s.get("agent"))
            if agent.endswith(".zip"):  # a model file: load it now (cached), refuse a bad one
                session.get_agent(agent, game)
        elif s.get("agent") is not None:
            raise PlayError(f"seats[{k}] is a person but names an agent {s.get('agent')!r}")
        name = s.get("name")
        if name is not None and not isinstance(name, str):
            raise PlayError(f"seats[{k}].name must be a string of at most {NAME_MAX} "
                            f"characters, got {name!r}")
        if name is not None:
            name = spelled(name)
            # a NUL, a line break or a right-to-left override would break or turn the calls'
            # text; a private-use character shows as nothing anyone can read
            hidden = [c for c in name if not (c.isprintable() or c == " ")
                      or unicodedata.category(c) == "Co"]
            if hidden:
                raise PlayError(f"seats[{k}].name must be printable text, got {name!r} "
                                f"(it holds {hidden[0]!r})")
            # a lone combining mark or a Hangul filler shows as nothing: the calls ("<name>
            # scores 6 points") could not say who played
            if name and shows_nothing(name):
                raise PlayError(f"seats[{k}].name must show a letter, digit, punctuation mark "
                                f"or symbol, got {name!r}, which shows as blank")
            if name and any(x.name == name for x in out):
                raise PlayError(f"seats[{k}].name {name!r} is taken by another seat: the calls "
                                "could not say which of them played")
        if not name:  # the default: the agent (a model file: its file name) or "Player k",
            # unique: a second "geometric" is "geometric 2"
            base = (agent if len(agent) <= NAME_MAX else Path(agent).name[-NAME_MAX:]) \
                if agent else f"Player {k + 1}"
            name, n = base, 1
            while name in given or any(x.name == name for x in out):
                n += 1
                name = f"{base[:NAME_MAX - len(str(n)) - 1]} {n}"
        if len(name) > NAME_MAX:
            raise PlayError(f"seats[{k}].name must be a string of at most {NAME_MAX} "
                            f"characters, got {len(name)} characters")
        out.append(Seat(name, kind, agent))
    return out


class LiveGame:
    """One game: a table, its seats, the current state and the history.

    Args:
        game: ``keglebillard`` or ``golfbillard``. options: the table's options
            (:func:`cuegym.play.session.make_table`). seats: one per player (golfbillard duo:
            side 0 partner 0, side 0 partner 1, side 1 partner 0, side 1 partner 1).
        noise: ``none`` or ``tournament``, for every strike. seed: the game's generator (agents'
            choices and noise).
    """

    def __init__(self, game: str, options: Mapping | None = None, seats: Any = None,
                 noise: str = "tournament", seed: int | None = None, *,
                 replay_of: dict | None = None) -> None:
        self.table = session.make_table(game, options)
        self.game = game
        self.seats = parse_seats(game, self.table, seats)
        names = self.side_names() if game == "golfbillard" else []
        if len(names) == 2 and names[0] == names[1]:  # duo: "A & B" + "C" vs "A" + "B & C"
            raise PlayError(f"both sides would be named {names[0]!r}: the calls could not say "
                            "which side played; rename a seat")
        self.noise_name = noise
        self.noise = session.noise_of(noise)
        if seed is None:
            seed = secrets.randbits(32)
        if not is_seed(seed):
            raise PlayError(f"seed must be an integer in [0, 2**128), got {seed_shown(seed)}")
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.id = secrets.token_hex(6)
        self.state = self.table.new_state()
        self.start = self.table.state_json(self.state)
        self.shots: list[Shot] = []
        self.pending: Pending | None = None
        self.pending_seats: list[int] = []
        self.pending_intended: tuple[dict | None, list[int] | None] = (None, None)
        self.opening_moves: dict[int, tuple[int, np.ndarray, dict]] = {}
        self.lock = threading.Lock()
        self.save_lock = threading.Lock()  # one save at a time, the newest written last
        self.thinking: int | None = None
        self.mode = "replay" if replay_of is not None else "play"
        self.meta: dict = dict(replay_of or {})
        #: a replay: the meta of the record it was opened from, which its record gives back
        #: (``meta`` adds where it came from and that it was verified); None: ``meta``
        self.record_meta: dict | None = None
        self.created = time.time()

    # -- names ------------------------------------------------------------------------------

    def side_names(self) -> list[str]:
        """Golfbillard: a name per side (duo: both partners)."""
        if not self.table.duo:
            return [s.name for s in self.seats]
        return [f"{self.seats[0].name} & {self.seats[1].name}",
                f"{self.seats[2].name} & {self.seats[3].name}"]

    def call(self, outcome: dict, before: dict | None = None,
             after: dict | None = None) -> list[str]:
        """The call of a shot; ``before``, ``after``: the states' JSON around it (golfbillard:
        they tell a G-5 draw and a game of a match that goes on)."""
        if self.game == "keglebillard":
            return kegle_call(outcome, [s.name for s in self.seats])
        return golf_call(outcome, self.side_names(), before, after)

    # -- whose turn -------------------------------------------------------------------------

    def awaiting(self) -> dict:
        """What the game waits for: ``{"type": "over"}``, ``{"type": "move", "seat": k}``,
        ``{"type": "opening", "seats": [a, b], "missing": [...], "balls": [default ball per
        side], "options": [balls each side may open with]}`` or ``{"type": "choice", "seat": k,
        "question": {...}}``."""
        st = self.state
        if self.mode == "replay":
            return {"type": "replay"}
        if self.pending is not None:
            return {"type": "choice", "seat": self.pending_seats[0],
                    "question": self.pending.question}
        if self.table.over(st):
            return {"type": "over"}
        if self.game == "golfbillard" and st.phase == "opening":
            seats = self.shooters(st)
            return {"type": "opening", "seats": seats,
                    "missing": [s for k, s in enumerate(seats) if k not in self.opening_moves],
                    "balls": self.table.opening_balls(st),
                    "options": self.table.opening_options(st)}
        return {"type": "move", "seat": self.table.seat_to_move(st)}

    def shooters(self, state: Any) -> list[int]:
        """The seats that play the next shot from ``state``: the seat to move, or in a
        golfbillard opening the two openers (side 0's, side 1's)."""
        if self.game == "golfbillard" and state.phase == "opening":
            return list(self.table.opening_seats(state))
        return [self.table.seat_to_move(state)]

    def agent_to_act(self) -> list[int]:
        """Seats of agents the game waits for (empty: a person, or over)."""
        a = self.awaiting()
        if a["type"] == "move":
            seats = [a["seat"]]
        elif a["type"] == "opening":
            seats = a["missing"]
        else:
            return []
        return [s for s in seats if self.seats[s].kind == "agent"]

    # -- acting -----------------------------------------------------------------------------

    def _locked(self) -> None:
        if self.mode == "replay":
            raise Conflict("this game is a replay: step through it, nothing can be played")
        if not self.lock.acquire(blocking=False):
            raise Conflict("the game is busy (an agent is thinking or a shot is being played); "
                           "try again when it has finished")

    def human_move(self, seat: Any, move: Any, expect_shot: Any = None) -> dict:
        """A person's move for ``seat``; returns :meth:`result`."""
        self._locked()
        try:
            self._check_turn(seat, expect_shot)
            if self.seats[seat].kind != "human":
                raise Conflict(f"seat {seat} ({self.seats[seat].name}) is an agent: ask it to "
                               "move (POST .../agent)")
            return self._move(seat, move)
        finally:
            self.lock.release()

    def agent_move(self, expect_shot: Any = None) -> dict:
        """Let the agent(s) the game waits for move (slow: run off the event loop)."""
        self._locked()
        try:
            if expect_shot is not None:
                self._check_shot(expect_shot)
            seats = self.agent_to_act()
            if not seats:
                a = self.awaiting()
                raise Conflict("no agent is to move: " + (
                    "the game is over" if a["type"] == "over" else
                    f"waiting for a person (seat {a.get('seat', a.get('missing'))})"))
            out = None
            for seat in seats:
                spec = self.seats[seat].agent
                self.thinking = seat
                agent = session.get_agent(spec, self.game, self.table)
                with _agent_lock(spec, self.game):
                    t0 = time.perf_counter()
                    if self.game == "golfbillard" and self.state.phase == "opening":
                        side = self.table.opening_seats(self.state).index(seat)
                        move = self.table.agent_move(agent, self.state, self.rng, side)
                    else:
                        move = self.table.agent_move(agent, self.state, self.rng)
                    ms = (time.perf_counter() - t0) * 1000
                out = self._move(seat, move, agent=True)
                out["think_ms"] = round(ms, 1)
            # the answer's view: no agent is thinking now (the view built in _move still
            # named this one, and a page would wait for it to finish)
            self.thinking = None
            out["view"] = self.view()
            return out
        finally:
            self.thinking = None
            self.lock.release()

    def answer(self, seat: Any, answer: Any, expect_shot: Any = None,
               expect_question: Any = None) -> dict:
        """A person's answer to a pending golfbillard choice (penalty spot, picked ball);
        ``expect_shot`` as for a move, ``expect_question`` the ``number`` of the question
        answered: a stale tab's answer is refused (one stroke can ask several questions, so
        the shot alone does not tell them apart)."""
        self._locked()
        try:
            self._check_seat(seat)
            if expect_shot is not None:
                self._check_shot(expect_shot)
            if expect_question is not None and (isinstance(expect_question, bool) or not
                                                isinstance(expect_question, int) or
                                                expect_question < 0):
                raise PlayError(f"question must be the number of the question answered (its "
                                f"'number'), got {expect_question!r}")
            if self.pending is None:
                raise Conflict("no choice is pending")
            q = self.pending.question
            if expect_question is not None and expect_question != q["number"]:
                when = "was answered already" if expect_question < q["number"] else \
                    "has not been asked"
                raise Conflict(f"question {expect_question} {when}; the open one is question "
                               f"{q['number']}: {q['text']} (reload the game)")
            if seat != self.pending_seats[0]:
                raise Conflict(f"seat {seat!r} is not asked: seat {self.pending_seats[0]} "
                               "chooses")
            res = self.table.answer(self.pending, answer)
            return self._finish(res, self.pending_seats[1:], None)
        finally:
            self.lock.release()

    def _check_shot(self, expect_shot: Any) -> None:
        if isinstance(expect_shot, bool) or not isinstance(expect_shot, int) or expect_shot < 0:
            raise PlayError(f"shot must be the number of shots played so far (0 or more), got "
                            f"{expect_shot!r}")
        if expect_shot < len(self.shots):
            raise Conflict(f"the game has moved on: {len(self.shots)} shots played, the request "
                           f"was for shot {expect_shot} (reload the game)")
        if expect_shot > len(self.shots):
            raise Conflict(f"shot {expect_shot} is ahead of the game: {len(self.shots)} shots "
                           "played (reload the game)")

    def _check_seat(self, seat: Any) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise PlayError(f"seat must be a seat number 0..{len(self.seats) - 1}, got {seat!r}")

    def _check_turn(self, seat: Any, expect_shot: Any) -> None:
        self._check_seat(seat)
        if expect_shot is not None:
            self._check_shot(expect_shot)
        a = self.awaiting()
        if a["type"] == "over":
            raise Conflict("the game is over")
        if a["type"] == "choice":
            raise Conflict(f"waiting for seat {a['seat']} to choose: {a['question']['text']}")
        due = a["missing"] if a["type"] == "opening" else [a["seat"]]
        if seat not in due:
            raise Conflict(f"it is not seat {seat}'s turn ({self.seats[seat].name}); "
                           f"seat {due[0]} ({self.seats[due[0]].name}) is to play")

    def _move(self, seat: int, move: Any, agent: bool = False) -> dict:
        st = self.state
        t = self.table
        if self.game == "keglebillard":
            if agent:  # agents' placements are played as they come (K-19 foul if unplayable)
                cue = session.parse_strike(move["strike"])
                place = np.full(2, np.nan) if move["place"] is None else np.array(move["place"])
            else:
                cue, place = t.check_move(st, move)
            res = t.play(st, cue, place, self.noise, self.rng)
            return self._finish(res, [], move, [seat])
        side = int(st.to_move)
        if st.phase == "opening":
            side = t.opening_seats(st).index(seat)
        b, cue = t.check_move(st, move, side)
        if st.phase == "opening":
            self.opening_moves[side] = (b, cue, dict(move))
            if len(self.opening_moves) < 2:
                return self.result(None)
            (b0, c0, m0), (b1, c1, m1) = self.opening_moves[0], self.opening_moves[1]
            self.opening_moves = {}
            res = t.play(st, [b0, b1], np.stack([c0, c1]), self.noise, self.rng)
            return self._finish(res, [], {"strikes": [m0, m1]}, t.opening_seats(st))
        chooser = t.seat_of(1 - side, st)
        ask = self.seats[chooser].kind == "human"
        res = t.play(st, [b], cue, self.noise, self.rng, ask=ask)
        return self._finish(res, [chooser], move, [seat])

    def _finish(self, res: Played | Pending, choosers: list[int], intended: dict | None,
                seats: list[int] | None = None) -> dict:
        if isinstance(res, Pending):
            if self.pending is None:
                self.pending_seats = choosers
                self.pending_intended = (intended, seats)
            self.pending = res
            return self.result(None)
        if self.pending is not None:
            intended, seats = self.pending_intended
            self.pending = None
        before = self.table.state_json(self.state)
        after = self.table.state_json(res.state)
        shot = Shot(seats=seats, before=before, intended=intended, executed=res.executed,
                    choices=res.choices, outcome=res.outcome, after=after, anim=res.anim,
                    call=self.call(res.outcome, before, after))
        self.shots.append(shot)
        self.state = res.state
        return self.result(len(self.shots) - 1)

    # -- reading ----------------------------------------------------------------------------

    def result(self, k: int | None) -> dict:
        out: dict[str, Any] = {"view": self.view()}
        if k is not None:
            out["shot"] = self.shots[k].to_json(k)
        p = self.pending
        if p is not None:
            out["pending"] = {**self.pending_view(p), "anim": p.anim,
                              "before": self.table.state_json(self.state),
                              "executed": p.executed}
        return out

    def pending_view(self, p: Pending) -> dict:
        """While the opponent chooses (golfbillard G-25, G-30): the question, the call so far
        (the foul that gives the choice, its penalty, who is asked), ``chooser_side``: the side
        that acts now (not the shooter's, which the state still has to move), and ``balls``:
        where the stroke left them (the referee moves balls only once every answer is in)."""
        return {"question": p.question,
                "chooser_side": self.table.side_of(self.pending_seats[0]),
                "call": golf_question_call(p.preview, self.side_names(),
                                           self.seats[self.pending_seats[0]].name, p.question),
                "balls": session.anim_end(p.anim, self.table.ball_ids)}

    def view(self) -> dict:
        st = self.state
        out = {
            "id": self.id, "game": self.game, "mode": self.mode, "options": self.table.options,
            "noise": self.noise_name, "seats": [s.to_json() for s in self.seats],
            "state": self.table.state_json(st), "shots": len(self.shots),
            "awaiting": self.awaiting(), "agents_to_act": self.agent_to_act(),
            "thinking": self.thinking, "over": self.table.over(st),
            "last_call": self.shots[-1].call if self.shots else [],
            "meta": self.meta,
        }
        if self.game == "golfbillard":
            out["side_names"] = self.side_names()
            if st.phase == "play":
                out["own_balls"] = self.table.own_balls(st, int(st.to_move))
        p = self.pending
        if p is not None:
            out["pending"] = self.pending_view(p)
        return out

    def shot(self, k: Any) -> dict:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(self.shots):
            raise PlayError(f"shot {k!r} does not exist: the game has {len(self.shots)} shots "
                            f"(0..{len(self.shots) - 1})")
        return self.shots[k].to_json(k)


def _agent_lock(spec: str, game: str) -> threading.Lock:
    with _AGENT_LOCKS_GUARD:
        return _AGENT_LOCKS.setdefault((spec, game), threading.Lock())
