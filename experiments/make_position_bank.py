"""Generate a start-position bank of the Shot envs (a version-stamped .npz).

    python experiments/make_position_bank.py                     # keglebillard, 8192 positions
    python experiments/make_position_bank.py --game golfbillard
    python experiments/make_position_bank.py --game keglebillard-play   # 16384, geometric play
    python experiments/make_position_bank.py --n 4096 --seed 1 --out /tmp/bank.npz
    python experiments/make_position_bank.py --game keglebillard --overwrite-shipped

Positions are recorded before shots in simulated games with a plausible random policy, or for
keglebillard-play between two geometric aimers under the tournament shot noise (see
cuegym.envs.positions); the same seed and code give the same file, stamped with the generator
and its version (checked when a bank is loaded). Without ``--out`` the bank goes to
``runs/banks/<game>_positions.npz`` under the working directory (as every command's
``runs/``); only ``--overwrite-shipped`` replaces the bank shipped in ``envs/data/`` (which the
envs load by name). Prints the bank's composition.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cuegym.cli_errors import check_writable_dir, cli_main, script_prog, seed_arg

GAMES = ("keglebillard", "keglebillard-helmatch", "keglebillard-play", "golfbillard")


@dataclass
class Settings:
    """Bank generation settings (one line each)."""

    game: str = "keglebillard"  # a named bank: keglebillard | keglebillard-helmatch |
    #   keglebillard-play | golfbillard
    n: int = 0  # positions in the bank (0: 8192, keglebillard-play 16384)
    seed: int = 0  # generator seed (the shipped banks use 0)
    out: str = ""  # output path (default: ./runs/banks/<game>_positions.npz)
    overwrite_shipped: bool = False  # write the shipped bank envs/data/<game>_positions.npz
    quiet: bool = False  # no progress bar


@cli_main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                 description=__doc__.splitlines()[0])
    d = Settings()
    ap.add_argument("--game", default=d.game, choices=GAMES,
                    help=f"the bank (default {d.game})")
    ap.add_argument("--n", type=int, default=d.n,
                    help="positions (default 0: the generator's default, 8192, "
                         "keglebillard-play 16384)")
    ap.add_argument("--seed", type=seed_arg, default=d.seed,
                    help=f"generator seed (default {d.seed}, as the shipped banks)")
    ap.add_argument("--out", default=None, help="output .npz (default "
                    "./runs/banks/<game>_positions.npz, under the working directory)")
    ap.add_argument("--overwrite-shipped", action="store_true",
                    help="replace the shipped bank envs/data/<game>_positions.npz")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    if args.out is not None and not args.out.strip():  # '' would silently be the default
        ap.error(f"--out {args.out!r}: give the .npz file (an empty one is not the default)")
    cfg = Settings(**{**vars(args), "out": args.out or d.out})
    from cuegym.envs import positions

    if cfg.n < 0:
        print(f"{ap.prog}: error: --n must be >= 0, got {cfg.n}", file=sys.stderr)
        return 2
    if cfg.out and Path(cfg.out).is_dir():
        print(f"{ap.prog}: error: --out {cfg.out} is a directory (give the .npz file)",
              file=sys.stderr)
        return 2
    if cfg.out and cfg.overwrite_shipped:
        print(f"{ap.prog}: error: --out and --overwrite-shipped exclude each other",
              file=sys.stderr)
        return 2
    shipped = positions.DATA_DIR / f"{cfg.game}_positions.npz"
    path = shipped if cfg.overwrite_shipped else \
        Path(cfg.out) if cfg.out else Path("runs") / "banks" / f"{cfg.game}_positions.npz"
    if path.resolve() == shipped.resolve() and not cfg.overwrite_shipped:
        print(f"{ap.prog}: error: {path} is the shipped bank; pass --overwrite-shipped to "
              "replace it", file=sys.stderr)
        return 2
    if path.resolve().parent == positions.DATA_DIR.resolve() and not cfg.overwrite_shipped:
        # the envs load every file there by name: another game's or table's bank in it would
        # replace that bank (or fail to load) without a word
        print(f"{ap.prog}: error: --out {path} is in the envs' bank folder "
              f"{positions.DATA_DIR}; a bank goes there only as --game <bank> "
              "--overwrite-shipped", file=sys.stderr)
        return 2
    check_writable_dir(path.parent, "--out", path)  # before the positions are generated
    t0 = time.perf_counter()
    bank, stamp = positions.generate_bank(cfg.game, cfg.n, cfg.seed, progress=not cfg.quiet)
    positions.save_positions(bank, path, stamp)
    print(json.dumps({"path": str(path), "bytes": path.stat().st_size,
                      "seconds": round(time.perf_counter() - t0, 1), "stamp": stamp,
                      **bank.summary()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
