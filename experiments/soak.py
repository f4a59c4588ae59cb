"""Soak test: many random shots on both tables; every failure class must stay at zero.

    python experiments/soak.py --shots 1000000      # (not in CI; ~minutes on 2 cores)
    python experiments/soak.py --hostile --shots 1000000   # inputs at the edges (hours)

Counts, per game: crashes (exceptions), overflows (max_events or t_max reached), NaN/inf in any
final state, overlaps of balls at rest, tunnelling (a ball at rest off the bed, inside a post or
a standing pin), balls still moving in a table that reports it came to rest. Prints a JSON
summary; exits 1 if any failure count is non-zero.

``--hostile`` draws :func:`cuegym.physics.scenarios.hostile_shots`: every ball of the game in
frozen (touching) clusters, one struck at up to the V0 limit with any tip offset, half of them
massé, a quarter with initial spins up to the spin limit on every ball, squirt on for half the
batches, t_max at its limit. There a flagged overflow is a reported outcome, not a failure (a
spin of ~900 rad/s alone decays for ~80 s), and is counted as ``overflow_reported``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

import numpy as np

from cuegym.cli_errors import UsageError, cli_main, script_prog, seed_arg, unknown
from cuegym.configs import load_params, load_table
from cuegym.physics import GAME_MODELS, Models, Workspace, simulate
from cuegym.physics.api import check_memory
from cuegym.physics.constants import MAX_EVENTS, MAX_T, POCKETED, TOUCHING_MODELS
from cuegym.physics.scenarios import golfbillard_shots, hostile_shots, keglebillard_shots

#: Tolerance [m] of the overlap and tunnelling checks; a table cut short (overflow) may be in
#: the middle of a jam, where each collision's kiss moves a ball up to 5 kiss spacers.
TOL = 1e-6
TOL_CUT = 1e-5


def check(table, params, res) -> dict:
    R = params.R
    tol = np.where(res.overflow == 0, TOL, TOL_CUT)[:, None]
    xy = res.rvw[:, :, 0, :2]
    on = res.motion != POCKETED
    finite = np.isfinite(res.rvw).all(axis=(1, 2, 3))
    B = xy.shape[1]
    d = np.linalg.norm(xy[:, :, None] - xy[:, None], axis=-1)
    iu = np.triu(np.ones((B, B), bool), 1)
    close = d < 2 * R - tol[:, :, None]
    overlap = (on[:, :, None] & on[:, None, :] & iu & close).any(axis=(1, 2))
    outside = ((np.abs(xy[..., 0]) > table.length / 2 - R + tol)
               | (np.abs(xy[..., 1]) > table.width / 2 - R + tol))
    # where the cushions are cut for a pocket a ball may come to rest on the lip, past the
    # nose line but outside the capture circle; anywhere else outside means tunnelling
    lip = np.zeros_like(outside)
    for p in table.pockets:
        lip |= np.hypot(xy[..., 0] - p.x, xy[..., 1] - p.y) < p.radius + 2 * R
    off = on & outside & ~lip
    off |= on & ((np.abs(xy[..., 0]) > table.length / 2) | (np.abs(xy[..., 1]) > table.width / 2))
    for c in table.circles:
        off |= on & (np.hypot(xy[..., 0] - c.x, xy[..., 1] - c.y) < c.radius + R - tol)
    for k, (px, py) in enumerate(table.pin_spots):
        near = np.hypot(xy[..., 0] - px, xy[..., 1] - py) < table.pin_radius + R - tol
        off |= on & near & res.pins_up[:, k:k + 1]
    moving = on & (res.motion != 0) & (res.overflow == 0)[:, None]
    return {"overflow": res.overflow != 0, "nan": ~finite, "overlap": overlap,
            "tunnelling": off.any(axis=1), "not_at_rest": moving.any(axis=1)}


GENERATORS = {"keglebillard": keglebillard_shots, "golfbillard": golfbillard_shots}


def _args(argv: list[str] | None) -> argparse.Namespace:
    """The command line, checked."""
    ap = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--shots", type=int, default=100_000,
                    help="shots per game (default 100000)")
    ap.add_argument("--batch", type=int, default=None,
                    help="tables per call (default 4096, hostile 1024)")
    ap.add_argument("--seed", type=seed_arg, default=0, help="shot generator seed (default 0)")
    ap.add_argument("--max-events", type=int, default=None,
                    help=f"log size per table, 1 to {MAX_EVENTS} (default 2000, hostile 5000)")
    ap.add_argument("--hostile", action="store_true", help="inputs at the edges (see above)")
    ap.add_argument("--games", default="keglebillard,golfbillard",
                    help="comma-separated tables (default keglebillard,golfbillard)")
    ap.add_argument("--save-failures", metavar="DIR",
                    help="write the inputs of every failing shot to DIR/<game>_seed<S>_at<N>.npz")
    ap.add_argument("--progress", action="store_true", help="running counts on stderr")
    ap.add_argument("--touching", choices=sorted(TOUCHING_MODELS), default=GAME_MODELS.touching,
                    help="the touching-pair rule (default the games' "
                         f"{GAME_MODELS.touching!r}; docs/physics.md section 7)")
    args = ap.parse_args(argv)
    games = args.games.split(",")
    for game in games:
        if game not in GENERATORS:
            raise UsageError(unknown("game", game, GENERATORS))
    if len(set(games)) < len(games):  # the same shots twice, counted twice, reported once
        ap.error(f"--games {args.games!r} names a game twice")
    for opt, v, lo in (("--shots", args.shots, 1), ("--batch", args.batch, 1),
                       ("--max-events", args.max_events, 1)):
        if v is not None and v < lo:  # 0 would silently mean the default
            ap.error(f"{opt} must be >= {lo}, got {v}")
    if args.max_events is not None and args.max_events > MAX_EVENTS:  # else every call crashes
        ap.error(f"--max-events must be at most {MAX_EVENTS} (the simulator's limit), got "
                 f"{args.max_events}")
    if args.save_failures and not os.path.isdir(args.save_failures):
        ap.error(f"--save-failures: no directory {args.save_failures!r}")
    return args


def save_failures(path: str, shots: dict, idx: np.ndarray, kw: dict, max_events: int) -> None:
    """The inputs ``shots`` (the generator's arrays) of the shots ``idx`` and the call's
    settings, to the npz file ``path``, written under a temporary name and renamed (an
    interrupted soak leaves no half-written file)."""
    from pathlib import Path

    final = Path(path)
    tmp = final.with_name(f".{final.stem}.{os.getpid()}.tmp.npz")
    try:
        np.savez(tmp, **{k: np.asarray(v)[idx] for k, v in shots.items()},
                 squirt=kw["models"].squirt, touching=kw["models"].touching,
                 t_max=kw.get("t_max", 60.0),
                 max_events=max_events)
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)


def _soak_game(game: str, args: argparse.Namespace, batch: int, max_events: int,
               fails: tuple[str, ...]) -> dict:
    """``args.shots`` shots of ``game`` in calls of ``batch`` tables: the counts of every
    check (:func:`check`), crashes, events and seconds; the inputs of shots failing one of
    ``fails`` saved under --save-failures."""
    table, params = load_table(game), load_params(game)
    rng = np.random.default_rng(args.seed)
    ws = Workspace()
    counts = {"shots": 0, "crashes": 0, "overflow": 0, "overflow_reported": 0, "nan": 0,
              "overlap": 0, "tunnelling": 0, "not_at_rest": 0, "events": 0}
    t0 = time.perf_counter()
    while counts["shots"] < args.shots:
        n = min(batch, args.shots - counts["shots"])
        if args.hostile:
            s = hostile_shots(rng, table, params, n, len(table.ball_ids))
            kw = {"w": s["w"], "t_max": MAX_T,
                  "models": Models(squirt=bool(rng.integers(0, 2)), touching=args.touching)}
        else:
            s = GENERATORS[game](rng, table, params, n)
            kw = {"models": Models(touching=args.touching)}
        try:
            res = simulate(table, params, s["xy"], cue_ball=s["cue_ball"], cue=s["cue"],
                           pins_up=s.get("pins_up"), max_events=max_events, workspace=ws, **kw)
        except Exception:  # noqa: BLE001 - a soak test counts every crash
            traceback.print_exc()
            counts["crashes"] += n
            bad = np.ones(n, bool)  # the whole call crashed: every input is kept
        else:
            flags = check(table, params, res)
            for k, v in flags.items():
                counts[k if k != "overflow" or not args.hostile else "overflow_reported"] += \
                    int(v.sum())
            bad = np.zeros(n, bool)
            for k in fails:
                if k in flags:
                    bad |= flags[k]
            counts["events"] += int(res.n_events.sum())
        if args.save_failures and bad.any():
            save_failures(f"{args.save_failures}/{game}_seed{args.seed}_at{counts['shots']}.npz",
                          s, np.nonzero(bad)[0], kw, max_events)
        counts["shots"] += n
        if args.progress:  # the counts with this call's shots and events
            print(json.dumps({game: {**counts, "seconds": round(time.perf_counter() - t0)}}),
                  file=sys.stderr, flush=True)
    counts["seconds"] = round(time.perf_counter() - t0, 1)
    counts["events_per_shot"] = round(counts["events"] / max(counts["shots"], 1), 2)
    return counts


@cli_main
def main(argv=None) -> int:
    args = _args(argv)
    max_events = args.max_events or (5000 if args.hostile else 2000)
    batch = args.batch or (1024 if args.hostile else 4096)
    fails = ("crashes", "nan", "overlap", "tunnelling", "not_at_rest")
    if not args.hostile:
        fails += ("overflow",)
    tables = min(batch, args.shots)  # of the largest call
    for game in args.games.split(","):  # a log too large for the memory: refused now, not
        table = load_table(game)  # counted as a crash of every call
        try:
            check_memory(tables, len(table.ball_ids), len(table.pin_spots), max_events)
        except ValueError as exc:
            raise UsageError(f"--max-events {max_events} with {tables} tables a call (--batch)"
                             f": {exc}") from None
    summary = {}
    bad_total = 0
    for game in args.games.split(","):
        counts = _soak_game(game, args, batch, max_events, fails)
        summary[game] = counts
        bad_total += sum(counts[k] for k in fails)
        print(json.dumps({game: counts}), flush=True)
    print(json.dumps({"ok": bad_total == 0, "hostile": args.hostile, "seed": args.seed,
                      **summary}))
    return 0 if bad_total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
