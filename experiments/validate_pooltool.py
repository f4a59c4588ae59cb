"""Cross-check cuegym's physics against pooltool 0.6.0 on random shots (issue 3).

Both simulators get the same shots, models and parameters: a 2.10 x 1.05 m pocketless table,
61.5 mm / 0.207 kg balls, frictional inelastic ball-ball collisions with Alciatore friction,
Han 2005 cushions (and posts), squirt off. pooltool strikes the cue ball with its
InstantaneousPoint model; cuegym is given pooltool's post-strike velocity and spin (no strike),
so a difference in the strike model cannot hide a difference elsewhere. The strike model is
compared on its own, on random strikes.

``--table keglebillard`` or ``--table golfbillard`` draws the shots on that shipped table
instead (pockets with jaws; goal holes and caps): the runner is given cuegym's own segments
(``TableSpec.arrays``), and the report adds how many balls each side pocketed and whether
every ball's pocket agrees. Those shots, and the setup all shots share, are drawn by
``experiments/pooltool_tables.py``.

pooltool lives in ``.venv-pooltool/`` (created on first use, about 730 MB; it pins an older
numba) and runs
as a subprocess (``experiments/pooltool_runner.py``) with ``HOME`` pointed at a temporary
folder, because it writes ``~/.config/pooltool`` on import. Its results are cached in
``runs/pooltool_cache/`` keyed by seed and shot count.

Usage::

    .venv/bin/python experiments/validate_pooltool.py                 # 500 shots, seed 0
    .venv/bin/python experiments/validate_pooltool.py --shots 50 --seed 3 --json
    .venv/bin/python experiments/validate_pooltool.py --table keglebillard --shots 300
    .venv/bin/python experiments/validate_pooltool.py --save-fixtures tests/fixtures/pooltool 30

Method and results: docs/validation.md.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.cli_errors import (
    UsageError,
    check_writable_dir,
    checkout_path,
    cli_main,
    script_prog,
    seed_arg,
    write_atomic,
)
from cuegym.experiments.pooltool_tables import (
    MAX_EVENTS,
    MODELS,
    PARAMS,
    TABLES,
    R,
    make_table_shots,
    pt_shot,
    random_ab,
    random_phi,
    table_geometry,
)

ROOT = Path(__file__).resolve().parents[1]
PT_VENV = checkout_path(".venv-pooltool")
PT_PYTHON = PT_VENV / "bin" / "python"
RUNNER = ROOT / "experiments" / "pooltool_runner.py"
CACHE_DIR = checkout_path("runs", "pooltool_cache")
POOLTOOL_VERSION = "0.6.0"
#: Bump when the shot generator or the runner's output changes: old caches are then ignored.
#: (3: ball-ball gaps, max_events as cuegym's)
GENERATOR_VERSION = 3

# --- the rectangle's setup (the rest is shared: pooltool_tables) ------------------------------
LENGTH, WIDTH, CUSHION_HEIGHT = 2.10, 1.05, 0.0394
CUE_MASS = PARAMS["M"]
POST_RADIUS = 0.0175
TOL = 1e-3  # [m] the issue's target: every ball within 1 mm
#: [m] a pooltool ball-ball event between balls further apart than this is spurious: pooltool
#: 0.6 finds such contacts between balls rolling along one line (docs/validation.md)
SPURIOUS_GAP = 1e-6
#: [m] the chaos probe's second nudge: every ball moved this far in a random direction
JITTER = 1e-12
COLLISIONS = ("ball_ball", "ball_cushion", "ball_post", "ball_pocket")


@dataclasses.dataclass
class Settings:
    shots: int = 500
    """number of random shots"""
    seed: int = 0
    """seed of the shot generator (numpy PCG64)"""
    strikes: int = 1000
    """number of random strikes for the strike-model comparison"""
    post_share: float = 0.3
    """share of shots with 1-4 round posts"""
    workers: int = 2
    """pooltool subprocesses run in parallel"""
    json: bool = False
    """print the summary as JSON instead of a table"""
    out: str | None = None
    """also write the full report (summary + per-shot rows) as JSON to this file"""
    save_fixtures: str | None = None
    """folder to write regression fixtures into"""
    n_fixtures: int = 30
    """how many fixtures to write"""
    no_cache: bool = False
    """ignore runs/pooltool_cache/"""
    table: str = "rectangle"
    """table of the shots: rectangle (pocketless, random posts) or a shipped table (TABLES)"""


# --- pooltool environment ---------------------------------------------------------------------


def ensure_pooltool_venv() -> None:
    """Create ``.venv-pooltool/`` with pooltool 0.6.0 if it is missing.

    ``pip install pooltool-billiards`` alone resolves to 0.3.3, because 0.6.0 pins a panda3d
    dev build that PyPI lacks. So: install 0.6.0 without dependencies, then its own
    requirement list (read from its metadata) with panda3d>=1.10.13,<1.11 instead.

    Raises:
        UsageError: the environment could not be made (no network, say): one line naming the
            step that failed and what to do, not a traceback.
    """
    check = [str(PT_PYTHON), "-c",
             "import importlib.metadata as m; print(m.version('pooltool-billiards'))"]
    if PT_PYTHON.exists():
        r = subprocess.run(check, capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip() == POOLTOOL_VERSION:
            return
    print(f"creating {PT_VENV} (pooltool {POOLTOOL_VERSION}); pip will warn that pooltool "
          "wants panda3d==1.11.0.dev3702: expected, simulation does not need it", file=sys.stderr)
    try:
        _install_pooltool(check)
    except (subprocess.CalledProcessError, OSError) as exc:
        cmd = getattr(exc, "cmd", None)
        step = (" ".join(map(str, cmd[1:]))[:100] if isinstance(cmd, list | tuple)
                else str(exc))
        status = getattr(exc, "returncode", None)
        raise UsageError(
            f"pooltool {POOLTOOL_VERSION} is not installed and could not be installed into "
            f"{PT_VENV} ({step!r} failed{f' with status {status}' if status else ''}): it is "
            "needed for shots not cached in runs/pooltool_cache/; install it there by hand "
            "(docs/validation.md), or give the --shots and --seed of a run cached there") from None


def _install_pooltool(check: list[str]) -> None:
    """The steps of :func:`ensure_pooltool_venv` (each a subprocess, ``check=True``)."""
    if not PT_PYTHON.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PT_VENV)], check=True)
    pip = [str(PT_PYTHON), "-m", "pip", "install", "-q"]
    subprocess.run(pip + ["--upgrade", "pip"], check=True)
    subprocess.run(pip + ["--no-deps", f"pooltool-billiards=={POOLTOOL_VERSION}"], check=True)
    code = (
        "import importlib.metadata as m, json;"
        "print(json.dumps(m.requires('pooltool-billiards') or []))"
    )
    reqs = json.loads(subprocess.run([str(PT_PYTHON), "-c", code], check=True,
                                     capture_output=True, text=True).stdout)
    wanted = ["panda3d>=1.10.13,<1.11"]
    for req in reqs:
        spec, _, marker = req.partition(";")
        spec = spec.strip()
        name = spec.split("=")[0].split("<")[0].split(">")[0].split("[")[0].strip().lower()
        if name == "panda3d" or "extra ==" in marker:
            continue
        wanted.append(spec)
    subprocess.run(pip + wanted, check=True)
    r = subprocess.run(check, capture_output=True, text=True)
    if r.returncode != 0 or r.stdout.strip() != POOLTOOL_VERSION:
        raise subprocess.CalledProcessError(r.returncode or 1, check[:1] + ["pooltool-billiards",
                                                                           "version check"])


def call_runner(payload: Any, args: list[str], python: str | Path = PT_PYTHON,
                env: dict | None = None) -> Any:
    """``pooltool_runner.py`` run by ``python`` on the JSON ``payload`` in one subprocess (a
    scratch HOME: pooltool writes ~/.config/pooltool on import; ``env``: more variables);
    its JSON answer.

    Raises:
        RuntimeError: the runner failed; the message ends with its stderr's tail.
    """
    with tempfile.TemporaryDirectory(prefix="pooltool_home_") as home:
        r = subprocess.run([str(python), str(RUNNER), *args], input=json.dumps(payload),
                           capture_output=True, text=True,
                           env=dict(os.environ, HOME=home, **(env or {})), cwd=home)
    if r.returncode != 0:
        raise RuntimeError(f"pooltool_runner failed:\n{r.stderr[-4000:]}")
    return json.loads(r.stdout)


def run_pooltool(payload: list, args: list[str] | None = None, workers: int = 2) -> list:
    """Run ``pooltool_runner.py`` on a JSON list in ``workers`` parallel subprocesses."""
    if not payload:
        return []
    ensure_pooltool_venv()
    n_chunks = max(1, min(workers, len(payload)))
    bounds = np.linspace(0, len(payload), n_chunks + 1).astype(int)
    chunks = [payload[bounds[k]:bounds[k + 1]] for k in range(n_chunks)]

    def one(chunk):
        return call_runner(chunk, args or [])

    # The first call compiles pooltool's numba kernels into its cache; let one chunk do it
    # before the others start so they do not all compile at once.
    results = [one(chunks[0])]
    with ThreadPoolExecutor(max_workers=n_chunks) as pool:
        results += list(pool.map(one, chunks[1:]))
    return [r for chunk in results for r in chunk]


# --- random shots on the rectangle (on a shipped table: pooltool_tables) ----------------------


def _random_positions(rng, n, posts, gap=0.002):
    lo_x, lo_y = LENGTH / 2 - R - gap, WIDTH / 2 - R - gap
    pts = []
    while len(pts) < n:
        p = np.array([rng.uniform(-lo_x, lo_x), rng.uniform(-lo_y, lo_y)])
        if all(np.hypot(*(p - q)) >= 2 * R + gap for q in pts) and all(
            np.hypot(p[0] - c["x"], p[1] - c["y"]) >= R + c["radius"] + gap for c in posts
        ):
            pts.append(p)
    return pts


def _random_posts(rng, k):
    """k round posts, away from the rails and from each other by more than a ball."""
    posts = []
    margin = POST_RADIUS + 2 * R + 0.005
    while len(posts) < k:
        c = np.array([rng.uniform(-LENGTH / 2 + margin, LENGTH / 2 - margin),
                      rng.uniform(-WIDTH / 2 + margin, WIDTH / 2 - margin)])
        if all(np.hypot(c[0] - p["x"], c[1] - p["y"]) >= 2 * POST_RADIUS + 2 * R + 0.005
               for p in posts):
            posts.append({"x": float(c[0]), "y": float(c[1]), "radius": POST_RADIUS})
    return posts


def make_shots(n: int, seed: int, post_share: float = 0.3) -> list[dict]:
    """n random cuegym shot objects (JSON format of issue 2, section 7), struck ball "b0"."""
    rng = np.random.default_rng([seed, 3])
    shots = []
    for _ in range(n):
        posts = _random_posts(rng, int(rng.integers(1, 5))) if rng.random() < post_share else []
        n_balls = int(rng.integers(2, 11))
        pts = _random_positions(rng, n_balls, posts)
        a, b = random_ab(rng, 0.5)
        shots.append({
            "table": {"length": LENGTH, "width": WIDTH, "cushion_height": CUSHION_HEIGHT,
                      "pockets": [], "posts": posts},
            "params": dict(PARAMS),
            "models": dict(MODELS),
            "balls": {f"b{i}": {"x": float(p[0]), "y": float(p[1])} for i, p in enumerate(pts)},
            "strike": {"ball": "b0", "V0": float(rng.uniform(0.5, 6.0)), "phi": random_phi(rng),
                       "theta": float(rng.uniform(0.0, 10.0)), "a": a, "b": b},
            "max_events": MAX_EVENTS,
            "t_max": 120.0,
        })
    return shots


def shots_for(cfg: Settings) -> list[dict]:
    """The run's random shots (``cfg.table``)."""
    if cfg.table == "rectangle":
        return make_shots(cfg.shots, cfg.seed, cfg.post_share)
    return make_table_shots(cfg.shots, cfg.seed, cfg.table)


