"""What the pooltool regression tests share (test_pooltool_fixtures.py: the pocketless
rectangle; test_pooltool_pockets.py: tables with pockets): the tolerance, cuegym's run of a
fixture folder, and the event sequences and times compared with pooltool's."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

TOL = 1e-3  # [m] every ball within 1 mm of pooltool


def simulate_fixtures(paths: Sequence[Path]) -> dict[str, tuple[dict, dict]]:
    """The fixtures ``paths`` simulated by cuegym in one batch: file name -> (fixture, cuegym
    output of its ``shot``)."""
    from cuegym.physics import simulate_json

    data = [json.loads(p.read_text()) for p in paths]
    out = simulate_json([d["shot"] for d in data])
    return {p.name: (d, o) for p, d, o in zip(paths, data, out, strict=True)}


def sequence(events: list[dict], types: tuple[str, ...], ball_only: bool = False
             ) -> list[tuple]:
    """(type, agents) of each event of ``types``, in order; ball-ball agents sorted.
    ``ball_only``: the other events keep only their ball, not the cushion or post index (where
    the two simulators number them differently)."""
    seq = []
    for e in events:
        if e["type"] not in types:
            continue
        agents = [str(a) for a in e["agents"]]
        if e["type"] == "ball_ball":
            agents = sorted(agents)
        elif ball_only:
            agents = agents[:1]
        seq.append((e["type"], tuple(agents)))
    return seq


def event_times(events: list[dict], types: tuple[str, ...]) -> list[float]:
    """The times [s] of the events of ``types``, in order."""
    return [e["time"] for e in events if e["type"] in types]
