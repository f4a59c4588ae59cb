"""Choice bound: how far can the shipped keglebillard agent's *choice* among the DQN's menu
entries take it in games, if its leave network's predictions were replaced by simulation?

The shipped agent (``make_agent("pretrained")``) ranks the DQN's ``entries`` best menu entries
by ``(1 - own) x Q + own x own value - weight x leave`` (``cuegym.agents.leave``), with the own
value and the leave predicted by one network, then plays the winner through the aim correction.
Here :class:`SimulatedChoiceAgent` computes one or both of those predictions the way their labels
were made (``leave.shot_and_leave``): each entry played under ``--draws`` common draws of the
tournament noise, every position left valued for the opponent by the labels' reply search (the
planner's 12 candidates under 4 draws). It simulates about ``entries x draws x 49`` shots a move
(``--entries 36 --draws 8``: some 14,000): **a bound for the networks, not an agent to ship**.
``--entries`` up to 36 (the whole menu) measures what a leave network trained on every entry
could reach; the shipped one was trained on the DQN's best 9.

    python experiments/choice_bound.py --simulate both --entries 36 --draws 8 --games 300 --seed 900

prints the games won against ``--opponent`` (Wilson 95 %), points a shot and fouls;
docs/keglebillard_gap.md ("The whole menu, chosen by simulation") has the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from cuegym.agents import make_agent, with_aim
from cuegym.agents.arena import make_arena
from cuegym.agents.base import Strikes, load_noise
from cuegym.agents.leave import LeaveAwareAgent, reply_search, shot_and_leave
from cuegym.cli_errors import check_counts, cli_main, script_prog, seed_arg, weight_arg
from cuegym.experiments.aim_bound import match_tally, tally_text

#: which of the leave network's outputs are replaced by simulation
SIMULATE = ("leave", "own", "both")


class SimulatedChoiceAgent(LeaveAwareAgent):
    """A :class:`LeaveAwareAgent` whose predicted leave and/or own value are simulated at play
    time (module doc); its choice rule, entries and weights are those of ``leave``.

    Args:
        leave: the agent whose choice is simulated (its base DQN, network, ``entries``,
            ``weight`` and ``own``); the network still gives the outputs not simulated.
        simulate: ``"leave"``, ``"own"`` or ``"both"``.
        draws: noise draws per entry, common to a position's entries.
        reply: the reply search's (candidates, draws), as in the leave labels.
        noise: the execution noise simulated (a ``configs/envs/noise.yaml`` name).
        seed: seeds the simulation's draws (the agent's own generator, so the games' draws are
            those of any other agent).
    """

    def __init__(self, leave: LeaveAwareAgent, simulate: str = "both", draws: int = 8,
                 reply: tuple[int, int] = (12, 4), noise: str = "tournament",
                 seed: int = 0) -> None:
        if simulate not in SIMULATE:
            raise ValueError(f"simulate={simulate!r}: one of {SIMULATE}")
        if simulate != "leave" and leave.own == 0:
            raise ValueError(f"simulate={simulate!r} with own=0: the own value plays no part "
                             "in the choice")
        if int(draws) < 1:
            raise ValueError(f"draws={draws!r}: at least 1")
        super().__init__(leave.base, leave.net, leave.entries, leave.weight, leave.own,
                         leave.arena, name=f"{leave.name}+sim-{simulate}")
        self.simulate, self.draws = simulate, int(draws)
        self.reply = reply_search(self.arena, *reply)
        self.noise = load_noise(noise)
        self.rng = np.random.default_rng(seed)

    def predict(self, states: Any, strikes: Strikes) -> np.ndarray:
        """(n, outputs) the leave and (a network of two outputs) the own value [points] of
        ``entries`` strikes per position, in state-major blocks as :meth:`ranked` asks
        (``states`` repeated ``entries`` times each); the columns not simulated are the
        network's."""
        K, n = self.entries, len(strikes)
        if n % K:
            raise ValueError(f"{n} strikes: the simulated choice takes blocks of {K} a position")
        pred = super().predict(states, strikes).copy()
        roots = states.take(np.arange(n // K) * K)
        own, leave = shot_and_leave(self.arena, self.reply, roots, strikes, K, self.draws,
                                    self.noise, self.rng)
        if self.simulate in ("leave", "both"):
            pred[:, 0] = leave.mean(2).reshape(-1)
        if self.simulate in ("own", "both"):
            pred[:, 1] = own.mean(2).reshape(-1)
        return pred


def bound(simulate: str, entries: int, draws: int, games: int, seed: int,
          opponent: str = "planner", weight: float | None = None, aim: str = "shipped"
          ) -> dict[str, Any]:
    """Play ``games`` games (seats alternating, tournament noise) of the shipped agent with its
    choice simulated (:class:`SimulatedChoiceAgent`, played through the ``aim`` correction)
    against ``opponent``; returns the tally (JSON-ready)."""
    arena = make_arena("keglebillard")
    spec = f"pretrained:aim=none,leave=shipped,entries={entries}"
    if weight is not None:
        spec += f",weight={weight}"
    leave = make_agent(spec, "keglebillard", arena=arena)
    if not isinstance(leave, LeaveAwareAgent):
        raise ValueError("no shipped keglebillard leave network to simulate the choice of")
    chooser = SimulatedChoiceAgent(leave, simulate, draws, seed=seed + 12345)
    return {"simulate": simulate, "entries": chooser.entries, "draws": draws,
            "weight": chooser.weight, "own": chooser.own, "aim": aim, "opponent": opponent,
            "games": games, "seed": seed, "entry_shots_per_move": chooser.entries * draws,
            **match_tally(arena, with_aim(chooser, aim, arena), opponent, games, seed)}


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--simulate", choices=SIMULATE, default="both",
                   help="the predictions replaced by simulation (default both)")
    p.add_argument("--entries", type=int, default=9,
                   help="the DQN's best entries (1-36; default 9)")
    p.add_argument("--draws", type=int, default=8, help="noise draws per entry (default 8)")
    p.add_argument("--games", type=int, default=300, help="games played (default 300)")
    p.add_argument("--seed", type=seed_arg, default=900, help="the games' seed (default 900)")
    p.add_argument("--opponent", default="planner",
                   help="agent spec (make_agent; default planner)")
    p.add_argument("--weight", type=weight_arg, default=None,
                   help="a point of leave against one of own value (default: the shipped one)")
    p.add_argument("--aim", default="shipped",
                   help="aim correction: shipped, none or a .pt (default shipped)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a line")
    args = p.parse_args(argv)
    check_counts(p, args, "entries", "games", "draws")
    res = bound(args.simulate, args.entries, args.draws, args.games, args.seed, args.opponent,
                args.weight, args.aim)
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"choice among {res['entries']} entries, {res['simulate']} simulated under "
          f"{res['draws']} draws, against {res['opponent']}, seed {res['seed']}: "
          f"{tally_text(res)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