def run_name(cfg: Settings, what: str) -> str:
    """Cache file stem of a run: the rectangle's names are the original ones."""
    tag = "" if cfg.table == "rectangle" else f"{cfg.table}_"
    return f"{what}_{tag}seed{cfg.seed}_n{cfg.shots}"


def make_strikes(n: int, seed: int) -> list[dict]:
    """n random cue strikes (cuegym frame): V0 0.5-6 m/s, any phi, theta 0-70 deg, a^2+b^2<=0.5."""
    rng = np.random.default_rng([seed, 4])
    out = []
    for _ in range(n):
        a, b = random_ab(rng, 0.5)
        out.append({"V0": float(rng.uniform(0.5, 6.0)), "phi": float(rng.uniform(0, 360)),
                    "theta": float(rng.uniform(0, 70)), "a": a, "b": b})
    return out


def replay_shot(shot: dict, pt_result: dict) -> dict:
    """The shot for cuegym: the struck ball starts with pooltool's post-strike v and w."""
    ours = copy.deepcopy(shot)
    strike = ours.pop("strike")
    init = pt_result["init"][strike["ball"]]
    ours["balls"][strike["ball"]].update(v=list(init["v"]), w=list(init["w"]))
    return ours


# --- pooltool results, cached -----------------------------------------------------------------


