"""The ``cuegym`` command: one entry point for the simulator, the referees and the scripts.

    cuegym simulate < shots.json > results.json     # physics (cuegym.physics)
    cuegym rules new --game keglebillard --players 3 # referees (cuegym.rules)
    cuegym train --config configs/train/keglebillard_sac.yaml --timesteps 20000
    cuegym evaluate --game keglebillard --agents random,geometric,pretrained
    cuegym selfplay --game golfbillard ...
    cuegym replay --game golfbillard --what shot --out shot.gif
    cuegym bench [physics|envs|tournament] ...
    cuegym play ...                                 # interactive play (cuegym.play)

Each subcommand is the ``main(argv)`` of a module (:data:`COMMANDS`), imported only when asked
for, so ``cuegym --help`` is fast and works without the optional dependencies. ``cuegym <cmd>
--help`` shows the subcommand's own options. Paths given to the commands are read relative to
the working directory; the shipped ``configs/...`` and ``agents/pretrained/...`` are found in
the installed package when they are not there. Runs are written under ``./runs/``. Errors in
the input print one line and exit with status 2 (:mod:`cuegym.cli_errors`).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from cuegym.cli_errors import EXIT_USAGE, did_you_mean, run_cli

#: subcommand -> (module, function, argv prefix, one-line help)
COMMANDS: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "simulate": ("cuegym.physics.__main__", "main", ("simulate",),
                 "simulate JSON shots from stdin, print the results as JSON"),
    "rules": ("cuegym.rules.__main__", "main", (),
              "referee: score shots (JSON), start or play games (score | new | play)"),
    "train": ("cuegym.experiments.train", "main", (),
              "train an SB3 agent from a YAML config (runs/<name>/)"),
    "evaluate": ("cuegym.experiments.evaluate", "main", (),
                 "tournament between agents (names, model paths)"),
    "selfplay": ("cuegym.experiments.selfplay", "main", (),
                 "self-play training on the full-game envs"),
    "replay": ("cuegym.experiments.replay", "main", (),
               "animate a shot or a game (GIF/MP4)"),
    "bench": ("cuegym.experiments.bench_physics", "main", (),
              "benchmarks: 'bench physics' (default), 'bench envs' or 'bench tournament'"),
    "play": ("cuegym.play.__main__", "main", (), "play a game interactively"),
}

#: ``cuegym bench <what>``: the benchmark modules.
BENCHES = {"physics": "cuegym.experiments.bench_physics", "envs": "cuegym.experiments.bench_envs",
           "tournament": "cuegym.experiments.bench_tournament"}


def _usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {help_}" for name, (_, _, _, help_) in COMMANDS.items()]
    return ("usage: cuegym [-h] [--version] <command> [args ...]\n\n"
            "cuegym: batched billiards physics, referees and RL environments for keglebillard\n"
            "and golfbillard.\n\ncommands:\n" + "\n".join(lines) +
            "\n\n'cuegym <command> --help' shows the options of a command. Errors exit with "
            "status 2;\nCUEGYM_DEBUG=1 shows their traceback.")


def _load(module: str, func: str, command: str) -> Callable[[list[str] | None], int | None]:
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module.startswith(exc.name):
            raise SystemExit(_fail(f"'cuegym {command}' is not available in this installation "
                                   f"(module {module} is missing)")) from None
        if exc.name is not None:  # an optional dependency
            raise SystemExit(_fail(f"'cuegym {command}' needs the package {exc.name!r}: "
                                   "pip install 'cuegym[rl]'")) from None
        raise
    return getattr(mod, func)


def _fail(msg: str) -> int:
    print(f"cuegym: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``cuegym <command> [args]`` to the command's ``main(args)``; the usage and
    version lines too end quietly when stdout's reader has gone (``cuegym --help | head -0``)."""
    return run_cli(_dispatch, argv)


def _dispatch(argv: list[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["-h"], ["--help"], ["help"]) and len(args) > 1:
        # "cuegym help train" is "cuegym train --help" (as git help does); it printed the
        # top-level usage, ignoring the command named
        if len(args) > 2:
            return _fail(f"{args[0]} takes one command name, got {' '.join(args[1:])!r}")
        if args[1] not in COMMANDS:
            return _fail(f"unknown command {args[1]!r}{did_you_mean(args[1], COMMANDS)}; "
                         f"commands: {', '.join(COMMANDS)}")
        args = [args[1], "--help"]
    if not args or args[0] in ("-h", "--help", "help"):
        # asked for: stdout; no command at all is a usage error, said on stderr (as argparse)
        print(_usage(), file=sys.stdout if args else sys.stderr)
        return 0 if args else EXIT_USAGE
    if args[0] == "--version":
        from cuegym import __version__

        if len(args) > 1:
            return _fail(f"--version takes no arguments, got {' '.join(args[1:])!r}")
        print(f"cuegym {__version__}")
        return 0
    command, rest = args[0], args[1:]
    if command not in COMMANDS:
        return _fail(f"unknown command {command!r}{did_you_mean(command, COMMANDS)}; commands: "
                     f"{', '.join(COMMANDS)}")
    module, func, prefix, _ = COMMANDS[command]
    # a command whose argv starts with its own subcommand (simulate) is named by that
    prog = "cuegym" if prefix else f"cuegym {command}"
    if command == "bench":
        if rest and rest[0] in ("-h", "--help"):  # which benchmarks there are, not physics's
            print("usage: cuegym bench [physics | envs | tournament] [options]\n\n"
                  "  physics     shots/s of the batched simulator (the default)\n"
                  "  envs        steps/s of the Gymnasium envs (native vector, SB3)\n"
                  "  tournament  seconds for a fixed-seed tournament between two agents\n\n"
                  "'cuegym bench <name> --help' shows the options of a benchmark.")
            return 0
        what = rest[0] if rest and not rest[0].startswith("-") else "physics"
        if rest and not rest[0].startswith("-"):
            rest = rest[1:]
        if what not in BENCHES:
            return _fail(f"unknown benchmark {what!r}{did_you_mean(what, BENCHES)}; known: "
                         f"{', '.join(BENCHES)}")
        module, prog = BENCHES[what], f"cuegym bench {what}"
    try:
        fn = _load(module, func, command)
    except SystemExit as exc:
        return int(exc.code)
    saved = sys.argv[0]
    sys.argv[0] = prog  # argparse names the program after argv[0]
    try:
        return run_cli(fn, [*prefix, *rest])
    finally:
        sys.argv[0] = saved


if __name__ == "__main__":
    sys.exit(main())
