"""Aim bound: how far can a correction of the shipped agent's aim (and choice among its best
entries) take it in games, if it were perfect?

The keglebillard networks learn value curves over aim offsets that simulation gives exactly. This
measurement replaces the networks by that simulation at play time: :class:`AimSearchAgent` takes
the shipped agent's ``--entries`` best strikes (the leave's ranking, ``LeaveAwareAgent.ranked``),
turns each by ``--n`` aim offsets in [-``--offset``, +``--offset``] degrees (signed by the cut
side, as the aim network's), simulates every turned strike under ``--draws`` common draws of the
tournament noise (``aim.aim_curves``, the aim labels' own code) and plays the strike and offset of
highest mean value minus the leave's weight times its predicted leave. It simulates
``entries x n x draws`` shots a move (336 for one entry): **a bound for the networks, not an
agent to ship**. With ``--entries 1`` it is the exact counterpart of the shipped aim correction
(which predicts the same curves without simulating).

    python experiments/aim_bound.py --entries 1 --games 500 --seed 900

prints the games won against ``--opponent`` (Wilson 95 %), points a shot and fouls;
docs/keglebillard_gap.md ("The bound of the aim correction, in games") has the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from cuegym.agents import make_agent
from cuegym.agents.aim import aim_curves, choose_and_turn
from cuegym.agents.arena import make_arena
from cuegym.agents.base import Agent, Strikes, load_noise
from cuegym.agents.head_to_head import play_games
from cuegym.agents.ratings import wilson_interval
from cuegym.cli_errors import check_counts, cli_main, script_prog, seed_arg


class AimSearchAgent(Agent):
    """Simulates at play time (module doc): of ``base``'s ``entries`` best strikes, the one and
    the aim offset of highest simulated mean value - ``weight`` x its predicted leave.

    Args:
        base: the agent whose strikes are searched: a ``LeaveAwareAgent`` (its ranking and
            predicted leaves; ``weight`` defaults to its own) or any keglebillard agent with
            ``entries`` = 1 (no leave term then).
        arena: the keglebillard arena (simulates the searched strikes).
        entries: strikes searched per move. offsets: (n,) aim offsets [deg], signed by the cut
            side. draws: noise draws per turned strike, common to a move's strikes.
        noise: the execution noise the search assumes (a ``configs/envs/noise.yaml`` name).
        weight: a point of predicted leave against one of own value (default: the base's).
    """

    game = "keglebillard"

    def __init__(self, base: Agent, arena: Any, entries: int = 1,
                 offsets: Sequence[float] = tuple(np.linspace(-1.0, 1.0, 21)), draws: int = 16,
                 noise: str = "tournament", weight: float | None = None) -> None:
        if entries > 1 and not hasattr(base, "leaves"):
            raise ValueError(f"entries={entries}: {base.name!r} does not rank its strikes by a "
                             "leave (pretrained:aim=none,leave=shipped does)")
        self.base, self.arena, self.entries, self.draws = base, arena, int(entries), int(draws)
        self.offsets = np.asarray(offsets, np.float64)
        self.noise = load_noise(noise)
        self.weight = float(getattr(base, "weight", 0.0) if weight is None else weight)
        self.name = f"aimsearch{self.entries}"

    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        return choose_and_turn(self.base, self.arena, states, self.entries, rng, self.offsets,
                               self.weight, lambda rep, strikes, x: aim_curves(
                                   self.arena, rep, strikes, self.offsets, self.draws, rng,
                                   self.noise)[1])

    def reset(self) -> None:
        self.base.reset()


def bound(entries: int, games: int, seed: int, opponent: str = "planner",
          agent: str = "pretrained:aim=none,leave=shipped", draws: int = 16,
          offset: float = 1.0, n: int = 21) -> dict[str, Any]:
    """Play ``games`` games (seats alternating, tournament noise) of :class:`AimSearchAgent`
    over ``agent``'s strikes against ``opponent``; returns the tally (JSON-ready). ``n``, the
    offsets in [-``offset``, ``offset``], is odd and >= 3 (0, the unturned strike, among them)."""
    if n < 3 or n % 2 == 0:
        raise ValueError(f"n must be an odd number >= 3 (0 among the offsets), got {n}")
    arena = make_arena("keglebillard")
    searcher = AimSearchAgent(make_agent(agent, "keglebillard", arena=arena), arena, entries,
                              np.linspace(-offset, offset, n), draws)
    return {"agent": agent, "entries": entries, "offsets": n, "offset": offset, "draws": draws,
            "opponent": opponent, "games": games, "seed": seed,
            "simulated_per_move": entries * n * draws,
            **match_tally(arena, searcher, opponent, games, seed)}


def match_tally(arena: Any, agent: Agent, opponent: str, games: int, seed: int
                ) -> dict[str, Any]:
    """Play ``games`` games (seats alternating, tournament noise) of ``agent`` against the
    ``opponent`` spec; its wins of the decided games (Wilson 95 %), points a shot and fouls,
    the opponent's, and the wall time [s] (JSON-ready)."""
    t0 = time.perf_counter()
    res = play_games(arena, [agent, make_agent(opponent, "keglebillard", arena=arena)], games,
                     seed=seed)
    me, them = res.stats(0), res.stats(1)
    decided = me["wins"] + me["losses"]
    return {"wins": me["wins"], "decided": decided, "win_rate": me["wins"] / max(decided, 1),
            "ci95": list(wilson_interval(me["wins"], decided)),
            "points_per_shot": me["points_per_shot"], "foul_rate": me["foul_rate"],
            "opponent_points_per_shot": them["points_per_shot"],
            "opponent_foul_rate": them["foul_rate"],
            "seconds": round(time.perf_counter() - t0, 1)}


def tally_text(res: dict[str, Any]) -> str:
    """One line of a :func:`match_tally`: games won [95 %], points a shot, fouls, the
    opponent's, seconds."""
    lo, hi = res["ci95"]
    return (f"won {res['wins']} of {res['decided']} ({res['win_rate']:.3f} [{lo:.3f}, "
            f"{hi:.3f}]), {res['points_per_shot']:.2f} points a shot, fouls "
            f"{res['foul_rate']:.1%} (opponent {res['opponent_points_per_shot']:.2f}, "
            f"{res['opponent_foul_rate']:.1%}); {res['seconds']} s")


#: Largest --offset [deg]: the range of the aim network's offsets (train_aim's max_deg).
MAX_OFFSET_DEG = 10.0


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--entries", type=int, default=1,
                   help="the leave's best strikes searched (default 1)")
    p.add_argument("--games", type=int, default=500, help="games played (default 500)")
    p.add_argument("--seed", type=seed_arg, default=900, help="the games' seed (default 900)")
    p.add_argument("--opponent", default="planner",
                   help="agent spec (make_agent; default planner)")
    p.add_argument("--agent", default="pretrained:aim=none,leave=shipped",
                   help="the agent whose strikes are searched (default "
                        "pretrained:aim=none,leave=shipped)")
    p.add_argument("--draws", type=int, default=16,
                   help="noise draws per turned strike (default 16)")
    p.add_argument("--offset", type=float, default=1.0,
                   help=f"largest aim offset [deg], in (0, {MAX_OFFSET_DEG:g}] (default 1)")
    p.add_argument("--n", type=int, default=21, help="aim offsets in [-offset, offset], an odd "
                   "number >= 3 (0 in the middle; default 21)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a line")
    args = p.parse_args(argv)
    check_counts(p, args, "entries", "games", "draws", "n")
    if args.n < 3 or args.n % 2 == 0:  # the offsets must include 0, the strike as it is
        p.error(f"--n must be an odd number >= 3 (offsets from -offset to +offset with 0, the "
                f"strike unturned, in the middle), got {args.n}")
    if not 0.0 < args.offset <= MAX_OFFSET_DEG:  # (nan too) as train_aim's offsets.max_deg
        p.error(f"--offset must be in (0, {MAX_OFFSET_DEG:g}] degrees, got {args.offset}")
    res = bound(args.entries, args.games, args.seed, args.opponent, args.agent, args.draws,
                args.offset, args.n)
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"aim search over {res['entries']} strike(s) x {res['offsets']} offsets x "
          f"{res['draws']} draws ({res['simulated_per_move']} simulated shots a move) against "
          f"{res['opponent']}, seed {res['seed']}: {tally_text(res)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