def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def cached_pooltool(name: str, payload: list, args: list[str], cfg: Settings) -> list:
    """pooltool's results for ``payload``, from runs/pooltool_cache/<name>.json if it matches."""
    path = CACHE_DIR / f"{name}.json"
    key = _digest([GENERATOR_VERSION, POOLTOOL_VERSION, args, payload])
    if path.exists() and not cfg.no_cache:
        try:
            blob = json.loads(path.read_text())
        except (ValueError, OSError):  # a damaged cache file: run pooltool again, rewrite it
            blob = {}
        if isinstance(blob, dict) and blob.get("key") == key:
            return blob["results"]
    t0 = time.perf_counter()
    results = run_pooltool(payload, args, cfg.workers)
    print(f"pooltool: {len(payload)} items in {time.perf_counter() - t0:.1f} s ({name})",
          file=sys.stderr)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps({"key": key, "results": results}))
    return results


# --- cuegym side ------------------------------------------------------------------------------


def simulate_ours(shots: list[dict]) -> list[dict]:
    from cuegym.physics import simulate_json

    out = simulate_json(shots)
    return out if isinstance(out, list) else [out]


def _strikes_ours_via_simulate(strikes: list[dict]) -> list[dict]:
    """cuegym's post-strike state through the batched API (``SimResult.rvw0``)."""
    from cuegym.configs import load_params, load_table
    from cuegym.physics import Models, simulate

    table = load_table("rectangle")
    params = load_params("keglebillard")
    params = dataclasses.replace(params, **PARAMS)
    T = len(strikes)
    xy = np.zeros((T, 1, 2))
    cue = np.array([[s["V0"], s["phi"], s["theta"], s["a"], s["b"]] for s in strikes])
    res = simulate(table, params, xy, cue_ball=np.zeros(T, int), cue=cue,
                   models=Models(squirt=False), max_events=1, t_max=1e-9)
    rvw0 = np.asarray(res.rvw0)
    return [{"v": rvw0[t, 0, 1, :2].tolist(), "w": rvw0[t, 0, 2, :].tolist()} for t in range(T)]


