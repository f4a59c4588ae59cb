"""Two-seat head-to-head play: whole games between two agents in lock-step, with fixed seeds.

:func:`play_games` plays ``n`` games of an arena (:mod:`cuegym.agents.arena`) between two agents,
seats alternating, one batched ``act`` per agent and one batched physics call per round, and
returns their :class:`GameResults` (wins, draws, unfinished games and every shot's
:class:`~cuegym.agents.arena.ShotRecord`); :func:`setting_mismatch` is the check that an agent
was made for the arena's table and rules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cuegym.agents.arena import ShotRecord
from cuegym.agents.base import Agent, ShotNoise, Strikes, load_noise
from cuegym.rules.inputs import req_int


@dataclass
class GameResults:
    """Results of :func:`play_games`.

    Attributes:
        seats: (G, P) agent index playing each seat (player / side) in each game.
        winner: (G,) winning agent index; -1 for a draw (a finished game nobody won, G-5) and
            for an unfinished game.
        shots: every shot played, with the shooter's agent index in ``agent``.
        agent: (n_shots,) agent index of each shot's shooter.
        n_shots: (G,) shots per game. finished: (G,) the game reached its end by the rules;
            ``~finished`` games were cut off by ``max_shots`` (*unfinished*: neither a win nor
            a draw, whatever the score; win rates leave them out and report their number).
    """

    seats: np.ndarray
    winner: np.ndarray
    shots: list[ShotRecord]
    agent: np.ndarray
    n_shots: np.ndarray
    finished: np.ndarray
    scores: list = field(default_factory=list)

    def stats(self, a: int) -> dict[str, float]:
        """points_per_shot, given_per_shot, foul_rate, shots, and the game counts of agent
        ``a``: games, wins, losses, draws (finished, nobody won), unfinished (cut off), and
        lost_on_own_shot: the losses that agent's own shot ended (keglebillard: a foul whose
        skæve took the opponent to the distance, K-21/K-22). ``a``: the agent's index in the
        ``agents`` the games were played with (0 or 1). An agent that played no shot has no
        rates: the three per-shot figures are NaN (0.0 read as a clean record)."""
        if isinstance(a, bool | np.bool_) or not isinstance(a, int | np.integer) or \
                not 0 <= a < self.seats.shape[1]:
            # -1 marks draws in ``winner``: stats(-1) counted them as wins
            raise ValueError(f"agent index must be 0..{self.seats.shape[1] - 1}, got {a!r}")
        mine = [r for r, ag in zip(self.shots, self.agent, strict=True) if ag == a]
        n = len(mine)
        seated = (self.seats == a).any(1)
        fin = seated & self.finished
        wins = int((self.winner == a).sum())
        draws = int((fin & (self.winner == -1)).sum())
        last = np.full(len(self.seats), -1, np.int64)  # each game's last shot (index in shots)
        np.maximum.at(last, np.array([r.game for r in self.shots], np.int64),
                      np.arange(len(self.shots)))
        ended_by = np.full(len(self.seats), -1, np.int64)  # the agent who shot it
        ended_by[last >= 0] = self.agent[last[last >= 0]]
        lost = fin & (self.winner != a) & (self.winner != -1)
        return {
            "points_per_shot": float(np.mean([r.points for r in mine])) if n else np.nan,
            "given_per_shot": float(np.mean([r.given for r in mine])) if n else np.nan,
            "foul_rate": float(np.mean([r.foul for r in mine])) if n else np.nan,
            "shots": n,
            "games": int(seated.sum()),
            "wins": wins,
            "losses": int(fin.sum()) - wins - draws,
            "draws": draws,
            "unfinished": int((seated & ~self.finished).sum()),
            "lost_on_own_shot": int((lost & (ended_by == a)).sum()),
        }


def _play_openings(arena: Any, agents: Sequence[Agent], states: Any, seats: np.ndarray,
                   opening: list[int], noise: ShotNoise, rng: np.random.Generator) -> None:
    """The golfbillard G-3 opening of games ``opening`` (both sides strike at once), in
    place in ``states``: each side's strikes from the agent in its seat, noised."""
    sub = arena.take(states, opening)
    parts = []
    for side in (0, 1):
        st = Strikes.empty(len(opening))
        for a in (0, 1):
            mask = seats[opening, side] == a
            if mask.any():
                st.put(mask, agents[a].act_opening(arena.take(sub, np.flatnonzero(mask)), side,
                                                   rng))
        parts.append(noise.apply(st, rng))
    arena.put(states, opening, arena.opening(sub, *parts))


