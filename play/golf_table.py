"""Golfbillard at the web table: :class:`GolfTable`, the game's side of
:mod:`cuegym.play.session` (which makes it, :func:`~cuegym.play.session.make_table`, and holds
the helpers both games' tables share)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cuegym.play.session import (
    Pending,
    Played,
    PlayError,
    animation,
    move_strike,
    noisy_strikes,
    recorded_strike,
    strike_json,
    table_json,
)
from cuegym.rules.golf_arrays import BALLS_PER_SIDE, SIDE_OF


class GolfTable:
    """Golfbillard through :class:`cuegym.agents.arena.GolfbillardArena`.

    Seats: singles 0 (side 0, white), 1 (side 1, red); duo (G-31) 2 * side + partner.

    Args:
        duo: G-31 duo play. match: ``single`` (one game) or ``best_of_3`` (G-4).
        deciding_openers: G-31, a duo best-of-3 only: the partner (0 or 1) of each side who
            opens a deciding game; None: the rules' default (``[0, 0]``).
    """

    game = "golfbillard"

    def __init__(self, duo: bool = False, match: str = "single",
                 deciding_openers: Any = None) -> None:
        from cuegym.agents import make_arena

        if not isinstance(duo, bool):
            raise PlayError(f"duo must be true or false, got {duo!r}")
        if match not in ("single", "best_of_3"):
            raise PlayError(f"match must be 'single' or 'best_of_3', got {match!r}")
        rules: dict[str, Any] = {"match": match, "duo": duo}
        if deciding_openers is not None:
            if not (duo and match == "best_of_3"):  # singles open with their one player
                raise PlayError(f"deciding_openers {deciding_openers!r} applies to a duo "
                                f"best-of-3 match (G-31), not to duo={duo!r}, match={match!r}")
            if not (isinstance(deciding_openers, list) and len(deciding_openers) == 2 and all(
                    isinstance(p, int) and not isinstance(p, bool) and p in (0, 1)
                    for p in deciding_openers)):
                raise PlayError(f"deciding_openers must be [partner of side 0, partner of side "
                                f"1], each 0 or 1 (G-31), got {deciding_openers!r}")
            rules["deciding_openers"] = deciding_openers
        self.arena = make_arena("golfbillard", rules)
        self.rules = self.arena.rules
        # a person choosing penalty spots / the picked ball (G-25, G-30) answers through these
        self.rules_asked = type(self.rules).from_dict(
            {"spot_policy": "agent", "pick_policy": "agent"}, base=self.rules)
        self.geo = self.arena.geo
        self.duo = duo
        self.match = match
        self.players = 4 if duo else 2
        self.ball_ids = tuple(self.geo.ball_ids)

    @property
    def options(self) -> dict:
        out: dict[str, Any] = {"duo": self.duo, "match": self.match}
        if self.duo and self.match == "best_of_3":  # the record says who opens a game 3
            out["deciding_openers"] = list(self.rules.deciding_openers)
        return out

    def new_state(self) -> Any:
        from cuegym.rules.golfbillard_game import new_match

        return new_match(self.rules, seed=0, geo=self.geo)

    def state_json(self, st: Any) -> dict:
        return st.to_json(self.geo)

    def state_from_json(self, obj: dict) -> Any:
        from cuegym.rules.golfbillard import GolfState

        return GolfState.from_json(obj, self.geo)

    @staticmethod
    def over(st: Any) -> bool:
        return st.phase == "over"

    def seat_of(self, side: int, st: Any, opening: bool = False) -> int:
        if not self.duo:
            return int(side)
        partner = st.openers[side] if opening else st.partner[side]
        return 2 * int(side) + int(partner)

    def side_of(self, seat: int) -> int:
        """The side (0 white, 1 red) of ``seat`` (:meth:`seat_of` the other way)."""
        return seat // 2 if self.duo else seat

    def seat_to_move(self, st: Any) -> int | None:
        """The seat to strike (None when over; in the opening: side 0's opener, see
        :meth:`opening_seats`)."""
        if st.phase == "over":
            return None
        return self.seat_of(int(st.to_move), st, st.phase == "opening")

    def opening_seats(self, st: Any) -> list[int]:
        return [self.seat_of(s, st, True) for s in (0, 1)]

    def own_balls(self, st: Any, side: int) -> list[str]:
        from cuegym.rules.golfbillard import SIDE_OF

        return [self.ball_ids[b] for b in np.flatnonzero((SIDE_OF == side) & st.on_table)]

    def opening_balls(self, st: Any) -> list[str]:
        from cuegym.rules.golfbillard_game import opening_balls

        return [self.ball_ids[b] for b in opening_balls(st, self.geo)]

    @staticmethod
    def middle_opens(st: Any, side: int) -> bool:
        """Must ``side`` open with its middle ball (G-3)? While it is on the table; in a
        repeat after both sides scored theirs, any own ball may open."""
        return bool(st.on_table[side * BALLS_PER_SIDE])

    def opening_options(self, st: Any) -> list[list[str]]:
        """The balls each side may open with (G-3): its middle ball, or any own ball, the
        side's choice (:meth:`middle_opens`)."""
        return [[self.opening_balls(st)[side]] if self.middle_opens(st, side)
                else self.own_balls(st, side) for side in (0, 1)]

    def _ball(self, st: Any, name: Any, side: int) -> int:
        from cuegym.rules.golfbillard import ball_index

        own = self.own_balls(st, side)
        if name not in own:
            raise PlayError(f"ball {name!r} is not one of side {side}'s balls on the table "
                            f"{own}")
        return ball_index(name, self.geo)

    def check_move(self, st: Any, move: Mapping, side: int) -> tuple[int, np.ndarray]:
        """(ball index, cue (5,)) of a person's play stroke or opening strike of ``side``."""
        cue = move_strike(move, "golfbillard", ("ball",))
        if st.phase == "opening":
            want = self.opening_balls(st)[side]
            if self.middle_opens(st, side):
                if move.get("ball", want) != want:
                    raise PlayError(f"the opening (G-3) is played with {want}, got "
                                    f"{move.get('ball')!r}")
                return self._ball(st, want, side), cue
            return self._ball(st, move.get("ball", want), side), cue
        return self._ball(st, move.get("ball"), side), cue

    def agent_move(self, agent: Any, st: Any, rng: np.random.Generator,
                   side: int | None = None) -> dict:
        if st.phase == "opening":
            s = agent.act_opening([st], side, rng)
        else:
            s = agent.act([st], rng)
        return {"strike": strike_json(s.cue[0]), "ball": self.ball_ids[int(s.cue_ball[0])]}

    def simulate(self, st: Any, cb: np.ndarray, cue: np.ndarray) -> Any:
        """The physics of one stroke (the arena's settings); the SimResult."""
        from cuegym.rules.golfbillard_game import simulate_strokes

        a = self.arena
        return simulate_strokes([st], cb[None], cue[None], geo=self.geo, params=a.params,
                                max_events=a.max_events, t_max=a.t_max)

    def play(self, st: Any, balls: Sequence[int], cues: np.ndarray, noise: Any,
             rng: np.random.Generator | None, *, ask: bool = False,
             executed: bool = False, answers: Mapping | None = None) -> Played | Pending:
        """Play an opening (two balls, side 0's first) or a play stroke (one ball).

        ``ask``: the opponent is a person: the referee asks for penalty spots / the picked
        ball (a :class:`Pending` is returned until :meth:`answer` has them all)."""
        cues = np.asarray(cues, np.float64).reshape(-1, 5)
        run = cues if executed else noisy_strikes(cues, noise, rng)
        cb = np.array([int(b) for b in balls] + [-1] * (2 - len(balls)), np.int64)
        cue = np.zeros((2, 5))
        cue[: len(run)] = run
        if len(balls) == 2:
            executed_move = {"strikes": [{**strike_json(c), "ball": self.ball_ids[b]}
                                         for b, c in zip(balls, run, strict=True)]}
        else:
            executed_move = {"strike": strike_json(run[0]), "ball": self.ball_ids[cb[0]]}
        res = self.simulate(st, cb, cue)
        anim = animation(res, 0, self.ball_ids)
        pend = Pending(st, executed_move, cb, cue, res, anim)
        if answers is not None:
            pend.answers = {"spots": list(answers.get("spots") or []),
                            "pick": answers.get("pick")}
        return self._referee(pend, ask or answers is not None)

    def answer(self, pend: Pending, answer: Mapping) -> Played | Pending:
        """Give the opponent's answer to ``pend.question`` and referee again."""
        q = pend.question
        if not isinstance(answer, Mapping):
            raise PlayError(f"an answer must be an object, got {answer!r}")
        saved = ({"spots": list(pend.answers["spots"]), "pick": pend.answers["pick"]}, q)
        key = "spot" if q["kind"] == "spot" else "pick"
        extra = sorted(set(answer) - {key})
        if extra:
            raise PlayError(f"unknown key(s) {extra} in the answer: this question ({q['text']}) "
                            f"is answered with {{{key!r}: ...}}, one of {q['options']}")
        if q["kind"] == "spot":
            k = answer.get("spot")
            if isinstance(k, bool) or not isinstance(k, int) or k not in q["options"]:
                raise PlayError(f"spot {k!r} is not a free penalty spot for {q['ball']}: choose "
                                f"one of {q['options']}")
            pend.answers["spots"].append(int(k))
        else:
            b = answer.get("pick")
            if not isinstance(b, str) or b not in q["options"]:
                raise PlayError(f"ball {b!r} cannot be picked: choose one of {q['options']}")
            pend.answers["pick"] = b
        try:
            return self._referee(pend, True)
        except Exception:  # the referee refused: the question stays as it was
            pend.answers, pend.question = saved
            raise

    def _referee(self, pend: Pending, ask: bool) -> Played | Pending:
        from cuegym.rules.golf_batch import ChoiceNeeded

        opening = pend.state.phase == "opening"
        rules = self.rules_asked if ask and not opening else self.rules
        choices: dict = {}
        if rules is self.rules_asked:
            choices = {"spots": list(pend.answers["spots"])}
            if pend.answers["pick"] is not None:
                choices["pick"] = pend.answers["pick"]
        try:
            outs, new = self._score(pend, rules, choices)
        except ChoiceNeeded as need:
            if not pend.question:  # the first question of this stroke: why it is asked
                try:
                    outs, _ = self._score(pend, self.rules, {})
                    pend.preview = outs[0].to_json(self.geo)
                except ValueError:
                    pend.preview = None
            pend.question = self._question(pend, rules, choices, need)
            only = pend.question["options"]
            if len(only) == 1:  # no choice to make: taken, and the next one asked (if any)
                if pend.question["kind"] == "spot":
                    pend.answers["spots"].append(only[0])
                else:
                    pend.answers["pick"] = only[0]
                return self._referee(pend, ask)
            return pend
        used = None
        if rules is self.rules_asked:
            used = {"spots": list(pend.answers["spots"]), "pick": pend.answers["pick"]}
        return Played(outs[0].to_json(self.geo), new[0], pend.executed, pend.anim, used,
                      pend.res)

    def _score(self, pend: Pending, rules: Any, choices: dict) -> tuple[list, list]:
        """The compiled referee on the simulated stroke of ``pend`` (the game layer's
        ``play_strokes``; the physics is not run again)."""
        from cuegym.rules.golfbillard_game import play_strokes

        st = pend.state
        opening = st.phase == "opening"
        cb = pend.cb[None] if opening else pend.cb[:1]
        cue = pend.cue[None] if opening else pend.cue[:1]
        players = [list(st.openers) if opening else int(st.partner[st.to_move])]
        return play_strokes([st], pend.res, cb, cue, players=players, choices=[choices],
                            rules=rules, geo=self.geo)

    def _question(self, pend: Pending, rules: Any, choices: dict, need: Any) -> dict:
        """The question for the choice the referee needs (``need``: its ChoiceNeeded): a
        penalty spot for a ball (G-30) or the offender's ball to pick (G-25). The options are
        the answers the referee accepts, each tried on the stroke already simulated."""
        from cuegym.rules.golf_batch import ChoiceNeeded

        ids = self.ball_ids

        def accepted(extra: dict) -> bool:
            try:
                self._score(pend, rules, {**choices, **extra})
            except ChoiceNeeded:
                return True  # this answer is taken; a later choice is still open
            except ValueError:
                return False
            return True

        # a question's number: the answers already given in this stroke (a stale answer names
        # an earlier one)
        number = len(choices.get("spots", ())) + (choices.get("pick") is not None)
        if need.kind == "spot":
            ball = ids[need.ball]
            # whose spots (G-27: toward the offender's attack goal): the shooter's in play, an
            # opening ball's own side in the opening
            side = int(SIDE_OF[need.ball]) if pend.state.phase == "opening" \
                else int(pend.state.to_move)
            return {"kind": "spot", "number": number, "ball": ball, "side": side,
                    "options": [k for k in (1, 2, 3)
                                if accepted({"spots": [*choices["spots"], k]})],
                    "text": f"choose a penalty spot for {ball} (G-30)"}
        return {"kind": "pick", "number": number,
                "options": [ids[b] for b in np.flatnonzero(pend.state.on_table)
                            if accepted({"pick": ids[b]})],
                "text": "pick one of the offender's balls for a penalty spot (G-25)"}

    def replay(self, st: Any, move: Mapping, choices: Any = None) -> Played:
        """Re-play a recorded move exactly (executed strikes, recorded answers)."""
        from cuegym.rules.golfbillard import ball_index

        if not isinstance(move, Mapping):
            raise PlayError(f"executed must be a move object, got {move!r}")
        if "strikes" in move:
            strikes = move["strikes"]
            if not isinstance(strikes, list) or len(strikes) != 2 or not all(
                    isinstance(s, Mapping) for s in strikes):
                raise PlayError(f"executed.strikes must be two strikes (the opening), got "
                                f"{strikes!r}")
        else:
            if not isinstance(move.get("strike"), Mapping):
                raise PlayError(f"executed.strike must be an object, got {move.get('strike')!r}")
            strikes = [{**move["strike"], "ball": move.get("ball")}]
        balls = [ball_index(s.get("ball"), self.geo) for s in strikes]
        cues = np.stack([recorded_strike(s, "executed.strike") for s in strikes])
        if choices is not None:
            if not isinstance(choices, Mapping) or set(choices) - {"spots", "pick"}:
                raise PlayError(f"choices must be {{'spots': [..], 'pick': ball}} or null, got "
                                f"{choices!r}")
            spots = choices.get("spots") or []
            if not isinstance(spots, list) or not all(
                    isinstance(k, int) and not isinstance(k, bool) and 0 <= k < 100
                    for k in spots):
                raise PlayError(f"choices.spots must be a list of penalty spot numbers, got "
                                f"{spots!r}")
            if choices.get("pick") is not None and not isinstance(choices["pick"], str):
                raise PlayError(f"choices.pick must be a ball id or null, got "
                                f"{choices['pick']!r}")
        out = self.play(st, balls, cues, None, None, executed=True, answers=choices)
        if isinstance(out, Pending):
            raise PlayError(f"the record lacks the opponent's choice: {out.question['text']}")
        return out

    def geometry(self) -> dict:
        geo = self.geo
        zones = []
        for name, z in geo.zones.zones.items():
            if not name.startswith(("great_triangle", "small_triangle", "stroke_line", "strip")):
                continue
            for poly in z.polygons:
                zones.append([[float(x), float(y)] for x, y in poly] + [None])
            for (x1, y1), (x2, y2) in z.segments:
                zones.append([[float(x1), float(y1)], [float(x2), float(y2)]])
        return {**table_json(geo.table, geo.R), "zones": zones,
                "goals": geo.goals.tolist(), "start": geo.start.tolist(),
                "penalty_spots": [np.asarray(geo.zones.penalty_spots[s]).tolist()
                                  for s in (0, 1)]}