# --- comparison -------------------------------------------------------------------------------


def _collision_events(events: list[dict]) -> list[tuple]:
    """(type, agents) of the ball-ball / ball-cushion / ball-post events, in order."""
    seq = []
    for e in events:
        if e["type"] not in COLLISIONS:
            continue
        agents = [str(a) for a in e["agents"]]
        if e["type"] == "ball_ball":
            agents = sorted(agents)
        seq.append((e["type"], tuple(agents)))
    return seq


def _collision_times(events: list[dict]) -> list[float]:
    return [float(e["time"]) for e in events if e["type"] in COLLISIONS]


def normalise_ours(ev_list: list[dict], rectangle: bool = True) -> list[dict]:
    """cuegym's JSON events with cushion agents named like the runner's ("-x", "+x", ...) on
    the custom rectangle; on a shipped table the runner names them as cuegym does."""
    out = []
    for e in ev_list:
        e = dict(e)
        if rectangle and e["type"] == "ball_cushion":
            e["agents"] = [e["agents"][0], _cushion_name(e["agents"][1])]
        out.append(e)
    return out


#: cuegym's straight cushions of a custom rectangle (configs._rect_cushions), by side
_OUR_CUSHIONS = {"cushion0": "-y", "cushion1": "+x", "cushion2": "+y", "cushion3": "-x"}


def _cushion_name(agent) -> str:
    return _OUR_CUSHIONS.get(str(agent), str(agent))


def compare_shot(pt_res: dict, ours: dict, geom: dict | None = None) -> dict:
    """Per-shot figures: position errors, event-sequence agreement, first divergence; with a
    shipped table's ``geom`` also the pocketed balls and whether their pockets agree."""
    errs = {}
    for bid, p in pt_res["final"].items():
        # pocketed balls too: both simulators put a captured ball at its pocket's centre
        q = ours["final"][bid]
        errs[bid] = math.hypot(q["x"] - p["x"], q["y"] - p["y"])
    worst = max(errs, key=errs.get)
    seq_pt = _collision_events(pt_res["events"])
    ev_ours = normalise_ours(ours["events"], rectangle=geom is None)
    seq_us = _collision_events(ev_ours)
    # cushion identity is compared only by type when our agent names are not the runner's
    t_pt, t_us = _collision_times(pt_res["events"]), _collision_times(ev_ours)
    first_diff = None
    for k in range(max(len(seq_pt), len(seq_us))):
        a = seq_pt[k] if k < len(seq_pt) else None
        b = seq_us[k] if k < len(seq_us) else None
        if a != b:
            first_diff = k
            break
    n_common = first_diff if first_diff is not None else len(seq_pt)
    dt = max((abs(t_pt[k] - t_us[k]) for k in range(n_common)), default=0.0)

    def at(lst, conv=lambda x: x):
        return conv(lst[first_diff]) if first_diff is not None and first_diff < len(lst) else None

    row = {
        "max_err": errs[worst],
        "worst_ball": worst,
        "errs": errs,
        "n_pt_events": len(seq_pt),
        "n_our_events": len(seq_us),
        "seq_equal": first_diff is None,
        "first_diff": first_diff,
        "pt_at_diff": at(seq_pt, list),
        "ours_at_diff": at(seq_us, list),
        "t_pt_at_diff": at(t_pt),
        "t_ours_at_diff": at(t_us),
        "max_dt_common": dt,
        "overflow_pt": bool(pt_res.get("overflow")),
        "overflow_ours": bool(ours.get("overflow")),
        "pooltool_spurious": any(e["type"] == "ball_ball" and e.get("gap", 0.0) > SPURIOUS_GAP
                                 for e in pt_res["events"]),
    }
    if geom is not None:
        pk_pt = {b: p.get("pocket") for b, p in pt_res["final"].items()}
        pk_us = {b: ours["final"][b].get("pocket") for b in pk_pt}
        row.update(pockets_pt=pk_pt, pockets_ours=pk_us,
                   n_pocketed_pt=sum(k is not None for k in pk_pt.values()),
                   n_pocketed_ours=sum(k is not None for k in pk_us.values()),
                   n_pocket_mismatch=sum(pk_pt[b] != pk_us[b] for b in pk_pt),
                   pockets_agree=pk_pt == pk_us)
    return row


