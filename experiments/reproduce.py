"""Reproduce a shipped issue-16 agent from nothing with one command.

    python experiments/reproduce.py --game keglebillard        # about 80 min on 2 quiet cores
    python experiments/reproduce.py --game golfbillard         # about 65 minutes
    make reproduce-keglebillard                                 # the same, after setting up

The keglebillard agent (``make_agent("pretrained", "keglebillard")``) is three networks trained
in turn, each on the one before: the DQN on the shot menu (``configs/train/keglebillard_dqn.yaml``,
``agents/pretrained/keglebillard.zip``), the leave network choosing among its best entries
(``configs/aim/keglebillard_leave.yaml``, ``keglebillard_leave.pt``) and the aim correction of
the strikes that agent plays (``configs/aim/keglebillard.yaml``, ``keglebillard_aim.pt``). The
shipped configs name the shipped files as each stage's base; here every stage is trained on the
networks this run made (``--set base=...`` of the next stage, nothing else changed), so the
result depends on nothing shipped. The stages' own check games are skipped (``eval`` 0 games):
one check of the finished agent follows (``--check``). The golfbillard agent
(``golfbillard_expert.pt``) is one stage, expert iteration (``configs/expert/golfbillard.yaml``).

Writes ``runs/<name>_<stage>/`` (each stage's run, as its own script writes it) and
``runs/<name>/``: the finished networks under their shipped names, ``reproduce.json`` (the
stages' wall-clock times, the check's games) and the ``evaluate.py`` command that plays them.
``--resume`` skips finished stages (``skipped`` in reproduce.json, their times kept from an
earlier reproduce.json, else null) and reuses a stage's labels. Every stage's settings (and its
run directory) are checked before the first stage runs: a mistake in ``--aim`` is refused at
once, not after the stages before it; and a ``--resume`` refuses, for a finished stage as for
one it continues, the settings its own script's ``--resume`` refuses (``--dqn seed=5`` on a
chain run with seed 0: "is another run (seed: 0 there, 5 given)", exit status 2), rather than
skipping it and shipping the files of the settings it ran with.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from cuegym.cli_errors import UsageError, cli_main, script_prog, seed_arg
from cuegym.experiments.train import write_atomic
from cuegym.experiments.train_config import (
    check_run_name,
    deep_merge,
    flag_override,
    parse_set,
    refuse_empty,
)

HERE = Path(__file__).resolve().parent
CONFIGS = HERE.parent / "configs"
NO_CHECK = {"geometric": 0, "planner": 0}  # a stage's own check games: skipped in the chain


@contextlib.contextmanager
def _stage(stage: str) -> Iterator[None]:
    """A bad value of ``stage``'s config is a one-line error that names the stage's option."""
    try:
        yield
    except ValueError as e:
        raise UsageError(f"--{stage}: {e}") from None


#: the way out of an existing stage run that reproduce names (it has no --overwrite)
START_OVER = "another --name (or delete it) to start over"


def _stage_runs(name: str, runs: Path, stages: tuple[str, ...]) -> dict[str, Path]:
    return {stage: runs / f"{name}_{stage}" for stage in stages}


#: the file a finished stage leaves in its run: ``--resume`` skips a stage that has it. The
#: DQN's status.json is written also when its training is interrupted, so it must say
#: ``finished`` too; train_aim's model.pt is written only once its fit is done. Expert
#: iteration rewrites model.pt after every generation: its run tells (``expert_iteration.
#: finished``).
FINISHED = {"dqn": "status.json", "leave": "model.pt", "aim": "model.pt"}


def _skipped(run: Path, stage: str, resume: bool, cfg: dict[str, Any] | None = None) -> bool:
    """Whether ``--resume`` skips ``stage``: its run in ``run`` finished (an interrupted stage
    is continued instead; ``cfg``: the expert stage's config)."""
    if not resume:
        return False
    if stage == "expert":
        from cuegym.experiments.expert_iteration import finished

        return finished(run, cfg)
    done = run / FINISHED[stage]
    if not done.exists():
        return False
    return stage != "dqn" or bool(json.loads(done.read_text()).get("finished"))


#: what a finished stage's saved settings may differ in from those given when ``--resume``
#: reuses it: how a run is shown and run, not what it made
FINISHED_FREE = ("name", "progress_bar", "threads", "device", "fit.threads")


def _saved_settings(stage: str, run: Path) -> dict[str, Any]:
    """The settings a stage's run was made with (its config.yaml, with its script's defaults
    for keys it predates), as a dict comparable with the settings given."""
    from cuegym.configs import load_yaml

    path = run / "config.yaml"
    if stage == "dqn":
        from cuegym.experiments.train_config import load_config

        return asdict(load_config(path))
    if stage == "expert":
        from cuegym.experiments.expert_iteration import DEFAULTS
    else:
        from cuegym.experiments.train_aim import DEFAULTS
    return DEFAULTS | load_yaml(path.read_text())


def _check_finished(stage: str, run: Path, given: dict[str, Any]) -> None:
    """A finished stage is reused as it is: settings given that differ from those it ran with
    (beyond :data:`FINISHED_FREE`; ``total_timesteps``, ``fit``, ``generations``, which a
    resume of an unfinished stage acts on, included) are refused, not ignored."""
    from cuegym.experiments.expert_iteration import changed_keys

    diff = [k for k in changed_keys(_saved_settings(stage, run), given)
            if k not in FINISHED_FREE]
    if diff:
        with _stage(stage):
            raise ValueError(f"--resume: {run} finished with other settings "
                             f"({', '.join(diff)}); a finished stage is reused as it is: give "
                             f"its settings, or {START_OVER}")


def _started(run: Path) -> bool:
    """Whether a stage's run was started (its config.yaml written): a ``--resume`` continues
    it; one not started yet starts afresh (a resume of nothing is refused)."""
    return (run / "config.yaml").exists()


def _aim_config(config: str, run: Path, base: str, progress: bool, fit_threads: int,
                sets: dict[str, Any]) -> dict[str, Any]:
    """The config of a ``train_aim.py`` stage (the leave or the aim correction) on ``base``."""
    from cuegym.experiments import train_aim

    over = {"name": run.name, "base": base, "eval": NO_CHECK, "progress_bar": progress,
            "fit": {"threads": fit_threads}}
    if config.endswith("_leave.yaml"):
        over["leave"] = {"aim": "none"}  # no aim network exists yet (only the check uses it)
    # a base the user gave is there now: checked as a lone train_aim run checks it
    return train_aim.load_config(CONFIGS / "aim" / config, deep_merge(over, sets),
                                 base_written_later="base" not in sets)


def keglebillard_configs(name: str, runs: Path, resume: bool, progress: bool,
                         fit_threads: int, sets: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The three stages' configs (module doc), each stage on the files the one before writes,
    loaded and checked (the DQN's env and model built once, thrown away; each run directory
    checked against ``resume``, a finished stage's too) before the first stage runs: a mistake
    in the last stage's settings is refused at once, not after the stages before it."""
    from cuegym.experiments import train
    from cuegym.experiments.expert_iteration import check_run
    from cuegym.experiments.train_aim import resume_refusal
    from cuegym.experiments.train_config import load_config

    run = _stage_runs(name, runs, GAME_STAGES["keglebillard"])
    dqn_model, leave_model = run["dqn"] / "best_model.zip", run["leave"] / "model.pt"
    cfgs: dict[str, Any] = {}
    with _stage("dqn"):
        cfgs["dqn"] = load_config(CONFIGS / "train" / "keglebillard_dqn.yaml",
                                  deep_merge({"name": run["dqn"].name, "progress_bar": progress},
                                             sets["dqn"]))
    with _stage("leave"):
        cfgs["leave"] = _aim_config("keglebillard_leave.yaml", run["leave"],
                                    f"{dqn_model}:aim=none", progress, fit_threads,
                                    sets["leave"])
    with _stage("aim"):
        cfgs["aim"] = _aim_config("keglebillard.yaml", run["aim"],
                                  f"{dqn_model}:aim=none,leave={leave_model}", progress,
                                  fit_threads, sets["aim"])
    with _stage("dqn"):  # its env and a model on it, built and thrown away
        train.check_config(cfgs["dqn"])
    # every started stage, skipped (finished) or not, against the settings given: a resume
    # refuses what its own script's --resume refuses (a finished stage's files are reused)
    if _skipped(run["dqn"], "dqn", resume):
        train.check_resume(cfgs["dqn"], run["dqn"])
        _check_finished("dqn", run["dqn"], asdict(cfgs["dqn"]))
    else:
        train.check_run_dir(cfgs["dqn"], run["dqn"], resume and _started(run["dqn"]), False)
    for stage in ("leave", "aim"):
        done = _skipped(run[stage], stage, resume)
        check_run(run[stage], cfgs[stage], done or (resume and _started(run[stage])),
                  False, resume_refusal(cfgs[stage]), START_OVER)
        if done:
            _check_finished(stage, run[stage], cfgs[stage])
    return cfgs


def keglebillard(name: str, runs: Path, resume: bool, times: dict[str, float],
                 cfgs: dict[str, Any]) -> dict[str, Path]:
    """The three stages (module doc) of :func:`keglebillard_configs`; returns the finished
    files by their shipped names."""
    from cuegym.experiments import train, train_aim

    run = _stage_runs(name, runs, GAME_STAGES["keglebillard"])
    t0 = time.time()
    if not _skipped(run["dqn"], "dqn", resume):
        train.train(cfgs["dqn"], runs_dir=run["dqn"].parent,
                    resume=resume and _started(run["dqn"]))
        times["dqn_s"] = time.time() - t0
    for stage in ("leave", "aim"):
        t0 = time.time()
        if not _skipped(run[stage], stage, resume):
            train_aim.train_aim(cfgs[stage], runs_dir=run[stage].parent,
                                resume=resume and _started(run[stage]))
            times[f"{stage}_s"] = time.time() - t0
    return {"keglebillard.zip": run["dqn"] / "best_model.zip",
            "keglebillard_leave.pt": run["leave"] / "model.pt",
            "keglebillard_aim.pt": run["aim"] / "model.pt"}


def golfbillard_configs(name: str, runs: Path, resume: bool, progress: bool,
                        fit_threads: int, sets: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The one stage's config (expert iteration), loaded and checked with its run directory
    (a finished one's too)."""
    from cuegym.experiments import expert_iteration as ei

    run = _stage_runs(name, runs, GAME_STAGES["golfbillard"])["expert"]
    with _stage("expert"):
        cfg = ei.load_config(CONFIGS / "expert" / "golfbillard.yaml",
                             deep_merge({"name": run.name, "progress_bar": progress},
                                        sets["expert"]))
    # skipped (finished) or not: a resume refuses what expert_iteration.py --resume refuses
    done = _skipped(run, "expert", resume, cfg)
    ei.check_run(run, cfg, done or (resume and _started(run)), False, ei.resume_refusal(cfg, run),
                 START_OVER)
    if done:
        _check_finished("expert", run, cfg)
    return {"expert": cfg}


def golfbillard(name: str, runs: Path, resume: bool, times: dict[str, float],
                cfgs: dict[str, Any]) -> dict[str, Path]:
    """The one stage, expert iteration; returns its network by its shipped name."""
    from cuegym.experiments import expert_iteration as ei

    run = _stage_runs(name, runs, GAME_STAGES["golfbillard"])["expert"]
    t0 = time.time()
    if not _skipped(run, "expert", resume, cfgs["expert"]):
        ei.expert_iteration(cfgs["expert"], runs_dir=run.parent,
                            resume=resume and _started(run))
        times["expert_s"] = time.time() - t0
    return {"golfbillard_expert.pt": run / "model.pt"}


def agent_spec(game: str, out: Path) -> str:
    """The ``make_agent`` spec of the finished agent in ``out``."""
    if game == "keglebillard":
        return (f"{out / 'keglebillard.zip'}:aim={out / 'keglebillard_aim.pt'},"
                f"leave={out / 'keglebillard_leave.pt'}")
    return str(out / "golfbillard_expert.pt")


def check(game: str, spec: str, games: dict[str, int], seed: int) -> dict[str, Any]:
    """The finished agent against ``games``' opponents, as the stages check theirs
    (``expert_iteration._eval_games``: tournament noise, seats alternating; win rates with
    Wilson 95 % intervals, points a shot, fouls)."""
    from cuegym.agents import make_agent
    from cuegym.agents.arena import make_arena
    from cuegym.experiments.expert_iteration import _eval_games

    arena = make_arena(game)
    return _eval_games(arena, make_agent(spec, game, arena=arena), games, seed)


def _stage_times(game: str, out: Path, times: dict[str, float]
                 ) -> tuple[dict[str, float | None], list[str]]:
    """The stages' wall-clock times for reproduce.json, in stage order, and the stages this
    session skipped (``--resume``: finished before): a skipped stage keeps the time an earlier
    session's reproduce.json recorded, or None where none did (not the zero seconds of its
    skip). ``total_s`` is this session's."""
    before: dict[str, Any] = {}
    with contextlib.suppress(OSError, ValueError, AttributeError):
        before = json.loads((out / "reproduce.json").read_text()).get("times") or {}
    keys = [f"{stage}_s" for stage in GAME_STAGES[game]]
    skipped = [k.removesuffix("_s") for k in keys if k not in times]
    merged = {k: times[k] if k in times else before.get(k) for k in keys}
    return {**merged, "total_s": times["total_s"]}, skipped


#: each game's (configs, stages): every config is loaded and checked before the first stage
STAGES = {"keglebillard": (keglebillard_configs, keglebillard),
          "golfbillard": (golfbillard_configs, golfbillard)}
#: Each stage's config, which its ``--<stage> KEY=VALUE`` options override (after the chain's
#: own overrides: a test shrinks a stage this way).
STAGE_SETS = {"dqn": "the DQN (configs/train/keglebillard_dqn.yaml)",
              "leave": "the leave (configs/aim/keglebillard_leave.yaml)",
              "aim": "the aim correction (configs/aim/keglebillard.yaml)",
              "expert": "golfbillard expert iteration (configs/expert/golfbillard.yaml)"}
GAME_STAGES = {"keglebillard": ("dqn", "leave", "aim"), "golfbillard": ("expert",)}


@cli_main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=sorted(STAGES))
    p.add_argument("--name", help="run name prefix (default: reproduce_<game>)")
    p.add_argument("--runs-dir", default="runs", help="directory of the runs (default ./runs)")
    p.add_argument("--resume", action="store_true",
                   help="skip finished stages and reuse a stage's labels")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--fit-threads", type=int,
                   help="torch threads of the keglebillard fits (default 2: nothing else runs "
                        "then; the weights do not depend on it)")
    p.add_argument("--check", type=int, default=1000, metavar="GAMES",
                   help="games of the finished agent against geometric (default 1000; 0: none)")
    p.add_argument("--check-planner", type=int, default=0, metavar="GAMES",
                   help="games against the planner too (about 0.3 s each; default 0)")
    p.add_argument("--seed", type=seed_arg, default=900, help="the check's seed (default 900)")
    for stage, says in STAGE_SETS.items():
        p.add_argument(f"--{stage}", nargs="*", action="extend", default=[],
                       metavar="KEY=VALUE", help=f"override keys of {says} (values as YAML; "
                       f"mappings merge; may be repeated)")
    args = p.parse_args(argv)
    refuse_empty(p, ("--runs-dir", args.runs_dir))
    if args.fit_threads is not None and args.game != "keglebillard":
        p.error(f"--fit-threads: {args.game} has no fit stage of train_aim.py (its threads are "
                "expert iteration's own `threads`: --expert threads=N)")
    fit_threads_given = args.fit_threads is not None
    args.fit_threads = 2 if args.fit_threads is None else args.fit_threads
    if args.fit_threads < 1 or args.check < 0 or args.check_planner < 0:
        p.error(f"--fit-threads must be >= 1 and --check/--check-planner >= 0, got "
                f"{args.fit_threads}, {args.check}, {args.check_planner}")
    name = f"reproduce_{args.game}" if args.name is None else check_run_name(args.name,
                                                                             "--name")
    runs, out = Path(args.runs_dir), Path(args.runs_dir) / name
    times: dict[str, float] = {}
    t0 = time.time()
    sets = {stage: parse_set(getattr(args, stage), f"--{stage}") for stage in STAGE_SETS}
    wrong = [f"--{k}" for k, v in sets.items() if v and k not in GAME_STAGES[args.game]]
    if wrong:
        p.error(f"{', '.join(wrong)}: no such stage for {args.game} "
                f"({', '.join(GAME_STAGES[args.game])})")
    named = [f"--{k} name={v['name']!r}" for k, v in sets.items() if "name" in v]
    if named:  # the chain finds each stage's files by the run names it gives them
        p.error(f"{', '.join(named)}: a stage's run is named by --name "
                f"(runs/<name>_<stage>), not by its name key")
    for stage in ("leave", "aim"):  # the fits' threads: --fit-threads, or a stage's own
        fit = sets[stage].get("fit")
        if fit_threads_given and isinstance(fit, dict):
            flag_override(fit, "threads", args.fit_threads, "--fit-threads", f"--{stage}",
                          "fit.")
    configs, stages = STAGES[args.game]
    cfgs = configs(name, runs, args.resume, not args.no_progress, args.fit_threads, sets)
    files = stages(name, runs, args.resume, times, cfgs)
    times["total_s"] = time.time() - t0
    times, skipped = _stage_times(args.game, out, times)
    out.mkdir(parents=True, exist_ok=True)
    for shipped, made in files.items():
        if shipped.endswith(".zip"):  # the lean copy that ships (plays identically)
            from cuegym.agents.sb3_agent import export_model

            export_model(made, out / shipped, source=str(made),
                         command="python experiments/reproduce.py " + " ".join(sys.argv[1:]))
        else:
            shutil.copyfile(made, out / shipped)
    spec = agent_spec(args.game, out)
    play = (f"cuegym evaluate --game {args.game} --agents \"{spec},planner\" --games 500 "
            "--seed 900")
    report = {"game": args.game, "times": times, **({"skipped": skipped} if skipped else {}),
              "files": sorted(files), "spec": spec,
              "check": check(args.game, spec, {"geometric": args.check,
                                               "planner": args.check_planner}, args.seed),
              "play": play}
    write_atomic(out / "reproduce.json", json.dumps(report, indent=1))
    print(json.dumps({"check": report["check"]}))
    minutes = {k.removesuffix("_s"): None if v is None else round(v / 60, 1)
               for k, v in times.items()}
    print(json.dumps({"times_min": minutes}))
    print(f"wrote {out}; play it: {play}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
