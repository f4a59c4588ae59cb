"""Generate the start-position banks of the Shot envs (envs/data/<game>_positions.npz).

    python experiments/make_position_bank.py                     # keglebillard, 8192 positions
    python experiments/make_position_bank.py --game golfbillard
    python experiments/make_position_bank.py --game keglebillard-play   # 16384, geometric play
    python experiments/make_position_bank.py --n 4096 --seed 1 --out /tmp/bank.npz

Positions are recorded before shots in simulated games with a plausible random policy, or for
keglebillard-play between two geometric aimers under the tournament shot noise (see
cuegym.envs.positions); the same seed and code give the same file. Prints the bank's
composition.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Settings:
    """Bank generation settings (one line each)."""

    game: str = "keglebillard"  # keglebillard | keglebillard-play | golfbillard
    n: int = 0  # positions in the bank (0: 8192, keglebillard-play 16384)
    seed: int = 0  # generator seed (the shipped banks use 0)
    out: str = ""  # output path (default: envs/data/<game>_positions.npz)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    d = Settings()
    ap.add_argument("--game", default=d.game,
                    choices=["keglebillard", "keglebillard-play", "golfbillard"])
    ap.add_argument("--n", type=int, default=d.n)
    ap.add_argument("--seed", type=int, default=d.seed)
    ap.add_argument("--out", default=d.out)
    cfg = Settings(**vars(ap.parse_args(argv)))
    from cuegym.envs import positions

    t0 = time.perf_counter()
    if cfg.game == "keglebillard":
        bank = positions.generate_keglebillard_positions(cfg.n or 8192, seed=cfg.seed)
    elif cfg.game == "keglebillard-play":
        bank = positions.generate_keglebillard_play_positions(cfg.n or 16384, seed=cfg.seed)
    else:
        from cuegym.envs.golf_positions import generate_golfbillard_positions

        bank = generate_golfbillard_positions(cfg.n or 8192, seed=cfg.seed)
    path = Path(cfg.out) if cfg.out else positions.DATA_DIR / f"{cfg.game}_positions.npz"
    positions.save_positions(bank, path)
    print(json.dumps({"path": str(path), "bytes": path.stat().st_size,
                      "seconds": round(time.perf_counter() - t0, 1), **bank.summary()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