def chaos_probe(shots: list[dict], pt_results: list[dict], idx: list[int], cfg: Settings,
                name: str) -> dict[int, float]:
    """How far pooltool moves from itself under two nudges of the shot: the struck ball's speed
    changed by 1e-9 m/s, and every ball moved by :data:`JITTER` (1e-12 m, rounding's size, in
    a seeded random direction: balls laid exactly 2R apart touch or not by rounding).

    Returns, per shot index, the largest final-position change [m] of either. A shot whose own
    pooltool result moves by more than TOL under such a perturbation is chaotic: no second
    simulator can be expected to match it to 1 mm.
    """
    if not idx:
        return {}
    rng = np.random.default_rng(0)
    payload = []
    for i in idx:
        s = replay_shot(shots[i], pt_results[i])
        b = s["balls"][shots[i]["strike"]["ball"]]
        speed = math.hypot(*b["v"])
        b["v"] = [b["v"][0] * (1 + 1e-9 / speed), b["v"][1] * (1 + 1e-9 / speed)]
        payload.append(pt_shot(s))
        s = replay_shot(shots[i], pt_results[i])
        for ball in s["balls"].values():
            a = rng.uniform(0.0, 2 * math.pi)
            ball["x"] += JITTER * math.cos(a)
            ball["y"] += JITTER * math.sin(a)
        payload.append(pt_shot(s))
    res = cached_pooltool(name, payload, [], cfg)
    out = {}
    for k, i in enumerate(idx):
        out[i] = max(math.hypot(r["final"][b]["x"] - p["x"], r["final"][b]["y"] - p["y"])
                     for r in res[2 * k:2 * k + 2] for b, p in pt_results[i]["final"].items())
    return out


def _pct(x, q):
    return float(np.percentile(x, q)) if len(x) else float("nan")


def strike_comparison(cfg: Settings) -> dict:
    strikes = make_strikes(cfg.strikes, cfg.seed)
    args = ["--strike-only", "--R", repr(R), "--m", repr(PARAMS["m"]), "--M", repr(CUE_MASS)]
    pt = cached_pooltool(f"strikes_seed{cfg.seed}_n{cfg.strikes}", strikes, args, cfg)
    try:
        ours = _strikes_ours_via_simulate(strikes)
    except Exception as exc:  # the batched API may not be there yet
        return {"error": f"{type(exc).__name__}: {exc}"}
    dv = [float(np.max(np.abs(np.subtract(o["v"], p["v"])))) for o, p in zip(ours, pt, strict=True)]
    dw = [float(np.max(np.abs(np.subtract(o["w"], p["w"])))) for o, p in zip(ours, pt, strict=True)]
    worst = int(np.argmax(dv))
    return {"n": len(strikes), "max_dv": max(dv), "max_dw": max(dw),
            "worst": {"strike": strikes[worst], "pooltool": pt[worst], "ours": ours[worst]}}


