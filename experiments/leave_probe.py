"""How much the leave is worth in keglebillard, measured with simulation (docs/agents.md, "The
leave"): for positions of games of the shipped DQN against geometric, every menu entry is played
under common noise draws, and every position it leaves is valued for the opponent by the reply
search of :mod:`cuegym.agents.leave` (the labels' opponent model). Entries are then picked by
several rules on the first half of the draws and valued on the other half, so a rule is not
credited with the luck it picked on.

    python experiments/leave_probe.py --games 40 --draws 8 --seed 2
    python experiments/leave_probe.py --games 40 --draws 8 --seed 2 \
        --leave agents/pretrained/keglebillard_leave.pt

Prints one row per rule: own points a shot, the opponent's next shot, and the difference (all in
the planner's values: points minus the skæve handed over, -2 for ball in hand). With
``--leave`` it also plays the learnt leave network's pick (as ``LeaveAwareAgent`` does) among
the DQN's best entries.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from cuegym.cli_errors import cli_main, packaged_path, script_prog, seed_arg, weight_arg


def probe(games: int, draws: int, seed: int, entries: int = 36, best: int = 9,
          weight: float = 0.5, leave: str | None = None, chunk: int = 16) -> dict:
    """The measurement (module doc); returns the rows and the run's figures."""
    from cuegym.agents.aim import game_positions
    from cuegym.agents.base import load_noise
    from cuegym.agents.leave import LeaveAwareAgent, q_points, reply_search, shot_and_leave

    if draws < 2 or draws % 2:  # (named as main's options: checked here before any work)
        raise ValueError(f"--draws must be even and >= 2 (half to pick, half to value), got "
                         f"{draws}")
    if not 1 <= entries <= 36:
        raise ValueError(f"entries must be in [1, 36] (the DQN's menu), got {entries}")
    if not 1 <= best <= entries:
        raise ValueError(f"--best must be in [1, {entries}] (the DQN's entries probed), got "
                         f"{best}")
    t0 = time.time()
    arena, dqn, states, rng = game_positions("pretrained:aim=none", "geometric", games,
                                             (seed,))
    T, reply, noise = len(states), reply_search(arena), load_noise("tournament")
    strikes, q = dqn.ranked(states, entries, values=True)
    own = np.zeros((T, entries, draws))
    left = np.zeros((T, entries, draws))
    for a in range(0, T, chunk):
        idx = np.arange(a, min(a + chunk, T))
        rows = (idx[:, None] * entries + np.arange(entries)).reshape(-1)
        own[idx], left[idx] = shot_and_leave(arena, reply, states.take(idx),
                                             strikes.take(rows), entries, draws, noise, rng)
    h, r = draws // 2, np.arange(T)
    pick_own, pick_left = own[:, :, :h].mean(2), left[:, :, :h].mean(2)
    val_own, val_left = own[:, :, h:].mean(2), left[:, :, h:].mean(2)
    rules = {
        "the DQN's own entry": np.zeros(T, np.int64),
        f"simulated own points (all {entries})": pick_own.argmax(1),
        f"simulated own - {weight} x simulated leave (all {entries})":
            (pick_own - weight * pick_left).argmax(1),
        f"{q_points():g} x Q - {weight} x simulated leave (the DQN's best {best})":
            (q_points() * q[:, :best] - weight * pick_left[:, :best]).argmax(1),
    }
    if leave:
        agent = LeaveAwareAgent(dqn, leave, entries=best, arena=arena)
        pred = agent.predict(states.take(np.repeat(r, best)),
                             strikes.take((r[:, None] * entries + np.arange(best)).reshape(-1)))
        pred = pred.reshape(T, best, -1)
        points, rule = q_points() * q[:, :best], f"{q_points():g} x Q"
        if agent.own > 0:  # as the agent plays: Q blended with the network's own value
            points = (1 - agent.own) * points + agent.own * pred[:, :, 1]
            rule = f"{1 - agent.own:g} x {rule} + {agent.own:g} x the network's own value"
        rules[f"{rule} - {agent.weight} x the network's leave (best {best})"] = \
            (points - agent.weight * pred[:, :, 0]).argmax(1)
    out = {"positions": T, "draws": draws, "seconds": round(time.time() - t0, 1),
           "leave_sd_within_best": float(left[:, :best].mean(2).std(1).mean()),
           "rows": [{"rule": name, "own": float(val_own[r, c].mean()),
                     "opponent": float(val_left[r, c].mean()),
                     "difference": float((val_own - val_left)[r, c].mean())}
                    for name, c in rules.items()]}
    return out


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=40,
                   help="games whose positions are probed (default 40)")
    p.add_argument("--draws", type=int, default=8,
                   help="noise draws per entry (even; default 8)")
    p.add_argument("--seed", type=seed_arg, default=2, help="the games' seed (default 2)")
    p.add_argument("--best", type=int, default=9, help="the DQN's best entries a rule with Q "
                   "picks among (1-36; default 9)")
    p.add_argument("--weight", type=weight_arg, default=0.5,
                   help="weight of the simulated leave (default 0.5)")
    p.add_argument("--leave", help="a leave network (.pt) to add its pick as a rule (default: "
                   "none)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = p.parse_args(argv)
    if args.games < 1:
        raise ValueError(f"--games must be >= 1, got {args.games}")
    leave = None
    if args.leave is not None:  # found as the agents find it: the shipped one from anywhere
        leave = packaged_path(args.leave)
        if not leave.is_file():
            raise ValueError(f"--leave: no leave network {args.leave!r}")
        from cuegym.agents import make_agent

        try:  # made as the probe makes it, now: not after minutes of simulated shots
            make_agent(f"pretrained:aim=none,leave={leave}", "keglebillard")
        except ValueError as e:
            raise ValueError(f"--leave: {e}") from None
    res = probe(args.games, args.draws, args.seed, best=args.best, weight=args.weight,
                leave=None if leave is None else str(leave))
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"{res['positions']} positions, {res['draws']} draws, {res['seconds']} s; the leave's "
          f"spread among the DQN's best {args.best}: {res['leave_sd_within_best']:.2f} points")
    print("| how the entry is picked | own points | opponent's next shot | difference |\n"
          "|---|---|---|---|")
    for row in res["rows"]:
        print(f"| {row['rule']} | {row['own']:.2f} | {row['opponent']:.2f} | "
              f"{row['difference']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