def _agent_arenas(agent: Any) -> list[Any]:
    """The arenas ``agent`` searches, observes or aims in: its own (``agent.arena``) and those
    of the agents it wraps or asks (``base``: an aim correction's or leave's model;
    ``policy``: the guided planner's proposals)."""
    out, seen, todo = [], set(), [agent]
    while todo:
        a = todo.pop()
        if a is None or id(a) in seen:
            continue
        seen.add(id(a))
        if getattr(a, "arena", None) is not None:
            out.append(a.arena)
        todo += [getattr(a, "base", None), getattr(a, "policy", None)]
    return out


def setting_mismatch(agent: Any, arena: Any) -> str | None:
    """Why ``agent`` would play ``arena``'s games on another table or other rules than the
    arena's (an agent made without ``arena=`` has the default ones: its candidates, searches
    and observations would be those of the default table while the games are played on
    another), or None where every arena it uses has the arena's table and rules."""
    import dataclasses

    table, rules = getattr(arena, "table", None), getattr(arena, "rules", None)
    for own in _agent_arenas(agent):
        if own is arena or getattr(arena, "arena", None) is own:  # itself, or recorded
            continue
        t, r = getattr(own, "table", None), getattr(own, "rules", None)
        if t != table:
            return (f"its table is {getattr(t, 'name', t)!r}, the arena's "
                    f"{getattr(table, 'name', table)!r}")
        if r != rules:
            diff = [f"{f.name}: {getattr(r, f.name)!r} vs {getattr(rules, f.name)!r}"
                    for f in dataclasses.fields(rules) if getattr(r, f.name, None)
                    != getattr(rules, f.name)] if dataclasses.is_dataclass(rules) else []
            return "its rules differ from the arena's" + (f" ({', '.join(diff)})" if diff
                                                          else "")
    return None