def save_fixtures(folder: Path, k: int, shots, pt_results, rows, chaos, cfg: Settings) -> list:
    """Write k fixtures: pooltool results of shots that are not chaotic (pooltool moves less
    than 0.1 mm under a 1e-9 m/s perturbation). First every such shot on which cuegym is
    beyond 1 mm now (a regression test for the discrepancy it exposes), then the rest spread
    over ball counts and posts (on a shipped table: over how many balls pooltool pocketed and
    ball counts, pocketing shots first, in each group the shots with most collisions)."""
    folder.mkdir(parents=True, exist_ok=True)
    stable = [i for i in range(len(shots)) if chaos.get(i, 1.0) < 1e-4
              and not pt_results[i].get("overflow")]
    exposing = [i for i in stable if rows is not None and rows[i]["max_err"] > TOL][:k]
    # round-robin over (number of balls, has posts) so the set is varied
    groups: dict[tuple, list] = {}
    for i in stable:
        if cfg.table == "rectangle":
            key = (len(shots[i]["balls"]), bool(shots[i]["table"]["posts"]))
        else:  # pooltool's pocketed balls, most first, then the ball count
            n_pk = sum(p.get("pocket") is not None for p in pt_results[i]["final"].values())
            key = (-n_pk, len(shots[i]["balls"]))
        groups.setdefault(key, []).append(i)
    if cfg.table != "rectangle":  # in each group the shots with most collisions first
        for key in groups:
            groups[key].sort(key=lambda i: -len(pt_results[i]["events"]))
    order, keys = list(exposing), sorted(groups)
    for key in keys:
        groups[key] = [i for i in groups[key] if i not in exposing]
    while len(order) < k and any(groups.values()):
        for key in keys:
            if groups[key] and len(order) < k:
                order.append(groups[key].pop(0))
    written = []
    for i in sorted(order):
        r = pt_results[i]
        table_opt = "" if cfg.table == "rectangle" else f"--table {cfg.table} "
        final = {b: {"x": p["x"], "y": p["y"]} for b, p in r["final"].items()}
        if cfg.table != "rectangle":
            for b, p in r["final"].items():
                final[b]["pocket"] = p.get("pocket")
        fx = {
            "source": {"seed": cfg.seed, "shots": cfg.shots, "index": i,
                       "pooltool": POOLTOOL_VERSION,
                       "command": f"experiments/validate_pooltool.py {table_opt}--shots "
                                  f"{cfg.shots} --seed {cfg.seed}"},
            "strike": shots[i]["strike"],
            "shot": replay_shot(shots[i], r),
            "pooltool": {"final": final, "events": r["events"], "t_end": r["t_end"]},
            "pooltool_self_sensitivity_m": chaos.get(i),
        }
        if cfg.table != "rectangle":
            fx["geometry"] = table_geometry(cfg.table)  # what pooltool was given
        if rows is not None and rows[i] is not None:
            fx["cuegym_max_err_m_at_save"] = rows[i]["max_err"]
        tag = "" if cfg.table == "rectangle" else f"{cfg.table}_"
        path = folder / f"{tag}seed{cfg.seed}_shot{i:04d}.json"
        write_atomic(path, json.dumps(fx, indent=1) + "\n")
        written.append(path)
    return written


def _settings(argv: list[str] | None) -> tuple[Settings, bool]:
    """The command line as :class:`Settings`, and whether to run pooltool only."""
    d = Settings()
    ap = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                 description=__doc__.splitlines()[0] + " The first run "
                                 "creates .venv-pooltool/ in the checkout (pip installs "
                                 "pooltool 0.6.0 and its own numba: about 730 MB, needs the "
                                 "package index) and caches pooltool's results under runs/.")
    ap.add_argument("--shots", type=int, default=d.shots,
                    help=f"random shots compared (default {d.shots})")
    ap.add_argument("--seed", type=seed_arg, default=d.seed,
                    help=f"seed of the shot generator (default {d.seed})")
    ap.add_argument("--table", choices=TABLES, default=d.table,
                    help="table of the random shots: the pocketless rectangle with random "
                         "posts, or a shipped table with its pockets, jaws and posts (no pins) "
                         f"(default {d.table})")
    ap.add_argument("--strikes", type=int, default=None,
                    help=f"random strikes of the strike-model comparison (default {d.strikes})")
    ap.add_argument("--workers", type=int, default=d.workers,
                    help=f"pooltool subprocesses run in parallel (default {d.workers})")
    ap.add_argument("--json", action="store_true",
                    help="print the summary as JSON (default: a table)")
    ap.add_argument("--out", help="write the full report (summary and per-shot rows) here "
                    "(default: none)")
    ap.add_argument("--save-fixtures", nargs=2, metavar=("DIR", "K"),
                    help="write K regression fixtures into DIR (default: none)")
    ap.add_argument("--no-cache", action="store_true",
                    help="run pooltool again, ignoring runs/pooltool_cache/ (default: use it)")
    ap.add_argument("--pooltool-only", action="store_true",
                    help="run (and cache) pooltool on the shots only; skip the cuegym side "
                         "(default: compare)")
    a = ap.parse_args(argv)
    if a.pooltool_only:  # it stops before the comparison these set
        given = [opt for opt, v in (("--json", a.json), ("--out", a.out is not None),
                                    ("--save-fixtures", a.save_fixtures is not None),
                                    ("--strikes", a.strikes is not None)) if v]
        if given:
            ap.error(f"{', '.join(given)} set{'s' if len(given) == 1 else ''} the comparison "
                     "with cuegym, which --pooltool-only skips")
    a.strikes = d.strikes if a.strikes is None else a.strikes
    for opt, v, lo in (("--shots", a.shots, 1), ("--strikes", a.strikes, 1),
                       ("--workers", a.workers, 1)):
        if v < lo:
            ap.error(f"{opt} must be >= {lo}, got {v}")
    if a.save_fixtures and not (a.save_fixtures[1].isdigit() and int(a.save_fixtures[1]) >= 1):
        ap.error(f"--save-fixtures DIR K: K must be an integer >= 1, got {a.save_fixtures[1]!r}")
    # the outputs are written after pooltool and the comparison: found unwritable now
    if a.out is not None and (not a.out.strip() or Path(a.out).is_dir()):
        ap.error(f"--out {a.out!r}: give the report's file")
    if a.out is not None:
        check_writable_dir(Path(a.out).parent, "--out", a.out)
    if a.save_fixtures:
        check_writable_dir(a.save_fixtures[0], "--save-fixtures")
    cfg = Settings(shots=a.shots, seed=a.seed, strikes=a.strikes, workers=a.workers,
                   json=a.json, out=a.out, no_cache=a.no_cache, table=a.table)
    if a.save_fixtures:
        cfg.save_fixtures, cfg.n_fixtures = a.save_fixtures[0], int(a.save_fixtures[1])
    return cfg, a.pooltool_only


