"""Aim sweep: is the keglebillard aimer's aim off in a way a rule (or a network) could learn?

For every position of some geometric-vs-geometric games, the aimer's cheapest shot is played
with its aim turned by each of ``--n`` offsets in [-``--offset``, +``--offset``] degrees, every
offset under the same ``--draws`` draws of the tournament noise (common random numbers), and
valued as the planner values shots (``arena.values``: the shooter's points minus the skæve he
hands over, -2 for ball in hand). The mean value per offset is printed overall and by cut angle,
with the offsets signed by the side of the cut: positive turns the aim toward the white's centre
(a fuller hit), negative away from it (a thinner cut). Friction throw pushes the white toward
the red's line, so an aimer that ignored it would gain from a thinner cut: a systematic bias of
that kind shows as a peak away from 0.

    python experiments/aim_sweep.py --games 30 --draws 24

``--fit``: can a network learn the corrections? ``--games`` games give the training positions
and ``--holdout`` other games the held-out ones; a small MLP (torch) reads the position
(``Kegle.observe``) and the shot (its strike and the aimer's geometry features) and regresses
the whole value curve over the offsets. On the held-out positions every offset is valued again
under fresh draws, and the mean value of three choices is printed: offset 0 (the aimer), the
offset of the network's highest predicted value, and the offset of the highest value of the
first draws (a local search at play time, the upper reference).

    python experiments/aim_sweep.py --games 400 --draws 16 --offset 1 --n 21 --fit

``--layout contact`` fits the package's contact network instead
(:mod:`cuegym.agents.aim_contact`: the shipped aim network's inputs and each offset's contact
geometry), on the same sweeps and judged the same way.

docs/keglebillard_gap.md ("What bounds a keglebillard agent that does not simulate") has the
figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.agents import make_agent
from cuegym.agents.aim import LAYOUTS, SIDE, fit_aim, ghost_contact, inputs_of
from cuegym.agents.arena import make_arena
from cuegym.agents.base import Strikes, load_noise
from cuegym.agents.expert import collect_positions, mean_values
from cuegym.agents.geometric_kegle import kegle_candidates_batch
from cuegym.cli_errors import check_counts, check_writable_dir, cli_main, script_prog, seed_arg
from cuegym.experiments.train_config import check_device

#: Cut-angle bins [deg] of the printed table.
CUT_BINS = ((0, 15), (15, 30), (30, 50), (50, 80))


def cut_sides(red: np.ndarray, white: np.ndarray, phi: np.ndarray, R: float) -> np.ndarray:
    """(T,) +1 / -1: the side to which the red, aimed at ``phi`` [deg] from ``red`` (T, 2) [m],
    cuts the white at ``white`` (T, 2) [m] (sign of the cross product of the red's direction
    and the white's line of centres at contact; balls of radius ``R`` [m]); 0 for a full hit or
    a miss (:func:`cuegym.agents.aim.ghost_contact`)."""
    return ghost_contact(red, white[:, None], phi, R)[2][:, 0]


def sweep(games: int, draws: int, offset: float, n: int, seed: int, chunk: int = 64,
          redraw: bool = False) -> dict[str, np.ndarray]:
    """Mean values of the aimer's cheapest shot under aim offsets.

    ``redraw``: also ``values2``, the same offsets under independent draws.

    Returns:
        ``offsets`` (n,) [deg], ``values`` (T, n) mean values, column j for the aim turned
        by ``offsets[j]`` toward the white's centre (negative: a thinner cut), ``cut`` (T,)
        [deg], ``aimed`` (T,) bool: the shot aims at a white for a target (not the aimer's
        fallback), ``inputs`` (T, D) float32: the position as the player to move sees it
        (``Kegle.observe``), then the shot (V0 / 6, cos and sin of the aim, b, placement in
        half-table units or 0, the aimer's 8 geometry features, cut / 90, the cut side).
    """
    if games < 1 or draws < 1 or n < 2 or not offset > 0:
        raise ValueError(f"need games >= 1, draws >= 1, n >= 2, offset > 0; got {games}, "
                         f"{draws}, {n}, {offset}")
    arena = make_arena("keglebillard")
    geo = make_agent("geometric", "keglebillard")
    states, _, _ = collect_positions(arena, [geo, geo], games, seed=seed)
    T = len(states)
    c = kegle_candidates_batch(arena, states, spins=(-0.4,))
    rows = np.arange(T)
    best = np.argmin(c.cost, axis=1)
    cue, place = c.cue[rows, best], c.place[rows, best]
    white = c.white[rows, best]
    red = np.where(np.isnan(place).any(1)[:, None], states.xy[:, 0], place)
    side = cut_sides(red, states.xy[rows, np.maximum(white, 1)], cue[:, 1], float(arena.R))
    offsets = np.linspace(-offset, offset, n)
    strikes = Strikes(np.repeat(cue, n, 0), np.zeros(T * n, np.int64), np.repeat(place, n, 0))
    strikes.cue[:, 1] += np.tile(offsets, T)
    noise, rng = load_noise("tournament"), np.random.default_rng(seed)

    def curves() -> np.ndarray:  # (T, n), offsets signed by cut side (they are symmetric)
        vals = np.concatenate([
            mean_values(arena, states.take(np.arange(a, min(a + chunk, T))),
                        strikes.take(np.arange(a * n, min(a + chunk, T) * n)), n, draws, noise,
                        rng) for a in range(0, T, chunk)])
        return np.where(side[:, None] < 0, vals[:, ::-1], vals)

    half = np.array([arena.table.length / 2, arena.table.width / 2])
    phi = np.radians(cue[:, 1])
    shot = np.column_stack([cue[:, 0] / 6.0, np.cos(phi), np.sin(phi), cue[:, 4],
                            np.nan_to_num(place / half), c.feats[rows, best],
                            c.cut[rows, best] / 90.0, side])
    out = {"offsets": offsets, "values": curves(), "cut": c.cut[rows, best],
           "aimed": (white > 0) & (c.label[rows, best] >= 0) & (side != 0),
           "inputs": np.hstack([arena.g.observe(states), shot]).astype(np.float32)}
    if redraw:
        out["values2"] = curves()
    return out


def _sweep_part(kw: dict) -> dict[str, np.ndarray]:
    return sweep(**kw)


def sweep_parallel(games: int, draws: int, offset: float, n: int, seed: int, workers: int = 1,
                   redraw: bool = False) -> dict[str, np.ndarray]:
    """:func:`sweep` over ``workers`` processes: worker k sweeps its share of the games with
    seed ``seed + 1000 k`` (worker 0 has ``seed``: one worker is :func:`sweep` itself), the
    parts concatenated in worker order. The kernels are compiled (and cached) once, in this
    process, before the workers start (they would otherwise all compile them at once)."""
    if workers < 1 or workers > games:
        raise ValueError(f"workers must be in 1..games ({games}), got {workers}")
    if workers == 1:
        return sweep(games, draws, offset, n, seed, redraw=redraw)
    from cuegym.agents.pool import label_pool, shares

    sweep(1, 1, offset, n, seed)  # compiles and caches the kernels for the workers
    parts = [{"games": g, "draws": draws, "offset": offset, "n": n, "seed": seed + 1000 * k,
              "redraw": redraw} for k, g in enumerate(shares(games, workers))]
    with label_pool(workers) as pool:
        done = list(pool.map(_sweep_part, parts))
    return {k: done[0][k] if k == "offsets" else np.concatenate([d[k] for d in done])
            for k in done[0]}


def kept_sweep(path: str | None, key: dict, compute: Any) -> dict[str, np.ndarray]:
    """``compute()`` (a sweep), kept in the npz file ``path``: loaded from it when it exists
    and was made with the same ``key`` (the sweep's arguments; another key is refused, naming
    both), else computed and written there. ``path`` None: computed only."""
    if path is None:
        return compute()
    if os.path.exists(path):
        try:
            with np.load(path) as f:
                made = json.loads(str(f["key"]))
                kept = {k: f[k] for k in f.files if k != "key"}
        except (KeyError, ValueError, OSError, zipfile.BadZipFile):  # (JSONDecodeError too)
            raise ValueError(f"{path} is not a sweep made by aim_sweep.py: remove it or pass "
                             "another --sweeps folder") from None
        if made != key:
            raise ValueError(f"{path} holds a sweep of {made}, not of {key}: remove it or "
                             f"pass another --sweeps folder")
        return kept
    from cuegym.experiments.expert_iteration import (
        _atomic_npz,  # the sibling's writer: no half-written file
    )

    out = compute()
    _atomic_npz(Path(path), key=np.array(json.dumps(key)), **out)
    return out


def head(sweep_out: dict[str, np.ndarray], rows: int) -> dict[str, np.ndarray]:
    """The first ``rows`` positions of a :func:`sweep` result."""
    return {k: v if k == "offsets" else v[:rows] for k, v in sweep_out.items()}


def as_aim_inputs(arena: Any, sweep_out: dict[str, np.ndarray]
                  ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A :func:`sweep`'s positions as the shipped aim network's inputs
    (:func:`cuegym.agents.aim.inputs_of`: the balls, pins and the aimer's strike decoded from
    ``inputs``), and its value curves signed as those inputs sign offsets (by the cut side of
    the first white the red meets, else the table's sign; the sweep signs them by the side of
    the aimer's target white): the curves of a row whose two signs differ are reversed.

    Returns:
        ``x`` (T, D) float32 and ``{"values": ..., "values2": ...}`` (those ``sweep_out`` has).
    """
    from cuegym.games.kegle_obs import OBS_DIM, OBS_INDEX

    inputs = np.asarray(sweep_out["inputs"], np.float64)
    obs, shot = inputs[:, :OBS_DIM], inputs[:, OBS_DIM:]
    half = np.asarray(arena.g.half)
    xy = np.stack([np.where(obs[:, [OBS_INDEX[f"{b}_on_table"]]] > 0.5,
                            obs[:, [OBS_INDEX[f"{b}_x"], OBS_INDEX[f"{b}_y"]]] * half, np.nan)
                   for b in ("red", "white", "spotted")], 1)
    up = OBS_INDEX["king_up"]
    in_hand = obs[:, OBS_INDEX["red_in_hand"]] > 0.5
    T = len(inputs)
    cue = np.zeros((T, 5))  # V0, aim, elevation, side spin (the aimer's: 0), top/back spin
    cue[:, 0], cue[:, 1] = shot[:, 0] * 6.0, np.degrees(np.arctan2(shot[:, 2], shot[:, 1]))
    cue[:, 4] = shot[:, 3]
    place = np.where(in_hand[:, None], shot[:, 4:6] * half, np.nan)
    x, _ = inputs_of(arena, obs.astype(np.float32), xy, obs[:, up:up + 5] > 0.5,
                     Strikes(cue, np.zeros(T, np.int64), place))
    flip = (shot[:, -1] < 0) != (x[:, SIDE] < 0)
    return x, {k: np.where(flip[:, None], sweep_out[k][:, ::-1], sweep_out[k])
               for k in ("values", "values2") if k in sweep_out}


def fit_contact(train: dict[str, np.ndarray], held: dict[str, np.ndarray], *,
                hidden: int = 256, head: tuple[int, ...] = (256, 128), epochs: int = 30,
                seed: int = 0, batch: int = 256) -> dict[str, float]:
    """:func:`fit` with the shipped aim network's inputs (:func:`as_aim_inputs`) and its
    contact layout (:class:`cuegym.agents.aim_contact.ContactAimNet`: a trunk of two
    ``hidden`` layers, the ``head`` over each offset's contact geometry), fitted by
    :func:`cuegym.agents.aim.fit_aim` (one-cycle, ``epochs`` passes). The same figures."""
    arena = make_arena("keglebillard")
    (x, tv), (hx, hv) = as_aim_inputs(arena, train), as_aim_inputs(arena, held)
    a, b = train["aimed"], held["aimed"]
    net = fit_aim(x[a], tv["values"][a], train["offsets"], hidden=(hidden, hidden), head=head,
                  epochs=epochs, batch=batch, seed=seed, layout="contact", arena=arena)
    train_pred = np.concatenate([net.points(x[a][i:i + 4096]) for i in range(0, int(a.sum()),
                                                                             4096)])
    return _judge(net.points(hx[b]), hv["values2"][b], hv["values"][b], int(a.sum()),
                  float(((train_pred - tv["values"][a]) ** 2).mean()))


def _judge(pred: np.ndarray, fresh: np.ndarray, first: np.ndarray, n_train: int,
           train_mse: float) -> dict[str, float]:
    """A fit's figures (:func:`fit`) from its predicted curves ``pred`` (T, n) [points] of the
    held-out positions, their fresh-draw curves ``fresh`` and first-draw curves ``first``."""
    rows, zero = np.arange(len(fresh)), fresh.shape[1] // 2
    return {"aimer": float(fresh[:, zero].mean()),
            "network": float(fresh[rows, pred.argmax(1)].mean()),
            "search": float(fresh[rows, first.argmax(1)].mean()),
            "n_train": n_train, "n_held": len(fresh), "train_mse": train_mse,
            "held_mse": float(((pred - fresh) ** 2).mean()),
            "noise_mse": float(((first - fresh) ** 2).mean())}


def fit(train: dict[str, np.ndarray], held: dict[str, np.ndarray], *, hidden: int = 256,
        epochs: int = 200, lr: float = 1e-3, seed: int = 0, batch: int = 256,
        device: str = "cpu") -> dict[str, float]:
    """Train an MLP on ``train``'s positions (:func:`sweep`: ``inputs`` -> the value curve, mean
    squared error) and judge it on ``held`` (a sweep with ``redraw``): the mean fresh-draw
    value (``values2``) of the aimer's shot as is, of the offset the network values highest
    and of the offset the first draws (``values``) value highest.

    ``batch``: positions per gradient step; ``device``: where torch trains (``"cpu"``,
    ``"cuda"``).

    Returns:
        ``aimer``, ``network``, ``search`` (points per shot, held-out positions with an aimed
        shot), ``n_train``, ``n_held``, ``train_mse``, ``held_mse`` (the network's squared
        error against the fresh draws) and ``noise_mse`` (the first draws' against them: twice
        what a perfect predictor of the mean curve would show).
    """
    n = len(train["offsets"])
    if n % 2 == 0 or not np.array_equal(train["offsets"], held["offsets"]):
        raise ValueError(f"fit needs the same odd number of offsets (0 in the middle) in both "
                         f"sweeps, got {n} and {len(held['offsets'])}")
    import torch
    from torch import nn

    torch.manual_seed(seed)
    dev = torch.device(device)
    a, b = train["aimed"], held["aimed"]
    x, y = (torch.as_tensor(train["inputs"][a], device=dev), torch.as_tensor(
        train["values"][a], dtype=torch.float32, device=dev) / 10.0)
    mu, sd = x.mean(0), x.std(0).clamp(min=0.1)  # a feature constant in training stays put
    net = nn.Sequential(nn.Linear(x.shape[1], hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                        nn.ReLU(), nn.Linear(hidden, n)).to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=1e-4)
    for _ in range(epochs):
        for idx in torch.randperm(len(x), device=dev).split(batch):
            loss = ((net((x[idx] - mu) / sd) - y[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        train_mse = float(((net((x - mu) / sd) - y) ** 2).mean()) * 100.0
        held_x = torch.as_tensor(held["inputs"][b], device=dev)
        pred = net((held_x - mu) / sd).cpu().numpy() * 10.0
    return _judge(pred, held["values2"][b], held["values"][b], int(a.sum()), train_mse)


#: Largest --offset [deg]: a quarter turn (an aim turned further points away from its target).
MAX_OFFSET_DEG = 90.0
#: the --fit options' defaults (None on the command line: given without --fit is an error)
FIT_DEFAULTS = {"holdout": 60, "epochs": 200, "hidden": 256, "batch": 256, "device": "cpu",
                "layout": "mlp", "fit_sizes": "", "json": None}


def _args(argv: list[str] | None) -> tuple[argparse.Namespace, list[int]]:
    """The command line, checked, with the --fit defaults filled in; and the --fit-sizes."""
    ap = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=30, help="geometric-vs-geometric games whose "
                    "positions are swept (default 30)")
    ap.add_argument("--draws", type=int, default=24, help="noise draws per offset (default 24)")
    ap.add_argument("--offset", type=float, default=2.5,
                    help=f"largest aim offset [deg], in (0, {MAX_OFFSET_DEG:g}] (default 2.5)")
    ap.add_argument("--n", type=int, default=11,
                    help="offsets in [-offset, offset], >= 2 (odd with --fit; default 11)")
    ap.add_argument("--seed", type=seed_arg, default=123,
                    help="the games' and the draws' seed (default 123; the held-out games "
                         "seed + 1)")
    ap.add_argument("--fit", action="store_true", help="train a network on the curves and "
                    "judge it on --holdout other games")
    d = FIT_DEFAULTS
    ap.add_argument("--holdout", type=int, default=None,
                    help=f"--fit: held-out games (default {d['holdout']})")
    ap.add_argument("--epochs", type=int, default=None,
                    help=f"--fit: training epochs (default {d['epochs']})")
    ap.add_argument("--hidden", type=int, default=None,
                    help=f"--fit: units per hidden layer (default {d['hidden']})")
    ap.add_argument("--batch", type=int, default=None,
                    help=f"--fit: positions per step (default {d['batch']})")
    ap.add_argument("--device", default=None, help="--fit: torch device (cpu, cuda; the "
                    f"mlp layout; default {d['device']})")
    ap.add_argument("--layout", choices=LAYOUTS, default=None, help="--fit: the "
                    "network: an MLP on the sweep's inputs, or the shipped aim network's "
                    "inputs and contact geometry (cuegym.agents.aim_contact; pass --epochs, "
                    f"e.g. 30; default {d['layout']})")
    ap.add_argument("--fit-sizes", default=None, metavar="N,N,..", help="--fit: also fit on the "
                    "first N training positions (a data-scaling curve on the same held-out "
                    "positions; default: all of them only)")
    ap.add_argument("--workers", type=int, default=1, help="processes that sweep (games "
                    "split between them, worker k with seed + 1000 k; default 1)")
    ap.add_argument("--json", metavar="PATH", help="--fit: write the fits' figures here "
                    "(default: none)")
    ap.add_argument("--sweeps", metavar="DIR", help="keep the sweeps in DIR (train.npz, "
                    "held.npz) and reuse them when run again with the same sweep options "
                    "(default: none)")
    args = ap.parse_args(argv)
    given = [k for k in FIT_DEFAULTS if getattr(args, k) is not None]
    if given and not args.fit:  # they would be silently ignored
        ap.error(f"{', '.join('--' + k.replace('_', '-') for k in given)} only "
                 f"appl{'y' if len(given) > 1 else 'ies'} with --fit")
    for k, v in FIT_DEFAULTS.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    if args.fit and (args.holdout < 1 or args.epochs < 1 or args.n % 2 == 0):
        ap.error(f"--fit needs --holdout and --epochs >= 1 and an odd --n (offset 0 in the "
                 f"middle), got {args.holdout}, {args.epochs}, {args.n}")
    try:
        sizes = [int(x) for x in args.fit_sizes.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--fit-sizes takes comma-separated counts, got {args.fit_sizes!r}")
    for name, v in (("--fit-sizes", min(sizes, default=1)), ("--hidden", args.hidden),
                    ("--batch", args.batch)):
        if v < 1:
            ap.error(f"{name} must be >= 1, got {v}")
    if args.layout == "contact" and args.device != "cpu":
        ap.error(f"--device {args.device}: the contact layout trains on the cpu")
    if args.fit:
        check_device(args.device, "--device")  # now, not after the sweep
    if args.json is not None:  # written after the sweep and the fits: found unwritable now
        if not args.json.strip() or Path(args.json).is_dir():
            ap.error(f"--json {args.json!r}: give the file to write the fits' figures to")
        check_writable_dir(Path(args.json).parent, "--json", args.json)
    check_counts(ap, args, "games", "draws")  # (before --workers, which is checked against it)
    if args.n < 2:  # (sweep's own check named no option)
        ap.error(f"--n must be >= 2 (offsets from -offset to +offset), got {args.n}")
    if not 0.0 < args.offset <= MAX_OFFSET_DEG:  # (nan, inf too: inf made every aim nan)
        ap.error(f"--offset must be in (0, {MAX_OFFSET_DEG:g}] degrees, got {args.offset}")
    if not 1 <= args.workers <= args.games:
        ap.error(f"--workers must be in 1..--games ({args.games}), got {args.workers}")
    return args, sizes


def _print_sweep(r: dict, draws: int, seconds: float) -> None:
    """The sweep's mean value per aim offset, over all positions and by cut angle."""
    ok = r["aimed"]
    print(f"{ok.sum()} positions (of {len(ok)}) with an aimed cheapest shot, {draws} draws "
          f"per offset, {seconds:.0f} s")
    print("aim offset, + fuller / - thinner [deg]: " +
          " ".join(f"{x:+6.2f}" for x in r["offsets"]))
    bins = [("all", ok)] + [(f"cut {lo}-{hi} deg", ok & (r["cut"] >= lo) & (r["cut"] < hi))
                            for lo, hi in CUT_BINS]
    for label, m in bins:
        if m.any():
            v = r["values"][m].mean(0)
            print(f"{label:>16} n={m.sum():4d}: " + " ".join(f"{x:+6.2f}" for x in v)
                  + f"   best {r['offsets'][np.argmax(v)]:+.2f}")


def _fit_all(args: argparse.Namespace, r: dict, key: dict, sizes: list[int]) -> None:
    """--fit: sweep the held-out games, fit a network on the first N training positions for
    each of ``sizes`` and on all of them, print each fit's figures (and write them to
    --json)."""
    t0 = time.perf_counter()
    held_workers = min(args.workers, args.holdout)
    held = kept_sweep(
        args.sweeps and os.path.join(args.sweeps, "held.npz"),
        {**key, "games": args.holdout, "seed": args.seed + 1, "workers": held_workers},
        lambda: sweep_parallel(args.holdout, args.draws, args.offset, args.n,
                               args.seed + 1, held_workers, redraw=True))
    print(f"held-out sweep: {len(held['cut'])} positions, {time.perf_counter() - t0:.0f} s")
    fits = []
    # each size once: those at or past the positions labelled are the whole set's fit (said)
    whole = len(r["cut"])
    if any(n >= whole for n in sizes):
        print(f"note: --fit-sizes {sorted(n for n in sizes if n >= whole)} reach the {whole} "
              "positions labelled: fitted once, on all of them", file=sys.stderr)
    for rows in [*sorted({n for n in sizes if n < whole}), whole]:
        t0 = time.perf_counter()
        if args.layout == "contact":
            f = fit_contact(head(r, rows), held, epochs=args.epochs, seed=args.seed,
                            hidden=args.hidden, batch=args.batch)
        else:
            f = fit(head(r, rows), held, epochs=args.epochs, seed=args.seed,
                    hidden=args.hidden, batch=args.batch, device=args.device)
        fits.append({**f, "fit_s": round(time.perf_counter() - t0, 1)})
        print(f"fit: {f['n_train']} training positions, {f['n_held']} held-out positions "
              f"(other games), {fits[-1]['fit_s']:.0f} s; squared error of the value "
              f"curve: train {f['train_mse']:.2f}, held-out {f['held_mse']:.2f} (two noisy "
              f"sweeps of the same positions differ by {f['noise_mse']:.2f})")
        print(f"held-out mean value under fresh draws: the aimer's aim {f['aimer']:+.3f}, "
              f"the network's offset {f['network']:+.3f}, the first draws' best offset "
              f"{f['search']:+.3f}")
    if args.json:  # under a temporary name, then renamed: no half-written file
        path = Path(args.json)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps({"args": vars(args), "positions": int(len(r["cut"])),
                                       "fits": fits}, indent=1))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)


@cli_main
def main(argv: list[str] | None = None) -> int:
    args, sizes = _args(argv)
    t0 = time.perf_counter()
    if args.sweeps:
        check_writable_dir(args.sweeps, "--sweeps")  # a file there: named, not "File exists"
        os.makedirs(args.sweeps, exist_ok=True)
    key = {"games": args.games, "draws": args.draws, "offset": args.offset, "n": args.n,
           "seed": args.seed, "workers": args.workers}
    r = kept_sweep(args.sweeps and os.path.join(args.sweeps, "train.npz"), key,
                   lambda: sweep_parallel(args.games, args.draws, args.offset, args.n,
                                          args.seed, args.workers))
    _print_sweep(r, args.draws, time.perf_counter() - t0)
    if args.fit:
        _fit_all(args, r, key, sizes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