def play_games(arena: Any, agents: Sequence[Agent], n_games: int, *, seed: int = 0,
               noise: ShotNoise | str | float | None = "tournament", max_shots: int = 400,
               swap: bool = True, progress: Callable[[int, int], None] | None = None,
               observer: Callable[[np.ndarray, Any, np.ndarray], None] | None = None
               ) -> GameResults:
    """Play ``n_games`` two-seat games in lock-step between ``agents[0]`` and ``agents[1]``.

    With ``swap`` the seats alternate: in odd games ``agents[1]`` takes seat 0 (keglebillard:
    breaks; golfbillard: side 0). Each round, every agent acts once on all games where it is to
    move (one batched ``act``), the strikes get execution noise, and one batched physics call
    plays them. Reproducible: one generator seeded with ``seed`` drives agents and noise.

    Args:
        arena: a :class:`KeglebillardArena` or :class:`GolfbillardArena`.
        agents: two agents of the arena's game (the same agent twice is allowed), made for
            the arena's table and rules (``make_agent(spec, game, arena=arena)``): one whose
            own arena has another table or other rules is refused (:func:`setting_mismatch`).
        n_games: games to play. seed: the seed. noise: execution noise (:class:`ShotNoise`).
        max_shots: shots after which a game is cut off (unfinished: no winner).
        progress: optional callback ``(games finished, n_games)``.
        observer: optional callback ``(games, states, agents)`` called each round before the
            (non-opening) shots with the game indices (n,), their states (a batch of n, as the
            agents see them) and the agent index to shoot in each (n,): the positions met in
            play, for learning from whole games (``cuegym.agents.expert``).

    Returns:
        :class:`GameResults`.
    """
    if getattr(arena, "game", None) not in ("keglebillard", "golfbillard"):  # (or a wrapper)
        raise ValueError(f"play_games needs a KeglebillardArena or GolfbillardArena "
                         f"(make_arena(game)), got {arena!r}")
    if len(agents) != 2:
        raise ValueError(f"play_games needs two agents, got {len(agents)}")
    bad = [a for a in agents if not isinstance(a, Agent)]
    if bad:
        raise ValueError(f"play_games plays agents (make_agent(spec, game, arena=arena)), got "
                         f"{bad[0]!r}")
    for name, fn in (("progress", progress), ("observer", observer)):
        if fn is not None and not callable(fn):
            raise ValueError(f"{name} must be None or a callable, got {fn!r}")
    seed = req_int(seed, "seed", 0)  # (None: not reproducible; True: 1)
    if getattr(arena, "n_players", 2) != 2:  # the seats and results below are two-seat
        raise ValueError(f"play_games plays two-seat games; the arena has n_players = "
                         f"{arena.n_players}")
    n_games = req_int(n_games, "n_games", 0)
    max_shots = req_int(max_shots, "max_shots", 1)
    if not isinstance(swap, bool | np.bool_):  # "no" (truthy) swapped the seats
        raise ValueError(f"swap must be True or False, got {swap!r}")
    for ag in agents:
        if ag.game != arena.game:
            raise ValueError(f"agent {ag.name!r} plays {ag.game!r}, the arena {arena.game!r}")
        why = setting_mismatch(ag, arena)
        if why is not None:  # it would search and aim on one table while playing on another
            raise ValueError(f"agent {ag.name!r} was made for another setting: {why}; make it "
                             "with make_agent(spec, game, arena=arena)")
    for ag in agents:
        ag.reset()
    noise = load_noise(noise)
    rng = np.random.default_rng(seed)
    G = int(n_games)
    seats = np.zeros((G, 2), np.int64)
    seats[:, 1] = 1
    if swap:
        seats[1::2] = [1, 0]
    if arena.game == "golfbillard":  # the rules' random draws follow the games' seed too
        states = arena.new_states(G, seeds=np.random.default_rng([seed, 1]).integers(0, 2**31, G))
    else:
        states = arena.new_states(G)
    n_shots = np.zeros(G, np.int64)
    shots: list[ShotRecord] = []
    shot_agent: list[int] = []
    live = np.ones(G, bool)
    done_before = 0
    while live.any():
        # golfbillard G-3 opening: both seats strike at once
        opening = np.flatnonzero(live & arena.openings(states)).tolist() \
            if arena.game == "golfbillard" else []
        if opening:
            _play_openings(arena, agents, states, seats, opening, noise, rng)
            n_shots[opening] += 1
        play = np.setdiff1d(np.flatnonzero(live), opening).astype(np.int64)
        if len(play):
            sub = arena.take(states, play)
            movers = seats[play, arena.movers(sub)]
            if observer is not None:
                observer(play, sub, movers)
            strikes = Strikes.empty(len(play))
            for a in (0, 1):
                mask = movers == a
                if mask.any():
                    strikes.put(mask, agents[a].act(arena.take(sub, np.flatnonzero(mask)), rng))
            recs, new = arena.step(sub, noise.apply(strikes, rng))
            arena.put(states, play, new)
            for r, g in zip(recs, play.tolist(), strict=True):
                r.game = g
            shots.extend(recs)
            shot_agent.extend(movers.tolist())
            n_shots[play] += 1
        live &= ~arena.overs(states) & (n_shots < max_shots)
        if progress is not None and G - int(live.sum()) != done_before:
            done_before = G - int(live.sum())
            progress(done_before, G)
    winner = np.full(G, -1, np.int64)
    finished = arena.overs(states)
    for g, w in enumerate(arena.winners(states)):
        if w is not None:
            winner[g] = seats[g, w]
    scores = arena.scores(states)
    return GameResults(seats=seats, winner=winner, shots=shots,
                       agent=np.array(shot_agent, np.int64), n_shots=n_shots, finished=finished,
                       scores=scores)