def _summary(cfg: Settings, rows: list[dict], failing: list[int], t_ours: float) -> dict:
    """The report's summary of the per-shot comparison ``rows`` (``failing``: the shots over
    1 mm; ``t_ours``: cuegym's time for all shots [s])."""
    err = np.array([r["max_err"] for r in rows])
    summary = {
        "pooltool": POOLTOOL_VERSION,
        "shots": cfg.shots,
        "seed": cfg.seed,
        "median_err_m": float(np.median(err)),
        "p95_err_m": _pct(err, 95),
        "max_err_m": float(err.max()),
        "share_within_1mm": float(np.mean(err <= TOL)),
        "share_seq_equal": float(np.mean([r["seq_equal"] for r in rows])),
        "n_failing": len(failing),
        "n_failing_chaotic": sum(rows[i]["chaotic"] for i in failing),
        "n_failing_pooltool_spurious": sum(rows[i]["pooltool_spurious"] for i in failing),
        "n_failing_seq_equal": sum(rows[i]["seq_equal"] for i in failing),
        "n_overflow_pooltool": sum(r["overflow_pt"] for r in rows),
        "n_overflow_cuegym": sum(r["overflow_ours"] for r in rows),
        "collisions_per_shot_median": float(np.median([r["n_pt_events"] for r in rows])),
        "max_dt_common_s": float(max(r["max_dt_common"] for r in rows)),
        "cuegym_seconds": t_ours,
        "strike": strike_comparison(cfg),
    }
    if cfg.table != "rectangle":
        summary = {"table": cfg.table, **summary}
        summary.update(
            balls_pocketed_pooltool=sum(r["n_pocketed_pt"] for r in rows),
            balls_pocketed_cuegym=sum(r["n_pocketed_ours"] for r in rows),
            shots_with_pocketing_pooltool=sum(r["n_pocketed_pt"] > 0 for r in rows),
            shots_pockets_agree=sum(r["pockets_agree"] for r in rows),
            balls_pocket_mismatch=sum(r["n_pocket_mismatch"] for r in rows),
        )
    return summary


