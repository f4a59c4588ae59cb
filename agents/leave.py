"""The leave: what a keglebillard shot leaves the opponent, learnt, so that a one-pass agent can
choose its shot by the game and not by the shot alone.

Each turn is one shot (K-1), so the position after my shot is the opponent's. The shipped DQN
and the aim correction value a shot by its own points; the sampling planner does the same. But
among the DQN's best nine menu entries, which score about alike, the positions they leave differ
by a standard deviation of about 1.8 points of the opponent's next shot (docs/agents.md, "The
leave"; ``experiments/leave_probe.py``). Here a network
learns that **leave value** from simulation, and :class:`LeaveAwareAgent` plays the entry with
the best ``points - weight * leave``, with one forward pass of each network:

- **labels** (:func:`label_leave_games`, :func:`leave_values`): for each position of games
  played by the base agent and each of its ``entries`` best menu entries, the strike is played
  under ``draws`` draws of the tournament noise; at every position it leaves, a small search
  (the reply search of :class:`~cuegym.agents.guided.GuidedPlannerAgent`: the planner's
  candidates under a few draws, the best mean value) values the next shot for the side to
  move there, counted for the shooter's opponent (so his likely fouls count for us); a
  finished game leaves nothing (0). The label is the mean over the draws, in the planner's
  points (``arena.values``);
- **network**: an :class:`~cuegym.agents.aim.AimNet` with two outputs, the leave and the
  shot's own value under the same draws (the planner's points, so a foul costs the skæve it
  hands over), on the aim correction's inputs (:func:`~cuegym.agents.aim.aim_inputs`: the
  position, the strike and the balls, pins and pockets in the shot's frame); a network of one
  output (the leave alone) still plays with ``own=0``;
- **play** (:class:`LeaveAwareAgent`): the base DQN's ``entries`` best entries and their
  Q-values (``SB3Agent.ranked(..., values=True)``), Q turned into points by the reward's scale
  (``configs/reward/keglebillard.yaml``: ``points`` per point) and blended with the network's
  own value (``own``: its share), minus ``weight`` times the predicted leave; the best is
  played (through the aim correction when the agent is wrapped in one, as ``make_agent``
  does).

    python experiments/train_aim.py --config configs/aim/keglebillard_leave.yaml

trains one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.agents.aim import (
    AimNet,
    aim_inputs,
    entry_count,
    game_positions,
    keglebillard_arena,
    load_aim,
)
from cuegym.agents.base import Agent, Strikes, load_noise


def reply_search(arena: Any, candidates: int = 12, noise: int = 4) -> Any:
    """The opponent model of the labels: a :class:`GuidedPlannerAgent` whose reply search
    (``candidates`` of the planner's strikes under ``noise`` draws each) values positions."""
    from cuegym.agents.guided import GuidedPlannerAgent

    return GuidedPlannerAgent("keglebillard", n_candidates=2, n_policy=0, policy="none",
                              reply_candidates=int(candidates), reply_noise=int(noise),
                              arena=arena, name="leave-reply")


def shot_and_leave(arena: Any, reply: Any, states: Any, strikes: Strikes, per_state: int,
                   draws: int, noise: Any, rng: np.random.Generator
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Each strike's own value and its leave under each noise draw (module doc).

    Args:
        states: T positions (a ``KegleStates`` batch). strikes: T * per_state strikes,
            state-major. draws: noise draws per strike, common to a state's block.
        reply: :func:`reply_search`. noise: a ``ShotNoise``.

    Returns:
        ``own`` (T, per_state, draws): the shot's value for the shooter (``arena.score``, the
        planner's values) and ``leave`` (T, per_state, draws): the opponent's value of the
        next shot from the position it leaves [points], 0 for a game over.
    """
    from cuegym.agents.planner import noisy_batch

    batch = arena.g.batch(states)
    T = len(batch)
    rep, noisy = noisy_batch(arena, batch, strikes, np.full(T, per_state, np.int64), noise,
                             draws, rng)
    out, new = arena.outcomes(rep, noisy)
    shooter = np.repeat(arena.movers(batch), per_state * draws)
    groups = np.repeat(np.arange(T), per_state * draws)  # a root's next states: equal luck
    leave = -reply.next_values(new, shooter, rng, groups)
    return (arena.score(out).reshape(T, per_state, draws),
            leave.reshape(T, per_state, draws))


def leave_values(arena: Any, reply: Any, states: Any, strikes: Strikes, per_state: int,
                 draws: int, noise: Any, rng: np.random.Generator) -> np.ndarray:
    """(T, per_state) the mean leave of strikes in blocks of ``per_state`` per state over
    ``draws`` draws (:func:`shot_and_leave`): the labels."""
    return shot_and_leave(arena, reply, states, strikes, per_state, draws, noise,
                          rng)[1].mean(2)


def label_leave_games(base: str, opponent: str, n_games: int, seed: Sequence[int],
                      entries: int, draws: int, reply: Sequence[int] = (12, 4),
                      noise: Any = "tournament", chunk: int = 16, threads: int = 1
                      ) -> dict[str, np.ndarray]:
    """Training data from whole games (one piece of ``experiments/train_aim.py`` with ``target:
    leave``): ``n_games`` games of ``base`` (a discrete-menu DQN spec) against ``opponent``,
    seats alternating, and for every position met its ``entries`` best menu entries, each with
    its :func:`leave_values` (``reply``: the reply search's candidates and draws).

    Returns:
        ``x`` (T * entries, D) float32 inputs, ``values`` (T * entries, 1) float32 leaves,
        ``entry`` (T * entries,) int64 rank, ``q`` (T * entries,) float32 the DQN's Q-values,
        ``own`` (T * entries,) float32 the shot's own mean value over the same draws (the
        planner's points: fouls count as the skæve handed over).
    """
    arena, agent, states, rng = game_positions(base, opponent, n_games, seed, threads)
    noise = load_noise(noise) if isinstance(noise, str) else noise
    model = reply_search(arena, *reply)
    k, T = int(entries), len(states)
    xs, ys, qs, owns = [], [], [], []
    for a in range(0, T, chunk):
        sub = states.take(np.arange(a, min(a + chunk, T)))
        strikes, q = agent.ranked(sub, k, values=True)
        xs.append(aim_inputs(arena, sub.take(np.repeat(np.arange(len(sub)), k)), strikes)[0])
        own, leave = shot_and_leave(arena, model, sub, strikes, k, draws, noise, rng)
        ys.append(leave.mean(2).reshape(-1))
        owns.append(own.mean(2).reshape(-1))
        qs.append(q.reshape(-1))
    return {"x": np.concatenate(xs), "values": np.concatenate(ys)[:, None].astype(np.float32),
            "entry": np.tile(np.arange(k), T), "q": np.concatenate(qs).astype(np.float32),
            "own": np.concatenate(owns).astype(np.float32)}


def q_points(game: str = "keglebillard") -> float:
    """Points per unit of the DQN's Q-value: 1 / the reward's ``points`` weight (the one place
    the reward's scale is set, ``configs/reward/<game>.yaml``)."""
    from cuegym.envs.config import load_reward

    w = float(load_reward(game).points)
    if w <= 0:
        raise ValueError(f"the {game} reward's points weight is {w}; Q cannot be read as points")
    return 1.0 / w


class LeaveAwareAgent(Agent):
    """Plays the base DQN's entry of best ``(1 - own) * Q (in points) + own * own value -
    weight * leave`` among its ``entries`` best (module doc). One forward pass of the DQN and
    of the leave network.

    Args:
        base: a discrete-menu DQN agent (``SB3Agent``; it must rank its entries).
        leave: the leave network (:class:`~cuegym.agents.aim.AimNet` whose outputs are the
            leave and, optionally, the own value) or its path.
        entries: menu entries to choose among (default: the network's recipe, else 9).
        weight: how much a point of the opponent's next shot counts against one of ours
            (default: the recipe's, else 0.75).
        own: the network's own-value share of a shot's points, in [0, 1], the DQN's Q the rest
            (default: the recipe's, else 0; > 0 needs a network with the own output).
        arena: the keglebillard arena. name: label in tables (default ``"<base>+leave"``).
    """

    game = "keglebillard"

    def __init__(self, base: Agent, leave: AimNet | str | Path, entries: int | None = None,
                 weight: float | None = None, own: float | None = None, arena: Any = None,
                 name: str | None = None) -> None:
        if base.game != "keglebillard" or not hasattr(base, "ranked"):
            raise ValueError(f"the leave needs a keglebillard DQN that ranks its entries, not "
                             f"{base.name!r}")
        self.base = base
        self.net, self.meta = (leave, {}) if isinstance(leave, AimNet) \
            else load_aim(leave, kind="leave")
        recipe = self.meta.get("config") or {}
        if len(self.net.offsets) not in (1, 2) or recipe.get("target", "leave") != "leave":
            shown = leave if isinstance(leave, str | Path) else f"<{type(leave).__name__}>"
            raise ValueError(f"leave={shown}: an aim network ({len(self.net.offsets)} offsets), "
                             "not a leave network (the leave, then the own value); an aim "
                             "network is passed as aim=")
        play = recipe.get("leave") or {}
        entries = recipe.get("entries", 9) if entries is None else entries
        weight = play.get("weight", 0.75) if weight is None else weight
        own = play.get("own", 0.0) if own is None else own
        for key, val, top, say in (("weight", weight, np.inf, "a finite number >= 0"),
                                   ("own", own, 1.0, "a number in [0, 1]")):
            if isinstance(val, bool) or not isinstance(val, (int, float, np.floating)) \
                    or not np.isfinite(val) or not 0.0 <= val <= top:
                raise ValueError(f"{key}={val!r} must be {say}")
        if own > 0 and len(self.net.offsets) < 2:
            raise ValueError(f"own={own!r}: {leave} predicts the leave alone, not the shot's "
                             "own value (pass own=0)")
        self.entries, self.weight, self.own = entry_count(entries), float(weight), float(own)
        base.ranked([], self.entries)  # checks the count now, not in a game
        self.arena = keglebillard_arena(arena)
        self.scale = q_points()
        self.name = name or f"{base.name}+leave"

    def predict(self, states: Any, strikes: Strikes) -> np.ndarray:
        """(n, outputs) the network's predictions [points] for each strike (one per state of
        ``states``): the leave, then (when it has one) the shot's own value."""
        return self.net.points(aim_inputs(self.arena, states, strikes)[0])

    def leaves(self, states: Any, strikes: Strikes) -> np.ndarray:
        """(n,) the predicted leave [points] of each strike (one per state of ``states``)."""
        return self.predict(states, strikes)[:, 0]

    def ranked(self, states: Sequence[Any], k: int, values: bool = False
               ) -> Strikes | tuple[Strikes, np.ndarray, np.ndarray]:
        """The ``k`` best of the base DQN's ``entries`` best entries by this agent's choice
        (``(1 - own) * Q + own * own value - weight * leave``, points), best first; entry 0 is
        what :meth:`act` plays. So a correction can choose among the leave's best entries
        (``base_strikes``), as it does among the DQN's.

        Returns:
            ``len(states) * k`` strikes, state-major (entry e of state t at row ``t * k + e``);
            with ``values``, also their choice values [points], (len(states), k), and the
            predicted leaves [points], (len(states), k).
        """
        if isinstance(k, bool | np.bool_) or not isinstance(k, int | np.integer):
            raise ValueError(f"k (the best entries asked for) must be an integer, got "
                             f"{k!r}")  # int(2.5) gave 2 entries without a word
        k = int(k)
        if not 1 <= k <= self.entries:
            raise ValueError(f"{k} best entries asked for; the leave chooses among "
                             f"{self.entries} (1 to {self.entries})")
        K = self.entries
        strikes, q = self.base.ranked(states, K, values=True)
        if not len(strikes):
            return (strikes, np.zeros((0, k)), np.zeros((0, k))) if values else strikes
        batch = self.arena.g.batch(states)
        T = len(batch)
        pred = self.predict(batch.take(np.repeat(np.arange(T), K)), strikes).reshape(T, K, -1)
        points = self.scale * q
        if self.own > 0:
            points = (1.0 - self.own) * points + self.own * pred[:, :, 1]
        score = points - self.weight * pred[:, :, 0]
        order = np.argsort(-score, axis=1, kind="stable")[:, :k]  # ties: the DQN's order
        chosen = strikes.take((np.arange(T)[:, None] * K + order).reshape(-1))
        if not values:
            return chosen
        return (chosen, np.take_along_axis(score, order, 1),
                np.take_along_axis(pred[:, :, 0], order, 1))

    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        return self.ranked(states, 1)

    def reset(self) -> None:
        self.base.reset()


__all__ = ["LeaveAwareAgent", "label_leave_games", "leave_values", "q_points", "reply_search",
           "shot_and_leave"]