def _print_summary(cfg: Settings, s: dict, rows: list[dict], failing: list[int]) -> None:
    """The summary as a table, then every shot over 1 mm and where it first differs."""
    if cfg.table == "rectangle":
        where = (f"2-10 balls, {sum(r['n_posts'] > 0 for r in rows)} with posts")
    else:
        where = (f"table {cfg.table}, 2-{max(r['n_balls'] for r in rows)} balls, "
                 f"{rows[0]['n_posts']} posts, {rows[0]['n_pockets']} pockets")
    print(f"cuegym vs pooltool {POOLTOOL_VERSION}: {cfg.shots} random shots (seed {cfg.seed}), "
          f"{where}; median {s['collisions_per_shot_median']:.0f} collisions per shot")
    print(f"{'quantity':44s} {'value':>14s}")
    print("-" * 59)
    lines = [
        ("per-shot max position error, median [m]", f"{s['median_err_m']:.3e}"),
        ("per-shot max position error, 95th pct [m]", f"{s['p95_err_m']:.3e}"),
        ("per-shot max position error, max [m]", f"{s['max_err_m']:.3e}"),
        ("shots with every ball within 1 mm", f"{100 * s['share_within_1mm']:.1f} %"),
        ("shots with identical collision sequence", f"{100 * s['share_seq_equal']:.1f} %"),
        ("largest event-time difference (same seq.) [s]", f"{s['max_dt_common_s']:.2e}"),
        ("shots ended by max_events (pooltool / cuegym)",
         f"{s['n_overflow_pooltool']} / {s['n_overflow_cuegym']}"),
        ("shots > 1 mm", f"{s['n_failing']}"),
        ("  of which pooltool itself chaotic", f"{s['n_failing_chaotic']}"),
        ("  of which a spurious pooltool collision", f"{s['n_failing_pooltool_spurious']}"),
        ("  of which same collision sequence", f"{s['n_failing_seq_equal']}"),
    ]
    if cfg.table != "rectangle":
        lines += [
            ("balls pocketed (pooltool / cuegym)",
             f"{s['balls_pocketed_pooltool']} / {s['balls_pocketed_cuegym']}"),
            ("shots with a ball pocketed (pooltool)", f"{s['shots_with_pocketing_pooltool']}"),
            ("shots with every ball's pocket agreeing",
             f"{s['shots_pockets_agree']}/{cfg.shots}"),
            ("balls whose pocket differs", f"{s['balls_pocket_mismatch']}"),
        ]
    st = s["strike"]
    if "error" in st:
        lines.append(("strike model", st["error"][:40]))
    else:
        lines += [(f"strike: max |dv| over {st['n']} strikes [m/s]", f"{st['max_dv']:.2e}"),
                  (f"strike: max |dw| over {st['n']} strikes [rad/s]", f"{st['max_dw']:.2e}")]
    for name, val in lines:
        print(f"{name:44s} {val:>14s}")
    if failing:
        print("\nshots beyond 1 mm (index, balls, posts, max err, first differing collision):")
        for i in failing:
            r = rows[i]
            where = ("same sequence" if r["seq_equal"] else
                     f"#{r['first_diff']}: pooltool {r['pt_at_diff']} t={r['t_pt_at_diff']} / "
                     f"cuegym {r['ours_at_diff']} t={r['t_ours_at_diff']}")
            tag = (" chaotic" if r["chaotic"] else "") + \
                (" pooltool-spurious" if r["pooltool_spurious"] else "")
            print(f"  {i:4d} {r['n_balls']:2d} {r['n_posts']} {r['max_err']:.3e}{tag}  {where}")


@cli_main
def main(argv: list[str] | None = None) -> int:
    cfg, pooltool_only = _settings(argv)
    shots = shots_for(cfg)
    geom = None if cfg.table == "rectangle" else table_geometry(cfg.table)
    pt_results = cached_pooltool(run_name(cfg, "shots"), [pt_shot(s) for s in shots], [], cfg)
    bad = [i for i, r in enumerate(pt_results) if "error" in r]
    if bad:
        raise RuntimeError(f"pooltool failed on shots {bad[:10]}: {pt_results[bad[0]]['error']}")
    if pooltool_only:
        n_ev = [len(r["events"]) for r in pt_results]
        print(f"pooltool: {len(shots)} shots, collisions per shot median {np.median(n_ev):.0f}"
              f" max {max(n_ev)}, overflow {sum(r['overflow'] for r in pt_results)}")
        return 0

    replays = [replay_shot(s, r) for s, r in zip(shots, pt_results, strict=True)]
    t0 = time.perf_counter()
    ours = simulate_ours(replays)
    t_ours = time.perf_counter() - t0
    rows = [compare_shot(p, o, geom) for p, o in zip(pt_results, ours, strict=True)]
    failing = [i for i, r in enumerate(rows) if r["max_err"] > TOL]
    chaos_idx = sorted(set(failing) | (set(range(len(shots))) if cfg.save_fixtures else set()))
    chaos = chaos_probe(shots, pt_results, chaos_idx, cfg,
                        f"{run_name(cfg, 'chaos')}_{_digest(chaos_idx)}")
    for i, r in enumerate(rows):
        r["index"] = i
        r["n_balls"] = len(shots[i]["balls"])
        if geom is None:
            r["n_posts"] = len(shots[i]["table"]["posts"])
        else:
            r["n_posts"] = sum(c["kind"] == "post" for c in geom["circles"])
            r["n_pockets"] = len(geom["pockets"])
        r["pooltool_self_sensitivity"] = chaos.get(i)
        r["chaotic"] = chaos.get(i, 0.0) > TOL

    summary = _summary(cfg, rows, failing, t_ours)
    report = {"summary": summary, "rows": rows}
    if cfg.out:
        Path(cfg.out).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(Path(cfg.out), json.dumps(report, indent=1))
    if cfg.save_fixtures:
        written = save_fixtures(Path(cfg.save_fixtures), cfg.n_fixtures, shots, pt_results,
                                rows, chaos, cfg)
        print(f"wrote {len(written)} fixtures to {cfg.save_fixtures}", file=sys.stderr)

    if cfg.json:
        print(json.dumps(summary, indent=1))
    else:
        _print_summary(cfg, summary, rows, failing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
